#!/bin/bash
# tests/run.sh - the test suite: `make check` (the fast tier) and
# `make check-full` (every check), one KTAP line per check, then
# "N passed, N failed".
#
#   tests/run.sh [--full] [-j N] [PART...]
#   tests/run.sh --list [--full]
#
# A part is one file tests/NAME.sh, run in a process of its own with the
# helpers of tests/lib.sh; it reads nothing another part made (what several
# need is a fixture, made once by name: tests/lib.sh). Its first command is
# `plan N` or `plan N full M`: the checks it makes in the fast tier and in the
# full tier (its `if full; then ... fi` sections). The run's plan is computed
# from those lines before anything runs; each part's checks are a KTAP
# subtest, and the part is one result of the top level: ok when it made
# exactly its planned checks and all passed. A part that ends early (an exit,
# an unbound variable, its deadline MHL_PART_TIMEOUT, 2400 s) fails.
#
# Every tests/*.sh is a part (in $parts, in the order they run) or a helper
# (in $helpers); a file that is neither fails the run, so a new part cannot
# be forgotten.
#
# -j N runs N parts side by side (MHL_PARTS_JOBS, default 2: most parts boot
# one guest at a time, and the second core would idle); their output is
# printed in the order of $parts. Logs of a failed run stay in the directory
# the last line names.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)

# The parts, in the order they run and are printed; the longest first, so that
# two side by side end together (by their seconds in the last clean-clone
# make check, docs/testing.md "Where make check's time goes"; unit last).
parts=(
	orchestrator	# matrices, -j, the console watcher, faults, interrupts, doctor
	soak		# soak runs: a short seeded soak, SIGKILL and --resume, a finding, the leak detector
	conformance	# the quick subset of the seed conformance suite
	stock		# Debian's own 6.1 and 6.12 cloud kernels from apt
	fleet		# shards and report --merge; libvirt hosts that share no path (full tier: a host killed, soaks over hosts)
	workloads	# the pinning workloads: gup, io_uring, vfio, vfio-noiommu, rdma
	report		# reports from recorded runs and from the demo fixture
	integration	# the real guest: the demo record, the series' A/B on both kernels, SIGTERM, a panic
	host		# the host side: memory back per backing, the hugepage pool, the plug path, kill -9
	hardening-kill	# kill -9 leaves no guest; cleanup touches only ours; lost trials, run --resume
	cli		# JSON against docs/schemas/, exit codes, man page and completion, exec, docs against the code
	kernel-series	# the series' own guarantees and selftests in the guest
	fuzz		# libFuzzer: each parser briefly over its corpus and regression inputs
	trust		# packages, .debs, modules trees, run directories and hosts files as data: nothing runs
	kernel		# the kernels' configs, checkpatch, MAINTAINERS, bisectable series
	migrate		# the migrate step: a guest live-migrated to a second libvirt daemon with pins held (full: baseline, 6.1, after an unplug)
	lifecycle-reboot	# reboot and suspend with memory plugged and a pin held: re-plug, pins gone, a pin after
	lifecycle-daemon	# daemon-restart: the run's libvirt daemon restarted under a guest with a pin held (full: the refusals, a failing and a hung command)
	dimm		# the dimm step: a DIMM attached, pinned, detached (full: c9 on 6.1, check's refusals, a hot-added virtio-mem device)
	balloon		# the virtio balloon beside virtio-mem: only:, the balloon step's refusals, one balloon trial (full: the elasticity comparison)
	lifecycle-save	# save and managedsave with memory plugged and a pin held: image, pin, unplug after (issue 34)
	stacks		# the hypervisor stack as an axis: the demo on QEMU 10.0 + libvirt 11.3 (bookworm-backports root), kill -9, refusals (full: both stacks in one run)
	basics		# the CLI's bad input; make install into a DESTDIR
	hardening-records	# guest text, records of the wrong shape, console logs outside the run
	hardening-scenarios	# scenario limits, XML and gnuplot escaping, ids, deadlines, the soak lock
	report-lifecycle	# lifecycle steps (issue 34) in every report format, from hand-written records
	report-elastic	# the other paths (issue 35: dimm, vmem, balloon, hugepages) and the elasticity table in every report format, from hand-written records
	hugepages	# the hugepages step and the scattered pin: check's and memhp-pin's refusals, a scattered io_uring pin on this host (full: claim 10 on both kernels and policies, a short pool, a 1 GiB page)
	capacity	# capacity sweeps: a small grid's frontier is monotone; the report's sentences
	image		# the guest image without a kernel build: an empty kernel cache, the header from linux-source (full: from nothing, make demo's stock result on it)
	nightly		# the nightly gate: three nights on a kernel handed over as build:DIR, pass, pass, a regression, a broken gnuplot; the recipe installed
	unit		# build/unit-tests: every row of tests/unit/*.c
)
# Sourced or run by the parts, never run as a part.
helpers=(
	run		# this file
	lib		# the parts' helpers
	libvirtd-lib	# a system libvirtd in a private mount namespace
	libvirtd-run	# one scenario through such a daemon, with tests/oracle.py
	libvirtd-dead-run	# a run through such a daemon killed with SIGKILL
	libvirtd-host	# one libvirt "host" of the fleet tests, in namespaces of its own
	libvirtd-managedsave-kill	# a run on such a daemon killed inside a managedsave step, then cleanup
	libvirtd-restart	# restart such a host's daemon under its running guests (run --daemon-restart in tests/lifecycle-daemon.sh)
)

usage() {
	cat <<EOF
usage: tests/run.sh [--full] [-j N] [PART...]
       tests/run.sh --list [--full]
  --full   the full tier (make check-full): every check; default the fast tier (make check)
  -j N     run N parts side by side (MHL_PARTS_JOBS, default 2)
  --list   the parts and their planned checks in the tier, one per line
parts: ${parts[*]}
EOF
}

# --- one part, in its own process: tests/run.sh --in-part NAME STATE ----------
if [ "${1:-}" = --in-part ]; then
	# The runner's own names start with mhl_: a part may use any other.
	mhl_name=$2 mhl_state=$3 mhl_want=$4 mhl_finished=0
	work=$MHL_WORK/$mhl_name
	mkdir -p "$work"
	# Everything the part prints, indented as a KTAP subtest.
	exec > >(exec sed -u 's/^/    /') 2>&1
	mhl_indent=$!
	exec {tap_fd}>&1
	. tests/lib.sh
	mhl_on_exit() {
		local rc=$? made=$((n - extra))
		# pass fail made planned finished
		echo "$pass $fail $made $mhl_want $mhl_finished" >"$mhl_state"
		exec >&- 2>&- {tap_fd}>&-
		wait "$mhl_indent" 2>/dev/null
		exit $rc
	}
	trap mhl_on_exit EXIT
	echo "1..$mhl_want"
	. "tests/$mhl_name.sh"
	mhl_finished=1
	exit 0
fi

tier=fast jobs=${MHL_PARTS_JOBS:-2} list=0 sel=()
while [ $# -gt 0 ]; do
	case $1 in
	--full) tier=full;;
	--list) list=1;;
	-j) jobs=${2:-}; shift;;
	-j*) jobs=${1#-j};;
	-h|--help) usage; exit 0;;
	-*) echo "tests/run.sh: unknown option '$1'" >&2; usage >&2; exit 2;;
	*) sel+=("$1");;
	esac
	shift
done
case $jobs in ''|*[!0-9]*|0) echo "tests/run.sh: -j needs a positive number, not '$jobs'" >&2; exit 2;; esac

# part_plan NAME: the planned checks of tests/NAME.sh in this tier, from its
# `plan N [full M]` line (the first line that is not a comment or blank).
part_plan() {
	local line
	line=$(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "tests/$1.sh" 2>/dev/null | head -n 1)
	if [[ $line =~ ^plan\ ([0-9]+)(\ full\ ([0-9]+))?$ ]]; then
		if [ $tier = full ]; then echo "${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}"; else echo "${BASH_REMATCH[1]}"; fi
		return 0
	fi
	return 1
}

known() { local p; for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
if [ ${#sel[@]} -eq 0 ]; then
	sel=("${parts[@]}")
else
	for p in "${sel[@]}"; do
		known "$p" || { echo "tests/run.sh: no part '$p' (parts: ${parts[*]})" >&2; exit 2; }
	done
	# In the order of $parts, each once.
	mapfile -t sel < <(for p in "${parts[@]}"; do for s in "${sel[@]}"; do [ "$p" = "$s" ] && echo "$p" && break; done; done)
fi

if [ $list = 1 ]; then
	for p in "${sel[@]}"; do printf '%-20s %s\n' "$p" "$(part_plan "$p" || echo '?')"; done
	exit 0
fi

work=$(mktemp -d /tmp/mhl-check-XXXXXX)
export MHL_WORK=$work MHL_FIXTURES=$work/fixtures MHL_TIER=$tier
mkdir -p "$MHL_FIXTURES"
part_timeout=${MHL_PART_TIMEOUT:-2400}
pass=0 fail=0 n=0 total=$((${#sel[@]} + 1)) t_start=$EPOCHSECONDS
leaves=0
for p in "${sel[@]}"; do leaves=$((leaves + $(part_plan "$p" || echo 0))); done

echo "KTAP version 1"
echo "# tier $tier: ${#sel[@]} part(s), $leaves planned checks, $jobs side by side; logs in $work"
echo "1..$total"

# What runs each part: a process group of its own (setsid), so its deadline
# takes down all it started.
start_part() {	# NAME
	local p=$1 want
	want=$(part_plan "$p") || want=-1
	( exec setsid timeout --kill-after=10 "$part_timeout" \
		"$top/tests/run.sh" --in-part "$p" "$work/$p.state" "$want" \
		>"$work/$p.tap" 2>&1 ) &
	eval "pid_$(echo "$p" | tr -c 'a-z0-9\n' _)=\$!"
	echo "$EPOCHSECONDS" >"$work/$p.t0"
}

# finish_part NAME RC: print its subtest and its result at the top level.
finish_part() {
	local p=$1 rc=$2 want ps=0 pf=0 made=0 fin=0 why=
	want=$(part_plan "$p") || { want=0; why="tests/$p.sh has no 'plan N [full M]' line first"; }
	[ -s "$work/$p.state" ] && read -r ps pf made _ fin <"$work/$p.state"
	echo "# Subtest: $p"
	cat "$work/$p.tap"
	pass=$((pass + ps)) fail=$((fail + pf))
	if [ -z "$why" ]; then
		if [ "$fin" != 1 ] || [ ! -s "$work/$p.state" ]; then
			case $rc in 124|137) why="past its deadline of $part_timeout s (MHL_PART_TIMEOUT) after $made of $want checks";;
			*) why="ended early (exit $rc) after $made of $want planned checks";;
			esac
		elif [ "$made" != "$want" ]; then
			why="made $made checks, planned $want"
		fi
	fi
	n=$((n + 1))
	if [ -z "$why" ] && [ "$pf" = 0 ]; then
		echo "ok $n $p"
		pass=$((pass + 1))
	else
		echo "not ok $n $p${why:+ # $why}"
		fail=$((fail + 1))
	fi
	echo "# part $p: $(($(cat "$work/$p.t1") - $(cat "$work/$p.t0"))) s"
}

# Up to $jobs parts at once; printed in order as each one ahead has ended.
next=0 printed=0
declare -A running=() rcs=()
while [ $printed -lt ${#sel[@]} ]; do
	while [ $next -lt ${#sel[@]} ] && [ ${#running[@]} -lt "$jobs" ]; do
		start_part "${sel[$next]}"
		v=pid_$(echo "${sel[$next]}" | tr -c 'a-z0-9\n' _)
		running[${!v}]=${sel[$next]}
		next=$((next + 1))
	done
	if [ ${#running[@]} -gt 0 ]; then
		wait -n -p done_pid "${!running[@]}"
		rc=$?
		rcs[${running[$done_pid]}]=$rc
		echo "$EPOCHSECONDS" >"$work/${running[$done_pid]}.t1"
		unset "running[$done_pid]"
	fi
	while [ $printed -lt $next ] && [ -n "${rcs[${sel[$printed]}]:-}" ]; do
		finish_part "${sel[$printed]}" "${rcs[${sel[$printed]}]}"
		printed=$((printed + 1))
	done
done

# The suite itself: every tests/*.sh a part or a helper.
stray=()
for f in tests/*.sh; do
	b=$(basename "$f" .sh)
	known "$b" && continue
	for h in "${helpers[@]}"; do [ "$h" = "$b" ] && continue 2; done
	stray+=("$f")
done
n=$((n + 1))
if [ ${#stray[@]} -eq 0 ]; then
	echo "ok $n every tests/*.sh is a part or a listed helper (tests/run.sh)"
	pass=$((pass + 1))
else
	echo "not ok $n every tests/*.sh is a part or a listed helper (tests/run.sh) # stray: ${stray[*]}"
	fail=$((fail + 1))
fi

echo "# tier $tier: $((EPOCHSECONDS - t_start)) s"
echo "$pass passed, $fail failed"
if [ "$fail" = 0 ]; then rm -rf "$work"; else echo "# logs kept in $work"; fi
[ "$fail" = 0 ]
