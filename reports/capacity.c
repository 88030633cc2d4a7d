/*
 * report-capacity.c - the capacity frontier of a run (docs/capacity.md):
 * from the records of a capacity sweep (trials with a `pinned` parameter,
 * scenarios/capacity/), how much of the plugged memory the unplug took back
 * at each pinned fraction, one line per group of the other parameters
 * (policy, workload, ...), where the full unplug stops and where pins start
 * failing; as a gnuplot plot and one sentence per group.
 */
#include <glib.h>

#include "reports/report.h"

#include <string.h>

#include "mhl-size.h"

static void pointFree(mhlCapacityPoint *p)
{
	g_free(p->group);
	g_free(p->trial);
	g_free(p->failed_as);
	g_free(p);
}

/* The node of the last resize request in the timeline, or -1. */
static int lastResizeNode(json_object *rec)
{
	json_object *tl = mhlJ(rec, MHL_K_TIMELINE);
	int node = -1;
	size_t i;

	for (i = 0; tl && i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);

		if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "request"))
			node = (int)mhlJInt(e, MHL_K_NODE, -1);
	}
	return node;
}

/* How the first failed pin failed: its errno name or the signal that killed its holder. */
static char *failedAs(json_object *rec)
{
	json_object *steps = mhlJ(rec, MHL_K_STEPS);
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i), *ok;

		if (strcmp(mhlJStr(st, MHL_K_STEP, ""), "pin") || !(ok = mhlJ(st, MHL_PATH(MHL_K_WORKLOAD, MHL_K_OK))) ||
		    json_object_get_boolean(ok))
			continue;
		return g_strdup(mhlJStr(st, "workload.signal", mhlJStr(st, "workload.errno_name", "failed")));
	}
	return NULL;
}

/*
 * The group of a record: its scenario and every parameter but `pinned`, in
 * axis order: "capacity-zones (policy=online_kernel, workload=gup)".
 */
static char *groupOf(json_object *rec)
{
	g_autoptr(GString) g = g_string_new(NULL);

	json_object_object_foreach(mhlJ(rec, MHL_K_PARAMETERS), k, v) {
		if (!strcmp(k, "pinned"))
			continue;
		g_string_append_printf(g, "%s%s=%s", g->len ? ", " : "", k, json_object_get_string(v));
	}
	return g_strdup_printf("%s%s%s%s", mhlJStr(rec, MHL_K_SCENARIO_NAME, "?"), g->len ? " (" : "",
			       g->str, g->len ? ")" : "");
}

static gint pointCmp(gconstpointer a, gconstpointer b)
{
	const mhlCapacityPoint *p = *(mhlCapacityPoint *const *)a, *q = *(mhlCapacityPoint *const *)b;
	int c = strcmp(p->group, q->group);

	if (c)
		return c;
	return p->pinned_bytes < q->pinned_bytes ? -1 : p->pinned_bytes > q->pinned_bytes;
}

GPtrArray *mhlCapacityPoints(const mhlRun *run)
{
	GPtrArray *pts = g_ptr_array_new_with_free_func((GDestroyNotify)pointFree);
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		const char *pinned = mhlJStr(rec, "parameters.pinned", NULL);
		mhlCapacityPoint *p;
		uint64_t bytes;
		gint64 plugged, requested, reached;
		int node = lastResizeNode(rec);

		if (!pinned || mhl_size_parse(pinned, &bytes) < 0 || node < 0)
			continue;
		plugged = mhlJInt(mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES)) ?
				  json_object_array_get_idx(mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES)), node) : NULL,
				  "virtio_mem_requested_bytes", 0);
		requested = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1);
		reached = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);
		if (plugged <= 0 || requested < 0 || reached < 0 || requested >= plugged)
			continue;	/* no unplug was measured (the trial ended first) */
		p = g_new0(mhlCapacityPoint, 1);
		p->group = groupOf(rec);
		p->trial = g_strdup(mhlJStr(rec, MHL_K_TRIAL, ""));
		p->pinned_bytes = (gint64)bytes;
		p->plugged_bytes = plugged;
		p->reached_bytes = reached;
		p->pinned_frac = (double)bytes / (double)plugged;
		p->unplugged_frac = (double)(plugged - reached) / (double)(plugged - requested);
		p->pins_failed = (int)mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), 0);
		p->failed_as = p->pins_failed ? failedAs(rec) : NULL;
		p->seconds = mhlJDbl(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_SECONDS_TO_CONVERGE), -1);
		g_ptr_array_add(pts, p);
	}
	g_ptr_array_sort(pts, pointCmp);
	return pts;
}

/* A full unplug: the plugged size reached the request. */
static bool full(const mhlCapacityPoint *p)
{
	return p->unplugged_frac >= 1.0 - 1e-9;
}

char *mhlCapacitySentence(GPtrArray *pts, guint from, guint to)
{
	const mhlCapacityPoint *upto = NULL, *fail = NULL, *first = pts->pdata[from];
	g_autoptr(GString) s = g_string_new(NULL);
	bool broken = false;
	guint i;
	char a[32], b[32];

	/* The frontier: the largest pinned fraction up to which every pin held and the unplug was full. */
	for (i = from; i < to; i++) {
		const mhlCapacityPoint *p = pts->pdata[i];

		if (p->pins_failed) {
			if (!fail)
				fail = p;
			continue;
		}
		if (!broken && full(p))
			upto = p;
		else
			broken = true;
	}
	g_string_append_printf(s, "%s: ", first->group);
	if (upto)
		g_string_append_printf(s, "a full unplug succeeded up to %.0f%% pinned (%s of %s)",
				       100 * upto->pinned_frac,
				       mhl_size_format((uint64_t)upto->pinned_bytes, a, sizeof(a)),
				       mhl_size_format((uint64_t)upto->plugged_bytes, b, sizeof(b)));
	else
		g_string_append(s, "no pinned fraction let the unplug complete");
	for (i = from; i < to; i++) {
		const mhlCapacityPoint *p = pts->pdata[i];

		if (!p->pins_failed && !full(p)) {
			g_string_append_printf(s, "; at %.0f%% pinned it stopped at %.0f%% unplugged (%s left)",
					       100 * p->pinned_frac, 100 * p->unplugged_frac,
					       mhl_size_format((uint64_t)p->reached_bytes, a, sizeof(a)));
			break;
		}
	}
	if (fail)
		g_string_append_printf(s, "; pins failed from %.0f%% (%s: %s)", 100 * fail->pinned_frac,
				       mhl_size_format((uint64_t)fail->pinned_bytes, a, sizeof(a)),
				       fail->failed_as ? fail->failed_as : "failed");
	else
		g_string_append_printf(s, "; no pin failed up to %.0f%%",
				       100 * ((mhlCapacityPoint *)pts->pdata[to - 1])->pinned_frac);
	g_string_append_c(s, '.');
	return g_string_free(g_steal_pointer(&s), FALSE);
}

void mhlCapacityGnuplot(GPtrArray *pts, GString *script)
{
	g_autoptr(GString) plot = g_string_new("plot ");
	guint i, from, g = 0;

	g_string_append(script, "set xlabel 'pinned fraction of the plugged memory (%)'\n"
			"set ylabel 'unplugged fraction (%)'\nset xrange [-2:100]\nset yrange [-2:105]\n"
			"set key outside right top noenhanced\n");
	for (from = 0; from < pts->len; from = i, g++) {
		const mhlCapacityPoint *first = pts->pdata[from];
		g_autofree char *title = mhlGnuplotString(first->group);
		g_autofree char *failed = g_strdup_printf("%s: pin failed", first->group);
		g_autofree char *ftitle = mhlGnuplotString(failed);
		bool failures = false;

		g_string_append_printf(script, "$held%u << EOD\n", g);
		for (i = from; i < pts->len && !strcmp(((mhlCapacityPoint *)pts->pdata[i])->group, first->group); i++) {
			const mhlCapacityPoint *p = pts->pdata[i];

			failures |= p->pins_failed > 0;
			if (!p->pins_failed)
				g_string_append_printf(script, "%.2f %.2f\n", 100 * p->pinned_frac,
						       100 * p->unplugged_frac);
		}
		g_string_append_printf(script, "EOD\n$failed%u << EOD\n", g);
		for (guint k = from; k < i; k++) {
			const mhlCapacityPoint *p = pts->pdata[k];

			if (p->pins_failed)
				g_string_append_printf(script, "%.2f %.2f\n", 100 * p->pinned_frac,
						       100 * p->unplugged_frac);
		}
		g_string_append(script, "EOD\n");
		g_string_append_printf(plot, "%s$held%u using 1:2 with linespoints lw 2 pt 7 lc %u title %s",
				       g ? ", " : "", g, g + 1, title);
		if (failures)
			g_string_append_printf(plot, ", $failed%u using 1:2 with points pt 2 ps 1.6 lc %u "
					       "title %s", g, g + 1, ftitle);
	}
	g_string_append_printf(script, "%s\n", plot->str);
}
