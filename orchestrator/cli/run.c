/*
 * run.c - `memhp-lab run SCENARIO...`: expand every scenario's matrix, check
 * every trial's kernel before anything boots, then run the trials on up to N
 * guests at once (worker threads sharing one libvirt connection), each
 * appending its record to DIR/trials.jsonl as it ends. Progress goes to
 * stderr, the table of verdicts to stdout (or JSON with --json).
 */
#include <glib.h>

#include "cli/run.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "host/kernel.h"
#include "host/session.h"
#include "mhl-exit.h"
#include "reports/report.h"
#include "scenario/scenario.h"
#include "trial/queue.h"
#include "util.h"

/* QEMU's own memory next to the guest's (TCG translation cache, devices). */
#define QEMU_OVERHEAD	(256ULL << 20)

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

static void printSummary(json_object *rec, const char *records)
{
	mhlSummary m;

	mhlSummaryRead(rec, &m);
	printf("\n%s: %s\n", mhlJStr(rec, MHL_K_TRIAL, ""), mhlJStr(rec, MHL_K_VERDICT, ""));
	if (mhlJ(rec, MHL_K_REASON))
		printf("  reason:           %s\n", mhlJStr(rec, MHL_K_REASON, ""));
	if (m.boot_to_agent_s >= 0)
		printf("  boot to agent:    %.1f s (%s)\n", m.boot_to_agent_s,
		       mhlJStr(rec, MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL), ""));
	if (m.pinned_bytes >= 0)
		printf("  pinned:           %" G_GINT64_FORMAT " MiB\n", m.pinned_bytes >> 20);
	if (m.pinned_pages_movable_before >= 0)
		printf("  left ZONE_MOVABLE at pin time: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " pages in Movable (%" G_GINT64_FORMAT " left there)\n",
		       m.pinned_pages_movable_before - m.pinned_pages_movable_after,
		       m.pinned_pages_movable_before, m.pinned_pages_movable_after);
	if (m.pins_failed >= 0)
		printf("  pins failed:      %" G_GINT64_FORMAT "\n", m.pins_failed);
	if (m.requested_bytes >= 0)
		printf("  unplug:           requested %" G_GINT64_FORMAT " MiB, reached %" G_GINT64_FORMAT " MiB",
		       m.requested_bytes >> 20, m.reached_bytes >> 20);
	if (m.seconds_to_converge >= 0)
		printf(", converged in %.1f s\n", m.seconds_to_converge);
	else if (m.requested_bytes >= 0)
		printf(", did not converge\n");
	if (m.pattern_ok_after_resize != MHL_TRI_UNSET)
		printf("  integrity:        pattern %s after the unplug",
		       m.pattern_ok_after_resize ? "intact" : "CORRUPT");
	if (m.pattern_ok_at_release != MHL_TRI_UNSET)
		printf(", %s at release\n", m.pattern_ok_at_release ? "intact" : "CORRUPT");
	else if (m.pattern_ok_after_resize != MHL_TRI_UNSET)
		printf("\n");
	printf("  console:          %zu finding(s), log %s\n",
	       json_object_array_length(mhlJ(rec, MHL_K_CONSOLE_FINDINGS)), mhlJStr(rec, MHL_K_CONSOLE_LOG, ""));
	printf("  record:           %s\n", records);
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
		char pinned[32] = "-", reach[48] = "-", pins[24] = "-", secs[32] = "-";
		mhlSummary m;

		mhlSummaryRead(j->rec, &m);
		if (m.pinned_bytes >= 0)
			snprintf(pinned, sizeof(pinned), "%" G_GINT64_FORMAT " MiB", m.pinned_bytes >> 20);
		if (m.requested_bytes >= 0)
			snprintf(reach, sizeof(reach), "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " MiB",
				 MAX(m.reached_bytes, 0) >> 20, m.requested_bytes >> 20);
		if (m.pins_failed >= 0)
			snprintf(pins, sizeof(pins), "%" G_GINT64_FORMAT, m.pins_failed);
		if (mhlJ(j->rec, MHL_K_SECONDS))
			snprintf(secs, sizeof(secs), "%.1f", mhlJDbl(j->rec, MHL_K_SECONDS, 0));
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

/* Everything a trial reads from the host: files checked, accel chosen. -1 + mhlError. */
static int runConfig(const mhlRunOptions *o, GPtrArray *jobs, mhlRunConfig *cfg, char **why)
{
	const char *need[] = { o->initrd, o->tmpl, MHL_EMULATOR };
	size_t e;

	for (e = 0; e < G_N_ELEMENTS(need); e++) {
		if (access(need[e], R_OK) < 0) {
			mhlError("run: cannot read '%s': %s (make demo builds it)", need[e], g_strerror(errno));
			return -1;
		}
	}
	cfg->emulator = MHL_EMULATOR;
	cfg->agent_deadline = o->agent_deadline;
	cfg->quiet = o->quiet;
	cfg->initrd = o->initrd;
	cfg->tmpl_path = o->tmpl;
	cfg->accel = mhlAccelChoose(cfg->emulator, ((mhlJob *)jobs->pdata[0])->image, o->cache, why);
	cfg->accel_why = *why;
	return 0;
}

/* -o DIR, or results/<first scenario>-<time>; created. NULL + mhlError. */
static char *runDir(const mhlRunOptions *o, GPtrArray *jobs)
{
	g_autofree char *outdir = NULL;

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
		return NULL;
	}
	return g_steal_pointer(&outdir);
}

/* What `run` prints at the end: a summary of a lone trial, the table or JSON, its own cost. */
static void runPrint(const mhlRunOptions *o, GPtrArray *jobs, const char *records, double t0)
{
	double cpu;
	long rss;

	if (o->json) {
		printJSON(jobs, records, mhlNow() - t0);
		return;
	}
	if (!o->quiet && jobs->len == 1)
		printSummary(((mhlJob *)jobs->pdata[0])->rec, records);
	printTable(jobs, records);
	if (o->quiet)
		return;
	selfUsage(&cpu, &rss);
	printf("  orchestrator:     %.2f s CPU for %.1f s of wall time, peak RSS %ld MiB\n", cpu,
	       mhlNow() - t0, rss >> 10);
}

int mhlRunTrials(const mhlRunOptions *o, char **scenarios, int nscenarios)
{
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func((GDestroyNotify)mhlJobFree);
	g_autofree char *outdir = NULL, *why = NULL, *records = NULL;
	mhlRunConfig cfg = { 0 };
	mhlSession ses;
	double t0 = mhlNow();
	int n, rc = MHL_EXIT_PASS;
	guint k;

	if (jobsLoad(o, scenarios, nscenarios, jobs) < 0 || (n = jobsChoose(o, jobs)) < 0 ||
	    runConfig(o, jobs, &cfg, &why) < 0 || !(outdir = runDir(o, jobs)))
		return MHL_EXIT_USAGE;
	cfg.outdir = outdir;
	records = g_build_filename(outdir, "trials.jsonl", NULL);
	mhlSignalsInstall();
	if (mhlSessionOpen(&ses, o->uri, outdir) < 0)
		return MHL_EXIT_USAGE;
	cfg.uri = ses.uri;
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: %u trial(s), %d at a time, %s (%s), %s, records %s\n",
			jobs->len, n, cfg.accel, why, ses.uri, records);
	mhlQueueRun(ses.conn, &cfg, jobs, n);
	mhlSessionClose(&ses);
	for (k = 0; k < jobs->len; k++) {
		mhlJob *j = jobs->pdata[k];

		if (!j->rec || j->verdict != MHL_VERDICT_PASS)
			rc = MHL_EXIT_FAILED;
	}
	runPrint(o, jobs, records, t0);
	mhlReportAfterRun(outdir, o->quiet || o->json, o->srcdir);
	return rc;
}
