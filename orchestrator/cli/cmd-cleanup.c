/*
 * cmd-cleanup.c - `memhp-lab cleanup [--uri URI] [--volumes [--pool NAME]]`:
 * what runs that are gone left behind. Every run cleans up at its start too;
 * this is for a CI job that wants the host clean now. Without --uri:
 * embedded roots in /tmp whose owner is gone (with their guests' QEMU
 * processes, if any survived the run's guard); with --uri: the daemon's
 * domains named by runs that are gone; with --volumes too: the fleet's
 * volumes in that daemon's storage pool (fleet/upload.c), which no run
 * deletes (runs sharing a pool reuse them).
 */
#include <glib.h>

#include "cli/cli.h"

#include <libvirt/libvirt.h>
#include <stdio.h>

#include "fleet/fleet.h"
#include "host/session.h"
#include "util.h"

const mhlOpt mhlCmdCleanupOpts[] = {
	{ "uri", 1, 'u', "URI", "a libvirt daemon: destroy its domains left by runs that are gone (default: LIBVIRT_DEFAULT_URI, as virsh; embedded roots are cleaned either way)" },
	{ "connect", 1, 'c', "URI", "the same, by virsh's name" },
	{ "volumes", 0, MHL_LONG_ONLY + 'v', NULL, "also delete the fleet's volumes (kernels, guest images, their marks and parts) from that daemon's storage pool, but those a domain there uses; run it when no fleet run uses the host" },
	{ "pool", 1, MHL_LONG_ONLY + 'p', "NAME", "with --volumes: the storage pool (a hosts file's pool:; default memhp-lab)" },
	{ "help", 0, 'h', NULL, "show this help" },
	{ NULL, 0, 0, NULL, NULL }
};

int mhlCmdCleanup(int argc, char **argv)
{
	g_autoptr(GHashTable) vals = mhlCmdValsNew();
	int first, gone, kept = 0, rc = mhlCmdStart("cleanup", argc, argv, vals, &first);
	bool volumes;
	const char *uri, *pool;
	virConnectPtr conn;

	if (rc >= 0)
		return rc;
	volumes = g_hash_table_contains(vals, "volumes");
	pool = g_hash_table_lookup(vals, "pool");
	if (pool && !volumes) {
		mhlError("cleanup: --pool names the pool of --volumes; give --volumes too");
		return MHL_EXIT_USAGE;
	}
	if (pool && !mhlFleetPoolNameValid(pool)) {
		mhlError("cleanup: --pool: '%s' is not a storage pool name ([A-Za-z0-9._-], 1 to 64 of them, not starting with '.' or '-')",
			 pool);
		return MHL_EXIT_USAGE;
	}
	if (mhlCmdUri(vals, &uri) < 0)
		return MHL_EXIT_USAGE;
	if (volumes && (!uri || g_str_has_prefix(uri, "qemu:///embed"))) {
		mhlError("cleanup: --volumes needs a fleet host's daemon (--uri URI, -c URI or LIBVIRT_DEFAULT_URI); an embedded driver has no storage pool");
		return MHL_EXIT_USAGE;
	}
	/* the embedded roots of dead runs always; a daemon's domains when one is named (as virsh: -c, LIBVIRT_DEFAULT_URI) */
	mhlStaleRootsClean();
	if (!uri || g_str_has_prefix(uri, "qemu:///embed"))
		return MHL_EXIT_PASS;
	if (!(conn = virConnectOpen(uri))) {
		mhlErrorVirt("cleanup: cannot connect to libvirt at '%s'", uri);
		return MHL_EXIT_USAGE;
	}
	gone = mhlDeadRunDomainsDestroy(conn, false);
	if (gone >= 0)
		printf("cleanup: %d domain(s) of runs that are gone destroyed on %s\n", gone, uri);
	if (gone >= 0 && volumes && (gone = mhlFleetVolumesClean(conn, uri, pool, &kept)) >= 0)
		printf("cleanup: %d volume(s) of memhp-lab deleted from pool '%s' on %s, %d kept (a domain uses them)\n", gone,
		       pool ? pool : MHL_FLEET_POOL, uri, kept);
	virConnectClose(conn);
	return gone < 0 ? MHL_EXIT_FAILED : MHL_EXIT_PASS;
}
