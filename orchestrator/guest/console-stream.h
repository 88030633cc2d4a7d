/*
 * console-stream.h - a guest's serial console copied into the local run
 * directory (console-stream.c): from its pty on this host, or as a libvirt
 * stream from a fleet host; the log capped.
 */
#ifndef MHL_GUEST_CONSOLE_STREAM_H
#define MHL_GUEST_CONSOLE_STREAM_H

#include <glib.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The serial console of @dom (a pty) copied into the local file @path by a
 * thread of its own, until the domain stops or the connection goes: from the pty @pty when it is on this host, else as a
 * stream (virDomainOpenConsole). The log holds at most mhlConsoleLogMax()
 * bytes: its head goes to the file as it comes, the guest's last bytes
 * (MHL_CONSOLE_TAIL_MAX at most, a quarter of the cap) are held in memory and
 * written at the end, from a line's start, after a line saying what was
 * dropped between them; @mode says what becomes of a file already at @path.
 */
#define MHL_CONSOLE_MAX_DEFAULT (64ULL << 20)	/* bytes of a console log; MHL_CONSOLE_MAX changes it */
#define MHL_CONSOLE_TAIL_MAX (1U << 20)		/* bytes of the log's tail at most */

typedef struct {
	int fd;
	guint64 max;		/* bytes kept: head + tail */
	guint64 head;		/* bytes written to the file as they come (@max less the tail) */
	guint64 written;	/* bytes in the file */
	guint64 over;		/* bytes past @head, the last @tail_cap of them in @tail */
	guint64 dropped;	/* bytes read and dropped (final after mhlConsoleLogClose) */
	char *tail;		/* a ring of @tail_cap bytes, the next one at over % tail_cap */
	size_t tail_cap;
} mhlConsoleLog;

/* The cap: MHL_CONSOLE_MAX (a size, at least 4 KiB) or MHL_CONSOLE_MAX_DEFAULT. -1 + mhlError. */
int mhlConsoleLogMax(guint64 *max);
typedef enum {
	MHL_CONSOLE_LOG_NEW,		/* @path must not exist: a trial's log is never another's */
	MHL_CONSOLE_LOG_TRUNCATE,	/* emptied: a soak segment's */
	MHL_CONSOLE_LOG_APPEND,		/* the same guest in a new QEMU (restored, migrated): its log goes on */
} mhlConsoleLogMode;

/* Open @path for the log as @mode says; appended to, the bytes there count against the cap. -1 + mhlError. */
int mhlConsoleLogOpen(mhlConsoleLog *log, const char *path, mhlConsoleLogMode mode);
/* Append to the head while it has room, the rest to the tail's ring. -1 when the write fails. */
int mhlConsoleLogWrite(mhlConsoleLog *log, const char *buf, size_t n);
/* The tail: whole if nothing was dropped, else a line saying what was and the tail's last lines; then close. */
void mhlConsoleLogClose(mhlConsoleLog *log);

typedef struct mhlConsoleStream mhlConsoleStream;
mhlConsoleStream *mhlConsoleStreamStart(virDomainPtr dom, const char *path, const char *pty,
					mhlConsoleLogMode mode);
/* Wait for the copy's end (after the domain was destroyed) and free it: the bytes dropped past the cap. */
guint64 mhlConsoleStreamStop(mhlConsoleStream *cs);

#endif
