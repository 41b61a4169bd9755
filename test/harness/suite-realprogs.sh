# shellcheck shell=bash
# The real programs (SUITE=realprogs, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

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
