/*
 * planned.c - the steps a scenario file plans for a trial, for the reports'
 * list of steps a trial did not run (record/planned.h). Only a regular .yaml
 * file is read: a FIFO or a device named in a record is never opened for the
 * loader to wait on.
 */
#include <glib.h>

#include <string.h>
#include <unistd.h>

#include "record/planned.h"
#include "scenario/scenario.h"
#include "util.h"

static void plannedStepFree(gpointer p)
{
	mhlPlannedStep *ps = p;

	g_free(ps->kind);
	g_free(ps->name);
	g_free(ps);
}

/* "check pin0": as mhlStepName names a recorded step. */
static char *plannedStepName(const mhlStep *st)
{
	const char *id = st->id;

	if (!*id && st->type == MHL_STEP_EXEC && st->argc > 0)
		id = strrchr(st->argv, '/') ? strrchr(st->argv, '/') + 1 : st->argv;
	if (!*id && st->type == MHL_STEP_SELFTEST)
		id = st->name;
	return g_strdup_printf("%s%s%s", mhlStepTypeNames[st->type], *id ? " " : "", id);
}

GPtrArray *mhlScenarioPlannedSteps(const char *path, const char *trial)
{
	g_autoptr(GPtrArray) trials = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	const mhlScenario *s = NULL;
	GPtrArray *steps;
	int fd, i;

	if (!path || !(g_str_has_suffix(path, ".yaml") || g_str_has_suffix(path, ".yml")))
		return NULL;
	if ((fd = mhlFileOpenRegular(path)) < 0)
		return NULL;
	close(fd);
	if (mhlScenarioLoadAll(path, trials) <= 0) {
		mhlErrorReset();
		return NULL;
	}
	for (i = 0; i < (int)trials->len && !s; i++)
		if (!strcmp(((mhlScenario *)trials->pdata[i])->name, trial))
			s = trials->pdata[i];
	if (!s)	/* a trial of this file under another id (--only, an edited record): the steps are the same */
		s = trials->pdata[0];
	steps = g_ptr_array_new_with_free_func(plannedStepFree);
	for (i = 0; i < s->nsteps; i++) {
		mhlPlannedStep *ps = g_new0(mhlPlannedStep, 1);

		ps->kind = g_strdup(mhlStepTypeNames[s->steps[i].type]);
		ps->line = s->steps[i].line;
		ps->name = plannedStepName(&s->steps[i]);
		g_ptr_array_add(steps, ps);
	}
	return steps;
}
