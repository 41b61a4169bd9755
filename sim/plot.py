#!/usr/bin/python3
"""Plots of sim/project.sh's results: sim/plot.py OUTDIR

OUTDIR/projection-APP.png: the speedup of notified access over message
passing (mp time / na time) against the process count, per platform, with
the library's software costs (solid) and the wire alone (dashed); hollow
markers are extrapolated traces; the paper's figure as a grey line.  For the
tree, also MPI_Reduce's time over na's (the paper compares with the
vendor's reduce).  OUTDIR/sensitivity.png: mp / na at each application's
largest size with each notified-access cost at 0.5 and 1.5 times.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The paper's application results (IPDPS'15, section VI): speedups over
# message passing; the tree's is stated against the vendor's MPI_Reduce.
PAPER = {"stencil": (2.17, "paper: 2.17x (Cray XC30)"),
         "cholesky": (1.95, "paper: 1.95x (Cray XC30)"),
         "tree": (1.0, "paper: below the vendor's MPI_Reduce")}


def main(out):
    times = defaultdict(dict)  # (app, platform, np) -> {(mode, kind): s}
    source = {}
    with open(f"{out}/projection.csv") as f:
        for row in csv.DictReader(f):
            key = (row["app"], row["platform"], int(row["np"]))
            for kind in ("wire", "costed"):
                if row[f"{kind}_s"]:  # wire only: at the traced sizes
                    times[key][(row["mode"], kind)] = float(row[f"{kind}_s"])
            source[(row["app"], int(row["np"]))] = row["source"]
    apps = sorted({k[0] for k in times})
    for app in apps:
        fig, ax = plt.subplots(figsize=(6, 4))
        styles = {"dragonfly": "tab:blue", "fattree1024": "tab:orange"}
        for platform, colour in styles.items():
            for kind, line in (("costed", "-"), ("wire", "--")):
                for base, label in (("mp", "mp / na"), ("reduce", "MPI_Reduce / na")):
                    pts = sorted((n, t[(base, kind)] / t[("na", kind)])
                                 for (a, p, n), t in times.items()
                                 if a == app and p == platform and (base, kind) in t and ("na", kind) in t)
                    if not pts:
                        continue
                    xs, ys = zip(*pts)
                    ax.plot(xs, ys, line, color=colour if base == "mp" else "tab:green",
                            label=f"{label}, {platform}, {'with costs' if kind == 'costed' else 'wire only'}")
                    hollow = [(x, y) for x, y in pts if source.get((app, x)) == "extrapolated"]
                    full = [(x, y) for x, y in pts if source.get((app, x)) != "extrapolated"]
                    for group, face in ((full, None), (hollow, "none")):
                        if group:
                            gx, gy = zip(*group)
                            ax.plot(gx, gy, "o", color=colour if base == "mp" else "tab:green",
                                    markerfacecolor=face, markersize=4)
        level, text = PAPER[app]
        ax.axhline(level, color="grey", linewidth=1)
        ax.text(ax.get_xlim()[0], level, " " + text, va="bottom", fontsize=8, color="grey")
        ax.axhline(1.0, color="black", linewidth=0.5)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("processes (hollow: extrapolated trace)")
        ax.set_ylabel("speedup of notified access")
        ax.set_title(f"{app}: projected speedup over the alternative")
        ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(f"{out}/projection-{app}.png", dpi=110)
        plt.close(fig)

    rows = list(csv.DictReader(open(f"{out}/sensitivity.csv")))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    costs = ["notify_origin", "notify_match", "notify_complete"]
    for i, app in enumerate(sorted({r["app"] for r in rows})):
        mine = [r for r in rows if r["app"] == app]
        base = next(float(r["mp_over_na"]) for r in mine if r["cost"] == "all")
        np_ = mine[0]["np"]
        for j, cost in enumerate(costs):
            for factor, shade in (("0.5", 0.45), ("1.5", 0.9)):
                r = next(r for r in mine if r["cost"] == cost and r["factor"] == factor)
                x = i * 4 + j + (0.2 if factor == "1.5" else -0.2)
                ax.bar(x, float(r["mp_over_na"]) - base, width=0.4, bottom=base,
                       color=plt.cm.viridis(j / 3), alpha=shade)
        ax.hlines(base, i * 4 - 0.5, i * 4 + 2.5, color="black", linewidth=1)
        ax.text(i * 4 + 1, ax.get_ylim()[1] if i else base, f"{app}\n{np_} procs", ha="center", fontsize=8)
    ax.set_xticks([i * 4 + j for i in range(len({r["app"] for r in rows})) for j in range(3)])
    ax.set_xticklabels(["origin", "matching", "completion"] * len({r["app"] for r in rows}), fontsize=7)
    ax.set_ylabel("mp / na (bars: cost x0.5 light, x1.5 dark)")
    ax.set_title("sensitivity on the fat tree, with costs")
    fig.tight_layout()
    fig.savefig(f"{out}/sensitivity.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
