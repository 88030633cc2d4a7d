#!/bin/bash
# kernel/repro/pfn-mapped-race.sh - reproduce the race that 6.12's 0008
# (6.1's 0006, 7.3's 0007), "x86/mm: keep pfn_mapped[] stable for readers
# while memory is hotplugged", fixes, and show that the fix holds
# (docs/kernel.md, "Fixed: an Oops while the guest boots").
#
# Usage: kernel/repro/pfn-mapped-race.sh [-n BOOTS] [KVER]
#        (after kernel/build.sh KVER; KVER 6.12 (default), 6.1 or 7.3; BOOTS
#        per kernel, default 20)
#
# Builds two kernels from the lab's KVER tree and config, each in overlay
# mounts over the cached source and build trees in a mount namespace of its
# own (the cache stays as it is; kbuild recompiles two files; the trees'
# lock is held meanwhile, as kernel/build.sh does):
#   unfixed  the series without the fix, with widen-sort.patch and
#            widen-walk-unfixed.patch
#   fixed    the series, with widen-sort.patch and widen-walk-fixed.patch
#            (7.3: widen-walk-fixed-7.3.patch, around its write side with
#            interrupts off)
# The widen patches only make the window wider: each swap of the sort of
# pfn_mapped[] takes 0.5 ms (as if the vCPU sorting it were preempted), and
# pfn_range_is_mapped() waits 0.2 ms before each entry it reads; and they
# print each range memory hotplug maps ("repro: direct map + pfn ...").
# Then BOOTS bare QEMU boots of each (TCG, two at a time): the demo's
# topology, the lab's initramfs, a 16 GiB virtio-mem request at boot, so
# that the plugging goes on while mark_rodata_ro() frees the kernel image's
# gaps. A boot ends at "Run /init" or at an Oops (60 s at most).
#
# Prints per kernel the boots, the Oopses (and how many of them in
# free_reserved_area, the CI's signature), and the boots whose plugging
# went on past the free. Exit 0 when the unfixed kernel oopsed at least
# once and every boot of the fixed one reached /init without an Oops (a
# boot that hung, or ended before /init, shows no Oops and proves
# nothing); 1 otherwise; 2 on a usage or setup error.
# Needs root (mount namespaces, overlayfs). Logs and kernels stay in
# $MEMHP_CACHE/repro/pfn-mapped-<KVER>/ until the next run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
die() { printf 'Error: %s\n' "$*" >&2; exit 2; }
say() { printf '[repro %s] %s\n' "$kver" "$*"; }
usage="usage: kernel/repro/pfn-mapped-race.sh [-n BOOTS] [6.12|6.1|7.3]"

boots=20
while [ $# -gt 0 ]; do
	case $1 in
	-n) boots=${2:-}; shift 2 || die "$usage"
	    case $boots in ''|*[!0-9]*|0) die "-n needs a positive number, not '$boots'";; esac;;
	-*) die "unknown option '$1' ($usage)";;
	*) break;;
	esac
done
kver=${1:-6.12}
case $kver in 6.12|6.1|7.3) ;; *) die "no kernel '$kver' ($usage)";; esac
[ "$(id -u)" = 0 ] || die "needs root: overlay mounts in a mount namespace of its own"

kdir=$cache/kernel/$kver
# shellcheck source=kernel/tree-lib.sh
. "$here/../tree-lib.sh"
tree_current "$kdir" "$kver"
obj=$kdir/obj-$pkgver
# The trees are kernel/build.sh's and bisect-check.sh's: hold their lock
# while the overlays read them.
tree_lock "$kdir" "$kver"
tree_carries "$kver"
fix=$(sed -e 's/#.*//' "$here/../patches/$kver/posting/fixes.series" | awk 'tolower($0) ~ /x86-mm-keep-pfn_mapped/ { print $1 }')
[ -n "$fix" ] && [ -f "$here/../patches/$kver/$fix" ] || die "no pfn_mapped fix in kernel/patches/$kver/posting/fixes.series"
initrd=$(cd "$here/../.." && pwd)/build/initramfs.cpio
[ -r "$initrd" ] || die "no $initrd: run make image"

work=$cache/repro/pfn-mapped-$kver
rm -rf "$work"
mkdir -p "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || :; done' EXIT

# build VARIANT: bzImage of VARIANT into $work/VARIANT/bzImage.
build() {
	local v=$1 d=$work/$1 t0=$SECONDS
	mkdir -p "$d"/{su,sw,ou,ow}
	say "build: $v (overlays over $src and $obj; log $d/build.log)"
	# the paths go in as arguments, never into the script's text
	# shellcheck disable=SC2016
	if ! unshare -m -- bash -euc '
		src=$1 obj=$2 d=$3 fix=$4 here=$5 v=$6 jobs=$7 kver=$8
		mount -t overlay overlay -o "lowerdir=$src,upperdir=$d/su,workdir=$d/sw" "$src"
		mount -t overlay overlay -o "lowerdir=$obj,upperdir=$d/ou,workdir=$d/ow" "$obj"
		cd "$src"
		[ "$v" = fixed ] || patch -R -p1 -s --no-backup-if-mismatch <"$fix"
		patch -p1 -s --no-backup-if-mismatch <"$here/widen-sort.patch"
		walk=$here/widen-walk-$v-$kver.patch
		[ -f "$walk" ] || walk=$here/widen-walk-$v.patch
		patch -p1 -s --no-backup-if-mismatch <"$walk"
		make -s -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" bzImage
		cp "$obj/arch/x86/boot/bzImage" "$d/bzImage"
	' _ "$src" "$obj" "$d" "$here/../patches/$kver/$fix" "$here" "$v" "${JOBS:-$(nproc)}" "$kver" >"$d/build.log" 2>&1; then
		tail -n 20 "$d/build.log" >&2
		die "the $v kernel did not build (log: $d/build.log)"
	fi
	say "build: $v done in $((SECONDS - t0)) s"
}

# boot LOG KERNEL: one boot, until "Run /init", an Oops, or 60 s.
boot() {
	local log=$1 k=$2 p i
	timeout 90 qemu-system-x86_64 -machine q35 -accel tcg -cpu qemu64 \
		-m 1152M,slots=1,maxmem=20G -smp 2,sockets=2,cores=1,threads=1 \
		-object memory-backend-ram,id=m0,size=1G -numa node,nodeid=0,cpus=0,memdev=m0 \
		-object memory-backend-ram,id=m1,size=128M -numa node,nodeid=1,cpus=1,memdev=m1 \
		-object memory-backend-ram,id=vm0,size=16G,reserve=off \
		-device virtio-mem-pci,node=1,block-size=2M,requested-size=16G,memdev=vm0,id=vmem0 \
		-display none -nodefaults -no-reboot -serial "file:$log" \
		-kernel "$k" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 no_timer_check memhp_default_state=online_movable" \
		2>>"$log.stderr" &
	p=$!
	for ((i = 0; i < 600; i++)); do
		sleep 0.1
		grep -q 'Run /init\|BUG:\|Oops' "$log" 2>/dev/null && { sleep 0.3; break; }
		kill -0 $p 2>/dev/null || break
	done
	kill $p 2>/dev/null || :
	wait $p 2>/dev/null || :
}

# The time stamp of the first line matching PATTERN in LOG, or nothing.
stamp() { awk -v re="$2" '$0 ~ re { gsub(/[][]/, "", $2); print $2; exit }' "$1"; }

# The overlays start from the cached build tree, which must be the build of
# $art (its config, the series' sources). kernel/build.sh --vanilla (make
# bench) builds in the same tree and leaves it otherwise, and build.sh does
# not rebuild for an artifact it already has. So bring the tree up to date
# as build.sh would for $art: nothing to do normally (seconds), once after a
# --vanilla build (minutes); then each overlay compiles two files.
t0=$SECONDS
say "build: $obj up to date with $art (log $work/tree.log)"
if ! { { cmp -s "$obj/.config" "$art/config" ||
	 { cp "$art/config" "$obj/.config" && make -C "$src" O="$obj" ARCH=x86_64 olddefconfig; }; } &&
       make -s -C "$src" O="$obj" ARCH=x86_64 -j"${JOBS:-$(nproc)}" bzImage; } >"$work/tree.log" 2>&1; then
	tail -n 20 "$work/tree.log" >&2
	die "the cached tree $obj did not build (log: $work/tree.log)"
fi
say "build: $obj up to date after $((SECONDS - t0)) s"
build unfixed
build fixed
exec 9>&-	# the trees are not read from here on

rc=0
for v in unfixed fixed; do
	mkdir -p "$work/$v/logs"
	say "boot: $v, $boots boots, two at a time"
	for ((i = 1; i <= boots; i += 2)); do
		boot "$work/$v/logs/$i.log" "$work/$v/bzImage" &
		pids=($!)
		[ $((i + 1)) -le "$boots" ] && boot "$work/$v/logs/$((i + 1)).log" "$work/$v/bzImage"
		wait "${pids[0]}" || :
		pids=()
		printf '\r[repro %s] boot: %s %d of %d' "$kver" "$v" $((i + 1 > boots ? boots : i + 1)) "$boots"
	done
	echo
	oops=0 fra=0 init=0 past=0
	for log in "$work/$v"/logs/*.log; do
		grep -q 'BUG:\|Oops' "$log" && oops=$((oops + 1))
		grep -q 'RIP: .*free_reserved_area' "$log" && fra=$((fra + 1))
		grep -q 'Run /init' "$log" && init=$((init + 1))
		# the boot-time plugging still going after the gaps were freed:
		# a range mapped after "Freeing unused kernel image (... gap)"
		free=$(stamp "$log" 'Freeing unused kernel image \\((text/rodata|rodata/data) gap\\)')
		last=$(awk '/repro: direct map \+ pfn/ { l = $2 } END { gsub(/[][]/, "", l); print l }' "$log")
		[ -n "$free" ] && [ -n "$last" ] && awk -v a="$last" -v b="$free" 'BEGIN { exit !(a + 0 > b + 0) }' && past=$((past + 1))
	done
	printf '%-8s %3d boots: %3d oopsed (%d in free_reserved_area), %d reached /init, %d plugged on past the free\n' \
		"$v" "$boots" $oops $fra $init $past | tee -a "$work/summary"
	case $v in
	unfixed) [ $oops -gt 0 ] || { say "the unfixed kernel never oopsed: not reproduced (logs: $work/unfixed/logs)"; rc=1; };;
	fixed) [ $oops = 0 ] || { say "the fixed kernel oopsed (logs: $work/fixed/logs)"; rc=1; }
	       # no Oops is evidence only from a boot that got past the free to /init
	       [ $init = "$boots" ] || { say "$((boots - init)) boot(s) of the fixed kernel never reached /init: no evidence (logs: $work/fixed/logs)"; rc=1; };;
	esac
done
say "logs: $work"
exit $rc
