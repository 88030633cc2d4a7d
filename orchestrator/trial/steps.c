/*
 * steps.c - the table of step kinds. A new kind is one enum value and name
 * in scenario/ (with its keys), one row here and one function in a file of
 * its own (docs/architecture.md).
 */
#include <glib.h>

#include "trial/steps.h"

#include <string.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "util.h"

static const mhlStepFn stepKinds[MHL_STEP_LAST] = {
	[MHL_STEP_PIN] = mhlStepPin,
	[MHL_STEP_RESIZE] = mhlStepResize,
	[MHL_STEP_CHECK] = mhlStepHolder,
	[MHL_STEP_IO] = mhlStepHolder,	/* the holder's check does the mode's I/O or DMA, then compares */
	[MHL_STEP_RELEASE] = mhlStepHolder,
	[MHL_STEP_SNAPSHOT] = mhlStepSnapshot,
	[MHL_STEP_EXPECT] = mhlStepExpect,
	[MHL_STEP_BENCH] = mhlStepBench,
	[MHL_STEP_SYSRQ] = mhlStepSysrq,
	[MHL_STEP_WAIT] = mhlStepWait,
	[MHL_STEP_SELFTEST] = mhlStepSelftest,
	[MHL_STEP_EXEC] = mhlStepExec,
	[MHL_STEP_REBOOT] = mhlStepReboot,
	[MHL_STEP_SUSPEND] = mhlStepSuspend,
	[MHL_STEP_MIGRATE] = mhlStepMigrate,
	[MHL_STEP_SAVE] = mhlStepSave,
	[MHL_STEP_MANAGEDSAVE] = mhlStepManagedSave,
	[MHL_STEP_DAEMON_RESTART] = mhlStepDaemonRestart,
	[MHL_STEP_HUGEPAGES] = mhlStepHugepages,
	[MHL_STEP_BALLOON] = mhlStepBalloon,
	[MHL_STEP_DIMM] = mhlStepDimm,
	[MHL_STEP_VMEM] = mhlStepVmem,
};

int mhlStepRun(mhlTrial *t, const mhlStep *st, json_object *res)
{
	if (st->type >= MHL_STEP_LAST || !stepKinds[st->type]) {
		mhlError("%s:%d: unknown step type %d", t->s->path, st->line, st->type);
		return -1;
	}
	return stepKinds[st->type](t, st, res);
}

long long mhlCensusPages(json_object *census, const char *zone)
{
	json_object *bz, *v;

	if (census && json_object_object_get_ex(census, MHL_PIN_K_BY_ZONE, &bz) &&
	    json_object_object_get_ex(bz, zone, &v))
		return json_object_get_int64(v);
	if (census && json_object_object_get_ex(census, zone, &v) &&
	    json_object_get_type(v) == json_type_int)
		return json_object_get_int64(v);
	return -1;
}

static gint64 heldTotal(const mhlTrial *t)
{
	gint64 sum = 0;
	int i;

	for (i = 0; i < t->nheld; i++)
		sum += t->held[i].bytes;
	return sum;
}

void mhlTrialHeld(mhlTrial *t, const char *id, gint64 bytes)
{
	int i;

	for (i = 0; i < t->nheld && strcmp(t->held[i].id, id); i++)
		;
	if (i == t->nheld) {
		if (t->nheld == G_N_ELEMENTS(t->held))
			return;
		g_strlcpy(t->held[t->nheld++].id, id, sizeof(t->held[0].id));
	}
	t->held[i].bytes = MAX(bytes, 0);
	if (!t->shrunk)
		t->sum.pinned_bytes = MAX(t->sum.pinned_bytes, heldTotal(t));
}

/* The last census of pin @id on record: its pin's census_after, or a later check's or io's census. */
static json_object *lastCensus(json_object *steps, const char *id)
{
	size_t i = json_object_array_length(steps);

	while (i-- > 0) {
		json_object *r = json_object_array_get_idx(steps, i), *c = NULL;
		const char *type = mhlJStr(r, MHL_K_STEP, "");

		if (strcmp(mhlJStr(r, MHL_K_ID, ""), id))
			continue;
		if (!strcmp(type, "pin"))
			c = mhlJObj(r, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_CENSUS_AFTER));
		else if (!strcmp(type, "check") || !strcmp(type, "io"))
			c = mhlJObj(r, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_CENSUS));
		if (c)
			return c;
	}
	return NULL;
}

gint64 mhlPinnedInDevice(json_object *steps, const char *const *ids, int nids, int node, guint64 boot_bytes)
{
	char key[16];
	gint64 pages = 0, movable = 0, beyond;
	size_t i;
	int k;

	/* a DIMM or a hot-added virtio-mem device may share the node and its ZONE_MOVABLE */
	for (i = 0; i < json_object_array_length(steps); i++) {
		json_object *r = json_object_array_get_idx(steps, i);
		const char *type = mhlJStr(r, MHL_K_STEP, "");

		if ((!strcmp(type, "dimm") || !strcmp(type, "vmem")) &&
		    !strcmp(mhlJStr(r, MHL_PATH(MHL_K_ELASTIC, MHL_K_ACTION), ""), "attach"))
			return -1;
	}
	g_snprintf(key, sizeof(key), "%d", node);
	for (k = 0; k < nids; k++) {
		json_object *c = lastCensus(steps, ids[k]), *bn = NULL, *n = NULL;

		if (!c)
			return -1;
		if (json_object_object_get_ex(c, MHL_PIN_K_BY_NODE, &bn) &&
		    json_object_object_get_ex(bn, key, &n)) {
			pages += mhlJInt(n, MHL_PIN_K_PAGES, 0);
			movable += mhlJInt(n, MHL_PIN_ZONE_MOVABLE, 0);
		}
	}
	beyond = pages - (gint64)(boot_bytes / MHL_CENSUS_PAGE_BYTES);
	return MAX(movable, beyond) * MHL_CENSUS_PAGE_BYTES;
}

gint64 mhlTrialPinnedInDevice(const mhlTrial *t, int node)
{
	const char *ids[G_N_ELEMENTS(t->held)];
	int i, n = 0;

	for (i = 0; i < t->nheld; i++)
		if (t->held[i].bytes > 0)
			ids[n++] = t->held[i].id;
	return mhlPinnedInDevice(t->steps, ids, n, node, t->s->nodes[node].memory);
}

void mhlTrialHeldAtShrink(mhlTrial *t)
{
	/* the last shrink's: what held the unplug back, or did not (a trial with no pin has none) */
	if (!t->nheld)
		return;
	t->sum.pinned_bytes = heldTotal(t);
	t->shrunk = true;
}

#define HOST_SETTLE_QUIET 1.0	/* s without a move: the host side has settled */
#define HOST_SETTLE_MAX 10.0	/* s after the request at most */

int mhlTrialHostSettle(mhlTrial *t, double t_req, mhlHostSample *after)
{
	mhlGuest *g = t->g;
	double end = mhlNow() + HOST_SETTLE_MAX;

	do {
		if (mhlGuestHostSample(g, after) < 0)
			return -1;
		/* quiet since the request too: QEMU frees a removed backend after the event (RCU) */
		if (after->t - MAX(g->host_changed_t, t_req) >= HOST_SETTLE_QUIET || mhlInterrupted)
			break;
		g_usleep(100 * 1000);
	} while (mhlNow() < end);
	return 0;
}

/*
 * The summary's host side adds up every shrink (issue 32, item 11): a
 * grow-shrink trial whose first shrink gave 140 MiB back and whose last
 * gave 0 got back 140 MiB. Reclaimed and reclaimable are sums, their ratio
 * the sums' (the one share, named as what it is); reclaimable is -1 from
 * the first shrink without one on (QEMU's RSS only: no share then).
 */
static void hostSummary(mhlSummary *m, int64_t before, int64_t after, int64_t reclaimable, double settle_s)
{
	bool first = m->host_shrinks <= 0;

	m->host_shrinks = first ? 1 : m->host_shrinks + 1;
	if (first)
		m->host_before_bytes = before;
	m->host_after_bytes = after;
	m->host_reclaimed_bytes = (first ? 0 : m->host_reclaimed_bytes) + MAX(0, before - after);
	m->host_reclaimable_bytes = reclaimable < 0 || (!first && m->host_reclaimable_bytes < 0) ? -1 :
				    (first ? 0 : m->host_reclaimable_bytes) + reclaimable;
	m->host_reclaimed_of_reclaimable = m->host_reclaimable_bytes > 0 ?
					   (double)m->host_reclaimed_bytes / (double)m->host_reclaimable_bytes : -1;
	m->host_settle_s = first ? settle_s : MAX(m->host_settle_s, settle_s);
}

void mhlTrialHostSide(mhlTrial *t, json_object *res, const mhlHostSample *before,
		      const mhlHostSample *after, int64_t b, int64_t a, const char *by, double t_req,
		      int64_t size_before, int64_t size_after)
{
	mhlGuest *g = t->g;
	json_object *h = json_object_new_object();
	int64_t removed = size_before - size_after, reclaimable;
	double settle = MAX(0, g->host_changed_t - t_req);

	json_object_object_add(h, MHL_K_SOURCE, json_object_new_string(g->hm.source));
	json_object_object_add(h, MHL_K_MEASURED_BY, json_object_new_string(by));
	json_object_object_add(h, MHL_K_BEFORE, mhlHostSampleJSON(before, &g->hm));
	json_object_object_add(h, MHL_K_AFTER, mhlHostSampleJSON(after, &g->hm));
	json_object_object_add(h, MHL_K_PLUGGED_BEFORE_BYTES, json_object_new_int64(size_before));
	json_object_object_add(h, MHL_K_SETTLE_S, json_object_new_double(settle));
	if (before->pool_free >= 0 && after->pool_free >= 0)
		json_object_object_add(h, MHL_K_POOL_RETURNED_PAGES,
				       json_object_new_int64(after->pool_free - before->pool_free));
	json_object_object_add(res, MHL_K_HOST, h);
	if (removed <= 0)
		return;
	/*
	 * What must come back: what the backend held beyond what stays plugged
	 * (at most the bytes removed). Memory the guest never touched was
	 * never the host's to give back, and the blocks that stay plugged (a
	 * pin held in place) may keep theirs. QEMU's whole resident set
	 * (libvirt's figure) does not say what the device held.
	 */
	reclaimable = !strcmp(by, "backend") ? MIN(removed, MAX(0, b - size_after)) : -1;
	json_object_object_add(h, MHL_K_UNPLUGGED_BYTES, json_object_new_int64(removed));
	json_object_object_add(h, MHL_K_RECLAIMED_BYTES, json_object_new_int64(b - a));
	if (reclaimable >= 0)
		json_object_object_add(h, MHL_K_RECLAIMABLE_BYTES, json_object_new_int64(reclaimable));
	json_object_object_add(h, MHL_K_RECLAIMED_OF_UNPLUGGED,
			       json_object_new_double((double)(b - a) / (double)removed));
	if (reclaimable > 0)
		json_object_object_add(h, MHL_K_RECLAIMED_OF_RECLAIMABLE,
				       json_object_new_double((double)(b - a) / (double)reclaimable));
	hostSummary(&t->sum, b, a, reclaimable, settle);
}

json_object *mhlElasticBegin(json_object *res, const char *mechanism, const char *action)
{
	json_object *el = json_object_new_object();

	json_object_object_add(res, MHL_K_ELASTIC, el);
	json_object_object_add(el, MHL_K_MECHANISM, json_object_new_string(mechanism));
	json_object_object_add(el, MHL_K_ACTION, json_object_new_string(action));
	json_object_object_add(el, MHL_K_OK, json_object_new_boolean(false));
	return el;
}

json_object *mhlTrialDevices(mhlTrial *t, guint64 *plugged)
{
	g_autoptr(json_object) a = json_object_new_array();
	guint64 sum = 0;
	int i;

	for (i = 0; i < t->s->nnodes; i++) {
		unsigned long long size, req;
		json_object *o;

		if (!t->s->nodes[i].vmem_size)
			continue;
		if (mhlGuestVirtioMemSize(t->g->dom, i, &size, &req) < 0)
			return NULL;
		o = json_object_new_object();
		json_object_object_add(o, MHL_K_NODE, json_object_new_int(i));
		json_object_object_add(o, MHL_K_SIZE_BYTES, json_object_new_int64((int64_t)size));
		json_object_object_add(o, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)req));
		json_object_array_add(a, o);
		sum += size;
	}
	if (plugged)
		*plugged = sum;
	return g_steal_pointer(&a);
}

json_object *mhlLifecycleBegin(mhlTrial *t, const mhlStep *st, json_object *res, guint64 *memory)
{
	json_object *lc = json_object_new_object(), *before;
	guint64 sum;
	int i;

	json_object_object_add(res, MHL_K_LIFECYCLE, lc);
	json_object_object_add(lc, MHL_K_EVENT, json_object_new_string(mhlStepTypeNames[st->type]));
	json_object_object_add(lc, MHL_K_OK, json_object_new_boolean(false));
	if (!(before = mhlTrialDevices(t, &sum)))
		return NULL;
	json_object_object_add(lc, MHL_K_PLUGGED_BEFORE, before);
	for (i = 0; i < t->s->nnodes; i++)
		sum += t->s->nodes[i].memory;
	if (memory)
		*memory = sum;
	return lc;
}

int mhlLifecycleBack(mhlTrial *t, json_object *lc, double since, double deadline, const char *key)
{
	json_object *after;

	if (mhlAgentWait(t->g->dom, t->g->cfg.agent_deadline, t->g->console) < 0)
		return -1;
	json_object_object_add(lc, MHL_K_AGENT_S, json_object_new_double(mhlNow() - since));
	if (mhlGuestWaitConverged(t->g, t->s, deadline) < 0)
		return -1;
	json_object_object_add(lc, key, json_object_new_double(mhlNow() - since));
	if (!(after = mhlTrialDevices(t, NULL)))
		return -1;
	json_object_object_add(lc, MHL_K_PLUGGED_AFTER, after);
	return 0;
}

int mhlLifecycleEnd(json_object *lc, double t0, int rc)
{
	json_object_object_add(lc, MHL_K_SECONDS, json_object_new_double(mhlNow() - t0));
	json_object_object_add(lc, MHL_K_OK, json_object_new_boolean(rc == 0));
	return rc;
}

const mhlPeer *mhlPeerFind(const GPtrArray *peers, const char *name)
{
	guint i;

	for (i = 0; peers && i < peers->len; i++)
		if (!strcmp(((const mhlPeer *)peers->pdata[i])->name, name))
			return peers->pdata[i];
	return NULL;
}
