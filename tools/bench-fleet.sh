#!/bin/bash
# tools/bench-fleet.sh [OUT_DIR] - `make bench`'s fleet piece (issue 18): the
# demo trial four times (scenarios/bench-throughput.yaml) over one libvirt
# host and over two, one guest at a time on each (-j 1), and the trials per
# hour of each with their ratio, from one run of this script. The hosts are
# the ones `make check` uses (tests/libvirtd-lib.sh: a system libvirtd in
# namespaces of its own, one over a UNIX socket, one over TCP through a veth
# pair), so nothing is shared but the cores: on this machine both hosts run
# on the same cores, and the ratio says what a second daemon adds here; on
# two machines it approaches 2. Needs root (namespaces, veth).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${BENCH_OUT:-results/bench}/fleet}
LAB=${LAB:-build/memhp-lab}
. tests/libvirtd-lib.sh
rm -rf "$out"
mkdir -p "$out"
hide=("$(realpath "$(dirname "$LAB")")" "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}" "$(realpath "$out")/one-host" "$(realpath "$out")/two-hosts")
a=$(fleet_host_start "$(realpath "$out")/host-a" unix "${hide[@]}")
b=$(fleet_host_start "$(realpath "$out")/host-b" tcp "${hide[@]}")
trap 'fleet_host_kill "$(realpath "$out")/host-a"; fleet_host_kill "$(realpath "$out")/host-b"' EXIT
run() {	# run NAME --host URI...
	local name=$1; shift
	echo "[bench] fleet: 4 demo trials over $name (-j 1 on each)"
	if ! $LAB run --json -q -j 1 "$@" -o "$out/$name" scenarios/bench-throughput.yaml >"$out/$name.json" 2>"$out/$name.err"; then
		cat "$out/$name.err" >&2
		echo "Error: the fleet throughput run over $name failed; records: $out/$name/trials.jsonl" >&2
		exit 1
	fi
}
run one-host --host "$a"
run two-hosts --host "$a" --host "$b"
tph() { jq -r '(.trials | length) * 3600 / .wall_seconds | floor' "$out/$1.json"; }
printf '\n%-48s %10s %10s %7s\n' "demo trial throughput over libvirt hosts" "1 host" "2 hosts" ratio
printf '%-48s %10s %10s %7s\n' "trials per hour" "$(tph one-host)" "$(tph two-hosts)" \
	"$(awk -v a="$(tph two-hosts)" -v b="$(tph one-host)" 'BEGIN { printf "%.2f", a / b }')"
echo "Records: $out/one-host/trials.jsonl, $out/two-hosts/trials.jsonl"
