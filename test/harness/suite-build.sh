# shellcheck shell=bash
# The unit suite's checks of the build, of the sources and of what make deb
# adds to Debian's packaging (SUITE=unit, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# The build refuses sources it cannot trust, with a message saying why.
run_build_checks() {
    echo "== build script checks =="
    [[ build_source =~ $TESTS ]] || return 0
    local tmp=$OUT/buildcheck log=$OUT/logs/build_source.log
    rm -rf "$tmp"; mkdir -p "$tmp/notmpich"
    echo junk | xz >"$tmp/bogus.tar.xz"
    local what src want
    for what in mismatch missing notmpich; do
        case $what in
            mismatch) src=$tmp/bogus.tar.xz; want="checksum mismatch" ;;
            missing) src=$tmp/nonexistent.tar.xz; want="does not exist" ;;
            notmpich) src=$tmp/notmpich; want="not an MPICH source directory" ;;
        esac
        if TOP="$TOP" BUILD_DIR="$tmp/build" PREFIX="$tmp/install" MPICH_SOURCE="$src" \
            bash "$TOP/scripts/build-mpich.sh" >"$log" 2>&1; then
            fail "build_source $what" "build-mpich.sh accepted a bad source" "$log"
        elif grep -q "$want" "$log"; then
            pass "build_source $what" 0
        else
            fail "build_source $what" "no '$want' message" "$log"
        fi
    done
    # configure runs under dash (build-mpich.sh): a bash-only test in an
    # MPICH configure script is an error there and silently false
    # (patches/fixes/0009-configure-POSIX-in-four-test-expressions.patch)
    local cl bad=0
    : >"$OUT/logs/configure_posix.log"
    for cl in "$BUILD"/logs/configure*.log; do
        [ -f "$cl" ] || continue
        # dash names the script and line: "configure: 1254: test: ..."
        if grep -nE 'configure: [0-9]+: ' "$cl" >>"$OUT/logs/configure_posix.log"; then
            bad=1
        fi
    done
    if [ $bad = 1 ]; then
        fail "configure_posix" "a configure script ran a non-POSIX test" "$OUT/logs/configure_posix.log"
    else
        pass "configure_posix (configure logs)" 0
    fi
    # the installed compiler wrappers call the compilers by name: no build
    # tool (ccache) leaks into what users run
    local w wlog=$OUT/logs/wrappers.log
    : >"$wlog"
    for w in mpicc mpicxx mpifort; do
        [ -x "$PREFIX/bin/$w" ] || continue
        echo "$w: $("$PREFIX/bin/$w" -show 2>&1)" >>"$wlog"
    done
    if grep -q ccache "$wlog" || ! grep -q "^mpicc: gcc " "$wlog"; then
        fail "wrappers" "an installed wrapper does not call the compiler by name" "$wlog"
    else
        pass "wrappers (mpicc -show calls gcc)" 0
    fi
}

# The project's own C (src/, include/, natrace/, natasks/) is in MPICH's
# style: scripts/code-style.sh runs MPICH's indent options over it.
run_code_style_check() {
    [[ code_style =~ $TESTS ]] || return 0
    local log=$OUT/logs/code_style.log
    if ! command -v indent >/dev/null; then
        fail "code_style" "GNU indent missing (scripts/setup-deps.sh installs it)" ""
    elif bash "$TOP/scripts/code-style.sh" >"$log" 2>&1; then
        pass "code_style" 0
    else
        fail "code_style" "$(wc -l <"$log") files differ" "$log"
    fi
}

# What make deb adds to Debian's packaging, without building MPICH
# (test/packaging/deb-overlay.sh): na.mk's rules run in a stand-in tree against the
# installed MPICH, every file they install in a package (libnatrace and the
# natrace launcher, natrace-plot, their man pages among them), mpich's
# python3 dependency.
run_deb_overlay_check() {
    [[ deb_overlay =~ $TESTS ]] || return 0
    if ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
        skip "deb_overlay" "needs make and gcc"
        return
    fi
    run_checker deb_overlay "$OUT/logs/deb_overlay.log" \
        timeout $((120 * SCALE)) bash "$TOP/test/packaging/deb-overlay.sh" "$PREFIX" "$OUT/deb-overlay"
}

# patches/ is the git format-patch series scripts/patch-series.sh writes:
# its own check (numbering, messages, trailers, series), and, with the
# pristine MPICH the build unpacked, a branch made from patches/ written
# back gives the same files.
run_patch_series_check() {
    [[ patch_series =~ $TESTS ]] || return 0
    local log=$OUT/logs/patch_series.log tmp=$OUT/patch-series
    if ! bash "$TOP/scripts/patch-series.sh" check >"$log" 2>&1; then
        fail "patch_series" "not a series" "$log"; return
    fi
    pass "patch_series" 0
    [[ patch_series_roundtrip =~ $TESTS ]] || return 0
    if [ ! -d "$BUILD/mpich-orig/src" ]; then
        skip "patch_series_roundtrip" "no pristine MPICH in $BUILD/mpich-orig"; return
    fi
    rm -rf "$tmp"; mkdir -p "$tmp/top"
    cp -r "$TOP/scripts" "$TOP/patches" "$TOP/src" "$TOP/include" "$tmp/top/"
    if ORIG=$BUILD/mpich-orig bash "$tmp/top/scripts/patch-series.sh" branch "$tmp/git" >>"$log" 2>&1 &&
        bash "$tmp/top/scripts/patch-series.sh" write "$tmp/git" >>"$log" 2>&1 &&
        diff -r "$TOP/patches" "$tmp/top/patches" >>"$log" 2>&1; then
        pass "patch_series_roundtrip" 0
        rm -rf "$tmp"
    else
        fail "patch_series_roundtrip" "patches/ is not what the branch writes" "$log"
    fi
}
