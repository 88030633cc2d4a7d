#!/bin/bash
# kernel/bisect-check.sh - does every prefix of a kernel series build?
#
# Usage: kernel/bisect-check.sh KVER        (after kernel/build.sh KVER)
#
# For k = 1..n, applies the first k patches of the series (quilt, in the one
# extracted tree), refreshes the artifact's config with olddefconfig (so an
# option a later patch adds is simply absent, as it would be in a bisect), and
# compiles, with -Werror, every kernel translation unit the first k patches
# touch, in a build directory of its own (obj-bisect-<version>) so that the
# main build directory and its config stay as they are. Headers the patches
# change are covered through those units, not through every user of them:
# this is a check of each step of the series, not a full build per step.
# A last pass builds the whole series with the options it adds
# (kernel/patches/<KVER>/required.list) turned off.
#
# One line per prefix; the result is kept in
# $MEMHP_CACHE/kernel/<KVER>/bisect-<series hash>-<config key>-<compiler key>.result
# and reused while series, config and compiler (`gcc --version`, the one the
# kernel's make runs) are unchanged. Exit 1 at the first prefix
# that does not build, naming it and its log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kver=${1:-}
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
kdir=$cache/kernel/$kver
jobs=${JOBS:-$(nproc)}

say() { printf '[bisect %s] %s\n' "$kver" "$*" >&2; }
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }

case $kver in 6.12|6.1) ;; *) die "usage: kernel/bisect-check.sh 6.12|6.1";; esac
[ -s "$kdir/current" ] || die "no kernel $kver built yet ($kdir/current): run kernel/build.sh $kver"
art=$(cat "$kdir/current")
id=$art/identity.json
pkgver=$(jq -r .source_version "$id") && series_hash=$(jq -r .series_hash "$id") &&
	key=$(jq -r .config_key "$id") || die "cannot read $id"
src=$kdir/src-$pkgver
[ "$(cat "$src/.memhp-series" 2>/dev/null)" = "$series_hash" ] ||
	die "$src does not carry the series of $art: run kernel/build.sh $kver first"

cc=$(gcc --version 2>/dev/null | head -n 1) && [ -n "$cc" ] || die "no gcc to build with"
cckey=$(printf '%s' "$cc" | sha256sum | cut -c1-8)
result=$kdir/bisect-$series_hash-$key-$cckey.result
if [ -s "$result" ]; then
	awk -v cc="$cc" '{ print $0 " (cached, " cc ")" }' "$result"
	exit 0
fi

exec 9>"$kdir/.lock"
if ! flock -n 9; then
	say "waiting for a build of $kver to finish (lock $kdir/.lock)"
	flock 9
fi

export QUILT_PATCHES=patches QUILT_PC=.pc
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$src/patches/series" | awk '{print $1}')
[ ${#patches[@]} -gt 0 ] || { echo "ok 0 patches: nothing to check" | tee "$result"; exit 0; }

obj=$kdir/obj-bisect-$pkgver
log=$kdir/bisect-$series_hash-$key-$cckey.log
: >"$log"
mk() { make -C "$src" O="$obj" ARCH=x86_64 "$@" >>"$log" 2>&1; }

# Whatever happens, leave the tree with the whole series applied, each file
# the series touches with the timestamp it had if its content is what it was:
# quilt rewrites them, and the main build (kernel/build.sh) would otherwise
# recompile everything that includes them.
stamps=$(mktemp)
sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' "$src"/patches/*.patch 2>/dev/null | sort -u |
	while read -r f; do
		[ -f "$src/$f" ] && printf '%s %s %s\n' "$f" "$(sha256sum <"$src/$f" | cut -c1-64)" "$(stat -c %Y "$src/$f")"
	done >"$stamps" || true
restore() {
	(cd "$src" && quilt push -a -q >>"$log" 2>&1) || true
	while read -r f sum mtime; do
		[ "$(sha256sum <"$src/$f" 2>/dev/null | cut -c1-64)" = "$sum" ] && touch -d "@$mtime" "$src/$f"
	done <"$stamps" || true
	rm -f "$stamps"
}
trap restore EXIT

(cd "$src" && quilt pop -a -q >>"$log" 2>&1) || die "quilt pop -a failed in $src (log: $log)"
mkdir -p "$obj"
if [ ! -f "$obj/.memhp-prepared" ]; then
	say "prepare $obj (once per source version)"
	cp "$art/config" "$obj/.config"
	mk olddefconfig && mk -j"$jobs" prepare || die "make prepare failed (log: $log)"
	touch "$obj/.memhp-prepared"
fi

out=$(mktemp)
units=()
# check N WHAT-OK WHAT-FAIL: olddefconfig, then the units with -Werror; one
# line "ok N ..." or "not ok N ..." (then stop, naming the log).
check() {
	local n=$1 good=$2 bad=$3 t0
	t0=$(date +%s)
	if mk olddefconfig && mk -j"$jobs" KCFLAGS=-Werror "${units[@]}"; then
		echo "ok $n $good (${units[*]}, $(( $(date +%s) - t0 )) s)" | tee -a "$out"
	else
		echo "not ok $n $bad (log: $log)" | tee -a "$out"
		grep -E 'error|warning' "$log" | tail -n 10 >&2
		rm -f "$out"
		exit 1
	fi
}
for k in "${!patches[@]}"; do
	p=${patches[$k]}
	(cd "$src" && quilt push -q "$p" >>"$log" 2>&1) || die "patch $p does not apply (log: $log)"
	# Kernel C files this patch touches (not tools/, which is userspace).
	while read -r f; do
		case " ${units[*]} " in *" ${f%.c}.o "*) ;; *) units+=("${f%.c}.o");; esac
	done < <(sed -n 's|^+++ [^/]*/\([^[:space:]]*\.c\).*|\1|p' "$src/patches/$p" | grep -v '^tools/')
	cp "$art/config" "$obj/.config"
	echo "=== prefix $((k + 1)): $p: ${units[*]}" >>"$log"
	check $((k + 1)) "prefix 1..$((k + 1)) builds: $p" "prefix 1..$((k + 1)) does not build: $p"
done
# The whole series once more with its own options off: the #else side.
off=$(grep -v '^[[:space:]]*\(#\|$\)' "$here/patches/$kver/required.list" 2>/dev/null || true)
if [ -n "$off" ]; then
	cp "$art/config" "$obj/.config"
	for o in $off; do "$src/scripts/config" --file "$obj/.config" --disable "$o"; done
	echo "=== whole series, off: $off" >>"$log"
	check $(( ${#patches[@]} + 1 )) \
		"whole series builds with $(echo $off | sed 's/\([^ ]*\)/CONFIG_\1/g')=n" \
		"whole series does not build with its options off"
fi
mv "$out" "$result"
