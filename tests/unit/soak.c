/*
 * tests/unit/soak.c - the soak (orchestrator/soak/soak.h): durations, and
 * the schedule as a pure function of (seed, cycle) within its bounds.
 */
#include <glib.h>

#include <math.h>
#include <string.h>

#include "scenario/scenario.h"
#include "soak/soak-int.h"
#include "soak/soak.h"
#include "unit.h"
#include "util.h"

#define CYCLES 200

static const char soakYAML[] =
	"name: s\nnodes:\n  - memory: 512MiB\n  - memory: 64MiB\n"
	"    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\n"
	"  - memory: 64MiB\n    virtio_mem: {size: 256MiB, block: 2MiB, requested: 256MiB}\n"
	"steps:\n  - snapshot:\n";

static mhlScenario *withDevices, *withoutDevice, *withBudget;

static void soakSetup(void)
{
	g_autofree char *path = unitWriteTmp("soak.yaml", soakYAML);
	g_autofree char *none = unitWriteTmp("nodev.yaml",
					     "name: n\nnodes:\n  - memory: 512MiB\nsteps:\n  - snapshot:\n");

	g_autofree char *budget = g_strdup_printf("%s%s", soakYAML,
		"soak: {leak: io_uring, every: 3, budgets: {slab_unreclaimable_bytes: 1MiB, mem_free_bytes: 2GiB}}\n");
	g_autofree char *bpath = unitWriteTmp("budget.yaml", budget);

	withDevices = mhlScenarioLoad(path);
	withoutDevice = mhlScenarioLoad(none);
	withBudget = mhlScenarioLoad(bpath);
	if (!withDevices || !withoutDevice || !withBudget)
		unitDiag("soak scenarios: %s", mhlErrorLast());
}

static void soakTeardown(void)
{
	g_clear_pointer(&withDevices, mhlScenarioFree);
	g_clear_pointer(&withoutDevice, mhlScenarioFree);
	g_clear_pointer(&withBudget, mhlScenarioFree);
}

static bool durations(void)
{
	static const struct { const char *in; double want; } durs[] = {
		{ "90s", 90 }, { "30m", 1800 }, { "8h", 28800 }, { "1h30m", 5400 }, { "2d", 172800 },
		{ "8x", -1 }, { "", -1 }, { "0", -1 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(durs); i++) {
		if (mhlSoakDurationParse(durs[i].in) != durs[i].want) {
			unitDiag("'%s' parses to %g, not %g", durs[i].in, mhlSoakDurationParse(durs[i].in), durs[i].want);
			return unitExpect(false);
		}
	}
	return true;
}

static bool scenariosLoad(void)
{
	return unitExpect(withDevices && withoutDevice);
}

static bool sameSchedule(const mhlSoakCycle *a, const mhlSoakCycle *b)
{
	return a->node == b->node && a->pin_bytes == b->pin_bytes && a->requested_bytes == b->requested_bytes &&
	       !strcmp(a->workload, b->workload);
}

static bool dependsOnSeedAndCycle(void)
{
	mhlSoakCycle a, b;
	bool same = withDevices != NULL;
	int c;

	for (c = 1; same && c <= CYCLES; c++) {
		mhlSoakSchedule(withDevices, 42, c, &a);
		mhlSoakSchedule(withDevices, 42, c, &b);
		same = sameSchedule(&a, &b);
	}
	return unitExpect(same);
}

static bool seedVaries(void)
{
	mhlSoakCycle a, b;
	bool varies = false;
	int c;

	for (c = 1; withDevices && !varies && c <= CYCLES; c++) {
		mhlSoakSchedule(withDevices, 42, c, &a);
		mhlSoakSchedule(withDevices, 43, c, &b);
		varies = a.pin_bytes != b.pin_bytes || a.requested_bytes != b.requested_bytes;
	}
	return unitExpect(varies);
}

static bool bounded(void)
{
	bool ok = withDevices != NULL;
	mhlSoakCycle a;
	int c;

	for (c = 1; ok && c <= CYCLES; c++) {
		const mhlNode *nd;

		mhlSoakSchedule(withDevices, 42, c, &a);
		nd = &withDevices->nodes[a.node];
		ok = nd->vmem_size && a.pin_bytes >= 2 << 20 && a.pin_bytes <= nd->vmem_requested / 8 &&
		     a.pin_bytes % (2 << 20) == 0 && a.requested_bytes <= nd->vmem_requested / 2 &&
		     a.requested_bytes % nd->vmem_block == 0 && a.full_bytes == nd->vmem_requested;
		if (!ok)
			unitDiag("cycle %d: node %d, pin %" G_GUINT64_FORMAT ", requested %" G_GUINT64_FORMAT,
				 c, a.node, (guint64)a.pin_bytes, (guint64)a.requested_bytes);
	}
	return unitExpect(ok);
}

static bool seven(void)
{
	mhlSoakCycle a;

	return unitExpect(withDevices && mhlSoakSchedule(withDevices, 7, 1, &a) == 0 && a.node == 2 &&
			  !strcmp(a.workload, "gup") && a.pin_bytes == 27262976 && a.requested_bytes == 56623104);
}

static bool noDeviceRefused(void)
{
	mhlSoakCycle a;

	return unitExpect(withoutDevice && mhlSoakSchedule(withoutDevice, 1, 1, &a) < 0 &&
			  strstr(mhlErrorLast(), "no node with a plugged virtio-mem device"));
}

/*
 * @n checkpoints a minute apart of a guest whose SUnreclaim grows @per_cycle bytes
 * (plus a +-@noise saw), every third with slabinfo whose kmalloc-2k grows one
 * object per cycle; the findings of the judgement after each such point.
 */
static double ramPerCycle;	/* with it, the guest's RAM in QEMU grows this much per cycle from 200 MB */
static double ownPerCycle;	/* with it, QEMU's own memory grows this much per cycle from 100 MB */
static int ownFlatAfter;	/* ... until this cycle (0: to the end), then stays flat */
static int orchKibPerCycle;	/* with it, the orchestrator's RSS grows this many KiB per cycle */
static double freePerCycle;	/* with it, the guest's MemFree moves this much per cycle from 1 GB */

static json_object *events;	/* when set, each raising's withdrawn_cycle (-1: still raised at the end) */

static int seriesRun(const mhlScenario *s, int n, double per_cycle, double noise, json_object *findings,
		     json_object *table)
{
	mhlSoakSeries ss;
	int c, found = 0;
	size_t k, seen = 0;

	mhlSoakSeriesInit(&ss);
	for (c = 1; c <= n; c++) {
		int own = ownFlatAfter && c > ownFlatAfter ? ownFlatAfter : c;
		g_autoptr(json_object) cn = json_object_new_object();
		g_autoptr(json_object) slab = json_object_new_object();
		json_object *row = json_object_new_array();
		bool drop = c == 1 || c % 3 == 0;

		json_object_object_add(cn, "slab_unreclaimable_bytes", json_object_new_int64(
			(int64_t)(20e6 + per_cycle * c + (c % 2 ? noise : -noise))));
		json_object_object_add(cn, "mem_free_bytes", json_object_new_int64(
			(int64_t)(1e9 + (c % 4) * 30e6 + freePerCycle * c)));
		json_object_object_add(cn, "orchestrator_rss_kib",
				       json_object_new_int64(20000 + 8 * (c % 3) + orchKibPerCycle * c));
		if (ramPerCycle || ownPerCycle) {	/* QEMU's RSS is the two, each its own series */
			json_object_object_add(cn, "guest_ram_bytes", json_object_new_int64((int64_t)(200e6 + ramPerCycle * c)));
			json_object_object_add(cn, "qemu_own_bytes", json_object_new_int64((int64_t)(100e6 + ownPerCycle * own)));
			json_object_object_add(cn, "qemu_rss_bytes", json_object_new_int64(
				(int64_t)(300e6 + ramPerCycle * c + ownPerCycle * own)));
		}
		json_object_array_add(row, json_object_new_int64(100 + c));
		json_object_array_add(row, json_object_new_int64(112 + c));
		json_object_array_add(row, json_object_new_int64(2048));
		json_object_array_add(row, json_object_new_int64(4096LL * (c / 2 + 8)));
		json_object_object_add(slab, "kmalloc-2k", row);
		row = json_object_new_array();
		json_object_array_add(row, json_object_new_int64(50));
		json_object_array_add(row, json_object_new_int64(64));
		json_object_array_add(row, json_object_new_int64(64));
		json_object_array_add(row, json_object_new_int64(4096));
		json_object_object_add(slab, "filp", row);
		mhlSoakSeriesAdd(&ss, c, 60.0 * c, cn, drop, drop ? slab : NULL);
		/* every checkpoint judges again (soak.c); the last one is the final judgement */
		mhlSoakSeriesJudge(&ss, s, c, 60.0 * c, findings, c == n ? table : NULL, c == n);
		for (; seen < json_object_array_length(findings); seen++)	/* raised, not raised again at the end */
			found += c < n && !strcmp(mhlJStr(json_object_array_get_idx(findings, seen), MHL_K_KIND, ""), "trend");
	}
	for (k = 0; k < ss.events->len && events; k++)
		json_object_array_add(events, json_object_new_int(g_array_index(ss.events, mhlSoakTrendEvent, k).withdrawn_cycle));
	mhlSoakSeriesClear(&ss);
	return found;
}

static bool seriesLeakFlagged(void)
{
	g_autoptr(json_object) f = json_object_new_array();
	json_object *one, *caches;

	if (!withDevices || seriesRun(withDevices, 30, 40960, 2000, f, NULL) != 1)
		return unitExpect(false);
	one = json_object_array_get_idx(f, 0);
	caches = mhlJ(one, MHL_K_CACHES);
	if (strcmp(mhlJStr(one, MHL_K_KIND, ""), "trend") ||
	    strcmp(mhlJStr(one, MHL_K_SERIES, ""), "slab_unreclaimable_bytes") ||
	    !strstr(mhlJStr(one, MHL_K_TEXT, ""), "kmalloc-2k +") || !caches ||
	    json_object_array_length(caches) != 1 ||
	    strcmp(mhlJStr(json_object_array_get_idx(caches, 0), "name", ""), "kmalloc-2k")) {
		unitDiag("findings: %s", json_object_to_json_string(f));
		return unitExpect(false);
	}
	/* flagged at the first judgement after judge_after (600 s) with MIN_POINTS_ALL points after
	 * the 5 of the warm-up: cycle 15 */
	return unitExpect(mhlJInt(one, MHL_K_CYCLE, 0) == 15);
}

static bool seriesFlatNotFlagged(void)
{
	g_autoptr(json_object) f = json_object_new_array();
	g_autoptr(json_object) table = json_object_new_array();
	size_t i;
	bool seen = false;

	if (!withDevices || seriesRun(withDevices, 30, 0, 30000, f, table) != 0 || json_object_array_length(f))
		return unitExpect(false);
	for (i = 0; i < json_object_array_length(table); i++) {
		json_object *r = json_object_array_get_idx(table, i);

		if (!strcmp(mhlJStr(r, MHL_K_SERIES, ""), "slab_unreclaimable_bytes"))
			seen = !json_object_get_boolean(mhlJ(r, "significant")) && mhlJInt(r, "points", 0) == 25;
		if (!strcmp(mhlJStr(r, MHL_K_SERIES, ""), "orchestrator_rss_bytes") &&
		    mhlJInt(r, "points", 0) != 25)
			return unitExpect(false);	/* 5 minutes of warm-up left out: cycles 6..30 */
	}
	return unitExpect(seen);
}

static bool seriesBudgetScenario(void)
{
	g_autoptr(json_object) f = json_object_new_array(), g = json_object_new_array();

	/* 1000 B/cycle at 60 cycles/hour: 1.4 MiB a day, under the default 16 MiB, over 1 MiB */
	return unitExpect(withDevices && withBudget && !strcmp(withBudget->soak_leak, "io_uring") &&
			  withBudget->soak_every == 3 && withDevices->soak_every == MHL_SOAK_EVERY_DEFAULT &&
			  !withDevices->soak_leak[0] && withBudget->soak_judge_after == 600 &&
			  seriesRun(withDevices, 30, 1000, 0, f, NULL) == 0 &&
			  seriesRun(withBudget, 30, 1000, 0, g, NULL) == 1);
}

/*
 * QEMU's RSS is judged as its two parts. The guest's RAM grows as the guest
 * touches it: 200 KB a cycle (288 MiB in 24 h, over the 256 MiB budget)
 * stays within the guest's RAM and is no finding, and QEMU's whole RSS
 * growing with it is shown, never judged; 2 MB a cycle would leave the
 * guest's RAM behind within 24 h and is one. QEMU's own memory growing 200
 * KB a cycle (288 MiB in 24 h, over its 128 MiB) is one too.
 */
static bool seriesQemuApart(void)
{
	g_autoptr(json_object) f = json_object_new_array(), g = json_object_new_array(), h = json_object_new_array();
	int quiet, loud, own;

	ramPerCycle = 200e3;
	quiet = seriesRun(withDevices, 30, 0, 0, f, NULL);
	ramPerCycle = 2e6;
	loud = seriesRun(withDevices, 30, 0, 0, g, NULL);
	ramPerCycle = 0;
	ownPerCycle = 200e3;
	own = seriesRun(withDevices, 30, 0, 0, h, NULL);
	ownPerCycle = 0;
	if (quiet != 0 || loud != 1 || own != 1 ||
	    strcmp(mhlJStr(json_object_array_get_idx(g, 0), MHL_K_SERIES, ""), "guest_ram_bytes") ||
	    !strstr(mhlJStr(json_object_array_get_idx(g, 0), MHL_K_TEXT, ""), "beyond the guest's RAM") ||
	    strcmp(mhlJStr(json_object_array_get_idx(h, 0), MHL_K_SERIES, ""), "qemu_own_bytes")) {
		unitDiag("quiet %d: %s; loud %d: %s; own %d: %s", quiet, json_object_to_json_string(f), loud,
			 json_object_to_json_string(g), own, json_object_to_json_string(h));
		return unitExpect(false);
	}
	return unitExpect(true);
}

/*
 * A finding judged again at every checkpoint: QEMU's own memory grows 2 MB
 * a cycle for 20 cycles, then stays flat for 100. It is raised (cycle 15,
 * the first judgement) and withdrawn once the whole series no longer
 * projects over its budget; the final judgement keeps no trend finding, and
 * the withdrawal says when and why.
 */
static bool seriesWithdrawn(void)
{
	g_autoptr(json_object) f = json_object_new_array(), ev = json_object_new_array();
	json_object *w = NULL;
	size_t i, trends = 0;
	int found;

	ownPerCycle = 2e6;
	ownFlatAfter = 20;
	events = ev;
	found = seriesRun(withDevices, 120, 0, 0, f, NULL);
	events = NULL;
	ownPerCycle = 0;
	ownFlatAfter = 0;
	for (i = 0; i < json_object_array_length(f); i++) {
		json_object *x = json_object_array_get_idx(f, i);

		if (!strcmp(mhlJStr(x, MHL_K_KIND, ""), "trend_withdrawn") && !w)
			w = x;
		trends += mhlJInt(x, MHL_K_CYCLE, 0) == 120 && !strcmp(mhlJStr(x, MHL_K_KIND, ""), "trend");
	}
	if (found != 1 || !w || trends || json_object_array_length(ev) != 1 ||
	    json_object_get_int(json_object_array_get_idx(ev, 0)) != mhlJInt(w, MHL_K_CYCLE, -2) ||
	    strcmp(mhlJStr(w, MHL_K_SERIES, ""), "qemu_own_bytes") ||
	    !strstr(mhlJStr(w, MHL_K_TEXT, ""), "the finding raised at cycle 15 is withdrawn") ||
	    mhlSoakFindingCounts(w)) {
		unitDiag("%d raised: %s; withdrawn at %s", found, json_object_to_json_string(f),
			 json_object_to_json_string(ev));
		return unitExpect(false);
	}
	return unitExpect(true);
}

/*
 * A series whose harm is a decline (MemFree after drop_caches, budget 256
 * MiB a day): falling 8 MB a cycle is significant on its harmful side and
 * projects 11 GB lost in 24 h, a finding that says it falls; rising as
 * fast is significant too, on the harmless side: no finding.
 */
static bool seriesFreeFalling(void)
{
	g_autoptr(json_object) f = json_object_new_array(), g = json_object_new_array();
	int falling, rising;

	freePerCycle = -8e6;
	falling = seriesRun(withDevices, 30, 0, 0, f, NULL);
	freePerCycle = 8e6;
	rising = seriesRun(withDevices, 30, 0, 0, g, NULL);
	freePerCycle = 0;
	if (falling != 1 || rising != 0 ||
	    strcmp(mhlJStr(json_object_array_get_idx(f, 0), MHL_K_SERIES, ""), "mem_free_bytes") ||
	    !strstr(mhlJStr(json_object_array_get_idx(f, 0), MHL_K_TEXT, ""), "guest free memory after drop_caches (MemFree) falls 8000000 bytes/cycle")) {
		unitDiag("falling %d: %s; rising %d: %s", falling, json_object_to_json_string(f), rising,
			 json_object_to_json_string(g));
		return unitExpect(false);
	}
	return unitExpect(true);
}

/*
 * The orchestrator's own RSS: 4 KiB a cycle at a cycle a minute is 5.6 MiB
 * in 24 h, far under its 64 MiB budget, and a finding all the same (our C
 * must not grow per cycle at all), at the first judgement with 10 points
 * past its 5 minutes of warm-up; its row is a finding, not over budget.
 */
static bool seriesOrchestratorAnyGrowth(void)
{
	g_autoptr(json_object) f = json_object_new_array(), table = json_object_new_array();
	json_object *one, *row = NULL;
	size_t i;
	int found;

	orchKibPerCycle = 4;
	found = seriesRun(withDevices, 30, 0, 0, f, table);
	orchKibPerCycle = 0;
	one = json_object_array_get_idx(f, 0);
	for (i = 0; i < json_object_array_length(table); i++)
		if (!strcmp(mhlJStr(json_object_array_get_idx(table, i), MHL_K_SERIES, ""), "orchestrator_rss_bytes"))
			row = json_object_array_get_idx(table, i);
	if (found != 1 || strcmp(mhlJStr(one, MHL_K_SERIES, ""), "orchestrator_rss_bytes") ||
	    mhlJInt(one, MHL_K_CYCLE, 0) != 15 ||
	    !strstr(mhlJStr(one, MHL_K_TEXT, ""), "within its budget of 64.0 MiB, a finding all the same") ||
	    !row || !json_object_get_boolean(mhlJ(row, "finding")) || json_object_get_boolean(mhlJ(row, "over_budget")) ||
	    mhlJDbl(row, "projection_24h", 0) > 6 << 20) {
		unitDiag("%d finding(s): %s; row %s", found, json_object_to_json_string(f), json_object_to_json_string(row));
		return unitExpect(false);
	}
	return true;
}

/*
 * A soak of days: 60000 checkpoints, caches dropped every third. The
 * series keep no point per cycle: the least-squares series their sums, the
 * Theil-Sen one (free memory after drop_caches, 20000 points) at most
 * MHL_SOAK_SEN_KEEP, binned, with its slope still found.
 */
static bool seriesBounded(void)
{
	enum { N = 60000 };
	g_autoptr(json_object) f = json_object_new_array(), table = json_object_new_array();
	mhlSoakSeries ss;
	double slope = 0, senSlope = 0;
	size_t i, maxSen = 0;
	int c;

	mhlSoakSeriesInit(&ss);
	for (c = 1; c <= N; c++) {
		g_autoptr(json_object) cn = json_object_new_object();

		json_object_object_add(cn, "orchestrator_rss_kib", json_object_new_int64(20000 + 8 * (c % 3)));
		json_object_object_add(cn, "mem_free_bytes", json_object_new_int64(1000000000LL - 100LL * c + (c % 4) * 30000));
		mhlSoakSeriesAdd(&ss, c, 60.0 * c, cn, c % 3 == 0, NULL);
		for (i = 0; i < G_N_ELEMENTS(ss.fit); i++)
			maxSen = MAX(maxSen, ss.fit[i].sen ? ss.fit[i].sen->len : 0);
	}
	mhlSoakSeriesJudge(&ss, withDevices, N, 60.0 * N, f, table, true);
	mhlSoakSeriesClear(&ss);
	for (i = 0; i < json_object_array_length(table); i++) {
		json_object *r = json_object_array_get_idx(table, i);

		if (!strcmp(mhlJStr(r, MHL_K_SERIES, ""), "orchestrator_rss_bytes"))
			slope = mhlJDbl(r, "per_cycle.slope", 1e9) + (mhlJInt(r, "points", 0) != N - 5) * 1e9;
		if (!strcmp(mhlJStr(r, MHL_K_SERIES, ""), "mem_free_bytes"))
			senSlope = mhlJDbl(r, "per_cycle.slope", 0) + (mhlJInt(r, "points", 0) != N / 3 - 1) * 1e9;
	}
	if (maxSen > MHL_SOAK_SEN_KEEP || fabs(slope) > 0.01 || fabs(senSlope + 100) > 1) {
		unitDiag("Theil-Sen points at most %zu; orchestrator slope %g, free memory %g (want -100)", maxSen,
			 slope, senSlope);
		return unitExpect(false);
	}
	return true;
}

static bool soakKeysRefused(void)
{
	static const struct { const char *yaml, *want; } bad[] = {
		{ "soak: {leak: dentry}\n", "soak.leak: unknown leak 'dentry'" },
		{ "soak: {every: 0}\n", "soak.every: '0' is not an integer" },
		{ "soak: {budgets: {slab_bytes: 1MiB}}\n", "unknown key 'slab_bytes' in soak.budgets" },
		{ "soak: {budgets: {vmalloc_bytes: lots}}\n", "soak.budgets.vmalloc_bytes: 'lots' is not a size" },
		{ "soak: {judge_after: 0}\n", "soak.judge_after: '0' is not a number of seconds" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autofree char *text = g_strdup_printf("%s%s", soakYAML, bad[i].yaml);
		g_autofree char *path = unitWriteTmp("bad.yaml", text);
		mhlScenario *s;

		mhlErrorReset();
		s = mhlScenarioLoad(path);

		if (s || !strstr(mhlErrorLast(), bad[i].want)) {
			unitDiag("'%s': %s", bad[i].yaml, s ? "loaded" : mhlErrorLast());
			mhlScenarioFree(s);
			return unitExpect(false);
		}
	}
	return true;
}

static bool slabGrowthOrder(void)
{
	g_autoptr(json_object) a = json_tokener_parse(
		"{\"k1\":[10,16,1024,16384],\"k2\":[10,16,2048,32768],\"gone\":[5,8,64,4096]}");
	g_autoptr(json_object) b = json_tokener_parse(
		"{\"k1\":[20,32,1024,32768],\"k2\":[13,16,2048,32768],\"new\":[1,64,64,4096],\"k3\":[1,1,8,4096]}");
	g_autoptr(json_object) g = mhlSoakSlabGrowth(a, b, 2);

	/* by bytes of objects: k1 10 x 1 KiB, k2 3 x 2 KiB, new 1 x 64; at most 2 */
	return unitExpect(json_object_array_length(g) == 2 &&
			  !strcmp(mhlJStr(json_object_array_get_idx(g, 0), "name", ""), "k1") &&
			  mhlJInt(json_object_array_get_idx(g, 0), "bytes", 0) == 10240 &&
			  mhlJInt(json_object_array_get_idx(g, 0), "slab_bytes", 0) == 16384 &&
			  !strcmp(mhlJStr(json_object_array_get_idx(g, 1), "name", ""), "k2") &&
			  mhlJInt(json_object_array_get_idx(g, 1), "objects", 0) == 3);
}

static const unitCase cases[] = {
	{ "soak: --duration 90s, 30m, 8h, 1h30m, 2d parse; 8x, empty, 0 do not", durations },
	{ "soak: the test scenarios load", scenariosLoad },
	{ "soak: a cycle's schedule depends on (seed, cycle) only", dependsOnSeedAndCycle },
	{ "soak: another seed gives another schedule", seedVaries },
	{ "soak: 200 cycles pin 2 MiB..1/8 of a device node and unplug it to 0..1/2 in blocks", bounded },
	{ "soak: seed 7's cycle 1 is docs/soak.md's (node 2, gup, 26 MiB, to 54 MiB)", seven },
	{ "soak: a guest without a virtio-mem device is refused", noDeviceRefused },
	{ "soak: SUnreclaim growing 40 KiB/cycle (a cycle a minute) is one trend finding at cycle 15 (5 of warm-up, 10 fitted) naming kmalloc-2k", seriesLeakFlagged },
	{ "soak: a flat series swinging +-30 kB is no finding; a host series leaves out its first 5 minutes",
	  seriesFlatNotFlagged },
	{ "soak: soak: {leak, every, budgets} load; 1000 B/cycle is under the default budget, over 1 MiB/24 h",
	  seriesBudgetScenario },
	{ "series: QEMU's RSS judged apart: the guest's RAM growing within its size is no finding, past it one; QEMU's own over budget one",
	  seriesQemuApart },
	{ "series: a trend raised early is withdrawn when the whole series no longer projects over budget; the end keeps none",
	  seriesWithdrawn },
	{ "series: the orchestrator's RSS growing 4 KiB/cycle (5.6 MiB in 24 h, under its 64 MiB budget) is a finding all the same at cycle 15",
	  seriesOrchestratorAnyGrowth },
	{ "series: guest free memory falling 8 MB/cycle is a finding on its harmful side; rising as fast is none",
	  seriesFreeFalling },
	{ "series: 60000 checkpoints keep no point per cycle (Theil-Sen's at most MHL_SOAK_SEN_KEEP) and fit the same slopes",
	  seriesBounded },
	{ "soak: an unknown leak, every 0, an unknown series, a budget that is no size or judge_after 0 is refused", soakKeysRefused },
	{ "soak: the slab caches grown, by bytes of objects, at most N", slabGrowthOrder },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitSoak = UNIT_MODULE("soak", soakSetup, soakTeardown, tables);
