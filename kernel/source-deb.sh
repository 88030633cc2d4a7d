#!/bin/bash
# kernel/source-deb.sh - Debian's linux-source-KVER from a suite the host does
# not use (7.3: experimental; 7.2: sid), as a tarball in the kernel cache,
# without installing anything (issue 49).
#
# Usage: kernel/source-deb.sh KVER
#
# The host's own kernel trees (6.12, 6.1) are installed packages whose
# tarball kernel/build.sh reads from /usr/src. A newer tree is not in the
# host's suites, and experimental or sid must never join the host's apt
# sources: apt runs here with a private configuration (its own
# sources.list naming experimental and sid, signed by the Debian archive
# keyring; its own lists and cache; nothing of /etc/apt/sources.list*),
# in a fresh directory that apt's sandbox user _apt owns (as root;
# never `-o APT::Sandbox::User=root`, see kernel/apt-download.sh), which is
# removed after. The .deb is checked and unpacked by build/memhp-kmod (the
# reader kernel/package.sh trusts with a package's archive: no absolute
# name, no '..', no link out of it, no device node), and only its
# usr/src/linux-source-KVER.tar.xz is kept:
#
#   $MEMHP_CACHE/kernel/KVER/deb/VERSION/linux-source-KVER.tar.xz
#   $MEMHP_CACHE/kernel/KVER/deb/current   (VERSION)
#
# A second run finds it and asks apt nothing (0.0 s); MEMHP_SOURCE_REFRESH=1
# asks apt again for a newer version. Prints two lines: the tarball's path
# and the package version. Progress goes to stderr.
set -euo pipefail
die() { echo "Error: source-deb: $*" >&2; exit 1; }
say() { printf '[source %s] %s\n' "$kver" "$*" >&2; }

[ $# = 1 ] || die "usage: kernel/source-deb.sh KVER"
kver=$1
[[ $kver =~ ^[0-9]+\.[0-9]+$ ]] || die "'${kver:0:40}' is not a kernel version such as 7.3"
pkg=linux-source-$kver
here=$(cd "$(dirname "$0")" && pwd)
kmod=${MEMHP_KMOD:-$here/../build/memhp-kmod}
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
"$here/cache-trust.sh" "$cache" || exit 1
dir=$cache/kernel/$kver/deb
mkdir -p "$dir"

# cached VERSION: the tarball of VERSION is there, complete (renamed into place)
cached() {
	[[ $1 =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] && [ -f "$dir/$1/$pkg.tar.xz" ] && [ ! -L "$dir/$1/$pkg.tar.xz" ]
}
exec 7>"$dir/.lock"
flock 7
cur=$(cat "$dir/current" 2>/dev/null || true)
if [ "${MEMHP_SOURCE_REFRESH:-0}" != 1 ] && cached "$cur"; then
	echo "$dir/$cur/$pkg.tar.xz"
	echo "$cur"
	exit 0
fi

[ -x "$kmod" ] || die "$kmod is missing: make build/memhp-kmod (or set MEMHP_KMOD)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring not found: install debian-archive-keyring"
apt_dir=$(mktemp -d "${TMPDIR:-/var/tmp}/memhp-apt-src.XXXXXXXX")
work=$(mktemp -d "$dir/.work-XXXXXX")
trap 'rm -rf "$apt_dir" "$work"' EXIT
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/dl"
{
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian experimental main"
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian sid main"
} >"$apt_dir/sources.list"
if [ "$(id -u)" = 0 ] && id -u _apt >/dev/null 2>&1; then
	chown -R _apt "$apt_dir"
	chmod 0700 "$apt_dir"
fi
apt_opts=(-q -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=-
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
	-o Dir::State::Status=/dev/null -o APT::Default-Release=)
t0=$(date +%s)
say "apt: experimental and sid's package lists (a private apt configuration in $apt_dir; the host's sources untouched)"
apt-get "${apt_opts[@]}" update >"$work/apt.log" 2>&1 ||
	{ tail -n 5 "$work/apt.log" >&2; die "apt-get update of experimental and sid failed (above)"; }
# The highest version any of the two suites has (experimental's candidate
# priority is 1: apt would otherwise pick sid's).
ver=
while read -r v; do
	[[ $v =~ ^[0-9][A-Za-z0-9.+~:-]*$ ]] || die "apt names '${v:0:80}', not a Debian version"
	[ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver" && ver=$v
done < <(apt-cache "${apt_opts[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p')
[ -n "$ver" ] || die "neither experimental nor sid has $pkg (apt-cache show $pkg; sid's linux-source-7.2 is the fallback: kernel/source-deb.sh 7.2)"
if cached "$ver"; then
	say "cached: $pkg $ver"
else
	say "fetch: apt-get download $pkg=$ver"
	(cd "$apt_dir/dl" && apt-get "${apt_opts[@]}" download "$pkg=$ver" >&2) ||
		die "apt-get download $pkg=$ver failed (above)"
	[ "$(id -u)" != 0 ] || chown -R -P root "$apt_dir"	# back to root before anything is read
	shopt -s nullglob
	debs=("$apt_dir"/dl/*.deb)
	[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] && [ ! -L "${debs[0]}" ] ||
		die "apt-get download left ${#debs[@]} .deb file(s), expected one regular file"
	deb=$work/source.deb
	mv -- "${debs[0]}" "$deb"
	[ "$(dpkg-deb -f "$deb" Package 2>/dev/null)" = "$pkg" ] && [ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] ||
		die "the downloaded .deb is not $pkg $ver"
	who="source package $pkg $ver"
	dpkg-deb --fsys-tarfile "$deb" | "$kmod" members "$who" || die "$who: its archive is refused (above)"
	say "extract: usr/src/$pkg.tar.xz of $pkg $ver ($(( $(stat -c %s "$deb") >> 20 )) MiB)"
	mkdir "$work/root"
	dpkg-deb --fsys-tarfile "$deb" | "$kmod" extract "$who" "$work/root" ||
		die "$who: its archive is refused while it is extracted (above)"
	rm -f "$deb"
	rm -rf "${dir:?}/$ver.tmp"
	mkdir "$dir/$ver.tmp"
	"$kmod" cat "$work/root/usr/src" "$pkg.tar.xz" >"$dir/$ver.tmp/$pkg.tar.xz" && [ -s "$dir/$ver.tmp/$pkg.tar.xz" ] ||
		die "$who: usr/src/$pkg.tar.xz is not a regular non-empty file of the package"
	rm -rf "${dir:?}/$ver"
	mv "$dir/$ver.tmp" "$dir/$ver"
fi
echo "$ver" >"$dir/current.tmp" && mv "$dir/current.tmp" "$dir/current"
say "done in $(( $(date +%s) - t0 )) s: $dir/$ver/$pkg.tar.xz"
echo "$dir/$ver/$pkg.tar.xz"
echo "$ver"
