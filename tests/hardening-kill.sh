# tests/hardening-kill.sh - sourced by tests/run.sh (its ok, lab_bg/lab_wait,
# $LAB, $work): no guest outlives memhp-lab, even after kill -9 (the run's
# guard, orchestrator/host/guard.c), and the cleanup of what dead runs left
# touches only what is theirs (docs/security.md).

plan 17
echo "# hardening: kill -9 of memhp-lab at three moments of a -j 2 run leaves no QEMU 3 s later"
cat >"$work/k9.yaml" <<'EOF'
name: k9
matrix:
  size: [64MiB, 96MiB]
nodes:
  - memory: 1GiB
  - memory: 128MiB
    virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}
steps:
  - pin: {id: p, size: "${size}"}
  - resize: {node: 1, requested: 0, deadline: 30}
  - wait: {seconds: 20}
  - release: {id: p}
EOF
# k9_guests PID: how many QEMU processes run guests of memhp-lab PID's k9 trials.
k9_guests() { pgrep -fc "^/usr/bin/qemu-system-x86_64 .*guest=memhp-k9[^ ,]*-$1-[0-9]"; }
# k9_when MOMENT: wait for it (at most 120 s): start (the run has its embedded
# root and said so, no guest yet), booted (2 guests), steps (both at step 3).
k9_when() {
	local i
	for i in $(seq 1 1200); do
		case $1 in
		start) grep -q 'qemu:///embed?root=' "$k9out" && return 0;;
		booted) [ "$(k9_guests "$lab_pid")" -ge 2 ] && return 0;;
		steps) [ "$(grep -c 'step 3/4' "$k9out")" -ge 2 ] && return 0;;
		esac
		sleep 0.1
	done
	return 1
}
for moment in start booted steps; do
	k9out=$work/k9-$moment.out
	lab_bg run -j 2 -o "$work/k9-$moment" "$work/k9.yaml" >"$k9out" 2>&1
	k9_when $moment
	reached=$?
	[ $moment = booted ] && k9_booted_pid=$lab_pid
	had=$(k9_guests "$lab_pid")
	# each guest's QEMU daemonized, and memhp-lab (its child subreaper) is its parent
	[ $moment = booted ] && k9_parents=$(pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=memhp-k9[^ ,]*-$lab_pid-[0-9]" |
		xargs -r ps -o ppid= -p | tr -d ' ' | sort -u)
	root=$(sed -n 's/.*qemu:\/\/\/embed?root=\([^,]*\),.*/\1/p' "$k9out" | head -n 1)
	kill -9 "$lab_pid"
	lab_wait >/dev/null 2>&1
	sleep 3
	ok "kill -9 at '$moment' ($had guest(s) running): no QEMU of the run 3 s later, its root ${root:-?} removed" \
		sh -c "test $reached = 0 && ! pgrep -f 'guest=memhp-k9[^ ,]*-$lab_pid-[0-9]' >/dev/null && test -n '$root' && test ! -e '$root'"
	if [ $moment != start ]; then
		ok "kill -9 at '$moment': both guests were running before the kill" test "$had" = 2
	fi
done

ok "the guests' QEMU processes are children of memhp-lab, not of pid 1 (host/reaper.c reaps them the moment they end)" \
	test "$k9_parents" = "$k9_booted_pid"
echo "# hardening: cleanup of dead runs' roots touches only this user's roots and their guests"
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done
# A process whose argv[0] says qemu-system, in no guest of ours: it must survive every cleanup.
bash -c 'exec -a qemu-system-x86_64 sleep 600' &
victim=$!
mkroot() {	# mkroot NAME MODE: a fake embedded root of the dead run naming the victim
	rm -rf "/tmp/$1"
	mkdir -p "/tmp/$1/run"
	echo "$dead" >"/tmp/$1/owner.pid"
	echo "$victim" >"/tmp/$1/run/k9.pid"
	chmod "$2" "/tmp/$1"
}
mkroot mhl-hk-mode 0755
mkroot mhl-hk-other 0700
chown -R nobody "/tmp/mhl-hk-other" 2>/dev/null
mkdir -p "$work/linked" && echo "$dead" >"$work/linked/owner.pid" && echo "$victim" >"$work/linked/k9.pid"
chmod 0700 "$work/linked"
ln -sfn "$work/linked" /tmp/mhl-hk-link
mkroot mhl-hk-ours 0700
$LAB cleanup >"$work/cleanup.out" 2>&1
ok "cleanup: a process named qemu-system-x86_64 that runs no guest of the dead run survives" kill -0 $victim
ok "cleanup: a /tmp/mhl-* of mode 0755 is left alone" test -f /tmp/mhl-hk-mode/owner.pid
ok "cleanup: a /tmp/mhl-* owned by another user is left alone" test -f /tmp/mhl-hk-other/owner.pid
ok "cleanup: a symlink /tmp/mhl-* and what it points to are left alone" \
	test -L /tmp/mhl-hk-link -a -f "$work/linked/owner.pid"
ok "cleanup: this user's root of a dead run (0700) is removed, saying so" \
	sh -c "test ! -e /tmp/mhl-hk-ours && grep -q 'removing /tmp/mhl-hk-ours, left by run $dead' '$work/cleanup.out'"
kill $victim 2>/dev/null
wait $victim 2>/dev/null
rm -rf /tmp/mhl-hk-mode /tmp/mhl-hk-other /tmp/mhl-hk-link /tmp/mhl-hk-ours

echo "# hardening: a run killed mid-way: its lost trial is reported, --resume runs only the trials without a record"
sed -e 's/^name: k9$/name: k9r/' -e '/wait: {seconds: 20}/d' "$work/k9.yaml" >"$work/k9r.yaml"
lab_bg run -j 1 -o "$work/k9r" "$work/k9r.yaml" >"$work/k9r.out" 2>&1
for _ in $(seq 1 1200); do
	[ "$(wc -l <"$work/k9r/trials.jsonl" 2>/dev/null)" = 1 ] && grep -q '\[2/2\].*step 1/' "$work/k9r.out" && break
	sleep 0.1
done
kill -9 "$lab_pid"
lab_wait >/dev/null 2>&1
ok "killed run: one record, two trials started (started.jsonl), run.json names the scenario" \
	sh -c "test \$(wc -l <'$work/k9r/trials.jsonl') = 1 && test \$(wc -l <'$work/k9r/started.jsonl') = 2 && jq -e '.scenarios == [\"$work/k9r.yaml\"]' '$work/k9r/run.json' >/dev/null"
lab report "$work/k9r" >"$work/k9r-report.out" 2>&1
k9r_lost() {	# RUN_DIR/report: k9r:size=96MiB lost, k9r:size=64MiB passed, in KTAP, JUnit, KCIDB and HTML
	local r=$1/report
	grep -q '^ok 1 k9r:size=64MiB$' "$r/results.ktap" && grep -q '^not ok 2 k9r:size=96MiB # ERROR lost: the trial started' "$r/results.ktap" ||
		{ echo "KTAP: $(grep 'k9r:' "$r/results.ktap")"; return 1; }
	[ "$(xmllint --xpath 'string(//testcase[@name="k9r:size=96MiB"]/error/@type)' "$r/junit.xml")" = lost ] &&
		[ "$(xmllint --xpath 'count(//testcase[@name="k9r:size=64MiB"]/*[self::error or self::failure or self::skipped])' "$r/junit.xml")" = 0 ] &&
		[ "$(xmllint --xpath 'string(/testsuites/@errors)' "$r/junit.xml")" = 1 ] || { echo "JUnit: 96MiB not the one error of type lost"; return 1; }
	jq -e '[.tests[] | select(.path | test("^memhp\\.k9r\\.k9r_size_(64|96)MiB$")) | [.path, .status, .misc.verdict]] ==
		[["memhp.k9r.k9r_size_64MiB", "PASS", "pass"], ["memhp.k9r.k9r_size_96MiB", "MISS", "lost"]]' "$r/kcidb.json" >/dev/null ||
		{ echo "KCIDB: not 64MiB PASS and 96MiB MISS (lost)"; return 1; }
	grep -q "^<tr><td><a href='#t2'>k9r:<wbr>size=96MiB</a></td><td>k9r</td><td class=lost>lost</td>" "$r/index.html" &&
		grep -q "^<h3>k9r:size=96MiB: <span class=lost>lost</span></h3>" "$r/index.html" &&
		grep "class='headline" "$r/index.html" | grep -q "<b>1 lost " || { echo "HTML: k9r:size=96MiB's row and section not lost"; return 1; }
}
ok "report of the killed run: the second trial (k9r:size=96MiB) is 'lost' in every format (KTAP ERROR lost, JUnit error type lost, KCIDB MISS, HTML row and section), the first passed" \
	k9r_lost "$work/k9r"
lab run --resume "$work/k9r" >"$work/k9r-resume.out" 2>&1
rc=$?
ok "run --resume: exit 0, ran only the trial without a record (1 of 2), now both recorded once" \
	sh -c "test $rc = 0 && grep -q '1 of 2 trial(s) have no record yet' '$work/k9r-resume.out' && jq -se '[.[].trial] | sort == [\"k9r:size=64MiB\", \"k9r:size=96MiB\"]' '$work/k9r/trials.jsonl' >/dev/null"
expect_fail "run --resume of a complete run is refused" 2 'is complete \(all 2 trial\(s\) have their record\)' \
	$LAB run --resume "$work/k9r"
expect_fail "run --resume with a scenario is refused" 2 'give none of them' $LAB run --resume "$work/k9r" "$work/k9r.yaml"

echo "# hardening: a guest of a killed run on a libvirt daemon: the daemon keeps it, 'cleanup --uri' destroys it"
timed $((run_timeout + 120)) unshare -m --propagation private tests/libvirtd-dead-run.sh "$work/ldd" "$top/$LAB" scenarios/demo.yaml
ok "daemon: the killed run's guest still ran, then 'cleanup --uri' destroyed 1 domain and none is left" \
	sh -c "grep -q '^memhp-demo-' '$work/ldd/before' && grep -q '^cleanup: 1 domain(s) of runs that are gone destroyed' '$work/ldd/cleanup.out' && ! grep -q 'memhp-' '$work/ldd/after'"
