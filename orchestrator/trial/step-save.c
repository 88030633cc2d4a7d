/*
 * step-save.c - save and managedsave: the guest's QEMU writes its state to
 * an image and ends; a new QEMU under the same domain name reads it back and
 * the guest runs on, within the one step (docs/lifecycle.md). The stop is
 * bracketed by mhlGuestLeave/mhlGuestReattach (guest/session.h). Each
 * libvirt call that waits on QEMU runs in a thread of its own under the
 * step's deadline: past it a save is aborted (virDomainAbortJob, the guest
 * runs on), a restore or start destroyed; nothing waits forever.
 */
#include <glib.h>

#include "trial/steps.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "util.h"

#define JOB_ABORT_GRACE 30.0	/* s for a job to end after its abort */

typedef enum { JOB_SAVE, JOB_RESTORE, JOB_MANAGEDSAVE, JOB_START } jobOp;
static const char *const jobNames[] = { "save", "restore", "managed save", "start from the managed save" };

/* One libvirt call in a thread; the thread and the step each hold a reference. */
typedef struct {
	jobOp op;
	virConnectPtr conn;
	virDomainPtr dom;	/* save, managed save, start */
	char *path;		/* save, restore */
	char *dxml;		/* restore: the domain's own XML, captured before the save */
	int rc;
	char *err;		/* libvirt's message when rc < 0 */
	gint done;
} lvJob;

static void jobClear(lvJob *j)
{
	if (j->dom)
		virDomainFree(j->dom);
	if (j->conn)
		virConnectClose(j->conn);
	g_free(j->path);
	g_free(j->dxml);
	g_free(j->err);
}

static void jobUnref(lvJob *j) { g_atomic_rc_box_release_full(j, (GDestroyNotify)jobClear); }

static gpointer jobThread(gpointer data)
{
	lvJob *j = data;

	switch (j->op) {
	case JOB_SAVE:
		j->rc = virDomainSaveFlags(j->dom, j->path, NULL, 0);
		break;
	case JOB_RESTORE:
		/*
		 * The image's own XML is never trusted: the domain comes back from
		 * the XML memhp-lab read from the live domain before the save.
		 */
		j->rc = virDomainRestoreFlags(j->conn, j->path, j->dxml, VIR_DOMAIN_SAVE_PAUSED);
		break;
	case JOB_MANAGEDSAVE:
		j->rc = virDomainManagedSave(j->dom, 0);
		break;
	case JOB_START:
		j->rc = virDomainCreateWithFlags(j->dom, VIR_DOMAIN_START_PAUSED);
		break;
	}
	if (j->rc < 0)
		j->err = g_strdup(virGetLastErrorMessage());
	g_atomic_int_set(&j->done, 1);
	jobUnref(j);
	return NULL;
}

/* Past the deadline: a save's job is aborted (the guest runs on); a starting QEMU is destroyed. */
static void jobAbort(lvJob *j, const char *name)
{
	virDomainPtr d;

	if (j->op == JOB_SAVE || j->op == JOB_MANAGEDSAVE) {
		virDomainAbortJob(j->dom);
		return;
	}
	if ((d = virDomainLookupByName(j->conn, name))) {
		virDomainDestroy(d);
		virDomainFree(d);
	}
}

static bool jobWait(lvJob *j, double until)
{
	while (!g_atomic_int_get(&j->done) && mhlNow() < until && !mhlInterrupted)
		g_usleep(20 * 1000);
	return g_atomic_int_get(&j->done);
}

/*
 * Run @op on guest @g within @deadline s. 0: done; -1: libvirt refused or
 * failed (*err: its message, the caller reports); -2 + mhlError: past the
 * deadline or interrupted (aborted as jobAbort says).
 */
static int jobRun(mhlGuest *g, jobOp op, const char *path, const char *dxml, double deadline, char **err,
		  double *secs)
{
	lvJob *j = g_atomic_rc_box_new0(lvJob);
	double t0 = mhlNow();
	GThread *th;
	int rc;

	j->op = op;
	j->conn = virDomainGetConnect(g->dom);
	virConnectRef(j->conn);
	if (op != JOB_RESTORE && virDomainRef(g->dom) == 0)
		j->dom = g->dom;
	j->path = g_strdup(path);
	j->dxml = g_strdup(dxml);
	g_atomic_rc_box_acquire(j);
	th = g_thread_new("mhl-lifecycle", jobThread, j);
	if (!jobWait(j, t0 + deadline)) {
		double grace = mhlNow() + JOB_ABORT_GRACE;

		/* an abort before QEMU's migration began finds no job to abort: again until one ends it */
		do
			jobAbort(j, g->name);
		while (!jobWait(j, MIN(grace, mhlNow() + 0.5)) && mhlNow() < grace);
		mhlError("%s of domain '%s' did not end within %g s%s: %s", jobNames[op], g->name,
			 deadline, mhlInterrupted ? " (interrupted)" : "",
			 op == JOB_SAVE || op == JOB_MANAGEDSAVE ? "aborted, the guest runs on" :
			 "its QEMU destroyed");
		g_thread_unref(th);	/* detached: the thread holds its own reference */
		jobUnref(j);
		return -2;
	}
	g_thread_join(th);
	*secs = mhlNow() - t0;
	rc = j->rc < 0 ? -1 : 0;
	if (rc < 0)
		*err = g_strdup(j->err ? j->err : "no message");
	jobUnref(j);
	return rc;
}

/* What a save and a managed save share: the lifecycle object, its times. */
typedef struct {
	mhlTrial *t;
	const mhlStep *st;
	json_object *lc;	/* res.lifecycle */
	double t0;		/* the step's start */
	double t_down;		/* the save's start: the guest stops running */
	guint64 memory;		/* boot memory + plugged at the save */
} lcStep;

static int lcBegin(lcStep *l, mhlTrial *t, const mhlStep *st, json_object *res)
{
	l->t = t;
	l->st = st;
	l->t0 = mhlNow();
	if (!(l->lc = mhlLifecycleBegin(t, st, res, &l->memory)))
		return -1;
	json_object_object_add(l->lc, MHL_K_GUEST_MEMORY_BYTES, json_object_new_int64((int64_t)l->memory));
	json_object_object_add(l->lc, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
	return 0;
}

static void lcDouble(lcStep *l, const char *key, double v)
{
	json_object_object_add(l->lc, key, json_object_new_double(v));
}

/* libvirt refused: recorded, and the step fails with its message (an xfail may expect it). */
static int lcRefused(lcStep *l, const char *what, const char *err)
{
	json_object_object_add(l->lc, MHL_K_REFUSED, json_object_new_string(err));
	mhlError("%s of domain '%s' refused: %s", what, l->t->g->name, err);
	return -1;
}

/*
 * The save failed (refused, or aborted at the deadline): if the old QEMU
 * still runs, the guest goes on there (watched again). One that was saved
 * all the same (the abort came too late) is restored from @path (a save;
 * NULL: a managed save, which the start does); else it is gone. The
 * step's error stays the save's.
 */
static void lcStayed(lcStep *l, const char *path, const char *dxml)
{
	mhlGuest *g = l->t->g;
	char *keep = mhlErrorSteal(), *err = NULL;
	virDomainPtr d = NULL;
	double secs;

	if (virDomainIsActive(g->dom) == 1)
		mhlGuestReattach(g, g->dom, l->t->s, g->cfg.host_local, g->cfg.remote);
	else if (path && jobRun(g, JOB_RESTORE, path, dxml, l->st->deadline, &err, &secs) == 0 &&
		 (d = virDomainLookupByName(virDomainGetConnect(g->dom), g->name)))
		mhlGuestReattach(g, d, l->t->s, g->cfg.host_local, g->cfg.remote);
	else if (path)
		mhlGuestStop(g);
	g_free(err);
	mhlErrorRestore(keep);
}

/*
 * The new QEMU (paused) runs the guest: reattach (it resumes), wait for its
 * agent, the devices' sizes after; down_s, agent_s, plugged_after, ok.
 */
static int lcBack(lcStep *l, virDomainPtr dom)
{
	mhlGuest *g = l->t->g;
	json_object *after;
	struct stat sb;
	guint64 plugged;
	double t_up, agent;

	if (stat(g->console, &sb) == 0)
		json_object_object_add(l->lc, MHL_K_CONSOLE_BYTES_AT_SAVE, json_object_new_int64(sb.st_size));
	if (mhlGuestReattach(g, dom, l->t->s, g->cfg.host_local, g->cfg.remote) < 0)
		return -1;
	t_up = mhlNow();
	lcDouble(l, MHL_K_DOWN_S, t_up - l->t_down);
	if ((agent = mhlAgentWait(g->dom, l->st->deadline, g->console)) < 0)
		return -1;
	lcDouble(l, MHL_K_AGENT_S, agent);
	if (!(after = mhlTrialDevices(l->t, &plugged)))
		return -1;
	json_object_object_add(l->lc, MHL_K_PLUGGED_AFTER, after);
	return mhlLifecycleEnd(l->lc, l->t0, 0);
}

/* The image's size (stat), recorded against the memory it holds. */
static void lcImage(lcStep *l, const char *path)
{
	struct stat sb;

	json_object_object_add(l->lc, MHL_K_IMAGE_PATH, json_object_new_string(path));
	if (stat(path, &sb) == 0)
		json_object_object_add(l->lc, MHL_K_IMAGE_BYTES, json_object_new_int64(sb.st_size));
}

char *mhlSaveImageBase(const char *uri)
{
	if (uri && g_str_has_prefix(uri, "qemu:///embed?root=") && uri[strlen("qemu:///embed?root=")] == '/')
		return g_strdup(uri + strlen("qemu:///embed?root="));
	return g_strdup(g_get_tmp_dir());
}

/*
 * The save image: never in the run directory (data, maybe another user's:
 * a link or a planted image there would be written through or restored),
 * but in a directory of its own that only root can write, made for this
 * save (mkdtemp: 0700) under the embedded driver's root (ours, 0700) or,
 * for a daemon on this host, under /tmp; named after the domain (ours,
 * never guest text) and taken (O_EXCL) before libvirt writes it. *@dir:
 * that directory, removed with the image.
 */
static char *saveImagePath(mhlGuest *g, char **dir)
{
	g_autofree char *uri = virConnectGetURI(virDomainGetConnect(g->dom));
	g_autofree char *base = mhlSaveImageBase(uri);
	g_autofree char *tmpl = g_build_filename(base, "memhp-save-XXXXXX", NULL);
	g_autofree char *name = g_strdup_printf("%s.save", g->name);
	char *path;
	int fd;

	if (!g_mkdtemp_full(tmpl, 0700)) {
		mhlError("cannot create a directory for the save image under '%s': %s", base, g_strerror(errno));
		return NULL;
	}
	path = g_build_filename(tmpl, name, NULL);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0) {
		mhlError("cannot create save image '%s': %s", path, g_strerror(errno));
		rmdir(tmpl);
		g_free(path);
		return NULL;
	}
	close(fd);
	*dir = g_steal_pointer(&tmpl);
	return path;
}

/* The image and its directory gone (a save that ended, or left nothing worth keeping). */
static int saveImageRemove(const char *path, const char *dir)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		mhlError("cannot remove save image '%s': %s", path, g_strerror(errno));
		return -1;
	}
	rmdir(dir);
	return 0;
}

int mhlStepSave(mhlTrial *t, const mhlStep *st, json_object *res)
{
	mhlGuest *g = t->g;
	g_autofree char *path = NULL, *err = NULL, *dir = NULL, *dxml = NULL;
	virDomainPtr dom;
	struct stat sb;
	lcStep l;
	double secs = 0;
	int rc;

	if (lcBegin(&l, t, st, res) < 0)
		return -1;
	/* what the restore brings back: the live domain's XML, read now (migratable: what an image holds) */
	if (!(dxml = virDomainGetXMLDesc(g->dom, VIR_DOMAIN_XML_SECURE | VIR_DOMAIN_XML_MIGRATABLE))) {
		mhlErrorVirt("cannot read the live XML of domain '%s' before its save", g->name);
		return -1;
	}
	if (!(path = saveImagePath(g, &dir)))
		return -1;
	mhlGuestLeave(g);
	l.t_down = mhlNow();
	if ((rc = jobRun(g, JOB_SAVE, path, NULL, st->deadline, &err, &secs)) < 0) {
		if (rc == -1)
			lcRefused(&l, "save", err);
		lcStayed(&l, path, dxml);
		/* ours when empty (nothing saved) or the guest runs again; else kept, to restore by hand */
		if (mhlGuestAlive(g) || stat(path, &sb) < 0 || sb.st_size == 0)
			saveImageRemove(path, dir);
		return -1;
	}
	lcDouble(&l, MHL_K_SAVE_S, secs);
	lcImage(&l, path);
	if ((rc = jobRun(g, JOB_RESTORE, path, dxml, st->deadline, &err, &secs)) < 0) {
		if (rc == -1)
			mhlError("restore of domain '%s' from '%s' failed (the image is kept): %s",
				 g->name, path, err);
		return -1;
	}
	if (!(dom = virDomainLookupByName(virDomainGetConnect(g->dom), g->name))) {
		mhlErrorVirt("domain '%s' restored from '%s' but not found", g->name, path);
		return -1;
	}
	lcDouble(&l, MHL_K_RESTORE_S, secs);
	if (lcBack(&l, dom) < 0)
		return -1;
	return saveImageRemove(path, dir);
}

/*
 * Where libvirt keeps a domain's managed save image: its QEMU driver's
 * save directory (the embedded root's, or the system daemon's on this
 * host); NULL when the URI does not say (a remote host).
 */
static char *managedSavePath(virConnectPtr conn, const char *name)
{
	g_autofree char *uri = virConnectGetURI(conn);
	const char *root;

	if (!uri)
		return NULL;
	if (g_str_has_prefix(uri, "qemu:///embed?root=")) {
		root = uri + strlen("qemu:///embed?root=");
		return g_strdup_printf("%s/lib/qemu/save/%s.save", root, name);
	}
	if (!strcmp(uri, "qemu:///system"))
		return g_strdup_printf("/var/lib/libvirt/qemu/save/%s.save", name);
	return NULL;
}

/* Transient again: undefined, the managed save image with it. -1 + mhlError. */
static int managedUndefine(mhlGuest *g)
{
	virDomainPtr d = virDomainLookupByName(virDomainGetConnect(g->dom), g->name);
	int rc = d ? virDomainUndefineFlags(d, VIR_DOMAIN_UNDEFINE_MANAGED_SAVE) : -1;

	if (rc < 0)
		mhlErrorVirt("cannot undefine domain '%s' after its managed save (it stays defined)", g->name);
	if (d)
		virDomainFree(d);
	return rc;
}

/* A managed save that ended all the same (its abort came too late): started from the image. */
static int startLate(lcStep *l)
{
	mhlGuest *g = l->t->g;
	char *keep = mhlErrorSteal(), *err = NULL;
	virDomainPtr d = NULL;
	double secs;
	int rc = -1;

	if (jobRun(g, JOB_START, NULL, NULL, l->st->deadline, &err, &secs) == 0 &&
	    (d = virDomainLookupByName(virDomainGetConnect(g->dom), g->name)))
		rc = mhlGuestReattach(g, d, l->t->s, g->cfg.host_local, g->cfg.remote);
	g_free(err);
	mhlErrorRestore(keep);
	return rc;
}

/*
 * libvirt refuses a managed save of a transient domain (ours are: a run
 * leaves nothing defined), so the domain is defined from its live XML for
 * the step, saved, started from the image and undefined again.
 */
static int managedSaveAndStart(lcStep *l)
{
	mhlGuest *g = l->t->g;
	g_autofree char *err = NULL, *image = managedSavePath(virDomainGetConnect(g->dom), g->name);
	double secs = 0;
	int rc;

	mhlGuestLeave(g);
	l->t_down = mhlNow();
	if ((rc = jobRun(g, JOB_MANAGEDSAVE, NULL, NULL, l->st->deadline, &err, &secs)) < 0) {
		if (rc == -1)
			lcRefused(l, "managed save", err);
		if (virDomainIsActive(g->dom) == 1)
			lcStayed(l, NULL, NULL);
		else if (startLate(l) < 0)
			mhlGuestStop(g);
		return -1;
	}
	lcDouble(l, MHL_K_SAVE_S, secs);
	if (image)
		lcImage(l, image);
	if ((rc = jobRun(g, JOB_START, NULL, NULL, l->st->deadline, &err, &secs)) < 0) {
		if (rc == -1)
			mhlError("start of domain '%s' from its managed save failed: %s", g->name, err);
		return -1;
	}
	lcDouble(l, MHL_K_RESTORE_S, secs);
	return 0;
}

int mhlStepManagedSave(mhlTrial *t, const mhlStep *st, json_object *res)
{
	mhlGuest *g = t->g;
	g_autofree char *xml = NULL;
	virDomainPtr def, dom;
	lcStep l;
	int rc;

	if (lcBegin(&l, t, st, res) < 0)
		return -1;
	if (!(xml = virDomainGetXMLDesc(g->dom, VIR_DOMAIN_XML_SECURE))) {
		mhlErrorVirt("cannot read the live XML of domain '%s'", g->name);
		return -1;
	}
	if (!(def = virDomainDefineXML(virDomainGetConnect(g->dom), xml))) {
		g_autofree char *why = g_strdup(virGetLastErrorMessage());

		return lcRefused(&l, "define (for its managed save)", why);
	}
	virDomainFree(def);
	rc = managedSaveAndStart(&l);
	/* whatever happened: nothing of ours stays defined */
	if (managedUndefine(g) < 0 || rc < 0)
		return -1;
	if (!(dom = virDomainLookupByName(virDomainGetConnect(g->dom), g->name))) {
		mhlErrorVirt("domain '%s' started from its managed save but not found", g->name);
		return -1;
	}
	return lcBack(&l, dom);
}
