/*
 * tests/unit/guest.c - what the host reads from and about the guest
 * (orchestrator/guest/guest.h): QMP's memory devices, /proc/vmstat,
 * /proc/zoneinfo, memory block states and the serial console's findings;
 * and, the guest being untrusted, its text (console, agent replies, command
 * output) and JSON of the wrong type, down to the expect checks reading it.
 */
#include <glib.h>

#include <stdio.h>
#include <string.h>

#include "guest/agent.h"
#include "guest/console-stream.h"
#include "guest/guest.h"
#include "guest/hotplug.h"
#include "scenario/scenario.h"
#include "trial/steps.h"
#include "unit.h"
#include "util.h"

static const char qmpDevices[] = "{\"return\":[{\"type\":\"dimm\",\"data\":{\"node\":1,\"size\":5}},"
	"{\"type\":\"virtio-mem\",\"data\":{\"node\":1,\"size\":268435456,"
	"\"requested-size\":0,\"id\":\"virtiomem0\"}}]}";

/* The string @key of element @i of array @a, "" when absent. */
static const char *elemStr(json_object *a, size_t i, const char *key)
{
	const char *s = json_object_get_string(json_object_object_get(json_object_array_get_idx(a, i), key));

	return s ? s : "";
}

static bool qmpNode1(void)
{
	unsigned long long size = 0, req = 1;

	return unitExpect(mhlParseMemoryDevices(qmpDevices, 1, &size, &req) == 0 && size == 268435456 && req == 0);
}

static bool qmpNode0(void)
{
	unsigned long long size = 0, req = 1;

	return unitExpect(mhlParseMemoryDevices(qmpDevices, 0, &size, &req) < 0);
}

/* dimm: the DIMM by its alias among the devices; another alias is none. */
static bool qmpDimm(void)
{
	static const char reply[] = "{\"return\":[{\"type\":\"dimm\",\"data\":{\"slot\":0,\"node\":1,"
		"\"addr\":4294967296,\"memdev\":\"/objects/memua-dimm-d\",\"id\":\"ua-dimm-d\","
		"\"hotpluggable\":true,\"hotplugged\":true,\"size\":268435456}}]}";
	mhlDimmInfo d = { 0 };
	bool ok = mhlParseDimm(reply, "ua-dimm-d", &d) == 0 && d.slot == 0 && d.node == 1 &&
		  d.addr == 4294967296ULL && d.size == 268435456ULL && mhlParseDimm(reply, "ua-dimm-e", &d) < 0;

	mhlErrorReset();
	return unitExpect(ok);
}

/* dimm: a stuck DIMM's blocks: only those in its range, each with its state and zones; junk skipped. */
static bool blocksRange(void)
{
	g_autoptr(json_object) b = mhlParseBlocksRange("8000000\nmemory31 online Normal\nmemory32 going-offline Movable Normal\n"
						       "memory33 online Movable\nmemory34 online Movable\nmemoryX online\njunk\n",
						       4294967296ULL, 268435456ULL);

	return unitExpect(b && json_object_array_length(b) == 2 &&
			  json_object_get_int64(json_object_object_get(json_object_array_get_idx(b, 0), "block")) == 32 &&
			  !strcmp(elemStr(b, 0, "state"), "going-offline") && !strcmp(elemStr(b, 0, "valid_zones"), "Movable Normal") &&
			  !strcmp(elemStr(b, 1, "state"), "online"));
}

/* dimm: a block size that is no power of two in hex is refused, not guessed. */
static bool blocksRangeBad(void)
{
	json_object *b = mhlParseBlocksRange("12x\nmemory32 online Movable\n", 0, 1ULL << 40);
	bool ok = !b && strstr(mhlErrorLast(), "block size");

	mhlErrorReset();
	return unitExpect(ok);
}

static bool vmstat(void)
{
	g_autoptr(json_object) vm = mhlParseVmstat("nr_free_pages 123\nnr_foll_pin_acquired 32768\nbad\n");
	json_object *v;

	return unitExpect(vm && json_object_object_get_ex(vm, "nr_foll_pin_acquired", &v) &&
			  json_object_get_int64(v) == 32768 && json_object_object_length(vm) == 2);
}

static bool zoneinfo(void)
{
	g_autoptr(json_object) zi = mhlParseZoneinfo("Node 0, zone    DMA32\n  pages free     1000\n"
		"        spanned  2000\n        present  1900\n        managed  1800\n"
		"Node 1, zone  Movable\n  pages free     7\n        present  262144\n");

	return unitExpect(zi && json_object_array_length(zi) == 2 &&
			  json_object_get_int64(json_object_object_get(json_object_array_get_idx(zi, 1), "present")) == 262144 &&
			  !strcmp(elemStr(zi, 1, "zone"), "Movable"));
}

static bool memoryBlocks(void)
{
	g_autoptr(json_object) mb = mhlParseMemoryBlocks("memory0 online DMA32\nmemory8 online Movable\n"
							  "memory9 online Movable\nmemory10 offline Movable Normal\n");

	return unitExpect(mb && json_object_get_int(json_object_object_get(mb, "online")) == 3 &&
			  json_object_get_int(json_object_object_get(mb, "offline")) == 1 &&
			  json_object_get_int(json_object_object_get(json_object_object_get(mb, "online_by_zone"),
								     "Movable")) == 2);
}

static bool meminfo(void)
{
	g_autoptr(json_object) mi = mhlParseMeminfo(
		"MemTotal:        1398456 kB\nMemFree:         1200000 kB\nSReclaimable:      10240 kB\n"
		"SUnreclaim:        20480 kB\nVmallocUsed:       3000 kB\nPercpu:             800 kB\n"
		"KernelStack:       1024 kB\nPageTables:         512 kB\nHugePages_Total:       2\n"
		"Hugetlb:           4096 kB\nSUnreclaim: 99999999999999999999 kB\nVmallocUsed: 7 MB\n");

	return unitExpect(mhlJInt(mi, "slab_unreclaimable_bytes", -1) == 20480LL * 1024 &&
			  mhlJInt(mi, "slab_reclaimable_bytes", -1) == 10240LL * 1024 &&
			  mhlJInt(mi, "vmalloc_bytes", -1) == 3000LL * 1024 &&
			  mhlJInt(mi, "percpu_bytes", -1) == 800LL * 1024 &&
			  mhlJInt(mi, "kernel_stack_bytes", -1) == 1024LL * 1024 &&
			  mhlJInt(mi, "page_tables_bytes", -1) == 512LL * 1024 &&
			  mhlJInt(mi, "hugepages_total", -1) == 2 && mhlJInt(mi, "hugetlb_bytes", -1) == 4096LL * 1024 &&
			  mhlJInt(mi, "mem_free_bytes", -1) == 1200000LL * 1024 && !mhlJ(mi, "MemTotal"));
}

static bool slabinfo(void)
{
	g_autoptr(json_object) si = mhlParseSlabinfo(
		"slabinfo - version: 2.1\n"
		"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n"
		"kmalloc-2k           270    272   2048   16    8 : tunables    0    0    0 : slabdata     17     17      0\n"
		"io<b>\"x           10     20     64   64    1 : tunables    0    0    0 : slabdata      1      1      0\n"
		"empty                  0      0    128   32    1 : tunables    0    0    0 : slabdata      0      0      0\n"
		"toomany               9      3    128   32    1 : tunables    0    0    0 : slabdata      1      1      0\n"
		"cut 1 2\n");
	json_object *k2 = mhlJ(si, "kmalloc-2k");

	return unitExpect(si && json_object_object_length(si) == 2 && k2 &&
			  json_object_get_int64(json_object_array_get_idx(k2, 0)) == 270 &&
			  json_object_get_int64(json_object_array_get_idx(k2, 1)) == 272 &&
			  json_object_get_int64(json_object_array_get_idx(k2, 2)) == 2048 &&
			  json_object_get_int64(json_object_array_get_idx(k2, 3)) == 17 * 8 * 4096 &&
			  mhlJ(si, "io?b??x") && !mhlJ(si, "empty") && !mhlJ(si, "toomany"));
}

static bool slabinfoRefused(void)
{
	g_autoptr(json_object) si = mhlParseSlabinfo("cat: /proc/slabinfo: No such file or directory\n");

	return unitExpect(!si && strstr(mhlErrorLast(), "slabinfo - version") && !mhlParseSlabinfo(NULL));
}

/*
 * A guest reply quoted in an error is cut between two characters: "x" and
 * 100 euro signs (3 bytes each) cut at 200 (QMP), 80 (MemTotal/online) and
 * 60 (slabinfo) bytes each falls inside a character; "%.Ns" left its first
 * bytes and the message was no longer UTF-8 (issue 30, finding 15).
 */
static int euroQuoted(const char *msg)
{
	const char *p = strstr(msg, ": 'x");
	int n = 0;

	for (p = p ? p + 4 : msg + strlen(msg); g_str_has_prefix(p, "\xe2\x82\xac"); p += 3)
		n++;
	return *p == '\'' ? n : -1;
}

static bool guestQuoteCut(void)
{
	g_autoptr(GString) reply = g_string_new("x");
	g_autofree char *qmp = NULL, *online = NULL, *slab = NULL;
	g_autoptr(json_object) si = NULL;
	unsigned long long size, req;
	guint64 mt;
	int i, on;

	for (i = 0; i < 100; i++)
		g_string_append(reply, "\xe2\x82\xac");
	mhlErrorReset();
	if (mhlParseMemoryDevices(reply->str, 1, &size, &req) == 0)
		return unitExpect(false);
	qmp = g_strdup(mhlErrorLast());
	mhlErrorReset();
	if (mhlParseMemOnline(reply->str, &mt, &on) == 0)
		return unitExpect(false);
	online = g_strdup(mhlErrorLast());
	mhlErrorReset();
	if ((si = mhlParseSlabinfo(reply->str)))
		return unitExpect(false);
	slab = g_strdup(mhlErrorLast());
	/* the quotes hold "x" and 66 (199 bytes), 26 (79) and 19 (58) whole euro signs, then the closing quote */
	return unitExpect(g_utf8_validate(qmp, -1, NULL) && g_utf8_validate(online, -1, NULL) &&
			  g_utf8_validate(slab, -1, NULL) && euroQuoted(qmp) == 66 && euroQuoted(online) == 26 &&
			  euroQuoted(slab) == 19);
}

/* HMP info mtree of QEMU 10.0 with dynamic memslots (abridged), device-memory listed twice. */
static const char *const mtreeDyn =
	"address-space: memory\n"
	"  0000000000000000-ffffffffffffffff (prio 0, i/o): system\n"
	"    0000000100000000-000000023fffffff (prio 0, i/o): device-memory\n"
	"      0000000100000000-00000001ffffffff (prio 0, i/o): virtio-mem\n"
	"        0000000100000000-000000013fffffff (prio 0, ram): alias memslot-0 @memvirtiomem0 0000000000000000-000000003fffffff\n"
	"        0000000140000000-000000017fffffff (prio 0, ram): alias memslot-1 @memvirtiomem0 0000000040000000-000000007fffffff\n"
	"        0000000200000000-000000023fffffff (prio 0, ram): alias memslot-0 @memvirtiomem1 0000000000000000-000000003fffffff\n"
	"\n"
	"address-space: device-memory\n"
	"  0000000100000000-000000023fffffff (prio 0, i/o): device-memory\n"
	"    0000000100000000-00000001ffffffff (prio 0, i/o): virtio-mem\n"
	"      0000000100000000-000000013fffffff (prio 0, ram): alias memslot-0 @memvirtiomem0 0000000000000000-000000003fffffff\n"
	"      0000000140000000-000000017fffffff (prio 0, ram): alias memslot-1 @memvirtiomem0 0000000040000000-000000007fffffff\n"
	"      0000000180000000-00000001bfffffff (prio 0, ram): alias memslot-10 @memvirtiomem10 0000000000000000-000000003fffffff\n";

/* Each memslot of the device once, whatever address space lists it; another device's (memvirtiomem1, 10) not. */
static bool memslots(void)
{
	return unitExpect(mhlParseMemslots(mtreeDyn, "memvirtiomem0") == 2 &&
			  mhlParseMemslots(mtreeDyn, "memvirtiomem1") == 1 &&
			  mhlParseMemslots(mtreeDyn, "memvirtiomem2") == 0 &&
			  mhlParseMemslots("", "memvirtiomem0") == 0);
}

/* Two objects from one site behind the allocators, one whose trace has only allocators; a 6.1-style header. */
static bool kmemleak(void)
{
	g_autoptr(json_object) km = mhlParseKmemleak(
		"unreferenced object 0xffff888004b3c000 (size 8192):\n"
		"  comm \"memhp-pin\", pid 231, jiffies 4294901234\n"
		"  hex dump (first 32 bytes):\n"
		"    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................\n"
		"  backtrace (crc 5f0e1b2a):\n"
		"    [<ffffffff8123abcd>] __kmalloc_noprof+0x1a0/0x2c0\n"
		"    [<ffffffff8145ef01>] io_uring_setup+0x3c1/0x9a0\n"
		"    [<ffffffff8145ef99>] __x64_sys_io_uring_setup+0x11/0x20\n"
		"unreferenced object 0xffff888004b3e000 (size 8192):\n"
		"  backtrace:\n"
		"    [<ffffffff8123abcd>] kmalloc_trace+0x1a0/0x2c0\n"
		"    [<ffffffff8145ef01>] io_uring_setup+0x3c1/0x9a0\n"
		"unreferenced object 0xffff888004b40000 (size 64):\n"
		"  backtrace (crc 0):\n"
		"    [<ffffffff8123abcd>] kmem_cache_alloc_noprof+0x1/0x2\n"
		"unreferenced object 0xffff888004b40000 (size 32):\n"
		"  backtrace (crc 0):\n"
		"    [<ffffffff8123abcd>] <bad>\"name+0x1/0x2\n"
		"unreferenced object 0xffff8880027be380 (size 32):\n"
		"  comm \"memhp-pin\", pid 103, jiffies 4294894116\n"
		"  hex dump (first 32 bytes):\n"
		"    a0 e3 7b 02 80 88 ff ff 00 00 00 00 00 00 00 00  ..{.............\n"
		"  backtrace (crc 96e0142e):\n"
		"    kmemleak_alloc+0x24/0x30\n"
		"    __kmalloc_cache_noprof+0x10b/0x1e0\n"
		"    kmemleak_test_init+0x2f/0x310 [kmemleak_test]\n"
		"    do_one_initcall+0x76/0x1b0\n");
	json_object *top = json_object_array_get_idx(mhlJ(km, "sites"), 0);
	g_autoptr(json_object) none = mhlParseKmemleak("");

	return unitExpect(mhlJInt(km, "objects", 0) == 5 && mhlJInt(km, "bytes", 0) == 16384 + 128 &&
			  json_object_array_length(mhlJ(km, "sites")) == 4 &&
			  !strcmp(mhlJStr(top, "site", ""), "io_uring_setup") && mhlJInt(top, "objects", 0) == 2 &&
			  mhlJInt(top, "bytes", 0) == 16384 &&
			  !strcmp(mhlJStr(json_object_array_get_idx(mhlJ(km, "sites"), 1), "site", ""), "?") &&
			  !strcmp(mhlJStr(json_object_array_get_idx(mhlJ(km, "sites"), 2), "site", ""), "?bad??name") &&
			  !strcmp(mhlJStr(json_object_array_get_idx(mhlJ(km, "sites"), 3), "site", ""), "kmemleak_test_init") &&
			  mhlJInt(none, "objects", -1) == 0 && json_object_array_length(mhlJ(none, "sites")) == 0);
}

static bool console(void)
{
	g_autoptr(json_object) cs = mhlConsoleScan(
		"Booting from ROM..\n[    1.5] WARNING: CPU: 0 PID: 1 at mm/gup.c:42\n"
		"user says BUG: not a kernel line\n[  12.000001] Kernel panic - not syncing\n"
		"\x1b[2J[    0.1] normal line\n");

	return unitExpect(cs && json_object_array_length(cs) == 2 && !strcmp(elemStr(cs, 0, "kind"), "warning") &&
			  !strcmp(elemStr(cs, 1, "kind"), "panic"));
}

/* ---- the console: the guest may print anything ---- */

/* Valid UTF-8, no control character: what XML and JSON carry. */
static bool textFit(const char *s)
{
	const char *p;

	if (!s || !g_utf8_validate(s, -1, NULL))
		return false;
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* The text of finding @i, "" when there is none. */
static const char *findingText(json_object *f, size_t i)
{
	return elemStr(f, i, "text");
}

static bool consoleEscapes(void)
{
	g_autoptr(json_object) cs = mhlConsoleScan(
		"\x1b[0m[    1.5] WARNING: CPU: 0 PID: 1 at mm/gup.c:42\r\n"
		"\x1b[1;31m[    2.0] \x1b[0mKernel panic - not syncing\r\n"
		"\x1b]0;title\x07[    3.0] Oops: 0002 [#1] SMP\n");

	if (json_object_array_length(cs) != 3)
		unitDiag("%zu finding(s): %s", json_object_array_length(cs), json_object_to_json_string(cs));
	return unitExpect(json_object_array_length(cs) == 3 && !strcmp(elemStr(cs, 1, "kind"), "panic") &&
			  !strcmp(findingText(cs, 0), "[    1.5] WARNING: CPU: 0 PID: 1 at mm/gup.c:42") &&
			  !strcmp(findingText(cs, 1), "[    2.0] Kernel panic - not syncing") &&
			  !strcmp(elemStr(cs, 2, "kind"), "oops"));
}

/* A log file of @len bytes of @text under the scratch directory; its path. */
static char *logWrite(const char *name, const char *text, gssize len)
{
	char *path = g_build_filename(unitTmpdir, name, NULL);

	g_file_set_contents(path, text, len, NULL);
	return path;
}

static bool consoleNul(void)
{
	static const char log[] = "[    0.1] boot\n\0\0\0 garbage\n"
		"[    3.0] Kernel panic - not syncing: Fatal exception\n";
	g_autofree char *path = logWrite("nul.console.log", log, sizeof(log) - 1);
	g_autoptr(json_object) f = NULL;
	mhlConsoleScanner sc;
	bool ok;

	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	mhlConsoleScanFile(&sc, path, true);
	f = mhlConsoleScanFindings(&sc);
	ok = json_object_array_length(f) == 1 && !strcmp(elemStr(f, 0, "kind"), "panic") &&
	     json_object_get_int(json_object_object_get(json_object_array_get_idx(f, 0), "line")) == 3;
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

static bool consoleTextFit(void)
{
	g_autofree char *longline = g_strdup_printf("[    4.0] WARNING: at mm/gup.c \xff\x1b[7m%s\n",
						    g_strnfill(10000, 'x'));
	g_autoptr(json_object) cs = mhlConsoleScan(longline);
	const char *t = findingText(cs, 0);

	return unitExpect(json_object_array_length(cs) == 1 && textFit(t) && strlen(t) <= MHL_CONSOLE_TEXT_MAX &&
			  g_str_has_prefix(t, "[    4.0] WARNING: at mm/gup.c \xef\xbf\xbdxxx"));
}

/*
 * The watcher reads only what was appended since its last look: a line
 * rewritten behind its offset is not seen again, lines keep their numbers,
 * a line not yet ended waits for its end.
 */
static bool consoleIncremental(void)
{
	static const char first[] = "[    0.1] boot line aaaa\n[    1.0] WARNING: one\n[    1.1] ok\n";
	static const char more[] = "[    5.0] WARNING: two\n[    6.0] Oops: cut";
	g_autofree char *path = logWrite("inc.console.log", first, -1);
	g_autoptr(json_object) f = NULL;
	mhlConsoleScanner sc;
	FILE *fp;
	bool ok;

	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	mhlConsoleScanFile(&sc, path, false);
	fp = fopen(path, "r+");
	fputs("[    0.1] BUG: rewrite!!\n", fp);	/* line 1 again, as long: behind the offset */
	fseek(fp, 0, SEEK_END);
	fputs(more, fp);
	fclose(fp);
	mhlConsoleScanFile(&sc, path, false);
	ok = sc.count == 2 && sc.offset == strlen(first) + strlen(more);
	mhlConsoleScanFile(&sc, path, true);
	f = mhlConsoleScanFindings(&sc);
	if (json_object_array_length(f) != 3)
		unitDiag("findings %s", json_object_to_json_string(f));
	ok = ok && json_object_array_length(f) == 3 && !strcmp(findingText(f, 0), "[    1.0] WARNING: one") &&
	     json_object_get_int(json_object_object_get(json_object_array_get_idx(f, 1), "line")) == 4 &&
	     json_object_get_int(json_object_object_get(json_object_array_get_idx(f, 2), "line")) == 5 &&
	     !strcmp(elemStr(f, 2, "kind"), "oops");
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

static bool consoleSplitFeed(void)
{
	g_autoptr(json_object) f = NULL;
	mhlConsoleScanner sc;
	bool ok;

	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	mhlConsoleScanFeed(&sc, "[    0.5] x\n[    1.0] WAR", strlen("[    0.5] x\n[    1.0] WAR"), false);
	mhlConsoleScanFeed(&sc, "NING: split\n", strlen("NING: split\n"), false);
	f = mhlConsoleScanFindings(&sc);
	ok = json_object_array_length(f) == 1 && !strcmp(findingText(f, 0), "[    1.0] WARNING: split") &&
	     json_object_get_int(json_object_object_get(json_object_array_get_idx(f, 0), "line")) == 2;
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

/* 1000 WARNINGs, then a panic: 100 kept, the panic, and the count of the rest. */
static bool consoleCapped(void)
{
	g_autoptr(GString) log = g_string_new(NULL);
	g_autofree char *path = NULL;
	g_autoptr(json_object) f = NULL;
	json_object *last;
	mhlConsoleScanner sc;
	int i;
	bool ok;

	for (i = 0; i < 1000; i++)
		g_string_append_printf(log, "[ %4d.0] WARNING: CPU: 0 PID: 1 at mm/gup.c:%d\n", i, i);
	g_string_append(log, "[ 1000.0] Kernel panic - not syncing: the end\n");
	path = logWrite("many.console.log", log->str, (gssize)log->len);
	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	mhlConsoleScanFile(&sc, path, true);
	f = mhlConsoleScanFindings(&sc);
	last = json_object_array_get_idx(f, json_object_array_length(f) - 1);
	ok = json_object_array_length(f) == MHL_CONSOLE_FINDINGS_MAX + 2 &&
	     !strcmp(elemStr(f, MHL_CONSOLE_FINDINGS_MAX, "kind"), "panic") &&
	     !strcmp(json_object_get_string(json_object_object_get(last, "kind")), "omitted") &&
	     json_object_get_int(json_object_object_get(last, "count")) == 900;
	if (!ok)
		unitDiag("%zu finding(s), count %" G_GINT64_FORMAT, json_object_array_length(f), sc.count);
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

/* One console line and what the scanner makes of it: its kind, or none (NULL). */
static const struct consoleRow {
	const char *line, *kind;
} consoleRows[] = {
	{ "[    1.0] WARNING: CPU: 0 PID: 1 at mm/gup.c:42 foo+0x1/0x2", "warning" },
	{ "[    1.0] BUG: unable to handle page fault for address: 0000000000000008", "bug" },
	{ "[    1.0] Oops: 0002 [#1] PREEMPT SMP NOPTI", "oops" },
	{ "[    1.0] Kernel panic - not syncing: Fatal exception", "panic" },
	{ "[    1.0] general protection fault, probably for non-canonical address 0xdead: 0000 [#1]", "gpf" },
	{ "[  243.1] INFO: task kworker/u4:1:42 blocked for more than 122 seconds.", "hung_task" },
	{ "[   60.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "rcu_stall" },
	{ "[   60.0] rcu_sched self-detected stall on CPU", "rcu_stall" },
	{ "[   60.0] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", "rcu_stall" },
	{ "[1.0] BUG: a stamp without padding", "bug" },
	{ "\x1b[0m[    1.0] WARNING: after an escape sequence", "warning" },
	{ "[    1.0] WARNING: a report with a line end\r", "warning" },
	{ "user says BUG: no stamp, no kernel line", NULL },
	{ "[    1.0 WARNING: no closing bracket", NULL },
	{ "[ boot ] WARNING: no seconds in the stamp", NULL },
	{ "[    1.0] warning: in lower case is no report", NULL },
	{ "[    1.0] Kernel PANIC in other words", NULL },
	/* as a terminal shows it (issue 30, finding 16): backspaces and carriage returns applied */
	{ "[    1.0] Kernel X\bpanic - not syncing: a backspace over the X", "panic" },
	{ "[\b[    1.0] Kernel panic - not syncing: the stamp's '[' typed twice", "panic" },
	{ "X\b[    1.0] Kernel panic - not syncing", "panic" },
	{ "[    1.0] Kernel \xc3\xa9\bpanic: one backspace over a two-byte character", "panic" },
	{ "[    1.0] Kernel X\x1b[0m\bpanic: an escape sequence takes no column", "panic" },
	{ "[    1.0] Kernel panic\b\b\b\b\b\b\b\b\b\b\b\bnothing here: overwritten", NULL },
	{ "[    1.0] Kernel panic\r[    1.0] all is well here: a carriage return, then over it", NULL },
	{ "\b\b\b[    1.0] BUG: backspaces at the line's start go nowhere", "bug" },
};

static bool consoleJudge(const void *row, GString *desc)
{
	const struct consoleRow *r = row;
	g_autoptr(json_object) cs = NULL;
	g_autofree char *shown = g_strescape(r->line, NULL);

	g_string_printf(desc, "console: '%s' is %s%s", shown, r->kind ? "a finding of kind " : "no finding",
			r->kind ? r->kind : "");
	if (unitListing)
		return true;
	cs = mhlConsoleScan(r->line);
	if (r->kind ? json_object_array_length(cs) != 1 || strcmp(elemStr(cs, 0, "kind"), r->kind) :
	    json_object_array_length(cs) != 0)
		unitDiag("got %s", json_object_to_json_string(cs));
	return unitExpect(r->kind ? json_object_array_length(cs) == 1 && !strcmp(elemStr(cs, 0, "kind"), r->kind) :
			  json_object_array_length(cs) == 0);
}

/* A panic and an Oops end a trial at once; the other kinds make a passing trial fail at its end. */
static bool consoleFatal(void)
{
	static const char *const fatal[] = { "panic", "oops" };
	static const char *const other[] = { "warning", "bug", "gpf", "hung_task", "rcu_stall", "omitted" };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(fatal); i++)
		if (!mhlConsoleKindFatal(fatal[i])) {
			unitDiag("%s is not fatal", fatal[i]);
			return unitExpect(false);
		}
	for (i = 0; i < G_N_ELEMENTS(other); i++)
		if (mhlConsoleKindFatal(other[i])) {
			unitDiag("%s is fatal", other[i]);
			return unitExpect(false);
		}
	return true;
}

/* The first fatal finding is the scanner's, even after a WARNING; lines count those without a stamp. */
static bool consoleFirstFatal(void)
{
	static const char log[] = "no stamp\n[    1.0] WARNING: first\n\n[    2.0] Oops: 0000 [#1]\n"
		"[    3.0] Kernel panic - not syncing: later\n";
	mhlConsoleScanner sc;
	bool ok;

	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	mhlConsoleScanFeed(&sc, log, strlen(log), true);
	ok = sc.fatal && !strcmp(mhlJStr(sc.fatal, MHL_K_KIND, ""), "oops") && mhlJInt(sc.fatal, MHL_K_LINE, 0) == 4 &&
	     sc.count == 3 && sc.line == 5;
	if (!ok)
		unitDiag("fatal %s, %" G_GINT64_FORMAT " finding(s), %" G_GINT64_FORMAT " line(s)",
			 sc.fatal ? json_object_to_json_string(sc.fatal) : "none", (gint64)sc.count, (gint64)sc.line);
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

/* A line past MHL_CONSOLE_LINE_MAX bytes is one line, one finding; the line after it is a line of its own. */
static bool consoleLongLine(void)
{
	g_autoptr(GString) log = g_string_new("[    1.0] WARNING: a long one ");
	g_autoptr(json_object) cs = NULL;

	while (log->len < 3 * MHL_CONSOLE_LINE_MAX)
		g_string_append(log, "x [    9.0] BUG: not a line of its own ");
	g_string_append(log, "\n[    2.0] Oops: 0000 [#1]\n");
	cs = mhlConsoleScan(log->str);
	if (json_object_array_length(cs) != 2)
		unitDiag("got %s", json_object_to_json_string(cs));
	return unitExpect(json_object_array_length(cs) == 2 && !strcmp(elemStr(cs, 0, "kind"), "warning") &&
			  !strcmp(elemStr(cs, 1, "kind"), "oops") &&
			  json_object_get_int(json_object_object_get(json_object_array_get_idx(cs, 1), "line")) == 2);
}

/*
 * A report far into a line that does not end (issue 30, finding 16): the
 * line is scanned whole through its window, a report across the window's cut
 * included, and a backspace still edits what has not left the window.
 */
static bool consoleFarInLine(void)
{
	static const size_t at[] = { 5000, 3 * MHL_CONSOLE_LINE_MAX, 100000 };
	size_t i, k;

	for (i = 0; i < G_N_ELEMENTS(at); i++) {
		g_autoptr(GString) log = g_string_new("[    1.0] ");
		g_autoptr(json_object) cs = NULL;

		for (k = 0; k < at[i]; k++)
			g_string_append_c(log, 'x');
		g_string_append(log, "Kernel panic - not syncing: far in");
		cs = mhlConsoleScan(log->str);
		if (json_object_array_length(cs) != 1 || strcmp(elemStr(cs, 0, "kind"), "panic") ||
		    !strstr(findingText(cs, 0), "Kernel panic") || strlen(findingText(cs, 0)) > MHL_CONSOLE_TEXT_MAX) {
			unitDiag("panic %zu bytes in: got %s", at[i], json_object_to_json_string(cs));
			return unitExpect(false);
		}
	}
	/* across the window's cuts: every position around them */
	for (k = MHL_CONSOLE_LINE_MAX / 2 - 40; k < MHL_CONSOLE_LINE_MAX + 40; k++) {
		g_autoptr(GString) log = g_string_new("[    1.0] ");
		g_autoptr(json_object) cs = NULL;

		while (log->len < k)
			g_string_append_c(log, 'y');
		g_string_append(log, "general protection fault\n");
		cs = mhlConsoleScan(log->str);
		if (json_object_array_length(cs) != 1) {
			unitDiag("a report at character %zu: got %zu finding(s)", k, json_object_array_length(cs));
			return unitExpect(false);
		}
	}
	{
		g_autoptr(GString) log = g_string_new("[    1.0] ");
		g_autoptr(json_object) cs = NULL;

		for (k = 0; k < 6000; k++)
			g_string_append_c(log, 'z');
		g_string_append(log, "Kernel X\bpanic\b\b\b\b\b\b\b\b\b\b\b\bKernel Xpanic\n");
		cs = mhlConsoleScan(log->str);
		if (json_object_array_length(cs) != 0) {
			unitDiag("overwritten 6000 characters in: got %s", json_object_to_json_string(cs));
			return unitExpect(false);
		}
	}
	return true;
}

/* Fed one byte at a time (UTF-8, escape sequences and backspaces cut between feeds), the same findings. */
static bool consoleByteFeeds(void)
{
	static const char log[] =
		"\x1b[1;31m[    1.0] \x1b[0mKernel \xc3\xa9\bpanic - not syncing\r\n"
		"\x1b]0;title\x07[    2.0] WARN\bWARNING: \xe2\x82\xac euro\n"
		"[    3.0] Oops\b\b\b\bnope\n[    4.0] BUG: cut \xe2\x82";
	g_autoptr(json_object) whole = mhlConsoleScan(log);
	g_autoptr(json_object) f = NULL;
	mhlConsoleScanner sc;
	size_t i;
	bool ok;

	mhlConsoleScannerInit(&sc, MHL_CONSOLE_FINDINGS_MAX);
	for (i = 0; i < sizeof(log) - 1; i++)
		mhlConsoleScanFeed(&sc, log + i, 1, false);
	mhlConsoleScanFeed(&sc, "", 0, true);
	f = mhlConsoleScanFindings(&sc);
	ok = json_object_array_length(whole) == 3 && json_object_equal(whole, f) &&
	     !strcmp(elemStr(f, 0, "kind"), "panic") && !strcmp(elemStr(f, 1, "kind"), "warning") &&
	     !strcmp(elemStr(f, 2, "kind"), "bug") && textFit(findingText(f, 2));
	if (!ok)
		unitDiag("whole %s, bytewise %s", json_object_to_json_string(whole), json_object_to_json_string(f));
	mhlConsoleScannerClear(&sc);
	return unitExpect(ok);
}

/* issue 32, item 23: a holder killed with SIGKILL: the OOM killer's own line, quoted */
static bool consoleOomLine(void)
{
	g_autofree char *path = g_build_filename(unitTmpdir, "oom.console.log", NULL);
	g_autofree char *none = g_build_filename(unitTmpdir, "no-oom.console.log", NULL);
	g_autofree char *got = NULL, *other = NULL;
	bool ok;

	ok = g_file_set_contents(path, "[    1.0] memhp-init: pin big\n"
				 "[    2.0] memhp-pin invoked oom-killer: gfp_mask=0x140dca\n"
				 "[    2.1] oom-kill:constraint=CONSTRAINT_NONE,task=memhp-pin,pid=77,uid=0\n"
				 "[    2.2] Out of memory: Killed process 77 (memhp-pin) total-vm:660000kB\n"
				 "[    2.3] Out of memory: Killed process 99 (sleep) total-vm:1kB\n", -1, NULL) &&
	     g_file_set_contents(none, "[    1.0] nothing here\n", -1, NULL);
	got = mhlConsoleOomLine(path, "memhp-pin");
	other = mhlConsoleOomLine(none, "memhp-pin");
	return unitExpect(ok && got && !strcmp(got, "[    2.2] Out of memory: Killed process 77 (memhp-pin) total-vm:660000kB") &&
			  !other && !mhlConsoleOomLine("/nonexistent/log", "memhp-pin"));
}

/*
 * A console log holds at most its cap (issue 30, finding 17): what the guest
 * writes past it is dropped and counted, and said at the log's end.
 */
static bool consoleLogCapped(void)
{
	g_autofree char *path = g_build_filename(unitTmpdir, "cap.console.log", NULL);
	g_autofree char *chunk = g_strnfill(10000, 'x'), *text = NULL;
	mhlConsoleLog log;
	gsize len = 0;
	int i;
	bool ok;

	g_setenv("MEMHP_CONSOLE_MAX", "64K", TRUE);
	ok = mhlConsoleLogOpen(&log, path, MHL_CONSOLE_LOG_NEW) == 0 && log.max == 65536;
	g_unsetenv("MEMHP_CONSOLE_MAX");
	for (i = 0; ok && i < 100; i++)
		ok = mhlConsoleLogWrite(&log, chunk, 10000) == 0;
	mhlConsoleLogClose(&log);
	/* the head (48 KiB), the note, the tail (16 KiB: one line, kept whole) */
	ok = ok && log.written == 65536 && log.dropped == 100 * 10000 - 65536 &&
	     g_file_get_contents(path, &text, &len, NULL) && len > 65536 && len < 65536 + 200 &&
	     g_str_has_prefix(text + 49152, "\n[memhp-lab: console log cut at 65536 bytes") &&
	     strspn(text + len - 16384, "x") == 16384;
	if (!ok)
		unitDiag("written %" G_GUINT64_FORMAT ", dropped %" G_GUINT64_FORMAT ", file %zu bytes",
			 log.written, log.dropped, (size_t)len);
	return unitExpect(ok);
}

/*
 * A flood, then a panic: the log keeps its head and its last lines (from a
 * line's start), so the panic that ends a flood is in the log, found by the
 * scanner and quoted by the report at its line; what is between is dropped,
 * counted and said where it was.
 */
static bool consoleLogCappedTail(void)
{
	g_autofree char *path = g_build_filename(unitTmpdir, "cap-tail.console.log", NULL);
	g_autofree char *whole = g_build_filename(unitTmpdir, "cap-whole.console.log", NULL);
	g_autofree char *text = NULL, *line = NULL, *chunk = g_strnfill(10000, 'x');
	const char *panic = "[    9.0] Kernel panic - not syncing: after the flood\n";
	mhlConsoleScanner sc;
	json_object *fs = NULL, *f;
	guint64 total = 0;
	mhlConsoleLog log;
	gsize len = 0;
	int i;
	bool ok;

	g_setenv("MEMHP_CONSOLE_MAX", "64K", TRUE);
	ok = mhlConsoleLogOpen(&log, path, MHL_CONSOLE_LOG_NEW) == 0;
	g_unsetenv("MEMHP_CONSOLE_MAX");
	for (i = 0; ok && i < 20000; i++) {
		g_free(line);
		line = g_strdup_printf("[    1.%06d] filler line %d\n", i, i);
		ok = mhlConsoleLogWrite(&log, line, strlen(line)) == 0;
		total += strlen(line);
	}
	ok = ok && mhlConsoleLogWrite(&log, panic, strlen(panic)) == 0;
	total += strlen(panic);
	mhlConsoleLogClose(&log);
	ok = ok && log.dropped > 0 && log.dropped < total - 32768 &&
	     g_file_get_contents(path, &text, &len, NULL) && len <= 65536 + 200 &&
	     g_str_has_prefix(text, "[    1.000000] filler line 0\n") &&
	     strstr(text, "console log cut") && g_str_has_suffix(text, panic) &&
	     /* the tail starts at a line's start, right after the note */
	     strstr(text, "dropped]\n[    1.");
	mhlConsoleScannerInit(&sc, 10);
	ok = ok && mhlConsoleScanFile(&sc, path, true) == 0;
	fs = mhlConsoleScanFindings(&sc);
	f = json_object_array_length(fs) == 1 ? json_object_array_get_idx(fs, 0) : NULL;
	ok = ok && f && !strcmp(mhlJStr(f, "kind", ""), "panic") &&
	     mhlJInt(f, "line", 0) == (gint64)sc.line;
	if (!ok)
		unitDiag("dropped %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", file %zu bytes, findings %s",
			 log.dropped, total, (size_t)len, json_object_to_json_string(fs));
	json_object_put(fs);
	mhlConsoleScannerClear(&sc);
	/* under the cap, past the head: the tail is the rest, kept whole, nothing said */
	g_setenv("MEMHP_CONSOLE_MAX", "64K", TRUE);
	ok = ok && mhlConsoleLogOpen(&log, whole, MHL_CONSOLE_LOG_NEW) == 0;
	g_unsetenv("MEMHP_CONSOLE_MAX");
	for (i = 0; ok && i < 6; i++)
		ok = mhlConsoleLogWrite(&log, chunk, 10000) == 0;
	mhlConsoleLogClose(&log);
	g_free(text);
	text = NULL;
	ok = ok && log.dropped == 0 && g_file_get_contents(whole, &text, &len, NULL) && len == 60000 &&
	     strspn(text, "x") == 60000;
	return unitExpect(ok);
}

/* A trial's log is created, never truncated: one there already (another trial's) is refused, untouched (finding 9). */
static bool consoleLogExclusive(void)
{
	g_autofree char *path = g_build_filename(unitTmpdir, "other.console.log", NULL), *text = NULL;
	mhlConsoleLog log;
	bool refused;

	g_file_set_contents(path, "[    1.0] Kernel panic - the other trial's\n", -1, NULL);
	refused = mhlConsoleLogOpen(&log, path, MHL_CONSOLE_LOG_NEW) < 0 && strstr(mhlErrorLast(), "other.console.log' exists already");
	if (!refused)
		mhlConsoleLogClose(&log);
	mhlErrorReset();
	return unitExpect(refused && g_file_get_contents(path, &text, NULL, NULL) &&
			  !strcmp(text, "[    1.0] Kernel panic - the other trial's\n"));
}

/* ---- the agent: replies and output are guest text ---- */

static bool agentOutputText(void)
{
	/* base64 of "\e[31mok\e[0m \xff\0end\r\n" */
	g_autofree char *b64 = g_base64_encode((const guchar *)"\x1b[31mok\x1b[0m \xff\0end\r\n", 19);
	g_autofree char *reply = g_strdup_printf("{\"return\":{\"exited\":true,\"exitcode\":0,\"out-data\":\"%s\"}}",
						 b64);
	mhlExecStatus st = { 0 };
	bool ok = mhlAgentParseExecStatus(reply, &st) == 0 && st.out &&
		  !strcmp(st.out, "ok \xef\xbf\xbd" "end\n");

	if (!ok)
		unitDiag("out '%s'", st.out ? st.out : "(null)");
	mhlExecStatusClear(&st);
	return unitExpect(ok);
}

static bool agentReplyQuoted(void)
{
	long long pid = 0;

	return unitExpect(mhlAgentParseExecPid("{\"return\":{\"pid\":\"\x1b[2J\xff\"}}", &pid) < 0 &&
			  textFit(mhlErrorLast()) && strstr(mhlErrorLast(), "no integer 'pid'"));
}

/* ---- guest JSON of the wrong type (mhlAgentJSONCheck) ---- */

static const mhlAgentField pinRows[] = {
	{ "ok", json_type_boolean, true },
	{ "pmd_mapped_after_split", json_type_int, false },
	MHL_AGENT_CENSUS("census_after"),
};

static const struct jsonCheckRow {
	const char *what, *json, *why;	/* why: in the error, NULL when the output passes */
} jsonChecks[] = {
	{ "a real pin's output passes",
	  "{\"ok\":true,\"census_after\":{\"pages\":65536,\"by_zone\":{\"DMA32\":43601,\"Movable\":0},"
	  "\"by_node\":{\"0\":{\"pages\":57837,\"DMA32\":35902}}}}", NULL },
	{ "the string \"false\" is no boolean ok", "{\"ok\":\"false\"}",
	  "the workload's \"ok\" is a string (\"false\"), not a boolean" },
	{ "an output without ok", "{\"pinned\":true}", "has no \"ok\" (a boolean)" },
	{ "a null by_zone.Movable is no page count", "{\"ok\":true,\"census_after\":{\"by_zone\":{\"Movable\":null}}}",
	  "\"census_after.by_zone.Movable\" is null, not an integer" },
	{ "a null pmd_mapped_after_split is no count", "{\"ok\":true,\"pmd_mapped_after_split\":null}",
	  "\"pmd_mapped_after_split\" is null, not an integer" },
	{ "a by_node that holds a number", "{\"ok\":true,\"census_after\":{\"by_node\":{\"1\":7}}}",
	  "\"census_after.by_node.1\" is an integer, not an object" },
};

static bool jsonCheckJudge(const void *row, GString *desc)
{
	const struct jsonCheckRow *r = row;
	g_autoptr(json_object) out = NULL;
	int rc;
	bool infra;

	g_string_printf(desc, "guest JSON: %s%s", r->what, r->why ? " (an error naming the field)" : "");
	if (unitListing)
		return true;
	out = json_tokener_parse(r->json);
	mhlAgentFailedReset();
	rc = mhlAgentJSONCheck(out, pinRows, G_N_ELEMENTS(pinRows), "pin 'p' (gup)");
	infra = mhlAgentFailedReset();
	if (r->why && (rc == 0 || !strstr(mhlErrorLast(), r->why)))
		unitDiag("rc %d: %s", rc, rc ? mhlErrorLast() : "no error");
	return unitExpect(r->why ? rc < 0 && infra && strstr(mhlErrorLast(), r->why) &&
			  g_str_has_prefix(mhlErrorLast(), "pin 'p' (gup): ") : rc == 0 && !infra);
}

/* ---- expect checks on guest JSON of the wrong type ---- */

static const char expectYAML[] =
	"name: e\nnodes:\n  - memory: 512MiB\n  - memory: 64MiB\n"
	"    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\n"
	"steps:\n  - pin: {id: p, workload: gup, size: 2MiB, node: 1}\n  - check: {id: p}\n"
	"  - expect: {movable_after_pin: 0}\n  - expect: {integrity: true}\n";

/* Expect step @idx of expectYAML after a pin and a check whose workloads printed @pin and @check. */
static int expectAfter(int idx, const char *pin, const char *check)
{
	g_autofree char *path = unitWriteTmp("expect.yaml", expectYAML);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	g_autoptr(json_object) steps = json_object_new_array(), res = json_object_new_object();
	g_autofree char *p = g_strdup_printf("{\"step\":\"pin\",\"id\":\"p\",\"ok\":true,\"workload\":%s}", pin);
	g_autofree char *c = g_strdup_printf("{\"step\":\"check\",\"id\":\"p\",\"ok\":true,\"workload\":%s}", check);
	mhlTrial t = { .steps = steps };

	if (!s) {
		unitDiag("%s", mhlErrorLast());
		return 0;
	}
	t.s = s;
	json_object_array_add(steps, json_tokener_parse(p));
	json_object_array_add(steps, json_tokener_parse(c));
	return mhlStepExpect(&t, &s->steps[idx], res);
}

static bool expectNullMovable(void)
{
	return unitExpect(expectAfter(2, "{\"ok\":true,\"census_after\":{\"pages\":512,\"by_zone\":{\"Movable\":null}}}",
				      "{\"ok\":true,\"pattern_ok\":true}") < 0 &&
			  strstr(mhlErrorLast(), "is not a number"));
}

static bool expectMovableZero(void)
{
	return unitExpect(expectAfter(2, "{\"ok\":true,\"census_after\":{\"pages\":512,\"by_zone\":{\"Movable\":0}}}",
				      "{\"ok\":true,\"pattern_ok\":true}") == 0);
}

static bool expectStringPattern(void)
{
	return unitExpect(expectAfter(3, "{\"ok\":true}", "{\"ok\":true,\"pattern_ok\":\"false\"}") < 0 &&
			  strstr(mhlErrorLast(), "0 of 1 check/io/release steps found it intact"));
}

/* A kselftest's KTAP and exit status, and the selftest step's verdict of them. */
static const struct ktapRow {
	const char *desc, *out;
	int exitcode;
	const char *verdict;
} ktapRows[] = {
	{ "every result ok, exit 0", "TAP version 13\n1..2\nok 1 a\nok 2 b\n", 0, "pass" },
	{ "a skipped result among passes, exit 0", "1..2\nok 1 a\nok 2 b # SKIP no THP\n", 0, "pass" },
	{ "skipped as a whole (1..0 # SKIP), exit 4", "1..0 # SKIP no gup_test\n", 4, "skip" },
	{ "a FAIL, then a SKIP: exit 4 (ksft_exit_skip() after a failed result)",
	  "1..3\nnot ok 1 a\nok 2 # SKIP gone\n", 4, "fail" },
	{ "a FAIL, then a pass, exit 0 (a test that ignores its own results)", "1..2\nnot ok 1 a\nok 2 b\n", 0,
	  "fail" },
	{ "a pass, then the rest skipped: exit 4", "1..3\nok 1 a\nok 2 # SKIP gone\n", 4, "fail" },
	{ "a bail-out and exit 4", "1..2\nok 1 # SKIP x\nBail out! no memory\n", 4, "fail" },
	{ "every result ok but exit 1", "1..1\nok 1 a\n", 1, "fail" },
	{ "fewer results than planned, exit 0", "1..3\nok 1 a\nok 2 b\n", 0, "fail" },
	{ "no plan, exit 0", "ok 1 a\n", 0, "fail" },
	{ "a # error result (not ok), exit 1", "1..1\nnot ok 1 # error x\n", 1, "fail" },
};

static bool ktapJudge(const void *row, GString *desc)
{
	const struct ktapRow *r = row;
	g_autoptr(json_object) results = NULL;
	int planned, npass, nfail, nskip;
	const char *got;
	bool bailed;

	g_string_printf(desc, "selftest verdict: %s: %s", r->desc, r->verdict);
	if (unitListing)
		return true;
	results = mhlKtapParse(r->out, &planned, &npass, &nfail, &nskip, &bailed);
	got = mhlKtapVerdict(r->exitcode, planned, npass, nfail, nskip, bailed);
	if (strcmp(got, r->verdict))
		unitDiag("got %s (planned %d, pass %d, fail %d, skip %d, bailed %d)", got, planned, npass, nfail,
			 nskip, bailed);
	return unitExpect(!strcmp(got, r->verdict));
}

static const unitCase cases[] = {
	{ "qmp: virtio-mem size and requested-size of node 1 (dimm skipped)", qmpNode1 },
	{ "qmp: no device on node 0 is an error", qmpNode0 },
	{ "vmstat: counters parsed, junk line skipped", vmstat },
	{ "zoneinfo: node 1 Movable present pages", zoneinfo },
	{ "memory blocks: 3 online (2 Movable), 1 offline", memoryBlocks },
	{ "meminfo: the kernel-memory fields in bytes, HugePages_Total a count; a value out of bounds or not kB skipped",
	  meminfo },
	{ "slabinfo: caches as [active, num, objsize, slab bytes]; a name's quote and <> made '?'; empty, inconsistent and cut rows skipped",
	  slabinfo },
	{ "slabinfo: a reply that is not /proc/slabinfo's is refused, saying what it wanted", slabinfoRefused },
	{ "quotes: a guest reply quoted in an error (QMP 200, MemTotal/online 80, slabinfo 60 bytes) is cut between two characters",
	  guestQuoteCut },
	{ "kmemleak: entries counted with their sizes, tallied by the first frame past the allocators ('?' when none; markup made '?')",
	  kmemleak },
	{ "console: a WARNING and a panic found, non-kernel line ignored", console },
	{ "console: escape sequences before the stamp or in the line: still kernel lines, text without them",
	  consoleEscapes },
	{ "console: a NUL on the console hides no later panic (the log is scanned by length)", consoleNul },
	{ "console: a finding's text is valid UTF-8 without control characters, at most MHL_CONSOLE_TEXT_MAX bytes",
	  consoleTextFit },
	{ "console: scanned from the last offset (a rewrite behind it unseen), line numbers kept, an unended line waits",
	  consoleIncremental },
	{ "console: a line split between two feeds is one line", consoleSplitFeed },
	{ "console: 1000 WARNINGs and a panic: the first 100 kept, the panic, the 900 others counted", consoleCapped },
	{ "console: a panic and an Oops are fatal (the trial ends at once), no other kind", consoleFatal },
	{ "console: the first panic or Oops is the fatal one, after a WARNING; every line counted, stamped or not",
	  consoleFirstFatal },
	{ "console: a line past 4096 bytes is one line with one finding, the next line its own (numbered 2)", consoleLongLine },
	{ "console: a report 5000 bytes and more into a line that never ends is found, across the window's cuts too",
	  consoleFarInLine },
	{ "console: fed a byte at a time (UTF-8, escapes, backspaces cut between feeds), the same findings",
	  consoleByteFeeds },
	{ "console log: capped (MEMHP_CONSOLE_MAX=64K): the rest dropped, counted and said at its end", consoleLogCapped },
	{ "console log: a flood past the cap, then a panic: the log keeps its head and its last lines, the panic found there; 60000 bytes under a 64K cap kept whole", consoleLogCappedTail },
	{ "console: the OOM killer's last line about memhp-pin, quoted for a holder killed with SIGKILL; none in a log without one", consoleOomLine },
	{ "console log: one already there (another trial's) is refused and left as it was", consoleLogExclusive },
	{ "agent: a command's output is valid UTF-8 without escapes or control characters (lines kept)",
	  agentOutputText },
	{ "agent: a reply quoted in an error is valid UTF-8 without control characters", agentReplyQuoted },
	{ "QMP: a DIMM found by its alias (slot, node, base address, size), another alias is none", qmpDimm },
	{ "HMP info mtree: a virtio-mem device's dynamic memslots counted once each, another device's not", memslots },
	{ "dimm: a DIMM's memory blocks from the guest: those in its range, state and valid_zones kept, junk skipped", blocksRange },
	{ "dimm: a memory block size that is no power of two in hex is refused", blocksRangeBad },
};

static const unitCase expectCases[] = {
	{ "expect: a null by_zone.Movable is no count of 0 pages in ZONE_MOVABLE", expectNullMovable },
	{ "expect: by_zone.Movable 0 is movable_after_pin 0", expectMovableZero },
	{ "expect: pattern_ok \"false\" (a string) is no intact pattern", expectStringPattern },
};

/* ---- lifecycle steps: the figures they derive (step-migrate.c, step-daemon.c, steps.c) ---- */

/* A completed migration's job statistics: 850 ms of downtime, 1000 zero pages and 3000 of data of 4 KiB. */
static bool lifecycleMigrateStats(void)
{
	virTypedParameterPtr p = NULL;
	int n = 0, max = 0;
	g_autoptr(json_object) lc = json_object_new_object();
	json_object *m;
	bool ok = virInitialize() == 0 &&	/* libvirt's calls reset its thread's error first */
		  virTypedParamsAddULLong(&p, &n, &max, VIR_DOMAIN_JOB_DOWNTIME, 850) == 0 &&
		  virTypedParamsAddULLong(&p, &n, &max, VIR_DOMAIN_JOB_MEMORY_CONSTANT, 1000) == 0 &&
		  virTypedParamsAddULLong(&p, &n, &max, VIR_DOMAIN_JOB_MEMORY_NORMAL, 3000) == 0 &&
		  virTypedParamsAddULLong(&p, &n, &max, VIR_DOMAIN_JOB_MEMORY_PAGE_SIZE, 4096) == 0 &&
		  virTypedParamsAddULLong(&p, &n, &max, VIR_DOMAIN_JOB_MEMORY_PROCESSED, 12345678) == 0;

	if (ok)
		mhlMigrateStatsJSON(p, n, lc);
	virTypedParamsFree(p, n);
	m = mhlJObj(lc, MHL_K_MIGRATION);
	unitDiag("%s", json_object_to_json_string(lc));
	return unitExpect(ok && mhlJDbl(lc, MHL_K_DOWN_S, -1) == 0.85 && mhlJInt(m, MHL_K_DOWNTIME_MS, -1) == 850 &&
			  mhlJInt(m, MHL_K_MIGRATED_BYTES, -1) == 4000LL * 4096 &&
			  mhlJInt(m, MHL_K_MEMORY_TRANSFERRED_BYTES, -1) == 12345678 && mhlJInt(m, MHL_K_ZERO_PAGES, -1) == 1000 &&
			  !mhlJ(m, MHL_K_TIME_ELAPSED_MS));
}

/*
 * daemon-restart's size_events_after: the timeline's size events (source
 * "event") at or after the moment the new daemon took over (events_from_t
 * 10.0), not the requests, QMP reads or host samples; a step with no
 * events_from_t gets none.
 */
static bool lifecycleDaemonEvents(void)
{
	g_autoptr(json_object) steps = json_tokener_parse(
		"[{\"step\":\"daemon-restart\",\"lifecycle\":{\"event\":\"daemon-restart\",\"events_from_t\":10.0}},"
		"{\"step\":\"save\",\"lifecycle\":{\"event\":\"save\"}}]");
	g_autoptr(json_object) timeline = json_tokener_parse(
		"[{\"t\":9.9,\"source\":\"event\"},{\"t\":10.0,\"source\":\"event\"},{\"t\":11,\"source\":\"request\"},"
		"{\"t\":12,\"source\":\"event\"},{\"t\":13,\"source\":\"qmp\"},{\"t\":14,\"source\":\"host\"}]");

	mhlDaemonRestartEventsAfter(steps, timeline);
	unitDiag("%s", json_object_to_json_string(steps));
	return unitExpect(mhlJInt(steps, "0.lifecycle.size_events_after", -1) == 2 &&
			  !mhlJ(steps, "1.lifecycle.size_events_after"));
}

/* The end of a lifecycle step: ok only when it returned 0, its seconds in every case. */
static bool lifecycleEnd(void)
{
	g_autoptr(json_object) good = json_object_new_object(), bad = json_object_new_object();
	int a = mhlLifecycleEnd(good, mhlNow() - 2, 0), b = mhlLifecycleEnd(bad, mhlNow() - 2, -1);

	return unitExpect(a == 0 && b == -1 && mhlJBool(good, MHL_K_OK, false) && !mhlJBool(bad, MHL_K_OK, true) &&
			  mhlJDbl(good, MHL_K_SECONDS, 0) >= 2 && mhlJDbl(bad, MHL_K_SECONDS, 0) >= 2);
}

static const unitCase lifecycleCases[] = {
	{ "lifecycle: migrate's statistics: down_s 0.85 from 850 ms, migrated_bytes (zero + normal pages) x page size", lifecycleMigrateStats },
	{ "lifecycle: daemon-restart's size_events_after: the size events at or after the takeover, nothing else", lifecycleDaemonEvents },
	{ "lifecycle: the end of a step that failed is ok: false, one that returned 0 ok: true, both timed", lifecycleEnd },
};

static const unitTable tables[] = {
	UNIT_CASES(cases),
	UNIT_CASES(lifecycleCases),
	UNIT_TABLE(jsonChecks, jsonCheckJudge),
	UNIT_TABLE(consoleRows, consoleJudge),
	UNIT_CASES(expectCases),
	UNIT_TABLE(ktapRows, ktapJudge),
};

const unitModule unitGuest = UNIT_MODULE("guest", NULL, NULL, tables);
