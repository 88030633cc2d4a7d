/*
 * step-pin.c - pin: memhp-pin MODE in the guest, its JSON in the step's
 * result. The series' rule (no pinned page left in ZONE_MOVABLE) holds for
 * every mode that pins; vfio-noiommu says "pinned": false and is exempt.
 * With fails_with, the pin must fail with that errno, or its holder die of
 * that signal, instead.
 */
#include <glib.h>

#include "trial/steps.h"

#include <stdio.h>
#include <string.h>

#include "guest/agent.h"
#include "scenario/names.h"
#include "util.h"

/* What of memhp-pin's JSON the pin step and the expect checks read, and as what. */
static const mhlAgentField pinFields[] = {
	{ MHL_PIN_K_OK, json_type_boolean, true },
	{ MHL_PIN_K_PINNED, json_type_boolean, false },
	{ MHL_PIN_K_BYTES_PINNED, json_type_int, false },
	{ MHL_PIN_K_PIN_US, json_type_double, false },
	{ MHL_PIN_K_ERRNO_NAME, json_type_string, false },
	{ MHL_PIN_K_SIGNAL, json_type_string, false },
	{ MHL_PIN_K_PMD_MAPPED_AFTER_SPLIT, json_type_int, false },
	{ MHL_PIN_K_PATTERN_OK, json_type_boolean, false },
	{ MHL_PIN_K_ZERO_PAGE, json_type_object, false },
	{ MHL_PATH(MHL_PIN_K_ZERO_PAGE, MHL_PIN_K_ZONE), json_type_string, false },
	MHL_AGENT_CENSUS(MHL_PIN_K_CENSUS_BEFORE),
	MHL_AGENT_CENSUS(MHL_PIN_K_CENSUS_AFTER),
};

/* A failed pin: expected (fails_with), measured (a sweep), or the step's failure. */
static int pinFailed(mhlTrial *t, const mhlStep *st, const char *fails_with, json_object *out,
		     json_object *res)
{
	json_object *en = NULL, *sig = NULL;
	g_autofree char *why = NULL;

	json_object_object_get_ex(out, MHL_PIN_K_ERRNO_NAME, &en);
	json_object_object_get_ex(out, MHL_PIN_K_SIGNAL, &sig);	/* the holder was killed */
	t->sum.pins_failed = 1;
	if (fails_with[0] &&
	    ((en && !strcmp(json_object_get_string(en), fails_with)) ||
	     (sig && !strcmp(json_object_get_string(sig), fails_with)))) {
		json_object_object_add(res, MHL_K_FAILED_AS_EXPECTED, json_object_new_boolean(true));
		return 0;
	}
	if (st->measure) {	/* a capacity sweep records where pins start failing */
		json_object_object_add(res, MHL_K_MEASURED, json_object_new_boolean(true));
		return 0;
	}
	if (sig && !en) {
		/* the holder was killed: the console says by whom when the OOM killer did it */
		g_autofree char *oom = mhlConsoleOomLine(t->g->console, "memhp-pin");
		g_autofree char *s = mhlTextClean(json_object_get_string(sig), -1, 16, false);

		mhlError("pin '%s' (%s) of %" G_GUINT64_FORMAT " bytes on node %d failed: the holder was killed by %s%s%s%s",
			 st->id, st->workload, st->size, st->node, s, oom ? ": the OOM killer, console: '" : "",
			 oom ? oom : " (no OOM killer line about memhp-pin on the console)", oom ? "'" : "");
		return -1;
	}
	why = mhlTextClean(en ? json_object_get_string(en) : json_object_to_json_string(out), -1, 300, false);
	mhlError("pin '%s' (%s) of %" G_GUINT64_FORMAT " bytes on node %d failed: %s",
		 st->id, st->workload, st->size, st->node, why);
	return -1;
}

/* The split is the setup of the step: no split, no claim tested. */
static int splitVerify(const mhlStep *st, json_object *out)
{
	json_object *pmd = NULL;

	if (!st->split[0])
		return 0;
	if (json_object_object_get_ex(out, MHL_PIN_K_PMD_MAPPED_AFTER_SPLIT, &pmd) &&
	    json_object_get_int64(pmd) == 0)
		return 0;
	mhlError("pin '%s': after the %s split %s bytes of the buffer are still PMD-mapped (AnonHugePages in smaps); the THPs were not split",
		 st->id, st->split, pmd ? json_object_get_string(pmd) : "an unknown number of (no pmd_mapped_after_split)");
	return -1;
}

/* The census before and after the pin, into the summary. */
static void pinSummary(mhlTrial *t, const mhlStep *st, json_object *out)
{
	json_object *before = NULL, *after = NULL, *bytes;

	if (!json_object_object_get_ex(out, MHL_PIN_K_CENSUS_AFTER, &after))
		return;
	json_object_object_get_ex(out, MHL_PIN_K_CENSUS_BEFORE, &before);
	mhlTrialHeld(t, st->id, json_object_object_get_ex(out, MHL_PIN_K_BYTES_PINNED, &bytes) ?
				json_object_get_int64(bytes) : (gint64)st->size);
	t->sum.pinned_pages_movable_before = mhlCensusPages(before, MHL_PIN_ZONE_MOVABLE);
	t->sum.pinned_pages_movable_after = mhlCensusPages(after, MHL_PIN_ZONE_MOVABLE);
}

/*
 * The series' rule; under baseline, expect steps say what should happen.
 * The shared zero page is exempt: it may sit in ZONE_MOVABLE (kernelcore=)
 * and is never migrated ("mm/gup: do not migrate zero page").
 */
static int seriesRule(mhlTrial *t, const mhlStep *st, json_object *out)
{
	json_object *after = NULL, *zp;
	long long movable;

	json_object_object_get_ex(out, MHL_PIN_K_CENSUS_AFTER, &after);
	movable = mhlCensusPages(after, MHL_PIN_ZONE_MOVABLE);
	if (json_object_object_get_ex(out, MHL_PIN_K_ZERO_PAGE, &zp) &&
	    !g_strcmp0(json_object_get_string(json_object_object_get(zp, MHL_PIN_K_ZONE)), MHL_PIN_ZONE_MOVABLE))
		movable -= MAX(mhlCensusPages(after, MHL_PIN_K_ZERO), 0);
	if (mhlPinPolicyOf(t->s->pin_policy)->series && movable != 0) {
		mhlError("pin '%s' (%s): %lld pinned page(s) are still in ZONE_MOVABLE",
			 st->id, st->workload, movable);
		return -1;
	}
	return 0;
}

int mhlStepPin(mhlTrial *t, const mhlStep *st, json_object *res)
{
	char size[32], node[16], scatter[32];
	const char *argv[18] = { "/bin/memhp-pin", st->workload, "--id", st->id, "--size", size,
				 "--node", node, "--backing", st->backing, "--touch", st->touch };
	int argc = 12;
	/* The failure this pin must end in under this trial's pin_policy, or "". */
	const char *fails_with = !st->fails_with_policy[0] ||
				 !strcmp(st->fails_with_policy, t->s->pin_policy) ? st->fails_with : "";
	json_object *out, *ok, *pinned;
	g_autofree char *who = g_strdup_printf("pin '%s' (%s)", st->id, st->workload);
	int exitcode = -1;

	if (st->measure && !st->size) {
		/* The 0% point of a capacity sweep: nothing to pin. */
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string("size 0: nothing pinned"));
		return 0;
	}
	snprintf(size, sizeof(size), "%" G_GUINT64_FORMAT, st->size);
	snprintf(node, sizeof(node), "%d", st->node);
	snprintf(scatter, sizeof(scatter), "%" G_GUINT64_FORMAT, st->scatter);
	if (st->split[0]) {
		argv[argc++] = "--split";
		argv[argc++] = st->split;
	}
	if (st->scatter) {
		argv[argc++] = "--scatter";
		argv[argc++] = scatter;
	}
	if (!(out = mhlAgentExecJSON(t->g->dom, argv, 300, &exitcode)))
		return -1;
	json_object_object_add(res, MHL_K_WORKLOAD, out);
	if (mhlAgentJSONCheck(out, pinFields, G_N_ELEMENTS(pinFields), who) < 0)
		return -1;
	if (!json_object_object_get_ex(out, MHL_PIN_K_OK, &ok) || !json_object_get_boolean(ok))
		return pinFailed(t, st, fails_with, out, res);
	if (fails_with[0]) {
		mhlError("pin '%s' (%s) of %" G_GUINT64_FORMAT " bytes on node %d succeeded, but the step expects it to fail with %s",
			 st->id, st->workload, st->size, st->node, fails_with);
		return -1;
	}
	if (splitVerify(st, out) < 0)
		return -1;
	pinSummary(t, st, out);
	if (json_object_object_get_ex(out, MHL_PIN_K_PINNED, &pinned) && !json_object_get_boolean(pinned)) {
		json_object_object_add(res, MHL_K_NOTE, json_object_new_string(
			"the workload pins nothing (an unprotected setup): the ZONE_MOVABLE rule does not apply"));
		return 0;
	}
	return seriesRule(t, st, out);
}
