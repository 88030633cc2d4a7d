/*
 * load.c - read a run's trials.jsonl back, line by line, naming every line
 * that is not a record and why; and the dotted-path accessors the readers use.
 * Record files may come from elsewhere (CI artifacts): nothing in them is
 * trusted to be well-formed.
 */
#include <glib.h>

#include "record/record.h"

#include <string.h>

#include "util.h"

json_object *mhlJ(json_object *o, const char *path)
{
	g_auto(GStrv) keys = g_strsplit(path, ".", -1);
	size_t i;

	for (i = 0; o && keys[i]; i++) {
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, keys[i], &o))
			return NULL;
	}
	return o;
}

const char *mhlJStr(json_object *o, const char *path, const char *dflt)
{
	json_object *v = mhlJ(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

gint64 mhlJInt(json_object *o, const char *path, gint64 dflt)
{
	json_object *v = mhlJ(o, path);

	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ?
		json_object_get_int64(v) : dflt;
}

double mhlJDbl(json_object *o, const char *path, double dflt)
{
	json_object *v = mhlJ(o, path);

	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ?
		json_object_get_double(v) : dflt;
}


static void recordFree(gpointer p)
{
	json_object_put(p);
}

static void runBadFree(gpointer p)
{
	mhlRunBad *b = p;

	g_free(b->why);
	g_free(b);
}

void mhlRunFree(mhlRun *run)
{
	if (!run)
		return;
	g_free(run->dir);
	g_free(run->records);
	g_ptr_array_unref(run->trials);
	g_array_unref(run->lines);
	g_ptr_array_unref(run->bad);
	g_free(run);
}

static void runBadAdd(mhlRun *run, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void runBadAdd(mhlRun *run, int line, const char *fmt, ...)
{
	mhlRunBad *b = g_new0(mhlRunBad, 1);
	va_list ap;

	va_start(ap, fmt);
	b->line = line;
	b->why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(run->bad, b);
}

/* One line: a record, or a reason it is not one. */
static json_object *runLineParse(mhlRun *run, int lineno, const char *text, size_t len)
{
	g_autoptr(json_object) o = NULL;
	json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	const char *v;
	size_t used;

	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o || jerr != json_tokener_success) {
		runBadAdd(run, lineno, "not JSON: %s at byte %zu",
			  jerr == json_tokener_continue ? "the object is cut short" :
			  json_tokener_error_desc(jerr), used + 1);
		return NULL;
	}
	for (; used < len && g_ascii_isspace(text[used]); used++)
		;
	if (used < len) {
		runBadAdd(run, lineno, "text after the JSON object at byte %zu", used + 1);
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		runBadAdd(run, lineno, "a JSON %s, not a trial record object",
			  json_type_to_name(json_object_get_type(o)));
		return NULL;
	}
	if (!mhlJStr(o, "trial", NULL)) {
		runBadAdd(run, lineno, "no string \"trial\" (the trial id)");
		return NULL;
	}
	v = mhlJStr(o, "verdict", NULL);
	if (!v || mhlVerdictOf(o) == MHL_VERDICT_LAST) {
		runBadAdd(run, lineno, "trial '%s': verdict %s%s%s is not pass, fail, error or interrupted",
			  mhlJStr(o, "trial", ""), v ? "'" : "", v ? v : "missing", v ? "'" : "");
		return NULL;
	}
	return g_steal_pointer(&o);
}

mhlRun *mhlRunLoad(const char *dir)
{
	g_autoptr(mhlRun) run = g_new0(mhlRun, 1);
	g_autoptr(GError) err = NULL;
	g_autofree char *data = NULL;
	gsize len = 0, pos = 0;
	int lineno = 0;

	run->dir = g_strdup(dir);
	run->records = g_build_filename(dir, "trials.jsonl", NULL);
	run->trials = g_ptr_array_new_with_free_func(recordFree);
	run->lines = g_array_new(FALSE, FALSE, sizeof(int));
	run->bad = g_ptr_array_new_with_free_func(runBadFree);
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
		mhlError("report: run directory '%s' %s", dir,
			 g_file_test(dir, G_FILE_TEST_EXISTS) ? "is not a directory" : "does not exist");
		return NULL;
	}
	if (!g_file_get_contents(run->records, &data, &len, &err)) {
		mhlError("report: cannot read '%s': %s", run->records, err->message);
		return NULL;
	}
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
		json_object *rec;

		lineno++;
		if (!nl) {
			runBadAdd(run, lineno, "truncated last line (%zu bytes, no newline): "
				  "the run stopped while writing this record", n);
			break;
		}
		if (n == 0) {
			runBadAdd(run, lineno, "empty line");
		} else if ((rec = runLineParse(run, lineno, data + pos, n))) {
			g_ptr_array_add(run->trials, rec);
			g_array_append_val(run->lines, lineno);
		}
		pos += n + 1;
	}
	if (lineno == 0) {
		mhlError("report: '%s' is empty: no trials recorded (an empty run)", run->records);
		return NULL;
	}
	return g_steal_pointer(&run);
}
