#!/usr/bin/env bash
# Write patches/NAME from edited copies of MPICH files.
#   scripts/mkpatch.sh NAME EDIT_DIR FILE...
# EDIT_DIR holds edited files at their MPICH paths; the originals come from the
# pristine unpacked tree (_build/mpich-orig, or ORIG=DIR).  NAME is a path
# under patches/: hooks/NNNN-what.patch for a hook of Notified Access,
# fixes/NNNN-what.patch for a fix to MPICH itself.  Add it to patches/series
# yourself, in its part, in the order the patches must apply.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
ORIG=${ORIG:-$TOP/_build/mpich-orig}
name=$1 edit=$2; shift 2
out=$TOP/patches/$name
: >"$out"
for f in "$@"; do
    if [ -f "$ORIG/$f" ]; then a="$ORIG/$f"; else a=/dev/null; fi
    diff -u --label "a/$f" --label "b/$f" "$a" "$edit/$f" >>"$out" || [ $? -eq 1 ]
done
echo "wrote $out ($(grep -c '^@@' "$out") hunks)"
