/* soak-int.h - what the files of soak/ share: the run directory's state and files. */
#ifndef MHL_SOAK_INT_H
#define MHL_SOAK_INT_H

#include "record/record.h"
#include "soak/soak.h"

/* Where a soak stands, from its checkpoints. */
typedef struct {
	int last_cycle;		/* 0: none */
	int segment;		/* of the last checkpoint */
	double elapsed;		/* soak time at the last checkpoint */
	int findings;
} mhlSoakState;

/* Read checkpoints.jsonl back: they must be cycles 1..N in order. -1 + mhlError. */
int mhlSoakCheckpointsLoad(const char *path, mhlSoakState *st);

/* OUTDIR/soak.json of a soak to resume; NULL + mhlError. */
json_object *mhlSoakMetaLoad(const char *outdir);
/* Create OUTDIR and its soak.json for a new soak; NULL + mhlError (one is there already, ...). */
json_object *mhlSoakMetaCreate(const char *outdir, const mhlScenario *s, const char *scenario,
			       guint64 seed, double duration, int cycles);

/* The soak's own record, appended to OUTDIR/trials.jsonl. */
int mhlSoakRecord(const char *outdir, const mhlScenario *s, json_object *meta, json_object *identity,
		  const char *accel, const mhlSoakState *st, json_object *first_finding,
		  json_object *kernel_reports, int cycles_run_now, double seg_seconds);

#endif
