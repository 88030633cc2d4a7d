/*
 * noise.c - when a number of a trial is worse, not noise: the metrics the
 * reports judge across runs with their floors, and the one rule that
 * `report --history` and `report --compare` both apply (docs/reports.md,
 * "The regression rule").
 *
 * The spread of a set of values of one metric (earlier runs, the repeats of a
 * timed step, several trials of one id) is 3 x 1.4826 x their MAD (a robust
 * standard deviation, three of them), at least the metric's absolute floor;
 * with fewer than MHL_NOISE_REPEATS values, whose MAD says little, also at
 * least the metric's relative floor times the median. A value is worse
 * (better) when it is beyond the median by more than the spread.
 */
#include <glib.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report.h"
#include "util.h"

/*
 * The floors. Pin times under TCG on a shared host move a lot between
 * identical runs (two of them here: 3.30 s and 1.86 s of the same 256 MiB
 * pin, x1.78), so their relative floor is 100 %: without repeats only twice
 * the time is a regression.
 */
const mhlMetricInfo mhlMetrics[MHL_METRIC_LAST] = {
	[MHL_METRIC_REACHED] = { "reached_mib", "MiB", false, 0.10, 2, 0 },
	[MHL_METRIC_CONVERGE] = { "seconds_to_converge", "s", false, 0.10, 0.5, 2 },
	[MHL_METRIC_PIN] = { "pin_s", "s", false, 1.00, 0.05, 3 },
	[MHL_METRIC_BENCH] = { "bench_get_us", "us", false, 1.00, 50, 0 },
	[MHL_METRIC_CPH] = { "cycles_per_hour", "/h", true, 0.10, 1, 1 },
	[MHL_METRIC_FINDINGS] = { "findings", "", false, 0.10, 0.5, 0 },
	/*
	 * The host's share back is 100 % or near it on every run here; 5 points
	 * is what a resize settling a sample later moves it. Lifecycle times
	 * under TCG on a shared host move as pin times do (relative 100 %).
	 */
	[MHL_METRIC_HOST_BACK] = { "host_back_pct", "%", true, 0.05, 5, 0 },
	[MHL_METRIC_DOWNTIME] = { "downtime_ms", "ms", false, 1.00, 50, 0 },
	[MHL_METRIC_SAVE] = { "save_s", "s", false, 1.00, 0.5, 2 },
	[MHL_METRIC_RESTORE] = { "restore_s", "s", false, 1.00, 0.5, 2 },
	[MHL_METRIC_DIMM_REMOVE] = { "dimm_remove_s", "s", false, 1.00, 0.5, 2 },
};

/*
 * @rec's first step named one of @names (NULL-terminated) that holds @path
 * (with @set, holds it true), or NULL.
 */
static json_object *firstStep(json_object *rec, const char *const *names, const char *path, bool set)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *st = json_object_array_get_idx(steps, i);

		if (g_strv_contains(names, mhlJStr(st, MHL_K_STEP, "")) && mhlJ(st, path) &&
		    (!set || mhlJBool(st, path, false)))
			return st;
	}
	return NULL;
}

/* The number at @path of step @st (NULL: none), or NAN when it is none, not finite or negative. */
static double stepNumber(json_object *st, const char *path)
{
	double v = st ? mhlJDbl(st, path, NAN) : NAN;

	return isfinite(v) && v >= 0 ? v : NAN;
}

static gint dblCmp(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))dblCmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mhlNoiseSpread(mhlMetric m, const double *values, size_t n, double *med)
{
	g_autofree double *c = g_memdup2(values, n * sizeof(*values));
	double spread;
	size_t i;

	if (!n) {
		*med = NAN;
		return NAN;
	}
	*med = median(c, n);
	for (i = 0; i < n; i++)
		c[i] = fabs(values[i] - *med);
	spread = MAX(3 * 1.4826 * median(c, n), mhlMetrics[m].floor);
	if (n < MHL_NOISE_REPEATS)
		spread = MAX(spread, mhlMetrics[m].relative * fabs(*med));
	return spread;
}

int mhlNoiseJudge(mhlMetric m, const double *values, size_t n, double x, double *med, double *spread)
{
	double worse;

	*spread = mhlNoiseSpread(m, values, n, med);
	if (!n || isnan(x))
		return 0;
	worse = mhlMetrics[m].higher_better ? *med - x : x - *med;
	return worse > *spread ? 1 : -worse > *spread ? -1 : 0;
}

/* The first bench step of @rec, NULL if none. */
static json_object *benchStep(json_object *rec)
{
	json_object *steps = mhlJArr(rec, MHL_K_STEPS);
	size_t i;

	for (i = 0; steps && i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);

		if (!strcmp(mhlJStr(s, MHL_K_STEP, ""), "bench") && mhlJArr(s, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_RUNS)))
			return s;
	}
	return NULL;
}

size_t mhlMetricRepeats(json_object *rec, mhlMetric m, GArray *out)
{
	json_object *s = m == MHL_METRIC_BENCH ? benchStep(rec) : NULL;
	json_object *runs = s ? mhlJArr(s, MHL_PATH(MHL_K_WORKLOAD, MHL_PIN_K_RUNS)) : NULL;
	size_t i, n = 0;

	for (i = 0; runs && i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		double us = mhlJDbl(r, MHL_PIN_K_GET_US, -1);

		if (us >= 0 && isfinite(us)) {
			g_array_append_val(out, us);
			n++;
		}
	}
	return n;
}

double mhlMetricValue(json_object *rec, mhlMetric m)
{
	static const char *const migrateSteps[] = { "migrate", NULL }, *const saveSteps[] = { "save", "managedsave", NULL };
	static const char *const dimmSteps[] = { "dimm", NULL };
	static const char downtime[] = MHL_PATH3(MHL_K_LIFECYCLE, MHL_K_MIGRATION, MHL_K_DOWNTIME_MS);
	static const char saveS[] = MHL_PATH(MHL_K_LIFECYCLE, MHL_K_SAVE_S), restoreS[] = MHL_PATH(MHL_K_LIFECYCLE, MHL_K_RESTORE_S);
	g_autoptr(GArray) runs = NULL;
	mhlSummary s;
	double pin;

	mhlSummaryRead(rec, &s);
	switch (m) {
	case MHL_METRIC_REACHED:
		return s.reached_bytes >= 0 ? s.reached_bytes / 1048576.0 : NAN;
	case MHL_METRIC_CONVERGE:
		return s.seconds_to_converge >= 0 ? s.seconds_to_converge : NAN;
	case MHL_METRIC_PIN:
		pin = mhlTrialPinSeconds(rec);
		return pin >= 0 ? pin : NAN;
	case MHL_METRIC_BENCH:
		/* the median of its runs, as the workload's get_us_median (bench.c) */
		runs = g_array_new(FALSE, FALSE, sizeof(double));
		if (!mhlMetricRepeats(rec, m, runs))
			return NAN;
		return median((double *)(void *)runs->data, runs->len);
	case MHL_METRIC_CPH:
		return s.cycles_per_hour >= 0 ? s.cycles_per_hour : NAN;
	case MHL_METRIC_HOST_BACK:
		return s.host_reclaimed_of_reclaimable >= 0 ? 100 * s.host_reclaimed_of_reclaimable : NAN;
	case MHL_METRIC_DOWNTIME:
		return stepNumber(firstStep(rec, migrateSteps, downtime, false), downtime);
	case MHL_METRIC_SAVE:
		return stepNumber(firstStep(rec, saveSteps, saveS, false), saveS);
	case MHL_METRIC_RESTORE:
		return stepNumber(firstStep(rec, saveSteps, restoreS, false), restoreS);
	case MHL_METRIC_DIMM_REMOVE:
		/* the first DIMM detach that completed (its elastic says removed), not the attach before it */
		return stepNumber(firstStep(rec, dimmSteps, MHL_PATH(MHL_K_ELASTIC, MHL_K_REMOVED), true),
				  MHL_PATH(MHL_K_ELASTIC, MHL_K_SECONDS));
	case MHL_METRIC_FINDINGS:
	case MHL_METRIC_LAST:
	default:
		return s.findings >= 0 ? (double)s.findings : NAN;
	}
}
