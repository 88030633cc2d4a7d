/* buffer.c - see buffer.h. mbind(2) through syscall(2): no libnuma in a static binary. */
#include "buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND_	2
#define MPOL_MF_STRICT_	(1 << 0)
#define PAGE_4K		4096ULL
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

void *buffer_map(uint64_t size, int node)
{
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return NULL;
	madvise(buf, size, MADV_NOHUGEPAGE);
	if (node >= 0) {
		unsigned long mask = 1UL << node;

		if (syscall(SYS_mbind, buf, size, MPOL_BIND_, &mask, sizeof(mask) * 8,
			    MPOL_MF_STRICT_) < 0) {
			munmap(buf, size);
			return NULL;
		}
	}
	return buf;
}

/* The physical blocks taken so far: open addressing, @cap a power of two, 0 = empty (stored + 1). */
static int block_take(uint64_t *set, uint64_t cap, uint64_t blk)
{
	uint64_t i = (blk * 0x9e3779b97f4a7c15ULL) & (cap - 1);

	for (; set[i]; i = (i + 1) & (cap - 1))
		if (set[i] == blk + 1)
			return 0;
	set[i] = blk + 1;
	return 1;
}

/*
 * The page of the block at @va (@per pages) to keep: the first present one
 * whose physical block is not taken yet (taken now); -1 if none, -2 with
 * errno set if pagemap could not be read.
 */
static long scatter_pick(int pm, const char *va, uint64_t per, uint64_t *ent, uint64_t *set,
			 uint64_t cap)
{
	ssize_t want = (ssize_t)(per * sizeof(*ent));
	uint64_t i;

	if (pread(pm, ent, want, (off_t)((uintptr_t)va / PAGE_4K * sizeof(*ent))) != want) {
		errno = errno ? errno : EIO;
		return -2;
	}
	for (i = 0; i < per; i++) {
		if (!(ent[i] & PM_PRESENT) || !(ent[i] & PM_PFN_MASK))
			continue;	/* not faulted in, or the PFN hidden (no CAP_SYS_ADMIN) */
		if (block_take(set, cap, (ent[i] & PM_PFN_MASK) / per))
			return (long)i;
	}
	return -1;
}

long buffer_scatter_layout(int pm, const char *va, uint64_t nblk, uint64_t block, long *pick)
{
	uint64_t per = block / PAGE_4K, cap = 16, b;
	uint64_t *ent = calloc(per, sizeof(*ent)), *set;
	long kept = 0;
	int err = 0;

	while (cap < 2 * nblk)
		cap *= 2;
	set = calloc(cap, sizeof(*set));
	if (!ent || !set) {
		err = ENOMEM;
		goto out;
	}
	for (b = 0; b < nblk; b++) {
		pick[b] = scatter_pick(pm, va + b * block, per, ent, set, cap);
		if (pick[b] == -2) {
			err = errno;
			goto out;
		}
		kept += pick[b] >= 0;
	}
out:
	free(ent);
	free(set);
	errno = err;
	return err ? -1 : kept;
}

int buffer_scatter(char **buf, uint64_t *size, uint64_t block, struct buffer_scatter *out)
{
	uint64_t nblk = *size / block, b, kept = 0;
	long *pick = calloc(nblk ? nblk : 1, sizeof(*pick));
	char *dst, *src = *buf;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), err = 0;

	dst = mmap(NULL, nblk * PAGE_4K, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pick || pm < 0 || dst == MAP_FAILED) {
		err = errno ? errno : ENOMEM;
		goto out;
	}
	if (buffer_scatter_layout(pm, src, nblk, block, pick) < 0) {
		err = errno;
		goto out;
	}
	for (b = 0; b < nblk; b++) {
		char *va = src + b * block;

		if (pick[b] < 0)
			continue;
		/* the same physical page, moved: mremap carries the PTE */
		if (mremap(va + pick[b] * PAGE_4K, PAGE_4K, PAGE_4K, MREMAP_MAYMOVE | MREMAP_FIXED,
			   dst + kept * PAGE_4K) == MAP_FAILED) {
			err = errno;
			goto out;
		}
		kept++;
	}
	*out = (struct buffer_scatter){ .block = block, .buffer_bytes = *size, .pages = kept,
					.skipped = nblk - kept };
	munmap(src, *size);
	if (kept < nblk)
		munmap(dst + kept * PAGE_4K, (nblk - kept) * PAGE_4K);
	*buf = dst;
	*size = kept * PAGE_4K;
	dst = MAP_FAILED;
	if (!kept)
		err = ENOENT;	/* no page found present with its PFN: pagemap hides PFNs without CAP_SYS_ADMIN */
out:
	if (dst != MAP_FAILED)
		munmap(dst, nblk * PAGE_4K);
	if (pm >= 0)
		close(pm);
	free(pick);
	errno = err;
	return err ? -1 : 0;
}
