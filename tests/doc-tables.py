#!/usr/bin/python3
"""tests/doc-tables.py - the docs' tables against the code they describe.

Usage: doc-tables.py [--docs ROOT] CHECK [ARG]

Each CHECK compares one table (or list) of the docs with the code or with a
real run, in both directions where both can be read, prints one line per
difference and "ok", and exits 0 when there is none, else 1. The docs are
read under ROOT (default: the checkout; tests/cli.sh hands a copy with one
entry broken to show that each check can fail); the code always from the
checkout (the current directory).

  scenario-keys      docs/scenarios.md against orchestrator/scenario/*.c:
                     every top-level key, every step kind and the keys each
                     takes (the steps table); the pin's workload, backing,
                     touch and split values against lib/mhl-pin.h; the online,
                     guest, memory_backing, pin_policy and kernel values
                     against orchestrator/scenario/names.c
  workloads          docs/workloads.md's modes table against memhp-pin's modes
                     (the `.name` of each struct pin_mode in workloads/*.c) and
                     lib/mhl-pin.h's MHL_PIN_MODES; memhp-pin's other
                     commands (memhp-pin.c's commands[]) named
  run-dir DIR        README's results table (and docs/reports.md's files
                     table) against the run directory DIR: every entry of DIR
                     has a row, every row but the resumed one's is in DIR,
                     every file of report/ and sysinfo/pre/ is named
  schemas            every docs/schemas/NAME.schema.json a doc links or names
                     exists, and each of docs/schemas/ is in docs/cli.md's table
  architecture       docs/architecture.md's folder list against the tree: each
                     .c file of a listed orchestrator/ or reports/ folder is
                     named under it, each file named there exists; README's
                     Layout likewise for the scripts of kernel/, workloads/
                     and tools/ (and kernel/'s C)
  full-tier          docs/testing.md's "full tier only" table against the parts
                     that have a full-tier section (tests/*.sh calling `full`)
  numbers            figures stated twice: README's conformance run (trials,
                     time) as docs/conformance.md's last run; README's part
                     count as tests/run.sh's parts; docs/stock.md's
                     scenario table as scenarios/stock/, and its "`make
                     stock` runs N" as the trials `memhp-lab check` expands
                     them into ($MHL_LAB, else build/memhp-lab)
"""
import glob
import os
import re
import subprocess
import sys

DOCS = "."
problems = []


def doc(path):
    with open(os.path.join(DOCS, path), encoding="utf-8") as f:
        return f.read()


def code(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def scenario_code():
    """The scenario loader's parts (orchestrator/scenario/*.c), as one text."""
    return "".join(code(p) for p in sorted(glob.glob("orchestrator/scenario/*.c")))


def bad(msg):
    problems.append(msg)


def c_list(src, name):
    """The strings of `static const char *const NAME[] = { "a", "b", NULL };` (NAME[N], [I] = "a" too)."""
    m = re.search(r"\b" + re.escape(name) + r"\[[^\]]*\]\s*=\s*\{(.*?)\};", src, re.S)
    if not m:
        sys.exit("doc-tables.py: no list %s[] in the code" % name)
    return re.findall(r'"([^"]*)"', m.group(1))


PIN_H = "lib/mhl-pin.h"
NAMES_C = "orchestrator/scenario/names.c"


def name_table(table):
    """The names of a name table (the first string of each row): memhp-pin's in
    lib/mhl-pin.h (MHL_PIN_MODES, MHL_PIN_BACKINGS, mhl_pin_touches,
    mhl_pin_splits), the scenario's in orchestrator/scenario/names.c."""
    if table == "MHL_PIN_MODES":
        return re.findall(r'^\s*X\([A-Z_]+, \w+, "([^"]+)"', code(PIN_H), re.M)
    if table == "MHL_PIN_BACKINGS":
        return re.findall(r'^\s*X\([A-Z_]+, "([^"]+)"\)', code(PIN_H), re.M)
    if table.startswith("mhl_pin_"):
        return c_list(code(PIN_H), table)
    m = re.search(r"\b" + re.escape(table) + r"\[[^\]]*\]\s*=\s*\{(.*?)\};", code(NAMES_C), re.S)
    if not m:
        sys.exit("doc-tables.py: no table %s[] in %s" % (table, NAMES_C))
    if re.search(r"\]\s*=\s*\{", m.group(1)):	# struct rows: [ID] = { "name", properties... }
        return re.findall(r'\]\s*=\s*\{\s*"([^"]+)"', m.group(1))
    return re.findall(r'"([^"]*)"', m.group(1))


def md_table(text, header):
    """Rows (lists of cells) of the markdown table whose header line starts with HEADER."""
    i = text.find(header)
    if i < 0:
        return None
    rows = []
    for line in text[i:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def depth0(cell):
    """CELL without what is in parentheses (the keys column: keys outside, values inside)."""
    out, d = [], 0
    for ch in cell:
        if ch == "(":
            d += 1
        elif ch == ")":
            d = max(d - 1, 0)
        elif d == 0:
            out.append(ch)
    return "".join(out)


def after_key(cell, key):
    """The parenthesis right after `KEY` in CELL, up to its first ';'."""
    m = re.search(r"`" + re.escape(key) + r"` \(([^;)]*)", cell)
    return m.group(1) if m else None


def same(what, doc_set, code_set, where_doc, where_code):
    for k in sorted(code_set - doc_set):
        bad("%s '%s': in %s, not in %s" % (what, k, where_code, where_doc))
    for k in sorted(doc_set - code_set):
        bad("%s '%s': in %s, not in %s" % (what, k, where_doc, where_code))


def key_docs(md, key, top=True):
    """Where docs/scenarios.md documents the mapping KEY: each line of a
    ```yaml block that sets KEY (at column 0 when TOP, else at any indent),
    with the lines under it (more indented, or comments), and each paragraph
    that opens with `KEY:` in backticks. Only there does a key of KEY's
    count as documented, not wherever the doc happens to write `key:`."""
    parts = []
    for block in re.findall(r"```yaml\n(.*?)```", md, re.S):
        lines = block.split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"^(\s*)(?:- )?%s:" % re.escape(key), line)
            if not m or (top and line[0].isspace()):
                continue
            indent = len(m.group(1))
            parts.append(line)
            for more in lines[i + 1:]:
                if not more.strip() or not (more.lstrip().startswith("#") or len(more) - len(more.lstrip()) > indent):
                    break
                parts.append(more)
    parts += [p for p in re.split(r"\n\s*\n", md) if p.startswith("`%s:" % key)]
    return "\n".join(parts)


def check_scenario_keys():
    src = scenario_code()
    md = doc("docs/scenarios.md")
    sc = "orchestrator/scenario/*.c"
    # Top-level keys: each loader key is a top-level line of one of the doc's
    # YAML examples, or opens a paragraph of its own (`soak: {...}` is ...);
    # each top-level line of the doc's YAML is a key.
    top = set(c_list(src, "topKeys"))
    yaml_top = set()
    for block in re.findall(r"```yaml\n(.*?)```", md, re.S):
        yaml_top.update(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*):", block, re.M))
    written = set(yaml_top) | set(re.findall(r"^`([a-z_]+):", md, re.M))
    for k in sorted(top - written):
        bad("top-level key '%s': the loader takes it (%s topKeys[]), docs/scenarios.md does not document it "
            "(no YAML example sets it at the top level, no paragraph opens with `%s:`)" % (k, sc, k))
    for k in sorted(yaml_top - top):
        bad("top-level key '%s': in docs/scenarios.md's YAML, the loader refuses it (%s topKeys[])" % (k, sc))
    # Step kinds and their keys: the steps table's keys column (outside
    # parentheses) holds exactly the keys the kind needs and takes.
    kinds = {}
    for m in re.finditer(r'\[MHL_STEP_[A-Z]+\]\s*=\s*\{\s*"([a-z]+)",\s*(KEYS\(([^)]*)\)|NO_KEYS),\s*'
                         r'(KEYS\(([^)]*)\)|NO_KEYS)', src):
        kinds[m.group(1)] = set(re.findall(r'"([^"]+)"', (m.group(3) or "") + "," + (m.group(5) or "")))
    if not kinds:
        sys.exit("doc-tables.py: no stepKinds[] rows in " + sc)
    rows = md_table(md, "| step | keys | does |")
    if rows is None:
        bad("docs/scenarios.md: no steps table ('| step | keys | does |')")
        return
    table = {}
    for r in rows:
        m = re.match(r"`([a-z]+)`$", r[0])
        if m and len(r) >= 2:
            table[m.group(1)] = r[1]
    same("step kind", set(table), set(kinds), "docs/scenarios.md's steps table", sc + " stepKinds[]")
    for kind in sorted(set(table) & set(kinds)):
        keys = set(re.findall(r"`([a-z_]+)(?::[^`]*)?`", depth0(table[kind])))
        same("step '%s': key" % kind, keys, kinds[kind], "docs/scenarios.md's steps table", sc)
    # The pin's values: the parenthesis after the key, up to its first ';'.
    pin = table.get("pin", "")
    for key, lst in (("workload", "MHL_PIN_MODES"), ("backing", "MHL_PIN_BACKINGS"),
                     ("touch", "mhl_pin_touches"), ("split", "mhl_pin_splits")):
        vals = after_key(pin, key)
        if vals is None:
            bad("docs/scenarios.md: the pin row gives no values for `%s` (`%s` (a, b; ...))" % (key, key))
            continue
        vals = {v.strip() for v in re.split(r",", re.sub(r":.*", "", vals)) if v.strip()}
        same("pin %s" % key, vals, set(name_table(lst)), "docs/scenarios.md's pin row", "%s %s" % (PIN_H, lst))
    # the keys of the mappings under a top-level key (virtio_mem: under a
    # node): each written `KEY:` where the doc documents that mapping
    # (key_docs), not anywhere: xfail's `policy:` is not documented by grid's
    for lst, under in (("nodeKeys", "nodes"), ("vmemKeys", "virtio_mem"), ("prebuiltKeys", "kernel"),
                       ("deviceKeys", "devices"), ("backingKeys", "memory_backing"), ("onlineKeys", "online"),
                       ("soakKeys", "soak"), ("mhlXfailKeys", "xfail"), ("mhlGridKeys", "grid")):
        where = key_docs(md, under, top=under != "virtio_mem")
        if not where:
            bad("%s: docs/scenarios.md has no YAML example setting '%s:' and no paragraph opening with `%s:`" % (under, under, under))
            continue
        for k in c_list(src, lst):
            if not re.search(r"(?<![\w-])%s:" % re.escape(k), where):
                bad("%s: key '%s': the loader takes it (%s %s[]), docs/scenarios.md never writes '%s:' where it documents %s: "
                    "(its YAML examples' '%s:' lines, a paragraph opening with `%s:`)" % (under, k, sc, lst, k, under, under, under))
    # online: and guest: values, each named in the doc
    for lst, key in (("mhlOnlinePolicies", "online"), ("mhlGuestNames", "guest"), ("mhlMemBackings", "memory_backing"),
                     ("mhlPinPolicies", "pin_policy"), ("mhlKernelForms", "kernel"), ("mhlKernelFlavours", "kernel")):
        # the example's `KEY: VALUE  # comment` line and the comment lines under it
        lines, line = md.splitlines(), ""
        for i, l in enumerate(lines):
            if re.match(r"%s: " % key, l):
                line = l
                for more in lines[i + 1:]:
                    if not more.lstrip().startswith("#"):
                        break
                    line += "\n" + more
                break
        for v in name_table(lst):
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(v), line):
                bad("%s: '%s': the loader takes it (%s %s[]), docs/scenarios.md's example line '%s:' (and its comments) does not name it" % (key, v, NAMES_C, lst, key))


def check_workloads():
    modes = set()
    for f in sorted(glob.glob("workloads/*.c")):
        modes.update(re.findall(r'\.name\s*=\s*"([^"]+)"', code(f)))
    pin = code("workloads/memhp-pin.c")
    others = set(re.findall(r'\{ "([a-z_-]+)", \w+ \}', re.search(r"\bcommands\[\] = \{(.*?)\n\};", pin, re.S).group(1)))
    md = doc("docs/workloads.md")
    rows = md_table(md, "| mode | pins with |")
    if rows is None:
        bad("docs/workloads.md: no modes table ('| mode | pins with |')")
        return
    table = {m.group(1) for r in rows for m in [re.match(r"`([a-z_-]+)`$", r[0])] if m}
    same("memhp-pin mode", table, modes, "docs/workloads.md's modes table", "workloads/*.c (struct pin_mode .name)")
    same("pin workload", modes, set(name_table("MHL_PIN_MODES")),
         "memhp-pin's modes", PIN_H + " MHL_PIN_MODES")
    for o in sorted(others):
        if "memhp-pin %s" % o not in md:
            bad("memhp-pin %s: a command of workloads/memhp-pin.c, docs/workloads.md never shows 'memhp-pin %s'" % (o, o))


def names_in(cell):
    return set(re.findall(r"`([^`]+)`", cell))


def check_run_dir(run):
    readme = doc("README.md")
    rows = md_table(readme, "| file | what |")
    if rows is None:
        bad("README.md: no results table ('| file | what |')")
        return
    pats = []   # (name as written, regex for a path under the run, the row's text)
    for r in rows:
        for n in names_in(r[0]):
            rx = re.escape(n.split("/")[0]).replace(re.escape("<trial>"), r"[A-Za-z0-9._-]+")
            pats.append((n, re.compile(rx + "$"), r[1]))
    entries = sorted(os.listdir(run))
    for e in entries:
        if not any(p.match(e) for _, p, _ in pats):
            bad("run directory entry '%s' (%s): not in README.md's results table" % (e, run))
    for n, p, _ in pats:
        if "/" in n.rstrip("/"):
            there = os.path.exists(os.path.join(run, n))
        else:
            there = any(p.match(e) for e in entries)
        if not there:
            bad("README.md's results table names '%s': not in the run directory %s" % (n, run))
    # report/: each file named in README's row and in docs/reports.md's table
    rep_row = next((w for n, _, w in pats if n == "report/"), "")
    reports = doc("docs/reports.md")
    rep_rows = md_table(reports, "| file | format | for |") or []
    rep_names = set()
    for r in rep_rows:
        rep_names.update(names_in(r[0]))
    for e in sorted(os.listdir(os.path.join(run, "report"))) if os.path.isdir(os.path.join(run, "report")) else []:
        if os.path.isdir(os.path.join(run, "report", e)):
            if not any(n.startswith(e + "/") for n in names_in(rep_row)):
                bad("report/%s/: not in README.md's results table (report/ row)" % e)
            if not any(n.startswith(e + "/") for n in rep_names):
                bad("report/%s/: not in docs/reports.md's files table" % e)
            continue
        if "`%s`" % e not in rep_row:
            bad("report/%s: not in README.md's results table (report/ row)" % e)
        if e not in rep_names:
            bad("report/%s: not in docs/reports.md's files table" % e)
    for n in sorted(rep_names):
        if not os.path.exists(os.path.join(run, "report", n.split("/")[0] if "/" in n else n)):
            bad("docs/reports.md's files table names '%s': not in %s/report" % (n, run))
    # sysinfo/pre/: each file named in its row
    sys_row = next((w for n, _, w in pats if n.startswith("sysinfo/")), "")
    pre = os.path.join(run, "sysinfo", "pre")
    for e in sorted(os.listdir(pre)) if os.path.isdir(pre) else []:
        if not re.search(r"(?<![\w.])%s(?![\w])" % re.escape(e), sys_row):
            bad("sysinfo/pre/%s: not named in README.md's results table (sysinfo row)" % e)


def check_schemas():
    have = {os.path.basename(p) for p in glob.glob("docs/schemas/*.json")}
    texts = {"README.md": doc("README.md")}
    for p in sorted(glob.glob(os.path.join(DOCS, "docs", "*.md"))):
        texts["docs/" + os.path.basename(p)] = doc("docs/" + os.path.basename(p))
    for where, t in texts.items():
        for n in sorted(set(re.findall(r"schemas/([A-Za-z0-9_.-]+\.json)", t))):
            if n not in have:
                bad("%s names docs/schemas/%s: no such file" % (where, n))
    cli = texts.get("docs/cli.md", "")
    for n in sorted(have):
        if "(schemas/%s)" % n not in cli:
            bad("docs/schemas/%s: not linked from docs/cli.md's JSON table" % n)
    # "COMMAND --json ... with a JSON Schema": each command README says has one
    flat = " ".join(texts["README.md"].split())
    m = re.search(r"--json` output \(([^)]*?)each with a JSON Schema", flat)
    if not m:
        bad("README.md: no '--json` output (... each with a JSON Schema' sentence to check")
    else:
        said = m.group(1).rsplit("those of", 1)[-1]
        for c in re.findall(r"`([a-z]+)`", said):
            if "%s.schema.json" % c not in have:
                bad("README.md says `%s --json` has a schema in docs/schemas/: no %s.schema.json" % (c, c))


def folder_blocks(text):
    """An indented folder list ("    dir/   what it holds", continued on the
    lines below) as {dir/: its lines}: docs/architecture.md's and README's."""
    blocks, cur = {}, None
    for line in text.splitlines():
        f = re.match(r"    (\S+/)\s", line)
        if f:
            cur = f.group(1)
            blocks[cur] = line
        elif cur:
            blocks[cur] += "\n" + line
    return blocks


def check_architecture():
    md = doc("docs/architecture.md")
    m = re.search(r"## The folders\n\n(.*?)\n\n", md, re.S)
    if not m:
        bad("docs/architecture.md: no '## The folders' list")
        return
    blocks = folder_blocks(m.group(1))
    for folder in sorted(blocks):
        if not (folder.startswith("orchestrator/") or folder == "reports/"):
            continue
        text = blocks[folder]
        real = {os.path.basename(p) for p in glob.glob(folder + "*.c")}
        if not real:
            bad("docs/architecture.md lists %s: no .c file there" % folder)
            continue
        named = set(re.findall(r"(?<![\w/.-])([A-Za-z0-9*_-]+\.c)\b", text))
        for n in sorted(named):
            if not glob.glob(folder + n):
                bad("docs/architecture.md, %s: names %s, which is not there" % (folder, n))
        for r in sorted(real):
            if not any(re.fullmatch(n.replace(".", r"\.").replace("*", ".*"), r) for n in named):
                bad("%s%s: not named under %s in docs/architecture.md's folder list" % (folder, r, folder))
        # paths named elsewhere (trial/queue-fleet.c, cli/run-fleet.c)
        for p in sorted(set(re.findall(r"\b([a-z]+/[A-Za-z0-9_-]+\.c)\b", text))):
            if not os.path.exists("orchestrator/" + p) and not os.path.exists(p):
                bad("docs/architecture.md, %s: names %s, which is not there" % (folder, p))
    for d in sorted(glob.glob("orchestrator/*/")) + ["reports/"]:
        if d not in blocks:
            bad("%s: a folder of the orchestrator or its reports missing from docs/architecture.md's list" % d)
    # README's Layout: the scripts and programs of kernel/, workloads/ and tools/
    m = re.search(r"## Layout\n\n(.*?)\n\n", doc("README.md"), re.S)
    if not m:
        bad("README.md: no '## Layout' list")
        return
    layout = folder_blocks(m.group(1))
    for page in sorted(glob.glob("docs/*.md")):
        name = os.path.basename(page)[:-3]
        if not re.search(r"\b%s\b" % re.escape(name), layout.get("docs/", "")):
            bad("docs/%s.md: not named under docs/ in README.md's Layout" % name)
    for folder in ("kernel/", "workloads/", "tools/", "stacks/"):
        text = layout.get(folder, "")
        named = set(re.findall(r"(?<![\w/.-])([A-Za-z0-9_-]+\.(?:sh|c))\b", text))
        real = {os.path.basename(p) for p in glob.glob(folder + "*.sh")}
        if folder == "kernel/":
            real |= {os.path.basename(p) for p in glob.glob(folder + "*.c")}
        for r in sorted(real - named):
            bad("%s%s: not named under %s in README.md's Layout" % (folder, r, folder))
        for n in sorted(named):
            if not os.path.exists(folder + n):
                bad("README.md's Layout, %s: names %s, which is not there" % (folder, n))


def run_parts():
    """tests/run.sh's parts=( ... ), one name a line (then a comment)."""
    m = re.search(r"^parts=\($(.*?)^\)$", code("tests/run.sh"), re.S | re.M)
    if not m:
        sys.exit("doc-tables.py: no parts=( ... ) in tests/run.sh")
    return re.findall(r"^\s+([a-z-]+)", m.group(1), re.M)


def check_full_tier():
    parts = run_parts()
    uses = set()
    for p in parts:
        body = "\n".join(l for l in code("tests/%s.sh" % p).splitlines() if not l.lstrip().startswith("#"))
        # `if full; then`, `full && ...`, `! full`: the shell function of tests/lib.sh
        if re.search(r"(^\s*|\bif\s+|(&&|\|\||!)\s*)full\s*(;|&&|\|\||$)", body, re.M):
            uses.add(p)
    rows = md_table(doc("docs/testing.md"), "| part | full tier only |")
    if rows is None:
        bad("docs/testing.md: no '| part | full tier only |' table")
        return
    same("part with a full-tier section", {r[0] for r in rows}, uses,
         "docs/testing.md's full-tier table", "tests/*.sh (if full / full &&)")


def check_numbers():
    readme = doc("README.md")
    conf = doc("docs/conformance.md")
    r = re.search(r"all ten claims, (\d+)\s+trials in (\d+ min \d+ s)", readme)
    c = re.search(r"^(\d+) trials in (\d+ min \d+ s)", conf, re.M)
    if not r or not c:
        bad("README.md or docs/conformance.md: no 'N trials in M min S s' of the conformance run")
    elif r.groups() != c.groups():
        bad("README.md's conformance run: %s trials in %s; docs/conformance.md's last run: %s trials in %s" %
            (r.group(1), r.group(2), c.group(1), c.group(2)))
    parts = run_parts()
    m = re.search(r"planned checks in (\d+) parts", readme.replace("\n", " "))
    if not m:
        bad("README.md: no 'planned checks in N parts'")
    elif int(m.group(1)) != len(parts):
        bad("README.md: %s parts; tests/run.sh has %d" % (m.group(1), len(parts)))
    check_stock_numbers()


def stock_trials():
    """The trials of scenarios/stock/*.yaml as `memhp-lab check` expands their matrices."""
    lab = os.environ.get("MHL_LAB", "build/memhp-lab")
    files = sorted(glob.glob("scenarios/stock/*.yaml"))
    out = subprocess.run([lab, "check"] + files, capture_output=True, text=True).stdout
    n = 0
    for line in out.splitlines():
        m = re.match(r"^scenarios/stock/[^:]+\.yaml: ok: .*?(?:, (\d+) trial\(s\) from its matrix)?$", line)
        if m:
            n += int(m.group(1) or 1)
    return files, n


def check_stock_numbers():
    stock = doc("docs/stock.md")
    rows = md_table(stock, "| scenario | what it asks |")
    files, trials = stock_trials()
    if rows is None:
        bad("docs/stock.md: no '| scenario | what it asks |' table")
    else:
        same("stock scenario", {r[0].strip("`") for r in rows}, {os.path.basename(f) for f in files},
             "docs/stock.md's scenario table", "scenarios/stock/*.yaml")
    m = re.search(r"`make stock` runs (\d+)", stock.replace("\n", " "))
    if not m:
        bad("docs/stock.md: no '`make stock` runs N'")
    elif int(m.group(1)) != trials:
        bad("docs/stock.md: `make stock` runs %s; memhp-lab check expands scenarios/stock/ into %d trials" %
            (m.group(1), trials))


def main(argv):
    global DOCS
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--docs":
        DOCS = args[1]
        args = args[2:]
    checks = {"scenario-keys": check_scenario_keys, "workloads": check_workloads, "run-dir": check_run_dir,
              "schemas": check_schemas, "architecture": check_architecture, "full-tier": check_full_tier,
              "numbers": check_numbers}
    if not args or args[0] not in checks or (args[0] == "run-dir") != (len(args) == 2) or len(args) > 2:
        sys.exit("usage: doc-tables.py [--docs ROOT] %s [RUN_DIR]" % "|".join(checks))
    if args[0] == "run-dir" and not os.path.isfile(os.path.join(args[1], "trials.jsonl")):
        sys.exit("doc-tables.py: run-dir: %s holds no trials.jsonl (no run there)" % args[1])
    checks[args[0]](*args[1:])
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
