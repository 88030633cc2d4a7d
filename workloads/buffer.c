/* buffer.c - see buffer.h. mbind(2) through syscall(2): no libnuma in a static binary. */
#include "buffer.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND_	2
#define MPOL_MF_STRICT_	(1 << 0)

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
