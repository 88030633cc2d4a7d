/* cmd-doctor.c - `memhp-lab doctor`: the command; its checks are in cli/doctor.c. */
#include <glib.h>

#include "cli/cli.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "cli/doctor.h"
#include "scenario/names.h"
#include "util.h"

/* Doctor takes no arguments. */
const mhlOpt mhlCmdDoctorOpts[] = {
	{ "kernel", 1, MHL_LONG_ONLY + 'K', "KVER...", "a kernel that must be ready (repeatable: 6.12, 6.1, 7.3); without it each known kernel is checked and one not built is a warning" },
	{ "uri", 1, 'u', "URI", "also check this libvirt daemon (default: LIBVIRT_DEFAULT_URI, if set)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "json", 0, MHL_LONG_ONLY + 'J', NULL, "one JSON object on stdout: each check, ok or not (docs/schemas/doctor.schema.json)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

static void libvirtSilent(void *opaque, virErrorPtr e)
{
	(void)opaque; (void)e;	/* doctor prints each failure itself */
}

int mhlCmdDoctor(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	g_autoptr(mhlCliPaths) paths = mhlCliPathsNew(NULL);
	int first = mhlCmdParseOpts(mhlCmdFind("doctor"), argc, argv, vals);

	if (first < 0)
		return MHL_EXIT_USAGE;
	if (g_hash_table_contains(vals, "help")) {
		mhlCmdUsage(stdout, mhlCmdFind("doctor"));
		return MHL_EXIT_PASS;
	}
	if (argc != first) {
		mhlError("doctor: takes no arguments (see 'memhp-lab doctor --help')");
		return MHL_EXIT_USAGE;
	}
	{
		mhlDoctorOptions o = { .initrd = paths->initrd, .tmpl = paths->tmpl, .datadir = paths->datadir,
				       .cache = paths->cache, .kernels = g_hash_table_lookup(vals, "kernel"),
				       .json = g_hash_table_contains(vals, "json") };
		g_auto(GStrv) want = o.kernels ? g_strsplit(o.kernels, "\n", -1) : NULL;
		g_autofree char *known = mhlNamesJoin(MHL_ROWS(mhlKernelForms), " and ");
		int i;

		if (mhlCmdUri(vals, &o.uri) < 0)
			return MHL_EXIT_USAGE;
		for (i = 0; want && want[i]; i++) {
			if (mhlNameIndex(mhlKernelForms, want[i]) < 0) {
				mhlError("doctor: --kernel '%s': the lab builds %s", want[i], known);
				return MHL_EXIT_USAGE;
			}
		}
		virSetErrorFunc(NULL, libvirtSilent);
		return mhlDoctor(&o);
	}
}
