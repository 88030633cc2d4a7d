/* SPDX-License-Identifier: GPL-2.0 */
/*
 * census.h - where the pages of a buffer live: NUMA node and zone per page.
 *
 * A page's PFN comes from /proc/self/pagemap; PFN -> physical address -> memory
 * block (/sys/devices/system/memory/block_size_bytes); the block's node is its
 * nodeN link and its zone is valid_zones (for an online block: the zone it is
 * in; a boot memory block that spans zones, e.g. DMA and DMA32, is resolved
 * per page from the zone spans in /proc/zoneinfo). All paths take a sysroot prefix so tests can use a fake tree, as lsmem.
 *
 * Three page kinds are counted besides node and zone, for the claims about
 * them: the shared zero page (the PFN the caller found behind a read-only
 * fault, or KPF_ZERO_PAGE), pages of transparent huge pages (KPF_THP in
 * /proc/kpageflags, also when only PTE-mapped after a split), and pages in
 * a CMA area (ranges from the boot log's "cma: Reserved N MiB at 0x...").
 */
#ifndef MEMHP_CENSUS_H
#define MEMHP_CENSUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CENSUS_MAX_NODES 8

enum census_zone {
	CENSUS_ZONE_DMA,
	CENSUS_ZONE_DMA32,
	CENSUS_ZONE_NORMAL,
	CENSUS_ZONE_MOVABLE,
	CENSUS_ZONE_OTHER,	/* a block spanning zones, or an unknown name */
	CENSUS_ZONE_LAST
};

extern const char *const census_zone_names[CENSUS_ZONE_LAST];

struct census {
	uint64_t pages;			/* pages looked at */
	uint64_t not_present;		/* pagemap said not present */
	uint64_t unknown;		/* PFN hidden or block unreadable */
	uint64_t node[CENSUS_MAX_NODES];
	uint64_t zone[CENSUS_ZONE_LAST];
	uint64_t node_zone[CENSUS_MAX_NODES][CENSUS_ZONE_LAST];
	uint64_t zero;			/* mapped to the shared zero page */
	uint64_t thp;			/* part of a transparent huge page */
	uint64_t cma;			/* in a CMA area */
};

#define CENSUS_MAX_CMA 8

struct census_range {
	uint64_t start_pfn, nr_pages;
};

struct census_ctx {
	char sysroot[256];		/* "" for the live system */
	uint64_t block_size;		/* bytes per memory block */
	long page_size;
	int pagemap_fd;
	int kpageflags_fd;		/* -1: no /proc/kpageflags, thp stays 0 */
	uint64_t zero_pfn;		/* 0: unknown */
	int ncma;
	struct census_range cma[CENSUS_MAX_CMA];
	/* zone spans from /proc/zoneinfo, for blocks that span several zones */
	int nspans;
	struct {
		uint64_t start_pfn, spanned;
		int node;
		enum census_zone zone;
	} spans[32];
	/* a small cache: 512 kpageflags words from flags_base */
	uint64_t flags_base, flags_len;
	uint64_t flags[512];
	/* a small cache: last block looked up */
	uint64_t last_block;
	uint64_t mixed_block;		/* last block that spans zones */
	int last_node;
	enum census_zone last_zone;
};

/* Parse a zone name as printed in valid_zones ("Movable", "Normal", ...). */
enum census_zone census_zone_parse(const char *s);

/* Decode one pagemap entry; returns 1 and sets *pfn if present with a PFN. */
int census_pagemap_pfn(uint64_t entry, uint64_t *pfn);

/* Open pagemap_path and read block_size_bytes under sysroot. -1 + errno. */
int census_init(struct census_ctx *ctx, const char *sysroot, const char *pagemap_path);
void census_fini(struct census_ctx *ctx);

/*
 * CMA areas from a kernel log (the text of dmesg): each "cma: Reserved N MiB
 * at 0xADDR" line. Returns how many were stored in @out (at most @max).
 */
int census_parse_cma_log(const char *log, struct census_range *out, int max);

/* Node and zone of the memory block holding pfn; -1 when unknown. */
int census_block_of_pfn(struct census_ctx *ctx, uint64_t pfn, int *node,
			enum census_zone *zone);

/* Census of [addr, addr + len). Optionally stores each page's PFN (0 if none). */
int census_take(struct census_ctx *ctx, const void *addr, size_t len,
		struct census *out, uint64_t *pfns);

/* Print as a JSON object: {"pages":..,"by_zone":{..},"by_node":{..},...}. */
void census_print_json(FILE *f, const struct census *c);

#endif
