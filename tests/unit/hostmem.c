/*
 * tests/unit/hostmem.c - the host side of elasticity (issue 21): QEMU's
 * /proc/PID/smaps read into mappings, each memory backend found among them,
 * the memory_backing key into the domain XML, and the host_reclaimed expect
 * check judging a resize's host side. No guest is booted here.
 */
#include <glib.h>

#include <json-c/json.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest/domain.h"
#include "guest/guest.h"
#include "host/hostmem.h"
#include "host/hugepages.h"
#include "scenario/scenario.h"
#include "trial/steps.h"
#include "unit.h"
#include "util.h"

/* A demo-like QEMU: cells of 1 GiB (node 0) and 128 MiB (node 1), a 1 GiB virtio-mem on node 1. */
static const char smaps[] =
	"55d1c0000000-55d1c0100000 r-xp 00000000 08:01 1234 /usr/bin/qemu-system-x86_64\n"
	"Size:               1024 kB\n"
	"Rss:                 512 kB\n"
	"7f0000000000-7f0040000000 rwxp 00000000 00:00 0 \n"	/* TCG's code buffer: 1 GiB, executable */
	"Size:            1048576 kB\n"
	"Rss:               20480 kB\n"
	"7f1000000000-7f1040000000 rw-p 00000000 00:00 0 \n"	/* the device (created last: lowest) */
	"Size:            1048576 kB\n"
	"Rss:              262144 kB\n"
	"Anonymous:        262144 kB\n"		/* hex digits first, as a header has */
	"FilePmdMapped:         0 kB\n"
	"Private_Hugetlb:       0 kB\n"
	"VmFlags: rd wr mr mw me nr \n"
	"7f2000000000-7f2008000000 rw-p 00000000 00:00 0 \n"	/* cell 1: 128 MiB */
	"Size:             131072 kB\n"
	"Rss:               65536 kB\n"
	"7f3000000000-7f3040000000 rw-p 00000000 00:00 0 \n"	/* cell 0: 1 GiB (created first: highest) */
	"Size:            1048576 kB\n"
	"Rss:              524288 kB\n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
	"Rss:                  16 kB\n";

static const mhlBackend demo[] = {
	{ "ram-node0", 1ULL << 30, 0, false },
	{ "ram-node1", 128ULL << 20, 1, false },
	{ "memvirtiomem0", 1ULL << 30, 1, true },
};

static bool smapsParsed(void)
{
	g_autoptr(GArray) m = mhlSmapsParse(smaps, strlen(smaps));
	const mhlSmapsEntry *e = m->len == 6 ? &g_array_index(m, mhlSmapsEntry, 2) : NULL;

	return unitExpect(e && e->start == 0x7f1000000000ULL && e->end == 0x7f1040000000ULL &&
			  e->rss_kib == 262144 && e->writable && !e->executable && !e->shared && !e->path[0] &&
			  g_array_index(m, mhlSmapsEntry, 1).executable &&
			  !strcmp(g_array_index(m, mhlSmapsEntry, 0).path, "/usr/bin/qemu-system-x86_64") &&
			  !strcmp(g_array_index(m, mhlSmapsEntry, 5).path, "[stack]"));
}

/* A header that is not one ends the parse; what came before stays. */
static bool smapsTorn(void)
{
	static const char torn[] = "7f00-7f10 rw-p 0 00:00 0\nRss: 4 kB\n7f20-junk\nRss: 8 kB\n";
	g_autoptr(GArray) m = mhlSmapsParse(torn, strlen(torn));

	return unitExpect(m->len == 1 && g_array_index(m, mhlSmapsEntry, 0).rss_kib == 4);
}

static bool smapsHugetlb(void)
{
	static const char huge[] =
		"7f0000000000-7f0040000000 rw-s 00000000 00:2e 77 /tmp/mhl-x/hugepages-2048kB/qemu_back_mem.memvirtiomem0.AbCdEf (deleted)\n"
		"Rss:                   0 kB\n"
		"Shared_Hugetlb:   131072 kB\n"
		"Private_Hugetlb:    2048 kB\n";
	g_autoptr(GArray) m = mhlSmapsParse(huge, strlen(huge));
	const mhlSmapsEntry *e = m->len == 1 ? &g_array_index(m, mhlSmapsEntry, 0) : NULL;

	return unitExpect(e && e->shared && e->hugetlb_kib == 133120 && strstr(e->path, "qemu_back_mem."));
}

/* Two 1 GiB backends and an executable 1 GiB mapping: the device is the lower writable one. */
static bool matchBySizeOrder(void)
{
	g_autoptr(GArray) m = mhlSmapsParse(smaps, strlen(smaps));
	int which[3];

	return unitExpect(mhlBackendsMatch(demo, 3, m, which) == 3 && which[0] == 4 && which[1] == 3 &&
			  which[2] == 2);
}

/* One more writable anonymous 1 GiB mapping than 1 GiB backends: no guess for either. */
static bool matchAmbiguous(void)
{
	g_autofree char *more = g_strconcat(smaps, "7f4000000000-7f4040000000 rw-p 00000000 00:00 0 \nRss: 0 kB\n", NULL);
	g_autoptr(GArray) m = mhlSmapsParse(more, strlen(more));
	int which[3];

	return unitExpect(mhlBackendsMatch(demo, 3, m, which) == 1 && which[0] == -1 && which[1] == 3 &&
			  which[2] == -1);
}

/* A file or hugetlbfs backing names its backend: found by name, whatever else has its size. */
static bool matchByName(void)
{
	static const char named[] =
		"7f0000000000-7f0040000000 rw-p 00000000 00:00 0 \nRss: 0 kB\n"
		"7f1000000000-7f1040000000 rw-s 00000000 00:2e 9 /r/hugepages-2048kB/qemu_back_mem.memvirtiomem0.Xy (deleted)\n"
		"Shared_Hugetlb: 4096 kB\n"
		"7f2000000000-7f2008000000 rw-s 00000000 00:2e 8 /r/hugepages-2048kB/qemu_back_mem.ram-node1.Ab (deleted)\n"
		"7f3000000000-7f3040000000 rw-s 00000000 00:2e 7 /r/hugepages-2048kB/qemu_back_mem.ram-node0.Cd (deleted)\n";
	g_autoptr(GArray) m = mhlSmapsParse(named, strlen(named));
	int which[3];

	return unitExpect(mhlBackendsMatch(demo, 3, m, which) == 3 && which[0] == 3 && which[1] == 2 &&
			  which[2] == 1);
}

/* memory_backing: file: libvirt's mem-path names cells by id, a virtio-mem device by its alias. */
static bool matchByMemPath(void)
{
	static const char files[] =
		"7f0000000000-7f0040000000 rw-p 00000000 fe:00 3 /tmp/mhl-x/lib/qemu/ram/1-memhp-f-1/virtiomem0\n"
		"7f1000000000-7f1008000000 rw-p 00000000 fe:00 2 /tmp/mhl-x/lib/qemu/ram/1-memhp-f-1/ram-node1\n"
		"7f2000000000-7f2040000000 rw-p 00000000 fe:00 1 /tmp/mhl-x/lib/qemu/ram/1-memhp-f-1/ram-node0\n";
	g_autoptr(GArray) m = mhlSmapsParse(files, strlen(files));
	int which[3];

	return unitExpect(mhlBackendsMatch(demo, 3, m, which) == 3 && which[0] == 2 && which[1] == 1 &&
			  which[2] == 0);
}

static bool qemuPidNone(void)
{
	return unitExpect(mhlQemuPidFind("memhp-no-such-guest-0-0") == 0);
}

/* A process started with @argv (its own process group), or 0; waited for by decoyEnd. */
static GPid decoyStart(const char *const *argv)
{
	GPid pid = 0;

	if (!g_spawn_async(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL |
			   G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL))
		return 0;
	g_usleep(300 * 1000);	/* exec'd: its /proc/PID/exe and cmdline are the program's */
	return pid;
}

static void decoyEnd(GPid pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * Issue 48: the host side measured whichever process had "-name
 * guest=NAME," in its command line. A python3 with those words, and the
 * real QEMU binary run by user nobody (anyone may run it), are not the
 * guest's QEMU; QEMU run by root under that name is.
 */
static bool qemuPidDecoys(void)
{
	g_autofree char *name = g_strdup_printf("memhp-decoy-%d-0", (int)getpid());
	g_autofree char *arg = g_strdup_printf("guest=%s,debug-threads=on", name);
	const char *py[] = { "/usr/bin/python3", "-c", "import time; time.sleep(30)", "-name", arg, NULL };
	const char *nobody[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				 "/usr/bin/qemu-system-x86_64", "-name", arg, "-machine", "none", "-display", "none",
				 "-nodefaults", "-S", NULL };
	const char *root[] = { "/usr/bin/qemu-system-x86_64", "-name", arg, "-machine", "none", "-display", "none",
			       "-nodefaults", "-S", NULL };
	GPid p1, p2, p3 = 0;
	pid_t with_decoys, with_root;
	bool started;

	if (geteuid() != 0) {
		unitDiag("needs root: a decoy of another user (setpriv)");
		return unitExpect(false);
	}
	p1 = decoyStart(py);
	p2 = decoyStart(nobody);
	started = p1 > 0 && p2 > 0;
	with_decoys = mhlQemuPidFind(name);
	if (started)
		p3 = decoyStart(root);
	with_root = mhlQemuPidFind(name);
	decoyEnd(p1);
	decoyEnd(p2);
	decoyEnd(p3);
	if (!started || with_decoys || with_root != p3)
		unitDiag("decoys %d %d (started: %d): found %d; with root's QEMU %d: found %d", (int)p1, (int)p2,
			 started, (int)with_decoys, (int)p3, (int)with_root);
	return unitExpect(started && p3 > 0 && with_decoys == 0 && with_root == p3);
}

/* ---- the plug path: the guest's MemTotal and online blocks ---- */

static bool memOnline(void)
{
	guint64 mt = 0;
	int on = -1;

	return unitExpect(mhlParseMemOnline("memtotal 2131560\nonline 17\n", &mt, &on) == 0 &&
			  mt == 2131560ULL * 1024 && on == 17);
}

static bool memOnlineHostile(void)
{
	guint64 mt = 0;
	int on = 0;

	return unitExpect(mhlParseMemOnline("memtotal 5\nonline 1\nrm -rf /\n", &mt, &on) < 0 &&
			  (mhlErrorReset(), mhlParseMemOnline("memtotal -5\nonline 1\n", &mt, &on) < 0) &&
			  (mhlErrorReset(), mhlParseMemOnline("online 1\n", &mt, &on) < 0) &&
			  (mhlErrorReset(), mhlParseMemOnline("memtotal 99999999999999999999\nonline 1\n", &mt, &on) < 0) &&
			  (mhlErrorReset(), mhlParseMemOnline(NULL, &mt, &on) < 0) &&
			  strstr(mhlErrorLast(), "not 'memtotal KIB' and 'online N'"));
}

/* ---- memory_backing ---- */

static char *backingXML(const char *backing)
{
	g_autofree char *yaml = g_strdup_printf("name: b\nmemory_backing: %s\nnodes:\n  - memory: 512MiB\n"
						"  - memory: 64MiB\n    virtio_mem: {size: 1GiB, block: 2MiB, requested: 0}\n",
						backing);
	g_autofree char *path = unitWriteTmp("backing.yaml", yaml);
	g_autofree char *tmpl = mhlFileRead("domains/numa-virtio-mem.xml", NULL);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	mhlDomainParams p = { "n", "tcg", "/k", "/i", "/c.log", "/usr/bin/qemu-system-x86_64" };

	if (!tmpl || !s) {
		unitDiag("%s", mhlErrorLast());
		return NULL;
	}
	return mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", s, &p);
}

static bool backingAnonymous(void)
{
	g_autofree char *xml = backingXML("anonymous");

	return unitExpect(xml && !strstr(xml, "  <memoryBacking>\n"));
}

static bool backingHugepages(void)
{
	g_autofree char *xml = backingXML("{source: hugepages, pagesize: 1GiB, prealloc: true}");

	return unitExpect(xml && strstr(xml, "<memoryBacking>") &&
			  strstr(xml, "<page size='1048576' unit='KiB'/>") &&
			  strstr(xml, "<allocation mode='immediate'/>") && !strstr(xml, "<source type="));
}

static bool backingHugepagesDefault(void)
{
	g_autofree char *xml = backingXML("hugepages");

	return unitExpect(xml && strstr(xml, "<page size='2048' unit='KiB'/>") && !strstr(xml, "<allocation"));
}

static bool backingMemfd(void)
{
	g_autofree char *xml = backingXML("memfd");

	return unitExpect(xml && strstr(xml, "<source type='memfd'/>") && strstr(xml, "<access mode='shared'/>"));
}

/* online: the guest kernel's command line for each policy. */
static char *onlineXML(const char *online)
{
	g_autofree char *yaml = g_strdup_printf("name: o\nonline: %s\nnodes:\n  - memory: 512MiB\n", online);
	g_autofree char *path = unitWriteTmp("online.yaml", yaml);
	g_autofree char *tmpl = mhlFileRead("domains/numa-virtio-mem.xml", NULL);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	mhlDomainParams p = { "n", "tcg", "/k", "/i", "/c.log", "/usr/bin/qemu-system-x86_64" };

	if (!tmpl || !s) {
		unitDiag("%s", mhlErrorLast());
		return NULL;
	}
	return mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", s, &p);
}

static bool onlinePolicies(void)
{
	g_autofree char *mov = onlineXML("movable"), *ker = onlineXML("kernel"), *shipped = onlineXML("as-shipped");
	g_autofree char *am = onlineXML("{policy: auto-movable, ratio: 301}"), *am0 = onlineXML("auto-movable");

	return unitExpect(mov && strstr(mov, "panic=-1 no_timer_check memhp_default_state=online_movable") &&
			  ker && strstr(ker, "memhp_default_state=online_kernel") &&
			  shipped && !strstr(shipped, "memhp_default_state") &&
			  am && strstr(am, "memhp_default_state=online memory_hotplug.online_policy=auto-movable memory_hotplug.auto_movable_ratio=301") &&
			  am0 && strstr(am0, "online_policy=auto-movable ") && !strstr(am0, "auto_movable_ratio"));
}

static bool backingRefused(const char *backing, const char *want)
{
	g_autofree char *yaml = g_strdup_printf("memory_backing: %s\nnodes:\n  - memory: 1G\n", backing);
	g_autofree char *path = unitWriteTmp("backing-bad.yaml", yaml);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);

	if (s || !strstr(mhlErrorLast(), want))
		unitDiag("  got: %s", mhlErrorLast());
	return unitExpect(!s && strstr(mhlErrorLast(), path) && strstr(mhlErrorLast(), want));
}

static bool backingUnknown(void)
{
	return backingRefused("tmpfs", "1:17: memory_backing: unknown source 'tmpfs'");
}

static bool backingPagesize(void)
{
	return backingRefused("{source: hugepages, pagesize: 4MiB}", "pagesize: 2MiB or 1GiB");
}

static bool backingPagesizeNeedsHuge(void)
{
	return backingRefused("{source: memfd, pagesize: 2MiB}", "pagesize needs source: hugepages");
}

/* The pool never takes the host's last GiB: 1088 pages of 2 MiB need 3200 MiB available. */
static bool poolFits(void)
{
	mhlErrorReset();
	return unitExpect(mhlHugePoolFits(2048, 1088, 3200LL * 1024) == 0 &&
			  mhlHugePoolFits(2048, 1088, 3199LL * 1024) < 0 &&
			  strstr(mhlErrorLast(), "needs 1088 hugepages of 2048 kB (2176 MiB)") &&
			  strstr(mhlErrorLast(), "the host has 3199 MiB available (1024 MiB kept for itself)"));
}

/* ---- expect: {host_reclaimed: ">=N%"} ---- */

static const char reclaimYAML[] =
	"name: r\nnodes:\n  - memory: 512MiB\n  - memory: 64MiB\n"
	"    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\n"
	"steps:\n  - resize: {node: 1, requested: 0}\n  - expect: {host_reclaimed: \">=90%\"}\n";

/* The expect step of reclaimYAML after a resize whose host side is @host (JSON, or NULL: none). */
static int reclaimAfter(const char *host)
{
	g_autofree char *path = unitWriteTmp("reclaim.yaml", reclaimYAML);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	g_autoptr(json_object) steps = json_object_new_array(), res = json_object_new_object();
	g_autofree char *r = g_strdup_printf("{\"step\":\"resize\",\"ok\":true%s%s}", host ? ",\"host\":" : "",
					     host ? host : "");
	mhlTrial t = { .steps = steps };

	if (!s) {
		unitDiag("%s", mhlErrorLast());
		return 0;
	}
	t.s = s;
	json_object_array_add(steps, json_tokener_parse(r));
	return mhlStepExpect(&t, &s->steps[1], res);
}

static bool reclaimHolds(void)
{
	return unitExpect(reclaimAfter("{\"measured_by\":\"backend\",\"unplugged_bytes\":536870912,"
				       "\"reclaimed_bytes\":260046848,\"reclaimable_bytes\":268435456,"
				       "\"reclaimed_of_reclaimable\":0.96875}") == 0);
}

static bool reclaimShort(void)
{
	return unitExpect(reclaimAfter("{\"measured_by\":\"backend\",\"unplugged_bytes\":536870912,"
				       "\"reclaimed_bytes\":134217728,\"reclaimable_bytes\":268435456,"
				       "\"reclaimed_of_reclaimable\":0.5}") < 0 &&
			  strstr(mhlErrorLast(), "expected >=90% of the reclaimable bytes, got 50.0%"));
}

/* No host side (QEMU's memory unreadable) or a ratio that is a string: a failed check, never a pass. */
static bool reclaimMissing(void)
{
	return unitExpect(reclaimAfter(NULL) < 0 && strstr(mhlErrorLast(), "no shrinking resize with a host side") &&
			  reclaimAfter("{\"unplugged_bytes\":5,\"reclaimed_of_reclaimable\":\"1\"}") < 0);
}

static bool reclaimParse(void)
{
	static const char bad[] = "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 0}\n"
				  "steps:\n  - resize: {node: 0, requested: 0}\n  - expect: {host_reclaimed: 90%}\n";
	static const char early[] = "nodes:\n  - memory: 1G\nsteps:\n  - expect: {host_reclaimed: \">=50%\"}\n";
	g_autofree char *p1 = unitWriteTmp("hr1.yaml", bad);
	g_autoptr(mhlScenario) s1 = mhlScenarioLoad(p1);
	bool bad_ok = !s1 && strstr(mhlErrorLast(), "6:30: host_reclaimed: expected \">=N%\"");
	g_autofree char *p2 = unitWriteTmp("hr2.yaml", early);
	g_autoptr(mhlScenario) s2 = (mhlErrorReset(), mhlScenarioLoad(p2));

	if (!bad_ok || s2 || !strstr(mhlErrorLast(), "needs a resize"))
		unitDiag("  got: %d %s", bad_ok, mhlErrorLast());
	return unitExpect(bad_ok && !s2 && strstr(mhlErrorLast(), "'host_reclaimed' needs a resize step before it"));
}

/* Hot-added devices (dimm, vmem steps): an entry per step id, the node's latest vmem, a bounded table. */
static bool hotTable(void)
{
	mhlHostMem hm = { .source = "proc" };
	bool ok = true;
	int i;

	ok &= mhlHostMemHotAdd(&hm, "d0", 1, false, 256 << 20, 0x7f0000000000ULL) == 0;
	ok &= mhlHostMemHotAdd(&hm, "v0", 2, true, 256 << 20, 0) == 1;
	ok &= mhlHostMemHotAdd(&hm, "v1", 2, true, 256 << 20, 0x7e0000000000ULL) == 2;
	/* an id seen before is its entry again, with what the new attach found */
	ok &= mhlHostMemHotAdd(&hm, "d0", 1, false, 256 << 20, 0x7d0000000000ULL) == 0 && hm.nhot == 3 &&
	      hm.hot[0].start == 0x7d0000000000ULL;
	ok &= mhlHostMemHotFind(&hm, "v0") == 1 && mhlHostMemHotFind(&hm, "nope") == -1;
	/* a DIMM is no node's virtio-mem device; the node's latest vmem attach is */
	ok &= mhlHostMemHotOfNode(&hm, 1) == -1 && mhlHostMemHotOfNode(&hm, 2) == 2;
	for (i = hm.nhot; i < MHL_HOT_MAX; i++) {
		char id[8];

		g_snprintf(id, sizeof(id), "x%d", i);
		ok &= mhlHostMemHotAdd(&hm, id, 0, false, 256 << 20, 0) == i;
	}
	ok &= mhlHostMemHotAdd(&hm, "one-too-many", 0, false, 256 << 20, 0) == -1 && hm.nhot == MHL_HOT_MAX;
	return unitExpect(ok);
}

/* A sample's hot_backend_bytes: the known ones by step id, none without any. */
static bool hotSampleJSON(void)
{
	mhlHostMem hm = { .source = "proc" };
	mhlHostSample hs = { .qemu_rss = 300 << 20, .qemu_hugetlb = -1, .pool_free = -1 };
	g_autoptr(json_object) none = NULL, some = NULL;
	json_object *hot;
	int i;

	for (i = 0; i < MHL_MAX_NODES; i++)
		hs.node_bytes[i] = -1;
	for (i = 0; i < MHL_HOT_MAX; i++)
		hs.hot_bytes[i] = -1;
	mhlHostMemHotAdd(&hm, "d0", 1, false, 256 << 20, 0x7f0000000000ULL);
	mhlHostMemHotAdd(&hm, "d1", 1, false, 256 << 20, 0);
	none = mhlHostSampleJSON(&hs, &hm);
	hs.hot_bytes[0] = 0;	/* unmapped: freed */
	some = mhlHostSampleJSON(&hs, &hm);
	hot = json_object_object_get(some, "hot_backend_bytes");
	return unitExpect(!json_object_object_get(none, "hot_backend_bytes") && hot &&
			  json_object_object_length(hot) == 1 &&
			  json_object_get_int64(json_object_object_get(hot, "d0")) == 0);
}

/*
 * A sample of this very process (source proc, our own /proc/self/smaps):
 * a hot-added device whose mapping the attach did not find (start 0) is not
 * known (-1), one whose mapping is gone is freed (0), one mapped its
 * resident bytes.
 */
static bool hotSampleMapping(void)
{
	mhlHostMem hm = { .source = "proc", .pid = getpid() };
	mhlHostSample hs;
	size_t len = 4 << 20;
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok;

	if (map == MAP_FAILED)
		return unitExpect(false);
	memset(map, 1, len);
	mhlHostMemHotAdd(&hm, "v0", 1, true, 256 << 20, 0);			/* no mapping found at the attach */
	mhlHostMemHotAdd(&hm, "v1", 1, true, 256 << 20, (uint64_t)(uintptr_t)map);
	mhlHostMemHotAdd(&hm, "v2", 1, true, 256 << 20, 0x1000);	/* unmapped since (below mmap_min_addr: never mapped) */
	ok = mhlHostMemSample(&hm, &hs) == 0;
	unitDiag("hot_bytes: %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT,
		 hs.hot_bytes[0], hs.hot_bytes[1], hs.hot_bytes[2]);
	munmap(map, len);
	return unitExpect(ok && hs.hot_bytes[0] == -1 && hs.hot_bytes[1] >= (int64_t)len && hs.hot_bytes[2] == 0 &&
			  hs.qemu_rss > 0);
}

/*
 * After a restore (a new QEMU, here this very process): two devices
 * attached before, of sizes no other mapping here has, are found again by
 * size among the writable mappings; one detached before the save (gone) is
 * not looked for; then the sample reads each one's own bytes.
 */
static bool hotFoundAgain(void)
{
	mhlHostMem hm = { .source = "proc", .pid = getpid() };
	size_t la = (4 << 20) + 3 * 4096, lb = (6 << 20) + 5 * 4096;
	char *a = mmap(NULL, la, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap(NULL, lb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mhlHostSample hs;
	int found;
	bool ok;

	/* flags no neighbour has, different from each other: the kernel merges neither into another mapping */
	if (a == MAP_FAILED || b == MAP_FAILED || madvise(a, la, MADV_DONTFORK) || madvise(b, lb, MADV_DONTDUMP))
		return unitExpect(false);
	memset(a, 1, la);
	memset(b, 1, 4096);
	mhlHostMemHotAdd(&hm, "d0", 1, false, la, 0);
	mhlHostMemHotAdd(&hm, "gone", 1, false, la, 0x1000);
	hm.hot[1].gone = true;
	mhlHostMemHotAdd(&hm, "v0", 1, true, lb, 0);
	found = mhlHostMemHotFindAgain(&hm);
	ok = mhlHostMemSample(&hm, &hs) == 0;
	unitDiag("found %d: d0 at %#" G_GINT64_MODIFIER "x (mapped at %p), gone at %#" G_GINT64_MODIFIER "x, v0 at %#" G_GINT64_MODIFIER "x (%p); bytes %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT,
		 found, hm.hot[0].start, (void *)a, hm.hot[1].start, hm.hot[2].start, (void *)b, hs.hot_bytes[0], hs.hot_bytes[2]);
	ok = ok && found == 2 && hm.hot[0].start == (uint64_t)(uintptr_t)a && hm.hot[1].start == 0 &&
	     hm.hot[2].start == (uint64_t)(uintptr_t)b && hs.hot_bytes[0] >= (int64_t)la && hs.hot_bytes[2] < (int64_t)lb;
	munmap(a, la);
	munmap(b, lb);
	return unitExpect(ok);
}

/*
 * TCG's translated code apart from QEMU's own memory: an anonymous
 * writable and executable mapping of this process (as QEMU's code buffer
 * is) counts its resident bytes in tcg_code and its size in tcg_code_size.
 */
static bool tcgCodeSampled(void)
{
	mhlHostMem hm = { .source = "proc", .pid = getpid() };
	size_t len = (3 << 20) + 4096;
	char *code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mhlHostSample hs;
	bool ok;

	if (code == MAP_FAILED)
		return unitExpect(false);
	memset(code, 0xc3, 2 << 20);
	ok = mhlHostMemSample(&hm, &hs) == 0;
	unitDiag("tcg_code %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " bytes; qemu_rss %" G_GINT64_FORMAT,
		 hs.tcg_code, hs.tcg_code_size, hs.qemu_rss);
	munmap(code, len);
	return unitExpect(ok && hs.tcg_code >= 2 << 20 && hs.tcg_code_size >= (int64_t)len && hs.tcg_code <= hs.qemu_rss);
}

/* The bytes of a hot-added device's node: its own backend's, 0 once QEMU freed it; unknown: QEMU's RSS. */
static bool hotBytesBy(void)
{
	mhlHostSample hs = { .qemu_rss = 300 << 20 };
	const char *by = NULL, *by2 = NULL, *by3 = NULL;
	int64_t freed, known, unknown;

	hs.hot_bytes[0] = 0;
	hs.hot_bytes[1] = 64 << 20;
	hs.hot_bytes[2] = -1;
	freed = mhlHostSampleHotBytes(&hs, 0, &by);
	known = mhlHostSampleHotBytes(&hs, 1, &by2);
	unknown = mhlHostSampleHotBytes(&hs, 2, &by3);
	return unitExpect(freed == 0 && !strcmp(by, "backend") && known == 64 << 20 && !strcmp(by2, "backend") &&
			  unknown == 300 << 20 && !strcmp(by3, "qemu_rss"));
}

static const unitCase cases[] = {
	{ "hostmem: /proc/PID/smaps parsed: addresses, Rss, permissions, paths", smapsParsed },
	{ "hostmem: a torn smaps ends at the first bad header, what came before kept", smapsTorn },
	{ "hostmem: hugetlb mappings count Private_Hugetlb + Shared_Hugetlb", smapsHugetlb },
	{ "hostmem: backends by size and creation order (the device below the 1 GiB cell; TCG's buffer ignored)", matchBySizeOrder },
	{ "hostmem: more same-size mappings than backends: no guess", matchAmbiguous },
	{ "hostmem: file/hugetlbfs backings found by their qemu_back_mem.ID name", matchByName },
	{ "hostmem: file backings found by libvirt's mem-path (cells by id, the device by alias)", matchByMemPath },
	{ "hostmem: no QEMU process for an unknown domain", qemuPidNone },
	{ "hostmem: a decoy with '-name guest=NAME' (python3; QEMU run by nobody) is not the guest's QEMU; root's QEMU of that name is (issue 48)",
	  qemuPidDecoys },
	{ "hostmem: hot-added devices: one entry per step id, the node's latest vmem, at most MHL_HOT_MAX", hotTable },
	{ "hostmem: a sample's hot_backend_bytes by step id, only the known ones", hotSampleJSON },
	{ "hostmem: a hot-added device with no mapping yet samples as not known (-1); one unmapped since as freed (0); a mapped one its RSS", hotSampleMapping },
	{ "hostmem: after a restore, the devices attached before are found again by size in the new QEMU; one detached before is not looked for", hotFoundAgain },
	{ "hostmem: TCG's translated code (an anonymous writable and executable mapping) sampled apart, with its size", tcgCodeSampled },
	{ "hostmem: a hot-added backend freed by QEMU reads 0 by its backend; one not known, QEMU's RSS", hotBytesBy },
	{ "plug path: 'memtotal KIB', 'online N' from the guest parsed", memOnline },
	{ "plug path: extra lines, negative or huge numbers, nothing: refused", memOnlineHostile },
	{ "memory_backing anonymous: no <memoryBacking>", backingAnonymous },
	{ "memory_backing hugepages 1GiB + prealloc: <page size='1048576'>, <allocation mode='immediate'/>", backingHugepages },
	{ "memory_backing hugepages: 2 MiB pages by default", backingHugepagesDefault },
	{ "memory_backing memfd: <source type='memfd'/>, shared access", backingMemfd },
	{ "memory_backing: an unknown source is refused at file:line:column", backingUnknown },
	{ "online: movable, kernel, as-shipped (no memhp_default_state), auto-movable with and without its ratio", onlinePolicies },
	{ "memory_backing: a pagesize x86 has not is refused", backingPagesize },
	{ "memory_backing: pagesize without hugepages is refused", backingPagesizeNeedsHuge },
	{ "hugepage pool: grown only within MemAvailable less 1 GiB, else refused with the numbers", poolFits },
	{ "expect host_reclaimed >=90%: 96.9% of the reclaimable bytes holds", reclaimHolds },
	{ "expect host_reclaimed >=90%: 50% fails, saying how much", reclaimShort },
	{ "expect host_reclaimed: no host side, or a ratio of the wrong type, fails", reclaimMissing },
	{ "expect host_reclaimed: '90%' and an expect before any resize are refused", reclaimParse },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitHostMem = UNIT_MODULE("hostmem", NULL, NULL, tables);
