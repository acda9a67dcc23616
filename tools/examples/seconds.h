/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SECONDS argument of the example programs: a non-negative decimal
 * number, fractions allowed, e.g. "2" or "0.25".
 */
#ifndef EXAMPLES_SECONDS_H
#define EXAMPLES_SECONDS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline int parse_seconds(const char *prog, int argc, char **argv,
				struct timespec *ts)
{
	char *end;
	double s;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s SECONDS\n", prog);
		return -1;
	}
	errno = 0;
	s = strtod(argv[1], &end);
	if (errno || end == argv[1] || *end || !(s >= 0) || s > 1e9) {
		fprintf(stderr, "%s: invalid number of seconds: '%s'\n",
			prog, argv[1]);
		return -1;
	}
	ts->tv_sec = (time_t)s;
	ts->tv_nsec = (long)((s - ts->tv_sec) * 1e9);
	return 0;
}

/* The CLOCK_MONOTONIC time @length from now. */
static inline struct timespec deadline_after(const struct timespec *length)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += length->tv_sec;
	end.tv_nsec += length->tv_nsec;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	return end;
}

#endif /* EXAMPLES_SECONDS_H */
