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
set -euo pipefail

die() { echo "Error: $*" >&2; exit 1; }
say() { echo "[kernel package] $*" >&2; }

usage="usage: kernel/package.sh NAME[=VERSION] | --deb PATH | --modules DIR --config FILE"
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
layout=usr-lib-modules

# modules_cpio MODDIR RELEASE CONFIG WHO: the modules the guest needs, by
# config option (=m means a module to load), each after its dependencies
# (MODDIR/modules.dep), copied (decompressed: busybox insmod takes plain .ko)
# into $work/modules.cpio.gz, their names in load order in $work/modules.list.
modules_cpio() {
	local mods=$1 release=$2 config=$3 who=$4 m alt path p f
	local dep=$mods/modules.dep
	local -a want=() order=()
	local -A seen=()
	for pair in VIRTIO_PCI:virtio_pci VIRTIO_CONSOLE:virtio_console VIRTIO_MEM:virtio_mem \
		VFIO:vfio VFIO_IOMMU_TYPE1:vfio_iommu_type1 VFIO_PCI:vfio-pci; do
		grep -qx "CONFIG_${pair%%:*}=m" "$config" && want+=("${pair#*:}")
	done
	add() {	# add PATH: its dependencies first
		local path=$1 d
		[ -n "${seen[$path]:-}" ] && return
		seen[$path]=1
		for d in $(grep -F "$path:" "$dep" | sed -n "s|^$path: *||p"); do add "$d"; done
		order+=("$path")
	}
	for m in "${want[@]}"; do
		alt=${m//-/_}
		path=$(grep -E "(^|/)(${m}|${alt})\.ko(\.xz|\.zst|\.gz)?:" "$dep" | sed -n 1p | cut -d: -f1)
		[ -n "$path" ] || die "$who: its config says module $m, but $dep has no $m.ko"
		add "$path"
	done
	mkdir -p "$work/cpio/usr/lib/modules/$release"
	: >"$work/modules.list"
	for p in "${order[@]}"; do
		[ -f "$mods/$p" ] || die "$who: $dep names $p, which $mods lacks"
		f=$(basename "$p")
		case $f in
		*.ko.xz) xz -dc "$mods/$p" >"$work/cpio/usr/lib/modules/$release/${f%.xz}"; f=${f%.xz};;
		*.ko.zst) zstd -q -dc "$mods/$p" >"$work/cpio/usr/lib/modules/$release/${f%.zst}"; f=${f%.zst};;
		*.ko.gz) gzip -dc "$mods/$p" >"$work/cpio/usr/lib/modules/$release/${f%.gz}"; f=${f%.gz};;
		*) cp "$mods/$p" "$work/cpio/usr/lib/modules/$release/";;
		esac
		echo "$f" >>"$work/modules.list"
	done
	cp "$work/modules.list" "$work/cpio/usr/lib/modules/$release/memhp-modules"
	(cd "$work/cpio" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$work/modules.cpio.gz"
	say "modules: ${#order[@]} to load in the guest: $(tr '\n' ' ' <"$work/modules.list")"
}

cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "$mode" = modules ]; then
	release=$(basename "$moddir")
	[[ $release =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
		die "kernel modules '$moddir': '$release' does not look like a kernel release (lib/modules/RELEASE)"
	sum=$(cat "$moddir/modules.dep" "$modconfig" | sha256sum | cut -c1-16)
	dir=$cache/kernel/modules/${release}_$sum
	if [ -s "$dir/modules.cpio.gz" ] && jq -e --arg l "$layout" '.cpio_layout == $l' "$dir/identity.json" >/dev/null 2>&1; then
		say "cached: $dir"
		echo "$dir"
		exit 0
	fi
	modules_cpio "$moddir" "$release" "$modconfig" "kernel modules '$moddir'"
	mkdir -p "$dir.tmp"
	cp "$work/modules.cpio.gz" "$work/modules.list" "$dir.tmp/"
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
	real=$(dpkg-deb -f "$debpath" Package 2>/dev/null) || die "kernel deb '$debpath': not a Debian package (dpkg-deb -f failed)"
	pkgver=$(dpkg-deb -f "$debpath" Version)
	[[ $real =~ ^linux-image-[a-z0-9][a-z0-9.+-]*$ ]] ||
		die "kernel deb '$debpath': package '${real:0:80}' is not a linux-image-* package"
	[[ $pkgver =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] || die "kernel deb '$debpath': '${pkgver:0:80}' is not a Debian version"
	key="${real}_${pkgver//:/%}_$(sha256sum "$debpath" | cut -c1-16)"
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
	key="${real}_${pkgver//:/%}"
fi
dir=$cache/kernel/pkg/$key
if [ -s "$dir/bzImage" ] && [ -s "$dir/modules.cpio.gz" ] &&
	jq -e --arg l "$layout" '.cpio_layout == $l' "$dir/identity.json" >/dev/null 2>&1; then
	say "cached: $dir"
	echo "$dir"
	exit 0
fi

if [ "$mode" = deb ]; then
	cp "$debpath" "$work/kernel.deb"
else
	say "fetch: apt-get download $real=$pkgver"
	(cd "$work" && apt-get -q -o APT::Sandbox::User=root download "$real=$pkgver" >&2) ||
		die "apt-get download $real=$pkgver failed (see above)"
fi
deb=$(ls "$work"/*.deb)
say "extract: $(basename "$deb")"
dpkg-deb -x "$deb" "$work/root"
release=$(ls "$work/root/lib/modules" 2>/dev/null | sed -n 1p)
[ -n "$release" ] || die "$deb has no lib/modules/RELEASE: not a modular kernel image package"
vmlinuz=$work/root/boot/vmlinuz-$release
config=$work/root/boot/config-$release
[ -s "$vmlinuz" ] && [ -s "$config" ] || die "$deb lacks boot/vmlinuz-$release or boot/config-$release"
mods=$work/root/lib/modules/$release

say "modules: depmod for $release (reads the files; loads nothing)"
# Debian 12's 6.12 packages compress modules; busybox insmod takes plain .ko.
find "$mods" -name '*.ko.xz' -exec xz -d {} + 2>/dev/null || true
find "$mods" -name '*.ko.zst' -exec zstd -q -d --rm {} + 2>/dev/null || true
depmod -b "$work/root" "$release"

modules_cpio "$mods" "$release" "$config" "$real"

mkdir -p "$dir.tmp"
cp "$vmlinuz" "$dir.tmp/bzImage"
cp "$config" "$dir.tmp/config"
cp "$work/root/boot/System.map-$release" "$dir.tmp/System.map" 2>/dev/null || true
cp "$work/modules.cpio.gz" "$work/modules.list" "$dir.tmp/"
sum=$(sha256sum "$config" | cut -c1-16)
jq -n --arg pkg "$real" --arg ver "$pkgver" --arg rel "$release" --arg sum "$sum" \
	--argjson mods "$(jq -R . <"$work/modules.list" | jq -s .)" \
	--arg layout "$layout" '{source_package: $pkg, source_version: $ver, release: $rel, kind: "package",
	  config_sha256: $sum, modules: $mods, cpio_layout: $layout}' >"$dir.tmp/identity.json"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
say "done: $dir"
echo "$dir"
