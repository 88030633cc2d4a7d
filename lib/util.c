#include "util.h"

#include <libvirt/virterror.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Per thread: trials run in parallel (-j), each reports its own first error. */
static __thread char *lastError;
volatile int mhlInterrupted;

static void mhlErrorSet(const char *file, int line, char *msg)
{
	if (lastError) {
		g_debug("later error (%s:%d): %s", file, line, msg);
		g_free(msg);
		return;
	}
	lastError = g_strdup_printf("%s (%s:%d)", msg, file, line);
	g_free(msg);
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
