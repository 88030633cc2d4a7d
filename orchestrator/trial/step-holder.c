/*
 * step-holder.c - check, io and release: ask the holder of a pin (memhp-pin
 * ctl ID VERB in the guest) to compare its buffer with the pattern written
 * before the pin (io: after moving data through the pin's own path), or to
 * release the pin. The data must be intact.
 */
#include <glib.h>

#include "trial/steps.h"

#include "guest/agent.h"
#include "util.h"

/* What of the holder's JSON this step, the expect checks and the soak read, and as what. */
static const mhlAgentField holderFields[] = {
	{ MHL_PIN_K_OK, json_type_boolean, true },
	{ MHL_PIN_K_PATTERN_OK, json_type_boolean, false },
	{ MHL_PIN_K_PAGES_MOVED_SINCE_PIN, json_type_int, false },
	{ MHL_PIN_K_RELEASED, json_type_boolean, false },
	MHL_AGENT_CENSUS(MHL_PIN_K_CENSUS),
};

int mhlStepHolder(mhlTrial *t, const mhlStep *st, json_object *res)
{
	bool release = st->type == MHL_STEP_RELEASE;
	const char *verb = release ? "release" : "check";
	const char *argv[] = { "/bin/memhp-pin", "ctl", st->id, verb, NULL };
	g_autofree char *who = g_strdup_printf("%s of '%s'", verb, st->id);
	int exitcode = -1;
	json_object *out = mhlAgentExecJSON(t->g->dom, argv, 120, &exitcode), *v;

	if (!out)
		return -1;
	json_object_object_add(res, MHL_K_WORKLOAD, out);
	if (mhlAgentJSONCheck(out, holderFields, G_N_ELEMENTS(holderFields), who) < 0)
		return -1;
	if (release)
		mhlTrialHeld(t, st->id, 0);
	if (json_object_object_get_ex(out, MHL_PIN_K_PATTERN_OK, &v)) {
		mhlTri ok = json_object_get_boolean(v) ? MHL_TRI_TRUE : MHL_TRI_FALSE;

		if (release)
			t->sum.pattern_ok_at_release = ok;
		else
			t->sum.pattern_ok_after_resize = ok;
	}
	if (!json_object_object_get_ex(out, MHL_PIN_K_OK, &v) || !json_object_get_boolean(v)) {
		g_autofree char *q = mhlTextClean(json_object_to_json_string(out), -1, 300, false);

		mhlError("%s: the workload reports a problem: %s", who, q);
		return -1;
	}
	return 0;
}
