#!/bin/bash
# A/B of answers on demand on the libfabric eager path (2026-11-29): "a" is
# the committed code, "b" the same build with NA_AB_ASK=1, a temporary
# getenv switch (never committed) that makes every put ask for its answer,
# as every put did before.  Interleaved a, b, a, b, ... in one run.
#   ab.sh RUNS OUTDIR   (needs /tmp/exp/{pipeline,rate} built with the
#   build's mpicc, and the switch in ch4_notify_eager.c)
set -u
RUNS=${1:-3} OUT=${2:-.}
P=${PREFIX:-/work/main/_install}
NET="MPIR_CVAR_NOLOCAL=1"
for tr in tcp sockets; do
    prov="tcp;ofi_rxm"; [ $tr = sockets ] && prov=sockets
    for r in $(seq "$RUNS"); do
        for v in a b; do
            ab=(); [ $v = b ] && ab=(NA_AB_ASK=1)
            echo "== $tr run $r variant $v: pipeline -work 0,20 -rounds 5" >>"$OUT/pipeline-$tr.txt"
            env $NET FI_PROVIDER="$prov" "${ab[@]}" MPIEXEC_TIMEOUT=300 "$P/bin/mpiexec" -n 2 \
                /tmp/exp/pipeline -work 0,20 -rounds 5 >>"$OUT/pipeline-$tr.txt" 2>&1
            for sz in 256 4096; do
                echo "== $tr run $r variant $v: rate -size $sz -n 500" >>"$OUT/rate-$tr.txt"
                env $NET FI_PROVIDER="$prov" "${ab[@]}" MPIEXEC_TIMEOUT=300 "$P/bin/mpiexec" -n 2 \
                    /tmp/exp/rate -size $sz -n 500 >>"$OUT/rate-$tr.txt" 2>&1
            done
        done
    done
done
