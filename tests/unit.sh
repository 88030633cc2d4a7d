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
ok "reports/ includes no header of orchestrator/trial/, guest/, host/, scenario/, soak/, fleet/ or cli/: it renders records (record/ and lib/ only)" \
	sh -c '! grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](orchestrator/)?(trial|guest|host|scenario|soak|fleet|cli)/" reports/*.c reports/*.h'
ok "reports/ names every record key it reads by its MHL_K_* (record/record.h) or MHL_PIN_K_* (workloads/pin-keys.h): no quoted key passed to mhlJ, mhlJStr, mhlJInt, mhlJDbl, mhlJBool, mhlJArr, mhlJObj or mhlJLen" \
	sh -c '! grep -nE "mhlJ(Str|Int|Dbl|Bool|Arr|Obj|Len)?\(([^(),]|\(([^()]|\([^()]*\))*\))*,[[:space:]]*\"" reports/*.c'
