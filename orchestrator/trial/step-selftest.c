/*
 * step-selftest.c - the selftest step: run one of the series' kselftests
 * that the guest image carries in /bin/ksft/ (built statically from the
 * kernel artifact's copy of the tree, Makefile), by name, and parse its KTAP
 * output into the step's result. A scenario names a row of the table below
 * and nothing else: the command and its arguments are fixed here.
 */
#include <glib.h>

#include "trial/steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/agent.h"
#include "util.h"

#define KSFT_SKIP 4	/* kselftest.h: the test did not run */
#define KTAP_RESULTS_MAX 4096	/* results kept in the record per run */

/* Add @s to @o under @key as guest text (mhlTextClean): at most @max bytes, lines kept. */
static void addText(json_object *o, const char *key, const char *s, gsize max)
{
	g_autofree char *c = mhlTextClean(s ? s : "", -1, max, true);

	json_object_object_add(o, key, json_object_new_string(c));
}

static const struct {
	const char *name;		/* as in mhlSelftestNames */
	const char *const argv[5];
} selftests[] = {
	/* The counters around a long-term pin from ZONE_MOVABLE; the switch says what to expect. */
	{ "gup_longterm_counters", { "/bin/ksft/gup_longterm_counters", NULL } },
	/* The same through pin_user_pages_fast() (GUP-fast first). */
	{ "gup_longterm_counters_fast", { "/bin/ksft/gup_longterm_counters", "-f", NULL } },
	/* Expects the series' behaviour whatever the switch says: under baseline it must fail. */
	{ "gup_longterm_counters_expect_series",
	  { "/bin/ksft/gup_longterm_counters", "-e", "series", NULL } },
};

/*
 * KTAP (the subset kselftest.h prints): "1..N" (optionally "# SKIP ..."),
 * "ok N DESC", "not ok N DESC", each optionally "# SKIP REASON"; "# ..."
 * lines are diagnostics, "Bail out!" ends the test.
 */
json_object *mhlKtapParse(const char *out, int *planned, int *npass, int *nfail, int *nskip,
			  bool *bailed)
{
	g_auto(GStrv) lines = g_strsplit(out ? out : "", "\n", -1);
	json_object *results = json_object_new_array();
	char **l;

	*planned = -1;
	*npass = *nfail = *nskip = 0;
	*bailed = false;
	for (l = lines; *l; l++) {
		const char *line = *l, *desc, *dir;
		json_object *r;
		bool ok, skip;
		char *end;
		long n;
		int a, b;

		if (sscanf(line, "%d..%d", &a, &b) == 2 && a == 1 && b >= 0) {
			*planned = b;
			continue;
		}
		if (g_str_has_prefix(line, "Bail out!")) {
			*bailed = true;
			continue;
		}
		ok = g_str_has_prefix(line, "ok ");
		if (!ok && !g_str_has_prefix(line, "not ok "))
			continue;
		n = strtol(line + (ok ? 3 : 7), &end, 10);
		if (end == line + (ok ? 3 : 7) || n < 1)
			continue;
		desc = end + strspn(end, " ");
		dir = strstr(desc, "# SKIP");
		skip = dir != NULL;
		if (skip)
			(*nskip)++;
		else if (ok)
			(*npass)++;
		else
			(*nfail)++;
		/* counted all, kept the first KTAP_RESULTS_MAX: the guest decides how many it prints */
		if (json_object_array_length(results) >= KTAP_RESULTS_MAX)
			continue;
		r = json_object_new_object();
		json_object_object_add(r, MHL_K_N, json_object_new_int((int)n));
		json_object_object_add(r, MHL_K_OK, json_object_new_boolean(ok));
		json_object_object_add(r, MHL_K_SKIP, json_object_new_boolean(skip));
		json_object_object_add(r, MHL_K_DESCRIPTION,
				       json_object_new_string_len(desc, (int)((skip ? dir : desc + strlen(desc)) - desc)));
		if (skip && dir[6])
			json_object_object_add(r, MHL_K_SKIP_REASON, json_object_new_string(dir + 6 + strspn(dir + 6, " ")));
		json_object_array_add(results, r);
	}
	return results;
}

const char *mhlKtapVerdict(int exitcode, int planned, int npass, int nfail, int nskip, bool bailed)
{
	/* a FAIL anywhere, or a bail-out, is a failure: no exit status hides it */
	if (nfail || bailed)
		return "fail";
	/* Skipped as a whole: "1..0 # SKIP" (or only skips) and exit 4. */
	if (exitcode == KSFT_SKIP && !npass)
		return "skip";
	if (exitcode == 0 && planned >= 0 && npass + nskip == planned)
		return "pass";
	return "fail";
}

int mhlStepSelftest(mhlTrial *t, const mhlStep *st, json_object *res)
{
	json_object *ks = json_object_new_object(), *results;
	const char *const *argv = NULL;
	int planned, npass, nfail, nskip;
	mhlExecStatus es = { 0 };
	const char *verdict;
	g_autofree char *cmd = NULL;
	bool bailed;
	size_t i;
	int rc;

	for (i = 0; i < G_N_ELEMENTS(selftests); i++)
		if (!strcmp(st->name, selftests[i].name))
			argv = selftests[i].argv;
	json_object_object_add(res, MHL_K_SELFTEST, ks);
	json_object_object_add(ks, MHL_K_NAME, json_object_new_string(st->name));
	if (!argv) {
		mhlError("%s:%d: selftest '%s' is not one the guest image carries", t->s->path, st->line,
			 st->name);
		return -1;
	}
	cmd = g_strjoinv(" ", (char **)argv);
	json_object_object_add(ks, MHL_K_COMMAND, json_object_new_string(cmd));
	if (mhlAgentExec(t->g->dom, argv, 600, &es) < 0)
		return -1;
	if (!es.exited) {
		mhlError("selftest %s: killed by signal %d", st->name, es.signal);
		mhlExecStatusClear(&es);
		return -1;
	}
	results = mhlKtapParse(es.out, &planned, &npass, &nfail, &nskip, &bailed);
	mhlJSONClean(results, false);	/* the descriptions are guest text */
	json_object_object_add(ks, MHL_K_RESULTS, results);
	json_object_object_add(ks, MHL_K_EXITCODE, json_object_new_int(es.exitcode));
	json_object_object_add(ks, MHL_K_PLANNED, json_object_new_int(planned));
	json_object_object_add(ks, MHL_K_PASS, json_object_new_int(npass));
	json_object_object_add(ks, MHL_K_FAIL, json_object_new_int(nfail));
	json_object_object_add(ks, MHL_K_SKIP, json_object_new_int(nskip));
	json_object_object_add(ks, MHL_K_BAILED_OUT, json_object_new_boolean(bailed));
	addText(ks, MHL_K_OUTPUT, es.out, 8000);
	if (es.err && *es.err)
		addText(ks, MHL_K_STDERR, es.err, 2000);
	verdict = mhlKtapVerdict(es.exitcode, planned, npass, nfail, nskip, bailed);
	json_object_object_add(ks, MHL_K_VERDICT, json_object_new_string(verdict));
	rc = 0;
	if (strcmp(verdict, "pass") && !st->measure) {
		g_autofree char *why = NULL;

		if (!strcmp(verdict, "skip"))
			why = mhlTextClean(es.out ? es.out : "", -1, 200, false);
		else
			why = g_strdup_printf("%d of %d result(s) failed%s, exit %d", nfail,
					      planned, bailed ? ", bailed out" : "", es.exitcode);
		mhlError("selftest %s %s: %s", st->name, !strcmp(verdict, "skip") ? "skipped" : "failed",
			 why);
		rc = -1;
	}
	mhlExecStatusClear(&es);
	return rc;
}
