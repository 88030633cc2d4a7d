# tests/dimm.sh - the dimm and vmem steps (issue 35, items 1 and 2), sourced
# by tests/run.sh. Fast tier: one DIMM trial (scenarios/other/dimm.yaml:
# 6.12, series, a 256 MiB DIMM hot-plugged to node 1, 32 MiB pinned there by
# io_uring, the DIMM detached), judged from its record. Full tier: what
# `check` refuses (the detach of an id no attach added, an attach of a size
# the guest cannot online), c9 on 6.1 (the baseline's detach stuck, the
# pinned blocks named; 6.12's rows are tests/conformance.sh's), and a
# virtio-mem device hot-added, resized with a pin held and its unplug refused
# (scenarios/other/vmem-hotadd.yaml's xfail), on the lab's 6.12 and on
# Debian's 6.12 cloud kernel.

plan 12 full 34

# vmem_trial LABEL [RUN-ARGS...]: scenarios/other/vmem-hotadd.yaml on one kernel, 7 checks.
vmem_trial() {
	local label=$1 r
	shift
	echo "# vmem (full, $label): a virtio-mem device hot-added, resized with a pin held, its unplug refused"
	lab_run -o "$work/vmem-$label" "$@" scenarios/other/vmem-hotadd.yaml >"$work/vmem-$label.out" 2>&1
	r=$work/vmem-$label/trials.jsonl
	ok "vmem, $label: the trial is xfail: the detach refused as the scenario declares" \
		jq -e '.verdict == "xfail" and (.reason | test("virtio-mem"))' "$r"
	ok "vmem, $label: the attach plugged its 512 MiB request: MemTotal grew by it" \
		jq -e "[.steps[] | select(.step == \"vmem\")][0].elastic | .ok and .plugged_bytes == $((512 << 20)) and
			.memtotal_after_bytes - .memtotal_before_bytes == $((512 << 20))" "$r"
	ok "vmem, $label: the resizes of the hot-added device reached their requests with the io_uring pin held (up to 768 MiB, down to 128 MiB)" \
		jq -e '[.steps[] | select(.step == "resize")] | length == 2 and all(.converged) and .[0].reached_bytes == 805306368 and .[1].reached_bytes == 134217728' "$r"
	ok "vmem, $label: the shrink's host side is the hot-added device's own backend: the 384 MiB filled and freed came back (at least 90 % of what had to)" \
		jq -e '[.steps[] | select(.step == "resize")][1].host | .measured_by == "backend" and
			.backend_before_bytes - .backend_after_bytes >= 256 * 1048576 and .reclaimed_of_reclaimable >= 0.9' "$r"
	ok "vmem, $label: the pin's data intact after the resizes, outside ZONE_MOVABLE" \
		jq -e '[.steps[] | select(.step == "check")][0].workload | .pattern_ok and .census.by_zone.Movable == 0' "$r"
	ok "vmem, $label: the detach's refusal is recorded with QEMU's message (elastic.refused), the guest still there after it" \
		jq -e '[.steps[] | select(.step == "vmem")][1].elastic | (.ok | not) and (.refused | length > 0)' "$r"
	ok "vmem, $label: no QEMU of the run left" no_qemu
}

echo "# dimm: a 256 MiB DIMM attached to node 1, 32 MiB pinned by io_uring, detached (6.12, series)"
lab_run -o "$work/dimm" scenarios/other/dimm.yaml >"$work/dimm.out" 2>&1
[ $? = 0 ] || tail -n 5 "$work/dimm.out" | sed 's/^/#   /'
r=$work/dimm/trials.jsonl
# dimm_el ACTION: the elastic object of the trial's dimm step of that action, as jq's $e.
dimm_el() { echo "[.steps[] | select(.step == \"dimm\" and .elastic.action == \"$1\")][0] as \$s | \$s.elastic as \$e"; }
ok "dimm: the trial passed" jq -e '.verdict == "pass"' "$r"
ok "dimm: the attach is ok, alias ua-dimm-d in a slot at a base address, and the guest's MemTotal grew by the DIMM's 256 MiB" \
	jq -e "$(dimm_el attach) | \$e.mechanism == \"dimm\" and \$e.ok and \$e.alias == \"ua-dimm-d\" and \$e.slot >= 0 and
		\$e.base_address > 0 and \$e.requested_bytes == $((256 << 20)) and
		\$e.memtotal_after_bytes - \$e.memtotal_before_bytes == $((256 << 20))" "$r"
ok "dimm: the pin landed in the DIMM (ZONE_MOVABLE on node 1) before the pin, and the series migrated it out" \
	jq -e '[.steps[] | select(.step == "pin")][0].workload | .census_before.by_zone.Movable == 8192 and .census_after.by_zone.Movable == 0' "$r"
ok "dimm: the detach completed: DEVICE_REMOVED within its deadline, MemTotal back where it was before the attach" \
	jq -e "$(dimm_el attach) | \$e.memtotal_before_bytes as \$m0 | $(dimm_el detach) |
		\$e.ok and \$e.removed and (\$e.removal_failed | not) and \$e.seconds < \$e.deadline_s and
		\$e.requested_bytes == -$((256 << 20)) and \$e.memtotal_after_bytes == \$m0 and (\$e | has(\"pinned_blocks\") | not)" "$r"
ok "dimm: the host got the DIMM's backend back: it held at least the 32 MiB the pin touched, and is unmapped after (host.reclaimed_bytes the same)" \
	jq -e "$(dimm_el detach) | \$e.backend_before_bytes >= $((32 << 20)) and \$e.backend_after_bytes == 0 and
		\$s.host.measured_by == \"backend\" and \$s.host.reclaimed_bytes == \$e.backend_before_bytes" "$r"
ok "dimm: the host samples carry the DIMM's own backend (hot_backend_bytes.d): the before sample's bytes are the detach's backend_before_bytes, the settled after sample's 0" \
	jq -e "$(dimm_el detach) | \$s.host | .settle_s > 0 and .settle_s < 10 and
		.before.hot_backend_bytes.d == \$e.backend_before_bytes and .after.hot_backend_bytes.d == 0" "$r"
ok "dimm: the check after the detach found the pinned data intact, no page in ZONE_MOVABLE" \
	jq -e '[.steps[] | select(.step == "check")][0].workload | .pattern_ok == true and .census.by_zone.Movable == 0' "$r"
ok "dimm: no QEMU of the run left" no_qemu
ok "dimm: every field of the record is in docs/record.md (the dimm steps' elastic among them)" \
	python3 tests/record-fields.py docs/record.md "$r"

# After a save/restore the DIMM's backend is a mapping of the new QEMU's: it
# was measured against QEMU's whole RSS (issue 52, item 5: "host back 2.8 MiB
# (1 % of asked)", backend_before_bytes null); it is found again now.
echo "# dimm: the same DIMM and pin, the guest saved and restored before the detach (scenarios/lifecycle/save-dimm.yaml)"
lab_run -o "$work/sdimm" scenarios/lifecycle/save-dimm.yaml >"$work/sdimm.out" 2>&1
[ $? = 0 ] || tail -n 5 "$work/sdimm.out" | sed 's/^/#   /'
r=$work/sdimm/trials.jsonl
ok "save-dimm: the trial passed: saved and restored with the DIMM attached and the pin held, the detach after it completed" \
	jq -e "(.verdict == \"pass\") and ([.steps[] | select(.step == \"save\")][0].ok) and ($(dimm_el detach) | \$e.ok and \$e.removed)" "$r"
ok "save-dimm: the detach after the restore is measured against the DIMM's own backend in the new QEMU (measured_by backend, hot_backend_bytes.d), not QEMU's RSS" \
	jq -e "$(dimm_el detach) | \$s.host.measured_by == \"backend\" and \$s.host.before.hot_backend_bytes.d == \$e.backend_before_bytes and
		\$s.host.after.hot_backend_bytes.d == 0" "$r"
ok "save-dimm: the host got the DIMM's backing back: at least the 32 MiB the pin touched, all of what it held (reclaimed_bytes = backend_before_bytes)" \
	jq -e "$(dimm_el detach) | \$e.backend_before_bytes >= $((32 << 20)) and \$e.backend_after_bytes == 0 and
		\$s.host.reclaimed_bytes == \$e.backend_before_bytes" "$r"

if full; then
	echo "# dimm (full): what check refuses"
	cat >"$work/dimm-bad.yaml" <<'YAML'
name: dimm-bad
nodes:
  - {memory: 256MiB, cpus: 1}
  - {memory: 128MiB, cpus: 1}
steps:
  - dimm: {id: d, node: 1, size: 256MiB, action: attach}
  - dimm: {id: e, action: detach}
YAML
	expect_fail "check: the detach of a DIMM no attach added is refused at its line" 1 \
		"dimm-bad.yaml:7:5: dimm: detach of 'e', which no dimm step attached before it" lab check "$work/dimm-bad.yaml"
	sed -i 's/size: 256MiB, action: attach/size: 100MiB, action: attach/; s/id: e, action/id: d, action/' "$work/dimm-bad.yaml"
	expect_fail "check: a DIMM that is no whole number of 128 MiB memory blocks is refused at its line" 1 \
		"dimm-bad.yaml:6:5: dimm: size 104857600 bytes is no whole number of 128 MiB" lab check "$work/dimm-bad.yaml"
	sed -i 's/size: 100MiB, action: attach/size: 256MiB, action: attach/; s/id: d, action: detach/id: d, node: 1, size: 128MiB, action: attach/' "$work/dimm-bad.yaml"
	expect_fail "check: a second attach of one id is refused, naming the first" 1 \
		"dimm-bad.yaml:7:5: dimm: 'd' is already attached \\(at line 6\\)" lab check "$work/dimm-bad.yaml"

	echo "# dimm (full): c9's scenario on 6.1, both policies (6.12's are tests/conformance.sh's full tier)"
	lab_run -o "$work/c9" --only '*kernel=6.1,*' scenarios/conformance/9-dimm-remove-with-pins.yaml >"$work/c9.out" 2>&1
	r=$work/c9/trials.jsonl
	ok "c9, 6.1: 2 trials, both pass (their expects state the claim per policy)" jq -se 'length == 2 and all(.verdict == "pass")' "$r"
	ok "c9, 6.1, baseline: the detach is stuck (no DEVICE_REMOVED in 60 s), the DIMM's blocks listed with state and valid_zones, the ones not offline named" \
		jq -se "map(select(.parameters.policy == \"baseline\")) | length == 1 and all($(dimm_el detach) |
			(\$e.removed | not) and \$e.seconds >= 60 and (\$e.pinned_blocks | length >= 1) and
			(\$e.range_blocks | length == 2 and all(has(\"state\") and has(\"valid_zones\"))) and
			(\$e.pinned_blocks - [\$e.range_blocks[] | select(.state != \"offline\") | .block] == []))" "$r"
	ok "c9, 6.1, baseline: the pins stayed in ZONE_MOVABLE (in the DIMM) with their data intact" \
		jq -se 'map(select(.parameters.policy == "baseline")) | all([.steps[] | select(.step == "check")] | length == 2 and
			all(.workload.pattern_ok and .workload.census.by_zone.Movable == 8192))' "$r"
	ok "c9, 6.1, series: removed, the DIMM's backend unmapped" \
		jq -se "map(select(.parameters.policy == \"series\")) | length == 1 and
			all($(dimm_el detach) | \$e.removed and \$e.backend_after_bytes == 0)" "$r"
	ok "c9: no QEMU of the run left (the stuck guest destroyed)" no_qemu

	# The lab's kernels have PCI hotplug (kernel/config/20-memhp.config);
	# Debian's 6.12 has it too. The same trial on both, 7 checks each.
	vmem_trial lab-6.12
	vmem_trial stock-6.12 --kernel package:linux-image-6.12-cloud-amd64
fi
