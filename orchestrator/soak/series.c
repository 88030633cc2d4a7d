/*
 * series.c - a soak's memory series and how they are judged (docs/soak.md,
 * "Trends"). Every checkpoint adds one point per series (guest kernel
 * memory from /proc/meminfo, online blocks against plugged bytes, QEMU's
 * and the orchestrator's RSS, the run directory's size); every K cycles the
 * guest's caches were dropped first and its /proc/slabinfo came along.
 * Each series is fitted against cycles and against hours (trend.c); it is a
 * finding, once per series and guest, when the slope's confidence interval
 * excludes 0 on the harmful side and the growth it projects over 24 h is
 * above the series' budget; the orchestrator's own RSS whenever its slope
 * is significant (our C must not grow per cycle at all). A growing
 * unreclaimable slab is attributed to the caches that grew between the
 * first and the last slabinfo. What the fits need is kept as running sums
 * (and a Theil-Sen series' points, binned beyond MHL_SOAK_SEN_KEEP), so that
 * the series of a soak of days take no more memory than one of minutes.
 */
#include <glib.h>

#include "soak/soak-int.h"

#include <math.h>
#include <string.h>

#include "soak/trend.h"
#include "util.h"

#define MIN_POINTS_ALL	10	/* a series fitted on every checkpoint */
#define MIN_POINTS_DROP	5	/* a series fitted on the checkpoints that dropped the caches */
#define GUEST_WARMUP	5	/* a guest-side series leaves out the guest's first 5 checkpoints:
				 * slab caches, per-CPU lists and page tables fill while each
				 * workload runs for the first times (tens of KiB) */
#define HOST_WARMUP_S	300	/* a host-side series leaves out its first 5 minutes: QEMU's
				 * RSS and the orchestrator's grow for minutes after the boot
				 * (guest pages touched a first time, TCG's code buffer, heaps) */
#define SLAB_IN_TEXT	3	/* caches named in a finding's text */

/* In mhlSoakSeriesNames' order (scenario/sections.c), which soak: {budgets:} names. */
static const struct {
	const char *key;	/* in the checkpoint's counters */
	double scale;		/* to bytes */
	int sign;		/* +1: growth is the harm; -1: decline is */
	bool robust;		/* Theil-Sen: its single readings swing */
	bool dropped_only;	/* only checkpoints that dropped the caches first */
	bool attribute;		/* name the slab caches that grew */
	bool host;		/* its first HOST_WARMUP_S left out */
	bool guest_bound;	/* holds guest RAM: never a finding below the guest's RAM + MHL_QEMU_OVERHEAD */
	bool ours;		/* the orchestrator's own memory: a finding whenever it grows significantly,
				 * whatever the budget (shown, not judged) */
	bool shown;		/* in the trend table, never a finding: its parts are judged apart */
	uint64_t budget;	/* default: bytes per 24 h */
	const char *what;
} seriesDefs[] = {
	{ MHL_K_SLAB_UNRECLAIMABLE_BYTES, 1, +1, false, false, true, false, false, false, false, 16ULL << 20, "unreclaimable slab (SUnreclaim)" },
	{ MHL_K_SLAB_RECLAIMABLE_BYTES, 1, +1, false, true, false, false, false, false, false, 64ULL << 20, "reclaimable slab after drop_caches (SReclaimable)" },
	{ MHL_K_VMALLOC_BYTES, 1, +1, false, false, false, false, false, false, false, 32ULL << 20, "vmalloc (VmallocUsed)" },
	{ MHL_K_PAGE_TABLES_BYTES, 1, +1, false, false, false, false, false, false, false, 16ULL << 20, "page tables (PageTables)" },
	{ MHL_K_PERCPU_BYTES, 1, +1, false, false, false, false, false, false, false, 8ULL << 20, "per-CPU memory (Percpu)" },
	{ MHL_K_KERNEL_STACK_BYTES, 1, +1, false, false, false, false, false, false, false, 8ULL << 20, "kernel stacks (KernelStack)" },
	{ MHL_K_HUGETLB_BYTES, 1, +1, false, false, false, false, false, false, false, 2ULL << 20, "hugetlb pools (Hugetlb)" },
	{ MHL_K_MEM_FREE_BYTES, 1, -1, true, true, false, false, false, false, false, 256ULL << 20, "guest free memory after drop_caches (MemFree)" },
	{ MHL_K_ONLINE_GAP_BYTES, 1, +1, false, false, false, false, false, false, false, 128ULL << 20, "online memory blocks beyond boot + plugged memory" },
	{ MHL_K_QEMU_RSS_BYTES, 1, +1, false, false, false, true, true, false, true, 256ULL << 20, "QEMU's RSS" },
	{ MHL_K_GUEST_RAM_BYTES, 1, +1, false, false, false, true, true, false, false, 256ULL << 20, "the guest's RAM resident in QEMU (its backends)" },
	{ MHL_K_TCG_CODE_BYTES, 1, +1, false, false, false, true, false, false, true, 128ULL << 20, "TCG's translated code (bounded by its buffer)" },
	{ MHL_K_QEMU_OWN_BYTES, 1, +1, false, false, false, true, false, false, false, 128ULL << 20, "QEMU's own memory (RSS - the backends - TCG's code)" },
	{ MHL_K_ORCHESTRATOR_RSS_KIB, 1024, +1, false, false, false, true, false, true, false, 64ULL << 20, "the orchestrator's RSS" },
	{ MHL_K_RUN_DIR_BYTES, 1, +1, false, false, false, true, false, false, false, 1ULL << 30, "the run directory" },
};
G_STATIC_ASSERT(G_N_ELEMENTS(seriesDefs) <= MHL_SOAK_SERIES_MAX);

/* A point of a Theil-Sen series (mhlSoakSeriesFit.sen). */
typedef struct {
	double cycle, hour, y;
} mhlSoakSenPoint;

void mhlSoakSeriesInit(mhlSoakSeries *ss)
{
	size_t i;

	memset(ss, 0, sizeof(*ss));
	ss->events = g_array_new(FALSE, FALSE, sizeof(mhlSoakTrendEvent));
	for (i = 0; i < G_N_ELEMENTS(seriesDefs); i++)
		if (seriesDefs[i].robust)
			ss->fit[i].sen = g_array_sized_new(FALSE, FALSE, sizeof(mhlSoakSenPoint), MHL_SOAK_SEN_KEEP);
}

void mhlSoakSeriesClear(mhlSoakSeries *ss)
{
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(ss->fit); i++)
		if (ss->fit[i].sen)
			g_array_unref(ss->fit[i].sen);
	json_object_put(ss->slab_first);
	json_object_put(ss->slab_last);
	if (ss->events)
		g_array_unref(ss->events);
	memset(ss, 0, sizeof(*ss));
}

const char *mhlSoakSeriesName(size_t i)
{
	return i < G_N_ELEMENTS(seriesDefs) ? mhlSoakSeriesNames[i] : NULL;
}

/*
 * A Theil-Sen series holds its points up to MHL_SOAK_SEN_KEEP, then each
 * pair of them becomes their mean: the fit bins beyond MHL_TREND_SEN_MAX
 * points anyway, and a series after drop_caches (every K cycles) reaches
 * this only after K * MHL_SOAK_SEN_KEEP cycles (25600 by default).
 */
static void senTake(GArray *sen, const mhlSoakSenPoint *p)
{
	mhlSoakSenPoint *v;
	guint j, half;

	g_array_append_val(sen, *p);
	if (sen->len < MHL_SOAK_SEN_KEEP)
		return;
	v = (mhlSoakSenPoint *)(void *)sen->data;
	half = sen->len / 2;
	for (j = 0; j < half; j++) {
		v[j].cycle = (v[2 * j].cycle + v[2 * j + 1].cycle) / 2;
		v[j].hour = (v[2 * j].hour + v[2 * j + 1].hour) / 2;
		v[j].y = (v[2 * j].y + v[2 * j + 1].y) / 2;
	}
	if (sen->len % 2)
		v[half++] = v[sen->len - 1];
	g_array_set_size(sen, half);
}

/* One point of a series its judgement uses: into the running sums, or a Theil-Sen series' points. */
static void seriesTake(mhlSoakSeriesFit *f, double cycle, double hour, double y)
{
	if (!f->n)
		f->first_cycle = cycle;
	f->n++;
	f->last_hour = hour;
	if (f->sen) {
		mhlSoakSenPoint p = { .cycle = cycle, .hour = hour, .y = y };

		senTake(f->sen, &p);
		return;
	}
	mhlTrendSumsAdd(&f->cycles, cycle, y);
	mhlTrendSumsAdd(&f->hours, hour, y);
}

void mhlSoakSeriesAdd(mhlSoakSeries *ss, int cycle, double t, json_object *counters, bool dropped,
		      json_object *slabinfo)
{
	size_t i, k = ss->checkpoints++;

	if (!k)
		ss->t0 = t;
	for (i = 0; i < G_N_ELEMENTS(seriesDefs); i++) {
		json_object *v = mhlJ(counters, seriesDefs[i].key);
		double y = v && json_object_is_type(v, json_type_int) && (json_object_get_int64(v) >= 0 ||
			   !strcmp(seriesDefs[i].key, MHL_K_ONLINE_GAP_BYTES)) ?
			   (double)json_object_get_int64(v) * seriesDefs[i].scale : NAN;

		/* what the judgement leaves out: not measured, not after a drop, the warm-ups */
		if (isnan(y) || (seriesDefs[i].dropped_only && !dropped) ||
		    (seriesDefs[i].host && t < ss->t0 + HOST_WARMUP_S) || (!seriesDefs[i].host && k < GUEST_WARMUP))
			continue;
		seriesTake(&ss->fit[i], cycle, t / 3600, y);
	}
	if (slabinfo) {
		if (!ss->slab_first) {
			ss->slab_first = json_object_get(slabinfo);
			ss->slab_first_cycle = cycle;
		}
		json_object_put(ss->slab_last);
		ss->slab_last = json_object_get(slabinfo);
		ss->slab_last_cycle = cycle;
	}
}

enum { SLAB_ACTIVE, SLAB_NUM, SLAB_OBJSIZE, SLAB_BYTES, SLAB_FIELDS };

static gint64 slabField(json_object *row, size_t i)
{
	return row && json_object_is_type(row, json_type_array) && json_object_array_length(row) == SLAB_FIELDS ?
		json_object_get_int64(json_object_array_get_idx(row, i)) : 0;
}

static void jsonPut(gpointer o)
{
	json_object_put(o);
}

static int cmpGrowth(const void *a, const void *b)
{
	gint64 x = mhlJInt(*(json_object *const *)a, MHL_K_BYTES, 0), y = mhlJInt(*(json_object *const *)b, MHL_K_BYTES, 0);

	return x > y ? -1 : x < y;
}

json_object *mhlSoakSlabGrowth(json_object *first, json_object *last, size_t max)
{
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(jsonPut);
	json_object *out = json_object_new_array();
	size_t i;

	if (!first || !last)
		return out;
	json_object_object_foreach(last, name, row) {
		json_object *r0 = mhlJ(first, name), *o;
		gint64 dobj = slabField(row, SLAB_ACTIVE) - slabField(r0, SLAB_ACTIVE);
		gint64 dslab = slabField(row, SLAB_BYTES) - slabField(r0, SLAB_BYTES);

		if (dobj <= 0)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, MHL_K_NAME, json_object_new_string(name));
		json_object_object_add(o, MHL_K_OBJECTS, json_object_new_int64(dobj));
		json_object_object_add(o, MHL_K_BYTES, json_object_new_int64(dobj * slabField(row, SLAB_OBJSIZE)));
		json_object_object_add(o, MHL_K_SLAB_BYTES, json_object_new_int64(dslab));
		json_object_object_add(o, MHL_K_OBJSIZE, json_object_new_int64(slabField(row, SLAB_OBJSIZE)));
		json_object_object_add(o, MHL_K_OBJECTS_FIRST, json_object_new_int64(slabField(r0, SLAB_ACTIVE)));
		json_object_object_add(o, MHL_K_OBJECTS_LAST, json_object_new_int64(slabField(row, SLAB_ACTIVE)));
		g_ptr_array_add(rows, o);
	}
	g_ptr_array_sort(rows, cmpGrowth);
	for (i = 0; i < rows->len && i < max; i++)
		json_object_array_add(out, json_object_get(g_ptr_array_index(rows, i)));
	return out;
}

/* Series @i's fit against cycles (@fc) and against hours (@fh). -1: no fit. */
static int seriesFit(const mhlSoakSeriesFit *sf, mhlTrendFit *fc, mhlTrendFit *fh)
{
	const mhlSoakSenPoint *v;
	g_autofree double *x = NULL, *h = NULL, *y = NULL;
	guint k, n;

	if (!sf->sen)
		return mhlTrendSumsFit(&sf->cycles, fc) < 0 || mhlTrendSumsFit(&sf->hours, fh) < 0 ? -1 : 0;
	n = sf->sen->len;
	v = (const mhlSoakSenPoint *)(const void *)sf->sen->data;
	x = g_new(double, n ? n : 1);
	h = g_new(double, n ? n : 1);
	y = g_new(double, n ? n : 1);
	for (k = 0; k < n; k++) {
		x[k] = v[k].cycle;
		h[k] = v[k].hour;
		y[k] = v[k].y;
	}
	return mhlTrendTheilSen(x, y, n, fc) < 0 || mhlTrendTheilSen(h, y, n, fh) < 0 ? -1 : 0;
}

static json_object *fitJSON(const mhlTrendFit *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, MHL_K_SLOPE, json_object_new_double(f->slope));
	json_object_object_add(o, MHL_K_LO, json_object_new_double(f->lo));
	json_object_object_add(o, MHL_K_HI, json_object_new_double(f->hi));
	json_object_object_add(o, MHL_K_INTERCEPT, json_object_new_double(f->intercept));
	return o;
}

static uint64_t seriesBudget(const mhlScenario *s, size_t i)
{
	return s->soak_budget_set[i] ? s->soak_budget[i] : seriesDefs[i].budget;
}

/*
 * The most guest_bound series @i may reach without a leak: the guest's RAM
 * (boot memory and every virtio-mem device at its full size), plus QEMU's
 * own overhead for QEMU's whole RSS. Both grow as the guest touches its RAM
 * for the first time (after each plug, and as boot memory fills with caches
 * and slab): a 100-minute soak here went 326 -> 602 MiB of a 1408 MiB
 * guest, a significant slope that no 24 h budget tells from a leak.
 */
static double seriesCeiling(const mhlScenario *s, size_t i)
{
	return (double)(mhlScenarioGuestBytes(s, true) -
			(strcmp(seriesDefs[i].key, MHL_K_GUEST_RAM_BYTES) ? 0 : MHL_QEMU_OVERHEAD));
}

/* What series i's fits say at a judgement (mhlSoakSeriesJudge). */
typedef struct {
	mhlTrendFit fc, fh;	/* against cycles, against hours */
	double proj;		/* the harm over the next 24 h, bytes */
	double budget;
	bool sig;		/* significant against cycles and against hours */
	bool over;		/* over its budget (and beyond the guest's RAM, guest_bound) */
	bool flag;		/* a finding once judged */
	bool judged;		/* past soak.judge_after of this guest */
	bool raised;		/* judged, a finding, and not only shown: raised now */
} seriesJudgement;

/* Series @i's row of the trend table. */
static json_object *seriesRow(const mhlSoakSeriesFit *sf, size_t i, const mhlScenario *s,
			      const seriesJudgement *j)
{
	json_object *row = json_object_new_object();

	json_object_object_add(row, MHL_K_SERIES, json_object_new_string(mhlSoakSeriesNames[i]));
	json_object_object_add(row, MHL_K_POINTS, json_object_new_int((int)sf->n));
	json_object_object_add(row, MHL_K_BASIS, json_object_new_string(
		seriesDefs[i].dropped_only ? "after_drop_caches" : "every_checkpoint"));
	json_object_object_add(row, MHL_K_FIT, json_object_new_string(
		seriesDefs[i].robust ? "theil_sen" : "least_squares"));
	json_object_object_add(row, MHL_K_PER_CYCLE, fitJSON(&j->fc));
	json_object_object_add(row, MHL_K_PER_HOUR, fitJSON(&j->fh));
	json_object_object_add(row, MHL_K_PROJECTION_24H, json_object_new_double(j->fh.slope * 24));
	json_object_object_add(row, MHL_K_BUDGET_24H, json_object_new_int64((int64_t)j->budget));
	if (seriesDefs[i].guest_bound)
		json_object_object_add(row, MHL_K_CEILING, json_object_new_int64((int64_t)seriesCeiling(s, i)));
	json_object_object_add(row, MHL_K_SIGNIFICANT, json_object_new_boolean(j->sig));
	json_object_object_add(row, MHL_K_OVER_BUDGET, json_object_new_boolean(j->sig && j->over));
	json_object_object_add(row, MHL_K_FINDING, json_object_new_boolean(j->flag && !seriesDefs[i].shown));
	json_object_object_add(row, MHL_K_JUDGED, json_object_new_boolean(j->judged && !seriesDefs[i].shown));
	return row;
}

/* The slab caches grown since the first slabinfo, into @text; the table of them. */
static json_object *seriesCaches(const mhlSoakSeries *ss, GString *text)
{
	json_object *caches = mhlSoakSlabGrowth(ss->slab_first, ss->slab_last, MHL_SOAK_SLAB_ROWS);
	size_t k;

	g_string_append_printf(text, "; slab caches grown from cycle %d to %d: ", ss->slab_first_cycle,
			       ss->slab_last_cycle);
	for (k = 0; k < json_object_array_length(caches) && k < SLAB_IN_TEXT; k++) {
		json_object *c = json_object_array_get_idx(caches, k);

		g_string_append_printf(text, "%s%s +%" G_GINT64_FORMAT " objects +%" G_GINT64_FORMAT " bytes",
				       k ? ", " : "", mhlJStr(c, MHL_K_NAME, "?"), mhlJInt(c, MHL_K_OBJECTS, 0),
				       mhlJInt(c, MHL_K_BYTES, 0));
	}
	if (!json_object_array_length(caches))
		g_string_append(text, "none (no slabinfo yet, or no cache grew)");
	return caches;
}

/* Series @i's finding {t, cycle, kind: "trend", text, series[, caches]}. */
static json_object *seriesFinding(const mhlSoakSeries *ss, size_t i, const mhlScenario *s, int cycle,
				  double t, const seriesJudgement *j)
{
	const mhlSoakSeriesFit *sf = &ss->fit[i];
	int sign = seriesDefs[i].sign;
	g_autoptr(GString) text = g_string_new(NULL);
	json_object *f, *caches = NULL;

	g_string_printf(text, "%s %s %.0f bytes/cycle (95%% CI %.0f..%.0f), %.0f bytes/hour (95%% CI %.0f..%.0f): %.1f MiB in 24 h, %s its budget of %.1f MiB%s (%s fit of %zu points, cycles %.0f..%.0f)",
			seriesDefs[i].what, sign > 0 ? "grows" : "falls", j->fc.slope * sign,
			sign > 0 ? j->fc.lo : -j->fc.hi, sign > 0 ? j->fc.hi : -j->fc.lo, j->fh.slope * sign,
			sign > 0 ? j->fh.lo : -j->fh.hi, sign > 0 ? j->fh.hi : -j->fh.lo, j->proj / (1 << 20),
			j->over ? "over" : "within", j->budget / (1 << 20),
			j->over ? "" : ", a finding all the same: the orchestrator's own memory must not grow with the cycles",
			seriesDefs[i].robust ? "Theil-Sen" : "least-squares", sf->n, sf->first_cycle, (double)cycle);
	if (seriesDefs[i].guest_bound)
		g_string_append_printf(text, ", and beyond the guest's RAM (%.0f MiB) within 24 h",
				       seriesCeiling(s, i) / (1 << 20));
	if (seriesDefs[i].attribute)
		caches = seriesCaches(ss, text);
	f = json_object_new_object();
	json_object_object_add(f, MHL_K_T, json_object_new_double(t));
	json_object_object_add(f, MHL_K_CYCLE, json_object_new_int(cycle));
	json_object_object_add(f, MHL_K_KIND, json_object_new_string("trend"));
	json_object_object_add(f, MHL_K_TEXT, json_object_new_string(text->str));
	json_object_object_add(f, MHL_K_SERIES, json_object_new_string(mhlSoakSeriesNames[i]));
	if (caches)
		json_object_object_add(f, MHL_K_CACHES, caches);
	return f;
}

/* Fit series @i and say what the fits mean; -1: too few points, or no fit. */
static int seriesJudge(const mhlSoakSeries *ss, size_t i, const mhlScenario *s, double t, seriesJudgement *j)
{
	const mhlSoakSeriesFit *sf = &ss->fit[i];
	size_t min = seriesDefs[i].dropped_only ? MIN_POINTS_DROP : MIN_POINTS_ALL;
	int sign = seriesDefs[i].sign;

	if (sf->n < min || seriesFit(sf, &j->fc, &j->fh) < 0)
		return -1;
	j->budget = (double)seriesBudget(s, i);
	j->proj = j->fh.slope * 24 * sign;
	j->sig = mhlTrendSignificant(&j->fh, sign) && mhlTrendSignificant(&j->fc, sign);
	j->over = j->proj > j->budget;
	if (seriesDefs[i].guest_bound)	/* and beyond what the guest's RAM explains in 24 h */
		j->over = j->over && j->fh.intercept + j->fh.slope * (sf->last_hour + 24) > seriesCeiling(s, i);
	j->flag = j->sig && (j->over || seriesDefs[i].ours);
	/* no 24 h projection from the first minutes of a guest */
	j->judged = t - ss->t0 >= s->soak_judge_after;
	j->raised = j->judged && j->flag && !seriesDefs[i].shown;
	return 0;
}

/* Series @i's withdrawal {t, cycle, kind: "trend_withdrawn", text, series}: what the fits say now. */
static json_object *seriesWithdrawn(const mhlSoakSeries *ss, size_t i, int cycle, double t,
				    const seriesJudgement *j)
{
	const mhlSoakTrendEvent *e = NULL;
	json_object *f = json_object_new_object();
	int sign = seriesDefs[i].sign;
	g_autofree char *text = NULL;
	guint k;

	for (k = ss->events->len; k-- > 0 && !e;)
		if (g_array_index(ss->events, mhlSoakTrendEvent, k).series == i)
			e = &g_array_index(ss->events, mhlSoakTrendEvent, k);
	json_object_object_add(f, MHL_K_T, json_object_new_double(t));
	json_object_object_add(f, MHL_K_CYCLE, json_object_new_int(cycle));
	json_object_object_add(f, MHL_K_KIND, json_object_new_string("trend_withdrawn"));
	text = g_strdup_printf("%s: the finding raised at cycle %d is withdrawn: %.0f bytes/hour (95%% CI %.0f..%.0f), %.1f MiB in 24 h against its budget of %.1f MiB (%s)",
			       seriesDefs[i].what, e ? e->raised_cycle : -1, j->fh.slope * sign,
			       sign > 0 ? j->fh.lo : -j->fh.hi, sign > 0 ? j->fh.hi : -j->fh.lo, j->proj / (1 << 20),
			       j->budget / (1 << 20), !j->sig ? "its interval includes 0" : "its projection is within the budget");
	json_object_object_add(f, MHL_K_TEXT, json_object_new_string(text));
	json_object_object_add(f, MHL_K_SERIES, json_object_new_string(mhlSoakSeriesNames[i]));
	return f;
}

/* Series @i raised (@up) or withdrawn at @cycle, @t: the event log and the active bits. */
static void seriesMark(mhlSoakSeries *ss, size_t i, bool up, int cycle, double t)
{
	guint k;

	if (up) {
		mhlSoakTrendEvent e = { .series = i, .raised_cycle = cycle, .raised_t = t, .withdrawn_cycle = -1 };

		ss->active |= 1u << i;
		if (ss->events->len < MHL_SOAK_EVENTS_MAX)
			g_array_append_val(ss->events, e);
		else
			ss->events_lost++;
		return;
	}
	ss->active &= ~(1u << i);
	for (k = ss->events->len; k-- > 0;) {
		mhlSoakTrendEvent *e = &g_array_index(ss->events, mhlSoakTrendEvent, k);

		if (e->series == i) {
			if (e->withdrawn_cycle < 0) {
				e->withdrawn_cycle = cycle;
				e->withdrawn_t = t;
			}
			return;
		}
	}
}

int mhlSoakSeriesJudge(mhlSoakSeries *ss, const mhlScenario *s, int cycle, double t,
		       json_object *findings, json_object *table, bool final)
{
	size_t i;
	int raised = 0;

	for (i = 0; i < G_N_ELEMENTS(seriesDefs); i++) {
		bool was = ss->active & (1u << i);
		seriesJudgement j;

		if (seriesJudge(ss, i, s, t, &j) < 0)
			continue;
		if (table)
			json_object_array_add(table, seriesRow(&ss->fit[i], i, s, &j));
		if (j.raised != was)
			seriesMark(ss, i, j.raised, cycle, t);
		if (!j.raised && was)
			json_object_array_add(findings, seriesWithdrawn(ss, i, cycle, t, &j));
		if (j.raised && (!was || final))
			json_object_array_add(findings, seriesFinding(ss, i, s, cycle, t, &j));
		raised += j.raised;
	}
	return raised;
}

json_object *mhlSoakSeriesEvents(const mhlSoakSeries *ss)
{
	json_object *out = json_object_new_array();
	guint k;

	for (k = 0; k < ss->events->len; k++) {
		const mhlSoakTrendEvent *e = &g_array_index(ss->events, mhlSoakTrendEvent, k);
		json_object *o = json_object_new_object();

		json_object_object_add(o, MHL_K_SERIES, json_object_new_string(mhlSoakSeriesNames[e->series]));
		json_object_object_add(o, MHL_K_RAISED_CYCLE, json_object_new_int(e->raised_cycle));
		json_object_object_add(o, MHL_K_RAISED_T, json_object_new_double(e->raised_t));
		if (e->withdrawn_cycle >= 0) {
			json_object_object_add(o, MHL_K_WITHDRAWN_CYCLE, json_object_new_int(e->withdrawn_cycle));
			json_object_object_add(o, MHL_K_WITHDRAWN_T, json_object_new_double(e->withdrawn_t));
		}
		json_object_array_add(out, o);
	}
	return out;
}

bool mhlSoakFindingCounts(json_object *f)
{
	const char *kind = mhlJStr(f, MHL_K_KIND, "");

	return strcmp(kind, "trend") && strcmp(kind, "trend_withdrawn");
}
