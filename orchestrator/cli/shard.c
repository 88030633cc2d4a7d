/* shard.c - `run --shard K/N` and `report --merge` (shard.h). */
#include <glib.h>

#include "cli/shard.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"
#include "util.h"

/* A decimal in [lo, hi] from @s (all of it); -1 if it is not one. */
static long shardNum(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (!s || !g_ascii_isdigit(*s) || strlen(s) > 9)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return (*end || errno || v < lo || v > hi) ? -1 : v;
}

/* @k and @n from the variables of the batch engine that started us; 0, or -1 + mhlError. */
static int shardAuto(int *k, int *n)
{
	const char *gi = g_getenv("CI_NODE_INDEX"), *gt = g_getenv("CI_NODE_TOTAL");
	const char *si = g_getenv("SLURM_ARRAY_TASK_ID"), *sm = g_getenv("SLURM_ARRAY_TASK_MIN");
	const char *sc = g_getenv("SLURM_ARRAY_TASK_COUNT");
	const char *ki = g_getenv("JOB_COMPLETION_INDEX"), *kn = g_getenv("MEMHP_SHARDS");
	long a, b, m;

	if (gi || gt) {		/* GitLab CI parallel: N, CI_NODE_INDEX 1..N */
		if ((b = shardNum(gt, 1, MHL_SHARD_MAX)) < 0 || (a = shardNum(gi, 1, b)) < 0) {
			mhlError("run: --shard auto: CI_NODE_INDEX '%s' and CI_NODE_TOTAL '%s' are not 1 <= K <= N <= %d",
				 gi ? gi : "(unset)", gt ? gt : "(unset)", MHL_SHARD_MAX);
			return -1;
		}
	} else if (si) {	/* Slurm --array=MIN-MAX: ids MIN..MIN+COUNT-1 */
		m = sm ? shardNum(sm, 0, 1000000) : 0;
		if (m < 0 || (b = shardNum(sc, 1, MHL_SHARD_MAX)) < 0 ||
		    (a = shardNum(si, m, m + b - 1)) < 0) {
			mhlError("run: --shard auto: SLURM_ARRAY_TASK_ID '%s' is not within SLURM_ARRAY_TASK_MIN '%s' and SLURM_ARRAY_TASK_COUNT '%s' (at most %d)",
				 si, sm ? sm : "(unset)", sc ? sc : "(unset)", MHL_SHARD_MAX);
			return -1;
		}
		a = a - m + 1;
	} else if (ki) {	/* Kubernetes Indexed Job: 0..completions-1 */
		if ((b = shardNum(kn, 1, MHL_SHARD_MAX)) < 0 || (a = shardNum(ki, 0, b - 1)) < 0) {
			mhlError("run: --shard auto: JOB_COMPLETION_INDEX '%s' needs MEMHP_SHARDS (the Job's completions, 1..%d; now '%s') above it",
				 ki, MHL_SHARD_MAX, kn ? kn : "(unset)");
			return -1;
		}
		a++;
	} else {
		mhlError("run: --shard auto: none of CI_NODE_INDEX (GitLab), SLURM_ARRAY_TASK_ID (Slurm) or JOB_COMPLETION_INDEX (Kubernetes) is set; give --shard K/N");
		return -1;
	}
	*k = (int)a;
	*n = (int)b;
	return 0;
}

int mhlShardParse(const char *arg, int *k, int *n)
{
	g_auto(GStrv) parts = NULL;
	long a, b;

	if (!strcmp(arg, "auto"))
		return shardAuto(k, n);
	parts = g_strsplit(arg, "/", 3);
	if (g_strv_length(parts) != 2 || (b = shardNum(parts[1], 1, MHL_SHARD_MAX)) < 0 ||
	    (a = shardNum(parts[0], 1, b)) < 0) {
		mhlError("run: --shard '%s': expected K/N with 1 <= K <= N <= %d, or auto", arg, MHL_SHARD_MAX);
		return -1;
	}
	*k = (int)a;
	*n = (int)b;
	return 0;
}

int mhlShardOf(const char *id, int n)
{
	guint64 h = 14695981039346656037ULL;	/* FNV-1a, 64 bit */
	const unsigned char *p;

	for (p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (int)(h % (guint64)n) + 1;
}

/* One shard's run directory: its run.json and records. */
typedef struct {
	const char *dir;
	json_object *run;	/* run.json */
	mhlRun *recs;
	int k, n;
} shardDir;

static void shardDirClear(shardDir *d)
{
	json_object_put(d->run);
	if (d->recs)
		mhlRunFree(d->recs);
}

/* @d's run.json and records, its shard checked against the first's (@first); 0, or -1 + mhlError. */
static int shardLoad(shardDir *d, const shardDir *first)
{
	g_autofree char *path = g_build_filename(d->dir, "run.json", NULL), *text = NULL;
	mhl_autofd int dfd = mhlDirOpen(d->dir);
	json_object *sh;
	size_t i;

	/* a shard is data: run.json a regular file below its directory's descriptor, of bounded size */
	if (dfd < 0) {
		mhlError("report --merge: cannot open '%s': %s", d->dir, g_strerror(errno));
		return -1;
	}
	if (!(text = mhlFileReadAt(dfd, "run.json", path, 16 * 1024 * 1024, NULL, NULL)))
		return -1;
	d->run = json_tokener_parse(text);
	sh = mhlJ(d->run, "shard");
	if (!d->run || !json_object_is_type(d->run, json_type_object) || !sh ||
	    mhlShardParse(mhlJStr(sh, "k_of_n", ""), &d->k, &d->n) < 0 || !mhlJ(sh, "trials") ||
	    !json_object_is_type(mhlJ(sh, "trials"), json_type_array)) {
		mhlErrorReset();
		mhlError("report --merge: '%s' is not the run.json of a shard (run --shard K/N writes 'shard': {k_of_n, trials})",
			 path);
		return -1;
	}
	/*
	 * run.json is data, like the records beside it: its text (the trial ids
	 * the errors below quote, what the merged run.json keeps) made valid
	 * UTF-8 without control characters, as mhlRunLoad makes the records'
	 * ids, which these are matched against.
	 */
	mhlJSONClean(d->run, false);
	/* a null, a number or an empty string (an id of nothing but an escape sequence) is no trial id */
	for (i = 0; i < json_object_array_length(mhlJ(sh, "trials")); i++) {
		json_object *id = json_object_array_get_idx(mhlJ(sh, "trials"), i);

		if (!json_object_is_type(id, json_type_string) || !*json_object_get_string(id)) {
			mhlError("report --merge: '%s': shard.trials[%zu] is not a trial id (a non-empty string)", path, i);
			return -1;
		}
	}
	if (first && (d->n != first->n ||
		      strcmp(json_object_to_json_string(mhlJ(sh, "trials")),
			     json_object_to_json_string(mhlJ(mhlJ(first->run, "shard"), "trials"))))) {
		mhlError("report --merge: '%s' (shard %d/%d) and '%s' (shard %d/%d) are shards of different runs (their shard counts or trial lists differ)",
			 d->dir, d->k, d->n, first->dir, first->k, first->n);
		return -1;
	}
	if (!(d->recs = mhlRunLoad(d->dir)))
		return -1;
	return 0;
}

/*
 * Copy the bytes of @fd (a regular file) to a new file @dst, a block at a
 * time: a shard's log may be of any size, memory stays bounded. -1 +
 * mhlError naming @src, @dst and why.
 */
static int shardCopy(int fd, const char *src, const char *dst)
{
	g_autofree char *buf = g_malloc(64 * 1024);
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), rc = -1;
	ssize_t n, w;

	if (out < 0) {
		mhlError("report --merge: cannot create '%s': %s", dst, g_strerror(errno));
		return -1;
	}
	while ((n = read(fd, buf, 64 * 1024)) != 0) {
		const char *p = buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mhlError("report --merge: cannot read '%s': %s", src, g_strerror(errno));
			goto cleanup;
		}
		for (; n > 0; p += w, n -= w) {
			while ((w = write(out, p, (size_t)n)) < 0 && errno == EINTR)
				;
			if (w <= 0) {
				mhlError("report --merge: cannot write '%s': %s", dst, w < 0 ? g_strerror(errno) : "no byte written");
				goto cleanup;
			}
		}
	}
	rc = 0;
 cleanup:
	if (close(out) < 0 && rc == 0) {
		mhlError("report --merge: cannot write '%s': %s", dst, g_strerror(errno));
		rc = -1;
	}
	return rc;
}

/*
 * Copy @rec's console log into @out (it must lie in @dir, as the readers
 * require, and be a regular file: a FIFO or a device there is not read);
 * its path rewritten.
 */
static int shardConsole(json_object *rec, const char *dir, const char *out)
{
	const char *log = mhlJStr(rec, MHL_K_CONSOLE_LOG, NULL);
	g_autofree char *rdir = NULL, *rlog = NULL, *base = NULL, *dst = NULL;
	int fd, rc;

	if (!log)
		return 0;
	rdir = realpath(dir, NULL);
	rlog = realpath(log, NULL);
	if (!rdir || !rlog || !g_str_has_prefix(rlog, rdir) || rlog[strlen(rdir)] != '/' ||
	    strchr(rlog + strlen(rdir) + 1, '/') || (fd = mhlFileOpenRegular(rlog)) < 0) {
		/* from elsewhere, gone, or no regular file: the record stays, without a log to read */
		json_object_object_del(rec, MHL_K_CONSOLE_LOG);
		return 0;
	}
	base = g_path_get_basename(rlog);
	dst = g_build_filename(out, base, NULL);
	if (g_file_test(dst, G_FILE_TEST_EXISTS)) {
		mhlError("report --merge: two shards have a console log named '%s' (the second in %s)", base, dir);
		rc = -1;
	} else {
		rc = shardCopy(fd, rlog, dst);
	}
	close(fd);
	if (rc < 0)
		return -1;
	json_object_object_add(rec, MHL_K_CONSOLE_LOG, json_object_new_string(dst));
	return 0;
}

/* Each shard's directory loaded into @d; the records by trial id into @byid (shard) and @recs. */
static int shardsLoad(shardDir *d, char **dirs, int ndirs, GHashTable *byid, GHashTable *recs)
{
	guint r;
	int i;

	for (i = 0; i < ndirs; i++) {
		d[i].dir = dirs[i];
		if (shardLoad(&d[i], i ? &d[0] : NULL) < 0)
			return -1;
		for (int j = 0; j < i; j++)
			if (d[j].k == d[i].k) {
				mhlError("report --merge: '%s' and '%s' are both shard %d/%d", d[j].dir, d[i].dir,
					 d[i].k, d[i].n);
				return -1;
			}
		for (r = 0; r < d[i].recs->trials->len; r++) {
			json_object *rec = d[i].recs->trials->pdata[r];
			const char *id = mhlJStr(rec, MHL_K_TRIAL, "");
			shardDir *prev = g_hash_table_lookup(byid, id);

			if (prev && prev != &d[i]) {
				mhlError("report --merge: trial '%s' is recorded in two shards: '%s' and '%s'", id,
					 prev->dir, d[i].dir);
				return -1;
			}
			g_hash_table_insert(byid, (gpointer)id, &d[i]);
			g_hash_table_insert(recs, (gpointer)id, rec);	/* a trial run twice (--resume): the last */
		}
	}
	return 0;
}

/* Every trial the run names (@trials) has a record in @recs, and no other has one. */
static int shardsComplete(const shardDir *d, int ndirs, json_object *trials, GHashTable *recs)
{
	size_t t;
	int i;

	for (t = 0; t < json_object_array_length(trials); t++) {
		const char *id = json_object_get_string(json_object_array_get_idx(trials, t));
		int want = mhlShardOf(id, d[0].n);

		if (!g_hash_table_contains(recs, id)) {
			for (i = 0; i < ndirs && d[i].k != want; i++)
				;
			mhlError("report --merge: trial '%s' has no record: it belongs to shard %d/%d%s%s%s", id,
				 want, d[0].n, i < ndirs ? " (" : ", which is not among the directories given",
				 i < ndirs ? d[i].dir : "", i < ndirs ? ")" : "");
			return -1;
		}
	}
	if (g_hash_table_size(recs) != json_object_array_length(trials)) {
		mhlError("report --merge: the shards hold %u trials, the run has %zu: a record of a trial the run does not name",
			 g_hash_table_size(recs), json_object_array_length(trials));
		return -1;
	}
	return 0;
}

/* OUT/trials.jsonl (a new file) with the records in the run's order, their console logs beside it. */
static int shardsRecords(const char *out, json_object *trials, GHashTable *recs, GHashTable *byid)
{
	g_autoptr(GString) lines = g_string_new(NULL);
	g_autofree char *records = NULL;
	g_autoptr(GError) err = NULL;
	size_t t;

	if (g_mkdir_with_parents(out, 0755) < 0) {
		mhlError("report --merge: cannot create '%s': %s", out, g_strerror(errno));
		return -1;
	}
	records = g_build_filename(out, "trials.jsonl", NULL);
	if (g_file_test(records, G_FILE_TEST_EXISTS)) {
		mhlError("report --merge: '%s' exists: merge into a new directory", records);
		return -1;
	}
	for (t = 0; t < json_object_array_length(trials); t++) {
		const char *id = json_object_get_string(json_object_array_get_idx(trials, t));
		json_object *rec = g_hash_table_lookup(recs, id);
		shardDir *sd = g_hash_table_lookup(byid, id);

		if (shardConsole(rec, sd->dir, out) < 0)
			return -1;
		g_string_append_printf(lines, "%s\n", json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN |
										       JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	if (!g_file_set_contents(records, lines->str, (gssize)lines->len, &err)) {
		mhlError("report --merge: cannot write '%s': %s", records, err->message);
		return -1;
	}
	return 0;
}

/* OUT/run.json: the first shard's scenarios and options, no shard, where it came from. */
static int shardsRunJson(const char *out, const shardDir *d, int ndirs)
{
	g_autoptr(json_object) run = json_tokener_parse(json_object_to_json_string(d[0].run));
	g_autofree char *runjson = g_build_filename(out, "run.json", NULL);
	g_autoptr(GError) err = NULL;
	json_object *from = json_object_new_array();
	int i;

	json_object_object_del(run, "shard");
	for (i = 0; i < ndirs; i++)
		json_object_array_add(from, json_object_new_string(d[i].dir));
	json_object_object_add(run, "merged_from", from);
	if (!g_file_set_contents(runjson, json_object_to_json_string_ext(run, JSON_C_TO_STRING_PRETTY), -1, &err)) {
		mhlError("report --merge: cannot write '%s': %s", runjson, err->message);
		return -1;
	}
	return 0;
}

int mhlShardMerge(char **dirs, int ndirs, const char *out)
{
	g_autofree shardDir *d = g_new0(shardDir, ndirs);
	g_autoptr(GHashTable) byid = g_hash_table_new(g_str_hash, g_str_equal);	/* id -> shardDir * */
	g_autoptr(GHashTable) recs = g_hash_table_new(g_str_hash, g_str_equal);	/* id -> record */
	json_object *trials;
	int i, rc = -1;

	if (shardsLoad(d, dirs, ndirs, byid, recs) == 0) {
		trials = mhlJ(mhlJ(d[0].run, "shard"), "trials");
		if (shardsComplete(d, ndirs, trials, recs) == 0 &&
		    shardsRecords(out, trials, recs, byid) == 0 && shardsRunJson(out, d, ndirs) == 0)
			rc = 0;
	}
	for (i = 0; i < ndirs; i++)
		shardDirClear(&d[i]);
	return rc;
}
