# tests/integration.sh - the real guest: the demo scenario's record checked
# field by field (the demo fixture), the seed series' A/B on both kernels,
# two holders, gup_test's not-pinnable count, a user's own kernel, SIGTERM
# mid-trial and a guest that panics at boot.
plan 57 full 82
art612=$(art 6.12)

echo "# integration: the demo scenario on the real guest (TCG unless KVM really boots)"
demo_fx=$(fixture demo)
rec=$demo_fx/run/trials.jsonl
rc=$(cat "$demo_fx/rc")
lab_pids="$lab_pids $(cat "$demo_fx/pid")"
sed 's/^/#   /' "$demo_fx/out"
j() { jq -e "$1" "$rec" >/dev/null; }
ok "demo run exits 0" test "$rc" = 0
ok "one record in trials.jsonl" test "$(wc -l <"$rec" 2>/dev/null)" = 1
ok "verdict is pass" j '.verdict == "pass"'
ok "the pin succeeded: 256 MiB pinned" j '.steps[0].ok and .steps[0].workload.bytes_pinned == 268435456'
ok "before the pin the buffer was in ZONE_MOVABLE (all 65536 pages)" j '.summary.pinned_pages_movable_before == 65536'
ok "no pinned page is left in ZONE_MOVABLE" j '.steps[0].workload.census_after.by_zone.Movable == 0'
ok "the plugged size reached 0 before the deadline" j '.steps[1].converged and .steps[1].reached_bytes == 0 and .steps[1].seconds_to_converge < .steps[1].deadline_s'
ok "the timeline shows the request and the plugged size reaching 0" \
	j '[.timeline[] | select(.source == "request")] as $r | ($r | length) == 1 and $r[0].requested_bytes == 0
	   and ([.timeline[] | select(.t > $r[0].t and .size_bytes == 0)] | length) >= 1'
ok "timeline's last plugged size is 0" j '[.timeline[] | select(.size_bytes != null)] | last | .size_bytes == 0'
ok "pattern intact after the unplug" j '.steps[2].workload.pattern_ok and .steps[2].workload.pages_moved_since_pin == 0'
ok "pattern intact at release, pin released" j '.steps[3].workload.pattern_ok and .steps[3].workload.released'
ok "record holds the harness version, as --version prints it" \
	sh -c '[ "memhp-lab $(jq -r .harness_version "$1")" = "$("$2" --version)" ]' _ "$rec" "$LAB"
ok "record holds kernel identity" j '.kernel.source_package == "linux-source-6.12" and (.kernel.series_hash | length) == 16'
ok "record holds guest counters before and after" j '.guest_before.vmstat.nr_foll_pin_acquired >= 0 and .guest_after.vmstat.nr_foll_pin_acquired > .guest_before.vmstat.nr_foll_pin_acquired'
ok "pins balanced after release (nr_foll_pin acquired == released)" j "$balanced"
ok "vmstat counts the pages the pin found unpinnable (65536)" j '.guest_after.vmstat.gup_longterm_unpinnable - .guest_before.vmstat.gup_longterm_unpinnable == 65536'
ok "vmstat counts 65536 pages migrated for the pin, none failed" j '(.guest_after.vmstat.gup_longterm_migrate_success == 65536) and (.guest_after.vmstat.gup_longterm_migrate_fail == 0)'
ok "vmstat: the pin retried after migrating and did not fail" j '(.guest_after.vmstat.gup_longterm_retry >= 1) and (.guest_after.vmstat.gup_longterm_pin_fail == 0)'
ok "console clean" console_clean "$rec"
ok "no QEMU process remains" no_qemu

# A/B of the seed series on one kernel: the same pin, then a full unplug, under
# pin_policy series and baseline (the series' pin-in-place test switch).
# The fast tier: the series on 6.12 and 6.1 (both kernels boot; baseline's
# pin in place and short unplug are conformance c3 and c8's baseline rows);
# the full tier adds baseline on both, and 6.1's two holders.
for k in 6.12 6.1; do
	for pol in series baseline; do
		[ $pol = baseline ] && ! full && continue
		echo "# integration: kernel $k, pin_policy $pol (scenarios/pin-policy-ab.yaml)"
		out=$work/ab-$k-$pol
		lab_run -o "$out" --kernel $k --pin-policy $pol scenarios/pin-policy-ab.yaml >"$out.out" 2>&1
		rc=$?
		r=$out/trials.jsonl
		ok "$k $pol: exit 0, verdict pass" sh -c '[ "$1" = 0 ] && jq -e ".verdict == \"pass\"" "$2"' _ "$rc" "$r"
		[ "$rc" = 0 ] || sed 's/^/#   /' "$out.out" | tail -n 5
		ok "$k $pol: record names kernel $k and policy $pol, switch read back" \
			jq -e --arg k "$k" --arg p "$pol" '(.kernel.source_package == "linux-source-" + $k) and .pin_policy == $p and .pin_in_place_switch == (if $p == "baseline" then "on" else "off" end)' "$r"
		ok "$k $pol: the 256 MiB pin succeeded from ZONE_MOVABLE (65536 pages there before)" \
			jq -e '.steps[0].workload.bytes_pinned == 268435456 and .steps[0].workload.census_before.by_zone.Movable == 65536' "$r"
		if [ $pol = series ]; then
			ok "$k series: no pinned page left in ZONE_MOVABLE" jq -e '.steps[0].workload.census_after.by_zone.Movable == 0' "$r"
			ok "$k series: gup_longterm_migrate_success rose by 65536, pinned_in_place by 0" \
				jq -e '(.guest_after.vmstat.gup_longterm_migrate_success - .guest_before.vmstat.gup_longterm_migrate_success) == 65536 and (.guest_after.vmstat.gup_longterm_pinned_in_place - .guest_before.vmstat.gup_longterm_pinned_in_place) == 0' "$r"
			ok "$k series: the unplug reached 0" jq -e '.steps[3].converged and .steps[3].reached_bytes == 0' "$r"
		else
			ok "$k baseline: all 65536 pinned pages stayed in ZONE_MOVABLE" jq -e '.steps[0].workload.census_after.by_zone.Movable == 65536' "$r"
			ok "$k baseline: gup_longterm_pinned_in_place rose by 65536, nothing migrated" \
				jq -e '(.guest_after.vmstat.gup_longterm_pinned_in_place - .guest_before.vmstat.gup_longterm_pinned_in_place) == 65536 and (.guest_after.vmstat.gup_longterm_migrate_success - .guest_before.vmstat.gup_longterm_migrate_success) == 0 and (.guest_after.vmstat.gup_longterm_unpinnable - .guest_before.vmstat.gup_longterm_unpinnable) == 0' "$r"
			ok "$k baseline: the unplug stopped short, at least the 256 MiB pinned still plugged" \
				jq -e '(.steps[3].converged | not) and .steps[3].reached_bytes >= 268435456 and .steps[5].checks[0].ok' "$r"
		fi
		ok "$k $pol: pattern intact after the unplug and at release" \
			jq -e '.steps[6].workload.pattern_ok and .steps[7].workload.pattern_ok and .steps[7].workload.released' "$r"
		ok "$k $pol: pins balanced after release" jq -e "$balanced" "$r"
		ok "$k $pol: console clean" console_clean "$r"
	done

	[ $k = 6.1 ] && ! full && continue
	echo "# integration: kernel $k, two gup_test holders at once (scenarios/two-holders.yaml)"
	out=$work/two-$k
	lab_run -o "$out" --kernel $k scenarios/two-holders.yaml >"$out.out" 2>&1
	r=$out/trials.jsonl
	ok "$k: both holders pinned (128 MiB and 64 MiB), verdict pass" \
		jq -e '.verdict == "pass" and .steps[0].workload.bytes_pinned == 134217728 and .steps[1].workload.bytes_pinned == 67108864' "$r"
	ok "$k: after releasing the first, the second still holds its 16384 pages" \
		jq -e '.steps[4].workload.released and (.steps[6].guest.vmstat.nr_foll_pin_acquired - .steps[6].guest.vmstat.nr_foll_pin_released) == 16384 and .steps[5].workload.pattern_ok' "$r"
	ok "$k: both released, pins balanced" \
		jq -e ".steps[7].workload.released and $balanced" "$r"
done
ok "no QEMU process remains after the kernel matrix" no_qemu

echo "# gup_test's count of pinned pages that are not pinnable (patch 0004), from the pin benchmark"
bench_kvers=6.12
full && bench_kvers="6.12 6.1"
for k in $bench_kvers; do
	for pol in series baseline; do
		out=$work/bench-$k-$pol
		lab run -o "$out" --kernel $k --pin-policy $pol scenarios/bench-pin.yaml >"$out.out" 2>&1
		r=$out/trials.jsonl
		want=$([ $pol = baseline ] && echo 16384 || echo 0)
		ok "$k $pol: 10 benchmark pins of 64 MiB from ZONE_MOVABLE, nr_not_pinnable $want each" \
			jq -e --argjson w "$want" '.verdict == "pass" and ([.steps[0].workload.runs[] | select(.movable_before == 16384 and .not_pinnable == $w)] | length) == 10' "$r"
		ok "$k $pol: pins of already pinnable pages report 0 not pinnable" \
			jq -e '.steps[1].workload.not_pinnable_total == 0 and .steps[1].workload.get_us_median > 0' "$r"
	done
done

echo "# a user's own kernel (kernel: {bzimage, config}) is checked before anything boots"
config_lacking "$art612/config" "$work/config.missing"
printf 'name: own\nkernel: {bzimage: %s/bzImage, config: %s}\nnodes:\n  - memory: 1G\nsteps:\n  - snapshot:\n' \
	"$art612" "$work/config.missing" >"$work/own.yaml"
expect_fail "prebuilt kernel lacking options: refused, naming them and its config (GUP_TEST is a capability: not named)" 2 \
	"kernel config '$work/config.missing' lacks option\(s\) the lab needs: CONFIG_VIRTIO_MEM \(list" \
	$LAB run -o "$work/own" "$work/own.yaml"
grep -v '^CONFIG_GUP_LONGTERM_PIN_IN_PLACE=y' "$art612/config" >"$work/config.noswitch"
sed -e "s|config: [^}]*}|config: $work/config.noswitch}|" "$work/own.yaml" >"$work/own2.yaml"
expect_fail "baseline on a kernel without the switch: refused, naming CONFIG_GUP_LONGTERM_PIN_IN_PLACE" 2 \
	'under pin_policy baseline: CONFIG_GUP_LONGTERM_PIN_IN_PLACE' $LAB run -o "$work/own2" --pin-policy baseline "$work/own2.yaml"
sed -e "s|config: [^}]*}|config: $art612/config}|" "$work/own.yaml" >"$work/own3.yaml"
lab run -o "$work/own3" "$work/own3.yaml" >"$work/own3.out" 2>&1
ok "a prebuilt kernel with a complete config boots; the record says prebuilt" \
	jq -e '.verdict == "pass" and .kernel.source_package == "prebuilt" and (.kernel.config_sha256 | length) == 16' "$work/own3/trials.jsonl"

echo "# integration: SIGTERM mid-trial destroys the guest and records 'interrupted'"
lab_bg run -o "$work/int" scenarios/demo.yaml >"$work/int.out" 2>&1
lab_pids="$lab_pids $lab_pid"
for _ in $(seq 1 600); do grep -q 'step 1/' "$work/int.out" 2>/dev/null && break; sleep 0.1; done
kill -TERM $lab_pid
lab_wait
rc=$?
ok "interrupted run exits 5 (interrupted: neither the kernel nor the lab failed)" test "$rc" = 5
ok "interrupted trial is recorded" jq -e '.verdict == "interrupted"' "$work/int/trials.jsonl"
ok "the interrupted run's report shows it interrupted" grep -q "^not ok 1 demo # ERROR interrupted" "$work/int/report/results.ktap"
ok "no QEMU process outlives the interrupted run" no_qemu

echo "# integration: a guest that panics at boot is an error naming the console log"
# No init from the image (rdinit=) and none from a root filesystem (init=):
# "Requested init /nonexistent failed" panics. rdinit= alone no longer does:
# the lab kernel has no block layer, so no root device to fail to mount,
# and the kernel runs the image's /bin/init (busybox) instead.
sed -e 's/^name: demo/name: panic/' -e 's/^kernel: "6.12"/kernel: "6.12"\ncmdline: "rdinit=\/nonexistent init=\/nonexistent"/' \
	scenarios/demo.yaml >"$work/panic.yaml"
lab_run -o "$work/panic" --agent-timeout 60 "$work/panic.yaml" >"$work/panic.out" 2>&1
rc=$?
prec=$work/panic/trials.jsonl
ok "panicking guest: exit 1 (the kernel failed), the record's error_source guest" sh -c '[ "$1" = 1 ] && jq -e ".error_source == \"guest\"" "$2" >/dev/null' _ "$rc" "$prec"
ok "panicking guest: verdict error, reason names the console log" \
	jq -e '(.verdict == "error") and (.reason | test("(stopped.*console: |Kernel panic.*\\().*panic.console.log"))' "$prec"
ok "panicking guest: the panic is a console finding" jq -e '[.console_findings[].kind] | index("panic") != null' "$prec"
ok "panicking guest: no QEMU process remains" no_qemu

# The parts, in the order of $parts: each is checked with bash -n before it is
