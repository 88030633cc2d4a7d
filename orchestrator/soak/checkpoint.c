/*
 * checkpoint.c - a soak's run directory: soak.json (what the soak is: its
 * scenario, seed, duration, cycles; flock'ed while a soak runs there),
 * checkpoints.jsonl (one fsync'd line per cycle, read back on --resume) and,
 * at the end, the soak's own record in trials.jsonl so every report format
 * covers it.
 */
#include <glib.h>

#include "soak/soak-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

#ifndef MHL_VERSION
#define MHL_VERSION "unknown"	/* the Makefile passes git describe */
#endif

/* A JSON string from a format (json-c has none). */
static json_object *jstrf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_object *jstrf(const char *fmt, ...)
{
	g_autofree char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return json_object_new_string(s);
}

/* Why @len bytes of @text are not the checkpoint of cycle @want (NULL: they are; *cp holds it). */
static char *checkpointParse(const char *text, size_t len, int want, json_object **cp, bool *unparsed)
{
	json_tokener *tok = json_tokener_new();
	g_autoptr(json_object) o = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_object *v;

	json_tokener_free(tok);
	*unparsed = !o || jerr != json_tokener_success;
	if (*unparsed)
		return g_strdup_printf("not JSON (%s at byte %zu)", jerr == json_tokener_continue ?
				       "cut short" : json_tokener_error_desc(jerr), used + 1);
	for (; used < len && g_ascii_isspace(text[used]); used++)
		;
	if (used < len || !json_object_is_type(o, json_type_object))
		return g_strdup("not a JSON object");
	v = mhlJ(o, MHL_K_CYCLE);
	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != want)
		return g_strdup_printf("not the checkpoint of cycle %d", want);
	/* the types the soak reads them as (json-c asserts on an array of another type) */
	if ((v = mhlJ(o, MHL_K_FINDINGS)) && !json_object_is_type(v, json_type_array))
		return g_strdup_printf("its %s is not an array", MHL_K_FINDINGS);
	if (((v = mhlJ(o, MHL_K_SEGMENT)) && !json_object_is_type(v, json_type_int)) ||
	    ((v = mhlJ(o, MHL_K_ELAPSED_S)) && !json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)))
		return g_strdup_printf("its %s or %s is not a number", MHL_K_SEGMENT, MHL_K_ELAPSED_S);
	*cp = g_steal_pointer(&o);
	return NULL;
}

int mhlSoakCheckpointsLoad(const char *path, mhlSoakState *st)
{
	g_autofree char *text = NULL;
	gsize len = 0, pos = 0, i;
	int lineno = 0;

	g_autofree char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
	bool missing = false;
	mhl_autofd int dfd = -1;

	memset(st, 0, sizeof(*st));
	/*
	 * Read through the directory's descriptor: a regular file, never a link
	 * or a FIFO (it would wait for a writer), the file checked the one read
	 * (it was opened by name after the check: a link swapped in between was
	 * followed).
	 */
	if ((dfd = mhlDirOpen(dir)) < 0 ||
	    !(text = mhlFileReadAt(dfd, base, path, (gsize)G_MAXSSIZE, &len, &missing))) {
		if (missing) {
			mhlErrorReset();
			return 0;
		}
		g_autofree char *why = g_strdup(mhlErrorLast() ? mhlErrorLast() : "?");

		mhlError("soak: %s", why);
		return -1;
	}
	for (; pos < len; pos++) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		g_autoptr(json_object) cp = NULL;
		g_autofree char *why = NULL;
		bool unparsed;

		lineno++;
		/* The soak appends one whole line per cycle: a blank line is none of its. */
		if (!n) {
			mhlError("soak: %s:%d: a blank line where the checkpoint of cycle %d belongs; the checkpoints must be cycles 1..N in order, one per line",
				 path, lineno, st->last_cycle + 1);
			return -1;
		}
		if ((why = checkpointParse(l, n, st->last_cycle + 1, &cp, &unparsed))) {
			if (!nl && unparsed) {
				/* The soak stopped while writing its last checkpoint: that cycle runs again. */
				if (truncate(path, (off_t)pos) < 0) {
					mhlError("soak: %s:%d: a torn last checkpoint (%zu bytes, no newline), and it cannot be truncated away: %s",
						 path, lineno, n, g_strerror(errno));
					return -1;
				}
				fprintf(stderr, "memhp-lab: warning: soak: %s:%d: dropped a torn last checkpoint (%zu bytes, no newline: the soak stopped while writing it); cycle %d runs again\n",
					path, lineno, n, st->last_cycle + 1);
				return 0;
			}
			mhlError("soak: %s:%d: %s (a truncated or foreign line); the checkpoints must be cycles 1..N in order",
				 path, lineno, why);
			return -1;
		}
		pos += n;
		st->last_cycle++;
		st->segment = (int)mhlJInt(cp, MHL_K_SEGMENT, 0);
		st->elapsed = mhlJDbl(cp, MHL_K_ELAPSED_S, 0);
		for (i = 0; i < mhlJLen(cp, MHL_K_FINDINGS); i++)	/* a trend counts only at the end (soakEnd) */
			st->findings += (int)mhlSoakFindingCounts(json_object_array_get_idx(mhlJ(cp, MHL_K_FINDINGS), i));
	}
	return 0;
}

/* "process N 'its command line'" while process @pid lives, else NULL. */
static char *lockProcess(int pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/cmdline", pid);
	g_autofree char *cmd = NULL;
	gsize len = 0, i;

	if (!g_file_get_contents(path, &cmd, &len, NULL))
		return NULL;
	for (i = 0; i < len; i++)	/* the arguments, NUL-separated */
		if (!cmd[i] || !g_ascii_isprint(cmd[i]))
			cmd[i] = ' ';
	g_strchomp(cmd);
	if (!*cmd)
		return g_strdup_printf("process %d", pid);
	/* another process's text: 200 bytes at most, never half a character */
	return g_strdup_printf("process %d '%.*s'", pid, mhlTextCutLen(cmd, 200), cmd);
}

/*
 * Who holds the flock on @fd's file, from /proc/locks ("1: FLOCK  ADVISORY
 * WRITE PID MAJ:MIN:INODE 0 EOF"; a waiter's line has "->" before FLOCK):
 * lockProcess(), or NULL when not known (the locker is gone, the file's
 * device not the one stat gives).
 */
static char *lockHolder(int fd)
{
	g_autofree char *locks = NULL;
	g_auto(GStrv) lines = NULL;
	struct stat sb;
	size_t i;

	if (fstat(fd, &sb) < 0 || !g_file_get_contents("/proc/locks", &locks, NULL, NULL))
		return NULL;
	lines = g_strsplit(locks, "\n", -1);
	for (i = 0; lines[i]; i++) {
		unsigned int maj, min;
		unsigned long ino;
		char kind[8];
		int pid;

		if (sscanf(lines[i], "%*d: %7s %*s %*s %d %x:%x:%lu", kind, &pid, &maj, &min, &ino) == 5 &&
		    !strcmp(kind, "FLOCK") && pid > 0 && maj == major(sb.st_dev) && min == minor(sb.st_dev) &&
		    ino == (unsigned long)sb.st_ino)
			return lockProcess(pid);
	}
	return NULL;
}

int mhlSoakLock(const char *dir)
{
	g_autofree char *path = g_build_filename(dir, "soak.json", NULL);
	g_autofree char *holder = NULL;
	/* below the directory's descriptor: a regular file, never a link or a FIFO (docs/security.md) */
	int fd = mhlOpenIn(dir, "soak.json", O_RDONLY, 0), err;

	if (fd < 0) {
		mhlError("soak: cannot open '%s': %s", path,
			 mhlOpenWhy(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	err = errno;
	if (err == EWOULDBLOCK)
		holder = lockHolder(fd);
	close(fd);
	if (err == EWOULDBLOCK)
		mhlError("soak: '%s' is in use by another memhp-lab soak (%s holds the lock on %s); wait for that one to end or stop it",
			 dir, holder ? holder : "it", path);
	else
		mhlError("soak: cannot lock '%s': %s", path, g_strerror(err));
	return -1;
}

json_object *mhlSoakMetaLoad(const char *outdir)
{
	g_autofree char *path = g_build_filename(outdir, "soak.json", NULL), *text = NULL;
	mhl_autofd int dfd = mhlDirOpen(outdir);
	json_object *meta;

	/* data from elsewhere: a regular file below the directory's descriptor, a few KiB at most */
	if (dfd < 0)
		mhlError("soak: cannot open '%s': %s", outdir, g_strerror(errno));
	else
		text = mhlFileReadAt(dfd, "soak.json", path, 1024 * 1024, NULL, NULL);
	if (!text)
		return NULL;
	if (!(meta = json_tokener_parse(text)) || !json_object_is_type(meta, json_type_object)) {
		json_object_put(meta);
		mhlError("soak: --resume: '%s' is not a JSON object", path);
		return NULL;
	}
	return meta;
}

int mhlSoakScenarioTrusted(const char *rundir, const char *metadir, const char *scenario)
{
	g_autofree char *what = g_strdup_printf("soak: --resume: '%s/soak.json': scenario", metadir);

	return mhlRunDirPath(rundir, what, scenario, false, true);
}

json_object *mhlSoakMetaCreate(const char *outdir, const mhlScenario *s, const char *scenario,
			       guint64 seed, double duration, int cycles, const char *kernel)
{
	g_autofree char *path = g_build_filename(outdir, "soak.json", NULL);
	g_autofree char *abs = mhlRealPath(scenario);	/* what --resume accepts */
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *started = g_date_time_format_iso8601(now);
	g_autoptr(json_object) meta = json_object_new_object();

	g_autofree char *tmp = g_build_filename(outdir, ".soak.json-XXXXXX", NULL);
	const char *text;
	int fd, rc;

	if (g_file_test(path, G_FILE_TEST_EXISTS)) {
		mhlError("soak: '%s' already holds a soak; continue it with --resume %s, or choose another -o",
			 outdir, outdir);
		return NULL;
	}
	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("soak: cannot create '%s': %s", outdir, g_strerror(errno));
		return NULL;
	}
	json_object_object_add(meta, MHL_K_TRIAL, jstrf("soak:%s:seed=%" G_GUINT64_FORMAT, s->scenario_name, seed));
	json_object_object_add(meta, MHL_K_SCENARIO, json_object_new_string(abs));
	json_object_object_add(meta, MHL_K_SEED, jstrf("%" G_GUINT64_FORMAT, seed));
	json_object_object_add(meta, MHL_K_DURATION_S, json_object_new_double(duration));
	json_object_object_add(meta, MHL_K_CYCLES, json_object_new_int(cycles));
	json_object_object_add(meta, MHL_K_STARTED, json_object_new_string(started));
	if (kernel)
		json_object_object_add(meta, MHL_K_KERNEL_OPTION, json_object_new_string(kernel));
	json_object_object_add(meta, MHL_K_STACK_RUN, json_object_new_string(s->stack));
	/*
	 * Written whole to a temporary file, then linked to soak.json: link()
	 * fails if another soak created one meanwhile, where a rename would
	 * replace it (and the soak lock on it, mhlSoakLock).
	 */
	text = json_object_to_json_string_ext(meta, JSON_C_TO_STRING_PRETTY);
	if ((fd = g_mkstemp(tmp)) < 0) {
		mhlError("soak: cannot create '%s': %s", tmp, g_strerror(errno));
		return NULL;
	}
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) && fsync(fd) == 0 ? 0 : -errno;
	close(fd);
	if (rc == 0 && link(tmp, path) < 0)
		rc = -errno;
	unlink(tmp);
	if (rc == -EEXIST) {
		mhlError("soak: '%s' already holds a soak; continue it with --resume %s, or choose another -o",
			 outdir, outdir);
		return NULL;
	}
	if (rc < 0) {
		mhlError("soak: cannot write '%s': %s", path, g_strerror(-rc));
		return NULL;
	}
	return g_steal_pointer(&meta);
}

/* The record's stack: its name (the soak's scenario, after --stack) and the versions host_identity has. */
static json_object *soakStack(const mhlSoakRecordFacts *r)
{
	json_object *stack = json_object_new_object(), *v;
	const char *const keys[] = { MHL_K_QEMU, MHL_K_LIBVIRT };
	size_t k;

	json_object_object_add(stack, MHL_K_NAME, json_object_new_string(r->s->stack));
	for (k = 0; r->host_identity && k < G_N_ELEMENTS(keys); k++)
		if (json_object_object_get_ex(r->host_identity, keys[k], &v))
			json_object_object_add(stack, keys[k], json_object_get(v));
	return stack;
}

int mhlSoakRecord(const mhlSoakRecordFacts *r)
{
	g_autofree char *records = g_build_filename(r->outdir, "trials.jsonl", NULL);
	g_autoptr(json_object) rec = json_object_new_object();
	json_object *params = json_object_new_object(), *d = json_object_new_object();
	char dur[32];
	mhlSummary sum;

	mhlSummaryInit(&sum);
	json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(mhlJStr(r->meta, MHL_K_TRIAL, "soak")));
	json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(r->s->path));
	json_object_object_add(rec, MHL_K_STARTED, json_object_get(mhlJ(r->meta, MHL_K_STARTED)));
	json_object_object_add(rec, MHL_K_HARNESS_VERSION, json_object_new_string(MHL_VERSION));
	if (r->host_identity)
		json_object_object_add(rec, MHL_K_HOST_IDENTITY, json_object_get(r->host_identity));
	json_object_object_add(rec, MHL_K_STACK, soakStack(r));
	json_object_object_add(params, MHL_K_SEED, json_object_new_string(mhlJStr(r->meta, MHL_K_SEED, "")));
	if (mhlJDbl(r->meta, MHL_K_DURATION_S, 0) > 0) {	/* a number in soak.json; parameters are text */
		snprintf(dur, sizeof(dur), "%g", mhlJDbl(r->meta, MHL_K_DURATION_S, 0));
		json_object_object_add(params, MHL_K_DURATION_S, json_object_new_string(dur));
	}
	json_object_object_add(rec, MHL_K_PARAMETERS, params);
	json_object_object_add(rec, MHL_K_SCENARIO_NAME, json_object_new_string(r->s->scenario_name));
	json_object_object_add(rec, MHL_K_KERNEL, json_object_get(r->identity));
	json_object_object_add(rec, MHL_K_PIN_POLICY, json_object_new_string(r->s->pin_policy));
	if (r->host)
		json_object_object_add(rec, MHL_K_HOST, json_object_get(r->host));
	json_object_object_add(d, MHL_K_ACCEL, json_object_new_string(r->accel));
	json_object_object_add(rec, MHL_K_DOMAIN, d);
	json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, json_object_get(r->kernel_reports));
	json_object_object_add(rec, MHL_K_STEPS, json_object_new_array());
	if (r->soak)
		json_object_object_add(rec, MHL_K_SOAK, json_object_get(r->soak));
	sum.cycles = r->st->last_cycle;
	sum.segments = r->st->segment + 1;
	sum.findings = r->st->findings;
	sum.soak_seconds = r->st->elapsed;
	sum.cycles_per_hour = r->seg_seconds > 0 ? r->cycles_run_now * 3600.0 / r->seg_seconds : 0;
	sum.pins_failed = 0;
	json_object_object_add(rec, MHL_K_SUMMARY, mhlSummaryToJSON(&sum));
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(r->st->elapsed));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(
		mhlVerdictNames[r->st->findings ? MHL_VERDICT_FAIL : MHL_VERDICT_PASS]));
	json_object_object_add(rec, MHL_K_REASON, !r->st->findings ? NULL : jstrf(
		"%d finding(s) in %d cycles; first, cycle %" G_GINT64_FORMAT " (%s): %s", r->st->findings,
		r->st->last_cycle, mhlJInt(r->first_finding, MHL_K_CYCLE, 0), mhlJStr(r->first_finding, MHL_K_KIND, "?"),
		mhlJStr(r->first_finding, MHL_K_TEXT, "")));
	return mhlRecordAppend(records, rec);
}
