#!/bin/bash
# tools/fuzz.sh - run the libFuzzer targets (tests/fuzz/<target>.c, built by
# `make fuzz-build` into build/fuzz/<target>, ASan + UBSan).
#
#   tools/fuzz.sh [--seconds S] [TARGET...]       make fuzz: each target S (60) s
#   tools/fuzz.sh --check --out DIR [--seconds S] TARGET   make check (tests/fuzz.sh)
#   tools/fuzz.sh --list                          the targets
#
# Each target first runs its regression inputs (tests/fuzz/crashes/<target>/,
# every crash found, kept) once each, then fuzzes for S seconds starting from
# tests/fuzz/corpus/<target>/, the regression inputs and its seed folders
# (scenario: scenarios/), with tests/fuzz/<target>.dict when there is one.
#
# make fuzz: new inputs go to build/fuzz/corpus/<target>/ (reused next time);
# the first crash of a target whose regression inputs all pass is saved in
# tests/fuzz/crashes/<target>/ (a regression input from then on), later ones
# (likely the same bug again) in build/fuzz/crashes/<target>/ to look at; after
# a crash the fuzzer starts again for the time left, at most 10 times;
# a crash like one seen before (same report, same frame) gets one line.
# Prints per target the executions, coverage (cov: of libFuzzer's last
# stats), new crashes and regression inputs that still crash; exits 1 if any.
#
# --check: nothing in the tree changes (new inputs and crashes go to DIR);
# exits 1 on any crash, its last lines naming the input and the report.
# One process per target (no -jobs/-fork): the machine is shared.
set -u
cd "$(dirname "$0")/.."

seconds=60 check=0 out=
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2;;
	--check) check=1; shift;;
	--out) out=$2; shift 2;;
	--list) for f in tests/fuzz/*.c; do basename "$f" .c; done; exit 0;;
	-*) echo "usage: tools/fuzz.sh [--check --out DIR] [--seconds S] [TARGET...]" >&2; exit 2;;
	*) targets+=("$1"); shift;;
	esac
done
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <("$0" --list)
if [ "$check" = 1 ] && [ -z "$out" ]; then
	echo "Error: --check needs --out DIR" >&2; exit 2
fi

# UBSan findings are fatal (-fno-sanitize-recover) and come with a stack.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# A single input past 10 s is a hang; 2 GiB of RSS is a runaway.
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

# seeds TARGET: folders of seed inputs besides tests/fuzz/corpus/TARGET.
seeds() {
	case $1 in
	scenario) echo scenarios;;
	esac
}

# report LOG: the lines of a crash: the sanitizer's or the check's words, then
# the first frames in our code (orchestrator/, reports/, lib/, tests/fuzz/).
report() {
	grep -E -m 6 '^(==[0-9]+==ERROR|SUMMARY:|fuzz: |.*runtime error:|ALARM:)' "$1"
	grep -E '^ +#[0-9]+ .* ([^ ]*/)?(orchestrator|reports|lib|tests/fuzz)/[^ ]+\.[ch]:[0-9]+' "$1" | head -n 4 |
		sed -E 's/ \(BuildId: [0-9a-f]+\)//; s/^ +/    /'
}

# signature LOG: what tells one bug from another: the kind of report and the
# first frame in our code (file:line), without addresses or pids.
signature() {
	local kind frame
	kind=$(grep -m 1 -oE 'runtime error: [^,]*|^fuzz: [^:]+:[0-9]+|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|ALARM: working on the last Unit|out-of-memory' "$1")
	frame=$(grep -m 1 -oE ' in [^ ]+ ([^ ]*/)?(orchestrator|reports|lib)/[^ ]+\.[ch]:[0-9]+' "$1" | sed -E 's#^ in ##; s# [^ ]*/(orchestrator|reports|lib)/# \1/#')
	echo "${kind:-crash}${frame:+ in $frame}"
}

# regress TARGET BIN LOG: each regression input once; prints those that still
# crash, their reports in LOG.report.
regress() {
	local t=$1 bin=$2 log=$3 f
	: >"$log.report"
	: >"$log.sigs"
	for f in tests/fuzz/crashes/$t/*; do
		[ -f "$f" ] || continue
		"$bin" "${common[@]}" "$f" >"$log" 2>&1 && continue
		echo "$f"
		{ echo "$f:"; report "$log" | sed 's/^/  /'; } >>"$log.report"
		echo "$(signature "$log")" >>"$log.sigs"
	done
}

rc=0
for t in "${targets[@]}"; do
	bin=build/fuzz/$t
	if [ ! -x "$bin" ]; then
		echo "Error: no $bin (make fuzz-build; targets: $("$0" --list | tr '\n' ' '))" >&2
		rc=1; continue
	fi
	if [ "$check" = 1 ]; then
		new=$out/$t/new arts=$out/$t/
	else
		new=build/fuzz/corpus/$t arts=tests/fuzz/crashes/$t/
	fi
	mkdir -p "$new" "$arts" tests/fuzz/crashes/$t build/fuzz/crashes/$t
	log=${out:-build/fuzz}/$t.log
	mkdir -p "$(dirname "$log")"

	# Regression inputs first: one that still crashes fails the check at once.
	stale=$(regress "$t" "$bin" "$log")
	nreg=$(find tests/fuzz/crashes/$t -type f | wc -l)
	nstale=$(printf '%s' "$stale" | grep -c .)
	if [ "$nstale" -gt 0 ]; then
		echo "fuzz $t: $nstale of $nreg regression input(s) still crash:"
		sed 's/^/  /' "$log.report"
		rc=1
		if [ "$check" = 1 ]; then
			echo "fuzz $t: not fuzzed; regression inputs that still crash: $(echo $stale)"
			continue
		fi
	fi

	dirs=("$new" tests/fuzz/corpus/$t)
	for d in $(seeds "$t"); do dirs+=("$d"); done
	regs=()
	[ "$nstale" = 0 ] && regs=(tests/fuzz/crashes/$t)
	[ "$check" = 0 ] && [ "$nstale" != 0 ] && arts=build/fuzz/crashes/$t/
	dict=()
	[ -f tests/fuzz/$t.dict ] && dict=(-dict=tests/fuzz/$t.dict)

	execs=0 cov=? crashes=() t0=$SECONDS left=$seconds tries=0
	declare -A seen=()	# signature -> the first input that showed it
	while IFS= read -r sig; do seen[$sig]="a regression input"; done <"$log.sigs"
	while [ "$left" -gt 0 ] && [ $tries -lt 10 ]; do
		tries=$((tries + 1))
		"$bin" "${common[@]}" "${dict[@]}" -max_total_time="$left" -artifact_prefix="$arts" \
			"${dirs[@]}" "${regs[@]}" >"$log" 2>&1
		frc=$?
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		execs=$((execs + ${n:-0}))
		c=$(grep -oE ' cov: [0-9]+' "$log" | tail -n 1 | tr -dc 0-9)
		[ -n "$c" ] && cov=$c
		[ "$frc" = 0 ] && break
		rc=1
		found=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
		found=${found:-"(exit $frc, no input saved: $log)"}
		crashes+=("$found")
		sig=$(signature "$log")
		if [ -n "${seen[$sig]:-}" ]; then
			echo "fuzz $t: crash after $((SECONDS - t0)) s: $found: $sig, as ${seen[$sig]}"
		else
			seen[$sig]=$found
			echo "fuzz $t: crash after $((SECONDS - t0)) s: $found"
			report "$log" | sed 's/^/  /'
		fi
		[ "$check" = 1 ] && break
		regs=()	# the new crash is among them: start again without
		arts=build/fuzz/crashes/$t/
		left=$((seconds - (SECONDS - t0)))
	done
	distinct=0
	for sig in "${!seen[@]}"; do [ "${seen[$sig]}" != "a regression input" ] && distinct=$((distinct + 1)); done
	echo "fuzz $t: $execs executions in $((SECONDS - t0)) s, cov: $cov, crashes: ${#crashes[@]} ($distinct new bug(s))${crashes:+, the first ${crashes[0]}}, regression inputs: $nreg${stale:+ ($nstale still crash)}"
	unset seen
done
exit $rc
