/*
 * fit.c - what a guest of a scenario can make resident on its host (issue
 * 36, item 5), item by item: run fits it against MemAvailable, check warns
 * of it, a fleet soak's slot and a soak's trend ceiling count devices whole.
 */
#include <glib.h>

#include <stdio.h>
#include <string.h>

#include "scenario/scenario.h"
#include "scenario/names.h"

static uint64_t addSat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static uint64_t mulSat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* Whether the kernel command line @cmdline has the word @arg (or @arg=1, y, on). */
static bool cmdlineOn(const char *cmdline, const char *arg)
{
	g_auto(GStrv) words = g_strsplit_set(cmdline ? cmdline : "", " \t", -1);
	size_t n = strlen(arg);
	int i;

	for (i = 0; words[i]; i++)
		if (!strncmp(words[i], arg, n) && words[i][n] == '=' &&
		    (!strcmp(words[i] + n + 1, "1") || !strcmp(words[i] + n + 1, "y") || !strcmp(words[i] + n + 1, "on")))
			return true;
	return false;
}

/* Why every device of @s counts in full into @why ("" when nothing makes it so). */
static void fitWhole(const mhlScenario *s, bool whole, char *why, size_t len)
{
	int i;

	why[0] = '\0';
	if (whole)
		g_strlcpy(why, "a soak plugs, touches and pins anywhere in it", len);
	/*
	 * A guest that writes every page it frees makes all it onlines resident:
	 * onlining frees each page into the buddy allocator (issue 48 item 5:
	 * 4,841 MiB resident where 1,024 were counted). A kernel the lab did not
	 * build may do so by default (CONFIG_INIT_ON_FREE_DEFAULT_ON).
	 */
	else if (cmdlineOn(s->cmdline, "init_on_free"))
		g_strlcpy(why, "init_on_free=1 writes every page the guest frees, onlining included", len);
	else if (cmdlineOn(s->cmdline, "page_poison"))
		g_strlcpy(why, "page_poison=1 writes every page the guest frees, onlining included", len);
	else if (s->kernel && (!strcmp(s->kernel, "package") || !strcmp(s->kernel, "prebuilt")))
		g_strlcpy(why, "a kernel the lab did not build may zero every page it frees (CONFIG_INIT_ON_FREE_DEFAULT_ON)", len);
	else if (s->prealloc)
		g_strlcpy(why, "preallocated", len);
	else if (mhlMemBackingOf(s->backing)->hugetlb)
		g_strlcpy(why, "on host huge pages", len);
	for (i = 0; !why[0] && i < s->nsteps; i++) {
		if (s->steps[i].type == MHL_STEP_EXEC || s->steps[i].type == MHL_STEP_SELFTEST)
			snprintf(why, len, "the %s step at line %d may touch anything",
				 mhlStepTypeNames[s->steps[i].type], s->steps[i].line);
	}
}

void mhlScenarioGuestFit(const mhlScenario *s, bool whole, mhlGuestFit *f)
{
	int i;

	memset(f, 0, sizeof(*f));
	fitWhole(s, whole, f->whole, sizeof(f->whole));
	for (i = 0; i < s->nsteps; i++) {
		const mhlStep *st = &s->steps[i];

		if (st->node < 0 || st->node >= MHL_MAX_NODES)
			continue;
		if (st->type == MHL_STEP_PIN || st->type == MHL_STEP_BENCH)
			f->touch[st->node] = addSat(f->touch[st->node], st->size);
		else if (st->type == MHL_STEP_HUGEPAGES && st->count > 0)
			f->touch[st->node] = addSat(f->touch[st->node], mulSat((uint64_t)st->count, st->size));
		else if ((st->type == MHL_STEP_DIMM || st->type == MHL_STEP_VMEM) && st->action == MHL_ACTION_ATTACH)
			f->dev[st->node] = addSat(f->dev[st->node], st->size);	/* attached while it runs */
	}
	f->qemu = MHL_QEMU_OVERHEAD;
	f->total = f->qemu;
	for (i = 0; i < s->nnodes && i < MHL_MAX_NODES; i++) {
		f->boot = addSat(f->boot, s->nodes[i].memory);
		f->dev[i] = addSat(f->dev[i], s->nodes[i].vmem_size);
		f->counted[i] = f->whole[0] ? f->dev[i] : MIN(f->dev[i], addSat(f->touch[i], MHL_GUEST_SLACK));
		f->total = addSat(f->total, f->counted[i]);
	}
	f->total = addSat(f->total, f->boot);
}

char *mhlGuestFitText(const mhlGuestFit *f)
{
	GString *t = g_string_new(NULL);
	int i;

	g_string_printf(t, "boot memory %" G_GUINT64_FORMAT " MiB", f->boot >> 20);
	for (i = 0; i < MHL_MAX_NODES; i++) {
		if (!f->dev[i])
			continue;
		if (f->whole[0])
			g_string_append_printf(t, " + node %d's hotplug memory %" G_GUINT64_FORMAT " MiB in full (%s)",
					       i, f->counted[i] >> 20, f->whole);
		else
			g_string_append_printf(t, " + node %d's hotplug memory %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
					       " MiB (its steps touch %" G_GUINT64_FORMAT " MiB + %llu MiB for the guest's own use)",
					       i, f->counted[i] >> 20, f->dev[i] >> 20, f->touch[i] >> 20,
					       MHL_GUEST_SLACK >> 20);
	}
	g_string_append_printf(t, " + %" G_GUINT64_FORMAT " MiB for QEMU",
			       f->qemu >> 20);
	return g_string_free(t, FALSE);
}

uint64_t mhlScenarioGuestBytes(const mhlScenario *s, bool whole)
{
	mhlGuestFit f;

	mhlScenarioGuestFit(s, whole, &f);
	return f.total;
}
