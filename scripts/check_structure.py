#!/usr/bin/python3
"""check_structure.py - the guards of docs/architecture.md, run by
scripts/check-structure.sh (and so by .ci/run).

Fails (exit 1) on:
  * a call cycle between the .c files of one folder of src/ (FOLDERS):
    file A uses a function or variable defined in B and B, directly or not,
    uses one of A's. Read from the compiler's own output (nm on the built
    objects), so macros and inline calls count;
  * an include cycle between the headers of one folder;
  * a folder that uses another it may not (USES): an #include in its
    sources that resolves into that folder, or a symbol its objects use
    that only that folder's objects define;
  * a .c file over 1,200 lines anywhere under src/;
  * a function over 120 lines anywhere under src/, except the ones named in
    ALLOWED_LONG (option tables and other generated-looking data).

With --graph it also prints each folder's file graph: files, floors (the
longest chain of calls, bottom floor 1) and back edges (edges that point up,
i.e. close a cycle; 0 when the graph is one-way), then the edges by floor,
and which folder uses which.
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

# Each folder of src/ by name; a folder that does not exist is skipped.
FOLDERS = {
    "common": "src/common",
    "api": "src/api",
    "cli": "src/cli",
    "slurmctld": "src/slurmctld",
    "slurmd": "src/slurmd",
    "slurmstepd": "src/slurmd/slurmstepd",
    "slurmrestd": "src/slurmrestd",
    "pam": "src/pam",
}

# What each folder may use besides itself: common is the floor, api (the
# client library) sits on it, commands and daemons on both. No daemon uses
# cli/ or another daemon's folder; slurmd uses nothing of slurmstepd.
USES = {
    "common": set(),
    "api": {"common"},
    "cli": {"api", "common"},
    "slurmctld": {"api", "common"},
    "slurmd": {"api", "common"},
    "slurmstepd": {"api", "common"},
    "slurmrestd": {"api", "common"},
    "pam": {"common"},
}

# Temporary exceptions to USES while a header moves down, each with why:
# (folder, header under src/), e.g. ("slurmrestd", "cli/job_fetch.h"). The
# header's .c file may then be called too. Empty: every rule holds.
TEMP_ALLOWED = set()


def folder_of(path):
    """The FOLDERS name whose directory holds path itself (a path from the
    top, e.g. "src/common/log.h"), so slurmd/slurmstepd/x.h is slurmstepd's.
    None when no folder does."""
    best = None
    for name, d in FOLDERS.items():
        if path.startswith(d + "/") and "/" not in path[len(d) + 1:]:
            best = name
    return best


_OBJECTS = {}


def objects_of(build, srcdir):
    """{module: object path} for the .c files directly in srcdir."""
    if build not in _OBJECTS:
        by_dir = {}
        for root, _dirs, files in os.walk(build):
            for f in sorted(files):
                if not f.endswith(".c.o"):
                    continue
                rel = os.path.join(root, f).replace(os.sep, "/")
                i = rel.rfind("/src/")
                if i < 0:
                    continue
                d = rel[i + 1:rel.rfind("/")]
                # tests/fuzz builds compile the same files again: first wins
                by_dir.setdefault(d, {}).setdefault(f[:-len(".c.o")], rel)
        _OBJECTS[build] = by_dir
    return _OBJECTS[build].get(srcdir, {})


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


def folder_symbols(build, srcdir):
    """{module: (defined, used)} for the .c files of srcdir."""
    objs = objects_of(build, srcdir)
    srcs = {f[:-2] for f in os.listdir(srcdir) if f.endswith(".c")}
    if srcs and not objs:
        sys.exit("check-structure: no objects for %s under %s (build first)" %
                 (srcdir, build))
    missing = srcs - set(objs)
    if missing:
        sys.exit("check-structure: not built: %s" % ", ".join(
            "%s/%s.c" % (srcdir, m) for m in sorted(missing)))
    return {mod: nm_symbols(objs[mod]) for mod in sorted(srcs)}


def call_graph(syms):
    owner = {}
    for mod, (d, _u) in syms.items():
        for s in d:
            owner.setdefault(s, mod)
    edges = {m: set() for m in syms}
    for mod, (_d, u) in syms.items():
        for s in u:
            o = owner.get(s)
            if o and o != mod:
                edges[mod].add(o)
    return edges


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def includes_of(path):
    """The quoted includes of path, resolved as the compiler does (the
    including file's directory, then src/); those found in neither
    (generated headers) are left out."""
    out = []
    here = os.path.dirname(path)
    with open(path, errors="replace") as fh:
        for line in fh:
            m = INCLUDE.match(line)
            if not m:
                continue
            for base in (here, "src"):
                cand = os.path.normpath(os.path.join(base, m.group(1)))
                if os.path.isfile(cand):
                    out.append(cand.replace(os.sep, "/"))
                    break
    return out


def include_graph(srcdir):
    headers = {f for f in os.listdir(srcdir) if f.endswith(".h")}
    edges = {h: set() for h in headers}
    for h in headers:
        for inc in includes_of(os.path.join(srcdir, h)):
            d, name = os.path.split(inc)
            if d == srcdir and name in headers and name != h:
                edges[h].add(name)
    return edges


def may_use(folder, path):
    """Whether a file of folder may include path, or call path's .c file
    (path relative to the top, e.g. "src/cli/job_fetch.h")."""
    other = folder_of(path)
    if other is None or other == folder or other in USES[folder]:
        return True
    return (folder, path[len("src/"):-2] + ".h") in TEMP_ALLOWED


def include_rule_errors(folder, srcdir, used):
    bad = []
    for f in sorted(os.listdir(srcdir)):
        if not f.endswith((".c", ".h")):
            continue
        for inc in includes_of(os.path.join(srcdir, f)):
            other = folder_of(inc)
            if other and other != folder:
                used.add(other)
            if not may_use(folder, inc):
                bad.append("%s/%s includes %s: %s may not use %s/" %
                           (srcdir, f, inc[len("src/"):], folder,
                            FOLDERS[other][len("src/"):]))
    return bad


def call_rule_errors(folder, srcdir, syms, owners, used):
    """Symbols used by folder's objects that only forbidden folders define."""
    bad = []
    for mod, (_d, u) in sorted(syms[folder].items()):
        by_file = {}
        for s in u:
            where = owners.get(s, [])
            if not where or any(o[0] == folder for o in where):
                continue
            for other, omod in where:
                used.add(other)
            if any(may_use(folder, "%s/%s.c" % (FOLDERS[o], m)) for o, m in where):
                continue
            other, omod = where[0]
            by_file.setdefault("%s/%s.c" % (FOLDERS[other], omod), []).append(s)
        for target, names in sorted(by_file.items()):
            bad.append("%s/%s.c calls %s (%s): %s may not use %s/" %
                       (srcdir, mod, target, " ".join(sorted(names)[:4]), folder,
                        os.path.dirname(target)[len("src/"):]))
    return bad


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
    folders = {n: d for n, d in FOLDERS.items() if os.path.isdir(d)}
    for name in sorted(set(FOLDERS) - set(folders)):
        print("%s: %s absent, skipped" % (name, FOLDERS[name]))
    syms = {n: folder_symbols(args.build, d) for n, d in folders.items()}
    owners = {}
    for name, mods in syms.items():
        for mod, (d, _u) in mods.items():
            for s in d:
                owners.setdefault(s, []).append((name, mod))
    uses = {}
    for name, srcdir in folders.items():
        for c in report(name, call_graph(syms[name]), args.graph):
            failed.append("%s: call cycle between %s" %
                          (name, " ".join("%s.c" % m for m in c)))
        for c in report(name + " headers", include_graph(srcdir), args.graph):
            failed.append("%s: include cycle between %s" % (name, " ".join(c)))
        used = uses.setdefault(name, set())
        failed += include_rule_errors(name, srcdir, used)
        failed += call_rule_errors(name, srcdir, syms, owners, used)
    for folder, header in sorted(TEMP_ALLOWED):
        if not os.path.exists("src/" + header):
            print("note: TEMP_ALLOWED (%s, %s) is no longer needed: delete it" %
                  (folder, header))
    if args.graph:
        print("folders (each uses only the ones named; * a TEMP_ALLOWED file):")
        for name in folders:
            print("  %-10s -> %s" % (name, " ".join(
                o + ("" if o in USES[name] else "*") for o in sorted(uses[name]))))
    failed += size_checks()
    for f in failed:
        print("check-structure: " + f, file=sys.stderr)
    if failed:
        return 1
    print("check-structure: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
