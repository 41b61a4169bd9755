#!/usr/bin/env bash
# One command on a fresh machine: install the Debian build dependencies, build
# and install the patched MPICH into _install/, then compile a Notified Access
# program with the installed mpicc and run it on 2 processes.
# Arguments go to ./configure (e.g. --prefix=DIR, --with-device=ch4:ucx).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
[ -x configure ] || autoreconf -i >/dev/null
./configure "$@"
make
prefix=$(sed -n 's/^prefix = //p' Makefile)
mkdir -p _build/demo
echo "== demo: the ping-pong of the Notified Access paper (Listing 1), 2 processes =="
"$prefix/bin/mpicc" -O2 -o _build/demo/pingpong_notify examples/pingpong_notify.c
FI_PROVIDER="tcp;ofi_rxm" "$prefix/bin/mpiexec" -n 2 _build/demo/pingpong_notify 65536 200
"$prefix/bin/mpichversion" | grep -i -e version -e notified
