#!/usr/bin/python3
"""tests/layers.py - the folders' layers of docs/architecture.md, checked.

Usage: layers.py [--root DIR] [--objs DIR] CHECK

The order is read from docs/architecture.md's "## Layers" section (its
indented lines: "a > b > ... > lib", then "FOLDER: used by X..., uses Y...").
A folder may use itself and the folders below it; a side folder (reports)
only what its line says, and only the folders its line names may use it.

  includes  (a) no #include "..." of a header of a folder it may not use
  uses      (b) no object (DIR/<file>.o, default build/unit-obj, as `make
            unit-tests` builds them) with an undefined symbol (a function
            or a variable) that another folder's object defines and it may
            not use
  mutual    (c) no two folders using each other (includes or symbols)
  long      (d) no function over 80 lines, its { to its }, in orchestrator/,
            reports/, lib/, workloads/
  list      every current violation, one per line, as tests/layers.allow
            spells them

tests/layers.allow names the violations left, one per line ("# " comments):
  include FILE HEADER / use FILE SYMBOL DEFINING_FILE / mutual FOLDER FOLDER /
  long FILE FUNCTION
A check fails (exit 1, one line per problem on stderr) on a violation of its
kind not in the list and on a line of its kind in the list that no longer
occurs; it prints "ok" otherwise.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = "."
OBJS = "build/unit-obj"
MAX_LINES = 80
SOURCE_DIRS = ["orchestrator", "orchestrator/*", "reports", "lib", "workloads"]
LONG_DIRS = ("orchestrator/", "reports/", "lib/", "workloads/")


def rd(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def folder(path):
    """A file's folder as the Layers section names it: main.c, cli, ..., lib."""
    d = os.path.dirname(path)
    if d == "orchestrator":
        return os.path.basename(path)
    return os.path.basename(d)


def layers():
    """(order top to bottom, {side folder: (users, uses)}) from the docs."""
    text = rd("docs/architecture.md")
    sec = re.search(r"^## Layers\n(.*?)(?=^## )", text, re.M | re.S)
    if not sec:
        sys.exit("layers.py: docs/architecture.md has no '## Layers' section")
    order, side = [], {}
    for line in re.findall(r"^    (\S.*)$", sec.group(1), re.M):
        if ">" in line:
            order = [w.strip() for w in line.split(">")]
            continue
        name, rest = line.split(":", 1)
        users = re.search(r"used by ([^,]*)", rest)
        uses = re.search(r"uses (.*)$", rest)
        side[name.strip()] = (set(users.group(1).split()) if users else set(),
                              set(uses.group(1).split()) if uses else set())
    if not order:
        sys.exit("layers.py: docs/architecture.md's Layers section has no 'a > b > ...' line")
    return order, side


ORDER, SIDE = [], {}


def may_use(a, b):
    if a == b:
        return True
    if a in SIDE:
        return b in SIDE[a][1]
    if b in SIDE:
        return a in SIDE[b][0]
    if a not in ORDER or b not in ORDER:
        return False
    return ORDER.index(a) < ORDER.index(b)


def sources(ext):
    files = []
    for d in SOURCE_DIRS:
        files += glob.glob(os.path.join(ROOT, d, "*." + ext))
    return sorted(os.path.relpath(f, ROOT) for f in files)


def resolve(includer, name):
    """The file a #include "name" of @includer names (-I. -Iorchestrator -Ilib -Iworkloads), or None."""
    for cand in (os.path.join(os.path.dirname(includer), name), name,
                 os.path.join("orchestrator", name), os.path.join("lib", name),
                 os.path.join("workloads", name)):
        if os.path.isfile(os.path.join(ROOT, cand)):
            return os.path.normpath(cand)
    return None


def includes():
    """(file, header, file's folder, header's folder) of every "..." include."""
    out = []
    for f in sources("c") + sources("h"):
        for name in re.findall(r'^\s*#\s*include\s*"([^"]+)"', rd(f), re.M):
            h = resolve(f, name)
            if h:
                out.append((f, h, folder(f), folder(h)))
    return out


def symbols():
    """(file, symbol, defining file, folders) of every undefined symbol another object defines."""
    srcs = [f for f in sources("c") if not f.startswith("workloads/")]
    objs = {}
    for f in srcs:
        o = os.path.join(OBJS, f[:-2] + ".o")
        if not os.path.isfile(o) or os.path.getmtime(o) < os.path.getmtime(os.path.join(ROOT, f)):
            sys.exit("layers.py: %s is missing or older than %s: make unit-tests builds it" % (o, f))
        objs[o] = f
    nm = subprocess.run(["nm", "-P", "-A"] + sorted(objs), capture_output=True, text=True, check=True)
    defs, undef = {}, []
    for line in nm.stdout.splitlines():
        m = re.match(r"^(.*?):\s+(\S+) (\S)", line)
        if not m:
            continue
        o, sym, t = m.groups()
        if t == "U":
            undef.append((objs[o], sym))
        elif t in "TDBRCVWG":
            defs.setdefault(sym, objs[o])
    return [(f, s, defs[s], folder(f), folder(defs[s])) for f, s in undef if s in defs]


def functions(path):
    """(name, lines) of each function of @path: a { alone at column 0 to the next } at column 0."""
    lines = rd(path).split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "{":
            continue
        j = i - 1
        while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
            j -= 1
        head = " ".join(lines[j:i])
        names = [n for n in re.findall(r"(\w+)\s*\(", head) if not re.match(r"^(G_[A-Z_]+|__\w+)$", n)]
        end = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("}")), len(lines) - 1)
        out.append((names[0] if names else "?%d" % (i + 1), end - i + 1))
    return out


def violations(kind=None):
    """The violations of @kind (include, use, mutual, long), or of every kind."""
    v = []
    want = lambda k: kind in (None, k)
    incs = includes() if want("include") or want("mutual") else []
    syms = symbols() if want("use") or want("mutual") else []
    if want("include"):
        v += ["include %s %s" % (f, h) for f, h, a, b in incs if not may_use(a, b)]
    if want("use"):
        v += ["use %s %s %s" % (f, s, d) for f, s, d, a, b in syms if not may_use(a, b)]
    if want("mutual"):
        pairs = {(a, b) for a, b in [(i[2], i[3]) for i in incs] + [(s[3], s[4]) for s in syms] if a != b}
        v += ["mutual %s %s" % (a, b) for a, b in pairs if (b, a) in pairs and a < b]
    if want("long"):
        v += ["long %s %s" % (f, name) for f in sources("c") if f.startswith(LONG_DIRS)
              for name, n in functions(f) if n > MAX_LINES]
    return sorted(set(v))


def allowed():
    path = os.path.join(ROOT, "tests/layers.allow")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


KINDS = {"includes": "include", "uses": "use", "mutual": "mutual", "long": "long"}
WHY = {
    "include": "includes a header of a folder it may not use (docs/architecture.md, Layers)",
    "use": "uses a symbol of a folder it may not use (docs/architecture.md, Layers)",
    "mutual": "the two folders use each other",
    "long": "a function over %d lines" % MAX_LINES,
}


def main(argv):
    global ROOT, OBJS, ORDER, SIDE
    while len(argv) > 1 and argv[0] in ("--root", "--objs"):
        if argv[0] == "--root":
            ROOT = argv[1]
        else:
            OBJS = argv[1]
        argv = argv[2:]
    if len(argv) != 1 or argv[0] not in list(KINDS) + ["list"]:
        sys.exit(__doc__.split("\n\n")[1])
    ORDER, SIDE = layers()
    if argv[0] == "list":
        print("\n".join(violations()))
        return 0
    kind = KINDS[argv[0]]
    now = violations(kind)
    listed = [v for v in allowed() if v.split()[0] == kind]
    bad = ["%s: %s" % (v, WHY[kind]) for v in now if v not in listed]
    bad += ["%s: listed in tests/layers.allow, no longer occurs: remove the line" % v
            for v in listed if v not in now]
    for b in bad:
        print(b, file=sys.stderr)
    if not bad:
        print("ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
