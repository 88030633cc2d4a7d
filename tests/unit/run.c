/*
 * tests/unit/run.c - `memhp-lab run` (orchestrator/cli/run.h): the default
 * -j from the host's fit, and what a guest can make resident item by item
 * (scenario/fit.c; issue 36, item 5): a 64 GiB device counts what its steps
 * touch, a preallocated or huge-page one, or one an exec step may touch, in
 * full.
 */
#include <glib.h>
#include <string.h>

#include "cli/run.h"
#include "record/record.h"
#include "trial/trial.h"
#include "scenario/scenario.h"
#include "trial/steps.h"
#include "unit.h"
#include "util.h"

static bool jobsDefault(void)
{
	mhlHostFit fit = { .need_bytes = 2ULL << 30, .avail_bytes = 20ULL << 30, .cores = 2 };
	mhlHostFit tight = { .need_bytes = 2ULL << 30, .avail_bytes = 5ULL << 30, .cores = 16 };
	mhlHostFit none = { .need_bytes = 2ULL << 30, .avail_bytes = 1ULL << 30, .cores = 2 };
	int a = mhlJobsDefault(&fit), b = mhlJobsDefault(&tight), c = mhlJobsDefault(&none);

	if (a != 2 || b != 2 || c != 0)
		unitDiag("got %d, %d, %d", a, b, c);
	return unitExpect(a == 2 && b == 2 && c == 0);
}

#define FIT_NODES(boot, dev) "nodes:\n  - memory: " boot "\n  - memory: 128MiB\n    virtio_mem: {size: " dev ", requested: 0}\n"
#define FIT_PLUG "steps:\n  - resize: {node: 1, requested: 64GiB}\n"

/* A scenario, whether its devices count whole (a soak), its total in MiB and a piece of its text. */
static const struct fitRow {
	const char *desc, *yaml;
	bool whole;
	uint64_t mib;
	const char *text;
} fits[] = {
	{ "a 64 GiB device plugged and nothing touched: 128 MiB of it", FIT_NODES("1GiB", "64GiB") FIT_PLUG, false,
	  1024 + 128 + 128 + 256, "boot memory 1152 MiB + node 1's hotplug memory 128 of 65536 MiB (its steps touch 0 MiB + 128 MiB for the guest's own use) + 256 MiB for QEMU" },
	{ "8 GiB held in a 64 GiB device: boot + 8 GiB + 128 MiB + QEMU", FIT_NODES("10GiB", "64GiB") FIT_PLUG
	  "  - pin: {id: a, workload: hold, size: 8GiB, node: 1}\n", false, 10240 + 128 + 8192 + 128 + 256,
	  "node 1's hotplug memory 8320 of 65536 MiB (its steps touch 8192 MiB" },
	{ "two pins and a bench on node 1 add up: 256 + 256 + 512 MiB", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - pin: {id: a, size: 256MiB}\n  - pin: {id: b, size: 256MiB}\n  - bench: {size: 512MiB, node: 1}\n",
	  false, 1152 + 1024 + 128 + 256, "(its steps touch 1024 MiB + 128 MiB" },
	{ "a pin on node 0 is in its boot memory: nothing more of node 1's device", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - pin: {id: a, size: 512MiB, node: 0}\n", false, 1152 + 128 + 256, "128 of 65536 MiB (its steps touch 0 MiB" },
	{ "a pin larger than the device counts the device: 1 GiB, not 4", FIT_NODES("1GiB", "1GiB")
	  "steps:\n  - pin: {id: a, size: 4GiB, node: 1, measure: true}\n", false, 1152 + 1024 + 256, "1024 of 1024 MiB (its steps touch 4096 MiB" },
	{ "a huge page pool of 512 x 2 MiB on node 1 counts 1 GiB", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - hugepages: {node: 1, count: 512, size: 2MiB}\n", false, 1152 + 1024 + 128 + 256, "(its steps touch 1024 MiB" },
	{ "init_on_free=1 on the command line: the 64 GiB device in full (onlining frees, and so writes, every page)",
	  "cmdline: \"quiet init_on_free=1\"\n" FIT_NODES("1GiB", "64GiB") FIT_PLUG, false, 1152 + 65536 + 256,
	  "node 1's hotplug memory 65536 MiB in full (init_on_free=1 writes every page the guest frees, onlining included)" },
	{ "page_poison=on: the device in full as well", "cmdline: \"page_poison=on\"\n"
	  FIT_NODES("1GiB", "64GiB") FIT_PLUG, false, 1152 + 65536 + 256, "in full (page_poison=1 writes every page" },
	{ "init_on_free=0 (and xinit_on_free=1): 128 MiB of the device, as without it",
	  "cmdline: \"init_on_free=0 xinit_on_free=1\"\n" FIT_NODES("1GiB", "64GiB") FIT_PLUG, false, 1152 + 128 + 256,
	  "128 of 65536 MiB (its steps touch 0 MiB" },
	{ "a kernel the lab did not build (a .deb): the device in full, its defaults unknown",
	  "kernel: {deb: /nonexistent/linux-image.deb}\n" FIT_NODES("1GiB", "64GiB") FIT_PLUG, false, 1152 + 65536 + 256,
	  "in full (a kernel the lab did not build may zero every page it frees (CONFIG_INIT_ON_FREE_DEFAULT_ON))" },
	{ "a preallocated 64 GiB device counts in full", FIT_NODES("1GiB", "64GiB") FIT_PLUG
	  "memory_backing: {source: anonymous, prealloc: true}\n", false, 1152 + 65536 + 256,
	  "node 1's hotplug memory 65536 MiB in full (preallocated)" },
	{ "a device on host huge pages counts in full", FIT_NODES("1GiB", "64GiB") FIT_PLUG "memory_backing: hugepages\n",
	  false, 1152 + 65536 + 256, "65536 MiB in full (on host huge pages)" },
	{ "an exec step may touch anything: the device in full, the step's line named", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - exec: {argv: [/bin/true]}\n", false, 1152 + 65536 + 256, "in full (the exec step at line 6 may touch anything)" },
	{ "a soak (whole) counts every device in full", FIT_NODES("1GiB", "64GiB") FIT_PLUG, true,
	  1152 + 65536 + 256, "in full (a soak plugs, touches and pins anywhere in it)" },
	{ "a virtio-mem device attached by a step counts like one from boot: 128 MiB + its pin",
	  "nodes:\n  - memory: 1GiB\n  - memory: 128MiB\nsteps:\n  - vmem: {id: v, node: 1, size: 32GiB, requested: 1GiB, action: attach}\n"
	  "  - pin: {id: a, size: 256MiB, node: 1}\n", false, 1152 + 384 + 256, "node 1's hotplug memory 384 of 32768 MiB" },
	{ "a DIMM attached by a step counts like a device: 128 MiB of its 256 with nothing touched",
	  "nodes:\n  - memory: 1GiB\n  - memory: 128MiB\nsteps:\n  - dimm: {id: d, node: 1, size: 256MiB, action: attach}\n",
	  false, 1152 + 128 + 256, "node 1's hotplug memory 128 of 256 MiB" },
	{ "a DIMM attached, pinned, released and detached counts once: 256 MiB, not 512",
	  "nodes:\n  - memory: 1GiB\n  - memory: 128MiB\nsteps:\n  - dimm: {id: d, node: 1, size: 256MiB, action: attach}\n"
	  "  - pin: {id: a, size: 256MiB, node: 1}\n  - release: {id: a}\n  - dimm: {id: d, action: detach}\n",
	  false, 1152 + 256 + 256, "node 1's hotplug memory 256 of 256 MiB (its steps touch 256 MiB" },
	{ "a selftest step may touch anything: the device in full, the step's line named", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - selftest: {name: gup_longterm_counters}\n", false, 1152 + 65536 + 256,
	  "in full (the selftest step at line 6 may touch anything)" },
	{ "an exec then a selftest: the first one (line 6) named", FIT_NODES("1GiB", "64GiB")
	  "steps:\n  - exec: {argv: [/bin/true]}\n  - selftest: {name: gup_longterm_counters}\n", false,
	  1152 + 65536 + 256, "in full (the exec step at line 6 may touch anything)" },
	{ "two preallocated devices of 16 EiB less 1 TiB saturate, they do not wrap", FIT_NODES("1GiB", "16777215TiB")
	  "  - memory: 128MiB\n    virtio_mem: {size: 16777215TiB, requested: 0}\n"
	  "memory_backing: {source: anonymous, prealloc: true}\n", false, UINT64_MAX >> 20, "in full (preallocated)" },
};

static bool fitJudge(const void *row, GString *desc)
{
	const struct fitRow *c = row;
	g_autofree char *path = NULL, *text = NULL;
	g_autoptr(mhlScenario) s = NULL;
	mhlGuestFit f;

	g_string_printf(desc, "fit: %s: %" G_GUINT64_FORMAT " MiB", c->desc, c->mib);
	if (unitListing)
		return true;
	path = unitWriteTmp("fit.yaml", c->yaml);
	if (!(s = mhlScenarioLoad(path))) {
		unitDiag("  refused: %s", mhlErrorLast());
		mhlErrorReset();
		return unitExpect(false);
	}
	mhlScenarioGuestFit(s, c->whole, &f);
	text = mhlGuestFitText(&f);
	if (f.total >> 20 != c->mib || !strstr(text, c->text) || mhlScenarioGuestBytes(s, c->whole) != f.total)
		unitDiag("  got %" G_GUINT64_FORMAT " MiB: %s", f.total >> 20, text);
	return unitExpect(f.total >> 20 == c->mib && strstr(text, c->text) &&
			  mhlScenarioGuestBytes(s, c->whole) == f.total);
}

/* ---- grid: the number a matrix grid's cell shows, from the finished record (mhlTrialGrid) ---- */

#define GRID_NODES "nodes:\n  - memory: 512MiB\n  - memory: 128MiB\n    virtio_mem: {size: 512MiB, requested: 0}\n" \
	"steps:\n  - resize: {node: 1, requested: 256MiB}\n"

/* rec.grid of a record @rec (JSON) under the scenario's grid: @grid (YAML); "" when none was written. */
static char *gridOf(const char *grid, const char *rec)
{
	g_autofree char *yaml = g_strdup_printf("name: g\ngrid: %s\n%s", grid, GRID_NODES);
	g_autofree char *path = unitWriteTmp("grid.yaml", yaml);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	g_autoptr(json_object) r = json_tokener_parse(rec);
	json_object *g = NULL;
	char *out;

	if (!s || !r) {
		unitDiag("%s", s ? "the record does not parse" : mhlErrorLast());
		mhlErrorReset();
		return g_strdup("");
	}
	mhlTrialGrid(s, r);
	out = g_strdup(json_object_object_get_ex(r, "grid", &g) ?
		       json_object_to_json_string_ext(g, JSON_C_TO_STRING_PLAIN) : "");
	unitDiag("grid: %s", out);
	return out;
}

#define GRID_VMSTAT "{label: migrated, vmstat: gup_longterm_migrate_success}"

/* vmstat: the counter's change over the trial, after less before. */
static bool gridVmstat(void)
{
	g_autofree char *g = gridOf(GRID_VMSTAT, "{\"guest_before\":{\"vmstat\":{\"gup_longterm_migrate_success\":100}},"
				    "\"guest_after\":{\"vmstat\":{\"gup_longterm_migrate_success\":65636}}}");

	return unitExpect(!strcmp(g, "{\"label\":\"migrated\",\"value\":65536,"
				  "\"of\":\"the change of \\/proc\\/vmstat gup_longterm_migrate_success over the trial\"}"));
}

/* A snapshot without the counter (a trial that ended early): no number, not the other alone. */
static bool gridVmstatMissing(void)
{
	g_autofree char *a = gridOf(GRID_VMSTAT, "{\"guest_after\":{\"vmstat\":{\"gup_longterm_migrate_success\":65636}}}");
	g_autofree char *b = gridOf(GRID_VMSTAT, "{\"guest_before\":{\"vmstat\":{\"gup_longterm_migrate_success\":100}}}");

	return unitExpect(strstr(a, "\"value\":null") && strstr(b, "\"value\":null"));
}

/* ratio: the first over the second; over 0 there is no number. */
static bool gridRatio(void)
{
	const char *grid = "{label: x, ratio: [steps.0.a, steps.0.b]}";
	g_autofree char *r = gridOf(grid, "{\"steps\":[{\"a\":30,\"b\":4}]}");
	g_autofree char *z = gridOf(grid, "{\"steps\":[{\"a\":30,\"b\":0}]}");

	return unitExpect(strstr(r, "\"value\":7.5,\"of\":\"steps.0.a \\/ steps.0.b\"") &&
			  strstr(z, "\"value\":null"));
}

/*
 * Issue 48: a save step's image went to RUN_DIR/<domain>.save, a name in a
 * directory that may be data from elsewhere. Its directory is now made
 * under the embedded driver's own root, or the temporary directory for a
 * daemon, never from the run directory.
 */
static bool saveImageBase(void)
{
	g_autofree char *emb = mhlSaveImageBase("qemu:///embed?root=/tmp/mhl-AbC123");
	g_autofree char *sys = mhlSaveImageBase("qemu:///system");
	g_autofree char *unix_ = mhlSaveImageBase("qemu+unix:///system?socket=/run/x.sock");
	g_autofree char *rel = mhlSaveImageBase("qemu:///embed?root=results/run");

	if (g_strcmp0(emb, "/tmp/mhl-AbC123") || g_strcmp0(sys, g_get_tmp_dir()) || g_strcmp0(unix_, g_get_tmp_dir()) ||
	    g_strcmp0(rel, g_get_tmp_dir()))
		unitDiag("embed %s, system %s, unix %s, relative root %s", emb, sys, unix_, rel);
	return unitExpect(!g_strcmp0(emb, "/tmp/mhl-AbC123") && !g_strcmp0(sys, g_get_tmp_dir()) &&
			  !g_strcmp0(unix_, g_get_tmp_dir()) && !g_strcmp0(rel, g_get_tmp_dir()));
}

static const unitCase cases[] = {
	{ "-j default: min(cores, guests that fit in MemAvailable): 2, 2, 0", jobsDefault },
	{ "grid: vmstat: the counter's change over the trial, after less before (65636 - 100)", gridVmstat },
	{ "grid: a counter missing from the snapshot before or after: value null", gridVmstatMissing },
	{ "grid: a ratio is the first over the second (30 / 4); a ratio over 0: value null", gridRatio },
	{ "save: the image's directory is made under the embedded driver's root, or /tmp for a daemon; never from the run directory (issue 48)",
	  saveImageBase },
};

static const unitTable tables[] = { UNIT_CASES(cases), UNIT_TABLE(fits, fitJudge) };

const unitModule unitRun = UNIT_MODULE("run", NULL, NULL, tables);
