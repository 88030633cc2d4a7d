/*
 * tests/unit/trend.c - the soak's statistics (orchestrator/soak/trend.h):
 * Student t quantiles against the printed table, least squares and its
 * interval against a hand-computed fit, Theil-Sen against an outlier and a
 * long series, and the inputs no fit is made of.
 */
#include <glib.h>

#include <math.h>
#include <string.h>

#include "soak/trend.h"
#include "unit.h"

/* Two-sided 95 % quantiles of Student's t, from any printed table. */
static const struct {
	double df, want;
} quantiles[] = {
	{ 1, 12.7062 }, { 2, 4.3027 }, { 5, 2.5706 }, { 8, 2.3060 }, { 10, 2.2281 },
	{ 30, 2.0423 }, { 120, 1.9799 }, { 1e7, 1.9600 },
};

static bool quantileJudge(const void *row, GString *desc)
{
	const __typeof__(quantiles[0]) *q = row;
	double got;

	g_string_printf(desc, "trend: the 95 %% t quantile with %g degrees of freedom is %.4f", q->df, q->want);
	if (unitListing)
		return true;
	got = mhlTrendTQuantile(0.95, q->df);
	if (fabs(got - q->want) > 5e-4) {
		unitDiag("got %.6f", got);
		return unitExpect(false);
	}
	return true;
}

static const double X10[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static bool lsExactLine(void)
{
	double y[10];
	mhlTrendFit f;
	int i;

	for (i = 0; i < 10; i++)
		y[i] = 3 + 2 * X10[i];
	return unitExpect(mhlTrendLeastSquares(X10, y, 10, &f) == 0 && fabs(f.slope - 2) < 1e-12 &&
			  fabs(f.intercept - 3) < 1e-9 && f.se < 1e-9 && !f.robust && f.n == 10 &&
			  mhlTrendSignificant(&f, +1) && !mhlTrendSignificant(&f, -1));
}

static bool lsInterval(void)
{
	/* by hand: slope 2.007273, se 0.018242, t(0.95, 8) = 2.306004 */
	static const double y[] = { 2.1, 3.9, 6.2, 7.8, 10.1, 12.2, 13.8, 16.1, 18.0, 20.2 };
	mhlTrendFit f;

	if (mhlTrendLeastSquares(X10, y, 10, &f) < 0)
		return unitExpect(false);
	if (fabs(f.slope - 2.0072727) > 1e-6 || fabs(f.se - 0.0182423) > 1e-6 ||
	    fabs(f.lo - 1.9652059) > 1e-5 || fabs(f.hi - 2.0493396) > 1e-5) {
		unitDiag("slope %.7f se %.7f CI %.7f..%.7f", f.slope, f.se, f.lo, f.hi);
		return unitExpect(false);
	}
	return true;
}

static bool lsFlatNoise(void)
{
	static const double y[] = { 5, 7, 4, 6, 5, 7, 4, 6, 5, 6 };
	mhlTrendFit f;

	return unitExpect(mhlTrendLeastSquares(X10, y, 10, &f) == 0 && f.lo < 0 && f.hi > 0 &&
			  !mhlTrendSignificant(&f, +1) && !mhlTrendSignificant(&f, -1));
}

static bool senOutlier(void)
{
	static const double y[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 };
	mhlTrendFit ts, ls;

	return unitExpect(mhlTrendTheilSen(X10, y, 10, &ts) == 0 && fabs(ts.slope - 1) < 1e-12 &&
			  ts.robust && ts.lo <= 1 && ts.hi >= 1 &&
			  mhlTrendLeastSquares(X10, y, 10, &ls) == 0 && ls.slope > 4);
}

static bool senDecline(void)
{
	static const double y[] = { 100, 93, 95, 86, 88, 79, 82, 71, 74, 66 };
	mhlTrendFit f;

	return unitExpect(mhlTrendTheilSen(X10, y, 10, &f) == 0 && f.slope < -3 && f.slope > -5 &&
			  mhlTrendSignificant(&f, -1) && !mhlTrendSignificant(&f, +1));
}

/*
 * Sen's interval by hand. With x = 1..10 every pairwise slope is
 * (y_j - y_i) / (j - i): N = 45 of them. Var S = n(n-1)(2n+5)/18 =
 * 10 * 9 * 25 / 18 = 125 and C = z * sqrt(Var S) = 1.959964 * 11.180340 =
 * 21.9131 (z the normal 97.5 % quantile); the interval is the sorted
 * slopes at the ranks, counted from 0, floor((N - C) / 2) = floor(11.54) = 11
 * and ceil((N + C) / 2) = ceil(33.46) = 34, the slope their median, rank 22.
 * (Var S over 9 instead: C = 30.99, ranks 7 and 38.) Below, each series'
 * 45 slopes sorted, ranks 11, 22 and 34 in brackets.
 */
static bool senExpect(const double *y, double slope, double lo, double hi)
{
	mhlTrendFit f;

	if (mhlTrendTheilSen(X10, y, 10, &f) < 0)
		return unitExpect(false);
	if (fabs(f.slope - slope) > 1e-12 || fabs(f.lo - lo) > 1e-12 || fabs(f.hi - hi) > 1e-12) {
		unitDiag("slope %.15g CI %.15g..%.15g, want %.15g CI %.15g..%.15g", f.slope, f.lo, f.hi, slope, lo, hi);
		return unitExpect(false);
	}
	return true;
}

/*
 * -11 -9 -9 -8 -7 -17/3 -16/3 -16/3 -24/5 -14/3 -22/5 [-21/5] -29/7 -29/7 -4
 * -4 -34/9 -15/4 -11/3 -7/2 -7/2 -7/2 [-7/2] -7/2 -7/2 -27/8 -10/3 -13/4 -13/4
 * -13/4 -3 -3 -3 -19/7 [-5/2] -5/2 -12/5 -11/5 -5/3 -5/3 -4/3 2 2 3 3:
 * slope -3.5, interval -4.2..-2.5 (over 9: -16/3..-5/3); the intercept the
 * median of y_i + 3.5 x_i: 99 100 100 100 101 | 103.5 105.5 105.5 105.5 106.5,
 * (101 + 103.5) / 2 = 102.25.
 */
static bool senDeclineByHand(void)
{
	static const double y[] = { 100, 93, 95, 86, 88, 79, 82, 71, 74, 66 };
	mhlTrendFit f;

	if (!senExpect(y, -3.5, -4.2, -2.5) || mhlTrendTheilSen(X10, y, 10, &f) < 0)
		return false;
	if (fabs(f.intercept - 102.25) > 1e-12)
		unitDiag("intercept %.15g", f.intercept);
	return unitExpect(fabs(f.intercept - 102.25) < 1e-12 && f.se == 0 && f.robust && f.n == 10 &&
			  mhlTrendSignificant(&f, -1) && !mhlTrendSignificant(&f, +1));
}

/*
 * y = 0 2 6 6 8 5 4 5 9 8: -3 -2 -1 -1 -1 -2/3 -1/2 -1/2 -1/3 -1/4 -1/5 [0] 0
 * 0 1/4 2/7 1/3 2/5 1/2 1/2 3/5 2/3 [5/7] 3/4 3/4 3/4 8/9 1 1 1 1 9/8 4/3 4/3
 * [3/2] 2 2 2 2 2 2 5/2 3 4 4: slope 5/7, interval 0..1.5 (over 9: -0.5..2).
 * Its lower end is 0 exactly: the interval does not exclude 0, no growth.
 */
static bool senLoZero(void)
{
	static const double y[] = { 0, 2, 6, 6, 8, 5, 4, 5, 9, 8 };
	mhlTrendFit f;

	return senExpect(y, 5.0 / 7, 0, 1.5) && mhlTrendTheilSen(X10, y, 10, &f) == 0 &&
	       unitExpect(f.lo == 0 && !mhlTrendSignificant(&f, +1) && !mhlTrendSignificant(&f, -1));
}

/*
 * y = 5 8 7 9 1 7 3 4 0 0: -8 -4 -4 -3 -7/3 -7/3 -2 -2 -9/5 -7/4 -3/2 [-3/2]
 * -3/2 -5/4 -7/6 -8/7 -1 -1 -1 -1 -1 -1 [-1] -1 -2/3 -5/8 -3/5 -5/9 -1/3 -1/4
 * -1/4 -1/5 -1/7 0 [0] 2/5 1/2 1 1 1 1 4/3 2 3 6: slope -1, interval -1.5..0
 * (over 9: -2..1). Its upper end is 0 exactly: no decline.
 */
static bool senHiZero(void)
{
	static const double y[] = { 5, 8, 7, 9, 1, 7, 3, 4, 0, 0 };
	mhlTrendFit f;

	return senExpect(y, -1, -1.5, 0) && mhlTrendTheilSen(X10, y, 10, &f) == 0 &&
	       unitExpect(f.hi == 0 && !mhlTrendSignificant(&f, -1) && !mhlTrendSignificant(&f, +1));
}

static bool senBinned(void)
{
	enum { N = 5000 };
	g_autofree double *x = g_new(double, N), *y = g_new(double, N);
	mhlTrendFit f;
	int i;

	for (i = 0; i < N; i++) {
		x[i] = i;
		y[i] = 1000 - 0.5 * i + (i % 7) - 3;	/* a saw of +-3 on a line */
	}
	return unitExpect(mhlTrendTheilSen(x, y, N, &f) == 0 && f.n == N && fabs(f.slope + 0.5) < 0.01 &&
			  f.lo <= -0.49 && f.hi >= -0.51 && f.hi - f.lo < 0.05);
}

/* Running sums fit what least squares over all the points fits: the hand-computed line, and a long soak's RSS. */
static bool sumsAsLeastSquares(void)
{
	enum { N = 100000 };
	static const double y10[] = { 2.1, 3.9, 6.2, 7.8, 10.1, 12.2, 13.8, 16.1, 18.0, 20.2 };
	g_autofree double *x = g_new(double, N), *y = g_new(double, N);
	mhlTrendSums s = { 0 }, l = { 0 };
	mhlTrendFit a, b, c, d;
	int i;

	for (i = 0; i < 10; i++)
		mhlTrendSumsAdd(&s, X10[i], y10[i]);
	for (i = 0; i < N; i++) {
		x[i] = i + 1;
		y[i] = 27e6 + 411.0 * i + 4096.0 * (i % 5) - 8192;	/* bytes: 411 B a cycle under a 4 KiB saw */
		mhlTrendSumsAdd(&l, x[i], y[i]);
	}
	if (mhlTrendSumsFit(&s, &a) < 0 || mhlTrendLeastSquares(X10, y10, 10, &b) < 0 ||
	    mhlTrendSumsFit(&l, &c) < 0 || mhlTrendLeastSquares(x, y, N, &d) < 0)
		return unitExpect(false);
	if (fabs(a.slope - b.slope) > 1e-12 || fabs(a.se - b.se) > 1e-9 || fabs(a.lo - b.lo) > 1e-9 ||
	    fabs(a.intercept - b.intercept) > 1e-9 || a.n != 10 || a.robust ||
	    fabs(c.slope - d.slope) > 1e-9 * d.slope || fabs(c.se - d.se) > 1e-6 * d.se ||
	    fabs(c.intercept - d.intercept) > 1e-6 * d.intercept || fabs(c.slope - 411) > 0.01) {
		unitDiag("sums: slope %.9g se %.9g, %.9g se %.9g; all points: slope %.9g se %.9g, %.9g se %.9g",
			 a.slope, a.se, c.slope, c.se, b.slope, b.se, d.slope, d.se);
		return unitExpect(false);
	}
	/* a NaN, fewer points than a fit needs, all x equal: no fit */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 5; i++)
		mhlTrendSumsAdd(&s, i, i == 2 ? NAN : i);
	memset(&l, 0, sizeof(l));
	for (i = 0; i < 5; i++)
		mhlTrendSumsAdd(&l, 4, i);
	return unitExpect(mhlTrendSumsFit(&s, &a) < 0 && mhlTrendSumsFit(&l, &a) < 0);
}

static bool refused(void)
{
	static const double same[] = { 4, 4, 4, 4, 4 }, y5[] = { 1, 2, 3, 4, 5 };
	const double nan5[] = { 1, 2, NAN, 4, 5 };
	mhlTrendFit f;

	return unitExpect(mhlTrendLeastSquares(X10, y5, MHL_TREND_MIN_POINTS - 1, &f) < 0 &&
			  mhlTrendTheilSen(X10, y5, MHL_TREND_MIN_POINTS - 1, &f) < 0 &&
			  mhlTrendLeastSquares(same, y5, 5, &f) < 0 && mhlTrendTheilSen(same, y5, 5, &f) < 0 &&
			  mhlTrendLeastSquares(X10, nan5, 5, &f) < 0 && mhlTrendTheilSen(nan5, y5, 5, &f) < 0);
}

static bool cdfSymmetric(void)
{
	return unitExpect(fabs(mhlTrendTCdf(0, 7) - 0.5) < 1e-12 &&
			  fabs(mhlTrendTCdf(2.3646, 7) - 0.975) < 1e-4 &&
			  fabs(mhlTrendTCdf(-2.3646, 7) - 0.025) < 1e-4);
}

/* An interval is significant on a side only when it excludes 0 there: an end at 0 is not. */
static const struct {
	double lo, hi;
	int sign;
	bool want;
} significances[] = {
	{ 0, 1, +1, false }, { 1e-300, 1, +1, true }, { -1e-300, 1, +1, false }, { 0, 1, -1, false },
	{ -1, 0, -1, false }, { -1, -1e-300, -1, true }, { -1, 1e-300, -1, false }, { -1, 0, +1, false },
	{ -1, 1, +1, false }, { -1, 1, -1, false },
};

static bool significanceJudge(const void *row, GString *desc)
{
	const __typeof__(significances[0]) *r = row;
	mhlTrendFit f = { .n = 10, .lo = r->lo, .hi = r->hi, .slope = (r->lo + r->hi) / 2 };

	g_string_printf(desc, "trend: the interval %g..%g is %ssignificant %s", r->lo, r->hi, r->want ? "" : "not ",
			r->sign > 0 ? "growth" : "decline");
	if (unitListing)
		return true;
	return unitExpect(mhlTrendSignificant(&f, r->sign) == r->want);
}

static const unitCase cases[] = {
	{ "trend: the t CDF is 0.5 at 0 and 0.975 at t(0.95, 7) = 2.3646, symmetric", cdfSymmetric },
	{ "trend: least squares on an exact line: slope 2, intercept 3, no error, significant growth only",
	  lsExactLine },
	{ "trend: least squares' slope and 95 % interval match the hand computation (df 8)", lsInterval },
	{ "trend: a flat noisy series: the interval holds 0, no trend either way", lsFlatNoise },
	{ "trend: Theil-Sen ignores an outlier least squares follows", senOutlier },
	{ "trend: Theil-Sen finds a swinging decline, significant downward only", senDecline },
	{ "trend: Theil-Sen on 5000 points (binned) keeps the slope -0.5 with a narrow interval", senBinned },
	{ "trend: Theil-Sen's slope, intercept and Sen's interval match the hand computation (decline)",
	  senDeclineByHand },
	{ "trend: Sen's interval 0..1.5 by hand: its lower end exactly 0 is no growth", senLoZero },
	{ "trend: Sen's interval -1.5..0 by hand: its upper end exactly 0 is no decline", senHiZero },
	{ "trend: too few points, all x equal or a NaN: no fit", refused },
	{ "trend: running sums fit as least squares over every point does (the hand-computed line; 100000 points of 411 B/cycle on 27 MB); a NaN or all x equal: no fit",
	  sumsAsLeastSquares },
};

static const unitTable tables[] = {
	UNIT_TABLE(quantiles, quantileJudge),
	UNIT_CASES(cases),
	UNIT_TABLE(significances, significanceJudge),
};

const unitModule unitTrend = UNIT_MODULE("trend", NULL, NULL, tables);
