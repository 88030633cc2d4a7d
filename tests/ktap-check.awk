#!/usr/bin/awk -f
# tests/ktap-check.awk - check a file against the rules of the kernel's
# Documentation/dev-tools/ktap.rst (KTAP version 1):
#   - the output starts with a version line; every subtest starts with one,
#     indented two spaces more than its parent;
#   - a plan "1..N" follows the version line (diagnostics may sit between)
#     and comes before any result of that level;
#   - results are "ok|not ok N [description][ # [DIRECTIVE] [diagnostic]]",
#     numbered from 1 up by one per level, no '#' in the description;
#   - TIMEOUT and ERROR need "not ok"; a subtest ends with its parent's
#     result line one level out, after exactly N results; a parent whose
#     subtest failed (not SKIP) is "not ok";
#   - every level is closed at the end with as many results as planned.
# Unknown lines are allowed by KTAP; with -v strict=1 they are refused (our
# own output has none). Prints "ok" or "FILE:LINE: why" and exits 1.
function fail(why) {
	printf "%s:%d: %s\n", FILENAME, NR, why
	bad = 1
	exit 1
}
function result(ind, line,    notok, num, rest, dir) {
	notok = (line ~ /^not ok /)
	sub(/^(not )?ok /, "", line)
	num = line; sub(/[^0-9].*$/, "", num)
	if (num == "")
		fail("result line without a test number")
	if (num != cnt[depth] + 1)
		fail("test number " num " where " (cnt[depth] + 1) " was due")
	if (plan[depth] < 0)
		fail("result before the plan of this level")
	cnt[depth]++
	rest = substr(line, length(num) + 1)
	if (rest != "" && rest !~ /^ /)
		fail("no space after the test number")
	dir = ""
	if (index(rest, "#")) {
		dir = substr(rest, index(rest, "#") + 1)
		sub(/^ */, "", dir)
		sub(/[ ].*$/, "", dir)
		if (rest !~ / #/)
			fail("'#' in the description")
	}
	if ((dir == "TIMEOUT" || dir == "ERROR") && !notok)
		fail(dir " directive on an \"ok\" result")
	if (notok && dir != "SKIP")
		failed[depth] = 1
	return notok
}
BEGIN {
	depth = 0; started = 0; bad = 0
}
{
	line = $0
	sub(/\r$/, "", line)
	match(line, /^ */)
	ind = RLENGTH
	body = substr(line, ind + 1)
	if (ind % 2)
		fail("odd indentation (" ind " spaces): KTAP indents by two")
}
!started {
	if (body !~ /^(KTAP version 1|TAP version 1[34])$/ || ind)
		fail("the first line is not a version line \"KTAP version 1\"")
	started = 1; depth = 1; indent[1] = 0; plan[1] = -1; cnt[1] = 0; failed[1] = 0
	next
}
body ~ /^#/ || body == "" { next }
body ~ /^(KTAP version 1|TAP version 1[34])$/ {
	if (ind != indent[depth] + 2)
		fail("subtest version line at indent " ind ", expected " (indent[depth] + 2))
	depth++; indent[depth] = ind; plan[depth] = -1; cnt[depth] = 0; failed[depth] = 0
	next
}
body ~ /^1\.\.[0-9]+$/ {
	if (ind != indent[depth])
		fail("plan at indent " ind ", expected " indent[depth])
	if (plan[depth] >= 0 || cnt[depth])
		fail("a second plan, or a plan after results, at this level")
	plan[depth] = substr(body, 4) + 0
	next
}
body ~ /^(not )?ok( |$)/ {
	if (ind == indent[depth]) {
		result(ind, body)
		next
	}
	if (depth > 1 && ind == indent[depth - 1]) {
		if (cnt[depth] != plan[depth])
			fail("subtest ended after " cnt[depth] " result(s), its plan says " plan[depth])
		childfailed = failed[depth]
		depth--
		if (!result(ind, body) && childfailed)
			fail("\"ok\" although one of its subtests failed")
		next
	}
	fail("result at indent " ind ", expected " indent[depth] (depth > 1 ? " or " indent[depth - 1] : ""))
}
{
	if (strict)
		fail("unknown line (not version, plan, result or '#' diagnostic): " body)
}
END {
	if (bad)
		exit 1
	if (!started)
		fail("empty: no version line")
	if (depth != 1)
		fail("end of file inside a subtest (" depth - 1 " level(s) open)")
	if (plan[1] < 0)
		fail("no plan")
	if (cnt[1] != plan[1])
		fail(cnt[1] " result(s), the plan says " plan[1])
	print "ok"
}
