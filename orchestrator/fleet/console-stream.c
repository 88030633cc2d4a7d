/*
 * console-stream.c - a fleet guest's serial console (a pty on its host)
 * comes back as a libvirt stream (virDomainOpenConsole) into the local run
 * directory, so the console watcher, the record's findings and the report's
 * excerpts read it as they read a local guest's log. The guest is created
 * paused and resumed once the stream is open: no line of the boot is lost.
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <unistd.h>

#include "util.h"

struct mhlConsoleStream {
	virStreamPtr st;
	int fd;
	pthread_t thread;
	gint done;		/* the copy has ended */
};

/* Until end of file (the domain stopped) or an error (the connection went). */
static void *consoleCopy(void *opaque)
{
	mhlConsoleStream *cs = opaque;
	char buf[16384];
	int n;

	while ((n = virStreamRecv(cs->st, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off < n) {
			ssize_t w = write(cs->fd, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				goto out;
			off += w;
		}
	}
out:
	g_atomic_int_set(&cs->done, 1);
	return NULL;
}

mhlConsoleStream *mhlConsoleStreamStart(virDomainPtr dom, const char *path)
{
	g_autofree mhlConsoleStream *cs = g_new0(mhlConsoleStream, 1);
	const char *name = virDomainGetName(dom);	/* before the calls: each public call resets the last error */

	if ((cs->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		mhlError("cannot create the console log '%s': %s", path, g_strerror(errno));
		return NULL;
	}
	if (!(cs->st = virStreamNew(virDomainGetConnect(dom), 0)) ||
	    virDomainOpenConsole(dom, NULL, cs->st, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		mhlErrorVirt("cannot open the serial console of domain '%s' as a stream", name);
		if (cs->st)
			virStreamFree(cs->st);
		close(cs->fd);
		return NULL;
	}
	if (pthread_create(&cs->thread, NULL, consoleCopy, cs) != 0) {
		mhlError("cannot start the console stream's thread for domain '%s'", name);
		virStreamAbort(cs->st);
		virStreamFree(cs->st);
		close(cs->fd);
		return NULL;
	}
	return g_steal_pointer(&cs);
}

void mhlConsoleStreamStop(mhlConsoleStream *cs)
{
	double end = mhlNow() + 5;

	if (!cs)
		return;
	/* the domain is gone: its end of the stream follows within moments */
	while (!g_atomic_int_get(&cs->done) && mhlNow() < end)
		g_usleep(20 * 1000);
	virStreamAbort(cs->st);
	pthread_join(cs->thread, NULL);
	mhlErrorReset();
	virStreamFree(cs->st);
	close(cs->fd);
	g_free(cs);
}
