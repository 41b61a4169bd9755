#!/usr/bin/env bash
# Build sim/_build/replay, the SMPI replay of sim/trace-format.md traces.
# smpicxx (Debian's libsimgrid-dev 3.32) links it as the shared object that
# smpirun loads; a plain g++ executable is refused by smpimain.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p _build
if [ _build/replay -nt replay.cpp ] && [ "${1:-}" != -f ]; then
    exit 0
fi
smpicxx -std=c++17 -O2 -Wall -Wextra -o _build/replay replay.cpp
echo "built sim/_build/replay"
