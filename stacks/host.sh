#!/bin/bash
# stacks/host.sh ROOT DIR LOG SHOW... - the libvirtd of a stack's root (stacks/build.sh),
# run by memhp-lab (host/stack.c) as PID 1 of PID and mount namespaces of its own:
#
#	unshare -m -p --fork --kill-child --mount-proc --propagation private stacks/host.sh ROOT DIR LOG SHOW...
#
# ROOT is the stack's root filesystem (QEMU 10.0, libvirt 11.3), shared by
# every run on this machine and never written: the daemon sees it through an
# overlay whose upper layer is a tmpfs of this namespace, so its state, logs
# and configuration are this run's alone and go with it. Its /etc/libvirt
# gets the embedded driver's settings (docs/architecture.md) and no network
# autostarted (a `default` network would take a bridge and dnsmasq on the
# host). The host's /tmp (DIR, the run's private directory /tmp/mhl-XXXXXX,
# is there; so is a save step's image directory) and every SHOW path (the
# guest's kernel and image, the run directory) are seen at the same paths,
# so the domain XML memhp-lab writes for the embedded driver works
# unchanged; /dev, /sys and a /proc of this PID namespace come in too.
# The daemon listens on DIR/sock/libvirt-sock
# (qemu+unix:///system?socket=DIR/sock/libvirt-sock), logs its warnings and
# errors to LOG (in the run directory, itself a SHOW path), QEMU's logs go to
# LOG's name without .log plus -qemu/ beside it, and it runs in the foreground under this shell: when the
# shell dies (memhp-lab ends: its unshare killed, or the run's cgroup
# killed by its guard) the namespace's every process, QEMU included, dies
# with it (docs/stacks.md).
set -u
root=$1 dir=$2 log=$3
shift 3
die() { echo "stacks/host.sh: $*" >&2; exit 2; }
[ -x "$root/usr/sbin/libvirtd" ] || die "'$root' is no stack root (no usr/sbin/libvirtd): stacks/build.sh builds one"
[ "$$" = 1 ] || die "run me as PID 1 of a PID namespace of my own (unshare -p --fork), not as pid $$"
[ -d "$dir" ] || die "'$dir' is not a directory"
# the overlay's layers on a tmpfs of this namespace, outside /tmp (which the root sees whole, below)
ns=/var/cache/libvirt
new=$ns/root
mkdir -p "$ns" && mount -t tmpfs -o mode=0700 tmpfs "$ns" && mkdir "$ns/upper" "$ns/work" "$new" ||
	die "cannot mount a tmpfs on '$ns'"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$ns/upper,workdir=$ns/work" "$new" ||
	die "cannot mount an overlay of '$root' on '$new'"
mount -t proc proc "$new/proc" || die "cannot mount /proc in '$new'"
mount --rbind /sys "$new/sys" && mount --rbind /dev "$new/dev" || die "cannot bind /sys and /dev into '$new'"
# /tmp is this host's, as the embedded driver sees it: a save step's image
# directory, the run's private directory, an embedded root's hugetlbfs mounts
mount --rbind /tmp "$new/tmp" && mount -t tmpfs -o mode=0755 tmpfs "$new/run" ||
	die "cannot bind /tmp and mount a tmpfs on /run in '$new'"
mkdir -p "$new/run/lock" "$dir/sock"
# the configuration: the embedded driver's qemu.conf, no autostarted network, our socket and log
rm -f "$new"/etc/libvirt/qemu/networks/autostart/*.xml
cat >"$new/etc/libvirt/qemu.conf" <<'CONF'
# memhp-lab stack libvirtd: the embedded driver's settings (docs/architecture.md)
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
user = "root"
group = "root"
remember_owner = 0
CONF
{
	echo "unix_sock_dir = \"$dir/sock\""
	echo "log_outputs = \"3:file:$log\""
	echo "host_uuid = \"$(cat /proc/sys/kernel/random/uuid)\""
} >"$new/etc/libvirt/libvirtd.conf"
# QEMU's own logs (its command line, its stderr) beside LOG, in the run directory: the overlay's go with it
qlogs=${log%.log}-qemu
mkdir -p "$qlogs" && mount --bind "$qlogs" "$new/var/log/libvirt/qemu" || die "cannot bind '$qlogs' on the root's /var/log/libvirt/qemu"
# DIR and what the guest needs, at the same paths
for p in "$@"; do
	[ -e "$p" ] || die "'$p' does not exist"
	if [ -d "$p" ]; then
		mkdir -p "$new$p"
	else
		mkdir -p "$new$(dirname "$p")" && { [ -e "$new$p" ] || : >"$new$p"; }
	fi || die "cannot make '$p' in '$new'"
	mount --bind "$p" "$new$p" || die "cannot bind '$p' into '$new'"
done
# In the foreground, under this shell: PID 1 here reaps what the daemon leaves,
# and the namespace lives exactly as long as the daemon does.
chroot "$new" /usr/sbin/libvirtd
echo "stacks/host.sh: libvirtd exited with status $?" >&2
