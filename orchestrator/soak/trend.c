/*
 * trend.c - least squares with a Student-t interval, and Theil-Sen with
 * Sen's interval (trend.h). The t distribution's CDF is the regularized
 * incomplete beta function (a continued fraction, Lentz's method); its
 * quantile is found by bisection, which is all a soak's few fits need.
 * mhlTrendSums is the least-squares fit as running sums, for series that
 * take a point per cycle for as long as a soak runs.
 */
#include <glib.h>

#include "soak/trend.h"

#include <math.h>
#include <stdlib.h>

/* The continued fraction of the incomplete beta function I_x(a, b). */
static double betaFraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double betaRegularized(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betaFraction(a, b, x) / a;
	return 1 - front * betaFraction(b, a, 1 - x) / b;
}

double mhlTrendTCdf(double t, double df)
{
	double tail = 0.5 * betaRegularized(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double mhlTrendTQuantile(double level, double df)
{
	double p = 0.5 + level / 2, lo = 0, hi = 1;
	int i;

	while (mhlTrendTCdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (mhlTrendTCdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static bool allFinite(const double *x, const double *y, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return false;
	return true;
}

int mhlTrendLeastSquares(const double *x, const double *y, size_t n, mhlTrendFit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, sse = 0, t;
	size_t i;

	if (n < MHL_TREND_MIN_POINTS || !allFinite(x, y, n))
		return -1;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (sxx <= 0)
		return -1;
	f->n = n;
	f->robust = false;
	f->slope = sxy / sxx;
	f->intercept = my - f->slope * mx;
	for (i = 0; i < n; i++) {
		double r = y[i] - f->intercept - f->slope * x[i];

		sse += r * r;
	}
	f->se = sqrt(sse / (double)(n - 2) / sxx);
	t = mhlTrendTQuantile(MHL_TREND_LEVEL, (double)(n - 2));
	f->lo = f->slope - t * f->se;
	f->hi = f->slope + t * f->se;
	return 0;
}

void mhlTrendSumsAdd(mhlTrendSums *s, double x, double y)
{
	double dx, dy;

	if (!isfinite(x) || !isfinite(y)) {
		s->bad = true;
		return;
	}
	s->n++;
	dx = x - s->mx;
	dy = y - s->my;
	s->mx += dx / (double)s->n;
	s->my += dy / (double)s->n;
	s->sxx += dx * (x - s->mx);
	s->sxy += dx * (y - s->my);
	s->syy += dy * (y - s->my);
}

int mhlTrendSumsFit(const mhlTrendSums *s, mhlTrendFit *f)
{
	double sse, t;

	if (s->n < MHL_TREND_MIN_POINTS || s->bad || s->sxx <= 0)
		return -1;
	f->n = s->n;
	f->robust = false;
	f->slope = s->sxy / s->sxx;
	f->intercept = s->my - f->slope * s->mx;
	sse = MAX(s->syy - f->slope * s->sxy, 0);	/* the residuals' sum of squares */
	f->se = sqrt(sse / (double)(s->n - 2) / s->sxx);
	t = mhlTrendTQuantile(MHL_TREND_LEVEL, (double)(s->n - 2));
	f->lo = f->slope - t * f->se;
	f->hi = f->slope + t * f->se;
	return 0;
}

static int cmpDouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of sorted @v[n]. */
static double median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int mhlTrendTheilSen(const double *x, const double *y, size_t n, mhlTrendFit *f)
{
	size_t m = MIN(n, MHL_TREND_SEN_MAX), i, j, k = 0, np;
	g_autofree double *bx = g_new0(double, m ? m : 1);
	g_autofree double *by = g_new0(double, m ? m : 1);
	g_autofree double *s = NULL, *r = NULL;
	double z, c, vs;
	long lo, hi;

	if (n < MHL_TREND_MIN_POINTS || !allFinite(x, y, n))
		return -1;
	/* bin into m points: point i of n goes to bin i * m / n */
	for (i = 0; i < m; i++) {
		size_t a = i * n / m, b = (i + 1) * n / m;

		for (j = a; j < b; j++) {
			bx[i] += x[j] / (double)(b - a);
			by[i] += y[j] / (double)(b - a);
		}
	}
	s = g_new(double, m * (m - 1) / 2);
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			if (bx[j] != bx[i])
				s[k++] = (by[j] - by[i]) / (bx[j] - bx[i]);
	if (k < 2)
		return -1;
	np = k;
	qsort(s, np, sizeof(*s), cmpDouble);
	f->n = n;
	f->robust = true;
	f->se = 0;
	f->slope = median(s, np);
	r = g_new(double, m);
	for (i = 0; i < m; i++)
		r[i] = by[i] - f->slope * bx[i];
	qsort(r, m, sizeof(*r), cmpDouble);
	f->intercept = median(r, m);
	/* Sen (1968): the ranks (N -+ C) / 2 of the sorted slopes, C = z * sqrt(Var S) */
	z = mhlTrendTQuantile(MHL_TREND_LEVEL, 1e7);	/* the normal quantile */
	vs = (double)m * (m - 1) * (2.0 * m + 5) / 18;
	c = z * sqrt(vs);
	lo = (long)floor(((double)np - c) / 2);
	hi = (long)ceil(((double)np + c) / 2);
	f->lo = s[CLAMP(lo, 0, (long)np - 1)];
	f->hi = s[CLAMP(hi, 0, (long)np - 1)];
	return 0;
}

bool mhlTrendSignificant(const mhlTrendFit *f, int sign)
{
	return sign >= 0 ? f->lo > 0 : f->hi < 0;
}
