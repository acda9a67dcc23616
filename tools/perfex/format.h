/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_FORMAT_H
#define PERFEX_FORMAT_H

#include <stddef.h>
#include <stdio.h>

/* Long enough for 2^64-1 with separators: 26 characters and a NUL. */
#define THOUSANDS_BUF_SIZE	32

struct perfex_count {
	const char *name;
	unsigned long long value;
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
void perfex_print_report(FILE *out, const struct perfex_report *report);

#endif /* PERFEX_FORMAT_H */
