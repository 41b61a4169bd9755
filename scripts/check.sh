#!/usr/bin/env bash
# The whole test suite from a fresh clone: install build dependencies, build
# the patched MPICH if needed (incrementally otherwise), run `make check`.
# Extra arguments go to ./configure on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
[ -x configure ] || autoreconf -i >/dev/null
[ -f Makefile ] || ./configure "$@"
make check
