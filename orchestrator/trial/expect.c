/*
 * expect.c - the expect step: assertions on the steps so far, one row of
 * checks[] per assertion. Each key an expect step can carry is one row of
 * the table below: whether the step asks for it, and the check. Skipped (and
 * said so) under another pin_policy or kernel.
 */
#include <glib.h>

#include "trial/steps.h"

#include <string.h>

#include "guest/guest.h"
#include "util.h"
#include "mhl-size.h"

/* The result of the most recent step of kind @type, or NULL. */
static json_object *lastResult(mhlTrial *t, const char *type)
{
	size_t i = json_object_array_length(t->steps);

	while (i-- > 0) {
		json_object *r = json_object_array_get_idx(t->steps, i);

		if (!strcmp(mhlJStr(r, MHL_K_STEP, ""), type))
			return r;
	}
	return NULL;
}

/* Record one check of an expect step; returns 0 if it holds. */
static int expectCheck(json_object *checks, const mhlStep *st, const char *what,
		       const char *expected, const char *actual, bool ok)
{
	json_object *c = json_object_new_object();

	json_object_object_add(c, MHL_K_WHAT, json_object_new_string(what));
	json_object_object_add(c, MHL_K_EXPECTED, json_object_new_string(expected));
	json_object_object_add(c, MHL_K_ACTUAL, json_object_new_string(actual));
	json_object_object_add(c, MHL_K_OK, json_object_new_boolean(ok));
	json_object_array_add(checks, c);
	if (ok)
		return 0;
	mhlError("expect at line %d: %s: expected %s, got %s", st->line, what, expected, actual);
	return -1;
}

/* @bytes as "260MiB" into @buf. */
static const char *sz(gint64 bytes, char *buf, unsigned int len)
{
	return mhl_size_format((uint64_t)MAX(bytes, 0), buf, len);
}

mhlResizeOutcome mhlResizeJudge(json_object *r, char **how)
{
	char s[32], e[32], q[32], p[32], d[32];
	gint64 req = mhlJInt(r, MHL_K_REQUESTED_BYTES, -1), end = mhlJInt(r, MHL_K_REACHED_BYTES, -1);
	gint64 start = mhlJInt(r, MHL_K_PLUGGED_BEFORE_BYTES, -1);
	gint64 pinned = mhlJInt(r, MHL_K_PINNED_IN_DEVICE_BYTES, -1);
	const char *note = mhlJStr(r, MHL_K_NOTE, "");
	g_autofree char *why = NULL;

	if (!r || req < 0 || end < 0) {
		*how = g_strdup("no resize on record");
		return MHL_RESIZE_NEITHER;
	}
	if (start < 0)	/* a record of before 2026-12-07: its host side has it */
		start = mhlJInt(r, MHL_PATH(MHL_K_HOST, MHL_K_PLUGGED_BEFORE_BYTES), -1);
	sz(end, e, sizeof(e));
	sz(req, q, sizeof(q));
	if (mhlJBool(r, MHL_K_CONVERGED, false)) {
		*how = g_strdup_printf("reached (%s of %s requested)", e, q);
		return MHL_RESIZE_REACHED;
	}
	if (start < 0) {
		*how = g_strdup_printf("not converged at %s of %s requested, from a plugged size not on record", e, q);
		return MHL_RESIZE_NEITHER;
	}
	sz(start, s, sizeof(s));
	if (end >= start) {
		*how = end > start ?
		       g_strdup_printf("no unplug: the plugged size grew from %s to %s (%s requested)", s, e, q) :
		       g_strdup_printf("no unplug: the plugged size stayed at %s (%s requested)", s, q);
		return MHL_RESIZE_NEITHER;
	}
	if (end <= req) {
		*how = g_strdup_printf("not converged, yet the plugged size went from %s to %s, %s requested", s, e, q);
		return MHL_RESIZE_NEITHER;
	}
	if (pinned >= 0 && end < pinned) {
		*how = g_strdup_printf("from %s to %s of %s requested: below the %s pinned in the device", s, e, q,
				       sz(pinned, p, sizeof(p)));
		return MHL_RESIZE_NEITHER;
	}
	why = pinned >= 0 ? g_strdup_printf("%s pinned in the device", sz(pinned, p, sizeof(p))) :
			    g_strdup("what is pinned in the device not known");
	*how = g_strdup_printf("short: from %s to %s of %s requested (%s unplugged), stopped at the %.0f s deadline with %s%s%s",
			       s, e, q, sz(start - end, d, sizeof(d)), mhlJDbl(r, MHL_K_DEADLINE_S, 0), why,
			       *note ? ": " : "", note);
	return MHL_RESIZE_SHORT;
}

/*
 * unplug: reached | short, of the last resize. short: it got somewhere and
 * stopped for a reason (mhlResizeJudge): a resize that unplugged nothing is
 * neither.
 */
static int checkUnplug(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	g_autofree char *actual = NULL;
	mhlResizeOutcome o = mhlResizeJudge(lastResult(t, "resize"), &actual);
	bool want_reached = st->unplug == MHL_UNPLUG_REACHED;

	return expectCheck(checks, st, "unplug", want_reached ? "reached" :
			   "short (unplugged some, stopped above the request, at or above what is pinned in the device)",
			   actual, o == (want_reached ? MHL_RESIZE_REACHED : MHL_RESIZE_SHORT));
}

/*
 * hugepages: reached | short, of the last hugepages step's pool. The pool's
 * write is one call the kernel answers at once (it allocates, compacting and
 * migrating, or not), so a pool left where it was is an answer too (no 1 GiB
 * page from ZONE_MOVABLE): short is a pool read back after the write (no
 * refusal, allocated_pages on record) that ended short of count, on the way
 * from where it was: at or past pool_before_pages, before count.
 */
static int checkHugepages(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	json_object *r = lastResult(t, "hugepages"), *e = mhlJObj(r, MHL_K_ELASTIC);
	gint64 want = mhlJInt(e, MHL_K_REQUESTED_PAGES, -1), got = mhlJInt(e, MHL_K_ALLOCATED_PAGES, -1);
	gint64 was = mhlJInt(e, MHL_K_POOL_BEFORE_PAGES, -1);
	bool reached = mhlJBool(e, MHL_K_OK, false) && got >= 0 && got == want;
	bool shrink = was > want, short_ = false;
	g_autofree char *actual = NULL;

	if (!e || want < 0 || got < 0 || was < 0 || mhlJ(e, MHL_K_REFUSED))
		actual = g_strdup_printf("no pool read back (%s)", !e ? "no hugepages step on record" :
					 mhlJStr(e, MHL_K_REFUSED, "the step ended before it"));
	else if (reached)
		actual = g_strdup_printf("reached (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " pages)", got, want);
	else if (shrink ? got > was || got < want : got < was || got > want)
		actual = g_strdup_printf("%" G_GINT64_FORMAT " pages, not between the %" G_GINT64_FORMAT
					 " before and the %" G_GINT64_FORMAT " asked", got, was, want);
	else {
		short_ = true;
		actual = g_strdup_printf("short (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " pages, %"
					 G_GINT64_FORMAT " before: the kernel %s no more in %.1f s)", got, want, was,
					 shrink ? "freed" : "allocated", mhlJDbl(e, MHL_K_SECONDS, 0));
	}
	return expectCheck(checks, st, "hugepages", st->hugepages == MHL_UNPLUG_REACHED ? "reached" : "short",
			   actual, st->hugepages == MHL_UNPLUG_REACHED ? reached : short_);
}

/* movable_after_pin: N or all of the last pin's pages still in ZONE_MOVABLE. */
static int checkMovableAfterPin(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	json_object *r = lastResult(t, "pin");
	json_object *pages = mhlJ(r, MHL_PATH3(MHL_K_WORKLOAD, MHL_PIN_K_CENSUS_AFTER, MHL_PIN_K_PAGES));
	json_object *mov = NULL, *bz = mhlJ(r, MHL_PATH3(MHL_K_WORKLOAD, MHL_PIN_K_CENSUS_AFTER, MHL_PIN_K_BY_ZONE));
	long long want = st->movable_after_pin, have = -1;
	g_autofree char *expected = NULL, *actual = NULL;

	/* a count is an integer: null or "0" is no count (json-c reads both as 0) */
	if (pages && !json_object_is_type(pages, json_type_int))
		pages = NULL;
	if (bz && json_object_object_get_ex(bz, MHL_PIN_ZONE_MOVABLE, &mov) && !json_object_is_type(mov, json_type_int))
		have = -2;
	else if (mov)
		have = json_object_get_int64(mov);
	else if (pages)
		have = 0;	/* no page in ZONE_MOVABLE: the zone is absent */
	if (want == MHL_ALL) {
		want = pages ? json_object_get_int64(pages) : -1;
		expected = g_strdup_printf("all (%lld) pinned pages", want);
	} else {
		expected = g_strdup_printf("%lld pinned page(s)", want);
	}
	actual = have == -2 ? g_strdup("census_after.by_zone.Movable in the pin's output is not a number") :
		 have < 0 ? g_strdup("no census in the pin's output") : g_strdup_printf("%lld", have);
	return expectCheck(checks, st, "pinned pages in ZONE_MOVABLE after the pin",
			   expected, actual, have >= 0 && have == want);
}

/* census_before / census_after: the last pin's page counts by zone or kind. */
static int checkCensus(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	json_object *r = lastResult(t, "pin");
	int i, rc = 0;

	for (i = 0; i < st->ncensus; i++) {
		const char *key = st->census_key[i];
		const char *which = st->census_after[i] ? MHL_PIN_K_CENSUS_AFTER : MHL_PIN_K_CENSUS_BEFORE;
		g_autofree char *cpath = g_strdup_printf(MHL_K_WORKLOAD ".%s", which);
		g_autofree char *ppath = g_strdup_printf(MHL_K_WORKLOAD ".%s." MHL_PIN_K_PAGES, which);
		json_object *c = mhlJObj(r, cpath), *pages = mhlJ(r, ppath);
		long long want = st->census_val[i], have = c ? mhlCensusPages(c, key) : -1;
		g_autofree char *what = g_strdup_printf("%s %s (pages)", which, key);
		g_autofree char *expected = NULL, *actual = NULL;

		if (want == MHL_ALL) {
			want = pages && json_object_is_type(pages, json_type_int) ? json_object_get_int64(pages) : -1;
			expected = g_strdup_printf("all (%lld)", want);
		} else {
			expected = g_strdup_printf("%s%lld", st->census_atleast[i] ? ">=" : "", want);
		}
		actual = c ? g_strdup_printf("%lld", have) : g_strdup("no census in the pin's output");
		rc |= expectCheck(checks, st, what, expected, actual, c && want >= 0 &&
				  (st->census_atleast[i] ? have >= want : have == want));
	}
	return rc;
}

/* pins_failed: how many pin steps so far failed. */
static int checkPinsFailed(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	size_t i, n = 0;
	g_autofree char *want = g_strdup_printf("%d", st->pins_failed), *have = NULL;

	for (i = 0; i < json_object_array_length(t->steps); i++) {
		json_object *r = json_object_array_get_idx(t->steps, i);

		if (!strcmp(mhlJStr(r, MHL_K_STEP, ""), "pin") && !mhlJBool(r, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_OK), false))
			n++;
	}
	have = g_strdup_printf("%zu", n);
	return expectCheck(checks, st, "pin steps whose pin failed", want, have, (int)n == st->pins_failed);
}

/* integrity: every check, io and release so far found the pattern intact. */
static int checkIntegrity(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	size_t i, n = 0, bad = 0;
	g_autofree char *have = NULL;

	for (i = 0; i < json_object_array_length(t->steps); i++) {
		json_object *r = json_object_array_get_idx(t->steps, i);
		const char *type = mhlJStr(r, MHL_K_STEP, "");

		if (strcmp(type, "check") && strcmp(type, "io") && strcmp(type, "release"))
			continue;
		n++;
		if (!mhlJBool(r, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_PATTERN_OK), false))	/* absent, false or not a boolean */
			bad++;
	}
	have = g_strdup_printf("%zu of %zu check/io/release steps found it intact", n - bad, n);
	return expectCheck(checks, st, "data integrity", "intact in every one", have, n > 0 && !bad);
}

/* console_clean: no kernel report on the console so far. */
static int checkConsoleClean(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	g_autofree char *have = NULL;
	mhlConsoleScanner sc;
	int rc;

	/* by length, as the watcher does: a NUL on the console hides nothing after it */
	mhlConsoleScannerInit(&sc, 1);
	mhlConsoleScanFile(&sc, t->g->console, true);
	have = sc.count ? g_strdup_printf("%" G_GINT64_FORMAT " report(s), first: %s", sc.count,
					  mhlJStr(json_object_array_get_idx(sc.findings, 0), MHL_K_TEXT, "")) :
		g_strdup("none");
	rc = expectCheck(checks, st, "kernel reports on the console", "none", have, sc.count == 0);
	mhlConsoleScannerClear(&sc);
	return rc;
}

/* vmstat: changes of /proc/vmstat counters since the trial's start. */
static int checkVmstat(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	g_autoptr(json_object) now = mhlGuestSnapshot(t->g->dom);
	int i, rc = 0;

	if (!now)
		return -1;
	for (i = 0; i < st->nvmstat; i++) {
		g_autofree char *key = g_strdup_printf("vmstat.%s", st->vmstat_key[i]);
		json_object *a = mhlJ(t->before, key), *b = mhlJ(now, key);
		bool both = json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int);
		long long d = both ? json_object_get_int64(b) - json_object_get_int64(a) : 0;
		g_autofree char *what = g_strdup_printf("vmstat %s change", st->vmstat_key[i]);
		g_autofree char *expected = g_strdup_printf("%s%lld", st->vmstat_atleast[i] ? ">=" : "",
							    st->vmstat_val[i]);
		g_autofree char *actual = both ? g_strdup_printf("%lld", d) :
					  g_strdup("no such counter in the guest's /proc/vmstat");

		rc |= expectCheck(checks, st, what, expected, actual, both &&
				  (st->vmstat_atleast[i] ? d >= st->vmstat_val[i] : d == st->vmstat_val[i]));
	}
	return rc;
}

/* host_reclaimed: the last shrinking resize gave back at least this share of what it could. */
static int checkHostReclaimed(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	size_t i = json_object_array_length(t->steps);
	json_object *h = NULL, *ratio;
	g_autofree char *expected = g_strdup_printf(">=%.0f%% of the reclaimable bytes", st->host_reclaimed * 100);
	g_autofree char *actual = NULL;
	double have = -1;

	while (i-- > 0 && !h) {
		json_object *r = json_object_array_get_idx(t->steps, i);

		if (!strcmp(mhlJStr(r, MHL_K_STEP, ""), "resize") &&
		    mhlJ(r, MHL_PATH(MHL_K_HOST, MHL_K_UNPLUGGED_BYTES)))
			h = mhlJObj(r, MHL_K_HOST);
	}
	ratio = h ? mhlJ(h, MHL_K_RECLAIMED_OF_RECLAIMABLE) : NULL;
	if (ratio && (json_object_is_type(ratio, json_type_double) || json_object_is_type(ratio, json_type_int)))
		have = json_object_get_double(ratio);
	if (have >= 0)
		actual = g_strdup_printf("%.1f%% (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " bytes, by %s)",
					 have * 100, mhlJInt(h, MHL_K_RECLAIMED_BYTES, 0),
					 mhlJInt(h, MHL_K_RECLAIMABLE_BYTES, 0), mhlJStr(h, MHL_K_MEASURED_BY, "?"));
	else if (h && strcmp(mhlJStr(h, MHL_K_MEASURED_BY, ""), "backend"))
		actual = g_strdup_printf("only QEMU's whole resident set is known (%s: %s), not what the device held",
					 mhlJStr(h, MHL_K_MEASURED_BY, "?"), mhlJStr(h, MHL_K_SOURCE, "?"));
	else if (h)
		actual = g_strdup("nothing to reclaim: the device's backend held no resident memory before the unplug");
	else
		actual = g_strdup("no shrinking resize with a host side (QEMU's memory could not be read)");
	return expectCheck(checks, st, "host memory reclaimed by the last unplug", expected, actual,
			   have >= 0 && have >= st->host_reclaimed);
}

static bool wantsUnplug(const mhlStep *st) { return st->unplug != MHL_UNPLUG_ANY; }
static bool wantsHugepages(const mhlStep *st) { return st->hugepages != MHL_UNPLUG_ANY; }
static bool wantsMovable(const mhlStep *st) { return st->movable_after_pin != MHL_UNSET; }
static bool wantsCensus(const mhlStep *st) { return st->ncensus > 0; }
static bool wantsPinsFailed(const mhlStep *st) { return st->pins_failed != MHL_UNSET; }
static bool wantsIntegrity(const mhlStep *st) { return st->integrity; }
static bool wantsConsoleClean(const mhlStep *st) { return st->console_clean; }
static bool wantsVmstat(const mhlStep *st) { return st->nvmstat > 0; }
static bool wantsHostReclaimed(const mhlStep *st) { return st->host_reclaimed != MHL_UNSET; }
static bool wantsDimm(const mhlStep *st) { return st->dimm != MHL_DIMM_ANY; }

/* dimm: removed | stuck, of the last dimm detach (its elastic object). */
static int checkDimm(mhlTrial *t, const mhlStep *st, json_object *checks)
{
	size_t i = json_object_array_length(t->steps);
	json_object *el = NULL, *pinned;
	g_autofree char *actual = NULL;
	bool removed, stuck;

	while (i-- > 0 && !el) {
		json_object *r = json_object_array_get_idx(t->steps, i);

		if (!strcmp(mhlJStr(r, MHL_K_STEP, ""), "dimm") &&
		    !strcmp(mhlJStr(r, MHL_PATH(MHL_K_ELASTIC, MHL_K_ACTION), ""), "detach"))
			el = mhlJ(r, MHL_K_ELASTIC);
	}
	removed = mhlJBool(el, MHL_K_REMOVED, false);
	/* stuck: a detach libvirt took that did not complete (refused: it never began) */
	stuck = el && !removed && !mhlJ(el, MHL_K_REFUSED);
	pinned = mhlJ(el, MHL_K_PINNED_BLOCKS);
	if (!el)
		actual = g_strdup("no dimm detach on record");
	else if (!removed && !stuck)
		actual = g_strdup_printf("not begun: libvirt refused the detach (%s)", mhlJStr(el, MHL_K_REFUSED, ""));
	else
		actual = g_strdup_printf("%s after %.1f s%s%s%s", removed ? "removed" : "stuck",
					 mhlJDbl(el, MHL_K_SECONDS, 0),
					 mhlJBool(el, MHL_K_REMOVAL_FAILED, false) ? " (the guest reported the removal failed)" : "",
					 pinned ? ", blocks not offline: " : "",
					 pinned ? json_object_to_json_string(pinned) : "");
	return expectCheck(checks, st, "dimm", st->dimm == MHL_DIMM_REMOVED ? "removed" : "stuck", actual,
			   st->dimm == MHL_DIMM_REMOVED ? removed : stuck);
}

/* The checks, in the order their rows appear in checks[]. */
static const struct {
	bool (*wanted)(const mhlStep *st);
	int (*check)(mhlTrial *t, const mhlStep *st, json_object *checks);
} expectChecks[] = {
	{ wantsUnplug, checkUnplug },
	{ wantsMovable, checkMovableAfterPin },
	{ wantsCensus, checkCensus },
	{ wantsPinsFailed, checkPinsFailed },
	{ wantsIntegrity, checkIntegrity },
	{ wantsConsoleClean, checkConsoleClean },
	{ wantsVmstat, checkVmstat },
	{ wantsHostReclaimed, checkHostReclaimed },
	{ wantsHugepages, checkHugepages },
	{ wantsDimm, checkDimm },
};

int mhlStepExpect(mhlTrial *t, const mhlStep *st, json_object *res)
{
	json_object *checks = json_object_new_array();
	size_t i;
	int rc = 0;

	json_object_object_add(res, MHL_K_CHECKS, checks);
	if (!mhlExpectApplies(t->s, st)) {
		bool policy = st->policy[0] && strcmp(st->policy, t->s->pin_policy);

		json_object_object_add(res, MHL_K_SKIPPED,
				       json_object_new_string(policy ? "another pin_policy" : "another kernel"));
		json_object_object_add(res, MHL_K_SKIP_CODE,
				       json_object_new_string(policy ? "other-pin-policy" : "other-kernel"));
		return 0;
	}
	for (i = 0; i < G_N_ELEMENTS(expectChecks); i++)
		if (expectChecks[i].wanted(st) && expectChecks[i].check(t, st, checks) < 0)
			rc = -1;
	return rc;
}
