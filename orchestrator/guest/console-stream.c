/*
 * console-stream.c - a guest's serial console (a pty) comes back into the
 * local run directory: a fleet guest's as a libvirt stream
 * (virDomainOpenConsole), a local guest's read from its pty here, so the
 * console watcher, the record's findings and the report's excerpts read it
 * as a file. The guest is created paused and resumed once the copy runs: no
 * line of the boot is lost.
 *
 * The guest may print without end (issue 30, finding 17): a log holds at
 * most MEMHP_CONSOLE_MAX bytes (64 MiB; the environment variable of that name
 * changes it). Its head goes to the file as it comes; the last quarter of the
 * cap (1 MiB at most) is a ring in memory, written at the end: whole when it
 * held all the rest, else after a line saying how much was dropped and from
 * the first line that starts in it. A kernel that floods its console and then
 * panics has the panic in its log, where the scanner and the report find it;
 * the watcher sees the tail only when the guest has stopped. A trial's log
 * is created, never truncated (finding 9): a file already there is another
 * trial's, and the trial fails rather than overwrite it.
 */
#include <glib.h>

#include "guest/console-stream.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "mhl-size.h"
#include "util.h"

int mhlConsoleLogMax(guint64 *max)
{
	const char *env = g_getenv("MEMHP_CONSOLE_MAX");
	uint64_t v;

	*max = MHL_CONSOLE_MAX_DEFAULT;
	if (!env || !*env)
		return 0;
	if (mhl_size_parse(env, &v) < 0 || v < 4096) {
		mhlError("MEMHP_CONSOLE_MAX='%s': not a size of 4 KiB or more (a console log's cap, e.g. 64M)", env);
		return -1;
	}
	*max = v;
	return 0;
}

int mhlConsoleLogOpen(mhlConsoleLog *log, const char *path, mhlConsoleLogMode mode)
{
	static const int how[] = {
		[MHL_CONSOLE_LOG_NEW] = O_EXCL, [MHL_CONSOLE_LOG_TRUNCATE] = O_TRUNC,
		[MHL_CONSOLE_LOG_APPEND] = 0,
	};
	struct stat sb;

	memset(log, 0, sizeof(*log));
	log->fd = -1;
	if (mhlConsoleLogMax(&log->max) < 0)
		return -1;
	log->tail_cap = (size_t)MIN(log->max / 4, (guint64)MHL_CONSOLE_TAIL_MAX);
	log->head = log->max - log->tail_cap;
	{
		g_autofree char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);

		/* below the run directory's descriptor, no link followed (mhlOpenAt: a regular file of one link) */
		log->fd = mhlOpenIn(dir, base, O_WRONLY | O_CREAT | O_APPEND | how[mode], 0644);
	}
	if (log->fd < 0 && mode == MHL_CONSOLE_LOG_NEW && errno == EEXIST) {
		mhlError("console log '%s' exists already: another trial's (two trial ids that name one log are refused by check and run) or an earlier run's; it is not overwritten",
			 path);
		return -1;
	}
	if (log->fd < 0) {
		mhlError("cannot create the console log '%s': %s", path, g_strerror(errno));
		return -1;
	}
	if (fstat(log->fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		mhlError("console log '%s' is not a regular file", path);
		close(log->fd);
		log->fd = -1;
		return -1;
	}
	log->written = (guint64)sb.st_size;	/* appended to: what is there counts against the head */
	return 0;
}

/* All of @n bytes to @fd; false on an error. */
static bool writeAll(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

int mhlConsoleLogWrite(mhlConsoleLog *log, const char *buf, size_t n)
{
	size_t room = log->written < log->head ? (size_t)MIN((guint64)n, log->head - log->written) : 0;

	if (room && !writeAll(log->fd, buf, room))
		return -1;
	log->written += room;
	buf += room;
	n -= room;
	if (!n)
		return 0;
	if (!log->tail)
		log->tail = g_malloc(log->tail_cap);
	/* only the last tail_cap bytes of @buf can stay */
	if (n > log->tail_cap) {
		log->over += n - log->tail_cap;
		buf += n - log->tail_cap;
		n = log->tail_cap;
	}
	while (n) {
		size_t at = (size_t)(log->over % log->tail_cap), k = MIN(n, log->tail_cap - at);

		memcpy(log->tail + at, buf, k);
		log->over += k;
		buf += k;
		n -= k;
	}
	log->dropped = log->over > log->tail_cap ? log->over - log->tail_cap : 0;
	return 0;
}

void mhlConsoleLogClose(mhlConsoleLog *log)
{
	g_autofree char *ring = NULL;
	size_t len = 0, from = 0;

	if (log->fd < 0)
		return;
	if (log->over) {
		/* the ring in order: its oldest byte first */
		len = (size_t)MIN(log->over, (guint64)log->tail_cap);
		ring = g_malloc(len);
		if (log->over <= log->tail_cap) {
			memcpy(ring, log->tail, len);
		} else {
			size_t at = (size_t)(log->over % log->tail_cap);

			memcpy(ring, log->tail + at, len - at);
			memcpy(ring + len - at, log->tail, at);
		}
	}
	if (log->over > log->tail_cap) {
		g_autofree char *note = NULL;
		const char *nl = memchr(ring, '\n', len);

		/* from the first line that starts in the ring; a ring of one line is kept whole */
		if (nl && (size_t)(nl - ring) + 1 < len)
			from = (size_t)(nl - ring) + 1;
		log->dropped = log->over - (len - from);
		note = g_strdup_printf("\n[memhp-lab: console log cut at %" G_GUINT64_FORMAT
				       " bytes (MEMHP_CONSOLE_MAX): its first %" G_GUINT64_FORMAT
				       " bytes, then %" G_GUINT64_FORMAT " more bytes from the guest dropped]\n",
				       log->max, log->written, log->dropped);
		(void)writeAll(log->fd, note, strlen(note));
	}
	if (len - from && writeAll(log->fd, ring + from, len - from))
		log->written += len - from;
	g_free(log->tail);
	log->tail = NULL;
	close(log->fd);
	log->fd = -1;
}

struct mhlConsoleStream {
	virStreamPtr st;	/* a fleet host's console; NULL for a local pty */
	int pty;		/* a local guest's pty, or -1 */
	mhlConsoleLog log;
	pthread_t thread;
	gint done;		/* the copy has ended */
	gint stop;		/* end the copy (a local pty) */
};

/* Until end of file (the domain stopped) or an error (the connection went); a full log drops the rest. */
static void *consoleCopy(void *opaque)
{
	mhlConsoleStream *cs = opaque;
	char buf[16384];

	for (;;) {
		ssize_t n;

		if (cs->st) {
			n = virStreamRecv(cs->st, buf, sizeof(buf));
		} else {
			struct pollfd pfd = { .fd = cs->pty, .events = POLLIN };
			int r = poll(&pfd, 1, 100);

			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0) {
				if (g_atomic_int_get(&cs->stop))
					break;
				continue;
			}
			n = r < 0 ? -1 : read(cs->pty, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
		}
		if (n <= 0 || mhlConsoleLogWrite(&cs->log, buf, (size_t)n) < 0)
			break;
	}
	g_atomic_int_set(&cs->done, 1);
	return NULL;
}

/* The host side of a local guest's serial pty, raw (no echo back into the guest). */
static int ptyOpen(const char *pty, const char *name)
{
	struct termios tio;
	int fd = open(pty, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		mhlError("cannot open the serial console pty '%s' of domain '%s': %s", pty, name, g_strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &tio) < 0 || (cfmakeraw(&tio), tcsetattr(fd, TCSANOW, &tio)) < 0) {
		mhlError("cannot make the serial console pty '%s' of domain '%s' raw: %s", pty, name, g_strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

mhlConsoleStream *mhlConsoleStreamStart(virDomainPtr dom, const char *path, const char *pty,
					mhlConsoleLogMode mode)
{
	g_autofree mhlConsoleStream *cs = g_new0(mhlConsoleStream, 1);
	const char *name = virDomainGetName(dom);	/* before the calls: each public call resets the last error */

	cs->pty = -1;
	if (mhlConsoleLogOpen(&cs->log, path, mode) < 0)
		return NULL;
	if (pty && (cs->pty = ptyOpen(pty, name)) < 0) {
		mhlConsoleLogClose(&cs->log);
		return NULL;
	}
	if (!pty && (!(cs->st = virStreamNew(virDomainGetConnect(dom), 0)) ||
		     virDomainOpenConsole(dom, NULL, cs->st, VIR_DOMAIN_CONSOLE_FORCE) < 0)) {
		mhlErrorVirt("cannot open the serial console of domain '%s' as a stream", name);
		if (cs->st)
			virStreamFree(cs->st);
		mhlConsoleLogClose(&cs->log);
		return NULL;
	}
	if (pthread_create(&cs->thread, NULL, consoleCopy, cs) != 0) {
		mhlError("cannot start the console stream's thread for domain '%s'", name);
		if (cs->st) {
			virStreamAbort(cs->st);
			virStreamFree(cs->st);
		}
		if (cs->pty >= 0)
			close(cs->pty);
		mhlConsoleLogClose(&cs->log);
		return NULL;
	}
	return g_steal_pointer(&cs);
}

guint64 mhlConsoleStreamStop(mhlConsoleStream *cs)
{
	double end = mhlNow() + 5;
	guint64 dropped;

	if (!cs)
		return 0;
	/* the domain is gone: its end of the stream follows within moments */
	while (!g_atomic_int_get(&cs->done) && mhlNow() < end)
		g_usleep(20 * 1000);
	g_atomic_int_set(&cs->stop, 1);
	if (cs->st)
		virStreamAbort(cs->st);
	pthread_join(cs->thread, NULL);
	mhlErrorReset();
	if (cs->st)
		virStreamFree(cs->st);
	if (cs->pty >= 0)
		close(cs->pty);
	mhlConsoleLogClose(&cs->log);	/* the tail written: what was dropped is known */
	dropped = cs->log.dropped;
	g_free(cs);
	return dropped;
}
