/*
 * report-junit.c - RUN_DIR/report/junit.xml with libxml2's xmlTextWriter:
 * a testsuite per scenario, a testcase per trial (classname memhp.<scenario>),
 * failure/error bodies with the reason and the console excerpt. The shape
 * GitLab and Jenkins read (testsuites > testsuite > testcase).
 */
#include <glib.h>

#include <libxml/xmlwriter.h>
#include <string.h>

#include "reports/report.h"
#include "util.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlTextWriter, xmlFreeTextWriter)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlBuffer, xmlBufferFree)

typedef struct {
	int tests, failures, errors, skipped;
	double time;
} junitCount;

static void junitCountAdd(junitCount *c, json_object *rec)
{
	mhlVerdict v = mhlVerdictOf(rec);

	c->tests++;
	c->failures += v == MHL_VERDICT_FAIL || v == MHL_VERDICT_XPASS;
	c->skipped += v == MHL_VERDICT_SKIP || v == MHL_VERDICT_XFAIL;
	c->errors += v == MHL_VERDICT_ERROR || v == MHL_VERDICT_INTERRUPTED || v == MHL_VERDICT_LOST;
	c->time += mhlJDbl(rec, MHL_K_SECONDS, 0);
}

/* The counters as attributes; a failed write shows up in xmlTextWriterEndDocument. */
static void junitCountAttrs(xmlTextWriterPtr w, const junitCount *c)
{
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "tests", "%d", c->tests);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "failures", "%d", c->failures);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "errors", "%d", c->errors);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "skipped", "%d", c->skipped);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "time", "%.3f", c->time);
}

/*
 * The memhp-lab (git describe) that ran the suite's trials, a property
 * memhp.harness_version; "a, b" when runs were merged from several; none
 * when the records predate the field.
 */
static void junitVersion(xmlTextWriterPtr w, const mhlRun *run, const char *scenario)
{
	g_autoptr(GString) v = g_string_new(NULL);
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		g_autofree char *scn = mhlTrialScenarioName(rec);
		const char *hv = mhlJStr(rec, MHL_K_HARNESS_VERSION, NULL);
		g_autofree char *item = hv ? g_strdup_printf(", %s,", hv) : NULL;
		g_autofree char *have = g_strdup_printf(", %s,", v->str);

		if (!hv || strcmp(scn, scenario) || strstr(have, item))
			continue;
		g_string_append_printf(v, "%s%s", v->len ? ", " : "", hv);
	}
	if (!v->len)
		return;
	xmlTextWriterStartElement(w, BAD_CAST "property");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "memhp.harness_version");
	xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST v->str);
	xmlTextWriterEndElement(w);
}

/* The host side over the trial's shrinks (summary.host_*), one line of system-out; none without it. */
static void junitHost(GString *out, json_object *rec)
{
	mhlSummary m;

	mhlSummaryRead(rec, &m);
	if (m.host_reclaimed_bytes < 0)
		return;
	g_string_append_printf(out, "host: %" G_GINT64_FORMAT " MiB back", m.host_reclaimed_bytes >> 20);
	if (m.host_shrinks > 1)
		g_string_append_printf(out, " over %" G_GINT64_FORMAT " shrinks", m.host_shrinks);
	if (m.host_reclaimed_of_reclaimable >= 0)
		g_string_append_printf(out, ", %.0f %% of what had to come back", m.host_reclaimed_of_reclaimable * 100);
	if (m.host_settle_s >= 0)
		g_string_append_printf(out, ", settled %.2f s after the request%s", m.host_settle_s,
				       m.host_shrinks > 1 ? " (the longest)" : "");
	g_string_append_c(out, '\n');
}

/* A lifecycle step (issue 34): its outcome and figures, one line below the step's. */
static void junitLifecycle(GString *out, json_object *step)
{
	g_autofree char *b = mhlLifecycleBrief(step, false), *f = mhlLifecycleFigures(step, false);

	if (b)
		g_string_append_printf(out, "  lifecycle: %s%s%s\n", b, f && *f ? "; " : "", f ? f : "");
}

/* A step of the other paths (issue 35): its outcome and figures, one line below the step's. */
static void junitElastic(GString *out, json_object *step)
{
	g_autofree char *b = mhlElasticBrief(step, false), *f = mhlElasticFigures(step, false);

	if (b)
		g_string_append_printf(out, "  elastic: %s%s%s\n", b, f && *f ? "; " : "", f ? f : "");
}

static void junitCase(xmlTextWriterPtr w, const mhlRun *run, const mhlReportOpts *opts, json_object *rec,
		      const char *classname)
{
	mhlVerdict v = mhlVerdictOf(rec);
	g_autofree char *outcome = mhlTrialOutcome(rec);
	g_autofree char *excerpt = mhlTrialConsoleExcerpt(run, rec, 3);
	g_autofree char *log = mhlTrialConsolePath(run, rec);
	g_autoptr(GString) out = g_string_new(NULL);
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	const char *reason = mhlJStr(rec, MHL_K_REASON, "");
	size_t i;
	/* where the report's readers find the log: under --artifact-url, else its path here */
	g_autofree char *logurl = log && opts && opts->artifact_url ? mhlArtifactUrl(opts, run, log) : NULL;
	const char *logname = logurl ? logurl : log;

	xmlTextWriterStartElement(w, BAD_CAST "testcase");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST mhlJStr(rec, MHL_K_TRIAL, ""));
	xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST classname);
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "time", "%.3f", mhlJDbl(rec, MHL_K_SECONDS, 0));
	if (v != MHL_VERDICT_PASS) {
		g_autofree char *body = g_strdup_printf("%s\n%s\n%s%s%s%s", reason, outcome,
							excerpt ? "console excerpt:\n" : "", excerpt ? excerpt : "",
							log ? "console log: " : "", log ? logname : "");

		/* JUnit has <skipped message=...>: a skip, and an expected failure (its reason said) */
		bool skipped = v == MHL_VERDICT_SKIP || v == MHL_VERDICT_XFAIL;

		xmlTextWriterStartElement(w, BAD_CAST(skipped ? "skipped" :
						      v == MHL_VERDICT_FAIL || v == MHL_VERDICT_XPASS ? "failure" : "error"));
		xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST reason);
		xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST mhlJStr(rec, MHL_K_VERDICT, ""));
		xmlTextWriterWriteString(w, BAD_CAST body);
		xmlTextWriterEndElement(w);
	}
	g_string_append_printf(out, "%s\n", outcome);
	junitHost(out, rec);
	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		g_autofree char *name = mhlStepName(s);

		if (mhlJStr(s, MHL_K_SKIPPED, NULL)) {
			g_string_append_printf(out, "step %zu (scenario line %" G_GINT64_FORMAT "): %s: skipped (%s)\n",
					       i + 1, mhlJInt(s, MHL_K_LINE, 0), name, mhlJStr(s, MHL_K_SKIPPED, ""));
			continue;
		}
		g_string_append_printf(out, "step %zu (scenario line %" G_GINT64_FORMAT "): %s: %s in %.3f s%s%s\n",
				       i + 1, mhlJInt(s, MHL_K_LINE, 0), name,
				       mhlJBool(s, MHL_K_OK, false) ? "ok" : "FAILED", mhlJDbl(s, MHL_K_SECONDS, 0),
				       mhlJStr(s, MHL_K_ERROR, NULL) ? ": " : "", mhlJStr(s, MHL_K_ERROR, ""));
		junitLifecycle(out, s);
		junitElastic(out, s);
	}
	if (log)
		g_string_append_printf(out, "console log: %s\n", logname);
	xmlTextWriterWriteElement(w, BAD_CAST "system-out", BAD_CAST out->str);
	xmlTextWriterEndElement(w);
}

/* The <testsuite> of one scenario: its trials, its first start, the run's dashboard line. */
static void junitSuite(xmlTextWriterPtr w, const mhlRun *run, const mhlReportOpts *opts, const char *scenario,
		       const char *dash)
{
	g_autofree char *classname = g_strdup_printf("memhp.%s", scenario);
	junitCount c = { 0 };
	const char *started = NULL;
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		g_autofree char *scn = mhlTrialScenarioName(run->trials->pdata[i]);

		if (strcmp(scn, scenario))
			continue;
		junitCountAdd(&c, run->trials->pdata[i]);
		if (!started)
			started = mhlJStr(run->trials->pdata[i], MHL_K_STARTED, NULL);
	}
	xmlTextWriterStartElement(w, BAD_CAST "testsuite");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST classname);
	junitCountAttrs(w, &c);
	if (started) {	/* JUnit wants local ISO 8601 without zone or fraction: 19 characters */
		g_autofree char *ts = g_utf8_substring(started, 0, MIN(19, g_utf8_strlen(started, -1)));

		xmlTextWriterWriteAttribute(w, BAD_CAST "timestamp", BAD_CAST ts);
	}
	/* the run's dashboard line (dashboard.c), as Jenkins shows a suite's properties */
	xmlTextWriterStartElement(w, BAD_CAST "properties");
	xmlTextWriterStartElement(w, BAD_CAST "property");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "memhp.dashboard");
	xmlTextWriterWriteAttribute(w, BAD_CAST "value", BAD_CAST dash);
	xmlTextWriterEndElement(w);
	junitVersion(w, run, scenario);
	xmlTextWriterEndElement(w);
	for (i = 0; i < run->trials->len; i++) {
		g_autofree char *scn = mhlTrialScenarioName(run->trials->pdata[i]);

		if (!strcmp(scn, scenario))
			junitCase(w, run, opts, run->trials->pdata[i], classname);
	}
	xmlTextWriterEndElement(w);
}

/* The lines of trials.jsonl that could not be read: a <testsuite> of errors. */
static void junitBadRecords(xmlTextWriterPtr w, const mhlRun *run)
{
	junitCount c = { .tests = run->bad->len, .errors = run->bad->len };
	guint i;

	xmlTextWriterStartElement(w, BAD_CAST "testsuite");
	xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "memhp.records");
	junitCountAttrs(w, &c);
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];
		g_autofree char *msg = g_strdup_printf("%s:%d: %s", run->records, b->line, b->why);

		xmlTextWriterStartElement(w, BAD_CAST "testcase");
		xmlTextWriterWriteFormatAttribute(w, BAD_CAST "name", "trials.jsonl:%d", b->line);
		xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST "memhp.records");
		xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST "0");
		xmlTextWriterStartElement(w, BAD_CAST "error");
		xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST msg);
		xmlTextWriterWriteAttribute(w, BAD_CAST "type", BAD_CAST "unreadable-record");
		xmlTextWriterEndElement(w);
		xmlTextWriterEndElement(w);
	}
	xmlTextWriterEndElement(w);
}

int mhlReportJunit(const mhlRun *run, const mhlReportOpts *opts, const char *outdir)
{
	g_autoptr(xmlBuffer) buf = xmlBufferCreate();
	g_autoptr(xmlTextWriter) w = NULL;
	g_autoptr(GPtrArray) scenarios = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *name = g_path_get_basename(run->dir);
	g_autofree char *dash = mhlRunDashboard(run);
	junitCount all = { 0 };
	guint i;

	if (!buf || !(w = xmlNewTextWriterMemory(buf, 0))) {
		mhlError("report: junit: cannot create an XML writer (out of memory)");
		return -1;
	}
	for (i = 0; i < run->trials->len; i++) {
		g_autofree char *scn = mhlTrialScenarioName(run->trials->pdata[i]);

		junitCountAdd(&all, run->trials->pdata[i]);
		if (!g_ptr_array_find_with_equal_func(scenarios, scn, g_str_equal, NULL))
			g_ptr_array_add(scenarios, g_steal_pointer(&scn));
	}
	all.errors += run->bad->len;
	all.tests += run->bad->len;
	xmlTextWriterSetIndent(w, 1);
	xmlTextWriterSetIndentString(w, BAD_CAST "  ");
	xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
	xmlTextWriterStartElement(w, BAD_CAST "testsuites");
	xmlTextWriterWriteFormatAttribute(w, BAD_CAST "name", "memhp-lab %s", name);
	junitCountAttrs(w, &all);
	for (i = 0; i < scenarios->len; i++)
		junitSuite(w, run, opts, scenarios->pdata[i], dash);
	if (run->bad->len)
		junitBadRecords(w, run);
	if (xmlTextWriterEndDocument(w) < 0) {
		mhlError("report: junit: libxml2 could not finish the document for '%s'", run->records);
		return -1;
	}
	g_clear_pointer(&w, xmlFreeTextWriter);	/* flushes into buf */
	return mhlReportFileWrite(opts->outfd, outdir, mhlReportFormats[MHL_REPORT_JUNIT].file,
				  (const char *)xmlBufferContent(buf), xmlBufferLength(buf));
}
