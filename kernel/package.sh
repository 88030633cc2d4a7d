#!/bin/bash
# kernel/package.sh - a Debian binary kernel package as a guest kernel (issue 15).
#
# Usage: kernel/package.sh NAME[=VERSION]
#        kernel/package.sh --deb PATH
#        kernel/package.sh --modules DIR --config FILE
#   NAME: a linux-image package (linux-image-6.1.0-57-cloud-amd64,
#   linux-image-6.12.57+deb12-amd64-unsigned, ...) or a meta package that
#   depends on one (linux-image-cloud-amd64). Nothing is built: apt fetches
#   the package, its files are extracted, and the modules the guest needs
#   (virtio_pci, virtio_console, virtio_mem, the vfio stack where the kernel
#   has it as modules) go with their dependencies (depmod's modules.dep, in
#   load order) into a cpio the orchestrator appends to the common initramfs.
#   The guest's init insmods them one by one and logs each (memhp-init:
#   module ...).
#
# The result, cached like built kernels: $MEMHP_CACHE/kernel/pkg/<package>_<version>/
#   bzImage, config, System.map, modules.cpio.gz, modules.list, identity.json
# (source_package: the package name, source_version: its version, config_sha256).
# Its path is printed last on stdout. Progress goes to stderr, one line per phase.
# Nothing is installed on the host and no module is loaded here.
#
# --deb PATH: the same from a linux-image .deb the user has (a team's own
#   build, a package apt no longer serves); cached by the file's hash.
# --modules DIR --config FILE: a user's modular kernel (kernel: {bzimage,
#   config, modules}): DIR is its lib/modules/RELEASE tree with modules.dep
#   (make modules_install, or depmod); only modules.cpio.gz and modules.list
#   are made, in $MEMHP_CACHE/kernel/modules/<release>_<hash>/.
#
# Every byte of a package and of a modules tree is data (issue 30,
# docs/security.md): build/memhp-kmod (kernel/memhp-kmod.c; MEMHP_KMOD names
# another) checks the package's archive before dpkg-deb extracts it (no
# absolute name, no '..', no link out of it, no device node), reads
# modules.dep in C, and copies out only regular files reached without
# following a link. No text of the package goes into a sed, awk or shell
# program, and nothing is written outside $MEMHP_CACHE.
set -euo pipefail

die() { echo "Error: $*" >&2; exit 1; }
say() { echo "[kernel package] $*" >&2; }

usage="usage: kernel/package.sh NAME[=VERSION] | --deb PATH | --modules DIR --config FILE"
kmod=${MEMHP_KMOD:-$(dirname "$0")/../build/memhp-kmod}
[ -x "$kmod" ] || die "$kmod is missing: make build/memhp-kmod (or set MEMHP_KMOD)"
mode=apt
case ${1:-} in
--deb)
	[ $# = 2 ] || die "$usage"
	mode=deb debpath=$2
	[ -f "$debpath" ] && [ -r "$debpath" ] || die "kernel deb '$debpath': no such readable file"
	;;
--modules)
	[ $# = 4 ] && [ "$3" = --config ] || die "$usage"
	mode=modules moddir=${2%/} modconfig=$4
	[ -d "$moddir" ] || die "kernel modules '$moddir': not a directory (expected a lib/modules/RELEASE tree)"
	[ -s "$moddir/modules.dep" ] ||
		die "kernel modules '$moddir': no modules.dep (run depmod for that release, or make modules_install)"
	[ -s "$modconfig" ] || die "kernel config '$modconfig': no such file"
	;;
-*)	die "$usage";;
*)
	[ $# = 1 ] || die "$usage"
	spec=$1
	name=${spec%%=*}
	version=
	[ "$name" = "$spec" ] || version=${spec#*=}
	# Debian's own rules for package names and versions: nothing else reaches apt.
	[[ $name =~ ^linux-image-[a-z0-9][a-z0-9.+-]*$ ]] ||
		die "kernel package '$name': not a linux-image-* package name (lowercase letters, digits, '.', '+', '-')"
	[ -z "$version" ] || [[ $version =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] ||
		die "kernel package '$name': '$version' is not a Debian version"
	;;
esac

# The cpio's layout: usr/lib/modules/RELEASE, never a lib/ entry, which
# would replace the /lib -> usr/lib link of a merged-/usr root (guest:
# debian) when the kernel unpacks it over the guest image. Its version is in
# identity.json (cpio_layout); a cache entry of another layout is remade.
# -v2: made from a checked archive and modules.dep (issue 30); entries of
# the script before, which trusted both, are remade. -v3: the rdma
# workload's modules (crc32_generic, dummy, ib_uverbs, rdma_rxe) too where the config has
# them as modules (issue 32 item 20).
layout=usr-lib-modules-v3

# modules_cpio MODDIR RELEASE CONFIG WHO: the modules the guest needs, by
# config option (=m means a module to load), each after its dependencies
# (MODDIR/modules.dep, read by memhp-kmod order), copied (decompressed:
# busybox insmod takes plain .ko) into $work/modules.cpio.gz, their names in
# load order in $work/modules.list. A path memhp-kmod prints is letters,
# digits, '.', '_', '+', '-' and '/' with no '..'; each file is a regular one
# under MODDIR reached without following a link (memhp-kmod cat).
modules_cpio() {
	local mods=$1 release=$2 config=$3 who=$4 p f out
	local -a order=() unpack=()
	out=$("$kmod" order "$mods" "$config") || die "$who: its modules.dep is refused (above)"
	mapfile -t order <<<"$out"
	[ -n "$out" ] || order=()
	mkdir -p "$work/cpio/usr/lib/modules/$release"
	: >"$work/modules.list"
	for p in "${order[@]}"; do
		f=${p##*/}
		case $f in
		*.ko.xz) unpack=(xz -dc) f=${f%.xz};;
		*.ko.zst) unpack=(zstd -q -dc) f=${f%.zst};;
		*.ko.gz) unpack=(gzip -dc) f=${f%.gz};;
		*) unpack=(cat);;
		esac
		"$kmod" cat "$mods" "$p" | "${unpack[@]}" >"$work/cpio/usr/lib/modules/$release/$f" ||
			die "$who: module $p cannot be copied (above)"
		echo "$f" >>"$work/modules.list"
	done
	cp "$work/modules.list" "$work/cpio/usr/lib/modules/$release/memhp-modules"
	(cd "$work/cpio" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$work/modules.cpio.gz"
	say "modules: ${#order[@]} to load in the guest: $(tr '\n' ' ' <"$work/modules.list")"
}

# lock_entry DIR: hold DIR's lock (DIR.lock, fd 8) until this script exits:
# two package.sh of one package at once shared DIR.tmp, and one failed in 4
# of 6 tries (issue 48); the second now waits, then finds the first's entry.
lock_entry() {
	mkdir -p "$(dirname "$1")"
	exec 8>"$1.lock" || die "cannot open the lock $1.lock"
	if ! flock -n 8; then
		say "waiting for another package.sh of the same package (lock $1.lock)"
		flock 8
	fi
}

cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
"$(dirname "$0")/cache-trust.sh" "$cache" || exit 1	# a cache another user can write is refused (docs/security.md)
# The work directory is in the cache too: nothing is written outside it.
mkdir -p "$cache/kernel"
work=$(mktemp -d "$cache/kernel/.package-XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$mode" = modules ]; then
	release=$(basename "$moddir")
	[[ $release =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
		die "kernel modules '$moddir': '$release' does not look like a kernel release (lib/modules/RELEASE)"
	sum=$({ "$kmod" cat "$moddir" modules.dep && cat -- "$modconfig"; } | sha256sum | cut -c1-16) ||
		die "kernel modules '$moddir': its modules.dep is refused (above)"
	dir=$cache/kernel/modules/${release}_$sum
	lock_entry "$dir"
	if [ -s "$dir/modules.cpio.gz" ] && jq -e --arg l "$layout" '.cpio_layout == $l' "$dir/identity.json" >/dev/null 2>&1; then
		say "cached: $dir"
		echo "$dir"
		exit 0
	fi
	modules_cpio "$moddir" "$release" "$modconfig" "kernel modules '$moddir'"
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	install -m 0644 "$work/modules.cpio.gz" "$work/modules.list" "$dir.tmp/"
	jq -n --arg rel "$release" --arg from "$(realpath "$moddir")" \
		--argjson mods "$(jq -R . <"$work/modules.list" | jq -s .)" \
		--arg layout "$layout" '{release: $rel, modules_from: $from, modules: $mods, cpio_layout: $layout}' \
		>"$dir.tmp/identity.json"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	say "done: $dir"
	echo "$dir"
	exit 0
fi

if [ "$mode" = deb ]; then
	# Everything from this copy: what was checked is what is extracted.
	cp -- "$debpath" "$work/kernel.deb"
	real=$(dpkg-deb -f "$work/kernel.deb" Package 2>/dev/null) || die "kernel deb '$debpath': not a Debian package (dpkg-deb -f failed)"
	pkgver=$(dpkg-deb -f "$work/kernel.deb" Version)
	[[ $real =~ ^linux-image-[a-z0-9][a-z0-9.+-]*$ ]] ||
		die "kernel deb '$debpath': package '${real:0:80}' is not a linux-image-* package"
	[[ $pkgver =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] || die "kernel deb '$debpath': '${pkgver:0:80}' is not a Debian version"
	key="${real}_${pkgver//:/%}_$(sha256sum "$work/kernel.deb" | cut -c1-16)"
else
	# A meta package (linux-image-cloud-amd64) names the image it depends on.
	show=$(apt-cache show "$spec" 2>/dev/null) ||
		die "kernel package '$spec' is not known to apt (apt-get update, or see apt-cache search linux-image)"
	real=$name
	# A meta package depends on the image it stands for; an image depends on no other.
	if grep -q '^Depends:.*linux-image-[0-9]' <<<"$show"; then
		real=$(apt-cache depends --no-recommends --no-suggests "$spec" 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | sed -n 1p)
		[ -n "$real" ] || die "kernel package '$spec' is neither a kernel image nor a meta package that depends on one"
		say "$spec -> $real"
		spec=$real
	fi
	pkgver=$(apt-cache show "$spec" 2>/dev/null | sed -n 's/^Version: //p' | sed -n 1p)
	[ -n "$pkgver" ] || die "kernel package '$spec': apt has no such version"
	[[ $real =~ ^linux-image-[a-z0-9][a-z0-9.+-]*$ ]] && [[ $pkgver =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] ||
		die "kernel package '$spec': apt names '${real:0:80}' version '${pkgver:0:80}', not a linux-image-* package and a Debian version"
	key="${real}_${pkgver//:/%}"
fi
dir=$cache/kernel/pkg/$key
lock_entry "$dir"
if [ -s "$dir/bzImage" ] && [ -s "$dir/modules.cpio.gz" ] &&
	jq -e --arg l "$layout" '.cpio_layout == $l' "$dir/identity.json" >/dev/null 2>&1; then
	say "cached: $dir"
	echo "$dir"
	exit 0
fi

if [ "$mode" = apt ]; then
	say "fetch: apt-get download $real=$pkgver"
	mkdir "$work/apt"
	got=$("$(dirname "$0")/apt-download.sh" "$real=$pkgver" "$work/apt") ||
		die "apt-get download $real=$pkgver failed (see above)"
	mv -- "$got" "$work/kernel.deb"
fi
deb=$work/kernel.deb
if [ "$mode" = deb ]; then who="kernel deb '$debpath'"; else who="kernel package $real"; fi
# Every member checked before any is extracted: no absolute name, no '..', no
# link out of the root, no device node (memhp-kmod members names the first).
dpkg-deb --fsys-tarfile "$deb" | "$kmod" members "$who" || die "$who: its archive is refused (above)"
say "extract: $real $pkgver"
mkdir "$work/root"
# Unpacked by the reader that checks it (libarchive, each block through the
# same stream check again), never by GNU tar, whose reading of some members
# differs (issue 48); the tree is then walked with lstat: only what the
# archive listed, of its type.
dpkg-deb --fsys-tarfile "$deb" | "$kmod" extract "$who" "$work/root" ||
	die "$who: its archive is refused while it is extracted (above)"
mapfile -t releases < <(ls -A "$work/root/lib/modules" 2>/dev/null)
[ ${#releases[@]} = 1 ] ||
	die "$who: expected one lib/modules/RELEASE, found ${#releases[@]}: not a modular kernel image package"
release=${releases[0]}
[[ $release =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
	die "$who: lib/modules/'${release:0:80}' does not look like a kernel release"
mods=$work/root/lib/modules/$release
[ -d "$mods" ] && [ ! -L "$mods" ] || die "$who: lib/modules/$release is not a directory"
# boot/: regular files of the package only (a link to the host's files is never followed)
for f in vmlinuz config; do
	"$kmod" cat "$work/root/boot" "$f-$release" >"$work/$f" && [ -s "$work/$f" ] ||
		die "$who: boot/$f-$release: not a regular non-empty file of the package"
done
if [ -e "$work/root/boot/System.map-$release" ] || [ -L "$work/root/boot/System.map-$release" ]; then
	"$kmod" cat "$work/root/boot" "System.map-$release" >"$work/System.map" ||
		die "$who: boot/System.map-$release: not a regular file of the package"
fi

say "modules: depmod for $release (reads the files; loads nothing)"
# Debian 12's 6.12 packages compress modules; busybox insmod takes plain .ko.
find "$mods/" -type f -name '*.ko.xz' -exec xz -d -- {} + 2>/dev/null || true
find "$mods/" -type f -name '*.ko.zst' -exec zstd -q -d --rm -- {} + 2>/dev/null || true
depmod -b "$work/root" "$release"

modules_cpio "$mods" "$release" "$work/config" "$who"

# The cache's files get their own modes (0644), never a copied file's.
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
install -m 0644 "$work/vmlinuz" "$dir.tmp/bzImage"
install -m 0644 "$work/config" "$dir.tmp/config"
[ ! -f "$work/System.map" ] || install -m 0644 "$work/System.map" "$dir.tmp/System.map"
install -m 0644 "$work/modules.cpio.gz" "$work/modules.list" "$dir.tmp/"
sum=$(sha256sum "$work/config" | cut -c1-16)
jq -n --arg pkg "$real" --arg ver "$pkgver" --arg rel "$release" --arg sum "$sum" \
	--argjson mods "$(jq -R . <"$work/modules.list" | jq -s .)" \
	--arg layout "$layout" '{source_package: $pkg, source_version: $ver, release: $rel, kind: "package",
	  config_sha256: $sum, modules: $mods, cpio_layout: $layout}' >"$dir.tmp/identity.json"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
say "done: $dir"
echo "$dir"
