/*
 * steps.c - the table of step kinds. A new kind is one enum value and name
 * in scenario/ (with its keys), one row here and one function in a file of
 * its own (docs/architecture.md).
 */
#include <glib.h>

#include "trial/steps.h"

#include <string.h>

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

void mhlTrialHeldAtShrink(mhlTrial *t)
{
	/* the last shrink's: what held the unplug back, or did not (a trial with no pin has none) */
	if (!t->nheld)
		return;
	t->sum.pinned_bytes = heldTotal(t);
	t->shrunk = true;
}
