# tests/workloads.sh - the pinning workloads of `make check` (gup, io_uring,
# vfio, vfio-noiommu, rdma), sourced by tests/run.sh (uses its ok/expect_fail
# helpers, $LAB, $B, $work and the jq test $balanced). Bad input of
# memhp-pin runs on this host (the binary is static), and io_uring's pins,
# traced: nothing there may load or configure anything in this host's
# kernel (the modes and backings that would are refused); each mode then pins
# memory that starts in ZONE_MOVABLE on the real guest, the node's virtio-mem
# device is unplugged, and the record must show the pin, no pinned page in
# ZONE_MOVABLE, intact I/O or DMA after the unplug, and the unplug reaching
# its request.
plan 94 full 109
PIN=$B/memhp-pin

echo "# workloads: memhp-pin's bad input (on this host: one JSON object with \"error\", exit non-zero)"
# pin_json DESC EXIT JQ CMD...: CMD exits EXIT, prints one JSON object matching
# JQ, and a one-line message to stderr when it fails (none when it does not).
pin_json() {
	local desc=$1 want=$2 expr=$3; shift 3
	"$@" >"$work/pin.out" 2>"$work/pin.err"
	local rc=$?
	ok "$desc (exit $want)" test "$rc" = "$want" -a "$(wc -l <"$work/pin.out")" = 1 -a \
		"$(wc -l <"$work/pin.err")" = "$([ "$want" = 0 ] && echo 0 || echo 1)"
	ok "$desc: JSON $expr" jq -e "$expr" "$work/pin.out"
}
pin_json "unknown mode" 2 '.ok == false and (.error | test("unknown mode .frob.*known: gup, io_uring, vfio, vfio-noiommu"))' \
	$PIN frob --id x --size 4M
pin_json "unknown backing" 2 '.ok == false and .errno_name == "EINVAL" and (.error | test("--backing.*known: anon, thp, hugetlb, memfd"))' \
	$PIN gup --id x --size 4M --backing pmem
pin_json "a size that does not fit the node" 2 '.ok == false and (.error | test("does not fit node 0 \\(MemTotal [0-9]+ bytes\\)"))' \
	$PIN gup --id x --size 4096G --node 0
pin_json "a node the machine does not have" 2 '.ok == false and (.error | test("no such NUMA node: --node 63"))' \
	$PIN gup --id x --size 4M --node 63
pin_json "a read-only pin by a mode that writes" 2 '.ok == false and (.error | test("--touch read .*is for gup only"))' \
	$PIN io_uring --id x --size 4M --touch read
pin_json "a split of a buffer that is not THP" 2 '.ok == false and (.error | test("--split needs --backing thp"))' \
	$PIN gup --id x --size 4M --split mprotect
pin_json "an unknown split" 2 '.ok == false and (.error | test("unknown --split .known: mprotect, munmap"))' \
	$PIN gup --id x --size 4M --backing thp --split madvise
# No gup_test and no edu device: an empty tmpfs over debugfs and the PCI device list.
pin_json "missing gup_test" 1 '.ok == false and .errno_name == "ENOENT" and (.error | test("open /sys/kernel/debug/gup_test"))' \
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/debug && exec $PIN gup --id nogup --size 4M"
# The modes that configure the kernel they run on (rdma: a dummy netdev and an
# rxe link, whose NEWLINK would autoload rdma_rxe and dummy into this
# machine's kernel; vfio: a driver binding; kmem: a tmpfs; leak: a module)
# refuse to run outside a memhp-lab guest (memhp_guest=1 on the guest's
# kernel command line), before any syscall that could: strace shows none.
pin_json "rdma on this host: refused, not a memhp-lab guest (it would create an rxe link)" 2 \
	'.ok == false and .errno_name == "EINVAL" and (.error | test("runs only in a memhp-lab guest"))' $PIN rdma --id nordma --size 4M
pin_json "vfio on this host: refused, not a memhp-lab guest (it would bind a device)" 2 \
	'.ok == false and (.error | test("runs only in a memhp-lab guest"))' $PIN vfio --id nodev --size 4M
ok "memhp-pin rdma, rdma-odp, vfio, vfio-noiommu, kmem and leak on this host: each exits 2 having opened no netlink socket, written no file under /sys, mounted nothing, loaded no module (strace)" \
	sh -c 'for m in rdma rdma-odp vfio vfio-noiommu kmem leak; do
			a="--id host-$m --size 4M"; [ "$m" = leak ] && a="--id host-$m"
			strace -f -o "$2/strace-$m" -e trace=socket,openat,mount,init_module,finit_module "$1" $m $a >/dev/null 2>&1
			[ $? = 2 ] || exit 1
			! grep -E "AF_NETLINK|openat\\(.*\"/sys/.*O_(WRONLY|RDWR)|mount\\(|init_module\\(" "$2/strace-$m" || exit 1
		done' _ "$PIN" "$work"
# --backing hugetlb grows the node's hugetlb pool (nr_hugepages) before the
# pin: the host's pool, outside a guest. Refused for every mode; a private
# tmpfs stands in for node0's sysfs directory, so even a memhp-pin that
# wrote would only write there (and the check sees it).
ok "gup and io_uring --backing hugetlb on this host: each exits 2 (refused: it would grow this machine's hugetlb pool), opening nothing under /sys for writing, node0's nr_hugepages (a private tmpfs) still 0 (strace)" \
	unshare -m sh -c 'mount -t tmpfs none /sys/devices/system/node || exit 1
		d=/sys/devices/system/node/node0/hugepages/hugepages-2048kB && mkdir -p $d && echo 0 >$d/nr_hugepages || exit 1
		for m in gup io_uring; do
			strace -f -o "$2/strace-hugetlb-$m" -e trace=openat "$1" $m --id host-huge-$m --size 4M --backing hugetlb >"$2/hugetlb-$m.out" 2>&1
			[ $? = 2 ] && grep -q "runs only in a memhp-lab guest.*hugetlb pool" "$2/hugetlb-$m.out" || exit 1
			! grep -E "openat\(.*\"/sys/.*O_(WRONLY|RDWR)" "$2/strace-hugetlb-$m" || exit 1
			[ "$(cat $d/nr_hugepages)" = 0 ] || exit 1
		done' _ "$PIN" "$work"
# What still runs on this host (io_uring and gup's bad input, io_uring's pins
# below) asks the kernel for nothing that could load or configure anything:
# traced, a pin, check and release of each io_uring backing used here make
# only AF_UNIX sockets (the holder's), open no file under /sys or /proc/sys
# for writing, no device but /dev/null, mount nothing, load no module.
ok "io_uring on this host under strace (pin, check, release; memfd, and THP split by munmap): sockets AF_UNIX only, nothing under /sys or /proc/sys opened for writing, no device but /dev/null, no mount, no module load; /proc/modules (where this host has one) unchanged" \
	sh -c 'm0=$(cat /proc/modules 2>/dev/null); t=$2/strace-uring
		strace -f -o "$t" -e trace=socket,open,openat,mount,init_module,finit_module,io_uring_setup sh -c "
			\"\$1\" io_uring --id hosttrace --size 8M --backing memfd && \"\$1\" ctl hosttrace check && \"\$1\" ctl hosttrace release &&
			\"\$1\" io_uring --id hosttrace2 --size 8M --backing thp --split munmap && \"\$1\" ctl hosttrace2 release" _ "$1" >/dev/null 2>&1 || exit 1
		[ "$(grep -c "io_uring_setup(.* = [0-9]" "$t")" = 2 ] || exit 1
		! grep "socket(" "$t" | grep -v "socket(AF_UNIX," || exit 1
		! grep -E "open(at)?\(.*\"/(sys|proc/sys)/[^\"]*\", [^)]*O_(WRONLY|RDWR)" "$t" || exit 1
		! grep -E "open(at)?\(.*\"/dev/" "$t" | grep -v "\"/dev/null\"" || exit 1
		! grep -E "mount\(|init_module\(" "$t" || exit 1
		[ "$(cat /proc/modules 2>/dev/null)" = "$m0" ]' _ "$PIN" "$work"
# io_uring's I/O file is a fixed name in /tmp (/tmp/memhp-ID.io): a link
# planted there by another user is removed, never written through as root.
echo untouched >"$work/victim20"
planted20=/tmp/memhp-hostlink.io
[ -e "$planted20" ] || [ -L "$planted20" ] || { ln -s "$work/victim20" "$planted20" && planted20_ours=1; }
"$PIN" io_uring --id hostlink --size 4M --backing memfd >"$work/hostlink.out" 2>&1 && "$PIN" ctl hostlink release >>"$work/hostlink.out" 2>&1
hostlink_rc=$?
ok "io_uring on this host: a link planted at /tmp/memhp-hostlink.io (its I/O file) is not written through (the file it names untouched), the pin and release still succeed" \
	sh -c '[ "$1" = 0 ] && [ -n "$4" ] && [ "$(cat "$2")" = untouched ] && [ ! -e "$3" ] && [ ! -L "$3" ]' \
	_ "$hostlink_rc" "$work/victim20" "$planted20" "${planted20_ours:-}"
[ -z "${planted20_ours:-}" ] || rm -f "$planted20"
# A THP buffer split at every PMD (munmap + a fresh page) before io_uring pins it:
# nothing PMD-mapped is left, the data (the fresh pages included) stays right.
pin_json "io_uring on this host: THP buffer (8 MiB PMD-mapped) split by munmap, no PMD mapping left, I/O intact" 0 \
	'.ok and .split == "munmap" and .pmd_mapped_before_split == 8388608 and .pmd_mapped_after_split == 0 and .io.ok and .pattern_ok and (.census_before | has("thp") and has("zero") and has("cma"))' \
	$PIN io_uring --id hostsplit --size 8M --backing thp --split munmap
ok "io_uring on this host: the split buffer's holder releases" \
	sh -c "$PIN ctl hostsplit release | jq -e '.ok and .released and .pattern_ok'"
# io_uring pins on this host too: pin, check through the registered buffers, release.
pin_json "io_uring on this host: 8 MiB registered, I/O through the fixed buffers intact" 0 \
	'.ok and .bytes_pinned == 8388608 and .io_uring.buffers == 1 and .io.ok and .io.chunks == 64' \
	$PIN io_uring --id hostring --size 8M --backing memfd
ok "io_uring on this host: check answers with the I/O and the pattern intact" \
	sh -c "$PIN ctl hostring check | jq -e '.ok and .io.ok and .pattern_ok'"
ok "io_uring on this host: release unpins (bytes_pinned 0) and the holder exits" \
	sh -c "$PIN ctl hostring release | jq -e '.ok and .released and .bytes_pinned == 0' && sleep 0.5 && ! test -e /run/memhp/hostring.sock"

ok "the guest image has numactl with its libnuma" \
	sh -c "cpio -t --quiet <$B/initramfs.cpio | grep -qx bin/numactl && cpio -t --quiet <$B/initramfs.cpio | grep -q 'libnuma\.so'"

echo "# workloads: scenario keys of the pin step and devices (memhp-lab check)"
sc() { printf 'name: w\nnodes:\n  - memory: 1G\n%s\nsteps:\n  - pin: {id: p, size: 4MiB, node: 0, %s}\n' "$1" "$2" >"$work/w.yaml"; }
# description | top-level line | pin keys | what the error says
while IFS='|' read -r desc toplevel keys says; do	# not $top: run.sh's checkout path
	sc "$toplevel" "$keys"
	expect_fail "$desc" 1 "$says" $LAB check "$work/w.yaml"
done <<'EOF'
unknown workload, naming the known ones||workload: nvme|w.yaml:6:.*unknown workload 'nvme' \(known: gup, io_uring, vfio, vfio-noiommu, rdma, rdma-odp, hold, kmem\)
unknown backing||backing: pmem|unknown backing 'pmem' \(known: anon, thp, hugetlb, memfd\)
unknown touch||touch: later|unknown touch 'later' \(known: before, pin, read\)
fails_with that is no errno or signal name||fails_with: 12|fails_with: '12' is not an errno name
devices: a value that is not true/false|devices: {iommu: yes}|workload: vfio|devices: iommu: expected true or false, not 'yes'
devices: an unknown device|devices: {iommu: true, gpu: true}|workload: vfio|unknown key 'gpu' in devices \(known: iommu, edu, balloon, free_page_reporting\)
EOF
for f in pin-gup pin-io-uring pin-vfio pin-vfio-noiommu pin-rdma pin-multi pin-enomem pin-throughput; do
	ok "check accepts scenarios/$f.yaml" $LAB check scenarios/$f.yaml
done

# A kernel with rxe as a module (Debian's generic kernels): the guest's init
# loads no module for it, so an rdma pin is skipped, saying why.
rxe_art=$(cat "$cache/kernel/6.12/rdma")
sed 's/^CONFIG_RDMA_RXE=y$/CONFIG_RDMA_RXE=m/' "$rxe_art/config" >"$work/rxe-m.config"
printf 'name: rxem\nkernel: {bzimage: %s/bzImage, config: %s}\nnodes:\n  - memory: 1G\nsteps:\n  - pin: {id: p, workload: rdma, size: 4MiB, node: 0}\n' \
	"$rxe_art" "$work/rxe-m.config" >"$work/rxe-m.yaml"
ok "check: an rdma pin on a kernel with rxe as a module is a SKIP (kernel-lacks, the module is not loaded)" \
	sh -c "$LAB check '$work/rxe-m.yaml' 2>&1 | grep -q 'kernel-lacks: CONFIG_RDMA_RXE is a module the guest does not load'"

# RDMA lives in a flavour of the lab's kernel (docs/kernel.md, "Flavours"):
# a trial that pins through it boots that build without naming it.
ok "check: an rdma pin takes the lab kernel's rdma flavour (text: 'kernel 6.12 flavour rdma'; --json: kernel_flavour only on those trials)" \
	sh -c '$1 check scenarios/pin-rdma.yaml | grep -q "kernel 6.12 flavour rdma" &&
		$1 check --json scenarios/pin-rdma.yaml scenarios/pin-io-uring.yaml |
		jq -e ".files | [.[0].trials[].kernel_flavour] == [\"rdma\", \"rdma\", \"rdma\", \"rdma\"] and
			all(.[1].trials[]; has(\"kernel_flavour\") | not)" >/dev/null' _ "$LAB"
printf 'name: rdmakm\nkernel: {version: "6.12", debug: kmemleak}\nnodes:\n  - memory: 1G\nsteps:\n  - pin: {id: p, workload: rdma, size: 4MiB, node: 0}\n' >"$work/rdma-km.yaml"
expect_fail "check: an rdma pin on kernel: {debug: kmemleak} is refused at the pin, naming both flavours" 1 \
	"rdma-km.yaml:6:5: pin: workload rdma runs on the lab kernel's rdma flavour, and kernel: {debug: kmemleak} is built without it" \
	$LAB check "$work/rdma-km.yaml"
expect_fail "run --kernel-dir of the default build for an rdma pin: refused before boot, naming the step, CONFIG_RDMA_RXE and the flavour" 2 \
	"pin-rdma.yaml:[0-9]+: step pin with workload rdma cannot run on kernel config '.*/config': CONFIG_RDMA_RXE is not built in; the lab kernel's rdma flavour has it \\(make kernel\\)" \
	$LAB run -q --kernel-dir "$(cat "$cache/kernel/6.12/current")" --only 'pin-rdma:kernel=6.12,policy=series' -o "$work/rdma-nodir" scenarios/pin-rdma.yaml
mkdir -p "$work/cache-nordma/kernel/6.12"
cp "$cache/kernel/6.12/current" "$work/cache-nordma/kernel/6.12/current"
expect_fail "run of an rdma pin where the rdma flavour was never built: refused before boot, naming the pointer file and make kernel" 2 \
	"no kernel 6.12 in its rdma flavour built yet \\(.*cache-nordma/kernel/6.12/rdma missing; the RDMA pins of scenarios/pin-rdma.yaml run on it\\): run 'make kernel'" \
	env MEMHP_CACHE="$work/cache-nordma" $LAB run -q --only 'pin-rdma:kernel=6.12,policy=series' -o "$work/rdma-noflav" scenarios/pin-rdma.yaml

# wrun NAME: run scenarios/NAME.yaml into $work/NAME; $r is its record.
wrun() {
	echo "# integration: workloads, scenarios/$1.yaml"
	lab_run -o "$work/$1" "scenarios/$1.yaml" >"$work/$1.out" 2>&1
	r=$work/$1/trials.jsonl
	ok "$1: verdict pass" jq -e '.verdict == "pass"' "$r"
	jq -e '.verdict == "pass"' "$r" >/dev/null 2>&1 || sed 's/^/#   /' "$work/$1.out" | tail -n 8
}
# The first step of workload ID in the record, of kind WHAT (pin: null, check, release).
st() { echo "[.steps[] | select((.id // \"\") == \"$1\" and .step == \"$2\")][0]"; }

wrun pin-gup
ok "gup: five pins held at once (touch-by-pin, hugetlb, anon, thp, memfd)" \
	jq -e '[.steps[] | select(.step == "pin" and .ok and .workload.ok)] | length == 5' "$r"
ok "gup: all but touch-by-pin started in ZONE_MOVABLE; the touch-by-pin one was not faulted in before it" \
	jq -e '[.steps[] | select(.step == "pin") | .workload] | (map(select(.touch == "before" and .census_before.by_zone.Movable == .census_before.pages)) | length) == 4 and (map(select(.touch == "pin" and .census_before.not_present == .census_before.pages)) | length) == 1' "$r"
ok "gup: no pinned page in ZONE_MOVABLE after any pin" \
	jq -e '[.steps[] | select(.step == "pin") | .workload.census_after.by_zone.Movable] | length == 5 and all(. == 0)' "$r"
ok "gup: the unplug reached 0" jq -e "$(st "" resize).reached_bytes == 0" "$r"
ok "gup: after the unplug every pattern is intact and no pinned page moved" \
	jq -e '[.steps[] | select(.step == "check") | .workload | .pattern_ok and .pages_moved_since_pin == 0] | length == 5 and all' "$r"
ok "gup: every holder released, pins balanced" \
	jq -e "([.steps[] | select(.step == \"release\") | .workload.released] | length == 5 and all) and $balanced" "$r"

wrun pin-io-uring
ok "io_uring: 128 MiB registered in 1 buffer, all of it in ZONE_MOVABLE before" \
	jq -e "$(st ring0 pin).workload | .ok and .bytes_pinned == 134217728 and .io_uring.buffers == 1 and .census_before.by_zone.Movable == 32768" "$r"
ok "io_uring: no registered page in ZONE_MOVABLE; RLIMIT_MEMLOCK reported" \
	jq -e "$(st ring0 pin).workload | .census_after.by_zone.Movable == 0 and (.io_uring.rlimit_memlock_cur | type) == \"number\"" "$r"
ok "io_uring: WRITE_FIXED/READ_FIXED through the buffers right after the pin" jq -e "$(st ring0 pin).workload.io.ok" "$r"
ok "io_uring: the unplug reached 0" jq -e "$(st "" resize).reached_bytes == 0 and $(st "" resize).converged" "$r"
ok "io_uring: after the unplug the I/O returns the right bytes (64 chunks, none bad) and no page moved" \
	jq -e "$(st ring0 check).workload | .io.ok and .io.chunks == 64 and .io.file_mismatch == 0 and .io.pattern_bad_chunks == 0 and .pages_moved_since_pin == 0" "$r"
ok "io_uring: released, pins balanced" \
	jq -e "$(st ring0 release).workload.released and $balanced" "$r"

wrun pin-vfio
ok "vfio: edu behind the vIOMMU, type1v2, 64 MiB mapped from ZONE_MOVABLE" \
	jq -e "$(st dma0 pin).workload | .ok and .vfio.iommu == \"type1v2\" and .vfio.mapped and .bytes_pinned == 67108864 and .census_before.by_zone.Movable == 16384" "$r"
ok "vfio: no mapped page in ZONE_MOVABLE" jq -e "$(st dma0 pin).workload.census_after.by_zone.Movable == 0" "$r"
ok "vfio: edu DMA through the IOMMU right after the map: 4 of 4 pages" jq -e "$(st dma0 pin).workload.io | .ok and .pages_ok == 4" "$r"
ok "vfio: the unplug reached 0" jq -e "$(st "" resize).reached_bytes == 0" "$r"
ok "vfio: after the unplug edu's DMA still returns the right bytes (4 of 4 pages)" \
	jq -e "$(st dma0 check).workload | .io.ok and .io.pages_ok == 4 and .io.pages_bad == 0 and .pattern_ok" "$r"
ok "vfio: unmapped at release, pins balanced" \
	jq -e "$(st dma0 release).workload.released and $balanced" "$r"

wrun pin-vfio-noiommu
ok "vfio-noiommu: says it is unprotected and pins nothing" \
	jq -e "$(st raw0 pin).workload | .ok and .pinned == false and .bytes_pinned == 0 and .vfio.protected == false and (.vfio.warning | test(\"UNPROTECTED\"))" "$r"
ok "vfio-noiommu: the buffer stays in ZONE_MOVABLE (the trial does not apply the movable rule)" \
	jq -e "$(st raw0 pin).workload.census_after.by_zone.Movable == 16384 and ($(st raw0 pin).note | test(\"pins nothing\"))" "$r"
ok "vfio-noiommu: before the unplug edu reads the right bytes at the recorded physical addresses" \
	jq -e "$(st raw0 pin).workload.io.pages_ok == 4" "$r"
ok "vfio-noiommu: the unplug reached 0" jq -e "$(st "" resize).reached_bytes == 0" "$r"
ok "vfio-noiommu: after the unplug pages moved, and the device reads other bytes there" \
	jq -e "$(st raw0 check).workload | .pages_moved_since_pin > 0 and .io.pages_bad > 0" "$r"

wrun pin-multi
ok "multi: gup on node 1 and io_uring on node 2 held at once, both out of ZONE_MOVABLE" \
	jq -e "($(st g pin).workload | .ok and .node == 1 and .census_after.by_zone.Movable == 0) and ($(st r pin).workload | .ok and .node == 2 and .census_after.by_zone.Movable == 0)" "$r"
ok "multi: both nodes' devices unplugged to 0" jq -e '[.steps[] | select(.step == "resize") | .reached_bytes == 0] | length == 2 and all' "$r"
ok "multi: after both unplugs the gup pattern and the io_uring I/O are intact" \
	jq -e "$(st g check).workload.pattern_ok and ($(st r check).workload | .pattern_ok and .io.ok)" "$r"

wrun pin-enomem
ok "enomem: the hugetlb pin that cannot migrate fails with ENOMEM and pins nothing" \
	jq -e "$(st huge pin) | .failed_as_expected and .workload.errno_name == \"ENOMEM\" and .workload.bytes_pinned == 0" "$r"
ok "enomem: the 640 MiB pin of 4 KiB pages ends its holder by SIGKILL (the OOM killer), agent alive" \
	jq -e "$(st big pin) | .failed_as_expected and .workload.signal == \"SIGKILL\"" "$r"
ok "enomem: nothing leaked - a 64 MiB pin then succeeds out of ZONE_MOVABLE and the unplug reaches 0" \
	jq -e "($(st small pin).workload | .ok and .census_after.by_zone.Movable == 0) and $(st "" resize).reached_bytes == 0" "$r"
ok "enomem: pins balanced after the release" jq -e "$balanced" "$r"
# The same paths on the other tree (Debian 12's own 6.1): full tier.
if full; then
for f in pin-io-uring pin-vfio pin-vfio-noiommu; do
	echo "# integration: workloads on 6.1, scenarios/$f.yaml"
	lab_run --kernel 6.1 -o "$work/61-$f" "scenarios/$f.yaml" >"$work/61-$f.out" 2>&1
	r=$work/61-$f/trials.jsonl
	ok "6.1 $f: verdict pass, the record names linux-source-6.1" \
		jq -e '.verdict == "pass" and .kernel.source_package == "linux-source-6.1"' "$r"
	jq -e '.verdict == "pass"' "$r" >/dev/null 2>&1 || sed 's/^/#   /' "$work/61-$f.out" | tail -n 8
done
r=$work/61-pin-io-uring/trials.jsonl
ok "6.1 io_uring: registered out of ZONE_MOVABLE, I/O intact after the unplug to 0" \
	jq -e "$(st ring0 pin).workload.census_after.by_zone.Movable == 0 and $(st ring0 check).workload.io.ok and $(st "" resize).reached_bytes == 0" "$r"
r=$work/61-pin-vfio/trials.jsonl
ok "6.1 vfio: mapped out of ZONE_MOVABLE, DMA 4 of 4 pages after the unplug to 0" \
	jq -e "$(st dma0 pin).workload.census_after.by_zone.Movable == 0 and $(st dma0 check).workload.io.pages_ok == 4 and $(st "" resize).reached_bytes == 0" "$r"
r=$work/61-pin-vfio-noiommu/trials.jsonl
ok "6.1 vfio-noiommu: nothing pinned, pages moved by the unplug, the device reads other bytes" \
	jq -e "$(st raw0 pin).workload.pinned == false and ($(st raw0 check).workload | .pages_moved_since_pin > 0 and .io.pages_bad > 0)" "$r"
fi
# RDMA: a 64 MiB MR with soft-RoCE under the series on 6.12; the full tier
# adds 6.1 side by side, and baseline on 6.12 at the same time (the fast
# tier's baseline MR held through a short unplug is conformance c8's).
rdma_kvers="6.12" rdma_only='pin-rdma:kernel=6.12,policy=series'
full && rdma_kvers="6.12 6.1" rdma_only='pin-rdma:*series'

echo "# integration: workloads, scenarios/pin-rdma.yaml (series on 6.12$(full && echo ' and 6.1, baseline on 6.12'))"
if full; then
lab_bg run -q -o "$work/rdma-base" --only 'pin-rdma:kernel=6.12,policy=baseline' scenarios/pin-rdma.yaml >"$work/rdma-base.out" 2>&1
rdma_base_job=$lab_job rdma_base_t0=$lab_t0 rdma_base_cmd=$lab_cmd
fi
lab_run -q -j 2 -o "$work/rdma" --only "$rdma_only" scenarios/pin-rdma.yaml >"$work/rdma.out" 2>&1
if full; then
lab_job=$rdma_base_job lab_t0=$rdma_base_t0 lab_cmd=$rdma_base_cmd
lab_wait
fi
for k in $rdma_kvers; do
	r=$work/rdma/trials.jsonl.$k
	jq -c "select(.parameters.kernel == \"$k\")" "$work/rdma/trials.jsonl" >"$r" 2>/dev/null
	ok "rdma $k series: verdict pass, the record names linux-source-$k and its rdma flavour" \
		jq -e ".verdict == \"pass\" and .kernel.source_package == \"linux-source-$k\" and .kernel.flavour == \"rdma\"" "$r"
	jq -e '.verdict == "pass"' "$r" >/dev/null 2>&1 || sed 's/^/#   /' "$work/rdma.out" | tail -n 8
	ok "rdma $k series: a 64 MiB MR from ZONE_MOVABLE, migrated at registration (16384 pages out, migrate_success >= 16384)" \
		jq -e "($(st mr0 pin).workload | .ok and .rdma.registered and .rdma.mr_bytes == 67108864 and .bytes_pinned == 67108864 and .census_before.by_zone.Movable == 16384 and .census_after.by_zone.Movable == 0) and (.guest_after.vmstat.gup_longterm_migrate_success - .guest_before.vmstat.gup_longterm_migrate_success) >= 16384" "$r"
	ok "rdma $k series: RDMA READ and WRITE through the MR right after the registration (64 chunks)" \
		jq -e "$(st mr0 pin).workload.io | .ok and .chunks == 64 and .rdma_read_failed == 0 and .rdma_write_failed == 0" "$r"
	ok "rdma $k series: the unplug reached 0 with the MR held" \
		jq -e "$(st "" resize) | .reached_bytes == 0 and .converged" "$r"
	ok "rdma $k series: after the unplug RDMA READ returns the pattern and RDMA WRITE lands in the process's pages" \
		jq -e "$(st mr0 check).workload | .ok and .io.ok and .io.read_mismatch == 0 and .io.pattern_bad_chunks == 0 and .pages_moved_since_pin == 0" "$r"
	ok "rdma $k series: deregistered at release, pins balanced" \
		jq -e "$(st mr0 release).workload.released and $balanced" "$r"
done
if full; then
r=$work/rdma-base/trials.jsonl
ok "rdma 6.12 baseline: verdict pass, the 16384 pages pinned in place in ZONE_MOVABLE" \
	jq -e ".verdict == \"pass\" and $(st mr0 pin).workload.census_after.by_zone.Movable == 16384 and (.guest_after.vmstat.gup_longterm_pinned_in_place - .guest_before.vmstat.gup_longterm_pinned_in_place) >= 16384" "$r"
jq -e '.verdict == "pass"' "$r" >/dev/null 2>&1 || sed 's/^/#   /' "$work/rdma-base.out" | tail -n 8
ok "rdma 6.12 baseline: the unplug stops short by about the registered size (64-72 MiB left)" \
	jq -e "$(st "" resize).reached_bytes | . >= 67108864 and . <= 75497472" "$r"
ok "rdma 6.12 baseline: the data through the MR is intact after the short unplug" \
	jq -e "$(st mr0 check).workload | .ok and .io.ok" "$r"
fi
# this part's runs only (lab_run): another part beside it (integration's
# pin-policy-ab) may have a guest of a pin-* scenario running
ok "no QEMU process of this part's pin-* runs remains" no_qemu
