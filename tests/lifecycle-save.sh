# tests/lifecycle-save.sh - save and managedsave with memory plugged and a
# pin held (issue 34, docs/lifecycle.md), sourced by tests/run.sh. Fast tier:
# one save/restore trial (6.12, series, smaller than the shipped scenario),
# judged from its record and its console log; the same trial under gdb, its
# save image's XML tampered before the restore (issue 48: the restore runs the
# domain's own XML, not the image's). Full tier: the shipped
# scenarios' matrices (both kernels, both policies), and a save past its
# deadline (aborted: the guest runs on, the step fails naming its line), a
# VFIO pin across a save (scenarios/lifecycle/save-vfio.yaml's xfail), and
# a run on a libvirt daemon killed inside a managedsave step (the domain then
# defined): `cleanup --uri` leaves nothing defined.
plan 11 full 27

# lc_small SRC DST: the shipped scenario with smaller sizes (a 128 MiB pin,
# 256 MiB plugged), for the fast tier's time.
lc_small() {
	sed -e 's/requested: 512MiB}/requested: 256MiB}/' -e 's/size: 256MiB, node: 1}/size: 128MiB, node: 1}/' "$1" >"$2"
}

# The trial's save step ($1: its kind) of record $r, as jq's $s.
lcs() { echo ".steps[] | select(.step == \"$1\") | .lifecycle as \$s"; }

echo "# lifecycle-save: save, restore and unplug (6.12, series, 128 MiB io_uring pin on 256 MiB plugged)"
lc_small scenarios/lifecycle/save-restore.yaml "$work/save-small.yaml"
lab_run -o "$work/save" --only '*kernel=6.12,policy=series' "$work/save-small.yaml" >"$work/save.out" 2>&1
[ $? = 0 ] || tail -n 5 "$work/save.out" | sed 's/^/#   /'
r=$work/save/trials.jsonl
ok "save: the trial passed; its save step ran ok, its lifecycle says event save, ok" \
	jq -e '.verdict == "pass" and ([.steps[] | select(.step == "save")] | length == 1 and .[0].ok and .[0].lifecycle.event == "save" and .[0].lifecycle.ok)' "$r"
ok "save: the image holds at least the pinned pattern and at most boot + plugged memory (+ 64 MiB of device state); boot + plugged as the record's nodes and plugged_before say" \
	jq -e --argjson pin $((128 << 20)) "([.domain.nodes[].memory_bytes] | add) as \$boot | $(lcs save) |
		(\$s.plugged_before | map(.size_bytes) | add) as \$pl |
		\$s.guest_memory_bytes == \$boot + \$pl and \$pl == $((256 << 20)) and
		\$s.image_bytes >= \$pin and \$s.image_bytes <= \$s.guest_memory_bytes + $((64 << 20))" "$r"
ok "save: timings recorded: save_s, restore_s > 0, down_s covers both, agent_s >= 0; plugged_after as before" \
	jq -e "$(lcs save) | \$s.save_s > 0 and \$s.restore_s > 0 and \$s.down_s >= \$s.save_s + \$s.restore_s and
		\$s.agent_s >= 0 and \$s.plugged_after == \$s.plugged_before" "$r"
ok "save: the check after the restore found the pattern intact, no pinned page in ZONE_MOVABLE, none moved since the pin" \
	jq -e '[.steps[] | select(.step == "check")][0].workload | .pattern_ok == true and .census.by_zone.Movable == 0 and .pages_moved_since_pin == 0' "$r"
ok "save: the unplug after the restore reached 0" \
	jq -e '.steps[] | select(.step == "resize") | .converged == true and .reached_bytes == 0' "$r"
# The console log goes on from the new QEMU: the unplug's kernel message
# (after the restore) is in the bytes appended after the save.
log=$(jq -r .console_log "$r")
off=$(jq -r "$(lcs save) | \$s.console_bytes_at_save" "$r")
# console_after LOG OFF: OFF is a byte count inside LOG and the unplug's
# message is after it. A null OFF (no save step, no such field) was read as
# 0 by $((...)), and the whole log searched.
console_after() {
	case $2 in ''|*[!0-9]*|0) echo "console_bytes_at_save '$2': no byte count above 0"; return 1;; esac
	[ "$(stat -c %s "$1")" -gt "$2" ] || { echo "console log '$1' holds no byte after $2"; return 1; }
	tail -c +$(($2 + 1)) "$1" | grep -q "virtio_mem virtio[0-9]*: requested size: 0x0"
}
ok "save: the console log continues after the restore (virtio_mem's 'requested size: 0x0' of the unplug after byte $off)" \
	console_after "$log" "$off"
# lc_gone DIR IMAGE REC: no *.save in DIR, IMAGE gone and never in DIR (issue
# 48: the image lives in a private directory, never the run's), REC's console
# clean. IMAGE must be a path the record gave: `[ ! -e null ]` (jq -r of a
# missing image_path) and `[ ! -e "" ]` hold whatever happened to the image.
lc_gone() {
	[ -d "$1" ] || { echo "no run directory $1"; return 1; }
	case $2 in /*.save) ;; *) echo "image_path '$2': no absolute path of a .save image"; return 1;; esac
	case $2 in "$1"/*) echo "image_path '$2' is in the run directory"; return 1;; esac
	! ls "$1"/*.save 2>/dev/null | grep -q . && [ ! -e "$2" ] && [ ! -e "$(dirname "$2")" ] && console_clean "$3"
}
ok "save: the image was not in the run directory but in a private one (issue 48), both gone; no save image left in the run directory; the console clean" \
	lc_gone "$work/save" "$(jq -r "$(lcs save) | \$s.image_path" "$r")" "$r"
ok "save: no QEMU of the run left" no_qemu
ok "save: every field of the record is in docs/record.md (the save step's lifecycle among them)" \
	python3 tests/record-fields.py docs/record.md "$r"
lab report --format html,ktap "$work/save" >"$work/save-report.out" 2>&1
ok "save: report of this run (a real record): the HTML summary's lifecycle column and KTAP's diagnostic give the save's outcome, seconds and the record's image MiB" \
	bash -c 'mib=$(jq -r "[.steps[] | select(.step == \"save\")][0].lifecycle.image_bytes / 1048576 | round" "$1/trials.jsonl") &&
		grep -qE "<td>save ✓ [0-9.]+ s \($mib(\.[0-9])? MiB image\)</td>" "$1/report/index.html" &&
		grep -qE "^  # save: save ok [0-9.]+ s \($mib(\.[0-9])? MiB image\)" "$1/report/results.ktap"' _ "$work/save"

echo "# lifecycle-save: the save image's XML is not trusted (issue 48): tampered between the save and the restore"
# gdb stops memhp-lab at virDomainRestoreFlags, and the image it is about to
# restore gets, in its header's XML, an emulator of the same length: a wrapper
# that marks a guest start (-name guest=...) and runs the real QEMU. A restore
# that trusts the image's XML starts the wrapper; one given the domain's own
# XML (dxml) starts /usr/bin/qemu-system-x86_64. (libvirt's capabilities
# probe of the wrapper runs it without -name: no mark.)
evil=$(mktemp -d /tmp/mhl48-XXXXXX) && wrap=$evil/qemu-evil	# 27 characters, as /usr/bin/qemu-system-x86_64
printf '#!/bin/sh\ncase " $* " in *" -name "*) echo "$*" >%s/marker;; esac\nexec /usr/bin/qemu-system-x86_64 "$@"\n' "$evil" >"$wrap"
chmod 755 "$wrap"
printf '%s\n' 'import sys' \
	'path, wrapper = sys.argv[1], sys.argv[2].encode()' \
	'real, evil = b"<emulator>/usr/bin/qemu-system-x86_64</emulator>", b"<emulator>" + wrapper + b"</emulator>"' \
	'assert len(evil) == len(real)' \
	'f = open(path, "r+b")' \
	'at = f.read(1 << 20).find(real)' \
	'if at < 0: sys.exit("tamper: no emulator in the header of " + path)' \
	'f.seek(at); f.write(evil); f.close()' \
	'print("tamper: %s: emulator %s" % (path, sys.argv[2]))' >"$work/tamper.py"
printf '%s\n' 'set pagination off' 'set confirm off' 'handle all nostop noprint pass' 'set breakpoint pending on' \
	'break virDomainRestoreFlags' 'commands' 'silent' 'printf "restore: dxml %s\n", $rdx ? "given" : "NULL"' \
	"eval \"shell python3 $work/tamper.py '%s' $wrap\", (char *)\$rsi" 'continue' 'end' 'run' >"$work/restore.gdb"
timed "$run_timeout" gdb -q -batch -x "$work/restore.gdb" --args $LAB run -q -o "$work/tamper" \
	--only '*kernel=6.12,policy=series' "$work/save-small.yaml" >"$work/tamper.out" 2>&1
ok "save: its image's XML given another emulator before the restore (gdb at virDomainRestoreFlags): the restore got the domain's own XML (dxml), the emulator the image named never ran a guest, the trial passed" \
	sh -c 'grep -q "^tamper: .*: emulator $2" "$1.out" && grep -q "^restore: dxml given" "$1.out" && [ ! -e "$3/marker" ] &&
		jq -e ".verdict == \"pass\" and ([.steps[] | select(.step == \"save\")][0].lifecycle.ok)" "$1/trials.jsonl" >/dev/null' \
	_ "$work/tamper" "$wrap" "$evil"
[ ! -e "$evil/marker" ] || echo "#   the tampered image's emulator ran a guest: $(head -c 200 "$evil/marker")"
rm -rf "$evil"

if full; then
	echo "# lifecycle-save (full): scenarios/lifecycle/save-restore.yaml, both kernels, both policies"
	lab_run -o "$work/sr" scenarios/lifecycle/save-restore.yaml >"$work/sr.out" 2>&1
	r=$work/sr/trials.jsonl
	ok "save-restore: 4 trials, all pass" jq -se 'length == 4 and all(.verdict == "pass")' "$r"
	ok "save-restore: each save ok, image within [pinned, boot + plugged + 64 MiB], plugged_after as before" \
		jq -se "all($(lcs save) | \$s.ok and \$s.image_bytes >= $((256 << 20)) and
			\$s.image_bytes <= \$s.guest_memory_bytes + $((64 << 20)) and \$s.plugged_after == \$s.plugged_before)" "$r"
	ok "save-restore: series: after the restore the pin is outside ZONE_MOVABLE, data intact, the unplug reaches 0" \
		jq -se 'map(select(.parameters.policy == "series")) | length == 2 and all(
			([.steps[] | select(.step == "check")][0].workload | .pattern_ok and .census.by_zone.Movable == 0) and
			(.steps[] | select(.step == "resize") | .reached_bytes == 0))' "$r"
	ok "save-restore: baseline: after the restore the pin is still in ZONE_MOVABLE, data intact, the unplug stops short at >= 256 MiB" \
		jq -se 'map(select(.parameters.policy == "baseline")) | length == 2 and all(
			([.steps[] | select(.step == "check")][0].workload | .pattern_ok and .census.by_zone.Movable == 65536) and
			(.steps[] | select(.step == "resize") | .converged == false and .reached_bytes >= 268435456))' "$r"
	ok "save-restore: no image left in the run directory" \
		sh -c '[ -d "$1" ] && ! ls "$1"/*.save 2>/dev/null | grep -q .' _ "$work/sr"
	ok "save-restore: no QEMU of the run left" no_qemu

	echo "# lifecycle-save (full): scenarios/lifecycle/managedsave.yaml, both kernels, both policies"
	lab_run -o "$work/ms" scenarios/lifecycle/managedsave.yaml >"$work/ms.out" 2>&1
	r=$work/ms/trials.jsonl
	ok "managedsave: 4 trials, all pass" jq -se 'length == 4 and all(.verdict == "pass")' "$r"
	ok "managedsave: each ok, the image (in the embedded root's save directory) within [pinned, boot + plugged + 64 MiB]" \
		jq -se "all($(lcs managedsave) | \$s.ok and \$s.image_bytes >= $((256 << 20)) and
			\$s.image_bytes <= \$s.guest_memory_bytes + $((64 << 20)) and \$s.plugged_after == \$s.plugged_before)" "$r"
	ok "managedsave: series: pin outside ZONE_MOVABLE, unplug to 0; baseline: pin in ZONE_MOVABLE, unplug short" \
		jq -se 'all(if .parameters.policy == "series" then
			([.steps[] | select(.step == "check")][0].workload.census.by_zone.Movable == 0) and (.steps[] | select(.step == "resize") | .reached_bytes == 0)
			else ([.steps[] | select(.step == "check")][0].workload.census.by_zone.Movable == 65536) and (.steps[] | select(.step == "resize") | .reached_bytes >= 268435456) end)' "$r"
	ok "managedsave: no QEMU of the run left" no_qemu

	echo "# lifecycle-save (full): a save past its deadline is aborted, the guest runs on, the step fails naming its line"
	sed -e 's/save: {deadline: 120}/save: {deadline: 0.2}/' "$work/save-small.yaml" >"$work/save-short.yaml"
	line=$(grep -n 'save: {deadline: 0.2}' "$work/save-short.yaml" | cut -d: -f1)
	lab_run -o "$work/short" --only '*kernel=6.12,policy=series' "$work/save-short.yaml" >"$work/short.out" 2>&1
	r=$work/short/trials.jsonl
	ok "save past its deadline: fail, reason names the step's file:line and the abort" \
		jq -e --arg at "save-short.yaml:$line)" '.verdict == "fail" and (.reason | contains($at) and test("save of domain .* did not end within 0.2 s: aborted, the guest runs on"))' "$r"
	ok "save past its deadline: the lifecycle is not ok; the guest ran on (its agent answered the snapshot after the steps, nothing 'stopped on its own')" \
		jq -e '(.steps[] | select(.step == "save") | .lifecycle.ok == false) and (.guest_after.vmstat | type) == "object" and (.reason | test("on its own") | not)' "$r"
	ok "save past its deadline: no save image left in the run directory" \
		sh -c '[ -d "$1" ] && ! ls "$1"/*.save 2>/dev/null | grep -q .' _ "$work/short"

	echo "# lifecycle-save (full): a VFIO pin (vIOMMU + edu) across a save: the declared deviation"
	lab_run -o "$work/vfio" scenarios/lifecycle/save-vfio.yaml >"$work/vfio.out" 2>&1
	ok "save-vfio: xfail: the save and restore ok, then edu's DMA through the pins finds 4 of 4 pages bad, the pattern broken" \
		jq -e '.verdict == "xfail" and (.steps[] | select(.step == "save") | .lifecycle.ok) and
			(.steps[] | select(.step == "check") | .workload | .pattern_ok == false and .io.pages_bad == 4 and .pages_moved_since_pin == 0)' "$work/vfio/trials.jsonl"

	echo "# lifecycle-save (full): kill -9 inside a managedsave step on a libvirt daemon, then cleanup --uri"
	timed $((run_timeout + 120)) unshare -m --propagation private tests/libvirtd-managedsave-kill.sh "$work/ldm" "$top/$LAB" "$top/scenarios/lifecycle/managedsave.yaml"
	ok "managedsave killed: the step had the domain defined (listed with --all after the kill)" \
		grep -q '^memhp-managedsave_' "$work/ldm/before"
	ok "managedsave killed: 'cleanup --uri' exits 0 and leaves no domain defined, no managed save image" \
		sh -c "grep -q 'cleanup=0' '$work/ldm/rc' && ! grep -q 'memhp-' '$work/ldm/after' && [ ! -s '$work/ldm/savedir' ]"
fi
