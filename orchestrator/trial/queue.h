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
} mhlJob;

void mhlJobFree(mhlJob *j);

/*
 * Run every job of @jobs (mhlJob *) on @conn with @nthreads guests at once,
 * each from @base with its own place, kernel and identity; progress lines
 * ("[k/n] trial: start ...", "... : verdict (s)") on stderr unless quiet.
 * Stops taking jobs at a signal; jobs never started keep rec NULL.
 */
void mhlQueueRun(virConnectPtr conn, const mhlRunConfig *base, GPtrArray *jobs, int nthreads);

#endif
