/*
 * report-capacity.c - the capacity frontier of a run (docs/capacity.md):
 * from the records of a capacity sweep (trials with a `pinned` parameter,
 * scenarios/capacity/), how much of the plugged memory the unplug took back
 * at each pinned fraction, one line per group of the other parameters
 * (policy, workload, ...), where the full unplug stops and where pins start
 * failing; as a gnuplot plot and one sentence per group.
 *
 * Plug-ratio sweeps (a `plugged` parameter instead of `pinned`,
 * scenarios/capacity/plug-ratio.yaml) go into the same list, marked by
 * pinned_bytes -1 and carried in a prPoint: per group (the online policy)
 * the largest plugged ÷ boot memory up to which everything held, the first
 * ratio where the guest failed and how, the first where the unplug stopped
 * short. Their sentence comes from mhlCapacitySentence() like any group's;
 * the pinned-fraction plot leaves them out (it draws them, unplugged % over
 * the ratio, only in a run without pinned points).
 */
#include <glib.h>

#include "reports/plot.h"
#include "reports/report.h"

#include <string.h>

#include "mhl-size.h"
#include "util.h"

/* The bytes of a console log line looked at for OOM kills and allocation failures. */
#define MHL_CAPACITY_LINE_MAX 4096

/* A plug-ratio point: base.pinned_bytes is -1, base.plugged_bytes the plugged size asked. */
typedef struct {
	mhlCapacityPoint base;	/* first: the list holds &base */
	gint64 boot_bytes;	/* every node's boot memory */
	double ratio;		/* plugged ÷ boot */
	bool unplug_measured;	/* an unplug ran (a panic may end the trial first) */
	bool unplug_short;	/* it stopped above its request */
	/* base.failed_as: how the guest failed, NULL if it did not */
} prPoint;

static bool isPlugRatio(const mhlCapacityPoint *p)
{
	return p->pinned_bytes < 0;
}

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

		if (strcmp(mhlJStr(st, MHL_K_STEP, ""), "pin") || !(ok = mhlJ(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_OK))) ||
		    json_object_get_boolean(ok))
			continue;
		return g_strdup(mhlJStr(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_SIGNAL), mhlJStr(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_ERRNO_NAME), "failed")));
	}
	return NULL;
}

/*
 * The group of a record: its scenario and every parameter but `pinned`, in
 * axis order: "capacity-zones (policy=online_kernel, workload=gup)".
 */
static char *groupOf(json_object *rec, const char *axis)
{
	g_autoptr(GString) g = g_string_new(NULL);

	json_object_object_foreach(mhlJ(rec, MHL_K_PARAMETERS), k, v) {
		if (!strcmp(k, axis))
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
	if (isPlugRatio(p) && isPlugRatio(q))
		return ((const prPoint *)p)->ratio < ((const prPoint *)q)->ratio ? -1 :
		       ((const prPoint *)p)->ratio > ((const prPoint *)q)->ratio;
	return p->pinned_bytes < q->pinned_bytes ? -1 : p->pinned_bytes > q->pinned_bytes;
}

/* A `what` for the failure list, once. */
static void failAdd(GString *f, const char *what)
{
	if (!strstr(f->str, what))
		g_string_append_printf(f, "%s%s", f->len ? ", " : "", what);
}

/* How often @needle occurs in @len bytes at @p (by length: a NUL is a byte like another). */
static int countIn(const char *p, gsize len, const char *needle)
{
	const char *end = p + len;
	gsize n = strlen(needle);
	int c = 0;

	while ((p = memmem(p, (gsize)(end - p), needle, n))) {
		c++;
		p++;
	}
	return c;
}

/*
 * The OOM victims in the serial log ("Out of memory: Killed process 157
 * (memhp-pin)"), and allocation failures: the log read a line at a time (a
 * log from elsewhere may be of any size), the first MHL_CAPACITY_LINE_MAX
 * bytes of each line looked at.
 */
static void failFromLog(const mhlRun *run, json_object *rec, GString *f, int *ooms)
{
	static const char oom[] = "Out of memory: Killed process ";
	g_autoptr(mhlLineReader) lr = NULL;
	const char *line, *p, *end;
	guint64 lineno;
	gsize len;
	int fd = mhlTrialConsoleOpen(run, rec), allocs = 0;

	if (fd < 0)
		return;
	lr = mhlLineReaderNew(fd, MHL_CAPACITY_LINE_MAX);
	while (mhlLineReaderNext(lr, &line, &len, NULL, &lineno)) {
		allocs += countIn(line, len, "page allocation failure");
		for (p = line, end = line + len; (p = memmem(p, (gsize)(end - p), oom, sizeof(oom) - 1)); p++) {
			const char *open = memchr(p, '(', (gsize)(end - p));
			const char *close = open ? memchr(open, ')', (gsize)(end - open)) : NULL;
			g_autofree char *name = NULL, *who = NULL;

			(*ooms)++;
			if (!open || !close || close - open > 32)
				continue;
			/* the guest's bytes: valid UTF-8 without control characters */
			name = mhlTextClean(open + 1, close - open - 1, 0, false);
			who = g_strdup_printf("OOM kill of %s", name);
			failAdd(f, who);
		}
	}
	if (allocs) {
		g_autofree char *a = g_strdup_printf("%d page allocation failure%s", allocs, allocs > 1 ? "s" : "");

		failAdd(f, a);
	}
}

/*
 * How the guest failed, or NULL: a plug that stopped short, the kmem load
 * stopped by an error, a pin that failed (its errno, or the signal that
 * killed its holder), an OOM kill (vmstat oom_kill; the victim from the
 * serial log), page allocation failures (serial log), a kernel report on
 * the console (panic, oops, bug, ...), a trial that ended as error.
 */
static char *guestFailure(const mhlRun *run, json_object *rec)
{
	g_autoptr(GString) f = g_string_new(NULL);
	json_object *steps = mhlJ(rec, MHL_K_STEPS), *cf = mhlJ(rec, MHL_K_CONSOLE_FINDINGS);
	gint64 oom;
	int ooms = 0;
	size_t i;
	char a[32], b[32];
	bool grown = false;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i), *ok;
		const char *kind = mhlJStr(st, MHL_K_STEP, "");

		if (!strcmp(kind, "resize") && !grown && mhlJInt(st, MHL_K_REQUESTED_BYTES, 0) > 0) {
			gint64 req = mhlJInt(st, MHL_K_REQUESTED_BYTES, 0), got = mhlJInt(st, MHL_K_REACHED_BYTES, -1);

			grown = true;
			if (got >= 0 && got < req) {
				g_autofree char *w = g_strdup_printf("the plug stopped at %s of %s",
					mhl_size_format((uint64_t)got, a, sizeof(a)), mhl_size_format((uint64_t)req, b, sizeof(b)));

				failAdd(f, w);
			}
		}
		if (strcmp(kind, "pin"))
			continue;
		if (mhlJStr(st, MHL_PATH4(MHL_K_WORKLOAD, MHL_PIN_K_KMEM, MHL_PIN_K_FIRST_ERROR, MHL_PIN_K_ERRNO_NAME), NULL)) {
			g_autofree char *w = g_strdup_printf("the kmem load stopped at %s (%s at %s)",
				mhl_size_format((uint64_t)MAX(mhlJInt(st, MHL_PATH3(MHL_K_WORKLOAD, MHL_PIN_K_KMEM, MHL_PIN_K_KERNEL_BYTES), 0), 0), a, sizeof(a)),
				mhlJStr(st, MHL_PATH4(MHL_K_WORKLOAD, MHL_PIN_K_KMEM, MHL_PIN_K_FIRST_ERROR, MHL_PIN_K_ERRNO_NAME), "?"),
				mhlJStr(st, MHL_PATH4(MHL_K_WORKLOAD, MHL_PIN_K_KMEM, MHL_PIN_K_FIRST_ERROR, MHL_PIN_K_AT), "?"));

			failAdd(f, w);
		}
		if ((ok = mhlJ(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_OK))) && !json_object_get_boolean(ok)) {
			g_autofree char *w = g_strdup_printf("pin %s failed (%s)", mhlJStr(st, MHL_K_ID, "?"),
				mhlJStr(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_SIGNAL), mhlJStr(st, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_ERRNO_NAME), "failed")));

			failAdd(f, w);
		}
	}
	failFromLog(run, rec, f, &ooms);
	oom = mhlJInt(rec, MHL_PATH3(MHL_K_GUEST_AFTER, MHL_K_VMSTAT, MHL_K_OOM_KILL), 0) - mhlJInt(rec, MHL_PATH3(MHL_K_GUEST_BEFORE, MHL_K_VMSTAT, MHL_K_OOM_KILL), 0);
	if (oom > 0 && !ooms) {
		g_autofree char *w = g_strdup_printf("%" G_GINT64_FORMAT " OOM kill%s", oom, oom > 1 ? "s" : "");

		failAdd(f, w);
	}
	for (i = 0; cf && i < json_object_array_length(cf); i++) {
		const char *k = mhlJStr(json_object_array_get_idx(cf, i), MHL_K_KIND, "?");

		/* TCG is slow: a stall or a hung-task report is no failure of memory. */
		if (strcmp(k, "rcu_stall") && strcmp(k, "hung_task"))
			failAdd(f, k);
	}
	if (!strcmp(mhlJStr(rec, MHL_K_VERDICT, ""), "error"))
		failAdd(f, "the trial ended as error");
	return f->len ? g_strdup(f->str) : NULL;
}

/* A record of a plug-ratio sweep as a point, NULL if it has no plugged size or no boot memory. */
static mhlCapacityPoint *plugRatioPoint(const mhlRun *run, json_object *rec)
{
	json_object *nodes = mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES)), *steps = mhlJ(rec, MHL_K_STEPS);
	gint64 boot = 0, req = -1, reached = -1;
	uint64_t plugged;
	prPoint *p;
	size_t i;

	if (mhl_size_parse(mhlJStr(rec, MHL_PATH(MHL_K_PARAMETERS, MHL_K_AXIS_PLUGGED), ""), &plugged) < 0 || !plugged)
		return NULL;
	for (i = 0; nodes && i < json_object_array_length(nodes); i++)
		boot += mhlJInt(json_object_array_get_idx(nodes, i), MHL_K_MEMORY_BYTES, 0);
	if (boot <= 0)
		return NULL;
	/* The unplug: the last resize that asked for less than the plugged size. */
	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i);

		if (!strcmp(mhlJStr(st, MHL_K_STEP, ""), "resize") &&
		    mhlJInt(st, MHL_K_REQUESTED_BYTES, -1) >= 0 &&
		    mhlJInt(st, MHL_K_REQUESTED_BYTES, -1) < (gint64)plugged &&
		    mhlJInt(st, MHL_K_REACHED_BYTES, -1) >= 0) {
			req = mhlJInt(st, MHL_K_REQUESTED_BYTES, -1);
			reached = mhlJInt(st, MHL_K_REACHED_BYTES, -1);
		}
	}
	p = g_new0(prPoint, 1);
	p->base.group = groupOf(rec, MHL_K_AXIS_PLUGGED);
	p->base.trial = g_strdup(mhlJStr(rec, MHL_K_TRIAL, ""));
	p->base.pinned_bytes = -1;
	p->base.plugged_bytes = (gint64)plugged;
	p->base.reached_bytes = reached;
	p->base.unplugged_frac = req >= 0 ? (double)((gint64)plugged - MIN(reached, (gint64)plugged)) /
					    (double)((gint64)plugged - req) : 0;
	p->base.pins_failed = (int)mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), 0);
	p->base.seconds = mhlJDbl(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_SECONDS_TO_CONVERGE), -1);
	p->boot_bytes = boot;
	p->ratio = (double)plugged / (double)boot;
	p->unplug_measured = req >= 0;
	p->unplug_short = req >= 0 && reached > req;
	p->base.failed_as = guestFailure(run, rec);
	return &p->base;
}

GPtrArray *mhlCapacityPoints(const mhlRun *run)
{
	GPtrArray *pts = g_ptr_array_new_with_free_func((GDestroyNotify)pointFree);
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		const char *pinned = mhlJStr(rec, MHL_PATH(MHL_K_PARAMETERS, MHL_K_AXIS_PINNED), NULL);
		mhlCapacityPoint *p;
		uint64_t bytes;
		gint64 plugged, requested, reached;
		int node = lastResizeNode(rec);

		if (!pinned && mhlJStr(rec, MHL_PATH(MHL_K_PARAMETERS, MHL_K_AXIS_PLUGGED), NULL)) {
			mhlCapacityPoint *pr = plugRatioPoint(run, rec);

			if (pr)
				g_ptr_array_add(pts, pr);
			continue;
		}
		if (!pinned || mhl_size_parse(pinned, &bytes) < 0 || node < 0)
			continue;
		plugged = mhlJInt(mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES)) ?
				  json_object_array_get_idx(mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES)), node) : NULL,
				  MHL_K_VIRTIO_MEM_REQUESTED_BYTES, 0);
		requested = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1);
		reached = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);
		if (plugged <= 0 || requested < 0 || reached < 0 || requested >= plugged)
			continue;	/* no unplug was measured (the trial ended first) */
		p = g_new0(mhlCapacityPoint, 1);
		p->group = groupOf(rec, MHL_K_AXIS_PINNED);
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

/* Everything held: the guest did not fail and the unplug reached its request. */
static bool prHeld(const prPoint *p)
{
	return !p->base.failed_as && p->unplug_measured && !p->unplug_short;
}

/*
 * A plug-ratio group's sentence: "capacity-plug-ratio (online=movable):
 * everything held up to 8x (2GiB plugged on 256MiB of boot memory); the
 * guest first failed at 16x (OOM kill of memhp-pin); the unplug first stopped
 * short at 16x (36MiB left of 4GiB)."
 */
static char *prSentence(GPtrArray *pts, guint from, guint to)
{
	const prPoint *upto = NULL, *fail = NULL, *shortp = NULL, *last = pts->pdata[to - 1];
	g_autoptr(GString) s = g_string_new(NULL);
	g_autoptr(GString) unmeasured = g_string_new(NULL);
	guint i;
	char a[32], b[32];

	for (i = from; i < to; i++) {
		const prPoint *p = pts->pdata[i];

		if (prHeld(p) && upto == (i == from ? NULL : pts->pdata[i - 1]))
			upto = p;
		if (p->base.failed_as && !fail)
			fail = p;
		if (p->unplug_short && !shortp)
			shortp = p;
		if (!p->unplug_measured)
			g_string_append_printf(unmeasured, "%s%gx", unmeasured->len ? ", " : "", p->ratio);
	}
	g_string_append_printf(s, "%s: ", last->base.group);
	if (upto)
		g_string_append_printf(s, "everything held up to %gx (%s plugged on %s of boot memory)", upto->ratio,
				       mhl_size_format((uint64_t)upto->base.plugged_bytes, a, sizeof(a)),
				       mhl_size_format((uint64_t)upto->boot_bytes, b, sizeof(b)));
	else
		g_string_append_printf(s, "nothing held even at %gx (%s plugged on %s of boot memory)",
				       ((const prPoint *)pts->pdata[from])->ratio,
				       mhl_size_format((uint64_t)((const prPoint *)pts->pdata[from])->base.plugged_bytes,
						       a, sizeof(a)),
				       mhl_size_format((uint64_t)last->boot_bytes, b, sizeof(b)));
	if (fail)
		g_string_append_printf(s, "; the guest first failed at %gx (%s)", fail->ratio, fail->base.failed_as);
	else
		g_string_append_printf(s, "; the guest never failed up to %gx", last->ratio);
	if (shortp)
		g_string_append_printf(s, "; the unplug first stopped short at %gx (%s left of %s)", shortp->ratio,
				       mhl_size_format((uint64_t)shortp->base.reached_bytes, a, sizeof(a)),
				       mhl_size_format((uint64_t)shortp->base.plugged_bytes, b, sizeof(b)));
	else
		g_string_append_printf(s, "; the unplug reached its request at every measured ratio up to %gx", last->ratio);
	if (unmeasured->len)
		g_string_append_printf(s, " (no unplug at %s: the trial ended first)", unmeasured->str);
	g_string_append_c(s, '.');
	return g_string_free(g_steal_pointer(&s), FALSE);
}

char *mhlCapacitySentence(GPtrArray *pts, guint from, guint to)
{
	const mhlCapacityPoint *upto = NULL, *fail = NULL, *first = pts->pdata[from];
	g_autoptr(GString) s = g_string_new(NULL);
	bool broken = false;
	guint i;
	char a[32], b[32];

	if (isPlugRatio(first))
		return prSentence(pts, from, to);
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

/* The x of a point in the plot: pinned %, or plugged ÷ boot for a plug-ratio plot. */
static double plotX(const mhlCapacityPoint *p)
{
	return isPlugRatio(p) ? ((const prPoint *)p)->ratio : 100 * p->pinned_frac;
}

/* A cross in the plot: a failed pin, or for a plug-ratio point a guest that failed. */
static bool plotFailed(const mhlCapacityPoint *p)
{
	return isPlugRatio(p) ? p->failed_as != NULL : p->pins_failed > 0;
}

/*
 * The pinned-fraction groups; in a run with none, the plug-ratio groups
 * instead (unplugged % over plugged ÷ boot memory, log 2, crosses where the
 * guest failed).
 */
void mhlCapacityGnuplot(GPtrArray *pts, GString *script)
{
	g_autoptr(GString) plot = g_string_new("plot ");
	guint i, from, g = 0;
	bool ratios = true;

	for (i = 0; i < pts->len; i++)
		ratios &= isPlugRatio(pts->pdata[i]);
	if (ratios)
		g_string_append(script, "set xlabel 'plugged / boot memory (x)'\nset logscale x 2\n"
				"set ylabel 'unplugged fraction (%)'\nset yrange [-2:105]\n"
				"set key outside right top noenhanced\n");
	else
		g_string_append(script, "set xlabel 'pinned fraction of the plugged memory (%)'\n"
				"set ylabel 'unplugged fraction (%)'\nset xrange [-2:100]\nset yrange [-2:105]\n"
				"set key outside right top noenhanced\n");
	for (from = 0; from < pts->len; from = i) {
		const mhlCapacityPoint *first = pts->pdata[from];
		g_autofree char *title = mhlGnuplotString(first->group);
		g_autofree char *failed = g_strdup_printf("%s: %s", first->group,
							  ratios ? "guest failed" : "pin failed");
		g_autofree char *ftitle = mhlGnuplotString(failed);
		g_autofree char *hname = g_strdup_printf("held%u", g), *fname = g_strdup_printf("failed%u", g);
		g_autoptr(GString) held = g_string_new(NULL), fail = g_string_new(NULL);
		bool failures = false;

		for (i = from; i < pts->len && !strcmp(((mhlCapacityPoint *)pts->pdata[i])->group, first->group); i++)
			;
		if (isPlugRatio(first) != ratios)
			continue;	/* a plug-ratio group beside pinned ones: its sentence only */
		for (guint k = from; k < i; k++) {
			const mhlCapacityPoint *p = pts->pdata[k];

			failures |= plotFailed(p);
			g_string_append_printf(plotFailed(p) ? fail : held, "%.2f %.2f\n", plotX(p),
					       100 * p->unplugged_frac);
		}
		mhlPlotData(script, hname, held->str);
		mhlPlotData(script, fname, fail->str);
		g_string_append_printf(plot, "%s$held%u using 1:2 with linespoints lw 2 pt 7 lc %u title %s",
				       g ? ", " : "", g, g + 1, title);
		if (failures)
			g_string_append_printf(plot, ", $failed%u using 1:2 with points pt 2 ps 1.6 lc %u "
					       "title %s", g, g + 1, ftitle);
		g++;
	}
	g_string_append_printf(script, "%s\n", plot->str);
}
