#!/usr/bin/env bash
# make bench: build the benchmarks with the installed mpicc and run each on
# shared memory, on shared memory with the generic path forced, and on the
# forced netmod (tcp;ofi_rxm; sockets: libfabric's sockets provider, the ping-pong only; tcp-am: the same with the libfabric fast path
# off; tcp-cmpl: the fast path ordered by completion), 2 ranks; then the ping-pong across two network namespaces ("netns",
# "netns-am": one rank per namespace, tcp;ofi_rxm over a veth pair,
# test/netns/), skipped with a message if namespaces cannot be made here.
# Writes text, CSV and PNG plots into one results directory and prints a
# one-screen summary.
#
#   bench/run-bench.sh [--quick]        --quick: ping-pong + small Cholesky, shm only
#   BENCH_TRANSPORTS="shm generic tcp sockets tcp-am tcp-cmpl netns netns-am"   (the default; --quick: shm)
#   BENCH_ITERS=N (1000)  BENCH_MAX=BYTES (4194304 on the node, 1048576 across the netmod)
#   BENCH_NP=N (2)
#   CHOL_TILES=N (32)  CHOL_TILE=N (64)  BENCH_OUT=DIR (_bench/<date>)
#   JACOBI_POINTS=N (200 per process)  JACOBI_ITERS=N (5000; 5 rounds of the three variants)
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
ITERS=${BENCH_ITERS:-1000}
NODE_MAX=${BENCH_MAX:-4194304}
NET_MAX=${BENCH_MAX:-1048576}
NP=${BENCH_NP:-2}
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
OUT=${BENCH_OUT:-$TOP/_bench/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/bin"
[ -x "$PREFIX/bin/mpicc" ] || { echo "run-bench: no MPICH in $PREFIX (run make)" >&2; exit 2; }
. "$TOP/test/harness/transports.sh"

for b in pingpong msgrate rate stencil tree pipeline overlap workqueue; do
    "$PREFIX/bin/mpicc" -O2 -o "$OUT/bin/$b" "$TOP/bench/$b.c" -lm
done
"$PREFIX/bin/mpicc" -O2 -o "$OUT/bin/cholesky" "$TOP/bench/cholesky.c" -llapack -lblas -lm
# the counter example's solver, its three halo exchanges in one run (-mode all)
"$PREFIX/bin/mpicc" -O2 -o "$OUT/bin/jacobi" "$TOP/examples/jacobi_notify.c"

# run NAME TRANSPORT ENV... -- PROGRAM ARGS...: output to NAME-TRANSPORT.{txt,csv}
# (NAME-TRANSPORT.TAG.{txt,csv} with RUN_TAG=TAG: a repeated run)
run() {
    local name=$1 tr=$2 tag=${RUN_TAG:+.$RUN_TAG}; shift 2
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "== $name on $tr${tag:+ (${tag#.})} =="
    local np=2
    case $name in stencil | tree | cholesky | workqueue) np=$NP ;; esac
    local mpiexec=$PREFIX/bin/mpiexec
    [[ $tr == netns* ]] && mpiexec=$TOP/test/netns/run.sh   # rank i in namespace i
    env "${envs[@]}" PREFIX="$PREFIX" "$mpiexec" -n "$np" "$OUT/bin/$name" "$@" \
        -csv "$OUT/$name-$tr$tag.csv" | tee "$OUT/$name-$tr$tag.txt"
}

transports=(shm generic tcp sockets tcp-am tcp-cmpl netns netns-am)
[ $QUICK = 1 ] && transports=(shm)
[ -n "${BENCH_TRANSPORTS:-}" ] && read -r -a transports <<<"$BENCH_TRANSPORTS"
# netns needs root and iproute2: bring the hosts up now, or drop the transport
if [[ " ${transports[*]} " == *" netns"* ]]; then
    rc=0
    "$TOP/test/netns/hosts.sh" up >/dev/null 2>"$OUT/netns-hosts.log" || rc=$?
    if [ $rc -eq 0 ]; then
        trap '"$TOP/test/netns/hosts.sh" down >/dev/null 2>&1' EXIT
    else
        echo "run-bench: skipping transports netns*: $(tail -n 1 "$OUT/netns-hosts.log")"
        kept=()
        for tr in "${transports[@]}"; do [[ $tr == netns* ]] || kept+=("$tr"); done
        transports=("${kept[@]}")
    fi
fi
start=$(date +%s)
# instructions per 8-byte message (callgrind, shared memory): issue 17's budget
if [[ " ${transports[*]} " == *" shm "* ]] && command -v valgrind >/dev/null; then
    echo "== instruction counts (bench/instr-count.sh) =="
    INSTR_OUT="$OUT/instr" bash "$TOP/bench/instr-count.sh" | tee "$OUT/instr.txt"
    # standard calls against stock MPICH, once make bench-stock has built it
    if [ -x "${BUILD_DIR:-$TOP/_build}/install-stock/bin/mpicc" ]; then
        echo "== standard MPI against stock MPICH (bench/stock-instr.sh) =="
        bash "$TOP/bench/stock-instr.sh" | tee "$OUT/stock-instr.txt"
    fi
fi
# the copy routines a node-local access could use, in a ping-pong's cache
# state without MPI (bench/shm_copy.c): what notify_copy.h's choice rests on
if [[ " ${transports[*]} " == *" shm "* ]] && [ $QUICK = 0 ]; then
    echo "== copy routines across a shared mapping (bench/shm_copy.c) =="
    cc -O2 -o "$OUT/bin/shm_copy" "$TOP/bench/shm_copy.c"
    "$OUT/bin/shm_copy" -n "$ITERS" -max "$NODE_MAX" | tee "$OUT/shm_copy.txt"
fi
for tr in "${transports[@]}"; do
    # the environment of each transport: test/harness/transports, shared with the suite
    envs=$(transport_env "$tr") || { echo "run-bench: unknown transport $tr" >&2; exit 2; }
    read -r -a env <<<"$envs"
    if [ $QUICK = 1 ]; then
        run pingpong "$tr" "${env[@]}" -- -n "$ITERS" -max 65536
        run cholesky "$tr" "${env[@]}" -- -nt 16 -b 32
        continue
    fi
    MAX=$NET_MAX
    [[ $tr == shm || $tr == generic ]] && MAX=$NODE_MAX
    run pingpong "$tr" "${env[@]}" -- -n "$ITERS" -max "$MAX"
    # the targets are medians of 3 runs: two more of the modes they compare
    # (bench/summarize.py takes each size's median ratio)
    if [ "$tr" = shm ]; then
        for k in 2 3; do
            RUN_TAG=run$k run pingpong "$tr" "${env[@]}" -- -n "$ITERS" -max "$MAX" \
                -modes put_notify,bound,floor,flag_sync,get_notify,get_flag_sync
        done
        # derived datatypes: a vector of 4 KiB blocks on both sides
        RUN_TAG=vector4k run pingpong "$tr" "${env[@]}" -- -n "$ITERS" -min 8192 -max "$MAX" \
            -block 4096 -modes put_notify,bound,flag_sync,get_notify,get_flag_sync
    fi
    if [[ $tr == tcp || $tr == sockets || $tr == netns ]]; then
        for k in 2 3; do
            RUN_TAG=run$k run pingpong "$tr" "${env[@]}" -- -n "$ITERS" -max "$MAX" \
                -modes sendrecv,put_notify,psendrecv,partitioned
        done
    fi
    # two hosts, and the sockets provider: the ping-pong only
    [[ $tr == netns* || $tr == sockets ]] && continue
    if [ "$tr" = tcp-am ] || [ "$tr" = tcp-cmpl ]; then   # for comparison: ping-pong and matching cost
        run msgrate "$tr" "${env[@]}" -- -posted 1,100,10000
        run workqueue "$tr" "${env[@]}" -- -n "$ITERS"
        continue
    fi
    run msgrate "$tr" "${env[@]}" -- -posted 1,100,10000
    run rate "$tr" "${env[@]}" --
    RUN_TAG=4k run rate "$tr" "${env[@]}" -- -size 4096
    run overlap "$tr" "${env[@]}" -- -n 200
    run workqueue "$tr" "${env[@]}" -- -n "$ITERS"
    run stencil "$tr" "${env[@]}" --
    run tree "$tr" "${env[@]}" --
    run pipeline "$tr" "${env[@]}" --
    run jacobi "$tr" "${env[@]}" -- -n "${JACOBI_POINTS:-200}" -iters "${JACOBI_ITERS:-5000}" -mode all -reps 5
    run cholesky "$tr" "${env[@]}" -- -nt "${CHOL_TILES:-32}" -b "${CHOL_TILE:-64}"
done
# the libfabric path's eager-message range against writes, measured (issue 34)
eager_trs=()
for tr in "${transports[@]}"; do case $tr in tcp | sockets | netns) eager_trs+=("$tr") ;; esac; done
if [ ${#eager_trs[@]} -gt 0 ] && [ $QUICK = 0 ]; then
    echo "== eager messages or writes (bench/eager-table.sh) =="
    bash "$TOP/bench/eager-table.sh" "$OUT" "$OUT/bin/pingpong" "${eager_trs[@]}"
fi
echo "benchmarks took $(( $(date +%s) - start )) s"
python3 "$TOP/bench/summarize.py" "$OUT"
echo "results (text, CSV, PNG) in $OUT"
