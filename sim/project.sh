#!/usr/bin/env bash
# Projection to scale: the applications of sim/apps traced here, extrapolated
# past what this machine can start, and replayed on the cluster platforms of
# sim/platforms/ with and without this library's software costs.
#
#   sim/project.sh OUTDIR
#
# Weak scaling as in the paper: the stencil keeps 1280 x 1280 points per
# process, Cholesky about 68 tiles of 32 x 32 per process (nt = 16 *
# sqrt(N / 2)), the tree one double per process (16-ary).  The replay is
# deterministic, so one stencil sweep and 20 reductions are traced (each
# sweep fills and drains the pipeline anew; times per sweep or reduction).  Steps, each with a
# progress line:
#   1. the software costs of the calls: NA_PROJECT_COSTS (default
#      sim/platforms/costs-ofi-tcp.cfg, measured here by sim/costs.sh on an
#      idle machine; NA_PROJECT_COSTS=measure measures them now);
#   2. traces at NA_PROJECT_TRACED processes (default "8 16 32 64"),
#      Cholesky at NA_PROJECT_CHOLESKY (default "8 16 32": 64 processes
#      take 4 to 5 minutes a trace here); NA_PROJECT_REUSE=1 keeps the
#      traces OUTDIR already has;
#   3. the tree extrapolated from the largest trace to NA_PROJECT_EXTRA
#      processes (default "128 256 512 1024"), the stencil to
#      NA_PROJECT_EXTRA_STENCIL (default none; sim/extrapolate.py: their
#      per-process work does not change with N; Cholesky's distribution
#      does, so it stays at the traced sizes).  The stencil's replay time
#      grows with the square of the ranks (SimGrid scans each rank's list of
#      unfinished messages, and the pipeline keeps up to a sweep's rows in
#      flight): 12 s at 64, 49 s at 128, about an hour at 1,024;
#   4. every trace replayed on the dragonfly and the fat tree, wire only and
#      with the costs: OUTDIR/projection.csv
#        app,mode,np,platform,source,wire_s,costed_s
#   5. sensitivity at each application's largest size on the fat tree: the
#      notified access's origin, matching and completion costs each at 0.5
#      and 1.5 times: OUTDIR/sensitivity.csv
#        app,np,platform,cost,factor,na_s,mp_s,mp_over_na
#   6. plots (sim/plot.py): OUTDIR/projection-APP.png, sensitivity.png.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: $0 OUTDIR}
traced=${NA_PROJECT_TRACED:-8 16 32 64}
extra=${NA_PROJECT_EXTRA-128 256 512 1024}
extra_stencil=${NA_PROJECT_EXTRA_STENCIL-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
step() { printf 'project: [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
"$HERE/build.sh" >/dev/null

step "1/6 software costs of the calls"
costs=$out/costs.cfg
case ${NA_PROJECT_COSTS:=$HERE/platforms/costs-ofi-tcp.cfg} in
measure) "$HERE/costs.sh" "$costs" </dev/null ;;
*) cp "$NA_PROJECT_COSTS" "$costs" ;;
esac
grep -v '^#' "$costs" | tr '\n' ' ' | sed 's/^/project:   /; s/$/\n/'

runs=("stencil na" "stencil mp" "cholesky na" "cholesky mp" "tree na" "tree mp" "tree reduce")
args_for() { # args_for APP NP: the problem scaled with NP (weak scaling)
    case $1 in
    cholesky) awk -v n="$2" 'BEGIN { printf "-nt %d -b 32 -reps 1", 16 * sqrt(n / 2) + 0.5 }' ;;
    stencil) echo "-m 1280 -w 1280 -iters 1 -reps 1" ;;
    tree) echo "-k 16 -count 1 -iters 20 -rounds 1" ;;
    esac
}
largest=$(echo $traced | tr ' ' '\n' | sort -n | tail -n 1)
cholesky_nps=${NA_PROJECT_CHOLESKY-8 16 32}
for np in $traced; do
    step "2/6 traces at $np processes"
    for run in "${runs[@]}"; do
        read -r app mode <<<"$run"
        [ "$app" = cholesky ] && [[ " $cholesky_nps " != *" $np "* ]] && continue
        [ "${NA_PROJECT_REUSE:-0}" = 1 ] && [ -f "$out/$app-$mode-$np/trace/index" ] && continue
        NA_RECORD_RUNS=0 NA_RECORD_ARGS=$(args_for "$app" "$np") MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-900} \
            "$HERE/record.sh" "$app" "$mode" "$np" "$out/$app-$mode-$np" </dev/null
    done
done
for np in $(echo $extra $extra_stencil | tr ' ' '\n' | sort -nu); do
    step "3/6 extrapolated from $largest to $np processes"
    for run in "${runs[@]}"; do
        read -r app mode <<<"$run"
        case $app in
        tree) [[ " $extra " == *" $np "* ]] || continue ;;
        stencil) [[ " $extra_stencil " == *" $np "* ]] || continue ;;
        *) continue ;;
        esac
        mkdir -p "$out/$app-$mode-$np"
        k=()
        [ "$app" = tree ] && k=(--k 16)
        /usr/bin/python3 "$HERE/extrapolate.py" "$app" "$out/$app-$mode-$largest/trace" "$np" \
            "$out/$app-$mode-$np/trace" "${k[@]}" >/dev/null
    done
done

# replay DIR PLATFORM [COSTS]: the simulated time
replay() {
    NA_REPLAY_COSTS=${3:-} NA_REPLAY_QUIET=1 "$HERE/replay.sh" "$1/trace" "$HERE/platforms/$2.xml" \
        2>>"$1/replay.log" </dev/null | tail -n 1
}
csv=$out/projection.csv
echo "app,mode,np,platform,source,wire_s,costed_s" >"$csv"
for np in $(echo $traced $extra $extra_stencil | tr ' ' '\n' | sort -nu); do
    step "4/6 replays at $np processes"
    for run in "${runs[@]}"; do
        read -r app mode <<<"$run"
        d=$out/$app-$mode-$np
        [ -d "$d/trace" ] || continue
        case $app in # only the sizes asked for, whatever else OUTDIR holds
        cholesky) [[ " $cholesky_nps " == *" $np "* ]] || continue ;;
        stencil) [[ " $traced $extra_stencil " == *" $np "* ]] || continue ;;
        tree) [[ " $traced $extra " == *" $np "* ]] || continue ;;
        esac
        source=traced
        grep -q '^extrapolated_from=' "$d/trace/meta" 2>/dev/null && source=extrapolated
        for platform in dragonfly fattree1024; do
            # wire only: at the traced sizes (the reference), not the extrapolated
            wire=
            [ $source = traced ] && wire=$(replay "$d" "$platform")
            costed=$(replay "$d" "$platform" "$costs")
            echo "$app,$mode,$np,$platform,$source,$wire,$costed" >>"$csv"
            printf 'project:   %-8s %-6s np=%-4s %-11s %-12s wire %-9s s, with costs %.6f s\n' \
                "$app" "$mode" "$np" "$platform" "$source" "${wire:--}" "$costed"
        done
    done
done

step "5/6 sensitivity to the notified access's costs (x0.5, x1.5), each application at its largest traced or extrapolated size (the stencil at $largest)"
sens=$out/sensitivity.csv
echo "app,np,platform,cost,factor,na_s,mp_s,mp_over_na" >"$sens"
for app in stencil cholesky tree; do
    np=$(awk -F, -v a="$app" '$1 == a && $2 == "na" && $3 > n { n = $3 } END { print n }' "$csv")
    [ "$app" = stencil ] && np=$largest
    mp=$(awk -F, -v a="$app" -v n="$np" '$1 == a && $2 == "mp" && $3 == n && $4 == "fattree1024" { print $7 }' "$csv")
    na=$(awk -F, -v a="$app" -v n="$np" '$1 == a && $2 == "na" && $3 == n && $4 == "fattree1024" { print $7 }' "$csv")
    echo "$app,$np,fattree1024,all,1,$na,$mp,$(awk -v a="$mp" -v b="$na" 'BEGIN { printf "%.4f", a / b }')" >>"$sens"
    for key in notify_origin notify_match notify_complete; do
        for f in 0.5 1.5; do
            awk -F= -v k="$key" -v f="$f" '$1 == k { $0 = k "=" $2 * f } { print }' "$costs" >"$out/costs-$key-$f.cfg"
            t=$(replay "$out/$app-na-$np" fattree1024 "$out/costs-$key-$f.cfg")
            r=$(awk -v a="$mp" -v b="$t" 'BEGIN { printf "%.4f", a / b }')
            echo "$app,$np,fattree1024,$key,$f,$t,$mp,$r" >>"$sens"
            printf 'project:   %-8s np=%-4s %-16s x%-3s na %.6f s, mp %.6f s: mp/na %s\n' "$app" "$np" "$key" "$f" "$t" "$mp" "$r"
        done
    done
done

step "6/6 plots"
/usr/bin/python3 "$HERE/plot.py" "$out"
step "done: $csv $sens"
