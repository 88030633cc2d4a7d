/* soak.h - `memhp-lab soak`: one long-lived guest, a seeded schedule, checkpoints (docs/soak.md). */
#ifndef MHL_SOAK_H
#define MHL_SOAK_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "fleet/fleet.h"
#include "scenario/scenario.h"

typedef struct {
	const char *scenario;	/* the guest: nodes, kernel, pin_policy, cmdline; steps unused */
	const char *outdir;	/* -o DIR (new soak) */
	const char *resume;	/* --resume RUN_DIR: continue after its last checkpoint */
	/*
	 * The directory --resume named (a soak's, or a fleet soak's parent of
	 * seed-S/): data from elsewhere; the scenario its soak.json names must
	 * pass mhlRunDirPath outside it. NULL: a soak this run began.
	 */
	const char *untrusted;
	double duration_s;	/* soak time (segments' time, not the gaps between them); 0: until cycles */
	int cycles;		/* at most this many cycles (0: no limit) */
	guint64 seed;
	bool print_schedule;	/* --print-schedule: the first `cycles` cycles as JSON, no guest */
	bool quiet;
	const char *uri, *initrd, *tmpl, *srcdir, *cache;
	/* --kernel: the scenario's kernel overridden as run --kernel does; kept in soak.json for --resume */
	const char *kernel;
	/* --stack: the scenario's stack overridden (docs/stacks.md); the stack a soak runs on is kept in soak.json */
	const char *stack;
	double agent_deadline;
	/*
	 * A fleet host (soak/fleet-soak.c, docs/fleet.md): the guest runs there,
	 * its kernel and image uploaded, its console streamed into the run
	 * directory, autodestroyed with the connection. NULL: @uri or embedded.
	 */
	mhlFleetHost *host;
	const char *tag;	/* who this soak is in progress lines ("seed 2"), NULL: none */
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

/* How one soak segment ended (mhlSoakRunOutcome). */
typedef struct {
	char *outdir;		/* the run directory, once known (absolute), else NULL */
	bool recorded;		/* the soak's record is in its trials.jsonl: it is over */
	bool host_lost;		/* o->host went away during the segment: no checkpoint for the cycle it cut, no record */
	char *why;		/* host_lost: the host's reason and what failed */
	int first_cycle;	/* the segment's first cycle */
	int cycles;		/* checkpoints after it (the last cycle recorded) */
	int segment;
	int findings;		/* of the whole soak so far */
} mhlSoakOutcome;

/* mhlSoakRun, telling how the segment ended in *out (cleared with mhlSoakOutcomeClear). */
int mhlSoakRunOutcome(const mhlSoakOptions *o, mhlSoakOutcome *out);
void mhlSoakOutcomeClear(mhlSoakOutcome *out);

/*
 * soak/fleet-soak.c: `soak --host URI... | --hosts FILE [--seeds LIST]`:
 * one soak per seed at once, each in DIR/seed-S/ on a slot of a host
 * (docs/soak.md "Soaks over hosts"). @base: the scenario, duration, cycles,
 * quiet and paths of every soak; base->outdir the parent DIR, base->resume a
 * parent DIR to resume (or one seed's run directory).
 */
typedef struct {
	mhlSoakOptions base;
	const char *hosts;	/* --host URIs, newline-separated; NULL */
	const char *hosts_file;	/* --hosts FILE; NULL */
	const char *seeds;	/* --seeds LIST; NULL: seeds 1..N, one per slot */
} mhlSoakFleetOptions;

/* "1,2,3", "1-4", "2,5-7" into guint64 seeds (@out), each once, at most 1024. -1 + mhlError. */
int mhlSoakSeedsParse(const char *list, GArray *out);
/* Whether @dir is the parent directory of soaks over hosts (its soak.json names seeds). */
bool mhlSoakFleetDir(const char *dir);
/*
 * Run (or resume) them; the run directories whose record was written are
 * added to @outdirs (char *), for the caller to render. Exit status: 0 every
 * soak passed, 1 one did not (findings, interrupted, unfinished), 2 usage.
 */
int mhlSoakFleetRun(const mhlSoakFleetOptions *o, GPtrArray *outdirs);

#endif
