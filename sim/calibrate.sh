#!/usr/bin/env bash
# Calibrate sim/platforms/local.xml (+ local.cfg) on this machine.
#
#   sim/calibrate.sh            measure, then fit
#   sim/calibrate.sh --fit      fit again from the CSVs already measured
#
# Measures with the installed MPICH (PREFIX, default the repository's
# _install; read-only use) and the project's ping-pong (bench/pingpong.c):
#   platforms/local-pingpong.csv      2 processes, shared memory (MPICH
#       ch4's shm module, FI_PROVIDER="tcp;ofi_rxm" as in make bench), modes
#       sendrecv and put_notify, 8 B to 4 MiB, the median half round trip;
#   platforms/local-pingpong-np4.csv  the same, 8 B to 64 KiB, while a
#       second ping-pong runs: 4 processes on this machine's cores (and
#       local-pingpong-np4-mean.csv: the mean and longest trip);
#   platforms/local-machine.txt       cores, CPU model, date.
# Then sim/calibrate.py fits local.xml and local.cfg to them and prints
# measured against replayed times.  CALIB_ITERS (default 1000) round trips
# per size.  Run it on an otherwise idle machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/platforms
if [ "${1:-}" != --fit ]; then
    PREFIX=${PREFIX:-$top/_install}
    [ -x "$PREFIX/bin/mpicc" ] || { echo "calibrate.sh: no MPICH in $PREFIX (PREFIX=...)" >&2; exit 2; }
    mkdir -p "$here/_build"
    "$PREFIX/bin/mpicc" -O2 -o "$here/_build/pingpong" "$top/bench/pingpong.c" -lm
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    export FI_PROVIDER="tcp;ofi_rxm"
    iters=${CALIB_ITERS:-1000}
    run() { timeout 600 "$PREFIX/bin/mpiexec" -n 2 "$here/_build/pingpong" -n "$1" -w 50 \
                -modes sendrecv,put_notify -min 8 -max "$2" -csv "$3" "${@:4}"; }
    echo "== 2 processes"
    run "$iters" 4194304 "$out/local-pingpong.csv"
    echo "== 4 processes: two ping-pongs at once"
    # every trip kept (-trace): a pair stalls whenever the scheduler runs
    # the other pair, which a median hides and a mean shows
    # (5 times as many trips, so that the two runs overlap for a while)
    run $((iters * 5)) 65536 "$out/local-pingpong-np4.csv" -trace "$here/_build/np4-trips.csv" &
    first=$!
    run $((iters * 5)) 65536 /dev/null >/dev/null
    wait $first
    python3 - "$here/_build/np4-trips.csv" >"$out/local-pingpong-np4-mean.csv" <<'EOF'
import csv, sys
from collections import defaultdict
trips = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    trips[(row["mode"], int(row["bytes"]))].append(float(row["us"]))
print("mode,bytes,mean_us,max_us")
for (mode, size), us in sorted(trips.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print("%s,%d,%.3f,%.3f" % (mode, size, sum(us) / len(us), max(us)))
EOF
    { echo "cores=$(nproc)"
      echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
      echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
      echo "mpich=$PREFIX"
      echo "load_before=$load"; } >"$out/local-machine.txt"
fi
"$here/build.sh"
python3 "$here/calibrate.py" "$out"
