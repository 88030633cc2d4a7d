# tests/lib.sh - what every part of the test suite shares, sourced by
# tests/run.sh in the process that runs one part (tests/NAME.sh). A part
# makes checks with ok / expect_fail, runs memhp-lab with lab / lab_run /
# lab_bg + lab_wait, and takes what several parts need from a fixture
# (`fixture demo`), never from another part's $work.
#
# Every command a check or a part runs has a deadline (tmo): MHL_OK_TIMEOUT
# (120) s for a check's command, MHL_CHECK_TIMEOUT (900) s for a memhp-lab
# run. A command runs in a process group of its own; at the deadline the whole
# group gets SIGTERM (memhp-lab destroys its guests and records them
# 'interrupted'), SIGKILL 10 s later, and the check reads
# "not ok N DESC # TIMEOUT after S s". The part itself runs under
# MHL_PART_TIMEOUT (tests/run.sh), which covers the work between checks.
#
# Set by tests/run.sh before this file: $top (the checkout), $work (this
# part's scratch directory), $MHL_FIXTURES (shared by the parts of one run),
# $MHL_TIER (fast or full), $tap_fd (where check lines go).

B=${B:-build}
# make coverage runs the parts with its instrumented builds.
LAB=${MHL_LAB:-$B/memhp-lab}
UNIT=${MHL_UNIT:-$B/unit-tests}
pass=0 fail=0 n=0 extra=0 part_t0=$EPOCHSECONDS
ok_timeout=${MHL_OK_TIMEOUT:-120}
run_timeout=${MHL_CHECK_TIMEOUT:-900}
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}

# full: true in the full tier (make check-full); a part's sections that only
# the full tier runs are `if full; then ... fi`, counted in its `plan N full M`.
full() { [ "${MHL_TIER:-fast}" = full ]; }

# plan N [full M]: the part's planned checks in the fast tier (N) and the full
# tier (M). tests/run.sh reads this line from the file before the part runs;
# here it only has to be the part's first command.
plan() { :; }

# art KVER: the artifact directory of the built kernel KVER (make kernel).
art() { cat "$cache/kernel/$1/current"; }

# config_lacking CONFIG OUT: CONFIG without CONFIG_GUP_TEST and CONFIG_VIRTIO_MEM
# (a required option and a capability), into OUT: what the kernel and
# integration parts hand to the config checks as an incomplete kernel.
config_lacking() {
	grep -v -e '^CONFIG_GUP_TEST=y' -e '^CONFIG_VIRTIO_MEM=y' "$1" >"$2"
}

# tmo S CMD...: CMD (a program or a shell function) with a deadline of S
# seconds, in a process group of its own that the deadline kills whole.
# Returns CMD's exit status; tmo_fired=1 when the deadline passed.
tmo() {
	local s=$1 rc p w mark; shift
	tmo_fired=0 tmo_s=$s
	case $(type -t "$1") in
	builtin|keyword)	# test, [: nothing to wait for
		"$@"
		return;;
	file)	# a program: timeout(1) makes a process group of its own and
		# signals it whole at the deadline
		local t0=$EPOCHSECONDS
		timeout --kill-after=10 "$s" "$@"
		rc=$?
		case $rc in 124|137) [ $((EPOCHSECONDS - t0)) -ge "$s" ] && tmo_fired=1;; esac
		return $rc;;
	esac
	# A shell function: job control for these two jobs: each becomes the leader of its own
	# process group, so everything the command starts (memhp-lab under sh -c,
	# a guest) is signalled as one, and so is the watchdog with its sleep.
	mark=$work/.tmo.$BASHPID.$RANDOM
	rm -f "$mark"
	set -m
	"$@" <&0 &
	p=$!
	(
		sleep "$s"
		touch "$mark"
		kill -TERM -- -$p 2>/dev/null
		sleep 10
		kill -KILL -- -$p 2>/dev/null
	) >/dev/null 2>&1 &
	w=$!
	set +m
	# A plain wait on one pid (wait -n can miss a job that ended before it
	# was called, and then waits for the watchdog instead).
	wait $p
	rc=$?
	kill -KILL -- -$w 2>/dev/null
	wait $w 2>/dev/null
	# What the command left running in its group dies with it.
	kill -KILL -- -$p 2>/dev/null
	if [ -e "$mark" ]; then
		rm -f "$mark"
		tmo_fired=1
		return 124
	fi
	return $rc
}

# check_result DESC RC CMD...: count and print one check: CMD exited RC, past its
# deadline if tmo_fired (of the tmo that ran it).
check_result() {
	local desc=$1 rc=$2; shift 2
	n=$((n + 1))
	# where a part's time goes: seconds since it started, at each check
	echo "$n $((EPOCHSECONDS - part_t0)) $desc" >>"$work/times"
	if [ "$rc" = 0 ]; then
		echo "ok $n $desc" >&$tap_fd; pass=$((pass + 1))
		return 0
	fi
	fail=$((fail + 1))
	if [ "$tmo_fired" = 1 ]; then
		echo "not ok $n $desc # TIMEOUT after $tmo_s s"
	else
		echo "not ok $n $desc"
	fi >&$tap_fd
	echo "# command: $*" >&$tap_fd
	return 1
}

ok() {	# ok DESC CMD... : one check, CMD with a deadline of $ok_timeout s
	local desc=$1; shift
	tmo "$ok_timeout" "$@" >>"$work/log" 2>&1
	check_result "$desc" $? "$@" || tail -n 5 "$work/log" | sed 's/^/#   /' >&$tap_fd
	return 0
}

# expect_fail DESC EXIT PATTERN CMD...: CMD exits EXIT and stderr matches PATTERN.
expect_fail() {
	local desc=$1 want=$2 pat=$3 rc; shift 3
	tmo "$ok_timeout" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$tmo_fired" = 1 ]; then
		check_result "$desc (exit $want, says '$pat')" $rc "$@"
	else
		ok "$desc (exit $want, says '$pat')" test "$rc" = "$want" -a -n "$(grep -E -- "$pat" "$work/err")"
	fi
	[ "$rc" = "$want" ] || echo "#   exit was $rc; stderr: $(head -c 300 "$work/err")"
}

# timed S CMD...: CMD with a deadline of S s, for a command whose output later
# checks judge; past the deadline it is a failed check of its own (not in the
# plan: counted in $extra). Returns CMD's exit status.
timed() {
	local s=$1 rc; shift
	tmo "$s" "$@"
	rc=$?
	[ "$tmo_fired" = 1 ] && extra=$((extra + 1)) && check_result "$*" $rc "$@"
	return $rc
}

# lab ARGS...: memhp-lab ARGS with the run deadline (timed).
lab() { timed "$run_timeout" $LAB "$@"; }

# lab_bg ARGS...: memhp-lab ARGS in the background, in a process group of its
# own, with the run deadline; lab_wait waits for it. lab_pid is memhp-lab's own
# pid: signal it, and its guests are named memhp-<trial>-<lab_pid>-<n>.
lab_bg() {
	local pidf=$work/lab.pid
	rm -f "$pidf"
	set -m
	timeout --kill-after=10 "$run_timeout" \
		bash -c 'echo $$ >"$0" && exec "$@"' "$pidf" $LAB "$@" &
	lab_job=$!
	set +m
	lab_t0=$EPOCHSECONDS lab_cmd="$LAB $*"
	for _ in $(seq 1 100); do [ -s "$pidf" ] && break; sleep 0.05; done
	lab_pid=$(cat "$pidf" 2>/dev/null)
}

# lab_wait: memhp-lab's exit status; past the deadline, a failed check of its own.
lab_wait() {
	local rc
	wait "$lab_job" 2>/dev/null
	rc=$?
	tmo_fired=0 tmo_s=$run_timeout
	case $rc in 124|137) [ $((EPOCHSECONDS - lab_t0)) -ge "$run_timeout" ] && tmo_fired=1;; esac
	[ "$tmo_fired" = 1 ] && extra=$((extra + 1)) && check_result "$lab_cmd" $rc "$lab_cmd"
	return $rc
}

# memhp-lab run in the background, its pid remembered for no_qemu; returns its exit status.
lab_pids=""
lab_run() {
	lab_bg run "$@"
	lab_pids="$lab_pids $lab_pid"
	lab_wait
}

# No QEMU of this part's runs is still running. Domains are named
# memhp-<trial>-<orchestrator pid>-<n> (libvirt passes -name guest=...), so the
# runs started through lab_run are told apart from other guests on the machine.
# With no pid in $lab_pids (runs started with `lab run`, not lab_run) there is
# nothing to look for, so it fails instead of passing for want of a name.
no_qemu() {
	local p
	[ -n "${lab_pids// /}" ] || { echo "no_qemu: no memhp-lab pid recorded (lab_pids empty): use lab_run" >&2; return 1; }
	for p in $lab_pids; do
		pgrep -f "^/usr/bin/qemu-system-x86_64 .*guest=memhp-[^ ,]*-$p-[0-9]" >/dev/null && return 1
	done
	return 0
}

# pid_alive PID: PID runs (a zombie does not: an orphan waits for PID 1 to
# reap it, and kill -0 still finds it until then).
pid_alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# jq: pins were taken and all released (false for a record without guest_after).
balanced='(.guest_after.vmstat | (.nr_foll_pin_acquired | type) == "number" and .nr_foll_pin_acquired > 0 and .nr_foll_pin_acquired == .nr_foll_pin_released)'

# console_clean REC: console_findings is an empty list (not missing), and the
# serial log the record names holds the guest's boot and, read here too, no
# line of a finding's kind.
console_clean() {
	local log
	jq -e '(.console_findings | type) == "array" and (.console_findings | length) == 0' "$1" >/dev/null &&
		log=$(jq -r '.console_log' "$1") && grep -q 'Linux version' "$log" &&
		! grep -E 'WARNING:|BUG:|Oops|Kernel panic|general protection fault|blocked for more than|rcu_.*stall' "$log"
}

# fixture NAME: what several parts read, made once per tests/run.sh and shared
# (a part run alone makes it itself). Prints the fixture's directory; checks
# judge what is in it. Fixtures:
#   demo  the demo scenario's run: DIR/run (run directory), DIR/out (what
#         memhp-lab printed), DIR/rc (its exit status), DIR/pid (memhp-lab's
#         pid, which names its guests: no_qemu)
fixture() {
	local name=$1 dir=$MHL_FIXTURES/$1
	mkdir -p "$dir"
	(
		flock 9
		[ -e "$dir/rc" ] && exit 0
		case $name in
		demo)
			lab_bg run -o "$dir/run" scenarios/demo.yaml >"$dir/out" 2>&1
			echo "$lab_pid" >"$dir/pid"
			lab_wait
			echo $? >"$dir/rc";;
		*)	echo "# no fixture '$name' (tests/lib.sh)" >&$tap_fd; exit 1;;
		esac
	) 9>"$dir.lock" >&2
	echo "$dir"
}

# no_lines EXCLUDE GREP_ARG...: grep GREP_ARG... read what it was given (exit
# 0 or 1; an error, exit 2: a missing file, a glob that matched nothing, a
# bad pattern, is a failure here, never "no line") and found no line that
# the ERE EXCLUDE ('' for none) does not match. The lines left are printed.
# What `! grep ... | grep -v ...` meant: there, a grep that fails to read
# prints nothing, and the pipeline passes.
no_lines() {
	local ex=$1 out rc; shift
	out=$(grep "$@")
	rc=$?
	[ $rc -le 1 ] || { echo "no_lines: grep $* exited $rc (an error, not 'no line')" >&2; return 1; }
	[ -z "$ex" ] || out=$(printf '%s\n' "$out" | grep -vE -- "$ex")
	[ -z "$out" ] || { printf '%s\n' "$out"; return 1; }
}

# lacks FILE GREP_ARG...: FILE is a non-empty file and grep GREP_ARG... finds
# no line in it (exit 1): `! grep -q X FILE` passes on a FILE never written.
lacks() {
	local f=$1 rc; shift
	[ -s "$f" ] || { echo "lacks: $f is missing or empty" >&2; return 1; }
	grep "$@" -- "$f"
	rc=$?
	[ $rc = 1 ] || { [ $rc -gt 1 ] && echo "lacks: grep $* $f exited $rc" >&2; return 1; }
}
