# tests/hardening-records.sh - records and run directories from elsewhere (CI
# artifacts: nothing in them is trusted) and the guest's text in them, as
# `memhp-lab report` reads them. Sourced by tests/run.sh (its ok, lab, $LAB,
# $work); no guest is booted. The records are tests/data/report's, edited.
plan 28
echo "# hardening: records of the wrong shape, guest text, console_log outside the run directory"
hr=$work/hardening
rm -rf "$hr" && mkdir -p "$hr"
src=tests/data/report/run/trials.jsonl
rec() { jq -c "select(.trial == \"$1\") | $2" "$src"; }	# rec TRIAL JQ-EDIT: one edited record
# fit_utf8 FILE: valid UTF-8, no control character but newline and tab, every JSON string too
fit_utf8() {
	/usr/bin/python3 - "$1" <<-'EOF'
	import json, re, sys
	raw = open(sys.argv[1], 'rb').read()
	text = raw.decode('utf-8')		# raises on a byte that is not UTF-8
	bad = re.search('[\x00-\x08\x0b-\x1f\x7f]', text)
	if bad:
	    sys.exit('control character %r at %d' % (bad.group(), bad.start()))
	if sys.argv[1].endswith('.json'):
	    def walk(v):
	        if isinstance(v, str):
	            if re.search('[\x00-\x08\x0b-\x1f\x7f]', v):
	                sys.exit('control character in %r' % v[:80])
	        elif isinstance(v, dict):
	            [walk(x) for x in v.values()]
	        elif isinstance(v, list):
	            [walk(x) for x in v]
	    walk(json.loads(text))
	EOF
}
fit_all() { local f; for f; do fit_utf8 "$f" || return 1; done; }
junit_fit() { xmllint --noout "$1" && fit_utf8 "$1"; }

# Valid JSON with fields of the wrong type: json-c asserts (SIGABRT, no report)
# unless the loader names the record like a bad line and renders the rest.
d=$hr/shape
mkdir -p "$d"
{
	rec series-256 .
	echo '{"trial":"x","verdict":"pass","steps":{}}'
	rec panic '.trial = "f" | .console_findings = "none"'
	rec series-256 '.trial = "t" | .timeline = {}'
	rec series-256 '.trial = "n" | .domain.nodes = "2"'
	rec series-256 '.trial = "p" | .parameters = ["pinned"]'
	rec series-256 '.trial = "c" | .steps[0].workload.census_after.by_node = {"1": 5}'
	rec series-256 '.trial = "s" | .summary.reached_bytes = "0"'
	rec series-256 '.trial = "o" | .steps[1].ok = "false"'
	rec series-256 '.trial = "u" | .steps[0].workload.census_before.by_node = {"1": null} | .timeline += [null]'
} >"$d/trials.jsonl"
lab report "$d" >"$d.out" 2>"$d.err"
rc=$?
ok "report: 9 records of the wrong shape are named, not a SIGABRT: exit 3 (unreadable records: the lab's failure, not the kernel's), a report" \
	test "$rc" = 3 -a -s "$d/report/junit.xml" -a -s "$d/report/kcidb.json" -a -s "$d/report/index.html"
ok "report: each named as FILE:LINE: trial 'ID': a record of the wrong shape: FIELD is X, not Y" sh -c '
	test "$(grep -c "a record of the wrong shape" "$1")" = 9 &&
	grep -q "trials.jsonl:2: trial .x.: a record of the wrong shape: steps is an object, not an array" "$1" &&
	grep -q "trials.jsonl:3: trial .f.: .*console_findings is a string, not an array" "$1" &&
	grep -q "trials.jsonl:7: trial .c.: .*steps\[0\]\.workload\.census_after\.by_node\.1 is a number, not an object" "$1" &&
	grep -q "trials.jsonl:8: trial .s.: .*summary\.reached_bytes is not a number" "$1" &&
	grep -q "trials.jsonl:9: trial .o.: .*steps\[1\]\.ok is a string, not a boolean" "$1" &&
	grep -q "trials.jsonl:10: trial .u.: .*census_before\.by_node\.1 is null, not an object" "$1"' _ "$d.err"
ok "report: the record of the right shape rendered, the 9 others as unreadable lines (junit, ktap)" sh -c '
	grep -q "1 trial(s), 9 unreadable line(s)" "$1.out" &&
	test "$(xmllint --xpath "count(//testcase[@classname=\"memhp.records\"])" "$1/report/junit.xml")" = 9 &&
	grep -q "^ok 1 series-256" "$1/report/results.ktap"' _ "$d"
cp -r "$d" "$hr/shape-after" && rec series-256 . >"$hr/shape-after/trials.jsonl"
lab report "$hr/shape-after" --compare "$d" >"$d.cmp.out" 2>"$d.cmp.err"
rc=$?
ok "report --compare: a run of the wrong shape as OTHER_RUN is named too (in --compare), exit 3" \
	sh -c 'test "$1" = 3 && grep -q "trials.jsonl:2: trial .x.: .*(in --compare)" "$2"' _ "$rc" "$d.cmp.err"

# Guest text in a record: an escape, a BEL, a byte that is not UTF-8; and a
# console excerpt longer than KCIDB's 16384 bytes, of 3-byte characters.
d=$hr/text
mkdir -p "$d"
{
	printf '[    0.000000] Linux version 6.12\n[    1.000000] WARNING: x'
	for _ in $(seq 1 8000); do printf '\xe2\x82\xac'; done
	printf '\n'
} >"$d/panic.console.log"
rec panic '.trial = "esc" | .reason = "\u001b[31mred\u001b[0m XFF \u0007 bell" |
	.console_findings = [{"line": 2, "kind": "warning", "text": "[    1.000000] WARNING: \u001b[1mx"}]' |
	sed 's/XFF/\xff/' >"$d/trials.jsonl"
lab report "$d" >"$d.out" 2>"$d.err"
rc=$?
ok "report: a record with an escape, a BEL and a byte that is not UTF-8 renders (exit 0)" test "$rc" = 0
ok "report: junit.xml is well-formed XML (xmllint), valid UTF-8 without control characters" \
	junit_fit "$d/report/junit.xml"
ok "report: kcidb.json is valid UTF-8 JSON, no control character in any string" fit_utf8 "$d/report/kcidb.json"
ok "report: kcidb log_excerpt cut to at most 16384 bytes between two characters" /usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1], encoding="utf-8"))["tests"][0]
x = t["log_excerpt"].encode("utf-8")
sys.exit(0 if 16000 < len(x) <= 16384 and x.endswith(b"\xe2\x82\xac") else "excerpt of %d bytes" % len(x))' "$d/report/kcidb.json"
ok "report: results.ktap and index.html are valid UTF-8 without control characters" \
	fit_all "$d/report/results.ktap" "$d/report/index.html"

# console_log names a file outside the run directory: only RUN_DIR/<basename> is
# read, a regular file below RUN_DIR's descriptor, never a link. Each of the three
# names the secret: as it is, through a link, and as a path that starts with
# RUN_DIR and climbs out of it with "..".
d=$hr/outside
mkdir -p "$d/logs"
printf '[    1.000000] Kernel panic - SECRET-OUTSIDE-1\nSECRET-OUTSIDE-2\n' >"$hr/secret.log"
ln -s "$hr/secret.log" "$d/link.console.log"
printf '[    1.000000] Kernel panic - INSIDE-LOG\n' >"$d/logs/real.log"
ln -s logs/real.log "$d/inside.console.log"
f='.console_findings = [{"line": 1, "kind": "panic", "text": "[    1.000000] Kernel panic"}]'
{
	rec panic ".trial = \"abs\" | .console_log = \"$hr/secret.log\" | $f"
	rec panic ".trial = \"link\" | .console_log = \"/elsewhere/link.console.log\" | $f"
	rec panic ".trial = \"dotdot\" | .console_log = \"$d/logs/../../secret.log\" | $f"
	rec panic ".trial = \"inside\" | .console_log = \"/elsewhere/inside.console.log\" | $f"
} >"$d/trials.jsonl"
lab report "$d" >"$d.out" 2>"$d.err"
rc=$?
ok "report: a console_log outside the run directory (absolute, a link out, RUN_DIR/logs/../../) is not read: each trial rendered with its finding's text only" \
	sh -c 'test "$1" = 0 && ! grep -rq "SECRET-OUTSIDE" "$2/report" && ! grep -q "secret.log" "$2/report/kcidb.json" &&
		jq -e "[.tests[] | select(.path | IN(\"memhp.panic.abs\", \"memhp.panic.link\", \"memhp.panic.dotdot\")) |
			(has(\"log_url\") | not) and .log_excerpt == \"[    1.000000] Kernel panic\n\"] == [true, true, true]" "$2/report/kcidb.json" >/dev/null' \
	_ "$rc" "$d"
# Issue 48: a run directory's files are opened below its descriptor and never
# through a link, even one that stays inside it (it was read before).
ok "report: a console log that is a link, even one within the run directory, is not read (no excerpt of it, no log_url)" /usr/bin/python3 -c '
import json, sys
tests = {t["path"]: t for t in json.load(open(sys.argv[1]))["tests"]}
t = tests["memhp.panic.inside"]
sys.exit(0 if "INSIDE-LOG" not in t.get("log_excerpt", "") and "log_url" not in t
	 and "log_url" not in tests["memhp.panic.abs"] and "log_url" not in tests["memhp.panic.link"] else 1)' \
	"$d/report/kcidb.json"

echo "# hardening: console logs of any size or kind, read a line at a time (issue 30, finding 17)"
# peak_rss FILE CMD...: CMD's exit status; the peak RSS (KiB) of it and what it waited for into FILE
peak_rss() {
	/usr/bin/python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$@"
}
# a line of the log near the panic that no finding's text holds: only the excerpt quotes it
near=$(sed -n "302s/[[:space:]]*$//p" tests/data/report/run/panic.console.log)
d=$hr/biglog
rm -rf "$d" && cp -r tests/data/report/run "$d"
truncate -s +300M "$d/panic.console.log"	# 300 MiB more, sparse: NUL bytes and no newline
timed 60 peak_rss "$d.rss" $LAB report "$d" >"$d.out" 2>"$d.err"
rc=$?
echo "#   report of a 300 MiB console log: exit $rc, peak RSS $(cat "$d.rss" 2>/dev/null) KiB"
ok "report: a console log of 300 MiB (sparse, no newline): peak RSS under 64 MiB, exit 0, the panic's excerpt still in junit.xml and kcidb.json" \
	sh -c 'test "$1" = 0 && test "$(cat "$2.rss")" -lt 65536 && grep -qF "$3" "$2/report/junit.xml" &&
		jq -e --arg l "$3" "[.tests[] | select(.path | endswith(\".panic\")) | .log_excerpt | contains(\$l)] == [true]" \
			"$2/report/kcidb.json" >/dev/null' _ "$rc" "$d" "$near"
# report --merge copies a shard's logs: one of 100 MiB, one that is a FIFO (a read of it waits for a writer forever)
d=$hr/merge-logs
rm -rf "$d" && mkdir -p "$d/s"
printf '{"scenarios": ["/x.yaml"], "shard": {"k_of_n": "1/1", "trials": ["panic", "series-256"]}}\n' >"$d/s/run.json"
{
	rec panic ".console_log = \"$d/s/panic.console.log\""
	rec series-256 ".console_log = \"$d/s/fifo.console.log\""
} >"$d/s/trials.jsonl"
cp tests/data/report/run/panic.console.log "$d/s/" && truncate -s +100M "$d/s/panic.console.log"
mkfifo "$d/s/fifo.console.log"
timed 30 peak_rss "$d.rss" $LAB report --merge "$d/m" "$d/s" >"$d.out" 2>&1
rc=$?
echo "#   report --merge of a 100 MiB log and a FIFO: exit $rc, peak RSS $(cat "$d.rss" 2>/dev/null) KiB"
ok "report --merge: a shard's console log of 100 MiB copied whole, one that is a FIFO not read (no wait, no log for its trial): exit 0, peak RSS under 64 MiB" \
	sh -c 'test "$1" = 0 && test "$(cat "$2.rss")" -lt 65536 && cmp -s "$2/s/panic.console.log" "$2/m/panic.console.log" &&
		test ! -e "$2/m/fifo.console.log" &&
		jq -e "select(.trial == \"series-256\") | has(\"console_log\") | not" "$2/m/trials.jsonl" >/dev/null' _ "$rc" "$d"
rm -rf "$d" "$hr/biglog"	# 100 MiB written by the copy

echo "# hardening: where report writes, and a file size limit"
d=$work/hr-link
rm -rf "$d" "$d-out" && cp -r tests/data/report/run "$d" && mkdir -p "$d-out" && ln -s "$d-out" "$d/report"
expect_fail "report: RUN_DIR/report that is a link out of the run directory is refused (exit 3: no report written)" 3 \
	"report: '$d/report' is not a directory" $LAB report "$d"
ok "report: nothing was written where the link points" test -z "$(ls -A "$d-out")"

echo "# hardening: report --history places runs by their parsed start, writes where -o says (issue 30, finding 8)"
d=$hr/history
rm -rf "$d" && mkdir -p "$d"
hist_run() { mkdir -p "$1" && jq -c "$2" "$src" >"$1/trials.jsonl"; }	# hist_run DIR JQ-EDIT: the records, edited
for k in 1 2 3; do hist_run "$d/nightly/2026-12-0$k" ".started = \"2026-12-0${k}T03:00:00Z\""; done
# two planted runs, each a fail that would gate the exit status if it were the newest
planted='if .trial == "series-256" then .verdict = "fail" | .reason = "planted" else . end'
hist_run "$d/nightly/zz-9999" "$planted | .started = \"9999-12-31T23:59:59Z\""
hist_run "$d/nightly/zz-tilde" "$planted | .started = (if .trial == \"series-256\" then \"~\" else \"2026-12-04T03:00:00Z\" end)"
lab report --history -o "$d/out" "$d/nightly" >"$d/out1" 2>"$d/err1"
rc=$?
ok "report --history: runs started '9999-12-31T23:59:59Z' and '~' (a planted fail each) decide nothing: skipped, exit 0, the 3 others in order" sh -c '
	test "$1" = 0 && jq -e "(.runs | map(.dir | sub(\".*/\"; \"\"))) == [\"2026-12-01\", \"2026-12-02\", \"2026-12-03\"] and
		.regressions == 0" "$2/out/history.json" >/dev/null' _ "$rc" "$d"
ok "report --history: each planted run skipped with a warning naming FILE:LINE, its started and why" sh -c '
	grep -q "warning: report --history: .*/zz-9999/trials.jsonl:1: trial .series-256.: started .9999-12-31T23:59:59Z. is more than a day after this host.s clock" "$1" &&
	grep -q "warning: report --history: .*/zz-tilde/trials.jsonl:1: trial .series-256.: started .~. is not a UTC time as memhp-lab writes it" "$1"' _ "$d/err1"
ok "report --history -o OUT_DIR: history.html and history.json in OUT_DIR, none in any run directory" sh -c '
	test -s "$1/out/history.html" -a -s "$1/out/history.json" && test -z "$(find "$1/nightly" -name "history.*")"' _ "$d"
expect_fail "report --history: a run given by name whose started is '~' is refused, naming FILE:LINE" 2 \
	"zz-tilde/trials.jsonl:1: trial 'series-256': started '~' is not a UTC time" \
	$LAB report --history -o "$d/out2" "$d/nightly/2026-12-01" "$d/nightly/zz-tilde"
expect_fail "report --history without -o: refused, saying where the output goes" 2 "report --history: no -o OUT_DIR" \
	$LAB report --history "$d/nightly"
# 10:00:00.5Z is half a second after 10:00:00Z; compared as strings ('.' < 'Z') it comes first
hist_run "$d/order/a-whole" '.started = "2026-12-03T10:00:00Z"'
hist_run "$d/order/b-half" "$planted | .started = \"2026-12-03T10:00:00.5Z\""
cp -r "$d/nightly/2026-12-01" "$d/nightly/2026-12-02" "$d/order/"
lab report --history -o "$d/out3" "$d/order" >"$d/out3.txt" 2>&1
rc=$?
ok "report --history: runs ordered by their parsed start (10:00:00.5Z after 10:00:00Z): the newest one's fail gates, exit 1" sh -c '
	test "$1" = 1 && jq -e "(.runs | map(.dir | sub(\".*/\"; \"\"))) == [\"2026-12-01\", \"2026-12-02\", \"a-whole\", \"b-half\"] and
		.regressions_in_newest_run == 1" "$2" >/dev/null' _ "$rc" "$d/out3/history.json"

echo "# hardening: check says not ok for a file with any error (finding 14), and prints file names clean (finding 15)"
d=$hr/check
rm -rf "$d" && mkdir -p "$d"
printf 'name: nokernel\nkernel: {bzimage: %s/none/bzImage, config: %s/none/config}\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n' \
	"$d" "$d" >"$d/nokernel.yaml"
lab check "$d/nokernel.yaml" >"$d/nk.out" 2>"$d/nk.err"
rc=$?
ok "check: a file whose kernel cannot be resolved: exit 1, an error naming it, and no 'ok' line for it" sh -c '
	test "$1" = 1 && grep -q "nokernel.yaml: trial .nokernel.: cannot read kernel image" "$3" && ! grep -q "nokernel.yaml: ok" "$2"' \
	_ "$rc" "$d/nk.out" "$d/nk.err"
lab check --json "$d/nokernel.yaml" scenarios/demo.yaml >"$d/nk.json" 2>/dev/null
rc=$?
ok "check --json: that file is \"ok\": false with its error and no trials, the good one beside it ok, refused 1, exit 1" sh -c '
	test "$1" = 1 && jq -e ".files[0].ok == false and (.files[0].error | test(\"cannot read kernel image\")) and
		(.files[0] | has(\"trials\") or has(\"scenario_name\") | not) and .files[1].ok == true and .refused == 1 and .trials == 1" \
		"$2" >/dev/null' _ "$rc" "$d/nk.json"
# rc_fit RC WANT FILE...: RC is WANT and every FILE is valid UTF-8 without control characters
rc_fit() { test "$1" = "$2" && shift 2 && fit_all "$@"; }
name=$'\e]0;title\a\e[31mred\xff'
cp scenarios/demo.yaml "$d/$name.yaml"
printf 'name: x\nbogus: 1\n' >"$d/$name-refused.yaml"
lab check "$d/$name.yaml" >"$d/name.out" 2>&1
rc=$?
ok "check: a file named with an OSC title, a colour and a byte that is not UTF-8: its 'ok' line is valid UTF-8 without control characters" \
	rc_fit "$rc" 0 "$d/name.out"
lab check --json "$d/$name.yaml" >"$d/name.json" 2>"$d/name.json.err"
rc=$?
ok "check --json: that file's path is valid UTF-8 without control characters" rc_fit "$rc" 0 "$d/name.json" "$d/name.json.err"
lab check "$d/$name-refused.yaml" >"$d/refused.out" 2>&1
rc=$?
ok "check: the error for a refused file of such a name is valid UTF-8 without control characters" rc_fit "$rc" 1 "$d/refused.out"

echo "# hardening: report --merge keeps a shard's trial ids clean (finding 15)"
d=$hr/merge
rm -rf "$d" && mkdir -p "$d/s1" "$d/s2"
# ids with a colour, an OSC title and a byte that is not UTF-8; the record's id the same
printf '{"scenarios": ["/x.yaml"], "shard": {"k_of_n": "1/1", "trials": ["\\u001b[31mx\xff\\u0007", "gone\\u001b]0;t\\u0007"]}}\n' >"$d/s1/run.json"
rec series-256 '.trial = "\u001b[31mx\u0007"' | sed 's/x\\u0007/x\xff\\u0007/' >"$d/s1/trials.jsonl"
printf '{"scenarios": ["/x.yaml"], "shard": {"k_of_n": "1/1", "trials": ["\\u001b[31mx\xff\\u0007"]}}\n' >"$d/s2/run.json"
cp "$d/s1/trials.jsonl" "$d/s2/"
lab report --merge "$d/m1" "$d/s1" >"$d/m1.out" 2>&1
rc=$?
merge_refused() { grep -q "trial .gone. has no record" "$3" && rc_fit "$@"; }
ok "report --merge: a shard trial id with an escape that has no record: refused (exit 2), the message valid UTF-8 without control characters" \
	merge_refused "$rc" 2 "$d/m1.out"
lab report --merge "$d/m2" "$d/s2" >"$d/m2.out" 2>&1
rc=$?
merged_clean() { rc_fit "$@" && jq -e '.trial == "x\ufffd"' "$4" >/dev/null; }
ok "report --merge: such an id matches its record (both cleaned to 'x\\ufffd'): merged (exit 0); the output, trials.jsonl and run.json clean" \
	merged_clean "$rc" 0 "$d/m2.out" "$d/m2/trials.jsonl" "$d/m2/run.json"
