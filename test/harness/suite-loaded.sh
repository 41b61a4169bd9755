# shellcheck shell=bash
# The suite under load (SUITE=loaded, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# ------------------------------------------------------------------ under load
# The tests whose verdicts a busy machine could change, again with a CPU hog
# per core (test/harness/loaded.sh, which runs them through this script: SUITE=notify
# into $BUILD/loaded); each run counts here as "loaded: NAME ...".
run_loaded_suite() {
    echo "== under load: timing-sensitive tests, one CPU hog per core (test/harness/loaded.sh) =="
    local log=$OUT/logs/loaded.log line t rc=0 nf=0 failing=0
    BUILD_DIR="$BUILD" PREFIX="$PREFIX" TESTS="$TESTS" NA_TIMEOUT_SCALE=$((2 * SCALE)) \
        bash "$TOP/test/harness/loaded.sh" >"$log" 2>&1 || rc=$?
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
    if [ $rc -ne 0 ] && [ $nf -eq 0 ]; then fail "loaded" "test/harness/loaded.sh failed" "$log"; fi
}
