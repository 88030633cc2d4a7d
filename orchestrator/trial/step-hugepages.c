/*
 * step-hugepages.c - hugepages: set node N's pool of huge pages of one size
 * to count (/sys/devices/system/node/nodeN/hugepages/hugepages-<kB>kB/
 * nr_hugepages, written through the guest agent), wait until the pool stops
 * moving or the deadline, and record res.elastic (record.h: mechanism
 * "hugetlb", action "alloc") with the compaction counters' changes. A pool
 * that falls short is an outcome, recorded (ok false), not a failed step:
 * what the node could give is the measurement. A guest without pages of that
 * size (1 GiB without the CPU's pdpe1gb) refuses: the step fails saying so.
 */
#include <glib.h>

#include "trial/steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "util.h"

#define POOL_SETTLE_S 0.5	/* between two reads of the pool that must agree */

/* The /proc/vmstat counters whose changes the step records (those the guest has). */
static const char *const compactionCounters[] = {
	"compact_stall", "compact_fail", "compact_success", "compact_migrate_scanned",
	"compact_free_scanned", "compact_isolated", "compact_daemon_wake",
	"nr_foll_pin_acquired", "nr_foll_pin_released", "pgmigrate_success", "pgmigrate_fail",
	"htlb_buddy_alloc_success", "htlb_buddy_alloc_fail",
};

/* Run @argv in the guest: its stdout (cleaned guest text) if it exited 0, else NULL; *@err its stderr. */
static char *guestRun(mhlTrial *t, const char *const *argv, double deadline, char **err)
{
	mhlExecStatus es = { 0 };
	char *out = NULL;

	if (mhlAgentExec(t->g->dom, argv, deadline, &es) < 0)
		return NULL;
	if (es.exited && es.exitcode == 0)
		out = g_steal_pointer(&es.out);
	else if (err)
		*err = mhlTextClean(es.err ? es.err : "", -1, 200, false);
	mhlExecStatusClear(&es);
	return out;
}

/* The pool now: its page count, -1 + *@err (the guest's words) when it cannot be read. */
static long long poolRead(mhlTrial *t, const char *path, char **err)
{
	const char *argv[] = { "/bin/cat", path, NULL };
	g_autofree char *out = guestRun(t, argv, 30, err);
	char *end;
	long long n;

	if (!out)
		return -1;
	n = strtoll(out, &end, 10);
	if (end == out || n < 0 || (*end && *end != '\n')) {
		*err = mhlTextClean(out, -1, 80, false);
		return -1;
	}
	return n;
}

static json_object *vmstatRead(mhlTrial *t)
{
	static const char *const argv[] = { "/bin/cat", "/proc/vmstat", NULL };
	g_autofree char *out = guestRun(t, argv, 30, NULL);

	return out ? mhlParseVmstat(out) : NULL;
}

/* {counter: after - before} of compactionCounters[] both samples have. */
static json_object *compactionChanges(json_object *before, json_object *after)
{
	json_object *o = json_object_new_object(), *b, *a;
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(compactionCounters); i++)
		if (json_object_object_get_ex(before, compactionCounters[i], &b) &&
		    json_object_object_get_ex(after, compactionCounters[i], &a))
			json_object_object_add(o, compactionCounters[i],
					       json_object_new_int64(json_object_get_int64(a) -
								     json_object_get_int64(b)));
	return o;
}

/* {zone: free pages} of node @node now (/proc/zoneinfo); NULL if unread. */
static json_object *zoneFree(mhlTrial *t, int node)
{
	static const char *const argv[] = { "/bin/cat", "/proc/zoneinfo", NULL };
	g_autofree char *out = guestRun(t, argv, 30, NULL);
	g_autoptr(json_object) zi = out ? mhlParseZoneinfo(out) : NULL;
	json_object *o;
	size_t i;

	if (!zi)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < json_object_array_length(zi); i++) {
		json_object *z = json_object_array_get_idx(zi, i);

		if (mhlJInt(z, MHL_K_NODE, -1) == node && mhlJInt(z, MHL_K_FREE, -1) >= 0)
			json_object_object_add(o, mhlJStr(z, MHL_K_ZONE, "?"),
					       json_object_new_int64(mhlJInt(z, MHL_K_FREE, 0)));
	}
	return o;
}

/* Write @count to the pool at @path, then read it until two reads agree (or @deadline): the pool. */
static long long poolSet(mhlTrial *t, const mhlStep *st, const char *path, double t0, char **err)
{
	g_autofree char *cmd = g_strdup_printf("echo %lld > %s", st->count, path);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	g_autofree char *out = NULL;
	long long n, prev = -1;

	/* the kernel allocates (or frees) in the write; a short pool is no error of the write */
	if (!(out = guestRun(t, argv, st->deadline, err)) && !*err)
		return -1;
	g_clear_pointer(err, g_free);
	while ((n = poolRead(t, path, err)) >= 0 && n != prev && mhlNow() - t0 < st->deadline &&
	       !mhlInterrupted) {
		prev = n;
		if (mhlGuestSleep(t->g, POOL_SETTLE_S) < 0)
			return -1;
	}
	return n;
}

int mhlStepHugepages(mhlTrial *t, const mhlStep *st, json_object *res)
{
	guint64 kb = st->size >> 10, mt0 = 0, mt1 = 0;
	g_autofree char *path = g_strdup_printf("/sys/devices/system/node/node%d/hugepages/hugepages-%" G_GUINT64_FORMAT "kB/nr_hugepages",
						st->node, kb);
	g_autofree char *err = NULL;
	g_autoptr(json_object) vm0 = NULL, vm1 = NULL;
	json_object *e = mhlElasticBegin(res, "hugetlb", "alloc");
	long long before, after;
	double t0;
	int on;

	json_object_object_add(e, MHL_K_NODE, json_object_new_int(st->node));
	json_object_object_add(e, MHL_K_PAGE_BYTES, json_object_new_int64((int64_t)st->size));
	json_object_object_add(e, MHL_K_REQUESTED_PAGES, json_object_new_int64(st->count));
	json_object_object_add(e, MHL_K_REQUESTED_BYTES, json_object_new_int64(st->count * (int64_t)st->size));
	if (mhlGuestMemOnline(t->g->dom, &mt0, &on) < 0 || !(vm0 = vmstatRead(t)))
		return -1;
	json_object_object_add(e, MHL_K_MEMTOTAL_BEFORE_BYTES, json_object_new_int64((int64_t)mt0));
	if ((before = poolRead(t, path, &err)) < 0) {
		if (!err)
			return -1;
		/* no pool of that size on the node: this guest has no such pages */
		json_object_object_add(e, MHL_K_REFUSED, json_object_new_string(err));
		mhlError("hugepages: node %d has no pool of %" G_GUINT64_FORMAT " kB pages (%s: %s)%s",
			 st->node, kb, path, err,
			 st->size == MHL_HUGEPAGE_1G ? "; 1 GiB pages need the guest CPU's pdpe1gb" : "");
		return -1;
	}
	json_object_object_add(e, MHL_K_POOL_BEFORE_PAGES, json_object_new_int64(before));
	t0 = mhlNow();
	if ((after = poolSet(t, st, path, t0, &err)) < 0) {
		if (err)
			mhlError("hugepages: reading %s after writing %lld: %s", path, st->count, err);
		return -1;
	}
	json_object_object_add(e, MHL_K_SECONDS, json_object_new_double(mhlNow() - t0));
	json_object_object_add(e, MHL_K_ALLOCATED_PAGES, json_object_new_int64(after));
	json_object_object_add(e, MHL_K_OK, json_object_new_boolean(after == st->count));
	if (mhlGuestMemOnline(t->g->dom, &mt1, &on) < 0 || !(vm1 = vmstatRead(t)))
		return -1;
	json_object_object_add(e, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt1));
	json_object_object_add(e, MHL_K_COMPACTION, compactionChanges(vm0, vm1));
	json_object_object_add(e, MHL_K_ZONE_FREE_AFTER_PAGES, zoneFree(t, st->node));
	return 0;
}
