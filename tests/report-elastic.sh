# tests/report-elastic.sh - the other paths (issue 35: dimm, vmem, balloon,
# hugepages) in every report format, and the elasticity comparison, from the
# hand-written records of tests/data/report/elastic (README.md there: the
# record contract of record.h's "other paths" block, made by make.jq there;
# no real run recorded one yet). Every value below is worked out by hand
# from those records; the goldens in tests/data/report/golden-elastic catch
# any other change (MHL_UPDATE_GOLDEN=1 rewrites them, as tests/report.sh's).
# No guest is booted. Sourced by tests/run.sh (ok, lab, $LAB, $work).
plan 19
echo "# report-elastic: dimm, vmem, balloon, hugepages steps in index.html, KTAP, JUnit, KCIDB; the elasticity table; record text escaped; none where no trial has one"
ed=$work/report-elastic
rm -rf "$ed" && mkdir -p "$ed" && cp -r tests/data/report/elastic "$ed/run" && rm -f "$ed/run/make.jq"
R=$ed/run/report
lab report "$ed/run" >"$ed/out" 2>"$ed/err"
rc=$?
ok "report of the 6 elasticity trials: exit 0, all four formats written" \
	test "$rc" = 0 -a -s "$R/index.html" -a -s "$R/junit.xml" -a -s "$R/results.ktap" -a -s "$R/kcidb.json"

egolden() {	# egolden NAME FILE: FILE equals tests/data/report/golden-elastic/NAME
	local desc="golden: $1 matches tests/data/report/golden-elastic/$1"
	if [ -n "${MHL_UPDATE_GOLDEN:-}" ]; then	# a failed check: an update is never a green run
		mkdir -p tests/data/report/golden-elastic
		cp "$2" "tests/data/report/golden-elastic/$1"
		check_result "$desc # golden updated" 1 true
		return
	fi
	ok "$desc" diff -u "tests/data/report/golden-elastic/$1" "$2"
	diff -u "tests/data/report/golden-elastic/$1" "$2" | head -n 20 | sed 's/^/#   /'
}
enorm() { sed -e "s|$ed/run|@RUN@|g" -e 's|file://[^"]*/kernel/patches/|file://@SRC@/kernel/patches/|g' "$@"; }
enorm "$R/results.ktap" >"$ed/results.ktap" && egolden results.ktap "$ed/results.ktap"
enorm "$R/junit.xml" >"$ed/junit.xml" && egolden junit.xml "$ed/junit.xml"
enorm "$R/kcidb.json" >"$ed/kcidb.json" && egolden kcidb.json "$ed/kcidb.json"
perl -0pe 's/<svg\b.*?<\/svg>/<svg\/>/gs' <"$R/index.html" | enorm >"$ed/index.html" && egolden index.html "$ed/index.html"

# index.html: the summary's last column, the grid's cells, each trial's table, the host table, the timeline's bands.
el_dimm='dimm attach ✓ 1.5 s (guest +512 MiB), dimm detach ✗ 30.0 s (guest -128 MiB, host back 12 MiB (2 % of asked)): the detach did not complete in 30 s: memory40 going-offline'
el_bal='balloon target ✓ 2.3 s (guest -512 MiB, host back 498 MiB (97 % of asked))'
ok "index.html: the summary's last column 'other paths': each trial's steps in order, outcome, seconds, guest change, host back (share of asked)" \
	sh -c 'grep -q "<th>parameters</th><th>other paths</th></tr>" "$1" &&
		grep -qF "<td>mechanism=dimm, pinned=yes</td><td>$2</td></tr>" "$1" && grep -qF "<td>mechanism=balloon, pinned=no</td><td>$3</td></tr>" "$1"' \
	_ "$R/index.html" "$el_dimm" "$el_bal"
ok "index.html: each grid cell holds its trial's other paths below the verdict" \
	sh -c 'sed -n "/<table class=grid>/,/<\/table>/p" "$1" >"$1.grid" &&
		grep -qF "<b>fail</b> 0/0 MiB<br><small class=elastic style='"'"'white-space:normal'"'"'>$2</small>" "$1.grid" &&
		grep -qF "<b>pass</b> 0/0 MiB<br><small class=elastic style='"'"'white-space:normal'"'"'>$3</small>" "$1.grid"' _ "$R/index.html" "$el_dimm" "$el_bal"
ok "index.html: the stuck DIMM detach in its trial's Other paths table: asked -512, MemTotal 1536 → 1408 (-128), 12 MiB back, red, its blocks' states and zones, the planted zone escaped" \
	grep -qF "<td>2</td><td>dimm d0</td><td>dimm</td><td>detach</td><td>7.00</td><td>-512</td><td>1536 → 1408 (-128)</td><td>12 MiB (2 % of asked)</td><td>30.00</td><td class=fail>✗: the detach did not complete in 30 s: memory40 going-offline</td><td>asked -512 MiB, MemTotal 1536 → 1408 MiB (-128), host back 12 MiB (2 % of asked), removed no, alias dimm0, slot 0, blocks memory40 going-offline [Movable], memory41 online [Movable], memory42 online [&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; it&apos;s &quot;quote…]</td></tr>" "$R/index.html"
ok "index.html: the refused vmem attach and the short hugetlb alloc (100 of 128 pages, compaction counters) in their tables" sh -c '
	grep -qF "<td>2</td><td>vmem v1</td><td>virtio-mem</td><td>attach</td><td>67.00</td><td>+256</td><td>1536 → 1536 (0)</td><td>–</td><td>0.05</td><td class=fail>✗ refused: &lt;script&gt;" "$1" &&
	grep -qF "<td class=fail>✗: allocated 100 of 128 hugepages</td><td>asked +256 MiB, MemTotal 1024 → 1024 MiB (0), page 2 MiB, pages asked 128, allocated 100, compact stall 12, compact fail 3, compact success 9</td></tr>" "$1"' _ "$R/index.html"
ok "index.html: the record's planted markup never reaches the page as markup (no <script, no <b>bold)" \
	lacks "$R/index.html" -q "<script\|<b>bold"
ok "index.html: the host table labels the other paths' rows by mechanism and action (dimm detach: 512 → 32 MiB backend, 480 back) under its own heading" sh -c '
	grep -qF "<td>2</td><td>dimm d0 (dimm detach)</td><td>proc, backend</td><td>node 1: 512 → 32</td>" "$1" &&
	grep -qF "<td>1</td><td>balloon (balloon target)</td>" "$1" &&
	test "$(grep -c "<h4>Host side of the resizes and the other paths</h4>" "$1")" = 5' _ "$R/index.html"
svg_bands() {	# the el-dimm-yes timeline: labels 'dimm attach ✓', 'dimm detach ✗', a green band (#66bb6a) and a red one (#e53935)
	[ -s "$1" ] || { echo "no $1"; return 1; }	# perl -n on a missing file runs no line: exit 0
	perl -0ne 'my ($t) = grep { /el-dimm-yes: virtio-mem size over time/ } /<svg\b.*?<\/svg>/gs; $t //= "";
		my $n = () = $t =~ /<text>(dimm attach ✓|dimm detach ✗)<\/text>/g;
		my $g = () = $t =~ /fill = .rgb\(102, 187, 106\)/g; my $r = () = $t =~ /fill = .rgb\(229,  57,  53\)/g;
		exit($n == 2 && $g == 1 && $r == 1 ? 0 : 1)' "$1"
}
ok "index.html: the el-dimm-yes timeline marks its 2 DIMM steps: labels 'dimm attach ✓', 'dimm detach ✗', a green and a red band" svg_bands "$R/index.html"
ok "index.html: the elasticity table, mechanism × pinned: virtio-mem 512 of 512 MiB back (100 %) from the resize, balloon 498 of 512 (97 %) in 2.30 s, the stuck dimm 12 of 512 (2 %) in 30 s, guest -128 MiB" sh -c '
	sed -n "/<h2 id=elasticity>/,/<\/table>/p" "$1" >"$1.el" &&
	grep -qFx "<tr><th>mechanism</th><th>pinned=no</th><th>pinned=yes</th></tr>" "$1.el" &&
	grep -qF "<tr><th>virtio-mem</th><td><a href='"'"'#t1'"'"'><b>pass</b></a> 512 MiB back of 512 MiB asked (100 %)<br>0.40 s · guest -512 MiB</td><td><a href='"'"'#t2'"'"'><b>fail</b></a> 200 MiB back of 512 MiB asked (39 %)<br>60.00 s · guest -256 MiB</td></tr>" "$1.el" &&
	grep -qF "<td><a href='"'"'#t3'"'"'><b>pass</b></a> 498 MiB back of 512 MiB asked (97 %)<br>2.30 s · guest -512 MiB</td>" "$1.el" &&
	grep -qF "<td><a href='"'"'#t6'"'"'><b>fail</b></a> 12 MiB back of 512 MiB asked (2 %)<br>30.00 s · guest -128 MiB</td></tr>" "$1.el"' _ "$R/index.html"

# KTAP: a diagnostic line before each such step's result; the kernel's rules still hold.
ok "KTAP: each such step's outcome and figures as a diagnostic before its result, the refusal on one line; strict ktap.rst" sh -c '
	grep -qFx "  # dimm d0: dimm detach ok 3.0 s (guest -512 MiB, host back 480 MiB (94 % of asked)); asked -512 MiB, MemTotal 1536 -> 1024 MiB (-512), host back 480 MiB (94 % of asked), removed yes, alias dimm0, slot 0" "$1" &&
	grep -qFx "  # vmem v1: virtio-mem attach FAILED refused: <script>alert(\"x\")</script> it'"'"'s \"quoted\" & <b>bold</b> second line \`id\` \$HOME #7; asked +256 MiB, MemTotal 1536 -> 1536 MiB (0)" "$1" &&
	test "$(grep -c "^  # [a-z0-9 ]*: [a-z-]* [a-z]* \(ok\|FAILED\)" "$1")" = 8 && awk -v strict=1 -f tests/ktap-check.awk "$1"' _ "$R/results.ktap"

# JUnit: an "elastic:" line under each such step's line of system-out.
ok "junit: well-formed; el-dimm-no's system-out has its 3 elastic lines in step order, the short hugetlb alloc's figures" sh -c '
	xmllint --noout "$1" && xmllint --xpath "string(//testcase[@name=\"el-dimm-no\"]/system-out)" "$1" >"$1.out" &&
	test "$(grep "^  elastic: " "$1.out" | cut -d" " -f4,5)" = "dimm attach
dimm detach
hugetlb alloc" && grep -qFx "  elastic: hugetlb alloc ✗ 4.2 s (100 of 128 pages): allocated 100 of 128 hugepages; asked +256 MiB, MemTotal 1024 → 1024 MiB (0), page 2 MiB, pages asked 128, allocated 100, compact stall 12, compact fail 3, compact success 9" "$1.out"' _ "$R/junit.xml"

# KCIDB: misc of each such step's test, and the trial's list.
ok "kcidb: validates; the stuck detach FAIL with its number (-128 MiB), misc.elastic's blocks and host back; the hugetlb number 100 pages; the refusal whole; the trial's list" sh -c '
	/usr/bin/python3 -m jsonschema -i "$1" tests/schema/kcidb-v5-subset.schema.json && jq -e "
	(.tests[] | select(.path == \"memhp.elasticity.el-dimm-yes.s2_dimm_d0\") | .status == \"FAIL\" and .number == {\"value\": -128, \"unit\": \"MiB\"} and
	 .misc.elastic.removed == false and (.misc.elastic.range_blocks | length) == 3 and .misc.elastic.range_blocks[0].state == \"going-offline\" and
	 .misc.elastic.host_reclaimed_bytes == 12582912 and .misc.elastic.requested_bytes == -536870912) and
	(.tests[] | select(.path == \"memhp.elasticity.el-dimm-no.s3_hugepages\") | .number == {\"value\": 100, \"unit\": \"pages\"} and .misc.elastic.compaction.compact_stall == 12) and
	(.tests[] | select(.path == \"memhp.elasticity.el-vm-yes.s2_vmem_v1\") | .misc.elastic.ok == false and (.misc.elastic.refused | startswith(\"<script>\") and contains(\"\nsecond line\"))) and
	(.tests[] | select(.path == \"memhp.elasticity.el-balloon-no\") | .misc.elastic == [\"balloon target ok 2.3 s (guest -512 MiB, host back 498 MiB (97 % of asked))\"])" "$1" >/dev/null' _ "$R/kcidb.json"

# A mechanism planted to break out of gnuplot's quotes reaches it only as a label's text.
mkdir -p "$ed/planted"
jq -c --arg m "$ed/PWNED" '(.steps[] | select(.elastic) | .elastic.mechanism) |= "x'"'"'; system(\"touch " + $m + "\"); print '"'"'y"' \
	tests/data/report/elastic/trials.jsonl >"$ed/planted/trials.jsonl"
lab report --format html "$ed/planted" >/dev/null 2>&1
prc=$?
ok "report: a mechanism planted with gnuplot quotes and system() is a label's text: exit 0, no file made, every plot drawn" \
	sh -c 'test "$2" = 0 && test ! -e "$1/PWNED" && test "$(grep -c "<svg" "$1/planted/report/index.html")" = 7 &&
		grep -qF "system(&quot;touch" "$1/planted/report/index.html"' _ "$ed" "$prc"

# Objects of the wrong shape (records come from elsewhere; the loader checks steps[].host, not these): read as far as they fit, never a crash.
mkdir -p "$ed/shape"
jq -c 'if .trial == "el-dimm-yes" then .steps[0].elastic = "dimm" | .steps[1].elastic |= (.ok = "yes" | .seconds = "3" |
	.requested_bytes = "big" | .memtotal_before_bytes = [1] | .range_blocks = [5, "x", {"block": {}, "state": {}}] | .alias = {} | .refused = 7 | .slot = "one") |
	.parameters.mechanism = 5 else . end | if .trial == "el-balloon-no" then .steps[0].elastic.mechanism = 3 else . end |
	if .trial == "el-dimm-no" then .steps[2].elastic.range_blocks = {"a": 1} | .steps[2].elastic.allocated_pages = "many" else . end' \
	tests/data/report/elastic/trials.jsonl >"$ed/shape/trials.jsonl"
lab report "$ed/shape" >"$ed/shape.out" 2>&1
src=$?
ok "report: elastic objects of the wrong shape (a string, ok \"yes\", numbers as strings, blocks of numbers or an object, refused a number, mechanism a number) render: exit 0, the detach failed with the figures that fit, the balloon no such step, the elasticity table without that dimm trial" \
	sh -c 'test "$2" = 0 && xmllint --noout "$1/report/junit.xml" && jq -e . "$1/report/kcidb.json" >/dev/null &&
		grep -qFx "  # dimm d0: dimm detach FAILED (host back 12 MiB): the detach did not complete in 30 s: memory40 going-offline; host back 12 MiB, removed no, blocks memory? ?, memory? ?, memory? ?" "$1/report/results.ktap" &&
		grep -qFx "  # hugepages: hugetlb alloc FAILED 4.2 s (guest 0 MiB): allocated 100 of 128 hugepages; asked +256 MiB, MemTotal 1024 -> 1024 MiB (0), page 2 MiB, pages asked 128, compact stall 12, compact fail 3, compact success 9" "$1/report/results.ktap" &&
		! grep -q "# balloon: balloon target ok" "$1/report/results.ktap" &&
		grep -qF "<td><a href='"'"'#t5'"'"'><b>fail</b></a> 480 MiB back of 512 MiB asked (94 %)<br>3.00 s · guest -512 MiB</td><td>not run</td></tr>" "$1/report/index.html"' _ "$ed/shape" "$src"

# Reports of runs without such a step keep their shape (tests/report.sh's goldens, byte for byte).
mkdir -p "$ed/plain" && cp tests/data/report/run/trials.jsonl "$ed/plain/"
lab report --format html,ktap,junit "$ed/plain" >/dev/null 2>&1
prc=$?
# lacks (tests/lib.sh): each file must be there; `! grep` passed on a report never written.
el_none() {
	[ "$prc" = 0 ] || { echo "report exited $prc"; return 1; }
	lacks "$ed/plain/report/index.html" -qi "other paths\|elasticity\|class=elastic" &&
		lacks "$ed/plain/report/junit.xml" -q "elastic: " &&
		lacks "$ed/plain/report/results.ktap" -q "^  # [a-z0-9 ]*: [a-z-]* [a-z]* \(ok\|FAILED\)"
}
ok "a run without such steps: report exits 0 and writes all three; no 'other paths' column or table, no elasticity table, no diagnostic or JUnit line" el_none
