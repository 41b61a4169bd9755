# shellcheck shell=bash
# The notify suite's fault test (SUITE=notify, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

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
