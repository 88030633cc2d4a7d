/*
 * step-balloon.c - balloon: the guest's memory to a target through its
 * virtio balloon (virDomainSetMemoryFlags, live), waiting until the
 * balloon's actual size (virDomainMemoryStats) reaches it or the deadline.
 * Records res.elastic (record.h: mechanism "balloon", action "target") with
 * what the guest sees before and after, and the host side as a resize does
 * (mhlTrialHostSide, QEMU's whole resident set: a balloon takes pages from
 * any backend).
 */
#include <glib.h>

#include "trial/steps.h"

#include "guest/guest.h"
#include "util.h"

#include <libvirt/virterror.h>
#include <string.h>

/* The balloon's actual size now (KiB), or -1 + mhlError. */
static long long balloonActual(virDomainPtr dom)
{
	virDomainMemoryStatStruct st[VIR_DOMAIN_MEMORY_STAT_NR];
	int n = virDomainMemoryStats(dom, st, VIR_DOMAIN_MEMORY_STAT_NR, 0), i;

	if (n < 0) {
		mhlErrorVirt("balloon: cannot read the domain's memory statistics");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (st[i].tag == VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON)
			return (long long)st[i].val;
	mhlError("balloon: the domain's memory statistics have no actual balloon size (no balloon device?)");
	return -1;
}

/* Whether the live domain's balloon reports free pages (freePageReporting='on'). */
static bool freePageReporting(virDomainPtr dom)
{
	g_autofree char *xml = virDomainGetXMLDesc(dom, 0);

	return xml && strstr(xml, "freePageReporting='on'");
}

/* The guest's MemTotal, MemFree, MemAvailable into @e under the @when keys; -1 + mhlError. */
static int guestSees(mhlTrial *t, json_object *e, bool after)
{
	g_autoptr(json_object) km = NULL;
	json_object *mi = NULL, *v;
	guint64 mt;
	int on;

	if (mhlGuestMemOnline(t->g->dom, &mt, &on) < 0 || !(km = mhlGuestKernelMem(t->g->dom, false)))
		return -1;
	json_object_object_add(e, after ? MHL_K_MEMTOTAL_AFTER_BYTES : MHL_K_MEMTOTAL_BEFORE_BYTES,
			       json_object_new_int64((int64_t)mt));
	json_object_object_get_ex(km, MHL_K_MEMINFO, &mi);
	if (mi && json_object_object_get_ex(mi, MHL_K_MEM_FREE_BYTES, &v))
		json_object_object_add(e, after ? MHL_K_MEMFREE_AFTER_BYTES : MHL_K_MEMFREE_BEFORE_BYTES,
				       json_object_get(v));
	if (mi && json_object_object_get_ex(mi, MHL_K_MEM_AVAILABLE_BYTES, &v))
		json_object_object_add(e, after ? MHL_K_MEMAVAILABLE_AFTER_BYTES : MHL_K_MEMAVAILABLE_BEFORE_BYTES,
				       json_object_get(v));
	return 0;
}

/* Poll the actual size until it is @want KiB (0) or @deadline s passed (1); the last into *@actual. */
static int balloonWait(mhlTrial *t, unsigned long long want, double deadline, long long *actual)
{
	double end = mhlNow() + deadline;

	for (;;) {
		if ((*actual = balloonActual(t->g->dom)) < 0)
			return -1;
		if ((unsigned long long)*actual == want)
			return 0;
		if (mhlNow() >= end || mhlInterrupted || t->g->gone)
			break;
		g_usleep(100 * 1000);
	}
	return 1;
}

/* The host side after the balloon moved: QEMU's resident set before and after (mhlTrialHostSide). */
static void balloonHost(mhlTrial *t, json_object *res, const mhlHostSample *before, double t_req,
			long long actual_before, long long actual_after)
{
	mhlHostSample after;

	if (mhlTrialHostSettle(t, t_req, &after) < 0 || before->qemu_rss < 0 || after.qemu_rss < 0) {
		mhlErrorReset();
		return;
	}
	mhlTrialHostSide(t, res, before, &after, before->qemu_rss, after.qemu_rss, "qemu_rss", t_req,
			 actual_before * 1024, actual_after * 1024);
}

int mhlStepBalloon(mhlTrial *t, const mhlStep *st, json_object *res)
{
	json_object *e = mhlElasticBegin(res, "balloon", "target");
	unsigned long long want = st->target / 1024;
	long long before_kib, after_kib = -1;
	mhlHostSample hs;
	bool host;
	double t_req;
	int rc;

	json_object_object_add(e, MHL_K_TARGET_BYTES, json_object_new_int64((int64_t)st->target));
	json_object_object_add(e, MHL_K_FREE_PAGE_REPORTING, json_object_new_boolean(freePageReporting(t->g->dom)));
	if ((before_kib = balloonActual(t->g->dom)) < 0 || guestSees(t, e, false) < 0)
		return -1;
	json_object_object_add(e, MHL_K_ACTUAL_BEFORE_BYTES, json_object_new_int64(before_kib * 1024));
	json_object_object_add(e, MHL_K_REQUESTED_BYTES,
			       json_object_new_int64((int64_t)st->target - before_kib * 1024));
	t->g->host_changed_t = 0;
	host = mhlGuestHostSample(t->g, &hs) == 0;
	if ((long long)want < before_kib)
		mhlTrialHeldAtShrink(t);
	t_req = mhlNow();
	if (virDomainSetMemoryFlags(t->g->dom, want, VIR_DOMAIN_AFFECT_LIVE) < 0) {
		const char *msg = virGetLastErrorMessage();
		g_autofree char *why = mhlTextClean(msg ? msg : "", -1, 1024, false);

		json_object_object_add(e, MHL_K_REFUSED, json_object_new_string(why));
		mhlErrorVirt("%s:%d: balloon: libvirt refused the target %llu KiB", t->s->path, st->line, want);
		return -1;
	}
	rc = balloonWait(t, want, st->deadline, &after_kib);
	json_object_object_add(e, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_req));
	if (rc < 0)
		return -1;
	json_object_object_add(e, MHL_K_ACTUAL_AFTER_BYTES, json_object_new_int64(after_kib * 1024));
	if (host && !mhlInterrupted)
		balloonHost(t, res, &hs, t_req, before_kib, after_kib);
	if (guestSees(t, e, true) < 0)
		return -1;
	json_object_object_add(e, MHL_K_OK, json_object_new_boolean(rc == 0));
	if (rc) {
		mhlError("%s:%d: balloon: the balloon's actual size is %lld KiB after %.0f s, not the target %llu KiB",
			 t->s->path, st->line, after_kib, st->deadline, want);
		return -1;
	}
	return 0;
}
