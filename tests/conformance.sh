# tests/conformance.sh - sourced by tests/run.sh: the seed conformance suite
# on 6.12 under both policies: the quick subset of `make conformance`
# (claims 1, 3 and 8) plus claims 4, 5 and 6, whose workload features
# (read-only pins of the zero page, split THPs, CMA placement) nothing else
# in make check exercises. Each row of tools/conformance.sh's table is one
# check; claim 5 has a row per split (mprotect, munmap).
echo "# conformance: known deviations (tests/data/conformance: c3 on 6.1 under series, recorded)"
# The table of a recorded run (--table-only): the known 6.1 deviation is
# XFAIL when it fails as described, FAIL when it fails otherwise (a page
# left pinned), XPASS when it passes; only XFAIL keeps the exit status 0.
for c in "xfail XFAIL 0" "xpass XPASS 1" "fail FAIL 1"; do
	set -- $c
	cp -r tests/data/conformance/$1 "$work/conf-$1"
	tools/conformance.sh --table-only -o "$work/conf-$1" >"$work/conf-$1.out" 2>&1
	crc=$?
	ok "conformance table: c3 6.1 series recorded as $1 -> $2" \
		awk -F'\t' -v want="$2" '$1 == 3 && $2 == "6.1" && $3 == "series" { r = $6 } END { exit r != want }' \
		"$work/conf-$1/table.tsv"
	ok "conformance table: $1 -> exit $3" test "$crc" = "$3"
done
echo "# conformance: claims 1, 3, 4, 5, 6, 8 on 6.12 under series and baseline"
timed "$run_timeout" tools/conformance.sh --claims 1,3,4,5,6,8 --kernel 6.12 -o "$work/conformance" >"$work/conformance.out" 2>&1
rc=$?
sed 's/^/#   /' "$work/conformance.out"
for row in "1 series" "1 baseline" "3 series" "3 baseline" "4 series" "4 baseline" \
	   "5 series mprotect" "5 series munmap" "5 baseline mprotect" "5 baseline munmap" \
	   "6 series" "6 baseline" "8 series" "8 baseline"; do
	set -- $row
	ok "conformance claim $1, 6.12, $2${3:+, $3 split}: PASS" \
		awk -F'\t' -v c="$1" -v p="$2" -v s="${3:-}" '$1 == c && $2 == "6.12" && $3 == p && $6 == "PASS" && (s == "" || index($5, s " split") == 1) { f = 1 } END { exit !f }' \
		"$work/conformance/table.tsv"
done
ok "conformance: exit 0" test "$rc" = 0
