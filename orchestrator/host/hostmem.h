/*
 * hostmem.h - what a guest costs its host: QEMU's resident memory, the
 * resident bytes of each virtio-mem device's memory backend, and the host's
 * hugepage pool. The question of an unplug is whether the host gets the
 * memory back; the guest's plugged size alone never says so.
 *
 * Two sources. "proc": QEMU runs on this host (the embedded driver, or a
 * local daemon): /proc/PID/status (VmRSS) and /proc/PID/smaps, where each
 * backend is one mapping (docs/record.md says how it is found). "libvirt":
 * QEMU's /proc is not ours to read (a remote URI, or no such process here):
 * virDomainMemoryStats' rss, QEMU's whole resident set, and no per-device
 * figure. The record says which source it used.
 */
#ifndef MHL_HOST_HOSTMEM_H
#define MHL_HOST_HOSTMEM_H

#include <glib.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario/scenario.h"

/* One mapping of /proc/PID/smaps: what the host side reads of it. */
typedef struct {
	uint64_t start, end;	/* addresses */
	uint64_t rss_kib;	/* Rss */
	uint64_t hugetlb_kib;	/* Private_Hugetlb + Shared_Hugetlb */
	bool writable;
	bool executable;	/* never a memory backend (TCG's code buffer is) */
	bool shared;		/* 's' in the permissions: MAP_SHARED */
	char path[128];		/* "" for anonymous memory; cut at 127 bytes */
} mhlSmapsEntry;

/*
 * Parse the text of /proc/PID/smaps into an array of mhlSmapsEntry, in file
 * order. Lines it does not know are skipped; a mapping header that is not
 * "START-END PERMS ..." in hex ends the parse (what came before is kept).
 * Never NULL.
 */
GArray *mhlSmapsParse(const char *text, gsize len);

/* A memory backend as QEMU creates it, in creation order. */
typedef struct {
	char id[32];		/* libvirt's: ram-node0, memvirtiomem0, ... */
	uint64_t size;		/* bytes */
	int node;		/* its scenario node */
	bool device;		/* a virtio-mem device's (else a NUMA cell's boot memory) */
} mhlBackend;

/*
 * Which mapping of @maps is each backend's (the index in @maps, -1: not
 * found), written to @which[nb]. A mapping whose path names the backend
 * (QEMU's "qemu_back_mem.ID.XXXXXX" for file and hugetlbfs backings) is its
 * own; the others by size and order: QEMU maps the backends in creation
 * order and the kernel places each new mapping below the last one, so among
 * the writable mappings of one size the highest is the first backend of that
 * size. When the number of such mappings is not the number of backends of
 * that size, they stay -1. Returns how many were found.
 */
int mhlBackendsMatch(const mhlBackend *b, int nb, GArray *maps, int *which);

#define MHL_HOT_MAX 16	/* the memory devices one trial's dimm and vmem steps attach */

/*
 * A memory device attached while the guest runs (a dimm or vmem step): its
 * backend is the mapping of QEMU's that the attach added (mhlSmapsNewMapping).
 */
typedef struct {
	char id[32];		/* the step's id */
	int node;		/* its scenario node */
	bool vmem;		/* a virtio-mem device, else a DIMM */
	uint64_t size;		/* its backend's bytes */
	uint64_t start;		/* its backend's mapping in QEMU's smaps; 0: not found */
	bool gone;		/* a sample found no mapping at start: detached, its backend freed */
} mhlHotBackend;

typedef struct {
	pid_t pid;		/* QEMU's, 0 when source is "libvirt" */
	const char *source;	/* "proc" or "libvirt" */
	char *why;		/* why not "proc", for the record; NULL for "proc" */
	int nb;
	mhlBackend b[2 * MHL_MAX_NODES];
	uint64_t hugepage_kib;	/* the backing's hugepage size, 0: not hugetlb */
	virDomainPtr dom;	/* not owned */
	int nhot;
	mhlHotBackend hot[MHL_HOT_MAX];	/* in attach order; a detached one stays (0 bytes once unmapped) */
} mhlHostMem;

/* One look at the host. -1: not known. */
typedef struct {
	double t;			/* monotonic */
	int64_t qemu_rss;		/* bytes: VmRSS, or libvirt's rss */
	int64_t qemu_hugetlb;		/* bytes of hugetlb pages QEMU maps */
	int64_t node_bytes[MHL_MAX_NODES];	/* resident bytes of node N's virtio-mem backend */
	int64_t hot_bytes[MHL_HOT_MAX];	/* resident bytes of hm->hot[i]'s backend, 0 once unmapped */
	int64_t pool_free;		/* free pages of the hugepage pool of the backing's size */
	/*
	 * The guest's RAM in QEMU's resident set: the Rss (as VmRSS counts it,
	 * hugetlb pages not in it) of every backend, boot memory, virtio-mem and
	 * hot-added devices alike; -1 unless each one's mapping was found.
	 * QEMU's own memory is qemu_rss - guest_ram (a soak trends them apart).
	 */
	int64_t guest_ram;
	/*
	 * TCG's translated code: the Rss of QEMU's anonymous writable and
	 * executable mappings (its code buffer, one region per vCPU thread),
	 * and their size, which bounds it (0 under KVM). QEMU's own memory
	 * beside it is qemu_rss - guest_ram - tcg_code.
	 */
	int64_t tcg_code, tcg_code_size;
} mhlHostSample;

/*
 * After the guest booted (its memory is mapped): find QEMU's process for
 * @dom when @local (QEMU runs on this host: /proc/PID/cmdline names the
 * domain), its backends from @s, and @hugepage_kib the backing's page size
 * (0: none). Falls back to "libvirt" with the reason; never fails.
 */
void mhlHostMemOpen(mhlHostMem *hm, virDomainPtr dom, const char *name, bool local,
		    const mhlScenario *s, uint64_t hugepage_kib);
void mhlHostMemClear(mhlHostMem *hm);

/* A sample now; -1 + mhlError when nothing could be read (QEMU gone). */
int mhlHostMemSample(mhlHostMem *hm, mhlHostSample *out);

/*
 * The sample as a JSON object: {qemu_rss_bytes, qemu_hugetlb_bytes?,
 * backend_bytes: {N: bytes}, hot_backend_bytes?: {ID: bytes},
 * pool_free_pages?}; @hm names the hot-added devices (NULL: none).
 */
json_object *mhlHostSampleJSON(const mhlHostSample *hs, const mhlHostMem *hm);

/*
 * A device a dimm or vmem step attached, its backend's mapping at @start
 * (0: not found): sampled from now on, in hot_bytes[] at the index returned
 * (-1: MHL_HOT_MAX devices already). An id seen before is that entry again.
 * The caller holds what serialises it with the samples (mhlGuestHostAttach).
 */
int mhlHostMemHotAdd(mhlHostMem *hm, const char *id, int node, bool vmem, uint64_t size, uint64_t start);
/*
 * A new QEMU runs the guest (a restore, a migration back here): the devices
 * attached before and still there are backends it created at its start,
 * after the boot-time ones, in attach order. Find each one's mapping as
 * mhlBackendsMatch finds those (by name, else by size and order); one that
 * cannot be told apart keeps start 0 (QEMU's RSS is then its measure).
 * How many were found.
 */
int mhlHostMemHotFindAgain(mhlHostMem *hm);
/* The entry of the device step @id attached (-1: none); of node @node's hot-added virtio-mem device. */
int mhlHostMemHotFind(const mhlHostMem *hm, const char *id);
int mhlHostMemHotOfNode(const mhlHostMem *hm, int node);
/*
 * The bytes sample @hs gives a hot-added device (entry @k, -1: none): its
 * backend's, *by "backend", else QEMU's whole resident set, *by "qemu_rss"
 * (its mapping was not found, or the source is libvirt).
 */
int64_t mhlHostSampleHotBytes(const mhlHostSample *hs, int k, const char **by);

/*
 * A memory backend hot-plugged with a device (a dimm or vmem step) is a new
 * mapping of QEMU's: mhlHostMemMaps reads QEMU's smaps now (NULL when the
 * source is not "proc" or it cannot be read); mhlSmapsNewMapping finds the
 * index in @after of the one writable mapping of @size bytes that @before
 * did not have (-1: none, or more than one), which mhlHostMemHotAdd then
 * samples; mhlSmapsRssAt the resident bytes (hugetlb included) of the
 * mapping at @start in @maps, 0 when there is none (the backend was
 * unmapped: freed).
 */
GArray *mhlHostMemMaps(const mhlHostMem *hm);
int mhlSmapsNewMapping(GArray *before, GArray *after, uint64_t size);
int64_t mhlSmapsRssAt(GArray *maps, uint64_t start);

/*
 * The process of domain @name on this host: scans /proc/ * /cmdline for
 * "-name guest=NAME," among qemu-system-* processes of root, of ours or of
 * libvirt-qemu. 0: none, or more than one.
 */
pid_t mhlQemuPidFind(const char *name);

#endif
