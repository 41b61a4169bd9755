#!/usr/bin/env bash
# Runs the Slurm commands of the user guide as written, on the cluster of
# test/slurm/cluster.sh (which must be up), from its login node na-h1.
#
#   test/slurm/guide.sh MPICC WORKDIR PREFIX
#
# doc/guide.md's "```sh slurm-session" block is a list of commands a user
# types, one per line (comments after "#" dropped); its "```sh slurm-job"
# block is the job script they submit, saved as job.sh.  ./app is
# examples/pingpong_notify.c, built with MPICC; PREFIX/bin is first on PATH,
# as the guide asks.  Each command must exit 0 and print "No Errors"; sbatch
# must say "Submitted batch job ID", and that job's slurm-ID.out must hold
# "No Errors" and the window's notify line (MPIR_CVAR_NOTIFY_VERBOSE in the
# script) saying that rank 1, on the other node, is reached by cq-data.
# Prints PASS/FAIL per command.
set -uo pipefail
MPICC=$1 WORK=$2 PREFIX=$3
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
GUIDE=$TOP/doc/guide.md
T=$((120 * ${NA_TIMEOUT_SCALE:-1}))

block() {   # the lines of the guide's ```sh $1 block
    awk -v tag="$1" '$0 == "```sh " tag { on = 1; next } on && /^```/ { exit } on' "$GUIDE"
}

rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
"$MPICC" -o app "$TOP/examples/pingpong_notify.c" >compile.log 2>&1 ||
    { echo "FAIL  slurm/guide: examples/pingpong_notify.c does not compile (compile.log)"; exit 1; }
block slurm-job >job.sh
chmod +x job.sh
mapfile -t cmds < <(block slurm-session | sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$')
if [ ${#cmds[@]} -eq 0 ] || [ ! -s job.sh ]; then
    echo "FAIL  slurm/guide: no \`\`\`sh slurm-session or slurm-job block in doc/guide.md"
    exit 1
fi
export PATH=$PREFIX/bin:$PATH

on() { timeout -k 5 "$T" "$HERE/on" na-h1 "$@"; }

n=0
for cmd in "${cmds[@]}"; do
    n=$((n + 1))
    log=cmd$n.log
    on bash -c "$cmd" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL  slurm/guide: '$cmd' exit $rc ($WORK/$log)"
        continue
    fi
    case "$cmd" in
        sbatch*)
            id=$(sed -n 's/^Submitted batch job \([0-9][0-9]*\)$/\1/p' "$log")
            [ -n "$id" ] || { echo "FAIL  slurm/guide: '$cmd' printed no job id ($WORK/$log)"; continue; }
            # the job is done when squeue no longer lists it
            for _ in $(seq $((T * 5))); do
                [ -z "$(on squeue -h -j "$id" 2>/dev/null)" ] && break
                sleep 0.2
            done
            out=slurm-$id.out
            if [ -n "$(on squeue -h -j "$id" 2>/dev/null)" ]; then
                echo "FAIL  slurm/guide: job $id of '$cmd' still queued or running after ${T}s"
                on scancel "$id"
            elif ! grep -q '^No Errors' "$out" 2>/dev/null; then
                echo "FAIL  slurm/guide: job $id of '$cmd': no 'No Errors' in $WORK/$out"
            elif ! grep -q '^notify: window .*cq-data to 1 ' "$out"; then
                echo "FAIL  slurm/guide: job $id of '$cmd': rank 1 is not reached by cq-data ($WORK/$out)"
            else
                echo "PASS  slurm/guide: $cmd (job.sh, job $id)"
            fi ;;
        *)
            if grep -q '^No Errors' "$log"; then echo "PASS  slurm/guide: $cmd"
            else echo "FAIL  slurm/guide: '$cmd' printed no 'No Errors' ($WORK/$log)"; fi ;;
    esac
done
