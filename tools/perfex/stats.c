// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of perfex -r: the mean of the runs, and how far it can
 * be trusted.  The "+- x.xx%" of perf stat is the standard deviation of
 * the mean (the runs' standard deviation over the square root of their
 * number) relative to the mean; perfex gives the same figure, so that
 * the two can be compared.
 */
#include <math.h>

#include "stats.h"

/**
 * perfex_stats_add - one more run
 * @stats: zeroed before the first
 * @value: what the run measured
 *
 * Welford's update: stable however large the values, in one pass.
 */
void perfex_stats_add(struct perfex_stats *stats, double value)
{
	double delta = value - stats->mean;

	stats->n++;
	stats->mean += delta / stats->n;
	stats->m2 += delta * (value - stats->mean);
}

/**
 * perfex_stats_stddev_mean - the standard deviation of the mean
 * @stats: the runs
 *
 * Return: sqrt(variance / n), with the variance of a sample (n - 1);
 * 0 for fewer than two runs.
 */
double perfex_stats_stddev_mean(const struct perfex_stats *stats)
{
	if (stats->n < 2)
		return 0;
	return sqrt(stats->m2 / (stats->n - 1) / stats->n);
}

/**
 * perfex_stats_rel_pct - @stddev as a percentage of @mean
 * @stddev: a standard deviation
 * @mean: the mean it is about
 *
 * Return: the percentage, 0 if @mean is 0.
 */
double perfex_stats_rel_pct(double stddev, double mean)
{
	return mean ? 100.0 * stddev / mean : 0;
}
