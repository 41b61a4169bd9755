#!/usr/bin/env bash
# make bench-tasks: the task mini-apps, each in its three variants in one run
# (na: notified access + tasks, sr: send/recv + tasks, fj: fork-join MPI),
# over block sizes, then libnatasks's polling service (period, thread or
# task).  Writes text and CSV into one directory.
#
#   BENCH_NP=N (2)  OMP_NUM_THREADS=N (2)  BENCH_TRANSPORTS="shm tcp"
#   BENCH_OUT=DIR (_bench/tasks-<date>)  OMP_WAIT_POLICY (passive)
#
# 2 ranks x 2 threads oversubscribe this machine's 2 cores with the progress
# threads: see doc/benchmarks.md ("Tasks") for what larger machines should show.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
NP=${BENCH_NP:-2}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# idle OpenMP threads spinning take the cores the progress thread needs
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
OUT=${BENCH_OUT:-$TOP/_bench/tasks-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/bin"
[ -x "$PREFIX/bin/mpicc" ] || { echo "task-bench: no MPICH in $PREFIX (run make)" >&2; exit 2; }
. "$TOP/test/harness/transports.sh"

for b in gauss_seidel streaming; do
    "$PREFIX/bin/mpicc" -O2 -fopenmp -o "$OUT/bin/$b" "$TOP/bench/$b.c" -lnatasks -lm
done
"$PREFIX/bin/mpicc" -O2 -fopenmp -o "$OUT/bin/cholesky_tasks" "$TOP/bench/cholesky_tasks.c" \
    -lnatasks -llapack -lblas -lm

# run NAME LABEL ENV... -- ARGS...: output to NAME-LABEL.{txt,csv}
run() {
    local name=$1 label=$2; shift 2
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "== $name $label ($*) =="
    env "${envs[@]}" timeout 600 "$PREFIX/bin/mpiexec" -n "$NP" "$OUT/bin/$name" "$@" \
        -csv "$OUT/$name-$label.csv" | tee "$OUT/$name-$label.txt"
}

echo "ranks $NP, OMP_NUM_THREADS=$OMP_NUM_THREADS, OMP_WAIT_POLICY=$OMP_WAIT_POLICY" | tee "$OUT/setup.txt"
start=$(date +%s)
read -r -a transports <<<"${BENCH_TRANSPORTS:-shm tcp}"
for tr in "${transports[@]}"; do
    envs=$(transport_env "$tr") || { echo "task-bench: unknown transport $tr" >&2; exit 2; }
    read -r -a env <<<"$envs"
    # (smaller blocks at this size pass libgomp's 64 x threads live tasks)
    for bs in 256 512 1024; do
        run gauss_seidel "$tr-bs$bs" "${env[@]}" -- -n 2048 -bs "$bs" -t 50
    done
    for bs in 1024 4096 16384; do
        run streaming "$tr-bs$bs" "${env[@]}" -- -blocks 4000 -bs "$bs" -work 20
    done
    for b in 64 128; do
        run cholesky_tasks "$tr-b$b" "${env[@]}" -- -nt 16 -b "$b"
    done
done
# the polling service: its period, and a polling task instead of the thread
# (interleaved: every setting once per round, three rounds)
for round in 1 2 3; do
    for p in 0 10 50 200 task; do
        if [ $p = task ]; then pe=(NA_TASKS_POLLING=task); else pe=(NA_TASKS_PERIOD_US=$p); fi
        run gauss_seidel "poll-$p-r$round" "${pe[@]}" -- -n 2048 -bs 256 -t 50 -modes na,sr -reps 1
        run streaming "poll-$p-r$round" "${pe[@]}" -- -blocks 4000 -bs 4096 -work 20 -modes na,sr -reps 1
    done
done
echo "task benchmarks took $(( $(date +%s) - start )) s; results in $OUT"
