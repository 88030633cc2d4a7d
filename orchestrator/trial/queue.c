/*
 * queue.c - the -j queue: worker threads sharing one libvirt connection take
 * the next trial until none is left (or a signal came). Each trial appends
 * its own record as it ends.
 */
#include <glib.h>

#include "trial/queue.h"

#include <pthread.h>
#include <stdio.h>

#include "scenario/names.h"
#include "util.h"

typedef struct {
	GPtrArray *jobs;
	int next;
	pthread_mutex_t lock;	/* next */
	virConnectPtr conn;
	const mhlRunConfig *base;
} mhlQueue;

void mhlJobFree(mhlJob *j)
{
	mhlScenarioFree(j->s);
	g_free(j->image);
	g_free(j->initrd);
	json_object_put(j->identity);
	if (j->skips)
		g_ptr_array_unref(j->skips);
	json_object_put(j->rec);
	g_free(j);
}

static void jobRun(mhlQueue *q, int i)
{
	mhlRunConfig cfg = *q->base;
	mhlJob *j = q->jobs->pdata[i];
	const char *reason;

	cfg.index = i + 1;
	cfg.total = (int)q->jobs->len;
	cfg.kernel_image = j->image;
	cfg.kernel_identity = j->identity;
	cfg.skips = j->skips;
	if (j->initrd)
		cfg.initrd = j->initrd;
	if (!cfg.quiet)
		fprintf(stderr, "memhp-lab: [%d/%d] %s: start on kernel %s, pin_policy %s%s%s\n",
			cfg.index, cfg.total, j->s->name, j->s->kernel, j->s->pin_policy,
			mhlStackOf(j->s->stack)->built ? ", stack " : "", mhlStackOf(j->s->stack)->built ? j->s->stack : "");
	/* a daemon-restart step of an earlier trial (-j 1) may have replaced the run's connection */
	j->verdict = mhlTrialRun(cfg.connp ? *cfg.connp : q->conn, &cfg, j->s, &j->rec);
	reason = mhlJStr(j->rec, MHL_K_REASON, "");
	if (!cfg.quiet)
		fprintf(stderr, "memhp-lab: [%d/%d] %s: %s (%.1f s)%s%s\n", cfg.index, cfg.total,
			j->s->name, mhlVerdictNames[j->verdict], mhlJDbl(j->rec, MHL_K_SECONDS, 0),
			*reason ? ": " : "", reason);
}

static void *worker(void *opaque)
{
	mhlQueue *q = opaque;

	for (;;) {
		int i;

		pthread_mutex_lock(&q->lock);
		i = q->next++;
		pthread_mutex_unlock(&q->lock);
		if (i >= (int)q->jobs->len || mhlInterrupted)
			return NULL;
		jobRun(q, i);
	}
}

void mhlQueueRun(virConnectPtr conn, const mhlRunConfig *base, GPtrArray *jobs, int nthreads)
{
	mhlQueue q = { .jobs = jobs, .conn = conn, .base = base, .lock = PTHREAD_MUTEX_INITIALIZER };
	g_autofree pthread_t *threads = g_new0(pthread_t, nthreads);
	int i;

	for (i = 0; i < nthreads; i++)
		pthread_create(&threads[i], NULL, worker, &q);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
}
