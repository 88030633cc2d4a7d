/*
 * lifecycle.c - the lifecycle steps (issue 34: save, managedsave, suspend,
 * reboot, migrate, daemon-restart) as every report shows them, read from each step's
 * MHL_K_LIFECYCLE object (record.h, docs/lifecycle.md).
 *
 * One table, lcEvents[], says per event which of its figures are printed and
 * how; a kind added later is a row there. An event with no row still shows
 * its outcome, seconds and the figures every lifecycle step has.
 * Everything read here is record text: the callers escape it for their
 * format (HTML, XML, gnuplot); here it is only made one line.
 */
#include <glib.h>

#include <string.h>

#include "reports/figure.h"
#include "reports/plot.h"
#include "reports/report.h"
#include "util.h"

#define LC_FIGURES_MAX 12

typedef struct {
	const char *event;	/* MHL_K_EVENT's value: the step's kind */
	int brief;		/* the index in figures of the one the one-line form shows, -1: none */
	const char *brief_pre, *brief_post;	/* around its value there: "from the" host, 41 MiB "moved"; NULL: none */
	mhlFigure figures[LC_FIGURES_MAX];	/* ends at the first without a path */
} lcEvent;

/* The figures every lifecycle step has, before the kind's own. */
static const mhlFigure lcCommon[] = {
	{ MHL_K_DOWN_S, "down", MHL_FIG_S, NULL },
	{ MHL_K_AGENT_S, "agent back after", MHL_FIG_S, NULL },
};

#define LC_SAVE_FIGURES { \
	{ MHL_K_IMAGE_BYTES, "image", MHL_FIG_MIB, NULL }, \
	{ MHL_K_SAVE_S, "save", MHL_FIG_S, NULL }, \
	{ MHL_K_RESTORE_S, "restore", MHL_FIG_S, NULL } }

static const lcEvent lcEvents[] = {
	{ "save", 0, NULL, "image", LC_SAVE_FIGURES },
	{ "managedsave", 0, NULL, "image", LC_SAVE_FIGURES },
	{ "reboot", 0, "from the", NULL, {
		{ MHL_K_HOW, "from the", MHL_FIG_TEXT, NULL },
		{ MHL_K_REPLUG_S, "plugged back in", MHL_FIG_S, NULL } } },
	{ "suspend", 1, "resize while paused accepted:", NULL, {
		{ MHL_PATH(MHL_K_RESIZE_WHILE_PAUSED, MHL_K_REQUESTED_BYTES), "resize while paused to", MHL_FIG_MIB, NULL },
		{ MHL_PATH(MHL_K_RESIZE_WHILE_PAUSED, MHL_K_ACCEPTED), "accepted", MHL_FIG_YESNO, NULL },
		{ MHL_PATH(MHL_K_RESIZE_WHILE_PAUSED, MHL_K_REFUSED), "refused", MHL_FIG_TEXT, NULL } } },
	/*
	 * walked: every page QEMU sent, as data or as a zero-page marker, against
	 * boot memory + plugged (what it should be: only plugged blocks go);
	 * sent: the bytes on the wire, the non-zero pages.
	 */
	{ "migrate", 1, NULL, "walked", {
		{ MHL_K_TO, "to", MHL_FIG_TEXT, NULL },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_MIGRATED_BYTES), "walked", MHL_FIG_MIB, MHL_K_EXPECTED_TRANSFER_BYTES },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_DATA_TRANSFERRED_BYTES), "sent", MHL_FIG_MIB, NULL },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_MEMORY_TRANSFERRED_BYTES), "memory moved", MHL_FIG_MIB,
		  MHL_PATH(MHL_K_MIGRATION, MHL_K_MEMORY_TOTAL_BYTES) },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_DOWNTIME_MS), "downtime", MHL_FIG_MS, NULL },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_TIME_ELAPSED_MS), "elapsed", MHL_FIG_MS, NULL },
		{ MHL_PATH(MHL_K_MIGRATION, MHL_K_MEMORY_ITERATIONS), "iterations", MHL_FIG_COUNT, NULL },
		{ MHL_PATH(MHL_K_RESIZE_DURING, MHL_K_REQUESTED_BYTES), "resize during it to", MHL_FIG_MIB, NULL },
		{ MHL_PATH(MHL_K_RESIZE_DURING, MHL_K_ACCEPTED), "accepted", MHL_FIG_YESNO, NULL },
		{ MHL_PATH(MHL_K_RESIZE_DURING, MHL_K_REFUSED), "refused", MHL_FIG_TEXT, NULL } } },
	{ "daemon-restart", 0, NULL, "size-change events after", {
		{ MHL_K_SIZE_EVENTS_AFTER, "size-change events after", MHL_FIG_COUNT, NULL },
		{ MHL_K_RESTART_S, "restart command", MHL_FIG_S, NULL },
		{ MHL_K_RESTART_EXIT, "its exit status", MHL_FIG_COUNT, NULL },
		{ MHL_K_RECONNECT_TRIES, "reconnect tries", MHL_FIG_COUNT, NULL } } },
};

json_object *mhlStepLifecycle(json_object *step)
{
	json_object *lc = mhlJObj(step, MHL_K_LIFECYCLE);

	return lc && mhlJStr(lc, MHL_K_EVENT, NULL) ? lc : NULL;
}

bool mhlTrialHasLifecycle(json_object *rec)
{
	size_t i;

	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++)
		if (mhlStepLifecycle(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i)))
			return true;
	return false;
}

bool mhlRunHasLifecycle(const mhlRun *run)
{
	guint i;

	for (i = 0; i < run->trials->len; i++)
		if (mhlTrialHasLifecycle(run->trials->pdata[i]))
			return true;
	return false;
}

static const lcEvent *lcEventOf(json_object *lc)
{
	const char *ev = mhlJStr(lc, MHL_K_EVENT, "");
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(lcEvents); i++)
		if (!strcmp(lcEvents[i].event, ev))
			return &lcEvents[i];
	return NULL;
}

/* Record text on one line: control characters (a refusal's line ends) as spaces, at most @max characters. */
char *mhlFigOneLine(const char *s, glong max)
{
	g_autofree char *r = g_strdup(s ? s : "");
	char *p;

	for (p = r; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	g_strstrip(r);
	if (max > 0 && g_utf8_validate(r, -1, NULL) && g_utf8_strlen(r, -1) > max) {
		g_autofree char *cut = g_utf8_substring(r, 0, max - 1);

		return g_strdup_printf("%s…", cut);
	}
	return g_steal_pointer(&r);
}

void mhlFigMiB(GString *out, gint64 bytes)
{
	double m = bytes / 1048576.0;

	g_string_append_printf(out, m < 10 && bytes % 1048576 ? "%.1f" : "%.0f", m);
}

/* Figure @f of @lc into @out (its value and unit, no label); false when the record has none. */
bool mhlFigValue(GString *out, json_object *lc, const mhlFigure *f)
{
	json_object *v = mhlJ(lc, f->path);
	g_autofree char *text = NULL;
	gint64 of;

	if (!v)
		return false;
	switch (f->unit) {
	case MHL_FIG_TEXT:
		if (!json_object_is_type(v, json_type_string))
			return false;
		text = mhlFigOneLine(json_object_get_string(v), 80);
		g_string_append(out, text);
		return true;
	case MHL_FIG_YESNO:
		if (!json_object_is_type(v, json_type_boolean))
			return false;
		g_string_append(out, json_object_get_boolean(v) ? "yes" : "no");
		return true;
	default:
		if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
			return false;
	}
	if (f->unit == MHL_FIG_S)
		g_string_append_printf(out, "%.2f s", json_object_get_double(v));
	else if (f->unit == MHL_FIG_MS)
		g_string_append_printf(out, "%.0f ms", json_object_get_double(v));
	else if (f->unit == MHL_FIG_COUNT)
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_object_get_int64(v));
	else {
		mhlFigMiB(out, json_object_get_int64(v));
		of = f->of ? mhlJInt(lc, f->of, -1) : -1;
		if (of > 0) {
			g_string_append(out, " of ");
			mhlFigMiB(out, of);
			g_string_append_printf(out, " MiB (%.1f %%)", 100.0 * json_object_get_double(v) / (double)of);
		} else {
			g_string_append(out, " MiB");
		}
	}
	return true;
}

/* The MiB of every virtio-mem device in plugged_before or plugged_after; -1 without. */
static gint64 lcPlugged(json_object *lc, const char *key)
{
	json_object *a = mhlJArr(lc, key);
	gint64 sum = 0;
	size_t i;

	if (!a)
		return -1;
	for (i = 0; i < json_object_array_length(a); i++)
		sum += MAX(mhlJInt(json_object_array_get_idx(a, i), MHL_K_SIZE_BYTES, 0), 0);
	return sum;
}

char *mhlLifecycleOutcome(json_object *step, bool ascii)
{
	json_object *lc = mhlStepLifecycle(step);
	bool ok = mhlJBool(lc, MHL_K_OK, false);
	const char *refused = mhlJStr(lc, MHL_K_REFUSED, NULL);
	g_autofree char *why = NULL;

	if (ok)
		return g_strdup(ascii ? "ok" : "✓");
	why = mhlFigOneLine(refused ? refused : mhlJStr(step, MHL_K_ERROR, NULL), 120);
	return g_strdup_printf("%s%s%s%s", ascii ? "FAILED" : "✗", refused ? " refused" : "", *why ? ": " : "", why);
}

char *mhlLifecycleBrief(json_object *step, bool ascii)
{
	json_object *lc = mhlStepLifecycle(step);
	const lcEvent *e = lc ? lcEventOf(lc) : NULL;
	g_autofree char *outcome = NULL, *ev = NULL;
	g_autoptr(GString) out = g_string_new(NULL), fig = g_string_new(NULL);
	double secs = mhlJDbl(lc, MHL_K_SECONDS, mhlJDbl(step, MHL_K_SECONDS, -1));

	if (!lc)
		return NULL;
	ev = mhlFigOneLine(mhlJStr(lc, MHL_K_EVENT, ""), 24);
	outcome = mhlLifecycleOutcome(step, ascii);
	g_string_append_printf(out, "%s %s", ev, outcome);
	/* a refusal's message is the outcome; a step that ran, its time and its headline figure */
	if (mhlJBool(lc, MHL_K_OK, false) && secs >= 0)
		g_string_append_printf(out, " %.1f s", secs);
	if (mhlJBool(lc, MHL_K_OK, false) && e && e->brief >= 0 && mhlFigValue(fig, lc, &e->figures[e->brief]))
		g_string_append_printf(out, " (%s%s%s%s%s)", e->brief_pre ? e->brief_pre : "", e->brief_pre ? " " : "",
				       fig->str, e->brief_post ? " " : "", e->brief_post ? e->brief_post : "");
	return g_string_free(g_steal_pointer(&out), FALSE);
}

char *mhlTrialLifecycle(json_object *rec, bool ascii)
{
	g_autoptr(GString) out = g_string_new(NULL);
	size_t i;

	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++) {
		g_autofree char *b = mhlLifecycleBrief(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i), ascii);

		if (b)
			g_string_append_printf(out, "%s%s", out->len ? ", " : "", b);
	}
	return out->len ? g_string_free(g_steal_pointer(&out), FALSE) : NULL;
}

/* ", LABEL VALUE" of each figure in @figs that @lc has. */
void mhlFigAppend(GString *out, json_object *lc, const mhlFigure *figs, size_t n)
{
	size_t i;

	for (i = 0; i < n && figs[i].path; i++) {
		gsize len = out->len;

		g_string_append_printf(out, "%s%s ", out->len ? ", " : "", figs[i].label);
		if (!mhlFigValue(out, lc, &figs[i]))
			g_string_truncate(out, len);
	}
}

char *mhlLifecycleFigures(json_object *step, bool ascii)
{
	json_object *lc = mhlStepLifecycle(step);
	const lcEvent *e = lc ? lcEventOf(lc) : NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	gint64 before = lcPlugged(lc, MHL_K_PLUGGED_BEFORE), after = lcPlugged(lc, MHL_K_PLUGGED_AFTER);

	if (!lc)
		return NULL;
	mhlFigAppend(out, lc, lcCommon, G_N_ELEMENTS(lcCommon));
	if (before >= 0 || after >= 0) {
		g_string_append_printf(out, "%splugged ", out->len ? ", " : "");
		if (before >= 0)
			mhlFigMiB(out, before);
		else
			g_string_append(out, "?");
		g_string_append(out, ascii ? " -> " : " → ");
		if (after >= 0)
			mhlFigMiB(out, after);
		else
			g_string_append(out, "?");
		g_string_append(out, " MiB");
	}
	if (e)
		mhlFigAppend(out, lc, e->figures, LC_FIGURES_MAX);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* @v at dotted @path in @dst, its objects made on the way. */
static void figSetPath(json_object *dst, const char *path, json_object *v)
{
	g_auto(GStrv) keys = g_strsplit(path, ".", -1);
	size_t i;

	for (i = 0; keys[i + 1]; i++) {
		json_object *next = mhlJObj(dst, keys[i]);

		if (!next) {
			next = json_object_new_object();
			json_object_object_add(dst, keys[i], next);
		}
		dst = next;
	}
	json_object_object_add(dst, keys[i], v);
}

/* Figure @path of @lc copied into @dst when it is of @unit's JSON type. */
void mhlFigCopy(json_object *dst, json_object *lc, const char *path, mhlFigUnit unit)
{
	json_object *v = mhlJ(lc, path);
	bool fits = v && (unit == MHL_FIG_TEXT ? json_object_is_type(v, json_type_string) :
			  unit == MHL_FIG_YESNO ? json_object_is_type(v, json_type_boolean) :
			  json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));

	if (fits)
		figSetPath(dst, path, json_object_get(v));
}

json_object *mhlLifecycleMisc(json_object *step)
{
	json_object *lc = mhlStepLifecycle(step), *m;
	const lcEvent *e = lc ? lcEventOf(lc) : NULL;
	gint64 before = lcPlugged(lc, MHL_K_PLUGGED_BEFORE), after = lcPlugged(lc, MHL_K_PLUGGED_AFTER);
	size_t i;

	if (!lc)
		return NULL;
	m = json_object_new_object();
	mhlFigCopy(m, lc, MHL_K_EVENT, MHL_FIG_TEXT);
	mhlFigCopy(m, lc, MHL_K_OK, MHL_FIG_YESNO);
	mhlFigCopy(m, lc, MHL_K_SECONDS, MHL_FIG_S);
	mhlFigCopy(m, lc, MHL_K_REFUSED, MHL_FIG_TEXT);
	for (i = 0; i < G_N_ELEMENTS(lcCommon); i++)
		mhlFigCopy(m, lc, lcCommon[i].path, lcCommon[i].unit);
	/* the devices summed: KCIDB's readers want one number each side */
	if (before >= 0)
		json_object_object_add(m, "plugged_before_bytes", json_object_new_int64(before));
	if (after >= 0)
		json_object_object_add(m, "plugged_after_bytes", json_object_new_int64(after));
	for (i = 0; e && i < LC_FIGURES_MAX && e->figures[i].path; i++) {
		mhlFigCopy(m, lc, e->figures[i].path, e->figures[i].unit);
		if (e->figures[i].of)
			mhlFigCopy(m, lc, e->figures[i].of, MHL_FIG_MIB);
	}
	return m;
}

void mhlLifecycleGnuplot(GString *sc, json_object *rec, double tend)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i), *lc = mhlStepLifecycle(s);
		double t = mhlJDbl(s, MHL_K_T, -1), secs = mhlJDbl(s, MHL_K_SECONDS, 0);
		bool ok = mhlJBool(lc, MHL_K_OK, false);
		g_autofree char *ev = NULL, *lab = NULL;

		if (!lc || t < 0)
			continue;
		ev = mhlFigOneLine(mhlJStr(lc, MHL_K_EVENT, ""), 24);
		lab = g_strdup_printf("%s %s", ev, ok ? "✓" : mhlJStr(lc, MHL_K_REFUSED, NULL) ? "✗ refused" : "✗");
		mhlPlotBand(sc, t, secs, tend, ok, lab);
	}
}

double mhlLifecycleNumber(json_object *step, const char **unit)
{
	json_object *lc = mhlStepLifecycle(step), *v;
	const lcEvent *e = lc ? lcEventOf(lc) : NULL;
	const mhlFigure *f;

	if (!e || e->brief < 0)
		return -1;
	f = &e->figures[e->brief];
	v = mhlJ(lc, f->path);
	if (!v || (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)))
		return -1;
	switch (f->unit) {
	case MHL_FIG_MIB:
		*unit = "MiB";
		return json_object_get_double(v) / 1048576.0;
	case MHL_FIG_S:
		*unit = "s";
		return json_object_get_double(v);
	case MHL_FIG_MS:
		*unit = "ms";
		return json_object_get_double(v);
	default:
		return -1;
	}
}
