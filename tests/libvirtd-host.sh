#!/bin/bash
# tests/libvirtd-host.sh DIR unix|ADDR IFACE HIDE... - one libvirt "host" of a
# fleet test, run by fleet_host_start (tests/libvirtd-lib.sh) as PID 1 of its
# own PID and mount namespaces (and, for ADDR, its own network namespace):
# a system libvirtd that shares no writable path with the orchestrator or
# with another host. Its /tmp, /run and libvirt's state, log and cache
# directories are tmpfs of its own, /etc/libvirt is DIR/etc, and every HIDE
# path (the orchestrator's build directory and kernel cache; its run
# directories are under the hidden /tmp) is covered by an empty tmpfs, so the kernel and the guest image can reach it
# only through libvirt's storage API and the console only as a stream.
# Every path in DIR/show (NUL-separated: fleet_host_start --show) is bound
# back at the same path over those tmpfs: a migration peer's view of the
# guest's kernel and initramfs, wherever the checkout is (/tmp too).
#
# unix: the daemon listens on DIR/sock/libvirt-sock (qemu+unix:///system?socket=...).
# ADDR: it waits for IFACE (the veth peer fleet_host_start moves in), puts
# ADDR/30 on it and listens on ADDR:16509 (qemu+tcp://ADDR/system, no auth:
# the address exists on this veth pair only, nothing leaves the machine).
# Killing this script's namespace (SIGKILL to its unshare) is a host dying:
# the daemon and its QEMU processes go at once.
set -u
dir=$1 mode=$2 iface=$3
shift 3
. "$(dirname "$0")/libvirtd-lib.sh"
mkdir -p "$dir/sock"
libvirtd_etc "$dir"
{
	echo "log_outputs = \"3:file:$dir/libvirtd.log\""
	# a host UUID of its own: libvirt refuses a migration to "the same host"
	# (tests/migrate.sh), and where the machine has DMI every daemon reads its UUID
	echo "host_uuid = \"$(cat /proc/sys/kernel/random/uuid)\""
	if [ "$mode" = unix ]; then
		echo "unix_sock_dir = \"$dir/sock\""
	else
		printf 'listen_tcp = 1\nlisten_tls = 0\nauth_tcp = "none"\nlisten_addr = "%s"\n' "$mode"
	fi
} >"$dir/etc/libvirtd.conf"
mount --bind "$dir/etc" /etc/libvirt || exit 2
# Another run's hugetlbfs mounts (an embedded root's, under /tmp) are not this
# host's: the QEMU driver would fail its start on them once /tmp is hidden.
awk '$9 == "hugetlbfs" { print $5 }' /proc/self/mountinfo | while read -r m; do umount -l "$m"; done
# DIR itself (its log, its socket) stays visible through the tmpfs on /tmp:
# held at a place of its own first (mount(8) resolves /proc/self/fd to a path).
stash=/var/cache/libvirt
mount -t tmpfs tmpfs "$stash" && mkdir "$stash/host" && mount --bind "$dir" "$stash/host" || exit 2
# the shown paths, held under the stash before /tmp and the HIDE paths are covered
shown=()
if [ -s "$dir/show" ]; then
	mkdir "$stash/show" || exit 2
	while IFS= read -r -d '' p; do
		n=${#shown[@]}
		if [ -d "$p" ]; then mkdir "$stash/show/$n"; else : >"$stash/show/$n"; fi
		mount --bind "$p" "$stash/show/$n" || exit 2
		shown+=("$p")
	done <"$dir/show"
fi
for d in /tmp /run /var/lib/libvirt /var/log/libvirt "$@"; do
	mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || exit 2
done
for n in "${!shown[@]}"; do
	p=${shown[$n]}
	if [ -d "$stash/show/$n" ]; then
		mkdir -p "$p"
	else
		mkdir -p "$(dirname "$p")" && { [ -e "$p" ] || : >"$p"; }
	fi || exit 2
	mount --bind "$stash/show/$n" "$p" || exit 2
done
mkdir -p /run/lock	# /var/lock: libvirt's lock files for the consoles it streams
if [ ! -d "$dir/etc" ]; then
	mkdir -p "$dir" && mount --bind "$stash/host" "$dir" || exit 2
fi
listen=
if [ "$mode" != unix ]; then
	for _ in $(seq 1 100); do ip link show "$iface" >/dev/null 2>&1 && break; sleep 0.1; done
	ip link set lo up && ip addr add "$mode/30" dev "$iface" && ip link set "$iface" up || exit 2
	listen=--listen
fi
# In the foreground: this shell (PID 1 here) reaps what the daemon leaves.
# A restart (tests/libvirtd-restart.sh: DIR/restart, then SIGTERM) starts it
# again here, the same way: this shell, and so the namespace and the QEMU
# processes it holds, lives on while the daemon is away.
while :; do
	/usr/sbin/libvirtd $listen
	[ -e "$dir/restart" ] || break
	rm -f "$dir/restart"
done
