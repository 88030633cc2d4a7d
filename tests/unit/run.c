/* tests/unit/run.c - `memhp-lab run` (orchestrator/cli/run.h): the default -j from the host's fit. */
#include <glib.h>

#include "cli/run.h"
#include "unit.h"

static bool jobsDefault(void)
{
	mhlHostFit fit = { .need_bytes = 2ULL << 30, .avail_bytes = 20ULL << 30, .cores = 2 };
	mhlHostFit tight = { .need_bytes = 2ULL << 30, .avail_bytes = 5ULL << 30, .cores = 16 };
	mhlHostFit none = { .need_bytes = 2ULL << 30, .avail_bytes = 1ULL << 30, .cores = 2 };
	int a = mhlJobsDefault(&fit), b = mhlJobsDefault(&tight), c = mhlJobsDefault(&none);

	if (a != 2 || b != 2 || c != 0)
		unitDiag("got %d, %d, %d", a, b, c);
	return unitExpect(a == 2 && b == 2 && c == 0);
}

static const unitCase cases[] = {
	{ "-j default: min(cores, guests that fit in MemAvailable): 2, 2, 0", jobsDefault },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitRun = UNIT_MODULE("run", NULL, NULL, tables);
