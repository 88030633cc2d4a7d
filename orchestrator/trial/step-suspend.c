/*
 * step-suspend.c - suspend: the guest paused S seconds (virDomainSuspend),
 * optionally a resize asked while it is paused, then resumed
 * (virDomainResume) and waited for until every device is at its request.
 * Records what libvirt answered to the request, that nothing was plugged or
 * unplugged while paused (QEMU's device sizes at the end of the pause), how
 * long the guest was down and how long it took to converge after.
 */
#include <glib.h>

#include "trial/steps.h"

#include <libvirt/libvirt.h>

#include "guest/guest.h"
#include "util.h"

/* The resize asked while paused: res.resize_while_paused. The request's refusal is an outcome. */
static void pausedRequest(mhlTrial *t, const mhlStep *st, json_object *lc)
{
	json_object *r = json_object_new_object();
	int rc = mhlGuestRequest(t->g, st->node, st->requested);

	json_object_object_add(lc, MHL_K_RESIZE_WHILE_PAUSED, r);
	json_object_object_add(r, MHL_K_NODE, json_object_new_int(st->node));
	json_object_object_add(r, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
	json_object_object_add(r, MHL_K_ACCEPTED, json_object_new_boolean(rc == 0));
	if (rc < 0) {
		json_object_object_add(r, MHL_K_REFUSED, json_object_new_string(mhlErrorLast()));
		mhlErrorReset();
	}
}

/* Whether two device lists ([{node, size_bytes, requested_bytes}]) have the same sizes. */
static bool sameSizes(json_object *a, json_object *b)
{
	size_t i, n = json_object_array_length(a);

	if (n != json_object_array_length(b))
		return false;
	for (i = 0; i < n; i++)
		if (mhlJInt(json_object_array_get_idx(a, i), MHL_K_SIZE_BYTES, -1) !=
		    mhlJInt(json_object_array_get_idx(b, i), MHL_K_SIZE_BYTES, -2))
			return false;
	return true;
}

/* Paused: the request, the wait, the sizes at its end (they must not have moved). */
static int suspendPaused(mhlTrial *t, const mhlStep *st, json_object *before, json_object *lc)
{
	json_object *paused;

	size_t i;

	for (i = 0; st->resize && i < json_object_array_length(before); i++) {
		json_object *d = json_object_array_get_idx(before, i);

		/* a shrink: what is held now is what may hold it back (summary.pinned_bytes) */
		if (mhlJInt(d, MHL_K_NODE, -1) == st->node && (gint64)st->requested < mhlJInt(d, MHL_K_SIZE_BYTES, 0))
			mhlTrialHeldAtShrink(t);
	}
	if (st->resize)
		pausedRequest(t, st, lc);
	if (mhlGuestSleep(t->g, st->seconds) < 0 || !(paused = mhlTrialDevices(t, NULL)))
		return -1;
	json_object_object_add(lc, MHL_K_PLUGGED_PAUSED, paused);
	if (sameSizes(before, paused))
		return 0;
	mhlError("suspend: a virtio-mem device's plugged size moved while the guest was paused (before %s, at the end of the pause %s)",
		 json_object_to_json_string(before), json_object_to_json_string(paused));
	return -1;
}

static int suspendRun(mhlTrial *t, const mhlStep *st, json_object *before, json_object *lc)
{
	double t_pause, t_resume;

	if (virDomainSuspend(t->g->dom) < 0) {
		mhlErrorVirt("cannot suspend domain '%s' (virDomainSuspend)", t->g->name);
		json_object_object_add(lc, MHL_K_REFUSED, json_object_new_string(mhlErrorLast()));
		return -1;
	}
	t_pause = mhlNow();
	if (suspendPaused(t, st, before, lc) < 0) {
		virDomainResume(t->g->dom);	/* never left paused: the trial's end reads the guest */
		return -1;
	}
	if (virDomainResume(t->g->dom) < 0) {
		mhlErrorVirt("cannot resume domain '%s' after %.1f s paused (virDomainResume)", t->g->name,
			     mhlNow() - t_pause);
		return -1;
	}
	t_resume = mhlNow();
	json_object_object_add(lc, MHL_K_DOWN_S, json_object_new_double(t_resume - t_pause));
	return mhlLifecycleBack(t, lc, t_resume, st->deadline, MHL_K_CONVERGED_AFTER_S);
}

int mhlStepSuspend(mhlTrial *t, const mhlStep *st, json_object *res)
{
	double t0 = mhlNow();
	json_object *lc = mhlLifecycleBegin(t, st, res, NULL);
	int rc;

	if (!lc)
		return -1;
	rc = suspendRun(t, st, mhlJ(lc, MHL_K_PLUGGED_BEFORE), lc);
	if (st->resize)
		t->sum.requested_bytes = (gint64)st->requested;
	return mhlLifecycleEnd(lc, t0, rc);
}
