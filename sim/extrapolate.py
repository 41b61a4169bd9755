#!/usr/bin/env python3
"""Extrapolate a time-independent trace (sim/trace-format.md) of a
weak-scaling application to more ranks.

    sim/extrapolate.py APP IN_TRACE_DIR N_OUT OUT_TRACE_DIR [--k K]

APP is `stencil` (bench/stencil.c: a 1-D chain, rank r talks to r-1 and
r+1, and the last rank sends the corner back to rank 0) or `tree`
(bench/tree.c: a k-ary tree, parent (r-1)/k, children r*k+1 .. r*k+k below
N).  In both, what one process does depends only on its place in the
pattern (its role), not on N: each output rank gets the file of an input
rank with the same role, with every peer rewritten to the corresponding
rank around the output rank.

Roles: stencil first / interior / last; tree (is root, number of children,
has parent).  An output role that no input rank has is refused, with the
smallest trace size that has them all: we do not invent a node with more
or fewer children than any traced one (the order in which the children's
messages arrived, and the parent's work per child, would be made up).

Refused as well: traces whose per-process work changes with N (the
stencil's fence variant waits at m + N - 2 fences per sweep; Cholesky's
block-cyclic distribution), and any peer the pattern does not explain.

The compute amounts are copied as measured: N_OUT ranks repeat the noise
(preemption, cache misses) of the N_in traced ones rather than drawing
N_OUT ranks' worth, so where the slowest of many ranks sets the pace (a
barrier per tree reduction) the extrapolated trace is optimistic.

Standard library only.
"""
import argparse
import os
import re
import sys

# Action -> (min args, max args, positions of peer ranks, position of a
# comma-separated group of ranks or None, position of a collective's root
# or None).  Positions count from the first argument after the action.
ACTIONS = {
    "init": (0, 0, (), None, None),
    "finalize": (0, 0, (), None, None),
    "compute": (1, 1, (), None, None),
    "barrier": (0, 0, (), None, None),
    "send": (3, 3, (0,), None, None),
    "recv": (3, 3, (0,), None, None),
    "bcast": (2, 2, (), None, 1),
    "reduce": (3, 3, (), None, 2),
    "allreduce": (2, 2, (), None, None),
    "na_isend": (4, 4, (0,), None, None),
    "na_irecv": (4, 4, (0,), None, None),
    "na_wait": (1, 1, (), None, None),
    "na_win": (1, 1, (), None, None),
    "na_put": (3, 3, (1,), None, None),
    "na_get": (3, 3, (1,), None, None),
    "na_acc": (3, 3, (1,), None, None),
    "na_fop": (3, 3, (1,), None, None),
    "na_flush": (2, 2, (1,), None, None),
    "na_flush_all": (1, 1, (), None, None),
    "na_lock": (2, 3, (1,), None, None),
    "na_unlock": (2, 2, (1,), None, None),
    "na_lock_all": (1, 1, (), None, None),
    "na_unlock_all": (1, 1, (), None, None),
    "na_fence": (1, 1, (), None, None),
    # an empty group is written as "na_post W " (nothing after W)
    "na_post": (1, 2, (), 1, None),
    "na_start": (1, 2, (), 1, None),
    "na_complete": (1, 1, (), None, None),
    "na_winwait": (1, 1, (), None, None),
    "na_put_notify": (4, 4, (1,), None, None),
    "na_get_notify": (4, 4, (1,), None, None),
    "na_notified": (2, 2, (0,), None, None),
    "na_flag": (3, 3, (1,), None, None),
    "na_flagwait": (1, 1, (), None, None),
}


class Refused(Exception):
    pass


# ------------------------------------------------------------------ apps

class Stencil:
    """bench/stencil.c: halo values go r -> r+1; the corner goes N-1 -> 0."""

    name = "stencil"

    def __init__(self, meta, k):
        if k is not None:
            raise Refused("--k is for the tree only")
        self.k = None

    def check_input(self, n_in, templates_actions):
        if n_in < 3:
            # with 2 ranks rank 0's right neighbour is also the last rank
            # (the corner's sender): a neighbour and an end cannot be told apart
            raise Refused("the stencil needs a trace of at least 3 ranks (an interior rank)")
        if any("na_fence" in acts for acts in templates_actions):
            raise Refused("the stencil's fence variant is not N-invariant: every sweep has "
                          "m + N - 2 fences (one per pipeline step), so no rank's file "
                          "fits another N")

    def role(self, r, n):
        return "first" if r == 0 else "last" if r == n - 1 else "interior"

    def role_name(self, role):
        return role

    def map_peer(self, p, s, n_in, r, n_out):
        d = p - s
        if -1 <= d <= 1:            # itself or a neighbour: same offset
            return r + d
        if p == 0:                  # the corner's ends: the chain's ends
            return 0
        if p == n_in - 1:
            return n_out - 1
        raise Refused(f"rank {s} talks to rank {p}: not a neighbour nor an end of the chain")

    def smallest_input(self, n_out):
        return min(n_out, 3)


class Tree:
    """bench/tree.c: a k-ary reduction tree rooted at rank 0."""

    name = "tree"

    def __init__(self, meta, k):
        # the arity the trace was made with is in the program's arguments
        m = re.search(r"(?:^|\s)-k\s+(\d+)", meta.get("program", ""))
        traced = int(m.group(1)) if m else None
        if k is None:
            k = traced if traced is not None else 16     # tree.c's default
        elif traced is not None and traced != k:
            raise Refused(f"--k {k}, but the trace was made with -k {traced} (meta program=)")
        if k < 1:
            raise Refused("k must be >= 1")
        self.k = k

    def check_input(self, n_in, templates_actions):
        pass

    def nchildren(self, r, n):
        first = r * self.k + 1
        return 0 if first >= n else min(self.k, n - first)

    def role(self, r, n):
        return (r == 0, self.nchildren(r, n), r > 0)

    def role_name(self, role):
        root, nch, _ = role
        kind = "root" if root else "leaf" if nch == 0 else "interior node"
        return f"{kind} with {nch} child{'ren' if nch > 1 else ''}" if nch else kind

    def map_peer(self, p, s, n_in, r, n_out):
        k = self.k
        if p == s:
            return r
        if s > 0 and p == (s - 1) // k:
            return (r - 1) // k
        i = p - (s * k + 1)
        if 0 <= i < self.nchildren(s, n_in):
            # child i of the template is child i of r: the roles agree on
            # the number of children, so it exists
            return r * k + 1 + i
        raise Refused(f"rank {s} talks to rank {p}: neither its parent nor one of its "
                      f"children in a {k}-ary tree (wrong --k?)")

    def roles_of(self, n):
        # the interior ranks are 1 .. (n-2)//k; every other non-root is a leaf
        roles = {self.role(0, n)}
        roles.update(self.role(r, n) for r in range(1, (n - 2) // self.k + 1))
        if n > 1:
            roles.add(self.role(n - 1, n))
        return roles

    def smallest_input(self, n_out):
        # a root with k children, a full interior node and the partial one
        # exist from 2k + 1 + (N - 1) mod k ranks on: search a little past it
        need = self.roles_of(n_out)
        for n in range(1, min(n_out, 3 * self.k + 3) + 1):
            if need <= self.roles_of(n):
                return n
        return n_out


APPS = {"stencil": Stencil, "tree": Tree}

# ------------------------------------------------------------- traces


def read_meta(path):
    meta, lines = {}, []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                lines.append(line)
                key, eq, val = line.partition("=")
                if eq:
                    meta.setdefault(key, val)
    return meta, lines


def compile_template(path, s):
    """Rank s's file as a str.format template: {0} is the output rank, {i}
    the i-th distinct peer (peers[i - 1]), so an output file is one format()
    call (C speed: a 1,024-rank output is hundreds of MB).  Returns
    (template, peers, actions); peers are (is_root, rank): a collective's
    root is an absolute rank, mapped apart from the same rank as a peer."""
    peers, index, actions = [], {}, set()

    def slot(p, root=False):
        key = (root, p)
        if key not in index:
            peers.append(key)
            index[key] = len(peers)
        return "{%d}" % index[key]

    out = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            t = line.split()
            where = f"{path}:{no}"
            if len(t) < 2:
                raise Refused(f"{where}: not 'RANK ACTION ARG...': {line.strip()!r}")
            if t[0] != str(s):
                raise Refused(f"{where}: line of rank {t[0]} in rank {s}'s file")
            act, args = t[1], t[2:]
            spec = ACTIONS.get(act)
            if spec is None:
                raise Refused(f"{where}: unknown action {act!r}")
            lo, hi, peer_pos, group_pos, root_pos = spec
            if not lo <= len(args) <= hi:
                raise Refused(f"{where}: {act} takes {lo}..{hi} arguments: {line.strip()!r}")
            actions.add(act)
            args = [a.replace("{", "{{").replace("}", "}}") for a in args]
            try:
                for i in peer_pos:
                    args[i] = slot(int(args[i]))
                if root_pos is not None:
                    args[root_pos] = slot(int(args[root_pos]), root=True)
                if group_pos is not None:
                    if group_pos < len(args):
                        args[group_pos] = ",".join(slot(int(g)) for g in args[group_pos].split(","))
                    else:
                        args.append("")     # natitrace's "na_post W " kept as it is
            except ValueError:
                raise Refused(f"{where}: a rank that is not an integer: {line.strip()!r}")
            out.append(" ".join(["{0}", act] + args))
    if not out or out[0].split()[1] != "init" or out[-1].split()[1] != "finalize":
        raise Refused(f"{path}: does not start with init and end with finalize")
    return "\n".join(out) + "\n", peers, actions


def map_root(p, n_in, n_out):
    # a collective's root is an absolute rank: the chain's or tree's ends
    if p == 0:
        return 0
    if p == n_in - 1:
        return n_out - 1
    raise Refused(f"a collective rooted at rank {p} of {n_in}: neither the first nor the last")


def extrapolate(app_name, in_dir, n_out, out_dir, k=None):
    if app_name not in APPS:
        raise Refused(f"unknown application {app_name!r} (known: {', '.join(sorted(APPS))}; "
                      "Cholesky's block-cyclic distribution changes the work per rank with N)")
    index_path = os.path.join(in_dir, "index")
    if not os.path.isfile(index_path):
        raise Refused(f"no {index_path}")
    with open(index_path) as f:
        files = [line.strip() for line in f if line.strip()]
    n_in = len(files)
    meta, meta_lines = read_meta(os.path.join(in_dir, "meta"))
    app = APPS[app_name](meta, k)
    if n_in == 0:
        raise Refused(f"{index_path} lists no rank")
    if n_out < n_in:
        raise Refused(f"N_OUT {n_out} is smaller than the trace's {n_in} ranks")
    if os.path.realpath(in_dir) == os.path.realpath(out_dir):
        raise Refused("the output directory is the input directory")

    by_role = {}
    for s in range(n_in):
        by_role.setdefault(app.role(s, n_in), []).append(s)
    out_roles = [app.role(r, n_out) for r in range(n_out)]
    missing = sorted({ro for ro in out_roles if ro not in by_role}, key=str)
    if missing:
        raise Refused(
            f"no rank of the {n_in}-rank trace has the role of "
            + ", ".join(app.role_name(ro) for ro in missing)
            + f" (needed at N={n_out}): trace a size whose ranks have every role of the"
            + f" target, e.g. {app.smallest_input(n_out)} ranks"
            + (f" with k={app.k}" if app.k else ""))

    templates = {}
    needed = sorted({s for ro in set(out_roles) for s in by_role[ro]})
    for s in needed:
        templates[s] = compile_template(os.path.join(in_dir, files[s]), s)
    app.check_input(n_in, [templates[s][2] for s in needed])

    os.makedirs(out_dir, exist_ok=True)
    for name in os.listdir(out_dir):      # a previous, larger output's files
        if re.fullmatch(r"rank-\d+\.ti", name):
            os.remove(os.path.join(out_dir, name))
    used = {}
    with open(os.path.join(out_dir, "index"), "w") as idx:
        for r, ro in enumerate(out_roles):
            # cycle through the input ranks of a role rather than copying
            # one everywhere: the output keeps the spread of measured
            # compute times, not one rank's noise N times
            cands = by_role[ro]
            s = cands[used.get(ro, 0) % len(cands)]
            used[ro] = used.get(ro, 0) + 1
            tmpl, peers, _ = templates[s]
            vals = [r] + [map_root(p, n_in, n_out) if root else app.map_peer(p, s, n_in, r, n_out)
                          for root, p in peers]
            bad = [v for v in vals if not 0 <= v < n_out]
            if bad:
                raise Refused(f"rank {s}'s file as rank {r} names rank {bad[0]} of {n_out}")
            with open(os.path.join(out_dir, f"rank-{r}.ti"), "w") as f:
                f.write(tmpl.format(*vals))
            idx.write(f"rank-{r}.ti\n")

    with open(os.path.join(out_dir, "meta"), "w") as f:
        for line in meta_lines:
            key = line.partition("=")[0]
            if key in ("ranks", "np"):
                line = f"{key}={n_out}"
            elif key == "region_wall_s":
                # the wall time of the N_in run, not of this trace: under its
                # own name so replay.sh does not compare the N_out replay to it
                line = "source_" + line
            elif key == "extrapolated_from":
                continue
            f.write(line + "\n")
        f.write(f"extrapolated_from={os.path.realpath(in_dir)} {n_in}\n")
    return n_in


def main():
    ap = argparse.ArgumentParser(
        description="Extrapolate a stencil or tree trace of N_in ranks to N_OUT ranks "
                    "(sim/trace-format.md).")
    ap.add_argument("app", metavar="APP", help="stencil or tree")
    ap.add_argument("in_dir", metavar="IN_TRACE_DIR")
    ap.add_argument("n_out", metavar="N_OUT", type=int)
    ap.add_argument("out_dir", metavar="OUT_TRACE_DIR")
    ap.add_argument("--k", type=int, default=None,
                    help="tree arity (default: -k of the traced program, else 16)")
    a = ap.parse_args()
    try:
        n_in = extrapolate(a.app, a.in_dir, a.n_out, a.out_dir, a.k)
    except (Refused, OSError) as e:
        sys.exit(f"extrapolate.py: {e}")
    print(f"extrapolate.py: {a.app} {n_in} -> {a.n_out} ranks in {a.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
