# tests/basics.sh - the command line's bad input, and `make install` into a
# temporary DESTDIR whose memhp-lab finds its data from its prefix. No guest.
plan 29
echo "# bad input"
expect_fail "no command" 2 'usage: memhp-lab' $LAB
expect_fail "unknown command, naming every command" 2 \
	"unknown command 'frobnicate' \(commands: run, soak, check, report, doctor, cleanup, help\)" $LAB frobnicate
ok "--version and -V print 'memhp-lab VERSION'" \
	sh -c '"$1" --version | grep -qx "memhp-lab [^ ][^ ]*" && [ "$("$1" -V)" = "$("$1" --version)" ]' _ "$LAB"
expect_fail "unknown option" 2 "unknown option.*--bogus" $LAB run --bogus scenarios/demo.yaml
expect_fail "missing scenario file" 2 "cannot open scenario '/nonexistent/s.yaml'" $LAB run /nonexistent/s.yaml
printf 'name: x\nnodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 5M}\n' >"$work/bad.yaml"
expect_fail "bad scenario names file:line:col" 1 "$work/bad.yaml:4:17: virtio_mem" $LAB check "$work/bad.yaml"
# check's exit status tells a refused file (1) from a usage error (2), as
# docs/cli.md says: no file named and an unknown option are usage errors.
check_usage() {
	local rc1 rc2
	$LAB check >/dev/null 2>"$work/cu1.err"; rc1=$?
	$LAB check --no-such-option scenarios/demo.yaml >/dev/null 2>"$work/cu2.err"; rc2=$?
	[ "$rc1" = 2 ] && [ "$rc2" = 2 ] && grep -q "expected at least one SCENARIO" "$work/cu1.err" &&
		grep -q "unknown option or missing value: '--no-such-option'" "$work/cu2.err"
}
ok "check with no file, and with an unknown option: exit 2 (usage), not 1 (a file refused)" check_usage
printf 'pin_policy: sometimes\nnodes:\n  - memory: 1G\n    cpus: 0\nsteps:\n  - dance: {}\n' >"$work/three.yaml"
expect_fail "run of a scenario with three errors: refused before anything runs, naming the first and how many more check lists" 2 \
	"^error: $work/three.yaml:1:13: unknown pin_policy 'sometimes' .* \(and 2 more error\(s\) in the file: memhp-lab check $work/three.yaml lists every one\)$" \
	$LAB run -o "$work/three" "$work/three.yaml"
expect_fail "unreachable URI" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/sock'" \
	$LAB run -o "$work/uri" --uri 'qemu+unix:///system?socket=/nonexistent/sock' scenarios/demo.yaml
expect_fail "-c/--connect, virsh's name for --uri" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/sock'" \
	$LAB run -o "$work/uri-c" -c 'qemu+unix:///system?socket=/nonexistent/sock' scenarios/demo.yaml
expect_fail "LIBVIRT_DEFAULT_URI honoured as virsh does" 2 "cannot connect to libvirt at 'qemu\+unix:///system\?socket=/nonexistent/env'" \
	env LIBVIRT_DEFAULT_URI='qemu+unix:///system?socket=/nonexistent/env' $LAB run -o "$work/uri-env" scenarios/demo.yaml
ok "check accepts the demo scenario" $LAB check scenarios/demo.yaml
ok "check takes several files: every shipped scenario passes (scenarios/*.yaml scenarios/*/*.yaml)" \
	$LAB check scenarios/*.yaml scenarios/*/*.yaml
expect_fail "check of a good and a bad file: exit 1, the bad one named, the count said" 1 \
	"check: 1 of 2 scenario file\(s\) refused" $LAB check scenarios/demo.yaml "$work/bad.yaml"
echo "# check: expectations that could never hold given the steps before them, sizes as virsh reads them"
vmem='nodes:\n  - memory: 1G\n  - memory: 128M\n    virtio_mem: {size: 1G, block: 2M, requested: %s}\nsteps:\n'
printf "$vmem"'  - resize: {node: 1, requested: 512M}\n  - expect: {integrity: true}\n' 0 >"$work/integrity.yaml"
expect_fail "check refuses expect integrity before any check, io or release, naming its key's file:line:col" 1 \
	"$work/integrity.yaml:7:14: expect: 'integrity' needs a check, io or release step before it" $LAB check "$work/integrity.yaml"
printf "$vmem"'  - resize: {node: 1, requested: 512M}\n  - expect: {unplug: reached, host_reclaimed: ">=90%%"}\n' 0 >"$work/grow.yaml"
expect_fail "check refuses expect host_reclaimed after only a grow (the host gets nothing back)" 1 \
	"$work/grow.yaml:7:31: expect: 'host_reclaimed' needs a resize step that shrinks a virtio_mem device before it" \
	$LAB check "$work/grow.yaml"
printf "$vmem"'  - pin: {id: p, size: 2MiB}\n  - resize: {node: 1, requested: 0}\n  - release: {id: p}\n  - expect: {host_reclaimed: ">=90%%", integrity: true}\n' 1G >"$work/holds.yaml"
ok "check accepts host_reclaimed after a shrink and integrity after a release" $LAB check "$work/holds.yaml"
printf 'nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: p, size: 1GB}\n' >"$work/decimal.yaml"
expect_fail "check: a pin of 1GB is 10^9 bytes as in virsh, no whole number of pages: refused at its size" 1 \
	"$work/decimal.yaml:5:18: pin: size 1000000000 bytes is no whole number of 4 KiB pages" $LAB check "$work/decimal.yaml"
printf "$vmem" 2g >"$work/binary.yaml"
expect_fail "check: 2g is 2 GiB (a unit letter alone is binary, as in virsh): more than the 1 GiB device, refused" 1 \
	"$work/binary.yaml:4:17: virtio_mem: size \(1073741824\) .*requested \(2147483648\)" $LAB check "$work/binary.yaml"
printf "$vmem" 1000MB >"$work/mb.yaml"
expect_fail "check: requested 1000MB is 10^9 bytes as in virsh (not 1000 MiB), no multiple of the 2 MiB block: refused" 1 \
	"$work/mb.yaml:4:17: virtio_mem: .*requested \(1000000000\)" $LAB check "$work/mb.yaml"
expect_fail "soak --seed -1 (strtoull would wrap it to 2^64-1)" 2 "--seed '-1' is not a non-negative integer" \
	$LAB soak --seed -1 scenarios/soak.yaml

echo "# install: make install into a temporary DESTDIR; the installed memhp-lab finds its data from its prefix"
# A DESTDIR with a space and a quote: every path of the install recipe is one
# shell word (issue 30, finding 12), so each check below also guards that.
inst="$work/inst with space 'q'"
share=$inst/usr/share/memhp-lab
ILAB=$inst/usr/bin/memhp-lab
ok "make install DESTDIR=\"\$work/inst with space 'q'\" PREFIX=/usr" make --no-print-directory B="$B" install DESTDIR="$inst" PREFIX=/usr
ok "installed: bin/memhp-lab; share/memhp-lab/ with the guest image, domains/, scenarios/ (and subfolders), kernel's required.list files, docs" \
	test -x "$ILAB" -a -s "$share/initramfs.cpio" -a -s "$share/domains/numa-virtio-mem.xml" \
	-a -s "$share/scenarios/demo.yaml" -a -s "$share/scenarios/capacity/zones.yaml" -a -s "$share/kernel/required.list" \
	-a -s "$share/kernel/patches/6.12/required.list" -a -s "$share/kernel/patches/6.1/required.list" \
	-a -s "$share/README.md" -a -s "$share/docs/architecture.md" -a -s "$inst/usr/share/doc/memhp-lab/README.md" \
	-a -s "$inst/usr/share/doc/memhp-lab/docs/architecture.md"
ok "installed memhp-lab --version is build/memhp-lab's" sh -c '[ "$("$1" --version)" = "$("$2" --version)" ]' _ "$ILAB" "$LAB"
ok "installed memhp-lab checks the installed scenarios/demo.yaml (run from /)" \
	sh -c 'cd / && "$1" check "$2"' _ "$ILAB" "$share/scenarios/demo.yaml"
# A package kernel (kernel: {deb}): only the installed kernel/package.sh can
# unpack it, with the installed libexec/memhp-lab/memhp-kmod (MEMHP_KMOD
# unset, run from /: nothing of the checkout is reachable). A tiny
# linux-image .deb: the lab's required options built in, virtio_pci a module.
ideb=$work/ideb rel=9.9.9-inst
mkdir -p "$ideb/DEBIAN" "$ideb/boot" "$ideb/lib/modules/$rel/kernel"
printf 'Package: linux-image-%s\nVersion: 1.0\nArchitecture: all\nMaintainer: memhp-lab <lab@localhost>\nDescription: install test\n' \
	"$rel" >"$ideb/DEBIAN/control"
echo bzimage >"$ideb/boot/vmlinuz-$rel"
grep -v '^#' kernel/required.list | sed -e '/^$/d' -e 's/|.*//' -e 's/^/CONFIG_/' -e 's/$/=y/' -e 's/^CONFIG_VIRTIO_PCI=y$/CONFIG_VIRTIO_PCI=m/' \
	>"$ideb/boot/config-$rel"
echo junk | xz >"$ideb/lib/modules/$rel/kernel/virtio_pci.ko.xz"
dpkg-deb --root-owner-group -b "$ideb" "$work/inst.deb" >/dev/null
printf 'name: instdeb\nkernel: {deb: %s}\nnodes:\n  - memory: 512MiB\n  - memory: 128MiB\n    virtio_mem: {size: 256MiB, block: 2MiB, requested: 256MiB}\nsteps:\n  - snapshot:\n' \
	"$work/inst.deb" >"$work/instdeb.yaml"
ok "installed memhp-lab check --resolve of a kernel: {deb} scenario (run from /, MEMHP_KMOD unset): the installed package.sh unpacks it with the installed memhp-kmod into MEMHP_CACHE" \
	sh -c 'cd / && env -u MEMHP_KMOD MEMHP_CACHE="$3" "$1" check --resolve "$2" >"$4" 2>&1 &&
		grep -q "ok: scenario .instdeb." "$4" && [ -s "$(find "$3/kernel/pkg" -name modules.list | head -n 1)" ]' \
	_ "$ILAB" "$work/instdeb.yaml" "$work/inst-cache" "$work/inst-deb.out"
sed 's/^/#   /' "$work/inst-deb.out" | tail -n 3
timed "$ok_timeout" sh -c 'cd / && exec "$1" doctor' _ "$ILAB" >"$work/inst-doctor.out" 2>&1
sed 's/^/#   /' "$work/inst-doctor.out"
ok "installed doctor: the guest image found in the prefix" \
	grep -qx "ok   guest image  *$share/initramfs.cpio" "$work/inst-doctor.out"
ok "installed doctor: the domain template found in the prefix" \
	grep -qx "ok   domain template  *$share/domains/numa-virtio-mem.xml" "$work/inst-doctor.out"
ok "installed doctor: both kernels pass against the prefix's kernel/required.list" \
	sh -c 'grep -q "^ok   kernel 6.12 " "$1" && grep -q "^ok   kernel 6.1 " "$1"' _ "$work/inst-doctor.out"

