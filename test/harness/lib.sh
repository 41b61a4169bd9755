# shellcheck shell=bash
# The settings and helpers of every part of the suite, sourced by
# test/run-suite.sh (needs $TOP): where the build, the installed MPICH and
# the logs are, the device, the variant and its flags, the configurations;
# PASS/SKIP/FAIL and their counts; the transport configurations' environment
# and path; run_mpi, test_src, compile_prog.

BUILD=${BUILD_DIR:-$TOP/_build}
PREFIX=${PREFIX:-$TOP/_install}
# The device the installed MPICH was built with: a ch4:ucx build has no
# libfabric (no tcp/sockets configurations, no libfabric fast path to check).
DEVICE=$("$PREFIX/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
DEVICE=${DEVICE:-ch4:ofi}
VARIANT=${NA_VARIANT:-}
TEST_CFLAGS=()
if [ "$VARIANT" = asan ]; then
    # The sanitized build (make check-asan): programs link the same runtime;
    # any report fails the run (exit status or output, see run_mpi).
    # Suppressions: test/sanitizers/, each with its reason.
    TEST_CFLAGS=(-fsanitize=address,undefined -fno-omit-frame-pointer -g)
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86:suppressions=$TOP/test/sanitizers/asan.supp"
    export LSAN_OPTIONS="suppressions=$TOP/test/sanitizers/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87:suppressions=$TOP/test/sanitizers/ubsan.supp"
    # hwloc's pci plugin (Debian libhwloc-plugins, which mpich's build
    # dependencies pull in) leaks ~1 KB per process and is dlclose'd
    # before the leak check, so the report names no module a suppression
    # could match. MPICH only uses PCI objects for NIC locality.
    export HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--pci}
    CONFIGS=${CONFIGS:-shm,tcp}
    SCALE=${NA_TIMEOUT_SCALE:-3}
fi
case "$DEVICE" in
    ch4:ucx*) CONFIGS=${CONFIGS:-shm,ucx-msg,ucx-tcp,generic,generic-tcp} ;;
    *) CONFIGS=${CONFIGS:-shm,tcp,sockets,generic,tcp-am,sockets-am,tcp-cmpl} ;;
esac
TESTS=${TESTS:-.}
SCALE=${SCALE:-${NA_TIMEOUT_SCALE:-1}}
MPICC=$PREFIX/bin/mpicc
MPIEXEC=$PREFIX/bin/mpiexec
MPIEXEC_CMD=$MPIEXEC
OUT=$BUILD/tests${VARIANT:+-$VARIANT}

npass=0 nfail=0 nskip=0
failed=()
pass() { npass=$((npass + 1)); printf 'PASS  %-52s %5ss\n' "$1" "$2"; }
skip() { nskip=$((nskip + 1)); printf 'SKIP  %-52s (%s)\n' "$1" "$2"; }
fail() {
    nfail=$((nfail + 1)); failed+=("$1")
    printf 'FAIL  %-52s %s\n' "$1" "$2"
    if [ -n "${3:-}" ] && [ -f "$3" ]; then tail -n 15 "$3" | sed 's/^/      | /'; fi
}

# Environment of each transport configuration, and the path its notified
# accesses must take (NA_EXPECT_PATH, checked through MPI_T by test/na_test.h),
# so that a silent fall back to another path fails the run: test/harness/transports,
# shared with bench/.
. "$TOP/test/harness/transports.sh"
# A checker script prints one "PASS NAME", "FAIL NAME ..." or "SKIP NAME: why"
# line per check; each becomes one result of the suite (--cut: a PASS's name
# ends at its first colon, the rest being detail).  A script that fails
# before printing any is one failure, NAME.
#   run_checker [--cut] NAME LOG COMMAND...
run_checker() {
    local cut=0 name log line rc=0 n=0
    [ "$1" = --cut ] && { cut=1; shift; }
    name=$1 log=$2; shift 2
    "$@" >"$log" 2>&1 || rc=$?
    while read -r line; do
        case "$line" in
            PASS*) line=${line#PASS}; line=${line#"${line%%[! ]*}"}
                [ $cut = 1 ] && line=${line%%:*}
                pass "$line" 0; n=$((n + 1)) ;;
            FAIL*) line=${line#FAIL}; fail "${line#"${line%%[! ]*}"}" "" "$log"; n=$((n + 1)) ;;
            SKIP*) line=${line#SKIP}; line=${line#"${line%%[! ]*}"}
                skip "${line%%:*}" "${line#*: }"; n=$((n + 1)) ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $n -eq 0 ]; then fail "$name" "$1 failed" "$log"; fi
}

config_env() { transport_env "$1"; }
# ch4:ucx in MPICH 4.0.2 builds without the shm module (MPIDI_CH4_DIRECT_NETMOD):
# every other process is reached by UCX active messages (ucx_notify.c), on
# the node through the rings of an allocated window's node-shared memory
# (shm, as on ch4:ofi; hosted by the ucx netmod), unless forced off.
config_path() {
    case "$DEVICE" in
        ch4:ucx*) case "$1" in
                      generic*) echo generic/forced ;;
                      shm) echo ring/shared-memory ;;
                      *) transport_path "$1" ;;
                  esac ;;
        *) transport_path "$1" ;;
    esac
}

# every descendant of a process, deepest last
process_tree() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        process_tree "$c"
    done
}

# run_mpi LOG TIMEOUT ENV NP PROGRAM ARGS...: 0 on success, 124 on timeout
# (through $MPIEXEC_CMD: the two-host part sets a local one, test/netns/run.sh)
run_mpi() {
    local log=$1 t=$2 envs=$3 np=$4; shift 4
    local -a envarr=()
    IFS=' ' read -r -a envarr <<<"$envs"
    # MPIEXEC_TIMEOUT lets hydra kill the ranks itself; past it (and a grace
    # period) the whole process tree goes: hydra's proxies and ranks each
    # start their own session, so neither a process group nor killing
    # mpiexec alone reaches them.
    env "${envarr[@]}" MPIEXEC_TIMEOUT="$t" "$MPIEXEC_CMD" -n "$np" "$@" >"$log" 2>&1 &
    local pid=$! rc
    sleep $((t + 15)) &
    local timer=$!
    wait -n "$pid" "$timer"
    if kill -0 "$pid" 2>/dev/null; then
        # shellcheck disable=SC2046
        kill -KILL "$pid" $(process_tree "$pid") 2>/dev/null
        wait "$pid" 2>/dev/null
        rc=124
    else
        kill "$timer" 2>/dev/null
        wait "$timer" 2>/dev/null
        wait "$pid"
        rc=$?
    fi
    # hydra reports its own time-out with exit status 255 and a message
    if grep -q "APPLICATION TIMED OUT\|timeout" "$log" 2>/dev/null && [ $rc -ne 0 ]; then rc=124; fi
    # a sanitizer report fails the run even where a rank's status is lost
    if [ $rc -eq 0 ] && grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:" "$log"; then
        rc=86
    fi
    return $rc
}

# The test programs by what they test: test/GROUP/NAME.c.  A name of the
# testlist without a slash is a program of one of these groups.
TEST_GROUPS=(notify counters completion tools transports)

# verdict ID LOG RC SECONDS TIMEOUT [PATTERN MESSAGE]: a run's PASS, FAIL or
# SKIP (exit 77) from its exit status and its "No Errors" line; with PATTERN
# the log must also match it, else it fails with MESSAGE
verdict() {
    local id=$1 log=$2 rc=$3 el=$4 t=$5 re=${6:-} why=${7:-}
    if [ "$rc" -eq 0 ] && grep -q '^No Errors' "$log"; then
        if [ -n "$re" ] && ! grep -q "$re" "$log"; then
            fail "$id" "$why" "$log"
        else
            pass "$id" "$el"
        fi
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$id" "TIMEOUT after ${t}s (hang)" "$log"
    elif [ "$rc" -eq 77 ]; then
        skip "$id" "$(tail -n 1 "$log")"
    else
        fail "$id" "exit $rc after ${el}s" "$log"
    fi
}

# test_src NAME: the source of the program NAME names in test/harness/testlist
# (test/GROUP/NAME.c, or NAME.c for examples/..., bench/..., test/...)
test_src() {
    local g
    case "$1" in
        */*) echo "$TOP/$1.c"; return ;;
    esac
    for g in "${TEST_GROUPS[@]}"; do
        if [ -e "$TOP/test/$g/$1.c" ] || [ -d "$TOP/test/$g/$1" ]; then
            echo "$TOP/test/$g/$1.c"; return
        fi
    done
    echo "$TOP/test/$1.c"
}

# compile_prog NAME [LIBS...]: NAME as in test/harness/testlist (see test_src;
# without NAME.c, every .c file of the directory NAME, one program:
# test/fuzz/rma_fuzz/) into $OUT/bin; 0 on success
compile_prog() {
    local name=$1 src; shift
    src=$(test_src "$name")
    local -a srcs=("$src")
    [ ! -e "$src" ] && [ -d "${src%.c}" ] && srcs=("${src%.c}"/*.c)
    "$MPICC" -std=gnu11 -O2 -Wall -Werror -pthread "${TEST_CFLAGS[@]}" -I"$TOP/test" -o "$OUT/bin/${name//\//_}" \
        "${srcs[@]}" "$@" -lm >"$OUT/logs/${name//\//_}.compile.log" 2>&1
}
