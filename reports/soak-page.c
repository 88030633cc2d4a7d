/*
 * soak-page.c - a soak's own page, RUN_DIR/report/soak.html (docs/soak.md,
 * "The report"): each memory series of the soak's last guest over cycles
 * from checkpoints.jsonl, with the line its trend judgement fitted (the
 * record's soak.trends), the trend findings, and the slab caches that grew
 * between the first and the last slabinfo. Self-contained like index.html:
 * inline CSS and SVG, no script; the plots are drawn by gnuplot from one
 * script run once (argv, no shell), every record string reaching gnuplot
 * single-quoted (mhlGnuplotString) and every number printed by us. The
 * trial's section in index.html gets the findings and a link to the page.
 */
#include <glib.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/plot.h"
#include "reports/report.h"
#include "reports/table.h"
#include "util.h"

#define SOAK_PLOT_W 760
#define SOAK_PLOT_H 260
#define SOAK_POINTS_MAX 2000	/* points per plot; more are thinned evenly */
#define SOAK_KEPT_MAX (2 * SOAK_POINTS_MAX)	/* checkpoints kept for the plots; then every other goes */
#define SOAK_LINES_MAX 10000000	/* checkpoints read */
#define SOAK_PAGE "soak.html"

/* The series plotted, as the checkpoints' counters name them (series.c in soak/). */
static const struct {
	const char *series;	/* in soak.trends */
	const char *key;	/* in counters */
	double scale;		/* to bytes */
	bool dropped_only;
	const char *title;
} soakPlots[] = {
	{ "slab_unreclaimable_bytes", "slab_unreclaimable_bytes", 1, false, "unreclaimable slab (SUnreclaim)" },
	{ "slab_reclaimable_bytes", "slab_reclaimable_bytes", 1, true, "reclaimable slab after drop_caches" },
	{ "mem_free_bytes", "mem_free_bytes", 1, true, "guest free memory after drop_caches" },
	{ "vmalloc_bytes", "vmalloc_bytes", 1, false, "vmalloc" },
	{ "page_tables_bytes", "page_tables_bytes", 1, false, "page tables" },
	{ "percpu_bytes", "percpu_bytes", 1, false, "per-CPU memory" },
	{ "kernel_stack_bytes", "kernel_stack_bytes", 1, false, "kernel stacks" },
	{ "qemu_rss_bytes", "qemu_rss_bytes", 1, false, "QEMU's RSS" },
	{ "orchestrator_rss_bytes", "orchestrator_rss_kib", 1024, false, "the orchestrator's RSS" },
	{ "run_dir_bytes", "run_dir_bytes", 1, false, "the run directory" },
};

static void jsonPut(gpointer o)
{
	json_object_put(o);
}

/*
 * What the page needs of the checkpoints of the soak's last segment (the
 * guest the trends are of), read a line at a time: a soak of days has
 * hundreds of thousands, so no more than SOAK_KEPT_MAX of them are kept,
 * evenly (every stride-th, the stride doubling when they fill), each with
 * its cycle, whether it dropped the caches and the plotted counters only;
 * and its trend findings.
 */
typedef struct {
	GPtrArray *cps;		/* in file order */
	guint stride;		/* checkpoint i of the segment is kept when i % stride == 0 */
	guint n;		/* checkpoints of the segment */
	json_object *trends;	/* the trend findings of its checkpoints */
} soakCheckpoints;

static void soakCheckpointsClear(soakCheckpoints *c)
{
	g_clear_pointer(&c->cps, g_ptr_array_unref);
	g_clear_pointer(&c->trends, json_object_put);
}

static void soakCheckpointsReset(soakCheckpoints *c)
{
	soakCheckpointsClear(c);
	c->cps = g_ptr_array_new_with_free_func(jsonPut);
	c->trends = json_object_new_array();
	c->stride = 1;
	c->n = 0;
}

/* Of checkpoint @cp, what a plot reads. */
static json_object *soakCheckpointSlim(json_object *cp)
{
	json_object *o = json_object_new_object(), *cn = json_object_new_object(), *v;
	size_t i;

	json_object_object_add(o, MHL_K_CYCLE, json_object_get(mhlJ(cp, MHL_K_CYCLE)));
	if ((v = mhlJ(cp, MHL_K_DROPPED)))
		json_object_object_add(o, MHL_K_DROPPED, json_object_get(v));
	for (i = 0; i < G_N_ELEMENTS(soakPlots); i++)
		if ((v = mhlJ(mhlJ(cp, MHL_K_COUNTERS), soakPlots[i].key)))
			json_object_object_add(cn, soakPlots[i].key, json_object_get(v));
	json_object_object_add(o, MHL_K_COUNTERS, cn);
	return o;
}

static void soakCheckpointTake(soakCheckpoints *c, json_object *cp)
{
	json_object *fs = mhlJ(cp, MHL_K_FINDINGS);
	GPtrArray *even;
	size_t k;
	guint j;

	for (k = 0; fs && json_object_is_type(fs, json_type_array) && k < json_object_array_length(fs); k++) {
		json_object *f = json_object_array_get_idx(fs, k);

		if (!strcmp(mhlJStr(f, MHL_K_KIND, ""), "trend"))
			json_object_array_add(c->trends, json_object_get(f));
	}
	if (c->n++ % c->stride)
		return;
	g_ptr_array_add(c->cps, soakCheckpointSlim(cp));
	if (c->cps->len < SOAK_KEPT_MAX)
		return;
	even = g_ptr_array_new_full(SOAK_KEPT_MAX, jsonPut);	/* every 2 * stride-th */
	for (j = 0; j < c->cps->len; j += 2)
		g_ptr_array_add(even, json_object_get(c->cps->pdata[j]));
	g_ptr_array_unref(c->cps);
	c->cps = even;
	c->stride *= 2;
}

static void soakCheckpointsRead(const mhlRun *run, soakCheckpoints *c)
{
	g_autofree char *line = NULL;
	/* below RUN_DIR's descriptor: a regular file, never a link or a FIFO */
	int fd = mhlOpenAt(run->dirfd, "checkpoints.jsonl", O_RDONLY, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;

	if (!f && fd >= 0)
		close(fd);
	size_t cap = 0, lines = 0;
	gint64 seg = -1;
	ssize_t len;

	soakCheckpointsReset(c);
	if (!f)
		return;	/* no checkpoints: a page without plots */
	while (lines++ < SOAK_LINES_MAX && (len = getline(&line, &cap, f)) > 0) {
		g_autoptr(json_object) cp = json_tokener_parse(line);

		if (!cp || !json_object_is_type(cp, json_type_object) ||
		    !json_object_is_type(mhlJ(cp, MHL_K_COUNTERS), json_type_object))
			continue;
		if (mhlJInt(cp, MHL_K_SEGMENT, 0) != seg) {
			soakCheckpointsReset(c);
			seg = mhlJInt(cp, MHL_K_SEGMENT, 0);
		}
		soakCheckpointTake(c, cp);
	}
	fclose(f);
}

/* The row of soak.trends for @series, or NULL. */
static json_object *trendRow(json_object *rec, const char *series)
{
	json_object *t = mhlJ(rec, MHL_PATH(MHL_K_SOAK, MHL_K_TRENDS));
	size_t i;

	for (i = 0; t && json_object_is_type(t, json_type_array) && i < json_object_array_length(t); i++) {
		json_object *r = json_object_array_get_idx(t, i);

		if (!strcmp(mhlJStr(r, MHL_K_SERIES, ""), series))
			return r;
	}
	return NULL;
}

/*
 * Whether a row of soak.trends is a finding: its "finding" (a significant
 * growth over the budget, or of the orchestrator's own memory at all);
 * records from before that key have only "over_budget".
 */
static bool trendFinding(json_object *row)
{
	json_object *f = mhlJ(row, MHL_K_FINDING);

	return json_object_get_boolean(f ? f : mhlJ(row, MHL_K_OVER_BUDGET));
}

/* A series that moves less than this (MiB) over the soak is drawn on a 2 MiB axis. */
#define SOAK_FLAT_MIB (1.0 / 1024)

/* One plot per series with points; its name into @names. */
static void soakGnuplot(GString *sc, GPtrArray *names, GPtrArray *cps, json_object *rec)
{
	size_t i, k;

	for (i = 0; i < G_N_ELEMENTS(soakPlots); i++) {
		g_autoptr(GString) data = g_string_new(NULL);
		json_object *row = trendRow(rec, soakPlots[i].series);
		g_autofree char *title = NULL, *data_name = NULL;
		size_t n = 0, step = cps->len / SOAK_POINTS_MAX + 1;
		double lo = 0, hi = 0, y;

		for (k = 0; k < cps->len; k += step) {
			json_object *cp = cps->pdata[k], *v = mhlJ(mhlJ(cp, MHL_K_COUNTERS), soakPlots[i].key);

			if (!v || !json_object_is_type(v, json_type_int) ||
			    (soakPlots[i].dropped_only && !json_object_get_boolean(mhlJ(cp, MHL_K_DROPPED))))
				continue;
			y = (double)json_object_get_int64(v) * soakPlots[i].scale / (1 << 20);
			g_string_append_printf(data, "%" G_GINT64_FORMAT " %.6f\n", mhlJInt(cp, MHL_K_CYCLE, 0), y);
			lo = n ? MIN(lo, y) : y;
			hi = n ? MAX(hi, y) : y;
			n++;
		}
		if (n < 2)
			continue;
		g_ptr_array_add(names, g_strdup_printf("s%zu", i));
		title = g_strdup_printf("%s, MiB over cycles%s", soakPlots[i].title,
					soakPlots[i].dropped_only ? " (checkpoints after drop_caches)" : "");
		mhlPlotBegin(sc, names->pdata[names->len - 1], title);
		g_string_append(sc, "set xlabel 'cycle'\nset ylabel 'MiB'\nset key top left\n");
		data_name = g_strdup_printf("d%zu", i);
		mhlPlotData(sc, data_name, data->str);
		/* a flat series (vmalloc, percpu): 1 MiB either side, not an axis of 0.0000003 MiB */
		if (hi - lo < SOAK_FLAT_MIB)
			g_string_append_printf(sc, "set yrange [%.6f:%.6f]\n", lo - 1, hi + 1);
		g_string_append_printf(sc, "plot $d%zu using 1:2 with points pt 7 ps 0.4 lc rgb '#1f77b4' title 'measured'", i);
		if (row) {
			double b = mhlJDbl(row, MHL_PATH(MHL_K_PER_CYCLE, MHL_K_SLOPE), 0), a = mhlJDbl(row, MHL_PATH(MHL_K_PER_CYCLE, MHL_K_INTERCEPT), 0);
			g_autofree char *fit = g_strdup_printf("%s: %.0f bytes/cycle%s",
				!strcmp(mhlJStr(row, MHL_K_FIT, ""), "theil_sen") ? "Theil-Sen" : "least squares", b,
				trendFinding(row) ? ", FINDING" : "");
			g_autofree char *fq = mhlGnuplotString(fit);

			if (isfinite(a) && isfinite(b))
				g_string_append_printf(sc, ", (%.6f + %.9f * x) / 1048576 with lines lw 2 lc rgb '#d62728' title %s noenhanced",
						       a, b, fq);
		}
		g_string_append_c(sc, '\n');
	}
}



/* "N cycles in K segment(s) over T (R cycles/hour), F finding(s)": the soak at a glance. */
static void soakOutline(GString *out, json_object *rec)
{
	mhlSummary m;
	double s;

	mhlSummaryRead(rec, &m);
	s = MAX(m.soak_seconds, 0);
	g_string_append_printf(out, "<p class=soak><b>%" G_GINT64_FORMAT " cycle(s)</b> in %" G_GINT64_FORMAT
			       " segment(s) over %d min %d s", MAX(m.cycles, 0), MAX(m.segments, 1),
			       (int)(s / 60), (int)s % 60);
	if (m.cycles_per_hour >= 0)
		g_string_append_printf(out, " (%.0f cycles/hour)", m.cycles_per_hour);
	g_string_append_printf(out, ", <b>%" G_GINT64_FORMAT " finding(s)</b>.</p>\n", MAX(m.findings, 0));
}

/* "SLOPE [LO, HI]" of a fit (per_cycle, per_hour) at c->key. */
static void trendFitCell(GString *out, json_object *r, size_t idx, const mhlCol *c)
{
	json_object *fit = mhlJ(r, c->key);
	g_autofree char *t = g_strdup_printf("%.0f [%.0f, %.0f]", mhlJDbl(fit, MHL_K_SLOPE, 0), mhlJDbl(fit, MHL_K_LO, 0),
					     mhlJDbl(fit, MHL_K_HI, 0));

	(void)idx;
	mhlHtmlCell(out, NULL, t);
}

/* Bytes at c->key as MiB with c->prec decimals. */
static void trendMiBCell(GString *out, json_object *r, size_t idx, const mhlCol *c)
{
	g_autofree char *t = g_strdup_printf("%.*f MiB", c->prec, mhlJDbl(r, c->key, 0) / (1 << 20));

	(void)idx;
	mhlHtmlCell(out, NULL, t);
}

static void trendJudgedCell(GString *out, json_object *r, size_t idx, const mhlCol *c)
{
	bool sig = json_object_get_boolean(mhlJ(r, MHL_K_SIGNIFICANT));
	bool over = json_object_get_boolean(mhlJ(r, MHL_K_OVER_BUDGET));

	(void)idx;
	(void)c;
	mhlHtmlCell(out, NULL, trendFinding(r) ? (over ? "finding" : "finding: our own memory grows, within budget") :
		    !json_object_get_boolean(mhlJ(r, MHL_K_JUDGED)) ? "shown, not judged" :
		    sig ? "significant, within budget" : "no significant trend");
}

/* soak.trends[]: a row per series fitted. */
static const mhlCol trendCols[] = {
	MHL_COL_STR("series", MHL_K_SERIES, "?"),
	MHL_COL_FMT("points", MHL_K_POINTS, NULL),
	MHL_COL_STR("basis", MHL_K_BASIS, "?"),
	MHL_COL_STR("fit", MHL_K_FIT, "?"),
	MHL_COL("bytes/cycle [95% CI]", MHL_K_PER_CYCLE, trendFitCell),
	MHL_COL("bytes/hour [95% CI]", MHL_K_PER_HOUR, trendFitCell),
	MHL_COL_NUM("24 h projection", MHL_K_PROJECTION_24H, trendMiBCell, 1, 2),
	MHL_COL_NUM("budget (24 h)", MHL_K_BUDGET_24H, trendMiBCell, 1, 1),
	MHL_COL("judged", MHL_K_FINDING, trendJudgedCell),
};

static void soakTrendTable(GString *out, json_object *rec)
{
	json_object *t = mhlJ(rec, MHL_PATH(MHL_K_SOAK, MHL_K_TRENDS));
	size_t i;

	if (!t || !json_object_is_type(t, json_type_array) || !json_object_array_length(t)) {
		g_string_append(out, "<p class=note>No series had enough points for a trend.</p>\n");
		return;
	}
	g_string_append(out, "<table class=trends>\n");
	mhlHtmlTableHead(out, trendCols, G_N_ELEMENTS(trendCols));
	for (i = 0; i < json_object_array_length(t); i++) {
		json_object *r = json_object_array_get_idx(t, i);

		mhlHtmlTableRowClass(out, trendFinding(r) ? "fail" : "pass", r, i, trendCols, G_N_ELEMENTS(trendCols));
	}
	g_string_append(out, "</table>\n");
}

/*
 * Every trend finding: the checkpoints' (each judges every series again;
 * @trends), with their withdrawals, and the end's, the final judgement.
 */
static void soakFindings(GString *out, json_object *trends, json_object *rec)
{
	g_autoptr(GString) items = g_string_new(NULL);
	json_object *end = mhlJ(rec, MHL_PATH(MHL_K_SOAK, MHL_K_FINDINGS));
	guint i, n = 0;
	size_t k;

	for (i = 0; i < 2; i++) {
		json_object *fs = i ? end : trends;

		for (k = 0; fs && json_object_is_type(fs, json_type_array) && k < json_object_array_length(fs); k++) {
			json_object *f = json_object_array_get_idx(fs, k);

			const char *kind = mhlJStr(f, MHL_K_KIND, "");

			if (strcmp(kind, "trend") && strcmp(kind, "trend_withdrawn"))
				continue;
			n++;
			mhlHtmlf(items, "<li>%s, cycle %" G_GINT64_FORMAT "%s: %s</li>\n", i ? "end (the final judgement)" : "checkpoint",
			      mhlJInt(f, MHL_K_CYCLE, 0), strcmp(kind, "trend") ? ", withdrawn" : "", mhlJStr(f, MHL_K_TEXT, ""));
		}
	}
	if (!n) {
		g_string_append(out, "<p>Trends: no series grew significantly beyond its budget.</p>\n");
		return;
	}
	g_string_append_printf(out, "<h4>Trend findings and withdrawals (%u)</h4>\n<ul>\n%s</ul>\n", n, items->str);
}

static void slabFirstLastCell(GString *out, json_object *r, size_t idx, const mhlCol *c)
{
	(void)idx;
	(void)c;
	mhlHtmlf(out, "<td>%" G_GINT64_FORMAT " → %" G_GINT64_FORMAT "</td>", mhlJInt(r, MHL_K_OBJECTS_FIRST, 0),
		 mhlJInt(r, MHL_K_OBJECTS_LAST, 0));
}

/* soak.slab_growth[]: a row per cache grown. */
static const mhlCol slabCols[] = {
	MHL_COL_STR("cache", MHL_K_NAME, "?"),
	MHL_COL_FMT("objects", MHL_K_OBJECTS, "+%" G_GINT64_FORMAT),
	MHL_COL_FMT("object size", MHL_K_OBJSIZE, NULL),
	MHL_COL_FMT("bytes of objects", MHL_K_BYTES, "+%" G_GINT64_FORMAT),
	MHL_COL_FMT("slab bytes", MHL_K_SLAB_BYTES, "%+" G_GINT64_FORMAT),
	MHL_COL("objects first → last", MHL_K_OBJECTS_FIRST, slabFirstLastCell),
};

/* soak.kmemleak.sites[]: a row per allocation site. */
static const mhlCol kmemleakCols[] = {
	MHL_COL_STR("allocated in", MHL_K_SITE, "?"),
	MHL_COL_FMT("objects", MHL_K_OBJECTS, NULL),
	MHL_COL_FMT("bytes", MHL_K_BYTES, NULL),
};

static void soakSlabTable(GString *out, json_object *rec)
{
	json_object *g = mhlJ(rec, MHL_PATH(MHL_K_SOAK, MHL_K_SLAB_GROWTH));
	size_t i;

	mhlHtmlf(out, "<h3>Slab caches grown from cycle %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " (after drop_caches)</h3>\n",
	      mhlJInt(rec, MHL_PATH(MHL_K_SOAK, MHL_K_SLAB_FIRST_CYCLE), 0), mhlJInt(rec, MHL_PATH(MHL_K_SOAK, MHL_K_SLAB_LAST_CYCLE), 0));
	if (!g || !json_object_is_type(g, json_type_array) || !json_object_array_length(g)) {
		g_string_append(out, "<p class=note>No cache grew (or no slabinfo was taken).</p>\n");
		return;
	}
	g_string_append(out, "<table class=slab>\n");
	mhlHtmlTableHead(out, slabCols, G_N_ELEMENTS(slabCols));
	for (i = 0; i < json_object_array_length(g); i++)
		mhlHtmlTableRow(out, json_object_array_get_idx(g, i), i, slabCols, G_N_ELEMENTS(slabCols));
	g_string_append(out, "</table>\n");
}

/* kernel: {debug: kmemleak}: what the scans at the end found since the scan after boot. */
static void soakKmemleakTable(GString *out, json_object *rec)
{
	json_object *km = mhlJ(rec, MHL_PATH(MHL_K_SOAK, MHL_K_KMEMLEAK)), *sites = mhlJ(km, MHL_K_SITES);
	const char *report = mhlJStr(km, MHL_K_REPORT, "");
	size_t i;

	if (!json_object_is_type(km, json_type_object))
		return;
	mhlHtmlf(out, "<h3>kmemleak: %" G_GINT64_FORMAT " unreferenced object(s), %" G_GINT64_FORMAT
		 " bytes, since the scan after boot</h3>\n", mhlJInt(km, MHL_K_OBJECTS, 0), mhlJInt(km, MHL_K_BYTES, 0));
	/* the record is not trusted: link only a name the soak itself writes */
	if (g_regex_match_simple("^kmemleak-segment[0-9]{1,6}\\.txt$", report, 0, 0))
		mhlHtmlf(out, "<p><a href='../%s'>%s</a>: the guest's report (two scans at the end)</p>\n",
			 report, report);
	if (!json_object_is_type(sites, json_type_array) || !json_object_array_length(sites))
		return;
	g_string_append(out, "<table class=kmemleak>\n");
	mhlHtmlTableHead(out, kmemleakCols, G_N_ELEMENTS(kmemleakCols));
	for (i = 0; i < json_object_array_length(sites); i++)
		mhlHtmlTableRow(out, json_object_array_get_idx(sites, i), i, kmemleakCols, G_N_ELEMENTS(kmemleakCols));
	g_string_append(out, "</table>\n");
}

static const char soakCss[] =
	"body{font-family:sans-serif;margin:1.5em;max-width:1100px}table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;text-align:left}tr.fail td{background:#fde2e2}"
	"figure.plot{margin:.5em 0}.note{color:#666}";

int mhlSoakPage(GString *out, const mhlRun *run, json_object *rec, const char *outdir, int outfd)
{
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(GString) page = NULL, sc = NULL;
	soakCheckpoints c = { 0 };
	g_autofree char *dir = NULL;
	guint i;
	int rc;

	if (!json_object_is_type(mhlJ(rec, MHL_K_SOAK), json_type_object))
		return 0;
	soakCheckpointsRead(run, &c);
	names = g_ptr_array_new_with_free_func(g_free);
	sc = g_string_new(MHL_PLOT_TERM(G_STRINGIFY(SOAK_PLOT_W), G_STRINGIFY(SOAK_PLOT_H)));
	soakGnuplot(sc, names, c.cps, rec);
	if (names->len && !(dir = mhlPlotsRender(outdir, sc, "soak page"))) {
		soakCheckpointsClear(&c);
		return -1;
	}
	page = g_string_new(NULL);
	mhlHtmlf(page, "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<title>soak %s</title>\n",
	      mhlJStr(rec, MHL_K_TRIAL, ""));
	g_string_append_printf(page, "<style>%s</style>\n</head>\n<body>\n", soakCss);
	mhlHtmlf(page, "<h1>soak %s: %s</h1>\n<p><a href='index.html'>the report</a> · "
	      "<a href='../checkpoints.jsonl'>checkpoints.jsonl</a> (the data) · %u checkpoints of the last guest</p>\n",
	      mhlJStr(rec, MHL_K_TRIAL, ""), mhlJStr(rec, MHL_K_VERDICT, ""), c.n);
	if (mhlJStr(rec, MHL_K_REASON, NULL))
		mhlHtmlf(page, "<p><b>Reason:</b> %s</p>\n", mhlJStr(rec, MHL_K_REASON, ""));
	soakFindings(page, c.trends, rec);
	g_string_append(page, "<h3>Trends (least squares with a Student-t 95 % interval; Theil-Sen for free memory)</h3>\n");
	soakTrendTable(page, rec);
	soakSlabTable(page, rec);
	soakKmemleakTable(page, rec);
	g_string_append(page, "<h3>Series over cycles, with the fitted line</h3>\n");
	for (i = 0; i < names->len; i++)
		mhlPlotInline(page, dir, names->pdata[i], NULL);
	g_string_append(page, "</body>\n</html>\n");
	if (dir)
		mhlRemoveTree(dir);
	rc = mhlReportFileWrite(outfd, outdir, SOAK_PAGE, page->str, page->len);
	/* in the trial's section of index.html: what the soak did, its findings and verdicts, the link */
	g_string_append(out, "<h4>Soak</h4>\n");
	soakOutline(out, rec);
	soakFindings(out, c.trends, rec);
	soakTrendTable(out, rec);
	soakCheckpointsClear(&c);
	mhlHtmlf(out, "<p><a href='%s'>The soak's page</a>: %u series plotted with their fitted lines, the trend table and the slab caches that grew.</p>\n",
	      SOAK_PAGE, names->len);
	return rc;
}
