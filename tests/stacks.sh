# tests/stacks.sh - the hypervisor stack as a run's axis (issue 50,
# docs/stacks.md), sourced by tests/run.sh. Fast tier: the demo on the
# backports stack (QEMU 10.0, libvirt 11.3 from the lab's own root, built on
# first use into $MEMHP_CACHE/stacks/ like the kernels: once per machine,
# about 2 min), its record naming the stack with its versions, nothing of
# its namespaces left after it or after a kill -9 mid-trial; check's and
# run's refusals; --compare against the host's own stack says what changed.
# Full tier: one run over both stacks (a stack matrix axis: a session each);
# a short soak on backports; a hot-added virtio-mem device detached after
# its resize to 0 (backports: removed; debian: a skip naming QEMU 8.1), and
# detached with memory plugged (refused on both: the xfail); dynamicMemslots
# (backports: 3 memslots at 3 GiB, 0 at 0; debian: a skip naming libvirt/QEMU).

plan 9 full 20

# stack_left DIR: a process of the stack started for run directory DIR still runs
# (stacks/host.sh's argv names DIR/libvirtd-backports.log; QEMU and libvirtd are its descendants).
# A function, not sh -c: pgrep -f would find the pattern in sh's own argv.
stack_left() { pgrep -f -- "stacks/host.sh .* $1/libvirtd-backports.log" >/dev/null; }
# run_gone DIR PID: neither the stack of run directory DIR nor a QEMU of the demo run PID is left.
run_gone() { ! stack_left "$1" && ! pgrep -f "guest=memhp-demo-$2-" >/dev/null; }
# daemon_logged DIR: the stack's daemon has its log in the run directory, and QEMU's log of the guest beside it names QEMU 10.0's command line.
daemon_logged() {
	test -e "$1/libvirtd-backports.log" && grep -q -- '-name guest=memhp-demo-' "$1"/libvirtd-backports-qemu/memhp-demo-*.log &&
		grep -q 'starting up libvirt version: 11\.3\.[0-9]*, .*qemu version: 10\.0\.' "$1"/libvirtd-backports-qemu/memhp-demo-*.log
}
# both_gone PID: no QEMU of the both-stacks run PID.
both_gone() { ! pgrep -f "guest=memhp-stacks-demo-[^ ,]*-$1-" >/dev/null; }

echo "# backports: the demo on QEMU 10.0 + libvirt 11.3 (the stack built first if this machine has none: $([ -e "$cache/stacks/backports/current" ] && echo cached || echo 'first build, ~2 min'))"
lab_run --stack backports -o "$work/bp" scenarios/demo.yaml >"$work/bp.out" 2>&1
rc=$?
grep -E '^\[stack backports\] (done|mmdebstrap)' "$work/bp.out" | sed 's/^/# /'
r=$work/bp/trials.jsonl
ok "backports: run --stack backports scenarios/demo.yaml exits 0, its trial passed" \
	sh -c "test $rc = 0 && jq -e '.verdict == \"pass\"' '$r'"
ok "backports: the record names the stack with the versions its daemon reported: QEMU 10.0, libvirt 11.3 (stack and host_identity)" \
	jq -e '.stack.name == "backports" and (.stack.qemu | startswith("10.0.")) and (.stack.libvirt | startswith("11.3.")) and
		.host_identity.stack == "backports" and .host_identity.qemu == .stack.qemu and .host_identity.libvirt == .stack.libvirt' "$r"
ok "backports: the unplug reached 0 with the pin migrated out, and QEMU's backend was read from this host's /proc: 100 % back" \
	jq -e '.summary.reached_bytes == 0 and .summary.pinned_pages_movable_after == 0 and .host.source == "proc" and
		.summary.host_reclaimed_of_reclaimable >= 0.99' "$r"
ok "backports: the stack's daemon and its QEMU logged into the run directory, and nothing of its namespaces (unshare, libvirtd, QEMU) is left" \
	eval 'daemon_logged "$work/bp" && run_gone "$work/bp" "$lab_pid"'

echo "# backports: kill -9 of the run in its pin step"
lab_bg run --stack backports -o "$work/k9" scenarios/demo.yaml >"$work/k9.out" 2>&1
for _ in $(seq 1 600); do grep -q 'step 1/4' "$work/k9.out" && break; sleep 0.1; done
saw=0
stack_left "$work/k9" && pgrep -f "guest=memhp-demo-$lab_pid-" >/dev/null && saw=1
kill -9 "$lab_pid"
lab_wait
sleep 3
ok "backports: kill -9 of memhp-lab in its pin step (its daemon and QEMU seen running) leaves none of them 3 s later" \
	eval 'test "$saw" = 1 && run_gone "$work/k9" "$lab_pid"'

printf 'name: bad-stack\nstack: jammy\nnodes:\n  - memory: 1GiB\n' >"$work/bad.yaml"
expect_fail "check: an unknown stack is refused at its file:line:column with the known ones" 1 \
	"bad.yaml:2:8: stack: unknown hypervisor stack 'jammy' \(known: debian, backports\)" $LAB check "$work/bad.yaml"
ok "check: a stack matrix axis expands to one trial per stack" \
	sh -c "$LAB check --json scenarios/stacks/demo.yaml | jq -e '[.files[0].trials[].id] == [\"stacks-demo:stack=debian\", \"stacks-demo:stack=backports\"]'"
expect_fail "run: --stack backports with --uri (a daemon of the team's own) is refused before anything starts" 2 \
	"runs on the backports stack, which memhp-lab starts itself; --uri" $LAB run --uri qemu:///system --stack backports scenarios/demo.yaml

f=$(fixture demo)
ok "compare: the backports run against the demo on the host's own stack says 'host changed: stack debian -> backports' with both versions" \
	sh -c "$LAB report '$work/bp' --compare '$f/run' 2>&1 | grep -E 'host changed: stack debian -> backports, libvirt [0-9.]+ -> 11\.3\.[0-9]+, qemu [0-9.]+ -> 10\.0\.[0-9]+'"

if full; then
	echo "# full: scenarios/stacks/demo.yaml, the demo on both stacks in one run (a session each)"
	lab_run -o "$work/both" scenarios/stacks/demo.yaml >"$work/both.out" 2>&1
	rc=$?
	r=$work/both/trials.jsonl
	ok "both: the run exits 0, one trial per stack, both passed" \
		sh -c "test $rc = 0 && jq -se '[.[] | [.trial, .verdict]] == [[\"stacks-demo:stack=debian\", \"pass\"], [\"stacks-demo:stack=backports\", \"pass\"]]' '$r'"
	ok "both: each record names its own stack: debian with the host's QEMU and libvirt, backports with 10.0 and 11.3" \
		jq -se --arg q "$(/usr/bin/qemu-system-x86_64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')" \
		'.[0].stack.name == "debian" and .[0].stack.qemu == $q and .[1].stack.name == "backports" and (.[1].stack.qemu | startswith("10.0."))' "$r"
	ok "both: the dashboard line names both stacks, and no QEMU of the run is left" \
		eval 'grep -q "stack debian, backports" "$work/both/report/index.html" && both_gone "$lab_pid"'
	echo "# full: soak --stack backports, 3 cycles of scenarios/soak.yaml"
	lab soak --stack backports --cycles 3 -o "$work/soak" scenarios/soak.yaml >"$work/soak.out" 2>&1
	rc=$?
	ok "soak: 3 cycles on the backports stack pass; its record names the stack with QEMU 10.0" \
		sh -c "test $rc = 0 && jq -e '.verdict == \"pass\" and .stack.name == \"backports\" and (.stack.qemu | startswith(\"10.0.\")) and .host_identity.stack == \"backports\"' '$work/soak/trials.jsonl'"
	ok "soak: soak.json keeps the stack for --resume, which refuses another --stack" \
		sh -c "jq -e '.stack == \"backports\"' '$work/soak/soak.json' && ! $LAB soak --resume '$work/soak' --stack debian 2>/dev/null"
	echo "# full: scenarios/stacks/vmem-detach.yaml on both stacks"
	lab_run -o "$work/vd" scenarios/stacks/vmem-detach.yaml >"$work/vd.out" 2>&1
	rc=$?
	r=$work/vd/trials.jsonl
	ok "vmem-detach: the run exits 0: debian a skip naming the QEMU it needs (stack-lacks, 8.1) and the one it has, backports a pass" \
		sh -c "test $rc = 0 && jq -se '.[0].verdict == \"skip\" and (.[0].reason | test(\"^stack-lacks: the debian stack runs QEMU 7\\\\.[0-9.]+, and .*needs QEMU >= 8\\\\.1\\\\.0: \")) and
			(.[0].steps | length) == 0 and .[1].verdict == \"pass\"' '$r'"
	ok "vmem-detach: on QEMU 10.0 the device resized to 0 is removed (DEVICE_REMOVED), the guest's MemTotal back to what it was before the attach" \
		jq -se '.[1] | [.steps[] | select(.step == "vmem") | .elastic] | .[0].memtotal_before_bytes as $m0 |
			.[0].ok and .[0].plugged_bytes == 536870912 and .[1].action == "detach" and .[1].ok and .[1].removed and
			.[1].memtotal_after_bytes == $m0' "$r"
	ok "vmem-detach: the io_uring pin's data intact after the device is gone, none of it in ZONE_MOVABLE" \
		jq -se '.[1] | [.steps[] | select(.step == "check")][0].workload | .pattern_ok and .census.by_zone.Movable == 0' "$r"
	echo "# full: scenarios/other/vmem-hotadd.yaml on backports: detached with 128 MiB plugged"
	lab_run --stack backports -o "$work/vh" scenarios/other/vmem-hotadd.yaml >"$work/vh.out" 2>&1
	ok "vmem-hotadd on backports: the detach with memory plugged is refused by QEMU 10.0 as it says (the scenario's xfail)" \
		jq -e '.verdict == "xfail" and (.reason | test("cannot get unplugged while some of its memory is still plugged"))' "$work/vh/trials.jsonl"
	echo "# full: scenarios/stacks/dynamic-memslots.yaml on both stacks"
	lab_run -o "$work/dm" scenarios/stacks/dynamic-memslots.yaml >"$work/dm.out" 2>&1
	rc=$?
	ok "dynamic-memslots: debian a skip naming the QEMU it needs (8.2), backports a pass" \
		sh -c "test $rc = 0 && jq -se '.[0].verdict == \"skip\" and (.[0].reason | test(\"needs QEMU >= 8\\\\.2\\\\.0\")) and .[1].verdict == \"pass\"' '$work/dm/trials.jsonl'"
	ok "dynamic-memslots: QEMU 10.0 maps one memslot per plugged GiB: 3 at 3 GiB, none at 0" \
		jq -se '[.[1].steps[] | select(.step == "resize") | [.reached_bytes, .memslots]] == [[3221225472, 3], [0, 0]]' "$work/dm/trials.jsonl"
fi
