#!/usr/bin/env bash
# Projection to more processes: the applications traced here on N processes
# (oversubscribed past 2; the traces count CPU time, not waiting) and
# replayed on the cluster platforms of sim/platforms/.
#
#   sim/project.sh OUTDIR [NPS]        (NPS default "8 16 32")
#
# Weak scaling as in the paper: the stencil keeps 1280 x 1280 points per
# process, Cholesky about 68 tiles of 32 x 32 per process (nt = 16 *
# sqrt(N / 2)), the tree one double per process.  Writes OUTDIR/projection.csv:
#   app,mode,np,platform,replayed_s
# and prints each run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR [NPS]}
nps=${2:-8 16 32}
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/projection.csv
echo "app,mode,np,platform,replayed_s" >"$csv"
"$HERE/build.sh" >/dev/null
runs=("stencil na" "stencil mp" "cholesky na" "cholesky mp" "tree na" "tree mp" "tree reduce")
for np in $nps; do
    for run in "${runs[@]}"; do
        read -r app mode <<<"$run"
        args=
        if [ "$app" = cholesky ]; then
            nt=$(awk -v n="$np" 'BEGIN { printf "%d", 16 * sqrt(n / 2) + 0.5 }')
            args="-nt $nt -b 32 -reps 1"
        fi
        d=$out/$app-$mode-$np
        NA_RECORD_RUNS=0 NA_RECORD_ARGS=$args MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-900} \
            "$HERE/record.sh" "$app" "$mode" "$np" "$d" </dev/null
        for platform in dragonfly fattree1024; do
            t=$(NA_REPLAY_QUIET=1 "$HERE/replay.sh" "$d/trace" "$HERE/platforms/$platform.xml" \
                2>"$d/replay-$platform.log" </dev/null | tail -n 1)
            echo "$app,$mode,$np,$platform,$t" >>"$csv"
            printf 'project: %-8s %-6s np=%-4s %-12s %.6f s\n' "$app" "$mode" "$np" "$platform" "$t"
        done
    done
done
