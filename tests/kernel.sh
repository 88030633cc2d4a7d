# tests/kernel.sh - the built kernels and the series as files: every required
# option in each config, checkpatch.pl --strict per patch, a MAINTAINERS entry
# for each file the series adds, and
# kernel/bisect-check.sh: every prefix of the series builds (cached per
# series; MHL_BISECT_TIMEOUT, 1800 s, a kernel cold). No guest.
plan 32 full 38
art612=$(art 6.12)
art61=$(art 6.1)

echo "# kernel config check (kernel/build.sh --check-config)"
for k in 6.12 6.1; do
	kcfg=$(cat "$cache/kernel/$k/current")/config
	ok "the built $k kernel's config has every required option and the series' own" \
		kernel/build.sh --check-config "$kcfg" kernel/patches/$k/required.list
done
# RDMA is a flavour (docs/kernel.md, "Flavours"): the default builds leave
# out IPv4 and the RDMA core, 14 % of a cold build that only RDMA pins use.
rdma_split() {
	local k a r o
	for k in 6.12 6.1; do
		a=$(art "$k") r=$(cat "$cache/kernel/$k/rdma") || return 1
		lacks "$a/config" -qE '^CONFIG_(INFINIBAND|INET)=y' || { echo "# $a/config has RDMA (or is missing)"; return 1; }
		for o in INET INFINIBAND INFINIBAND_USER_ACCESS RDMA_RXE DUMMY; do
			grep -qx "CONFIG_$o=y" "$r/config" || { echo "# $r/config: CONFIG_$o not =y"; return 1; }
		done
		jq -e --slurpfile d "$a/identity.json" '.flavour == "rdma" and $d[0].flavour == "none" and
			.series_hash == $d[0].series_hash and .config_key != $d[0].config_key' "$r/identity.json" >/dev/null || return 1
	done
}
ok "the default 6.12 and 6.1 builds have no IPv4 and no RDMA core; their rdma flavours (same series) have INET, INFINIBAND, user verbs, rxe and dummy built in" \
	rdma_split
kcfg=$art612/config
config_lacking "$kcfg" "$work/config.missing"
expect_fail "a config without GUP_TEST and VIRTIO_MEM is refused, naming both" 1 \
	'not set after olddefconfig: CONFIG_VIRTIO_MEM CONFIG_GUP_TEST' kernel/build.sh --check-config "$work/config.missing"
ok "the artifacts' gup_test.h are identical (one memhp-pin for both kernels)" \
	cmp "$art612/include/gup_test.h" "$art61/include/gup_test.h"
# issue 31: struct pin_longterm_test ended in implicit padding, 20 bytes on
# i386 and 24 on x86_64: the ioctl numbers differed and compat tasks failed.
abi_same() {
	mkdir -p "$work/abi/linux" &&
		printf 'typedef unsigned int __u32;\ntypedef unsigned long long __u64;\n' >"$work/abi/linux/types.h" &&
		printf '#include <asm-generic/ioctl.h>\n#include <gup_test.h>\n%s\n%s\n' \
			'_Static_assert(sizeof(struct pin_longterm_test) == 24, "size");' \
			'_Static_assert(PIN_LONGTERM_TEST_START == 0x40186707, "number");' >"$work/abi.c" &&
		gcc -m32 -fsyntax-only -I"$work/abi" -I"$1" "$work/abi.c" && gcc -m64 -fsyntax-only -I"$work/abi" -I"$1" "$work/abi.c"
}
ok "gup_test.h: struct pin_longterm_test is 24 bytes, PIN_LONGTERM_TEST_START the same number, for i386 and x86_64 (compat ioctls)" \
	abi_same "$art612/include"
series61=$(sed -e 's/#.*//' kernel/patches/6.1/series | awk 'NF { print $1 }' | jq -R . | jq -sc .)
ok "identity.json names the series' patch files, in order (6.1: $(echo "$series61" | jq length))" \
	jq -e --argjson want "$series61" '.source_package == "linux-source-6.1" and ($want | length) == 6 and .patch_files == $want and (.config_sha256 | length) == 16' "$art61/identity.json"

echo "# kernel patches: checkpatch.pl --strict from the extracted tree, each patch in series order"
# FILE_PATH_CHANGES ("added ... file(s), does MAINTAINERS need updating?")
# fires on every new file whether an entry covers it or not: instead, each
# file the series adds must have a maintainer of its own entry (not THE REST).
for k in 6.12 6.1; do
	ksrc=$(ls -d "$cache"/kernel/$k/src-*/ | head -n 1)
	for p in $(sed -e 's/#.*//' kernel/patches/$k/series); do
		(cd "$ksrc" && perl scripts/checkpatch.pl --strict -q --ignore FILE_PATH_CHANGES "$top/kernel/patches/$k/$p") >"$work/cp.out" 2>&1
		rc=$?
		ok "checkpatch --strict: 0 errors, 0 warnings, 0 checks: $k/$p" test "$rc" = 0 -a ! -s "$work/cp.out"
		[ "$rc" = 0 ] || sed 's/^/#   /' "$work/cp.out" | head -n 20
	done
	added=$(for p in $(sed -e 's/#.*//' kernel/patches/$k/series); do
		awk '/^--- \/dev\/null/ { getline; sub(/^\+\+\+ b\//, ""); print }' "kernel/patches/$k/$p"; done)
	ok "$k: every file the series adds has a MAINTAINERS entry of its own (get_maintainer.pl): ${added:-none}" \
		sh -c 'cd "$1" && shift && for f; do perl scripts/get_maintainer.pl --nogit --nogit-fallback --nol -f "$f" | grep "(maintainer:" | grep -qv "THE REST" || exit 1; done' _ "$ksrc" $added
done

# issue 31: the posting shape kernel/export.sh writes: each message's trailer
# block parses (git interpret-trailers) with the From: author's sign-off, and
# what the patch is (upstream, lab-only, a backport) is a note below "---".
posting_shape() {
	local p f from msg
	for p in $(sed -e 's/#.*//' "kernel/patches/$1/series"); do
		f=kernel/patches/$1/$p
		from=$(sed -n '2s/^From: //p' "$f")
		msg=$(awk '/^$/ && !b { b = 1; next } b && /^---$/ { exit } b' "$f")
		printf '%s\n' "$msg" | git interpret-trailers --parse | grep -qxF "Signed-off-by: $from" || { echo "$p: no trailer 'Signed-off-by: $from'"; return 1; }
		! printf '%s\n' "$msg" | grep -qiE 'meant for upstream|lab-only patch|^This is a backport' || { echo "$p: upstream/lab-only in the message"; return 1; }
		awk '/^---$/ { d = 1 } d && /^Notes:$/ { n = 1 } /^diff --git/ { exit } END { exit !n }' "$f" || { echo "$p: no Notes: below ---"; return 1; }
	done
}
for k in 6.12 6.1; do
	ok "$k: every patch's trailers parse (git interpret-trailers) with its From:'s Signed-off-by; upstream or lab-only is a note below ---" \
		posting_shape $k
done

# kernel series v3, "Posting shape": kernel/export.sh --posting writes per
# kernel two git format-patch series with cover letters, upstream and
# lab-only, and the standalone fixes (fixes.series) as patches of their own, From: and sign-off the exporter's git config, trailers that
# git interpret-trailers --parse reads, the kind of patch a note below
# "---", the upstream series without the test switch and with 6.12's fix
# first and its Fixes: tag (about 10 s per kernel; no build).
posting_export() {
	local k=$1 d=$work/posting/$1 ident f from msg s
	ident="$(git config user.name) <$(git config user.email)>"
	kernel/export.sh --posting -o "$work/posting" "$k" >"$work/posting-$k.out" 2>&1 || { cat "$work/posting-$k.out"; return 1; }
	for s in upstream lab-only fixes; do
		if [ $s = fixes ]; then
			# each standalone fix on its own: no cover letter, no n/m
			[ ! -e "$d/$s/0000-cover-letter.patch" ] || { echo "fixes: a cover letter"; return 1; }
			no_lines '^Subject: \[PATCH( 6\.1)?\] ' -h '^Subject: ' "$d/$s"/0*.patch || { echo "fixes: a subject not [PATCH] or [PATCH 6.1], or no patch"; return 1; }
		else
			[ -s "$d/$s/0000-cover-letter.patch" ] && ! grep -q '\*\*\*' "$d/$s/0000-cover-letter.patch" || { echo "$s: no cover letter, or its template"; return 1; }
		fi
		[ "$(ls "$d/$s" | grep -vc '^0000-')" -gt 0 ] || { echo "$s: no patch"; return 1; }
		for f in "$d/$s"/0*.patch; do
			from=$(sed -n '/^From: /{N;s/\n\( \)/\1/;s/\n.*//;s/^From: //p;q}' "$f")
			[ "$from" = "$ident" ] || { echo "$(basename "$f"): From: $from, not $ident"; return 1; }
			case $f in */0000-cover-letter.patch) continue;; esac
			msg=$(awk '/^$/ && !b { b = 1; next } b && /^---$/ { exit } b' "$f")
			printf '%s\n' "$msg" | git interpret-trailers --parse | grep -qxF "Signed-off-by: $ident" || { echo "$(basename "$f"): no parsed 'Signed-off-by: $ident'"; return 1; }
			awk '/^---$/ { d = 1 } d && /^Notes:$/ { n = 1 } /^diff --git/ { exit } END { exit !n }' "$f" || { echo "$(basename "$f"): no Notes: below ---"; return 1; }
		done
	done
	! cat "$d"/upstream/0*.patch | grep -q '^+.*\(pin_in_place\|PIN_IN_PLACE\)' || { echo "upstream adds the test switch"; return 1; }
	case $k in
	6.12) awk '/^---$/ { exit } /^Fixes: c77369b437f9 \("mm\/gup_test: start\/stop\/read functionality for PIN LONGTERM test"\)$/ { f = 1 } END { exit !f }' "$d"/upstream/0001-*.patch ||
		{ echo "6.12 upstream 0001: no Fixes: c77369b437f9 trailer"; return 1; };;
	7.3) # the x86 fix as the issue asks it for x86@: Fixes: and Cc: stable, a capital after the prefix
		awk '/^---$/ { exit } /^Subject: \[PATCH\] x86\/mm: Keep / { s = 1 } /^Fixes: 66520ebc2df3 \("x86, mm: Only direct map addresses that are marked as E820_RAM"\)$/ { f = 1 }
			/^Cc: stable@vger.kernel.org$/ { c = 1 } END { exit !(s && f && c) }' "$d"/fixes/0001-*.patch ||
		{ echo "7.3 fixes 0001: no 'x86/mm: Keep' subject, Fixes: 66520ebc2df3 or Cc: stable"; return 1; };;
	esac
}
for k in 6.12 6.1; do
	ok "$k: kernel/export.sh --posting: upstream and lab-only series with cover letters, the x86 fix on its own, From: git config, trailers parse, no test switch upstream" \
		posting_export $k
done

# issue 49: Linux 7.3 from Debian experimental, a third tree. The fast tier
# builds no 7.3 (make check's budget): it checks what needs no build.
echo "# kernel 7.3: the series as files, --kernel 7.3, the source's cache (no build)"
series73() {
	local p n=0
	for p in $(sed -e 's/#.*//' kernel/patches/7.3/series); do
		[ -s "kernel/patches/7.3/$p" ] && sed -n 2p "kernel/patches/7.3/$p" | grep -q '^From: ' &&
			grep -q '^Subject: \[PATCH' "kernel/patches/7.3/$p" && grep -q '^Signed-off-by: ' "kernel/patches/7.3/$p" ||
			{ echo "kernel/patches/7.3/$p: missing, or not a git format-patch with a sign-off"; return 1; }
		n=$((n + 1))
	done
	for p in $(sed -e 's/#.*//' kernel/patches/7.3/posting/*.series); do
		[ -s "kernel/patches/7.3/$p" ] || { echo "kernel/patches/7.3/posting: $p does not exist"; return 1; }
	done
	[ "$n" -gt 0 ] && [ -s kernel/patches/7.3/required.list ]
}
ok "7.3: series names patches that exist (git format-patch with From:, Subject: and a sign-off), so do posting/*.series; a required.list" \
	series73
# --kernel 7.3 resolves to $MEMHP_CACHE/kernel/7.3/current like 6.12 and 6.1:
# an empty cache names the build; check accepts kernel: 7.3.
kernel73() {
	local c=$work/cache73
	mkdir -p "$c" && chmod 700 "$c"
	printf 'name: k73\nkernel: 7.3\nnodes:\n  - memory: 512MiB\n    cpus: 1\nsteps:\n  - snapshot:\n' >"$work/k73.yaml"
	$LAB check "$work/k73.yaml" | grep -q "kernel 7.3" || { echo "check refused kernel: 7.3"; return 1; }
	MEMHP_CACHE=$c $LAB run -o "$work/k73-run" --kernel 7.3 scenarios/demo.yaml 2>"$work/k73.err"
	[ $? = 2 ] && grep -qF "no kernel 7.3 built yet ($c/kernel/7.3/current missing): run 'make kernel KVERS=7.3' (kernel/build.sh 7.3)" "$work/k73.err" ||
		{ cat "$work/k73.err"; return 1; }
}
ok "--kernel 7.3: check accepts kernel: 7.3; run on an empty cache names \$MEMHP_CACHE/kernel/7.3/current and make kernel KVERS=7.3 (exit 2)" \
	kernel73
# kernel/source-deb.sh: a tarball in the cache is used as it is, apt not asked
# (a network-free check: an apt that ran would fail on this fake version).
source_cached() {
	local c=$work/cache-src v='7.3~rc9-1~exp9' out
	mkdir -p "$c/kernel/7.3/deb/$v" && chmod 700 "$c" && echo tarball >"$c/kernel/7.3/deb/$v/linux-source-7.3.tar.xz" &&
		echo "$v" >"$c/kernel/7.3/deb/current" || return 1
	out=$(MEMHP_CACHE=$c PATH=/nonexistent:$PATH kernel/source-deb.sh 7.3) || return 1
	[ "$out" = "$c/kernel/7.3/deb/$v/linux-source-7.3.tar.xz
$v" ] || { echo "got: $out"; return 1; }
	! kernel/source-deb.sh '7.3;x' 2>/dev/null
}
ok "kernel/source-deb.sh 7.3: a cached linux-source-7.3 tarball is reused (its path and version), no apt; a version that is not N.N refused" \
	source_cached

echo "# kernel patches: bisectable - each prefix of the series builds (kernel/bisect-check.sh)"
for k in 6.12 6.1; do
	timed "${MHL_BISECT_TIMEOUT:-1800}" kernel/bisect-check.sh $k >"$work/bisect.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$work/bisect.out"
	# one line per prefix, then its options off, MIGRATION=n, DEBUG_FS=n with
	# the switch on, i386, and the upstream series alone
	ok "$k: every prefix of the series (with its selftests), the series with its options off, MIGRATION=n, DEBUG_FS=n, on i386, and the upstream series alone build with -Werror" \
		test "$rc" = 0 -a "$(grep -c '^ok ' "$work/bisect.out")" = $(( $(grep -c '^0' kernel/patches/$k/series) + 5 ))
done

if full; then
	# kill -9 of kernel/bisect-check.sh in the middle (issue 48): the tree
	# was left without the series while .memhp-series said it carried it,
	# and the selftests then built unpatched. Now it is marked dirty, and
	# kernel/build.sh extracts it again and puts the series back.
	echo "# kernel: kernel/bisect-check.sh killed mid-check; kernel/build.sh brings the tree back"
	kd=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel/6.12
	src=$kd/src-$(jq -r .source_version "$(cat "$kd/current")/identity.json")
	series_hash=$(jq -r .series_hash "$(cat "$kd/current")/identity.json")
	aside=$work/bisect-results
	mkdir -p "$aside" && mv "$kd"/bisect-*.result "$aside"/ 2>/dev/null
	setsid kernel/bisect-check.sh 6.12 >"$work/bisect-kill.out" 2>&1 &
	bk=$!
	for _ in $(seq 1 600); do [ -e "$src/.memhp-dirty" ] && [ ! -s "$src/.pc/applied-patches" ] && break; sleep 0.2; done
	kill -KILL -- -"$bk" 2>/dev/null; wait "$bk" 2>/dev/null
	mv "$aside"/*.result "$kd"/ 2>/dev/null
	bisect_dirty() { [ -e "$1/.memhp-dirty" ] && [ ! -e "$1/.memhp-series" ]; }
	ok "killed mid-check: the tree is marked dirty and no longer says it carries the series" bisect_dirty "$src"
	timed 900 kernel/build.sh 6.12 >"$work/build-after-kill.out" 2>&1
	ok "kernel/build.sh afterwards: says the tree was left mid-check, extracts it again, and it carries the series (marker, every quilt patch applied)" \
		sh -c 'grep -q "left mid-check" "$1" && [ "$(cat "$2/.memhp-series")" = "$3" ] && [ ! -e "$2/.memhp-dirty" ] &&
			[ "$(wc -l <"$2/.pc/applied-patches")" = "$(grep -c "^0" "$2/patches/series")" ]' _ "$work/build-after-kill.out" "$src" "$series_hash"
fi

if full; then
	# issue 49: the third tree, built here (only the full tier builds it:
	# make check's setup builds KVERS, 6.12 and 6.1), then the demo on it.
	echo "# kernel 7.3 (full tier): kernel/build.sh 7.3 (cached after the first), checkpatch, the demo booted on it"
	timed "${MHL_BUILD73_TIMEOUT:-3600}" kernel/build.sh 7.3 >"$work/build73.out" 2>&1
	sed 's/^/#   /' "$work/build73.out" | tail -n 6
	built73() {
		local a
		a=$(cat "$cache/kernel/7.3/current") &&
			jq -e '.source_package == "linux-source-7.3" and (.source_version | startswith("7.3")) and .patches > 0' "$a/identity.json" >/dev/null &&
			kernel/build.sh --check-config "$a/config" kernel/patches/7.3/required.list
	}
	ok "kernel/build.sh 7.3: linux-source-7.3 (experimental, kernel/source-deb.sh) with its series, every required option set" \
		built73
	checkpatch73() {
		local ksrc p rc=0
		ksrc=$cache/kernel/7.3/src-$(jq -r .source_version "$(cat "$cache/kernel/7.3/current")/identity.json")
		for p in $(sed -e 's/#.*//' kernel/patches/7.3/series); do
			(cd "$ksrc" && perl scripts/checkpatch.pl --strict -q --ignore FILE_PATH_CHANGES "$top/kernel/patches/7.3/$p") >"$work/cp73.out" 2>&1 &&
				! grep -v -e '^Traceback (most recent call last):$' -e '^  File ".*/scripts/spdxcheck.py", line ' \
					-e '^    from ply import lex, yacc$' -e "^ModuleNotFoundError: No module named 'ply'$" "$work/cp73.out" | grep -q . ||
				{ echo "$p:"; cat "$work/cp73.out"; rc=1; }
		done
		return $rc
	}
	ok "checkpatch --strict from the 7.3 tree: 0 errors, 0 warnings, 0 checks on every patch of kernel/patches/7.3" \
		checkpatch73
	ok "7.3: kernel/export.sh --posting: upstream and lab-only series with cover letters, the x86 fix on its own with Fixes: and Cc: stable, From: git config, trailers parse, no test switch upstream" \
		posting_export 7.3
	out=$work/demo73
	lab_run -o "$out" --kernel 7.3 scenarios/demo.yaml >"$out.out" 2>&1
	rc=$?
	ok "memhp-lab run --kernel 7.3 scenarios/demo.yaml: exit 0, pass on linux-source-7.3, the 256 MiB pin moved out of ZONE_MOVABLE, the unplug reached 0" \
		sh -c '[ "$1" = 0 ] && jq -e ".verdict == \"pass\" and .kernel.source_package == \"linux-source-7.3\" and .steps[0].workload.census_after.by_zone.Movable == 0 and .steps[1].converged and .steps[1].reached_bytes == 0" "$2"' _ "$rc" "$out/trials.jsonl"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$out.out" | tail -n 8
fi
