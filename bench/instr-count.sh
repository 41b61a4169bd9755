#!/usr/bin/env bash
# Instructions per 8-byte message, origin and target MPI calls together,
# counted by callgrind (bench/instr.c says what is counted).  Shared memory,
# 2 ranks: on the netmods the sender's completion needs the receiver's
# progress, so the receiver cannot wait outside MPI there.
#
#   bench/instr-count.sh [MODE...]     (default: put_notify put_counter sendrecv put_flush floor
#                                       put_notify_posted floor_posted)
#   A MODE may end in _nowin (no window: -win 0) or _idleN (no window of its
#   own, N idle windows allocated: -win 0 -idle N), e.g. sendrecv_idle1000,
#   or _posted (put_notify, floor: the target starts its request uncounted before
#   the origin's turn, so only its MPI_Wait after the arrival counts), or _net (over the netmod, MPIR_CVAR_NOLOCAL=1 with tcp;ofi_rxm; only for
#   modes whose target makes no call: put_flush_local_net).
#   env: PREFIX (the install, _install), INSTR_ITERS (200), INSTR_OUT (a temporary directory),
#        INSTR_ARGS (more arguments to bench/instr, e.g. "-win 0")
# Prints "mode origin target total vs_send" per mode: instructions per
# message, and the total's ratio to sendrecv's when sendrecv was counted.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
ITERS=${INSTR_ITERS:-200}
command -v valgrind >/dev/null || { echo "instr-count: valgrind is not installed" >&2; exit 2; }
OUT=${INSTR_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(put_notify put_counter sendrecv put_flush floor put_notify_posted floor_posted)
"$PREFIX/bin/mpicc" -O2 -o "$OUT/instr" "$TOP/bench/instr.c"
# the counts must not depend on the caller's environment
unset MPIR_CVAR_NOLOCAL MPIR_CVAR_NOTIFY_FORCE_GENERIC MPIR_CVAR_NOTIFY_OFI_PATH
export FI_PROVIDER="tcp;ofi_rxm"
# what the MPI calls cost: everything collected but the benchmark's own
# instructions between the toggles (main's exclusive cost)
mpi_calls() {
    local all self
    all=$(awk '/^totals:/ {print $2}' "$1")
    self=$(callgrind_annotate "$1" 2>/dev/null | awk '/:main \[/ {gsub(",", "", $1); print $1; exit}')
    echo $(( all - ${self:-0} ))
}
: >"$OUT/counts.txt"
for m in "${modes[@]}"; do
    rm -f "$OUT/cg.$m".*
    base=$m extra= nolocal=0
    case $m in
        *_nowin) base=${m%_nowin} extra="-win 0" ;;
        *_idle[0-9]*) base=${m%_idle*} extra="-win 0 -idle ${m##*_idle}" ;;
        *_net) base=${m%_net} nolocal=1 ;;
        *_posted) base=${m%_posted} extra="-posted 1" ;;
    esac
    # shellcheck disable=SC2086
    MPIR_CVAR_NOLOCAL=$nolocal timeout 300 "$PREFIX/bin/mpiexec" -n 2 valgrind -q --tool=callgrind --collect-atstart=no \
        --callgrind-out-file="$OUT/cg.$m.%q{PMI_RANK}" "$OUT/instr" -mode "$base" -n "$ITERS" $extra ${INSTR_ARGS:-} \
        >"$OUT/$m.log" 2>&1 || { cat "$OUT/$m.log" >&2; exit 1; }
    o=$(mpi_calls "$OUT/cg.$m.0") t=$(mpi_calls "$OUT/cg.$m.1")
    echo "$m $(( o / ITERS )) $(( t / ITERS ))" >>"$OUT/counts.txt"
done
awk '{ tot[NR] = $2 + $3; line[NR] = $0; if ($1 == "sendrecv") send = $2 + $3 }
     END {
         printf "%-20s %8s %8s %8s %8s\n", "mode", "origin", "target", "total", "vs_send"
         for (i = 1; i <= NR; i++) {
             split(line[i], f, " ")
             printf "%-20s %8d %8d %8d %8s\n", f[1], f[2], f[3], tot[i],
                    send ? sprintf("%.2f", tot[i] / send) : "-"
         }
     }' "$OUT/counts.txt"
