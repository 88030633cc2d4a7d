/*
 * step-resize.c - resize: set a node's virtio-mem <requested> and wait for
 * the plugged size to follow (guest/session.c does both). A resize that stops
 * short is a failure unless the step only measures (capacity sweeps) or a
 * later expect step says it stops short: then that step judges it.
 */
#include <glib.h>

#include "trial/steps.h"

#include "util.h"

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

int mhlStepResize(mhlTrial *t, const mhlStep *st, json_object *res)
{
	unsigned long long reached = 0;
	double secs = mhlGuestResize(t->g, st->node, st->requested, st->deadline, &reached);

	if (secs < -1)
		return -1;
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
