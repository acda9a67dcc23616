// SPDX-License-Identifier: GPL-2.0
/*
 * perf and perfctr take turns with the hardware counters.  While no
 * perfctr control uses a hardware counter, perf has them: its hardware
 * events open and count.  While one does, a new perf hardware event fails
 * with EBUSY; while perf has one, a control with hardware counters fails
 * with EBUSY and changes nothing.  perfctr gives the counters back when
 * the last control that uses them changes, is unlinked or its thread
 * exits, and the overflow interrupt goes to whichever side holds them.
 * On arm64, user-mode access to the counters (PMUSERENR_EL0) never shows
 * one side's counts to the other side's threads.
 *
 * Needs a PMU that both perfctr and perf drive, and nothing else using
 * perf's hardware events (the NMI watchdog among them): it skips
 * otherwise.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perf_event.h>
#include <linux/perfctr.h>

#include "vperfctr_common.h"
#include "vperfctr_kselftest.h"
#include "vperfctr_syscalls.h"

/* A hardware counter of user-mode instructions, and the cycle counter. */
#if defined(__aarch64__)
#define INSNS_MAP	0
#define INSNS_EVNTSEL	(0x08 | PERFCTR_ARM64_EXCLUDE_EL1)
#define CYCLES_MAP	PERFCTR_MAP_ARM64_CYCLES
#define CYCLES_EVNTSEL	(0x11 | PERFCTR_ARM64_EXCLUDE_EL1)
#elif defined(__x86_64__)
#define INSNS_MAP	0
#define INSNS_EVNTSEL	(0xc0 | (1 << 16))
#define CYCLES_MAP	1
#define CYCLES_EVNTSEL	(0x3c | (1 << 16))
#endif

/* Turns of a loop, and a cycle count between two overflows. */
#define TURNS		100000ul
#define PERIOD		200000

/* n turns of a short loop, not optimised away. */
static void spin_turns(unsigned long n)
{
	while (n--)
		asm volatile("" : "+r" (n));
}

static int perf_open(__u32 type, __u64 config, __u64 period)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = period,
		.wakeup_events = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static int perf_open_hw(void)
{
	return perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
}

/* What a perf counter of @fd counts over @turns, or -1. */
static long long perf_count(int fd, unsigned long turns)
{
	__u64 before, after;

	if (read(fd, &before, sizeof(before)) != sizeof(before))
		return -1;
	spin_turns(turns);
	if (read(fd, &after, sizeof(after)) != sizeof(after))
		return -1;
	return after - before;
}

/* Whether perf counts a hardware event now; errno says why not. */
static bool perf_counts(void)
{
	int fd = perf_open_hw();
	long long n;

	if (fd < 0)
		return false;
	n = perf_count(fd, TURNS);
	close(fd);
	errno = 0;
	return n >= (long long)TURNS;
}

/* A control of the TSC and, if @hw, user-mode instructions. */
static int set_control(int fd, bool hw)
{
	struct vperfctr_control control;

	start_tsc_control(&control);
	if (hw)
		add_amode(&control, INSNS_MAP, INSNS_EVNTSEL);
	return sys_vperfctr_control(fd, &control);
}

/*
 * NULL if perf and perfctr both drive this machine's PMU and perf has it
 * now, else why not.
 */
static const char *no_shared_pmu(void)
{
	const char *why = perfctr_missing();

	if (why)
		return why;
	if (sysfs_value("nrctrs") < 2)
		return "perfctr's driver here has no hardware counters";
	if (!perf_counts())
		return errno == EBUSY ?
		       "something else holds the hardware counters" :
		       "perf has no hardware counters here";
	return NULL;
}

/* A fresh state of this thread, counters stopped, on a shared PMU. */
FIXTURE(share)
{
	int fd;
};

FIXTURE_SETUP(share)
{
	const char *why = no_shared_pmu();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, self->fd) TH_LOG("vperfctr_open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(share)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(share, perf_counts_while_no_control_uses_hardware)
{
	int pfd;

	/* The TSC and a software counter leave perf the hardware. */
	ASSERT_EQ(0, start_tsc(self->fd));
	pfd = perf_open_hw();
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	/* A turn is a few instructions: at least one each. */
	EXPECT_LE((long long)TURNS, perf_count(pfd, TURNS));
	EXPECT_GT(20 * (long long)TURNS, perf_count(pfd, TURNS));
	close(pfd);
}

TEST_F(share, control_is_ebusy_while_perf_has_a_hardware_event)
{
	struct vperfctr_control before, after;
	__u64 tsc;
	int pfd;

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &before, NULL));
	/* Held from the event's creation, enabled or not. */
	pfd = perf_open_hw();
	ASSERT_LE(0, pfd);
	EXPECT_EQ(-1, set_control(self->fd, true));
	EXPECT_EQ(EBUSY, errno);
	/* Nothing changed: the old control counts on. */
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &after, NULL));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	tsc = read_tsc_sum(self->fd);
	spin_turns(TURNS);
	EXPECT_LT(tsc, read_tsc_sum(self->fd));
	/* perf still counts. */
	EXPECT_LE((long long)TURNS, perf_count(pfd, TURNS));
	close(pfd);
	/* perf's last event gone, the control is taken. */
	EXPECT_EQ(0, set_control(self->fd, true))
		TH_LOG("vperfctr_control: %s", strerror(errno));
}

TEST_F(share, perf_is_ebusy_while_a_control_uses_hardware)
{
	int pfd;

	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_EQ(-1, perf_open_hw());
	EXPECT_EQ(EBUSY, errno) TH_LOG("perf_event_open: %s", strerror(errno));
	EXPECT_EQ(-1, perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				PERIOD));
	EXPECT_EQ(EBUSY, errno);
	/* perf's software events are not the PMU's. */
	pfd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	EXPECT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	close(pfd);
}

TEST_F(share, perf_counts_again_once_the_control_drops_hardware)
{
	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_FALSE(perf_counts());
	ASSERT_EQ(0, set_control(self->fd, false));
	EXPECT_TRUE(perf_counts()) TH_LOG("%s", strerror(errno));
	/* And back: a stopped control holds nothing either. */
	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_FALSE(perf_counts());
	ASSERT_EQ(0, stop_counters(self->fd));
	EXPECT_TRUE(perf_counts()) TH_LOG("%s", strerror(errno));
}

TEST_F(share, perf_counts_again_once_the_state_is_unlinked)
{
	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_FALSE(perf_counts());
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	/* The file still holds the state, but not the counters. */
	EXPECT_TRUE(perf_counts()) TH_LOG("%s", strerror(errno));
}

/* A thread that takes the counters, then exits with its file open. */
struct holder {
	int fd;
	pid_t tid;
};

static void *hold_then_exit(void *arg)
{
	struct holder *h = arg;

	h->tid = gettid();
	h->fd = sys_vperfctr_open(0, 1);
	if (h->fd < 0 || set_control(h->fd, true))
		return (void *)(long)errno;
	return NULL;
}

/*
 * Whether thread @tid of this process is gone within 10 s.  pthread_join()
 * returns when the thread clears its tid, before it has finished exiting;
 * its /proc entry goes only when it is reaped, after its exit hooks ran.
 */
static bool thread_gone(pid_t tid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (i = 0; i < 10000; i++) {
		if (access(path, F_OK))
			return errno == ENOENT;
		usleep(1000);
	}
	return false;
}

TEST_F(share, perf_counts_again_once_the_thread_exits)
{
	struct holder h = { .fd = -1 };
	pthread_t t;
	void *err;
	int fd;

	ASSERT_EQ(0, pthread_create(&t, NULL, hold_then_exit, &h));
	ASSERT_EQ(0, pthread_join(t, &err));
	ASSERT_EQ(NULL, err) TH_LOG("%s", strerror((long)err));
	ASSERT_TRUE(thread_gone(h.tid));
	fd = h.fd;
	/*
	 * The descriptor is the process's and still open, and the dead
	 * thread's sums can be read through it; the counters are free.
	 */
	ASSERT_LE(0, fd);
	EXPECT_LT(0ull, read_tsc_sum(fd));
	EXPECT_TRUE(perf_counts()) TH_LOG("%s", strerror(errno));
	close(fd);
}

/*
 * Children inherit the counters: the counters are perf's again only when
 * the last of them exits, whatever the parent did meanwhile.
 */
TEST_F(share, inherited_counters_hold_until_the_last_child_exits)
{
	int go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, set_control(self->fd, true));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? 0 : CHILD_CHECK_FAILED);
	}
	close(go[0]);
	ASSERT_EQ(0, set_control(self->fd, false));
	EXPECT_FALSE(perf_counts());
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(1, write(go[1], "x", 1));
	EXPECT_EQ(0, reap(pid));
	EXPECT_TRUE(perf_counts()) TH_LOG("%s", strerror(errno));
	close(go[1]);
}

/* Overflow interrupts, counted by their signals. */
static int sigio_count;

static void count_sigio(int sig, siginfo_t *info, void *uc)
{
	add_once(sigio_count, 1);
}

static int catch_sigio(void)
{
	struct sigaction sa = {
		.sa_sigaction = count_sigio,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};

	WRITE_ONCE(sigio_count, 0);
	return sigaction(SIGIO, &sa, NULL);
}

/* perf samples user-mode cycles every PERIOD: its signals over @turns. */
static int perf_overflows(unsigned long turns)
{
	int fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			   PERIOD);
	int n;

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, SIGIO) ||
	    fcntl(fd, F_SETFL, O_ASYNC)) {
		close(fd);
		return -1;
	}
	WRITE_ONCE(sigio_count, 0);
	spin_turns(turns);
	n = READ_ONCE(sigio_count);
	close(fd);
	return n;
}

/* perfctr's i-mode cycle counter, restarted after each overflow. */
static int perfctr_overflows(int fd, unsigned long turns)
{
	struct vperfctr_control control;
	int n = 0, last = 0;

	start_tsc_control(&control);
	add_imode(&control, CYCLES_MAP, CYCLES_EVNTSEL, -PERIOD);
	control.si_signo = SIGIO;
	if (sys_vperfctr_control(fd, &control))
		return -1;
	WRITE_ONCE(sigio_count, 0);
	while (turns) {
		unsigned long step = turns < 1000 ? turns : 1000;

		spin_turns(step);
		turns -= step;
		if (READ_ONCE(sigio_count) != last) {
			last = READ_ONCE(sigio_count);
			n++;
			if (sys_vperfctr_iresume(fd))
				return -1;
		}
	}
	return n;
}

/*
 * Each side's overflow interrupts reach it, whoever had the counters
 * before: perfctr, then perf, then perfctr again.
 */
TEST_F(share, overflow_interrupts_reach_the_side_holding_the_counters)
{
	int n;

	ASSERT_EQ(0, catch_sigio());
	n = perfctr_overflows(self->fd, 20 * TURNS);
	EXPECT_LT(2, n) TH_LOG("perfctr: %d overflows", n);
	ASSERT_EQ(0, stop_counters(self->fd));
	n = perf_overflows(20 * TURNS);
	EXPECT_LT(2, n) TH_LOG("perf: %d overflows (%s)", n, strerror(errno));
	n = perfctr_overflows(self->fd, 20 * TURNS);
	EXPECT_LT(2, n) TH_LOG("perfctr again: %d overflows", n);
	ASSERT_EQ(0, stop_counters(self->fd));
	signal(SIGIO, SIG_DFL);
}

#if defined(__aarch64__)
/* The cycle counter, or event counter @n, as EL0 reads it. */
#define PMCCNTR		(-1)

static __u64 mrs_counter(int n)
{
	__u64 v = ~0ull;

	switch (n) {
	case PMCCNTR:
		asm volatile("mrs %0, pmccntr_el0" : "=r" (v));
		break;
	case 0:
		asm volatile("mrs %0, pmevcntr0_el0" : "=r" (v));
		break;
	case 1:
		asm volatile("mrs %0, pmevcntr1_el0" : "=r" (v));
		break;
	case 2:
		asm volatile("mrs %0, pmevcntr2_el0" : "=r" (v));
		break;
	case 3:
		asm volatile("mrs %0, pmevcntr3_el0" : "=r" (v));
		break;
	case 4:
		asm volatile("mrs %0, pmevcntr4_el0" : "=r" (v));
		break;
	case 5:
		asm volatile("mrs %0, pmevcntr5_el0" : "=r" (v));
		break;
	}
	return v;
}

static sigjmp_buf trap_jmp;

static void on_sigill(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/* Read counter @n in user mode into *@v: false if the read traps. */
static bool el0_read(int n, __u64 *v)
{
	bool ok;

	signal(SIGILL, on_sigill);
	ok = !sigsetjmp(trap_jmp, 1);
	if (ok)
		*v = mrs_counter(n);
	signal(SIGILL, SIG_DFL);
	return ok;
}

/* Another process's counters, and their access, are not this one's. */
TEST_F(share, el0_access_ends_with_the_thread_that_has_it)
{
	int go[2];
	pid_t pid;
	__u64 v;
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(CHILD_CHECK_FAILED);
		/* The parent's control lets it read; this process not. */
		if (el0_read(PMCCNTR, &v))
			_exit(1);
		_exit(el0_read(0, &v) ? 2 : 0);
	}
	close(go[0]);
	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_TRUE(el0_read(0, &v));
	ASSERT_EQ(1, write(go[1], "x", 1));
	EXPECT_EQ(0, reap(pid));
	/* Without hardware counters, this thread has no access either. */
	ASSERT_EQ(0, set_control(self->fd, false));
	EXPECT_FALSE(el0_read(PMCCNTR, &v));
	close(go[1]);
}

/*
 * Counters perf used and left with its counts read as zero to a perfctr
 * thread that does not use them.
 */
TEST_F(share, perf_counts_never_reach_a_perfctr_thread)
{
	struct vperfctr_control control;
	int pfd, i, n;
	__u64 v;

	/* Two events, on event counters of perf's choosing. */
	pfd = perf_open_hw();
	ASSERT_LE(0, pfd);
	i = perf_open_hw();
	ASSERT_LE(0, i);
	EXPECT_LE((long long)TURNS, perf_count(pfd, TURNS));
	close(i);
	close(pfd);

	start_tsc_control(&control);
	add_amode(&control, CYCLES_MAP, CYCLES_EVNTSEL);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	n = sysfs_value("nrctrs");
	for (i = 0; i < n && i < 6; i++) {
		ASSERT_TRUE(el0_read(i, &v)) TH_LOG("event counter %d", i);
		EXPECT_EQ(0ull, v) TH_LOG("event counter %d", i);
	}
}
#endif /* __aarch64__ */

TEST_HARNESS_MAIN
