/* cmd-check.c - `memhp-lab check SCENARIO`: validate a scenario without booting. */
#include <glib.h>

#include "cli/cli.h"

#include <stdio.h>

#include "scenario/scenario.h"

const mhlOpt mhlCmdCheckOpts[] = {
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdCheck(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	mhlScenario *s;
	int first, n, rc = mhlCmdStart("check", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if ((n = mhlScenarioLoadAll(argv[first], all)) < 0)
		return MHL_EXIT_USAGE;
	s = all->pdata[0];
	printf("%s: ok: scenario '%s', kernel %s, %d node(s), %d step(s)", argv[first],
	       s->scenario_name, s->kernel, s->nnodes, s->nsteps);
	if (n > 1 || s->nparams)
		printf(", %d trial(s) from its matrix", n);
	printf("\n");
	if (n > 1 || s->nparams) {
		guint i;

		for (i = 0; i < all->len; i++)
			printf("  %s\n", ((mhlScenario *)all->pdata[i])->name);
	}
	return MHL_EXIT_PASS;
}
