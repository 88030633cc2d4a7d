#!/bin/bash
# tools/mutants.sh - mutation testing of the fast tier (docs/testing.md, "Mutants").
#
#   tools/mutants.sh [--head] [MUTANT...]     make mutants [MUTANTS="..."]
#   tools/mutants.sh --list                   the mutants and their catchers
#
# A mutant is tests/mutants/NN-name.patch: a small unified diff (git diff)
# under a header of a line 'Breaks: what it breaks' and one or more lines
# 'Catch: unit MODULE[/CASE]', the build/unit-tests -t filters that must fail
# with it applied. MUTANT: NN-name, NN or name; none: all of them.
#
# The tracked files of the working tree (--head: of HEAD) are copied once to
# a scratch directory under /tmp (a git repository of its own, removed at the
# end), with build/unit-obj/ (not with --head; make reuses an object newer
# than its sources); build/unit-tests is built there and must pass every mutant's filters
# unmutated (else the results would mean nothing: exit 2). Then each mutant
# in turn: applied (git apply), build/unit-tests rebuilt (one object), run
# with its filters, the tree and the mutated objects put back. One line per
# mutant:
#
#   killed NN-name (by MODULE/CASE; ...)     its filters failed: what we want
#   survived NN-name                         they passed: add a row that fails
#   invalid NN-name (does not apply|does not build|...)
#
# then 'N mutants: K killed, S survived, I invalid'. Exit 0 when every mutant
# was killed, 1 otherwise, 2 when the unmutated tree fails its filters.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)

usage() {
	echo "usage: tools/mutants.sh [--head] [MUTANT...] | --list   (MUTANT: NN-name, NN or name in tests/mutants/)"
}

head=0 list=0
names=()
while [ $# -gt 0 ]; do
	case $1 in
	--head) head=1; shift;;
	--list) list=1; shift;;
	-h|--help) usage; exit 0;;
	-*) echo "Error: unknown option '$1'" >&2; usage >&2; exit 1;;
	*) names+=("$1"); shift;;
	esac
done

# ---- the mutants ----
all=(tests/mutants/*.patch)
[ -e "${all[0]}" ] || { echo "Error: no tests/mutants/*.patch" >&2; exit 1; }
patches=()
if [ ${#names[@]} -eq 0 ]; then
	patches=("${all[@]}")
else
	for n in "${names[@]}"; do
		n=${n%.patch}
		n=${n##*/}
		found=
		for p in "${all[@]}"; do
			b=$(basename "$p" .patch)
			if [ "$b" = "$n" ] || [ "${b%%-*}" = "$n" ] || [ "${b#*-}" = "$n" ]; then
				found=$p
				break
			fi
		done
		[ -n "$found" ] || { echo "Error: no mutant '$n' in tests/mutants/ (tools/mutants.sh --list)" >&2; exit 1; }
		patches+=("$found")
	done
fi

# The filters of a patch, one per line ("Catch: unit FILTER" lines of its header).
catches() {
	sed -n '/^diff --git /q; s/^Catch: unit //p' "$1"
}

if [ $list -eq 1 ]; then
	for p in "${patches[@]}"; do
		printf '%s\t%s\t%s\n' "$(basename "$p" .patch)" "$(catches "$p" | paste -sd ';' -)" \
			"$(sed -n 's/^Breaks: //p;/^diff --git /q' "$p")"
	done
	exit 0
fi

start=$(date +%s)
scratch=$(mktemp -d /tmp/mhl-mutants-XXXXXX) || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
tree=$scratch/tree

# ---- one scratch copy, a repository of its own ----
mkdir -p "$tree"
if [ $head -eq 1 ]; then
	git archive HEAD | tar -x -C "$tree" || exit 1
	what="HEAD ($(git rev-parse --short HEAD))"
else
	# the working tree's tracked files as they are (a file deleted but not yet committed: skipped)
	git ls-files -z | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$tree" || exit 1
	what="the working tree's tracked files"
	# this checkout's unit-test objects too, their times kept: make reuses those newer than their sources
	[ -d build/unit-obj ] && tar -cf - build/unit-obj | tar -xf - -C "$tree"
fi
(cd "$tree" && git init -q && git add -A && git -c user.name=mutants -c user.email=mutants@localhost \
	commit -q -m unmutated) || { echo "Error: cannot make the scratch copy a repository" >&2; exit 1; }

jobs=$(nproc 2>/dev/null || echo 1)
build() {
	make -C "$tree" -s -j"$jobs" build/unit-tests >"$scratch/build.log" 2>&1
}

echo "mutants: ${#patches[@]} mutant(s) against $what, scratch copy $tree"
if ! build; then
	echo "Error: build/unit-tests does not build unmutated in the scratch copy:" >&2
	grep -m 5 -E 'error|Error' "$scratch/build.log" >&2
	exit 2
fi

# ---- the unmutated tree passes every mutant's filters ----
targs=()
for p in "${patches[@]}"; do
	while IFS= read -r c; do
		[ -n "$c" ] && targs+=(-t "$c")
	done < <(catches "$p")
done
if [ ${#targs[@]} -gt 0 ]; then
	(cd "$tree" && build/unit-tests "${targs[@]}") >"$scratch/baseline.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "Error: the unmutated tree fails the mutants' filters (exit $rc), so a killed mutant would mean nothing:" >&2
		grep -E '^not ok|^unit-tests:' "$scratch/baseline.out" | head -10 >&2
		exit 2
	fi
	echo "mutants: the unmutated tree passes the filters ($(grep -c '^ok' "$scratch/baseline.out") case(s))"
fi

# ---- each mutant ----
n=${#patches[@]} k=0 killed=0 survived=0 invalid=0
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	k=$((k + 1))
	echo "[$k/$n] $name" >&2
	mapfile -t filters < <(catches "$p")
	if [ ${#filters[@]} -eq 0 ]; then
		echo "invalid $name (no 'Catch: unit MODULE[/CASE]' line)"
		invalid=$((invalid + 1))
		continue
	fi
	if ! git -C "$tree" apply --check "$root/$p" 2>/dev/null; then
		echo "invalid $name (does not apply)"
		invalid=$((invalid + 1))
		continue
	fi
	# the objects of the files it changes, kept to be put back with the files
	mapfile -t files < <(git -C "$tree" apply --numstat "$root/$p" | cut -f3)
	for f in "${files[@]}"; do
		o=$tree/build/unit-obj/${f%.c}.o
		[ -e "$o" ] && cp -p "$o" "$o.unmutated"
	done
	git -C "$tree" apply "$root/$p"
	if ! build; then
		echo "invalid $name (does not build: $(grep -m 1 'error' "$scratch/build.log"))"
		invalid=$((invalid + 1))
	else
		targs=()
		for c in "${filters[@]}"; do
			targs+=(-t "$c")
		done
		(cd "$tree" && timeout 120 build/unit-tests "${targs[@]}") >"$scratch/run.out" 2>&1
		rc=$?
		module=${filters[0]%%/*}
		by=$(sed -n "s|^not ok [0-9]* |$module/|p" "$scratch/run.out" | head -3 |
			awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
		nfail=$(grep -c '^not ok' "$scratch/run.out")
		[ "$nfail" -gt 3 ] && by="$by; and $((nfail - 3)) more"
		case $rc in
		0)	echo "survived $name"
			survived=$((survived + 1));;
		1)	echo "killed $name (by $by)"
			killed=$((killed + 1));;
		2)	echo "invalid $name (its Catch: filter selects no case: $(grep -m 1 '^unit-tests:' "$scratch/run.out"))"
			invalid=$((invalid + 1));;
		124)	echo "killed $name (by a timeout of 120 s${by:+ after $by})"
			killed=$((killed + 1));;
		*)	echo "killed $name (by exit $rc${by:+ after $by})"
			killed=$((killed + 1));;
		esac
	fi
	# put back the files, and their objects as they were (newer than the files): only the next
	# mutant's file is compiled again; the program is linked again whatever the next one changes
	git -C "$tree" checkout -q -- .
	rm -f "$tree/build/unit-tests"
	for f in "${files[@]}"; do
		o=$tree/build/unit-obj/${f%.c}.o
		if [ -e "$o.unmutated" ]; then
			mv "$o.unmutated" "$o"
			touch -r "$o" -d '-1 second' "$tree/$f" 2>/dev/null || touch -d "@$(($(stat -c %Y "$o") - 1))" "$tree/$f"
		fi
	done
done

echo "mutants: $(($(date +%s) - start)) s"
echo "$n mutants: $killed killed, $survived survived, $invalid invalid"
[ $killed -eq "$n" ]
