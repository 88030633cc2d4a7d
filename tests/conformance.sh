# tests/conformance.sh - sourced by tests/run.sh: the quick subset of the seed
# conformance suite (claims 1, 3 and 8 on 6.12, both policies), each row of
# tools/conformance.sh's table one check.
echo "# conformance (quick): claims 1, 3, 8 on 6.12 under series and baseline"
tools/conformance.sh --quick -o "$work/conformance" >"$work/conformance.out" 2>&1
rc=$?
sed 's/^/#   /' "$work/conformance.out"
for row in "1 series" "1 baseline" "3 series" "3 baseline" "8 series" "8 baseline"; do
	set -- $row
	ok "conformance claim $1, 6.12, $2: PASS" \
		awk -F'\t' -v c="$1" -v p="$2" '$1 == c && $2 == "6.12" && $3 == p && $6 == "PASS" { f = 1 } END { exit !f }' \
		"$work/conformance/table.tsv"
done
ok "conformance (quick): exit 0" test "$rc" = 0
