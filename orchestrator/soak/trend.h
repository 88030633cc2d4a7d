/*
 * trend.h - is a soak's series growing? Pure statistics, no I/O: a
 * least-squares line with a Student-t confidence interval on its slope, and
 * the Theil-Sen slope (the median of the pairwise slopes, with Sen's
 * interval from Kendall's S) for a series whose single readings swing (guest
 * free memory). docs/soak.md ("Trends") says how a soak judges with them.
 */
#ifndef MHL_SOAK_TREND_H
#define MHL_SOAK_TREND_H

#include <stdbool.h>
#include <stddef.h>

#define MHL_TREND_LEVEL 0.95	/* the confidence of every interval */
#define MHL_TREND_MIN_POINTS 4	/* fewer: no fit (-1) */
#define MHL_TREND_SEN_MAX 512	/* Theil-Sen on more points bins them first (mean of consecutive x, y) */

typedef struct {
	size_t n;		/* points fitted */
	double slope;		/* y units per x unit */
	double intercept;	/* y at x = 0 */
	double lo, hi;		/* MHL_TREND_LEVEL confidence interval of the slope */
	double se;		/* least squares: the slope's standard error; Theil-Sen: 0 */
	bool robust;		/* Theil-Sen (else least squares) */
} mhlTrendFit;

/* Two-sided Student t quantile: t such that P(|T| <= t) = @level with @df degrees of freedom (df >= 1). */
double mhlTrendTQuantile(double level, double df);

/* Student t CDF P(T <= @t) with @df degrees of freedom. */
double mhlTrendTCdf(double t, double df);

/*
 * Fit y = intercept + slope * x by least squares. -1 when there are fewer
 * than MHL_TREND_MIN_POINTS points, all x are equal, or a value is not finite.
 */
int mhlTrendLeastSquares(const double *x, const double *y, size_t n, mhlTrendFit *f);

/*
 * The same least-squares fit kept as running sums, for a series that grows
 * by a point per soak cycle: Welford's updates of the means and the
 * co-moments, in constant memory however many points are added (a soak's
 * judgement never holds its points).
 */
typedef struct {
	size_t n;		/* points added */
	double mx, my;		/* their means */
	double sxx, sxy, syy;	/* sums of (x - mx)^2, (x - mx)(y - my), (y - my)^2 */
	bool bad;		/* a value that is not finite was added: no fit */
} mhlTrendSums;

void mhlTrendSumsAdd(mhlTrendSums *s, double x, double y);
/* The fit of the points added; -1 as mhlTrendLeastSquares. */
int mhlTrendSumsFit(const mhlTrendSums *s, mhlTrendFit *f);

/* The Theil-Sen slope and Sen's interval; -1 as mhlTrendLeastSquares. */
int mhlTrendTheilSen(const double *x, const double *y, size_t n, mhlTrendFit *f);

/* Whether the interval excludes 0 on the side of @sign (+1: growth, -1: decline). */
bool mhlTrendSignificant(const mhlTrendFit *f, int sign);

#endif
