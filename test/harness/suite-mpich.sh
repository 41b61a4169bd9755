# shellcheck shell=bash
# The MPICH regression subset (SUITE=mpich, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# ------------------------------------------------------------------ MPICH tests
run_mpich_suite() {
    local tdir=$BUILD/mpich-obj/test/mpi srcdir=$BUILD/mpich-src/test/mpi
    echo "== MPICH regression subset (test/harness/mpich-regression.txt) =="
    if [ ! -f "$tdir/Makefile" ]; then
        fail "mpich-regression" "MPICH's test/mpi is not configured in $tdir"
        return
    fi
    if ! make -C "$tdir/util" >"$OUT/logs/mpich-util.log" 2>&1; then
        fail "mpich-regression (libmtest)" "" "$OUT/logs/mpich-util.log"
        return
    fi
    local dirs
    dirs=$(awk '!/^#/ && NF {print $1}' "$TOP/test/harness/mpich-regression.txt" | sort -u)
    for d in $dirs; do
        # runtests takes a testlist file per directory: write ours there
        awk -v d="$d" '!/^#/ && NF && $1 == d { $1 = ""; sub(/^ /, ""); print }' \
            "$TOP/test/harness/mpich-regression.txt" | grep -E "$TESTS" >"$tdir/$d/testlist.na" || true
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
