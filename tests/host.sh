# tests/host.sh - the host side of elasticity (issue 21), sourced by
# tests/run.sh (uses its ok/lab_run/lab_bg helpers, $LAB, $work and the demo
# fixture): does the host get the memory back, from which backing,
# how fast; the plug path; the hugepage pool left as it was, a kill -9
# included. Shipped scenarios: scenarios/host/*.yaml (docs/host.md).

# The host's pool of 2 MiB pages, and hugetlbfs mounts of embedded roots.
plan 14 full 16
pool2m() { cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages; }
# hugetlbfs mounts of embedded roots whose run is gone (a run going on beside
# this one keeps its own).
huge_mounts() {
	local m n=0 pid
	for m in $(awk '$3 == "hugetlbfs" && $2 ~ "^/tmp/mhl-[^/]*/hugepages-[0-9]*kB$" { print $2 }' /proc/mounts); do
		pid=$(cut -d' ' -f1 "${m%/*}/owner.pid" 2>/dev/null)
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || n=$((n + 1))
	done
	echo $n
}
pool_before=$(pool2m)

echo "# host: the demo's unplug, as the host sees it (QEMU's /proc/PID/smaps)"
demo=$(fixture demo)/run
r=$demo/trials.jsonl
ok "demo: QEMU's memory read from its /proc (embedded driver: host.source proc)" \
	jq -e '.host.source == "proc" and .host.memory_backing == "anonymous"' "$r"
ok "demo: the unplug's host side measured on node 1's backend: resident before > 0, 0 after" \
	jq -e '.steps[1].host | .measured_by == "backend" and .before.backend_bytes."1" > 0 and .after.backend_bytes."1" == 0' "$r"
ok "demo: the host got back >= 90 % of what the backend held (summary), QEMU's RSS fell as much, timeline has host entries" \
	jq -e '.summary.host_reclaimed_of_reclaimable >= 0.9 and
		(.steps[1].host | (.before.qemu_rss_bytes - .after.qemu_rss_bytes) >= 0.9 * .reclaimed_bytes) and
		([.timeline[] | select(.source == "host")] | length) >= 2' "$r"

ok "demo report: the summary's 'host got back' cell, and the timeline's host series on its right axis" \
	sh -c 'grep -q "<th>host got back</th>" "$1" && grep -qE "<td>[0-9]+ MiB \(([89][0-9]|100) %\)</td>" "$1" &&
		grep -q "host: QEMU resident (right axis)" "$1" && grep -q "host: virtio-mem backends resident (right axis)" "$1"' \
	_ "$demo/report/index.html"

# hb NAME ONLY: scenarios/host/backings.yaml's trial matching ONLY into
# $work/hb-NAME; r is its records (not in a subshell: lab_run counts checks).
hb() {
	lab_run -o "$work/hb-$1" --only "$2" scenarios/host/backings.yaml >"$work/hb-$1.out" 2>&1
	[ $? = 0 ] || tail -n 5 "$work/hb-$1.out" | sed 's/^/#   /'
	r=$work/hb-$1/trials.jsonl
}

echo "# host: memory_backing hugepages (2 MiB), the pin held, series"
hb huge '*backing=hugepages,prealloc=false,policy=series'
ok "hugepages: pass; the pool grew by what the guest maps at most ((1 GiB + 128 MiB + 1 GiB) / 2 MiB = 1088 pages)" \
	jq -e '.verdict == "pass" and .host.memory_backing == "hugepages" and .host.hugepage_bytes == 2097152 and .host.pool_added_pages == 1088' "$r"
ok "hugepages: the unplug returned the device's 512 hugepages to the host pool, its backend held 0 after" \
	jq -e '.steps[1].host | .pool_returned_pages == 512 and .after.backend_bytes."1" == 0 and .before.backend_bytes."1" > 0' "$r"
ok "hugepages: after the run the host pool is as before ($pool_before pages), no hugetlbfs mount or pool state left" \
	sh -c '[ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" = "$1" ] && [ "$2" = 0 ] &&
		[ -z "$(ls /run/memhp-lab/hugepool 2>/dev/null)" ]' _ "$pool_before" "$(huge_mounts)"

echo "# host: memory_backing memfd (shared), the pin held, series"
hb memfd '*backing=memfd,prealloc=false,policy=series'
ok "memfd: pass, the host got back >= 90 % of what the backend held" \
	jq -e '.verdict == "pass" and .host.memory_backing == "memfd" and .steps[1].host.reclaimed_of_reclaimable >= 0.9' "$r"

echo "# host: a pin held in place (baseline): the unplug stops short at the pinned blocks"
hb base '*backing=anonymous,prealloc=false,policy=baseline'
ok "baseline: pass (the unplug stopped short, as expected); the backend keeps no more than stays plugged, what it held beyond came back (>= 90 %)" \
	jq -e '.verdict == "pass" and .steps[1] as $s | $s.converged == false and $s.reached_bytes > 0 and
		$s.host.after.backend_bytes."1" <= $s.reached_bytes and
		($s.host.reclaimable_bytes == 0 or $s.host.reclaimed_of_reclaimable >= 0.9)' "$r"

echo "# host: the plug path (scenarios/host/plug.yaml: 0 -> 1 GiB -> 4 GiB -> 0)"
lab_run -o "$work/plug" scenarios/host/plug.yaml >"$work/plug.out" 2>&1
r=$work/plug/trials.jsonl
ok "plug: both grows onlined: MemTotal grew by exactly the plugged bytes, 8 and 24 more 128 MiB blocks online" \
	jq -e '.verdict == "pass" and ([.steps[0].plug, .steps[1].plug] | all(.online and .memtotal_after_bytes - .memtotal_before_bytes == .plugged_bytes)) and
		.steps[0].plug.online_blocks_after - .steps[0].plug.online_blocks_before == 8 and
		.steps[1].plug.online_blocks_after - .steps[1].plug.online_blocks_before == 24' "$r"
ok "plug: request -> plugged -> online in order, the summary has the last grow's plug_to_online_s" \
	jq -e '([.steps[0].plug, .steps[1].plug] | all(.seconds_to_plugged > 0 and .seconds_to_online >= .seconds_to_plugged)) and
		.summary.plug_to_online_s == .steps[1].plug.seconds_to_online' "$r"
ok "plug: the shrink has no plug path, its host side does" \
	jq -e '(.steps[2].plug == null) and .steps[2].host.unplugged_bytes == 4294967296 and .summary.plug_to_online_s > 0' "$r"

echo "# host: kill -9 during a hugepage-backed trial: the run's guard takes the pool back"
lab_bg run -o "$work/hb-kill" --only '*backing=hugepages,prealloc=false,policy=series' scenarios/host/backings.yaml
lab_pids="$lab_pids $lab_pid"
for _ in $(seq 600); do [ "$(pool2m)" -gt "$pool_before" ] && break; sleep 0.1; done
grown=$(pool2m)
# qemu_hb PID: the QEMU processes of memhp-lab PID's host-backings guests
qemu_hb() { pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=memhp-host-backings[^ ,]*-$1-[0-9]" | xargs; }
for _ in $(seq 600); do [ -n "$(qemu_hb "$lab_pid")" ] && break; sleep 0.1; done
hb_pid=$lab_pid hb_qemu=$(qemu_hb "$lab_pid")
kill -9 "$lab_pid" 2>/dev/null
lab_wait
for _ in $(seq 100); do [ -z "$(qemu_hb "$hb_pid")" ] && [ "$(pool2m)" = "$pool_before" ] && break; sleep 0.1; done
hb_gone() {	# GROWN BEFORE QEMU_PIDS QEMU_NOW: the pool grew, QEMU ran, none runs now
	local p
	[ "$1" -gt "$2" ] && [ -n "$3" ] && [ -z "$4" ] || return 1
	for p in $3; do ! pid_alive "$p" || return 1; done
}
ok "kill -9: the pool had grown ($pool_before -> $grown pages) and the run's QEMU was running; none is left (the guard)" \
	hb_gone "$grown" "$pool_before" "$hb_qemu" "$(qemu_hb "$hb_pid")"
ok "kill -9: the guard took the pages back (pool $pool_before again), unmounted hugetlbfs, left no pool state" \
	sh -c '[ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" = "$1" ] && [ "$2" = 0 ] &&
		[ -z "$(ls /run/memhp-lab/hugepool 2>/dev/null)" ]' _ "$pool_before" "$(huge_mounts)"

if full; then
	# Issue 36, item 5: plugging touches nothing, so run takes a 64 GiB
	# device on a 24 GiB host (it counts boot memory + what the steps touch).
	echo "# host (full): a 64 GiB virtio-mem device on this host (scenarios/scale/64g-unused.yaml)"
	lab_run -o "$work/s64" scenarios/scale/64g-unused.yaml >"$work/s64.out" 2>&1
	r=$work/s64/trials.jsonl
	ok "64 GiB: plugged whole and online (MemTotal grew by exactly 64 GiB), then unplugged unused to 0: pass" \
		jq -e '.verdict == "pass" and .steps[0].plug.plugged_bytes == 68719476736 and .steps[0].plug.online and
			.steps[0].plug.memtotal_after_bytes - .steps[0].plug.memtotal_before_bytes == 68719476736 and
			.steps[1].reached_bytes == 0' "$r"
	ok "64 GiB: the plug touched next to nothing on the host: the backend held <= 64 MiB after it and 0 after the unplug, QEMU's RSS never reached 4 GiB" \
		jq -e '.steps[0].host.after.backend_bytes."1" <= 67108864 and .steps[1].host.after.backend_bytes."1" == 0 and
			([.timeline[] | select(.source == "host") | .qemu_rss_bytes] | max) < 4294967296' "$r"
fi
