# tests/lifecycle-daemon.sh - the daemon-restart step (issue 34,
# docs/lifecycle.md): a run on a system libvirtd in PID and mount namespaces
# of its own (tests/libvirtd-lib.sh, fleet_host_start ... unix) whose daemon
# is restarted under the running guest by run --daemon-restart's command,
# tests/libvirtd-restart.sh (SIGTERM; the namespace's PID 1 starts it again,
# the guest's QEMU runs on). Fast tier: the plan-time refusal without the
# option (no guest), and one trial (6.12, series, a 64 MiB gup pin on 256 MiB
# plugged): pin, restart, check, unplug to 0, check, release, judged from its
# record. Full tier: the other plan-time refusals (embedded driver, -j 2), a
# restart command that fails and one that never returns. Sourced by
# tests/run.sh (ok/expect_fail, $LAB, $work).

plan 7 full 13
echo "# lifecycle-daemon: the run's libvirt daemon restarted under a guest with a pin held"
. tests/libvirtd-lib.sh
ld_dir=$work/host
# the host's namespace (its daemon and QEMU) goes with this part, however it ends
trap 'ld_rc=$?; fleet_host_kill "$ld_dir"; (exit $ld_rc); mhl_on_exit' EXIT
ld_uri=$(fleet_host_start "$ld_dir" unix "${peer_show[@]}")
ld_restart="bash $top/tests/libvirtd-restart.sh $ld_dir"
ld_daemon() { pgrep -P "$(cat "$ld_dir/ns.pid")" -x libvirtd; }

# The shipped scenario, one trial of it: 6.12, series.
sed -e 's/kernel: "${kernel}"/kernel: "6.12"/' -e 's/pin_policy: ${policy}/pin_policy: series/' \
	-e '/^matrix:/,/^  policy:/d' scenarios/lifecycle/daemon-restart.yaml >"$work/dr.yaml"
expect_fail "run: a daemon-restart step without --daemon-restart is refused before anything boots, with its file:line and the option" 2 \
	"dr.yaml:21:[0-9]+: daemon-restart: no command restarts the daemon: give run --daemon-restart 'ARGV'" \
	$LAB run -o "$work/dr-none" --uri "$ld_uri" "$work/dr.yaml"

ld_before=$(ld_daemon)
t0=$EPOCHSECONDS
lab_run -o "$work/d1" --uri "$ld_uri" -j 1 --daemon-restart "$ld_restart" "$work/dr.yaml" >"$work/d1.out" 2>&1
d1=$?
echo "# lifecycle-daemon: one trial (6.12, series): $((EPOCHSECONDS - t0)) s"
[ $d1 = 0 ] || tail -n 5 "$work/d1.out" | sed 's/^/#   /'
r=$work/d1/trials.jsonl
lcd='.steps[] | select(.step == "daemon-restart") | .lifecycle'
ok "the trial passed; its daemon-restart lifecycle: ok, the command exited 0, the connection down > 0 s, the same 256 MiB plugged before and after" \
	bash -c '[ "$1" = 0 ] && jq -e ".verdict == \"pass\" and ($3 | .event == \"daemon-restart\" and .ok and .restart_exit == 0 and
		.down_s > 0 and .down_s < .seconds + 1 and .reconnect_tries >= 1 and
		.plugged_before == [{node: 1, size_bytes: 268435456, requested_bytes: 268435456}] and .plugged_after == .plugged_before)" \
		"$2" >/dev/null' _ "$d1" "$r" "$lcd"
ok "the daemon really was restarted (another libvirtd pid under the namespace's init) and the guest was not: one boot in its console log, which went on after the restart" \
	bash -c 'a=$(pgrep -P "$(cat "$2/ns.pid")" -x libvirtd) && [ -n "$1" ] && [ "$a" != "$1" ] &&
		l=$(jq -r .console_log "$3") && [ "$(grep -c "Linux version" "$l")" = 1 ] && grep -q "requested size: 0x0" "$l"' _ "$ld_before" "$ld_dir" "$r"
ok "the unplug after the restart reached 0, its size-change events came from the new daemon: on the timeline after events_from_t, down to 0; size_events_after counts them" \
	jq -e "($lcd) as \$l | ([.steps[] | select(.step == \"resize\")][0] | .converged and .reached_bytes == 0) and
		([.timeline[] | select(.source == \"event\" and .t >= \$l.events_from_t)] | length >= 1 and .[-1].size_bytes == 0 and length == \$l.size_events_after)" "$r"
ok "the pin held across the restart: both checks found the pattern intact, none of its 16384 pages in ZONE_MOVABLE" \
	jq -e '[.steps[] | select(.step == "check") | .workload | .pattern_ok and .census.pages == 16384 and .census.by_zone.Movable == 0] == [true, true]' "$r"
ok "nothing of the run is left: the restarted daemon lists no domain, no QEMU of the run runs" \
	bash -c 'l=$(virsh -q -c "$1" list --all --name) && [ -z "$(sed "/^$/d" <<<"$l")" ]' _ "$ld_uri"
ok "no QEMU of this part's runs is left" no_qemu

if full; then
	expect_fail "run: daemon-restart on the embedded driver (no daemon) is refused before anything boots, with its file:line" 2 \
		"dr.yaml:21:[0-9]+: daemon-restart: the embedded driver \(the default without --uri\) has no daemon to restart: give --uri URI" \
		env -u LIBVIRT_DEFAULT_URI $LAB run -o "$work/dr-embed" --daemon-restart "$ld_restart" "$work/dr.yaml"
	expect_fail "run: daemon-restart with two trials at once is refused: the restart breaks the connection they share" 2 \
		"daemon-restart.yaml:24:[0-9]+: daemon-restart: 2 trials at once would share the connection the restart breaks: give -j 1" \
		$LAB run -o "$work/dr-j2" --uri "$ld_uri" -j 2 --daemon-restart "$ld_restart" --only '*kernel=6.12,*' scenarios/lifecycle/daemon-restart.yaml
	# A command that fails: the daemon never went, the guest goes on where it was; the trial is an error naming the step.
	lab_run -o "$work/d2" --uri "$ld_uri" --daemon-restart "sh -c 'echo no restart here >&2; exit 3'" "$work/dr.yaml" >"$work/d2.out" 2>&1
	ok "a restart command that exits 3: the trial is an error of the lab (run exits 3, error_source lab) naming the step's line, the command's status and its stderr; restart_exit 3, ok false" \
		bash -c '[ "$1" = 3 ] && jq -e ".error_source == \"lab\"" "$2" >/dev/null && jq -e ".verdict == \"error\" and (.reason | test(\"dr.yaml:21: daemon-restart: .sh. exited with status 3: no restart here\")) and
			($3 | .ok == false and .restart_exit == 3)" "$2" >/dev/null' _ "$?" "$work/d2/trials.jsonl" "$lcd"
	# A command that never returns: killed at the step's deadline (5 s here).
	sed 's/daemon-restart: {deadline: 60}/daemon-restart: {deadline: 5}/' "$work/dr.yaml" >"$work/dr5.yaml"
	lab_run -o "$work/d3" --uri "$ld_uri" --daemon-restart "sleep 600" "$work/dr5.yaml" >"$work/d3.out" 2>&1
	ok "a restart command that never returns: killed at the 5 s deadline; the trial is an error of the lab (run exits 3) naming the step and the deadline, within 15 s of the step's start" \
		bash -c '[ "$1" = 3 ] && jq -e ".verdict == \"error\" and (.reason | test(\"dr5.yaml:21: daemon-restart: .*sleep.*deadline\")) and
			($3 | .ok == false and .restart_exit == null and .seconds < 15)" "$2" >/dev/null' _ "$?" "$work/d3/trials.jsonl" "$lcd"
	ok "nothing of the full tier's runs is left on the daemon, no QEMU of this part's runs" \
		bash -c 'l=$(virsh -q -c "$1" list --all --name) && [ -z "$(sed "/^$/d" <<<"$l")" ] && ! pgrep -f "guest=memhp-daemon-[r]estart" >/dev/null' _ "$ld_uri"
	ok "the shipped daemon-restart scenario passes check" $LAB check scenarios/lifecycle/daemon-restart.yaml
fi
