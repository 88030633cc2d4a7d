#!/usr/bin/python3
"""tests/record-fields.py - docs/record.md's field list against real records.

Usage: record-fields.py [--complete] DOCS/record.md TRIALS.jsonl...

docs/record.md promises every field: the first column of its first table
names the top-level fields, the `summary` row the summary's, the `steps[]`
row the fields every step has and the "Step fields:" bullets each kind's own.
Prints one line per field a record has and the docs do not name (and, with
--complete, when the records include one of this harness's guest trials,
per top-level field the docs name that no record has, but those whose
meaning says "only", as "a soak's record only"), "ok" and exit 0 when there
is none, else exit 1.
"""
import json
import os
import re
import sys

TICK = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\[\])?`")


def doc_fields(path):
    text = open(path, encoding="utf-8").read()
    top, optional, summary, common, kinds = set(), set(), set(), set(), {}
    table = text.split("| field | meaning |", 1)[1].split("\n\n", 1)[0]
    for row in table.splitlines()[2:]:
        cells = row.split("|")
        if len(cells) < 3:
            continue
        names = TICK.findall(cells[1])
        top.update(names)
        # "a soak's record only (...)": not in every guest trial's record
        if re.search(r"\bonly\b", cells[2][:60]):
            optional.update(names)
        if names == ["summary"]:
            summary.update(TICK.findall(cells[2]))
            # "pinned_pages_movable_before/after": both
            for m in re.finditer(r"`([a-z_]+)_before/after`", cells[2]):
                summary.update({m.group(1) + "_before", m.group(1) + "_after"})
        if names == ["steps"]:
            common.update(TICK.findall(cells[2].split(", and the step's own")[0]))
    bullets = text.split("Step fields:", 1)[1].split("\nA soak", 1)[0]
    for b in re.split(r"\n- ", "\n" + bullets):
        # "- `check`, `release`, `io`: fields...": the kinds before the colon
        m = re.match(r"((?:`[a-z_]+`(?:, )?)+):", b.strip())
        if m:
            for kind in TICK.findall(m.group(1)):
                kinds.setdefault(kind, set()).update(TICK.findall(b))
    return top, optional, summary, common, kinds


def main():
    args = sys.argv[1:]
    complete = args[:1] == ["--complete"]
    args = args[1:] if complete else args
    top, optional, summary, common, kinds = doc_fields(args[0])
    bad, seen_top = [], set()
    for path in args[1:]:
        # a record file named but never written (a run that made none) is no pass
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            bad.append("%s: no record there (missing or empty)" % path)
            continue
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            rec = json.loads(line)
            where = "%s:%d (%s)" % (path, n, rec.get("trial"))
            seen_top.update(rec)
            bad += ["%s: top-level field '%s' is not in the table" % (where, k) for k in rec if k not in top]
            bad += ["%s: summary field '%s' is not in the summary row" % (where, k)
                    for k in rec.get("summary", {}) if k not in summary]
            for i, st in enumerate(rec.get("steps", [])):
                own = kinds.get(st.get("step"), set())
                bad += ["%s: steps[%d] (%s): field '%s' is neither a common step field nor one of its kind's"
                        % (where, i, st.get("step"), k) for k in st if k not in common and k not in own]
    if complete:
        bad += ["docs name top-level field '%s' that no record has" % k for k in sorted(top - optional - seen_top)]
    print("\n".join(bad) if bad else "ok: %d top-level, %d summary, %d step kinds documented" %
          (len(top), len(summary), len(kinds)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
