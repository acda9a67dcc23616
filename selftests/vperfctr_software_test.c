// SPDX-License-Identifier: GPL-2.0
/*
 * Software counters: each event accepted in accumulation and in interrupt
 * mode and shown on the state page, and what each counts: task-clock,
 * context switches, CPU migrations and page faults (all, minor, major), in
 * user mode and in kernel mode.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* Software counters --------------------------------------------------- */

/*
 * Have the kernel write to @n fresh anonymous pages, by read() from a
 * pipe into each: @n minor faults in kernel mode.
 */
static int kernel_touch_fresh_pages(unsigned int n)
{
	size_t size = page_size();
	int pipefd[2], err = 0;
	unsigned int i;
	char *src, *p;

	if (pipe(pipefd))
		return -1;
	src = mmap(NULL, (n + 1) * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED) {
		err = -1;
		goto out;
	}
	madvise(src, (n + 1) * size, MADV_NOHUGEPAGE);
	memset(src, 'k', size);
	p = src + size;
	for (i = 0; i < n && !err; i++)
		if (write(pipefd[1], src, size) != (ssize_t)size ||
		    read(pipefd[0], p + i * size, size) != (ssize_t)size)
			err = -1;
	munmap(src, (n + 1) * size);
out:
	close(pipefd[0]);
	close(pipefd[1]);
	return err;
}

/* Each software event alone, as counter 0, fault events in user mode. */
FIXTURE(sw_event)
{
	int fd;
	struct vperfctr_control control;
};

FIXTURE_VARIANT(sw_event)
{
	__u32 event;
	__u64 evntsel;
};

FIXTURE_VARIANT_ADD(sw_event, task_clock)
{
	.event = PERFCTR_SW_TASK_CLOCK,
};

FIXTURE_VARIANT_ADD(sw_event, context_switches)
{
	.event = PERFCTR_SW_CONTEXT_SWITCHES,
};

FIXTURE_VARIANT_ADD(sw_event, cpu_migrations)
{
	.event = PERFCTR_SW_CPU_MIGRATIONS,
};

FIXTURE_VARIANT_ADD(sw_event, page_faults)
{
	.event = PERFCTR_SW_PAGE_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_VARIANT_ADD(sw_event, minor_faults)
{
	.event = PERFCTR_SW_MINOR_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_VARIANT_ADD(sw_event, major_faults)
{
	.event = PERFCTR_SW_MAJOR_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_SETUP(sw_event)
{
	self->fd = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	start_tsc_control(&self->control);
	add_amode(&self->control, PERFCTR_MAP_SOFTWARE | variant->event,
		  variant->evntsel);
}

FIXTURE_TEARDOWN(sw_event)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(sw_event, amode_control_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, amode_control_without_tsc_succeeds)
{
	self->control.cpu_control.tsc_on = 0;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, imode_control_succeeds)
{
	struct vperfctr_control control;

	/* Never overflows during the test: 2^40 events or ns. */
	start_tsc_control(&control);
	add_imode(&control, PERFCTR_MAP_SOFTWARE | variant->event,
		  variant->evntsel, -(1ll << 40));
	control.si_signo = OVF_SIGNAL;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, read_returns_control_as_set)
{
	struct vperfctr_control got;

	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &got, NULL));
	ASSERT_EQ(0, memcmp(&self->control, &got, sizeof(got)));
}

TEST_F(sw_event, page_shows_pmc_map_entry_and_width_64)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(self->control.cpu_control.pmc_map[0],
		  READ_ONCE(page->cpu_state.pmc[0].map));
	ASSERT_EQ(64u, READ_ONCE(page->cpu_state.pmc[0].width));
	unmap_state(page);
}

TEST_F(sw_event, page_cstatus_counts_the_counter)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON | 1,
		  READ_ONCE(page->cpu_state.cstatus));
	unmap_state(page);
}

/* What the software counters count. */

TEST_F(vperfctr, task_clock_grows_with_wall_time_while_spinning)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	struct timespec t0, t1;
	__u64 wall, counted;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	spin_wall_ms(200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));

	wall = elapsed_ns(&t0, &t1);
	counted = after.pmc[0] - before.pmc[0];
	ASSERT_GE(counted, wall / 2) {
		TH_LOG("%llu ns of task-clock in %llu ns of spinning",
		       (unsigned long long)counted, (unsigned long long)wall);
	}
	ASSERT_LE(counted, wall + wall / 10 + 2000000) {
		TH_LOG("%llu ns of task-clock in %llu ns of spinning",
		       (unsigned long long)counted, (unsigned long long)wall);
	}
}

/*
 * The least of three sleeps: a busy host holding the guest up around a
 * sleep's system calls only adds to what it counts, while a task-clock
 * that ran while asleep would count 300 ms in each.
 */
TEST_F(vperfctr, task_clock_stays_still_while_sleeping)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	__u64 counted = ~0ull;
	int i;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
		sleep_ms(300);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
		if (after.pmc[0] - before.pmc[0] < counted)
			counted = after.pmc[0] - before.pmc[0];
	}
	ASSERT_LT(counted, 20000000ull) {
		TH_LOG("%llu ns of task-clock in 300 ms of sleep",
		       (unsigned long long)counted);
	}
}

TEST_F(vperfctr, page_faults_count_each_fresh_page_touched)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, minor_faults_count_each_fresh_page_touched)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, major_faults_do_not_count_fresh_anonymous_pages)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, page_faults_equal_minor_plus_major_faults)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], sum.pmc[1] + sum.pmc[2]) {
		TH_LOG("page faults %llu, minor %llu, major %llu",
		       (unsigned long long)sum.pmc[0],
		       (unsigned long long)sum.pmc[1],
		       (unsigned long long)sum.pmc[2]);
	}
}

TEST_F(vperfctr, two_counters_of_one_event_both_count)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], sum.pmc[1]);
}

TEST_F(vperfctr, usr_page_faults_do_not_count_kernel_writes)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, kernel_touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, os_page_faults_count_kernel_writes_to_fresh_pages)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	if (geteuid() != 0)
		SKIP(return, "counting kernel mode needs root here");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, kernel_touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, os_page_faults_do_not_count_user_writes)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	if (geteuid() != 0)
		SKIP(return, "counting kernel mode needs root here");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, context_switches_count_blocking_sleeps)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	int i;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	for (i = 0; i < 20; i++)
		usleep(BLOCKING_SLEEP_US);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], 20ull);
}

TEST_F(vperfctr, cpu_migrations_count_moves_between_cpus)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int i, cpu, now;
	__u64 moves = 0;

	if (!may_run_on_cpus_0_and_1())
		SKIP(return, "needs CPUs 0 and 1");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	cpu = sched_getcpu();
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, pin_to_cpu(i & 1));
		now = sched_getcpu();
		ASSERT_EQ(i & 1, now);
		if (now != cpu)
			moves++;
		cpu = now;
	}
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(moves, 9ull);
	ASSERT_GE(sum.pmc[0], moves);
}

TEST_F(vperfctr, cpu_migrations_stay_0_on_one_cpu)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int i;

	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 20; i++)
		usleep(1000);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_EQ(0ull, sum.pmc[0]);
}

TEST_F(vperfctr, control_resets_software_sums)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_LT(sum.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, control_with_preserve_bit_keeps_software_sum)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	fault_control(&control);
	control.preserve = 1;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
}

TEST_HARNESS_MAIN
