#!/bin/bash
# ab.sh RUNS V...: interleaved runs of each variant's libmpi; median put_notify/bound per variant
R=$1; shift
out=/tmp/exp/ab.out; : > $out
for i in $(seq $R); do
  for v in "$@"; do
    LD_LIBRARY_PATH=/tmp/exp/$v /work/main/_install/bin/mpiexec -n 2 /tmp/exp/pingpong -n 50000 -min 8 -max 8 -modes put_notify,bound,put_counter 2>/dev/null | awk -v v=$v '$1=="put_notify"{p=$3} $1=="bound"{b=$3} $1=="put_counter"{c=$3} END{printf "%s %.3f %.3f %.3f %.3f\n", v, p/b, p, b, c}' >> $out
  done
done
for v in "$@"; do grep "^$v " $out | sort -k2 -n | awk -v v=$v '{a[NR]=$0} END{print "median:", a[int((NR+1)/2)], " (n=" NR ")"}'; done
