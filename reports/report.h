/*
 * report.h - reports rendered from a run's trials.jsonl: HTML with gnuplot
 * plots, JUnit XML, KTAP and KCIDB v5 JSON (docs/reports.md).
 *
 * The record is the contract: every renderer reads only what
 * mhlRunLoad() (record/) parsed, never the trial code's structures, and writes only
 * under the report directory; trials.jsonl is opened read-only.
 */
#ifndef MHL_REPORT_H
#define MHL_REPORT_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>

#include "record/record.h"

typedef enum {
	MHL_REPORT_HTML,
	MHL_REPORT_JUNIT,
	MHL_REPORT_KTAP,
	MHL_REPORT_KCIDB,
	MHL_REPORT_LAST
} mhlReportFormat;

/* "html", "junit", ... indexed by mhlReportFormat. */
extern const char *const mhlReportFormatNames[MHL_REPORT_LAST];
/* The file each format writes under the report directory. */
extern const char *const mhlReportFormatFiles[MHL_REPORT_LAST];


typedef struct {
	unsigned formats;	/* bit per mhlReportFormat */
	const char *origin;	/* KCIDB origin */
	const mhlRun *compare;	/* OTHER_RUN for --compare, or NULL */
	const char *datadir;	/* holds kernel/patches/ (KCIDB's patchset); NULL: next to the binary */
} mhlReportOpts;

/* Parse "html,junit" into format bits; -1 + mhlError on an unknown name. */
int mhlReportFormatsParse(const char *list, unsigned *formats);

/*
 * Write the chosen formats into RUN_DIR/report/ (each file replaced
 * atomically). -1 + mhlError on the first format that fails; the others are
 * still attempted.
 */
int mhlReportWrite(const mhlRun *run, const mhlReportOpts *opts);

/*
 * The end of `memhp-lab run`: every format for @dir. Never touches
 * trials.jsonl; a failure is printed as a warning and leaves any error
 * already reported by the run in place.
 */
void mhlReportAfterRun(const char *dir, bool quiet, const char *datadir);	/* quiet: no line on stdout */

/* ---- shared by the renderers (report.c) ---- */

/* The scenario's file name without directory and .yaml: "demo". */
char *mhlTrialScenarioName(json_object *rec);
/* "pin pin0": the step kind and its id, if any. */
char *mhlStepName(json_object *step);
/* Seconds spent pinning (sum of pin steps' pin_us), -1 when no pin ran. */
double mhlTrialPinSeconds(json_object *rec);
/*
 * One line for people: "kernel 6.12.118, pin_policy series, tcg; reached 0 of
 * 0 MiB in 0.2 s, pins failed 0, 256 MiB pinned in 1.196 s".
 */
char *mhlTrialOutcome(json_object *rec);
/*
 * The serial log: RUN_DIR/<the recorded path's basename>, when that is a
 * regular file (or a link to one) inside RUN_DIR; else NULL. Never the
 * recorded path itself: a record may come from elsewhere.
 */
char *mhlTrialConsolePath(const mhlRun *run, json_object *rec);
/* Lines around each console finding (or the findings' own text), NULL if none. */
char *mhlTrialConsoleExcerpt(const mhlRun *run, json_object *rec, int context);
/* Replace characters outside [A-Za-z0-9_-] with '_'. */
char *mhlReportIdent(const char *s);
/* @s as a single-quoted gnuplot string (nothing substituted in it), for titles, labels, tics. */
char *mhlGnuplotString(const char *s);
/* Write @data to @dir/@name atomically. -1 + mhlError. */
int mhlReportFileWrite(const char *dir, const char *name, const char *data, gssize len);

/* One row of --compare: a trial id seen in either run. */
typedef struct {
	char *trial;
	json_object *before;	/* OTHER_RUN's record or NULL */
	json_object *after;	/* RUN_DIR's record or NULL */
	int rank;		/* 0 regression, 1 improvement, 2 other change, 3 same, 4 only in one run */
	char *what;		/* "verdict pass -> fail; reached 0 -> 256 MiB; ..." */
} mhlCompareRow;

/* Rows sorted regressions first, then improvements, changes, unchanged. */
GPtrArray *mhlCompareRuns(const mhlRun *now, const mhlRun *before);
extern const char *const mhlCompareRankNames[5];

int mhlReportHtml(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportJunit(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportKtap(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportKcidb(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);

/* ---- the capacity frontier (report-capacity.c, docs/capacity.md) ---- */

/* One trial of a capacity sweep: a record with a `pinned` parameter and an unplug. */
typedef struct {
	char *group;		/* scenario and other parameters, "capacity-zones (policy=online_kernel, workload=gup)" */
	char *trial;
	gint64 pinned_bytes;	/* parameters.pinned */
	gint64 plugged_bytes;	/* the unplugged node's virtio-mem before the resize */
	gint64 reached_bytes;
	double pinned_frac, unplugged_frac;	/* of plugged_bytes; of what the resize asked back */
	int pins_failed;
	char *failed_as;	/* ENOMEM, SIGKILL, ... of the first failed pin */
	double seconds;		/* to converge, -1 if it did not */
} mhlCapacityPoint;

/* The run's capacity points, sorted by group, then pinned size. Empty if none. */
GPtrArray *mhlCapacityPoints(const mhlRun *run);
/* One sentence for the points [from, to) of one group: the frontier and the first failed pin. */
char *mhlCapacitySentence(GPtrArray *pts, guint from, guint to);
/* Datablocks and a plot command (pinned % vs unplugged %, a line per group) for @script. */
void mhlCapacityGnuplot(GPtrArray *pts, GString *script);

#endif
