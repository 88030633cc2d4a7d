/*
 * steps.c - "steps:": the step kinds' table {name, keys, parse, validate},
 * each kind's keys read into an mhlStep, and the cross-step checks.
 */
#include <glib.h>

#include "scenario/scenario-int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl-size.h"
#include "util.h"

const char *const mhlStepTypeNames[MHL_STEP_LAST] = {
	[MHL_STEP_PIN] = "pin",
	[MHL_STEP_RESIZE] = "resize",
	[MHL_STEP_CHECK] = "check",
	[MHL_STEP_RELEASE] = "release",
	[MHL_STEP_SNAPSHOT] = "snapshot",
	[MHL_STEP_EXPECT] = "expect",
	[MHL_STEP_BENCH] = "bench",
	[MHL_STEP_SYSRQ] = "sysrq",
	[MHL_STEP_WAIT] = "wait",
	[MHL_STEP_IO] = "io",
	[MHL_STEP_SELFTEST] = "selftest",
	[MHL_STEP_EXEC] = "exec",
	[MHL_STEP_REBOOT] = "reboot",
	[MHL_STEP_SUSPEND] = "suspend",
	[MHL_STEP_MIGRATE] = "migrate",
	[MHL_STEP_SAVE] = "save",
	[MHL_STEP_MANAGEDSAVE] = "managedsave",
	[MHL_STEP_DAEMON_RESTART] = "daemon-restart",
	[MHL_STEP_HUGEPAGES] = "hugepages",
	[MHL_STEP_BALLOON] = "balloon",
	[MHL_STEP_DIMM] = "dimm",
	[MHL_STEP_VMEM] = "vmem",
};

/*
 * Steps: "- KIND: {KEY: VALUE, ...}". stepKinds[] at the end of this part has
 * one row per kind: its name, the keys it needs and the others it takes, the
 * function that reads one of those keys into the mhlStep and the one that
 * checks the step against the steps before it (validate()).
 */
/* A pin's workload, backing, touch and split are rows of lib/mhl-pin.h (memhp-pin reads them too). */
/* What census_before/census_after may count: zones, and the page kinds of census.h. */
const char *const mhlCensusKeys[] = { "pages", "not_present", "unknown", "zero", "thp", "cma",
				      "DMA", "DMA32", "Normal", "Movable", "other", NULL };
/*
 * selftest: the only names a scenario can run (a fixed argv each, in
 * trial/step-selftest.c): never a command of the scenario's own.
 */
const char *const mhlSelftestNames[] = { "gup_longterm_counters", "gup_longterm_counters_fast",
					 "gup_longterm_counters_expect_series", NULL };

/* "N" or ">=N" (an integer, possibly negative); -1 if it is neither. */
static int parseAtLeast(const char *val, long long *out, bool *atleast)
{
	const char *num = val + (g_str_has_prefix(val, ">=") ? 2 : 0);
	char *end;

	*atleast = num != val;
	errno = 0;
	*out = strtoll(num, &end, 10);
	return errno || *end || end == num ? -1 : 0;
}

/* expect: {vmstat: {COUNTER: N, COUNTER: ">=N"}}: changes since the trial's start. */
static int parseVmstat(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	yaml_node_pair_t *p;

	if (mhlYWantKind(y, v, YAML_MAPPING_NODE, "vmstat") < 0)
		return -1;
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *n = yaml_document_get_node(y->doc, p->value);
		int i = st->nvmstat;

		if (i >= MHL_MAX_VMSTAT) {
			mhlError("%s:%d:%d: more than %d vmstat checks in one expect", AT(y, k),
				 MHL_MAX_VMSTAT);
			return -1;
		}
		if (mhlYWantKind(y, k, YAML_SCALAR_NODE, "a vmstat counter") < 0 ||
		    mhlYWantKind(y, n, YAML_SCALAR_NODE, "a vmstat change") < 0)
			return -1;
		if (!g_regex_match_simple("^[a-z0-9_]+$", mhlYScalar(y, k), 0, 0) ||
		    strlen(mhlYScalar(y, k)) >= sizeof(st->vmstat_key[i])) {
			mhlError("%s:%d:%d: '%s' is not a /proc/vmstat counter name", AT(y, k),
				 mhlYScalar(y, k));
			return -1;
		}
		if (parseAtLeast(mhlYScalar(y, n), &st->vmstat_val[i], &st->vmstat_atleast[i]) < 0) {
			mhlError("%s:%d:%d: vmstat %s: expected a change N or \">=N\", not '%s'",
				 AT(y, n), mhlYScalar(y, k), mhlYScalar(y, n));
			return -1;
		}
		snprintf(st->vmstat_key[i], sizeof(st->vmstat_key[i]), "%s", mhlYScalar(y, k));
		st->nvmstat++;
	}
	return 0;
}

/*
 * expect: {census_after: {Movable: 0, cma: 0, zero: all, thp: ">=1"}}: page
 * counts in the last pin's census before or after the pin.
 */
static int parseCensus(mhlYaml *y, yaml_node_t *v, mhlStep *st, bool after)
{
	const char *what = after ? "census_after" : "census_before";
	yaml_node_pair_t *p;

	if (mhlYWantKind(y, v, YAML_MAPPING_NODE, what) < 0)
		return -1;
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *n = yaml_document_get_node(y->doc, p->value);
		int i = st->ncensus;
		const char *val;

		if (i >= MHL_MAX_CENSUS) {
			mhlError("%s:%d:%d: more than %d census checks in one expect", AT(y, k),
				 MHL_MAX_CENSUS);
			return -1;
		}
		if (mhlYWantKind(y, k, YAML_SCALAR_NODE, "a census count") < 0 ||
		    mhlYWantKind(y, n, YAML_SCALAR_NODE, "a page count") < 0)
			return -1;
		if (mhlYOneOf(mhlYScalar(y, k), mhlCensusKeys) < 0) {
			g_autofree char *known = g_strjoinv(", ", (char **)mhlCensusKeys);

			mhlError("%s:%d:%d: %s: unknown count '%s' (known: %s)", AT(y, k), what,
				 mhlYScalar(y, k), known);
			return -1;
		}
		val = mhlYScalar(y, n);
		if (!strcmp(val, "all")) {
			st->census_val[i] = MHL_ALL;
			st->census_atleast[i] = false;
		} else if (parseAtLeast(val, &st->census_val[i], &st->census_atleast[i]) < 0 ||
			   st->census_val[i] < 0) {
			mhlError("%s:%d:%d: %s %s: expected pages N, \">=N\" or all, not '%s'",
				 AT(y, n), what, mhlYScalar(y, k), val);
			return -1;
		}
		snprintf(st->census_key[i], sizeof(st->census_key[i]), "%s", mhlYScalar(y, k));
		st->census_after[i] = after;
		st->ncensus++;
	}
	return 0;
}

/*
 * The keys more than one kind takes, read the same for all of them. A
 * workload id names the holder's socket and log under /run/memhp in the
 * guest and is quoted in memhp-pin's JSON: [A-Za-z0-9_-] only.
 */
static int readId(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	if (mhlYStr(y, v, "id", st->id, sizeof(st->id)) < 0)
		return -1;
	if (strspn(st->id, ID_CHARS) == strlen(st->id))
		return 0;
	mhlError("%s:%d:%d: id '%s': expected 1 to %zu of A-Z, a-z, 0-9, '_' and '-' (it names the workload's socket in the guest)",
		 AT(y, v), st->id, sizeof(st->id) - 1);
	return -1;
}

static int readNode(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (mhlYInt(y, v, "node", 0, MHL_MAX_NODES - 1, &l) < 0)
		return -1;
	st->node = (int)l;
	return 0;
}

/* Whether @name is an errno name (ENOMEM) or a signal's (SIGKILL) this libc knows. */
static bool knownFailure(const char *name)
{
	int i;

	for (i = 1; i < 4096; i++) {
		const char *e = strerrorname_np(i);

		if (e && !strcmp(e, name))
			return true;
	}
	for (i = 1; i < NSIG; i++) {
		const char *a = sigabbrev_np(i);

		if (a && g_str_has_prefix(name, "SIG") && !strcmp(a, name + 3))
			return true;
	}
	return false;
}

/* fails_with: ENOMEM, or {series: ENOMEM}: only under that pin_policy. */
static int readFailsWith(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	if (v->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p = v->data.mapping.pairs.start;
		yaml_node_t *pk;

		if (v->data.mapping.pairs.top - p != 1 ||
		    (pk = yaml_document_get_node(y->doc, p->key))->type != YAML_SCALAR_NODE ||
		    mhlNameIndex(mhlPinPolicies, mhlYScalar(y, pk)) < 0) {
			g_autofree char *known = mhlNamesJoin(MHL_ROWS(mhlPinPolicies), " or ");

			mhlError("%s:%d:%d: fails_with: a mapping has one key, a pin_policy (%s)", AT(y, v), known);
			return -1;
		}
		snprintf(st->fails_with_policy, sizeof(st->fails_with_policy), "%s", mhlYScalar(y, pk));
		v = yaml_document_get_node(y->doc, p->value);
	}
	if (mhlYStr(y, v, "fails_with", st->fails_with, sizeof(st->fails_with)) < 0)
		return -1;
	if (!knownFailure(st->fails_with)) {
		mhlError("%s:%d:%d: fails_with: '%s' is not an errno name (e.g. ENOMEM) or a signal (e.g. SIGKILL)",
			 AT(y, v), st->fails_with);
		return -1;
	}
	return 0;
}

/*
 * The parse function of a kind: read the value @v of @key, one of the keys
 * its row names, into @st.
 */
static int pinParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "id"))
		return readId(y, v, st);
	if (!strcmp(key, "size"))
		return mhlYSize(y, v, "size", &st->size);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "workload"))
		return mhlYName(y, v, "workload", mhl_pin_modes, st->workload, sizeof(st->workload));
	if (!strcmp(key, "backing"))
		return mhlYName(y, v, "backing", mhl_pin_backings, st->backing, sizeof(st->backing));
	if (!strcmp(key, "touch"))
		return mhlYName(y, v, "touch", mhl_pin_touches, st->touch, sizeof(st->touch));
	if (!strcmp(key, "split"))
		return mhlYName(y, v, "split", mhl_pin_splits, st->split, sizeof(st->split));
	if (!strcmp(key, "measure"))
		return mhlYBool(y, v, "measure", &st->measure);
	if (!strcmp(key, "scatter"))
		return mhlYSize(y, v, "scatter", &st->scatter);
	return readFailsWith(y, v, st);	/* fails_with */
}

static int resizeParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "size"))	/* dimm, vmem */
		return mhlYSize(y, v, "size", &st->size);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "requested"))
		return mhlYSize(y, v, "requested", &st->requested);
	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	return mhlYBool(y, v, "measure", &st->measure);	/* measure */
}

/* save, managedsave: {deadline: S}: each of the save, the restore and the agent's answer. */
static int lifecycleParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	(void)key;	/* deadline */
	return mhlYSeconds(y, v, "deadline", &st->deadline);
}

/* selftest: {name: N, measure: true}. */
static int selftestParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "name"))
		return mhlYName(y, v, "selftest", mhlSelftestNames, st->name, sizeof(st->name));
	return mhlYBool(y, v, "measure", &st->measure);	/* measure */
}

/*
 * migrate: {to: NAME, node: N, requested: SIZE, deadline: S}: a peer's name,
 * never its URI (the scenario says which host, the operator where it is: run
 * --peer NAME=URI, checked at plan time); requested: a resize of node's
 * device asked while the migration runs (what libvirt answers is recorded);
 * deadline: the migration is aborted past it (default
 * MHL_MIGRATE_DEADLINE_S), and the guest goes on here.
 */
static int migrateParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	size_t i;

	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "requested")) {
		st->resize_during = true;
		return mhlYSize(y, v, "requested", &st->requested);
	}
	if (mhlYStr(y, v, "migrate: to", st->to, sizeof(st->to)) < 0)
		return -1;
	for (i = 0; st->to[i]; i++)
		if (!g_ascii_isalnum(st->to[i]) && !strchr("._-", st->to[i]))
			break;
	if (!i || st->to[i]) {
		mhlError("%s:%d:%d: migrate: to: '%s' is not a peer's name ([A-Za-z0-9._-], 1 to %zu; a name, not a URI: run --peer NAME=URI says where it is)",
			 AT(y, v), st->to, sizeof(st->to) - 1);
		return -1;
	}
	return 0;
}

/*
 * exec: {argv: [PATH, ARG...], deadline: S, exit: N, measure: true}. argv is
 * handed to the guest agent as a list (guest-exec: no shell parses it): PATH
 * absolute, every entry printable text on one line.
 */
static int execArgv(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	yaml_node_item_t *it;
	size_t used = 0;

	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "exec: argv") < 0)
		return -1;
	if (v->data.sequence.items.start == v->data.sequence.items.top) {
		mhlError("%s:%d:%d: exec: argv is empty; it needs at least the program's absolute path", AT(y, v));
		return -1;
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		const unsigned char *c;
		size_t len;

		if (mhlYWantKind(y, n, YAML_SCALAR_NODE, "exec: an argv entry") < 0)
			return -1;
		len = strlen(mhlYScalar(y, n));
		if (st->argc >= MHL_MAX_EXEC_ARGS || used + len + 1 > sizeof(st->argv)) {
			mhlError("%s:%d:%d: exec: argv is longer than %d entries or %zu bytes", AT(y, n),
				 MHL_MAX_EXEC_ARGS, sizeof(st->argv));
			return -1;
		}
		if (!st->argc && mhlYScalar(y, n)[0] != '/') {
			mhlError("%s:%d:%d: exec: argv[0] '%s' is not an absolute path (no shell or PATH looks it up in the guest)",
				 AT(y, n), mhlYScalar(y, n));
			return -1;
		}
		for (c = (const unsigned char *)mhlYScalar(y, n); *c; c++) {
			if (*c < 0x20 || *c == 0x7f) {
				mhlError("%s:%d:%d: exec: argv[%d]: control character 0x%02x at offset %td (an entry is one line of printable text)",
					 AT(y, n), st->argc, *c, (const char *)c - mhlYScalar(y, n));
				return -1;
			}
		}
		memcpy(st->argv + used, mhlYScalar(y, n), len + 1);
		used += len + 1;
		st->argc++;
	}
	return 0;
}

static int execParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "argv"))
		return execArgv(y, v, st);
	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	if (!strcmp(key, "exit")) {
		if (mhlYInt(y, v, "exit", 0, 255, &l) < 0)
			return -1;
		st->exit_status = (int)l;
		return 0;
	}
	if (!strcmp(key, "ktap"))
		return mhlYBool(y, v, "ktap", &st->ktap);
	return mhlYBool(y, v, "measure", &st->measure);	/* measure */
}

/* reboot: {how: host|guest, deadline: S}. */
static int rebootParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	/* how */
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "how") < 0)
		return -1;
	if ((st->how = mhlNameIndex(mhlRebootHows, mhlYScalar(y, v))) < 0) {
		g_autofree char *known = mhlNamesKnown(mhlRebootHows);

		mhlError("%s:%d:%d: reboot: how: expected %s, not '%s'", AT(y, v), known, mhlYScalar(y, v));
		return -1;
	}
	return 0;
}

/* suspend: {seconds: S, node: N, requested: SIZE, deadline: S}. */
static int suspendParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "seconds"))
		return mhlYSeconds(y, v, "seconds", &st->seconds);
	if (!strcmp(key, "requested"))
		st->resize = true;
	return resizeParse(y, key, v, st);	/* node, requested, deadline */
}

/* balloon: {target: SIZE, deadline: S}: SIZE the boot memory less what the balloon holds. */
static int balloonParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	return mhlYSize(y, v, "target", &st->target);	/* target */
}

/* check, release, io: the id of a started workload. */
static int heldParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	(void)key;	/* id */
	return readId(y, v, st);
}

/* expect: {unplug: reached|short}: the last resize. */
static int readUnplug(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "unplug") < 0)
		return -1;
	if ((st->unplug = mhlNameIndex(mhlUnplugNames, mhlYScalar(y, v))) < 0) {
		mhlError("%s:%d:%d: unplug: expected reached or short, not '%s'", AT(y, v),
			 mhlYScalar(y, v));
		return -1;
	}
	return 0;
}

/* expect: {hugepages: reached|short}: the last hugepages step's pool. */
static int readHugepagesReached(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "hugepages") < 0)
		return -1;
	if ((st->hugepages = mhlNameIndex(mhlUnplugNames, mhlYScalar(y, v))) <= 0) {
		mhlError("%s:%d:%d: hugepages: expected reached or short, not '%s'", AT(y, v),
			 mhlYScalar(y, v));
		return -1;
	}
	return 0;
}

/* expect: {movable_after_pin: N|all}: the last pin's pages left in ZONE_MOVABLE. */
static int readMovable(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "movable_after_pin") < 0)
		return -1;
	if (!strcmp(mhlYScalar(y, v), "all")) {
		st->movable_after_pin = MHL_ALL;
		return 0;
	}
	if (mhlYInt(y, v, "movable_after_pin (pages, or all)", 0, G_MAXINT, &l) < 0)
		return -1;
	st->movable_after_pin = l;
	return 0;
}

/*
 * expect: {host_reclaimed: ">=N%"}: the last shrinking resize gave the host
 * back at least N % of what it could (docs/record.md: the reclaimable bytes).
 */
static int readHostReclaimed(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	const char *s;
	char *end;
	double pct;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "host_reclaimed") < 0)
		return -1;
	s = mhlYScalar(y, v);
	pct = g_str_has_prefix(s, ">=") ? g_ascii_strtod(s + 2, &end) : -1;
	if (pct < 0 || pct > 100 || !g_ascii_isdigit(s[2]) || strcmp(end, "%")) {
		mhlError("%s:%d:%d: host_reclaimed: expected \">=N%%\" with N from 0 to 100, not '%s'",
			 AT(y, v), s);
		return -1;
	}
	st->host_reclaimed = pct / 100;
	return 0;
}

/* expect: {dimm: removed|stuck}: the last dimm detach. */
static int readDimmOutcome(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	g_autofree char *known = NULL;

	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "dimm") < 0)
		return -1;
	if ((st->dimm = mhlNameIndex(mhlDimmOutcomes, mhlYScalar(y, v))) > 0)
		return 0;
	known = mhlNamesJoin(mhlDimmOutcomes + 1, G_N_ELEMENTS(mhlDimmOutcomes) - 1,
			     sizeof(mhlDimmOutcomes[0]), " or ");
	mhlError("%s:%d:%d: dimm: expected %s, not '%s'", AT(y, v), known, mhlYScalar(y, v));
	return -1;
}

static int expectParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "policy"))
		return mhlYName(y, v, "policy", mhlPinPolicies, st->policy, sizeof(st->policy));
	if (!strcmp(key, "kernel"))
		return mhlYName(y, v, "kernel", mhlKernelForms, st->kernel, sizeof(st->kernel));
	if (!strcmp(key, "vmstat"))
		return parseVmstat(y, v, st);
	if (!strcmp(key, "census_before") || !strcmp(key, "census_after"))
		return parseCensus(y, v, st, !strcmp(key, "census_after"));
	if (!strcmp(key, "integrity"))
		return mhlYTrue(y, v, "integrity", &st->integrity);
	if (!strcmp(key, "console_clean"))
		return mhlYTrue(y, v, "console_clean", &st->console_clean);
	if (!strcmp(key, "pins_failed")) {
		if (mhlYInt(y, v, "pins_failed", 0, MHL_MAX_STEPS, &l) < 0)
			return -1;
		st->pins_failed = (int)l;
		return 0;
	}
	if (!strcmp(key, "unplug"))
		return readUnplug(y, v, st);
	if (!strcmp(key, "host_reclaimed"))
		return readHostReclaimed(y, v, st);
	if (!strcmp(key, "hugepages"))
		return readHugepagesReached(y, v, st);
	if (!strcmp(key, "dimm"))
		return readDimmOutcome(y, v, st);
	return readMovable(y, v, st);	/* movable_after_pin */
}

/*
 * dimm: {id, node, size, action: attach|detach, deadline}; vmem: {id, node,
 * size, block, requested, action}. The id names the device (its libvirt
 * alias ua-dimm-ID / ua-vmem-ID), so a detach finds what an attach added.
 */
static int hotplugParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "action")) {
		if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "action") < 0)
			return -1;
		if ((st->action = mhlNameIndex(mhlActionNames, mhlYScalar(y, v))) < 0) {
			g_autofree char *known = mhlNamesKnown(mhlActionNames);

			mhlError("%s:%d:%d: action: expected %s, not '%s'", AT(y, v), known,
				 mhlYScalar(y, v));
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "block"))
		return mhlYSize(y, v, "block", &st->block);
	if (!strcmp(key, "id"))
		return readId(y, v, st);
	return resizeParse(y, key, v, st);	/* node, size (as requested), requested, deadline */
}

static int benchParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "size"))
		return mhlYSize(y, v, "size", &st->size);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "fresh"))
		return mhlYBool(y, v, "fresh", &st->fresh);
	/* repeat */
	if (mhlYInt(y, v, "repeat", 1, 1000, &l) < 0)
		return -1;
	st->repeat = (int)l;
	return 0;
}

static int sysrqParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	(void)key;	/* key */
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "key") < 0)
		return -1;
	if (strlen(mhlYScalar(y, v)) != 1 || !g_ascii_isalnum(*mhlYScalar(y, v))) {
		mhlError("%s:%d:%d: sysrq key: expected one letter or digit (see the kernel's sysrq.rst), not '%s'",
			 AT(y, v), mhlYScalar(y, v));
		return -1;
	}
	st->key = *mhlYScalar(y, v);
	return 0;
}

static int waitParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "seconds"))
		return mhlYSeconds(y, v, "seconds", &st->seconds);
	/* until */
	if (mhlYWantKind(y, v, YAML_SCALAR_NODE, "until") < 0)
		return -1;
	if ((st->until = mhlNameIndex(mhlUntilNames, mhlYScalar(y, v))) <= 0) {
		mhlError("%s:%d:%d: until: expected converged, not '%s'", AT(y, v), mhlYScalar(y, v));
		return -1;
	}
	return 0;
}

/*
 * hugepages: {node: N, count: C, size: 2MiB|1GiB, deadline: S}: the node's
 * pool of huge pages of that size set to C (0 frees them).
 */
static int hugepagesParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "deadline"))
		return mhlYSeconds(y, v, "deadline", &st->deadline);
	if (!strcmp(key, "size")) {
		if (mhlYSize(y, v, "size", &st->size) < 0)
			return -1;
		if (st->size == MHL_HUGEPAGE_2M || st->size == MHL_HUGEPAGE_1G)
			return 0;
		mhlError("%s:%d:%d: hugepages: size '%s' is no x86-64 huge page size (expected 2MiB or 1GiB)",
			 AT(y, v), mhlYScalar(y, v));
		return -1;
	}
	/* count: the kernel keeps nr_hugepages in an unsigned long; a guest has far fewer */
	if (mhlYInt(y, v, "count", 0, 1 << 24, &l) < 0)
		return -1;
	st->count = l;
	return 0;
}

/*
 * What the steps before the one being validated did, as far as the file
 * tells: what an expect step may assert about them (expectValidate).
 */
typedef struct {
	const mhlScenario *s;
	GHashTable *held;	/* ids of the workloads started and not released */
	GHashTable *lost;	/* ids whose holders a reboot ended -> the reboot's line */
	const mhlStep *last_pin;	/* the pin step an expect's census reads, or NULL */
	bool resized;		/* a resize step */
	bool shrunk;		/* one that may give memory back (host_reclaimed) */
	bool hugepaged;		/* a hugepages step (an expect's hugepages) */
	uint64_t most[MHL_MAX_NODES];	/* the largest request each device had: what it may hold */
	int checked;		/* check, io and release steps (integrity) */
	/* pin steps whose failure ends no trial, by mhlPinPolicies[] index: those
	 * that must fail (fails_with), those that may (fails_with, measure) */
	int must_fail[MHL_POLICY_LAST], may_fail[MHL_POLICY_LAST];
	GHashTable *dimms;	/* dimm and vmem ids attached and not detached -> their step */
	bool dimm_detached;	/* a dimm detach (expect: dimm) */
	uint64_t vmem_added[MHL_MAX_NODES], vmem_added_block[MHL_MAX_NODES];	/* a vmem attached on the node */
} mhlStepsSoFar;

/*
 * The validate function of a kind: check @st against the scenario and the
 * steps before it, then note what it does.
 */
static int nodeValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	if (st->node < sf->s->nnodes)
		return 0;
	mhlError("%s:%d:%d: step '%s' names node %d, but the guest has %d node(s)",
		 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->node, sf->s->nnodes);
	return -1;
}

static void stepKeyAt(const mhlStep *st, const char *key, int *line, int *col);

/* migrate's resize asked during the migration: a device there, a size it can take. */
static int migrateValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const mhlNode *n;

	if (!st->resize_during)
		return 0;
	if (nodeValidate(sf, st) < 0)
		return -1;
	n = &sf->s->nodes[st->node];
	if (n->vmem_size && st->requested <= n->vmem_size && !(st->requested % n->vmem_block))
		return 0;
	mhlError("%s:%d:%d: migrate: requested %" G_GUINT64_FORMAT " bytes needs node %d's virtio_mem device, a multiple of its block, at most its size",
		 sf->s->path, st->line, st->col, st->requested, st->node);
	return -1;
}

/* Whether pin @st must fail under mhlPinPolicies[@p] (fails_with, for every policy or that one). */
static bool pinMustFail(const mhlStep *st, int p)
{
	return st->fails_with[0] && (!st->fails_with_policy[0] ||
				     !strcmp(st->fails_with_policy, mhlPinPolicies[p].name));
}

/*
 * A pin that fails ends the trial (its step fails) unless it must fail
 * (fails_with) or is only measured (measure: true; of size 0 it pins
 * nothing, which pins_failed counts as a failure too).
 */
static void pinFailures(mhlStepsSoFar *sf, const mhlStep *st)
{
	int p;

	for (p = 0; p < MHL_POLICY_LAST; p++) {
		sf->must_fail[p] += pinMustFail(st, p);
		sf->may_fail[p] += pinMustFail(st, p) || st->measure;
	}
}

/*
 * scatter: BLOCK (memhp-pin --scatter, whose refusals these are, before a
 * boot): a power of two of at least 8 KiB, a size of whole blocks, at most
 * 16384 of them (one VMA per kept page), a mode that pins a buffer of any
 * layout or holds it (gup, io_uring; hold for the control), an anonymous
 * buffer touched before the pin, not split.
 */
static int scatterValidate(const mhlStepsSoFar *sf, const mhlStep *st)
{
	int mode = mhlNameIndex(mhl_pin_modes, st->workload), line, col;

	stepKeyAt(st, "scatter", &line, &col);
	if (st->scatter < 8192 || (st->scatter & (st->scatter - 1))) {
		mhlError("%s:%d:%d: pin: scatter %" G_GUINT64_FORMAT " bytes is no block size (a power of two of at least 8 KiB, e.g. 2MiB)",
			 sf->s->path, line, col, st->scatter);
		return -1;
	}
	if (st->size % st->scatter || st->size / st->scatter > 16384) {
		mhlError("%s:%d:%d: pin: scatter %" G_GUINT64_FORMAT " needs a size of whole blocks, at most 16384 of them (size %" G_GUINT64_FORMAT ")",
			 sf->s->path, line, col, st->scatter, st->size);
		return -1;
	}
	if (mode != MHL_PIN_GUP && mode != MHL_PIN_IO_URING && mode != MHL_PIN_HOLD) {
		mhlError("%s:%d:%d: pin: scatter is for workload gup, io_uring or hold, not %s",
			 sf->s->path, line, col, st->workload);
		return -1;
	}
	if (mhlNameIndex(mhl_pin_backings, st->backing) != MHL_PIN_BACKING_ANON ||
	    mhlNameIndex(mhl_pin_touches, st->touch) != MHL_PIN_TOUCH_BEFORE || st->split[0]) {
		mhlError("%s:%d:%d: pin: scatter needs backing: anon and touch: before (the pages are placed before the pin), and no split",
			 sf->s->path, line, col);
		return -1;
	}
	return 0;
}

/*
 * What the pin's workload row (lib/mhl-pin.h) asks of the step and the guest:
 * touch: read only for a mode that pins read-only, split only of THPs that
 * exist before the pin, the devices it needs (what run would find out after
 * a boot: ENODEV from the workload).
 */
static int pinModeValidate(const mhlStepsSoFar *sf, const mhlStep *st)
{
	const struct mhl_pin_mode_row *m = &mhl_pin_modes[MAX(mhlNameIndex(mhl_pin_modes, st->workload), 0)];
	int touch = mhlNameIndex(mhl_pin_touches, st->touch);
	bool iommu = m->devices & MHL_PIN_DEV_IOMMU, edu = m->devices & MHL_PIN_DEV_EDU;
	size_t i;

	if (touch == MHL_PIN_TOUCH_READ && !m->read_only) {
		g_autoptr(GString) ro = g_string_new(NULL);

		for (i = 0; i < G_N_ELEMENTS(mhl_pin_modes); i++)
			if (mhl_pin_modes[i].read_only)
				g_string_append_printf(ro, "%s%s", ro->len ? " or " : "", mhl_pin_modes[i].name);
		mhlError("%s:%d:%d: pin: touch: read (a read-only pin of never-written memory) is for workload %s only, not %s",
			 sf->s->path, st->line, st->col, ro->str, st->workload);
		return -1;
	}
	if (st->split[0] && (mhlNameIndex(mhl_pin_backings, st->backing) != MHL_PIN_BACKING_THP ||
			     touch != MHL_PIN_TOUCH_BEFORE || st->size % (2 << 20))) {
		mhlError("%s:%d:%d: pin: split needs backing: thp, touch: before and a size in whole 2 MiB pages",
			 sf->s->path, st->line, st->col);
		return -1;
	}
	if (st->scatter && scatterValidate(sf, st) < 0)
		return -1;
	if ((iommu && !sf->s->iommu) || (edu && !sf->s->edu)) {
		mhlError("%s:%d:%d: pin: workload %s needs devices: {%s%s%s} (%s)", sf->s->path, st->line, st->col,
			 m->name, iommu ? "iommu: true" : "", iommu && edu ? ", " : "", edu ? "edu: true" : "",
			 m->devices_why);
		return -1;
	}
	if (sf->s->kernel_flavour[0] && mhlStepLabFlavour(st)) {
		mhlError("%s:%d:%d: pin: workload %s runs on the lab kernel's %s flavour, and kernel: {debug: %s} is built without it (drop debug:, or pin with another workload)",
			 sf->s->path, st->line, st->col, m->name, mhlStepLabFlavour(st), sf->s->kernel_flavour);
		return -1;
	}
	return 0;
}

static int pinValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const char *path = sf->s->path;

	if (nodeValidate(sf, st) < 0)
		return -1;
	if (g_hash_table_contains(sf->held, st->id)) {
		mhlError("%s:%d:%d: workload '%s' is already started", path, st->line, st->col, st->id);
		return -1;
	}
	if (st->size % 4096) {	/* memhp-pin's refusal, after a boot */
		int line, col;

		stepKeyAt(st, "size", &line, &col);
		mhlError("%s:%d:%d: pin: size %" G_GUINT64_FORMAT " bytes is no whole number of 4 KiB pages (KB, MB, GB are powers of 1000, as virsh reads them: 1GB is 1000000000 bytes, 1GiB or 1G 1073741824)",
			 path, line, col, st->size);
		return -1;
	}
	if (pinModeValidate(sf, st) < 0)
		return -1;
	g_hash_table_add(sf->held, st->id);
	g_hash_table_remove(sf->lost, st->id);
	pinFailures(sf, st);
	sf->last_pin = st;
	return 0;
}

static int resizeValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const mhlNode *n;
	uint64_t size, block;

	if (nodeValidate(sf, st) < 0)
		return -1;
	n = &sf->s->nodes[st->node];
	/* the node's device from boot, else one a vmem step attached before */
	size = n->vmem_size ? n->vmem_size : sf->vmem_added[st->node];
	block = n->vmem_size ? n->vmem_block : sf->vmem_added_block[st->node];
	if (!size) {
		mhlError("%s:%d:%d: %s: node %d has no virtio_mem device (nor one a vmem step attached before it)",
			 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->node);
		return -1;
	}
	if (st->requested > size || st->requested % block) {
		mhlError("%s:%d:%d: %s: requested %" G_GUINT64_FORMAT " bytes must be a multiple of the block (%" G_GUINT64_FORMAT ") and at most the device size (%" G_GUINT64_FORMAT ")",
			 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->requested, block,
			 size);
		return -1;
	}
	/* the device holds at most the largest request it had: below it, a resize may shrink it */
	sf->shrunk |= st->requested < sf->most[st->node];
	sf->most[st->node] = MAX(sf->most[st->node], st->requested);
	sf->resized = true;
	return 0;
}

#define DIMM_ALIGN (128ULL << 20)	/* x86's memory block: a DIMM is onlined (and offlined) in whole blocks */

/* dimm, vmem attach: a new id, a node, a size the guest can online. */
static int hotplugAttachValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const char *kind = mhlStepTypeNames[st->type];
	bool vmem = st->type == MHL_STEP_VMEM;

	if (nodeValidate(sf, st) < 0)
		return -1;
	if (g_hash_table_contains(sf->dimms, st->id)) {
		mhlError("%s:%d:%d: %s: '%s' is already attached (at line %d)", sf->s->path, st->line,
			 st->col, kind, st->id, ((const mhlStep *)g_hash_table_lookup(sf->dimms, st->id))->line);
		return -1;
	}
	if (!vmem && (!st->size || st->size % DIMM_ALIGN)) {
		mhlError("%s:%d:%d: dimm: size %" G_GUINT64_FORMAT " bytes is no whole number of 128 MiB (the guest's memory block: it onlines and offlines a DIMM in whole blocks)",
			 sf->s->path, st->line, st->col, st->size);
		return -1;
	}
	if (vmem && (sf->s->nodes[st->node].vmem_size || sf->vmem_added[st->node])) {
		mhlError("%s:%d:%d: vmem: node %d has a virtio_mem device already (a resize finds a node's device: one per node)",
			 sf->s->path, st->line, st->col, st->node);
		return -1;
	}
	if (vmem && (!st->block || st->block & (st->block - 1) || !st->size || st->size % st->block ||
		     st->requested > st->size || st->requested % st->block)) {
		mhlError("%s:%d:%d: vmem: size %" G_GUINT64_FORMAT " and requested %" G_GUINT64_FORMAT " must be multiples of the block %" G_GUINT64_FORMAT " (a power of two), requested at most size",
			 sf->s->path, st->line, st->col, st->size, st->requested, st->block);
		return -1;
	}
	if (vmem) {
		sf->vmem_added[st->node] = st->size;
		sf->vmem_added_block[st->node] = st->block;
	}
	g_hash_table_insert(sf->dimms, st->id, st);
	return 0;
}

/* dimm, vmem: an attach, or the detach of what an attach of the same kind added. */
static int hotplugValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const mhlStep *a;

	if (st->action == MHL_ACTION_ATTACH)
		return hotplugAttachValidate(sf, st);
	a = g_hash_table_lookup(sf->dimms, st->id);
	if (!a || a->type != st->type) {
		mhlError("%s:%d:%d: %s: detach of '%s', which no %s step attached before it (or which was detached)",
			 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->id,
			 mhlStepTypeNames[st->type]);
		return -1;
	}
	/* the detach acts on the attached device: its node and size */
	st->node = a->node;
	st->size = a->size;
	sf->dimm_detached |= st->type == MHL_STEP_DIMM;
	g_hash_table_remove(sf->dimms, st->id);
	return 0;
}

/* check, io, release: a workload that is started; each judges its data (integrity). */
static int heldValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	if (g_hash_table_contains(sf->held, st->id)) {
		sf->checked++;
		return 0;
	}
	if (g_hash_table_contains(sf->lost, st->id)) {
		mhlError("%s:%d:%d: step '%s' refers to workload '%s', whose holder the reboot at line %d ended (a reboot ends every process in the guest and drops its pins): pin it again after the reboot",
			 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->id,
			 GPOINTER_TO_INT(g_hash_table_lookup(sf->lost, st->id)));
		return -1;
	}
	mhlError("%s:%d:%d: step '%s' refers to workload '%s', which was never started (or was released)",
		 sf->s->path, st->line, st->col, mhlStepTypeNames[st->type], st->id);
	return -1;
}

static int releaseValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	if (heldValidate(sf, st) < 0)
		return -1;
	g_hash_table_remove(sf->held, st->id);
	return 0;
}

/* reboot: every workload started so far is gone with it. */
static int rebootValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	GHashTableIter it;
	gpointer id;

	g_hash_table_iter_init(&it, sf->held);
	while (g_hash_table_iter_next(&it, &id, NULL))
		g_hash_table_insert(sf->lost, id, GINT_TO_POINTER(st->line));
	g_hash_table_remove_all(sf->held);
	return 0;
}

/* suspend: a resize while paused is checked as a resize step's; node alone asks nothing. */
static int suspendValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	int line, col;

	bool resized = sf->resized, shrunk = sf->shrunk;
	int rc;

	if (st->resize) {
		/* an expect's unplug and host_reclaimed read the last resize step: this is none */
		rc = resizeValidate(sf, st);
		sf->resized = resized;
		sf->shrunk = shrunk;
		return rc;
	}
	stepKeyAt(st, "node", &line, &col);
	if (line == st->line && col == st->col)
		return 0;
	mhlError("%s:%d:%d: suspend: node %d without requested: name the size to ask for while paused",
		 sf->s->path, line, col, st->node);
	return -1;
}

/* hugepages: a node the guest has; a size not given is 2 MiB. */
static int hugepagesValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	if (!st->size)
		st->size = MHL_HUGEPAGE_2M;
	sf->hugepaged = true;
	return nodeValidate(sf, st);
}

/*
 * balloon: the scenario has the device, and the target is memory the
 * balloon knows: more than 0, at most the boot memory (libvirt refuses
 * more: its balloon, as QEMU's, counts the boot memory only, never what
 * virtio-mem plugged).
 */
static int balloonValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	uint64_t boot = 0;
	int i, line, col;

	if (!sf->s->balloon) {
		mhlError("%s:%d:%d: balloon: the guest has no balloon: give devices: {balloon: true}",
			 sf->s->path, st->line, st->col);
		return -1;
	}
	for (i = 0; i < sf->s->nnodes; i++)
		boot += sf->s->nodes[i].memory;
	if (st->target && st->target <= boot && !(st->target % 1024))
		return 0;
	stepKeyAt(st, "target", &line, &col);
	mhlError("%s:%d:%d: balloon: target %" G_GUINT64_FORMAT " bytes: expected whole KiB, more than 0 and at most the guest's boot memory, %" G_GUINT64_FORMAT " bytes (the balloon counts no virtio_mem memory)",
		 sf->s->path, line, col, st->target, boot);
	return -1;
}

/*
 * An expectation that cannot hold given the steps before it: the message
 * names where the expect step gives it, and what it needs first.
 */
static int G_GNUC_PRINTF(4, 5) expectRefuse(const mhlStepsSoFar *sf, const mhlStep *st,
					    const char *key, const char *fmt, ...)
{
	g_autofree char *why = NULL;
	va_list ap;
	int line, col;

	va_start(ap, fmt);
	why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	stepKeyAt(st, key, &line, &col);
	mhlError("%s:%d:%d: expect: '%s' %s", sf->s->path, line, col, key, why);
	return -1;
}

/* The pin_policies expect step @st applies under: a bit per mhlPinPolicies[] index. */
static unsigned int expectPolicies(const mhlStep *st)
{
	return st->policy[0] ? 1u << mhlNameIndex(mhlPinPolicies, st->policy) : (1u << MHL_POLICY_LAST) - 1;
}

/* unplug: the last resize; host_reclaimed: the last that gave memory back. */
static int expectResized(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	if (!sf->resized)
		return expectRefuse(sf, st, key, "needs a resize step before it");
	if (strcmp(key, "host_reclaimed") || sf->shrunk)
		return 0;
	return expectRefuse(sf, st, key, "needs a resize step that shrinks a virtio_mem device before it (requested below a size the device had): the resize steps before it only grow or keep the devices, so the host has nothing to get back");
}

/* movable_after_pin, census_before, census_after: the census of the last pin, which a failed pin has none of. */
static int expectPinned(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	const mhlStep *p = sf->last_pin;
	unsigned int pols = expectPolicies(st);
	int i;

	if (!p)
		return expectRefuse(sf, st, key, "needs a pin step before it");
	if (p->measure && !p->size)
		return expectRefuse(sf, st, key, "needs a pin step that pins something before it: the last one ('%s', line %d) has size 0, and reports no census",
				    p->id, p->line);
	for (i = 0; i < MHL_POLICY_LAST; i++)
		if ((pols & (1u << i)) && !pinMustFail(p, i))
			return 0;
	return expectRefuse(sf, st, key, "needs a pin step that succeeds before it: the last one ('%s', line %d) must fail (fails_with: %s%s%s), and a failed pin reports no census",
			    p->id, p->line, p->fails_with, p->fails_with_policy[0] ? " under " : "",
			    p->fails_with_policy);
}

/*
 * pins_failed: N: a pin that fails ends the trial but for the ones that must
 * (fails_with) or may (measure) fail: N is between the two counts before it.
 */
static int expectPinsFailed(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	unsigned int pols = expectPolicies(st);
	int i, may = 0, must = MHL_MAX_STEPS;

	for (i = 0; i < MHL_POLICY_LAST; i++) {
		if (!(pols & (1u << i)))
			continue;
		if (sf->must_fail[i] <= st->pins_failed && st->pins_failed <= sf->may_fail[i])
			return 0;
		may = MAX(may, sf->may_fail[i]);
		must = MIN(must, sf->must_fail[i]);
	}
	if (st->pins_failed > may)
		return expectRefuse(sf, st, key, "(%d) needs %d pin step(s) before it that may fail (fails_with, or measure: true; any other pin that fails ends the trial): there %s %d",
				    st->pins_failed, st->pins_failed, may == 1 ? "is" : "are", may);
	return expectRefuse(sf, st, key, "(%d) can never hold: %d pin step(s) before it must fail (fails_with) for the trial to get here",
			    st->pins_failed, must);
}

/* hugepages: the last hugepages step. */
static int expectHugepaged(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	return sf->hugepaged ? 0 : expectRefuse(sf, st, key, "needs a hugepages step before it");
}

/* integrity: what the check, io and release steps so far found; none: nothing to judge. */
static int expectChecked(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	if (sf->checked)
		return 0;
	return expectRefuse(sf, st, key, "needs a check, io or release step before it (it judges the data those steps found)");
}

static bool expWantsUnplug(const mhlStep *st) { return st->unplug != MHL_UNPLUG_ANY; }
static bool expWantsHost(const mhlStep *st) { return st->host_reclaimed != MHL_UNSET; }
static bool expWantsMovable(const mhlStep *st) { return st->movable_after_pin != MHL_UNSET; }
static bool expWantsPinsFailed(const mhlStep *st) { return st->pins_failed != MHL_UNSET; }
static bool expWantsIntegrity(const mhlStep *st) { return st->integrity; }
static bool expWantsHugepages(const mhlStep *st) { return st->hugepages != MHL_UNPLUG_ANY; }
static bool expWantsDimm(const mhlStep *st) { return st->dimm != MHL_DIMM_ANY; }

/* dimm: the last dimm detach. */
static int expectDimmDetached(const mhlStepsSoFar *sf, const mhlStep *st, const char *key)
{
	if (sf->dimm_detached)
		return 0;
	return expectRefuse(sf, st, key, "needs a dimm step with action: detach before it");
}

static bool expWantsCensus(const mhlStep *st, bool after)
{
	int i;

	for (i = 0; i < st->ncensus; i++)
		if (st->census_after[i] == after)
			return true;
	return false;
}

static bool expWantsCensusBefore(const mhlStep *st) { return expWantsCensus(st, false); }
static bool expWantsCensusAfter(const mhlStep *st) { return expWantsCensus(st, true); }

/*
 * Each expectation that holds only after some step (docs/scenarios.md,
 * expect): the key, whether the step gives it, what it needs before it.
 * The others hold or not at any point: vmstat (changes since the start),
 * console_clean; policy and kernel only choose where the step applies.
 */
static const struct {
	const char *key;
	bool (*wanted)(const mhlStep *st);
	int (*needs)(const mhlStepsSoFar *sf, const mhlStep *st, const char *key);
} expectNeeds[] = {
	{ "unplug", expWantsUnplug, expectResized },
	{ "movable_after_pin", expWantsMovable, expectPinned },
	{ "census_before", expWantsCensusBefore, expectPinned },
	{ "census_after", expWantsCensusAfter, expectPinned },
	{ "pins_failed", expWantsPinsFailed, expectPinsFailed },
	{ "integrity", expWantsIntegrity, expectChecked },
	{ "host_reclaimed", expWantsHost, expectResized },
	{ "hugepages", expWantsHugepages, expectHugepaged },
	{ "dimm", expWantsDimm, expectDimmDetached },
};

static int expectValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(expectNeeds); i++)
		if (expectNeeds[i].wanted(st) && expectNeeds[i].needs(sf, st, expectNeeds[i].key) < 0)
			return -1;
	return 0;
}

typedef struct {
	const char *name;		/* as in mhlStepTypeNames */
	const char *const *need;	/* the keys it must have */
	const char *const *take;	/* the others it may have */
	int (*parse)(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st);
	int (*validate)(mhlStepsSoFar *sf, mhlStep *st);	/* NULL: nothing to check */
} mhlStepKind;

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_KEYS ((const char *const[]){ NULL })

static const mhlStepKind stepKinds[MHL_STEP_LAST] = {
	[MHL_STEP_PIN] = { "pin", KEYS("id", "size"),
			   KEYS("workload", "node", "backing", "touch", "fails_with", "measure", "split", "scatter"),
			   pinParse, pinValidate },
	[MHL_STEP_RESIZE] = { "resize", KEYS("node", "requested"), KEYS("deadline", "measure"),
			      resizeParse, resizeValidate },
	[MHL_STEP_CHECK] = { "check", KEYS("id"), NO_KEYS, heldParse, heldValidate },
	[MHL_STEP_RELEASE] = { "release", KEYS("id"), NO_KEYS, heldParse, releaseValidate },
	[MHL_STEP_SNAPSHOT] = { "snapshot", NO_KEYS, NO_KEYS, NULL, NULL },
	[MHL_STEP_EXPECT] = { "expect", NO_KEYS,
			      KEYS("policy", "kernel", "unplug", "movable_after_pin", "vmstat",
				   "census_before", "census_after", "pins_failed", "integrity",
				   "console_clean", "host_reclaimed", "hugepages", "dimm"),
			      expectParse, expectValidate },
	[MHL_STEP_BENCH] = { "bench", KEYS("size"), KEYS("node", "repeat", "fresh"),
			     benchParse, nodeValidate },
	[MHL_STEP_SYSRQ] = { "sysrq", KEYS("key"), NO_KEYS, sysrqParse, NULL },
	[MHL_STEP_WAIT] = { "wait", KEYS("seconds"), KEYS("until"), waitParse, NULL },
	[MHL_STEP_IO] = { "io", KEYS("id"), NO_KEYS, heldParse, heldValidate },
	[MHL_STEP_SELFTEST] = { "selftest", KEYS("name"), KEYS("measure"), selftestParse, NULL },
	[MHL_STEP_EXEC] = { "exec", KEYS("argv"), KEYS("deadline", "exit", "measure", "ktap"), execParse, NULL },
	[MHL_STEP_REBOOT] = { "reboot", NO_KEYS, KEYS("how", "deadline"), rebootParse, rebootValidate },
	[MHL_STEP_SUSPEND] = { "suspend", KEYS("seconds"), KEYS("node", "requested", "deadline"),
			       suspendParse, suspendValidate },
	[MHL_STEP_MIGRATE] = { "migrate", KEYS("to"), KEYS("node", "requested", "deadline"), migrateParse, migrateValidate },
	[MHL_STEP_SAVE] = { "save", NO_KEYS, KEYS("deadline"), lifecycleParse, NULL },
	[MHL_STEP_MANAGEDSAVE] = { "managedsave", NO_KEYS, KEYS("deadline"), lifecycleParse, NULL },
	[MHL_STEP_DAEMON_RESTART] = { "daemon-restart", NO_KEYS, KEYS("deadline"), lifecycleParse, NULL },
	[MHL_STEP_HUGEPAGES] = { "hugepages", KEYS("count"), KEYS("node", "size", "deadline"),
				 hugepagesParse, hugepagesValidate },
	[MHL_STEP_BALLOON] = { "balloon", KEYS("target"), KEYS("deadline"), balloonParse, balloonValidate },
	[MHL_STEP_DIMM] = { "dimm", KEYS("id", "action"), KEYS("node", "size", "deadline"),
			    hotplugParse, hotplugValidate },
	[MHL_STEP_VMEM] = { "vmem", KEYS("id", "action"), KEYS("node", "size", "block", "requested", "deadline"),
			    hotplugParse, hotplugValidate },
};

/*
 * Every key of the rows above, once, in the order the "known:" list of an
 * unknown key and the "needs"/"takes no" checks go: a new key goes last.
 */
static const char *const stepKeys[] = { "id", "workload", "size", "node", "requested",
					"deadline", "policy", "unplug", "movable_after_pin",
					"repeat", "fresh", "key", "seconds", "backing", "touch",
					"fails_with", "vmstat", "until", "pins_failed", "integrity",
					"console_clean", "measure", "split", "kernel",
					"census_before", "census_after", "host_reclaimed", "name",
					"argv", "exit", "ktap", "how", "to", "count", "hugepages", "target", "only", "action", "block",
					"dimm", "scatter", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(stepKeys) - 1 <= MHL_STEP_KEYS);	/* a bit each in mhlStepParse.seen */
G_STATIC_ASSERT(MHL_STEP_KEYS <= 64);

/* Where step @st gives @key: its line and column, else the step's own. */
static void stepKeyAt(const mhlStep *st, const char *key, int *line, int *col)
{
	int i = mhlYOneOf(key, stepKeys);

	*line = i >= 0 && st->key_at[i].line ? st->key_at[i].line : st->line;
	*col = i >= 0 && st->key_at[i].line ? st->key_at[i].col : st->col;
}

/* Note where each key of the step's mapping @v is written, for validate()'s messages. */
static void stepKeysAt(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	yaml_node_pair_t *p;

	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		int i = mhlYOneOf(mhlYScalar(y, k), stepKeys);

		if (i < 0)
			continue;
		st->key_at[i].line = (int)k->start_mark.line + 1;
		st->key_at[i].col = (int)k->start_mark.column + 1;
	}
}

/* only: every kind takes it (stepOnly), in no row. */
static bool stepKindTakes(const mhlStepKind *kind, const char *key)
{
	return !strcmp(key, "only") || mhlYOneOf(key, kind->need) >= 0 || mhlYOneOf(key, kind->take) >= 0;
}

/* The kind that reads @key in a step of @kind: @kind, else the first that takes it. */
static const mhlStepKind *stepKeyReader(const mhlStepKind *kind, const char *key)
{
	int t;

	if (stepKindTakes(kind, key))
		return kind;
	for (t = 0; t < MHL_STEP_LAST; t++)
		if (stepKindTakes(&stepKinds[t], key))
			return &stepKinds[t];
	return NULL;
}

typedef struct {
	mhlStep *st;
	const mhlStepKind *kind;
	guint64 seen;	/* bit per stepKeys[] */
} mhlStepParse;

/* The index of value @val on axis @a of the trial's matrix, or -1. */
static int onlyValueIndex(mhlYaml *y, int a, const char *val)
{
	int i;

	for (i = 0; i < y->matrix->nvalues[a]; i++)
		if (!strcmp(mhlMatrixValue(y, y->matrix, a, i), val))
			return i;
	return -1;
}

/* "a, b, c": the matrix's axes, or axis @a's values, for messages. */
static char *onlyKnown(mhlYaml *y, int a)
{
	g_autoptr(GString) out = g_string_new(NULL);
	int i, n = a < 0 ? y->matrix->naxes : y->matrix->nvalues[a];

	for (i = 0; i < n; i++)
		g_string_append_printf(out, "%s%s", i ? ", " : "",
				       a < 0 ? y->matrix->axis[i] : mhlMatrixValue(y, y->matrix, a, i));
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* One value @n given for axis @a: one of the axis's; *@match |= whether it is the trial's. */
static int onlyValue(mhlYaml *y, int a, yaml_node_t *n, bool *match)
{
	const char *mine = g_hash_table_lookup(y->bind, y->matrix->axis[a]);
	g_autofree char *known = NULL;

	if (mhlYWantKind(y, n, YAML_SCALAR_NODE, "only: a matrix value") < 0)
		return -1;
	if (onlyValueIndex(y, a, mhlYScalar(y, n)) < 0) {
		known = onlyKnown(y, a);
		mhlError("%s:%d:%d: only: %s: '%s' is not a value of the axis (values: %s)", AT(y, n),
			 y->matrix->axis[a], mhlYScalar(y, n), known);
		return -1;
	}
	*match |= mine && !strcmp(mine, mhlYScalar(y, n));
	return 0;
}

/*
 * One AXIS: VALUE (or AXIS: [VALUE, ...]) of only: the axis the matrix's,
 * each value one of the axis's; *@match whether the trial's is among them.
 */
static int onlyAxis(mhlYaml *y, yaml_node_t *k, yaml_node_t *v, bool *match)
{
	yaml_node_item_t *it;
	int a;

	if (mhlYWantKind(y, k, YAML_SCALAR_NODE, "only: a matrix axis") < 0)
		return -1;
	for (a = 0; a < y->matrix->naxes && strcmp(y->matrix->axis[a], mhlYScalar(y, k)); a++)
		;
	if (a == y->matrix->naxes) {
		g_autofree char *known = onlyKnown(y, -1);

		mhlError("%s:%d:%d: only: '%s' is not a matrix axis (axes: %s)", AT(y, k), mhlYScalar(y, k), known);
		return -1;
	}
	*match = false;
	if (v->type != YAML_SEQUENCE_NODE)
		return onlyValue(y, a, v, match);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
		if (onlyValue(y, a, yaml_document_get_node(y->doc, *it), match) < 0)
			return -1;
	return 0;
}

/*
 * only: {AXIS: VALUE, ...}, on any step: the step is this trial's when every
 * axis it names has one of the values given; else it is dropped from the
 * trial's steps (st->other_trial), after its keys were checked all the same.
 */
static int stepOnly(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	yaml_node_pair_t *p;
	bool match;

	if (!y->matrix) {
		mhlError("%s:%d:%d: only: the scenario has no matrix (only: names its axes and values)", AT(y, v));
		return -1;
	}
	if (mhlYWantKind(y, v, YAML_MAPPING_NODE, "only") < 0)
		return -1;
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		if (onlyAxis(y, yaml_document_get_node(y->doc, p->key),
			     yaml_document_get_node(y->doc, p->value), &match) < 0)
			return -1;
		st->other_trial |= !match;
	}
	return 0;
}

/*
 * One key of a step. A key another kind takes is read too, by that kind, so
 * that a bad value is reported as such before "takes no" (stepKeysCheck).
 */
static int stepPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlStepParse *sp = opaque;
	const mhlStepKind *reader = stepKeyReader(sp->kind, stepKeys[key]);

	sp->seen |= G_GUINT64_CONSTANT(1) << key;
	if (!strcmp(stepKeys[key], "only"))
		return stepOnly(y, v, sp->st);
	/* A key no kind takes is left to stepKeysCheck: "takes no". */
	return reader ? reader->parse(y, stepKeys[key], v, sp->st) : 0;
}

/* After all keys are read: none missing that the kind needs, none it does not take. */
static int stepKeysCheck(mhlYaml *y, yaml_node_t *k, const mhlStepParse *sp)
{
	int i;

	for (i = 0; stepKeys[i]; i++) {
		bool seen = sp->seen & (G_GUINT64_CONSTANT(1) << i);

		if (!seen && mhlYOneOf(stepKeys[i], sp->kind->need) >= 0) {
			mhlError("%s:%d:%d: step '%s' needs '%s'", AT(y, k), sp->kind->name, stepKeys[i]);
			return -1;
		}
		if (seen && !stepKindTakes(sp->kind, stepKeys[i])) {
			mhlError("%s:%d:%d: step '%s' takes no '%s'", AT(y, k), sp->kind->name,
				 stepKeys[i]);
			return -1;
		}
	}
	return 0;
}

/* "pin, resize, ...": the kinds, for messages. */
static char *stepKindNames(void)
{
	const char *names[MHL_STEP_LAST + 1] = { NULL };
	int t;

	for (t = 0; t < MHL_STEP_LAST; t++)
		names[t] = stepKinds[t].name;
	return g_strjoinv(", ", (char **)names);
}

/* The defaults of every step, whatever its kind. */
void mhlStepInit(mhlStep *st, mhlStepType type, int line)
{
	memset(st, 0, sizeof(*st));
	st->type = type;
	st->line = line;
	st->node = 1;
	st->deadline = 60;
	st->movable_after_pin = MHL_UNSET;
	st->repeat = 10;
	st->pins_failed = MHL_UNSET;
	st->host_reclaimed = MHL_UNSET;
	st->block = 2 << 20;
	snprintf(st->workload, sizeof(st->workload), "%s", mhl_pin_modes[MHL_PIN_GUP].name);
	snprintf(st->backing, sizeof(st->backing), "%s", mhl_pin_backings[MHL_PIN_BACKING_ANON]);
	snprintf(st->touch, sizeof(st->touch), "%s", mhl_pin_touches[MHL_PIN_TOUCH_BEFORE]);
}

static int parseStep(mhlYaml *y, mhlScenario *s, yaml_node_t *item)
{
	mhlStepParse sp = { .st = &s->steps[s->nsteps] };
	g_autofree char *known = NULL;
	yaml_node_pair_t *p;
	yaml_node_t *k, *v;
	int t;

	if (mhlYWantKind(y, item, YAML_MAPPING_NODE, "a step") < 0)
		return -1;
	if (item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1) {
		known = stepKindNames();
		mhlError("%s:%d:%d: a step is a mapping with one key, the step type (%s)", AT(y, item),
			 known);
		return -1;
	}
	p = item->data.mapping.pairs.start;
	k = yaml_document_get_node(y->doc, p->key);
	v = yaml_document_get_node(y->doc, p->value);
	for (t = 0; t < MHL_STEP_LAST; t++)
		if (!strcmp(mhlYScalar(y, k), stepKinds[t].name))
			break;
	if (t == MHL_STEP_LAST) {
		known = stepKindNames();
		mhlError("%s:%d:%d: unknown step '%s' (known: %s)", AT(y, k), mhlYScalar(y, k), known);
		return -1;
	}
	sp.kind = &stepKinds[t];
	mhlStepInit(sp.st, t, (int)k->start_mark.line + 1);
	sp.st->col = (int)k->start_mark.column + 1;
	/* "- snapshot:" with no value is an empty scalar. */
	if (!(v->type == YAML_SCALAR_NODE && !*mhlYScalar(y, v)) &&
	    mhlYForPairs(y, v, sp.kind->name, stepKeys, stepPair, &sp) < 0)
		return -1;
	if (stepKeysCheck(y, k, &sp) < 0)
		return -1;
	if (v->type == YAML_MAPPING_NODE)
		stepKeysAt(y, v, sp.st);
	return 0;
}

/*
 * steps: [...], in order. A step that fails is kept (mhlYErrorKeep) and the next
 * one read: each step's error is reported in one pass. It still counts
 * towards MHL_MAX_STEPS, marked broken: the cross-step checks (validate())
 * pass it by, and the steps naming its id.
 */
int mhlStepsParse(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (mhlYWantKind(y, v, YAML_SEQUENCE_NODE, "steps") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(y->doc, *it);

		if (s->nsteps >= MHL_MAX_STEPS) {
			mhlError("%s:%d:%d: more than %d steps", AT(y, item), MHL_MAX_STEPS);
			return -1;
		}
		if (parseStep(y, s, item) < 0) {
			mhlYErrorKeep(y);
			s->steps[s->nsteps].broken = true;
		} else if (s->steps[s->nsteps].other_trial)
			continue;	/* only: another trial's step */
		s->nsteps++;
	}
	return 0;
}


/*
 * Whether @st is broken, names the id of a broken step, or acts on a node
 * whose virtio_mem was refused (what it says of them is unknown, and a
 * block of 0 would divide by zero).
 */
static bool stepFollowsBroken(const mhlScenario *s, const mhlStep *st)
{
	int i;

	if (st->broken || (st->node >= 0 && st->node < s->nnodes && s->nodes[st->node].vmem_broken))
		return true;
	for (i = 0; st->id[0] && i < s->nsteps; i++)
		if (s->steps[i].broken && !strcmp(s->steps[i].id, st->id))
			return true;
	return false;
}

/* Cross-step checks, each kind's own (stepKinds[]): nodes exist, ids refer to started workloads. */
int mhlStepsValidate(mhlScenario *s)
{
	g_autoptr(GHashTable) held = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) lost = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) dimms = g_hash_table_new(g_str_hash, g_str_equal);
	mhlStepsSoFar sf = { .s = s, .held = held, .lost = lost, .dimms = dimms };
	int i;

	if (s->nnodes < 1) {
		mhlError("%s: no 'nodes' given", s->path);
		return -1;
	}
	for (i = 0; i < s->nnodes; i++)
		sf.most[i] = s->nodes[i].vmem_requested;
	for (i = 0; i < s->nsteps; i++) {
		mhlStep *st = &s->steps[i];

		/* after errors in leaves (a step's own): the other steps' checks, not what follows from it */
		if (stepFollowsBroken(s, st))
			continue;
		if (stepKinds[st->type].validate && stepKinds[st->type].validate(&sf, st) < 0)
			return -1;
	}
	return 0;
}

