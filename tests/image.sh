# tests/image.sh - the lab's guest image without a kernel build (issue 36):
# memhp-pin against linux-source-6.12's gup_test.h with the series' hunks
# (workloads/gup-header.sh), the image an uncompressed cpio, the kselftests
# in it only once their kernel is built. The fast tier boots nothing: `make
# image` into a build folder of its own with a $MEMHP_CACHE whose kernel/
# is empty (the header cache copied from the real one, so that no tarball is
# read; memhp-pin copied with its time, so that make compiles only what is
# out of date). The full tier builds all of it from nothing (the header from
# the tarball, memhp-pin compiled) and boots the first result of make demo,
# scenarios/intro/stock.yaml, with that image on Debian's stock 6.12 kernel.
plan 6 full 10

echo "# image: make image with no kernel built (MEMHP_CACHE's kernel/ empty)"
nok=$work/nokernel
mkdir -p "$nok/cache/kernel" "$nok/b/gup"
[ ! -d "$cache/headers" ] || cp -a "$cache/headers" "$nok/cache/"
[ ! -f "$B/gup/gup_test.h" ] || cp -p "$B/gup/gup_test.h" "$nok/b/gup/"
[ ! -x "$B/memhp-pin" ] || cp -p "$B/memhp-pin" "$nok/b/"
ok "make image with an empty kernel cache: exit 0, the image built, no kernel build started" \
	sh -c 'make_() { MAKEFLAGS= MEMHP_CACHE=$1/cache make --no-print-directory B="$1/b" image; }
		make_ "$1" >"$1/make.log" 2>&1 && [ -s "$1/b/initramfs.cpio" ] &&
		! grep -q "^\[kernel" "$1/make.log" && [ -z "$(ls -A "$1/cache/kernel")" ]' _ "$nok"
ok "that image: an uncompressed newc cpio with memhp-pin, busybox's applet links, qemu-ga and init; no /bin/ksft/ program" \
	sh -c 'file -b "$1" | grep -q "^ASCII cpio archive (SVR4 with no CRC)" &&
		cpio -t --quiet <"$1" >"$1.list" && grep -qx bin/memhp-pin "$1.list" && grep -qx bin/sh "$1.list" &&
		grep -qx usr/sbin/qemu-ga "$1.list" && grep -qx init "$1.list" && ! grep -q "^bin/ksft/." "$1.list"' \
	_ "$nok/b/initramfs.cpio"
ok "its memhp-pin is stripped (build/ keeps the one with debug info)" \
	sh -c 'mkdir -p "$1/x" && cd "$1/x" && cpio -id --quiet bin/memhp-pin <"$1/b/initramfs.cpio" &&
		file bin/memhp-pin | grep -q ", stripped" && file "$1/b/memhp-pin" | grep -q "with debug_info"' _ "$nok"
# The header from the source package and the series' hunks is the one each
# built kernel has (kernel/build.sh copies its tree's mm/gup_test.h).
hdr_agrees() {
	local k a n=0
	for k in 6.12 6.1; do
		a=$(art "$k" 2>/dev/null) || continue
		[ -f "$a/include/gup_test.h" ] || continue
		cmp -s "$nok/b/gup/gup_test.h" "$a/include/gup_test.h" || { echo "$a/include/gup_test.h differs"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]	# make check builds both kernels first
}
ok "the gup_test.h it compiled against (linux-source-6.12 + the series' hunks) equals each built kernel's own" hdr_agrees
ok "with the kernels built, build/'s image has the kselftests in /bin/ksft/ (gup_longterm_counters, gup_test-6.12)" \
	sh -c 'cpio -t --quiet <"$1" >"$2/full.list" && grep -qx bin/ksft/gup_longterm_counters "$2/full.list" &&
		grep -qx bin/ksft/gup_test-6.12 "$2/full.list"' _ "$B/initramfs.cpio" "$work"
# A series whose change to the header no longer applies (a context line
# that is not in the package's file) is an error naming the patch; the
# package's own header comes from the copied cache (no tarball read).
mkdir -p "$work/badseries/kernel/patches/6.12" "$work/badseries/workloads" "$work/badcache"
cp workloads/gup-header.sh "$work/badseries/workloads/" && cp kernel/cache-trust.sh "$work/badseries/kernel/"
[ ! -d "$cache/headers" ] || cp -a "$cache/headers" "$work/badcache/"
sed 's/^ \t__u32 flags;$/ \t__u32 flags_other;/' \
	kernel/patches/6.12/0005-*.patch >"$work/badseries/kernel/patches/6.12/0005-bad.patch"
echo 0005-bad.patch >"$work/badseries/kernel/patches/6.12/series"
expect_fail "gup-header.sh with a change to the header that does not apply: exit 1, naming the patch, the header and the package version" 1 \
	"0005-bad.patch: its change to mm/gup_test.h does not apply to linux-source-6.12 " \
	env MEMHP_CACHE="$work/badcache" "$work/badseries/workloads/gup-header.sh" 6.12 "$work/bad.h"

if full; then
	echo "# image (full): from nothing (the header from the tarball, memhp-pin compiled), then make demo's first result on it"
	cold=$work/cold
	mkdir -p "$cold/cache/kernel"
	ok "make image from an empty MEMHP_CACHE and build folder: the header read from /usr/src/linux-source-6.12.tar.xz, memhp-pin compiled, no kernel" \
		sh -c 'MAKEFLAGS= MEMHP_CACHE=$1/cache make --no-print-directory B="$1/b" image >"$1/make.log" 2>&1 &&
			grep -q "^\[header\] mm/gup_test.h from linux-source-6.12" "$1/make.log" && grep -q "^\[cc\] $1/b/memhp-pin" "$1/make.log" &&
			! grep -q "^\[kernel" "$1/make.log" && [ -z "$(ls -A "$1/cache/kernel")" ]' _ "$cold"
	ok "its header is byte for byte the one the warm cache has" cmp "$cold/b/gup/gup_test.h" "$nok/b/gup/gup_test.h"
	# --initrd relative to here: run hands QEMU an absolute path (QEMU opens it from its own directory)
	lab_run -o "$work/stock" --initrd "$(realpath --relative-to=. "$cold/b/initramfs.cpio")" scenarios/intro/stock.yaml >"$work/stock.out" 2>&1
	rc=$?
	rec=$work/stock/trials.jsonl
	ok "make demo's first result (scenarios/intro/stock.yaml) on Debian's 6.12 with that image: pass (exit $rc)" \
		sh -c '[ "$1" = 0 ] && jq -e "select(.verdict == \"pass\")" "$2" >/dev/null' _ "$rc" "$rec"
	ok "its record: 256 MiB io_uring pin, no page of it left in ZONE_MOVABLE, the unplug at 0 MiB, the host got >= 90% back" \
		jq -e '.kernel.kind == "package" and .summary.pinned_pages_movable_after == 0 and .summary.reached_bytes == 0 and
			.summary.requested_bytes == 0 and .summary.host_reclaimed_of_reclaimable >= 0.9' "$rec"
fi
