/* cmd-report.c - `memhp-lab report RUN_DIR`: render a run's records (reports/). */
#include <glib.h>

#include "cli/cli.h"

#include <json-c/json.h>
#include <stdio.h>

#include "cli/shard.h"
#include "reports/report.h"
#include "scenario/scenario.h"
#include "util.h"

const mhlOpt mhlCmdReportOpts[] = {
	{ "format", 1, 'f', "FORMATS", "formats, comma-separated: {formats} (default: all)" },
	{ "compare", 1, 'b', "OTHER_RUN", "HTML: what changed per trial since OTHER_RUN (the baseline), regressions first; -c is every command's libvirt URI (memhp-lab -c URI)" },
	{ "origin", 1, MHL_LONG_ONLY + 'O', "NAME", "KCIDB origin ([a-z0-9_]+, default memhp)" },
	{ "artifact-url", 1, MHL_LONG_ONLY + 'U', "URL", "where CI publishes RUN_DIR: KCIDB log_url and JUnit's console-log lines point under URL instead of file:// (default: MEMHP_ARTIFACT_URL)" },
	{ "history", 0, MHL_LONG_ONLY + 'H', NULL, "RUN_DIR... are runs (or directories of runs), ordered by their records' started time: per trial its verdicts and numbers over time, regressions marked; history.html and history.json into -o OUT_DIR" },
	{ "output", 1, 'o', "OUT_DIR", "with --history (required): the directory history.html and history.json are written to" },
	{ "json", 0, MHL_LONG_ONLY + 'J', NULL, "one JSON object on stdout: the files written, unreadable lines, --compare's rows (docs/schemas/report.schema.json)" },
	{ "merge", 1, MHL_LONG_ONLY + 'M', "OUT_DIR", "RUN_DIR... are the shards of one run (run --shard K/N): merge them into OUT_DIR (one trials.jsonl, the console logs) and render it" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

/* A run's unreadable lines as JSON: [{line, why}]. */
static json_object *reportBadJson(const mhlRun *run)
{
	json_object *arr = json_object_new_array();
	guint i;

	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "line", json_object_new_int(b->line));
		json_object_object_add(o, "why", json_object_new_string(b->why));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* A record's verdict for --compare's JSON rows: its string, or null without a record. */
static json_object *reportVerdictJson(json_object *rec)
{
	return rec ? json_object_new_string(mhlJStr(rec, MHL_K_VERDICT, "")) : NULL;
}

/*
 * `report --json`: what the text lines say, as one object
 * (docs/schemas/report.schema.json). Returns the regressions.
 */
static guint reportJson(const mhlRun *run, const mhlRun *other, const mhlReportOpts *opts)
{
	g_autoptr(json_object) out = json_object_new_object();
	json_object *files = json_object_new_array();
	guint i, regressions = 0;

	json_object_object_add(out, "records", json_object_new_string(run->records));
	json_object_object_add(out, "trials", json_object_new_int((int)run->trials->len));
	json_object_object_add(out, "unreadable", reportBadJson(run));
	for (i = 0; i < MHL_REPORT_LAST; i++) {
		g_autofree char *f = NULL;

		if (!(opts->formats & (1u << i)))
			continue;
		f = g_strdup_printf("%s/report/%s", run->dir, mhlReportFormats[i].file);
		json_object_array_add(files, json_object_new_string(f));
	}
	json_object_object_add(out, "files", files);
	if (other) {
		g_autoptr(GPtrArray) rows = mhlCompareRuns(run, other);
		json_object *cmp = json_object_new_object(), *arr = json_object_new_array();

		json_object_object_add(cmp, "before", json_object_new_string(other->dir));
		json_object_object_add(cmp, "after", json_object_new_string(run->dir));
		json_object_object_add(cmp, "unreadable", reportBadJson(other));
		for (i = 0; i < rows->len; i++) {
			mhlCompareRow *r = rows->pdata[i];
			json_object *o = json_object_new_object();

			json_object_object_add(o, MHL_K_TRIAL, json_object_new_string(r->trial));
			json_object_object_add(o, "rank", json_object_new_string(mhlCompareRankNames[r->rank]));
			json_object_object_add(o, "what", json_object_new_string(r->what));
			json_object_object_add(o, "verdict_before", reportVerdictJson(r->before));
			json_object_object_add(o, "verdict_after", reportVerdictJson(r->after));
			json_object_array_add(arr, o);
			regressions += r->rank == 0;
		}
		json_object_object_add(cmp, "regressions", json_object_new_int((int)regressions));
		json_object_object_add(cmp, "rows", arr);
		json_object_object_add(out, "compare", cmp);
	} else {
		json_object_object_add(out, "compare", NULL);
	}
	printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE));
	return regressions;
}

/* The text of `report`: the files written, then --compare's rows; @regressions counted. */
static void reportText(const mhlRun *run, const mhlRun *other, const mhlReportOpts *opts,
		       guint *regressions)
{
	guint i;

	printf("%s: %u trial(s), %u unreadable line(s):", run->records, run->trials->len, run->bad->len);
	for (i = 0; i < MHL_REPORT_LAST; i++)
		if (opts->formats & (1u << i))
			printf(" %s/report/%s", run->dir, mhlReportFormats[i].file);
	printf("\n");
	if (other) {
		g_autoptr(GPtrArray) rows = mhlCompareRuns(run, other);

		printf("compared with %s (before) -> %s (after):\n", other->dir, run->dir);
		for (i = 0; i < rows->len; i++) {
			mhlCompareRow *r = rows->pdata[i];

			printf("  %-15s %s: %s\n", mhlCompareRankNames[r->rank], r->trial, *r->what ? r->what : "no change");
			*regressions += r->rank == 0;
		}
		if (*regressions)
			fprintf(stderr, "report: %u regression(s) since %s\n", *regressions, other->dir);
	}
}

/*
 * report --history -o OUT_DIR DIR...: the runs oldest first, the page and the
 * JSON summary into OUT_DIR, one line per regression in the newest run; exit
 * 1 if there is any.
 */
static int reportHistory(int n, char **dirs, const char *outdir)
{
	g_autoptr(GPtrArray) runs = NULL;
	const mhlRun *newest;
	guint regressions = 0;

	if (!outdir) {
		mhlError("report --history: no -o OUT_DIR: give the directory for history.html and history.json (they are not written into any run)");
		return MHL_EXIT_USAGE;
	}
	if (!(runs = mhlHistoryLoad(dirs, n)))
		return MHL_EXIT_USAGE;
	if (mhlReportHistory(runs, outdir, &regressions) < 0)
		return MHL_EXIT_HARNESS;	/* the lab could not write it (gnuplot, the disk): no verdict on the kernel */
	newest = runs->pdata[runs->len - 1];
	printf("history of %u run(s), the newest %s: %s/history.html %s/history.json\n", runs->len, newest->dir, outdir,
	       outdir);
	if (regressions)
		fprintf(stderr, "report: %u regression(s) in the newest run %s (history.json says which)\n", regressions,
			newest->dir);
	return regressions ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}

/* --format, --origin, --artifact-url into @opts; MHL_EXIT_USAGE after mhlError, else -1. */
static int reportOptsRead(GHashTable *vals, mhlReportOpts *opts)
{
	const char *v;

	if ((v = g_hash_table_lookup(vals, "format")) && mhlReportFormatsParse(v, &opts->formats) < 0)
		return MHL_EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "origin")) && !g_regex_match_simple("^[a-z0-9_]+$", v, 0, 0)) {
		mhlError("report: --origin '%s' is not a KCIDB origin (lowercase letters, digits, '_')", v);
		return MHL_EXIT_USAGE;
	}
	if (v)
		opts->origin = v;
	if (!(opts->artifact_url = g_hash_table_lookup(vals, "artifact-url")))
		opts->artifact_url = g_getenv("MEMHP_ARTIFACT_URL");
	if (opts->artifact_url && !mhlArtifactUrlValid(opts->artifact_url)) {
		mhlError("report: --artifact-url (or MEMHP_ARTIFACT_URL) '%.200s' is not an http(s):// or file:/// URL without spaces",
			 opts->artifact_url);
		return MHL_EXIT_USAGE;
	}
	return -1;
}

/*
 * The run directory to render, absolute (gnuplot runs in the plots'
 * directory and must still find everything): --merge's OUT_DIR once the
 * shards are merged into it, else the one RUN_DIR. NULL after mhlError.
 */
static char *reportRunDir(GHashTable *vals, int nargs, char **args)
{
	const char *v;

	if (g_hash_table_contains(vals, "output")) {
		mhlError("report: -o OUT_DIR is --history's (a run's report goes into RUN_DIR/report, --merge names its OUT_DIR)");
		return NULL;
	}
	if ((v = g_hash_table_lookup(vals, "merge"))) {
		if (nargs < 1) {
			mhlError("report: --merge OUT_DIR needs the shards' run directories");
			return NULL;
		}
		if (mhlShardMerge(args, nargs, v) < 0)
			return NULL;
		fprintf(stderr, "report: merged %d shard(s) into %s\n", nargs, v);
		return g_canonicalize_filename(v, NULL);
	}
	if (nargs != 1) {
		mhlError("report: expected one RUN_DIR, got %d (several only with --history)", nargs);
		return NULL;
	}
	return g_canonicalize_filename(args[0], NULL);
}

/* The lines of the run's (and --compare's) trials.jsonl that could not be read. */
static void reportBadLines(const mhlRun *run, const mhlRun *other)
{
	guint i;

	for (i = 0; i < run->bad->len; i++) {
		mhlRunBad *b = run->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s\n", run->records, b->line, b->why);
	}
	for (i = 0; other && i < other->bad->len; i++) {
		mhlRunBad *b = other->bad->pdata[i];

		fprintf(stderr, "error: %s:%d: %s (in --compare)\n", other->records, b->line, b->why);
	}
}

int mhlCmdReport(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlRun) run = NULL, other = NULL;
	g_autofree char *dir = NULL;
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	mhlReportOpts opts = { .formats = (1u << MHL_REPORT_LAST) - 1, .origin = "memhp",
			       .datadir = paths->datadir, .planned = mhlScenarioPlannedSteps };
	const char *v;
	guint i, regressions = 0, lost = 0;
	int first, rc = mhlCmdStart("report", argc, argv, vals, &first);

	if (rc >= 0 || (rc = reportOptsRead(vals, &opts)) >= 0)
		return rc;
	if (g_hash_table_contains(vals, "history"))
		return reportHistory(argc - first, argv + first, g_hash_table_lookup(vals, "output"));
	if (!(dir = reportRunDir(vals, argc - first, argv + first)) || !(run = mhlRunLoad(dir)))
		return MHL_EXIT_USAGE;
	if ((v = g_hash_table_lookup(vals, "compare")) && !(other = mhlRunLoad(v)))
		return MHL_EXIT_USAGE;
	opts.compare = other;
	reportBadLines(run, other);
	if (mhlReportWrite(run, &opts) < 0)
		return MHL_EXIT_HARNESS;
	if (g_hash_table_contains(vals, "json")) {
		regressions = reportJson(run, other, &opts);
		if (regressions)
			fprintf(stderr, "report: %u regression(s) since %s\n", regressions, other->dir);
	} else {
		reportText(run, other, &opts, &regressions);
	}
	for (i = 0; i < run->trials->len; i++)
		lost += mhlVerdictOf(run->trials->pdata[i]) == MHL_VERDICT_LOST;
	if (lost)
		fprintf(stderr, "report: %u trial(s) lost (started, never recorded: %s/started.jsonl)\n", lost, run->dir);
	/*
	 * like a test runner: a regression is the kernel's failure (1); a record
	 * unreadable or one that never came is the lab's or the host's (3); a
	 * CI job must see both, and tell them apart (lib/mhl-exit.h)
	 */
	if (regressions)
		return MHL_EXIT_FAILED;
	return run->bad->len || (other && other->bad->len) || lost ? MHL_EXIT_HARNESS : MHL_EXIT_PASS;
}
