/*
 * checkpoint.c - a soak's run directory: soak.json (what the soak is: its
 * scenario, seed, duration, cycles), checkpoints.jsonl (one fsync'd line per
 * cycle, read back on --resume) and, at the end, the soak's own record in
 * trials.jsonl so every report format covers it.
 */
#include <glib.h>

#include "soak/soak-int.h"

#include <errno.h>
#include <string.h>

#include "util.h"

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

int mhlSoakCheckpointsLoad(const char *path, mhlSoakState *st)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	int i;

	memset(st, 0, sizeof(*st));
	if (!g_file_test(path, G_FILE_TEST_EXISTS))
		return 0;
	if (!(text = mhlFileRead(path, NULL)))
		return -1;
	lines = g_strsplit(text, "\n", -1);
	for (i = 0; lines[i] && *lines[i]; i++) {
		g_autoptr(json_object) cp = json_tokener_parse(lines[i]);

		if (!cp || mhlJInt(cp, MHL_K_CYCLE, -1) != st->last_cycle + 1) {
			mhlError("soak: %s:%d: not the checkpoint of cycle %d (a truncated or foreign line); the checkpoints must be cycles 1..N in order",
				 path, i + 1, st->last_cycle + 1);
			return -1;
		}
		st->last_cycle++;
		st->segment = (int)mhlJInt(cp, MHL_K_SEGMENT, 0);
		st->elapsed = mhlJDbl(cp, MHL_K_ELAPSED_S, 0);
		st->findings += (int)json_object_array_length(mhlJ(cp, MHL_K_FINDINGS));
	}
	return 0;
}

json_object *mhlSoakMetaLoad(const char *outdir)
{
	g_autofree char *path = g_build_filename(outdir, "soak.json", NULL);
	g_autofree char *text = mhlFileRead(path, NULL);
	json_object *meta;

	if (!text)
		return NULL;
	if (!(meta = json_tokener_parse(text)) || !json_object_is_type(meta, json_type_object)) {
		json_object_put(meta);
		mhlError("soak: --resume: '%s' is not a JSON object", path);
		return NULL;
	}
	return meta;
}

json_object *mhlSoakMetaCreate(const char *outdir, const mhlScenario *s, const char *scenario,
			       guint64 seed, double duration, int cycles)
{
	g_autofree char *path = g_build_filename(outdir, "soak.json", NULL);
	g_autofree char *abs = g_canonicalize_filename(scenario, NULL);
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *started = g_date_time_format_iso8601(now);
	g_autoptr(json_object) meta = json_object_new_object();

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
	json_object_object_add(meta, "seed", jstrf("%" G_GUINT64_FORMAT, seed));
	json_object_object_add(meta, "duration_s", json_object_new_double(duration));
	json_object_object_add(meta, MHL_K_CYCLES, json_object_new_int(cycles));
	json_object_object_add(meta, MHL_K_STARTED, json_object_new_string(started));
	if (!g_file_set_contents(path, json_object_to_json_string_ext(meta, JSON_C_TO_STRING_PRETTY), -1, NULL)) {
		mhlError("soak: cannot write '%s'", path);
		return NULL;
	}
	return g_steal_pointer(&meta);
}

int mhlSoakRecord(const char *outdir, const mhlScenario *s, json_object *meta, json_object *identity,
		  const char *accel, const mhlSoakState *st, json_object *first_finding,
		  json_object *kernel_reports, int cycles_run_now, double seg_seconds)
{
	g_autofree char *records = g_build_filename(outdir, "trials.jsonl", NULL);
	g_autoptr(json_object) rec = json_object_new_object();
	json_object *params = json_object_new_object(), *d = json_object_new_object();
	mhlSummary sum;

	mhlSummaryInit(&sum);
	json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(mhlJStr(meta, MHL_K_TRIAL, "soak")));
	json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(s->path));
	json_object_object_add(rec, MHL_K_STARTED, json_object_get(mhlJ(meta, MHL_K_STARTED)));
	json_object_object_add(params, "seed", json_object_new_string(mhlJStr(meta, "seed", "")));
	json_object_object_add(params, "duration_s", json_object_new_string(mhlJStr(meta, "duration_s", "")));
	json_object_object_add(rec, MHL_K_PARAMETERS, params);
	json_object_object_add(rec, MHL_K_SCENARIO_NAME, json_object_new_string(s->scenario_name));
	json_object_object_add(rec, MHL_K_KERNEL, json_object_get(identity));
	json_object_object_add(rec, MHL_K_PIN_POLICY, json_object_new_string(s->pin_policy));
	json_object_object_add(d, MHL_K_ACCEL, json_object_new_string(accel));
	json_object_object_add(rec, MHL_K_DOMAIN, d);
	json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, json_object_get(kernel_reports));
	json_object_object_add(rec, MHL_K_STEPS, json_object_new_array());
	sum.cycles = st->last_cycle;
	sum.segments = st->segment + 1;
	sum.findings = st->findings;
	sum.soak_seconds = st->elapsed;
	sum.cycles_per_hour = seg_seconds > 0 ? cycles_run_now * 3600.0 / seg_seconds : 0;
	sum.pins_failed = 0;
	json_object_object_add(rec, MHL_K_SUMMARY, mhlSummaryToJSON(&sum));
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(st->elapsed));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(
		mhlVerdictNames[st->findings ? MHL_VERDICT_FAIL : MHL_VERDICT_PASS]));
	json_object_object_add(rec, MHL_K_REASON, !st->findings ? NULL : jstrf(
		"%d finding(s) in %d cycles; first, cycle %" G_GINT64_FORMAT " (%s): %s", st->findings,
		st->last_cycle, mhlJInt(first_finding, MHL_K_CYCLE, 0), mhlJStr(first_finding, MHL_K_KIND, "?"),
		mhlJStr(first_finding, MHL_K_TEXT, "")));
	return mhlRecordAppend(records, rec);
}
