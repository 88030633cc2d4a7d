# tests/report.sh - the report checks of `make check`, sourced by tests/run.sh
# (uses its ok/expect_fail helpers, $LAB, $work and, for the last checks, the
# demo fixture, tests/lib.sh). Golden files are in tests/data/report/golden;
# MHL_UPDATE_GOLDEN=1 tests/run.sh rewrites them from the current output, and
# each golden check then fails ("# golden updated"): review the diff, run again.
# tests/data/report/expected holds values checked by hand, which no update writes.
plan 83 full 85
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
ok "oracle: the KTAP checker refuses a passing parent of a failed subtest" \
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
ok "oracle: the KCIDB schema refuses a test status outside the v5 set" kv_refuses "$rd/kcidb-bad.json"
ok "kcidb: every test names a build, every build a checkout" jq -e \
	'([.builds[].id] as $b | all(.tests[]; .build_id as $x | $b | index($x))) and
	 ([.checkouts[].id] as $c | all(.builds[]; .checkout_id as $x | $c | index($x)))' "$R/kcidb.json"
ok "kcidb: memhp.demo.baseline-256 FAIL reached 256 MiB, the interrupted trial MISS, 2 checkouts (6.12, 6.1)" jq -e \
	'(.tests[] | select(.path == "memhp.demo.baseline-256") | .status == "FAIL" and .number.value == 256) and
	 (.tests[] | select(.path == "memhp.demo.interrupted") | .status == "MISS") and (.checkouts | length == 2)' "$R/kcidb.json"

# HTML: self-contained, every plot and link there.
ok "index.html: 12 inline SVG plots, no script, nothing fetched from the network" \
	test "$(grep -c '<svg' "$R/index.html")" = 12 -a -z "$(grep -E '<script|(src|href)=.https?:' "$R/index.html")"
ok "index.html: kernel 6.12.x and 6.1.x (each with its series) and both pin policies in the summary" \
	sh -c 'grep -q "<td>6.12.118-1~deb12u1 + series [0-9a-f]\{8\}</td>" "$1" && grep -q "<td>6.1.158-1 + series [0-9a-f]\{8\}</td>" "$1" && grep -q "<td>baseline</td>" "$1"' _ "$R/index.html"
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

echo "# reports: --compare judges numbers against the noise (noise.c, the rule --history applies), exit statuses, KTAP's steps not run"
pins_scaled() {	# DIR K [JQ-SELECT]: a copy of run/ with every pin's pin_us times K
	mkdir -p "$rd/$1" && cp "$rd/run/"*.log "$rd/$1/"
	jq -c --argjson k "$2" '(.steps[]? | select(.step == "pin") | .workload.pin_us) |= (if . then . * $k else . end)' \
		"$rd/run/trials.jsonl" >"$rd/$1/trials.jsonl"
}
pins_scaled noise 1.78
lab report --format ktap "$rd/noise" --compare "$rd/run" >"$rd/noise.out" 2>&1
crc=$?
ok "--compare of a run whose pin times are x1.78 (two identical runs here: 3.30 and 1.86 s): noise, no regression, exit 0" \
	sh -c '[ "$2" = 0 ] && ! grep -q "^  regression" "$1" && grep -q "^  same            series-256: pin time x1.78 (1.196 -> 2.129 s), within the noise ± 1.196 s$" "$1"' _ "$rd/noise.out" "$crc"
pins_scaled slow 3
lab report --format ktap "$rd/slow" --compare "$rd/run" >"$rd/slow.out" 2>&1
crc=$?
ok "--compare of a run whose pin times are x3: a regression for each of the 5 trials that pinned, exit 1" \
	sh -c '[ "$2" = 1 ] && [ "$(grep -c "^  regression .*: pin time x3.00 " "$1")" = 5 ] && grep -q "^report: 5 regression(s) since " "$1"' _ "$rd/slow.out" "$crc"
# 5 repeats of series-256 before, pin times within 2 %: their MAD is the floor, not 100 % of the median
mkdir -p "$rd/repeats" "$rd/one" && cp "$rd/run/"*.log "$rd/repeats/" && cp "$rd/run/"*.log "$rd/one/"
for k in 1.00 1.01 0.99 1.02 0.98; do
	jq -c --argjson k $k 'select(.trial == "series-256") | (.steps[] | select(.step == "pin") | .workload.pin_us) |= . * $k' "$rd/run/trials.jsonl"
done >"$rd/repeats/trials.jsonl"
jq -c 'select(.trial == "series-256") | (.steps[] | select(.step == "pin") | .workload.pin_us) |= . * 1.5' "$rd/run/trials.jsonl" >"$rd/one/trials.jsonl"
lab report --format ktap "$rd/one" --compare "$rd/repeats" >"$rd/repeats.out" 2>&1
crc=$?
ok "--compare against 5 repeats of a trial (pin times within 2 %): x1.5 is beyond their measured noise, a regression, exit 1" \
	sh -c '[ "$2" = 1 ] && grep -q "^  regression      series-256: pin time x1.50 (1.196 -> 1.794 s)$" "$1"' _ "$rd/repeats.out" "$crc"
lab report --format ktap "$rd/one" --compare "$rd/run" >"$rd/one.out" 2>&1
crc=$?
ok "--compare against one earlier trial: the same x1.5 is within the relative floor (pin 100 %), exit 0" \
	sh -c '[ "$2" = 0 ] && ! grep -q "^  regression" "$1"' _ "$rd/one.out" "$crc"
mkdir -p "$rd/lost" && cp "$rd/run/"*.log "$rd/lost/" && grep -v '"trial":"series-512"' "$rd/run/trials.jsonl" >"$rd/lost/trials.jsonl"
jq -c '{trial, scenario, started}' "$rd/run/trials.jsonl" >"$rd/lost/started.jsonl"
lab report --format ktap "$rd/lost" >"$rd/lost.out" 2>&1
crc=$?
ok "report of a run with a lost trial (started, never recorded): exit 3 (the lab's failure, not the kernel's), said on stderr, KTAP 'not ok # ERROR lost'" \
	sh -c '[ "$2" = 3 ] && grep -q "^report: 1 trial(s) lost (started, never recorded: .*/lost/started.jsonl)$" "$1" &&
		grep -q "^not ok 6 series-512 # ERROR lost: " "$3"' _ "$rd/lost.out" "$crc" "$rd/lost/report/results.ktap"
ok "KTAP: a failed trial's steps that did not run are listed, 'ok N step # SKIP not run: step 2 (resize) failed', the checker passes it" \
	sh -c 'sed -n "/# Subtest: baseline-256\$/,/^not ok/p" "$1" | grep -c "^  ok [34] \(check\|release\) pin0 # SKIP not run: step 2 (resize) failed\$" | grep -qx 2 &&
		grep -q "^  ok 4 release pin0 # SKIP not run: step 2 (resize) was interrupted\$" "$1" && awk -v strict=1 -f tests/ktap-check.awk "$1" >/dev/null' _ "$R/results.ktap"

# The browser: headless Chromium opens the page from disk.
chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@"; }
chrome --window-size=1280,3000 --screenshot="$rd/shot.png" "file://$R/index.html" >/dev/null 2>&1
png_wh() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'; }
# What the screenshot shows, counted by Chromium: its pixels of the colours the
# page paints (within 3 per channel): the census's node 1 Movable rgb(142, 36, 170)
# at fill-opacity 0.85 on white (#9f45b7), the pass #c8e6c9 and fail #ef9a9a cells.
cat >"$rd/pixels.html" <<EOF
<!DOCTYPE html><html><body><pre id=out>pending</pre>
<script>
var img = new Image();
img.onload = function () {
  var c = document.createElement('canvas'), want = ['9f45b7', 'c8e6c9', 'ef9a9a'], n = [0, 0, 0], d, i, k, rgb;
  c.width = img.width; c.height = img.height;
  c.getContext('2d').drawImage(img, 0, 0);
  d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  rgb = want.map(function (h) { return [0, 2, 4].map(function (j) { return parseInt(h.substr(j, 2), 16); }); });
  for (i = 0; i < d.length; i += 4)
    for (k = 0; k < 3; k++)
      if (Math.abs(d[i] - rgb[k][0]) <= 3 && Math.abs(d[i + 1] - rgb[k][1]) <= 3 && Math.abs(d[i + 2] - rgb[k][2]) <= 3) n[k]++;
  document.getElementById('out').textContent = 'size ' + c.width + ' ' + c.height + '\n' +
    want.map(function (h, k) { return h + ' ' + n[k]; }).join('\n') + '\nend';
};
img.onerror = function () { document.getElementById('out').textContent = 'no image'; };
img.src = 'file://$rd/shot.png';
</script></body></html>
EOF
chrome --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$rd/pixels.html" 2>/dev/null >"$rd/pixels.out"
ok "chromium: the screenshot is a 1280x3000 PNG (the first trial's census is below 2400 px since the plots grew for 12 px text) that shows the report painted: the census's node 1 Movable, pass and fail cells, over 1000 px each" \
	sh -c '[ "$(head -c 8 "$1/shot.png" 2>/dev/null | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ] && [ "$2" = "1280 3000" ] &&
		grep -q ">size 1280 3000$" "$1/pixels.out" && grep -q "^end</pre>" "$1/pixels.out" &&
		awk "\$1 ~ /^(9f45b7|c8e6c9|ef9a9a)\$/ && \$2 >= 1000 { n++ } END { exit n != 3 }" "$1/pixels.out"' _ "$rd" "$(png_wh "$rd/shot.png")"
cat >"$rd/probe.html" <<EOF
<!DOCTYPE html><html><body><iframe id=f src="file://$R/index.html" width=1280 height=3000></iframe><pre id=out>pending</pre>
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
ok "oracle: chromium: the console check sees an error when there is one" console_errors "$R/broken.html"
rm -f "$R/broken.html"

# The conformance grid's page in the browser (about 40 s): full tier; the
# fast tier reads the same widths and text sizes on the two pages below.
if full; then
t0=$(date +%s%N)
LAB=$LAB tools/report-check.sh -o "$rd/shots" >"$rd/report-check.out" 2>&1
rc=$?
t1=$(date +%s%N)
sed 's/^/#   /' "$rd/report-check.out" | grep -v "^#   ok "
echo "# tools/report-check.sh: $(( (t1 - t0) / 1000000 )) ms"
ok "tools/report-check.sh: the conformance report at 1366 and 1920 px, no console message, every plot drawn, no overlapping labels, plot text 11 px or more, nothing wider than the window, the grid first with its XFAIL" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "^ok " "$2")" = 20 ]' _ "$rc" "$rd/report-check.out"
fi
# Reports that fit a laptop's screen (issue 32, item 12), on two recorded runs
# (tests/data/report/README.md): a matrix with real ids, host-backings:backing=...,
# which widened the page to 1478 px at 1366; a single grow-shrink trial, whose
# summary table stopped at 1008 px, plots' text at 8-10 px, its step labels on
# the data.
# the grow-shrink page in the full tier (~21 s of Chromium)
for fx in matrix $(full && echo grow-shrink); do
	rm -rf "$rd/$fx" && cp -r "tests/data/report/$fx" "$rd/$fx"
	LAB=$LAB tools/report-check.sh "$rd/$fx" -o "$rd/shots-$fx" >"$rd/report-check-$fx.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$rd/report-check-$fx.out" | grep -v "^#   ok "
	case $fx in
	matrix) desc="the host-backings matrix (ids of 62 characters): the page no wider than the window, the grid first";;
	*) desc="a grow-shrink trial: the summary table across the page, step labels above the plot, off its data";;
	esac
	ok "tools/report-check.sh at 1366 and 1920 px, $desc, plot text 11 px or more, no label on another or on the data" \
		sh -c '[ "$1" = 0 ] && [ "$(grep -c "^ok " "$2")" = 18 ]' _ "$rc" "$rd/report-check-$fx.out"
done

# The four pinning trials with pin_size their one parameter: two values, two trials each.
mkdir -p "$rd/axis1" && jq -c 'select(.parameters.pin_size) | .parameters |= {pin_size} | del(.pin_policy)' \
	"$rd/run/trials.jsonl" >"$rd/axis1/trials.jsonl"
lab report --format html "$rd/axis1" >/dev/null 2>&1
grouped_bars() {	# FILE: its matrix plot (p1) is bars in a cluster per value, each as high as its label's share, the shares the records'
	perl - "$1" <<-'EOF'
	undef $/; $_ = <>;
	my ($fig) = /(<figure class=plot data-plot=.p1.*?<\/figure>)/s or die "no plot p1\n";
	$fig =~ /<text>unplug outcome: share of the asked unplug done per trial, grouped by parameter value<\/text>/ or die "p1 is not the grouped bars\n";
	$fig !~ /across the matrix|cblabel|palette/ or die "p1 is a heatmap\n";
	# the y tic labels 0 and 100 (anchored end), the x tic labels (anchored middle)
	my %ty; $ty{$2} = $1 while $fig =~ /translate\([0-9.]+,([0-9.]+)\)[^>]*text-anchor="end">\s*<text><tspan[^>]*> (0|100)<\/tspan>/g;
	my $scale = (($ty{0} // 0) - ($ty{100} // 0)) / 100 or die "no y tics 0 and 100\n";
	my %tx; $tx{$2} = $1 while $fig =~ /translate\(([0-9.]+),[0-9.]+\)[^>]*text-anchor="middle">\s*<text>([^<]*)<\/text>/g;
	my ($boxes) = $fig =~ /<title>gnuplot_plot_1<\/title>(.*?)<title>gnuplot_plot_2/s;
	my (@bars, @labels);
	push @bars, [($1 + $3) / 2, ($2 - $4) / $scale] while $boxes =~ /<polygon[^>]*points = .([0-9.]+),([0-9.]+) ([0-9.]+),\2 \3,([0-9.]+) /g;
	push @labels, [$1, $2, $3] while $fig =~ /<text>([^:<]+): ([0-9.]+) % \([0-9.]+ MiB left\), (\w+)<\/text>/g;
	my %want = ("series-256" => [100, "pass", "256MiB"], "baseline-256" => [75, "fail", "256MiB"],
		    "series-512" => [100, "pass", "512MiB"], "baseline-512" => [50, "fail", "512MiB"]);
	@bars == 4 && @labels == 4 or die scalar(@bars) . " bars, " . scalar(@labels) . " labels, not 4\n";
	for my $i (0 .. 3) {
		my ($t, $pct, $v) = @{$labels[$i]}; my ($x, $h) = @{$bars[$i]}; my $w = $want{$t} or die "a label of '$t'\n";
		$pct == $w->[0] && $v eq $w->[1] or die "$t: labelled $pct % $v, not $w->[0] % $w->[1]\n";
		abs($h - $pct) < 1 or die "$t: its bar is $h % high, its share $pct %\n";
		my ($near) = sort { abs($tx{$a} - $x) <=> abs($tx{$b} - $x) } grep { !/ / && $_ ne "pin_size" } keys %tx;
		$near eq $w->[2] or die "$t: its bar is in the cluster of '$near', not of $w->[2]\n";
	}
	EOF
}
ok "one parameter axis: grouped bars instead of the heatmap, a cluster per value (256MiB, 512MiB), each bar as high as its trial's share of the asked unplug done (100, 75, 100, 50 %)" \
	grouped_bars "$rd/axis1/report/index.html"

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

echo "# reports: a known deviation (xfail) and an unexpected pass (xpass) in every format; the grid; the dashboard"
# tests/data/conformance/grid: claims 1, 3, 4, 5, 6, 8 on 6.12 (recorded) and the same on 6.1 with c3
# under series the declared deviation (see the README there).
rm -rf "$rd/grid" && cp -r tests/data/conformance/grid "$rd/grid"
lab report "$rd/grid" >/dev/null 2>&1
G=$rd/grid/report c3='c3-migration-fails:kernel=6.1,policy=series'
ok "xfail: KTAP 'ok N $c3 # XFAIL known deviation: ...', its failed expect step 'ok # XFAIL', the checker passes it" \
	sh -c 'grep -qE "^ok [0-9]+ $2 # XFAIL known deviation: stock 6.1 " "$1" && grep -qE "^  ok [0-9]+ expect # XFAIL expect at line 28" "$1" &&
		awk -v strict=1 -f tests/ktap-check.awk "$1" >/dev/null' _ "$G/results.ktap" "$c3"
ok "xfail: JUnit <skipped> with the reason as message, no failure counted" sh -c \
	'[ "$(xmllint --xpath "string(//testcase[@name=\"$2\"]/skipped/@message)" "$1" | cut -c1-17)" = "known deviation: " ] &&
	 [ "$(xmllint --xpath "string(/testsuites/@failures)" "$1")" = 0 ] && [ "$(xmllint --xpath "string(/testsuites/@skipped)" "$1")" = 1 ]' _ "$G/junit.xml" "$c3"
ok "xfail: KCIDB FAIL with waived: true and the reason in misc, the schema accepts it, nothing else waived" sh -c \
	'kv() { /usr/bin/python3 -m jsonschema -i "$1" tests/schema/kcidb-v5-subset.schema.json; }; kv "$1" &&
	 jq -e "(.tests[] | select(.path == \"memhp.3-migration-fails.c3-migration-fails_kernel_6_1_policy_series\") | .status == \"FAIL\" and .waived == true and (.misc.reason | startswith(\"known deviation: \")) and .misc.verdict == \"xfail\")
	        and ([.tests[] | select(.waived) | .path | select(startswith(\"memhp.3-migration-fails.c3-migration-fails_kernel_6_1_policy_series\") | not)] | length == 0)" "$1" >/dev/null' _ "$G/kcidb.json"
ok "xfail: HTML's headline says no 'failed', the dashboard counts it: '27 pass, 0 fail, 1 xfail', kernels 6.12 and 6.1, tcg" sh -c \
	'grep "class=.headline" "$1" | grep -q "1 expected failure" && ! grep "class=.headline" "$1" | grep -q "failed</b>" &&
	 grep -q "^<p class=dashboard>grid: 28 trial(s): 27 pass, 0 fail, 1 xfail | kernel 6.12.118-1~deb12u1, 6.1.158-1 | policy baseline, series | host anonymous (proc) | accel tcg | wall 3 min 33 s</p>$" "$1"' _ "$G/index.html"
ok "grid: the first screen is the claim x kernel x policy grid (before the summary), 7 rows x 4 columns, c3 on 6.1 series its own colour linking to the trial" sh -c \
	'[ "$(grep -n "<h2 id=grid>" "$1" | cut -d: -f1)" -lt "$(grep -n "<h2 id=summary>" "$1" | cut -d: -f1)" ] &&
	 grep -qF "<tr><th>scenario · split \\ kernel · policy</th><th>6.12 series</th><th>6.12 baseline</th><th>6.1 series</th><th>6.1 baseline</th></tr>" "$1" &&
	 [ "$(sed -n "/<table class=grid>/,/<\/table>/p" "$1" | grep -c "^<tr><th>c")" = 7 ] &&
	 sed -n "/<table class=grid>/,/<\/table>/p" "$1" | grep "^<tr><th>c3-migration-fails</th>" | grep -q "<td class=.xfail.><a href=.#t17. title=.known deviation: stock 6.1 [^>]*><b>xfail</b> 1 pin failed</a></td><td class=.pass.>"' _ "$G/index.html"
ok "grid: c8's cells carry reached/requested MiB (0/0 under series, 198/0 under baseline)" sh -c \
	'sed -n "/<table class=grid>/,/<\/table>/p" "$1" | grep "^<tr><th>c8-unplug-with-pins</th>" | grep -q "<b>pass</b> 0/0 MiB</a></td><td class=.pass.><a href=[^>]*><b>pass</b> 198/0 MiB"' _ "$G/index.html"
ok "conformance table from the records' verdicts: c3 6.1 series XFAIL, 27 PASS, exit 0" sh -c \
	'tools/conformance.sh --table-only -o "$1" >/dev/null 2>&1 && [ "$(cut -f6 "$1/table.tsv" | sort | uniq -c | tr -s " " | tr "\n" ";")" = " 27 PASS; 1 XFAIL;" ] &&
	 awk -F"\t" "\$1 == 3 && \$2 == \"6.1\" && \$3 == \"series\" && \$6 == \"XFAIL\" { f = 1 } END { exit !f }" "$1/table.tsv"' _ "$rd/grid"
mkdir -p "$rd/xpass" && jq -c --arg t "$c3" 'if .trial == $t then .verdict = "xpass" | .reason = "unexpected pass: the known deviation declared at scenarios/conformance/3-migration-fails.yaml:37 (stock 6.1) did not happen" | (.steps[] | select(.step == "expect")) |= (.ok = true | del(.error)) else . end' \
	"$rd/grid/trials.jsonl" >"$rd/xpass/trials.jsonl"
lab report "$rd/xpass" >/dev/null 2>&1
X=$rd/xpass/report
ok "xpass: KTAP 'not ok # XPASS', JUnit a failure, KCIDB PASS not waived, HTML its own colour and 'failed as unexpected pass'" sh -c \
	'grep -qE "^not ok [0-9]+ $2 # XPASS unexpected pass: " "$1/results.ktap" && awk -v strict=1 -f tests/ktap-check.awk "$1/results.ktap" >/dev/null &&
	 [ "$(xmllint --xpath "string(//testcase[@name=\"$2\"]/failure/@type)" "$1/junit.xml")" = xpass ] &&
	 jq -e "(.tests[] | select(.path == \"memhp.3-migration-fails.c3-migration-fails_kernel_6_1_policy_series\") | .status == \"PASS\" and (has(\"waived\") | not))" "$1/kcidb.json" >/dev/null &&
	 grep -q "<td class=.xpass.><a href=.#t17." "$1/index.html" && grep "class=.headline bad" "$1/index.html" | grep -q "<b>1 failed as unexpected pass"' _ "$X" "$c3"
ok "conformance table: the xpass record is XPASS, exit 1" sh -c \
	'! tools/conformance.sh --table-only -o "$1" >/dev/null 2>&1 && awk -F"\t" "\$1 == 3 && \$2 == \"6.1\" && \$6 == \"XPASS\" { f = 1 } END { exit !f }" "$1/table.tsv"' _ "$rd/xpass"

echo "# reports: plots: one colour per node and zone everywhere; the matrix as the share of the asked unplug done"
census_colours() {	# each census's "node 1 Movable" is filled with palette.c's #8e24aa, rgb(142, 36, 170)
	perl -0ne 'while (/<title>node 1 Movable<\/title>.*?fill = .rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)/gs) { $c{"$1,$2,$3"}++; $n++ }
		print "# node 1 Movable: $n plot(s), colours: ", join(" ", sort keys %c), "\n"; exit(!($n >= 2 && keys(%c) == 1 && $c{"142,36,170"}))' "$1"
}
ok "census: node 1 Movable is #8e24aa (palette.c) in every census of the report, not gnuplot's next colour in line" census_colours "$R/index.html"
ok "matrix heatmap: the share of the asked unplug done (100 % for a full unplug, 75 %/50 % where the baseline left 256/512 of 1024 MiB)" \
	sh -c 'grep -q "share of the asked unplug done" "$1" && grep -q ">100 % pass<" "$1" && grep -q ">75 % fail<" "$1" && grep -q ">50 % fail<" "$1"' _ "$R/index.html"

echo "# reports: history across runs (report --history): 4 nightly runs of the demo matrix and a soak, a regression injected in the last"
H=$rd/history
rm -rf "$H" && mkdir -p "$H"
for k in 1 2 3 4; do
	mkdir -p "$H/2026-12-0$k"
	jq -c --argjson k $k '.started |= sub("^2026-..-.."; "2026-12-0\($k)") | (.steps[]? | select(.step == "pin") | .workload.pin_us) |= (if . then . * (1 + 0.02 * $k) else . end)' \
		tests/data/report/run/trials.jsonl >"$H/2026-12-0$k/trials.jsonl"
	printf '{"trial":"soak:demo:seed=1","scenario":"scenarios/demo.yaml","scenario_name":"demo","started":"2026-12-0%sT03:00:00Z","parameters":{"seed":"1"},"steps":[],"console_findings":[],"summary":{"cycles":%d,"segments":1,"findings":0,"soak_seconds":300,"cycles_per_hour":%d},"seconds":300,"verdict":"pass","reason":null}\n' \
		"$k" $((100 + k)) $((1200 + k)) >>"$H/2026-12-0$k/trials.jsonl"
done
lab report --history -o "$H/out" "$H" >"$H/out1" 2>&1
hrc=$?
ok "history of 4 steady runs: exit 0, no regression, history.html and history.json in -o OUT_DIR" sh -c \
	'[ "$2" = 0 ] && jq -e ".regressions == 0 and (.runs | length) == 4 and (.trials | length) == 7" "$1/out/history.json" >/dev/null &&
	 grep -q "0 regression(s)" "$1/out/history.html"' _ "$H" "$hrc"
# docs/reports.md's own nightly command, relative paths from the directory
# above (issue 52: gnuplot ran in the plot directory with a script path
# relative to ours, and from the second night on --history failed, exit 1).
ok "history with the docs' relative paths ('report --history -o history-rel/out history' from the directory above): exit 0, plots drawn" \
	sh -c 'cd "$1" && "$2" report --history -o history-rel/out history >history-rel.out 2>&1 &&
		[ "$(grep -c "<figure class=plot" history-rel/out/history.html)" -ge 1 ] && ! grep -q "plot missing" history-rel/out/history.html' \
	_ "$rd" "$(realpath "$LAB")"
jq -c 'if .trial == "series-256" then .summary.reached_bytes = 268435456 | .verdict = "fail" | .reason = "injected" elif .trial == "soak:demo:seed=1" then .summary.cycles_per_hour = 600 else . end' \
	"$H/2026-12-04/trials.jsonl" >"$H/t" && mv "$H/t" "$H/2026-12-04/trials.jsonl"
lab report --history -o "$H/out" "$H/2026-12-01" "$H/2026-12-03" "$H/2026-12-02" "$H/2026-12-04" >"$H/out2" 2>&1
hrc=$?
ok "history: the injected regression is marked (series-256 pass -> fail and reached 0 -> 256 MiB, the soak's cycles/h 1202 -> 600), nothing else; exit 1" sh -c \
	'[ "$2" = 1 ] && jq -e "[.trials[] | select(.regressions | length > 0) | {trial, w: [.regressions[].what]}] ==
	   [{trial: \"series-256\", w: [\"verdict pass -> fail\", \"reached_mib 256 MiB, earlier median 0 ± 2\"]},
	    {trial: \"soak:demo:seed=1\", w: [\"cycles_per_hour 600 /h, earlier median 1202 ± 120.2\"]}] and .regressions_in_newest_run == 3
	   and (.runs | map(.dir | sub(\".*/\"; \"\")) == [\"2026-12-01\", \"2026-12-02\", \"2026-12-03\", \"2026-12-04\"])" "$1/out/history.json" >/dev/null &&
	 grep -q "report: 3 regression(s) in the newest run" "$1/out2" &&
	 [ "$(grep -o "class=.fail regression.\|class=regression" "$1/out/history.html" | wc -l)" = 3 ]' _ "$H" "$hrc"
# 30 nightly runs (issue 32, item 12): runs as rows, newest first, readable
# dates, a trend plot per number, read in headless Chromium at 1366 and 1920 px.
H30=$work/history30
rm -rf "$H30" && mkdir -p "$H30"
for k in $(seq 1 30); do
	d=$(printf '2026-11-%02d' "$k") && mkdir -p "$H30/$d"
	jq -c --arg d "$d" --argjson k "$k" '.started |= sub("^2026-..-.."; $d) | (.steps[]? | select(.step == "pin") | .workload.pin_us) |= (if . then . * (1 + 0.01 * ($k % 5)) else . end)' \
		tests/data/report/run/trials.jsonl >"$H30/$d/trials.jsonl"
done
lab report --history -o "$H30/out" "$H30"/2026-11-* >"$H30/out.txt" 2>&1
ok "history of 30 runs: the runs table first, newest first (30: 2026-11-30 on top), dates as 'YYYY-MM-DD HH:MM UTC', a table per trial id, a trend plot per number two runs have" \
	sh -c 'h=$1/out/history.html; [ "$(sed -n "/<table class=runs>/{n;n;p;q}" "$h")" = "<tr><td>30: 2026-11-30</td><td>2026-11-30 12:49 UTC</td><td>6</td><td></td></tr>" ] &&
		[ "$(grep -c "<table class=history>" "$h")" = 6 ] && [ "$(grep -c "<figure class=plot data-plot=.h[0-9]*_[0-9]*.>" "$h")" -ge 6 ] &&
		! grep -q "T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]" "$h"' _ "$H30"
LAB=$LAB tools/report-check.sh --history "$H30/out" -o "$H30/shots" >"$H30/check.out" 2>&1
hcrc=$?
sed 's/^/#   /' "$H30/check.out" | grep -v "^#   ok "
ok "tools/report-check.sh --history: the 30-run history at 1366 and 1920 px, no console message, every plot drawn, no overlapping labels, plot text 11 px or more, the runs table first, nothing wider than the window" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "^ok " "$2")" = 16 ]' _ "$hcrc" "$H30/check.out"
expect_fail "report --history of a directory without runs" 2 "no run directory .with a trials.jsonl. in 1 directory given" $LAB report --history -o "$work/history-none" "$rd/skip/report"
expect_fail "report of two runs without --history" 2 "report: expected one RUN_DIR, got 2 .several only with --history." $LAB report "$rd/run" "$rd/before"

echo "# reports: bad input"
expect_fail "report without RUN_DIR" 2 "report: expected at least one RUN_DIR" $LAB report
expect_fail "report of a missing RUN_DIR" 2 "run directory '/nonexistent/run' does not exist" $LAB report /nonexistent/run
mkdir -p "$rd/empty" && : >"$rd/empty/trials.jsonl"
expect_fail "report of an empty run" 2 "trials.jsonl' is empty: no trials recorded" $LAB report "$rd/empty"
expect_fail "report with an unknown --format" 2 "unknown format 'pdf'" $LAB report --format html,pdf "$rd/run"
expect_fail "report with a bad --origin" 2 "--origin 'Bad Origin' is not a KCIDB origin" $LAB report --origin 'Bad Origin' "$rd/run"
mkdir -p "$rd/crash" && cp "$rd/run/"*.log "$rd/crash/"
{ head -n 2 "$rd/run/trials.jsonl"; echo '{"trial": "x", "verdict": '; sed -n '3,6p' "$rd/run/trials.jsonl"; head -c 300 "$rd/run/trials.jsonl"; } >"$rd/crash/trials.jsonl"
expect_fail "a malformed line is named by file:line (exit 3: the record unreadable, the lab's failure)" 3 "crash/trials.jsonl:3: not JSON" $LAB report "$rd/crash"
ok "a truncated last line (crashed run) is named as such" grep -q "crash/trials.jsonl:8: truncated last line (300 bytes, no newline)" "$work/err"
ok "the other 6 records still render, the 2 bad lines are KTAP errors" sh -c \
	'test "$(grep -cE "^(not )?ok [0-9]" "$1")" = 8 && grep -q "^not ok 8 trials.jsonl line 8 # ERROR truncated" "$1" && awk -f tests/ktap-check.awk "$1"' _ "$rd/crash/report/results.ktap"
ok "the HTML report warns about the 2 unreadable lines" grep -q "2 line(s) of trials.jsonl could not be read" "$rd/crash/report/index.html"
rm -rf "$rd/run/report"
expect_fail "gnuplot missing: the HTML fails, saying which program (exit 3: the lab's failure)" 3 "cannot run '/nonexistent/gnuplot'" \
	env MEMHP_GNUPLOT=/nonexistent/gnuplot $LAB report "$rd/run"
ok "gnuplot missing: the other formats are still written" test -s "$rd/run/report/results.ktap" -a -s "$rd/run/report/kcidb.json" -a ! -e "$rd/run/report/index.html"
rm -rf "$rd/run/report"
expect_fail "gnuplot not in PATH: the HTML fails, saying so (exit 3)" 3 "cannot run 'memhp-no-gnuplot': not found in PATH" \
	env MEMHP_GNUPLOT=memhp-no-gnuplot $LAB report "$rd/run"
rm -rf "$rd/run/report"
expect_fail "gnuplot failing: its exit status in words, then its complaint (exit 3)" 3 \
	"'/bin/false [^']*/plots\\.gp' failed \\(exited with status 1\\): no message" env MEMHP_GNUPLOT=/bin/false $LAB report "$rd/run"
rm -rf "$rd/run/report"
lab report --format ktap "$rd/run" >/dev/null 2>&1
ok "--format ktap writes results.ktap only" test -s "$rd/run/report/results.ktap" -a ! -e "$rd/run/report/junit.xml" -a ! -e "$rd/run/report/index.html"

echo "# reports: memhp-lab run writes all formats at its end"
demo_fx=$(fixture demo)
demo=$demo_fx/run
ok "the demo run wrote index.html, junit.xml, results.ktap, kcidb.json" \
	test -s "$demo/report/index.html" -a -s "$demo/report/junit.xml" -a -s "$demo/report/results.ktap" -a -s "$demo/report/kcidb.json"
ok "the demo run's KTAP passes the checker with 'ok 1 demo'" sh -c 'awk -v strict=1 -f tests/ktap-check.awk "$1" && grep -qx "ok 1 demo" "$1"' _ "$demo/report/results.ktap"
ok "the demo run's report named in its output" grep -q "report: .*/demo/run/report/index.html" "$demo_fx/out"
demo_patchset() {	# the checkout names kernel/patches/6.12's files and their KCIDB patchset_hash
	local d=kernel/patches/6.12 want n
	want=$(cd $d && sha256sum $(sed 's/#.*//' series) | cut -c-64 | sha256sum | cut -c-64)
	n=$(sed 's/#.*//' $d/series | grep -c .)
	kv "$1" && jq -e --arg h "$want" --argjson n "$n" \
		'.checkouts[0].patchset_hash == $h and (.checkouts[0].patchset_files | length) == $n' "$1"
}
ok "the demo run's kcidb.json validates; its checkout has the series' patch files and patchset_hash" \
	demo_patchset "$demo/report/kcidb.json"

# Where CI publishes the run (issue 32, item 14): the reports point there, not at file:///tmp.
cp -r tests/data/report/run "$work/art-run"
$LAB report --artifact-url 'https://ci.example/job/42/artifacts/run' "$work/art-run" >/dev/null 2>&1
ok "report --artifact-url URL: every KCIDB log_url and every JUnit console-log line is under URL, none a local path" \
	sh -c 'jq -e "[.tests[] | select(.log_url) | .log_url | startswith(\"https://ci.example/job/42/artifacts/run/\")] | length > 0 and all" "$1/report/kcidb.json" >/dev/null &&
		grep -q "console log: https://ci.example/job/42/artifacts/run/" "$1/report/junit.xml" &&
		! grep -q "console log: /" "$1/report/junit.xml"' _ "$work/art-run"
ok "MEMHP_ARTIFACT_URL does the same for a run's own report" \
	sh -c 'MEMHP_ARTIFACT_URL=https://ci.example/x "$1" report "$2" >/dev/null 2>&1 &&
		jq -e "[.tests[] | select(.log_url) | .log_url | startswith(\"https://ci.example/x/\")] | all" "$2/report/kcidb.json" >/dev/null' _ "$LAB" "$work/art-run"
expect_fail "report --artifact-url that is not an http(s):// or file:/// URL: refused" 2 \
	"--artifact-url \(or MEMHP_ARTIFACT_URL\) 'javascript:alert\(1\)' is not an http\(s\):// or file:/// URL" \
	$LAB report --artifact-url 'javascript:alert(1)' "$work/art-run"

# A host upgrade between two runs (issue 32, item 3): --compare says what changed on the host.
mkdir -p "$work/hid-a" "$work/hid-b"
jq -c '.host_identity = {hostname: "lab1", kernel: "6.1.0-28-amd64", libvirt: "9.0.0", qemu: "7.2.0"}' \
	tests/data/report/run/trials.jsonl >"$work/hid-a/trials.jsonl"
jq -c '.host_identity = {hostname: "lab1", kernel: "6.1.0-30-amd64", libvirt: "9.0.0", qemu: "8.0.2"}' \
	tests/data/report/run/trials.jsonl >"$work/hid-b/trials.jsonl"
ok "report --compare across a host upgrade: each trial says 'host changed: kernel 6.1.0-28-amd64 -> 6.1.0-30-amd64, qemu 7.2.0 -> 8.0.2' (a change, not a regression: exit 0)" \
	sh -c '"$1" report --compare "$2" "$3" >"$4" 2>&1 && grep -q "host changed: kernel 6.1.0-28-amd64 -> 6.1.0-30-amd64, qemu 7.2.0 -> 8.0.2" "$4"' \
	_ "$LAB" "$work/hid-a" "$work/hid-b" "$work/hid.out"
ok "the dashboard line names where the run ran (host_identity): '| on lab1 (kernel 6.1.0-30-amd64, QEMU 8.0.2) |'" \
	grep -q "<p class=dashboard>.* | accel tcg | on lab1 (kernel 6.1.0-30-amd64, QEMU 8.0.2) | wall " "$work/hid-b/report/index.html"
mkdir -p "$work/hh/b" && cp -r "$work/hid-a" "$work/hh/a"
jq -c '.started |= sub("^2026-[0-9]+-[0-9]+"; "2026-12-04")' "$work/hid-b/trials.jsonl" >"$work/hh/b/trials.jsonl"
ok "report --history across that upgrade: the newer run says 'host changed: kernel ..., qemu 7.2.0 -> 8.0.2' (history.json runs[].host_changed, and its column in history.html)" \
	sh -c '"$1" report --history -o "$2/out" "$2/a" "$2/b" >/dev/null 2>&1 &&
		jq -e ".runs[1].host_changed == \"kernel 6.1.0-28-amd64 -> 6.1.0-30-amd64, qemu 7.2.0 -> 8.0.2\" and (.runs[0].host_changed | not)" "$2/out/history.json" >/dev/null &&
		grep -q "host changed: kernel 6.1.0-28-amd64 -&gt; 6.1.0-30-amd64" "$2/out/history.html"' _ "$LAB" "$work/hh"

# The scale section (issue 36, item 5): the records of scenarios/scale/64g-unused.yaml
# and 64g-used.yaml as they ran here (tests/data/report/README.md), one run.
cp -r tests/data/report/scale "$work/scale"
$LAB report "$work/scale" >/dev/null 2>&1
sed -n '/<h2 id=scale>/,/<\/figure>/p' "$work/scale/report/index.html" >"$work/scale.html"
ok "report: the 64 GiB rows make the scale section: a row each (64 GiB, 0 and 8 GiB in use, plug and unplug s, backend 8276 -> 0 MiB, QEMU's RSS 433 -> peak 9824 -> 8868 MiB) and its log-log plot" \
	sh -c 'grep -q "<tr><td>scale-64g-unused</td><td>64</td><td>0</td><td>21.46</td><td>21.76</td><td>29.92</td><td>2</td><td>0</td><td>299</td><td>1329</td><td>1327</td></tr>" "$1" &&
		grep -q "<tr><td>scale-64g-used</td><td>64</td><td>8</td><td>14.12</td><td>14.51</td><td>61.70</td><td>8276</td><td>0</td><td>433</td><td>9824</td><td>8868</td></tr>" "$1" &&
		grep -q "<svg" "$1" && grep -q "unplug, memory in use (migrated)" "$1"' _ "$work/scale.html"
mkdir -p "$work/scale1" && head -n 1 tests/data/report/scale/trials.jsonl >"$work/scale1/trials.jsonl"
$LAB report "$work/scale1" >/dev/null 2>&1
ok "report: one such trial alone is no curve (no scale section), nor are the demo's trials, which plug nothing from 0" \
	sh -c 'grep -q "<h2 id=summary>" "$1" && ! grep -q "id=scale" "$1" && ! grep -q "id=scale" "$2"' _ \
	"$work/scale1/report/index.html" "$demo/report/index.html"
