/*
 * exit.c - a run's exit status from its trials' verdicts (lib/mhl-exit.h):
 * 0 when the run may pass, 1 when the kernel under test failed a trial, 3
 * when the lab or the host could not carry one out, 5 when trials were
 * interrupted or not run, 4 (KSFT_SKIP) when every trial was skipped: an
 * all-skip run is not green, and says so. When several apply, the first of
 * 1, 5, 3 wins: a kernel failure is what a gate must page for, whatever else
 * went wrong in the same run.
 */
#include <glib.h>

#include "mhl-exit.h"
#include "reports/report.h"

/* Of two statuses, the one a gate must act on first. */
static int worse(int a, int b)
{
	static const int order[] = { MHL_EXIT_FAILED, MHL_EXIT_INTERRUPTED, MHL_EXIT_HARNESS, MHL_EXIT_PASS };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(order); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return MHL_EXIT_PASS;
}

int mhlExitStatusOfTrial(mhlVerdict v, bool guest_error)
{
	switch (v) {
	case MHL_VERDICT_PASS:
	case MHL_VERDICT_XFAIL:
		return MHL_EXIT_PASS;
	case MHL_VERDICT_SKIP:
		return MHL_EXIT_SKIP;
	case MHL_VERDICT_FAIL:
	case MHL_VERDICT_XPASS:
		return MHL_EXIT_FAILED;
	case MHL_VERDICT_ERROR:
		return guest_error ? MHL_EXIT_FAILED : MHL_EXIT_HARNESS;
	case MHL_VERDICT_INTERRUPTED:
		return MHL_EXIT_INTERRUPTED;
	case MHL_VERDICT_LOST:
	default:
		return MHL_EXIT_HARNESS;	/* killed before its record, or no record at all */
	}
}

int mhlExitStatusAdd(int rc, bool first, mhlVerdict v, bool guest_error)
{
	int t = mhlExitStatusOfTrial(v, guest_error);

	if (first)
		return t;
	if (t == MHL_EXIT_SKIP)
		return rc;	/* a skip leaves what came before: all-skip stays 4, a pass stays 0 */
	if (rc == MHL_EXIT_SKIP)
		return t;
	return worse(rc, t);
}

int mhlExitStatusOf(const mhlVerdict *v, const bool *guest_error, size_t n)
{
	int rc = MHL_EXIT_PASS;
	size_t i;

	for (i = 0; i < n; i++)
		rc = mhlExitStatusAdd(rc, i == 0, v[i], guest_error && guest_error[i]);
	return rc;
}
