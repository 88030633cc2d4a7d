# kernel/tree-lib.sh - sourced by kernel/bisect-check.sh and
# kernel/repro/pfn-mapped-race.sh: the lab kernel's current build and the one
# source tree kernel/build.sh keeps for each version (re-patched by every
# build, --vanilla included). The caller defines die MESSAGE and say MESSAGE.

# tree_current KDIR KVER: art (the artifact KDIR/current names), id (its
# identity.json), pkgver, series_hash, key (its config key) and src (the
# tree); dies when none was built or its identity cannot be read.
tree_current() {
	[ -s "$1/current" ] || die "no kernel $2 built yet ($1/current): run kernel/build.sh $2"
	art=$(cat "$1/current")
	id=$art/identity.json
	pkgver=$(jq -r .source_version "$id") && series_hash=$(jq -r .series_hash "$id") &&
		key=$(jq -r .config_key "$id") || die "cannot read $id"
	src=$1/src-$pkgver
}

# tree_carries KVER: dies unless $src carries $art's series (another build
# may have re-patched it since).
tree_carries() {
	[ "$(cat "$src/.memhp-series" 2>/dev/null)" = "$series_hash" ] ||
		die "$src does not carry the series of $art: run kernel/build.sh $1 first"
}

# tree_lock KDIR KVER: hold kernel/build.sh's lock of KDIR on fd 9 (until the
# caller closes it or exits), saying so while another build holds it.
tree_lock() {
	exec 9>"$1/.lock"
	if ! flock -n 9; then
		say "waiting for a build of $2 to finish (lock $1/.lock)"
		flock 9
	fi
}
