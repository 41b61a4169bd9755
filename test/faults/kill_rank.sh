#!/usr/bin/env bash
# Fault test: SIGKILL one rank in the middle of a flood of notified puts
# (test/faults/kill_flood.c); the job must end with a non-zero status within
# LIMIT seconds and leave no process behind.
#
#   kill_rank.sh MPIEXEC BIN OUTDIR VICTIM_RANK [VAR=VALUE...]
#
# Runs `env VAR=VALUE... MPIEXEC -n NP BIN OUTDIR` in the background under
# `timeout -k 5 60` (times NA_TIMEOUT_SCALE), waits until every rank has
# written OUTDIR/pid.RANK (at most 20 s, times NA_TIMEOUT_SCALE), sends
# SIGKILL to the victim's pid and measures how long mpiexec takes to exit.
# Passes if its status is non-zero, it exited within LIMIT seconds, and
# within 2 s more (times NA_TIMEOUT_SCALE) none of the processes of this run
# (mpiexec, the hydra_pmi_proxy processes, the ranks: found through the
# process tree under our timeout(1) and the pid files) is still alive.
# Prints one line "PASS ..." or "FAIL ..." and exits 0 on a pass; mpiexec's
# output is in OUTDIR/mpiexec.log.  Whatever happens, processes of this run
# still alive at the end are killed (by pid, checked against their start
# time, never by name).
#
#   KILL_NP=N     ranks (default 2)
#   KILL_LIMIT=S  the time mpiexec may take to exit after the kill (default 10)
set -uo pipefail

if [ $# -lt 4 ]; then
    echo "usage: $0 MPIEXEC BIN OUTDIR VICTIM_RANK [VAR=VALUE...]" >&2
    exit 2
fi
MPIEXEC=$1 BIN=$2 OUTDIR=$3 VICTIM=$4
shift 4
NP=${KILL_NP:-2}
LIMIT=${KILL_LIMIT:-10}
SCALE=${NA_TIMEOUT_SCALE:-1}
START_WAIT=$((20 * SCALE))     # for the pid files
EXIT_WAIT=$((LIMIT + 10))      # after the kill, before we give up on mpiexec
LEFT_WAIT=$((2 * SCALE))       # after mpiexec's exit, for the rest to go
case "$VICTIM" in
    '' | *[!0-9]*) echo "$0: VICTIM_RANK must be a rank number" >&2; exit 2 ;;
esac
if [ "$VICTIM" -ge "$NP" ]; then
    echo "$0: VICTIM_RANK $VICTIM is not a rank of a $NP-rank job" >&2
    exit 2
fi

mkdir -p "$OUTDIR" || exit 2
rm -f "$OUTDIR"/pid.* "$OUTDIR"/job.rc "$OUTDIR"/job.end "$OUTDIR"/timeout.pid
LOG=$OUTDIR/mpiexec.log

now() { date +%s.%N; }
# seconds from $1 to $2, two decimals
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# A process is identified by its pid and its start time (field 22 of
# /proc/PID/stat), so that a pid reused by someone else is never taken for
# ours.  The command name (field 2) may contain spaces: cut after its ')'.
starttime() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    local -a f
    read -r -a f <<<"${s##*) }"
    echo "${f[19]}"
}
state() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    s=${s##*) }
    echo "${s%% *}"
}
# alive PID START: the same process, running (a zombie has ended)
alive() {
    local st
    st=$(starttime "$1") || return 1
    [ "$st" = "$2" ] || return 1
    [ "$(state "$1")" != Z ]
}
# every descendant of PID (pid and ppid of all processes, once)
descendants() {
    ps -e -o pid=,ppid= | awk -v root="$1" '
        { parent[$1] = $2; pids[++n] = $1 }
        END {
            for (i = 1; i <= n; i++) {
                p = pids[i]; q = parent[p]
                while (q != "" && q != 0 && q != 1) {
                    if (q == root) { print p; break }
                    q = parent[q]
                }
            }
        }'
}

# processes of this run: "PID START" per entry, and a short name for reports
declare -A procs=() pname=()
remember() {
    local pid=$1 st
    [ -n "$pid" ] && [ -z "${procs[$pid]:-}" ] || return 0
    st=$(starttime "$pid") || return 0
    procs[$pid]=$st
    pname[$pid]=$(cat "/proc/$pid/comm" 2>/dev/null || echo "?")
}

JOB=""   # the background subshell that runs and waits for timeout(1)
TPID=""  # timeout(1), parent of mpiexec
cleanup() {
    local pid root left=0
    # anything of this run still running: the trees under our subshell and
    # under timeout(1) as they are now (they may have grown since the
    # snapshot, or the snapshot was never taken), then the snapshot
    for root in "$JOB" "$TPID"; do
        if [ -n "$root" ] && [ -n "${procs[$root]:-}" ] && alive "$root" "${procs[$root]}"; then
            for pid in $(descendants "$root"); do remember "$pid"; done
        fi
    done
    for pid in "${!procs[@]}"; do
        if alive "$pid" "${procs[$pid]}"; then
            kill -KILL "$pid" 2>/dev/null && left=$((left + 1))
        fi
    done
    if [ -n "$JOB" ]; then
        kill -KILL "$JOB" 2>/dev/null
        wait "$JOB" 2>/dev/null
    fi
    [ "$left" -gt 0 ] && echo "kill_rank: killed $left leftover process(es) of this run" >&2
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- start the job
(
    env "$@" timeout -k 5 $((60 * SCALE)) "$MPIEXEC" -n "$NP" "$BIN" "$OUTDIR" >"$LOG" 2>&1 &
    echo $! >"$OUTDIR/timeout.pid"
    wait $!
    rc=$?
    now >"$OUTDIR/job.end"
    echo $rc >"$OUTDIR/job.rc.tmp" && mv "$OUTDIR/job.rc.tmp" "$OUTDIR/job.rc"
) &
JOB=$!
remember "$JOB"
t_start=$(now)

result() {  # result PASS|FAIL TEXT
    echo "$1  kill rank $VICTIM of $NP: $2"
    [ "$1" = PASS ]
    exit
}

# --- wait for every rank's pid file (the flood is running then)
deadline=$(( $(date +%s) + START_WAIT ))
while :; do
    [ -z "$TPID" ] && [ -s "$OUTDIR/timeout.pid" ] && TPID=$(cat "$OUTDIR/timeout.pid") &&
        remember "$TPID"
    n=0
    for ((r = 0; r < NP; r++)); do [ -s "$OUTDIR/pid.$r" ] && n=$((n + 1)); done
    [ $n -eq "$NP" ] && break
    if [ -f "$OUTDIR/job.rc" ]; then
        result FAIL "the job ended (exit $(cat "$OUTDIR/job.rc")) before all $NP pid files were written"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
        result FAIL "only $n of $NP pid files after ${START_WAIT}s"
    fi
    sleep 0.1
done

# --- the processes of this run, before the kill: the tree under timeout(1)
# (mpiexec, hydra_pmi_proxy, ranks: hydra gives them sessions of their own,
# so a process group would not do), the ranks from their pid files and the
# proxies as the ranks' parents
[ -n "$TPID" ] || result FAIL "no pid of timeout(1)"
for pid in $(descendants "$TPID"); do remember "$pid"; done
declare -a rank_pids=()
for ((r = 0; r < NP; r++)); do
    pid=$(cat "$OUTDIR/pid.$r")
    case "$pid" in '' | *[!0-9]*) result FAIL "pid.$r holds '$pid'" ;; esac
    if [ -z "${procs[$pid]:-}" ]; then
        # not under our timeout(1): not ours, never signal it
        result FAIL "rank $r (pid $pid) is not a process of this run"
    fi
    rank_pids+=("$pid")
    ppid=$(awk '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); print f[2] }' \
        "/proc/$pid/stat" 2>/dev/null)
    remember "$ppid"
done
victim=${rank_pids[$VICTIM]}
nprocs=${#procs[@]}
desc=""
for pid in "${!procs[@]}"; do
    [ "$pid" = "$TPID" ] && continue
    desc="$desc ${pname[$pid]}:$pid"
done

# --- the kill, and the time until mpiexec (and so timeout(1)) exits
t_kill=$(now)
kill -KILL "$victim" || result FAIL "could not send SIGKILL to rank $VICTIM (pid $victim)"
deadline=$(( $(date +%s) + EXIT_WAIT ))
while [ ! -f "$OUTDIR/job.rc" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    sleep 0.05
done
if [ ! -f "$OUTDIR/job.rc" ]; then
    result FAIL "mpiexec still running ${EXIT_WAIT}s after the kill (processes:$desc)"
fi
rc=$(cat "$OUTDIR/job.rc")
elapsed=$(secs "$t_kill" "$(cat "$OUTDIR/job.end")")
launched=$(secs "$t_start" "$t_kill")

# --- then nothing of this run may be left: what is still going down gets
# up to LEFT_WAIT s (a busy machine schedules the exits late); a process
# left behind stays, whatever the wait
deadline=$(( $(date +%s) + LEFT_WAIT ))
while :; do
    left="" nleft=0
    for pid in "${!procs[@]}"; do
        if alive "$pid" "${procs[$pid]}"; then
            left="$left ${pname[$pid]}:$pid" nleft=$((nleft + 1))
        fi
    done
    [ $nleft -eq 0 ] || [ "$(date +%s)" -ge "$deadline" ] && break
    sleep 0.1
done

why=""
[ "$rc" -eq 0 ] && why="$why; exit status 0"
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="$why; timeout(1) ended mpiexec"
awk -v e="$elapsed" -v l="$LIMIT" 'BEGIN { exit !(e > l) }' && why="$why; more than ${LIMIT}s"
[ -n "$left" ] && why="$why; left behind:$left"
line="mpiexec exit $rc ${elapsed}s after the SIGKILL (sent ${launched}s after the launch);"
line="$line $nprocs processes, $([ $nleft -gt 0 ] && echo $nleft || echo none) left"
if [ -z "$why" ]; then
    result PASS "$line"
else
    result FAIL "${why#; }: $line"
fi
