/*
 * table.c - the reports' HTML tables from column arrays (table.h): the
 * header line, each row, and the ways a record's value shows in a cell.
 */
#include <glib.h>

#include "reports/report.h"
#include "reports/table.h"

void mhlHtmlCell(GString *out, const char *cls, const char *text)
{
	mhlHtmlf(out, "<td%s%s>%s</td>", cls ? " class=" : "", cls ? cls : "", text ? text : "");
}

void mhlHtmlCellNum(GString *out, double v, int prec)
{
	g_autofree char *t = v < 0 ? g_strdup("–") : g_strdup_printf("%.*f", prec, v);

	mhlHtmlCell(out, NULL, t);	/* not mhlHtmlf: g_markup_printf_escaped knows no '*' precision */
}

static double colDiv(const mhlCol *c)
{
	return c->div > 0 ? c->div : 1;
}

void mhlColStr(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	(void)idx;
	mhlHtmlCell(out, NULL, mhlJStr(row, c->key, c->none ? c->none : "–"));
}

void mhlColFmt(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	g_autofree char *t = g_strdup_printf(c->fmt ? c->fmt : "%" G_GINT64_FORMAT, mhlJInt(row, c->key, 0));

	(void)idx;
	mhlHtmlCell(out, NULL, t);
}

void mhlColNum(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	(void)idx;
	mhlHtmlCellNum(out, mhlJDbl(row, c->key, -colDiv(c)) / colDiv(c), c->prec);
}

void mhlColInt(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	(void)idx;
	mhlHtmlCellNum(out, (double)mhlJInt(row, c->key, -1) / colDiv(c), c->prec);
}

void mhlColMiB(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	json_object *v = mhlJ(row, c->key);
	g_autofree char *t = NULL;

	(void)idx;
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		t = g_strdup("–");
	else
		t = g_strdup_printf("%" G_GINT64_FORMAT, json_object_get_int64(v) >> 20);
	mhlHtmlCell(out, NULL, t);
}

void mhlColPct(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	double v = mhlJDbl(row, c->key, -1);
	g_autofree char *t = v < 0 ? g_strdup("–") : g_strdup_printf("%.0f %%", v * 100);

	(void)idx;
	mhlHtmlCell(out, NULL, t);
}

void mhlColIndex(GString *out, json_object *row, size_t idx, const mhlCol *c)
{
	(void)row;
	(void)c;
	mhlHtmlf(out, "<td>%zu</td>", idx + 1);
}

void mhlHtmlTableHead(GString *out, const mhlCol *cols, size_t n)
{
	size_t i;

	g_string_append(out, "<tr>");
	for (i = 0; i < n; i++)
		g_string_append_printf(out, "<th>%s</th>", cols[i].header);
	g_string_append(out, "</tr>\n");
}

void mhlHtmlTableRow(GString *out, json_object *row, size_t idx, const mhlCol *cols, size_t n)
{
	mhlHtmlTableRowClass(out, NULL, row, idx, cols, n);
}

void mhlHtmlTableRowClass(GString *out, const char *cls, json_object *row, size_t idx, const mhlCol *cols, size_t n)
{
	size_t i;

	mhlHtmlf(out, "<tr%s%s>", cls ? " class=" : "", cls ? cls : "");
	for (i = 0; i < n; i++)
		cols[i].cell(out, row, idx, &cols[i]);
	g_string_append(out, "</tr>\n");
}
