# tests/report.sh - the report checks of `make check`, sourced by tests/run.sh
# (uses its ok/expect_fail helpers, $LAB, $work and, for the last checks, the
# demo run in $work/demo). Golden files are in tests/data/report/golden;
# MHL_UPDATE_GOLDEN=1 tests/run.sh rewrites them from the current output, and
# each golden check then fails ("# golden updated"): review the diff, run again.
# tests/data/report/expected holds values checked by hand, which no update writes.
echo "# reports: goldens from tests/data/report (pass, fail, error, interrupted), validity, bad input, browser"
rd=$work/report
rm -rf "$rd" && cp -r tests/data/report "$rd"
# The copy's paths become @RUN@; gnuplot's SVG bodies are checked in the browser, not here.
norm() { sed -e "s|$rd|@RUN@|g" "$@"; }
nosvg() { perl -0pe 's/<svg\b.*?<\/svg>/<svg\/>/gs'; }
golden() {	# golden NAME FILE: FILE equals tests/data/report/golden/NAME
	local desc="golden: $1 matches tests/data/report/golden/$1"
	if [ -n "${MHL_UPDATE_GOLDEN:-}" ]; then	# a failed check: an update is never a green run
		tmo_fired=0
		cp "$2" "tests/data/report/golden/$1"
		check_result "$desc # golden updated" 1 cp "$2" "tests/data/report/golden/$1"
		return
	fi
	ok "$desc" diff -u "tests/data/report/golden/$1" "$2"
	diff -u "tests/data/report/golden/$1" "$2" | head -n 20 | sed 's/^/#   /'
}
expected() {	# expected FILE: every value tests/data/report/expected gives for FILE is in $rd/FILE
	local line q want got n=0 bad=0
	while IFS= read -r line; do
		case $line in "$1 "*) line=${line#"$1 "} n=$((n + 1));; *) continue;; esac
		case $1 in
		*.xml|*.json)
			q=${line% => *} want=${line##* => }
			case $1 in
			*.xml) got=$(xmllint --xpath "$q" "$rd/$1" 2>&1);;
			*) got=$(jq -r "$q" "$rd/$1" 2>&1);;
			esac
			[ "$got" = "$want" ] || { echo "$1: $q: '$got', expected '$want'"; bad=1; };;
		*)	grep -qFx -- "$line" "$rd/$1" || { echo "$1: no line '$line'"; bad=1; };;
		esac
	done <tests/data/report/expected
	[ "$n" -gt 0 ] || { echo "tests/data/report/expected has nothing for $1"; bad=1; }
	return $bad
}
mkdir -p tests/data/report/golden
sha_before=$(sha256sum "$rd/run/trials.jsonl")
t0=$(date +%s%N)
lab report "$rd/run" --compare "$rd/before" >"$rd/out" 2>"$rd/err"
rc=$?
t1=$(date +%s%N)
R=$rd/run/report
echo "# report of 6 trials, all formats, with --compare: $(( (t1 - t0) / 1000000 )) ms; index.html $(wc -c <"$R/index.html" 2>/dev/null) bytes"
ok "report of 6 readable records with --compare: exit 1 for its 2 regressions, said on stderr (a CI job sees them)" \
	sh -c '[ "$1" = 1 ] && [ "$(cat "$2")" = "report: 2 regression(s) since $3" ]' _ "$rc" "$rd/err" "$rd/before"
ok "report leaves trials.jsonl as it was" test "$(sha256sum "$rd/run/trials.jsonl")" = "$sha_before"
norm "$R/results.ktap" >"$rd/results.ktap" && golden results.ktap "$rd/results.ktap"
norm "$R/junit.xml" >"$rd/junit.xml" && golden junit.xml "$rd/junit.xml"
norm "$R/kcidb.json" >"$rd/kcidb.json" && golden kcidb.json "$rd/kcidb.json"
nosvg <"$R/index.html" | norm >"$rd/index.html" && golden index.html "$rd/index.html"
norm "$rd/out" >"$rd/compare.txt" && golden compare.txt "$rd/compare.txt"
for f in results.ktap junit.xml kcidb.json compare.txt; do
	ok "hand-checked values of $f (tests/data/report/expected)" expected $f
done

# KTAP: our checker of ktap.rst's rules, and the kernel's own parser (kunit.py, from the 6.12 source).
ok "KTAP follows ktap.rst (tests/ktap-check.awk, strict)" awk -v strict=1 -f tests/ktap-check.awk "$R/results.ktap"
printf 'KTAP version 1\n1..2\n  KTAP version 1\n  1..1\n  not ok 1 step\nok 1 trial\nok 3 x # ERROR y\n' >"$rd/bad.ktap"
ok "the KTAP checker refuses a passing parent of a failed subtest" \
	sh -c '! awk -f tests/ktap-check.awk "$1" >"$1.out"; grep -q "although one of its subtests failed" "$1.out"' _ "$rd/bad.ktap"
ok "KTAP: one result per trial, TIMEOUT for the stuck unplug, ERROR for error and interrupted" \
	test "$(grep -cE '^(not )?ok [0-9]' "$R/results.ktap")" = 6 -a \
	"$(grep -c '^not ok 2 baseline-256 # TIMEOUT' "$R/results.ktap")" = 1 -a \
	"$(grep -c '^not ok 5 panic # ERROR' "$R/results.ktap")" = 1 -a \
	"$(grep -c '^not ok 6 interrupted # ERROR interrupted' "$R/results.ktap")" = 1
kunit_parses() {	# a missing kunit.py fails the check, naming where it was looked for
	local kunit
	kunit=$(ls -d "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}"/kernel/6.12/src-*/tools/testing/kunit/kunit.py 2>/dev/null | head -n 1)
	[ -n "$kunit" ] || { echo "no kunit.py: ${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel/6.12/src-*/tools/testing/kunit/kunit.py"; return 1; }
	/usr/bin/python3 "$kunit" parse "$R/results.ktap" >"$rd/kunit.out" 2>&1
	! grep -q "\[ERROR\]" "$rd/kunit.out" && grep -q "Testing complete" "$rd/kunit.out" ||
		{ tail -n 5 "$rd/kunit.out"; return 1; }
}
ok "the kernel's kunit.py parses results.ktap without an [ERROR]" kunit_parses

# JUnit: well-formed, the counts GitLab and Jenkins show.
ok "junit.xml is well-formed (xmllint)" xmllint --noout "$R/junit.xml"
jx() { xmllint --xpath "$1" "$R/junit.xml" 2>/dev/null; }
ok "junit: 6 testcases, 2 failures, 2 errors, classname memhp.demo" \
	test "$(jx 'count(//testcase)')" = 6 -a "$(jx 'string(/testsuites/@failures)')" = 2 -a \
	"$(jx 'string(/testsuites/@errors)')" = 2 -a "$(jx 'string(//testcase[@name="baseline-256"]/@classname)')" = memhp.demo
ok "junit: the failure body holds the reason and the console excerpt" \
	sh -c 'xmllint --xpath "string(//testcase[@name=\"baseline-256\"]/failure)" "$1" | grep -q "virtio_mem_sbm_unplug_request"' _ "$R/junit.xml"

# KCIDB: our subset schema, a schema check that can fail, and the links between objects.
kv() { /usr/bin/python3 -m jsonschema -i "$1" tests/schema/kcidb-v5-subset.schema.json; }
ok "kcidb.json validates against tests/schema/kcidb-v5-subset.schema.json" kv "$R/kcidb.json"
jq '.tests[0].status = "BROKEN"' "$R/kcidb.json" >"$rd/kcidb-bad.json"
kv_refuses() { ! kv "$1"; }
ok "the KCIDB schema refuses a test status outside the v5 set" kv_refuses "$rd/kcidb-bad.json"
ok "kcidb: every test names a build, every build a checkout" jq -e \
	'([.builds[].id] as $b | all(.tests[]; .build_id as $x | $b | index($x))) and
	 ([.checkouts[].id] as $c | all(.builds[]; .checkout_id as $x | $c | index($x)))' "$R/kcidb.json"
ok "kcidb: memhp.demo.baseline-256 FAIL reached 256 MiB, the interrupted trial MISS, 2 checkouts (6.12, 6.1)" jq -e \
	'(.tests[] | select(.path == "memhp.demo.baseline-256") | .status == "FAIL" and .number.value == 256) and
	 (.tests[] | select(.path == "memhp.demo.interrupted") | .status == "MISS") and (.checkouts | length == 2)' "$R/kcidb.json"

# HTML: self-contained, every plot and link there.
ok "index.html: 12 inline SVG plots, no script, nothing fetched from the network" \
	test "$(grep -c '<svg' "$R/index.html")" = 12 -a -z "$(grep -E '<script|(src|href)=.https?:' "$R/index.html")"
ok "index.html: kernel 6.12.x and 6.1.x and both pin policies in the summary" \
	sh -c 'grep -q "<td>6.12.118-1~deb12u1</td>" "$1" && grep -q "<td>6.1.158-1</td>" "$1" && grep -q "<td>baseline</td>" "$1"' _ "$R/index.html"
links_exist() {	# every records/ and ../ link of index.html names a file
	local h n=0
	for h in $(grep -oE "href='(records/|\.\./)[^']*'" "$1/index.html" | sed -e "s/^href='//" -e "s/'\$//"); do
		test -f "$1/$h" || { echo "missing: $h"; return 1; }
		n=$((n + 1))
	done
	test "$n" = 13	# trials.jsonl, 6 records, 6 serial logs
}
ok "index.html: the 6 raw records and 6 serial logs it links to exist" links_exist "$R"
ok "--compare lists the regressions first" sh -c 'sed -n 3,4p "$1" | grep -c "^  regression" | grep -qx 2' _ "$rd/out"

# The browser: headless Chromium opens the page from disk.
chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@"; }
chrome --window-size=1280,2400 --screenshot="$rd/shot.png" "file://$R/index.html" >/dev/null 2>&1
png_wh() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }
ok "chromium: screenshot is a 1280x2400 PNG of more than 50 kB" \
	test "$(head -c 8 "$rd/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a -a \
	"$(png_wh "$rd/shot.png")" = "1280 2400" -a "$(stat -c %s "$rd/shot.png" 2>/dev/null || echo 0)" -gt 50000
cat >"$rd/probe.html" <<EOF
<!DOCTYPE html><html><body><iframe id=f src="file://$R/index.html" width=1280 height=2400></iframe><pre id=out>pending</pre>
<script>
document.getElementById('f').onload = function () {
  var figs = this.contentDocument.querySelectorAll('figure.plot'), res = [];
  figs.forEach(function (f) { var s = f.querySelector('svg'), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    res.push('plot ' + f.dataset.plot + ' ' + Math.round(r.width) + ' ' + Math.round(r.height) + ' ' + (s ? s.querySelectorAll('path').length : 0)); });
  document.getElementById('out').textContent = 'figures ' + figs.length + '\n' + res.join('\n') + '\nend';
};
</script></body></html>
EOF
chrome --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$rd/probe.html" 2>/dev/null >"$rd/probe.out"
ok "chromium: 12 plots rendered, each with a non-zero size and drawn paths" \
	sh -c 'grep -q ">figures 12$" "$1" && test "$(grep -cE "^plot p[0-9]+ [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$" "$1")" = 12' _ "$rd/probe.out"
console_errors() { chrome --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom "file://$1" 2>&1 >/dev/null | grep -F "CONSOLE" | grep -F "$1"; }
no_console_errors() { ! console_errors "$1"; }
ok "chromium: no console errors on index.html" no_console_errors "$R/index.html"
sed 's|</body>|<script>noSuchFunction()</script></body>|' "$R/index.html" >"$R/broken.html"
ok "chromium: the console check sees an error when there is one" console_errors "$R/broken.html"
rm -f "$R/broken.html"

mkdir -p "$rd/axis1" && jq -c 'select(.parameters.pin_size) | .parameters = {pin_size} | del(.pin_policy)' \
	"$rd/run/trials.jsonl" >"$rd/axis1/trials.jsonl"
lab report --format html "$rd/axis1" >/dev/null 2>&1
ok "one parameter axis: grouped bars instead of the heatmap" grep -q "reached MiB per trial, grouped by parameter value" "$rd/axis1/report/index.html"

echo "# reports: a step skipped under another pin_policy is SKIP in every format (it was 'ok')"
rm -rf "$rd/skip" && mkdir -p "$rd/skip"
jq -c 'if .trial == "series-256" then .steps += [{"step": "expect", "line": 30, "t": 11.0, "seconds": 0, "ok": true, "checks": [], "skipped": "another pin_policy"}] else . end' \
	"$rd/run/trials.jsonl" >"$rd/skip/trials.jsonl"
lab report "$rd/skip" >/dev/null 2>&1
ok "skipped step: KTAP '# SKIP another pin_policy', JUnit 'skipped (another pin_policy)', KCIDB SKIP, HTML 'skipped: another pin_policy'" \
	sh -c 'grep -qE "^  ok [0-9]+ .*expect.* # SKIP another pin_policy$" "$1/results.ktap" &&
		grep -q "expect: skipped (another pin_policy)" "$1/junit.xml" &&
		[ "$(jq "[.tests[] | select(.status == \"SKIP\")] | length" "$1/kcidb.json")" = 1 ] &&
		grep -q "<td>skipped: another pin_policy</td>" "$1/index.html"' _ "$rd/skip/report"

echo "# reports: bad input"
expect_fail "report without RUN_DIR" 2 "report: expected one RUN_DIR" $LAB report
expect_fail "report of a missing RUN_DIR" 2 "run directory '/nonexistent/run' does not exist" $LAB report /nonexistent/run
mkdir -p "$rd/empty" && : >"$rd/empty/trials.jsonl"
expect_fail "report of an empty run" 2 "trials.jsonl' is empty: no trials recorded" $LAB report "$rd/empty"
expect_fail "report with an unknown --format" 2 "unknown format 'pdf'" $LAB report --format html,pdf "$rd/run"
expect_fail "report with a bad --origin" 2 "--origin 'Bad Origin' is not a KCIDB origin" $LAB report --origin 'Bad Origin' "$rd/run"
mkdir -p "$rd/crash" && cp "$rd/run/"*.log "$rd/crash/"
{ head -n 2 "$rd/run/trials.jsonl"; echo '{"trial": "x", "verdict": '; sed -n '3,6p' "$rd/run/trials.jsonl"; head -c 300 "$rd/run/trials.jsonl"; } >"$rd/crash/trials.jsonl"
expect_fail "a malformed line is named by file:line" 1 "crash/trials.jsonl:3: not JSON" $LAB report "$rd/crash"
ok "a truncated last line (crashed run) is named as such" grep -q "crash/trials.jsonl:8: truncated last line (300 bytes, no newline)" "$work/err"
ok "the other 6 records still render, the 2 bad lines are KTAP errors" sh -c \
	'test "$(grep -cE "^(not )?ok [0-9]" "$1")" = 8 && grep -q "^not ok 8 trials.jsonl line 8 # ERROR truncated" "$1" && awk -f tests/ktap-check.awk "$1"' _ "$rd/crash/report/results.ktap"
ok "the HTML report warns about the 2 unreadable lines" grep -q "2 line(s) of trials.jsonl could not be read" "$rd/crash/report/index.html"
rm -rf "$rd/run/report"
expect_fail "gnuplot missing: the HTML fails, saying which program" 1 "cannot run '/nonexistent/gnuplot'" \
	env MEMHP_GNUPLOT=/nonexistent/gnuplot $LAB report "$rd/run"
ok "gnuplot missing: the other formats are still written" test -s "$rd/run/report/results.ktap" -a -s "$rd/run/report/kcidb.json" -a ! -e "$rd/run/report/index.html"
rm -rf "$rd/run/report"
lab report --format ktap "$rd/run" >/dev/null 2>&1
ok "--format ktap writes results.ktap only" test -s "$rd/run/report/results.ktap" -a ! -e "$rd/run/report/junit.xml" -a ! -e "$rd/run/report/index.html"

echo "# reports: memhp-lab run writes all formats at its end"
ok "the demo run wrote index.html, junit.xml, results.ktap, kcidb.json" \
	test -s "$work/demo/report/index.html" -a -s "$work/demo/report/junit.xml" -a -s "$work/demo/report/results.ktap" -a -s "$work/demo/report/kcidb.json"
ok "the demo run's KTAP passes the checker with 'ok 1 demo'" sh -c 'awk -v strict=1 -f tests/ktap-check.awk "$1" && grep -qx "ok 1 demo" "$1"' _ "$work/demo/report/results.ktap"
ok "the demo run's report named in its output" grep -q "report: .*/demo/report/index.html" "$work/demo.out"
ok "the interrupted run's report shows it interrupted" grep -q "^not ok 1 demo # ERROR interrupted" "$work/int/report/results.ktap"
demo_patchset() {	# the checkout names kernel/patches/6.12's files and their KCIDB patchset_hash
	local d=kernel/patches/6.12 want n
	want=$(cd $d && sha256sum $(sed 's/#.*//' series) | cut -c-64 | sha256sum | cut -c-64)
	n=$(sed 's/#.*//' $d/series | grep -c .)
	kv "$1" && jq -e --arg h "$want" --argjson n "$n" \
		'.checkouts[0].patchset_hash == $h and (.checkouts[0].patchset_files | length) == $n' "$1"
}
ok "the demo run's kcidb.json validates; its checkout has the series' patch files and patchset_hash" \
	demo_patchset "$work/demo/report/kcidb.json"
