// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - memhp-pin bench --size SIZE [--node N] [--repeat R] [--fresh]
 *
 * gup_test's PIN_LONGTERM_BENCHMARK: pin the whole buffer with FOLL_LONGTERM,
 * time it, unpin, time that; R times. The pages are faulted in (written)
 * before each pin, so the pin itself only pins, or migrates first if they
 * are in ZONE_MOVABLE. With --fresh every repetition gets a new buffer, so
 * every pin starts from pages where the allocator put them (ZONE_MOVABLE on
 * a node of virtio-mem memory) and pays the migration; without it only the
 * first does. The kernel's own timings (get_delta_usec, put_delta_usec) are
 * reported, with nr_not_pinnable where the kernel has our series (patch
 * 0004) and null where it does not (the field is the structure's padding
 * there, which the kernel copies back unchanged).
 *
 * One JSON object on stdout: {"ok", "mode":"bench", "runs":[{"get_us",
 * "put_us", "not_pinnable", "movable_before"}], "get_us_median", ...}.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer.h"
#include "census.h"
#include "mhl-pin-keys.h"
#include "gup_test.h"
#include "mhl-size.h"

#define BENCH_MAX_RUNS	1000
/* FOLL_WRITE, as tools/testing/selftests/mm/gup_test.c passes it in gup_flags. */
#define BENCH_FOLL_WRITE	0x01
/* A value the kernel never writes: tells "field not returned" from 0. */
#define NOT_RETURNED	0xffffffffu

struct bench_run {
	uint64_t get_us, put_us, movable_before;
	uint32_t not_pinnable;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(const struct bench_run *r, int n, int put)
{
	uint64_t v[BENCH_MAX_RUNS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = put ? r[i].put_us : r[i].get_us;
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int fail(uint64_t size, int node, const char *what, int err)
{
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "false," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"bench\",\"node\":%d,\"bytes\":%" PRIu64
	       ",\"error\":\"%s: %s\",\"errno\":%d}\n", node, size, what, strerror(err), err);
	return 1;
}

/*
 * Run @i of a bench: fault in and dirty @buf, count its pages' zones, then
 * one PIN_LONGTERM_BENCHMARK of all of it into @run. 0, or the JSON error
 * line printed and 1.
 */
static int bench_once(int fd, struct census_ctx *cx, char *buf, uint64_t size, int node, int i,
		      struct bench_run *run)
{
	struct gup_test gup = { 0 };
	struct census c;

	memset(buf, 0x5a + i, size);	/* fault in (and dirty) every page */
	if (census_take(cx, buf, size, &c, NULL) < 0)
		return fail(size, node, "census", errno);
	gup.addr = (uintptr_t)buf;
	gup.size = size;
	gup.nr_pages_per_call = size / cx->page_size;
	gup.gup_flags = BENCH_FOLL_WRITE;
	/* A kernel without 0004 hands the padding back as it got it. */
	gup.nr_not_pinnable = NOT_RETURNED;
	if (ioctl(fd, PIN_LONGTERM_BENCHMARK, &gup) < 0)
		return fail(size, node, "PIN_LONGTERM_BENCHMARK", errno);
	if (gup.size != size)
		return fail(size, node, "PIN_LONGTERM_BENCHMARK pinned less", EFAULT);
	run->get_us = gup.get_delta_usec;
	run->put_us = gup.put_delta_usec;
	run->movable_before = c.zone[CENSUS_ZONE_MOVABLE];
	run->not_pinnable = gup.nr_not_pinnable;
	return 0;
}

/* The JSON line of a bench of @repeat runs; not_pinnable_total null when no run returned it. */
static void bench_print(const struct bench_run *runs, int repeat, int node, uint64_t size, int fresh)
{
	uint64_t total_np = 0;
	int i, returned = 0;

	for (i = 0; i < repeat; i++)
		if (runs[i].not_pinnable != NOT_RETURNED) {
			returned = 1;
			total_np += runs[i].not_pinnable;
		}
	printf("{" MHL_PIN_KEY(MHL_PIN_K_OK) "true," MHL_PIN_KEY(MHL_PIN_K_MODE) "\"bench\",\"node\":%d,\"bytes\":%" PRIu64
	       ",\"repeat\":%d,\"fresh\":%s," MHL_PIN_KEY(MHL_PIN_K_RUNS) "[", node, size, repeat,
	       fresh ? "true" : "false");
	for (i = 0; i < repeat; i++) {
		printf("%s{" MHL_PIN_KEY(MHL_PIN_K_GET_US) "%" PRIu64 ",\"put_us\":%" PRIu64 ",\"movable_before\":%" PRIu64
		       ",\"not_pinnable\":", i ? "," : "", runs[i].get_us, runs[i].put_us,
		       runs[i].movable_before);
		if (runs[i].not_pinnable == NOT_RETURNED)
			printf("null}");
		else
			printf("%" PRIu32 "}", runs[i].not_pinnable);
	}
	printf("],\"get_us_median\":%" PRIu64 ",\"put_us_median\":%" PRIu64 ",\"not_pinnable_total\":",
	       median(runs, repeat, 0), median(runs, repeat, 1));
	if (returned)
		printf("%" PRIu64 "}\n", total_np);
	else
		printf("null}\n");
}

int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "node", required_argument, NULL, 'n' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "fresh", no_argument, NULL, 'f' },
		{ 0 }
	};
	static struct bench_run runs[BENCH_MAX_RUNS];
	struct census_ctx cx;
	uint64_t size = 0;
	int node = -1, repeat = 10, fresh = 0, fd, i, c_opt;
	char *buf = NULL;

	while ((c_opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c_opt) {
		case 's':
			if (mhl_size_parse(optarg, &size) < 0 || !size) {
				fprintf(stderr, "memhp-pin bench: invalid --size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n': node = atoi(optarg); break;
		case 'r': repeat = atoi(optarg); break;
		case 'f': fresh = 1; break;
		default: return 2;
		}
	}
	if (!size || repeat < 1 || repeat > BENCH_MAX_RUNS) {
		fprintf(stderr, "memhp-pin bench: --size SIZE is required, --repeat in [1, %d]\n",
			BENCH_MAX_RUNS);
		return 2;
	}
	if (census_init(&cx, "", "/proc/self/pagemap") < 0)
		return fail(size, node, "census", errno);
	fd = open("/sys/kernel/debug/gup_test", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(size, node, "open /sys/kernel/debug/gup_test", errno);
	for (i = 0; i < repeat; i++) {
		if (!buf || fresh) {
			if (buf)
				munmap(buf, size);
			if (!(buf = buffer_map(size, node)))
				return fail(size, node, "mmap/mbind", errno);
		}
		if (bench_once(fd, &cx, buf, size, node, i, &runs[i]))
			return 1;
	}
	bench_print(runs, repeat, node, size, fresh);
	return 0;
}
