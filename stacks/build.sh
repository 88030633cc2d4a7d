#!/bin/bash
# stacks/build.sh NAME [--say-cached] - the hypervisor stack NAME's root, built
# once into $MEMHP_CACHE/stacks/NAME (docs/stacks.md); prints the root's path
# last. --say-cached: a line on stderr when it was built already (make stacks).
#
# backports: QEMU 10.0 and libvirt 11.3 from Debian's bookworm-backports,
# mmdebstrap'ed into a root of its own from bookworm + bookworm-backports
# with APT::Default-Release bookworm-backports. Nothing is installed into
# the host and its apt sources are not touched: mmdebstrap is given its own
# list of sources and writes only under the cache. The root's libvirtd runs
# chrooted in namespaces of its own (stacks/host.sh), started by memhp-lab.
#
# A root is reused while its key (suite, sources, packages, this recipe's
# version) is the same; a build says what it does and how long it took last
# time ($MEMHP_CACHE/durations/stack-NAME), and is made under a temporary
# name and renamed, so a killed build leaves no root that looks finished.
set -euo pipefail
umask 022
name=${1:-} say_cached=${2:-}
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
say() { echo "[stack $name] $*" >&2; }
case $name in
backports) ;;
'') die "usage: stacks/build.sh backports" ;;
*) die "stack '$name' is not built by the lab (known: backports; debian is the host's own)" ;;
esac
[ "$(id -u)" = 0 ] || die "building the $name stack needs root (mmdebstrap in root mode, the root's files owned by root)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found: install it (make deps)"
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
"$(dirname "$0")/../kernel/cache-trust.sh" "$cache" || exit 1	# a cache another user can write is refused (docs/security.md)

mirror=http://deb.debian.org/debian
suite=bookworm
pkgs=qemu-system-x86,libvirt-daemon-system,libvirt-daemon-driver-qemu,qemu-utils
sources=("deb $mirror $suite main" "deb $mirror $suite-updates main"
	"deb http://deb.debian.org/debian-security $suite-security main" "deb $mirror $suite-backports main")
key=$(printf '%s\n' "$suite" "$pkgs" "${sources[@]}" v1 | sha256sum | cut -c1-16)
dir=$cache/stacks/$name
root=$dir/root-$key
durs=$cache/durations
mkdir -p "$dir" "$durs"
# one build at a time: a second first use waits for the first and takes its root
exec 9>"$dir/.lock"
flock 9 || die "cannot lock '$dir/.lock'"
human() { if [ "$1" -ge 60 ]; then printf '%d min %d s' $(($1 / 60)) $(($1 % 60)); else printf '%d s' "$1"; fi; }
if [ -x "$root/usr/sbin/libvirtd" ] && [ -e "$root/.memhp-stack" ]; then
	[ "$say_cached" != --say-cached ] ||
		say "cached: $root (built $(sed -n 's/^built=//p' "$root/.memhp-stack"); $(grep -E '^(qemu|libvirt)' "$root/.memhp-stack" | paste -sd ' '))"
	echo "$root"
	exit 0
fi
last=$(cat "$durs/stack-$name" 2>/dev/null || :)
case $last in ''|*[!0-9]*) last='first time here';; *) last="last time $(human "$last")";; esac
say "mmdebstrap $suite + $suite-backports ($pkgs) into $root: about 2 min and 90 MiB from $mirror, once per machine ($last)"
t0=$(date +%s)
tmp=$dir/.build-$key
rm -rf "$tmp"
# no docs, man pages or locales: the daemon and QEMU need none of them
nice -n 19 mmdebstrap --variant=apt --mode=root --include="$pkgs" \
	--aptopt='APT::Default-Release "bookworm-backports"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	"$suite" "$tmp" "${sources[@]}" >&2 || { rm -rf "$tmp"; die "mmdebstrap failed for the $name stack (see above)"; }
# what the root is, read from its own dpkg: the record's stack versions come from libvirt and QEMU themselves
{
	echo "name=$name"
	echo "key=$key"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	chroot "$tmp" dpkg-query -W -f='${Package}=${Version}\n' qemu-system-x86 libvirt-daemon
} >"$tmp/.memhp-stack"
rm -rf "$root"
mv "$tmp" "$root"
ln -sfn "root-$key" "$dir/current"
s=$(($(date +%s) - t0))
echo "$s" >"$durs/stack-$name"
say "done in $(human "$s"): $root ($(du -sm "$root" | cut -f1) MiB; $(grep -E '^(qemu|libvirt)' "$root/.memhp-stack" | paste -sd ' '))"
echo "$root"
