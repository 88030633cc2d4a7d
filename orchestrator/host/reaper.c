/*
 * reaper.c - the embedded driver's QEMU processes reaped the moment they end.
 *
 * QEMU daemonizes, so whoever reaps orphans reaps it: pid 1, or the nearest
 * child subreaper. libvirt then waits for the pid to be gone, polling every
 * 200 ms (virProcessKillPainfully, in every destroy, save and stop), and a
 * zombie is not gone. Where pid 1 reaps late - this project's machines run
 * a sandbox's init that reaped orphans 1.1-1.9 s after they exited - every
 * trial's teardown waited 1.4-1.6 s for it, most of a trial's 2 s after its
 * last step.
 *
 * So memhp-lab makes itself the child subreaper of what it starts, and a
 * thread reaps the processes that the embedded root's pid files name (each
 * guest's QEMU in run/qemu/, libvirt's capabilities probe in
 * lib/qemu/qmp-XXXXXX/, whose QEMU removes its file as it exits: the thread
 * reads them every tick and remembers) as soon as they are zombies: those
 * alone. Every other child has a parent that waits for it itself
 * (lib/spawn.c, libvirt's virCommand and its daemonizing fork), and reaping
 * one of those would take its exit status from under it. A pid file naming anything else (memhp-lab
 * itself: driver.pid, owner.pid) is no child of ours: waitpid says ECHILD.
 */
#include <glib.h>

#include "host/reaper.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define REAP_TICK_US	(20 * 1000)	/* a tenth of libvirt's poll: the destroy sees the pid gone at its first look */

static pthread_mutex_t reapLock = PTHREAD_MUTEX_INITIALIZER;
static GPtrArray *reapRoots;	/* the embedded roots whose pid files name what to reap */
static bool reapRunning;

/* Add the pid @path's pid file names to @known (what it held while it ran: QEMU removes its own at exit). */
static void reapNote(const char *path, GHashTable *known)
{
	g_autofree char *text = NULL;
	char *end;
	long pid;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return;
	errno = 0;
	pid = strtol(text, &end, 10);
	if (!errno && end != text && pid > 1 && pid != (long)getpid() && pid <= G_MAXINT)
		g_hash_table_add(known, GINT_TO_POINTER((int)pid));
}

/* Every *.pid file of @dir (no recursion), and of its subdirectories named @sub* (one level). */
static void reapDir(const char *dir, const char *sub, GHashTable *known)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *path = g_build_filename(dir, name, NULL);

		if (g_str_has_suffix(name, ".pid"))
			reapNote(path, known);
		else if (sub && g_str_has_prefix(name, sub))
			reapDir(path, NULL, known);
	}
}

/* Reap the known pid @key if it ended; TRUE (forget it) once it is reaped or no child of ours. */
static gboolean reapOne(gpointer key, gpointer value, gpointer opaque)
{
	pid_t pid = GPOINTER_TO_INT(key), r;

	(void)value; (void)opaque;
	/* WNOHANG: a running QEMU stays as it is; ECHILD: not ours (its parent waits for it, or it is gone) */
	while ((r = waitpid(pid, NULL, WNOHANG)) < 0 && errno == EINTR)
		;
	return r != 0;
}

static void *reaper(void *opaque)
{
	g_autoptr(GHashTable) known = g_hash_table_new(NULL, NULL);	/* pids the pid files named */
	siginfo_t si;
	guint i;

	(void)opaque;
	for (;;) {
		g_usleep(REAP_TICK_US);
		pthread_mutex_lock(&reapLock);
		for (i = 0; i < reapRoots->len; i++) {
			g_autofree char *run = g_build_filename(reapRoots->pdata[i], "run", "qemu", NULL);
			g_autofree char *lib = g_build_filename(reapRoots->pdata[i], "lib", "qemu", NULL);

			reapDir(run, NULL, known);
			reapDir(lib, "qmp-", known);
		}
		pthread_mutex_unlock(&reapLock);
		/* a look that takes nothing: is any child of ours a zombie at all? */
		memset(&si, 0, sizeof(si));
		if (g_hash_table_size(known) && waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			g_hash_table_foreach_remove(known, reapOne, NULL);
	}
	return NULL;
}

int mhlReaperStart(const char *root)
{
	pthread_t t;
	int rc = 0;

	pthread_mutex_lock(&reapLock);
	if (!reapRoots)
		reapRoots = g_ptr_array_new_with_free_func(g_free);
	if (!reapRunning) {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
			mhlError("cannot make memhp-lab the reaper of the QEMU processes it starts: prctl(PR_SET_CHILD_SUBREAPER): %s",
				 g_strerror(errno));
			rc = -1;
		} else if ((errno = pthread_create(&t, NULL, reaper, NULL))) {
			mhlError("cannot start the thread that reaps QEMU processes: %s", g_strerror(errno));
			prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
			rc = -1;
		} else {
			pthread_detach(t);
			reapRunning = true;
		}
	}
	if (!rc)
		g_ptr_array_add(reapRoots, g_strdup(root));
	pthread_mutex_unlock(&reapLock);
	return rc;
}
