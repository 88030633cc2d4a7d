/*
 * session.c - one running guest:
 *   domain XML -> virDomainCreateXML -> console watcher -> guest-ping ->
 *   initial plug settles; then resizes and waits on request; destroyed at the
 *   end. Domain events (plugged-size changes, a stop we did not ask for) come
 *   through host/session.c's table by domain name. Every wait has a deadline.
 */
#include <glib.h>

#include "guest/session.h"

#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/agent.h"
#include "guest/domain.h"
#include "guest/guest.h"
#include "host/session.h"
#include "record/record.h"
#include "util.h"

#define INITIAL_PLUG_DEADLINE 120	/* s */

/* The first panic/Oops the console showed as "text (console:line)", or NULL. */
static char *fatalFirst(mhlGuest *g)
{
	json_object *e = g->scan.fatal;

	return e ? g_strdup_printf("%s (%s:%d)", mhlJStr(e, MHL_K_TEXT, ""), g->console,
				   (int)mhlJInt(e, MHL_K_LINE, 0)) : NULL;
}

/*
 * The console watcher: scans the serial log while the guest runs, every
 * 0.3 s what was appended since its last look. At the first panic or Oops it
 * records the line and destroys the guest, so that whatever step is waiting
 * fails at once instead of at its deadline.
 */
static void *consoleWatch(void *opaque)
{
	mhlGuest *g = opaque;
	unsigned tick = 0;

	for (;;) {
		g_autofree char *fatal = NULL;
		bool stop;

		g_usleep(300 * 1000);
		pthread_mutex_lock(&g->lock);
		stop = g->watch_stop || g->fatal;
		pthread_mutex_unlock(&g->lock);
		if (stop)
			return NULL;
		/*
		 * The host side through the whole trial, not only around resizes
		 * (issue 32, item 10): a sample a second (one smaps read), logged
		 * to the timeline when it moved.
		 */
		if (++tick % 3 == 0 && g->hm_open)
			mhlGuestHostSample(g, NULL);
		if (mhlConsoleScanFile(&g->scan, g->console, false) < 0 || !(fatal = fatalFirst(g)))
			continue;
		pthread_mutex_lock(&g->lock);
		g->fatal = g_steal_pointer(&fatal);
		g->ending = true;
		pthread_mutex_unlock(&g->lock);
		virDomainDestroy(g->dom);
	}
}

/*
 * Domain events (host/session.h routes them by connection and domain name): a stop we did
 * not ask for marks the guest gone, a device's new plugged size goes on the
 * timeline. They run with the routing table's lock held, from just before
 * the domain is created until mhlGuestStop.
 */
static void onLifecycle(void *opaque, int event, int detail)
{
	static const char *const details[] = { "shut down", "destroyed", "crashed", "migrated",
					       "saved", "failed", "from snapshot" };
	mhlGuest *g = opaque;

	if (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_CRASHED)
		return;
	pthread_mutex_lock(&g->lock);
	/*
	 * Leaving: saved or migrated away is what we asked for. (The peer's
	 * incoming domain of the same name, ending an aborted or refused
	 * migration with STOPPED_FAILED, is not this guest: its events come on
	 * the peer's connection, which host/session.c does not route here until
	 * the guest moves there.)
	 */
	if (g->leaving && event == VIR_DOMAIN_EVENT_STOPPED &&
	    (detail == VIR_DOMAIN_EVENT_STOPPED_SAVED || detail == VIR_DOMAIN_EVENT_STOPPED_MIGRATED)) {
		pthread_mutex_unlock(&g->lock);
		return;
	}
	if (!g->ending && !g->gone)
		g->gone = g_strdup_printf("the guest %s on its own (%s)",
					  event == VIR_DOMAIN_EVENT_CRASHED ? "crashed" : "stopped",
					  event == VIR_DOMAIN_EVENT_STOPPED && detail >= 0 &&
					  detail < (int)G_N_ELEMENTS(details) ? details[detail] : "no detail");
	pthread_mutex_unlock(&g->lock);
}

static void onSizeChange(void *opaque, const char *alias, unsigned long long size_kib)
{
	mhlGuestTimelineAdd(opaque, "event", MHL_K_ALIAS, json_object_new_string(alias),
			    MHL_K_SIZE_BYTES, size_kib * 1024);
}

static void onReboot(void *opaque)
{
	mhlGuest *g = opaque;

	pthread_mutex_lock(&g->lock);
	g->resets++;
	if (!g->rebooting && !g->ending && !g->gone)
		g->gone = g_strdup("the guest rebooted on its own (a reset no reboot step asked for)");
	pthread_mutex_unlock(&g->lock);
}

/* A device's removal (or its failure): kept for mhlGuestDeviceRemoved, the oldest dropped past the array. */
static void onDeviceRemoved(void *opaque, const char *alias, bool removed)
{
	mhlGuest *g = opaque;
	int i;

	pthread_mutex_lock(&g->lock);
	if (g->ndevev == G_N_ELEMENTS(g->devev)) {
		memmove(g->devev, g->devev + 1, sizeof(g->devev) - sizeof(g->devev[0]));
		g->ndevev--;
	}
	i = g->ndevev++;
	g_strlcpy(g->devev[i].alias, alias, sizeof(g->devev[i].alias));
	g->devev[i].removed = removed;
	pthread_mutex_unlock(&g->lock);
}

int mhlGuestDeviceRemoved(mhlGuest *g, const char *alias)
{
	int i, rc = 0;

	pthread_mutex_lock(&g->lock);
	for (i = g->ndevev - 1; i >= 0 && !rc; i--)
		if (!strcmp(g->devev[i].alias, alias))
			rc = g->devev[i].removed ? 1 : -1;
	pthread_mutex_unlock(&g->lock);
	return rc;
}

static const mhlDomainEventHandlers guestEvents = {
	.lifecycle = onLifecycle,
	.size_change = onSizeChange,
	.reboot = onReboot,
	.device_removed = onDeviceRemoved,
};

void mhlGuestRebootExpect(mhlGuest *g, bool expect)
{
	pthread_mutex_lock(&g->lock);
	g->rebooting = expect;
	pthread_mutex_unlock(&g->lock);
}

int mhlGuestResets(mhlGuest *g)
{
	int n;

	pthread_mutex_lock(&g->lock);
	n = g->resets;
	pthread_mutex_unlock(&g->lock);
	return n;
}

void mhlGuestTimelineAdd(mhlGuest *g, const char *source, const char *key, json_object *who,
			 const char *sizekey, unsigned long long bytes)
{
	json_object *e;

	if (!g->cfg.timeline) {
		json_object_put(who);
		return;
	}
	e = json_object_new_object();
	json_object_object_add(e, MHL_K_T, json_object_new_double(mhlNow() - g->t0));
	json_object_object_add(e, MHL_K_SOURCE, json_object_new_string(source));
	json_object_object_add(e, key, who);
	json_object_object_add(e, sizekey, json_object_new_int64((int64_t)bytes));
	pthread_mutex_lock(&g->lock);
	json_object_array_add(g->timeline, e);
	pthread_mutex_unlock(&g->lock);
}

json_object *mhlGuestTimelineTake(mhlGuest *g)
{
	json_object *t;

	pthread_mutex_lock(&g->lock);
	t = g->timeline;
	g->timeline = json_object_new_array();
	pthread_mutex_unlock(&g->lock);
	return t;
}

mhlGuest *mhlGuestNew(const mhlGuestConfig *cfg)
{
	mhlGuest *g = g_new0(mhlGuest, 1);

	g->cfg = *cfg;
	g->name = g_strdup(cfg->name);
	g->console = g_strdup(cfg->console);
	g->cfg.name = g->name;
	g->cfg.console = g->console;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->hm_lock, NULL);
	g->timeline = json_object_new_array();
	mhlConsoleScannerInit(&g->scan, MHL_CONSOLE_FINDINGS_MAX);
	return g;
}

void mhlGuestFree(mhlGuest *g)
{
	if (!g)
		return;
	mhlGuestStop(g);
	json_object_put(g->timeline);
	mhlConsoleScannerClear(&g->scan);
	mhlHostMemClear(&g->hm);
	mhlBudgetClose(&g->budget);
	pthread_mutex_destroy(&g->lock);
	pthread_mutex_destroy(&g->hm_lock);
	g_free(g->fatal);
	g_free(g->gone);
	g_free(g->name);
	g_free(g->console);
	g_free(g);
}

/* Each device's initial plug: the last one's seconds, -1 if no device. */
static int initialPlug(mhlGuest *g, const mhlScenario *s, double *plug_s)
{
	int i;

	*plug_s = -1;
	for (i = 0; i < s->nnodes; i++) {
		unsigned long long reached;

		if (!s->nodes[i].vmem_size)
			continue;
		*plug_s = mhlGuestWaitPlugged(g, i, s->nodes[i].vmem_requested, INITIAL_PLUG_DEADLINE,
					      &reached);
		if (*plug_s < 0)
			return -1;
	}
	return 0;
}

/*
 * The copy of g->dom's serial console into g->console (@mode): on this host
 * its pty is read here; elsewhere it comes back as a libvirt stream.
 */
static int consoleStart(mhlGuest *g, mhlConsoleLogMode mode)
{
	g_autofree char *live = NULL, *path = NULL;

	if (g->cfg.host_local && !g->cfg.remote &&
	    (!(live = virDomainGetXMLDesc(g->dom, 0)) || !(path = mhlDomainXMLPtyPath(live))))
		return -1;
	g->stream = mhlConsoleStreamStart(g->dom, g->console, path, mode);
	return g->stream ? 0 : -1;
}

/*
 * The guest's serial console is a pty, copied into the log by
 * guest/console-stream.c from before the first instruction (created paused,
 * resumed once the copy runs), the log capped (MEMHP_CONSOLE_MAX): a local
 * guest's pty read here, a fleet host's streamed back (docs/fleet.md). A
 * fleet guest is autodestroyed by the daemon when our connection goes, so
 * nothing of ours outlives memhp-lab there either.
 */
static int guestCreate(mhlGuest *g, virConnectPtr conn, char **xml)
{
	const mhlGuestConfig *c = &g->cfg;
	g_autofree char *pty = mhlDomainXMLConsolePty(*xml);
	g_autofree char *uri = virConnectGetURI(conn);	/* before the calls: each resets the last error */
	unsigned int flags = VIR_DOMAIN_START_PAUSED | (c->remote ? VIR_DOMAIN_START_AUTODESTROY : 0);

	if (!pty)
		return -1;
	if (!(g->dom = virDomainCreateXML(conn, pty, flags))) {
		mhlErrorVirt("cannot start domain '%s' on host '%s' (template %s)", g->name, uri,
			     g->cfg.tmpl_path);
		return -1;
	}
	if (consoleStart(g, c->console_exclusive ? MHL_CONSOLE_LOG_NEW : MHL_CONSOLE_LOG_TRUNCATE) < 0)
		return -1;
	if (virDomainResume(g->dom) < 0) {
		mhlErrorVirt("cannot resume domain '%s' on host '%s'", g->name, uri);
		return -1;
	}
	return 0;
}

/*
 * QEMU into its memory cgroup (cfg.budget_bytes; host/budget.h), once its
 * process is known: at boot, and again for the new QEMU of a restore. Not
 * enforced (the record says why) without a budget's cgroup or QEMU's pid.
 */
static void guestBudget(mhlGuest *g)
{
	if (!g->cfg.budget_bytes)
		return;
	if (!g->budget.dir && !g->budget.why && mhlBudgetOpen(&g->budget, g->name, g->cfg.budget_bytes) < 0)
		return;
	if (g->budget.dir && g->hm.pid <= 0) {
		mhlBudgetClose(&g->budget);
		g->budget.limit = g->cfg.budget_bytes;
		g->budget.why = g_strdup("QEMU's process is not known here (libvirt's memory statistics only)");
		return;
	}
	if (g->budget.dir)
		mhlBudgetEnter(&g->budget, g->hm.pid);
}

int mhlGuestBoot(mhlGuest *g, virConnectPtr conn, const mhlScenario *s, double *boot_s,
		 double *plug_s)
{
	const mhlGuestConfig *c = &g->cfg;
	g_autofree char *tmpl = mhlFileRead(c->tmpl_path, NULL), *xml = NULL;
	mhlDomainParams p = {
		.name = g->name, .accel = c->accel, .kernel = c->kernel_image, .initrd = c->initrd,
		.console_log = g->console, .emulator = c->emulator,
	};

	*boot_s = *plug_s = -1;
	if (!tmpl || !(xml = mhlDomainXMLBuild(tmpl, c->tmpl_path, s, &p)))
		return -1;
	mhlConsoleScannerClear(&g->scan);	/* a new log */
	mhlConsoleScannerInit(&g->scan, MHL_CONSOLE_FINDINGS_MAX);
	mhlDomainEventsWatch(g->name, conn, &guestEvents, g);
	g->t0 = mhlNow();
	if (guestCreate(g, conn, &xml) < 0)
		return -1;
	if (pthread_create(&g->watcher, NULL, consoleWatch, g) == 0)
		g->watching = true;
	pthread_mutex_lock(&g->hm_lock);	/* the watcher samples from now on */
	mhlHostMemClear(&g->hm);
	mhlHostMemOpen(&g->hm, g->dom, g->name, c->host_local, s, c->hugepage_kib);
	g->hm_open = true;
	g->host_changed_t = 0;
	pthread_mutex_unlock(&g->hm_lock);
	guestBudget(g);
	if ((*boot_s = mhlAgentWait(g->dom, c->agent_deadline, g->console)) < 0)
		return -1;
	return initialPlug(g, s, plug_s);
}

void mhlGuestLeave(mhlGuest *g)
{
	pthread_mutex_lock(&g->lock);
	g->leaving = true;
	pthread_mutex_unlock(&g->lock);
	pthread_mutex_lock(&g->hm_lock);
	g->hm_open = false;
	pthread_mutex_unlock(&g->hm_lock);
}

/*
 * @dom runs the guest from now on. @same_qemu (mhlGuestRehome): the QEMU is
 * the one before, reached through a new connection: a local pty read here
 * is still QEMU's and its copy goes on untouched; a stream came through the
 * old connection and starts again, appended.
 */
static int reattach(mhlGuest *g, virDomainPtr dom, const mhlScenario *s, bool host_local,
		    bool remote, bool same_qemu)
{
	int state = VIR_DOMAIN_NOSTATE, reason, i, nhot;
	bool keep = same_qemu && g->stream && host_local && !remote;
	mhlHotBackend hot[MHL_HOT_MAX];
	pid_t pid;

	/* the old QEMU is gone: the rest of its console is in the log */
	if (!keep) {
		g->console_dropped += mhlConsoleStreamStop(g->stream);
		g->stream = NULL;
	}
	if (g->dom && g->dom != dom)
		virDomainFree(g->dom);
	g->dom = dom;
	mhlDomainEventsMove(g->name, g, virDomainGetConnect(dom));
	g->cfg.host_local = host_local;
	g->cfg.remote = remote;
	if (!keep && consoleStart(g, MHL_CONSOLE_LOG_APPEND) < 0)
		goto fail;
	if (virDomainGetState(dom, &state, &reason, 0) < 0 ||
	    (state == VIR_DOMAIN_PAUSED && virDomainResume(dom) < 0)) {
		mhlErrorVirt("cannot resume domain '%s' after it came back", g->name);
		goto fail;
	}
	pthread_mutex_lock(&g->hm_lock);
	/* the devices attached so far: still there, libvirt moves them with the domain */
	nhot = g->hm.nhot;
	pid = g->hm.pid;
	memcpy(hot, g->hm.hot, sizeof(hot));
	mhlHostMemClear(&g->hm);
	mhlHostMemOpen(&g->hm, dom, g->name, host_local, s, g->cfg.hugepage_kib);
	for (i = 0; i < nhot; i++) {
		mhlHostMemHotAdd(&g->hm, hot[i].id, hot[i].node, hot[i].vmem, hot[i].size,
				 same_qemu && g->hm.pid == pid ? hot[i].start : 0);
		g->hm.hot[i].gone = hot[i].gone;
	}
	/* a new QEMU created their backends at its start: found again like the boot-time ones */
	if (nhot && !(same_qemu && g->hm.pid == pid))
		mhlHostMemHotFindAgain(&g->hm);
	if (g->hm.pid != pid && g->budget.dir)	/* the new QEMU in the same budget */
		mhlBudgetEnter(&g->budget, g->hm.pid);
	g->hm_open = true;
	g->host_changed_t = 0;
	pthread_mutex_unlock(&g->hm_lock);
	pthread_mutex_lock(&g->lock);
	g->leaving = false;
	pthread_mutex_unlock(&g->lock);
	return 0;
fail:
	mhlGuestStop(g);
	return -1;
}

int mhlGuestReattach(mhlGuest *g, virDomainPtr dom, const mhlScenario *s, bool host_local,
		     bool remote)
{
	return reattach(g, dom, s, host_local, remote, false);
}

int mhlGuestRehome(mhlGuest *g, virDomainPtr dom, const mhlScenario *s)
{
	return reattach(g, dom, s, g->cfg.host_local, g->cfg.remote, true);
}

/* The sum of a sample's backend bytes, boot-time and hot-added, into *sum; false when it read none. */
static bool backendSum(const mhlHostSample *hs, int64_t *sum)
{
	bool any = false;
	int i;

	*sum = 0;
	for (i = 0; i < MHL_MAX_NODES; i++) {
		if (hs->node_bytes[i] >= 0) {
			*sum += hs->node_bytes[i];
			any = true;
		}
	}
	for (i = 0; i < MHL_HOT_MAX; i++) {
		if (hs->hot_bytes[i] >= 0) {
			*sum += hs->hot_bytes[i];
			any = true;
		}
	}
	return any;
}

static bool hostHasBackend(const mhlHostSample *hs)
{
	int64_t sum;

	return backendSum(hs, &sum);
}

/* The figure a sample is judged by: the sum of the backends' bytes (hot-added ones too), else QEMU's resident set. */
static int64_t hostFigure(const mhlHostSample *hs)
{
	int64_t sum;

	return backendSum(hs, &sum) ? sum : hs->qemu_rss;
}

static int hostSampleLocked(mhlGuest *g, mhlHostSample *out);

int mhlGuestHostSample(mhlGuest *g, mhlHostSample *out)
{
	int rc;

	/* the steps and the console watcher's ticks both sample: one at a time */
	pthread_mutex_lock(&g->hm_lock);
	rc = hostSampleLocked(g, out);
	pthread_mutex_unlock(&g->hm_lock);
	return rc;
}

int mhlGuestHostAttach(mhlGuest *g, const char *id, int node, bool vmem, uint64_t size, uint64_t start)
{
	int k;

	pthread_mutex_lock(&g->hm_lock);
	k = mhlHostMemHotAdd(&g->hm, id, node, vmem, size, start);
	pthread_mutex_unlock(&g->hm_lock);
	return k;
}

static int hostSampleLocked(mhlGuest *g, mhlHostSample *out)
{
	mhlHostSample hs;
	char *saved;
	int64_t d;
	int rc;

	if (!g->hm_open)
		return -1;
	saved = mhlErrorSteal();
	rc = mhlHostMemSample(&g->hm, &hs);
	mhlErrorRestore(saved);
	if (rc < 0)
		return -1;
	d = llabs(hostFigure(&hs) - hostFigure(&g->host_prev));
	/* a backend's bytes move only with the guest; QEMU's own resident set never stands still */
	if (!g->host_changed_t || (hostHasBackend(&hs) ? d > 0 : d > MHL_HOST_JITTER))
		g->host_changed_t = hs.t;
	if (g->cfg.timeline && (!g->host_logged.t ||
				llabs(hostFigure(&hs) - hostFigure(&g->host_logged)) > MHL_HOST_JITTER)) {
		json_object *e = mhlHostSampleJSON(&hs, &g->hm);

		json_object_object_add(e, MHL_K_T, json_object_new_double(hs.t - g->t0));
		json_object_object_add(e, MHL_K_SOURCE, json_object_new_string("host"));
		pthread_mutex_lock(&g->lock);
		json_object_array_add(g->timeline, e);
		pthread_mutex_unlock(&g->lock);
		g->host_logged = hs;
	}
	g->host_prev = hs;
	if (out)
		*out = hs;
	return 0;
}

double mhlGuestWaitPlugged(mhlGuest *g, int node, unsigned long long want, double deadline,
			   unsigned long long *reached)
{
	double start = mhlNow(), sampled = 0;
	unsigned long long last = ~0ULL, size, req;

	for (;;) {
		if (mhlGuestVirtioMemSize(g->dom, node, &size, &req) < 0)
			return -2;
		if (mhlNow() - sampled >= 0.1) {	/* the host every 100 ms: one smaps read */
			mhlGuestHostSample(g, NULL);
			sampled = mhlNow();
		}
		if (size != last) {
			mhlGuestTimelineAdd(g, "qmp", MHL_K_NODE, json_object_new_int(node),
					    MHL_K_SIZE_BYTES, size);
			last = size;
		}
		*reached = size;
		if (size == want)
			return mhlNow() - start;
		if (mhlInterrupted) {
			mhlError("interrupted while waiting for node %d's virtio-mem to reach %llu bytes",
				 node, want);
			return -1;
		}
		if (mhlNow() - start > deadline) {
			mhlError("node %d's virtio-mem stopped at %llu bytes, not the requested %llu, after %.0f s (the guest driver retries a failed unplug on a timer from 50 s up to 300 s)",
				 node, size, want, deadline);
			return -1;
		}
		/*
		 * QMP every 20 ms for the first second (most resizes of up to a
		 * few hundred MiB converge in 0.1-0.8 s: seen up to 100 ms late
		 * at a fixed 100 ms), then every 100 ms.
		 */
		g_usleep(mhlNow() - start < 1.0 ? 20 * 1000 : 100 * 1000);
	}
}

int mhlGuestRequest(mhlGuest *g, int node, uint64_t bytes)
{
	g_autofree char *xml = virDomainGetXMLDesc(g->dom, 0);
	g_autofree char *dev = NULL;

	if (!xml) {
		mhlErrorVirt("cannot get the live XML of domain '%s'", g->name);
		return -1;
	}
	if (!(dev = mhlVirtioMemUpdateXML(xml, node, bytes / 1024)))
		return -1;
	mhlGuestTimelineAdd(g, "request", MHL_K_NODE, json_object_new_int(node),
			    MHL_K_REQUESTED_BYTES, bytes);
	if (virDomainUpdateDeviceFlags(g->dom, dev, VIR_DOMAIN_AFFECT_LIVE) < 0) {
		mhlErrorVirt("cannot set node %d's virtio-mem <requested> to %" G_GUINT64_FORMAT " bytes",
			     node, bytes);
		return -1;
	}
	return 0;
}

double mhlGuestResize(mhlGuest *g, int node, uint64_t bytes, double deadline,
		      unsigned long long *reached)
{
	*reached = 0;
	if (mhlGuestRequest(g, node, bytes) < 0)
		return -2;
	return mhlGuestWaitPlugged(g, node, bytes, deadline, reached);
}

double mhlGuestWaitConverged(mhlGuest *g, const mhlScenario *s, double deadline)
{
	double start = mhlNow();
	int i;

	for (;;) {
		bool all = true;

		for (i = 0; i < s->nnodes; i++) {
			unsigned long long size, req;

			if (!s->nodes[i].vmem_size)
				continue;
			if (mhlGuestVirtioMemSize(g->dom, i, &size, &req) < 0)
				return -1;
			if (size != req)
				all = false;
		}
		if (all)
			return mhlNow() - start;
		if (mhlInterrupted || mhlNow() - start > deadline) {
			mhlError("wait until converged: %s after %.1f s", mhlInterrupted ?
				 "interrupted" : "a virtio-mem device is still not at its request",
				 mhlNow() - start);
			return -1;
		}
		g_usleep(200 * 1000);
	}
}

int mhlGuestSleep(mhlGuest *g, double seconds)
{
	double end = mhlNow() + seconds;

	while (mhlNow() < end) {
		if (mhlInterrupted || !mhlGuestAlive(g)) {
			mhlError("wait: %s after %.1f of %.1f s",
				 mhlInterrupted ? "interrupted" : "the guest is gone",
				 seconds - (end - mhlNow()), seconds);
			return -1;
		}
		g_usleep(100 * 1000);
	}
	return 0;
}

bool mhlGuestAlive(mhlGuest *g)
{
	return g->dom && virDomainIsActive(g->dom) == 1;
}

void mhlGuestStop(mhlGuest *g)
{
	pthread_mutex_lock(&g->lock);
	g->ending = true;
	g->watch_stop = true;
	pthread_mutex_unlock(&g->lock);
	if (g->watching)
		pthread_join(g->watcher, NULL);
	g->watching = false;
	if (g->dom) {
		if (virDomainDestroy(g->dom) < 0 && virDomainIsActive(g->dom) == 1)
			fprintf(stderr, "memhp-lab: warning: cannot destroy domain '%s': %s\n",
				g->name, virGetLastErrorMessage());
		virDomainFree(g->dom);
		g->dom = NULL;
	}
	g->console_dropped += mhlConsoleStreamStop(g->stream);	/* the domain is gone: the rest of its console is here */
	g->stream = NULL;
	mhlDomainEventsUnwatch(g->name, g);
}

json_object *mhlGuestEnd(mhlGuest *g)
{
	/* the watcher has stopped: the rest of the log, to its last byte */
	mhlConsoleScanFile(&g->scan, g->console, true);
	if (!g->fatal)
		g->fatal = fatalFirst(g);
	return mhlConsoleScanFindings(&g->scan);
}
