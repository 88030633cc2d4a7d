/*
 * run.c - `memhp-lab run SCENARIO...`: expand every scenario's matrix, check
 * every trial's kernel before anything boots, then run the trials on up to N
 * guests at once (worker threads sharing one libvirt connection), each
 * appending its record to DIR/trials.jsonl as it ends. Progress goes to
 * stderr, the table of verdicts to stdout (or JSON with --json).
 */
#include <glib.h>

#include "cli/run.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "host/kernel.h"
#include "reports/report.h"
#include "scenario/scenario.h"
#include "trial/trial.h"
#include "util.h"

#define EXIT_PASS	0
#define EXIT_FAILED	1
#define EXIT_USAGE	2

/* QEMU's own memory next to the guest's (TCG translation cache, devices). */
#define QEMU_OVERHEAD	(256ULL << 20)

typedef struct {
	mhlScenario *s;
	char *image;
	json_object *identity;
	json_object *rec;	/* NULL: never started (interrupted first) */
	mhlVerdict verdict;
} mhlJob;

static void jobFree(mhlJob *j)
{
	mhlScenarioFree(j->s);
	g_free(j->image);
	json_object_put(j->identity);
	json_object_put(j->rec);
	g_free(j);
}

typedef struct {
	GPtrArray *jobs;
	int next;
	pthread_mutex_t lock;	/* next, and stderr lines */
	virConnectPtr conn;
	mhlRunConfig base;
} mhlQueue;

int mhlJobsDefault(const mhlHostFit *h)
{
	uint64_t fit = h->need_bytes ? h->avail_bytes / h->need_bytes : 0;

	if (!fit)
		return 0;
	return (int)MIN(fit, (uint64_t)MAX(h->cores, 1));
}

static uint64_t guestBytes(const mhlScenario *s)
{
	uint64_t b = QEMU_OVERHEAD;
	int i;

	for (i = 0; i < s->nnodes; i++)
		b += s->nodes[i].memory + s->nodes[i].vmem_size;
	return b;
}

static uint64_t memAvailable(void)
{
	g_autofree char *text = NULL;
	const char *p;
	unsigned long long kib;

	if (!g_file_get_contents("/proc/meminfo", &text, NULL, NULL) ||
	    !(p = strstr(text, "MemAvailable:")) || sscanf(p, "MemAvailable: %llu", &kib) != 1)
		return 0;
	return kib * 1024;
}

static void *eventLoop(void *opaque)
{
	(void)opaque;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			fprintf(stderr, "memhp-lab: warning: event loop: %s\n", virGetLastErrorMessage());
	return NULL;
}

static void libvirtQuiet(void *opaque, virErrorPtr e)
{
	(void)opaque; (void)e;	/* errors are reported by us, with context */
}

int mhlLibvirtStart(const char *outdir)
{
	g_autofree char *out = g_strdup_printf("3:file:%s/libvirt.log", outdir);
	pthread_t loop;

	/* libvirt's own log (embedded driver included) goes to the run directory. */
	g_setenv("LIBVIRT_LOG_OUTPUTS", out, FALSE);
	virSetErrorFunc(NULL, libvirtQuiet);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0) {
		mhlErrorVirt("cannot initialize libvirt's event loop");
		return -1;
	}
	pthread_create(&loop, NULL, eventLoop, NULL);
	pthread_detach(loop);
	return 0;
}

/* QEMU processes of a dead run, from the pid files under its embedded root. */
static int killPidfile(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	g_autofree char *text = NULL, *cmdpath = NULL, *cmd = NULL;
	long pid;

	(void)sb; (void)ftw;
	if (type != FTW_F || !g_str_has_suffix(path, ".pid") ||
	    !g_file_get_contents(path, &text, NULL, NULL) || (pid = strtol(text, NULL, 10)) <= 1)
		return 0;
	cmdpath = g_strdup_printf("/proc/%ld/cmdline", pid);
	if (g_file_get_contents(cmdpath, &cmd, NULL, NULL) && strstr(cmd, "qemu-system")) {
		fprintf(stderr, "memhp-lab: killing QEMU %ld left by a dead run (%s)\n", pid, path);
		kill((pid_t)pid, SIGKILL);
	}
	return 0;
}

/*
 * An embedded root whose owner died (SIGKILL, a crash) is removed at the next
 * start, with the QEMU processes it left: /tmp/mhl-XXXXXX/owner.pid.
 */
void mhlStaleRootsClean(void)
{
	g_autoptr(GDir) d = g_dir_open("/tmp", 0, NULL);
	const char *e;

	while (d && (e = g_dir_read_name(d))) {
		g_autofree char *root = g_build_filename("/tmp", e, NULL);
		g_autofree char *own = g_build_filename(root, "owner.pid", NULL);
		g_autofree char *text = NULL;
		long pid;

		if (!g_str_has_prefix(e, "mhl-") || !g_file_get_contents(own, &text, NULL, NULL))
			continue;
		pid = strtol(text, NULL, 10);
		if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;	/* its run is still going */
		nftw(root, killPidfile, 16, FTW_PHYS);
		fprintf(stderr, "memhp-lab: removing %s, left by run %ld that is gone\n", root, pid);
		mhlRemoveTree(root);
	}
}

/* A private root for qemu:///embed, with the qemu.conf this machine needs. */
char *mhlEmbedRootCreate(void)
{
	static const char conf[] =
		"# memhp-lab: embedded QEMU driver settings (see docs/architecture.md)\n"
		"stdio_handler = \"file\"\n"
		"security_driver = \"none\"\n"
		"cgroup_controllers = [ ]\n"
		"namespaces = [ ]\n"
		"user = \"root\"\n"
		"group = \"root\"\n"
		"# No ownership xattrs on the kernel, initramfs and logs it hands to QEMU.\n"
		"remember_owner = 0\n";
	g_autofree char *root = g_strdup("/tmp/mhl-XXXXXX");
	g_autofree char *etc = NULL, *path = NULL, *own = NULL, *pid = NULL;
	g_autoptr(GError) err = NULL;

	if (!g_mkdtemp(root)) {
		mhlError("cannot create the embedded driver root under /tmp: %s", g_strerror(errno));
		return NULL;
	}
	etc = g_build_filename(root, "etc", NULL);
	path = g_build_filename(etc, "qemu.conf", NULL);
	own = g_build_filename(root, "owner.pid", NULL);
	pid = g_strdup_printf("%d\n", (int)getpid());
	if (g_mkdir_with_parents(etc, 0700) < 0 || !g_file_set_contents(path, conf, -1, &err) ||
	    !g_file_set_contents(own, pid, -1, &err)) {
		mhlError("cannot write '%s': %s", err ? path : etc, err ? err->message : g_strerror(errno));
		return NULL;
	}
	return g_steal_pointer(&root);
}

static void printSummary(json_object *rec, const char *records)
{
	json_object *sum = NULL, *v;
	long long mb, ma;

	json_object_object_get_ex(rec, MHL_K_SUMMARY, &sum);
#define GETI(k) (sum && json_object_object_get_ex(sum, k, &v) ? (long long)json_object_get_int64(v) : -1LL)
#define GETD(k) (sum && json_object_object_get_ex(sum, k, &v) ? json_object_get_double(v) : -1)
	mb = GETI("pinned_pages_movable_before");
	ma = GETI("pinned_pages_movable_after");
	printf("\n%s: %s\n", json_object_get_string(json_object_object_get(rec, MHL_K_TRIAL)),
	       json_object_get_string(json_object_object_get(rec, MHL_K_VERDICT)));
	if (json_object_object_get_ex(rec, MHL_K_REASON, &v) && v)
		printf("  reason:           %s\n", json_object_get_string(v));
	if (GETD("boot_to_agent_s") >= 0)
		printf("  boot to agent:    %.1f s (%s)\n", GETD("boot_to_agent_s"),
		       json_object_get_string(json_object_object_get(json_object_object_get(rec, MHL_K_DOMAIN), MHL_K_ACCEL)));
	if (GETI("pinned_bytes") >= 0)
		printf("  pinned:           %lld MiB\n", GETI("pinned_bytes") >> 20);
	if (mb >= 0)
		printf("  left ZONE_MOVABLE at pin time: %lld of %lld pages in Movable (%lld left there)\n",
		       mb - ma, mb, ma);
	if (GETI("pins_failed") >= 0)
		printf("  pins failed:      %lld\n", GETI("pins_failed"));
	if (GETI("requested_bytes") >= 0)
		printf("  unplug:           requested %lld MiB, reached %lld MiB",
		       GETI("requested_bytes") >> 20, GETI("reached_bytes") >> 20);
	if (GETD("seconds_to_converge") >= 0)
		printf(", converged in %.1f s\n", GETD("seconds_to_converge"));
	else if (GETI("requested_bytes") >= 0)
		printf(", did not converge\n");
	if (sum && json_object_object_get_ex(sum, MHL_K_PATTERN_OK_AFTER_RESIZE, &v))
		printf("  integrity:        pattern %s after the unplug", json_object_get_boolean(v) ? "intact" : "CORRUPT");
	if (sum && json_object_object_get_ex(sum, MHL_K_PATTERN_OK_AT_RELEASE, &v))
		printf(", %s at release\n", json_object_get_boolean(v) ? "intact" : "CORRUPT");
	else if (sum && json_object_object_get_ex(sum, MHL_K_PATTERN_OK_AFTER_RESIZE, &v))
		printf("\n");
	printf("  console:          %zu finding(s), log %s\n",
	       json_object_array_length(json_object_object_get(rec, MHL_K_CONSOLE_FINDINGS)),
	       json_object_get_string(json_object_object_get(rec, MHL_K_CONSOLE_LOG)));
	printf("  record:           %s\n", records);
#undef GETI
#undef GETD
}

static const char *recStr(json_object *rec, const char *key)
{
	json_object *v;

	return rec && json_object_object_get_ex(rec, key, &v) && v ? json_object_get_string(v) : "";
}

/* The table of verdicts, one line per trial, and the totals. */
static void printTable(GPtrArray *jobs, const char *records)
{
	int counts[MHL_VERDICT_LAST + 1] = { 0 };
	size_t w = 5;
	guint i;

	for (i = 0; i < jobs->len; i++)
		w = MAX(w, strlen(((mhlJob *)jobs->pdata[i])->s->name));
	printf("\n%-*s  %-11s %8s %21s %6s %8s\n", (int)w, "trial", "verdict", "pinned",
	       "reached/requested", "pins", "seconds");
	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		json_object *sum = j->rec ? json_object_object_get(j->rec, MHL_K_SUMMARY) : NULL;
		json_object *v;
		char pinned[32] = "-", reach[48] = "-", pins[16] = "-", secs[32] = "-";

		if (sum && json_object_object_get_ex(sum, MHL_K_PINNED_BYTES, &v))
			snprintf(pinned, sizeof(pinned), "%lld MiB", (long long)json_object_get_int64(v) >> 20);
		if (sum && json_object_object_get_ex(sum, MHL_K_REQUESTED_BYTES, &v))
			snprintf(reach, sizeof(reach), "%lld/%lld MiB",
				 (long long)json_object_get_int64(json_object_object_get(sum, MHL_K_REACHED_BYTES)) >> 20,
				 (long long)json_object_get_int64(v) >> 20);
		if (sum && json_object_object_get_ex(sum, MHL_K_PINS_FAILED, &v))
			snprintf(pins, sizeof(pins), "%d", json_object_get_int(v));
		if (j->rec && json_object_object_get_ex(j->rec, MHL_K_SECONDS, &v))
			snprintf(secs, sizeof(secs), "%.1f", json_object_get_double(v));
		printf("%-*s  %-11s %8s %21s %6s %8s\n", (int)w, j->s->name,
		       j->rec ? mhlVerdictNames[j->verdict] : "not run", pinned, reach, pins, secs);
		counts[j->rec ? j->verdict : MHL_VERDICT_LAST]++;
	}
	printf("%d passed, %d failed, %d error, %d interrupted, %d not run (records: %s)\n",
	       counts[MHL_VERDICT_PASS], counts[MHL_VERDICT_FAIL], counts[MHL_VERDICT_ERROR],
	       counts[MHL_VERDICT_INTERRUPTED], counts[MHL_VERDICT_LAST], records);
}

/* The orchestrator's own cost: CPU of all its threads, peak RSS. */
static void selfUsage(double *cpu_s, long *rss_kib)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	*rss_kib = ru.ru_maxrss;
}

static void printJSON(GPtrArray *jobs, const char *records, double wall)
{
	g_autoptr(json_object) out = json_object_new_object();
	double cpu;
	long rss;
	json_object *arr = json_object_new_array();
	guint i;

	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		json_object *t = json_object_new_object();

		json_object_object_add(t, MHL_K_TRIAL, json_object_new_string(j->s->name));
		json_object_object_add(t, MHL_K_VERDICT, json_object_new_string(j->rec ?
				       mhlVerdictNames[j->verdict] : "not run"));
		if (j->rec) {
			json_object_object_add(t, MHL_K_REASON, json_object_get(json_object_object_get(j->rec, MHL_K_REASON)));
			json_object_object_add(t, MHL_K_SECONDS, json_object_get(json_object_object_get(j->rec, MHL_K_SECONDS)));
			json_object_object_add(t, MHL_K_SUMMARY, json_object_get(json_object_object_get(j->rec, MHL_K_SUMMARY)));
		}
		json_object_array_add(arr, t);
	}
	selfUsage(&cpu, &rss);
	json_object_object_add(out, "records", json_object_new_string(records));
	json_object_object_add(out, "wall_seconds", json_object_new_double(wall));
	json_object_object_add(out, "orchestrator_cpu_seconds", json_object_new_double(cpu));
	json_object_object_add(out, "orchestrator_peak_rss_kib", json_object_new_int64(rss));
	json_object_object_add(out, "trials", arr);
	printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY));
}

static void *worker(void *opaque)
{
	mhlQueue *q = opaque;

	for (;;) {
		mhlRunConfig cfg = q->base;
		mhlJob *j;
		int i;

		pthread_mutex_lock(&q->lock);
		i = q->next++;
		pthread_mutex_unlock(&q->lock);
		if (i >= (int)q->jobs->len || mhlInterrupted)
			return NULL;
		j = q->jobs->pdata[i];
		cfg.index = i + 1;
		cfg.total = (int)q->jobs->len;
		cfg.kernel_image = j->image;
		cfg.kernel_identity = j->identity;
		if (!cfg.quiet)
			fprintf(stderr, "memhp-lab: [%d/%d] %s: start on kernel %s, pin_policy %s\n",
				cfg.index, cfg.total, j->s->name, j->s->kernel, j->s->pin_policy);
		j->verdict = mhlTrialRun(q->conn, &cfg, j->s, &j->rec);
		if (!cfg.quiet)
			fprintf(stderr, "memhp-lab: [%d/%d] %s: %s (%.1f s)%s%s\n", cfg.index, cfg.total,
				j->s->name, mhlVerdictNames[j->verdict],
				json_object_get_double(json_object_object_get(j->rec, MHL_K_SECONDS)),
				*recStr(j->rec, "reason") ? ": " : "", recStr(j->rec, "reason"));
	}
}

/* Every scenario's trials, filtered by --only, with their kernel checked. */
static int jobsLoad(const mhlRunOptions *o, char **scenarios, int nscenarios, GPtrArray *jobs)
{
	int i;

	for (i = 0; i < nscenarios; i++) {
		g_autoptr(GPtrArray) all = g_ptr_array_new();
		guint k;

		if (mhlScenarioLoadAll(scenarios[i], all) < 0) {
			for (k = 0; k < all->len; k++)
				mhlScenarioFree(all->pdata[k]);
			return -1;
		}
		for (k = 0; k < all->len; k++) {
			mhlScenario *s = all->pdata[k];
			mhlJob *j;

			if (o->only && !g_pattern_match_simple(o->only, s->name)) {
				mhlScenarioFree(s);
				continue;
			}
			j = g_new0(mhlJob, 1);
			j->s = s;
			g_ptr_array_add(jobs, j);
			if (mhlScenarioOverride(s, o->kernel, o->pin_policy) < 0 ||
			    !(j->image = mhlKernelResolve(s, o->cache, o->kernel_dir, o->srcdir,
							  &j->identity))) {
				for (k++; k < all->len; k++)
					mhlScenarioFree(all->pdata[k]);
				return -1;
			}
		}
	}
	if (!jobs->len) {
		mhlError("run: no trial %s%s%s", o->only ? "matches --only '" : "in the scenarios",
			 o->only ? o->only : "", o->only ? "'" : "");
		return -1;
	}
	return 0;
}

/* -j: the default from cores and memory, or the user's N if the guests fit. */
static int jobsChoose(const mhlRunOptions *o, GPtrArray *jobs)
{
	mhlHostFit h = { .avail_bytes = memAvailable(), .cores = (int)sysconf(_SC_NPROCESSORS_ONLN) };
	int n;
	guint i;

	for (i = 0; i < jobs->len; i++)
		h.need_bytes = MAX(h.need_bytes, guestBytes(((mhlJob *)jobs->pdata[i])->s));
	n = o->jobs ? o->jobs : mhlJobsDefault(&h);
	if (h.avail_bytes && (uint64_t)n * h.need_bytes > h.avail_bytes) {
		mhlError("run: %d guest(s) of up to %" G_GUINT64_FORMAT " MiB each (boot memory + virtio-mem + %llu MiB for QEMU) need %" G_GUINT64_FORMAT " MiB, but only %" G_GUINT64_FORMAT " MiB is available (MemAvailable in /proc/meminfo); use a smaller -j",
			 MAX(n, 1), h.need_bytes >> 20, QEMU_OVERHEAD >> 20,
			 (MAX(n, 1) * h.need_bytes) >> 20, h.avail_bytes >> 20);
		return -1;
	}
	return MIN(MAX(n, 1), (int)jobs->len);
}

int mhlRunTrials(const mhlRunOptions *o, char **scenarios, int nscenarios)
{
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func((GDestroyNotify)jobFree);
	g_autofree char *root = NULL, *uri = NULL, *outdir = NULL, *why = NULL, *records = NULL;
	mhlQueue q = { .lock = PTHREAD_MUTEX_INITIALIZER };
	mhlRunConfig *cfg = &q.base;
	pthread_t *threads;
	double t0 = mhlNow();
	int n, i, rc = EXIT_PASS;
	guint k;

	if (jobsLoad(o, scenarios, nscenarios, jobs) < 0 || (n = jobsChoose(o, jobs)) < 0)
		return EXIT_USAGE;
	cfg->emulator = "/usr/bin/qemu-system-x86_64";
	cfg->agent_deadline = o->agent_deadline;
	cfg->quiet = o->quiet;
	cfg->initrd = o->initrd;
	cfg->tmpl_path = o->tmpl;
	{
		const char *need[] = { cfg->initrd, cfg->tmpl_path, cfg->emulator };
		size_t e;

		for (e = 0; e < G_N_ELEMENTS(need); e++) {
			if (access(need[e], R_OK) < 0) {
				mhlError("run: cannot read '%s': %s (make demo builds it)", need[e],
					 g_strerror(errno));
				return EXIT_USAGE;
			}
		}
	}
	cfg->accel = mhlAccelChoose(cfg->emulator, ((mhlJob *)jobs->pdata[0])->image, o->cache, &why);
	cfg->accel_why = why;
	if (o->outdir) {
		outdir = g_canonicalize_filename(o->outdir, NULL);
	} else {
		g_autoptr(GDateTime) now = g_date_time_new_now_local();
		g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
		g_autofree char *rel = g_strdup_printf("results/%s-%s",
						       ((mhlJob *)jobs->pdata[0])->s->scenario_name, stamp);

		outdir = g_canonicalize_filename(rel, NULL);
	}
	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("run: cannot create run directory '%s': %s", outdir, g_strerror(errno));
		return EXIT_USAGE;
	}
	cfg->outdir = outdir;
	records = g_build_filename(outdir, "trials.jsonl", NULL);

	mhlSignalsInstall();
	if (mhlLibvirtStart(outdir) < 0)
		return EXIT_USAGE;
	if (o->uri) {
		uri = g_strdup(o->uri);
	} else {
		mhlStaleRootsClean();
		if (!(root = mhlEmbedRootCreate()))
			return EXIT_USAGE;
		uri = g_strdup_printf("qemu:///embed?root=%s", root);
	}
	q.conn = virConnectOpen(uri);
	if (!q.conn) {
		mhlErrorVirt("cannot connect to libvirt at '%s'", uri);
		if (root)
			mhlRemoveTree(root);
		return EXIT_USAGE;
	}
	if (mhlTrialEventsRegister(q.conn) < 0) {
		virConnectClose(q.conn);
		if (root)
			mhlRemoveTree(root);
		return EXIT_USAGE;
	}
	cfg->uri = uri;
	q.jobs = jobs;
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: %u trial(s), %d at a time, %s (%s), %s, records %s\n",
			jobs->len, n, cfg->accel, why, uri, records);
	threads = g_new0(pthread_t, n);
	for (i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, worker, &q);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	g_free(threads);
	virConnectClose(q.conn);
	if (root)
		mhlRemoveTree(root);

	for (k = 0; k < jobs->len; k++) {
		mhlJob *j = jobs->pdata[k];

		if (!j->rec || j->verdict != MHL_VERDICT_PASS)
			rc = EXIT_FAILED;
	}
	if (o->json) {
		printJSON(jobs, records, mhlNow() - t0);
	} else if (!o->quiet) {
		if (jobs->len == 1)
			printSummary(((mhlJob *)jobs->pdata[0])->rec, records);
		printTable(jobs, records);
	} else {
		printTable(jobs, records);
	}
	if (!o->json && !o->quiet) {
		double cpu;
		long rss;

		selfUsage(&cpu, &rss);
		printf("  orchestrator:     %.2f s CPU for %.1f s of wall time, peak RSS %ld MiB\n", cpu,
		       mhlNow() - t0, rss >> 10);
	}
	mhlReportAfterRun(outdir, o->quiet || o->json);
	return rc;
}
