/*
 * table.h - the reports' HTML tables as column arrays, as util-linux's lsmem
 * describes its columns (coldescs[]): a column is one row {header, key, how
 * it shows}, and a table is its array: the header line and every row come
 * from it. A column of a table is added, moved or dropped in one place.
 */
#ifndef MHL_REPORTS_TABLE_H
#define MHL_REPORTS_TABLE_H

#include <glib.h>
#include <json-c/json.h>

typedef struct mhlCol mhlCol;

/* Writes the <td> of column @c for @row, the @idx-th row (from 0) of its table. */
typedef void (*mhlColCell)(GString *out, json_object *row, size_t idx, const mhlCol *c);

struct mhlCol {
	const char *header;	/* the <th>'s text, HTML as it is */
	const char *key;	/* the value's dotted path in the row (mhlJ), NULL for a table's own cell */
	mhlColCell cell;	/* how it shows: mhlColStr, mhlColNum, mhlColInt, mhlColMiB, mhlColPct, or the table's own */
	double div;		/* mhlColNum, mhlColInt: the value divided by it (0 or 1: as it is; 1048576: MiB) */
	int prec;		/* mhlColNum, mhlColInt: decimals */
	const char *fmt;	/* mhlColFmt: the integer's printf format ("+%" G_GINT64_FORMAT); NULL: as it is */
	const char *none;	/* mhlColStr: the text when absent; NULL: "–" */
};

/* A column's row: header, key, cell; with div and decimals for a number. */
#define MHL_COL(h, k, fn)		{ .header = (h), .key = (k), .cell = (fn) }
#define MHL_COL_NUM(h, k, fn, d, p)	{ .header = (h), .key = (k), .cell = (fn), .div = (d), .prec = (p) }
#define MHL_COL_STR(h, k, n)		{ .header = (h), .key = (k), .cell = mhlColStr, .none = (n) }
#define MHL_COL_FMT(h, k, f)		{ .header = (h), .key = (k), .cell = mhlColFmt, .fmt = (f) }

/* <td class=CLS>TEXT</td>, TEXT escaped; no class when @cls is NULL. */
void mhlHtmlCell(GString *out, const char *cls, const char *text);
/* A number with @prec decimals, or "–" when unknown (negative). */
void mhlHtmlCellNum(GString *out, double v, int prec);

void mhlColStr(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* the string, or c->none ("–") */
void mhlColFmt(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* an integer (0 when absent) in c->fmt */
void mhlColNum(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* a number, "–" when absent or negative */
void mhlColInt(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* the same, read as an integer */
void mhlColMiB(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* bytes as whole MiB (>> 20), or "–" */
void mhlColPct(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* a ratio as "N %", "–" when absent or negative */
void mhlColIndex(GString *out, json_object *row, size_t idx, const mhlCol *c);	/* the row's number, from 1 */

/* <tr><th>...</th>...</tr> of @n columns. */
void mhlHtmlTableHead(GString *out, const mhlCol *cols, size_t n);
/* <tr>...</tr>: @row, the @idx-th of its table, in @n columns. */
void mhlHtmlTableRow(GString *out, json_object *row, size_t idx, const mhlCol *cols, size_t n);
/* The same as <tr class=CLS>. */
void mhlHtmlTableRowClass(GString *out, const char *cls, json_object *row, size_t idx, const mhlCol *cols, size_t n);

#endif
