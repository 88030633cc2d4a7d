/*
 * report.c - read a run's trials.jsonl, the helpers every renderer shares,
 * --compare, and the dispatch to the per-format writers (report-*.c).
 */
#include <glib.h>
#include <glib/gstdio.h>

#include "reports/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

const char *const mhlReportFormatNames[MHL_REPORT_LAST] = {
	[MHL_REPORT_HTML] = "html",
	[MHL_REPORT_JUNIT] = "junit",
	[MHL_REPORT_KTAP] = "ktap",
	[MHL_REPORT_KCIDB] = "kcidb",
};
const char *const mhlReportFormatFiles[MHL_REPORT_LAST] = {
	[MHL_REPORT_HTML] = "index.html",
	[MHL_REPORT_JUNIT] = "junit.xml",
	[MHL_REPORT_KTAP] = "results.ktap",
	[MHL_REPORT_KCIDB] = "kcidb.json",
};
static int (*const writers[MHL_REPORT_LAST])(const mhlRun *, const mhlReportOpts *, const char *) = {
	[MHL_REPORT_HTML] = mhlReportHtml,
	[MHL_REPORT_JUNIT] = mhlReportJunit,
	[MHL_REPORT_KTAP] = mhlReportKtap,
	[MHL_REPORT_KCIDB] = mhlReportKcidb,
};
static const char *const verdictNames[MHL_TV_LAST] = {
	[MHL_TV_PASS] = "pass",
	[MHL_TV_FAIL] = "fail",
	[MHL_TV_ERROR] = "error",
	[MHL_TV_INTERRUPTED] = "interrupted",
};
const char *const mhlCompareRankNames[5] = {
	"regression", "improvement", "changed", "same", "only in one run"
};

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
	if (!v || mhlTrialVerdictOf(o) == MHL_TV_LAST) {
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

int mhlReportFormatsParse(const char *list, unsigned *formats)
{
	g_auto(GStrv) names = g_strsplit(list, ",", -1);
	size_t i;
	int f;

	*formats = 0;
	for (i = 0; names[i]; i++) {
		g_strstrip(names[i]);
		for (f = 0; f < MHL_REPORT_LAST; f++)
			if (!strcmp(names[i], mhlReportFormatNames[f]))
				break;
		if (f == MHL_REPORT_LAST) {
			mhlError("report: unknown format '%s' in --format '%s' (formats: html, junit, ktap, kcidb)",
				 names[i], list);
			return -1;
		}
		*formats |= 1u << f;
	}
	if (!*formats) {
		mhlError("report: --format '%s' names no format (formats: html, junit, ktap, kcidb)", list);
		return -1;
	}
	return 0;
}

int mhlReportWrite(const mhlRun *run, const mhlReportOpts *opts)
{
	g_autofree char *outdir = g_build_filename(run->dir, "report", NULL);
	int f, rc = 0;

	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("report: cannot create '%s': %s", outdir, g_strerror(errno));
		return -1;
	}
	for (f = 0; f < MHL_REPORT_LAST; f++)
		if ((opts->formats & (1u << f)) && writers[f](run, opts, outdir) < 0)
			rc = -1;
	return rc;
}

void mhlReportAfterRun(const char *dir, bool quiet)
{
	g_autofree char *saved = mhlErrorSteal();
	g_autoptr(mhlRun) run = mhlRunLoad(dir);
	mhlReportOpts opts = { .formats = (1u << MHL_REPORT_LAST) - 1, .origin = "memhp" };

	if (!run || mhlReportWrite(run, &opts) < 0)
		fprintf(stderr, "memhp-lab: warning: report not complete (trials.jsonl is untouched): %s\n",
			mhlErrorLast());
	else if (!quiet)
		printf("  report:           %s/report/index.html (+ junit.xml, results.ktap, kcidb.json)\n", dir);
	if (run && run->bad->len)
		fprintf(stderr, "memhp-lab: warning: %u line(s) of %s could not be read, first line %d: %s "
			"(memhp-lab report %s names them all)\n", run->bad->len, run->records,
			((mhlRunBad *)run->bad->pdata[0])->line, ((mhlRunBad *)run->bad->pdata[0])->why, dir);
	mhlErrorRestore(g_steal_pointer(&saved));
}

/* ---- record access ---- */

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

mhlTrialVerdict mhlTrialVerdictOf(json_object *rec)
{
	const char *v = mhlJStr(rec, "verdict", "");
	int i;

	for (i = 0; i < MHL_TV_LAST; i++)
		if (!strcmp(v, verdictNames[i]))
			return i;
	return MHL_TV_LAST;
}

char *mhlTrialScenarioName(json_object *rec)
{
	g_autofree char *base = g_path_get_basename(mhlJStr(rec, "scenario", "unknown"));
	char *dot = strrchr(base, '.');

	if (dot && dot != base)
		*dot = '\0';
	return g_steal_pointer(&base);
}

char *mhlStepName(json_object *step)
{
	const char *id = mhlJStr(step, "id", NULL);

	return g_strdup_printf("%s%s%s", mhlJStr(step, "step", "step"), id ? " " : "", id ? id : "");
}

double mhlTrialPinSeconds(json_object *rec)
{
	json_object *steps = mhlJ(rec, "steps");
	double us = 0;
	bool any = false;
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		if (strcmp(mhlJStr(s, "step", ""), "pin") || mhlJInt(s, "workload.pin_us", -1) < 0)
			continue;
		us += mhlJDbl(s, "workload.pin_us", 0);
		any = true;
	}
	return any ? us / 1e6 : -1;
}

char *mhlTrialOutcome(json_object *rec)
{
	g_autoptr(GString) s = g_string_new(NULL);
	gint64 req = mhlJInt(rec, "summary.requested_bytes", -1);
	gint64 reached = mhlJInt(rec, "summary.reached_bytes", -1);
	double conv = mhlJDbl(rec, "summary.seconds_to_converge", -1), pin = mhlTrialPinSeconds(rec);

	g_string_append_printf(s, "kernel %s, pin_policy %s, %s", mhlJStr(rec, "kernel.source_version", "unknown"),
			       mhlJStr(rec, "pin_policy", "-"), mhlJStr(rec, "domain.accel", "-"));
	if (req >= 0 && reached >= 0)
		g_string_append_printf(s, "; reached %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " MiB",
				       reached >> 20, req >> 20);
	if (req >= 0 && reached >= 0 && conv >= 0)
		g_string_append_printf(s, " in %.1f s", conv);
	else if (req >= 0)
		g_string_append(s, ", did not converge");
	if (mhlJInt(rec, "summary.pins_failed", -1) >= 0)
		g_string_append_printf(s, ", pins failed %" G_GINT64_FORMAT, mhlJInt(rec, "summary.pins_failed", 0));
	if (pin >= 0)
		g_string_append_printf(s, ", %" G_GINT64_FORMAT " MiB pinned in %.3f s",
				       mhlJInt(rec, "summary.pinned_bytes", 0) >> 20, pin);
	return g_string_free(g_steal_pointer(&s), FALSE);
}

char *mhlTrialConsolePath(const mhlRun *run, json_object *rec)
{
	const char *p = mhlJStr(rec, "console_log", NULL);
	g_autofree char *base = NULL, *here = NULL;

	if (!p)
		return NULL;
	base = g_path_get_basename(p);
	here = g_build_filename(run->dir, base, NULL);
	/* The run directory's copy first: a run moved elsewhere still finds its logs. */
	if (g_file_test(here, G_FILE_TEST_IS_REGULAR))
		return g_steal_pointer(&here);
	return g_file_test(p, G_FILE_TEST_IS_REGULAR) ? g_strdup(p) : NULL;
}

char *mhlTrialConsoleExcerpt(const mhlRun *run, json_object *rec, int context)
{
	json_object *findings = mhlJ(rec, "console_findings");
	g_autofree char *path = mhlTrialConsolePath(run, rec), *text = NULL;
	g_auto(GStrv) lines = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	guint nlines = 0;
	int last = 0;
	size_t i;

	if (!findings || !json_object_array_length(findings))
		return NULL;
	if (path && g_file_get_contents(path, &text, NULL, NULL)) {
		g_autofree char *valid = g_utf8_make_valid(text, -1);
		char *c;

		/* serial consoles send \r\n and the odd escape: keep text XML and JSON can carry */
		for (c = valid; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t')
				*c = *c == '\r' ? ' ' : '?';
		lines = g_strsplit(valid, "\n", -1);
		nlines = g_strv_length(lines);
		if (nlines && !*lines[nlines - 1])
			nlines--;	/* the empty string after the last newline */
	}
	for (i = 0; i < json_object_array_length(findings) && out->len < 8192; i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		int line = (int)mhlJInt(f, "line", 0), from, to, l;

		if (!lines || line < 1 || (guint)line > nlines) {
			g_string_append_printf(out, "%s\n", mhlJStr(f, "text", ""));
			continue;
		}
		from = MAX(MAX(1, line - context), last + 1);
		to = MIN((int)nlines, line + context);
		if (from > last + 1 && last)
			g_string_append(out, "...\n");
		for (l = from; l <= to; l++)
			g_string_append_printf(out, "%s\n", g_strchomp(lines[l - 1]));
		last = MAX(last, to);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

char *mhlReportIdent(const char *s)
{
	char *r = g_strdup(s && *s ? s : "_");
	char *p;

	for (p = r; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '_' && *p != '-')
			*p = '_';
	return r;
}

int mhlReportFileWrite(const char *dir, const char *name, const char *data, gssize len)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	g_autoptr(GError) err = NULL;

	if (!g_file_set_contents(path, data, len, &err)) {
		mhlError("report: cannot write '%s': %s", path, err->message);
		return -1;
	}
	return 0;
}

/* ---- --compare ---- */

static void compareRowFree(gpointer p)
{
	mhlCompareRow *r = p;

	g_free(r->trial);
	g_free(r->what);
	g_free(r);
}

/* Note one difference; the row's rank is its worst. */
static void compareNote(mhlCompareRow *r, GString *what, int rank, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void compareNote(mhlCompareRow *r, GString *what, int rank, const char *fmt, ...)
{
	va_list ap;

	if (what->len)
		g_string_append(what, "; ");
	va_start(ap, fmt);
	g_string_append_vprintf(what, fmt, ap);
	va_end(ap);
	r->rank = MIN(r->rank, rank);
}

static void compareTrial(mhlCompareRow *r)
{
	g_autoptr(GString) what = g_string_new(NULL);
	json_object *a = r->before, *b = r->after;
	mhlTrialVerdict va = mhlTrialVerdictOf(a), vb = mhlTrialVerdictOf(b);
	gint64 req = mhlJInt(b, "summary.requested_bytes", mhlJInt(a, "summary.requested_bytes", -1));
	gint64 ra = mhlJInt(a, "summary.reached_bytes", -1), rb = mhlJInt(b, "summary.reached_bytes", -1);
	gint64 pa = mhlJInt(a, "summary.pins_failed", -1), pb = mhlJInt(b, "summary.pins_failed", -1);
	double ta = mhlTrialPinSeconds(a), tb = mhlTrialPinSeconds(b);

	r->rank = 3;
	if (va != vb)
		compareNote(r, what, va == MHL_TV_PASS ? 0 : vb == MHL_TV_PASS ? 1 : 2, "verdict %s -> %s",
			    verdictNames[va], verdictNames[vb]);
	if (ra != rb && req >= 0 && ra >= 0 && rb >= 0)
		compareNote(r, what, llabs(rb - req) > llabs(ra - req) ? 0 : 1,
			    "reached %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " MiB (requested %" G_GINT64_FORMAT ")",
			    ra >> 20, rb >> 20, req >> 20);
	else if (ra != rb)
		compareNote(r, what, 2, "reached %s -> %s", ra >= 0 ? "known" : "unknown",
			    rb >= 0 ? "known" : "unknown");
	if (pa != pb && pa >= 0 && pb >= 0)
		compareNote(r, what, pb > pa ? 0 : 1, "pins failed %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT,
			    pa, pb);
	if (ta > 0 && tb > 0 && (tb / ta >= 1.5 || tb / ta <= 1 / 1.5))
		compareNote(r, what, tb > ta ? 0 : 1, "pin time x%.2f (%.3f -> %.3f s)", tb / ta, ta, tb);
	r->what = g_string_free(g_steal_pointer(&what), FALSE);
}

static gint compareOrder(gconstpointer x, gconstpointer y)
{
	const mhlCompareRow *a = *(mhlCompareRow *const *)x, *b = *(mhlCompareRow *const *)y;

	return a->rank != b->rank ? a->rank - b->rank : strcmp(a->trial, b->trial);
}

/* Trial ids, numbered on repeats ("soak#2") so each record has one key. */
static GHashTable *compareIndex(const mhlRun *run, GPtrArray *order)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		const char *id = mhlJStr(rec, "trial", "");
		char *key = g_strdup(id);
		int n = 1;

		while (g_hash_table_contains(h, key)) {
			g_free(key);
			key = g_strdup_printf("%s#%d", id, ++n);
		}
		g_hash_table_insert(h, key, rec);
		if (order)
			g_ptr_array_add(order, key);
	}
	return h;
}

GPtrArray *mhlCompareRuns(const mhlRun *now, const mhlRun *before)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(compareRowFree);
	g_autoptr(GPtrArray) order = g_ptr_array_new();
	g_autoptr(GHashTable) hn = compareIndex(now, order), hb = compareIndex(before, NULL);
	GHashTableIter it;
	gpointer k, v;
	guint i;

	for (i = 0; i < order->len; i++) {
		mhlCompareRow *r = g_new0(mhlCompareRow, 1);

		r->trial = g_strdup(order->pdata[i]);
		r->after = g_hash_table_lookup(hn, r->trial);
		r->before = g_hash_table_lookup(hb, r->trial);
		if (r->before) {
			compareTrial(r);
		} else {
			r->rank = 4;
			r->what = g_strdup_printf("only in %s", now->dir);
		}
		g_ptr_array_add(rows, r);
	}
	g_hash_table_iter_init(&it, hb);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		mhlCompareRow *r;

		if (g_hash_table_contains(hn, k))
			continue;
		r = g_new0(mhlCompareRow, 1);
		r->trial = g_strdup(k);
		r->before = v;
		r->rank = 4;
		r->what = g_strdup_printf("only in %s", before->dir);
		g_ptr_array_add(rows, r);
	}
	g_ptr_array_sort(rows, compareOrder);
	return rows;
}
