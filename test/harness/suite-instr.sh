# shellcheck shell=bash
# The instruction budget (SUITE=instr, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# ------------------------------------------------------------------ instruction budget
# Instructions per 8-byte message (origin + target MPI calls, callgrind,
# bench/instr-count.sh) against test/harness/instr-budget.txt: more than a line's
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
    modes=$(awk '!/^#/ && NF {print $1}' "$TOP/test/harness/instr-budget.txt")
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
    done <"$TOP/test/harness/instr-budget.txt"
}
