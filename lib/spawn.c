/*
 * spawn.c - start a program: argv only, its stdio set up from descriptors
 * opened before the fork, exec's failure sent back over a close-on-exec
 * pipe (so "cannot run" is known at once, not as an exit status 127), what
 * it captures read with poll() against its deadline (spawn.h).
 */
#include <glib.h>

#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

/* The descriptors the child's stdin, stdout and stderr become; -1: ours. */
typedef struct {
	int fd[3];
	int pipe_r[3];		/* our end of a capture, or -1 */
} spawnIo;

static void spawnIoClose(spawnIo *io)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (io->fd[i] >= 0)
			close(io->fd[i]);
		if (io->pipe_r[i] >= 0)
			close(io->pipe_r[i]);
		io->fd[i] = io->pipe_r[i] = -1;
	}
}

static int spawnFail(mhlSpawn *c, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int spawnFail(mhlSpawn *c, int errnum, const char *fmt, ...)
{
	va_list ap;

	g_free(c->why);
	va_start(ap, fmt);
	c->why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	c->errnum = errnum;
	return -1;
}

/*
 * @fd moved above stdio (close-on-exec), so that setting up one of the
 * child's 0, 1, 2 never overwrites the source of another: our own stdio may
 * be closed. -1 + errno passed through.
 */
static int fdAboveStdio(int fd)
{
	int high;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

/* Descriptor @i (0, 1, 2) of the child as @mode asks; -1 + errno. */
static int spawnIoOpen(spawnIo *io, int i, mhlSpawnIo mode, const char *file)
{
	int p[2];

	switch (mode) {
	case MHL_SPAWN_INHERIT:
		return 0;
	case MHL_SPAWN_CAPTURE:
		if (i == 0 || pipe2(p, O_CLOEXEC) < 0)
			return i == 0 ? (errno = EINVAL, -1) : -1;
		io->pipe_r[i] = p[0];
		io->fd[i] = fdAboveStdio(p[1]);
		return io->fd[i] < 0 ? -1 : 0;
	case MHL_SPAWN_FILE:
		if (i > 0 && file &&
		    (io->fd[i] = fdAboveStdio(open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))) >= 0)
			return 0;
		G_GNUC_FALLTHROUGH;
	case MHL_SPAWN_NULL:
		io->fd[i] = fdAboveStdio(open("/dev/null", (i ? O_WRONLY : O_RDONLY) | O_CLOEXEC));
		return io->fd[i] < 0 ? -1 : 0;
	}
	return 0;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
spawnChild(const mhlSpawn *c, const spawnIo *io, const char *path, int report, long maxfd, pid_t parent)
{
	sigset_t none;
	int i, e;

	for (i = 0; i < 3; i++) {
		if (io->fd[i] < 0)
			continue;
		if (dup2(io->fd[i], i) < 0)	/* fd[i] > 2 (fdAboveStdio): the copy is not close-on-exec */
			goto fail;
	}
	if (c->dir && chdir(c->dir) < 0)
		goto fail;
	/* nothing of ours past stdio: libvirt's, the guard's pipe, another thread's */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (i = 3; i < maxfd; i++)
			if (i != report)
				fcntl(i, F_SETFD, FD_CLOEXEC);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* SIGKILL when we end; we may have ended between fork and here already: then it goes now */
	if (c->die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		goto fail;
	if (c->die_with_parent && getppid() != parent) {
		errno = ESRCH;
		goto fail;
	}
	execve(path, (char *const *)c->argv, (char *const *)(c->envp ? c->envp : (const char *const *)environ));
fail:
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork and exec with @io; 0, or -1 + why. */
static int spawnFork(mhlSpawn *c, spawnIo *io)
{
	const char *name = c->argv[0];
	g_autofree char *path = strchr(name, '/') ? g_strdup(name) : g_find_program_in_path(name);
	long maxfd = MIN(sysconf(_SC_OPEN_MAX), 65536);
	int report[2], e = 0;
	pid_t parent;
	ssize_t n;

	if (!path)
		return spawnFail(c, ENOENT, "cannot run '%s': not found in PATH", name);
	if (pipe2(report, O_CLOEXEC) < 0)
		return spawnFail(c, errno, "cannot run '%s': %s", name, g_strerror(errno));
	if ((report[1] = fdAboveStdio(report[1])) < 0) {
		e = errno;
		close(report[0]);
		return spawnFail(c, e, "cannot run '%s': %s", name, g_strerror(e));
	}
	parent = getpid();
	c->pid = fork();
	if (c->pid == 0)
		spawnChild(c, io, path, report[1], maxfd, parent);
	e = errno;
	close(report[1]);
	if (c->pid < 0) {
		close(report[0]);
		c->pid = 0;
		return spawnFail(c, e, "cannot run '%s': %s", name, g_strerror(e));
	}
	do
		n = read(report[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(e)) {	/* exec failed: the child is gone with 127 */
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
		return spawnFail(c, e, "cannot run '%s': %s", name, g_strerror(e));
	}
	return 0;
}

/* Set up stdio, fork, exec; our ends of the captures stay in @io. */
static int spawnBegin(mhlSpawn *c, spawnIo *io)
{
	const mhlSpawnIo modes[3] = { c->in, c->out, c->err };
	const char *files[3] = { NULL, c->out_file, c->err_file };
	int i, rc;

	g_clear_pointer(&c->why, g_free);
	c->ended = false;
	c->errnum = 0;
	for (i = 0; i < 3; i++)
		io->fd[i] = io->pipe_r[i] = -1;
	for (i = 0; i < 3; i++)
		if (spawnIoOpen(io, i, modes[i], files[i]) < 0) {
			int e = errno;

			spawnIoClose(io);
			return spawnFail(c, e, "cannot run '%s': its %s: %s", c->argv[0],
					 i ? i == 1 ? "stdout" : "stderr" : "stdin", g_strerror(e));
		}
	rc = spawnFork(c, io);
	for (i = 0; i < 3; i++)	/* the child's ends: the child has them */
		if (io->fd[i] >= 0) {
			close(io->fd[i]);
			io->fd[i] = -1;
		}
	if (rc < 0)
		spawnIoClose(io);
	return rc;
}

int mhlSpawnStart(mhlSpawn *c)
{
	spawnIo io;

	if (c->out == MHL_SPAWN_CAPTURE || c->err == MHL_SPAWN_CAPTURE)
		return spawnFail(c, EINVAL, "cannot run '%s': a capture needs mhlSpawnRun", c->argv[0]);
	return spawnBegin(c, &io);
}

/* waitpid for a started child; false while it runs (@flags WNOHANG). */
static bool spawnWait(mhlSpawn *c, int flags)
{
	pid_t r;

	if (!c->pid)
		return true;
	while ((r = waitpid(c->pid, &c->status, flags)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return false;
	c->pid = 0;
	c->ended = r > 0;	/* not ours to wait for (ECHILD): no status */
	return true;
}

bool mhlSpawnPoll(mhlSpawn *c)
{
	return spawnWait(c, WNOHANG);
}

void mhlSpawnKill(mhlSpawn *c)
{
	if (!c->pid)
		return;
	kill(c->pid, SIGKILL);
	spawnWait(c, 0);
}

/* Read the captures until both reach their end or @deadline (mhlNow(), 0: none) passes; false then. */
static bool spawnRead(spawnIo *io, GString *text[3], double deadline)
{
	for (;;) {
		struct pollfd p[2];
		int idx[2], n = 0, i, wait = -1;

		for (i = 1; i < 3; i++)
			if (io->pipe_r[i] >= 0) {
				p[n] = (struct pollfd){ .fd = io->pipe_r[i], .events = POLLIN };
				idx[n++] = i;
			}
		if (!n)
			return true;
		if (deadline > 0 && (wait = (int)((deadline - mhlNow()) * 1000) + 1) <= 0)
			return false;
		if (poll(p, n, wait) < 0 && errno != EINTR)
			return true;	/* cannot happen with valid descriptors: stop reading */
		for (i = 0; i < n; i++) {
			char buf[4096];
			ssize_t r;

			if (!p[i].revents)
				continue;
			if ((r = read(p[i].fd, buf, sizeof(buf))) > 0) {
				g_string_append_len(text[idx[i]], buf, r);
			} else if (r == 0 || errno != EINTR) {
				close(io->pipe_r[idx[i]]);
				io->pipe_r[idx[i]] = -1;
			}
		}
	}
}

int mhlSpawnRun(mhlSpawn *c)
{
	double deadline = c->timeout > 0 ? mhlNow() + c->timeout : 0;
	g_autoptr(GString) out = g_string_new(NULL), err = g_string_new(NULL);
	GString *text[3] = { NULL, out, err };
	spawnIo io;
	bool in_time;

	g_clear_pointer(&c->out_text, g_free);
	g_clear_pointer(&c->err_text, g_free);
	if (spawnBegin(c, &io) < 0)
		return -1;
	in_time = spawnRead(&io, text, deadline);
	spawnIoClose(&io);
	if (in_time && deadline <= 0)
		spawnWait(c, 0);
	while (in_time && !mhlSpawnPoll(c)) {	/* it closed its output and runs on */
		if (mhlNow() >= deadline)
			in_time = false;
		else
			g_usleep(10 * 1000);
	}
	mhlSpawnKill(c);
	c->out_text = g_string_free(g_steal_pointer(&out), FALSE);
	c->err_text = g_string_free(g_steal_pointer(&err), FALSE);
	if (!in_time)
		return spawnFail(c, ETIMEDOUT, "'%s' did not end within %g s (killed)", c->argv[0], c->timeout);
	return 0;
}

char *mhlSpawnStatusWords(int status)
{
	if (WIFEXITED(status))
		return g_strdup_printf("exited with status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return g_strdup_printf("was killed by signal %d (%s)%s", WTERMSIG(status), g_strsignal(WTERMSIG(status)),
				       WCOREDUMP(status) ? ", core dumped" : "");
	return g_strdup_printf("ended with wait status %#x", (unsigned)status);
}

int mhlSpawnCheck(mhlSpawn *c)
{
	g_autofree char *words = NULL;

	if (!c->ended)
		return spawnFail(c, ECHILD, "'%s' has not ended", c->argv[0]);
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0)
		return 0;
	words = mhlSpawnStatusWords(c->status);
	return spawnFail(c, ECHILD, "'%s' %s", c->argv[0], words);
}

void mhlSpawnClear(mhlSpawn *c)
{
	mhlSpawnKill(c);
	g_clear_pointer(&c->out_text, g_free);
	g_clear_pointer(&c->err_text, g_free);
	g_clear_pointer(&c->why, g_free);
}
