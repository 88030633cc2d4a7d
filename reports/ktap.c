/*
 * report-ktap.c - RUN_DIR/report/results.ktap: one result per trial, its
 * steps as a nested KTAP subtest, directives as the kernel's
 * Documentation/dev-tools/ktap.rst defines them (SKIP, TIMEOUT, ERROR).
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"
#include "util.h"

/* One line of KTAP text: no newline, and '#' only where we put it. */
static char *ktapText(const char *s, bool description)
{
	char *r = g_strdup(s ? s : "");
	char *p;

	for (p = r; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t' || (description && *p == '#'))
			*p = ' ';
	return g_strstrip(r);
}

static bool ktapTimedOut(const char *why)
{
	return why && (strstr(why, "timed out") || strstr(why, "deadline") || strstr(why, "timeout"));
}

/*
 * A step that ran a kselftest (exec with ktap: true, or selftest): its own
 * results as a subtest one level deeper, before the step's line (KTAP puts
 * a subtest's results above its own). Not when the step passed only
 * because it measured (a failed result under an "ok" parent is not KTAP):
 * then the counts as a diagnostic.
 */
static void ktapNested(GString *out, json_object *step, const char *desc)
{
	json_object *k = mhlJ(step, MHL_PATH(MHL_K_EXEC, MHL_K_KTAP)) ? mhlJ(step, MHL_PATH(MHL_K_EXEC, MHL_K_KTAP)) : mhlJ(step, MHL_K_SELFTEST);
	json_object *results = k ? mhlJArr(k, MHL_K_RESULTS) : NULL;
	size_t i, nr = results ? json_object_array_length(results) : 0;
	gint64 planned = k ? mhlJInt(k, MHL_K_PLANNED, -1) : -1;

	if (!nr)
		return;
	if (mhlJBool(step, MHL_K_OK, false) && mhlJInt(k, MHL_K_FAIL, 0) > 0) {
		g_string_append_printf(out, "  # %s: %" G_GINT64_FORMAT " passed, %" G_GINT64_FORMAT
				       " failed, %" G_GINT64_FORMAT " skipped (measured, not judged)\n", desc,
				       mhlJInt(k, MHL_K_PASS, 0), mhlJInt(k, MHL_K_FAIL, 0), mhlJInt(k, MHL_K_SKIP, 0));
		return;
	}
	g_string_append_printf(out, "    KTAP version 1\n    # Subtest: %s\n    1..%" G_GINT64_FORMAT "\n", desc,
			       planned >= 0 ? planned : (gint64)nr);
	for (i = 0; i < nr; i++) {
		json_object *r = json_object_array_get_idx(results, i);
		g_autofree char *raw = g_strstrip(g_strdup(mhlJStr(r, MHL_K_DESCRIPTION, "")));
		g_autofree char *d = ktapText(raw, true);
		g_autofree char *why = ktapText(mhlJStr(r, MHL_K_SKIP_REASON, ""), false);
		bool skip = mhlJBool(r, MHL_K_SKIP, false);

		g_string_append_printf(out, "    %sok %" G_GINT64_FORMAT "%s%s%s%s%s\n",
				       mhlJBool(r, MHL_K_OK, false) ? "" : "not ", mhlJInt(r, MHL_K_N, (gint64)i + 1),
				       *d ? " " : "", d, skip ? " # SKIP" : "", skip && *why ? " " : "", skip ? why : "");
	}
}

/*
 * Step @n of a trial; @xfail: the trial is an expected failure, so a step
 * that failed is "ok ... # XFAIL" as kselftest's ksft_test_result_xfail()
 * prints it (its parent says XFAIL too, and a parent that is "ok" has no
 * failed subtest).
 */
static void ktapStep(GString *out, int n, json_object *step, bool xfail)
{
	g_autofree char *name = mhlStepName(step);
	g_autofree char *desc = ktapText(name, true);
	g_autofree char *err = ktapText(mhlJStr(step, MHL_K_ERROR, NULL), false);
	/* an expect step under another pin_policy or kernel says "skipped" (record.h) */
	const char *skip = mhlJStr(step, MHL_K_SKIPPED, mhlJStr(step, MHL_PATH(MHL_K_WORKLOAD, MHL_K_SKIP), NULL));
	bool resizeStuck = !strcmp(mhlJStr(step, MHL_K_STEP, ""), "resize") &&
		!mhlJBool(step, MHL_K_CONVERGED, true);

	if (!skip && !xfail)
		ktapNested(out, step, desc);
	if (mhlStepLifecycle(step)) {	/* a lifecycle step (issue 34): its outcome and figures as diagnostics */
		g_autofree char *b = mhlLifecycleBrief(step, true), *f = mhlLifecycleFigures(step, true);
		g_autofree char *bl = ktapText(b, false), *fl = ktapText(f, false);

		g_string_append_printf(out, "  # %s: %s%s%s\n", desc, bl, *fl ? "; " : "", fl);
	}
	if (mhlStepElastic(step)) {	/* another path (issue 35): the same */
		g_autofree char *b = mhlElasticBrief(step, true), *f = mhlElasticFigures(step, true);
		g_autofree char *bl = ktapText(b, false), *fl = ktapText(f, false);

		g_string_append_printf(out, "  # %s: %s%s%s\n", desc, bl, *fl ? "; " : "", fl);
	}
	if (skip) {
		g_autofree char *why = ktapText(skip, false);

		g_string_append_printf(out, "  ok %d %s # SKIP %s\n", n, desc, why);
	} else if (mhlJBool(step, MHL_K_OK, false)) {
		g_string_append_printf(out, "  ok %d %s\n", n, desc);
	} else if (xfail) {
		g_string_append_printf(out, "  ok %d %s # XFAIL %s\n", n, desc, *err ? err : "failed as declared");
	} else if (strstr(err, "interrupted")) {
		g_string_append_printf(out, "  not ok %d %s # ERROR %s\n", n, desc, err);
	} else if (resizeStuck || ktapTimedOut(err)) {
		if (*err)
			g_string_append_printf(out, "  # %s\n", err);
		g_string_append_printf(out, "  not ok %d %s # TIMEOUT deadline %g s, reached %" G_GINT64_FORMAT
				       " MiB of %" G_GINT64_FORMAT " MiB\n", n, desc,
				       mhlJDbl(step, MHL_K_DEADLINE_S, 0), mhlJInt(step, MHL_K_REACHED_BYTES, 0) >> 20,
				       mhlJInt(step, MHL_K_REQUESTED_BYTES, 0) >> 20);
	} else {
		if (*err)
			g_string_append_printf(out, "  # %s\n", err);
		g_string_append_printf(out, "  not ok %d %s\n", n, desc);
	}
}

/*
 * Why the steps after the recorded ones did not run: "step 2 (resize)
 * failed", "... erred", "... was interrupted", "... failed as declared"
 * (xfail), or the trial's verdict when no step failed.
 */
static char *ktapNotRunWhy(json_object *rec, json_object *steps, size_t ns)
{
	json_object *last = ns ? json_object_array_get_idx(steps, ns - 1) : NULL;
	mhlVerdict v = mhlVerdictOf(rec);
	const char *how = v == MHL_VERDICT_ERROR ? "erred" : v == MHL_VERDICT_INTERRUPTED ? "was interrupted" :
		v == MHL_VERDICT_XFAIL ? "failed as declared" : "failed";

	if (last && !mhlJBool(last, MHL_K_OK, false))
		return g_strdup_printf("not run: step %zu (%s) %s", ns, mhlJStr(last, MHL_K_STEP, "step"), how);
	return g_strdup_printf("not run: the trial ended %s step %zu (%s)", ns ? "after" : "before", ns ? ns : 1,
			       v < MHL_VERDICT_LAST ? mhlVerdictNames[v] : "no verdict");
}

static void ktapTrial(GString *out, int n, json_object *rec, mhlPlannedStepsFn planned)
{
	g_autofree char *desc = ktapText(mhlJStr(rec, MHL_K_TRIAL, ""), true);
	g_autofree char *reason = ktapText(mhlJStr(rec, MHL_K_REASON, NULL), false);
	g_autofree char *outcome = mhlTrialOutcome(rec);
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i, ns = mhlJLen(rec, MHL_K_STEPS);
	mhlVerdict v = mhlVerdictOf(rec);
	/* a trial that stopped early: the scenario's steps it never reached, SKIP with why */
	g_autoptr(GPtrArray) notrun = v != MHL_VERDICT_PASS && v != MHL_VERDICT_SKIP && v != MHL_VERDICT_LOST &&
		v != MHL_VERDICT_XPASS ? mhlTrialStepsNotRun(rec, planned) : NULL;
	size_t nn = notrun ? notrun->len : 0;

	if (ns + nn) {
		g_string_append_printf(out, "  KTAP version 1\n  # Subtest: %s\n  1..%zu\n", desc, ns + nn);
		for (i = 0; i < ns; i++)
			ktapStep(out, (int)i + 1, json_object_array_get_idx(steps, i),
				 mhlVerdictOf(rec) == MHL_VERDICT_XFAIL);
	}
	if (nn) {
		g_autofree char *raw = ktapNotRunWhy(rec, steps, ns), *why = ktapText(raw, false);

		for (i = 0; i < nn; i++) {
			g_autofree char *step = ktapText(notrun->pdata[i], true);

			g_string_append_printf(out, "  ok %zu %s # SKIP %s\n", ns + i + 1, step, why);
		}
	}
	g_string_append_printf(out, "# %s: %s\n", desc, outcome);
	switch (mhlVerdictOf(rec)) {
	case MHL_VERDICT_PASS:
		g_string_append_printf(out, "ok %d %s\n", n, desc);
		break;
	case MHL_VERDICT_FAIL:
		if (ktapTimedOut(reason)) {
			g_string_append_printf(out, "not ok %d %s # TIMEOUT %s\n", n, desc, reason);
			break;
		}
		g_string_append_printf(out, "# %s\nnot ok %d %s\n", reason, n, desc);
		break;
	case MHL_VERDICT_ERROR:
		g_string_append_printf(out, "not ok %d %s # ERROR %s\n", n, desc, reason);
		break;
	case MHL_VERDICT_SKIP:	/* Documentation/dev-tools/ktap.rst: ok with a SKIP directive */
		g_string_append_printf(out, "ok %d %s # SKIP %s\n", n, desc, reason);
		break;
	case MHL_VERDICT_XFAIL:
		g_string_append_printf(out, "ok %d %s # XFAIL %s\n", n, desc, reason);
		break;
	case MHL_VERDICT_XPASS:	/* a known deviation that did not happen: the run fails */
		g_string_append_printf(out, "not ok %d %s # XPASS %s\n", n, desc, reason);
		break;
	case MHL_VERDICT_LOST:
		g_string_append_printf(out, "not ok %d %s # ERROR lost: %s\n", n, desc, reason);
		break;
	case MHL_VERDICT_INTERRUPTED:
	case MHL_VERDICT_LAST:
		g_string_append_printf(out, "not ok %d %s # ERROR interrupted: %s\n", n, desc, reason);
		break;
	}
}

int mhlReportKtap(const mhlRun *run, const mhlReportOpts *opts, const char *outdir)
{
	g_autoptr(GString) out = g_string_new("KTAP version 1\n");
	g_autofree char *name = g_path_get_basename(run->dir);
	g_autofree char *dash = mhlRunDashboard(run), *dline = ktapText(dash, false);
	guint i, n = 0;

	g_string_append_printf(out, "# memhp-lab run %s: %u trial record(s), %u unreadable line(s)\n",
			       name, run->trials->len, run->bad->len);
	g_string_append_printf(out, "# %s\n", dline);	/* the dashboard line (dashboard.c) */
	g_string_append_printf(out, "1..%u\n", run->trials->len + run->bad->len);
	for (i = 0; i < run->trials->len; i++)
		ktapTrial(out, ++n, run->trials->pdata[i], opts->planned);
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];
		g_autofree char *why = ktapText(b->why, false);

		g_string_append_printf(out, "not ok %u trials.jsonl line %d # ERROR %s\n", ++n, b->line, why);
	}
	return mhlReportFileWrite(opts->outfd, outdir, mhlReportFormats[MHL_REPORT_KTAP].file, out->str, out->len);
}
