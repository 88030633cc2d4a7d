/*
 * step-dimm.c - dimm: a <memory model='dimm'> attached to the running guest
 * (its ACPI memory hotplug onlines it by the scenario's online policy) or
 * detached by its id (libvirt's DEVICE_REMOVED once the guest offlined and
 * ejected it). A detach that does not complete in its deadline (pins the
 * guest cannot migrate hold its blocks) fails the step unless a later
 * expect step judges it (dimm: stuck); the guest may go on retrying the
 * offline, and the trial's end destroys the domain all the same. What the
 * dimm and vmem steps share is here too (steps.h, mhlHotplug*).
 */
#include <glib.h>

#include "trial/steps.h"

#include <string.h>

#include "guest/hotplug.h"
#include "scenario/names.h"
#include "util.h"

json_object *mhlHotplugBegin(mhlTrial *t, const mhlStep *st, json_object *res, const char *mechanism,
			     int64_t requested, guint64 *mt0)
{
	json_object *el = mhlElasticBegin(res, mechanism, mhlActionNames[st->action]);
	int on;

	json_object_object_add(el, MHL_K_REQUESTED_BYTES, json_object_new_int64(requested));
	if (mhlGuestMemOnline(t->g->dom, mt0, &on) < 0)
		return NULL;
	json_object_object_add(el, MHL_K_MEMTOTAL_BEFORE_BYTES, json_object_new_int64((int64_t)*mt0));
	return el;
}

/* libvirt's refusal of step @st as elastic.refused; -1 with it as the error. */
static int refused(const mhlTrial *t, const mhlStep *st, json_object *el, const char *what, const char *alias)
{
	mhlErrorVirt("%s:%d: %s: libvirt refused to %s '%s' (%s)", t->s->path, st->line,
		     mhlStepTypeNames[st->type], what, st->id, alias);
	json_object_object_add(el, MHL_K_REFUSED, json_object_new_string(mhlErrorLast()));
	return -1;
}

int mhlHotplugAttach(mhlTrial *t, const mhlStep *st, json_object *el, const char *alias, const char *xml)
{
	g_autoptr(GArray) before = mhlHostMemMaps(&t->g->hm);
	g_autoptr(GArray) after = NULL;
	int i;

	json_object_object_add(el, MHL_K_ALIAS, json_object_new_string(alias));
	if (virDomainAttachDeviceFlags(t->g->dom, xml, VIR_DOMAIN_AFFECT_LIVE) < 0)
		return refused(t, st, el, "attach", alias);
	after = mhlHostMemMaps(&t->g->hm);
	/*
	 * The device's backend: the one new mapping of its size in QEMU, sampled
	 * from now on (none found: QEMU's RSS is the measure). A full table
	 * (check allows fewer attaches) leaves it unsampled the same way.
	 */
	i = mhlSmapsNewMapping(before, after, st->size);
	mhlGuestHostAttach(t->g, st->id, st->node, st->type == MHL_STEP_VMEM, st->size,
			   i >= 0 ? g_array_index(after, mhlSmapsEntry, i).start : 0);
	return 0;
}

int mhlHotplugDetach(mhlTrial *t, const mhlStep *st, json_object *el, const char *alias)
{
	json_object_object_add(el, MHL_K_ALIAS, json_object_new_string(alias));
	if (virDomainDetachDeviceAlias(t->g->dom, alias, VIR_DOMAIN_AFFECT_LIVE) < 0)
		return refused(t, st, el, "detach", alias);
	return 0;
}

/* QEMU's slot and base address of DIMM @alias into @el (*info); -1 (no error left) if it has none. */
static int dimmInfo(mhlTrial *t, json_object *el, const char *alias, mhlDimmInfo *info)
{
	if (mhlGuestDimm(t->g->dom, alias, info) < 0) {
		json_object_object_add(el, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
		mhlErrorReset();
		return -1;
	}
	json_object_object_add(el, MHL_K_SLOT, json_object_new_int(info->slot));
	json_object_object_add(el, MHL_K_BASE_ADDRESS, json_object_new_int64((int64_t)info->addr));
	return 0;
}

static int dimmAttach(mhlTrial *t, const mhlStep *st, json_object *res)
{
	g_autofree char *alias = mhlHotplugAlias("dimm", st->id);
	g_autofree char *xml = mhlHotplugXML(alias, st->node, st->size, 0, 0);
	guint64 mt0, mt = 0;
	double t_req, end;
	mhlDimmInfo info;
	json_object *el = mhlHotplugBegin(t, st, res, "dimm", (int64_t)st->size, &mt0);
	int on;

	if (!el)
		return -1;
	t_req = mhlNow();
	if (mhlHotplugAttach(t, st, el, alias, xml) < 0)
		return -1;
	/* the guest's ACPI memory hotplug adds and onlines it: MemTotal grows by its size */
	for (end = t_req + st->deadline; !mhlInterrupted;) {
		if (mhlGuestMemOnline(t->g->dom, &mt, &on) < 0)
			return -1;
		if (mt >= mt0 + st->size || mhlNow() > end)
			break;
		if (mhlGuestSleep(t->g, 0.1) < 0)
			return -1;
	}
	json_object_object_add(el, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_req));
	json_object_object_add(el, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt));
	dimmInfo(t, el, alias, &info);
	if (mt < mt0 + st->size) {
		mhlError("%s:%d: dimm: DIMM '%s' attached, but the guest's MemTotal grew by %" G_GINT64_FORMAT " of its %" G_GUINT64_FORMAT " bytes in %g s (its ACPI memory hotplug did not online it)",
			 t->s->path, st->line, st->id, (gint64)(mt - MIN(mt, mt0)), st->size, st->deadline);
		return -1;
	}
	json_object_object_add(el, MHL_K_OK, json_object_new_boolean(true));
	return 0;
}

/* Does an expect step after @st, under this pin_policy, judge the DIMM's removal (dimm:)? */
static bool removalJudged(const mhlScenario *s, const mhlStep *st)
{
	int i;

	if (st < s->steps || st >= s->steps + s->nsteps)
		return false;
	for (i = (int)(st - s->steps) + 1; i < s->nsteps; i++) {
		const mhlStep *e = &s->steps[i];

		if (e->type == MHL_STEP_DIMM)
			return false;
		if (e->type == MHL_STEP_EXPECT && mhlExpectApplies(s, e) && e->dimm != MHL_DIMM_ANY)
			return true;
	}
	return false;
}

/*
 * A detach that completed: the host side, from the DIMM's size to nothing
 * (mhlTrialHostSide), measured by its backend (hot entry @k), else QEMU's RSS.
 */
static void dimmHostSide(mhlTrial *t, const mhlStep *st, json_object *res, json_object *el,
			 const mhlHostSample *before, int k, double t_req)
{
	mhlHostSample after;
	const char *by, *by_after;
	int64_t b, a;

	if (mhlTrialHostSettle(t, t_req, &after) < 0)
		return;
	b = mhlHostSampleHotBytes(before, k, &by);
	a = mhlHostSampleHotBytes(&after, k, &by_after);
	if (b < 0 || a < 0 || strcmp(by, by_after))
		return;
	if (!strcmp(by, "backend")) {
		json_object_object_add(el, MHL_K_BACKEND_BEFORE_BYTES, json_object_new_int64(b));
		json_object_object_add(el, MHL_K_BACKEND_AFTER_BYTES, json_object_new_int64(a));
	}
	mhlTrialHostSide(t, res, before, &after, b, a, by, t_req, (int64_t)st->size, 0);
}

/*
 * A detach that did not complete: the DIMM's blocks, and those not offline
 * named (online, or going-offline: the one the guest's offline retries on),
 * what holds the DIMM.
 */
static void dimmStuck(mhlTrial *t, json_object *el, const mhlDimmInfo *info, GString *why)
{
	json_object *blocks = mhlGuestBlocksRange(t->g->dom, info->addr, info->size);
	json_object *pinned = json_object_new_array();
	size_t i;

	json_object_object_add(el, MHL_K_PINNED_BLOCKS, pinned);
	if (!blocks) {
		json_object_object_add(el, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
		mhlErrorReset();
		return;
	}
	json_object_object_add(el, MHL_K_RANGE_BLOCKS, blocks);
	for (i = 0; i < json_object_array_length(blocks); i++) {
		json_object *b = json_object_array_get_idx(blocks, i);

		if (!strcmp(json_object_get_string(mhlJ(b, MHL_K_STATE)), "offline"))
			continue;
		json_object_array_add(pinned, json_object_get(mhlJ(b, MHL_K_BLOCK)));
		g_string_append_printf(why, "%smemory%s %s", json_object_array_length(pinned) > 1 ? ", " : "",
				       json_object_get_string(mhlJ(b, MHL_K_BLOCK)),
				       json_object_get_string(mhlJ(b, MHL_K_STATE)));
	}
}

/* Wait for DEVICE_REMOVED (1) or DEVICE_REMOVAL_FAILED (-1) of @alias until @end; 0: neither. -2 + mhlError: the guest went. */
static int removalWait(mhlTrial *t, const char *alias, double end)
{
	int r;

	while (!(r = mhlGuestDeviceRemoved(t->g, alias)) && mhlNow() < end && !mhlInterrupted)
		if (mhlGuestSleep(t->g, 0.05) < 0)
			return -2;
	return r;
}

static int dimmDetach(mhlTrial *t, const mhlStep *st, json_object *res)
{
	g_autofree char *alias = mhlHotplugAlias("dimm", st->id);
	g_autoptr(GString) why = g_string_new(NULL);
	mhlDimmInfo info = { .slot = -1 };
	mhlHostSample before;
	int k = mhlHostMemHotFind(&t->g->hm, st->id);	/* its attach's entry (check: one came first) */
	guint64 mt0, mt = 0;
	json_object *el = mhlHotplugBegin(t, st, res, "dimm", -(int64_t)st->size, &mt0);
	bool host;
	double t_req;
	int r, on;

	if (!el || dimmInfo(t, el, alias, &info) < 0)
		return -1;
	host = mhlGuestHostSample(t->g, &before) == 0;
	mhlTrialHeldAtShrink(t);
	t_req = mhlNow();
	if (mhlHotplugDetach(t, st, el, alias) < 0)
		return -1;
	if ((r = removalWait(t, alias, t_req + st->deadline)) == -2)
		return -1;
	json_object_object_add(el, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_req));
	json_object_object_add(el, MHL_K_REMOVED, json_object_new_boolean(r == 1));
	json_object_object_add(el, MHL_K_REMOVAL_FAILED, json_object_new_boolean(r == -1));
	json_object_object_add(el, MHL_K_DEADLINE_S, json_object_new_double(st->deadline));
	if (mhlGuestMemOnline(t->g->dom, &mt, &on) == 0)
		json_object_object_add(el, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt));
	else
		mhlErrorReset();	/* a guest busy retrying the offline may not answer: no figure */
	if (r == 1) {
		json_object_object_add(el, MHL_K_OK, json_object_new_boolean(true));
		if (host && !mhlInterrupted)
			dimmHostSide(t, st, res, el, &before, k, t_req);
		return 0;
	}
	dimmStuck(t, el, &info, why);
	mhlError("%s:%d: dimm: detach of '%s' did not complete in %g s (%s; blocks not offline: %s)",
		 t->s->path, st->line, st->id, st->deadline,
		 r == -1 ? "libvirt reported DEVICE_REMOVAL_FAILED" : "no DEVICE_REMOVED event",
		 why->len ? why->str : "none named");
	if (mhlInterrupted || !removalJudged(t->s, st))
		return -1;
	/* not a failure here: the expect step after it judges it */
	json_object_object_add(el, MHL_K_NOTE, json_object_new_string(mhlErrorLast()));
	mhlErrorReset();
	return 0;
}

int mhlStepDimm(mhlTrial *t, const mhlStep *st, json_object *res)
{
	return st->action == MHL_ACTION_ATTACH ? dimmAttach(t, st, res) : dimmDetach(t, st, res);
}
