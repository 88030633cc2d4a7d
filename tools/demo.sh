#!/bin/bash
# tools/demo.sh - `make demo` (issue 36): a real result before any kernel
# build, then the patched one.
#   1. deps;
#   2. the patched 6.12 kernel (kernel/build.sh; reused when cached) starts
#      building in the background at nice 19, so that it takes only the CPU
#      that steps 3 and 4 leave idle; its phase lines go to a log, shown
#      after the first result;
#   3. the guest image (no kernel build: workloads/gup-header.sh) and the
#      orchestrator;
#   4. the demo on Debian's stock 6.12 cloud kernel, fetched with apt
#      (scenarios/intro/stock.yaml: an io_uring pin of 256 MiB from node 1's
#      ZONE_MOVABLE, the unplug to 0, the host memory back) into results/demo;
#   5. waits for the kernel, following its log;
#   6. the A/B of the series on it (scenarios/intro/ab.yaml: series vs
#      baseline; with the image of step 3, as the A/B runs no kselftest)
#      into results/demo-ab;
#   7. the image again, now with that kernel's kselftests, for the scenarios
#      that run them.
# Each step first says what it builds or runs and how long it took last time
# (seconds kept in $MEMHP_CACHE/durations/; a kernel reused from the cache
# does not overwrite its build's). A failed step stops the demo, except the
# stock result, after which the patched part still runs; the exit status is
# then 1. The previous run's directories move to results/demo.prev and
# results/demo-ab.prev. The background build goes with the demo: when it
# exits, on Ctrl-C, and (within a second, through a watcher) after a kill -9.
#
# Usage: tools/demo.sh [--stock-only]
#   --stock-only  steps 1, 3 and 4: the stock kernel's result, no kernel build
set -u
stock_only=
case ${1:-} in
'') ;;
--stock-only) stock_only=1;;
*) echo "usage: tools/demo.sh [--stock-only]" >&2; exit 2;;
esac
cd "$(dirname "$0")/.."
cache=${MEMHP_CACHE:-$HOME/.cache/memhp-lab}
durs=$cache/durations
LAB=build/memhp-lab
MK=${MAKE:-make}
t_start=$(date +%s)
mkdir -p "$durs"

say() { printf '[demo] %s\n' "$*"; }
human() {	# human SECONDS
	if [ "$1" -ge 60 ]; then printf '%d min %d s' $(($1 / 60)) $(($1 % 60)); else printf '%d s' "$1"; fi
}
lasttime() {	# lasttime NAME: "last time N s" or "first time here"
	local s
	s=$(cat "$durs/$1" 2>/dev/null)
	case $s in
	''|*[!0-9]*) printf 'first time here';;
	*) printf 'last time %s' "$(human "$s")";;
	esac
}
# step NAME WHAT CMD...: say WHAT and how long it took last time, run CMD,
# keep its seconds under NAME when it succeeded, say how long it took.
step() {
	local name=$1 what=$2 t0 rc s
	shift 2
	say "$what ($(lasttime "$name"))"
	t0=$(date +%s)
	"$@"
	rc=$?
	s=$(($(date +%s) - t0))
	[ $rc != 0 ] || echo "$s" >"$durs/$name"
	say "$what: $([ $rc = 0 ] && echo done || echo "FAILED (exit $rc)") in $(human "$s")"
	return $rc
}
fresh() {	# fresh DIR: the previous run's DIR moves to DIR.prev
	rm -rf "$1.prev"
	[ ! -e "$1" ] || mv "$1" "$1.prev"
}

step deps "Debian packages (tools/deps.list)" "$MK" -s --no-print-directory deps || exit 1

# The kernel in the background, in a process group of its own (setsid) that
# the demo takes down with it; a watcher does so after a kill -9 of the demo.
# The default build alone (KERNEL_FLAVOURS=): the A/B pins with io_uring, and
# the rdma flavour would keep it waiting 140 s more.
kpid=
if [ -z "$stock_only" ]; then
	mkdir -p "$cache/kernel/6.12"
	klog=$cache/kernel/6.12/demo-build.log
	kt0=$(date +%s)
	setsid nice -n 19 "$MK" -s --no-print-directory KVERS=6.12 KERNEL_FLAVOURS= kernel >"$klog" 2>&1 </dev/null &
	kpid=$!
	trap '[ -z "$kpid" ] || kill -- -"$kpid" 2>/dev/null' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	demo=$$
	( while kill -0 "$demo" && kill -0 "$kpid"; do sleep 1; done
	  kill -0 "$demo" || kill -- -"$kpid" ) >/dev/null 2>&1 </dev/null &
	say "the patched 6.12 kernel (linux-source-6.12 + kernel/patches/6.12, cached in $cache/kernel/6.12): reused if cached, else built in the background at nice 19 from now on ($(lasttime kernel-6.12) for a build); log $klog"
fi
# on every core, as make check builds them (the header's xz beside the compiles)
step image "the guest image (memhp-pin against linux-source-6.12's gup_test.h and the series' hunks, no kernel build) and the orchestrator" \
	"$MK" -s --no-print-directory -j"$(nproc)" image orchestrator || exit 1
fresh results/demo
step demo-stock "result 1/2: the demo on Debian's stock 6.12 cloud kernel (apt, no build): scenarios/intro/stock.yaml" \
	$LAB run scenarios/intro/stock.yaml -o results/demo
rc_stock=$?
t_stock=$(($(date +%s) - t_start))
say "the stock kernel's result $(human $t_stock) after make demo started ($(date -u '+%F %T UTC')); records: results/demo/trials.jsonl"
[ -z "$stock_only" ] || exit $rc_stock

# The kernel: its log so far, then followed until the build ends. Reused
# when the cache had its artifact (one older than the build's start); only
# a build's seconds are kept.
ptr=$cache/kernel/6.12/current
say "the patched 6.12 kernel: waiting for the build started $(human $(($(date +%s) - kt0))) ago; its log:"
tail -n +1 -f --pid="$kpid" "$klog" 2>/dev/null
wait "$kpid"
krc=$?
kpid=
s=$(($(date +%s) - kt0))
[ $krc = 0 ] || { say "the patched 6.12 kernel: FAILED (exit $krc; log $klog)"; exit 1; }
after=$(cat "$ptr" 2>/dev/null)
if [ "$(stat -c %Y "$after/identity.json" 2>/dev/null || echo 0)" -lt "$kt0" ]; then
	say "the patched 6.12 kernel: reused $after ($(human "$s"))"
else
	echo "$s" >"$durs/kernel-6.12"
	say "the patched 6.12 kernel: built in $(human "$s") (in the background from the start): $after"
fi
fresh results/demo-ab
step demo-ab "result 2/2: the A/B of the series on the patched 6.12 kernel, series vs baseline: scenarios/intro/ab.yaml" \
	$LAB run scenarios/intro/ab.yaml -o results/demo-ab
rc_ab=$?
say "the A/B's result $(human $(($(date +%s) - t_start))) after make demo started ($(date -u '+%F %T UTC')); records: results/demo-ab/trials.jsonl"
step ksft "the guest image with the 6.12 kernel's kselftests (for the scenarios that run them)" \
	"$MK" -s --no-print-directory KVERS=6.12 image || exit 1
[ $rc_stock = 0 ] && [ $rc_ab = 0 ]
