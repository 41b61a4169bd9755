#!/usr/bin/env python3
"""Check where natrace-plot puts things (its layout(), no drawing needed),
on real traces and on made-up ones:

    natrace_plot_check.py NATRACE-PLOT DIR [OUTDIR]

- DIR's natrace.*.json (a run of test/tools/natrace_prog.c): every arrival drawn,
  each mark on its own rank's row, each arrow from its origin's row to its
  target's, its head at the target's bars;
- a made-up trace where rank 0 is the target (matches, counter updates, a
  refusal at rank 0, arrivals from rank 1 and from rank 0 itself): the same;
- a made-up trace of 2,000 arrivals among 4 ranks, each matched: thinned to
  at most the default --max-arrows arrows, every origin and target still
  drawn, at most one mark per rank, kind and bin, and the subtitle saying
  so; with matplotlib it is drawn too (OUTDIR/natrace-many.png, the
  legend's labels saying how many were drawn) and so is the second one
  (OUTDIR/natrace-rank0.png).

Prints what failed and exits 1, or one line and exits 0.
"""
import glob
import importlib.machinery
import importlib.util
import json
import os
import sys

errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond


def load_plot(path):
    loader = importlib.machinery.SourceFileLoader("natrace_plot", path)
    spec = importlib.util.spec_from_loader("natrace_plot", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def nearest(rows, y):
    """The rank whose row is nearest to y."""
    return min(rows, key=lambda r: abs(rows[r] - y))


def instant(name, ts_us, **args):
    return {"name": name, "ph": "i", "s": "t", "ts": ts_us, "args": args}


def geometry(natplot, ranks, lay, what):
    """Marks on their own rank's row, arrows from origin's row to target's."""
    rows = lay["rows"]
    for kind, pts in lay["marks"].items():
        for t, r, y in pts:
            if not check(y == rows[r], f"{what}: {kind} of rank {r} at {t} ms drawn at y {y}, "
                         f"not on its row {rows[r]}"):
                return
    # the arrivals of each time (ms): their (origin row, target row)
    at = {}
    for r, evs in ranks.items():
        for e in evs:
            if e["ph"] == "i" and e["name"] == "notify_arrival":
                src = e["args"].get("source")
                at.setdefault(e["ts"] / 1e3, set()).add((rows.get(src, rows[r]), rows[r]))
    for path, arrows in lay["arrows"].items():
        for t, y0, y1 in arrows:
            pairs = at.get(t, set())
            src, dst = rows[nearest(rows, y0)], rows[nearest(rows, y1)]
            if not check((src, dst) in pairs, f"{what}: {path} arrow at {t} ms drawn from row "
                         f"{src} to row {dst}, arrivals then: {sorted(pairs)}"):
                return
            if src != dst:
                check(abs(abs(y1 - dst) - natplot.BAR) < 1e-9,
                      f"{what}: arrow head at y {y1}, not at the edge of row {dst}'s bars")


def drawn(lay):
    return sum(len(v) for v in lay["arrows"].values())


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    natplot = load_plot(sys.argv[1])
    outdir = sys.argv[3] if len(sys.argv) == 4 else None
    mpl = None
    if outdir:
        try:     # not natplot.import_matplotlib(), which may start natrace-plot instead
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            from matplotlib.collections import LineCollection
            mpl = (plt, LineCollection)
        except ImportError:
            pass

    # 1. a real run
    files = sorted(glob.glob(os.path.join(sys.argv[2], "natrace.*.json")))
    if check(files, f"{sys.argv[2]}: no natrace.*.json"):
        ranks, _ = natplot.load(files)
        lay = natplot.layout(ranks)
        n = sum(lay["counts"]["arrivals"].values())
        check(n > 0 and drawn(lay) == n and not lay["note"],
              f"{sys.argv[2]}: {drawn(lay)} of {n} arrivals drawn, note {lay['note']!r}")
        geometry(natplot, ranks, lay, sys.argv[2])

    # 2. rank 0 the target: its marks on its row, not between the rows
    rank0 = {0: [], 1: []}
    for k in range(5):
        t = 100.0 + 50 * k
        rank0[0] += [instant("notify_arrival", t, win=1, source=1, tag=3, counter=None,
                             path=0, path_name="ring", bytes=8),
                     instant("notify_match", t + 5, win=1, request=2, source=1, tag=3, bytes=8)]
    rank0[0] += [instant("notify_arrival", 400.0, win=1, source=0, tag=None, counter=0,
                         path=0, path_name="ring", bytes=8),
                 instant("notify_counter_update", 401.0, win=1, counter=0, value=1),
                 instant("notify_refused", 420.0, win=1, target=1)]
    rank0[1] += [instant("notify_counter_update", 300.0, win=1, counter=0, value=1)]
    lay = natplot.layout(rank0)
    check(drawn(lay) == 6 and not lay["note"], f"rank 0 target: {drawn(lay)} of 6 arrows drawn")
    check(sorted(r for pts in lay["marks"].values() for _, r, _ in pts) == [0] * 7 + [1],
          "rank 0 target: marks not of the ranks that recorded them")
    geometry(natplot, rank0, lay, "rank 0 target")

    # 3. many: 2,000 arrivals over 1 s, r -> (r + 1) % 4 and back, each matched
    many = {r: [] for r in range(4)}
    for k in range(2000):
        src, t = k % 4, 1000.0 + k * 500.0
        dst = (src + 1) % 4 if k % 8 < 4 else (src + 3) % 4
        many[dst] += [instant("notify_arrival", t, win=1, source=src, tag=3, counter=None,
                              path=k % 2, path_name=("ring", "cq-data")[k % 2], bytes=64),
                      instant("notify_match", t + 100, win=1, request=2, source=src, tag=3,
                              bytes=64)]
    lay = natplot.layout(many)
    pairs = {(a["args"]["source"], r, a["args"]["path_name"]) for r, evs in many.items()
             for a in evs if a["name"] == "notify_arrival"}
    seen = {(nearest(lay["rows"], y0), nearest(lay["rows"], y1), path)
            for path, arrows in lay["arrows"].items() for _, y0, y1 in arrows}
    check(sum(lay["counts"]["arrivals"].values()) == 2000, "many: arrivals not all counted")
    check(0 < drawn(lay) <= natplot.MAX_ARROWS,
          f"many: {drawn(lay)} arrows drawn, expected 1..{natplot.MAX_ARROWS}")
    check(seen == pairs, f"many: origin, target and path drawn {sorted(seen)}, "
          f"not those of the arrivals {sorted(pairs)}")
    per_bin = {}
    for _, r, _ in lay["marks"]["notify_match"]:
        per_bin[r] = per_bin.get(r, 0) + 1
    nbins = max(1, natplot.MAX_ARROWS // len(pairs))
    check(lay["bin"] and all(n <= nbins + 1 for n in per_bin.values()),
          f"many: matches drawn per rank {per_bin}, more than one per bin ({nbins} bins)")
    check(lay["note"].startswith("thinned:") and lay["density"],
          f"many: no note or no arrivals strip: {lay['note']!r}")
    geometry(natplot, many, lay, "many")
    check(drawn(natplot.layout(many, 0)) == 2000, "many: --max-arrows 0 does not draw them all")

    plotted = ""
    if mpl and not errors:
        os.makedirs(outdir, exist_ok=True)
        out = os.path.join(outdir, "natrace-many.png")
        title, labels = natplot.plot(many, out, None, 80, (10, 4.3), mpl)
        check(lay["note"] in title and "natrace: 4 ranks, 2000" in title,
              f"many: the title {title!r} does not say it is thinned")
        check(any(lab.startswith("arrival: ring (1000, ") and lab.endswith(" drawn)")
                  for lab in labels), f"many: the legend does not say how many drawn: {labels}")
        check(os.path.getsize(out) > 0, f"{out} is empty")
        natplot.plot(rank0, os.path.join(outdir, "natrace-rank0.png"), None, 80, (10, 2.9), mpl)
        plotted = f", drawn in {outdir}"

    if errors:
        for e in errors:
            print(f"natrace_plot_check: {e}", file=sys.stderr)
        return 1
    print(f"natrace_plot_check: layout as expected (a real run, rank 0 a target, 2000 "
          f"arrivals thinned to {drawn(lay)} arrows{plotted})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
