# tests/report-lifecycle.sh - the lifecycle steps (issue 34: save,
# managedsave, suspend, reboot, migrate) in every report format, from the
# hand-written records of tests/data/report/lifecycle (README.md there: the
# record contract of record.h, no real run recorded one yet). Every value
# below is worked out by hand from those records; the goldens in
# tests/data/report/golden-lifecycle catch any other change
# (MHL_UPDATE_GOLDEN=1 rewrites them, as tests/report.sh's). No guest is
# booted. Sourced by tests/run.sh (ok, lab, $LAB, $work).
plan 21
echo "# report-lifecycle: lifecycle steps in index.html, KTAP, JUnit, KCIDB; record text escaped; none where no trial has one"
ld=$work/report-lifecycle
rm -rf "$ld" && mkdir -p "$ld" && cp -r tests/data/report/lifecycle "$ld/run"
R=$ld/run/report
lab report "$ld/run" >"$ld/out" 2>"$ld/err"
rc=$?
ok "report of the 2 lifecycle trials: exit 0, all four formats written" \
	test "$rc" = 0 -a -s "$R/index.html" -a -s "$R/junit.xml" -a -s "$R/results.ktap" -a -s "$R/kcidb.json"

lgolden() {	# lgolden NAME FILE: FILE equals tests/data/report/golden-lifecycle/NAME
	local desc="golden: $1 matches tests/data/report/golden-lifecycle/$1"
	if [ -n "${MHL_UPDATE_GOLDEN:-}" ]; then	# a failed check: an update is never a green run
		mkdir -p tests/data/report/golden-lifecycle
		cp "$2" "tests/data/report/golden-lifecycle/$1"
		check_result "$desc # golden updated" 1 true
		return
	fi
	ok "$desc" diff -u "tests/data/report/golden-lifecycle/$1" "$2"
	diff -u "tests/data/report/golden-lifecycle/$1" "$2" | head -n 20 | sed 's/^/#   /'
}
lnorm() { sed -e "s|$ld/run|@RUN@|g" "$@"; }
lnorm "$R/results.ktap" >"$ld/results.ktap" && lgolden results.ktap "$ld/results.ktap"
lnorm "$R/junit.xml" >"$ld/junit.xml" && lgolden junit.xml "$ld/junit.xml"
lnorm "$R/kcidb.json" >"$ld/kcidb.json" && lgolden kcidb.json "$ld/kcidb.json"
perl -0pe 's/<svg\b.*?<\/svg>/<svg\/>/gs' <"$R/index.html" | lnorm >"$ld/index.html" && lgolden index.html "$ld/index.html"

# index.html: the summary's last column, the grid's cells, each trial's table, the timeline's marks.
lc_series='save ✓ 3.1 s (584 MiB image), migrate ✓ 3.4 s (1666 of 1664 MiB (100.1 %) walked), reboot ✗ refused: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; it&apos;s &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; second line `id` $HOME #7'
lc_base='managedsave ✓ 2.6 s (571 MiB image), suspend ✓ 1.5 s (resize while paused accepted: yes)'
ok "index.html: the summary's last column 'lifecycle': each trial's events in order with outcome, seconds and headline figure, the refusal's message escaped on one line" \
	sh -c 'grep -q "<th>parameters</th><th>lifecycle</th></tr>" "$1" &&
		grep -qF "<td>policy=series</td><td>$2</td></tr>" "$1" && grep -qF "<td>policy=baseline</td><td>$3</td></tr>" "$1"' \
	_ "$R/index.html" "$lc_series" "$lc_base"
ok "index.html: each grid cell holds its trial's lifecycle line below the verdict" \
	sh -c 'sed -n "/<table class=grid>/,/<\/table>/p" "$1" | grep -F "<b>fail</b> 0/0 MiB<br><small class=lifecycle style='"'"'white-space:normal'"'"'>$2</small>" |
		grep -qF "<b>pass</b> 0/0 MiB<br><small class=lifecycle style='"'"'white-space:normal'"'"'>$3</small>"' \
	_ "$R/index.html" "$lc_series" "$lc_base"
ok "index.html: the migration's figures in its trial's Lifecycle table: walked 1666 of the 1664 MiB expected (100.1 %), 41 MiB sent, downtime 118 ms, 3 iterations" \
	grep -qF "<td>2</td><td>migrate</td><td>migrate</td><td>9.00</td><td>3.40</td><td class=pass>✓</td><td>down 0.12 s, agent back after 0.30 s, plugged 512 → 512 MiB, to dst, walked 1666 of 1664 MiB (100.1 %), sent 41 MiB, memory moved 40 of 1664 MiB (2.4 %), downtime 118 ms, elapsed 3380 ms, iterations 3</td></tr>" "$R/index.html"
ok "index.html: the suspend's resize while paused (512 -> 256 MiB, accepted) and the refused reboot's row, red" sh -c '
	grep -qF "<td class=pass>✓</td><td>down 1.20 s, agent back after 1.40 s, plugged 512 → 256 MiB, resize while paused to 256 MiB, accepted yes</td>" "$1" &&
	grep -qF "<td>3</td><td>reboot</td><td>reboot</td><td>12.50</td><td>0.02</td><td class=fail>✗ refused: &lt;script&gt;" "$1"' _ "$R/index.html"
ok "index.html: the refused message's markup never reaches the page as markup (no <script, no <b>bold)" \
	lacks "$R/index.html" -q "<script\|<b>bold"
svg_marks() {	# the lc-series timeline draws a label per lifecycle step, 2 green bands (#66bb6a) and a red one (#e53935)
	[ -s "$1" ] || { echo "no $1"; return 1; }	# perl -n on a missing file runs no line: exit 0
	perl -0ne 'my ($t) = grep { /lc-series: virtio-mem size over time/ } /<svg\b.*?<\/svg>/gs; $t //= "";
		my $n = () = $t =~ /<text>(save ✓|migrate ✓|reboot ✗ refused)<\/text>/g;
		my $g = () = $t =~ /fill = .rgb\(102, 187, 106\)/g; my $r = () = $t =~ /fill = .rgb\(229,  57,  53\)/g;
		exit($n == 3 && $g == 2 && $r == 1 ? 0 : 1)' "$1"
}
ok "index.html: the lc-series timeline marks its 3 lifecycle steps: labels 'save ✓', 'migrate ✓', 'reboot ✗ refused', green and red bands" svg_marks "$R/index.html"

# KTAP: a diagnostic line before each lifecycle step's result; the kernel's rules still hold.
ok "KTAP: each lifecycle step's outcome and figures as a diagnostic before its result, the refusal on one line" sh -c '
	grep -qFx "  # migrate: migrate ok 3.4 s (1666 of 1664 MiB (100.1 %) walked); down 0.12 s, agent back after 0.30 s, plugged 512 -> 512 MiB, to dst, walked 1666 of 1664 MiB (100.1 %), sent 41 MiB, memory moved 40 of 1664 MiB (2.4 %), downtime 118 ms, elapsed 3380 ms, iterations 3" "$1" &&
	grep -qFx "  # reboot: reboot FAILED refused: <script>alert(\"x\")</script> it'"'"'s \"quoted\" & <b>bold</b> second line \`id\` \$HOME #7; plugged 512 -> ? MiB, from the host" "$1" &&
	grep -qFx "  not ok 3 reboot" "$1" && grep -qFx "  ok 2 suspend" "$1" && test "$(grep -c "^  # [a-z]*: [a-z]* \(ok\|FAILED\) " "$1")" = 5' _ "$R/results.ktap"
ok "KTAP follows ktap.rst (tests/ktap-check.awk, strict)" awk -v strict=1 -f tests/ktap-check.awk "$R/results.ktap"

# JUnit: a "lifecycle:" line under each lifecycle step's line of system-out.
jlx() { xmllint --xpath "$1" "$R/junit.xml" 2>/dev/null; }
ok "junit.xml is well-formed (xmllint)" xmllint --noout "$R/junit.xml"
ok "junit: 2 testcases, 1 failure; lc-series's system-out has its 3 lifecycle lines in step order, the save's figures" sh -c '
	test "$(xmllint --xpath "count(//testcase)" "$1")" = 2 -a "$(xmllint --xpath "string(/testsuites/@failures)" "$1")" = 1 &&
	xmllint --xpath "string(//testcase[@name=\"lc-series\"]/system-out)" "$1" >"$1.out" &&
	test "$(grep "^  lifecycle: " "$1.out" | cut -d" " -f4)" = "save
migrate
reboot" && grep -qFx "  lifecycle: save ✓ 3.1 s (584 MiB image); down 2.90 s, agent back after 3.40 s, plugged 512 → 512 MiB, image 584 MiB, save 1.20 s, restore 1.70 s" "$1.out"' _ "$R/junit.xml"

# KCIDB: misc of each lifecycle step's test, and the trial's list.
kvl() { /usr/bin/python3 -m jsonschema -i "$1" tests/schema/kcidb-v5-subset.schema.json; }
ok "kcidb.json validates against tests/schema/kcidb-v5-subset.schema.json" kvl "$R/kcidb.json"
ok "kcidb: the migrate step's number is the 1666 MiB walked, its misc.lifecycle libvirt's job figures and the expected transfer as recorded" jq -e '
	.tests[] | select(.path == "memhp.lifecycle.lc-series.s2_migrate") | .status == "PASS" and .number == {"value": 1666, "unit": "MiB"} and
	.misc.lifecycle.migration.data_transferred_bytes == 42991616 and .misc.lifecycle.expected_transfer_bytes == 1744830464 and
	.misc.lifecycle.migration.downtime_ms == 118 and .misc.lifecycle.to == "dst" and .misc.lifecycle.plugged_after_bytes == 536870912' "$R/kcidb.json"
ok "kcidb: the refused reboot FAIL, its message whole in misc.lifecycle.refused; save's image and times; the trial's misc lists 3 outcomes" jq -e '
	(.tests[] | select(.path == "memhp.lifecycle.lc-series.s3_reboot") | .status == "FAIL" and .misc.lifecycle.ok == false and
	 (.misc.lifecycle.refused | startswith("<script>alert(\"x\")</script>") and contains("\nsecond line"))) and
	(.tests[] | select(.path == "memhp.lifecycle.lc-series.s1_save") | .misc.lifecycle.image_bytes == 612368384 and .misc.lifecycle.restore_s == 1.7) and
	(.tests[] | select(.path == "memhp.lifecycle.lc-series") | .misc.lifecycle | length == 3 and .[1] == "migrate ok 3.4 s (1666 of 1664 MiB (100.1 %) walked)")' "$R/kcidb.json"

# An event name planted to break out of gnuplot's quotes reaches it only as a label's text.
mkdir -p "$ld/planted"
jq -c --arg m "$ld/PWNED" '(.steps[0].lifecycle.event) |= "x'"'"'; system(\"touch " + $m + "\"); print '"'"'y"' \
	tests/data/report/lifecycle/trials.jsonl >"$ld/planted/trials.jsonl"
lab report --format html "$ld/planted" >/dev/null 2>&1
prc=$?
ok "report: a lifecycle event planted with gnuplot quotes and system() is a label's text: exit 0, no file made, every plot drawn" \
	sh -c 'test "$2" = 0 && test ! -e "$1/PWNED" && test "$(grep -c "<svg" "$1/planted/report/index.html")" = 3 &&
		grep -qF "system(&quot;touch" "$1/planted/report/index.html"' _ "$ld" "$prc"

# Lifecycle objects of the wrong shape (records come from elsewhere): read as far as they fit, never a crash.
mkdir -p "$ld/shape"
jq -c '.steps[0].lifecycle = "save" | .steps[1].lifecycle |= (.ok = "yes" | .seconds = "3" | .migration = [1] |
	.plugged_before = {"a": 1} | .plugged_after = [null, 5, {"size_bytes": "big"}] | .to = {} | .refused = 7) |
	.steps[2].lifecycle.event = 5' tests/data/report/lifecycle/trials.jsonl >"$ld/shape/trials.jsonl"
lab report "$ld/shape" >"$ld/shape.out" 2>&1
src=$?
ok "report: lifecycle objects of the wrong shape (a string, ok \"yes\", migration an array, plugged_before an object, event a number) render: exit 0, each record's 2nd step (migrate, suspend) shown failed with the figures that fit, its 1st and 3rd no lifecycle steps" \
	sh -c 'test "$2" = 0 && xmllint --noout "$1/report/junit.xml" && jq -e . "$1/report/kcidb.json" >/dev/null &&
		grep -qFx "  # migrate: migrate FAILED; down 0.12 s, agent back after 0.30 s, plugged ? -> 0 MiB" "$1/report/results.ktap" &&
		test "$(grep -c "^  # [a-z]*: " "$1/report/results.ktap")" = 2' _ "$ld/shape" "$src"

# Reports of runs without a lifecycle step keep their shape (tests/report.sh's goldens, byte for byte).
mkdir -p "$ld/plain" && cp tests/data/report/run/trials.jsonl "$ld/plain/"
lab report --format html,ktap "$ld/plain" >/dev/null 2>&1
prc=$?
# lacks (tests/lib.sh): the file must be there; `! grep` passed on a report never written.
lc_none() {
	[ "$prc" = 0 ] || { echo "report exited $prc"; return 1; }
	lacks "$ld/plain/report/index.html" -q "lifecycle" && lacks "$ld/plain/report/results.ktap" -q "lifecycle\|ok [0-9.]* s ("
}
ok "a run without lifecycle steps: report exits 0 and writes both; no lifecycle column, table or diagnostic" lc_none
