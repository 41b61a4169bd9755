#!/usr/bin/env bash
# The Debian packages as a user gets them (issue 20): install _build/deb/*.deb
# with apt-get, compile the examples with /usr/bin/mpicc (and the Fortran
# test with /usr/bin/mpifort), run them with mpiexec -n 2, check mpichversion
# and a man page for every new call, then remove what was installed and
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
