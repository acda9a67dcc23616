/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_FORMAT_H
#define PERFEX_FORMAT_H

#include <stddef.h>
#include <stdio.h>

/* Long enough for 2^64-1 with separators: 26 characters and a NUL. */
#define THOUSANDS_BUF_SIZE	32

/* How a count is shown, and what is said about it after the '#'. */
enum perfex_count_kind {
	PERFEX_COUNT_PLAIN,		/* a number, nothing more */
	PERFEX_COUNT_EVENTS,		/* events: their rate per second */
	PERFEX_COUNT_TASK_CLOCK,	/* ns on a CPU: msec, CPUs utilized */
};

struct perfex_count {
	const char *name;
	unsigned long long value;	/* the command's own thread */
	unsigned long long children;	/* its other threads, its children */
	enum perfex_count_kind kind;
};

struct perfex_report {
	char *const *command;	/* NULL-terminated */
	const struct perfex_count *counts;
	unsigned int nr_counts;
	unsigned long long elapsed_ns;
	unsigned long long user_ns;
	unsigned long long sys_ns;
};

size_t format_thousands(char *buf, size_t size, unsigned long long value);
size_t format_seconds(char *buf, size_t size, unsigned long long ns);
size_t format_msec(char *buf, size_t size, unsigned long long ns);
int format_rate(char *buf, size_t size, double per_second);
void perfex_print_report(FILE *out, const struct perfex_report *report);

#endif /* PERFEX_FORMAT_H */
