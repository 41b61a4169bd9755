# shellcheck shell=bash
# The projection's tools (SUITE=sim, unit, all): natitrace, the recorder of
# time-independent traces (sim/test/trace.sh), and the SMPI replay of such
# traces (sim/test/run.sh), trace extrapolation (sim/test/extrapolate.sh)
# and the guide's projection commands as written (sim/test/guide.sh);
# skipped without SimGrid's smpirun.
# Sourced by test/run-suite.sh after test/harness/lib.sh.
run_sim_check() {
    if [[ natitrace =~ $TESTS ]]; then
        run_checker natitrace "$OUT/logs/natitrace.log" \
            timeout $((300 * SCALE)) bash "$TOP/sim/test/trace.sh" "$OUT/natitrace"
    fi
    if [[ replay =~ $TESTS ]]; then
        if ! command -v smpirun >/dev/null 2>&1; then
            skip "replay" "no smpirun (SimGrid: scripts/setup-deps.sh installs libsimgrid-dev)"
        else
            run_checker replay "$OUT/logs/replay.log" \
                timeout $((600 * SCALE)) bash "$TOP/sim/test/run.sh"
        fi
    fi
    for t in extrapolate guide; do
        [[ sim-$t =~ $TESTS ]] || continue
        if ! command -v smpirun >/dev/null 2>&1; then
            skip "sim-$t" "no smpirun (SimGrid: scripts/setup-deps.sh installs libsimgrid-dev)"
        else
            run_checker "sim-$t" "$OUT/logs/sim-$t.log" \
                timeout $((600 * SCALE)) bash "$TOP/sim/test/$t.sh" "$OUT/sim-$t"
        fi
    done
}
