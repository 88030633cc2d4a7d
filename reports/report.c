/*
 * report.c - read a run's trials.jsonl, the helpers every renderer shares,
 * --compare, and the dispatch to the per-format writers (report-*.c).
 */
#include <glib.h>

#include <stdarg.h>
#include <glib/gstdio.h>

#include "reports/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

const mhlReportFormatDesc mhlReportFormats[MHL_REPORT_LAST] = {
	[MHL_REPORT_HTML] = { "html", "HTML", "index.html", mhlReportHtml },
	[MHL_REPORT_JUNIT] = { "junit", "JUnit", "junit.xml", mhlReportJunit },
	[MHL_REPORT_KTAP] = { "ktap", "KTAP", "results.ktap", mhlReportKtap },
	[MHL_REPORT_KCIDB] = { "kcidb", "KCIDB", "kcidb.json", mhlReportKcidb },
};
const char *const mhlCompareRankNames[5] = {
	"regression", "improvement", "changed", "same", "only in one run"
};

char *mhlReportFormatsJoin(size_t field, const char *sep, const char *last)
{
	GString *g = g_string_new(NULL);
	int f;

	for (f = 0; f < MHL_REPORT_LAST; f++)
		g_string_append_printf(g, "%s%s", f == 0 ? "" : f == MHL_REPORT_LAST - 1 ? last : sep,
				       *(const char *const *)((const char *)&mhlReportFormats[f] + field));
	return g_string_free(g, FALSE);
}

int mhlReportFormatsParse(const char *list, unsigned *formats)
{
	g_auto(GStrv) names = g_strsplit(list, ",", -1);
	g_autofree char *known = mhlReportFormatsJoin(offsetof(mhlReportFormatDesc, name), ", ", ", ");
	size_t i;
	int f;

	*formats = 0;
	for (i = 0; names[i]; i++) {
		g_strstrip(names[i]);
		for (f = 0; f < MHL_REPORT_LAST; f++)
			if (!strcmp(names[i], mhlReportFormats[f].name))
				break;
		if (f == MHL_REPORT_LAST) {
			mhlError("report: unknown format '%s' in --format '%s' (formats: %s)",
				 names[i], list, known);
			return -1;
		}
		*formats |= 1u << f;
	}
	if (!*formats) {
		mhlError("report: --format '%s' names no format (formats: %s)", list, known);
		return -1;
	}
	return 0;
}

int mhlReportWrite(const mhlRun *run, const mhlReportOpts *opts)
{
	g_autofree char *outdir = g_build_filename(run->dir, "report", NULL);
	mhlReportOpts o = *opts;
	mhl_autofd int fd = -1;
	int f, rc = 0;

	/*
	 * A run directory from elsewhere (another user's, even): its report/
	 * is made and opened below RUN_DIR's descriptor, without following a
	 * link, and every file of it written below that one (records/ too).
	 */
	if ((fd = mhlDirOpenAt(run->dirfd, "report", true)) < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			mhlError("report: '%s' is not a directory (a link?): the report is written only into RUN_DIR/report itself",
				 outdir);
		else
			mhlError("report: cannot create '%s': %s", outdir, g_strerror(errno));
		return -1;
	}
	o.outfd = fd;
	for (f = 0; f < MHL_REPORT_LAST; f++)
		if ((o.formats & (1u << f)) && mhlReportFormats[f].write(run, &o, outdir) < 0)
			rc = -1;
	return rc;
}

/* "DIR/report/index.html (+ junit.xml, results.ktap, kcidb.json)": the first format's file, then the others'. */
static char *reportFilesLine(const char *dir)
{
	GString *g = g_string_new(NULL);
	int f;

	g_string_printf(g, "%s/report/%s (+ ", dir, mhlReportFormats[0].file);
	for (f = 1; f < MHL_REPORT_LAST; f++)
		g_string_append_printf(g, "%s%s", f == 1 ? "" : ", ", mhlReportFormats[f].file);
	g_string_append_c(g, ')');
	return g_string_free(g, FALSE);
}

void mhlReportAfterRun(const char *dir, bool quiet, const char *datadir, mhlPlannedStepsFn planned)
{
	g_autofree char *saved = mhlErrorSteal(), *files = NULL;
	g_autoptr(mhlRun) run = mhlRunLoad(dir);
	mhlReportOpts opts = { .formats = (1u << MHL_REPORT_LAST) - 1, .origin = "memhp", .datadir = datadir,
			       .artifact_url = g_getenv("MEMHP_ARTIFACT_URL"), .planned = planned };

	if (opts.artifact_url && !mhlArtifactUrlValid(opts.artifact_url)) {
		fprintf(stderr, "memhp-lab: warning: MEMHP_ARTIFACT_URL '%.200s' is not an http(s):// or file:/// URL; the reports name local files\n",
			opts.artifact_url);
		opts.artifact_url = NULL;
	}

	if (!run || mhlReportWrite(run, &opts) < 0)
		fprintf(stderr, "memhp-lab: warning: report not complete (trials.jsonl is untouched): %s\n",
			mhlErrorLast());
	else if (!quiet)
		printf("  report:           %s\n", files = reportFilesLine(dir));
	if (run && run->bad->len)
		fprintf(stderr, "memhp-lab: warning: %u line(s) of %s could not be read, first line %d: %s "
			"(memhp-lab report %s names them all)\n", run->bad->len, run->records,
			((mhlRunBad *)run->bad->pdata[0])->line, ((mhlRunBad *)run->bad->pdata[0])->why, dir);
	mhlErrorRestore(g_steal_pointer(&saved));
}

char *mhlTrialScenarioName(json_object *rec)
{
	g_autofree char *base = g_path_get_basename(mhlJStr(rec, MHL_K_SCENARIO, "unknown"));
	char *dot = strrchr(base, '.');

	if (dot && dot != base)
		*dot = '\0';
	return g_steal_pointer(&base);
}

void mhlHtmlf(GString *out, const char *fmt, ...)
{
	g_autofree char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	s = g_markup_vprintf_escaped(fmt, ap);
	va_end(ap);
	g_string_append(out, s);
}

bool mhlRecordHasParameters(json_object *rec)
{
	json_object *pa = mhlJ(rec, MHL_K_PARAMETERS);

	return pa && json_object_is_type(pa, json_type_object) && json_object_object_length(pa);
}

const char *mhlAxisValue(json_object *rec, const char *key, const char *none)
{
	json_object *v = mhlJ(mhlJ(rec, MHL_K_PARAMETERS), key);

	if (!v && !strcmp(key, MHL_K_PIN_POLICY))
		return mhlJStr(rec, MHL_K_PIN_POLICY, none);
	if (!v && !strcmp(key, MHL_K_SCENARIO))
		return mhlJStr(rec, MHL_K_SCENARIO_NAME, mhlJStr(rec, MHL_K_SCENARIO, none));
	return v ? json_object_get_string(v) : none;
}

guint mhlStrIndex(GPtrArray *a, const char *s)
{
	guint i;

	if (!g_ptr_array_find_with_equal_func(a, s, g_str_equal, &i)) {
		i = a->len;
		g_ptr_array_add(a, g_strdup(s));
	}
	return i;
}

gint mhlStrPtrCmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *mhlStepName(json_object *step)
{
	const char *id = mhlJStr(step, MHL_K_ID, NULL);
	json_object *argv = mhlJArr(step, MHL_PATH(MHL_K_EXEC, MHL_K_ARGV));
	g_autofree char *prog = NULL;

	/* an exec step: the program's name (the record's argv[0]: untrusted, the callers escape it) */
	if (!id && argv && json_object_array_length(argv) && json_object_is_type(json_object_array_get_idx(argv, 0),
										    json_type_string))
		id = prog = g_path_get_basename(json_object_get_string(json_object_array_get_idx(argv, 0)));
	if (!id && mhlJStr(step, MHL_PATH(MHL_K_SELFTEST, MHL_K_NAME), NULL))
		id = mhlJStr(step, MHL_PATH(MHL_K_SELFTEST, MHL_K_NAME), NULL);
	return g_strdup_printf("%s%s%s", mhlJStr(step, MHL_K_STEP, "step"), id ? " " : "", id ? id : "");
}

double mhlTrialPinSeconds(json_object *rec)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	double us = 0;
	bool any = false;
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		if (strcmp(mhlJStr(s, MHL_K_STEP, ""), "pin") || mhlJInt(s, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_PIN_US), -1) < 0)
			continue;
		us += mhlJDbl(s, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_PIN_US), 0);
		any = true;
	}
	return any ? us / 1e6 : -1;
}

char *mhlTrialOutcome(json_object *rec)
{
	g_autoptr(GString) s = g_string_new(NULL);
	gint64 req = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1);
	gint64 reached = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);
	double conv = mhlJDbl(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_SECONDS_TO_CONVERGE), -1), pin = mhlTrialPinSeconds(rec);

	g_autofree char *klabel = mhlKernelLabel(rec);

	g_string_append_printf(s, "kernel %s, pin_policy %s, %s", klabel,
			       mhlJStr(rec, MHL_K_PIN_POLICY, "-"), mhlJStr(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL), "-"));
	if (req >= 0 && reached >= 0)
		g_string_append_printf(s, "; reached %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " MiB",
				       reached >> 20, req >> 20);
	if (req >= 0 && reached >= 0 && conv >= 0)
		g_string_append_printf(s, " in %.1f s", conv);
	else if (req >= 0)
		g_string_append(s, ", did not converge");
	if (mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), -1) >= 0)
		g_string_append_printf(s, ", pins failed %" G_GINT64_FORMAT, mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), 0));
	if (pin >= 0)
		g_string_append_printf(s, ", %" G_GINT64_FORMAT " MiB pinned in %.3f s",
				       mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINNED_BYTES), 0) >> 20, pin);
	return g_string_free(g_steal_pointer(&s), FALSE);
}

char *mhlTrialConsolePath(const mhlRun *run, json_object *rec)
{
	const char *p = mhlJStr(rec, MHL_K_CONSOLE_LOG, NULL);
	g_autofree char *base = NULL;

	if (!p)
		return NULL;
	/*
	 * A record may come from elsewhere and name any file: only its basename
	 * is used, under RUN_DIR (a run moved elsewhere still finds its logs).
	 */
	base = g_path_get_basename(p);
	return mhlRunFilePath(run, base);
}

char *mhlRunFilePath(const mhlRun *run, const char *base)
{
	struct stat sb;

	/* a name directly in RUN_DIR, judged below the run directory's descriptor: a regular file, no link */
	if (!strcmp(base, ".") || !strcmp(base, "..") || strchr(base, G_DIR_SEPARATOR) ||
	    fstatat(run->dirfd, base, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
		return NULL;
	return g_build_filename(run->dir, base, NULL);
}

int mhlTrialConsoleOpen(const mhlRun *run, json_object *rec)
{
	const char *p = mhlJStr(rec, MHL_K_CONSOLE_LOG, NULL);
	g_autofree char *base = p ? g_path_get_basename(p) : NULL;

	/* opened below RUN_DIR's descriptor, never through a link, a regular file only (no FIFO waited on) */
	if (!base || !strcmp(base, ".") || !strcmp(base, "..") || strchr(base, G_DIR_SEPARATOR)) {
		errno = ENOENT;
		return -1;
	}
	return mhlOpenAt(run->dirfd, base, O_RDONLY, 0);
}

/* The number of lines of @rec's console log (as the scanner numbers them), read a line at a time; -1 without one. */
static gint64 consoleLines(const mhlRun *run, json_object *rec)
{
	g_autoptr(mhlLineReader) lr = NULL;
	const char *line;
	guint64 n = 0;
	gsize len;
	int fd = mhlTrialConsoleOpen(run, rec);

	if (fd < 0)
		return -1;
	lr = mhlLineReaderNew(fd, 0);
	while (mhlLineReaderNext(lr, &line, &len, NULL, &n))
		;
	return (gint64)n;
}

char *mhlTrialConsoleExcerpt(const mhlRun *run, json_object *rec, int context)
{
	json_object *findings = mhlJArr(rec, MHL_K_CONSOLE_FINDINGS);
	g_autoptr(mhlLineReader) lr = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	gint64 nlines, last = 0;
	guint64 at = 0;	/* the lines read so far */
	int fd = -1;
	size_t i;

	if (!findings || !json_object_array_length(findings))
		return NULL;
	/*
	 * The log may be of any size (a run from elsewhere): read twice a line
	 * at a time, never whole: its lines counted, then the ones quoted read
	 * again. Each finding's lines come after the last one quoted, so one
	 * pass forward finds them all.
	 */
	if ((nlines = consoleLines(run, rec)) > 0 && (fd = mhlTrialConsoleOpen(run, rec)) >= 0)
		lr = mhlLineReaderNew(fd, MHL_EXCERPT_LINE_MAX);
	for (i = 0; i < json_object_array_length(findings) && out->len < 8192; i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		gint64 line = mhlJInt(f, MHL_K_LINE, 0), from, to, l;

		if (!lr || line < 1 || line > nlines) {
			g_string_append_printf(out, "%s\n", mhlJStr(f, MHL_K_TEXT, ""));
			continue;
		}
		from = MAX(MAX(1, line - context), last + 1);
		to = MIN(nlines, line + context);
		if (from > last + 1 && last)
			g_string_append(out, "...\n");
		for (l = from; l <= to; l++) {
			const char *text = NULL;
			gsize len = 0;
			bool cut = false;

			/* guest bytes, by length (a NUL is one of them): text XML and JSON can carry */
			while (at < (guint64)l && mhlLineReaderNext(lr, &text, &len, &cut, &at))
				;
			if (at == (guint64)l) {
				g_autofree char *clean = mhlTextClean(text, (gssize)len, 0, true);

				g_string_append_printf(out, "%s%s\n", g_strchomp(clean), cut ? "..." : "");
			}
		}
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

int mhlReportFileWrite(int dirfd, const char *dir, const char *name, const char *data, gssize len)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	char *saved = mhlErrorSteal();
	int rc = mhlFileWriteAt(dirfd, name, path, data, len);

	if (rc < 0) {
		g_autofree char *why = g_strdup(mhlErrorLast());

		mhlErrorRestore(saved);
		mhlError("report: %s", why);
		return -1;
	}
	mhlErrorRestore(saved);
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

/*
 * The values of metric @m before, for mhlNoiseJudge: each record of trial
 * @id in @before when it ran more than once (repeats), else the repeats @a
 * holds itself (a bench step's runs), else @a's value alone. For
 * MHL_METRIC_REACHED each is its distance from @req in MiB.
 */
static GArray *compareBefore(const mhlRun *before, json_object *a, const char *id, mhlMetric m, gint64 req)
{
	GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
	guint i;

	for (i = 0; i < before->trials->len; i++) {
		json_object *rec = before->trials->pdata[i];
		double x = mhlMetricValue(rec, m);

		if (strcmp(mhlJStr(rec, MHL_K_TRIAL, ""), id) || isnan(x))
			continue;
		if (m == MHL_METRIC_REACHED)
			x = fabs(x - req / 1048576.0);
		g_array_append_val(v, x);
	}
	if (v->len < 2) {
		g_array_set_size(v, 0);
		if (!mhlMetricRepeats(a, m, v) && !isnan(mhlMetricValue(a, m))) {
			double x = mhlMetricValue(a, m);

			if (m == MHL_METRIC_REACHED)
				x = fabs(x - req / 1048576.0);
			g_array_append_val(v, x);
		}
	}
	return v;
}

/* Judge metric @m of the row (its after value @x, its before values): 1 worse, -1 better, 0 noise. */
static int compareJudge(const mhlRun *before, mhlCompareRow *r, mhlMetric m, double x, gint64 req,
			double *med, double *spread)
{
	g_autoptr(GArray) v = compareBefore(before, r->before, mhlJStr(r->before, MHL_K_TRIAL, ""), m, req);

	return mhlNoiseJudge(m, (double *)(void *)v->data, v->len, x, med, spread);
}

char *mhlKernelLabel(json_object *rec)
{
	const char *kind = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_KIND), NULL);
	const char *pkg = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE), NULL);
	const char *ver = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), NULL);
	const char *series = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH), NULL);
	const char *bz = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_BZIMAGE), NULL);

	if (!g_strcmp0(kind, "package") && pkg)
		return g_strdup_printf("%s %s", pkg, ver ? ver : "?");
	if (!g_strcmp0(pkg, "prebuilt")) {
		g_autofree char *base = bz ? g_path_get_basename(bz) : g_strdup("?");

		return g_strdup_printf("prebuilt %s", base);
	}
	if (ver && series && *series)
		return g_strdup_printf("%s + series %.8s", ver, series);
	return g_strdup(ver ? ver : "unknown");
}

/*
 * What changed on the host between the two records (issue 32, item 3): the
 * host_identity fields that differ, "qemu 7.2.0 -> 8.0.2; kernel ..."; NULL
 * when they agree or either has none. Guest-free text: versions and names
 * the host gave, cleaned with the record (valid UTF-8, no control
 * character); each value at most 80 bytes, cut between two characters.
 */
char *mhlHostIdentityDiff(json_object *a, json_object *b)
{
	/* the stack first: QEMU's and libvirt's versions follow from it (docs/stacks.md) */
	static const char *const keys[] = { MHL_K_STACK, "hostname", "kernel", "libvirt", "qemu", "cpu_model", "cpus",
					    "memory_bytes" };
	json_object *ia = mhlJ(a, MHL_K_HOST_IDENTITY), *ib = mhlJ(b, MHL_K_HOST_IDENTITY);
	g_autoptr(GString) out = g_string_new(NULL);
	size_t k;

	if (!json_object_is_type(ia, json_type_object) || !json_object_is_type(ib, json_type_object))
		return NULL;
	for (k = 0; k < G_N_ELEMENTS(keys); k++) {
		json_object *va = NULL, *vb = NULL;
		const char *sa, *sb;

		json_object_object_get_ex(ia, keys[k], &va);
		json_object_object_get_ex(ib, keys[k], &vb);
		if (!va || !vb)
			continue;
		sa = json_object_get_string(va);
		sb = json_object_get_string(vb);
		/* each value cut between two characters: "%.80s" could end inside one (finding 15) */
		if (strcmp(sa, sb))
			g_string_append_printf(out, "%s%s %.*s -> %.*s", out->len ? ", " : "", keys[k],
					       mhlTextCutLen(sa, 80), sa, mhlTextCutLen(sb, 80), sb);
	}
	return out->len ? g_string_free(g_steal_pointer(&out), FALSE) : NULL;
}

static void compareTrial(const mhlRun *before, mhlCompareRow *r)
{
	g_autoptr(GString) what = g_string_new(NULL);
	json_object *a = r->before, *b = r->after;
	mhlVerdict va = mhlVerdictOf(a), vb = mhlVerdictOf(b);
	gint64 req = mhlJInt(b, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), mhlJInt(a, MHL_PATH(MHL_K_SUMMARY, MHL_K_REQUESTED_BYTES), -1));
	gint64 ra = mhlJInt(a, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1), rb = mhlJInt(b, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1);
	gint64 pa = mhlJInt(a, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), -1), pb = mhlJInt(b, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), -1);
	double ta = mhlTrialPinSeconds(a), tb = mhlTrialPinSeconds(b);
	double ga = mhlMetricValue(a, MHL_METRIC_BENCH), gb = mhlMetricValue(b, MHL_METRIC_BENCH);
	double med, spread;
	int j;

	r->rank = 3;
	if (va != vb)
		compareNote(r, what, va == MHL_VERDICT_PASS ? 0 : vb == MHL_VERDICT_PASS ? 1 : 2, "verdict %s -> %s",
			    mhlVerdictNames[va], mhlVerdictNames[vb]);
	/* the numbers: worse or better beyond the noise (noise.c, as --history judges) */
	if (ra != rb && req >= 0 && ra >= 0 && rb >= 0) {
		j = compareJudge(before, r, MHL_METRIC_REACHED, fabs((double)(rb - req)) / 1048576.0, req, &med, &spread);
		compareNote(r, what, j > 0 ? 0 : j < 0 ? 1 : 2,
			    "reached %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " MiB (requested %" G_GINT64_FORMAT ")%s",
			    ra >> 20, rb >> 20, req >> 20, j ? "" : ", within the noise");
	} else if (ra != rb) {
		compareNote(r, what, 2, "reached %s -> %s", ra >= 0 ? "known" : "unknown",
			    rb >= 0 ? "known" : "unknown");
	}
	if (pa != pb && pa >= 0 && pb >= 0)
		compareNote(r, what, pb > pa ? 0 : 1, "pins failed %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT,
			    pa, pb);
	if (ta > 0 && tb > 0 && (j = compareJudge(before, r, MHL_METRIC_PIN, tb, req, &med, &spread)))
		compareNote(r, what, j > 0 ? 0 : 1, "pin time x%.2f (%.3f -> %.3f s)", tb / med, med, tb);
	else if (ta > 0 && tb > 0 && tb != ta)
		compareNote(r, what, 3, "pin time x%.2f (%.3f -> %.3f s), within the noise ± %.3f s", tb / med, med, tb,
			    spread);
	if (ga > 0 && gb > 0 && (j = compareJudge(before, r, MHL_METRIC_BENCH, gb, req, &med, &spread)))
		compareNote(r, what, j > 0 ? 0 : 1, "bench pin time x%.2f (median %.0f -> %.0f us, noise ± %.0f us)",
			    gb / med, med, gb, spread);
	/* the host's share back, migration downtime, save and restore, a DIMM's removal (issue 52 item 4) */
	for (int m = MHL_METRIC_HOST_BACK; m < MHL_METRIC_LAST; m++) {
		const mhlMetricInfo *mi = &mhlMetrics[m];
		double xa = mhlMetricValue(a, (mhlMetric)m), xb = mhlMetricValue(b, (mhlMetric)m);

		if (!isfinite(xa) || !isfinite(xb) || xa == xb)
			continue;
		j = compareJudge(before, r, (mhlMetric)m, xb, req, &med, &spread);
		compareNote(r, what, j > 0 ? 0 : j < 0 ? 1 : 3, "%s %.*f -> %.*f %s%s", mi->name, mi->prec, xa, mi->prec, xb,
			    mi->unit, j ? "" : ", within the noise");
	}
	{
		g_autofree char *host = mhlHostIdentityDiff(a, b);

		/* not a regression by itself: what a reader checks a regression against */
		if (host)
			compareNote(r, what, 2, "host changed: %s", host);
	}
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
		const char *id = mhlJStr(rec, MHL_K_TRIAL, "");
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
			compareTrial(before, r);
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

bool mhlArtifactUrlValid(const char *base)
{
	const char *c;

	if (!base || !(g_str_has_prefix(base, "https://") || g_str_has_prefix(base, "http://") ||
		       g_str_has_prefix(base, "file:///")))
		return false;
	for (c = base; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '"' || *c == '<' || *c == '>' || *c == '\\')
			return false;
	return true;
}

char *mhlArtifactUrl(const mhlReportOpts *opts, const mhlRun *run, const char *path)
{
	g_autofree char *abs = g_canonicalize_filename(path, NULL);
	g_autofree char *dir = run && run->dir ? g_canonicalize_filename(run->dir, NULL) : NULL;
	size_t n = dir ? strlen(dir) : 0;

	if (opts && opts->artifact_url && dir && !strncmp(abs, dir, n) && abs[n] == '/') {
		g_auto(GStrv) parts = g_strsplit(abs + n + 1, "/", -1);
		g_autoptr(GString) url = g_string_new(opts->artifact_url);
		int i;

		while (url->len && url->str[url->len - 1] == '/')
			g_string_truncate(url, url->len - 1);
		for (i = 0; parts[i]; i++) {
			g_autofree char *e = g_uri_escape_string(parts[i], NULL, FALSE);

			g_string_append_printf(url, "/%s", e);
		}
		return g_string_free(g_steal_pointer(&url), FALSE);
	}
	return g_filename_to_uri(abs, NULL, NULL);
}
