#!/usr/bin/env bash
# Replay a trace directory (sim/trace-format.md) on a SimGrid platform.
#
#   sim/replay.sh TRACE_DIR PLATFORM.xml [--cfg=ITEM:VALUE ...] [--log=...]
#
# Rank r runs on the platform's host r mod H (hosts in their natural order:
# node-2 before node-10), so a cluster is filled in its own order.  Flags:
# the defaults below, then PLATFORM.cfg if it exists beside the XML (one
# --cfg=... per line, # comments), then the command line's; a later one
# wins.  Prints smpirun's output (or, with NA_REPLAY_QUIET=1, only its
# warnings and errors), then the simulated time of the traced region in
# seconds, alone on the last line.  Fails if the replay fails, deadlocks or
# runs longer than NA_REPLAY_TIMEOUT seconds of wall time (600).
# NA_REPLAY_COSTS=FILE charges the library's per-call costs (sim/costs.sh,
# sim/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
trace=$(cd "$1" && pwd)
platform=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
[ -f "$trace/index" ] || { echo "replay.sh: no $trace/index" >&2; exit 2; }
[ -f "$platform" ] || { echo "replay.sh: no platform $platform" >&2; exit 2; }
"$here/build.sh" >&2

# SimGrid's Python module is Debian's python3's, not another python3 on PATH
hosts=$(/usr/bin/python3 - "$platform" 2>/dev/null <<'EOF'
import re, sys
from simgrid import Engine
e = Engine(["hosts", "--log=root.thresh:critical"])
e.load_platform(sys.argv[1])
key = lambda h: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", h.name)]
print("\n".join(h.name for h in sorted(e.all_hosts, key=key)))
EOF
) || { echo "replay.sh: cannot load $platform with SimGrid" >&2; exit 2; }
nranks=$(grep -c . "$trace/index")
work=$(mktemp -d "${TMPDIR:-/tmp}/na-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
awk -v n="$nranks" '{ h[NR - 1] = $0 } END { for (r = 0; r < n; r++) print h[r % NR] }' \
    <<<"$hosts" >"$work/hostfile"

# Defaults (sim/README.md says why):
#  - the platform's latencies and bandwidths as written, no SMPI correction
#    factors (those of SimGrid's defaults were fitted to another cluster);
#    a platform's .cfg may set its own;
#  - sends under 64 KiB are eager: they leave at once (async-small-thresh)
#    and the sender does not wait (send-is-detached-thresh), as MPICH's
#    eager protocol; larger ones wait for the receive (rendezvous);
#  - MPI_Test costs no simulated time: the replay's only tests are its own
#    bookkeeping, never the traced program's;
#  - collectives: SimGrid's default algorithms (SMPI's "mpich" selector
#    crashes on the replay's reduce: it has no data), but MPICH's allgather,
#    which only the set-up uses (MPI_Win_create): the default one sends n^2
#    messages, minutes of simulation at 1,024 ranks;
#  - the replay program's own CPU time is never injected as computation
#    (SMPI benchmarks the code between MPI calls when it takes longer than
#    smpi/cpu-threshold): only the trace's compute actions compute.
cfg=(--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
     --cfg=smpi/async-small-thresh:65536 --cfg=smpi/send-is-detached-thresh:65536
     --cfg=smpi/test:0 --cfg=smpi/cpu-threshold:1e9 --cfg=smpi/host-speed:1e9f
     --cfg=smpi/allgather:mpich)
pcfg=${platform%.xml}.cfg
if [ -f "$pcfg" ]; then
    while read -r line; do
        line=${line%%#*}
        [ -n "${line// /}" ] && cfg+=($line)
    done <"$pcfg"
fi
cfg+=("$@")

# the replay runs in $work: a relative costs file is the caller's
if [ -n "${NA_REPLAY_COSTS:-}" ]; then
    [ -f "$NA_REPLAY_COSTS" ] || { echo "replay.sh: no costs file $NA_REPLAY_COSTS" >&2; exit 2; }
    NA_REPLAY_COSTS=$(cd "$(dirname "$NA_REPLAY_COSTS")" && pwd)/$(basename "$NA_REPLAY_COSTS")
    export NA_REPLAY_COSTS
fi
log="$work/log"
rc=0
(cd "$work" && timeout --kill-after=10 "${NA_REPLAY_TIMEOUT:-600}" \
    smpirun -no-privatize -np "$nranks" -platform "$platform" -hostfile "$work/hostfile" \
    -replay "$trace/index" "$here/_build/replay" "${cfg[@]}") >"$log" 2>&1 || rc=$?
if [ "${NA_REPLAY_QUIET:-0}" = 1 ]; then
    grep -E "WARNING|ERROR|CRITICAL|[Dd]eadlock|failed|Aborted|Actor [0-9]+ " "$log" || true
else
    cat "$log"
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "replay.sh: timed out after ${NA_REPLAY_TIMEOUT:-600} s (a receive or notification that nothing matches?)" >&2
    exit 124
fi
time=$(sed -n 's/^na-replay: .* time \([0-9.e+-]*\)$/\1/p' "$log" | tail -n 1)
if grep -q "Deadlock detected" "$log"; then
    # SimGrid ends the simulation when every rank left waits for something
    echo "replay.sh: deadlock: a rank waits for a message, notification or flag that no rank sends (the actors still waiting are listed above)" >&2
    exit 3
fi
if [ $rc -ne 0 ] || [ -z "$time" ]; then
    echo "replay.sh: replay failed (exit $rc)" >&2
    exit $(( rc ? rc : 1 ))
fi
if [ -f "$trace/meta" ]; then
    measured=$(sed -n 's/^region_wall_s=//p' "$trace/meta" | head -n 1)
    [ -z "$measured" ] || echo "replay.sh: traced run measured $measured s at rank 0, replayed $time s" >&2
fi
echo "$time"
