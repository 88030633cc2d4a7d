/*
 * guard.c - no guest outlives memhp-lab, even after kill -9.
 *
 * QEMU processes started by the embedded driver daemonize: killing
 * memhp-lab (a CI job's timeout, the OOM killer) would leave them running.
 * Before libvirt starts, memhp-lab forks a guard and moves itself into a
 * cgroup v2 of its own (<cgroup2>/memhp-lab/run-<pid>), which every process
 * it starts - QEMU included - inherits. The guard stays outside it, in its
 * own session, and blocks on a pipe whose only writer is memhp-lab (close on
 * exec, so no child holds it). When memhp-lab ends, however it ends, the
 * pipe reads EOF and the guard writes 1 to the cgroup's cgroup.kill: every
 * process left in it dies at once, with no PID to reuse. It then removes the
 * cgroup and the run's embedded root, and exits.
 *
 * Without a writable cgroup v2 the guard falls back to the QEMU pid files
 * under the embedded root, killing only processes whose command line names
 * one of this run's guests (guest=memhp-...-<pid>-N).
 */
#include <glib.h>

#include "host/guard.h"
#include "host/hugepages.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* The cgroup2 mount point from /proc/self/mountinfo, or NULL. */
static char *cgroup2Mount(void)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	size_t i;

	if (!g_file_get_contents("/proc/self/mountinfo", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (i = 0; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], " ", -1);
		guint n = g_strv_length(f), sep;

		for (sep = 0; sep < n && strcmp(f[sep], "-"); sep++)
			;
		if (sep + 1 < n && n > 4 && !strcmp(f[sep + 1], "cgroup2"))
			return g_strdup(f[4]);
	}
	return NULL;
}

static int writeFile(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static long guardRunPid;	/* the run the guard guards */

/* What mhlRootKillGuests' walk looks for (nftw has no opaque pointer). */
static const char *killTag;	/* "-<pid>-": the run's guests are memhp-<trial>-<pid>-<n> */
static bool killSay;

static int killPidfile(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	g_autofree char *text = NULL, *cmdpath = NULL, *cmd = NULL;
	gsize len = 0, i;
	long pid;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode) || sb->st_uid != geteuid() ||
	    !g_str_has_suffix(path, ".pid") || !g_file_get_contents(path, &text, NULL, NULL) ||
	    (pid = strtol(text, NULL, 10)) <= 1)
		return 0;
	cmdpath = g_strdup_printf("/proc/%ld/cmdline", pid);
	if (!g_file_get_contents(cmdpath, &cmd, &len, NULL))
		return 0;
	for (i = 0; i + 1 < len; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	if (!mhlQemuIsRunGuest(cmd, killTag))
		return 0;
	if (killSay)
		fprintf(stderr, "memhp-lab: killing QEMU %ld left by a dead run (%s)\n", pid, path);
	kill((pid_t)pid, SIGKILL);
	return 0;
}

void mhlRootKillGuests(const char *root, long run_pid, bool say)
{
	g_autofree char *tag = g_strdup_printf("-%ld-", run_pid);

	killTag = tag;
	killSay = say;
	nftw(root, killPidfile, 16, FTW_PHYS);
	killTag = NULL;
}

bool mhlQemuIsRunGuest(const char *cmdline, const char *tag)
{
	const char *g = strstr(cmdline, "guest=memhp-"), *end, *p;
	size_t n = strlen(tag);

	if (!strstr(cmdline, "qemu-system") || !g)
		return false;
	g += strlen("guest=");
	end = g + strcspn(g, ", ");
	/* The name ends in <tag><digits>: memhp-<trial>-<pid>-<n>, the pid of the run. */
	for (p = end; p > g && g_ascii_isdigit(p[-1]); p--)
		;
	return p < end && (size_t)(p - g) >= n && !strncmp(p - n, tag, n);
}

/* Whether cgroup @cg has no process left (cgroup.events: "populated 0"). */
static bool cgroupEmpty(const char *cg)
{
	g_autofree char *path = g_build_filename(cg, "cgroup.events", NULL), *text = NULL;

	return !g_file_get_contents(path, &text, NULL, NULL) || strstr(text, "populated 0");
}

/* rmdir @cg once its processes are gone (QEMU's teardown of a big guest takes a while): tenths of a second. */
static void cgroupRemove(const char *cg, int tenths)
{
	int i;

	for (i = 0; i < tenths && !cgroupEmpty(cg); i++)
		g_usleep(100 * 1000);
	for (i = 0; i < 20 && rmdir(cg) < 0 && errno == EBUSY; i++)
		g_usleep(100 * 1000);
}

void mhlGuardStaleClean(void)
{
	g_autofree char *mnt = cgroup2Mount(), *base = NULL;
	g_autoptr(GDir) d = NULL;
	const char *e;

	if (!mnt)
		return;
	base = g_build_filename(mnt, "memhp-lab", NULL);
	d = g_dir_open(base, 0, NULL);
	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *cg = g_build_filename(base, e, NULL), *kill_path = NULL;
		long pid = g_str_has_prefix(e, "run-") ? strtol(e + 4, NULL, 10) : 0;

		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		/* The guard of a dead run could not finish: what is left in it goes now. */
		kill_path = g_build_filename(cg, "cgroup.kill", NULL);
		writeFile(kill_path, "1");
		cgroupRemove(cg, 50);
	}
}

/* The guard: wait for EOF on @fd, then kill what is left of the run. Never returns. */
static void G_GNUC_NORETURN guardMain(int fd, const char *cg, const char *root)
{
	char buf[64];
	ssize_t n;
	int i, null = open("/dev/null", O_RDWR);

	/* Hold nothing of the parent's: a pipe a test reads must see EOF when memhp-lab ends. */
	for (i = 0; i < 1024; i++)
		if (i != fd && i != null)
			close(i);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	setsid();
	signal(SIGINT, SIG_IGN);	/* a ^C or a TERM is memhp-lab's to handle */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while ((n = read(fd, buf, sizeof(buf))) != 0)
		if (n < 0 && errno != EINTR)
			break;
	if (cg) {
		g_autofree char *kill_path = g_build_filename(cg, "cgroup.kill", NULL);

		writeFile(kill_path, "1");
		cgroupRemove(cg, 300);
	}
	if (root) {
		mhlRootKillGuests(root, guardRunPid, false);
		mhlHugetlbfsUnmount(root);
		mhlRemoveTree(root);
	}
	/* after its guests: pages they still held go back with them */
	mhlHugePoolTakeBack(guardRunPid);
	_exit(0);
}

/* <cgroup2>/memhp-lab/run-<pid>, created; NULL if cgroup v2 is not writable here. */
static char *cgroupCreate(void)
{
	g_autofree char *mnt = cgroup2Mount(), *base = NULL, *cg = NULL;

	if (!mnt)
		return NULL;
	base = g_build_filename(mnt, "memhp-lab", NULL);
	cg = g_strdup_printf("%s/run-%d", base, (int)getpid());
	if ((mkdir(base, 0755) < 0 && errno != EEXIST) || (mkdir(cg, 0755) < 0 && errno != EEXIST))
		return NULL;
	return g_steal_pointer(&cg);
}

char *mhlGuardStart(const char *root)
{
	static char *guarded;	/* how this process is guarded already: one guard for all its sessions */
	g_autofree char *cg = NULL, *procs = NULL, *pid = NULL;
	int p[2];
	pid_t child;

	/*
	 * A second session (a run over two stacks, docs/stacks.md) is in the
	 * cgroup already, and libvirt's threads run: no second fork. Its root
	 * is removed at its close, or by the next run after a kill -9
	 * (mhlStaleRootsClean).
	 */
	if (guarded)
		return g_strdup(guarded);
	cg = cgroupCreate();

	if (pipe2(p, O_CLOEXEC) < 0) {
		mhlError("cannot create the guard's pipe: %s", g_strerror(errno));
		return NULL;
	}
	guardRunPid = getpid();
	fflush(NULL);
	/*
	 * A fork without exec, the one child not started by lib/spawn.c: the
	 * guard is this process's own code (guardMain), not a program, and must
	 * hold the pipe's read end, stay out of the run's cgroup and outlive a
	 * kill -9 of memhp-lab, where a spawned child is one we wait for.
	 */
	if ((child = fork()) < 0) {
		mhlError("cannot fork the guard of this run: %s", g_strerror(errno));
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (child == 0) {
		close(p[1]);
		guardMain(p[0], cg, root);
	}
	close(p[0]);	/* p[1] stays open, unnoticed, until memhp-lab ends */
	/* The guard started in our cgroup and stays there; we (and our children) move. */
	if (cg) {
		procs = g_build_filename(cg, "cgroup.procs", NULL);
		pid = g_strdup_printf("%d", (int)getpid());
		if (writeFile(procs, pid) < 0) {
			rmdir(cg);
			g_clear_pointer(&cg, g_free);
		}
	}
	guarded = cg ? g_strdup_printf("cgroup %s", cg) : g_strdup("the embedded root's pid files");
	return g_strdup(guarded);
}
