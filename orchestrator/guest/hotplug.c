/*
 * hotplug.c - memory devices attached to a running guest (hotplug.h): their
 * XML, QEMU's view of a DIMM, the guest's blocks over its range.
 */
#include <glib.h>

#include "guest/hotplug.h"

#include <libvirt/libvirt-qemu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/agent.h"
#include "guest/guest.h"
#include "record/record.h"
#include "util.h"

char *mhlHotplugAlias(const char *kind, const char *id)
{
	return g_strdup_printf("ua-%s-%s", kind, id);
}

char *mhlHotplugXML(const char *alias, int node, uint64_t size, uint64_t block, uint64_t requested)
{
	/* the alias is of the scenario's id: [A-Za-z0-9_-] (steps.c), nothing to escape */
	g_return_val_if_fail(strspn(alias, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
			     strlen(alias), NULL);
	if (!block)
		return g_strdup_printf("<memory model='dimm'>\n"
				       "  <target>\n"
				       "    <size unit='KiB'>%" G_GUINT64_FORMAT "</size>\n"
				       "    <node>%d</node>\n"
				       "  </target>\n"
				       "  <alias name='%s'/>\n"
				       "</memory>\n", size >> 10, node, alias);
	return g_strdup_printf("<memory model='virtio-mem'>\n"
			       "  <target>\n"
			       "    <size unit='KiB'>%" G_GUINT64_FORMAT "</size>\n"
			       "    <node>%d</node>\n"
			       "    <block unit='KiB'>%" G_GUINT64_FORMAT "</block>\n"
			       "    <requested unit='KiB'>%" G_GUINT64_FORMAT "</requested>\n"
			       "  </target>\n"
			       "  <alias name='%s'/>\n"
			       "</memory>\n", size >> 10, node, block >> 10, requested >> 10, alias);
}

int mhlParseDimm(const char *reply, const char *alias, mhlDimmInfo *out)
{
	g_autoptr(json_object) root = json_tokener_parse(reply);
	json_object *ret = mhlMemoryDevicesArray(root, reply);
	size_t i;

	if (!ret)
		return -1;
	for (i = 0; i < json_object_array_length(ret); i++) {
		json_object *dev = json_object_array_get_idx(ret, i), *type, *data, *id, *v;

		if (!json_object_object_get_ex(dev, "type", &type) || !json_object_is_type(type, json_type_string) ||
		    strcmp(json_object_get_string(type), "dimm") ||
		    !json_object_object_get_ex(dev, "data", &data) ||
		    !json_object_object_get_ex(data, "id", &id) || !json_object_is_type(id, json_type_string) ||
		    strcmp(json_object_get_string(id), alias))
			continue;
		out->slot = json_object_object_get_ex(data, "slot", &v) ? json_object_get_int(v) : -1;
		out->addr = json_object_object_get_ex(data, "addr", &v) ? (uint64_t)json_object_get_int64(v) : 0;
		out->size = json_object_object_get_ex(data, "size", &v) ? (uint64_t)json_object_get_int64(v) : 0;
		out->node = json_object_object_get_ex(data, "node", &v) ? json_object_get_int(v) : -1;
		if (!out->size) {
			mhlError("QMP query-memory-devices: DIMM '%s' has no size", alias);
			return -1;
		}
		return 0;
	}
	mhlError("QMP query-memory-devices lists no DIMM with id '%s'", alias);
	return -1;
}

int mhlGuestDimm(virDomainPtr dom, const char *alias, mhlDimmInfo *out)
{
	char *reply = NULL;
	int rc;

	if (virDomainQemuMonitorCommand(dom, "{\"execute\":\"query-memory-devices\"}", &reply, 0) < 0) {
		mhlErrorVirt("QMP query-memory-devices failed");
		return -1;
	}
	rc = mhlParseDimm(reply, alias, out);
	free(reply);
	return rc;
}

json_object *mhlParseBlocksRange(const char *text, uint64_t base, uint64_t size)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	json_object *out;
	guint64 bs;
	char *end;
	int i;

	bs = g_ascii_strtoull(lines[0] ? lines[0] : "", &end, 16);
	if (!lines[0] || end == lines[0] || *end || !bs || bs & (bs - 1)) {
		mhlError("the guest's memory block size is not a power of two in hex: '%.*s'",
			 mhlTextCutLen(text, 40), text);
		return NULL;
	}
	out = json_object_new_array();
	for (i = 1; lines[i]; i++) {
		g_auto(GStrv) f = g_strsplit(lines[i], " ", 3);
		json_object *b;
		guint64 n;

		if (!f[0] || !f[1] || !g_str_has_prefix(f[0], "memory"))
			continue;
		n = g_ascii_strtoull(f[0] + 6, &end, 10);
		if (end == f[0] + 6 || *end || n > G_MAXUINT64 / bs || n * bs < base || n * bs >= base + size)
			continue;
		b = json_object_new_object();
		json_object_object_add(b, MHL_K_BLOCK, json_object_new_int64((int64_t)n));
		json_object_object_add(b, MHL_K_STATE, json_object_new_string(f[1]));
		json_object_object_add(b, MHL_K_VALID_ZONES, json_object_new_string(f[2] ? f[2] : ""));
		json_object_array_add(out, b);
	}
	return out;
}

json_object *mhlGuestBlocksRange(virDomainPtr dom, uint64_t base, uint64_t size)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"cd /sys/devices/system/memory && cat block_size_bytes && for b in memory*; do "
		"echo $b $(cat $b/state) $(cat $b/valid_zones); done", NULL
	};
	mhlExecStatus st = { 0 };
	json_object *out;

	/* the agent's output is cleaned guest text (mhlTextClean) */
	if (mhlAgentExec(dom, argv, 30, &st) < 0)
		return NULL;
	out = mhlParseBlocksRange(st.out ? st.out : "", base, size);
	mhlExecStatusClear(&st);
	return out;
}
