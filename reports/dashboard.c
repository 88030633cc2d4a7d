/*
 * dashboard.c - the one line at the top of every report (docs/reports.md,
 * "The dashboard line"): the kernels, pin policies, host backing, accelerator,
 * the trials counted by outcome and the run's wall time. Plain text; each
 * renderer escapes it for its format.
 */
#include <glib.h>

#include <string.h>

#include "reports/report.h"
#include "util.h"

void mhlRunCount(const mhlRun *run, int counts[MHL_VERDICT_LAST + 1])
{
	guint i;

	memset(counts, 0, sizeof(int) * (MHL_VERDICT_LAST + 1));
	for (i = 0; i < run->trials->len; i++)
		counts[mhlVerdictOf(run->trials->pdata[i])]++;
}

char *mhlRunCountsText(const int counts[MHL_VERDICT_LAST + 1])
{
	g_autoptr(GString) out = g_string_new(NULL);
	int v;

	for (v = 0; v < MHL_VERDICT_LAST; v++)
		if (counts[v] || v == MHL_VERDICT_PASS || v == MHL_VERDICT_FAIL)
			g_string_append_printf(out, "%s%d %s", out->len ? ", " : "", counts[v], mhlVerdictNames[v]);
	if (counts[MHL_VERDICT_LAST])
		g_string_append_printf(out, ", %d without a verdict", counts[MHL_VERDICT_LAST]);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* The distinct values of @path over the records, in order of appearance, joined by ", "; "–" if none. */
static char *distinct(const mhlRun *run, const char *path)
{
	g_autoptr(GPtrArray) seen = g_ptr_array_new();
	g_autofree char **strv = NULL;
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		const char *v = mhlJStr(run->trials->pdata[i], path, NULL);

		if (v && *v && !g_ptr_array_find_with_equal_func(seen, v, g_str_equal, NULL))
			g_ptr_array_add(seen, (gpointer)v);
	}
	if (!seen->len)
		return g_strdup("–");
	g_ptr_array_add(seen, NULL);
	strv = (char **)g_ptr_array_free(g_steal_pointer(&seen), FALSE);
	return g_strjoinv(", ", strv);
}

double mhlRunWallSeconds(const mhlRun *run)
{
	double first = 0, last = 0;
	bool any = false;
	guint i;

	for (i = 0; i < run->trials->len; i++) {
		json_object *rec = run->trials->pdata[i];
		g_autoptr(GDateTime) t = NULL;
		double s;

		if (!(t = g_date_time_new_from_iso8601(mhlJStr(rec, MHL_K_STARTED, ""), NULL)))
			continue;
		s = (double)g_date_time_to_unix(t) + g_date_time_get_microsecond(t) / 1e6;
		if (!any || s < first)
			first = s;
		if (!any || s + mhlJDbl(rec, MHL_K_SECONDS, 0) > last)
			last = s + mhlJDbl(rec, MHL_K_SECONDS, 0);
		any = true;
	}
	return any ? last - first : -1;
}

char *mhlRunDashboard(const mhlRun *run)
{
	g_autofree char *name = g_path_get_basename(run->dir);
	g_autofree char *kernels = distinct(run, MHL_PATH(MHL_K_KERNEL, MHL_K_SOURCE_VERSION));
	g_autofree char *policies = distinct(run, MHL_K_PIN_POLICY);
	g_autofree char *backing = distinct(run, MHL_PATH(MHL_K_HOST, MHL_K_BACKING));
	g_autofree char *source = distinct(run, MHL_PATH(MHL_K_HOST, MHL_K_SOURCE));
	g_autofree char *accel = distinct(run, MHL_PATH(MHL_K_DOMAIN, MHL_K_ACCEL));
	g_autofree char *hosts = distinct(run, MHL_PATH(MHL_K_HOST_IDENTITY, "hostname"));
	g_autofree char *qemu = distinct(run, MHL_PATH(MHL_K_HOST_IDENTITY, "qemu"));
	g_autofree char *hkern = distinct(run, MHL_PATH(MHL_K_HOST_IDENTITY, MHL_K_KERNEL));
	g_autofree char *stacks = distinct(run, MHL_PATH(MHL_K_STACK, MHL_K_NAME));
	g_autofree char *counts = NULL, *wall = NULL, *on = NULL, *host = NULL, *stack = NULL;
	int c[MHL_VERDICT_LAST + 1];
	double w = mhlRunWallSeconds(run);

	mhlRunCount(run, c);
	counts = mhlRunCountsText(c);
	if (w < 0)
		wall = g_strdup("–");
	else if (w >= 60)
		wall = g_strdup_printf("%d min %d s", (int)(w / 60), (int)w % 60);
	else
		wall = g_strdup_printf("%.1f s", w);
	/* where it ran (records with host_identity): after an upgrade, the line says so */
	if (strcmp(hosts, "–"))
		on = g_strdup_printf(" | on %s (kernel %s, QEMU %s)", hosts, hkern, qemu);
	/* the hypervisor stack, where one is not the host's own (docs/stacks.md) */
	if (strcmp(stacks, "–") && strcmp(stacks, "debian"))
		stack = g_strdup_printf(" | stack %s", stacks);
	/* the host's memory backing, where a record says it (a soak's does not) */
	if (strcmp(backing, "–") || strcmp(source, "–"))
		host = g_strdup_printf(" | host %s (%s)", backing, source);
	return g_strdup_printf("%s: %u trial(s): %s%s | kernel %s | policy %s%s%s | accel %s%s | wall %s",
			       name, run->trials->len, counts, run->bad->len ? ", unreadable lines" : "",
			       kernels, policies, stack ? stack : "", host ? host : "", accel, on ? on : "", wall);
}
