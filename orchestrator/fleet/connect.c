/*
 * connect.c - the fleet's connections: one per host, with keepalive and a
 * close callback so that a host that dies or drops off the network is
 * noticed within seconds, the domain events (routed by host/session.c), and
 * what the host can take (cores, memory).
 */
#include <glib.h>

#include "fleet/fleet.h"

#include <libvirt/virterror.h>
#include <stdio.h>
#include <string.h>

#include "host/session.h"
#include "util.h"

/* keepalive: a probe every 2 s, the connection closed after 3 unanswered (about 8 s) */
#define KEEPALIVE_INTERVAL 2
#define KEEPALIVE_COUNT 3

void mhlFleetHostSetLost(mhlFleetHost *h, const char *why)
{
	pthread_mutex_lock(&h->lock);
	if (!h->lost)
		h->lost = g_strdup(why);
	pthread_mutex_unlock(&h->lock);
}

char *mhlFleetHostLost(mhlFleetHost *h)
{
	char *why;

	if (h->conn && virConnectIsAlive(h->conn) == 0)
		mhlFleetHostSetLost(h, "the connection is closed");
	pthread_mutex_lock(&h->lock);
	why = g_strdup(h->lost);
	pthread_mutex_unlock(&h->lock);
	return why;
}

static void onClose(virConnectPtr conn, int reason, void *opaque)
{
	static const char *const reasons[] = {
		[VIR_CONNECT_CLOSE_REASON_ERROR] = "a read or write error",
		[VIR_CONNECT_CLOSE_REASON_EOF] = "the daemon closed it (end of file)",
		[VIR_CONNECT_CLOSE_REASON_KEEPALIVE] = "keepalive: the host stopped answering",
		[VIR_CONNECT_CLOSE_REASON_CLIENT] = "closed here",
	};
	g_autofree char *why = g_strdup_printf("connection closed: %s",
					       reason >= 0 && reason < (int)G_N_ELEMENTS(reasons) ? reasons[reason] : "?");

	(void)conn;
	if (reason != VIR_CONNECT_CLOSE_REASON_CLIENT)
		mhlFleetHostSetLost(opaque, why);
}

/* cores and the memory a guest may take: free + buffers + cached of every cell. */
static int hostCapacity(mhlFleetHost *h)
{
	virNodeInfo info;
	int n = 0, i;
	g_autofree virNodeMemoryStatsPtr st = NULL;
	uint64_t avail = 0;

	if (virNodeGetInfo(h->conn, &info) < 0) {
		mhlErrorVirt("host '%s': virNodeGetInfo failed", h->uri);
		return -1;
	}
	h->cores = (int)info.cpus;
	if (virNodeGetMemoryStats(h->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, NULL, &n, 0) == 0 && n > 0) {
		st = g_new0(virNodeMemoryStats, n);
		if (virNodeGetMemoryStats(h->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, st, &n, 0) == 0)
			for (i = 0; i < n; i++)
				if (!strcmp(st[i].field, VIR_NODE_MEMORY_STATS_FREE) ||
				    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_BUFFERS) ||
				    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_CACHED))
					avail += st[i].value << 10;
	}
	h->avail_bytes = avail ? avail : virNodeGetFreeMemory(h->conn);
	return 0;
}

static int hostOpen(mhlFleetHost *h)
{
	if (!(h->conn = virConnectOpen(h->uri))) {
		mhlErrorVirt("cannot connect to host '%s'", h->uri);
		return -1;
	}
	if (virConnectSetKeepAlive(h->conn, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT) < 0)
		mhlErrorReset();	/* a local driver has no keepalive: its close is seen directly */
	if (virConnectRegisterCloseCallback(h->conn, onClose, h, NULL) < 0)
		mhlErrorReset();
	/* what every trial needs of a host: a storage pool to upload into (upload.c) */
	if (virConnectNumOfStoragePools(h->conn) < 0) {
		mhlErrorVirt("host '%s': its libvirt offers no storage pools (a driver or daemon without the storage API, e.g. no virtstoraged beside virtqemud); a fleet host needs one to receive the kernel and guest image (docs/fleet.md)",
			     h->uri);
		return -1;
	}
	if (mhlDomainEventsRegister(h->conn) < 0 || hostCapacity(h) < 0) {
		g_autofree char *e = g_strdup(mhlErrorLast());

		mhlErrorReset();
		mhlError("host '%s': %s", h->uri, e);
		return -1;
	}
	return 0;
}

int mhlFleetConnect(GPtrArray *hosts)
{
	guint i, up = 0;

	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		if (hostOpen(h) < 0) {
			fprintf(stderr, "memhp-lab: warning: %s; the run goes on without it\n", mhlErrorLast());
			mhlFleetHostSetLost(h, mhlErrorLast());
			mhlErrorReset();
			continue;
		}
		up++;
	}
	if (!up) {
		mhlError("fleet: none of the %u host(s) answered (see the warnings above)", hosts->len);
		return -1;
	}
	return 0;
}

void mhlFleetDisconnect(GPtrArray *hosts)
{
	guint i;

	for (i = 0; i < hosts->len; i++) {
		mhlFleetHost *h = hosts->pdata[i];

		if (!h->conn)
			continue;
		mhlFleetUploadsEnd(h);
		virConnectUnregisterCloseCallback(h->conn, onClose);
		virConnectClose(h->conn);
		h->conn = NULL;
	}
}
