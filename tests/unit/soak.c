/*
 * tests/unit/soak.c - the soak (orchestrator/soak/soak.h): durations, and
 * the schedule as a pure function of (seed, cycle) within its bounds.
 */
#include <glib.h>

#include <string.h>

#include "scenario/scenario.h"
#include "soak/soak.h"
#include "unit.h"
#include "util.h"

#define CYCLES 200

static const char soakYAML[] =
	"name: s\nnodes:\n  - memory: 512MiB\n  - memory: 64MiB\n"
	"    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\n"
	"  - memory: 64MiB\n    virtio_mem: {size: 256MiB, block: 2MiB, requested: 256MiB}\n"
	"steps:\n  - snapshot:\n";

static mhlScenario *withDevices, *withoutDevice;

static void soakSetup(void)
{
	g_autofree char *path = unitWriteTmp("soak.yaml", soakYAML);
	g_autofree char *none = unitWriteTmp("nodev.yaml",
					     "name: n\nnodes:\n  - memory: 512MiB\nsteps:\n  - snapshot:\n");

	withDevices = mhlScenarioLoad(path);
	withoutDevice = mhlScenarioLoad(none);
	if (!withDevices || !withoutDevice)
		unitDiag("soak scenarios: %s", mhlErrorLast());
}

static void soakTeardown(void)
{
	g_clear_pointer(&withDevices, mhlScenarioFree);
	g_clear_pointer(&withoutDevice, mhlScenarioFree);
}

static bool durations(void)
{
	static const struct { const char *in; double want; } durs[] = {
		{ "90s", 90 }, { "30m", 1800 }, { "8h", 28800 }, { "1h30m", 5400 }, { "2d", 172800 },
		{ "8x", -1 }, { "", -1 }, { "0", -1 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(durs); i++) {
		if (mhlSoakDurationParse(durs[i].in) != durs[i].want) {
			unitDiag("'%s' parses to %g, not %g", durs[i].in, mhlSoakDurationParse(durs[i].in), durs[i].want);
			return unitExpect(false);
		}
	}
	return true;
}

static bool scenariosLoad(void)
{
	return unitExpect(withDevices && withoutDevice);
}

static bool sameSchedule(const mhlSoakCycle *a, const mhlSoakCycle *b)
{
	return a->node == b->node && a->pin_bytes == b->pin_bytes && a->requested_bytes == b->requested_bytes &&
	       !strcmp(a->workload, b->workload);
}

static bool dependsOnSeedAndCycle(void)
{
	mhlSoakCycle a, b;
	bool same = withDevices != NULL;
	int c;

	for (c = 1; same && c <= CYCLES; c++) {
		mhlSoakSchedule(withDevices, 42, c, &a);
		mhlSoakSchedule(withDevices, 42, c, &b);
		same = sameSchedule(&a, &b);
	}
	return unitExpect(same);
}

static bool seedVaries(void)
{
	mhlSoakCycle a, b;
	bool varies = false;
	int c;

	for (c = 1; withDevices && !varies && c <= CYCLES; c++) {
		mhlSoakSchedule(withDevices, 42, c, &a);
		mhlSoakSchedule(withDevices, 43, c, &b);
		varies = a.pin_bytes != b.pin_bytes || a.requested_bytes != b.requested_bytes;
	}
	return unitExpect(varies);
}

static bool bounded(void)
{
	bool ok = withDevices != NULL;
	mhlSoakCycle a;
	int c;

	for (c = 1; ok && c <= CYCLES; c++) {
		const mhlNode *nd;

		mhlSoakSchedule(withDevices, 42, c, &a);
		nd = &withDevices->nodes[a.node];
		ok = nd->vmem_size && a.pin_bytes >= 2 << 20 && a.pin_bytes <= nd->vmem_requested / 8 &&
		     a.pin_bytes % (2 << 20) == 0 && a.requested_bytes <= nd->vmem_requested / 2 &&
		     a.requested_bytes % nd->vmem_block == 0 && a.full_bytes == nd->vmem_requested;
		if (!ok)
			unitDiag("cycle %d: node %d, pin %" G_GUINT64_FORMAT ", requested %" G_GUINT64_FORMAT,
				 c, a.node, (guint64)a.pin_bytes, (guint64)a.requested_bytes);
	}
	return unitExpect(ok);
}

static bool seven(void)
{
	mhlSoakCycle a;

	return unitExpect(withDevices && mhlSoakSchedule(withDevices, 7, 1, &a) == 0 && a.node == 2 &&
			  !strcmp(a.workload, "gup") && a.pin_bytes == 27262976 && a.requested_bytes == 56623104);
}

static bool noDeviceRefused(void)
{
	mhlSoakCycle a;

	return unitExpect(withoutDevice && mhlSoakSchedule(withoutDevice, 1, 1, &a) < 0 &&
			  strstr(mhlErrorLast(), "no node with a plugged virtio-mem device"));
}

static const unitCase cases[] = {
	{ "soak: --duration 90s, 30m, 8h, 1h30m, 2d parse; 8x, empty, 0 do not", durations },
	{ "soak: the test scenarios load", scenariosLoad },
	{ "soak: a cycle's schedule depends on (seed, cycle) only", dependsOnSeedAndCycle },
	{ "soak: another seed gives another schedule", seedVaries },
	{ "soak: 200 cycles pin 2 MiB..1/8 of a device node and unplug it to 0..1/2 in blocks", bounded },
	{ "soak: seed 7's cycle 1 is docs/soak.md's (node 2, gup, 26 MiB, to 54 MiB)", seven },
	{ "soak: a guest without a virtio-mem device is refused", noDeviceRefused },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitSoak = UNIT_MODULE("soak", soakSetup, soakTeardown, tables);
