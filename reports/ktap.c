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

static void ktapStep(GString *out, int n, json_object *step)
{
	g_autofree char *name = mhlStepName(step);
	g_autofree char *desc = ktapText(name, true);
	g_autofree char *err = ktapText(mhlJStr(step, MHL_K_ERROR, NULL), false);
	/* an expect step under another pin_policy or kernel says "skipped" (record.h) */
	const char *skip = mhlJStr(step, MHL_K_SKIPPED, mhlJStr(step, "workload.skip", NULL));
	bool resizeStuck = !strcmp(mhlJStr(step, MHL_K_STEP, ""), "resize") &&
		!mhlJBool(step, MHL_K_CONVERGED, true);

	if (skip) {
		g_autofree char *why = ktapText(skip, false);

		g_string_append_printf(out, "  ok %d %s # SKIP %s\n", n, desc, why);
	} else if (mhlJBool(step, MHL_K_OK, false)) {
		g_string_append_printf(out, "  ok %d %s\n", n, desc);
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

static void ktapTrial(GString *out, int n, json_object *rec)
{
	g_autofree char *desc = ktapText(mhlJStr(rec, MHL_K_TRIAL, ""), true);
	g_autofree char *reason = ktapText(mhlJStr(rec, MHL_K_REASON, NULL), false);
	g_autofree char *outcome = mhlTrialOutcome(rec);
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i, ns = mhlJLen(rec, MHL_K_STEPS);

	if (ns) {
		g_string_append_printf(out, "  KTAP version 1\n  # Subtest: %s\n  1..%zu\n", desc, ns);
		for (i = 0; i < ns; i++)
			ktapStep(out, (int)i + 1, json_object_array_get_idx(steps, i));
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
	guint i, n = 0;

	(void)opts;
	g_string_append_printf(out, "# memhp-lab run %s: %u trial record(s), %u unreadable line(s)\n",
			       name, run->trials->len, run->bad->len);
	g_string_append_printf(out, "1..%u\n", run->trials->len + run->bad->len);
	for (i = 0; i < run->trials->len; i++)
		ktapTrial(out, ++n, run->trials->pdata[i]);
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];
		g_autofree char *why = ktapText(b->why, false);

		g_string_append_printf(out, "not ok %u trials.jsonl line %d # ERROR %s\n", ++n, b->line, why);
	}
	return mhlReportFileWrite(outdir, mhlReportFormatFiles[MHL_REPORT_KTAP], out->str, out->len);
}
