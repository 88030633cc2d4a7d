#!/bin/bash
# tools/scale.sh - the scale sweep of `make bench` (issue 21): how plug and
# unplug cost grows with the virtio-mem device's size, with 0, 25 and 50 %
# of it in use so the unplug must migrate it.
#
#   tools/scale.sh [RUN_DIR]      run scenarios/scale/{unused,used}.yaml into
#                                 RUN_DIR (default results/scale), then report
#   tools/scale.sh --table RUN_DIR  only the table and plot of an earlier run
#
# One row per point: the plug path (request -> plugged -> online, from the
# grow's steps[].plug), the unplug's seconds, what it migrated (the guest's
# pgmigrate_success over the trial, in 4 KiB pages) and how fast, beside the
# guest's own memcpy speed measured by the workload that filled the memory,
# and what the host got back (the unplug's steps[].host). The plot is
# RUN_DIR/scale.svg: seconds against GiB, both axes logarithmic.
#
# Past the host (issue 36, item 5): scenarios/scale/64g-unused.yaml plugs a
# 64 GiB device on a 24 GiB host and takes it back unused, 64g-used.yaml
# with 8 GiB in use; each row also has the backend's bytes before and after
# the unplug and QEMU's RSS before the plug, at its peak (the most any host
# sample saw) and after the unplug. A row whose guest does not fit in
# MemAvailable now (64g-used counts 18.5 GiB) is left out, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${LAB:-build/memhp-lab}

table_only=0
if [ "${1:-}" = --table ]; then
	table_only=1
	shift
fi
out=${1:-results/scale}

if [ $table_only = 0 ]; then
	rm -rf "$out"
	mkdir -p "$out"
	for s in unused used 64g-unused 64g-used; do
		echo "[scale] scenarios/scale/$s.yaml, one guest at a time (timings are not shared with another guest)"
		if ! $LAB run -j 1 -o "$out/$s" "scenarios/scale/$s.yaml" >"$out/$s.log" 2>&1; then
			if grep -q "does not fit in the [0-9]* MiB available" "$out/$s.log"; then
				echo "[scale] left out: $(grep -m1 'does not fit' "$out/$s.log")" >&2
				continue
			fi
			tail -n 20 "$out/$s.log" >&2
			echo "Error: a scale trial failed; log: $out/$s.log, records: $out/$s/trials.jsonl" >&2
			exit 1
		fi
	done
fi
for s in unused used; do
	[ -s "$out/$s/trials.jsonl" ] || { echo "Error: no records in $out/$s/trials.jsonl" >&2; exit 1; }
done
records=()
for s in unused used 64g-unused 64g-used; do
	[ -s "$out/$s/trials.jsonl" ] && records+=("$out/$s/trials.jsonl")
done

# One TSV row per trial: size GiB, in use GiB, plug s, online s, unplug s,
# migrated GiB, GiB/s, memcpy GiB/s, host reclaimed MiB, % of reclaimable,
# verdict, then backend MiB before and after the unplug, QEMU RSS MiB before
# the plug, at its peak and after the unplug.
rows() {
	jq -r '
		def gib: . / 1073741824;
		def mib: . / 1048576 | floor;
		(.steps | map(select(.step == "resize"))) as $r |
		(.steps | map(select(.step == "pin")) | .[0].workload) as $w |
		(((.guest_after.vmstat.pgmigrate_success // 0) - (.guest_before.vmstat.pgmigrate_success // 0)) * 4096 | gib) as $mig |
		[ ($r[0].plug.plugged_bytes | gib),
		  (($w.bytes_asked // 0) | gib),
		  $r[0].plug.seconds_to_plugged, $r[0].plug.seconds_to_online,
		  $r[1].seconds_to_converge,
		  $mig,
		  (if $r[1].seconds_to_converge > 0 then $mig / $r[1].seconds_to_converge else 0 end),
		  ($w.memcpy_gib_s // null),
		  (($r[1].host.reclaimed_bytes // 0) / 1048576),
		  (($r[1].host.reclaimed_of_reclaimable // null) | if . == null then null else . * 100 end),
		  .verdict,
		  (($r[1].host.before.backend_bytes // {}) | [.[]] | add // 0 | mib),
		  (($r[1].host.after.backend_bytes // {}) | [.[]] | add // 0 | mib),
		  (($r[0].host.before.qemu_rss_bytes // 0) | mib),
		  ([(.timeline // [])[] | select(.source == "host") | .qemu_rss_bytes // 0] + [.steps[].host? // empty | .before.qemu_rss_bytes // 0, .after.qemu_rss_bytes // 0] | max // 0 | mib),
		  (($r[1].host.after.qemu_rss_bytes // 0) | mib) ] | @tsv' "$@"
}
rows "${records[@]}" | sort -t$'\t' -k1,1g -k2,2g >"$out/scale.tsv"

printf '\n%8s %8s %9s %9s %9s %9s %8s %8s %10s %7s %s\n' "size GiB" "in use" "plug s" "online s" \
	"unplug s" "migr GiB" "GiB/s" "memcpy" "host MiB" "host %" verdict
awk -F'\t' '{ printf "%8g %8g %9.3f %9.3f %9.3f %9.2f %8.2f %8s %10.0f %7s %s\n",
	$1, $2, $3, $4, $5, $6, $7, ($8 == "" ? "-" : sprintf("%.2f", $8)), $9,
	($10 == "" ? "-" : sprintf("%.0f", $10)), $11 }' "$out/scale.tsv"
printf '\n%8s %8s %14s %13s %12s %11s %13s\n' "size GiB" "in use" "backend before" "backend after" \
	"RSS at plug" "RSS peak" "RSS after"
awk -F'\t' '{ printf "%8g %8g %14d %13d %12d %11d %13d\n", $1, $2, $12, $13, $14, $15, $16 }' "$out/scale.tsv"
echo
echo "plug s: request to plugged (QMP); online s: request to the guest's MemTotal grown;"
echo "unplug s: request to 0 plugged; GiB/s: migrated / unplug s; memcpy: the guest's own"
echo "(the hold workload filling the memory); host: what the device's backend gave back."
echo "backend: the device's backend MiB before and after the unplug; RSS: QEMU's MiB before the"
echo "plug, the most any host sample saw, and after the unplug."
echo "Records: ${records[*]}; table: $out/scale.tsv"

# The log-log plot. Only numbers from scale.tsv reach gnuplot (no text from a record).
if command -v gnuplot >/dev/null; then
	awk -F'\t' '$2 == 0' "$out/scale.tsv" >"$out/scale-unused.dat"
	awk -F'\t' '$2 > 0 && $2 / $1 < 0.2' "$out/scale.tsv" >"$out/scale-12.dat"
	awk -F'\t' '$2 / $1 >= 0.2 && $2 / $1 < 0.375' "$out/scale.tsv" >"$out/scale-25.dat"
	awk -F'\t' '$2 > 0 && $2 / $1 >= 0.375' "$out/scale.tsv" >"$out/scale-50.dat"
	gnuplot <<EOF
set terminal svg size 720,440 dynamic font 'sans,11'
set output '$out/scale.svg'
set logscale xy 2
set xlabel 'virtio-mem device size (GiB)'
set ylabel 'seconds (TCG)'
set key top left
set grid
plot '$out/scale-unused.dat' using 1:3 with linespoints title 'plug, unused', \
     '$out/scale-unused.dat' using 1:5 with linespoints title 'unplug, unused', \
     '$out/scale-25.dat' using 1:5 with linespoints title 'unplug, 25 % in use', \
     '$out/scale-50.dat' using 1:5 with linespoints title 'unplug, 50 % in use', \
     '$out/scale-12.dat' using 1:5 with points pt 7 ps 1.5 title 'unplug, 8 GiB of 64 in use'
EOF
	echo "Plot: $out/scale.svg"
fi
