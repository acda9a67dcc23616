// SPDX-License-Identifier: GPL-2.0
/*
 * spin SECONDS: keep a CPU busy for SECONDS of wall-clock time.
 *
 * Under perfex its TSC count is about SECONDS times the TSC frequency,
 * less whatever time the scheduler gave to others.
 */
#include <time.h>

#include "seconds.h"

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int main(int argc, char **argv)
{
	struct timespec length, end, now;
	unsigned long work = 0;
	int i;

	if (parse_seconds("spin", argc, argv, &length) < 0)
		return 2;
	end = deadline_after(&length);
	do {
		/* The empty asm makes the compiler keep the loop. */
		for (i = 0; i < 10000; i++) {
			work += i;
			asm volatile("" : "+r" (work));
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (before(&now, &end));
	return 0;
}
