/*
 * trial.c - one trial, start to end:
 *   domain XML -> virDomainCreateXML -> guest-ping -> initial plug settles ->
 *   steps (pin / resize / check / release / snapshot) -> counters, console ->
 *   record appended -> domain destroyed.
 * Every wait has a deadline; each failure ends the steps and becomes the
 * verdict's reason; the record is written whatever happened.
 */
#include <glib.h>

#include "util.h"
#include "trial/trial.h"

#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest/agent.h"
#include "guest/domain.h"
#include "guest/guest.h"
#include "record/record.h"


typedef struct {
	pthread_mutex_t lock;
	json_object *timeline;	/* [{t, source, node|alias, size_bytes|requested_bytes}] */
	double t0;
	virDomainPtr dom;
	char *name;
	const mhlScenario *s;
	json_object *steps;	/* results of the steps so far */
	json_object *before;	/* the guest snapshot taken before the first step */
	/* Set by the console watcher and the lifecycle callback, under lock. */
	char *fatal;		/* first panic/Oops line on the console, with file:line */
	char *gone;		/* the domain stopped without us destroying it */
	bool ending;		/* we destroy it now: its stop is expected */
	bool watch_stop;
	const char *console;
} mhlTrial;

/* Kernel reports after which the guest cannot be trusted to go on. */
static bool fatalKind(const char *kind)
{
	return !strcmp(kind, "panic") || !strcmp(kind, "oops");
}

/*
 * The console watcher: scans the serial log while the trial runs. At the
 * first panic or Oops it records the line and destroys the guest, so that
 * whatever step is waiting fails at once instead of at its deadline.
 */
static void *consoleWatch(void *opaque)
{
	mhlTrial *t = opaque;

	for (;;) {
		g_autofree char *text = NULL;
		bool stop;
		size_t i, n;
		json_object *f;

		g_usleep(300 * 1000);
		pthread_mutex_lock(&t->lock);
		stop = t->watch_stop || t->fatal;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			return NULL;
		if (!g_file_get_contents(t->console, &text, NULL, NULL))
			continue;
		f = mhlConsoleScan(text);
		for (i = 0, n = json_object_array_length(f); i < n; i++) {
			json_object *e = json_object_array_get_idx(f, i);
			const char *kind = json_object_get_string(json_object_object_get(e, MHL_K_KIND));

			if (!fatalKind(kind))
				continue;
			pthread_mutex_lock(&t->lock);
			t->fatal = g_strdup_printf("%s (%s:%d)",
						   json_object_get_string(json_object_object_get(e, MHL_K_TEXT)),
						   t->console, json_object_get_int(json_object_object_get(e, MHL_K_LINE)));
			t->ending = true;
			pthread_mutex_unlock(&t->lock);
			virDomainDestroy(t->dom);
			break;
		}
		json_object_put(f);
	}
}

/*
 * Domain events: libvirt takes one callback per event and connection, so the
 * callbacks are registered once per run (mhlTrialEventsRegister) and find
 * their trial by domain name here. A trial is in the table from just before
 * its domain is created until it ends; the callbacks run under the lock.
 */
static pthread_mutex_t trialsLock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *trials;	/* domain name -> mhlTrial * */

static void trialsAdd(mhlTrial *t)
{
	pthread_mutex_lock(&trialsLock);
	if (!trials)
		trials = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_insert(trials, t->name, t);
	pthread_mutex_unlock(&trialsLock);
}

static void trialsRemove(mhlTrial *t)
{
	pthread_mutex_lock(&trialsLock);
	if (trials)
		g_hash_table_remove(trials, t->name);
	pthread_mutex_unlock(&trialsLock);
}

static void onLifecycleLocked(mhlTrial *t, int event, int detail)
{
	static const char *const details[] = { "shut down", "destroyed", "crashed", "migrated",
					       "saved", "failed", "from snapshot" };

	if (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_CRASHED)
		return;
	pthread_mutex_lock(&t->lock);
	if (!t->ending && !t->gone)
		t->gone = g_strdup_printf("the guest %s on its own (%s)",
					  event == VIR_DOMAIN_EVENT_CRASHED ? "crashed" : "stopped",
					  event == VIR_DOMAIN_EVENT_STOPPED && detail >= 0 &&
					  detail < (int)G_N_ELEMENTS(details) ? details[detail] : "no detail");
	pthread_mutex_unlock(&t->lock);
}

static void onLifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			void *opaque)
{
	mhlTrial *t;

	(void)conn; (void)opaque;
	pthread_mutex_lock(&trialsLock);
	if (trials && (t = g_hash_table_lookup(trials, virDomainGetName(dom))))
		onLifecycleLocked(t, event, detail);
	pthread_mutex_unlock(&trialsLock);
}

static void timelineAdd(mhlTrial *t, const char *source, const char *key, json_object *who,
			const char *sizekey, unsigned long long bytes)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, MHL_K_T, json_object_new_double(mhlNow() - t->t0));
	json_object_object_add(e, MHL_K_SOURCE, json_object_new_string(source));
	json_object_object_add(e, key, who);
	json_object_object_add(e, sizekey, json_object_new_int64((int64_t)bytes));
	pthread_mutex_lock(&t->lock);
	json_object_array_add(t->timeline, e);
	pthread_mutex_unlock(&t->lock);
}

static void onSizeChange(virConnectPtr conn, virDomainPtr dom, const char *alias,
			 unsigned long long size_kib, void *opaque)
{
	mhlTrial *t;

	(void)conn; (void)opaque;
	pthread_mutex_lock(&trialsLock);
	if (trials && (t = g_hash_table_lookup(trials, virDomainGetName(dom))))
		timelineAdd(t, "event", "alias", json_object_new_string(alias), "size_bytes",
			    size_kib * 1024);
	pthread_mutex_unlock(&trialsLock);
}

int mhlTrialEventsRegister(virConnectPtr conn)
{
	if (virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_MEMORY_DEVICE_SIZE_CHANGE,
					     VIR_DOMAIN_EVENT_CALLBACK(onSizeChange), NULL, NULL) < 0) {
		mhlErrorVirt("cannot register for MEMORY_DEVICE_SIZE_CHANGE events");
		return -1;
	}
	if (virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
					     VIR_DOMAIN_EVENT_CALLBACK(onLifecycle), NULL, NULL) < 0) {
		mhlErrorVirt("cannot register for lifecycle events");
		return -1;
	}
	return 0;
}

static char *isoNow(void)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();

	return g_date_time_format_iso8601(now);
}

/* Wait until node's plugged size equals the request; returns seconds or -1. */
static double waitPlugged(mhlTrial *t, int node, unsigned long long want, double deadline,
			  unsigned long long *reached)
{
	double start = mhlNow();
	unsigned long long last = ~0ULL, size, req;

	for (;;) {
		if (mhlGuestVirtioMemSize(t->dom, node, &size, &req) < 0)
			return -1;
		if (size != last) {
			timelineAdd(t, "qmp", "node", json_object_new_int(node), "size_bytes", size);
			last = size;
		}
		*reached = size;
		if (size == want)
			return mhlNow() - start;
		if (mhlInterrupted) {
			mhlError("interrupted while waiting for node %d's virtio-mem to reach %llu bytes",
				 node, want);
			return -1;
		}
		if (mhlNow() - start > deadline) {
			mhlError("node %d's virtio-mem stopped at %llu bytes, not the requested %llu, after %.0f s (the guest driver retries a failed unplug on a timer from 50 s up to 300 s)",
				 node, size, want, deadline);
			return -1;
		}
		g_usleep(100 * 1000);
	}
}

/* Pages of a census in a zone (by_zone) or of a kind (zero, thp, cma, pages); -1: absent. */
static long long censusPages(json_object *census, const char *zone)
{
	json_object *bz, *v;

	if (census && json_object_object_get_ex(census, "by_zone", &bz) &&
	    json_object_object_get_ex(bz, zone, &v))
		return json_object_get_int64(v);
	if (census && json_object_object_get_ex(census, zone, &v) &&
	    json_object_get_type(v) == json_type_int)
		return json_object_get_int64(v);
	return -1;
}

/* Does an expect step after @st, under this pin_policy, say the unplug stops short? */
static bool shortExpected(const mhlScenario *s, const mhlStep *st)
{
	int i;

	for (i = (int)(st - s->steps) + 1; i < s->nsteps; i++) {
		const mhlStep *e = &s->steps[i];

		if (e->type == MHL_STEP_RESIZE)
			return false;
		if (e->type == MHL_STEP_EXPECT && mhlExpectApplies(s, e) && e->unplug)
			return e->unplug == MHL_UNPLUG_SHORT;
	}
	return false;
}

/* wait: {until: converged, seconds: S}: every device's plugged size at its request. */
static int waitConverged(mhlTrial *t, const mhlScenario *s, const mhlStep *st, json_object *res)
{
	double start = mhlNow();
	int i;

	for (;;) {
		bool all = true;

		for (i = 0; i < s->nnodes; i++) {
			unsigned long long size, req;

			if (!s->nodes[i].vmem_size)
				continue;
			if (mhlGuestVirtioMemSize(t->dom, i, &size, &req) < 0)
				return -1;
			if (size != req)
				all = false;
		}
		if (all) {
			json_object_object_add(res, "converged_after_s", json_object_new_double(mhlNow() - start));
			return 0;
		}
		if (mhlInterrupted || mhlNow() - start > st->seconds) {
			mhlError("wait until converged: %s after %.1f s", mhlInterrupted ?
				 "interrupted" : "a virtio-mem device is still not at its request",
				 mhlNow() - start);
			return -1;
		}
		g_usleep(200 * 1000);
	}
}

/* The result of the most recent step of type @type, or NULL. */
static json_object *lastResult(mhlTrial *t, const char *type)
{
	size_t i = json_object_array_length(t->steps);

	while (i-- > 0) {
		json_object *r = json_object_array_get_idx(t->steps, i), *v;

		if (json_object_object_get_ex(r, MHL_K_STEP, &v) &&
		    !strcmp(json_object_get_string(v), type))
			return r;
	}
	return NULL;
}

static json_object *path(json_object *o, const char *const *keys)
{
	for (; o && *keys; keys++)
		if (!json_object_object_get_ex(o, *keys, &o))
			return NULL;
	return o;
}

/* Record one check of an expect step; returns 0 if it holds. */
static int expectCheck(json_object *checks, const mhlStep *st, const char *what,
		       const char *expected, const char *actual, bool ok)
{
	json_object *c = json_object_new_object();

	json_object_object_add(c, "what", json_object_new_string(what));
	json_object_object_add(c, "expected", json_object_new_string(expected));
	json_object_object_add(c, "actual", json_object_new_string(actual));
	json_object_object_add(c, MHL_K_OK, json_object_new_boolean(ok));
	json_object_array_add(checks, c);
	if (ok)
		return 0;
	mhlError("expect at line %d: %s: expected %s, got %s", st->line, what, expected, actual);
	return -1;
}

/* Assertions on the steps so far. Skipped (and said so) under another pin_policy or kernel. */
static int expectRun(mhlTrial *t, const mhlStep *st, json_object *res)
{
	json_object *checks = json_object_new_array();
	int rc = 0;

	json_object_object_add(res, MHL_K_CHECKS, checks);
	if (!mhlExpectApplies(t->s, st)) {
		json_object_object_add(res, MHL_K_SKIPPED,
				       json_object_new_string(st->policy[0] && strcmp(st->policy, t->s->pin_policy) ?
							      "another pin_policy" : "another kernel"));
		return 0;
	}
	if (st->unplug) {
		static const char *const conv[] = { "converged", NULL };
		static const char *const got[] = { "reached_bytes", NULL };
		static const char *const want[] = { "requested_bytes", NULL };
		json_object *r = lastResult(t, "resize");
		bool reached = json_object_get_boolean(path(r, conv));
		g_autofree char *actual = g_strdup_printf("%s (%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " bytes)",
							  reached ? "reached" : "short",
							  json_object_get_int64(path(r, got)),
							  json_object_get_int64(path(r, want)));

		rc |= expectCheck(checks, st, "unplug",
				  st->unplug == MHL_UNPLUG_REACHED ? "reached" : "short", actual,
				  reached == (st->unplug == MHL_UNPLUG_REACHED));
	}
	if (st->movable_after_pin != MHL_UNSET) {
		static const char *const pages[] = { "workload", "census_after", "pages", NULL };
		static const char *const mov[] = { "workload", "census_after", "by_zone", "Movable", NULL };
		json_object *r = lastResult(t, "pin");
		long long want = st->movable_after_pin, have = -1;
		g_autofree char *expected = NULL, *actual = NULL;

		if (path(r, mov))
			have = json_object_get_int64(path(r, mov));
		else if (path(r, pages))
			have = 0;	/* no page in ZONE_MOVABLE: the zone is absent */
		if (want == MHL_ALL) {
			want = path(r, pages) ? json_object_get_int64(path(r, pages)) : -1;
			expected = g_strdup_printf("all (%lld) pinned pages", want);
		} else {
			expected = g_strdup_printf("%lld pinned page(s)", want);
		}
		actual = have < 0 ? g_strdup("no census in the pin's output") :
				    g_strdup_printf("%lld", have);
		rc |= expectCheck(checks, st, "pinned pages in ZONE_MOVABLE after the pin",
				  expected, actual, have >= 0 && have == want);
	}
	if (st->ncensus) {
		json_object *r = lastResult(t, "pin");
		int i;

		for (i = 0; i < st->ncensus; i++) {
			const char *key = st->census_key[i];
			const char *which = st->census_after[i] ? "census_after" : "census_before";
			const char *const cen[] = { "workload", which, NULL };
			const char *const pagesKey[] = { "workload", which, "pages", NULL };
			json_object *c = path(r, cen);
			long long want = st->census_val[i], have = -1;
			g_autofree char *what = g_strdup_printf("%s %s (pages)", which, key);
			g_autofree char *expected = NULL, *actual = NULL;

			if (c)
				have = censusPages(c, key);
			if (want == MHL_ALL) {
				want = path(r, pagesKey) ? json_object_get_int64(path(r, pagesKey)) : -1;
				expected = g_strdup_printf("all (%lld)", want);
			} else {
				expected = g_strdup_printf("%s%lld", st->census_atleast[i] ? ">=" : "", want);
			}
			actual = c ? g_strdup_printf("%lld", have) : g_strdup("no census in the pin's output");
			rc |= expectCheck(checks, st, what, expected, actual, c && want >= 0 &&
					  (st->census_atleast[i] ? have >= want : have == want));
		}
	}
	if (st->pins_failed != MHL_UNSET) {
		size_t i, n = 0;
		g_autofree char *want = g_strdup_printf("%d", st->pins_failed), *have = NULL;

		for (i = 0; i < json_object_array_length(t->steps); i++) {
			json_object *r = json_object_array_get_idx(t->steps, i);
			static const char *const failed[] = { "workload", "ok", NULL };

			if (!strcmp(json_object_get_string(json_object_object_get(r, MHL_K_STEP)), "pin") &&
			    !json_object_get_boolean(path(r, failed)))
				n++;
		}
		have = g_strdup_printf("%zu", n);
		rc |= expectCheck(checks, st, "pin steps whose pin failed", want, have,
				  (int)n == st->pins_failed);
	}
	if (st->integrity) {
		size_t i, n = 0, bad = 0;
		g_autofree char *have = NULL;

		for (i = 0; i < json_object_array_length(t->steps); i++) {
			json_object *r = json_object_array_get_idx(t->steps, i), *w, *v;
			const char *type = json_object_get_string(json_object_object_get(r, MHL_K_STEP));

			if (strcmp(type, "check") && strcmp(type, "io") && strcmp(type, "release"))
				continue;
			n++;
			if (!json_object_object_get_ex(r, MHL_K_WORKLOAD, &w) ||
			    !json_object_object_get_ex(w, MHL_K_PATTERN_OK, &v) || !json_object_get_boolean(v))
				bad++;
		}
		have = g_strdup_printf("%zu of %zu check/io/release steps found it intact", n - bad, n);
		rc |= expectCheck(checks, st, "data integrity", "intact in every one", have,
				  n > 0 && !bad);
	}
	if (st->console_clean) {
		g_autofree char *text = NULL;
		g_autoptr(json_object) f = NULL;
		g_autofree char *have = NULL;

		if (!g_file_get_contents(t->console, &text, NULL, NULL))
			text = g_strdup("");
		f = mhlConsoleScan(text);
		have = json_object_array_length(f) ? g_strdup_printf("%zu report(s), first: %s",
				json_object_array_length(f),
				json_object_get_string(json_object_object_get(json_object_array_get_idx(f, 0), MHL_K_TEXT))) :
			g_strdup("none");
		rc |= expectCheck(checks, st, "kernel reports on the console", "none", have,
				  json_object_array_length(f) == 0);
	}
	if (st->nvmstat) {
		g_autoptr(json_object) now = mhlGuestSnapshot(t->dom);
		int i;

		if (!now)
			return -1;
		for (i = 0; i < st->nvmstat; i++) {
			const char *const key[] = { "vmstat", st->vmstat_key[i], NULL };
			json_object *a = path(t->before, key), *b = path(now, key);
			long long d = a && b ? json_object_get_int64(b) - json_object_get_int64(a) : 0;
			g_autofree char *what = g_strdup_printf("vmstat %s change", st->vmstat_key[i]);
			g_autofree char *expected = g_strdup_printf("%s%lld", st->vmstat_atleast[i] ? ">=" : "",
								    st->vmstat_val[i]);
			g_autofree char *actual = a && b ? g_strdup_printf("%lld", d) :
						  g_strdup("no such counter in the guest's /proc/vmstat");

			rc |= expectCheck(checks, st, what, expected, actual, a && b &&
					  (st->vmstat_atleast[i] ? d >= st->vmstat_val[i] :
					   d == st->vmstat_val[i]));
		}
	}
	return rc ? -1 : 0;
}

/*
 * The pin step: memhp-pin MODE in the guest, its JSON in @res. The series'
 * rule (no pinned page left in ZONE_MOVABLE) holds for every mode that pins;
 * vfio-noiommu says "pinned": false and is exempt. With fails_with, the pin
 * must fail with that errno, or its holder die of that signal, instead.
 */
static int pinRun(mhlTrial *t, const mhlScenario *s, const mhlStep *st, json_object *res,
		  json_object *summary)
{
	char size[32], node[16];
	const char *argv[] = { "/bin/memhp-pin", st->workload, "--id", st->id, "--size", size,
			       "--node", node, "--backing", st->backing, "--touch", st->touch,
			       st->split[0] ? "--split" : NULL, st->split, NULL };
	json_object *out, *ok, *after = NULL, *en = NULL, *sig = NULL, *pinned, *bytes, *zp;
	long long movable;
	int exitcode = -1;
	bool pins;
	/* The failure this pin must end in under this trial's pin_policy, or "". */
	const char *fails_with = !st->fails_with_policy[0] ||
				 !strcmp(st->fails_with_policy, s->pin_policy) ? st->fails_with : "";

	if (st->measure && !st->size) {
		/* The 0% point of a capacity sweep: nothing to pin. */
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string("size 0: nothing pinned"));
		return 0;
	}
	snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, st->size);
	snprintf(node, sizeof(node), "%d", st->node);
	out = mhlAgentExecJSON(t->dom, argv, 300, &exitcode);
	if (!out)
		return -1;
	json_object_object_add(res, MHL_K_WORKLOAD, out);
	json_object_object_get_ex(out, "errno_name", &en);
	json_object_object_get_ex(out, "signal", &sig);	/* the holder was killed */
	if (!json_object_object_get_ex(out, MHL_K_OK, &ok) || !json_object_get_boolean(ok)) {
		json_object_object_add(summary, MHL_K_PINS_FAILED, json_object_new_int(1));
		if (fails_with[0] &&
		    ((en && !strcmp(json_object_get_string(en), fails_with)) ||
		     (sig && !strcmp(json_object_get_string(sig), fails_with)))) {
			json_object_object_add(res, "failed_as_expected", json_object_new_boolean(true));
			return 0;
		}
		if (st->measure) {	/* a capacity sweep records where pins start failing */
			json_object_object_add(res, "measured", json_object_new_boolean(true));
			return 0;
		}
		mhlError("pin '%s' (%s) of %" G_GUINT64_FORMAT " bytes on node %d failed: %s",
			 st->id, st->workload, st->size, st->node,
			 en ? json_object_get_string(en) : json_object_to_json_string(out));
		return -1;
	}
	if (fails_with[0]) {
		mhlError("pin '%s' (%s) of %" G_GUINT64_FORMAT " bytes on node %d succeeded, but the step expects it to fail with %s",
			 st->id, st->workload, st->size, st->node, fails_with);
		return -1;
	}
	if (st->split[0]) {
		json_object *pmd = NULL;

		/* The split is the setup of the step: no split, no claim tested. */
		if (!json_object_object_get_ex(out, "pmd_mapped_after_split", &pmd) ||
		    json_object_get_int64(pmd) != 0) {
			mhlError("pin '%s': after the %s split %s bytes of the buffer are still PMD-mapped (AnonHugePages in smaps); the THPs were not split",
				 st->id, st->split, pmd ? json_object_get_string(pmd) : "an unknown number of");
			return -1;
		}
	}
	pins = !json_object_object_get_ex(out, "pinned", &pinned) || json_object_get_boolean(pinned);
	if (json_object_object_get_ex(out, "census_after", &after)) {
		json_object *before = NULL;

		json_object_object_get_ex(out, "census_before", &before);
		json_object_object_add(summary, MHL_K_PINNED_BYTES,
				       json_object_new_int64(json_object_object_get_ex(out, "bytes_pinned", &bytes) ?
							     json_object_get_int64(bytes) : (int64_t)st->size));
		json_object_object_add(summary, MHL_K_PINNED_PAGES_MOVABLE_BEFORE,
				       json_object_new_int64(censusPages(before, "Movable")));
		json_object_object_add(summary, MHL_K_PINNED_PAGES_MOVABLE_AFTER,
				       json_object_new_int64(censusPages(after, "Movable")));
	}
	if (!pins) {
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string(
			"the workload pins nothing (an unprotected setup): the ZONE_MOVABLE rule does not apply"));
		return 0;
	}
	/*
	 * The series' rule; under baseline, expect steps say what should happen.
	 * The shared zero page is exempt: it may sit in ZONE_MOVABLE (kernelcore=)
	 * and is never migrated ("mm/gup: do not migrate zero page").
	 */
	movable = censusPages(after, "Movable");
	if (json_object_object_get_ex(out, "zero_page", &zp) &&
	    !g_strcmp0(json_object_get_string(json_object_object_get(zp, "zone")), "Movable"))
		movable -= MAX(censusPages(after, "zero"), 0);
	if (!strcmp(s->pin_policy, "series") && movable != 0) {
		mhlError("pin '%s' (%s): %lld pinned page(s) are still in ZONE_MOVABLE",
			 st->id, st->workload, movable);
		return -1;
	}
	return 0;
}

/* One step; fills @res; returns 0 if its outcome is what the step requires. */
static int stepRun(mhlTrial *t, const mhlScenario *s, const mhlStep *st, json_object *res,
		   json_object *summary)
{
	char size[32], node[16];
	int exitcode = -1;

	switch (st->type) {
	case MHL_STEP_PIN:
		return pinRun(t, s, st, res, summary);
	case MHL_STEP_RESIZE: {
		g_autofree char *xml = virDomainGetXMLDesc(t->dom, 0);
		g_autofree char *dev = NULL;
		unsigned long long reached = 0;
		double secs;

		if (!xml) {
			mhlErrorVirt("cannot get the live XML of domain '%s'", t->name);
			return -1;
		}
		dev = mhlVirtioMemUpdateXML(xml, st->node, st->requested / 1024);
		if (!dev)
			return -1;
		timelineAdd(t, "request", "node", json_object_new_int(st->node), "requested_bytes",
			    st->requested);
		if (virDomainUpdateDeviceFlags(t->dom, dev, VIR_DOMAIN_AFFECT_LIVE) < 0) {
			mhlErrorVirt("cannot set node %d's virtio-mem <requested> to %" G_GUINT64_FORMAT " bytes",
				     st->node, st->requested);
			return -1;
		}
		secs = waitPlugged(t, st->node, st->requested, st->deadline, &reached);
		json_object_object_add(res, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
		json_object_object_add(res, MHL_K_REACHED_BYTES, json_object_new_int64((int64_t)reached));
		json_object_object_add(res, MHL_K_CONVERGED, json_object_new_boolean(secs >= 0));
		json_object_object_add(res, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
		json_object_object_add(summary, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)st->requested));
		json_object_object_add(summary, MHL_K_REACHED_BYTES, json_object_new_int64((int64_t)reached));
		if (secs < 0 && !mhlInterrupted && (st->measure || shortExpected(s, st))) {
			/* Not a failure here: a later expect step judges it. */
			json_object_object_add(res, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
			mhlErrorReset();
			return 0;
		}
		if (secs < 0)
			return -1;
		json_object_object_add(res, MHL_K_SECONDS_TO_CONVERGE, json_object_new_double(secs));
		json_object_object_add(summary, MHL_K_SECONDS_TO_CONVERGE, json_object_new_double(secs));
		return 0;
	}
	case MHL_STEP_CHECK:
	case MHL_STEP_IO:	/* the holder's check does the mode's I/O or DMA, then compares */
	case MHL_STEP_RELEASE: {
		const char *verb = st->type == MHL_STEP_RELEASE ? "release" : "check";
		const char *argv[] = { "/bin/memhp-pin", "ctl", st->id, verb, NULL };
		json_object *out = mhlAgentExecJSON(t->dom, argv, 120, &exitcode), *v;

		if (!out)
			return -1;
		json_object_object_add(res, MHL_K_WORKLOAD, out);
		if (json_object_object_get_ex(out, MHL_K_PATTERN_OK, &v))
			json_object_object_add(summary, st->type != MHL_STEP_RELEASE ?
					       "pattern_ok_after_resize" : "pattern_ok_at_release",
					       json_object_get(v));
		if (!json_object_object_get_ex(out, MHL_K_OK, &v) || !json_object_get_boolean(v)) {
			mhlError("%s of '%s': the workload reports a problem: %.300s", verb, st->id,
				 json_object_to_json_string(out));
			return -1;
		}
		return 0;
	}
	case MHL_STEP_EXPECT:
		return expectRun(t, st, res);
	case MHL_STEP_BENCH: {
		char repeat[16];
		const char *argv[] = { "/bin/memhp-pin", "bench", "--size", size, "--node", node,
				       "--repeat", repeat, st->fresh ? "--fresh" : NULL, NULL };
		json_object *out, *ok;

		snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, st->size);
		snprintf(node, sizeof(node), "%d", st->node);
		snprintf(repeat, sizeof(repeat), "%d", st->repeat);
		if (!(out = mhlAgentExecJSON(t->dom, argv, 600, &exitcode)))
			return -1;
		json_object_object_add(res, MHL_K_WORKLOAD, out);
		if (!json_object_object_get_ex(out, MHL_K_OK, &ok) || !json_object_get_boolean(ok)) {
			mhlError("bench of %" G_GUINT64_FORMAT " bytes on node %d failed: %.300s",
				 st->size, st->node, json_object_to_json_string(out));
			return -1;
		}
		return 0;
	}
	case MHL_STEP_SYSRQ: {
		g_autofree char *cmd = g_strdup_printf("echo %c > /proc/sysrq-trigger", st->key);
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		mhlExecStatus es = { 0 };
		int rc = mhlAgentExec(t->dom, argv, 30, &es);

		if (rc == 0 && (!es.exited || es.exitcode != 0))
			mhlError("sysrq '%c': '%s' exited %d: %.200s", st->key, cmd, es.exitcode,
				 es.err ? es.err : "");
		rc = rc == 0 && es.exited && es.exitcode == 0 ? 0 : -1;
		mhlExecStatusClear(&es);
		return rc;
	}
	case MHL_STEP_WAIT: {
		double end = mhlNow() + st->seconds;

		if (st->until == MHL_UNTIL_CONVERGED)
			return waitConverged(t, s, st, res);
		while (mhlNow() < end) {
			if (mhlInterrupted || virDomainIsActive(t->dom) != 1) {
				mhlError("wait: %s after %.1f of %.1f s",
					 mhlInterrupted ? "interrupted" : "the guest is gone",
					 st->seconds - (end - mhlNow()), st->seconds);
				return -1;
			}
			g_usleep(100 * 1000);
		}
		return 0;
	}
	case MHL_STEP_SNAPSHOT: {
		json_object *snap = mhlGuestSnapshot(t->dom);

		if (!snap)
			return -1;
		json_object_object_add(res, "guest", snap);
		return 0;
	}
	default:
		mhlError("%s:%d: unknown step type %d", s->path, st->line, st->type);
		return -1;
	}
}

/*
 * The guest kernel must do what pin_policy says: read the series' switch back
 * (debugfs) and refuse to run the steps on a kernel that ignored it.
 */
static int pinPolicyVerify(mhlTrial *t, json_object *rec)
{
	const char *argv[] = { "/bin/cat", "/sys/kernel/debug/gup_longterm_pin_in_place", NULL };
	bool baseline = !strcmp(t->s->pin_policy, "baseline");
	mhlExecStatus st = { 0 };
	const char *state;

	if (mhlAgentExec(t->dom, argv, 30, &st) < 0)
		return -1;
	state = st.exited && st.exitcode == 0 && st.out && st.out[0] == 'Y' ? "on" :
		st.exited && st.exitcode == 0 ? "off" : "absent";
	json_object_object_add(rec, MHL_K_PIN_IN_PLACE_SWITCH, json_object_new_string(state));
	mhlExecStatusClear(&st);
	if (baseline && strcmp(state, "on")) {
		mhlError("pin_policy baseline needs the series' test switch, but /sys/kernel/debug/gup_longterm_pin_in_place is %s in the guest (kernel without CONFIG_GUP_LONGTERM_PIN_IN_PLACE, or the cmdline lost gup_longterm_pin_in_place=1)",
			 state);
		return -1;
	}
	if (!baseline && !strcmp(state, "on")) {
		mhlError("pin_policy series, but the guest's pin-in-place switch is on (gup_longterm_pin_in_place=1 in the scenario's cmdline?)");
		return -1;
	}
	return 0;
}

static json_object *domainFacts(const mhlRunConfig *cfg, const mhlScenario *s)
{
	json_object *d = json_object_new_object(), *nodes = json_object_new_array();
	int i;

	json_object_object_add(d, MHL_K_URI, json_object_new_string(cfg->uri));
	json_object_object_add(d, MHL_K_ACCEL, json_object_new_string(cfg->accel));
	json_object_object_add(d, MHL_K_ACCEL_REASON, json_object_new_string(cfg->accel_why));
	for (i = 0; i < s->nnodes; i++) {
		json_object *n = json_object_new_object();

		json_object_object_add(n, "memory_bytes", json_object_new_int64((int64_t)s->nodes[i].memory));
		json_object_object_add(n, "cpus", json_object_new_int(s->nodes[i].cpus));
		if (s->nodes[i].vmem_size) {
			json_object_object_add(n, "virtio_mem_size_bytes", json_object_new_int64((int64_t)s->nodes[i].vmem_size));
			json_object_object_add(n, "virtio_mem_block_bytes", json_object_new_int64((int64_t)s->nodes[i].vmem_block));
			json_object_object_add(n, "virtio_mem_requested_bytes", json_object_new_int64((int64_t)s->nodes[i].vmem_requested));
		}
		json_object_array_add(nodes, n);
	}
	json_object_object_add(d, MHL_K_NODES, nodes);
	return d;
}

mhlVerdict mhlTrialRun(virConnectPtr conn, const mhlRunConfig *cfg, const mhlScenario *s,
		       json_object **recp)
{
	mhlTrial t = { .lock = PTHREAD_MUTEX_INITIALIZER };
	json_object *rec = json_object_new_object(), *steps = json_object_new_array();
	json_object *summary = json_object_new_object();
	g_autofree char *tmpl = NULL, *xml = NULL, *started = isoNow(), *console = NULL;
	g_autofree char *records = g_build_filename(cfg->outdir, "trials.jsonl", NULL);
	g_autofree char *console_text = NULL, *reason = NULL;
	mhlVerdict verdict = MHL_VERDICT_PASS;
	int i, failed_step = -1;
	double t_start = mhlNow();
	bool watching = false, infra = false;
	pthread_t watcher;

	t.timeline = json_object_new_array();
	t.s = s;
	t.steps = steps;
	{
		/* Trial ids of a matrix hold ':', '=' and ','; names and files get [A-Za-z0-9._-]. */
		static int seq;
		g_autofree char *safe = g_strdup(s->name);

		g_strcanon(safe, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
		t.name = g_strdup_printf("memhp-%s-%d-%d", safe, (int)getpid(),
					 g_atomic_int_add(&seq, 1));
		console = g_strdup_printf("%s/%s.console.log", cfg->outdir, safe);
	}
	json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(s->name));
	json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(s->path));
	json_object_object_add(rec, MHL_K_STARTED, json_object_new_string(started));
	{
		json_object *params = json_object_new_object();

		for (i = 0; i < s->nparams; i++)
			json_object_object_add(params, s->param_key[i],
					       json_object_new_string(s->param_val[i]));
		json_object_object_add(rec, MHL_K_PARAMETERS, params);
		json_object_object_add(rec, MHL_K_SCENARIO_NAME, json_object_new_string(s->scenario_name));
	}
	json_object_object_add(rec, MHL_K_KERNEL, json_object_get(cfg->kernel_identity));
	json_object_object_add(rec, MHL_K_PIN_POLICY, json_object_new_string(s->pin_policy));
	json_object_object_add(rec, MHL_K_DOMAIN, domainFacts(cfg, s));
	json_object_object_add(rec, MHL_K_CONSOLE_LOG, json_object_new_string(console));

	if (!(tmpl = mhlFileRead(cfg->tmpl_path, NULL)))
		goto error;
	{
		mhlDomainParams p = {
			.name = t.name, .accel = cfg->accel, .kernel = cfg->kernel_image, .initrd = cfg->initrd,
			.console_log = console, .emulator = cfg->emulator,
		};

		if (!(xml = mhlDomainXMLBuild(tmpl, cfg->tmpl_path, s, &p)))
			goto error;
	}
	unlink(console);
	trialsAdd(&t);
	t.t0 = mhlNow();
	t.dom = virDomainCreateXML(conn, xml, 0);
	if (!t.dom) {
		mhlErrorVirt("cannot start domain '%s' (template %s)", t.name, cfg->tmpl_path);
		goto error;
	}
	t.console = console;
	if (pthread_create(&watcher, NULL, consoleWatch, &t) == 0)
		watching = true;
	{
		double up = mhlAgentWait(t.dom, cfg->agent_deadline, console);

		if (up < 0)
			goto error;
		json_object_object_add(summary, MHL_K_BOOT_TO_AGENT_S, json_object_new_double(up));
	}
	if (pinPolicyVerify(&t, rec) < 0)
		goto error;
	for (i = 0; i < s->nnodes; i++) {
		unsigned long long reached;
		double secs;

		if (!s->nodes[i].vmem_size)
			continue;
		secs = waitPlugged(&t, i, s->nodes[i].vmem_requested, 120, &reached);
		if (secs < 0)
			goto error;
		json_object_object_add(summary, MHL_K_INITIAL_PLUG_S, json_object_new_double(secs));
	}
	{
		json_object *snap = mhlGuestSnapshot(t.dom);

		if (!snap)
			goto error;
		json_object_object_add(rec, MHL_K_GUEST_BEFORE, snap);
		t.before = snap;
	}

	for (i = 0; i < s->nsteps && !mhlInterrupted; i++) {
		const mhlStep *st = &s->steps[i];
		json_object *res = json_object_new_object();
		g_autofree char *ts = isoNow();
		double t0 = mhlNow();
		int rc;

		if (!cfg->quiet)
			fprintf(stderr, "memhp-lab: [%d/%d] %s: step %d/%d: %s%s%s (%.1f s)\n",
				cfg->index, cfg->total, s->name, i + 1, s->nsteps,
				mhlStepTypeNames[st->type], st->id[0] ? " " : "", st->id,
				mhlNow() - t_start);
		json_object_object_add(res, MHL_K_STEP, json_object_new_string(mhlStepTypeNames[st->type]));
		json_object_object_add(res, MHL_K_LINE, json_object_new_int(st->line));
		if (st->id[0])
			json_object_object_add(res, MHL_K_ID, json_object_new_string(st->id));
		json_object_object_add(res, MHL_K_T, json_object_new_double(t0 - t.t0));
		mhlAgentFailedReset();
		rc = stepRun(&t, s, st, res, summary);
		/* Could the step not be carried out, rather than its outcome being wrong? */
		if (rc < 0 && (mhlAgentFailedReset() || virDomainIsActive(t.dom) != 1))
			infra = true;
		json_object_object_add(res, MHL_K_SECONDS, json_object_new_double(mhlNow() - t0));
		json_object_object_add(res, MHL_K_OK, json_object_new_boolean(rc == 0));
		if (rc < 0) {
			json_object_object_add(res, MHL_K_ERROR, json_object_new_string(mhlErrorLast()));
			reason = g_strdup_printf("step %d (%s, %s:%d): %s", i + 1,
						 mhlStepTypeNames[st->type], s->path, st->line,
						 mhlErrorLast());
			mhlErrorReset();
			failed_step = i;
		}
		json_object_array_add(steps, res);
		if (rc < 0)
			break;
	}
	if (failed_step >= 0)
		verdict = infra ? MHL_VERDICT_ERROR : MHL_VERDICT_FAIL;
	if (!json_object_object_get_ex(summary, MHL_K_PINS_FAILED, NULL))
		json_object_object_add(summary, MHL_K_PINS_FAILED, json_object_new_int(0));
	{
		json_object *snap = mhlGuestSnapshot(t.dom);

		if (snap)
			json_object_object_add(rec, MHL_K_GUEST_AFTER, snap);
		else
			mhlErrorReset();
	}
	goto done;

error:
	verdict = MHL_VERDICT_ERROR;
	reason = g_strdup(mhlErrorLast());
	mhlErrorReset();
done:
	if (mhlInterrupted) {
		verdict = MHL_VERDICT_INTERRUPTED;
		g_free(reason);
		reason = g_strdup_printf("interrupted by signal %d", mhlInterrupted);
	}
	pthread_mutex_lock(&t.lock);
	t.ending = true;
	t.watch_stop = true;
	pthread_mutex_unlock(&t.lock);
	if (watching)
		pthread_join(watcher, NULL);
	/* A crash or a guest that went away is the reason, whatever step noticed it. */
	if (verdict != MHL_VERDICT_INTERRUPTED && (t.fatal || t.gone)) {
		verdict = MHL_VERDICT_ERROR;
		g_free(reason);
		reason = t.fatal ?
			g_strdup_printf("the guest kernel crashed: %s; the trial ended there", t.fatal) :
			g_strdup_printf("%s; console: %s, libvirt log: %s/libvirt.log", t.gone,
					console, cfg->outdir);
	}
	if (t.dom) {
		if (virDomainDestroy(t.dom) < 0 && virDomainIsActive(t.dom) == 1)
			fprintf(stderr, "memhp-lab: warning: cannot destroy domain '%s': %s\n",
				t.name, virGetLastErrorMessage());
		virDomainFree(t.dom);
	}
	trialsRemove(&t);
	console_text = mhlFileRead(console, NULL);
	if (!console_text) {
		mhlErrorReset();
		console_text = g_strdup("");
	}
	{
		json_object *findings = mhlConsoleScan(console_text);
		size_t f;

		/* A panic the watcher had no time to see (the agent noticed first). */
		for (f = 0; !t.fatal && verdict != MHL_VERDICT_INTERRUPTED &&
		     f < json_object_array_length(findings); f++) {
			json_object *e = json_object_array_get_idx(findings, f);

			if (!fatalKind(json_object_get_string(json_object_object_get(e, MHL_K_KIND))))
				continue;
			t.fatal = g_strdup_printf("%s (%s:%d)",
						  json_object_get_string(json_object_object_get(e, MHL_K_TEXT)),
						  console, json_object_get_int(json_object_object_get(e, MHL_K_LINE)));
			verdict = MHL_VERDICT_ERROR;
			g_free(reason);
			reason = g_strdup_printf("the guest kernel crashed: %s; the trial ended there",
						 t.fatal);
		}
		if (verdict == MHL_VERDICT_PASS && json_object_array_length(findings) > 0) {
			json_object *f0 = json_object_array_get_idx(findings, 0), *txt;

			json_object_object_get_ex(f0, MHL_K_TEXT, &txt);
			verdict = MHL_VERDICT_FAIL;
			reason = g_strdup_printf("kernel reported a problem on the console (%s): %s",
						 console, json_object_get_string(txt));
		}
		json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, findings);
	}
	json_object_object_add(rec, MHL_K_STEPS, steps);
	pthread_mutex_lock(&t.lock);
	json_object_object_add(rec, MHL_K_TIMELINE, t.timeline);
	pthread_mutex_unlock(&t.lock);
	json_object_object_add(rec, MHL_K_SUMMARY, summary);
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_start));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(mhlVerdictNames[verdict]));
	json_object_object_add(rec, MHL_K_REASON, reason ? json_object_new_string(reason) : NULL);
	if (mhlRecordAppend(records, rec) < 0) {
		fprintf(stderr, "memhp-lab: error: %s\n", mhlErrorLast());
		mhlErrorReset();
		verdict = MHL_VERDICT_ERROR;
	}
	g_free(t.name);
	g_free(t.fatal);
	g_free(t.gone);
	*recp = rec;
	return verdict;
}
