#!/usr/bin/env bash
# MPICH's own test/mpi/rma directory, whole, on this build and on stock
# MPICH 4.0.2 (issue 32: "total run time no worse than stock"): the test
# programs are compiled first, then runtests is timed on each build, builds
# alternating, ROUNDS times (default 2), shared memory (FI_PROVIDER as in
# make check).  Needs the stock build (make bench-stock makes it).
#
#   bench/mpich-rma-time.sh        env: BUILD_DIR (_build), ROUNDS (2), MAXNP (4: the
#                                  largest process count of the tests run)
# Prints each run's wall time and the pass/fail counts, then the medians.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
ROUNDS=${ROUNDS:-2}
declare -A obj=([ours]=$BUILD/mpich-obj [stock]=$BUILD/mpich-obj-stock)
declare -A src=([ours]=$BUILD/mpich-src [stock]=$BUILD/mpich-orig)
declare -A inst=([ours]=${PREFIX:-$TOP/_install} [stock]=$BUILD/install-stock)
for b in ours stock; do
    t=${obj[$b]}/test/mpi
    [ -f "$t/Makefile" ] || { echo "mpich-rma-time: $t is not configured (build $b first)" >&2; exit 2; }
    make -C "$t/util" >/dev/null
    make -C "$t/rma" -j"$(nproc)" >/dev/null 2>&1 || make -C "$t/rma" -k >/dev/null 2>&1 || true
done
OUT=$(mktemp -d)
for r in $(seq "$ROUNDS"); do
    for b in ours stock; do
        t=${obj[$b]}/test/mpi
        start=$(date +%s.%N)
        (cd "$t" && env "FI_PROVIDER=tcp;ofi_rxm" MPITEST_TIMEOUT=180 ./runtests \
            -srcdir="${src[$b]}/test/mpi" -tests=testlist -testdirs=rma -maxnp="${MAXNP:-4}" \
            -tapfile="$OUT/$b.$r.tap" -mpiexec="${inst[$b]}/bin/mpiexec" >"$OUT/$b.$r.log" 2>&1) || true
        secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
        ok=$(grep -c '^ok ' "$OUT/$b.$r.tap" || true)
        nok=$(grep -c '^not ok ' "$OUT/$b.$r.tap" || true)
        printf '%-6s round %d: %7.1f s  (%d ok, %d not ok)\n' "$b" "$r" "$secs" "$ok" "$nok"
        echo "$b $secs" >>"$OUT/times"
    done
done
for b in ours stock; do
    awk -v b=$b '$1 == b {print $2}' "$OUT/times" | sort -n |
        awk -v b=$b '{t[NR] = $1} END {printf "%-6s median %.1f s over %d runs\n", b, t[int((NR + 1) / 2)], NR}'
done
echo "# logs and TAP files in $OUT"
