#!/bin/bash
# tests/run.sh - every test of `make check`, one line per check, then
# "N passed, N failed". Unit tests (KTAP from build/unit-tests), CLI bad-input
# tests, `make install` into a temporary DESTDIR, and integration tests that
# boot the real kernel under QEMU through libvirt and assert on the trial record.
#
# Every check has a deadline, so a hung guest is a failed check, never a hung
# make check: MHL_OK_TIMEOUT (120) seconds for a check's command,
# MHL_CHECK_TIMEOUT (900) for a memhp-lab run. At the deadline the command
# gets SIGTERM (memhp-lab destroys its guests and records them 'interrupted'),
# SIGKILL 10 s later, and the check reads "not ok N DESC # TIMEOUT after S s".
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
B=build
LAB=$B/memhp-lab
pass=0 fail=0 n=0 extra=0 finished=0
work=$(mktemp -d /tmp/mhl-check-XXXXXX)

# The plan: the checks this file makes itself, then the parts it sources
# (tests/NAME.sh) with the checks each makes. Change a number with the checks
# of its part. The run prints 1..TOTAL first; each part adds one check (it
# loads and makes its number), the run one at the end (it made every planned
# check), and a run that ends early (exit in a part, an unbound variable) fails.
plan_self=122
parts=(
	orchestrator:36	# matrices, -j, the console watcher, faults, interrupts, doctor
	workloads:101	# the pinning workloads: gup, io_uring, vfio, vfio-noiommu
	conformance:28	# the quick subset of the seed conformance suite
	capacity:9	# capacity sweeps: a small grid's frontier is monotone; the report's sentences
	soak:27		# soak runs: a short seeded soak, SIGKILL and --resume, a finding, the leak detector
	hardening-scenarios:13	# scenario limits, XML and gnuplot escaping, ids, deadlines, the soak lock
	hardening-records:13	# guest text, records of the wrong shape, console logs outside the run
	hardening-kill:16	# kill -9 leaves no guest; cleanup touches only ours; lost trials, run --resume
	fuzz:10		# libFuzzer: each parser briefly over its corpus and regression inputs
	kernel-series:50	# series v2: the switch read once, GUP-fast on 6.1, the overflowing range, counters, the selftests (gup_test, gup_longterm_counters in the guest)
	host:14		# the host side: memory back per backing, the hugepage pool, the plug path, kill -9
	stock:21	# Debian's own 6.1 and 6.12 cloud kernels from apt: modules, a pinning trial each, online as shipped, SKIP, .deb and modules forms (the Debian userspace guest boots in make stock)
	fleet:29	# shards for batch engines: run --shard K/N (and auto), three side by side, report --merge and what it refuses
	cli:31		# the CLI: JSON of check/doctor/report against docs/schemas/, exit codes, man page and completion installed, the exec step, docs checked against the code
	report:65	# reports from a recorded run and from the runs above (last: it reads the demo run's)
)
total=$((plan_self + 1))
for part in "${parts[@]}"; do total=$((total + ${part#*:} + 1)); done
echo "1..$total"
on_exit() {
	local rc=$?
	if [ "$finished" != 1 ]; then
		echo "not ok $((n + 1)) the run ended early (exit $rc) after $((n - extra)) of $total planned checks"
		fail=$((fail + 1)) rc=1
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" = 0 ] && rm -rf "$work" || echo "# logs kept in $work"
	exit $rc
}
trap on_exit EXIT

ok_timeout=${MHL_OK_TIMEOUT:-120}
run_timeout=${MHL_CHECK_TIMEOUT:-900}
exec {tap_fd}>&1	# the check lines, also from helpers whose output goes to a file

# tmo S CMD...: CMD (a program or a shell function) with a deadline of S
# seconds. Returns its exit status; tmo_fired=1 when the deadline passed.
tmo() {
	local s=$1 t0=$EPOCHSECONDS rc p w who=; shift
	tmo_fired=0 tmo_s=$s
	case $(type -t "$1") in
	builtin|keyword)	# test, [: nothing to wait for
		"$@"
		return;;
	function)	# in a subshell, raced against a sleep of S s
		"$@" <&0 &
		p=$!
		sleep "$s" &
		w=$!
		wait -n -p who $p $w
		rc=$?
		if [ "$who" = "$p" ]; then
			kill $w 2>/dev/null; wait $w 2>/dev/null
			return $rc
		fi
		tmo_fired=1
		# The subshell, then what it runs (found first: they outlive it).
		local kids; kids=$(pgrep -P $p)
		kill -TERM $p $kids 2>/dev/null
		for _ in $(seq 1 100); do kill -0 $p $kids 2>/dev/null || break; sleep 0.1; done
		kill -KILL $p $kids 2>/dev/null
		wait $p 2>/dev/null
		return 124;;
	esac
	timeout --foreground --kill-after=10 "$s" "$@"
	rc=$?
	# 124: past the deadline; 137: KILLed 10 s after it (or by someone else before it).
	case $rc in 124|137) [ $((EPOCHSECONDS - t0)) -ge "$s" ] && tmo_fired=1;; esac
	return $rc
}

# check_result DESC RC CMD...: count and print one check: CMD exited RC, past its
# deadline if tmo_fired (of the tmo that ran it).
check_result() {
	local desc=$1 rc=$2; shift 2
	n=$((n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $n $desc" >&$tap_fd; pass=$((pass + 1))
		return 0
	fi
	fail=$((fail + 1))
	if [ "$tmo_fired" = 1 ]; then
		echo "not ok $n $desc # TIMEOUT after $tmo_s s"
	else
		echo "not ok $n $desc"
	fi >&$tap_fd
	echo "# command: $*" >&$tap_fd
	return 1
}

ok() {	# ok DESC CMD... : one check, CMD with a deadline of $ok_timeout s
	local desc=$1; shift
	tmo "$ok_timeout" "$@" >>"$work/log" 2>&1
	check_result "$desc" $? "$@" || tail -n 5 "$work/log" | sed 's/^/#   /' >&$tap_fd
	return 0
}

# expect_fail DESC EXIT PATTERN CMD...: CMD exits EXIT and stderr matches PATTERN.
expect_fail() {
	local desc=$1 want=$2 pat=$3 rc; shift 3
	tmo "$ok_timeout" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$tmo_fired" = 1 ]; then
		check_result "$desc (exit $want, says '$pat')" $rc "$@"
	else
		ok "$desc (exit $want, says '$pat')" test "$rc" = "$want" -a -n "$(grep -E -- "$pat" "$work/err")"
	fi
	[ "$rc" = "$want" ] || echo "#   exit was $rc; stderr: $(head -c 300 "$work/err")"
}

# timed S CMD...: CMD with a deadline of S s, for a command whose output later
# checks judge; past the deadline it is a failed check of its own (not in the
# plan: counted in $extra). Returns CMD's exit status.
timed() {
	local s=$1 rc; shift
	tmo "$s" "$@"
	rc=$?
	[ "$tmo_fired" = 1 ] && extra=$((extra + 1)) && check_result "$*" $rc "$@"
	return $rc
}

# lab ARGS...: memhp-lab ARGS with the run deadline (timed).
lab() { timed "$run_timeout" $LAB "$@"; }

# lab_bg ARGS...: memhp-lab ARGS in the background with the run deadline;
# lab_wait waits for it. lab_pid is memhp-lab's own pid, not timeout's (a
# shell writes its pid and execs memhp-lab): signal it, and its guests are
# named memhp-<trial>-<lab_pid>-<n>.
lab_bg() {
	local pidf=$work/lab.pid
	rm -f "$pidf"
	timeout --foreground --kill-after=10 "$run_timeout" \
		bash -c 'echo $$ >"$0" && exec "$@"' "$pidf" $LAB "$@" &
	lab_job=$! lab_t0=$EPOCHSECONDS lab_cmd="$LAB $*"
	for _ in $(seq 1 100); do [ -s "$pidf" ] && break; sleep 0.05; done
	lab_pid=$(cat "$pidf" 2>/dev/null)
}

# lab_wait: memhp-lab's exit status; past the deadline, a failed check of its own.
lab_wait() {
	local rc
	wait "$lab_job"
	rc=$?
	tmo_fired=0 tmo_s=$run_timeout
	case $rc in 124|137) [ $((EPOCHSECONDS - lab_t0)) -ge "$run_timeout" ] && tmo_fired=1;; esac
	[ "$tmo_fired" = 1 ] && extra=$((extra + 1)) && check_result "$lab_cmd" $rc "$lab_cmd"
	return $rc
}

# memhp-lab run in the background, its pid remembered for no_qemu; returns its exit status.
lab_pids=""
lab_run() {
	lab_bg run "$@"
	lab_pids="$lab_pids $lab_pid"
	lab_wait
}

echo "# unit tests (build/unit-tests)"
timed "$ok_timeout" $B/unit-tests >"$work/unit.ktap"
sed 's/^/  /' "$work/unit.ktap"
up=$(grep -c '^ok ' "$work/unit.ktap"); uf=$(grep -c '^not ok ' "$work/unit.ktap")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$work/unit.ktap")
ok "unit tests: $up passed, $uf failed of plan $plan" test "$uf" = 0 -a "$up" = "$plan"

echo "# layout (docs/architecture.md: cli -> scenario -> trial (host + guest) -> record -> reports)"
ok "reports/ includes no header of orchestrator/trial/, guest/ or host/: it renders records" \
	sh -c '! grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](orchestrator/)?(trial|guest|host)/" reports/*.c reports/*.h'

cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
art612=$(cat "$cache/kernel/6.12/current")
art61=$(cat "$cache/kernel/6.1/current")

echo "# kernel config check (kernel/build.sh --check-config)"
for k in 6.12 6.1; do
	kcfg=$(cat "$cache/kernel/$k/current")/config
	ok "the built $k kernel's config has every required option and the series' own" \
		kernel/build.sh --check-config "$kcfg" kernel/patches/$k/required.list
done
kcfg=$art612/config
grep -v -e '^CONFIG_GUP_TEST=y' -e '^CONFIG_VIRTIO_MEM=y' "$kcfg" >"$work/config.missing"
expect_fail "a config without GUP_TEST and VIRTIO_MEM is refused, naming both" 1 \
	'not set after olddefconfig: CONFIG_VIRTIO_MEM CONFIG_GUP_TEST' kernel/build.sh --check-config "$work/config.missing"
ok "the artifacts' gup_test.h are identical (one memhp-pin for both kernels)" \
	cmp "$art612/include/gup_test.h" "$art61/include/gup_test.h"
series61=$(sed -e 's/#.*//' kernel/patches/6.1/series | awk 'NF { print $1 }' | jq -R . | jq -sc .)
ok "identity.json names the series' patch files, in order (6.1: $(echo "$series61" | jq length))" \
	jq -e --argjson want "$series61" '.source_package == "linux-source-6.1" and ($want | length) == 5 and .patch_files == $want and (.config_sha256 | length) == 16' "$art61/identity.json"

echo "# kernel patches: checkpatch.pl --strict from the extracted tree, each patch in series order"
# FILE_PATH_CHANGES ("added ... file(s), does MAINTAINERS need updating?")
# fires on every new file whether an entry covers it or not: instead, each
# file the series adds must have a maintainer of its own entry (not THE REST).
for k in 6.12 6.1; do
	ksrc=$(ls -d "$cache"/kernel/$k/src-*/ | head -n 1)
	for p in $(sed -e 's/#.*//' kernel/patches/$k/series); do
		(cd "$ksrc" && perl scripts/checkpatch.pl --strict -q --ignore FILE_PATH_CHANGES "$top/kernel/patches/$k/$p") >"$work/cp.out" 2>&1
		rc=$?
		ok "checkpatch --strict: 0 errors, 0 warnings, 0 checks: $k/$p" test "$rc" = 0 -a ! -s "$work/cp.out"
		[ "$rc" = 0 ] || sed 's/^/#   /' "$work/cp.out" | head -n 20
	done
	added=$(for p in $(sed -e 's/#.*//' kernel/patches/$k/series); do
		awk '/^--- \/dev\/null/ { getline; sub(/^\+\+\+ b\//, ""); print }' "kernel/patches/$k/$p"; done)
	ok "$k: every file the series adds has a MAINTAINERS entry of its own (get_maintainer.pl): ${added:-none}" \
		sh -c 'cd "$1" && shift && for f; do perl scripts/get_maintainer.pl --nogit --nogit-fallback --nol -f "$f" | grep "(maintainer:" | grep -qv "THE REST" || exit 1; done' _ "$ksrc" $added
done

echo "# kernel patches: bisectable - each prefix of the series builds (kernel/bisect-check.sh)"
for k in 6.12 6.1; do
	kernel/bisect-check.sh $k >"$work/bisect.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$work/bisect.out"
	ok "$k: every prefix of the series and the series with its options off build with -Werror" \
		test "$rc" = 0 -a "$(grep -c '^ok ' "$work/bisect.out")" = $(( $(grep -c '^0' kernel/patches/$k/series) + 1 ))
done

echo "# bad input"
expect_fail "no command" 2 'usage: memhp-lab' $LAB
expect_fail "unknown command, naming every command" 2 \
	"unknown command 'frobnicate' \(commands: run, soak, check, report, doctor, cleanup, help\)" $LAB frobnicate
ok "--version and -V print 'memhp-lab VERSION'" \
	sh -c '"$1" --version | grep -qx "memhp-lab [^ ][^ ]*" && [ "$("$1" -V)" = "$("$1" --version)" ]' _ "$LAB"
expect_fail "unknown option" 2 "unknown option.*--bogus" $LAB run --bogus scenarios/demo.yaml
expect_fail "missing scenario file" 2 "cannot open scenario '/nonexistent/s.yaml'" $LAB run /nonexistent/s.yaml
printf 'name: x\nnodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 5M}\n' >"$work/bad.yaml"
expect_fail "bad scenario names file:line:col" 2 "$work/bad.yaml:4:17: virtio_mem" $LAB check "$work/bad.yaml"
expect_fail "unreachable URI" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/sock'" \
	$LAB run -o "$work/uri" --uri 'qemu+unix:///system?socket=/nonexistent/sock' scenarios/demo.yaml
expect_fail "-c/--connect, virsh's name for --uri" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/sock'" \
	$LAB run -o "$work/uri-c" -c 'qemu+unix:///system?socket=/nonexistent/sock' scenarios/demo.yaml
expect_fail "LIBVIRT_DEFAULT_URI honoured as virsh does" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/env'" \
	env LIBVIRT_DEFAULT_URI='qemu+unix:///system?socket=/nonexistent/env' $LAB run -o "$work/uri-env" scenarios/demo.yaml
ok "check accepts the demo scenario" $LAB check scenarios/demo.yaml
ok "check takes several files: every shipped scenario passes (scenarios/*.yaml scenarios/*/*.yaml)" \
	$LAB check scenarios/*.yaml scenarios/*/*.yaml
expect_fail "check of a good and a bad file: exit 2, the bad one named, the count said" 2 \
	"check: 1 of 2 scenario file\(s\) refused" $LAB check scenarios/demo.yaml "$work/bad.yaml"
expect_fail "soak --seed -1 (strtoull would wrap it to 2^64-1)" 2 "--seed '-1' is not a non-negative integer" \
	$LAB soak --seed -1 scenarios/soak.yaml

echo "# install: make install into a temporary DESTDIR; the installed memhp-lab finds its data from its prefix"
inst=$work/inst
share=$inst/usr/share/memhp-lab
ILAB=$inst/usr/bin/memhp-lab
ok "make install DESTDIR=\$work/inst PREFIX=/usr" make --no-print-directory B="$B" install DESTDIR="$inst" PREFIX=/usr
ok "installed: bin/memhp-lab; share/memhp-lab/ with the guest image, domains/, scenarios/ (and subfolders), kernel's required.list files, docs" \
	test -x "$ILAB" -a -s "$share/initramfs.cpio.gz" -a -s "$share/domains/numa-virtio-mem.xml" \
	-a -s "$share/scenarios/demo.yaml" -a -s "$share/scenarios/capacity/zones.yaml" -a -s "$share/kernel/required.list" \
	-a -s "$share/kernel/patches/6.12/required.list" -a -s "$share/kernel/patches/6.1/required.list" \
	-a -s "$share/README.md" -a -s "$share/docs/architecture.md" -a -s "$inst/usr/share/doc/memhp-lab/README.md" \
	-a -s "$inst/usr/share/doc/memhp-lab/docs/architecture.md"
ok "installed memhp-lab --version is build/memhp-lab's" sh -c '[ "$("$1" --version)" = "$("$2" --version)" ]' _ "$ILAB" "$LAB"
ok "installed memhp-lab checks the installed scenarios/demo.yaml (run from /)" \
	sh -c 'cd / && "$1" check "$2"' _ "$ILAB" "$share/scenarios/demo.yaml"
timed "$ok_timeout" sh -c 'cd / && exec "$1" doctor' _ "$ILAB" >"$work/inst-doctor.out" 2>&1
sed 's/^/#   /' "$work/inst-doctor.out"
ok "installed doctor: the guest image found in the prefix" \
	grep -qx "ok   guest image  *$share/initramfs.cpio.gz" "$work/inst-doctor.out"
ok "installed doctor: the domain template found in the prefix" \
	grep -qx "ok   domain template  *$share/domains/numa-virtio-mem.xml" "$work/inst-doctor.out"
ok "installed doctor: both kernels pass against the prefix's kernel/required.list" \
	sh -c 'grep -q "^ok   kernel 6.12 " "$1" && grep -q "^ok   kernel 6.1 " "$1"' _ "$work/inst-doctor.out"

echo "# integration: the demo scenario on the real guest (TCG unless KVM really boots)"
rec=$work/demo/trials.jsonl
lab_run -o "$work/demo" scenarios/demo.yaml >"$work/demo.out" 2>&1
rc=$?
sed 's/^/#   /' "$work/demo.out"
j() { jq -e "$1" "$rec" >/dev/null; }
# jq: pins were taken and all released (false for a record without guest_after).
balanced='(.guest_after.vmstat | (.nr_foll_pin_acquired | type) == "number" and .nr_foll_pin_acquired > 0 and .nr_foll_pin_acquired == .nr_foll_pin_released)'
# console_clean REC: console_findings is an empty list (not missing), and the
# serial log the record names holds the guest's boot and, read here too, no
# line of a finding's kind.
console_clean() {
	local log
	jq -e '(.console_findings | type) == "array" and (.console_findings | length) == 0' "$1" >/dev/null &&
		log=$(jq -r '.console_log' "$1") && grep -q 'Linux version' "$log" &&
		! grep -E 'WARNING:|BUG:|Oops|Kernel panic|general protection fault|blocked for more than|rcu_.*stall' "$log"
}
# No QEMU of this test's runs is still running. Domains are named
# memhp-<trial>-<orchestrator pid>-<n> (libvirt passes -name guest=...), so the
# runs started through lab_run are told apart from other guests on the machine.
no_qemu() {
	local p
	for p in $lab_pids; do
		pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=memhp-[^ ,]*-$p-[0-9]" >/dev/null && return 1
	done
	return 0
}
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
for k in 6.12 6.1; do
	for pol in series baseline; do
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
for k in 6.12 6.1; do
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
ok "interrupted run exits 1" test "$rc" = 1
ok "interrupted trial is recorded" jq -e '.verdict == "interrupted"' "$work/int/trials.jsonl"
ok "no QEMU process outlives the interrupted run" no_qemu

echo "# integration: a guest that panics at boot is an error naming the console log"
sed -e 's/^name: demo/name: panic/' -e 's/^kernel: "6.12"/kernel: "6.12"\ncmdline: "rdinit=\/nonexistent"/' \
	scenarios/demo.yaml >"$work/panic.yaml"
lab_run -o "$work/panic" --agent-timeout 60 "$work/panic.yaml" >"$work/panic.out" 2>&1
rc=$?
prec=$work/panic/trials.jsonl
ok "panicking guest: exit 1" test "$rc" = 1
ok "panicking guest: verdict error, reason names the console log" \
	jq -e '(.verdict == "error") and (.reason | test("(stopped.*console: |Kernel panic.*\\().*panic.console.log"))' "$prec"
ok "panicking guest: the panic is a console finding" jq -e '[.console_findings[].kind] | index("panic") != null' "$prec"
ok "panicking guest: no QEMU process remains" no_qemu

# The parts, in the order of $parts: each is checked with bash -n before it is
# sourced, then one check says it loaded and made its planned number of checks.
part_begin() {	# NAME:CHECKS
	part_name=${1%%:*} part_want=${1#*:} part_n0=$n part_e0=$extra part_err= part_t0=$EPOCHSECONDS
	if [ ! -f "tests/$part_name.sh" ]; then
		part_err="tests/$part_name.sh is missing"
	else
		part_err=$(bash -n "tests/$part_name.sh" 2>&1) && part_err= && return 0
		part_err=$(printf '%s' "${part_err:-bash -n failed}" | tr '\n' ' ')	# on one line
	fi
	return 1
}
part_end() {	# one check; on failure its "# command:" line says why
	local made=$((n - part_n0 - (extra - part_e0))) rc=0
	[ -z "$part_err" ] && [ "$made" = "$part_want" ] || rc=1
	tmo_fired=0
	check_result "tests/$part_name.sh loaded and made its $part_want planned checks" $rc \
		"${part_err:-it made $made checks}"
	echo "# part $part_name: $((EPOCHSECONDS - part_t0)) s"	# where make check's time goes
}
echo "# the checks above (unit, kernel, integration): $SECONDS s"
for part in "${parts[@]}"; do
	part_begin "$part" && . "tests/${part%%:*}.sh"
	part_end
done

made=$((n - extra)) tmo_fired=0 rc=0
[ "$made" = $((total - 1)) ] || rc=1
check_result "plan: the run made all $((total - 1)) planned checks before this one" $rc "it made $made checks"
finished=1
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
