#!/bin/bash
# tests/libvirtd-dead-run.sh DIR LAB SCENARIO - a run through a system
# libvirtd (tests/libvirtd-lib.sh) killed with SIGKILL while its guest runs:
# the daemon owns the QEMU, so the guest survives its run; then
# `memhp-lab cleanup --uri` destroys it. Run under `unshare -m --propagation
# private`. Outputs in DIR: before (domains running after the kill), cleanup.out,
# after (domains running after the cleanup), rc.
set -u
dir=$1 lab=$2 scenario=$3
. "$(dirname "$0")/libvirtd-lib.sh"
libvirtd_start "$dir" || exit 2
"$lab" run --uri qemu:///system -o "$dir/run" "$scenario" >"$dir/run.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q 'step 1/' "$dir/run.out" 2>/dev/null && break; sleep 0.1; done
kill -9 $pid
wait $pid 2>/dev/null
sleep 1
virsh -c qemu:///system list --name >"$dir/before" 2>&1
"$lab" cleanup --uri qemu:///system >"$dir/cleanup.out" 2>&1
rc=$?
virsh -c qemu:///system list --name >"$dir/after" 2>&1
libvirtd_stop "$dir"
echo "pid=$pid cleanup=$rc" >"$dir/rc"
