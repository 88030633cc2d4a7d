# tests/fleet.sh - shards for the batch engines teams already run (issue 18,
# item 5), sourced by tests/run.sh (uses its ok/expect_fail helpers, $LAB,
# $work): three shards of a matrix run side by side, each a stable part of
# the trial list, merged by report --merge into one run whose trial ids are
# exactly the unsharded run's; what merge refuses.

plan 22 full 33
echo "# fleet: run --shard K/N, three shards side by side, report --merge"
# Six trials whose ids fall in shards 1 and 2, three each (FNV-1a of the id,
# docs/fleet.md): shard 3 of 3 is empty.
printf 'name: shards\nmatrix:\n  n: [2, 3, 5, 6, 8, 9]\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n' >"$work/shards.yaml"
$LAB check --json "$work/shards.yaml" | jq -r '.files[0].trials[].id' >"$work/shards.all"
for k in 1 2 3; do
	timeout 600 $LAB run -j 1 --shard "$k/3" -o "$work/shard$k" "$work/shards.yaml" >"$work/shard$k.out" 2>&1 &
	eval "spid$k=\$!"
done
wait "$spid1"; s1=$?; wait "$spid2"; s2=$?; wait "$spid3"; s3=$?
dirs=()
for k in 1 2 3; do [ -d "$work/shard$k" ] && dirs+=("$work/shard$k"); done
ok "three shards ran side by side, each exit 0; the empty one (3/3) ran nothing, saying so, and made no run directory; 1/3 and 2/3 ran 3 trials each" \
	bash -c '[ "$1$2$3" = 000 ] && grep -q "shard 3/3: 0 of the run.s 6 trial(s)" "$4/shard3.out" && [ ! -e "$4/shard3" ] &&
		for k in 1 2; do grep -q "shard $k/3: 3 of the run.s 6 trial(s)" "$4/shard$k.out" &&
			[ "$(wc -l <"$4/shard$k/trials.jsonl")" = 3 ] || exit 1; done' _ "$s1" "$s2" "$s3" "$work"
ok "each shard's run.json names its own shard (K/3 in shardK) and the whole run's trial ids; no trial in two shards, none left out" \
	bash -c 'all=$(cat "$1"); shift; seen=""
		for d in "$@"; do
			[ "$(jq -r ".shard.trials[]" "$d/run.json")" = "$all" ] || exit 1
			[ "$(jq -r .shard.k_of_n "$d/run.json")" = "${d##*/shard}/3" ] || exit 1
			seen="$seen$(jq -r .trial "$d/trials.jsonl")
"
		done
		[ "$(printf "%s" "$seen" | sed "/^$/d" | sort)" = "$(sort <<<"$all")" ]' _ "$work/shards.all" "${dirs[@]}"
# Run again (full tier; the fast tier's unit rows pin the shard hash's test vectors).
full &&
ok "a shard is stable: shard 2/3 run again holds the same trials" \
	sh -c '"$1" run -q -j 1 --shard 2/3 -o "$2" "$3" >/dev/null 2>&1; a=$(jq -r .trial "$2/trials.jsonl" 2>/dev/null | sort);
		b=$(jq -r .trial "$4/trials.jsonl" 2>/dev/null | sort); [ -n "$a" ] && [ "$a" = "$b" ]' _ "$LAB" "$work/shard2b" "$work/shards.yaml" "$work/shard2"
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
# A GitLab job's run (full tier; the unit rows read CI_NODE_INDEX and the others).
full &&
ok "run --shard auto in a GitLab parallel job (CI_NODE_INDEX=1, CI_NODE_TOTAL=3): the trials of shard 1/3" \
	sh -c 'CI_NODE_INDEX=1 CI_NODE_TOTAL=3 "$1" run -q -j 1 --shard auto -o "$2" "$3" >/dev/null 2>&1;
		if [ -d "$4" ]; then [ "$(jq -r .trial "$2/trials.jsonl" | sort)" = "$(jq -r .trial "$4/trials.jsonl" | sort)" ];
		else [ ! -d "$2" ]; fi' _ "$LAB" "$work/shard-gitlab" "$work/shards.yaml" "$work/shard1"

# --- Many libvirt hosts from one orchestrator, no shared filesystem (issue 18, items 1-4) ---
# Two hosts, each a system libvirtd in PID and mount namespaces of its own
# (tests/libvirtd-host.sh: its own /tmp, /run, state and log directories;
# the build directory, the kernel cache and /tmp, where the run directories
# are, hidden under empty tmpfs), one reached over a UNIX socket, the other
# over TCP from its own network namespace through a veth pair made here.
echo "# fleet: run --host/--hosts over two libvirt hosts that share no path: upload, streamed console, a host killed, --resume"
. tests/libvirtd-lib.sh
fl_hide=("$(realpath "$B")" "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}")
touch "$work/fleet-paths"
fl_a=$(fleet_host_start "$work/hosts/a" unix "${fl_hide[@]}")
fl_b=$(fleet_host_start "$work/hosts/b" tcp "${fl_hide[@]}") fl_bdir=$work/hosts/b
ok "two libvirt hosts answer (UNIX socket; TCP over a veth pair from their own network namespace), and neither sees the orchestrator's binary, kernel cache or run directories" \
	bash -c '[ -n "$1" ] && [ -n "$2" ] && for d in a b; do p=$(cat "$3/hosts/$d/ns.pid") &&
		nsenter -t "$p" -m test ! -e "$4" -a ! -e "$3/fleet-paths" -a ! -e "$5/kernel" || exit 1; done' \
	_ "$fl_a" "$fl_b" "$work" "$(realpath "$LAB")" "${fl_hide[1]}"
printf 'hosts:\n  - uri: "%s"\n    slots: 1\n    labels: [unix]\n  - uri: "%s"\n    slots: 1\n    labels: [tcp]\n' "$fl_a" "$fl_b" >"$work/hosts.yaml"
printf 'name: fleet-crash\nhost_labels: [tcp]\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - sysrq: {key: c}\n  - wait: {seconds: 30}\n' >"$work/fleet-crash.yaml"
# fleet:n=1 holds host a 15 s longer than the crash holds host b (both boot
# the same guest; the crash ends at its panic), so fleet:n=2 can only start on
# b: the spread does not hang on how fast a guest boots (CI of 3562c8a: three
# 2.7-7.3 s trials all fitted on a before the crash's 10.6 s were over).
printf 'name: fleet\nmatrix:\n  n: [1, 2, 3]\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n  - wait: {seconds: 15, only: {n: 1}}\n' >"$work/fleet.yaml"
t0=$EPOCHSECONDS
lab_run -o "$work/fl1" --hosts "$work/hosts.yaml" "$work/fleet-crash.yaml" "$work/fleet.yaml" >"$work/fl1.out" 2>&1
echo "# fleet: a matrix and a crash over two hosts: $((EPOCHSECONDS - t0)) s"
ok "run --hosts: the matrix spread over both hosts, every trial passed, each record naming its host (domain.uri)" \
	bash -c 'jq -se "[.[] | select(.trial | startswith(\"fleet:\"))] | length == 3 and all(.verdict == \"pass\")
		and ([.[].domain.uri] | unique | sort) == ([\$a, \$b] | sort)" --arg a "$2" --arg b "$3" "$1/trials.jsonl" >/dev/null' \
	_ "$work/fl1" "$fl_a" "$fl_b"
ok "the kernel and the guest image reached each host through its storage pool only, once each, named by their SHA-256" \
	bash -c 'i=$(sha256sum "$4" | cut -c1-64)
		for u in "$2" "$3"; do v=$(virsh -q -c "$u" vol-list memhp-lab | awk "{print \$1}");
			[ "$(grep -c -- "-initramfs.cpio$" <<<"$v")" = 1 ] && grep -q "^$i-initramfs.cpio$" <<<"$v" &&
			[ "$(grep -c -- "-bzImage$" <<<"$v")" = 1 ] && grep -q "^$i.ok$" <<<"$v" || exit 1; done' \
	_ "$work/fl1" "$fl_a" "$fl_b" "$B/initramfs.cpio"
ok "the serial console came back as a stream: every record's console log (4 records, 4 logs) is in the local run directory with the kernel's boot lines; the host side says where it was read (libvirt)" \
	bash -c 'n=0; while read -r l s; do n=$((n + 1))
		[ "$(dirname "$l")" = "$1" ] && grep -q "Linux version" "$l" && [ "$s" = libvirt ] || exit 1
		done < <(jq -r ".console_log + \" \" + .host.source" "$1/trials.jsonl") &&
		[ "$n" = 4 ] && [ "$(jq -r .console_log "$1/trials.jsonl" | sort -u | wc -l)" = 4 ]' _ "$(realpath "$work/fl1")"
ok "sysrq-c on the TCP host (host_labels: [tcp]): error, its reason the panic line from the streamed console with file:line" \
	bash -c 'jq -se ".[] | select(.trial == \"fleet-crash\") | .verdict == \"error\" and .domain.uri == \$b and
		(.reason | test(\"Kernel panic - not syncing: sysrq triggered crash \\\\(.*fleet-crash.console.log:[0-9]+\\\\)\"))" \
		--arg b "$2" "$1/trials.jsonl" >/dev/null' _ "$work/fl1" "$fl_b"
# A host dies mid-trial (full tier): its namespace killed (daemon and QEMU) once its guest runs.
printf 'name: fleet-kill\nmatrix:\n  n: [1, 2]\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n  - wait: {seconds: 8}\n' >"$work/fleet-kill.yaml"
if full; then
t0=$EPOCHSECONDS
lab_bg run -j 1 -o "$work/fl2" --host "$fl_a" --host "$fl_b" "$work/fleet-kill.yaml" 2>"$work/fl2.err" >/dev/null
for _ in $(seq 1 1200); do
	t=$(grep -F "start on host $fl_b" "$work/fl2.err" | sed 's/.*\] \([^:]*:[^:]*\):.*/\1/')
	[ -n "$t" ] && grep -qF "$t: step 1/2" "$work/fl2.err" && break
	kill -0 "$lab_pid" 2>/dev/null || break
	sleep 0.1
done
fleet_host_kill "$work/hosts/b"
lab_wait; fl2=$?
echo "# fleet: a host killed mid-trial, its trial re-queued: $((EPOCHSECONDS - t0)) s"
ok "a host killed mid-trial: its trial recorded as error naming the host (requeued), run once more on the other host and passed; the run exits 0" \
	bash -c '[ "$2" = 0 ] && jq -se "(map(select(.requeued)) | length == 1 and (.[0].verdict == \"error\") and
		(.[0].reason | contains(\$b) and contains(\"went away during the trial\")) and (.[0].domain.uri == \$b))
		and (map(select(.requeued | not)) | length == 2 and all(.verdict == \"pass\" and .domain.uri == \$a))" \
		--arg a "$3" --arg b "$4" "$1/trials.jsonl" >/dev/null' _ "$work/fl2" "$fl2" "$fl_a" "$fl_b"
# host b is gone: a new one in its place
fl_b=$(fleet_host_start "$work/hosts/b2" tcp "${fl_hide[@]}") fl_bdir=$work/hosts/b2
fi
# A fleet run killed with SIGKILL: its guests die with its connection (autodestroy); --resume finishes it.
printf 'hosts:\n  - uri: "%s"\n  - uri: "%s"\n' "$fl_a" "$fl_b" >"$work/hosts2.yaml"
lab_bg run -j 1 -o "$work/fl3" --hosts "$work/hosts2.yaml" "$work/fleet-kill.yaml" 2>"$work/fl3.err" >/dev/null
for _ in $(seq 1 1200); do [ "$(grep -c ": step 1/2" "$work/fl3.err")" = 2 ] && break; kill -0 "$lab_pid" 2>/dev/null || break; sleep 0.1; done
# the run's guests (memhp-fleet-kill_n_K-...) as each host lists them before the kill: one each
fl3_before=$(for u in "$fl_a" "$fl_b"; do virsh -q -c "$u" list --name 2>/dev/null | grep -c '^memhp-fleet-kill_'; done | xargs)
kill -KILL "$lab_pid"; lab_wait
sleep 1
ok "a fleet run killed with SIGKILL leaves no guest on either host (its domains autodestroy with its connection): one guest of it on each before, each host's list answers with none after" \
	bash -c '[ "$1" = "1 1" ] || exit 1; shift
		for u; do l=$(virsh -q -c "$u" list --all --name) && [ -z "$(sed "/^$/d" <<<"$l")" ] || exit 1; done' _ "$fl3_before" "$fl_a" "$fl_b"
lab_run --resume "$work/fl3" >"$work/fl3.out" 2>&1
ok "run --resume of the killed fleet run: both trials (2 of 2 without a record) ran again over the hosts its run.json names, each recorded once, on one of them, and passed" \
	bash -c '[ "$(jq -r .hosts_file "$1/run.json")" = "$2" ] && grep -q "2 of 2 trial(s) have no record yet" "$5" &&
		jq -se "length == 2 and ([.[].trial] | sort) == [\"fleet-kill:n=1\", \"fleet-kill:n=2\"] and
			all(.[]; .verdict == \"pass\" and (.domain.uri | IN(\$a, \$b)))" --arg a "$3" --arg b "$4" "$1/trials.jsonl" >/dev/null' \
	_ "$work/fl3" "$(realpath "$work/hosts2.yaml")" "$fl_a" "$fl_b" "$work/fl3.out"
# A pool shared with other runs (issue 30, finding 18): a volume under the
# guest image's name whose content is not the image (its first 4 KiB
# overwritten) is neither reused nor deleted nor rewritten; the run boots from
# a part volume of its own, gone from the pool when the run ends.
ivol=$(sha256sum "$B/initramfs.cpio" | cut -c1-64)-initramfs.cpio
head -c 4096 /dev/urandom >"$work/garbage18"
virsh -q -c "$fl_a" vol-upload --pool memhp-lab "$ivol" "$work/garbage18" >/dev/null 2>&1
lab_run -o "$work/fl-pool" --host "$fl_a" --only 'fleet:n=2' "$work/fleet.yaml" >"$work/fl-pool.out" 2>&1
ok "a pool volume named as the guest image but holding other bytes: not reused (a warning names it), the trial passed from this run's own volume" \
	sh -c 'grep -qF "volume '"'"'$2'"'"' does not hold the file its name says" "$1/fl-pool.out" &&
		jq -e ".verdict == \"pass\"" "$1/fl-pool/trials.jsonl" >/dev/null' _ "$work" "$ivol"
ok "that volume is left as it was (its planted bytes still there), and no part volume of the run is left in the pool" \
	sh -c 'virsh -q -c "$1" vol-download --pool memhp-lab "$2" "$3/garbage18.back" >/dev/null 2>&1 &&
		cmp -s -n 4096 "$3/garbage18" "$3/garbage18.back" &&
		! virsh -q -c "$1" vol-list memhp-lab | grep -q "\.part-"' _ "$fl_a" "$ivol" "$work"
printf 'hosts:\n  - uri: "%s"\n    slotz: 1\n' "$fl_a" >"$work/hosts-bad.yaml"
expect_fail "--hosts: an unknown key is refused with file:line:col and the keys it knows" 2 \
	"hosts-bad.yaml:3:5: unknown key 'slotz' in a host \\(known: uri, slots, labels, pool\\)" \
	$LAB run --hosts "$work/hosts-bad.yaml" -o "$work/fl-bad" "$work/fleet.yaml"
# Every host gone before a trial started (here: the only host's pool does not
# exist, so its upload fails): each trial still ends recorded, the run says why.
printf 'hosts:\n  - uri: "%s"\n    pool: no-such-pool\n' "$fl_a" >"$work/hosts-nopool.yaml"
lab_run -j 2 -o "$work/fl-nopool" --hosts "$work/hosts-nopool.yaml" "$work/fleet.yaml" >"$work/fl-nopool.out" 2>&1
fl_np=$?
ok "a fleet run whose only host drops out before any trial (its pool does not exist): exit 3 (the lab or the host failed, not the kernel), not a crash; all 3 trials recorded as error, not_run, the reason naming the host and its pool; the table says 3 not run" \
	bash -c '[ "$2" = 3 ] && jq -se "length == 3 and all(.verdict == \"error\" and .not_run == true and
		(.reason | startswith(\"not run: no host was left to take it\") and contains(\$a) and contains(\"no-such-pool\")))" \
		--arg a "$3" "$1/trials.jsonl" >/dev/null && grep -q "0 passed, 0 failed, 0 error, 0 interrupted, 3 not run" "$4"' \
	_ "$work/fl-nopool" "$fl_np" "$fl_a" "$work/fl-nopool.out"
# No run deletes a volume it did not make (finding 18), so a host's pool only
# grows: `cleanup --volumes` empties it of the lab's volumes, and of nothing else.
virsh -q -c "$fl_a" vol-create-as memhp-lab keep-me.img 4096 >/dev/null 2>&1
fl_vols=$(virsh -q -c "$fl_a" vol-list memhp-lab 2>/dev/null | awk '{print $1}' | grep -cE '^[0-9a-f]{64}')
$LAB cleanup --uri "$fl_a" --volumes >"$work/fl-clean.out" 2>&1
ok "cleanup --uri HOST --volumes: the lab's $fl_vols volumes (kernel, guest image, marks) deleted from pool memhp-lab, saying how many; a volume of another name (keep-me.img) left" \
	sh -c '[ "$3" -ge 3 ] && grep -q "^cleanup: $3 volume(s) of memhp-lab deleted from pool .memhp-lab. on " "$2" &&
		[ "$(virsh -q -c "$1" vol-list memhp-lab | awk "{print \$1}")" = keep-me.img ]' _ "$fl_a" "$work/fl-clean.out" "$fl_vols"
expect_fail "run --host: a trial whose host_labels no host has is refused before anything connects" 2 \
	"trial 'fleet-crash' asks for a host with host_labels \\[tcp\\], and no host given has them all" \
	$LAB run --host "$fl_a" -o "$work/fl-bad2" "$work/fleet-crash.yaml"

# --- Soaks over hosts (issue 18, item 4; full tier): a soak per seed, one per host slot, side by side ---
# fs1: seeds 1 and 2, a host each (slots: 1), 3 cycles each. At the same time
# fs2: seed 3 on host c, which is killed after the first checkpoint (the soak
# goes on at cycle 2 on host a, a new segment), then memhp-lab itself is
# killed, and `soak --resume DIR` finishes it over the hosts it recorded.
if full; then
echo "# fleet: soak --hosts, seeds 1 and 2 side by side on two hosts; a soak whose host dies, killed, soak --resume DIR"
fl_c=$(fleet_host_start "$work/hosts/c" unix "${fl_hide[@]}")
printf 'hosts:\n  - uri: "%s"\n    slots: 1\n  - uri: "%s"\n    slots: 1\n' "$fl_a" "$fl_b" >"$work/hosts-soak.yaml"
printf 'hosts:\n  - uri: "%s"\n    slots: 1\n  - uri: "%s"\n    slots: 1\n' "$fl_c" "$fl_a" >"$work/hosts-soak2.yaml"
t0=$EPOCHSECONDS
timeout 600 $LAB soak --hosts "$work/hosts-soak.yaml" --seeds 1,2 --cycles 3 -o "$work/fs1" scenarios/soak.yaml \
	>"$work/fs1.out" 2>"$work/fs1.err" &
fs1_job=$!
lab_bg soak --hosts "$work/hosts-soak2.yaml" --seeds 3 --cycles 2 -o "$work/fs2" scenarios/soak.yaml 2>"$work/fs2.err" >/dev/null
for _ in $(seq 1 3000); do
	[ "$(cat "$work/fs2/seed-3/checkpoints.jsonl" 2>/dev/null | wc -l)" -ge 1 ] && break
	kill -0 "$lab_pid" 2>/dev/null || break
	sleep 0.1
done
fleet_host_kill "$work/hosts/c"
for _ in $(seq 1 3000); do
	grep -q "resuming at cycle 2, segment 1, .*on host $fl_a" "$work/fs2.err" && break
	kill -0 "$lab_pid" 2>/dev/null || break
	sleep 0.1
done
# its guest as host a lists it, starting
fs2_guest=
for _ in $(seq 1 300); do
	fs2_guest=$(virsh -q -c "$fl_a" list --all --name 2>/dev/null | grep '^memhp-soak-s3-') && break
	sleep 0.1
done
kill -KILL "$lab_pid"; lab_wait
# killed as its guest starts: the daemon destroys it once the start it was in is over
ok "a fleet soak killed with SIGKILL (its guest starting, in its host's list) leaves no guest of it on its host (autodestroy): within 10 s the host's list answers without it" \
	bash -c '[ -n "$2" ] || exit 1
		for _ in $(seq 1 100); do l=$(virsh -q -c "$1" list --all --name) || exit 1; grep -q "^memhp-soak-s3-" <<<"$l" || exit 0; sleep 0.1; done; exit 1' \
	_ "$fl_a" "$fs2_guest"
lab_bg soak --resume "$work/fs2" >"$work/fs2r.out" 2>"$work/fs2r.err"; lab_wait; fs2=$?
wait "$fs1_job"; fs1=$?
echo "# fleet: two soaks side by side, and a soak whose host died, killed and resumed: $((EPOCHSECONDS - t0)) s"
ok "soak --hosts --seeds 1,2: exit 0; both soaks ran at once, one on each host, both passed (summary.json, stdout)" \
	bash -c '[ "$2" = 0 ] && jq -e "length == 2 and all(.verdict == \"pass\" and .cycles == 3 and .findings == 0) and
		([.[].seed] == [\"1\", \"2\"]) and ([.[].host] | sort) == ([\$a, \$b] | sort)" --arg a "$3" --arg b "$4" "$1/summary.json" >/dev/null &&
		[ "$(jq -r .started "$1/seed-1/soak.json" "$1/seed-2/soak.json" | sort | tail -1)" \< "$(jq -r .t "$1/segments.jsonl" | sort | head -1)" ] &&
		grep -q "^  seed 1: pass, 3 cycle(s), 0 finding(s), host " "$5" && grep -q "^  seed 2: pass, 3 cycle(s)" "$5"' \
	_ "$work/fs1" "$fs1" "$fl_a" "$fl_b" "$work/fs1.out"
ok "each seed's run directory is a soak's: soak.json, checkpoints 1..3 with the schedule soak --print-schedule gives its seed, its record (pass) and report" \
	bash -c 'for s in 1 2; do d=$1/seed-$s
		[ "$(jq -r .seed "$d/soak.json")" = "$s" ] && [ "$(jq -c "[.cycle, .segment]" "$d/checkpoints.jsonl" | tr -d "\n")" = "[1,0][2,0][3,0]" ] &&
		[ "$(jq -c .schedule "$d/checkpoints.jsonl")" = "$("$2" soak --print-schedule --cycles 3 --seed "$s" scenarios/soak.yaml | jq -c ".[]")" ] &&
		jq -e ".verdict == \"pass\"" "$d/trials.jsonl" >/dev/null && [ -s "$d/report/index.html" ] || exit 1; done' _ "$work/fs1" "$LAB"
ok "each soak's serial console was streamed into its run directory from its host, with the guest's boot lines; DIR/soak.json names the seeds and the hosts file" \
	bash -c 'for s in 1 2; do grep -q "Linux version" "$1/seed-$s/soak-segment0.console.log" || exit 1; done &&
		jq -e ".seeds == [\"1\", \"2\"] and .hosts_file == \$f and .cycles == 3" --arg f "$2" "$1/soak.json" >/dev/null' \
	_ "$work/fs1" "$(realpath "$work/hosts-soak.yaml")"
ok "a host killed mid-soak: the soak stopped at its last checkpoint (cycle 1), segment 0 ended host_lost naming the host, and it went on at cycle 2 on the other host (segment 1)" \
	bash -c 'jq -se "(.[0] | .seed == \"3\" and .segment == 0 and .end == \"host_lost\" and .host == \$c and .last_cycle == 1 and
		(.reason | contains(\$c) and contains(\"went away during segment 0\")))" --arg c "$2" "$1/segments.jsonl" >/dev/null &&
		grep -q "soak seed 3: resumed once more on another host, from cycle 2" "$3" && grep -q "resuming at cycle 2, segment 1, .*on host $4" "$3"' \
	_ "$work/fs2" "$fl_c" "$work/fs2.err" "$fl_a"
ok "soak --resume DIR of the killed fleet soak: over the hosts it recorded (the dead one left out, saying so), exit 0, cycles 1..2 once each, the schedule of seed 3, passed" \
	bash -c '[ "$2" = 0 ] && grep -q "warning: cannot connect to host .$4." "$3" &&
		[ "$(jq -c .cycle "$1/seed-3/checkpoints.jsonl" | tr -d "\n")" = 12 ] &&
		[ "$(jq -c .schedule "$1/seed-3/checkpoints.jsonl")" = "$("$5" soak --print-schedule --cycles 2 --seed 3 scenarios/soak.yaml | jq -c ".[]")" ] &&
		jq -e ".verdict == \"pass\"" "$1/seed-3/trials.jsonl" >/dev/null && jq -e ".[0].verdict == \"pass\"" "$1/summary.json" >/dev/null' \
	_ "$work/fs2" "$fs2" "$work/fs2r.err" "$fl_c" "$LAB"
expect_fail "soak --resume DIR of soaks that are all over is refused before anything connects" 2 \
	"is complete: every soak has its record" $LAB soak --resume "$work/fs1"
expect_fail "soak --seeds without --host/--hosts is refused" 2 \
	"--seeds runs one soak per seed over hosts: give --host or --hosts" $LAB soak --seeds 1,2 --cycles 1 scenarios/soak.yaml
fleet_host_kill "$work/hosts/c"
fi
fleet_host_kill "$work/hosts/a"
fleet_host_kill "$fl_bdir"
