/* util.h - error reporting and small helpers shared by the orchestrator. */
#ifndef MHL_UTIL_H
#define MHL_UTIL_H

#include <glib.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Report once, propagate -1: the function that knows what failed calls
 * mhlError(); callers return -1; main() prints "error: <message>" once.
 * The message carries file:line of the report. Only the first report is kept;
 * later ones (from cleanup paths) go to the debug log.
 */
/* Whether errors carry their source location, " (file.c:LINE)" (memhp-lab --debug). */
extern bool mhlErrorDebug;
#define mhlError(...) mhlErrorAt(__FILE__, __LINE__, __VA_ARGS__)
void mhlErrorAt(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append libvirt's last error to the message ("...: <libvirt message>"). */
#define mhlErrorVirt(...) mhlErrorVirtAt(__FILE__, __LINE__, __VA_ARGS__)
void mhlErrorVirtAt(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *mhlErrorLast(void);
void mhlErrorReset(void);
/*
 * Take the reported error out (NULL if none) and put it back later: for work
 * after a run (the report) whose own failure must not replace the run's error.
 * Restore frees whatever was reported in between.
 */
char *mhlErrorSteal(void);
void mhlErrorRestore(char *saved);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(json_object, json_object_put)

/* A descriptor closed when it goes out of scope (GLib's g_autofd is 2.76; Debian 12 has 2.74). */
void mhlFdClose(int *fd);
#define mhl_autofd __attribute__((cleanup(mhlFdClose)))

/* Monotonic seconds. */
double mhlNow(void);

/*
 * This machine, as the domains memhp-lab creates name it in their metadata
 * (MHL_RUN_METADATA_NS): /etc/machine-id, else the host name. Static, read once.
 */
#define MHL_RUN_METADATA_NS "https://github.com/memhp-lab/memhp-lab/run/1"
const char *mhlRunHostId(void);

/* Set by SIGINT/SIGTERM; every wait loop checks it. */
extern volatile int mhlInterrupted;
void mhlSignalsInstall(void);

/* Read a whole file; NULL + mhlError on failure. */
char *mhlFileRead(const char *path, gsize *len);

/*
 * Open @path for reading only if it is a regular file: opened without
 * blocking (a FIFO never waits for a writer) and without taking a terminal,
 * then judged on the descriptor (fstat), so what is read is what was checked.
 * A descriptor (close-on-exec), or -1 with errno (EINVAL: not a regular file).
 */
int mhlFileOpenRegular(const char *path);

/*
 * A file read a line at a time with bounded memory, whatever its size: a
 * read buffer and one line of at most @max bytes (the rest of a longer line
 * read and dropped). A line is the bytes before a '\n' (NUL included: by
 * length), or what follows the last one; numbered from 1 as the console
 * scanner numbers them.
 */
typedef struct mhlLineReader mhlLineReader;
/* Takes @fd (closed by mhlLineReaderFree). */
mhlLineReader *mhlLineReaderNew(int fd, gsize max);
/*
 * The next line (*@line, *@len: valid until the next call; *@cut when bytes
 * past @max were dropped) and its number; false at the end of the file or on
 * a read error.
 */
bool mhlLineReaderNext(mhlLineReader *r, const char **line, gsize *len, bool *cut, guint64 *lineno);
/* Whether the line mhlLineReaderNext returned last ended with a '\n' (false: the file's end cut it). */
bool mhlLineReaderNewline(const mhlLineReader *r);
void mhlLineReaderFree(mhlLineReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlLineReader, mhlLineReaderFree)

/*
 * Files of a run directory (docs/security.md, "Run directories: every file
 * through one descriptor"): the directory is opened once, without following
 * a link at its last component, and everything in it is opened relative to
 * that descriptor, one component at a time, never through a link.
 */
/*
 * @path's directory: its real path (the user named it; results/latest is a
 * link) opened O_DIRECTORY | O_NOFOLLOW. A descriptor, or -1 with errno.
 */
int mhlDirOpen(const char *path);
/*
 * @rel (components separated by '/', none '.' or '..' or empty) below
 * @dirfd: every directory on the way opened O_DIRECTORY | O_NOFOLLOW (with
 * O_CREAT in @flags, made 0755 when missing), the last component with
 * @flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC (a FIFO never
 * waits for a peer) and then judged on the descriptor: a regular file, and,
 * opened for writing, one with a single link (a hard link planted there
 * would have memhp-lab write another file). A descriptor, or -1 with errno
 * (ELOOP: a link on the way; EINVAL: not a regular file; EMLINK: more than
 * one link).
 */
int mhlOpenAt(int dirfd, const char *rel, int flags, mode_t mode);
/* @rel below @dirfd as a directory (O_DIRECTORY | O_NOFOLLOW at each component; with @create, made 0755). -1 + errno. */
int mhlDirOpenAt(int dirfd, const char *rel, bool create);
/* mhlOpenAt below mhlDirOpen(@dir): for a file of a run directory named by its path. -1 + errno. */
int mhlOpenIn(const char *dir, const char *rel, int flags, mode_t mode);
/* Why mhlOpenAt or mhlOpenIn refused, in words, from its errno @e (ELOOP, EINVAL, EMLINK; else strerror). */
const char *mhlOpenWhy(int e);
/*
 * @rel below @dirfd replaced by @len bytes of @data: written to a new file
 * beside it (O_EXCL) and renamed over it (a link there is replaced, never
 * followed). 0, or -1 + mhlError naming @where (the path, for the message).
 */
int mhlFileWriteAt(int dirfd, const char *rel, const char *where, const char *data, gssize len);
/*
 * A whole file of at most @max bytes below @dirfd (mhlOpenAt: a regular
 * file, no link followed), NUL-terminated. NULL + mhlError naming @where,
 * or with *@missing set (when not NULL) and no error when it does not exist.
 */
char *mhlFileReadAt(int dirfd, const char *rel, const char *where, gsize max, gsize *len, bool *missing);
/*
 * A run directory memhp-lab writes into (run, run --resume, soak): owned by
 * this user (or, as root under sudo, by SUDO_UID, who ran it) and writable
 * by no group or other user, who could otherwise put links and files into
 * it between two of its writes. @fd is the directory's descriptor, @path
 * for the message. 0, or -1 + mhlError.
 */
int mhlRunDirTrusted(int fd, const char *path, const char *what);

/* Remove a directory tree we created (no links followed). 0 or -1 + errno. */
int mhlRemoveTree(const char *path);

/* @p's real path (realpath(3): what a resumed run accepts); if it has none, @p made absolute. NULL for NULL. */
char *mhlRealPath(const char *p);

/*
 * A path that a run directory from elsewhere names (run.json, soak.json:
 * data, docs/security.md), held to what a resumed run may trust: absolute
 * and its own real path (realpath(3) gives it back unchanged: no '.', '..',
 * '//' or symbolic link on the way), no control character, outside
 * @rundir (the directory the user named; NULL: none), a regular file
 * (with @dir a directory), with @yaml named .yaml or .yml. 0, or -1 +
 * mhlError naming @what (e.g. "'DIR/run.json': scenarios[0]").
 */
int mhlRunDirPath(const char *rundir, const char *what, const char *path, bool dir, bool yaml);

/* Replace each @KEY@ in tmpl with the value from the NULL-terminated pairs. */
char *mhlTemplateExpand(const char *tmpl, const char *const *pairs, const char *name);

#endif
