/*
 * step-reboot.c - reboot: the guest reset under the same QEMU, asked by the
 * host (virDomainReboot through the guest agent) or from inside (busybox's
 * reboot -f). QEMU unplugs every virtio-mem block at the reset and the
 * guest's driver plugs back to the request after its boot: the step records
 * what was plugged before and after, how long until the reset, the agent
 * and the re-plug, and which pins the reboot took with it (their holders
 * are gone: the trial holds them no more).
 */
#include <glib.h>

#include "trial/steps.h"

#include <libvirt/libvirt.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "scenario/names.h"
#include "util.h"

/*
 * Ask for the reboot. host: virDomainReboot with the agent flag (qemu-ga's
 * guest-shutdown runs the image's /sbin/shutdown); the ACPI power button
 * needs a userspace that listens for it, which the lab's image has not.
 * guest: reboot -f half a second after the agent's exec returned.
 */
static int rebootAsk(mhlTrial *t, const mhlStep *st, json_object *lc)
{
	const char *argv[] = { "/bin/sh", "-c", "(sleep 0.5; reboot -f) </dev/null >/dev/null 2>&1 &", NULL };
	mhlExecStatus es = { 0 };
	int rc;

	if (st->how == MHL_REBOOT_HOST) {
		json_object_object_add(lc, MHL_K_METHOD, json_object_new_string("agent"));
		if (virDomainReboot(t->g->dom, VIR_DOMAIN_REBOOT_GUEST_AGENT) == 0)
			return 0;
		mhlErrorVirt("cannot reboot domain '%s' through its guest agent (virDomainReboot, VIR_DOMAIN_REBOOT_GUEST_AGENT)",
			     t->g->name);
		json_object_object_add(lc, MHL_K_REFUSED, json_object_new_string(mhlErrorLast()));
		return -1;
	}
	json_object_object_add(lc, MHL_K_METHOD, json_object_new_string("reboot -f"));
	rc = mhlAgentExec(t->g->dom, argv, 30, &es);
	if (rc == 0 && (!es.exited || es.exitcode != 0)) {
		g_autofree char *err = mhlTextClean(es.err, -1, 200, false);

		mhlError("reboot from inside: '%s' exited %d: %s", argv[2], es.exitcode, err);
		rc = -1;
	}
	mhlExecStatusClear(&es);
	return rc;
}

/* Seconds until the guest's reset (a REBOOT event past @resets0), or -1 + mhlError. */
static double waitReset(mhlTrial *t, int resets0, double deadline)
{
	double start = mhlNow();

	while (mhlGuestResets(t->g) <= resets0) {
		if (mhlInterrupted || !mhlGuestAlive(t->g) || mhlNow() - start > deadline) {
			mhlError("reboot: %s %.1f s after the request (console: %s)", mhlInterrupted ?
				 "interrupted" : !mhlGuestAlive(t->g) ? "the guest stopped instead of resetting" :
				 "no reset of the guest (libvirt's REBOOT event)", mhlNow() - start, t->g->console);
			return -1;
		}
		g_usleep(20 * 1000);
	}
	return mhlNow() - start;
}

/* The pins held before the reboot: gone with their holders; the trial holds none now. */
static void pinsLost(mhlTrial *t, json_object *lc)
{
	json_object *ids = json_object_new_array();
	int i;

	for (i = 0; i < t->nheld; i++)
		if (t->held[i].bytes > 0)
			json_object_array_add(ids, json_object_new_string(t->held[i].id));
	t->nheld = 0;
	json_object_object_add(lc, MHL_K_PINS_LOST, ids);
}

/* Reset, the agent back, every device at its request again: the figures into @lc. */
static int rebootRun(mhlTrial *t, const mhlStep *st, json_object *lc)
{
	int resets0 = mhlGuestResets(t->g);
	double t_req = mhlNow(), reset_s;

	if (rebootAsk(t, st, lc) < 0 || (reset_s = waitReset(t, resets0, st->deadline)) < 0)
		return -1;
	pinsLost(t, lc);
	json_object_object_add(lc, MHL_K_RESET_S, json_object_new_double(reset_s));
	if (mhlLifecycleBack(t, lc, t_req, st->deadline, MHL_K_REPLUG_S) < 0)
		return -1;
	/* down: from the reset to the agent answering */
	json_object_object_add(lc, MHL_K_DOWN_S, json_object_new_double(mhlJDbl(lc, MHL_K_AGENT_S, 0) - reset_s));
	return 0;
}

int mhlStepReboot(mhlTrial *t, const mhlStep *st, json_object *res)
{
	double t0 = mhlNow();
	json_object *lc = mhlLifecycleBegin(t, st, res, NULL);
	int rc;

	if (!lc)
		return -1;
	json_object_object_add(lc, MHL_K_HOW, json_object_new_string(mhlRebootHows[st->how]));
	mhlGuestRebootExpect(t->g, true);
	rc = rebootRun(t, st, lc);
	mhlGuestRebootExpect(t->g, false);
	return mhlLifecycleEnd(lc, t0, rc);
}
