#!/usr/bin/env bash
# One command on a fresh machine: install the Debian build dependencies, build
# and install the patched MPICH into _install/, compile the paper's ping-pong
# example with the installed mpicc and run it on 2 processes, then run the
# quick benchmarks (ping-pong of every scheme, a small Cholesky) and say in
# two lines per path what the ping-pong shows, with a picture of it
# (pingpong-PATH.png: the six series that answer "should I use this"; every
# mode is in pingpong-PATH.csv and pingpong-PATH-all.png, bench/run-bench.sh's
# whole output and summary in run-bench.log, all in one directory).
# Arguments go to ./configure (e.g. --prefix=DIR, --with-device=ch4:ucx).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
[ -x configure ] || autoreconf -i >/dev/null
./configure "$@"
make
prefix=$(sed -n 's/^prefix = //p' Makefile)
mkdir -p _build/demo
echo "== demo: the ping-pong of the Notified Access paper (Listing 1), 2 processes =="
"$prefix/bin/mpicc" -O2 -o _build/demo/pingpong_notify examples/pingpong_notify.c
FI_PROVIDER="tcp;ofi_rxm" "$prefix/bin/mpiexec" -n 2 _build/demo/pingpong_notify 65536 200
"$prefix/bin/mpichversion" | grep -e "MPICH Version" -e "Custom"
echo "== quick benchmarks (bench/run-bench.sh --quick; 'make bench' runs them all) =="
out=${BENCH_OUT:-$PWD/_bench/quickstart-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
# the whole output to run-bench.log, its "== ... ==" steps on the terminal
PREFIX="$prefix" BENCH_OUT="$out" bash bench/run-bench.sh --quick 2>&1 |
    tee "$out/run-bench.log" | awk '/^== summary/ { s = 1 } !s && /^== / { print; fflush() }' ||
    { tail -n 20 "$out/run-bench.log"; echo "quickstart: the benchmarks failed ($out/run-bench.log)" >&2; exit 1; }
# per path: put_notify against send/recv, the by-hand flag protocol and the
# bound, at the smallest and the largest size (medians, one run)
python3 - "$out" <<'EOF'
import csv, glob, os, sys
out = sys.argv[1]
def size(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"
print("== what the ping-pong says (put_notify's time / the other's: below 1, put_notify is faster) ==")
for path in sorted(glob.glob(os.path.join(out, "pingpong-*.csv"))):
    tr = os.path.basename(path)[len("pingpong-"):-len(".csv")]
    if "." in tr:                                   # repeats, -block runs
        continue
    t = {(x["mode"], int(x["bytes"])): float(x["median_us"]) for x in csv.DictReader(open(path))}
    modes = {m for m, _ in t}
    if "put_notify" not in modes:
        continue
    sizes = sorted({n for m, n in t if m == "put_notify"})
    lo, hi = sizes[0], sizes[-1]
    hand = "flag_sync" if "flag_sync" in modes else "put_flag"      # puts needing target progress: put_flag
    bound = "bound" if "bound" in modes else "bound_progress"
    def r(b, n):
        a, v = t.get(("put_notify", n)), t.get((b, n))
        return f"{a / v:.2f}x" if a and v else "n/a"
    print(f"{tr}: put_notify {t[('put_notify', lo)]:.2f} us at {size(lo)}: {r('sendrecv', lo)} send/recv, "
          f"{r(hand, lo)} the by-hand flag protocol ({hand}); at {size(hi)}: {r('sendrecv', hi)} and {r(hand, hi)}.")
    print(f"{tr}: put_notify / bound {r(bound, lo)} at {size(lo)}, {r(bound, hi)} at {size(hi)} ({bound}: "
          f"MPI_Put + flush, the target spinning on the data, no notification; 1.00x = notifying for free).")
EOF
for png in "$out"/pingpong-*.png; do
    [ -e "$png" ] || continue
    case $png in *-all.png | *.*.png) ;; *) echo "picture: $png" ;; esac
done
echo "every mode and size: $out/pingpong-*.csv; the benchmarks' whole summary: $out/run-bench.log"
