# tests/hugepages.sh - sourced by tests/run.sh: the hugepages step (issue 35,
# item 3). The fast tier boots no guest: what `memhp-lab check` refuses.
# The full tier: conformance claim 10 (scattered pins against node 1's 2 MiB
# huge page pool) on both kernels under both policies, a pool asked beyond
# what the node has (a short pool recorded, not a crash), and one 1 GiB page
# from ZONE_MOVABLE.
plan 6 full 17
hp_yaml() {	# hp_yaml FILE STEP: a two-node guest whose one step is STEP
	cat >"$1" <<EOF2
name: hp
kernel: "6.12"
nodes:
  - memory: 256MiB
    cpus: 1
  - memory: 128MiB
    cpus: 1
    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}
steps:
  $2
EOF2
}
echo "# hugepages: refusals at check, with file:line:col"
hp_yaml "$work/size.yaml" "- hugepages: {node: 1, count: 4, size: 4MiB}"
expect_fail "check: a size that is no huge page size (4MiB)" 1 "size.yaml:10:42: hugepages: size '4MiB' is no x86-64 huge page size \(expected 2MiB or 1GiB\)" \
	$LAB check "$work/size.yaml"
hp_yaml "$work/count.yaml" "- hugepages: {node: 1, count: -1}"
expect_fail "check: a negative count" 1 "count.yaml:10:33: count: '-1' is not an integer" $LAB check "$work/count.yaml"
hp_yaml "$work/nocount.yaml" "- hugepages: {node: 1, size: 2MiB}"
expect_fail "check: no count" 1 "nocount.yaml:10:5: step 'hugepages' needs 'count'" $LAB check "$work/nocount.yaml"
hp_yaml "$work/node.yaml" "- hugepages: {node: 3, count: 1}"
expect_fail "check: a node the guest does not have" 1 "node.yaml:10:5: step 'hugepages' names node 3, but the guest has 2 node\(s\)" \
	$LAB check "$work/node.yaml"
hp_yaml "$work/noexp.yaml" "- expect: {hugepages: reached}"
expect_fail "check: expect hugepages with no hugepages step before it" 1 "noexp.yaml:10:14: expect: 'hugepages' needs a hugepages step before it" \
	$LAB check "$work/noexp.yaml"
hp_yaml "$work/good.yaml" "- hugepages: {node: 1, count: 4, size: 1GiB, deadline: 30}"
ok "check: node, count, size 1GiB and deadline are taken" $LAB check "$work/good.yaml"
if full; then
	echo "# hugepages: conformance claim 10 on 6.12 and 6.1 under series and baseline"
	timed "$run_timeout" tools/conformance.sh --claims 10 -o "$work/c10" >"$work/c10.out" 2>&1
	sed 's/^/#   /' "$work/c10.out"
	# Each row PASSes by where the pinned pages are (series: none in
	# ZONE_MOVABLE; baseline: all); the pools beside the control are in the
	# row as figures (docs/conformance.md, c10: within their spread here).
	for row in "6.12 series" "6.12 baseline" "6.1 series" "6.1 baseline"; do
		set -- $row
		ok "conformance claim 10, $1, $2: PASS, the row with both pools and the pinned pages in ZONE_MOVABLE" \
			awk -F'\t' -v k="$1" -v p="$2" '$1 == 10 && $2 == k && $3 == p && $6 == "PASS" && $5 ~ /touched \(the control\)/ && $5 ~ /pinned pages in ZONE_MOVABLE/ { f = 1 } END { exit !f }' \
			"$work/c10/table.tsv"
	done
	echo "# hugepages: more than node 1 has: a short pool, recorded"
	hp_yaml "$work/short.yaml" $'- hugepages: {node: 1, count: 4000, deadline: 120}\n  - expect: {hugepages: short}'
	lab run -q -o "$work/short" "$work/short.yaml" >"$work/short.out" 2>&1
	src=$?
	ok "a pool of 4000 2 MiB pages on a 640 MiB node: run exits 0, the trial passes (expect hugepages: short)" sh -c \
		'[ "$1" = 0 ] && jq -e ".verdict == \"pass\"" "$2" >/dev/null' _ "$src" "$work/short/trials.jsonl"
	ok "the short pool is recorded: ok false, 0 < allocated_pages < 4000, requested_bytes 4000 * 2 MiB" \
		jq -e '.steps[0].elastic | .ok == false and .allocated_pages > 0 and .allocated_pages < 4000 and .requested_pages == 4000 and .requested_bytes == 4000 * 2097152 and .mechanism == "hugetlb" and .action == "alloc"' \
		"$work/short/trials.jsonl"
	ok "the short pool's compaction counters are recorded (compact_stall present)" \
		jq -e '.steps[0].elastic.compaction | has("compact_stall") and has("compact_success")' "$work/short/trials.jsonl"
	echo "# hugepages: one 1 GiB page from node 1 (the CPU gets pdpe1gb): from ZONE_NORMAL, never from ZONE_MOVABLE"
	lab run -j 2 -q -o "$work/1g" scenarios/hugepages-1g.yaml scenarios/hugepages-1g-movable.yaml >"$work/1g.out" 2>&1
	grc=$?
	ok "1 GiB: run exits 0, both trials pass (their expects: reached from Normal, short from Movable)" sh -c \
		'[ "$1" = 0 ] && [ "$(jq -s "map(select(.verdict == \"pass\")) | length" "$2")" = 2 ]' _ "$grc" "$work/1g/trials.jsonl"
	ok "1 GiB from node 1's ZONE_NORMAL (online: kernel): one page (page_bytes 1 GiB), MemTotal unchanged, freed by count 0" \
		jq -se 'map(select(.scenario_name == "hugepages-1g")) | length == 1 and (.[0] | (.steps[0].elastic | .ok and .allocated_pages == 1 and .page_bytes == 1073741824 and .memtotal_after_bytes == .memtotal_before_bytes) and (.steps[2].elastic | .ok and .allocated_pages == 0))' \
		"$work/1g/trials.jsonl"
	ok "1 GiB from node 1's ZONE_MOVABLE: the pool exists (no refused) and stays 0 of 1" \
		jq -se 'map(select(.scenario_name == "hugepages-1g-movable")) | length == 1 and (.[0].steps[0].elastic | .ok == false and .allocated_pages == 0 and .requested_pages == 1 and (has("refused") | not))' \
		"$work/1g/trials.jsonl"
	ok "no QEMU of this part is left" no_qemu
fi
