/*
 * tests/unit/record.c - the trial record (orchestrator/record/record.h):
 * appending lines (all or nothing, a torn line never joined; a soak's torn
 * checkpoint dropped on resume), text from outside made fit for records, the
 * typed summary's writer and reader, the verdict, the dotted-path accessors,
 * and reading a run's trials.jsonl back with its bad lines (and records of
 * the wrong shape) named.
 */
#include <glib.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"
#include "soak/soak-int.h"
#include "unit.h"
#include "util.h"

/* ---- appending ---- */

/* Two records appended to a file of its own under the scratch directory, NAME.jsonl. */
static char *twoAppended(const char *name)
{
	g_autofree char *path = g_strdup_printf("%s/%s.jsonl", unitTmpdir, name);
	g_autoptr(json_object) a = json_tokener_parse("{\"trial\":\"a\",\"v\":\"x/y\"}");
	g_autoptr(json_object) b = json_tokener_parse("{\"trial\":\"b\"}");

	if (mhlRecordAppend(path, a) < 0 || mhlRecordAppend(path, b) < 0)
		return NULL;
	return g_steal_pointer(&path);
}

static bool twoAppends(void)
{
	g_autofree char *path = twoAppended("two");

	return unitExpect(path != NULL);
}

static bool completeLines(void)
{
	g_autofree char *path = twoAppended("complete");
	g_autofree char *content = NULL;
	g_auto(GStrv) lines = NULL;

	if (!unitExpect(path))
		return false;
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

/*
 * Issue 48: a run directory's record files are opened below the directory's
 * descriptor and never through a link: started.jsonl planted as a symbolic
 * link to another file, or as a hard link to one, is refused and that file
 * is left as it was (append.c opened the name with O_CREAT | O_APPEND and
 * wrote through both); a FIFO is refused without waiting for a reader.
 */
static bool appendPlanted(const char *kind)
{
	g_autofree char *dir = g_build_filename(unitTmpdir, kind, NULL);
	g_autofree char *victim = g_build_filename(unitTmpdir, kind, "victim", NULL), *after = NULL;
	g_autofree char *path = g_build_filename(dir, "started.jsonl", NULL);
	g_autoptr(json_object) a = json_tokener_parse("{\"trial\":\"a\"}");
	bool refused;
	int made;

	g_mkdir_with_parents(dir, 0755);
	g_file_set_contents(victim, "untouched\n", -1, NULL);
	made = !strcmp(kind, "symlink") ? symlink(victim, path) : !strcmp(kind, "hardlink") ? link(victim, path) :
	       mkfifo(path, 0644);
	mhlErrorReset();
	refused = mhlRecordAppend(path, a) < 0;
	g_file_get_contents(victim, &after, NULL, NULL);
	if (!refused || g_strcmp0(after, "untouched\n"))
		unitDiag("append %s, the other file now '%s'", refused ? "refused" : "done", after ? after : "(none)");
	else
		unitDiag("%s", mhlErrorLast());
	return unitExpect(made == 0 && refused && !g_strcmp0(after, "untouched\n") &&
			  strstr(mhlErrorLast(), path) &&
			  strstr(mhlErrorLast(), !strcmp(kind, "symlink") ? "a symbolic link" :
				 !strcmp(kind, "hardlink") ? "more than one link" : "not a regular file"));
}

static bool appendSymlink(void) { return appendPlanted("symlink"); }
static bool appendHardlink(void) { return appendPlanted("hardlink"); }
static bool appendFifo(void) { return appendPlanted("fifo"); }

/*
 * A short write - here a file size limit 100 bytes past the file's end, in a
 * child process - leaves the file as it was: no torn line for the next record
 * to land on.
 */
static bool appendShortWrite(void)
{
	static const char first[] = "{\"trial\":\"a\",\"verdict\":\"pass\"}\n";
	g_autofree char *path = g_build_filename(unitTmpdir, "short.jsonl", NULL);
	g_autofree char *pad = g_strnfill(4096, 'x'), *after = NULL, *want = NULL;
	g_autoptr(json_object) big = json_object_new_object(), small = json_tokener_parse("{\"trial\":\"b\"}");
	int status = -1;
	pid_t pid;

	g_file_set_contents(path, first, -1, NULL);
	json_object_object_add(big, "trial", json_object_new_string("big"));
	json_object_object_add(big, "pad", json_object_new_string(pad));
	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct rlimit rl = { .rlim_cur = sizeof(first) - 1 + 100, .rlim_max = sizeof(first) - 1 + 100 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		_exit(mhlRecordAppend(path, big) < 0 ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	g_file_get_contents(path, &after, NULL, NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 1 || g_strcmp0(after, first))
		unitDiag("child status %d, file now %zu bytes (was %zu)", status, after ? strlen(after) : 0,
			 sizeof(first) - 1);
	if (!unitExpect(WIFEXITED(status) && WEXITSTATUS(status) == 1 && !g_strcmp0(after, first)))
		return false;
	/* and the next record is a line of its own */
	g_clear_pointer(&after, g_free);
	want = g_strdup_printf("%s{\"trial\":\"b\"}\n", first);
	return unitExpect(mhlRecordAppend(path, small) == 0 && g_file_get_contents(path, &after, NULL, NULL) &&
			  !strcmp(after, want));
}

/* A run killed mid-write left a torn last line: the next record still gets a line of its own. */
static bool appendAfterTorn(void)
{
	static const char torn[] = "{\"trial\":\"a\",\"verdict\":\"pass\"}\n{\"trial\":\"cut\",\"verd";
	g_autofree char *dir = g_build_filename(unitTmpdir, "torn", NULL);
	g_autofree char *path = g_build_filename(dir, "trials.jsonl", NULL), *after = NULL;
	g_autoptr(json_object) b = json_tokener_parse("{\"trial\":\"b\",\"verdict\":\"fail\"}");
	g_autoptr(mhlRun) run = NULL;

	g_mkdir_with_parents(dir, 0755);
	g_file_set_contents(path, torn, -1, NULL);
	if (!unitExpect(mhlRecordAppend(path, b) == 0 && g_file_get_contents(path, &after, NULL, NULL) &&
			g_str_has_suffix(after, "\"verd\n{\"trial\":\"b\",\"verdict\":\"fail\"}\n")))
		return false;
	run = mhlRunLoad(dir);
	return unitExpect(run && run->trials->len == 2 && run->bad->len == 1 &&
			  ((mhlRunBad *)run->bad->pdata[0])->line == 2 &&
			  !strcmp(mhlJStr(run->trials->pdata[1], MHL_K_TRIAL, ""), "b"));
}

/* ---- a soak's checkpoints read back (--resume) ---- */

#define CP1 "{\"cycle\":1,\"segment\":0,\"elapsed_s\":10.5,\"findings\":[]}\n"
#define CP2 "{\"cycle\":2,\"segment\":0,\"elapsed_s\":21,\"findings\":[{\"kind\":\"x\"}]}\n"

static int checkpointsLoad(const char *content, mhlSoakState *st, char **after)
{
	g_autofree char *path = unitWriteTmp("checkpoints.jsonl", content);
	int rc;

	memset(st, 0, sizeof(*st));
	rc = mhlSoakCheckpointsLoad(path, st);
	g_file_get_contents(path, after, NULL, NULL);
	return rc;
}

static bool checkpointTorn(void)
{
	g_autofree char *after = NULL, *errpath = g_build_filename(unitTmpdir, "stderr", NULL), *said = NULL;
	mhlSoakState st;
	int saved, fd, rc;

	/* what it says on stderr, into a file */
	fflush(stderr);
	saved = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	rc = checkpointsLoad(CP1 CP2 "{\"cycle\":3,\"segment\":1,\"sched", &st, &after);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	g_file_get_contents(errpath, &said, NULL, NULL);
	if (rc < 0)
		unitDiag("%s", mhlErrorLast());
	return unitExpect(rc == 0 && st.last_cycle == 2 && st.findings == 1 && st.elapsed == 21 &&
			  !g_strcmp0(after, CP1 CP2) && said &&
			  strstr(said, "checkpoints.jsonl:3: dropped a torn last checkpoint") &&
			  strstr(said, "cycle 3 runs again"));
}

static bool checkpointTornMiddle(void)
{
	g_autofree char *after = NULL;
	mhlSoakState st;

	return unitExpect(checkpointsLoad(CP1 "{\"cycle\":2,\"seg\n" CP2, &st, &after) < 0 &&
			  strstr(mhlErrorLast(), "checkpoints.jsonl:2: not JSON"));
}

static bool checkpointFindingsString(void)
{
	g_autofree char *after = NULL;
	mhlSoakState st;

	return unitExpect(checkpointsLoad(CP1 "{\"cycle\":2,\"findings\":\"none\"}\n", &st, &after) < 0 &&
			  strstr(mhlErrorLast(), "checkpoints.jsonl:2: its findings is not an array"));
}

/* ---- text from outside (mhlTextClean) ---- */

static const struct textRow {
	const char *what, *in;
	gssize len;
	gsize max;
	bool multiline;
	const char *want;
} texts[] = {
	{ "CSI colour codes dropped", "\x1b[1;31mred\x1b[0m!", -1, 0, false, "red!" },
	{ "an OSC title (to BEL) dropped", "\x1b]0;title\x07text", -1, 0, false, "text" },
	{ "ESC ( B and a lone ESC dropped", "a\x1b(Bb\x1b", -1, 0, false, "ab" },
	{ "a byte that is not UTF-8 is U+FFFD", "a\xff" "b", -1, 0, false, "a\xef\xbf\xbd" "b" },
	{ "a NUL and CR dropped (by length)", "a\0b\r", 4, 0, false, "ab" },
	{ "newline and tab: a space in one line", "a\tb\nc", -1, 0, false, "a b c" },
	{ "newline and tab kept in multiline text", "a\tb\nc", -1, 0, true, "a\tb\nc" },
	{ "a C1 control (U+009B) and DEL dropped", "a\xc2\x9b\x7f" "b", -1, 0, false, "ab" },
	{ "U+FFFF is U+FFFD", "\xef\xbf\xbf", -1, 0, false, "\xef\xbf\xbd" },
	{ "UTF-8 text kept", "Grüße – ok", -1, 0, false, "Grüße – ok" },
	{ "at most max bytes: not cut when it fits", "\xc3\xa9\xc3\xa9\xc3\xa9", -1, 6, false, "\xc3\xa9\xc3\xa9\xc3\xa9" },
	{ "cut between two characters, with ...", "\xc3\xa9\xc3\xa9\xc3\xa9", -1, 5, false, "\xc3\xa9..." },
	{ "cut: a character never split", "a\xc3\xa9\xc3\xa9\xc3\xa9", -1, 5, false, "a..." },
	{ "NULL is empty", NULL, -1, 0, false, "" },
	/* the fast path (printable ASCII, nothing to clean) must not take a DEL or a control for text */
	{ "DEL alone dropped", "\x7f", -1, 0, false, "" },
	{ "DEL alone dropped from multiline text", "\x7f", -1, 0, true, "" },
	{ "DEL among ASCII text dropped", "a\x7f" "b", -1, 0, false, "ab" },
	{ "DEL at the end of a line kept short of max dropped", "abc\x7f", -1, 8, false, "abc" },
	{ "C0 controls but tab and newline dropped",
	  "a\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"
	  "\x19\x1a\x1c\x1d\x1e\x1f" "b", -1, 0, false, "ab" },
	{ "a CR alone dropped, in multiline text too", "a\rb", -1, 0, true, "ab" },
	{ "a BEL alone dropped", "\a", -1, 0, false, "" },
	{ "space and tilde kept (the printable ends)", " ~", -1, 0, false, " ~" },
	{ "a cut UTF-8 sequence at the end is U+FFFD", "a\xc3", -1, 0, false, "a\xef\xbf\xbd" },
	{ "a lone continuation byte is U+FFFD", "\x80" "a", -1, 0, false, "\xef\xbf\xbd" "a" },
	{ "an overlong '/' is two U+FFFD", "\xc0\xaf", -1, 0, false, "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "a UTF-16 surrogate is three U+FFFD", "\xed\xa0\x80", -1, 0, false,
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "past U+10FFFF is U+FFFD per byte", "\xf4\x90\x80\x80", -1, 0, false,
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
};

static bool textJudge(const void *row, GString *desc)
{
	const struct textRow *r = row;
	g_autofree char *got = NULL;

	g_string_printf(desc, "text: %s", r->what);
	if (unitListing)
		return true;
	got = mhlTextClean(r->in, r->len, r->max, r->multiline);
	if (strcmp(got, r->want))
		unitDiag("got '%s', want '%s'", got, r->want);
	return unitExpect(!strcmp(got, r->want));
}

/* A quote of at most max bytes ("%.*s", mhlTextCutLen) ends between two characters. */
static const struct cutRow {
	const char *what, *in;
	int max, want;
} cuts[] = {
	{ "shorter than max: all of it", "abc", 60, 3 },
	{ "exactly max: all of it", "abc", 3, 3 },
	{ "ASCII: max bytes", "abcdef", 4, 4 },
	{ "max falls inside a 2-byte character: backs off before it", "a\xc3\xa9" "b", 2, 1 },
	{ "max falls after a whole 2-byte character: max", "a\xc3\xa9" "b", 3, 3 },
	{ "max falls inside a 3-byte character (after its 2nd byte): backs off 2", "ab\xe2\x82\xac", 4, 2 },
	{ "max falls inside a 4-byte character (after its 3rd byte): backs off 3", "\xf0\x9f\x98\x80z", 3, 0 },
	{ "60 bytes of 3-byte characters cut at 59: 57 (19 characters)",
	  "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	  "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	  "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 59, 57 },
	{ "continuation bytes that are no sequence: max (nothing to keep whole)", "\x80\x80\x80\x80\x80\x80", 5, 5 },
	{ "a lone lead byte before max, then a stray continuation: max", "a\xc3" "b\x80\x80", 3, 3 },
	{ "NULL: 0", NULL, 10, 0 },
	{ "max 0: 0", "abc", 0, 0 },
};

static bool cutJudge(const void *row, GString *desc)
{
	const struct cutRow *r = row;
	int got;

	g_string_printf(desc, "text: mhlTextCutLen: %s", r->what);
	if (unitListing)
		return true;
	got = mhlTextCutLen(r->in, r->max);
	if (got != r->want)
		unitDiag("got %d, want %d", got, r->want);
	/* the quote of valid UTF-8 is valid UTF-8 */
	return unitExpect(got == r->want && (!r->in || !g_utf8_validate(r->in, -1, NULL) ||
					     g_utf8_validate(r->in, got, NULL)));
}

static bool jsonClean(void)
{
	g_autoptr(json_object) o = json_tokener_parse(
		"{\"k\\u0007ey\":\"x\\u0000y\\u001b[1mz\",\"arr\":[\"\\u0007\",1,{\"t\":\"\\u009b\"}],\"ok\":\"plain\"}");
	const char *got;

	mhlJSONClean(o, false);
	got = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (strcmp(got, "{\"arr\":[\"\",1,{\"t\":\"\"}],\"ok\":\"plain\",\"key\":\"xyz\"}"))
		unitDiag("got %s", got);
	return unitExpect(!strcmp(got, "{\"arr\":[\"\",1,{\"t\":\"\"}],\"ok\":\"plain\",\"key\":\"xyz\"}"));
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
	s->host_before_bytes = 300LL << 20;
	s->host_after_bytes = 44LL << 20;
	s->host_reclaimed_bytes = 256LL << 20;
	s->host_shrinks = 2;
	s->host_reclaimable_bytes = 292LL << 20;
	s->host_reclaimed_of_reclaimable = 0.875;
	s->host_settle_s = 0.5;
	s->plug_to_online_s = 0.75;
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
	return unitExpect(json_object_object_length(mhlJ(rec, MHL_K_SUMMARY)) == 24 && !memcmp(&s, &r, sizeof(s)));
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
	{ "'skip'", "{\"trial\":\"t\",\"verdict\":\"skip\"}", MHL_VERDICT_SKIP },
	{ "'xfail'", "{\"trial\":\"t\",\"verdict\":\"xfail\"}", MHL_VERDICT_XFAIL },
	{ "'xpass'", "{\"trial\":\"t\",\"verdict\":\"xpass\"}", MHL_VERDICT_XPASS },
	{ "'lost'", "{\"trial\":\"t\",\"verdict\":\"lost\"}", MHL_VERDICT_LOST },
	{ "'Pass' (another case)", "{\"trial\":\"t\",\"verdict\":\"Pass\"}", MHL_VERDICT_LAST },
	{ "'pas' (a prefix)", "{\"trial\":\"t\",\"verdict\":\"pas\"}", MHL_VERDICT_LAST },
	{ "'bogus'", "{\"trial\":\"t\",\"verdict\":\"bogus\"}", MHL_VERDICT_LAST },
	{ "missing", "{\"trial\":\"t\"}", MHL_VERDICT_LAST },
	{ "a number", "{\"trial\":\"t\",\"verdict\":1}", MHL_VERDICT_LAST },
};

static bool verdictJudge(const void *row, GString *desc)
{
	const struct verdictRow *v = row;
	g_autoptr(json_object) rec = NULL;
	mhlVerdict got;

	g_string_printf(desc, "record: verdict %s is %s", v->what,
			v->want < MHL_VERDICT_LAST ? mhlVerdictNames[v->want] : "none (MHL_VERDICT_LAST)");
	if (unitListing)
		return true;
	rec = json_tokener_parse(v->json);
	got = mhlVerdictOf(rec);
	if (got != v->want)
		unitDiag("got %d", got);
	return unitExpect(rec && got == v->want);
}

/* Which verdicts let a run succeed (mhlVerdictOk): pass, skip and xfail; an xpass fails the run. */
static const struct verdictOkRow {
	mhlVerdict v;
	bool ok;
} verdictOks[] = {
	{ MHL_VERDICT_PASS, true }, { MHL_VERDICT_FAIL, false }, { MHL_VERDICT_ERROR, false },
	{ MHL_VERDICT_SKIP, true }, { MHL_VERDICT_XFAIL, true }, { MHL_VERDICT_XPASS, false },
	{ MHL_VERDICT_INTERRUPTED, false }, { MHL_VERDICT_LOST, false }, { MHL_VERDICT_LAST, false },
};

static bool verdictOkJudge(const void *row, GString *desc)
{
	const struct verdictOkRow *r = row;

	g_string_printf(desc, "record: verdict %s %s a run succeed", r->v < MHL_VERDICT_LAST ? mhlVerdictNames[r->v] :
			"none (MHL_VERDICT_LAST)", r->ok ? "lets" : "does not let");
	if (unitListing)
		return true;
	return unitExpect(mhlVerdictOk(r->v) == r->ok);
}

/* The names are the record's words, each verdict's own. */
static bool verdictNames(void)
{
	static const char *const want[MHL_VERDICT_LAST] = {
		[MHL_VERDICT_PASS] = "pass", [MHL_VERDICT_FAIL] = "fail", [MHL_VERDICT_ERROR] = "error",
		[MHL_VERDICT_SKIP] = "skip", [MHL_VERDICT_XFAIL] = "xfail", [MHL_VERDICT_XPASS] = "xpass",
		[MHL_VERDICT_INTERRUPTED] = "interrupted", [MHL_VERDICT_LOST] = "lost",
	};
	int i;

	for (i = 0; i < MHL_VERDICT_LAST; i++)
		if (g_strcmp0(mhlVerdictNames[i], want[i])) {
			unitDiag("verdict %d is named '%s', want '%s'", i, mhlVerdictNames[i], want[i]);
			return unitExpect(false);
		}
	return true;
}

/* A JSON string of nothing but a DEL or a control character is cleaned too (mhlJSONClean's fast path). */
static bool jsonCleanDel(void)
{
	g_autoptr(json_object) o = json_tokener_parse("{\"a\":\"\\u007f\",\"b\":\"x\\u007fy\",\"c\":\"\\u0001\"}");
	const char *got;

	mhlJSONClean(o, true);
	got = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (strcmp(got, "{\"a\":\"\",\"b\":\"xy\",\"c\":\"\"}"))
		unitDiag("got %s", got);
	return unitExpect(!strcmp(got, "{\"a\":\"\",\"b\":\"xy\",\"c\":\"\"}"));
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

static bool typedAccessors(void)
{
	g_autoptr(json_object) rec = json_tokener_parse(
		"{\"steps\":{},\"ok\":\"false\",\"yes\":true,\"list\":[1,2],\"obj\":[]}");

	return unitExpect(!mhlJArr(rec, "steps") && mhlJLen(rec, "steps") == 0 && mhlJObj(rec, "steps") &&
			  mhlJBool(rec, "ok", false) == false && mhlJBool(rec, "ok", true) == true &&
			  mhlJBool(rec, "yes", false) && mhlJLen(rec, "list") == 2 && !mhlJObj(rec, "obj") &&
			  mhlJIdx(mhlJ(rec, "list"), 1) && !mhlJIdx(mhlJ(rec, "list"), 2) &&
			  !mhlJIdx(mhlJ(rec, "steps"), 0));
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

/* Records of the right JSON but the wrong shape, between two good ones: named, the rest kept. */
static const char shapeLines[] =
	"{\"trial\":\"good\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"pin\",\"ok\":true}]}\n"
	"{\"trial\":\"x\",\"verdict\":\"pass\",\"steps\":{}}\n"
	"{\"trial\":\"y\",\"verdict\":\"pass\",\"summary\":{\"pinned_bytes\":\"256\"}}\n"
	"{\"trial\":\"z\",\"verdict\":\"fail\",\"steps\":[{\"step\":\"pin\",\"workload\":"
	"{\"census_after\":{\"by_node\":{\"1\":3}}}}]}\n"
	"{\"trial\":\"w\",\"verdict\":\"pass\",\"steps\":[{\"ok\":\"false\"}]}\n"
	"{\"trial\":\"v\",\"verdict\":\"pass\",\"parameters\":[],\"timeline\":7}\n"
	"{\"trial\":\"u\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"pin\",\"workload\":"
	"{\"census_after\":{\"by_node\":{\"1\":null}}}},null]}\n"
	/* the host side (issue 21): top-level host, timeline entries of source host, steps[].host */
	"{\"trial\":\"h1\",\"verdict\":\"pass\",\"host\":\"proc\"}\n"
	"{\"trial\":\"h2\",\"verdict\":\"pass\",\"host\":{\"source\":\"proc\",\"prealloc\":\"yes\"}}\n"
	"{\"trial\":\"h3\",\"verdict\":\"pass\",\"timeline\":[{\"t\":1,\"source\":\"host\",\"qemu_rss_bytes\":\"1\"}]}\n"
	"{\"trial\":\"h4\",\"verdict\":\"pass\",\"timeline\":[{\"t\":1,\"source\":\"qmp\"},"
	"{\"t\":2,\"source\":\"host\",\"backend_bytes\":[]}]}\n"
	"{\"trial\":\"h5\",\"verdict\":\"pass\",\"timeline\":[{\"source\":\"host\",\"backend_bytes\":{\"1\":\"5\"}}]}\n"
	"{\"trial\":\"h6\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"resize\",\"host\":5}]}\n"
	"{\"trial\":\"h7\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"resize\",\"host\":"
	"{\"before\":{\"backend_bytes\":{\"1\":true}}}}]}\n"
	"{\"trial\":\"h8\",\"verdict\":\"pass\",\"steps\":[{\"step\":\"pin\"},{\"step\":\"resize\",\"host\":"
	"{\"measured_by\":\"backend\",\"reclaimed_of_reclaimable\":\"100%\"}}]}\n"
	"{\"trial\":\"h9\",\"verdict\":\"pass\",\"summary\":{\"host_reclaimed_bytes\":\"260 MiB\"}}\n"
	/* and every host field of the right type: kept */
	"{\"trial\":\"good2\",\"verdict\":\"fail\",\"reason\":null,\"console_findings\":[],"
	"\"host\":{\"source\":\"libvirt\",\"why\":\"remote\",\"memory_backing\":\"hugepages\","
	"\"hugepage_bytes\":2097152,\"prealloc\":false,\"pool_added_pages\":8},"
	"\"timeline\":[{\"t\":1.5,\"source\":\"host\",\"qemu_rss_bytes\":1,\"qemu_hugetlb_bytes\":0,"
	"\"backend_bytes\":{\"1\":2,\"2\":0},\"pool_free_pages\":3}],"
	"\"steps\":[{\"step\":\"resize\",\"host\":{\"source\":\"proc\",\"measured_by\":\"backend\","
	"\"before\":{\"qemu_rss_bytes\":9,\"backend_bytes\":{\"1\":4}},\"after\":{\"backend_bytes\":{}},"
	"\"plugged_before_bytes\":8,\"settle_s\":0.5,\"pool_returned_pages\":0,\"unplugged_bytes\":8,"
	"\"reclaimed_bytes\":-1,\"reclaimable_bytes\":4,\"reclaimed_of_unplugged\":0,"
	"\"reclaimed_of_reclaimable\":0.5}}],"
	"\"summary\":{\"host_reclaimed_bytes\":4,\"host_reclaimed_of_reclaimable\":1,\"host_settle_s\":0.5}}\n";

static const struct shapeRow {
	int line;
	const char *why;
} shapes[] = {
	{ 2, "trial 'x': a record of the wrong shape: steps is an object, not an array" },
	{ 3, "trial 'y': a record of the wrong shape: summary.pinned_bytes is not a number" },
	{ 4, "trial 'z': a record of the wrong shape: steps[0].workload.census_after.by_node.1 is a number, not an object" },
	{ 5, "trial 'w': a record of the wrong shape: steps[0].ok is a string, not a boolean" },
	{ 6, "trial 'v': a record of the wrong shape: parameters is an array, not an object" },
	{ 7, "trial 'u': a record of the wrong shape: steps[0].workload.census_after.by_node.1 is null, not an object" },
	{ 8, "trial 'h1': a record of the wrong shape: host is a string, not an object" },
	{ 9, "trial 'h2': a record of the wrong shape: host.prealloc is a string, not a boolean" },
	{ 10, "trial 'h3': a record of the wrong shape: timeline[0].qemu_rss_bytes is a string, not a number" },
	{ 11, "trial 'h4': a record of the wrong shape: timeline[1].backend_bytes is an array, not an object" },
	{ 12, "trial 'h5': a record of the wrong shape: timeline[0].backend_bytes.1 is a string, not a number" },
	{ 13, "trial 'h6': a record of the wrong shape: steps[0].host is a number, not an object" },
	{ 14, "trial 'h7': a record of the wrong shape: steps[0].host.before.backend_bytes.1 is a boolean, not a number" },
	{ 15, "trial 'h8': a record of the wrong shape: steps[1].host.reclaimed_of_reclaimable is a string, not a number" },
	{ 16, "trial 'h9': a record of the wrong shape: summary.host_reclaimed_bytes is not a number" },
};

static mhlRun *shaped;

/* shapeLines loaded once, by whichever of its cases runs first. */
static void shapedLoad(void)
{
	g_autofree char *dir = NULL;

	if (shaped)
		return;
	dir = g_build_filename(unitTmpdir, "shapes", NULL);
	g_mkdir_with_parents(dir, 0755);
	g_free(unitWriteTmp("shapes/trials.jsonl", shapeLines));
	shaped = mhlRunLoad(dir);
}

static bool shapeJudge(const void *row, GString *desc)
{
	const struct shapeRow *r = row;
	size_t i = (size_t)(r - shapes);
	mhlRunBad *b;

	g_string_printf(desc, "record: mhlRunLoad names line %d: %s", r->line, r->why);
	if (unitListing)
		return true;
	shapedLoad();
	b = shaped && i < shaped->bad->len ? shaped->bad->pdata[i] : NULL;
	if (b && (b->line != r->line || strcmp(b->why, r->why)))
		unitDiag("line %d: %s", b->line, b->why);
	return unitExpect(b && b->line == r->line && !strcmp(b->why, r->why));
}

static bool shapeKeepsRest(void)
{
	shapedLoad();
	return unitExpect(shaped && shaped->trials->len == 2 && shaped->bad->len == G_N_ELEMENTS(shapes) &&
			  !strcmp(mhlJStr(shaped->trials->pdata[1], MHL_K_TRIAL, ""), "good2"));
}

/* A record from elsewhere with escapes and bytes that are not UTF-8: read as clean text. */
static bool loadCleansText(void)
{
	g_autofree char *dir = g_build_filename(unitTmpdir, "text", NULL);
	g_autoptr(mhlRun) run = NULL;
	const char *reason;

	g_mkdir_with_parents(dir, 0755);
	g_free(unitWriteTmp("text/trials.jsonl", "{\"trial\":\"t\",\"verdict\":\"fail\","
			    "\"reason\":\"\\u001b[31mred\\u001b[0m \xff\\u0000!\\nnext\"}\n"));
	run = mhlRunLoad(dir);
	reason = run && run->trials->len ? mhlJStr(run->trials->pdata[0], MHL_K_REASON, "") : "";
	if (strcmp(reason, "red \xef\xbf\xbd!\nnext"))
		unitDiag("reason '%s'", reason);
	return unitExpect(!strcmp(reason, "red \xef\xbf\xbd!\nnext"));
}

static void recordTeardownAll(void)
{
	g_clear_pointer(&loaded, mhlRunFree);
	g_clear_pointer(&shaped, mhlRunFree);
}

static const unitCase appendCases[] = {
	{ "record: two appends", twoAppends },
	{ "record: one complete line each, newline-terminated", completeLines },
	{ "record: unwritable path is named", unwritableNamed },
	{ "record: a short write (file size limit) is taken back: the file is as it was, the next record whole",
	  appendShortWrite },
	{ "record: after a torn last line the record starts a line of its own", appendAfterTorn },
	{ "record: started.jsonl a symbolic link to another file: refused, naming it; that file untouched (issue 48)",
	  appendSymlink },
	{ "record: started.jsonl a hard link to another file: refused, naming it; that file untouched", appendHardlink },
	{ "record: started.jsonl a FIFO: refused as not a regular file, no wait for a reader", appendFifo },
	{ "soak: --resume drops a torn last checkpoint (no newline, not JSON) and truncates it away",
	  checkpointTorn },
	{ "soak: a torn checkpoint before others is refused, naming its line", checkpointTornMiddle },
	{ "soak: a checkpoint whose findings is no array is refused, naming its line", checkpointFindingsString },
};

static const unitCase textCases[] = {
	{ "text: mhlJSONClean cleans every string and key of a JSON value", jsonClean },
	{ "text: mhlJSONClean cleans a string of a DEL or a control character alone", jsonCleanDel },
	{ "record: mhlJArr, mhlJObj, mhlJLen, mhlJBool, mhlJIdx give the default for another type", typedAccessors },
};

static const unitCase shapeCases[] = {
	{ "record: mhlRunLoad keeps the 2 records of the right shape (one with every host field)", shapeKeepsRest },
	{ "record: mhlRunLoad makes a record's text from elsewhere valid UTF-8 without control characters",
	  loadCleansText },
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

static const unitCase verdictCases[] = {
	{ "record: each verdict's name is its own (pass fail error skip xfail xpass interrupted lost)",
	  verdictNames },
};

static const unitTable tables[] = {
	UNIT_CASES(appendCases),
	UNIT_TABLE(texts, textJudge),
	UNIT_TABLE(cuts, cutJudge),
	UNIT_CASES(textCases),
	UNIT_CASES(summaryCases),
	UNIT_TABLE(verdicts, verdictJudge),
	UNIT_TABLE(verdictOks, verdictOkJudge),
	UNIT_CASES(verdictCases),
	UNIT_CASES(readCases),
	UNIT_TABLE(shapes, shapeJudge),
	UNIT_CASES(shapeCases),
};

const unitModule unitRecord = UNIT_MODULE("record", recordSetup, recordTeardownAll, tables);
