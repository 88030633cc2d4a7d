/*
 * soak.c - `memhp-lab soak SCENARIO --duration D [--seed N]`: one long-lived
 * guest of the scenario's shape (guest/session.c, as a trial boots it) runs a
 * seeded schedule of cycles (schedule.c). A cycle is trial steps (trial/) on
 * that guest: pin a random size with a random workload on a random device
 * node, resize that node down, check and release the pin, resize it back.
 * After every cycle one checkpoint line is appended to
 * RUN_DIR/checkpoints.jsonl with one write + fsync (checkpoint.c): what was
 * asked and reached, guest free memory, slab, FOLL_PIN counters, orchestrator
 * RSS, and the findings of the cycle. `--resume RUN_DIR` boots a new guest
 * and continues at the cycle after the last checkpoint. docs/soak.md.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include "soak/soak-int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "guest/session.h"
#include "host/accel.h"
#include "host/identity.h"
#include "host/kernel.h"
#include "host/session.h"
#include "mhl-exit.h"
#include "scenario/names.h"
#include "trial/steps.h"
#include "trial/trial.h"
#include "util.h"

#define UNPLUG_DEADLINE	30	/* s: a shrink under the series converges in a few */
#define REPLUG_DEADLINE	60
#define GROWTH_SLACK	(64LL << 20)	/* guest free memory may dip this much below cycle 1 */

/* ---- one guest ---- */

typedef struct {
	mhlGuest *g;
	const mhlScenario *s;
	mhlConsoleScanner scan;	/* the console read so far (by length: a NUL hides nothing) */
	size_t console_seen;	/* kernel reports already turned into findings */
	bool console_omitted;	/* said once that reports beyond the kept ones were not kept */
	json_object *findings;	/* this cycle's */
	double t0;		/* the soak's time origin (monotonic), resumes included */
	const char *outdir;	/* the run directory, whose size is a series */
	bool kmemleak;		/* the kernel has kmemleak: scanned after boot and at the end */
	int segment;		/* this guest's, for its kmemleak report's file name */
	mhlSoakSeries series;	/* this guest's memory series (series.c) */
	int cycles_here;	/* checkpoints of this guest */
} mhlSoak;

static void finding(mhlSoak *k, int cycle, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finding(mhlSoak *k, int cycle, const char *kind, const char *fmt, ...)
{
	json_object *f = json_object_new_object();
	g_autofree char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	json_object_object_add(f, MHL_K_T, json_object_new_double(mhlNow() - k->t0));
	json_object_object_add(f, MHL_K_CYCLE, json_object_new_int(cycle));
	json_object_object_add(f, MHL_K_KIND, json_object_new_string(kind));
	json_object_object_add(f, MHL_K_TEXT, json_object_new_string(text));
	json_object_array_add(k->findings, f);
}

static gint64 vmstat(json_object *snap, const char *key)
{
	g_autofree char *path = g_strdup_printf("vmstat.%s", key);

	return mhlJInt(snap, path, -1);
}

static long selfRssKib(void)
{
	g_autofree char *text = NULL;
	const char *p;
	long kib = -1;

	if (g_file_get_contents("/proc/self/status", &text, NULL, NULL) && (p = strstr(text, "VmRSS:")))
		sscanf(p, "VmRSS: %ld", &kib);
	return kib;
}

/* Bytes of the regular files under @dir (the run directory: a series), at most 4 levels deep. */
static gint64 dirBytes(const char *dir, int depth)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	gint64 sum = 0;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		GStatBuf sb;

		if (g_lstat(path, &sb) < 0)
			continue;
		if (S_ISREG(sb.st_mode))
			sum += sb.st_size;
		else if (S_ISDIR(sb.st_mode) && depth < 4)
			sum += dirBytes(path, depth + 1);
	}
	return sum;
}

/* Kernel reports on the console since the last call become findings. */
static void consoleFindings(mhlSoak *k, int cycle)
{
	size_t i, kept;

	if (mhlConsoleScanFile(&k->scan, k->g->console, false) < 0)
		return;
	kept = json_object_array_length(k->scan.findings);
	for (i = k->console_seen; i < kept; i++) {
		json_object *e = json_object_array_get_idx(k->scan.findings, i);

		finding(k, cycle, "kernel_report", "%s (%s:%d)", mhlJStr(e, MHL_K_TEXT, ""),
			k->g->console, (int)mhlJInt(e, MHL_K_LINE, 0));
	}
	k->console_seen = kept;
	if (k->scan.count > (gint64)kept && !k->console_omitted) {
		finding(k, cycle, "kernel_report", "more than %zu kernel reports on %s: the rest are counted, not kept",
			kept, k->g->console);
		k->console_omitted = true;
	}
}

/* ---- a cycle: trial steps on the soak's guest ---- */

/*
 * Run @st as a trial runs it; its result in *res (owned by t->steps).
 * Returns the step's status; *gone when the guest could not carry it out.
 */
static int cycleStep(mhlTrial *t, const mhlStep *st, json_object **res, bool *gone)
{
	int rc;

	*res = json_object_new_object();
	json_object_array_add(t->steps, *res);
	mhlAgentFailedReset();
	rc = mhlStepRun(t, st, *res);
	if (rc < 0 && (mhlAgentFailedReset() || !mhlGuestAlive(t->g)))
		*gone = true;
	return rc;
}

/* Pin c's size with c's workload; whether a holder now holds it. */
static bool cyclePin(mhlSoak *k, mhlTrial *t, const mhlSoakCycle *c, const char *id,
		     json_object *out, bool *gone)
{
	json_object *res;
	mhlStep st;
	bool ok;
	int rc;

	mhlStepInit(&st, MHL_STEP_PIN, 0);
	g_strlcpy(st.id, id, sizeof(st.id));
	g_strlcpy(st.workload, c->workload, sizeof(st.workload));
	st.size = c->pin_bytes;
	st.node = c->node;
	rc = cycleStep(t, &st, &res, gone);
	if (*gone)
		return false;
	ok = json_object_get_boolean(mhlJ(res, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_OK)));
	json_object_object_add(out, MHL_K_PIN_OK, json_object_new_boolean(ok));
	if (rc < 0)
		finding(k, c->cycle, ok ? "pin_in_movable" : "pin_failed", "%s", mhlErrorLast());
	mhlErrorReset();
	return ok;
}

/* Resize c's node to @bytes; where it got in *reached. -1 when the guest is gone. */
static int cycleResize(mhlTrial *t, const mhlSoakCycle *c, uint64_t bytes, double deadline,
		       unsigned long long *reached, bool *converged, json_object **res, bool *gone)
{
	mhlStep st;

	mhlStepInit(&st, MHL_STEP_RESIZE, 0);
	st.node = c->node;
	st.requested = bytes;
	st.deadline = deadline;
	st.measure = true;	/* stopping short is a finding of the cycle, not the end of the soak */
	if (cycleStep(t, &st, res, gone) < 0) {
		*gone = true;
		return -1;
	}
	*reached = (unsigned long long)mhlJInt(*res, MHL_K_REACHED_BYTES, 0);
	*converged = json_object_get_boolean(mhlJ(*res, MHL_K_CONVERGED));
	return 0;
}

/* The unplug of the cycle, into the checkpoint's outcome. */
static void cycleUnplug(mhlSoak *k, mhlTrial *t, const mhlSoakCycle *c, json_object *out, bool *gone)
{
	unsigned long long reached = 0;
	json_object *res;
	bool conv;

	if (cycleResize(t, c, c->requested_bytes, UNPLUG_DEADLINE, &reached, &conv, &res, gone) < 0)
		return;
	json_object_object_add(out, MHL_K_REACHED_BYTES, json_object_new_int64((int64_t)reached));
	json_object_object_add(out, MHL_K_CONVERGED, json_object_new_boolean(conv));
	json_object_object_add(out, MHL_K_SECONDS_TO_CONVERGE,
			       json_object_get(mhlJ(res, MHL_K_SECONDS_TO_CONVERGE)));
	if (!conv && !mhlInterrupted)
		finding(k, c->cycle, "unplug_not_converged",
			"node %d stopped at %llu bytes, not the requested %" G_GUINT64_FORMAT ", after %d s",
			c->node, reached, c->requested_bytes, UNPLUG_DEADLINE);
}

/* Check the pinned buffer, then release it: the data must be intact. */
static void cycleHolder(mhlSoak *k, mhlTrial *t, const mhlSoakCycle *c, const char *id,
			json_object *out, bool *gone)
{
	static const mhlStepType kinds[] = { MHL_STEP_CHECK, MHL_STEP_RELEASE };
	static const char *const keys[] = { MHL_K_PATTERN_OK_AFTER_RESIZE, MHL_K_PATTERN_OK_AT_RELEASE };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(kinds) && !*gone; i++) {
		json_object *res;
		mhlStep st;
		bool ok;

		mhlStepInit(&st, kinds[i], 0);
		g_strlcpy(st.id, id, sizeof(st.id));
		cycleStep(t, &st, &res, gone);
		if (*gone)
			return;
		mhlErrorReset();
		ok = json_object_get_boolean(mhlJ(res, MHL_PATH(MHL_K_WORKLOAD, MHL_K_PATTERN_OK)));
		json_object_object_add(out, keys[i], json_object_new_boolean(ok));
		if (!ok) {
			const char *w = json_object_to_json_string(mhlJ(res, MHL_K_WORKLOAD));

			/* guest text: 300 bytes at most, never half a character */
			finding(k, c->cycle, "pattern", "%s of pin %s: %.*s", i ? "release" : "check", id,
				mhlTextCutLen(w, 300), w);
		}
	}
}

/* Plug the node back to its full size. */
static void cycleReplug(mhlSoak *k, mhlTrial *t, const mhlSoakCycle *c, json_object *out, bool *gone)
{
	unsigned long long replugged = 0;
	json_object *res;
	bool conv;

	if (cycleResize(t, c, c->full_bytes, REPLUG_DEADLINE, &replugged, &conv, &res, gone) < 0)
		return;
	json_object_object_add(out, MHL_K_REPLUGGED_BYTES, json_object_new_int64((int64_t)replugged));
	if (!conv && !mhlInterrupted)
		finding(k, c->cycle, "replug_not_converged",
			"node %d stopped at %llu bytes on the way back to %" G_GUINT64_FORMAT, c->node,
			replugged, c->full_bytes);
}

/* Whether cycle @c's checkpoint drops the guest's caches first and reads slabinfo. */
static bool cycleDrops(const mhlSoak *k, const mhlSoakCycle *c)
{
	return !k->cycles_here || c->cycle % k->s->soak_every == 0;
}

/*
 * The guest kernel's memory @km (mhlGuestKernelMem's, read after dropping
 * the caches when @drop; NULL: the reading failed, mhlErrorLast says why),
 * online blocks against plugged bytes, QEMU's RSS and the run directory's
 * size into the counters @cn; the checkpoint's point added to the series,
 * which are judged after a drop.
 */
static void cycleKernelMem(mhlSoak *k, const mhlSoakCycle *c, json_object *cp, json_object *cn,
			   bool last, bool drop, json_object *km)
{
	gint64 boot = 0, plugged = 0;
	mhlHostSample hs;
	bool sized = true;
	int i;

	if (!km) {
		finding(k, c->cycle, "kernel_memory", "%s", mhlErrorLast() ? mhlErrorLast() : "no reply");
		mhlErrorReset();
		drop = false;
	} else {
		json_object_object_foreach(mhlJ(km, MHL_K_MEMINFO), key, v)
			json_object_object_add(cn, key, json_object_get(v));
		for (i = 0; i < k->s->nnodes; i++) {
			unsigned long long size = 0, req = 0;

			boot += (gint64)k->s->nodes[i].memory;
			if (k->s->nodes[i].vmem_size && mhlGuestVirtioMemSize(k->g->dom, i, &size, &req) < 0)
				sized = false;
			plugged += (gint64)size;
		}
		mhlErrorReset();
		json_object_object_add(cn, MHL_K_ONLINE_BLOCKS, json_object_get(mhlJ(km, MHL_K_ONLINE_BLOCKS)));
		json_object_object_add(cn, MHL_K_BLOCK_BYTES, json_object_get(mhlJ(km, MHL_K_BLOCK_BYTES)));
		if (sized) {
			json_object_object_add(cn, MHL_K_PLUGGED_BYTES, json_object_new_int64(plugged));
			json_object_object_add(cn, MHL_K_ONLINE_GAP_BYTES, json_object_new_int64(
				mhlJInt(km, MHL_K_ONLINE_BLOCKS, 0) * mhlJInt(km, MHL_K_BLOCK_BYTES, 0) - boot - plugged));
		}
	}
	if (k->g->hm_open && mhlHostMemSample(&k->g->hm, &hs) == 0 && hs.qemu_rss >= 0) {
		json_object_object_add(cn, MHL_K_QEMU_RSS_BYTES, json_object_new_int64(hs.qemu_rss));
		/* QEMU's own memory apart from the guest's RAM and TCG's translated code */
		if (hs.guest_ram >= 0 && hs.tcg_code >= 0 && hs.guest_ram + hs.tcg_code <= hs.qemu_rss) {
			json_object_object_add(cn, MHL_K_GUEST_RAM_BYTES, json_object_new_int64(hs.guest_ram));
			json_object_object_add(cn, MHL_K_TCG_CODE_BYTES, json_object_new_int64(hs.tcg_code));
			json_object_object_add(cn, MHL_K_QEMU_OWN_BYTES,
					       json_object_new_int64(hs.qemu_rss - hs.guest_ram - hs.tcg_code));
		}
	}
	mhlErrorReset();
	json_object_object_add(cn, MHL_K_RUN_DIR_BYTES, json_object_new_int64(dirBytes(k->outdir, 0)));
	if (drop) {
		json_object_object_add(cp, MHL_K_DROPPED, json_object_new_boolean(true));
		json_object_object_add(cp, MHL_K_SLABINFO, json_object_get(mhlJ(km, MHL_K_SLABINFO)));
	}
	mhlSoakSeriesAdd(&k->series, c->cycle, mhlNow() - k->t0, cn, drop,
			 drop ? mhlJ(km, MHL_K_SLABINFO) : NULL);
	k->cycles_here++;
	if (!last)	/* every checkpoint judges every series again, with all its points */
		mhlSoakSeriesJudge(&k->series, k->s, c->cycle, mhlNow() - k->t0, k->findings, NULL, false);
}

/* soak.leak: one more kernel object kept alive in the guest (memhp-pin leak). */
static void cycleLeak(mhlSoak *k, const mhlSoakCycle *c, json_object *out)
{
	const char *const argv[] = { "/bin/memhp-pin", "leak", "--id", "leak", "--what", k->s->soak_leak, NULL };
	g_autoptr(json_object) res = NULL;
	const char *why;
	int code = -1;

	res = mhlAgentExecJSON(k->g->dom, argv, 60, &code);
	if (res && code == 0 && json_object_is_type(mhlJ(res, MHL_PIN_K_HELD), json_type_int)) {
		json_object_object_add(out, MHL_K_LEAK_HELD, json_object_new_int64(mhlJInt(res, MHL_PIN_K_HELD, 0)));
		return;
	}
	why = res ? json_object_to_json_string(res) : mhlErrorLast();
	finding(k, c->cycle, "leak_injection", "memhp-pin leak --what %s: %.*s", k->s->soak_leak,
		mhlTextCutLen(why, 300), why);
	mhlErrorReset();
}

/* The guest's counters after the cycle, every pin released. -1 when the guest is gone. */
static int cycleCounters(mhlSoak *k, const mhlSoakCycle *c, json_object *cp)
{
	bool drop = cycleDrops(k, c);
	g_autoptr(json_object) km = NULL;
	g_autoptr(json_object) snap = mhlGuestCycleMem(k->g->dom, drop, &km);
	json_object *cn, *zi;
	gint64 acq, rel, freep = 0;
	size_t i;

	if (!snap)
		return -1;
	cn = json_object_new_object();
	acq = vmstat(snap, MHL_K_NR_FOLL_PIN_ACQUIRED);
	rel = vmstat(snap, MHL_K_NR_FOLL_PIN_RELEASED);
	for (i = 0; (zi = mhlJ(snap, MHL_K_ZONEINFO)) && i < json_object_array_length(zi); i++)
		freep += mhlJInt(json_object_array_get_idx(zi, i), MHL_K_FREE, 0);
	json_object_object_add(cn, MHL_K_NR_FOLL_PIN_ACQUIRED, json_object_new_int64(acq));
	json_object_object_add(cn, MHL_K_NR_FOLL_PIN_RELEASED, json_object_new_int64(rel));
	json_object_object_add(cn, MHL_K_PINS_OUTSTANDING, json_object_new_int64(acq - rel));
	json_object_object_add(cn, MHL_K_FREE_BYTES, json_object_new_int64(freep * 4096));
	json_object_object_add(cn, MHL_K_SLAB_BYTES, json_object_new_int64(
		(vmstat(snap, MHL_K_NR_SLAB_RECLAIMABLE) + vmstat(snap, MHL_K_NR_SLAB_UNRECLAIMABLE)) * 4096));
	json_object_object_add(cn, MHL_K_ORCHESTRATOR_RSS_KIB, json_object_new_int64(selfRssKib()));
	json_object_object_add(cp, MHL_K_COUNTERS, cn);
	cycleKernelMem(k, c, cp, cn, false, drop, km);
	if (acq < 0 || rel < 0)
		finding(k, c->cycle, "pin_counters", "no nr_foll_pin_acquired/released in the guest's /proc/vmstat");
	else if (acq != rel)
		finding(k, c->cycle, "pin_counters",
			"with every pin released, nr_foll_pin_acquired %" G_GINT64_FORMAT " != nr_foll_pin_released %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " pages leaked)",
			acq, rel, acq - rel);
	return 0;
}

/*
 * One cycle of the schedule; its checkpoint in @cp. Returns -1 when the
 * guest can no longer be used (the soak ends), 0 otherwise.
 */
static int cycleRun(mhlSoak *k, const mhlSoakCycle *c, json_object *cp)
{
	g_autoptr(json_object) steps = json_object_new_array();
	/* the host side is the checkpoint's qemu_rss_bytes, the online blocks its counters, read after the cycle */
	mhlTrial t = { .s = k->s, .g = k->g, .steps = steps, .bare_resize = true };
	json_object *out = json_object_new_object();
	g_autofree char *id = g_strdup_printf("c%d", c->cycle);
	bool gone = false;

	mhlSummaryInit(&t.sum);
	json_object_object_add(cp, MHL_K_OUTCOME, out);
	if (cyclePin(k, &t, c, id, out, &gone) && !gone) {
		cycleUnplug(k, &t, c, out, &gone);
		if (!gone)
			cycleHolder(k, &t, c, id, out, &gone);
	} else if (!gone) {
		cycleUnplug(k, &t, c, out, &gone);
	}
	if (!gone)
		cycleReplug(k, &t, c, out, &gone);
	if (!gone && k->s->soak_leak[0])
		cycleLeak(k, c, out);
	if (gone || cycleCounters(k, c, cp) < 0) {
		finding(k, c->cycle, "guest_gone", "%s", mhlErrorLast() ? mhlErrorLast() : "the guest is gone");
		mhlErrorReset();
		consoleFindings(k, c->cycle);
		return -1;
	}
	consoleFindings(k, c->cycle);
	return 0;
}

/*
 * Memory growth within one guest: guest free memory swings by tens of MiB
 * from cycle to cycle (per-CPU lists, page cache, migrated pages freed
 * later), so the mean of the last MEM_WINDOW checkpoints is compared with
 * that of the first MEM_WINDOW; the orchestrator's RSS with its first.
 * Each is reported once per guest. Only the two windows are kept: a
 * checkpoint's reading leaves the last window when the next MEM_WINDOW came.
 */
#define MEM_WINDOW 10

typedef struct {
	guint n;		/* this guest's checkpoints so far */
	double first_sum;	/* free bytes of the first MEM_WINDOW */
	gint64 last[MEM_WINDOW];	/* free bytes of the last MEM_WINDOW, checkpoint i at i % MEM_WINDOW */
	gint64 rss0_kib;
	bool free_told, rss_told;
} mhlSoakMem;

static double lastMean(const mhlSoakMem *m)
{
	double sum = 0;
	guint i;

	for (i = 0; i < MEM_WINDOW; i++)
		sum += (double)m->last[i];
	return sum / MEM_WINDOW;
}

static void memoryFindings(mhlSoak *k, mhlSoakMem *m, int cycle, gint64 free_bytes, gint64 rss_kib)
{
	if (m->n < MEM_WINDOW)
		m->first_sum += (double)free_bytes;
	m->last[m->n % MEM_WINDOW] = free_bytes;
	if (++m->n == 1)
		m->rss0_kib = rss_kib;
	if (!m->free_told && m->n >= 2 * MEM_WINDOW) {
		double first = m->first_sum / MEM_WINDOW;
		double last = lastMean(m);

		if (first - last > GROWTH_SLACK) {
			finding(k, cycle, "guest_memory",
				"guest free memory averaged %.0f MiB over the last %d checkpoints, %.0f MiB below the first %d's",
				last / (1 << 20), MEM_WINDOW, (first - last) / (1 << 20), MEM_WINDOW);
			m->free_told = true;
		}
	}
	if (!m->rss_told && rss_kib > 2 * m->rss0_kib + 16384) {
		finding(k, cycle, "orchestrator_memory",
			"orchestrator RSS %" G_GINT64_FORMAT " KiB, at this guest's first checkpoint %" G_GINT64_FORMAT " KiB",
			rss_kib, m->rss0_kib);
		m->rss_told = true;
	}
}

/* ---- the run ---- */

/* What a soak segment works from: the soak (new or resumed) and where it stands. */
typedef struct {
	mhlScenario *s;
	json_object *meta;	/* soak.json */
	json_object *identity;	/* the kernel's */
	char *image;
	char *initrd;		/* the guest image: the lab's, Debian's, with the kernel's modules (mhlInitrdFor) */
	char *outdir;
	char *cppath;		/* checkpoints.jsonl */
	guint64 seed;
	double duration;	/* 0: until cycles_max */
	int cycles_max;		/* 0: no limit */
	int segment;		/* this one: 0 for a new soak, one more than the last checkpoint's */
	mhlSoakState st;
	/* this segment's findings, for the record */
	json_object *first_finding;
	json_object *kernel_reports;
	json_object *soak;	/* the record's soak: {trends, slab_growth, end, findings} (soakEnd) */
	json_object *host_facts;	/* the record's host: the backing, the pool grown (mhlTrialHostFacts) */
	json_object *host_identity;	/* the record's host_identity: libvirt, QEMU, the host kernel */
	int ran;		/* cycles run in this segment */
	int lock_fd;		/* soak.json, flock'ed for the whole soak (mhlSoakLock); -1 */
	bool recorded;		/* the soak's record is in trials.jsonl */
	double seg_start, t_last;
	/* a fleet host's guest (o->host): the kernel and image as uploaded there */
	mhlFleetHost *host;
	char *guest_kernel, *guest_initrd;
	char *lost;		/* the host went away during the segment: why, naming it */
	const char *tag;	/* o->tag */
	int first_cycle;	/* this segment's first */
} mhlSoakPlan;

static void planClear(mhlSoakPlan *p)
{
	mhlScenarioFree(p->s);
	json_object_put(p->meta);
	json_object_put(p->identity);
	json_object_put(p->first_finding);
	json_object_put(p->kernel_reports);
	json_object_put(p->soak);
	json_object_put(p->host_facts);
	json_object_put(p->host_identity);
	g_free(p->image);
	g_free(p->initrd);
	g_free(p->outdir);
	g_free(p->cppath);
	g_free(p->guest_kernel);
	g_free(p->guest_initrd);
	g_free(p->lost);
	if (p->lock_fd >= 0)
		close(p->lock_fd);	/* the soak lock goes with it */
}

static int printSchedule(const mhlScenario *s, guint64 seed, int cycles)
{
	g_autoptr(json_object) arr = json_object_new_array();
	int c;

	if (cycles < 1) {
		mhlError("soak: --print-schedule needs --cycles N");
		return MHL_EXIT_USAGE;
	}
	for (c = 1; c <= cycles; c++) {
		mhlSoakCycle sc;

		if (mhlSoakSchedule(s, seed, c, &sc) < 0)
			return MHL_EXIT_USAGE;
		json_object_array_add(arr, mhlSoakCycleJSON(&sc));
	}
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
	return MHL_EXIT_PASS;
}

/*
 * A soak's directory is written into as a run's is: ours alone, or a link
 * or file could be put into it between two writes (mhlRunDirTrusted). -1 +
 * mhlError.
 */
static int soakDirTrusted(const char *dir)
{
	mhl_autofd int fd = mhlDirOpen(dir);

	if (fd < 0) {
		mhlError("soak: directory '%s': %s", dir,
			 errno == ELOOP || errno == ENOTDIR ? "not a directory" : g_strerror(errno));
		return -1;
	}
	return mhlRunDirTrusted(fd, dir, "soak");
}

/* -o DIR, or results/soak-<scenario>-<time>, absolute. */
static char *soakDir(const mhlSoakOptions *o, const mhlScenario *s)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	g_autofree char *rel = g_strdup_printf("results/soak-%s-%s", s->scenario_name, stamp);

	return g_canonicalize_filename(o->outdir ? o->outdir : rel, NULL);
}

/*
 * The stack the soak runs on (docs/stacks.md): @stack (--stack, or what
 * soak.json kept), else the scenario's; --uri and fleet hosts are daemons
 * of their own ("uri"), which a stack the lab builds cannot be. -1 + mhlError.
 */
static int soakStackSet(const mhlSoakOptions *o, mhlScenario *s, const char *stack)
{
	if (stack && mhlNameIndex(mhlStacks, stack) < 0 && strcmp(stack, MHL_STACK_URI)) {
		g_autofree char *known = mhlNamesKnown(mhlStacks);

		mhlError("soak: unknown stack '%s' (known: %s)", stack, known);
		return -1;
	}
	/* a soak that ran on a daemon and is resumed without one runs on the host's own */
	if (stack && !strcmp(stack, MHL_STACK_URI) && !o->uri && !o->host)
		stack = mhlStacks[MHL_STACK_DEBIAN].name;
	if (stack)
		g_strlcpy(s->stack, stack, sizeof(s->stack));
	if (!o->uri && !o->host)
		return 0;
	if (mhlStackOf(s->stack)->built) {
		mhlError("soak: '%s' runs on the %s stack, which memhp-lab starts itself; --uri, --host and --hosts name daemons of their own: give one or the other",
			 s->path, s->stack);
		return -1;
	}
	g_strlcpy(s->stack, MHL_STACK_URI, sizeof(s->stack));
	return 0;
}

/*
 * The soak to run: a new one from the options, or the one in --resume's
 * directory. Returns an exit status to return at once (--print-schedule,
 * bad input), or -1 to go on and run it.
 */
static int planLoad(const mhlSoakOptions *o, mhlSoakPlan *p)
{
	const char *scenario = o->scenario, *kernel = o->kernel, *stack = o->stack;
	mhlSoakCycle probe;

	p->seed = o->seed;
	p->duration = o->duration_s;
	p->cycles_max = o->cycles;
	if (o->resume) {
		p->outdir = g_canonicalize_filename(o->resume, NULL);
		if ((!o->print_schedule && soakDirTrusted(p->outdir) < 0) ||
		    (!o->print_schedule && (p->lock_fd = mhlSoakLock(p->outdir)) < 0) ||
		    !(p->meta = mhlSoakMetaLoad(p->outdir)))
			return MHL_EXIT_USAGE;
		scenario = mhlJStr(p->meta, MHL_K_SCENARIO, NULL);
		if (scenario && mhlSoakScenarioTrusted(o->untrusted ? o->untrusted : p->outdir, p->outdir, scenario) < 0)
			return MHL_EXIT_USAGE;
		p->seed = g_ascii_strtoull(mhlJStr(p->meta, MHL_K_SEED, "0"), NULL, 10);
		p->duration = mhlJDbl(p->meta, MHL_K_DURATION_S, 0);
		p->cycles_max = (int)mhlJInt(p->meta, MHL_K_CYCLES, 0);
		kernel = mhlJStr(p->meta, MHL_K_KERNEL_OPTION, NULL);
		stack = mhlJStr(p->meta, MHL_K_STACK_RUN, NULL);
	}
	if (!scenario || !(p->s = mhlScenarioLoad(scenario)))
		return MHL_EXIT_USAGE;
	if ((kernel && mhlScenarioOverride(p->s, kernel, NULL) < 0) || soakStackSet(o, p->s, stack) < 0)
		return MHL_EXIT_USAGE;
	if (o->print_schedule)
		return printSchedule(p->s, p->seed, p->cycles_max);
	if (mhlSoakSchedule(p->s, p->seed, 1, &probe) < 0 ||
	    !(p->image = mhlKernelResolve(p->s, o->cache, NULL, o->srcdir, &p->identity, NULL)))
		return MHL_EXIT_USAGE;
	if (!o->resume && (!(p->outdir = soakDir(o, p->s)) ||
			   !(p->meta = mhlSoakMetaCreate(p->outdir, p->s, scenario, p->seed, p->duration,
							 p->cycles_max, o->kernel)) || soakDirTrusted(p->outdir) < 0 ||
			   (p->lock_fd = mhlSoakLock(p->outdir)) < 0))
		return MHL_EXIT_USAGE;
	if (!o->print_schedule && !(p->initrd = mhlInitrdFor(p->s, p->identity, o->initrd, p->outdir)))
		return MHL_EXIT_USAGE;
	p->cppath = g_build_filename(p->outdir, "checkpoints.jsonl", NULL);
	if (mhlSoakCheckpointsLoad(p->cppath, &p->st) < 0)
		return MHL_EXIT_USAGE;
	if ((p->cycles_max && p->st.last_cycle >= p->cycles_max) ||
	    (p->duration > 0 && p->st.elapsed >= p->duration)) {
		mhlError("soak: '%s' is complete (%d cycles, %.0f of %.0f s); nothing to resume", p->outdir,
			 p->st.last_cycle, p->st.elapsed, p->duration);
		return MHL_EXIT_USAGE;
	}
	p->segment = p->st.last_cycle ? p->st.segment + 1 : 0;
	p->kernel_reports = json_object_new_array();
	return -1;
}

/* Whether the soak has time and cycles left. */
static bool planGoesOn(const mhlSoakPlan *p, const mhlSoak *k)
{
	return !mhlInterrupted && (p->duration <= 0 || mhlNow() - k->t0 < p->duration) &&
	       (!p->cycles_max || p->st.last_cycle < p->cycles_max);
}

/* One progress line per cycle, with what is left (time or cycles) and the last finding. */
static void cycleProgress(const mhlSoakPlan *p, const mhlSoak *k, const mhlSoakCycle *c, json_object *cp)
{
	size_t nf = json_object_array_length(k->findings);
	json_object *last = nf ? json_object_array_get_idx(k->findings, nf - 1) : p->first_finding;
	char left[32];

	if (p->duration > 0)
		snprintf(left, sizeof(left), "%.0f s", MAX(p->duration - p->st.elapsed, 0));
	else
		snprintf(left, sizeof(left), "%d cycle(s)", p->cycles_max - p->st.last_cycle);
	fprintf(stderr, "memhp-lab: soak%s%s: cycle %d: pin %" G_GUINT64_FORMAT " MiB %s node %d, unplug to %" G_GUINT64_FORMAT " MiB %s; %.0f s elapsed, %s left; %d finding(s)%s%s\n",
		p->tag ? " " : "", p->tag ? p->tag : "", c->cycle, c->pin_bytes >> 20, c->workload, c->node, c->requested_bytes >> 20,
		json_object_get_boolean(mhlJ(cp, MHL_PATH(MHL_K_OUTCOME, MHL_K_CONVERGED))) ?
		"reached" : "NOT reached", p->st.elapsed, left, p->st.findings,
		p->first_finding ? "; last: " : "", p->first_finding ? mhlJStr(last, MHL_K_TEXT, "") : "");
}

/* The cycle's findings into the soak's totals and the record's lists. */
static void cycleTally(mhlSoakPlan *p, const mhlSoak *k)
{
	size_t i;

	for (i = 0; i < json_object_array_length(k->findings); i++) {
		json_object *f = json_object_array_get_idx(k->findings, i);

		if (!mhlSoakFindingCounts(f))	/* a trend counts only when the last judgement keeps it (soakEnd) */
			continue;
		p->st.findings++;
		if (!p->first_finding)
			p->first_finding = json_object_get(f);
		if (!strcmp(mhlJStr(f, MHL_K_KIND, ""), "kernel_report"))
			json_object_array_add(p->kernel_reports, json_object_get(f));
	}
}

/*
 * Whether the soak's fleet host went away (docs/fleet.md): the failure it
 * caused is seen within moments (end of file), or by keepalive. Its reason
 * and @failed, what it made fail, in p->lost.
 */
static bool planHostLost(mhlSoakPlan *p, const char *failed)
{
	g_autofree char *lost = NULL;
	double until = mhlNow() + 2;

	if (!p->host)
		return false;
	while (!(lost = mhlFleetHostLost(p->host)) && mhlNow() < until)
		g_usleep(100 * 1000);
	if (!lost)
		return false;
	p->lost = g_strdup_printf("host '%s' went away during segment %d (%s); what failed: %s", p->host->uri,
				  p->segment, lost, failed && *failed ? failed : "?");
	return true;
}

/*
 * The next cycle and its checkpoint. Returns 0 to go on, 1 when the guest is
 * gone (the soak fails), -1 when the checkpoint cannot be written, -2 when a
 * signal came mid-cycle (no checkpoint: --resume redoes the cycle), -3 when
 * the fleet host went away (no checkpoint either: resumed elsewhere).
 */
static int soakCycle(mhlSoakPlan *p, mhlSoak *k, mhlSoakMem *mem, bool quiet)
{
	g_autoptr(json_object) cp = json_object_new_object();
	mhlSoakCycle c;
	double t = mhlNow();
	int r;

	mhlSoakSchedule(p->s, p->seed, p->st.last_cycle + 1, &c);
	json_object_put(k->findings);
	k->findings = json_object_new_array();
	json_object_object_add(cp, MHL_K_CYCLE, json_object_new_int(c.cycle));
	json_object_object_add(cp, MHL_K_SEGMENT, json_object_new_int(p->segment));
	json_object_object_add(cp, MHL_K_SCHEDULE, mhlSoakCycleJSON(&c));
	r = cycleRun(k, &c, cp);
	if (mhlInterrupted)
		return -2;
	if (r < 0 && planHostLost(p, mhlJStr(json_object_array_get_idx(k->findings,
			json_object_array_length(k->findings) - 1), MHL_K_TEXT, NULL)))
		return -3;
	if (r == 0)
		memoryFindings(k, mem, c.cycle, mhlJInt(cp, MHL_PATH(MHL_K_COUNTERS, MHL_K_FREE_BYTES), 0),
			       mhlJInt(cp, MHL_PATH(MHL_K_COUNTERS, MHL_K_ORCHESTRATOR_RSS_KIB), 0));
	json_object_object_add(cp, MHL_K_T, json_object_new_double(t - k->t0));
	json_object_object_add(cp, MHL_K_SECONDS, json_object_new_double(mhlNow() - t));
	json_object_object_add(cp, MHL_K_ELAPSED_S, json_object_new_double(mhlNow() - k->t0));
	json_object_object_add(cp, MHL_K_FINDINGS, json_object_get(k->findings));
	if (mhlRecordAppend(p->cppath, cp) < 0)
		return -1;
	p->st.last_cycle = c.cycle;
	p->st.segment = p->segment;
	p->st.elapsed = mhlNow() - k->t0;
	p->ran++;
	p->t_last = mhlNow();
	cycleTally(p, k);
	if (!quiet)
		cycleProgress(p, k, &c, cp);
	return r < 0 ? 1 : 0;
}

/* This segment's guest, booted as a trial's is (no timeline: a soak's would only grow). */
static mhlGuest *soakGuest(const mhlSoakOptions *o, const mhlSoakPlan *p, const char *accel)
{
	/* soaks over hosts run side by side in one process: their domain names differ by seed */
	g_autofree char *name = p->host ? g_strdup_printf("memhp-soak-s%" G_GUINT64_FORMAT "-%d-%d", p->seed,
							    (int)getpid(), p->segment) :
				g_strdup_printf("memhp-soak-%d-%d", (int)getpid(), p->segment);
	g_autofree char *console = g_strdup_printf("%s/soak-segment%d.console.log", p->outdir, p->segment);
	mhlGuestConfig gc = {
		.name = name, .console = console, .tmpl_path = o->tmpl,
		.kernel_image = p->guest_kernel ? p->guest_kernel : p->image,
		.initrd = p->guest_initrd ? p->guest_initrd : p->initrd, .accel = accel, .emulator = MHL_EMULATOR,
		.agent_deadline = o->agent_deadline, .timeline = false,
		.host_local = !p->host && (!o->uri || mhlUriLocal(o->uri)), .remote = p->host != NULL,
		.hugepage_kib = p->s->hugepage_size >> 10,
	};

	return mhlGuestNew(&gc);
}

/* ---- kmemleak (kernel: {debug: kmemleak}) ---- */

/* Whether the soak's kernel was built with kmemleak: its config, next to the bzImage or given. */
static bool kernelHasKmemleak(const mhlScenario *s, const char *image)
{
	g_autofree char *dir = g_path_get_dirname(image);
	g_autofree char *path = s->kernel_config && !strcmp(s->kernel, "prebuilt") ?
				g_strdup(s->kernel_config) : g_build_filename(dir, "config", NULL);
	g_autofree char *config = NULL;

	if (!g_file_get_contents(path, &config, NULL, NULL))
		return false;
	return mhlKconfigValue(config, "DEBUG_KMEMLEAK") == 'y';
}

/* After boot: what boot left behind is not the soak's (scan, then clear). */
static void kmemleakStart(mhlSoak *k)
{
	if (!k->kmemleak || mhlGuestKmemleakBaseline(k->g->dom) == 0)
		return;
	finding(k, 0, "kmemleak", "the scan after boot failed: %s", mhlErrorLast() ? mhlErrorLast() : "no reply");
	mhlErrorReset();
}

/*
 * At the end of this guest's cycles: two scans, the report kept in
 * kmemleak-segmentK.txt, its tally in the record's soak.kmemleak, and a
 * finding when an object became unreferenced during the soak.
 */
static void kmemleakEnd(mhlSoak *k, int cycle, json_object *soak)
{
	g_autofree char *name = g_strdup_printf("kmemleak-segment%d.txt", k->segment);
	g_autofree char *path = g_build_filename(k->outdir, name, NULL);
	g_autofree char *text = mhlGuestKmemleakReport(k->g->dom);
	json_object *tally, *top;

	if (!text) {
		finding(k, cycle, "kmemleak", "the scan at the end failed: %s",
			mhlErrorLast() ? mhlErrorLast() : "no reply");
		mhlErrorReset();
		return;
	}
	tally = mhlParseKmemleak(text);
	if (g_file_set_contents(path, text, -1, NULL))
		json_object_object_add(tally, MHL_K_REPORT, json_object_new_string(name));
	mhlErrorReset();
	json_object_object_add(soak, MHL_K_KMEMLEAK, tally);
	if (!mhlJInt(tally, MHL_K_OBJECTS, 0))
		return;
	top = json_object_array_get_idx(mhlJ(tally, MHL_K_SITES), 0);
	finding(k, cycle, "kmemleak",
		"kmemleak: %" G_GINT64_FORMAT " unreferenced object(s), %" G_GINT64_FORMAT
		" bytes, since the scan after boot; most from %s (%" G_GINT64_FORMAT " objects, %"
		G_GINT64_FORMAT " bytes); report %s", mhlJInt(tally, MHL_K_OBJECTS, 0),
		mhlJInt(tally, MHL_K_BYTES, 0), mhlJStr(top, MHL_K_SITE, "?"), mhlJInt(top, MHL_K_OBJECTS, 0),
		mhlJInt(top, MHL_K_BYTES, 0), name);
}

/* The trends the last judgement keeps raised: findings of the soak's verdict. */
static void soakFinalTrends(mhlSoakPlan *p, json_object *found)
{
	size_t i;

	for (i = 0; i < json_object_array_length(found); i++) {
		json_object *f = json_object_array_get_idx(found, i);

		if (strcmp(mhlJStr(f, MHL_K_KIND, ""), "trend"))
			continue;
		p->st.findings++;
		if (!p->first_finding)
			p->first_finding = json_object_get(f);
	}
}

/*
 * The end of this guest's cycles: when it still answers, its caches dropped
 * and its kernel memory and slabinfo read once more (a point after the last
 * checkpoint); every series judged; the trend table, the slab caches grown
 * and the findings of this last judgement into the record (p->soak).
 */
static void soakEnd(mhlSoakPlan *p, mhlSoak *k, bool alive)
{
	json_object *soak = json_object_new_object(), *trends = json_object_new_array();
	json_object *found = json_object_new_array();
	size_t i;

	json_object_put(k->findings);
	k->findings = json_object_new_array();
	if (alive && k->cycles_here) {
		json_object *end = json_object_new_object(), *cn = json_object_new_object();
		mhlSoakCycle c = { .cycle = p->st.last_cycle };

		g_autoptr(json_object) km = mhlGuestKernelMem(k->g->dom, true);	/* this last look always drops the caches */

		cycleKernelMem(k, &c, end, cn, true, true, km);
		json_object_object_add(end, MHL_K_CYCLE, json_object_new_int(c.cycle));
		json_object_object_add(end, MHL_K_T, json_object_new_double(mhlNow() - k->t0));
		json_object_object_add(end, MHL_K_COUNTERS, cn);
		json_object_object_add(soak, MHL_K_END, end);
		if (k->kmemleak)
			kmemleakEnd(k, c.cycle, soak);
	}
	for (i = 0; i < json_object_array_length(k->findings); i++)
		json_object_array_add(found, json_object_get(json_object_array_get_idx(k->findings, i)));
	mhlSoakSeriesJudge(&k->series, p->s, p->st.last_cycle, mhlNow() - k->t0, found, trends, true);
	json_object_object_add(soak, MHL_K_TRENDS, trends);
	json_object_object_add(soak, MHL_K_TREND_EVENTS, mhlSoakSeriesEvents(&k->series));
	json_object_object_add(soak, MHL_K_SLAB_GROWTH,
			       mhlSoakSlabGrowth(k->series.slab_first, k->series.slab_last,
						  MHL_SOAK_SLAB_ROWS));
	json_object_object_add(soak, MHL_K_SLAB_FIRST_CYCLE, json_object_new_int(k->series.slab_first_cycle));
	json_object_object_add(soak, MHL_K_SLAB_LAST_CYCLE, json_object_new_int(k->series.slab_last_cycle));
	json_object_object_add(soak, MHL_K_FINDINGS, found);
	json_object_put(k->findings);
	k->findings = json_object_get(found);
	cycleTally(p, k);
	soakFinalTrends(p, found);
	json_object_put(p->soak);
	p->soak = soak;
}

/*
 * Boot the guest, run cycles while time and cycles are left, stop it. The
 * hugepage pool grown before the boot is given back right after the stop,
 * on every way out (a boot that failed, the guest or the host gone, a
 * signal), as a trial gives back its own (trial/trial.c). Exit status.
 */
static int soakSegment(const mhlSoakOptions *o, mhlSoakPlan *p, virConnectPtr conn, mhlGuest *g)
{
	mhlSoak k = { .g = g, .s = p->s, .t0 = mhlNow() - p->st.elapsed, .outdir = p->outdir,
		      .kmemleak = kernelHasKmemleak(p->s, p->image), .segment = p->segment };
	mhlSoakMem mem = { 0 };
	double boot_s, plug_s;
	mhlHugePool pool;
	int r = 0;

	k.findings = json_object_new_array();
	mhlSoakSeriesInit(&k.series);
	mhlConsoleScannerInit(&k.scan, MHL_CONSOLE_FINDINGS_MAX * 10);
	/* booted as a trial is: the hugepage pool first (trial/trial.h) */
	if (mhlTrialHugePool(p->s, &pool) < 0 || mhlGuestBoot(g, conn, p->s, &boot_s, &plug_s) < 0) {
		g_autofree char *failed = g_strdup(mhlErrorLast());

		/* no cycle ran: reported by main, and resumable; on a host gone, elsewhere */
		r = planHostLost(p, failed) ? -3 : -1;
	} else {
		json_object_put(p->host_facts);
		p->host_facts = mhlTrialHostFacts(g, p->s, &pool);
		kmemleakStart(&k);
	}
	p->seg_start = mhlNow();
	while (r == 0 && planGoesOn(p, &k))
		r = soakCycle(p, &k, &mem, o->quiet);
	if (!mhlInterrupted && (r == 0 || r == 1))
		soakEnd(p, &k, r == 0);
	mhlGuestStop(g);
	mhlHugePoolRestore(&pool);
	mhlSoakSeriesClear(&k.series);
	json_object_put(k.findings);
	mhlConsoleScannerClear(&k.scan);
	return r == 0 || r == -2 ? MHL_EXIT_PASS : r == 1 || r == -3 ? MHL_EXIT_FAILED : MHL_EXIT_USAGE;
}

/* The end of a segment: what to do next, the soak's record, the line on stdout. */
static int soakFinish(mhlSoakPlan *p, const char *accel, const char *console, int rc)
{
	double seg = p->t_last > p->seg_start ? p->t_last - p->seg_start : 0;

	if (mhlInterrupted) {
		fprintf(stderr, "memhp-lab: soak%s%s interrupted after cycle %d; continue with: memhp-lab soak --resume %s\n",
			p->tag ? " " : "", p->tag ? p->tag : "", p->st.last_cycle, p->outdir);
		return MHL_EXIT_INTERRUPTED;
	}
	if (p->lost) {
		mhlErrorReset();
		fprintf(stderr, "memhp-lab: soak%s%s: %s; it stops at its last checkpoint, cycle %d (%s)\n",
			p->tag ? " " : "", p->tag ? p->tag : "", p->lost, p->st.last_cycle, p->cppath);
		return MHL_EXIT_HARNESS;
	}
	if (rc == MHL_EXIT_USAGE) {
		if (!p->ran)
			fprintf(stderr, "memhp-lab: soak: no cycle ran in this segment; console %s; continue with: memhp-lab soak --resume %s\n",
				console, p->outdir);
		return MHL_EXIT_HARNESS;
	}
	if (mhlSoakRecord(&(mhlSoakRecordFacts){
			.outdir = p->outdir, .s = p->s, .meta = p->meta, .identity = p->identity,
			.host = p->host_facts, .accel = accel, .st = &p->st, .first_finding = p->first_finding,
			.kernel_reports = p->kernel_reports, .host_identity = p->host_identity, .soak = p->soak, .cycles_run_now = p->ran,
			.seg_seconds = seg }) < 0)
		return MHL_EXIT_HARNESS;
	p->recorded = true;
	printf("soak %s: %s: %d cycles in %.0f s (%d segment(s)), %d finding(s); %.0f cycles/hour in this segment\n  checkpoints: %s\n",
	       mhlJStr(p->meta, MHL_K_TRIAL, ""), p->st.findings ? "fail" : "pass", p->st.last_cycle,
	       p->st.elapsed, p->st.segment + 1, p->st.findings, seg > 0 ? p->ran * 3600.0 / seg : 0,
	       p->cppath);
	return p->st.findings || rc != MHL_EXIT_PASS ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}

/*
 * The session of a soak on this host: --uri's or the embedded driver's, or
 * for a stack the lab builds its daemon started (its root built if missing),
 * seeing the run directory, the kernel and the guest image. -1 + mhlError.
 */
static int soakSession(const mhlSoakOptions *o, mhlSoakPlan *p, mhlSession *ses)
{
	const mhlStack *st = mhlStackOf(p->s->stack);
	g_autofree char *root = NULL, *kdir = NULL, *idir = NULL;
	const char *show[4] = { p->outdir };
	mhlStackSpec spec = { .name = st->name, .srcdir = o->srcdir, .show = show };

	if (!st->built)
		return mhlSessionOpen(ses, o->uri, p->outdir, o->cache);
	if (!(root = mhlStackRoot(st->name, o->srcdir)))
		return -1;
	show[1] = kdir = g_path_get_dirname(p->image);
	show[2] = idir = g_path_get_dirname(p->initrd ? p->initrd : o->initrd);
	spec.root = root;
	return mhlSessionOpenStack(ses, &spec, p->outdir);
}

/*
 * Where the guest runs: on a fleet host, with the kernel and image uploaded
 * there (an upload that fails takes the host out, as for a run's trial:
 * the soak goes elsewhere); else the session of --uri or the embedded driver.
 */
static int soakConnect(const mhlSoakOptions *o, mhlSoakPlan *p, mhlSession *ses, virConnectPtr *conn)
{
	if (!p->host) {
		if (soakSession(o, p, ses) < 0)
			return -1;
		*conn = ses->conn;
		p->host_identity = mhlHostIdentityConn(*conn, mhlUriLocal(ses->uri));
		json_object_object_add(p->host_identity, MHL_K_STACK, json_object_new_string(p->s->stack));
		return 0;
	}
	*conn = p->host->conn;
	p->host_identity = mhlHostIdentityConn(*conn, false);
	json_object_object_add(p->host_identity, MHL_K_STACK, json_object_new_string(p->s->stack));
	if ((p->guest_kernel = mhlFleetUpload(p->host, p->image)) &&
	    (p->guest_initrd = mhlFleetUpload(p->host, p->initrd)))
		return 0;
	p->lost = g_strdup_printf("the kernel and guest image could not be uploaded, so the host takes no more soaks: %s",
				  mhlErrorLast());
	mhlFleetHostSetLost(p->host, mhlErrorLast());
	mhlErrorReset();
	return -1;
}

void mhlSoakOutcomeClear(mhlSoakOutcome *out)
{
	g_clear_pointer(&out->outdir, g_free);
	g_clear_pointer(&out->why, g_free);
}

static GMutex soakPlanLock;	/* planLoad and the accelerator's probe: soaks over hosts start at once */

int mhlSoakRunOutcome(const mhlSoakOptions *o, mhlSoakOutcome *out)
{
	mhlSoakPlan p = { .lock_fd = -1, .host = o->host, .tag = o->tag };
	g_autofree char *why = NULL;
	g_autoptr(mhlGuest) g = NULL;
	mhlSession ses = { 0 };
	virConnectPtr conn = NULL;
	const char *accel = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	g_mutex_lock(&soakPlanLock);
	if ((rc = planLoad(o, &p)) < 0)
		accel = mhlAccelChoose(MHL_EMULATOR, p.image, o->cache, o->quiet, &why);
	g_mutex_unlock(&soakPlanLock);
	out->outdir = g_strdup(p.outdir);
	out->first_cycle = p.first_cycle = p.st.last_cycle + 1;
	if (rc < 0) {
		mhlSignalsInstall();
		if (soakConnect(o, &p, &ses, &conn) < 0)
			rc = p.lost ? MHL_EXIT_FAILED : MHL_EXIT_USAGE;
	}
	if (rc < 0) {
		if (!o->quiet)
			fprintf(stderr, "memhp-lab: soak %s: seed %" G_GUINT64_FORMAT ", %s cycle %d, segment %d, %.0f s done of %.0f (0: until --cycles), %s (%s)%s%s, checkpoints %s\n",
				mhlJStr(p.meta, MHL_K_TRIAL, ""), p.seed, p.st.last_cycle ? "resuming at" : "starting at",
				p.st.last_cycle + 1, p.segment, p.st.elapsed, p.duration, accel, why,
				p.host ? ", on host " : "", p.host ? p.host->uri : "", p.cppath);
		g = soakGuest(o, &p, accel);
		rc = soakSegment(o, &p, conn, g);
		if (!p.host)
			mhlSessionClose(&ses);
		rc = soakFinish(&p, accel, g->console, rc);
	} else if (p.lost) {
		rc = soakFinish(&p, accel, NULL, rc);
	}
	out->recorded = p.recorded;
	out->host_lost = p.lost != NULL;
	out->why = g_strdup(p.lost);
	out->cycles = p.st.last_cycle;
	out->segment = p.segment;
	out->findings = p.st.findings;
	planClear(&p);
	return rc;
}

int mhlSoakRun(const mhlSoakOptions *o, char **outdir)
{
	mhlSoakOutcome out;
	int rc = mhlSoakRunOutcome(o, &out);

	*outdir = out.recorded ? g_steal_pointer(&out.outdir) : NULL;
	mhlSoakOutcomeClear(&out);
	return rc;
}
