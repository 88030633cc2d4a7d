/* buffer.h - the anonymous buffer a workload pins: mapped, bound to a node. */
#ifndef MHP_BUFFER_H
#define MHP_BUFFER_H

#include <stdint.h>

/*
 * mmap @size bytes of anonymous private memory, without THP, bound
 * (MPOL_BIND, strict) to @node unless @node < 0. Nothing is faulted in.
 * Returns NULL with errno set on failure.
 */
void *buffer_map(uint64_t size, int node);

/* The most pages a scatter keeps: one VMA each (vm.max_map_count is 65530 by default). */
#define BUFFER_SCATTER_MAX	16384

/* What buffer_scatter() kept of a buffer. */
struct buffer_scatter {
	uint64_t block;		/* bytes: one page kept per block, the same size physically */
	uint64_t buffer_bytes;	/* the buffer that was faulted in and laid out */
	uint64_t pages;		/* pages kept, each in a physical block of its own */
	uint64_t skipped;	/* blocks of the buffer none of whose pages was in a block not yet taken */
};

/*
 * The layout of a scatter (buffer_scatter), read from @pm, a pagemap
 * (/proc/self/pagemap, or a file of its format: one 64-bit entry per 4 KiB
 * page of the address space, bit 63 present, bits 0-54 the PFN): for each of
 * the @nblk blocks of @block bytes at @va, pick[b] the index of the page of
 * it to keep, the first present one with a PFN whose physical @block-sized
 * block no page kept before is in; -1 when it has none. @va is only an
 * address here: nothing is read there. The pages kept, or -1 with errno set.
 */
long buffer_scatter_layout(int pm, const char *va, uint64_t nblk, uint64_t block, long *pick);

/*
 * Scatter: of the faulted-in buffer [*@buf, *@buf + *@size), keep one 4 KiB
 * page in each @block-sized block of it, chosen so that no two kept pages
 * share a physical @block-sized block (PFNs from /proc/self/pagemap, which
 * needs CAP_SYS_ADMIN), move the kept pages next to each other (mremap: the
 * same physical pages, now one page-sized VMA each) and unmap the rest. On
 * return *@buf and *@size are the kept pages; 0, or -1 with errno set
 * (the buffer is then as it was, or unmapped in part: the caller unmaps
 * *@buf, *@size and gives up).
 */
int buffer_scatter(char **buf, uint64_t *size, uint64_t block, struct buffer_scatter *out);

#endif
