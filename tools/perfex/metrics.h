/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_METRICS_H
#define PERFEX_METRICS_H

#include <stddef.h>

#include "format.h"

#define PERFEX_METRIC_UNIT_SIZE	24

/*
 * A figure derived from the counts, said after the '#' of a report line:
 * printf(fmt, value), a blank, then unit, e.g. "   1.23  insn per cycle".
 */
struct perfex_metric {
	double value;
	const char *fmt;	/* as perf stat prints it */
	char unit[PERFEX_METRIC_UNIT_SIZE];
};

enum perfex_count_kind perfex_count_kind_of(const char *name);
int perfex_metric_of(const struct perfex_count *counts, unsigned int nr,
		     unsigned int i, unsigned long long wall_ns,
		     struct perfex_metric *metric);
int perfex_metric_ratio(struct perfex_metric *metric, double num, double den,
			const char *fmt, const char *unit);
int perfex_metric_text(char *buf, size_t size,
		       const struct perfex_metric *metric);
int perfex_metric_number(char *buf, size_t size,
			 const struct perfex_metric *metric);

#endif /* PERFEX_METRICS_H */
