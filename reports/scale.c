/*
 * scale.c - the scale section of index.html (scale.h): a point per trial
 * that plugs a device from 0 and takes it all back (scenarios/scale/),
 * a table and a log-log plot of its seconds against the device's size.
 * Everything read is record text or numbers; gnuplot gets only numbers.
 */
#include <glib.h>

#include "reports/scale.h"

#include <math.h>
#include <string.h>

#include "mhl-pin-keys.h"
#include "reports/plot.h"

static void pointFree(mhlScalePoint *p)
{
	g_free(p->trial);
	g_free(p);
}

/* The sum of a host sample's backend_bytes ({node: bytes}), or -1 without one. */
static gint64 backendSum(json_object *sample)
{
	json_object *b = mhlJ(sample, MHL_K_BACKEND_BYTES);
	gint64 sum = 0;

	if (!json_object_is_type(b, json_type_object) || !json_object_object_length(b))
		return -1;
	json_object_object_foreach(b, k, v) {
		(void)k;
		sum += MAX(json_object_get_int64(v), 0);
	}
	return sum;
}

/* The most QEMU's RSS was in any host sample: the timeline's and the resizes' before and after. */
static gint64 rssPeak(json_object *rec)
{
	json_object *tl = mhlJ(rec, MHL_K_TIMELINE), *steps = mhlJ(rec, MHL_K_STEPS);
	gint64 peak = -1;
	size_t i;

	for (i = 0; tl && json_object_is_type(tl, json_type_array) && i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);

		if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), MHL_K_HOST))
			peak = MAX(peak, mhlJInt(e, MHL_K_QEMU_RSS_BYTES, -1));
	}
	for (i = 0; steps && json_object_is_type(steps, json_type_array) && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i);

		peak = MAX(peak, mhlJInt(st, MHL_PATH3(MHL_K_HOST, MHL_K_BEFORE, MHL_K_QEMU_RSS_BYTES), -1));
		peak = MAX(peak, mhlJInt(st, MHL_PATH3(MHL_K_HOST, MHL_K_AFTER, MHL_K_QEMU_RSS_BYTES), -1));
	}
	return peak;
}

/* @rec's point, or NULL when its first resize is no grow from 0 or its last no unplug to 0. */
static mhlScalePoint *pointOf(json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS), *grow = NULL, *shrink = NULL;
	gint64 in_use = 0;
	mhlScalePoint *p;
	size_t i;

	for (i = 0; steps && json_object_is_type(steps, json_type_array) && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i);
		const char *kind = mhlJStr(st, MHL_K_STEP, "");

		if (!strcmp(kind, "pin"))
			in_use += MAX(mhlJInt(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_BYTES_ASKED), 0), 0);
		else if (!strcmp(kind, "resize") && !grow)
			grow = st;
		else if (!strcmp(kind, "resize"))
			shrink = st;
	}
	if (!grow || !shrink || mhlJInt(grow, MHL_PATH(MHL_K_PLUG, MHL_K_PLUGGED_BYTES), 0) <= 0 ||
	    mhlJInt(grow, MHL_PATH(MHL_K_HOST, MHL_K_PLUGGED_BEFORE_BYTES), 0) != 0 ||
	    mhlJInt(shrink, MHL_K_REQUESTED_BYTES, -1) != 0 || mhlJInt(shrink, MHL_K_REACHED_BYTES, -1) != 0)
		return NULL;
	p = g_new0(mhlScalePoint, 1);
	p->trial = g_strdup(mhlJStr(rec, MHL_K_TRIAL, ""));
	p->device_bytes = mhlJInt(grow, MHL_PATH(MHL_K_PLUG, MHL_K_PLUGGED_BYTES), 0);
	p->in_use_bytes = in_use;
	p->plug_s = mhlJDbl(grow, MHL_PATH(MHL_K_PLUG, MHL_K_SECONDS_TO_PLUGGED), NAN);
	p->online_s = mhlJDbl(grow, MHL_PATH(MHL_K_PLUG, MHL_K_SECONDS_TO_ONLINE), NAN);
	p->unplug_s = mhlJDbl(shrink, MHL_K_SECONDS_TO_CONVERGE, NAN);
	p->backend_before = backendSum(mhlJ(shrink, MHL_PATH(MHL_K_HOST, MHL_K_BEFORE)));
	p->backend_after = backendSum(mhlJ(shrink, MHL_PATH(MHL_K_HOST, MHL_K_AFTER)));
	p->rss_before = mhlJInt(grow, MHL_PATH3(MHL_K_HOST, MHL_K_BEFORE, MHL_K_QEMU_RSS_BYTES), -1);
	p->rss_peak = rssPeak(rec);
	p->rss_after = mhlJInt(shrink, MHL_PATH3(MHL_K_HOST, MHL_K_AFTER, MHL_K_QEMU_RSS_BYTES), -1);
	return p;
}

GPtrArray *mhlScalePoints(const mhlRun *run)
{
	GPtrArray *pts = g_ptr_array_new_with_free_func((GDestroyNotify)pointFree);
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		mhlScalePoint *p = pointOf(run->trials->pdata[i]);

		if (p)
			g_ptr_array_add(pts, p);
	}
	return pts;
}

void mhlScaleGnuplot(GPtrArray *pts, GString *sc)
{
	g_autoptr(GString) plug = g_string_new(NULL), unused = g_string_new(NULL), used = g_string_new(NULL);
	double lo = INFINITY, hi = 0;
	guint i;

	for (i = 0; i < pts->len; i++) {
		const mhlScalePoint *p = pts->pdata[i];
		double gib = (double)p->device_bytes / (1 << 30);

		lo = MIN(lo, gib);
		hi = MAX(hi, gib);
		if (isfinite(p->plug_s) && p->plug_s > 0)
			g_string_append_printf(plug, "%.4f %.4f\n", gib, p->plug_s);
		if (isfinite(p->unplug_s) && p->unplug_s > 0)
			g_string_append_printf(p->in_use_bytes ? used : unused, "%.4f %.4f\n", gib, p->unplug_s);
	}
	/* a decade around the sizes: one size alone still gets an x axis */
	g_string_append_printf(sc, "set logscale xy 2\nset xrange [%.4f:%.4f]\n"
			       "set xlabel 'virtio-mem device size (GiB)'\nset ylabel 'seconds'\n"
			       "set key outside right top noenhanced\n", lo / 2, hi * 2);
	mhlPlotData(sc, "scaleplug", plug->len ? plug->str : "NaN NaN\n");
	mhlPlotData(sc, "scaleunused", unused->len ? unused->str : "NaN NaN\n");
	mhlPlotData(sc, "scaleused", used->len ? used->str : "NaN NaN\n");
	g_string_append(sc, "plot $scaleplug using 1:2 with linespoints lw 2 pt 7 lc 1 title 'plug (request to plugged)', "
			"$scaleunused using 1:2 with linespoints lw 2 pt 5 lc 2 title 'unplug, nothing in use', "
			"$scaleused using 1:2 with linespoints lw 2 pt 9 lc 3 title 'unplug, memory in use (migrated)'\n");
}

/* @b bytes as whole MiB, or "–" when not read (-1). */
static void mibCell(GString *out, gint64 b)
{
	if (b < 0)
		g_string_append(out, "<td>–</td>");
	else
		g_string_append_printf(out, "<td>%" G_GINT64_FORMAT "</td>", b >> 20);
}

static void secCell(GString *out, double s)
{
	if (isfinite(s))
		g_string_append_printf(out, "<td>%.2f</td>", s);
	else
		g_string_append(out, "<td>–</td>");
}

void mhlHtmlScale(GString *out, GPtrArray *pts, const char *dir, const char *plot)
{
	guint i;

	g_string_append(out, "<h2 id=scale>Plug and unplug against the device's size</h2>\n"
			"<table class=scale><tr><th>trial</th><th>device GiB</th><th>in use GiB</th><th>plug s</th>"
			"<th>online s</th><th>unplug s</th><th>backend before unplug MiB</th><th>after MiB</th>"
			"<th>QEMU RSS before plug MiB</th><th>peak MiB</th><th>after unplug MiB</th></tr>\n");
	for (i = 0; i < pts->len; i++) {
		const mhlScalePoint *p = pts->pdata[i];

		mhlHtmlf(out, "<tr><td>%s</td>", p->trial);
		g_string_append_printf(out, "<td>%g</td><td>%g</td>",
				       (double)p->device_bytes / (1 << 30), (double)p->in_use_bytes / (1 << 30));
		secCell(out, p->plug_s);
		secCell(out, p->online_s);
		secCell(out, p->unplug_s);
		mibCell(out, p->backend_before);
		mibCell(out, p->backend_after);
		mibCell(out, p->rss_before);
		mibCell(out, p->rss_peak);
		mibCell(out, p->rss_after);
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</table>\n");
	mhlPlotInline(out, dir, plot, "plug and unplug seconds against the device size, log-log");
}
