#!/usr/bin/env bash
# The UCX fast path against message passing and one-sided synchronisation
# (issue 18), 2 ranks on the ch4:ucx build (make check-ucx builds it into
# _build/install-ucx):
#   shm      UCX on the node (into allocated windows: the origin copies, a
#            shared-memory ring cell notifies, as on ch4:ofi)
#   shm-msg  the same with the data in the active messages
#            (MPIR_CVAR_NOTIFY_UCX_PATH=messages)
#   ucx-tcp  UCX_TLS=tcp,self, MPIR_CVAR_NOLOCAL=1
# and, for comparison, each with the generic path (MPIR_CVAR_NOTIFY_UCX_PATH=
# generic).  Ping-pong medians of -n round trips (bench/pingpong.c, modes
# interleaved in one run) at 8 B and 256 KiB, and by size from 8 B to 1 MiB
# against send/recv, persistent and partitioned send/recv over tcp and
# across the namespace hosts (issue 34), bench/pipeline over tcp, then the
# issues' targets as ratios of medians measured in the same run.
#   bench/ucx-bench.sh [-n ITERS]      (make bench-ucx)
#   env: BUILD_DIR (_build), UCX_PREFIX (BUILD_DIR/install-ucx), OUT (a new
#        directory under _bench/)
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
P=${UCX_PREFIX:-$BUILD/install-ucx}
ITERS=1000
[ "${1:-}" = -n ] && ITERS=$2
[ -x "$P/bin/mpicc" ] || { echo "ucx-bench: no ch4:ucx build in $P (make check-ucx)" >&2; exit 2; }
OUT=${OUT:-$TOP/_bench/ucx-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
"$P/bin/mpicc" -O2 -I"$TOP/bench" -o "$OUT/pingpong" "$TOP/bench/pingpong.c"

# No bound or flag_sync (put + flush, the target spins on memory): an
# MPI_Put on ch4:ucx needs the target's progress, so pingpong leaves them
# out.  The cache-line floor on the node at 8 B instead.
MODES=sendrecv,put_notify,get_notify,put_flush_send,put_counter
run() {     # NAME SIZE ENV...
    local name=$1 size=$2 modes=$MODES; shift 2
    [[ $name == shm* ]] && [ "$size" = 8 ] && modes=$modes,cacheline
    echo "== $name, $size B: $*" | tee -a "$OUT/commands.txt"
    env "$@" MPIEXEC_TIMEOUT=300 "$P/bin/mpiexec" -n 2 "$OUT/pingpong" -n "$ITERS" \
        -min "$size" -max "$size" -modes "$modes" -csv "$OUT/$name.$size.csv" |
        tee "$OUT/$name.$size.txt"
}
for size in 8 262144; do
    run shm "$size"
    run shm-msg "$size" MPIR_CVAR_NOTIFY_UCX_PATH=messages
    run shm-generic "$size" MPIR_CVAR_NOTIFY_UCX_PATH=generic
    run ucx-tcp "$size" UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1
    run ucx-tcp-generic "$size" UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 \
        MPIR_CVAR_NOTIFY_UCX_PATH=generic
done

# issue 64: on the node every size from 8 B to 4 MiB against the bound, the
# by-hand flag protocol and MPI_Get + flush + flag, 3 runs (summarize.py's
# node targets take each size's median ratio)
NODE_SWEEP=put_notify,bound_progress,put_flag,get_notify,get_flag_progress
for k in 1 2 3; do
    tag=.run$k
    [ $k = 1 ] && tag=
    echo "== ucx (node) by size, run $k: -modes $NODE_SWEEP" | tee -a "$OUT/commands.txt"
    MPIEXEC_TIMEOUT=600 "$P/bin/mpiexec" -n 2 "$OUT/pingpong" -n "$ITERS" -max 4194304 \
        -modes "$NODE_SWEEP" -csv "$OUT/pingpong-ucx$tag.csv" | tee "$OUT/pingpong-ucx$tag.txt"
done
# derived datatypes: a vector of 4 KiB blocks on both sides
echo "== ucx (node), a vector of 4 KiB blocks: -block 4096 -modes $NODE_SWEEP" |
    tee -a "$OUT/commands.txt"
MPIEXEC_TIMEOUT=600 "$P/bin/mpiexec" -n 2 "$OUT/pingpong" -n "$ITERS" -min 8192 -max 4194304 \
    -block 4096 -modes "$NODE_SWEEP" -csv "$OUT/pingpong-ucx.vector4k.csv" |
    tee "$OUT/pingpong-ucx.vector4k.txt"

# issue 34: every size from 8 B to 1 MiB against send/recv, persistent and
# partitioned send/recv (the fastest of them at each size)
SWEEP=sendrecv,put_notify,psendrecv,partitioned
echo "== ucx-tcp by size: UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 -modes $SWEEP" |
    tee -a "$OUT/commands.txt"
env UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 MPIEXEC_TIMEOUT=600 "$P/bin/mpiexec" -n 2 \
    "$OUT/pingpong" -n "$ITERS" -max 1048576 -modes "$SWEEP" -csv "$OUT/ucx-tcp.sizes.csv" |
    tee "$OUT/ucx-tcp.sizes.txt"

# a producer and a consumer that compute (bench/pipeline.c): a flush held
# until the consumer's next MPI call runs their halves in turn
"$P/bin/mpicc" -O2 -I"$TOP/bench" -o "$OUT/pipeline" "$TOP/bench/pipeline.c"
echo "== pipeline, ucx-tcp: UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1" | tee -a "$OUT/commands.txt"
env UCX_TLS=tcp,self MPIR_CVAR_NOLOCAL=1 MPIEXEC_TIMEOUT=300 "$P/bin/mpiexec" -n 2 \
    "$OUT/pipeline" -csv "$OUT/pipeline.ucx-tcp.csv" | tee "$OUT/pipeline.ucx-tcp.txt"

# across the two network-namespace hosts of test/netns (UCX over tcp on a
# veth pair), where they can be made
netns=0
if "$TOP/test/netns/hosts.sh" up >/dev/null 2>&1; then
    netns=1
    for size in 8 262144; do
        for v in netns netns-generic; do
            path=auto
            [ $v = netns-generic ] && path=generic
            echo "== $v, $size B: UCX_TLS=tcp,self MPIR_CVAR_NOTIFY_UCX_PATH=$path" |
                tee -a "$OUT/commands.txt"
            PREFIX=$P MPIEXEC_TIMEOUT=300 "$TOP/test/netns/run.sh" -genv UCX_TLS tcp,self \
                -genv MPIR_CVAR_NOTIFY_UCX_PATH $path "$OUT/pingpong" -n "$ITERS" \
                -min "$size" -max "$size" -modes "$MODES" -csv "$OUT/$v.$size.csv" |
                tee "$OUT/$v.$size.txt"
        done
    done
    echo "== netns by size: UCX_TLS=tcp,self -modes $SWEEP" | tee -a "$OUT/commands.txt"
    PREFIX=$P MPIEXEC_TIMEOUT=600 "$TOP/test/netns/run.sh" -genv UCX_TLS tcp,self \
        "$OUT/pingpong" -n "$ITERS" -max 1048576 -modes "$SWEEP" \
        -csv "$OUT/netns.sizes.csv" | tee "$OUT/netns.sizes.txt"
fi

# median of MODE in run NAME at SIZE
med() { awk -v m="$2" '$1 == m { print $3 }' "$OUT/$1.$3.txt"; }
target() {  # LABEL VALUE LIMIT
    awk -v l="$1" -v v="$2" -v lim="$3" \
        'BEGIN { printf "%-58s %6.2f  (<= %s) %s\n", l, v, lim, v <= lim ? "met" : "MISSED" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# the by-size run NAME: put_notify / the fastest of the other modes, at the
# worst size: "RATIO SIZE MODE"
worst() {
    awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ { t[$2, $1] = $3; s[$2] = 1; m[$1] = 1 }
         END { w = 0
               for (z in s) { best = 0
                   for (k in m) if (k != "put_notify" && ((z, k) in t) && (!best || t[z, k] < best)) { best = t[z, k]; bm = k }
                   if (best && ((z, "put_notify") in t) && t[z, "put_notify"] / best > w) {
                       w = t[z, "put_notify"] / best; ws = z; wm = bm } }
               printf "%.3f %s %s", w, ws, wm }' "$OUT/$1.sizes.txt"
}
sweep_target() {    # LABEL NAME
    local w
    read -r -a w <<<"$(worst "$2")"
    awk -v l="$1" -v v="${w[0]}" -v z="${w[1]}" -v k="${w[2]}" \
        'BEGIN { printf "%-58s %6.2f  (<= 1.0) %s at %s B (against %s)\n", l, v,
                 v <= 1.0 ? "met" : "MISSED", z, k }'
}
{
    echo "# issue 18 targets, 2 ranks, medians of $ITERS round trips, ratios within one run"
    target "ucx-tcp 8 B put_notify / send-recv" \
        "$(ratio "$(med ucx-tcp put_notify 8)" "$(med ucx-tcp sendrecv 8)")" 1.0
    target "ucx-tcp 8 B put_notify / put+flush+send" \
        "$(ratio "$(med ucx-tcp put_notify 8)" "$(med ucx-tcp put_flush_send 8)")" 0.45
    target "ucx-tcp 256 KiB put_notify / send-recv" \
        "$(ratio "$(med ucx-tcp put_notify 262144)" "$(med ucx-tcp sendrecv 262144)")" 1.1
    sweep_target "ucx-tcp put_notify / fastest, worst of 8 B-1 MiB (34)" ucx-tcp
    target "shm 8 B put_notify / cache-line floor (issue 34)" \
        "$(ratio "$(med shm put_notify 8)" "$(med shm cacheline 8)")" 2.5
    target "shm 8 B put_notify / send-recv" \
        "$(ratio "$(med shm put_notify 8)" "$(med shm sendrecv 8)")" 1.0
    if [ $netns = 1 ]; then
        target "netns 8 B put_notify / send-recv" \
            "$(ratio "$(med netns put_notify 8)" "$(med netns sendrecv 8)")" 1.0
        target "netns 8 B put_notify / put+flush+send" \
            "$(ratio "$(med netns put_notify 8)" "$(med netns put_flush_send 8)")" 0.45
        target "netns 256 KiB put_notify / send-recv" \
            "$(ratio "$(med netns put_notify 262144)" "$(med netns sendrecv 262144)")" 1.1
        sweep_target "netns put_notify / fastest, worst of 8 B-1 MiB (34)" netns
    fi
    echo "# issue 64: on the node at every size, medians of 3 runs"
    python3 "$TOP/bench/summarize.py" "$OUT" --node-targets ucx
    echo "# the fast path against the generic path (put_notify, us)"
    runs="shm shm-msg ucx-tcp"
    [ $netns = 1 ] && runs="$runs netns"
    for r in $runs; do
        for size in 8 262144; do
            g=$r-generic
            [ $r = shm-msg ] && g=shm-generic
            printf '%-8s %7s B  fast %9s  generic %9s  get fast %9s  generic %9s\n' "$r" \
                "$size" "$(med $r put_notify $size)" "$(med $g put_notify $size)" \
                "$(med $r get_notify $size)" "$(med $g get_notify $size)"
        done
    done
} | tee "$OUT/summary.txt"
echo "ucx-bench: results in $OUT"
