#!/bin/bash
# tests/libvirtd-run.sh DIR LAB SCENARIO - run one scenario through a system
# libvirtd that this script starts and stops itself, with tests/oracle.py
# watching the same domain through libvirt-python.
#
# Run it under `unshare -m --propagation private`: it bind-mounts its own
# copy of /etc/libvirt (a qemu.conf with the embedded driver's settings) and
# tmpfs on libvirt's run/state/log directories, so the machine's own libvirt
# configuration and state are never touched and nothing outlives the
# namespace. Outputs in DIR: run/ (the memhp-lab run), oracle.jsonl,
# libvirtd.log, run.out, oracle.err.
set -u
dir=$1 lab=$2 scenario=$3
mkdir -p "$dir/etc"
cp -a /etc/libvirt/. "$dir/etc/"
cat >"$dir/etc/qemu.conf" <<'CONF'
# memhp-lab test libvirtd: the embedded driver's settings (docs/architecture.md)
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
user = "root"
group = "root"
remember_owner = 0
CONF
mount --bind "$dir/etc" /etc/libvirt || exit 2
for d in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do
	mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || exit 2
done
LIBVIRT_LOG_OUTPUTS="3:file:$dir/libvirtd.log" /usr/sbin/libvirtd -d -p "$dir/libvirtd.pid" || exit 2
for _ in $(seq 1 100); do [ -S /run/libvirt/libvirt-sock ] && break; sleep 0.1; done
[ -S /run/libvirt/libvirt-sock ] || { echo "libvirtd did not create its socket" >&2; exit 2; }
/usr/bin/python3 "$(dirname "$0")/oracle.py" qemu:///system memhp-oracle "$dir/oracle.jsonl" \
	180 2>"$dir/oracle.err" &
oracle=$!
"$lab" run --uri qemu:///system -o "$dir/run" "$scenario" >"$dir/run.out" 2>&1
rc=$?
wait $oracle
orc=$?
# Stop it; it removes its pid file when it exits, so look for it by its command line.
pkill -TERM -f "libvirtd -d -p $dir/libvirtd.pid"
for _ in $(seq 1 100); do pgrep -f "libvirtd -d -p $dir/libvirtd.pid" >/dev/null || break; sleep 0.1; done
pkill -KILL -f "libvirtd -d -p $dir/libvirtd.pid"
echo "run=$rc oracle=$orc" >"$dir/rc"
