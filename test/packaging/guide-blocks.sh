#!/usr/bin/env bash
# Compile, and optionally run, every C code block of doc/guide.md.
#
# Why: issue 20 asks that every code block in the user guide compiles in
# `make check`, so that the guide cannot drift from the installed mpi.h and
# from the library's behaviour.  A block fenced exactly ```c is a complete
# program (#include <mpi.h>, main) and is checked; ```c fragment, ```sh,
# ```text ... blocks are excerpts and are not.
#
#   test/packaging/guide-blocks.sh MPICC OUTDIR [MPIEXEC]
#
# Writes each block to OUTDIR/guide_blockN.c and compiles it with
#   MPICC -std=c11 -Wall -Wextra -Werror -o OUTDIR/guide_blockN
# With MPIEXEC, also runs it as `timeout 60 MPIEXEC -n 2 OUTDIR/guide_blockN`,
# which must exit 0 (the worked examples check their data and exit non-zero
# on a wrong result).  Prints "PASS guide block N (line L)" or "FAIL ..."
# (with the compiler's or the program's output) per block, L being the line
# of the block's opening fence.  Exits non-zero if a block failed or if the
# guide has no ```c block at all.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 MPICC OUTDIR [MPIEXEC]" >&2
    exit 2
fi
read -r -a mpicc <<<"$1"                # may carry options: "mpicc -g"
outdir=$2
mpiexec=()
[ -n "${3:-}" ] && read -r -a mpiexec <<<"$3"
guide="$(dirname "$0")/../../doc/guide.md"

mkdir -p "$outdir"
rm -f "$outdir"/guide_block*

# One file per ```c block; prints "N L" (block number, fence line) for each.
blocks=$(python3 - "$guide" "$outdir" <<'EOF'
import sys
guide, outdir = sys.argv[1], sys.argv[2]
n, fence, body = 0, None, None      # fence: (opening line, info string)
for lineno, line in enumerate(open(guide, encoding="utf-8"), 1):
    s = line.strip()
    if fence is None:
        if s.startswith("```"):
            fence = (lineno, s[3:].strip())
            body = []
    elif s == "```":
        start, info = fence
        if info == "c":
            n += 1
            with open(f"{outdir}/guide_block{n}.c", "w", encoding="utf-8") as f:
                f.write("".join(body))
            print(n, start)
        fence = None
    else:
        body.append(line)
if fence is not None:
    sys.exit(f"{guide}:{fence[0]}: code block never closed")
EOF
)

if [ -z "$blocks" ]; then
    echo "FAIL no \`\`\`c block in $guide"
    exit 1
fi

failed=0
mapfile -t entries <<<"$blocks"
for entry in "${entries[@]}"; do
    read -r n line <<<"$entry"
    src=$outdir/guide_block$n.c exe=$outdir/guide_block$n
    if ! out=$("${mpicc[@]}" -std=c11 -Wall -Wextra -Werror -o "$exe" "$src" 2>&1); then
        echo "FAIL guide block $n (line $line): does not compile ($src)"
        printf '%s\n' "$out"
        failed=$((failed + 1))
        continue
    fi
    if [ ${#mpiexec[@]} -gt 0 ]; then
        rc=0
        out=$(timeout 60 "${mpiexec[@]}" -n 2 "$exe" 2>&1 </dev/null) || rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL guide block $n (line $line): exit status $rc$([ $rc -eq 124 ] && echo ' (timeout)')"
            printf '%s\n' "$out"
            failed=$((failed + 1))
            continue
        fi
    fi
    echo "PASS guide block $n (line $line)"
done

[ $failed -eq 0 ] || { echo "$failed guide block(s) failed"; exit 1; }
