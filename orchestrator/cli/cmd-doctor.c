/* cmd-doctor.c - `memhp-lab doctor`: the command; its checks are in cli/doctor.c. */
#include <glib.h>

#include "cli/cli.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "cli/doctor.h"
#include "util.h"

/* Doctor takes no arguments. */
const mhlOpt mhlCmdDoctorOpts[] = {
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
	virSetErrorFunc(NULL, libvirtSilent);
	return mhlDoctor(paths->initrd, paths->tmpl, paths->datadir, paths->cache,
			 g_hash_table_contains(vals, "json"));
}
