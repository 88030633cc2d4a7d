/*
 * tests/unit.c - unit tests of the parsers and writers the orchestrator and
 * the workloads rely on: size strings, pagemap -> block -> node/zone census
 * (on a fake sysfs tree, as lsmem --sysroot), agent and QMP replies, guest
 * counters, console scanning, the virtio-mem update XML, templates, record
 * writing and scenario validation errors. No guest is booted here.
 */
#include <glib.h>
#include <libxml/parser.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "guest/agent.h"
#include "census.h"
#include "guest/domain.h"
#include "guest/guest.h"
#include "host/kernel.h"
#include "mhl-size.h"
#include "record/record.h"
#include "cli/run.h"
#include "scenario/scenario.h"
#include "soak/soak.h"
#include "tap.h"
#include "util.h"

static char *tmpdir;

static char *writeTmp(const char *name, const char *content)
{
	char *path = g_build_filename(tmpdir, name, NULL);

	g_file_set_contents(path, content, -1, NULL);
	return path;
}

static void testSizes(void)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "4096", 0, 4096 }, { "64k", 0, 64 << 10 }, { "256M", 0, 256ULL << 20 },
		{ "256MiB", 0, 256ULL << 20 }, { "1G", 0, 1ULL << 30 }, { "1GiB", 0, 1ULL << 30 },
		{ "2MB", 0, 2ULL << 20 }, { "0", 0, 0 }, { "-1", -1, 0 }, { "", -1, 0 },
		{ "12Q", -1, 0 }, { "1GiBx", -1, 0 }, { "99999999999T", -1, 0 }, { "M", -1, 0 },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		uint64_t got = 0;
		int rc = mhl_size_parse(cases[i].in, &got);

		tapOk(rc == cases[i].rc && (rc || got == cases[i].want),
		      "size '%s' parses to %s", cases[i].in,
		      cases[i].rc ? "an error" : mhl_size_format(cases[i].want, buf, sizeof(buf)));
	}
	tapOk(!strcmp(mhl_size_format(256ULL << 20, buf, sizeof(buf)), "256MiB"),
	      "256 MiB formats as 256MiB (got %s)", buf);
	tapOk(!strcmp(mhl_size_format(4097, buf, sizeof(buf)), "4097B"), "4097 formats as 4097B");
}

/* A fake sysfs: 4 blocks of 128 MiB; 0-1 node 0 (DMA32, Normal), 2 node 1 Movable, 3 spanning. */
static void testCensus(void)
{
	static const char *const zones[] = { "DMA32", "Normal", "Movable", "DMA DMA32" };
	static const int nodes[] = { 0, 0, 1, 0 };
	g_autofree char *root = g_build_filename(tmpdir, "sys", NULL);
	g_autofree char *mem = g_build_filename(root, "sys/devices/system/memory", NULL);
	g_autofree char *pm = g_build_filename(tmpdir, "pagemap", NULL);
	uint64_t entries[6], pfns[6], pfn;
	const uint64_t present = 1ULL << 63, per_block = (128ULL << 20) / 4096;
	struct census_ctx cx;
	struct census c;
	int i, fd;

	g_mkdir_with_parents(mem, 0755);
	g_free(writeTmp("sys/sys/devices/system/memory/block_size_bytes", "8000000\n"));
	for (i = 0; i < 4; i++) {
		g_autofree char *b = g_strdup_printf("%s/memory%d", mem, i);
		g_autofree char *n = g_strdup_printf("%s/node%d", b, nodes[i]);
		g_autofree char *z = g_strdup_printf("%s/valid_zones", b);
		g_autofree char *zz = g_strdup_printf("%s\n", zones[i]);

		g_mkdir_with_parents(n, 0755);
		g_file_set_contents(z, zz, -1, NULL);
	}
	/* Pages: 2 in block 2 (Movable/node1), 1 in block 0, 1 in block 3, 1 absent, 1 hidden PFN. */
	entries[0] = present | (2 * per_block + 5);
	entries[1] = present | (2 * per_block + 6);
	entries[2] = present | 7;
	entries[3] = present | (3 * per_block);
	entries[4] = 0;
	entries[5] = present;
	fd = open(pm, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	/* The buffer "lives" at virtual page 16: write the entries at offset 16 * 8. */
	tapOk(fd >= 0 && pwrite(fd, entries, sizeof(entries), 16 * 8) == sizeof(entries),
	      "census: fake pagemap written");
	close(fd);

	tapOk(census_pagemap_pfn(present | 42, &pfn) == 1 && pfn == 42, "pagemap: present entry gives its PFN");
	tapOk(census_pagemap_pfn(42, &pfn) == 0, "pagemap: entry without the present bit is skipped");
	tapOk(census_zone_parse("Movable\n") == CENSUS_ZONE_MOVABLE, "zone: 'Movable' parses");
	tapOk(census_zone_parse("Weird") == CENSUS_ZONE_OTHER, "zone: unknown name is 'other'");

	tapOk(census_init(&cx, root, pm) == 0 && cx.block_size == 128ULL << 20,
	      "census: block_size_bytes read as hex (128 MiB)");
	tapOk(census_take(&cx, (void *)(uintptr_t)(16 * 4096), 6 * 4096, &c, pfns) == 0,
	      "census: 6 pages taken");
	tapOk(c.pages == 6 && c.not_present == 1 && c.unknown == 1, "census: 1 absent, 1 hidden PFN");
	tapOk(c.zone[CENSUS_ZONE_MOVABLE] == 2 && c.node_zone[1][CENSUS_ZONE_MOVABLE] == 2,
	      "census: 2 pages in node 1 Movable");
	tapOk(c.zone[CENSUS_ZONE_DMA32] == 1 && c.node[0] == 2, "census: node 0 has 2 pages, 1 in DMA32");
	tapOk(c.zone[CENSUS_ZONE_OTHER] == 1, "census: a block listing several zones counts as 'other'");
	tapOk(pfns[0] == 2 * per_block + 5 && pfns[4] == 0, "census: PFNs recorded per page");
	census_fini(&cx);

	{
		static const char log[] =
			"<6>[    0.000000] cma: Reserved 192 MiB at 0x0000000040000000 on node 1\n"
			"<6>[    0.000000] other: Reserved 4 MiB at 0x1000\n"
			"<6>[    0.000000] cma: Reserved 16 MiB at 0x0000000020000000\n";
		struct census_range r[4];
		int nr = census_parse_cma_log(log, r, 4);

		tapOk(nr == 2 && r[0].start_pfn == 0x40000 && r[0].nr_pages == 49152 &&
		      r[1].start_pfn == 0x20000 && r[1].nr_pages == 4096,
		      "census: CMA areas from the boot log (6.12 and 6.1 wording), others ignored");
		tapOk(census_parse_cma_log(log, r, 1) == 1, "census: CMA areas: at most as many as asked");
	}
	/* Block 3 spans DMA and DMA32 ("none"): zoneinfo's spans decide per page. */
	g_free(writeTmp("sys/sys/devices/system/memory/memory3/valid_zones", "none\n"));
	{
		g_autofree char *zi = g_strdup_printf(
			"Node 0, zone      DMA\n  pages free     3840\n        spanned  %" PRIu64 "\n"
			"  start_pfn:           %" PRIu64 "\n"
			"Node 0, zone    DMA32\n  pages free     1\n        spanned  %" PRIu64 "\n"
			"  start_pfn:           %" PRIu64 "\n",
			per_block / 2, 3 * per_block, per_block / 2, 3 * per_block + per_block / 2);
		g_autofree char *procdir = g_build_filename(root, "proc", NULL);
		g_autofree char *kpfpath = g_build_filename(root, "proc", "kpageflags", NULL);
		uint64_t kpf[2] = { 1ULL << 22, 1ULL << 24 };	/* KPF_THP, KPF_ZERO_PAGE */

		g_mkdir_with_parents(procdir, 0755);
		g_free(writeTmp("sys/proc/zoneinfo", zi));
		/* kpageflags: pfn 2 * per_block + 5 is a THP page, + 6 the zero page. */
		fd = open(kpfpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		tapOk(fd >= 0 && pwrite(fd, kpf, 8, (off_t)((2 * per_block + 5) * 8)) == 8 &&
		      pwrite(fd, &kpf[1], 8, (off_t)((2 * per_block + 6) * 8)) == 8,
		      "census: fake kpageflags written");
		close(fd);
	}
	entries[4] = present | (3 * per_block + per_block / 2 + 1);	/* DMA32 half of block 3 */
	fd = open(pm, O_WRONLY);
	tapOk(fd >= 0 && pwrite(fd, entries, sizeof(entries), 16 * 8) == sizeof(entries),
	      "census: fake pagemap rewritten");
	close(fd);
	tapOk(census_init(&cx, root, pm) == 0, "census: init with zoneinfo and kpageflags");
	cx.zero_pfn = 7;
	cx.ncma = 1;
	cx.cma[0].start_pfn = 2 * per_block;
	cx.cma[0].nr_pages = 6;
	tapOk(census_take(&cx, (void *)(uintptr_t)(16 * 4096), 6 * 4096, &c, pfns) == 0 &&
	      c.zone[CENSUS_ZONE_DMA] == 1 && c.zone[CENSUS_ZONE_DMA32] == 2 &&
	      c.zone[CENSUS_ZONE_OTHER] == 0,
	      "census: a block spanning DMA and DMA32 is split per page by zoneinfo's spans");
	tapOk(c.thp == 1 && c.zero == 2 && c.cma == 1,
	      "census: 1 THP page (kpageflags), 2 zero-page mappings (PFN, KPF_ZERO_PAGE), 1 page in CMA");
	census_fini(&cx);
	tapOk(census_init(&cx, "/nonexistent", pm) < 0 && errno == ENOENT,
	      "census: missing sysfs tree fails with ENOENT");
}

static void testAgent(void)
{
	mhlExecStatus st = { 0 };
	long long pid = 0;

	tapOk(mhlAgentParseExecPid("{\"return\":{\"pid\":97}}", &pid) == 0 && pid == 97,
	      "agent: guest-exec reply gives the pid");
	tapOk(mhlAgentParseExecPid("{\"error\":{\"class\":\"GenericError\"}}", &pid) < 0 &&
	      strstr(mhlErrorLast(), "GenericError"), "agent: an error reply is reported, quoted");
	mhlErrorReset();
	tapOk(mhlAgentParseExecPid("not json", &pid) < 0, "agent: garbage is an error");
	mhlErrorReset();
	tapOk(mhlAgentParseExecStatus("{\"return\":{\"exited\":true,\"exitcode\":3,"
				      "\"out-data\":\"aGVsbG8K\",\"err-data\":\"b29wcw==\"}}", &st) == 0 &&
	      st.exited && st.exitcode == 3 && !strcmp(st.out, "hello\n") && !strcmp(st.err, "oops"),
	      "agent: exec-status decodes exit code and base64 output");
	mhlExecStatusClear(&st);
	tapOk(mhlAgentParseExecStatus("{\"return\":{\"exited\":false}}", &st) == 0 && !st.exited,
	      "agent: a running process is not exited");
	mhlExecStatusClear(&st);
	tapOk(mhlAgentParseExecStatus("{\"return\":{\"exitcode\":0}}", &st) < 0,
	      "agent: exec-status without 'exited' is an error");
	mhlErrorReset();
}

static void testGuest(void)
{
	static const char qmp[] = "{\"return\":[{\"type\":\"dimm\",\"data\":{\"node\":1,\"size\":5}},"
		"{\"type\":\"virtio-mem\",\"data\":{\"node\":1,\"size\":268435456,"
		"\"requested-size\":0,\"id\":\"virtiomem0\"}}]}";
	static const char zoneinfo[] = "Node 0, zone    DMA32\n  pages free     1000\n"
		"        spanned  2000\n        present  1900\n        managed  1800\n"
		"Node 1, zone  Movable\n  pages free     7\n        present  262144\n";
	g_autoptr(json_object) vm = mhlParseVmstat("nr_free_pages 123\nnr_foll_pin_acquired 32768\nbad\n");
	g_autoptr(json_object) zi = mhlParseZoneinfo(zoneinfo);
	g_autoptr(json_object) mb = mhlParseMemoryBlocks("memory0 online DMA32\nmemory8 online Movable\n"
							  "memory9 online Movable\nmemory10 offline Movable Normal\n");
	g_autoptr(json_object) cs = mhlConsoleScan(
		"Booting from ROM..\n[    1.5] WARNING: CPU: 0 PID: 1 at mm/gup.c:42\n"
		"user says BUG: not a kernel line\n[  12.000001] Kernel panic - not syncing\n"
		"\x1b[2J[    0.1] normal line\n");
	unsigned long long size = 0, req = 1;
	json_object *v;

	tapOk(mhlParseMemoryDevices(qmp, 1, &size, &req) == 0 && size == 268435456 && req == 0,
	      "qmp: virtio-mem size and requested-size of node 1 (dimm skipped)");
	tapOk(mhlParseMemoryDevices(qmp, 0, &size, &req) < 0, "qmp: no device on node 0 is an error");
	mhlErrorReset();
	tapOk(json_object_object_get_ex(vm, "nr_foll_pin_acquired", &v) && json_object_get_int64(v) == 32768 &&
	      json_object_object_length(vm) == 2, "vmstat: counters parsed, junk line skipped");
	tapOk(json_object_array_length(zi) == 2 &&
	      json_object_get_int64(json_object_object_get(json_object_array_get_idx(zi, 1), "present")) == 262144 &&
	      !strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(zi, 1), "zone")), "Movable"),
	      "zoneinfo: node 1 Movable present pages");
	tapOk(json_object_get_int(json_object_object_get(mb, "online")) == 3 &&
	      json_object_get_int(json_object_object_get(mb, "offline")) == 1 &&
	      json_object_get_int(json_object_object_get(json_object_object_get(mb, "online_by_zone"), "Movable")) == 2,
	      "memory blocks: 3 online (2 Movable), 1 offline");
	tapOk(json_object_array_length(cs) == 2 &&
	      !strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(cs, 0), "kind")), "warning") &&
	      !strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(cs, 1), "kind")), "panic"),
	      "console: a WARNING and a panic found, non-kernel line ignored");
}

static const char liveXML[] =
	"<domain type='qemu'><name>t</name><devices>"
	"<memory model='virtio-mem'><target><size unit='KiB'>1048576</size><node>1</node>"
	"<block unit='KiB'>2048</block><requested unit='KiB'>1048576</requested>"
	"<current unit='KiB'>1048576</current></target><alias name='virtiomem0'/></memory>"
	"</devices></domain>";

static void testDomain(void)
{
	g_autofree char *dev = mhlVirtioMemUpdateXML(liveXML, 1, 0);
	g_autofree char *alias = mhlVirtioMemAlias(liveXML, 1);
	g_autofree char *none = NULL, *twice = NULL, *bad = NULL, *xml = NULL;
	g_autofree char *two = g_strdup_printf("%.*s%s", (int)(strstr(liveXML, "</devices>") - liveXML),
					       liveXML, strstr(liveXML, "<memory"));
	const char *const pairs[] = { "A", "1", "BC", "two", NULL };
	g_autofree char *t1 = mhlTemplateExpand("x@A@y@BC@z", pairs, "t");
	g_autofree char *t2 = NULL;
	g_autofree char *tmpl = mhlFileRead("domains/numa-virtio-mem.xml", NULL);
	g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/demo.yaml");
	g_autoptr(mhlScenario) dev_s = NULL;
	g_autofree char *dev_xml = NULL;
	xmlDocPtr doc;

	tapOk(dev && strstr(dev, "<requested unit=\"KiB\">0</requested>") && !strstr(dev, "<current"),
	      "resize XML: requested set to 0 KiB, <current> dropped");
	tapOk(dev && strstr(dev, "<node>1</node>") && strstr(dev, "virtiomem0"),
	      "resize XML: keeps node and alias so libvirt finds the device");
	tapOk(alias && !strcmp(alias, "virtiomem0"), "alias of node 1's virtio-mem is virtiomem0");
	none = mhlVirtioMemUpdateXML(liveXML, 0, 0);
	tapOk(!none && strstr(mhlErrorLast(), "0 virtio-mem devices on node 0"),
	      "resize XML: no device on the node is an error saying so");
	mhlErrorReset();
	twice = mhlVirtioMemUpdateXML(two, 1, 0);
	tapOk(!twice && strstr(mhlErrorLast(), "2 virtio-mem devices"), "resize XML: two matches is an error");
	mhlErrorReset();
	bad = mhlVirtioMemUpdateXML("<domain", 1, 0);
	tapOk(!bad && strstr(mhlErrorLast(), "cannot parse"), "resize XML: broken XML is an error");
	mhlErrorReset();
	tapOk(t1 && !strcmp(t1, "x1ytwoz"), "template: placeholders replaced");
	t2 = mhlTemplateExpand("@NOPE@", pairs, "t.xml");
	tapOk(!t2 && strstr(mhlErrorLast(), "unknown placeholder '@NOPE@'"), "template: unknown placeholder named");
	mhlErrorReset();
	if (tmpl && s) {
		mhlDomainParams p = { "n", "tcg", "/k", "/i", "/c.log", "/usr/bin/qemu-system-x86_64" };

		xml = mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", s, &p);
	}
	tapOk(xml && strstr(xml, "<cell id='1' cpus='1' memory='131072' unit='KiB'/>") &&
	      strstr(xml, "<requested unit='KiB'>1048576</requested>") &&
	      strstr(xml, "memhp_default_state=online_movable") && strstr(xml, "type='qemu'"),
	      "domain XML of the demo: node 1 cell, virtio-mem requested, online_movable, TCG");
	tapOk(xml && !strstr(xml, "<iommu") && !strstr(xml, "<qemu:commandline") &&
	      !strstr(xml, "intel_iommu"), "domain XML of the demo: no vIOMMU, no edu");
	mhlErrorReset();
	if (tmpl && (dev_s = mhlScenarioLoad("scenarios/pin-vfio.yaml"))) {
		mhlDomainParams p = { "n", "tcg", "/k", "/i", "/c.log", "/usr/bin/qemu-system-x86_64" };

		dev_xml = mhlDomainXMLBuild(tmpl, "numa-virtio-mem.xml", dev_s, &p);
	}
	doc = dev_xml ? xmlReadMemory(dev_xml, (int)strlen(dev_xml), "d.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING) : NULL;
	tapOk(doc && strstr(dev_xml, "<iommu model='intel'>") && strstr(dev_xml, "intremap='on'") &&
	      strstr(dev_xml, "<ioapic driver='qemu'/>") && strstr(dev_xml, "intel_iommu=on") &&
	      strstr(dev_xml, "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'") &&
	      strstr(dev_xml, "<qemu:arg value='{\"driver\":\"edu\""),
	      "domain XML with devices {iommu, edu}: well-formed, intel vIOMMU + split I/O APIC + intel_iommu=on, edu as a JSON -device");
	xmlFreeDoc(doc);
	mhlErrorReset();
}

static void testRecord(void)
{
	g_autofree char *path = g_build_filename(tmpdir, "trials.jsonl", NULL);
	g_autoptr(json_object) a = json_tokener_parse("{\"trial\":\"a\",\"v\":\"x/y\"}");
	g_autoptr(json_object) b = json_tokener_parse("{\"trial\":\"b\"}");
	g_autofree char *content = NULL;
	g_auto(GStrv) lines = NULL;

	tapOk(mhlRecordAppend(path, a) == 0 && mhlRecordAppend(path, b) == 0, "record: two appends");
	g_file_get_contents(path, &content, NULL, NULL);
	lines = g_strsplit(content ? content : "", "\n", -1);
	tapOk(g_strv_length(lines) == 3 && !strcmp(lines[0], "{\"trial\":\"a\",\"v\":\"x/y\"}") &&
	      !strcmp(lines[1], "{\"trial\":\"b\"}") && !*lines[2],
	      "record: one complete line each, newline-terminated");
	tapOk(mhlRecordAppend("/nonexistent/dir/trials.jsonl", a) < 0 &&
	      strstr(mhlErrorLast(), "/nonexistent/dir/trials.jsonl"), "record: unwritable path is named");
	mhlErrorReset();
}

static void testScenarioErrors(void)
{
	static const struct {
		const char *desc, *yaml, *want;
	} cases[] = {
		{ "unknown key", "name: x\nnodez: []\n", "2:1: unknown key 'nodez'" },
		{ "wrong type", "nodes: 3\n", "1:8: nodes must be a list" },
		{ "negative size", "nodes:\n  - memory: -1G\n", "2:13: node memory: '-1G' is not a size" },
		{ "unparsable size", "nodes:\n  - memory: lots\n", "'lots' is not a size" },
		{ "not a block multiple",
		  "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 3M}\n",
		  "3:17: virtio_mem: size" },
		{ "requested > size",
		  "nodes:\n  - memory: 1G\n    virtio_mem: {size: 1G, block: 2M, requested: 2G}\n",
		  "at most size" },
		{ "node that does not exist",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 2}\n",
		  ":4: step 'pin' names node 2, but the guest has 1 node(s)" },
		{ "workload never started",
		  "nodes:\n  - memory: 1G\nsteps:\n  - release: {id: ghost}\n",
		  ":4: step 'release' refers to workload 'ghost', which was never started" },
		{ "unknown step", "nodes:\n  - memory: 1G\nsteps:\n  - dance: {}\n", "4:5: unknown step 'dance'" },
		{ "missing key", "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a}\n", "step 'pin' needs 'size'" },
		{ "YAML syntax", "nodes: [\n", "YAML syntax error" },
		{ "unknown kernel", "kernel: '5.4'\nnodes:\n  - memory: 1G\n", "unknown kernel '5.4'" },
		{ "prebuilt kernel without config", "kernel: {bzimage: /b}\nnodes:\n  - memory: 1G\n",
		  "1:9: a prebuilt kernel needs both 'bzimage' and 'config'" },
		{ "unknown pin_policy", "pin_policy: sometimes\nnodes:\n  - memory: 1G\n",
		  "1:13: unknown pin_policy 'sometimes'" },
		{ "expect: unknown unplug value",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {unplug: maybe}\n",
		  "4:22: unplug: expected reached or short, not 'maybe'" },
		{ "expect: unplug before any resize",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {unplug: short}\n",
		  ":4: expect: 'unplug' needs a resize step before it" },
		{ "expect: movable_after_pin not a number",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {movable_after_pin: some}\n",
		  "movable_after_pin (pages, or all): 'some' is not an integer" },
		{ "matrix: axis is not a list",
		  "matrix: {size: 1M}\nnodes:\n  - memory: 1G\n", "1:16: a matrix axis must be a list" },
		{ "matrix: unknown axis in a substitution",
		  "matrix: {size: [1M]}\nnodes:\n  - memory: ${mem}\n", "3:13: '${mem}' is not a matrix axis" },
		{ "substitution without a matrix",
		  "nodes:\n  - memory: ${mem}\n", "(the scenario has no matrix)" },
		{ "matrix: exclude names an unknown axis",
		  "matrix: {size: [1M], exclude: [{sise: 1M}]}\nnodes:\n  - memory: 1G\n",
		  "1:33: exclude names 'sise', which is not a matrix axis" },
		{ "matrix: everything excluded",
		  "matrix: {size: [1M], exclude: [{size: 1M}]}\nnodes:\n  - memory: 1G\n",
		  "the matrix's exclude rules leave no trial" },
		{ "matrix: a substituted value is still checked",
		  "matrix: {size: [1M, lots]}\nnodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: \"${size}\", node: 0}\n",
		  "5:24: size: 'lots' is not a size" },
		{ "expect: vmstat change not a number",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {vmstat: {pgfault: lots}}\n",
		  "vmstat pgfault: expected a change N or \">=N\", not 'lots'" },
		{ "expect: vmstat counter name",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {vmstat: {'Bad Name': 1}}\n",
		  "'Bad Name' is not a /proc/vmstat counter name" },
		{ "pin: fails_with keyed by something not a policy",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, fails_with: {often: ENOMEM}}\n",
		  "fails_with: a mapping has one key, a pin_policy" },
		{ "wait: until something unknown",
		  "nodes:\n  - memory: 1G\nsteps:\n  - wait: {seconds: 5, until: sunrise}\n",
		  "until: expected converged, not 'sunrise'" },
		{ "io of a workload never started",
		  "nodes:\n  - memory: 1G\nsteps:\n  - io: {id: ghost}\n",
		  "step 'io' refers to workload 'ghost', which was never started" },
		{ "expect: integrity false",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {integrity: false}\n",
		  "integrity: only 'true' is meaningful here" },
		{ "sysrq: not one key",
		  "nodes:\n  - memory: 1G\nsteps:\n  - sysrq: {key: cc}\n", "4:18: sysrq key: expected one letter" },
		{ "expect: unknown policy",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {policy: maybe}\n",
		  "unknown policy 'maybe'" },
		{ "resize without device",
		  "nodes:\n  - memory: 1G\n  - memory: 64M\nsteps:\n  - resize: {node: 1, requested: 0}\n",
		  "node 1 has no virtio_mem device" },
		{ "pin: touch read with a mode that writes",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, workload: io_uring, touch: read}\n",
		  ":4: pin: touch: read (a read-only pin of never-written memory) is for workload gup only, not io_uring" },
		{ "pin: split of a buffer that is not THP",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 2M, node: 0, split: mprotect}\n",
		  ":4: pin: split needs backing: thp, touch: before" },
		{ "pin: split of less than a huge page",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0, backing: thp, split: munmap}\n",
		  "a size in whole 2 MiB pages" },
		{ "pin: unknown split",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 2M, node: 0, backing: thp, split: madvise}\n",
		  "4:58: unknown split 'madvise' (known: mprotect, munmap)" },
		{ "expect: census of an unknown count",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {census_after: {Highmem: 0}}\n",
		  "5:29: census_after: unknown count 'Highmem' (known: pages, not_present" },
		{ "expect: census value not a count",
		  "nodes:\n  - memory: 1G\nsteps:\n  - pin: {id: a, size: 1M, node: 0}\n  - expect: {census_before: {cma: some}}\n",
		  "5:35: census_before cma: expected pages N, \">=N\" or all, not 'some'" },
		{ "expect: census before any pin",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {census_after: {Movable: 0}}\n",
		  ":4: expect: 'census_after' needs a pin step before it" },
		{ "expect: unknown kernel filter",
		  "nodes:\n  - memory: 1G\nsteps:\n  - expect: {kernel: '5.10'}\n",
		  "4:22: unknown kernel '5.10' (known: 6.12, 6.1)" },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = writeTmp("s.yaml", cases[i].yaml);
		g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
		const char *msg = mhlErrorLast();

		tapOk(!s && strstr(msg, path) && strstr(msg, cases[i].want),
		      "scenario error: %s -> '%s'", cases[i].desc, cases[i].want);
		if (s || !strstr(msg, cases[i].want))
			printf("#   got: %s\n", msg);
		mhlErrorReset();
	}
	{
		g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/demo.yaml");

		tapOk(s && s->nnodes == 2 && s->nsteps == 4 && s->steps[0].size == 256ULL << 20 &&
		      s->steps[1].requested == 0 && s->nodes[1].vmem_size == 1ULL << 30,
		      "scenario: the demo loads (2 nodes, 4 steps, 256 MiB pin, request 0)");
	}
	{
		g_autoptr(mhlScenario) s = mhlScenarioLoad("scenarios/pin-policy-ab.yaml");

		tapOk(s && !strcmp(s->pin_policy, "series") && s->steps[2].type == MHL_STEP_EXPECT &&
		      s->steps[2].movable_after_pin == MHL_ALL && !mhlExpectApplies(s, &s->steps[2]) &&
		      mhlExpectApplies(s, &s->steps[1]) && s->steps[5].unplug == MHL_UNPLUG_SHORT,
		      "scenario: pin-policy-ab's expect steps parse, filtered by policy");
		tapOk(s && mhlScenarioOverride(s, "6.1", "baseline") == 0 &&
		      !strcmp(s->kernel, "6.1") && mhlExpectApplies(s, &s->steps[2]) &&
		      mhlScenarioOverride(s, "5.4", NULL) < 0,
		      "scenario: --kernel/--pin-policy override, unknown kernel refused");
	}
	mhlErrorReset();
	{
		g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
		int n = mhlScenarioLoadAll("scenarios/conformance/4-zero-page.yaml", all);
		mhlScenario *a = n == 4 ? all->pdata[0] : NULL, *d = n == 4 ? all->pdata[3] : NULL;
		const mhlStep *e = a ? &a->steps[2] : NULL;

		tapOk(a && e->type == MHL_STEP_EXPECT && !strcmp(e->kernel, "6.1") &&
		      !mhlExpectApplies(a, e) && mhlExpectApplies(d, &d->steps[2]) &&
		      !strcmp(a->steps[0].touch, "read") && a->steps[1].ncensus == 2 &&
		      a->steps[1].census_val[0] == MHL_ALL && !a->steps[1].census_after[0],
		      "scenario: c4 parses: touch read, census_before all, expect filtered by kernel");
	}
	{
		g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
		int n = mhlScenarioLoadAll("scenarios/conformance/5-split-thp.yaml", all);
		mhlScenario *b = n == 8 ? all->pdata[1] : NULL;

		tapOk(b && !strcmp(b->steps[0].split, "munmap") && b->steps[1].census_atleast[1] &&
		      b->steps[1].census_val[1] == 32704 && !strcmp(b->steps[1].census_key[1], "thp"),
		      "scenario: c5 parses: 8 trials, split from the matrix, census thp >=32704");
	}
	mhlErrorReset();
	{
		g_autofree char *path = writeTmp("m.yaml",
			"name: m\nkernel: \"${k}\"\npin_policy: ${p}\n"
			"matrix:\n  k: [\"6.12\", \"6.1\"]\n  p: [series, baseline]\n"
			"  exclude:\n    - {k: \"6.1\", p: baseline}\n"
			"nodes:\n  - memory: 1G\n  - memory: 64M\n"
			"steps:\n  - pin: {id: a, size: 1M, node: 1}\n");
		g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)mhlScenarioFree);
		int n = mhlScenarioLoadAll(path, all);
		mhlScenario *t2 = n == 3 ? all->pdata[1] : NULL, *t3 = n == 3 ? all->pdata[2] : NULL;

		tapOk(n == 3 && !strcmp(((mhlScenario *)all->pdata[0])->name, "m:k=6.12,p=series") &&
		      !strcmp(t2->name, "m:k=6.12,p=baseline") && !strcmp(t2->pin_policy, "baseline") &&
		      !strcmp(t3->name, "m:k=6.1,p=series") && !strcmp(t3->kernel, "6.1") &&
		      t3->nparams == 2 && !strcmp(t3->param_key[0], "k") && !strcmp(t3->param_val[1], "series") &&
		      !strcmp(t3->scenario_name, "m"),
		      "matrix: 2 x 2 minus one exclude -> 3 trials, last axis fastest, ids from the values");
		tapOk(!mhlScenarioLoad(path) && strstr(mhlErrorLast(), "makes 3 trials"),
		      "matrix: mhlScenarioLoad refuses a file of several trials");
		mhlErrorReset();
	}
	{
		mhlHostFit fit = { .need_bytes = 2ULL << 30, .avail_bytes = 20ULL << 30, .cores = 2 };
		mhlHostFit tight = { .need_bytes = 2ULL << 30, .avail_bytes = 5ULL << 30, .cores = 16 };
		mhlHostFit none = { .need_bytes = 2ULL << 30, .avail_bytes = 1ULL << 30, .cores = 2 };

		tapOk(mhlJobsDefault(&fit) == 2 && mhlJobsDefault(&tight) == 2 && mhlJobsDefault(&none) == 0,
		      "-j default: min(cores, guests that fit in MemAvailable): 2, 2, 0");
	}
	{
		const char *cfg = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_CC=m\nCONFIG_DD=y";
		g_autofree char *none = mhlKconfigMissing(cfg, "# comment\nA\n\nDD\n");
		g_autofree char *two = mhlKconfigMissing(cfg, "A\nB\nCC\nD\n");

		tapOk(!none, "kconfig: every required option =y -> nothing missing");
		tapOk(two && !strcmp(two, "CONFIG_B CONFIG_CC CONFIG_D"),
		      "kconfig: unset, =m and a name that is only a prefix (D of DD) are missing: '%s'",
		      two ? two : "(none)");
	}
	mhlErrorReset();
}

/* soak: durations, and the schedule as a pure function of (seed, cycle) within its bounds. */
static void testSoak(void)
{
	static const struct { const char *in; double want; } durs[] = {
		{ "90s", 90 }, { "30m", 1800 }, { "8h", 28800 }, { "1h30m", 5400 }, { "2d", 172800 },
		{ "8x", -1 }, { "", -1 }, { "0", -1 },
	};
	g_autofree char *path = writeTmp("soak.yaml",
		"name: s\nnodes:\n  - memory: 512MiB\n  - memory: 64MiB\n"
		"    virtio_mem: {size: 512MiB, block: 2MiB, requested: 512MiB}\n"
		"  - memory: 64MiB\n    virtio_mem: {size: 256MiB, block: 2MiB, requested: 256MiB}\n"
		"steps:\n  - snapshot:\n");
	g_autofree char *none = writeTmp("nodev.yaml", "name: n\nnodes:\n  - memory: 512MiB\nsteps:\n  - snapshot:\n");
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	g_autoptr(mhlScenario) n = mhlScenarioLoad(none);
	mhlSoakCycle a, b;
	bool same = true, varies = false, bounded = true;
	size_t i;
	int c;

	for (i = 0; i < G_N_ELEMENTS(durs); i++)
		if (mhlSoakDurationParse(durs[i].in) != durs[i].want)
			break;
	tapOk(i == G_N_ELEMENTS(durs), "soak: --duration 90s, 30m, 8h, 1h30m, 2d parse; 8x, empty, 0 do not");
	if (!tapOk(s && n, "soak: the test scenarios load")) {
		mhlErrorReset();
		return;
	}
	for (c = 1; c <= 200; c++) {
		const mhlNode *nd;

		mhlSoakSchedule(s, 42, c, &a);
		mhlSoakSchedule(s, 42, c, &b);
		same &= a.node == b.node && a.pin_bytes == b.pin_bytes && a.requested_bytes == b.requested_bytes &&
			!strcmp(a.workload, b.workload);
		mhlSoakSchedule(s, 43, c, &b);
		varies |= a.pin_bytes != b.pin_bytes || a.requested_bytes != b.requested_bytes;
		nd = &s->nodes[a.node];
		bounded &= nd->vmem_size && a.pin_bytes >= 2 << 20 && a.pin_bytes <= nd->vmem_requested / 8 &&
			   a.pin_bytes % (2 << 20) == 0 && a.requested_bytes <= nd->vmem_requested / 2 &&
			   a.requested_bytes % nd->vmem_block == 0 && a.full_bytes == nd->vmem_requested;
	}
	tapOk(same, "soak: a cycle's schedule depends on (seed, cycle) only");
	tapOk(varies, "soak: another seed gives another schedule");
	tapOk(bounded, "soak: 200 cycles pin 2 MiB..1/8 of a device node and unplug it to 0..1/2 in blocks");
	mhlSoakSchedule(s, 7, 1, &a);
	tapOk(a.node == 2 && !strcmp(a.workload, "gup") && a.pin_bytes == 27262976 &&
	      a.requested_bytes == 56623104, "soak: seed 7's cycle 1 is docs/soak.md's (node 2, gup, 26 MiB, to 54 MiB)");
	tapOk(mhlSoakSchedule(n, 1, 1, &a) < 0 && strstr(mhlErrorLast(), "no node with a plugged virtio-mem device"),
	      "soak: a guest without a virtio-mem device is refused");
	mhlErrorReset();
}

int main(void)
{
	tmpdir = g_dir_make_tmp("mhl-unit-XXXXXX", NULL);
	tapPlan(16 + 20 + 6 + 6 + 11 + 3 + 50 + 7);
	testSizes();
	testCensus();
	testAgent();
	testGuest();
	testDomain();
	testRecord();
	testScenarioErrors();
	testSoak();
	mhlRemoveTree(tmpdir);
	return tapFinish();
}
