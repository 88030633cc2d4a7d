/* SPDX-License-Identifier: GPL-2.0 */
/*
 * census.h - where the pages of a buffer live: NUMA node and zone per page.
 *
 * A page's PFN comes from /proc/self/pagemap; PFN -> physical address -> memory
 * block (/sys/devices/system/memory/block_size_bytes); the block's node is its
 * nodeN link and its zone is valid_zones (for an online block: the zone it is
 * in). All paths take a sysroot prefix so tests can use a fake tree, as lsmem.
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
};

struct census_ctx {
	char sysroot[256];		/* "" for the live system */
	uint64_t block_size;		/* bytes per memory block */
	long page_size;
	int pagemap_fd;
	/* a small cache: last block looked up */
	uint64_t last_block;
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

/* Node and zone of the memory block holding pfn; -1 when unknown. */
int census_block_of_pfn(struct census_ctx *ctx, uint64_t pfn, int *node,
			enum census_zone *zone);

/* Census of [addr, addr + len). Optionally stores each page's PFN (0 if none). */
int census_take(struct census_ctx *ctx, const void *addr, size_t len,
		struct census *out, uint64_t *pfns);

/* Print as a JSON object: {"pages":..,"by_zone":{..},"by_node":{..},...}. */
void census_print_json(FILE *f, const struct census *c);

#endif
