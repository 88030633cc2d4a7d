# tests/stock.sh - the kernel a team ships (issue 15), sourced by
# tests/run.sh (uses its ok/expect_fail/lab_run helpers, $LAB, $work):
# Debian 12's own cloud kernels fetched with apt (kernel/package.sh, no
# build), their virtio and vfio modules loaded by the guest's init, a
# pinning trial on each, the online policy as shipped, and what such a
# kernel cannot run refused before anything boots.

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

echo "# stock kernels: what a stock kernel cannot run is refused before anything boots"
sed -e 's/workload: io_uring/workload: gup/' -e 's/^  pkg: \[.*\]/  pkg: [linux-image-cloud-amd64]/' \
	scenarios/stock/pin-io-uring.yaml >"$work/stock-gup.yaml"
expect_fail "a gup pin on Debian's kernel: refused, naming the step's line and CONFIG_GUP_TEST" 2 \
	"stock-gup.yaml:19: step pin with workload gup needs CONFIG_GUP_TEST, which kernel config .* does not set" \
	$LAB run -o "$work/stock-gup" "$work/stock-gup.yaml"
sed -e 's/^name: stock-io-uring/name: stock-baseline\npin_policy: baseline/' -e 's/^  pkg: \[.*\]/  pkg: [linux-image-cloud-amd64]/' \
	scenarios/stock/pin-io-uring.yaml >"$work/stock-base.yaml"
expect_fail "pin_policy baseline on Debian's kernel: refused (it has no test switch)" 2 \
	"pin_policy baseline needs the lab's series" $LAB run -o "$work/stock-base" "$work/stock-base.yaml"
