/* cmd-check.c - `memhp-lab check SCENARIO...`: validate scenarios without booting. */
#include <glib.h>

#include "cli/cli.h"

#include <stdio.h>

#include "scenario/scenario.h"
#include "util.h"

const mhlOpt mhlCmdCheckOpts[] = {
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

/* One file: its line, and the trials of its matrix. 0, or -1 with the error printed. */
static int checkOne(const char *path)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	mhlScenario *s;
	int n;

	if ((n = mhlScenarioLoadAll(path, all)) < 0) {
		fprintf(stderr, "error: %s\n", mhlErrorLast());
		mhlErrorReset();
		return -1;
	}
	s = all->pdata[0];
	printf("%s: ok: scenario '%s', kernel %s, %d node(s), %d step(s)", path,
	       s->scenario_name, s->kernel, s->nnodes, s->nsteps);
	if (n > 1 || s->nparams)
		printf(", %d trial(s) from its matrix", n);
	printf("\n");
	if (n > 1 || s->nparams) {
		guint i;

		for (i = 0; i < all->len; i++)
			printf("  %s\n", ((mhlScenario *)all->pdata[i])->name);
	}
	return 0;
}

int mhlCmdCheck(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	int first, i, bad = 0, rc = mhlCmdStart("check", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	/* every file, each with its own verdict (check scenarios/NAME.yaml ...) */
	for (i = first; i < argc; i++)
		bad += checkOne(argv[i]) < 0;
	if (bad && argc - first > 1)
		fprintf(stderr, "check: %d of %d scenario file(s) refused\n", bad, argc - first);
	return bad ? MHL_EXIT_USAGE : MHL_EXIT_PASS;
}
