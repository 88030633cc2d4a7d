/*
 * soak.c - `memhp-lab soak SCENARIO --duration D [--seed N]`: one long-lived
 * guest of the scenario's shape runs a seeded schedule of cycles (pin a
 * random size with a random workload on a random device node, unplug that
 * node to a random size, check and release the pin, plug it back), and after
 * every cycle one checkpoint line is appended to RUN_DIR/checkpoints.jsonl
 * with one write + fsync (mhlRecordAppend): what was asked and reached, pins
 * failed, guest free memory, slab, FOLL_PIN counters, orchestrator RSS, and
 * the findings of the cycle. Cycle k's schedule is a function of (seed, k)
 * only, so `--resume RUN_DIR` boots a new guest and continues at the cycle
 * after the last checkpoint with the same schedule. docs/soak.md.
 */
#include <glib.h>

#include "soak/soak.h"

#include <errno.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "guest/agent.h"
#include "guest/domain.h"
#include "guest/guest.h"
#include "host/kernel.h"
#include "record/record.h"
#include "reports/report.h"
#include "host/session.h"
#include "trial/trial.h"
#include "util.h"

#define EXIT_PASS	0
#define EXIT_FAILED	1
#define EXIT_USAGE	2

#define UNPLUG_DEADLINE	30	/* s: a shrink under the series converges in a few */
#define REPLUG_DEADLINE	60
#define GROWTH_SLACK	(64LL << 20)	/* guest free memory may dip this much below cycle 1 */

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

static const char *const soakWorkloads[] = { "gup", "io_uring" };

int mhlSoakSchedule(const mhlScenario *s, guint64 seed, int cycle, mhlSoakCycle *c)
{
	guint32 key[3] = { (guint32)seed, (guint32)(seed >> 32), (guint32)cycle };
	g_autoptr(GRand) r = g_rand_new_with_seed_array(key, G_N_ELEMENTS(key));
	int devs[MHL_MAX_NODES], ndevs = 0, i;
	const mhlNode *n;
	uint64_t blocks, pin_max;

	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].vmem_size && s->nodes[i].vmem_requested)
			devs[ndevs++] = i;
	if (!ndevs) {
		mhlError("soak: scenario '%s' has no node with a plugged virtio-mem device to resize",
			 s->path);
		return -1;
	}
	c->cycle = cycle;
	c->node = devs[g_rand_int_range(r, 0, ndevs)];
	n = &s->nodes[c->node];
	c->workload = soakWorkloads[g_rand_int_range(r, 0, G_N_ELEMENTS(soakWorkloads))];
	/* Pins of 2 MiB up to an eighth of the device, in 2 MiB steps. */
	pin_max = MAX(n->vmem_requested / 8, 2ULL << 20);
	c->pin_bytes = (uint64_t)g_rand_int_range(r, 1, (gint32)(pin_max >> 21) + 1) << 21;
	/* Unplug to 0 .. half of the plugged size, in device blocks. */
	blocks = n->vmem_requested / n->vmem_block;
	c->requested_bytes = (uint64_t)g_rand_int_range(r, 0, (gint32)(blocks / 2) + 1) * n->vmem_block;
	c->full_bytes = n->vmem_requested;
	return 0;
}

json_object *mhlSoakCycleJSON(const mhlSoakCycle *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, MHL_K_CYCLE, json_object_new_int(c->cycle));
	json_object_object_add(o, MHL_K_NODE, json_object_new_int(c->node));
	json_object_object_add(o, MHL_K_WORKLOAD, json_object_new_string(c->workload));
	json_object_object_add(o, "pin_bytes", json_object_new_int64((int64_t)c->pin_bytes));
	json_object_object_add(o, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)c->requested_bytes));
	json_object_object_add(o, "full_bytes", json_object_new_int64((int64_t)c->full_bytes));
	return o;
}

double mhlSoakDurationParse(const char *s)
{
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	while (*p) {
		char *end;
		double v = g_ascii_strtod(p, &end);

		if (end == p || v < 0)
			return -1;
		switch (*end) {
		case 's': case '\0': total += v; break;
		case 'm': total += v * 60; break;
		case 'h': total += v * 3600; break;
		case 'd': total += v * 86400; break;
		default: return -1;
		}
		p = *end ? end + 1 : end;
	}
	return total > 0 ? total : -1;
}

/* ---- one guest ---- */

typedef struct {
	virConnectPtr conn;
	virDomainPtr dom;
	const mhlScenario *s;
	char *console;
	size_t console_seen;	/* kernel reports already turned into findings */
	json_object *findings;	/* this cycle's */
	double t0;		/* the soak's time origin (monotonic), resumes included */
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

/* Set node's <requested>, wait for the plugged size; seconds, or -1 (not an error: *reached says where). */
static double resize(mhlSoak *k, int node, uint64_t bytes, double deadline,
		     unsigned long long *reached)
{
	g_autofree char *xml = virDomainGetXMLDesc(k->dom, 0), *dev = NULL;
	unsigned long long req;
	double start = mhlNow();

	if (!xml || !(dev = mhlVirtioMemUpdateXML(xml, node, bytes / 1024)) ||
	    virDomainUpdateDeviceFlags(k->dom, dev, VIR_DOMAIN_AFFECT_LIVE) < 0) {
		mhlErrorVirt("soak: cannot set node %d's virtio-mem <requested> to %" G_GUINT64_FORMAT " bytes",
			     node, bytes);
		return -2;
	}
	for (;;) {
		if (mhlGuestVirtioMemSize(k->dom, node, reached, &req) < 0)
			return -2;
		if (*reached == bytes)
			return mhlNow() - start;
		if (mhlInterrupted || mhlNow() - start > deadline)
			return -1;
		g_usleep(100 * 1000);
	}
}

static gint64 vmstat(json_object *snap, const char *key)
{
	json_object *vm, *v;

	return json_object_object_get_ex(snap, "vmstat", &vm) && json_object_object_get_ex(vm, key, &v) ?
	       json_object_get_int64(v) : -1;
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

/* Kernel reports on the console since the last call become findings. */
static void consoleFindings(mhlSoak *k, int cycle)
{
	g_autofree char *text = NULL;
	g_autoptr(json_object) f = NULL;
	size_t i;

	if (!g_file_get_contents(k->console, &text, NULL, NULL))
		return;
	f = mhlConsoleScan(text);
	for (i = k->console_seen; i < json_object_array_length(f); i++) {
		json_object *e = json_object_array_get_idx(f, i);

		finding(k, cycle, "kernel_report", "%s (%s:%d)",
			json_object_get_string(json_object_object_get(e, MHL_K_TEXT)), k->console,
			json_object_get_int(json_object_object_get(e, MHL_K_LINE)));
	}
	k->console_seen = json_object_array_length(f);
}

/*
 * One cycle of the schedule; its checkpoint in *cp. Returns -1 when the
 * guest can no longer be used (the soak ends), 0 otherwise.
 */
static int cycleRun(mhlSoak *k, const mhlSoakCycle *c, json_object *cp)
{
	char size[32], node[16], id[32];
	const char *pin[] = { "/bin/memhp-pin", c->workload, "--id", id, "--size", size, "--node", node, NULL };
	const char *check[] = { "/bin/memhp-pin", "ctl", id, "check", NULL };
	const char *release[] = { "/bin/memhp-pin", "ctl", id, "release", NULL };
	json_object *out = json_object_new_object(), *w, *v;
	unsigned long long reached = 0, replugged = 0;
	double secs, resecs;
	bool pinned = false;
	int ec;

	snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, c->pin_bytes);
	snprintf(node, sizeof(node), "%d", c->node);
	snprintf(id, sizeof(id), "c%d", c->cycle);
	json_object_object_add(cp, MHL_K_OUTCOME, out);
	if (!(w = mhlAgentExecJSON(k->dom, pin, 300, &ec)))
		goto gone;
	pinned = json_object_object_get_ex(w, MHL_K_OK, &v) && json_object_get_boolean(v);
	json_object_object_add(out, "pin_ok", json_object_new_boolean(pinned));
	if (!pinned)
		finding(k, c->cycle, "pin_failed", "pin of %s bytes (%s) on node %d failed: %s", size,
			c->workload, c->node, json_object_to_json_string(w));
	json_object_put(w);
	secs = resize(k, c->node, c->requested_bytes, UNPLUG_DEADLINE, &reached);
	if (secs < -1)
		goto gone;
	json_object_object_add(out, MHL_K_REACHED_BYTES, json_object_new_int64((int64_t)reached));
	json_object_object_add(out, MHL_K_CONVERGED, json_object_new_boolean(secs >= 0));
	json_object_object_add(out, MHL_K_SECONDS_TO_CONVERGE, secs >= 0 ? json_object_new_double(secs) : NULL);
	if (secs < 0 && !mhlInterrupted)
		finding(k, c->cycle, "unplug_not_converged",
			"node %d stopped at %llu bytes, not the requested %" G_GUINT64_FORMAT ", after %d s",
			c->node, reached, c->requested_bytes, UNPLUG_DEADLINE);
	if (pinned) {
		const char *const *verbs[] = { check, release };
		size_t i;

		for (i = 0; i < G_N_ELEMENTS(verbs); i++) {
			bool ok;

			if (!(w = mhlAgentExecJSON(k->dom, verbs[i], 120, &ec)))
				goto gone;
			ok = json_object_object_get_ex(w, MHL_K_PATTERN_OK, &v) && json_object_get_boolean(v);
			json_object_object_add(out, i ? "pattern_ok_at_release" : "pattern_ok_after_unplug",
					       json_object_new_boolean(ok));
			if (!ok)
				finding(k, c->cycle, "pattern", "%s of pin %s: %.300s", i ? "release" : "check",
					id, json_object_to_json_string(w));
			json_object_put(w);
		}
	}
	resecs = resize(k, c->node, c->full_bytes, REPLUG_DEADLINE, &replugged);
	if (resecs < -1)
		goto gone;
	json_object_object_add(out, "replugged_bytes", json_object_new_int64((int64_t)replugged));
	if (resecs < 0 && !mhlInterrupted)
		finding(k, c->cycle, "replug_not_converged",
			"node %d stopped at %llu bytes on the way back to %" G_GUINT64_FORMAT, c->node,
			replugged, c->full_bytes);
	{
		g_autoptr(json_object) snap = mhlGuestSnapshot(k->dom);
		json_object *cn = json_object_new_object(), *zi;
		gint64 acq, rel, freep = 0;
		size_t i;

		if (!snap)
			goto gone;
		acq = vmstat(snap, "nr_foll_pin_acquired");
		rel = vmstat(snap, "nr_foll_pin_released");
		for (i = 0; json_object_object_get_ex(snap, "zoneinfo", &zi) && i < json_object_array_length(zi); i++)
			freep += json_object_get_int64(json_object_object_get(json_object_array_get_idx(zi, i), "free"));
		json_object_object_add(cn, "nr_foll_pin_acquired", json_object_new_int64(acq));
		json_object_object_add(cn, "nr_foll_pin_released", json_object_new_int64(rel));
		json_object_object_add(cn, "pins_outstanding", json_object_new_int64(acq - rel));
		json_object_object_add(cn, "free_bytes", json_object_new_int64(freep * 4096));
		json_object_object_add(cn, "slab_bytes", json_object_new_int64(
			(vmstat(snap, "nr_slab_reclaimable") + vmstat(snap, "nr_slab_unreclaimable")) * 4096));
		json_object_object_add(cn, "orchestrator_rss_kib", json_object_new_int64(selfRssKib()));
		json_object_object_add(cp, MHL_K_COUNTERS, cn);
		if (acq < 0 || rel < 0)
			finding(k, c->cycle, "pin_counters", "no nr_foll_pin_acquired/released in the guest's /proc/vmstat");
		else if (acq != rel)
			finding(k, c->cycle, "pin_counters",
				"with every pin released, nr_foll_pin_acquired %" G_GINT64_FORMAT " != nr_foll_pin_released %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " pages leaked)",
				acq, rel, acq - rel);
	}
	consoleFindings(k, c->cycle);
	return 0;

gone:
	finding(k, c->cycle, "guest_gone", "%s", mhlErrorLast() ? mhlErrorLast() : "the guest is gone");
	mhlErrorReset();
	consoleFindings(k, c->cycle);
	return -1;
}

/* Boot the scenario's guest and wait for the agent and the initial plug. */
static int guestBoot(mhlSoak *k, const mhlSoakOptions *o, const char *image, const char *accel,
		     const char *name)
{
	g_autofree char *tmpl = mhlFileRead(o->tmpl, NULL), *xml = NULL;
	mhlDomainParams p = { .name = name, .accel = accel, .kernel = image, .initrd = o->initrd,
			      .console_log = k->console, .emulator = "/usr/bin/qemu-system-x86_64" };
	int i;

	if (!tmpl || !(xml = mhlDomainXMLBuild(tmpl, o->tmpl, k->s, &p)))
		return -1;
	unlink(k->console);
	if (!(k->dom = virDomainCreateXML(k->conn, xml, 0))) {
		mhlErrorVirt("soak: cannot start domain '%s' (template %s)", name, o->tmpl);
		return -1;
	}
	if (mhlAgentWait(k->dom, o->agent_deadline, k->console) < 0)
		return -1;
	for (i = 0; i < k->s->nnodes; i++) {
		unsigned long long size = 0, req;
		double start = mhlNow();

		while (k->s->nodes[i].vmem_size && size != k->s->nodes[i].vmem_requested) {
			if (mhlGuestVirtioMemSize(k->dom, i, &size, &req) < 0)
				return -1;
			if (mhlNow() - start > 120) {
				mhlError("soak: node %d's initial plug stopped at %llu bytes after 120 s", i, size);
				return -1;
			}
			g_usleep(100 * 1000);
		}
	}
	return 0;
}

/*
 * Memory growth within one guest: guest free memory swings by tens of MiB
 * from cycle to cycle (per-CPU lists, page cache, migrated pages freed
 * later), so the mean of the last MEM_WINDOW checkpoints is compared with
 * that of the first MEM_WINDOW; the orchestrator's RSS with its first.
 * Each is reported once per guest.
 */
#define MEM_WINDOW 10

typedef struct {
	GArray *free;		/* gint64 bytes, this guest's checkpoints */
	gint64 rss0_kib;
	bool free_told, rss_told;
} mhlSoakMem;

static double meanOf(GArray *a, guint from, guint n)
{
	double sum = 0;
	guint i;

	for (i = from; i < from + n; i++)
		sum += (double)g_array_index(a, gint64, i);
	return sum / n;
}

static void memoryFindings(mhlSoak *k, mhlSoakMem *m, int cycle, gint64 free_bytes, gint64 rss_kib)
{
	g_array_append_val(m->free, free_bytes);
	if (m->free->len == 1)
		m->rss0_kib = rss_kib;
	if (!m->free_told && m->free->len >= 2 * MEM_WINDOW) {
		double first = meanOf(m->free, 0, MEM_WINDOW);
		double last = meanOf(m->free, m->free->len - MEM_WINDOW, MEM_WINDOW);

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

/* ---- the run directory: soak.json, checkpoints.jsonl ---- */

typedef struct {
	int last_cycle;		/* 0: none */
	int segment;		/* of the last checkpoint */
	double elapsed;		/* soak time at the last checkpoint */
	int findings;
} mhlSoakState;

/* Read the checkpoints back: they must be cycles 1..N in order. */
static int checkpointsLoad(const char *path, mhlSoakState *st)
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
		json_object *v;

		if (!cp || !json_object_object_get_ex(cp, MHL_K_CYCLE, &v) ||
		    json_object_get_int(v) != st->last_cycle + 1) {
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

static int printSchedule(const mhlScenario *s, const mhlSoakOptions *o)
{
	g_autoptr(json_object) arr = json_object_new_array();
	int c;

	if (o->cycles < 1) {
		mhlError("soak: --print-schedule needs --cycles N");
		return EXIT_USAGE;
	}
	for (c = 1; c <= o->cycles; c++) {
		mhlSoakCycle sc;

		if (mhlSoakSchedule(s, o->seed, c, &sc) < 0)
			return EXIT_USAGE;
		json_object_array_add(arr, mhlSoakCycleJSON(&sc));
	}
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
	return EXIT_PASS;
}

/* The soak's own record in trials.jsonl, so every report format covers it. */
static int soakRecord(const char *outdir, const mhlScenario *s, json_object *meta,
		      json_object *identity, const char *accel, const mhlSoakState *st,
		      json_object *first_finding, json_object *kernel_reports, int cycles_run_now,
		      double seg_seconds)
{
	g_autofree char *records = g_build_filename(outdir, "trials.jsonl", NULL);
	g_autoptr(json_object) rec = json_object_new_object();
	json_object *sum = json_object_new_object(), *params = json_object_new_object();
	bool pass = !st->findings;

	json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(mhlJStr(meta, MHL_K_TRIAL, "soak")));
	json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(s->path));
	json_object_object_add(rec, MHL_K_STARTED, json_object_get(mhlJ(meta, MHL_K_STARTED)));
	json_object_object_add(params, "seed", json_object_new_string(mhlJStr(meta, "seed", "")));
	json_object_object_add(params, "duration_s", json_object_new_string(mhlJStr(meta, "duration_s", "")));
	json_object_object_add(rec, MHL_K_PARAMETERS, params);
	json_object_object_add(rec, MHL_K_SCENARIO_NAME, json_object_new_string(s->scenario_name));
	json_object_object_add(rec, MHL_K_KERNEL, json_object_get(identity));
	json_object_object_add(rec, MHL_K_PIN_POLICY, json_object_new_string(s->pin_policy));
	{
		json_object *d = json_object_new_object();

		json_object_object_add(d, MHL_K_ACCEL, json_object_new_string(accel));
		json_object_object_add(rec, MHL_K_DOMAIN, d);
	}
	json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, json_object_get(kernel_reports));
	json_object_object_add(rec, MHL_K_STEPS, json_object_new_array());
	json_object_object_add(sum, MHL_K_CYCLES, json_object_new_int(st->last_cycle));
	json_object_object_add(sum, MHL_K_SEGMENTS, json_object_new_int(st->segment + 1));
	json_object_object_add(sum, MHL_K_FINDINGS, json_object_new_int(st->findings));
	json_object_object_add(sum, MHL_K_SOAK_SECONDS, json_object_new_double(st->elapsed));
	json_object_object_add(sum, MHL_K_CYCLES_PER_HOUR, json_object_new_double(
		seg_seconds > 0 ? cycles_run_now * 3600.0 / seg_seconds : 0));
	json_object_object_add(sum, MHL_K_PINS_FAILED, json_object_new_int(0));
	json_object_object_add(rec, MHL_K_SUMMARY, sum);
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(st->elapsed));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(pass ? "pass" : "fail"));
	if (!pass)
		json_object_object_add(rec, MHL_K_REASON, jstrf(
			"%d finding(s) in %d cycles; first, cycle %" G_GINT64_FORMAT " (%s): %s", st->findings,
			st->last_cycle, mhlJInt(first_finding, MHL_K_CYCLE, 0), mhlJStr(first_finding, MHL_K_KIND, "?"),
			mhlJStr(first_finding, MHL_K_TEXT, "")));
	else
		json_object_object_add(rec, MHL_K_REASON, NULL);
	return mhlRecordAppend(records, rec);
}

int mhlSoakRun(const mhlSoakOptions *o)
{
	g_autoptr(mhlScenario) s = NULL;
	g_autoptr(json_object) meta = NULL, identity = NULL, first_finding = NULL;
	g_autoptr(json_object) kernel_reports = json_object_new_array();
	g_autofree char *outdir = NULL, *metapath = NULL, *cppath = NULL, *image = NULL, *why = NULL;
	g_autofree char *root = NULL, *uri = NULL, *name = NULL, *console = NULL;
	mhlSoak k = { 0 };
	mhlSoakMem mem = { 0 };
	mhlSoakState st;
	double duration = o->duration_s, seg_start, t_last = 0;
	int cycles_max = o->cycles, segment, ran = 0, rc = EXIT_PASS;
	guint64 seed = o->seed;
	const char *accel, *scenario = o->scenario;

	if (o->resume) {
		g_autofree char *text = NULL;

		outdir = g_canonicalize_filename(o->resume, NULL);
		metapath = g_build_filename(outdir, "soak.json", NULL);
		if (!(text = mhlFileRead(metapath, NULL)))
			return EXIT_USAGE;
		if (!(meta = json_tokener_parse(text))) {
			mhlError("soak: --resume: '%s' is not JSON", metapath);
			return EXIT_USAGE;
		}
		scenario = mhlJStr(meta, MHL_K_SCENARIO, NULL);
		seed = g_ascii_strtoull(mhlJStr(meta, "seed", "0"), NULL, 10);
		duration = mhlJDbl(meta, "duration_s", 0);
		cycles_max = (int)mhlJInt(meta, MHL_K_CYCLES, 0);
	}
	if (!scenario || !(s = mhlScenarioLoad(scenario)))
		return EXIT_USAGE;
	if (o->print_schedule)
		return printSchedule(s, o);
	{
		mhlSoakCycle probe;

		if (mhlSoakSchedule(s, seed, 1, &probe) < 0)
			return EXIT_USAGE;
	}
	if (!(image = mhlKernelResolve(s, o->cache, NULL, o->srcdir, &identity)))
		return EXIT_USAGE;
	if (!o->resume) {
		g_autofree char *started = NULL;
		g_autoptr(GDateTime) now = g_date_time_new_now_utc();

		if (!o->outdir) {
			g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
			g_autofree char *rel = g_strdup_printf("results/soak-%s-%s", s->scenario_name, stamp);

			outdir = g_canonicalize_filename(rel, NULL);
		} else {
			outdir = g_canonicalize_filename(o->outdir, NULL);
		}
		metapath = g_build_filename(outdir, "soak.json", NULL);
		if (g_file_test(metapath, G_FILE_TEST_EXISTS)) {
			mhlError("soak: '%s' already holds a soak; continue it with --resume %s, or choose another -o",
				 outdir, outdir);
			return EXIT_USAGE;
		}
		if (g_mkdir_with_parents(outdir, 0755) < 0) {
			mhlError("soak: cannot create '%s': %s", outdir, g_strerror(errno));
			return EXIT_USAGE;
		}
		started = g_date_time_format_iso8601(now);
		meta = json_object_new_object();
		json_object_object_add(meta, MHL_K_TRIAL, jstrf("soak:%s:seed=%" G_GUINT64_FORMAT,
								s->scenario_name, seed));
		{
			g_autofree char *abs = g_canonicalize_filename(scenario, NULL);

			json_object_object_add(meta, MHL_K_SCENARIO, json_object_new_string(abs));
		}
		json_object_object_add(meta, "seed", jstrf("%" G_GUINT64_FORMAT, seed));
		json_object_object_add(meta, "duration_s", json_object_new_double(duration));
		json_object_object_add(meta, MHL_K_CYCLES, json_object_new_int(cycles_max));
		json_object_object_add(meta, MHL_K_STARTED, json_object_new_string(started));
		if (!g_file_set_contents(metapath, json_object_to_json_string_ext(meta, JSON_C_TO_STRING_PRETTY),
					 -1, NULL)) {
			mhlError("soak: cannot write '%s'", metapath);
			return EXIT_USAGE;
		}
	}
	cppath = g_build_filename(outdir, "checkpoints.jsonl", NULL);
	if (checkpointsLoad(cppath, &st) < 0)
		return EXIT_USAGE;
	if ((cycles_max && st.last_cycle >= cycles_max) || (duration > 0 && st.elapsed >= duration)) {
		mhlError("soak: '%s' is complete (%d cycles, %.0f of %.0f s); nothing to resume", outdir,
			 st.last_cycle, st.elapsed, duration);
		return EXIT_USAGE;
	}
	segment = st.last_cycle ? st.segment + 1 : 0;

	mhlSignalsInstall();
	if (mhlLibvirtStart(outdir) < 0)
		return EXIT_USAGE;
	accel = mhlAccelChoose("/usr/bin/qemu-system-x86_64", image, o->cache, &why);
	if (o->uri) {
		uri = g_strdup(o->uri);
	} else {
		mhlStaleRootsClean();	/* the guest of a killed soak goes here */
		if (!(root = mhlEmbedRootCreate()))
			return EXIT_USAGE;
		uri = g_strdup_printf("qemu:///embed?root=%s", root);
	}
	if (!(k.conn = virConnectOpen(uri))) {
		mhlErrorVirt("soak: cannot connect to libvirt at '%s'", uri);
		if (root)
			mhlRemoveTree(root);
		return EXIT_USAGE;
	}
	k.s = s;
	k.console = g_strdup_printf("%s/soak-segment%d.console.log", outdir, segment);
	k.t0 = mhlNow() - st.elapsed;
	name = g_strdup_printf("memhp-soak-%d-%d", (int)getpid(), segment);
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: soak %s: seed %" G_GUINT64_FORMAT ", %s cycle %d, segment %d, %.0f s done of %.0f (0: until --cycles), %s (%s), checkpoints %s\n",
			mhlJStr(meta, MHL_K_TRIAL, ""), seed, st.last_cycle ? "resuming at" : "starting at",
			st.last_cycle + 1, segment, st.elapsed, duration, accel, why, cppath);
	k.findings = json_object_new_array();
	mem.free = g_array_new(FALSE, FALSE, sizeof(gint64));
	if (guestBoot(&k, o, image, accel, name) < 0)
		rc = EXIT_USAGE;	/* no cycle ran: reported by main, and resumable */
	seg_start = mhlNow();
	while (rc == EXIT_PASS && !mhlInterrupted && (duration <= 0 || mhlNow() - k.t0 < duration) &&
	       (!cycles_max || st.last_cycle < cycles_max)) {
		g_autoptr(json_object) cp = json_object_new_object();
		mhlSoakCycle c;
		double t = mhlNow();
		char left[32];
		int r;
		size_t i;

		mhlSoakSchedule(s, seed, st.last_cycle + 1, &c);
		json_object_put(k.findings);
		k.findings = json_object_new_array();
		json_object_object_add(cp, MHL_K_CYCLE, json_object_new_int(c.cycle));
		json_object_object_add(cp, MHL_K_SEGMENT, json_object_new_int(segment));
		json_object_object_add(cp, MHL_K_SCHEDULE, mhlSoakCycleJSON(&c));
		r = cycleRun(&k, &c, cp);
		if (mhlInterrupted)
			break;	/* an unfinished cycle is no checkpoint: --resume redoes it */
		if (r == 0)
			memoryFindings(&k, &mem, c.cycle, mhlJInt(cp, "counters.free_bytes", 0),
				       mhlJInt(cp, "counters.orchestrator_rss_kib", 0));
		json_object_object_add(cp, MHL_K_T, json_object_new_double(t - k.t0));
		json_object_object_add(cp, MHL_K_SECONDS, json_object_new_double(mhlNow() - t));
		json_object_object_add(cp, MHL_K_ELAPSED_S, json_object_new_double(mhlNow() - k.t0));
		json_object_object_add(cp, MHL_K_FINDINGS, json_object_get(k.findings));
		if (mhlRecordAppend(cppath, cp) < 0) {
			rc = EXIT_USAGE;
			break;
		}
		st.last_cycle = c.cycle;
		st.segment = segment;
		st.elapsed = mhlNow() - k.t0;
		st.findings += (int)json_object_array_length(k.findings);
		ran++;
		t_last = mhlNow();
		for (i = 0; i < json_object_array_length(k.findings); i++) {
			json_object *f = json_object_array_get_idx(k.findings, i);

			if (!first_finding)
				first_finding = json_object_get(f);
			if (!strcmp(mhlJStr(f, MHL_K_KIND, ""), "kernel_report"))
				json_object_array_add(kernel_reports, json_object_get(f));
		}
		if (duration > 0)
			snprintf(left, sizeof(left), "%.0f s", MAX(duration - st.elapsed, 0));
		else
			snprintf(left, sizeof(left), "%d cycle(s)", cycles_max - st.last_cycle);
		if (!o->quiet)
			fprintf(stderr, "memhp-lab: soak: cycle %d: pin %" G_GUINT64_FORMAT " MiB %s node %d, unplug to %" G_GUINT64_FORMAT " MiB %s; %.0f s elapsed, %s left; %d finding(s)%s%s\n",
				c.cycle, c.pin_bytes >> 20, c.workload, c.node, c.requested_bytes >> 20,
				mhlJ(cp, MHL_PATH(MHL_K_OUTCOME, MHL_K_CONVERGED)) && json_object_get_boolean(mhlJ(cp, MHL_PATH(MHL_K_OUTCOME, MHL_K_CONVERGED))) ?
				"reached" : "NOT reached", st.elapsed, left, st.findings,
				first_finding ? "; last: " : "",
				first_finding ? mhlJStr(json_object_array_length(k.findings) ?
					json_object_array_get_idx(k.findings, json_object_array_length(k.findings) - 1) :
					first_finding, "text", "") : "");
		if (r < 0)
			rc = EXIT_FAILED;
	}
	if (k.dom) {
		virDomainDestroy(k.dom);
		virDomainFree(k.dom);
	}
	virConnectClose(k.conn);
	if (root)
		mhlRemoveTree(root);
	json_object_put(k.findings);
	console = g_steal_pointer(&k.console);
	g_array_unref(mem.free);
	if (mhlInterrupted) {
		fprintf(stderr, "memhp-lab: soak interrupted after cycle %d; continue with: memhp-lab soak --resume %s\n",
			st.last_cycle, outdir);
		return EXIT_FAILED;
	}
	if (rc == EXIT_USAGE) {
		if (!ran)
			fprintf(stderr, "memhp-lab: soak: no cycle ran in this segment; console %s; continue with: memhp-lab soak --resume %s\n",
				console, outdir);
		return EXIT_FAILED;
	}
	if (soakRecord(outdir, s, meta, identity, accel, &st, first_finding, kernel_reports, ran,
		       t_last > seg_start ? t_last - seg_start : 0) < 0)
		return EXIT_USAGE;
	printf("soak %s: %s: %d cycles in %.0f s (%d segment(s)), %d finding(s); %.0f cycles/hour in this segment\n  checkpoints: %s\n",
	       mhlJStr(meta, MHL_K_TRIAL, ""), st.findings ? "fail" : "pass", st.last_cycle, st.elapsed,
	       st.segment + 1, st.findings, t_last > seg_start ? ran * 3600.0 / (t_last - seg_start) : 0, cppath);
	mhlReportAfterRun(outdir, o->quiet, NULL);
	return st.findings || rc != EXIT_PASS ? EXIT_FAILED : EXIT_PASS;
}
