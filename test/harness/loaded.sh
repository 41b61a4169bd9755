#!/usr/bin/env bash
# The tests whose verdicts a busy machine could change, run again while it
# is busy (issue 63): one CPU hog per core (a shell loop, at the tests' own
# priority), the tests through test/run-suite.sh on shm, tcp and tcp-am,
# the hogs killed when this script ends, however it ends.  Any FAIL fails
# the run: a verdict that load changes depends on timing.
#
#   test/harness/loaded.sh
#
#   CONFIGS=a,b,...       transport configurations (default shm,tcp,tcp-am)
#   TESTS=REGEX           only those of the list below whose name matches
#   LOADED_HOGS=N         CPU hogs (default: one per core, nproc)
#   NA_TIMEOUT_SCALE=N    every timeout times N (default 2: the hogs halve
#                         each process's share of a core)
#
# Prints run-suite.sh's PASS/FAIL/SKIP lines and its closing counts; exits
# as it does.  Logs and binaries in $BUILD_DIR/loaded (default _build/loaded).
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}

# What a busy machine could change, or did before issue 63: the counter read
# that failed so (counter_read); deadlines that stood for "never", now
# waits that say so and go on (refusals, eager_path's phases H and J,
# mpit_events), and the fault test's 10 s for the job to end and the wait
# for its processes to go (test/faults/kill_flood); rounds of progress paced
# by time (wait_progress); a probe that a sleep usually, not always, puts
# before its notification (probe); counts of progress rounds and polls
# (trust3, stats); pollers that sleep and wake (natasks).  unexpected_flood
# (a 30 s deadline, now none) is left out: a million notifications would
# take a third of the time.
LIST=(counter_read mpit_events refusals wait_progress probe trust3 stats
    eager_path natasks test/faults/kill_flood)
sel=()
for name in "${LIST[@]}"; do
    [[ $name =~ ${TESTS:-.} ]] && sel+=("$name")
done
if [ ${#sel[@]} -eq 0 ]; then
    echo "loaded: no test of the list matches TESTS='${TESTS:-}'"
    echo "0 passed, 0 failed, 0 skipped"
    exit 0
fi
regex="^($(IFS='|'; echo "${sel[*]}"))\$"

hogs=() suite=""
stop_hogs() {
    local p
    # the suite too, when a signal ends this script (its runs are bounded
    # by their own timeouts)
    [ -n "$suite" ] && kill "$suite" 2>/dev/null
    for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${hogs[@]}"; do wait "$p" 2>/dev/null; done
    hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

n=${LOADED_HOGS:-$(nproc)}
# bounded by themselves too, should this shell be killed without its trap
for ((i = 0; i < n; i++)); do
    timeout 900 sh -c 'while :; do :; done' &
    hogs+=($!)
done
echo "loaded: $n CPU hogs (pids ${hogs[*]}) on $(nproc) cores"

# in the background: a trapped signal interrupts wait, not a foreground job
CONFIGS=${CONFIGS:-shm,tcp,tcp-am} TESTS=$regex SUITE=notify \
    NA_TIMEOUT_SCALE=${NA_TIMEOUT_SCALE:-2} BUILD_DIR=$BUILD/loaded \
    bash "$TOP/test/run-suite.sh" &
suite=$!
wait "$suite"
rc=$?
suite=""

# the load lasted: every hog still running
alive=0
for p in "${hogs[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
echo "loaded: $alive of $n hogs still running at the end;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
stop_hogs
if [ "$alive" -ne "$n" ]; then
    echo "loaded: FAIL: the load did not last the whole run"
    exit 1
fi
exit $rc
