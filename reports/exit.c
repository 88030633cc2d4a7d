/*
 * exit.c - a run's exit status from its trials' verdicts, as kselftest
 * users expect it (lib/mhl-exit.h): 0 when the run may pass, 1 when some
 * trial failed it, 4 (KSFT_SKIP) when every trial was skipped: an all-skip
 * run is not green, and says so.
 */
#include <glib.h>

#include "mhl-exit.h"
#include "reports/report.h"

int mhlExitStatusAdd(int rc, bool first, mhlVerdict v)
{
	if (v >= MHL_VERDICT_LAST || !mhlVerdictOk(v) || (!first && rc == MHL_EXIT_FAILED))
		return MHL_EXIT_FAILED;
	if (v == MHL_VERDICT_SKIP)
		return first || rc == MHL_EXIT_SKIP ? MHL_EXIT_SKIP : rc;
	return MHL_EXIT_PASS;
}

int mhlExitStatusOf(const mhlVerdict *v, size_t n)
{
	int rc = MHL_EXIT_PASS;
	size_t i;

	for (i = 0; i < n; i++)
		rc = mhlExitStatusAdd(rc, i == 0, v[i]);
	return rc;
}
