#include "util.h"

#include <libvirt/virterror.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Per thread: trials run in parallel (-j), each reports its own first error. */
static __thread char *lastError;
volatile int mhlInterrupted;
bool mhlErrorDebug;

static void mhlErrorSet(const char *file, int line, char *msg)
{
	if (lastError) {
		g_debug("later error (%s:%d): %s", file, line, msg);
		g_free(msg);
		return;
	}
	/* where in our source: for developers (--debug), never in records or reports */
	if (mhlErrorDebug) {
		lastError = g_strdup_printf("%s (%s:%d)", msg, file, line);
		g_free(msg);
	} else {
		lastError = msg;
	}
}

void mhlErrorAt(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mhlErrorSet(file, line, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

void mhlErrorVirtAt(const char *file, int line, const char *fmt, ...)
{
	const char *vmsg = virGetLastErrorMessage();
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	mhlErrorSet(file, line, g_strdup_printf("%s: %s", msg, vmsg ? vmsg : "unknown libvirt error"));
}

const char *mhlErrorLast(void)
{
	return lastError ? lastError : "unknown error";
}

void mhlErrorReset(void)
{
	g_clear_pointer(&lastError, g_free);
}

char *mhlErrorSteal(void)
{
	return g_steal_pointer(&lastError);
}

void mhlErrorRestore(char *saved)
{
	g_free(lastError);
	lastError = saved;
}

const char *mhlRunHostId(void)
{
	static gsize once;
	static char *id;

	if (g_once_init_enter(&once)) {
		char *text = NULL;

		if (g_file_get_contents("/etc/machine-id", &text, NULL, NULL) && *g_strstrip(text) &&
		    strspn(text, "0123456789abcdef") == strlen(text))
			id = text;
		else {
			g_free(text);
			id = g_strdup(g_get_host_name());
		}
		g_once_init_leave(&once, 1);
	}
	return id;
}

double mhlNow(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mhlOnSignal(int sig)
{
	mhlInterrupted = sig;
}

void mhlSignalsInstall(void)
{
	struct sigaction sa = { .sa_handler = mhlOnSignal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A file size limit is a failed write to report (and undo), not a silent death. */
	signal(SIGXFSZ, SIG_IGN);
}

char *mhlFileRead(const char *path, gsize *len)
{
	g_autoptr(GError) err = NULL;
	char *data = NULL;

	if (!g_file_get_contents(path, &data, len, &err)) {
		mhlError("cannot read '%s': %s", path, err->message);
		return NULL;
	}
	return data;
}

int mhlFileOpenRegular(const char *path)
{
	struct stat sb;
	int e, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0)
		e = errno;
	else if (!S_ISREG(sb.st_mode))
		e = EINVAL;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

#define LINE_READ_CHUNK (64 * 1024)

struct mhlLineReader {
	int fd;
	gsize max;
	char buf[LINE_READ_CHUNK];
	gsize pos, fill;	/* buf[pos..fill) not yet looked at */
	bool eof;
	GString *line;
	bool cut;
	bool newline;	/* the last line returned ended with a '\n' */
	guint64 lineno;
};

mhlLineReader *mhlLineReaderNew(int fd, gsize max)
{
	mhlLineReader *r = g_new0(mhlLineReader, 1);

	r->fd = fd;
	r->max = max;
	r->line = g_string_sized_new(MIN(max, 4096) + 1);
	return r;
}

/* Keep what still fits of @n bytes of the line. */
static void lineKeep(mhlLineReader *r, const char *p, gsize n)
{
	gsize room = r->max - MIN(r->max, r->line->len);

	if (n > room)
		r->cut = true;
	g_string_append_len(r->line, p, (gssize)MIN(n, room));
}

bool mhlLineReaderNext(mhlLineReader *r, const char **line, gsize *len, bool *cut, guint64 *lineno)
{
	g_string_truncate(r->line, 0);
	r->cut = false;
	r->newline = false;
	for (;;) {
		const char *nl;
		ssize_t n;

		if (r->pos < r->fill) {
			nl = memchr(r->buf + r->pos, '\n', r->fill - r->pos);
			if (nl) {
				lineKeep(r, r->buf + r->pos, (gsize)(nl - (r->buf + r->pos)));
				r->pos = (gsize)(nl - r->buf) + 1;
				r->newline = true;
				break;
			}
			lineKeep(r, r->buf + r->pos, r->fill - r->pos);
			r->pos = r->fill;
		}
		if (r->eof)
			return false;
		n = read(r->fd, r->buf, sizeof(r->buf));
		if (n < 0 && errno == EINTR)
			continue;
		r->pos = 0;
		r->fill = n > 0 ? (gsize)n : 0;
		if (n <= 0) {
			r->eof = true;
			/* the last line, not ended by a newline */
			if (!r->line->len && !r->cut)
				return false;
			break;
		}
	}
	*line = r->line->str;
	*len = r->line->len;
	if (cut)
		*cut = r->cut;
	*lineno = ++r->lineno;
	return true;
}

bool mhlLineReaderNewline(const mhlLineReader *r)
{
	return r->newline;
}

void mhlLineReaderFree(mhlLineReader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	g_string_free(r->line, TRUE);
	g_free(r);
}

char *mhlTemplateExpand(const char *tmpl, const char *const *pairs, const char *name)
{
	g_autoptr(GString) out = g_string_new(NULL);
	const char *p = tmpl;

	while (*p) {
		const char *at = strchr(p, '@'), *end;
		size_t i;

		if (!at) {
			g_string_append(out, p);
			break;
		}
		g_string_append_len(out, p, at - p);
		end = strchr(at + 1, '@');
		if (!end) {
			mhlError("template '%s': unterminated '@' at offset %td", name, at - tmpl);
			return NULL;
		}
		for (i = 0; pairs[i]; i += 2) {
			if (strlen(pairs[i]) == (size_t)(end - at - 1) &&
			    !strncmp(pairs[i], at + 1, end - at - 1))
				break;
		}
		if (!pairs[i]) {
			mhlError("template '%s': unknown placeholder '%.*s'", name,
				 (int)(end - at + 1), at);
			return NULL;
		}
		g_string_append(out, pairs[i + 1]);
		p = end + 1;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

void mhlFdClose(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

int mhlDirOpen(const char *path)
{
	char *real = realpath(path, NULL);
	int fd, e;

	if (!real)
		return -1;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	free(real);
	errno = e;
	return fd;
}

/* One component below @at as a directory: no link followed, made first with @create. */
static int dirStep(int at, const char *name, bool create)
{
	struct stat sb;
	int fd;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return -1;
	}
	if (create && mkdirat(at, name, 0755) < 0 && errno != EEXIST)
		return -1;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* a link is said as one (O_DIRECTORY answers ENOTDIR before O_NOFOLLOW's ELOOP) */
	if (fd < 0 && errno == ENOTDIR && fstatat(at, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
		errno = ELOOP;
	return fd;
}

/*
 * The directory of @rel's last component below @dirfd (a new descriptor),
 * *@last pointing at that component in @parts. -1 + errno.
 */
static int walkParent(int dirfd, char **parts, bool create, const char **last)
{
	int cur = dirfd, next;
	guint i, n = g_strv_length(parts);

	if (!n || !*parts[n - 1] || !strcmp(parts[n - 1], ".") || !strcmp(parts[n - 1], "..")) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i + 1 < n; i++) {
		next = dirStep(cur, parts[i], create);
		if (cur != dirfd) {
			int e = errno;

			close(cur);
			errno = e;
		}
		if (next < 0)
			return -1;
		cur = next;
	}
	*last = parts[n - 1];
	return cur == dirfd ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) : cur;
}

int mhlDirOpenAt(int dirfd, const char *rel, bool create)
{
	g_auto(GStrv) parts = g_strsplit(rel, "/", -1);
	const char *last = NULL;
	int at = walkParent(dirfd, parts, create, &last), fd, e;

	if (at < 0)
		return -1;
	fd = dirStep(at, last, create);
	e = errno;
	close(at);
	errno = e;
	return fd;
}

int mhlOpenAt(int dirfd, const char *rel, int flags, mode_t mode)
{
	g_auto(GStrv) parts = g_strsplit(rel, "/", -1);
	bool trunc = flags & O_TRUNC, writing = (flags & O_ACCMODE) != O_RDONLY;
	const char *last = NULL;
	struct stat sb;
	int at = walkParent(dirfd, parts, flags & O_CREAT, &last), fd, e;

	if (at < 0)
		return -1;
	/* O_TRUNC only once the file is judged: a hard link is refused, not emptied */
	fd = openat(at, last, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
	e = errno;
	close(at);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, &sb) < 0)
		e = errno;
	else if (!S_ISREG(sb.st_mode))
		e = EINVAL;
	else if (writing && sb.st_nlink > 1)
		e = EMLINK;
	else if (trunc && ftruncate(fd, 0) < 0)
		e = errno;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

const char *mhlOpenWhy(int e)
{
	return e == ELOOP ? "a symbolic link (a run directory's files are never opened through one)" :
	       e == EINVAL ? "not a regular file" :
	       e == EMLINK ? "it has more than one link (a hard link is never written through)" : g_strerror(e);
}

int mhlOpenIn(const char *dir, const char *rel, int flags, mode_t mode)
{
	int dfd = mhlDirOpen(dir), fd, e;

	if (dfd < 0)
		return -1;
	fd = mhlOpenAt(dfd, rel, flags, mode);
	e = errno;
	close(dfd);
	errno = e;
	return fd;
}

/* errno as a reason, the errors of mhlOpenAt said in words */
static const char *openWhy(int e)
{
	switch (e) {
	case ELOOP:
		return "a symbolic link (never followed in a run directory)";
	case EINVAL:
		return "not a regular file";
	case EMLINK:
		return "a file with more than one link (a hard link is never written through)";
	default:
		return g_strerror(e);
	}
}

int mhlFileWriteAt(int dirfd, const char *rel, const char *where, const char *data, gssize len)
{
	g_auto(GStrv) parts = g_strsplit(rel, "/", -1);
	g_autofree char *tmp = NULL;
	const char *last = NULL;
	size_t n = len < 0 ? strlen(data) : (size_t)len, off = 0;
	int at = walkParent(dirfd, parts, true, &last), fd = -1, e = 0;

	if (at < 0) {
		mhlError("cannot write '%s': %s", where, openWhy(errno));
		return -1;
	}
	tmp = g_strdup_printf(".%s.%d-%08x", last, (int)getpid(), g_random_int());
	fd = openat(at, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		e = errno;
	while (!e && off < n) {
		ssize_t w = write(fd, data + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? errno : ENOSPC;
		else
			off += (size_t)w;
	}
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno;
	/* renamed over the name: a link there is replaced, never followed */
	if (!e && renameat(at, tmp, at, last) < 0)
		e = errno;
	if (e) {
		if (fd >= 0)
			unlinkat(at, tmp, 0);
		close(at);
		mhlError("cannot write '%s': %s", where, g_strerror(e));
		return -1;
	}
	close(at);
	return 0;
}

char *mhlFileReadAt(int dirfd, const char *rel, const char *where, gsize max, gsize *len, bool *missing)
{
	g_autofree char *buf = NULL;
	struct stat sb;
	gsize got = 0;
	int fd = mhlOpenAt(dirfd, rel, O_RDONLY, 0);

	if (missing)
		*missing = fd < 0 && errno == ENOENT;
	if (fd < 0) {
		if (!missing || !*missing)
			mhlError("cannot read '%s': %s", where, openWhy(errno));
		return NULL;
	}
	if (fstat(fd, &sb) < 0) {
		mhlError("cannot read '%s': %s", where, g_strerror(errno));
		close(fd);
		return NULL;
	}
	if ((guint64)sb.st_size > max) {
		mhlError("cannot read '%s': %lld bytes, more than the %" G_GSIZE_FORMAT " memhp-lab reads of such a file",
			 where, (long long)sb.st_size, max);
		close(fd);
		return NULL;
	}
	buf = g_malloc((gsize)sb.st_size + 1);
	while (got < (gsize)sb.st_size) {
		ssize_t n = read(fd, buf + got, (gsize)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mhlError("cannot read '%s': %s", where, g_strerror(errno));
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		got += (gsize)n;
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return g_steal_pointer(&buf);
}

/* As root under sudo: the uid SUDO_UID names (into *@uid), who ran memhp-lab. */
static bool sudoUid(uid_t *uid)
{
	const char *sudo = getuid() == 0 && geteuid() == 0 ? g_getenv("SUDO_UID") : NULL;
	char *end;
	unsigned long su;

	if (!sudo || !*sudo)
		return false;
	su = strtoul(sudo, &end, 10);
	*uid = (uid_t)su;
	return !*end;
}

/* Whether @uid is the invoking user: this one, or (as root under sudo) SUDO_UID. */
static bool uidInvoker(uid_t uid)
{
	uid_t su;

	return uid == geteuid() || (sudoUid(&su) && uid == su);
}

int mhlRunDirTrusted(int fd, const char *path, const char *what)
{
	uid_t me = geteuid(), su;
	struct stat sb;

	if (fstat(fd, &sb) < 0) {
		mhlError("%s: run directory '%s': %s", what, path, g_strerror(errno));
		return -1;
	}
	if (!uidInvoker(sb.st_uid)) {
		mhlError("%s: run directory '%s' is owned by uid %u, not by you (uid %u)%s: its owner could put links and files into it between two of memhp-lab's writes; copy it into a directory of your own (cp -r) and give that",
			 what, path, (unsigned)sb.st_uid, (unsigned)me, sudoUid(&su) ? " or SUDO_UID" : "");
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		mhlError("%s: run directory '%s' is writable by %s (mode %04o): another user could put links and files into it between two of memhp-lab's writes; chmod go-w it, or copy it into a directory of your own",
			 what, path, sb.st_mode & S_IWOTH ? "every user" : "its group", (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

static int mhlRemoveEntry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

int mhlRemoveTree(const char *path)
{
	return nftw(path, mhlRemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

char *mhlRealPath(const char *p)
{
	char *real, *out;

	if (!p)
		return NULL;
	if (!(real = realpath(p, NULL)))
		return g_canonicalize_filename(p, NULL);
	out = g_strdup(real);
	free(real);
	return out;
}

/* Whether @uid is root or the invoking user: who may change what a resumed run loads. */
static bool uidTrusted(uid_t uid)
{
	return uid == 0 || uidInvoker(uid);
}

/*
 * @real (a real path) and every directory above it can be changed by no one
 * but root and this user: owned by them, writable by no group or other user
 * (a directory with the sticky bit, as /tmp, keeps others from replacing
 * what they do not own: the entry below it is judged on its own). A
 * scenario beside a run directory from elsewhere (an unpacked CI artifact)
 * is refused here, wherever it lies. -1 + mhlError.
 */
static int pathTrusted(const char *real, const char *what, const char *q)
{
	g_autofree char *p = g_strdup(real);
	struct stat st;
	bool leaf = true;

	for (;;) {
		if (lstat(p, &st) < 0) {
			mhlError("%s '%s': '%s': %s", what, q, p, g_strerror(errno));
			return -1;
		}
		if (!uidTrusted(st.st_uid)) {
			mhlError("%s '%s': '%s' is owned by uid %u, another user: a resumed run loads only files that no one but root and you can change (a file beside a run directory from elsewhere is data too)",
				 what, q, p, (unsigned)st.st_uid);
			return -1;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (leaf || !(st.st_mode & S_ISVTX) || st.st_uid != 0)) {
			mhlError("%s '%s': '%s' is writable by %s (mode %04o): a resumed run loads only files that no one but root and you can change",
				 what, q, p, st.st_mode & S_IWOTH ? "every user" : "its group", (unsigned)(st.st_mode & 07777));
			return -1;
		}
		if (!strcmp(p, "/"))
			return 0;
		{
			char *up = g_path_get_dirname(p);

			g_free(p);
			p = up;
		}
		leaf = false;
	}
}

int mhlRunDirPath(const char *rundir, const char *what, const char *path, bool dir, bool yaml)
{
	g_autofree char *cut = g_strndup(path, 200), *q = g_strescape(cut, NULL);
	g_autofree char *real = NULL, *root = NULL;
	struct stat st;
	size_t i, n;

	for (i = 0; path[i]; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) {
			mhlError("%s '%s': a control character in the path", what, q);
			return -1;
		}
	if (!g_path_is_absolute(path) || strlen(path) >= PATH_MAX) {
		mhlError("%s '%s': not an absolute path (run and soak write the real path of what they were given)",
			 what, q);
		return -1;
	}
	if (!(real = realpath(path, NULL))) {
		mhlError("%s '%s': %s", what, q, g_strerror(errno));
		return -1;
	}
	if (strcmp(real, path)) {
		mhlError("%s '%s': not its own real path (a symbolic link, '.', '..' or '//' on the way); a resumed run follows none",
			 what, q);
		return -1;
	}
	if (stat(real, &st) < 0 || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		mhlError("%s '%s': not a %s", what, q, dir ? "directory" : "regular file");
		return -1;
	}
	if (yaml && !g_str_has_suffix(real, ".yaml") && !g_str_has_suffix(real, ".yml")) {
		mhlError("%s '%s': not a scenario file (.yaml or .yml)", what, q);
		return -1;
	}
	if (pathTrusted(real, what, q) < 0)
		return -1;
	if (rundir && (root = realpath(rundir, NULL)) && g_str_has_prefix(real, root) &&
	    ((n = strlen(root)) == 1 || real[n] == '/' || !real[n])) {
		mhlError("%s '%s': inside the run directory '%s' that names it; a run directory is data, never a scenario, kernel or hosts file that a resumed run loads",
			 what, q, root);
		return -1;
	}
	return 0;
}
