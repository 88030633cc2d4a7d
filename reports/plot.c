/*
 * plot.c - gnuplot for every page (plot.h): the quoting of what reaches it,
 * the start of a plot, its one run per page and the SVGs inlined, ids
 * prefixed so that several plots share a page.
 */
#include <glib.h>

#include "reports/plot.h"

#include <errno.h>
#include <string.h>

#include "reports/report.h"
#include "spawn.h"
#include "util.h"

/*
 * A string in a gnuplot command (a title, a label, a tic), from a record
 * that may hold anything: single-quoted, where gnuplot substitutes nothing
 * (in double quotes it runs `command` through the shell), a ' doubled,
 * control characters (a line end ends the command) as spaces. The caller
 * says noenhanced.
 */
char *mhlGnuplotString(const char *s)
{
	g_autoptr(GString) r = g_string_new("'");

	for (; s && *s; s++) {
		if (*s == '\'')
			g_string_append_c(r, '\'');
		g_string_append_c(r, (unsigned char)*s < 0x20 ? ' ' : *s);
	}
	g_string_append_c(r, '\'');
	return g_string_free(g_steal_pointer(&r), FALSE);
}

/*
 * A string field of a datablock row (between "<< EOD" and "EOD", data that
 * gnuplot never executes): double-quoted, the data reader's \" for a quote,
 * control characters as spaces so the row stays one line.
 */
char *mhlGnuplotDatum(const char *s)
{
	g_autoptr(GString) r = g_string_new("\"");

	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			g_string_append_c(r, '\\');
		g_string_append_c(r, (unsigned char)*s < 0x20 ? ' ' : *s);
	}
	g_string_append_c(r, '"');
	return g_string_free(g_steal_pointer(&r), FALSE);
}

void mhlPlotBegin(GString *sc, const char *name, const char *title)
{
	g_autofree char *t = mhlGnuplotString(title);

	g_string_append_printf(sc, "\nreset\nset output '%s.svg'\nset title %s noenhanced\nset grid lc rgb '#dddddd'\n",
			       name, t);
}

void mhlPlotBand(GString *sc, double t, double secs, double tend, bool ok, const char *label)
{
	g_autofree char *ql = mhlGnuplotString(label);

	g_string_append_printf(sc, "set object rect from %.3f, graph 0 to %.3f, graph 1 "
			       "behind fillcolor rgb '%s' fillstyle solid 0.25 noborder\n",
			       t, t + MAX(secs, tend * 0.005), ok ? "#66bb6a" : "#e53935");
	g_string_append_printf(sc, "set label %s at %.3f, graph 0.03 rotate by 90 left offset 1, 0 "
			       "font ',11' tc rgb '%s' noenhanced\n", ql, t, ok ? "#1b5e20" : "#b71c1c");
}

void mhlPlotData(GString *sc, const char *name, const char *rows)
{
	g_string_append_printf(sc, "$%s << EOD\n%sEOD\n", name, rows);
}

char *mhlPlotsRender(const char *outdir, GString *sc, const char *what)
{
	const char *gnuplot = g_getenv("MEMHP_GNUPLOT") ? g_getenv("MEMHP_GNUPLOT") : "gnuplot";
	/*
	 * A private directory of its own (mkdtemp, 0700), never one under the
	 * report's: RUN_DIR may be another user's, and gnuplot opens by name.
	 */
	g_autofree char *dir = g_build_filename(g_get_tmp_dir(), "memhp-plots-XXXXXX", NULL);
	g_autofree char *script = NULL, *words = NULL;
	g_autoptr(GError) err = NULL;
	const char *argv[] = { gnuplot, NULL, NULL };
	/* it runs where it writes the SVGs; its complaints are the message */
	g_auto(mhlSpawn) c = { .argv = argv, .dir = dir, .err = MHL_SPAWN_CAPTURE };

	if (!g_mkdtemp(dir)) {
		mhlError("report: %s: cannot create a plot directory for '%s' under '%s': %s", what, outdir,
			 g_get_tmp_dir(), g_strerror(errno));
		return NULL;
	}
	script = g_build_filename(dir, "plots.gp", NULL);
	/* relative to its own directory, where it runs: an -o relative to ours would not resolve there */
	argv[1] = "plots.gp";
	if (!g_file_set_contents(script, sc->str, sc->len, &err))
		mhlError("report: %s: cannot write '%s': %s", what, script, err->message);
	else if (mhlSpawnRun(&c) < 0)
		mhlError("report: %s: %s (Debian package gnuplot-nox; make deps)", what, c.why);
	else if (mhlSpawnCheck(&c) < 0)
		mhlError("report: %s: '%s %s' failed (%s): %s", what, gnuplot, script,
			 (words = mhlSpawnStatusWords(c.status)), *g_strstrip(c.err_text) ? c.err_text : "no message");
	else
		return g_steal_pointer(&dir);
	mhlRemoveTree(dir);
	return NULL;
}

void mhlPlotInline(GString *out, const char *dir, const char *name, const char *alt)
{
	static const char *const refs[] = { "id=\"", "id='", "href=\"#", "href='#", "url(#" };
	g_autofree char *file = dir ? g_strdup_printf("%s/%s.svg", dir, name) : NULL;
	g_autofree char *svg = NULL, *body = NULL, *pre = g_strdup_printf("%s-", name);
	const char *start;
	size_t i;

	if (!file || !g_file_get_contents(file, &svg, NULL, NULL) || !(start = strstr(svg, "<svg"))) {
		mhlHtmlf(out, "<p class=note>plot missing: gnuplot wrote no %s.svg</p>\n", name);
		return;
	}
	body = g_strdup(start);
	for (i = 0; i < G_N_ELEMENTS(refs); i++) {
		g_auto(GStrv) parts = g_strsplit(body, refs[i], -1);
		g_autofree char *with = g_strconcat(refs[i], pre, NULL);

		g_free(body);
		body = g_strjoinv(with, parts);
	}
	if (alt)
		mhlHtmlf(out, "<figure class=plot data-plot='%s' aria-label='%s'>\n", name, alt);
	else
		mhlHtmlf(out, "<figure class=plot data-plot='%s'>\n", name);
	g_string_append(out, body);
	g_string_append(out, "</figure>\n");
}
