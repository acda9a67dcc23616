/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_STATS_H
#define PERFEX_STATS_H

/* A running mean and variance, as perf stat keeps them for -r. */
struct perfex_stats {
	unsigned int n;
	double mean;
	double m2;	/* sum of squared differences from the mean */
};

void perfex_stats_add(struct perfex_stats *stats, double value);
double perfex_stats_stddev_mean(const struct perfex_stats *stats);
double perfex_stats_rel_pct(double stddev, double mean);

#endif /* PERFEX_STATS_H */
