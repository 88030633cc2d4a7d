/*
 * cmd-check.c - `memhp-lab check SCENARIO...`: validate scenarios without
 * booting; with --resolve, also fetch and unpack their kernel packages to
 * list what those cannot run.
 */
#include <glib.h>

#include "cli/cli.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cli/run.h"
#include "host/kernel.h"
#include "record/record.h"
#include "scenario/scenario.h"
#include "util.h"

const mhlOpt mhlCmdCheckOpts[] = {
	{ "json", 0, MHL_LONG_ONLY + 'J', NULL, "one JSON object on stdout: each file, its trials (docs/schemas/check.schema.json)" },
	{ "resolve", 0, MHL_LONG_ONLY + 'R', NULL, "also fetch and unpack each kernel: {package}, {deb} and {modules} (kernel/package.sh: apt, dpkg-deb, cached in $MEMHP_CACHE) to list the steps it cannot run; without it check reads no package or modules tree and says that the skips are not listed" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

/* One trial of a matrix as `check --json` lists it: what `run` would boot. */
static json_object *checkTrialJson(const mhlScenario *s)
{
	json_object *t = json_object_new_object(), *params = json_object_new_object();
	const char *fl = mhlScenarioKernelFlavour(s);
	int i;

	json_object_object_add(t, "id", json_object_new_string(s->name));
	json_object_object_add(t, "kernel", json_object_new_string(s->kernel));
	if (*fl)	/* the lab kernel's build it boots (docs/kernel.md, "Flavours") */
		json_object_object_add(t, "kernel_flavour", json_object_new_string(fl));
	json_object_object_add(t, MHL_K_PIN_POLICY, json_object_new_string(s->pin_policy));
	for (i = 0; i < s->nparams; i++)
		json_object_object_add(params, s->param_key[i], json_object_new_string(s->param_val[i]));
	json_object_object_add(t, MHL_K_PARAMETERS, params);
	json_object_object_add(t, "nodes", json_object_new_int(s->nnodes));
	json_object_object_add(t, "steps", json_object_new_int(s->nsteps));
	return t;
}

/*
 * Why the skips of trial @s are not listed without --resolve: its kernel is
 * a package, a .deb or a modules tree, which only kernel/package.sh reads
 * (apt, dpkg-deb: untrusted bytes, docs/security.md); NULL when its config
 * is read as it is (the lab's kernels, a prebuilt one without modules).
 */
static char *checkUnresolved(const mhlScenario *s)
{
	if (!strcmp(s->kernel, "package"))
		return g_strdup_printf("kernel {%s: %s} is fetched and unpacked only with --resolve",
				       s->kernel_deb ? "deb" : "package", s->kernel_deb ? s->kernel_deb : s->kernel_package);
	if (!strcmp(s->kernel, "prebuilt") && s->kernel_modules)
		return g_strdup_printf("kernel {modules: %s} is read only with --resolve", s->kernel_modules);
	return NULL;
}

/*
 * What a kernel that is not the lab's (a Debian package, a prebuilt one)
 * cannot run of trial @s: a line per skipped step into @text, or with @t
 * (--json) its "skips" array. The lab's own kernels have every capability.
 * With @resolve, a package is fetched (cached) to read its config and a
 * modules tree read; without it, a line (or "skips_not_listed") says they
 * were not. Nothing boots. 0, or -1 with *@why: "FILE: trial 'ID': why".
 */
static int checkSkips(const mhlScenario *s, const mhlCliPaths *paths, json_object *t, GString *text,
		      bool resolve, char **why)
{
	g_autoptr(GPtrArray) skips = NULL;
	g_autoptr(json_object) id = NULL;
	g_autofree char *image = NULL, *unresolved = resolve ? NULL : checkUnresolved(s);
	json_object *arr = NULL;
	guint i;

	if (strcmp(s->kernel, "package") && strcmp(s->kernel, "prebuilt"))
		return 0;
	if (unresolved) {
		if (t)
			json_object_object_add(t, "skips_not_listed", json_object_new_string(unresolved));
		else
			g_string_append_printf(text, "    skips not listed: %s\n", unresolved);
		return 0;
	}
	if (!(image = mhlKernelResolve(s, paths->cache, NULL, paths->datadir, &id, &skips))) {
		*why = g_strdup_printf("%s: trial '%s': %s", s->path, s->name, mhlErrorLast());
		mhlErrorReset();
		return -1;
	}
	if (t)
		json_object_object_add(t, "skips", arr = json_object_new_array());
	for (i = 0; skips && i < skips->len; i++) {
		const char *w = skips->pdata[i], *sep = w ? strstr(w, ": ") : NULL;
		json_object *o;

		if (!w)
			continue;
		if (!arr) {
			g_string_append_printf(text, "    SKIP on %s: step %u (line %d, %s): %s\n",
					       !strcmp(s->kernel, "package") ? mhlJStr(id, "source_package", s->kernel_package) :
					       s->kernel_image, i + 1, s->steps[i].line, mhlStepTypeNames[s->steps[i].type], w);
			continue;
		}
		json_object_array_add(arr, o = json_object_new_object());
		json_object_object_add(o, "index", json_object_new_int((int)i + 1));
		json_object_object_add(o, MHL_K_LINE, json_object_new_int(s->steps[i].line));
		json_object_object_add(o, MHL_K_STEP, json_object_new_string(mhlStepTypeNames[s->steps[i].type]));
		/* "CODE: reason" (mhlKernelResolve) */
		json_object_object_add(o, MHL_K_SKIP_CODE, sep ? json_object_new_string_len(w, (int)(sep - w)) : NULL);
		json_object_object_add(o, MHL_K_SKIPPED, json_object_new_string(sep ? sep + 2 : w));
	}
	return 0;
}

/*
 * A trial whose guest does not fit in this host's @avail bytes (MemAvailable;
 * 0: unknown): why, as run's refusal says it; NULL when it fits. A warning,
 * not an error: run on this host refuses it before anything boots, but a
 * fleet host, or this one with more memory free, may take it.
 */
static char *checkFit(const mhlScenario *s, uint64_t avail)
{
	g_autofree char *items = NULL;
	mhlGuestFit f;

	mhlScenarioGuestFit(s, false, &f);
	if (!avail || f.total <= avail)
		return NULL;
	items = mhlGuestFitText(&f);
	return g_strdup_printf("a guest that can make %" G_GUINT64_FORMAT " MiB resident (%s) does not fit in the %" G_GUINT64_FORMAT " MiB available on this host (MemAvailable in /proc/meminfo): run here refuses it before anything boots",
			       f.total >> 20, items, avail >> 20);
}

/* The errors check prints of one file; --json lists every one. */
#define MHL_CHECK_MAX_ERRORS 20

/*
 * A file (@shown) refused for @errors (at least one, in file order): on
 * stderr an "error: " line each, up to MHL_CHECK_MAX_ERRORS and then how
 * many more, and with more than one a line that counts them; with @f
 * (--json) "ok": false, "error" (the first) and "errors" (all). Each error
 * names the file as given: made one line of valid UTF-8 without control
 * characters (mhlTextClean), like every file name check prints, so a name
 * holding an escape sequence never reaches the terminal.
 */
static int checkRefusedAll(json_object *f, const char *shown, GPtrArray *errors)
{
	json_object *arr = f ? json_object_new_array() : NULL;
	guint i;

	if (f)
		json_object_object_add(f, "ok", json_object_new_boolean(false));
	for (i = 0; i < errors->len; i++) {
		g_autofree char *clean = mhlTextClean(errors->pdata[i], -1, 0, false);

		if (i < MHL_CHECK_MAX_ERRORS)
			fprintf(stderr, "error: %s\n", clean);
		if (f && !i)
			json_object_object_add(f, "error", json_object_new_string(clean));
		if (arr)
			json_object_array_add(arr, json_object_new_string(clean));
	}
	if (errors->len > MHL_CHECK_MAX_ERRORS)
		fprintf(stderr, "error: %s: and %u more error(s) (check --json lists every one)\n", shown,
			errors->len - MHL_CHECK_MAX_ERRORS);
	if (errors->len > 1)
		fprintf(stderr, "check: %s: %u errors\n", shown, errors->len);
	if (f)
		json_object_object_add(f, "errors", arr);
	return -1;
}

/* A file refused for one reason @why (its kernel, its console logs): checkRefusedAll of it. */
static int checkRefused(json_object *f, const char *shown, const char *why)
{
	g_autoptr(GPtrArray) errors = g_ptr_array_new();

	g_ptr_array_add(errors, (char *)why);
	return checkRefusedAll(f, shown, errors);
}

/*
 * No trial of @all (one file's) shares a console log with another of @before
 * (the trials of the files named before it), as `run` of them all would
 * refuse (issue 30, finding 9). -1 + mhlError naming both trials and files;
 * within one file mhlScenarioLoadAll has already refused it.
 */
static int checkLogsUnique(GPtrArray *before, GPtrArray *all)
{
	g_autoptr(GPtrArray) trials = g_ptr_array_sized_new(before->len + all->len);
	guint i;

	for (i = 0; i < before->len; i++)
		g_ptr_array_add(trials, before->pdata[i]);
	for (i = 0; i < all->len; i++)
		g_ptr_array_add(trials, all->pdata[i]);
	return mhlTrialLogNamesUnique(trials);
}

/*
 * One file: its line and the trials of its matrix; with @files (--json) an
 * object for it there instead. Nothing is printed for it before every trial
 * has been checked (its kernel resolved, its console logs apart from those
 * of the files before it, @before): a file with any error is refused, never
 * "ok" as well; a trial whose guest does not fit this host is a warning
 * on stderr after it (checkFit). Its trials join @before once their logs
 * are found apart.
 * 0, or -1 with the error printed.
 */
static int checkOne(const char *path, const mhlCliPaths *paths, json_object *files, bool resolve,
		    GPtrArray *before)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) text = g_string_new(NULL), warn = g_string_new(NULL);
	g_autoptr(json_object) trials = files ? json_object_new_array() : NULL;
	g_autofree char *shown = mhlTextClean(path, -1, 0, false), *why = NULL;
	json_object *f = files ? json_object_new_object() : NULL;
	mhlScenario *s;
	const char *fl;
	uint64_t avail = mhlMemAvailable();
	guint i;
	int n;

	if (f) {
		json_object_object_add(f, "path", json_object_new_string(shown));
		json_object_array_add(files, f);
	}
	if ((n = mhlScenarioLoadAllErrors(path, all, errors)) < 0) {
		mhlErrorReset();
		return checkRefusedAll(f, shown, errors);
	}
	if (checkLogsUnique(before, all) < 0) {
		why = g_strdup(mhlErrorLast());
		mhlErrorReset();
		return checkRefused(f, shown, why);
	}
	/* the next files' logs are checked against these, whatever this file's verdict: @before owns them */
	for (i = 0; i < all->len; i++)
		g_ptr_array_add(before, all->pdata[i]);
	g_ptr_array_set_free_func(all, NULL);
	s = all->pdata[0];
	fl = mhlScenarioKernelFlavour(s);
	g_string_append_printf(text, "%s: ok: scenario '%s', kernel %s%s%s, %d node(s), %d step(s)", shown,
			       s->scenario_name, s->kernel, *s->kernel_flavour ? " debug: " : *fl ? " flavour " : "",
			       fl, s->nnodes, s->nsteps);
	if (n > 1 || s->nparams)
		g_string_append_printf(text, ", %d trial(s) from its matrix", n);
	g_string_append_c(text, '\n');
	for (i = 0; i < all->len; i++) {
		const mhlScenario *t = all->pdata[i];
		const mhlDeviation *d = mhlScenarioDeviation(t, NULL);
		g_autofree char *fit = checkFit(t, avail);
		json_object *tj = NULL;

		if (trials)
			json_object_array_add(trials, tj = checkTrialJson(t));
		if (fit) {
			g_string_append_printf(warn, "warning: %s: trial '%s': %s\n", shown, t->name, fit);
			if (tj)
				json_object_object_add(tj, "warning", json_object_new_string(fit));
		}
		if ((n > 1 || s->nparams) && !trials)
			g_string_append_printf(text, "  %s\n", t->name);
		if (d && !trials)
			g_string_append_printf(text, "    XFAIL expected (line %d)%s%s%s: %s\n", d->line,
					       d->match ? ", a failure matching /" : "", d->match ? d->match : "",
					       d->match ? "/" : "", d->reason);
		if (checkSkips(t, paths, tj, text, resolve, &why) < 0)
			return checkRefused(f, shown, why);
	}
	if (f) {
		json_object_object_add(f, "ok", json_object_new_boolean(true));
		json_object_object_add(f, MHL_K_SCENARIO_NAME, json_object_new_string(s->scenario_name));
		json_object_object_add(f, "trials", g_steal_pointer(&trials));
	} else {
		fputs(text->str, stdout);
	}
	fflush(stdout);
	fputs(warn->str, stderr);
	return 0;
}

int mhlCmdCheck(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	g_autoptr(GPtrArray) trials = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
	g_autoptr(json_object) out = NULL;
	json_object *files = NULL;
	int first, i, bad = 0, rc = mhlCmdStart("check", argc, argv, vals, &first);

	if (rc >= 0)
		return rc;
	if (g_hash_table_contains(vals, "json")) {
		out = json_object_new_object();
		files = json_object_new_array();
	}
	/* every file, each with its own verdict (check scenarios/NAME.yaml ...) */
	for (i = first; i < argc; i++)
		bad += checkOne(argv[i], paths, files, g_hash_table_contains(vals, "resolve"), trials) < 0;
	if (out) {
		size_t k, ntrials = 0;

		for (k = 0; k < json_object_array_length(files); k++) {
			json_object *t = json_object_object_get(json_object_array_get_idx(files, k), "trials");

			ntrials += t ? json_object_array_length(t) : 0;
		}
		json_object_object_add(out, "files", files);
		json_object_object_add(out, "refused", json_object_new_int(bad));
		json_object_object_add(out, "trials", json_object_new_int((int)ntrials));
		printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	if (bad && argc - first > 1)
		fprintf(stderr, "check: %d of %d scenario file(s) refused\n", bad, argc - first);
	return bad ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}
