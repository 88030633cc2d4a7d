// SPDX-License-Identifier: GPL-2.0
/* census.c - NUMA node and zone of each page of a buffer (see census.h). */
#include "census.h"
#include "mhl-pin-keys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATH_SYS_MEMORY		"/sys/devices/system/memory"
#define PATH_BLOCK_SIZE		PATH_SYS_MEMORY "/block_size_bytes"

#define PM_PFN_MASK		((1ULL << 55) - 1)
#define PM_PRESENT		(1ULL << 63)
#define KPF_THP			22	/* include/uapi/linux/kernel-page-flags.h */
#define KPF_ZERO_PAGE		24

const char *const census_zone_names[CENSUS_ZONE_LAST] = {
	[CENSUS_ZONE_DMA] = "DMA",
	[CENSUS_ZONE_DMA32] = "DMA32",
	[CENSUS_ZONE_NORMAL] = "Normal",
	[CENSUS_ZONE_MOVABLE] = MHL_PIN_ZONE_MOVABLE,
	[CENSUS_ZONE_OTHER] = "other",
};

enum census_zone census_zone_parse(const char *s)
{
	size_t n = strcspn(s, " \n");
	int i;

	for (i = 0; i < CENSUS_ZONE_OTHER; i++)
		if (strlen(census_zone_names[i]) == n && !strncmp(s, census_zone_names[i], n))
			return i;
	return CENSUS_ZONE_OTHER;
}

int census_pagemap_pfn(uint64_t entry, uint64_t *pfn)
{
	if (!(entry & PM_PRESENT))
		return 0;
	*pfn = entry & PM_PFN_MASK;
	return *pfn != 0;	/* 0: present but PFN hidden (no CAP_SYS_ADMIN) */
}

static int read_attr(const struct census_ctx *ctx, const char *path, char *buf, size_t len)
{
	char full[512];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), "%s%s", ctx->sysroot, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Zone spans per node from zoneinfo ("Node N, zone NAME", "spanned", "start_pfn:"). */
static void read_spans(struct census_ctx *ctx)
{
	char path[300], line[256], name[32];
	unsigned long long v;
	FILE *f;
	int node, cur = -1;

	snprintf(path, sizeof(path), "%s/proc/zoneinfo", ctx->sysroot);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			cur = ctx->nspans < (int)(sizeof(ctx->spans) / sizeof(ctx->spans[0])) ?
			      ctx->nspans++ : -1;
			if (cur >= 0) {	/* start_pfn and spanned: 0 from census_init's memset */
				ctx->spans[cur].node = node;
				ctx->spans[cur].zone = census_zone_parse(name);
			}
		} else if (cur >= 0 && sscanf(line, " spanned %llu", &v) == 1) {
			ctx->spans[cur].spanned = v;
		} else if (cur >= 0 && sscanf(line, " start_pfn: %llu", &v) == 1) {
			ctx->spans[cur].start_pfn = v;
		}
	}
	fclose(f);
}

int census_init(struct census_ctx *ctx, const char *sysroot, const char *pagemap_path)
{
	char buf[64], full[300];

	memset(ctx, 0, sizeof(*ctx));
	ctx->pagemap_fd = ctx->kpageflags_fd = -1;
	snprintf(ctx->sysroot, sizeof(ctx->sysroot), "%s", sysroot ? sysroot : "");
	ctx->page_size = sysconf(_SC_PAGESIZE);
	ctx->last_block = ctx->mixed_block = UINT64_MAX;
	if (read_attr(ctx, PATH_BLOCK_SIZE, buf, sizeof(buf)) < 0)
		return -1;
	ctx->block_size = strtoull(buf, NULL, 16);
	if (!ctx->block_size) {
		errno = EINVAL;
		return -1;
	}
	ctx->pagemap_fd = open(pagemap_path, O_RDONLY | O_CLOEXEC);
	if (ctx->pagemap_fd < 0)
		return -1;
	snprintf(full, sizeof(full), "%s/proc/kpageflags", ctx->sysroot);
	ctx->kpageflags_fd = open(full, O_RDONLY | O_CLOEXEC);
	read_spans(ctx);
	return 0;
}

int census_parse_cma_log(const char *log, struct census_range *out, int max)
{
	const char *p = log;
	int n = 0;

	while (n < max && (p = strstr(p, "cma: Reserved "))) {
		unsigned long long mib, addr;

		if (sscanf(p, "cma: Reserved %llu MiB at %llx", &mib, &addr) == 2 && mib) {
			out[n].start_pfn = addr / 4096;
			out[n].nr_pages = mib * 256;
			n++;
		}
		p++;
	}
	return n;
}

/* kpageflags of @pfn, read 512 at a time; 0 when unavailable. */
static uint64_t page_flags(struct census_ctx *ctx, uint64_t pfn)
{
	ssize_t got;

	if (ctx->kpageflags_fd < 0)
		return 0;
	if (pfn < ctx->flags_base || pfn >= ctx->flags_base + ctx->flags_len) {
		ctx->flags_base = pfn & ~511ULL;
		got = pread(ctx->kpageflags_fd, ctx->flags, sizeof(ctx->flags),
			    (off_t)(ctx->flags_base * sizeof(uint64_t)));
		ctx->flags_len = got > 0 ? (uint64_t)got / sizeof(uint64_t) : 0;
		if (pfn >= ctx->flags_base + ctx->flags_len)
			return 0;
	}
	return ctx->flags[pfn - ctx->flags_base];
}

static bool in_cma(const struct census_ctx *ctx, uint64_t pfn)
{
	int i;

	for (i = 0; i < ctx->ncma; i++)
		if (pfn >= ctx->cma[i].start_pfn && pfn < ctx->cma[i].start_pfn + ctx->cma[i].nr_pages)
			return true;
	return false;
}

void census_fini(struct census_ctx *ctx)
{
	if (ctx->pagemap_fd >= 0)
		close(ctx->pagemap_fd);
	if (ctx->kpageflags_fd >= 0)
		close(ctx->kpageflags_fd);
	ctx->pagemap_fd = -1;
	ctx->kpageflags_fd = -1;
}

static int block_node(const struct census_ctx *ctx, uint64_t block)
{
	char path[512];
	struct dirent *de;
	int node = -1;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s/memory%" PRIu64, ctx->sysroot, PATH_SYS_MEMORY, block);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long n;

		if (strncmp(de->d_name, "node", 4))
			continue;
		n = strtol(de->d_name + 4, &end, 10);
		if (end != de->d_name + 4 && !*end) {
			node = (int)n;
			break;
		}
	}
	closedir(d);
	return node;
}

/* Zone and node of @pfn from the zone spans; -1 if no span holds it. */
static int span_of_pfn(const struct census_ctx *ctx, uint64_t pfn, int *node,
		       enum census_zone *zone)
{
	int i;

	for (i = 0; i < ctx->nspans; i++)
		if (ctx->spans[i].spanned && pfn >= ctx->spans[i].start_pfn &&
		    pfn < ctx->spans[i].start_pfn + ctx->spans[i].spanned) {
			*zone = ctx->spans[i].zone;
			*node = ctx->spans[i].node;
			return 0;
		}
	return -1;
}

int census_block_of_pfn(struct census_ctx *ctx, uint64_t pfn, int *node, enum census_zone *zone)
{
	uint64_t block = pfn * (uint64_t)ctx->page_size / ctx->block_size;
	char path[128], buf[128];

	if (block == ctx->last_block) {
		*node = ctx->last_node;
		*zone = ctx->last_zone;
		return 0;
	}
	if (block == ctx->mixed_block && span_of_pfn(ctx, pfn, node, zone) == 0)
		return 0;
	snprintf(path, sizeof(path), PATH_SYS_MEMORY "/memory%" PRIu64 "/valid_zones", block);
	if (read_attr(ctx, path, buf, sizeof(buf)) < 0)
		return -1;
	/*
	 * An online block names exactly its zone; several names mean not online,
	 * "none" an online block that spans zones: then the zone spans decide.
	 */
	*zone = strchr(buf, ' ') ? CENSUS_ZONE_OTHER : census_zone_parse(buf);
	if (!strncmp(buf, "none", 4) && span_of_pfn(ctx, pfn, node, zone) == 0) {
		ctx->mixed_block = block;	/* the next page may be in another zone */
		return 0;
	}
	*node = block_node(ctx, block);
	if (*node < 0)
		return -1;
	ctx->last_block = block;
	ctx->last_node = *node;
	ctx->last_zone = *zone;
	return 0;
}

int census_take(struct census_ctx *ctx, const void *addr, size_t len,
		struct census *out, uint64_t *pfns)
{
	uint64_t first = (uintptr_t)addr / ctx->page_size;
	uint64_t n = len / ctx->page_size, i, done = 0;
	uint64_t chunk[512];

	memset(out, 0, sizeof(*out));
	while (done < n) {
		uint64_t want = n - done < 512 ? n - done : 512;
		ssize_t got = pread(ctx->pagemap_fd, chunk, want * sizeof(uint64_t),
				    (off_t)((first + done) * sizeof(uint64_t)));

		if (got <= 0)
			return -1;
		want = (uint64_t)got / sizeof(uint64_t);
		for (i = 0; i < want; i++) {
			enum census_zone zone;
			uint64_t pfn = 0;
			int node;

			out->pages++;
			if (!census_pagemap_pfn(chunk[i], &pfn)) {
				if (chunk[i] & PM_PRESENT)
					out->unknown++;
				else
					out->not_present++;
			} else if (census_block_of_pfn(ctx, pfn, &node, &zone) < 0 ||
				   node >= CENSUS_MAX_NODES) {
				out->unknown++;
			} else {
				uint64_t fl = page_flags(ctx, pfn);

				out->node[node]++;
				out->zone[zone]++;
				out->node_zone[node][zone]++;
				out->zero += pfn == ctx->zero_pfn || (fl >> KPF_ZERO_PAGE & 1);
				out->thp += fl >> KPF_THP & 1;
				out->cma += in_cma(ctx, pfn);
			}
			if (pfns)
				pfns[done + i] = pfn;
		}
		done += want;
	}
	return 0;
}

void census_print_json(FILE *f, const struct census *c)
{
	const char *sep = "";
	int z, n;

	fprintf(f, "{" MHL_PIN_KEY(MHL_PIN_K_PAGES) "%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_NOT_PRESENT) "%" PRIu64
		"," MHL_PIN_KEY(MHL_PIN_K_UNKNOWN) "%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_ZERO) "%" PRIu64
		"," MHL_PIN_KEY(MHL_PIN_K_THP) "%" PRIu64 "," MHL_PIN_KEY(MHL_PIN_K_CMA) "%" PRIu64,
		c->pages, c->not_present, c->unknown, c->zero, c->thp, c->cma);
	fputs("," MHL_PIN_KEY(MHL_PIN_K_BY_ZONE) "{", f);
	for (z = 0; z < CENSUS_ZONE_LAST; z++, sep = ",")
		fprintf(f, "%s\"%s\":%" PRIu64, sep, census_zone_names[z], c->zone[z]);
	fputs("}," MHL_PIN_KEY(MHL_PIN_K_BY_NODE) "{", f);
	sep = "";
	for (n = 0; n < CENSUS_MAX_NODES; n++) {
		const char *zsep = "";

		if (!c->node[n])
			continue;
		fprintf(f, "%s\"%d\":{" MHL_PIN_KEY(MHL_PIN_K_PAGES) "%" PRIu64, sep, n, c->node[n]);
		for (z = 0; z < CENSUS_ZONE_LAST; z++) {
			if (!c->node_zone[n][z])
				continue;
			fprintf(f, "%s\"%s\":%" PRIu64, zsep[0] ? zsep : ",", census_zone_names[z],
				c->node_zone[n][z]);
			zsep = ",";
		}
		fputc('}', f);
		sep = ",";
	}
	fputs("}}", f);
}
