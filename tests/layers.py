#!/usr/bin/python3
"""tests/layers.py - the folders' layers of docs/architecture.md, checked.

Usage: layers.py [--root DIR] [--objs DIR] CHECK
       layers.py selftest

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
  selftest  the checks themselves, on a tree of small synthetic C files
            (compiled with $CC, default cc) in a scratch folder: each
            kind's planted violations must be found, exactly, and nothing
            else (an upward include and call, two folders calling each
            other, functions of 81+ lines with their { alone or at the end
            of the signature, beside ones of 80 lines, a long initializer,
            braces in strings and comments); exit 1 naming what differs

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


# What strip_c blanks: a comment, a string or character literal, a
# preprocessor line with its continuations (leftmost first, so a quote in a
# comment or a // in a string is the comment's or the string's).
NOT_CODE = re.compile(r'''/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*''',
                      re.S | re.M)


def strip_c(text):
    """TEXT with comments, string and character literals and preprocessor
    lines blanked to spaces (newlines kept, so line numbers hold)."""
    return NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def param_list_name(head):
    """The name before the parameter list that ends HEAD: the identifier
    before the ( that matches its last ) (not an __attribute__'s)."""
    h = head.rstrip()
    d = 0
    for i in range(len(h) - 1, -1, -1):
        if h[i] == ")":
            d += 1
        elif h[i] == "(":
            d -= 1
            if d == 0:
                m = re.search(r"(\w+)\s*$", h[:i])
                return m.group(1) if m else None
    return None


def functions(path=None, text=None):
    """(name, lines) of each function defined in @path (or @text): from the
    line of its body's { to the line of the matching }, wherever the { is (a
    line of its own, or the end of the signature's line). A body is a { at
    file level whose head (the code since the last ; or } at file level)
    ends with the ) of a parameter list and assigns nothing."""
    code_ = strip_c(rd(path) if text is None else text)
    out, depth, head_start = [], 0, 0
    for m in re.finditer(r"[{};]", code_):
        ch, at = m.group(), m.start()
        if ch == "{":
            if depth == 0:
                head = code_[head_start:at]
                opened = (at, head) if head.rstrip().endswith(")") and "=" not in head else None
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                if opened:
                    start, head = opened
                    name = param_list_name(head) or "?%d" % (code_.count("\n", 0, start) + 1)
                    out.append((name, code_.count("\n", start, at) + 1))
                    opened = None
                head_start = at + 1
        elif depth == 0:
            head_start = at + 1
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


def body(n, indent="\t"):
    """N lines of a function's body between its { line and its } line."""
    return "".join("%sx += %d;\n" % (indent, i) for i in range(n))


# selftest's tree: path -> text. Layers: main.c > cli > trial > lib.
SELFTEST_TREE = {
    "docs/architecture.md": "# t\n\n## Layers\n\n    main.c > cli > trial > lib\n\n## The folders\n",
    "orchestrator/cli/cli.h": "int cliRun(int x);\n",
    "orchestrator/cli/cli.c": '#include "cli/cli.h"\n#include "trial/trial.h"\n'
                              "int cliRun(int x)\n{\n\treturn trialRun(x);\n}\n",
    "orchestrator/trial/trial.h": "int trialRun(int x);\n",
    # (a) an include of the folder above; (b) a call into it, which with cli's call down is (c)
    "orchestrator/trial/trial.c": '#include "trial/trial.h"\n#include "cli/cli.h"\n'
                                  "int trialRun(int x)\n{\n\treturn x ? cliRun(x - 1) : 0;\n}\n",
    # (d): long ones with their { at the end of the signature (the case the
    # old parser never measured) and alone, one of exactly 81 lines; short
    # ones of 80 lines; a 100-line initializer; braces in strings and comments
    "lib/long.c": "#define OPEN {\n"
                  "static const int table[] = {\n" + "".join("\t%d,\n" % i for i in range(100)) + "};\n"
                  "int longSig(int x) {\n" + body(90) + "\treturn x;\n}\n"
                  "static int __attribute__((unused))\nlongAlone(int x)\n{\n" + body(78) + "\treturn x;\n}\n"
                  "int shortSig(int x) {\n" + body(77) + "\treturn x; /* } */\n}\n"
                  "int shortAlone(int x)\n{\n\tconst char *s = \"}\\n}\";\n" + body(76) + "\treturn x + s[0];\n}\n"
                  "int oneLine(int x) { return x; }\n",
}
SELFTEST_WANT = {
    "include": ["include orchestrator/trial/trial.c orchestrator/cli/cli.h"],
    "use": ["use orchestrator/trial/trial.c cliRun orchestrator/cli/cli.c"],
    "mutual": ["mutual cli trial"],
    "long": ["long lib/long.c longAlone", "long lib/long.c longSig"],
}


def selftest():
    """Run each kind on SELFTEST_TREE; 0 when each finds exactly SELFTEST_WANT."""
    global ROOT, OBJS, ORDER, SIDE
    import tempfile
    cc = os.environ.get("CC", "cc").split()
    bad = []
    with tempfile.TemporaryDirectory(prefix="layers-selftest-") as tmp:
        ROOT, OBJS = os.path.join(tmp, "src"), os.path.join(tmp, "obj")
        for path, text in SELFTEST_TREE.items():
            os.makedirs(os.path.dirname(os.path.join(ROOT, path)), exist_ok=True)
            with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
                f.write(text)
        # one cc for all (their base names differ), each object moved to where symbols() looks
        srcs = [p for p in SELFTEST_TREE if p.endswith(".c")]
        os.makedirs(OBJS)
        r = subprocess.run(cc + ["-c", "-I" + ROOT, "-I" + os.path.join(ROOT, "orchestrator")] +
                           [os.path.join(ROOT, p) for p in srcs], cwd=OBJS, capture_output=True, text=True)
        if r.returncode:
            sys.exit("layers.py selftest: the synthetic tree does not compile:\n" + r.stderr)
        for p in srcs:
            o = os.path.join(OBJS, p[:-2] + ".o")
            os.makedirs(os.path.dirname(o), exist_ok=True)
            os.rename(os.path.join(OBJS, os.path.basename(p)[:-2] + ".o"), o)
        ORDER, SIDE = layers()
        lines = {name: n for name, n in functions(os.path.join("lib", "long.c"))}
        want_lines = {"longSig": 93, "longAlone": 81, "shortSig": 80, "shortAlone": 80, "oneLine": 1}
        if lines != want_lines:
            bad.append("functions(lib/long.c): %s, expected %s" % (sorted(lines.items()), sorted(want_lines.items())))
        for kind, want in sorted(SELFTEST_WANT.items()):
            got = violations(kind)
            if got != sorted(want):
                bad.append("%s: found %s, expected %s" % (kind, got, sorted(want)))
    for b in bad:
        print(b, file=sys.stderr)
    if not bad:
        print("ok: %s found as planted" % ", ".join(sorted(SELFTEST_WANT)))
    return 1 if bad else 0


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
    if len(argv) != 1 or argv[0] not in list(KINDS) + ["list", "selftest"]:
        sys.exit(__doc__.split("\n\n")[1])
    if argv[0] == "selftest":
        return selftest()
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
