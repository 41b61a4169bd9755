#!/usr/bin/env bash
# What make deb adds to Debian's packaging (packaging/debian/), run without
# building MPICH: packaging/debian/overlay.sh applied to a stand-in source
# tree whose debian/tmp holds PREFIX's MPICH as Debian installs it
# (usr/include/TRIPLET/mpich, usr/lib/TRIPLET/libmpich.so), then na.mk's
# execute_before_dh_install run there with make, as dpkg-buildpackage runs
# it.  Checked: every line of packaging/debian/append/*.install names a file
# it installed and every file it installed is named by one (dh_missing fails
# a build on any left over), libnatrace and libnatasks among them; every
# line of append/*.manpages names a page, natrace(1) and natrace-plot(1)
# among them (mpich); the launcher preloads /usr/lib/TRIPLET/libnatrace.so.0
# and natrace-plot runs under /usr/bin/python3; debian/control's mpich, and
# only it, depends on python3 and recommends python3-matplotlib.
#
#   test/packaging/deb-overlay.sh PREFIX OUTDIR
#
# Needs make and gcc (with OpenMP, for libnatasks).  Prints PASS/FAIL lines;
# exits 1 if any failed.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 PREFIX OUTDIR" >&2
    exit 2
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
failed=0
pass() { echo "PASS  deb_overlay $1"; }
fail() { echo "FAIL  deb_overlay $1"; failed=1; }

MA=$(gcc -print-multiarch)
T=$OUT/tree
rm -rf "$T"
mkdir -p "$T/debian/tmp/usr/include/$MA/mpich" "$T/debian/tmp/usr/lib/$MA"
# na.mk installs into these directories: they are the tree's own, holding
# copies of MPICH's headers and a link to its library (nothing writes to it)
cp "$PREFIX"/include/mpi*.h "$T/debian/tmp/usr/include/$MA/mpich/"    # MPICH's, as make install puts them
ln -s "$PREFIX/lib/libmpi.so" "$T/debian/tmp/usr/lib/$MA/libmpich.so"
printf '#!/usr/bin/make -f\n' >"$T/debian/rules"
# the binary packages of Debian's mpich 4.0.2-3, their relations as there
cat >"$T/debian/control" <<'EOF'
Source: mpich

Package: libmpich-dev
Depends: libmpich12 (= ${binary:Version}),
         ${misc:Depends},
         ${shlibs:Depends},
         mpich (= ${binary:Version})

Package: libmpich12
Depends: ${misc:Depends},
         ${shlibs:Depends}

Package: mpich
Depends: hwloc-nox | hwloc,
         libmpich12 (= ${binary:Version}),
         ${misc:Depends},
         ${shlibs:Depends}
Recommends: libmpich-dev (= ${binary:Version})
Suggests: mpich-doc (= ${source:Version})

Package: mpich-doc
Depends: ${misc:Depends}
EOF
cd "$T"
# shellcheck source=packaging/debian/overlay.sh
. "$TOP/packaging/debian/overlay.sh"
if ! na_debian_overlay "$TOP" 0.0 >"$OUT/overlay.log" 2>&1; then
    cat "$OUT/overlay.log"
    fail "overlay: packaging/debian/overlay.sh failed"
    exit 1
fi
find debian/tmp \( -type f -o -type l \) | sort >"$OUT/before"
if ! make -f debian/na/na.mk execute_before_dh_install DEB_HOST_MULTIARCH="$MA" CC=gcc \
    >"$OUT/make.log" 2>&1; then
    tail -n 30 "$OUT/make.log"
    fail "na.mk: execute_before_dh_install failed"
    exit 1
fi
pass "na.mk: execute_before_dh_install"

# what dh_install would take: each line's glob under debian/tmp
find debian/tmp \( -type f -o -type l \) | sort | comm -13 "$OUT/before" - >"$OUT/installed"
: >"$OUT/claimed"
bad=()
for f in "$TOP"/packaging/debian/append/*.install; do
    while read -r pat; do
        [ -n "$pat" ] || continue
        # shellcheck disable=SC2086 # the line is a glob
        if ! compgen -G "debian/tmp/$pat" >>"$OUT/claimed"; then bad+=("${f##*/}: $pat"); fi
    done <"$f"
done
if [ ${#bad[@]} = 0 ]; then pass "every *.install line names a file"; else
    fail "*.install lines naming nothing: ${bad[*]}"; fi
left=$(sort -u "$OUT/claimed" | comm -23 "$OUT/installed" -)
if [ -z "$left" ]; then pass "every file installed is in a package ($(wc -l <"$OUT/installed") files)"
else fail "installed, in no package (dh_missing): $left"; fi
for f in "libmpich12.install:libnatrace.so.0" "libmpich-dev.install:libnatrace.so" \
    "mpich.install:usr/bin/natrace" "mpich.install:usr/bin/natrace-plot" \
    "libmpich12.install:libnatasks.so.0" "libmpich-dev.install:na_tasks.h"; do
    pkgfile=${f%%:*} want=${f#*:}
    found=0
    while read -r pat; do
        # shellcheck disable=SC2086
        compgen -G "debian/tmp/$pat" | grep -q "/$want\$" && found=1
    done <"$TOP/packaging/debian/append/$pkgfile"
    if [ $found = 1 ]; then pass "${pkgfile%.install} ships $want"; else fail "${pkgfile%.install} does not ship $want"; fi
done

bad=()
: >"$OUT/pages"
for f in "$TOP"/packaging/debian/append/*.manpages; do
    while read -r pat; do
        [ -n "$pat" ] || continue
        # shellcheck disable=SC2086
        if ! compgen -G "$pat" | sed "s|^|${f##*/}: |" >>"$OUT/pages"; then bad+=("${f##*/}: $pat"); fi
    done <"$f"
done
if [ ${#bad[@]} = 0 ] && grep -qx "mpich.manpages: debian/na/man/man1/natrace.1" "$OUT/pages" &&
    grep -qx "mpich.manpages: debian/na/man/man1/natrace-plot.1" "$OUT/pages" &&
    grep -qx "libmpich-dev.manpages: debian/na/man/man3/MPI_Put_notify.3" "$OUT/pages"; then
    pass "man pages: natrace(1), natrace-plot(1) in mpich, the calls' in libmpich-dev"
else
    cat "$OUT/pages"
    fail "man pages: a *.manpages line naming nothing (${bad[*]}), or natrace(1), natrace-plot(1) or MPI_Put_notify(3) missing"
fi

lib=/usr/lib/$MA/libnatrace.so.0
if grep -qx "INSTALLED_LIB='$lib'" debian/tmp/usr/bin/natrace &&
    [ "$(head -n 1 debian/tmp/usr/bin/natrace-plot)" = "#!/usr/bin/python3" ] &&
    [ -x debian/tmp/usr/bin/natrace ] && [ -x debian/tmp/usr/bin/natrace-plot ]; then
    pass "natrace preloads $lib, natrace-plot runs under /usr/bin/python3"
else
    fail "natrace does not name $lib, or natrace-plot is not a /usr/bin/python3 script"
fi

stanza=$(sed -n '/^Package: mpich$/,/^$/p' debian/control)
# shellcheck disable=SC2016 # a literal ${binary:Version}
if grep -q '^Depends: python3, hwloc-nox | hwloc,$' <<<"$stanza" &&
    grep -qF 'Recommends: libmpich-dev (= ${binary:Version}), python3-matplotlib' <<<"$stanza" &&
    [ "$(grep -c python3 debian/control)" = 2 ]; then
    pass "control: mpich depends on python3, recommends python3-matplotlib"
else
    cat debian/control
    fail "control: not (only) mpich's relations extended with python3, python3-matplotlib"
fi
exit $failed
