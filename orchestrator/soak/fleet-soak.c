/*
 * fleet-soak.c - `memhp-lab soak --host URI... | --hosts FILE [--seeds
 * LIST] SCENARIO`: several soaks at once, one per seed, each in DIR/seed-S/
 * (a soak's run directory, exactly as a single soak's) on a slot of a fleet
 * host (fleet/): its guest booted there with the kernel and image uploaded,
 * its console streamed into its run directory (soak.c, o->host). A slot runs
 * one soak at a time; seeds beyond the slots wait for one. DIR/soak.json
 * names the seeds and the hosts; DIR/segments.jsonl gets a line per segment
 * that ended (seed, host, cycles, how it ended). A soak whose host went away
 * stops at its last checkpoint and is resumed once on another host, as a
 * run re-queues a trial (trial/queue-fleet.c). `soak --resume DIR` resumes
 * every soak that is not over. docs/soak.md "Soaks over hosts".
 */
#include <glib.h>
#include <glib/gstdio.h>

#include "soak/soak-int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/session.h"
#include "scenario/names.h"
#include "mhl-exit.h"
#include "util.h"

#define SEEDS_MAX	1024

/* One item of --seeds: "N" or "A-B" into [*a, *b]; false if it is neither. */
static bool seedItem(const char *item, guint64 *a, guint64 *b)
{
	char *end;

	if (!g_ascii_isdigit(*item))
		return false;
	*a = *b = g_ascii_strtoull(item, &end, 10);
	if (*end == '-' && g_ascii_isdigit(end[1]))
		*b = g_ascii_strtoull(end + 1, &end, 10);
	return !*end && *b >= *a && *b - *a < SEEDS_MAX;
}

int mhlSoakSeedsParse(const char *list, GArray *out)
{
	g_auto(GStrv) items = g_strsplit(list, ",", -1);
	size_t i;

	for (i = 0; items[i]; i++) {
		guint64 a, b, s, k;

		if (!seedItem(items[i], &a, &b)) {
			mhlError("soak: --seeds '%s': '%s' is not a seed or a range (e.g. 1,2,3 or 1-4 or 2,5-7)",
				 list, items[i]);
			return -1;
		}
		for (s = a; s <= b; s++) {
			for (k = 0; k < out->len; k++) {
				if (g_array_index(out, guint64, k) == s) {
					mhlError("soak: --seeds '%s': seed %" G_GUINT64_FORMAT " is named twice", list, s);
					return -1;
				}
			}
			if (out->len >= SEEDS_MAX) {
				mhlError("soak: --seeds '%s': more than %d seeds", list, SEEDS_MAX);
				return -1;
			}
			g_array_append_val(out, s);
			if (s == G_MAXUINT64)
				break;
		}
	}
	return 0;
}

/* DIR/soak.json of soaks over hosts (it names seeds), or NULL (no error set). */
static json_object *fleetMetaLoad(const char *dir)
{
	g_autofree char *path = g_build_filename(dir, "soak.json", NULL);
	g_autofree char *text = NULL;
	json_object *meta;

	if (!g_file_get_contents(path, &text, NULL, NULL) || !(meta = json_tokener_parse(text)))
		return NULL;
	if (json_object_is_type(mhlJ(meta, MHL_K_SEEDS), json_type_array))
		return meta;
	json_object_put(meta);
	return NULL;
}

bool mhlSoakFleetDir(const char *dir)
{
	g_autoptr(json_object) meta = fleetMetaLoad(dir);

	return meta != NULL;
}

/* ---- the soaks and the queue over the hosts' slots ---- */

typedef struct {
	guint64 seed;
	char *dir;		/* DIR/seed-S */
	bool requeued;		/* its host went away once: resumed on another */
	mhlFleetHost *lost_on;	/* that host: not again */
	mhlFleetHost *ran_on;	/* the last */
	int rc;			/* mhlSoakRunOutcome's */
	mhlSoakOutcome out;	/* of its last segment */
} mhlSoakJob;

static void soakJobFree(gpointer p)
{
	mhlSoakJob *j = p;

	g_free(j->dir);
	mhlSoakOutcomeClear(&j->out);
	g_free(j);
}

typedef struct {
	const mhlSoakFleetOptions *o;
	GPtrArray *jobs;	/* mhlSoakJob */
	char *segments;		/* DIR/segments.jsonl; NULL: a lone soak's resume, none */
	GMutex segments_lock;	/* the slots' threads append to it */
} mhlSoakFleet;

/* A soak not on the host that lost it (fleet/work.c). */
static bool soakFits(int i, const mhlFleetHost *h, void *opaque)
{
	return ((mhlSoakJob *)((mhlSoakFleet *)opaque)->jobs->pdata[i])->lost_on != h;
}

/* One line in DIR/segments.jsonl: which seed ran where, which cycles, how it ended. */
static void segmentLog(mhlSoakFleet *f, const mhlSoakJob *j, const mhlFleetHost *h)
{
	g_autoptr(json_object) line = json_object_new_object();
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	const char *end = j->out.recorded ? "over" : j->out.host_lost ? "host_lost" :
			  mhlInterrupted ? "interrupted" : "error";

	if (!f->segments)
		return;
	g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, j->seed);
	g_autofree char *t = g_date_time_format_iso8601(now);

	json_object_object_add(line, MHL_K_SEED, json_object_new_string(seed));
	json_object_object_add(line, MHL_K_SEGMENT, json_object_new_int(j->out.segment));
	json_object_object_add(line, MHL_K_HOST, json_object_new_string(h->uri));
	json_object_object_add(line, MHL_K_FIRST_CYCLE, json_object_new_int(j->out.first_cycle));
	json_object_object_add(line, MHL_K_LAST_CYCLE, json_object_new_int(j->out.cycles));
	json_object_object_add(line, MHL_K_END, json_object_new_string(end));
	json_object_object_add(line, MHL_K_REASON, j->out.why ? json_object_new_string(j->out.why) : NULL);
	json_object_object_add(line, MHL_K_T, json_object_new_string(t));
	g_mutex_lock(&f->segments_lock);
	if (mhlRecordAppend(f->segments, line) < 0) {
		fprintf(stderr, "memhp-lab: warning: %s\n", mhlErrorLast());
		mhlErrorReset();
	}
	g_mutex_unlock(&f->segments_lock);
}

/* Run (or resume) soak @i on @h: one segment; true when it is to go on elsewhere. */
static bool soakJobRun(int i, mhlFleetHost *h, void *opaque)
{
	mhlSoakFleet *f = opaque;
	mhlSoakJob *j = f->jobs->pdata[i];
	mhlSoakOptions o = f->o->base;
	g_autofree char *tag = g_strdup_printf("seed %" G_GUINT64_FORMAT, j->seed);
	g_autofree char *meta = g_build_filename(j->dir, "soak.json", NULL);

	o.host = h;
	o.tag = tag;
	o.seed = j->seed;
	o.outdir = j->dir;
	o.resume = NULL;
	if (g_file_test(meta, G_FILE_TEST_EXISTS)) {
		/* a soak begun (here before its host went, or by a run that was killed) */
		o.resume = j->dir;
		o.scenario = NULL;
		o.outdir = NULL;
	}
	mhlSoakOutcomeClear(&j->out);
	j->rc = mhlSoakRunOutcome(&o, &j->out);
	if (j->rc == MHL_EXIT_USAGE && mhlErrorLast())
		fprintf(stderr, "memhp-lab: error: soak %s on host '%s': %s\n", tag, h->uri, mhlErrorLast());
	mhlErrorReset();
	j->ran_on = h;
	segmentLog(f, j, h);
	if (!j->out.host_lost || mhlInterrupted)
		return false;
	j->lost_on = h;
	if (j->requeued) {
		fprintf(stderr, "memhp-lab: soak %s: its second host went away; not resumed again (memhp-lab soak --resume continues it)\n", tag);
		return false;
	}
	j->requeued = true;
	fprintf(stderr, "memhp-lab: soak %s: resumed once more on another host, from cycle %d\n", tag,
		j->out.cycles + 1);
	return true;
}

/* ---- the parent directory: which soaks, over which hosts ---- */

/* What the soaks over hosts are, new (from the options) or resumed (from DIR/soak.json). */
typedef struct {
	char *dir;		/* DIR, absolute */
	json_object *meta;	/* DIR/soak.json; NULL for a lone soak's resume */
	mhlScenario *s;
	char *hosts, *hosts_file;
	GArray *seeds;		/* guint64; empty: one per slot (a new run) */
	char *segdir;		/* where segments.jsonl is: DIR, a lone soak's parent, or NULL */
	int lock_fd;		/* DIR/soak.json flock'ed; -1 */
	bool lone;		/* --resume DIR/seed-S --host...: that soak only */
} mhlSoakFleetPlan;

static void fleetPlanClear(mhlSoakFleetPlan *p)
{
	g_free(p->dir);
	json_object_put(p->meta);
	mhlScenarioFree(p->s);
	g_free(p->hosts);
	g_free(p->hosts_file);
	g_free(p->segdir);
	if (p->seeds)
		g_array_unref(p->seeds);
	if (p->lock_fd >= 0)
		close(p->lock_fd);
}

/* DIR/soak.json of a new run: the scenario, duration, cycles, seeds and hosts. */
static int fleetMetaWrite(mhlSoakFleetPlan *p, const mhlSoakFleetOptions *o)
{
	g_autofree char *path = g_build_filename(p->dir, "soak.json", NULL);
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *started = g_date_time_format_iso8601(now);
	g_autoptr(GError) err = NULL;
	g_autofree char *scenario = mhlRealPath(o->base.scenario);	/* what --resume accepts */
	json_object *seeds = json_object_new_array();
	guint i;

	p->meta = json_object_new_object();
	json_object_object_add(p->meta, MHL_K_SCENARIO, json_object_new_string(scenario));
	for (i = 0; i < p->seeds->len; i++) {
		g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, g_array_index(p->seeds, guint64, i));

		json_object_array_add(seeds, json_object_new_string(seed));
	}
	json_object_object_add(p->meta, MHL_K_SEEDS, seeds);
	json_object_object_add(p->meta, MHL_K_DURATION_S, json_object_new_double(o->base.duration_s));
	json_object_object_add(p->meta, MHL_K_CYCLES, json_object_new_int(o->base.cycles));
	json_object_object_add(p->meta, MHL_K_HOSTS, p->hosts ? json_object_new_string(p->hosts) : NULL);
	json_object_object_add(p->meta, MHL_K_HOSTS_FILE, p->hosts_file ? json_object_new_string(p->hosts_file) : NULL);
	json_object_object_add(p->meta, MHL_K_STARTED, json_object_new_string(started));
	if (!g_file_set_contents(path, json_object_to_json_string_ext(p->meta, JSON_C_TO_STRING_PRETTY), -1, &err)) {
		mhlError("soak: cannot write '%s': %s", path, err->message);
		return -1;
	}
	/* one `soak --resume DIR` of soaks over hosts at a time */
	return (p->lock_fd = mhlSoakLock(p->dir)) < 0 ? -1 : 0;
}

/* A new run: DIR from -o (or results/soak-<scenario>-<time>; made once the hosts are read), the scenario checked. */
static int fleetPlanNew(const mhlSoakFleetOptions *o, mhlSoakFleetPlan *p)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	g_autofree char *meta = NULL, *rel = NULL;
	mhlSoakCycle probe;

	if ((o->seeds && mhlSoakSeedsParse(o->seeds, p->seeds) < 0) || !(p->s = mhlScenarioLoad(o->base.scenario)) ||
	    mhlSoakSchedule(p->s, 1, 1, &probe) < 0)
		return -1;
	rel = g_strdup_printf("results/soak-%s-%s", p->s->scenario_name, stamp);
	p->dir = g_canonicalize_filename(o->base.outdir ? o->base.outdir : rel, NULL);
	meta = g_build_filename(p->dir, "soak.json", NULL);
	if (g_file_test(meta, G_FILE_TEST_EXISTS)) {
		mhlError("soak: '%s' already holds a soak; continue it with --resume %s, or choose another -o",
			 p->dir, p->dir);
		return -1;
	}
	p->segdir = g_strdup(p->dir);
	p->hosts = g_strdup(o->hosts);
	p->hosts_file = mhlRealPath(o->hosts_file);
	return 0;
}

/*
 * A resume: DIR's soak.json (its seeds; its hosts unless --host/--hosts
 * name others), or one soak's run directory to go on over the hosts given.
 */
static int fleetPlanResume(const mhlSoakFleetOptions *o, mhlSoakFleetPlan *p)
{
	g_autofree char *parent = NULL;
	json_object *seeds;
	size_t i;

	p->dir = g_canonicalize_filename(o->base.resume, NULL);
	if (!(p->meta = fleetMetaLoad(p->dir))) {
		g_autoptr(json_object) one = mhlSoakMetaLoad(p->dir);
		guint64 seed;

		if (!one)
			return -1;
		/* one soak's directory: that soak alone, its segments logged in its parent's when it has one */
		seed = g_ascii_strtoull(mhlJStr(one, MHL_K_SEED, "0"), NULL, 10);
		g_array_append_val(p->seeds, seed);
		p->lone = true;
		parent = g_path_get_dirname(p->dir);
		if ((p->meta = fleetMetaLoad(parent)))
			p->segdir = g_steal_pointer(&parent);
		if (mhlSoakScenarioTrusted(p->dir, p->dir, mhlJStr(one, MHL_K_SCENARIO, "")) < 0)
			return -1;
		p->s = mhlScenarioLoad(mhlJStr(one, MHL_K_SCENARIO, ""));
	} else {
		for (seeds = mhlJ(p->meta, MHL_K_SEEDS), i = 0; i < json_object_array_length(seeds); i++) {
			guint64 seed = g_ascii_strtoull(json_object_get_string(json_object_array_get_idx(seeds, i)), NULL, 10);

			g_array_append_val(p->seeds, seed);
		}
		if ((p->lock_fd = mhlSoakLock(p->dir)) < 0)
			return -1;
		p->segdir = g_strdup(p->dir);
		if (mhlSoakScenarioTrusted(p->dir, p->dir, mhlJStr(p->meta, MHL_K_SCENARIO, "")) < 0)
			return -1;
		p->s = mhlScenarioLoad(mhlJStr(p->meta, MHL_K_SCENARIO, ""));
	}
	if (!p->s)
		return -1;
	p->hosts = g_strdup(o->hosts || o->hosts_file ? o->hosts : mhlJStr(p->meta, MHL_K_HOSTS, NULL));
	p->hosts_file = g_strdup(o->hosts || o->hosts_file ? o->hosts_file : mhlJStr(p->meta, MHL_K_HOSTS_FILE, NULL));
	if (!o->hosts && !o->hosts_file && p->hosts_file) {
		g_autofree char *what = g_strdup_printf("soak: --resume: '%s/soak.json': hosts_file", p->dir);

		if (mhlRunDirPath(p->dir, what, p->hosts_file, false, false) < 0)
			return -1;
	}
	if (!p->hosts && !p->hosts_file) {
		mhlError("soak: --resume '%s': no hosts recorded; name them with --host or --hosts", p->dir);
		return -1;
	}
	return 0;
}

/*
 * What a fleet host cannot give (as for a run's trials, cli/run-fleet.c): a
 * backing that needs a path set up on this machine. memory_backing:
 * hugepages would also grow this machine's hugepage pool for a guest that
 * runs elsewhere (mhlTrialHugePool, soak.c).
 */
static int fleetBackingCheck(const mhlSoakFleetPlan *p)
{
	g_autofree char *can = NULL;

	if (mhlMemBackingOf(p->s->backing)->fleet)
		return 0;
	can = mhlMemBackingsFleet();
	mhlError("soak: %s: memory_backing: %s needs a hugetlbfs or file path that memhp-lab sets up on this machine; a fleet host (--host/--hosts) cannot give it: soak it without --host, or use memory_backing: %s",
		 p->s->path, p->s->backing, can);
	return -1;
}

/* @dir held to mhlRunDirTrusted (the invoking user's, writable by no one else). -1 + mhlError. */
static int fleetDirTrusted(const char *dir)
{
	mhl_autofd int fd = mhlDirOpen(dir);

	if (fd < 0) {
		mhlError("soak: directory '%s': %s", dir, g_strerror(errno));
		return -1;
	}
	return mhlRunDirTrusted(fd, dir, "soak");
}

/* Connect to the hosts, each one's slots for the soak's guest; a host where none fits is left out, saying so. */
static int fleetConnect(const mhlSoakFleetOptions *o, mhlSoakFleetPlan *p, GPtrArray *hosts)
{
	uint64_t need = mhlScenarioGuestBytes(p->s, true);	/* what a slot needs */
	int total = 0;
	guint i;

	if (mhlFleetHostsParse(p->hosts, p->hosts_file, hosts) < 0)
		return -1;
	if (g_mkdir_with_parents(p->dir, 0755) < 0) {
		mhlError("soak: cannot create '%s': %s", p->dir, g_strerror(errno));
		return -1;
	}
	/* written into as a run directory is: ours alone (docs/security.md), the segments' too */
	if (fleetDirTrusted(p->dir) < 0 || (p->segdir && strcmp(p->segdir, p->dir) && fleetDirTrusted(p->segdir) < 0))
		return -1;
	if (mhlLibvirtStart(p->dir) < 0 || mhlFleetConnect(hosts) < 0)
		return -1;
	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		if (!h->conn)
			continue;
		if (!(h->slots = mhlFleetSlots(h, need, 0))) {
			fprintf(stderr, "memhp-lab: warning: host '%s': a guest of %" G_GUINT64_FORMAT " MiB does not fit in its %" G_GUINT64_FORMAT " MiB free (free + buffers + cached); the soaks go on without it\n",
				h->uri, need >> 20, h->avail_bytes >> 20);
			mhlFleetHostSetLost(h, "no room for a guest");
		}
		total += h->slots;
		if (!o->base.quiet)
			fprintf(stderr, "memhp-lab: host %s: %d slot(s) (%d cores, %" G_GUINT64_FORMAT " MiB free%s)\n",
				h->uri, h->slots, h->cores, h->avail_bytes >> 20, h->max_slots ? ", slots from the hosts file" : "");
	}
	if (!total)
		mhlError("soak: no host has room for a guest of %" G_GUINT64_FORMAT " MiB", need >> 20);
	return total ? 0 : -1;
}

/* Whether the soak in @dir is over: its record is written. */
static bool soakOver(const char *dir)
{
	g_autofree char *path = g_build_filename(dir, "trials.jsonl", NULL);
	GStatBuf sb;

	return g_stat(path, &sb) == 0 && sb.st_size > 0;
}

/* The soaks to run: one per seed (default: seeds 1..N, one per slot), those not over. */
static int fleetJobs(mhlSoakFleetPlan *p, GPtrArray *hosts, GPtrArray *jobs)
{
	guint i;

	if (!p->seeds->len) {
		guint64 s;
		int total = 0;

		for (i = 0; i < hosts->len; i++)
			total += ((mhlFleetHost *)hosts->pdata[i])->slots;
		for (s = 1; s <= (guint64)total; s++)
			g_array_append_val(p->seeds, s);
	}
	for (i = 0; i < p->seeds->len; i++) {
		guint64 seed = g_array_index(p->seeds, guint64, i);
		g_autofree char *dir = p->lone ? g_strdup(p->dir) :
				       g_strdup_printf("%s/seed-%" G_GUINT64_FORMAT, p->dir, seed);
		mhlSoakJob *j;

		if (soakOver(dir))
			continue;
		j = g_new0(mhlSoakJob, 1);
		j->seed = seed;
		j->dir = g_steal_pointer(&dir);
		g_ptr_array_add(jobs, j);
	}
	if (!jobs->len) {
		mhlError("soak: '%s' is complete: every soak has its record; nothing to resume", p->dir);
		return -1;
	}
	return 0;
}

/* The verdict of soak @j: its record's, else why it has none. */
static char *soakVerdict(const mhlSoakJob *j)
{
	g_autofree char *path = g_build_filename(j->dir, "trials.jsonl", NULL);
	g_autofree char *text = NULL;
	g_autoptr(json_object) rec = NULL;

	if (g_file_get_contents(path, &text, NULL, NULL) && (rec = json_tokener_parse(text)))
		return g_strdup(mhlJStr(rec, MHL_K_VERDICT, "?"));
	return g_strdup(mhlInterrupted ? "interrupted" : j->out.host_lost ? "host lost" : "not over");
}

/*
 * The end: a line per seed (host, cycles, findings, verdict) on stdout and
 * the same in DIR/summary.json; the run directories with a record into
 * @outdirs. Exit 0 only if every soak passed.
 */
static int fleetSummary(const mhlSoakFleetPlan *p, GPtrArray *jobs, GPtrArray *outdirs)
{
	g_autoptr(json_object) rows = json_object_new_array();
	g_autofree char *path = g_build_filename(p->dir, "summary.json", NULL);
	int rc = MHL_EXIT_PASS;
	guint i;

	printf("soaks over hosts, %s: %u soak(s)\n", p->dir, jobs->len);
	for (i = 0; i < jobs->len; i++) {
		mhlSoakJob *j = jobs->pdata[i];
		g_autofree char *verdict = soakVerdict(j);
		g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, j->seed);
		json_object *row = json_object_new_object();

		printf("  seed %s: %s, %d cycle(s), %d finding(s), host %s%s; %s\n", seed, verdict, j->out.cycles,
		       j->out.findings, j->ran_on ? j->ran_on->uri : "none", j->requeued ? " (resumed there after its first host went away)" : "",
		       j->dir);
		json_object_object_add(row, MHL_K_SEED, json_object_new_string(seed));
		json_object_object_add(row, MHL_K_HOST, j->ran_on ? json_object_new_string(j->ran_on->uri) : NULL);
		json_object_object_add(row, MHL_K_CYCLES, json_object_new_int(j->out.cycles));
		json_object_object_add(row, MHL_K_FINDINGS, json_object_new_int(j->out.findings));
		json_object_object_add(row, MHL_K_VERDICT, json_object_new_string(verdict));
		json_object_object_add(row, MHL_K_DIR, json_object_new_string(j->dir));
		json_object_array_add(rows, row);
		if (strcmp(verdict, "pass"))
			rc = MHL_EXIT_FAILED;
		if (j->out.recorded)
			g_ptr_array_add(outdirs, g_strdup(j->dir));
	}
	if (!p->lone && !g_file_set_contents(path, json_object_to_json_string_ext(rows, JSON_C_TO_STRING_PRETTY), -1, NULL))
		fprintf(stderr, "memhp-lab: warning: cannot write '%s'\n", path);
	for (i = 0; i < jobs->len; i++)
		if (!((mhlSoakJob *)jobs->pdata[i])->out.recorded) {
			fprintf(stderr, "memhp-lab: not every soak is over; continue with: memhp-lab soak --resume %s\n", p->dir);
			break;
		}
	return rc;
}

int mhlSoakFleetRun(const mhlSoakFleetOptions *o, GPtrArray *outdirs)
{
	g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func((GDestroyNotify)mhlFleetHostFree);
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func(soakJobFree);
	mhlSoakFleetPlan p = { .lock_fd = -1, .seeds = g_array_new(FALSE, FALSE, sizeof(guint64)) };
	mhlSoakFleet f = { .o = o, .jobs = jobs };
	int rc = MHL_EXIT_USAGE;

	g_mutex_init(&f.segments_lock);
	mhlSignalsInstall();
	/* seeds known (--seeds, a resume): what is left to run is known before anything connects */
	if ((o->base.resume ? fleetPlanResume(o, &p) : fleetPlanNew(o, &p)) < 0 || fleetBackingCheck(&p) < 0 ||
	    (p.seeds->len && fleetJobs(&p, hosts, jobs) < 0) || fleetConnect(o, &p, hosts) < 0 ||
	    (!jobs->len && fleetJobs(&p, hosts, jobs) < 0) || (!o->base.resume && fleetMetaWrite(&p, o) < 0))
		goto cleanup;
	f.segments = p.segdir ? g_build_filename(p.segdir, "segments.jsonl", NULL) : NULL;
	if (!o->base.quiet)
		fprintf(stderr, "memhp-lab: %u soak(s) over %u host(s), one per slot at a time; %s\n", jobs->len,
			hosts->len, p.dir);
	/* the first soaks one per slot, a slot of each host in turn: spread over the hosts */
	mhlFleetWorkRun(hosts, &(mhlFleetJobs){ .njobs = (int)jobs->len, .fits = soakFits, .run = soakJobRun,
						 .opaque = &f, .spread = true });
	rc = fleetSummary(&p, jobs, outdirs);
cleanup:
	mhlFleetDisconnect(hosts);
	g_free(f.segments);
	g_mutex_clear(&f.segments_lock);
	fleetPlanClear(&p);
	return rc;
}
