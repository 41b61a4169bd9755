#!/usr/bin/env bash
# The projection's validation: every application and mode of sim/apps, on 2
# and 4 processes of this machine, traced, timed untraced (sim/record.sh) and
# replayed on sim/platforms/local.xml (sim/replay.sh).
#
#   sim/validate.sh OUTDIR [NPS]        (NPS default "2 4")
#
# Writes OUTDIR/validation.csv:
#   app,mode,np,measured_s,measured_yield_s,replayed_s,replayed_over_measured
# (measured_yield_s: only where processes outnumber cores) and prints a line
# per run.  Traces stay in OUTDIR/APP-MODE-NP/.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR [NPS]}
nps=${2:-2 4}
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/validation.csv
echo "app,mode,np,measured_s,measured_yield_s,replayed_s,replayed_over_measured" >"$csv"
"$HERE/build.sh" >/dev/null
grep -v '^#' "$HERE/apps" | while IFS='|' read -r app _ _ modes; do
    app=$(echo $app)
    for mode in $modes; do
        for np in $nps; do
            d=$out/$app-$mode-$np
            "$HERE/record.sh" "$app" "$mode" "$np" "$d" </dev/null
            replayed=$(NA_REPLAY_QUIET=1 "$HERE/replay.sh" "$d/trace" "$HERE/platforms/local.xml" 2>"$d/replay.log" </dev/null | tail -n 1)
            measured=$(cat "$d/measured_s")
            my=$(cat "$d/measured_yield_s" 2>/dev/null || true)
            ratio=$(awk -v r="$replayed" -v m="$measured" 'BEGIN { printf "%.3f", r / m }')
            echo "$app,$mode,$np,$measured,$my,$replayed,$ratio" >>"$csv"
            printf 'validate: %-8s %-7s np=%s measured %.4f s%s replayed %.4f s (%s)\n' "$app" "$mode" "$np" \
                "$measured" "${my:+ (waits yielding: $(printf %.4f "$my") s)}" "$replayed" "$ratio"
        done
    done
done
