#!/bin/bash
# tests/libvirtd-restart.sh DIR - restart the libvirtd of a test host started
# by fleet_host_start DIR unix (tests/libvirtd-lib.sh) under its running
# guests: what a daemon-restart step's run --daemon-restart runs in the
# tests (tests/lifecycle-daemon.sh). The daemon is the child of the
# namespace's PID 1 (tests/libvirtd-host.sh, pid in DIR/ns.pid) named
# libvirtd; DIR/restart tells that shell to start it again once it ends, the
# same way and with the same configuration and socket; then it gets SIGTERM.
# libvirtd leaves its QEMU processes running when it stops (they are not its
# children: daemonized, their parent is the namespace's PID 1, which stays),
# and the new daemon finds them again from its state under the namespace's
# /run. Returns once the old daemon has ended and a new one runs: whether it
# answers yet is the caller's to find out (the lab retries). Exit 2: no such
# daemon; 3: it did not end within 30 s; 4: no new one within 10 s.
set -u
dir=$1
ns=$(cat "$dir/ns.pid" 2>/dev/null) && [ -n "$ns" ] || { echo "no namespace pid in $dir/ns.pid" >&2; exit 2; }
old=$(pgrep -P "$ns" -x libvirtd) || { echo "no libvirtd under the namespace's PID 1 ($ns)" >&2; exit 2; }
touch "$dir/restart"
kill -TERM "$old"
for _ in $(seq 1 300); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$old" 2>/dev/null; then
	rm -f "$dir/restart"
	echo "libvirtd $old did not end within 30 s of SIGTERM" >&2
	exit 3
fi
for _ in $(seq 1 100); do
	new=$(pgrep -P "$ns" -x libvirtd) && { echo "libvirtd $old ended, $new started"; exit 0; }
	sleep 0.1
done
echo "no new libvirtd under the namespace's PID 1 ($ns) within 10 s of the old one's end" >&2
exit 4
