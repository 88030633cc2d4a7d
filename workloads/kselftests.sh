#!/bin/bash
# workloads/kselftests.sh BUILD_DIR KVER... - the kernel's own mm selftests
# for the exec step (scenarios/exec-selftests.yaml), built statically from
# each tree's source as kernel/build.sh extracted and patched it in the cache:
# gup_longterm (6.3 and later: 6.12 only) and gup_test (run with -L, the
# long-term pin benchmark), as BUILD_DIR/ksft/gup_longterm-<kver> and
# gup_test-<kver>. The tree's own uapi headers (make headers, into
# BUILD_DIR/khdr-<kver>/, once) stand in for the host's older ones; liburing
# (static, from liburing-dev) gives gup_longterm its io_uring cases.
set -euo pipefail
b=$1
shift
die() { echo "Error: $*" >&2; exit 1; }
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
mkdir -p "$b/ksft"
for k in "$@"; do
	art=$(cat "$cache/kernel/$k/current" 2>/dev/null) || die "no kernel $k built yet: make kernel"
	ver=$(jq -r .source_version "$art/identity.json")
	src=$cache/kernel/$k/src-$ver
	[ -f "$src/.memhp-extracted" ] ||
		die "no source tree $src for kernel $k (kernel/build.sh extracts it; remove $art and run make kernel)"
	# The tree's lock, as kernel/build.sh and kernel/bisect-check.sh take
	# it: the bisect check pops the series off this tree for a while, and
	# the selftests must be compiled from it patched.
	exec 9>"$cache/kernel/$k/.lock"
	if ! flock -n 9; then
		echo "[ksft] $k: waiting for a build or bisect check of $k to finish (lock $cache/kernel/$k/.lock)"
		flock 9
	fi
	[ "$(cat "$src/.memhp-series" 2>/dev/null)" = "$(jq -r .series_hash "$art/identity.json")" ] ||
		die "$src does not carry the series of $art: run make kernel"
	hdr=$(realpath -m "$b/khdr-$k")
	if [ ! -f "$hdr/.memhp-headers" ]; then
		echo "[ksft] $k: the tree's uapi headers (make headers) into $hdr"
		make -s -C "$src" O="$hdr" ARCH=x86_64 headers >/dev/null
		touch "$hdr/.memhp-headers"
	fi
	d=$src/tools/testing/selftests/mm
	[ -d "$d" ] || d=$src/tools/testing/selftests/vm	# 6.1
	# check_config.sh's output: local_config.h until 7.x, local_config.h_gen since
	echo '#define LOCAL_CONFIG_HAVE_LIBURING 1' >"$hdr/local_config.h"
	cp "$hdr/local_config.h" "$hdr/local_config.h_gen"
	inc=(-I"$hdr" -I"$hdr/usr/include" -I"$src/tools/testing/selftests" -I"$d" -I"$src")
	util=()
	[ -f "$d/vm_util.c" ] && util=(vm_util.c)
	# 7.x: gup_longterm.c and vm_util.c call hugepage_settings.c (6.12 has no such file)
	for f in hugepage_settings.c; do
		[ -f "$d/$f" ] && util+=("$f")
	done
	out=$(realpath "$b/ksft")
	# compiled from inside the tree with relative names: gup_longterm makes its
	# "local tmpfile" next to __FILE__, which must name no host path in the guest
	if [ -f "$d/gup_longterm.c" ]; then
		echo "[cc] $b/ksft/gup_longterm-$k (static, from $d)"
		(cd "$d" && ${CC:-cc} -O2 -static -w "${inc[@]}" -o "$out/gup_longterm-$k" gup_longterm.c "${util[@]}" -luring)
	fi
	echo "[cc] $b/ksft/gup_test-$k (static, from $d)"
	(cd "$d" && ${CC:-cc} -O2 -static -w "${inc[@]}" -o "$out/gup_test-$k" gup_test.c "${util[@]}" -lpthread)
	exec 9>&-
done
touch "$b/ksft/.upstream-$(echo "$@" | tr ' ' '-')"
