/* queue.h - the -j queue: trials on up to N guests at once, one thread each. */
#ifndef MHL_TRIAL_QUEUE_H
#define MHL_TRIAL_QUEUE_H

#include <glib.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>

#include "trial/trial.h"

/* One trial of a run: its scenario, kernel, and (once run) its record. */
typedef struct {
	mhlScenario *s;
	char *image;		/* bzImage */
	json_object *identity;	/* the kernel's, for the record */
	GPtrArray *skips;	/* per step: NULL, or why this kernel cannot run it (mhlKernelResolve) */
	char *initrd;		/* the guest image with the kernel's modules appended; NULL: the run's */
	json_object *rec;	/* NULL: never started (interrupted first) */
	mhlVerdict verdict;
	/* a fleet run */
	int attempts;		/* attempts that ended with a record */
	mhlFleetHost *lost_on;	/* the host that went away under it: not there again */
	mhlFleetHost *ran_on;	/* where its record comes from */
} mhlJob;

void mhlJobFree(mhlJob *j);

/*
 * Run every job of @jobs (mhlJob *) on @conn with @nthreads guests at once,
 * each from @base with its own place, kernel and identity; progress lines
 * ("[k/n] trial: start ...", "... : verdict (s)") on stderr unless quiet.
 * Stops taking jobs at a signal; jobs never started keep rec NULL.
 */
void mhlQueueRun(virConnectPtr conn, const mhlRunConfig *base, GPtrArray *jobs, int nthreads);

/*
 * queue-fleet.c: the same over the hosts of a fleet run (mhlFleetHost *,
 * connected, each with its slots): one worker per slot takes the next job
 * its host can take (the scenario's host_labels, not the host it was lost
 * on), after uploading its kernel and guest image there. A job whose host
 * goes away during it is recorded as error and queued once more; a host
 * that went away takes no more jobs. Jobs no live host can take keep their
 * last record (or none).
 */
void mhlQueueRunFleet(GPtrArray *hosts, const mhlRunConfig *base, GPtrArray *jobs);

#endif
