# tests/lifecycle-reboot.sh - sourced by tests/run.sh (uses its ok/expect_fail,
# lab_run, $work): the reboot and suspend steps (issue 34, docs/lifecycle.md).
# Fast tier: one guest trial of scenarios/lifecycle/reboot.yaml (6.12,
# series): the host reboots the guest with a pin held and the device half
# plugged; the record shows the re-plug to the request, the pin gone, a pin
# after the reboot migrated out of ZONE_MOVABLE and the unplug to 0 reached,
# two boots in one console log. A check of a pin taken before a reboot is a
# scenario error (no guest). Full tier: a reboot from inside the guest, the
# matrix's other three trials (baseline, 6.1), suspend with a resize asked
# while paused on both kernels.
plan 7 full 13

# The lifecycle object of the reboot step: the device back at its request
# (as before the reboot), the agent back, the pin held before it gone.
reboot_ok='.steps[] | select(.step == "reboot") | .lifecycle |
	.event == "reboot" and .ok == true and .agent_s > 0 and .replug_s >= 0 and .reset_s >= 0 and
	.down_s > 0 and .down_s <= .agent_s and (.plugged_after | length) == 1 and
	(.plugged_after | all(.size_bytes == .requested_bytes and .size_bytes > 0)) and
	.plugged_after == .plugged_before and .pins_lost == ["before"]'

echo "# lifecycle: reboot (host, through the agent) on 6.12 under series, a pin held, half the device plugged"
lab_run -q -o "$work/reboot" --only '*kernel=6.12,policy=series' scenarios/lifecycle/reboot.yaml \
	>"$work/reboot.out" 2>&1
r=$work/reboot/trials.jsonl
[ -s "$r" ] || tail -n 5 "$work/reboot.out" | sed 's/^/#   /'
ok "reboot: pass; lifecycle {event reboot, ok, how host, method agent}; plugged_after == requested == plugged_before; agent_s > 0, replug_s >= 0; the pin held before it in pins_lost" \
	jq -e '.verdict == "pass" and
		(.steps[] | select(.step == "reboot") | .lifecycle | .how == "host" and .method == "agent") and ('"$reboot_ok"')' "$r"
ok "reboot: the pin after it passed its census under series (its 16384 pages pinned, none left in ZONE_MOVABLE), and the unplug to 0 reached its request" \
	jq -e '([.steps[] | select(.step == "pin" and .id == "after")][0] |
			.ok and .workload.census_after.pages == 16384 and .workload.census_after.by_zone.Movable == 0) and
		([.steps[] | select(.step == "resize")][-1] | .converged and .reached_bytes == 0 and .requested_bytes == 0)' "$r"
ok "reboot: the summary counts only the pin held at the last shrink (64 MiB, not the one the reboot took too)" \
	jq -e '.summary.pinned_bytes == 67108864' "$r"
ok "reboot: one console log with two boots (two 'Linux version' lines), the reboot's own lines no finding" \
	sh -c 'console_log=$(jq -r .console_log "$1") && [ "$(grep -c "Linux version" "$console_log")" = 2 ] &&
		jq -e "(.console_findings | length) == 0" "$1" >/dev/null' _ "$r"

echo "# lifecycle: a check of a pin taken before a reboot is a scenario error"
sed -e 's/- check: {id: after}/- check: {id: before}/' scenarios/lifecycle/reboot.yaml >"$work/stale-pin.yaml"
expect_fail "check of a pin taken before a reboot: refused with the step's file:line and the reboot's line" 1 \
	"stale-pin.yaml:[0-9]+:[0-9]+: step 'check' refers to workload 'before', whose holder the reboot at line [0-9]+ ended" \
	$LAB check "$work/stale-pin.yaml"
expect_fail "reboot: how: an unknown way is refused with the known ones" 1 \
	"reboot: how: expected host, guest, not 'sideways'" \
	$LAB check <(sed -e 's/how: host/how: sideways/' scenarios/lifecycle/reboot.yaml)
ok "the same scenario with the pin taken again after the reboot is accepted" $LAB check scenarios/lifecycle/reboot.yaml

if full; then
echo "# lifecycle: reboot from inside the guest (reboot -f) on 6.12 under series"
sed -e 's/how: host/how: guest/' scenarios/lifecycle/reboot.yaml >"$work/reboot-guest.yaml"
lab_run -q -o "$work/guest" --only '*kernel=6.12,policy=series' "$work/reboot-guest.yaml" >"$work/guest.out" 2>&1
r=$work/guest/trials.jsonl
ok "guest reboot: pass; lifecycle how guest, method 'reboot -f', the device back at its request, the pin gone" \
	jq -e '.verdict == "pass" and (.steps[] | select(.step == "reboot") | .lifecycle | .how == "guest" and .method == "reboot -f") and ('"$reboot_ok"')' "$r"

echo "# lifecycle: the reboot matrix's other trials (6.12 baseline, 6.1 series and baseline)"
lab_run -q -o "$work/m61" --only '*kernel=6.1,*' scenarios/lifecycle/reboot.yaml >"$work/m61.out" 2>&1
lab_run -q -o "$work/m612" --only '*kernel=6.12,policy=baseline' scenarios/lifecycle/reboot.yaml >"$work/m612.out" 2>&1
r=$work/matrix.jsonl
cat "$work/m61/trials.jsonl" "$work/m612/trials.jsonl" >"$r" 2>/dev/null
ok "reboot matrix: 3 trials pass, each re-plugged to its request" \
	jq -se 'length == 3 and all(.[]; .verdict == "pass" and ('"$reboot_ok"'))' "$r"
ok "reboot matrix: under baseline the pin after the reboot stays in ZONE_MOVABLE (all 16384 pages) and the unplug to 0 stops short at it (>= 64 MiB left)" \
	jq -se '[.[] | select(.trial | endswith("baseline"))] | length == 2 and
		all(.[]; ([.steps[] | select(.step == "pin" and .id == "after")][0].workload.census_after.by_zone.Movable == 16384) and
			([.steps[] | select(.step == "resize")][-1] | .converged == false and .reached_bytes >= 67108864))' "$r"
ok "reboot matrix: 6.1 under series: the unplug to 0 reached" \
	jq -se '[.[] | select(.trial == "lifecycle-reboot:kernel=6.1,policy=series")] | length == 1 and
		([.[0].steps[] | select(.step == "resize")][-1] | .converged and .reached_bytes == 0)' "$r"

echo "# lifecycle: suspend with a resize asked while paused, both kernels"
lab_run -q -o "$work/suspend" scenarios/lifecycle/suspend-resize.yaml >"$work/suspend.out" 2>&1
r=$work/suspend/trials.jsonl
ok "suspend: 2 trials pass; libvirt accepted each request while paused, nothing moved while paused" \
	jq -se 'length == 2 and all(.[]; .verdict == "pass" and
		([.steps[] | select(.step == "suspend") | .lifecycle] | length == 2 and all(.[];
			.ok and .resize_while_paused.accepted and .down_s > 0 and
			(.plugged_paused | map(.size_bytes)) == (.plugged_before | map(.size_bytes)) and
			.plugged_paused[0].requested_bytes == .resize_while_paused.requested_bytes)))' "$r"
ok "suspend: after each resume the device converged to what was asked while paused (256 MiB, then 512 MiB)" \
	jq -se 'all(.[]; [.steps[] | select(.step == "suspend") | .lifecycle |
		(.plugged_after[0] | .size_bytes == .requested_bytes) and .converged_after_s >= 0 and
		.plugged_after[0].size_bytes == .resize_while_paused.requested_bytes] == [true, true])' "$r"
fi
