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


def fmt_bytes(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def target(text, value, limit, where=""):
    if value is None:
        print(f"  -  {text}: not measured in this run")
    else:
        mark = "\u2713" if value <= limit else "\u2717"
        print(f"  {mark}  {text}: {value:.2f} (<= {limit}){where}")


def runs_of(tr):
    """pingpong-TR.csv and its repeats pingpong-TR.runK.csv"""
    return [rr for rr in [rows("pingpong", tr)] +
            [rows("pingpong", f"{tr}.run{k}") for k in range(2, 10)] if rr]


def worst_median(tr, a, b, lo=8, hi=1 << 30):
    """the largest, over the sizes lo..hi, of the median over the runs of
    each run's median(a) / median(b): (ratio, size, runs)"""
    runs = runs_of(tr)
    worst = (None, None, len(runs))
    for n in sorted({int(x["bytes"]) for rr in runs for x in rr if lo <= int(x["bytes"]) <= hi}):
        got = []
        for rr in runs:
            r = {x["mode"]: float(x["median_us"]) for x in rr if x["bytes"] == str(n)}
            if a in r and b in r and r[b] > 0:
                got.append(r[a] / r[b])
        if got:
            v = sorted(got)[(len(got) - 1) // 2]
            if worst[0] is None or v > worst[0]:
                worst = (v, n, len(runs))
    return worst


def node_targets(tr):
    """issue 64's node targets on transport tr: put_notify against the bound
    and the by-hand flag protocol, get_notify against MPI_Get + flush + flag,
    at the worst size.  Where puts need the target's progress (ch4:ucx) the
    bounds drive it in their spins (bound_progress, get_flag_progress) and
    the by-hand protocol is the correct program (put_flag)."""
    modes = {x["mode"] for rr in runs_of(tr) for x in rr}
    progress = "bound" not in modes and "bound_progress" in modes
    bound = "bound_progress" if progress else "bound"
    by_hand = "put_flag" if progress else "flag_sync"
    get_base = "get_flag_progress" if progress else "get_flag_sync"
    for a, b, limit, what in (("put_notify", bound, 1.15, f"{bound} (MPI_Put + flush, spin)"),
                              ("put_notify", by_hand, 1.0, f"{by_hand} (by hand)"),
                              ("get_notify", get_base, 1.15,
                               f"{get_base} (MPI_Get + flush + flag by hand)")):
        v, n, nruns = worst_median(tr, a, b)
        sizes = sorted({int(x["bytes"]) for rr in runs_of(tr) for x in rr})
        span = f"{fmt_bytes(sizes[0])}-{fmt_bytes(sizes[-1])}" if sizes else ""
        target(f"{tr} {a} / {what}, worst size {span}, {nruns} run(s)", v, limit,
               f" at {fmt_bytes(n)}" if n else "")
        if b == "bound" and "floor" in modes:
            # what MPICH's own MPI_Start + MPI_Wait (of a MPI_PROC_NULL
            # receive) add to the bound: a request-based notification's least
            fv, fn, fruns = worst_median(tr, "put_notify", "floor")
            bv, bn, _ = worst_median(tr, "floor", "bound")
            if fv is not None:
                print(f"       put_notify / floor (bound + MPICH's MPI_Start + MPI_Wait of "
                      f"nothing), worst size: {fv:.2f} at {fmt_bytes(fn)}, {fruns} run(s); "
                      f"floor / bound worst {bv:.2f} at {fmt_bytes(bn)}")
    # derived datatypes: a vector of 4 KiB blocks on both sides
    if rows("pingpong", f"{tr}.vector4k"):
        for a, b in (("put_notify", bound), ("get_notify", get_base)):
            v, n, _ = worst_median(f"{tr}.vector4k", a, b)
            target(f"{tr}, vector of 4 KiB blocks: {a} / {b}, worst size", v, 1.15,
                   f" at {fmt_bytes(n)}" if n else "")


if len(sys.argv) > 2 and sys.argv[2] == "--node-targets":   # bench/ucx-bench.sh
    for tr in sys.argv[3:]:
        node_targets(tr)
    sys.exit(0)
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
    pl = rows("pipeline", tr)
    if pl:
        # per amount of work: time per item at the consumer
        for w in dict.fromkeys(x["work_us"] for x in pl):
            rr = [x for x in pl if x["work_us"] == w]
            na = next(float(x["us_per_item"]) for x in rr if x["mode"] == "na")
            lines.append(f"pipeline {int(w):>4}us {tr:8} us/item " + "  ".join(
                f"{x['mode']}={float(x['us_per_item']):.2f}" +
                (f"({float(x['us_per_item']) / na:.2f}x)" if x["mode"] != "na" else "")
                for x in rr))
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

# issue 17's targets, each from this run (ratios of one run of one binary)
def pp_ratio(tr, size, a, b):
    """median(a) / median(b) at size on transport tr, None if not measured"""
    rr = rows("pingpong", tr) or []
    r = {x["mode"]: float(x["median_us"]) for x in rr if x["bytes"] == str(size)}
    return r[a] / r[b] if a in r and b in r and r[b] > 0 else None


def pp_worst(tr, a, b, lo=8, hi=1 << 20):
    """the largest median(a) / median(b) over the sizes lo..hi measured on tr"""
    rr = rows("pingpong", tr) or []
    sizes = sorted({int(x["bytes"]) for x in rr if lo <= int(x["bytes"]) <= hi})
    vals = [(pp_ratio(tr, n, a, b), n) for n in sizes]
    vals = [v for v in vals if v[0] is not None]
    return max(vals) if vals else (None, None)


def peer_ratio(rr, n):
    """put_notify / the fastest of send/recv, persistent and partitioned
    send/recv at size n in one run's rows: (ratio, peer), or None"""
    r = {x["mode"]: float(x["median_us"]) for x in rr if x["bytes"] == str(n)}
    peers = [m for m in ("sendrecv", "psendrecv", "partitioned") if m in r]
    if "put_notify" not in r or not peers:
        return None
    best = min(peers, key=lambda m: r[m])
    return r["put_notify"] / r[best], best


def pp_worst_peer(tr, lo=8, hi=1 << 20):
    """the largest put_notify / peer over the sizes lo..hi measured on tr, where
    peer is send/recv, or persistent or partitioned send/recv where those
    are faster than it at that size (issue 34).  With repeated runs
    (pingpong-TR.runK.csv) each size's ratio is the median of the runs'
    ratios, each from one run.  Returns (ratio, size, peer, runs)."""
    runs = [rr for rr in [rows("pingpong", tr)] +
            [rows("pingpong", f"{tr}.run{k}") for k in range(2, 10)] if rr]
    worst = (None, None, None, len(runs))
    if not runs:
        return worst
    for n in sorted({int(x["bytes"]) for x in runs[0] if lo <= int(x["bytes"]) <= hi}):
        got = sorted(v for v in (peer_ratio(rr, n) for rr in runs) if v)
        if not got:
            continue
        v, best = got[(len(got) - 1) // 2]     # the median (the lower one of an even count)
        if worst[0] is None or v > worst[0]:
            worst = (v, n, best, len(runs))
    return worst


print("\n== issue 34 targets (this run) ==")
target("shm 8 B put_notify / bound (MPI_Put + flush, MPI_Win_sync spin)",
       pp_ratio("shm", 8, "put_notify", "bound"), 1.3)
def below_least(tr, size, base, limit, least):
    """where limit x base asks for less time than the run's least (bound:
    MPI_Put + flush, the target spinning on the byte; floor: the same with
    MPI_Start + MPI_Wait of a MPI_PROC_NULL receive, what the matching
    dialect's calls add in MPICH's own code), nothing with those calls can
    meet it in this run: say so, with the figures"""
    rr = rows("pingpong", tr) or []
    r = {x["mode"]: float(x["median_us"]) for x in rr if x["bytes"] == str(size)}
    if base not in r or least not in r or limit * r[base] >= r[least]:
        return ""
    return (f"; asks for {limit * r[base]:.3f} us, below this run's {least} "
            f"{r[least]:.3f} us (cache line {r.get('cacheline', float('nan')):.3f} us)")


target("shm 8 B put_notify / flag_sync (by-hand flag protocol)",
       pp_ratio("shm", 8, "put_notify", "flag_sync"), 0.9,
       below_least("shm", 8, "flag_sync", 0.9, "floor"))
target("shm 8 B put_counter / flag_sync", pp_ratio("shm", 8, "put_counter", "flag_sync"), 0.8,
       below_least("shm", 8, "flag_sync", 0.8, "bound"))
target("shm 8 B put_notify / cache-line floor", pp_ratio("shm", 8, "put_notify", "cacheline"), 2.5)
v, n = pp_worst("shm", "get_notify", "put_notify")
target("shm get_notify / put_notify, worst size", v, 1.5, f" at {n} B" if n else "")
for tr in ("tcp", "sockets", "netns"):
    v, n, peer, nruns = pp_worst_peer(tr)
    target(f"{tr} put_notify / fastest of send/recv, persistent, partitioned, worst size "
           f"8 B-1 MiB{f', median of {nruns} runs' if nruns > 1 else ''}", v, 1.0,
           f" at {n} B (against {peer})" if n else "")
    target(f"{tr} 8 B put_notify / put_flush_send", pp_ratio(tr, 8, "put_notify", "put_flush_send"),
           0.45)
# bench/eager-table.sh: per transport, sizes where the default range picks
# the slower of write and eager message
table = os.path.join(out, "eager-table.txt")
if os.path.exists(table):
    tr, miss = None, {}
    for l in open(table):
        if l.startswith("== "):
            tr = l.split()[1].rstrip(":")
            miss[tr] = []
        elif tr and " MISS " in l:
            miss[tr].append(l.split()[0])
    for tr, m in miss.items():
        target(f"{tr}: sizes where the default eager range picks the slower path "
               "(eager-table.txt)", len(m), 0, f" ({', '.join(m)} B)" if m else "")


print("\n== issue 64 targets (this run; every size, medians of the runs' ratios) ==")
node_targets("shm")
for tr in ("shm", "tcp"):
    for size in (8, 4096):
        rr = {x["mode"]: float(x["msgs_per_s"])
              for x in (rows("rate", tr) or []) + (rows("rate", f"{tr}.4k") or [])
              if int(x["bytes"]) == size}
        target(f"{tr} {size} B message rate, 64 in flight: isend / put_notify",
               rr["isend"] / rr["put_notify"] if "isend" in rr and rr.get("put_notify") else None,
               1.0)
instr = os.path.join(out, "instr.txt")
if os.path.exists(instr):
    tot = {l.split()[0]: int(l.split()[3]) for l in open(instr)
           if len(l.split()) >= 4 and l.split()[3].isdigit()}
    # floor: the same MPI calls in MPICH's own code, no notification
    # (bench/instr.c); the target cannot go below it
    fl = (f" (floor, MPI_Put + flush and MPI_Start + MPI_Wait of a MPI_PROC_NULL "
          f"receive: {tot['floor'] / tot['sendrecv']:.2f}; put_notify / floor "
          f"{tot['put_notify'] / tot['floor']:.2f})"
          if "floor" in tot and "sendrecv" in tot and "put_notify" in tot else "")
    target("instructions, 8 B put_notify / send+recv (callgrind)",
           tot["put_notify"] / tot["sendrecv"] if "put_notify" in tot and "sendrecv" in tot
           else None, 0.35, fl)
    # the target's part of the critical path: its MPI_Wait once the
    # notification is there (bench/instr.c -posted 1), against MPICH's
    # MPI_Wait of a complete receive
    tgt = {l.split()[0]: int(l.split()[2]) for l in open(instr)
           if len(l.split()) >= 4 and l.split()[2].isdigit()}
    if "put_notify_posted" in tgt and "floor_posted" in tgt:
        print(f"     target's MPI_Wait after the arrival: {tgt['put_notify_posted']} instructions, "
              f"MPICH's MPI_Wait of a complete receive {tgt['floor_posted']}")
else:
    target("instructions, 8 B put_notify / send+recv (callgrind)", None, 0.35)
# bench/stock-instr.sh: "mode stock ours ratio" (make bench-stock builds stock MPICH)
stock = os.path.join(out, "stock-instr.txt")
ratios = {}
if os.path.exists(stock):
    ratios = {l.split()[0]: float(l.split()[3]) for l in open(stock)
              if len(l.split()) == 4 and not l.startswith(("#", "mode"))}
for m, what in (("sendrecv_nowin", "send+recv, no window"),
                ("sendrecv", "send+recv, a window allocated"),
                ("put_flush", "MPI_Put + flush"),
                ("floor", "MPI_Put + flush, MPI_Start + MPI_Wait of a receive")):
    target(f"instructions, 8 B {what}: this build / stock MPICH", ratios.get(m), 1.01)


# plots (gnuplot): each ping-pong path twice, pingpong-TR.png with the six
# series that answer "should I use this" (scripts/quickstart.sh shows it) and
# pingpong-TR-all.png with every mode of the CSV; the overlap curves
PATHS = {line.split("|")[0].strip(): line.split("|")[2].strip() for line in open(TABLE)
         if line.count("|") >= 2 and not line.lstrip().startswith("#")}
# Okabe-Ito's colours (told apart with colour-blindness; grey for its yellow)
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000",
           "#999999"]
MARKERS = [7, 5, 9, 13, 11, 6, 4, 8]


def size_label(n):
    for unit, shift in (("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def xtics(sizes):
    """labels at every 4th power of two (every 8th past 16 sizes, every size
    up to 8 of them), minor tics at the others"""
    step = 3 if len(sizes) > 16 else 2 if len(sizes) > 8 else 1
    major = lambda n: step == 1 or (n // sizes[0]).bit_length() % step == 1
    return ", ".join(f'"{size_label(n) if major(n) else ""}" {n} {0 if major(n) else 1}'
                     for n in sizes)


def ytics(lo, hi):
    """log axis from lo to hi: labels at 1, 2 and 5 of each decade when it
    spans 3 decades or less, else at the decades"""
    import math
    steps = (1, 2, 5) if hi / lo <= 1000 else (1,)
    return ", ".join(f"{m * 10.0 ** e:g}" for e in range(math.floor(math.log10(lo)),
                                                       math.ceil(math.log10(hi)) + 1)
                     for m in steps if lo <= m * 10.0 ** e <= hi)


def gnuplot(png, title, xlabel, ylabel, logy, sizes, series, width=1000, height=620, key="below",
            yr=None):
    """series: (data file, index, title, style) per curve; key: the legend
    below the plot (in 2 columns) or right of it"""
    plots = ", ".join(f"'{d}' index {i} using 1:2 with linespoints {st} title '{t}'"
                      for d, i, t, st in series)
    script = "; ".join([
        f"set terminal pngcairo noenhanced size {width},{height} font 'DejaVu Sans,10'",
        f"set output '{png}'", "set logscale x 2", f"set xtics ({xtics(sizes)})",
        "set logscale y" if logy else "set yrange [0:*]", "set format y '%g'",
        "set grid xtics ytics mytics lc rgb '#dddddd' lw 1, lc rgb '#eeeeee' lw 1",
        f"set xlabel '{xlabel}'", f"set ylabel '{ylabel}'", f"set title '{title}'",
        "set key outside right top vertical Left reverse spacing 1.2 box lc rgb '#aaaaaa'"
        if key == "right" else
        f"set key outside below center vertical Left reverse maxrows {(len(series) + 1) // 2} "
        "width 1 box lc rgb '#aaaaaa'; set bmargin 8",
        f"set yrange [{yr[0]}:{yr[1]}]; set ytics ({ytics(*yr)})" if yr else "",
        f"set xrange [{sizes[0] / 1.2}:{sizes[-1] * 1.2}]", f"plot {plots}"])
    try:
        subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"plot {png}: gnuplot failed ({e})", file=sys.stderr)


def write_dat(name, tr, rr, modes, ycol):
    data = os.path.join(out, f"{name}-{tr}.dat")
    with open(data, "w") as f:
        for m in modes:
            f.write(f"# {m}\n")
            for x in rr:
                if x["mode"] == m:
                    f.write(f"{x['bytes']} {x[ycol]}\n")
            f.write("\n\n")
    return data


def style(i, width=1.5):
    return (f"lc rgb '{COLOURS[i % len(COLOURS)]}' pt {MARKERS[i % len(MARKERS)]} ps 1.1 "
            f"lw {width} dt {i // len(COLOURS) + 1}")


def plot_all(name, ycol, ylabel, logy, title):
    for tr in TRANSPORTS:
        rr = rows(name, tr)
        if not rr:
            continue
        modes = list(dict.fromkeys(x["mode"] for x in rr))
        data = write_dat(name, tr, rr, modes, ycol)
        sizes = sorted({int(x["bytes"]) for x in rr})
        suffix = "-all" if name == "pingpong" else ""
        gnuplot(os.path.join(out, f"{name}-{tr}{suffix}.png"),
                f"{title} on {tr} ({PATHS.get(tr, '?')} path), 2 ranks",
                "message size (bytes, log2 scale)", ylabel, logy, sizes,
                [(data, i, m, style(i)) for i, m in enumerate(modes)], width=1100, key="right")


def plot_key_pingpong():
    """the six series: send/recv, partitioned, the by-hand flag protocol,
    put_notify, get_notify and the bound (on paths whose puts need the
    target's progress the by-hand protocol is put_flag and the bound
    bound_progress, as in node_targets)"""
    for tr in TRANSPORTS:
        rr = rows("pingpong", tr)
        if not rr:
            continue
        have = {x["mode"] for x in rr}
        by_hand = "flag_sync" if "flag_sync" in have else "put_flag"
        bound = "bound" if "bound" in have else "bound_progress"
        # put_notify last: drawn on top of the curves it shares
        key = [("sendrecv", "send/recv (MPI_Send, MPI_Recv)", "#0072B2", 7, 2, 1),
               ("partitioned", "partitioned send/recv (MPI_Psend_init)",
                "#56B4E9", 4, 2, 1),
               (by_hand, f"{by_hand}: by hand, put + flush + flag put",
                "#009E73", 9, 2, 1),
               (bound, f"{bound}: put + flush + spin (not valid MPI)",
                "#000000", 6, 1.5, 2),
               ("get_notify", "get_notify (MPI_Get_notify + flush)", "#CC79A7", 11, 2, 1),
               ("put_notify", "put_notify (MPI_Put_notify + flush)", "#D55E00", 13, 3, 1)]
        key = [k for k in key if k[0] in have]
        data = os.path.join(out, f"pingpong-{tr}.key.dat")
        with open(data, "w") as f:
            for m, *_ in key:
                f.write(f"# {m}\n")
                for x in rr:
                    if x["mode"] == m:
                        f.write(f"{x['bytes']} {x['median_us']}\n")
                f.write("\n\n")
        sizes = sorted({int(x["bytes"]) for x in rr})
        ys = [float(x["median_us"]) for x in rr if x["mode"] in [k[0] for k in key]]
        gnuplot(os.path.join(out, f"pingpong-{tr}.png"),
                f"Ping-pong on {tr} ({PATHS.get(tr, '?')} path), 2 ranks: median of each size",
                "message size (bytes, log2 scale)", "half round-trip time (microseconds, log scale)",
                True, sizes,
                [(data, i, t, f"lc rgb '{c}' pt {pt} ps 1.2 lw {w} dt {dt}")
                 for i, (m, t, c, pt, w, dt) in enumerate(key)],
                yr=(min(ys) / 1.5, max(ys) * 1.5))


plot_key_pingpong()
plot_all("pingpong", "median_us", "half round-trip time (microseconds, log scale)", True,
         "Ping-pong, every mode,")
plot_all("overlap", "overlap", "share of transfer time hidden", False, "Sender-side overlap")
