/*
 * tests/unit/census.c - the pagemap -> memory block -> node/zone census
 * (workloads/census.c) on a fake sysfs tree, as lsmem --sysroot: 4 blocks of
 * 128 MiB; 0-1 node 0 (DMA32, Normal), 2 node 1 Movable, 3 spanning. The
 * cases run in order and build on each other: the fake files are written,
 * a census is taken, then its counts are judged one by one.
 */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "census.h"
#include "unit.h"

#define PRESENT		(1ULL << 63)
#define PER_BLOCK	((uint64_t)(128ULL << 20) / 4096)	/* pages per memory block */
#define BUF_VPAGE	16			/* the buffer "lives" at virtual page 16 */
#define NPAGES		6

static struct {
	char *root;		/* the fake sysroot */
	char *pagemap;
	struct census_ctx cx;
	struct census c;
	uint64_t entries[NPAGES], pfns[NPAGES];
} f = { .cx = { .pagemap_fd = -1, .kpageflags_fd = -1 } };

static void censusSetup(void)
{
	static const char *const zones[] = { "DMA32", "Normal", "Movable", "DMA DMA32" };
	static const int nodes[] = { 0, 0, 1, 0 };
	g_autofree char *mem = NULL;
	int i;

	f.root = g_build_filename(unitTmpdir, "sys", NULL);
	f.pagemap = g_build_filename(unitTmpdir, "pagemap", NULL);
	mem = g_build_filename(f.root, "sys/devices/system/memory", NULL);
	g_mkdir_with_parents(mem, 0755);
	g_free(unitWriteTmp("sys/sys/devices/system/memory/block_size_bytes", "8000000\n"));
	for (i = 0; i < 4; i++) {
		g_autofree char *b = g_strdup_printf("%s/memory%d", mem, i);
		g_autofree char *n = g_strdup_printf("%s/node%d", b, nodes[i]);
		g_autofree char *z = g_strdup_printf("%s/valid_zones", b);
		g_autofree char *zz = g_strdup_printf("%s\n", zones[i]);

		g_mkdir_with_parents(n, 0755);
		g_file_set_contents(z, zz, -1, NULL);
	}
	/* Pages: 2 in block 2 (Movable/node1), 1 in block 0, 1 in block 3, 1 absent, 1 hidden PFN. */
	f.entries[0] = PRESENT | (2 * PER_BLOCK + 5);
	f.entries[1] = PRESENT | (2 * PER_BLOCK + 6);
	f.entries[2] = PRESENT | 7;
	f.entries[3] = PRESENT | (3 * PER_BLOCK);
	f.entries[4] = 0;
	f.entries[5] = PRESENT;
}

static void censusTeardown(void)
{
	census_fini(&f.cx);
	g_clear_pointer(&f.root, g_free);
	g_clear_pointer(&f.pagemap, g_free);
}

/* The entries at the buffer's place in the fake pagemap (8 bytes per virtual page). */
static bool pagemapWrite(int flags)
{
	int fd = open(f.pagemap, flags, 0644);
	bool ok = fd >= 0 && pwrite(fd, f.entries, sizeof(f.entries), BUF_VPAGE * 8) == sizeof(f.entries);

	if (fd >= 0)
		close(fd);
	return ok;
}

static int censusInit(const char *root)
{
	census_fini(&f.cx);
	return census_init(&f.cx, root, f.pagemap);
}

static int censusTake(void)
{
	return census_take(&f.cx, (void *)(uintptr_t)(BUF_VPAGE * 4096), NPAGES * 4096, &f.c, f.pfns);
}

static bool pagemapWritten(void)
{
	return unitExpect(pagemapWrite(O_WRONLY | O_CREAT | O_TRUNC));
}

static bool pfnPresent(void)
{
	uint64_t pfn;

	return unitExpect(census_pagemap_pfn(PRESENT | 42, &pfn) == 1 && pfn == 42);
}

static bool pfnAbsent(void)
{
	uint64_t pfn;

	return unitExpect(census_pagemap_pfn(42, &pfn) == 0);
}

static bool zoneMovable(void)
{
	return unitExpect(census_zone_parse("Movable\n") == CENSUS_ZONE_MOVABLE);
}

static bool zoneUnknown(void)
{
	return unitExpect(census_zone_parse("Weird") == CENSUS_ZONE_OTHER);
}

static bool blockSizeHex(void)
{
	return unitExpect(censusInit(f.root) == 0 && f.cx.block_size == 128ULL << 20);
}

static bool taken(void)
{
	return unitExpect(censusTake() == 0);
}

static bool absentAndHidden(void)
{
	return unitExpect(f.c.pages == 6 && f.c.not_present == 1 && f.c.unknown == 1);
}

static bool node1Movable(void)
{
	return unitExpect(f.c.zone[CENSUS_ZONE_MOVABLE] == 2 && f.c.node_zone[1][CENSUS_ZONE_MOVABLE] == 2);
}

static bool node0(void)
{
	return unitExpect(f.c.zone[CENSUS_ZONE_DMA32] == 1 && f.c.node[0] == 2);
}

static bool severalZones(void)
{
	return unitExpect(f.c.zone[CENSUS_ZONE_OTHER] == 1);
}

static bool pfnsRecorded(void)
{
	return unitExpect(f.pfns[0] == 2 * PER_BLOCK + 5 && f.pfns[4] == 0);
}

static const char cmaLog[] =
	"<6>[    0.000000] cma: Reserved 192 MiB at 0x0000000040000000 on node 1\n"
	"<6>[    0.000000] other: Reserved 4 MiB at 0x1000\n"
	"<6>[    0.000000] cma: Reserved 16 MiB at 0x0000000020000000\n";

static bool cmaAreas(void)
{
	struct census_range r[4];
	int nr = census_parse_cma_log(cmaLog, r, 4);

	return unitExpect(nr == 2 && r[0].start_pfn == 0x40000 && r[0].nr_pages == 49152 &&
			  r[1].start_pfn == 0x20000 && r[1].nr_pages == 4096);
}

static bool cmaAtMost(void)
{
	struct census_range r[1];

	return unitExpect(census_parse_cma_log(cmaLog, r, 1) == 1);
}

/*
 * Block 3 spans DMA and DMA32 ("none"): zoneinfo's spans decide per page.
 * kpageflags: pfn 2 * PER_BLOCK + 5 is a THP page, + 6 the zero page.
 */
static bool kpageflagsWritten(void)
{
	g_autofree char *zi = g_strdup_printf(
		"Node 0, zone      DMA\n  pages free     3840\n        spanned  %" PRIu64 "\n"
		"  start_pfn:           %" PRIu64 "\n"
		"Node 0, zone    DMA32\n  pages free     1\n        spanned  %" PRIu64 "\n"
		"  start_pfn:           %" PRIu64 "\n",
		PER_BLOCK / 2, 3 * PER_BLOCK, PER_BLOCK / 2, 3 * PER_BLOCK + PER_BLOCK / 2);
	g_autofree char *procdir = g_build_filename(f.root, "proc", NULL);
	g_autofree char *kpfpath = g_build_filename(f.root, "proc", "kpageflags", NULL);
	uint64_t kpf[2] = { 1ULL << 22, 1ULL << 24 };	/* KPF_THP, KPF_ZERO_PAGE */
	bool ok;
	int fd;

	g_free(unitWriteTmp("sys/sys/devices/system/memory/memory3/valid_zones", "none\n"));
	g_mkdir_with_parents(procdir, 0755);
	g_free(unitWriteTmp("sys/proc/zoneinfo", zi));
	fd = open(kpfpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok = fd >= 0 && pwrite(fd, kpf, 8, (off_t)((2 * PER_BLOCK + 5) * 8)) == 8 &&
	     pwrite(fd, &kpf[1], 8, (off_t)((2 * PER_BLOCK + 6) * 8)) == 8;
	if (fd >= 0)
		close(fd);
	return unitExpect(ok);
}

static bool pagemapRewritten(void)
{
	f.entries[4] = PRESENT | (3 * PER_BLOCK + PER_BLOCK / 2 + 1);	/* DMA32 half of block 3 */
	return unitExpect(pagemapWrite(O_WRONLY));
}

static bool initWithZoneinfo(void)
{
	return unitExpect(censusInit(f.root) == 0);
}

static bool spanSplit(void)
{
	f.cx.zero_pfn = 7;
	f.cx.ncma = 1;
	f.cx.cma[0].start_pfn = 2 * PER_BLOCK;
	f.cx.cma[0].nr_pages = 6;
	return unitExpect(censusTake() == 0 && f.c.zone[CENSUS_ZONE_DMA] == 1 &&
			  f.c.zone[CENSUS_ZONE_DMA32] == 2 && f.c.zone[CENSUS_ZONE_OTHER] == 0);
}

static bool thpZeroCma(void)
{
	return unitExpect(f.c.thp == 1 && f.c.zero == 2 && f.c.cma == 1);
}

static bool missingTree(void)
{
	return unitExpect(censusInit("/nonexistent") < 0 && errno == ENOENT);
}

static const unitCase cases[] = {
	{ "census: fake pagemap written", pagemapWritten },
	{ "pagemap: present entry gives its PFN", pfnPresent },
	{ "pagemap: entry without the present bit is skipped", pfnAbsent },
	{ "zone: 'Movable' parses", zoneMovable },
	{ "zone: unknown name is 'other'", zoneUnknown },
	{ "census: block_size_bytes read as hex (128 MiB)", blockSizeHex },
	{ "census: 6 pages taken", taken },
	{ "census: 1 absent, 1 hidden PFN", absentAndHidden },
	{ "census: 2 pages in node 1 Movable", node1Movable },
	{ "census: node 0 has 2 pages, 1 in DMA32", node0 },
	{ "census: a block listing several zones counts as 'other'", severalZones },
	{ "census: PFNs recorded per page", pfnsRecorded },
	{ "census: CMA areas from the boot log (6.12 and 6.1 wording), others ignored", cmaAreas },
	{ "census: CMA areas: at most as many as asked", cmaAtMost },
	{ "census: fake kpageflags written", kpageflagsWritten },
	{ "census: fake pagemap rewritten", pagemapRewritten },
	{ "census: init with zoneinfo and kpageflags", initWithZoneinfo },
	{ "census: a block spanning DMA and DMA32 is split per page by zoneinfo's spans", spanSplit },
	{ "census: 1 THP page (kpageflags), 2 zero-page mappings (PFN, KPF_ZERO_PAGE), 1 page in CMA",
	  thpZeroCma },
	{ "census: missing sysfs tree fails with ENOENT", missingTree },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

/* chained: -t census/CASE runs the cases before CASE too */
const unitModule unitCensus = UNIT_MODULE_CHAINED("census", censusSetup, censusTeardown, tables);
