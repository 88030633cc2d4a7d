# tests/stock.sh - the kernel a team ships (issue 15), sourced by
# tests/run.sh (uses its ok/expect_fail/lab_run helpers, $LAB, $work):
# Debian 12's own cloud kernels fetched with apt (kernel/package.sh, no
# build), their virtio and vfio modules loaded by the guest's init, a
# pinning trial on each, the online policy as shipped, and what such a
# kernel cannot run refused before anything boots.

plan 21 full 25
echo "# stock kernels: kernel/package.sh refuses what is not a Debian kernel package name"
expect_fail "package.sh: a name with shell in it" 1 "not a linux-image-\\* package name" \
	kernel/package.sh 'linux-image-$(id)'
expect_fail "package.sh: a version that is not Debian's" 1 "is not a Debian version" \
	kernel/package.sh 'linux-image-cloud-amd64=;id'

echo "# stock kernels: io_uring pins on Debian's 6.1 and 6.12 cloud kernels (scenarios/stock/pin-io-uring.yaml)"
lab_run -o "$work/stock" scenarios/stock/pin-io-uring.yaml scenarios/stock/online-as-shipped.yaml >"$work/stock.out" 2>&1
[ $? = 0 ] || tail -n 8 "$work/stock.out" | sed 's/^/#   /'
r=$work/stock/trials.jsonl
for pkg in linux-image-cloud-amd64 linux-image-6.12-cloud-amd64; do
	case $pkg in *6.12*) want='^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$';; *) want='^linux-image-6\.1\.0-[0-9]+-cloud-amd64$';; esac
	ok "$pkg: the trial passes on the package's kernel (record: source_package, version, kind package)" \
		jq -se --arg t "stock-io-uring:pkg=$pkg" --arg want "$want" \
		'map(select(.trial == $t)) | length == 1 and (.[0] | .verdict == "pass" and (.kernel.source_package | test($want)) and (.kernel.source_version | length) > 0 and .kernel.kind == "package")' "$r"
	ok "$pkg: the pin left nothing in ZONE_MOVABLE, the unplug reached 0, the host got it back, I/O through the pins intact" \
		jq -se --arg t "stock-io-uring:pkg=$pkg" \
		'map(select(.trial == $t))[0] | .summary.pinned_pages_movable_after == 0 and .summary.reached_bytes == 0 and .summary.host_reclaimed_of_reclaimable >= 0.9 and .summary.pattern_ok_at_release' "$r"
	log=$(jq -sr --arg t "stock-io-uring:pkg=$pkg" 'map(select(.trial == $t))[0].console_log' "$r")
	ok "$pkg: the guest's init loaded every module of identity.modules (a memhp-init line each), none failed" \
		sh -c 'n=$(jq -sr --arg t "$1" "map(select(.trial == \$t))[0].kernel.modules | length" "$2");
			[ "$n" -gt 0 ] && [ "$(grep -c "memhp-init: module .* loaded" "$3")" = "$n" ] &&
			! grep -q "memhp-init: error: module" "$3"' _ "stock-io-uring:pkg=$pkg" "$r" "$log"
done
ok "online: as-shipped on Debian 6.1: plugged 512 MiB stays offline (plug.online false, MemTotal unchanged, 4 blocks offline), unplug reaches 0" \
	jq -se 'map(select(.trial == "stock-online-as-shipped"))[0] | .verdict == "pass" and
		(.steps[0].plug | .online == false and .memtotal_after_bytes == .memtotal_before_bytes) and
		.steps[1].guest.memory_blocks.offline == 4 and .summary.reached_bytes == 0' "$r"

# Debian's PREEMPT_RT kernel has no THP (RT excludes it): once refused
# wholesale before boot ("lacks option(s) the lab needs:
# CONFIG_TRANSPARENT_HUGEPAGE"), now only the step that needs THPs skips.
# The boot is in the full tier: one boot of the RT kernel in six here hung
# under TCG after "io scheduler mq-deadline registered" (docs/stock.md).
ok "PREEMPT_RT (linux-image-rt-amd64, no THP): check --resolve accepts it and lists exactly the THP-backed pin (kernel-lacks: CONFIG_TRANSPARENT_HUGEPAGE) and its release as SKIP" \
	sh -c '"$1" check --resolve scenarios/stock/pin-rt.yaml >"$2" 2>&1 && grep -q "ok: scenario .stock-rt." "$2" &&
		[ "$(grep -c "SKIP on linux-image-6\.1\.0-[0-9]*-rt-amd64" "$2")" = 2 ] &&
		grep -q "step 11 (line 30, pin): kernel-lacks: CONFIG_TRANSPARENT_HUGEPAGE is not set" "$2" &&
		grep -q "step 12 (line 31, release): needs-skipped-step" "$2"' _ "$LAB" "$work/rt.check"

echo "# stock kernels: what a stock kernel cannot run is SKIP with its reason, listed by check --resolve before anything boots"
sed -e 's/workload: io_uring/workload: gup/' -e 's/^  pkg: \[.*\]/  pkg: [linux-image-cloud-amd64]/' \
	scenarios/stock/pin-io-uring.yaml >"$work/stock-gup.yaml"
# only a gup pin and what asserts on it: nothing left that runs on Debian's kernel
sed -e 's/^name: stock-io-uring/name: stock-gup-only/' -e '/resize:\|unplug: reached\|- io:\|release:\|integrity/d' \
	"$work/stock-gup.yaml" >"$work/stock-gup-only.yaml"
ok "check lists the skips per kernel: the gup pin (CONFIG_GUP_TEST), and the io/release/expect that need it" \
	sh -c '"$1" check --resolve "$2" >"$3" 2>&1 &&
		grep -q "SKIP on linux-image-6\.1\.0-[0-9]*-cloud-amd64: step 1 (line 19, pin): kernel-lacks: CONFIG_GUP_TEST is not set" "$3" &&
		grep -q "step 5 (line 23, io): needs-skipped-step: pin .ring. (line 19) was skipped" "$3" &&
		[ "$(grep -c "SKIP on" "$3")" = 5 ]' _ "$LAB" "$work/stock-gup.yaml" "$work/stock-gup.check"
lab_run -o "$work/stock-skip" "$work/stock-gup.yaml" "$work/stock-gup-only.yaml" >"$work/stock-skip.out" 2>&1
skip_rc=$?
ok "a gup pin on Debian's kernel: the pin and its dependants SKIP (kernel-lacks, needs-skipped-step), the unplug expect ran, and the trial is skip (its only pin skipped: nothing pinned, issue 32 item 20); both trials skip: run exits 4" \
	sh -c '[ "$1" = 4 ] && jq -se "map(select(.trial == \"stock-io-uring:pkg=linux-image-cloud-amd64\"))[0] |
		.verdict == \"skip\" and (.reason | test(\"every pin step \\\\(1\\\\) was skipped, so nothing was pinned\")) and ([.steps[] | .skip_code] == [\"kernel-lacks\", \"needs-skipped-step\", null, null,
		\"needs-skipped-step\", \"needs-skipped-step\", \"needs-skipped-step\"]) and
		(.steps[0].skipped | test(\"CONFIG_GUP_TEST\")) and .steps[3].ok and (.steps[3].checks | length) > 0" "$2"' \
	_ "$skip_rc" "$work/stock-skip/trials.jsonl"
ok "a trial whose every asserting step is skipped: verdict skip (never pass), its reason names the step's line and CONFIG_GUP_TEST" \
	jq -se 'map(select(.trial == "stock-gup-only:pkg=linux-image-cloud-amd64"))[0] |
		.verdict == "skip" and (.reason | test("stock-gup-only.yaml:19: CONFIG_GUP_TEST is not set"))' \
	"$work/stock-skip/trials.jsonl"
# stock_skips_reported DIR: DIR (the run's report/) shows the skipped trial in every format; in
# KCIDB its test and its pin step's are SKIP with the reason, the trial that ran its unplug PASS.
stock_skips_reported() {
	grep -q "^ok [0-9]* stock-gup-only:pkg=linux-image-cloud-amd64 # SKIP every pin step" "$1/results.ktap" &&
		grep -q "^  ok 1 pin .*# SKIP CONFIG_GUP_TEST is not set" "$1/results.ktap" || { echo "KTAP"; return 1; }
	xmllint --xpath "string(/testsuites/@skipped)" "$1/junit.xml" | grep -qx 2 &&
		xmllint --xpath '//testcase[@name="stock-gup-only:pkg=linux-image-cloud-amd64"]/skipped/@message' "$1/junit.xml" |
		grep -q CONFIG_GUP_TEST || { echo "JUnit"; return 1; }
	jq -e --arg t memhp.stock-gup-only.stock-gup-only_pkg_linux-image-cloud-amd64 '
	  (.tests[] | select(.path == $t) | .status == "SKIP" and .misc.verdict == "skip"
	     and (.misc.reason | test("stock-gup-only.yaml:19: CONFIG_GUP_TEST is not set"))) and
	  (.tests[] | select(.path == $t + ".s1_pin_ring") | .status == "SKIP" and (.comment | test("CONFIG_GUP_TEST is not set"))) and
	  (.tests[] | select(.path == "memhp.stock-gup.stock-io-uring_pkg_linux-image-cloud-amd64") | .status == "SKIP")' \
		"$1/kcidb.json" >/dev/null || { echo "KCIDB"; return 1; }
}
ok "the skips in every report: KTAP ok # SKIP (trial and steps), JUnit skipped=2 with the reason, KCIDB SKIP of both trials and the pin with the reason" \
	stock_skips_reported "$work/stock-skip/report"
sed -e 's/^name: stock-io-uring/name: stock-baseline\npin_policy: baseline/' -e 's/^  pkg: \[.*\]/  pkg: [linux-image-cloud-amd64]/' \
	scenarios/stock/pin-io-uring.yaml >"$work/stock-base.yaml"
expect_fail "pin_policy baseline on Debian's kernel: refused (it has no test switch)" 2 \
	"pin_policy baseline needs the lab's series" $LAB run -o "$work/stock-base" "$work/stock-base.yaml"

echo "# stock kernels: a .deb file (kernel: {deb}) and a user's modular kernel (kernel: {bzimage, config, modules})"
img61=$(apt-cache depends --no-recommends --no-suggests linux-image-cloud-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | sed -n 1p)
ver61=$(apt-cache policy "$img61" 2>/dev/null | sed -n "s/^ *Candidate: //p")
# as package.sh fetches one: apt's privilege drop kept (its methods run as _apt)
mkdir -p "$work/debs" &&
	timed 300 kernel/apt-download.sh "$img61=$ver61" "$work/debs" >/dev/null 2>&1
deb=$(ls "$work"/debs/*.deb 2>/dev/null | sed -n 1p)
# the user's own tree: the package unpacked, modules.dep made by depmod as make modules_install would
dpkg-deb -x "$deb" "$work/own61" 2>/dev/null; rel61=$(ls "$work/own61/lib/modules" 2>/dev/null | sed -n 1p)
depmod -b "$work/own61" "$rel61" 2>/dev/null
own_scn() {	# own_scn NAME KERNEL-MAP: io_uring pins 64 MiB, node 1 taken back to 0
	printf 'name: %s\nkernel: %s\nnodes:\n  - memory: 1GiB\n    cpus: 1\n  - memory: 128MiB\n    cpus: 1\n    virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}\nsteps:\n  - pin: {id: ring, workload: io_uring, size: 64MiB, node: 1}\n  - expect: {movable_after_pin: 0}\n  - resize: {node: 1, requested: 0, deadline: 60}\n  - expect: {unplug: reached}\n  - io: {id: ring}\n  - release: {id: ring}\n  - expect: {integrity: true, console_clean: true}\n' "$1" "$2"
}
own_scn stock-deb "{deb: $deb}" >"$work/stock-deb.yaml"
own_scn stock-own-modular "{bzimage: $work/own61/boot/vmlinuz-$rel61, config: $work/own61/boot/config-$rel61, modules: $work/own61/lib/modules/$rel61}" \
	>"$work/stock-own.yaml"
lab_run -o "$work/stock-own" "$work/stock-deb.yaml" "$work/stock-own.yaml" >"$work/stock-own.out" 2>&1
[ $? = 0 ] || tail -n 8 "$work/stock-own.out" | sed 's/^/#   /'
ok "kernel: {deb: $(basename "${deb:-none.deb}")}: the trial passes; the record names the package and version from the .deb, kind package" \
	jq -se --arg p "$img61" 'map(select(.trial == "stock-deb"))[0] | .verdict == "pass" and .kernel.source_package == $p and
		.kernel.kind == "package" and (.kernel.source_version | length) > 0 and .summary.reached_bytes == 0' "$work/stock-own/trials.jsonl"
ok "kernel: {bzimage, config, modules: lib/modules/$rel61}: the guest loads the tree's modules (one memhp-init line each), the trial passes, recorded as prebuilt with its module list" \
	sh -c 'jq -se "map(select(.trial == \"stock-own-modular\"))[0] | .verdict == \"pass\" and .kernel.source_package == \"prebuilt\" and
			(.kernel.modules | length) > 3 and .kernel.release == \"$3\"" "$1" >/dev/null &&
		log=$(jq -sr "map(select(.trial == \"stock-own-modular\"))[0].console_log" "$1") &&
		[ "$(grep -c "memhp-init: module .* loaded" "$log")" = "$(jq -sr "map(select(.trial == \"stock-own-modular\"))[0].kernel.modules | length" "$1")" ]' \
	_ "$work/stock-own/trials.jsonl" x "$rel61"
printf 'name: bad\nkernel: {bzimage: %s, config: %s, modules: %s}\nnodes:\n  - memory: 1GiB\nsteps:\n  - snapshot:\n' \
	"$work/own61/boot/vmlinuz-$rel61" "$work/own61/boot/config-$rel61" "$work/debs" >"$work/stock-nodep.yaml"
expect_fail "a modules dir without modules.dep: refused before boot, naming the dir and depmod" 2 \
	"kernel modules '$work/debs': no modules.dep \\(run depmod" $LAB run -o "$work/stock-nodep" "$work/stock-nodep.yaml"
printf 'name: bad\nkernel: {deb: /etc/passwd}\nnodes:\n  - memory: 1GiB\nsteps:\n  - snapshot:\n' >"$work/stock-baddeb.yaml"
expect_fail "kernel: {deb: /etc/passwd}: refused before boot, naming the file" 2 \
	"kernel deb '/etc/passwd': not a Debian package" $LAB run -o "$work/stock-baddeb" "$work/stock-baddeb.yaml"
printf 'name: bad\nkernel: {deb: /x.deb, package: linux-image-amd64}\nnodes:\n  - memory: 1GiB\nsteps:\n  - snapshot:\n' >"$work/stock-both.yaml"
expect_fail "kernel: deb and package at once: check refuses it at its line and column" 1 \
	"stock-both.yaml:2:9: kernel: one of 'package', 'deb', or 'bzimage' and 'config'" $LAB check "$work/stock-both.yaml"

# The Debian userspace guest itself (systemd to the agent: 40-55 s under TCG)
# boots in make stock (tools/stock.sh checks its console); here, its refusal.
printf 'name: bad\nguest: ubuntu\nnodes:\n  - memory: 1GiB\nsteps:\n  - snapshot:\n' >"$work/stock-badguest.yaml"
expect_fail "guest: an unknown userspace: check refuses it at its line and column" 1 \
	"stock-badguest.yaml:2:8: guest: unknown userspace 'ubuntu' \\(known: lab, debian\\)" $LAB check "$work/stock-badguest.yaml"

# The same package kernel from the command line (full tier: the fast tier
# boots it through the scenario's kernel: {package} above).
if full; then
echo "# stock kernels: the PREEMPT_RT trial booted"
lab_run -o "$work/stock-rt" scenarios/stock/pin-rt.yaml >"$work/stock-rt.out" 2>&1
r=$work/stock-rt/trials.jsonl
ok "PREEMPT_RT (linux-image-rt-amd64, no THP): the trial boots the package's -rt kernel and passes: io_uring and RDMA pins of 64 MiB each, 0 pages left in ZONE_MOVABLE, the unplug reached 0, the data intact" \
	jq -se 'map(select(.trial == "stock-rt"))[0] | .verdict == "pass" and (.kernel.source_package | test("^linux-image-6\\.1\\.0-[0-9]+-rt-amd64$")) and
		.summary.pinned_pages_movable_after == 0 and .summary.reached_bytes == 0 and .summary.pattern_ok_at_release and
		([.steps[] | select(.step == "pin" and .ok and .skip_code == null) | .id] == ["ring", "mr0"])' "$r"
ok "PREEMPT_RT: the THP-backed pin and its release SKIP (kernel-lacks: CONFIG_TRANSPARENT_HUGEPAGE, needs-skipped-step), nothing else skipped" \
	jq -se 'map(select(.trial == "stock-rt"))[0] | [.steps[] | .skip_code] == [null, null, null, null, null, null, null, null, null, null, "kernel-lacks", "needs-skipped-step"] and
		(.steps[10].skipped | test("CONFIG_TRANSPARENT_HUGEPAGE is not set"))' "$r"

echo "# stock kernels: --kernel package:NAME on the command line overrides a scenario's kernel"
lab_run -o "$work/stock-cli" --kernel package:linux-image-cloud-amd64 scenarios/pin-io-uring.yaml >"$work/stock-cli.out" 2>&1
ok "run --kernel package:linux-image-cloud-amd64 scenarios/pin-io-uring.yaml: the lab's io_uring scenario passes on Debian's 6.1 (record: the package, kind package)" \
	jq -e '.verdict == "pass" and (.kernel.source_package | test("^linux-image-6\\.1\\.0-[0-9]+-cloud-amd64$")) and .kernel.kind == "package" and .summary.reached_bytes == 0' \
	"$work/stock-cli/trials.jsonl"
# issue 32 item 20: a capability the kernel has as a module is loaded before
# it is called missing. Debian's generic kernel has soft-RoCE as modules; the
# rdma pin used to be skipped there (and the trial pass on the unplug alone).
echo "# stock kernels: RDMA on Debian's generic 6.1 (linux-image-amd64): rdma_rxe and what it needs loaded by the guest's init"
lab_run -o "$work/stock-rdma" scenarios/stock/pin-rdma.yaml >"$work/stock-rdma.out" 2>&1
log=$(jq -r .console_log "$work/stock-rdma/trials.jsonl" 2>/dev/null)
ok "linux-image-amd64: the rdma pin ran (not skipped): rdma_rxe, ib_uverbs, dummy and crc32_generic loaded by the init, 64 MiB registered, nothing left in ZONE_MOVABLE, the unplug reached 0, 64 chunks intact through RDMA READ/WRITE" \
	sh -c 'jq -e ".verdict == \"pass\" and (.kernel.source_package | test(\"^linux-image-6\\\\.1\\\\.0-[0-9]+-amd64$\")) and
		(.steps[0] | .skipped == null and .workload.mode == \"rdma\" and .workload.bytes_pinned == 67108864) and
		.summary.pinned_pages_movable_after == 0 and .summary.reached_bytes == 0 and
		(.steps[4].workload.io | .ok and .chunks == 64)" "$1" >/dev/null &&
		for m in crc32_generic dummy ib_uverbs rdma_rxe; do grep -q "memhp-init: module $m.ko loaded" "$2" || exit 1; done' \
	_ "$work/stock-rdma/trials.jsonl" "$log"
fi
