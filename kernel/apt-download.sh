#!/bin/bash
# kernel/apt-download.sh - one Debian package (NAME=VERSION) from apt into DIR,
# with apt's privilege drop kept (kernel/package.sh; docs/security.md).
#
# Usage: kernel/apt-download.sh NAME=VERSION DIR
#
# As root, apt's download methods run as the sandbox user _apt, which must be
# able to write where the file lands. DIR (in the kernel cache, under root's
# home) is not such a place, so the download goes to a fresh directory of
# _apt's own under ${TMPDIR:-/var/tmp} and the .deb is moved into DIR after;
# never `-o APT::Sandbox::User=root`, which would parse what the mirror sends
# as root. Not root: apt-get download runs as the caller, straight into DIR.
# Prints the .deb's path.
set -euo pipefail
die() { echo "Error: apt-download: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: kernel/apt-download.sh NAME=VERSION DIR"
spec=$1 dest=$2
[[ $spec =~ ^[a-z0-9][a-z0-9.+-]*=[0-9][A-Za-z0-9.+~:-]*$ ]] || die "'${spec:0:80}' is not NAME=VERSION"
[ -d "$dest" ] || die "'$dest' is not a directory"
dl=$dest
if [ "$(id -u)" = 0 ] && id -u _apt >/dev/null 2>&1; then
	dl=$(mktemp -d "${TMPDIR:-/var/tmp}/memhp-apt.XXXXXXXX")
	trap 'rm -rf "$dl"' EXIT
	chown _apt "$dl"
	chmod 0700 "$dl"
fi
(cd "$dl" && apt-get -q download "$spec" >&2) || die "apt-get download $spec failed (see above)"
# back to root before anything is read from it: _apt can change nothing after the checks
[ "$dl" = "$dest" ] || chown -R -P root "$dl"
shopt -s nullglob
debs=("$dl"/*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] && [ ! -L "${debs[0]}" ] ||
	die "apt-get download $spec left ${#debs[@]} .deb file(s), expected one regular file"
if [ "$dl" != "$dest" ]; then
	# a copy owned by the caller (cp, not mv: _apt keeps nothing of ours)
	install -m 0644 -- "${debs[0]}" "$dest/"
fi
echo "$dest/$(basename -- "${debs[0]}")"
