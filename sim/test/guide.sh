#!/usr/bin/env bash
# Runs the user guide's "```sh project-session" block (doc/guide.md, section
# 11) as written, one command per line, in a scratch directory where
# _install, bench and sim are the repository's (PREFIX for _install).  Each
# command must exit 0; each sim/replay.sh must print a simulated time; the
# extrapolated trace must take longer than the traced one (a longer
# pipeline).  Prints PASS/FAIL lines and "N passed, N failed".
#
#   sim/test/guide.sh [WORKDIR]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PREFIX=${PREFIX:-$TOP/_install}
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/na-guide-project.XXXXXX")}
T=$((240 * ${NA_TIMEOUT_SCALE:-1}))
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
ln -s "$PREFIX" _install && ln -s "$TOP/bench" bench && ln -s "$TOP/sim" sim
mapfile -t cmds < <(awk '$0 == "```sh project-session" { on = 1; next } on && /^```/ { exit } on' "$TOP/doc/guide.md" |
    sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$')
pass=0 fail=0
ok() { echo "PASS  guide/project: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL  guide/project: $*"; fail=$((fail + 1)); }
[ ${#cmds[@]} -gt 0 ] || ko "no \`\`\`sh project-session block in doc/guide.md"
declare -a times
n=0
for cmd in "${cmds[@]}"; do
    n=$((n + 1))
    timeout -k 5 "$T" bash -c "$cmd" >"cmd$n.log" 2>&1 </dev/null
    rc=$?
    if [ $rc -ne 0 ]; then ko "'$cmd' exit $rc ($work/cmd$n.log)"; continue; fi
    if [[ $cmd == *sim/replay.sh* ]]; then
        t=$(tail -n 1 "cmd$n.log")
        if awk -v t="$t" 'BEGIN { exit !(t > 0) }'; then ok "'$cmd': $t s"; times+=("$t")
        else ko "'$cmd' printed no time ($work/cmd$n.log)"; fi
    else
        ok "'$cmd'"
    fi
done
if [ ${#times[@]} -ge 2 ]; then
    first=${times[$((${#times[@]} - 2))]} last=${times[$((${#times[@]} - 1))]}
    if awk -v a="$first" -v b="$last" 'BEGIN { exit !(b > a) }'; then
        ok "the extrapolated trace takes longer than the traced one ($last s > $first s)"
    else
        ko "the extrapolated trace takes longer than the traced one ($last s <= $first s)"
    fi
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
