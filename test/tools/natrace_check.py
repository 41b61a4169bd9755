#!/usr/bin/env python3
"""Check the traces natrace wrote (natrace/natrace.c) against what is known
of the program that ran.

    natrace_check.py [--ranks N] [--path NAME] [--barriers] [--prog natrace_prog]
                     [--expect SPEC]... [--sequence SPEC]... DIR

Always checked, for each DIR/natrace.R.json: the Chrome trace event format
as natrace writes it (a traceEvents list; "M" metadata naming the process
"rank R"; "X" spans of the blocking calls, cat "wait", with ts and dur; "i"
instants (s "t") of the notify events, cat "notify", with their elements as
args), pid R, otherData (rank, size, paths, events, dropped = 0), the
elements of each event (an arrival names a tag or a counter, its path_name is
paths[path]), times sorted, and at each time no more matches than tagged
arrivals of the same window, source and tag before.

    --ranks N       exactly the files natrace.0.json .. natrace.N-1.json
    --path NAME     every notify_arrival took path NAME (ring, cq-data, ...)
    --expect SPEC   "RANK EVENT [KEY=VALUE...] OP COUNT": the number of
                    EVENT (an event or call name) at RANK ('*': all ranks)
                    whose args have those values (VALUE: integer, null or
                    a word) compared with OP (==, >=, <=) to COUNT
    --sequence SPEC "RANK EVENT KEY V1,V2,...": the values of KEY of the
                    EVENTs at RANK, in time order
    --barriers      every MPI_Barrier was on MPI_COMM_WORLD: the k-th one of
                    each rank overlaps the k-th of every other (the ranks'
                    clocks agree, as they must on one host)
    --prog natrace_prog  the expectations of test/tools/natrace_prog.c

Prints what failed and exits 1, or a one-line summary and exits 0.
"""
import argparse
import glob
import json
import os
import re
import sys

# the args of each notify event, in the order of its MPI_T elements
NOTIFY_ARGS = {
    "notify_arrival": ["win", "source", "tag", "counter", "path", "path_name", "bytes"],
    "notify_match": ["win", "request", "source", "tag", "bytes"],
    "notify_counter_update": ["win", "counter", "value"],
    "notify_dropped": ["win", "source", "counter"],
    "notify_refused": ["win", "target"],
}
CALLS = {"MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Recv", "MPI_Barrier"}

# test/tools/natrace_prog.c: 5 MPI_Put_notify with tag 3 and 2 MPIX_Put_notify on
# counter 0 from rank 0 to rank 1, matched by 5 x (MPI_Start, MPI_Wait)
PROGS = {
    "natrace_prog": {
        "ranks": 2,
        "expect": [
            "1 notify_arrival == 7",
            "1 notify_arrival source=0 tag=3 counter=null bytes=64 == 5",
            "1 notify_arrival source=0 tag=null counter=0 bytes=64 == 2",
            "1 notify_match source=0 tag=3 bytes=64 == 5",
            "1 notify_counter_update counter=0 == 2",
            "1 MPI_Wait >= 5",
            "* MPI_Barrier >= 2",
            "0 notify_arrival == 0",
            "0 notify_match == 0",
            "0 notify_counter_update == 0",
            "* notify_dropped == 0",
            "* notify_refused == 0",
        ],
        "sequence": ["1 notify_counter_update value 1,2"],
        "barriers": True,
    },
}


class Checker:
    def __init__(self):
        self.errors = []

    def fail(self, where, msg):
        self.errors.append(f"{where}: {msg}")

    def check(self, cond, where, msg):
        if not cond:
            self.fail(where, msg)
        return cond


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load(c, path, rank, size):
    """One file's events (not metadata), or None; structure checked."""
    where = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        c.fail(where, f"not readable JSON: {e}")
        return None
    if not c.check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
                   where, "no traceEvents list"):
        return None
    c.check(doc.get("displayTimeUnit") in ("ns", "ms"), where, "displayTimeUnit missing")
    other = doc.get("otherData")
    if not c.check(isinstance(other, dict), where, "no otherData object"):
        other = {}
    c.check(other.get("rank") == rank, where, f"otherData.rank {other.get('rank')} != {rank}")
    if size is not None:
        c.check(other.get("size") == size, where, f"otherData.size {other.get('size')} != {size}")
    paths = other.get("paths")
    c.check(isinstance(paths, list) and all(isinstance(p, str) for p in paths), where,
            "otherData.paths is not a list of names")
    paths = paths if isinstance(paths, list) else []
    c.check(other.get("dropped") == 0, where, f"{other.get('dropped')} events dropped")

    events, named = [], False
    for n, ev in enumerate(doc["traceEvents"]):
        at = f"{where}: traceEvents[{n}]"
        if not c.check(isinstance(ev, dict) and isinstance(ev.get("name"), str), at,
                       "not an object with a name"):
            continue
        ph, name = ev.get("ph"), ev["name"]
        c.check(ev.get("pid") == rank, at, f"pid {ev.get('pid')} != {rank}")
        c.check(isinstance(ev.get("tid"), int) and ev["tid"] >= 0, at, "no tid")
        args = ev.get("args")
        if not c.check(isinstance(args, dict), at, f"{name}: no args object"):
            continue
        if ph == "M":
            if name == "process_name":
                named = c.check(args.get("name") == f"rank {rank}", at,
                                f"process named {args.get('name')!r}")
            continue
        if not c.check(is_num(ev.get("ts")) and ev["ts"] >= 0, at, f"{name}: bad ts"):
            continue
        if ph == "X":
            c.check(name in CALLS, at, f"unknown call {name}")
            c.check(ev.get("cat") == "wait", at, f"{name}: cat {ev.get('cat')!r}")
            c.check(is_num(ev.get("dur")) and ev["dur"] >= 0, at, f"{name}: bad dur")
        elif ph == "i":
            if not c.check(name in NOTIFY_ARGS, at, f"unknown event {name}"):
                continue
            c.check(ev.get("cat") == "notify", at, f"{name}: cat {ev.get('cat')!r}")
            c.check(ev.get("s") == "t", at, f"{name}: scope {ev.get('s')!r}")
            c.check(sorted(args) == sorted(NOTIFY_ARGS[name]), at,
                    f"{name}: args {sorted(args)}, not {sorted(NOTIFY_ARGS[name])}")
            if name == "notify_arrival":
                c.check((args.get("tag") is None) != (args.get("counter") is None), at,
                        f"arrival with tag {args.get('tag')} and counter {args.get('counter')}")
                p = args.get("path")
                c.check(isinstance(p, int) and 0 <= p < len(paths) and
                        args.get("path_name") == paths[p], at,
                        f"path {p} named {args.get('path_name')!r}, paths {paths}")
        else:
            c.fail(at, f"{name}: phase {ph!r}")
            continue
        events.append(ev)
    c.check(named, where, f"no process_name metadata naming 'rank {rank}'")
    c.check(other.get("events") == len(events), where,
            f"otherData.events {other.get('events')} but {len(events)} events")

    # natrace sorts by time: the whole list, so each kind too
    ts = [e["ts"] for e in events]
    bad = next((k for k in range(1, len(ts)) if ts[k] < ts[k - 1]), None)
    c.check(bad is None, where, f"ts goes back at event {bad}: {ts[bad - 1] if bad else ''} "
            f"-> {ts[bad] if bad else ''}")

    # a match needs its arrival first
    arrived, matched, early = {}, {}, set()
    for e in events:
        a = e["args"]
        if e["name"] == "notify_arrival" and a.get("tag") is not None:
            k = (a["win"], a["source"], a["tag"])
            arrived[k] = arrived.get(k, 0) + 1
        elif e["name"] == "notify_match":
            k = (a["win"], a["source"], a["tag"])
            matched[k] = matched.get(k, 0) + 1
            if matched[k] > arrived.get(k, 0) and k not in early:
                early.add(k)    # the first one says it
                c.fail(where, f"match at {e['ts']} of win {k[0]} source {k[1]} tag {k[2]} "
                       f"before its arrival ({matched[k]} matches, {arrived.get(k, 0)} arrivals)")
    return events


def value(text):
    if text == "null":
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def select(traces, rank, name, filters):
    ranks = sorted(traces) if rank == "*" else [int(rank)]
    return [e for r in ranks for e in traces.get(r, [])
            if e["name"] == name and all(e["args"].get(k) == v for k, v in filters)]


def expect(c, traces, spec):
    words = spec.split()
    ops = {"==": lambda a, b: a == b, ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}
    if (len(words) < 4 or words[-2] not in ops or not re.fullmatch(r"\*|\d+", words[0]) or
            not re.fullmatch(r"\d+", words[-1]) or not all("=" in w for w in words[2:-2])):
        raise SystemExit(f"natrace_check: bad --expect {spec!r} (RANK EVENT [K=V...] OP N)")
    filters = [(w.split("=", 1)[0], value(w.split("=", 1)[1])) for w in words[2:-2]]
    n = len(select(traces, words[0], words[1], filters))
    c.check(ops[words[-2]](n, int(words[-1])), f"rank {words[0]}",
            f"expected {spec!r}, found {n}")


def sequence(c, traces, spec):
    words = spec.split()
    if len(words) != 4 or not re.fullmatch(r"\*|\d+", words[0]):
        raise SystemExit(f"natrace_check: bad --sequence {spec!r} (RANK EVENT KEY V1,V2,...)")
    want = [value(v) for v in words[3].split(",")]
    got = [e["args"].get(words[2]) for e in select(traces, words[0], words[1], [])]
    c.check(got == want, f"rank {words[0]}", f"{words[1]} {words[2]}: {got}, expected {want}")


def barriers(c, traces):
    spans = {r: [(e["ts"], e["ts"] + e["dur"]) for e in evs if e["name"] == "MPI_Barrier"]
             for r, evs in traces.items()}
    counts = {r: len(b) for r, b in spans.items()}
    if not c.check(len(set(counts.values())) <= 1, "barriers", f"per rank: {counts}"):
        return
    for k in range(min(counts.values(), default=0)):
        last_in = max(spans[r][k][0] for r in spans)
        first_out = min(spans[r][k][1] for r in spans)
        if not c.check(last_in <= first_out, "barriers",
                       f"barrier {k}: a rank left at {first_out} before the last entered at "
                       f"{last_in} (clocks not aligned)"):
            return


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--path")
    ap.add_argument("--prog", choices=sorted(PROGS))
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--sequence", action="append", default=[])
    ap.add_argument("--barriers", action="store_true")
    opt = ap.parse_args()
    specs, seqs, ranks = list(opt.expect), list(opt.sequence), opt.ranks
    if opt.prog:
        specs += PROGS[opt.prog]["expect"]
        seqs += PROGS[opt.prog]["sequence"]
        ranks = ranks if ranks is not None else PROGS[opt.prog]["ranks"]
        opt.barriers = opt.barriers or PROGS[opt.prog]["barriers"]

    c = Checker()
    files = {}
    for path in glob.glob(os.path.join(opt.dir, "natrace.*.json")):
        m = re.fullmatch(r"natrace\.(\d+)\.json", os.path.basename(path))
        if m:
            files[int(m.group(1))] = path
    if ranks is not None:
        c.check(sorted(files) == list(range(ranks)), opt.dir,
                f"trace files of ranks {sorted(files)}, expected 0..{ranks - 1}")
    elif not files:
        c.fail(opt.dir, "no natrace.*.json")
    traces = {}
    for r, path in sorted(files.items()):
        evs = load(c, path, r, ranks)
        if evs is not None:
            traces[r] = evs
    if opt.path:
        for r, evs in traces.items():
            names = sorted({e["args"].get("path_name") for e in evs
                            if e["name"] == "notify_arrival"} - {opt.path}, key=str)
            c.check(not names, f"rank {r}", f"arrivals by path {names}, expected {opt.path}")
    if opt.barriers:
        barriers(c, traces)
    for s in specs:
        expect(c, traces, s)
    for s in seqs:
        sequence(c, traces, s)

    if c.errors:
        for e in c.errors:
            print(f"natrace_check: {e}", file=sys.stderr)
        print(f"natrace_check: {len(c.errors)} failed checks in {opt.dir}", file=sys.stderr)
        return 1
    counts = {}
    for evs in traces.values():
        for e in evs:
            counts[e["name"]] = counts.get(e["name"], 0) + 1
    print(f"natrace_check: {len(traces)} traces in {opt.dir} as expected: " +
          ", ".join(f"{counts[k]} {k}" for k in sorted(counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
