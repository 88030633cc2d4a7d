#include "util.h"

#include <libvirt/virterror.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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
