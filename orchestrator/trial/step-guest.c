/*
 * step-guest.c - the step kinds that act on the guest as a whole: bench
 * (gup_test's long-term pin benchmark), sysrq, wait and snapshot.
 */
#include <glib.h>

#include "trial/steps.h"

#include <stdio.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "util.h"

static const mhlAgentField benchFields[] = {
	{ MHL_PIN_K_OK, json_type_boolean, true },
};

int mhlStepBench(mhlTrial *t, const mhlStep *st, json_object *res)
{
	char size[32], node[16], repeat[16];
	const char *argv[] = { "/bin/memhp-pin", "bench", "--size", size, "--node", node,
			       "--repeat", repeat, st->fresh ? "--fresh" : NULL, NULL };
	json_object *out, *ok;
	int exitcode = -1;

	snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, st->size);
	snprintf(node, sizeof(node), "%d", st->node);
	snprintf(repeat, sizeof(repeat), "%d", st->repeat);
	if (!(out = mhlAgentExecJSON(t->g->dom, argv, 600, &exitcode)))
		return -1;
	json_object_object_add(res, MHL_K_WORKLOAD, out);
	if (mhlAgentJSONCheck(out, benchFields, G_N_ELEMENTS(benchFields), "bench") < 0)
		return -1;
	if (!json_object_object_get_ex(out, MHL_PIN_K_OK, &ok) || !json_object_get_boolean(ok)) {
		g_autofree char *q = mhlTextClean(json_object_to_json_string(out), -1, 300, false);

		mhlError("bench of %" G_GUINT64_FORMAT " bytes on node %d failed: %s", st->size, st->node, q);
		return -1;
	}
	return 0;
}

int mhlStepSysrq(mhlTrial *t, const mhlStep *st, json_object *res)
{
	g_autofree char *cmd = g_strdup_printf("echo %c > /proc/sysrq-trigger", st->key);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	mhlExecStatus es = { 0 };
	int rc = mhlAgentExec(t->g->dom, argv, 30, &es);

	if (rc < 0 && st->key == 'c') {
		/* a crash, as asked: the agent's connection ends with the guest; the console has the panic */
		g_autofree char *why = g_strdup(mhlErrorLast());

		mhlErrorReset();
		json_object_object_add(res, MHL_K_CRASHED, json_object_new_boolean(true));
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string(why));
		mhlExecStatusClear(&es);
		return 0;
	}
	if (rc == 0 && (!es.exited || es.exitcode != 0)) {
		g_autofree char *err = mhlTextClean(es.err, -1, 200, false);

		mhlError("sysrq '%c': '%s' exited %d: %s", st->key, cmd, es.exitcode, err);
	}
	rc = rc == 0 && es.exited && es.exitcode == 0 ? 0 : -1;
	mhlExecStatusClear(&es);
	return rc;
}

/* wait: {seconds: S} sleeps with the console watcher on; {until: converged} polls the devices. */
int mhlStepWait(mhlTrial *t, const mhlStep *st, json_object *res)
{
	double secs;

	if (st->until != MHL_UNTIL_CONVERGED)
		return mhlGuestSleep(t->g, st->seconds);
	if ((secs = mhlGuestWaitConverged(t->g, t->s, st->seconds)) < 0)
		return -1;
	json_object_object_add(res, MHL_K_CONVERGED_AFTER_S, json_object_new_double(secs));
	return 0;
}

int mhlStepSnapshot(mhlTrial *t, const mhlStep *st, json_object *res)
{
	json_object *snap = mhlGuestSnapshot(t->g->dom);

	(void)st;
	if (!snap)
		return -1;
	json_object_object_add(res, MHL_K_GUEST, snap);
	return 0;
}
