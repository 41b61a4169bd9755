#!/usr/bin/env python3
"""Read pingpong -trace CSV files; per mode and size print the median half
round trip, the fastest, and the share of trips slower than 1.6x the
fastest: a two-state latency (fast, then slow, in turn) shows as a median
near the slow state with a share near one half.

    python3 bench/trip-shares.py TRACE.csv...
"""
import csv
import statistics
import sys

SLOW = 1.6

rows = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.setdefault((r["mode"], int(r["bytes"])), []).append(float(r["us"]))
if not rows:
    sys.exit("trip-shares: no trips (give pingpong -trace files)")
print(f"{'mode':<15} {'bytes':>8} {'trips':>6} {'median_us':>10} {'fastest_us':>10} "
      f"{'slow_share':>10}")
for (mode, size), us in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    fastest = min(us)
    slow = sum(u > SLOW * fastest for u in us) / len(us)
    print(f"{mode:<15} {size:>8} {len(us):>6} {statistics.median(us):>10.2f} "
          f"{fastest:>10.2f} {slow:>10.2f}")
