# tests/trust.sh - trust, round 2 (issue 30; docs/security.md): packages,
# .debs, modules trees and run directories are data, never a command on the
# host. A modules.dep or a package's file names reach no sed or shell program
# (kernel/package.sh reads them through build/memhp-kmod); a .deb whose
# members leave its root (absolute or '..' links, '..' names, devices) is
# refused before it is extracted, naming the member; a modules tree's
# '../' paths and links are never followed; `check` reads no package unless
# --resolve; `run --resume` and `soak --resume` load no scenario, kernel or
# hosts file that lies inside the run directory or is not its own real path;
# a fleet host's URI has a transport and query parameters a fleet needs, no
# other (no qemu+ext, no command=, keyfile=, no_verify=...); a hosts file
# gives a key once; report --merge takes run.json's trials as data.
# Every reproducer below tries to create the same marker file; the last check
# says none did. Nothing boots: each is refused before a guest would start.
# Uses the helpers of tests/lib.sh (ok, expect_fail), $LAB, $work, $top.
plan 63

echo "# trust: fixtures (a config the lab's checks accept, modules trees, .debs built with dpkg-deb -b)"
export MHL_TRUST_MARKER=$work/trust-marker	# what every reproducer tries to touch
export MEMHP_CACHE=$work/cache	# this part's own kernel cache: what it may hold is checked below
export MEMHP_KMOD=$top/$B/memhp-kmod	# kernel/package.sh's reader of packages and modules trees
trel=9.9.9-trust	# the release of every tree and package here
secret=trust-secret-$RANDOM$RANDOM	# a host file's content that must not reach the cache
echo "$secret" >"$work/secret"
# The lab's required options built in, virtio_pci a module: the only module a
# tree or package here has to bring.
grep -v '^#' kernel/required.list | sed -e '/^$/d' -e 's/|.*//' -e 's/^/CONFIG_/' -e 's/$/=y/' -e 's/^CONFIG_VIRTIO_PCI=y$/CONFIG_VIRTIO_PCI=m/' \
	>"$work/config"
echo bzimage >"$work/bzImage"
# trust_scn KERNEL-MAP: a scenario of one virtio-mem guest on that kernel (soak takes it too)
trust_scn() {
	printf 'name: trust\nkernel: %s\nnodes:\n  - memory: 512MiB\n    cpus: 1\n  - memory: 128MiB\n    cpus: 1\n    virtio_mem: {size: 256MiB, block: 2MiB, requested: 256MiB}\nsteps:\n  - snapshot:\n' "$1"
}
# trust_tree DIR: a lib/modules/RELEASE tree DIR/$trel with kernel/ (its modules.dep is the caller's)
trust_tree() { mkdir -p "$1/$trel/kernel"; }
# trust_debroot DIR: a linux-image package's tree: control, boot/vmlinuz and config, lib/modules/RELEASE/kernel/
trust_debroot() {
	mkdir -p "$1/DEBIAN" "$1/boot" "$1/lib/modules/$trel/kernel"
	printf 'Package: linux-image-%s\nVersion: 1.0\nArchitecture: all\nMaintainer: memhp-lab <lab@localhost>\nDescription: trust test package\n' \
		"$trel" >"$1/DEBIAN/control"
	echo bzimage >"$1/boot/vmlinuz-$trel"
	cp "$work/config" "$1/boot/config-$trel"
}
trust_deb() { dpkg-deb --root-owner-group -b "$1" "$2" >/dev/null; }
# no_secret: no file of the cache (decompressed if gzip) holds the secret
no_secret() {
	! { find "$MEMHP_CACHE" -type f ! -name '*.gz' -exec cat -- {} + 2>/dev/null
	    find "$MEMHP_CACHE" -type f -name '*.gz' -exec zcat -- {} + 2>/dev/null; } | grep -qF "$secret"
}

# The well-formed tree and package: what is refused below is their shape, not theirs.
trust_tree "$work/good-tree"
echo junk >"$work/good-tree/$trel/kernel/virtio_pci.ko"
echo 'kernel/virtio_pci.ko:' >"$work/good-tree/$trel/modules.dep"
trust_debroot "$work/good-deb"
echo junk | xz >"$work/good-deb/lib/modules/$trel/kernel/virtio_pci.ko.xz"
trust_deb "$work/good-deb" "$work/good.deb"

# 1: a modules.dep line whose path holds a sed program (the s command ends at '|', 'e' runs a shell)
trust_tree "$work/tree1"
printf '%s\n' 'x|touch $MHL_TRUST_MARKER|e;s|/virtio_pci.ko:' >"$work/tree1/$trel/modules.dep"
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/tree1/$trel}" >"$work/scn1.yaml"
# 2: a package whose module file name depmod writes into modules.dep ('|', ';', '$', spaces)
trust_debroot "$work/deb2"
mkdir -p "$work/deb2/lib/modules/$trel/kernel/a|touch \$MHL_TRUST_MARKER|e;s|"
echo junk >"$work/deb2/lib/modules/$trel/kernel/a|touch \$MHL_TRUST_MARKER|e;s|/virtio_pci.ko"
trust_deb "$work/deb2" "$work/deb2.deb"
trust_scn "{deb: $work/deb2.deb}" >"$work/scn2.yaml"
# 3: packages whose links lead out of their root: lib/modules to a directory
# of the host, System.map and a module to a host file
mkdir -p "$work/victim/$trel/kernel"
echo junk | xz >"$work/victim/$trel/kernel/virtio_pci.ko.xz"
trust_debroot "$work/deb3a"
rm -r "$work/deb3a/lib/modules" && ln -s "$work/victim" "$work/deb3a/lib/modules"
trust_deb "$work/deb3a" "$work/deb3a.deb"
trust_debroot "$work/deb3b"
echo junk >"$work/deb3b/lib/modules/$trel/kernel/virtio_pci.ko"
ln -s "$work/secret" "$work/deb3b/boot/System.map-$trel"
trust_deb "$work/deb3b" "$work/deb3b.deb"
trust_debroot "$work/deb3c"
ln -s "$work/secret" "$work/deb3c/lib/modules/$trel/kernel/virtio_pci.ko"
trust_deb "$work/deb3c" "$work/deb3c.deb"
# 4: modules trees that name a host file: a '..' dependency, a module that is a link
trust_tree "$work/tree4a"
echo junk >"$work/tree4a/$trel/kernel/virtio_pci.ko"
echo 'kernel/virtio_pci.ko: ../../secret' >"$work/tree4a/$trel/modules.dep"
trust_tree "$work/tree4b"
ln -s "$work/secret" "$work/tree4b/$trel/kernel/virtio_pci.ko"
echo 'kernel/virtio_pci.ko:' >"$work/tree4b/$trel/modules.dep"

echo "# trust: modules.dep is data (finding 1: a modules tree; 2: a package's file names through depmod)"
expect_fail "package.sh --modules: a modules.dep path holding a sed program ('x|touch ...|e;s|...') is refused at its line" 1 \
	"modules.dep:1: module path 'x\\|touch" kernel/package.sh --modules "$work/tree1/$trel" --config "$work/config"
ok "check of a kernel: {modules} scenario reads no modules tree without --resolve: exit 0, it says the skips are not listed" \
	sh -c '"$1" check "$2" >"$3" 2>&1 && grep -q "skips not listed: kernel {modules: .*} is read only with --resolve" "$3"' \
	_ "$LAB" "$work/scn1.yaml" "$work/check1.out"
expect_fail "check --resolve of that scenario: refused, naming modules.dep:1" 1 \
	"modules.dep:1: module path 'x\\|touch" $LAB check --resolve "$work/scn1.yaml"
expect_fail "run of that scenario: refused before anything boots, naming modules.dep:1" 2 \
	"modules.dep:1: module path 'x\\|touch" $LAB run -q -o "$work/run1" "$work/scn1.yaml"
expect_fail "package.sh --deb: a module named 'a|touch \$M|e;s|/virtio_pci.ko' in the package: depmod's line for it is refused" 1 \
	"modules.dep:[0-9]+: module path 'kernel/a\\|touch" kernel/package.sh --deb "$work/deb2.deb"
expect_fail "check --resolve of a kernel: {deb} scenario with that package: refused the same way" 1 \
	"modules.dep:[0-9]+: module path 'kernel/a\\|touch" $LAB check --resolve "$work/scn2.yaml"
ok "check --help says what --resolve fetches and unpacks, and that check reads no package without it" \
	sh -c '"$1" check --help | grep -q -- "--resolve" && "$1" check --help | grep -q "without it check reads no package"' _ "$LAB"

echo "# trust: a package's archive is checked before it is extracted (finding 3)"
expect_fail "package.sh --deb: a package whose lib/modules is a link to a host directory: refused naming the member" 1 \
	"member './lib/modules'.*symbolic link to an absolute path" kernel/package.sh --deb "$work/deb3a.deb"
ok "the host directory it linked to is untouched: its .ko.xz still compressed, no modules.dep written into it" \
	sh -c '[ -f "$1/kernel/virtio_pci.ko.xz" ] && [ ! -e "$1/kernel/virtio_pci.ko" ] && [ ! -e "$1/modules.dep" ]' \
	_ "$work/victim/$trel"
# A tar differential (issue 48): a regular file named './lib/' whose 512
# bytes of data are a header of './lib/modules -> a host directory'. The check
# skipped the data; GNU tar (dpkg-deb -x) reads './lib/' as a directory and
# its data as that link, and depmod then wrote into the host directory.
mkdir -p "$work/deb-diff" "$work/outside-diff"
python3 - "$trel" "$work/outside-diff" "$work/deb-diff/data.tar.gz" "$work/config" <<'PY'
import io, sys, tarfile
rel, outside, out, config = sys.argv[1:5]
def add(tf, name, data=None, kind=tarfile.REGTYPE):
    ti = tarfile.TarInfo(name); ti.type = kind; ti.uname = ti.gname = "root"
    ti.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    if data is not None: ti.size = len(data)
    tf.addfile(ti, io.BytesIO(data) if data is not None else None)
hidden = tarfile.TarInfo("./lib/modules"); hidden.type = tarfile.SYMTYPE; hidden.linkname = outside
with tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT) as tf:
    add(tf, "./", kind=tarfile.DIRTYPE); add(tf, "./boot/", kind=tarfile.DIRTYPE)
    add(tf, "./boot/vmlinuz-" + rel, b"bzimage\n"); add(tf, "./boot/config-" + rel, open(config, "rb").read())
    add(tf, "./lib/", hidden.tobuf(format=tarfile.GNU_FORMAT))
PY
printf '2.0\n' >"$work/deb-diff/debian-binary"
printf 'Package: linux-image-%s\nVersion: 1.0\nArchitecture: all\nMaintainer: memhp-lab <lab@localhost>\nDescription: trust test package\n' "$trel" >"$work/deb-diff/control"
tar -czf "$work/deb-diff/control.tar.gz" -C "$work/deb-diff" ./control &&
	(cd "$work/deb-diff" && ar q "$work/deb-diff.deb" debian-binary control.tar.gz data.tar.gz 2>/dev/null)
deb_diff() {	# refused naming the member, and nothing written into the host directory the hidden link names
	expect_out=$(kernel/package.sh --deb "$1" 2>&1) && { echo "accepted: $expect_out"; return 1; }
	grep -q "member './lib/' .*a regular file whose name ends in '/': tar would read it as a directory" <<<"$expect_out" &&
		[ -z "$(ls -A "$2")" ] && dpkg-deb -c "$1" | grep -q ' \./lib/$'
}
ok "package.sh --deb: a regular file './lib/' whose data tar would read as './lib/modules -> a host directory' is refused naming it; the host directory stays empty" \
	deb_diff "$work/deb-diff.deb" "$work/outside-diff"
# The extraction itself (memhp-kmod extract, what package.sh unpacks with):
# the same archive straight to it, no `members` before, is refused by the
# check it runs on every block; a tree holding anything the archive did not
# list (here planted before) is refused by the lstat walk after.
ok "memhp-kmod extract: that archive straight to the extractor is refused naming './lib/'; the host directory stays empty" \
	sh -c 'mkdir "$3" && ! dpkg-deb --fsys-tarfile "$1" | "$MEMHP_KMOD" extract who "$3" 2>"$3.err" &&
		grep -q "member .\./lib/. .*a regular file whose name ends in ./.: tar would read it" "$3.err" && [ -z "$(ls -A "$2")" ]' \
	_ "$work/deb-diff.deb" "$work/outside-diff" "$work/x-diff"
ok "memhp-kmod extract: a path in the tree that no member names (planted before the extraction) refuses the package by the walk" \
	sh -c 'mkdir -p "$2/lib/modules" && ln -s /etc "$2/lib/modules/planted" && ! dpkg-deb --fsys-tarfile "$1" | "$MEMHP_KMOD" extract who "$2" 2>"$2.err" &&
		grep -q "holds .lib/modules/planted. (a link), which no member of the package names: refused" "$2.err"' \
	_ "$work/good.deb" "$work/x-planted"
ok "memhp-kmod extract: the well-formed package unpacks, every path one of its members (the walk says how many)" \
	sh -c 'mkdir "$2" && dpkg-deb --fsys-tarfile "$1" | "$MEMHP_KMOD" extract who "$2" 2>"$2.err" &&
		grep -q "members extracted into .*; the tree holds them alone" "$2.err" && [ -f "$2/lib/modules/$3/kernel/virtio_pci.ko.xz" ]' \
	_ "$work/good.deb" "$work/x-good" "$trel"
expect_fail "package.sh --deb: boot/System.map a link to a host file: refused naming the member" 1 \
	"member './boot/System.map-$trel'.*symbolic link to an absolute path" kernel/package.sh --deb "$work/deb3b.deb"
expect_fail "package.sh --deb: a module that is a link to a host file: refused naming the member" 1 \
	"member './lib/modules/$trel/kernel/virtio_pci.ko'.*symbolic link to an absolute path" kernel/package.sh --deb "$work/deb3c.deb"
ok "package.sh --deb: a well-formed package still makes its modules cpio (virtio_pci.ko in it, decompressed)" \
	sh -c 'd=$(kernel/package.sh --deb "$1" 2>/dev/null) && zcat "$d/modules.cpio.gz" | cpio -t --quiet | grep -qx "usr/lib/modules/$2/virtio_pci.ko"' \
	_ "$work/good.deb" "$trel"

echo "# trust: a modules tree gives only regular files under it (finding 4)"
expect_fail "package.sh --modules: a modules.dep dependency '../../secret' is refused ('..')" 1 \
	"modules.dep:1: dependency '../../secret' of 'kernel/virtio_pci.ko': a '.' or '..' component" \
	kernel/package.sh --modules "$work/tree4a/$trel" --config "$work/config"
expect_fail "package.sh --modules: a module that is a link to a host file is not followed" 1 \
	"kernel/virtio_pci.ko': a symbolic link" kernel/package.sh --modules "$work/tree4b/$trel" --config "$work/config"
ok "package.sh --modules: a well-formed tree still makes its modules cpio" \
	sh -c 'd=$(kernel/package.sh --modules "$1" --config "$2" 2>/dev/null) && zcat "$d/modules.cpio.gz" | cpio -t --quiet | grep -q "/virtio_pci.ko$"' \
	_ "$work/good-tree/$trel" "$work/config"
# Two package.sh of one package at once shared DIR.tmp (issue 48, low: one
# failed in 4 of 6 tries): four at once, each into a cache of its own round.
pkg_par() {	# 6 rounds of 4 at once of the good tree, each round a fresh cache: every one exits 0 with the same entry
	local r i d
	for r in 1 2 3 4 5 6; do
		d=$work/cache-par$r
		for i in 1 2 3 4; do
			MEMHP_CACHE=$d kernel/package.sh --modules "$1" --config "$2" >"$d.$i.out" 2>"$d.$i.err" &
		done
		wait
		for i in 1 2 3 4; do
			[ -s "$d.$i.out" ] && cmp -s "$d.1.out" "$d.$i.out" || { echo "round $r, run $i: $(tail -n 1 "$d.$i.err")"; return 1; }
		done
		zcat "$(cat "$d.1.out")/modules.cpio.gz" | cpio -t --quiet | grep -q "/virtio_pci.ko$" || { echo "round $r: no cpio"; return 1; }
	done
}
ok "package.sh: 4 of one package at once, 6 rounds: each exits 0 naming the one entry, whole" pkg_par "$work/good-tree/$trel" "$work/config"
# The cache is a trust boundary (issue 48, low: a gup_test.h planted in
# $MEMHP_CACHE/headers/ was compiled into memhp-pin, which runs on the host).
mkdir -p "$work/cache-nobody/headers" "$work/cache-777"
echo '#error planted' >"$work/cache-nobody/headers/gup_test.h"
chown -R nobody "$work/cache-nobody" && chmod 0777 "$work/cache-777"
expect_fail "make with a MEMHP_CACHE another user owns: refused before anything is built from it, naming the owner" 2 \
	"MEMHP_CACHE '$work/cache-nobody': '$work/cache-nobody' is owned by uid 65534, not by root or you" \
	make --no-print-directory -s -C "$top" MEMHP_CACHE="$work/cache-nobody" B="$work/b-nobody" workloads
expect_fail "kernel/package.sh with a MEMHP_CACHE every user can write: refused, saying chmod go-w" 1 \
	"MEMHP_CACHE '$work/cache-777' is writable by every user \(mode 777\).*chmod go-w" \
	env MEMHP_CACHE="$work/cache-777" kernel/package.sh --modules "$work/good-tree/$trel" --config "$work/config"
expect_fail "kernel/build.sh with a cache below a directory every user can write (not sticky): refused" 1 \
	"'$work/cache-777' above it is writable by every user \(mode 777\) and not sticky" \
	env MEMHP_CACHE="$work/cache-777/c" kernel/build.sh 6.12
ok "no file of \$MEMHP_CACHE holds the host file's content (System.map, modules cpios)" no_secret

echo "# trust: a run directory is data (finding 5: run --resume, soak --resume)"
mkdir -p "$work/r5" "$work/r5k" "$work/s5"
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/tree1/$trel}" >"$work/r5/evil.yaml"
printf '{"scenarios": ["%s"]}\n' "$work/r5/evil.yaml" >"$work/r5/run.json"
expect_fail "run --resume: run.json naming a scenario inside the run directory: refused before it is loaded" 2 \
	"run.json': scenarios\\[0\\] '.*/r5/evil.yaml': inside the run directory" $LAB run --resume "$work/r5"
printf '{"scenarios": ["%s"], "kernel_dir": "%s"}\n' "$(realpath scenarios/demo.yaml)" "$work/r5k" >"$work/r5k/run.json"
expect_fail "run --resume: a kernel_dir inside the run directory: refused (a resumed run boots no kernel the directory brings)" 2 \
	"run.json': kernel_dir '.*/r5k': inside the run directory" $LAB run --resume "$work/r5k"
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/tree1/$trel}" >"$work/s5/evil.yaml"
printf '{"trial": "soak:trust:seed=1", "scenario": "%s", "seed": "1", "duration_s": 0, "cycles": 1, "started": "2026-01-01T00:00:00Z"}\n' \
	"$work/s5/evil.yaml" >"$work/s5/soak.json"
expect_fail "soak --resume: soak.json naming a scenario inside the run directory: refused before it is loaded" 2 \
	"soak.json': scenario '.*/s5/evil.yaml': inside the run directory" $LAB soak --resume "$work/s5"

echo "# trust: every file of a run directory through the directory's descriptor, never a link (issue 48)"
# A resumed run (or one given -o) writes started.jsonl, trials.jsonl,
# libvirt.log and sysinfo/pre-resume/ into a directory that may come from
# elsewhere: each planted as a link to a host file or directory here. The
# trial's kernel is no kernel: it fails at once, after its start was
# appended (MEMHP_ACCEL=tcg: no KVM probe).
echo untouched >"$work/victim48"; mkdir -p "$work/victim48d"
sed 's/=m$/=y/' "$work/config" >"$work/config48"	# a kernel without modules: no package.sh
trust_scn "{bzimage: $work/bzImage, config: $work/config48}" >"$work/scn48.yaml"
resume48() {	# DIR: run --resume DIR of the scn6 scenario, stdout and stderr in DIR.out
	printf '{"scenarios": ["%s"]}\n' "$work/scn48.yaml" >"$1/run.json"
	MEMHP_ACCEL=tcg timeout 120 $LAB run -q --initrd "$work/bzImage" --resume "$1" >"$1.out" 2>&1
}
mkdir -p "$work/r48a" "$work/r48b" "$work/r48c" "$work/r48d"
ln -s "$work/victim48" "$work/r48a/libvirt.log" && ln -s "$work/victim48d" "$work/r48a/sysinfo"
resume48 "$work/r48a"; rc48a=$?
ok "run --resume: libvirt.log a link to a host file, sysinfo/ a link to a host directory: exit 2 naming libvirt.log as a link, before any trial started (no started.jsonl); neither written through (file untouched, directory empty)" \
	sh -c '[ "$1" = 2 ] && grep -q "libvirt.log.: a symbolic link" "$2.out" && [ ! -e "$2/started.jsonl" ] &&
		[ "$(cat "$3")" = untouched ] && [ -z "$(ls -A "$4")" ]' _ "$rc48a" "$work/r48a" "$work/victim48" "$work/victim48d"
ln -s "$work/victim48" "$work/r48b/started.jsonl"
resume48 "$work/r48b"
ok "run --resume: started.jsonl a link to a host file: the trial's start not appended through it (refused, naming it as a link), the host file untouched; its record written to trials.jsonl" \
	sh -c 'grep -q "started.jsonl.: a symbolic link" "$1.out" && [ "$(cat "$2")" = untouched ] &&
		[ -f "$1/trials.jsonl" ] && [ ! -L "$1/trials.jsonl" ] && grep -q "\"trial\":\"trust\"" "$1/trials.jsonl"' \
	_ "$work/r48b" "$work/victim48"
mkdir -p "$work/r48e" && ln -s "$work/victim48" "$work/r48e/trials.jsonl"
resume48 "$work/r48e"; rc48e=$?
ok "run --resume: trials.jsonl a link to a host file: refused before any trial started (exit 2, naming it as a link; no started.jsonl), the host file untouched" \
	sh -c '[ "$1" = 2 ] && grep -q "trials.jsonl.: a symbolic link" "$2.out" && [ ! -e "$2/started.jsonl" ] && [ "$(cat "$3")" = untouched ]' \
	_ "$rc48e" "$work/r48e" "$work/victim48"
printf '{"scenarios": ["%s"]}\n' "$work/scn48.yaml" >"$work/r48c/run.json"
chown -R nobody "$work/r48c"
expect_fail "run --resume of a run directory another user owns (nobody): refused before anything is read, naming its owner" 2 \
	"run directory '.*/r48c' is owned by uid [0-9]+, not by you" env MEMHP_ACCEL=tcg $LAB run --initrd "$work/bzImage" --resume "$work/r48c"
chmod 0777 "$work/r48d"
expect_fail "run -o DIR of an empty directory every user may write (0777): refused, naming its mode; nothing written into it" 2 \
	"run directory '.*/r48d' is writable by every user \(mode 0777\)" \
	sh -c 'MEMHP_ACCEL=tcg $1 run --initrd "$2/bzImage" -o "$2/r48d" "$2/scn48.yaml"; rc=$?; [ -z "$(ls -A "$2/r48d")" ] || exit 99; exit $rc' \
	_ "$LAB" "$work"
mkdir -p "$work/s48"
printf '{"trial": "soak:trust:seed=1", "scenario": "%s", "seed": "1", "duration_s": 0, "cycles": 1, "started": "2026-01-01T00:00:00Z"}\n' \
	"$work/scn48.yaml" >"$work/s48/soak.json"
chown -R nobody "$work/s48"
expect_fail "soak --resume of a soak directory another user owns (nobody): refused before anything is read or locked, naming its owner" 2 \
	"soak: run directory '.*/s48' is owned by uid [0-9]+, not by you" env MEMHP_ACCEL=tcg timeout 60 $LAB soak --resume "$work/s48"
# An artifact unpacked by another user: its run directory is root's (copied),
# the scenario its run.json names lies beside it, in the other user's directory.
mkdir -p "$work/art48/run"
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/tree1/$trel}" >"$work/art48/evil.yaml"
printf '{"scenarios": ["%s"]}\n' "$work/art48/evil.yaml" >"$work/art48/run/run.json"
chown nobody "$work/art48"
expect_fail "run --resume: run.json naming a scenario beside the run directory, in a directory another user owns: refused before it is loaded, naming that directory" 2 \
	"scenarios\[0\] '.*/art48/evil.yaml': '.*/art48' is owned by uid [0-9]+, another user" $LAB run --resume "$work/art48/run"

# A guest image with modules (initrd-*.cpio) in a resumed run directory was
# booted as it was: plant a link to a host file at its name, then resume.
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/good-tree/$trel}" >"$work/scn48i.yaml"
echo planted-initrd >"$work/victim48i"
MEMHP_ACCEL=tcg timeout 120 $LAB run -q --initrd "$work/bzImage" -o "$work/r48i" "$work/scn48i.yaml" >"$work/r48i-1.out" 2>&1
for f in "$work"/r48i/initrd-*.cpio; do rm -f "$f" && ln -s "$work/victim48i" "$f"; done
rm -f "$work/r48i/trials.jsonl" "$work"/r48i/*.console.log
MEMHP_ACCEL=tcg timeout 120 $LAB run -q --initrd "$work/bzImage" --resume "$work/r48i" >"$work/r48i-2.out" 2>&1
ok "run --resume: a guest image with modules planted in the run directory (a link to a host file at initrd-*.cpio) is not booted: replaced by the lab's image + modules, the host file untouched" \
	sh -c 'set -- "$1" "$2" "$1"/initrd-*.cpio; [ -f "$3" ] && [ ! -L "$3" ] && [ "$(head -c 8 "$3")" = bzimage ] &&
		[ "$(cat "$2")" = planted-initrd ] && [ "$(grep -c "\"trial\":\"trust\"" "$1/started.jsonl")" = 2 ]' \
	_ "$work/r48i" "$work/victim48i"

echo "# trust: report of a run directory from elsewhere: opened once, its files regular, read a line at a time (issue 48)"
mkdir -p "$work/rep48fifo" "$work/res48fifo"
mkfifo "$work/rep48fifo/trials.jsonl" "$work/res48fifo/trials.jsonl"
printf '{"scenarios": ["%s"]}\n' "$work/scn48.yaml" >"$work/res48fifo/run.json"
expect_fail "report of a run directory whose trials.jsonl is a FIFO: refused as not a regular file within 20 s (it waited for a writer forever)" 2 \
	"trials.jsonl': not a regular file" timeout 20 $LAB report "$work/rep48fifo"
expect_fail "run --resume of a run directory whose trials.jsonl is a FIFO: refused as not a regular file within 20 s, nothing run" 2 \
	"trials.jsonl': not a regular file" env MEMHP_ACCEL=tcg timeout 20 $LAB run --initrd "$work/bzImage" --resume "$work/res48fifo"
rm -rf "$work/rep48big" && cp -r tests/data/report/run "$work/rep48big"
truncate -s +1G "$work/rep48big/trials.jsonl"	# 1 GiB more, sparse: NUL bytes, no newline
/usr/bin/python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1] + ".err", "w")).returncode
open(sys.argv[1], "w").write("%d %d\n" % (rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))' \
	"$work/rep48big.rss" timeout 120 $LAB report "$work/rep48big"
echo "#   report of a 1 GiB sparse trials.jsonl: exit and peak RSS (KiB) $(cat "$work/rep48big.rss")"
ok "report of a run directory whose trials.jsonl ends in a 1 GiB line (sparse): peak RSS under 64 MiB, the line named as too long, the records before it reported" \
	sh -c 'read rc rss <"$1.rss" && [ "$rss" -lt 65536 ] && grep -q "a line longer than 16 MiB" "$1.rss.err" && [ -s "$1/report/index.html" ]' _ "$work/rep48big"
# Another user's run directory whose report/records is a link to a host directory
rm -rf "$work/rep48link" && cp -r tests/data/report/run "$work/rep48link" && mkdir -p "$work/rep48link/report" "$work/victim48r"
ln -s "$work/victim48r" "$work/rep48link/report/records" && chown -R nobody "$work/rep48link"
$LAB report "$work/rep48link" >"$work/rep48link.out" 2>&1
ok "report of another user's run directory whose report/records is a link to a host directory: refused naming it, nothing written through it" \
	sh -c 'grep -q "report/records/[^ ]*: a symbolic link\|records.*: Too many levels of symbolic links" "$1.out" && [ -z "$(ls -A "$2")" ]' \
	_ "$work/rep48link" "$work/victim48r"

echo "# trust: fleet hosts: the transports and query parameters a fleet needs, no other (finding 6); a hosts file's key twice (10)"
printf '#!/bin/sh\ntouch %s\n' "$MHL_TRUST_MARKER" >"$work/evil-ext.sh"
chmod +x "$work/evil-ext.sh"
sed 's/=m$/=y/' "$work/config" >"$work/config-y"	# a kernel without modules: no package.sh
trust_scn "{bzimage: $work/bzImage, config: $work/config-y}" >"$work/scn6.yaml"
trust_fleet() { $LAB run --initrd "$work/bzImage" -o "$work/run6" "$@" "$work/scn6.yaml"; }
expect_fail "run --host qemu+ext:///system?command=SCRIPT: the transport is refused before anything connects (libvirt would run SCRIPT)" 2 \
	"transport 'qemu\+ext' is not one a fleet host is reached by" trust_fleet --host "qemu+ext:///system?command=$work/evil-ext.sh"
expect_fail "run --host qemu+ssh://HOST/system?command=...: the query parameter is refused, named" 2 \
	"the query parameter 'command' is not one a fleet host takes" trust_fleet --host 'qemu+ssh://h.invalid/system?command=/bin/sh'
printf 'hosts:\n  - uri: "qemu+unix:///system?socket=%s/no-sock"\n  - uri: "qemu+tls://h.invalid/system?no_verify=1"\n' "$work" >"$work/hosts6.yaml"
expect_fail "--hosts: no_verify=1 on a host's uri is refused at its line, named" 2 \
	"hosts6.yaml:3: 'qemu\+tls://h.invalid/system\?no_verify=1': the query parameter 'no_verify'" trust_fleet --hosts "$work/hosts6.yaml"
expect_fail "run --host qemu+unix:///system?socket=PATH (what tests/fleet.sh uses) still parses: it gets as far as connecting" 2 \
	"none of the 1 host\(s\) answered" trust_fleet --host "qemu+unix:///system?socket=$work/no-sock"
printf 'hosts:\n  - uri: "qemu+unix:///system?socket=%s/a"\n    uri: "qemu+unix:///system?socket=%s/b"\n' "$work" "$work" >"$work/hosts10.yaml"
expect_fail "--hosts: a host's key given twice is refused at the second (the last no longer wins silently)" 2 \
	"hosts10.yaml:3:5: key 'uri' given twice in one mapping \(first at line 2, column 5\)" trust_fleet --hosts "$work/hosts10.yaml"

printf 'hosts:\n  - uri: "qemu+unix:///system?socket=%s/a"\n    pool: "../etc"\n' "$work" >"$work/hosts18.yaml"
expect_fail "--hosts: a pool that is not a storage pool name ('../etc') is refused at its line (finding 18)" 2 \
	"hosts18.yaml:3:11: pool: not a storage pool name" trust_fleet --hosts "$work/hosts18.yaml"

expect_fail "cleanup --volumes --pool '../etc': a pool that is not a storage pool name is refused before anything connects (finding 18)" 2 \
	"cleanup: --pool: '../etc' is not a storage pool name" $LAB cleanup --uri test:///default --volumes --pool ../etc

# Finding 11: an embedded driver has no storage pool, so every trial's upload
# failed, the host dropped out and the run died on an assertion (exit 134).
expect_fail "run --host 'qemu:///embed?root=DIR' -j 2: refused when the options are read, naming what a fleet host needs (a daemon with a storage pool), nothing written (finding 11)" 2 \
	"--host: 'qemu:///embed\?root=[^']*': an embedded driver \(qemu:///embed\) is not a fleet host: it has no storage pool" \
	sh -c 'mkdir -p "$1/emb11" && $2 run --host "qemu:///embed?root=$1/emb11" -j 2 -o "$1/run11" "$1/scn6.yaml"; rc=$?; [ ! -e "$1/run11" ] || exit 99; exit $rc' \
	_ "$work" "$LAB"

echo "# trust: report --merge reads run.json as data (finding 7)"
mkdir -p "$work/m7"
printf '{"scenarios": ["/x.yaml"], "shard": {"k_of_n": "1/1", "trials": [null]}}\n' >"$work/m7/run.json"
head -n 1 tests/data/report/run/trials.jsonl >"$work/m7/trials.jsonl"
expect_fail "report --merge: a shard whose run.json trials holds null is refused, naming it (no crash)" 2 \
	"shard.trials\[0\] is not a trial id" $LAB report --merge "$work/m7-out" "$work/m7"

echo "# trust: make install (finding 12): no kernel build, file names not split, package.sh and memhp-kmod installed"
# A copy of the checkout with a scenario whose name has a space, a build
# directory of its own holding $B's binaries and guest image (touched newer
# than every source: nothing to rebuild), and an empty kernel cache: install
# must take what the build directory holds and build nothing.
mkdir -p "$work/src12" "$work/b12" "$work/cache12"
git ls-files -z | xargs -0 cp -a --parents -t "$work/src12"
cp scenarios/demo.yaml "$work/src12/scenarios/with space.yaml"
for f in memhp-lab memhp-kmod memhp-lab.1 memhp-lab.bash-completion initramfs.cpio; do cp "$top/$B/$f" "$work/b12/"; done
touch "$work/b12"/*
inst12=$work/inst12
ok "make install from a checkout whose kernel cache is empty (KVERS 6.12 6.1 unbuilt): exit 0, builds no kernel" \
	sh -c 'MEMHP_CACHE="$3" make --no-print-directory -s -C "$1" B="$2" install DESTDIR="$4" PREFIX=/usr >"$5" 2>&1 &&
		! grep -q "^\[kernel\|^\[cc\]" "$5" && [ -z "$(ls -A "$3")" ]' _ "$work/src12" "$work/b12" "$work/cache12" "$inst12" "$work/inst12.out"
ok "installed: 'scenarios/with space.yaml' whole (no word splitting), kernel/package.sh executable, libexec/memhp-lab/memhp-kmod" \
	test -s "$inst12/usr/share/memhp-lab/scenarios/with space.yaml" -a -x "$inst12/usr/share/memhp-lab/kernel/package.sh" \
	-a -x "$inst12/usr/libexec/memhp-lab/memhp-kmod"
trust_scn "{bzimage: $work/bzImage, config: $work/config, modules: $work/good-tree/$trel}" >"$work/scn12.yaml"
ok "the installed memhp-lab check --resolve of a kernel: {modules} scenario runs the installed package.sh with the installed memhp-kmod (MEMHP_KMOD unset)" \
	sh -c 'cd / && env -u MEMHP_KMOD "$1" check --resolve "$2" >"$3" 2>&1 && grep -q "ok: scenario .trust." "$3"' \
	_ "$inst12/usr/bin/memhp-lab" "$work/scn12.yaml" "$work/inst12-check.out"

echo "# trust: the KVM probe's cached answer is keyed on what decided it (finding 13)"
# MEMHP_KVM_DEVICE=/dev/null opens where /dev/kvm may not: the probe runs, and
# QEMU (no usable KVM) exits: a clear "tcg", cached for this host kernel,
# QEMU and guest kernel. Another guest kernel is probed again.
cp "$work/bzImage" "$work/bzImage13a"; echo other-bzimage >"$work/bzImage13b"
trust_scn "{bzimage: $work/bzImage13a, config: $work/config-y}" >"$work/scn13a.yaml"
trust_scn "{bzimage: $work/bzImage13b, config: $work/config-y}" >"$work/scn13b.yaml"
probe13() {	# N SCENARIO: a run (its trial fails: the kernel is no kernel), stderr in probe13-N.err
	MEMHP_KVM_DEVICE=/dev/null MEMHP_CACHE=$work/cache13 timeout 120 env -u MEMHP_KVM_PROBE_EMULATOR $LAB run -q -o "$work/probe13-$1" "$2" \
		>/dev/null 2>"$work/probe13-$1.err"
}
# libvirt's QEMU capabilities kept in the cache (orchestrator/host/capscache.c):
# x86_64's file planted as a link to a host file, i386's as garbage. libvirt
# names each by the SHA-256 of the binary's path.
caps13=$work/cache13/libvirt-qemu-caps
caps_x86=$(printf %s /usr/bin/qemu-system-x86_64 | sha256sum | cut -d' ' -f1).xml
caps_i386=$(printf %s /usr/bin/qemu-system-i386 | sha256sum | cut -d' ' -f1).xml
mkdir -p "$caps13" && ln -s "$work/secret" "$caps13/$caps_x86" && echo '<qemuCaps>garbage' >"$caps13/$caps_i386"
probe13 1 "$work/scn13a.yaml"; probe13 2 "$work/scn13a.yaml"; probe13 3 "$work/scn13b.yaml"
ok "QEMU capabilities cache: a link planted in it is not written through but replaced by libvirt's own file, garbage replaced too, the host file untouched (that a seed reads no link: unit host)" \
	sh -c 'for f in "$1/$2" "$1/$3"; do [ -f "$f" ] && [ ! -L "$f" ] && grep -q "<selfvers>" "$f" && ! grep -q "$4" "$f" || exit 1; done &&
		[ "$(cat "$5")" = "$4" ] && ! grep -rq "$4" "$1"' _ "$caps13" "$caps_x86" "$caps_i386" "$secret" "$work/secret"
ok "libvirt's capabilities probes (one QEMU -daemonize per binary, its cache replaced above) are reaped by memhp-lab: no 'Failed to terminate process' in the first run's libvirt.log" \
	sh -c '[ -s "$1" ] && grep -q "qemu-system" "$2"/* && ! grep -q "Failed to terminate process" "$1"' _ "$work/probe13-1/libvirt.log" "$caps13"
ok "KVM probe: probed on the first run (its record says so; -q: no probe line on stderr), cached (one line, keyed on host kernel, QEMU and bzImage13a) for the second, whose record says so" \
	sh -c 'jq -e ".domain.accel_reason | startswith(\"KVM probe did not boot\")" "$1/probe13-1/trials.jsonl" >/dev/null &&
		! grep -q "probing KVM" "$1/probe13-1.err" "$1/probe13-2.err" &&
		grep -q "^tcg	host .*; emulator .*; kernel .*/bzImage13a " "$1/cache13/accel-probe" &&
		jq -e ".domain.accel_reason | startswith(\"cached probe\")" "$1/probe13-2/trials.jsonl" >/dev/null' _ "$work"
ok "KVM probe: another guest kernel is probed again (not the first kernel's cached answer); the cache keeps both" \
	sh -c 'jq -e ".domain.accel_reason | startswith(\"KVM probe did not boot\")" "$1/probe13-3/trials.jsonl" >/dev/null &&
		[ "$(grep -c "^tcg	" "$1/cache13/accel-probe")" = 2 ]' _ "$work"

echo "# trust: apt as root (finding 19): no fixed /tmp log, apt's privilege drop kept, cache files with their own modes"
# deps.sh with a list naming a package apt does not have: its log is a new
# file of its own, not /tmp/memhp-deps.log planted here as a link.
echo untouched >"$work/victim19"
planted=/tmp/memhp-deps.log
[ -e "$planted" ] || [ -L "$planted" ] || { ln -s "$work/victim19" "$planted" && planted_ours=1; }
echo memhp-lab-no-such-package >"$work/deps19.list"
MEMHP_DEPS_LIST=$work/deps19.list tools/deps.sh >"$work/deps19.out" 2>&1
deps19=$?
[ -z "${planted_ours:-}" ] || rm -f "$planted"
ok "deps.sh, apt-get install failing: exit 1, the log it names is a new 0600 file of its own (not /tmp/memhp-deps.log), the link planted there not written through" \
	sh -c '[ "$1" = 1 ] && log=$(sed -n "s/^Error: apt-get install failed; log: //p" "$2") && [ -n "$log" ] &&
		[ "$log" != /tmp/memhp-deps.log ] && [ -f "$log" ] && [ ! -L "$log" ] && [ "$(stat -c %a "$log")" = 600 ] &&
		grep -q "memhp-lab-no-such-package" "$log" && [ "$(cat "$3")" = untouched ] && rm -f "$log"' \
	_ "$deps19" "$work/deps19.out" "$work/victim19"
# kernel packages from apt: a small package fetched the same way, under strace
mkdir -p "$work/apt19"
hver=$(apt-cache show hostname 2>/dev/null | sed -n 's/^Version: //p' | sed -n 1p)
ok "kernel/apt-download.sh (package.sh's apt fetch) as root: apt's method drops to _apt (setresuid to its uid), the .deb a 0644 root file; no APT::Sandbox::User outside comments in kernel/, tools/ or tests/ (but this grep)" \
	sh -c 'u=$(id -u _apt) && deb=$(strace -f -o "$1/st19" -e trace=setresuid kernel/apt-download.sh "hostname=$2" "$1/apt19" 2>/dev/null) &&
		grep -q "setresuid($u, $u, $u) *= 0" "$1/st19" && [ -f "$deb" ] && [ "$(stat -c "%a %U" "$deb")" = "644 root" ] &&
		! grep -rn --exclude=trust.sh "^[^#]*APT::Sandbox::User" kernel tools tests' _ "$work" "$hver"
ok "package.sh --modules under umask 077 with a 0600 config: the cache's files get 0644, not the copied files' modes" \
	sh -c 'cp "$2" "$1/config19" && chmod 0600 "$1/config19" && echo "# $RANDOM" >>"$1/config19" &&
		d=$(umask 077 && kernel/package.sh --modules "$3" --config "$1/config19" 2>/dev/null) &&
		for f in modules.cpio.gz modules.list; do [ "$(stat -c %a "$d/$f")" = 644 ] || exit 1; done' \
	_ "$work" "$work/config" "$work/good-tree/$trel"

# The guest image: what it copies from the host gets modes of its own, not
# the copied file's or the umask's (the mktemp -d root was the guest's /, 0700).
ok "workloads/mkinitramfs.sh under umask 077: the image file 0644; in it / and every directory 0755, memhp-pin, busybox, qemu-ga, numactl, a kselftest and the loader 0755, etc/passwd 0644, nothing else" \
	sh -c '(umask 077 && workloads/mkinitramfs.sh "$1/img19.cpio" "$2" "$3") >/dev/null 2>&1 || exit 1
		[ "$(stat -c %a "$1/img19.cpio")" = 644 ] || exit 1
		cpio -tv --quiet <"$1/img19.cpio" >"$1/img19.list" || exit 1
		for f in . bin/memhp-pin bin/busybox usr/sbin/qemu-ga bin/numactl bin/ksft/${3##*/} etc/passwd; do
			m=$(awk -v f="$f" "\$NF == f {print \$1}" "$1/img19.list")
			w=-rwxr-xr-x; [ "$f" != . ] || w=drwxr-xr-x; [ "$f" != etc/passwd ] || w=-rw-r--r--
			[ "$m" = "$w" ] || { echo "$f: $m, not $w"; exit 1; }
		done
		grep -q "^-rwxr-xr-x .* lib.*/ld-linux" "$1/img19.list" &&
		! awk "\$1 !~ /^(drwxr-xr-x|-rwxr-xr-x|-rw-r--r--|lrwxrwxrwx)\$/" "$1/img19.list" | grep -q .' \
	_ "$work" "$top/$B/memhp-pin" "$top/$B/ksft/gup_longterm_counters"

echo "# trust: a second YAML document in a scenario or hosts file is refused (libyaml would read the first only)"
{ cat scenarios/demo.yaml; printf -- '---\nname: other\n'; } >"$work/twodocs.yaml"
expect_fail "check: a scenario file with a second document ('---') is refused at its line" 1 \
	"twodocs.yaml:[0-9]+:1: a second YAML document \('---'\); the file must hold one" $LAB check "$work/twodocs.yaml"
printf 'hosts:\n  - uri: "qemu+unix:///system?socket=%s/a"\n---\nhosts: []\n' "$work" >"$work/hosts-2doc.yaml"
expect_fail "--hosts: a hosts file with a second document is refused at its line" 2 \
	"hosts-2doc.yaml:3:1: a second YAML document" trust_fleet --hosts "$work/hosts-2doc.yaml"

echo "# trust: bash completion: soak --seeds is a list of seeds, not of report formats (issue 48, Low)"
$LAB --bash-completion >"$work/compl48"
compl48() {	# WORDS...: what the completion offers for the last word, one line
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		$(complete -p memhp-lab | sed -n "s/.*-F \([^ ]*\) .*/\1/p") memhp-lab "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$work/compl48" "$@" 2>/dev/null | xargs
}
ok "completion: 'soak --seeds <TAB>' offers nothing (it offered html junit ktap kcidb); 'report -f <TAB>' still the formats" \
	sh -c '[ -z "$1" ] && [ "$2" = "html junit ktap kcidb html,junit,ktap,kcidb" ]' _ \
	"$(compl48 memhp-lab soak --seeds '')" "$(compl48 memhp-lab report -f '')"

ok "no reproducer ran a command: the marker file does not exist" test ! -e "$MHL_TRUST_MARKER"
unset trel secret
