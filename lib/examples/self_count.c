// SPDX-License-Identifier: LGPL-2.1
/*
 * self_count: count the TSC over a piece of this program's own code.
 *
 * The counters are read twice after the work: first with the fast read
 * from the mapped state page, then with the vperfctr_read system call.
 * The second read comes later, so it must not be smaller.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libperfctr.h>

static unsigned long work(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

int main(void)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	unsigned long long fast;
	struct vperfctr *vperfctr;
	int status = 1;

	vperfctr = vperfctr_open();
	if (!vperfctr) {
		fprintf(stderr, "self_count: vperfctr_open: %s\n",
			strerror(errno));
		return 1;
	}
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	if (vperfctr_control(vperfctr, &control) < 0) {
		fprintf(stderr, "self_count: vperfctr_control: %s\n",
			strerror(errno));
		goto out;
	}

	work(10 * 1000 * 1000);

	errno = 0;
	fast = vperfctr_read_tsc(vperfctr);
	if (fast == 0 && errno) {
		fprintf(stderr, "self_count: vperfctr_read_tsc: %s\n",
			strerror(errno));
		goto out;
	}
	if (vperfctr_read_state(vperfctr, &sum, NULL, NULL) < 0) {
		fprintf(stderr, "self_count: vperfctr_read_state: %s\n",
			strerror(errno));
		goto out;
	}
	printf("fast read:    %llu tsc\n", fast);
	printf("system call:  %llu tsc\n", (unsigned long long)sum.tsc);

	if (fast == 0 || sum.tsc < fast) {
		fprintf(stderr, "self_count: implausible: fast %llu, "
			"system call %llu\n",
			fast, (unsigned long long)sum.tsc);
		goto out;
	}
	status = 0;
out:
	vperfctr_unlink(vperfctr);
	vperfctr_close(vperfctr);
	return status;
}
