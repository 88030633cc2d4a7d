# tests/balloon.sh - the virtio balloon beside virtio-mem (issue 35, item 4;
# docs/host.md, "The balloon beside virtio-mem"), sourced by tests/run.sh.
# Fast tier: a step's only: filter and the balloon step's refusals at check
# (no guest), then one balloon trial (6.12, series, a small guest all
# resident: 256 MiB ballooned out while an io_uring pin is held), judged
# from its record.
# Full tier: scenarios/compare/elasticity.yaml's six trials (virtio-mem, DIMM and
# balloon, pinned and not), the numbers of docs/host.md's table.
plan 13 full 18

echo "# balloon: only: and the balloon step, refused by check with file:line (no guest)"
cat >"$work/only-bad.yaml" <<'EOF'
name: only-bad
matrix:
  mechanism: [virtio-mem, balloon]
devices: {balloon: true}
nodes:
  - memory: 512MiB
    cpus: 1
  - memory: 128MiB
    cpus: 1
    virtio_mem: {size: 1GiB, block: 2MiB, requested: 512MiB}
steps:
  - snapshot: {only: {mechnism: balloon}}
  - snapshot: {only: {mechanism: [balloon, dimm]}}
EOF
cat >"$work/only-nomatrix.yaml" <<'EOF'
name: only-nomatrix
nodes:
  - memory: 512MiB
    cpus: 1
steps:
  - snapshot: {only: {mechanism: balloon}}
EOF
cat >"$work/balloon-nodev.yaml" <<'EOF'
name: balloon-nodev
nodes:
  - memory: 512MiB
    cpus: 1
steps:
  - balloon: {target: 256MiB}
EOF
cat >"$work/balloon-big.yaml" <<'EOF'
name: balloon-big
devices: {balloon: true}
nodes:
  - memory: 512MiB
    cpus: 1
  - memory: 128MiB
    cpus: 1
    virtio_mem: {size: 256MiB, block: 2MiB, requested: 0}
steps:
  - balloon: {target: 641MiB}
EOF
for f in only-bad only-nomatrix balloon-nodev balloon-big; do
	lab check "$work/$f.yaml" >"$work/$f.out" 2>&1
	echo $? >"$work/$f.rc"
done
# refused FILE LINE:COL TEXT: check exited 1 and named the error there
refused() { [ "$(cat "$work/$1.rc")" = 1 ] && grep -qF "$work/$1.yaml:$2: $3" "$work/$1.out"; }
ok "only: an axis the matrix lacks is refused at its line:column, naming the axes" \
	refused only-bad 12:23 "only: 'mechnism' is not a matrix axis (axes: mechanism)"
ok "only: a value not on the axis (in a list) is refused at the value, naming the axis's values" \
	refused only-bad 13:44 "only: mechanism: 'dimm' is not a value of the axis (values: virtio-mem, balloon)"
ok "only: in a file without a matrix is refused" \
	refused only-nomatrix 6:22 "only: the scenario has no matrix"
ok "balloon: a balloon step without devices: {balloon: true} is refused" \
	refused balloon-nodev 6:5 "balloon: the guest has no balloon: give devices: {balloon: true}"
ok "balloon: a target above the boot memory (640 MiB; the balloon counts no virtio-mem memory) is refused at the target, naming it" \
	refused balloon-big 10:15 "balloon: target 672137216 bytes: expected whole KiB, more than 0 and at most the guest's boot memory, 671088640 bytes"
lab check --json scenarios/compare/elasticity.yaml >"$work/elasticity-check.json" 2>&1
ok "only: scenarios/compare/elasticity.yaml makes 6 trials; only: drops the pin, check and release of the io_uring pin from pinned=no's (6 steps, 9 with it) and the DIMM's attach from all but mechanism=dimm's" \
	jq -e '.files[0].trials | length == 6 and all(.steps == (if .parameters.pinned == "yes" then 9 else 6 end) + (if .parameters.mechanism == "dimm" then 1 else 0 end))' \
	"$work/elasticity-check.json"

echo "# balloon: one trial (6.12, series): 256 MiB of the 640 MiB boot memory ballooned out, a 64 MiB io_uring pin held"
# All of the guest's memory resident on the host from the start (prealloc)
# and no free page reporting: what the host gets back is what the balloon
# took, nothing the guest reported free on its own (docs/host.md). The
# balloon's actual size and its target count the boot memory (libvirt, QEMU).
cat >"$work/balloon.yaml" <<'EOF'
name: balloon
kernel: "6.12"
devices: {balloon: true, free_page_reporting: false}
memory_backing: {source: anonymous, prealloc: "true"}
nodes:
  - memory: 512MiB
    cpus: 1
  - memory: 128MiB
    cpus: 1
steps:
  - pin: {id: ring, workload: io_uring, size: 64MiB, node: 1}
  - balloon: {target: 384MiB, deadline: 30}
  - check: {id: ring}
  - release: {id: ring}
  - expect: {integrity: true, console_clean: true}
EOF
lab_run -o "$work/b" "$work/balloon.yaml" >"$work/b.out" 2>&1
[ $? = 0 ] || tail -n 5 "$work/b.out" | sed 's/^/#   /'
r=$work/b/trials.jsonl
bal='.steps[] | select(.step == "balloon")'
ok "balloon: the trial passed; its balloon step ok, elastic says balloon/target, ok" \
	jq -e ".verdict == \"pass\" and ([$bal] | length == 1) and ($bal | .ok and .elastic.mechanism == \"balloon\" and .elastic.action == \"target\" and .elastic.ok)" "$r"
ok "balloon: the actual balloon went from the 640 MiB boot memory to the 384 MiB target; requested_bytes -256 MiB; seconds > 0" \
	jq -e "$bal | .elastic | .actual_before_bytes == $((640 << 20)) and .actual_after_bytes == $((384 << 20)) and
		.target_bytes == $((384 << 20)) and .requested_bytes == -$((256 << 20)) and .seconds > 0" "$r"
ok "balloon: the host got back most of it: QEMU's RSS fell by at least 75 % of the 256 MiB (host.measured_by qemu_rss)" \
	jq -e "$bal | .host | .measured_by == \"qemu_rss\" and .unplugged_bytes == $((256 << 20)) and .reclaimed_of_unplugged >= 0.75" "$r"
ok "balloon: the guest saw it: MemTotal fell by the 256 MiB ballooned (no deflate-on-oom), MemAvailable by at least 200 MiB; free page reporting off, as asked" \
	jq -e "$bal | .elastic | .memtotal_before_bytes - .memtotal_after_bytes == $((256 << 20)) and
		.memavailable_before_bytes - .memavailable_after_bytes >= $((200 << 20)) and .free_page_reporting == false" "$r"
ok "balloon: the pin held through it: pattern intact, no pinned page in ZONE_MOVABLE, none moved since the pin" \
	jq -e '[.steps[] | select(.step == "check")][0].workload | .pattern_ok == true and .census.by_zone.Movable == 0 and .pages_moved_since_pin == 0' "$r"
ok "balloon: every field of the record is in docs/record.md (the balloon's elastic among them)" \
	python3 tests/record-fields.py docs/record.md "$r"
ok "balloon: no QEMU of the run left" no_qemu

if full; then
	echo "# balloon (full): scenarios/compare/elasticity.yaml: virtio-mem, balloon and DIMM, pinned and not (6.12)"
	lab_run -o "$work/el" scenarios/compare/elasticity.yaml >"$work/el.out" 2>&1
	r=$work/el/trials.jsonl
	ok "elasticity: 6 trials, all pass, both buffers intact in each" \
		jq -se 'length == 6 and all(.verdict == "pass")' "$r"
	# Each trial's step of its mechanism, exactly one: all() over no step is true.
	ok "elasticity: virtio-mem: the resize to 256 MiB converged, the host side recorded" \
		jq -se 'map(select(.parameters.mechanism == "virtio-mem")) | length == 2 and all([.steps[] | select(.step == "resize")] | length == 1 and all(.converged and .reached_bytes == 268435456 and (.host.unplugged_bytes == 268435456)))' "$r"
	ok "elasticity: balloon: the actual balloon reached 384 MiB, 256 MiB asked, the host side recorded" \
		jq -se "map(select(.parameters.mechanism == \"balloon\")) | length == 2 and all([.steps[] | select(.step == \"balloon\")] | length == 1 and all(.elastic.ok and .elastic.actual_after_bytes == $((384 << 20)) and .elastic.requested_bytes == -$((256 << 20)) and .host.unplugged_bytes == $((256 << 20))))" "$r"
	ok "elasticity: dimm: the 256 MiB DIMM removed, 256 MiB asked back, the host side recorded" \
		jq -se "map(select(.parameters.mechanism == \"dimm\")) | length == 2 and all([.steps[] | select(.step == \"dimm\" and .elastic.action == \"detach\")] | length == 1 and all(.elastic.removed and .elastic.requested_bytes == -$((256 << 20)) and .host.unplugged_bytes == $((256 << 20))))" "$r"
	ok "elasticity: every field of the records is in docs/record.md" \
		python3 tests/record-fields.py docs/record.md "$r"
	# the table's rows, for docs/host.md
	jq -r '[.parameters.mechanism, .parameters.pinned, (.steps[] | select(.step == "resize" or .step == "balloon" or (.step == "dimm" and .elastic.action == "detach")) |
		(.host.reclaimed_bytes / 1048576 | floor), (.host.reclaimed_of_unplugged * 100 | floor),
		(.seconds_to_converge // .elastic.seconds)), .verdict] | @tsv' "$r" | sed 's/^/# elasticity: /'
fi
