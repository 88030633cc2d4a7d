#!/bin/bash
# tools/stock.sh - `make stock`: the stock-kernel suite (issue 15). The
# elasticity and pinning scenarios that need no patch of ours
# (scenarios/stock/: io_uring and VFIO pins, both at once with the census,
# grow-shrink, the online policies) on Debian's own 6.1 and 6.12 cloud
# kernels, straight from apt (kernel/package.sh), and the table a team reads:
# what the kernel it ships does.
#
# Usage: tools/stock.sh [-o DIR] [--table-only] [-j N]
#   -o DIR        the run directory (default results/stock)
#   --table-only  print the table of the run already in DIR, run nothing
# One row per scenario (and online policy), one column per kernel package
# (name and version from the record). A cell: the verdict, how far node 1's
# last shrink got (reached/requested MiB, and of the plugged memory how much
# came back to the host), pages of the pins left in ZONE_MOVABLE, and the
# seconds the unplug took. Exit 0 if every trial passed (or was skipped), 1
# if one did not, 2 if nothing ran.
set -u
cd "$(dirname "$0")/.."
LAB=build/memhp-lab
out=results/stock
table_only=
jobs=2
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift;;
	-j) jobs=$2; shift;;
	--table-only) table_only=1;;
	*) echo "usage: tools/stock.sh [-o DIR] [--table-only] [-j N]" >&2; exit 2;;
	esac
	shift
done
rc=0
if [ -z "$table_only" ]; then
	rm -rf "$out"
	mkdir -p "$(dirname "$out")"
	echo "[stock] $(ls scenarios/stock/*.yaml | wc -l) scenario(s) on Debian's kernels; log: $out.log"
	$LAB run -j "$jobs" -o "$out" scenarios/stock/*.yaml >"$out.log" 2>&1
	rc=$?
fi
rec=$out/trials.jsonl
if [ ! -s "$rec" ]; then
	tail -n 20 "$out.log" >&2 2>/dev/null
	echo "Error: no trial ran (exit $rc); see $out.log" >&2
	exit 2
fi

# The table, from the records alone: rows are the trial ids without the
# package axis, columns the kernels that ran.
jq -sr '
	def mib: if . == null then "-" else (. / 1048576 | floor | tostring) end;
	def row: .scenario_name + ((.parameters // {}) | del(.pkg) | to_entries |
		map(" " + .key + "=" + (.value | tostring)) | join(""));
	def kern: (.kernel.source_package // "?") + " " + (.kernel.source_version // "");
	def cell: .summary as $s |
		(.verdict | ascii_upcase) + ": " +
		($s.reached_bytes | mib) + "/" + ($s.requested_bytes | mib) + " MiB" +
		(if $s.host_reclaimed_of_reclaimable != null then
			", host " + (($s.host_reclaimed_of_reclaimable * 100) | floor | tostring) + "%" else "" end) +
		(if $s.pinned_pages_movable_after != null then
			", movable " + ($s.pinned_pages_movable_after | tostring) else "" end) +
		(if $s.seconds_to_converge != null then
			", " + ($s.seconds_to_converge * 100 | round / 100 | tostring) + " s" else "" end);
	(map(kern) | unique) as $ks |
	(map(row) | unique) as $rows |
	"| scenario | " + ($ks | join(" | ")) + " |",
	"|---|" + ($ks | map("---") | join("|")) + "|",
	($rows[] as $r | "| " + $r + " | " +
		([$ks[] as $k | (map(select(row == $r and kern == $k))[0] // null) |
			if . == null then "(not run)" else cell end] | join(" | ")) + " |")
' "$rec"
# guest: debian: systemd was PID 1 and memhp-modules.service loaded every
# module of the package. Debian's own qemu-guest-agent is the only agent in
# that image: a trial that ran its steps had it answer (the console shows
# its unit's "Started" line on 6.1; on 6.12 systemd does not print it).
deb_bad=0
while IFS=$'\t' read -r trial log nmod; do
	if grep -aq 'systemd\[1\]: systemd 252' "$log" && [ "$(grep -ac 'memhp-init: module .* loaded' "$log")" = "$nmod" ]; then
		echo "[stock] $trial: systemd PID 1, $nmod module(s) loaded by memhp-modules.service"
	else
		echo "[stock] $trial: FAIL: the console $log lacks systemd 252 as PID 1 or one of $nmod module lines" >&2
		deb_bad=$((deb_bad + 1))
	fi
done < <(jq -r 'select(.guest_userspace == "debian") | [.trial, .console_log, (.kernel.modules | length)] | @tsv' "$rec")
bad=$(jq -sr '[.[] | select(.verdict != "pass" and .verdict != "skip" and .verdict != "xfail")] | length' "$rec")
echo
echo "[stock] $(jq -s length "$rec") trial(s), $bad not passed; records: $rec, report: $out/report/index.html"
[ "$bad" = 0 ] && [ "$deb_bad" = 0 ] && [ "$rc" = 0 ] && exit 0
exit 1
