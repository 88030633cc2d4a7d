/*
 * grid.c - the first screen of a matrix run's index.html (docs/reports.md,
 * "The grid"): rows and columns from the matrix axes, each cell a trial's
 * verdict colour and its one number, linking to the trial's section.
 *
 * Columns: the kernel and policy axes (the parameters `kernel` and
 * `policy`, or the record's pin_policy when it varies) when there are any,
 * else the first parameter axis. Rows: the scenario's name and every other
 * axis's value. Everything from a record is escaped (g_markup_printf_escaped).
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"
#include "util.h"

/* An axis value: parameters.KEY, or the record's own pin_policy for the implicit axis. */
double mhlTrialUnplugFraction(json_object *rec)
{
	json_object *tl = mhlJ(rec, MHL_K_TIMELINE), *nodes = mhlJ(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES));
	gint64 plugged, requested = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1);
	gint64 reached = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);
	gint64 node = -1;
	size_t i;

	for (i = 0; tl && json_object_is_type(tl, json_type_array) && i < json_object_array_length(tl); i++) {
		json_object *e = json_object_array_get_idx(tl, i);

		if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "request"))
			node = mhlJInt(e, MHL_K_NODE, -1);
	}
	if (node < 0 || !nodes || !json_object_is_type(nodes, json_type_array) ||
	    (size_t)node >= json_object_array_length(nodes))
		return -1;
	plugged = mhlJInt(json_object_array_get_idx(nodes, (size_t)node), MHL_K_VIRTIO_MEM_REQUESTED_BYTES, -1);
	if (plugged <= 0 || requested < 0 || reached < 0 || requested >= plugged)
		return -1;
	return CLAMP((double)(plugged - MIN(reached, plugged)) / (double)(plugged - requested), 0.0, 1.0);
}

char *mhlGridNumber(json_object *rec)
{
	const char *label = mhlJStr(rec, MHL_PATH(MHL_K_GRID, MHL_K_LABEL), NULL);
	json_object *v = mhlJ(rec, MHL_PATH(MHL_K_GRID, MHL_K_VALUE));
	mhlSummary m;

	/* the number the scenario declared its claim is about (grid:), where it did */
	if (label && v && json_object_is_type(v, json_type_int))
		return g_strdup_printf("%" G_GINT64_FORMAT " %s", json_object_get_int64(v), label);
	if (label && v && json_object_is_type(v, json_type_double))
		return g_strdup_printf("%.3g %s", json_object_get_double(v), label);
	if (label)
		return g_strdup_printf("– %s", label);
	mhlSummaryRead(rec, &m);
	if (m.requested_bytes >= 0 && m.reached_bytes >= 0)
		return g_strdup_printf("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " MiB", m.reached_bytes >> 20,
				       m.requested_bytes >> 20);
	if (m.pins_failed >= 0)
		return g_strdup_printf("%" G_GINT64_FORMAT " pin%s failed", m.pins_failed, m.pins_failed == 1 ? "" : "s");
	return g_strdup("–");
}

#define MHL_GRID_MAX_COL_AXES 3	/* kernel, policy, pin_policy */

/* A column: its label and its values' ranks on each column axis (first seen; series before baseline). */
typedef struct {
	guint rank[MHL_GRID_MAX_COL_AXES];
	guint index;	/* in cols */
} gridCol;

static gint gridColumnCmp(gconstpointer a, gconstpointer b)
{
	const gridCol *x = a, *y = b;
	guint k;

	for (k = 0; k < MHL_GRID_MAX_COL_AXES; k++)
		if (x->rank[k] != y->rank[k])
			return x->rank[k] < y->rank[k] ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The columns' display order from their ranks. */
static guint *gridColumnOrder(GArray *ranks)
{
	guint *order = g_new(guint, ranks->len + 1), i;

	g_array_sort(ranks, gridColumnCmp);
	for (i = 0; i < ranks->len; i++)
		order[i] = g_array_index(ranks, gridCol, i).index;
	return order;
}

/* A matrix run laid out: the axes across and down, and which trial fills each cell. */
typedef struct {
	GPtrArray *keys;	/* every axis, sorted (owns the names) */
	GPtrArray *colKeys;	/* borrowed from keys: kernel, policy */
	GPtrArray *rowKeys;	/* the others */
	GPtrArray *colVals[MHL_GRID_MAX_COL_AXES];	/* each column axis's values, first seen first */
	GPtrArray *cols, *rows;	/* the column and row labels */
	GHashTable *cells;	/* "row,col" -> trial index + 1 */
	GArray *ranks;		/* gridCol per column, for the order */
} gridLayout;

static void gridLayoutClear(gridLayout *L)
{
	guint i;

	for (i = 0; i < MHL_GRID_MAX_COL_AXES; i++)
		if (L->colVals[i])
			g_ptr_array_unref(L->colVals[i]);
	g_ptr_array_unref(L->keys);
	g_ptr_array_unref(L->colKeys);
	g_ptr_array_unref(L->rowKeys);
	g_ptr_array_unref(L->cols);
	g_ptr_array_unref(L->rows);
	g_hash_table_unref(L->cells);
	g_array_unref(L->ranks);
}

/* The axes: kernel and policy across (or the first axis), the rest down. How many trials have parameters. */
static guint gridAxes(const mhlRun *run, gridLayout *L)
{
	g_autoptr(GPtrArray) policies = g_ptr_array_new_with_free_func(g_free);
	guint i, n = 0;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];

		if (!mhlRecordHasParameters(rec))
			continue;
		n++;
		mhlStrIndex(policies, mhlJStr(rec, MHL_K_PIN_POLICY, "–"));
		json_object_object_foreach(mhlJ(rec, MHL_K_PARAMETERS), k, v) {
			(void)v;
			mhlStrIndex(L->keys, k);
		}
	}
	if (n < 2)
		return n;
	g_ptr_array_sort(L->keys, mhlStrPtrCmp);
	if (policies->len > 1 && !g_ptr_array_find_with_equal_func(L->keys, "policy", g_str_equal, NULL))
		mhlStrIndex(L->keys, MHL_K_PIN_POLICY);
	for (i = 0; i < L->keys->len; i++)
		if (!strcmp(L->keys->pdata[i], MHL_K_KERNEL) || !strcmp(L->keys->pdata[i], "policy") ||
		    !strcmp(L->keys->pdata[i], MHL_K_PIN_POLICY))
			g_ptr_array_add(L->colKeys, L->keys->pdata[i]);
	if (!L->colKeys->len)
		g_ptr_array_add(L->colKeys, L->keys->pdata[0]);
	while (L->colKeys->len > MHL_GRID_MAX_COL_AXES)
		g_ptr_array_remove_index(L->colKeys, L->colKeys->len - 1);
	for (i = 0; i < L->keys->len; i++)
		if (!g_ptr_array_find(L->colKeys, L->keys->pdata[i], NULL))
			g_ptr_array_add(L->rowKeys, L->keys->pdata[i]);
	/* each column axis's values in the order first seen; the policies series first, as the conformance table */
	for (i = 0; i < L->colKeys->len; i++) {
		L->colVals[i] = g_ptr_array_new_with_free_func(g_free);
		if (strcmp(L->colKeys->pdata[i], MHL_K_KERNEL)) {
			mhlStrIndex(L->colVals[i], "series");
			mhlStrIndex(L->colVals[i], "baseline");
		}
	}
	return n;
}

/* Trial @i into its cell: its row (scenario and row axes) and column labels. */
static void gridPlace(gridLayout *L, json_object *rec, guint i)
{
	g_autoptr(GString) rk = g_string_new(NULL), ck = g_string_new(NULL);
	g_autofree char *key = NULL;
	gridCol gc = { { 0 }, 0 };
	guint k, r, c;

	if (mhlJStr(rec, MHL_K_SCENARIO_NAME, NULL)) {
		g_string_append(rk, mhlJStr(rec, MHL_K_SCENARIO_NAME, ""));
	} else {	/* a record from before scenario_name: its file's name */
		g_autofree char *scn = mhlTrialScenarioName(rec);

		g_string_append(rk, scn);
	}
	for (k = 0; k < L->rowKeys->len; k++)
		if (mhlJ(mhlJ(rec, MHL_K_PARAMETERS), L->rowKeys->pdata[k]))
			g_string_append_printf(rk, " %s=%s", (char *)L->rowKeys->pdata[k],
					       mhlAxisValue(rec, L->rowKeys->pdata[k], "–"));
	for (k = 0; k < L->colKeys->len; k++) {
		const char *val = mhlAxisValue(rec, L->colKeys->pdata[k], "–");

		g_string_append_printf(ck, "%s%s", k ? " " : "", val);
		gc.rank[k] = mhlStrIndex(L->colVals[k], val);
	}
	r = mhlStrIndex(L->rows, rk->str);
	c = mhlStrIndex(L->cols, ck->str);
	if (c == L->ranks->len) {
		gc.index = c;
		g_array_append_val(L->ranks, gc);
	}
	key = g_strdup_printf("%u,%u", r, c);
	/* the first record of a cell wins (a resumed run may have two) */
	if (!g_hash_table_contains(L->cells, key))
		g_hash_table_insert(L->cells, g_steal_pointer(&key), GUINT_TO_POINTER(i + 1));
}

/* One cell: the verdict and the one number, linked to the trial; a failing one's reason into @notes. */
static void gridCell(GString *out, GString *notes, const mhlRun *run, const gridLayout *L, guint r, guint col)
{
	g_autofree char *key = g_strdup_printf("%u,%u", r, col);
	guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(L->cells, key));
	g_autofree char *num = NULL, *lc = NULL, *el = NULL;
	const char *v, *why;
	json_object *rec;

	if (!idx) {
		g_string_append(out, "<td class=none>not run</td>");
		return;
	}
	rec = run->trials->pdata[idx - 1];
	v = mhlJStr(rec, MHL_K_VERDICT, "?");
	why = mhlJStr(rec, MHL_K_REASON, NULL);
	num = mhlGridNumber(rec);
	lc = mhlTrialLifecycle(rec, false);
	el = mhlTrialElastic(rec, false);
	mhlHtmlf(out, "<td class='%s'><a href='#t%u' title='%s'><b>%s</b> %s",
		 mhlVerdictOf(rec) < MHL_VERDICT_LAST ? v : "unknown", idx,
		 why ? why : mhlJStr(rec, MHL_K_TRIAL, ""), v, num);
	/* its lifecycle steps (issue 34) below the number, wrapping in the cell, which otherwise does not */
	if (lc)
		mhlHtmlf(out, "<br><small class=lifecycle style='white-space:normal'>%s</small>", lc);
	/* and its other paths (issue 35): dimm, vmem, balloon, hugepages */
	if (el)
		mhlHtmlf(out, "<br><small class=elastic style='white-space:normal'>%s</small>", el);
	g_string_append(out, "</a></td>");
	if (why && mhlVerdictOf(rec) != MHL_VERDICT_PASS)
		mhlHtmlf(notes, "<li><a href='#t%u'>%s</a> (%s, %s): <b>%s</b>: %s</li>\n", idx,
			 (char *)L->rows->pdata[r], (char *)L->cols->pdata[col], mhlJStr(rec, MHL_K_TRIAL, ""), v, why);
}

bool mhlHtmlGrid(GString *out, const mhlRun *run)
{
	gridLayout L = {
		.keys = g_ptr_array_new_with_free_func(g_free), .colKeys = g_ptr_array_new(),
		.rowKeys = g_ptr_array_new(), .cols = g_ptr_array_new_with_free_func(g_free),
		.rows = g_ptr_array_new_with_free_func(g_free),
		.cells = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.ranks = g_array_new(FALSE, TRUE, sizeof(gridCol)),
	};
	g_autoptr(GString) notes = g_string_new(NULL);
	g_autofree guint *order = NULL;
	guint i, r, c;

	if (gridAxes(run, &L) < 2) {
		gridLayoutClear(&L);
		return false;
	}
	for (i = 0; i < run->trials->len; i++)
		if (mhlRecordHasParameters(run->trials->pdata[i]))
			gridPlace(&L, run->trials->pdata[i], i);
	order = gridColumnOrder(L.ranks);
	g_string_append(out, "<h2 id=grid>Matrix</h2>\n<table class=grid>\n<tr><th>");
	for (i = 0; i < L.rowKeys->len + 1; i++)
		mhlHtmlf(out, "%s%s", i ? " · " : "", i ? (char *)L.rowKeys->pdata[i - 1] : "scenario");
	g_string_append(out, " \\ ");
	for (i = 0; i < L.colKeys->len; i++)
		mhlHtmlf(out, "%s%s", i ? " · " : "", (char *)L.colKeys->pdata[i]);
	g_string_append(out, "</th>");
	for (c = 0; c < L.cols->len; c++)
		mhlHtmlf(out, "<th>%s</th>", (char *)L.cols->pdata[order[c]]);
	g_string_append(out, "</tr>\n");
	for (r = 0; r < L.rows->len; r++) {
		mhlHtmlf(out, "<tr><th>%s</th>", (char *)L.rows->pdata[r]);
		for (c = 0; c < L.cols->len; c++)
			gridCell(out, notes, run, &L, r, order[c]);
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</table>\n<p class=note>Each cell: the verdict and the number its scenario's "
			"<code>grid:</code> names (what its claim is about), else reached/requested MiB of the "
			"unplug, or pins failed where the trial resized nothing; it links to the trial.");
	if (mhlRunHasLifecycle(run))
		g_string_append(out, " Below it, the trial's lifecycle steps in order with their outcome.");
	if (mhlRunHasElastic(run))
		g_string_append(out, " Below it, the trial's other paths (DIMM, virtio-mem device, balloon, hugepages) "
				"in order with their outcome.");
	g_string_append(out, "</p>\n");
	if (notes->len)
		g_string_append_printf(out, "<ul class=reasons>\n%s</ul>\n", notes->str);
	gridLayoutClear(&L);
	return true;
}
