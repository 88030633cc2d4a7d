#!/bin/bash
# workloads/debian-guest.sh OUT.cpio.gz MEMHP_PIN_BINARY [KSELFTEST_BINARY...]
#
# The distro guest (scenario key `guest: debian`, issue 15): Debian 12's own
# userspace as the guest's root filesystem, so the distro's memory onlining
# (none: Debian ships no udev rule that onlines hotplugged memory), its udev
# and its qemu-guest-agent (started by its own udev rule and unit) run as in
# production. mmdebstrap builds it from apt (variant minbase plus systemd,
# udev, qemu-guest-agent, kmod); the tarball is cached in
# $MEMHP_CACHE/guest/ (built once, ~3 min). The lab adds only memhp-pin, the
# kselftests, and memhp-modules.service, which loads the modules a kernel
# package brings (the cpio kernel/package.sh makes, appended by the
# orchestrator) and logs each as the lab's own init does. The whole root
# filesystem is the initramfs: systemd runs as /init from it.
# What the lab adds gets a mode of its own (never the copied file's or the
# caller's umask's), the root / 0755 and the image 0644 (issue 30, finding 19).
set -euo pipefail
umask 022
out=$1; pin=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
say() { echo "[debian guest] $*" >&2; }
command -v mmdebstrap >/dev/null || die "mmdebstrap not found: install it (make deps)"
[ -x "$pin" ] || die "$pin not found (make workloads)"

suite=bookworm
pkgs=systemd,systemd-sysv,udev,qemu-guest-agent,kmod
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/guest
key=$(printf '%s %s v1' "$suite" "$pkgs" | sha256sum | cut -c1-12)
tar=$cache/debian-$suite-$key.tar
mkdir -p "$cache"
if [ ! -s "$tar" ]; then
	say "mmdebstrap $suite (minbase + $pkgs) from apt's sources: a few minutes, once"
	# the host's apt sources (mmdebstrap reads them when given no mirror); docs left out
	mmdebstrap --variant=minbase --format=tar --include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
		"$suite" "$tar.tmp" >&2 || die "mmdebstrap failed (see above)"
	mv "$tar.tmp" "$tar"
fi
say "root filesystem: $tar"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
tar -xf "$tar" -C "$root"
chmod 0755 "$root"	# the guest's / (mktemp -d made it 0700)
install -D -m 0755 "$pin" "$root/usr/bin/memhp-pin"
mkdir -p -m 0755 "$root/usr/bin/ksft"
for t in "$@"; do
	[ -x "$t" ] || die "kselftest binary $t not found (make workloads)"
	install -m 0755 "$t" "$root/usr/bin/ksft/$(basename "$t")"
done
install -m 0755 "$here/debian/memhp-modules" "$root/usr/local/sbin/memhp-modules"
install -m 0644 "$here/debian/memhp-modules.service" "$root/etc/systemd/system/memhp-modules.service"
ln -sf /etc/systemd/system/memhp-modules.service "$root/etc/systemd/system/sysinit.target.wants/memhp-modules.service"
echo memhp-guest >"$root/etc/hostname"
: >"$root/etc/machine-id"
# systemd is PID 1 straight from the initramfs (no /etc/initrd-release: not an initrd, the root)
ln -sf /usr/lib/systemd/systemd "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
chmod 0644 "$out.tmp"
mv "$out.tmp" "$out"
say "image: $out ($(du -m "$out" | cut -f1) MiB)"
