/*
 * tests/unit/guest.c - what the host reads from and about the guest
 * (orchestrator/guest/guest.h): QMP's memory devices, /proc/vmstat,
 * /proc/zoneinfo, memory block states and the serial console's findings.
 */
#include <glib.h>

#include <string.h>

#include "guest/guest.h"
#include "unit.h"
#include "util.h"

static const char qmpDevices[] = "{\"return\":[{\"type\":\"dimm\",\"data\":{\"node\":1,\"size\":5}},"
	"{\"type\":\"virtio-mem\",\"data\":{\"node\":1,\"size\":268435456,"
	"\"requested-size\":0,\"id\":\"virtiomem0\"}}]}";

/* The string @key of element @i of array @a, "" when absent. */
static const char *elemStr(json_object *a, size_t i, const char *key)
{
	const char *s = json_object_get_string(json_object_object_get(json_object_array_get_idx(a, i), key));

	return s ? s : "";
}

static bool qmpNode1(void)
{
	unsigned long long size = 0, req = 1;

	return unitExpect(mhlParseMemoryDevices(qmpDevices, 1, &size, &req) == 0 && size == 268435456 && req == 0);
}

static bool qmpNode0(void)
{
	unsigned long long size = 0, req = 1;

	return unitExpect(mhlParseMemoryDevices(qmpDevices, 0, &size, &req) < 0);
}

static bool vmstat(void)
{
	g_autoptr(json_object) vm = mhlParseVmstat("nr_free_pages 123\nnr_foll_pin_acquired 32768\nbad\n");
	json_object *v;

	return unitExpect(vm && json_object_object_get_ex(vm, "nr_foll_pin_acquired", &v) &&
			  json_object_get_int64(v) == 32768 && json_object_object_length(vm) == 2);
}

static bool zoneinfo(void)
{
	g_autoptr(json_object) zi = mhlParseZoneinfo("Node 0, zone    DMA32\n  pages free     1000\n"
		"        spanned  2000\n        present  1900\n        managed  1800\n"
		"Node 1, zone  Movable\n  pages free     7\n        present  262144\n");

	return unitExpect(zi && json_object_array_length(zi) == 2 &&
			  json_object_get_int64(json_object_object_get(json_object_array_get_idx(zi, 1), "present")) == 262144 &&
			  !strcmp(elemStr(zi, 1, "zone"), "Movable"));
}

static bool memoryBlocks(void)
{
	g_autoptr(json_object) mb = mhlParseMemoryBlocks("memory0 online DMA32\nmemory8 online Movable\n"
							  "memory9 online Movable\nmemory10 offline Movable Normal\n");

	return unitExpect(mb && json_object_get_int(json_object_object_get(mb, "online")) == 3 &&
			  json_object_get_int(json_object_object_get(mb, "offline")) == 1 &&
			  json_object_get_int(json_object_object_get(json_object_object_get(mb, "online_by_zone"),
								     "Movable")) == 2);
}

static bool console(void)
{
	g_autoptr(json_object) cs = mhlConsoleScan(
		"Booting from ROM..\n[    1.5] WARNING: CPU: 0 PID: 1 at mm/gup.c:42\n"
		"user says BUG: not a kernel line\n[  12.000001] Kernel panic - not syncing\n"
		"\x1b[2J[    0.1] normal line\n");

	return unitExpect(cs && json_object_array_length(cs) == 2 && !strcmp(elemStr(cs, 0, "kind"), "warning") &&
			  !strcmp(elemStr(cs, 1, "kind"), "panic"));
}

static const unitCase cases[] = {
	{ "qmp: virtio-mem size and requested-size of node 1 (dimm skipped)", qmpNode1 },
	{ "qmp: no device on node 0 is an error", qmpNode0 },
	{ "vmstat: counters parsed, junk line skipped", vmstat },
	{ "zoneinfo: node 1 Movable present pages", zoneinfo },
	{ "memory blocks: 3 online (2 Movable), 1 offline", memoryBlocks },
	{ "console: a WARNING and a panic found, non-kernel line ignored", console },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitGuest = UNIT_MODULE("guest", NULL, NULL, tables);
