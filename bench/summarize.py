#!/usr/bin/env python3
"""One-screen summary of a bench/run-bench.sh results directory, plus PNG plots
(gnuplot) of the ping-pong and overlap curves.  Usage: summarize.py DIR"""
import csv, os, subprocess, sys

out = sys.argv[1]
# in the order of the transport table shared with the test suite
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "transports")
TRANSPORTS = [line.split("|")[0].strip() for line in open(TABLE)
              if line.strip() and not line.lstrip().startswith("#")]


def rows(name, tr):
    path = os.path.join(out, f"{name}-{tr}.csv")
    return list(csv.DictReader(open(path))) if os.path.exists(path) else None


def fmt_us(x):
    return f"{x:.2f}us" if x < 1000 else f"{x / 1000:.2f}ms"


lines = []
for tr in TRANSPORTS:
    pp = rows("pingpong", tr)
    if pp:
        for size in ("8", "65536"):
            r = {x["mode"]: float(x["median_us"]) for x in pp if x["bytes"] == size}
            if "put_notify" in r:
                na = r["put_notify"]
                rest = "  ".join(f"{m}={fmt_us(v)}({v / na:.2f}x)" for m, v in r.items()
                                 if m != "put_notify")
                lines.append(f"pingpong {size:>5}B {tr:8} notify={fmt_us(na)}  {rest}")
    mr = rows("msgrate", tr)
    if mr:
        lines.append(f"msgrate        {tr:8} ns/notification at " +
                     ", ".join(f"{x['posted']} posted: {x['ns_per_notification']}" for x in mr))
    wq = rows("workqueue", tr)
    if wq:
        lines.append(f"workqueue      {tr:8} us/item ({wq[0]['producers']} producer(s)) " +
                     "  ".join(f"{x['mode']}={float(x['consumer_us_per_item']):.2f}"
                               f"({float(x['ratio_to_fop_notify']):.2f}x)" for x in wq))
    for name, key in (("stencil", "time_s"), ("tree", "median_us"), ("cholesky", "time_s")):
        rr = rows(name, tr)
        if not rr:
            continue
        na = next((float(x[key]) for x in rr if x["mode"] == "na"), None)
        parts = []
        for x in rr:
            v = float(x[key])
            v_us = v * 1e6 if key == "time_s" else v
            ratio = f"({v / na:.2f}x)" if na and x["mode"] != "na" else ""
            parts.append(f"{x['mode']}={fmt_us(v_us)}{ratio}")
        lines.append(f"{name:14} {tr:8} " + "  ".join(parts))
    jr = rows("jacobi", tr)
    if jr:
        # rounds interleave the variants: the median over rounds of each,
        # and of each round's ratio to the counter variant
        med = lambda v: sorted(v)[len(v) // 2]
        by = {}
        for x in jr:
            by.setdefault(x["mode"], {})[x["round"]] = float(x["median_us"])
        base = by.get("counter", {})
        parts = []
        for m, r in by.items():
            ratio = "" if m == "counter" or not base else \
                f"({med([v / base[k] for k, v in r.items() if k in base]):.2f}x)"
            parts.append(f"{m}={fmt_us(med(list(r.values())))}{ratio}")
        lines.append(f"jacobi/iter     {tr:8} " + "  ".join(parts))

print("\n== summary: time per scheme, (ratio to notified access; >1 = notified access faster) ==")
for l in lines:
    print(l)

# plots
def plot(name, ycol, ylabel, logy, title):
    for tr in TRANSPORTS:
        rr = rows(name, tr)
        if not rr:
            continue
        modes = list(dict.fromkeys(x["mode"] for x in rr))
        data = os.path.join(out, f"{name}-{tr}.dat")
        with open(data, "w") as f:
            for m in modes:
                f.write(f"# {m}\n")
                for x in rr:
                    if x["mode"] == m:
                        f.write(f"{x['bytes']} {x[ycol]}\n")
                f.write("\n\n")
        png = os.path.join(out, f"{name}-{tr}.png")
        plots = ", ".join(f"'{data}' index {i} with linespoints title '{m}'"
                          for i, m in enumerate(modes))
        script = (f"set terminal png noenhanced size 800,500; set output '{png}'; set logscale x 2; set xtics rotate by -45; "
                  + ("set logscale y; " if logy else "")
                  + f"set xlabel 'bytes'; set ylabel '{ylabel}'; set key left top; "
                  f"set title '{title} ({tr}, 2 ranks)'; plot {plots}")
        try:
            subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"plot {png}: gnuplot failed ({e})", file=sys.stderr)

plot("pingpong", "median_us", "median half round trip (us)", True, "ping-pong")
plot("overlap", "overlap", "share of transfer time hidden", False, "sender-side overlap")
