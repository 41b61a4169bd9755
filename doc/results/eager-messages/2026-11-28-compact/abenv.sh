#!/bin/bash
# abenv.sh RUNS MIN MAX "NAME=ENV..." ...: one build, variants by environment,
# interleaved run by run; put_notify / min(sendrecv, psendrecv) per size,
# median over the runs.  PROV picks the provider (tcp;ofi_rxm by default).
R=$1 MIN=$2 MAX=$3; shift 3
out=${OUT:-/tmp/exp/abenv.out}; : > $out
for i in $(seq $R); do
  for v in "$@"; do
    name=${v%%=*} envs=${v#*=}
    env $envs MPIR_CVAR_NOLOCAL=1 FI_PROVIDER="${PROV:-tcp;ofi_rxm}" /work/main/_install/bin/mpiexec -n 2 /tmp/exp/pingpong -n ${N:-2000} -min $MIN -max $MAX -modes put_notify,sendrecv,psendrecv 2>/dev/null | awk -v v=$name '$1=="put_notify"{p[$2]=$3} $1=="sendrecv"{s[$2]=$3} $1=="psendrecv"{q[$2]=$3} END{for (k in p) printf "%s %d %.4f\n", v, k, p[k]/(s[k]<q[k]?s[k]:q[k])}' >> $out
  done
done
for v in "$@"; do name=${v%%=*}; printf "%-8s" $name; for sz in $(awk '{print $2}' $out | sort -n -u); do grep "^$name $sz " $out | sort -k3 -n | awk '{a[NR]=$3} END{printf " %6.3f", a[int((NR+1)/2)]}'; done; echo; done
printf "%-8s" size; for sz in $(awk '{print $2}' $out | sort -n -u); do printf " %6d" $sz; done; echo
