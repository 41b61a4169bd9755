#!/bin/bash
# abtree.sh RUNS "NAME=ENV..." ...: bench/tree on 2 ranks (one notified
# hand-off per reduction: the child's MPI_Put_notify + MPI_Win_flush, the
# root's MPI_Start + MPI_Wait; against MPI_Send / MPI_Recv), variants by
# environment, interleaved run by run; na / mp per size, median over runs.
#   PREFIX (the install, /work/main/_install), ENVS (the transport's
#   environment), COUNTS (doubles per rank: "1 16 128 1024"), ITERS (2000)
R=$1; shift
PREFIX=${PREFIX:-/work/main/_install}
COUNTS=${COUNTS:-1 16 128 1024}
out=${OUT:-/tmp/abtree.out}; : > "$out"
bin=/tmp/abtree.$$; "$PREFIX/bin/mpicc" -O2 -o $bin /work/main/bench/tree.c -lm || exit 1
for i in $(seq "$R"); do
  for c in $COUNTS; do
    for v in "$@"; do
      name=${v%%=*} envs=${v#*=}
      # shellcheck disable=SC2086
      env $envs $ENVS timeout 300 "$PREFIX/bin/mpiexec" -n 2 $bin -iters "${ITERS:-2000}" -count "$c" -modes na,mp 2>/dev/null |
        awk -v v="$name" -v b=$((c * 8)) '$1=="na"{n=$2} $1=="mp"{m=$2} END{printf "%s %d %.3f %.3f %.4f\n", v, b, n, m, n/m}' >> "$out"
    done
  done
done
rm -f $bin
echo "na / mp (median over $R runs; na and mp medians in us)"
for v in "$@"; do name=${v%%=*}; printf "%-6s" "$name"; for sz in $(awk '{print $2}' "$out" | sort -n -u); do
  grep "^$name $sz " "$out" | sort -k5 -n | awk '{r[NR]=$5; n[NR]=$3; m[NR]=$4} END{k=int((NR+1)/2); printf "  %6.3f (%5.2f/%5.2f)", r[k], n[k], m[k]}'; done; echo; done
printf "%-6s" bytes; for sz in $(awk '{print $2}' "$out" | sort -n -u); do printf "  %21d" "$sz"; done; echo
