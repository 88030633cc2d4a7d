#!/bin/bash
# workloads/gup-header.sh KVER OUT - the one header of the series memhp-pin
# compiles against, without a kernel build: mm/gup_test.h taken from Debian's
# /usr/src/linux-source-KVER.tar.xz (that member alone) with the hunks of
# kernel/patches/KVER/ that touch it applied in series order (patch on a
# one-file tree), cached in $MEMHP_CACHE/headers/ (the member as shipped per
# package version; the result under a hash of the version and the hunks), and copied to OUT (only when it changed, so that
# make rebuilds nothing for a header that did not). make workloads checks it
# against each built kernel's own copy (kernel/build.sh's artifact include/).
set -euo pipefail
umask 022
kver=$1 out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
"$(dirname "$0")/../kernel/cache-trust.sh" "$cache" || exit 1	# a cache another user can write is refused (docs/security.md)
pkg=linux-source-$kver
tarball=/usr/src/$pkg.tar.xz
patchdir=$here/kernel/patches/$kver
member=mm/gup_test.h
[ -r "$tarball" ] || die "$tarball not found: install the Debian package $pkg (make deps)"
[ -r "$patchdir/series" ] || die "$patchdir/series not found: no series for kernel $kver"
pkgver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
	die "cannot read the version of the package $pkg (dpkg-query -W $pkg)"

# hunks PATCH: the part of a git format-patch that changes $member (its
# "diff --git" header up to the next file's, or the signature's "-- " line).
hunks() {
	awk -v f="a/$member b/$member" '
		/^diff --git / { on = (substr($0, 12) == f) }
		/^-- $/ { on = 0 }
		on { print }' "$1"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 names=()
while read -r p; do
	[ -r "$patchdir/$p" ] || die "$patchdir/series names '$p', which does not exist"
	hunks "$patchdir/$p" >"$tmp/$n.diff"
	if [ -s "$tmp/$n.diff" ]; then names[n]=$p; n=$((n + 1)); else rm -f "$tmp/$n.diff"; fi
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patchdir/series" | awk '{print $1}')
key=$( { echo "$pkgver"; cat "$tmp"/*.diff 2>/dev/null; } | sha256sum | cut -c1-16)
dir=$cache/headers/$kver-$key
# The member as the package ships it, kept per package version: a changed
# series needs no second read of the tarball.
orig=$cache/headers/$pkg-$pkgver/gup_test.h
if [ ! -s "$orig" ]; then
	t0=$(date +%s)
	echo "[header] $member from $pkg $pkgver ($tarball, that member only; about 10 s of CPU)"
	mkdir -p "$(dirname "$orig")"
	tar -xJf "$tarball" --occurrence=1 -O "$pkg/$member" >"$orig.tmp" && [ -s "$orig.tmp" ] ||
		{ rm -f "$orig.tmp"; die "$tarball has no $pkg/$member"; }
	mv "$orig.tmp" "$orig"
	echo "[header] $orig ($(($(date +%s) - t0)) s)"
fi
if [ ! -s "$dir/gup_test.h" ]; then
	mkdir -p "$tmp/tree/mm"
	cp "$orig" "$tmp/tree/$member"
	# no fuzz: the header is the ABI memhp-pin speaks to the kernel with
	for ((i = 0; i < n; i++)); do
		patch -s -t --fuzz=0 -p1 -d "$tmp/tree" <"$tmp/$i.diff" >"$tmp/patch.log" 2>&1 ||
			die "$patchdir/${names[i]}: its change to $member does not apply to $pkg $pkgver: $(head -n 3 "$tmp/patch.log" | tr '\n' ' ')"
	done
	mkdir -p "$dir"
	install -m 0644 "$tmp/tree/$member" "$dir/gup_test.h.tmp"
	mv "$dir/gup_test.h.tmp" "$dir/gup_test.h"
	echo "[header] $dir/gup_test.h: $member of $pkg $pkgver with the hunks of $n patch(es) of kernel/patches/$kver/"
fi
mkdir -p "$(dirname "$out")"
cmp -s "$dir/gup_test.h" "$out" 2>/dev/null || install -m 0644 "$dir/gup_test.h" "$out"
