/*
 * queue-fleet.c - the queue of a fleet run: a worker thread per slot of
 * each host, all taking from one list of pending jobs (fleet/work.c); a job
 * goes to the first free slot of a host it may run on. A job whose host went
 * away during it goes back to the end of the list once, barred from that
 * host.
 */
#include <glib.h>

#include "trial/queue.h"

#include <stdio.h>

#include "util.h"

typedef struct {
	GPtrArray *jobs;
	const mhlRunConfig *base;
} mhlFleetQueue;

static bool jobFits(int i, const mhlFleetHost *h, void *opaque)
{
	const mhlJob *j = ((mhlFleetQueue *)opaque)->jobs->pdata[i];

	return j->lost_on != h && mhlFleetHostHasLabels(h, j->s->host_labels);
}

/* The kernel and guest image on @h; false (the host marked lost, the job back in the list) if not. */
static bool jobUpload(mhlJob *j, mhlFleetHost *h, const mhlRunConfig *base, char **kernel, char **initrd)
{
	if ((*kernel = mhlFleetUpload(h, j->image)) && (*initrd = mhlFleetUpload(h, j->initrd ? j->initrd : base->initrd)))
		return true;
	fprintf(stderr, "memhp-lab: host '%s' takes no more trials: %s\n", h->uri, mhlErrorLast());
	mhlFleetHostSetLost(h, mhlErrorLast());
	mhlErrorReset();
	return false;
}

/* Run job @i on @h; true when it is to run once more elsewhere. */
static bool fleetJobRun(int i, mhlFleetHost *h, void *opaque)
{
	mhlFleetQueue *q = opaque;
	mhlRunConfig cfg = *q->base;
	mhlJob *j = q->jobs->pdata[i];
	g_autofree char *kernel = NULL, *initrd = NULL;
	json_object *rec = NULL;
	const char *reason;

	if (!jobUpload(j, h, q->base, &kernel, &initrd))
		return true;
	cfg.index = i + 1;
	cfg.total = (int)q->jobs->len;
	cfg.uri = h->uri;
	cfg.host = h;
	cfg.attempt = j->attempts + 1;
	cfg.requeue = j->attempts == 0;
	cfg.kernel_image = kernel;
	cfg.initrd = initrd;
	cfg.kernel_identity = j->identity;
	cfg.skips = j->skips;
	if (!cfg.quiet)
		fprintf(stderr, "memhp-lab: [%d/%d] %s: start on host %s%s, kernel %s, pin_policy %s\n", cfg.index,
			cfg.total, j->s->name, h->uri, cfg.attempt > 1 ? " (attempt 2)" : "", j->s->kernel,
			j->s->pin_policy);
	j->verdict = mhlTrialRun(h->conn, &cfg, j->s, &rec);
	json_object_put(j->rec);
	j->rec = rec;
	j->ran_on = h;
	j->attempts++;
	reason = mhlJStr(rec, MHL_K_REASON, "");
	if (!cfg.quiet)
		fprintf(stderr, "memhp-lab: [%d/%d] %s: %s on %s (%.1f s)%s%s\n", cfg.index, cfg.total, j->s->name,
			mhlVerdictNames[j->verdict], h->uri, mhlJDbl(rec, MHL_K_SECONDS, 0), *reason ? ": " : "", reason);
	if (!mhlJBool(rec, MHL_K_REQUEUED, false))
		return false;
	j->lost_on = h;
	return true;
}

void mhlQueueRunFleet(GPtrArray *hosts, const mhlRunConfig *base, GPtrArray *jobs)
{
	mhlFleetQueue q = { .jobs = jobs, .base = base };

	mhlFleetWorkRun(hosts, &(mhlFleetJobs){ .njobs = (int)jobs->len, .fits = jobFits, .run = fleetJobRun,
						 .opaque = &q });
}
