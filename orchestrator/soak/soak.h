/* soak.h - `memhp-lab soak`: one long-lived guest, a seeded schedule, checkpoints (docs/soak.md). */
#ifndef MHL_SOAK_H
#define MHL_SOAK_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario/scenario.h"

typedef struct {
	const char *scenario;	/* the guest: nodes, kernel, pin_policy, cmdline; steps unused */
	const char *outdir;	/* -o DIR (new soak) */
	const char *resume;	/* --resume RUN_DIR: continue after its last checkpoint */
	double duration_s;	/* soak time (segments' time, not the gaps between them); 0: until cycles */
	int cycles;		/* at most this many cycles (0: no limit) */
	guint64 seed;
	bool print_schedule;	/* --print-schedule: the first `cycles` cycles as JSON, no guest */
	bool quiet;
	const char *uri, *initrd, *tmpl, *srcdir, *cache;
	double agent_deadline;
} mhlSoakOptions;

/* What cycle @cycle (1-based) of the schedule of @seed does: a pure function of both. */
typedef struct {
	int cycle;
	int node;		/* the node whose virtio-mem is resized and pinned on */
	const char *workload;	/* gup or io_uring */
	uint64_t pin_bytes;
	uint64_t requested_bytes;	/* the unplug's target; then back to the full size */
	uint64_t full_bytes;	/* the node's virtio-mem requested at boot */
} mhlSoakCycle;

/* -1 + mhlError if the scenario has no virtio-mem device to resize. */
int mhlSoakSchedule(const mhlScenario *s, guint64 seed, int cycle, mhlSoakCycle *c);
json_object *mhlSoakCycleJSON(const mhlSoakCycle *c);

/* "90s", "30m", "8h", "2d", "1h30m" -> seconds; -1 if not a duration. */
double mhlSoakDurationParse(const char *s);

/*
 * Run (or resume) a soak. Exit status: 0 no finding, 1 findings or
 * interrupted, 2 usage/setup. *outdir: the run directory once the soak's
 * record is written (for the caller to render the reports), else NULL.
 */
int mhlSoakRun(const mhlSoakOptions *o, char **outdir);

#endif
