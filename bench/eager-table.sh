#!/usr/bin/env bash
# The sizes at which the libfabric path should send a notified put as an
# eager message rather than a write (MPIR_CVAR_NOTIFY_OFI_EAGER_MIN/MAX,
# doc/design.md "Eager messages"), measured: the put_notify ping-pong with
# every put a write (EAGER_MAX=0) and with every put an eager message
# (EAGER_MIN=0, EAGER_MAX above the largest message), send/recv beside each, per libfabric
# transport.  Writes eager-table.txt: per size the two medians, each as a
# ratio to send/recv in the same run, the faster by that ratio (the two runs
# are minutes apart, and the machine's speed swings more than the two paths
# differ: one run measured every netns write run 20 % slower than its eager
# run, send/recv alike), and whether the build's default range picks it.
#
#   bench/eager-table.sh OUT_DIR PINGPONG_BINARY [TRANSPORT...]   (default: tcp sockets)
#   EAGER_ITERS=N (1000)  EAGER_ROUNDS=N (3)  EAGER_MAX_BYTES=N (16384)
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
OUT=$1 PP=$2
shift 2
transports=("$@")
[ ${#transports[@]} -eq 0 ] && transports=(tcp sockets)
. "$TOP/test/harness/transports.sh"

# the default range, as the library computes it (MPIR_CVAR_NOTIFY_VERBOSE)
table=$OUT/eager-table.txt
: >"$table"
for tr in "${transports[@]}"; do
    envs=$(transport_env "$tr") || { echo "eager-table: unknown transport $tr" >&2; exit 2; }
    read -r -a env <<<"$envs"
    mpiexec=$PREFIX/bin/mpiexec
    [[ $tr == netns* ]] && mpiexec=$TOP/test/netns/run.sh
    for how in write eager default; do
        case $how in
            write) e=(MPIR_CVAR_NOTIFY_OFI_EAGER_MAX=0) ;;
            eager) e=(MPIR_CVAR_NOTIFY_OFI_EAGER_MIN=0 MPIR_CVAR_NOTIFY_OFI_EAGER_MAX=1048576
                MPIR_CVAR_NOTIFY_VERBOSE=1) ;;
            default) e=(MPIR_CVAR_NOTIFY_VERBOSE=1) ;;
        esac
        env "${env[@]}" "${e[@]}" PREFIX="$PREFIX" "$mpiexec" -n 2 "$PP" \
            -n "${EAGER_ITERS:-1000}" -rounds "${EAGER_ROUNDS:-3}" -min 8 \
            -max "${EAGER_MAX_BYTES:-16384}" -modes sendrecv,put_notify \
            >"$OUT/eager-$tr-$how.txt" 2>&1
    done
    python3 - "$OUT" "$tr" >>"$table" <<'EOF'
import re, sys
out, tr = sys.argv[1], sys.argv[2]
def medians(how):
    m = {}
    for line in open(f"{out}/eager-{tr}-{how}.txt"):
        f = line.split()
        if len(f) >= 3 and f[0] in ("sendrecv", "put_notify") and f[1].isdigit():
            m[(f[0], int(f[1]))] = float(f[2])
    return m
w, e = medians("write"), medians("eager")
def eager_range(how):
    rng = re.search(r"eager messages for puts of (\d+) to (\d+) bytes", open(f"{out}/eager-{tr}-{how}.txt").read())
    return (int(rng.group(1)), int(rng.group(2))) if rng else (1, 0)
lo, hi = eager_range("default")
# above the largest eager message (the eager run's upper end) both runs write
emax = eager_range("eager")[1]
print(f"== {tr}: default eager range {lo}..{hi} bytes")
print(f"{'bytes':>8} {'write_us':>9} {'eager_us':>9} {'write/sr':>9} {'eager/sr':>9} {'faster':>7} "
      f"{'default':>8} {'sendrecv':>9}")
nan = float("nan")
for n in sorted({k[1] for k in w if k[0] == "put_notify"}):
    wt, et = w[("put_notify", n)], e.get(("put_notify", n), nan)
    wr, er = wt / w[("sendrecv", n)], et / e.get(("sendrecv", n), nan)
    faster = "eager" if er < wr else "write"
    pick = "eager" if lo <= n <= hi else "write"
    # within 10 %: either is right (the ratios swing more than that between runs)
    ok = "ok" if pick == faster or abs(er - wr) <= 0.10 * min(er, wr) else "MISS"
    if n > emax:
        faster, ok = "-", "ok"      # no eager message holds it: both runs wrote
    sr = min(w[("sendrecv", n)], e[("sendrecv", n)])
    print(f"{n:>8} {wt:>9.3f} {et:>9.3f} {wr:>9.2f} {er:>9.2f} {faster:>7} {pick + ' ' + ok:>8} "
          f"{sr:>9.3f}")
EOF
done
cat "$table"
