/*
 * schedule.c - what a soak does, cycle by cycle: a pure function of the seed
 * and the cycle number, so a resumed soak continues the same schedule
 * (docs/soak.md); and the --duration parser.
 */
#include <glib.h>

#include "soak/soak.h"

#include "mhl-pin.h"
#include "record/record.h"
#include "util.h"

/* The pin modes a soak's cycles draw from (lib/mhl-pin.h's rows). */
static const enum mhl_pin_mode_id soakWorkloads[] = { MHL_PIN_GUP, MHL_PIN_IO_URING };

int mhlSoakSchedule(const mhlScenario *s, guint64 seed, int cycle, mhlSoakCycle *c)
{
	guint32 key[3] = { (guint32)seed, (guint32)(seed >> 32), (guint32)cycle };
	g_autoptr(GRand) r = g_rand_new_with_seed_array(key, G_N_ELEMENTS(key));
	int devs[MHL_MAX_NODES], ndevs = 0, i;
	const mhlNode *n;
	uint64_t blocks, pin_max;

	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].vmem_size && s->nodes[i].vmem_requested)
			devs[ndevs++] = i;
	if (!ndevs) {
		mhlError("soak: scenario '%s' has no node with a plugged virtio-mem device to resize",
			 s->path);
		return -1;
	}
	c->cycle = cycle;
	c->node = devs[g_rand_int_range(r, 0, ndevs)];
	n = &s->nodes[c->node];
	c->workload = mhl_pin_modes[soakWorkloads[g_rand_int_range(r, 0, G_N_ELEMENTS(soakWorkloads))]].name;
	/* Pins of 2 MiB up to an eighth of the device, in 2 MiB steps. */
	pin_max = MAX(n->vmem_requested / 8, 2ULL << 20);
	c->pin_bytes = (uint64_t)g_rand_int_range(r, 1, (gint32)(pin_max >> 21) + 1) << 21;
	/* Unplug to 0 .. half of the plugged size, in device blocks. */
	blocks = n->vmem_requested / n->vmem_block;
	c->requested_bytes = (uint64_t)g_rand_int_range(r, 0, (gint32)(blocks / 2) + 1) * n->vmem_block;
	c->full_bytes = n->vmem_requested;
	return 0;
}

json_object *mhlSoakCycleJSON(const mhlSoakCycle *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, MHL_K_CYCLE, json_object_new_int(c->cycle));
	json_object_object_add(o, MHL_K_NODE, json_object_new_int(c->node));
	json_object_object_add(o, MHL_K_WORKLOAD, json_object_new_string(c->workload));
	json_object_object_add(o, MHL_K_PIN_BYTES, json_object_new_int64((int64_t)c->pin_bytes));
	json_object_object_add(o, MHL_K_REQUESTED_BYTES, json_object_new_int64((int64_t)c->requested_bytes));
	json_object_object_add(o, MHL_K_FULL_BYTES, json_object_new_int64((int64_t)c->full_bytes));
	return o;
}

double mhlSoakDurationParse(const char *s)
{
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	while (*p) {
		char *end;
		double v = g_ascii_strtod(p, &end);

		if (end == p || v < 0)
			return -1;
		switch (*end) {
		case 's': case '\0': total += v; break;
		case 'm': total += v * 60; break;
		case 'h': total += v * 3600; break;
		case 'd': total += v * 86400; break;
		default: return -1;
		}
		p = *end ? end + 1 : end;
	}
	return total > 0 ? total : -1;
}
