#!/usr/bin/env bash
# One command on a fresh machine: install the Debian build dependencies, build
# and install the patched MPICH into _install/, compile the paper's ping-pong
# example with the installed mpicc and run it on 2 processes, then run the
# quick benchmarks (ping-pong of every scheme, a small Cholesky) and print
# their summary.
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
"$prefix/bin/mpichversion" | grep -e "MPICH Version" -e "Custom"
echo "== quick benchmarks (bench/run-bench.sh --quick; 'make bench' runs them all) =="
PREFIX="$prefix" bash bench/run-bench.sh --quick
