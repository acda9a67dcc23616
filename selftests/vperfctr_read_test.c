// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a state: vperfctr_read(), the mmap()ed state page and the fast
 * read from it, of the TSC and of software counters, by the owner and by a
 * monitor on another CPU; and what /proc/PID/fdinfo shows of a state.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/*
 * The owner's fast read of its state page: the seqcount protocol of
 * page_read(), retried until it gives a consistent view.
 */
static void fast_read(const struct vperfctr_state *page, struct page_snap *snap)
{
	while (!page_read(page, snap, 100))
		;
}

/* The TSC sum, with the time since the owner was resumed while it runs. */
static __u64 fast_read_tsc(const struct vperfctr_state *page)
{
	struct page_snap snap;

	fast_read(page, &snap);
	return snap.tsc;
}

/*
 * Software counters 0..@n-1: an event counter's sum is always current;
 * task-clock adds the time since the owner was resumed while it runs.
 */
static void fast_read_sw(const struct vperfctr_state *page, unsigned int n,
			 __u64 *sums)
{
	struct page_snap snap;

	fast_read(page, &snap);
	memcpy(sums, snap.pmc, n * sizeof(*sums));
}

/* vperfctr_read() --------------------------------------------------- */

TEST_F(vperfctr, read_with_all_pointers_null_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, NULL));
}

TEST_F(vperfctr, read_returns_control_as_set)
{
	struct vperfctr_control set, got;

	start_tsc_control(&set);
	set.si_signo = SIGIO;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &set));

	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &got, NULL));
	ASSERT_EQ(1u, got.cpu_control.tsc_on);
	ASSERT_EQ(SIGIO, got.si_signo);
	ASSERT_EQ(0, memcmp(&set, &got, sizeof(set)));
}

TEST_F(vperfctr, read_children_sums_are_zero)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, start_tsc(self->fd));
	memset(&children, 0xff, sizeof(children));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(vperfctr, read_with_bad_sum_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, (void *)1, NULL, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, read_with_bad_control_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, (void *)1, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, read_with_bad_children_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, NULL, (void *)1));
	ASSERT_EQ(EFAULT, errno);
}

/* /proc/PID/fdinfo ---------------------------------------------------- */

TEST_F(vperfctr, fdinfo_names_owner_thread)
{
	ASSERT_EQ(gettid(), fdinfo_value(self->fd, "vperfctr-owner"));
}

TEST_F(vperfctr, fdinfo_shows_detached_state_after_unlink)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-owner"));
	ASSERT_EQ(VPERFCTR_STATE_DETACHED,
		  fdinfo_value(self->fd, "vperfctr-flags"));
}

/* Counter @i's line in fdinfo: its map, evntsel and mode; -1 if none. */
static int fdinfo_counter(int fd, unsigned int i, __u32 *map, __u64 *evntsel,
			  char *mode)
{
	char key[32], text[128];
	const char *p;

	snprintf(key, sizeof(key), "vperfctr-counter%u", i);
	fdinfo_text(fd, key, text, sizeof(text));
	p = strstr(text, "map=");
	if (!p)
		return -1;
	*map = strtoul(p + strlen("map="), NULL, 0);
	p = strstr(text, "evntsel=");
	if (!p)
		return -1;
	*evntsel = strtoull(p + strlen("evntsel="), NULL, 0);
	p = strstr(text, "mode=");
	if (!p)
		return -1;
	*mode = p[strlen("mode=")];
	return 0;
}

/* Page faults of user mode and task-clock in a-mode, page faults in i-mode. */
static void three_counter_control(struct vperfctr_control *control)
{
	start_tsc_control(control);
	add_amode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(control, SW_EVENT(TASK_CLOCK), 0);
	add_imode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR, -(1ll << 40));
	control->si_signo = OVF_SIGNAL;
}

TEST_F(vperfctr, fdinfo_state_is_stopped_before_control)
{
	char text[64];

	ASSERT_STREQ("stopped",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_running_while_counting)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_STREQ("running",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_stopped_after_counters_stopped)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_STREQ("stopped",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_detached_after_unlink)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_STREQ("detached",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_shows_tsc_on_while_tsc_counts)
{
	char text[64];

	ASSERT_STREQ("off",
		     fdinfo_text(self->fd, "vperfctr-tsc", text, sizeof(text)));
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_STREQ("on",
		     fdinfo_text(self->fd, "vperfctr-tsc", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_shows_cstatus_of_the_page)
{
	struct vperfctr_control control;

	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ((long)(PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 2),
		  fdinfo_value(self->fd, "vperfctr-cstatus"));
}

TEST_F(vperfctr, fdinfo_counts_the_counters)
{
	struct vperfctr_control control;

	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-counters"));
	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(3, fdinfo_value(self->fd, "vperfctr-counters"));
}

TEST_F(vperfctr, fdinfo_describes_each_counter)
{
	struct vperfctr_control control;
	unsigned int i;
	__u64 evntsel;
	__u32 map;
	char mode;

	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fdinfo_counter(self->fd, i, &map, &evntsel, &mode)) {
			TH_LOG("no vperfctr-counter%u line", i);
		}
		ASSERT_EQ(control.cpu_control.pmc_map[i], map);
		ASSERT_EQ(control.cpu_control.evntsel[i], evntsel);
		ASSERT_EQ(i < 2 ? 'a' : 'i', mode);
	}
	ASSERT_EQ(-1, fdinfo_counter(self->fd, 3, &map, &evntsel, &mode));
}

/* mmap() and the state page ----------------------------------------- */

TEST_F(vperfctr, mmap_one_page_read_only_shared_succeeds)
{
	void *page = mmap(NULL, page_size(), PROT_READ, MAP_SHARED,
			  self->fd, 0);

	ASSERT_NE(MAP_FAILED, page) {
		TH_LOG("mmap: %s", strerror(errno));
	}
	munmap(page, page_size());
}

/*
 * A child's body: 0 if nothing is mapped at @arg, where its parent
 * mapped its state page.
 */
static int has_no_mapping_there(void *arg)
{
	unsigned char vec;

	if (mincore(arg, page_size(), &vec) == 0)
		return 1;
	return errno == ENOMEM ? 0 : 2;
}

/*
 * A child counts in a state of its own: a fork copies no mapping of its
 * parent's state page, as it copies none of perf's event pages.
 */
TEST_F(vperfctr, child_inherits_no_mapping_of_the_state_page)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	ASSERT_EQ(0, in_child(has_no_mapping_there, (void *)page));
	/* The parent's mapping is as it was. */
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_ONCPU));
	unmap_state(page);
}

/*
 * madvise(MADV_DOFORK) has the mapping copied, but the copy shows the
 * child no page: its first touch gets SIGBUS.
 */
TEST_F(vperfctr, mapping_copied_by_madvise_dofork_shows_no_page)
{
	const struct vperfctr_state *page = map_state(self->fd);
	int status;
	pid_t pid;

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, madvise((void *)page, page_size(), MADV_DOFORK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(READ_ONCE(page->magic) == VPERFCTR_STATE_MAGIC ? 1 : 2);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGBUS, WTERMSIG(status));
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	unmap_state(page);
}

/* Moved within the process, the mapping still shows the state. */
TEST_F(vperfctr, moved_mapping_still_shows_the_state)
{
	const struct vperfctr_state *page = map_state(self->fd);
	void *to = mmap(NULL, page_size(), PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *moved;

	ASSERT_NE(NULL, page);
	ASSERT_NE(MAP_FAILED, to);
	moved = mremap((void *)page, page_size(), page_size(),
		       MREMAP_MAYMOVE | MREMAP_FIXED, to);
	ASSERT_EQ(to, moved) {
		TH_LOG("mremap: %s", strerror(errno));
	}
	page = moved;
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_ONCPU));
	unmap_state(page);
}

TEST_F(vperfctr, page_has_magic_and_abi_version)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	ASSERT_EQ((__u32)PERFCTR_ABI_VERSION, READ_ONCE(page->abi_version));
	unmap_state(page);
}

TEST_F(vperfctr, page_seq_is_even_while_owner_reads)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0u, READ_ONCE(page->seq) & 1);
	unmap_state(page);
}

TEST_F(vperfctr, page_cstatus_follows_control)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0u, READ_ONCE(page->cpu_state.cstatus));
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON, READ_ONCE(page->cpu_state.cstatus));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0u, READ_ONCE(page->cpu_state.cstatus));
	unmap_state(page);
}

TEST_F(vperfctr, page_shows_oncpu_while_owner_counts)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_ONCPU));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DETACHED));
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_lies_between_syscall_reads)
{
	const struct vperfctr_state *page;
	__u64 before, fast, after;
	int i;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));

	for (i = 0; i < 100; i++) {
		before = read_tsc_sum(self->fd);
		fast = fast_read_tsc(page);
		after = read_tsc_sum(self->fd);
		ASSERT_LE(before, fast) {
			TH_LOG("iteration %d", i);
		}
		ASSERT_LE(fast, after) {
			TH_LOG("iteration %d", i);
		}
		if (i % 10 == 0)
			sched_yield();
	}
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_is_monotonic_across_context_switches)
{
	const struct vperfctr_state *page;
	__u64 prev, now;
	int i;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));

	prev = fast_read_tsc(page);
	for (i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			sched_yield();
		if (i % 500 == 0)
			sleep_ms(1);
		now = fast_read_tsc(page);
		ASSERT_LE(prev, now) {
			TH_LOG("iteration %d", i);
		}
		prev = now;
	}
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_unlinked_state_equals_syscall_read)
{
	const struct vperfctr_state *page;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(read_tsc_sum(self->fd), fast_read_tsc(page));
	unmap_state(page);
}

TEST_F(vperfctr, mmap_writable_shared_fails_with_eacces)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	ASSERT_EQ(EACCES, errno);
}

TEST_F(vperfctr, mmap_writable_private_fails_with_eacces)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->fd, 0));
	ASSERT_EQ(EACCES, errno);
}

TEST_F(vperfctr, mprotect_writable_fails_with_eacces)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(-1, mprotect((void *)page, page_size(),
			       PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	unmap_state(page);
}

TEST_F(vperfctr, mmap_two_pages_fails_with_einval)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, 2 * page_size(), PROT_READ,
				   MAP_SHARED, self->fd, 0));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(vperfctr, mmap_at_nonzero_offset_fails_with_einval)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ,
				   MAP_SHARED, self->fd, page_size()));
	ASSERT_EQ(EINVAL, errno);
}

/* Fast reads of software counters from the state page. */

TEST_F(vperfctr, fast_read_of_fault_counters_equals_syscall_read)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	const struct vperfctr_state *page;
	__u64 fast[3];
	int i, j;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	/* Fault in the page and the stack now, not while counting. */
	fast_read_sw(page, 3, fast);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	for (i = 1; i <= 20; i++) {
		ASSERT_EQ(0, touch_fresh_pages(i));
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
		fast_read_sw(page, 3, fast);
		for (j = 0; j < 3; j++)
			ASSERT_EQ(sum.pmc[j], fast[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
	}
	ASSERT_GE(sum.pmc[0], 20ull * 21 / 2);
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_switch_counters_lies_between_syscall_reads)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	const struct vperfctr_state *page;
	__u64 fast[2];
	int i, j;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	for (i = 0; i < 20; i++) {
		usleep(BLOCKING_SLEEP_US);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
		fast_read_sw(page, 2, fast);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
		for (j = 0; j < 2; j++) {
			ASSERT_LE(before.pmc[j], fast[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
			ASSERT_LE(fast[j], after.pmc[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
		}
	}
	ASSERT_GE(after.pmc[0], 20ull);
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_task_clock_lies_between_syscall_reads)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	const struct vperfctr_state *page;
	__u64 fast;
	int i;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	/* The fast read also counts the 1 ms spun since the first read. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
		spin_ms(1);
		fast_read_sw(page, 1, &fast);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
		ASSERT_LE(before.pmc[0] + 500000, fast) {
			TH_LOG("iteration %d: %llu ns, then %llu ns", i,
			       (unsigned long long)before.pmc[0],
			       (unsigned long long)fast);
		}
		ASSERT_LE(fast, after.pmc[0]) {
			TH_LOG("iteration %d", i);
		}
		if (i % 10 == 0)
			sched_yield();
	}
	unmap_state(page);
}

/* A thread that keeps yielding the CPU it is pinned to until told to stop. */
struct yielder {
	int cpu;
	int stop;
};

static void *yielder_main(void *arg)
{
	struct yielder *y = arg;

	if (pin_to_cpu(y->cpu))
		return NULL;
	while (!__atomic_load_n(&y->stop, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

TEST_F(vperfctr, fast_read_never_goes_back_while_sharing_a_cpu)
{
	struct vperfctr_control control;
	const struct vperfctr_state *page;
	struct yielder y = { .cpu = 0 };
	struct timespec start, now;
	__u64 prev[2], cur[2];
	pthread_t thread;
	int i = 0;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, pin_to_cpu(0));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, pthread_create(&thread, NULL, yielder_main, &y));

	fast_read_sw(page, 2, prev);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (++i % 100 == 0)
			sched_yield();
		fast_read_sw(page, 2, cur);
		ASSERT_LE(prev[0], cur[0]) {
			TH_LOG("task-clock went back at read %d", i);
		}
		ASSERT_LE(prev[1], cur[1]) {
			TH_LOG("context switches went back at read %d", i);
		}
		memcpy(prev, cur, sizeof(prev));
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < 200000000ull);

	__atomic_store_n(&y.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	/* The reads did overlap context switches. */
	ASSERT_NE(0ull, cur[1]);
	unmap_state(page);
}

/* A thread that counts the TSC and task-clock while it spins and yields. */
struct monitored {
	int cpu;
	int fd;
	int ready;
	int stop;
	const struct vperfctr_state *page;
};

static void *monitored_main(void *arg)
{
	struct monitored *m = arg;
	struct vperfctr_control control;

	if (pin_to_cpu(m->cpu))
		goto out;
	m->fd = sys_vperfctr_open(0, 1);
	if (m->fd < 0)
		goto out;
	start_tsc_control(&control);
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	m->page = map_state(m->fd);
	if (!m->page || sys_vperfctr_control(m->fd, &control))
		goto out;
	__atomic_store_n(&m->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
out:
	__atomic_store_n(&m->ready, -1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A sum a monitor has seen never shrinks, however the owner's suspends
 * interleave with the reads: a million reads from another CPU while the
 * owner switches with a yielding thread on its own.
 */
TEST_F(vperfctr, monitor_fast_read_never_goes_back)
{
	struct monitored m = { .cpu = 0, .fd = -1 };
	struct yielder y = { .cpu = 0 };
	struct page_snap prev, cur;
	pthread_t owner, yielder;
	unsigned long i, snapshots = 1000000;

	if (!may_run_on_cpus_0_and_1())
		SKIP(return, "needs CPUs 0 and 1");
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, pthread_create(&owner, NULL, monitored_main, &m));
	ASSERT_EQ(0, pthread_create(&yielder, NULL, yielder_main, &y));
	while (!__atomic_load_n(&m.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	ASSERT_EQ(1, m.ready);

	/* page_read() reads the clock strictly between its reads of seq. */
	while (!page_read(m.page, &prev, 100))
		;
	for (i = 0; i < snapshots; i++) {
		while (!page_read(m.page, &cur, 100))
			;
		if (cur.tsc < prev.tsc || cur.pmc[0] < prev.pmc[0])
			break;
		prev = cur;
	}
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&y.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(owner, NULL));
	ASSERT_EQ(0, pthread_join(yielder, NULL));
	EXPECT_EQ(snapshots, i) {
		TH_LOG("snapshot %lu: TSC %llu after %llu, task-clock %llu after %llu",
		       i, (unsigned long long)cur.tsc,
		       (unsigned long long)prev.tsc,
		       (unsigned long long)cur.pmc[0],
		       (unsigned long long)prev.pmc[0]);
	}
	/* The owner did switch, and count, while it was read. */
	EXPECT_LT(0ull, prev.pmc[0]);
	unmap_state(m.page);
	close(m.fd);
}

TEST_HARNESS_MAIN
