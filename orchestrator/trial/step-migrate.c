/*
 * step-migrate.c - migrate: {to: NAME}: live-migrate the trial's guest, pins
 * held and part of its virtio-mem memory plugged, to the peer libvirt daemon
 * run --peer NAME=URI names (connected once per run, cli/run-peer.c), and go
 * on there: the later steps run on the destination's QEMU. Peer to peer
 * (VIR_MIGRATE_LIVE | VIR_MIGRATE_PEER2PEER): the source's driver (the
 * embedded one in our process, or --uri's daemon) talks to the peer itself.
 * Recorded: the lifecycle object (record.h, "lifecycle steps") with the
 * job's statistics as the destination keeps them (the source's domain is gone
 * once the migration returns), and what the guest should have cost: boot
 * memory plus plugged bytes, since QEMU sends only plugged virtio-mem blocks.
 */
#include <glib.h>

#include "trial/steps.h"

#include <libvirt/virterror.h>
#include <pthread.h>
#include <string.h>

#include "guest/agent.h"
#include "guest/domain.h"
#include "guest/guest.h"
#include "host/session.h"
#include "util.h"

/* One typed parameter of the job's statistics as a JSON number under @key, if libvirt gave it. */
static void statAdd(json_object *o, const char *key, virTypedParameterPtr p, int n, const char *field)
{
	unsigned long long v;

	if (virTypedParamsGetULLong(p, n, field, &v) == 1)
		json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

void mhlMigrateStatsJSON(virTypedParameterPtr p, int n, json_object *lc)
{
	unsigned long long zero = 0, normal = 0, page = 0, down_ms = 0;
	json_object *m = json_object_new_object();

	json_object_object_add(lc, MHL_K_MIGRATION, m);
	statAdd(m, MHL_K_DATA_TRANSFERRED_BYTES, p, n, VIR_DOMAIN_JOB_DATA_PROCESSED);
	statAdd(m, MHL_K_MEMORY_TOTAL_BYTES, p, n, VIR_DOMAIN_JOB_MEMORY_TOTAL);
	statAdd(m, MHL_K_MEMORY_TRANSFERRED_BYTES, p, n, VIR_DOMAIN_JOB_MEMORY_PROCESSED);
	statAdd(m, MHL_K_DOWNTIME_MS, p, n, VIR_DOMAIN_JOB_DOWNTIME);
	if (virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_DOWNTIME, &down_ms) == 1)
		json_object_object_add(lc, MHL_K_DOWN_S, json_object_new_double(down_ms / 1000.0));
	statAdd(m, MHL_K_TIME_ELAPSED_MS, p, n, VIR_DOMAIN_JOB_TIME_ELAPSED);
	statAdd(m, MHL_K_MEMORY_ITERATIONS, p, n, VIR_DOMAIN_JOB_MEMORY_ITERATION);
	statAdd(m, MHL_K_ZERO_PAGES, p, n, VIR_DOMAIN_JOB_MEMORY_CONSTANT);
	statAdd(m, MHL_K_NORMAL_PAGES, p, n, VIR_DOMAIN_JOB_MEMORY_NORMAL);
	if (virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_MEMORY_CONSTANT, &zero) == 1 &&
	    virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_MEMORY_NORMAL, &normal) == 1 &&
	    virTypedParamsGetULLong(p, n, VIR_DOMAIN_JOB_MEMORY_PAGE_SIZE, &page) == 1)
		json_object_object_add(m, MHL_K_MIGRATED_BYTES,
				       json_object_new_int64((int64_t)((zero + normal) * page)));
}

/*
 * The completed job's statistics as the destination keeps them (libvirt
 * hands them over in the migration cookie), into @lc (mhlMigrateStatsJSON).
 */
static void jobStats(virDomainPtr dom, json_object *lc)
{
	virTypedParameterPtr p = NULL;
	int n = 0, type;

	if (virDomainGetJobStats(dom, &type, &p, &n, VIR_DOMAIN_JOB_STATS_COMPLETED) < 0) {
		json_object *m = json_object_new_object();

		json_object_object_add(lc, MHL_K_MIGRATION, m);
		json_object_object_add(m, MHL_K_ERROR, json_object_new_string(virGetLastErrorMessage()));
		return;
	}
	mhlMigrateStatsJSON(p, n, lc);
	virTypedParamsFree(p, n);
}

/* A resize asked of the source while the migration runs (migrate: {requested}). */
typedef struct {
	virDomainPtr dom;
	char *dev;		/* the device XML with the new <requested> */
	int done;		/* the migration returned (atomic) */
	int rc;			/* virDomainUpdateDeviceFlags's */
	char *refused;		/* libvirt's message when it failed */
	double seconds;		/* from the request to libvirt's answer */
	pthread_t thread;
	bool started;
} mhlResizeDuring;

/*
 * Once the migration job runs (or after 10 s, or once it returned), ask the
 * resize. libvirt answers within its job-lock wait (30 s) at the latest: a
 * device update needs a job the outgoing migration holds.
 */
static void *resizeDuringRun(void *opaque)
{
	mhlResizeDuring *rd = opaque;
	virDomainJobInfo ji;
	double t0;
	int i;

	for (i = 0; i < 200 && !g_atomic_int_get(&rd->done); i++) {
		if (virDomainGetJobInfo(rd->dom, &ji) == 0 && ji.type != VIR_DOMAIN_JOB_NONE)
			break;
		g_usleep(50000);
	}
	t0 = mhlNow();
	if ((rd->rc = virDomainUpdateDeviceFlags(rd->dom, rd->dev, VIR_DOMAIN_AFFECT_LIVE)) < 0)
		rd->refused = g_strdup(virGetLastErrorMessage());
	rd->seconds = mhlNow() - t0;
	return NULL;
}

static int resizeDuringStart(mhlTrial *t, const mhlStep *st, const char *xml, mhlResizeDuring *rd)
{
	if (!st->resize_during)
		return 0;
	if (!(rd->dev = mhlVirtioMemUpdateXML(xml, st->node, st->requested >> 10)))
		return -1;
	rd->dom = t->g->dom;
	if (pthread_create(&rd->thread, NULL, resizeDuringRun, rd)) {
		mhlError("migrate: cannot start the thread that asks the resize during the migration");
		return -1;
	}
	rd->started = true;
	return 0;
}

/*
 * The migration's deadline: past it, its job is aborted (virDomainAbortJob:
 * QEMU cancels the outgoing migration, the guest runs on here), so a peer
 * that stalls the copy cannot hang a nightly until its timer's own timeout.
 */
typedef struct {
	virDomainPtr dom;
	double deadline;	/* seconds */
	gint done;		/* the migration returned */
	gint aborted;		/* the deadline came first, and the job was asked to abort */
	pthread_t thread;
	bool started;
} mhlMigrateWatch;

static void *watchRun(void *opaque)
{
	mhlMigrateWatch *w = opaque;
	double until = mhlNow() + w->deadline;

	while (!g_atomic_int_get(&w->done) && mhlNow() < until)
		g_usleep(20000);
	/* asked again until libvirt takes it: before the job starts (the peer's prepare) there is none to abort */
	while (!g_atomic_int_get(&w->done)) {
		if (virDomainAbortJob(w->dom) == 0) {
			g_atomic_int_set(&w->aborted, 1);
			break;
		}
		virResetLastError();
		g_usleep(20000);
	}
	return NULL;
}

/* After the migration returned: libvirt's answer, as {requested_bytes, accepted, refused, seconds}. */
static void resizeDuringEnd(const mhlStep *st, mhlResizeDuring *rd, json_object *lc)
{
	json_object *o;

	if (!rd->started)
		return;
	g_atomic_int_set(&rd->done, 1);
	pthread_join(rd->thread, NULL);
	o = json_object_new_object();
	json_object_object_add(o, MHL_K_NODE, json_object_new_int(st->node));
	json_object_object_add(o, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
	json_object_object_add(o, MHL_K_ACCEPTED, json_object_new_boolean(rd->rc == 0));
	if (rd->refused)
		json_object_object_add(o, MHL_K_REFUSED, json_object_new_string(rd->refused));
	json_object_object_add(o, MHL_K_SECONDS, json_object_new_double(rd->seconds));
	json_object_object_add(lc, MHL_K_RESIZE_DURING, o);
	g_free(rd->dev);
	g_free(rd->refused);
}

/*
 * The migration itself. The destination gets the domain's migratable XML
 * with its serial console a pty (no path of ours there). -1 + mhlError with
 * @lc's refused set to libvirt's message: the guest then still runs here.
 */
static int migrate(mhlTrial *t, const mhlStep *st, const mhlPeer *peer, json_object *lc)
{
	g_autofree char *xml = virDomainGetXMLDesc(t->g->dom, VIR_DOMAIN_XML_MIGRATABLE), *dxml = NULL;
	mhlMigrateWatch w = { .dom = t->g->dom, .deadline = st->deadline > 0 ? st->deadline : MHL_MIGRATE_DEADLINE_S };
	mhlResizeDuring rd = { 0 };
	virTypedParameterPtr p = NULL;
	int n = 0, max = 0, rc;

	if (!xml) {
		mhlErrorVirt("migrate: cannot read domain '%s''s XML", t->g->name);
		return -1;
	}
	if (!(dxml = mhlDomainXMLConsolePty(xml)) ||
	    virTypedParamsAddString(&p, &n, &max, VIR_MIGRATE_PARAM_DEST_XML, dxml) < 0 ||
	    resizeDuringStart(t, st, xml, &rd) < 0) {
		virTypedParamsFree(p, n);
		return -1;
	}
	w.started = pthread_create(&w.thread, NULL, watchRun, &w) == 0;
	rc = virDomainMigrateToURI3(t->g->dom, peer->uri, p, n, VIR_MIGRATE_LIVE | VIR_MIGRATE_PEER2PEER);
	if (rc < 0)
		json_object_object_add(lc, MHL_K_REFUSED, json_object_new_string(virGetLastErrorMessage()));
	g_atomic_int_set(&w.done, 1);
	if (w.started)
		pthread_join(w.thread, NULL);
	json_object_object_add(lc, MHL_K_DEADLINE_S, json_object_new_double(w.deadline));
	if (g_atomic_int_get(&w.aborted) && rc < 0)	/* a job that completed as the abort came was not aborted */
		json_object_object_add(lc, MHL_K_ABORTED, json_object_new_boolean(true));
	resizeDuringEnd(st, &rd, lc);
	virTypedParamsFree(p, n);
	if (rc < 0 && mhlJ(lc, MHL_K_ABORTED)) {
		mhlError("%s:%d: migrate: domain '%s' to peer '%s' (%s) did not finish within its deadline of %g s: aborted, the guest goes on here (%s)",
			 t->s->path, st->line, t->g->name, peer->name, peer->uri, w.deadline,
			 json_object_get_string(mhlJ(lc, MHL_K_REFUSED)));
		return -1;
	}
	if (rc < 0) {
		mhlError("migrate: domain '%s' to peer '%s' (%s) failed: %s", t->g->name, peer->name, peer->uri,
			 json_object_get_string(mhlJ(lc, MHL_K_REFUSED)));
		return -1;
	}
	return 0;
}

/* After a migration that failed: the guest goes on here, watched again (the same QEMU). */
static void stayHere(mhlTrial *t)
{
	g_autofree char *saved = mhlErrorSteal();
	if (mhlGuestReattach(t->g, t->g->dom, t->s, t->g->cfg.host_local, t->g->cfg.remote) < 0)
		mhlErrorReset();
	mhlErrorRestore(g_steal_pointer(&saved));
}

/* On the peer: the domain by name, watched from its new QEMU, its agent answering; *agent_s. */
static int arrive(mhlTrial *t, const mhlPeer *peer, double *agent_s)
{
	virDomainPtr dom = virDomainLookupByName(peer->conn, t->g->name);

	if (!dom) {
		mhlErrorVirt("migrate: domain '%s' is not on peer '%s' (%s) after its migration", t->g->name,
			     peer->name, peer->uri);
		return -1;
	}
	if (mhlGuestReattach(t->g, dom, t->s, mhlUriLocal(peer->uri), true) < 0)
		return -1;
	if ((*agent_s = mhlAgentWait(t->g->dom, t->g->cfg.agent_deadline, t->g->console)) < 0)
		return -1;
	return 0;
}

static void addBytes(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_int64((int64_t)v));
}

int mhlStepMigrate(mhlTrial *t, const mhlStep *st, json_object *res)
{
	const mhlPeer *peer = mhlPeerFind(t->peers, st->to);
	double t0 = mhlNow(), t1, agent_s = -1;
	guint64 memory = 0, plugged, plugged_after = 0;
	json_object *lc = mhlLifecycleBegin(t, st, res, &memory), *after;
	bool resized;
	int i;

	if (!lc)
		return -1;
	json_object_object_add(lc, MHL_K_TO, json_object_new_string(st->to));
	if (!peer) {
		mhlError("%s:%d: migrate: to: no peer named '%s' (run --peer %s=URI)", t->s->path, st->line,
			 st->to, st->to);
		return -1;
	}
	json_object_object_add(lc, MHL_K_TO_URI, json_object_new_string(peer->uri));
	for (plugged = memory, i = 0; i < t->s->nnodes; i++)
		plugged -= t->s->nodes[i].memory;
	addBytes(lc, MHL_K_EXPECTED_TRANSFER_BYTES, memory);
	mhlGuestLeave(t->g);
	if (migrate(t, st, peer, lc) < 0) {
		t->infra = true;	/* libvirt or the peer could not carry it out: the lab's failure, not the kernel's */
		stayHere(t);
		return mhlLifecycleEnd(lc, t0, -1);
	}
	t1 = mhlNow();
	if (arrive(t, peer, &agent_s) < 0)
		return mhlLifecycleEnd(lc, t0, -1);
	json_object_object_add(lc, MHL_K_AGENT_S, json_object_new_double(agent_s));
	jobStats(t->g->dom, lc);
	if (!(after = mhlTrialDevices(t, &plugged_after)))
		return -1;
	json_object_object_add(lc, MHL_K_PLUGGED_AFTER, after);
	json_object_object_add(lc, MHL_K_MIGRATE_S, json_object_new_double(t1 - t0));
	/* a resize libvirt took during the migration may have moved the device since */
	resized = json_object_get_boolean(mhlJ(lc, MHL_PATH(MHL_K_RESIZE_DURING, MHL_K_ACCEPTED)));
	if (!resized && plugged_after != plugged) {
		mhlError("%s:%d: migrate: the destination's virtio-mem devices hold %llu bytes plugged, the source's held %llu",
			 t->s->path, st->line, (unsigned long long)plugged_after, (unsigned long long)plugged);
		return mhlLifecycleEnd(lc, t0, -1);
	}
	return mhlLifecycleEnd(lc, t0, 0);
}
