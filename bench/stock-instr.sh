#!/usr/bin/env bash
# Standard MPI is not slowed (issue 17): instructions per 8-byte message of
# MPI_Send + MPI_Recv and of MPI_Put + MPI_Win_flush, counted by callgrind
# (bench/instr-count.sh) in this project's build and in stock MPICH 4.0.2
# built from the same verified source with the same configure options
# (scripts/build-mpich.sh, variant "stock": no patches/, no overlay).
#
#   bench/stock-instr.sh          (make bench-stock)
#   env: PREFIX (this project's install, _install), BUILD_DIR (_build)
# The first run builds stock MPICH into _build/mpich-obj-stock and installs
# it in _build/install-stock (about as long as a full build); later runs
# reuse it.  Prints "mode stock ours ours/stock" for each mode.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
BUILD=${BUILD_DIR:-$TOP/_build}
STOCK=$BUILD/install-stock
[ -x "$PREFIX/bin/mpicc" ] || { echo "stock-instr: no MPICH in $PREFIX (run make)" >&2; exit 2; }
if [ ! -x "$STOCK/bin/mpicc" ]; then
    TOP=$TOP BUILD_DIR=$BUILD PREFIX=$STOCK NA_VARIANT=stock MPICH_DEVICE=ch4:ofi \
        bash "$TOP/scripts/build-mpich.sh"
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# sendrecv and put_flush with a window allocated first (as bench/instr does),
# sendrecv in a program with no window, and with 1,000 idle windows
# (issue 32: what holding windows costs message passing); floor adds
# MPI_Start + MPI_Wait of a persistent receive (the request hooks)
for which in stock ours; do
    p=$STOCK
    [ $which = ours ] && p=$PREFIX
    PREFIX=$p INSTR_OUT=$OUT/$which bash "$TOP/bench/instr-count.sh" sendrecv put_flush \
        floor sendrecv_nowin sendrecv_idle1000 >/dev/null
done
echo "# instructions per 8-byte message, origin + target MPI calls (callgrind, shm, 2 ranks)"
printf '%-15s %8s %8s %10s\n' mode stock ours ours/stock
join <(awk '{print $1, $2 + $3}' "$OUT/stock/counts.txt" | sort) \
     <(awk '{print $1, $2 + $3}' "$OUT/ours/counts.txt" | sort) |
    awk '{ printf "%-15s %8d %8d %10.3f\n", $1, $2, $3, $3 / $2 }'
