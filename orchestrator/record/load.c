/*
 * load.c - read a run's trials.jsonl back, line by line, naming every line
 * that is not a record and why (the dotted-path accessors are json.c's).
 * Record files may come from elsewhere (CI artifacts): nothing in them is
 * trusted to be well-formed.
 */
#include <glib.h>

#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* ---- the record's shape ---- */

/*
 * What the readers (run's summary, --compare, every renderer) take each field
 * for. A field of another type is not read as a default: the record is named
 * as a bad line, so that nothing downstream meets a string where it walks an
 * array (json-c asserts) or reads "false" as true. Null is absent.
 */
typedef enum { J_ANY, J_STR, J_NUM, J_BOOL, J_OBJ, J_ARR } shapeKind;

static const char *const shapeNames[] = {
	[J_ANY] = "anything", [J_STR] = "a string", [J_NUM] = "a number", [J_BOOL] = "a boolean",
	[J_OBJ] = "an object", [J_ARR] = "an array",
};

typedef struct shapeField shapeField;
struct shapeField {
	const char *path;	/* dotted, from the object being checked; NULL ends a table */
	shapeKind kind;
	shapeKind each;		/* every element (array) or member (object) is one of these */
	const shapeField *of;	/* the fields of every element or member (each J_OBJ), or of the object itself (each J_ANY) */
};

#define F(p, k) { .path = (p), .kind = (k) }
#define FE(p, k, e, o) { .path = (p), .kind = (k), .each = (e), .of = (o) }
#define END { .path = NULL }
#define WL(k) MHL_PATH(MHL_K_WORKLOAD, k)	/* a key of memhp-pin's JSON in a step */
static const shapeField censusShape[] = {
	F(MHL_PIN_K_PAGES, J_NUM), F(MHL_PIN_K_NOT_PRESENT, J_NUM), F(MHL_PIN_K_UNKNOWN, J_NUM),
	F(MHL_PIN_K_ZERO, J_NUM), F(MHL_PIN_K_THP, J_NUM), F(MHL_PIN_K_CMA, J_NUM),
	FE(MHL_PIN_K_BY_ZONE, J_OBJ, J_NUM, NULL), FE(MHL_PIN_K_BY_NODE, J_OBJ, J_OBJ, NULL),
	END,
};
static const shapeField checkShape[] = {
	F(MHL_K_WHAT, J_STR), F(MHL_K_EXPECTED, J_STR), F(MHL_K_ACTUAL, J_STR), F(MHL_K_OK, J_BOOL), END,
};
/* A host sample: a resize's host.before/after, a timeline entry of source "host" */
#define HOST_SAMPLE_FIELDS \
	F(MHL_K_QEMU_RSS_BYTES, J_NUM), F(MHL_K_QEMU_HUGETLB_BYTES, J_NUM), \
	FE(MHL_K_BACKEND_BYTES, J_OBJ, J_NUM, NULL), F(MHL_K_POOL_FREE_PAGES, J_NUM)
static const shapeField hostSampleShape[] = { HOST_SAMPLE_FIELDS, END };
/* a resize's host side (steps[].host) */
static const shapeField stepHostShape[] = {
	F(MHL_K_SOURCE, J_STR), F(MHL_K_MEASURED_BY, J_STR),
	FE(MHL_K_BEFORE, J_OBJ, J_ANY, hostSampleShape), FE(MHL_K_AFTER, J_OBJ, J_ANY, hostSampleShape),
	F(MHL_K_PLUGGED_BEFORE_BYTES, J_NUM), F(MHL_K_UNPLUGGED_BYTES, J_NUM), F(MHL_K_RECLAIMED_BYTES, J_NUM),
	F(MHL_K_RECLAIMABLE_BYTES, J_NUM), F(MHL_K_RECLAIMED_OF_UNPLUGGED, J_NUM),
	F(MHL_K_RECLAIMED_OF_RECLAIMABLE, J_NUM), F(MHL_K_SETTLE_S, J_NUM), F(MHL_K_POOL_RETURNED_PAGES, J_NUM),
	END,
};
/* how the host side was read, and the trial's memory backing (the record's top-level host) */
static const shapeField recordHostShape[] = {
	F(MHL_K_SOURCE, J_STR), F(MHL_K_WHY, J_STR), F(MHL_K_BACKING, J_STR), F(MHL_K_HUGEPAGE_BYTES, J_NUM),
	F(MHL_K_PREALLOC, J_BOOL), F(MHL_K_POOL_ADDED_PAGES, J_NUM), END,
};
static const shapeField stepShape[] = {
	F(MHL_K_STEP, J_STR), F(MHL_K_ID, J_STR), F(MHL_K_LINE, J_NUM), F(MHL_K_T, J_NUM),
	F(MHL_K_SECONDS, J_NUM), F(MHL_K_OK, J_BOOL), F(MHL_K_ERROR, J_STR), F(MHL_K_NOTE, J_STR),
	F(MHL_K_SKIP, J_STR), F(MHL_K_REQUESTED_BYTES, J_NUM), F(MHL_K_REACHED_BYTES, J_NUM),
	F(MHL_K_CONVERGED, J_BOOL), F(MHL_K_DEADLINE_S, J_NUM), F(MHL_K_SECONDS_TO_CONVERGE, J_NUM),
	F(MHL_K_PLUGGED_BEFORE_BYTES, J_NUM), F(MHL_K_PINNED_IN_DEVICE_BYTES, J_NUM),
	FE(MHL_K_CHECKS, J_ARR, J_OBJ, checkShape), F(MHL_K_SKIPPED, J_STR),
	F(MHL_K_WORKLOAD, J_OBJ), F(WL(MHL_PIN_K_OK), J_BOOL), F(WL(MHL_PIN_K_PATTERN_OK), J_BOOL),
	F(WL(MHL_PIN_K_PIN_US), J_NUM), F(WL(MHL_PIN_K_BYTES_PINNED), J_NUM), F(WL(MHL_K_SKIP), J_STR),
	F(WL(MHL_PIN_K_ERRNO_NAME), J_STR), F(WL(MHL_PIN_K_SIGNAL), J_STR),
	F(WL(MHL_PIN_K_PAGES_MOVED_SINCE_PIN), J_NUM), FE(WL(MHL_PIN_K_CENSUS_BEFORE), J_OBJ, J_ANY, censusShape),
	FE(WL(MHL_PIN_K_CENSUS_AFTER), J_OBJ, J_ANY, censusShape), FE(WL(MHL_PIN_K_CENSUS), J_OBJ, J_ANY, censusShape),
	FE(MHL_K_HOST, J_OBJ, J_ANY, stepHostShape),
	END,
};
static const shapeField timelineShape[] = {
	F(MHL_K_T, J_NUM), F(MHL_K_SOURCE, J_STR), F(MHL_K_NODE, J_NUM), F(MHL_K_ALIAS, J_STR),
	F(MHL_K_SIZE_BYTES, J_NUM), F(MHL_K_REQUESTED_BYTES, J_NUM), HOST_SAMPLE_FIELDS, END,
};
#undef HOST_SAMPLE_FIELDS
static const shapeField findingShape[] = {
	F(MHL_K_LINE, J_NUM), F(MHL_K_KIND, J_STR), F(MHL_K_TEXT, J_STR), F(MHL_K_CYCLE, J_NUM),
	F(MHL_K_T, J_NUM), F(MHL_K_COUNT, J_NUM), END,
};
static const shapeField nodeShape[] = {
	F(MHL_K_MEMORY_BYTES, J_NUM), F(MHL_K_CPUS, J_NUM), F(MHL_K_VIRTIO_MEM_SIZE_BYTES, J_NUM),
	F("virtio_mem_block_bytes", J_NUM), F(MHL_K_VIRTIO_MEM_REQUESTED_BYTES, J_NUM), END,
};
static const shapeField recordShape[] = {
	F(MHL_K_SCENARIO, J_STR), F(MHL_K_SCENARIO_NAME, J_STR), F(MHL_K_STARTED, J_STR),
	F(MHL_K_PARAMETERS, J_OBJ),
	F(MHL_K_KERNEL, J_OBJ),
	F(MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_PACKAGE), J_STR),
	F(MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), J_STR),
	F(MHL_PATH(MHL_K_KERNEL, MHL_K_SERIES_HASH), J_STR), F("kernel.kernel_release", J_STR),
	F("kernel.config_key", J_STR), F("kernel.compiler", J_STR), F("kernel.patches", J_NUM),
	F("kernel.build_seconds", J_NUM), FE("kernel.patch_files", J_ARR, J_STR, NULL),
	F(MHL_K_PIN_POLICY, J_STR), F(MHL_K_PIN_IN_PLACE_SWITCH, J_STR),
	F(MHL_K_DOMAIN, J_OBJ), F(MHL_PATH(MHL_K_DOMAIN, MHL_K_URI), J_STR),
	F(MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL), J_STR), F(MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL_REASON), J_STR),
	FE(MHL_PATH(MHL_K_DOMAIN, MHL_K_NODES), J_ARR, J_OBJ, nodeShape),
	F(MHL_K_CONSOLE_LOG, J_STR), FE(MHL_K_HOST, J_OBJ, J_ANY, recordHostShape),
	F(MHL_K_GUEST_BEFORE, J_OBJ), F(MHL_K_GUEST_AFTER, J_OBJ),
	FE(MHL_K_STEPS, J_ARR, J_OBJ, stepShape), FE(MHL_K_TIMELINE, J_ARR, J_OBJ, timelineShape),
	FE(MHL_K_CONSOLE_FINDINGS, J_ARR, J_OBJ, findingShape), F(MHL_K_SUMMARY, J_OBJ),
	F(MHL_K_SECONDS, J_NUM), F(MHL_K_REASON, J_STR),
	END,
};
#undef F
#undef FE
#undef END
#undef WL

static bool shapeIs(json_object *v, shapeKind k)
{
	switch (k) {
	case J_ANY: return true;
	case J_STR: return json_object_is_type(v, json_type_string);
	case J_NUM: return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
	case J_BOOL: return json_object_is_type(v, json_type_boolean);
	case J_OBJ: return json_object_is_type(v, json_type_object);
	case J_ARR: return json_object_is_type(v, json_type_array);
	}
	return false;
}

static bool shapeCheck(json_object *o, const shapeField *fields, GString *where, GString *why);

/* @v (at @where) is @kind; "WHERE is a string, not an array" into @why when not. */
static bool shapeValue(json_object *v, shapeKind kind, GString *where, GString *why)
{
	if (shapeIs(v, kind))
		return true;
	g_string_printf(why, "%s is %s, not %s", where->str, !v ? "null" :
			json_object_is_type(v, json_type_string) ? "a string" :
			json_object_is_type(v, json_type_boolean) ? "a boolean" :
			json_object_is_type(v, json_type_object) ? "an object" :
			json_object_is_type(v, json_type_array) ? "an array" : "a number", shapeNames[kind]);
	return false;
}

/*
 * The elements or members of @v (at @where): each of @f->each (null is not:
 * json-c's object walk and the renderers' loops take every one as it is),
 * with @f->of's fields.
 */
static bool shapeEach(json_object *v, const shapeField *f, GString *where, GString *why)
{
	gsize len = where->len;
	size_t i;

	if (f->kind == J_ARR) {
		for (i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			g_string_append_printf(where, "[%zu]", i);
			if (!shapeValue(e, f->each, where, why) || (f->of && !shapeCheck(e, f->of, where, why)))
				return false;
			g_string_truncate(where, len);
		}
		return true;
	}
	json_object_object_foreach(v, key, m) {
		g_string_append_printf(where, ".%s", key);
		if (!shapeValue(m, f->each, where, why) || (f->of && !shapeCheck(m, f->of, where, why)))
			return false;
		g_string_truncate(where, len);
	}
	return true;
}

/* Every field of @fields in object @o (at @where, "" at the top) that is there has its type. */
static bool shapeCheck(json_object *o, const shapeField *fields, GString *where, GString *why)
{
	gsize len = where->len;
	const shapeField *f;

	for (f = fields; f->path; f++) {
		json_object *v = mhlJ(o, f->path);
		bool ok;

		if (!v)
			continue;
		g_string_append_printf(where, "%s%s", len ? "." : "", f->path);
		ok = shapeValue(v, f->kind, where, why) &&
		     (f->each != J_ANY ? shapeEach(v, f, where, why) : !f->of || shapeCheck(v, f->of, where, why));
		g_string_truncate(where, len);
		if (!ok)
			return false;
	}
	return true;
}

/* NULL when @rec has the shape the readers take it for, else why not (to g_free). */
static char *recordShapeWhy(json_object *rec)
{
	g_autoptr(GString) where = g_string_new(NULL), why = g_string_new(NULL);
	const char *key, *want;
	json_object *sum = mhlJ(rec, MHL_K_SUMMARY);

	if (!shapeCheck(rec, recordShape, where, why))
		return g_string_free(g_steal_pointer(&why), FALSE);
	if (sum && !mhlSummaryCheck(sum, &key, &want))
		return g_strdup_printf("summary.%s is not %s", key, want);
	return NULL;
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
	if (run->dirfd >= 0)
		close(run->dirfd);
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
	g_autofree char *why = NULL;
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
	/* record files come from elsewhere: their text, like the guest's, is made fit to render */
	mhlJSONClean(o, true);
	v = mhlJStr(o, "verdict", NULL);
	if (!v || mhlVerdictOf(o) == MHL_VERDICT_LAST || mhlVerdictOf(o) == MHL_VERDICT_LOST) {
		runBadAdd(run, lineno, "trial '%s': verdict %s%s%s is not pass, fail, error or interrupted",
			  mhlJStr(o, "trial", ""), v ? "'" : "", v ? v : "missing", v ? "'" : "");
		return NULL;
	}
	if ((why = recordShapeWhy(o))) {
		runBadAdd(run, lineno, "trial '%s': a record of the wrong shape: %s", mhlJStr(o, "trial", ""), why);
		return NULL;
	}
	return g_steal_pointer(&o);
}

/*
 * The trials RUN_DIR/started.jsonl says started and trials.jsonl has no record
 * of: memhp-lab was killed while they ran. Each becomes a record of verdict
 * "lost" (made here, never written), after the recorded ones.
 */
static void runLostAdd(mhlRun *run)
{
	g_autofree char *path = g_build_filename(run->dir, "started.jsonl", NULL);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(mhlLineReader) lr = NULL;
	const char *text;
	gsize len;
	guint64 lineno;
	bool cut;
	int fd = mhlOpenAt(run->dirfd, "started.jsonl", O_RDONLY, 0);
	guint i;

	if (fd < 0)
		return;
	/* one line per start, a few hundred bytes: a longer one is no start of ours */
	lr = mhlLineReaderNew(fd, 64 * 1024);
	for (i = 0; i < run->trials->len; i++)	/* a requeued fleet trial's error is not its outcome */
		if (!mhlJBool(run->trials->pdata[i], MHL_K_REQUEUED, false))
			g_hash_table_add(seen, (char *)mhlJStr(run->trials->pdata[i], MHL_K_TRIAL, ""));
	while (mhlLineReaderNext(lr, &text, &len, &cut, &lineno)) {
		g_autoptr(json_object) st = cut ? NULL : json_tokener_parse(text);
		json_object *rec;
		g_autofree char *reason = NULL;
		const char *id;

		if (!st || !json_object_is_type(st, json_type_object) || !(id = mhlJStr(st, MHL_K_TRIAL, NULL)) ||
		    g_hash_table_contains(seen, id))
			continue;	/* a torn or foreign line names no trial to report */
		rec = json_object_new_object();
		reason = g_strdup_printf("the trial started (%s:%" G_GUINT64_FORMAT ") and never recorded its outcome: memhp-lab was killed while it ran; 'memhp-lab run --resume %s' runs it again",
					 path, lineno, run->dir);
		json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(id));
		json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(mhlJStr(st, MHL_K_SCENARIO, "")));
		json_object_object_add(rec, MHL_K_STARTED, json_object_new_string(mhlJStr(st, MHL_K_STARTED, "")));
		json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(mhlVerdictNames[MHL_VERDICT_LOST]));
		json_object_object_add(rec, MHL_K_REASON, json_object_new_string(reason));
		mhlJSONClean(rec, true);
		g_hash_table_add(seen, (char *)mhlJStr(rec, MHL_K_TRIAL, ""));
		g_ptr_array_add(run->trials, rec);
		g_array_append_val(run->lines, (int){ 0 });
	}
}

mhlRun *mhlRunLoad(const char *dir)
{
	g_autoptr(mhlRun) run = g_new0(mhlRun, 1);
	g_autoptr(mhlLineReader) lr = NULL;
	const char *text;
	gsize n;
	guint64 at;
	bool cut;
	int lineno = 0, fd;

	run->dir = g_strdup(dir);
	run->dirfd = -1;
	run->records = g_build_filename(dir, "trials.jsonl", NULL);
	run->trials = g_ptr_array_new_with_free_func(recordFree);
	run->lines = g_array_new(FALSE, FALSE, sizeof(int));
	run->bad = g_ptr_array_new_with_free_func(runBadFree);
	/* opened once: every file below is read through this descriptor, whatever the names do meanwhile */
	if ((run->dirfd = mhlDirOpen(dir)) < 0) {
		mhlError("report: run directory '%s' %s", dir,
			 errno == ENOENT ? "does not exist" : errno == ENOTDIR || errno == ELOOP ? "is not a directory" :
			 g_strerror(errno));
		return NULL;
	}
	if ((fd = mhlOpenAt(run->dirfd, "trials.jsonl", O_RDONLY, 0)) < 0) {
		struct stat sb;
		int e = errno;

		/* killed in its first trial: no record yet, but what started is lost */
		if (e != ENOENT || fstatat(run->dirfd, "started.jsonl", &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sb.st_mode)) {
			mhlError("report: cannot read '%s': %s", run->records, mhlOpenWhy(e));
			return NULL;
		}
	}
	/* a line at a time, by length (a NUL is a byte of the line), each of bounded size */
	lr = fd >= 0 ? mhlLineReaderNew(fd, MHL_RECORD_LINE_MAX) : NULL;
	while (lr && mhlLineReaderNext(lr, &text, &n, &cut, &at)) {
		json_object *rec;

		lineno = (int)MIN(at, (guint64)G_MAXINT);
		if (cut) {
			runBadAdd(run, lineno, "a line longer than %d MiB: not read", MHL_RECORD_LINE_MAX >> 20);
			continue;
		}
		if (!mhlLineReaderNewline(lr)) {
			runBadAdd(run, lineno, "truncated last line (%zu bytes, no newline): "
				  "the run stopped while writing this record", n);
			break;
		}
		if (n == 0) {
			runBadAdd(run, lineno, "empty line");
		} else if ((rec = runLineParse(run, lineno, text, n))) {
			g_ptr_array_add(run->trials, rec);
			g_array_append_val(run->lines, lineno);
		}
	}
	runLostAdd(run);
	if (lineno == 0 && !run->trials->len) {
		mhlError("report: '%s' is empty: no trials recorded (an empty run)", run->records);
		return NULL;
	}
	return g_steal_pointer(&run);
}
