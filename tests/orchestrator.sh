# tests/orchestrator.sh - sourced by tests/run.sh (uses its ok/expect_fail, $LAB,
# $work, and lab/lab_bg/lab_wait, which run memhp-lab with the run deadline):
# matrices, parallel guests, the console watcher, faults from outside,
# interrupts, output modes, doctor.

# QEMU processes of our guests whose name starts with $1 (libvirt passes guest=NAME).
plan 46 full 52
qemu_of() { pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=$1" || true; }

echo "# orchestrator: a matrix, expanded and run two guests at a time"
cat >"$work/mx.yaml" <<'EOF'
name: mx
kernel: "${kernel}"
pin_policy: ${policy}
matrix:
  kernel: ["6.12", "6.1"]
  policy: [series, baseline]
  exclude:
    - {kernel: "6.1"}
nodes:
  - memory: 1GiB
  - memory: 128MiB
    virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}
steps:
  - pin: {id: p, size: 64MiB}
  - resize: {node: 1, requested: 0, deadline: 10}
  - expect: {policy: series, unplug: reached}
  - expect: {policy: baseline, unplug: short}
  - release: {id: p}
EOF
$LAB check "$work/mx.yaml" >"$work/mx.check" 2>&1
ok "check lists the matrix's trials: 2 of 2 x 2 after the exclude rule" \
	sh -c "grep -q '2 trial(s) from its matrix' '$work/mx.check' && grep -x '  mx:.*' '$work/mx.check' | sort | tr '\n' ' ' |
		grep -qx '  mx:kernel=6.12,policy=baseline   mx:kernel=6.12,policy=series '"
lab run -j 2 -o "$work/mx" "$work/mx.yaml" >"$work/mx.out" 2>&1
rc=$?
r=$work/mx/trials.jsonl
ok "matrix run -j 2: exit 0, both trials pass" test "$rc" = 0 -a "$(jq -s '[.[] | select(.verdict == "pass")] | length' "$r")" = 2
ok "run.json records the options that shaped the run (issue 52): jobs 2, no peers, no daemon-restart command" \
	jq -e '.options == {jobs: 2, peers: [], daemon_restart: null, append: false}' "$work/mx/run.json"
ok "matrix run: trial ids and parameters come from the axis values" \
	jq -se '(map(.trial) | sort) == ["mx:kernel=6.12,policy=baseline", "mx:kernel=6.12,policy=series"] and all(.[]; .parameters.kernel == "6.12" and .scenario_name == "mx")' "$r"
ok "matrix run: the substituted pin_policy took effect (baseline stopped short)" \
	jq -se 'map(select(.pin_policy == "baseline"))[0].summary.reached_bytes > 0 and map(select(.pin_policy == "series"))[0].summary.reached_bytes == 0' "$r"
# Both guests ran at once: the two trials' [started, started + seconds] share
# at least 2 s (started with its fraction: back-to-back trials share none;
# here both start at once and share the shorter trial, about 10 s under TCG).
ok "-j 2: the two trials overlapped in time (by 2 s or more)" jq -se '
	map(.seconds as $d | .started | capture("^(?<s>[^.Z]+)(?<f>\\.[0-9]+)?Z$")
	    | (.s + "Z" | fromdateiso8601) + (.f // "0" | tonumber) | {s: ., e: (. + $d)})
	| length == 2 and (map(.e) | min) - (map(.s) | max) >= 2' "$r"
ok "the table of verdicts ends the output" grep -q '^2 passed, 0 failed, 0 error, 0 interrupted, 0 not run' "$work/mx.out"
ok "progress lines say trial k of n and the step (both trials)" sh -c "grep -q 'memhp-lab: \[1/2\] mx:kernel=6.12,policy=[a-z]*: step 2/5: resize' '$work/mx.out' &&
	grep -q 'memhp-lab: \[2/2\] mx:kernel=6.12,policy=[a-z]*: step 2/5: resize' '$work/mx.out'"

echo "# orchestrator: output modes and bad -j/--only"
lab run --json -q -o "$work/js" --only 'mx:*series' "$work/mx.yaml" >"$work/js.out" 2>"$work/js.err"
ok "--json -q: stdout is one JSON object with the trial's verdict, nothing on stderr" \
	sh -c "jq -e '.trials | length == 1 and .[0].verdict == \"pass\" and .[0].trial == \"mx:kernel=6.12,policy=series\"' '$work/js.out' >/dev/null && test ! -s '$work/js.err'"
# A /dev/kvm that opens but hangs QEMU (kvm-pvm hosts: a -accel kvm QEMU
# prints nothing, at 100 % of a core): the device is /dev/null (it opens),
# the probe's QEMU a stand-in that never answers. The first run pays the
# probe's 20 s once and caches "no answer" as tcg; -q keeps stderr empty;
# the next look (doctor, which says so) pays nothing (issue 47).
printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 600\n' "$work/hang-qemu.pid" >"$work/hang-qemu"
chmod +x "$work/hang-qemu"
hang_env=(env MEMHP_KVM_DEVICE=/dev/null MEMHP_KVM_PROBE_EMULATOR="$work/hang-qemu")
timed "$run_timeout" "${hang_env[@]}" $LAB run --json -q -o "$work/hang" --only 'mx:*series' "$work/mx.yaml" >"$work/hang.out" 2>"$work/hang.err"
rc=$?
ok "a /dev/kvm that hangs QEMU: the trial passes under tcg, its record says the probe gave no answer within 20 s, nothing on stderr under -q" \
	sh -c '[ "$1" = 0 ] && test ! -s "$2/hang.err" && jq -e ".trials[0].verdict == \"pass\"" "$2/hang.out" >/dev/null &&
		jq -e ".domain.accel == \"tcg\" and (.domain.accel_reason | startswith(\"KVM probe gave no answer within 20 s\"))" "$2/hang/trials.jsonl" >/dev/null' _ "$rc" "$work"
ok "the hanging probe's stand-in QEMU was started, and killed: no process of it outlives the run" \
	sh -c 'p=$(cat "$1") && [ -n "$p" ] && ! kill -0 "$p" 2>/dev/null' _ "$work/hang-qemu.pid"
hang_key=$(printf %s "$work/hang-qemu" | sed 's/[][\\.*^$]/\\&/g')
ok "the timeout is cached as an answer for its key: tcg, the stand-in's key, today's date, reason timeout" \
	sh -c 'grep -q "^tcg	host .*; emulator $1 .*; device /dev/null [0-9]*:[0-9]*	[0-9]*	timeout$" "$2/accel-probe" &&
		d=$(grep "emulator $1 " "$2/accel-probe" | cut -f3) && [ $((d - $(date +%s))) -le 0 ] && [ $(($(date +%s) - d)) -lt 3600 ]' \
	_ "$hang_key" "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}"
timed "$run_timeout" "${hang_env[@]}" $LAB doctor >"$work/hang-doctor.out" 2>"$work/hang-doctor.err"
ok "the next look probes no more: doctor prints no probe line, and its KVM line shows the cached timeout, its date and when it is probed again" \
	sh -c '! grep -q "probing KVM" "$1/hang-doctor.err" && grep -q "^WARN KVM .*cached probe in .*: no answer within 20 s on 20[0-9-]* [0-9:]* UTC .*probed again after 20" "$1/hang-doctor.out"' _ "$work"
# init_on_free=1 writes every page the guest frees, and onlining frees every
# plugged page: the whole device is resident (issue 48 item 5: counted as 128
# MiB, a 64 GiB device was accepted on a 22 GiB host; by hand here it reached
# 23.2 GiB of RSS before the OOM killer took its QEMU). Refused before boot;
# the device is twice what this host has available, whatever the host.
iof_mib=$(( $(awk '/^MemAvailable:/ {print int($2 / 1048576) * 2 + 2}' /proc/meminfo) * 1024 ))
printf 'name: iof\nkernel: "6.12"\ncmdline: "init_on_free=1"\nnodes:\n  - memory: 1GiB\n  - memory: 128MiB\n    virtio_mem: {size: %dMiB, block: 2MiB, requested: %dMiB}\nsteps:\n  - resize: {node: 1, requested: 0, deadline: 10}\n' \
	"$iof_mib" "$iof_mib" >"$work/iof.yaml"
expect_fail "init_on_free=1 and a device of twice the host's available memory plugged: the whole device counts, the guest that does not fit is refused before anything boots, saying why" 2 \
	"a guest that can make $((iof_mib + 1152 + 256)) MiB resident \(boot memory 1152 MiB \+ node 1's hotplug memory $iof_mib MiB in full \(init_on_free=1 writes every page the guest frees, onlining included\) \+ 256 MiB for QEMU\) does not fit" \
	$LAB run -j 1 -o "$work/iof" "$work/iof.yaml"
# The budget enforced (issue 48, item 5): under the embedded driver each
# guest's QEMU runs in a memory cgroup limited to what the fit counted. A
# budget of 320 MiB (MEMHP_GUEST_BUDGET) that the demo's boot and pin overrun:
# QEMU is killed inside it, the trial says so (error, source guest) with the
# peak, the cgroup is gone after the trial, and the host never saw it. A
# stale cgroup of a run killed before it removed its own (pid gone) is swept
# by the next run.
rm -rf "$work/bud"
MEMHP_GUEST_BUDGET=320MiB lab_run -o "$work/bud" scenarios/demo.yaml >"$work/bud.out" 2>&1
ok "a guest over its memory budget (320 MiB): QEMU killed inside its cgroup, the trial an error from the guest naming the budget and the peak; the record's budget enforced, oom_kills >= 1, peak <= limit" \
	jq -e '.verdict == "error" and .error_source == "guest" and (.reason | test("^QEMU was killed at its memory budget of 320 MiB \\(memory cgroup .*, peak [0-9]+ MiB\\)")) and
		(.budget | .enforced and .limit_bytes == 335544320 and .oom_kills >= 1 and .peak_bytes <= .limit_bytes and (.cgroup == "v1" or .cgroup == "v2"))' "$work/bud/trials.jsonl"
bud_dir=$(jq -r .budget.path "$work/bud/trials.jsonl")
bud_gone() { [ -n "$1" ] && [ "$1" != null ] && [ ! -e "$1" ] && no_qemu; }
ok "its memory cgroup is removed after the trial, and no QEMU of the run is left" bud_gone "$bud_dir"
stale=$(dirname "$bud_dir")/memhp-stale-999999999-0	# swept by the next run (below)
mkdir "$stale" 2>/dev/null
# A trial of two resizes: the summary's unplug line is the last one's, and a
# line lists each (issue 52 item 5: "1.5 GiB taken back, then 2 MiB" read
# as the 2 MiB alone).
printf 'name: two\nkernel: "6.12"\nnodes:\n  - memory: 1GiB\n  - memory: 128MiB\n    virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}\nsteps:\n  - resize: {node: 1, requested: 512MiB, deadline: 20}\n  - resize: {node: 1, requested: 0, deadline: 20}\n' >"$work/two.yaml"
lab_run -o "$work/two" "$work/two.yaml" >"$work/two.out" 2>&1
ok "a normal trial's budget is the fit (enforced, no OOM kill, peak under it), and the stale cgroup of a run that is gone (pid 999999999) was swept by it" \
	sh -c 'jq -e ".verdict == \"pass\" and (.budget | .enforced and .oom_kills == 0 and .peak_bytes < .limit_bytes)" "$1" >/dev/null && [ ! -e "$2" ]' _ "$work/two/trials.jsonl" "$stale"
ok "a trial's summary with two resizes: the unplug line says it is the last resize's, a line lists both (1024 -> 512, 512 -> 0 MiB)" \
	sh -c 'grep -q "^  unplug: .*(the last resize)$" "$1" && grep -qE "^  resizes: +2: 1024 -> 512 MiB of 512 asked \([0-9.]+ s\), 512 -> 0 MiB of 0 asked \([0-9.]+ s\)$" "$1"' _ "$work/two.out"
expect_fail "--only matching nothing" 2 "no trial matches --only 'nothing\\*'" $LAB run --only 'nothing*' "$work/mx.yaml"
# the demo's guest can make 1792 MiB resident: 1 GiB + 128 MiB boot memory,
# its 256 MiB pin + 128 MiB of the 1 GiB device, 256 MiB for QEMU
expect_fail "-j whose guests do not fit in memory is refused, with the numbers" 2 \
	'64 guest\(s\) that can make up to 1792 MiB resident each .* need 114688 MiB, but only [0-9]+ MiB is available' \
	$LAB run -j 64 -o "$work/j64" scenarios/demo.yaml
expect_fail "-j that is not a number" 2 "-j 'many' is not a number of guests" $LAB run -j many scenarios/demo.yaml

echo "# orchestrator: the guest crashes (sysrq c): ERROR with the panic line, the run goes on"
lab run -o "$work/crash" scenarios/fault-guest-crash.yaml scenarios/demo.yaml >"$work/crash.out" 2>&1
rc=$?
r=$work/crash/trials.jsonl
ok "crash run: exit 1 (one trial did not pass)" test "$rc" = 1
ok "crashed trial: verdict error, reason quotes the panic and its console line" \
	jq -se '.[0].trial == "fault-guest-crash" and .[0].verdict == "error" and (.[0].reason | test("Kernel panic - not syncing: sysrq triggered crash \\(.*fault-guest-crash.console.log:[0-9]+\\)"))' "$r"
ok "crashed trial: the sysrq c step did what it asked (ok, crashed), and the 30 s wait after it stopped at the panic within 25 s" \
	jq -se '[.[0].steps[].step] == ["pin", "sysrq", "wait"] and .[0].steps[1].ok and .[0].steps[1].crashed and
		(.[0].steps[2].ok | not) and .[0].steps[2].seconds < 25' "$r"
ok "the next trial (demo) passes" jq -se '.[1].trial == "demo" and .[1].verdict == "pass"' "$r"

# Full tier (two TCG trials, ~28 s): the cap itself is in the unit rows (guest).
if full; then
echo "# orchestrator: a console flood past MEMHP_CONSOLE_MAX, then a WARNING: the log capped, its head and tail kept"
# 2000 lines (about 130 KB) under a 64 KiB cap: the log keeps 48 KiB of head
# and 16 KiB of tail; the kernel's line after the flood is in the tail, so the
# scanner finds it (issue 30, finding 17: with the head alone it was dropped
# and the trial passed with no finding).
cat >"$work/flood.yaml" <<'EOF'
name: console-flood
kernel: "6.12"
nodes:
  - memory: 512MiB
    cpus: 1
steps:
  - exec: {argv: [/bin/sh, -c, 'i=0; while [ $i -lt 2000 ]; do echo "flood line $i ................................................"; i=$((i+1)); done >/dev/console'], deadline: 120}
  - exec: {argv: [/bin/sh, -c, 'echo "<2>WARNING: after the flood" >/dev/kmsg'], deadline: 10}
EOF
# the same flood, then a panic (sysrq c)
sed -e 's/^name: .*/name: flood-panic/' -e 's|echo "<2>WARNING: after the flood" >/dev/kmsg|echo c >/proc/sysrq-trigger|' \
	"$work/flood.yaml" >"$work/flood-panic.yaml"
timed "$run_timeout" env MEMHP_CONSOLE_MAX=64K $LAB run -o "$work/flood" "$work/flood.yaml" "$work/flood-panic.yaml" >"$work/flood.out" 2>&1
jq -c 'select(.trial == "console-flood")' "$work/flood/trials.jsonl" >"$work/flood.rec"
r=$work/flood.rec fl=$work/flood/console-flood.console.log
ok "console flood: the log within the 64 KiB cap and its note, the boot kept at its head, the cut said, console_truncated true" \
	sh -c '[ "$(stat -c %s "$1")" -le $((65536 + 200)) ] && head -c 49152 "$1" | grep -q "Linux version" &&
		grep -q "console log cut at 65536 bytes (MEMHP_CONSOLE_MAX)" "$1" && jq -e ".console_truncated == true" "$2"' _ "$fl" "$r"
ok "console flood: the WARNING after it is in the log's tail (after the cut's note), a finding at its line (verdict fail), quoted in junit.xml" \
	sh -c 'l=$(jq -r "[.console_findings[] | select(.kind == \"warning\" and (.text | test(\"WARNING: after the flood\")))][0].line" "$2") &&
		cut=$(grep -n -m 1 "console log cut at" "$1" | cut -d: -f1) && [ "$l" -gt "$cut" ] &&
		sed -n "${l}p" "$1" | grep -q "WARNING: after the flood" &&
		jq -e ".verdict == \"fail\"" "$2" && grep -q "WARNING: after the flood" "$3"' _ "$fl" "$r" "$work/flood/report/junit.xml"
ok "console flood, then a panic: the trial is an error whose reason quotes the panic at its line in the log's tail, a panic finding there" \
	sh -c 'cut=$(grep -n -m 1 "console log cut at" "$1" | cut -d: -f1) &&
		jq -se --argjson cut "$cut" "[.[] | select(.trial == \"flood-panic\")][0] | .verdict == \"error\" and .console_truncated and
			(.reason | test(\"Kernel panic - not syncing: sysrq triggered crash \\\\(.*flood-panic.console.log:[0-9]+\\\\)\")) and
			any(.console_findings[]; .kind == \"panic\" and .line > \$cut)" "$2"' _ "$work/flood/flood-panic.console.log" "$work/flood/trials.jsonl"
fi

echo "# orchestrator: QEMU killed from outside is an ERROR trial, not a hang"
sed -e 's/^name: .*/name: killed/' -e '/sysrq/d' scenarios/fault-guest-crash.yaml >"$work/killed.yaml"
lab_bg run -o "$work/killed" "$work/killed.yaml" >"$work/killed.out" 2>&1
for _ in $(seq 1 600); do grep -q 'step 2/3: wait' "$work/killed.out" 2>/dev/null && break; sleep 0.1; done
pkill -KILL -f '^/usr/bin/qemu-system-x86_64 .*guest=memhp-killed'
lab_wait
rc=$?
ok "killed QEMU: exit 1, verdict error, the reason says the guest stopped on its own" \
	jq -e --arg rc "$rc" '$rc == "1" and .verdict == "error" and (.reason | test("the guest (stopped|crashed) on its own"))' "$work/killed/trials.jsonl"
ok "killed QEMU: the wait step ended early, failed, and no step ran after it" \
	jq -e '(.steps | length) == 2 and .steps[1].step == "wait" and (.steps[1].ok | not) and .steps[1].seconds < 30' "$work/killed/trials.jsonl"

echo "# orchestrator: SIGINT mid-run destroys the guests and leaves a valid trials.jsonl"
lab_bg run -j 2 -o "$work/sigint" "$work/mx.yaml" >"$work/sigint.out" 2>&1
for _ in $(seq 1 600); do [ "$(grep -c 'step 1/5' "$work/sigint.out" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
kill -INT $lab_pid
lab_wait
rc=$?
ok "SIGINT: exit 5 (interrupted), every line of trials.jsonl parses, both trials interrupted" \
	sh -c "[ $rc = 5 ] && jq -se 'length == 2 and all(.[]; .verdict == \"interrupted\")' '$work/sigint/trials.jsonl' >/dev/null"
ok "SIGINT: no QEMU of the run remains" test -z "$(qemu_of memhp-mx)"

echo "# orchestrator: a run killed with SIGKILL leaves no QEMU behind (its guard); the next run passes"
lab_bg run -o "$work/sigkill" "$work/killed.yaml" >"$work/sigkill.out" 2>&1
for _ in $(seq 1 600); do grep -q 'step 2/3: wait' "$work/sigkill.out" 2>/dev/null && break; sleep 0.1; done
root=$(sed -n 's|.*qemu:///embed?root=\(/tmp/mhl-[A-Za-z0-9]*\).*|\1|p' "$work/sigkill.out" | head -n 1)
stale=$(qemu_of memhp-killed)	# its guest, running before the kill
kill -KILL $lab_pid	# memhp-lab itself (timeout, its parent, then kills itself the same way)
wait $lab_job 2>/dev/null
sleep 3
guard_cleaned() {	# ROOT PID...: the dead run's QEMU PIDs are gone and its ROOT removed, by its guard
	local root=$1 p; shift
	[ $# -gt 0 ] || { echo "no QEMU of the run was running before the kill"; return 1; }
	for p; do ! pid_alive "$p" || { echo "QEMU $p still runs"; return 1; }; done
	[ -n "$root" ] && [ ! -e "$root" ]
}
ok "SIGKILL: the run's QEMU (running before the kill) is gone 3 s later, its root $root removed" \
	guard_cleaned "$root" $stale
lab run -o "$work/after" --only 'mx:*series' "$work/mx.yaml" >"$work/after.out" 2>&1
ok "... and its own trial passed" jq -e '.verdict == "pass"' "$work/after/trials.jsonl"

echo "# orchestrator: --uri qemu:///system, a libvirtd the test starts and stops, libvirt-python as the oracle"
# The script runs memhp-lab (its LAB argument) itself: give it one with the run deadline,
# so that the script still stops its libvirtd when the run hangs.
printf '#!/bin/sh\nexec timeout --foreground --kill-after=10 %s "%s" "$@"\n' "$run_timeout" "$top/$LAB" >"$work/lab-timed"
chmod +x "$work/lab-timed"
timed $((run_timeout + 300)) unshare -m --propagation private tests/libvirtd-run.sh "$work/ld" "$work/lab-timed" tests/data/oracle.yaml
r=$work/ld/run/trials.jsonl
ok "qemu:///system: the run and the oracle both exit 0 ($(cat "$work/ld/rc" 2>/dev/null))" \
	test "$(cat "$work/ld/rc" 2>/dev/null)" = "run=0 oracle=0"
ok "qemu:///system: verdict pass, the record names the URI" \
	jq -e '.verdict == "pass" and .domain.uri == "qemu:///system"' "$r"
ok "libvirt-python: libvirt's <current> reached the initial 1 GiB plug, as the record's timeline says" \
	sh -c "[ \"\$(jq -s 'map(.current_kib) | max' '$work/ld/oracle.jsonl')\" = 1048576 ] && jq -e '[.timeline[] | select(.source == \"qmp\") | .size_bytes] | max == 1073741824' '$r' >/dev/null"
ok "libvirt-python: after the request, libvirt saw the device at the size the record says it reached (0)" \
	sh -c "o=\$(jq -s 'map(select(.requested_kib == 0)) | last | .current_kib * 1024' '$work/ld/oracle.jsonl') &&
		r=\$(jq '[.steps[] | select(.step == \"resize\")][0].reached_bytes' '$r') && [ \"\$o\" = 0 ] && [ \"\$r\" = 0 ]"
# The oracle's t counts from when it first saw the domain, the record's from the
# domain's creation. Its last look before the request (requested still 1 GiB)
# came before the record's request time, so oracle t + (request t - that look's
# t) is no earlier than when the oracle looked: an upper bound on the record's
# clock. (libvirt answers the oracle's XMLDesc only between the orchestrator's
# agent commands.)
ok "libvirt-python: it saw the unplugged device (current 0) while the pin was held (before the release step, on the record's clock)" \
	jq -se --slurpfile rec "$r" '
	  ([$rec[0].timeline[] | select(.source == "request")][0].t) as $req
	  | ([$rec[0].steps[] | select(.step == "release")][0].t) as $rel
	  | (map(select(.requested_kib != 0)) | last | .t) as $look
	  | ($req | type) == "number" and ($rel | type) == "number" and ($look | type) == "number"
	    and (map(select(.requested_kib == 0 and .current_kib == 0 and .t + ($req - $look) < $rel)) | length) >= 1' \
	"$work/ld/oracle.jsonl"
ok "oracle: the test's libvirtd is gone (it ran: its log is there)" \
	sh -c "test -s '$work/ld/libvirtd.log' && ! pgrep -f '[l]ibvirtd -d -p $work/ld/libvirtd.pid' >/dev/null"

echo "# orchestrator: doctor"
lab doctor >"$work/doctor.out" 2>&1
rc=$?
sed 's/^/#   /' "$work/doctor.out"
ok "doctor: every check passes on this host (exit 0, 'ready')" test "$rc" = 0 -a "$(tail -n 1 "$work/doctor.out")" = ready
ok "doctor: names QEMU's virtio-mem support, both kernels and the memory that fits" \
	sh -c "grep -q 'has virtio-mem-pci' '$work/doctor.out' && grep -q '^ok   kernel 6.1 ' '$work/doctor.out' && grep -q 'demo-sized guest(s) fit' '$work/doctor.out'"
MEMHP_CACHE=$work/nocache lab doctor >"$work/doctor2.out" 2>&1
rc=$?
ok "doctor with no kernels built: exit 1, says to run make demo (each kernel a warning naming make kernel KVERS=...)" \
	sh -c "[ $rc = 1 ] && grep -q '^FAIL kernel  .*none built.*make demo' '$work/doctor2.out' && grep -q '^WARN kernel 6.12 .*make kernel KVERS=6.12' '$work/doctor2.out'"

# The fast tier runs the two auto-movable policies (nothing else boots them);
# the full tier adds multi-node unplug, grow-shrink and online_kernel, whose
# paths the workloads, host and soak parts also take.
shipped=(scenarios/online-auto-movable.yaml scenarios/online-auto-movable-global.yaml)
full && shipped+=(scenarios/multi-node-unplug.yaml scenarios/grow-shrink.yaml scenarios/online-kernel.yaml)
echo "# orchestrator: the shipped scenarios of online policies$(full && echo ', multi-node unplug and elasticity cycles')"
lab run -j 2 -q -o "$work/shipped" "${shipped[@]}" >"$work/shipped.out" 2>&1
r=$work/shipped/trials.jsonl
sed 's/^/#   /' "$work/shipped.out" | grep -v '^#   $'
ok "all ${#shipped[@]} pass (each scenario's own expect steps)" \
	jq -se --argjson n "${#shipped[@]}" 'length == $n and all(.[]; .verdict == "pass")' "$r"
if full; then
ok "multi-node: both nodes unplugged to 0 while the other node's pin was held" \
	jq -se 'map(select(.trial == "multi-node-unplug"))[0] | [.steps[] | select(.step == "resize") | .reached_bytes] == [0, 0]' "$r"
ok "grow-shrink: every check after a resize found the pinned buffer intact and unmoved" \
	jq -se 'map(select(.trial == "grow-shrink"))[0] | [.steps[] | select(.step == "check") | .workload.pattern_ok and .workload.pages_moved_since_pin == 0] | length == 4 and all' "$r"
ok "online_kernel: nothing was movable (the 8 hotplugged blocks in Normal), the unplug stopped with at least the pinned 256 MiB plugged" \
	jq -se 'map(select(.trial == "online-kernel"))[0] | .steps[2].reached_bytes >= 268435456
	  and (.guest_before.memory_blocks.online_by_zone | type == "object" and .Normal == 8 and (has("Movable") | not))' "$r"
fi
ok "auto-movable (per node): some hotplugged blocks went to Normal, the pin moved there, the unplug stopped short" \
	jq -se 'map(select(.trial == "online-auto-movable"))[0] | .guest_before.memory_blocks.online_by_zone.Normal > 0 and .steps[0].workload.census_after.by_zone.Normal > 0 and .steps[2].reached_bytes > 0' "$r"
ok "auto-movable (whole guest): every hotplugged block movable (8, none Normal), the unplug reached 0" \
	jq -se 'map(select(.trial == "online-auto-movable-global"))[0] | .steps[2].reached_bytes == 0
	  and (.guest_before.memory_blocks.online_by_zone | type == "object" and .Movable == 8 and (has("Normal") | not))' "$r"

# summary.pinned_bytes is what is held pinned at the shrink (issue 32, item 21):
# a 64 MiB gup pin, then a hold of 32 MiB (in use, not pinned), 2 s of wait (in
# which only the watcher samples the host), then the unplug.
printf 'name: held\nkernel: "6.12"\nnodes:\n  - memory: 1GiB\n    cpus: 1\n  - memory: 128MiB\n    cpus: 1\n    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\nsteps:\n  - pin: {id: g, workload: gup, size: 64MiB, node: 1}\n  - pin: {id: h, workload: hold, size: 32MiB, node: 1}\n  - wait: {seconds: 2}\n  - resize: {node: 1, requested: 32MiB, deadline: 60}\n  - resize: {node: 1, requested: 0, deadline: 60}\n  - release: {id: g}\n  - release: {id: h}\n' >"$work/held.yaml"
lab run -q -o "$work/held" "$work/held.yaml" >/dev/null 2>&1
ok "pinned_bytes: a 64 MiB pin held at the shrink after a 32 MiB hold is 64 MiB (not the last pin step's 0), the table says 64 MiB" \
	jq -e '.verdict == "pass" and .summary.pinned_bytes == 67108864' "$work/held/trials.jsonl"
ok "the host side is sampled through the trial (issue 32, item 10): in the 2 s wait before the unplug's request (its own sample aside), the timeline shows node 1's backend holding more than the 32 MiB held" \
	jq -e '([.timeline[] | select(.source == "request") | .t] | min) as $r |
		[.timeline[] | select(.source == "host" and .t < $r - 0.5) | .backend_bytes["1"] // 0] | max >= 33554432' "$work/held/trials.jsonl"
# The summary's host side is every shrink's (issue 32, item 11): held's two
# shrinks (512 -> 32 -> 0 MiB; the guest touched about 76 MiB of the device,
# so the first gives some back) add up, their share is the sums'.
ok "host got back over two shrinks: the summary's reclaimed and reclaimable bytes are the steps' sums, its share the sums' ratio, host_shrinks 2" \
	jq -e '[.steps[] | select(.step == "resize") | .host] as $h | ($h | length) == 2 and
		.summary.host_shrinks == 2 and ($h[0].reclaimed_bytes > 0) and
		.summary.host_reclaimed_bytes == ([$h[] | [.reclaimed_bytes, 0] | max] | add) and
		.summary.host_reclaimable_bytes == ([$h[].reclaimable_bytes] | add) and
		(.summary.host_reclaimed_of_reclaimable - .summary.host_reclaimed_bytes / .summary.host_reclaimable_bytes | fabs) < 1e-9 and
		.summary.host_before_bytes == $h[0].before.backend_bytes["1"] and .summary.host_after_bytes == $h[1].after.backend_bytes["1"] and
		(.summary | has("host_reclaimed_ratio") | not)' "$work/held/trials.jsonl"
