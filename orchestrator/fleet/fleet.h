/*
 * fleet.h - one run over several libvirt hosts that share no path with this
 * machine or with each other (docs/fleet.md): the hosts and what each can
 * take (hosts.c), their connections and how one is noticed gone
 * (connect.c), the kernel and guest image uploaded through libvirt's storage
 * API (upload.c), the hosts' slots, a worker each, and the jobs they take
 * (work.c). The serial console streamed back is guest/console-stream.c's.
 */
#ifndef MHL_FLEET_H
#define MHL_FLEET_H

#include <glib.h>
#include <libvirt/libvirt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MHL_FLEET_MAX_HOSTS 64
#define MHL_FLEET_POOL "memhp-lab"	/* the storage pool a run creates where none is given */

typedef struct {
	char *uri;
	int max_slots;		/* the most guests it may run (hosts file `slots`), 0: no limit of its own */
	char **labels;		/* what scenarios' host_labels may ask for; NULL-terminated, or NULL */
	char *pool;		/* its storage pool (hosts file `pool`), NULL: MHL_FLEET_POOL */
	int line;		/* where the hosts file names it, 0 for --host */
	/* once connected (mhlFleetConnect) */
	virConnectPtr conn;
	int cores;		/* virNodeGetInfo */
	uint64_t avail_bytes;	/* virNodeGetMemoryStats: free + buffers + cached (else virNodeGetFreeMemory) */
	int slots;		/* guests at once here: the least of max_slots, -j, cores, memory */
	pthread_mutex_t lock;	/* lost */
	pthread_mutex_t upload_lock;	/* uploaded: one upload at a time per host */
	char *lost;		/* why the connection went (close callback, keepalive); NULL while up */
	GHashTable *uploaded;	/* local file -> its volume's path on the host */
	GHashTable *parts;	/* this run's part volumes still on the host (upload.c), deleted at its end */
	int ran;		/* trials that ended here */
} mhlFleetHost;

void mhlFleetHostFree(mhlFleetHost *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(mhlFleetHost, mhlFleetHostFree)

/*
 * hosts.c: --host URI... (@uris: newline-separated) or --hosts FILE (YAML:
 * hosts: [{uri, slots, labels, pool}], errors with file:line:col) into @out
 * (mhlFleetHost *). -1 + mhlError.
 */
int mhlFleetHostsParse(const char *uris, const char *file, GPtrArray *out);
/* Whether @h has every label of @want (NULL-terminated; NULL or empty: any host). */
bool mhlFleetHostHasLabels(const mhlFleetHost *h, char *const *want);
/*
 * A host's slots from what it can take: @need_bytes a guest (its memory and
 * QEMU's), at most @jobs (0: no limit) and its own max_slots. 0 when not one
 * guest fits.
 */
int mhlFleetSlots(const mhlFleetHost *h, uint64_t need_bytes, int jobs);

/*
 * connect.c: connect to each host (keepalive, close callback, the guests'
 * domain events) and read its capacity. A host that refuses is left out
 * with a warning naming it; -1 + mhlError when none answers.
 */
int mhlFleetConnect(GPtrArray *hosts);
/* Why @h is gone (a copy), or NULL while its connection is up. */
char *mhlFleetHostLost(mhlFleetHost *h);
/* Mark @h gone (first reason wins). */
void mhlFleetHostSetLost(mhlFleetHost *h, const char *why);
void mhlFleetDisconnect(GPtrArray *hosts);

/*
 * upload.c: @path's content on @h, through its storage pool (created as a
 * directory pool under /var/lib/libvirt/memhp-lab when absent), as volume
 * "<sha256>-<basename>" marked complete by "<sha256>.ok": uploaded into a
 * part volume of this run's own and cloned to that name, or reused when the
 * volume there reads back as the file (size and SHA-256). Never deletes a
 * volume another run made. Returns the volume's path on the host, NULL +
 * mhlError.
 */
char *mhlFleetUpload(mhlFleetHost *h, const char *path);
/* Delete the part volumes this run left on @h (mhlFleetDisconnect calls it). */
void mhlFleetUploadsEnd(mhlFleetHost *h);
/* A pool name a hosts file may give: [A-Za-z0-9._-], 1 to 64, not starting with '.' or '-'. */
bool mhlFleetPoolNameValid(const char *name);
/*
 * `cleanup --volumes`: delete memhp-lab's volumes ("<sha256>-<name>",
 * "<sha256>.ok", "<sha256>.part-...") from @pool (NULL: MHL_FLEET_POOL) on
 * @conn: the marks first, then the volumes and parts; a volume whose path a
 * domain there names (active or defined) is kept with its mark, each
 * counted in *kept. Other
 * volumes are never touched; no pool is nothing to do. The number deleted,
 * or -1 + mhlError (@uri names the host in messages).
 */
int mhlFleetVolumesClean(virConnectPtr conn, const char *uri, const char *pool, int *kept);

/*
 * work.c: jobs 0..njobs-1 of the caller's over the slots of @hosts
 * (connected, each with its slots): a worker thread per slot takes the first
 * pending job @fits says its host may take and runs it (@run, true: back to
 * the end of the list, to run elsewhere; else counted in h->ran), waiting
 * while others run (one may come back); it stops when none ever will (none
 * pending nor running for it, its host lost, a signal). Returns when every
 * worker has. @spread: the slots taken in turn over the hosts (a slot of
 * each, then a second of each, ...) and the first jobs handed to them in
 * that order, so that fewer jobs than slots spread over the hosts (a fleet
 * soak's seeds); else the slots host by host, every job pending from the
 * start (a run's trials). The callbacks run on the workers' threads.
 */
typedef bool (*mhlFleetFits)(int i, const mhlFleetHost *h, void *opaque);
typedef bool (*mhlFleetJobRun)(int i, mhlFleetHost *h, void *opaque);
typedef struct {
	int njobs;
	mhlFleetFits fits;
	mhlFleetJobRun run;
	void *opaque;		/* for @fits and @run */
	bool spread;
} mhlFleetJobs;
void mhlFleetWorkRun(GPtrArray *hosts, const mhlFleetJobs *jobs);

#endif
