# tests/cli.sh - the command line as a user and a CI job meet it (issue 22),
# sourced by tests/run.sh (uses its ok/lab_run helpers, $LAB, $B, $top,
# $work and the demo fixture). One short guest
# trial, for the exec step; the rest boots nothing:
# JSON from check, doctor and report --compare against docs/schemas/; the
# exit status per command as docs/cli.md says; the man page and the bash
# completion installed by `make install`; the docs that can drift (the record
# field list, conformance trial counts, where results go, file:line:column,
# the environment, the limits, the scenario keys, memhp-pin's modes, a run
# directory's files, the schemas, the source tree, the full tier's parts:
# tests/doc-tables.py) checked against what the code does.

plan 61
cli=$work/cli
mkdir -p "$cli"
# schema FILE NAME: FILE validates against docs/schemas/NAME.schema.json.
schema() { /usr/bin/python3 -m jsonschema -i "$1" "docs/schemas/$2.schema.json"; }
schema_refuses() { ! schema "$@" 2>/dev/null; }

echo "# cli: check --json (docs/schemas/check.schema.json)"
# The shipped scenarios but Debian's packaged kernels (scenarios/stock/: check
# resolves each package with apt, minutes; tests/stock.sh has them).
ship=$(ls scenarios/*.yaml scenarios/*/*.yaml | grep -v '^scenarios/stock/')
$LAB check --json $ship >"$cli/check.json" 2>"$cli/check.err"
rc=$?
check_all() { [ "$1" = 0 ] && schema "$2" check && jq -e '.refused == 0 and .trials == ([.files[].trials[]] | length) and .trials > 31' "$2"; }
ok "check --json of every shipped scenario (but stock/): exit 0, valid against check.schema.json, no file refused" check_all "$rc" "$cli/check.json"
$LAB check $ship 2>/dev/null | sed -n 's/^  \([^ ]\)/\1/p' >"$cli/check-text.ids"
ok "check --json lists the same trial ids as check's text, in the same order (every matrix)" \
	sh -c 'jq -r ".files[] | select((.trials | length) > 1 or (.trials[0].parameters | length) > 0) | .trials[].id" "$1" |
		cmp -s - "$2" && [ -s "$2" ]' _ "$cli/check.json" "$cli/check-text.ids"
printf 'name: bad\nnodes:\n  - memory: 1G\n    cpus: 9\n' >"$cli/bad.yaml"
$LAB check --json scenarios/demo.yaml "$cli/bad.yaml" >"$cli/check2.json" 2>/dev/null
rc=$?
check_mixed() {
	[ "$1" = 1 ] && schema "$2" check &&
		jq -e --arg bad "$3" '.refused == 1 and .files[0].ok and
			.files[0].trials == [{id: "demo", kernel: "6.12", pin_policy: "series", parameters: {}, nodes: 2, steps: 4}] and
			(.files[1] | .ok == false and .path == $bad and (.error | startswith($bad + ":4:11: cpus")))' "$2"
}
ok "check --json of a good and a bad file: exit 1, valid JSON, the bad one's error at file:line:column, the good one's trial with kernel and policy" \
	check_mixed "$rc" "$cli/check2.json" "$cli/bad.yaml"
jq '.files[0].trials[0] |= del(.kernel)' "$cli/check2.json" >"$cli/check-bad-shape.json"
ok "oracle: the check schema refuses a trial without its kernel (the schema can fail)" \
	schema_refuses "$cli/check-bad-shape.json" check
# Every independent error of a file in one pass (issue 32, item 9): three
# about unrelated parts (the policy, a node, a step), then 30 bad steps.
printf 'name: three\npin_policy: sometimes\nnodes:\n  - memory: 1G\n  - memory: 128M\n    colour: blue\nsteps:\n  - pin: {id: a, size: lots, node: 1}\n' >"$cli/three.yaml"
{ printf 'nodes:\n  - memory: 1G\nsteps:\n'; for i in $(seq 1 30); do printf '  - pin: {id: p%d, size: %dX}\n' "$i" "$i"; done; } >"$cli/thirty.yaml"
$LAB check "$cli/three.yaml" >"$cli/three.out" 2>"$cli/three.err"; rc3=$?
$LAB check "$cli/thirty.yaml" >/dev/null 2>"$cli/thirty.err"; rc30=$?
$LAB check --json "$cli/three.yaml" "$cli/thirty.yaml" scenarios/demo.yaml >"$cli/many.json" 2>/dev/null; rcj=$?
three_text() {
	local f=$cli/three.yaml
	[ "$rc3" = 1 ] && [ ! -s "$cli/three.out" ] &&
		diff - "$cli/three.err" <<-EOF
		error: $f:2:13: unknown pin_policy 'sometimes' (known: series, baseline)
		error: $f:6:5: unknown key 'colour' in a node (known: memory, cpus, virtio_mem)
		error: $f:8:24: size: 'lots' is not a size (unparsable; expected e.g. 256MiB, 1GiB, 0)
		check: $f: 3 errors
		EOF
}
ok "check of a file with three independent errors (a policy, a key of a node, a step's size): each at its file:line:column, in file order, then their count; exit 1" three_text
thirty_text() {
	local f=$cli/thirty.yaml
	[ "$rc30" = 1 ] && [ "$(wc -l <"$cli/thirty.err")" = 22 ] &&
		[ "$(head -n 20 "$cli/thirty.err" | sed -n 's/^error: .*thirty\.yaml:\([0-9]*\):[0-9]*: size: .\([0-9]*\)X. is not a size .*/\1 \2/p' |
			awk '$1 == NR + 3 && $2 == NR' | wc -l)" = 20 ] &&
		[ "$(tail -n 2 "$cli/thirty.err")" = "error: $f: and 10 more error(s) (check --json lists every one)
check: $f: 30 errors" ]
}
# Five independent mistakes of different kinds (issue 52 item 7: it took four
# rounds): a policy, a size of a device that is no multiple of its block, a
# size that is no size, a step naming a node the guest lacks (a cross-step
# check, once run only on a file with no other error), an expect's value.
cat >"$cli/five.yaml" <<'YAML'
name: five
kernel: "6.12"
pin_policy: colour
nodes:
  - memory: 1GiB
    cpus: 1
  - memory: 128MiB
    cpus: 1
    virtio_mem: {size: 2GB, block: 2MiB, requested: lots}
steps:
  - pin: {id: p, workload: io_uring, size: 64MiB, node: 2}
  - resize: {node: 1, requested: 0, deadline: 10}
  - expect: {integrity: maybe}
  - release: {id: p}
YAML
five_text() {
	local f=$cli/five.yaml
	$LAB check "$f" >/dev/null 2>"$cli/five.err"
	[ $? = 1 ] && diff - "$cli/five.err" <<-EOF
		error: $f:3:13: unknown pin_policy 'colour' (known: series, baseline)
		error: $f:9:17: virtio_mem: size (2000000000) must be a non-zero multiple of block (2097152, a power of two)
		error: $f:9:53: virtio_mem.requested: 'lots' is not a size (unparsable; expected e.g. 256MiB, 1GiB, 0)
		error: $f:11:5: step 'pin' names node 2, but the guest has 2 node(s)
		error: $f:13:25: integrity: only 'true' is meaningful here, not 'maybe'
		check: $f: 5 errors
		EOF
}
ok "check of a file with five independent mistakes (a policy, a device size and its requested size, a step's node, an expect's value): all five in one pass, at their lines" five_text
ok "check of a file with 30 errors prints the first 20 at their lines, in order, then 'and 10 more' and the count; exit 1" thirty_text
many_json() {
	[ "$rcj" = 1 ] && schema "$cli/many.json" check &&
		jq -e --arg a "$cli/three.yaml" --arg b "$cli/thirty.yaml" '.refused == 2 and .files[2].ok and
			(.files[0] | .ok == false and (.errors | length) == 3 and .error == .errors[0] and
				([.errors[] | ltrimstr($a + ":") | capture("^(?<at>[0-9]+:[0-9]+): ").at] == ["2:13", "6:5", "8:24"])) and
			(.files[1] | .ok == false and (.errors | length) == 30 and .error == .errors[0] and
				([.errors[] | ltrimstr($b + ":") | capture("^(?<l>[0-9]+):").l | tonumber] == [range(4; 34)]))' "$cli/many.json"
}
ok "check --json lists every error of a refused file (3 and 30, past the text's limit) in file order, error the first of errors; valid against check.schema.json" many_json
jq '.files[0] |= del(.errors)' "$cli/many.json" >"$cli/many-bad-shape.json"
ok "oracle: the check schema refuses a refused file without its errors (the schema can fail)" \
	schema_refuses "$cli/many-bad-shape.json" check

echo "# cli: doctor --json (docs/schemas/doctor.schema.json)"
timed "$ok_timeout" $LAB doctor --json >"$cli/doctor.json" 2>/dev/null
rc=$?
timed "$ok_timeout" $LAB doctor >"$cli/doctor.txt" 2>/dev/null
doctor_json() {
	schema "$1" doctor &&
		jq -e --argjson rc "$2" '.ready == ($rc == 0) and .failed == ([.checks[] | select(.ok | not)] | length)' "$1" &&
		[ "$(jq -r '.checks[] | (if .ok then (if .warning then "WARN" else "ok" end) else "FAIL" end) + " " + .check' "$1")" = \
		  "$(sed -n 's/^\(ok\|WARN\|FAIL\) *\(libvirt URI\|libvirt\|QEMU\|kernel [0-9.]* rdma\|kernel [0-9.]*\|kernel\|KVM\|guest image\|domain template\|memory\)  .*/\1 \2/p' "$3")" ]
}
ok "doctor --json: valid against doctor.schema.json, ready exactly when it exits 0, the text's checks and verdicts in its order" \
	doctor_json "$cli/doctor.json" "$rc" "$cli/doctor.txt"
# A 6.12-only setup (issue 32, item 2): a kernel cache holding 6.12 alone.
mkdir -p "$cli/cache612/kernel"
ln -s "$(realpath "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel/6.12")" "$cli/cache612/kernel/6.12"
cli_doc() { MEMHP_CACHE=$cli/cache612 timed "$ok_timeout" $LAB doctor "$@"; }
cli_doc --kernel 6.12 >"$cli/doc612.txt" 2>&1; doc612=$?
cli_doc >"$cli/docdef.txt" 2>&1; docdef=$?
cli_doc --kernel 6.1 >"$cli/doc61.txt" 2>&1; doc61=$?
ok "doctor --kernel 6.12 on a 6.12-only setup: exit 0, ready, 6.12 ok and no 6.1 line" \
	sh -c '[ "$2" = 0 ] && grep -q "^ok   kernel 6.12 " "$1" && ! grep -q "kernel 6.1 " "$1" && tail -n 1 "$1" | grep -qx ready' \
	_ "$cli/doc612.txt" "$doc612"
ok "doctor on a 6.12-only setup: 6.1 not built is a warning with its make target (not a failure), exit 0; a missing /dev/kvm is a warning too" \
	sh -c '[ "$2" = 0 ] && grep -q "^WARN kernel 6.1  .*not built.*make kernel KVERS=6.1" "$1" && ! grep -q "^FAIL" "$1" &&
		{ [ -e /dev/kvm ] || grep -q "^WARN KVM " "$1"; }' _ "$cli/docdef.txt" "$docdef"
mkdir -p "$cli/cache-nordma/kernel/6.12"
cp "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel/6.12/current" "$cli/cache-nordma/kernel/6.12/"
MEMHP_CACHE=$cli/cache-nordma timed "$ok_timeout" $LAB doctor --kernel 6.12 >"$cli/docnordma.txt" 2>&1; docnordma=$?
ok "doctor: a kernel's rdma flavour has its own line, ok where built, a warning naming its pointer and make kernel where not (exit 0)" \
	sh -c 'grep -q "^ok   kernel 6.12 rdma  .*/artifacts/" "$1" && [ "$3" = 0 ] &&
		grep -q "^WARN kernel 6.12 rdma  .*cache-nordma/kernel/6.12/rdma missing); only RDMA pins boot it: .*make kernel" "$2"' \
	_ "$cli/doc612.txt" "$cli/docnordma.txt" "$docnordma"
ok "doctor --kernel 6.1 on that setup: FAIL naming make kernel KVERS=6.1, exit 1" \
	sh -c '[ "$2" = 1 ] && grep -q "^FAIL kernel 6.1  .*make kernel KVERS=6.1" "$1"' _ "$cli/doc61.txt" "$doc61"
ok "doctor -c test:///default checks that daemon too: its line FAILs (it opens, but runs no QEMU guests), exit 1" \
	sh -c 'out=$(MEMHP_CACHE="$2" "$1" doctor --kernel 6.12 -c test:///default); [ $? = 1 ] &&
		printf "%s\n" "$out" | grep -q "^FAIL libvirt URI  *test:///default: opens, but offers no QEMU guests"' \
	_ "$LAB" "$cli/cache612"
# virsh's habits (issue 32, item 16): a global -c, help --help, cleanup reading
# LIBVIRT_DEFAULT_URI, source locations in errors only with -d.
ok "memhp-lab -c URI COMMAND: the URI reaches the command (doctor checks test:///default's daemon: its line FAILs)" \
	sh -c 'MEMHP_CACHE="$2" "$1" -c test:///default doctor --kernel 6.12 | grep -q "^FAIL libvirt URI  *test:///default: "' _ "$LAB" "$cli/cache612"
ok "memhp-lab help --help: its own usage, exit 0" sh -c '"$1" help --help | grep -q "^usage: memhp-lab help \[COMMAND\]"' _ "$LAB"
ok "cleanup with LIBVIRT_DEFAULT_URI=test:///default: that daemon's domains of dead runs looked at, as virsh would" \
	sh -c 'LIBVIRT_DEFAULT_URI=test:///default "$1" cleanup | grep -q "destroyed on test:///default"' _ "$LAB"
ok "errors name no source location (file.c:LINE) unless memhp-lab -d asks for it" \
	sh -c '! "$1" run --jobs x scenarios/demo.yaml 2>&1 | grep -q "\.c:[0-9]*)" &&
		"$1" -d run --jobs x scenarios/demo.yaml 2>&1 | grep -q "(orchestrator/[a-z/-]*\.c:[0-9]*)"' _ "$LAB"

echo "# cli: report --json, with and without --compare (docs/schemas/report.schema.json)"
cp -r tests/data/report/run "$cli/rep-run" && cp -r tests/data/report/before "$cli/rep-before"
$LAB report --json --compare "$cli/rep-before" "$cli/rep-run" >"$cli/report.json" 2>"$cli/report.err"
rc=$?
report_cmp() {
	[ "$1" = 1 ] && schema "$2" report && grep -q "report: 2 regression(s) since" "$3" &&
		jq -e '.compare.regressions == 2 and ([.compare.rows[] | select(.rank == "regression")] | length) == 2 and
			.compare.rows[0].rank == "regression" and
			(.compare.rows[] | select(.trial == "baseline-256") | .verdict_before == "pass" and .verdict_after == "fail")' "$2"
}
ok "report --json --compare: exit 1, valid, 2 regressions counted as the rows say and as stderr says" \
	report_cmp "$rc" "$cli/report.json" "$cli/report.err"
$LAB report --json --format ktap,junit "$cli/rep-run" >"$cli/report2.json" 2>/dev/null
rc=$?
report_plain() {
	[ "$1" = 0 ] && schema "$2" report &&
		jq -e '.compare == null and .trials == 6 and (.files | map(split("/") | last)) == ["junit.xml", "results.ktap"]' "$2"
}
ok "report --json without --compare: exit 0, valid, compare null, the two files asked for" report_plain "$rc" "$cli/report2.json"
jq '.compare.rows[0].rank = "worse"' "$cli/report.json" >"$cli/report-bad.json"
ok "oracle: the report schema refuses a rank outside its five (the schema can fail)" schema_refuses "$cli/report-bad.json" report

echo "# cli: exit status per command, as docs/cli.md says"
exits_documented() {
	local c line
	for c in run soak check report doctor cleanup help; do
		line=$($LAB help "$c" | sed -n 's/^exit status: //p')
		[ "$c" = help ] && line="0, 2 unknown command"
		grep -qF "| \`$c" docs/cli.md && grep -F "| \`$c" docs/cli.md | grep -qF "| $line |" ||
			{ echo "docs/cli.md: $c: not '$line'"; return 1; }
	done
}
ok "docs/cli.md's table has each command's exit status as its --help prints it (7 commands)" exits_documented

echo "# cli: make install puts the man page and the bash completion in DESTDIR"
inst=$cli/inst
ok "make install DESTDIR=\$work/cli/inst PREFIX=/usr: share/man/man1/memhp-lab.1 and share/bash-completion/completions/memhp-lab, as memhp-lab --man and --bash-completion print them" \
	sh -c 'make --no-print-directory -s B="$1" install DESTDIR="$2" PREFIX=/usr >/dev/null &&
		"$3" --man | cmp -s - "$2/usr/share/man/man1/memhp-lab.1" &&
		"$3" --bash-completion | cmp -s - "$2/usr/share/bash-completion/completions/memhp-lab"' _ "$B" "$inst" "$LAB"
ok "the installed doctor on an empty kernel cache: FAIL, its hints for an install (build in a memhp-lab checkout, then make install), no make target without that" \
	bash -c 'out=$(cd / && MEMHP_CACHE="$2" "$1" doctor 2>&1); [ $? = 1 ] &&
		grep -q "^FAIL kernel  .*build one in a memhp-lab checkout" <<<"$out" &&
		[ -z "$(grep "make " <<<"$out" | grep -v "in a memhp-lab checkout")" ]' \
	_ "$inst/usr/bin/memhp-lab" "$cli/cache-empty"
man1=$inst/usr/share/man/man1/memhp-lab.1
compl=$inst/usr/share/bash-completion/completions/memhp-lab
man_renders() {
	local out
	[ -z "$(groff -man -Tutf8 -ww -z "$man1" 2>&1)" ] || { groff -man -Tutf8 -ww -z "$man1"; return 1; }
	out=$(MANWIDTH=200 man -l "$man1" 2>&1) || return 1
	for s in NAME SYNOPSIS COMMANDS 'EXIT STATUS' ENVIRONMENT FILES 'SEE ALSO' \
		'memhp-lab run [OPTION]... SCENARIO...' 'memhp-lab doctor [OPTION]...' 'memhp-lab report [OPTION]... RUN_DIR'; do
		grep -qF -- "$s" <<<"$out" || { echo "man page lacks '$s'"; return 1; }
	done
}
ok "the installed man page renders with man -l and groff -ww without a warning: NAME to SEE ALSO, a section per command" man_renders
man_has_options() {
	local out c o
	out=$(MANWIDTH=200 man -l "$man1" 2>/dev/null)
	for c in run soak check report doctor cleanup; do
		for o in $($LAB "$c" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
			grep -qF -- "$o" <<<"$out" || { echo "man page lacks $c $o"; return 1; }
		done
		grep -qF -- "$($LAB help "$c" | sed -n 's/^exit status: //p' | cut -c1-40)" <<<"$(tr -s ' \n' ' ' <<<"$out")" ||
			{ echo "man page lacks $c's exit status"; return 1; }
	done
}
ok "the man page has every option of every command's --help and each command's exit status" man_has_options
# complete_as WORDS...: what the installed completion offers for the last word.
complete_as() {
	bash -c 'source "$1"; shift; complete -p memhp-lab >/dev/null || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		$(complete -p memhp-lab | sed -n "s/.*-F \([^ ]*\) .*/\1/p") memhp-lab "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$compl" "$@" 2>/dev/null
}
ok "completion (complete -p memhp-lab): 'memhp-lab ru<TAB>' completes to run, 'memhp-lab help re<TAB>' to report" \
	sh -c '[ "$1" = run ] && [ "$2" = report ]' _ "$(complete_as memhp-lab ru)" "$(complete_as memhp-lab help re)"
ok "completion: 'run --kern<TAB>' offers --kernel and --kernel-dir, 'run --pin-policy <TAB>' series and baseline, 'report -f k<TAB>' ktap and kcidb" \
	sh -c '[ "$1" = "--kernel --kernel-dir" ] && [ "$2" = "series baseline" ] && [ "$3" = "ktap kcidb" ]' _ \
	"$(complete_as memhp-lab run --kern | sort | xargs)" "$(complete_as memhp-lab run --pin-policy '' | xargs)" \
	"$(complete_as memhp-lab report -f k | xargs)"
ok "completion: 'check scenarios/de<TAB>' is scenarios/demo.yaml, 'run scenarios/capacity/z<TAB>' zones.yaml, 'report --compare tests/data/report/b<TAB>' a directory" \
	sh -c '[ "$1" = scenarios/demo.yaml ] && [ "$2" = scenarios/capacity/zones.yaml ] && [ "$3" = tests/data/report/before ]' _ \
	"$(complete_as memhp-lab check scenarios/de)" "$(complete_as memhp-lab run -q scenarios/capacity/z)" \
	"$(complete_as memhp-lab report --compare tests/data/report/b)"

echo "# cli: the exec step: a program of the scenario's own in the guest (scenarios/exec.yaml, one short trial)"
lab_run -o "$cli/exec" scenarios/exec.yaml >"$cli/exec.out" 2>&1
rc=$?
[ "$rc" = 0 ] || tail -n 5 "$cli/exec.out" | sed 's/^/#   /'
r=$cli/exec/trials.jsonl
ok "exec: the trial passes; argv recorded as the list given; the guest sees nodes 0-1 and, after the unplug, node 1's MemTotal" \
	jq -e '.verdict == "pass" and ([.steps[] | select(.step == "exec")] | length) == 5 and
		.steps[0].exec.argv == ["/bin/cat", "/sys/devices/system/node/online"] and .steps[0].exec.stdout == "0-1\n" and
		(.steps[3].exec.stdout | startswith("Node 1 MemTotal:"))' "$r"
ok "exec: no shell but the one named: exit 3 passes with exit: 3, its stdout and stderr kept apart" \
	jq -e '.steps[1].ok and (.steps[1].exec | .argv[2] == "echo out; echo err >&2; exit 3" and .exitcode == 3 and
		.exit_expected == 3 and .stdout == "out\n" and .stderr == "err\n" and .exited)' "$r"
ok "exec: output bounded: 16384 of seq's 108894 bytes kept, stdout_truncated; a failing command with measure: true recorded, the step ok" \
	jq -e '(.steps[4].exec | (.stdout | length) == 16384 and .stdout_bytes == 108894 and .stdout_truncated and (.stdout | startswith("1\n2\n"))) and
		(.steps[5] | .ok and .exec.exitcode != 0 and (.exec.stderr | test("nonexistent")))' "$r"

echo "# cli: the kernel's own mm selftests through exec, both kernels (scenarios/exec-gup-longterm.yaml, exec-selftests.yaml)"
# Both kernels in the full tier, 6.12 in the fast one: $ksft_all is one true per kernel.
ksft_only='*kernel=6.12*' ksft_all='[true]' ksft_runs=2
full && ksft_only='*' ksft_all='[true, true]' ksft_runs=4
lab_run -o "$cli/ksft" --only "$ksft_only" scenarios/exec-gup-longterm.yaml scenarios/exec-selftests.yaml >"$cli/ksft.out" 2>&1
[ $? = 0 ] || tail -n 5 "$cli/ksft.out" | sed 's/^/#   /'
r=$cli/ksft/trials.jsonl
ok "gup_longterm in the guest on 6.12 (and 6.1: full tier), before and after node 1's unplug: every KTAP result in the record, none failed, the plan met" \
	jq -se '[.[] | select(.trial | startswith("exec-gup-longterm:")) | .verdict == "pass" and ([.steps[] | select(.step == "exec") | .exec.ktap |
		.planned > 20 and .fail == 0 and .pass > 0 and (.results | length) == .planned and .bailed_out == false] == [true, true]) and
		.summary.reached_bytes == 0] == $all' --argjson all "$ksft_all" "$r"
ok "results.ktap nests gup_longterm's results under each exec step (a KTAP subtest per run, every result), and the whole file is valid KTAP" \
	sh -c '[ "$(grep -c "^    # Subtest: exec gup_longterm-6.12$" "$1")" = "$2" ] &&
		[ "$(grep -cE "^    (not )?ok [0-9]+ " "$1")" -ge $(($2 * 40)) ] && awk -f tests/ktap-check.awk "$1" >/dev/null' _ "$cli/ksft/report/results.ktap" "$ksft_runs"
ok "gup_test -L (each tree's own) on 6.12 (and 6.1: full tier): exit 0 before and after the unplug, its PIN_LONGTERM_BENCHMARK times kept" \
	jq -se '[.[] | select(.trial | startswith("exec-selftests:")) | .verdict == "pass" and
		([.steps[] | select(.step == "exec") | .exec.exitcode == 0 and (.exec.stdout | test("PIN_LONGTERM_BENCHMARK: Time: get:[0-9]+"))] == [true, true, true])] == $all' \
		--argjson all "$ksft_all" "$r"
# issue 31: v2's 6.12 selftest passed FOLL_GET for FOLL_TOUCH with -z: a WARN
# in is_valid_gup_args(), nothing pinned, "truncated (size: 0)", and a pass.
ok "gup_test -L -z (pages faulted in by the pin) on 6.12 (and 6.1: full tier): all 64 MiB pinned (no 'truncated'), exit 0, no WARN or other finding on the console" \
	jq -se '[.[] | select(.trial | startswith("exec-selftests:")) | .verdict == "pass" and
		([.steps[] | select(.step == "exec" and any(.exec.argv[]; . == "-z"))] | length == 1 and all(.exec.exitcode == 0 and
			(.exec.stdout | test("PIN_LONGTERM_BENCHMARK: Time: get:[0-9]+")) and (.exec.stdout | test("truncated|pinned [0-9]+ of") | not))) and
		(.console_findings | type == "array" and length == 0)] == $all' \
		--argjson all "$ksft_all" "$r"

echo "# cli: run --keep holds the guest after its steps until Ctrl-C"
keep_hold() {	# the demo with --keep: held (its QEMU up) after the steps; SIGINT ends it, recorded as a pass
	local out=$cli/keep.out pid q rc
	$LAB run --keep -o "$cli/keep" scenarios/demo.yaml >"$out" 2>&1 &
	pid=$!
	for _ in $(seq 1 120); do grep -q -- "--keep: guest" "$out" && break; sleep 1; done
	grep -q -- "--keep: guest 'memhp-demo-$pid-0' (trial demo) holds after its steps; console log $cli/keep/demo.console.log" "$out" || { kill $pid; wait $pid; return 1; }
	sleep 2
	q=$(pgrep -f "guest=memhp-demo-$pid-0" | wc -l)
	kill -INT $pid
	wait $pid
	rc=$?
	[ "$q" = 1 ] && [ "$rc" = 0 ] && [ "$(pgrep -f "guest=memhp-demo-$pid-0" | wc -l)" = 0 ] &&
		jq -e '.verdict == "pass" and .kept_s >= 2 and .summary.reached_bytes == 0' "$cli/keep/trials.jsonl" >/dev/null
}
ok "run --keep: after the demo's steps its guest stays up (QEMU running), Ctrl-C ends the hold: exit 0, verdict pass (not interrupted), kept_s recorded, no QEMU left" keep_hold
ok "the harness version (memhp-lab --version, git describe) is in the record, junit.xml's memhp.harness_version and every trial's KCIDB test misc" \
	sh -c 'v=$("$1" --version | sed -n "s/^memhp-lab //p" | cut -d" " -f1); [ -n "$v" ] &&
		jq -e --arg v "$v" ".harness_version == \$v" "$2/trials.jsonl" >/dev/null &&
		[ "$(xmllint --xpath "string(//property[@name=\"memhp.harness_version\"]/@value)" "$2/report/junit.xml")" = "$v" ] &&
		jq -e --arg v "$v" "[.tests[] | select(.misc.verdict) | .misc.harness_version == \$v] | length > 0 and all" "$2/report/kcidb.json" >/dev/null' _ "$LAB" "$cli/keep"
expect_fail "run --keep with a matrix of several trials: refused, asking for --only" 2 \
	"--keep holds one guest, and the scenarios give 2 trials: pick one with --only" $LAB run --keep -o "$cli/keep2" scenarios/exec-selftests.yaml

# --pin-policy/--kernel against a matrix axis (issue 32, item 20): a trial
# whose id says policy=baseline is not run under series; nothing boots here.
expect_fail "run --pin-policy series of c1's policy=baseline trial: not run (its axis chose baseline), so no trial: refused" 2 \
	"1-migrate-out.yaml: 1 trial\(s\) not run: their matrix axis chose another pin_policy than --pin-policy series" \
	$LAB run --pin-policy series --only 'c1-migrate-out:kernel=6.12,policy=baseline' -o "$cli/axis1" scenarios/conformance/1-migrate-out.yaml
expect_fail "run --kernel 6.12 of c1's kernel=6.1 trials: not run (their axis chose 6.1), so no trial: refused" 2 \
	"1-migrate-out.yaml: 2 trial\(s\) not run: their matrix axis chose another kernel than --kernel 6.12" \
	$LAB run --kernel 6.12 --only 'c1-migrate-out:kernel=6.1,*' -o "$cli/axis2" scenarios/conformance/1-migrate-out.yaml
ok "... and neither made a record or a run directory" sh -c '[ ! -e "$1/axis1/trials.jsonl" ] && [ ! -e "$1/axis2/trials.jsonl" ]' _ "$cli"

# A driver without a guest agent (issue 32, item 8): refused at once with the driver's name, not a 120 s poll.
expect_fail "run -c test:///default: refused at once, naming the TEST driver and the URIs that run QEMU guests" 2 \
	"libvirt at 'test:///default' is the TEST driver: memhp-lab runs QEMU guests" \
	timeout 60 $LAB run -c test:///default -o "$cli/testdrv" scenarios/demo.yaml
# A run directory that holds a run already (issue 32, item 5): refused before anything boots.
mkdir -p "$cli/taken" && echo '{}' >"$cli/taken/trials.jsonl"
expect_fail "run -o DIR where a run is already: refused before anything boots, pointing to --resume, another -o and --append" 2 \
	"run directory '.*/taken' is not empty: a run is there already; finish it with --resume .*/taken, give another -o, or add to it with --append" \
	$LAB run -o "$cli/taken" scenarios/demo.yaml

echo "# cli: docs that can drift, checked against what the code does"
# With the demo fixture's record (tests/lib.sh: this harness's guest trial),
# also every top-level field the docs name must be in a record. The fixture
# must have made it: without it the check ran without --complete and that
# half of it was dropped in silence.
demo=$(fixture demo)/run
recs="$demo/trials.jsonl $(ls tests/data/*/*/trials.jsonl) $cli/exec/trials.jsonl"
ok "docs/record.md names every field of real records (the demo fixture's, which must be there, tests/data's, the exec trial's), and no top-level field the docs name is missing from them: top level, summary, each step kind" \
	/usr/bin/python3 tests/record-fields.py --complete docs/record.md $recs
head -n 1 tests/data/report/run/trials.jsonl | jq -c '.bogus_field = 1 | .steps[0].also_bogus = 2' >"$cli/undocumented.jsonl"
ok "oracle: tests/record-fields.py names a field the docs do not (a top-level one and a step's)" \
	sh -c '! /usr/bin/python3 tests/record-fields.py docs/record.md "$1" >"$2" && grep -q "bogus_field" "$2" && grep -q "also_bogus" "$2"' \
	_ "$cli/undocumented.jsonl" "$cli/undocumented.out"
# The docs' tables against the code (tests/doc-tables.py, issue 32, item 19):
# each CHECK prints what differs, in both directions where both can be read.
doc_table() { MHL_LAB=$LAB /usr/bin/python3 tests/doc-tables.py "$@"; }
ok "docs/scenarios.md has every key the loader takes (top level, each step kind's keys in the steps table, the pin's values, online: and guest:) and no key it refuses" \
	doc_table scenario-keys
ok "docs/workloads.md's modes table is memhp-pin's modes (struct pin_mode) and the scenario's workloads; bench, ctl and leak shown" \
	doc_table workloads
ok "README's results table and docs/reports.md's files are what the demo fixture's run directory holds: each entry has a row, each row is there, report/ and sysinfo/pre/ files named" \
	doc_table run-dir "$demo"
ok "every docs/schemas/*.json a doc names exists, each is linked from docs/cli.md, and README claims a schema only for commands that have one" \
	doc_table schemas
ok "docs/architecture.md's folder list names each .c file of orchestrator/ and reports/, and README's Layout each script of kernel/, workloads/, tools/ and each docs page; nothing named is missing" \
	doc_table architecture
ok "docs/testing.md's full-tier table has a row for exactly the parts with a full-tier section" doc_table full-tier
ok "numbers stated twice agree: README's conformance run as docs/conformance.md's last run, README's part count as tests/run.sh's, docs/stock.md's scenarios and trial count as scenarios/stock/ expands" \
	doc_table numbers
# The oracle: a copy of the docs with one entry of each table broken; each check fails naming it.
doc_tables_break() {
	local d=$cli/docs-broken c want rc=0
	rm -rf "$d" && mkdir -p "$d" && cp -r README.md docs "$d/" || return 1
	sed -i 's/^online: movable /onlin: movable /' "$d/docs/scenarios.md"
	# xfail's policy: gone from its example; grid's policy: is still in the doc
	sed -i '/^    policy: series  *# series or baseline; absent: both$/d' "$d/docs/scenarios.md"
	sed -i '/^| `kmem` |/d' "$d/docs/workloads.md"
	sed -i '/^| `started.jsonl` |/d' "$d/README.md"
	sed -i 's|\[doctor.schema.json\](schemas/doctor.schema.json)|[run.schema.json](schemas/run.schema.json)|' "$d/docs/cli.md"
	sed -i 's/ results\.c (the results tree:/ (the results tree:/' "$d/docs/architecture.md"
	sed -i '/^| stock |/d' "$d/docs/testing.md"
	sed -i 's/^trials in 5 min 48 s here/trials in 5 min 18 s here/' "$d/README.md"
	sed -i 's/`make stock` runs [0-9]*/`make stock` runs 19/' "$d/docs/stock.md"	# issue 52: the table said 19 when it ran 20
	for c in "scenario-keys:top-level key 'onlin'" "scenario-keys:xfail: key 'policy'" "workloads:memhp-pin mode 'kmem'" \
		"run-dir:entry 'started.jsonl'" "schemas:schemas/run.schema.json: no such file" \
		"architecture:orchestrator/cli/results.c: not named" "full-tier:part with a full-tier section 'stock'" \
		"numbers:README.md's conformance run: 44 trials in 5 min 18 s" "numbers:docs/stock.md: \`make stock\` runs 19"; do
		want=${c#*:} c=${c%%:*}
		if [ "$c" = run-dir ]; then set -- "$demo"; else set --; fi
		if doc_table --docs "$d" "$c" "$@" >"$cli/broken-$c.out" || ! grep -qF -- "$want" "$cli/broken-$c.out"; then
			echo "doc-tables.py $c: passed or did not say '$want' on the broken copy:"; cat "$cli/broken-$c.out"; rc=1
		fi
	done
	return $rc
}
ok "oracle: each of those checks fails on a copy of the docs with one entry of its table broken, naming the entry" doc_tables_break
conf_counts() {
	local quick sub all
	quick=$(jq '[.files[] | select(.path | test("conformance/[138]-")) | .trials[] | select(.kernel == "6.12")] | length' "$cli/check.json")
	sub=$(jq '[.files[] | select(.path | test("conformance/[134568]-")) | .trials[] | select(.kernel == "6.12")] | length' "$cli/check.json")
	all=$(jq '[.files[] | select(.path | test("conformance/")) | .trials[]] | length' "$cli/check.json")
	echo "check expands: quick $quick, make check's subset $sub, all $all"
	grep -q "(six trials," docs/conformance.md && [ "$quick" = 6 ] &&
		grep -q "\`, $sub trials, about" docs/conformance.md &&
		grep -q "^$all trials in " docs/conformance.md && grep -q "all ten claims, $all" README.md
}
ok "docs/conformance.md and README count the trials check --json expands: quick subset, make check's claims on 6.12, all" conf_counts
results_dir() {
	(cd "$cli" && rm -rf results && "$1" run --uri 'qemu+unix:///system?socket=/nonexistent/sock' "$2/scenarios/demo.yaml" >/dev/null 2>&1
	 ls -d results/demo-[0-9][0-9][0-9][0-9][0-1][0-9][0-3][0-9]-[0-2][0-9][0-5][0-9][0-5][0-9]) &&
		grep -qF 'writes to `results/<name>-<YYYYmmdd-HHMMSS>/`' README.md &&
		grep -qF 'writes to `results/<name>-<YYYYmmdd-HHMMSS>/`' docs/cli.md
}
ok "a plain run writes to results/<name>-<YYYYmmdd-HHMMSS>/ under the current directory, as README and docs/cli.md say" \
	results_dir "$(realpath "$LAB")" "$top"
ok "that run directory as a results tree (issue 32, item 18): results/latest points at it, run.json has a 40-hex job_id and host_identity, sysinfo/pre/ holds the host's meminfo and identity" \
	sh -c 'd=$(ls -d "$1"/results/demo-2*) && [ "$(readlink "$1/results/latest")" = "${d##*/}" ] &&
		jq -e "(.job_id | test(\"^[0-9a-f]{40}$\")) and (.host_identity.kernel | length > 0)" "$d/run.json" >/dev/null &&
		grep -q "^MemTotal:" "$d/sysinfo/pre/meminfo" && jq -e .hostname "$d/sysinfo/pre/host_identity.json" >/dev/null' _ "$cli"
# Errors about a part of the file: each must name file:line:column (docs/scenarios.md),
# the line and column of that part: each case is "LINE:COL BODY".
i=0 at=
for t in '4:5 nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 2}\n' \
	'4:5 nodes:\n  - memory: 1G\nsteps:\n  - release: {id: ghost}\n' \
	'5:5 nodes:\n  - memory: 1G\n  - memory: 128M\nsteps:\n  - pin: {id: v, workload: vfio, size: 2M}\n' \
	'6:14 nodes:\n  - memory: 1G\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 1G}\nsteps:\n  - expect: {unplug: reached}\n' \
	'5:5 nodes:\n  - memory: 1G\n  - memory: 1G\nsteps:\n  - resize: {node: 1, requested: 0}\n' \
	'3:17 nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 1M, requested: 0}\n' \
	'1:7 name: "a b"\nnodes:\n  - memory: 1G\n' \
	'4:40 nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: p, size: 2M, fails_with: SIGFOO}\n' \
	'6:5 nodes:\n  - memory: 1G\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M}\n  - pin: {id: a, size: 1M}\n'; do
	i=$((i + 1))
	printf "${t#* }" >"$cli/pos-$i.yaml"
	at="$at\"${t%% *}\","
done
$LAB check --json "$cli"/pos-*.yaml >"$cli/pos.json" 2>/dev/null
ok "check names file:line:column for each of $i errors about a part of the file, the line and column of that part (a node, a step and the steps before it, a value)" \
	jq -e --argjson n "$i" --argjson at "[${at%,}]" '.refused == $n and
		[.files[] | .path as $p | .error | select(startswith($p + ":")) | ltrimstr($p + ":") | capture("^(?<at>[0-9]+:[0-9]+): ").at] == $at' "$cli/pos.json"
env_documented() {
	local v man
	man=$(MANWIDTH=200 man -l "$man1" 2>/dev/null | sed -n '/^ENVIRONMENT/,/^FILES/p')
	for v in $(grep -rhoE 'g_(get|set)env\("[A-Z_]+"' orchestrator reports lib | sed 's/.*"\(.*\)"/\1/' | sort -u); do
		grep -q "^| \`$v\` |" docs/cli.md && grep -q "^ *$v\$" <<<"$man" || { echo "$v: not in docs/cli.md's or the man page's environment"; return 1; }
	done
	for v in KVERS 'V=1'; do grep -q "^| \`$v\` |" docs/cli.md || { echo "$v: not in docs/cli.md"; return 1; }; done
}
ok "every variable the orchestrator reads (g_getenv/g_setenv) is in docs/cli.md's and the man page's environment; KVERS and V=1 too" env_documented
limits() {
	local n5 c0 c8 c9
	n5=$(printf 'nodes:\n  - memory: 1G\n  - memory: 1G\n  - memory: 1G\n  - memory: 1G\n  - memory: 1G\n' >"$cli/n5.yaml"; $LAB check "$cli/n5.yaml" 2>&1)
	printf 'nodes:\n  - memory: 1G\n  - memory: 1G\n  - memory: 1G\n  - memory: 1G\n' >"$cli/n4.yaml"
	printf 'nodes:\n  - memory: 1G\n    cpus: 8\n' >"$cli/c8.yaml"
	printf 'nodes:\n  - memory: 1G\n    cpus: 0\n' >"$cli/c0.yaml"
	$LAB check "$cli/n4.yaml" "$cli/c8.yaml" >/dev/null || { echo "4 nodes or 8 cpus refused"; return 1; }
	! $LAB check "$cli/c0.yaml" 2>/dev/null && ! $LAB check "$cli/bad.yaml" 2>/dev/null && [ -n "$n5" ] && ! $LAB check "$cli/n5.yaml" 2>/dev/null &&
		grep -q '^#define MHL_MAX_NODES 4$' orchestrator/scenario/scenario.h &&
		grep -qF '| NUMA nodes per guest | 1 to 4 |' docs/cli.md && grep -qF '| cpus per node | 1 to 8 |' docs/cli.md
}
ok "limits as docs/cli.md says: 4 nodes and 8 cpus accepted, 5 nodes, 0 and 9 cpus refused" limits
