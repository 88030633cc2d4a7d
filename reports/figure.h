/*
 * figure.h - a step's figures as the reports print them, read from one
 * object of its record by table (lifecycle.c's events, elastic.c's
 * mechanisms): a figure is its dotted path, its label and its unit.
 * Everything read is record text: these only make it one line; the callers
 * escape it for their format.
 */
#ifndef MHL_REPORTS_FIGURE_H
#define MHL_REPORTS_FIGURE_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>

typedef enum {
	MHL_FIG_S,	/* seconds, 2 decimals */
	MHL_FIG_MS,	/* milliseconds, whole */
	MHL_FIG_MIB,	/* bytes as MiB, 1 decimal below 10 */
	MHL_FIG_TEXT,	/* a string */
	MHL_FIG_YESNO,	/* a boolean */
	MHL_FIG_COUNT,	/* an integer */
} mhlFigUnit;

typedef struct {
	const char *path;	/* in the object (mhlJ's dotted path) */
	const char *label;	/* what it is called in a figures line: "moved" */
	mhlFigUnit unit;
	const char *of;		/* MHL_FIG_MIB: the figure it is a share of ("41 of 536 MiB (7.7 %)"), or NULL */
} mhlFigure;

/* Record text on one line: control characters as spaces, at most @max characters ("…" says where cut). */
char *mhlFigOneLine(const char *s, glong max);
/* @bytes as MiB, one decimal below 10 MiB when not whole. */
void mhlFigMiB(GString *out, gint64 bytes);
/* Figure @f of @o into @out (its value and unit, no label); false when @o has none of its type. */
bool mhlFigValue(GString *out, json_object *o, const mhlFigure *f);
/* ", LABEL VALUE" of each of the @n figures @figs (up to the first without a path) that @o has. */
void mhlFigAppend(GString *out, json_object *o, const mhlFigure *figs, size_t n);
/* Figure @path of @o copied into @dst at the same path when it is of @unit's JSON type. */
void mhlFigCopy(json_object *dst, json_object *o, const char *path, mhlFigUnit unit);

#endif
