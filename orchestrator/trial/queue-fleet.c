/*
 * queue-fleet.c - the queue of a fleet run: a worker thread per slot of
 * each host, all taking from one list of pending jobs; a job goes to the
 * first free slot of a host it may run on. A job whose host went away during
 * it goes back to the end of the list once, barred from that host.
 */
#include <glib.h>

#include "trial/queue.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "util.h"

typedef struct {
	GPtrArray *jobs;
	GQueue pending;		/* job indices + 1 */
	int running;
	pthread_mutex_t lock;	/* pending, running */
	pthread_cond_t cond;	/* a job ended (maybe queued again) */
	const mhlRunConfig *base;
} mhlFleetQueue;

typedef struct {
	mhlFleetQueue *q;
	mhlFleetHost *h;
} mhlFleetSlot;

static bool jobFits(const mhlJob *j, const mhlFleetHost *h)
{
	return j->lost_on != h && mhlFleetHostHasLabels(h, j->s->host_labels);
}

/* The next job this host may take, or -1 when none ever will (done, host lost, signal). */
static int fleetNext(mhlFleetQueue *q, mhlFleetHost *h)
{
	int i = -1;

	pthread_mutex_lock(&q->lock);
	while (i < 0 && !mhlInterrupted) {
		g_autofree char *lost = mhlFleetHostLost(h);
		GList *l;

		if (lost)
			break;
		for (l = q->pending.head; l && i < 0; l = l->next) {
			if (jobFits(q->jobs->pdata[GPOINTER_TO_INT(l->data) - 1], h)) {
				i = GPOINTER_TO_INT(l->data) - 1;
				g_queue_delete_link(&q->pending, l);
				q->running++;
			}
		}
		/* only a running job can come back to the list: with none running, nothing changes for us */
		if (i < 0 && !q->running)
			break;
		if (i < 0) {
			struct timespec ts;

			/* a signal or the host's end is seen within a second */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&q->cond, &q->lock, &ts);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return i;
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
static bool fleetJobRun(mhlFleetQueue *q, mhlFleetHost *h, int i)
{
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

static void *fleetWorker(void *opaque)
{
	mhlFleetSlot *slot = opaque;
	mhlFleetQueue *q = slot->q;
	int i;

	while ((i = fleetNext(q, slot->h)) >= 0) {
		bool again = fleetJobRun(q, slot->h, i);

		pthread_mutex_lock(&q->lock);
		q->running--;
		if (again && !mhlInterrupted)
			g_queue_push_tail(&q->pending, GINT_TO_POINTER(i + 1));
		else
			slot->h->ran++;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
	/* a host that goes: the others may now be the only ones left for what is pending */
	pthread_mutex_lock(&q->lock);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

void mhlQueueRunFleet(GPtrArray *hosts, const mhlRunConfig *base, GPtrArray *jobs)
{
	mhlFleetQueue q = { .jobs = jobs, .base = base, .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	g_autoptr(GArray) slots = g_array_new(FALSE, TRUE, sizeof(mhlFleetSlot));
	g_autofree pthread_t *threads = NULL;
	guint i, n;
	int k;

	g_queue_init(&q.pending);
	for (i = 0; i < jobs->len; i++)
		g_queue_push_tail(&q.pending, GINT_TO_POINTER(i + 1));
	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		for (k = 0; h->conn && k < h->slots; k++)
			g_array_append_val(slots, ((mhlFleetSlot){ .q = &q, .h = h }));
	}
	n = slots->len;
	threads = g_new0(pthread_t, MAX(n, 1));
	for (i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, fleetWorker, &g_array_index(slots, mhlFleetSlot, i));
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	g_queue_clear(&q.pending);
}
