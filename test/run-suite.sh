#!/usr/bin/env bash
# The test suite: our Notified Access tests on every transport configuration
# and a fault test (a rank killed mid-flood, test/faults/), then a few of them
# across two network-namespace "hosts" (test/netns/), jobs under a Slurm
# cluster on those hosts (test/slurm/), then a curated subset
# of MPICH's own test/mpi against the patched build.
#
#   SUITE=all|unit|lang|notify|netns|slurm|sim|loaded|realprogs|instr|mpich   which part (default all)
#   CONFIGS=shm,tcp,...      transport configurations for our tests
#   TESTS=REGEX              only tests whose name matches
#   NA_TIMEOUT_SCALE=N       multiply every timeout (slow machines)
#
# Prints PASS/FAIL/SKIP per run and ends with "N passed, N failed, N skipped";
# exits non-zero if anything failed.
#
# The parts live in test/harness/: lib.sh (settings, pass/skip/fail, run_mpi,
# compile_prog ...) and one suite-PART.sh per part, sourced here.
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
SUITE=${SUITE:-all}
# shellcheck source=test/harness/lib.sh
. "$TOP/test/harness/lib.sh"
mkdir -p "$OUT/bin" "$OUT/logs"

if [ ! -x "$MPICC" ] || [ ! -x "$MPIEXEC" ]; then
    echo "run-suite: no patched MPICH installed in $PREFIX (run 'make' first)" >&2
    exit 2
fi

# shellcheck source=test/harness/suite-unit.sh
. "$TOP/test/harness/suite-unit.sh"
# shellcheck source=test/harness/suite-build.sh
. "$TOP/test/harness/suite-build.sh"
# shellcheck source=test/harness/suite-docs.sh
. "$TOP/test/harness/suite-docs.sh"
# shellcheck source=test/harness/suite-natrace.sh
. "$TOP/test/harness/suite-natrace.sh"
# shellcheck source=test/harness/suite-sim.sh
. "$TOP/test/harness/suite-sim.sh"
# shellcheck source=test/harness/suite-lang.sh
. "$TOP/test/harness/suite-lang.sh"
# shellcheck source=test/harness/suite-realprogs.sh
. "$TOP/test/harness/suite-realprogs.sh"
# shellcheck source=test/harness/suite-notify.sh
. "$TOP/test/harness/suite-notify.sh"
# shellcheck source=test/harness/suite-faults.sh
. "$TOP/test/harness/suite-faults.sh"
# shellcheck source=test/harness/suite-netns.sh
. "$TOP/test/harness/suite-netns.sh"
# shellcheck source=test/harness/suite-slurm.sh
. "$TOP/test/harness/suite-slurm.sh"
# shellcheck source=test/harness/suite-loaded.sh
. "$TOP/test/harness/suite-loaded.sh"
# shellcheck source=test/harness/suite-instr.sh
. "$TOP/test/harness/suite-instr.sh"
# shellcheck source=test/harness/suite-mpich.sh
. "$TOP/test/harness/suite-mpich.sh"

start_all=$(date +%s)
case "$SUITE" in
    all) run_unit_suite; run_build_checks; run_man_check; run_argcheck_coverage; run_guide_check; run_guide_samples_check; run_guide_cvars_check; run_code_style_check; run_patch_series_check; run_natrace_check; run_sim_check; run_deb_overlay_check; run_lang_suite; run_realprogs_suite
        run_notify_suite; run_fault_suite; run_netns_suite; run_slurm_suite; run_loaded_suite; run_instr_budget; run_mpich_suite ;;
    unit) run_unit_suite; run_build_checks; run_man_check; run_argcheck_coverage; run_guide_check; run_guide_samples_check; run_guide_cvars_check; run_code_style_check; run_patch_series_check; run_natrace_check; run_sim_check; run_deb_overlay_check ;;
    lang) run_lang_suite ;;
    notify) run_notify_suite; run_fault_suite ;;
    netns) run_netns_suite ;;
    slurm) run_slurm_suite ;;
    sim) run_sim_check ;;
    loaded) run_loaded_suite ;;
    realprogs) run_realprogs_suite ;;
    mpich) run_mpich_suite ;;
    instr) run_instr_budget ;;
    *) echo "run-suite: SUITE must be all, unit, lang, notify, netns, slurm, sim, loaded, realprogs, instr or mpich" >&2; exit 2 ;;
esac

echo
if [ $nfail -gt 0 ]; then
    echo "Failed:"
    printf '  %s\n' "${failed[@]}"
fi
echo "suite time: $(( $(date +%s) - start_all ))s; logs in ${OUT#$TOP/}/logs"
echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
