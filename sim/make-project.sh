#!/usr/bin/env bash
# make project: sim/validate.sh, then sim/project.sh, into WORKDIR; the CSVs,
# the costs used and the plots are copied to DOCDIR.
#
#   sim/make-project.sh WORKDIR DOCDIR
#
# On 4 processes (oversubscribed here) one run of each kind is timed, not
# three: those times are the scheduler's (doc/benchmarks.md), and the
# stencil's pscw and fence take 40 s a run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: $0 WORKDIR DOCDIR} doc=${2:?usage: $0 WORKDIR DOCDIR}
start=$(date +%s)
mkdir -p "$work" "$doc"
echo "project: validation on this machine (sim/validate.sh $work/validate)"
NA_RECORD_YIELD_RUNS=1 "$HERE/validate.sh" "$work/validate" | sed -u 's/^/project:   /'
echo "project: projection (sim/project.sh $work/scale)"
"$HERE/project.sh" "$work/scale"
cp "$work/validate/validation.csv" "$work/scale/projection.csv" "$work/scale/sensitivity.csv" \
    "$work/scale/costs.cfg" "$work/scale"/*.png "$doc/"
echo "project: done in $(( ($(date +%s) - start) / 60 )) min; results in $doc"
