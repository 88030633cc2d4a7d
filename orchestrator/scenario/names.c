/*
 * names.c - the scenario's closed sets as tables with their properties
 * (names.h). A new name is one row here; the parser's "known:" list, the
 * domain XML, the host's pool and the docs' lists follow from it.
 */
#include <glib.h>

#include "scenario/names.h"

#include "scenario/scenario.h"

const mhlMemBacking mhlMemBackings[MHL_MEM_LAST] = {
	[MHL_MEM_ANONYMOUS] = { "anonymous", "", false, true, MHL_SMAPS_NO_PATH, NULL },
	/* shared: QEMU maps the memfd MAP_SHARED (vhost-user and the like need it) */
	[MHL_MEM_MEMFD] = { "memfd", "    <source type='memfd'/>\n    <access mode='shared'/>\n", false, true,
			    MHL_SMAPS_PREFIX, "/memfd:" },
	/* a file in libvirt's memory_backing_dir on this machine */
	[MHL_MEM_FILE] = { "file", "    <source type='file'/>\n", false, false, MHL_SMAPS_FILE, NULL },
	/* hugetlbfs mounts of the run's own (host/hugepages.c); <hugepages> comes from pagesize */
	[MHL_MEM_HUGEPAGES] = { "hugepages", "", true, false, MHL_SMAPS_FILE, NULL },
};

const mhlMemBacking *mhlMemBackingOf(const char *name)
{
	int i = mhlNameIndex(mhlMemBackings, name);

	return &mhlMemBackings[i < 0 ? MHL_MEM_ANONYMOUS : i];
}

char *mhlMemBackingsFleet(void)
{
	GString *can = g_string_new(NULL);
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(mhlMemBackings); i++)
		if (mhlMemBackings[i].fleet)
			g_string_append_printf(can, "%s%s", can->len ? " or " : "", mhlMemBackings[i].name);
	return g_string_free(can, FALSE);
}

const mhlOnlinePolicy mhlOnlinePolicies[MHL_ONLINE_LAST] = {
	[MHL_ONLINE_MOVABLE] = { "movable", " memhp_default_state=online_movable", false, 30.0 },
	[MHL_ONLINE_KERNEL] = { "kernel", " memhp_default_state=online_kernel", false, 30.0 },
	[MHL_ONLINE_AUTO_MOVABLE] = { "auto-movable",
				      " memhp_default_state=online memory_hotplug.online_policy=auto-movable",
				      true, 30.0 },
	/* the kernel's own default (a Debian kernel leaves hotplugged memory offline):
	 * nothing may online it, so a short look, not the whole wait */
	[MHL_ONLINE_AS_SHIPPED] = { "as-shipped", "", false, 3.0 },
};

const mhlOnlinePolicy *mhlOnlinePolicyOf(const char *name)
{
	int i = mhlNameIndex(mhlOnlinePolicies, name);

	return &mhlOnlinePolicies[i < 0 ? MHL_ONLINE_MOVABLE : i];
}

const mhlPinPolicy mhlPinPolicies[MHL_POLICY_LAST] = {
	[MHL_POLICY_SERIES] = { "series", true, "" },
	/* the series' test switch, on from boot (docs/kernel.md) */
	[MHL_POLICY_BASELINE] = { "baseline", false, " gup_longterm_pin_in_place=1" },
};

const mhlPinPolicy *mhlPinPolicyOf(const char *name)
{
	int i = mhlNameIndex(mhlPinPolicies, name);

	return &mhlPinPolicies[i < 0 ? MHL_POLICY_SERIES : i];
}

const mhlStack mhlStacks[MHL_STACK_LAST] = {
	[MHL_STACK_DEBIAN] = { "debian", false, "the host's own QEMU and libvirt (Debian 12: QEMU 7.2, libvirt 9.0)" },
	[MHL_STACK_BACKPORTS] = { "backports", true, "QEMU 10.0 and libvirt 11.3 from bookworm-backports, in a root of the lab's own" },
};

const mhlStack *mhlStackOf(const char *name)
{
	int i = mhlNameIndex(mhlStacks, name);

	return &mhlStacks[i < 0 ? MHL_STACK_DEBIAN : i];
}

const char *const mhlKernelForms[3] = { "6.12", "6.1", "7.3" };
const char *const mhlKernelFlavours[1] = { "kmemleak" };
const char *const mhlGuestNames[2] = { "lab", "debian" };
const char *const mhlSoakLeaks[3] = { "none", "io_uring", "kmemleak-test" };
const char *const mhlUntilNames[2] = { [MHL_UNTIL_NONE] = "none", [MHL_UNTIL_CONVERGED] = "converged" };
const char *const mhlUnplugNames[3] = {
	[MHL_UNPLUG_ANY] = "any", [MHL_UNPLUG_REACHED] = "reached", [MHL_UNPLUG_SHORT] = "short",
};
const char *const mhlRebootHows[2] = { [MHL_REBOOT_HOST] = "host", [MHL_REBOOT_GUEST] = "guest" };
const char *const mhlActionNames[2] = { [MHL_ACTION_ATTACH] = "attach", [MHL_ACTION_DETACH] = "detach" };
const char *const mhlDimmOutcomes[3] = {
	[MHL_DIMM_ANY] = "any", [MHL_DIMM_REMOVED] = "removed", [MHL_DIMM_STUCK] = "stuck",
};

char *mhlNamesJoin(const void *rows, size_t n, size_t stride, const char *sep)
{
	size_t len = mhl_names_join_(NULL, 0, rows, n, stride, sep);
	char *buf = g_malloc(len + 1);

	mhl_names_join_(buf, len + 1, rows, n, stride, sep);
	return buf;
}
