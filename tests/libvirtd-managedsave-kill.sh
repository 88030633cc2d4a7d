#!/bin/bash
# tests/libvirtd-managedsave-kill.sh DIR LAB SCENARIO - a memhp-lab run on a
# system libvirtd (tests/libvirtd-lib.sh; call it under `unshare -m
# --propagation private`) killed with SIGKILL 3 s into a managedsave step,
# while the step has the domain defined; then `memhp-lab cleanup`. Writes
# DIR/before and DIR/after (`virsh list --all --name` around the cleanup),
# DIR/savedir (the daemon's managed save directory after it) and DIR/rc.
set -u
dir=$1 lab=$2 scenario=$3
. "$(dirname "$0")/libvirtd-lib.sh"
libvirtd_start "$dir" || exit 2
"$lab" run --uri qemu:///system -o "$dir/run" --only '*kernel=6.12,policy=series' "$scenario" >"$dir/run.out" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do grep -q ': managedsave (' "$dir/run.out" 2>/dev/null && break; sleep 0.1; done
sleep 3
kill -9 $pid
wait $pid 2>/dev/null
sleep 8
virsh -c qemu:///system list --all --name >"$dir/before" 2>&1
"$lab" cleanup --uri qemu:///system >"$dir/cleanup.out" 2>&1
rc=$?
virsh -c qemu:///system list --all --name >"$dir/after" 2>&1
ls -A /var/lib/libvirt/qemu/save/ >"$dir/savedir" 2>&1
libvirtd_stop "$dir"
echo "pid=$pid cleanup=$rc" >"$dir/rc"
