/*
 * tests/unit/record.c - the trial record (orchestrator/record/record.h):
 * appending lines, the typed summary's writer and reader, the verdict, the
 * dotted-path accessors, and reading a run's trials.jsonl back with its bad
 * lines named.
 */
#include <glib.h>

#include <string.h>

#include "record/record.h"
#include "unit.h"
#include "util.h"

/* ---- appending ---- */

static char *appendPath(void)
{
	return g_build_filename(unitTmpdir, "trials.jsonl", NULL);
}

static bool twoAppends(void)
{
	g_autofree char *path = appendPath();
	g_autoptr(json_object) a = json_tokener_parse("{\"trial\":\"a\",\"v\":\"x/y\"}");
	g_autoptr(json_object) b = json_tokener_parse("{\"trial\":\"b\"}");

	return unitExpect(mhlRecordAppend(path, a) == 0 && mhlRecordAppend(path, b) == 0);
}

static bool completeLines(void)
{
	g_autofree char *path = appendPath();
	g_autofree char *content = NULL;
	g_auto(GStrv) lines = NULL;

	g_file_get_contents(path, &content, NULL, NULL);
	lines = g_strsplit(content ? content : "", "\n", -1);
	return unitExpect(g_strv_length(lines) == 3 && !strcmp(lines[0], "{\"trial\":\"a\",\"v\":\"x/y\"}") &&
			  !strcmp(lines[1], "{\"trial\":\"b\"}") && !*lines[2]);
}

static bool unwritableNamed(void)
{
	g_autoptr(json_object) a = json_tokener_parse("{\"trial\":\"a\"}");

	return unitExpect(mhlRecordAppend("/nonexistent/dir/trials.jsonl", a) < 0 &&
			  strstr(mhlErrorLast(), "/nonexistent/dir/trials.jsonl"));
}

/* ---- the summary ---- */

/* Every field set; zeroed first (padding too) so that two summaries compare with memcmp. */
static void summaryFill(mhlSummary *s)
{
	memset(s, 0, sizeof(*s));
	s->boot_to_agent_s = 2.5;
	s->initial_plug_s = 0.25;
	s->pinned_bytes = 256LL << 20;
	s->pinned_pages_movable_before = 65536;
	s->pinned_pages_movable_after = 0;
	s->requested_bytes = 0;
	s->reached_bytes = 260LL << 20;
	s->seconds_to_converge = 0.125;
	s->pattern_ok_after_resize = MHL_TRI_TRUE;
	s->pattern_ok_at_release = MHL_TRI_FALSE;
	s->pins_failed = 3;
	s->cycles = 200;
	s->segments = 4;
	s->findings = 1;
	s->soak_seconds = 3600.5;
	s->cycles_per_hour = 199.75;
}

static bool summaryOnlySet(void)
{
	g_autoptr(json_object) o = NULL;
	mhlSummary s;
	const char *got;

	mhlSummaryInit(&s);
	s.pinned_bytes = 0;
	s.seconds_to_converge = 0.5;
	s.pattern_ok_at_release = MHL_TRI_FALSE;
	o = mhlSummaryToJSON(&s);
	got = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (strcmp(got, "{\"pinned_bytes\":0,\"seconds_to_converge\":0.5,\"pattern_ok_at_release\":false}"))
		unitDiag("got %s", got);
	return unitExpect(!strcmp(got, "{\"pinned_bytes\":0,\"seconds_to_converge\":0.5,"
				  "\"pattern_ok_at_release\":false}"));
}

static bool summaryUnsetEmpty(void)
{
	g_autoptr(json_object) o = NULL;
	mhlSummary s;

	mhlSummaryInit(&s);
	o = mhlSummaryToJSON(&s);
	return unitExpect(json_object_is_type(o, json_type_object) && json_object_object_length(o) == 0);
}

/* Written as a record's summary, through text and back: the same summary. */
static bool summaryRoundTrip(void)
{
	g_autoptr(json_object) rec = json_object_new_object(), back = NULL;
	mhlSummary s, r;

	summaryFill(&s);
	json_object_object_add(rec, MHL_K_SUMMARY, mhlSummaryToJSON(&s));
	back = json_tokener_parse(json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN));
	memset(&r, 0, sizeof(r));
	mhlSummaryRead(back, &r);
	return unitExpect(json_object_object_length(mhlJ(rec, MHL_K_SUMMARY)) == 16 && !memcmp(&s, &r, sizeof(s)));
}

static bool summaryAbsentUnset(void)
{
	g_autoptr(json_object) rec = json_tokener_parse("{\"trial\":\"t\",\"summary\":\"not an object\"}");
	mhlSummary unset, a, b;

	memset(&unset, 0, sizeof(unset));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	mhlSummaryInit(&unset);
	mhlSummaryRead(NULL, &a);
	mhlSummaryRead(rec, &b);
	return unitExpect(!memcmp(&unset, &a, sizeof(a)) && !memcmp(&unset, &b, sizeof(b)) &&
			  unset.pinned_bytes == -1 && unset.pattern_ok_at_release == MHL_TRI_UNSET);
}

/* ---- the verdict ---- */

static const struct verdictRow {
	const char *what, *json;
	mhlVerdict want;
} verdicts[] = {
	{ "'pass'", "{\"trial\":\"t\",\"verdict\":\"pass\"}", MHL_VERDICT_PASS },
	{ "'fail'", "{\"trial\":\"t\",\"verdict\":\"fail\"}", MHL_VERDICT_FAIL },
	{ "'error'", "{\"trial\":\"t\",\"verdict\":\"error\"}", MHL_VERDICT_ERROR },
	{ "'interrupted'", "{\"trial\":\"t\",\"verdict\":\"interrupted\"}", MHL_VERDICT_INTERRUPTED },
	{ "'bogus'", "{\"trial\":\"t\",\"verdict\":\"bogus\"}", MHL_VERDICT_LAST },
	{ "missing", "{\"trial\":\"t\"}", MHL_VERDICT_LAST },
	{ "a number", "{\"trial\":\"t\",\"verdict\":1}", MHL_VERDICT_LAST },
};

static bool verdictJudge(const void *row, GString *desc)
{
	const struct verdictRow *v = row;
	g_autoptr(json_object) rec = json_tokener_parse(v->json);
	mhlVerdict got = mhlVerdictOf(rec);

	g_string_printf(desc, "record: verdict %s is %s", v->what,
			v->want < MHL_VERDICT_LAST ? mhlVerdictNames[v->want] : "none (MHL_VERDICT_LAST)");
	if (got != v->want)
		unitDiag("got %d", got);
	return unitExpect(rec && got == v->want);
}

static bool dottedPaths(void)
{
	g_autoptr(json_object) rec = json_tokener_parse(
		"{\"summary\":{\"reached_bytes\":4096,\"seconds_to_converge\":0.5},\"kernel\":{\"source_version\":\"6.12.1\"}}");

	return unitExpect(mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), -1) == 4096 &&
			  mhlJDbl(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_SECONDS_TO_CONVERGE), -1) == 0.5 &&
			  !strcmp(mhlJStr(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), ""), "6.12.1") &&
			  mhlJInt(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_PINS_FAILED), -1) == -1 &&
			  mhlJInt(rec, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION), -1) == -1 &&
			  !strcmp(mhlJStr(rec, MHL_PATH(MHL_K_SUMMARY, MHL_K_REACHED_BYTES), "d"), "d") &&
			  !mhlJ(rec, "summary.reached_bytes.deeper") && !mhlJ(NULL, MHL_K_SUMMARY));
}

/* ---- reading a run back ---- */

/* A good line, a non-JSON line, a line without verdict, and a last line cut short. */
static const char runLines[] =
	"{\"trial\":\"good\",\"verdict\":\"pass\"}\n"
	"not json at all\n"
	"{\"trial\":\"noverdict\",\"seconds\":1}\n"
	"{\"trial\":\"cut\",\"verd";

static mhlRun *loaded;

static void recordSetup(void)
{
	g_autofree char *dir = g_build_filename(unitTmpdir, "run", NULL);

	g_mkdir_with_parents(dir, 0755);
	g_free(unitWriteTmp("run/trials.jsonl", runLines));
	loaded = mhlRunLoad(dir);
	if (!loaded)
		unitDiag("mhlRunLoad(%s): %s", dir, mhlErrorLast());
}

static void recordTeardown(void)
{
	g_clear_pointer(&loaded, mhlRunFree);
}

/* Bad line @i of the loaded run is line @line and its reason contains @why. */
static bool badLine(guint i, int line, const char *why)
{
	mhlRunBad *b = loaded && i < loaded->bad->len ? loaded->bad->pdata[i] : NULL;

	if (b && (b->line != line || !strstr(b->why, why)))
		unitDiag("bad line %u: line %d: %s", i, b->line, b->why);
	return b && b->line == line && strstr(b->why, why);
}

static bool loadKeepsGood(void)
{
	return unitExpect(loaded && loaded->trials->len == 1 && loaded->lines->len == 1 &&
			  g_array_index(loaded->lines, int, 0) == 1 &&
			  !strcmp(mhlJStr(loaded->trials->pdata[0], MHL_K_TRIAL, ""), "good"));
}

static bool loadThreeBad(void)
{
	return unitExpect(loaded && loaded->bad->len == 3);
}

static bool loadNotJSON(void)
{
	return unitExpect(badLine(0, 2, "not JSON: "));
}

static bool loadNoVerdict(void)
{
	return unitExpect(badLine(1, 3, "trial 'noverdict': verdict missing is not pass, fail, error or interrupted"));
}

static bool loadTruncated(void)
{
	g_autofree char *why = g_strdup_printf("truncated last line (%zu bytes, no newline)",
					       strlen(strrchr(runLines, '\n') + 1));

	return unitExpect(badLine(2, 4, why));
}

static bool loadEmpty(void)
{
	g_autofree char *dir = g_build_filename(unitTmpdir, "empty", NULL);
	g_autoptr(mhlRun) run = NULL;

	g_mkdir_with_parents(dir, 0755);
	g_free(unitWriteTmp("empty/trials.jsonl", ""));
	run = mhlRunLoad(dir);
	return unitExpect(!run && strstr(mhlErrorLast(), "no trials recorded (an empty run)"));
}

static bool loadMissingDir(void)
{
	g_autoptr(mhlRun) run = mhlRunLoad("/nonexistent/run");

	return unitExpect(!run && strstr(mhlErrorLast(), "run directory '/nonexistent/run' does not exist"));
}

static const unitCase appendCases[] = {
	{ "record: two appends", twoAppends },
	{ "record: one complete line each, newline-terminated", completeLines },
	{ "record: unwritable path is named", unwritableNamed },
};

static const unitCase summaryCases[] = {
	{ "record: mhlSummaryToJSON writes only the set fields (0 is set), in the schema's order", summaryOnlySet },
	{ "record: mhlSummaryToJSON of a summary with nothing set is {}", summaryUnsetEmpty },
	{ "record: a filled summary through mhlSummaryToJSON, text and mhlSummaryRead equals the original",
	  summaryRoundTrip },
	{ "record: mhlSummaryRead of no record or a summary that is no object leaves every field unset",
	  summaryAbsentUnset },
};

static const unitCase readCases[] = {
	{ "record: mhlJ, mhlJInt, mhlJDbl, mhlJStr follow dotted paths; absent or another type gives the default",
	  dottedPaths },
	{ "record: mhlRunLoad keeps the good line 1 of 4", loadKeepsGood },
	{ "record: mhlRunLoad names 3 bad lines", loadThreeBad },
	{ "record: mhlRunLoad names line 2: not JSON", loadNotJSON },
	{ "record: mhlRunLoad names line 3: verdict missing", loadNoVerdict },
	{ "record: mhlRunLoad names line 4: truncated last line (no newline)", loadTruncated },
	{ "record: mhlRunLoad refuses an empty trials.jsonl: no trials recorded (an empty run)", loadEmpty },
	{ "record: mhlRunLoad refuses a run directory that does not exist", loadMissingDir },
};

static const unitTable tables[] = {
	UNIT_CASES(appendCases),
	UNIT_CASES(summaryCases),
	UNIT_TABLE(verdicts, verdictJudge),
	UNIT_CASES(readCases),
};

const unitModule unitRecord = UNIT_MODULE("record", recordSetup, recordTeardown, tables);
