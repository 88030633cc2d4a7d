/*
 * scenario.c - load a scenario file with libyaml's document API, so every
 * node keeps its line and column for messages.
 */
#include <glib.h>

#include "scenario/scenario.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "mhl-size.h"
#include "util.h"

#define MHL_VMEM_MIN_BLOCK (2ULL << 20)

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
};

static const char *const policyNames[] = { "series", "baseline", NULL };
enum { MHL_POLICIES = G_N_ELEMENTS(policyNames) - 1 };

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
	GPtrArray *templated;	/* the scalar nodes holding "${", found once per file */
	/* The trial's matrix parameters: ${axis} in a scalar becomes its value. */
	GHashTable *expanded;	/* yaml_node_t * -> the scalar with ${axis} replaced */
	/* The file's errors so far, each once (NULL: the loader stops at the first; errorKeep). */
	GPtrArray *errors;
	GHashTable *seen;	/* their text: the trials of a matrix repeat an error */
	int failed;		/* errors kept while parsing the trial at hand */
} mhlYaml;

#define AT(y, n) (y)->path, (int)(n)->start_mark.line + 1, (int)(n)->start_mark.column + 1

/*
 * A part of the file failed (a top-level key, a node, a step): keep its error
 * (mhlError's, taken out) in the file's list and go on with the next part, so
 * that one pass reports every independent error, as a compiler does
 * (docs/scenarios.md, "Errors"). An error two trials of a matrix share is kept once.
 */
static void errorKeep(mhlYaml *y)
{
	char *msg;

	y->failed++;
	if (!y->errors || !(msg = mhlErrorSteal()))
		return;
	if (g_hash_table_contains(y->seen, msg)) {
		g_free(msg);
		return;
	}
	g_hash_table_add(y->seen, msg);
	g_ptr_array_add(y->errors, msg);
}

/* Where error @msg of file @path is: "PATH:LINE:COL: ..."; past the end when it names no line. */
static void errorAt(const char *path, const char *msg, int *line, int *col)
{
	size_t n = strlen(path);

	if (strncmp(msg, path, n) || sscanf(msg + n, ":%d:%d:", line, col) != 2)
		*line = *col = INT_MAX;
}

/* File order of two errors of the file (g_ptr_array_sort_with_data: a stable sort). */
static gint errorCmp(gconstpointer a, gconstpointer b, gpointer path)
{
	int la, ca, lb, cb;

	errorAt(path, *(const char *const *)a, &la, &ca);
	errorAt(path, *(const char *const *)b, &lb, &cb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return ca < cb ? -1 : ca > cb;
}

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
	/* nan compares false with everything: finite first, so "nan" is no deadline that never ends. */
	if (end == scalar(y, n) || *end || !isfinite(*out) || *out <= 0 || *out > 86400) {
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

/* One pair of a mapping: its key among @keys, its value read by @fn. */
static int pairRead(mhlYaml *y, yaml_node_pair_t *p, const char *what,
		    const char *const *keys, mhlPairFn fn, void *opaque)
{
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
	return fn(y, i, v, opaque);
}

/*
 * Every pair of mapping @map; with @each, a pair that fails is kept
 * (errorKeep) and the next one read, else the first stops the walk.
 */
static int forPairsEach(mhlYaml *y, yaml_node_t *map, const char *what,
			const char *const *keys, mhlPairFn fn, void *opaque, bool each)
{
	yaml_node_pair_t *p;

	if (wantKind(y, map, YAML_MAPPING_NODE, what) < 0)
		return -1;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		if (pairRead(y, p, what, keys, fn, opaque) == 0)
			continue;
		if (!each)
			return -1;
		errorKeep(y);
	}
	return 0;
}

static int forPairs(mhlYaml *y, yaml_node_t *map, const char *what,
		    const char *const *keys, mhlPairFn fn, void *opaque)
{
	return forPairsEach(y, map, what, keys, fn, opaque, false);
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
		/* QEMU refuses a block below the host's THP size (2 MiB on x86) */
		if (n->vmem_block < MHL_VMEM_MIN_BLOCK) {
			mhlError("%s:%d:%d: virtio_mem: block %" G_GUINT64_FORMAT " bytes is below the 2 MiB QEMU accepts on x86 (its transparent huge page size)",
				 AT(y, v), n->vmem_block);
			return -1;
		}
		return 0;
	}
}

/*
 * Steps: "- KIND: {KEY: VALUE, ...}". stepKinds[] at the end of this part has
 * one row per kind: its name, the keys it needs and the others it takes, the
 * function that reads one of those keys into the mhlStep and the one that
 * checks the step against the steps before it (validate()).
 */
static const char *const untilNames[] = { "none", "converged", NULL };
static const char *const workloadNames[] = { "gup", "io_uring", "vfio", "vfio-noiommu", "rdma", "rdma-odp", "hold",
					      "kmem", NULL };
static const char *const backingNames[] = { "anon", "thp", "hugetlb", "memfd", NULL };
static const char *const touchNames[] = { "before", "pin", "read", NULL };
static const char *const splitNames[] = { "mprotect", "munmap", NULL };
static const char *const kernelNames[] = { "6.12", "6.1", NULL };
/* What census_before/census_after may count: zones, and the page kinds of census.h. */
static const char *const censusKeys[] = { "pages", "not_present", "unknown", "zero", "thp", "cma",
					  "DMA", "DMA32", "Normal", "Movable", "other", NULL };
static const char *const unplugNames[] = { "any", "reached", "short", NULL };
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

/* true or false. */
static int getBool(mhlYaml *y, yaml_node_t *v, const char *what, bool *out)
{
	if (wantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strcmp(scalar(y, v), "true") && strcmp(scalar(y, v), "false")) {
		mhlError("%s:%d:%d: %s: expected true or false, not '%s'", AT(y, v), what,
			 scalar(y, v));
		return -1;
	}
	*out = !strcmp(scalar(y, v), "true");
	return 0;
}

/* An assertion that can only be asked for: true. */
static int getTrue(mhlYaml *y, yaml_node_t *v, const char *what, bool *out)
{
	if (wantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	if (strcmp(scalar(y, v), "true")) {
		mhlError("%s:%d:%d: %s: only 'true' is meaningful here, not '%s'", AT(y, v), what,
			 scalar(y, v));
		return -1;
	}
	*out = true;
	return 0;
}

#define ID_CHARS G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "_-"

/*
 * The keys more than one kind takes, read the same for all of them. A
 * workload id names the holder's socket and log under /run/memhp in the
 * guest and is quoted in memhp-pin's JSON: [A-Za-z0-9_-] only.
 */
static int readId(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	if (getStr(y, v, "id", st->id, sizeof(st->id)) < 0)
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

	if (getInt(y, v, "node", 0, MHL_MAX_NODES - 1, &l) < 0)
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
		return getSize(y, v, "size", &st->size);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "workload"))
		return getName(y, v, "workload", workloadNames, st->workload, sizeof(st->workload));
	if (!strcmp(key, "backing"))
		return getName(y, v, "backing", backingNames, st->backing, sizeof(st->backing));
	if (!strcmp(key, "touch"))
		return getName(y, v, "touch", touchNames, st->touch, sizeof(st->touch));
	if (!strcmp(key, "split"))
		return getName(y, v, "split", splitNames, st->split, sizeof(st->split));
	if (!strcmp(key, "measure"))
		return getBool(y, v, "measure", &st->measure);
	return readFailsWith(y, v, st);	/* fails_with */
}

static int resizeParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "requested"))
		return getSize(y, v, "requested", &st->requested);
	if (!strcmp(key, "deadline"))
		return getSeconds(y, v, "deadline", &st->deadline);
	return getBool(y, v, "measure", &st->measure);	/* measure */
}

/* selftest: {name: N, measure: true}. */
static int selftestParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "name"))
		return getName(y, v, "selftest", mhlSelftestNames, st->name, sizeof(st->name));
	return getBool(y, v, "measure", &st->measure);	/* measure */
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

	if (wantKind(y, v, YAML_SEQUENCE_NODE, "exec: argv") < 0)
		return -1;
	if (v->data.sequence.items.start == v->data.sequence.items.top) {
		mhlError("%s:%d:%d: exec: argv is empty; it needs at least the program's absolute path", AT(y, v));
		return -1;
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		const unsigned char *c;
		size_t len;

		if (wantKind(y, n, YAML_SCALAR_NODE, "exec: an argv entry") < 0)
			return -1;
		len = strlen(scalar(y, n));
		if (st->argc >= MHL_MAX_EXEC_ARGS || used + len + 1 > sizeof(st->argv)) {
			mhlError("%s:%d:%d: exec: argv is longer than %d entries or %zu bytes", AT(y, n),
				 MHL_MAX_EXEC_ARGS, sizeof(st->argv));
			return -1;
		}
		if (!st->argc && scalar(y, n)[0] != '/') {
			mhlError("%s:%d:%d: exec: argv[0] '%s' is not an absolute path (no shell or PATH looks it up in the guest)",
				 AT(y, n), scalar(y, n));
			return -1;
		}
		for (c = (const unsigned char *)scalar(y, n); *c; c++) {
			if (*c < 0x20 || *c == 0x7f) {
				mhlError("%s:%d:%d: exec: argv[%d]: control character 0x%02x at offset %td (an entry is one line of printable text)",
					 AT(y, n), st->argc, *c, (const char *)c - scalar(y, n));
				return -1;
			}
		}
		memcpy(st->argv + used, scalar(y, n), len + 1);
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
		return getSeconds(y, v, "deadline", &st->deadline);
	if (!strcmp(key, "exit")) {
		if (getInt(y, v, "exit", 0, 255, &l) < 0)
			return -1;
		st->exit_status = (int)l;
		return 0;
	}
	if (!strcmp(key, "ktap"))
		return getBool(y, v, "ktap", &st->ktap);
	return getBool(y, v, "measure", &st->measure);	/* measure */
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
	if (wantKind(y, v, YAML_SCALAR_NODE, "unplug") < 0)
		return -1;
	if ((st->unplug = oneOf(scalar(y, v), unplugNames)) < 0) {
		mhlError("%s:%d:%d: unplug: expected reached or short, not '%s'", AT(y, v),
			 scalar(y, v));
		return -1;
	}
	return 0;
}

/* expect: {movable_after_pin: N|all}: the last pin's pages left in ZONE_MOVABLE. */
static int readMovable(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	long l;

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

/*
 * expect: {host_reclaimed: ">=N%"}: the last shrinking resize gave the host
 * back at least N % of what it could (docs/record.md: the reclaimable bytes).
 */
static int readHostReclaimed(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	const char *s;
	char *end;
	double pct;

	if (wantKind(y, v, YAML_SCALAR_NODE, "host_reclaimed") < 0)
		return -1;
	s = scalar(y, v);
	pct = g_str_has_prefix(s, ">=") ? g_ascii_strtod(s + 2, &end) : -1;
	if (pct < 0 || pct > 100 || !g_ascii_isdigit(s[2]) || strcmp(end, "%")) {
		mhlError("%s:%d:%d: host_reclaimed: expected \">=N%%\" with N from 0 to 100, not '%s'",
			 AT(y, v), s);
		return -1;
	}
	st->host_reclaimed = pct / 100;
	return 0;
}

static int expectParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "policy"))
		return getName(y, v, "policy", policyNames, st->policy, sizeof(st->policy));
	if (!strcmp(key, "kernel"))
		return getName(y, v, "kernel", kernelNames, st->kernel, sizeof(st->kernel));
	if (!strcmp(key, "vmstat"))
		return parseVmstat(y, v, st);
	if (!strcmp(key, "census_before") || !strcmp(key, "census_after"))
		return parseCensus(y, v, st, !strcmp(key, "census_after"));
	if (!strcmp(key, "integrity"))
		return getTrue(y, v, "integrity", &st->integrity);
	if (!strcmp(key, "console_clean"))
		return getTrue(y, v, "console_clean", &st->console_clean);
	if (!strcmp(key, "pins_failed")) {
		if (getInt(y, v, "pins_failed", 0, MHL_MAX_STEPS, &l) < 0)
			return -1;
		st->pins_failed = (int)l;
		return 0;
	}
	if (!strcmp(key, "unplug"))
		return readUnplug(y, v, st);
	if (!strcmp(key, "host_reclaimed"))
		return readHostReclaimed(y, v, st);
	return readMovable(y, v, st);	/* movable_after_pin */
}

static int benchParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	long l;

	if (!strcmp(key, "size"))
		return getSize(y, v, "size", &st->size);
	if (!strcmp(key, "node"))
		return readNode(y, v, st);
	if (!strcmp(key, "fresh"))
		return getBool(y, v, "fresh", &st->fresh);
	/* repeat */
	if (getInt(y, v, "repeat", 1, 1000, &l) < 0)
		return -1;
	st->repeat = (int)l;
	return 0;
}

static int sysrqParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	(void)key;	/* key */
	if (wantKind(y, v, YAML_SCALAR_NODE, "key") < 0)
		return -1;
	if (strlen(scalar(y, v)) != 1 || !g_ascii_isalnum(*scalar(y, v))) {
		mhlError("%s:%d:%d: sysrq key: expected one letter or digit (see the kernel's sysrq.rst), not '%s'",
			 AT(y, v), scalar(y, v));
		return -1;
	}
	st->key = *scalar(y, v);
	return 0;
}

static int waitParse(mhlYaml *y, const char *key, yaml_node_t *v, mhlStep *st)
{
	if (!strcmp(key, "seconds"))
		return getSeconds(y, v, "seconds", &st->seconds);
	/* until */
	if (wantKind(y, v, YAML_SCALAR_NODE, "until") < 0)
		return -1;
	if ((st->until = oneOf(scalar(y, v), untilNames)) <= 0) {
		mhlError("%s:%d:%d: until: expected converged, not '%s'", AT(y, v), scalar(y, v));
		return -1;
	}
	return 0;
}

/*
 * What the steps before the one being validated did, as far as the file
 * tells: what an expect step may assert about them (expectValidate).
 */
typedef struct {
	const mhlScenario *s;
	GHashTable *held;	/* ids of the workloads started and not released */
	const mhlStep *last_pin;	/* the pin step an expect's census reads, or NULL */
	bool resized;		/* a resize step */
	bool shrunk;		/* one that may give memory back (host_reclaimed) */
	uint64_t most[MHL_MAX_NODES];	/* the largest request each device had: what it may hold */
	int checked;		/* check, io and release steps (integrity) */
	/* pin steps whose failure ends no trial, by policyNames[] index: those
	 * that must fail (fails_with), those that may (fails_with, measure) */
	int must_fail[MHL_POLICIES], may_fail[MHL_POLICIES];
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

/* Whether pin @st must fail under policyNames[@p] (fails_with, for every policy or that one). */
static bool pinMustFail(const mhlStep *st, int p)
{
	return st->fails_with[0] && (!st->fails_with_policy[0] ||
				     !strcmp(st->fails_with_policy, policyNames[p]));
}

/*
 * A pin that fails ends the trial (its step fails) unless it must fail
 * (fails_with) or is only measured (measure: true; of size 0 it pins
 * nothing, which pins_failed counts as a failure too).
 */
static void pinFailures(mhlStepsSoFar *sf, const mhlStep *st)
{
	int p;

	for (p = 0; p < MHL_POLICIES; p++) {
		sf->must_fail[p] += pinMustFail(st, p);
		sf->may_fail[p] += pinMustFail(st, p) || st->measure;
	}
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
	if (!strcmp(st->touch, "read") && strcmp(st->workload, "gup")) {
		mhlError("%s:%d:%d: pin: touch: read (a read-only pin of never-written memory) is for workload gup only, not %s",
			 path, st->line, st->col, st->workload);
		return -1;
	}
	if (st->split[0] && (strcmp(st->backing, "thp") || strcmp(st->touch, "before") ||
			     st->size % (2 << 20))) {
		mhlError("%s:%d:%d: pin: split needs backing: thp, touch: before and a size in whole 2 MiB pages",
			 path, st->line, st->col);
		return -1;
	}
	/* what run would find out after a boot (ENODEV from the workload) */
	if (!strcmp(st->workload, "vfio") && (!sf->s->iommu || !sf->s->edu)) {
		mhlError("%s:%d:%d: pin: workload vfio needs devices: {iommu: true, edu: true} (a vIOMMU and a device to map DMA for)",
			 path, st->line, st->col);
		return -1;
	}
	if (!strcmp(st->workload, "vfio-noiommu") && !sf->s->edu) {
		mhlError("%s:%d:%d: pin: workload vfio-noiommu needs devices: {edu: true} (a device to bind)",
			 path, st->line, st->col);
		return -1;
	}
	g_hash_table_add(sf->held, st->id);
	pinFailures(sf, st);
	sf->last_pin = st;
	return 0;
}

static int resizeValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	const mhlNode *n;

	if (nodeValidate(sf, st) < 0)
		return -1;
	n = &sf->s->nodes[st->node];
	if (!n->vmem_size) {
		mhlError("%s:%d:%d: resize: node %d has no virtio_mem device", sf->s->path, st->line, st->col,
			 st->node);
		return -1;
	}
	if (st->requested > n->vmem_size || st->requested % n->vmem_block) {
		mhlError("%s:%d:%d: resize: requested %" G_GUINT64_FORMAT " bytes must be a multiple of the block (%" G_GUINT64_FORMAT ") and at most the device size (%" G_GUINT64_FORMAT ")",
			 sf->s->path, st->line, st->col, st->requested, n->vmem_block, n->vmem_size);
		return -1;
	}
	/* the device holds at most the largest request it had: below it, a resize may shrink it */
	sf->shrunk |= st->requested < sf->most[st->node];
	sf->most[st->node] = MAX(sf->most[st->node], st->requested);
	sf->resized = true;
	return 0;
}

/* check, io, release: a workload that is started; each judges its data (integrity). */
static int heldValidate(mhlStepsSoFar *sf, mhlStep *st)
{
	if (g_hash_table_contains(sf->held, st->id)) {
		sf->checked++;
		return 0;
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

/* The pin_policies expect step @st applies under: a bit per policyNames[] index. */
static unsigned int expectPolicies(const mhlStep *st)
{
	return st->policy[0] ? 1u << oneOf(st->policy, policyNames) : (1u << MHL_POLICIES) - 1;
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
	for (i = 0; i < MHL_POLICIES; i++)
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

	for (i = 0; i < MHL_POLICIES; i++) {
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
			   KEYS("workload", "node", "backing", "touch", "fails_with", "measure", "split"),
			   pinParse, pinValidate },
	[MHL_STEP_RESIZE] = { "resize", KEYS("node", "requested"), KEYS("deadline", "measure"),
			      resizeParse, resizeValidate },
	[MHL_STEP_CHECK] = { "check", KEYS("id"), NO_KEYS, heldParse, heldValidate },
	[MHL_STEP_RELEASE] = { "release", KEYS("id"), NO_KEYS, heldParse, releaseValidate },
	[MHL_STEP_SNAPSHOT] = { "snapshot", NO_KEYS, NO_KEYS, NULL, NULL },
	[MHL_STEP_EXPECT] = { "expect", NO_KEYS,
			      KEYS("policy", "kernel", "unplug", "movable_after_pin", "vmstat",
				   "census_before", "census_after", "pins_failed", "integrity",
				   "console_clean", "host_reclaimed"),
			      expectParse, expectValidate },
	[MHL_STEP_BENCH] = { "bench", KEYS("size"), KEYS("node", "repeat", "fresh"),
			     benchParse, nodeValidate },
	[MHL_STEP_SYSRQ] = { "sysrq", KEYS("key"), NO_KEYS, sysrqParse, NULL },
	[MHL_STEP_WAIT] = { "wait", KEYS("seconds"), KEYS("until"), waitParse, NULL },
	[MHL_STEP_IO] = { "io", KEYS("id"), NO_KEYS, heldParse, heldValidate },
	[MHL_STEP_SELFTEST] = { "selftest", KEYS("name"), KEYS("measure"), selftestParse, NULL },
	[MHL_STEP_EXEC] = { "exec", KEYS("argv"), KEYS("deadline", "exit", "measure", "ktap"), execParse, NULL },
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
					"argv", "exit", "ktap", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(stepKeys) - 1 <= MHL_STEP_KEYS);	/* a bit each in mhlStepParse.seen */
G_STATIC_ASSERT(MHL_STEP_KEYS <= 32);

/* Where step @st gives @key: its line and column, else the step's own. */
static void stepKeyAt(const mhlStep *st, const char *key, int *line, int *col)
{
	int i = oneOf(key, stepKeys);

	*line = i >= 0 && st->key_at[i].line ? st->key_at[i].line : st->line;
	*col = i >= 0 && st->key_at[i].line ? st->key_at[i].col : st->col;
}

/* Note where each key of the step's mapping @v is written, for validate()'s messages. */
static void stepKeysAt(mhlYaml *y, yaml_node_t *v, mhlStep *st)
{
	yaml_node_pair_t *p;

	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		int i = oneOf(scalar(y, k), stepKeys);

		if (i < 0)
			continue;
		st->key_at[i].line = (int)k->start_mark.line + 1;
		st->key_at[i].col = (int)k->start_mark.column + 1;
	}
}

static bool stepKindTakes(const mhlStepKind *kind, const char *key)
{
	return oneOf(key, kind->need) >= 0 || oneOf(key, kind->take) >= 0;
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
	unsigned int seen;	/* bit per stepKeys[] */
} mhlStepParse;

/*
 * One key of a step. A key another kind takes is read too, by that kind, so
 * that a bad value is reported as such before "takes no" (stepKeysCheck).
 */
static int stepPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlStepParse *sp = opaque;
	const mhlStepKind *reader = stepKeyReader(sp->kind, stepKeys[key]);

	sp->seen |= 1u << key;
	/* A key no kind takes is left to stepKeysCheck: "takes no". */
	return reader ? reader->parse(y, stepKeys[key], v, sp->st) : 0;
}

/* After all keys are read: none missing that the kind needs, none it does not take. */
static int stepKeysCheck(mhlYaml *y, yaml_node_t *k, const mhlStepParse *sp)
{
	int i;

	for (i = 0; stepKeys[i]; i++) {
		bool seen = sp->seen & (1u << i);

		if (!seen && oneOf(stepKeys[i], sp->kind->need) >= 0) {
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
	snprintf(st->workload, sizeof(st->workload), "gup");
	snprintf(st->backing, sizeof(st->backing), "anon");
	snprintf(st->touch, sizeof(st->touch), "before");
}

static int parseStep(mhlYaml *y, mhlScenario *s, yaml_node_t *item)
{
	mhlStepParse sp = { .st = &s->steps[s->nsteps] };
	g_autofree char *known = NULL;
	yaml_node_pair_t *p;
	yaml_node_t *k, *v;
	int t;

	if (wantKind(y, item, YAML_MAPPING_NODE, "a step") < 0)
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
		if (!strcmp(scalar(y, k), stepKinds[t].name))
			break;
	if (t == MHL_STEP_LAST) {
		known = stepKindNames();
		mhlError("%s:%d:%d: unknown step '%s' (known: %s)", AT(y, k), scalar(y, k), known);
		return -1;
	}
	sp.kind = &stepKinds[t];
	mhlStepInit(sp.st, t, (int)k->start_mark.line + 1);
	sp.st->col = (int)k->start_mark.column + 1;
	/* "- snapshot:" with no value is an empty scalar. */
	if (!(v->type == YAML_SCALAR_NODE && !*scalar(y, v)) &&
	    forPairs(y, v, sp.kind->name, stepKeys, stepPair, &sp) < 0)
		return -1;
	if (stepKeysCheck(y, k, &sp) < 0)
		return -1;
	if (v->type == YAML_MAPPING_NODE)
		stepKeysAt(y, v, sp.st);
	return 0;
}

/*
 * steps: [...], in order. A step that fails is kept (errorKeep) and the next
 * one read: each step's error is reported in one pass. It still counts
 * towards MHL_MAX_STEPS, and validate() then never sees the steps.
 */
static int parseSteps(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (wantKind(y, v, YAML_SEQUENCE_NODE, "steps") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(y->doc, *it);

		if (s->nsteps >= MHL_MAX_STEPS) {
			mhlError("%s:%d:%d: more than %d steps", AT(y, item), MHL_MAX_STEPS);
			return -1;
		}
		if (parseStep(y, s, item) < 0)
			errorKeep(y);
		s->nsteps++;
	}
	return 0;
}

/* A path in a scenario is relative to the scenario file's directory. */
static char *scenarioPath(const mhlScenario *s, const char *p)
{
	g_autofree char *dir = g_path_get_dirname(s->path);
	/* a scenario given as dir/own.yaml: its directory from the working one */
	g_autofree char *absdir = g_canonicalize_filename(dir, NULL);

	return g_canonicalize_filename(p, absdir);
}

/*
 * kernel: {bzimage: PATH, config: PATH}, a kernel the user built, with
 * modules: DIR (its lib/modules/RELEASE tree) if it is modular; or
 * {package: NAME[=VERSION]}, a Debian linux-image package, or {deb: PATH},
 * a linux-image .deb file (kernel/package.sh either way); or {version:
 * 6.12, debug: kmemleak}, the lab's kernel built with a debug flavour
 * (kernel/build.sh --flavour, kernel/config/flavours/).
 */
static const char *const prebuiltKeys[] = {
	"bzimage", "config", "package", "modules", "deb", "version", "debug", NULL
};
static const char *const flavourNames[] = { "kmemleak", NULL };

/* kernel: {version: 6.12|6.1, debug: FLAVOUR} */
static int flavourPair(mhlYaml *y, int key, yaml_node_t *v, mhlScenario *s)
{
	if (wantKind(y, v, YAML_SCALAR_NODE, prebuiltKeys[key]) < 0)
		return -1;
	if (key == 5) {
		if (oneOf(scalar(y, v), kernelNames) < 0) {
			mhlError("%s:%d:%d: kernel: unknown version '%s' (known: 6.12, 6.1)", AT(y, v), scalar(y, v));
			return -1;
		}
		g_free(s->kernel);
		s->kernel = g_strdup(scalar(y, v));
		return 0;
	}
	if (oneOf(scalar(y, v), flavourNames) < 0) {
		mhlError("%s:%d:%d: kernel: unknown debug flavour '%s' (known: kmemleak)", AT(y, v), scalar(y, v));
		return -1;
	}
	g_strlcpy(s->kernel_flavour, scalar(y, v), sizeof(s->kernel_flavour));
	return 0;
}

/* A Debian package name (linux-image-*) and an optional =VERSION: nothing else reaches apt. */
static bool packageNameOk(const char *p)
{
	const char *eq = strchr(p, '=');
	size_t n = eq ? (size_t)(eq - p) : strlen(p);

	if (n <= strlen("linux-image-") || strncmp(p, "linux-image-", 12) || n > 100 ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789.+-") != n)
		return false;
	return !eq || (g_ascii_isdigit(eq[1]) && strlen(eq + 1) <= 64 &&
		       strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+~:-") ==
		       strlen(eq + 1));
}

static int prebuiltPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	char **dst = key == 0 ? &s->kernel_image : key == 1 ? &s->kernel_config :
		     key == 3 ? &s->kernel_modules : &s->kernel_deb;

	if (key >= 5)
		return flavourPair(y, key, v, s);
	if (key == 2) {
		if (wantKind(y, v, YAML_SCALAR_NODE, "package") < 0)
			return -1;
		if (!packageNameOk(scalar(y, v))) {
			mhlError("%s:%d:%d: kernel: package '%s': expected a Debian linux-image-* package name, optionally =VERSION (apt-cache search linux-image)",
				 AT(y, v), scalar(y, v));
			return -1;
		}
		g_free(s->kernel_package);
		s->kernel_package = g_strdup(scalar(y, v));
		return 0;
	}

	if (wantKind(y, v, YAML_SCALAR_NODE, prebuiltKeys[key]) < 0)
		return -1;
	if (!*scalar(y, v) || strlen(scalar(y, v)) >= PATH_MAX) {
		mhlError("%s:%d:%d: %s: expected a path of 1 to %d bytes", AT(y, v), prebuiltKeys[key],
			 PATH_MAX - 1);
		return -1;
	}
	g_free(*dst);
	*dst = scenarioPath(s, scalar(y, v));
	return 0;
}

/* Whether scalar @v's value came from a matrix axis ("${kernel}"). */
static bool fromAxis(mhlYaml *y, yaml_node_t *v)
{
	return y->expanded && g_hash_table_contains(y->expanded, v);
}

static int parseKernel(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	g_free(s->kernel);
	s->kernel = NULL;
	s->kernel_flavour[0] = '\0';
	if (v->type == YAML_MAPPING_NODE) {
		if (forPairs(y, v, "kernel", prebuiltKeys, prebuiltPair, s) < 0)
			return -1;
		if (s->kernel || s->kernel_flavour[0]) {
			if (!s->kernel || !s->kernel_flavour[0] || s->kernel_package || s->kernel_deb ||
			    s->kernel_image || s->kernel_config || s->kernel_modules) {
				mhlError("%s:%d:%d: kernel: 'version' and 'debug' go together, and with nothing else (kernel: {version: 6.12, debug: kmemleak})",
					 AT(y, v));
				return -1;
			}
			return 0;
		}
		if (!!s->kernel_package + !!s->kernel_deb + !!(s->kernel_image || s->kernel_config ||
							       s->kernel_modules) > 1) {
			mhlError("%s:%d:%d: kernel: one of 'package', 'deb', or 'bzimage' and 'config' (and 'modules')",
				 AT(y, v));
			return -1;
		}
		if (s->kernel_package || s->kernel_deb) {
			s->kernel = g_strdup("package");
			return 0;
		}
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
		mhlError("%s:%d:%d: unknown kernel '%s' (known: 6.12, 6.1, {package: linux-image-NAME}, or {bzimage: PATH, config: PATH})",
			 AT(y, v), scalar(y, v));
		return -1;
	}
	s->kernel_from_axis = fromAxis(y, v);
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

/*
 * name: the trial id's first part and the default run directory
 * results/<name>-<time>: [A-Za-z0-9._-], not starting with '.', so it stays
 * one file name under results/.
 */
static int nameCheck(mhlYaml *y, yaml_node_t *v)
{
	const char *name = scalar(y, v);
	size_t len = strlen(name);

	if (len && len <= MHL_MAX_NAME_LEN && name[0] != '.' &&
	    strspn(name, ID_CHARS ".") == len)
		return 0;
	mhlError("%s:%d:%d: name '%s': expected 1 to %d of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.' (it names the run directory)",
		 AT(y, v), name, MHL_MAX_NAME_LEN);
	return -1;
}

/*
 * cmdline: kernel parameters on one line, at most MHL_MAX_CMDLINE bytes (the
 * x86 kernel takes 2048 in all, ours included); a control character has no
 * place there (nor in the domain XML).
 */
static int cmdlineCheck(mhlYaml *y, yaml_node_t *v)
{
	const unsigned char *c;

	if (strlen(scalar(y, v)) > MHL_MAX_CMDLINE) {
		mhlError("%s:%d:%d: cmdline: %zu bytes; at most %d (the guest kernel's command line is 2048 bytes in all)",
			 AT(y, v), strlen(scalar(y, v)), MHL_MAX_CMDLINE);
		return -1;
	}
	for (c = (const unsigned char *)scalar(y, v); *c; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			mhlError("%s:%d:%d: cmdline: control character 0x%02x at offset %td (kernel parameters are one line of printable text)",
				 AT(y, v), *c, (const char *)c - scalar(y, v));
			return -1;
		}
	}
	return 0;
}

/*
 * memory_backing: SOURCE, or {source: SOURCE, pagesize: 2MiB|1GiB, prealloc:
 * BOOL}: how the host backs the guest's memory, virtio-mem's included.
 */
static const char *const memBackingNames[] = { "anonymous", "memfd", "file", "hugepages", NULL };
static const char *const backingKeys[] = { "source", "pagesize", "prealloc", NULL };

static int backingSource(mhlYaml *y, yaml_node_t *v, mhlScenario *s)
{
	if (wantKind(y, v, YAML_SCALAR_NODE, "memory_backing source") < 0)
		return -1;
	if (oneOf(scalar(y, v), memBackingNames) < 0) {
		mhlError("%s:%d:%d: memory_backing: unknown source '%s' (known: anonymous, memfd, file, hugepages)",
			 AT(y, v), scalar(y, v));
		return -1;
	}
	g_strlcpy(s->backing, scalar(y, v), sizeof(s->backing));
	return 0;
}

static int backingPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;

	switch (key) {
	case 0:
		return backingSource(y, v, s);
	case 1:
		if (getSize(y, v, "memory_backing.pagesize", &s->hugepage_size) < 0)
			return -1;
		if (s->hugepage_size != 2ULL << 20 && s->hugepage_size != 1ULL << 30) {
			mhlError("%s:%d:%d: memory_backing: pagesize: 2MiB or 1GiB (x86's hugepage sizes), not '%s'",
				 AT(y, v), scalar(y, v));
			return -1;
		}
		return 0;
	default:
		return getBool(y, v, "memory_backing.prealloc", &s->prealloc);
	}
}

static int parseBacking(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return backingSource(y, v, s);
	if (forPairs(y, v, "memory_backing", backingKeys, backingPair, s) < 0)
		return -1;
	if (s->hugepage_size && strcmp(s->backing, "hugepages")) {
		mhlError("%s:%d:%d: memory_backing: pagesize needs source: hugepages", AT(y, v));
		return -1;
	}
	return 0;
}

/*
 * online: movable|kernel|auto-movable|as-shipped, or {policy: auto-movable,
 * ratio: N}: how the guest onlines what virtio-mem plugs. as-shipped leaves
 * the kernel's own default (a Debian kernel leaves hotplugged memory offline).
 */
static const char *const onlineNames[] = { "movable", "kernel", "auto-movable", "as-shipped", NULL };
static const char *const onlineKeys[] = { "policy", "ratio", NULL };

static int onlinePolicy(mhlYaml *y, yaml_node_t *v, mhlScenario *s)
{
	if (wantKind(y, v, YAML_SCALAR_NODE, "online") < 0)
		return -1;
	if (oneOf(scalar(y, v), onlineNames) < 0) {
		mhlError("%s:%d:%d: online: unknown policy '%s' (known: movable, kernel, auto-movable, as-shipped)",
			 AT(y, v), scalar(y, v));
		return -1;
	}
	g_strlcpy(s->online, scalar(y, v), sizeof(s->online));
	return 0;
}

static int onlinePair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	long l;

	if (key == 0)
		return onlinePolicy(y, v, s);
	if (getInt(y, v, "online.ratio", 1, 10000, &l) < 0)
		return -1;
	s->online_ratio = (int)l;
	return 0;
}

static int parseOnline(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	if (v->type == YAML_SCALAR_NODE)
		return onlinePolicy(y, v, s);
	if (forPairs(y, v, "online", onlineKeys, onlinePair, s) < 0)
		return -1;
	if (s->online_ratio && strcmp(s->online, "auto-movable")) {
		mhlError("%s:%d:%d: online: ratio needs policy: auto-movable", AT(y, v));
		return -1;
	}
	return 0;
}

/*
 * soak: {leak: io_uring, every: K, budgets: {SERIES: SIZE, ...}, judge_after:
 * SECONDS}: what a
 * `memhp-lab soak` of this guest adds (docs/soak.md); `run` ignores it.
 */
const char *const mhlSoakSeriesNames[] = {
	"slab_unreclaimable_bytes", "slab_reclaimable_bytes", "vmalloc_bytes", "page_tables_bytes",
	"percpu_bytes", "kernel_stack_bytes", "hugetlb_bytes", "mem_free_bytes", "online_gap_bytes",
	"qemu_rss_bytes", "orchestrator_rss_bytes", "run_dir_bytes", NULL
};
static const char *const soakKeys[] = { "leak", "every", "budgets", "judge_after", NULL };
static const char *const soakLeakNames[] = { "none", "io_uring", "kmemleak-test", NULL };

static int soakBudgetPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	g_autofree char *what = g_strdup_printf("soak.budgets.%s", mhlSoakSeriesNames[key]);

	if (getSize(y, v, what, &s->soak_budget[key]) < 0)
		return -1;
	s->soak_budget_set[key] = true;
	return 0;
}

static int soakPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	long l;

	switch (key) {
	case 0:
		if (wantKind(y, v, YAML_SCALAR_NODE, "soak.leak") < 0)
			return -1;
		if (oneOf(scalar(y, v), soakLeakNames) < 0) {
			mhlError("%s:%d:%d: soak.leak: unknown leak '%s' (known: none, io_uring, kmemleak-test)",
				 AT(y, v), scalar(y, v));
			return -1;
		}
		g_strlcpy(s->soak_leak, strcmp(scalar(y, v), "none") ? scalar(y, v) : "",
			  sizeof(s->soak_leak));
		return 0;
	case 1:
		if (getInt(y, v, "soak.every", 1, 100000, &l) < 0)
			return -1;
		s->soak_every = (int)l;
		return 0;
	case 2:
		return forPairs(y, v, "soak.budgets", mhlSoakSeriesNames, soakBudgetPair, s);
	default:
		return getSeconds(y, v, "soak.judge_after", &s->soak_judge_after);
	}
}

/*
 * xfail: [{kernel: K, policy: P, reason: WHY, match: REGEX}, ...]: the known
 * deviations (mhlDeviation). reason is required; kernel, policy and match
 * narrow where and how the trial is expected to fail.
 */
enum { XF_KERNEL, XF_POLICY, XF_REASON, XF_MATCH };
static const char *const xfailKeys[] = { "kernel", "policy", "reason", "match", NULL };

/* One line of printable text, 1 to MHL_MAX_XFAIL_TEXT bytes. */
static int xfailText(mhlYaml *y, yaml_node_t *v, const char *what, char **out)
{
	const char *t;
	const unsigned char *c;

	if (wantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	t = scalar(y, v);
	if (!*t || strlen(t) > MHL_MAX_XFAIL_TEXT || !g_utf8_validate(t, -1, NULL)) {
		mhlError("%s:%d:%d: %s must be 1 to %d bytes of UTF-8", AT(y, v), what, MHL_MAX_XFAIL_TEXT);
		return -1;
	}
	for (c = (const unsigned char *)t; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			mhlError("%s:%d:%d: %s must be one line without control characters", AT(y, v), what);
			return -1;
		}
	g_free(*out);
	*out = g_strdup(t);
	return 0;
}

static int xfailPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlDeviation *d = opaque;
	g_autoptr(GError) err = NULL;
	g_autoptr(GRegex) re = NULL;

	switch (key) {
	case XF_KERNEL:
		return getName(y, v, "xfail kernel", kernelNames, d->kernel, sizeof(d->kernel));
	case XF_POLICY:
		return getName(y, v, "xfail policy", policyNames, d->policy, sizeof(d->policy));
	case XF_REASON:
		return xfailText(y, v, "xfail reason", &d->reason);
	case XF_MATCH:
	default:
		if (xfailText(y, v, "xfail match", &d->match) < 0)
			return -1;
		if (!(re = g_regex_new(d->match, 0, 0, &err))) {
			mhlError("%s:%d:%d: xfail match '%s' is not a regular expression: %s", AT(y, v),
				 d->match, err->message);
			return -1;
		}
		return 0;
	}
}

static int parseXfail(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (wantKind(y, v, YAML_SEQUENCE_NODE, "xfail") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		mhlDeviation *d;

		if (s->nxfail >= MHL_MAX_XFAIL) {
			mhlError("%s:%d:%d: more than %d xfail entries", AT(y, n), MHL_MAX_XFAIL);
			return -1;
		}
		d = &s->xfail[s->nxfail++];
		d->line = (int)n->start_mark.line + 1;
		d->col = (int)n->start_mark.column + 1;
		if (forPairs(y, n, "an xfail entry", xfailKeys, xfailPair, d) < 0)
			return -1;
		if (!d->reason) {
			mhlError("%s:%d:%d: an xfail entry needs 'reason' (why the trial is expected to fail)",
				 AT(y, n));
			return -1;
		}
	}
	return 0;
}

static bool deviationApplies(const mhlScenario *s, const mhlDeviation *d)
{
	return (!d->kernel[0] || !g_strcmp0(d->kernel, s->kernel)) &&
	       (!d->policy[0] || !g_strcmp0(d->policy, s->pin_policy));
}

const mhlDeviation *mhlScenarioDeviation(const mhlScenario *s, const char *reason)
{
	int i;

	for (i = 0; i < s->nxfail; i++) {
		const mhlDeviation *d = &s->xfail[i];

		if (!deviationApplies(s, d))
			continue;
		if (!reason || !d->match || g_regex_match_simple(d->match, reason, 0, 0))
			return d;
	}
	return NULL;
}

/*
 * grid: {label: TEXT, policy: P, vmstat: NAME | path: PATH | ratio: [PATH, PATH]}
 * or a list of them (mhlGridSpec).
 */
enum { GR_LABEL, GR_POLICY, GR_VMSTAT, GR_PATH, GR_RATIO };
static const char *const gridKeys[] = { "label", "policy", "vmstat", "path", "ratio", NULL };

/* A record path: 1 to MHL_MAX_GRID_PATH bytes, components of [A-Za-z0-9_] between dots. */
static int gridPath(mhlYaml *y, yaml_node_t *v, const char *what, char *out)
{
	const char *t, *p;

	if (wantKind(y, v, YAML_SCALAR_NODE, what) < 0)
		return -1;
	t = scalar(y, v);
	for (p = t; *p; p++)
		if (!(g_ascii_isalnum(*p) || *p == '_' || (*p == '.' && p > t && p[1] && p[1] != '.')))
			break;
	if (!*t || *p || strlen(t) > MHL_MAX_GRID_PATH) {
		mhlError("%s:%d:%d: %s '%s' is not a record path (1 to %d bytes: names of [A-Za-z0-9_] or array indexes, between dots)",
			 AT(y, v), what, t, MHL_MAX_GRID_PATH);
		return -1;
	}
	g_strlcpy(out, t, MHL_MAX_GRID_PATH + 1);
	return 0;
}

static int gridPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlGridSpec *g = opaque;
	const unsigned char *c;
	yaml_node_t *a, *b;

	switch (key) {
	case GR_LABEL:
		if (wantKind(y, v, YAML_SCALAR_NODE, "grid label") < 0)
			return -1;
		if (!*scalar(y, v) || strlen(scalar(y, v)) > MHL_MAX_GRID_LABEL || !g_utf8_validate(scalar(y, v), -1, NULL)) {
			mhlError("%s:%d:%d: grid label must be 1 to %d bytes of UTF-8", AT(y, v), MHL_MAX_GRID_LABEL);
			return -1;
		}
		for (c = (const unsigned char *)scalar(y, v); *c; c++)
			if (*c < 0x20 || *c == 0x7f) {
				mhlError("%s:%d:%d: grid label must be one line without control characters", AT(y, v));
				return -1;
			}
		g_strlcpy(g->label, scalar(y, v), sizeof(g->label));
		return 0;
	case GR_POLICY:
		return getName(y, v, "grid policy", policyNames, g->policy, sizeof(g->policy));
	case GR_VMSTAT:
		if (gridPath(y, v, "grid vmstat", g->a) < 0)
			return -1;
		if (strchr(g->a, '.')) {
			mhlError("%s:%d:%d: grid vmstat '%s' is not a /proc/vmstat name", AT(y, v), g->a);
			return -1;
		}
		g->kind = MHL_GRID_VMSTAT;
		return 0;
	case GR_PATH:
		g->kind = MHL_GRID_PATH;
		return gridPath(y, v, "grid path", g->a);
	case GR_RATIO:
	default:
		if (wantKind(y, v, YAML_SEQUENCE_NODE, "grid ratio") < 0)
			return -1;
		if (v->data.sequence.items.top - v->data.sequence.items.start != 2) {
			mhlError("%s:%d:%d: grid ratio: two record paths, [DIVIDEND, DIVISOR]", AT(y, v));
			return -1;
		}
		a = yaml_document_get_node(y->doc, v->data.sequence.items.start[0]);
		b = yaml_document_get_node(y->doc, v->data.sequence.items.start[1]);
		g->kind = MHL_GRID_RATIO;
		return gridPath(y, a, "grid ratio", g->a) < 0 || gridPath(y, b, "grid ratio", g->b) < 0 ? -1 : 0;
	}
}

static int gridEntry(mhlYaml *y, mhlScenario *s, yaml_node_t *n)
{
	mhlGridSpec *g;
	yaml_node_pair_t *p;
	int sources = 0;

	if (s->ngrid >= MHL_MAX_GRID) {
		mhlError("%s:%d:%d: more than %d grid entries", AT(y, n), MHL_MAX_GRID);
		return -1;
	}
	g = &s->grid[s->ngrid++];
	if (forPairs(y, n, "a grid entry", gridKeys, gridPair, g) < 0)
		return -1;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(y, yaml_document_get_node(y->doc, p->key));

		sources += !strcmp(k, "vmstat") || !strcmp(k, "path") || !strcmp(k, "ratio");
	}
	if (!g->label[0] || sources != 1) {
		mhlError("%s:%d:%d: a grid entry needs a label and one of vmstat, path or ratio", AT(y, n));
		return -1;
	}
	return 0;
}

static int parseGrid(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (v->type == YAML_MAPPING_NODE)
		return gridEntry(y, s, v);
	if (wantKind(y, v, YAML_SEQUENCE_NODE, "grid") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);

		if (wantKind(y, n, YAML_MAPPING_NODE, "a grid entry") < 0 || gridEntry(y, s, n) < 0)
			return -1;
	}
	return 0;
}

const mhlGridSpec *mhlScenarioGrid(const mhlScenario *s)
{
	int i;

	for (i = 0; i < s->ngrid; i++)
		if (!s->grid[i].policy[0] || !g_strcmp0(s->grid[i].policy, s->pin_policy))
			return &s->grid[i];
	return NULL;
}

enum { TOP_NAME, TOP_KERNEL, TOP_CMDLINE, TOP_POLICY, TOP_NODES, TOP_STEPS, TOP_MATRIX,
       TOP_DEVICES, TOP_BACKING, TOP_ONLINE, TOP_SOAK, TOP_XFAIL, TOP_GUEST, TOP_HOST_LABELS,
       TOP_GRID };
static const char *const topKeys[] = { "name", "kernel", "cmdline", "pin_policy", "nodes",
				       "steps", "matrix", "devices", "memory_backing", "online",
				       "soak", "xfail", "guest", "host_labels", "grid", NULL };
/* guest: the guest's userspace: the lab's initramfs, or Debian's own (workloads/debian-guest.sh) */
static const char *const guestNames[] = { "lab", "debian", NULL };

/* host_labels: [a, b]: a fleet run puts the trial only on a host with every one (docs/fleet.md). */
static int parseHostLabels(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	g_autoptr(GPtrArray) l = g_ptr_array_new_with_free_func(g_free);
	yaml_node_item_t *it;

	if (wantKind(y, v, YAML_SEQUENCE_NODE, "host_labels") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);
		const char *l1;

		if (wantKind(y, n, YAML_SCALAR_NODE, "a host label") < 0)
			return -1;
		l1 = scalar(y, n);
		if (!*l1 || strlen(l1) > 64 || strspn(l1, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-") != strlen(l1)) {
			mhlError("%s:%d:%d: host_labels: '%s' is not a label (1 to 64 of [A-Za-z0-9._-])", AT(y, n), l1);
			return -1;
		}
		if (l->len >= 16) {
			mhlError("%s:%d:%d: host_labels: more than 16 labels", AT(y, n));
			return -1;
		}
		g_ptr_array_add(l, g_strdup(l1));
	}
	g_ptr_array_add(l, NULL);
	g_strfreev(s->host_labels);
	s->host_labels = (char **)g_ptr_array_free(g_steal_pointer(&l), FALSE);
	return 0;
}

/* Node s->nnodes from mapping @n. */
static int parseNode(mhlYaml *y, mhlScenario *s, yaml_node_t *n)
{
	mhlNode *node = &s->nodes[s->nnodes];

	node->cpus = 1;
	if (forPairs(y, n, "a node", nodeKeys, nodePair, node) < 0)
		return -1;
	if (!node->memory) {
		mhlError("%s:%d:%d: node %d needs 'memory'", AT(y, n), s->nnodes);
		return -1;
	}
	return 0;
}

/* nodes: [{memory, cpus, virtio_mem}, ...], one NUMA cell each, in order. */
static int parseNodes(mhlYaml *y, mhlScenario *s, yaml_node_t *v)
{
	yaml_node_item_t *it;

	if (wantKind(y, v, YAML_SEQUENCE_NODE, "nodes") < 0)
		return -1;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(y->doc, *it);

		if (s->nnodes >= MHL_MAX_NODES) {
			mhlError("%s:%d:%d: more than %d nodes", AT(y, n), MHL_MAX_NODES);
			return -1;
		}
		/* a node that fails is kept (errorKeep) and counted: the next is still node N+1 */
		if (parseNode(y, s, n) < 0)
			errorKeep(y);
		s->nnodes++;
	}
	return 0;
}

static int topPair(mhlYaml *y, int key, yaml_node_t *v, void *opaque)
{
	mhlScenario *s = opaque;
	char **dst;

	switch (key) {
	case TOP_MATRIX:
		return 0;	/* expanded before the trials are parsed (matrixParse) */
	case TOP_KERNEL:
		return parseKernel(y, s, v);
	case TOP_DEVICES:
		return forPairs(y, v, "devices", deviceKeys, devicePair, s);
	case TOP_BACKING:
		return parseBacking(y, s, v);
	case TOP_ONLINE:
		return parseOnline(y, s, v);
	case TOP_SOAK:
		return forPairs(y, v, "soak", soakKeys, soakPair, s);
	case TOP_XFAIL:
		return parseXfail(y, s, v);
	case TOP_HOST_LABELS:
		return parseHostLabels(y, s, v);
	case TOP_GRID:
		return parseGrid(y, s, v);
	case TOP_GUEST:
		if (wantKind(y, v, YAML_SCALAR_NODE, "guest") < 0)
			return -1;
		if (oneOf(scalar(y, v), guestNames) < 0) {
			mhlError("%s:%d:%d: guest: unknown userspace '%s' (known: lab, debian)", AT(y, v),
				 scalar(y, v));
			return -1;
		}
		g_strlcpy(s->guest, scalar(y, v), sizeof(s->guest));
		return 0;
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
		if (key == TOP_POLICY)
			s->pin_policy_from_axis = fromAxis(y, v);
		if (key == TOP_NAME && nameCheck(y, v) < 0)
			return -1;
		if (key == TOP_CMDLINE && cmdlineCheck(y, v) < 0)
			return -1;
		dst = key == TOP_NAME ? &s->name : key == TOP_CMDLINE ? &s->cmdline : &s->pin_policy;
		g_free(*dst);
		*dst = g_strdup(scalar(y, v));
		return 0;
	case TOP_NODES:
		return parseNodes(y, s, v);
	case TOP_STEPS:
	default:
		return parseSteps(y, s, v);
	}
}

/* Cross-step checks, each kind's own (stepKinds[]): nodes exist, ids refer to started workloads. */
static int validate(mhlScenario *s)
{
	g_autoptr(GHashTable) held = g_hash_table_new(g_str_hash, g_str_equal);
	mhlStepsSoFar sf = { .s = s, .held = held };
	int i;

	if (s->nnodes < 1) {
		mhlError("%s: no 'nodes' given", s->path);
		return -1;
	}
	for (i = 0; i < s->nnodes; i++)
		sf.most[i] = s->nodes[i].vmem_requested;
	for (i = 0; i < s->nsteps; i++) {
		mhlStep *st = &s->steps[i];

		if (stepKinds[st->type].validate && stepKinds[st->type].validate(&sf, st) < 0)
			return -1;
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
	if (kernel && g_str_has_prefix(kernel, "package:")) {
		/* --kernel package:NAME[=VERSION]: a Debian kernel package, as kernel: {package:} */
		if (!packageNameOk(kernel + 8)) {
			mhlError("--kernel '%s': expected package:linux-image-NAME[=VERSION] (apt-cache search linux-image)",
				 kernel);
			return -1;
		}
		g_clear_pointer(&s->kernel_image, g_free);
		g_clear_pointer(&s->kernel_config, g_free);
		g_clear_pointer(&s->kernel_modules, g_free);
		g_clear_pointer(&s->kernel_deb, g_free);
		s->kernel_flavour[0] = '\0';
		g_free(s->kernel_package);
		s->kernel_package = g_strdup(kernel + 8);
		g_free(s->kernel);
		s->kernel = g_strdup("package");
	} else if (kernel) {
		if (oneOf(kernel, kernelNames) < 0) {
			mhlError("unknown kernel '%s' (known: 6.12, 6.1, package:linux-image-NAME[=VERSION])", kernel);
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
enum { RULE_ANY = -1, RULE_NEVER = -2 };	/* an exclude rule's entry for an axis */

typedef struct {
	int naxes;
	const char *axis[MHL_MAX_AXES];
	yaml_node_t *values[MHL_MAX_AXES];	/* sequences of scalars */
	int nvalues[MHL_MAX_AXES];
	/* exclude rules: per axis the index of the value a rule names, or RULE_* */
	int nrules;
	int rule[MHL_MAX_EXCLUDES][MHL_MAX_AXES];
} mhlMatrix;

/* One axis: a list of distinct scalars of at most MHL_MAX_VALUE_LEN bytes (they make the trial ids). */
static int matrixAxis(mhlYaml *y, const char *name, yaml_node_t *av, mhlMatrix *m)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	yaml_node_item_t *it;

	if (m->naxes >= MHL_MAX_AXES) {
		mhlError("%s:%d:%d: more than %d matrix axes", AT(y, av), MHL_MAX_AXES);
		return -1;
	}
	if (wantKind(y, av, YAML_SEQUENCE_NODE, "a matrix axis") < 0)
		return -1;
	if (av->data.sequence.items.top == av->data.sequence.items.start) {
		mhlError("%s:%d:%d: matrix axis '%s' has no values", AT(y, av), name);
		return -1;
	}
	for (it = av->data.sequence.items.start; it < av->data.sequence.items.top; it++) {
		yaml_node_t *v = yaml_document_get_node(y->doc, *it), *first;

		if (wantKind(y, v, YAML_SCALAR_NODE, "a matrix value") < 0)
			return -1;
		if (strlen(scalar(y, v)) > MHL_MAX_VALUE_LEN) {
			mhlError("%s:%d:%d: matrix axis '%s': a value of %zu bytes; at most %d (values make the trial ids)",
				 AT(y, v), name, strlen(scalar(y, v)), MHL_MAX_VALUE_LEN);
			return -1;
		}
		if ((first = g_hash_table_lookup(seen, scalar(y, v)))) {
			mhlError("%s:%d:%d: matrix axis '%s': value '%s' twice (first at line %d, column %d): the two trials would have one id",
				 AT(y, v), name, scalar(y, v), (int)first->start_mark.line + 1,
				 (int)first->start_mark.column + 1);
			return -1;
		}
		g_hash_table_insert(seen, (char *)scalar(y, v), v);
	}
	m->axis[m->naxes] = name;
	m->values[m->naxes] = av;
	m->nvalues[m->naxes++] = (int)(av->data.sequence.items.top - av->data.sequence.items.start);
	return 0;
}

/* The combinations before the excludes: refused past MHL_MAX_COMBINATIONS, before any is walked. */
static int matrixSize(mhlYaml *y, yaml_node_t *k, const mhlMatrix *m)
{
	g_autoptr(GString) sizes = g_string_new(NULL);
	double product = 1;
	int a;

	for (a = 0; a < m->naxes; a++) {
		product *= m->nvalues[a];
		g_string_append_printf(sizes, "%s%d", a ? " x " : "", m->nvalues[a]);
	}
	if (product <= MHL_MAX_COMBINATIONS)
		return 0;
	mhlError("%s:%d:%d: the matrix has %s = %.0f combinations before its excludes; at most %d (and %d trials)",
		 AT(y, k), sizes->str, product, MHL_MAX_COMBINATIONS, MHL_MAX_TRIALS);
	return -1;
}

/* Each exclude rule as value indices per axis (RULE_ANY where it names none). */
static int matrixExcludes(mhlYaml *y, yaml_node_t *exclude, mhlMatrix *m)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *q;

	if (exclude->data.sequence.items.top - exclude->data.sequence.items.start > MHL_MAX_EXCLUDES) {
		mhlError("%s:%d:%d: more than %d exclude rules", AT(y, exclude), MHL_MAX_EXCLUDES);
		return -1;
	}
	for (it = exclude->data.sequence.items.start; it < exclude->data.sequence.items.top; it++) {
		yaml_node_t *rule = yaml_document_get_node(y->doc, *it);
		int *r = m->rule[m->nrules++], a, i;

		if (wantKind(y, rule, YAML_MAPPING_NODE, "an exclude rule") < 0)
			return -1;
		for (a = 0; a < MHL_MAX_AXES; a++)
			r[a] = RULE_ANY;
		for (q = rule->data.mapping.pairs.start; q < rule->data.mapping.pairs.top; q++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, q->key);
			yaml_node_t *v = yaml_document_get_node(y->doc, q->value);

			for (a = 0; a < m->naxes; a++)
				if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(y, k), m->axis[a]))
					break;
			if (a == m->naxes) {
				mhlError("%s:%d:%d: exclude names '%s', which is not a matrix axis",
					 AT(y, k), k->type == YAML_SCALAR_NODE ? scalar(y, k) : "?");
				return -1;
			}
			/* A value the axis does not have: the rule matches no combination. */
			r[a] = RULE_NEVER;
			for (i = 0; v->type == YAML_SCALAR_NODE && i < m->nvalues[a]; i++) {
				yaml_node_item_t *vi = m->values[a]->data.sequence.items.start + i;

				if (!strcmp(scalar(y, yaml_document_get_node(y->doc, *vi)), scalar(y, v)))
					r[a] = i;
			}
		}
	}
	return 0;
}

static int matrixParse(mhlYaml *y, yaml_node_t *root, mhlMatrix *m)
{
	yaml_node_pair_t *p, *q;

	memset(m, 0, sizeof(*m));
	if (root->type != YAML_MAPPING_NODE)
		return 0;	/* forPairs says what is wrong with it */
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(y->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(y->doc, p->value);
		yaml_node_t *exclude = NULL;

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
				exclude = av;
				continue;
			}
			if (!g_regex_match_simple("^[a-z_][a-z0-9_]*$", name, 0, 0)) {
				mhlError("%s:%d:%d: matrix axis '%s': expected a name of [a-z0-9_]",
					 AT(y, ak), name);
				return -1;
			}
			if (matrixAxis(y, name, av, m) < 0)
				return -1;
		}
		if (matrixSize(y, k, m) < 0 || (exclude && matrixExcludes(y, exclude, m) < 0))
			return -1;
	}
	return 0;
}

static const char *matrixValue(mhlYaml *y, const mhlMatrix *m, int a, int idx)
{
	yaml_node_item_t *it = m->values[a]->data.sequence.items.start + idx;

	return scalar(y, yaml_document_get_node(y->doc, *it));
}

/* Whether an exclude rule matches the combination @idx (a value index per axis) in full. */
static bool matrixExcluded(const mhlMatrix *m, const int *idx)
{
	int r, a;

	for (r = 0; r < m->nrules; r++) {
		for (a = 0; a < m->naxes; a++)
			if (m->rule[r][a] != RULE_ANY && m->rule[r][a] != idx[a])
				break;
		if (a == m->naxes)
			return true;
	}
	return false;
}

/* The scalars holding "${", once per file: at most MHL_MAX_SUBSTITUTIONS substitutions in all. */
static int templatedFind(mhlYaml *y)
{
	yaml_node_t *n;
	int subs = 0;

	for (n = y->doc->nodes.start; n < y->doc->nodes.top; n++) {
		const char *v = (const char *)n->data.scalar.value, *e;

		if (n->type != YAML_SCALAR_NODE || !strstr(v, "${"))
			continue;
		for (e = v; (e = strstr(e, "${")); e += 2)
			subs++;
		if (subs > MHL_MAX_SUBSTITUTIONS) {
			mhlError("%s:%d:%d: more than %d ${axis} substitutions in the file", AT(y, n),
				 MHL_MAX_SUBSTITUTIONS);
			return -1;
		}
		g_ptr_array_add(y->templated, n);
	}
	return 0;
}

/* Replace ${axis} in every scalar of the document; an unknown axis is an error. */
static int expandAll(mhlYaml *y, GHashTable *bind)
{
	guint i;

	for (i = 0; i < y->templated->len; i++) {
		yaml_node_t *n = y->templated->pdata[i];
		const char *v = (const char *)n->data.scalar.value, *p, *e;
		g_autoptr(GString) out = g_string_new(NULL);

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
			if (out->len > MHL_MAX_EXPANDED_LEN)
				break;
		}
		g_string_append(out, p);
		if (out->len > MHL_MAX_EXPANDED_LEN) {
			mhlError("%s:%d:%d: more than %d bytes after substituting the matrix values",
				 AT(y, n), MHL_MAX_EXPANDED_LEN);
			return -1;
		}
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
	y->failed = 0;
	/*
	 * Each top-level key read, its error kept and the next one read; the
	 * cross-step checks only when every part was read: after a broken part
	 * they would report what follows from it.
	 */
	if (expandAll(y, bind) < 0 ||
	    forPairsEach(y, root, "the scenario", topKeys, topPair, s, true) < 0 || y->failed ||
	    validate(s) < 0) {
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
	if (!s->backing[0])
		g_strlcpy(s->backing, "anonymous", sizeof(s->backing));
	if (!s->online[0])
		g_strlcpy(s->online, "movable", sizeof(s->online));
	if (!s->guest[0])
		g_strlcpy(s->guest, "lab", sizeof(s->guest));
	if (!s->soak_every)
		s->soak_every = MHL_SOAK_EVERY_DEFAULT;
	if (!s->soak_judge_after)
		s->soak_judge_after = MHL_SOAK_JUDGE_AFTER_DEFAULT;
	if (!strcmp(s->backing, "hugepages") && !s->hugepage_size)
		s->hugepage_size = 2ULL << 20;
	return g_steal_pointer(&s);
}

/* The file's bytes, at most MHL_SCENARIO_MAX_BYTES: no further is read (a device or a FIFO neither). */
static char *scenarioRead(const char *path, size_t *len)
{
	g_autofree char *buf = g_malloc(MHL_SCENARIO_MAX_BYTES + 1);
	FILE *f = fopen(path, "r");
	size_t n;
	int err;

	if (!f) {
		mhlError("cannot open scenario '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	n = fread(buf, 1, MHL_SCENARIO_MAX_BYTES + 1, f);
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		mhlError("cannot read scenario '%s': %s", path, g_strerror(err));
		return NULL;
	}
	if (n > MHL_SCENARIO_MAX_BYTES) {
		mhlError("%s: the file is larger than %d KiB, the most a scenario may be", path,
			 MHL_SCENARIO_MAX_BYTES >> 10);
		return NULL;
	}
	*len = n;
	return g_steal_pointer(&buf);
}

/*
 * The first control character of a scalar's @len bytes (libyaml gives valid
 * UTF-8): C0 but tab and newline, DEL, C1 (U+0080-U+009F) and NUL; -1 when
 * none. A double-quoted YAML string writes any of them ("\e]0;title\a",
 * "\x9b", "\0"), and a scenario's text reaches the terminal (check's trial
 * list, run's progress lines) and every report (issue 30, finding 15).
 */
static int scalarControl(const unsigned char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if ((v[i] < 0x20 && v[i] != '\t' && v[i] != '\n') || v[i] == 0x7f)
			return v[i];
		if (v[i] == 0xc2 && i + 1 < len && v[i + 1] >= 0x80 && v[i + 1] <= 0x9f)
			return v[i + 1];
	}
	return -1;
}

/*
 * Before the document is built, from libyaml's events: lists and mappings
 * nested at most MHL_SCENARIO_MAX_DEPTH deep and at most
 * MHL_SCENARIO_MAX_ANCHORS anchors (libyaml's loader takes time in the square
 * of either), one document only (yaml_parser_load reads the first; the
 * rest would be ignored without a word), and no control character in a key
 * or value (scalarControl). A syntax error is left to the loader, which
 * reports it.
 */
static int yamlShapeCheck(const char *path, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, anchors = 0, docs = 0, rc = 0;
	bool end = false;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!end && !rc && yaml_parser_parse(&parser, &ev)) {
		const yaml_char_t *anchor = NULL;
		int ctl = -1;

		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
			anchor = ev.data.sequence_start.anchor;
			depth++;
			break;
		case YAML_MAPPING_START_EVENT:
			anchor = ev.data.mapping_start.anchor;
			depth++;
			break;
		case YAML_SCALAR_EVENT:
			anchor = ev.data.scalar.anchor;
			ctl = scalarControl(ev.data.scalar.value, ev.data.scalar.length);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			end = true;
			break;
		default:
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			/* the loader would read the first and silently drop the rest */
			mhlError("%s:%d:%d: a second YAML document ('---'); the file must hold one",
				 path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1);
			rc = -1;
		} else if (ctl >= 0) {
			mhlError("%s:%d:%d: a value holding the control character U+%04X (an escape such as \\e in a quoted string); no key or value may hold one but tab and newline",
				 path, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1, ctl);
			rc = -1;
		} else if (depth > MHL_SCENARIO_MAX_DEPTH) {
			mhlError("%s:%d:%d: lists and mappings nest more than %d deep", path,
				 (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				 MHL_SCENARIO_MAX_DEPTH);
			rc = -1;
		} else if (anchor && ++anchors > MHL_SCENARIO_MAX_ANCHORS) {
			mhlError("%s:%d:%d: more than %d anchors (&name)", path,
				 (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				 MHL_SCENARIO_MAX_ANCHORS);
			rc = -1;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* No mapping of the document has a key twice (libyaml keeps both, and the last would win). */
static int duplicateKeys(mhlYaml *y)
{
	yaml_node_t *n;

	for (n = y->doc->nodes.start; n < y->doc->nodes.top; n++) {
		g_autoptr(GHashTable) seen = NULL;
		yaml_node_pair_t *p;

		if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top - n->data.mapping.pairs.start < 2)
			continue;
		seen = g_hash_table_new(g_str_hash, g_str_equal);
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(y->doc, p->key), *first;

			if (k->type != YAML_SCALAR_NODE)
				continue;	/* forPairs: a key must be a scalar */
			if ((first = g_hash_table_lookup(seen, k->data.scalar.value))) {
				mhlError("%s:%d:%d: key '%s' given twice in one mapping (first at line %d, column %d)",
					 AT(y, k), (const char *)k->data.scalar.value,
					 (int)first->start_mark.line + 1, (int)first->start_mark.column + 1);
				return -1;
			}
			g_hash_table_insert(seen, k->data.scalar.value, k);
		}
	}
	return 0;
}

/* Every combination of the matrix (one, without a matrix) not excluded, parsed, into @out. */
static int matrixTrials(mhlYaml *y, yaml_node_t *root, const mhlMatrix *m, GPtrArray *out)
{
	int idx[MHL_MAX_AXES] = { 0 }, a, n = 0, bad = 0;

	for (;;) {
		if (!matrixExcluded(m, idx)) {
			g_autoptr(GHashTable) bind = g_hash_table_new(g_str_hash, g_str_equal);
			mhlScenario *s;

			if (n >= MHL_MAX_TRIALS) {
				mhlError("%s: the matrix has more than %d trials", y->path, MHL_MAX_TRIALS);
				return -1;
			}
			for (a = 0; a < m->naxes; a++)
				g_hash_table_insert(bind, (char *)m->axis[a], (char *)matrixValue(y, m, a, idx[a]));
			/* a trial refused: its errors kept, the next trial's read too (a value of another axis) */
			if ((s = trialParse(y, root, m, m->naxes ? bind : NULL))) {
				g_ptr_array_add(out, s);
			} else {
				errorKeep(y);
				bad++;
			}
			n++;
		}
		/* The odometer: the last axis turns fastest. */
		for (a = m->naxes - 1; a >= 0; a--) {
			if (++idx[a] < m->nvalues[a])
				break;
			idx[a] = 0;
		}
		if (a < 0)
			break;
	}
	if (!n) {
		mhlError("%s: the matrix's exclude rules leave no trial", y->path);
		return -1;
	}
	return bad ? -1 : n;
}

int mhlYamlLoad(const char *path, const char *buf, size_t len, yaml_document_t *doc)
{
	yaml_parser_t parser;
	int rc = 0;

	if (yamlShapeCheck(path, buf, len) < 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, doc)) {
		mhlError("%s:%zu:%zu: YAML syntax error: %s", path, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1, parser.problem ? parser.problem : "?");
		rc = -1;
	}
	yaml_parser_delete(&parser);
	if (rc == 0) {
		/* for every file this loader reads (scenarios, hosts files): no key twice */
		mhlYaml y = { .path = path, .doc = doc };

		if ((rc = duplicateKeys(&y)) < 0)
			yaml_document_delete(doc);
	}
	return rc;
}

/*
 * The end of loading a file: with @rc < 0, the error that stopped the loader
 * (if one did) joins the kept ones, all in file order, and the first is
 * mhlError's. An error reported before the load (@before) stays mhlError's,
 * as it would have without the list.
 */
static int loadDone(mhlYaml *y, int rc, char *before)
{
	if (rc < 0) {
		errorKeep(y);
		if (!y->errors->len)
			g_ptr_array_add(y->errors, g_strdup_printf("%s: unknown error", y->path));
		g_ptr_array_sort_with_data(y->errors, errorCmp, (gpointer)y->path);
		mhlErrorRestore(g_strdup(y->errors->pdata[0]));
	}
	if (before)
		mhlErrorRestore(before);
	return rc;
}

int mhlScenarioLoadAllErrors(const char *path, GPtrArray *out, GPtrArray *errors)
{
	g_autoptr(GPtrArray) templated = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autofree mhlMatrix *m = g_new0(mhlMatrix, 1);
	g_autofree char *buf = NULL;
	char *before = mhlErrorSteal();
	yaml_document_t doc;
	yaml_node_t *root;
	mhlYaml y = { .path = path, .doc = &doc, .templated = templated, .errors = errors, .seen = seen };
	size_t len;
	int rc = -1;

	g_ptr_array_set_size(errors, 0);
	if (!(buf = scenarioRead(path, &len)) || mhlYamlLoad(path, buf, len, &doc) < 0)
		return loadDone(&y, -1, before);
	root = yaml_document_get_root_node(&doc);
	if (!root)
		mhlError("%s: the scenario is empty", path);
	else if (templatedFind(&y) == 0 && matrixParse(&y, root, m) == 0)
		rc = matrixTrials(&y, root, m, out);
	yaml_document_delete(&doc);
	if (rc > 0 && mhlTrialLogNamesUnique(out) < 0)
		rc = -1;
	return loadDone(&y, rc, before);
}

int mhlScenarioLoadAll(const char *path, GPtrArray *out)
{
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	int n = mhlScenarioLoadAllErrors(path, out, errors);

	/* one message for run and soak: the first error, and that check lists the others */
	if (n < 0 && errors->len > 1 && !strcmp(mhlErrorLast(), errors->pdata[0]))
		mhlErrorRestore(g_strdup_printf("%s (and %u more error(s) in the file: memhp-lab check %s lists every one)",
						(const char *)errors->pdata[0], errors->len - 1, path));
	return n;
}

char *mhlTrialIdFileName(const char *id)
{
	g_autofree char *safe = g_strndup(id, 96);
	g_autofree char *sum = NULL;

	g_strcanon(safe, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
	if (!strcmp(safe, id))
		return g_steal_pointer(&safe);
	sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);
	return g_strdup_printf("%s-%.8s", safe, sum);
}

/*
 * A plain id that reads like a name this function makes: "-" and 8 hex
 * digits at its end (a hashed id's form), or ".attempt" anywhere (a fleet
 * retry's log). Such an id is hashed too, so no id's log is another's.
 */
static bool trialIdReserved(const char *id)
{
	size_t n = strlen(id), i;

	if (strstr(id, ".attempt"))
		return true;
	if (n < 9 || id[n - 9] != '-')
		return false;
	for (i = n - 8; i < n; i++)
		if (!g_ascii_isxdigit(id[i]))
			return false;
	return true;
}

char *mhlTrialLogName(const char *id, int attempt)
{
	g_autofree char *safe = mhlTrialIdFileName(id);

	if (!strcmp(safe, id) && trialIdReserved(id)) {
		g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);

		g_free(safe);
		safe = g_strdup_printf("%.96s-%.8s", id, sum);
	}
	return g_strdup_printf("%s%s.console.log", safe, attempt > 1 ? ".attempt2" : "");
}

int mhlTrialLogNamesUnique(GPtrArray *trials)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint i;
	int a;

	for (i = 0; i < trials->len; i++) {
		const mhlScenario *s = trials->pdata[i];

		for (a = 1; a <= 2; a++) {
			char *log = mhlTrialLogName(s->name, a);
			const mhlScenario *first = g_hash_table_lookup(seen, log);

			if (first && first != s) {
				mhlError("%s: trial '%s' and trial '%s'%s%s would share the console log '%s'; give one of them another name",
					 s->path, s->name, first->name, strcmp(first->path, s->path) ? " of " : "",
					 strcmp(first->path, s->path) ? first->path : "", log);
				g_free(log);
				return -1;
			}
			g_hash_table_insert(seen, log, (gpointer)s);
		}
	}
	return 0;
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
	g_free(s->kernel_package);
	g_free(s->kernel_modules);
	g_strfreev(s->host_labels);
	g_free(s->kernel_deb);
	g_free(s->pin_policy);
	g_free(s->cmdline);
	for (i = 0; i < s->nxfail; i++) {
		g_free(s->xfail[i].reason);
		g_free(s->xfail[i].match);
	}
	g_free(s);
}

/* ---- what a guest of a scenario needs of its host ---- */

static uint64_t addSat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/*
 * A trial's guest (issue 36, item 5): all of its boot memory; of each
 * virtio-mem device what its steps touch on that node (the sizes of its
 * pin and bench steps) plus GUEST_SLACK for the guest's own use, at most
 * the device; the whole device when the backing reserves it up front
 * (prealloc, huge pages) or when an exec or selftest step runs a program
 * that may touch anything. Plugging alone makes nothing resident (a 16 GiB
 * plug here left 2 MiB). Saturates at UINT64_MAX rather than wrap (sizes
 * reach 16 EiB).
 */
#define GUEST_SLACK	(128ULL << 20)
uint64_t mhlScenarioGuestBytes(const mhlScenario *s, bool whole)
{
	uint64_t b = MHL_QEMU_OVERHEAD, touch[MHL_MAX_NODES] = { 0 };
	bool all = whole || s->prealloc || !strcmp(s->backing, "hugepages");
	int i;

	for (i = 0; i < s->nsteps; i++) {
		const mhlStep *st = &s->steps[i];

		if (st->type == MHL_STEP_EXEC || st->type == MHL_STEP_SELFTEST)
			all = true;
		else if ((st->type == MHL_STEP_PIN || st->type == MHL_STEP_BENCH) &&
			 st->node >= 0 && st->node < MHL_MAX_NODES)
			touch[st->node] = addSat(touch[st->node], st->size);
	}
	for (i = 0; i < s->nnodes; i++) {
		b = addSat(b, s->nodes[i].memory);
		b = addSat(b, all ? s->nodes[i].vmem_size : MIN(s->nodes[i].vmem_size, addSat(touch[i], GUEST_SLACK)));
	}
	return b;
}
