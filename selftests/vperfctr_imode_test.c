// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt mode: a software counter that overflows signals its owner and
 * suspends its counters, the TSC apart, until vperfctr_iresume() or a new
 * control; for page faults, task-clock and context switches, and for a
 * task-clock counter restarted from its signal handler, period after
 * period.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* vperfctr_iresume() ------------------------------------------------ */

TEST_F(vperfctr, iresume_without_imode_counters_fails_with_einval)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(vperfctr, iresume_after_unlink_fails_with_esrch)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

/* Interrupt-mode software counters ----------------------------------- */

/*
 * This thread counts its user-mode page faults in a-mode (counter 0) and
 * in i-mode (counter 1), which overflows after OVF_FAULTS faults and
 * signals OVF_SIGNAL, caught by ovf_handler().
 */
FIXTURE(overflow)
{
	int fd;
	const struct vperfctr_state *page;
};

FIXTURE_SETUP(overflow)
{
	struct vperfctr_control control;

	self->fd = -1;
	self->page = NULL;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, catch_overflow_signal());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	self->page = map_state(self->fd);
	ASSERT_NE(NULL, self->page);
	/*
	 * The tests count their own page faults, and a test process faults
	 * in the text of code it has not run yet: a call's error path too,
	 * which the C library may keep out of line (arm64 glibc does).  Take
	 * that fault now, before counting, with a call that surely fails.
	 */
	sys_vperfctr_iresume(-1);
	overflow_control(&control, OVF_FAULTS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(overflow)
{
	unmap_state(self->page);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(overflow, fault_overflow_signals_once_with_si_pmc_ovf)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
}

TEST_F(overflow, overflow_mask_has_the_bit_of_the_imode_counter)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, overflow_signal_has_no_sender_pid)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(0, READ_ONCE(ovf_pid));
}

TEST_F(overflow, overflow_sets_overflow_flag)
{
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(0, overflow_now());
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflow, overflow_suspends_the_amode_counter)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(before.pmc[0], after.pmc[0]);
}

TEST_F(overflow, overflow_keeps_only_the_tsc_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON,
		  READ_ONCE(self->page->cpu_state.cstatus));
	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

TEST_F(overflow, amode_sum_counts_the_faults_up_to_the_overflow)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], OVF_FAULTS);
}

TEST_F(overflow, iresume_when_not_in_overflow_fails_with_einval)
{
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(overflow, iresume_after_overflow_succeeds)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd)) {
		TH_LOG("vperfctr_iresume: %s", strerror(errno));
	}
}

TEST_F(overflow, iresume_twice_fails_with_einval)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(overflow, iresume_clears_overflow_flag)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflow, iresume_restores_cstatus)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 1,
		  READ_ONCE(self->page->cpu_state.cstatus));
}

TEST_F(overflow, iresume_resumes_the_amode_counter)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], OVF_FAULTS);
}

TEST_F(overflow, iresume_rearms_the_imode_counter)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(2, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, fdinfo_state_is_overflow)
{
	char text[64];

	ASSERT_EQ(0, overflow_now());
	ASSERT_STREQ("overflow",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(overflow, control_ends_the_overflow)
{
	struct vperfctr_control control;

	ASSERT_EQ(0, overflow_now());
	overflow_control(&control, OVF_FAULTS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(2, READ_ONCE(ovf_signals));
}

/* Spin until an overflow signal arrives, for at most 2 s: whether one did. */
static bool spin_until_signalled(void)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (READ_ONCE(ovf_signals))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < 2000000000ull);
	return READ_ONCE(ovf_signals) != 0;
}

/* Task-clock in a-mode (counter 0) and in i-mode (counter 1), 20 ms. */
static void task_clock_overflow_control(struct vperfctr_control *control)
{
	memset(control, 0, sizeof(*control));
	add_amode(control, SW_EVENT(TASK_CLOCK), 0);
	add_imode(control, SW_EVENT(TASK_CLOCK), 0, -20000000);
	control->si_signo = OVF_SIGNAL;
}

TEST_F(overflow, task_clock_overflow_signals_si_pmc_ovf_while_spinning)
{
	struct vperfctr_control control;

	task_clock_overflow_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_TRUE(spin_until_signalled());
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, task_clock_overflow_comes_after_ireset_ns)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	task_clock_overflow_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_TRUE(spin_until_signalled());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	/* 10% for the hrtimer's clock against the TSC's. */
	ASSERT_GE(sum.pmc[0], 18000000ull);
}

/*
 * An i-mode task-clock counter restarted by its signal handler, period
 * after period.  The handler notes the counter's sum at each overflow,
 * while the counters are stopped, and restarts them unless told to stop.
 * The signal is a real-time one, queued once per notification.  The
 * kernel sends one on the owner's way back to user mode for all the
 * overflows flagged since the last: a restart from the spinning loop,
 * then a whole period gone before the return to user mode (the virtual
 * CPU held up by a busy host, say), is one signal for two overflows.
 */
#define ITIMER_SIGNAL		(SIGRTMIN + 1)
#define ITIMER_PERIOD_NS	1000000ll
#define ITIMER_PERIODS		1000
#define ITIMER_MAX_SIGNALS	(2 * ITIMER_PERIODS)

static struct {
	int fd;
	const struct vperfctr_state *page;
	int signals;
	int stop;
	int resumed;			/* the handler's vperfctr_iresume()s: 0 */
	int resume_einval;		/* and those that found it done: EINVAL */
	int resume_failed;		/* and any other result */
	__u64 sum[ITIMER_MAX_SIGNALS];
} itimer;

static __u64 page_sum(const struct vperfctr_state *page, unsigned int i)
{
	__u32 seq;
	__u64 sum;

	do {
		seq = __atomic_load_n(&page->seq, __ATOMIC_ACQUIRE);
		sum = READ_ONCE(page->cpu_state.pmc[i].sum);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || READ_ONCE(page->seq) != seq);
	return sum;
}

static void itimer_handler(int sig, siginfo_t *info, void *ucontext)
{
	int n = READ_ONCE(itimer.signals);
	int saved_errno = errno;

	if (n < ITIMER_MAX_SIGNALS)
		itimer.sum[n] = page_sum(itimer.page, 0);
	WRITE_ONCE(itimer.signals, n + 1);
	if (!READ_ONCE(itimer.stop)) {
		if (!sys_vperfctr_iresume(itimer.fd))
			itimer.resumed++;
		else if (errno == EINVAL)
			itimer.resume_einval++;
		else
			itimer.resume_failed++;
	}
	errno = saved_errno;
}

static int itimer_start(void)
{
	struct vperfctr_control control;
	struct sigaction sa;

	memset(&itimer, 0, sizeof(itimer));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = itimer_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(ITIMER_SIGNAL, &sa, NULL))
		return -1;
	itimer.fd = sys_vperfctr_open(0, 1);
	if (itimer.fd < 0)
		return -1;
	itimer.page = map_state(itimer.fd);
	if (!itimer.page)
		return -1;
	memset(&control, 0, sizeof(control));
	add_imode(&control, SW_EVENT(TASK_CLOCK), 0, -ITIMER_PERIOD_NS);
	control.si_signo = ITIMER_SIGNAL;
	return sys_vperfctr_control(itimer.fd, &control);
}

/*
 * Spin, with @iresume_while_running calling vperfctr_iresume() between
 * slices, until ITIMER_PERIODS signals came; then let one more overflow
 * stop the counters for good.  How many iresume()s of the spinning loop
 * restarted the counters; -1 if the signals stopped coming.
 */
static int itimer_run(bool iresume_while_running)
{
	int target = ITIMER_PERIODS, loop_resumed = 0, last = 0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int n = READ_ONCE(itimer.signals);

		if (n >= target) {
			sigset_t block, old;

			/*
			 * The signal held off from the count to the stop: a
			 * signal between the two would restart the counters,
			 * and the one awaited after it find them running.
			 */
			sigemptyset(&block);
			sigaddset(&block, ITIMER_SIGNAL);
			sigprocmask(SIG_BLOCK, &block, &old);
			n = READ_ONCE(itimer.signals);
			if (READ_ONCE(itimer.stop)) {
				sigprocmask(SIG_SETMASK, &old, NULL);
				return loop_resumed;
			}
			WRITE_ONCE(itimer.stop, 1);
			target = n + 1;
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
		/* At most 2 s of wall time without a signal. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (n != last) {
			last = n;
			start = now;
		} else if (elapsed_ns(&start, &now) > 2000000000ull) {
			return -1;
		}
		spin_wall_ms(0);
		if (iresume_while_running && !READ_ONCE(itimer.stop)) {
			if (!sys_vperfctr_iresume(itimer.fd))
				loop_resumed++;
			else if (errno != EINVAL)
				itimer.resume_failed++;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * K signals for K periods: each overflow came after a whole period of
 * task-clock, none was lost (the last one came too), and no period went
 * by without one: the typical signal came less than half a period late.
 * How late each came depends on the host (task-clock runs on while it
 * holds the virtual CPU up, the timer fires when it lets it go), so the
 * median of the periods is judged, not their sum; a timer armed for the
 * wrong time moves every period, and the median with them.
 */
static void itimer_check(struct __test_metadata *_metadata, int loop_resumed)
{
	static __u64 gap[ITIMER_MAX_SIGNALS];
	int i, n = READ_ONCE(itimer.signals), merged, long_gaps = 0;
	__u64 final;

	ASSERT_LE(0, loop_resumed) {
		TH_LOG("the signals stopped after %d of them", n);
	}
	ASSERT_LE(ITIMER_PERIODS + 1, n);
	ASSERT_GE(ITIMER_MAX_SIGNALS, n);
	ASSERT_EQ(0, itimer.resume_failed);
	ASSERT_TRUE(page_flag(itimer.page, VPERFCTR_STATE_OVERFLOW));
	final = page_sum(itimer.page, 0);
	ASSERT_EQ(final, itimer.sum[n - 1]);
	ASSERT_LE((__u64)n * ITIMER_PERIOD_NS, final);
	gap[0] = itimer.sum[0];
	for (i = 1; i < n; i++) {
		gap[i] = itimer.sum[i] - itimer.sum[i - 1];
		long_gaps += gap[i] >= 2 * (__u64)ITIMER_PERIOD_NS;
	}
	/*
	 * Every overflow but the last was restarted once, by someone: one
	 * signal each, but for those a restart by the loop left to merge
	 * with the next, each of which spans two periods at least.
	 */
	merged = itimer.resumed + loop_resumed - (n - 1);
	ASSERT_LE(0, merged);
	ASSERT_GE(loop_resumed ? long_gaps : 0, merged);
	qsort(gap, n, sizeof(gap[0]), cmp_u64);
	ASSERT_GT((__u64)ITIMER_PERIOD_NS * 3 / 2, gap[n / 2]) {
		TH_LOG("the median period was %llu ns",
		       (unsigned long long)gap[n / 2]);
	}
	if (loop_resumed)
		return;
	/* Restarted by the handler only: each sum one period on at least. */
	for (i = 1; i < n; i++)
		ASSERT_LE(itimer.sum[i - 1] + ITIMER_PERIOD_NS, itimer.sum[i]) {
			TH_LOG("overflow %d came %llu ns after the one before", i,
			       (unsigned long long)(itimer.sum[i] -
						    itimer.sum[i - 1]));
		}
}

TEST(task_clock_imode_signals_every_period_with_iresume_from_handler)
{
	int loop_resumed;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, itimer_start());
	loop_resumed = itimer_run(false);
	ASSERT_EQ(0, itimer.resume_einval);
	itimer_check(_metadata, loop_resumed);
}

/*
 * vperfctr_iresume() while the counters run finds nothing to restart:
 * EINVAL, and the overflow still to come is neither lost nor left
 * without its timer.
 */
TEST(task_clock_imode_signals_every_period_with_iresume_while_running)
{
	int loop_resumed;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, itimer_start());
	loop_resumed = itimer_run(true);
	itimer_check(_metadata, loop_resumed);
}

TEST_F(overflow, iresume_while_running_changes_nothing)
{
	struct perfctr_sum_ctrs before, after;
	__u32 cstatus = READ_ONCE(self->page->cpu_state.cstatus);

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(cstatus, READ_ONCE(self->page->cpu_state.cstatus));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(before.pmc[0], after.pmc[0]);
	ASSERT_EQ(0, READ_ONCE(ovf_signals));
}

TEST_F(overflow, context_switch_overflow_signals_si_pmc_ovf)
{
	struct vperfctr_control control;
	int i;

	memset(&control, 0, sizeof(control));
	add_imode(&control, SW_EVENT(CONTEXT_SWITCHES), 0, -5);
	control.si_signo = OVF_SIGNAL;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 100 && !READ_ONCE(ovf_signals); i++)
		usleep(1000);
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 0, READ_ONCE(ovf_mask));
}

TEST_HARNESS_MAIN
