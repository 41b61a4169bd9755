# shellcheck shell=bash
# The unit suite's natrace check (SUITE=unit, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# natrace (doc/man/natrace.md), built from this tree with the installed
# mpicc: a known program traced through the notify MPI_T events on 2
# processes, on shared memory and over tcp, in C and in Fortran (mpi_f08,
# use mpi, mpif.h), under the natrace launcher; its traces checked against what it
# did (test/tools/natrace_check.py) and drawn (natrace-plot; skipped, saying so,
# without matplotlib); the launcher's refusal of a library it cannot
# preload; the one line natrace prints when it cannot trace; natrace-plot's
# layout; the man page as natrace(1) (test/tools/natrace.sh)
run_natrace_check() {
    [[ natrace =~ $TESTS ]] || return 0
    run_checker --cut natrace "$OUT/logs/natrace.log" \
        timeout $((300 * SCALE)) bash "$TOP/test/tools/natrace.sh" "$PREFIX" "$OUT/natrace"
}
