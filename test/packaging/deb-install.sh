#!/usr/bin/env bash
# The Debian packages as a user gets them (issue 20): install _build/deb/*.deb
# with apt-get, compile the examples with /usr/bin/mpicc (and the Fortran
# test with /usr/bin/mpifort), run them with mpiexec -n 2, check mpichversion
# and a man page for every new call, trace a program with natrace (the
# launcher, -lnatrace, Fortran through mpi_f08) and draw it with
# natrace-plot, check their man pages, then remove what was installed and
# check that the machine's package set is back to what it was.
#
#   test/packaging/deb-install.sh    (root; after make deb)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DEBS=$TOP/_build/deb
WORK=$(mktemp -d)
PKGS=(libmpich12 libmpich-dev mpich)
pass=0 fail=0
ok() { echo "PASS  $*"; pass=$((pass + 1)); }
skip() { echo "SKIP  $*"; }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@" >"$WORK/out" 2>&1; then ok "$what"; else bad "$what"; sed 's/^/      /' "$WORK/out" | tail -n 20; fi; }

[ "$(id -u)" = 0 ] || { echo "deb-install: needs root (apt-get install)" >&2; exit 1; }
debs=()
for p in "${PKGS[@]}"; do
    f=$(ls "$DEBS"/"${p}"_*.deb 2>/dev/null | head -n 1)
    [ -n "$f" ] || { echo "deb-install: no $p package in ${DEBS#$TOP/}: run make deb" >&2; exit 1; }
    debs+=("$f")
done

installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}=${Version}\n' | awk '$1 == "ii" {print $2}' | sort; }
installed >"$WORK/before"
export DEBIAN_FRONTEND=noninteractive

restore() {
    # remove ours and everything the install pulled in, then put back any
    # version of these packages that was there before
    installed >"$WORK/after-install"
    local new; new=$(comm -13 <(sed 's/=.*//' "$WORK/before") <(sed 's/=.*//' "$WORK/after-install"))
    # shellcheck disable=SC2086
    [ -z "$new" ] || apt-get purge -y -qq $new >"$WORK/remove.log" 2>&1 || cat "$WORK/remove.log"
    local old; old=$(grep -E "^($(IFS='|'; echo "${PKGS[*]}")):" "$WORK/before" || true)
    # shellcheck disable=SC2086
    [ -z "$old" ] || apt-get install -y -qq --allow-downgrades $(sed 's/:[a-z0-9]*=/=/' <<<"$old") >/dev/null 2>&1 || true
    installed >"$WORK/after"
    if cmp -s "$WORK/before" "$WORK/after"; then ok "apt-get remove restores the package set"
    else bad "apt-get remove restores the package set"; diff "$WORK/before" "$WORK/after" | head -n 20; fi
    rm -rf "$WORK"
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ]
}
trap 'restore; exit $?' EXIT

check "apt-get install ${debs[*]##*/}" apt-get install -y -qq "${debs[@]}"
check "mpicc is /usr/bin/mpicc" test "$(command -v mpicc)" = /usr/bin/mpicc
check "mpichversion names Notified Access" bash -c "mpichversion | grep 'Notified Access'"
for ex in pingpong_notify counter_notify; do
    check "mpicc examples/$ex.c" mpicc -o "$WORK/$ex" "$TOP/examples/$ex.c"
    check "mpiexec -n 2 $ex" timeout 120 mpiexec -n 2 "$WORK/$ex"
done
# every call a page documents (its Synopsis), by name
calls=$(sed -n '/^## Synopsis/,/^## /s/^int \([A-Za-z_]*\)(.*/\1/p' "$TOP"/doc/man/*.md | sort -u)
missing=()
for c in $calls; do man -w "$c" >/dev/null 2>&1 || missing+=("$c"); done
check "man page for each of the $(wc -w <<<"$calls") calls" test ${#missing[@]} = 0 -a -n "$calls"
[ ${#missing[@]} = 0 ] || echo "      no page: ${missing[*]}"
check "man MPI_Put_notify renders" bash -c "MANPAGER=cat man MPI_Put_notify | grep -q MPI_Put_notify"
check "libnatasks: mpicc -fopenmp ... -lnatasks" mpicc -fopenmp -o "$WORK/na" -x c - -lnatasks <<'EOF'
#include <na_tasks.h>
int main(void) { return NA_Tasks_pending() < 0; }
EOF
if command -v mpifort >/dev/null; then
    check "mpifort test/fortran/notify_f08.f90 (use mpi_f08)" \
        mpifort -o "$WORK/notify_f08" "$TOP/test/fortran/notify_f08.f90"
    check "mpiexec -n 2 notify_f08" bash -c "timeout 120 mpiexec -n 2 '$WORK/notify_f08' | grep -q 'No Errors'"
fi

# natrace: the launcher and natrace-plot in mpich, libnatrace.so.0 in
# libmpich12 (the .so, for -lnatrace, in libmpich-dev), natrace(1) and
# natrace-plot(1) in mpich
natrace_lib() {     # the library /usr/bin/natrace preloads is libmpich12's
    local lib
    lib=$(sed -n "s/^INSTALLED_LIB='\(.*\)'\$/\1/p" /usr/bin/natrace)
    echo "natrace preloads '$lib'"
    [ -f "$lib" ] && dpkg -S "$lib" | grep -q '^libmpich12:'
}
traced() {          # traced DIR PROGRAM ARGS...: a trace per rank, as natrace_check.py wants
    local dir=$1; shift
    rm -rf "$dir"
    (cd "$WORK" && timeout 120 mpiexec -n 2 natrace -d "$dir" "$@") &&
        python3 "$TOP/test/tools/natrace_check.py" --ranks 2 --expect "* notify_arrival == 140" "$dir"
}
man_in_1() { man -w "$1" | grep -q "/man1/$1\.1"; }
check "natrace and natrace-plot in mpich" bash -c "dpkg -S /usr/bin/natrace /usr/bin/natrace-plot | grep -c '^mpich:' | grep -qx 2"
check "natrace preloads libmpich12's libnatrace.so.0" natrace_lib
check "mpiexec -n 2 natrace pingpong_notify: traces" traced "$WORK/trace" ./pingpong_notify 64 10
check "mpicc ... -lnatrace: traces" bash -c "mpicc -o '$WORK/linked' '$TOP/examples/pingpong_notify.c' -lnatrace &&
    cd '$WORK' && NATRACE_DIR='$WORK/linked-trace' timeout 120 mpiexec -n 2 ./linked 64 10 &&
    python3 '$TOP/test/tools/natrace_check.py' --ranks 2 --expect '* notify_arrival == 140' '$WORK/linked-trace'"
check "natrace-plot --merge" natrace-plot --merge "$WORK/all.json" "$WORK/trace"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    check "natrace-plot -o trace.png" bash -c "natrace-plot -o '$WORK/trace.png' '$WORK/trace' && test -s '$WORK/trace.png'"
else
    skip "natrace-plot -o trace.png: python3-matplotlib (recommended by mpich) is not installed"
fi
check "man natrace, man natrace-plot: section 1" bash -c "$(declare -f man_in_1); man_in_1 natrace && man_in_1 natrace-plot"
check "man natrace renders" bash -c "MANPAGER=cat man natrace | grep -q 'natrace-plot'"
if command -v mpifort >/dev/null; then
    check "mpiexec -n 2 natrace natrace_prog (use mpi_f08): traces" bash -c "
        mpifort -o '$WORK/natrace_prog_f08' '$TOP/test/tools/natrace_prog.F90' && rm -rf '$WORK/f08-trace' &&
        cd '$WORK' && timeout 120 mpiexec -n 2 natrace -d f08-trace ./natrace_prog_f08 &&
        python3 '$TOP/test/tools/natrace_check.py' --prog natrace_prog '$WORK/f08-trace'"
fi
