/*
 * report-html.c - RUN_DIR/report/index.html: one self-contained page (inline
 * CSS and SVG, no script, no network) with a summary table, a matrix plot
 * when the trials have parameters, and per trial the plugged-size timeline,
 * the census of the pinned buffers, pin outcomes, console findings and links
 * to the raw record and the serial log. Every plot is drawn by gnuplot
 * (`set terminal svg`) from one script, run once (reports/plot.c: argv, no shell).
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "reports/plot.h"
#include "reports/scale.h"
#include "reports/report.h"
#include "reports/table.h"
#include "util.h"

/*
 * The plots' size and text: 12 px text (tics, keys, titles, labels)
 * at 1:1 in a 900 px plot, which a 1366 px laptop window shows unscaled
 * (tools/report-check.sh measures it at 11 px or more as rendered).
 */
#define PLOT_W 900
#define PLOT_H 360
/* The timeline is taller: its step labels stand above the plot, not on its data. */
#define TIMELINE_H 520
/* A step label longer than this many characters keeps its start and an ellipsis. */
#define STEP_LABEL_MAX 18

typedef struct {
	GString *script;	/* the gnuplot script, all plots */
	GPtrArray *names;	/* plot names, "p<N>" */
	char *dir;		/* where gnuplot runs and writes p<N>.svg */
} htmlPlots;

static void htmlPlotsClear(htmlPlots *p)
{
	if (p->dir)
		mhlRemoveTree(p->dir);
	g_free(p->dir);
	if (p->script)
		g_string_free(p->script, TRUE);
	if (p->names)
		g_ptr_array_unref(p->names);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(htmlPlots, htmlPlotsClear)



/* Start a plot; returns its name. The caller appends the body (ending with a plot command). */
static const char *plotBegin(htmlPlots *p, const char *title)
{
	char *name = g_strdup_printf("p%u", p->names->len + 1);

	g_ptr_array_add(p->names, name);
	mhlPlotBegin(p->script, name, title);
	g_string_append(p->script, "set border lc rgb '#555555'\n");
	return name;
}

static int plotsRender(htmlPlots *p, const char *outdir)
{
	if (!p->names->len)
		return 0;
	p->dir = mhlPlotsRender(outdir, p->script, "html");
	return p->dir ? 0 : -1;
}

static double mib(gint64 bytes)
{
	return bytes / 1048576.0;
}

static void gstringFree(gpointer s)
{
	g_string_free(s, TRUE);
}

/* ---- per-trial plots ---- */

/* The timeline's last second: its own length, the latest event and the end of the latest step. */
static double timelineEnd(json_object *rec, json_object *tl, json_object *steps)
{
	double tend = mhlJDbl(rec, MHL_K_SECONDS, 0);
	size_t i;

	for (i = 0; i < json_object_array_length(tl); i++)
		tend = MAX(tend, mhlJDbl(json_object_array_get_idx(tl, i), MHL_K_T, 0));
	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		tend = MAX(tend, mhlJDbl(s, MHL_K_T, 0) + mhlJDbl(s, MHL_K_SECONDS, 0));
	}
	return tend;
}

/*
 * Axes, and a dashed marker at each step's start, labelled "N step" above the
 * plot (a tic of the top axis, x2, linked to x): the label stands in the
 * margin, where no line or point of the data is drawn.
 */
static void timelineAxes(GString *sc, json_object *steps, double tend)
{
	g_autoptr(GString) tics = g_string_new(NULL);
	size_t i, next;
	glong longest = 0;

	g_string_append_printf(sc, "set xlabel 'seconds since the domain was created'\nset ylabel 'MiB'\n"
			       "set key below noenhanced height 1\nset xrange [0:%.3f]\nset yrange [0:*]\n", tend * 1.02);
	/*
	 * A marker per step; steps that start closer than 3 % of the axis
	 * (about 22 px of a 900 px plot, an upright 12 px label needs 15) share
	 * one label ("5-8", the steps table names them), so no two labels
	 * overlap.
	 */
	for (i = 0; steps && i < json_object_array_length(steps); i = next) {
		json_object *s = json_object_array_get_idx(steps, i);
		g_autofree char *sn = mhlStepName(s), *lab = NULL, *ql = NULL;
		double t = mhlJDbl(s, MHL_K_T, -1), t2;
		size_t last = i;

		for (next = i + 1; steps && next < json_object_array_length(steps); next++) {
			t2 = mhlJDbl(json_object_array_get_idx(steps, next), MHL_K_T, -1);
			if (t < 0 || t2 < 0 || t2 - t >= tend * 0.03)
				break;
			g_string_append_printf(sc, "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 lc rgb '#888888'\n",
					       t2, t2);
			last = next;
		}
		if (t < 0)
			continue;
		if (last > i) {
			lab = g_strdup_printf("%zu-%zu", i + 1, last + 1);
		} else {
			lab = g_strdup_printf("%zu %s", i + 1, sn);
			if (g_utf8_validate(lab, -1, NULL) && g_utf8_strlen(lab, -1) > STEP_LABEL_MAX) {
				g_autofree char *cut = g_utf8_substring(lab, 0, STEP_LABEL_MAX - 1);

				g_free(lab);
				lab = g_strdup_printf("%s…", cut);
			}
		}
		ql = mhlGnuplotString(lab);
		g_string_append_printf(sc, "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 lc rgb '#888888'\n",
				       t, t);
		g_string_append_printf(tics, "%s%s %.3f", tics->len ? ", " : "", ql, t);
		longest = MAX(longest, g_utf8_validate(lab, -1, NULL) ? g_utf8_strlen(lab, -1) : (glong)strlen(lab));
	}
	if (tics->len)
		g_string_append_printf(sc, "set link x2\nset xtics nomirror\n"
				       "set x2tics (%s) rotate by 90 left scale 0 font ',12' tc rgb '#555555' noenhanced\n",
				       tics->str);
	/*
	 * gnuplot's own top margin for upright tic labels is far too generous:
	 * the title (40 px with a gap, a label at the top: plotTimeline) and
	 * the longest label (8 px a character at 12 px).
	 */
	g_string_append_printf(sc, "set tmargin at screen %.3f\n", 1 - (40.0 + 8 * longest) / TIMELINE_H);
}

/*
 * The "t MiB" rows of node @node's timeline entries from @source, each its
 * @key in MiB; returns the last entry's bytes, or @last when there is none.
 */
static gint64 timelinePoints(GString *sc, json_object *tl, const char *source, size_t node,
			     const char *key, gint64 last)
{
	size_t i;

	for (i = 0; i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);

		if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), source) && mhlJInt(e, MHL_K_NODE, -1) == (gint64)node) {
			last = mhlJInt(e, key, 0);
			g_string_append_printf(sc, "%.3f %.3f\n", mhlJDbl(e, MHL_K_T, 0), mib(last));
		}
	}
	return last;
}

/*
 * Node @j's requested size (from the domain's initial value and every
 * request) and plugged size (QMP) as steps to @tend: datablocks $reqJ and
 * $qmpJ into @sc, their plot clauses into @plot. Returns the series added.
 */
static int timelineNode(GString *sc, GString *plot, json_object *tl, json_object *n, size_t j,
			double tend, int series)
{
	gint64 last_req = mhlJInt(n, MHL_K_VIRTIO_MEM_REQUESTED_BYTES, -1), last_qmp;

	if (mhlJInt(n, MHL_K_VIRTIO_MEM_SIZE_BYTES, -1) < 0)
		return 0;
	g_string_append_printf(sc, "$req%zu << EOD\n0 %.3f\n", j, mib(MAX(last_req, 0)));
	last_req = timelinePoints(sc, tl, "request", j, MHL_K_REQUESTED_BYTES, last_req);
	g_string_append_printf(sc, "%.3f %.3f\nEOD\n$qmp%zu << EOD\n", tend, mib(MAX(last_req, 0)), j);
	last_qmp = timelinePoints(sc, tl, "qmp", j, MHL_K_SIZE_BYTES, -1);
	if (last_qmp >= 0)
		g_string_append_printf(sc, "%.3f %.3f\n", tend, mib(last_qmp));
	g_string_append(sc, "EOD\n");
	g_string_append_printf(plot, "%s$req%zu using 1:2 with steps lw 2 lc rgb '#1565c0' title 'requested, node %zu'",
			       series ? ", " : "", j, j);
	if (last_qmp >= 0)
		g_string_append_printf(plot, ", $qmp%zu using 1:2 with steps lw 2 lc rgb '#e65100' "
				       "title 'plugged (QMP query-memory-devices), node %zu'", j, j);
	return 1;
}

/*
 * MEMORY_DEVICE_SIZE_CHANGE events as points, one series per device alias
 * in alias order: datablocks $evN into @sc, clauses into @plot. Returns the
 * series added.
 */
static int timelineEvents(GString *sc, GString *plot, json_object *tl, int series)
{
	g_autoptr(GHashTable) aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							      gstringFree);
	g_autoptr(GList) keys = NULL;
	GList *k;
	size_t i;
	int a = 0;

	for (i = 0; i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);
		const char *alias = mhlJStr(e, MHL_K_ALIAS, NULL);
		GString *d;

		if (strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "event") || !alias)
			continue;
		if (!(d = g_hash_table_lookup(aliases, alias))) {
			d = g_string_new(NULL);
			g_hash_table_insert(aliases, g_strdup(alias), d);
		}
		g_string_append_printf(d, "%.3f %.3f\n", mhlJDbl(e, MHL_K_T, 0), mib(mhlJInt(e, MHL_K_SIZE_BYTES, 0)));
	}
	keys = g_list_sort(g_hash_table_get_keys(aliases), (GCompareFunc)strcmp);
	for (k = keys; k; k = k->next, a++) {
		GString *d = g_hash_table_lookup(aliases, k->data);
		g_autofree char *ql = g_strdup_printf("size-change event, %s", (char *)k->data);
		g_autofree char *qt = mhlGnuplotString(ql);

		g_string_append_printf(sc, "$ev%d << EOD\n%sEOD\n", a, d->str);
		g_string_append_printf(plot, "%s$ev%d using 1:2 with points pt 7 ps 0.8 lc rgb '#2e7d32' title %s",
				       series + a ? ", " : "", a, qt);
	}
	return a;
}

/* A node number from a record's key ("1"), or -1 for anything else. */
static gint64 hostNodeKey(const char *k)
{
	guint64 n;

	return g_ascii_string_to_unsigned(k, 10, 0, 4096, &n, NULL) ? (gint64)n : -1;
}

static gint int64Cmp(gconstpointer a, gconstpointer b)
{
	gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The nodes whose backend to draw: those a request resized (the timeline's
 * "request" entries) that have backend bytes in a host entry, or every node
 * with backend bytes when no resized one has any; ascending.
 */
static GArray *hostNodes(json_object *tl)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(gint64)), *resized = g_array_new(FALSE, FALSE, sizeof(gint64));
	size_t i;
	guint k;

	for (i = 0; i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i), *b = mhlJObj(e, MHL_K_BACKEND_BYTES);

		if (strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "host") || !b)
			continue;
		json_object_object_foreach(b, key, v) {
			gint64 n = hostNodeKey(key);

			(void)v;
			for (k = 0; k < all->len && g_array_index(all, gint64, k) != n; k++)
				;
			if (n >= 0 && k == all->len)
				g_array_append_val(all, n);
		}
	}
	for (k = 0; k < all->len; k++) {
		gint64 n = g_array_index(all, gint64, k);

		for (i = 0; i < json_object_array_length(tl); i++) {
			json_object *e = json_object_array_get_idx(tl, i);

			if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "request") && mhlJInt(e, MHL_K_NODE, -1) == n) {
				g_array_append_val(resized, n);
				break;
			}
		}
	}
	if (resized->len) {
		g_array_unref(all);
		all = resized;
	} else {
		g_array_unref(resized);
	}
	g_array_sort(all, int64Cmp);
	return all;
}

/*
 * The host side (timeline entries of source "host", host/hostmem.c), in
 * MiB on the right-hand axis: QEMU's resident set, its hugetlb mappings when
 * it has any, and the resident bytes of each resized node's virtio-mem
 * backend: datablock $host (t, rss, hugetlb, a column per node; -1 where an
 * entry has no figure) into @sc, clauses into @plot. Node numbers come from
 * the record's keys: only plain numbers are drawn, printed as numbers.
 * Returns the series added.
 */
static int timelineHost(GString *sc, GString *plot, json_object *tl, double tend, int series)
{
	static const char *const colors[] = { "#ad1457", "#00838f", "#6d4c41", "#558b2f" };
	g_autoptr(GString) d = g_string_new(NULL), last = g_string_new(NULL);
	g_autoptr(GArray) nodes = hostNodes(tl);
	bool any_huge = false;
	size_t i;
	guint k;
	int added = 1;

	for (i = 0; i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);
		gint64 rss = mhlJInt(e, MHL_K_QEMU_RSS_BYTES, -1), huge = mhlJInt(e, MHL_K_QEMU_HUGETLB_BYTES, -1);

		if (strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "host"))
			continue;
		any_huge |= huge >= 0;
		g_string_printf(last, " %.3f %.3f", rss < 0 ? -1 : mib(rss), huge < 0 ? -1 : mib(huge));
		for (k = 0; k < nodes->len; k++) {
			g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT, g_array_index(nodes, gint64, k));
			json_object *v = mhlJ(mhlJObj(e, MHL_K_BACKEND_BYTES), key);
			gint64 b = v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ?
				json_object_get_int64(v) : -1;

			g_string_append_printf(last, " %.3f", b < 0 ? -1 : mib(b));
		}
		g_string_append_printf(d, "%.3f%s\n", mhlJDbl(e, MHL_K_T, 0), last->str);
	}
	if (!d->len)
		return 0;
	g_string_append_printf(d, "%.3f%s\n", tend, last->str);
	g_string_append_printf(sc, "$host << EOD\n%sEOD\nset ytics nomirror\nset y2tics tc rgb '#6a1b9a'\n"
			       "set y2label 'host MiB (resident)' tc rgb '#6a1b9a'\nset y2range [0:*]\n", d->str);
	g_string_append_printf(plot, "%s$host using 1:($2 < 0 ? NaN : $2) axes x1y2 with steps lw 1 dt 2 "
			       "lc rgb '#6a1b9a' title 'host: QEMU resident (right axis)'", series ? ", " : "");
	if (any_huge) {
		g_string_append(plot, ", $host using 1:($3 < 0 ? NaN : $3) axes x1y2 with steps lw 1 dt 3 "
				"lc rgb '#4527a0' title 'host: QEMU hugetlb (right axis)'");
		added++;
	}
	for (k = 0; k < nodes->len; k++, added++)
		g_string_append_printf(plot, ", $host using 1:($%u < 0 ? NaN : $%u) axes x1y2 with steps lw 2 "
				       "lc rgb '%s' title 'host: virtio-mem backends resident (right axis), node %" G_GINT64_FORMAT "'",
				       k + 4, k + 4, colors[k % G_N_ELEMENTS(colors)], g_array_index(nodes, gint64, k));
	return added;
}

/* requested vs plugged over time for every virtio-mem node, step markers from steps[].t */
static const char *plotTimeline(htmlPlots *p, json_object *rec)
{
	json_object *tl = mhlJ(rec, MHL_K_TIMELINE), *steps = mhlJ(rec, MHL_K_STEPS);
	json_object *nodes = mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES));
	g_autoptr(GString) plot = g_string_new(NULL), sc = g_string_new(NULL);
	g_autofree char *title = g_strdup_printf("%s: virtio-mem size over time", mhlJStr(rec, MHL_K_TRIAL, ""));
	g_autofree char *qt = NULL;
	const char *name;
	double tend;
	size_t j;
	int series = 0;

	if (!tl || !json_object_array_length(tl))
		return NULL;
	tend = timelineEnd(rec, tl, steps);
	timelineAxes(sc, steps, tend);
	mhlLifecycleGnuplot(sc, rec, tend);	/* lifecycle steps (issue 34): a band and a label each */
	mhlElasticGnuplot(sc, rec, tend);	/* the other paths (issue 35): the same */
	for (j = 0; nodes && j < json_object_array_length(nodes); j++)
		series += timelineNode(sc, plot, tl, json_object_array_get_idx(nodes, j), j, tend, series);
	series += timelineEvents(sc, plot, tl, series);
	if (!series)	/* a timeline with no virtio-mem node and no event: nothing to draw */
		return NULL;
	timelineHost(sc, plot, tl, tend, series);
	name = plotBegin(p, title);
	/* the title at the top: gnuplot would set it above its own (too tall) guess of the step labels' height */
	qt = mhlGnuplotString(title);
	g_string_append_printf(p->script, MHL_PLOT_TERM("%d", "%d") "set output '%s.svg'\nunset title\n"
			       "set label %s at screen 0.5, screen 1 offset 0, -1.2 center noenhanced\n%splot %s\n"
			       MHL_PLOT_TERM("%d", "%d"), PLOT_W, TIMELINE_H, name, qt, sc->str, plot->str, PLOT_W, PLOT_H);
	return name;
}

static gint censusColCmp(gconstpointer a, gconstpointer b);

/* node:zone census of every pin step's buffer, before and after the pin, stacked */
static const char *plotCensus(htmlPlots *p, json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS);
	g_autoptr(GPtrArray) cols = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) rows = g_ptr_array_new();	/* json census objects */
	g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *title = g_strdup_printf("%s: where the pinned buffer's pages are (node zone)",
						 mhlJStr(rec, MHL_K_TRIAL, ""));
	const char *name;
	size_t i, c;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		const char *when[] = { MHL_PIN_K_CENSUS_BEFORE, MHL_PIN_K_CENSUS_AFTER }, *what[] = { "before", "after" };
		size_t w;

		if (strcmp(mhlJStr(s, MHL_K_STEP, ""), "pin"))
			continue;
		for (w = 0; w < 2; w++) {
			json_object *cen = mhlJ(mhlJ(s, MHL_K_WORKLOAD), when[w]), *bn = mhlJ(cen, MHL_PIN_K_BY_NODE);

			if (!bn)
				continue;
			json_object_object_foreach(bn, node, zones) {
				json_object_object_foreach(zones, zone, pages) {
					g_autofree char *col = g_strdup_printf("node %s %s", node, zone);

					(void)pages;
					if (strcmp(zone, MHL_PIN_K_PAGES) &&
					    !g_ptr_array_find_with_equal_func(cols, col, g_str_equal, NULL))
						g_ptr_array_add(cols, g_steal_pointer(&col));
				}
			}
			g_ptr_array_add(rows, cen);
			g_ptr_array_add(labels, g_strdup_printf("%s %s", mhlJStr(s, MHL_K_ID, "pin"), what[w]));
		}
	}
	if (!rows->len || !cols->len)
		return NULL;
	g_ptr_array_sort(cols, censusColCmp);
	name = plotBegin(p, title);
	g_string_append(p->script, "$census << EOD\nrow");
	for (c = 0; c < cols->len; c++) {
		g_autofree char *q = mhlGnuplotDatum(cols->pdata[c]);

		g_string_append_printf(p->script, " %s", q);
	}
	g_string_append_c(p->script, '\n');
	for (i = 0; i < rows->len; i++) {
		g_autofree char *q = mhlGnuplotDatum(labels->pdata[i]);

		g_string_append(p->script, q);
		for (c = 0; c < cols->len; c++) {
			g_auto(GStrv) nz = g_strsplit(cols->pdata[c], " ", 3);
			g_autofree char *path = g_strdup_printf("by_node.%s.%s", nz[1], nz[2]);

			/* census pages are base pages of 4 KiB */
			g_string_append_printf(p->script, " %.3f", mhlJInt(rows->pdata[i], path, 0) * 4096 / 1048576.0);
		}
		g_string_append_c(p->script, '\n');
	}
	g_string_append(p->script, "EOD\nset style data histograms\nset style histogram rowstacked\n"
			"set style fill solid 0.85 border -1\nset boxwidth 0.6\nset ylabel 'MiB'\n"
			"set yrange [0:*]\nset key outside right noenhanced\nset xtics noenhanced\nplot ");
	/* each node:zone its colour from the one table (palette.c), the same in every census */
	for (c = 0; c < cols->len; c++) {
		g_auto(GStrv) nz = g_strsplit(cols->pdata[c], " ", 3);

		g_string_append_printf(p->script, "%s$census using %zu:xtic(1) title columnheader(%zu) lc rgb '%s'",
				       c ? ", " : "", c + 2, c + 2,
				       mhlZoneColour(nz[1] && nz[2] ? nz[2] : "other", nz[1] ? strtol(nz[1], NULL, 10) : 0));
	}
	g_string_append_c(p->script, '\n');
	return name;
}

/* Census columns "node N Zone": by node, then the zones in the palette's order. */
static gint censusColCmp(gconstpointer a, gconstpointer b)
{
	g_auto(GStrv) x = g_strsplit(*(char *const *)a, " ", 3);
	g_auto(GStrv) y = g_strsplit(*(char *const *)b, " ", 3);
	long nx = x[1] ? strtol(x[1], NULL, 10) : 0, ny = y[1] ? strtol(y[1], NULL, 10) : 0;
	int zx = 99, zy = 99, i;

	if (nx != ny)
		return nx < ny ? -1 : 1;
	for (i = 0; mhlZoneNames[i]; i++) {
		if (x[1] && x[2] && !strcmp(x[2], mhlZoneNames[i]))
			zx = i;
		if (y[1] && y[2] && !strcmp(y[2], mhlZoneNames[i]))
			zy = i;
	}
	if (zx != zy)
		return zx < zy ? -1 : 1;
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A matrix axis value: parameters.KEY, or the record's own pin_policy for the implicit axis. */
static void gpTics(GString *script, const char *axis, GPtrArray *labels)
{
	guint i;

	g_string_append_printf(script, "set %stics (", axis);
	for (i = 0; i < labels->len; i++) {
		g_autofree char *q = mhlGnuplotString(labels->pdata[i]);

		g_string_append_printf(script, "%s%s %u", i ? ", " : "", q, i);
	}
	g_string_append(script, ") noenhanced\n");
}

/* Tic labels of at most @max characters (x: MATRIX_TIC_MAX, y: twice that): longer ones keep their start and end. */
#define MATRIX_TIC_MAX 24
static void matrixTicShorten(GPtrArray *labels, glong max)
{
	guint i;

	for (i = 0; i < labels->len; i++) {
		const char *l = labels->pdata[i];
		glong n = g_utf8_strlen(l, -1);

		if (n > max) {
			g_autofree char *head = g_utf8_substring(l, 0, max / 2 - 1);
			g_autofree char *tail = g_utf8_substring(l, n - (max / 2 - 2), n);

			g_free(labels->pdata[i]);
			labels->pdata[i] = g_strdup_printf("%s...%s", head, tail);
		}
	}
}

/*
 * The unplug outcome across the matrix, as the share of the asked unplug
 * that happened (mhlTrialUnplugFraction: 100 % when it reached the request,
 * so "reached 0 MiB" is a full bar, not an empty one): the axes are the
 * parameters' keys, plus the record's pin_policy when it varies and is no
 * parameter. Two or more axes: a heatmap, the first axis across, the rest
 * down, tics the values only (the axis labels name the keys), long ones
 * shortened and rotated when there are many. One axis: grouped bars, one
 * per trial of each value, coloured by verdict, labels rotated above them.
 */
/*
 * The matrix's axes into @keys: the parameters' keys sorted, the record's
 * pin_policy when it varies and is no parameter, the scenario (first down)
 * when trials of several share the run. How many trials have parameters.
 */
static guint matrixAxes(const mhlRun *run, GPtrArray *keys)
{
	g_autoptr(GPtrArray) policies = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) scenarios = g_ptr_array_new_with_free_func(g_free);
	guint i, n = 0;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];

		if (!mhlRecordHasParameters(rec))
			continue;
		n++;
		mhlStrIndex(policies, mhlJStr(rec, MHL_K_PIN_POLICY, "-"));
		mhlStrIndex(scenarios, mhlAxisValue(rec, MHL_K_SCENARIO, "-"));
		json_object_object_foreach(mhlJ(rec, MHL_K_PARAMETERS), k, v) {
			(void)v;
			mhlStrIndex(keys, k);
		}
	}
	if (n < 2)
		return n;
	g_ptr_array_sort(keys, mhlStrPtrCmp);
	if (policies->len > 1 && !g_ptr_array_find_with_equal_func(keys, MHL_K_PIN_POLICY, g_str_equal, NULL) &&
	    !g_ptr_array_find_with_equal_func(keys, "policy", g_str_equal, NULL))
		mhlStrIndex(keys, MHL_K_PIN_POLICY);
	/* trials of several scenarios (a suite, as conformance): the scenario is an axis, the first one down */
	if (scenarios->len > 1 && keys->len > 0)
		g_ptr_array_insert(keys, 1, g_strdup(MHL_K_SCENARIO));
	return n;
}

/*
 * One datablock row per trial with parameters ("x y share verdict slot trial
 * MiB") into @data, or @none when it asked no unplug; @xs and @ys the values
 * across and down. The most trials of one value across (a cluster's bars).
 */
static guint matrixData(const mhlRun *run, GPtrArray *keys, GPtrArray *xs, GPtrArray *ys,
			GString *data, GString *none)
{
	g_autoptr(GArray) inCluster = g_array_new(FALSE, TRUE, sizeof(guint));
	guint i, width = 1;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		g_autoptr(GString) y = g_string_new(NULL);
		g_autofree char *qv = NULL, *qt = NULL;
		double frac = mhlTrialUnplugFraction(rec);
		guint k, xi, yi, slot;

		if (!mhlRecordHasParameters(rec))
			continue;
		for (k = 1; k < keys->len; k++)
			g_string_append_printf(y, "%s%s", y->len ? ", " : "", mhlAxisValue(rec, keys->pdata[k], "-"));
		xi = mhlStrIndex(xs, mhlAxisValue(rec, keys->pdata[0], "-"));
		yi = mhlStrIndex(ys, y->str);
		if (inCluster->len <= xi)
			g_array_set_size(inCluster, xi + 1);
		slot = g_array_index(inCluster, guint, xi)++;
		width = MAX(width, slot + 1);
		qv = mhlGnuplotDatum(mhlJStr(rec, MHL_K_VERDICT, ""));
		qt = mhlGnuplotDatum(mhlJStr(rec, MHL_K_TRIAL, ""));
		g_string_append_printf(frac < 0 ? none : data, "%u %u %.1f %s %u %s %.1f\n", xi, yi,
				       frac < 0 ? 0 : frac * 100, qv, slot, qt,
				       mib(mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), 0)));
	}
	return width;
}

/* One axis: grouped bars, up to @width per value, coloured by verdict, labels upright above. */
static void matrixBars(htmlPlots *p, guint width)
{
	/* bar k of a cluster of up to W: centred on the value, 0.8 wide in all; labels upright above */
	g_string_append_printf(p->script, "W = %u.0\nbx(x, k) = x - 0.4 + (k + 0.5) * 0.8 / W\n"
			       "set ylabel 'share of the asked unplug done (%%)'\nset yrange [0:160]\nset ytics 0, 25, 100\n"
			       "set style fill solid 0.8 border -1\nunset colorbox\n"
			       "plot $m using (bx($1, $5)):3:(0.8 / W):(strcol(4) eq 'pass' ? 0x66bb6a : strcol(4) eq 'xfail' ? 0x9575cd : strcol(4) eq 'skip' ? 0x90caf9 : 0xe57373) "
			       "with boxes lc rgb variable notitle, "
			       "$m using (bx($1, $5)):3:(sprintf('%%s: %%g %%%% (%%g MiB left), %%s', strcol(6), $3, $7, strcol(4))) "
			       "with labels rotate by 90 left offset 0,0.5 font ',12' noenhanced notitle, "
			       "$u using (bx($1, $5)):(2):(sprintf('%%s: no unplug, %%s', strcol(6), strcol(4))) "
			       "with labels rotate by 90 left font ',12' noenhanced notitle\n", width);
}

/* Two or more axes: a heatmap of plot @name, @xs across, @ys down (named by @ylabel). */
static void matrixHeatmap(htmlPlots *p, const char *name, GPtrArray *xs, GPtrArray *ys, const char *ylabel)
{
	g_autofree char *qy = NULL;
	const char *sep;

	/*
	 * tall enough for a row of labels per value down (two lines each, share
	 * over verdict, where more than six columns leave a cell too narrow for
	 * one); the next plot gets the page's size back
	 */
	sep = xs->len > 6 ? ".\"\\n\"." : ".' '.";
	g_string_append_printf(p->script, MHL_PLOT_TERM("%d", "%u") "set output '%s.svg'\nset yrange [-0.5:%u.5]\n",
			       PLOT_W, MAX(PLOT_H, 90 + (xs->len > 6 ? 36 : 24) * ys->len), name, ys->len - 1);
	gpTics(p->script, "y", ys);
	qy = mhlGnuplotString(ylabel);
	g_string_append_printf(p->script, "set ylabel %s noenhanced\n", qy);
	g_string_append_printf(p->script, "set grid noxtics noytics\nset cblabel 'share of the asked unplug done (%%)'\n"
			       "set cbrange [0:100]\nset palette defined (0 '#ef9a9a', 50 '#fff59d', 100 '#c8e6c9')\n"
			       "plot $m using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1 fc palette notitle, "
			       "$u using 1:2:(0.5):(0.5) with boxxyerror fs solid 1 fc rgb '#e0e0e0' notitle, "
			       "$m using 1:2:(sprintf('%%g %%%%', $3)%sstrcol(4)) with labels font ',12' noenhanced notitle, "
			       "$u using 1:2:('no unplug,'%sstrcol(4)) with labels font ',12' noenhanced notitle\n"
			       MHL_PLOT_TERM("%d", "%d"), sep, sep, PLOT_W, PLOT_H);
}

static const char *plotMatrix(htmlPlots *p, const mhlRun *run)
{
	g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) xs = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) ys = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) data = g_string_new(NULL), none = g_string_new(NULL), ylabel = g_string_new(NULL);
	g_autofree char *qx = NULL;
	const char *name;
	guint i, width;

	if (matrixAxes(run, keys) < 2)
		return NULL;
	for (i = 1; i < keys->len; i++)
		g_string_append_printf(ylabel, "%s%s", i > 1 ? ", " : "", (char *)keys->pdata[i]);
	width = matrixData(run, keys, xs, ys, data, none);
	name = plotBegin(p, keys->len == 1 ? "unplug outcome: share of the asked unplug done per trial, grouped by parameter value" :
			 "unplug outcome across the matrix: share of the asked unplug done (verdict)");
	/* gnuplot's plot of an empty datablock is an error: a row that no cell uses */
	g_string_append_printf(p->script, "$m << EOD\n%s-9 -9 0 '' 0 '' 0\nEOD\n$u << EOD\n%s-9 -9 0 '' 0 '' 0\nEOD\n"
			       "set xrange [-0.5:%u.5]\n", data->str, none->str, xs->len - 1);
	matrixTicShorten(xs, MATRIX_TIC_MAX);
	matrixTicShorten(ys, 2 * MATRIX_TIC_MAX);
	gpTics(p->script, "x", xs);
	qx = mhlGnuplotString(keys->pdata[0]);
	g_string_append_printf(p->script, "set xlabel %s noenhanced\n", qx);
	if (xs->len > 6)
		g_string_append(p->script, "set xtics rotate by -30 left\n");
	if (keys->len == 1)
		matrixBars(p, width);
	else
		matrixHeatmap(p, name, xs, ys, ylabel->str);
	return name;
}

/* ---- page ---- */

static const char *const css =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}p,ul{max-width:72em}"
	"div.wide{overflow-x:auto}table.summary{width:100%}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
	"th{background:#f0f0f0}.pass{background:#c8e6c9}.fail{background:#ef9a9a}.error{background:#ffcc80}"
	".interrupted,.lost,.unknown{background:#e0e0e0}.skip{background:#e3f2fd}.xfail{background:#d1c4e9}"
	".xpass{background:#f48fb1}.none{color:#999}.regression{background:#ef9a9a}.improvement{background:#c8e6c9}"
	".dashboard{font-family:monospace;background:#f7f7f7;border:1px solid #ddd;padding:.3em .5em}"
	"table.grid td a{color:inherit;text-decoration:none;display:block}table.grid td{white-space:nowrap}"
	".headline.ok b{color:#1b5e20}.headline.bad b{color:#b71c1c}"
	"pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:12px}"
	".warn{background:#fff3e0;border:1px solid #e65100;padding:.5em}.note{color:#666}"
	"figure.plot{margin:.5em 0}figure.plot svg{max-width:100%;height:auto}section.trial{border-top:2px solid #888;margin-top:2em}";

static void cell(GString *out, const char *cls, const char *text)
{
	mhlHtmlCell(out, cls, text);
}

/* A cell from a format, its %s arguments escaped. */
#define cellf(out, ...) \
	(g_string_append((out), "<td>"), mhlHtmlf((out), __VA_ARGS__), g_string_append((out), "</td>"))

/* Link text: a path relative to report/ when the file lies in the run directory. */
static char *htmlHref(const mhlRun *run, const char *path)
{
	g_autofree char *dir = g_canonicalize_filename(run->dir, NULL);
	g_autofree char *abs = g_canonicalize_filename(path, NULL);
	size_t n = strlen(dir);

	if (!strncmp(abs, dir, n) && abs[n] == '/')
		return g_strdup_printf("../%s", abs + n + 1);
	return g_filename_to_uri(abs, NULL, NULL);
}

/*
 * What the host got back over the trial's shrinks (docs/host.md): "N MiB
 * (P %)" of what its backend had to give back, or "–" for a record without it.
 */
static void htmlHostCell(GString *out, json_object *rec)
{
	mhlSummary m;

	mhlSummaryRead(rec, &m);
	if (m.host_reclaimed_bytes < 0)
		cell(out, NULL, "–");
	else if (m.host_reclaimed_of_reclaimable < 0)
		cellf(out, "%" G_GINT64_FORMAT " MiB", m.host_reclaimed_bytes >> 20);
	else
		cellf(out, "%" G_GINT64_FORMAT " MiB (%.0f %%)", m.host_reclaimed_bytes >> 20,
		      m.host_reclaimed_of_reclaimable * 100);
}

/*
 * A trial id, escaped, with a break opportunity (<wbr>) after each ':' and
 * ',' ("host-backings:backing=anonymous,prealloc=false,policy=baseline"):
 * a matrix's ids wrap at their parameters instead of widening the table
 * past a laptop's window.
 */
static void htmlIdBreakable(GString *out, const char *id)
{
	const char *p, *q;

	for (p = id; *p; p = q) {
		g_autofree char *e = NULL;

		q = p + strcspn(p, ":,");
		if (*q)
			q++;
		e = g_markup_escape_text(p, q - p);
		g_string_append(out, e);
		if (q > p && (q[-1] == ':' || q[-1] == ',') && *q)
			g_string_append(out, "<wbr>");
	}
}

/* The summary's own cells: the trial linked to its section (row @idx), what needs more than one key. */
static void sumTrialCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	(void)c;
	mhlHtmlf(out, "<td><a href='#t%zu'>", idx + 1);
	htmlIdBreakable(out, mhlJStr(rec, MHL_K_TRIAL, ""));
	g_string_append(out, "</a></td>");
}

static void sumScenarioCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	g_autofree char *scn = mhlTrialScenarioName(rec);

	(void)idx;
	(void)c;
	cell(out, NULL, scn);
}

static void sumVerdictCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	(void)idx;
	(void)c;
	cell(out, mhlJStr(rec, MHL_K_VERDICT, ""), mhlJStr(rec, MHL_K_VERDICT, ""));
}

static void sumReachedCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	gint64 req = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1);
	gint64 got = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);

	(void)idx;
	(void)c;
	if (req >= 0 && got >= 0)
		cellf(out, "%" G_GINT64_FORMAT " / %" G_GINT64_FORMAT, got >> 20, req >> 20);
	else
		cell(out, NULL, "–");
}

static void sumHostCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	(void)idx;
	(void)c;
	htmlHostCell(out, rec);
}

static void sumPinCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	(void)idx;
	mhlHtmlCellNum(out, mhlTrialPinSeconds(rec), c->prec);
}

static void sumKernelCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	g_autofree char *label = mhlKernelLabel(rec);

	(void)idx;
	(void)c;
	cell(out, NULL, label);
}

static void sumFindingsCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	json_object *f = mhlJ(rec, MHL_K_CONSOLE_FINDINGS);

	(void)idx;
	(void)c;
	mhlHtmlCellNum(out, f ? (double)json_object_array_length(f) : -1, 0);
}

static void sumParametersCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	g_autoptr(GString) kv = g_string_new(NULL);

	(void)idx;
	(void)c;
	if (!mhlRecordHasParameters(rec)) {
		cell(out, NULL, "–");
		return;
	}
	json_object_object_foreach(mhlJ(rec, MHL_K_PARAMETERS), k, v)
		g_string_append_printf(kv, "%s%s=%s", kv->len ? ", " : "", k, json_object_get_string(v));
	cell(out, NULL, kv->str);
}

/* A trial's lifecycle steps in order with their outcomes (lifecycle.c), "–" without. */
static void sumLifecycleCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	g_autofree char *lc = mhlTrialLifecycle(rec, false);

	(void)idx;
	(void)c;
	cell(out, NULL, lc ? lc : "–");
}

/* A trial's other paths (dimm, vmem, balloon, hugepages) in order with their outcomes (elastic.c), "–" without. */
static void sumElasticCell(GString *out, json_object *rec, size_t idx, const mhlCol *c)
{
	g_autofree char *el = mhlTrialElastic(rec, false);

	(void)idx;
	(void)c;
	cell(out, NULL, el ? el : "–");
}

/*
 * The summary: a row per trial; the last columns, lifecycle and other
 * paths, each only when a trial has such a step.
 */
static const mhlCol summaryCols[] = {
	MHL_COL("trial", MHL_K_TRIAL, sumTrialCell),
	MHL_COL("scenario", MHL_K_SCENARIO_NAME, sumScenarioCell),
	MHL_COL("verdict", MHL_K_VERDICT, sumVerdictCell),
	MHL_COL("kernel", MHL_K_KERNEL, sumKernelCell),
	MHL_COL("pin policy", MHL_K_PIN_POLICY, mhlColStr),
	MHL_COL("accel", MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL), mhlColStr),
	MHL_COL("reached / requested MiB", MHL_K_SUMMARY, sumReachedCell),
	MHL_COL("pins failed", MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), mhlColInt),
	MHL_COL_NUM("converged in s", MHL_PATH(MHL_K_SUMMARY, MHL_K_SECONDS_TO_CONVERGE), mhlColNum, 1, 2),
	MHL_COL("host got back", MHL_K_SUMMARY, sumHostCell),
	MHL_COL_NUM("pin s", MHL_K_STEPS, sumPinCell, 1, 3),
	MHL_COL_NUM("trial s", MHL_K_SECONDS, mhlColNum, 1, 1),
	MHL_COL("console findings", MHL_K_CONSOLE_FINDINGS, sumFindingsCell),
	MHL_COL("parameters", MHL_K_PARAMETERS, sumParametersCell),
	MHL_COL("lifecycle", MHL_K_STEPS, sumLifecycleCell),
	MHL_COL("other paths", MHL_K_STEPS, sumElasticCell),
};

static void htmlSummary(GString *out, const mhlRun *run)
{
	mhlCol cols[G_N_ELEMENTS(summaryCols)];
	size_t j, n = 0;
	guint i;

	for (j = 0; j < G_N_ELEMENTS(summaryCols); j++)
		if ((summaryCols[j].cell != sumLifecycleCell || mhlRunHasLifecycle(run)) &&
		    (summaryCols[j].cell != sumElasticCell || mhlRunHasElastic(run)))
			cols[n++] = summaryCols[j];
	g_string_append(out, "<h2 id=summary>Summary</h2>\n<div class=wide><table class=summary>\n");
	mhlHtmlTableHead(out, cols, n);
	for (i = 0; i < run->trials->len; i++)
		mhlHtmlTableRow(out, run->trials->pdata[i], i, cols, n);
	g_string_append(out, "</table></div>\n");
}

/* "before → after" of one summary number, shifted right by @shift (20: bytes to MiB). */
static void cellPair(GString *out, const mhlCompareRow *r, const char *path, int shift)
{
	g_autofree char *a = mhlJ(r->before, path) ? g_strdup_printf("%" G_GINT64_FORMAT,
								     mhlJInt(r->before, path, 0) >> shift) : g_strdup("–");
	g_autofree char *b = mhlJ(r->after, path) ? g_strdup_printf("%" G_GINT64_FORMAT,
								    mhlJInt(r->after, path, 0) >> shift) : g_strdup("–");

	cellf(out, "%s → %s", a, b);
}

static void htmlCompare(GString *out, const mhlRun *run, const mhlRun *other)
{
	g_autoptr(GPtrArray) rows = mhlCompareRuns(run, other);
	guint i;

	mhlHtmlf(out, "<h2 id=compare>Compared with %s</h2>\n<p>Before: %s; after: this run. Regressions first.</p>\n",
	      other->dir, other->dir);
	g_string_append(out, "<div class=wide><table>\n<tr><th>change</th><th>trial</th>"
			"<th>verdict</th><th>reached MiB</th><th>pins failed</th><th>pin time ratio</th><th>what changed</th></tr>\n");
	for (i = 0; i < rows->len; i++) {
		mhlCompareRow *r = rows->pdata[i];
		double ta = mhlTrialPinSeconds(r->before), tb = mhlTrialPinSeconds(r->after);

		g_string_append(out, "<tr>");
		cell(out, r->rank <= 1 ? mhlCompareRankNames[r->rank] : NULL, mhlCompareRankNames[r->rank]);
		g_string_append(out, "<td>");
		htmlIdBreakable(out, r->trial);
		g_string_append(out, "</td>");
		cellf(out, "%s → %s", mhlJStr(r->before, MHL_K_VERDICT, "–"), mhlJStr(r->after, MHL_K_VERDICT, "–"));
		cellPair(out, r, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), 20);
		cellPair(out, r, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), 0);
		if (ta > 0 && tb > 0)
			cellf(out, "×%.2f", tb / ta);
		else
			cell(out, NULL, "–");
		cell(out, NULL, r->what && *r->what ? r->what : "–");
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</table></div>\n");
}

/* A pin step's own cells: the census's Movable pages, the pattern, the outcome. */
static void pinMovableCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *w = mhlJ(s, MHL_K_WORKLOAD);

	(void)idx;
	(void)c;
	cellf(out, "%" G_GINT64_FORMAT " → %" G_GINT64_FORMAT,
	      mhlJInt(w, MHL_PATH3(MHL_PIN_K_CENSUS_BEFORE, MHL_PIN_K_BY_ZONE, MHL_PIN_ZONE_MOVABLE), 0),
	      mhlJInt(w, MHL_PATH3(MHL_PIN_K_CENSUS_AFTER, MHL_PIN_K_BY_ZONE, MHL_PIN_ZONE_MOVABLE), 0));
}

static void pinPatternCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *ok = mhlJ(s, c->key);

	(void)idx;
	cell(out, NULL, !ok ? "–" : json_object_get_boolean(ok) ? "intact" : "CORRUPT");
}

static void pinOutcomeCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *w = mhlJ(s, MHL_K_WORKLOAD);

	(void)idx;
	(void)c;
	if (mhlJ(s, MHL_K_OK) && json_object_get_boolean(mhlJ(s, MHL_K_OK)))
		cell(out, "pass", "ok");
	else
		cellf(out, "failed: %s%s%s", mhlJStr(w, MHL_PIN_K_ERRNO_NAME, ""), mhlJStr(w, MHL_PIN_K_ERRNO_NAME, NULL) ? " " : "",
		      mhlJStr(s, MHL_K_ERROR, ""));
}

#define PIN_W(k) MHL_PATH(MHL_K_WORKLOAD, k)	/* a key of the pin step's memhp-pin JSON */
/* A row per pin step. */
static const mhlCol pinCols[] = {
	MHL_COL("pin", MHL_K_ID, mhlColStr),
	MHL_COL("workload", PIN_W(MHL_PIN_K_MODE), mhlColStr),
	MHL_COL("node", PIN_W(MHL_K_NODE), mhlColInt),
	MHL_COL_NUM("asked MiB", PIN_W(MHL_PIN_K_BYTES_ASKED), mhlColInt, 1048576, 0),
	MHL_COL_NUM("pinned MiB", PIN_W(MHL_PIN_K_BYTES_PINNED), mhlColInt, 1048576, 0),
	MHL_COL_NUM("pin time s", PIN_W(MHL_PIN_K_PIN_US), mhlColNum, 1e6, 3),
	MHL_COL("Movable pages before → after", NULL, pinMovableCell),
	MHL_COL("pattern", PIN_W(MHL_PIN_K_PATTERN_OK), pinPatternCell),
	MHL_COL("outcome", MHL_K_OK, pinOutcomeCell),
};
#undef PIN_W

static void htmlPins(GString *out, json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS);
	size_t i;
	bool any = false;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		if (strcmp(mhlJStr(s, MHL_K_STEP, ""), "pin"))
			continue;
		if (!any) {
			g_string_append(out, "<h4>Pin outcomes</h4>\n<table>");
			mhlHtmlTableHead(out, pinCols, G_N_ELEMENTS(pinCols));
		}
		any = true;
		mhlHtmlTableRow(out, s, i, pinCols, G_N_ELEMENTS(pinCols));
	}
	if (any)
		g_string_append(out, "</table>\n");
}

/* "N" MiB of @v (bytes), or "–" for none. */
static char *mibText(json_object *v)
{
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return g_strdup("–");
	return g_strdup_printf("%" G_GINT64_FORMAT, json_object_get_int64(v) >> 20);
}

/* "before → after" MiB of sample field @key (resize host.before/after). */
static void cellSamples(GString *out, json_object *h, const char *key)
{
	g_autofree char *a = mibText(mhlJ(mhlJObj(h, MHL_K_BEFORE), key));
	g_autofree char *b = mibText(mhlJ(mhlJObj(h, MHL_K_AFTER), key));

	if (!mhlJ(mhlJObj(h, MHL_K_BEFORE), key) && !mhlJ(mhlJObj(h, MHL_K_AFTER), key))
		cell(out, NULL, "–");
	else
		cellf(out, "%s → %s", a, b);
}

/* Each node's backend "node N: before → after" MiB, or "–" when the samples have none. */
static void cellBackends(GString *out, json_object *h)
{
	json_object *bb = mhlJObj(mhlJObj(h, MHL_K_BEFORE), MHL_K_BACKEND_BYTES);
	json_object *ab = mhlJObj(mhlJObj(h, MHL_K_AFTER), MHL_K_BACKEND_BYTES);
	g_autoptr(GString) t = g_string_new(NULL);

	if (bb) {
		json_object_object_foreach(bb, node, v) {
			g_autofree char *a = mibText(v), *b = mibText(mhlJ(ab, node));

			g_string_append_printf(t, "%snode %s: %s → %s", t->len ? ", " : "", node, a, b);
		}
	}
	cell(out, NULL, t->len ? t->str : "–");
}

/* A step's own cells: its name; a resize's host side (steps[].host) where one key is not enough. */
static void stepNameCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *sn = mhlStepName(s);

	(void)idx;
	(void)c;
	cell(out, NULL, sn);
}

static void hostSourceCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *h = mhlJObj(s, MHL_K_HOST);

	(void)idx;
	(void)c;
	cellf(out, "%s, %s", mhlJStr(h, MHL_K_SOURCE, "–"), mhlJStr(h, MHL_K_MEASURED_BY, "–"));
}

static void hostBackendsCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	(void)idx;
	(void)c;
	cellBackends(out, mhlJObj(s, MHL_K_HOST));
}

static void hostSamplesCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	(void)idx;
	cellSamples(out, mhlJObj(s, MHL_K_HOST), c->key);
}

static void hostReclaimedCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	(void)idx;
	if (mhlJ(s, c->key))	/* negative when QEMU grew */
		cellf(out, "%" G_GINT64_FORMAT, mhlJInt(s, c->key, 0) / 1048576);
	else
		cell(out, NULL, "–");
}

static void hostPoolCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	(void)idx;
	if (mhlJ(s, c->key))
		cellf(out, "%" G_GINT64_FORMAT " pages", mhlJInt(s, c->key, 0));
	else
		cell(out, NULL, "–");
}

/* The step's name, and for another path (issue 35) its mechanism and action: "dimm d0 (dimm detach)". */
static void hostStepCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *el = mhlStepElastic(s);
	g_autofree char *sn = mhlStepName(s);

	(void)idx;
	(void)c;
	if (el)
		cellf(out, "%s (%s %s)", sn, mhlJStr(el, MHL_K_MECHANISM, ""), mhlJStr(el, MHL_K_ACTION, ""));
	else
		cell(out, NULL, sn);
}

#define HOST(k) MHL_PATH(MHL_K_HOST, k)	/* a key of a resize's host side */
/* The host side of each resize (steps[].host, docs/record.md): a row per step that has one. */
static const mhlCol hostStepCols[] = {
	MHL_COL("#", NULL, mhlColIndex),
	MHL_COL("step", MHL_K_STEP, hostStepCell),
	MHL_COL("read from, measured by", HOST(MHL_K_SOURCE), hostSourceCell),
	MHL_COL("backend MiB before → after", HOST(MHL_K_BACKEND_BYTES), hostBackendsCell),
	MHL_COL("QEMU RSS MiB before → after", MHL_K_QEMU_RSS_BYTES, hostSamplesCell),
	MHL_COL("unplugged MiB", HOST(MHL_K_UNPLUGGED_BYTES), mhlColMiB),
	MHL_COL("reclaimable MiB", HOST(MHL_K_RECLAIMABLE_BYTES), mhlColMiB),
	MHL_COL("reclaimed MiB", HOST(MHL_K_RECLAIMED_BYTES), hostReclaimedCell),
	MHL_COL("of unplugged", HOST(MHL_K_RECLAIMED_OF_UNPLUGGED), mhlColPct),
	MHL_COL("of reclaimable", HOST(MHL_K_RECLAIMED_OF_RECLAIMABLE), mhlColPct),
	MHL_COL_NUM("settled in s", HOST(MHL_K_SETTLE_S), mhlColNum, 1, 2),
	MHL_COL("hugepages back to the pool", HOST(MHL_K_POOL_RETURNED_PAGES), hostPoolCell),
};
#undef HOST

/*
 * The host side of each resize: how it was measured, the samples before and
 * after, what came back of what had to.
 */
static void htmlHostSteps(GString *out, json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS);
	size_t i;
	bool any = false;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		if (!mhlJObj(s, MHL_K_HOST))
			continue;
		if (!any) {
			g_string_append(out, mhlTrialHasElastic(rec) ? "<h4>Host side of the resizes and the other paths</h4>\n<table>" :
					"<h4>Host side of the resizes</h4>\n<table>");
			mhlHtmlTableHead(out, hostStepCols, G_N_ELEMENTS(hostStepCols));
		}
		any = true;
		mhlHtmlTableRow(out, s, i, hostStepCols, G_N_ELEMENTS(hostStepCols));
	}
	if (any)
		g_string_append(out, "</table>\n");
}

static void stepOutcomeCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	bool ok = mhlJ(s, MHL_K_OK) && json_object_get_boolean(mhlJ(s, MHL_K_OK));

	(void)idx;
	(void)c;
	if (mhlJStr(s, MHL_K_SKIPPED, NULL))
		cellf(out, "skipped: %s", mhlJStr(s, MHL_K_SKIPPED, ""));
	else
		cell(out, ok ? "pass" : "fail", ok ? "ok" : mhlJStr(s, MHL_K_ERROR, "failed"));
}

/* A row per step the trial ran. */
static const mhlCol stepCols[] = {
	MHL_COL("#", NULL, mhlColIndex),
	MHL_COL("step", MHL_K_STEP, stepNameCell),
	MHL_COL("scenario line", MHL_K_LINE, mhlColInt),
	MHL_COL_NUM("t s", MHL_K_T, mhlColNum, 1, 2),
	MHL_COL_NUM("seconds", MHL_K_SECONDS, mhlColNum, 1, 3),
	MHL_COL("outcome", MHL_K_OK, stepOutcomeCell),
};

static void htmlSteps(GString *out, json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS);
	size_t i;

	if (!steps || !json_object_array_length(steps)) {
		g_string_append(out, "<p class=note>No step ran.</p>\n");
		return;
	}
	g_string_append(out, "<h4>Steps</h4>\n<table>");
	mhlHtmlTableHead(out, stepCols, G_N_ELEMENTS(stepCols));
	for (i = 0; i < json_object_array_length(steps); i++)
		mhlHtmlTableRow(out, json_object_array_get_idx(steps, i), i, stepCols, G_N_ELEMENTS(stepCols));
	g_string_append(out, "</table>\n");
}

static void lcOutcomeCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *o = mhlLifecycleOutcome(s, false);
	bool ok = mhlJBool(mhlStepLifecycle(s), MHL_K_OK, false);

	(void)idx;
	(void)c;
	cell(out, ok ? "pass" : "fail", o);
}

static void lcFiguresCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *f = mhlLifecycleFigures(s, false);

	(void)idx;
	(void)c;
	cell(out, NULL, f && *f ? f : "–");
}

/* A row per lifecycle step (issue 34): its outcome and every figure its event has (lifecycle.c). */
static const mhlCol lifecycleCols[] = {
	MHL_COL("#", NULL, mhlColIndex),
	MHL_COL("step", MHL_K_STEP, stepNameCell),
	MHL_COL("event", MHL_PATH(MHL_K_LIFECYCLE, MHL_K_EVENT), mhlColStr),
	MHL_COL_NUM("t s", MHL_K_T, mhlColNum, 1, 2),
	MHL_COL_NUM("seconds", MHL_PATH(MHL_K_LIFECYCLE, MHL_K_SECONDS), mhlColNum, 1, 2),
	MHL_COL("outcome", MHL_K_LIFECYCLE, lcOutcomeCell),
	MHL_COL("figures", MHL_K_LIFECYCLE, lcFiguresCell),
};

static void htmlLifecycle(GString *out, json_object *rec)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	if (!mhlTrialHasLifecycle(rec))
		return;
	g_string_append(out, "<h4>Lifecycle</h4>\n<table class=lifecycle>");
	mhlHtmlTableHead(out, lifecycleCols, G_N_ELEMENTS(lifecycleCols));
	for (i = 0; i < json_object_array_length(steps); i++)
		if (mhlStepLifecycle(json_object_array_get_idx(steps, i)))
			mhlHtmlTableRow(out, json_object_array_get_idx(steps, i), i, lifecycleCols,
					G_N_ELEMENTS(lifecycleCols));
	g_string_append(out, "</table>\n");
}

static void elOutcomeCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *o = mhlElasticOutcome(s, false);
	bool ok = mhlJBool(mhlStepElastic(s), MHL_K_OK, false);

	(void)idx;
	(void)c;
	cell(out, ok ? "pass" : "fail", o);
}

/* The guest-visible change: MemTotal before → after MiB (±N). */
static void elGuestCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *el = mhlStepElastic(s), *b = mhlJ(el, MHL_K_MEMTOTAL_BEFORE_BYTES), *a = mhlJ(el, MHL_K_MEMTOTAL_AFTER_BYTES);
	g_autofree char *bt = mibText(b), *at = mibText(a);
	gint64 d = mhlJInt(el, MHL_K_MEMTOTAL_AFTER_BYTES, 0) - mhlJInt(el, MHL_K_MEMTOTAL_BEFORE_BYTES, 0);

	(void)idx;
	(void)c;
	if (!b && !a)
		cell(out, NULL, "–");
	else if (!strcmp(bt, "–") || !strcmp(at, "–"))
		cellf(out, "%s → %s", bt, at);
	else
		cellf(out, "%s → %s (%s%" G_GINT64_FORMAT ")", bt, at, d > 0 ? "+" : "", d / 1048576);
}

/* What was asked, signed MiB: -512 gives memory back, +512 adds. */
static void elAskedCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	json_object *v = mhlJ(s, c->key);

	(void)idx;
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		cell(out, NULL, "–");
	else
		cellf(out, "%s%" G_GINT64_FORMAT, json_object_get_int64(v) > 0 ? "+" : "", json_object_get_int64(v) / 1048576);
}

static void elHostCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *b = mhlElasticHostBack(s);

	(void)idx;
	(void)c;
	cell(out, NULL, b ? b : "–");
}

static void elFiguresCell(GString *out, json_object *s, size_t idx, const mhlCol *c)
{
	g_autofree char *f = mhlElasticFigures(s, false);

	(void)idx;
	(void)c;
	cell(out, NULL, f && *f ? f : "–");
}

#define EL(k) MHL_PATH(MHL_K_ELASTIC, k)	/* a key of a step's elastic object */
/* A row per step of the other paths (issue 35): what was asked, what the guest and the host saw, every figure. */
static const mhlCol elasticCols[] = {
	MHL_COL("#", NULL, mhlColIndex),
	MHL_COL("step", MHL_K_STEP, stepNameCell),
	MHL_COL("mechanism", EL(MHL_K_MECHANISM), mhlColStr),
	MHL_COL("action", EL(MHL_K_ACTION), mhlColStr),
	MHL_COL_NUM("t s", MHL_K_T, mhlColNum, 1, 2),
	MHL_COL("asked MiB", EL(MHL_K_REQUESTED_BYTES), elAskedCell),
	MHL_COL("guest MemTotal MiB", MHL_K_ELASTIC, elGuestCell),
	MHL_COL("host back", MHL_K_HOST, elHostCell),
	MHL_COL_NUM("seconds", EL(MHL_K_SECONDS), mhlColNum, 1, 2),
	MHL_COL("outcome", MHL_K_ELASTIC, elOutcomeCell),
	MHL_COL("figures", MHL_K_ELASTIC, elFiguresCell),
};
#undef EL

static void htmlElastic(GString *out, json_object *rec)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	if (!mhlTrialHasElastic(rec))
		return;
	g_string_append(out, "<h4>Other paths</h4>\n<table class=elastic>");
	mhlHtmlTableHead(out, elasticCols, G_N_ELEMENTS(elasticCols));
	for (i = 0; i < json_object_array_length(steps); i++)
		if (mhlStepElastic(json_object_array_get_idx(steps, i)))
			mhlHtmlTableRow(out, json_object_array_get_idx(steps, i), i, elasticCols,
					G_N_ELEMENTS(elasticCols));
	g_string_append(out, "</table>\n");
}

static int htmlRecordWrite(const char *outdir, int outfd, guint idx, json_object *rec, char **href)
{
	g_autofree char *id = mhlReportIdent(mhlJStr(rec, MHL_K_TRIAL, ""));
	g_autofree char *file = g_strdup_printf("%u-%s.json", idx, id);

	/* records/ made and opened below report/'s descriptor, no link followed (mhlFileWriteAt) */
	*href = g_strdup_printf("records/%s", file);
	return mhlReportFileWrite(outfd, outdir, *href, json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PRETTY |
					JSON_C_TO_STRING_NOSLASHESCAPE), -1);
}

/* The lines of trials.jsonl that could not be read, in a warning box. */
static void htmlBadLines(GString *out, const mhlRun *run)
{
	guint i;

	if (!run->bad->len)
		return;
	g_string_append_printf(out, "<div class=warn><b>%u line(s) of trials.jsonl could not be read</b> "
			       "(the other records are reported):<ul>\n", run->bad->len);
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];
		mhlHtmlf(out, "<li>%s:%d: %s</li>\n", run->records, b->line, b->why);
	}
	g_string_append(out, "</ul></div>\n");
}

/* Links to the other formats' files (mhlReportFormats), comma-separated. */
static void htmlFormatLinks(GString *out)
{
	const char *sep = "";
	int f;

	for (f = 0; f < MHL_REPORT_LAST; f++) {
		if (f == MHL_REPORT_HTML)
			continue;
		g_string_append_printf(out, "%s<a href='%s'>%s</a>", sep, mhlReportFormats[f].file,
				       mhlReportFormats[f].file);
		sep = ", ";
	}
}

/*
 * <head> with the CSS, the title, the headline (the verdicts counted:
 * "failed" only for fail and xpass, the outcomes that fail a run) and the
 * dashboard line, links to the other formats.
 */
static void htmlHead(GString *out, const mhlRun *run)
{
	g_autofree char *name = g_path_get_basename(run->dir);
	g_autofree char *dash = mhlRunDashboard(run);
	int counts[MHL_VERDICT_LAST + 1];
	int bad, v;
	bool first = true;

	mhlRunCount(run, counts);
	bad = counts[MHL_VERDICT_FAIL] + counts[MHL_VERDICT_XPASS] + counts[MHL_VERDICT_ERROR] +
	      counts[MHL_VERDICT_INTERRUPTED] + counts[MHL_VERDICT_LOST] + counts[MHL_VERDICT_LAST];
	mhlHtmlf(out, "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<title>memhp-lab report: %s</title>\n",
	      name);
	g_string_append_printf(out, "<style>%s</style>\n</head>\n<body>\n", css);
	mhlHtmlf(out, "<h1>memhp-lab report: %s</h1>\n", name);
	mhlHtmlf(out, "<p class=dashboard>%s</p>\n", dash);
	g_string_append_printf(out, "<p class='headline %s'><b>%d of %u trial(s) passed</b>", bad || run->bad->len ? "bad" : "ok",
			       counts[MHL_VERDICT_PASS], run->trials->len);
	/* every other outcome there was, in words; "failed" for fail and xpass only */
	for (v = 0; v <= MHL_VERDICT_LAST; v++) {
		static const char *const words[MHL_VERDICT_LAST + 1] = {
			[MHL_VERDICT_FAIL] = "failed", [MHL_VERDICT_ERROR] = "erred",
			[MHL_VERDICT_SKIP] = "skipped (the kernel cannot run them)",
			[MHL_VERDICT_XFAIL] = "expected failure(s) (xfail: a declared known deviation)",
			[MHL_VERDICT_XPASS] = "failed as unexpected pass(es) (xpass: a declared deviation did not happen)",
			[MHL_VERDICT_INTERRUPTED] = "interrupted",
			[MHL_VERDICT_LOST] = "lost (started, never recorded: the run was killed)",
			[MHL_VERDICT_LAST] = "without a known verdict",
		};

		if (v == MHL_VERDICT_PASS || !counts[v])
			continue;
		g_string_append_printf(out, "%s%s%d %s%s", first ? "; " : ", ",
				       v == MHL_VERDICT_FAIL || v == MHL_VERDICT_XPASS || v == MHL_VERDICT_LOST ? "<b>" : "",
				       counts[v], words[v],
				       v == MHL_VERDICT_FAIL || v == MHL_VERDICT_XPASS || v == MHL_VERDICT_LOST ? "</b>" : "");
		first = false;
	}
	g_string_append(out, first && !bad ? "; none failed." : ".");
	g_string_append(out, " Records: <a href='../trials.jsonl'>trials.jsonl</a>; also ");
	htmlFormatLinks(out);
	g_string_append(out, ".</p>\n");
	htmlBadLines(out, run);
}

/* The capacity frontier: one sentence per group of points (consecutive in @cap), then its plot. */
static void htmlCapacity(GString *out, htmlPlots *p, GPtrArray *cap, const char *plot)
{
	guint from, to;

	g_string_append(out, "<h2 id=capacity>Capacity frontier</h2>\n<ul class=capacity>\n");
	for (from = 0; from < cap->len; from = to) {
		g_autofree char *sentence = NULL;

		for (to = from; to < cap->len && !strcmp(((mhlCapacityPoint *)cap->pdata[to])->group,
							  ((mhlCapacityPoint *)cap->pdata[from])->group); to++)
			;
		sentence = mhlCapacitySentence(cap, from, to);
		mhlHtmlf(out, "<li>%s</li>\n", sentence);
	}
	g_string_append(out, "</ul>\n");
	mhlPlotInline(out, p->dir, plot, "capacity frontier: unplugged vs pinned fraction");
}

/*
 * The record's top-level host (docs/record.md): the guest's memory backing
 * and where the host-side figures were read, one line; nothing without it.
 */
static void htmlHostFacts(GString *out, json_object *rec)
{
	json_object *h = mhlJObj(rec, MHL_K_HOST);
	const char *src;

	if (!h)
		return;
	mhlHtmlf(out, "Host: memory backing %s", mhlJStr(h, MHL_K_BACKING, "–"));
	if (mhlJInt(h, MHL_K_HUGEPAGE_BYTES, 0) > 0) {
		gint64 hp = mhlJInt(h, MHL_K_HUGEPAGE_BYTES, 0);

		int sh = hp >= 1 << 30 ? 30 : hp >= 1 << 20 ? 20 : 10;

		g_string_append_printf(out, " (pages of %" G_GINT64_FORMAT " %s)", hp >> sh,
				       sh == 30 ? "GiB" : sh == 20 ? "MiB" : "KiB");
	}
	if (mhlJ(h, MHL_K_PREALLOC))
		g_string_append_printf(out, ", prealloc %s", mhlJBool(h, MHL_K_PREALLOC, false) ? "yes" : "no");
	if (mhlJ(h, MHL_K_POOL_ADDED_PAGES))
		g_string_append_printf(out, ", %" G_GINT64_FORMAT " hugepages added to the host's pool for the trial",
				       mhlJInt(h, MHL_K_POOL_ADDED_PAGES, 0));
	src = mhlJStr(h, MHL_K_SOURCE, "–");
	mhlHtmlf(out, "; figures from %s%s", !strcmp(src, "proc") ? "QEMU's /proc on this host (proc)" :
	      !strcmp(src, "libvirt") ? "libvirt's virDomainMemoryStats rss (libvirt)" : src,
	      mhlJStr(h, MHL_K_WHY, NULL) ? ": " : "");
	if (mhlJStr(h, MHL_K_WHY, NULL))
		mhlHtmlf(out, "%s", mhlJStr(h, MHL_K_WHY, ""));
	g_string_append(out, ".<br>\n");
}

/*
 * A soak's serial logs, one per segment (soak-segmentN.console.log, N from 0
 * to the summary's segments - 1, at most SOAK_LOGS_MAX), those found in RUN_DIR.
 */
#define SOAK_LOGS_MAX 64
static void htmlSoakConsoles(GString *out, const mhlRun *run, json_object *rec)
{
	gint64 n = MIN(mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_SEGMENTS), 1), SOAK_LOGS_MAX), k;
	guint found = 0;

	for (k = 0; k < n; k++) {
		g_autofree char *base = g_strdup_printf("soak-segment%" G_GINT64_FORMAT ".console.log", k);
		g_autofree char *path = mhlRunFilePath(run, base), *lh = NULL;

		if (!path)
			continue;
		lh = htmlHref(run, path);
		mhlHtmlf(out, "%s<a href='%s'>segment %" G_GINT64_FORMAT "</a>", found++ ? ", " : " · serial console logs: ",
			 lh, k);
	}
	if (!found)
		g_string_append(out, " · serial console logs not found (soak-segment*.console.log)");
}

/* A trial's heading and first paragraph: reason, outcome, kernel identity, record and log links. */
static void htmlTrialHeader(GString *out, const mhlRun *run, guint idx, json_object *rec, const char *href)
{
	g_autofree char *log = mhlTrialConsolePath(run, rec), *outcome = mhlTrialOutcome(rec);

	mhlHtmlf(out, "<section class=trial id=t%u>\n<h3>%s: <span class=%s>%s</span></h3>\n<p>", idx,
	      mhlJStr(rec, MHL_K_TRIAL, ""), mhlJStr(rec, MHL_K_VERDICT, ""), mhlJStr(rec, MHL_K_VERDICT, ""));
	if (mhlJStr(rec, MHL_K_REASON, NULL))
		mhlHtmlf(out, "<b>Reason:</b> %s<br>\n", mhlJStr(rec, MHL_K_REASON, ""));
	{
		g_autofree char *klabel = mhlKernelLabel(rec);

		mhlHtmlf(out, "%s<br>\nStarted %s, kernel %s (release %s).<br>\n", outcome,
			 mhlJStr(rec, MHL_K_STARTED, "–"), klabel,
			 mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_KERNEL_RELEASE),
				 mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_RELEASE), "–")));
	}
	htmlHostFacts(out, rec);
	mhlHtmlf(out, "<a href='%s'>raw record</a>", href);
	if (log) {
		g_autofree char *lh = htmlHref(run, log);

		mhlHtmlf(out, " · <a href='%s'>serial console log</a>", lh);
	} else if (json_object_is_type(mhlJ(rec, MHL_K_SOAK), json_type_object)) {
		htmlSoakConsoles(out, run, rec);
	} else {
		mhlHtmlf(out, " · serial console log not found (%s)", mhlJStr(rec, MHL_K_CONSOLE_LOG, "not recorded"));
	}
	g_string_append(out, "</p>\n");
}

/* The console findings of a trial with the serial log around each, or a note that there are none. */
static void htmlFindings(GString *out, const mhlRun *run, json_object *rec)
{
	json_object *f = mhlJ(rec, MHL_K_CONSOLE_FINDINGS);
	g_autofree char *excerpt = NULL;
	size_t k;

	if (!f || !json_object_array_length(f)) {
		g_string_append(out, "<p class=note>Console: no WARNING, BUG, Oops or panic lines.</p>\n");
		return;
	}
	g_string_append_printf(out, "<h4>Console findings (%zu)</h4>\n<ul>\n", json_object_array_length(f));
	for (k = 0; k < json_object_array_length(f); k++) {
		json_object *e = json_object_array_get_idx(f, k);

		mhlHtmlf(out, "<li>line %" G_GINT64_FORMAT ", %s: %s</li>\n", mhlJInt(e, MHL_K_LINE, 0),
		      mhlJStr(e, MHL_K_KIND, "?"), mhlJStr(e, MHL_K_TEXT, ""));
	}
	excerpt = mhlTrialConsoleExcerpt(run, rec, 3);
	mhlHtmlf(out, "</ul>\n<pre>%s</pre>\n", excerpt ? excerpt : "");
}

/*
 * Trial @idx (from 1): its raw record written to records/, then its section
 * with the timeline and census plots @tl and @cen (NULL when not drawn).
 */
static int htmlTrial(GString *out, htmlPlots *p, const mhlRun *run, const char *outdir, int outfd, guint idx,
		     const char *tl, const char *cen)
{
	json_object *rec = run->trials->pdata[idx - 1];
	g_autofree char *href = NULL;

	if (htmlRecordWrite(outdir, outfd, idx, rec, &href) < 0)
		return -1;
	htmlTrialHeader(out, run, idx, rec, href);
	if (json_object_is_type(mhlJ(rec, MHL_K_SOAK), json_type_object)) {
		/* a soak: its cycles, findings and trends (soak-page.c), not a trial's steps */
		htmlFindings(out, run, rec);
		if (mhlSoakPage(out, run, rec, outdir, outfd) < 0)
			return -1;
		g_string_append(out, "</section>\n");
		return 0;
	}
	if (tl)
		mhlPlotInline(out, p->dir, tl, "virtio-mem requested and plugged size over time");
	else
		g_string_append(out, "<p class=note>No plugged-size timeline: the trial ended before the first size report.</p>\n");
	if (cen)
		mhlPlotInline(out, p->dir, cen, "census of the pinned buffer before and after the pin");
	htmlPins(out, rec);
	htmlHostSteps(out, rec);
	htmlLifecycle(out, rec);
	htmlElastic(out, rec);
	htmlSteps(out, rec);
	htmlFindings(out, run, rec);
	if (mhlSoakPage(out, run, rec, outdir, outfd) < 0)
		return -1;
	g_string_append(out, "</section>\n");
	return 0;
}

int mhlReportHtml(const mhlRun *run, const mhlReportOpts *opts, const char *outdir)
{
	g_auto(htmlPlots) p = { g_string_new(MHL_PLOT_TERM(G_STRINGIFY(PLOT_W), G_STRINGIFY(PLOT_H))),
				g_ptr_array_new_with_free_func(g_free), NULL };
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree const char **tl = g_new0(const char *, run->trials->len + 1);
	g_autofree const char **cen = g_new0(const char *, run->trials->len + 1);
	const char *matrix, *capacity = NULL, *scale = NULL;
	g_autoptr(GPtrArray) cap = mhlCapacityPoints(run);
	g_autoptr(GPtrArray) sc = mhlScalePoints(run);
	guint i;

	/* every plot first, into one gnuplot script run once */
	matrix = plotMatrix(&p, run);
	if (cap->len) {
		capacity = plotBegin(&p, "capacity frontier: unplugged vs pinned fraction, a line per group");
		mhlCapacityGnuplot(cap, p.script);
	}
	if (sc->len >= 2) {	/* a scale sweep (issue 36, item 5): one trial alone is no curve */
		scale = plotBegin(&p, "plug and unplug against the device size");
		mhlScaleGnuplot(sc, p.script);
	}
	for (i = 0; i < run->trials->len; i++) {
		tl[i] = plotTimeline(&p, run->trials->pdata[i]);
		cen[i] = plotCensus(&p, run->trials->pdata[i]);
	}
	if (plotsRender(&p, outdir) < 0)
		return -1;

	htmlHead(out, run);
	/* a matrix run: the grid first, the long table below it */
	mhlHtmlGrid(out, run);
	htmlSummary(out, run);
	if (opts->compare)
		htmlCompare(out, run, opts->compare);
	mhlHtmlElasticity(out, run);	/* a run with a mechanism axis (issue 35) */
	if (matrix) {
		g_string_append(out, "<h2 id=matrix>Unplug outcome across the parameters</h2>\n");
		mhlPlotInline(out, p.dir, matrix, "unplug outcome across the parameters");
	}
	if (capacity)
		htmlCapacity(out, &p, cap, capacity);
	if (scale)
		mhlHtmlScale(out, sc, p.dir, scale);
	for (i = 0; i < run->trials->len; i++)
		if (htmlTrial(out, &p, run, outdir, opts->outfd, i + 1, tl[i], cen[i]) < 0)
			return -1;
	g_string_append(out, "</body>\n</html>\n");
	return mhlReportFileWrite(opts->outfd, outdir, mhlReportFormats[MHL_REPORT_HTML].file, out->str, out->len);
}
