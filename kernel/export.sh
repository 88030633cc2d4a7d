#!/bin/bash
# kernel/export.sh - write a kernel series from a git repository of its tree.
#
# Usage: kernel/export.sh [-v N] KVER REPO [BASE]
#
# REPO is a git repository of the tree's files (docs/kernel.md, "Adding a
# patch"): the series is its commits after BASE (default: the root commit,
# the files as the Debian tree has them), one commit per patch, in review
# order. What a reviewer should read but the commit must not keep (upstream
# or lab-only, a backport of what) is a git note of the commit (git notes
# add): it goes below the "---" line, where git am drops it.
#
# Writes kernel/patches/KVER/NNNN-<subject>.patch as `git format-patch
# --zero-commit --notes` does, numbered "[PATCH vN n/m]" with -v N, and
# KVER/series in that order (its comment lines kept); removes the patch
# files the old series named. Author and sign-off are this checkout's `git
# config user.name` and `user.email` at export time: the From: header of
# each patch (and of KVER/0000-cover-letter.patch), and the Signed-off-by
# of the commit's author becomes theirs. Every commit message must end in
# a trailer block that `git interpret-trailers --parse` reads, with that
# Signed-off-by in it (a trailer needs a blank line before it).
#
# Usage: kernel/export.sh --posting [-v N] [-o DIR] [KVER...]
#
# The other direction: writes what could be sent, per KVER (default 6.12
# and 6.1), as two `git format-patch --cover-letter` series into
# DIR/KVER/upstream and DIR/KVER/lab-only (DIR default
# $MEMHP_CACHE/posting, outside the checkout; the old files there are
# removed). Each series is KVER/posting/<name>.series (patch files
# relative to KVER/, quilt's where the posted patch is the lab's, the
# upstream variants in KVER/posting/), its cover letter's subject and
# text KVER/posting/<name>.cover. The patches are applied with git am
# to the files they touch as the Debian tree has them (quilt's backups in
# the extracted tree; kernel/build.sh KVER extracts it), lab-only on top
# of upstream, and the result must be the tree of KVER/series. Author,
# From: and sign-off are `git config user.name` and `user.email` of this
# checkout at export time; the notes below each source patch's "---"
# (upstream or lab-only) stay below the exported patch's "---".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { printf 'Error: %s\n' "$*" >&2; exit 1; }
[ "${1:-}" = --posting ] && { shift; exec "$here/export-posting.sh" "$@"; }

version=
if [ "${1:-}" = -v ]; then
	version=${2:-}
	case $version in ''|*[!0-9]*) die "-v needs a number, not '$version'";; esac
	shift 2
fi
kver=${1:-}
repo=${2:-}
case $kver in 6.12|6.1|7.3) ;; *) die "usage: kernel/export.sh [-v N] 6.12|6.1|7.3 REPO [BASE]";; esac
[ -n "$repo" ] && git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 ||
	die "'$repo' is not a git repository (usage: kernel/export.sh [-v N] KVER REPO [BASE])"
base=${3:-$(git -C "$repo" rev-list --max-parents=0 HEAD | tail -n 1)}
git -C "$repo" rev-parse --verify -q "$base^{commit}" >/dev/null || die "$repo has no commit '$base'"
name=$(git -C "$here" config user.name) && email=$(git -C "$here" config user.email) ||
	die "no git config user.name and user.email in $here/..: the patches' author is who exports them"
ident="$name <$email>"
out=$here/patches/$kver
[ -f "$out/series" ] || die "$out/series not found"
n=$(git -C "$repo" rev-list --count "$base..HEAD")
[ "$n" -gt 0 ] || die "$repo has no commit after $base: nothing to export"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$repo" format-patch -q --zero-commit --notes --numbered \
	--subject-prefix="PATCH${version:+ v$version}" -o "$tmp" "$base..HEAD"

# Each patch: From: and its author's Signed-off-by made the exporter's, then
# the message (between the headers and "---") must parse with that trailer.
i=0
for c in $(git -C "$repo" rev-list --reverse "$base..HEAD"); do
	i=$((i + 1))
	f=$(ls "$tmp"/"$(printf '%04d' $i)"-*.patch)
	author=$(git -C "$repo" log -1 --format='%an <%ae>' "$c")
	awk -v ident="$ident" -v author="$author" '
		NR == 2 && /^From: / { print "From: " ident; next }
		/^---$/ { body = 0 }
		body == 1 && $0 == "Signed-off-by: " author { print "Signed-off-by: " ident; next }
		/^$/ && hdr == 0 { hdr = 1; body = 1 }
		{ print }' "$f" >"$f.new"
	mv "$f.new" "$f"
	msg=$(awk '/^$/ && !b { b = 1; next } b && /^---$/ { exit } b' "$f")
	printf '%s\n' "$msg" | git interpret-trailers --parse | grep -qxF "Signed-off-by: $ident" ||
		die "$(basename "$f") ($(git -C "$repo" log -1 --format=%s "$c")): no 'Signed-off-by: $ident' in a trailer block that git interpret-trailers --parse reads (a blank line before the trailers?)"
done

for p in $(sed -e 's/#.*//' "$out/series"); do rm -f "$out/$p"; done
{
	grep '^#' "$out/series" || true
	for f in "$tmp"/*.patch; do basename "$f"; done
} >"$tmp/series"
cp "$tmp"/*.patch "$out/"
cp "$tmp/series" "$out/series"
[ -f "$out/0000-cover-letter.patch" ] && sed -i "2s/^From: .*/From: $(printf '%s' "$ident" | sed 's/[\/&]/\\&/g')/" "$out/0000-cover-letter.patch"
echo "kernel/export.sh: $n patch(es) from $repo ($base..HEAD) into $out, author $ident"
echo "next: kernel/build.sh $kver && kernel/bisect-check.sh $kver"
