/*
 * plot.h - the plots of every page (index.html, soak.html, history.html):
 * one gnuplot script per page, run once (argv, no shell: lib/spawn.h), its
 * SVGs inlined. Gnuplot never gets record or file-name text unescaped
 * (docs/security.md): a string of a command goes through mhlGnuplotString,
 * a string of a datablock through mhlGnuplotDatum, and numbers are printed
 * by us.
 */
#ifndef MHL_PLOT_H
#define MHL_PLOT_H

#include <glib.h>
#include <stdbool.h>

/* The SVG terminal every plot uses, @w x @h px (string literals), 12 px sans text on white. */
#define MHL_PLOT_TERM(w, h) "set terminal svg size " w "," h " fixed enhanced font 'sans,12' background rgb 'white'\n"

/* @s as a single-quoted gnuplot string (nothing substituted in it), for titles, labels, tics. */
char *mhlGnuplotString(const char *s);
/* @s as a double-quoted string field of a datablock row (data gnuplot never executes). */
char *mhlGnuplotDatum(const char *s);
/*
 * Start plot @name (written to @name.svg; a name of ours, "p3") titled
 * @title (any text: quoted here), with the grid every plot has; the caller
 * appends its settings and its plot command.
 */
void mhlPlotBegin(GString *sc, const char *name, const char *title);
/* Datablock $@name holding @rows (lines of numbers and data strings, each ending in '\n'). */
void mhlPlotData(GString *sc, const char *name, const char *rows);
/*
 * A band over a step's time on a timeline (from @t, @secs long, at least
 * 0.5 % of @tend, the axis, wide so a quick step still shows), behind the
 * data, green when @ok, red otherwise, with @label (any text: quoted here)
 * upright at its start: the lifecycle steps' and the other paths' marks.
 */
void mhlPlotBand(GString *sc, double t, double secs, double tend, bool ok, const char *label);
/*
 * Run gnuplot script @sc in a new directory under @outdir (its SVGs land
 * there); the directory, or NULL + mhlError naming @what. The caller
 * removes it (mhlRemoveTree). MEMHP_GNUPLOT names another gnuplot.
 */
char *mhlPlotsRender(const char *outdir, GString *sc, const char *what);
/*
 * Plot @name's SVG from @dir inline, its ids prefixed with the name (one page
 * holds several), labelled @alt (aria-label) unless NULL; a note where
 * gnuplot wrote none (or @dir is NULL).
 */
void mhlPlotInline(GString *out, const char *dir, const char *name, const char *alt);

#endif
