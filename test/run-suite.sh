#!/usr/bin/env bash
# The test suite: our Notified Access tests on every transport configuration
# and a fault test (a rank killed mid-flood, test/faults/), then a few of them
# across two network-namespace "hosts" (test/netns/), then a curated subset
# of MPICH's own test/mpi against the patched build.
#
#   SUITE=all|unit|lang|notify|netns|loaded|realprogs|instr|mpich   which part (default all)
#   CONFIGS=shm,tcp,...      transport configurations for our tests
#   TESTS=REGEX              only tests whose name matches
#   NA_TIMEOUT_SCALE=N       multiply every timeout (slow machines)
#
# Prints PASS/FAIL/SKIP per run and ends with "N passed, N failed, N skipped";
# exits non-zero if anything failed.
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
PREFIX=${PREFIX:-$TOP/_install}
SUITE=${SUITE:-all}
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
mkdir -p "$OUT/bin" "$OUT/logs"

if [ ! -x "$MPICC" ] || [ ! -x "$MPIEXEC" ]; then
    echo "run-suite: no patched MPICH installed in $PREFIX (run 'make' first)" >&2
    exit 2
fi

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
# so that a silent fall back to another path fails the run: test/transports,
# shared with bench/.
. "$TOP/test/transports.sh"
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

# compile_prog NAME [LIBS...]: NAME as in test/testlist (test/NAME.c or
# NAME.c for examples/..., bench/...; without it, every .c file of the
# directory NAME, one program: test/fuzz/rma_fuzz/) into $OUT/bin; 0 on success
compile_prog() {
    local name=$1 src; shift
    case "$name" in
        */*) src=$TOP/$name.c ;;
        *) src=$TOP/test/$name.c ;;
    esac
    local -a srcs=("$src")
    [ ! -e "$src" ] && [ -d "${src%.c}" ] && srcs=("${src%.c}"/*.c)
    "$MPICC" -std=gnu11 -O2 -Wall -Werror -pthread "${TEST_CFLAGS[@]}" -I"$TOP/test" -o "$OUT/bin/${name//\//_}" \
        "${srcs[@]}" "$@" -lm >"$OUT/logs/${name//\//_}.compile.log" 2>&1
}

run_notify_suite() {
    echo "== Notified Access tests (configs: $CONFIGS) =="
    local -a lines=()
    while IFS= read -r line; do
        case "$line" in ''|'#'*) continue ;; esac
        lines+=("$line")
    done <"$TOP/test/testlist"

    # compile each program once, as many at a time as there are cores
    local name bin jobs=0
    declare -A built=()
    local -a names=()
    for line in "${lines[@]}"; do
        name=${line%% *}
        [[ $name =~ $TESTS ]] || continue
        [ -n "${built[$name]:-}" ] && continue
        built[$name]=fail
        names+=("$name")
        local libs
        libs=$(sed -n 's/.*libs=\([^ ]*\).*/\1/p' <<<"$line" | tr ',' ' ')
        rm -f "$OUT/bin/${name//\//_}.ok"
        # shellcheck disable=SC2086
        { compile_prog "$name" $libs && : >"$OUT/bin/${name//\//_}.ok"; } &
        if [ $((++jobs)) -ge "$(nproc)" ]; then wait -n || true; jobs=$((jobs - 1)); fi
    done
    wait
    for name in "${names[@]}"; do
        if [ -f "$OUT/bin/${name//\//_}.ok" ]; then
            built[$name]=ok
        else
            fail "$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"
        fi
    done

    local cfg np t cfgs args envs id log start run_no=0
    IFS=',' read -r -a cfglist <<<"$CONFIGS"
    for line in "${lines[@]}"; do
        read -r name np rest <<<"$line"
        [[ $name =~ $TESTS ]] || continue
        [ "${built[$name]}" = ok ] || continue
        t=60 cfgs="" args="" extra_env="" path="" line_path="" logre="" devs="" novar=""
        while [ -n "$rest" ]; do
            case "$rest" in
                timeout=*) t=${rest#timeout=}; t=${t%% *} ;;
                devices=*) devs=${rest#devices=}; devs=${devs%% *} ;;
                skip-variants=*) novar=${rest#skip-variants=}; novar=${novar%% *} ;;
                configs=*) cfgs=${rest#configs=}; cfgs=${cfgs%% *} ;;
                env=*) v=${rest#env=}; extra_env="$extra_env ${v%% *}" ;;
                path=*) line_path=${rest#path=}; line_path=${line_path%% *} ;;
                log=*) logre=${rest#log=}; logre=${logre%% *} ;;
                libs=*) ;;
                args=*) args=${rest#args=}; rest=""; continue ;;
            esac
            [[ $rest == *" "* ]] && rest=${rest#* } || rest=""
        done
        if [ -n "$devs" ] && [[ ",$devs," != *",$DEVICE,"* ]]; then continue; fi
        if [ -n "$VARIANT" ] && [[ ",$novar," == *",$VARIANT,"* ]]; then continue; fi
        t=$((t * SCALE))
        bin=$OUT/bin/${name//\//_}
        for cfg in "${cfglist[@]}"; do
            id="$name -n $np [$cfg]${extra_env:+ }${extra_env# }"
            run_no=$((run_no + 1))
            if [ -n "$cfgs" ] && [[ ",$cfgs," != *",$cfg,"* ]]; then continue; fi
            if ! envs=$(config_env "$cfg"); then fail "$id" "unknown configuration $cfg"; continue; fi
            envs="$envs$extra_env"
            path=${line_path:-$(config_path "$cfg")}
            [ -n "$path" ] && envs="$envs NA_EXPECT_PATH=$path"
            [ -n "$logre" ] && envs="$envs MPIR_CVAR_NOTIFY_VERBOSE=1"
            log=$OUT/logs/${name//\//_}.n$np.$cfg.$run_no.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            run_mpi "$log" "$t" "$envs" "$np" "$bin" $args
            local rc=$? el=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ] && grep -q '^No Errors' "$log"; then
                if [ -n "$logre" ] && ! grep -q "$logre" "$log"; then
                    fail "$id" "no '$logre' in the verbose output" "$log"
                else
                    pass "$id" "$el"
                fi
            elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
                fail "$id" "TIMEOUT after ${t}s (hang)" "$log"
            else
                fail "$id" "exit $rc after ${el}s" "$log"
            fi
        done
    done
}

# ------------------------------------------------------------ fault tests
# SIGKILL of one rank in the middle of a flood of notified puts: the job must
# end with a non-zero status within 10 s and leave no process behind
# (test/faults/kill_rank.sh runs test/faults/kill_flood.c and checks that).
# Part of the notify suite, on shm and tcp only: "CONFIG VICTIM_RANK...".
FAULT_RUNS=("shm 1 0" "tcp 1")

run_fault_suite() {
    local name=test/faults/kill_flood
    [[ $name =~ $TESTS ]] || return 0
    local -a sel=()
    local entry cfg victims
    for entry in "${FAULT_RUNS[@]}"; do
        read -r cfg victims <<<"$entry"
        [[ ",$CONFIGS," == *",$cfg,"* ]] && sel+=("$entry")
    done
    [ ${#sel[@]} -gt 0 ] || return 0
    echo "== fault tests: SIGKILL of a rank during a notified-put flood (test/faults/) =="
    local bin=$OUT/bin/${name//\//_}
    if ! compile_prog "$name"; then
        fail "$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"
        return
    fi
    local envs v id dir log start rc el
    local -a envarr=()
    for entry in "${sel[@]}"; do
        read -r cfg victims <<<"$entry"
        envs=$(config_env "$cfg")
        IFS=' ' read -r -a envarr <<<"$envs"
        for v in $victims; do
            id="faults/kill_flood -n 2 [$cfg] SIGKILL rank $v"
            dir=$OUT/logs/faults_kill_flood.$cfg.rank$v
            log=$dir.log
            rm -rf "$dir"
            start=$(date +%s)
            # the 10 s it may take the job to go down is not scaled; the wait
            # for the flood to start is (NA_TIMEOUT_SCALE)
            NA_TIMEOUT_SCALE=$SCALE bash "$TOP/test/faults/kill_rank.sh" \
                "$MPIEXEC" "$bin" "$dir" "$v" "${envarr[@]}" >"$log" 2>&1
            rc=$? el=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ] && grep -q '^PASS' "$log"; then
                pass "$id" "$el"
            else
                fail "$id" "$(sed -n 's/^FAIL  kill rank [0-9]* of [0-9]*: //p' "$log" | head -n 1)" \
                    "$dir/mpiexec.log"
                [ -s "$log" ] && grep -v '^FAIL' "$log" | tail -n 5 | sed 's/^/      | /'
            fi
        done
    done
}

# ------------------------------------------------------------ two-host tests
# Rank 0 and rank 1 in different network namespaces joined by a veth pair
# (test/netns/hosts.sh), launched through test/netns/run.sh: MPICH sees two
# nodes, so every notification crosses tcp;ofi_rxm on a real (virtual) wire.
# test/netns/where checks that placement: one namespace and one node per rank.
NETNS_TESTS=("test/netns/where" "examples/pingpong_notify 4096 20" "nonovertaking"
    "ordered_mix" "put_get_complete" "eager_path" "rma_mix")
NETNS_HOSTS=$TOP/test/netns/hosts.sh    # global: the EXIT trap runs after the function

run_netns_suite() {
    echo "== two hosts: network namespaces, tcp;ofi_rxm over veth (test/netns/) =="
    local hosts=$NETNS_HOSTS hlog=$OUT/logs/netns-hosts.log
    local -a sel=()
    local entry name args
    for entry in "${NETNS_TESTS[@]}"; do
        read -r name args <<<"$entry"
        [[ $name =~ $TESTS ]] && sel+=("$entry")
    done
    [ ${#sel[@]} -gt 0 ] || return 0
    if [ "$DEVICE" != ch4:ofi ]; then
        skip "netns (${#sel[@]} tests)" "$DEVICE build: the two-host tests check the libfabric path"
        return 0
    fi

    local rc=0
    "$hosts" up >"$hlog" 2>&1 || rc=$?
    if [ $rc -eq 77 ]; then
        skip "netns (${#sel[@]} tests)" "$(tail -n 1 "$hlog")"
        return 0
    elif [ $rc -ne 0 ]; then
        fail "netns hosts up" "exit $rc" "$hlog"
        return 0
    fi
    # the namespaces must not outlive the suite, even on ^C
    trap '"$NETNS_HOSTS" down >/dev/null 2>&1' EXIT
    trap 'exit 130' INT TERM

    local bin src t=$((60 * SCALE)) variant envs id log start el
    local MPIEXEC_CMD=$TOP/test/netns/run.sh    # seen by run_mpi (dynamic scope)
    for entry in "${sel[@]}"; do
        read -r name args <<<"$entry"
        bin=$OUT/bin/${name//\//_}
        case "$name" in */*) src=$TOP/$name.c ;; *) src=$TOP/test/$name.c ;; esac
        # reuse the notify part's binary unless it is older than its sources
        # or the installed library (MPICH may have been reinstalled since)
        if ! { [ "$bin" -nt "$src" ] && [ "$bin" -nt "$TOP/test/na_test.h" ] &&
            [ "$bin" -nt "$PREFIX/lib/libmpi.so" ]; }; then
            compile_prog "$name" ||
                { fail "netns/$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"; continue; }
        fi
        for variant in netns netns-am netns-cmpl; do
            envs="$(config_env $variant) NA_EXPECT_PATH=$(config_path $variant)"
            id="$name -n 2 [$variant]"
            log=$OUT/logs/${name//\//_}.n2.$variant.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            run_mpi "$log" "$t" "$envs" 2 "$bin" $args
            rc=$? el=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ] && grep -q '^No Errors' "$log"; then
                pass "$id" "$el"
            elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
                fail "$id" "TIMEOUT after ${t}s (hang)" "$log"
            elif [ $rc -eq 77 ]; then
                skip "$id" "$(tail -n 1 "$log")"
            else
                fail "$id" "exit $rc after ${el}s" "$log"
            fi
        done
    done
    "$hosts" down >>"$hlog" 2>&1 || fail "netns hosts down" "" "$hlog"
    trap - EXIT INT TERM
}

# ------------------------------------------------------------------ under load
# The tests whose verdicts a busy machine could change, again with a CPU hog
# per core (test/loaded.sh, which runs them through this script: SUITE=notify
# into $BUILD/loaded); each run counts here as "loaded: NAME ...".
run_loaded_suite() {
    echo "== under load: timing-sensitive tests, one CPU hog per core (test/loaded.sh) =="
    local log=$OUT/logs/loaded.log line t rc=0 nf=0 failing=0
    BUILD_DIR="$BUILD" PREFIX="$PREFIX" TESTS="$TESTS" NA_TIMEOUT_SCALE=$((2 * SCALE)) \
        bash "$TOP/test/loaded.sh" >"$log" 2>&1 || rc=$?
    while IFS= read -r line; do
        case "$line" in
            PASS*) failing=0; line=${line#PASS  }; t=${line##* }
                pass "loaded: $(sed 's/ *[0-9-]*s$//' <<<"$line")" "${t%s}" ;;
            FAIL*) failing=1 nf=$((nf + 1)); fail "loaded: ${line#FAIL  }" "" ;;
            SKIP*) failing=0; skip "loaded: ${line#SKIP  }" "${log#"$TOP"/}" ;;
            "      |"*) [ $failing = 1 ] && echo "$line" ;;     # the failed run's log
            *) failing=0 ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $nf -eq 0 ]; then fail "loaded" "test/loaded.sh failed" "$log"; fi
}

# ------------------------------------------------------------------ unit tests
# Code that can be exercised without MPI, with sanitizers on.
run_unit_suite() {
    run_cq_word_test
    run_natasks_stress_test
    echo "== unit tests (ThreadSanitizer) =="
    local bin=$OUT/bin/ring_stress log=$OUT/logs/ring_stress.log
    [[ ring_stress =~ $TESTS ]] || return 0
    if ! cc -std=gnu11 -O1 -g -fsanitize=thread -pthread \
        -I"$TOP/src/mpid/ch4/src" -o "$bin" "$TOP/test/unit/ring_stress.c" \
        >"$OUT/logs/ring_stress.compile.log" 2>&1; then
        fail "unit/ring_stress (compile)" "" "$OUT/logs/ring_stress.compile.log"
        return
    fi
    local args start rc
    for args in "8 20000 4 3" "3 20000 2 1" "8 20000 256 64" "1 200000 2 1" "1 200000 8 3"; do
        start=$(date +%s)
        # shellcheck disable=SC2086
        TSAN_OPTIONS="halt_on_error=1" timeout -k 5 $((120 * SCALE)) "$bin" $args >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^No Errors' "$log"; then
            pass "unit/ring_stress $args [tsan]" "$(( $(date +%s) - start ))"
        else
            fail "unit/ring_stress $args [tsan]" "exit $rc" "$log"
        fi
    done
}

# libnatasks's own synchronisation (natasks/na_tasks.c) against a model of
# MPICH and OpenMP that ThreadSanitizer sees whole (test/unit/natasks_stress.c)
run_natasks_stress_test() {
    local bin=$OUT/bin/natasks_stress log=$OUT/logs/natasks_stress.log start
    [[ natasks_stress =~ $TESTS ]] || return 0
    if ! cc -std=gnu11 -O1 -g -Wall -Werror -fsanitize=thread -pthread \
        -I"$TOP/test/unit/natasks_mock" -I"$TOP/natasks" -o "$bin" \
        "$TOP/test/unit/natasks_stress.c" >"$OUT/logs/natasks_stress.compile.log" 2>&1; then
        fail "unit/natasks_stress (compile)" "" "$OUT/logs/natasks_stress.compile.log"
        return
    fi
    start=$(date +%s)
    if TSAN_OPTIONS="halt_on_error=1" timeout -k 5 $((180 * SCALE)) "$bin" >"$log" 2>&1 &&
        grep -q '^No Errors' "$log"; then
        pass "unit/natasks_stress [tsan]" "$(( $(date +%s) - start ))"
    else
        fail "unit/natasks_stress [tsan]" "" "$log"
    fi
}

# the libfabric path's CQ data word, encode and decode (ASan + UBSan)
run_cq_word_test() {
    local bin=$OUT/bin/cq_word log=$OUT/logs/cq_word.log
    [[ cq_word =~ $TESTS ]] || return 0
    if ! cc -std=gnu11 -O1 -g -Wall -Werror -fsanitize=address,undefined \
        -fno-sanitize-recover=undefined -I"$TOP/src/mpid/ch4/netmod/ofi" -o "$bin" \
        "$TOP/test/unit/cq_word.c" >"$OUT/logs/cq_word.compile.log" 2>&1; then
        fail "unit/cq_word (compile)" "" "$OUT/logs/cq_word.compile.log"
        return
    fi
    if timeout 60 "$bin" >"$log" 2>&1 && grep -q '^No Errors' "$log"; then
        pass "unit/cq_word [asan,ubsan]" 0
    else
        fail "unit/cq_word [asan,ubsan]" "" "$log"
    fi
}

# The build refuses sources it cannot trust, with a message saying why.
run_build_checks() {
    echo "== build script checks =="
    [[ build_source =~ $TESTS ]] || return 0
    local tmp=$OUT/buildcheck log=$OUT/logs/build_source.log
    rm -rf "$tmp"; mkdir -p "$tmp/notmpich"
    echo junk | xz >"$tmp/bogus.tar.xz"
    local what src want
    for what in mismatch missing notmpich; do
        case $what in
            mismatch) src=$tmp/bogus.tar.xz; want="checksum mismatch" ;;
            missing) src=$tmp/nonexistent.tar.xz; want="does not exist" ;;
            notmpich) src=$tmp/notmpich; want="not an MPICH source directory" ;;
        esac
        if TOP="$TOP" BUILD_DIR="$tmp/build" PREFIX="$tmp/install" MPICH_SOURCE="$src" \
            bash "$TOP/scripts/build-mpich.sh" >"$log" 2>&1; then
            fail "build_source $what" "build-mpich.sh accepted a bad source" "$log"
        elif grep -q "$want" "$log"; then
            pass "build_source $what" 0
        else
            fail "build_source $what" "no '$want' message" "$log"
        fi
    done
    # configure runs under dash (build-mpich.sh): a bash-only test in an
    # MPICH configure script is an error there and silently false
    # (patches/fixes/0025-configure-posix-test.patch)
    local cl bad=0
    : >"$OUT/logs/configure_posix.log"
    for cl in "$BUILD"/logs/configure*.log; do
        [ -f "$cl" ] || continue
        # dash names the script and line: "configure: 1254: test: ..."
        if grep -nE 'configure: [0-9]+: ' "$cl" >>"$OUT/logs/configure_posix.log"; then
            bad=1
        fi
    done
    if [ $bad = 1 ]; then
        fail "configure_posix" "a configure script ran a non-POSIX test" "$OUT/logs/configure_posix.log"
    else
        pass "configure_posix (configure logs)" 0
    fi
    # the installed compiler wrappers call the compilers by name: no build
    # tool (ccache) leaks into what users run
    local w wlog=$OUT/logs/wrappers.log
    : >"$wlog"
    for w in mpicc mpicxx mpifort; do
        [ -x "$PREFIX/bin/$w" ] || continue
        echo "$w: $("$PREFIX/bin/$w" -show 2>&1)" >>"$wlog"
    done
    if grep -q ccache "$wlog" || ! grep -q "^mpicc: gcc " "$wlog"; then
        fail "wrappers" "an installed wrapper does not call the compiler by name" "$wlog"
    else
        pass "wrappers (mpicc -show calls gcc)" 0
    fi
}

# Every call of the bindings (src/binding/c/*notify*_api.txt) has an
# installed man page (make install runs scripts/md2man.py on doc/man/*.md)
# that renders without groff warnings and names the call.  Every installed
# page (man3, man1) renders with no Markdown left in it (a link's "](" or
# ".md)"), and every name its NAME line gives (as whatis reads it: lexgrog),
# every page an alias sources (.so), every NAME(N) an installed header
# refers to (na_tasks.h: "See na_tasks(3)") and natrace and natrace-plot,
# if installed, have a page file.
run_man_check() {
    [[ man_pages =~ $TESTS ]] || return 0
    local log=$OUT/logs/man_pages.log name page missing=0 mandir=$PREFIX/share/man sec ref names
    : >"$log"
    if ! command -v man >/dev/null || ! command -v lexgrog >/dev/null; then
        skip "man_pages" "man (man-db) is not installed"
        return
    fi
    for name in $(sed -n 's/^\(MPIX\{0,1\}_[A-Za-z_]*\):$/\1/p' \
        "$TOP"/src/binding/c/*notify*_api.txt); do
        page=$(man -M "$PREFIX/share/man" -w "$name" 2>>"$log") || {
            echo "no page: $name" >>"$log"; missing=1; continue; }
        # the page itself and the page an alias sources
        if ! MANWIDTH=80 man -M "$PREFIX/share/man" "$name" 2>>"$log" | grep -q "$name"; then
            echo "$name: not named by $page" >>"$log"; missing=1
        fi
        if [ "$(groff -man -ww -z -Tutf8 -I "$PREFIX/share/man" -s "$page" 2>&1 | tee -a "$log")" ]; then
            missing=1
        fi
    done
    # every page rendered (from the man directory, where an alias's
    # ".so man3/X.3" resolves), a few at a time per core
    if (cd "$mandir" && ls man3/*.3 man1/*.1 2>/dev/null |
        xargs -d '\n' -n 16 -P "$(nproc)" sh -c 'for p; do
            MANWIDTH=80 man --nh -l "$p" 2>&1 | grep -E "\]\(|\.md\)|failed \.so" | sed "s|^|$p: markdown or a broken .so: |"
        done' sh) | grep . >>"$log"; then
        missing=1
    fi
    # the names a reader would man: NAME lines, .so targets, headers' NAME(N)
    while read -r ref; do
        name=${ref%(*}; sec=${ref#*(}; sec=${sec%)}
        compgen -G "$mandir/man$sec/$name.$sec" >/dev/null || { echo "no page file: $ref" >>"$log"; missing=1; }
    done < <(
        cd "$mandir" || exit
        for page in man3/*.3 man1/*.1; do
            [ -f "$page" ] || continue
            if head -n 1 "$page" | grep -q '^\.so '; then
                head -n 1 "$page" | sed -n 's|^\.so man\([1-8]\)/\(.*\)\.[1-8]$|\2(\1)|p'
            elif names=$(lexgrog "$page" 2>&1); then
                # 'man3/X.3: "NAME - summary"', a line per name: a page
                # file of any section (natrace and natrace-plot are in man1)
                sed -n "s|^[^:]*: \"||; s| - .*||p" <<<"$names" | sed 's|$|([1-8])|'
            else
                echo "$page(NAME line not parsed by lexgrog)"
            fi
        done
        grep -ohE '\b[A-Za-z_][A-Za-z0-9_.-]*\([1-8]\)' "$PREFIX"/include/na_tasks.h 2>/dev/null
        [ ! -x "$PREFIX/bin/natrace-plot" ] || echo "natrace-plot(1)"
        [ ! -x "$PREFIX/bin/natrace" ] || echo "natrace(1)"
    )
    if [ $missing -eq 0 ]; then
        pass "man_pages (every call, every page and name)" 0
    else
        fail "man_pages" "a call without a clean page, markdown in a page, or a name without one" "$log"
    fi
}

# Every access call of the bindings (src/binding/c/*notify*_api.txt: those
# with a target_disp) is in the differential argument checker's table
# (test/argcheck.c), so that a new call cannot skip it.
run_argcheck_coverage() {
    [[ argcheck_coverage =~ $TESTS ]] || return 0
    local log=$OUT/logs/argcheck_coverage.log name missing=0
    : >"$log"
    for name in $(awk '/^MPIX?_[A-Za-z_]*:$/ { name = substr($0, 1, length($0) - 1) }
                       /^    target_disp:/ { print name }' "$TOP"/src/binding/c/*notify*_api.txt); do
        grep -q "\"$name\"" "$TOP/test/argcheck.c" || { echo "not in test/argcheck.c: $name" >>"$log"; missing=1; }
    done
    if [ $missing -eq 0 ]; then
        pass "argcheck_coverage (every access call)" 0
    else
        fail "argcheck_coverage" "an access call the argument checker does not know" "$log"
    fi
}

# Every complete program in the user guide (doc/guide.md's ```c blocks)
# compiles with the installed mpicc and runs on 2 processes
# (test/guide-blocks.sh); fragments are marked ```c fragment and skipped.
run_guide_check() {
    [[ guide_blocks =~ $TESTS ]] || return 0
    local log=$OUT/logs/guide_blocks.log line rc=0 n=0
    bash "$TOP/test/guide-blocks.sh" "$MPICC" "$OUT/guide" "$MPIEXEC" >"$log" 2>&1 || rc=$?
    while read -r line; do
        case "$line" in
            PASS*) pass "${line#PASS }" 0; n=$((n + 1)) ;;
            FAIL*) fail "${line#FAIL }" "" "$log"; n=$((n + 1)) ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $n -eq 0 ]; then fail "guide_blocks" "test/guide-blocks.sh failed" "$log"; fi
}

# The project's own C (src/, include/, natrace/, natasks/) is in MPICH's
# style: scripts/code-style.sh runs MPICH's indent options over it.
run_code_style_check() {
    [[ code_style =~ $TESTS ]] || return 0
    local log=$OUT/logs/code_style.log
    if ! command -v indent >/dev/null; then
        fail "code_style" "GNU indent missing (scripts/setup-deps.sh installs it)" ""
    elif bash "$TOP/scripts/code-style.sh" >"$log" 2>&1; then
        pass "code_style" 0
    else
        fail "code_style" "$(wc -l <"$log") files differ" "$log"
    fi
}

# Every control variable of the library (a CVAR block's name in src/ or
# patches/) has its row in the guide's table.
run_guide_cvars_check() {
    [[ guide_cvars =~ $TESTS ]] || return 0
    local log=$OUT/logs/guide_cvars.log c
    : >"$log"
    for c in $(grep -rhoE 'name *: *MPIR_CVAR_NOTIFY_[A-Z0-9_]+' "$TOP/src" "$TOP/patches" |
               sed 's/.*: *//' | sort -u); do
        grep -q "\`$c\`" "$TOP/doc/guide.md" || echo "not in doc/guide.md: $c" >>"$log"
    done
    if [ -s "$log" ]; then fail "guide_cvars" "a control variable the guide does not list" "$log"
    else pass "guide_cvars (every MPIR_CVAR_NOTIFY_* in the guide)" 0; fi
}

# The sample outputs of the user guide (doc/guide.md's ```text blocks after
# a <!-- sample: COMMAND --> line) are what the installed library prints:
# each COMMAND rerun on 2 processes, its output compared with the sample's,
# numbers masked and lines sorted (test/guide-samples.sh).  They are the
# ch4:ofi build's output: a ch4:ucx build skips them.
run_guide_samples_check() {
    [[ guide_samples =~ $TESTS ]] || return 0
    local log=$OUT/logs/guide_samples.log line rc=0 n=0
    case "$DEVICE" in
        ch4:ucx*) skip "guide_samples" "the guide's samples are of ch4:ofi"; return 0 ;;
    esac
    bash "$TOP/test/guide-samples.sh" "$MPICC" "$OUT/guide-samples" "$MPIEXEC" >"$log" 2>&1 || rc=$?
    while read -r line; do
        case "$line" in
            PASS*) pass "${line#PASS }" 0; n=$((n + 1)) ;;
            FAIL*) fail "${line#FAIL }" "" "$log"; n=$((n + 1)) ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $n -eq 0 ]; then fail "guide_samples" "test/guide-samples.sh failed" "$log"; fi
}

# natrace (doc/man/natrace.md), built from this tree with the installed
# mpicc: a known program traced through the notify MPI_T events on 2
# processes, on shared memory and over tcp, in C and in Fortran (mpi_f08,
# use mpi, mpif.h), under the natrace launcher; its traces checked against what it
# did (test/natrace_check.py) and drawn (natrace-plot; skipped, saying so,
# without matplotlib); the launcher's refusal of a library it cannot
# preload; the one line natrace prints when it cannot trace; natrace-plot's
# layout; the man page as natrace(1) (test/natrace.sh)
run_natrace_check() {
    [[ natrace =~ $TESTS ]] || return 0
    local log=$OUT/logs/natrace.log line rc=0 n=0
    timeout $((300 * SCALE)) bash "$TOP/test/natrace.sh" "$PREFIX" "$OUT/natrace" >"$log" 2>&1 || rc=$?
    while read -r line; do
        case "$line" in
            PASS*) line=${line#PASS  }; pass "${line%%:*}" 0; n=$((n + 1)) ;;
            FAIL*) fail "${line#FAIL  }" "" "$log"; n=$((n + 1)) ;;
            SKIP*) line=${line#SKIP  }; skip "${line%%:*}" "${line#*: }"; n=$((n + 1)) ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $n -eq 0 ]; then fail "natrace" "test/natrace.sh failed" "$log"; fi
}

# What make deb adds to Debian's packaging, without building MPICH
# (test/deb-overlay.sh): na.mk's rules run in a stand-in tree against the
# installed MPICH, every file they install in a package (libnatrace and the
# natrace launcher, natrace-plot, their man pages among them), mpich's
# python3 dependency.
run_deb_overlay_check() {
    [[ deb_overlay =~ $TESTS ]] || return 0
    local log=$OUT/logs/deb_overlay.log line rc=0 n=0
    if ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
        skip "deb_overlay" "needs make and gcc"
        return
    fi
    timeout $((120 * SCALE)) bash "$TOP/test/deb-overlay.sh" "$PREFIX" "$OUT/deb-overlay" \
        >"$log" 2>&1 || rc=$?
    while read -r line; do
        case "$line" in
            PASS*) pass "${line#PASS  }" 0; n=$((n + 1)) ;;
            FAIL*) fail "${line#FAIL  }" "" "$log"; n=$((n + 1)) ;;
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $n -eq 0 ]; then fail "deb_overlay" "test/deb-overlay.sh failed" "$log"; fi
}

# ------------------------------------------------------------------ a whole MPICH
# The default build is a whole MPICH (scripts/build-mpich.sh): Fortran
# (mpif.h, use mpi, use mpi_f08, each with the notified calls), C++ against
# mpi.h's new prototypes, ROMIO, and a pkg-config file that builds a
# program.  A lean build (MPICH_LEAN=1, and the ucx and asan variants)
# skips them, saying so.
run_lang_suite() {
    echo "== a whole MPICH: Fortran, C++, MPI-IO, pkg-config =="
    local lean=0 log t=60 dir=$OUT/lang
    # lean on purpose: configured with --disable-fortran (MPICH_LEAN=1, the
    # lean variants of scripts/build-mpich.sh); any other build without the
    # three fails here
    [[ $("$PREFIX/bin/mpichversion") == *--disable-fortran* ]] && lean=1
    mkdir -p "$dir"
    lang_run() {    # full|any NAME COMPILE-COMMAND... -- PROGRAM ARGS...
        local need=$1 name=$2; shift 2
        local -a cc=()
        while [ "$1" != -- ]; do cc+=("$1"); shift; done
        shift
        [[ $name =~ $TESTS ]] || return 0
        log=$OUT/logs/lang_$name.log
        if [ "$need" = full ] && [ "$lean" = 1 ]; then
            skip "lang/$name" "lean build (configured --disable-fortran): no Fortran, C++ or ROMIO"
            return
        fi
        if ! "${cc[@]}" >"$log" 2>&1; then
            fail "lang/$name" "does not compile" "$log"
        elif run_mpi "$log" "$t" "" 2 "$@" && grep -q "No Errors" "$log"; then
            pass "lang/$name" 0
        else
            fail "lang/$name" "no 'No Errors'" "$log"
        fi
    }
    lang_run full fortran_f08 "$PREFIX/bin/mpifort" -o "$dir/notify_f08" "$TOP/test/fortran/notify_f08.f90" \
        -- "$dir/notify_f08"
    lang_run full fortran_use_mpi "$PREFIX/bin/mpifort" -o "$dir/notify_mpi" "$TOP/test/fortran/notify_mpi.F90" \
        -- "$dir/notify_mpi"
    lang_run full fortran_mpif_h "$PREFIX/bin/mpifort" -DUSE_MPIF_H -o "$dir/notify_mpif" \
        "$TOP/test/fortran/notify_mpi.F90" -- "$dir/notify_mpif"
    lang_run full cxx "$PREFIX/bin/mpicxx" -std=c++17 -Wall -Werror -o "$dir/notify_cxx" "$TOP/test/cxx/notify_cxx.cpp" \
        -- "$dir/notify_cxx"
    lang_run full mpi_io "$MPICC" -Wall -Werror -o "$dir/mpi_io_hello" "$TOP/test/mpi_io_hello.c" \
        -- "$dir/mpi_io_hello" "$dir/hello.txt"
    # pkg-config: the flags it gives build the C example with plain gcc
    lang_run any pkg_config bash -c "export PKG_CONFIG_PATH='$PREFIX/lib/pkgconfig'; \
        gcc -o '$dir/pingpong_pc' '$TOP/examples/pingpong_notify.c' \$(pkg-config --cflags --libs mpich)" \
        -- "$dir/pingpong_pc" 64 10
}

# ------------------------------------------------------------------ real programs
# Debian's MPICH programs, unchanged (ScaLAPACK's testers, NetPIPE, parallel
# HDF5), on Debian's libmpich12 and on ours, shm and tcp, 2 and 4 ranks:
# test/realprogs/run.sh, which installs the packages it needs (skipped,
# saying why, where it cannot).  Not on the ch4:ucx and sanitizer variants.
run_realprogs_suite() {
    echo "== real programs: Debian's MPICH programs on its libmpich12 and on ours (test/realprogs/) =="
    [[ realprogs =~ $TESTS ]] || return 0
    if [ -n "$VARIANT" ] || [[ $DEVICE != ch4:ofi* ]]; then
        skip "realprogs" "only on the main ch4:ofi build"
        return
    fi
    local log=$OUT/logs/realprogs.log line t rc=0 n=0 nf=0 failing=0
    PREFIX="$PREFIX" OUT="$OUT/realprogs" NA_TIMEOUT_SCALE=$SCALE \
        timeout $((900 * SCALE)) bash "$TOP/test/realprogs/run.sh" >"$log" 2>&1 || rc=$?
    while IFS= read -r line; do
        case "$line" in
            PASS*) failing=0 n=$((n + 1)); line=${line#PASS  }; t=${line##* }; line=${line% *}
                pass "realprogs/${line% }" "${t%s}" ;;
            FAIL*) failing=1 n=$((n + 1)) nf=$((nf + 1)); line=${line#FAIL  }
                fail "realprogs/${line%%: *}" "${line#*: }" ;;
            SKIP*) failing=0 n=$((n + 1)); line=${line#SKIP  }; t=realprogs/${line%%: *}
                skip "${t%/realprogs}" "${line#*: }" ;;         # the whole part: "realprogs"
            "      |"*) [ $failing = 1 ] && echo "$line" ;;     # the failed run's log
            *) failing=0; echo "$line" ;;                      # headings, the table
        esac
    done <"$log"
    if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ $nf -eq 0 ]; then
        fail "realprogs" "test/realprogs/run.sh exited $rc" "$log"
    elif [ $n -eq 0 ]; then
        fail "realprogs" "test/realprogs/run.sh reported nothing" "$log"
    fi
}

# ------------------------------------------------------------------ instruction budget
# Instructions per 8-byte message (origin + target MPI calls, callgrind,
# bench/instr-count.sh) against test/instr-budget.txt: more than a line's
# tolerance (its third column; 10 % without one) over its budget fails.
# Counts repeat from run to run; times do not.  Only on the
# main ch4:ofi build (sanitizers and ch4:ucx count other code).
run_instr_budget() {
    echo "== instruction budget (callgrind) =="
    [[ instr_budget =~ $TESTS ]] || return 0
    if [ -n "$VARIANT" ] || [[ $DEVICE != ch4:ofi* ]]; then
        skip "instr_budget" "only on the main ch4:ofi build"
        return
    fi
    local log=$OUT/logs/instr_budget.log start=$(date +%s) mode budget count
    local modes
    modes=$(awk '!/^#/ && NF {print $1}' "$TOP/test/instr-budget.txt")
    # shellcheck disable=SC2086
    if ! TOP="$TOP" PREFIX="$PREFIX" INSTR_OUT="$OUT/instr" timeout $((900 * SCALE)) \
        bash "$TOP/bench/instr-count.sh" $modes >"$log" 2>&1; then
        fail "instr_budget" "bench/instr-count.sh failed" "$log"
        return
    fi
    while read -r mode budget pct; do
        [[ -z $mode || $mode == \#* ]] && continue
        pct=${pct:-10}
        # "=MODE": no more than MODE's count in the same run
        [[ $budget == =* ]] && budget=$(awk -v m="${budget#=}" '$1 == m {print $4}' "$log")
        count=$(awk -v m="$mode" '$1 == m {print $4}' "$log")
        if [ -z "$count" ] || [ -z "$budget" ]; then
            fail "instr_budget $mode" "not counted" "$log"
        elif [ $((count * 100)) -gt $((budget * (100 + pct))) ]; then
            fail "instr_budget $mode" "$count instructions per message, budget $budget + $pct %" "$log"
        else
            pass "instr_budget $mode ($count, budget $budget)" "$(( $(date +%s) - start ))"
        fi
    done <"$TOP/test/instr-budget.txt"
}

# ------------------------------------------------------------------ MPICH tests
run_mpich_suite() {
    local tdir=$BUILD/mpich-obj/test/mpi srcdir=$BUILD/mpich-src/test/mpi
    echo "== MPICH regression subset (test/mpich-regression.txt) =="
    if [ ! -f "$tdir/Makefile" ]; then
        fail "mpich-regression" "MPICH's test/mpi is not configured in $tdir"
        return
    fi
    if ! make -C "$tdir/util" >"$OUT/logs/mpich-util.log" 2>&1; then
        fail "mpich-regression (libmtest)" "" "$OUT/logs/mpich-util.log"
        return
    fi
    local dirs
    dirs=$(awk '!/^#/ && NF {print $1}' "$TOP/test/mpich-regression.txt" | sort -u)
    for d in $dirs; do
        # runtests takes a testlist file per directory: write ours there
        awk -v d="$d" '!/^#/ && NF && $1 == d { $1 = ""; sub(/^ /, ""); print }' \
            "$TOP/test/mpich-regression.txt" | grep -E "$TESTS" >"$tdir/$d/testlist.na" || true
        [ -s "$tdir/$d/testlist.na" ] || continue
        # build the programs first, on every core: runtests makes each one
        # alone before its run (what fails to build, runtests reports)
        make -C "$tdir/$d" -j"$(nproc)" $(awk '{print $1}' "$tdir/$d/testlist.na" | sort -u) \
            >"$OUT/logs/mpich-$d.build.log" 2>&1 || true
        local tap=$OUT/logs/mpich-$d.tap
        rm -f "$tap"
        (cd "$tdir" && env "FI_PROVIDER=tcp;ofi_rxm" MPITEST_TIMEOUT=$((60 * SCALE)) \
            ./runtests -srcdir="$srcdir" -tests=testlist.na -testdirs="$d" -maxnp=4 \
            -tapfile="$tap" -mpiexec="$MPIEXEC" >"$OUT/logs/mpich-$d.log" 2>&1)
        if [ ! -s "$tap" ]; then
            fail "mpich/$d" "runtests produced no results" "$OUT/logs/mpich-$d.log"
            continue
        fi
        # TAP lines: "ok N - ./DIR/NAME NP [args] # time=SECONDS"
        local status rest name secs
        while IFS= read -r l; do
            case "$l" in
                "not ok "*) status=fail; rest=${l#not ok } ;;
                "ok "*) status=pass; rest=${l#ok } ;;
                *) continue ;;
            esac
            rest=${rest#* - ./}
            name=${rest%% # *}
            secs=$(sed -n 's/.*# time=\([0-9]*\).*/\1/p' <<<"$rest")
            case "$l" in *"# SKIP"*) status=skip ;; esac
            case $status in
                pass) pass "mpich/$name" "${secs:--}" ;;
                skip) skip "mpich/$name" "runtests skip" ;;
                fail) fail "mpich/$name" "(output in ${OUT#$TOP/}/logs/mpich-$d.log)" ;;
            esac
        done <"$tap"
    done
}

start_all=$(date +%s)
case "$SUITE" in
    all) run_unit_suite; run_build_checks; run_man_check; run_argcheck_coverage; run_guide_check; run_guide_samples_check; run_guide_cvars_check; run_code_style_check; run_natrace_check; run_deb_overlay_check; run_lang_suite; run_realprogs_suite
        run_notify_suite; run_fault_suite; run_netns_suite; run_loaded_suite; run_instr_budget; run_mpich_suite ;;
    unit) run_unit_suite; run_build_checks; run_man_check; run_argcheck_coverage; run_guide_check; run_guide_samples_check; run_guide_cvars_check; run_code_style_check; run_natrace_check; run_deb_overlay_check ;;
    lang) run_lang_suite ;;
    notify) run_notify_suite; run_fault_suite ;;
    netns) run_netns_suite ;;
    loaded) run_loaded_suite ;;
    realprogs) run_realprogs_suite ;;
    mpich) run_mpich_suite ;;
    instr) run_instr_budget ;;
    *) echo "run-suite: SUITE must be all, unit, lang, notify, netns, loaded, realprogs, instr or mpich" >&2; exit 2 ;;
esac

echo
if [ $nfail -gt 0 ]; then
    echo "Failed:"
    printf '  %s\n' "${failed[@]}"
fi
echo "suite time: $(( $(date +%s) - start_all ))s; logs in ${OUT#$TOP/}/logs"
echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
