#!/usr/bin/env bash
# What idle windows cost (issue 32): bench/idle_windows.c on this build and
# on stock MPICH 4.0.2 (built by bench/stock-instr.sh into
# _build/install-stock), builds alternating in one run, on shared memory and
# over tcp: 8-byte send/recv with 0..2,000 idle windows on both builds (the
# same mode only), put_notify on this build, window creation and free at 2
# ranks and at 4 (more ranks than cores: fewer windows).
#
#   bench/idle-bench.sh          (make bench-stock runs it)
#   env: PREFIX (_install), BUILD_DIR (_build), IDLE_COUNTS (0,10,100,1000,2000),
#        IDLE_BIG (10000: this build only; stock MPICH 4.0.2 stops at 2,045 windows),
#        IDLE_ITERS (2000), IDLE_CREATE (300), IDLE_REPS (5: send/recv runs per build),
#        IDLE_OUT (a directory for the CSV files)
# Ends with a summary: per transport and idle-window count the median over
# the runs of each run's median, and the ratios the issue asks for.
set -euo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
BUILD=${BUILD_DIR:-$TOP/_build}
# IDLE_STOCK: the stock build to compare with; for ch4:ucx,
# PREFIX=_build/install-ucx IDLE_STOCK=_build/install-stock-ucx (built by
# NA_VARIANT=stock-ucx MPICH_DEVICE=ch4:ucx PREFIX=... scripts/build-mpich.sh)
STOCK=${IDLE_STOCK:-$BUILD/install-stock}
COUNTS=${IDLE_COUNTS:-0,10,100,1000,2000}
BIG=${IDLE_BIG-10000}
OURS_COUNTS=$COUNTS${BIG:+,$BIG}
ITERS=${IDLE_ITERS:-2000}
CREATE=${IDLE_CREATE:-300}
REPS=${IDLE_REPS:-5}
OUT=${IDLE_OUT:-$(mktemp -d)}
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
mkdir -p "$OUT"
builds=(ours)
[ -x "$STOCK/bin/mpicc" ] && builds+=(stock) ||
    echo "idle-bench: no stock MPICH in $STOCK (make bench-stock builds it): this build only" >&2
for b in "${builds[@]}"; do
    p=$PREFIX
    [ "$b" = stock ] && p=$STOCK
    "$p/bin/mpicc" -O2 -I"$TOP/bench" -o "$BIN/idle_windows.$b" "$TOP/bench/idle_windows.c"
done
run() {   # build ranks transport args...
    local b=$1 n=$2 tr=$3; shift 3
    local p=$PREFIX env=(FI_PROVIDER="tcp;ofi_rxm")
    # ch4:ucx over tcp (ch4:ofi ignores it)
    [ "$tr" = tcp ] && env+=(UCX_TLS=tcp,self)
    [ "$b" = stock ] && p=$STOCK
    [ "$tr" = tcp ] && env+=(MPIR_CVAR_NOLOCAL=1)
    echo "## $b, $n ranks, $tr: idle_windows $*"
    env "${env[@]}" timeout 1200 "$p/bin/mpiexec" -n "$n" "$BIN/idle_windows.$b" "$@" \
        -csv "$OUT/$b-$n-$tr-$((++NRUN)).csv"
}
NRUN=0
echo "# bench/idle-bench.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
for tr in shm tcp; do
    # send/recv, the same program on both builds, builds alternating
    for rep in $(seq "$REPS"); do
        for b in "${builds[@]}"; do
            c=$COUNTS
            [ "$b" = ours ] && c=$OURS_COUNTS
            run "$b" 2 "$tr" -modes sendrecv -counts "$c" -iters "$ITERS" -create 0
        done
    done
    # put_notify against itself with no idle windows
    run ours 2 "$tr" -modes put_notify -counts "$OURS_COUNTS" -iters "$ITERS" -create 0
    # window creation and free; 4 ranks oversubscribe the 2 cores (every
    # collective waits for time slices): fewer windows there
    for b in "${builds[@]}"; do
        run "$b" 2 "$tr" -modes none -counts 0 -create "$CREATE"
    done
    for b in "${builds[@]}"; do
        run "$b" 4 "$tr" -modes none -counts 0 -create $(( CREATE / 6 )) -reps 3
    done
done
echo "# CSV files in $OUT"
python3 - "$OUT" <<'PY'
import csv, glob, os, statistics, sys
rows = {}
for f in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    b, n, tr = os.path.basename(f).split("-")[:3]
    with open(f) as fh:
        for r in csv.DictReader(fh):
            key = (tr, r["what"], r["ranks"], r["count"], r["mode"], b)
            rows.setdefault(key, []).append(float(r["median"]))
med = {k: statistics.median(v) for k, v in rows.items()}
print("# summary: median over runs of each run's median (us)")
for tr in ("shm", "tcp"):
    print(f"## {tr}: 8-byte latency by idle windows")
    print("%-7s %10s %10s %8s %12s %10s" % ("idle", "ours", "stock", "ratio", "put_notify", "vs idle=0"))
    counts = sorted({int(k[3]) for k in med if k[0] == tr and k[1] == "latency"})
    pn0 = med.get((tr, "latency", "2", "0", "put_notify", "ours"))
    for c in counts:
        o = med.get((tr, "latency", "2", str(c), "sendrecv", "ours"))
        s = med.get((tr, "latency", "2", str(c), "sendrecv", "stock"))
        p = med.get((tr, "latency", "2", str(c), "put_notify", "ours"))
        f = lambda x: "%.3f" % x if x is not None else "-"
        print("%-7d %10s %10s %8s %12s %10s" % (c, f(o), f(s), f(o / s) if o and s else "-",
              f(p), f(p / pn0) if p and pn0 else "-"))
    print(f"## {tr}: window creation and free, us per window")
    for n in ("2", "4"):
        for k in sorted({k[4] for k in med if k[0] == tr and k[1] == "window" and k[2] == n}):
            o = [v for kk, v in med.items() if kk[:3] == (tr, "window", n) and kk[4] == k and kk[5] == "ours"]
            s = [v for kk, v in med.items() if kk[:3] == (tr, "window", n) and kk[4] == k and kk[5] == "stock"]
            if o and s:
                print("%s ranks %-24s ours %10.2f stock %10.2f ratio %.2f" % (n, k, o[0], s[0], o[0] / s[0]))
PY
