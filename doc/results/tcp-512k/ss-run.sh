#!/bin/bash
# $1 = tag
cd /work/main
PP=_bench/s66/bin/pingpong
( while true; do echo "T $(date +%s.%N)"; ss -tinH state established 2>/dev/null; sleep 0.1; done ) > /tmp/ssx/ss.$1.txt 2>&1 &
SP=$!
MPIR_CVAR_NOLOCAL=1 FI_PROVIDER="tcp;ofi_rxm" timeout 300 _install/bin/mpiexec -n 2 $PP -n 300 -max 524288 -modes sendrecv,put_notify,psendrecv,partitioned > /tmp/ssx/pp.$1.txt
kill $SP
grep -E "^(sendrecv|put_notify) +(262144|524288) " /tmp/ssx/pp.$1.txt
