/*
 * step-daemon.c - daemon-restart: {deadline: S}: the libvirt daemon the run
 * is connected to (run --uri, a daemon) is restarted under the running guest
 * by the operator's command (run --daemon-restart 'ARGV', run through
 * lib/spawn.h: libvirt has no API for it, and a scenario never runs a
 * command on the host). QEMU keeps running; the lab's connection breaks
 * (its close callback notes when), and once the command returned the same
 * URI is opened again until the new daemon answers, its events registered,
 * the domain looked up by name and checked running with the devices' sizes
 * of before. The guest (console, host side) and the run's connection then
 * go on with the new one: the later steps resize, check and get their
 * size-change events through it. One deadline covers the command, the
 * reconnection and the agent's answer. Plan time (cli/run-daemon.c) refuses
 * the step with the embedded driver, a fleet, without the option, or with
 * more than one trial at a time.
 */
#include <glib.h>

#include "trial/steps.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <string.h>
#include <sys/wait.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "host/session.h"
#include "spawn.h"
#include "util.h"

#define RECONNECT_GRACE 15.0	/* s, after a failed step: to find the guest again and stop it */

/* When the old connection saw its daemon go (its close callback, on libvirt's event loop). */
typedef struct {
	GMutex lock;
	double t_lost;		/* 0: not yet */
} lostAt;

static void onClose(virConnectPtr conn, int reason, void *opaque)
{
	lostAt *l = opaque;

	(void)conn; (void)reason;
	g_mutex_lock(&l->lock);
	if (!l->t_lost)
		l->t_lost = mhlNow();
	g_mutex_unlock(&l->lock);
}

static double lostTime(lostAt *l)
{
	double t;

	g_mutex_lock(&l->lock);
	t = l->t_lost;
	g_mutex_unlock(&l->lock);
	return t;
}

/* Open @uri until it answers or @until: the new connection (events registered), or NULL + mhlError. */
static virConnectPtr reconnect(const char *uri, double until, int *tries)
{
	g_autofree char *last = NULL;
	virConnectPtr c;

	for (;;) {
		++*tries;
		if ((c = virConnectOpen(uri))) {
			if (mhlDomainEventsRegister(c) == 0)
				return c;
			virConnectClose(c);
			return NULL;
		}
		g_free(last);
		last = g_strdup(virGetLastErrorMessage());
		if (mhlNow() >= until || mhlInterrupted) {
			mhlError("daemon-restart: the daemon at '%s' did not answer again within the deadline (%d tries%s): %s",
				 uri, *tries, mhlInterrupted ? ", interrupted" : "", last);
			return NULL;
		}
		g_usleep(200 * 1000);
	}
}

/* The old connection's daemon went: its close seen, or the connection no longer alive. */
static bool waitGone(virConnectPtr old, lostAt *l, double until)
{
	while (!lostTime(l) && virConnectIsAlive(old) == 1 && mhlNow() < until && !mhlInterrupted)
		g_usleep(50 * 1000);
	if (!lostTime(l) && virConnectIsAlive(old) != 1)
		onClose(old, 0, l);
	return lostTime(l) > 0;
}

/* The run's connection (and so the next trials') is @c from now on; @old's references go. */
static void connSwitch(mhlTrial *t, virConnectPtr old, virConnectPtr c)
{
	mhlDomainEventsDeregister(old);
	if (t->connp && *t->connp == old) {
		*t->connp = c;
		virConnectClose(old);	/* the run's reference */
	} else {
		virConnectClose(c);	/* the guest's domain holds it */
	}
}

/* The command: 0, or -1 + mhlError naming it, its status or deadline, and what it wrote on stderr. */
static int restartRun(mhlTrial *t, const mhlStep *st, json_object *lc, double *secs)
{
	g_auto(mhlSpawn) c = { .argv = t->daemon_restart, .out = MHL_SPAWN_CAPTURE,
			       .err = MHL_SPAWN_CAPTURE, .timeout = st->deadline };
	double t0 = mhlNow();
	int rc = mhlSpawnRun(&c);
	g_autofree char *err = NULL;

	*secs = mhlNow() - t0;
	json_object_object_add(lc, MHL_K_RESTART_S, json_object_new_double(*secs));
	if (c.ended && WIFEXITED(c.status))
		json_object_object_add(lc, MHL_K_RESTART_EXIT, json_object_new_int(WEXITSTATUS(c.status)));
	if (rc == 0 && mhlSpawnCheck(&c) == 0)
		return 0;
	err = g_strstrip(g_strdup(c.err_text ? c.err_text : ""));
	if (strlen(err) > 300)
		err[300] = '\0';
	mhlError("%s:%d: daemon-restart: %s%s%s%s (run --daemon-restart)", t->s->path, st->line, c.why,
		 c.errnum == ETIMEDOUT ? " (the step's deadline)" : "", *err ? ": " : "", err);
	return -1;
}

static json_object *argvJSON(const char *const *argv)
{
	json_object *a = json_object_new_array();

	for (; argv && *argv; argv++)
		json_object_array_add(a, json_object_new_string(*argv));
	return a;
}

/* Whether two device lists ([{node, size_bytes, requested_bytes}]) hold the same sizes and requests. */
static bool sameDevices(json_object *a, json_object *b)
{
	return json_object_equal(a, b) == 1;
}

/*
 * After a failed command: the old connection still works (the daemon never
 * went): the guest goes on there. Else the daemon is looked for a while, so
 * that the guest can be watched (and stopped at the trial's end) through it.
 * The step's error stays.
 */
static void stayOrFind(mhlTrial *t, virConnectPtr old, const char *uri)
{
	g_autofree char *keep = mhlErrorSteal();
	virConnectPtr c;
	virDomainPtr d;
	int tries = 0;

	if (virConnectIsAlive(old) == 1) {
		mhlGuestRehome(t->g, t->g->dom, t->s);
	} else if ((c = reconnect(uri, mhlNow() + RECONNECT_GRACE, &tries))) {
		if ((d = virDomainLookupByName(c, t->g->name)))
			mhlGuestRehome(t->g, d, t->s);
		connSwitch(t, old, c);
	}
	mhlErrorReset();
	mhlErrorRestore(g_steal_pointer(&keep));
}

/* On the new connection: the domain by name, running, watched again; 0 or -1 + mhlError. */
static int comeBack(mhlTrial *t, const mhlStep *st, virConnectPtr c)
{
	virDomainPtr d = virDomainLookupByName(c, t->g->name);
	int state = VIR_DOMAIN_NOSTATE, reason;

	if (!d) {
		mhlErrorVirt("%s:%d: daemon-restart: domain '%s' is not on the restarted daemon", t->s->path,
			     st->line, t->g->name);
		return -1;
	}
	if (virDomainGetState(d, &state, &reason, 0) < 0 || state != VIR_DOMAIN_RUNNING) {
		mhlError("%s:%d: daemon-restart: domain '%s' is not running on the restarted daemon (state %d, reason %d)",
			 t->s->path, st->line, t->g->name, state, reason);
		virDomainFree(d);
		return -1;
	}
	return mhlGuestRehome(t->g, d, t->s);
}

/* From the command's return: the old connection gone, the new one, the guest on it. */
static int restartBack(mhlTrial *t, const mhlStep *st, json_object *lc, virConnectPtr old,
		       const char *uri, lostAt *l, double until)
{
	virConnectPtr c;
	int tries = 0;

	if (!waitGone(old, l, until)) {
		mhlError("%s:%d: daemon-restart: the command returned and the connection to '%s' stayed open until the deadline: the daemon did not restart",
			 t->s->path, st->line, uri);
		stayOrFind(t, old, uri);
		return -1;
	}
	if (!(c = reconnect(uri, until, &tries))) {
		json_object_object_add(lc, MHL_K_RECONNECT_TRIES, json_object_new_int(tries));
		return -1;
	}
	json_object_object_add(lc, MHL_K_RECONNECT_TRIES, json_object_new_int(tries));
	json_object_object_add(lc, MHL_K_DOWN_S, json_object_new_double(mhlNow() - lostTime(l)));
	json_object_object_add(lc, MHL_K_EVENTS_FROM_T, json_object_new_double(mhlNow() - t->g->t0));
	if (comeBack(t, st, c) < 0) {
		connSwitch(t, old, c);
		return -1;
	}
	connSwitch(t, old, c);
	return 0;
}

/* The guest's agent answers through the new daemon; the devices as before. */
static int restartCheck(mhlTrial *t, const mhlStep *st, json_object *lc, json_object *before,
			double until)
{
	json_object *after;
	double agent;

	if ((agent = mhlAgentWait(t->g->dom, MAX(until - mhlNow(), 1.0), t->g->console)) < 0)
		return -1;
	json_object_object_add(lc, MHL_K_AGENT_S, json_object_new_double(agent));
	if (!(after = mhlTrialDevices(t, NULL)))
		return -1;
	json_object_object_add(lc, MHL_K_PLUGGED_AFTER, after);
	if (!sameDevices(before, after)) {
		mhlError("%s:%d: daemon-restart: the virtio-mem devices after the restart (%s) are not those before (%s)",
			 t->s->path, st->line, json_object_to_json_string(after), json_object_to_json_string(before));
		return -1;
	}
	return 0;
}

int mhlStepDaemonRestart(mhlTrial *t, const mhlStep *st, json_object *res)
{
	double t0 = mhlNow(), until = t0 + st->deadline, secs;
	json_object *lc = mhlLifecycleBegin(t, st, res, NULL);
	virConnectPtr old = virDomainGetConnect(t->g->dom);
	g_autofree char *uri = virConnectGetURI(old);
	lostAt l = { .t_lost = 0 };
	int rc = -1;

	if (!lc)
		return -1;
	json_object_object_add(lc, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
	if (!t->daemon_restart) {
		mhlError("%s:%d: daemon-restart: no command to restart the daemon with (run --daemon-restart 'ARGV')",
			 t->s->path, st->line);
		return -1;
	}
	json_object_object_add(lc, MHL_K_RESTART_ARGV, argvJSON(t->daemon_restart));
	if (!uri) {
		mhlErrorVirt("%s:%d: daemon-restart: cannot read the run's URI", t->s->path, st->line);
		return -1;
	}
	g_mutex_init(&l.lock);
	virConnectRef(old);
	if (virConnectRegisterCloseCallback(old, onClose, &l, NULL) < 0)
		mhlErrorReset();	/* seen by virConnectIsAlive instead */
	mhlGuestLeave(t->g);
	/* the command failing, or no daemon to come back: the host's side, an error; other devices: a fail */
	if (restartRun(t, st, lc, &secs) < 0) {
		stayOrFind(t, old, uri);
		t->infra = true;
	} else if (restartBack(t, st, lc, old, uri, &l, until) < 0) {
		t->infra = true;
	} else if (restartCheck(t, st, lc, mhlJ(lc, MHL_K_PLUGGED_BEFORE), until) == 0) {
		rc = 0;
	}
	virConnectUnregisterCloseCallback(old, onClose);
	virConnectClose(old);
	g_mutex_clear(&l.lock);
	return mhlLifecycleEnd(lc, t0, rc);
}

void mhlDaemonRestartEventsAfter(json_object *steps, json_object *timeline)
{
	size_t i, k;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *lc = mhlJObj(json_object_array_get_idx(steps, i), MHL_K_LIFECYCLE);
		double from = mhlJDbl(lc, MHL_K_EVENTS_FROM_T, -1);
		int n = 0;

		if (!lc || strcmp(mhlJStr(lc, MHL_K_EVENT, ""), mhlStepTypeNames[MHL_STEP_DAEMON_RESTART]) || from < 0)
			continue;
		for (k = 0; timeline && k < json_object_array_length(timeline); k++) {
			json_object *e = json_object_array_get_idx(timeline, k);

			if (!strcmp(mhlJStr(e, MHL_K_SOURCE, ""), "event") && mhlJDbl(e, MHL_K_T, -1) >= from)
				n++;
		}
		json_object_object_add(lc, MHL_K_SIZE_EVENTS_AFTER, json_object_new_int(n));
	}
}
