# tests/capacity.sh - sourced by tests/run.sh (uses its ok/expect_fail, $LAB,
# $work): a capacity sweep on a small grid (2 online policies x 3 pinned
# sizes, tests/data/capacity/grid.yaml) whose frontier must be monotone, and
# the report's capacity section against a golden (docs/capacity.md).

# The frontier of a run is monotone: per group (every parameter but pinned),
# with pinned growing, the unplugged fraction never grows among trials whose
# pins held (one 2 MiB block of slack), and once a pin fails every larger one
# fails too. Prints the points; exit 1 if not monotone.
plan 5 full 10
capacity_monotone() {
	jq -se '
	  map(select(.parameters.pinned != null and .summary.reached_bytes != null)
	      | {g: (.parameters | del(.pinned) | tostring),
	         p: (.parameters.pinned | if . == "0" then 0 else (sub("MiB$"; "") | tonumber) end),
	         plugged: (.domain.nodes[1].virtio_mem_requested_bytes),
	         left: .summary.reached_bytes, failed: (.summary.pins_failed > 0)})
	  | if length < 2 then error("fewer than 2 capacity points") else . end
	  | group_by(.g) | all(.[];
	      sort_by(.p) as $s
	      | ([$s[] | select(.failed | not) | .left] as $l
	         | [range(1; $l | length)] | all(.[]; $l[.] + 2097152 >= $l[. - 1]))
	        and ([$s[] | .failed] as $f | [range(1; $f | length)] | all(.[]; $f[.] or ($f[. - 1] | not))))' "$1"
}

# The full tier runs a sweep; both tiers judge the recorded one (tests/data/capacity/run).
if full; then
echo "# capacity: a small sweep (2 online policies x 3 pinned sizes, -j 2) and its frontier"
lab run -j 2 -q -o "$work/cap" tests/data/capacity/grid.yaml >"$work/cap.out" 2>&1
rc=$?
r=$work/cap/trials.jsonl
ok "capacity grid: exit 0, 6 trials, each passes (failed pins and short unplugs are measured)" \
	test "$rc" = 0 -a "$(jq -s '[.[] | select(.verdict == "pass")] | length' "$r" 2>/dev/null)" = 6
ok "capacity grid: the frontier is monotone (unplugged never grows with the pinned size; failed pins stay failed)" \
	capacity_monotone "$r"
ok "capacity grid: online_movable unplugs everything with nothing pinned and with 25% (128 MiB) pinned" \
	jq -se 'map(select(.parameters.policy == "online_movable" and (.parameters.pinned == "0" or .parameters.pinned == "128MiB"))) | length == 2 and all(.[]; .summary.reached_bytes == 0 and .summary.pins_failed == 0)' "$r"
ok "capacity grid: online_kernel stops short by at least the pin at 50% (256 MiB) pinned" \
	jq -se 'map(select(.parameters.policy == "online_kernel" and .parameters.pinned == "256MiB"))[0].summary.reached_bytes >= 268435456' "$r"
ok "capacity report: one sentence per policy and a frontier plot with drawn paths" \
	sh -c "grep -c '^<li>capacity-grid (policy=online_\(movable\|kernel\)): ' '$work/cap/report/index.html' | grep -qx 2 && sed -n '/id=capacity/,/<\/figure>/p' '$work/cap/report/index.html' | grep -q '<path'"
fi
ok "oracle: capacity: the recorded sweep's frontier (tests/data/capacity/run) is monotone" \
	capacity_monotone tests/data/capacity/run/trials.jsonl
# The monotone check can fail: the same records with one short unplug made worse than its neighbour.
r=tests/data/capacity/run/trials.jsonl
jq -c 'if .parameters.policy == "online_kernel" and .parameters.pinned == "128MiB" then .summary.reached_bytes = 400000000 else . end' \
	"$r" >"$work/cap-bad.jsonl"
capacity_not_monotone() { ! capacity_monotone "$@"; }
ok "oracle: capacity: the monotone check rejects a frontier that goes up again" \
	capacity_not_monotone "$work/cap-bad.jsonl"
rm -rf "$work/capgold" && cp -r tests/data/capacity/run "$work/capgold"
lab report "$work/capgold" --format html >/dev/null 2>&1
sed -n '/<ul class=capacity>/,/<\/ul>/p' "$work/capgold/report/index.html" | grep '^<li>' >"$work/cap.sentences"
ok "capacity report golden: the sentences of tests/data/capacity/run" \
	diff -u tests/data/capacity/sentences.golden "$work/cap.sentences"
# The plug-ratio frontier (scenarios/capacity/plug-ratio.yaml) from the sweep's records, trimmed: one sentence per policy.
rm -rf "$work/prgold" && cp -r tests/data/capacity/plug-ratio "$work/prgold"
lab report "$work/prgold" --format html >/dev/null 2>&1
sed -n '/<ul class=capacity>/,/<\/ul>/p' "$work/prgold/report/index.html" | grep '^<li>' >"$work/pr.sentences"
ok "plug-ratio report: one sentence per online policy and a drawn frontier plot" \
	sh -c "grep -c '^<li>capacity-plug-ratio (online=\(movable\|auto-movable\)): ' '$work/pr.sentences' | grep -qx 2 && sed -n '/id=capacity/,/<\/figure>/p' '$work/prgold/report/index.html' | grep -q '<path'"
ok "plug-ratio report golden: the sentences of tests/data/capacity/plug-ratio" \
	diff -u tests/data/capacity/plug-ratio.golden "$work/pr.sentences"
