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

#include "record/planned.h"
#include "record/record.h"

typedef enum {
	MHL_REPORT_HTML,
	MHL_REPORT_JUNIT,
	MHL_REPORT_KTAP,
	MHL_REPORT_KCIDB,
	MHL_REPORT_LAST
} mhlReportFormat;


typedef struct {
	unsigned formats;	/* bit per mhlReportFormat */
	const char *origin;	/* KCIDB origin */
	const mhlRun *compare;	/* OTHER_RUN for --compare, or NULL */
	const char *datadir;	/* holds kernel/patches/ (KCIDB's patchset); NULL: next to the binary */
	const char *artifact_url;	/* --artifact-url / MEMHP_ARTIFACT_URL: where CI publishes RUN_DIR, or NULL */
	mhlPlannedStepsFn planned;	/* the scenario's steps, for those a trial did not run; NULL: none listed */
	int outfd;		/* set by mhlReportWrite: RUN_DIR/report/, opened below RUN_DIR's descriptor */
} mhlReportOpts;

/*
 * The report formats, one row each, indexed by mhlReportFormat: every list of
 * them (--format's parsing and errors, report's --help, summary line, man page
 * and bash completion) is made from this table. A new format is a value above,
 * a row here (reports/report.c) and its writer (docs/architecture.md).
 */
typedef struct {
	const char *name;	/* --format's value: "html" */
	const char *title;	/* its name in prose: "HTML" */
	const char *file;	/* what it writes under RUN_DIR/report/ */
	/* writes @file into @outdir; -1 + mhlError */
	int (*write)(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
} mhlReportFormatDesc;

extern const mhlReportFormatDesc mhlReportFormats[MHL_REPORT_LAST];

/*
 * The formats' field at @field (offsetof(mhlReportFormatDesc, name), title
 * or file) joined by @sep, the last two by @last: "HTML, JUnit, KTAP and KCIDB".
 */
char *mhlReportFormatsJoin(size_t field, const char *sep, const char *last);

/*
 * Where a reader finds @path, a file of @run: @opts->artifact_url + "/" +
 * its path under the run directory (each component percent-escaped) when
 * both are set and @path is inside it; else its file:// URI.
 */
char *mhlArtifactUrl(const mhlReportOpts *opts, const mhlRun *run, const char *path);
/* Whether @base may be an --artifact-url: http(s)://, or file:///; no space or control character. */
bool mhlArtifactUrlValid(const char *base);

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
void mhlReportAfterRun(const char *dir, bool quiet, const char *datadir,	/* quiet: no line on stdout */
		       mhlPlannedStepsFn planned);

/* ---- the dashboard line (dashboard.c) ---- */

/* The trials counted by verdict; [MHL_VERDICT_LAST]: records without a known one. */
void mhlRunCount(const mhlRun *run, int counts[MHL_VERDICT_LAST + 1]);
/* "35 pass, 0 fail, 1 xfail": pass and fail always, the other outcomes when there are any. */
char *mhlRunCountsText(const int counts[MHL_VERDICT_LAST + 1]);
/* Seconds from the first trial's start to the last one's end; -1 without a start time. */
double mhlRunWallSeconds(const mhlRun *run);
/*
 * The line a team pastes into a chat: "conformance: 36 trial(s): 35 pass,
 * 0 fail, 1 xfail | kernel 6.12.118, 6.1.158 | policy series, baseline |
 * host anonymous (proc) | accel tcg | wall 3 min 18 s". Plain text.
 */
char *mhlRunDashboard(const mhlRun *run);

/* ---- a run's exit status from its verdicts (exit.c) ---- */

/*
 * One trial's status (lib/mhl-exit.h): pass and xfail 0, skip 4, fail and
 * xpass 1, error 1 when its cause was the guest (@guest_error: the record's
 * error_source "guest") and 3 when it was the lab or the host, interrupted 5,
 * lost or no record (MHL_VERDICT_LAST) 3.
 */
int mhlExitStatusOfTrial(mhlVerdict v, bool guest_error);
/*
 * The exit status so far, @rc, with one more trial (@v, @guest_error as
 * above); @first: it is the first trial (@rc is ignored). Skips leave the
 * status as it was (every trial a skip: 4); otherwise the worse of the two,
 * in the order 1, 5, 3, 0. `run`'s runEnd folds its trials with it.
 */
int mhlExitStatusAdd(int rc, bool first, mhlVerdict v, bool guest_error);
/* The same over @n trials at once (@guest_error may be NULL: none); MHL_EXIT_PASS for none. */
int mhlExitStatusOf(const mhlVerdict *v, const bool *guest_error, size_t n);

/* ---- plot colours (palette.c): one table for every plot ---- */

#define MHL_PALETTE_NODES 4
/* "#rrggbb" of @zone (Movable, Normal, DMA32, DMA, CMA, other; unknown: other) on @node (its shade). */
const char *mhlZoneColour(const char *zone, long node);
/* The zones of the table, in legend order; NULL-terminated. */
extern const char *const mhlZoneNames[];
/* "#rrggbb" of a verdict, the plots' match of the HTML's colours. */
const char *mhlVerdictColour(const char *verdict);

/*
 * Which kernel a record ran, in a few words that tell apart what a version
 * alone does not (issue 52 item 5: Debian's 6.12 and the lab's patched 6.12
 * both read "6.12.118-1~deb12u1"): a Debian package's name and version,
 * "prebuilt BZIMAGE", the lab's "VERSION + series HASH8"; g_free.
 */
char *mhlKernelLabel(json_object *rec);

/* ---- noise floors (noise.c): when a number is worse, for --history and --compare alike ---- */

/* The numbers judged across runs. */
typedef enum {
	MHL_METRIC_REACHED,	/* summary.reached_bytes, MiB */
	MHL_METRIC_CONVERGE,	/* summary.seconds_to_converge */
	MHL_METRIC_PIN,		/* seconds pinning (mhlTrialPinSeconds) */
	MHL_METRIC_BENCH,	/* the first bench step's pin time, the median of its runs' get_us */
	MHL_METRIC_CPH,		/* a soak's cycles per hour */
	MHL_METRIC_FINDINGS,	/* a soak's findings */
	/* what a capacity team reads first (issue 52 item 4): */
	MHL_METRIC_HOST_BACK,	/* summary.host_reclaimed_of_reclaimable, % */
	MHL_METRIC_DOWNTIME,	/* the first migrate step's migration.downtime_ms */
	MHL_METRIC_SAVE,	/* the first save or managedsave step's save_s */
	MHL_METRIC_RESTORE,	/* ... and its restore_s */
	MHL_METRIC_DIMM_REMOVE,	/* the first DIMM detach that completed: elastic.seconds */
	MHL_METRIC_LAST
} mhlMetric;

typedef struct {
	const char *name;	/* JSON key and row label */
	const char *unit;
	bool higher_better;
	double relative;	/* without enough repeats a change below this share of the median is noise */
	double floor;		/* a change below this is always noise */
	int prec;		/* decimals in history.html's column */
} mhlMetricInfo;

extern const mhlMetricInfo mhlMetrics[MHL_METRIC_LAST];

/* From this many values on, their MAD alone (and the absolute floor) measures the noise. */
#define MHL_NOISE_REPEATS 5

/*
 * The median of @values (@n of metric @m) into *@med, and their spread:
 * max(3 x 1.4826 x MAD, the metric's floor), and with fewer than
 * MHL_NOISE_REPEATS values at least its relative floor x |median| too.
 * NAN (both) when @n is 0.
 */
double mhlNoiseSpread(mhlMetric m, const double *values, size_t n, double *med);
/*
 * @x against @values (mhlNoiseSpread, into *@med and *@spread): 1 when worse
 * than the median by more than the spread (a regression), -1 better by more
 * (an improvement), 0 noise (or nothing to judge).
 */
int mhlNoiseJudge(mhlMetric m, const double *values, size_t n, double x, double *med, double *spread);
/* @rec's value of @m; NAN when it has none. */
double mhlMetricValue(json_object *rec, mhlMetric m);
/* The repeats @rec holds of @m (a bench step's runs[].get_us), appended to @out; how many. */
size_t mhlMetricRepeats(json_object *rec, mhlMetric m, GArray *out);

/* ---- history across runs (history.c): report --history -o OUT_DIR DIR... ---- */

/* The regression rule, as the page and the JSON state it. */
extern const char mhlHistoryRule[];
/*
 * A record's `started` @s as memhp-lab writes it, a UTC time
 * YYYY-MM-DDTHH:MM:SS[.ffffff]Z no more than a day after @now (microseconds
 * since the epoch; another host's clock may run ahead), into *@t
 * (microseconds since the epoch). NULL, or why it is not one ("is not a UTC
 * time as memhp-lab writes it ..."): records come from elsewhere, and a
 * planted "9999-..." or "~" must not decide which run is the newest.
 */
const char *mhlHistoryTimeParse(const char *s, gint64 now, gint64 *t);
/*
 * The runs of @dirs (run directories, or directories of run directories,
 * whose subdirectories with a trials.jsonl are taken), oldest first by their
 * first record's start as parsed (mhlHistoryTimeParse). A run that cannot be
 * read, or whose records' `started` is not such a time (or none has one), is
 * skipped with a warning naming its file and line when found in a directory
 * of runs, refused when given itself. NULL + mhlError when there is none or a
 * run given directly is refused.
 */
GPtrArray *mhlHistoryLoad(char **dirs, int n);
/*
 * history.html and history.json into @outdir (created; report --history -o
 * OUT_DIR, never a run's own directory unless the user names it): per trial
 * id its verdicts and numbers per run, regressions marked (mhlHistoryRule).
 * *regressions: those in the newest run. -1 + mhlError.
 */
int mhlReportHistory(GPtrArray *runs, const char *outdir, guint *regressions);

/* ---- the grid of a matrix run (grid.c) ---- */

/*
 * The share of the asked unplug that happened: (plugged - reached) ÷
 * (plugged - requested) of the last resized node, plugged its initial
 * virtio-mem size; 1 when the unplug reached the request. -1 without a shrink.
 */
double mhlTrialUnplugFraction(json_object *rec);
/*
 * A trial's one number: its scenario's grid: number ("65536 migrated"; record key
 * grid), else "reached/requested MiB", else "N pins failed", else "–".
 */
char *mhlGridNumber(json_object *rec);
/* The grid as HTML into @out; false (nothing written) unless two or more trials have parameters. */
bool mhlHtmlGrid(GString *out, const mhlRun *run);

/* ---- lifecycle steps (lifecycle.c, issue 34; docs/reports.md) ---- */

/* A step's MHL_K_LIFECYCLE object when it has one with an event, else NULL. */
json_object *mhlStepLifecycle(json_object *step);
/* Whether @rec / any trial of @run has a lifecycle step: the formats add their lifecycle parts only then. */
bool mhlTrialHasLifecycle(json_object *rec);
bool mhlRunHasLifecycle(const mhlRun *run);
/* A lifecycle step's outcome: "✓", "✗ refused: MESSAGE" (one line, cut at 120 characters); @ascii: "ok", "FAILED ...". */
char *mhlLifecycleOutcome(json_object *step, bool ascii);
/*
 * One line for a lifecycle step: "save ✓ 1.2 s (300 MiB image)", "migrate ✓
 * 3.4 s (41 of 536 MiB (7.7 %) moved)", "reboot ✗ refused: ..."; NULL for
 * another step. Record text, unescaped: the caller escapes it for its format.
 */
char *mhlLifecycleBrief(json_object *step, bool ascii);
/* The briefs of @rec's lifecycle steps in order, ", "-joined; NULL when it has none. */
char *mhlTrialLifecycle(json_object *rec, bool ascii);
/*
 * Every figure the step has, labelled: "down 0.80 s, agent back after 1.10 s,
 * plugged 512 → 512 MiB, image 300 MiB, save 1.20 s, restore 2.00 s"
 * (the event's row of lifecycle.c's table); NULL for another step.
 */
char *mhlLifecycleFigures(json_object *step, bool ascii);
/*
 * The same as JSON for KCIDB's misc: the lifecycle object's keys the table
 * knows, at their record paths, with plugged_before_bytes and
 * plugged_after_bytes (the devices summed); NULL for another step.
 */
json_object *mhlLifecycleMisc(json_object *step);
/*
 * The number of the one-line form's figure when it is one (a migration's
 * bytes moved, a save's image: MiB; seconds; ms), its unit into *@unit;
 * -1 when the step has none (KCIDB's `number`).
 */
double mhlLifecycleNumber(json_object *step, const char **unit);
/*
 * Marks on the timeline plot of a trial (gnuplot commands into @sc): a band
 * over each lifecycle step's time, green when it went through, red when it
 * failed or was refused (at least 0.5 % of @tend, the axis, wide),
 * labelled with its event and outcome.
 */
void mhlLifecycleGnuplot(GString *sc, json_object *rec, double tend);

/* ---- the other paths (elastic.c, issue 35; docs/reports.md) ---- */

/* A step's MHL_K_ELASTIC object when it has one with a mechanism, else NULL. */
json_object *mhlStepElastic(json_object *step);
/* Whether @rec / any trial of @run has such a step: the formats add their parts for them only then. */
bool mhlTrialHasElastic(json_object *rec);
bool mhlRunHasElastic(const mhlRun *run);
/* Its outcome: "✓", "✗ refused: MESSAGE", "✗: the step's error" (one line, 120 characters); @ascii: "ok", "FAILED ...". */
char *mhlElasticOutcome(json_object *step, bool ascii);
/* What the host got back (its res.host, as a resize's): "480 MiB (94 % of asked)"; NULL without. */
char *mhlElasticHostBack(json_object *step);
/*
 * One line: "dimm detach ✓ 2.3 s (guest -512 MiB, host back 480 MiB (94 %
 * of asked))", "hugetlb alloc ✗: ... (100 of 128 pages)", "virtio-mem
 * attach ✗ refused: ..."; NULL for another step. Record text, unescaped.
 */
char *mhlElasticBrief(json_object *step, bool ascii);
/* The briefs of @rec's such steps in order, ", "-joined; NULL when it has none. */
char *mhlTrialElastic(json_object *rec, bool ascii);
/*
 * Every figure, labelled: "asked -512 MiB, MemTotal 1536 → 1024 MiB (-512),
 * host back ..., removed yes, alias dimm0, slot 0, blocks memory32 online
 * [Movable], ..." (the mechanism's row of elastic.c's table); NULL for another step.
 */
char *mhlElasticFigures(json_object *step, bool ascii);
/* The same as JSON for KCIDB's misc: the keys the table knows, blocks, host_reclaimed_bytes; NULL for another step. */
json_object *mhlElasticMisc(json_object *step);
/* KCIDB's number: hugepages allocated, else the guest's MemTotal change in MiB; false without. */
bool mhlElasticNumber(json_object *step, double *v, const char **unit);
/* Bands on a trial's timeline (gnuplot commands into @sc), one per such step, as mhlLifecycleGnuplot. */
void mhlElasticGnuplot(GString *sc, json_object *rec, double tend);
/*
 * The elasticity comparison (issue 35, item 4) as HTML into @out: the trials
 * with a `mechanism` parameter, mechanism down, the other parameters
 * across; each cell the host's bytes back of what was asked, seconds and
 * the guest-visible change over the trial's steps that gave memory back
 * (an elastic step asking < 0, a resize that unplugged). False, nothing
 * written, without such trials.
 */
bool mhlHtmlElasticity(GString *out, const mhlRun *run);

/* ---- shared by the renderers (report.c) ---- */

/* The scenario's file name without directory and .yaml: "demo". */
char *mhlTrialScenarioName(json_object *rec);
/* printf into @out with every %s argument HTML-escaped (g_markup_vprintf_escaped): records are untrusted. */
void mhlHtmlf(GString *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether a record has matrix parameters (a non-empty "parameters" object). */
bool mhlRecordHasParameters(json_object *rec);

/*
 * A trial's value on matrix axis @key: its parameter, else for "pin_policy"
 * its pin_policy and for "scenario" its scenario's name, else @none.
 */
const char *mhlAxisValue(json_object *rec, const char *key, const char *none);
/* Index of @s in @a (strings it owns), added at the end if new. */
guint mhlStrIndex(GPtrArray *a, const char *s);
/* strcmp for g_ptr_array_sort of strings. */
gint mhlStrPtrCmp(gconstpointer a, gconstpointer b);

/* "pin pin0": the step kind and its id, if any. */
char *mhlStepName(json_object *step);
/*
 * The names of the steps @rec's trial did not run ("check pin0", as
 * mhlStepName): those its scenario file has after the recorded ones, when
 * that file is a regular .yaml whose steps up to there match the record's
 * (kind and line) as @planned reads them; NULL otherwise, without @planned,
 * or when every step ran (not-run.c).
 */
GPtrArray *mhlTrialStepsNotRun(json_object *rec, mhlPlannedStepsFn planned);
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
/*
 * RUN_DIR/@base when it is a regular file there, or a link to one that stays
 * inside RUN_DIR; NULL otherwise (@base with a '/', "." or ".." too).
 */
char *mhlRunFilePath(const mhlRun *run, const char *base);
char *mhlTrialConsolePath(const mhlRun *run, json_object *rec);
/*
 * That log opened for reading (mhlFileOpenRegular: a regular file, judged
 * on the descriptor, so a FIFO or a device put there is never read), or -1.
 * Read it a line at a time (mhlLineReader), never whole: a log from
 * elsewhere may be of any size.
 */
int mhlTrialConsoleOpen(const mhlRun *run, json_object *rec);
/* The bytes of one log line an excerpt quotes; the rest of a longer line is dropped, "..." says so. */
#define MHL_EXCERPT_LINE_MAX (32 * 1024)
/*
 * Lines around each console finding (or the findings' own text), NULL if
 * none; memory bounded whatever the log's size: the log read a line at a
 * time, each line quoted at most MHL_EXCERPT_LINE_MAX bytes, no finding
 * after 8 KiB of excerpt.
 */
char *mhlTrialConsoleExcerpt(const mhlRun *run, json_object *rec, int context);
/* Replace characters outside [A-Za-z0-9_-] with '_'. */
char *mhlReportIdent(const char *s);
/*
 * Write @data to @name (a file, or records/FILE) below the directory
 * descriptor @dirfd (@dir: its path, for messages) atomically: a new file
 * renamed over the name, no link followed on the way (mhlFileWriteAt).
 * -1 + mhlError.
 */
int mhlReportFileWrite(int dirfd, const char *dir, const char *name, const char *data, gssize len);

/* One row of --compare: a trial id seen in either run. */
typedef struct {
	char *trial;
	json_object *before;	/* OTHER_RUN's record or NULL */
	json_object *after;	/* RUN_DIR's record or NULL */
	int rank;		/* 0 regression, 1 improvement, 2 other change, 3 same, 4 only in one run */
	char *what;		/* "verdict pass -> fail; reached 0 -> 256 MiB; ..." */
} mhlCompareRow;

/* The host_identity fields two records disagree on, "qemu A -> B, kernel C -> D"; NULL if none. */
char *mhlHostIdentityDiff(json_object *a, json_object *b);

/* Rows sorted regressions first, then improvements, changes, unchanged. */
GPtrArray *mhlCompareRuns(const mhlRun *now, const mhlRun *before);
extern const char *const mhlCompareRankNames[5];

int mhlReportHtml(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportJunit(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportKtap(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);
int mhlReportKcidb(const mhlRun *run, const mhlReportOpts *opts, const char *outdir);

/*
 * A soak's record (one with "soak"): write OUTDIR/soak.html (its series with
 * the fitted lines, the trend findings, the slab caches grown; soak-page.c)
 * and append the findings and a link to it to @out, the trial's section of
 * index.html. 0 (nothing done) for any other record; -1 + mhlError.
 */
int mhlSoakPage(GString *out, const mhlRun *run, json_object *rec, const char *outdir, int outfd);

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
