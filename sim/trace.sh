#!/usr/bin/env bash
# Record an MPI program as a time-independent trace (sim/trace-format.md), or
# only time its region:
#
#   sim/trace.sh [--time] DIR -n N PROGRAM ARGS...
#
# Runs PROGRAM on N processes of the installed MPICH (PREFIX, default
# _install) with sim/natitrace.c preloaded (built into sim/_build on first
# use); writes DIR/index, DIR/rank-R.ti and DIR/meta, or with --time only
# DIR/measured (the region's wall time at rank 0, untraced).  With more
# processes than cores, blocking calls yield the core (NATI_YIELD=1; set
# NATI_YIELD=0 or 1 to choose).  FI_PROVIDER
# defaults to "tcp;ofi_rxm"; MPIEXEC_TIMEOUT (default 300 s) bounds the run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}
mode=trace
if [ "${1:-}" = --time ]; then mode=time; shift; fi
[ $# -ge 4 ] && [ "$2" = -n ] || { echo "usage: $0 [--time] DIR -n N PROGRAM ARGS..." >&2; exit 2; }
dir=$1 np=$3
shift 3
lib=$HERE/_build/libnatitrace.so
if [ ! -e "$lib" ] || [ -n "$(find "$HERE" -maxdepth 1 -name "natitrace*" -newer "$lib")" ] || [ "$lib" -ot "$PREFIX/lib/libmpi.so" ]; then
    mkdir -p "$HERE/_build"
    "$PREFIX/bin/mpicc" -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -o "$lib" "$HERE"/natitrace*.c
fi
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export FI_PROVIDER=${FI_PROVIDER:-tcp;ofi_rxm} MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-300}
# more processes than cores: blocking waits yield (natitrace_p2p.c), unless
# NATI_YIELD says otherwise
yield=${NATI_YIELD:-$([ "$np" -gt "$(nproc)" ] && echo 1 || echo 0)}
"$PREFIX/bin/mpiexec" -n "$np" -genv LD_PRELOAD "$lib" -genv NATI_DIR "$dir" -genv NATI_MODE "$mode" \
    -genv NATI_YIELD "$yield" \
    "$@" >"$dir/stdout" 2>&1 || { echo "trace.sh: $* failed:" >&2; tail -n 5 "$dir/stdout" >&2; exit 1; }
if [ "$mode" = trace ]; then
    { echo "program=$*"; echo "np=$np"; } >>"$dir/meta"
fi
