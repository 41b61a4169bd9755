# shellcheck shell=bash
# The projection's tools (SUITE=sim, unit, all): natitrace, the recorder of
# time-independent traces (sim/test/trace.sh), and the SMPI replay of such
# traces (sim/test/run.sh; skipped without SimGrid's smpirun).
# Sourced by test/run-suite.sh after test/harness/lib.sh.
run_sim_check() {
    if [[ natitrace =~ $TESTS ]]; then
        run_checker natitrace "$OUT/logs/natitrace.log" \
            timeout $((300 * SCALE)) bash "$TOP/sim/test/trace.sh" "$OUT/natitrace"
    fi
}
