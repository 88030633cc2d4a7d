#!/bin/bash
# workloads/mkinitramfs.sh OUT.cpio.gz MEMHP_PIN_BINARY [KSELFTEST_BINARY...]
# Builds the guest initramfs: busybox-static, Debian's qemu-ga and numactl with
# the shared libraries ldd lists (and the loader), our init and the static
# workloads; the series' kselftests (static) go to /bin/ksft/, where the
# scenario step `selftest:` runs them by name.
set -euo pipefail
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
mkdir -p "$root"/{bin,sbin,dev,proc,sys,run,tmp,etc,usr/sbin}
cp "$busybox" "$root/bin/busybox"
cp "$qga" "$root/usr/sbin/qemu-ga"
ln -s ../usr/sbin/qemu-ga "$root/bin/qemu-ga"
cp "$numactl" "$root/bin/numactl"
# Shared libraries of qemu-ga and numactl, at their own paths (the loader included).
ldd "$qga" "$numactl" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cp "$pin" "$root/bin/memhp-pin"
mkdir -p "$root/bin/ksft"
for t in "$@"; do
	[ -x "$t" ] || die "kselftest binary $t not found (make workloads)"
	cp "$t" "$root/bin/ksft/$(basename "$t")"
done
install -m 0755 "$here/init" "$root/init"
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
