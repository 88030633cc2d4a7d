// SPDX-License-Identifier: GPL-2.0
/*
 * memhp-pin - long-term pin a buffer inside the guest and hold the pins.
 *
 *   memhp-pin MODE --id ID --size SIZE [--node N] [--seed S]
 *                  [--backing anon|thp|hugetlb|memfd] [--touch before|pin|read]
 *                  [--split mprotect|munmap] [--device PCI-ADDRESS]
 *	MODE is one of the pinning paths real software uses:
 *	  gup           gup_test PIN_LONGTERM_TEST_START (this file)
 *	  io_uring      IORING_REGISTER_BUFFERS, I/O with READ/WRITE_FIXED (uring.c)
 *	  vfio          VFIO type1 VFIO_IOMMU_MAP_DMA, DMA by QEMU's edu device (vfio.c)
 *	  vfio-noiommu  the UNPROTECTED negative control: no IOMMU, nothing pinned (vfio.c)
 *	Maps a buffer bound to node N, writes a pattern (before the pin, or
 *	after it with --touch pin, so the pin itself faults the pages in), takes
 *	a census (node/zone of every page), pins, takes the census again and
 *	checks the pattern and the mode's I/O. --touch read never writes: each
 *	page is read (mapping the shared zero page) and gup pins read-only;
 *	the pattern is then all zeros. --split splits the PMD of each THP of
 *	a --backing thp buffer before the census (holder.c: thp_split). A holder process keeps the pins
 *	and serves requests on /run/memhp/ID.sock; this command prints one JSON
 *	object and exits, so the host's guest-exec sees the result while the
 *	pins are held (holder.c).
 *
 *   memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]
 *	gup_test PIN_LONGTERM_BENCHMARK R times (bench.c).
 *
 *   memhp-pin ctl ID check|release [--timeout SEC]
 *	check: census + pattern check + the mode's I/O through the pins, and
 *	whether any page changed PFN since the pin. release: the same, then
 *	unpin and exit.
 *
 * Exactly one JSON object goes to stdout; diagnostics go to stderr. The exit
 * status is 0 when the JSON says "ok": true.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/types.h>

#include "bench.h"
#include "holder.h"
#include "gup_test.h"	/* the kernel's own, copied from the built tree */

#define GUP_TEST_PATH	"/sys/kernel/debug/gup_test"

static int gup_fd = -1;

static int gup_pin(struct holder *h)
{
	struct pin_longterm_test pin = {
		.addr = (uintptr_t)h->buf,
		.size = h->size,
		/* --touch read: a read-only pin (no FOLL_WRITE), as for the zero page */
		.flags = h->read_only ? 0 : PIN_LONGTERM_TEST_FLAG_USE_WRITE,
	};

	h->fail_what = "open " GUP_TEST_PATH " (CONFIG_GUP_TEST, debugfs)";
	if ((gup_fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	h->fail_what = "PIN_LONGTERM_TEST_START";
	if (ioctl(gup_fd, PIN_LONGTERM_TEST_START, &pin) < 0) {
		int err = errno;

		close(gup_fd);
		gup_fd = -1;
		errno = err;
		return -1;
	}
	h->bytes_pinned = h->size;
	return 0;
}

static int gup_unpin(struct holder *h)
{
	int rc = 0;

	if (gup_fd < 0)
		return 0;
	if (ioctl(gup_fd, PIN_LONGTERM_TEST_STOP) < 0)
		rc = -1;
	close(gup_fd);	/* closing also drops the pins, should STOP have failed */
	gup_fd = -1;
	h->bytes_pinned = 0;
	return rc;
}

const struct pin_mode gup_mode = {
	.name = "gup",
	.pin = gup_pin,
	.unpin = gup_unpin,
};

static const struct pin_mode *const modes[] = {
	&gup_mode, &uring_mode, &vfio_mode, &vfio_noiommu_mode, NULL
};

int main(int argc, char **argv)
{
	int i;

	for (i = 0; argc >= 2 && modes[i]; i++)
		if (!strcmp(argv[1], modes[i]->name))
			return holder_main(modes[i], argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return holder_ctl(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (argc >= 2) {
		fprintf(stderr, "memhp-pin: unknown mode '%s' (known: gup, io_uring, vfio, vfio-noiommu, bench, ctl)\n",
			argv[1]);
		printf("{\"ok\":false,\"errno\":%d,\"errno_name\":\"EINVAL\",\"error\":\"unknown mode '%.64s' (known: gup, io_uring, vfio, vfio-noiommu, bench, ctl)\"}\n",
		       EINVAL, strchr(argv[1], '"') ? "?" : argv[1]);
		return 2;
	}
	fprintf(stderr,
		"usage: memhp-pin gup|io_uring|vfio|vfio-noiommu --id ID --size SIZE [--node N] [--seed S]\n"
		"                 [--backing anon|thp|hugetlb|memfd] [--touch before|pin|read]\n"
		"                 [--split mprotect|munmap] [--device PCI-ADDRESS]\n"
		"       memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]\n"
		"       memhp-pin ctl ID check|release [--timeout SEC]\n");
	return 2;
}
