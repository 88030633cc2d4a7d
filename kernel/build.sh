#!/bin/bash
# kernel/build.sh - build the memhp-lab guest kernel from Debian's linux-source.
#
# Usage: kernel/build.sh [KVER]          (KVER: 6.12 (default), 6.1 or 7.3;
#                                         7.3's source from experimental, kernel/source-deb.sh)
#        kernel/build.sh --vanilla KVER
#            the same tree and config without our series (for make bench's
#            with/without comparison), with the standalone fixes the lab
#            carries (patches/<KVER>/posting/fixes.series); its path goes to
#            <KVER>/vanilla, not <KVER>/current
#        kernel/build.sh --flavour NAME KVER
#            the series with one more fragment, kernel/config/flavours/NAME.config
#            (rdma: soft-RoCE for RDMA pins; kmemleak: the leak detector
#            for soaks); its own build tree (obj-<version>-NAME, first
#            copied from the default one, so switching flavours never
#            rebuilds the default tree) and its path in <KVER>/NAME
#        kernel/build.sh --check-config CONFIG [LIST...]
#            only phase 4: does CONFIG set every option in kernel/required.list
#            (and in each further LIST, e.g. kernel/patches/6.12/required.list)?
# Environment: MEMHP_CACHE (default ~/.cache/memhp-lab), V=1 for compiler output,
#              JOBS (default: all cores).
#
# Phases, one line each: extract, patch, config, check, build. The result is
# $MEMHP_CACHE/kernel/<KVER>/artifacts/<key>/{bzImage,config,identity.json}, where
# key hashes the source package version, the series with its patches, the config
# fragments and the required-options list. An existing artifact is reused as is;
# otherwise the one build tree per source version is re-patched and rebuilt
# incrementally. The path of the artifact directory is printed last on stdout and
# written to $MEMHP_CACHE/kernel/<KVER>/current.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# Phase 4 on its own: every option in kernel/required.list (what any guest kernel
# needs) and in the further lists given (what a series adds) must be =y.
check_config() {
	local config=$1 opt missing=()
	shift
	while read -r opt; do
		case $opt in ''|'#'*) continue;; esac
		# A|B: one option under the names of different trees (renamed)
		grep -qxE "CONFIG_($opt)=y" "$config" || missing+=("CONFIG_$opt")
	done < <(cat "$here/required.list" "$@")
	if [ ${#missing[@]} -ne 0 ]; then
		printf 'Error: required option(s) not set after olddefconfig: %s (config: %s; fragments: %s/config/)\n' \
			"${missing[*]}" "$config" "$here" >&2
		return 1
	fi
}

if [ "${1:-}" = --check-config ]; then
	[ -r "${2:-}" ] || { echo "Error: --check-config needs a readable .config, not '${2:-}'" >&2; exit 1; }
	config=$2
	shift 2
	check_config "$config" "$@"
	exit
fi

pointer=current
flavour=
if [ "${1:-}" = --vanilla ]; then
	pointer=vanilla
	shift
elif [ "${1:-}" = --flavour ]; then
	flavour=${2:-}
	case $flavour in
	''|*[!a-z0-9]*|current|vanilla)
		echo "Error: --flavour needs a name of kernel/config/flavours/ (lower case letters and digits), not '$flavour'" >&2
		exit 1;;
	esac
	[ -r "$here/config/flavours/$flavour.config" ] || {
		echo "Error: no flavour '$flavour': $here/config/flavours/$flavour.config not found (known: $(cd "$here/config/flavours" && ls *.config | sed 's/\.config$//' | tr '\n' ' '))" >&2
		exit 1
	}
	pointer=$flavour
	shift 2
fi
kver=${1:-6.12}
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
"$(dirname "$0")/cache-trust.sh" "$cache" || exit 1	# a cache another user can write is refused (docs/security.md)
jobs=${JOBS:-$(nproc)}
pkg=linux-source-$kver
tarball=/usr/src/$pkg.tar.xz
patchdir=$here/patches/$kver
if [ $pointer = vanilla ]; then
	# A series of its own, the standalone fixes of the Debian tree the lab
	# carries (posting/fixes.series: a guest must boot reliably) without the
	# memhp-lab series: the key, the identity and the tree say so.
	lab=$patchdir
	patchdir=$(mktemp -d)
	trap 'rm -rf "$patchdir"' EXIT
	echo "# vanilla: $pkg without the memhp-lab series, with its standalone fixes" >"$patchdir/series"
	if [ -f "$lab/posting/fixes.series" ]; then
		for p in $(sed -e 's/#.*//' "$lab/posting/fixes.series"); do
			cp "$lab/$p" "$patchdir/" && basename "$p" >>"$patchdir/series" ||
				{ echo "Error: $lab/posting/fixes.series names $p, which $lab does not have" >&2; exit 1; }
		done
	fi
fi
t0=$(date +%s)

say() { printf '[kernel %s] %s\n' "$kver" "$*" >&2; }
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }

# Run a phase quietly into its log; on failure show the tail and name the log.
run_logged() {
	local log=$1; shift
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee -a "$log" >&2
		return "${PIPESTATUS[0]}"
	fi
	if ! "$@" >>"$log" 2>&1; then
		tail -n 25 "$log" >&2
		die "'$*' failed; full log: $log"
	fi
}

case $kver in
6.12|6.1)
	# the host's own suites: the installed package's tarball
	[ -r "$tarball" ] || die "$tarball not found: install the Debian package $pkg (make deps)"
	pkgver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "cannot read the version of the package $pkg (dpkg-query -W $pkg)"
	;;
7.3)
	# experimental's: fetched as a .deb with a private apt configuration and
	# unpacked into the cache, never installed (kernel/source-deb.sh)
	got=$("$here/source-deb.sh" "$kver") || die "cannot fetch $pkg (above)"
	tarball=$(sed -n 1p <<<"$got") pkgver=$(sed -n 2p <<<"$got")
	;;
*) die "unknown kernel '$kver' (known: 6.12, 6.1, 7.3)";;
esac
[ -d "$patchdir" ] && [ -f "$patchdir/series" ] ||
	die "$patchdir/series not found (an empty series file means: no patches)"

# The patches in series order (comments and blank lines skipped).
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patchdir/series" | awk '{print $1}')
for p in "${patches[@]}"; do
	[ -r "$patchdir/$p" ] || die "$patchdir/series names '$p', which does not exist"
done

frags=("$here"/config/*.config)
[ -z "$flavour" ] || frags+=("$here/config/flavours/$flavour.config")
# Options the series itself adds (its Kconfig entries), checked like required.list.
series_required=()
[ -f "$patchdir/required.list" ] && series_required=("$patchdir/required.list")
series_hash=$( (cd "$patchdir" && cat series "${patches[@]}") | sha256sum | cut -c1-16)
key=$( {
	echo "$pkg $pkgver"
	echo "series $series_hash"
	# a flavour's identity.json names it: its artifact is never another's
	[ -z "$flavour" ] || echo "flavour $flavour"
	cat "${frags[@]}" "$here/required.list" "${series_required[@]}"
} | sha256sum | cut -c1-16)

kdir=$cache/kernel/$kver
src=$kdir/src-$pkgver
obj=$kdir/obj-$pkgver${flavour:+-$flavour}
art=$kdir/artifacts/$key
mkdir -p "$kdir/artifacts"
# One build per tree at a time: a second `make kernel` (another terminal, a test
# run) waits here instead of compiling into the same objects.
exec 9>"$kdir/.lock"
if ! flock -n 9; then
	say "waiting for another build of $kver (lock $kdir/.lock)"
	flock 9
fi
log=$kdir/build-$key.log
# A new build starts a new log; a cached artifact keeps the log it was built with.
[ -f "$art/identity.json" ] || : >"$log"

# A tree kernel/bisect-check.sh (or its kind) was killed in the middle of is
# in no known state (some patches popped, others applied with patch(1)):
# extracted again.
if [ -e "$src/.memhp-dirty" ]; then
	say "$src was left mid-check (.memhp-dirty: kernel/bisect-check.sh killed): extract it again"
	rm -f "$src/.memhp-extracted"
fi
# Phase 1: extract the pristine tree once per source package version.
if [ ! -f "$src/.memhp-extracted" ]; then
	say "extract $tarball -> $src"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	run_logged "$log" tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.memhp-extracted"
	mv "$src.tmp" "$src"
fi

# Phase 2: bring the tree to exactly our series with quilt. The applied copy lives
# in $src/patches; quilt's own backups in $src/.pc let us pop even after the
# patches in the checkout changed.
applied=$(cat "$src/.memhp-series" 2>/dev/null || echo none)
if [ "$applied" != "$series_hash" ]; then
	say "patch: ${#patches[@]} patch(es) from $patchdir/series"
	export QUILT_PATCHES=patches QUILT_PC=.pc
	# Files the old and the new series touch. quilt restores popped files with
	# their old timestamps, which kbuild would take for up to date: touch them
	# once the tree is in its new state, those whose content changed. One
	# whose content is what it was before the pop (a patch's commit message
	# changed, or another file of it) gets its old timestamp back, so that
	# kbuild does not rebuild everything that includes it.
	# The list survives a failed attempt in .memhp-touch; the contents and
	# timestamps before the pop are in .memhp-before (path, sha256, mtime).
	cat "$src"/patches/*.patch "$src"/patches/*.diff "${patches[@]/#/$patchdir/}" 2>/dev/null |
		sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' >>"$src/.memhp-touch" || true
	if [ ! -f "$src/.memhp-before" ]; then
		sort -u "$src/.memhp-touch" | while read -r f; do
			[ -f "$src/$f" ] || continue
			printf '%s %s %s\n' "$f" "$(sha256sum <"$src/$f" | cut -c1-64)" "$(stat -c %Y "$src/$f")"
		done >"$src/.memhp-before.tmp"
		mv "$src/.memhp-before.tmp" "$src/.memhp-before"
	fi
	if [ -d "$src/.pc" ] && [ -s "$src/.pc/applied-patches" ]; then
		(cd "$src" && run_logged "$log" quilt pop -a -q)
	fi
	rm -rf "$src/patches" "$src/.pc"
	mkdir -p "$src/patches"
	cp "$patchdir/series" "${patches[@]/#/$patchdir/}" "$src/patches/" 2>/dev/null ||
		cp "$patchdir/series" "$src/patches/"
	rm -f "$src/.memhp-series"
	for p in "${patches[@]}"; do
		if ! (cd "$src" && quilt push -q --fuzz=0 "$p" >>"$log" 2>&1); then
			grep -E '^(Hunk|patching file|[0-9]+ out of)' "$log" | tail -n 10 >&2
			die "patch $patchdir/$p does not apply to $pkg $pkgver (see the hunks above; log: $log)"
		fi
	done
	sort -u "$src/.memhp-touch" | while read -r f; do
		[ -e "$src/$f" ] || continue
		was=$(awk -v f="$f" '$1 == f { print $2, $3; exit }' "$src/.memhp-before")
		if [ -n "$was" ] && [ "$(sha256sum <"$src/$f" | cut -c1-64)" = "${was% *}" ]; then
			touch -d "@${was#* }" "$src/$f"
		else
			touch "$src/$f"
		fi
	done
	rm -f "$src/.memhp-touch" "$src/.memhp-before"
	echo "$series_hash" >"$src/.memhp-series"
fi

# A finished artifact for this key is reused as it is (the tree above now carries
# its series, which kernel/bisect-check.sh relies on).
if [ -f "$art/bzImage" ] && [ -f "$art/identity.json" ]; then
	say "cached: $art (key $key)"
	echo "$art" >"$kdir/$pointer"
	echo "$art"
	exit 0
fi

# A flavour's first build starts from a copy of the default tree's objects
# (timestamps kept): kbuild then recompiles only what depends on the options
# the flavour's fragment changes (include/config/*), not the whole kernel.
# The copy is whole or absent (renamed into place); a default tree without a
# finished vmlinux is not copied.
base_obj=$kdir/obj-$pkgver
if [ -n "$flavour" ] && [ ! -d "$obj" ] && [ -f "$base_obj/vmlinux" ]; then
	say "seed: $obj from the default tree ($(du -sm "$base_obj" | cut -f1) MiB), to rebuild what the flavour changes"
	rm -rf "$obj.tmp"
	cp -a "$base_obj" "$obj.tmp"
	# objtool's own build (tools/) writes its tree's absolute path into its
	# command files: said anew for the copy's place, or objtool is rebuilt,
	# and every object it checked with it (measured: 758 of 1,151).
	{ grep -rlF --include='.*.cmd' -e "$base_obj/" "$obj.tmp/tools" || true; } | while IFS= read -r f; do
		FROM=$base_obj/ TO=$obj/ perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g' "$f"
	done
	mv "$obj.tmp" "$obj"
fi

# Phase 3: config = allnoconfig with our fragments forced, then olddefconfig.
say "config: allnoconfig + ${#frags[@]} fragment(s)"
mkdir -p "$obj"
cat "${frags[@]}" >"$obj/memhp-fragments.config"
run_logged "$log" make -C "$src" O="$obj" ARCH=x86_64 \
	KCONFIG_ALLCONFIG="$obj/memhp-fragments.config" allnoconfig
run_logged "$log" make -C "$src" O="$obj" ARCH=x86_64 olddefconfig

# Phase 4: every required option must have survived the dependency resolution.
check_config "$obj/.config" "${series_required[@]}" || exit 1
# A flavour is what its fragment turns on: each of its =y options must be.
if [ -n "$flavour" ]; then
	lost=$(grep -xE 'CONFIG_[A-Z0-9_]+=y' "$here/config/flavours/$flavour.config" | grep -vxFf "$obj/.config" || true)
	[ -z "$lost" ] || die "the $flavour flavour's option(s) not set after olddefconfig: $(echo $lost) (fragment: $here/config/flavours/$flavour.config, config: $obj/.config)"
fi
say "check: $(cat "$here/required.list" "${series_required[@]}" | grep -cv '^[[:space:]]*\(#\|$\)') required options set"

# Phase 5: build.
say "build: bzImage with $jobs job(s), log $log"
tb=$(date +%s)
run_logged "$log" make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" bzImage
te=$(date +%s)

mkdir -p "$art.tmp"
cp "$obj/arch/x86/boot/bzImage" "$art.tmp/bzImage"
cp "$obj/.config" "$art.tmp/config"
# Headers the guest workloads compile against (never hard-code kernel ABI).
mkdir -p "$art.tmp/include"
cp "$src/mm/gup_test.h" "$art.tmp/include/gup_test.h"
# The series' kselftests the guest image carries (make image builds them
# statically): each with what it includes, laid out so that
# -I$art/selftests finds <mm/gup_test.h> and "../kselftest.h".
ksft_dir=$src/tools/testing/selftests/mm
[ -d "$ksft_dir" ] || ksft_dir=$src/tools/testing/selftests/vm
for t in gup_longterm_counters; do
	[ -f "$ksft_dir/$t.c" ] || continue
	mkdir -p "$art.tmp/selftests/mm"
	cp "$ksft_dir/$t.c" "$art.tmp/selftests/mm/$t.c"
	cp "$src/mm/gup_test.h" "$art.tmp/selftests/mm/gup_test.h"
	cp "$src/tools/testing/selftests/kselftest.h" "$art.tmp/selftests/kselftest.h"
done
release=$(cat "$obj/include/config/kernel.release")
# A config with modules (the kmemleak flavour: the kernel's kmemleak test
# module): built and installed, packed as a cpio the run appends to the
# guest image, under usr/lib/modules/RELEASE like kernel/package.sh's. None is
# loaded at boot (its memhp-modules list is empty); a workload loads it.
modjson=
if grep -qx 'CONFIG_MODULES=y' "$obj/.config"; then
	say "modules: make modules, modules_install"
	run_logged "$log" make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" modules
	rm -rf "$obj/modinst" "$obj/modcpio"
	run_logged "$log" make -C "$src" O="$obj" ARCH=x86_64 INSTALL_MOD_PATH="$obj/modinst" \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install
	mkdir -p "$obj/modcpio/usr/lib"
	cp -a "$obj/modinst/lib/modules" "$obj/modcpio/usr/lib/"
	rm -f "$obj/modcpio/usr/lib/modules/$release/build" "$obj/modcpio/usr/lib/modules/$release/source"
	: >"$obj/modcpio/usr/lib/modules/$release/memhp-modules"
	(cd "$obj/modcpio" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$art.tmp/modules.cpio.gz"
	modjson=$(cd "$obj/modcpio/usr/lib/modules/$release" && find . -name '*.ko' | sed 's|^\./||' | sort |
		jq -R . | jq -sc .)
	modjson=" \"release\": \"$release\", \"modules\": [], \"modules_shipped\": $modjson, \"modules_cpio_dir\": \"$art\","
fi
cat >"$art.tmp/identity.json" <<JSON
{"source_package": "$pkg", "source_version": "$pkgver", "kernel_release": "$release",
 "series_hash": "$series_hash", "patches": ${#patches[@]}, "patch_files": [$([ ${#patches[@]} -eq 0 ] || printf '"%s",' "${patches[@]}" | sed 's/,$//')],
 "flavour": "${flavour:-none}",$modjson "config_key": "$key", "config_sha256": "$(sha256sum "$obj/.config" | cut -c1-16)",
 "compiler": "$(gcc --version | head -n1)", "build_seconds": $((te - tb))}
JSON
rm -rf "$art"
mv "$art.tmp" "$art"
echo "$art" >"$kdir/$pointer"
say "done in $(( $(date +%s) - t0 )) s: $art"
echo "$art"
