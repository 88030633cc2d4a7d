# tests/hardening-scenarios.sh - what a scenario, a record file or a run
# directory from elsewhere must not get past (issue 14), sourced by
# tests/run.sh (its ok/expect_fail/lab helpers, $LAB, $work). Nothing here
# boots a guest: each run/soak check also gives a path that cannot be read
# (--initrd, a missing scenario) or a finished soak, so that a memhp-lab which
# let the bad input through stops before any boot and fails the check.
plan 26
echo "# hardening: scenarios, records and run directories from elsewhere (issue 14)"
hw=$work/hardening
rm -rf "$hw" && mkdir -p "$hw"
noinit=(--initrd "$hw/no-initrd.cpio.gz")	# the stop before any boot

# 1. gnuplot runs `command` in a double-quoted string: record strings reach it single-quoted.
cp -r tests/data/report/run "$hw/rep"
jq -c --arg w "$hw" '.trial += " x'"'"'y \"`touch \($w)/PWNED-trial`\" `touch \($w)/PWNED-trial2`"
	| if (.parameters.pin_size? // null) then .parameters.pin_size += " `touch \($w)/PWNED-param`" else . end' \
	tests/data/report/run/trials.jsonl >"$hw/rep/trials.jsonl"
cp -r tests/data/capacity/run "$hw/cap"
jq -c --arg w "$hw" '.parameters.policy += " `touch \($w)/PWNED-group`"' \
	tests/data/capacity/run/trials.jsonl >"$hw/cap/trials.jsonl"
lab report "$hw/rep" >"$hw/rep.out" 2>&1
rc1=$?
lab report "$hw/cap" >"$hw/cap.out" 2>&1
rc2=$?
ok "report: trial ids, matrix values and capacity groups holding \`touch ...\` render (titles, tics, keys) and run nothing" \
	sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && grep -q "<svg" "$3/rep/report/index.html" &&
		grep -q "<svg" "$3/cap/report/index.html" && ! ls "$3"/PWNED-* 2>/dev/null' _ "$rc1" "$rc2" "$hw"

# 11. Limits before libyaml and the matrix cost their time: size, depth, combinations.
head -c 100000 /dev/zero | tr '\0' '[' >"$hw/deep.yaml"
expect_fail "check: 100000 nested brackets refused at once" 1 "deep.yaml:1:33: lists and mappings nest more than 32 deep" \
	timeout 10 $LAB check "$hw/deep.yaml"
{ head -c $((2 << 20)) /dev/zero | tr '\0' '#'; printf '\nnodes:\n  - memory: 1G\n'; } >"$hw/big.yaml"
expect_fail "check: a 2 MiB scenario refused, naming the file" 1 "big.yaml: the file is larger than 1024 KiB" \
	$LAB check "$hw/big.yaml"
{
	echo "matrix:"
	for a in 1 2 3 4 5 6 7; do echo "  a$a: [$(seq -s , 1 1000)]"; done
	printf '  exclude:\n    - {}\nnodes:\n  - memory: 1G\n'
} >"$hw/m7.yaml"
expect_fail "check: 7 axes of 1000 values refused at once with file:line and the product" 1 \
	"m7.yaml:1:1: the matrix has 1000 x 1000 x 1000 x 1000 x 1000 x 1000 x 1000 = 1000000000000000000000 combinations" \
	timeout 10 $LAB check "$hw/m7.yaml"

# 11b. No control character in a key or value (issue 30, finding 15): a quoted
# YAML string writes one ("\e", "\x9b"), and trial ids reach the terminal.
cat >"$hw/esc.yaml" <<'EOF2'
name: esc
matrix:
  v: ["a\e]0;PWNED\ab", "c\e[31md"]
nodes:
  - {memory: 256MiB, cpus: 1}
steps:
  - wait: {seconds: 1}
EOF2
$LAB check "$hw/esc.yaml" >"$hw/esc.out" 2>"$hw/esc.err"
rc=$?
ok "check: a matrix value holding an OSC title and a colour (\\e) is refused at its line, and no escape reaches stdout or stderr" \
	sh -c '[ "$1" = 1 ] && grep -q "esc.yaml:3:7: a value holding the control character U+001B" "$2/esc.err" &&
		! grep -q "$(printf "\033")" "$2/esc.out" "$2/esc.err"' _ "$rc" "$hw"
sed 's/^name: esc$/name: "c1\\x9bx"/' "$hw/esc.yaml" | sed '/^matrix:/,/^  v:/d' >"$hw/c1.yaml"
expect_fail "check: a name holding a C1 control (\\x9b, CSI) is refused at its line" 1 \
	"c1.yaml:1:7: a value holding the control character U\+009B" $LAB check "$hw/c1.yaml"

# 12. Trial ids are unique in a run; the second source is named with the first.
cp scenarios/demo.yaml "$hw/demo-copy.yaml"	# name: demo
expect_fail "run: one scenario given twice is refused, naming both" 2 \
	"trial id 'demo' twice: from scenarios/demo.yaml and from scenarios/demo.yaml \(the same file\)" \
	$LAB run -o "$hw/dup" "${noinit[@]}" scenarios/demo.yaml scenarios/demo.yaml
expect_fail "run: two files with one name: are refused, naming both" 2 \
	"trial id 'demo' twice: from scenarios/demo.yaml and from $hw/demo-copy.yaml" \
	$LAB run -o "$hw/dup" "${noinit[@]}" scenarios/demo.yaml "$hw/demo-copy.yaml"

# 12b. Console logs are named injectively (issue 30, finding 9): no two trials write one log.
# Two matrix values whose ids canonicalize alike and whose SHA-256 begin alike (found by a birthday search).
cat >"$hw/coll.yaml" <<'EOF2'
name: coll
matrix:
  v: ["   %!^! ", "  !^%#~^"]
nodes:
  - {memory: 256MiB, cpus: 1}
steps:
  - wait: {seconds: 1}
EOF2
expect_fail "check: two matrix trials whose console logs would be one file are refused, naming both and the file" 1 \
	"coll.yaml: trial 'coll:v=  !\^%#~\^' and trial 'coll:v=   %!\^! ' would share the console log 'coll_v_________-a291082d.console.log'" \
	$LAB check "$hw/coll.yaml"
# The same two trials from two files: their ids differ, their logs do not; `run` of both refused it, `check` of both did not.
sed 's/v: \["   %!^! ", "  !^%#~^"\]/v: ["   %!^! "]/' "$hw/coll.yaml" >"$hw/coll-a.yaml"
sed 's/v: \["   %!^! ", "  !^%#~^"\]/v: ["  !^%#~^"]/' "$hw/coll.yaml" >"$hw/coll-b.yaml"
expect_fail "check A B: a trial of each whose console logs would be one file are refused, naming both trials and both files" 1 \
	"coll-b.yaml: trial 'coll:v=  !\^%#~\^' and trial 'coll:v=   %!\^! ' of [^ ]*/coll-a.yaml would share the console log 'coll_v_________-a291082d.console.log'" \
	$LAB check "$hw/coll-a.yaml" "$hw/coll-b.yaml"

# 14. Deadlines are finite; one guest larger than MemAvailable is refused before boot.
expect_fail "run --agent-timeout inf is refused" 2 "--agent-timeout 'inf' is not a number of seconds in \(0, 86400\]" \
	$LAB run --agent-timeout inf -o "$hw/inf" "${noinit[@]}" scenarios/demo.yaml
expect_fail "run --agent-timeout nan is refused" 2 "--agent-timeout 'nan' is not a number of seconds" \
	$LAB run --agent-timeout nan -o "$hw/inf" "${noinit[@]}" scenarios/demo.yaml
expect_fail "soak --duration inf is refused" 2 "--duration 'inf' is not a duration of at most 366 days" \
	$LAB soak --duration inf -o "$hw/soakinf" "$hw/no-scenario.yaml"
sed 's/^  - memory: 128MiB$/  - memory: 16384GiB/' scenarios/demo.yaml >"$hw/huge.yaml"
expect_fail "run: one guest of 16 TiB is refused before boot with the numbers (default -j)" 2 \
	"run: [^ ]*/huge.yaml: trial 'demo': a guest that can make [0-9]+ MiB resident \(boot memory [0-9]+ MiB \+ node 1's hotplug memory 384 of 1024 MiB \(its steps touch 256 MiB \+ 128 MiB for the guest's own use\) \+ 256 MiB for QEMU\) does not fit in the [0-9]+ MiB available" \
	$LAB run -o "$hw/huge" "${noinit[@]}" "$hw/huge.yaml"
# check boots nothing, but says it: a warning, the file still ok (a fleet host may take it).
$LAB check "$hw/huge.yaml" scenarios/pin-policy-ab.yaml >"$hw/huge-check.out" 2>"$hw/huge-check.err"
rc=$?
ok "check: that 16 TiB guest is accepted with a warning naming what it can make resident and this host's MemAvailable (pin-policy-ab beside it, which fits, with none)" \
	sh -c '[ "$1" = 0 ] && grep -q "huge.yaml: ok: scenario" "$2/huge-check.out" &&
		[ "$(grep -c warning "$2/huge-check.err")" = 1 ] &&
		grep -Eq "^warning: .*huge.yaml: trial '"'demo'"': a guest that can make [0-9]{8,} MiB resident .* does not fit in the [0-9]+ MiB available on this host \(MemAvailable in /proc/meminfo\): run here refuses it" "$2/huge-check.err"' \
	_ "$rc" "$hw"
$LAB check --json "$hw/huge.yaml" >"$hw/huge-check.json" 2>/dev/null
ok "check --json: that trial holds the warning and its file is \"ok\": true" \
	jq -e '.refused == 0 and .files[0].ok == true and
		(.files[0].trials[0].warning | test("^a guest that can make [0-9]{8,} MiB resident .* does not fit in the [0-9]+ MiB available on this host"))' \
	"$hw/huge-check.json"
# A 1 TiB virtio-mem device (issue 36, item 5): plugging touches nothing, so
# what counts is what the steps can touch (the demo's 256 MiB pin);
# preallocated, the whole device counts (1 TiB fits no machine of ours).
sed 's/virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}/virtio_mem: {size: 1TiB, block: 2MiB, requested: 1TiB}/' \
	scenarios/demo.yaml >"$hw/big64.yaml"
expect_fail "run: a 1 TiB virtio-mem device with a 256 MiB pin passes the fit (it stops at the missing initramfs instead)" 2 \
	"run: cannot read '.*/no-initrd.cpio.gz'" $LAB run -o "$hw/big64" "${noinit[@]}" "$hw/big64.yaml"
{ cat "$hw/big64.yaml"; echo 'memory_backing: {source: anonymous, prealloc: true}'; } >"$hw/big64p.yaml"
expect_fail "run: the same device preallocated is refused: all of it counts (1049984 MiB with boot memory and QEMU's), each item named" 2 \
	"run: [^ ]*/big64p.yaml: trial 'demo': a guest that can make 1049984 MiB resident \(boot memory 1152 MiB \+ node 1's hotplug memory 1048576 MiB in full \(preallocated\) \+ 256 MiB for QEMU\) does not fit" \
	$LAB run -o "$hw/big64p" "${noinit[@]}" "$hw/big64p.yaml"
# The shipped 64 GiB row plugged unused (scenarios/scale/64g-unused.yaml)
# counts 3.5 GiB, not 67 GiB: it passes the fit on this 24 GiB host (its
# 8 GiB-in-use row counts 18.5 GiB, more than a busy host may have free).
# A hold of 2 TiB in a 4 TiB device is refused naming each item it counted
# and the file: what the steps touch, not the device.
expect_fail "run: the 64 GiB device plugged unused passes the fit (it stops at the missing initramfs)" 2 \
	"run: cannot read '.*/no-initrd.cpio.gz'" $LAB run -o "$hw/s64" "${noinit[@]}" scenarios/scale/64g-unused.yaml
sed 's/size: 64GiB,/size: 4TiB,/; s/size: 8GiB,/size: 2TiB,/' scenarios/scale/64g-used.yaml >"$hw/hold2t.yaml"
expect_fail "run: a 2 TiB hold in a 4 TiB device is refused with what it counted item by item: boot memory, 2 TiB + 128 MiB of the device, QEMU" 2 \
	"run: [^ ]*/hold2t.yaml: trial 'scale-64g-used': a guest that can make 2107904 MiB resident \(boot memory 10368 MiB \+ node 1's hotplug memory 2097280 of 4194304 MiB \(its steps touch 2097152 MiB \+ 128 MiB for the guest's own use\) \+ 256 MiB for QEMU\) does not fit in the [0-9]+ MiB available \(MemAvailable in /proc/meminfo\)" \
	$LAB run -o "$hw/hold2t" "${noinit[@]}" "$hw/hold2t.yaml"

# 15. One soak per run directory; a blank line among the checkpoints is an error.
mksoak() {	# DIR CYCLES CHECKPOINT-LINES...: a soak run directory
	local d=$1 c=$2; shift 2
	mkdir -p "$d"
	jq -n --arg s "$(pwd)/scenarios/soak.yaml" --argjson c "$c" \
		'{trial: "soak:soak:seed=1", scenario: $s, seed: "1", duration_s: 0, cycles: $c,
		  started: "2026-12-04T00:00:00Z"}' >"$d/soak.json"
	printf '%s\n' "$@" >"$d/checkpoints.jsonl"
}
cp1='{"cycle":1,"segment":0,"elapsed_s":1.0,"findings":[]}'
cp2='{"cycle":2,"segment":0,"elapsed_s":2.0,"findings":[]}'
mksoak "$hw/soakl" 1 "$cp1"
exec {soaklock}<"$hw/soakl/soak.json"
flock -x "$soaklock"
expect_fail "soak --resume of a run directory another soak holds is refused" 2 \
	"soakl' is in use by another memhp-lab soak" $LAB soak --resume "$hw/soakl"
exec {soaklock}<&-
# the refusal names the process that holds the lock, a soak's or a fleet soak's parent's
locker() {	# FILE: a process of its own holding FILE's flock, its pid in $lockpid
	python3 -c 'import fcntl, sys, time; f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(60)' "$1" &
	lockpid=$!
	for _ in $(seq 50); do flock -n "$1" true || break; sleep 0.1; done
}
locker "$hw/soakl/soak.json"
expect_fail "soak --resume of a run directory another process holds names that process" 2 \
	"soakl' is in use by another memhp-lab soak \(process $lockpid '[^']*python3 .*' holds the lock on .*/soakl/soak.json\); wait for that one" \
	$LAB soak --resume "$hw/soakl"
kill "$lockpid"; wait "$lockpid" 2>/dev/null
mkdir -p "$hw/fleetl/seed-1" && echo '{}' >"$hw/fleetl/seed-1/trials.jsonl"	# over: no host is ever asked
jq -n --arg s "$(pwd)/scenarios/soak.yaml" '{scenario: $s, seeds: ["1"], duration_s: 0, cycles: 1,
	hosts: "qemu:///embed?root=/nonexistent", hosts_file: null, started: "2026-12-04T00:00:00Z"}' >"$hw/fleetl/soak.json"
locker "$hw/fleetl/soak.json"
expect_fail "soak --resume of soaks over hosts another process holds is refused the same way" 2 \
	"fleetl' is in use by another memhp-lab soak \(process $lockpid '[^']*python3 .*' holds the lock on .*/fleetl/soak.json\); wait for that one" \
	$LAB soak --resume "$hw/fleetl"
kill "$lockpid"; wait "$lockpid" 2>/dev/null
expect_fail "soak --resume once the other soak is gone goes on (to: it is complete)" 2 "is complete \(1 cycles" \
	$LAB soak --resume "$hw/soakl"
mksoak "$hw/soakb" 1 "$cp1" "" "$cp2"
expect_fail "soak --resume: a blank line among the checkpoints is an error naming it" 2 \
	"checkpoints.jsonl:2: a blank line where the checkpoint of cycle 2 belongs" $LAB soak --resume "$hw/soakb"
# checkpoints.jsonl a link to a host file (a run directory from elsewhere):
# read through the directory's descriptor, never followed (it was checked
# without following, then read by name: a link swapped in between was read).
mksoak "$hw/soakln" 1 "$cp1"
printf '%s\n' "$cp1" >"$hw/host-cp.jsonl"
ln -sf "$hw/host-cp.jsonl" "$hw/soakln/checkpoints.jsonl"
expect_fail "soak --resume: checkpoints.jsonl a link to a host file is refused, named as a link, never read through" 2 \
	"soakln/checkpoints.jsonl': a symbolic link" $LAB soak --resume "$hw/soakln"
