/*
 * console.c - the console scanner (guest.h): kernel reports on the guest's
 * serial log, matched on each line as a terminal would show it. The guest
 * runs the kernel under test and may print anything: "Kernel X\bpanic" shows
 * "Kernel panic", "Kernel panic\b\b\b\b\b\bnormal" does not, and a report
 * 100 KiB into a line that never ends is still one. Bytes are read one at a
 * time through a small state machine (escape sequences, UTF-8 split between
 * two feeds), into a window of MHL_CONSOLE_LINE_MAX characters; when a line
 * outgrows it, its first half is final (matched, with the end of what came
 * before so that a report across the cut is found) and leaves it.
 */
#include <glib.h>

#include "guest/guest.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"

static const struct {
	const char *needle, *kind;
} consolePatterns[] = {
	{ "WARNING:", "warning" },
	{ "BUG:", "bug" },
	{ "Oops", "oops" },
	{ "Kernel panic", "panic" },
	{ "general protection fault", "gpf" },
	{ "blocked for more than", "hung_task" },
	{ "rcu_sched self-detected stall", "rcu_stall" },
	{ "rcu: INFO: rcu_preempt", "rcu_stall" },
	{ "detected stalls on CPUs", "rcu_stall" },
};

#define CONTEXT 32	/* characters kept of what left the window: longer than any needle */
#define STAMP_SPAN 64	/* characters after '[' read for the stamp */
#define REPLACEMENT 0xfffd

enum {
	ESC_NONE,
	ESC_START,	/* after ESC */
	ESC_CSI,	/* ESC [ parameters intermediates, up to a final byte */
	ESC_STRING,	/* OSC, DCS, SOS, PM, APC: up to BEL or ST, never past a newline */
	ESC_STRING_ESC,	/* an ESC inside one: ST if '\' follows */
	ESC_INTER,	/* ESC intermediates, up to a final byte */
};

struct mhlConsoleTerm {
	int esc;
	unsigned char u8[4];	/* a UTF-8 character not complete yet */
	int u8len, u8need;
	gunichar cells[MHL_CONSOLE_LINE_MAX];	/* the line's window, as shown */
	size_t n, cur;		/* characters in it; the cursor */
	gunichar ctx[CONTEXT];	/* the end of the line's text that left the window */
	size_t nctx;
	int stamp;		/* 0: not looked for yet, 1: a kernel line, -1: not one */
	size_t from;		/* the window's first character at or after the stamp's '[' */
	guint found;		/* patterns seen on this line (bit j: consolePatterns[j]) */
	GString *text;		/* the line from its stamp on, up to a little over MHL_CONSOLE_TEXT_MAX bytes */
	bool open;		/* a byte of this line was read */
};

/* Characters @c[0..@n) appended to @out as UTF-8. */
static void cellsAppend(GString *out, const gunichar *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		g_string_append_unichar(out, c[i]);
}

/* Whether the window holds "[ seconds]" at its first '[': the line's stamp (@at: where). */
static int stampFind(const struct mhlConsoleTerm *t, size_t *at)
{
	g_autoptr(GString) s = g_string_new(NULL);
	double ts;
	char close;
	size_t i;

	for (i = 0; i < t->n && t->cells[i] != '['; i++)
		;
	if (i == t->n)
		return -1;	/* no '[' in the first MHL_CONSOLE_LINE_MAX characters: no kernel line */
	*at = i;
	cellsAppend(s, t->cells + i, MIN(t->n - i, (size_t)STAMP_SPAN));
	return sscanf(s->str, "[ %lf%c", &ts, &close) == 2 && close == ']' ? 1 : -1;
}

/* The window's first @k characters are final: matched, kept as text, gone from the window. */
static void termFlush(struct mhlConsoleTerm *t, size_t k)
{
	g_autoptr(GString) s = NULL;
	size_t j, m;

	if (!t->stamp)
		t->stamp = stampFind(t, &t->from);
	if (t->stamp > 0 && t->from < k) {
		const gunichar *seg = t->cells + t->from;

		m = k - t->from;
		s = g_string_new(NULL);
		cellsAppend(s, t->ctx, t->nctx);
		cellsAppend(s, seg, m);
		for (j = 0; j < G_N_ELEMENTS(consolePatterns); j++)
			if (strstr(s->str, consolePatterns[j].needle))
				t->found |= 1u << j;
		if (t->text->len <= MHL_CONSOLE_TEXT_MAX)
			cellsAppend(t->text, seg, MIN(m, (size_t)MHL_CONSOLE_TEXT_MAX));
		/* the context: the last CONTEXT characters of (context + segment) */
		if (m >= CONTEXT) {
			memcpy(t->ctx, seg + m - CONTEXT, CONTEXT * sizeof(gunichar));
			t->nctx = CONTEXT;
		} else {
			size_t keep = MIN(t->nctx, (size_t)CONTEXT - m);

			memmove(t->ctx, t->ctx + t->nctx - keep, keep * sizeof(gunichar));
			memcpy(t->ctx + keep, seg, m * sizeof(gunichar));
			t->nctx = keep + m;
		}
	}
	t->from = t->from > k ? t->from - k : 0;
	memmove(t->cells, t->cells + k, (t->n - k) * sizeof(gunichar));
	t->n -= k;
	t->cur = t->cur > k ? t->cur - k : 0;
}

/* One character shown at the cursor: over what is there, or at the end. */
static void termPut(struct mhlConsoleTerm *t, gunichar u)
{
	if (t->stamp < 0)
		return;	/* not a kernel line: nothing more of it matters */
	if (t->cur == MHL_CONSOLE_LINE_MAX)
		termFlush(t, MHL_CONSOLE_LINE_MAX / 2);
	if (t->stamp < 0)
		return;
	t->cells[t->cur++] = u;
	t->n = MAX(t->n, t->cur);
}

/* A UTF-8 sequence cut short: one U+FFFD a byte, as mhlTextClean does. */
static void termU8Bad(struct mhlConsoleTerm *t)
{
	int i;

	for (i = 0; i < t->u8len; i++)
		termPut(t, REPLACEMENT);
	t->u8len = t->u8need = 0;
}

/* The finding of the line that just ended, if it is one. */
static void scanLineEnd(mhlConsoleScanner *sc)
{
	struct mhlConsoleTerm *t = sc->term;
	g_autofree char *text = NULL;
	const char *needle;
	json_object *f;
	size_t j;

	termU8Bad(t);
	termFlush(t, t->n);
	sc->line++;
	for (j = 0; t->stamp > 0 && j < G_N_ELEMENTS(consolePatterns) && !(t->found & (1u << j)); j++)
		;
	if (t->stamp > 0 && j < G_N_ELEMENTS(consolePatterns)) {
		needle = consolePatterns[j].needle;
		g_strchomp(t->text->str);
		t->text->len = strlen(t->text->str);
		if (strstr(t->text->str, needle) && t->text->len <= MHL_CONSOLE_TEXT_MAX) {
			text = g_strdup(t->text->str);
		} else if (strstr(t->text->str, needle)) {
			text = mhlTextClean(t->text->str, (gssize)t->text->len, MHL_CONSOLE_TEXT_MAX, false);
		} else {
			/* found past the text kept: its start, then the report's words */
			g_autofree char *head = mhlTextClean(t->text->str, (gssize)t->text->len,
							     MHL_CONSOLE_TEXT_MAX - strlen(needle) - 8, false);

			text = g_strdup_printf("%s [...] %s", head, needle);
		}
		f = json_object_new_object();
		json_object_object_add(f, MHL_K_LINE, json_object_new_int(sc->line));
		json_object_object_add(f, MHL_K_KIND, json_object_new_string(consolePatterns[j].kind));
		json_object_object_add(f, MHL_K_TEXT, json_object_new_string(text));
		sc->count++;
		if (!sc->fatal && mhlConsoleKindFatal(consolePatterns[j].kind))
			sc->fatal = json_object_get(f);
		if (json_object_array_length(sc->findings) < sc->max)
			json_object_array_add(sc->findings, f);
		else
			json_object_put(f);
	}
	t->n = t->cur = t->nctx = t->from = 0;
	t->stamp = 0;
	t->found = 0;
	t->esc = ESC_NONE;
	t->open = false;
	g_string_truncate(t->text, 0);
}

/* A byte outside an escape sequence. */
static void termByte(mhlConsoleScanner *sc, unsigned char b)
{
	struct mhlConsoleTerm *t = sc->term;

	if (t->u8need) {
		if ((b & 0xc0) == 0x80) {
			gunichar u;

			t->u8[t->u8len++] = b;
			if (t->u8len < t->u8need)
				return;
			u = g_utf8_get_char_validated((const char *)t->u8, t->u8len);
			if (u == (gunichar)-1 || u == (gunichar)-2) {
				termU8Bad(t);
				return;
			}
			t->u8len = t->u8need = 0;
			if ((u & 0xfffe) == 0xfffe)
				termPut(t, REPLACEMENT);	/* not characters, not XML */
			else if (u >= 0xa0)
				termPut(t, u);	/* below: the C1 controls, dropped */
			return;
		}
		termU8Bad(t);	/* then @b on its own */
	}
	if (b == '\n') {
		scanLineEnd(sc);
		return;
	}
	t->open = true;
	if (b == 0x1b)
		t->esc = ESC_START;
	else if (b == '\b')
		t->cur -= t->cur > 0;	/* back one character; at the line's start it stays */
	else if (b == '\r')
		t->cur = 0;
	else if (b == '\t')
		termPut(t, ' ');
	else if (b < 0x20 || b == 0x7f)
		;	/* other controls show nothing */
	else if (b < 0x80)
		termPut(t, b);
	else if (b >= 0xc2 && b <= 0xf4) {
		t->u8[0] = b;
		t->u8len = 1;
		t->u8need = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
	} else
		termPut(t, REPLACEMENT);
}

/* One byte of the log (escape sequences as mhlTextClean reads them, ECMA-48). */
static void scanByte(mhlConsoleScanner *sc, unsigned char b)
{
	struct mhlConsoleTerm *t = sc->term;

	switch (t->esc) {
	case ESC_START:
		t->esc = ESC_NONE;
		if (b == '[')
			t->esc = ESC_CSI;
		else if (b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_')
			t->esc = ESC_STRING;
		else if (b >= 0x20 && b <= 0x2f)
			t->esc = ESC_INTER;
		else if (!(b >= 0x30 && b <= 0x7e))
			termByte(sc, b);
		return;
	case ESC_CSI:
		if (b >= 0x40 && b <= 0x7e) {
			t->esc = ESC_NONE;
		} else if (b < 0x20 || b > 0x7e) {
			t->esc = ESC_NONE;
			termByte(sc, b);
		}
		return;
	case ESC_STRING:
		if (b == '\a')
			t->esc = ESC_NONE;
		else if (b == 0x1b)
			t->esc = ESC_STRING_ESC;
		else if (b == '\n') {
			t->esc = ESC_NONE;
			termByte(sc, b);
		}
		return;
	case ESC_STRING_ESC:
		t->esc = ESC_START;	/* no ST: the ESC starts a sequence of its own */
		if (b == '\\')
			t->esc = ESC_NONE;
		else
			scanByte(sc, b);
		return;
	case ESC_INTER:
		if (b >= 0x20 && b <= 0x2f)
			return;
		t->esc = ESC_NONE;
		if (!(b >= 0x30 && b <= 0x7e))
			termByte(sc, b);
		return;
	default:
		termByte(sc, b);
	}
}

bool mhlConsoleKindFatal(const char *kind)
{
	return !strcmp(kind, "panic") || !strcmp(kind, "oops");
}

void mhlConsoleScannerInit(mhlConsoleScanner *sc, size_t max)
{
	memset(sc, 0, sizeof(*sc));
	sc->max = max;
	sc->findings = json_object_new_array();
	sc->term = g_new0(struct mhlConsoleTerm, 1);
	sc->term->text = g_string_sized_new(MHL_CONSOLE_TEXT_MAX + 8);
}

void mhlConsoleScannerClear(mhlConsoleScanner *sc)
{
	json_object_put(sc->findings);
	json_object_put(sc->fatal);
	if (sc->term) {
		g_string_free(sc->term->text, TRUE);
		g_free(sc->term);
	}
	memset(sc, 0, sizeof(*sc));
}

void mhlConsoleScanFeed(mhlConsoleScanner *sc, const char *text, size_t len, bool final)
{
	size_t i;

	sc->offset += len;
	for (i = 0; i < len; i++)
		scanByte(sc, (unsigned char)text[i]);
	if (final && (sc->term->open || sc->term->u8len))
		scanLineEnd(sc);
}

int mhlConsoleScanFile(mhlConsoleScanner *sc, const char *path, bool final)
{
	enum { CHUNK = 1 << 20 };
	g_autofree char *buf = NULL;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	buf = g_malloc(CHUNK);
	while ((n = pread(fd, buf, CHUNK, (off_t)sc->offset)) > 0)
		mhlConsoleScanFeed(sc, buf, (size_t)n, false);
	close(fd);
	if (final)
		mhlConsoleScanFeed(sc, "", 0, true);
	return n < 0 ? -1 : 0;
}

json_object *mhlConsoleScanFindings(const mhlConsoleScanner *sc)
{
	json_object *arr = json_object_new_array(), *more;
	size_t i, kept = json_object_array_length(sc->findings);
	gint64 left;
	bool fatalKept = false;

	for (i = 0; i < kept; i++) {
		json_object *f = json_object_array_get_idx(sc->findings, i);

		fatalKept |= f == sc->fatal;
		json_object_array_add(arr, json_object_get(f));
	}
	if (sc->fatal && !fatalKept)
		json_object_array_add(arr, json_object_get(sc->fatal));
	left = sc->count - (gint64)json_object_array_length(arr);
	if (left > 0) {
		g_autofree char *text = g_strdup_printf(
			"%" G_GINT64_FORMAT " more kernel report(s) not kept here (%" G_GINT64_FORMAT
			" in all, the first %zu kept): see the console log", left, sc->count, kept);

		more = json_object_new_object();
		json_object_object_add(more, MHL_K_KIND, json_object_new_string(MHL_KIND_OMITTED));
		json_object_object_add(more, MHL_K_COUNT, json_object_new_int64(left));
		json_object_object_add(more, MHL_K_TEXT, json_object_new_string(text));
		json_object_array_add(arr, more);
	}
	return arr;
}

json_object *mhlConsoleScan(const char *text)
{
	mhlConsoleScanner sc;
	json_object *all;

	mhlConsoleScannerInit(&sc, G_MAXSIZE);
	mhlConsoleScanFeed(&sc, text, strlen(text), true);
	all = json_object_get(sc.findings);
	mhlConsoleScannerClear(&sc);
	return all;
}

char *mhlConsoleOomLine(const char *path, const char *comm)
{
	g_autofree char *buf = NULL, *want = g_strdup_printf("(%s)", comm), *want2 = g_strdup_printf("task=%s,", comm);
	g_auto(GStrv) lines = NULL;
	char *found = NULL;
	off_t size, from;
	ssize_t n;
	int fd, i;

	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return NULL;
	/* the log's tail, bounded: a killed holder's OOM report is among its last lines */
	size = lseek(fd, 0, SEEK_END);
	from = size > (1 << 20) ? size - (1 << 20) : 0;
	buf = g_malloc((size_t)(size - from) + 1);
	n = size > 0 ? pread(fd, buf, (size_t)(size - from), from) : 0;
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	lines = g_strsplit(buf, "\n", -1);
	for (i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if ((strstr(l, "Out of memory") || strstr(l, "Killed process") || strstr(l, "oom-kill:")) &&
		    (strstr(l, want) || strstr(l, want2))) {
			g_free(found);
			found = mhlTextClean(l, -1, 240, false);
		}
	}
	return found;
}
