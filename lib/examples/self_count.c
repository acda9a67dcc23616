// SPDX-License-Identifier: LGPL-2.1
/*
 * self_count: count the TSC, task-clock and page faults over a piece of
 * this program's own code.
 *
 * The counters are read twice after the work: first with the fast read
 * from the mapped state page (task-clock computed from the TSC there),
 * then with the vperfctr_read system call.  The second read comes
 * later, so none of its values may be smaller.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <libperfctr.h>

#define WORK_PAGES	64

static unsigned long work(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

/* Write to fresh pages: a page fault each. */
static int touch(unsigned long pages)
{
	long size = sysconf(_SC_PAGESIZE);
	volatile char *mem;
	unsigned long i;

	mem = mmap(NULL, pages * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	for (i = 0; i < pages; i++)
		mem[i * size] = 1;
	munmap((void *)mem, pages * size);
	return 0;
}

static void print(const char *how, const struct perfctr_sum_ctrs *sum,
		  int clock, int faults)
{
	printf("%-13s %llu tsc, %llu ns task-clock, %llu page-faults:u\n",
	       how, (unsigned long long)sum->tsc,
	       (unsigned long long)sum->pmc[clock],
	       (unsigned long long)sum->pmc[faults]);
}

int main(void)
{
	struct perfctr_sum_ctrs fast, slow;
	struct vperfctr_control control;
	struct vperfctr *vperfctr;
	int status = 1, clock, faults;

	vperfctr = vperfctr_open();
	if (!vperfctr) {
		fprintf(stderr, "self_count: vperfctr_open: %s\n",
			strerror(errno));
		return 1;
	}
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	clock = vperfctr_control_add_sw(&control, PERFCTR_SW_TASK_CLOCK, 0);
	faults = vperfctr_control_add_sw(&control, PERFCTR_SW_PAGE_FAULTS,
					 PERFCTR_SW_USR);
	if (clock < 0 || faults < 0) {
		fprintf(stderr, "self_count: vperfctr_control_add_sw: %s\n",
			strerror(errno));
		goto out;
	}
	if (vperfctr_control(vperfctr, &control) < 0) {
		fprintf(stderr, "self_count: vperfctr_control: %s\n",
			strerror(errno));
		goto out;
	}

	work(10 * 1000 * 1000);
	if (touch(WORK_PAGES) < 0) {
		fprintf(stderr, "self_count: mmap: %s\n", strerror(errno));
		goto out;
	}

	if (vperfctr_read_ctrs(vperfctr, &fast) < 0) {
		fprintf(stderr, "self_count: vperfctr_read_ctrs: %s\n",
			strerror(errno));
		goto out;
	}
	if (vperfctr_read_state(vperfctr, &slow, NULL) < 0) {
		fprintf(stderr, "self_count: vperfctr_read_state: %s\n",
			strerror(errno));
		goto out;
	}
	print("fast read:", &fast, clock, faults);
	print("system call:", &slow, clock, faults);

	if (fast.tsc == 0 || slow.tsc < fast.tsc ||
	    fast.pmc[clock] == 0 || slow.pmc[clock] < fast.pmc[clock] ||
	    fast.pmc[faults] < WORK_PAGES ||
	    slow.pmc[faults] < fast.pmc[faults]) {
		fprintf(stderr, "self_count: implausible: the system call "
			"must not read less than the fast read, which must "
			"see some TSC ticks and task-clock and at least %d "
			"page faults\n", WORK_PAGES);
		goto out;
	}
	status = 0;
out:
	vperfctr_unlink(vperfctr);
	vperfctr_close(vperfctr);
	return status;
}
