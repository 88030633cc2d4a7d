#include <glib.h>

#include "util.h"
#include "guest/guest.h"

#include <fcntl.h>
#include <libvirt/libvirt-qemu.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest/agent.h"
#include "record/record.h"

json_object *mhlMemoryDevicesArray(json_object *root, const char *reply)
{
	json_object *ret;

	if (!root || !json_object_object_get_ex(root, "return", &ret) ||
	    !json_object_is_type(ret, json_type_array)) {
		mhlError("QMP query-memory-devices reply is not {\"return\": [...]}: '%.*s'",
			 mhlTextCutLen(reply, 200), reply);
		return NULL;
	}
	return ret;
}

int mhlParseMemoryDevices(const char *reply, int node, unsigned long long *size,
			  unsigned long long *requested)
{
	g_autoptr(json_object) root = json_tokener_parse(reply);
	json_object *ret = mhlMemoryDevicesArray(root, reply);
	size_t i;

	if (!ret)
		return -1;
	for (i = 0; i < json_object_array_length(ret); i++) {
		json_object *dev = json_object_array_get_idx(ret, i), *type, *data, *v;

		/* a type that is not a string (null: found by fuzzing) is not virtio-mem */
		if (!json_object_object_get_ex(dev, "type", &type) || !json_object_is_type(type, json_type_string) ||
		    strcmp(json_object_get_string(type), "virtio-mem") ||
		    !json_object_object_get_ex(dev, "data", &data) ||
		    !json_object_object_get_ex(data, "node", &v) || json_object_get_int(v) != node)
			continue;
		if (!json_object_object_get_ex(data, "size", &v)) {
			mhlError("QMP virtio-mem device on node %d has no 'size': '%.*s'", node,
				 mhlTextCutLen(reply, 200), reply);
			return -1;
		}
		*size = (unsigned long long)json_object_get_int64(v);
		*requested = json_object_object_get_ex(data, "requested-size", &v) ?
			(unsigned long long)json_object_get_int64(v) : 0;
		return 0;
	}
	mhlError("QMP query-memory-devices lists no virtio-mem device on node %d", node);
	return -1;
}

int mhlGuestVirtioMemSize(virDomainPtr dom, int node, unsigned long long *size,
			  unsigned long long *requested)
{
	char *reply = NULL;
	int rc;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-memory-devices\"}", &reply, 0) < 0) {
		mhlErrorVirt("QMP query-memory-devices failed");
		return -1;
	}
	rc = mhlParseMemoryDevices(reply, node, size, requested);
	free(reply);
	return rc;
}

int mhlParseMemslots(const char *text, const char *memdev)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autofree char *at = g_strdup_printf("@%s ", memdev);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	int i;

	/* each address space that holds device-memory lists it again: memslots counted by name */
	for (i = 0; lines[i]; i++) {
		const char *m = strstr(lines[i], ": alias memslot-");

		if (m && strstr(lines[i], at))
			g_hash_table_add(seen, g_strndup(m + 8, strcspn(m + 8, " ")));
	}
	return (int)g_hash_table_size(seen);
}

/* The backend id of node @node's virtio-mem device ("memvirtiomem0" of QMP's "/objects/memvirtiomem0"); NULL + mhlError. */
static char *vmemBackend(virDomainPtr dom, int node)
{
	g_autofree char *reply = NULL;
	g_autoptr(json_object) root = NULL;
	json_object *ret, *dev, *data, *v;
	size_t i;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-memory-devices\"}", &reply, 0) < 0) {
		mhlErrorVirt("QMP query-memory-devices failed");
		return NULL;
	}
	root = json_tokener_parse(reply);
	if (!(ret = mhlMemoryDevicesArray(root, reply)))
		return NULL;
	for (i = 0; i < json_object_array_length(ret); i++) {
		const char *memdev;

		dev = json_object_array_get_idx(ret, i);
		if (!json_object_object_get_ex(dev, "data", &data) || !json_object_object_get_ex(data, "node", &v) ||
		    json_object_get_int(v) != node || !json_object_object_get_ex(data, "memdev", &v) ||
		    !json_object_is_type(v, json_type_string))
			continue;
		memdev = json_object_get_string(v);
		return g_strdup(strrchr(memdev, '/') ? strrchr(memdev, '/') + 1 : memdev);
	}
	mhlError("QMP query-memory-devices lists no virtio-mem device with a memdev on node %d", node);
	return NULL;
}

int mhlGuestMemslots(virDomainPtr dom, int node)
{
	g_autofree char *memdev = vmemBackend(dom, node);
	char *text = NULL;
	int n;

	if (!memdev)
		return -1;
	if (virDomainQemuMonitorCommand(dom, "info mtree", &text, VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP) < 0) {
		mhlErrorVirt("HMP info mtree failed");
		return -1;
	}
	n = mhlParseMemslots(text, memdev);
	free(text);
	return n;
}

json_object *mhlParseVmstat(const char *text)
{
	json_object *obj = json_object_new_object();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i;

	for (i = 0; lines[i]; i++) {
		char name[128];
		long long v;

		if (sscanf(lines[i], "%127s %lld", name, &v) == 2)
			json_object_object_add(obj, name, json_object_new_int64(v));
	}
	return obj;
}

json_object *mhlParseZoneinfo(const char *text)
{
	json_object *arr = json_object_new_array(), *cur = NULL;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i;

	for (i = 0; lines[i]; i++) {
		char zone[32];
		long long v;
		int node;

		if (sscanf(lines[i], "Node %d, zone %31s", &node, zone) == 2) {
			cur = json_object_new_object();
			json_object_object_add(cur, MHL_K_NODE, json_object_new_int(node));
			json_object_object_add(cur, MHL_K_ZONE, json_object_new_string(zone));
			json_object_array_add(arr, cur);
		} else if (cur && sscanf(lines[i], " pages free %lld", &v) == 1) {
			json_object_object_add(cur, MHL_K_FREE, json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " present %lld", &v) == 1) {
			json_object_object_add(cur, MHL_K_PRESENT, json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " managed %lld", &v) == 1) {
			json_object_object_add(cur, MHL_K_MANAGED, json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " spanned %lld", &v) == 1) {
			json_object_object_add(cur, MHL_K_SPANNED, json_object_new_int64(v));
		}
	}
	return arr;
}

json_object *mhlParseMemoryBlocks(const char *text)
{
	json_object *obj = json_object_new_object(), *zones = json_object_new_object();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i, blocks = 0, online = 0, offline = 0;

	for (i = 0; lines[i]; i++) {
		char name[32], state[32], zone[32];
		json_object *n;
		int f = sscanf(lines[i], "%31s %31s %31s", name, state, zone);

		if (f < 2)
			continue;
		blocks++;
		if (!strcmp(state, "online")) {
			online++;
			if (f == 3) {
				int c = json_object_object_get_ex(zones, zone, &n) ? json_object_get_int(n) : 0;

				json_object_object_add(zones, zone, json_object_new_int(c + 1));
			}
		} else {
			offline++;
		}
	}
	json_object_object_add(obj, MHL_K_BLOCKS, json_object_new_int(blocks));
	json_object_object_add(obj, MHL_K_ONLINE, json_object_new_int(online));
	json_object_object_add(obj, MHL_K_OFFLINE, json_object_new_int(offline));
	json_object_object_add(obj, MHL_K_ONLINE_BY_ZONE, zones);
	return obj;
}

static char *guestOutput(virDomainPtr dom, const char *const *argv)
{
	mhlExecStatus st = { 0 };
	char *out;

	if (mhlAgentExec(dom, argv, 30, &st) < 0)
		return NULL;
	out = g_steal_pointer(&st.out);
	mhlExecStatusClear(&st);
	return out;
}

int mhlParseMemOnline(const char *text, guint64 *memtotal, int *online)
{
	unsigned long long kib;
	int n, used = 0;

	if (!text || sscanf(text, "memtotal %llu\nonline %d\n%n", &kib, &n, &used) != 2 || !used ||
	    text[used] || kib > G_MAXUINT64 / 1024 || n < 0) {
		mhlError("the guest's MemTotal/online blocks reply is not 'memtotal KIB' and 'online N': '%.*s'",
			 mhlTextCutLen(text ? text : "", 80), text ? text : "");
		return -1;
	}
	*memtotal = (guint64)kib * 1024;
	*online = n;
	return 0;
}

int mhlGuestMemOnline(virDomainPtr dom, guint64 *memtotal, int *online)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"sed -n 's/^MemTotal: *\\([0-9]*\\) kB$/memtotal \\1/p' /proc/meminfo; "
		"echo online $(cat /sys/devices/system/memory/memory*/state | grep -c '^online$')", NULL
	};
	g_autofree char *out = guestOutput(dom, argv);

	return out ? mhlParseMemOnline(out, memtotal, online) : -1;
}

json_object *mhlGuestSnapshot(virDomainPtr dom)
{
	/* stat_refresh folds the per-CPU counter deltas first, so that counters
	 * that must balance (nr_foll_pin_acquired/released) can be compared exactly. */
	static const char *const vmstat[] = {
		"/bin/sh", "-c", "echo 1 > /proc/sys/vm/stat_refresh; cat /proc/vmstat", NULL
	};
	static const char *const zoneinfo[] = { "/bin/cat", "/proc/zoneinfo", NULL };
	static const char *const blocks[] = {
		"/bin/sh", "-c",
		"cd /sys/devices/system/memory && for b in memory*; do "
		"echo $b $(cat $b/state) $(cat $b/valid_zones); done", NULL
	};
	g_autofree char *v = NULL, *z = NULL, *b = NULL;
	json_object *obj;

	if (!(v = guestOutput(dom, vmstat)) || !(z = guestOutput(dom, zoneinfo)) ||
	    !(b = guestOutput(dom, blocks)))
		return NULL;
	obj = json_object_new_object();
	json_object_object_add(obj, MHL_K_VMSTAT, mhlParseVmstat(v));
	json_object_object_add(obj, MHL_K_ZONEINFO, mhlParseZoneinfo(z));
	json_object_object_add(obj, MHL_K_MEMORY_BLOCKS, mhlParseMemoryBlocks(b));
	return obj;
}

/* /proc/meminfo lines a soak follows (docs/soak.md), and their keys in the checkpoint. */
static const struct {
	const char *field, *key;
	bool pages;		/* a count (HugePages_Total), not kB */
} meminfoKeys[] = {
	{ "MemFree", MHL_K_MEM_FREE_BYTES, false },
	{ "MemAvailable", MHL_K_MEM_AVAILABLE_BYTES, false },
	{ "SReclaimable", MHL_K_SLAB_RECLAIMABLE_BYTES, false },
	{ "SUnreclaim", MHL_K_SLAB_UNRECLAIMABLE_BYTES, false },
	{ "VmallocUsed", MHL_K_VMALLOC_BYTES, false },
	{ "PageTables", MHL_K_PAGE_TABLES_BYTES, false },
	{ "Percpu", MHL_K_PERCPU_BYTES, false },
	{ "KernelStack", MHL_K_KERNEL_STACK_BYTES, false },
	{ "Hugetlb", MHL_K_HUGETLB_BYTES, false },
	{ "HugePages_Total", MHL_K_HUGEPAGES_TOTAL, true },
};

#define MEMINFO_KIB_MAX (1ULL << 42)	/* 4 PiB: more is no guest's */

json_object *mhlParseMeminfo(const char *text)
{
	json_object *obj = json_object_new_object();
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", 256);
	int i;
	size_t k;

	for (i = 0; lines[i]; i++) {
		char name[32], unit[8] = "";
		unsigned long long v;
		int f = sscanf(lines[i], "%31[A-Za-z0-9_()]: %llu %7s", name, &v, unit);

		if (f < 2 || v > MEMINFO_KIB_MAX || (f == 3 && strcmp(unit, "kB")))
			continue;
		for (k = 0; k < G_N_ELEMENTS(meminfoKeys); k++)
			if (!strcmp(name, meminfoKeys[k].field) && (f == 3) != meminfoKeys[k].pages)
				json_object_object_add(obj, meminfoKeys[k].key, json_object_new_int64(
					(int64_t)(meminfoKeys[k].pages ? v : v * 1024)));
	}
	return obj;
}

json_object *mhlParseSlabinfo(const char *text)
{
	g_autoptr(json_object) obj = json_object_new_object();
	g_auto(GStrv) lines = NULL;
	int i, caches = 0;

	if (!text || strncmp(text, "slabinfo - version: 2.", 22)) {
		mhlError("the guest's /proc/slabinfo does not start with 'slabinfo - version: 2.': '%.*s' (CONFIG_SLUB_DEBUG?)",
			 mhlTextCutLen(text ? text : "", 60), text ? text : "");
		return NULL;
	}
	lines = g_strsplit(text, "\n", MHL_SLABINFO_MAX + 3);
	for (i = 1; lines[i]; i++) {
		unsigned long long active, num, size, per, pages, aslabs, slabs;
		char name[MHL_SLAB_NAME_MAX];
		json_object *row;
		size_t j;

		if (lines[i][0] == '#' || !lines[i][0])
			continue;
		if (sscanf(lines[i], "%63s %llu %llu %llu %llu %llu : tunables %*u %*u %*u : slabdata %llu %llu",
			   name, &active, &num, &size, &per, &pages, &aslabs, &slabs) != 8)
			continue;
		for (j = 0; name[j]; j++)	/* a cache's name: no quote, no escape, nothing to render */
			if (!g_ascii_isgraph(name[j]) || strchr("\"\\<>&'", name[j]))
				name[j] = '?';
		if (num > (1ULL << 40) || active > num || !size || size > (1ULL << 30) || pages > 1024 ||
		    slabs > (1ULL << 40) || !num)
			continue;
		if (++caches > MHL_SLABINFO_MAX)
			break;
		row = json_object_new_array();
		json_object_array_add(row, json_object_new_int64((int64_t)active));
		json_object_array_add(row, json_object_new_int64((int64_t)num));
		json_object_array_add(row, json_object_new_int64((int64_t)size));
		json_object_array_add(row, json_object_new_int64((int64_t)(slabs * pages * 4096)));
		json_object_object_add(obj, name, row);
	}
	return g_steal_pointer(&obj);
}

/* The text after the line "@@name" of @out, up to the next "@@" line (or the end); NULL if absent. */
static char *sectionOf(const char *out, const char *name)
{
	g_autofree char *head = g_strdup_printf("@@%s\n", name);
	const char *p = strstr(out, head), *end;

	if (!p || (p != out && p[-1] != '\n'))
		return NULL;
	p += strlen(head);
	end = strstr(p, "\n@@");
	return g_strndup(p, end ? (gsize)(end - p + 1) : strlen(p));
}

/*
 * One agent round trip for the guest's memory: $1 = pins: /proc/vmstat
 * (after stat_refresh, as mhlGuestSnapshot) and /proc/zoneinfo first,
 * before any drop; $2 = drop: write back, drop page cache, dentries and
 * inodes, then slabinfo too; meminfo and the blocks always.
 */
static char *kernelMemText(virDomainPtr dom, bool pins, bool drop)
{
	static const char script[] =
		"if [ \"$1\" = pins ]; then echo 1 > /proc/sys/vm/stat_refresh; "
		"echo @@vmstat; cat /proc/vmstat; echo @@zoneinfo; cat /proc/zoneinfo; fi; "
		"if [ \"$2\" = drop ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi; "
		"echo @@meminfo; cat /proc/meminfo; "
		"echo @@blocks; cat /sys/devices/system/memory/block_size_bytes; "
		"cat /sys/devices/system/memory/memory*/state | grep -c '^online$'; "
		"if [ \"$2\" = drop ]; then echo @@slabinfo; cat /proc/slabinfo; fi";
	const char *const argv[] = {
		"/bin/sh", "-c", script, "sh", pins ? "pins" : "nopins", drop ? "drop" : "keep", NULL
	};

	return guestOutput(dom, argv);
}

/* mhlGuestKernelMem's object from the reply @out; NULL + mhlError. */
static json_object *kernelMemParse(const char *out, bool drop)
{
	g_autofree char *mi = sectionOf(out, "meminfo"), *bl = sectionOf(out, "blocks"), *si = NULL;
	g_autoptr(json_object) obj = NULL;
	unsigned long long block;
	int online, used = 0;
	json_object *slab;

	if (!mi || !bl || sscanf(bl, "%llx\n%d\n%n", &block, &online, &used) != 2 || bl[used] ||
	    !block || (block & (block - 1)) || block > (1ULL << 40) || online < 0 || online > (1 << 24)) {
		mhlError("the guest's kernel memory reply has no /proc/meminfo, or its blocks are not 'BLOCK_SIZE_HEX' and 'ONLINE_COUNT': '%.*s'",
			 mhlTextCutLen(bl ? bl : out, 80), bl ? bl : out);
		return NULL;
	}
	obj = json_object_new_object();
	json_object_object_add(obj, MHL_K_MEMINFO, mhlParseMeminfo(mi));
	json_object_object_add(obj, MHL_K_BLOCK_BYTES, json_object_new_int64((int64_t)block));
	json_object_object_add(obj, MHL_K_ONLINE_BLOCKS, json_object_new_int(online));
	if (drop) {
		if (!(si = sectionOf(out, "slabinfo")) || !(slab = mhlParseSlabinfo(si)))
			return NULL;
		json_object_object_add(obj, MHL_K_SLABINFO, slab);
	}
	return g_steal_pointer(&obj);
}

json_object *mhlGuestKernelMem(virDomainPtr dom, bool drop)
{
	g_autofree char *out = kernelMemText(dom, false, drop);

	return out ? kernelMemParse(out, drop) : NULL;
}

json_object *mhlGuestCycleMem(virDomainPtr dom, bool drop, json_object **km)
{
	g_autofree char *out = kernelMemText(dom, true, drop);
	g_autofree char *v = NULL, *z = NULL;
	json_object *obj;

	*km = NULL;
	if (!out)
		return NULL;
	if (!(v = sectionOf(out, "vmstat")) || !(z = sectionOf(out, "zoneinfo"))) {
		mhlError("the guest's memory reply has no /proc/vmstat or /proc/zoneinfo: '%.*s'",
			 mhlTextCutLen(out, 80), out);
		return NULL;
	}
	obj = json_object_new_object();
	json_object_object_add(obj, MHL_K_VMSTAT, mhlParseVmstat(v));
	json_object_object_add(obj, MHL_K_ZONEINFO, mhlParseZoneinfo(z));
	*km = kernelMemParse(out, drop);
	return obj;
}
