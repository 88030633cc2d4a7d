/*
 * cmd-cleanup.c - `memhp-lab cleanup [--uri URI]`: what runs that are gone
 * left behind. Every run cleans up at its start too; this is for a CI job
 * that wants the host clean now. Without --uri: embedded roots in /tmp whose
 * owner is gone (with their guests' QEMU processes, if any survived the
 * run's guard); with --uri: the daemon's domains named by runs that are gone.
 */
#include <glib.h>

#include "cli/cli.h"

#include <libvirt/libvirt.h>
#include <stdio.h>

#include "host/session.h"
#include "util.h"

const mhlOpt mhlCmdCleanupOpts[] = {
	{ "uri", 1, 'u', "URI", "a libvirt daemon: destroy its domains left by runs that are gone (default: LIBVIRT_DEFAULT_URI, as virsh; embedded roots are cleaned either way)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdCleanup(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	int first, gone, rc = mhlCmdStart("cleanup", argc, argv, vals, &first);
	const char *uri;
	virConnectPtr conn;

	if (rc >= 0)
		return rc;
	/* the embedded roots of dead runs always; a daemon's domains when one is named (as virsh: -c, LIBVIRT_DEFAULT_URI) */
	mhlStaleRootsClean();
	if (mhlCmdUri(vals, &uri) < 0)
		return MHL_EXIT_USAGE;
	if (!uri || g_str_has_prefix(uri, "qemu:///embed"))
		return MHL_EXIT_PASS;
	if (!(conn = virConnectOpen(uri))) {
		mhlErrorVirt("cleanup: cannot connect to libvirt at '%s'", uri);
		return MHL_EXIT_USAGE;
	}
	gone = mhlDeadRunDomainsDestroy(conn, false);
	virConnectClose(conn);
	if (gone < 0)
		return MHL_EXIT_FAILED;
	printf("cleanup: %d domain(s) of runs that are gone destroyed on %s\n", gone, uri);
	return MHL_EXIT_PASS;
}
