/*
 * not-run.c - the steps of a trial that did not run: those its scenario has
 * after the last one its record holds (a step failed, the trial erred or was
 * interrupted). The record lists only the steps that ran; the scenario file
 * it names says what came after, when that file is still the one the trial
 * ran: a regular .yaml file whose steps up to there are the recorded ones,
 * kind and line each. Anything else (a record from elsewhere, a scenario
 * edited since) lists nothing: the reports never guess.
 */
#include <glib.h>

#include <string.h>
#include <unistd.h>

#include "reports/report.h"
#include "scenario/scenario.h"
#include "util.h"

/* "check pin0": as mhlStepName names a recorded step. */
static char *scenarioStepName(const mhlStep *st)
{
	const char *id = st->id;

	if (!*id && st->type == MHL_STEP_EXEC && st->argc > 0)
		id = strrchr(st->argv, '/') ? strrchr(st->argv, '/') + 1 : st->argv;
	if (!*id && st->type == MHL_STEP_SELFTEST)
		id = st->name;
	return g_strdup_printf("%s%s%s", mhlStepTypeNames[st->type], *id ? " " : "", id);
}

GPtrArray *mhlTrialStepsNotRun(json_object *rec)
{
	const char *path = mhlJStr(rec, MHL_K_SCENARIO, NULL), *id = mhlJStr(rec, MHL_K_TRIAL, "");
	g_autoptr(GPtrArray) trials = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	GPtrArray *names;
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i, ran = steps ? json_object_array_length(steps) : 0;
	const mhlScenario *s = NULL;
	int fd;

	if (!path || !(g_str_has_suffix(path, ".yaml") || g_str_has_suffix(path, ".yml")))
		return NULL;
	/* a FIFO or a device named there is never opened for the loader to wait on */
	if ((fd = mhlFileOpenRegular(path)) < 0)
		return NULL;
	close(fd);
	if (mhlScenarioLoadAll(path, trials) <= 0) {
		mhlErrorReset();
		return NULL;
	}
	for (i = 0; i < trials->len && !s; i++)
		if (!strcmp(((mhlScenario *)trials->pdata[i])->name, id))
			s = trials->pdata[i];
	if (!s)	/* a trial of this file under another id (--only, an edited record): the steps are the same */
		s = trials->pdata[0];
	if (ran >= (size_t)s->nsteps)
		return NULL;
	for (i = 0; i < ran; i++) {
		json_object *st = json_object_array_get_idx(steps, i);

		if (strcmp(mhlJStr(st, MHL_K_STEP, ""), mhlStepTypeNames[s->steps[i].type]) ||
		    mhlJInt(st, MHL_K_LINE, -1) != s->steps[i].line)
			return NULL;	/* not the file the trial ran */
	}
	names = g_ptr_array_new_with_free_func(g_free);
	for (i = ran; i < (size_t)s->nsteps; i++)
		g_ptr_array_add(names, scenarioStepName(&s->steps[i]));
	return names;
}
