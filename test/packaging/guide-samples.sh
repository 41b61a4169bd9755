#!/usr/bin/env bash
# Rerun every sample output of doc/guide.md and compare it with what the
# installed library prints now.
#
# Why: the guide quotes the library's own output (MPIR_CVAR_NOTIFY_VERBOSE's
# lines, MPIR_CVAR_NOTIFY_STATS's), and those samples went stale when the
# output changed.  guide-blocks.sh keeps the programs honest, this script the
# samples.
#
#   test/packaging/guide-samples.sh MPICC OUTDIR MPIEXEC
#
# A sample is a ```text block whose line right before the opening fence is
# an HTML comment (invisible in rendered markdown):
#
#   <!-- sample: COMMAND -->
#   ```text
#   # a caption (lines starting "# " are not output and are not compared)
#   notify: window a0000000: ...
#   ```
#
# COMMAND is one line of bash, run as `timeout 60 bash -c COMMAND` in a new
# directory OUTDIR/sampleN, with stdin from /dev/null and its stdout and
# stderr together compared with the block (so a sample of standard error
# alone ends in `2>&1 >/dev/null`).  `mpicc` and `mpiexec` in it are MPICC
# and MPIEXEC (wrappers in OUTDIR/bin, first on PATH), and $TOP is the top
# of the repository (e.g. "$TOP/examples/pingpong_notify.c").  Variables
# that change what the library prints (MPIR_CVAR_*, FI_*, NATRACE_*) are
# removed from the environment first: the command sets what it needs.
# The command must exit 0.  Keep "--" out of it (it ends an HTML comment).
#
# Comparison: in both the sample and the output, hex handles (0xa0000000,
# and words of hex digits with a digit in them, as "window a0000000") and
# every run of digits become "<N>"; trailing blanks are dropped; then the two
# are compared as sorted lists of lines (each line as often as it appears),
# since the lines of two ranks interleave differently from run to run.
# Numbers may differ; words, lines and how many of each may not.
#
# Prints "PASS guide sample N (line L)" or "FAIL guide sample N (line L): ..."
# with the command, a diff (sample, then output, both masked and sorted) and
# the raw output, L being the line of the block's opening fence.  Exits
# non-zero if a sample failed, if a marker is not followed by a ```text
# block, or if the guide has no sample at all.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 MPICC OUTDIR MPIEXEC" >&2
    exit 2
fi
outdir=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
guide=$TOP/doc/guide.md

mkdir -p "$outdir/bin"
outdir=$(cd "$outdir" && pwd)
rm -rf "$outdir"/sample*
# the commands' mpicc and mpiexec: MPICC and MPIEXEC, which may carry
# options ("mpicc -g") and be relative to the current directory
wrap() {
    local -a w
    read -r -a w <<<"$2"
    [[ ${w[0]} == */* ]] && w[0]=$(cd "$(dirname "${w[0]}")" && pwd)/$(basename "${w[0]}")
    printf '#!/bin/sh\nexec %s "$@"\n' "$(printf '%q ' "${w[@]}")" >"$outdir/bin/$1"
    chmod +x "$outdir/bin/$1"
}
wrap mpicc "$1"
wrap mpiexec "$3"

# One sampleN.cmd and sampleN.expected per marked block; prints "N L" for
# each (block number, fence line).
parse=0
blocks=$(python3 - "$guide" "$outdir" 2>"$outdir/markers.err" <<'EOF'
import re, sys
guide, outdir = sys.argv[1], sys.argv[2]
lines = open(guide, encoding="utf-8").read().split("\n")
marker = re.compile(r"^<!--\s*sample:\s*(.*?)\s*-->\s*$")
n, i, bad = 0, 0, 0
while i < len(lines):
    m = marker.match(lines[i].strip())
    if not m:
        i += 1
        continue
    if i + 1 >= len(lines) or lines[i + 1].strip() != "```text":
        print(f"{guide}:{i + 1}: sample marker not followed by a ```text block",
              file=sys.stderr)
        bad = 1
        i += 1
        continue
    start = i + 2                       # 1-based line of the fence
    body, j = [], i + 2
    while j < len(lines) and lines[j].strip() != "```":
        body.append(lines[j])
        j += 1
    if j == len(lines):
        sys.exit(f"{guide}:{start}: code block never closed")
    n += 1
    with open(f"{outdir}/sample{n}.cmd", "w", encoding="utf-8") as f:
        f.write(m.group(1) + "\n")
    with open(f"{outdir}/sample{n}.expected", "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in body if not l.startswith("# ")))
    print(n, start)
    i = j + 1
sys.exit(bad)
EOF
) || parse=$?

if [ $parse -ne 0 ]; then
    echo "FAIL guide samples: a marker without its sample"
    sed 's/^/    /' "$outdir/markers.err"
fi
if [ -z "$blocks" ]; then
    echo "FAIL no sample (<!-- sample: COMMAND --> before a \`\`\`text block) in $guide"
    exit 1
fi

# numbers and hex handles masked, blanks at the end dropped, lines sorted
mask() {
    sed -E -e 's/0x[0-9a-fA-F]+/<N>/g' \
        -e 's/\b[0-9a-fA-F]*[0-9][0-9a-fA-F]*\b/<N>/g' \
        -e 's/[0-9]+/<N>/g' -e 's/[[:space:]]+$//' "$1" | LC_ALL=C sort
}

# the environment the commands start from
clean_env=()
for name in $(compgen -e); do
    case "$name" in MPIR_CVAR_* | FI_* | NATRACE_*) clean_env+=(-u "$name") ;; esac
done

failed=0
mapfile -t entries <<<"$blocks"
for entry in "${entries[@]}"; do
    read -r n line <<<"$entry"
    dir=$outdir/sample$n
    mkdir -p "$dir"
    cmd=$(cat "$outdir/sample$n.cmd")
    rc=0
    (cd "$dir" && env "${clean_env[@]}" PATH="$outdir/bin:$PATH" TOP="$TOP" \
        timeout 60 bash -c "$cmd") >"$dir/output" 2>&1 </dev/null || rc=$?
    mask "$outdir/sample$n.expected" >"$dir/expected.masked"
    mask "$dir/output" >"$dir/output.masked"
    if [ $rc -ne 0 ]; then
        echo "FAIL guide sample $n (line $line): exit status $rc$([ $rc -eq 124 ] && echo ' (timeout)')"
        echo "  command: $cmd"
        sed 's/^/    /' "$dir/output"
        failed=$((failed + 1))
    elif ! d=$(diff -u --label "doc/guide.md line $line" --label "output" \
        "$dir/expected.masked" "$dir/output.masked"); then
        echo "FAIL guide sample $n (line $line): output differs"
        echo "  command: $cmd"
        printf '%s\n' "$d"
        echo "  output:"
        sed 's/^/    /' "$dir/output"
        failed=$((failed + 1))
    else
        echo "PASS guide sample $n (line $line)"
    fi
done

[ $failed -eq 0 ] || { echo "$failed guide sample(s) failed"; exit 1; }
[ $parse -eq 0 ] || exit 1
