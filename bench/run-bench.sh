#!/usr/bin/env bash
# make bench: build the benchmarks with the installed mpicc and run them on
# shared memory and on the forced netmod (tcp;ofi_rxm), 2 ranks.
#   BENCH_ITERS=N (default 1000)   BENCH_MAX=BYTES (default 1048576)
#   BENCH_OUT=DIR (default _bench/<date>)
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
ITERS=${BENCH_ITERS:-1000}
MAX=${BENCH_MAX:-1048576}
OUT=${BENCH_OUT:-$TOP/_bench/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/bin"
for b in pingpong msgrate stencil tree; do
    "$PREFIX/bin/mpicc" -O2 -o "$OUT/bin/$b" "$TOP/bench/$b.c" -lm
done
"$PREFIX/bin/mpicc" -O2 -o "$OUT/bin/cholesky" "$TOP/bench/cholesky.c" -llapack -lblas -lm
run() {
    local name=$1; shift
    echo "== pingpong on $name: $* =="
    env "$@" "$PREFIX/bin/mpiexec" -n 2 "$OUT/bin/pingpong" -n "$ITERS" -max "$MAX" \
        -csv "$OUT/pingpong-$name.csv" | tee "$OUT/pingpong-$name.txt"
    echo "== notification rate / matching cost on $name =="
    env "$@" "$PREFIX/bin/mpiexec" -n 2 "$OUT/bin/msgrate" -posted 1,100,10000 |
        tee "$OUT/msgrate-$name.txt"
    echo "== pipelined stencil on $name =="
    env "$@" "$PREFIX/bin/mpiexec" -n 2 "$OUT/bin/stencil" -csv "$OUT/stencil-$name.csv" |
        tee "$OUT/stencil-$name.txt"
    echo "== tree reduction on $name =="
    env "$@" "$PREFIX/bin/mpiexec" -n 2 "$OUT/bin/tree" -csv "$OUT/tree-$name.csv" |
        tee "$OUT/tree-$name.txt"
    echo "== Cholesky, 32 x 32 tiles, on $name =="
    env "$@" "$PREFIX/bin/mpiexec" -n 2 "$OUT/bin/cholesky" -nt 32 -b "${CHOL_TILE:-64}" \
        -csv "$OUT/cholesky-$name.csv" | tee "$OUT/cholesky-$name.txt"
}
run shm "FI_PROVIDER=tcp;ofi_rxm"
run shm-generic "FI_PROVIDER=tcp;ofi_rxm" MPIR_CVAR_NOTIFY_FORCE_GENERIC=1
run tcp "FI_PROVIDER=tcp;ofi_rxm" MPIR_CVAR_NOLOCAL=1
echo "results in $OUT"
