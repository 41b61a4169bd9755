#!/bin/bash
# abucx.sh RUNS MIN MAX V...: ch4:ucx over tcp ping-pong, put_notify / min(sendrecv, psendrecv) per size
R=$1 MIN=$2 MAX=$3; shift 3
out=/tmp/exp/abucx.out; : > $out
for i in $(seq $R); do
  for v in "$@"; do
    LD_LIBRARY_PATH=/tmp/exp/$v MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self /work/main/_build/install-ucx/bin/mpiexec -n 2 /tmp/exp/pingpong-ucx -n ${N:-3000} -min $MIN -max $MAX -modes put_notify,sendrecv,psendrecv 2>/dev/null | awk -v v=$v '$1=="put_notify"{p[$2]=$3} $1=="sendrecv"{s[$2]=$3} $1=="psendrecv"{q[$2]=$3} END{for (k in p) printf "%s %d %.4f\n", v, k, p[k]/(s[k]<q[k]?s[k]:q[k])}' >> $out
  done
done
for v in "$@"; do printf "%-4s" $v; for sz in $(awk '{print $2}' $out | sort -n -u); do grep "^$v $sz " $out | sort -k3 -n | awk '{a[NR]=$3} END{printf " %6.3f", a[int((NR+1)/2)]}'; done; echo; done
printf "size"; for sz in $(awk '{print $2}' $out | sort -n -u); do printf " %6d" $sz; done; echo
