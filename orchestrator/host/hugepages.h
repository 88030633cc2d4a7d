/*
 * hugepages.h - what a hugepage-backed guest needs of the host: hugetlbfs
 * mounts for the embedded driver and pages in the host's pool, added for the
 * trial and taken back after it (also after a kill -9: the next start does).
 */
#ifndef MHL_HOST_HUGEPAGES_H
#define MHL_HOST_HUGEPAGES_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Mount hugetlbfs for each hugepage size the host has under @root
 * (ROOT/hugepages-2048kB, ...) and append the qemu.conf line naming them
 * (hugetlbfs_mount = [...]) to @conf. Sizes that cannot be mounted (not
 * root, no such size) are left out; that is no error here: a scenario that
 * asks for them gets one at its start. Returns how many were mounted.
 */
int mhlHugetlbfsMount(const char *root, GString *conf);
/* Unmount what mhlHugetlbfsMount mounted under @root (lazily: QEMU may still hold files). */
void mhlHugetlbfsUnmount(const char *root);

typedef struct {
	uint64_t kib;		/* page size */
	long added;		/* pages this trial added to the pool */
	char *state;		/* /run/memhp-lab/hugepool/PID-N-KIB: what to take back after a kill -9 */
} mhlHugePool;

#define MHL_HUGEPOOL_MARGIN_KIB (1024 * 1024)	/* host memory a pool never takes */

/* Whether @pages of @kib fit in @avail_kib (MemAvailable) less the margin; -1 + mhlError if not. */
int mhlHugePoolFits(uint64_t kib, long pages, long long avail_kib);

/*
 * Grow the host's pool of @kib pages by @pages (what a guest of that size
 * maps at most). -1 + mhlError naming the shortfall when the kernel could
 * not allocate them all (the pool is left as it was).
 */
int mhlHugePoolGrow(uint64_t kib, long pages, mhlHugePool *p);
/* Take the pages back (pages QEMU still holds become surplus and go when it exits). */
void mhlHugePoolRestore(mhlHugePool *p);
/* At start: take back what runs that are gone added (their state files). */
void mhlHugePoolStaleClean(void);
/* The guard, once its run is gone: take back what run @run added (@run 0: any run that is gone). */
void mhlHugePoolTakeBack(pid_t run);

#endif
