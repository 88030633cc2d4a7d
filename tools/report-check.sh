#!/bin/bash
# tools/report-check.sh - the reports as a reader sees them, in headless
# Chromium (docs/reports.md, "Checked in a browser"): the conformance report
# (tests/data/conformance/grid: claim x kernel x policy, c3 on 6.1 an XFAIL)
# at a laptop's and a desktop's width, 1366 and 1920 pixels.
#
# Usage: tools/report-check.sh [-o DIR] [RUN_DIR | --history OUT_DIR]
#   RUN_DIR  a run to render and check (default: a copy of tests/data/conformance/grid)
#   --history OUT_DIR  instead, the history page `report --history -o OUT_DIR`
#            wrote there: its first table the runs, a trend plot per number
#   -o DIR   where the screenshots go: DIR/report-grid-1366.png and
#            DIR/report-grid-1920.png (default: a temporary directory;
#            `make report-check` passes docs/)
# Checks, one "ok"/"not ok" line each, at each width:
#   - the page loads with no console message (--enable-logging=stderr --v=0);
#   - every plot is drawn (an SVG with a non-zero size and paths);
#   - no two text labels of a plot overlap, and no label of a plot (a step
#     marker's, a tic, the title) lies on its data (a line or point of a
#     plotted series: Chromium's isPointInStroke over the label's box);
#   - plot text is at least 11 px as rendered (its computed font size times
#     the SVG's scale on the page);
#   - the page is no wider than the window (a wide table scrolls inside its
#     own box, it does not widen the page);
#   - the first table: the grid (a matrix run), the summary (a run without
#     one) or the runs (--history), no cell of it overflowing; a run page's
#     summary table spans the page's width (not capped near 1024 px);
#   - for the conformance report, the grid's XFAIL cell is there with its reason.
# Exit 0 when every check passes, 1 when one fails, 2 on a usage error.
set -u
cd "$(dirname "$0")/.."
LAB=${LAB:-build/memhp-lab}
out=
run=
hist=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=${2:-}; shift;;
	--history) hist=${2:-}; shift;;
	-h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
	-*) echo "Error: unknown option '$1' (see tools/report-check.sh --help)" >&2; exit 2;;
	*) run=$1;;
	esac
	shift
done
command -v chromium >/dev/null || { echo "Error: chromium is not installed (make deps installs it)" >&2; exit 2; }
[ -x "$LAB" ] || { echo "Error: $LAB is not built (make orchestrator)" >&2; exit 2; }
work=$(mktemp -d /tmp/mhl-report-check-XXXXXX)
trap 'rm -rf "$work"' EXIT
conf=
first=grid plots='p[0-9]+' shot=report-grid
if [ -n "$hist" ]; then
	[ -s "$hist/history.html" ] || { echo "Error: '$hist' has no history.html (report --history -o '$hist' RUN_DIR...)" >&2; exit 2; }
	first=runs plots='h[0-9]+_[0-9]+' shot=history
elif [ -z "$run" ]; then
	cp -r tests/data/conformance/grid "$work/conformance"
	run=$work/conformance conf=1
fi
[ -n "$hist" ] || [ -s "$run/trials.jsonl" ] || { echo "Error: '$run' has no trials.jsonl" >&2; exit 2; }
[ -n "$out" ] || out=$work
mkdir -p "$out" || exit 2
t0=$(date +%s%N)
if [ -n "$hist" ]; then
	page=$(cd "$hist" && pwd)/history.html
else
	"$LAB" report --format html "$run" >/dev/null 2>"$work/report.err" || { cat "$work/report.err" >&2; exit 1; }
	page=$(cd "$run/report" && pwd)/index.html
fi
n=0 fail=0
ok() {	# ok DESC CMD...
	n=$((n + 1))
	if "${@:2}"; then echo "ok $n $1"; else echo "not ok $n $1"; fail=$((fail + 1)); fi
}
chrome() { timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@"; }
# The probe: the page in an iframe, measured by script (the page itself has none).
probe() {	# probe WIDTH
	cat >"$work/probe-$1.html" <<EOF
<!DOCTYPE html><html><body style="margin:0"><iframe id=f src="file://$page" width=$1 height=1000></iframe><pre id=out>pending</pre>
<script>
function over(a, b) { return a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1; }
// A label on the data: a point of the label's box (2 px apart) on the stroke of
// a plotted series' path, or the box over one of its points (gnuplot's <use>).
function ondata(box, paths, uses) {
  for (var k = 0; k < uses.length; k++) if (over(box, uses[k].getBoundingClientRect())) return true;
  for (var x = box.left + 1; x < box.right - 1; x += 2)
    for (var y = box.top + 1; y < box.bottom - 1; y += 2)
      for (var i = 0; i < paths.length; i++) {
        var m = paths[i].getScreenCTM().inverse(), p = new DOMPoint(x, y).matrixTransform(m);
        if (paths[i].isPointInStroke(p)) return true;
      }
  return false;
}
document.getElementById('f').onload = function () {
  var d = this.contentDocument, res = [], figs = d.querySelectorAll('figure.plot');
  figs.forEach(function (f) {
    var s = f.querySelector('svg'), r = s ? s.getBoundingClientRect() : {width: 0, height: 0}, bad = 0, ond = 0, minf = 999, small = '';
    var t = s ? Array.prototype.filter.call(s.querySelectorAll('text'), function (e) { return e.textContent.trim() != ''; }) : [];
    var b = t.map(function (e) { return e.getBoundingClientRect(); });
    var pair = '';
    for (var i = 0; i < b.length; i++) for (var j = i + 1; j < b.length; j++)
      if (over(b[i], b[j]) && !bad++) pair = t[i].textContent.trim().substr(0, 30) + ' | ' + t[j].textContent.trim().substr(0, 30);
    var series = s ? s.querySelectorAll('g[id*="gnuplot_plot_"]') : [], paths = [], uses = [];
    series.forEach(function (g) { paths.push.apply(paths, g.querySelectorAll('path')); uses.push.apply(uses, g.querySelectorAll('use')); });
    t.forEach(function (e, i) {
      var m = e.getScreenCTM(), px = parseFloat(getComputedStyle(e).fontSize) * Math.hypot(m.a, m.b);
      if (px < minf) { minf = px; small = e.textContent.trim().substr(0, 30); }
      if (!e.closest('g[id*="gnuplot_plot_"]') && ondata(b[i], paths, uses)) ond++;
    });
    res.push('plot ' + f.dataset.plot + ' ' + Math.round(r.width) + ' ' + Math.round(r.height) + ' ' +
             (s ? s.querySelectorAll('path').length : 0) + ' overlaps ' + bad + ' ondata ' + ond +
             ' minfont ' + (t.length ? minf.toFixed(1) : 'none') + ' ' + JSON.stringify(small) +
             (bad ? ' first overlap ' + JSON.stringify(pair) : ''));
  });
  var g = d.querySelector('table'), cells = g ? g.querySelectorAll('td, th') : [], wide = 0;
  cells.forEach(function (c) { if (c.scrollWidth > c.clientWidth + 1) wide++; });
  var sm = d.querySelector('table.summary') || d.querySelector('#summary + table');
  res.push('firsttable ' + (!g ? 'none' : g.className || (g === sm ? 'summary' : 'unnamed')) + ' cells ' + cells.length + ' overflow ' + wide);
  res.push('page ' + Math.max(d.documentElement.scrollWidth, d.body.scrollWidth) + ' window ' + d.documentElement.clientWidth);
  // the room the page has: the window less the body's margins, not a max-width on it
  var room = d.documentElement.clientWidth - 2 * d.body.getBoundingClientRect().left;
  res.push('summary ' + (sm ? Math.round(sm.getBoundingClientRect().width) : 0) + ' of ' + Math.round(room));
  var x = d.querySelector('table.grid td.xfail a');
  res.push('xfail ' + (x ? (x.title.indexOf('known deviation:') == 0 ? 'reason' : 'noreason') : 'none'));
  document.getElementById('out').textContent = 'figures ' + figs.length + '\n' + res.join('\n') + '\nend';
};
</script></body></html>
EOF
	chrome --allow-file-access-from-files --virtual-time-budget=5000 --dump-dom "file://$work/probe-$1.html" 2>/dev/null >"$work/probe-$1.out"
}
for w in 1366 1920; do
	chrome --window-size=$w,1000 --screenshot="$out/$shot-$w.png" "file://$page" >/dev/null 2>&1
	ok "$w px: screenshot $out/$shot-$w.png is a PNG" \
		test "$(head -c 8 "$out/$shot-$w.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
	chrome --window-size=$w,1000 --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom "file://$page" \
		2>"$work/console-$w.log" >/dev/null
	ok "$w px: no console message from the page" sh -c '! grep -F CONSOLE "$1" | grep -qF "$2"' _ "$work/console-$w.log" "$page"
	probe $w
	figs=$(sed -n 's/.*>figures \([0-9]*\)$/\1/p' "$work/probe-$w.out")
	ok "$w px: every plot drawn (${figs:-0} figure(s), each an SVG with a size and paths)" sh -c \
		'[ "${2:-0}" -gt 0 ] && [ "$(grep -cE "^plot $3 [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* overlaps" "$1")" = "$2" ]' _ "$work/probe-$w.out" "$figs" "$plots"
	ok "$w px: no two labels of a plot overlap" sh -c '! grep -qE "^plot .* overlaps [1-9]" "$1"' _ "$work/probe-$w.out"
	ok "$w px: no label of a plot lies on its data (a line or point of a series)" \
		sh -c '! grep -qE "^plot .* ondata [1-9]" "$1" && grep -q "^end" "$1"' _ "$work/probe-$w.out"
	ok "$w px: plot text at least 11 px as rendered" \
		awk '/^plot / { n++; if ($11 == "none" || $11 + 0 < 11) bad++ } END { exit !(n > 0 && !bad) }' "$work/probe-$w.out"
	ok "$w px: the page is no wider than the window" awk '/^page / { f = ($2 <= $4 && $4 > 0) } END { exit !f }' "$work/probe-$w.out"
	want=$first
	[ -n "$hist" ] || [ -n "$conf" ] || grep -q "<table class=grid>" "$page" || want=summary
	ok "$w px: the $want table is the first, no cell of it overflows" \
		awk -v t=$want '/^firsttable / { f = ($2 == t && $4 > 0 && $6 == 0) } END { exit !f }' "$work/probe-$w.out"
	[ -n "$hist" ] || ok "$w px: the summary table spans the page's width (90 % or more of it)" \
		awk '/^summary / { f = ($2 > 0 && $2 >= 0.9 * $4) } END { exit !f }' "$work/probe-$w.out"
	[ -z "$conf" ] || ok "$w px: the grid's XFAIL cell (c3 on 6.1) carries its reason" grep -qx "xfail reason" "$work/probe-$w.out"
	grep -E "^plot .* (overlaps [1-9]|ondata [1-9]|minfont ([0-9]|10)\.)|^firsttable|^page|^summary|^xfail" "$work/probe-$w.out" | sed 's/^/# /'
done
t1=$(date +%s%N)
echo "# $n checks, $fail failed, $(( (t1 - t0) / 1000000 )) ms; screenshots in $out"
[ "$fail" = 0 ]
