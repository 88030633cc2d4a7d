#!/bin/bash
# tests/libvirtd-run.sh DIR LAB SCENARIO - run one scenario through a system
# libvirtd that this script starts and stops itself, with tests/oracle.py
# watching the same domain through libvirt-python.
#
# Run it under `unshare -m --propagation private` (tests/libvirtd-lib.sh). Outputs in DIR: run/ (the memhp-lab run), oracle.jsonl,
# libvirtd.log, run.out, oracle.err.
set -u
dir=$1 lab=$2 scenario=$3
. "$(dirname "$0")/libvirtd-lib.sh"
libvirtd_start "$dir" || exit 2
/usr/bin/python3 "$(dirname "$0")/oracle.py" qemu:///system memhp-oracle "$dir/oracle.jsonl" \
	180 2>"$dir/oracle.err" &
oracle=$!
"$lab" run --uri qemu:///system -o "$dir/run" "$scenario" >"$dir/run.out" 2>&1
rc=$?
wait $oracle
orc=$?
libvirtd_stop "$dir"
echo "run=$rc oracle=$orc" >"$dir/rc"
