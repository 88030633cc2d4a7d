/*
 * step-vmem.c - vmem: a <memory model='virtio-mem'> attached to the running
 * guest (then a resize step finds it on its node as one there from boot),
 * or detached by its id. QEMU 7.2 does not let a virtio-mem device be
 * unplugged: libvirt's refusal is recorded (elastic.refused) and the step
 * fails with it, which a scenario's xfail names as expected.
 */
#include <glib.h>

#include "trial/steps.h"

#include "guest/hotplug.h"
#include "util.h"

static int vmemAttach(mhlTrial *t, const mhlStep *st, json_object *res)
{
	g_autofree char *alias = mhlHotplugAlias("vmem", st->id);
	g_autofree char *xml = mhlHotplugXML(alias, st->node, st->size, st->block, st->requested);
	unsigned long long reached = 0;
	guint64 mt0, mt = 0;
	json_object *el = mhlHotplugBegin(t, st, res, "virtio-mem", (int64_t)st->requested, &mt0);
	double t_req, secs;
	int on;

	if (!el)
		return -1;
	t_req = mhlNow();
	if (mhlHotplugAttach(t, st, el, alias, xml) < 0)
		return -1;
	secs = mhlGuestWaitPlugged(t->g, st->node, st->requested, st->deadline, &reached);
	json_object_object_add(el, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_req));
	json_object_object_add(el, MHL_K_PLUGGED_BYTES, json_object_new_int64((int64_t)reached));
	if (mhlGuestMemOnline(t->g->dom, &mt, &on) < 0)
		return -1;
	json_object_object_add(el, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt));
	if (secs < 0 && !reached && mt == mt0) {
		g_autofree char *why = g_strdup(mhlErrorLast());

		mhlError("%s:%d: vmem: the guest never took device '%s' (nothing plugged, MemTotal as before: a kernel without PCIe hotplug, CONFIG_HOTPLUG_PCI_PCIE, never sees a device attached while it runs): %s",
			 t->s->path, st->line, st->id, why);
	}
	if (secs < 0)
		return -1;
	json_object_object_add(el, MHL_K_OK, json_object_new_boolean(true));
	return 0;
}

static int vmemDetach(mhlTrial *t, const mhlStep *st, json_object *res)
{
	g_autofree char *alias = mhlHotplugAlias("vmem", st->id);
	guint64 mt0, mt = 0;
	json_object *el = mhlHotplugBegin(t, st, res, "virtio-mem", -(int64_t)st->size, &mt0);
	double t_req;
	int r, on;

	if (!el)
		return -1;
	t_req = mhlNow();
	if (mhlHotplugDetach(t, st, el, alias) < 0)
		return -1;
	while (!(r = mhlGuestDeviceRemoved(t->g, alias)) && mhlNow() < t_req + st->deadline && !mhlInterrupted)
		if (mhlGuestSleep(t->g, 0.05) < 0)
			return -1;
	json_object_object_add(el, MHL_K_SECONDS, json_object_new_double(mhlNow() - t_req));
	json_object_object_add(el, MHL_K_REMOVED, json_object_new_boolean(r == 1));
	if (mhlGuestMemOnline(t->g->dom, &mt, &on) < 0)
		return -1;
	json_object_object_add(el, MHL_K_MEMTOTAL_AFTER_BYTES, json_object_new_int64((int64_t)mt));
	if (r != 1) {
		mhlError("%s:%d: vmem: detach of '%s' did not complete in %g s (%s)", t->s->path, st->line,
			 st->id, st->deadline, r == -1 ? "DEVICE_REMOVAL_FAILED" : "no DEVICE_REMOVED event");
		return -1;
	}
	json_object_object_add(el, MHL_K_OK, json_object_new_boolean(true));
	return 0;
}

int mhlStepVmem(mhlTrial *t, const mhlStep *st, json_object *res)
{
	return st->action == MHL_ACTION_ATTACH ? vmemAttach(t, st, res) : vmemDetach(t, st, res);
}
