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
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include "host/accel.h"
#include "host/kernel.h"
#include "fleet/fleet.h"
#include "host/identity.h"
#include "host/session.h"
#include "cli/shard.h"
#include "mhl-exit.h"
#include "reports/report.h"
#include "scenario/names.h"
#include "scenario/scenario.h"
#include "trial/queue.h"
#include "util.h"

/* run.json is written by run (scenarios, options, host identity: a few KiB); a larger one is not ours */
#define MHL_RUN_JSON_MAX (1024 * 1024)

int mhlJobsDefault(const mhlHostFit *h)
{
	uint64_t fit = h->need_bytes ? h->avail_bytes / h->need_bytes : 0;

	if (!fit)
		return 0;
	return (int)MIN(fit, (uint64_t)MAX(h->cores, 1));
}

uint64_t mhlMemAvailable(void)
{
	g_autofree char *text = NULL;
	const char *p;
	unsigned long long kib;

	if (!g_file_get_contents("/proc/meminfo", &text, NULL, NULL) ||
	    !(p = strstr(text, "MemAvailable:")) || sscanf(p, "MemAvailable: %llu", &kib) != 1)
		return 0;
	return kib * 1024;
}

/*
 * Every resize of the trial, where there was more than one: the summary's
 * unplug line is the last one's, and "1.5 GiB taken back, then 2 MiB" must
 * not read as the 2 MiB alone (issue 52 item 5). "" when one or none.
 */
static char *resizesText(json_object *rec)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	g_autoptr(GString) t = g_string_new(NULL);
	size_t i, n = 0;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i);
		gint64 from = mhlJInt(st, MHL_K_PLUGGED_BEFORE_BYTES, -1), to = mhlJInt(st, MHL_K_REACHED_BYTES, -1);

		if (strcmp(mhlJStr(st, MHL_K_STEP, ""), "resize"))
			continue;
		n++;
		if (from >= 0)
			g_string_append_printf(t, "%s%" G_GINT64_FORMAT " -> ", t->len ? ", " : "", from >> 20);
		else
			g_string_append_printf(t, "%sto ", t->len ? ", " : "");
		if (to >= 0)
			g_string_append_printf(t, "%" G_GINT64_FORMAT " MiB", to >> 20);
		else
			g_string_append(t, "? MiB");
		g_string_append_printf(t, " of %" G_GINT64_FORMAT " asked", mhlJInt(st, MHL_K_REQUESTED_BYTES, 0) >> 20);
		if (mhlJBool(st, MHL_K_CONVERGED, false))
			g_string_append_printf(t, " (%.1f s)", mhlJDbl(st, MHL_K_SECONDS_TO_CONVERGE, 0));
		else
			g_string_append(t, " (short)");
	}
	return n > 1 ? g_strdup_printf("%zu: %s", n, t->str) : g_strdup("");
}

static void printSummary(json_object *rec, const char *records)
{
	g_autofree char *resizes = resizesText(rec);
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
		printf("  ZONE_MOVABLE:     %" G_GINT64_FORMAT " pinned page(s) there before the pin, %" G_GINT64_FORMAT
		       " after it (%" G_GINT64_FORMAT " moved out)\n", m.pinned_pages_movable_before,
		       m.pinned_pages_movable_after, m.pinned_pages_movable_before - m.pinned_pages_movable_after);
	if (m.pins_failed >= 0)
		printf("  pins failed:      %" G_GINT64_FORMAT "\n", m.pins_failed);
	if (m.requested_bytes >= 0)
		printf("  unplug:           requested %" G_GINT64_FORMAT " MiB, reached %" G_GINT64_FORMAT " MiB",
		       m.requested_bytes >> 20, m.reached_bytes >> 20);
	if (m.seconds_to_converge >= 0)
		printf(", converged in %.1f s%s\n", m.seconds_to_converge, *resizes ? " (the last resize)" : "");
	else if (m.requested_bytes >= 0)
		printf(", did not converge%s\n", *resizes ? " (the last resize)" : "");
	if (*resizes)
		printf("  resizes:          %s\n", resizes);
	if (m.host_reclaimed_bytes >= 0) {
		printf("  host:             %" G_GINT64_FORMAT " MiB back over %" G_GINT64_FORMAT " shrink(s) (backend %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " MiB)",
		       m.host_reclaimed_bytes >> 20, MAX(m.host_shrinks, 1), m.host_before_bytes >> 20, m.host_after_bytes >> 20);
		if (m.host_reclaimed_of_reclaimable >= 0)
			printf(", %.0f %% of what had to come back", m.host_reclaimed_of_reclaimable * 100);
		printf(", settled %.2f s after the request%s\n", MAX(m.host_settle_s, 0),
		       m.host_shrinks > 1 ? " (the longest)" : "");
	}
	if (m.pattern_ok_after_resize != MHL_TRI_UNSET)
		printf("  integrity:        pattern %s after the unplug",
		       m.pattern_ok_after_resize ? "intact" : "CORRUPT");
	if (m.pattern_ok_at_release != MHL_TRI_UNSET)
		printf(", %s at release\n", m.pattern_ok_at_release ? "intact" : "CORRUPT");
	else if (m.pattern_ok_after_resize != MHL_TRI_UNSET)
		printf("\n");
	printf("  console:          %zu finding(s), log %s\n",
	       json_object_is_type(mhlJ(rec, MHL_K_CONSOLE_FINDINGS), json_type_array) ?
	       json_object_array_length(mhlJ(rec, MHL_K_CONSOLE_FINDINGS)) : 0, mhlJStr(rec, MHL_K_CONSOLE_LOG, ""));
	printf("  record:           %s\n", records);
}

/* The table of verdicts, one line per trial, and the totals. */
static void printTable(GPtrArray *jobs, const char *records, bool quiet)
{
	int counts[MHL_VERDICT_LAST + 1] = { 0 };
	size_t w = 5;
	guint i;

	for (i = 0; i < jobs->len; i++)
		w = MAX(w, strlen(((mhlJob *)jobs->pdata[i])->s->name));
	printf("%s%-*s  %-11s %8s %21s %6s %8s %16s\n", quiet ? "" : "\n", (int)w, "trial", "verdict", "pinned",
	       "reached/requested", "pins", "seconds", "host got back");
	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		char pinned[32] = "-", reach[48] = "-", pins[24] = "-", secs[32] = "-", host[48] = "-";
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
		/* the host side over every shrink: MiB back, and the share of what had to come back */
		if (m.host_reclaimed_bytes >= 0 && m.host_reclaimed_of_reclaimable >= 0)
			snprintf(host, sizeof(host), "%" G_GINT64_FORMAT " MiB %3.0f%%", m.host_reclaimed_bytes >> 20,
				 m.host_reclaimed_of_reclaimable * 100);
		else if (m.host_reclaimed_bytes >= 0)
			snprintf(host, sizeof(host), "%" G_GINT64_FORMAT " MiB", m.host_reclaimed_bytes >> 20);
		printf("%-*s  %-11s %8s %21s %6s %8s %16s\n", (int)w, j->s->name,
		       j->rec ? mhlVerdictNames[j->verdict] : "not run", pinned, reach, pins, secs, host);
		counts[j->rec ? j->verdict : MHL_VERDICT_LAST]++;
	}
	printf("%d passed, %d failed, %d error, %d interrupted, %d not run", counts[MHL_VERDICT_PASS],
	       counts[MHL_VERDICT_FAIL] + counts[MHL_VERDICT_XPASS], counts[MHL_VERDICT_ERROR],
	       counts[MHL_VERDICT_INTERRUPTED], counts[MHL_VERDICT_LAST]);
	if (counts[MHL_VERDICT_SKIP] + counts[MHL_VERDICT_XFAIL] + counts[MHL_VERDICT_XPASS])
		printf(", %d skipped, %d expected failures, %d unexpected passes", counts[MHL_VERDICT_SKIP],
		       counts[MHL_VERDICT_XFAIL], counts[MHL_VERDICT_XPASS]);
	printf(" (records: %s)\n", records);
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

/* No two trials of the run, from one scenario file or two, write one console log (issue 30, finding 9). */
static int jobsLogsUnique(GPtrArray *jobs)
{
	g_autoptr(GPtrArray) trials = g_ptr_array_new();
	guint i;

	for (i = 0; i < jobs->len; i++)
		g_ptr_array_add(trials, ((mhlJob *)jobs->pdata[i])->s);
	if (mhlTrialLogNamesUnique(trials) < 0) {
		g_autofree char *why = g_strdup(mhlErrorLast());

		mhlErrorReset();
		mhlError("run: %s", why);
		return -1;
	}
	return 0;
}

/*
 * --resume: a trial run again writes its console log anew (a trial's log is
 * created, never overwritten): the log its lost attempt left, named after
 * this trial alone (mhlTrialLogName), goes first.
 */
static void jobsLostLogs(const char *dir, GPtrArray *jobs)
{
	guint i;
	int a;

	for (i = 0; i < jobs->len; i++)
		for (a = 1; a <= 2; a++) {
			g_autofree char *log = mhlTrialLogName(((mhlJob *)jobs->pdata[i])->s->name, a);
			g_autofree char *path = g_build_filename(dir, log, NULL);

			if (unlink(path) < 0 && errno != ENOENT)
				fprintf(stderr, "memhp-lab: warning: --resume: cannot remove the lost attempt's console log '%s': %s\n",
					path, g_strerror(errno));
		}
}

/*
 * A trial id names the record, the console log and the report's rows: two
 * trials of one run with one id are refused, naming where each comes from.
 * -1 + mhlError.
 */
static int jobsUnique(GPtrArray *jobs)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	guint i;

	for (i = 0; i < jobs->len; i++) {
		const mhlScenario *s = ((mhlJob *)jobs->pdata[i])->s;
		const mhlScenario *first = g_hash_table_lookup(seen, s->name);

		if (first) {
			mhlError("run: trial id '%s' twice: from %s and from %s%s; ids name the records and logs (give each scenario once, with its own name:)",
				 s->name, first->path, s->path,
				 !strcmp(first->path, s->path) ? " (the same file)" : "");
			return -1;
		}
		g_hash_table_insert(seen, s->name, (gpointer)s);
	}
	return jobsLogsUnique(jobs);
}

/*
 * --pin-policy P (--kernel K) overrides a scenario's pin_policy (kernel);
 * where a matrix axis chose it ("pin_policy: ${policy}"), the trial's id
 * names the axis' value, so such a trial of another value is not run
 * rather than run under a policy its id contradicts (issue 32, item 20):
 * `run --pin-policy series c1.yaml` runs c1's series trials.
 */
static bool axisOther(const mhlRunOptions *o, const mhlScenario *s)
{
	if (o->pin_policy && s->pin_policy_from_axis && g_strcmp0(s->pin_policy, o->pin_policy))
		return true;
	if (o->stack && s->stack_from_axis && g_strcmp0(s->stack, o->stack))
		return true;
	return o->kernel && !strchr(o->kernel, ':') && s->kernel_from_axis &&
	       g_strcmp0(s->kernel, o->kernel);
}

/*
 * The stack trial @s runs on: --stack's, else its stack: (docs/stacks.md);
 * with --uri or a fleet, the daemons named there ("uri"), which a stack the
 * lab builds cannot be. -1 + mhlError.
 */
static int jobStack(const mhlRunOptions *o, mhlScenario *s)
{
	if (o->stack && mhlNameIndex(mhlStacks, o->stack) < 0) {
		g_autofree char *known = mhlNamesKnown(mhlStacks);

		mhlError("run: unknown stack '%s' (known: %s)", o->stack, known);
		return -1;
	}
	if (o->stack)
		g_strlcpy(s->stack, o->stack, sizeof(s->stack));
	if (!o->uri && !o->hosts && !o->hosts_file)
		return 0;
	if (mhlStackOf(s->stack)->built) {
		mhlError("run: trial '%s' (%s) runs on the %s stack, which memhp-lab starts itself; --uri, --host and --hosts name daemons of their own: give one or the other",
			 s->name, s->path, s->stack);
		return -1;
	}
	g_strlcpy(s->stack, MHL_STACK_URI, sizeof(s->stack));
	return 0;
}

/* Every scenario's trials, filtered by --only, ids unique; --kernel/--pin-policy/--stack applied. */
static int jobsLoad(const mhlRunOptions *o, char **scenarios, int nscenarios, GPtrArray *jobs)
{
	int i;

	for (i = 0; i < nscenarios; i++) {
		g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
		guint k, other = 0;

		if (mhlScenarioLoadAll(scenarios[i], all) < 0)
			return -1;
		for (k = 0; k < all->len; k++) {
			mhlJob *j;

			if (o->only && !g_pattern_match_simple(o->only, ((mhlScenario *)all->pdata[k])->name))
				continue;
			if (axisOther(o, all->pdata[k])) {
				other++;
				continue;
			}
			j = g_new0(mhlJob, 1);
			j->s = g_steal_pointer(&all->pdata[k]);
			g_ptr_array_add(jobs, j);
			if (mhlScenarioOverride(j->s, o->kernel, o->pin_policy) < 0 || jobStack(o, j->s) < 0)
				return -1;
		}
		if (other && !o->quiet)
			fprintf(stderr, "memhp-lab: %s: %u trial(s) not run: their matrix axis chose another %s than %s%s%s\n",
				scenarios[i], other, o->stack ? "stack" : o->pin_policy ? "pin_policy" : "kernel",
				o->stack ? "--stack " : o->pin_policy ? "--pin-policy " : "--kernel ",
				o->stack ? o->stack : o->pin_policy ? o->pin_policy : o->kernel,
				(o->stack && (o->pin_policy || o->kernel)) || (o->pin_policy && o->kernel) ? " (or another option)" : "");
	}
	if (!jobs->len) {
		mhlError("run: no trial %s%s%s", o->only ? "matches --only '" : "in the scenarios",
			 o->only ? o->only : "", o->only ? "'" : "");
		return -1;
	}
	return jobsUnique(jobs);
}

/* Every trial's kernel found and its config checked, before anything boots. */
static int jobsKernels(const mhlRunOptions *o, GPtrArray *jobs)
{
	guint i;

	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];

		if (!(j->image = mhlKernelResolve(j->s, o->cache, o->kernel_dir, o->srcdir, &j->identity,
						     &j->skips)))
			return -1;
	}
	return 0;
}

/*
 * -j: the default from cores and memory, or the user's N if the guests fit.
 * Either way at least one guest runs, so one guest larger than MemAvailable
 * is refused here, with the numbers item by item and its file, rather than
 * inside QEMU.
 */
static int jobsChoose(const mhlRunOptions *o, GPtrArray *jobs)
{
	mhlHostFit h = { .avail_bytes = mhlMemAvailable(), .cores = (int)sysconf(_SC_NPROCESSORS_ONLN) };
	const mhlScenario *big = NULL;
	g_autofree char *items = NULL;
	mhlGuestFit f;
	int n;
	guint i;

	for (i = 0; i < jobs->len; i++) {
		const mhlScenario *s = ((mhlJob *)jobs->pdata[i])->s;
		uint64_t need = mhlScenarioGuestBytes(s, false);

		if (!big || need > h.need_bytes) {
			h.need_bytes = need;
			big = s;
		}
	}
	n = MAX(o->jobs ? o->jobs : mhlJobsDefault(&h), 1);
	if (!big || !h.avail_bytes || h.need_bytes <= h.avail_bytes / (uint64_t)n)
		return MIN(n, (int)jobs->len);
	mhlScenarioGuestFit(big, false, &f);
	items = mhlGuestFitText(&f);
	if (n == 1)
		mhlError("run: %s: trial '%s': a guest that can make %" G_GUINT64_FORMAT " MiB resident (%s) does not fit in the %" G_GUINT64_FORMAT " MiB available (MemAvailable in /proc/meminfo); make its nodes or pins smaller",
			 big->path, big->name, h.need_bytes >> 20, items, h.avail_bytes >> 20);
	else
		mhlError("run: %d guest(s) that can make up to %" G_GUINT64_FORMAT " MiB resident each (the largest, %s: trial '%s': %s) need %" G_GUINT64_FORMAT " MiB, but only %" G_GUINT64_FORMAT " MiB is available (MemAvailable in /proc/meminfo); use a smaller -j",
			 n, h.need_bytes >> 20, big->path, big->name, items,
			 (h.need_bytes >> 20) * (uint64_t)n, h.avail_bytes >> 20);
	return -1;
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
	cfg->keep = o->keep;
	cfg->initrd = o->initrd;
	cfg->tmpl_path = o->tmpl;
	cfg->accel = mhlAccelChoose(cfg->emulator, ((mhlJob *)jobs->pdata[0])->image, o->cache, o->quiet, why);
	cfg->accel_why = *why;
	return 0;
}

/* Whether @dir is a directory with an entry in it (a file that is no directory counts too). */
static bool dirHasEntries(const char *dir)
{
	g_autoptr(GDir) d = NULL;

	if (!g_file_test(dir, G_FILE_TEST_EXISTS))
		return false;
	if (!(d = g_dir_open(dir, 0, NULL)))
		return true;
	return g_dir_read_name(d) != NULL;
}

/* -o DIR (empty or new, unless --append), or results/<first scenario>-<time>; created. NULL + mhlError. */
static char *runDir(const mhlRunOptions *o, GPtrArray *jobs)
{
	g_autofree char *outdir = NULL;
	mhl_autofd int fd = -1;
	bool made;

	if (o->outdir) {
		outdir = g_canonicalize_filename(o->outdir, NULL);
	} else {
		g_autoptr(GDateTime) now = g_date_time_new_now_local();
		g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
		g_autofree char *rel = g_strdup_printf("results/%s-%s",
						       ((mhlJob *)jobs->pdata[0])->s->scenario_name, stamp);

		outdir = g_canonicalize_filename(rel, NULL);
	}
	if (!o->resume && !o->append && dirHasEntries(outdir)) {
		/* records appended to another run's: the report would show two runs as one */
		mhlError("run: run directory '%s' is not empty: a run is there already; finish it with --resume %s, give another -o, or add to it with --append",
			 outdir, outdir);
		return NULL;
	}
	made = !g_file_test(outdir, G_FILE_TEST_EXISTS);
	if (g_mkdir_with_parents(outdir, 0755) < 0) {
		mhlError("run: cannot create run directory '%s': %s", outdir, g_strerror(errno));
		return NULL;
	}
	/*
	 * Every file of it is opened below its descriptor, never through a
	 * link (mhlOpenAt); and it is ours, writable by no one else, so that
	 * nothing is put into it between two writes (docs/security.md). One we
	 * made has our mode whatever the umask.
	 */
	if ((fd = mhlDirOpen(outdir)) < 0) {
		mhlError("run: run directory '%s': %s", outdir,
			 errno == ELOOP || errno == ENOTDIR ? "not a directory (a link?)" : g_strerror(errno));
		return NULL;
	}
	if (made)
		(void)fchmod(fd, 0755);
	if (mhlRunDirTrusted(fd, outdir, "run") < 0)
		return NULL;
	if (!o->outdir)
		mhlResultsLatest(outdir);	/* results/latest: the newest of the run directories named here */
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
	if (!o->quiet && jobs->len == 1 && ((mhlJob *)jobs->pdata[0])->rec)
		printSummary(((mhlJob *)jobs->pdata[0])->rec, records);
	printTable(jobs, records, o->quiet);
	if (o->quiet)
		return;
	selfUsage(&cpu, &rss);
	printf("  orchestrator:     %.2f s CPU for %.1f s of wall time, peak RSS %ld MiB\n", cpu,
	       mhlNow() - t0, rss >> 10);
}

/*
 * RUN_DIR/run.json: what `run` was asked to do (the real paths of the
 * scenarios, --kernel, --pin-policy, --kernel-dir, --only), so that
 * --resume runs the same trials. Written before any trial starts.
 */
static int runSave(const mhlRunOptions *o, char **scenarios, int n, const char *outdir)
{
	g_autofree char *path = g_build_filename(outdir, "run.json", NULL);
	g_autoptr(json_object) run = json_object_new_object();
	mhl_autofd int dfd = -1;
	json_object *list = json_object_new_array();
	g_autofree char *hosts_file = mhlRealPath(o->hosts_file), *kernel_dir = mhlRealPath(o->kernel_dir);
	const char *const keys[] = { "kernel", "pin_policy", "kernel_dir", "only", "hosts", "hosts_file", "stack" };
	const char *const vals[] = { o->kernel, o->pin_policy, kernel_dir, o->only, o->hosts, hosts_file, o->stack };
	size_t k;
	int i;

	for (i = 0; i < n; i++) {
		g_autofree char *abs = mhlRealPath(scenarios[i]);

		json_object_array_add(list, json_object_new_string(abs));
	}
	json_object_object_add(run, "scenarios", list);
	/* the machine the run was started on: what changed after an upgrade (trials name their own hosts) */
	json_object_object_add(run, MHL_K_HOST_IDENTITY, mhlHostIdentityLocal());
	{
		g_autofree char *job = mhlJobId();

		json_object_object_add(run, "job_id", json_object_new_string(job));
	}
	if (o->shard_n) {
		/* which shard, and every trial of the whole run: report --merge checks the shards against it */
		json_object *sh = json_object_new_object();

		g_autofree char *kn = g_strdup_printf("%d/%d", o->shard_k, o->shard_n);

		json_object_object_add(sh, "k_of_n", json_object_new_string(kn));
		json_object_object_add(sh, "trials", json_object_get(o->shard_trials));
		json_object_object_add(run, "shard", sh);
	}
	for (k = 0; k < G_N_ELEMENTS(keys); k++)
		if (vals[k])
			json_object_object_add(run, keys[k], json_object_new_string(vals[k]));
	/*
	 * The options that shaped the run but are not the trials' (issue 52 item
	 * 5): for the reader of a run, never read back by --resume, which takes
	 * them from its own command line.
	 */
	{
		json_object *opts = json_object_new_object(), *peers = json_object_new_array();
		g_auto(GStrv) pl = g_strsplit(o->peers ? o->peers : "", "\n", -1);

		json_object_object_add(opts, "jobs", o->jobs ? json_object_new_int(o->jobs) : NULL);
		for (i = 0; pl[i]; i++)
			if (*pl[i])
				json_object_array_add(peers, json_object_new_string(pl[i]));
		json_object_object_add(opts, "peers", peers);
		json_object_object_add(opts, "daemon_restart", o->daemon_restart ? json_object_new_string(o->daemon_restart) : NULL);
		json_object_object_add(opts, "append", json_object_new_boolean(o->append));
		json_object_object_add(run, "options", opts);
	}
	if ((dfd = mhlDirOpen(outdir)) < 0) {
		mhlError("run: cannot write '%s': %s", path, g_strerror(errno));
		return -1;
	}
	return mhlFileWriteAt(dfd, "run.json", path, json_object_to_json_string_ext(run, JSON_C_TO_STRING_PRETTY), -1);
}

/*
 * What --resume RUN_DIR resumes: run.json read back into @o and @scenarios.
 * RUN_DIR is data (docs/security.md, "Run directories"): types checked, and
 * every path it names held to mhlRunDirPath (absolute, its own real path, a
 * regular file or directory outside RUN_DIR, a scenario a .yaml file); the
 * scenarios then load and the options are checked as a plain run's are.
 */
static int runResumeLoad(mhlRunOptions *o, GPtrArray *scenarios, json_object **keep)
{
	g_autofree char *path = g_build_filename(o->resume, "run.json", NULL), *text = NULL;
	mhl_autofd int dfd = mhlDirOpen(o->resume);
	json_object *run, *list;
	size_t i;

	/* a run directory we write into again: ours alone; run.json a regular file of bounded size */
	if (dfd < 0) {
		mhlError("run: --resume: run directory '%s': %s", o->resume,
			 errno == ELOOP || errno == ENOTDIR ? "not a directory" : g_strerror(errno));
		return -1;
	}
	if (mhlRunDirTrusted(dfd, o->resume, "run: --resume") < 0 ||
	    !(text = mhlFileReadAt(dfd, "run.json", path, MHL_RUN_JSON_MAX, NULL, NULL)))
		return -1;
	run = *keep = json_tokener_parse(text);
	list = mhlJ(run, "scenarios");
	if (!run || !json_object_is_type(run, json_type_object) || !list ||
	    !json_object_is_type(list, json_type_array) || !json_object_array_length(list)) {
		mhlError("run: --resume: '%s' is not a run.json (an object with a list of scenarios)", path);
		return -1;
	}
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);

		g_autofree char *what = g_strdup_printf("run: --resume: '%s': scenarios[%zu]", path, i);

		if (!json_object_is_type(e, json_type_string)) {
			mhlError("%s is not a path", what);
			return -1;
		}
		if (mhlRunDirPath(o->resume, what, json_object_get_string(e), false, true) < 0)
			return -1;
		g_ptr_array_add(scenarios, (char *)json_object_get_string(e));
	}
	for (i = 0; i < 7; i++) {
		const char *const key[] = { "kernel_dir", "hosts_file", "hosts", "kernel", "pin_policy", "only", "stack" };
		g_autofree char *what = g_strdup_printf("run: --resume: '%s': %s", path, key[i]);
		json_object *v = mhlJ(run, key[i]);

		if (v && !json_object_is_type(v, json_type_string)) {
			mhlError("%s is not a string", what);
			return -1;
		}
		if (v && i < 2 && mhlRunDirPath(o->resume, what, json_object_get_string(v), i == 0, false) < 0)
			return -1;
	}
	o->kernel = mhlJStr(run, "kernel", NULL);
	o->pin_policy = mhlJStr(run, "pin_policy", NULL);
	o->stack = mhlJStr(run, "stack", NULL);
	o->kernel_dir = mhlJStr(run, "kernel_dir", NULL);
	o->only = mhlJStr(run, "only", NULL);
	/* a fleet run resumes over the same hosts, unless --host/--hosts name others */
	if (!o->hosts && !o->hosts_file) {
		o->hosts = mhlJStr(run, "hosts", NULL);
		o->hosts_file = mhlJStr(run, "hosts_file", NULL);
	}
	if (mhlJ(run, "shard") && mhlShardParse(mhlJStr(mhlJ(run, "shard"), "k_of_n", ""), &o->shard_k, &o->shard_n) < 0) {
		mhlErrorReset();
		mhlError("run: --resume: '%s': shard.k_of_n is not K/N", path);
		return -1;
	}
	o->outdir = o->resume;
	return 0;
}

/* --resume: drop the jobs whose trial already has its final record in RUN_DIR/trials.jsonl. */
static int jobsUnfinished(const mhlRunOptions *o, GPtrArray *jobs)
{
	g_autofree char *records = g_build_filename(o->resume, "trials.jsonl", NULL);
	g_autoptr(GHashTable) done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(mhlRun) run = NULL;
	guint i, total = jobs->len;
	mhl_autofd int fd = mhlOpenIn(o->resume, "trials.jsonl", O_RDONLY, 0);

	/* a link, FIFO or other file at the name is refused: its trials would be appended to it */
	if (fd < 0 && errno != ENOENT) {
		mhlError("run: --resume: '%s': %s", records,
			 mhlOpenWhy(errno));
		return -1;
	}
	if (fd >= 0 && !(run = mhlRunLoad(o->resume)))
		mhlErrorReset();	/* an empty trials.jsonl: nothing finished */
	for (i = 0; run && i < run->trials->len; i++)
		/* a fleet trial whose host went away ran (or runs) again: its error is not its outcome */
		if (mhlVerdictOf(run->trials->pdata[i]) < MHL_VERDICT_LOST &&
		    !mhlJBool(run->trials->pdata[i], MHL_K_REQUEUED, false) &&
		    !mhlJBool(run->trials->pdata[i], MHL_K_NOT_RUN, false))
			g_hash_table_add(done, g_strdup(mhlJStr(run->trials->pdata[i], MHL_K_TRIAL, "")));
	for (i = jobs->len; i-- > 0;)
		if (g_hash_table_contains(done, ((mhlJob *)jobs->pdata[i])->s->name))
			g_ptr_array_remove_index(jobs, i);
	if (!jobs->len) {
		mhlError("run: --resume: '%s' is complete (all %u trial(s) have their record); nothing to resume",
			 o->resume, total);
		return -1;
	}
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: resuming %s: %u of %u trial(s) have no record yet\n", o->resume,
			jobs->len, total);
	jobsLostLogs(o->resume, jobs);
	return 0;
}

/*
 * --shard K/N: keep the jobs of shard K (mhlShardOf); the whole run's trial
 * ids go to *all for run.json (report --merge checks the shards against
 * them). 0, or 1 when shard K holds none of them.
 */
static int jobsShard(const mhlRunOptions *o, GPtrArray *jobs, json_object **all)
{
	guint i, total = jobs->len;

	if (!o->shard_n)
		return 0;
	*all = json_object_new_array();
	for (i = 0; i < jobs->len; i++)
		json_object_array_add(*all, json_object_new_string(((mhlJob *)jobs->pdata[i])->s->name));
	for (i = jobs->len; i-- > 0;)
		if (mhlShardOf(((mhlJob *)jobs->pdata[i])->s->name, o->shard_n) != o->shard_k)
			g_ptr_array_remove_index(jobs, i);
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: shard %d/%d: %u of the run's %u trial(s)\n", o->shard_k, o->shard_n,
			jobs->len, total);
	return jobs->len ? 0 : 1;
}

/* The trials to run: from the scenarios given, or those --resume has left to do; 1: none in this shard. */
static int runJobs(mhlRunOptions *o, char **scenarios, int nscenarios, GPtrArray *jobs)
{
	g_autoptr(GPtrArray) saved = g_ptr_array_new();
	g_autoptr(json_object) keep = NULL;

	if (o->resume) {
		g_autoptr(json_object) all = NULL;

		if (runResumeLoad(o, saved, &keep) < 0 ||
		    jobsLoad(o, (char **)saved->pdata, (int)saved->len, jobs) < 0 || jobsShard(o, jobs, &all) < 0)
			return -1;
		/* o's strings point into keep: copied below before it goes */
		o->kernel = g_strdup(o->kernel);
		o->pin_policy = g_strdup(o->pin_policy);
		o->stack = g_strdup(o->stack);
		o->kernel_dir = g_strdup(o->kernel_dir);
		o->only = g_strdup(o->only);
		o->hosts = g_strdup(o->hosts);
		o->hosts_file = g_strdup(o->hosts_file);
		return jobsUnfinished(o, jobs);
	}
	if (jobsLoad(o, scenarios, nscenarios, jobs) < 0)
		return -1;
	return jobsShard(o, jobs, &o->shard_trials);
}

/* Each trial's guest image (mhlInitrdFor): the common one, Debian's, or either with its kernel's modules. */
static int jobsInitrd(const mhlRunOptions *o, GPtrArray *jobs, const char *outdir)
{
	guint i;

	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		g_autofree char *image = mhlInitrdFor(j->s, j->identity, o->initrd, outdir);

		if (!image)
			return -1;
		g_free(j->initrd);
		j->initrd = strcmp(image, o->initrd) ? g_steal_pointer(&image) : NULL;
	}
	return 0;
}

/* The largest guest of the run, QEMU's overhead included. */
static uint64_t jobsNeed(GPtrArray *jobs)
{
	uint64_t need = 0;
	guint i;

	for (i = 0; i < jobs->len; i++)
		need = MAX(need, mhlScenarioGuestBytes(((mhlJob *)jobs->pdata[i])->s, false));
	return need;
}

/* After the trials: the exit status, the table, the reports. */
static int runEnd(const mhlRunOptions *o, GPtrArray *jobs, const char *outdir, double t0)
{
	g_autofree char *records = g_build_filename(outdir, "trials.jsonl", NULL);
	int rc = MHL_EXIT_PASS;
	guint k;

	for (k = 0; k < jobs->len; k++) {
		mhlJob *j = jobs->pdata[k];

		/*
		 * xfail and skip do not fail a run; all skipped is 4, as kselftest's
		 * skip; an error is the kernel's (1) when its cause was the guest,
		 * else the lab's or the host's (3); a trial a signal kept from
		 * starting was interrupted (reports/exit.c)
		 */
		mhlVerdict v = j->rec ? j->verdict : mhlInterrupted ? MHL_VERDICT_INTERRUPTED : MHL_VERDICT_LAST;
		bool guest = j->rec && !g_strcmp0(mhlJStr(j->rec, MHL_K_ERROR_SOURCE, NULL), MHL_ERROR_SOURCE_GUEST);

		rc = mhlExitStatusAdd(rc, k == 0, v, guest);
	}
	mhlSysinfoSave(outdir, "post");
	runPrint(o, jobs, records, t0);
	mhlReportAfterRun(outdir, o->quiet || o->json, o->srcdir, mhlScenarioPlannedSteps);
	return rc;
}

/* The trials of @jobs on stack row @k (--uri's and a fleet's on the debian row's place). */
static GPtrArray *jobsOfStack(GPtrArray *jobs, int k)
{
	GPtrArray *part = g_ptr_array_new();
	guint i;

	for (i = 0; i < jobs->len; i++) {
		mhlJob *j = jobs->pdata[i];
		int row = mhlNameIndex(mhlStacks, j->s->stack);

		if (row == k || (row < 0 && k == MHL_STACK_DEBIAN))
			g_ptr_array_add(part, j);
	}
	return part;
}

/*
 * What a stack's daemon must see at the same paths: the run directory (the
 * consoles, a kernel's modules appended to the image), and the directory of
 * every trial's kernel and guest image. NULL-terminated; the strings ours.
 */
static GStrv stackShow(const mhlRunConfig *cfg, GPtrArray *part, const char *outdir)
{
	g_autoptr(GStrvBuilder) b = g_strv_builder_new();
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint i, f;

	g_hash_table_add(seen, g_strdup(outdir));
	for (i = 0; i < part->len; i++) {
		mhlJob *j = part->pdata[i];
		const char *files[] = { j->image, j->initrd ? j->initrd : cfg->initrd };

		for (f = 0; f < G_N_ELEMENTS(files); f++)
			if (files[f])
				g_hash_table_add(seen, g_path_get_dirname(files[f]));
	}
	{
		GHashTableIter it;
		gpointer key;

		g_hash_table_iter_init(&it, seen);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_strv_builder_add(b, key);
	}
	return g_strv_builder_end(b);
}

/*
 * The trials of @part on stack row @k: its session opened (the embedded
 * driver or --uri for debian; for a stack the lab builds, its root built
 * if missing and its daemon started), the trials run, the session closed.
 * Peers are connected with the @first session. -1 + mhlError when the
 * session could not open.
 */
static int runStack(const mhlRunOptions *o, mhlRunConfig *cfg, GPtrArray *part, int k, int n, const char *why,
		    const char *records, bool first)
{
	const mhlStack *st = &mhlStacks[k];
	g_autofree char *root = NULL;
	g_auto(GStrv) show = NULL;
	mhlSession ses;

	if (!st->built) {
		if (mhlSessionOpen(&ses, o->uri, cfg->outdir, o->cache) < 0)
			return -1;
	} else {
		mhlStackSpec spec = { .name = st->name, .srcdir = o->srcdir };

		if (!(root = mhlStackRoot(st->name, o->srcdir)))
			return -1;
		show = stackShow(cfg, part, cfg->outdir);
		spec.root = root;
		spec.show = (const char *const *)show;
		if (mhlSessionOpenStack(&ses, &spec, cfg->outdir) < 0)
			return -1;
	}
	cfg->uri = ses.uri;
	cfg->connp = &ses.conn;	/* a daemon-restart step reconnects it (-j 1) */
	if (first && mhlRunPeersConnect(cfg->peers) < 0) {	/* once: libvirt runs from the first session on */
		mhlSessionClose(&ses);
		return -1;
	}
	if (!o->quiet)
		fprintf(stderr, "memhp-lab: %u trial(s), %d at a time, %s (%s), %s%s%s, records %s\n", part->len, n,
			cfg->accel, why, ses.uri, st->built ? ": the stack " : "", st->built ? st->what : "", records);
	mhlQueueRun(ses.conn, cfg, part, n);
	mhlSessionClose(&ses);
	cfg->uri = NULL;
	cfg->connp = NULL;
	return 0;
}

int mhlRunTrials(const mhlRunOptions *opts, char **scenarios, int nscenarios)
{
	mhlRunOptions ro = *opts, *o = &ro;
	g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func((GDestroyNotify)mhlFleetHostFree);
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func((GDestroyNotify)mhlJobFree);
	g_autoptr(GPtrArray) peers = g_ptr_array_new_with_free_func((GDestroyNotify)mhlPeerFree);
	g_autofree char *outdir = NULL, *why = NULL, *records = NULL;
	g_auto(GStrv) restart = NULL;
	mhlRunConfig cfg = { 0 };
	double t0 = mhlNow();
	int n, k, ran;

	if ((n = runJobs(o, scenarios, nscenarios, jobs)) != 0) {
		json_object_put(o->shard_trials);
		return n < 0 ? MHL_EXIT_USAGE : MHL_EXIT_PASS;	/* 1: this shard has no trial, nothing to do */
	}
	if (o->keep && jobs->len != 1) {
		mhlError("run: --keep holds one guest, and the scenarios give %u trials: pick one with --only", jobs->len);
		return MHL_EXIT_USAGE;
	}
	if ((o->hosts || o->hosts_file) && mhlRunFleetHosts(o, jobs, hosts) < 0)
		return MHL_EXIT_USAGE;
	if (mhlRunPeers(o, jobs, peers) < 0)
		return MHL_EXIT_USAGE;
	cfg.peers = peers;
	if ((n = hosts->len ? 1 : jobsChoose(o, jobs)) < 0 || mhlRunDaemonRestart(o, jobs, n, &restart) < 0 ||
	    jobsKernels(o, jobs) < 0 || runConfig(o, jobs, &cfg, &why) < 0 || !(outdir = runDir(o, jobs)) ||
	    (!o->resume && runSave(o, scenarios, nscenarios, outdir) < 0) || jobsInitrd(o, jobs, outdir) < 0)
		return MHL_EXIT_USAGE;
	cfg.outdir = outdir;
	cfg.daemon_restart = (const char *const *)restart;
	records = g_build_filename(outdir, "trials.jsonl", NULL);
	mhlSysinfoSave(outdir, o->resume ? "pre-resume" : "pre");
	mhlSignalsInstall();
	if (hosts->len) {
		if (mhlRunFleet(o, &cfg, jobs, hosts, outdir, jobsNeed(jobs)) < 0)
			return MHL_EXIT_USAGE;
		return runEnd(o, jobs, outdir, t0);
	}
	/* one stack after the other, each with its own session (docs/stacks.md) */
	for (k = 0, ran = 0; k < MHL_STACK_LAST && !mhlInterrupted; k++) {
		g_autoptr(GPtrArray) part = jobsOfStack(jobs, k);

		if (!part->len)
			continue;
		if (runStack(o, &cfg, part, k, n, why, records, ran == 0) < 0) {
			if (!ran)
				return MHL_EXIT_USAGE;
			/* what ran is recorded: the rest is reported not run, the error said */
			fprintf(stderr, "memhp-lab: error: %s\n", mhlErrorLast());
			mhlErrorReset();
			break;
		}
		ran++;
	}
	g_ptr_array_set_size(peers, 0);	/* the guests that went there are gone */
	return runEnd(o, jobs, outdir, t0);
}
