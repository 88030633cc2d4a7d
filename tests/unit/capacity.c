/*
 * tests/unit/capacity.c - the capacity frontier from records
 * (reports/capacity.c, docs/capacity.md): the plug-ratio sweep's points
 * (plugged ÷ boot memory, how the guest failed, whether the unplug reached
 * its request) and one sentence per policy, beside the pinned-fraction
 * groups, which keep their own sentences. Records are written here, no
 * guest is booted.
 */
#include <glib.h>

#include <unistd.h>

#include <json-c/json.h>
#include <string.h>

#include "reports/report.h"
#include "unit.h"
#include "util.h"

/*
 * A plug-ratio record: boot memory 192 + 64 MiB, @plugged asked, the plug
 * reaching @plug_reached, the unplug to 0 reaching @left (-1: no unplug
 * step), oom_kill growing by @oom, @extra steps and fields spliced in.
 */
static json_object *prRecord(const char *online, const char *plugged, long long plug_req,
			     long long plug_reached, long long left, int oom, const char *verdict,
			     const char *extra_steps, const char *extra)
{
	g_autofree char *unplug = left < 0 ? g_strdup("") :
		g_strdup_printf(",{\"step\":\"resize\",\"requested_bytes\":0,\"reached_bytes\":%lld,\"converged\":%s,\"ok\":true}",
				left, left ? "false" : "true");
	g_autofree char *s = g_strdup_printf(
		"{\"trial\":\"capacity-plug-ratio:online=%s,plugged=%s\",\"verdict\":\"%s\","
		"\"scenario_name\":\"capacity-plug-ratio\",\"parameters\":{\"online\":\"%s\",\"plugged\":\"%s\"},"
		"\"domain\":{\"nodes\":[{\"memory_bytes\":201326592},{\"memory_bytes\":67108864,"
		"\"virtio_mem_size_bytes\":%lld,\"virtio_mem_requested_bytes\":0}]},"
		"\"summary\":{\"pins_failed\":0},\"guest_before\":{\"vmstat\":{\"oom_kill\":0}},"
		"\"guest_after\":{\"vmstat\":{\"oom_kill\":%d}},\"console_findings\":[],"
		"\"steps\":[{\"step\":\"resize\",\"requested_bytes\":%lld,\"reached_bytes\":%lld,\"ok\":true}%s%s]%s}",
		online, plugged, verdict, online, plugged, plug_req, oom, plug_req, plug_reached, extra_steps, unplug,
		extra);

	return json_tokener_parse(s);
}

#define MiB (1LL << 20)
#define GiB (1LL << 30)

static void recPut(gpointer rec)
{
	json_object_put(rec);
}

/* A run of @recs (NULL-terminated), dir unitTmpdir. */
static mhlRun *runOf(json_object **recs)
{
	mhlRun *run = g_new0(mhlRun, 1);

	run->dir = g_strdup(unitTmpdir);
	run->dirfd = mhlDirOpen(unitTmpdir);
	run->trials = g_ptr_array_new_with_free_func(recPut);
	for (; *recs; recs++)
		g_ptr_array_add(run->trials, *recs);
	return run;
}

static void runFree(mhlRun *run)
{
	g_ptr_array_unref(run->trials);
	if (run->dirfd >= 0)
		close(run->dirfd);
	g_free(run->dir);
	g_free(run);
}

/* The sentences of every group of @run, one per line. */
static char *sentences(mhlRun *run, GPtrArray **pts_out)
{
	GPtrArray *pts = mhlCapacityPoints(run);
	GString *out = g_string_new(NULL);
	guint from, to;

	for (from = 0; from < pts->len; from = to) {
		g_autofree char *s = NULL;

		for (to = from; to < pts->len && !strcmp(((mhlCapacityPoint *)pts->pdata[to])->group,
							  ((mhlCapacityPoint *)pts->pdata[from])->group); to++)
			;
		s = mhlCapacitySentence(pts, from, to);
		g_string_append_printf(out, "%s\n", s);
	}
	if (pts_out)
		*pts_out = pts;
	else
		g_ptr_array_unref(pts);
	return g_string_free(out, FALSE);
}

static bool sentenceIs(const char *got, const char *want)
{
	if (!strcmp(got, want))
		return true;
	unitDiag("got:  %s", got);
	unitDiag("want: %s", want);
	return false;
}

/* online_movable held to 2x, an OOM kill at 4x, the plug short at 8x; auto-movable short from 1x. */
static bool frontierPerPolicy(void)
{
	json_object *recs[] = {
		prRecord("movable", "256MiB", 256 * MiB, 256 * MiB, 0, 0, "pass", "", ""),
		prRecord("movable", "1GiB", GiB, GiB, 0, 1, "pass", "", ""),
		prRecord("movable", "512MiB", 512 * MiB, 512 * MiB, 0, 0, "pass", "", ""),
		prRecord("movable", "2GiB", 2 * GiB, 1536 * MiB, 0, 0, "pass", "", ""),
		prRecord("auto-movable", "256MiB", 256 * MiB, 256 * MiB, 4 * MiB, 0, "pass", "", ""),
		prRecord("auto-movable", "1GiB", GiB, GiB, 36 * MiB, 0, "pass", "", ""),
		NULL
	};
	mhlRun *run = runOf(recs);
	g_autofree char *got = sentences(run, NULL);
	bool ok = sentenceIs(got,
		"capacity-plug-ratio (online=auto-movable): nothing held even at 1x (256MiB plugged on 256MiB of boot memory); "
		"the guest never failed up to 4x; the unplug first stopped short at 1x (4MiB left of 256MiB).\n"
		"capacity-plug-ratio (online=movable): everything held up to 2x (512MiB plugged on 256MiB of boot memory); "
		"the guest first failed at 4x (1 OOM kill); the unplug reached its request at every measured ratio up to 8x.\n");

	runFree(run);
	return unitExpect(ok);
}

/* The points: ratio from every node's boot memory, pinned_bytes -1, sorted by ratio; a short plug is a failure. */
static bool pointsOfRatios(void)
{
	json_object *recs[] = {
		prRecord("movable", "2GiB", 2 * GiB, 1536 * MiB, 0, 0, "pass", "", ""),
		prRecord("movable", "256MiB", 256 * MiB, 256 * MiB, 0, 0, "pass", "", ""),
		NULL
	};
	mhlRun *run = runOf(recs);
	GPtrArray *pts = mhlCapacityPoints(run);
	const mhlCapacityPoint *a = pts->len == 2 ? pts->pdata[0] : NULL, *b = pts->len == 2 ? pts->pdata[1] : NULL;
	bool ok = unitExpect(a && b) && unitExpect(a->pinned_bytes == -1 && a->plugged_bytes == 256 * MiB) &&
		  unitExpect(a->failed_as == NULL && a->unplugged_frac == 1.0) &&
		  unitExpect(b->plugged_bytes == 2 * GiB && b->failed_as &&
			     !strcmp(b->failed_as, "the plug stopped at 1536MiB of 2GiB"));

	if (!ok && b && b->failed_as)
		unitDiag("failed_as: %s", b->failed_as);
	g_ptr_array_unref(pts);
	runFree(run);
	return ok;
}

/* A panic: the trial ended as error before the unplug; the kmem load's ENOMEM and a killed pin say how. */
static bool panicAndKmem(void)
{
	json_object *recs[] = {
		prRecord("movable", "256MiB", 256 * MiB, 256 * MiB, -1, 0, "error",
			 ",{\"step\":\"pin\",\"id\":\"kmem\",\"ok\":true,\"workload\":{\"ok\":true,\"kmem\":{\"kernel_bytes\":20971520,"
			 "\"first_error\":{\"errno\":12,\"errno_name\":\"ENOMEM\",\"at\":\"create a file (tmpfs)\"}}}}"
			 ",{\"step\":\"pin\",\"id\":\"pin0\",\"ok\":true,\"workload\":{\"ok\":false,\"signal\":\"SIGKILL\"}}",
			 ",\"reason\":\"Kernel panic - not syncing: Out of memory\""),
		NULL
	};
	mhlRun *run = runOf(recs);
	g_autofree char *got = sentences(run, NULL);
	bool ok = sentenceIs(got,
		"capacity-plug-ratio (online=movable): nothing held even at 1x (256MiB plugged on 256MiB of boot memory); "
		"the guest first failed at 1x (the kmem load stopped at 20MiB (ENOMEM at create a file (tmpfs)), "
		"pin pin0 failed (SIGKILL), the trial ended as error); the unplug reached its request at every measured "
		"ratio up to 1x (no unplug at 1x: the trial ended first).\n");

	runFree(run);
	return unitExpect(ok);
}

/* The OOM victim and allocation failures come from the serial log when it is in the run directory. */
static bool victimFromLog(void)
{
	g_autofree char *log = unitWriteTmp("pr.console.log",
		"[ 10.1] memhp-pin: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)\n"
		"[ 10.2] Out of memory: Killed process 157 (memhp-pin) total-vm:16778620kB\n");
	json_object *recs[] = {
		prRecord("movable", "4GiB", 4 * GiB, 4 * GiB, 0, 1, "pass", "", ",\"console_log\":\"/elsewhere/pr.console.log\""),
		NULL
	};
	mhlRun *run = runOf(recs);
	GPtrArray *pts = mhlCapacityPoints(run);
	const mhlCapacityPoint *p = pts->len ? pts->pdata[0] : NULL;
	bool ok = unitExpect(p && p->failed_as &&
			     !strcmp(p->failed_as, "OOM kill of memhp-pin, 1 page allocation failure"));

	if (!ok && p && p->failed_as)
		unitDiag("failed_as: %s", p->failed_as);
	g_ptr_array_unref(pts);
	runFree(run);
	return ok;
}

/* Beside a pinned sweep: both groups get their sentence, the plot draws the pinned one only. */
static bool besidePinned(void)
{
	json_object *recs[] = {
		json_tokener_parse("{\"trial\":\"g:pinned=0\",\"verdict\":\"pass\",\"scenario_name\":\"capacity-grid\","
				   "\"parameters\":{\"policy\":\"online_movable\",\"pinned\":\"0\"},"
				   "\"domain\":{\"nodes\":[{\"memory_bytes\":268435456},{\"memory_bytes\":67108864,"
				   "\"virtio_mem_requested_bytes\":536870912}]},"
				   "\"timeline\":[{\"source\":\"request\",\"node\":1}],"
				   "\"summary\":{\"requested_bytes\":0,\"reached_bytes\":0,\"pins_failed\":0}}"),
		prRecord("movable", "256MiB", 256 * MiB, 256 * MiB, 0, 0, "pass", "", ""),
		NULL
	};
	mhlRun *run = runOf(recs);
	GPtrArray *pts = NULL;
	g_autofree char *got = sentences(run, &pts);
	g_autoptr(GString) mixed = g_string_new(NULL), alone = g_string_new(NULL);
	bool ok;

	mhlCapacityGnuplot(pts, mixed);
	g_ptr_array_remove_index(pts, 0);	/* the pinned point (its group sorts first) */
	mhlCapacityGnuplot(pts, alone);
	ok = unitExpect(strstr(got, "capacity-grid (policy=online_movable): a full unplug succeeded up to 0% pinned") &&
			strstr(got, "capacity-plug-ratio (online=movable): everything held up to 1x")) &&
	     unitExpect(!strstr(mixed->str, "capacity-plug-ratio") && !strstr(mixed->str, "logscale")) &&
	     unitExpect(strstr(alone->str, "set logscale x 2") && strstr(alone->str, "'capacity-plug-ratio (online=movable)'") &&
			strstr(alone->str, "\n1.00 100.00\n"));
	if (!ok)
		unitDiag("sentences: %s; plot alone: %s", got, alone->str);
	g_ptr_array_unref(pts);
	runFree(run);
	return ok;
}

static const unitCase cases[] = {
	{ "plug ratio: one sentence per policy, the largest ratio that held, the first failure and the first short unplug", frontierPerPolicy },
	{ "plug ratio: points from plugged / boot memory, sorted by ratio; a plug short of its request is a failure", pointsOfRatios },
	{ "plug ratio: a trial ended as error before the unplug, the kmem load's error and a killed pin say how", panicAndKmem },
	{ "plug ratio: the OOM victim and page allocation failures from the serial log", victimFromLog },
	{ "plug ratio beside a pinned sweep: both sentences, the plot keeps to the pinned groups", besidePinned },
};

static const unitTable tables[] = { UNIT_CASES(cases) };

const unitModule unitCapacity = UNIT_MODULE("capacity", NULL, NULL, tables);
