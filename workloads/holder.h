/* SPDX-License-Identifier: GPL-2.0 */
/*
 * holder.h - what every pinning mode of memhp-pin shares: the buffer (backing,
 * node, touch-before or touch-by-pin), the pattern, the census before and
 * after the pin, the holder process that keeps the pins and answers
 * `memhp-pin ctl ID check|release` on /run/memhp/ID.sock, and the one JSON
 * object of the contract. A mode only pins, unpins and checks its I/O path.
 */
#ifndef MEMHP_HOLDER_H
#define MEMHP_HOLDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buffer.h"
#include "census.h"
#include "mhl-pin.h"	/* the modes, backings, touch and split: one table each, shared with the orchestrator */

#define RUN_DIR "/run/memhp"


struct holder;

struct pin_mode {
	const char *name;
	/*
	 * Optional: what the pin needs but is not the pin (a device, queues),
	 * before the timed pin; -1 with errno set and h->fail_what naming the call.
	 */
	int (*prepare)(struct holder *h);
	/* Pin h->buf; -1 with errno set and h->fail_what naming the call. */
	int (*pin)(struct holder *h);
	/* I/O through the pins: print ,"io":{...} to f; 0 if the bytes were right. */
	int (*io)(struct holder *h, FILE *f);
	/* Extra fields for the pin result (,"key":...). */
	void (*json)(struct holder *h, FILE *f);
	/* Drop the pins; -1 with errno set. */
	int (*unpin)(struct holder *h);
	/*
	 * The mode configures the kernel it runs on (an rxe or dummy link, a
	 * vfio binding, a tmpfs of kernel memory): it runs only in a
	 * memhp-lab guest, never on the machine that runs the tests.
	 */
	bool guest_only;
};

/*
 * Whether this is a memhp-lab guest: memhp_guest=1 on /proc/cmdline (the
 * domain's kernel command line, orchestrator/guest/domain.c). 0 if it is;
 * else usage_error's JSON and message for @mode, saying that @what (what
 * would be configured: "links, device bindings, modules or mounts", "this
 * machine's hugetlb pool") is why, and exit code 2.
 */
int lab_guest_only(const char *mode, const char *what);

struct holder {
	const struct pin_mode *mode;
	const char *id;
	uint64_t size;
	int node;
	uint64_t seed;
	enum mhl_pin_backing backing;
	bool touch_by_pin;	/* pages first touched by the pin itself */
	bool read_only;		/* --touch read: never written, pinned without FOLL_WRITE */
	const char *split;	/* thp: "mprotect" or "munmap" splits each PMD first */
	long long pmd_mapped_before_split, pmd_mapped_after_split;	/* bytes, -1: n/a */
	uint64_t scatter;	/* --scatter BLOCK: one page per block is kept and pinned (0: no) */
	struct buffer_scatter sc;	/* what the scatter kept; size is then its pages */
	const char *device;	/* vfio: PCI address, NULL = find the edu device */
	char *buf;
	int memfd;
	long hugepages_added;	/* hugetlb: pages this holder added to the node's pool */
	uint64_t *pfns;		/* PFN of each page right after the pin */
	struct census_ctx cx;
	bool pins;		/* false: the mode pins nothing (vfio-noiommu) */
	uint64_t bytes_pinned;
	const char *fail_what;	/* the call that failed */
	void *priv;		/* the mode's own state */
};

double now_us(void);
void json_errno(FILE *f, int err);
/*
 * Write/verify the pattern on [off, off + len) of the buffer (8-byte words).
 * A read-only holder's pattern is zero: fill only reads (faulting in the
 * zero page), the check wants every word still zero.
 */
void pattern_fill(const struct holder *h, uint64_t off, uint64_t len);
uint64_t pattern_bad(const struct holder *h, uint64_t off, uint64_t len);

/* The modes: memhp-pin.c (gup), uring.c (io_uring), vfio.c (vfio, vfio-noiommu), rdma.c (rdma, rdma-odp). */
/* Each row of MHL_PIN_MODES (lib/mhl-pin.h) has its VAR_mode in a file of its own. */
#define PIN_MODE_EXTERN_(id, var, ...) extern const struct pin_mode var##_mode;
MHL_PIN_MODES(PIN_MODE_EXTERN_)
#undef PIN_MODE_EXTERN_

/* memhp-pin MODE --id ID --size SIZE [...]: the whole life of a holder. */
int holder_main(const struct pin_mode *m, int argc, char **argv);
/* memhp-pin ctl ID check|release [--timeout SEC] */
int holder_ctl(int argc, char **argv);
/* memhp-pin leak --id ID [--what io_uring]: one more io_uring kept open (leak.c) */
int leak_main(int argc, char **argv);

#endif
