#!/usr/bin/env bash
# Trace one application in one mode on N processes, and time it untraced:
#
#   sim/record.sh APP MODE N OUTDIR
#
# APP is a name of sim/apps.  Writes OUTDIR/trace/ (sim/trace.sh) and
# OUTDIR/measured_s: the median over NA_RECORD_RUNS (default 3) untraced runs
# of the region's wall time at rank 0 (natitrace in NATI_MODE=time: the same
# preload, no recording; MPICH's own waits, spinning as users get them).  The benchmark is built into sim/_build with the
# installed mpicc (PREFIX, default _install).  With more processes than
# cores, one run with MPICH's own waits (measured_s) and the median of
# NA_RECORD_RUNS with waits that yield (measured_yield_s, NATI_YIELD=1).
# NA_RECORD_YIELD_RUNS (default NA_RECORD_RUNS) sets the latter's count.
# NA_RECORD_RUNS=0: the trace only.  NA_RECORD_ARGS replaces the arguments
# of sim/apps (a problem scaled with N).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}
[ $# -eq 4 ] || { echo "usage: $0 APP MODE N OUTDIR" >&2; exit 2; }
app=$1 mode=$2 np=$3 out=$4
line=$(grep -E "^$app +\|" "$HERE/apps") || { echo "record.sh: no application '$app' in sim/apps" >&2; exit 2; }
IFS='|' read -r _ src args modes <<<"$line"
args=${NA_RECORD_ARGS:-$args}
src=$(echo $src) modes=" $(echo $modes) "
[[ $modes == *" $mode "* ]] || { echo "record.sh: $app has no mode '$mode' (modes:$modes)" >&2; exit 2; }
bin=$HERE/_build/$app
mkdir -p "$HERE/_build"
if [ ! -x "$bin" ] || [ "$bin" -ot "$TOP/bench/$src" ] || [ "$bin" -ot "$PREFIX/lib/libmpi.so" ]; then
    "$PREFIX/bin/mpicc" -O2 -o "$bin" "$TOP/bench/$src" -llapack -lblas -lm
fi
mkdir -p "$out"
# shellcheck disable=SC2086
"$HERE/trace.sh" "$out/trace" -n "$np" "$bin" $args -modes "$mode"
# measure YIELD RUNS FILE: the median region time of RUNS untraced runs
measure() {
    local times=() _
    for _ in $(seq "$2"); do
        # shellcheck disable=SC2086
        NATI_YIELD=$1 "$HERE/trace.sh" --time "$out/time" -n "$np" "$bin" $args -modes "$mode"
        times+=("$(sed -n 's/^region_wall_s=//p' "$out/time/measured")")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}' >"$3"
    rm -rf "$out/time"
}
runs=${NA_RECORD_RUNS:-3}
if [ "$runs" -gt 0 ]; then
    if [ "$np" -le "$(nproc)" ]; then
        measure 0 "$runs" "$out/measured_s"
    else
        # oversubscribed: MPICH's spinning waits lose scheduler slices
        # (seconds: one run), and the same run with waits that yield
        measure 0 1 "$out/measured_s"
        measure 1 "${NA_RECORD_YIELD_RUNS:-$runs}" "$out/measured_yield_s"
    fi
fi
