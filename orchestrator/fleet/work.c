/*
 * work.c - the list of pending jobs a fleet's slots take from (a run's
 * trials, trial/queue-fleet.c; a fleet soak's seeds, soak/fleet-soak.c): a
 * slot takes the first job that fits its host, waits while jobs still run
 * (one may come back), and gives up when none ever will.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <time.h>

#include "util.h"

void mhlFleetWorkInit(mhlFleetWork *w, int from, int n, int running)
{
	int i;

	g_queue_init(&w->pending);
	for (i = from; i < n; i++)
		g_queue_push_tail(&w->pending, GINT_TO_POINTER(i + 1));
	w->running = running;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
}

void mhlFleetWorkClear(mhlFleetWork *w)
{
	g_queue_clear(&w->pending);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

int mhlFleetWorkNext(mhlFleetWork *w, mhlFleetHost *h, mhlFleetFits fits, void *opaque)
{
	int i = -1;

	pthread_mutex_lock(&w->lock);
	while (i < 0 && !mhlInterrupted) {
		g_autofree char *lost = mhlFleetHostLost(h);
		GList *l;

		if (lost)
			break;
		for (l = w->pending.head; l && i < 0; l = l->next) {
			if (fits(GPOINTER_TO_INT(l->data) - 1, h, opaque)) {
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

void mhlFleetWorkEnd(mhlFleetWork *w, int i, bool again, mhlFleetHost *h)
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

void mhlFleetWorkLeave(mhlFleetWork *w)
{
	/* a host that goes: the others may now be the only ones left for what is pending */
	pthread_mutex_lock(&w->lock);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}
