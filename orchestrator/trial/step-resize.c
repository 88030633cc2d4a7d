/*
 * step-resize.c - resize: set a node's virtio-mem <requested> and wait for
 * the plugged size to follow (guest/session.c does both). A resize that stops
 * short is a failure unless the step only measures (capacity sweeps) or a
 * later expect step says it stops short: then that step judges it.
 */
#include <glib.h>

#include "trial/steps.h"

#include "guest/guest.h"
#include "scenario/names.h"
#include "util.h"

#include <string.h>

#define HOST_SETTLE_QUIET 1.0	/* s without a move: the host side has settled */
#define HOST_SETTLE_MAX 10.0	/* s after the resize at most */

/* Does an expect step after @st, under this pin_policy, say the unplug stops short? */
static bool shortExpected(const mhlScenario *s, const mhlStep *st)
{
	int i;

	for (i = (int)(st - s->steps) + 1; i < s->nsteps; i++) {
		const mhlStep *e = &s->steps[i];

		if (e->type == MHL_STEP_RESIZE)
			return false;
		if (e->type == MHL_STEP_EXPECT && mhlExpectApplies(s, e) && e->unplug)
			return e->unplug == MHL_UNPLUG_SHORT;
	}
	return false;
}

/* Whether @st is one of the scenario's steps (a soak's steps are not). */
static bool inScenario(const mhlScenario *s, const mhlStep *st)
{
	return st >= s->steps && st < s->steps + s->nsteps;
}

/* The bytes a sample says the host gives node @node's device: its backend's, else QEMU's. */
static int64_t hostBytes(const mhlHostSample *hs, int node, const char **by)
{
	*by = hs->node_bytes[node] >= 0 ? "backend" : "qemu_rss";
	return hs->node_bytes[node] >= 0 ? hs->node_bytes[node] : hs->qemu_rss;
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

/*
 * The host side of a resize: wait until the host's figures stop moving (at
 * most HOST_SETTLE_MAX s), then before and after, and for a shrink what came
 * back: res.host, and the summary's host_* fields.
 */
static void hostSide(mhlTrial *t, const mhlStep *st, const mhlHostSample *before, double t_req,
		     unsigned long long plugged_before, unsigned long long reached, json_object *res)
{
	mhlGuest *g = t->g;
	mhlHostSample after;
	json_object *h;
	const char *by, *by_after;
	int64_t b, a, unplugged = (int64_t)plugged_before - (int64_t)reached, reclaimable;
	double end = mhlNow() + HOST_SETTLE_MAX;

	do {
		if (mhlGuestHostSample(g, &after) < 0)
			return;
		if (after.t - g->host_changed_t >= HOST_SETTLE_QUIET || mhlInterrupted)
			break;
		g_usleep(100 * 1000);
	} while (mhlNow() < end);
	b = hostBytes(before, st->node, &by);
	a = hostBytes(&after, st->node, &by_after);
	if (b < 0 || a < 0 || strcmp(by, by_after))
		return;
	h = json_object_new_object();
	json_object_object_add(h, MHL_K_SOURCE, json_object_new_string(g->hm.source));
	json_object_object_add(h, MHL_K_MEASURED_BY, json_object_new_string(by));
	json_object_object_add(h, MHL_K_BEFORE, mhlHostSampleJSON(before));
	json_object_object_add(h, MHL_K_AFTER, mhlHostSampleJSON(&after));
	json_object_object_add(h, MHL_K_PLUGGED_BEFORE_BYTES, json_object_new_int64((int64_t)plugged_before));
	json_object_object_add(h, MHL_K_SETTLE_S, json_object_new_double(MAX(0, g->host_changed_t - t_req)));
	if (before->pool_free >= 0 && after.pool_free >= 0)
		json_object_object_add(h, MHL_K_POOL_RETURNED_PAGES,
				       json_object_new_int64(after.pool_free - before->pool_free));
	json_object_object_add(res, MHL_K_HOST, h);
	if (unplugged <= 0)
		return;
	/*
	 * What must come back: what the device's backend held beyond what stays
	 * plugged (at most the unplugged bytes). Memory the guest never touched
	 * was never the host's to give back, and the blocks that stay plugged
	 * (a pin held in place) may keep theirs. QEMU's whole resident set
	 * (libvirt's figure) does not say what the device held.
	 */
	reclaimable = !strcmp(by, "backend") ? MIN(unplugged, MAX(0, b - (int64_t)reached)) : -1;
	json_object_object_add(h, MHL_K_UNPLUGGED_BYTES, json_object_new_int64(unplugged));
	json_object_object_add(h, MHL_K_RECLAIMED_BYTES, json_object_new_int64(b - a));
	if (reclaimable >= 0)
		json_object_object_add(h, MHL_K_RECLAIMABLE_BYTES, json_object_new_int64(reclaimable));
	json_object_object_add(h, MHL_K_RECLAIMED_OF_UNPLUGGED,
			       json_object_new_double((double)(b - a) / (double)unplugged));
	if (reclaimable > 0)
		json_object_object_add(h, MHL_K_RECLAIMED_OF_RECLAIMABLE,
				       json_object_new_double((double)(b - a) / (double)reclaimable));
	hostSummary(&t->sum, b, a, reclaimable, MAX(0, g->host_changed_t - t_req));
}


/*
 * The plug path of a grow: from the request to plugged (QMP, the resize's
 * own wait), then until the guest's MemTotal grew by what was plugged (its
 * memory blocks onlined): res.plug. Each look is one guest agent round
 * trip, which bounds the resolution (poll_s).
 */
static void plugPath(mhlTrial *t, double t_req, double secs, unsigned long long plugged_before,
		     unsigned long long reached, guint64 mt0, int on0, json_object *res)
{
	json_object *p = json_object_new_object();
	guint64 want = reached - plugged_before, mt = mt0;
	double t_look = 0, poll = 0, end;
	int on = on0, looks = 0;
	bool online = false;

	json_object_object_add(res, MHL_K_PLUG, p);
	json_object_object_add(p, MHL_K_PLUGGED_BYTES, json_object_new_int64((int64_t)want));
	json_object_object_add(p, MHL_K_SECONDS_TO_PLUGGED, json_object_new_double(secs));
	json_object_object_add(p, MHL_K_MEMTOTAL_BEFORE_BYTES, json_object_new_int64((int64_t)mt0));
	json_object_object_add(p, MHL_K_ONLINE_BLOCKS_BEFORE, json_object_new_int(on0));
	/* how long the online policy gives the guest (as shipped: a short look) */
	for (end = mhlNow() + mhlOnlinePolicyOf(t->s->online)->online_wait;
	     mhlNow() < end && !mhlInterrupted;) {
		double a = mhlNow();

		if (mhlGuestMemOnline(t->g->dom, &mt, &on) < 0) {
			json_object_object_add(p, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
			mhlErrorReset();
			break;
		}
		t_look = mhlNow();
		poll += t_look - a;
		looks++;
		if (mt >= mt0 + want) {
			online = true;
			break;
		}
		g_usleep(50 * 1000);
	}
	json_object_object_add(p, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt));
	json_object_object_add(p, MHL_K_ONLINE_BLOCKS_AFTER, json_object_new_int(on));
	json_object_object_add(p, MHL_K_ONLINE, json_object_new_boolean(online));
	if (looks)
		json_object_object_add(p, MHL_K_POLL_S, json_object_new_double(poll / looks));
	if (online) {
		json_object_object_add(p, MHL_K_SECONDS_TO_ONLINE, json_object_new_double(t_look - t_req));
		t->sum.plug_to_online_s = t_look - t_req;
	}
}

int mhlStepResize(mhlTrial *t, const mhlStep *st, json_object *res)
{
	unsigned long long reached = 0, plugged_before = 0, req_before;
	mhlHostSample before;
	guint64 mt0 = 0;
	int on0 = 0;
	bool host, grow;
	double secs, t_req;

	if (mhlGuestVirtioMemSize(t->g->dom, st->node, &plugged_before, &req_before) < 0)
		return -1;
	t->g->host_changed_t = 0;
	grow = st->requested > plugged_before;
	if (grow && mhlGuestMemOnline(t->g->dom, &mt0, &on0) < 0)
		return -1;
	host = mhlGuestHostSample(t->g, &before) == 0;
	if (!grow && st->requested < plugged_before)
		mhlTrialHeldAtShrink(t);
	t_req = mhlNow();
	secs = mhlGuestResize(t->g, st->node, st->requested, st->deadline, &reached);
	if (secs < -1)
		return -1;
	if (grow && secs >= 0 && !mhlInterrupted)
		plugPath(t, t_req, secs, plugged_before, reached, mt0, on0, res);
	if (host && !mhlInterrupted)
		hostSide(t, st, &before, t_req, plugged_before, reached, res);
	json_object_object_add(res, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
	json_object_object_add(res, MHL_K_REACHED_BYTES, json_object_new_int64((int64_t)reached));
	json_object_object_add(res, MHL_K_CONVERGED, json_object_new_boolean(secs >= 0));
	json_object_object_add(res, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
	t->sum.requested_bytes = (gint64)st->requested;
	t->sum.reached_bytes = (gint64)reached;
	if (secs < 0 && !mhlInterrupted &&
	    (st->measure || (inScenario(t->s, st) && shortExpected(t->s, st)))) {
		/* Not a failure here: a later expect step (or the sweep's report) judges it. */
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
		mhlErrorReset();
		return 0;
	}
	if (secs < 0)
		return -1;
	json_object_object_add(res, MHL_K_SECONDS_TO_CONVERGE, json_object_new_double(secs));
	t->sum.seconds_to_converge = secs;
	return 0;
}
