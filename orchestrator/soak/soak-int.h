/* soak-int.h - what the files of soak/ share: the run directory's state and files. */
#ifndef MHL_SOAK_INT_H
#define MHL_SOAK_INT_H

#include "record/record.h"
#include "soak/soak.h"
#include "soak/trend.h"

/* Where a soak stands, from its checkpoints. */
typedef struct {
	int last_cycle;		/* 0: none */
	int segment;		/* of the last checkpoint */
	double elapsed;		/* soak time at the last checkpoint */
	int findings;
} mhlSoakState;

/* Read checkpoints.jsonl back: they must be cycles 1..N in order. -1 + mhlError. */
int mhlSoakCheckpointsLoad(const char *path, mhlSoakState *st);

/*
 * One soak per directory at a time: an exclusive flock on DIR/soak.json
 * (O_CLOEXEC: no QEMU inherits it), held until the fd is closed; two at once
 * would both append the next cycle. A soak's run directory (soak.c) and the
 * parent of soaks over hosts (fleet-soak.c) take it, new or resumed. The fd,
 * or -1 + mhlError naming the file and, when /proc/locks tells, the process
 * that holds it.
 */
int mhlSoakLock(const char *dir);

/* OUTDIR/soak.json of a soak to resume; NULL + mhlError. */
json_object *mhlSoakMetaLoad(const char *outdir);
/*
 * The scenario a soak.json in @metadir names, from a directory that is data
 * (--resume, docs/security.md): mhlRunDirPath outside @rundir, a .yaml
 * file. 0, or -1 + mhlError.
 */
int mhlSoakScenarioTrusted(const char *rundir, const char *metadir, const char *scenario);
/* Create OUTDIR and its soak.json for a new soak; NULL + mhlError (one is there already, ...). */
json_object *mhlSoakMetaCreate(const char *outdir, const mhlScenario *s, const char *scenario,
			       guint64 seed, double duration, int cycles, const char *kernel);

/* What the soak's own record is made of (mhlSoakRecord). */
typedef struct {
	const char *outdir;	/* the run directory: the record goes to its trials.jsonl */
	const mhlScenario *s;
	json_object *meta;	/* soak.json */
	json_object *identity;	/* the kernel's */
	json_object *host_identity;	/* its host_identity (mhlHostIdentityConn); NULL: none */
	json_object *host;	/* its "host": the memory backing and the hugepage pool grown (mhlTrialHostFacts); NULL: none */
	const char *accel;
	const mhlSoakState *st;	/* where the soak stands after this segment */
	json_object *first_finding;	/* for the reason */
	json_object *kernel_reports;	/* its console_findings */
	json_object *soak;	/* its "soak": trends, slab growth (soakEnd); NULL: none */
	int cycles_run_now;	/* cycles of this segment */
	double seg_seconds;	/* this segment's time, for its cycles per hour */
} mhlSoakRecordFacts;

/* The soak's own record, appended to OUTDIR/trials.jsonl. 0, or -1 + mhlError. */
int mhlSoakRecord(const mhlSoakRecordFacts *r);

/*
 * A soak guest's memory series (series.c, docs/soak.md "Trends"): what each
 * series' fits need of the checkpoints taken so far, in memory that does
 * not grow with the cycles (running sums; a Theil-Sen series' points, at
 * most MHL_SOAK_SEN_KEEP), the first and the last slabinfo, the series
 * already flagged.
 */
#define MHL_SOAK_SEN_KEEP (2 * MHL_TREND_SEN_MAX)	/* then pairs of points become their mean */

typedef struct {
	size_t n;		/* points taken (past the warm-up, measured) */
	double first_cycle;	/* the first one's */
	double last_hour;	/* the last one's, soak hours */
	mhlTrendSums cycles, hours;	/* least squares against cycles and against hours */
	GArray *sen;		/* Theil-Sen: {cycle, hour, y} (mhlSoakSenPoint), else NULL */
} mhlSoakSeriesFit;

typedef struct {
	mhlSoakSeriesFit fit[MHL_SOAK_SERIES_MAX];
	size_t checkpoints;	/* of this guest, added so far */
	double t0;		/* soak seconds of its first */
	json_object *slab_first, *slab_last;	/* {cache: [active_objs, num_objs, bytes]} */
	int slab_first_cycle, slab_last_cycle;
	guint active;		/* bit i: series i is a finding now (raised, not withdrawn) */
	GArray *events;		/* mhlSoakTrendEvent: each raising and its withdrawal, in order */
	size_t events_lost;	/* raisings past MHL_SOAK_EVENTS_MAX: counted, not kept */
} mhlSoakSeries;

/* A series raised as a finding at a judgement, and withdrawn at a later one (cycle -1: not). */
typedef struct {
	size_t series;
	int raised_cycle, withdrawn_cycle;
	double raised_t, withdrawn_t;	/* soak seconds */
} mhlSoakTrendEvent;
#define MHL_SOAK_EVENTS_MAX 64

void mhlSoakSeriesInit(mhlSoakSeries *ss);
void mhlSoakSeriesClear(mhlSoakSeries *ss);
/* Series @i's name (mhlSoakSeriesNames), NULL past the last one. */
const char *mhlSoakSeriesName(size_t i);
/* A checkpoint's counters; @slabinfo when it dropped the caches first. */
void mhlSoakSeriesAdd(mhlSoakSeries *ss, int cycle, double t, json_object *counters, bool dropped,
		      json_object *slabinfo);
/*
 * Fit every series with enough points and judge it again with all of them:
 * a series significant and over its budget (@s's soak.budgets, else the
 * default) is raised, {t, cycle, kind: "trend", text, series[, caches]}
 * appended to @findings; a raised series whose interval now includes 0, or
 * whose projection falls within its budget, is withdrawn, {t, cycle, kind:
 * "trend_withdrawn", text, series} appended (mhlSoakFindingCounts: not a
 * finding). @final: the soak's last judgement, which appends every series
 * raised at its end (what the verdict counts). One row per fitted series
 * to @table when not NULL. How many series are raised now.
 */
int mhlSoakSeriesJudge(mhlSoakSeries *ss, const mhlScenario *s, int cycle, double t,
		       json_object *findings, json_object *table, bool final);
/* The raisings and withdrawals so far: [{series, raised_cycle, raised_t, withdrawn_cycle?, withdrawn_t?}]. */
json_object *mhlSoakSeriesEvents(const mhlSoakSeries *ss);
/*
 * Whether finding @f counts towards a soak's verdict as it is made: a trend
 * is judged again at every checkpoint, and only those still raised at the
 * end count (soakEnd); the others do at once.
 */
bool mhlSoakFindingCounts(json_object *f);
#define MHL_SOAK_SLAB_ROWS 15	/* caches kept in a slab growth table */
/* The caches of slabinfo @last that grew since @first, by bytes of objects, at most @max: [{name, objects, bytes, slab_bytes, objsize, ...}]. */
json_object *mhlSoakSlabGrowth(json_object *first, json_object *last, size_t max);

#endif
