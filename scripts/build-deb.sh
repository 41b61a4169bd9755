#!/usr/bin/env bash
# make deb: binary packages of Debian's own mpich 4.0.2-3 with Notified Access.
#
#   Debian source package (checksum-verified)
#     + patches/ as quilt patches debian/patches/na-*.patch
#     + src/ and include/ as one quilt patch debian/patches/na-overlay.patch
#     + packaging/debian/ (man pages, libnatasks, natrace, version string):
#       debian/na/, lines appended to debian/*.install and *.manpages,
#       mpich's python3 dependency (packaging/debian/overlay.sh)
#     + a changelog entry 4.0.2-3+na<REV>
#   -> dpkg-buildpackage -B (arch-only; mpich-doc needs LaTeX and is not ours)
#   -> _build/deb/*.deb: libmpich12, libmpich-dev, mpich, as Debian names them.
#
# Settings: NA_DEB_REVISION (default 1), JOBS (default 2), KEEP_TREE=1 to
# reuse an unpacked tree (only for debugging the packaging).
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
NA_VERSION=${NA_VERSION:-0.1.0}
REV=${NA_DEB_REVISION:-1}
JOBS=${JOBS:-2}

DEB_VERSION=4.0.2-3
DL=$BUILD/download
DSC=$DL/mpich_$DEB_VERSION.dsc
# The .dsc lists the checksums of the two tarballs; dpkg-source checks them.
DSC_SHA256=67036921ec09db4da04568546691fe05d3118ac7e4a37020bc7b74a43de36cd0
WORK=$BUILD/deb-build
TREE=$WORK/mpich-4.0.2
OUT=$BUILD/deb
LOG=$BUILD/logs/deb.log
VERSION=$DEB_VERSION+na$REV

T0=$(date +%s)
say() { printf '[deb %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
die() { echo "build-deb: error: $*" >&2; exit 1; }
mkdir -p "$BUILD/logs" "$OUT"

[ "$(id -u)" = 0 ] || die "needs root: it installs mpich's build dependencies with apt-get"
say "build dependencies: scripts/setup-deps.sh --deb (Debian's debian/control)"
bash "$TOP/scripts/setup-deps.sh" --deb >"$BUILD/logs/deb-builddep.log" 2>&1 ||
    { tail -n 30 "$BUILD/logs/deb-builddep.log" >&2; die "could not install the build dependencies"; }

# ---------------------------------------------------------------- source
if [ ! -f "$DSC" ]; then
    say "download: apt-get source --download-only mpich=$DEB_VERSION"
    mkdir -p "$DL"
    (cd "$DL" && apt-get source --download-only "mpich=$DEB_VERSION") >"$BUILD/logs/deb-download.log" 2>&1 ||
        { tail -n 20 "$BUILD/logs/deb-download.log" >&2; die "could not download the source package"; }
fi
[ "$(sha256sum "$DSC" | cut -d' ' -f1)" = "$DSC_SHA256" ] ||
    die "checksum mismatch for $DSC: refusing to build from an unverified source package"

if [ "${KEEP_TREE:-0}" != 1 ] || [ ! -d "$TREE" ]; then
    rm -rf "$WORK"; mkdir -p "$WORK"
    say "unpack: dpkg-source -x (applies Debian's own patches)"
    dpkg-source --require-strong-checksums -x "$DSC" "$TREE" >"$BUILD/logs/deb-unpack.log" 2>&1 ||
        { cat "$BUILD/logs/deb-unpack.log" >&2; die "dpkg-source -x failed"; }

    # ------------------------------------------------------------ quilt patches
    export QUILT_PATCHES=debian/patches QUILT_REFRESH_ARGS="-p ab --no-timestamps --no-index"
    cd "$TREE"
    n=0
    while read -r p _; do
        case "$p" in ''|'#'*) continue ;; esac
        q=na-${p//\//-}     # hooks/0001-x.patch -> na-hooks-0001-x.patch
        cp "$TOP/patches/$p" "debian/patches/$q"
        echo "$q" >>debian/patches/series
        quilt push -q >/dev/null || die "patches/$p does not apply on Debian's tree"
        n=$((n + 1))
    done <"$TOP/patches/series"
    # The overlay, as one patch: include/ lands in MPICH's src/include/.
    quilt new na-overlay.patch >/dev/null
    overlay() {
        local from=$1 to=$2 f
        (cd "$from" && find . -type f ! -name '*~' | sed 's|^\./||' | sort) | while read -r f; do
            quilt add "$to/$f" >/dev/null
            mkdir -p "$(dirname "$to/$f")"
            cp "$from/$f" "$to/$f"
        done
    }
    overlay "$TOP/src" src
    overlay "$TOP/include" src/include
    quilt refresh >/dev/null
    say "patches: $n from patches/ and na-overlay.patch appended to debian/patches/series"

    # ------------------------------------------------------------ packaging
    # debian/na/, what goes in which package, mpich's python3 (the file says)
    # shellcheck source=packaging/debian/overlay.sh
    . "$TOP/packaging/debian/overlay.sh"
    na_debian_overlay "$TOP" "$NA_VERSION"     # set -e: a failure ends the build
    {
        printf 'mpich (%s) bookworm; urgency=medium\n\n' "$VERSION"
        printf '  * Notified Access %s: notified puts, gets and accumulates (the\n' "$NA_VERSION"
        printf '    matching and the counter dialect), patches debian/patches/na-*,\n'
        printf '    man pages of the new calls, libnatasks, natrace (libnatrace, the\n'
        printf '    natrace launcher, natrace-plot and their man page).\n\n'
        printf ' -- Notified Access MPICH <notify-mpich@localhost>  %s\n\n' "$(date -R)"
        cat debian/changelog
    } >debian/changelog.new
    mv debian/changelog.new debian/changelog
fi
cd "$TREE"

# ---------------------------------------------------------------- build

say "dpkg-buildpackage -B $VERSION (log: ${LOG#"$TOP"/}); progress:"
export DEB_BUILD_OPTIONS="nocheck parallel=$JOBS"
# ccache, keyed relative to the tree so a rebuild from a new unpack hits
if [ -d /usr/lib/ccache ]; then export PATH=/usr/lib/ccache:$PATH CCACHE_BASEDIR=$TREE; fi
set +e
dpkg-buildpackage -B -uc -us 2>&1 | tee "$LOG" |
    grep --line-buffered -E '^[[:space:]]+(dh_[a-z_]+|debian/rules [a-z_-]+)|^dpkg-(buildpackage|source|genchanges): info' |
    while IFS= read -r line; do say "  ${line#"${line%%[![:space:]]*}"}"; done
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ]; then
    echo "---- last 40 lines of $LOG ----" >&2; tail -n 40 "$LOG" >&2
    die "dpkg-buildpackage failed (rc $rc)"
fi

rm -f "$OUT"/*.deb
for f in "$WORK"/*_"$VERSION"_*.deb; do mv "$f" "$OUT/"; done
say "packages in ${OUT#"$TOP"/}:"
(cd "$OUT" && ls -1 ./*.deb)
