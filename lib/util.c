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
	for (;;) {
		const char *nl;
		ssize_t n;

		if (r->pos < r->fill) {
			nl = memchr(r->buf + r->pos, '\n', r->fill - r->pos);
			if (nl) {
				lineKeep(r, r->buf + r->pos, (gsize)(nl - (r->buf + r->pos)));
				r->pos = (gsize)(nl - r->buf) + 1;
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
	if (rundir && (root = realpath(rundir, NULL)) && g_str_has_prefix(real, root) &&
	    ((n = strlen(root)) == 1 || real[n] == '/' || !real[n])) {
		mhlError("%s '%s': inside the run directory '%s' that names it; a run directory is data, never a scenario, kernel or hosts file that a resumed run loads",
			 what, q, root);
		return -1;
	}
	return 0;
}
