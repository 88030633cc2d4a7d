# tests/soak.sh - sourced by tests/run.sh (uses its ok/expect_fail, $LAB,
# $work): a short soak with a fixed seed (the schedule followed, checkpoints
# complete and ordered, pin counters balanced), a soak killed with SIGKILL
# and resumed (no checkpoint lost or duplicated), a soak that must report a
# finding, the leak detector (an injected io_uring leak flagged naming its
# slab cache, the same soak without it not flagged), and bad input
# (docs/soak.md).

# Checkpoints of $1 are cycles 1..N in order, each complete, times increasing.
plan 25 full 34
soak_checkpoints_ok() {
	jq -se 'length > 0 and ([.[].cycle] == [range(1; length + 1)])
	  and all(.[]; has("segment") and has("schedule") and has("outcome") and has("t") and has("elapsed_s")
	          and (.findings | type) == "array"
	          and (.counters | has("nr_foll_pin_acquired") and has("nr_foll_pin_released") and has("free_bytes")
	               and has("slab_bytes") and has("orchestrator_rss_kib") and .slab_bytes > 0))
	  and ([.[].t] as $t | [range(1; $t | length)] | all(.[]; $t[.] > $t[. - 1]))
	  and ([.[].segment] as $s | [range(1; $s | length)] | all(.[]; $s[.] >= $s[. - 1]))' "$1"
}
# The checkpoints' schedules are what --print-schedule says for the same seed.
soak_schedule_followed() {	# DIR SEED
	local n; n=$(wc -l <"$1/checkpoints.jsonl")
	$LAB soak --print-schedule --seed "$2" --cycles "$n" scenarios/soak.yaml >"$work/sched.json" &&
		jq -se --slurpfile want "$work/sched.json" '[.[].schedule] == $want[0]' "$1/checkpoints.jsonl"
}

# 40 s in the fast tier, 100 s in the full one; at least 4 (10) cycles.
soak_s=40 soak_min=3
full && soak_s=100 soak_min=10
echo "# soak: $soak_s s with seed 42 on one guest"
lab soak -q --duration ${soak_s}s --seed 42 -o "$work/soak" scenarios/soak.yaml >"$work/soak.out" 2>&1
rc=$?
c=$work/soak/checkpoints.jsonl
ok "soak: exit 0, no finding, its record in trials.jsonl passes" \
	sh -c "test $rc = 0 && jq -e '.verdict == \"pass\" and .summary.findings == 0 and .summary.cycles > $soak_min' '$work/soak/trials.jsonl'"
ok "soak: checkpoints complete and ordered (cycles 1..N, every field, times increasing)" soak_checkpoints_ok "$c"
ok "soak: the schedule was followed (every checkpoint's schedule is seed 42's)" soak_schedule_followed "$work/soak" 42
ok "soak: every unplug reached the scheduled size and every replug the full size" \
	jq -se 'all(.[]; .outcome.converged and .outcome.reached_bytes == .schedule.requested_bytes and .outcome.replugged_bytes == .schedule.full_bytes and .outcome.pin_ok)' "$c"
ok "soak: FOLL_PIN counters balance at the end (pins were taken: acquired > 0)" \
	jq -se 'last.counters | .nr_foll_pin_acquired > 0 and .nr_foll_pin_acquired == .nr_foll_pin_released' "$c"
ok "soak: it ran for its duration, not longer than one cycle past it" \
	jq -se --argjson s "$soak_s" 'last.elapsed_s >= $s and (last.t < $s)' "$c"
ok "soak: JUnit and KTAP reports carry the soak" \
	sh -c "grep -q 'soak:soak:seed=42' '$work/soak/report/junit.xml' && grep -q '^ok 1 soak:soak:seed=42' '$work/soak/report/results.ktap'"
# What a scheduled-soak user opens first (issue 32, item 25): the soak itself.
ok "soak index.html shows the soak: its cycles and findings as the record says, the trend table (or that no series had points enough: 40 s), the segment's console log; no empty trial notes, no 'host – (–)', duration_s=$soak_s" \
	sh -c 'i=$1/report/index.html; n=$(jq .summary.cycles "$1/trials.jsonl") &&
		grep -q "<p class=soak><b>$n cycle(s)</b> in 1 segment(s) over .*, <b>0 finding(s)</b>.</p>" "$i" &&
		if [ "$(jq ".soak.trends | length" "$1/trials.jsonl")" -gt 0 ]; then
			grep -q "<table class=trends>" "$i" && grep -q "<td>slab_unreclaimable_bytes</td>" "$i"
		else
			grep -q "<p class=note>No series had enough points for a trend.</p>" "$i"
		fi &&
		grep -q "serial console logs: <a href=.\.\./soak-segment0\.console\.log.>segment 0</a>" "$i" &&
		! grep -q "No step ran\|No plugged-size timeline\|not found (not recorded)\|host – (–)" "$i" &&
		grep -q "<td>seed=42, duration_s=$2</td>" "$i"' _ "$work/soak" "$soak_s"
soak_flat_axes() {	# DIR: each of vmalloc and percpu that stayed flat is plotted with ticks of at most 2 decimals; at least one did
	local flat=0 key title
	for key in vmalloc_bytes:vmalloc "percpu_bytes:per-CPU memory"; do
		jq -se --arg k "${key%%:*}" '[.[].counters[$k]] | unique | length == 1' "$1/checkpoints.jsonl" >/dev/null || continue
		flat=$((flat + 1)) title=${key#*:}
		TITLE="$title" perl -0777 -ne 'my $t = quotemeta($ENV{TITLE});
			my ($f) = m{<figure class=plot data-plot=[^>]*>((?:(?!</figure>).)*?<text[^>]*>$t, MiB over cycles</text>.*?)</figure>}s
				or do { print "no $ENV{TITLE} plot\n"; exit 1 };
			my @t = $f =~ m{<tspan[^>]*>\s*(-?[0-9.]+)\s*</tspan>}g;
			@t >= 3 or do { print "$ENV{TITLE}: no ticks\n"; exit 1 };
			for (@t) { if (/\.[0-9]{3,}/) { print "$ENV{TITLE}: tick $_\n"; exit 1 } }' "$1/report/soak.html" || return 1
	done
	[ "$flat" -gt 0 ] || { echo "neither vmalloc nor percpu stayed flat"; return 1; }
}
ok "soak.html: a series that stays flat (vmalloc, percpu) is drawn on a sensible axis (1 MiB either side), not on 0.0000003 MiB ticks" \
	soak_flat_axes "$work/soak"

# The kmemleak kernel's soak (full tier: make check-full builds that flavour),
# with the kernel's own leak sample loaded and unloaded each cycle, runs beside
# the next three (a guest on each core); judged below.
if full; then
sed 's/^name: soak-kmemleak$/name: soak-kmemleak-test/; s/^  every: 3$/  every: 3\n  leak: kmemleak-test/' \
	scenarios/soak-kmemleak.yaml >"$work/soak-kmemleak-test.yaml"
(tmo "$run_timeout" $LAB soak -q --cycles 4 --seed 7 -o "$work/soakm" "$work/soak-kmemleak-test.yaml" >"$work/soakm.out" 2>&1
 echo $? >"$work/soakm.rc") &
soakm_job=$!
fi

echo "# soak: SIGKILL mid-soak, then --resume"
lab_bg soak -q --cycles 8 --seed 5 -o "$work/soakr" scenarios/soak.yaml >"$work/soakr.out" 2>&1
spid=$lab_pid
for i in $(seq 240); do
	[ "$(cat "$work/soakr/checkpoints.jsonl" 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.5
done
stale=$(pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=memhp-soak-$spid-")	# its guest, before the kill
kill -9 $spid; wait $lab_job 2>/dev/null
before=$(wc -l <"$work/soakr/checkpoints.jsonl")
ok "resume: the soak killed after 3..7 checkpoints ($before) left them whole (each line parses, cycles 1..$before)" \
	jq -se --argjson n "$before" '$n >= 3 and $n < 8 and length == $n and [.[].cycle] == [range(1; $n + 1)]' "$work/soakr/checkpoints.jsonl"
lab soak -q --resume "$work/soakr" >"$work/soakr2.out" 2>&1
rc=$?
ok "resume: exit 0, 8 cycles in 2 segments" \
	sh -c "test $rc = 0 && jq -e '.summary.cycles == 8 and .summary.segments == 2' '$work/soakr/trials.jsonl'"
ok "resume: no checkpoint lost or duplicated (cycles 1..8 once each, segment 0 then 1)" \
	sh -c "jq -se '[.[].cycle] == [range(1; 9)] and ([.[].segment] | unique) == [0, 1] and (map(select(.segment == 0)) | length) == $before' '$work/soakr/checkpoints.jsonl'"
ok "resume: checkpoints complete and ordered across the kill" soak_checkpoints_ok "$work/soakr/checkpoints.jsonl"
ok "resume: the same schedule before and after the kill (seed 5)" soak_schedule_followed "$work/soakr" 5
soak_qemu_gone() {	# PID...: the QEMU of the killed soak is gone (its guard)
	local p
	[ $# -gt 0 ] || { echo "no QEMU of the soak was running before the kill"; return 1; }
	for p; do ! pid_alive "$p" || { echo "QEMU $p still runs"; return 1; }; done
}
ok "resume: the killed soak's QEMU (running before the kill) is gone" soak_qemu_gone $stale
expect_fail "resume of a finished soak is refused" 2 'is complete \(8 cycles' $LAB soak --resume "$work/soakr"

echo "# soak: a finding (online_kernel, a cycle that unplugs to 0: kernel allocations and the pin stay in ZONE_NORMAL)"
sed 's/^name: soak$/name: soak-kernel\ncmdline: "memhp_default_state=online_kernel"/' scenarios/soak.yaml >"$work/soak-kernel.yaml"
for zseed in $(seq 1 2000); do	# the first seed whose cycle 1 unplugs to 0
	$LAB soak --print-schedule --cycles 1 --seed $zseed scenarios/soak.yaml | jq -e '.[0].requested_bytes == 0' >/dev/null && break
done
lab soak -q --cycles 1 --seed $zseed -o "$work/soakk" "$work/soak-kernel.yaml" >"$work/soakk.out" 2>&1
rc=$?
ok "soak finding: exit 1, the record fails naming the unplug that did not converge" \
	sh -c "test $rc = 1 && jq -e '.verdict == \"fail\" and (.reason | test(\"unplug_not_converged\"))' '$work/soakk/trials.jsonl'"

if full; then
echo "# soak: on the kernel with kmemleak (kernel: {version: 6.12, debug: kmemleak}; make kernel-kmemleak)"
wait "$soakm_job"
rcm=$(cat "$work/soakm.rc" 2>/dev/null || echo lost)
soak_kmemleak_ok() {	# the report's entries are the record's tally; the sample module's site on top; one finding
	local r=$work/soakm/trials.jsonl rep=$work/soakm/kmemleak-segment0.txt n
	[ "$rcm" = 1 ] || { echo "soak exit $rcm (want 1: a finding)"; tail -n 5 "$work/soakm.out"; return 1; }
	[ -f "$rep" ] || { echo "no $rep"; return 1; }
	n=$(grep -c '^unreferenced object 0x' "$rep")
	jq -e --argjson n "$n" '.kernel.flavour == "kmemleak" and .summary.cycles == 4 and .soak.kmemleak.objects == $n and $n >= 40
	  and .soak.kmemleak.report == "kmemleak-segment0.txt" and .soak.kmemleak.sites[0].site == "kmemleak_test_init"
	  and ([.soak.findings[] | select(.kind == "kmemleak" and (.text | test("most from kmemleak_test_init")))] | length) == 1' \
		"$r" >/dev/null || { jq -c '{verdict, flavour: .kernel.flavour, km: .soak.kmemleak}' "$r"; return 1; }
	jq -se 'all(.[]; .outcome.leak_held == .cycle)' "$work/soakm/checkpoints.jsonl" >/dev/null || return 1
	grep -q '<td>kmemleak_test_init</td>' "$work/soakm/report/soak.html" &&
		grep -aq 'kmemleak: Kernel memory leak detector initialized' "$work/soakm"/soak-segment0.console.log
}
ok "kmemleak: 4 cycles on the 6.12 kmemleak kernel, the kernel's kmemleak-test module loaded and unloaded each: exit 1, >= 40 objects, the record's tally is the report's (kmemleak-segment0.txt), one kmemleak finding naming kmemleak_test_init, the soak page's table" \
	soak_kmemleak_ok
fi
mkdir -p "$work/nocache"
expect_fail "kmemleak: a flavour not built yet is refused, naming the make target" 2 \
	"no kernel 6.12 with debug: kmemleak built yet .*run 'make kernel-kmemleak'" \
	env MEMHP_CACHE="$work/nocache" $LAB soak --cycles 1 -o "$work/soakm-none" scenarios/soak-kmemleak.yaml

# The leak detector needs cycles for a trend: full tier.
if full; then
echo "# soak: the leak detector: an io_uring instance kept open per cycle, then the same soak without it"
# scenarios/soak-leak.yaml: caches dropped and slabinfo every 3 cycles, judged after 30 s
sed 's/^name: soak-leak$/name: soak-clean/; s/^  leak: io_uring$/  leak: none/' scenarios/soak-leak.yaml >"$work/soak-clean.yaml"
# Side by side (a guest each, one core each): the detector must work on a loaded host too.
(tmo "$run_timeout" $LAB soak -q --cycles 40 --seed 7 -o "$work/soakl" scenarios/soak-leak.yaml >"$work/soakl.out" 2>&1
 echo $? >"$work/soakl.rc") &
soakl_job=$!
lab soak -q --cycles 40 --seed 7 -o "$work/soakc" "$work/soak-clean.yaml" >"$work/soakc.out" 2>&1
rcc=$?
wait "$soakl_job"
rcl=$(cat "$work/soakl.rc" 2>/dev/null || echo lost)
# The ring's fixed-file table: one kmalloc-8k and two kmalloc-4k objects a
# ring, the same bytes: either is first, kmalloc-8k among the first three.
# A trend finding is made at a checkpoint (checkpoints.jsonl) or by the last
# judgement at the soak's end (the record's soak.findings): one of them, judged alike.
# the trend finding on SUnreclaim, within the 40 cycles, naming kmalloc-8k:
# raised once at a checkpoint, never withdrawn, kept by the final judgement
# (the record's soak.findings); the soak failed on it
soak_leak_flagged() {
	[ "$rcl" = 1 ] || { echo "soak exit $rcl, not 1"; return 1; }
	jq -en --slurpfile cp "$work/soakl/checkpoints.jsonl" --slurpfile rec "$work/soakl/trials.jsonl" '
	  def sunr: map(select(.series == "slab_unreclaimable_bytes"));
	  $rec[0] as $r | ([$cp[].findings[] | select(.kind == "trend")] | sunr) as $raised
	  | ([$r.soak.findings[] | select(.kind == "trend")] | sunr) as $kept
	  | ([$cp[].findings[] | select(.kind == "trend_withdrawn")] | sunr | length) == 0
	  and ($raised | length) == 1 and ($kept | length) == 1 and ($r.soak.trend_events | sunr | length) == 1
	  and all(($raised + $kept)[]; .cycle <= 40 and (.caches[0].name | IN("kmalloc-8k", "kmalloc-4k"))
	       and ([.caches[0:3][].name] | index("kmalloc-8k")) != null and (.text | test("kmalloc-8k \\+[0-9]+ objects")))
	  and $r.verdict == "fail" and $r.summary.findings >= 1 and $r.summary.cycles == 40'
}
ok "leak: the injected leak fails the soak: one trend finding on unreclaimable slab within 40 cycles naming kmalloc-8k (the fixed-file table)" \
	soak_leak_flagged
# slabinfo's active objects move by whole slabs (4 objects of 8 KiB, 8 of 4 KiB): 15 rings show as 12..16
ok "leak: the keeper held one more io_uring each cycle (leak_held == cycle); the record's slab table has kmalloc-8k and kmalloc-4k grown by >= 8 and >= 16 (15 rings)" \
	sh -c "jq -se 'all(.[]; .outcome.leak_held == .cycle)' '$work/soakl/checkpoints.jsonl' &&
	       jq -e '[.soak.slab_growth[] | select((.name == \"kmalloc-8k\" and .objects >= 8) or (.name == \"kmalloc-4k\" and .objects >= 16))] | length == 2' '$work/soakl/trials.jsonl'"
ok "leak: the same soak without the leak: exit 0, no finding, SUnreclaim judged and not over its budget, kmalloc-8k not grown by 3" \
	sh -c "test $rcc = 0 && jq -e '.verdict == \"pass\" and .summary.findings == 0
	  and (.soak.trends[] | select(.series == \"slab_unreclaimable_bytes\") | .judged and (.over_budget | not))
	  and ([.soak.slab_growth[] | select(.name == \"kmalloc-8k\" and .objects >= 3)] | length == 0)' '$work/soakc/trials.jsonl'"
ok "leak: checkpoints carry the kernel's memory, online blocks vs plugged, QEMU's RSS, the run dir; cycle 1 and every 3rd dropped the caches and took slabinfo" \
	jq -se 'all(.[]; .counters | has("slab_unreclaimable_bytes") and has("slab_reclaimable_bytes") and has("vmalloc_bytes")
	          and has("page_tables_bytes") and has("percpu_bytes") and has("kernel_stack_bytes") and has("hugetlb_bytes")
	          and has("online_blocks") and has("plugged_bytes") and has("online_gap_bytes") and .qemu_rss_bytes > 0 and .run_dir_bytes > 0)
	  and all(.[]; ((.cycle == 1 or .cycle % 3 == 0) == (.dropped == true)) and (.dropped != true or (.slabinfo | length) > 50))' \
	"$work/soakc/checkpoints.jsonl"
ok "leak: the report's soak page plots the series with their fitted lines, the finding and the slab table; index.html links it" \
	sh -c "test \$(grep -c '<svg' '$work/soakl/report/soak.html') -ge 5 && grep -q 'least squares: ' '$work/soakl/report/soak.html' &&
	       grep -q '<td>kmalloc-8k</td>' '$work/soakl/report/soak.html' && grep -q 'Trend findings' '$work/soakl/report/soak.html' &&
	       grep -q \"href='soak.html'\" '$work/soakl/report/index.html'"

fi

if full; then
echo "# soak: memory_backing hugepages: a soak boots as a trial does, the host's pool grown for its guest (issue 33 item 5)"
# scenarios/soak.yaml on 2 MiB hugepages: the guest maps 512 + 64 + 512 + 64 + 256 MiB at most = 704 pages
sed 's/^name: soak$/name: soak-hugepages\nmemory_backing: {source: hugepages}/' scenarios/soak.yaml >"$work/soak-huge.yaml"
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
hp_before=$(cat "$hp/nr_hugepages")
lab_bg soak -q --cycles 3 --seed 7 -o "$work/soakh" "$work/soak-huge.yaml"
hp_seen=0
while kill -0 "$lab_pid" 2>/dev/null; do	# the pool while the guest runs: grown, and some of it mapped
	[ "$(cat "$hp/nr_hugepages")" = $((hp_before + 704)) ] && [ "$(cat "$hp/free_hugepages")" -lt $((hp_before + 704)) ] && hp_seen=1
	sleep 0.2
done
lab_wait
hp_rc=$?
ok "hugepages: the soak passes, its record's host says memory_backing hugepages, 2 MiB pages, pool_added_pages 704; while its guest ran the pool had grown by 704 pages, some mapped; after it, the pool as before" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 1 ] && [ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" = "$3" ] &&
		jq -e ".verdict == \"pass\" and .summary.cycles == 3 and (.host | .memory_backing == \"hugepages\" and .hugepage_bytes == 2097152 and .pool_added_pages == 704)" "$4" >/dev/null' \
	_ "$hp_rc" "$hp_seen" "$hp_before" "$work/soakh/trials.jsonl"
fi

# The orchestrator under LeakSanitizer (full tier: make check-full builds
# build/asan/memhp-lab): a short soak and a -j 2 run must pass and leave
# nothing of ours unfreed at exit. tests/lsan.supp names what libvirt keeps
# that is not ours; its frames need the full unwinder.
if full; then
echo "# soak: the orchestrator under LeakSanitizer (build/asan/memhp-lab, tests/lsan.supp)"
# quarantine_size_mb=8: ASan keeps freed memory in a quarantine (256 MiB by
# default), which the soak's own RSS detector (orchestrator_memory: RSS over
# twice the first checkpoint's) read as growth: 115 -> 250 MiB by cycle 5 on
# a loaded machine; with 8 MiB the RSS is what is live (76 MiB, flat).
asan_env=(env ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:quarantine_size_mb=8 LSAN_OPTIONS=suppressions=$top/tests/lsan.supp)
asan_clean() {	# RC ERR: an ASan binary's exit 0, and no LeakSanitizer (or AddressSanitizer) report in ERR
	nm $B/asan/memhp-lab | grep -q ' __lsan_do_leak_check$' || { echo "$B/asan/memhp-lab has no LeakSanitizer"; return 1; }
	no_lines '' -A 12 -E 'ERROR: (LeakSanitizer|AddressSanitizer)' "$2" || return 1	# a missing ERR fails too
	[ "$1" = 0 ] || { echo "exit $1"; tail -n 5 "$2"; return 1; }
}
asan_soak_ok() {	# RC: the soak passed its 12 cycles and LSan found nothing
	asan_clean "$1" "$work/soak-asan.err" &&
		jq -e '.verdict == "pass" and .summary.cycles == 12' "$work/soak-asan/trials.jsonl"
}
asan_run_ok() {	# RC: both trials passed and LSan found nothing
	asan_clean "$1" "$work/run-asan.err" &&
		jq -se 'length == 2 and all(.[]; .verdict == "pass")' "$work/run-asan/trials.jsonl"
}
timed "$run_timeout" "${asan_env[@]}" $B/asan/memhp-lab soak -q --cycles 12 --seed 7 -o "$work/soak-asan" \
	scenarios/soak.yaml >"$work/soak-asan.out" 2>"$work/soak-asan.err"
ok "LSan: a 12-cycle soak under build/asan/memhp-lab passes (exit 0, its record passes) and leaks nothing of ours at exit" \
	asan_soak_ok $?
timed "$run_timeout" "${asan_env[@]}" $B/asan/memhp-lab run -q -j 2 -o "$work/run-asan" \
	scenarios/demo.yaml scenarios/two-holders.yaml >"$work/run-asan.out" 2>"$work/run-asan.err"
ok "LSan: run -j 2 of demo and two-holders under build/asan/memhp-lab: both pass, nothing of ours leaked at exit" \
	asan_run_ok $?
fi

echo "# soak: bad input"
expect_fail "soak without --duration or --cycles" 2 'say how long' $LAB soak scenarios/soak.yaml
expect_fail "soak with a bad --duration" 2 "--duration '8x' is not a duration" $LAB soak --duration 8x scenarios/soak.yaml
expect_fail "soak into a directory that holds one" 2 'already holds a soak; continue it with --resume' \
	$LAB soak --cycles 1 -o "$work/soakr" scenarios/soak.yaml
expect_fail "soak --resume with --seed" 2 'give no --duration, --seed' $LAB soak --resume "$work/soakr" --seed 9
expect_fail "soak --host of a hugepage-backed scenario is refused before anything connects (it would grow this machine's pool for a guest elsewhere)" 2 \
	"soak: .*/soak-hosthuge.yaml: memory_backing: hugepages needs a hugetlbfs or file path .*; a fleet host \\(--host/--hosts\\) cannot give it" \
	sh -c "sed 's/^name: soak\$/name: soak-hugepages\nmemory_backing: {source: hugepages}/' scenarios/soak.yaml >'$work/soak-hosthuge.yaml' &&
		exec $LAB soak --host 'qemu+unix:///system?socket=/nonexistent/libvirt-sock' --cycles 1 -o '$work/soakhh' '$work/soak-hosthuge.yaml'"
expect_fail "soak with an unknown leak" 2 "soak.leak: unknown leak 'dentry' \\(known: none, io_uring, kmemleak-test\\)" \
	sh -c "sed 's/^  leak: io_uring\$/  leak: dentry/' scenarios/soak-leak.yaml >'$work/soak-bad.yaml' && exec $LAB soak --cycles 1 '$work/soak-bad.yaml'"

echo "# soak: key names"
ok "soak/ names every key it writes or reads by its MHL_K_* (record/record.h) or MHL_PIN_K_* (lib/mhl-pin-keys.h): no quoted key to json_object_object_add or an mhlJ* reader (but meminfo, of the guest's kernel memory reply, no key of a record)" \
	no_lines 'mhlJ\(km, "meminfo"\)' -nE '(json_object_object_add|mhlJ(Str|Int|Dbl|Bool|Arr|Obj|Len)?)\(([^(),]|\(([^()]|\([^()]*\))*\))*,[[:space:]]*"' \
		orchestrator/soak/*.c
