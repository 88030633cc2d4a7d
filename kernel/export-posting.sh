#!/bin/bash
# kernel/export-posting.sh - what could be sent: per kernel version, the
# upstream series and the lab-only series, `git format-patch` output with
# cover letters, and each standalone fix the lab carries (posting/fixes.series)
# as a patch of its own (run as kernel/export.sh --posting; see its header).
#
# Usage: kernel/export.sh --posting [-v N] [-o DIR] [KVER...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
usage="usage: kernel/export.sh --posting [-v N] [-o DIR] [6.12|6.1|7.3 ...]"

version= out=$cache/posting
while [ $# -gt 0 ]; do
	case $1 in
	-v) version=${2:-}; shift 2 || die "$usage"
	    case $version in ''|*[!0-9]*) die "-v needs a number, not '$version'";; esac;;
	-o) out=${2:-}; shift 2 || die "$usage"; [ -n "$out" ] || die "$usage";;
	-*) die "unknown option '$1' ($usage)";;
	*) break;;
	esac
done
kvers=${*:-6.12 6.1}
for k in $kvers; do case $k in 6.12|6.1|7.3) ;; *) die "no kernel '$k' ($usage)";; esac; done
top=$(cd "$here/.." && pwd)
case "$(cd "$(dirname "$out")" 2>/dev/null && pwd)/" in
"$top"/build/*|"$top"/build/) ;;
"$top"/*) die "$out is inside the checkout: generated patches are not committed (use build/... or a directory outside)";;
esac
name=$(git -C "$here" config user.name || true)
email=$(git -C "$here" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git config user.name and user.email in $top: the patches' author is who exports them (git config user.name 'A U Thor'; git config user.email a@example.org)"
ident="$name <$email>"
case $email in *@*.example|*@*.invalid|*@*.test|*@localhost|*@example.*) printf 'Warning: %s is a placeholder address: set git config user.email before sending\n' "$email" >&2;; esac

# base_files SRC DEST FILE...: each FILE as the Debian tree has it, before
# the quilt series: the backup of the first applied patch that has one in
# SRC/.pc, else the file in SRC; a file that no patch had before is left out.
base_files() {
	local src=$1 dst=$2 f p found
	shift 2
	for f; do
		found=
		if [ -f "$src/.pc/applied-patches" ]; then
			while read -r p; do
				if [ -e "$src/.pc/$p/$f" ]; then
					found=$src/.pc/$p/$f
					break
				fi
			done <"$src/.pc/applied-patches"
		fi
		[ -n "$found" ] || found=$src/$f
		[ -s "$found" ] || continue
		mkdir -p "$dst/$(dirname "$f")"
		cp "$found" "$dst/$f"
	done
}
# patches FILE: the patch files a series file names, comments dropped.
patches() { sed -e 's/#.*//' "$1" | awk 'NF { print $1 }'; }
# notes PATCH: the text of the "Notes:" block below the patch's "---".
notes() {
	awk '/^---$/ { d = 1; next } /^diff --git/ { exit }
		d && /^Notes:$/ { n = 1; next }
		n && /^    / { sub(/^    /, ""); print; next }
		n && /^$/ { if (seen) exit; next }
		n { exit }' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
for kver in $kvers; do
	pdir=$here/patches/$kver
	src=$(ls -d "$cache/kernel/$kver"/src-*/ 2>/dev/null | head -n 1)
	[ -n "$src" ] || die "no extracted $kver tree in $cache/kernel/$kver: run kernel/build.sh $kver first"
	src=${src%/}
	for s in upstream lab-only fixes; do
		[ $s = fixes ] && [ ! -e "$pdir/posting/$s.series" ] && continue
		[ -f "$pdir/posting/$s.series" ] && { [ $s = fixes ] || [ -s "$pdir/posting/$s.cover" ]; } ||
			die "$pdir/posting/$s.series or $s.cover missing"
		for p in $(patches "$pdir/posting/$s.series"); do
			[ -f "$pdir/$p" ] || die "$pdir/posting/$s.series names $p, which $pdir does not have"
		done
	done
	repo=$tmp/$kver
	mkdir -p "$repo"
	files=$(for p in $(patches "$pdir/series") $(patches "$pdir/posting/upstream.series") $(patches "$pdir/posting/lab-only.series"); do
		sed -n 's|^+++ b/\(.*\)|\1|p' "$pdir/$p"; done | sort -u)
	# shellcheck disable=SC2086
	base_files "$src" "$repo" $files
	g() { git -C "$repo" -c user.name="$name" -c user.email="$email" "$@"; }
	g init -q -b base
	g add -A -f .
	g commit -q -m "Debian $(basename "$src") (the files the series touch)"
	# am SERIES-FILE: git am each patch, then make its author and its
	# author's Signed-off-by the exporter's and keep its notes.
	am() {
		local p author
		for p in $(patches "$1"); do
			g am -q "$pdir/$p" >"$tmp/am.log" 2>&1 || { cat "$tmp/am.log" >&2; die "$kver: $p does not apply (git am) after the patches before it in $1"; }
			author=$(g log -1 --format='%an <%ae>' HEAD)
			g log -1 --format=%B HEAD | awk -v ident="$ident" -v author="$author" '
				$0 == "Signed-off-by: " author { print "Signed-off-by: " ident; next } { print }' >"$tmp/msg"
			g commit -q --amend --author="$ident" -F "$tmp/msg"
			if [ -n "$(notes "$pdir/$p")" ]; then
				g notes add -f -m "$(notes "$pdir/$p" | fmt -w 72)" HEAD
			fi
			g log -1 --format=%B HEAD | git interpret-trailers --parse | grep -qxF "Signed-off-by: $ident" ||
				die "$kver: $p: no 'Signed-off-by: $ident' in a trailer block that git interpret-trailers --parse reads"
		done
	}
	g checkout -q -b quilt base
	am "$pdir/series"
	g checkout -q -b upstream base
	am "$pdir/posting/upstream.series"
	g checkout -q -b lab-only upstream
	am "$pdir/posting/lab-only.series"
	# fixes.series: standalone fixes of the Debian tree the lab carries,
	# each posted on its own to its subsystem, not with the series
	all=lab-only sets="upstream lab-only" parts="upstream + lab-only"
	if [ -f "$pdir/posting/fixes.series" ]; then
		g checkout -q -b fixes base
		am "$pdir/posting/fixes.series"
		g checkout -q -b all lab-only
		am "$pdir/posting/fixes.series"
		all=all sets="$sets fixes" parts="$parts + fixes"
	fi
	g diff --quiet quilt $all ||
		die "$kver: $parts is not the tree of $pdir/series: $(g diff --stat quilt $all | tail -n 1)"
	tag=${version:-$(sed -n 's/^Subject: \[PATCH v\([0-9]*\) .*/\1/p' "$pdir/0000-cover-letter.patch" | head -n 1)}
	for s in $sets; do
		cover=(--cover-letter --cover-from-description=subject --numbered)
		case $s in upstream) range=base..upstream; prefix="PATCH${tag:+ v$tag}";;
		lab-only) range=upstream..lab-only; prefix="PATCH lab-only${tag:+ v$tag}";;
		fixes) range=base..fixes; prefix=PATCH cover=();; esac
		[ "$kver" = 6.1 ] && prefix="$prefix 6.1"
		[ $s = fixes ] || g config "branch.$s.description" "$(cat "$pdir/posting/$s.cover")"
		g checkout -q "$s"
		rm -rf "$out/$kver/$s"
		mkdir -p "$out/$kver/$s"
		g format-patch -q "${cover[@]}" --zero-commit --notes \
			--subject-prefix="$prefix" -o "$out/$kver/$s" "$range"
		n=$(ls "$out/$kver/$s" | grep -vc '^0000-')
		printf 'kernel/export.sh: %s %s: %d patch(es) and a cover letter in %s, From: %s\n' \
			"$kver" "$s" "$n" "$out/$kver/$s" "$ident"
	done
done
echo "next: git send-email --to linux-mm@kvack.org $out/6.12/upstream/*.patch (after scripts/get_maintainer.pl)"
echo "      each of $out/KVER/fixes/*.patch on its own, to the maintainers scripts/get_maintainer.pl names"
