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
# Each prefix also compiles the kselftests the first k patches touch
# (tools/testing/selftests/mm or vm, against the tree's own uapi headers).
# Then the configurations 0-day would try on these patches, each with the
# whole series:
#   - the options it adds (kernel/patches/<KVER>/required.list) turned off;
#   - CONFIG_MIGRATION=n (and COMPACTION, TRANSPARENT_HUGEPAGE, CMA,
#     NUMA_BALANCING and, on 7.x, MEMORY_HOTREMOVE, NUMA_MIGRATION and
#     MEMORY_FAILURE, which select it): the counters where nothing migrates;
#   - CONFIG_DEBUG_FS=n with the switch on (its debugfs file goes away);
#   - an i386 build of the touched units (ARCH=i386, its own build
#     directory), for the 32-bit layout of the ioctl structure;
# and last the upstream series as it would be posted
# (kernel/patches/<KVER>/posting/upstream.series, kernel/export.sh
# --posting), applied alone to the Debian tree with patch(1) and built
# with its selftests.
#
# One line per check; the result is kept in
# $MEMHP_CACHE/kernel/<KVER>/bisect-<series hash>-<config key>-<compiler key>-<check key>.result
# and reused while series, config, compiler (`gcc --version`, the one the
# kernel's make runs) and this script with the posting series are
# unchanged. Exit 1 at the first check that fails, naming it and its log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kver=${1:-}
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
kdir=$cache/kernel/$kver
jobs=${JOBS:-$(nproc)}

say() { printf '[bisect %s] %s\n' "$kver" "$*" >&2; }
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }

case $kver in 6.12|6.1|7.3) ;; *) die "usage: kernel/bisect-check.sh 6.12|6.1|7.3";; esac
# shellcheck source=kernel/tree-lib.sh
. "$here/tree-lib.sh"
tree_current "$kdir" "$kver"
tree_carries "$kver"

cc=$(gcc --version 2>/dev/null | head -n 1) && [ -n "$cc" ] || die "no gcc to build with"
cckey=$(printf '%s' "$cc" | sha256sum | cut -c1-8)
pdir=$here/patches/$kver
ckey=$(cat "$here/bisect-check.sh" "$pdir"/posting/* | sha256sum | cut -c1-8)
result=$kdir/bisect-$series_hash-$key-$cckey-$ckey.result
if [ -s "$result" ]; then
	awk -v cc="$cc" '{ print $0 " (cached, " cc ")" }' "$result"
	exit 0
fi

tree_lock "$kdir" "$kver"

export QUILT_PATCHES=patches QUILT_PC=.pc
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$src/patches/series" | awk '{print $1}')
[ ${#patches[@]} -gt 0 ] || { echo "ok 0 patches: nothing to check" | tee "$result"; exit 0; }

obj=$kdir/obj-bisect-$pkgver
obj32=$kdir/obj-bisect-i386-$pkgver
hdr=$kdir/khdr-bisect-$pkgver
log=$kdir/bisect-$series_hash-$key-$cckey-$ckey.log
: >"$log"
# mk ARGS: make in the tree, for $arch (x86_64) into $o ($obj).
arch=x86_64 o=$obj
mk() { make -C "$src" O="$o" ARCH="$arch" "$@" >>"$log" 2>&1; }

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
	local r=0
	(cd "$src" && quilt push -a -q >>"$log" 2>&1) || r=$?
	# 2: nothing left to push. The tree carries the series again: say so.
	if { [ $r = 0 ] || [ $r = 2 ]; } && [ ${#upstream_applied[@]} = 0 ]; then
		echo "$series_hash" >"$src/.memhp-series" && rm -f "$src/.memhp-dirty"
	fi
	while read -r f sum mtime; do
		[ "$(sha256sum <"$src/$f" 2>/dev/null | cut -c1-64)" = "$sum" ] && touch -d "@$mtime" "$src/$f"
	done <"$stamps" || true
	rm -f "$stamps"
}
# The upstream series is applied with patch(1) on the tree without the
# quilt series: whatever happens, reverse what was applied before quilt
# pushes the series again.
upstream_applied=()
unapply_upstream() {
	local i
	for (( i = ${#upstream_applied[@]} - 1; i >= 0; i-- )); do
		patch -R -p1 -s -d "$src" --no-backup-if-mismatch <"$pdir/${upstream_applied[i]}" >>"$log" 2>&1 ||
			say "could not reverse ${upstream_applied[i]} in $src (log: $log): remove $src to extract it again"
	done
	upstream_applied=()
}
trap 'unapply_upstream; restore' EXIT

# From here the tree is not the series until restore(): a kill -9 leaves it
# marked dirty and no more carrying the series, and kernel/build.sh extracts
# it again (patches applied with patch(1) are no quilt's to pop).
: >"$src/.memhp-dirty" && rm -f "$src/.memhp-series" || die "cannot mark $src as being checked"
(cd "$src" && quilt pop -a -q >>"$log" 2>&1) || die "quilt pop -a failed in $src (log: $log)"
mkdir -p "$obj"
if [ ! -f "$obj/.memhp-prepared" ]; then
	say "prepare $obj (once per source version)"
	cp "$art/config" "$obj/.config"
	mk olddefconfig && mk -j"$jobs" prepare || die "make prepare failed (log: $log)"
	touch "$obj/.memhp-prepared"
fi
# The tree's uapi headers for the selftests (the series changes none).
if [ ! -f "$hdr/.memhp-headers" ]; then
	say "uapi headers for the selftests (make headers) into $hdr"
	o=$hdr mk headers || die "make headers failed (log: $log)"
	echo '#define LOCAL_CONFIG_HAVE_LIBURING 1' >"$hdr/local_config.h"
	touch "$hdr/.memhp-headers"
fi
# check_config.sh's output is local_config.h_gen since 7.x
[ -f "$hdr/local_config.h_gen" ] || cp "$hdr/local_config.h" "$hdr/local_config.h_gen"
ksft=$src/tools/testing/selftests/mm
[ -d "$ksft" ] || ksft=$src/tools/testing/selftests/vm	# 6.1

out=$(mktemp)
units=() tests=()
# add_units PATCH: the kernel C files PATCH touches (not tools/, which is
# userspace) to $units as objects, the selftests' C files to $tests.
add_units() {
	local f
	while read -r f; do
		case $f in
		tools/testing/selftests/*) case " ${tests[*]} " in *" ${f##*/} "*) ;; *) tests+=("${f##*/}");; esac;;
		tools/*) ;;
		*) case " ${units[*]} " in *" ${f%.c}.o "*) ;; *) units+=("${f%.c}.o");; esac;;
		esac
	done < <(sed -n 's|^+++ [^/]*/\([^[:space:]]*\.c\).*|\1|p' "$1")
}
# selftests: each selftest C file in $tests compiles (syntax and types,
# against the tree's uapi headers; errors fail, as the selftests' own
# Makefile would; warnings are upstream's business).
selftests() {
	local t
	for t in "${tests[@]}"; do
		[ -f "$ksft/$t" ] || continue	# deleted by the series
		echo "=== selftest $t" >>"$log"
		(cd "$ksft" && ${CC:-cc} -fsyntax-only -Wall -I"$hdr" -I"$hdr/usr/include" \
			-I"$src/tools/testing/selftests" -I"$ksft" -I"$src" "$t") >>"$log" 2>&1 || return 1
	done
}
# config_has LINE...: each LINE is in $o/.config (a variant was reached).
# A line '# CONFIG_X is not set' is also met when the config has no CONFIG_X
# at all: a symbol without a prompt that is off (7.x's MIGRATION) is not
# written.
config_has() {
	local l x
	for l; do
		grep -qxF -- "$l" "$o/.config" && continue
		x=$(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' <<<"$l")
		[ -n "$x" ] && ! grep -q "^$x=" "$o/.config" && continue
		echo "=== $o/.config lacks '$l'" >>"$log"
		return 1
	done
}
# check N WHAT-OK WHAT-FAIL [CONFIG-LINE...]: olddefconfig (each
# CONFIG-LINE must then be in the config), the units with -Werror and the
# selftests; one line "ok N ..." or "not ok N ..." (then stop, naming the
# log).
check() {
	local n=$1 good=$2 bad=$3 t0
	shift 3
	t0=$(date +%s)
	if mk olddefconfig && config_has "$@" && mk -j"$jobs" KCFLAGS=-Werror "${units[@]}" && selftests; then
		echo "ok $n $good (${units[*]}${tests[*]:+, selftests ${tests[*]}}, $(( $(date +%s) - t0 )) s)" | tee -a "$out"
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
	add_units "$src/patches/$p"
	cp "$art/config" "$obj/.config"
	echo "=== prefix $((k + 1)): $p: ${units[*]}" >>"$log"
	check $((k + 1)) "prefix 1..$((k + 1)) builds: $p" "prefix 1..$((k + 1)) does not build: $p"
done
n=${#patches[@]}
# variant WHAT OPTION-ARGS... -- CONFIG-LINE...: the whole series with the
# artifact's config changed by scripts/config OPTION-ARGS, checked to hold
# each CONFIG-LINE after olddefconfig.
variant() {
	local what=$1 ops=() want=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do ops+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	want=("$@")
	cp "$art/config" "$o/.config"
	[ ${#ops[@]} -eq 0 ] || "$src/scripts/config" --file "$o/.config" "${ops[@]}"
	echo "=== whole series, $what: ${ops[*]}" >>"$log"
	n=$((n + 1))
	check $n "whole series builds with $what" "whole series does not build with $what" "${want[@]}"
}
# The series' own options off: the #else side.
off=$(grep -v '^[[:space:]]*\(#\|$\)' "$pdir/required.list" 2>/dev/null || true)
if [ -n "$off" ]; then
	args=()
	for opt in $off; do args+=(--disable "$opt"); done
	want=()
	for opt in $off; do want+=("# CONFIG_$opt is not set"); done
	variant "$(echo $off | sed 's/\([^ ]*\)/CONFIG_\1/g')=n" "${args[@]}" -- "${want[@]}"
fi
# 7.x: MEMORY_HOTREMOVE, NUMA_MIGRATION and MEMORY_FAILURE select MIGRATION
# too (6.12's hot-remove depends on it; a name a tree lacks is dropped)
variant "CONFIG_MIGRATION=n" --disable MIGRATION --disable COMPACTION --disable TRANSPARENT_HUGEPAGE \
	--disable CMA --disable NUMA_BALANCING --disable MEMORY_HOTREMOVE --disable NUMA_MIGRATION \
	--disable MEMORY_FAILURE -- \
	"# CONFIG_MIGRATION is not set"
on=()
for opt in $off; do on+=(--enable "$opt"); done
variant "CONFIG_DEBUG_FS=n${off:+ and the switch on}" --disable DEBUG_FS "${on[@]}" -- \
	"# CONFIG_DEBUG_FS is not set" $(for opt in $off; do echo "CONFIG_$opt=y"; done)
# i386: its own build directory, prepared once per source version.
arch=i386 o=$obj32
if [ ! -f "$obj32/.memhp-prepared" ]; then
	say "prepare $obj32 for i386 (once per source version)"
	mkdir -p "$obj32"
	cp "$art/config" "$obj32/.config"
	mk olddefconfig && mk -j"$jobs" prepare || die "make ARCH=i386 prepare failed (log: $log)"
	touch "$obj32/.memhp-prepared"
fi
variant "ARCH=i386" -- "CONFIG_X86_32=y" $(for opt in $off; do echo "CONFIG_$opt=y"; done)
arch=x86_64 o=$obj
# The upstream series as posted, alone on the Debian tree.
mapfile -t up < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/posting/upstream.series" | awk '{print $1}')
if [ ${#up[@]} -gt 0 ]; then
	(cd "$src" && quilt pop -a -q >>"$log" 2>&1) || die "quilt pop -a failed in $src (log: $log)"
	units=() tests=()
	for p in "${up[@]}"; do
		[ -f "$pdir/$p" ] || die "$pdir/posting/upstream.series names $p, which $pdir does not have"
		patch -p1 -s -d "$src" -N --no-backup-if-mismatch <"$pdir/$p" >>"$log" 2>&1 ||
			die "upstream series: $p does not apply after the patches before it (log: $log)"
		upstream_applied+=("$p")
		add_units "$pdir/$p"
	done
	cp "$art/config" "$obj/.config"
	echo "=== upstream series: ${up[*]}" >>"$log"
	n=$((n + 1))
	check $n "upstream series (posting/upstream.series, ${#up[@]} patches) builds alone" \
		"upstream series (posting/upstream.series) does not build alone"
	unapply_upstream
fi
mv "$out" "$result"
