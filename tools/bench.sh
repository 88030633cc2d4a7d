#!/bin/bash
# tools/bench.sh - `make bench`: measurements side by side in one run, as ratios.
#
# The cost of the series: scenarios/bench-pin.yaml (gup_test's long-term pin
# benchmark, the kernel's own timings) in the same guest on 6.12 with the
# series and on the same tree and config without it (kernel/build.sh
# --vanilla). Both trials run here, one after the other, and the table gives
# the medians and their ratio. Results: results/bench/{series,vanilla}/.
#
# Throughput: the demo trial four times (scenarios/bench-throughput.yaml)
# with -j 1 and with -j 2, trials per hour and their ratio, the machine's and
# the orchestrator's CPU time per trial, the orchestrator's peak RSS; beside
# it the same guest idle (scenarios/bench-throughput-idle.yaml), whose ratio
# is the orchestrator's own, and the bound the machine's cores put on -j 2.
#
# Fleet: the same four trials over one libvirt host and over two
# (tools/bench-fleet.sh), trials per hour and their ratio.
#
# RDMA: scenarios/bench-rdma.yaml, the registration time of an MR from Normal
# and from ZONE_MOVABLE on both kernels under both policies.
#
# Scale: tools/scale.sh, devices of 1 to 16 GiB plugged and unplugged with 0,
# 25 and 50 % in use: the table and a log-log plot in results/bench/scale/.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
out=${BENCH_OUT:-results/bench}
LAB=build/memhp-lab

echo "[bench] kernel 6.12 without the series (kernel/build.sh --vanilla 6.12; cached after the first time)"
kernel/build.sh --vanilla 6.12 >/dev/null
vanilla=$(cat "$cache/kernel/6.12/vanilla")
# --vanilla left the one 6.12 tree without the series, which kernel/repro/
# and the selftest checks read: put the series back (cached: seconds)
kernel/build.sh 6.12 >/dev/null
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

# RDMA registration time (issue 16): ibv_reg_mr of 64 MiB with soft-RoCE from
# Normal and from ZONE_MOVABLE, both kernels under both policies, and the
# on-demand-paging MR that rxe refuses on these kernels.
echo
echo "[bench] rdma registration: scenarios/bench-rdma.yaml (2 kernels x 2 policies, -j 2)"
if ! $LAB run -q -j 2 -o "$out/rdma" scenarios/bench-rdma.yaml >"$out/rdma.log" 2>&1; then
	tail -n 20 "$out/rdma.log" >&2
	echo "Error: a bench-rdma trial failed; its log: $out/rdma.log, record: $out/rdma/trials.jsonl" >&2
	exit 1
fi
printf '\n%-7s %-9s %16s %22s %6s %s\n' kernel policy "Normal (ms)" "ZONE_MOVABLE (ms)" ratio "pages migrated / in place; ODP MR"
jq -rs 'sort_by(.parameters.kernel, .parameters.policy) | .[]
	| def pin(id): [.steps[] | select(.step == "pin" and .id == id)][0].workload;
	  def d(k): ((.guest_after.vmstat[k] // 0) - (.guest_before.vmstat[k] // 0));
	  [.parameters.kernel, .parameters.policy,
	   "\(pin("normal").pin_us / 1000 | round) (\(pin("normal").pin_gib_s) GiB/s)",
	   "\(pin("movable").pin_us / 1000 | round) (\(pin("movable").pin_gib_s) GiB/s)",
	   (pin("movable").pin_us / pin("normal").pin_us * 10 | round / 10),
	   "\(d("gup_longterm_migrate_success")) / \(d("gup_longterm_pinned_in_place")); \(pin("odp").errno_name // "registered")"]
	| @tsv' "$out/rdma/trials.jsonl" |
	awk -F'\t' '{ printf "%-7s %-9s %16s %22s %6s %s\n", $1, $2, $3, $4, $5, $6 }'
echo "Records: $out/rdma/trials.jsonl"

# The machine's busy CPU seconds (all of it: guests, libvirt, memhp-lab),
# from /proc/stat's user..steal less idle and iowait, in USER_HZ ticks.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
hz=$(getconf CLK_TCK)
for sc in throughput throughput-idle; do
	for j in 1 2; do
		echo "[bench] $sc: 4 trials (scenarios/bench-$sc.yaml) with -j $j"
		b0=$(busy)
		if ! $LAB run --json -q -j $j -o "$out/$sc-j$j" "scenarios/bench-$sc.yaml" \
			>"$out/$sc-j$j.json" 2>"$out/$sc-j$j.err"; then
			cat "$out/$sc-j$j.err" >&2
			echo "Error: the -j $j $sc run failed; record: $out/$sc-j$j/trials.jsonl" >&2
			exit 1
		fi
		echo $(( $(busy) - b0 )) >"$out/$sc-j$j.busy"
	done
done
tph() { jq -r '(.trials | length) * 3600 / .wall_seconds | floor' "$out/$1-j$2.json"; }
per() { jq -r "$3" "$out/$1-j$2.json"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
# the machine's CPU seconds per trial, and at -j 2 the share of both cores kept busy
cpu() { jq -r --argjson t "$(cat "$out/$1-j$2.busy")" --argjson hz "$hz" \
	'$t / $hz / (.trials | length) | . * 100 | round / 100' "$out/$1-j$2.json"; }
util() { jq -r --argjson t "$(cat "$out/$1-j2.busy")" --argjson hz "$hz" --argjson n "$(nproc)" \
	'$t / $hz / $n / .wall_seconds * 100 | round' "$out/$1-j2.json"; }
printf '\n%-48s %10s %10s %7s\n' "trials per hour" "-j 1" "-j 2" ratio
for sc in throughput throughput-idle; do
	label="demo trial"
	[ $sc = throughput-idle ] && label="idle guest (boot, 8 s, unplug)"
	printf '%-48s %10s %10s %7s\n' "$label" "$(tph $sc 1)" "$(tph $sc 2)" "$(ratio "$(tph $sc 2)" "$(tph $sc 1)")"
done
printf '%-48s %10s %10s\n' "demo trial: machine CPU per trial (s)" "$(cpu throughput 1)" "$(cpu throughput 2)"
printf '%-48s %10s %10s\n' "demo trial: wall per trial (s)" \
	"$(per throughput 1 '.wall_seconds / (.trials | length) | . * 100 | round / 100')" \
	"$(per throughput 2 '.wall_seconds / (.trials | length) | . * 100 | round / 100')"
printf '%-48s %10s %10s\n' "orchestrator CPU per trial (s)" \
	"$(per throughput 1 '.orchestrator_cpu_seconds / (.trials | length) | . * 1000 | round / 1000')" \
	"$(per throughput 2 '.orchestrator_cpu_seconds / (.trials | length) | . * 1000 | round / 1000')"
printf '%-48s %10s %10s\n' "orchestrator peak RSS (MiB)" \
	"$(per throughput 1 '.orchestrator_peak_rss_kib / 1024 | floor')" \
	"$(per throughput 2 '.orchestrator_peak_rss_kib / 1024 | floor')"
# What -j 2 could reach if it kept all cores busy at its own CPU per trial.
bound=$(jq -rn --argjson c "$(cpu throughput 2)" --argjson n "$(nproc)" '3600 * $n / $c | floor')
echo
echo "The demo trial at -j 2 kept $(util throughput)% of the machine's $(nproc) cores busy (the idle guest:" \
	"$(util throughput-idle)%). At its CPU per trial, -j 2 cannot pass $bound trials per hour," \
	"$(ratio "$bound" "$(tph throughput 1)") x -j 1; the idle guest's ratio is what memhp-lab itself allows" \
	"(docs/host.md, \"Trials per hour\")."
echo "Records: $out/throughput-j{1,2}/, $out/throughput-idle-j{1,2}/"

# Fleet (issue 18): trials per hour over two libvirt hosts against one.
echo
LAB=$LAB tools/bench-fleet.sh "$out/fleet"

# Scale (issue 21): plug and unplug cost against the device's size, with
# 0, 25 and 50 % in use; its own table and log-log plot (docs/host.md).
echo
echo "[bench] scale: scenarios/scale/{unused,used}.yaml (tools/scale.sh)"
LAB=$LAB tools/scale.sh "$out/scale"
