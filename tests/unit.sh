# tests/unit.sh - the unit tests (build/unit-tests: one KTAP line per row of
# tests/unit/*.c) and the layout rule of docs/architecture.md. No guest.
plan 4
echo "# unit tests (build/unit-tests)"
timed "$ok_timeout" $UNIT >"$work/unit.ktap"
sed 's/^/  /' "$work/unit.ktap"
up=$(grep -c '^ok ' "$work/unit.ktap"); uf=$(grep -c '^not ok ' "$work/unit.ktap")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$work/unit.ktap")
ok "unit tests: $up passed, $uf failed of plan $plan" test "$uf" = 0 -a "$up" = "$plan"
ok "unit rows per module as tests/unit/counts says (a deleted row fails; added rows update the file)" \
	$UNIT --check-counts tests/unit/counts

echo "# layout (docs/architecture.md: cli -> scenario -> trial (host + guest) -> record -> reports)"
ok "reports/ includes no header of orchestrator/trial/, guest/ or host/: it renders records" \
	sh -c '! grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](orchestrator/)?(trial|guest|host)/" reports/*.c reports/*.h'
ok "programs start only through lib/spawn.c (host/guard.c's fork of itself excepted): no g_spawn, fork, exec, popen or system() elsewhere" \
	sh -c '! grep -nE "\b(g_spawn_[a-z_]+|g_subprocess_[a-z_]+|fork|vfork|execv[pe]*|execl[pe]*|posix_spawnp?|popen|system)\(" orchestrator/*.c orchestrator/*/*.c reports/*.c lib/*.c | grep -vE "^(lib/spawn\.c|orchestrator/host/guard\.c):"'
