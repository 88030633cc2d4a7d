/*
 * tests/unit/report.c - the reports (reports/) of a small run of one trial
 * per verdict, rendered into the scratch directory: KTAP compared in full,
 * JUnit XML line by line, KCIDB's status and waiver per test, and the HTML
 * and every format checked for a record's text escaped (a record may come
 * from elsewhere); with the helpers that escape (mhlHtmlf, the gnuplot
 * strings, the identifiers). What tests/report.sh checks on a real run, on
 * records small enough to read here.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>

#include "mhl-exit.h"
#include "reports/plot.h"
#include "reports/report.h"
#include "unit.h"
#include "util.h"

/* One trial of each verdict a record holds, and a "lost" one, which no record may hold (line 7). */
static const char runLines[] =
	"{\"trial\":\"passes\",\"verdict\":\"pass\",\"scenario\":\"scenarios/u.yaml\","
	"\"steps\":[{\"step\":\"pin\",\"id\":\"p\",\"ok\":true,\"line\":5}]}\n"
	"{\"trial\":\"fails\",\"verdict\":\"fail\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"pins failed\","
	"\"steps\":[{\"step\":\"pin\",\"id\":\"p\",\"ok\":false,\"line\":5,\"error\":\"1 pin failed\"}]}\n"
	"{\"trial\":\"errs\",\"verdict\":\"error\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"the guest stopped\"}\n"
	"{\"trial\":\"skips\",\"verdict\":\"skip\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"other-kernel: 6.1 only\"}\n"
	"{\"trial\":\"known\",\"verdict\":\"xfail\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"known deviation: c3\","
	"\"steps\":[{\"step\":\"pin\",\"id\":\"p\",\"ok\":true,\"line\":5},"
	"{\"step\":\"expect\",\"ok\":false,\"line\":9,\"error\":\"expect at line 9: pins_failed 1, wanted 0\"}]}\n"
	"{\"trial\":\"unexpected\",\"verdict\":\"xpass\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"known deviation: c3\"}\n"
	"{\"trial\":\"gone\",\"verdict\":\"lost\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"no record\"}\n"
	"{\"trial\":\"x<&>\\\"'#y\",\"verdict\":\"interrupted\",\"scenario\":\"scenarios/u.yaml\",\"reason\":\"SIGINT <b>\"}\n";

static mhlRun *run;
static char *reportDir;
static char *texts[MHL_REPORT_LAST];	/* each format rendered once, by the first row that reads it */

static void reportSetup(void)
{
	g_autofree char *dir = g_build_filename(unitTmpdir, "report-run", NULL);

	g_mkdir_with_parents(dir, 0755);
	g_free(unitWriteTmp("report-run/trials.jsonl", runLines));
	run = mhlRunLoad(dir);
	reportDir = g_build_filename(dir, "report", NULL);
	g_mkdir_with_parents(reportDir, 0755);
	g_setenv("MEMHP_GNUPLOT", "/bin/true", TRUE);	/* no plots drawn: "plot missing" notes */
}

static void reportTeardown(void)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(texts); i++)
		g_clear_pointer(&texts[i], g_free);
	g_clear_pointer(&run, mhlRunFree);
	g_clear_pointer(&reportDir, g_free);
	g_unsetenv("MEMHP_GNUPLOT");
}

/* @format of the run, rendered (once); NULL after a diagnostic. */
static const char *rendered(mhlReportFormat format)
{
	mhlReportOpts opts = { .formats = 1u << format, .origin = "memhp" };
	g_autofree char *path = NULL;

	if (texts[format])
		return texts[format];
	if (!run || mhlReportWrite(run, &opts) < 0) {
		unitDiag("%s", run ? mhlErrorLast() : "the run did not load");
		return NULL;
	}
	path = g_build_filename(reportDir, mhlReportFormats[format].file, NULL);
	if (!g_file_get_contents(path, &texts[format], NULL, NULL))
		unitDiag("no %s", path);
	return texts[format];
}

/* Whether @text has @line as one whole line. */
static bool hasLine(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; p && (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* ---- KTAP: the whole file ---- */

static const char ktapWant[] =
	"KTAP version 1\n"
	"# memhp-lab run report-run: 7 trial record(s), 1 unreadable line(s)\n"
	"# report-run: 7 trial(s): 1 pass, 1 fail, 1 error, 1 skip, 1 xfail, 1 xpass, 1 interrupted, unreadable lines"
	" | kernel \xe2\x80\x93 | policy \xe2\x80\x93 | accel \xe2\x80\x93"
	" | wall \xe2\x80\x93\n"
	"1..8\n"
	"  KTAP version 1\n"
	"  # Subtest: passes\n"
	"  1..1\n"
	"  ok 1 pin p\n"
	"# passes: kernel unknown, pin_policy -, -\n"
	"ok 1 passes\n"
	"  KTAP version 1\n"
	"  # Subtest: fails\n"
	"  1..1\n"
	"  # 1 pin failed\n"
	"  not ok 1 pin p\n"
	"# fails: kernel unknown, pin_policy -, -\n"
	"# pins failed\n"
	"not ok 2 fails\n"
	"# errs: kernel unknown, pin_policy -, -\n"
	"not ok 3 errs # ERROR the guest stopped\n"
	"# skips: kernel unknown, pin_policy -, -\n"
	"ok 4 skips # SKIP other-kernel: 6.1 only\n"
	"  KTAP version 1\n"
	"  # Subtest: known\n"
	"  1..2\n"
	"  ok 1 pin p\n"
	"  ok 2 expect # XFAIL expect at line 9: pins_failed 1, wanted 0\n"
	"# known: kernel unknown, pin_policy -, -\n"
	"ok 5 known # XFAIL known deviation: c3\n"
	"# unexpected: kernel unknown, pin_policy -, -\n"
	"not ok 6 unexpected # XPASS known deviation: c3\n"
	"# x<&>\"' y: kernel unknown, pin_policy -, -\n"
	"not ok 7 x<&>\"' y # ERROR interrupted: SIGINT <b>\n"
	"not ok 8 trials.jsonl line 7 # ERROR trial 'gone': verdict 'lost' is not pass, fail, error or interrupted\n";

static bool ktapWhole(void)
{
	const char *got = rendered(MHL_REPORT_KTAP);
	g_auto(GStrv) a = g_strsplit(got ? got : "", "\n", -1), b = g_strsplit(ktapWant, "\n", -1);
	size_t i;

	for (i = 0; a[i] && b[i] && !strcmp(a[i], b[i]); i++)
		;
	if (a[i] || b[i])
		unitDiag("results.ktap line %zu: got '%s', want '%s'", i + 1, a[i] ? a[i] : "(end)",
			 b[i] ? b[i] : "(end)");
	return unitExpect(got && !a[i] && !b[i]);
}

/* ---- JUnit XML and KTAP: lines that must be there ---- */

static const struct lineRow {
	mhlReportFormat format;
	const char *what, *line;
} lines[] = {
	{ MHL_REPORT_KTAP, "an expected failure is ok with an XFAIL directive",
	  "ok 5 known # XFAIL known deviation: c3" },
	{ MHL_REPORT_KTAP, "an expected failure's failed step is ok with an XFAIL directive",
	  "  ok 2 expect # XFAIL expect at line 9: pins_failed 1, wanted 0" },
	{ MHL_REPORT_KTAP, "an unexpected pass is not ok with an XPASS directive",
	  "not ok 6 unexpected # XPASS known deviation: c3" },
	{ MHL_REPORT_KTAP, "a skip is ok with a SKIP directive", "ok 4 skips # SKIP other-kernel: 6.1 only" },
	{ MHL_REPORT_KTAP, "a '#' in a trial id is no directive", "not ok 7 x<&>\"' y # ERROR interrupted: SIGINT <b>" },
	{ MHL_REPORT_JUNIT, "the counters: xpass a failure, xfail and skip skipped, error, interrupted and the bad line errors",
	  "<testsuites name=\"memhp-lab report-run\" tests=\"8\" failures=\"2\" errors=\"3\" skipped=\"2\" time=\"0.000\">" },
	{ MHL_REPORT_JUNIT, "an expected failure is <skipped> with its reason",
	  "      <skipped message=\"known deviation: c3\" type=\"xfail\">known deviation: c3" },
	{ MHL_REPORT_JUNIT, "an unexpected pass is a <failure>",
	  "      <failure message=\"known deviation: c3\" type=\"xpass\">known deviation: c3" },
	{ MHL_REPORT_JUNIT, "a skip is <skipped>",
	  "      <skipped message=\"other-kernel: 6.1 only\" type=\"skip\">other-kernel: 6.1 only" },
	{ MHL_REPORT_JUNIT, "a trial id with < & > \" is escaped in an attribute",
	  "    <testcase name=\"x&lt;&amp;&gt;&quot;'#y\" classname=\"memhp.u\" time=\"0.000\">" },
	{ MHL_REPORT_JUNIT, "a reason with <b> is escaped in an attribute and in the text",
	  "      <error message=\"SIGINT &lt;b&gt;\" type=\"interrupted\">SIGINT &lt;b&gt;" },
};

static bool lineJudge(const void *row, GString *desc)
{
	const struct lineRow *r = row;
	const char *got;

	g_string_printf(desc, "report: %s: %s", mhlReportFormats[r->format].file, r->what);
	if (unitListing)
		return true;
	got = rendered(r->format);
	if (got && !hasLine(got, r->line)) {
		g_auto(GStrv) text = g_strsplit(got, "\n", -1);
		size_t i;

		unitDiag("no line '%s' in %s:", r->line, mhlReportFormats[r->format].file);
		for (i = 0; text[i]; i++)
			unitDiag("  %s", text[i]);
	}
	return unitExpect(got && hasLine(got, r->line));
}

/* ---- KCIDB: each test's status and waiver ---- */

static const struct kcidbRow {
	const char *id, *status;
	bool waived;
} kcidbRows[] = {
	{ "memhp:passes", "PASS", false },
	{ "memhp:fails", "FAIL", false },
	{ "memhp:errs", "ERROR", false },
	{ "memhp:skips", "SKIP", false },
	{ "memhp:known", "FAIL", true },
	{ "memhp:known.s2_expect", "FAIL", true },
	{ "memhp:known.s1_pin_p", "PASS", false },
	{ "memhp:unexpected", "PASS", false },
	{ "memhp:x______y", "MISS", false },	/* the id made of [A-Za-z0-9_-] */
};

static bool kcidbJudge(const void *row, GString *desc)
{
	const struct kcidbRow *r = row;
	g_autoptr(json_object) doc = NULL;
	json_object *tests, *t = NULL;
	const char *got;
	size_t i;

	g_string_printf(desc, "report: kcidb.json: test %s is %s%s", r->id, r->status, r->waived ? ", waived" : "");
	if (unitListing)
		return true;
	if (!(got = rendered(MHL_REPORT_KCIDB)) || !(doc = json_tokener_parse(got)) ||
	    !json_object_object_get_ex(doc, "tests", &tests))
		return unitExpect(false);
	for (i = 0; i < json_object_array_length(tests) && !t; i++)
		if (!strcmp(mhlJStr(json_object_array_get_idx(tests, i), "id", ""), r->id))
			t = json_object_array_get_idx(tests, i);
	if (!t)
		return unitExpect(false);
	if (strcmp(mhlJStr(t, "status", ""), r->status) || mhlJBool(t, "waived", false) != r->waived)
		unitDiag("got %s", json_object_to_json_string(t));
	return unitExpect(!strcmp(mhlJStr(t, "status", ""), r->status) && mhlJBool(t, "waived", false) == r->waived);
}

/* ---- HTML ---- */

/* The record's text is in index.html, escaped, and never as markup. */
static bool htmlRecordEscaped(void)
{
	const char *got = rendered(MHL_REPORT_HTML);

	if (got && (strstr(got, "x<&>") || strstr(got, "SIGINT <b>")))
		unitDiag("a record's text as markup in index.html");
	return unitExpect(got && strstr(got, "x&lt;&amp;&gt;&quot;&apos;#y") && strstr(got, "SIGINT &lt;b&gt;") &&
			  !strstr(got, "x<&>") && !strstr(got, "SIGINT <b>"));
}

static bool htmlfEscapes(void)
{
	g_autoptr(GString) out = g_string_new(NULL);

	mhlHtmlf(out, "<td>%s</td><td>%d</td>", "<a href=\"x\">&'", 3);
	if (strcmp(out->str, "<td>&lt;a href=&quot;x&quot;&gt;&amp;&apos;</td><td>3</td>"))
		unitDiag("got %s", out->str);
	return unitExpect(!strcmp(out->str, "<td>&lt;a href=&quot;x&quot;&gt;&amp;&apos;</td><td>3</td>"));
}

/* ---- the grid's number (scenario grid:, record key grid) ---- */

static const struct gridRow {
	const char *desc, *rec, *want;
} gridRows[] = {
	{ "an integer with its label", "{\"grid\":{\"label\":\"migrated\",\"value\":65536}}", "65536 migrated" },
	{ "a ratio to 3 digits", "{\"grid\":{\"label\":\"x slower\",\"value\":23.912}}", "23.9 x slower" },
	{ "no value (the trial ended first): a dash", "{\"grid\":{\"label\":\"left in CMA\",\"value\":null}}", "– left in CMA" },
	{ "a value of text is no number", "{\"grid\":{\"label\":\"l\",\"value\":\"7\"}}", "– l" },
	{ "no grid: the unplug's reached/requested",
	  "{\"summary\":{\"reached_bytes\":268435456,\"requested_bytes\":0}}", "256/0 MiB" },
	{ "no grid, no resize: the pins failed", "{\"summary\":{\"pins_failed\":1}}", "1 pin failed" },
};

static bool gridJudge(const void *row, GString *desc)
{
	const struct gridRow *r = row;
	g_autoptr(json_object) rec = NULL;
	g_autofree char *got = NULL;

	g_string_printf(desc, "report: grid cell number: %s: '%s'", r->desc, r->want);
	if (unitListing)
		return true;
	rec = json_tokener_parse(r->rec);
	got = mhlGridNumber(rec);
	if (g_strcmp0(got, r->want))
		unitDiag("got '%s'", got);
	return unitExpect(!g_strcmp0(got, r->want));
}

/* ---- the other escapes ---- */

static bool gnuplotQuoted(void)
{
	g_autofree char *a = mhlGnuplotString("it's `rm -rf` \"$x\"\nnext");
	g_autofree char *b = mhlGnuplotString(NULL);

	if (strcmp(a, "'it''s `rm -rf` \"$x\" next'") || strcmp(b, "''"))
		unitDiag("got %s and %s", a, b);
	return unitExpect(!strcmp(a, "'it''s `rm -rf` \"$x\" next'") && !strcmp(b, "''"));
}

static bool identSafe(void)
{
	g_autofree char *a = mhlReportIdent("c3:kernel=6.1,policy=series/../x y");
	g_autofree char *b = mhlReportIdent("");

	if (strcmp(a, "c3_kernel_6_1_policy_series____x_y") || strcmp(b, "_"))
		unitDiag("got %s and %s", a, b);
	return unitExpect(!strcmp(a, "c3_kernel_6_1_policy_series____x_y") && !strcmp(b, "_"));
}

/* ---- report --history: a record's started, as memhp-lab writes it ---- */

#define HIST_NOW (G_GINT64_CONSTANT(1796428800) * G_USEC_PER_SEC)	/* 2026-12-05T00:00:00Z */

static const struct timeRow {
	const char *what, *in;
	gint64 want;		/* seconds since the epoch; -1: refused */
} times[] = {
	{ "a trial's start with microseconds", "2026-12-03T12:49:47.549237Z", 1796302187 },
	{ "a soak's start to the second", "2026-12-04T03:00:00Z", 1796353200 },
	{ "less than a day after now (another host's clock)", "2026-12-05T23:59:59Z", 1796515199 },
	{ "more than a day after now: refused", "2026-12-06T00:00:01Z", -1 },
	{ "year 9999: refused", "9999-12-31T23:59:59Z", -1 },
	{ "'~' (after every digit in ASCII): refused", "~", -1 },
	{ "empty: refused", "", -1 },
	{ "an offset instead of Z: refused", "2026-12-03T12:49:47+01:00", -1 },
	{ "a date alone: refused", "2026-12-03", -1 },
	{ "month 13: refused", "2026-13-01T00:00:00Z", -1 },
	{ "second 60: refused", "2026-12-03T12:49:60Z", -1 },
	{ "a newline after the Z: refused", "2026-12-03T12:49:47Z\n", -1 },
	{ "seven fraction digits: refused", "2026-12-03T12:49:47.1234567Z", -1 },
};

static bool timeJudge(const void *row, GString *desc)
{
	const struct timeRow *r = row;
	const char *why;
	gint64 t = -1;

	g_string_printf(desc, "report: mhlHistoryTimeParse: %s", r->what);
	if (unitListing)
		return true;
	why = mhlHistoryTimeParse(r->in, HIST_NOW, &t);
	if (r->want < 0 ? !why : why || t / G_USEC_PER_SEC != r->want)
		unitDiag("got %s, t %" G_GINT64_FORMAT, why ? why : "(accepted)", t);
	return unitExpect(r->want < 0 ? why != NULL : !why && t / G_USEC_PER_SEC == r->want);
}

/* ".5Z" is after "Z" of the same second, which a string comparison puts the other way */
static bool timeOrder(void)
{
	gint64 a = 0, b = 0;
	bool ok = !mhlHistoryTimeParse("2026-12-03T10:00:00Z", HIST_NOW, &a) &&
		  !mhlHistoryTimeParse("2026-12-03T10:00:00.5Z", HIST_NOW, &b);

	return unitExpect(ok && b - a == G_USEC_PER_SEC / 2);
}

/* ---- noise floors (noise.c): what --history and --compare call a regression ---- */

#define NOISE_MAX 10
static const struct noiseRow {
	const char *what;
	mhlMetric m;
	double values[NOISE_MAX];
	size_t n;
	double x;
	int want;	/* 1 regression, -1 improvement, 0 noise */
} noiseRows[] = {
	{ "one pin time before, x1.78 (two identical runs here): noise", MHL_METRIC_PIN, { 1.196 }, 1, 2.129, 0 },
	{ "one pin time before, x3: a regression", MHL_METRIC_PIN, { 1.196 }, 1, 3.588, 1 },
	{ "one pin time before, half of it: still noise (the relative floor, 100 %)", MHL_METRIC_PIN, { 1.196 }, 1, 0.6, 0 },
	{ "5 repeats within 2 %, x1.5: a regression (their MAD is the floor)", MHL_METRIC_PIN,
	  { 1.0, 1.01, 0.99, 1.02, 0.98 }, 5, 1.5, 1 },
	{ "5 repeats within 2 %, x0.5: an improvement", MHL_METRIC_PIN, { 1.0, 1.01, 0.99, 1.02, 0.98 }, 5, 0.5, -1 },
	{ "5 repeats within 2 %, +0.04 s: below the absolute floor 0.05 s", MHL_METRIC_PIN,
	  { 1.0, 1.0, 1.0, 1.0, 1.0 }, 5, 1.04, 0 },
	{ "2 values within 2 %, x1.5: fewer than 5, the relative floor holds: noise", MHL_METRIC_PIN,
	  { 1.0, 1.02 }, 2, 1.5, 0 },
	{ "5 spread repeats (1 to 2 s), 2.5 s: within 3 x 1.4826 x MAD", MHL_METRIC_PIN,
	  { 1.0, 1.3, 1.5, 1.8, 2.0 }, 5, 2.5, 0 },
	{ "reached 0 MiB from the request before, 1 MiB after: below the floor 2 MiB", MHL_METRIC_REACHED, { 0 }, 1, 1, 0 },
	{ "reached 0 MiB from the request before, 256 MiB after: a regression", MHL_METRIC_REACHED, { 0 }, 1, 256, 1 },
	{ "cycles per hour 1201..1203, 600: worse is lower, a regression", MHL_METRIC_CPH, { 1201, 1202, 1203 }, 3, 600, 1 },
	{ "cycles per hour 1201..1203, 1400: an improvement", MHL_METRIC_CPH, { 1201, 1202, 1203 }, 3, 1400, -1 },
	{ "a bench's 10 runs' get_us within 1 %, median x1.5: a regression", MHL_METRIC_BENCH,
	  { 1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003 }, 10, 1500, 1 },
	{ "a bench's 10 runs' get_us within 1 %, median +30 us: below the floor 50 us", MHL_METRIC_BENCH,
	  { 1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003 }, 10, 1030, 0 },
	{ "nothing before: nothing to judge", MHL_METRIC_PIN, { 0 }, 0, 100, 0 },
	{ "host back 100 %, then 98 %: within its 5 points", MHL_METRIC_HOST_BACK, { 100 }, 1, 98, 0 },
	{ "host back 100 %, then 60 %: a regression (higher is better)", MHL_METRIC_HOST_BACK, { 100 }, 1, 60, 1 },
	{ "migration downtime 100 ms, then 180 ms: noise under TCG (relative 100 %)", MHL_METRIC_DOWNTIME, { 100 }, 1, 180, 0 },
	{ "migration downtime 100 ms, then 400 ms: a regression", MHL_METRIC_DOWNTIME, { 100 }, 1, 400, 1 },
	{ "restore 2 s, then 5 s: a regression", MHL_METRIC_RESTORE, { 2 }, 1, 5, 1 },
	{ "a DIMM's removal 0.2 s, then 0.6 s: below the floor 0.5 s", MHL_METRIC_DIMM_REMOVE, { 0.2 }, 1, 0.6, 0 },
};

static bool noiseJudge(const void *row, GString *desc)
{
	const struct noiseRow *r = row;
	double med, spread;
	int got;

	g_string_printf(desc, "report: noise: %s: %s", mhlMetrics[r->m].name, r->what);
	if (unitListing)
		return true;
	got = mhlNoiseJudge(r->m, r->values, r->n, r->x, &med, &spread);
	if (got != r->want)
		unitDiag("got %d (median %g, spread %g), want %d", got, med, spread, r->want);
	return unitExpect(got == r->want);
}

/* A bench step's runs are its repeats; its value their median. */
static bool benchRepeats(void)
{
	g_autoptr(json_object) rec = json_tokener_parse(
		"{\"trial\":\"b\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"pin\",\"ok\":true},"
		"{\"step\":\"bench\",\"ok\":true,\"workload\":{\"runs\":[{\"get_us\":300},{\"get_us\":100},"
		"{\"get_us\":200}],\"get_us_median\":200}}]}");
	g_autoptr(GArray) v = g_array_new(FALSE, FALSE, sizeof(double));
	size_t n = mhlMetricRepeats(rec, MHL_METRIC_BENCH, v);
	double x = mhlMetricValue(rec, MHL_METRIC_BENCH);

	if (n != 3 || x != 200)
		unitDiag("got %zu repeats, value %g", n, x);
	return unitExpect(n == 3 && v->len == 3 && g_array_index(v, double, 0) == 300 && x == 200 &&
			  isnan(mhlMetricValue(rec, MHL_METRIC_PIN)));
}

/* ---- a run's exit status from its verdicts (exit.c) ---- */

#define V(x) MHL_VERDICT_##x
static const struct exitRow {
	const char *what;
	mhlVerdict v[4];
	bool guest[4];		/* an error's cause was the guest (error_source "guest") */
	size_t n;
	int want;
} exitRows[] = {
	{ "every trial passed: 0", { V(PASS), V(PASS) }, { 0 }, 2, 0 },
	{ "a pass and a skip: 0", { V(SKIP), V(PASS) }, { 0 }, 2, 0 },
	{ "a skip after a pass: 0", { V(PASS), V(SKIP), V(SKIP) }, { 0 }, 3, 0 },
	{ "every trial skipped: 4 (kselftest's KSFT_SKIP)", { V(SKIP), V(SKIP), V(SKIP) }, { 0 }, 3, 4 },
	{ "one trial, skipped: 4", { V(SKIP) }, { 0 }, 1, 4 },
	{ "skips and an expected failure: 0 (the xfail ran)", { V(SKIP), V(XFAIL), V(SKIP) }, { 0 }, 3, 0 },
	{ "skips and a failure: 1", { V(SKIP), V(FAIL), V(SKIP) }, { 0 }, 3, 1 },
	{ "a failure, then passes: 1", { V(FAIL), V(PASS), V(PASS) }, { 0 }, 3, 1 },
	{ "an unexpected pass: 1", { V(PASS), V(XPASS) }, { 0 }, 2, 1 },
	{ "an error whose cause was the guest (crash, hang): 1, the kernel's", { V(ERROR) }, { 1 }, 1, 1 },
	{ "an error of the lab or the host: 3, the harness's", { V(ERROR) }, { 0 }, 1, 3 },
	{ "a pass, then the lab's error: 3", { V(PASS), V(ERROR) }, { 0, 0 }, 2, 3 },
	{ "the lab's error and a failure, in either order: 1 (the kernel's first)", { V(ERROR), V(FAIL), V(ERROR) }, { 0 }, 3, 1 },
	{ "a failure, then the lab's error: 1", { V(FAIL), V(ERROR) }, { 0 }, 2, 1 },
	{ "an interrupted trial after a skip: 5", { V(SKIP), V(INTERRUPTED) }, { 0 }, 2, 5 },
	{ "interrupted and the lab's error: 5", { V(ERROR), V(INTERRUPTED) }, { 0 }, 2, 5 },
	{ "interrupted and a failure: 1", { V(INTERRUPTED), V(FAIL) }, { 0 }, 2, 1 },
	{ "a lost trial: 3 (memhp-lab was killed)", { V(PASS), V(LOST) }, { 0 }, 2, 3 },
	{ "a trial without a record (MHL_VERDICT_LAST): 3", { V(SKIP), V(LAST) }, { 0 }, 2, 3 },
	{ "skips after the lab's error: 3, not 4", { V(ERROR), V(SKIP), V(SKIP) }, { 0 }, 3, 3 },
	{ "no trial: 0", { V(PASS) }, { 0 }, 0, 0 },
};
#undef V

static bool exitJudge(const void *row, GString *desc)
{
	const struct exitRow *r = row;
	int got;

	g_string_printf(desc, "report: mhlExitStatusOf: %s", r->what);
	if (unitListing)
		return true;
	got = mhlExitStatusOf(r->v, r->guest, r->n);
	if (got != r->want)
		unitDiag("got %d, want %d", got, r->want);
	return unitExpect(got == r->want);
}

/*
 * report --compare and --history: a host_identity value over 80 bytes,
 * quoted in "what changed on the host", is cut between two characters
 * (issue 30, finding 15): "x" and 100 euro signs (3 bytes each), so a cut
 * at byte 80 falls inside one.
 */
static bool hostDiffCut(void)
{
	g_autoptr(GString) cpu = g_string_new("x");
	g_autoptr(json_object) a = json_object_new_object(), b = json_object_new_object();
	json_object *ia = json_object_new_object(), *ib = json_object_new_object();
	g_autofree char *diff = NULL;
	int i;

	for (i = 0; i < 100; i++)
		g_string_append(cpu, "\u20ac");
	json_object_object_add(ia, "cpu_model", json_object_new_string(cpu->str));
	json_object_object_add(ib, "cpu_model", json_object_new_string("other"));
	json_object_object_add(a, "host_identity", ia);
	json_object_object_add(b, "host_identity", ib);
	diff = mhlHostIdentityDiff(a, b);
	if (diff && !g_utf8_validate(diff, -1, NULL))
		unitDiag("not UTF-8: %s", diff);
	/* 1 + 26 * 3 = 79 bytes of the value: the 27th sign would end at byte 82 */
	return unitExpect(diff && g_utf8_validate(diff, -1, NULL)) &&
	       unitExpect(g_str_has_prefix(diff, "cpu_model x") && g_str_has_suffix(diff, " -> other")) &&
	       unitExpect(strlen(diff) == strlen("cpu_model ") + 79 + strlen(" -> other"));
}

/*
 * The numbers a capacity team reads first, from where a record keeps them
 * (issue 52 item 4): the host's share back, the first migration's downtime,
 * the first save's save and restore times, the first DIMM detach that
 * completed (not the attach before it, nor a detach that did not complete).
 */
static bool metricValues(void)
{
	g_autoptr(json_object) rec = json_tokener_parse(
		"{\"summary\":{\"host_reclaimed_of_reclaimable\":0.5},\"steps\":["
		"{\"step\":\"dimm\",\"elastic\":{\"seconds\":0.3}},"
		"{\"step\":\"dimm\",\"elastic\":{\"seconds\":9,\"removed\":false}},"
		"{\"step\":\"migrate\",\"lifecycle\":{\"migration\":{\"downtime_ms\":120}}},"
		"{\"step\":\"managedsave\",\"lifecycle\":{\"save_s\":1.5,\"restore_s\":2.25}},"
		"{\"step\":\"dimm\",\"elastic\":{\"seconds\":0.2,\"removed\":true}},"
		"{\"step\":\"save\",\"lifecycle\":{\"save_s\":7,\"restore_s\":7}}]}");
	g_autoptr(json_object) none = json_tokener_parse("{\"summary\":{},\"steps\":[]}");
	double v[] = { mhlMetricValue(rec, MHL_METRIC_HOST_BACK), mhlMetricValue(rec, MHL_METRIC_DOWNTIME),
		       mhlMetricValue(rec, MHL_METRIC_SAVE), mhlMetricValue(rec, MHL_METRIC_RESTORE),
		       mhlMetricValue(rec, MHL_METRIC_DIMM_REMOVE) };
	int m;

	unitDiag("host %g, downtime %g, save %g, restore %g, dimm %g", v[0], v[1], v[2], v[3], v[4]);
	for (m = MHL_METRIC_HOST_BACK; m < MHL_METRIC_LAST; m++)
		if (!isnan(mhlMetricValue(none, (mhlMetric)m)))
			return unitExpect(false);
	return unitExpect(v[0] == 50 && v[1] == 120 && v[2] == 1.5 && v[3] == 2.25 && v[4] == 0.2);
}

/* Debian's 6.12 and the lab's patched 6.12 read apart; a prebuilt kernel names its image. */
static bool kernelLabels(void)
{
	g_autoptr(json_object) deb = json_tokener_parse("{\"kernel\":{\"kind\":\"package\",\"source_package\":\"linux-image-6.12.118+deb12-cloud-amd64\",\"source_version\":\"6.12.118-1~deb12u1\"}}");
	g_autoptr(json_object) lab = json_tokener_parse("{\"kernel\":{\"source_package\":\"linux-source-6.12\",\"source_version\":\"6.12.118-1~deb12u1\",\"series_hash\":\"9410b1ed273f80af1234\"}}");
	g_autoptr(json_object) pre = json_tokener_parse("{\"kernel\":{\"source_package\":\"prebuilt\",\"bzimage\":\"/srv/k/bzImage-team\"}}");
	g_autoptr(json_object) none = json_tokener_parse("{}");
	g_autofree char *a = mhlKernelLabel(deb), *b = mhlKernelLabel(lab), *c = mhlKernelLabel(pre), *d = mhlKernelLabel(none);

	unitDiag("%s | %s | %s | %s", a, b, c, d);
	return unitExpect(!strcmp(a, "linux-image-6.12.118+deb12-cloud-amd64 6.12.118-1~deb12u1") &&
			  !strcmp(b, "6.12.118-1~deb12u1 + series 9410b1ed") && !strcmp(c, "prebuilt bzImage-team") &&
			  !strcmp(d, "unknown"));
}

static const unitCase cases[] = {
	{ "report: a kernel's label tells Debian's package, the lab's series and a prebuilt image apart (not the version alone)", kernelLabels },
	{ "report: noise: the host's share back, the downtime, save, restore and a DIMM's removal read from where the record keeps them; none: no value",
	  metricValues },
	{ "report: results.ktap of one trial per verdict, line by line", ktapWhole },
	{ "report: mhlHistoryTimeParse: half a second after a whole one is later (not by string order)", timeOrder },
	{ "report: index.html: a record's < & > \" ' are escaped, never markup", htmlRecordEscaped },
	{ "report: mhlHtmlf escapes its %s arguments (< > & \" '), not its format", htmlfEscapes },
	{ "report: a gnuplot string is single-quoted (' doubled, a line end a space): nothing substituted",
	  gnuplotQuoted },
	{ "report: an identifier keeps [A-Za-z0-9_-] only; an empty one is '_'", identSafe },
	{ "report: noise: a bench step's runs[] are its repeats of bench_get_us, its value their median", benchRepeats },
	{ "report: what changed on the host quotes a host_identity value of 80 bytes and more cut between two characters (valid UTF-8)",
	  hostDiffCut },
};

static const unitTable tables[] = {
	UNIT_CASES(cases),
	UNIT_TABLE(lines, lineJudge),
	UNIT_TABLE(gridRows, gridJudge),
	UNIT_TABLE(kcidbRows, kcidbJudge),
	UNIT_TABLE(times, timeJudge),
	UNIT_TABLE(noiseRows, noiseJudge),
	UNIT_TABLE(exitRows, exitJudge),
};

const unitModule unitReport = UNIT_MODULE("report", reportSetup, reportTeardown, tables);
