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

# Closed sets of names are tables with their properties (docs/architecture.md,
# "Adding things"): memhp-pin's in lib/mhl-pin.h, the scenario's in
# orchestrator/scenario/names.c. A list of a table's names spelled anywhere
# else (a C array, a "known:" message, a usage line) is one a new row never
# reaches; these are the lists the sources spelled by hand before the tables.
name_lists() {
	grep -rnF --include='*.c' --include='*.h' \
		-e '"anonymous", "memfd"' -e 'known: anonymous' \
		-e '"movable", "kernel"' -e 'known: movable' -e 'movable|kernel' \
		-e '"gup", "io_uring"' -e 'known: gup' -e 'gup|io_uring' \
		-e '"anon", "thp"' -e 'known: anon' -e 'anon|thp' \
		-e '"before", "pin"' -e 'known: before' -e 'before|pin' \
		-e '"mprotect", "munmap"' -e 'known: mprotect' -e 'mprotect|munmap' \
		-e '"series", "baseline"' -e 'known: series' \
		-e '"6.12", "6.1"' -e 'known: 6.12' \
		-e '"none", "io_uring"' -e 'known: none' \
		-e '"lab", "debian"' -e 'known: lab' \
		-e '"any", "reached"' -e '"none", "converged"' -e 'known: uri' \
		orchestrator reports lib workloads |
		grep -v -e '^lib/mhl-pin\.h:' -e '^orchestrator/scenario/names\.c:'
}
ok "no hand-written list of a name table's names outside lib/mhl-pin.h and orchestrator/scenario/names.c (the lines are in the log)" \
	sh -c "! { $(declare -f name_lists); name_lists; }"
