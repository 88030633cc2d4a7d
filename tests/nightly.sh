# tests/nightly.sh - the nightly gate (issue 52; tools/nightly/memhp-nightly,
# docs/soak.md "The nightly gate"): three nights in a directory of their own,
# relative paths throughout, gating a kernel "the team built" (the lab's own
# artifact, handed over as build:DIR like any bzImage and config): pass,
# pass, then a planted regression (the kernel's test switch makes io_uring
# pins stay in ZONE_MOVABLE: --pin-policy baseline); then gnuplot broken.
# The statuses are docs/cli.md's: 0, 0, 1 (the kernel), 3 (the lab).
# Sourced by tests/run.sh (ok/expect_fail, $LAB, $work).

plan 9
echo "# nightly: three nights of the gate on a kernel handed over as build:DIR, then a broken gnuplot"
ng=$work/gate
mkdir -p "$ng"
ng_kernel=build:$(cat "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel/6.12/current")
ng_night() {	# ng_night N ARG...: one night from $ng, relative -d; its output in night-N.out, its status in night-N.rc
	local n=$1
	shift
	(cd "$ng" && MEMHP_LAB=$(realpath "$top/$LAB") timeout "$run_timeout" "$top/tools/nightly/memhp-nightly" -d results "$@" \
		>"night-$n.out" 2>&1; echo $? >"night-$n.rc")
}
ng_rc() { cat "$ng/night-$1.rc"; }
today=$(date -u +%F)

ng_night 1 --kernel "$ng_kernel"
ok "night 1: exit 0; tonight's run in results/nightly/DATE (relative to where it ran), its trial 'nightly' passed on the prebuilt kernel" \
	sh -c '[ "$2" = 0 ] && jq -se "length == 1 and .[0].trial == \"nightly\" and .[0].verdict == \"pass\" and .[0].kernel.source_package == \"prebuilt\"" \
		"$1/results/nightly/$3/trials.jsonl" >/dev/null' _ "$ng" "$(ng_rc 1)" "$today"
ng_night 2 --kernel "$ng_kernel"
ok "night 2, the same day: exit 0, a night of its own (DATE.2, not 'already holds a run'), the history of 2 runs of one trial id, 0 regressions" \
	sh -c '[ "$2" = 0 ] && [ -s "$1/results/nightly/$3.2/trials.jsonl" ] &&
		jq -e ".regressions == 0 and (.runs | length) == 2 and ([.trials[].trial] == [\"nightly\"])" "$1/results/history/history.json" >/dev/null' \
	_ "$ng" "$(ng_rc 2)" "$today"
ng_night 3 --kernel "$ng_kernel" -- --pin-policy baseline
ok "night 3, a planted regression (pins stay in ZONE_MOVABLE): run exits 1 (the kernel failed), the history marks verdict pass -> fail in the newest run, the gate exits 1" \
	sh -c '[ "$2" = 1 ] && grep -q "^memhp-nightly: run exited 1$" "$1/night-3.out" && grep -q "^memhp-nightly: report --history exited 1 " "$1/night-3.out" &&
		jq -e ".regressions_in_newest_run >= 1 and (.trials[] | select(.trial == \"nightly\") | [.regressions[].what] | index(\"verdict pass -> fail\") != null)" \
		"$1/results/history/history.json" >/dev/null' _ "$ng" "$(ng_rc 3)"
ok "night 3's record says how far the unplug got: short of 0, what the pin held (reached >= 128 MiB)" \
	jq -se '.[0].verdict == "fail" and .[0].summary.reached_bytes >= 134217728' "$ng/results/nightly/$today.3/trials.jsonl"
(cd "$ng" && MEMHP_GNUPLOT=/bin/false MEMHP_LAB=$(realpath "$top/$LAB") "$top/tools/nightly/memhp-nightly" --no-run -d results >night-g.out 2>&1; echo $? >night-g.rc)
ok "gnuplot broken (MEMHP_GNUPLOT=/bin/false): the history is not written, the gate exits 3 (the lab failed), not 1" \
	sh -c '[ "$(cat "$1/night-g.rc")" = 3 ] && grep -q "report: history: .*plots.gp. failed" "$1/night-g.out"' _ "$ng"
expect_fail "the gate without a kernel: 2, saying what to give" 2 "say which kernel to gate: --kernel deb:FILE, build:DIR" \
	tools/nightly/memhp-nightly -d "$ng/none"
expect_fail "the gate on a kernel file that is not there: 2 (nothing ran), naming the file" 2 "$ng/nothing.deb" \
	env MEMHP_LAB="$(realpath "$LAB")" tools/nightly/memhp-nightly --kernel "deb:$ng/nothing.deb" -d "$ng/none"

# The recipe as installed: the script beside the scenario it runs by default,
# the systemd units and the GitLab job (docs/soak.md names these paths).
ng_inst=$work/inst
make --no-print-directory -s install DESTDIR="$ng_inst" PREFIX=/usr/local B="$B" >"$work/install.out" 2>&1
ok "make install ships the recipe: share/memhp-lab/nightly/ with memhp-nightly (executable), its units and the GitLab job, beside scenarios/nightly.yaml" \
	sh -c 'd=$1/usr/local/share/memhp-lab; [ -x "$d/nightly/memhp-nightly" ] && [ -s "$d/nightly/memhp-nightly.service" ] &&
		[ -s "$d/nightly/memhp-nightly.timer" ] && [ -s "$d/nightly/gitlab-ci.yml" ] && [ -s "$d/scenarios/nightly.yaml" ]' _ "$ng_inst"
ok "the systemd units are valid (systemd-analyze verify, with the installed paths they name)" \
	sh -c 'cd "$1" && sed "s|/usr/local/share/memhp-lab|$2/usr/local/share/memhp-lab|; s|/usr/local/bin/memhp-lab|$3|" "$2/usr/local/share/memhp-lab/nightly/memhp-nightly.service" >memhp-nightly.service &&
		cp "$2/usr/local/share/memhp-lab/nightly/memhp-nightly.timer" . && systemd-analyze verify --man=no ./memhp-nightly.service ./memhp-nightly.timer' \
	_ "$work" "$ng_inst" "$(realpath "$LAB")"
