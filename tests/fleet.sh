# tests/fleet.sh - shards for the batch engines teams already run (issue 18,
# item 5), sourced by tests/run.sh (uses its ok/expect_fail helpers, $LAB,
# $work): three shards of a matrix run side by side, each a stable part of
# the trial list, merged by report --merge into one run whose trial ids are
# exactly the unsharded run's; what merge refuses.

echo "# fleet: run --shard K/N, three shards side by side, report --merge"
printf 'name: shards\nmatrix:\n  n: [1, 2, 3, 4, 5, 6]\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n' >"$work/shards.yaml"
$LAB check --json "$work/shards.yaml" | jq -r '.files[0].trials[].id' >"$work/shards.all"
for k in 1 2 3; do
	timeout 600 $LAB run -q -j 1 --shard "$k/3" -o "$work/shard$k" "$work/shards.yaml" >"$work/shard$k.out" 2>&1 &
	eval "spid$k=\$!"
done
wait "$spid1"; s1=$?; wait "$spid2"; s2=$?; wait "$spid3"; s3=$?
dirs=()
for k in 1 2 3; do [ -d "$work/shard$k" ] && dirs+=("$work/shard$k"); done
ok "three shards ran side by side, each exit 0 (an empty shard runs nothing and exits 0)" \
	test "$s1$s2$s3" = 000
ok "each shard's run.json names its shard and the whole run's trial ids; no trial in two shards, none left out" \
	bash -c 'all=$(cat "$1"); shift; seen=""
		for d in "$@"; do
			[ "$(jq -r ".shard.trials[]" "$d/run.json")" = "$all" ] || exit 1
			jq -re ".shard.k_of_n | test(\"^[123]/3$\")" "$d/run.json" >/dev/null || exit 1
			seen="$seen$(jq -r .trial "$d/trials.jsonl")
"
		done
		[ "$(printf "%s" "$seen" | sed "/^$/d" | sort)" = "$(sort <<<"$all")" ]' _ "$work/shards.all" "${dirs[@]}"
ok "a shard is stable: shard 2/3 run again holds the same trials" \
	sh -c '"$1" run -q -j 1 --shard 2/3 -o "$2" "$3" >/dev/null 2>&1; a=$(jq -r .trial "$2/trials.jsonl" 2>/dev/null | sort);
		b=$(jq -r .trial "$4/trials.jsonl" 2>/dev/null | sort); [ "$a" = "$b" ]' _ "$LAB" "$work/shard2b" "$work/shards.yaml" "$work/shard2"
$LAB report --merge "$work/merged" "${dirs[@]}" >"$work/merge.out" 2>&1
mrc=$?
ok "report --merge: exit 0; one trials.jsonl with the unsharded run's ids in its order, all passed, a report rendered" \
	bash -c '[ "$1" = 0 ] && [ "$(jq -r .trial "$2/trials.jsonl")" = "$(cat "$3")" ] &&
		jq -se "all(.verdict == \"pass\")" "$2/trials.jsonl" >/dev/null && [ -s "$2/report/index.html" ] &&
		jq -e "(.shard | not) and (.merged_from | length) >= 2" "$2/run.json" >/dev/null' _ "$mrc" "$work/merged" "$work/shards.all"
ok "report --merge: every console log copied into the merged run, the records point at the copies" \
	sh -c 'jq -r .console_log "$1/trials.jsonl" | while read -r l; do [ "$(dirname "$l")" = "$1" ] && [ -s "$l" ] || exit 1; done' \
	_ "$(realpath "$work/merged")"
expect_fail "report --merge: a shard left out is refused, naming a trial and its shard" 2 \
	"has no record: it belongs to shard [123]/3, which is not among the directories given" \
	$LAB report --merge "$work/merged2" "${dirs[0]}"
expect_fail "report --merge: a shard given twice is refused" 2 \
	"are both shard [123]/3" $LAB report --merge "$work/merged3" "${dirs[0]}" "${dirs[0]}"
expect_fail "report --merge: a run that is not a shard is refused, naming its run.json" 2 \
	"is not the run.json of a shard" $LAB report --merge "$work/merged4" "$work/merged"
expect_fail "run --shard 4/3: refused with the rule" 2 "expected K/N with 1 <= K <= N <= 1000" \
	$LAB run --shard 4/3 -o "$work/shard-bad" "$work/shards.yaml"
expect_fail "run --shard auto outside a batch engine: refused, naming the variables it reads" 2 \
	"none of CI_NODE_INDEX \\(GitLab\\), SLURM_ARRAY_TASK_ID \\(Slurm\\) or JOB_COMPLETION_INDEX" \
	env -u CI_NODE_INDEX -u CI_NODE_TOTAL -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX \
	$LAB run --shard auto -o "$work/shard-auto" "$work/shards.yaml"
ok "run --shard auto in a GitLab parallel job (CI_NODE_INDEX=1, CI_NODE_TOTAL=3): the trials of shard 1/3" \
	sh -c 'CI_NODE_INDEX=1 CI_NODE_TOTAL=3 "$1" run -q -j 1 --shard auto -o "$2" "$3" >/dev/null 2>&1;
		if [ -d "$4" ]; then [ "$(jq -r .trial "$2/trials.jsonl" | sort)" = "$(jq -r .trial "$4/trials.jsonl" | sort)" ];
		else [ ! -d "$2" ]; fi' _ "$LAB" "$work/shard-gitlab" "$work/shards.yaml" "$work/shard1"
