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

/* Monotonic seconds. */
double mhlNow(void);

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
void mhlLineReaderFree(mhlLineReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlLineReader, mhlLineReaderFree)

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
