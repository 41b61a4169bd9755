#!/usr/bin/env bash
# natitrace's own test: sim/test/trace_sample.c traced on 2 processes; its
# trace, compute lines left out, must be sim/test/trace_sample.expect line for
# line, every compute line a positive number of nanoseconds, and the index and
# meta files complete.  Then the same program timed only (NATI_MODE=time).
# Prints PASS/FAIL lines.
#
#   sim/test/trace.sh WORKDIR        (PREFIX: the MPICH install)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SIM=$(cd "$HERE/.." && pwd)
TOP=$(cd "$SIM/.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}
W=${1:?usage: $0 WORKDIR}
export MPIEXEC_TIMEOUT=$((60 * ${NA_TIMEOUT_SCALE:-1}))
rm -rf "$W" && mkdir -p "$W"

if ! "$PREFIX/bin/mpicc" -Wall -Werror -o "$W/trace_sample" "$HERE/trace_sample.c" >"$W/compile.log" 2>&1; then
    echo "FAIL  natitrace: sim/test/trace_sample.c does not compile ($W/compile.log)"
    exit 1
fi
if ! PREFIX=$PREFIX "$SIM/trace.sh" "$W/trace" -n 2 "$W/trace_sample" 2>"$W/trace.err"; then
    echo "FAIL  natitrace: tracing trace_sample failed ($W/trace.err)"
    exit 1
fi
t=$W/trace
cat "$t/rank-0.ti" "$t/rank-1.ti" | grep -v ' compute ' >"$W/got"
if diff -u "$HERE/trace_sample.expect" "$W/got" >"$W/diff"; then
    echo "PASS  natitrace: every call of trace_sample as expected"
else
    echo "FAIL  natitrace: the trace differs from sim/test/trace_sample.expect ($W/diff)"
fi
bad=$(cat "$t/rank-0.ti" "$t/rank-1.ti" | awk '$2 == "compute" && !($3 ~ /^[0-9]+$/ && $3 > 0)' | head -n 3)
ncomp=$(cat "$t/rank-0.ti" "$t/rank-1.ti" | grep -c ' compute ')
if [ -z "$bad" ] && [ "$ncomp" -gt 0 ]; then
    echo "PASS  natitrace: $ncomp compute lines, each a positive number of ns"
else
    echo "FAIL  natitrace: compute lines: ${bad:-none}"
fi
if [ "$(cat "$t/index")" = "$(printf 'rank-0.ti\nrank-1.ti')" ] &&
    grep -q '^ranks=2$' "$t/meta" && grep -q '^region=pcontrol$' "$t/meta" &&
    grep -q '^region_wall_s=0\.[0-9]*[1-9]' "$t/meta"; then
    echo "PASS  natitrace: index and meta"
else
    echo "FAIL  natitrace: index or meta incomplete ($t)"
fi
# the waits that yield the core (NATI_YIELD, for more processes than cores)
# must record the same calls
if NATI_YIELD=1 PREFIX=$PREFIX "$SIM/trace.sh" "$W/yield" -n 2 "$W/trace_sample" 2>"$W/yield.err" &&
    cat "$W/yield/rank-0.ti" "$W/yield/rank-1.ti" | grep -v ' compute ' |
    diff -u "$HERE/trace_sample.expect" - >"$W/yield.diff"; then
    echo "PASS  natitrace: NATI_YIELD=1 (waits that yield) records the same calls"
else
    echo "FAIL  natitrace: NATI_YIELD=1 ($W/yield.err, $W/yield.diff)"
fi
if PREFIX=$PREFIX "$SIM/trace.sh" --time "$W/time" -n 2 "$W/trace_sample" 2>"$W/time.err" &&
    grep -q '^region_wall_s=0\.[0-9]*[1-9]' "$W/time/measured" && [ ! -e "$W/time/rank-0.ti" ]; then
    echo "PASS  natitrace: NATI_MODE=time times the region and writes no trace"
else
    echo "FAIL  natitrace: NATI_MODE=time ($W/time)"
fi
