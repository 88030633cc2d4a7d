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

#endif
