/*
 * history.c - `memhp-lab report --history DIR...` (docs/reports.md,
 * "History across runs"): per trial id its verdict and key numbers in each
 * run, oldest first by their parsed start, with regressions marked, as one
 * HTML page and one JSON summary in the directory given with -o.
 *
 * The rule, stated once here and in the page: a verdict regresses when a
 * run's verdict does not let a run pass (fail, xpass, error, interrupted,
 * lost) and the trial's previous verdict did (pass, skip, xfail). A number
 * regresses when it is worse than the median of the trial's earlier runs by
 * more than its spread (noise.c, the rule --compare applies too), with at
 * least two earlier values. Everything from a record
 * is escaped.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "reports/plot.h"
#include "reports/report.h"
#include "util.h"

const char mhlHistoryRule[] =
	"a verdict regresses when it fails a run (fail, xpass, error, interrupted, lost) and the trial's "
	"previous verdict did not; a number regresses when it is worse than the median of the trial's "
	"earlier runs by more than max(3 x 1.4826 x MAD, the metric's floor: reached 2 MiB, converge 0.5 s, "
	"pin 0.05 s, bench 50 us, cycles/h 1, findings 0.5, and with fewer than 5 earlier runs its share of "
	"the median: pin and bench 100 %, the others 10 %), with two or more earlier runs";

/* The record's value of metric @m; NAN when it has none. */
static double histValue(json_object *rec, int m)
{
	return mhlMetricValue(rec, (mhlMetric)m);
}

/* How far after this host's clock a run may say it started (another host's clock): a day. */
#define HIST_CLOCK_SLACK (24 * G_TIME_SPAN_HOUR)

const char *mhlHistoryTimeParse(const char *s, gint64 now, gint64 *t)
{
	g_autoptr(GDateTime) dt = NULL;

	/*
	 * the shape g_date_time_format_iso8601() gives a UTC time (trial.c,
	 * soak/): nothing else, and no second 60, which GLib would take
	 */
	if (!s || !g_regex_match_simple("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](\\.[0-9]{1,6})?Z$", s,
					G_REGEX_DOLLAR_ENDONLY, 0))
		return "is not a UTC time as memhp-lab writes it (YYYY-MM-DDTHH:MM:SS[.ffffff]Z)";
	if (!(dt = g_date_time_new_from_iso8601(s, NULL)))
		return "is not a time (a month, day, hour, minute or second out of range)";
	*t = g_date_time_to_unix(dt) * G_USEC_PER_SEC + g_date_time_get_microsecond(dt);
	if (*t > now + HIST_CLOCK_SLACK)
		return "is more than a day after this host's clock";
	return NULL;
}

/*
 * The start of @run: its earliest record's `started`, parsed (mhlHistoryTimeParse);
 * *@text that record's string. A record without one (a lost trial whose
 * started.jsonl line had none) is left out. -1 + mhlError naming the file and
 * line when a record's `started` is not a time, or when no record has one: the
 * run cannot be placed among the others.
 */
static int runStart(const mhlRun *run, gint64 now, gint64 *start, const char **text)
{
	guint i;

	*text = NULL;
	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		const char *s = mhlJStr(rec, MHL_K_STARTED, NULL), *why;
		int line = g_array_index(run->lines, int, i);
		gint64 t = 0;

		if (!s || !*s)
			continue;
		if ((why = mhlHistoryTimeParse(s, now, &t))) {
			g_autofree char *q = mhlTextClean(s, -1, 64, false);
			g_autofree char *where = line ? g_strdup_printf("%s:%d", run->records, line) :
				g_build_filename(run->dir, "started.jsonl", NULL);

			mhlError("report --history: %s: trial '%s': started '%s' %s: the run cannot be placed in time",
				 where, mhlJStr(rec, MHL_K_TRIAL, ""), q, why);
			return -1;
		}
		if (!*text || t < *start) {
			*start = t;
			*text = s;
		}
	}
	if (!*text) {
		mhlError("report --history: %s: no record has a started time: the run cannot be placed in time",
			 run->records);
		return -1;
	}
	return 0;
}

/* The start of a run already placed (mhlHistoryLoad checked it): its earliest record's `started`. */
static const char *runStarted(const mhlRun *run)
{
	const char *text = NULL;
	gint64 start;

	if (runStart(run, G_MAXINT64 - HIST_CLOCK_SLACK, &start, &text) < 0)
		mhlErrorReset();
	return text ? text : "";
}

/* Oldest first by the parsed start (@data: mhlRun * -> gint64 *), then by directory. */
static gint runOrder(gconstpointer a, gconstpointer b, gpointer data)
{
	const mhlRun *x = *(mhlRun *const *)a, *y = *(mhlRun *const *)b;
	const gint64 *tx = g_hash_table_lookup(data, x), *ty = g_hash_table_lookup(data, y);

	if (*tx != *ty)
		return *tx < *ty ? -1 : 1;
	return strcmp(x->dir, y->dir);
}

static bool isRunDir(const char *dir)
{
	g_autofree char *t = g_build_filename(dir, "trials.jsonl", NULL);

	return g_file_test(t, G_FILE_TEST_IS_REGULAR);
}

/*
 * Take @r into @runs, its start into @starts; a run that cannot be placed in
 * time is refused (NULL: @given, a run named on the command line) or skipped
 * with a warning naming its file (a subdirectory of a directory of runs).
 * 0, or -1 + mhlError.
 */
static int historyTake(GPtrArray *runs, GHashTable *starts, mhlRun *r, bool given, gint64 now)
{
	gint64 *t = g_new0(gint64, 1);
	const char *text;

	if (runStart(r, now, t, &text) < 0) {
		g_free(t);
		mhlRunFree(r);
		if (given)
			return -1;
		fprintf(stderr, "memhp-lab: warning: %s; skipped\n", mhlErrorLast());
		mhlErrorReset();
		return 0;
	}
	g_hash_table_insert(starts, r, t);
	g_ptr_array_add(runs, r);
	return 0;
}

GPtrArray *mhlHistoryLoad(char **dirs, int n)
{
	g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func((GDestroyNotify)mhlRunFree);
	g_autoptr(GHashTable) starts = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	gint64 now = g_get_real_time();
	int i;

	for (i = 0; i < n; i++) {
		g_autofree char *abs = g_canonicalize_filename(dirs[i], NULL);
		g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
		g_autoptr(GDir) d = NULL;
		const char *e;
		guint k;

		if (isRunDir(abs)) {
			mhlRun *r = mhlRunLoad(abs);

			if (!r || historyTake(runs, starts, r, true, now) < 0)
				return NULL;
			continue;
		}
		if (!(d = g_dir_open(abs, 0, NULL))) {
			mhlError("report --history: '%s' is neither a run directory (no trials.jsonl) nor a directory of runs",
				 dirs[i]);
			return NULL;
		}
		while ((e = g_dir_read_name(d)))
			g_ptr_array_add(names, g_build_filename(abs, e, NULL));
		g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
		for (k = 0; k < names->len; k++) {
			mhlRun *r;

			if (!g_file_test(names->pdata[k], G_FILE_TEST_IS_DIR) || !isRunDir(names->pdata[k]))
				continue;
			if (!(r = mhlRunLoad(names->pdata[k]))) {
				/* an aborted nightly (an empty trials.jsonl) is no reason to lose the page */
				fprintf(stderr, "memhp-lab: warning: report --history: %s; skipped\n", mhlErrorLast());
				mhlErrorReset();
				continue;
			}
			historyTake(runs, starts, r, false, now);
		}
	}
	if (!runs->len) {
		mhlError("report --history: no run directory (with a trials.jsonl) in %d director%s given",
			 n, n == 1 ? "y" : "ies");
		return NULL;
	}
	g_ptr_array_sort_with_data(runs, runOrder, starts);
	return g_steal_pointer(&runs);
}

/* The record of trial @id in @run, the last one when a resumed run has two; NULL if none. */
static json_object *runTrial(const mhlRun *run, const char *id)
{
	json_object *found = NULL;
	guint i;

	for (i = 0; i < run->trials->len; i++)
		if (!strcmp(mhlJStr(run->trials->pdata[i], MHL_K_TRIAL, ""), id))
			found = run->trials->pdata[i];
	return found;
}

static const char *const histCss =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;max-width:90em}h2{margin-top:1.5em}figure.plot{margin:.3em 0;display:inline-block}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
	"th{background:#f0f0f0}.pass{background:#c8e6c9}.fail{background:#ef9a9a}.error{background:#ffcc80}"
	".interrupted,.lost,.unknown{background:#e0e0e0}.skip{background:#e3f2fd}.xfail{background:#d1c4e9}"
	".xpass{background:#f48fb1}td.regression{outline:3px solid #b71c1c;font-weight:bold}.note{color:#666}";

/*
 * One trial's row group: its verdicts and numbers per run, regressions
 * marked in @html and listed in @jtrial. Returns the regressions in the
 * newest run.
 */
/*
 * Whether number @m of run @r (@x) is worse than the earlier runs' median by
 * more than their spread: a regression {run, what, metric, value, median,
 * spread} into @regs, its words into @why.
 */
static bool histNumberRegressed(json_object **recs, guint r, int m, double x, json_object *regs, GPtrArray *why)
{
	g_autoptr(GArray) earlier = g_array_new(FALSE, FALSE, sizeof(double));
	double med, spread;
	json_object *g;
	char *w;
	guint k;

	for (k = 0; k < r; k++) {
		double e = recs[k] ? histValue(recs[k], m) : NAN;

		if (!isnan(e))
			g_array_append_val(earlier, e);
	}
	if (earlier->len < 2)
		return false;
	if (mhlNoiseJudge((mhlMetric)m, (double *)(void *)earlier->data, earlier->len, x, &med, &spread) <= 0)
		return false;
	g = json_object_new_object();
	w = g_strdup_printf("%s %g %s, earlier median %g ± %g", mhlMetrics[m].name, x, mhlMetrics[m].unit, med, spread);
	json_object_object_add(g, "run", json_object_new_int((int)r));
	json_object_object_add(g, "what", json_object_new_string(w));
	json_object_object_add(g, "metric", json_object_new_string(mhlMetrics[m].name));
	json_object_object_add(g, "value", json_object_new_double(x));
	json_object_object_add(g, "median", json_object_new_double(med));
	json_object_object_add(g, "spread", json_object_new_double(spread));
	json_object_array_add(regs, g);
	g_ptr_array_add(why, w);
	return true;
}

/* "2026-12-05 07:30 UTC" of a record's `started`, or the text as given when it does not parse. */
static char *histWhen(const char *iso)
{
	g_autoptr(GDateTime) t = iso && *iso ? g_date_time_new_from_iso8601(iso, NULL) : NULL;
	g_autoptr(GDateTime) u = t ? g_date_time_to_utc(t) : NULL;

	return u ? g_date_time_format(u, "%Y-%m-%d %H:%M UTC") : g_strdup(iso && *iso ? iso : "–");
}

/*
 * The trial's table of the history: a row per run, the newest first (what a
 * nightly reader looks at), its verdict, then each number it has in some
 * run; regressions marked.
 */
static void histRows(GString *html, GPtrArray *runs, json_object **recs, const bool *vreg, const bool *nreg)
{
	bool has[MHL_METRIC_LAST] = { false };
	int m;
	guint r, k;

	for (m = 0; m < MHL_METRIC_LAST; m++)
		for (r = 0; r < runs->len; r++)
			if (recs[r] && !isnan(histValue(recs[r], m))) {
				has[m] = true;
				break;
			}
	g_string_append(html, "<table class=history>\n<tr><th>run</th><th>started</th><th>verdict</th>");
	for (m = 0; m < MHL_METRIC_LAST; m++)
		if (has[m])
			mhlHtmlf(html, "<th>%s%s%s</th>", mhlMetrics[m].name, *mhlMetrics[m].unit ? ", " : "",
				 mhlMetrics[m].unit);
	g_string_append(html, "</tr>\n");
	for (k = runs->len; k-- > 0;) {
		const mhlRun *run = runs->pdata[k];
		const char *v = recs[k] ? mhlJStr(recs[k], MHL_K_VERDICT, "?") : NULL;
		g_autofree char *name = g_path_get_basename(run->dir), *when = histWhen(runStarted(run));

		mhlHtmlf(html, "<tr><td>%u: %s</td><td>%s</td>", k + 1, name, when);
		if (!v)
			g_string_append(html, "<td class=note>not in this run</td>");
		else
			mhlHtmlf(html, "<td class='%s%s' title='%s'>%s</td>",
				 mhlVerdictOf(recs[k]) < MHL_VERDICT_LAST ? v : "unknown", vreg[k] ? " regression" : "",
				 mhlJStr(recs[k], MHL_K_REASON, ""), v);
		for (m = 0; m < MHL_METRIC_LAST; m++) {
			double x = recs[k] ? histValue(recs[k], m) : NAN;

			if (!has[m])
				continue;
			if (isnan(x))
				g_string_append(html, "<td class=note>–</td>");
			else
				g_string_append_printf(html, "<td%s>%.*f</td>", nreg[k * MHL_METRIC_LAST + m] ? " class=regression" : "",
						       mhlMetrics[m].prec, x);
		}
		g_string_append(html, "</tr>\n");
	}
	g_string_append(html, "</table>\n");
}

/* The 1, 2 or 5 times a power of ten at or above @x (> 0): a tic step people read. */
static double histTicStep(double x)
{
	double p = pow(10, floor(log10(x)));

	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/*
 * A trend plot per number of trial @t (index) that two or more runs have:
 * the value per run, oldest left, regressions in red; into script @sc,
 * each plot's name into @names.
 */
static void histPlots(GString *sc, GPtrArray *names, json_object **recs, guint nruns, const char *id, guint t,
		      const bool *nreg)
{
	int m;
	guint r;

	for (m = 0; m < MHL_METRIC_LAST; m++) {
		g_autoptr(GString) data = g_string_new(NULL), bad = g_string_new(NULL);
		g_autofree char *title = NULL, *name = NULL, *data_name = NULL;
		double lo = 0, hi = 0, step;
		guint n = 0;

		for (r = 0; r < nruns; r++) {
			double x = recs[r] ? histValue(recs[r], m) : NAN;

			if (isnan(x))
				continue;
			g_string_append_printf(data, "%u %.6g\n", r + 1, x);
			lo = n ? MIN(lo, x) : x;
			hi = n ? MAX(hi, x) : x;
			if (nreg[r * MHL_METRIC_LAST + m])
				g_string_append_printf(bad, "%u %.6g\n", r + 1, x);
			n++;
		}
		if (n < 2)
			continue;
		name = g_strdup_printf("h%u_%d", t, m);
		title = g_strdup_printf("%s: %s%s%s per run", id, mhlMetrics[m].name, *mhlMetrics[m].unit ? ", " : "",
					mhlMetrics[m].unit);
		mhlPlotBegin(sc, name, title);
		g_string_append_printf(sc, "set xlabel 'run (oldest left)'\nset xrange [0.5:%u.5]\nset key top left\n",
				       nruns);
		data_name = g_strdup_printf("d%s", name);
		mhlPlotData(sc, data_name, data->str);
		/* about 4 y tics at a 1-2-5 step, whatever the spread: 11 labels do not fit 220 px */
		if (hi - lo < 1e-9 * MAX(1, fabs(hi)))
			lo -= MAX(fabs(lo) * 0.1, 1e-3), hi += MAX(fabs(hi) * 0.1, 1e-3);
		step = histTicStep((hi - lo) / 4);
		g_string_append_printf(sc, "set yrange [%.9g:%.9g]\nset ytics %.9g\nset xtics %u\n",
				       floor(lo / step) * step, ceil(hi / step) * step, step, nruns > 10 ? 5 : 1);
		g_string_append_printf(sc, "plot $d%s using 1:2 with linespoints pt 7 ps 0.5 lc rgb '#1f77b4' title 'measured'",
				       name);
		if (bad->len)
			g_string_append_printf(sc, ", '-' using 1:2 with points pt 7 ps 1.2 lc rgb '#b71c1c' title 'regression'\n%se",
					       bad->str);
		g_string_append_c(sc, '\n');
		g_ptr_array_add(names, g_steal_pointer(&name));
	}
}

static guint histTrial(GString *html, GString *sc, GPtrArray *names, guint t, json_object *jtrial,
		       GPtrArray *runs, const char *id)
{
	json_object *points = json_object_new_array(), *regs = json_object_new_array();
	g_autofree json_object **recs = g_new0(json_object *, runs->len + 1);
	g_autofree bool *vreg = g_new0(bool, runs->len + 1);
	g_autofree bool *nreg = g_new0(bool, (runs->len + 1) * MHL_METRIC_LAST);
	g_autoptr(GPtrArray) why = g_ptr_array_new_with_free_func(g_free);
	guint r, latest = 0;
	int m, prev = -1;

	for (r = 0; r < runs->len; r++)
		recs[r] = runTrial(runs->pdata[r], id);
	for (r = 0; r < runs->len; r++) {
		json_object *p, *rec = recs[r];
		mhlVerdict v;

		if (!rec)
			continue;
		v = mhlVerdictOf(rec);
		p = json_object_new_object();
		json_object_object_add(p, "run", json_object_new_int((int)r));
		json_object_object_add(p, MHL_K_VERDICT, json_object_new_string(mhlJStr(rec, MHL_K_VERDICT, "?")));
		if (prev >= 0 && mhlVerdictOk((mhlVerdict)prev) && !mhlVerdictOk(v)) {
			json_object *g = json_object_new_object();
			char *w = g_strdup_printf("verdict %s -> %s", mhlVerdictNames[prev],
						  v < MHL_VERDICT_LAST ? mhlVerdictNames[v] : "?");

			vreg[r] = true;
			json_object_object_add(g, "run", json_object_new_int((int)r));
			json_object_object_add(g, "what", json_object_new_string(w));
			json_object_array_add(regs, g);
			g_ptr_array_add(why, w);
			latest += r == runs->len - 1;
		}
		prev = v < MHL_VERDICT_LAST ? (int)v : (int)MHL_VERDICT_ERROR;
		for (m = 0; m < MHL_METRIC_LAST; m++) {
			double x = histValue(rec, m);

			if (isnan(x))
				continue;
			json_object_object_add(p, mhlMetrics[m].name, json_object_new_double(x));
			if (histNumberRegressed(recs, r, m, x, regs, why)) {
				nreg[r * MHL_METRIC_LAST + m] = true;
				latest += r == runs->len - 1;
			}
		}
		json_object_array_add(points, p);
	}
	json_object_object_add(jtrial, MHL_K_TRIAL, json_object_new_string(id));
	json_object_object_add(jtrial, "points", points);
	json_object_object_add(jtrial, "regressions", regs);

	histRows(html, runs, recs, vreg, nreg);
	histPlots(sc, names, recs, runs->len, id, t, nreg);
	return latest;
}

static void historyStringFree(gpointer s)
{
	g_string_free(s, TRUE);
}

/* history.json's runs[] into @jruns (oldest first, what changed on the host), every trial id into @ids. */
static void histRunsJSON(GPtrArray *runs, json_object *jruns, GPtrArray *ids)
{
	guint r, i;

	for (r = 0; r < runs->len; r++) {
		const mhlRun *run = runs->pdata[r];
		json_object *o = json_object_new_object();

		for (i = 0; i < run->trials->len; i++) {
			const char *id = mhlJStr(run->trials->pdata[i], MHL_K_TRIAL, "");

			if (!g_ptr_array_find_with_equal_func(ids, id, g_str_equal, NULL))
				g_ptr_array_add(ids, g_strdup(id));
		}
		json_object_object_add(o, "dir", json_object_new_string(run->dir));
		json_object_object_add(o, MHL_K_STARTED, json_object_new_string(runStarted(run)));
		json_object_object_add(o, "trials", json_object_new_int((int)run->trials->len));
		if (r > 0 && run->trials->len && ((const mhlRun *)runs->pdata[r - 1])->trials->len) {
			/* what changed on the host since the run before (its first record's, as this one's) */
			g_autofree char *host = mhlHostIdentityDiff(((const mhlRun *)runs->pdata[r - 1])->trials->pdata[0],
								    run->trials->pdata[0]);

			if (host)
				json_object_object_add(o, "host_changed", json_object_new_string(host));
		}
		json_object_array_add(jruns, o);
	}
}

/* The runs table, newest first: when, how many trials, what changed on the host (from @jruns). */
static void histRunsTable(GString *table, GPtrArray *runs, json_object *jruns)
{
	guint r;

	g_string_append(table, "<h2 id=runs>Runs</h2>\n<table class=runs>\n<tr><th>run</th><th>started</th>"
			"<th>trials</th><th>host</th></tr>\n");
	for (r = runs->len; r-- > 0;) {
		const mhlRun *run = runs->pdata[r];
		g_autofree char *name = g_path_get_basename(run->dir), *when = histWhen(runStarted(run));
		json_object *hc = json_object_object_get(json_object_array_get_idx(jruns, r), "host_changed");

		mhlHtmlf(table, "<tr><td>%u: %s</td><td>%s</td><td>%u</td><td>%s%s</td></tr>\n", r + 1, name, when,
			 run->trials->len, hc ? "host changed: " : "", hc ? json_object_get_string(hc) : "");
	}
	g_string_append(table, "</table>\n");
}

int mhlReportHistory(GPtrArray *runs, const char *outdir, guint *regressions)
{
	g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(json_object) doc = json_object_new_object();
	json_object *jruns = json_object_new_array();
	g_autoptr(json_object) jtrials = json_object_new_array();	/* into doc at the end, after the numbers */
	g_autoptr(GString) html = g_string_new(NULL), table = g_string_new(NULL);
	g_autoptr(GString) sc = g_string_new(MHL_PLOT_TERM("640", "220"));
	g_autoptr(GPtrArray) sections = g_ptr_array_new_with_free_func(historyStringFree);
	g_autoptr(GPtrArray) plots = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_autofree char *dir = NULL;
	const char *json;
	guint i, total = 0, nplots = 0;
	mhl_autofd int fd = -1;

	*regressions = 0;
	/* the document owns them from here: an early return frees them */
	json_object_object_add(doc, "rule", json_object_new_string(mhlHistoryRule));
	json_object_object_add(doc, "runs", jruns);
	histRunsJSON(runs, jruns, ids);
	histRunsTable(table, runs, jruns);
	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("report --history: cannot create '%s': %s", outdir, g_strerror(errno));
		return -1;
	}
	/* each trial id: its trend plots, then its table (a row per run) */
	for (i = 0; i < ids->len; i++) {
		json_object *t = json_object_new_object();
		GString *sec = g_string_new(NULL);
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		guint latest = histTrial(sec, sc, names, i, t, runs, ids->pdata[i]);

		total += json_object_array_length(json_object_object_get(t, "regressions"));
		*regressions += latest;
		json_object_array_add(jtrials, t);
		g_ptr_array_add(sections, sec);
		g_ptr_array_add(plots, names);
		nplots += names->len;
	}
	if (nplots && !(dir = mhlPlotsRender(outdir, sc, "history")))
		return -1;
	for (i = 0; i < ids->len; i++) {
		GPtrArray *names = plots->pdata[i];
		guint k;

		mhlHtmlf(table, "<h2 id='%s'>%s%s</h2>\n", (char *)ids->pdata[i], (char *)ids->pdata[i],
			 json_object_array_length(json_object_object_get(json_object_array_get_idx(jtrials, i), "regressions")) ?
			 " (regressed)" : "");
		for (k = 0; k < names->len; k++)
			mhlPlotInline(table, dir, names->pdata[k], NULL);
		g_string_append(table, ((GString *)sections->pdata[i])->str);
	}
	if (dir)
		mhlRemoveTree(dir);
	json_object_object_add(doc, "regressions", json_object_new_int((int)total));
	json_object_object_add(doc, "regressions_in_newest_run", json_object_new_int((int)*regressions));
	json_object_object_add(doc, "trials", json_object_get(jtrials));

	mhlHtmlf(html, "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<title>memhp-lab history: %u run(s)</title>\n",
	      runs->len);
	g_string_append_printf(html, "<style>%s</style>\n</head>\n<body>\n", histCss);
	g_string_append_printf(html, "<h1>memhp-lab history: %u run(s), %u trial id(s)</h1>\n", runs->len, ids->len);
	g_string_append_printf(html, "<p><b>%u regression(s)</b>, %u in the newest run (the exit status gates on those). "
			       "Runs newest first, a table per trial id; <a href='history.json'>history.json</a> (runs oldest first).</p>\n", total, *regressions);
	mhlHtmlf(html, "<p class=note>Rule: %s.</p>\n", mhlHistoryRule);
	g_string_append(html, table->str);
	g_string_append(html, "</body>\n</html>\n");
	json = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if ((fd = mhlDirOpen(outdir)) < 0) {
		mhlError("report --history: cannot open '%s': %s", outdir, g_strerror(errno));
		return -1;
	}
	if (mhlReportFileWrite(fd, outdir, "history.json", json, (gssize)strlen(json)) < 0 ||
	    mhlReportFileWrite(fd, outdir, "history.html", html->str, (gssize)html->len) < 0)
		return -1;
	return 0;
}
