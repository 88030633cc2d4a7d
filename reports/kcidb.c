/*
 * report-kcidb.c - RUN_DIR/report/kcidb.json in KCIDB I/O schema v5:
 * a checkout per kernel source (package, version, patch series), a build per
 * kernel artifact (config key, compiler, duration), and per trial a test
 * memhp.<scenario>.<trial> (PASS/FAIL/ERROR/MISS) whose number is the reached
 * MiB, with children for the pin failures, what the host got back and each
 * step.
 * tests/kcidb-v5-subset.schema.json is the subset of the schema we emit.
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"
#include "util.h"

static const char *const kcidbStatus[MHL_VERDICT_LAST] = {
	[MHL_VERDICT_PASS] = "PASS",
	[MHL_VERDICT_FAIL] = "FAIL",
	[MHL_VERDICT_ERROR] = "ERROR",
	[MHL_VERDICT_SKIP] = "SKIP",
	[MHL_VERDICT_XFAIL] = "FAIL",	/* waived: a known deviation */
	[MHL_VERDICT_XPASS] = "PASS",	/* not waived: the deviation is gone */
	/* the harness stopped the trial: the tested code's status is unknown */
	[MHL_VERDICT_INTERRUPTED] = "MISS",
	[MHL_VERDICT_LOST] = "MISS",
};

static void kAddStr(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void kAddCopy(json_object *dst, const char *k, json_object *src, const char *path)
{
	json_object *v = mhlJ(src, path);

	if (v)
		json_object_object_add(dst, k, json_object_get(v));
}

static json_object *kNumber(double value, const char *unit)
{
	json_object *n = json_object_new_object();

	json_object_object_add(n, "value", json_object_new_double(value));
	kAddStr(n, "unit", unit);
	return n;
}

/* "memhp:" + an id made of the record's own fields, stable across re-renders. */
static char *kId(const char *origin, const char *a, const char *b)
{
	g_autofree char *ia = mhlReportIdent(a), *ib = b ? mhlReportIdent(b) : NULL;

	return g_strdup_printf("%s:%s%s%s", origin, ia, ib ? "-" : "", ib ? ib : "");
}

/*
 * The patch files of the record's series, when this checkout of memhp-lab
 * still has them unchanged: kernel/patches/<kver>/ under the data directory
 * (the checkout, or share/memhp-lab of an installed one), whose
 * series file and patches hash (sha256 of series + patches, as
 * kernel/build.sh does) to the record's series_hash. Then KCIDB's
 * patchset_files (file:// URLs) and patchset_hash (sha256 over each patch's
 * sha256, one per line) are filled; otherwise only misc names the files.
 */
static void kPatchset(json_object *c, json_object *rec, const char *datadir)
{
	json_object *files = mhlJArr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_PATCH_FILES));
	const char *pkg = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE), ""), *want = mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH), "");
	g_autofree char *exe = datadir ? NULL : g_file_read_link("/proc/self/exe", NULL);
	g_autofree char *bindir = exe ? g_path_get_dirname(exe) : g_strdup(".");
	g_autofree char *dir = NULL, *series = NULL;
	g_autoptr(GChecksum) all = g_checksum_new(G_CHECKSUM_SHA256);
	g_autoptr(GChecksum) set = g_checksum_new(G_CHECKSUM_SHA256);
	json_object *list;
	gsize len;
	size_t i;

	if (!files || !g_str_has_prefix(pkg, "linux-source-") || strchr(pkg, G_DIR_SEPARATOR))
		return;
	dir = datadir ? g_build_filename(datadir, "kernel", "patches", pkg + strlen("linux-source-"), NULL) :
			g_build_filename(bindir, "..", "kernel", "patches", pkg + strlen("linux-source-"), NULL);
	{
		g_autofree char *sp = g_build_filename(dir, "series", NULL);

		if (!g_file_get_contents(sp, &series, &len, NULL))
			return;
		g_checksum_update(all, (const guchar *)series, len);
	}
	list = json_object_new_array();
	for (i = 0; i < json_object_array_length(files); i++) {
		json_object *e = json_object_array_get_idx(files, i);
		const char *name = json_object_is_type(e, json_type_string) ? json_object_get_string(e) : NULL;
		g_autofree char *path = NULL, *abs = NULL, *uri = NULL, *text = NULL;
		g_autofree char *one = NULL;
		json_object *r;

		/* a record may come from elsewhere: a patch's name is a file in that directory, nothing else */
		if (!name || !*name || strchr(name, G_DIR_SEPARATOR) || !strcmp(name, "..") ||
		    !g_file_get_contents((path = g_build_filename(dir, name, NULL)), &text, &len, NULL)) {
			json_object_put(list);
			return;
		}
		g_checksum_update(all, (const guchar *)text, len);
		one = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
		g_checksum_update(set, (const guchar *)one, strlen(one));
		g_checksum_update(set, (const guchar *)"\n", 1);
		abs = g_canonicalize_filename(path, NULL);
		uri = g_filename_to_uri(abs, NULL, NULL);
		r = json_object_new_object();
		kAddStr(r, "name", name);
		kAddStr(r, "url", uri);
		json_object_array_add(list, r);
	}
	if (strncmp(g_checksum_get_string(all), want, 16) || strlen(want) != 16) {
		json_object_put(list);	/* the series changed since this kernel was built */
		return;
	}
	json_object_object_add(c, "patchset_files", list);
	kAddStr(c, "patchset_hash", json_object_array_length(list) ? g_checksum_get_string(set) : "");
}

static json_object *kCheckout(const char *origin, json_object *rec, const char *id, const char *datadir)
{
	json_object *c = json_object_new_object(), *misc = json_object_new_object();
	g_autofree char *comment = g_strdup_printf("%s %s with the memhp-lab series (%" G_GINT64_FORMAT
						   " patch(es), series hash %s)",
						   mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE), "unknown"),
						   mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), "unknown"),
						   mhlJInt(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_PATCHES), 0),
						   mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH), "none"));
	json_object *files = mhlJArr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_PATCH_FILES));
	size_t i;

	kAddStr(c, "id", id);
	kAddStr(c, "origin", origin);
	kAddStr(c, "tree_name", mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE), NULL));
	kAddStr(c, "comment", comment);
	kAddStr(c, "start_time", mhlJStr(rec, MHL_K_STARTED, NULL));
	json_object_object_add(c, "valid", json_object_new_boolean(TRUE));
	kPatchset(c, rec, datadir);
	kAddCopy(misc, "source_package", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE));
	kAddCopy(misc, "source_version", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION));
	kAddCopy(misc, "series_hash", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH));
	kAddCopy(misc, "patches", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_PATCHES));
	if (files) {
		/* names only: the record keeps no copy of the patches to link to */
		json_object *names = json_object_new_array();

		for (i = 0; i < json_object_array_length(files); i++)
			json_object_array_add(names, json_object_get(json_object_array_get_idx(files, i)));
		json_object_object_add(misc, "patch_files", names);
	}
	json_object_object_add(c, "misc", misc);
	return c;
}

static json_object *kBuild(const char *origin, json_object *rec, const char *id, const char *checkout)
{
	json_object *b = json_object_new_object(), *misc = json_object_new_object();

	kAddStr(b, "id", id);
	kAddStr(b, "checkout_id", checkout);
	kAddStr(b, "origin", origin);
	kAddStr(b, "architecture", "x86_64");
	kAddStr(b, "compiler", mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_COMPILER), NULL));
	kAddStr(b, "config_name", mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_CONFIG_KEY), NULL));
	if (mhlJ(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_BUILD_SECONDS)))
		json_object_object_add(b, "duration", json_object_new_double(mhlJDbl(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_BUILD_SECONDS), 0)));
	/* a trial record exists, so the artifact was built and booted far enough to try */
	kAddStr(b, "status", "PASS");
	kAddCopy(misc, "kernel_release", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_KERNEL_RELEASE));
	kAddCopy(misc, "config_key", rec, MHL_PATH(MHL_K_KERNEL, MHL_K_CONFIG_KEY));
	json_object_object_add(b, "misc", misc);
	return b;
}

static json_object *kTest(const char *origin, const char *id, const char *build, const char *path,
			  const char *status, json_object *rec)
{
	json_object *t = json_object_new_object();

	kAddStr(t, "id", id);
	kAddStr(t, "build_id", build);
	kAddStr(t, "origin", origin);
	kAddStr(t, "path", path);
	kAddStr(t, "status", status);
	kAddStr(t, "start_time", mhlJStr(rec, MHL_K_STARTED, NULL));
	/* A known deviation (verdict xfail): its failures are waived, the reason is in the trial's misc. */
	if (mhlVerdictOf(rec) == MHL_VERDICT_XFAIL && !strcmp(status, "FAIL"))
		json_object_object_add(t, "waived", json_object_new_boolean(true));
	return t;
}

/*
 * What the host got back over the trial's shrinks (summary.host_*,
 * docs/record.md): a child <path>.host_reclaimed whose number is the MiB
 * that came back, DONE (a measurement: an expect step judges it), with the
 * shrinks, what had to come back and its share, and the settle time in
 * misc. None for a record without it.
 */
static void kHostReclaimed(json_object *tests, const char *origin, json_object *rec, const char *build,
			   const char *path, const char *id)
{
	g_autofree char *hpath = g_strdup_printf("%s.host_reclaimed", path);
	g_autofree char *hid = g_strdup_printf("%s.host_reclaimed", id);
	json_object *t, *misc;
	mhlSummary m;

	mhlSummaryRead(rec, &m);
	if (m.host_reclaimed_bytes < 0)
		return;
	t = kTest(origin, hid, build, hpath, "DONE", rec);
	misc = json_object_new_object();
	json_object_object_add(t, "number", kNumber(m.host_reclaimed_bytes / 1048576.0, "MiB"));
	kAddCopy(misc, "shrinks", rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_HOST_SHRINKS));
	kAddCopy(misc, "reclaimable_bytes", rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_HOST_RECLAIMABLE_BYTES));
	kAddCopy(misc, "reclaimed_of_reclaimable", rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_HOST_RECLAIMED_OF_RECLAIMABLE));
	kAddCopy(misc, "settle_s", rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_HOST_SETTLE_S));
	kAddCopy(misc, "memory_backing", rec, MHL_PATH(MHL_K_HOST, MHL_K_BACKING));
	kAddCopy(misc, "source", rec, MHL_PATH(MHL_K_HOST, MHL_K_SOURCE));
	json_object_object_add(t, "misc", misc);
	json_object_array_add(tests, t);
}

/*
 * A lifecycle step's test (issue 34): its figures in misc.lifecycle (the
 * record's keys that lifecycle.c's table knows, the devices' plugged bytes
 * summed), its headline figure as the number, and its outcome as the
 * comment when it has no error of its own.
 */
static void kLifecycle(json_object *t, json_object *step)
{
	json_object *m = mhlLifecycleMisc(step), *misc;
	g_autofree char *outcome = NULL;
	const char *unit = NULL;
	double n = mhlLifecycleNumber(step, &unit);

	if (!m)
		return;
	if (n >= 0)	/* the figure the one-line form shows: a migration's MiB moved, a save's image */
		json_object_object_add(t, "number", kNumber(n, unit));
	misc = json_object_new_object();
	json_object_object_add(misc, "lifecycle", m);
	json_object_object_add(t, "misc", misc);
	if (!json_object_object_get_ex(t, "comment", NULL)) {
		outcome = mhlLifecycleBrief(step, true);
		kAddStr(t, "comment", outcome);
	}
}

/* The trial's lifecycle steps, a line each ("save ok 1.2 s (300 MiB image)"), as its misc.lifecycle. */
static void kLifecycleList(json_object *misc, json_object *rec)
{
	json_object *a;
	size_t i;

	if (!mhlTrialHasLifecycle(rec))
		return;
	a = json_object_new_array();
	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++) {
		g_autofree char *b = mhlLifecycleBrief(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i), true);

		if (b)
			json_object_array_add(a, json_object_new_string(b));
	}
	json_object_object_add(misc, "lifecycle", a);
}

/*
 * A step of the other paths (issue 35): its figures in misc.elastic (the
 * keys elastic.c's table knows, blocks, what the host got back), its
 * headline figure as the number (hugepages allocated, else the guest's
 * MemTotal change in MiB), its outcome as the comment when it has no error.
 */
static void kElastic(json_object *t, json_object *step)
{
	json_object *m = mhlElasticMisc(step), *misc;
	g_autofree char *outcome = NULL;
	const char *unit = NULL;
	double n;

	if (!m)
		return;
	if (mhlElasticNumber(step, &n, &unit))
		json_object_object_add(t, "number", kNumber(n, unit));
	misc = json_object_new_object();
	json_object_object_add(misc, "elastic", m);
	json_object_object_add(t, "misc", misc);
	if (!json_object_object_get_ex(t, "comment", NULL)) {
		outcome = mhlElasticBrief(step, true);
		kAddStr(t, "comment", outcome);
	}
}

/* The trial's other paths, a line each ("dimm detach ok 2.3 s (...)"), as its misc.elastic. */
static void kElasticList(json_object *misc, json_object *rec)
{
	json_object *a;
	size_t i;

	if (!mhlTrialHasElastic(rec))
		return;
	a = json_object_new_array();
	for (i = 0; i < mhlJLen(rec, MHL_K_STEPS); i++) {
		g_autofree char *b = mhlElasticBrief(mhlJIdx(mhlJArr(rec, MHL_K_STEPS), i), true);

		if (b)
			json_object_array_add(a, json_object_new_string(b));
	}
	json_object_object_add(misc, "elastic", a);
}

static void kTrial(json_object *tests, const mhlRun *run, const mhlReportOpts *opts, const char *origin,
		   json_object *rec, const char *build)
{
	g_autofree char *scn = mhlTrialScenarioName(rec), *iscn = mhlReportIdent(scn);
	g_autofree char *itrial = mhlReportIdent(mhlJStr(rec, MHL_K_TRIAL, ""));
	g_autofree char *path = g_strdup_printf("memhp.%s.%s", iscn, itrial);
	g_autofree char *id = kId(origin, mhlJStr(rec, MHL_K_TRIAL, ""), mhlJStr(rec, MHL_K_STARTED, NULL));
	g_autofree char *log = mhlTrialConsolePath(run, rec);
	g_autofree char *excerpt = mhlTrialConsoleExcerpt(run, rec, 3);
	g_autofree char *outcome = mhlTrialOutcome(rec);
	json_object *t = kTest(origin, id, build, path, kcidbStatus[mhlVerdictOf(rec)], rec);
	json_object *env = json_object_new_object(), *emisc = json_object_new_object();
	json_object *misc = json_object_new_object(), *steps = mhlJArr(rec, MHL_K_STEPS);
	gint64 failed = mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), -1);
	size_t i;

	kAddStr(t, "comment", outcome);
	if (mhlJ(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES)))
		json_object_object_add(t, "number", kNumber(mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), 0) / 1048576.0, "MiB"));
	json_object_object_add(t, "duration", json_object_new_double(mhlJDbl(rec, MHL_K_SECONDS, 0)));
	if (log) {
		g_autofree char *uri = mhlArtifactUrl(opts, run, log);

		kAddStr(t, "log_url", uri);
	}
	if (excerpt) {
		/* KCIDB's limit, cut between two characters (g_utf8_find_prev_char), never inside one */
		const char *end = excerpt + strlen(excerpt);

		if (end - excerpt > 16384)
			end = g_utf8_find_prev_char(excerpt, excerpt + 16384 + 1);
		json_object_object_add(t, "log_excerpt", json_object_new_string_len(excerpt, (int)(end - excerpt)));
	}
	kAddStr(env, "comment", mhlJStr(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL), NULL));
	kAddCopy(emisc, "accel_reason", rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL_REASON));
	kAddCopy(emisc, "nodes", rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES));
	json_object_object_add(env, "misc", emisc);
	json_object_object_add(t, "environment", env);
	kAddCopy(misc, "verdict", rec, MHL_K_VERDICT);
	kAddCopy(misc, "reason", rec, MHL_K_REASON);
	kAddCopy(misc, "parameters", rec, MHL_K_PARAMETERS);
	kAddCopy(misc, "pin_policy", rec, MHL_K_PIN_POLICY);
	kAddCopy(misc, "harness_version", rec, MHL_K_HARNESS_VERSION);	/* the memhp-lab that ran it (git describe) */
	kAddCopy(misc, "summary", rec, MHL_K_SUMMARY);
	kLifecycleList(misc, rec);
	kElasticList(misc, rec);
	json_object_object_add(t, "misc", misc);
	json_object_array_add(tests, t);

	if (failed >= 0) {
		g_autofree char *cpath = g_strdup_printf("%s.pins_failed", path);
		g_autofree char *cid = g_strdup_printf("%s.pins_failed", id);

		t = kTest(origin, cid, build, cpath, failed ? "FAIL" : "PASS", rec);
		json_object_object_add(t, "number", kNumber((double)failed, "pins"));
		json_object_array_add(tests, t);
	}
	kHostReclaimed(tests, origin, rec, build, path, id);
	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		bool ok = mhlJBool(s, MHL_K_OK, false);
		g_autofree char *sname = g_strdup_printf("s%zu_%s%s%s", i + 1, mhlJStr(s, MHL_K_STEP, "step"),
							 mhlJStr(s, MHL_K_ID, NULL) ? "_" : "", mhlJStr(s, MHL_K_ID, ""));
		g_autofree char *iname = mhlReportIdent(sname);
		g_autofree char *spath = g_strdup_printf("%s.%s", path, iname);
		g_autofree char *sid = g_strdup_printf("%s.%s", id, iname);

		t = kTest(origin, sid, build, spath, mhlJStr(s, MHL_K_SKIPPED, NULL) ? "SKIP" : ok ? "PASS" :
			  strstr(mhlJStr(s, MHL_K_ERROR, ""), "interrupted") ? "MISS" : "FAIL", rec);
		json_object_object_add(t, "duration", json_object_new_double(mhlJDbl(s, MHL_K_SECONDS, 0)));
		kAddStr(t, "comment", mhlJStr(s, MHL_K_ERROR, mhlJStr(s, MHL_K_SKIPPED, NULL)));
		kLifecycle(t, s);
		kElastic(t, s);
		json_object_array_add(tests, t);
	}
}

int mhlReportKcidb(const mhlRun *run, const mhlReportOpts *opts, const char *outdir)
{
	g_autoptr(json_object) doc = json_object_new_object();
	json_object *version = json_object_new_object(), *checkouts = json_object_new_array();
	json_object *builds = json_object_new_array(), *tests = json_object_new_array();
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	const char *origin = opts->origin ? opts->origin : "memhp";
	const char *text;
	guint i;

	json_object_object_add(version, "major", json_object_new_int(5));
	json_object_object_add(version, "minor", json_object_new_int(0));
	json_object_object_add(doc, "version", version);
	json_object_object_add(doc, "checkouts", checkouts);
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		g_autofree char *cid = kId(origin, mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), "unknown"),
					   mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH), "none"));
		g_autofree char *bid = kId(origin, mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_KERNEL_RELEASE), "unknown"),
					   mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_CONFIG_KEY), "none"));

		if (!g_hash_table_contains(seen, cid)) {
			json_object_array_add(checkouts, kCheckout(origin, rec, cid, opts->datadir));
			g_hash_table_add(seen, g_strdup(cid));
		}
		if (!g_hash_table_contains(seen, bid)) {
			json_object_array_add(builds, kBuild(origin, rec, bid, cid));
			g_hash_table_add(seen, g_strdup(bid));
		}
		kTrial(tests, run, opts, origin, rec, bid);
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	return mhlReportFileWrite(opts->outfd, outdir, mhlReportFormats[MHL_REPORT_KCIDB].file, text, -1);
}
