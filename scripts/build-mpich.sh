#!/usr/bin/env bash
# Build the patched MPICH: fetch -> verify -> unpack -> patch+overlay -> autogen
# -> configure -> make -> install.  Every stage is incremental:
#   * the MPICH work tree is only written where a file's content changes, so
#     make recompiles just what an edit in src/, include/ or patches/ affects;
#   * autogen reruns only when a generator input changes (build files, binding
#     *_api.txt, CVAR blocks, the set of overlaid files);
#   * configure reruns only when autogen ran or the configure arguments changed.
# Settings come from the environment (written by the top-level configure into
# _build/config.env, see Makefile.am).
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
PREFIX=${PREFIX:-$TOP/_install}
DEVICE=${MPICH_DEVICE:-ch4:ofi}
MPICH_SOURCE=${MPICH_SOURCE:-}
EXTRA_CONFIGURE=${MPICH_EXTRA_CONFIGURE:-}
# The main build is a whole MPICH: Fortran (mpif.h, use mpi, use mpi_f08),
# C++ and ROMIO.  MPICH_LEAN=1 leaves the three out (a faster build for a
# test loop that does not need them); so do the ucx, asan and stock-ucx
# variants, which test the notified paths of C programs.
LEAN=${MPICH_LEAN:-}
NA_VERSION=${NA_VERSION:-0.1.0}
# A variant (ucx, asan) builds the same source tree into its own object
# directory and prefix, so the main build stays incremental beside it.
# The "stock" variants (stock; stock-ucx with MPICH_DEVICE=ch4:ucx) build
# the pristine source, without patches/ or the overlay, with the same
# configure options (16-bit context ids, as Debian's): the baseline that
# standard MPI calls must not get slower than (bench/stock-instr.sh,
# bench/idle-bench.sh).
VARIANT=${NA_VARIANT:-}
JOBS=${JOBS:-$(nproc)}

MPICH_VERSION=4.0.2
DEB_VERSION=4.0.2-3
TARBALL_NAME=mpich_${MPICH_VERSION}.orig.tar.xz
TARBALL_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860

LOGS=$BUILD/logs
ORIG=$BUILD/mpich-orig      # pristine unpacked upstream source, never modified
SRC=$BUILD/mpich-src        # patched + overlaid source that autogen/make see
is_stock() { case "$VARIANT" in stock | stock-*) return 0 ;; esac; return 1; }
is_stock && SRC=$ORIG
OBJ=$BUILD/mpich-obj${VARIANT:+-$VARIANT}   # out-of-tree MPICH build directory
STAMPS=$BUILD/stamps
mkdir -p "$LOGS" "$STAMPS"

# ccache keys an object by its command line and its inputs' contents.  With
# the base directory set, the absolute paths of this tree become relative to
# the compiler's working directory, and with the directory left out of the
# hash (-g puts it in otherwise), a fresh clone elsewhere (CI's) hits the
# objects an earlier build of the same sources left.
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=true
# ccache through its directory of compiler names, not CC="ccache gcc": MPICH
# writes configure's CC into the installed mpicc, which must call gcc
# wherever a user runs it
if command -v ccache >/dev/null && [ -d /usr/lib/ccache ]; then
    export PATH=/usr/lib/ccache:$PATH
fi

T0=$(date +%s)
say() { printf '[build %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
die() { echo "build-mpich: error: $*" >&2; exit 1; }

# run STAGE CMD...: log the whole output to $LOGS/STAGE.log, print its tail on failure.
run() {
    local stage=$1; shift
    local log=$LOGS/$stage.log start=$(date +%s)
    say "$stage: started (log: ${log#$TOP/})"
    if ! "$@" >"$log" 2>&1; then
        echo "---- last 40 lines of ${log#$TOP/} ----" >&2
        tail -n 40 "$log" >&2
        die "stage '$stage' failed after $(( $(date +%s) - start ))s; full log: $log"
    fi
    say "$stage: done in $(( $(date +%s) - start ))s"
}

# ---------------------------------------------------------------- source
fetch_tarball() {
    local dl=$BUILD/download
    if [ -n "$MPICH_SOURCE" ]; then
        [ -e "$MPICH_SOURCE" ] || die "--with-mpich-source=$MPICH_SOURCE does not exist"
        if [ -d "$MPICH_SOURCE" ]; then
            [ -f "$MPICH_SOURCE/configure.ac" ] && [ -f "$MPICH_SOURCE/maint/version.m4" ] ||
                die "$MPICH_SOURCE is not an MPICH source directory (no configure.ac / maint/version.m4)"
            grep -q "MPICH_VERSION_m4],\[$MPICH_VERSION\]" "$MPICH_SOURCE/maint/version.m4" ||
                die "$MPICH_SOURCE is not MPICH $MPICH_VERSION (see its maint/version.m4)"
            SOURCE_KIND=dir; SOURCE_PATH=$(cd "$MPICH_SOURCE" && pwd)
            return
        fi
        SOURCE_KIND=tarball; SOURCE_PATH=$(cd "$(dirname "$MPICH_SOURCE")" && pwd)/$(basename "$MPICH_SOURCE")
    else
        SOURCE_KIND=tarball; SOURCE_PATH=$dl/$TARBALL_NAME
        if [ ! -f "$SOURCE_PATH" ]; then
            mkdir -p "$dl"
            command -v apt-get >/dev/null || die "apt-get not found: pass --with-mpich-source=TARBALL"
            say "download: apt-get source --download-only mpich=$DEB_VERSION"
            (cd "$dl" && apt-get source --download-only "mpich=$DEB_VERSION") >"$LOGS/download.log" 2>&1 ||
                tail -n 20 "$LOGS/download.log" >&2
            [ -f "$SOURCE_PATH" ] || die "could not obtain Debian source package mpich=$DEB_VERSION;" \
                "is a deb-src line for bookworm main configured? (scripts/setup-deps.sh adds one)" \
                "or pass --with-mpich-source=TARBALL|DIR"
        fi
    fi
    local sum
    sum=$(sha256sum "$SOURCE_PATH" | cut -d' ' -f1)
    if [ "$sum" != "$TARBALL_SHA256" ]; then
        die "checksum mismatch for $SOURCE_PATH:
    expected sha256 $TARBALL_SHA256
    got      sha256 $sum
refusing to build from an unverified MPICH source"
    fi
    say "source: $SOURCE_PATH (sha256 verified)"
}

unpack() {
    local id
    if [ "$SOURCE_KIND" = dir ]; then id="dir:$SOURCE_PATH"; else id="sha256:$TARBALL_SHA256"; fi
    if [ -f "$STAMPS/unpack" ] && [ "$(cat "$STAMPS/unpack")" = "$id" ] && [ -d "$ORIG" ]; then
        return
    fi
    rm -rf "$ORIG" "$SRC" "$BUILD"/mpich-obj* "$STAMPS"/*
    mkdir -p "$ORIG"
    if [ "$SOURCE_KIND" = dir ]; then
        run unpack cp -a "$SOURCE_PATH/." "$ORIG/"
    else
        run unpack tar -xJf "$SOURCE_PATH" -C "$ORIG" --strip-components=1
    fi
    echo "$id" >"$STAMPS/unpack"
}

# ---------------------------------------------------------------- patch + overlay
# Builds the wanted content of every file that patches/ or the overlay touch into
# a scratch tree, then copies into $SRC only files whose content differs.  Files
# touched by an earlier build but no longer by now are restored from $ORIG.
sync_tree() {
    local stage=$BUILD/stage
    rm -rf "$stage"; mkdir -p "$stage"
    [ -d "$SRC" ] || { run copy-tree cp -a "$ORIG" "$SRC"; }

    # 1. patched files: start from pristine copies of every file the series touches.
    local series=$TOP/patches/series patched=()
    if [ -f "$series" ]; then
        local p
        while read -r p _; do
            case "$p" in ''|'#'*) continue ;; esac
            [ -f "$TOP/patches/$p" ] || die "patches/series lists '$p' but patches/$p does not exist"
            while read -r f; do patched+=("$f"); done < <(
                sed -n 's/^+++ b\/\([^\t ]*\).*/\1/p; s/^--- a\/\([^\t ]*\).*/\1/p' "$TOP/patches/$p" | sort -u)
        done <"$series"
        for f in $(printf '%s\n' "${patched[@]}" | sort -u); do
            if [ -f "$ORIG/$f" ]; then mkdir -p "$stage/$(dirname "$f")"; cp -p "$ORIG/$f" "$stage/$f"; fi
        done
        while read -r p _; do
            case "$p" in ''|'#'*) continue ;; esac
            if ! patch -p1 -d "$stage" --no-backup-if-mismatch -f -s <"$TOP/patches/$p" >"$LOGS/patch.log" 2>&1; then
                cat "$LOGS/patch.log" >&2
                die "patch patches/$p does not apply to MPICH $MPICH_VERSION (see above)"
            fi
        done <"$series"
    fi

    # 2. overlay: our src/ and include/ (include/ -> MPICH src/include/).
    if [ -d "$TOP/src" ]; then (cd "$TOP/src" && find . -type f ! -name '*~' -print0 |
        while IFS= read -r -d '' f; do mkdir -p "$stage/src/$(dirname "$f")"; cp -p "$f" "$stage/src/$f"; done); fi
    if [ -d "$TOP/include" ]; then (cd "$TOP/include" && find . -type f ! -name '*~' -print0 |
        while IFS= read -r -d '' f; do mkdir -p "$stage/src/include/$(dirname "$f")"; cp -p "$f" "$stage/src/include/$f"; done); fi

    # 3. copy what differs; restore what we no longer touch.
    local now=$BUILD/touched.now before=$STAMPS/touched changed=0
    (cd "$stage" && find . -type f | sed 's|^\./||' | sort) >"$now"
    while read -r f; do
        if ! cmp -s "$stage/$f" "$SRC/$f"; then
            mkdir -p "$SRC/$(dirname "$f")"; cp "$stage/$f" "$SRC/$f"; changed=$((changed + 1))
        fi
    done <"$now"
    if [ -f "$before" ]; then
        comm -23 "$before" "$now" | while read -r f; do
            if [ -f "$ORIG/$f" ]; then cp -p "$ORIG/$f" "$SRC/$f"; else rm -f "$SRC/$f"; fi
        done
    fi
    mv "$now" "$before"
    say "sync: $(wc -l <"$before") patched/overlaid files, $changed changed"
}

# Everything autogen derives from: build system files, binding descriptions, CVAR
# blocks, ch4 API tables and the set of files that exist.
generator_fingerprint() {
    {
        cat "$STAMPS/touched"
        while read -r f; do
            case "$f" in
                *.mk|*.am|*.ac|*.m4|*_api.txt|*/errnames.txt|*/baseerrnames.txt|*.in|src/mpid/ch4/ch4_api.txt|maint/*)
                    cat "$SRC/$f" ;;
                *.c|*.h)
                    sed -n '/BEGIN_MPI_T_CVAR_INFO_BLOCK/,/END_MPI_T_CVAR_INFO_BLOCK/p' "$SRC/$f" ;;
            esac
        done <"$STAMPS/touched"
    } | sha256sum | cut -d' ' -f1
}

autogen() {
    local fp; fp=$(generator_fingerprint)
    if [ -f "$STAMPS/autogen" ] && [ "$(cat "$STAMPS/autogen")" = "$fp" ]; then return; fi
    # Perl and Python order their hashes at random per run: without fixed
    # seeds, MPICH's generators write configure, the Makefile.in files and
    # mpichconf.h.in (which every object includes) in a new order each
    # time, and no object of a new autogen is a direct-mode ccache hit
    run autogen env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 PYTHONHASHSEED=0 \
        bash -c "cd '$SRC' && ./autogen.sh -quick"
    echo "$fp" >"$STAMPS/autogen"
}

# The CVAR generator writes into mpir_cvars.h, which every MPICH file
# includes, the absolute paths of its inputs and the time it ran, both in
# comments: left there, no object is a direct-mode ccache hit after a new
# autogen or in another tree.  Rewritten only while present, so the
# header's time stamp moves only when autogen wrote it anew.
reproducible_cvar_files() {
    local f
    for f in "$SRC/src/include/mpir_cvars.h" "$SRC/src/util/mpir_cvars.c"; do
        if grep -qE "$SRC/|^ \*   (on|at):   [A-Z]" "$f"; then
            sed -i -e "s|$SRC/||g" -e 's/^\( \*   \(on\|at\):   \)[A-Z].*/\1(left out, see build-mpich.sh)/' "$f"
        fi
    done
}

configure_mpich() {
    local cc=gcc version="Notified Access $NA_VERSION"
    is_stock && version="stock, for comparison"
    local args=(--prefix="$PREFIX" --with-device="$DEVICE"
        --with-hwloc=/usr --with-datatype-engine=dataloop --disable-static --enable-fast=O2
        "--with-custom-version-string=$version")
    case "${LEAN:-0}:$VARIANT" in
        1:* | 0:ucx | 0:asan | 0:stock-ucx) args+=(--disable-fortran --disable-cxx --disable-romio) ;;
        # gfortran 10 and later reject MPICH's mpif.h interfaces without the
        # flag (Debian's package passes it too)
        *) args+=(--enable-fortran=all --enable-cxx --enable-romio
                FFLAGS=-fallow-argument-mismatch FCFLAGS=-fallow-argument-mismatch) ;;
    esac
    case "$DEVICE" in
        ch4:ofi*) args+=(--with-libfabric=/usr) ;;
        ch4:ucx*) args+=(--with-ucx=/usr) ;;
    esac
    # 20-bit context ids: every window holds a communicator of its own, and
    # 16 bits stop a process at 2,045 of them (doc/design.md, "How many
    # windows").  ch4:ofi's match bits already carry 20; ch4:ucx's tag has 16.
    case "$VARIANT:$DEVICE" in
        stock*:*) ;;
        *:ch4:ofi*) args+=(--enable-extended-context-bits) ;;
    esac
    # MPI_T events (the notify_* events of src/mpi/notify/notify_events.c);
    # hook 0016 makes every event one load while no tool listens
    is_stock || args+=(--enable-mpit-events)
    # MPICH's own test suite (test/mpi and its dtpools, each configured by a
    # configure of its own) runs on the main build only
    # (test/harness/mpich-regression.txt); --no-recursion skips the two for variants
    case "$VARIANT" in
        ucx | asan) args+=(--no-recursion) ;;
    esac
    case "$VARIANT" in
        # the library only: test programs and mpiexec link the runtime themselves
        asan) args+=("MPICHLIB_CFLAGS=-fsanitize=address,undefined -fno-omit-frame-pointer -g"
                "MPICHLIB_LDFLAGS=-fsanitize=address,undefined") ;;
    esac
    # shellcheck disable=SC2206
    [ -n "$EXTRA_CONFIGURE" ] && args+=($EXTRA_CONFIGURE)
    # configure, and the Makefiles it writes (so libtool, once per object),
    # run under dash: configure takes a quarter less time than under bash,
    # and libtool a third less (doc/developing.md, "Where CI's time goes").
    # patches/fixes/0009 makes MPICH's configure tests POSIX; the stock
    # variants keep bash, as they keep MPICH unpatched.
    local shell=/bin/bash
    if ! is_stock && [ -x /bin/dash ]; then shell=/bin/dash; fi
    local id; id=$(printf '%s\n' "$cc" "$shell" "${args[@]}" | sha256sum | cut -d' ' -f1)
    local stamp=$STAMPS/configure${VARIANT:+-$VARIANT}
    # configure reruns when its arguments change or autogen has run since
    local want; want="$id $(is_stock || cat "$STAMPS/autogen")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$OBJ/Makefile" ]; then
        return
    fi
    # New arguments need a clean build directory; a rerun after autogen does not.
    if [ ! -f "$stamp.args" ] || [ "$(cat "$stamp.args")" != "$id" ]; then
        rm -rf "$OBJ"
    fi
    mkdir -p "$OBJ"
    configure_cached "$(configure_key "$cc" "$shell" "${args[@]}")" \
        bash -c "cd '$OBJ' && CONFIG_SHELL=$shell $shell '$SRC/configure' $(printf '%q ' "${args[@]}") CC='$cc'"
    echo "$want" >"$stamp"
    echo "$id" >"$stamp.args"
}

# A configured build directory is kept, before make, in a cache of the
# machine (like ccache's objects), keyed by everything configure reads: the
# configure scripts and templates autogen wrote (the same bytes for the same
# inputs, autogen's seeds fixed), the generators under maint/ that configure
# runs and what they read (the Fortran bindings from src/binding's API
# descriptions), MPL's headers that its checks include,
# the arguments, the shell, the paths (written into every Makefile), the
# compiler-related environment and the installed packages with their
# versions.  A fresh clone at a path that configured the same MPICH before
# (CI's) unpacks it in seconds instead of 4 to 7 minutes of configure.
# NA_CONFIGURE_CACHE=off turns it off; another value moves it.
CONFIGURE_CACHE=${NA_CONFIGURE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/na-mpich-configure}
configure_key() {
    {
        echo "na-mpich-configure 1"
        printf '%s\n' "$OBJ" "$SRC" "$PREFIX" "$@"
        (cd "$SRC" && find . -path '*/autom4te.cache' -prune -o -type f \( -name configure \
            -o -name '*.in' -o -name config.guess -o -name config.sub -o -name install-sh \
            -o -name missing -o -name depcomp -o -name compile -o -name ltmain.sh \
            -o -name test-driver -o -name ar-lib -o -path './src/mpl/include/*' \
            -o -path './maint/*.py' -o -path './src/binding/*api.txt' \) -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum)
        local v
        for v in PATH PKG_CONFIG_PATH LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH \
            CC CXX FC F77 CFLAGS CPPFLAGS CXXFLAGS FFLAGS FCFLAGS LDFLAGS LIBS; do
            echo "$v=${!v-}"
        done
        dpkg-query -W -f '${Package} ${Version} ${Status}\n' 2>/dev/null || true
        ls -lR --time-style=+%s /usr/local/include /usr/local/lib 2>/dev/null || true
        uname -m
    } | sha256sum | cut -d' ' -f1
}

# configure_cached KEY CMD...: unpack the cached configured directory of
# KEY into $OBJ, or run CMD (configure) and keep what it wrote
configure_cached() {
    local key=$1; shift
    local entry=$CONFIGURE_CACHE/$key.tar.gz stage=configure${VARIANT:+-$VARIANT} empty=0
    [ -z "$(ls -A "$OBJ")" ] && empty=1
    if [ "$CONFIGURE_CACHE" != off ] && [ -f "$entry" ] && [ $empty = 1 ] &&
        tar -xzf "$entry" -C "$OBJ"; then
        # newer than the configure and Makefile.in files autogen just wrote,
        # or make would run configure again
        find "$OBJ" -exec touch {} +
        touch "$entry"
        # the log of the configure that wrote it (the build checks read it)
        cp "${entry%.tar.gz}.log" "$LOGS/$stage.log" 2>/dev/null || true
        say "$stage: unpacked from the configure cache (${entry#$HOME/})"
        return
    fi
    run "$stage" "$@"
    # only a directory that holds nothing but what configure wrote
    if [ "$CONFIGURE_CACHE" != off ] && [ $empty = 1 ] && mkdir -p "$CONFIGURE_CACHE"; then
        cp "$LOGS/$stage.log" "${entry%.tar.gz}.log"
        tar -czf "$entry.tmp" -C "$OBJ" . && mv "$entry.tmp" "$entry"
        # the sixteen most recently used entries stay (a hit touches its
        # entry): three variants for each of a few clone paths
        local old
        for old in $(ls -1t "$CONFIGURE_CACHE"/*.tar.gz | tail -n +17); do
            rm -f "$old" "${old%.tar.gz}.log"
        done
    fi
}

make_install() {
    local stamp=$STAMPS/install${VARIANT:+-$VARIANT}
    run make${VARIANT:+-$VARIANT} make -C "$OBJ" -j"$JOBS"
    # `make check` runs this script a second time: installing again what did
    # not change costs 25 s
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PREFIX" ] && [ -x "$PREFIX/bin/mpicc" ] &&
        [ -z "$(find "$SRC" "$OBJ" -newer "$stamp" -type f -print -quit)" ]; then
        say "install${VARIANT:+-$VARIANT}: nothing changed since the last install"
    else
        run install${VARIANT:+-$VARIANT} make -C "$OBJ" install
        echo "$PREFIX" >"$stamp"
    fi
    [ -x "$PREFIX/bin/mpicc" ] || die "install finished but $PREFIX/bin/mpicc is missing"
}

# libnatasks (natasks/): OpenMP tasks bound to requests, built with the
# installed mpicc, so that "mpicc -fopenmp app.c -lnatasks" finds it
install_natasks() {
    run natasks${VARIANT:+-$VARIANT} "$PREFIX/bin/mpicc" -std=c11 -O2 -g -Wall -Wextra -Werror \
        -fopenmp -fPIC -shared -Wl,-soname,libnatasks.so.0 \
        -o "$PREFIX/lib/libnatasks.so.0" "$TOP/natasks/na_tasks.c"
    ln -sf libnatasks.so.0 "$PREFIX/lib/libnatasks.so"
    install -m 644 "$TOP/natasks/na_tasks.h" "$PREFIX/include/na_tasks.h"
}

fetch_tarball
unpack
if ! is_stock; then
    sync_tree
    autogen
    reproducible_cvar_files
fi
configure_mpich
make_install
if ! is_stock; then
    # man pages of the new calls and of natrace, from their one source (doc/man/*.md)
    python3 "$TOP/scripts/md2man.py" "$PREFIX/share/man" "$TOP"/doc/man/*.md ||
        die "man pages: scripts/md2man.py failed"
    install_natasks
    # natrace: the MPI_T-event tracer, its launcher and natrace-plot (doc/man/natrace.md)
    run natrace${VARIANT:+-$VARIANT} bash "$TOP/scripts/build-natrace.sh" "$PREFIX"
fi
if is_stock; then
    say "stock MPICH $MPICH_VERSION ($DEVICE) installed in $PREFIX"
else
    say "patched MPICH $MPICH_VERSION ($DEVICE) with Notified Access $NA_VERSION installed in $PREFIX"
fi
