#!/usr/bin/python3
"""check_structure.py - the guards of docs/architecture.md, run by
scripts/check-structure.sh (and so by .ci/run).

Fails (exit 1) on:
  * a call cycle between the .c files of one daemon (slurmctld/,
    slurmd/slurmstepd/): file A uses a function or variable defined in B
    and B, directly or not, uses one of A's. Read from the compiler's own
    output (nm on the built objects), so macros and inline calls count;
  * an include cycle between the headers of one daemon;
  * a .c file over 1,200 lines anywhere under src/;
  * a function over 120 lines anywhere under src/, except the ones named in
    ALLOWED_LONG (option tables and other generated-looking data).

With --graph it also prints each daemon's file graph: files, floors (the
longest chain of calls, bottom floor 1) and back edges (edges that point up,
i.e. close a cycle; 0 when the graph is one-way), then the edges by floor.
"""
import argparse
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 1200
MAX_FUNC_LINES = 120
# Functions that are data more than code: one line per option or entry.
ALLOWED_LONG = set()

DAEMONS = {
    "slurmctld": "src/slurmctld",
    "slurmstepd": "src/slurmd/slurmstepd",
}


def objects_of(build, srcdir):
    """{module: object path} for the .c files directly in srcdir."""
    want = "/" + srcdir + "/"
    found = {}
    for root, _dirs, files in os.walk(build):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            path = os.path.join(root, f)
            rel = path.replace(os.sep, "/")
            i = rel.find(want)
            if i < 0 or "/" in rel[i + len(want):]:
                continue
            mod = f[:-len(".c.o")]
            # tests/fuzz builds compile the same files again: first one wins
            found.setdefault(mod, path)
    return found


def nm_symbols(path):
    out = subprocess.run(["nm", "-P", path], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRGSVW":
            defined.add(name)
    return defined, used


def call_graph(build, srcdir):
    objs = objects_of(build, srcdir)
    if not objs:
        sys.exit("check-structure: no objects for %s under %s (build first)" %
                 (srcdir, build))
    srcs = {f[:-2] for f in os.listdir(srcdir) if f.endswith(".c")}
    missing = srcs - set(objs)
    if missing:
        sys.exit("check-structure: not built: %s" % ", ".join(sorted(missing)))
    defs, uses = {}, {}
    owner = {}
    for mod in sorted(srcs):
        d, u = nm_symbols(objs[mod])
        defs[mod], uses[mod] = d, u
        for s in d:
            owner.setdefault(s, mod)
    edges = {m: set() for m in srcs}
    for mod in srcs:
        for s in uses[mod]:
            o = owner.get(s)
            if o and o != mod:
                edges[mod].add(o)
    return edges


def include_graph(srcdir):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    headers = {f for f in os.listdir(srcdir) if f.endswith(".h")}
    edges = {h: set() for h in headers}
    prefix = srcdir[len("src/"):] + "/"
    for h in headers:
        with open(os.path.join(srcdir, h)) as fh:
            for line in fh:
                m = inc.match(line)
                if not m:
                    continue
                name = m.group(1)
                if name.startswith(prefix):
                    name = name[len(prefix):]
                if name in headers and name != h:
                    edges[h].add(name)
    return edges


def sccs(edges):
    """Tarjan; returns the list of strongly connected components."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def back_edges(edges):
    """Edges to a file still on the DFS path (sorted order): 0 iff acyclic."""
    state, back = {}, []

    def visit(v):
        state[v] = 1
        for w in sorted(edges[v]):
            if state.get(w) == 1:
                back.append((v, w))
            elif w not in state:
                visit(w)
        state[v] = 2

    for v in sorted(edges):
        if v not in state:
            visit(v)
    return back


def floors(edges, comps):
    """Floor of each file: 1 + the highest floor it calls (SCCs collapsed)."""
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    memo = {}

    def floor(ci):
        if ci in memo:
            return memo[ci]
        memo[ci] = 1
        best = 1
        for v in comps[ci]:
            for w in edges[v]:
                cw = comp_of[w]
                if cw != ci:
                    best = max(best, floor(cw) + 1)
        memo[ci] = best
        return best

    return {v: floor(comp_of[v]) for v in edges}


FUNC_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def long_functions(path):
    """(name, first line, length) of each function over the limit. Relies on
    the clang-format layout: a signature starts in column 0 and the body's
    braces sit alone in column 0."""
    with open(path, errors="replace") as fh:
        lines = fh.read().split("\n")
    out = []
    sig_line, name, start = None, None, None
    for i, line in enumerate(lines):
        if start is None:
            if line == "{" and sig_line is not None:
                start = sig_line
            elif line[:1].isalpha() or line[:1] == "_":
                m = FUNC_NAME.search(line)
                if m and not line.rstrip().endswith(";"):
                    sig_line, name = i, m.group(1)
                else:
                    sig_line = None
        elif line == "}":
            length = i - start + 1
            if length > MAX_FUNC_LINES and name not in ALLOWED_LONG:
                out.append((name, start + 1, length))
            start, sig_line, name = None, None, None
    return out


def size_checks():
    bad = []
    for root, _dirs, files in os.walk("src"):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(root, f)
            with open(path, errors="replace") as fh:
                n = sum(1 for _ in fh)
            if n > MAX_FILE_LINES:
                bad.append("%s: %d lines (limit %d)" % (path, n, MAX_FILE_LINES))
            for name, line, length in long_functions(path):
                bad.append("%s:%d: %s() is %d lines (limit %d)" %
                           (path, line, name, length, MAX_FUNC_LINES))
    return bad


def report(name, edges, show):
    comps = sccs(edges)
    cyc = [c for c in comps if len(c) > 1]
    back = back_edges(edges)
    fl = floors(edges, comps)
    nedges = sum(len(e) for e in edges.values())
    print("%s: %d files, %d edges, %d floors, %d back edges, %d cycles" %
          (name, len(edges), nedges, max(fl.values()) if fl else 0, len(back),
           len(cyc)))
    if show:
        for f in sorted(edges, key=lambda v: (-fl[v], v)):
            print("  %2d %-16s -> %s" % (fl[f], f, " ".join(sorted(edges[f]))))
        for a, b in back:
            print("  back edge: %s -> %s" % (a, b))
    return cyc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--graph", action="store_true", help="print the file graphs")
    args = ap.parse_args()
    failed = []
    for name, srcdir in DAEMONS.items():
        for c in report(name, call_graph(args.build, srcdir), args.graph):
            failed.append("%s: call cycle between %s" % (name, " ".join(c)))
        for c in report(name + " headers", include_graph(srcdir), args.graph):
            failed.append("%s: include cycle between %s" % (name, " ".join(c)))
    failed += size_checks()
    for f in failed:
        print("check-structure: " + f, file=sys.stderr)
    if failed:
        return 1
    print("check-structure: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
