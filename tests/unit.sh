# tests/unit.sh - the unit tests (build/unit-tests: one KTAP line per row of
# tests/unit/*.c), the layers of docs/architecture.md (tests/layers.py) and
# the tables' lists, and that every mutant (tests/mutants/*.patch) still
# applies (full: make mutants whole). No guest.
plan 15 full 16
echo "# unit tests (build/unit-tests)"
timed "$ok_timeout" $UNIT >"$work/unit.ktap"
urc=$?
sed 's/^/  /' "$work/unit.ktap"
up=$(grep -c '^ok ' "$work/unit.ktap"); uf=$(grep -c '^not ok ' "$work/unit.ktap")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$work/unit.ktap")
ok "unit tests: exit 0, $up passed, $uf failed of plan $plan" test "$urc" = 0 -a "$uf" = 0 -a "$up" = "$plan"
ok "unit rows per module as tests/unit/counts says (a deleted row fails; added rows update the file)" \
	$UNIT --check-counts tests/unit/counts

echo "# mutants: each tests/mutants/*.patch applies to the tree as it is (docs/testing.md, Mutants)"
# git apply --check alone: the tree is read, never written. A patch the code
# moved away from is named here, not months later by make mutants.
mutants_apply() {
	local p bad=0
	for p in tests/mutants/*.patch; do
		if ! git apply --check "$p" >"$work/mutant-apply.err" 2>&1; then
			echo "$p does not apply (make it again against the code as it is): $(head -n 1 "$work/mutant-apply.err")"
			bad=$((bad + 1))
		fi
	done
	echo "$bad of $(ls tests/mutants/*.patch | wc -l) mutant(s) do not apply"
	[ $bad = 0 ]
}
ok "mutants: every tests/mutants/*.patch applies to the tree (git apply --check; a failure names the patch)" mutants_apply
if full; then
	# every mutant applied, built and run against its Catch: filters (80 of them: 70-100 s here)
	timed 900 tools/mutants.sh >"$work/mutants.out" 2>/dev/null
	sed -n 's/^/  /p' "$work/mutants.out"
	ok "make mutants: every mutant killed ($(tail -n 1 "$work/mutants.out"))" \
		grep -qE '^([0-9]+) mutants: \1 killed, 0 survived, 0 invalid$' "$work/mutants.out"
fi

echo "# layers (docs/architecture.md, Layers: main.c > cli > soak > trial > fleet > guest > host > scenario > record > lib; reports beside)"
# tests/layers.py reads the order from the docs and what still breaks it from
# tests/layers.allow; each check fails on a new violation and on a listed one gone.
layers() { /usr/bin/python3 tests/layers.py "$@"; }
ok "layers: no file includes a header of a folder above it (or of reports/, but cli/; reports/ only record/ and lib/)" layers includes
ok "layers: no object (build/unit-obj/) uses a function or variable defined in a folder above it or beside it" layers uses
ok "layers: no two folders use each other" layers mutual
ok "layers: no function over 80 lines in orchestrator/, reports/, lib/, workloads/" layers long
# The checks on a synthetic tree (compiled here, under a second): each kind
# finds what is planted and nothing else, a function's { on its signature
# line included (the parser once measured only a { alone on its line).
ok "layers: selftest: a synthetic tree's upward include and call, two folders using each other, 81- and 93-line functions (their { alone and on the signature line) are each found, exactly" \
	layers selftest
# The guard on a copy of the sources with one new upward include, and with a
# line in the allow-list that no longer occurs: both must fail, naming it.
lc=$work/layers-copy
mkdir -p "$lc/tests" && cp -rp orchestrator reports lib workloads docs "$lc/" && cp -p tests/layers.allow "$lc/tests/"
sed -i '0,/^#include "record\/record.h"/s//#include "record\/record.h"\n#include "cli\/cli.h"/' "$lc/orchestrator/record/append.c"
expect_fail "layers: a copy where record/append.c includes cli/cli.h is refused" 1 \
	'^include orchestrator/record/append.c orchestrator/cli/cli.h: includes a header of a folder it may not use' \
	layers --root "$lc" includes
cp -p orchestrator/record/append.c "$lc/orchestrator/record/append.c"
echo "include orchestrator/record/append.c orchestrator/lib/gone.h" >>"$lc/tests/layers.allow"
expect_fail "layers: an allow-list line whose violation is gone is refused (the list only shrinks)" 1 \
	'^include orchestrator/record/append.c orchestrator/lib/gone.h: listed in tests/layers.allow, no longer occurs' \
	layers --root "$lc" includes

echo "# tables: every list of a closed set's names is made from its table (issue 33, item 2)"
# In code, not in comments: "html,junit,ktap" and the like, the files' list, the old arrays.
# no_lines (tests/lib.sh): a grep that cannot read its folders fails the check.
format_lists() {
	no_lines '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' -rnE \
		'(html|HTML)[ ,]+(junit|JUnit)[ ,]+(ktap|KTAP)|junit\.xml[^"]*results\.ktap|mhlReportFormat(Names|Files)|writers\[' \
		orchestrator reports
}
ok "no hand-written list of the report formats in orchestrator/ or reports/ (mhlReportFormats[] spells them)" format_lists

echo "# processes: one way to start a program on the host (issue 33, item 4)"
ok "programs start only through lib/spawn.c (host/guard.c's fork of itself excepted): no g_spawn, fork, exec, popen or system() elsewhere" \
	no_lines '^(lib/spawn\.c|orchestrator/host/guard\.c):' -nE '\b(g_spawn_[a-z_]+|g_subprocess_[a-z_]+|fork|vfork|execv[pe]*|execl[pe]*|posix_spawnp?|popen|system)\(' \
		orchestrator/*.c orchestrator/*/*.c reports/*.c lib/*.c

echo "# record keys: spelled once (issue 33, item 3)"
ok "reports/ names every record key it reads by its MHL_K_* (record/record.h) or MHL_PIN_K_* (lib/mhl-pin-keys.h): no quoted key passed to mhlJ, mhlJStr, mhlJInt, mhlJDbl, mhlJBool, mhlJArr, mhlJObj or mhlJLen" \
	no_lines '' -nE 'mhlJ(Str|Int|Dbl|Bool|Arr|Obj|Len)?\(([^(),]|\(([^()]|\([^()]*\))*\))*,[[:space:]]*"' reports/*.c
# The writers' side: what the trial, the guest and the host put in a record
# or a run directory. guest/agent.c's command to the guest agent is no record.
ok "guest/, host/ and trial/ write and read every record key by its MHL_K_* or MHL_PIN_K_*: no quoted key passed to json_object_object_add or mhlJ* (guest/agent.c's guest-exec command excepted)" \
	no_lines '^orchestrator/guest/agent\.c:' -nE '(json_object_object_add|mhlJ(Str|Int|Dbl|Bool|Arr|Obj|Len)?)\([^,]*,[[:space:]]*"' \
		orchestrator/guest/*.c orchestrator/host/*.c orchestrator/trial/*.c

# Closed sets of names are tables with their properties (docs/architecture.md,
# "Adding things"): memhp-pin's in lib/mhl-pin.h, the scenario's in
# orchestrator/scenario/names.c. A list of a table's names spelled anywhere
# else (a C array, a "known:" message, a usage line) is one a new row never
# reaches; these are the lists the sources spelled by hand before the tables.
name_lists() {
	no_lines '^(lib/mhl-pin\.h|orchestrator/scenario/names\.c):' -rnF --include='*.c' --include='*.h' \
		-e '"anonymous", "memfd"' -e 'known: anonymous' \
		-e '"movable", "kernel"' -e 'known: movable' -e 'movable|kernel' \
		-e '"gup", "io_uring"' -e 'known: gup' -e 'gup|io_uring' \
		-e '"anon", "thp"' -e 'known: anon' -e 'anon|thp' \
		-e '"before", "pin"' -e 'known: before' -e 'before|pin' \
		-e '"mprotect", "munmap"' -e 'known: mprotect' -e 'mprotect|munmap' \
		-e '"series", "baseline"' -e 'known: series' -e "'series baseline'" \
		-e '"6.12", "6.1"' -e 'known: 6.12' -e "'6.12 6.1'" \
		-e '"none", "io_uring"' -e 'known: none' \
		-e '"lab", "debian"' -e 'known: lab' \
		-e '"any", "reached"' -e '"none", "converged"' -e 'known: uri' \
		orchestrator reports lib workloads
}
ok "no hand-written list of a name table's names outside lib/mhl-pin.h and orchestrator/scenario/names.c (the lines are in the log)" \
	name_lists
