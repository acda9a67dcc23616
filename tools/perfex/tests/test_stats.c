// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of -r: mean, and the standard deviation of the mean,
 * as perf stat computes them.
 */
#include <math.h>

#include "stats.h"
#include "tap.h"

static int near(double got, double want, double tolerance)
{
	return fabs(got - want) <= tolerance;
}

int main(void)
{
	static const double values[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct perfex_stats stats = { 0 };
	unsigned int i;

	tap_ok(perfex_stats_stddev_mean(&stats) == 0, "no runs: stddev 0");
	perfex_stats_add(&stats, 42);
	tap_ok(stats.n == 1 && stats.mean == 42 &&
	       perfex_stats_stddev_mean(&stats) == 0,
	       "one run: its value, stddev 0");

	stats = (struct perfex_stats){ 0 };
	for (i = 0; i < 8; i++)
		perfex_stats_add(&stats, values[i]);
	tap_ok(stats.n == 8 && near(stats.mean, 5, 1e-12), "mean of eight");
	/* Sample variance 32/7; of the mean, that over 8. */
	tap_ok(near(perfex_stats_stddev_mean(&stats), sqrt(32.0 / 7 / 8),
		    1e-12), "stddev of the mean: sqrt(s^2 / n)");
	tap_ok(near(perfex_stats_rel_pct(perfex_stats_stddev_mean(&stats),
					 stats.mean), 15.1185789, 1e-6),
	       "relative to the mean, in percent");
	tap_ok(perfex_stats_rel_pct(3, 0) == 0, "a mean of 0: 0%%");

	stats = (struct perfex_stats){ 0 };
	perfex_stats_add(&stats, 1e15 + 1);
	perfex_stats_add(&stats, 1e15 + 2);
	perfex_stats_add(&stats, 1e15 + 3);
	tap_ok(near(stats.mean, 1e15 + 2, 0.01) &&
	       near(perfex_stats_stddev_mean(&stats), sqrt(1.0 / 3), 1e-3),
	       "large counts close together: no loss of precision");

	stats = (struct perfex_stats){ 0 };
	for (i = 0; i < 5; i++)
		perfex_stats_add(&stats, 1000);
	tap_ok(stats.mean == 1000 && perfex_stats_stddev_mean(&stats) == 0,
	       "the same every run: stddev exactly 0");
	return tap_done();
}
