#!/bin/bash
# kernel/cache-trust.sh DIR - may memhp-lab trust the cache DIR ($MEMHP_CACHE)?
#
# What the cache holds is built from or run on this host: guest kernels and
# their trees, the gup_test.h memhp-pin (a host program, the tests run it
# here) is compiled against, ccache's objects, the KVM probe's answer. So it
# is a trust boundary, like a run directory (docs/security.md, "The cache"):
# DIR (or, before it exists, the directory it will be made in) must be owned
# by root or this user (SUDO_UID under sudo) and writable by no group or
# other user; each directory above it owned by root or this user, and
# writable by others only when sticky (/tmp). Exit 0, or 1 saying which
# directory and why (the Makefile, kernel/build.sh, kernel/package.sh and
# workloads/gup-header.sh call it first).
set -u
dir=${1:-}
[ -n "$dir" ] || { echo "usage: kernel/cache-trust.sh DIR" >&2; exit 2; }
me=$(id -u)
sudo_uid=
[ "$me" = 0 ] && sudo_uid=${SUDO_UID:-}
case $dir in /*) ;; *) dir=$PWD/$dir;; esac
[ "$dir" = / ] || dir=${dir%/}

# The directory itself, or the nearest one above it that exists.
d=$dir
while [ ! -e "$d" ] && [ "$d" != / ]; do d=$(dirname "$d"); done
first=1
while :; do
	if [ -L "$d" ]; then
		# a link is followed by every program that uses the path: its target is judged too
		t=$(readlink -f -- "$d") || { echo "Error: MEMHP_CACHE '$dir': cannot resolve the link '$d'" >&2; exit 1; }
		owner=$(stat -Lc %u -- "$d") mode=$(stat -Lc %a -- "$d")
		lowner=$(stat -c %u -- "$d")
		if [ "$lowner" != 0 ] && [ "$lowner" != "$me" ]; then
			echo "Error: MEMHP_CACHE '$dir': '$d' is a link owned by uid $lowner: another user chooses where the cache is; use a directory of your own" >&2
			exit 1
		fi
	else
		owner=$(stat -c %u -- "$d") mode=$(stat -c %a -- "$d")
	fi
	ok_owner=0
	{ [ "$owner" = 0 ] || [ "$owner" = "$me" ] || { [ -n "$sudo_uid" ] && [ "$owner" = "$sudo_uid" ]; }; } && ok_owner=1
	if [ $ok_owner = 0 ]; then
		echo "Error: MEMHP_CACHE '$dir': '$d' is owned by uid $owner, not by root or you (uid $me): its owner could plant a kernel or a header that memhp-lab builds and runs; use a cache of your own (docs/security.md, \"The cache\")" >&2
		exit 1
	fi
	m=$((8#$mode))
	sticky=$(( m & 01000 )) gw=$(( m & 020 )) ow=$(( m & 02 ))
	if [ $first = 1 ] && [ "$d" = "$dir" ] && { [ $gw != 0 ] || [ $ow != 0 ]; }; then
		echo "Error: MEMHP_CACHE '$dir' is writable by $([ $ow != 0 ] && echo 'every user' || echo 'its group') (mode $mode): another user could plant a kernel or a header that memhp-lab builds and runs; chmod go-w it (docs/security.md, \"The cache\")" >&2
		exit 1
	fi
	if { [ $gw != 0 ] || [ $ow != 0 ]; } && [ $sticky = 0 ]; then
		echo "Error: MEMHP_CACHE '$dir': '$d' above it is writable by $([ $ow != 0 ] && echo 'every user' || echo 'its group') (mode $mode) and not sticky: another user could replace the cache; use a cache below directories only you and root can write" >&2
		exit 1
	fi
	first=0
	[ "$d" = / ] && break
	d=$(dirname "$d")
done
exit 0
