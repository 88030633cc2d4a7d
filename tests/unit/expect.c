/*
 * tests/unit/expect.c - the expect step's outcomes of the other steps
 * (trial/expect.c): unplug reached | short of the last resize, hugepages
 * reached | short of the last pool, dimm removed | stuck of the last
 * detach, judged from hand-written step records through mhlStepExpect; and
 * what a resize records as pinned in its device (mhlPinnedInDevice), from
 * the held pins' censuses. "short" means the step got somewhere and stopped
 * for a reason: a resize that did nothing is neither reached nor short. No
 * guest is booted here.
 */
#include <glib.h>

#include <json-c/json.h>
#include <string.h>

#include "scenario/scenario.h"
#include "trial/steps.h"
#include "unit.h"
#include "util.h"

#define MiB (1LL << 20)

static const char resizeYAML[] =
	"name: e\nnodes:\n  - memory: 512MiB\n  - memory: 128MiB\n"
	"    virtio_mem: {size: 1GiB, block: 2MiB, requested: 1GiB}\n"
	"steps:\n  - resize: {node: 1, requested: 0}\n  - expect: {unplug: short}\n"
	"  - expect: {unplug: reached}\n";

static const char hugeYAML[] =
	"name: h\nnodes:\n  - memory: 512MiB\n  - memory: 640MiB\n"
	"steps:\n  - hugepages: {node: 1, count: 4000}\n  - expect: {hugepages: short}\n"
	"  - expect: {hugepages: reached}\n";

static const char dimmYAML[] =
	"name: d\nnodes:\n  - memory: 512MiB\n  - memory: 128MiB\n"
	"steps:\n  - dimm: {id: d, node: 1, size: 256MiB, action: attach}\n"
	"  - dimm: {id: d, action: detach}\n  - expect: {dimm: stuck}\n  - expect: {dimm: removed}\n";

/*
 * Expect step @idx of the scenario @yaml after the step records @records (a
 * JSON array): its return, and the first check's actual value in @actual
 * (g_free it).
 */
static int expectOn(const char *yaml, int idx, const char *records, char **actual)
{
	g_autofree char *path = unitWriteTmp("expect.yaml", yaml);
	g_autoptr(mhlScenario) s = mhlScenarioLoad(path);
	g_autoptr(json_object) steps = json_tokener_parse(records), res = json_object_new_object();
	mhlTrial t = { .steps = steps };
	int rc;

	*actual = NULL;
	if (!s || !steps) {
		unitDiag("%s", s ? "the records do not parse" : mhlErrorLast());
		return 99;
	}
	t.s = s;
	mhlErrorReset();
	rc = mhlStepExpect(&t, &s->steps[idx], res);
	*actual = g_strdup(mhlJStr(res, MHL_PATH3(MHL_K_CHECKS, "0", MHL_K_ACTUAL), ""));
	unitDiag("expect -> %d, actual '%s'", rc, *actual);
	return rc;
}

/* A resize record: plugged @before (-1: none), ended at @end of @req, converged or not, @pinned (-1: none). */
static char *resizeRec(long long before, long long end, long long req, bool conv, long long pinned)
{
	GString *r = g_string_new("[{\"step\":\"resize\",\"ok\":true");

	g_string_append_printf(r, ",\"requested_bytes\":%lld,\"reached_bytes\":%lld,\"converged\":%s"
			       ",\"deadline_s\":20", req, end, conv ? "true" : "false");
	if (before >= 0)
		g_string_append_printf(r, ",\"plugged_before_bytes\":%lld", before);
	if (pinned >= 0)
		g_string_append_printf(r, ",\"pinned_in_device_bytes\":%lld", pinned);
	if (!conv)
		g_string_append(r, ",\"note\":\"node 1: the plugged size stopped\"");
	g_string_append(r, "}]");
	return g_string_free(r, false);
}

/* expect unplug: short (@reached false) or reached on a resize record; its return. */
static int unplugOn(const char *rec, bool reached, char **actual)
{
	return expectOn(resizeYAML, reached ? 2 : 1, rec, actual);
}

/* Baseline's A/B: 1 GiB plugged, 256 MiB pinned in place, the unplug stops at 260 MiB. */
static bool shortHolds(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 260 * MiB, 0, false, 256 * MiB), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) == 0 &&
			  strstr(a, "short: from 1GiB to 260MiB of 0B requested (764MiB unplugged)") &&
			  strstr(a, "stopped at the 20 s deadline with 256MiB pinned in the device") &&
			  strstr(a, ": node 1: the plugged size stopped"));
}

static bool shortNotReached(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 260 * MiB, 0, false, 256 * MiB), *a = NULL;

	return unitExpect(unplugOn(rec, true, &a) < 0 && strstr(mhlErrorLast(), "unplug: expected reached, got short: from 1GiB"));
}

/* The resize that did nothing: it did not converge, and the plugged size never moved. */
static bool doNothingRefused(void)
{
	g_autofree char *rec = resizeRec(512 * MiB, 512 * MiB, 0, false, 0), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) < 0 &&
			  !strcmp(a, "no unplug: the plugged size stayed at 512MiB (0B requested)") &&
			  strstr(mhlErrorLast(), "expected short (unplugged some, stopped above the request"));
}

static bool grewRefused(void)
{
	g_autofree char *rec = resizeRec(256 * MiB, 384 * MiB, 512 * MiB, false, 0), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) < 0 &&
			  !strcmp(a, "no unplug: the plugged size grew from 256MiB to 384MiB (512MiB requested)"));
}

/* One block unplugged is somewhere: short. */
static bool oneBlockShort(void)
{
	g_autofree char *rec = resizeRec(512 * MiB, 510 * MiB, 0, false, -1), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) == 0 &&
			  strstr(a, "from 512MiB to 510MiB of 0B requested (2MiB unplugged)") &&
			  strstr(a, "with what is pinned in the device not known"));
}

static bool belowPinsRefused(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 128 * MiB, 0, false, 256 * MiB), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) < 0 &&
			  !strcmp(a, "from 1GiB to 128MiB of 0B requested: below the 256MiB pinned in the device"));
}

/* Stopping exactly at the pinned bytes is short (every block holds a pinned page). */
static bool atPinsShort(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 256 * MiB, 0, false, 256 * MiB), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) == 0 && strstr(a, "short: from 1GiB to 256MiB"));
}

static bool atRequestNotShort(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 256 * MiB, 256 * MiB, false, 0), *a = NULL;

	return unitExpect(unplugOn(rec, false, &a) < 0 &&
			  !strcmp(a, "not converged, yet the plugged size went from 1GiB to 256MiB, 256MiB requested"));
}

/* Where it started: plugged_before_bytes, else (older records) the host side's; neither: not short. */
static bool startFromHost(void)
{
	const char *host = "[{\"step\":\"resize\",\"requested_bytes\":0,\"reached_bytes\":272629760,"
			   "\"converged\":false,\"deadline_s\":20,\"host\":{\"plugged_before_bytes\":1073741824}}]";
	const char *none = "[{\"step\":\"resize\",\"requested_bytes\":0,\"reached_bytes\":272629760,"
			   "\"converged\":false,\"deadline_s\":20}]";
	g_autofree char *a = NULL, *b = NULL;

	return unitExpect(unplugOn(host, false, &a) == 0 && strstr(a, "from 1GiB to 260MiB") &&
			  unplugOn(none, false, &b) < 0 &&
			  !strcmp(b, "not converged at 260MiB of 0B requested, from a plugged size not on record"));
}

static bool reachedHolds(void)
{
	g_autofree char *rec = resizeRec(1024 * MiB, 0, 0, true, 0), *a = NULL, *b = NULL;

	return unitExpect(unplugOn(rec, true, &a) == 0 && !strcmp(a, "reached (0B of 0B requested)") &&
			  unplugOn(rec, false, &b) < 0);
}

static bool noResizeNeither(void)
{
	g_autofree char *a = NULL, *b = NULL;

	return unitExpect(unplugOn("[]", false, &a) < 0 && !strcmp(a, "no resize on record") &&
			  unplugOn("[]", true, &b) < 0);
}

/* ---- hugepages: short is a pool read back short of count, on its way from where it was ---- */

static char *poolRec(long long before, long long got, long long want, const char *refused)
{
	GString *r = g_string_new("[{\"step\":\"hugepages\",\"elastic\":{\"mechanism\":\"hugetlb\"");

	g_string_append_printf(r, ",\"requested_pages\":%lld,\"ok\":%s,\"seconds\":1.5", want,
			       got == want ? "true" : "false");
	if (before >= 0)
		g_string_append_printf(r, ",\"pool_before_pages\":%lld", before);
	if (got >= 0)
		g_string_append_printf(r, ",\"allocated_pages\":%lld", got);
	if (refused)
		g_string_append_printf(r, ",\"refused\":\"%s\"", refused);
	g_string_append(r, "}}]");
	return g_string_free(r, false);
}

static bool poolShort(void)
{
	g_autofree char *rec = poolRec(0, 2900, 4000, NULL), *a = NULL;

	return unitExpect(expectOn(hugeYAML, 1, rec, &a) == 0 &&
			  !strcmp(a, "short (2900 of 4000 pages, 0 before: the kernel allocated no more in 1.5 s)"));
}

/* The 1 GiB page ZONE_MOVABLE never gives: 0 of 1 from 0 is the kernel's answer, short. */
static bool poolNoneShort(void)
{
	g_autofree char *rec = poolRec(0, 0, 1, NULL), *a = NULL;

	return unitExpect(expectOn(hugeYAML, 1, rec, &a) == 0 && strstr(a, "short (0 of 1 pages, 0 before"));
}

static bool poolShrinkShort(void)
{
	g_autofree char *rec = poolRec(100, 40, 10, NULL), *a = NULL;

	return unitExpect(expectOn(hugeYAML, 1, rec, &a) == 0 &&
			  strstr(a, "short (40 of 10 pages, 100 before: the kernel freed no more"));
}

static bool poolNotReadBack(void)
{
	g_autofree char *refused = poolRec(-1, -1, 1, "No such file or directory"), *gone = poolRec(0, -1, 8, NULL);
	g_autofree char *a = NULL, *b = NULL, *c = NULL;

	return unitExpect(expectOn(hugeYAML, 1, refused, &a) < 0 &&
			  !strcmp(a, "no pool read back (No such file or directory)") &&
			  expectOn(hugeYAML, 1, gone, &b) < 0 &&
			  !strcmp(b, "no pool read back (the step ended before it)") &&
			  expectOn(hugeYAML, 1, "[]", &c) < 0 && !strcmp(c, "no pool read back (no hugepages step on record)"));
}

/* A pool that lost pages it had is no pool that fell short. */
static bool poolLostRefused(void)
{
	g_autofree char *rec = poolRec(100, 50, 4000, NULL), *a = NULL;

	return unitExpect(expectOn(hugeYAML, 1, rec, &a) < 0 &&
			  !strcmp(a, "50 pages, not between the 100 before and the 4000 asked"));
}

static bool poolReached(void)
{
	g_autofree char *rec = poolRec(0, 4000, 4000, NULL), *a = NULL, *b = NULL;

	return unitExpect(expectOn(hugeYAML, 2, rec, &a) == 0 && !strcmp(a, "reached (4000 of 4000 pages)") &&
			  expectOn(hugeYAML, 1, rec, &b) < 0);
}

/* ---- dimm: stuck is a detach libvirt took that did not complete ---- */

static const char *const detachStuck =
	"[{\"step\":\"dimm\",\"elastic\":{\"action\":\"attach\",\"ok\":true}},"
	"{\"step\":\"dimm\",\"elastic\":{\"action\":\"detach\",\"ok\":false,\"removed\":false,"
	"\"seconds\":60,\"pinned_blocks\":[40,41]}}]";
static const char *const detachRefused =
	"[{\"step\":\"dimm\",\"elastic\":{\"action\":\"detach\",\"ok\":false,\"seconds\":0,"
	"\"refused\":\"operation failed: no device\"}}]";
static const char *const detachRemoved =
	"[{\"step\":\"dimm\",\"elastic\":{\"action\":\"detach\",\"ok\":true,\"removed\":true,\"seconds\":2.5}}]";

static bool dimmStuck(void)
{
	g_autofree char *a = NULL, *b = NULL;

	return unitExpect(expectOn(dimmYAML, 2, detachStuck, &a) == 0 &&
			  !strcmp(a, "stuck after 60.0 s, blocks not offline: [ 40, 41 ]") &&
			  expectOn(dimmYAML, 3, detachStuck, &b) < 0);
}

static bool dimmRefusedNotStuck(void)
{
	g_autofree char *a = NULL;

	return unitExpect(expectOn(dimmYAML, 2, detachRefused, &a) < 0 &&
			  !strcmp(a, "not begun: libvirt refused the detach (operation failed: no device)"));
}

static bool dimmRemoved(void)
{
	g_autofree char *a = NULL, *b = NULL;

	return unitExpect(expectOn(dimmYAML, 3, detachRemoved, &a) == 0 && !strcmp(a, "removed after 2.5 s") &&
			  expectOn(dimmYAML, 2, detachRemoved, &b) < 0);
}

/* ---- pinned_in_device_bytes: what the held pins keep in the device ---- */

/* A pin's record with @pages on node 1, @movable of them in ZONE_MOVABLE (census_after). */
static char *pinRec(const char *id, int pages, int movable)
{
	return g_strdup_printf("{\"step\":\"pin\",\"id\":\"%s\",\"workload\":{\"ok\":true,\"census_after\":"
			       "{\"pages\":%d,\"by_node\":{\"0\":{\"pages\":7,\"Normal\":7},\"1\":{\"pages\":%d,"
			       "\"Movable\":%d}}}}}", id, pages + 7, pages, movable);
}

static gint64 pinnedOf(const char *records, const char *const *ids, int n, guint64 boot)
{
	g_autoptr(json_object) steps = json_tokener_parse(records);
	gint64 v = steps ? mhlPinnedInDevice(steps, ids, n, 1, boot) : -9;

	unitDiag("pinned in the device: %" G_GINT64_FORMAT, v);
	return v;
}

/* Baseline: 65536 pages pinned in place, in ZONE_MOVABLE on node 1: 256 MiB in the device. */
static bool pinnedMovable(void)
{
	g_autofree char *p = pinRec("p", 65536, 65536), *r = g_strdup_printf("[%s]", p);
	const char *ids[] = { "p" };

	return unitExpect(pinnedOf(r, ids, 1, 128 * MiB) == 256 * MiB);
}

/* online_kernel: 65536 pages on node 1, none movable; beyond its 128 MiB of boot memory: 128 MiB in the device. */
static bool pinnedBeyondBoot(void)
{
	g_autofree char *p = pinRec("p", 65536, 0), *r = g_strdup_printf("[%s]", p);
	const char *ids[] = { "p" };

	return unitExpect(pinnedOf(r, ids, 1, 128 * MiB) == 128 * MiB && pinnedOf(r, ids, 1, 512 * MiB) == 0);
}

/* Two held pins add up; one released (not among @ids) is not counted. */
static bool pinnedHeldOnly(void)
{
	g_autofree char *a = pinRec("a", 8192, 8192), *b = pinRec("b", 16384, 16384), *c = pinRec("c", 4096, 4096);
	g_autofree char *r = g_strdup_printf("[%s,%s,%s]", a, b, c);
	const char *ids[] = { "a", "b" };

	return unitExpect(pinnedOf(r, ids, 2, 128 * MiB) == 96 * MiB);
}

/* A check after the pin counts again: its census is the pin's last. */
static bool pinnedLastCensus(void)
{
	g_autofree char *p = pinRec("p", 65536, 65536);
	g_autofree char *r = g_strdup_printf("[%s,{\"step\":\"check\",\"id\":\"p\",\"workload\":{\"census\":"
					     "{\"pages\":65536,\"by_node\":{\"1\":{\"pages\":32768,\"Movable\":32768}}}}},"
					     "{\"step\":\"resize\",\"id\":\"p\"}]", p);
	const char *ids[] = { "p" };

	return unitExpect(pinnedOf(r, ids, 1, 128 * MiB) == 128 * MiB);
}

/* Not known: a held pin with no census on record, or a DIMM attached before (it shares the node's ZONE_MOVABLE). */
static bool pinnedUnknown(void)
{
	g_autofree char *p = pinRec("p", 65536, 65536);
	g_autofree char *dimm = g_strdup_printf("[{\"step\":\"dimm\",\"elastic\":{\"action\":\"attach\"}},%s]", p);
	g_autofree char *vmem = g_strdup_printf("[{\"step\":\"vmem\",\"elastic\":{\"action\":\"attach\"}},%s]", p);
	g_autofree char *one = g_strdup_printf("[%s]", p);
	const char *ids[] = { "p", "q" };

	return unitExpect(pinnedOf(dimm, ids, 1, 128 * MiB) == -1 && pinnedOf(vmem, ids, 1, 128 * MiB) == -1 &&
			  pinnedOf(one, ids, 2, 128 * MiB) == -1 && pinnedOf(one, ids, 0, 128 * MiB) == 0);
}

static const unitCase cases[] = {
	{ "expect unplug short: 1 GiB -> 260 MiB of 0, 256 MiB pinned in the device: holds, saying how far and why", shortHolds },
	{ "expect unplug reached: the same short resize fails, saying where it stopped", shortNotReached },
	{ "expect unplug short: a resize that did nothing (512 MiB -> 512 MiB) is refused", doNothingRefused },
	{ "expect unplug short: a grow that stopped is no short unplug", grewRefused },
	{ "expect unplug short: one 2 MiB block unplugged is short; what is pinned not known, said so", oneBlockShort },
	{ "expect unplug short: ending below what is pinned in the device is refused", belowPinsRefused },
	{ "expect unplug short: ending exactly at what is pinned in the device holds", atPinsShort },
	{ "expect unplug short: not converged yet at the request is not short", atRequestNotShort },
	{ "expect unplug short: the start from host.plugged_before_bytes (older records); none: not short", startFromHost },
	{ "expect unplug reached: a converged resize holds, and is not short", reachedHolds },
	{ "expect unplug: no resize on record is neither reached nor short", noResizeNeither },
	{ "expect hugepages short: 2900 of 4000 from 0 holds, saying how far", poolShort },
	{ "expect hugepages short: 0 of 1 (the kernel's answer) holds", poolNoneShort },
	{ "expect hugepages short: a pool shrink that stopped above count holds", poolShrinkShort },
	{ "expect hugepages short: a refused step, no pool read back, no step: refused", poolNotReadBack },
	{ "expect hugepages short: a pool that lost pages (100 -> 50 of 4000) is refused", poolLostRefused },
	{ "expect hugepages reached: the pool at count holds, and is not short", poolReached },
	{ "expect dimm stuck: a detach not removed in time holds, naming the blocks; removed fails", dimmStuck },
	{ "expect dimm stuck: a detach libvirt refused is not stuck", dimmRefusedNotStuck },
	{ "expect dimm removed: a removed detach holds, and is not stuck", dimmRemoved },
	{ "pinned in the device: held pages in ZONE_MOVABLE on the node (baseline's 256 MiB)", pinnedMovable },
	{ "pinned in the device: pages on the node beyond its boot memory (online_kernel)", pinnedBeyondBoot },
	{ "pinned in the device: the held pins' sum; a released pin not counted", pinnedHeldOnly },
	{ "pinned in the device: a pin's last census (a check after it) counts", pinnedLastCensus },
	{ "pinned in the device: not known with a held pin without census, or a DIMM or vmem attached", pinnedUnknown },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitExpectModule = UNIT_MODULE("expect", NULL, NULL, tables);
