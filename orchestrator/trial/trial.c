/*
 * trial.c - one trial, start to end: boot a fresh guest (guest/session.c),
 * run the scenario's steps on it (steps.c: one function per kind), judge the
 * outcome, append the record (record/). Every wait has a deadline; each
 * failure ends the steps and becomes the verdict's reason; the record is
 * written whatever happened.
 */
#include <glib.h>

#include "trial/trial.h"

#include <libvirt/virterror.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "guest/session.h"
#include "host/identity.h"
#include "host/hugepages.h"
#include "host/session.h"
#include "scenario/names.h"
#include "trial/steps.h"
#include "mhl-size.h"
#include "util.h"

#ifndef MHL_VERSION
#define MHL_VERSION "unknown"	/* the Makefile passes git describe */
#endif

/* What ends up in the record besides the steps' results. */
typedef struct {
	mhlVerdict verdict;
	char *reason;
	bool infra;		/* a failed step could not be carried out (agent, guest gone) */
	bool guest;		/* an error's cause was the guest: its kernel crashed or hung, the guest went away */
	bool requeued;		/* its fleet host went away: it runs once more on another */
} mhlTrialEnd;

static char *isoNow(void)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();

	return g_date_time_format_iso8601(now);
}

/*
 * The guest kernel must do what pin_policy says: read the series' switch back
 * (debugfs) and refuse to run the steps on a kernel that ignored it.
 */
static int pinPolicyVerify(mhlTrial *t, json_object *rec)
{
	const char *argv[] = { "/bin/cat", "/sys/kernel/debug/gup_longterm/pin_in_place", NULL };
	bool baseline = !mhlPinPolicyOf(t->s->pin_policy)->series;
	mhlExecStatus st = { 0 };
	const char *state;

	if (mhlAgentExec(t->g->dom, argv, 30, &st) < 0)
		return -1;
	state = st.exited && st.exitcode == 0 && st.out && st.out[0] == 'Y' ? "on" :
		st.exited && st.exitcode == 0 ? "off" : "absent";
	json_object_object_add(rec, MHL_K_PIN_IN_PLACE_SWITCH, json_object_new_string(state));
	mhlExecStatusClear(&st);
	if (baseline && strcmp(state, "on")) {
		mhlError("pin_policy baseline needs the series' test switch, but /sys/kernel/debug/gup_longterm/pin_in_place is %s in the guest (kernel without CONFIG_GUP_LONGTERM_PIN_IN_PLACE, or the cmdline lost gup_longterm_pin_in_place=1)",
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
		const mhlNode *nd = &s->nodes[i];
		json_object *n = json_object_new_object();

		json_object_object_add(n, MHL_K_MEMORY_BYTES, json_object_new_int64((int64_t)nd->memory));
		json_object_object_add(n, MHL_K_CPUS, json_object_new_int(nd->cpus));
		if (nd->vmem_size) {
			json_object_object_add(n, MHL_K_VIRTIO_MEM_SIZE_BYTES, json_object_new_int64((int64_t)nd->vmem_size));
			json_object_object_add(n, MHL_K_VIRTIO_MEM_BLOCK_BYTES, json_object_new_int64((int64_t)nd->vmem_block));
			json_object_object_add(n, MHL_K_VIRTIO_MEM_REQUESTED_BYTES, json_object_new_int64((int64_t)nd->vmem_requested));
		}
		json_object_array_add(nodes, n);
	}
	json_object_object_add(d, MHL_K_NODES, nodes);
	return d;
}

/* The record's head: who, what, on which kernel and domain. */
static json_object *recordHead(const mhlRunConfig *cfg, const mhlScenario *s, const char *console)
{
	json_object *rec = json_object_new_object(), *params = json_object_new_object();
	g_autofree char *started = isoNow();
	int i;

	json_object_object_add(rec, MHL_K_TRIAL, json_object_new_string(s->name));
	json_object_object_add(rec, MHL_K_SCENARIO, json_object_new_string(s->path));
	json_object_object_add(rec, MHL_K_STARTED, json_object_new_string(started));
	json_object_object_add(rec, MHL_K_HARNESS_VERSION, json_object_new_string(MHL_VERSION));
	for (i = 0; i < s->nparams; i++)
		json_object_object_add(params, s->param_key[i], json_object_new_string(s->param_val[i]));
	json_object_object_add(rec, MHL_K_PARAMETERS, params);
	json_object_object_add(rec, MHL_K_SCENARIO_NAME, json_object_new_string(s->scenario_name));
	json_object_object_add(rec, MHL_K_KERNEL, json_object_get(cfg->kernel_identity));
	json_object_object_add(rec, MHL_K_PIN_POLICY, json_object_new_string(s->pin_policy));
	json_object_object_add(rec, MHL_K_GUEST_USERSPACE, json_object_new_string(s->guest));
	{
		json_object *stack = json_object_new_object();

		json_object_object_add(stack, MHL_K_NAME, json_object_new_string(s->stack));
		json_object_object_add(rec, MHL_K_STACK, stack);
	}
	json_object_object_add(rec, MHL_K_DOMAIN, domainFacts(cfg, s));
	json_object_object_add(rec, MHL_K_CONSOLE_LOG, json_object_new_string(console));
	return rec;
}

/* Where the host-side figures come from (host/hostmem.h), and the memory backing. */
json_object *mhlTrialHostFacts(const mhlGuest *g, const mhlScenario *s, const mhlHugePool *pool)
{
	json_object *h = json_object_new_object();

	json_object_object_add(h, MHL_K_SOURCE, json_object_new_string(g->hm.source));
	if (g->hm.why)
		json_object_object_add(h, MHL_K_WHY, json_object_new_string(g->hm.why));
	json_object_object_add(h, MHL_K_BACKING, json_object_new_string(s->backing));
	if (s->hugepage_size)
		json_object_object_add(h, MHL_K_HUGEPAGE_BYTES, json_object_new_int64((int64_t)s->hugepage_size));
	json_object_object_add(h, MHL_K_PREALLOC, json_object_new_boolean(s->prealloc));
	if (pool->added)
		json_object_object_add(h, MHL_K_POOL_ADDED_PAGES, json_object_new_int64(pool->added));
	return h;
}

int mhlTrialHugePool(const mhlScenario *s, mhlHugePool *pool)
{
	uint64_t bytes = 0;
	int i;

	memset(pool, 0, sizeof(*pool));
	if (!s->hugepage_size)
		return 0;
	for (i = 0; i < s->nnodes; i++)
		bytes += s->nodes[i].memory + s->nodes[i].vmem_size;
	return mhlHugePoolGrow(s->hugepage_size >> 10,
			       (long)((bytes + s->hugepage_size - 1) / s->hugepage_size), pool);
}

/* Boot, read the pin policy back, take the snapshot the steps compare with. */
static int trialBoot(mhlTrial *t, virConnectPtr conn, json_object *rec, const mhlHugePool *pool)
{
	double boot_s, plug_s;

	int rc = mhlGuestBoot(t->g, conn, t->s, &boot_s, &plug_s);

	t->sum.boot_to_agent_s = boot_s;
	if (rc < 0 || pinPolicyVerify(t, rec) < 0)
		return -1;
	t->sum.initial_plug_s = plug_s;
	json_object_object_add(rec, MHL_K_HOST, mhlTrialHostFacts(t->g, t->s, pool));
	if (!(t->before = mhlGuestSnapshot(t->g->dom)))
		return -1;
	json_object_object_add(rec, MHL_K_GUEST_BEFORE, t->before);
	return 0;
}

/* One step: its result appended to t->steps; -1 (and *end filled) when it failed. */
static int trialStep(mhlTrial *t, const mhlRunConfig *cfg, int i, double t_start, mhlTrialEnd *end)
{
	const mhlScenario *s = t->s;
	const mhlStep *st = &s->steps[i];
	json_object *res = json_object_new_object();
	double t0 = mhlNow();
	int rc;

	json_object_object_add(res, MHL_K_STEP, json_object_new_string(mhlStepTypeNames[st->type]));
	json_object_object_add(res, MHL_K_LINE, json_object_new_int(st->line));
	if (st->id[0])
		json_object_object_add(res, MHL_K_ID, json_object_new_string(st->id));
	json_object_object_add(res, MHL_K_T, json_object_new_double(t0 - t->g->t0));
	if (cfg->skips && cfg->skips->pdata[i]) {
		/* "CODE: reason" (mhlKernelResolve): this kernel cannot run the step */
		const char *why = cfg->skips->pdata[i], *sep = strstr(why, ": ");

		json_object_object_add(res, MHL_K_SKIPPED, json_object_new_string(sep + 2));
		json_object_object_add(res, MHL_K_SKIP_CODE, json_object_new_string_len(why, (int)(sep - why)));
		json_object_object_add(res, MHL_K_SECONDS, json_object_new_double(0));
		json_object_object_add(res, MHL_K_OK, json_object_new_boolean(true));
		json_object_array_add(t->steps, res);
		if (!cfg->quiet)
			fprintf(stderr, "memhp-lab: [%d/%d] %s: step %d/%d: %s%s%s: SKIP: %s\n", cfg->index,
				cfg->total, s->name, i + 1, s->nsteps, mhlStepTypeNames[st->type],
				st->id[0] ? " " : "", st->id, sep + 2);
		return 0;
	}
	if (!cfg->quiet)
		fprintf(stderr, "memhp-lab: [%d/%d] %s: step %d/%d: %s%s%s (%.1f s)\n",
			cfg->index, cfg->total, s->name, i + 1, s->nsteps,
			mhlStepTypeNames[st->type], st->id[0] ? " " : "", st->id, mhlNow() - t_start);
	mhlAgentFailedReset();
	/* Could the step not be carried out, rather than its outcome being wrong? */
	t->infra = false;
	rc = mhlStepRun(t, st, res);
	if (rc < 0 && (mhlAgentFailedReset() || !mhlGuestAlive(t->g))) {
		end->infra = true;
		end->guest = true;	/* the guest stopped answering, or is gone */
	} else if (rc < 0 && t->infra) {
		end->infra = true;	/* libvirt or the host could not carry the step out */
	}
	json_object_object_add(res, MHL_K_SECONDS, json_object_new_double(mhlNow() - t0));
	json_object_object_add(res, MHL_K_OK, json_object_new_boolean(rc == 0));
	if (rc < 0) {
		json_object_object_add(res, MHL_K_ERROR, json_object_new_string(mhlErrorLast()));
		end->reason = g_strdup_printf("step %d (%s, %s:%d): %s", i + 1, mhlStepTypeNames[st->type],
					      s->path, st->line, mhlErrorLast());
		end->verdict = end->infra ? MHL_VERDICT_ERROR : MHL_VERDICT_FAIL;
		mhlErrorReset();
	}
	json_object_array_add(t->steps, res);
	return rc;
}

/* Every step in order, until one fails or a signal comes; then the snapshot after. */
static void trialSteps(mhlTrial *t, const mhlRunConfig *cfg, json_object *rec, double t_start,
		       mhlTrialEnd *end)
{
	json_object *snap;
	int i;

	for (i = 0; i < t->s->nsteps && !mhlInterrupted; i++)
		if (trialStep(t, cfg, i, t_start, end) < 0)
			break;
	if (t->sum.pins_failed < 0)
		t->sum.pins_failed = 0;
	if ((snap = mhlGuestSnapshot(t->g->dom)))
		json_object_object_add(rec, MHL_K_GUEST_AFTER, snap);
	else
		mhlErrorReset();
}

/*
 * --keep: the guest stays up after the steps, its console watcher on, until
 * a signal (Ctrl-C) or its end; the signal is the hold's, not the trial's
 * (the verdict is judged as if none came). A kill -9 meanwhile leaves the
 * trial 'lost', as for any trial in flight. The record says how long
 * (kept_s).
 */
static void trialKeep(mhlTrial *t, const mhlRunConfig *cfg, json_object *rec)
{
	/* the embedded driver lives in this process: only a daemon's guest is reachable with virsh */
	bool daemon = cfg->uri && !g_str_has_prefix(cfg->uri, "qemu:///embed");
	double t0 = mhlNow();

	if (!cfg->keep || mhlInterrupted || !mhlGuestAlive(t->g))
		return;
	fprintf(stderr, "memhp-lab: --keep: guest '%s' (trial %s) holds after its steps; console log %s%s%s%s%s; Ctrl-C ends it\n",
		t->g->name, t->s->name, t->g->console, daemon ? "; virsh -c " : "", daemon ? cfg->uri : "",
		daemon ? " console|qemu-agent-command " : "", daemon ? t->g->name : "");
	while (!mhlInterrupted && mhlGuestAlive(t->g))
		g_usleep(200 * 1000);
	mhlInterrupted = 0;
	json_object_object_add(rec, MHL_K_KEPT_S, json_object_new_double(mhlNow() - t0));
}

static void endSet(mhlTrialEnd *end, mhlVerdict v, char *reason)
{
	end->verdict = v;
	g_free(end->reason);
	end->reason = reason;
}

/*
 * A trial that passed without running anything it asserts or pins with
 * (every pin, io, check, bench, selftest and expect step skipped because
 * the kernel cannot run it) is a skip, not a pass: its reason is the first
 * skipped step's.
 */
static void trialJudgeSkips(mhlTrial *t, const mhlRunConfig *cfg, mhlTrialEnd *end)
{
	const char *first = NULL, *pin_first = NULL;
	int i, first_line = 0, pins = 0, pins_skipped = 0, pin_line = 0;

	if (end->verdict != MHL_VERDICT_PASS || !cfg->skips)
		return;
	/* the trial's subject is its pins: all of them skipped, it tested nothing it is about */
	for (i = 0; i < t->s->nsteps; i++) {
		if (t->s->steps[i].type != MHL_STEP_PIN)
			continue;
		pins++;
		if (cfg->skips->pdata[i]) {
			pins_skipped++;
			if (!pin_first) {
				pin_first = cfg->skips->pdata[i];
				pin_line = t->s->steps[i].line;
			}
		}
	}
	if (pins && pins_skipped == pins) {
		endSet(end, MHL_VERDICT_SKIP, g_strdup_printf("every pin step (%d) was skipped, so nothing was pinned; %s:%d: %s",
							      pins, t->s->path, pin_line, strstr(pin_first, ": ") ?
							      strstr(pin_first, ": ") + 2 : pin_first));
		return;
	}
	for (i = 0; i < t->s->nsteps; i++) {
		const mhlStep *st = &t->s->steps[i];

		if (st->type == MHL_STEP_RESIZE || st->type == MHL_STEP_WAIT || st->type == MHL_STEP_SNAPSHOT ||
		    st->type == MHL_STEP_SYSRQ || st->type == MHL_STEP_RELEASE)
			continue;
		if (!cfg->skips->pdata[i])
			return;	/* one that asserts ran */
		if (!first) {
			first = cfg->skips->pdata[i];
			first_line = st->line;
		}
	}
	if (first)
		endSet(end, MHL_VERDICT_SKIP, g_strdup_printf("every step that pins or asserts was skipped; %s:%d: %s",
							      t->s->path, first_line, strstr(first, ": ") + 2));
}

/*
 * A known deviation the scenario declares (xfail:, docs/scenarios.md): a
 * failure that matches it is an expected failure, a pass where one applies
 * an unexpected pass; a failure that does not match stays a failure and says
 * what was declared. Errors and interruptions are never expected.
 */
static void trialJudgeDeviation(mhlTrial *t, mhlTrialEnd *end)
{
	const mhlDeviation *d;

	if (end->verdict == MHL_VERDICT_FAIL && end->reason) {
		if ((d = mhlScenarioDeviation(t->s, end->reason))) {
			endSet(end, MHL_VERDICT_XFAIL, g_strdup_printf("known deviation: %s; failed as declared: %s",
								       d->reason, end->reason));
		} else if ((d = mhlScenarioDeviation(t->s, NULL))) {
			endSet(end, MHL_VERDICT_FAIL, g_strdup_printf("%s (not the known deviation declared at %s:%d: the reason does not match /%s/)",
								      end->reason, t->s->path, d->line,
								      d->match ? d->match : ""));
		}
	} else if (end->verdict == MHL_VERDICT_PASS && (d = mhlScenarioDeviation(t->s, NULL))) {
		endSet(end, MHL_VERDICT_XPASS, g_strdup_printf("unexpected pass: the known deviation declared at %s:%d (%s) did not happen; the declaration is out of date",
							       t->s->path, d->line, d->reason));
	}
}

/*
 * A fleet host that went away (refused, disconnected, died) during a trial
 * that did not pass: the trial is an error naming the host, and the queue
 * runs it once more on another host. The connection's end is seen within
 * moments of the failure it caused (end of file), or by keepalive.
 */
static bool trialJudgeHost(const mhlRunConfig *cfg, mhlTrialEnd *end)
{
	g_autofree char *lost = NULL;
	double until = mhlNow() + 2;

	if (!cfg->host || end->verdict == MHL_VERDICT_PASS)
		return false;
	while (!(lost = mhlFleetHostLost(cfg->host)) && mhlNow() < until)
		g_usleep(100 * 1000);
	if (!lost)
		return false;
	endSet(end, MHL_VERDICT_ERROR, g_strdup_printf("host '%s' went away during the trial (%s)%s; what failed: %s",
						       cfg->host->uri, lost, cfg->requeue ?
						       "; queued once more on another host" :
						       "; not queued again (its second host)",
						       end->reason ? end->reason : "?"));
	end->requeued = cfg->requeue;
	return true;
}

/*
 * The verdict, once the guest is stopped: a signal wins; then a crash or a
 * guest that went away, whatever step noticed it; then a kernel report on the
 * console fails a trial that passed; then the scenario's known deviations.
 */
static void trialJudge(mhlTrial *t, const mhlRunConfig *cfg, json_object *findings, mhlTrialEnd *end)
{
	mhlGuest *g = t->g;

	if (mhlInterrupted) {
		endSet(end, MHL_VERDICT_INTERRUPTED, g_strdup_printf("interrupted by signal %d", mhlInterrupted));
		return;
	}
	if (trialJudgeHost(cfg, end))
		return;
	/* QEMU killed inside its budget: whatever step noticed it, that is why */
	if (mhlBudgetKilled(&g->budget)) {
		endSet(end, MHL_VERDICT_ERROR, g_strdup_printf(
			"QEMU was killed at its memory budget of %" G_GUINT64_FORMAT " MiB (memory cgroup %s, peak %" G_GINT64_FORMAT " MiB): the guest made more resident than the fit counted, the host was not touched; what failed: %s; console: %s",
			g->budget.limit >> 20, g->budget.dir, mhlBudgetPeak(&g->budget) >> 20,
			end->reason ? end->reason : g->gone ? g->gone : "?", g->console));
		end->guest = true;
		return;
	}
	if (g->fatal) {
		endSet(end, MHL_VERDICT_ERROR,
		       g_strdup_printf("the guest kernel crashed: %s; the trial ended there", g->fatal));
		end->guest = true;
		return;
	}
	if (g->gone) {
		endSet(end, MHL_VERDICT_ERROR, g_strdup_printf("%s; console: %s, libvirt log: %s/libvirt.log",
							       g->gone, g->console, cfg->outdir));
		end->guest = true;
		return;
	}
	if (end->verdict == MHL_VERDICT_PASS && json_object_array_length(findings) > 0)
		endSet(end, MHL_VERDICT_FAIL,
		       g_strdup_printf("kernel reported a problem on the console (%s): %s", g->console,
				       mhlJStr(json_object_array_get_idx(findings, 0), MHL_K_TEXT, "")));
	trialJudgeSkips(t, cfg, end);
	trialJudgeDeviation(t, end);
}

static bool gridNumber(json_object *o, double *v)
{
	if (!o || !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*v = json_object_get_double(o);
	return isfinite(*v);
}

void mhlTrialGrid(const mhlScenario *s, json_object *rec)
{
	const mhlGridSpec *g = mhlScenarioGrid(s);
	g_autofree char *before = NULL, *after = NULL, *of = NULL;
	double a = 0, b = 0, v = 0;
	bool have = false;
	json_object *o;

	if (!g)
		return;
	switch (g->kind) {
	case MHL_GRID_VMSTAT:
		before = g_strdup_printf("%s.vmstat.%s", MHL_K_GUEST_BEFORE, g->a);
		after = g_strdup_printf("%s.vmstat.%s", MHL_K_GUEST_AFTER, g->a);
		have = gridNumber(mhlJ(rec, after), &a) && gridNumber(mhlJ(rec, before), &b);
		v = a - b;
		of = g_strdup_printf("the change of /proc/vmstat %s over the trial", g->a);
		break;
	case MHL_GRID_PATH:
		have = gridNumber(mhlJ(rec, g->a), &v);
		of = g_strdup(g->a);
		break;
	case MHL_GRID_RATIO:
		have = gridNumber(mhlJ(rec, g->a), &a) && gridNumber(mhlJ(rec, g->b), &b) && b != 0;
		v = have ? a / b : 0;
		of = g_strdup_printf("%s / %s", g->a, g->b);
		break;
	}
	o = json_object_new_object();
	json_object_object_add(o, MHL_K_LABEL, json_object_new_string(g->label));
	json_object_object_add(o, MHL_K_VALUE, !have ? NULL : v == (double)(gint64)v && fabs(v) < 9e15 ?
			       json_object_new_int64((gint64)v) : json_object_new_double(v));
	json_object_object_add(o, MHL_K_OF, json_object_new_string(of));
	json_object_object_add(rec, MHL_K_GRID, o);
}

/* The record's tail, then one line in trials.jsonl. */
static mhlVerdict trialRecord(mhlTrial *t, const mhlRunConfig *cfg, json_object *rec,
			      json_object *findings, double t_start, mhlTrialEnd *end)
{
	g_autofree char *records = g_build_filename(cfg->outdir, "trials.jsonl", NULL);

	json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, findings);
	json_object_object_add(rec, MHL_K_CONSOLE_TRUNCATED, json_object_new_boolean(t->g->console_dropped > 0));
	json_object_object_add(rec, MHL_K_STEPS, json_object_get(t->steps));
	json_object_object_add(rec, MHL_K_TIMELINE, mhlGuestTimelineTake(t->g));
	if (t->g->cfg.budget_bytes)
		json_object_object_add(rec, MHL_K_BUDGET, mhlBudgetJSON(&t->g->budget));
	mhlDaemonRestartEventsAfter(t->steps, mhlJ(rec, MHL_K_TIMELINE));
	json_object_object_add(rec, MHL_K_SUMMARY, mhlSummaryToJSON(&t->sum));
	mhlTrialGrid(t->s, rec);
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_start));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(mhlVerdictNames[end->verdict]));
	json_object_object_add(rec, MHL_K_REASON, end->reason ? json_object_new_string(end->reason) : NULL);
	if (end->verdict == MHL_VERDICT_ERROR)
		json_object_object_add(rec, MHL_K_ERROR_SOURCE,
				       json_object_new_string(end->guest ? MHL_ERROR_SOURCE_GUEST : MHL_ERROR_SOURCE_LAB));
	if (end->requeued)
		json_object_object_add(rec, MHL_K_REQUEUED, json_object_new_boolean(true));
	if (mhlRecordAppend(records, rec) < 0) {
		fprintf(stderr, "memhp-lab: error: %s\n", mhlErrorLast());
		mhlErrorReset();
		return MHL_VERDICT_ERROR;
	}
	return end->verdict;
}

/* The guest of a trial: its domain name and serial log, from the trial id. */
/*
 * The guest's memory budget (host/budget.h): what `run` fitted it by
 * against the host (scenario/fit.c), enforced when QEMU is our own child
 * (the embedded driver; a daemon puts QEMU in its own cgroups, a fleet host
 * is not ours). MEMHP_GUEST_BUDGET=SIZE sets another limit (the tests'
 * small one that a boot overruns).
 */
static uint64_t trialBudget(const mhlRunConfig *cfg, const mhlScenario *s)
{
	const char *env = g_getenv("MEMHP_GUEST_BUDGET");
	uint64_t v;

	if (cfg->host || (cfg->uri && !g_str_has_prefix(cfg->uri, "qemu:///embed")))
		return 0;
	if (env && *env) {
		if (mhl_size_parse(env, &v) == 0 && v >= (16 << 20))
			return v;
		fprintf(stderr, "memhp-lab: warning: MEMHP_GUEST_BUDGET='%.40s' is not a size of 16 MiB or more: the fit's figure is the budget\n",
			env);
	}
	return mhlScenarioGuestBytes(s, false);
}

static mhlGuest *trialGuest(const mhlRunConfig *cfg, const mhlScenario *s)
{
	/*
	 * Trial ids of a matrix hold ':', '=' and ','; names and files get
	 * [A-Za-z0-9._-], and a hash of the id where that changed it or where the
	 * id reads like such a name (mhlTrialLogName), so two ids never share a
	 * console log (one guest's panic blamed on another); the log is created,
	 * never truncated: one there already fails the trial (issue 30, finding 9).
	 */
	static int seq;
	g_autofree char *safe = mhlTrialIdFileName(s->name), *log = mhlTrialLogName(s->name, cfg->attempt);
	g_autofree char *name = NULL, *console = NULL;
	mhlGuestConfig gc = {
		.tmpl_path = cfg->tmpl_path, .kernel_image = cfg->kernel_image, .initrd = cfg->initrd,
		.accel = cfg->accel, .emulator = cfg->emulator, .agent_deadline = cfg->agent_deadline,
		.timeline = true, .host_local = !cfg->host && mhlUriLocal(cfg->uri), .remote = cfg->host != NULL,
		.hugepage_kib = s->hugepage_size >> 10, .console_exclusive = true,
		.budget_bytes = trialBudget(cfg, s),
	};

	gc.name = name = g_strdup_printf("memhp-%s-%d-%d", safe, (int)getpid(), g_atomic_int_add(&seq, 1));
	/* a fleet trial's second attempt keeps the first's console (its record points there) */
	gc.console = console = g_build_filename(cfg->outdir, log, NULL);
	return mhlGuestNew(&gc);
}

/*
 * The trial's start, in RUN_DIR/started.jsonl before anything boots: a trial
 * that starts and never records its outcome (memhp-lab killed) is reported
 * as lost, and `run --resume` runs it again.
 */
static void trialStarted(const mhlRunConfig *cfg, json_object *rec)
{
	g_autofree char *path = g_build_filename(cfg->outdir, "started.jsonl", NULL);
	g_autoptr(json_object) line = json_object_new_object();

	json_object_object_add(line, MHL_K_TRIAL, json_object_get(mhlJ(rec, MHL_K_TRIAL)));
	json_object_object_add(line, MHL_K_SCENARIO, json_object_get(mhlJ(rec, MHL_K_SCENARIO)));
	json_object_object_add(line, MHL_K_STARTED, json_object_get(mhlJ(rec, MHL_K_STARTED)));
	if (mhlRecordAppend(path, line) < 0) {
		fprintf(stderr, "memhp-lab: warning: %s\n", mhlErrorLast());
		mhlErrorReset();
	}
}

/*
 * A trial that never started because no host was left to take it (every
 * fleet host went away or refused the upload): its record all the same,
 * verdict error, reason "not run: ...", not_run true, so that the run's
 * records name every trial and --resume runs it.
 */
void mhlTrialNotRun(const mhlRunConfig *cfg, const mhlScenario *s, const char *why)
{
	g_autofree char *records = g_build_filename(cfg->outdir, "trials.jsonl", NULL);
	g_autofree char *reason = g_strdup_printf("not run: %s", why);
	g_autoptr(json_object) rec = recordHead(cfg, s, "");
	mhlSummary sum;

	mhlSummaryInit(&sum);
	json_object_object_add(rec, MHL_K_CONSOLE_FINDINGS, json_object_new_array());
	json_object_object_add(rec, MHL_K_STEPS, json_object_new_array());
	json_object_object_add(rec, MHL_K_TIMELINE, json_object_new_array());
	json_object_object_add(rec, MHL_K_SUMMARY, mhlSummaryToJSON(&sum));
	json_object_object_add(rec, MHL_K_SECONDS, json_object_new_double(0));
	json_object_object_add(rec, MHL_K_VERDICT, json_object_new_string(mhlVerdictNames[MHL_VERDICT_ERROR]));
	json_object_object_add(rec, MHL_K_REASON, json_object_new_string(reason));
	json_object_object_add(rec, MHL_K_NOT_RUN, json_object_new_boolean(true));
	if (mhlRecordAppend(records, rec) < 0) {
		fprintf(stderr, "memhp-lab: error: %s\n", mhlErrorLast());
		mhlErrorReset();
	}
}

/* Whether the guest's kernel got as far as its banner on the console. */
static bool trialKernelStarted(const mhlGuest *g)
{
	g_autofree char *head = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(GMappedFile) f = g->console ? g_mapped_file_new(g->console, FALSE, &err) : NULL;
	gsize len;

	if (!f)
		return false;
	len = MIN(g_mapped_file_get_length(f), (gsize)1 << 20);
	head = g_strndup(g_mapped_file_get_contents(f), len);
	return strstr(head, "Linux version ") != NULL;
}

/*
 * The host behind @conn into @rec's host_identity, its stack's name there
 * too (what --compare and --history diff), and the stack's versions into
 * @rec's stack: the QEMU and libvirt that ran the guest, as the daemon says.
 */
static void trialIdentity(json_object *rec, virConnectPtr conn, const mhlRunConfig *cfg, const mhlScenario *s)
{
	json_object *id = mhlHostIdentityConn(conn, !cfg->host && mhlUriLocal(cfg->uri)), *v;
	json_object *stack = mhlJ(rec, MHL_K_STACK);
	const char *const keys[] = { MHL_K_QEMU, MHL_K_LIBVIRT };
	size_t k;

	json_object_object_add(id, MHL_K_STACK, json_object_new_string(s->stack));
	for (k = 0; stack && k < G_N_ELEMENTS(keys); k++)
		if (json_object_object_get_ex(id, keys[k], &v))
			json_object_object_add(stack, keys[k], json_object_get(v));
	json_object_object_add(rec, MHL_K_HOST_IDENTITY, id);
}

/* "10.0.2" of libvirt's version number. */
static char *stackVersionText(unsigned long v)
{
	return g_strdup_printf("%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

/*
 * Why the stack behind @conn cannot run @s (its stack_needs: a QEMU or a
 * libvirt older than it names), as a skip's reason; NULL when it can, or
 * when the daemon does not say its versions (then the trial runs and shows).
 */
static char *trialStackLacks(virConnectPtr conn, const mhlScenario *s)
{
	unsigned long hv = 0, lib = 0;
	const char *what = NULL;
	unsigned long have = 0, need = 0;

	if (s->needs_qemu && virConnectGetVersion(conn, &hv) == 0 && hv && hv < s->needs_qemu) {
		what = "QEMU", have = hv, need = s->needs_qemu;
	} else if (s->needs_libvirt && virConnectGetLibVersion(conn, &lib) == 0 && lib < s->needs_libvirt) {
		what = "libvirt", have = lib, need = s->needs_libvirt;
	}
	mhlErrorReset();
	if (!what)
		return NULL;
	{
		g_autofree char *h = stackVersionText(have), *n = stackVersionText(need);

		return g_strdup_printf("stack-lacks: the %s stack runs %s %s, and %s:%d needs %s >= %s: %s", s->stack,
				       what, h, s->path, s->needs_line, what, n, s->needs_reason);
	}
}

mhlVerdict mhlTrialRun(virConnectPtr conn, const mhlRunConfig *cfg, const mhlScenario *s,
		       json_object **recp)
{
	g_autoptr(mhlGuest) g = trialGuest(cfg, s);
	g_autoptr(json_object) steps = json_object_new_array();
	mhlTrial t = { .s = s, .g = g, .steps = steps, .peers = cfg->peers,
		       .daemon_restart = cfg->daemon_restart, .connp = cfg->connp };
	mhlTrialEnd end = { .verdict = MHL_VERDICT_PASS };
	double t_start = mhlNow();
	json_object *rec = recordHead(cfg, s, g->console), *findings;
	g_autofree char *lacks = NULL;
	mhlHugePool pool = { 0 };
	mhlVerdict v;

	mhlSummaryInit(&t.sum);
	trialIdentity(rec, conn, cfg, s);
	trialStarted(cfg, rec);
	if ((lacks = trialStackLacks(conn, s))) {
		/* its subject does not exist on this stack: nothing to boot (docs/stacks.md) */
		endSet(&end, MHL_VERDICT_SKIP, g_strdup(lacks));
	} else if (mhlTrialHugePool(s, &pool) < 0 || trialBoot(&t, conn, rec, &pool) < 0) {
		endSet(&end, MHL_VERDICT_ERROR, g_strdup(mhlErrorLast()));
		/* QEMU runs our kernel, which never brought the agent up: the guest's failure, not the lab's */
		end.guest = trialKernelStarted(g);
	}
	else
		trialSteps(&t, cfg, rec, t_start, &end);
	mhlErrorReset();
	trialKeep(&t, cfg, rec);
	mhlGuestStop(g);
	mhlHugePoolRestore(&pool);
	findings = mhlGuestEnd(g);
	trialJudge(&t, cfg, findings, &end);
	v = trialRecord(&t, cfg, rec, findings, t_start, &end);
	g_free(end.reason);
	*recp = rec;
	return v;
}
