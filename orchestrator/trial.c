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
#include "trial.h"

#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "domain.h"
#include "guest.h"
#include "record.h"

const char *const mhlVerdictNames[MHL_VERDICT_LAST] = {
	[MHL_VERDICT_PASS] = "pass",
	[MHL_VERDICT_FAIL] = "fail",
	[MHL_VERDICT_ERROR] = "error",
	[MHL_VERDICT_INTERRUPTED] = "interrupted",
};

typedef struct {
	pthread_mutex_t lock;
	json_object *timeline;	/* [{t, source, node|alias, size_bytes|requested_bytes}] */
	double t0;
	virDomainPtr dom;
	char *name;
} mhlTrial;

static void timelineAdd(mhlTrial *t, const char *source, const char *key, json_object *who,
			const char *sizekey, unsigned long long bytes)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "t", json_object_new_double(mhlNow() - t->t0));
	json_object_object_add(e, "source", json_object_new_string(source));
	json_object_object_add(e, key, who);
	json_object_object_add(e, sizekey, json_object_new_int64((int64_t)bytes));
	pthread_mutex_lock(&t->lock);
	json_object_array_add(t->timeline, e);
	pthread_mutex_unlock(&t->lock);
}

static void onSizeChange(virConnectPtr conn, virDomainPtr dom, const char *alias,
			 unsigned long long size_kib, void *opaque)
{
	mhlTrial *t = opaque;

	(void)conn;
	if (strcmp(virDomainGetName(dom), t->name))
		return;
	timelineAdd(t, "event", "alias", json_object_new_string(alias), "size_bytes",
		    size_kib * 1024);
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

static json_object *identity(const char *kernel_dir)
{
	g_autofree char *path = g_build_filename(kernel_dir, "identity.json", NULL);
	json_object *id = json_object_from_file(path);

	if (!id) {
		g_autofree char *msg = g_strdup_printf("cannot read %s", path);

		id = json_object_new_object();
		json_object_object_add(id, "error", json_object_new_string(msg));
	}
	return id;
}

static long long censusPages(json_object *census, const char *zone)
{
	json_object *bz, *v;

	if (census && json_object_object_get_ex(census, "by_zone", &bz) &&
	    json_object_object_get_ex(bz, zone, &v))
		return json_object_get_int64(v);
	return -1;
}

/* One step; fills @res; returns 0 if its outcome is what the step requires. */
static int stepRun(mhlTrial *t, const mhlScenario *s, const mhlStep *st, json_object *res,
		   json_object *summary)
{
	char size[32], node[16];
	int exitcode = -1;

	switch (st->type) {
	case MHL_STEP_PIN: {
		const char *argv[] = { "/bin/memhp-pin", st->workload, "--id", st->id, "--size", size,
				       "--node", node, NULL };
		json_object *out, *ok, *after;

		snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, st->size);
		snprintf(node, sizeof(node), "%d", st->node);
		out = mhlAgentExecJSON(t->dom, argv, 300, &exitcode);
		if (!out)
			return -1;
		json_object_object_add(res, "workload", out);
		if (!json_object_object_get_ex(out, "ok", &ok) || !json_object_get_boolean(ok)) {
			json_object *en;

			mhlError("pin '%s' of %" G_GUINT64_FORMAT " bytes on node %d failed: %s",
				 st->id, st->size, st->node,
				 json_object_object_get_ex(out, "errno_name", &en) ?
				 json_object_get_string(en) : json_object_to_json_string(out));
			json_object_object_add(summary, "pins_failed", json_object_new_int(1));
			return -1;
		}
		if (json_object_object_get_ex(out, "census_after", &after)) {
			json_object *before = NULL;

			json_object_object_get_ex(out, "census_before", &before);
			json_object_object_add(summary, "pinned_bytes", json_object_new_int64((int64_t)st->size));
			json_object_object_add(summary, "pinned_pages_movable_before",
					       json_object_new_int64(censusPages(before, "Movable")));
			json_object_object_add(summary, "pinned_pages_movable_after",
					       json_object_new_int64(censusPages(after, "Movable")));
		}
		if (censusPages(after, "Movable") != 0) {
			mhlError("pin '%s': %lld pinned page(s) are still in ZONE_MOVABLE",
				 st->id, censusPages(after, "Movable"));
			return -1;
		}
		return 0;
	}
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
		json_object_object_add(res, "requested_bytes", json_object_new_int64((int64_t)st->requested));
		json_object_object_add(res, "reached_bytes", json_object_new_int64((int64_t)reached));
		json_object_object_add(res, "converged", json_object_new_boolean(secs >= 0));
		json_object_object_add(res, "deadline_s", json_object_new_double(st->deadline));
		json_object_object_add(summary, "requested_bytes", json_object_new_int64((int64_t)st->requested));
		json_object_object_add(summary, "reached_bytes", json_object_new_int64((int64_t)reached));
		if (secs < 0)
			return -1;
		json_object_object_add(res, "seconds_to_converge", json_object_new_double(secs));
		json_object_object_add(summary, "seconds_to_converge", json_object_new_double(secs));
		return 0;
	}
	case MHL_STEP_CHECK:
	case MHL_STEP_RELEASE: {
		const char *verb = st->type == MHL_STEP_CHECK ? "check" : "release";
		const char *argv[] = { "/bin/memhp-pin", "ctl", st->id, verb, NULL };
		json_object *out = mhlAgentExecJSON(t->dom, argv, 120, &exitcode), *v;

		if (!out)
			return -1;
		json_object_object_add(res, "workload", out);
		if (json_object_object_get_ex(out, "pattern_ok", &v))
			json_object_object_add(summary, st->type == MHL_STEP_CHECK ?
					       "pattern_ok_after_resize" : "pattern_ok_at_release",
					       json_object_get(v));
		if (!json_object_object_get_ex(out, "ok", &v) || !json_object_get_boolean(v)) {
			mhlError("%s of '%s': the workload reports a problem: %.300s", verb, st->id,
				 json_object_to_json_string(out));
			return -1;
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

static json_object *domainFacts(const mhlRunConfig *cfg, const mhlScenario *s)
{
	json_object *d = json_object_new_object(), *nodes = json_object_new_array();
	int i;

	json_object_object_add(d, "uri", json_object_new_string(cfg->uri));
	json_object_object_add(d, "accel", json_object_new_string(cfg->accel));
	json_object_object_add(d, "accel_reason", json_object_new_string(cfg->accel_why));
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
	json_object_object_add(d, "nodes", nodes);
	return d;
}

mhlVerdict mhlTrialRun(virConnectPtr conn, const mhlRunConfig *cfg, const mhlScenario *s,
		       json_object **recp)
{
	mhlTrial t = { .lock = PTHREAD_MUTEX_INITIALIZER };
	json_object *rec = json_object_new_object(), *steps = json_object_new_array();
	json_object *summary = json_object_new_object();
	g_autofree char *tmpl = NULL, *xml = NULL, *started = isoNow(), *console = NULL;
	g_autofree char *kernel = g_build_filename(cfg->kernel_dir, "bzImage", NULL);
	g_autofree char *records = g_build_filename(cfg->outdir, "trials.jsonl", NULL);
	g_autofree char *console_text = NULL, *reason = NULL;
	mhlVerdict verdict = MHL_VERDICT_PASS;
	int cb = -1, i, failed_step = -1;
	double t_start = mhlNow();

	t.timeline = json_object_new_array();
	t.name = g_strdup_printf("memhp-%s-%d", s->name, (int)getpid());
	console = g_strdup_printf("%s/%s.console.log", cfg->outdir, s->name);
	json_object_object_add(rec, "trial", json_object_new_string(s->name));
	json_object_object_add(rec, "scenario", json_object_new_string(s->path));
	json_object_object_add(rec, "started", json_object_new_string(started));
	json_object_object_add(rec, "parameters", json_object_new_object());
	json_object_object_add(rec, "kernel", identity(cfg->kernel_dir));
	json_object_object_add(rec, "domain", domainFacts(cfg, s));
	json_object_object_add(rec, "console_log", json_object_new_string(console));

	if (!(tmpl = mhlFileRead(cfg->tmpl_path, NULL)))
		goto error;
	{
		mhlDomainParams p = {
			.name = t.name, .accel = cfg->accel, .kernel = kernel, .initrd = cfg->initrd,
			.console_log = console, .emulator = cfg->emulator,
		};

		if (!(xml = mhlDomainXMLBuild(tmpl, cfg->tmpl_path, s, &p)))
			goto error;
	}
	unlink(console);
	cb = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_MEMORY_DEVICE_SIZE_CHANGE,
					      VIR_DOMAIN_EVENT_CALLBACK(onSizeChange), &t, NULL);
	if (cb < 0) {
		mhlErrorVirt("cannot register for MEMORY_DEVICE_SIZE_CHANGE events");
		goto error;
	}
	t.t0 = mhlNow();
	t.dom = virDomainCreateXML(conn, xml, 0);
	if (!t.dom) {
		mhlErrorVirt("cannot start domain '%s' (template %s)", t.name, cfg->tmpl_path);
		goto error;
	}
	{
		double up = mhlAgentWait(t.dom, cfg->agent_deadline, console);

		if (up < 0)
			goto error;
		json_object_object_add(summary, "boot_to_agent_s", json_object_new_double(up));
	}
	for (i = 0; i < s->nnodes; i++) {
		unsigned long long reached;
		double secs;

		if (!s->nodes[i].vmem_size)
			continue;
		secs = waitPlugged(&t, i, s->nodes[i].vmem_requested, 120, &reached);
		if (secs < 0)
			goto error;
		json_object_object_add(summary, "initial_plug_s", json_object_new_double(secs));
	}
	{
		json_object *snap = mhlGuestSnapshot(t.dom);

		if (!snap)
			goto error;
		json_object_object_add(rec, "guest_before", snap);
	}

	for (i = 0; i < s->nsteps && !mhlInterrupted; i++) {
		const mhlStep *st = &s->steps[i];
		json_object *res = json_object_new_object();
		g_autofree char *ts = isoNow();
		double t0 = mhlNow();
		int rc;

		fprintf(stderr, "memhp-lab: %s: step %d/%d: %s%s%s\n", s->name, i + 1, s->nsteps,
			mhlStepTypeNames[st->type], st->id[0] ? " " : "", st->id);
		json_object_object_add(res, "step", json_object_new_string(mhlStepTypeNames[st->type]));
		json_object_object_add(res, "line", json_object_new_int(st->line));
		if (st->id[0])
			json_object_object_add(res, "id", json_object_new_string(st->id));
		json_object_object_add(res, "t", json_object_new_double(t0 - t.t0));
		rc = stepRun(&t, s, st, res, summary);
		json_object_object_add(res, "seconds", json_object_new_double(mhlNow() - t0));
		json_object_object_add(res, "ok", json_object_new_boolean(rc == 0));
		if (rc < 0) {
			json_object_object_add(res, "error", json_object_new_string(mhlErrorLast()));
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
		verdict = MHL_VERDICT_FAIL;
	if (!json_object_object_get_ex(summary, "pins_failed", NULL))
		json_object_object_add(summary, "pins_failed", json_object_new_int(0));
	{
		json_object *snap = mhlGuestSnapshot(t.dom);

		if (snap)
			json_object_object_add(rec, "guest_after", snap);
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
	if (t.dom) {
		if (virDomainDestroy(t.dom) < 0 && virDomainIsActive(t.dom) == 1)
			fprintf(stderr, "memhp-lab: warning: cannot destroy domain '%s': %s\n",
				t.name, virGetLastErrorMessage());
		virDomainFree(t.dom);
	}
	if (cb >= 0)
		virConnectDomainEventDeregisterAny(conn, cb);
	console_text = mhlFileRead(console, NULL);
	if (!console_text) {
		mhlErrorReset();
		console_text = g_strdup("");
	}
	{
		json_object *findings = mhlConsoleScan(console_text);

		if (verdict == MHL_VERDICT_PASS && json_object_array_length(findings) > 0) {
			json_object *f0 = json_object_array_get_idx(findings, 0), *txt;

			json_object_object_get_ex(f0, "text", &txt);
			verdict = MHL_VERDICT_FAIL;
			reason = g_strdup_printf("kernel reported a problem on the console (%s): %s",
						 console, json_object_get_string(txt));
		}
		json_object_object_add(rec, "console_findings", findings);
	}
	json_object_object_add(rec, "steps", steps);
	pthread_mutex_lock(&t.lock);
	json_object_object_add(rec, "timeline", t.timeline);
	pthread_mutex_unlock(&t.lock);
	json_object_object_add(rec, "summary", summary);
	json_object_object_add(rec, "seconds", json_object_new_double(mhlNow() - t_start));
	json_object_object_add(rec, "verdict", json_object_new_string(mhlVerdictNames[verdict]));
	json_object_object_add(rec, "reason", reason ? json_object_new_string(reason) : NULL);
	if (mhlRecordAppend(records, rec) < 0) {
		fprintf(stderr, "memhp-lab: error: %s\n", mhlErrorLast());
		mhlErrorReset();
		verdict = MHL_VERDICT_ERROR;
	}
	g_free(t.name);
	*recp = rec;
	return verdict;
}
