#!/bin/bash
# tools/bench.sh - `make bench`: measurements side by side in one run, as ratios.
#
# The cost of the series: scenarios/bench-pin.yaml (gup_test's long-term pin
# benchmark, the kernel's own timings) in the same guest on 6.12 with the
# series and on the same tree and config without it (kernel/build.sh
# --vanilla). Both trials run here, one after the other, and the table gives
# the medians and their ratio. Results: results/bench/{series,vanilla}/.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
out=${BENCH_OUT:-results/bench}
LAB=build/memhp-lab

echo "[bench] kernel 6.12 without the series (kernel/build.sh --vanilla 6.12; cached after the first time)"
kernel/build.sh --vanilla 6.12 >/dev/null
vanilla=$(cat "$cache/kernel/6.12/vanilla")
rm -rf "$out"
mkdir -p "$out"
for k in series vanilla; do
	echo "[bench] trial: bench-pin on 6.12 $k"
	args=(-o "$out/$k")
	[ $k = vanilla ] && args+=(--kernel-dir "$vanilla")
	if ! $LAB run "${args[@]}" scenarios/bench-pin.yaml >"$out/$k.log" 2>&1; then
		tail -n 20 "$out/$k.log" >&2
		echo "Error: the $k bench trial failed; its log: $out/$k.log, record: $out/$k/trials.jsonl" >&2
		exit 1
	fi
done

med() { jq -r ".steps[$2].workload.$3" "$out/$1/trials.jsonl"; }
printf '\n%-48s %10s %10s %7s\n' "64 MiB long-term pin, median of 10 (us)" series vanilla ratio
row() {	# row LABEL STEP FIELD
	local a b
	a=$(med series "$2" "$3") b=$(med vanilla "$2" "$3")
	printf '%-48s %10s %10s %7s\n' "$1" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b ? a / b : 0 }')"
}
row "ZONE_MOVABLE, migrates 16384 pages: pin" 0 get_us_median
row "ZONE_MOVABLE, migrates 16384 pages: unpin" 0 put_us_median
row "already pinnable (node 0): pin" 1 get_us_median
row "already pinnable (node 0): unpin" 1 put_us_median
echo
echo "series/vanilla > 1 means the series costs time. nr_not_pinnable (series only):" \
	"$(jq -r '[.steps[].workload.not_pinnable_total] | map(tostring) | join(", ")' "$out/series/trials.jsonl")"
echo "Records: $out/series/trials.jsonl, $out/vanilla/trials.jsonl"
