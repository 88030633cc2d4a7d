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

/*
 * The bytes the host gives node @node's device: its boot-time backend's,
 * else the backend of the virtio-mem device a vmem step hot-added there (in
 * the sample since the attach; -1 when its mapping was not found), else
 * QEMU's whole resident set.
 */
static int64_t hostBytes(const mhlHostSample *hs, const mhlHostMem *hm, int node, const char **by)
{
	if (hs->node_bytes[node] >= 0) {
		*by = "backend";
		return hs->node_bytes[node];
	}
	return mhlHostSampleHotBytes(hs, mhlHostMemHotOfNode(hm, node), by);
}

/* The host side of a resize of node st->node's device (mhlTrialHostSide). */
static void hostSide(mhlTrial *t, const mhlStep *st, const mhlHostSample *before, double t_req,
		     unsigned long long plugged_before, unsigned long long reached, json_object *res)
{
	mhlHostSample after;
	const char *by, *by_after;
	int64_t b, a;

	if (mhlTrialHostSettle(t, t_req, &after) < 0)
		return;
	b = hostBytes(before, &t->g->hm, st->node, &by);
	a = hostBytes(&after, &t->g->hm, st->node, &by_after);
	if (b < 0 || a < 0 || strcmp(by, by_after))
		return;
	mhlTrialHostSide(t, res, before, &after, b, a, by, t_req, (int64_t)plugged_before,
			 (int64_t)reached);
	if (before->node_bytes[st->node] < 0 && !strcmp(by, "backend")) {
		/* a hot-added device's: its figures under the step's own names (docs/record.md) */
		json_object *h = json_object_object_get(res, MHL_K_HOST);

		json_object_object_add(h, MHL_K_BACKEND_BEFORE_BYTES, json_object_new_int64(b));
		json_object_object_add(h, MHL_K_BACKEND_AFTER_BYTES, json_object_new_int64(a));
	}
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

/*
 * A device with dynamic memslots (virtio_mem: {dynamic_memslots: true}):
 * how many memslots QEMU maps for it once the resize converged, one per
 * GiB that holds plugged memory (docs/stacks.md); a failure to read them
 * is a note, not the resize's failure.
 */
static void resizeMemslots(mhlTrial *t, const mhlStep *st, json_object *res)
{
	int n;

	if (st->node < 0 || st->node >= t->s->nnodes || !t->s->nodes[st->node].vmem_dynamic)
		return;
	if ((n = mhlGuestMemslots(t->g->dom, st->node)) < 0) {
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
		mhlErrorReset();
		return;
	}
	json_object_object_add(res, MHL_K_MEMSLOTS, json_object_new_int(n));
}

int mhlStepResize(mhlTrial *t, const mhlStep *st, json_object *res)
{
	unsigned long long reached = 0, plugged_before = 0, req_before;
	gint64 pinned;
	mhlHostSample before;
	guint64 mt0 = 0;
	int on0 = 0;
	bool host, grow, path;
	double secs, t_req;

	if (mhlGuestVirtioMemSize(t->g->dom, st->node, &plugged_before, &req_before) < 0)
		return -1;
	t->g->host_changed_t = 0;
	grow = st->requested > plugged_before;
	path = grow && !t->bare_resize;
	if (path && mhlGuestMemOnline(t->g->dom, &mt0, &on0) < 0)
		return -1;
	host = !t->bare_resize && mhlGuestHostSample(t->g, &before) == 0;
	if (!grow && st->requested < plugged_before)
		mhlTrialHeldAtShrink(t);
	/* what an unplug cannot take back, for expect unplug: short (a soak's cycle: no census on record) */
	pinned = inScenario(t->s, st) ? mhlTrialPinnedInDevice(t, st->node) : -1;
	t_req = mhlNow();
	secs = mhlGuestResize(t->g, st->node, st->requested, st->deadline, &reached);
	if (secs < -1)
		return -1;
	if (path && secs >= 0 && !mhlInterrupted)
		plugPath(t, t_req, secs, plugged_before, reached, mt0, on0, res);
	if (host && !mhlInterrupted)
		hostSide(t, st, &before, t_req, plugged_before, reached, res);
	json_object_object_add(res, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
	json_object_object_add(res, MHL_K_PLUGGED_BEFORE_BYTES, json_object_new_int64((int64_t)plugged_before));
	if (pinned >= 0)
		json_object_object_add(res, MHL_K_PINNED_IN_DEVICE_BYTES, json_object_new_int64(pinned));
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
	resizeMemslots(t, st, res);
	return 0;
}
