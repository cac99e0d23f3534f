// SPDX-License-Identifier: GPL-2.0
/*
 * Tonic simulator: statistics for the reports (floating point is fine
 * here: it only summarises results, it never feeds back into a run).
 */
#include <math.h>
#include "exp.h"

void stat_summarise(const double *v, unsigned int n, struct stat_sum *st)
{
	double sum = 0, sq = 0;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	st->min = st->max = v[0];
	for (i = 0; i < n; i++) {
		sum += v[i];
		sq += v[i] * v[i];
		st->min = v[i] < st->min ? v[i] : st->min;
		st->max = v[i] > st->max ? v[i] : st->max;
	}
	st->mean = sum / n;
	st->sd = sqrt(fmax(sq / n - st->mean * st->mean, 0));
	st->jain = sq > 0 ? sum * sum / (n * sq) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, p in [0, 100]; sorts @v. */
double stat_percentile(double *v, unsigned int n, double p)
{
	unsigned int k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	k = (unsigned int)ceil(p / 100.0 * n);
	return v[k ? k - 1 : 0];
}

/* "value fraction" lines of the empirical CDF; sorts @v. */
void stat_cdf(struct sim_file *sf, double *v, unsigned int n)
{
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		rep_printf(sf, "%.6g %.6g\n", v[i], (double)(i + 1) / n);
}

int exp_check(struct sim_report *r, const char *exp, const struct sim *s)
{
	char why[200];

	if (s->tot.engine_errors) {
		rep_fail(r, "%s: %llu engine errors", exp,
			 (unsigned long long)s->tot.engine_errors);
		return -1;
	}
	if (sim_check_conservation(s, why, sizeof(why))) {
		rep_fail(r, "%s: %s", exp, why);
		return -1;
	}
	rep_metric(r, exp, "events", (double)s->tot.events);
	return 0;
}
