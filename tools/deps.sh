#!/bin/bash
# tools/deps.sh - install the Debian packages in tools/deps.list that are missing.
# Idempotent; when everything is present it only asks dpkg (well under 2 s).
set -euo pipefail
list=${MEMHP_DEPS_LIST:-$(dirname "$0")/deps.list}	# another list: for the tests
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "Error: missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "[deps] installing ${#missing[@]} package(s): ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null ||
	{ echo "Error: apt-get update failed (network or /etc/apt/sources.list)" >&2; exit 1; }
# apt's output: a new file of our own (mktemp: O_EXCL, 0600), never a fixed
# /tmp name another user could have planted as a link; kept when it failed.
log=$(mktemp "${TMPDIR:-/tmp}/memhp-deps.XXXXXXXX.log")
apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; echo "Error: apt-get install failed; log: $log" >&2; exit 1; }
rm -f "$log"
echo "[deps] done" >&2
