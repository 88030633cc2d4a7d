#!/bin/bash
# workloads/mkinitramfs.sh OUT.cpio MEMHP_PIN_BINARY [KSELFTEST_BINARY...]
# Builds the guest initramfs: busybox-static, Debian's qemu-ga and numactl with
# the shared libraries ldd lists (and the loader), our init and the static
# workloads; the series' kselftests (static; only once their kernel is
# built: make image) go to /bin/ksft/, where the scenario step `selftest:`
# runs them by name. The archive is not compressed: under TCG the guest's
# gzip inflate of it was about a second of every boot (issue 36), and
# reading the plain cpio costs the kernel a copy. Our static binaries go in
# stripped (build/ keeps the ones with debug info).
# Every file and directory of the image gets a mode of its own (0755
# programs, libraries and directories, 0644 data, the image 0644), never one
# copied from the host's file or left to the caller's umask: the mktemp -d
# root was the guest's / with mode 0700 (issue 30, finding 19).
set -euo pipefail
umask 022
out=$1; pin=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
busybox=/bin/busybox
qga=/usr/sbin/qemu-ga
numactl=/usr/bin/numactl
[ -x "$busybox" ] && file -L "$busybox" | grep -q 'statically linked' ||
	die "$busybox is not the static busybox: install busybox-static (make deps)"
[ -x "$qga" ] || die "$qga not found: install qemu-guest-agent (make deps)"
[ -x "$numactl" ] || die "$numactl not found: install numactl (make deps)"
[ -x "$pin" ] || die "workload binary $pin not found (make workloads)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"	# the guest's /
mkdir -p -m 0755 "$root"/{bin,sbin,dev,proc,sys,run,tmp,etc,usr/sbin}
install -m 0755 "$busybox" "$root/bin/busybox"
# busybox --install -s /bin, done here rather than by every boot's init:
# each applet a link in /bin (none over a file the image has). One perl
# (Debian's perl-base is essential) for the 269 links: an ln each took 10 s
# on the loaded 2 cores.
"$busybox" --list | (cd "$root/bin" &&
	perl -ne 'chomp; next if !length || m{[/.]} || -e || -l; symlink("busybox", $_) or die "symlink $_: $!\n"')
install -m 0755 "$qga" "$root/usr/sbin/qemu-ga"
ln -s ../usr/sbin/qemu-ga "$root/bin/qemu-ga"
install -m 0755 "$numactl" "$root/bin/numactl"
# Shared libraries of qemu-ga and numactl, at their own paths (the loader
# included; install follows links as cp -L did).
ldd "$qga" "$numactl" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | while read -r lib; do
	install -D -m 0755 "$lib" "$root$lib"
done
install -s -m 0755 "$pin" "$root/bin/memhp-pin"
mkdir -p -m 0755 "$root/bin/ksft"
for t in "$@"; do
	[ -x "$t" ] || die "kselftest binary $t not found (make workloads)"
	install -s -m 0755 "$t" "$root/bin/ksft/$(basename "$t")"
done
install -m 0755 "$here/init" "$root/init"
install -m 0755 "$here/shutdown" "$root/sbin/shutdown"	# qemu-ga's guest-shutdown runs it
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
chmod 0644 "$root/etc/passwd"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
chmod 0644 "$out.tmp"
mv "$out.tmp" "$out"
