/*
 * scenario.c - load a scenario file with libyaml's document API, so every
 * node keeps its line and column for messages.
 */
#include <glib.h>

#include "scenario/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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
};

static const char *const policyNames[] = { "series", "baseline", NULL };

static int oneOf(const char *what, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(what, names[i]))
			return i;
	return -1;
}

typedef struct {
	const char *path;
	yaml_document_t *doc;
	/* The trial's matrix parameters: ${axis} in a scalar becomes its value. */
	GHashTable *expanded;	/* yaml_node_t * -> the scalar with ${axis} replaced */
} mhlYaml;

#define AT(y, n) (y)->path, (int)(n)->start_mark.line + 1, (int)(n)->start_mark.column + 1

static const char *nodeKindName(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static int wantKind(mhlYaml *y, yaml_node_t *n, yaml_node_type_t kind, const char *what)
{
	static const char *const names[] = {
		[YAML_SCALAR_NODE] = "a scalar", [YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};

	if (n->type == kind)
		return 0;
	mhlError("%s:%d:%d: %s must be %s, not %s", AT(y, n), what, names[kind], nodeKindName(n));
	return -1;
}

static const char *scalar(mhlYaml *y, yaml_node_t *n)
{
	const char *e = y->expanded ? g_hash_table_lookup(y->expanded, n) : NULL;

	return e ? e : (const char *)n->data.scalar.value;
}

static int getSize(mhlYaml *y, yaml_node_t *n, const char *what, uint64_t *out)
{
	if (wantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (mhl_size_parse(scalar(y, n), out) < 0) {
		mhlError("%s:%d:%d: %s: '%s' is not a size (%s; expected e.g. 256MiB, 1GiB, 0)",
			 AT(y, n), what, scalar(y, n), errno == ERANGE ? "too large" : "unparsable");
		return -1;
	}
	return 0;
}

static int getInt(mhlYaml *y, yaml_node_t *n, const char *what, long min, long max, long *out)
{
	char *end;

	if (wantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	errno = 0;
	*out = strtol(scalar(y, n), &end, 10);
	if (errno || end == scalar(y, n) || *end || *out < min || *out > max) {
		mhlError("%s:%d:%d: %s: '%s' is not an integer in [%ld, %ld]",
			 AT(y, n), what, scalar(y, n), min, max);
		return -1;
	}
	return 0;
}

static int getSeconds(mhlYaml *y, yaml_node_t *n, const char *what, double *out)
{
	char *end;

	if (wantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	*out = strtod(scalar(y, n), &end);
	if (end == scalar(y, n) || *end || *out <= 0 || *out > 86400) {
		mhlError("%s:%d:%d: %s: '%s' is not a number of seconds in (0, 86400]",
			 AT(y, n), what, scalar(y, n));
		return -1;
	}
	return 0;
}

static int getStr(mhlYaml *y, yaml_node_t *n, const char *what, char *buf, size_t len)
{
	if (wantKind(y, n, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strlen(scalar(y, n)) >= len || !*scalar(y, n)) {
		mhlError("%s:%d:%d: %s: '%s' must be 1 to %zu characters", AT(y, n), what,
			 scalar(y, n), len - 1);
		return -1;
	}
	snprintf(buf, len, "%s", scalar(y, n));
	return 0;
}

/* Walk a mapping: for each pair, look the key up in keys[]; unknown keys fail. */
typedef int (*mhlPairFn)(mhlYaml *y, int key, yaml_node_t *val, void *opaque);

static int forPairs(mhlYaml *y, yaml_node_t *map, const char *what,
		    const char *const *keys, mhlPairFn fn, void *opaque)
{
	yaml_node_pair_t *p;

	if (wantKind(y, map, YAML_MAPPING_NODE, what) < 0)
		return -1;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
		g_autofree char *known = NULL;
		int i;

		if (wantKind(y, k, YAML_SCALAR_NODE, "a key") < 0)
			return -1;
		for (i = 0; keys[i]; i++)
			if (!strcmp(keys[i], scalar(y, k)))
				break;
		if (!keys[i]) {
			known = g_strjoinv(", ", (char **)keys);
			mhlError("%s:%d:%d: unknown key '%s' in %s (known: %s)", AT(y, k),
				 scalar(y, k), what, known);
			return -1;
		}
		if (fn(y, i, v, opaque) < 0)
			return -1;
	}
	return 0;
}

enum { VM_SIZE, VM_BLOCK, VM_REQUESTED };
static const char *const vmemKeys[] = { "size", "block", "requested", NULL };

static int vmemPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlNode *n = opaque;

	switch (key) {
	case VM_SIZE: return getSize(y, v, "virtio_mem.size", &n->vmem_size);
	case VM_BLOCK: return getSize(y, v, "virtio_mem.block", &n->vmem_block);
	default: return getSize(y, v, "virtio_mem.requested", &n->vmem_requested);
	}
}

enum { ND_MEMORY, ND_CPUS, ND_VMEM };
static const char *const nodeKeys[] = { "memory", "cpus", "virtio_mem", NULL };

static int nodePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlNode *n = opaque;
	long l;

	switch (key) {
	case ND_MEMORY:
		if (getSize(y, v, "node memory", &n->memory) < 0)
			return -1;
		if (n->memory < 16 << 20) {
			mhlError("%s:%d:%d: node memory must be at least 16MiB (QEMU refuses an empty NUMA cell)",
				 AT(y, v));
			return -1;
		}
		return 0;
	case ND_CPUS:
		if (getInt(y, v, "cpus", 1, 8, &l) < 0)
			return -1;
		n->cpus = (int)l;
		return 0;
	default:
		n->vmem_block = 2 << 20;
		if (forPairs(y, v, "virtio_mem", vmemKeys, vmemPair, n) < 0)
			return -1;
		if (!n->vmem_size || !n->vmem_block || n->vmem_block & (n->vmem_block - 1) ||
		    n->vmem_size % n->vmem_block || n->vmem_requested % n->vmem_block ||
		    n->vmem_requested > n->vmem_size) {
			mhlError("%s:%d:%d: virtio_mem: size (%" G_GUINT64_FORMAT ") must be a non-zero multiple of block (%" G_GUINT64_FORMAT ", a power of two), requested (%" G_GUINT64_FORMAT ") a multiple of block and at most size",
				 AT(y, v), n->vmem_size, n->vmem_block, n->vmem_requested);
			return -1;
		}
		return 0;
	}
}

enum { ST_ID, ST_WORKLOAD, ST_SIZE, ST_NODE, ST_REQUESTED, ST_DEADLINE,
       ST_POLICY, ST_UNPLUG, ST_MOVABLE, ST_REPEAT, ST_FRESH, ST_KEY, ST_SECONDS,
       ST_BACKING, ST_TOUCH, ST_FAILS_WITH, ST_VMSTAT, ST_UNTIL, ST_PINS_FAILED,
       ST_INTEGRITY, ST_CONSOLE_CLEAN, ST_MEASURE, ST_SPLIT, ST_KERNEL, ST_CENSUS_BEFORE,
       ST_CENSUS_AFTER };
static const char *const stepKeys[] = { "id", "workload", "size", "node", "requested",
					"deadline", "policy", "unplug", "movable_after_pin",
					"repeat", "fresh", "key", "seconds", "backing", "touch",
					"fails_with", "vmstat", "until", "pins_failed", "integrity",
					"console_clean", "measure", "split", "kernel",
					"census_before", "census_after", NULL };
static const char *const untilNames[] = { "none", "converged", NULL };
static const char *const workloadNames[] = { "gup", "io_uring", "vfio", "vfio-noiommu", NULL };
static const char *const backingNames[] = { "anon", "thp", "hugetlb", "memfd", NULL };
static const char *const touchNames[] = { "before", "pin", "read", NULL };
static const char *const splitNames[] = { "mprotect", "munmap", NULL };
static const char *const kernelNames[] = { "6.12", "6.1", NULL };
/* What census_before/census_after may count: zones, and the page kinds of census.h. */
static const char *const censusKeys[] = { "pages", "not_present", "unknown", "zero", "thp", "cma",
					  "DMA", "DMA32", "Normal", "Movable", "other", NULL };
static const char *const unplugNames[] = { "any", "reached", "short", NULL };

typedef struct {
	mhlStep *st;
	unsigned int seen;
} mhlStepParse;

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

	if (wantKind(y, v, YAML_MAPPING_NODE, "vmstat") < 0)
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
		if (wantKind(y, k, YAML_SCALAR_NODE, "a vmstat counter") < 0 ||
		    wantKind(y, n, YAML_SCALAR_NODE, "a vmstat change") < 0)
			return -1;
		if (!g_regex_match_simple("^[a-z0-9_]+$", scalar(y, k), 0, 0) ||
		    strlen(scalar(y, k)) >= sizeof(st->vmstat_key[i])) {
			mhlError("%s:%d:%d: '%s' is not a /proc/vmstat counter name", AT(y, k),
				 scalar(y, k));
			return -1;
		}
		if (parseAtLeast(scalar(y, n), &st->vmstat_val[i], &st->vmstat_atleast[i]) < 0) {
			mhlError("%s:%d:%d: vmstat %s: expected a change N or \">=N\", not '%s'",
				 AT(y, n), scalar(y, k), scalar(y, n));
			return -1;
		}
		snprintf(st->vmstat_key[i], sizeof(st->vmstat_key[i]), "%s", scalar(y, k));
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

	if (wantKind(y, v, YAML_MAPPING_NODE, what) < 0)
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
		if (wantKind(y, k, YAML_SCALAR_NODE, "a census count") < 0 ||
		    wantKind(y, n, YAML_SCALAR_NODE, "a page count") < 0)
			return -1;
		if (oneOf(scalar(y, k), censusKeys) < 0) {
			g_autofree char *known = g_strjoinv(", ", (char **)censusKeys);

			mhlError("%s:%d:%d: %s: unknown count '%s' (known: %s)", AT(y, k), what,
				 scalar(y, k), known);
			return -1;
		}
		val = scalar(y, n);
		if (!strcmp(val, "all")) {
			st->census_val[i] = MHL_ALL;
			st->census_atleast[i] = false;
		} else if (parseAtLeast(val, &st->census_val[i], &st->census_atleast[i]) < 0 ||
			   st->census_val[i] < 0) {
			mhlError("%s:%d:%d: %s %s: expected pages N, \">=N\" or all, not '%s'",
				 AT(y, n), what, scalar(y, k), val);
			return -1;
		}
		snprintf(st->census_key[i], sizeof(st->census_key[i]), "%s", scalar(y, k));
		st->census_after[i] = after;
		st->ncensus++;
	}
	return 0;
}

/* A string that must be one of @names; the error lists them. */
static int getName(mhlYaml *y, yaml_node_t *v, const char *what, const char *const *names,
		   char *buf, size_t len)
{
	g_autofree char *known = NULL;

	if (getStr(y, v, what, buf, len) < 0)
		return -1;
	if (oneOf(buf, names) >= 0)
		return 0;
	known = g_strjoinv(", ", (char **)names);
	mhlError("%s:%d:%d: unknown %s '%s' (known: %s)", AT(y, v), what, buf, known);
	return -1;
}

static int stepPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlStepParse *sp = opaque;
	mhlStep *st = sp->st;
	long l;

	sp->seen |= 1u << key;
	switch (key) {
	case ST_ID: return getStr(y, v, "id", st->id, sizeof(st->id));
	case ST_WORKLOAD:
		return getName(y, v, "workload", workloadNames, st->workload, sizeof(st->workload));
	case ST_BACKING:
		return getName(y, v, "backing", backingNames, st->backing, sizeof(st->backing));
	case ST_TOUCH:
		return getName(y, v, "touch", touchNames, st->touch, sizeof(st->touch));
	case ST_VMSTAT:
		return parseVmstat(y, v, st);
	case ST_CENSUS_BEFORE:
	case ST_CENSUS_AFTER:
		return parseCensus(y, v, st, key == ST_CENSUS_AFTER);
	case ST_SPLIT:
		return getName(y, v, "split", splitNames, st->split, sizeof(st->split));
	case ST_KERNEL:
		return getName(y, v, "kernel", kernelNames, st->kernel, sizeof(st->kernel));
	case ST_UNTIL:
		if (wantKind(y, v, YAML_SCALAR_NODE, "until") < 0)
			return -1;
		if ((st->until = oneOf(scalar(y, v), untilNames)) <= 0) {
			mhlError("%s:%d:%d: until: expected converged, not '%s'", AT(y, v), scalar(y, v));
			return -1;
		}
		return 0;
	case ST_PINS_FAILED:
		if (getInt(y, v, "pins_failed", 0, MHL_MAX_STEPS, &l) < 0)
			return -1;
		st->pins_failed = (int)l;
		return 0;
	case ST_INTEGRITY:
	case ST_CONSOLE_CLEAN:
		if (wantKind(y, v, YAML_SCALAR_NODE, stepKeys[key]) < 0)
			return -1;
		if (strcmp(scalar(y, v), "true")) {
			mhlError("%s:%d:%d: %s: only 'true' is meaningful here, not '%s'", AT(y, v),
				 stepKeys[key], scalar(y, v));
			return -1;
		}
		*(key == ST_INTEGRITY ? &st->integrity : &st->console_clean) = true;
		return 0;
	case ST_FAILS_WITH:
		/* fails_with: ENOMEM, or {series: ENOMEM}: only under that pin_policy. */
		if (v->type == YAML_MAPPING_NODE) {
			yaml_node_pair_t *p = v->data.mapping.pairs.start;
			yaml_node_t *pk;

			if (v->data.mapping.pairs.top - p != 1 ||
			    (pk = yaml_document_get_node(y->doc, p->key))->type != YAML_SCALAR_NODE ||
			    oneOf(scalar(y, pk), policyNames) < 0) {
				mhlError("%s:%d:%d: fails_with: a mapping has one key, a pin_policy (series or baseline)",
					 AT(y, v));
				return -1;
			}
			snprintf(st->fails_with_policy, sizeof(st->fails_with_policy), "%s", scalar(y, pk));
			v = yaml_document_get_node(y->doc, p->value);
		}
		if (getStr(y, v, "fails_with", st->fails_with, sizeof(st->fails_with)) < 0)
			return -1;
		if (strncmp(st->fails_with, "E", 1) && strncmp(st->fails_with, "SIG", 3)) {
			mhlError("%s:%d:%d: fails_with: '%s' is not an errno name (e.g. ENOMEM) or a signal (e.g. SIGKILL)",
				 AT(y, v), st->fails_with);
			return -1;
		}
		return 0;
	case ST_SIZE: return getSize(y, v, "size", &st->size);
	case ST_NODE:
		if (getInt(y, v, "node", 0, MHL_MAX_NODES - 1, &l) < 0)
			return -1;
		st->node = (int)l;
		return 0;
	case ST_REQUESTED: return getSize(y, v, "requested", &st->requested);
	case ST_DEADLINE: return getSeconds(y, v, "deadline", &st->deadline);
	case ST_POLICY:
		if (getStr(y, v, "policy", st->policy, sizeof(st->policy)) < 0)
			return -1;
		if (oneOf(st->policy, policyNames) < 0) {
			mhlError("%s:%d:%d: unknown policy '%s' (known: series, baseline)", AT(y, v),
				 st->policy);
			return -1;
		}
		return 0;
	case ST_UNPLUG:
		if (wantKind(y, v, YAML_SCALAR_NODE, "unplug") < 0)
			return -1;
		if ((st->unplug = oneOf(scalar(y, v), unplugNames)) < 0) {
			mhlError("%s:%d:%d: unplug: expected reached or short, not '%s'", AT(y, v),
				 scalar(y, v));
			return -1;
		}
		return 0;
	case ST_REPEAT:
		if (getInt(y, v, "repeat", 1, 1000, &l) < 0)
			return -1;
		st->repeat = (int)l;
		return 0;
	case ST_KEY:
		if (wantKind(y, v, YAML_SCALAR_NODE, "key") < 0)
			return -1;
		if (strlen(scalar(y, v)) != 1 || !g_ascii_isalnum(*scalar(y, v))) {
			mhlError("%s:%d:%d: sysrq key: expected one letter or digit (see the kernel's sysrq.rst), not '%s'",
				 AT(y, v), scalar(y, v));
			return -1;
		}
		st->key = *scalar(y, v);
		return 0;
	case ST_SECONDS:
		return getSeconds(y, v, "seconds", &st->seconds);
	case ST_FRESH:
	case ST_MEASURE: {
		const char *what = key == ST_FRESH ? "fresh" : "measure";

		if (wantKind(y, v, YAML_SCALAR_NODE, what) < 0)
			return -1;
		if (strcmp(scalar(y, v), "true") && strcmp(scalar(y, v), "false")) {
			mhlError("%s:%d:%d: %s: expected true or false, not '%s'", AT(y, v), what,
				 scalar(y, v));
			return -1;
		}
		*(key == ST_FRESH ? &st->fresh : &st->measure) = !strcmp(scalar(y, v), "true");
		return 0;
	}
	default:
		if (wantKind(y, v, YAML_SCALAR_NODE, "movable_after_pin") < 0)
			return -1;
		if (!strcmp(scalar(y, v), "all")) {
			st->movable_after_pin = MHL_ALL;
			return 0;
		}
		if (getInt(y, v, "movable_after_pin (pages, or all)", 0, G_MAXINT, &l) < 0)
			return -1;
		st->movable_after_pin = l;
		return 0;
	}
}

/* Which keys each step type needs (bit per ST_*) and allows. */
static const struct {
	unsigned int need, allow;
} stepRules[MHL_STEP_LAST] = {
	[MHL_STEP_PIN] = { 1 << ST_ID | 1 << ST_SIZE,
			   1 << ST_ID | 1 << ST_WORKLOAD | 1 << ST_SIZE | 1 << ST_NODE |
			   1 << ST_BACKING | 1 << ST_TOUCH | 1 << ST_FAILS_WITH | 1 << ST_MEASURE |
			   1 << ST_SPLIT },
	[MHL_STEP_RESIZE] = { 1 << ST_NODE | 1 << ST_REQUESTED,
			      1 << ST_NODE | 1 << ST_REQUESTED | 1 << ST_DEADLINE | 1 << ST_MEASURE },
	[MHL_STEP_CHECK] = { 1 << ST_ID, 1 << ST_ID },
	[MHL_STEP_RELEASE] = { 1 << ST_ID, 1 << ST_ID },
	[MHL_STEP_SNAPSHOT] = { 0, 0 },
	[MHL_STEP_EXPECT] = { 0, 1 << ST_POLICY | 1 << ST_UNPLUG | 1 << ST_MOVABLE | 1 << ST_VMSTAT |
				 1 << ST_PINS_FAILED | 1 << ST_INTEGRITY | 1 << ST_CONSOLE_CLEAN |
				 1 << ST_KERNEL | 1 << ST_CENSUS_BEFORE | 1 << ST_CENSUS_AFTER },
	[MHL_STEP_IO] = { 1 << ST_ID, 1 << ST_ID },
	[MHL_STEP_BENCH] = { 1 << ST_SIZE,
			     1 << ST_SIZE | 1 << ST_NODE | 1 << ST_REPEAT | 1 << ST_FRESH },
	[MHL_STEP_SYSRQ] = { 1 << ST_KEY, 1 << ST_KEY },
	[MHL_STEP_WAIT] = { 1 << ST_SECONDS, 1 << ST_SECONDS | 1 << ST_UNTIL },
};

static int parseStep(mhlYaml *y, mhlScenario *s, yaml_node_t *item)
{
	mhlStep *st = &s->steps[s->nsteps];
	mhlStepParse sp = { .st = st };
	yaml_node_pair_t *p;
	yaml_node_t *k, *v;
	int t, i;

	if (wantKind(y, item, YAML_MAPPING_NODE, "a step") < 0)
		return -1;
	if (item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1) {
		mhlError("%s:%d:%d: a step is a mapping with one key, the step type (pin, resize, check, release, snapshot, expect, bench, sysrq, wait, io)",
			 AT(y, item));
		return -1;
	}
	if (s->nsteps >= MHL_MAX_STEPS) {
		mhlError("%s:%d:%d: more than %d steps", AT(y, item), MHL_MAX_STEPS);
		return -1;
	}
	p = item->data.mapping.pairs.start;
	k = yaml_document_get_node(y->doc, p->key);
	v = yaml_document_get_node(y->doc, p->value);
	for (t = 0; t < MHL_STEP_LAST; t++)
		if (!strcmp(scalar(y, k), mhlStepTypeNames[t]))
			break;
	if (t == MHL_STEP_LAST) {
		mhlError("%s:%d:%d: unknown step '%s' (known: pin, resize, check, release, snapshot, expect, bench, sysrq, wait, io)",
			 AT(y, k), scalar(y, k));
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->type = t;
	st->line = (int)k->start_mark.line + 1;
	st->node = 1;
	st->deadline = 60;
	st->movable_after_pin = MHL_UNSET;
	st->repeat = 10;
	st->pins_failed = MHL_UNSET;
	snprintf(st->workload, sizeof(st->workload), "gup");
	snprintf(st->backing, sizeof(st->backing), "anon");
	snprintf(st->touch, sizeof(st->touch), "before");
	/* "- snapshot:" with no value is an empty scalar. */
	if (!(v->type == YAML_SCALAR_NODE && !*scalar(y, v)) &&
	    forPairs(y, v, mhlStepTypeNames[t], stepKeys, stepPair, &sp) < 0)
		return -1;
	for (i = 0; stepKeys[i]; i++) {
		if ((stepRules[t].need & (1u << i)) && !(sp.seen & (1u << i))) {
			mhlError("%s:%d:%d: step '%s' needs '%s'", AT(y, k), scalar(y, k), stepKeys[i]);
			return -1;
		}
		if ((sp.seen & (1u << i)) && !(stepRules[t].allow & (1u << i))) {
			mhlError("%s:%d:%d: step '%s' takes no '%s'", AT(y, k), scalar(y, k), stepKeys[i]);
			return -1;
		}
	}
	s->nsteps++;
	return 0;
}

/* A path in a scenario is relative to the scenario file's directory. */
static char *scenarioPath(const mhlScenario *s, const char *p)
{
	g_autofree char *dir = g_path_get_dirname(s->path);

	return g_canonicalize_filename(p, dir);
}

/* kernel: {bzimage: PATH, config: PATH}, a kernel the user built. */
static const char *const prebuiltKeys[] = { "bzimage", "config", NULL };

static int prebuiltPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	char **dst = key == 0 ? &s->kernel_image : &s->kernel_config;

	if (wantKind(y, v, YAML_SCALAR_NODE, prebuiltKeys[key]) < 0)
		return -1;
	g_free(*dst);
	*dst = scenarioPath(s, scalar(y, v));
	return 0;
}

static int parseKernel(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	g_free(s->kernel);
	s->kernel = NULL;
	if (v->type == YAML_MAPPING_NODE) {
		if (forPairs(y, v, "kernel", prebuiltKeys, prebuiltPair, s) < 0)
			return -1;
		if (!s->kernel_image || !s->kernel_config) {
			mhlError("%s:%d:%d: a prebuilt kernel needs both 'bzimage' and 'config'",
				 AT(y, v));
			return -1;
		}
		s->kernel = g_strdup("prebuilt");
		return 0;
	}
	if (wantKind(y, v, YAML_SCALAR_NODE, "kernel") < 0)
		return -1;
	if (oneOf(scalar(y, v), kernelNames) < 0) {
		mhlError("%s:%d:%d: unknown kernel '%s' (known: 6.12, 6.1, or {bzimage: PATH, config: PATH})",
			 AT(y, v), scalar(y, v));
		return -1;
	}
	s->kernel = g_strdup(scalar(y, v));
	return 0;
}

/* devices: {iommu: BOOL, edu: BOOL}, extra guest devices for the vfio workloads. */
static const char *const deviceKeys[] = { "iommu", "edu", NULL };

static int devicePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;

	if (wantKind(y, v, YAML_SCALAR_NODE, deviceKeys[key]) < 0)
		return -1;
	if (strcmp(scalar(y, v), "true") && strcmp(scalar(y, v), "false")) {
		mhlError("%s:%d:%d: devices: %s: expected true or false, not '%s'", AT(y, v),
			 deviceKeys[key], scalar(y, v));
		return -1;
	}
	*(key == 0 ? &s->iommu : &s->edu) = !strcmp(scalar(y, v), "true");
	return 0;
}

enum { TOP_NAME, TOP_KERNEL, TOP_CMDLINE, TOP_POLICY, TOP_NODES, TOP_STEPS, TOP_MATRIX,
       TOP_DEVICES };
static const char *const topKeys[] = { "name", "kernel", "cmdline", "pin_policy", "nodes",
				       "steps", "matrix", "devices", NULL };

static int topPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	yaml_node_item_t *it;
	char **dst;

	switch (key) {
	case TOP_MATRIX:
		return 0;	/* expanded before the trials are parsed (matrixParse) */
	case TOP_KERNEL:
		return parseKernel(y, s, v);
	case TOP_DEVICES:
		return forPairs(y, v, "devices", deviceKeys, devicePair, s);
	case TOP_NAME:
	case TOP_CMDLINE:
	case TOP_POLICY:
		if (wantKind(y, v, YAML_SCALAR_NODE, topKeys[key]) < 0)
			return -1;
		if (key == TOP_POLICY && oneOf(scalar(y, v), policyNames) < 0) {
			mhlError("%s:%d:%d: unknown pin_policy '%s' (known: series, baseline)",
				 AT(y, v), scalar(y, v));
			return -1;
		}
		dst = key == TOP_NAME ? &s->name : key == TOP_CMDLINE ? &s->cmdline : &s->pin_policy;
		g_free(*dst);
		*dst = g_strdup(scalar(y, v));
		return 0;
	case TOP_NODES:
		if (wantKind(y, v, YAML_SEQUENCE_NODE, "nodes") < 0)
			return -1;
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *n = yaml_document_get_node(y->doc, *it);

			if (s->nnodes >= MHL_MAX_NODES) {
				mhlError("%s:%d:%d: more than %d nodes", AT(y, n), MHL_MAX_NODES);
				return -1;
			}
			s->nodes[s->nnodes].cpus = 1;
			if (forPairs(y, n, "a node", nodeKeys, nodePair, &s->nodes[s->nnodes]) < 0)
				return -1;
			if (!s->nodes[s->nnodes].memory) {
				mhlError("%s:%d:%d: node %d needs 'memory'", AT(y, n), s->nnodes);
				return -1;
			}
			s->nnodes++;
		}
		return 0;
	case TOP_STEPS:
	default:
		if (wantKind(y, v, YAML_SEQUENCE_NODE, "steps") < 0)
			return -1;
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
			if (parseStep(y, s, yaml_document_get_node(y->doc, *it)) < 0)
				return -1;
		return 0;
	}
}

/* Cross-step checks: nodes exist, ids refer to started workloads. */
static int validate(mhlScenario *s)
{
	g_autoptr(GHashTable) held = g_hash_table_new(g_str_hash, g_str_equal);
	bool pinned = false, resized = false;
	int i;

	if (s->nnodes < 1) {
		mhlError("%s: no 'nodes' given", s->path);
		return -1;
	}
	for (i = 0; i < s->nsteps; i++) {
		mhlStep *st = &s->steps[i];

		if ((st->type == MHL_STEP_PIN || st->type == MHL_STEP_RESIZE ||
		     st->type == MHL_STEP_BENCH) &&
		    st->node >= s->nnodes) {
			mhlError("%s:%d: step '%s' names node %d, but the guest has %d node(s)",
				 s->path, st->line, mhlStepTypeNames[st->type], st->node, s->nnodes);
			return -1;
		}
		switch (st->type) {
		case MHL_STEP_PIN:
			if (g_hash_table_contains(held, st->id)) {
				mhlError("%s:%d: workload '%s' is already started", s->path, st->line, st->id);
				return -1;
			}
			if (!strcmp(st->touch, "read") && strcmp(st->workload, "gup")) {
				mhlError("%s:%d: pin: touch: read (a read-only pin of never-written memory) is for workload gup only, not %s",
					 s->path, st->line, st->workload);
				return -1;
			}
			if (st->split[0] && (strcmp(st->backing, "thp") || strcmp(st->touch, "before") ||
					     st->size % (2 << 20))) {
				mhlError("%s:%d: pin: split needs backing: thp, touch: before and a size in whole 2 MiB pages",
					 s->path, st->line);
				return -1;
			}
			g_hash_table_add(held, st->id);
			pinned = true;
			break;
		case MHL_STEP_RESIZE: {
			mhlNode *n = &s->nodes[st->node];

			if (!n->vmem_size) {
				mhlError("%s:%d: resize: node %d has no virtio_mem device", s->path,
					 st->line, st->node);
				return -1;
			}
			if (st->requested > n->vmem_size || st->requested % n->vmem_block) {
				mhlError("%s:%d: resize: requested %" G_GUINT64_FORMAT " bytes must be a multiple of the block (%" G_GUINT64_FORMAT ") and at most the device size (%" G_GUINT64_FORMAT ")",
					 s->path, st->line, st->requested, n->vmem_block, n->vmem_size);
				return -1;
			}
			resized = true;
			break;
		}
		case MHL_STEP_EXPECT:
			if (st->unplug && !resized) {
				mhlError("%s:%d: expect: 'unplug' needs a resize step before it",
					 s->path, st->line);
				return -1;
			}
			if ((st->movable_after_pin != MHL_UNSET || st->ncensus) && !pinned) {
				mhlError("%s:%d: expect: '%s' needs a pin step before it", s->path,
					 st->line, st->ncensus ? (st->census_after[0] ? "census_after" : "census_before") :
					 "movable_after_pin");
				return -1;
			}
			break;
		case MHL_STEP_CHECK:
		case MHL_STEP_IO:
		case MHL_STEP_RELEASE:
			if (!g_hash_table_contains(held, st->id)) {
				mhlError("%s:%d: step '%s' refers to workload '%s', which was never started (or was released)",
					 s->path, st->line, mhlStepTypeNames[st->type], st->id);
				return -1;
			}
			if (st->type == MHL_STEP_RELEASE)
				g_hash_table_remove(held, st->id);
			break;
		default:
			break;
		}
	}
	return 0;
}

bool mhlExpectApplies(const mhlScenario *s, const mhlStep *st)
{
	return (!st->policy[0] || !strcmp(st->policy, s->pin_policy)) &&
	       (!st->kernel[0] || !strcmp(st->kernel, s->kernel));
}

/* Override the scenario's kernel or pin_policy (memhp-lab run --kernel, --pin-policy). */
int mhlScenarioOverride(mhlScenario *s, const char *kernel, const char *policy)
{
	if (kernel) {
		if (oneOf(kernel, kernelNames) < 0) {
			mhlError("unknown kernel '%s' (known: 6.12, 6.1)", kernel);
			return -1;
		}
		g_free(s->kernel);
		s->kernel = g_strdup(kernel);
	}
	if (policy) {
		if (oneOf(policy, policyNames) < 0) {
			mhlError("unknown pin policy '%s' (known: series, baseline)", policy);
			return -1;
		}
		g_free(s->pin_policy);
		s->pin_policy = g_strdup(policy);
	}
	return 0;
}

/*
 * matrix: {AXIS: [VALUE, ...], ..., exclude: [{AXIS: VALUE, ...}, ...]}
 * The run is the cross product of the axes, in the order written, the last
 * axis varying fastest, without the combinations an exclude rule matches
 * in full.
 */
typedef struct {
	int naxes;
	const char *axis[MHL_MAX_AXES];
	yaml_node_t *values[MHL_MAX_AXES];	/* sequences of scalars */
	yaml_node_t *exclude;			/* sequence of mappings, or NULL */
} mhlMatrix;

static int matrixParse(mhlYaml *y, yaml_node_t *root, mhlMatrix *m)
{
	yaml_node_pair_t *p, *q;
	yaml_node_item_t *it;

	memset(m, 0, sizeof(*m));
	if (root->type != YAML_MAPPING_NODE)
		return 0;	/* forPairs says what is wrong with it */
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(y->doc, p->value);

		if (k->type != YAML_SCALAR_NODE || strcmp(scalar(y, k), "matrix"))
			continue;
		if (wantKind(y, v, YAML_MAPPING_NODE, "matrix") < 0)
			return -1;
		for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
			yaml_node_t *ak = yaml_document_get_node(y->doc, q->key);
			yaml_node_t *av = yaml_document_get_node(y->doc, q->value);
			const char *name;

			if (wantKind(y, ak, YAML_SCALAR_NODE, "a matrix axis") < 0)
				return -1;
			name = scalar(y, ak);
			if (!strcmp(name, "exclude")) {
				if (wantKind(y, av, YAML_SEQUENCE_NODE, "matrix.exclude") < 0)
					return -1;
				m->exclude = av;
				continue;
			}
			if (!g_regex_match_simple("^[a-z_][a-z0-9_]*$", name, 0, 0)) {
				mhlError("%s:%d:%d: matrix axis '%s': expected a name of [a-z0-9_]",
					 AT(y, ak), name);
				return -1;
			}
			if (m->naxes >= MHL_MAX_AXES) {
				mhlError("%s:%d:%d: more than %d matrix axes", AT(y, ak), MHL_MAX_AXES);
				return -1;
			}
			if (wantKind(y, av, YAML_SEQUENCE_NODE, "a matrix axis") < 0)
				return -1;
			if (av->data.sequence.items.top == av->data.sequence.items.start) {
				mhlError("%s:%d:%d: matrix axis '%s' has no values", AT(y, av), name);
				return -1;
			}
			for (it = av->data.sequence.items.start; it < av->data.sequence.items.top; it++)
				if (wantKind(y, yaml_document_get_node(y->doc, *it), YAML_SCALAR_NODE,
					     "a matrix value") < 0)
					return -1;
			m->axis[m->naxes] = name;
			m->values[m->naxes++] = av;
		}
	}
	if (m->exclude) {
		for (it = m->exclude->data.sequence.items.start; it < m->exclude->data.sequence.items.top; it++) {
			yaml_node_t *rule = yaml_document_get_node(y->doc, *it);

			if (wantKind(y, rule, YAML_MAPPING_NODE, "an exclude rule") < 0)
				return -1;
			for (q = rule->data.mapping.pairs.start; q < rule->data.mapping.pairs.top; q++) {
				yaml_node_t *k = yaml_document_get_node(y->doc, q->key);
				int a;

				for (a = 0; a < m->naxes; a++)
					if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(y, k), m->axis[a]))
						break;
				if (a == m->naxes) {
					mhlError("%s:%d:%d: exclude names '%s', which is not a matrix axis",
						 AT(y, k), k->type == YAML_SCALAR_NODE ? scalar(y, k) : "?");
					return -1;
				}
			}
		}
	}
	return 0;
}

static const char *matrixValue(mhlYaml *y, const mhlMatrix *m, int a, int idx)
{
	yaml_node_item_t *it = m->values[a]->data.sequence.items.start + idx;

	return scalar(y, yaml_document_get_node(y->doc, *it));
}

static bool matrixExcluded(mhlYaml *y, const mhlMatrix *m, GHashTable *bind)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *q;

	if (!m->exclude)
		return false;
	for (it = m->exclude->data.sequence.items.start; it < m->exclude->data.sequence.items.top; it++) {
		yaml_node_t *rule = yaml_document_get_node(y->doc, *it);
		bool all = true;

		for (q = rule->data.mapping.pairs.start; q < rule->data.mapping.pairs.top && all; q++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, q->key);
			yaml_node_t *v = yaml_document_get_node(y->doc, q->value);

			all = v->type == YAML_SCALAR_NODE &&
			      !g_strcmp0(g_hash_table_lookup(bind, scalar(y, k)), scalar(y, v));
		}
		if (all)
			return true;
	}
	return false;
}

/* Replace ${axis} in every scalar of the document; an unknown axis is an error. */
static int expandAll(mhlYaml *y, GHashTable *bind)
{
	yaml_node_t *n;

	for (n = y->doc->nodes.start; n < y->doc->nodes.top; n++) {
		const char *v = (const char *)n->data.scalar.value, *p, *e;
		g_autoptr(GString) out = NULL;

		if (n->type != YAML_SCALAR_NODE || !strstr(v, "${"))
			continue;
		out = g_string_new(NULL);
		for (p = v; (e = strstr(p, "${")); p = strchr(e, '}') + 1) {
			g_autofree char *axis = NULL;
			const char *val, *close = strchr(e, '}');

			if (!close) {
				mhlError("%s:%d:%d: '%s': '${' without '}'", AT(y, n), v);
				return -1;
			}
			axis = g_strndup(e + 2, close - e - 2);
			if (!(val = bind ? g_hash_table_lookup(bind, axis) : NULL)) {
				mhlError("%s:%d:%d: '${%s}' is not a matrix axis%s", AT(y, n), axis,
					 bind ? "" : " (the scenario has no matrix)");
				return -1;
			}
			g_string_append_len(out, p, e - p);
			g_string_append(out, val);
		}
		g_string_append(out, p);
		g_hash_table_insert(y->expanded, n, g_string_free(g_steal_pointer(&out), FALSE));
	}
	return 0;
}

/* Parse one trial of the document under the parameters in @bind. */
static mhlScenario *trialParse(mhlYaml *y, yaml_node_t *root, const mhlMatrix *m,
			       GHashTable *bind)
{
	g_autoptr(mhlScenario) s = g_new0(mhlScenario, 1);
	g_autoptr(GHashTable) expanded = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_autoptr(GString) id = g_string_new(NULL);
	int a;

	s->path = g_strdup(y->path);
	y->expanded = expanded;
	if (expandAll(y, bind) < 0 ||
	    forPairs(y, root, "the scenario", topKeys, topPair, s) < 0 || validate(s) < 0) {
		y->expanded = NULL;
		return NULL;
	}
	y->expanded = NULL;
	if (!s->name)
		s->name = g_path_get_basename(y->path);
	s->scenario_name = g_strdup(s->name);
	for (a = 0; a < m->naxes; a++) {
		s->param_key[a] = g_strdup(m->axis[a]);
		s->param_val[a] = g_strdup(g_hash_table_lookup(bind, m->axis[a]));
		g_string_append_printf(id, "%s%s=%s", a ? "," : ":", m->axis[a], s->param_val[a]);
	}
	s->nparams = m->naxes;
	if (id->len) {
		g_autofree char *base = s->name;

		s->name = g_strconcat(base, id->str, NULL);
	}
	if (!s->kernel)
		s->kernel = g_strdup("6.12");
	if (!s->pin_policy)
		s->pin_policy = g_strdup("series");
	if (!s->cmdline)
		s->cmdline = g_strdup("");
	return g_steal_pointer(&s);
}

int mhlScenarioLoadAll(const char *path, GPtrArray *out)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	mhlYaml y = { .path = path, .doc = &doc };
	mhlMatrix m;
	int idx[MHL_MAX_AXES] = { 0 }, a, rc = -1, n = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		mhlError("cannot open scenario '%s': %s", path, g_strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		mhlError("%s:%zu:%zu: YAML syntax error: %s", path, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1, parser.problem ? parser.problem : "?");
		yaml_parser_delete(&parser);
		fclose(f);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		mhlError("%s: the scenario is empty", path);
		goto out;
	}
	if (matrixParse(&y, root, &m) < 0)
		goto out;
	for (;;) {
		g_autoptr(GHashTable) bind = g_hash_table_new(g_str_hash, g_str_equal);
		mhlScenario *s;

		for (a = 0; a < m.naxes; a++)
			g_hash_table_insert(bind, (char *)m.axis[a], (char *)matrixValue(&y, &m, a, idx[a]));
		if (!matrixExcluded(&y, &m, bind)) {
			if (n >= MHL_MAX_TRIALS) {
				mhlError("%s: the matrix has more than %d trials", path, MHL_MAX_TRIALS);
				goto out;
			}
			if (!(s = trialParse(&y, root, &m, m.naxes ? bind : NULL)))
				goto out;
			g_ptr_array_add(out, s);
			n++;
		}
		/* The odometer: the last axis turns fastest. */
		for (a = m.naxes - 1; a >= 0; a--) {
			int len = m.values[a]->data.sequence.items.top - m.values[a]->data.sequence.items.start;

			if (++idx[a] < len)
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
	if (!n) {
		mhlError("%s: the matrix's exclude rules leave no trial", path);
		goto out;
	}
	rc = n;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return rc;
}

mhlScenario *mhlScenarioLoad(const char *path)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int n = mhlScenarioLoadAll(path, all);

	if (n < 0)
		return NULL;
	if (n > 1) {
		mhlError("%s: the matrix makes %d trials; this needs one", path, n);
		return NULL;
	}
	return g_ptr_array_steal_index(all, 0);
}

void mhlScenarioFree(mhlScenario *s)
{
	int i;

	if (!s)
		return;
	g_free(s->path);
	g_free(s->name);
	g_free(s->scenario_name);
	for (i = 0; i < s->nparams; i++) {
		g_free(s->param_key[i]);
		g_free(s->param_val[i]);
	}
	g_free(s->kernel);
	g_free(s->kernel_image);
	g_free(s->kernel_config);
	g_free(s->pin_policy);
	g_free(s->cmdline);
	g_free(s);
}
