# shellcheck shell=bash
# The unit tests (SUITE=unit, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

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
