/*
 * work.c - the slots of a fleet's hosts and the pending jobs they take from
 * (a run's trials, trial/queue-fleet.c; a fleet soak's seeds,
 * soak/fleet-soak.c): a worker thread per slot takes the first job that fits
 * its host, waits while jobs still run (one may come back), and gives up
 * when none ever will.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <time.h>

#include "util.h"

typedef struct {
	const mhlFleetJobs *jobs;
	GQueue pending;		/* job indices + 1 */
	int running;
	pthread_mutex_t lock;	/* pending, running */
	pthread_cond_t cond;	/* a job ended (maybe back in the list) */
} mhlFleetWork;

typedef struct {
	mhlFleetWork *w;
	mhlFleetHost *h;
	int first;		/* a job index + 1 handed to this slot at the start, 0: none */
} mhlFleetSlot;

/* Jobs @from..njobs-1 pending, @from already handed out (0..@from-1). */
static void workInit(mhlFleetWork *w, int from)
{
	int i;

	g_queue_init(&w->pending);
	for (i = from; i < w->jobs->njobs; i++)
		g_queue_push_tail(&w->pending, GINT_TO_POINTER(i + 1));
	w->running = from;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
}

static void workClear(mhlFleetWork *w)
{
	g_queue_clear(&w->pending);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

/* The first pending job @h may take, waiting while others run; -1 when none ever will. */
static int workNext(mhlFleetWork *w, mhlFleetHost *h)
{
	int i = -1;

	pthread_mutex_lock(&w->lock);
	while (i < 0 && !mhlInterrupted) {
		g_autofree char *lost = mhlFleetHostLost(h);
		GList *l;

		if (lost)
			break;
		for (l = w->pending.head; l && i < 0; l = l->next) {
			if (w->jobs->fits(GPOINTER_TO_INT(l->data) - 1, h, w->jobs->opaque)) {
				i = GPOINTER_TO_INT(l->data) - 1;
				g_queue_delete_link(&w->pending, l);
				w->running++;
			}
		}
		/* only a running job can come back to the list: with none running, nothing changes for us */
		if (i < 0 && !w->running)
			break;
		if (i < 0) {
			struct timespec ts;

			/* a signal or the host's end is seen within a second */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return i;
}

/* Job @i ended on @h: back at the end of the list when @again, else counted in h->ran. */
static void workEnd(mhlFleetWork *w, int i, bool again, mhlFleetHost *h)
{
	pthread_mutex_lock(&w->lock);
	w->running--;
	if (again && !mhlInterrupted)
		g_queue_push_tail(&w->pending, GINT_TO_POINTER(i + 1));
	else
		h->ran++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *workWorker(void *opaque)
{
	mhlFleetSlot *slot = opaque;
	mhlFleetWork *w = slot->w;
	int i = slot->first - 1;

	while (i >= 0 || (i = workNext(w, slot->h)) >= 0) {
		workEnd(w, i, w->jobs->run(i, slot->h, w->jobs->opaque), slot->h);
		i = -1;
	}
	/* a slot that goes: the others may now be the only ones left for what is pending */
	pthread_mutex_lock(&w->lock);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * The slots of the connected hosts in the order their workers start: host
 * by host, or in turn over the hosts with the first jobs handed to them
 * (jobs->spread). How many jobs were handed out in *started.
 */
static GArray *workSlots(mhlFleetWork *w, GPtrArray *hosts, int *started)
{
	GArray *slots = g_array_new(FALSE, TRUE, sizeof(mhlFleetSlot));
	int k, more = 1;
	guint i;

	*started = 0;
	for (i = 0; !w->jobs->spread && i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		for (k = 0; h->conn && k < h->slots; k++)
			g_array_append_val(slots, ((mhlFleetSlot){ .w = w, .h = h }));
	}
	for (k = 0; w->jobs->spread && more; k++) {
		more = 0;
		for (i = 0; i < hosts->len; i++) {
			mhlFleetHost *h = hosts->pdata[i];
			mhlFleetSlot s = { .w = w, .h = h };

			if (!h->conn || k >= h->slots)
				continue;
			if ((int)slots->len < w->jobs->njobs)
				s.first = ++*started;
			g_array_append_val(slots, s);
			more = 1;
		}
	}
	return slots;
}

void mhlFleetWorkRun(GPtrArray *hosts, const mhlFleetJobs *jobs)
{
	mhlFleetWork w = { .jobs = jobs };
	g_autoptr(GArray) slots = NULL;
	g_autofree pthread_t *threads = NULL;
	int started;
	guint i;

	slots = workSlots(&w, hosts, &started);
	workInit(&w, started);
	threads = g_new0(pthread_t, MAX(slots->len, 1));
	for (i = 0; i < slots->len; i++)
		pthread_create(&threads[i], NULL, workWorker, &g_array_index(slots, mhlFleetSlot, i));
	for (i = 0; i < slots->len; i++)
		pthread_join(threads[i], NULL);
	workClear(&w);
}
