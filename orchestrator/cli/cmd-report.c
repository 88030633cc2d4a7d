/* cmd-report.c - `memhp-lab report RUN_DIR`: render a run's records (reports/). */
#include <glib.h>

#include "cli/cli.h"

#include <stdio.h>

#include "reports/report.h"
#include "util.h"

const mhlOpt mhlCmdReportOpts[] = {
	{ "format", 1, 'f', "LIST", "formats, comma-separated: html,junit,ktap,kcidb (default: all)" },
	{ "compare", 1, 'c', "OTHER_RUN", "HTML: what changed per trial since OTHER_RUN, regressions first" },
	{ "origin", 1, MHL_LONG_ONLY + 'O', "NAME", "KCIDB origin ([a-z0-9_]+, default memhp)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdReport(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlRun) run = NULL, other = NULL;
	g_autofree char *dir = NULL;
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	mhlReportOpts opts = { .formats = (1u << MHL_REPORT_LAST) - 1, .origin = "memhp",
			       .datadir = paths->datadir };
	const char *v;
	guint i;
	int first, rc = mhlCmdStart("report", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if ((v = g_hash_table_lookup(vals, "format")) && mhlReportFormatsParse(v, &opts.formats) < 0)
		return MHL_EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "origin")) && !g_regex_match_simple("^[a-z0-9_]+$", v, 0, 0)) {
		mhlError("report: --origin '%s' is not a KCIDB origin (lowercase letters, digits, '_')", v);
		return MHL_EXIT_USAGE;
	}
	if (v)
		opts.origin = v;
	/* Absolute: gnuplot runs in the plots' directory and must still find everything. */
	dir = g_canonicalize_filename(argv[first], NULL);
	if (!(run = mhlRunLoad(dir)))
		return MHL_EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "compare")) && !(other = mhlRunLoad(v)))
		return MHL_EXIT_USAGE;
	opts.compare = other;
	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s\n", run->records, b->line, b->why);
	}
	for (i = 0; other && i < other->bad->len; i++) {
		mhlRunBad *b = other->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s (in --compare)\n", other->records, b->line, b->why);
	}
	guint regressions = 0;

	if (mhlReportWrite(run, &opts) < 0)
		return MHL_EXIT_FAILED;
	printf("%s: %u trial(s), %u unreadable line(s):", run->records, run->trials->len, run->bad->len);
	for (i = 0; i < MHL_REPORT_LAST; i++)
		if (opts.formats & (1u << i))
			printf(" %s/report/%s", run->dir, mhlReportFormatFiles[i]);
	printf("\n");
	if (other) {
		g_autoptr(GPtrArray) rows = mhlCompareRuns(run, other);

		printf("compared with %s (before) -> %s (after):\n", other->dir, run->dir);
		for (i = 0; i < rows->len; i++) {
			mhlCompareRow *r = rows->pdata[i];

			printf("  %-15s %s: %s\n", mhlCompareRankNames[r->rank], r->trial, *r->what ? r->what : "no change");
			regressions += r->rank == 0;
		}
		if (regressions)
			fprintf(stderr, "report: %u regression(s) since %s\n", regressions, other->dir);
	}
	/* like a test runner: a regression is a failure a CI job must see */
	return run->bad->len || (other && other->bad->len) || regressions ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}
