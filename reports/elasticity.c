/*
 * elasticity.c - the elasticity comparison of index.html (issue 35, item 4;
 * docs/reports.md): for a run whose trials have a `mechanism` parameter
 * (scenarios/compare/elasticity.yaml: virtio-mem, balloon, dimm × pinned),
 * what each mechanism gave back to the host of what it was asked, in how
 * long, and what the guest saw of it.
 *
 * A trial's steps that gave memory back are its elastic steps that asked
 * for less (requested_bytes < 0) and its resizes that unplugged (host's
 * unplugged_bytes > 0: virtio-mem's own path); their figures are summed.
 * Every value is record text or a number read from it: escaped here.
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"
#include "util.h"

typedef struct {
	int n;			/* the steps that gave memory back */
	gint64 asked;		/* bytes they asked back */
	gint64 back;		/* bytes the host got back (their host.reclaimed_bytes), -1: none measured */
	gint64 guest;		/* the guest-visible change (MemTotal after - before; a resize: - unplugged) */
	bool guest_known;
	double secs;		/* their seconds (an elastic step's; a resize's to converge) */
} elGive;

/* An integer (or a number read as one) at @key of @o into *@v; false when it has none. */
static bool giveInt(json_object *o, const char *key, gint64 *v)
{
	json_object *x = mhlJ(o, key);

	if (!x || !(json_object_is_type(x, json_type_int) || json_object_is_type(x, json_type_double)))
		return false;
	*v = json_object_get_int64(x);
	return true;
}

static void giveHost(elGive *g, json_object *step)
{
	gint64 b;

	if (giveInt(mhlJObj(step, MHL_K_HOST), MHL_K_RECLAIMED_BYTES, &b))
		g->back = MAX(g->back, 0) + b;
}

/* An elastic step that asked the guest for less. */
static void giveElastic(elGive *g, json_object *step, json_object *el)
{
	gint64 req, b, a;

	if (!giveInt(el, MHL_K_REQUESTED_BYTES, &req) || req >= 0)
		return;
	g->n++;
	g->asked += -req;
	giveHost(g, step);
	g->secs += MAX(0, mhlJDbl(el, MHL_K_SECONDS, 0));
	if (giveInt(el, MHL_K_MEMTOTAL_BEFORE_BYTES, &b) && giveInt(el, MHL_K_MEMTOTAL_AFTER_BYTES, &a)) {
		g->guest += a - b;
		g->guest_known = true;
	}
}

/* A resize that unplugged: asked its plugged size before down to its request. */
static void giveResize(elGive *g, json_object *step)
{
	json_object *h = mhlJObj(step, MHL_K_HOST);
	gint64 unplugged, before, req;

	if (!giveInt(h, MHL_K_UNPLUGGED_BYTES, &unplugged) || unplugged <= 0)
		return;
	g->n++;
	if (giveInt(h, MHL_K_PLUGGED_BEFORE_BYTES, &before) && giveInt(step, MHL_K_REQUESTED_BYTES, &req) && before > req)
		g->asked += before - req;
	else
		g->asked += unplugged;
	giveHost(g, step);
	g->secs += MAX(0, mhlJDbl(step, MHL_K_SECONDS_TO_CONVERGE, mhlJDbl(step, MHL_K_SECONDS, 0)));
	g->guest -= unplugged;
	g->guest_known = true;
}

static elGive giveOf(json_object *rec)
{
	elGive g = { .back = -1 };
	size_t i;

	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++) {
		json_object *s = mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i), *el = mhlStepElastic(s);

		if (el)
			giveElastic(&g, s, el);
		else if (!strcmp(mhlJStr(s, MHL_K_STEP, ""), "resize"))
			giveResize(&g, s);
	}
	return g;
}

/* The trial's other parameters, "pinned=yes, kernel=6.12", in the record's order; "–" without. */
static char *giveColumn(json_object *rec)
{
	json_object *p = mhlJObj(rec, MHL_K_PARAMETERS);
	g_autoptr(GString) s = g_string_new(NULL);

	if (p) {
		json_object_object_foreach(p, k, v) {
			if (strcmp(k, MHL_K_MECHANISM))
				g_string_append_printf(s, "%s%s=%s", s->len ? ", " : "", k, json_object_get_string(v));
		}
	}
	return g_strdup(s->len ? s->str : "–");
}

/* One trial's cell content: verdict, bytes back of asked, seconds, guest change. */
static void giveCell(GString *out, json_object *rec, guint idx)
{
	elGive g = giveOf(rec);
	const char *v = mhlJStr(rec, MHL_K_VERDICT, "?");

	mhlHtmlf(out, "<a href='#t%u'><b>%s</b></a> ", idx, v);
	if (!g.n) {
		g_string_append(out, "nothing given back");
		return;
	}
	if (g.back >= 0)
		g_string_append_printf(out, "%" G_GINT64_FORMAT " MiB back", g.back >> 20);
	else
		g_string_append(out, "host back –");
	if (g.asked > 0)
		g_string_append_printf(out, " of %" G_GINT64_FORMAT " MiB asked", g.asked >> 20);
	if (g.asked > 0 && g.back >= 0)
		g_string_append_printf(out, " (%.0f %%)", 100.0 * (double)g.back / (double)g.asked);
	g_string_append_printf(out, "<br>%.2f s · guest ", g.secs);
	if (g.guest_known)
		g_string_append_printf(out, "%s%" G_GINT64_FORMAT " MiB", g.guest > 0 ? "+" : "", g.guest / 1048576);
	else
		g_string_append(out, "–");
	if (g.n > 1)
		g_string_append_printf(out, " (%d steps)", g.n);
}

static void gstringFree(gpointer s)
{
	g_string_free(s, TRUE);
}

bool mhlHtmlElasticity(GString *out, const mhlRun *run)
{
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) cols = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) cells = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, gstringFree);
	guint i, r, c;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		const char *m = mhlJStr(mhlJObj(rec, MHL_K_PARAMETERS), MHL_K_MECHANISM, NULL);
		g_autofree char *col = NULL, *key = NULL;
		GString *cell;

		if (!m)
			continue;
		col = giveColumn(rec);
		key = g_strdup_printf("%u,%u", mhlStrIndex(rows, m), mhlStrIndex(cols, col));
		cell = g_hash_table_lookup(cells, key);
		if (!cell) {
			cell = g_string_new(NULL);
			g_hash_table_insert(cells, g_steal_pointer(&key), cell);
		} else {
			g_string_append(cell, "<hr>");	/* two trials of the same parameters: both */
		}
		giveCell(cell, rec, i + 1);
	}
	if (!rows->len)
		return false;
	g_string_append(out, "<h2 id=elasticity>Elasticity: memory back per mechanism</h2>\n"
			"<table class=elasticity>\n<tr><th>mechanism</th>");
	for (c = 0; c < cols->len; c++)
		mhlHtmlf(out, "<th>%s</th>", (char *)cols->pdata[c]);
	g_string_append(out, "</tr>\n");
	for (r = 0; r < rows->len; r++) {
		mhlHtmlf(out, "<tr><th>%s</th>", (char *)rows->pdata[r]);
		for (c = 0; c < cols->len; c++) {
			g_autofree char *key = g_strdup_printf("%u,%u", r, c);
			GString *cell = g_hash_table_lookup(cells, key);

			g_string_append_printf(out, "<td>%s</td>", cell ? cell->str : "not run");
		}
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</table>\n<p class=note>Each cell: the trial's verdict; what the host got back "
			"(its steps' <code>host.reclaimed_bytes</code>) of what they asked the guest to give up, "
			"the share; their seconds; the guest-visible change (MemTotal after − before; a resize: "
			"the bytes it unplugged), summed over the steps that gave memory back (an elastic step "
			"asking less, a resize that unplugged).</p>\n");
	return true;
}
