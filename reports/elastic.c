/*
 * elastic.c - the other paths (issue 35: dimm, vmem, balloon, hugepages) as
 * every report shows them, read from each step's MHL_K_ELASTIC object
 * (record.h, "the other paths") and its host side (steps[].host, as a
 * resize's); and the elasticity comparison of a run whose trials have a
 * `mechanism` axis.
 *
 * One table, elMechs[], says per mechanism which of its own figures are
 * printed; a mechanism with no row still shows what every such step has
 * (asked, the guest's MemTotal before and after, the host's bytes back).
 * Everything read here is record text: the callers escape it for their
 * format; here it is only made one line (figure.h).
 */
#include <glib.h>

#include <string.h>

#include "reports/figure.h"
#include "reports/plot.h"
#include "reports/report.h"
#include "util.h"

#define EL_FIGURES_MAX 8
#define EL_BLOCKS_MAX 8		/* memory blocks of a DIMM named in a figures line */

typedef struct {
	const char *mechanism;	/* MHL_K_MECHANISM's value */
	mhlFigure figures[EL_FIGURES_MAX];	/* its own, ends at the first without a path */
} elMech;

static const elMech elMechs[] = {
	{ "dimm", {
		{ MHL_K_REMOVED, "removed", MHL_FIG_YESNO, NULL },
		{ MHL_K_ALIAS, "alias", MHL_FIG_TEXT, NULL },
		{ MHL_K_SLOT, "slot", MHL_FIG_COUNT, NULL } } },
	{ "balloon", {
		{ MHL_K_ACTUAL_BEFORE_BYTES, "balloon actual before", MHL_FIG_MIB, NULL },
		{ MHL_K_ACTUAL_AFTER_BYTES, "after", MHL_FIG_MIB, NULL },
		{ MHL_K_FREE_PAGE_REPORTING, "free page reporting", MHL_FIG_YESNO, NULL } } },
	{ "hugetlb", {
		{ MHL_K_PAGE_BYTES, "page", MHL_FIG_MIB, NULL },
		{ MHL_K_REQUESTED_PAGES, "pages asked", MHL_FIG_COUNT, NULL },
		{ MHL_K_ALLOCATED_PAGES, "allocated", MHL_FIG_COUNT, NULL },
		{ MHL_PATH(MHL_K_COMPACTION, MHL_K_COMPACT_STALL), "compact stall", MHL_FIG_COUNT, NULL },
		{ MHL_PATH(MHL_K_COMPACTION, MHL_K_COMPACT_FAIL), "compact fail", MHL_FIG_COUNT, NULL },
		{ MHL_PATH(MHL_K_COMPACTION, MHL_K_COMPACT_SUCCESS), "compact success", MHL_FIG_COUNT, NULL } } },
};

/* What every such step has, copied into KCIDB's misc as they are. */
static const mhlFigure elCommon[] = {
	{ MHL_K_MECHANISM, NULL, MHL_FIG_TEXT, NULL },
	{ MHL_K_ACTION, NULL, MHL_FIG_TEXT, NULL },
	{ MHL_K_OK, NULL, MHL_FIG_YESNO, NULL },
	{ MHL_K_SECONDS, NULL, MHL_FIG_S, NULL },
	{ MHL_K_REFUSED, NULL, MHL_FIG_TEXT, NULL },
	{ MHL_K_REQUESTED_BYTES, NULL, MHL_FIG_MIB, NULL },
	{ MHL_K_MEMTOTAL_BEFORE_BYTES, NULL, MHL_FIG_MIB, NULL },
	{ MHL_K_MEMTOTAL_AFTER_BYTES, NULL, MHL_FIG_MIB, NULL },
};

json_object *mhlStepElastic(json_object *step)
{
	json_object *el = mhlJObj(step, MHL_K_ELASTIC);

	return el && mhlJStr(el, MHL_K_MECHANISM, NULL) ? el : NULL;
}

bool mhlTrialHasElastic(json_object *rec)
{
	size_t i;

	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++)
		if (mhlStepElastic(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i)))
			return true;
	return false;
}

bool mhlRunHasElastic(const mhlRun *run)
{
	guint i;

	for (i = 0; i < run->trials->len; i++)
		if (mhlTrialHasElastic(run->trials->pdata[i]))
			return true;
	return false;
}

static const elMech *elMechOf(json_object *el)
{
	const char *m = mhlJStr(el, MHL_K_MECHANISM, "");
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(elMechs); i++)
		if (!strcmp(elMechs[i].mechanism, m))
			return &elMechs[i];
	return NULL;
}

/* An integer (or a number read as one) at @key of @o into *@v; false when it has none. */
static bool elInt(json_object *o, const char *key, gint64 *v)
{
	json_object *x = mhlJ(o, key);

	if (!x || !(json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double)))
		return false;
	*v = json_object_get_int64(x);
	return true;
}

/* "+512" / "-512" / "0" MiB of @bytes, one decimal below 10 MiB when not whole. */
static void elSignedMiB(GString *out, gint64 bytes)
{
	if (bytes > 0)
		g_string_append_c(out, '+');
	mhlFigMiB(out, bytes);
}

char *mhlElasticOutcome(json_object *step, bool ascii)
{
	json_object *el = mhlStepElastic(step);
	const char *refused = mhlJStr(el, MHL_K_REFUSED, NULL);
	g_autofree char *why = NULL;

	if (mhlJBool(el, MHL_K_OK, false))
		return g_strdup(ascii ? "ok" : "✓");
	why = mhlFigOneLine(refused ? refused : mhlJStr(step, MHL_K_ERROR, NULL), 120);
	return g_strdup_printf("%s%s%s%s", ascii ? "FAILED" : "✗", refused ? " refused" : "", *why ? ": " : "", why);
}

/* The guest-visible change, MemTotal after - before, "+512 MiB"; false without both. */
static bool elGuest(GString *out, json_object *el)
{
	gint64 b, a;

	if (!elInt(el, MHL_K_MEMTOTAL_BEFORE_BYTES, &b) || !elInt(el, MHL_K_MEMTOTAL_AFTER_BYTES, &a))
		return false;
	elSignedMiB(out, a - b);
	g_string_append(out, " MiB");
	return true;
}

char *mhlElasticHostBack(json_object *step)
{
	json_object *el = mhlStepElastic(step), *h = mhlJObj(step, MHL_K_HOST);
	g_autoptr(GString) out = g_string_new(NULL);
	gint64 back, asked;

	if (!h || !elInt(h, MHL_K_RECLAIMED_BYTES, &back))
		return NULL;
	mhlFigMiB(out, back);
	g_string_append(out, " MiB");
	if (elInt(el, MHL_K_REQUESTED_BYTES, &asked) && asked < 0)
		g_string_append_printf(out, " (%.0f %% of asked)", 100.0 * (double)back / (double)-asked);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

char *mhlElasticBrief(json_object *step, bool ascii)
{
	json_object *el = mhlStepElastic(step);
	g_autofree char *m = NULL, *a = NULL, *back = NULL, *why = NULL;
	g_autoptr(GString) out = g_string_new(NULL), fig = g_string_new(NULL);
	double secs = mhlJDbl(el, MHL_K_SECONDS, -1);
	bool ok = mhlJBool(el, MHL_K_OK, false);
	gint64 req, got;

	if (!el)
		return NULL;
	m = mhlFigOneLine(mhlJStr(el, MHL_K_MECHANISM, ""), 24);
	a = mhlFigOneLine(mhlJStr(el, MHL_K_ACTION, ""), 24);
	g_string_append_printf(out, "%s%s%s ", m, *a ? " " : "", a);
	if (mhlJStr(el, MHL_K_REFUSED, NULL)) {	/* a refusal's message is the outcome */
		why = mhlElasticOutcome(step, ascii);
		g_string_append(out, why);
		return g_string_free(g_steal_pointer(&out), FALSE);
	}
	g_string_append(out, ok ? (ascii ? "ok" : "✓") : (ascii ? "FAILED" : "✗"));
	if (secs >= 0)
		g_string_append_printf(out, " %.1f s", secs);
	/* the headline: hugepages allocated of asked; else the guest's change and the host's bytes back */
	if (elInt(el, MHL_K_ALLOCATED_PAGES, &got) && elInt(el, MHL_K_REQUESTED_PAGES, &req)) {
		g_string_append_printf(fig, "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " pages", got, req);
	} else {
		if (elGuest(fig, el))
			g_string_prepend(fig, "guest ");
		back = mhlElasticHostBack(step);
		if (back)
			g_string_append_printf(fig, "%shost back %s", fig->len ? ", " : "", back);
	}
	if (fig->len)
		g_string_append_printf(out, " (%s)", fig->str);
	why = ok ? NULL : mhlFigOneLine(mhlJStr(step, MHL_K_ERROR, NULL), 120);
	if (why && *why)
		g_string_append_printf(out, ": %s", why);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

char *mhlTrialElastic(json_object *rec, bool ascii)
{
	g_autoptr(GString) out = g_string_new(NULL);
	size_t i;

	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++) {
		g_autofree char *b = mhlElasticBrief(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i), ascii);

		if (b)
			g_string_append_printf(out, "%s%s", out->len ? ", " : "", b);
	}
	return out->len ? g_string_free(g_steal_pointer(&out), FALSE) : NULL;
}

/*
 * ", blocks memory32 online [Movable], ..." of the blocks over a DIMM that
 * stayed (range_blocks): the first EL_BLOCKS_MAX, then how many more.
 */
static void elBlocks(GString *out, json_object *el)
{
	json_object *a = mhlJArr(el, MHL_K_RANGE_BLOCKS);
	size_t i, n = a ? json_object_array_length(a) : 0;

	if (!n)
		return;
	g_string_append_printf(out, "%sblocks", out->len ? ", " : "");
	for (i = 0; i < n && i < EL_BLOCKS_MAX; i++) {
		json_object *b = json_object_array_get_idx(a, i);
		json_object *nr = mhlJ(b, MHL_K_BLOCK);
		bool number = json_object_is_type(nr, json_type_int) || json_object_is_type(nr, json_type_string);
		g_autofree char *name = mhlFigOneLine(number ? json_object_get_string(nr) : "?", 24);
		g_autofree char *state = mhlFigOneLine(mhlJStr(b, MHL_K_STATE, "?"), 24);
		g_autofree char *zones = mhlFigOneLine(mhlJStr(b, MHL_K_VALID_ZONES, NULL), 40);

		g_string_append_printf(out, "%s memory%s %s", i ? "," : "", name, state);
		if (*zones)
			g_string_append_printf(out, " [%s]", zones);
	}
	if (n > EL_BLOCKS_MAX)
		g_string_append_printf(out, " and %zu more", n - EL_BLOCKS_MAX);
}

char *mhlElasticFigures(json_object *step, bool ascii)
{
	json_object *el = mhlStepElastic(step);
	const elMech *m = el ? elMechOf(el) : NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree char *back = NULL;
	gint64 req, b, a;

	if (!el)
		return NULL;
	if (elInt(el, MHL_K_REQUESTED_BYTES, &req)) {
		g_string_append(out, "asked ");
		elSignedMiB(out, req);
		g_string_append(out, " MiB");
	}
	if (elInt(el, MHL_K_MEMTOTAL_BEFORE_BYTES, &b) && elInt(el, MHL_K_MEMTOTAL_AFTER_BYTES, &a)) {
		g_string_append_printf(out, "%sMemTotal ", out->len ? ", " : "");
		mhlFigMiB(out, b);
		g_string_append(out, ascii ? " -> " : " → ");
		mhlFigMiB(out, a);
		g_string_append(out, " MiB (");
		elSignedMiB(out, a - b);
		g_string_append(out, ")");
	}
	back = mhlElasticHostBack(step);
	if (back)
		g_string_append_printf(out, "%shost back %s", out->len ? ", " : "", back);
	if (m)
		mhlFigAppend(out, el, m->figures, EL_FIGURES_MAX);
	elBlocks(out, el);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

json_object *mhlElasticMisc(json_object *step)
{
	json_object *el = mhlStepElastic(step), *m;
	const elMech *k = el ? elMechOf(el) : NULL;
	gint64 back;
	size_t i;

	if (!el)
		return NULL;
	m = json_object_new_object();
	for (i = 0; i < G_N_ELEMENTS(elCommon); i++)
		mhlFigCopy(m, el, elCommon[i].path, elCommon[i].unit);
	for (i = 0; k && i < EL_FIGURES_MAX && k->figures[i].path; i++)
		mhlFigCopy(m, el, k->figures[i].path, k->figures[i].unit);
	if (json_object_is_type(mhlJ(el, MHL_K_RANGE_BLOCKS), json_type_array))
		json_object_object_add(m, MHL_K_RANGE_BLOCKS, json_object_get(mhlJ(el, MHL_K_RANGE_BLOCKS)));
	/* the host's side in one number: what came back (res.host, as a resize's) */
	if (elInt(mhlJObj(step, MHL_K_HOST), MHL_K_RECLAIMED_BYTES, &back))
		json_object_object_add(m, MHL_K_HOST_RECLAIMED_BYTES, json_object_new_int64(back));
	return m;
}

bool mhlElasticNumber(json_object *step, double *v, const char **unit)
{
	json_object *el = mhlStepElastic(step);
	gint64 b, a;

	if (elInt(el, MHL_K_ALLOCATED_PAGES, &a)) {
		*unit = "pages";
		*v = (double)a;
		return true;
	}
	if (!elInt(el, MHL_K_MEMTOTAL_BEFORE_BYTES, &b) || !elInt(el, MHL_K_MEMTOTAL_AFTER_BYTES, &a))
		return false;
	*unit = "MiB";
	*v = (double)(a - b) / 1048576.0;
	return true;
}

void mhlElasticGnuplot(GString *sc, json_object *rec, double tend)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i), *el = mhlStepElastic(s);
		double t = mhlJDbl(s, MHL_K_T, -1), secs = mhlJDbl(s, MHL_K_SECONDS, 0);
		bool ok = mhlJBool(el, MHL_K_OK, false);
		g_autofree char *m = NULL, *a = NULL, *lab = NULL;

		if (!el || t < 0)
			continue;
		m = mhlFigOneLine(mhlJStr(el, MHL_K_MECHANISM, ""), 24);
		a = mhlFigOneLine(mhlJStr(el, MHL_K_ACTION, ""), 24);
		lab = g_strdup_printf("%s %s %s", m, a, ok ? "✓" : mhlJStr(el, MHL_K_REFUSED, NULL) ? "✗ refused" : "✗");
		mhlPlotBand(sc, t, secs, tend, ok, lab);
	}
}
