// SPDX-License-Identifier: GPL-2.0
/*
 * sleeper SECONDS: sleep for SECONDS of wall-clock time.
 *
 * Under perfex its TSC count stays small however long it sleeps: the
 * counters only run while it does.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "seconds.h"

int main(int argc, char **argv)
{
	struct timespec length, end;
	int err;

	if (parse_seconds("sleeper", argc, argv, &length) < 0)
		return 2;
	end = deadline_after(&length);
	/* An absolute deadline: a signal cannot stretch the sleep. */
	do
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL);
	while (err == EINTR);
	if (err) {
		fprintf(stderr, "sleeper: clock_nanosleep: %s\n", strerror(err));
		return 1;
	}
	return 0;
}
