/*
 * not-run.c - the steps of a trial that did not run: those its scenario has
 * after the last one its record holds (a step failed, the trial erred or was
 * interrupted). The record lists only the steps that ran; the scenario file
 * it names says what came after, when that file is still the one the trial
 * ran: a regular .yaml file whose steps up to there are the recorded ones,
 * kind and line each. Anything else (a record from elsewhere, a scenario
 * edited since) lists nothing: the reports never guess. The scenario is read
 * by the caller's @planned (record/planned.h), not here: reports/ reads only
 * record/.
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"

GPtrArray *mhlTrialStepsNotRun(json_object *rec, mhlPlannedStepsFn planned)
{
	const char *path = mhlJStr(rec, MHL_K_SCENARIO, NULL), *id = mhlJStr(rec, MHL_K_TRIAL, "");
	g_autoptr(GPtrArray) plan = planned && path ? planned(path, id) : NULL;
	GPtrArray *names;
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i, ran = steps ? json_object_array_length(steps) : 0;

	if (!plan || ran >= plan->len)
		return NULL;
	for (i = 0; i < ran; i++) {
		json_object *st = json_object_array_get_idx(steps, i);
		const mhlPlannedStep *ps = plan->pdata[i];

		if (strcmp(mhlJStr(st, MHL_K_STEP, ""), ps->kind) || mhlJInt(st, MHL_K_LINE, -1) != ps->line)
			return NULL;	/* not the file the trial ran */
	}
	names = g_ptr_array_new_with_free_func(g_free);
	for (i = ran; i < plan->len; i++)
		g_ptr_array_add(names, g_strdup(((mhlPlannedStep *)plan->pdata[i])->name));
	return names;
}
