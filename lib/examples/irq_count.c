// SPDX-License-Identifier: LGPL-2.1
/*
 * irq_count: an interrupt-mode counter and its overflow signal.
 *
 * task-clock counts in i-mode with a period of PERIOD_NS of this
 * thread's CPU time.  Each overflow stops the counters and sends SIGIO;
 * the handler counts it and restarts the counters with
 * vperfctr_iresume().  The program spins until OVERFLOWS overflows have
 * come, stops the counters, and checks that task-clock has counted at
 * least a period per overflow.  It uses only the TSC and a software counter, so it runs on
 * any machine, QEMU's TCG emulation included.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libperfctr.h>

#define OVERFLOWS	10
#define PERIOD_NS	1000000ull	/* 1 ms of CPU time */
#define TIMEOUT_S	60		/* wall time, for a slow emulator */

/* What the handler needs: a signal handler has no other way in. */
static struct vperfctr *vperfctr;
static int clock_index;
static volatile sig_atomic_t overflows, strays, iresume_errno, stopping;

static void on_overflow(int sig, siginfo_t *si, void *ucontext)
{
	int saved_errno = errno;

	(void)sig;
	(void)ucontext;
	if (si->si_code != SI_PMC_OVF ||
	    !((unsigned int)si->si_pmc_ovf_mask & (1u << clock_index))) {
		strays++;
	} else {
		overflows++;
		/* One that came as we stopped them has nothing to resume. */
		if (!stopping && vperfctr_iresume(vperfctr) < 0)
			iresume_errno = errno;
	}
	errno = saved_errno;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burn CPU time until enough overflows have come, or the time is up. */
static void spin(void)
{
	volatile unsigned long x = 0;
	double deadline = seconds() + TIMEOUT_S;
	unsigned long i;

	while (overflows < OVERFLOWS && !iresume_errno &&
	       seconds() < deadline)
		for (i = 0; i < 100000; i++)
			x += i ^ (x >> 3);
}

int main(void)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	struct sigaction sa;
	int status = 1, n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGIO, &sa, NULL) < 0) {
		fprintf(stderr, "irq_count: sigaction: %s\n", strerror(errno));
		return 1;
	}

	vperfctr = vperfctr_open();
	if (!vperfctr) {
		fprintf(stderr, "irq_count: vperfctr_open: %s\n",
			strerror(errno));
		return 1;
	}
	memset(&control, 0, sizeof(control));
	control.si_signo = SIGIO;
	control.cpu_control.tsc_on = 1;
	clock_index = vperfctr_control_add_sw_irq(&control,
						  PERFCTR_SW_TASK_CLOCK, 0,
						  PERIOD_NS);
	if (clock_index < 0) {
		fprintf(stderr, "irq_count: vperfctr_control_add_sw_irq: %s\n",
			strerror(errno));
		goto out;
	}
	if (vperfctr_control(vperfctr, &control) < 0) {
		fprintf(stderr, "irq_count: vperfctr_control: %s\n",
			strerror(errno));
		goto out;
	}

	spin();

	/*
	 * Stopped first, so that the sums are final: each overflow the
	 * handler has counted happened before, and is in the sum.
	 */
	stopping = 1;
	if (vperfctr_stop(vperfctr) < 0 ||
	    vperfctr_read_ctrs(vperfctr, &sum) < 0) {
		fprintf(stderr, "irq_count: stopping and reading: %s\n",
			strerror(errno));
		goto out;
	}
	n = overflows;
	printf("irq_count: %d overflows of task-clock every %llu ns, "
	       "%llu ns in all\n", n, PERIOD_NS,
	       (unsigned long long)sum.pmc[clock_index]);

	if (iresume_errno) {
		fprintf(stderr, "irq_count: vperfctr_iresume: %s\n",
			strerror(iresume_errno));
		goto out;
	}
	if (strays) {
		fprintf(stderr, "irq_count: %d SIGIO without the overflow of "
			"counter %d\n", (int)strays, clock_index);
		goto out;
	}
	if (n < OVERFLOWS) {
		fprintf(stderr, "irq_count: only %d overflows in %d s\n", n,
			TIMEOUT_S);
		goto out;
	}
	if (sum.pmc[clock_index] < n * PERIOD_NS) {
		fprintf(stderr, "irq_count: implausible: %d overflows of %llu "
			"ns in %llu ns of task-clock\n", n, PERIOD_NS,
			(unsigned long long)sum.pmc[clock_index]);
		goto out;
	}
	status = 0;
out:
	vperfctr_unlink(vperfctr);
	vperfctr_close(vperfctr);
	return status;
}
