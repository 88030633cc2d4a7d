/*
 * tests/fuzz/scenario.c - the scenario loader (scenario/scenario.h):
 * mhlScenarioLoadAll on the input as a YAML file. Seeds: scenarios/ and
 * tests/fuzz/corpus/scenario/ (the unit tests' refused scenarios).
 */
#include "fuzz/fuzz.h"

#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzzWriteFile("scenario.yaml", data, size);
	GPtrArray *all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	int n, i, j;

	mhlErrorReset();
	n = mhlScenarioLoadAll(path, all);
	/* "Returns the count, or -1 + mhlError naming file:line:column." */
	if (n < 0) {
		fuzzAssert(n == -1, "returned %d", n);
		fuzzAssert(fuzzErrorTake(), "-1 without an mhlError");
	} else {
		fuzzAssert(n > 0 && (guint)n == all->len, "returned %d for %u trials", n, all->len);
		fuzzAssert(!fuzzErrorTake(), "%d trials, yet an error: %s", n, mhlErrorLast());
	}
	for (i = 0; n > 0 && i < n; i++) {
		mhlScenario *s = all->pdata[i];

		fuzzAssert(s->name && s->scenario_name && s->kernel && s->pin_policy && s->cmdline,
			   "trial %d has a NULL name, kernel, pin_policy or cmdline", i);
		fuzzAssert(s->nnodes >= 0 && s->nnodes <= MHL_MAX_NODES, "nnodes %d", s->nnodes);
		fuzzAssert(s->nsteps >= 0 && s->nsteps <= MHL_MAX_STEPS, "nsteps %d", s->nsteps);
		fuzzAssert(s->nparams >= 0 && s->nparams <= MHL_MAX_AXES, "nparams %d", s->nparams);
		for (j = 0; j < s->nsteps; j++) {
			fuzzAssert(s->steps[j].type < MHL_STEP_LAST, "step %d type %d", j, s->steps[j].type);
			(void)mhlExpectApplies(s, &s->steps[j]);
		}
		/* What --kernel/--pin-policy do to a loaded trial. */
		if (mhlScenarioOverride(s, "6.1", "baseline") < 0)
			fuzzErrorTake();
	}
	g_ptr_array_unref(all);
	mhlErrorReset();
	return 0;
}
