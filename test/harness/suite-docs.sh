# shellcheck shell=bash
# The unit suite's checks of the bindings against the man pages, the
# argument checker and the user guide (SUITE=unit, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# Every call of the bindings (src/binding/c/*notify*_api.txt) has an
# installed man page (make install runs scripts/md2man.py on doc/man/*.md)
# that renders without groff warnings and names the call.  Every installed
# page (man3, man1) renders with no Markdown left in it (a link's "](" or
# ".md)"), and every name its NAME line gives (as whatis reads it: lexgrog),
# every page an alias sources (.so), every NAME(N) an installed header
# refers to (na_tasks.h: "See na_tasks(3)") and natrace and natrace-plot,
# if installed, have a page file.
run_man_check() {
    [[ man_pages =~ $TESTS ]] || return 0
    local log=$OUT/logs/man_pages.log name page missing=0 mandir=$PREFIX/share/man sec ref names
    : >"$log"
    if ! command -v man >/dev/null || ! command -v lexgrog >/dev/null; then
        skip "man_pages" "man (man-db) is not installed"
        return
    fi
    for name in $(sed -n 's/^\(MPIX\{0,1\}_[A-Za-z_]*\):$/\1/p' \
        "$TOP"/src/binding/c/*notify*_api.txt); do
        page=$(man -M "$PREFIX/share/man" -w "$name" 2>>"$log") || {
            echo "no page: $name" >>"$log"; missing=1; continue; }
        # the page itself and the page an alias sources
        if ! MANWIDTH=80 man -M "$PREFIX/share/man" "$name" 2>>"$log" | grep -q "$name"; then
            echo "$name: not named by $page" >>"$log"; missing=1
        fi
        if [ "$(groff -man -ww -z -Tutf8 -I "$PREFIX/share/man" -s "$page" 2>&1 | tee -a "$log")" ]; then
            missing=1
        fi
    done
    # every page rendered (from the man directory, where an alias's
    # ".so man3/X.3" resolves), a few at a time per core
    if (cd "$mandir" && ls man3/*.3 man1/*.1 2>/dev/null |
        xargs -d '\n' -n 16 -P "$(nproc)" sh -c 'for p; do
            MANWIDTH=80 man --nh -l "$p" 2>&1 | grep -E "\]\(|\.md\)|failed \.so" | sed "s|^|$p: markdown or a broken .so: |"
        done' sh) | grep . >>"$log"; then
        missing=1
    fi
    # the names a reader would man: NAME lines, .so targets, headers' NAME(N)
    while read -r ref; do
        name=${ref%(*}; sec=${ref#*(}; sec=${sec%)}
        compgen -G "$mandir/man$sec/$name.$sec" >/dev/null || { echo "no page file: $ref" >>"$log"; missing=1; }
    done < <(
        cd "$mandir" || exit
        for page in man3/*.3 man1/*.1; do
            [ -f "$page" ] || continue
            if head -n 1 "$page" | grep -q '^\.so '; then
                head -n 1 "$page" | sed -n 's|^\.so man\([1-8]\)/\(.*\)\.[1-8]$|\2(\1)|p'
            elif names=$(lexgrog "$page" 2>&1); then
                # 'man3/X.3: "NAME - summary"', a line per name: a page
                # file of any section (natrace and natrace-plot are in man1)
                sed -n "s|^[^:]*: \"||; s| - .*||p" <<<"$names" | sed 's|$|([1-8])|'
            else
                echo "$page(NAME line not parsed by lexgrog)"
            fi
        done
        grep -ohE '\b[A-Za-z_][A-Za-z0-9_.-]*\([1-8]\)' "$PREFIX"/include/na_tasks.h 2>/dev/null
        [ ! -x "$PREFIX/bin/natrace-plot" ] || echo "natrace-plot(1)"
        [ ! -x "$PREFIX/bin/natrace" ] || echo "natrace(1)"
    )
    if [ $missing -eq 0 ]; then
        pass "man_pages (every call, every page and name)" 0
    else
        fail "man_pages" "a call without a clean page, markdown in a page, or a name without one" "$log"
    fi
}

# Every access call of the bindings (src/binding/c/*notify*_api.txt: those
# with a target_disp) is in the differential argument checker's table
# (test/notify/argcheck.c), so that a new call cannot skip it.
run_argcheck_coverage() {
    [[ argcheck_coverage =~ $TESTS ]] || return 0
    local log=$OUT/logs/argcheck_coverage.log name missing=0
    : >"$log"
    for name in $(awk '/^MPIX?_[A-Za-z_]*:$/ { name = substr($0, 1, length($0) - 1) }
                       /^    target_disp:/ { print name }' "$TOP"/src/binding/c/*notify*_api.txt); do
        grep -q "\"$name\"" "$TOP/test/notify/argcheck.c" || { echo "not in test/notify/argcheck.c: $name" >>"$log"; missing=1; }
    done
    if [ $missing -eq 0 ]; then
        pass "argcheck_coverage (every access call)" 0
    else
        fail "argcheck_coverage" "an access call the argument checker does not know" "$log"
    fi
}

# Every complete program in the user guide (doc/guide.md's ```c blocks)
# compiles with the installed mpicc and runs on 2 processes
# (test/packaging/guide-blocks.sh); fragments are marked ```c fragment and skipped.
run_guide_check() {
    [[ guide_blocks =~ $TESTS ]] || return 0
    run_checker guide_blocks "$OUT/logs/guide_blocks.log" \
        bash "$TOP/test/packaging/guide-blocks.sh" "$MPICC" "$OUT/guide" "$MPIEXEC"
}

# Every control variable of the library (a CVAR block's name in src/ or
# patches/) has its row in the guide's table.
run_guide_cvars_check() {
    [[ guide_cvars =~ $TESTS ]] || return 0
    local log=$OUT/logs/guide_cvars.log c
    : >"$log"
    for c in $(grep -rhoE 'name *: *MPIR_CVAR_NOTIFY_[A-Z0-9_]+' "$TOP/src" "$TOP/patches" |
               sed 's/.*: *//' | sort -u); do
        grep -q "\`$c\`" "$TOP/doc/guide.md" || echo "not in doc/guide.md: $c" >>"$log"
    done
    if [ -s "$log" ]; then fail "guide_cvars" "a control variable the guide does not list" "$log"
    else pass "guide_cvars (every MPIR_CVAR_NOTIFY_* in the guide)" 0; fi
}

# The sample outputs of the user guide (doc/guide.md's ```text blocks after
# a <!-- sample: COMMAND --> line) are what the installed library prints:
# each COMMAND rerun on 2 processes, its output compared with the sample's,
# numbers masked and lines sorted (test/packaging/guide-samples.sh).  They are the
# ch4:ofi build's output: a ch4:ucx build skips them.
run_guide_samples_check() {
    [[ guide_samples =~ $TESTS ]] || return 0
    case "$DEVICE" in
        ch4:ucx*) skip "guide_samples" "the guide's samples are of ch4:ofi"; return 0 ;;
    esac
    run_checker guide_samples "$OUT/logs/guide_samples.log" \
        bash "$TOP/test/packaging/guide-samples.sh" "$MPICC" "$OUT/guide-samples" "$MPIEXEC"
}
