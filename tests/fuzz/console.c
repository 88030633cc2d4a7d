/*
 * tests/fuzz/console.c - the console scanner (guest/guest.h, guest/console.c): mhlConsoleScan
 * on the input as a serial log; every finding has a line in the log, a kind
 * and the text. Two properties besides (issue 30, finding 16):
 *
 * - fed in two parts, cut anywhere (the watcher reads what was appended since
 *   its last look), the findings are the same as fed whole;
 * - on a line a simple terminal can draw (printable ASCII, backspace and
 *   carriage return, under MHL_CONSOLE_LINE_MAX bytes; or printable ASCII
 *   alone, of any length), there is a finding exactly when the line as drawn
 *   is a kernel line ("[ seconds]" at its first '[') holding a report's
 *   words after that '[': a report far into a long line is found, one
 *   assembled with backspaces is found, one overwritten is not.
 */
#include "fuzz/fuzz.h"

#include "guest/guest.h"

/* What guest/console.c looks for (its consolePatterns). */
static const char *const needles[] = {
	"WARNING:", "BUG:", "Oops", "Kernel panic", "general protection fault",
	"blocked for more than", "rcu_sched self-detected stall", "rcu: INFO: rcu_preempt",
	"detected stalls on CPUs",
};

#define STAMP_SPAN 64	/* console.c: characters after '[' read for the stamp */

/*
 * The line @l[0..@n) as a terminal draws it into @out (NUL-terminated), or
 * false when it holds a byte this reference does not draw, or a backspace or
 * carriage return in a line the scanner's window would have to cut.
 */
static bool lineDraw(const char *l, size_t n, char *out)
{
	size_t i, cur = 0, len = 0;
	bool moves = false;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)l[i];

		if (b == '\b') {
			cur -= cur > 0;
			moves = true;
		} else if (b == '\r') {
			cur = 0;
			moves = true;
		} else if (b >= 0x20 && b < 0x7f) {
			out[cur++] = (char)b;
			len = cur > len ? cur : len;
		} else {
			return false;
		}
	}
	out[len] = '\0';
	return !moves || n < MHL_CONSOLE_LINE_MAX;
}

/* Whether the drawn line @d is one the scanner reports: a kernel line with a report's words. */
static bool lineReports(const char *d)
{
	const char *open = memchr(d, '[', strnlen(d, MHL_CONSOLE_LINE_MAX));
	char stamp[STAMP_SPAN + 1], close;
	size_t i, span;
	double ts;

	if (!open)
		return false;
	span = strnlen(open, STAMP_SPAN);
	span = span < (size_t)(d + MHL_CONSOLE_LINE_MAX - open) ? span : (size_t)(d + MHL_CONSOLE_LINE_MAX - open);
	memcpy(stamp, open, span);
	stamp[span] = '\0';
	if (sscanf(stamp, "[ %lf%c", &ts, &close) != 2 || close != ']')
		return false;
	for (i = 0; i < G_N_ELEMENTS(needles); i++)
		if (strstr(open, needles[i]))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzzString(data, size), *drawn;
	json_object *arr = mhlConsoleScan(s), *two;
	size_t i, lines = 1, len = strlen(s), cut = size ? len * data[0] / 256 : 0, line;
	mhlConsoleScanner sc;
	const char *l;

	for (i = 0; s[i]; i++)
		lines += s[i] == '\n';
	fuzzAssert(json_object_is_type(arr, json_type_array), "not an array");
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i), *v;

		fuzzAssert(json_object_object_get_ex(f, "line", &v) && json_object_get_int(v) >= 1 &&
			   (size_t)json_object_get_int(v) <= lines, "finding %zu: line out of the log", i);
		fuzzAssert(json_object_object_get_ex(f, "kind", &v) && json_object_get_string(v),
			   "finding %zu: no kind", i);
		fuzzAssert(json_object_object_get_ex(f, "text", &v) && json_object_get_string(v),
			   "finding %zu: no text", i);
	}

	/* fed in two parts, the same findings */
	mhlConsoleScannerInit(&sc, G_MAXSIZE);
	mhlConsoleScanFeed(&sc, s, cut, false);
	mhlConsoleScanFeed(&sc, s + cut, len - cut, true);
	two = mhlConsoleScanFindings(&sc);
	fuzzAssert(!strcmp(json_object_to_json_string(arr), json_object_to_json_string(two)),
		   "fed whole %s, cut at %zu %s", json_object_to_json_string(arr), cut,
		   json_object_to_json_string(two));
	json_object_put(two);
	mhlConsoleScannerClear(&sc);

	/* each line a simple terminal draws: a finding exactly when it shows a report */
	drawn = malloc(len + 1);
	if (!drawn)
		abort();
	for (l = s, line = 1, i = 0; *l; line++) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		bool has = false;
		size_t k;

		for (k = 0; k < json_object_array_length(arr); k++)
			has |= (size_t)json_object_get_int(json_object_object_get(json_object_array_get_idx(arr, k),
										"line")) == line;
		if (lineDraw(l, n, drawn))
			fuzzAssert(has == lineReports(drawn), "line %zu (%zu bytes, drawn \"%.200s\"): %s", line, n,
				   drawn, has ? "a finding, but it shows no report" : "it shows a report, no finding");
		if (!nl)
			break;
		l = nl + 1;
	}
	free(drawn);

	(void)json_object_to_json_string(arr);
	json_object_put(arr);
	free(s);
	mhlErrorReset();
	return 0;
}
