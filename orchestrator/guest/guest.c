#include <glib.h>

#include "util.h"
#include "guest/guest.h"

#include <libvirt/libvirt-qemu.h>
#include <stdio.h>
#include <string.h>

#include "guest/agent.h"

int mhlParseMemoryDevices(const char *reply, int node, unsigned long long *size,
			  unsigned long long *requested)
{
	g_autoptr(json_object) root = json_tokener_parse(reply);
	json_object *ret;
	size_t i;

	if (!root || !json_object_object_get_ex(root, "return", &ret) ||
	    !json_object_is_type(ret, json_type_array)) {
		mhlError("QMP query-memory-devices reply is not {\"return\": [...]}: '%.200s'", reply);
		return -1;
	}
	for (i = 0; i < json_object_array_length(ret); i++) {
		json_object *dev = json_object_array_get_idx(ret, i), *type, *data, *v;

		if (!json_object_object_get_ex(dev, "type", &type) ||
		    strcmp(json_object_get_string(type), "virtio-mem") ||
		    !json_object_object_get_ex(dev, "data", &data) ||
		    !json_object_object_get_ex(data, "node", &v) || json_object_get_int(v) != node)
			continue;
		if (!json_object_object_get_ex(data, "size", &v)) {
			mhlError("QMP virtio-mem device on node %d has no 'size': '%.200s'", node, reply);
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
			json_object_object_add(cur, "node", json_object_new_int(node));
			json_object_object_add(cur, "zone", json_object_new_string(zone));
			json_object_array_add(arr, cur);
		} else if (cur && sscanf(lines[i], " pages free %lld", &v) == 1) {
			json_object_object_add(cur, "free", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " present %lld", &v) == 1) {
			json_object_object_add(cur, "present", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " managed %lld", &v) == 1) {
			json_object_object_add(cur, "managed", json_object_new_int64(v));
		} else if (cur && sscanf(lines[i], " spanned %lld", &v) == 1) {
			json_object_object_add(cur, "spanned", json_object_new_int64(v));
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
	json_object_object_add(obj, "blocks", json_object_new_int(blocks));
	json_object_object_add(obj, "online", json_object_new_int(online));
	json_object_object_add(obj, "offline", json_object_new_int(offline));
	json_object_object_add(obj, "online_by_zone", zones);
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
	json_object_object_add(obj, "vmstat", mhlParseVmstat(v));
	json_object_object_add(obj, "zoneinfo", mhlParseZoneinfo(z));
	json_object_object_add(obj, "memory_blocks", mhlParseMemoryBlocks(b));
	return obj;
}

json_object *mhlConsoleScan(const char *text)
{
	static const struct {
		const char *needle, *kind;
	} pats[] = {
		{ "WARNING:", "warning" },
		{ "BUG:", "bug" },
		{ "Oops", "oops" },
		{ "Kernel panic", "panic" },
		{ "general protection fault", "gpf" },
		{ "blocked for more than", "hung_task" },
		{ "rcu_sched self-detected stall", "rcu_stall" },
		{ "rcu: INFO: rcu_preempt", "rcu_stall" },
		{ "detected stalls on CPUs", "rcu_stall" },
	};
	json_object *arr = json_object_new_array();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	int i;
	size_t j;

	for (i = 0; lines[i]; i++) {
		const char *l = strchr(lines[i], '[');
		double ts;
		char close;

		/* Only kernel log lines: "[    1.234567] ..." (after any escape codes). */
		if (!l || sscanf(l, "[ %lf%c", &ts, &close) != 2 || close != ']')
			continue;
		for (j = 0; j < G_N_ELEMENTS(pats); j++) {
			if (strstr(l, pats[j].needle)) {
				json_object *f = json_object_new_object();

				g_strchomp(lines[i]);
				json_object_object_add(f, "line", json_object_new_int(i + 1));
				json_object_object_add(f, "kind", json_object_new_string(pats[j].kind));
				json_object_object_add(f, "text", json_object_new_string(l));
				json_object_array_add(arr, f);
				break;
			}
		}
	}
	return arr;
}
