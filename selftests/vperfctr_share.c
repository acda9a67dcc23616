// SPDX-License-Identifier: GPL-2.0
/*
 * perf and perfctr take turns with the hardware counters.  While no
 * perfctr control uses a hardware counter, perf has them: its hardware
 * events open and count.  While one does, a new perf hardware event fails
 * with EBUSY; while perf has one, a control with hardware counters fails
 * with EBUSY and changes nothing.  perfctr gives the counters back when
 * the last control that uses them changes, is unlinked or its thread
 * exits, and the overflow interrupt goes to whichever side holds them.
 * User-mode access to the counters (arm64: PMUSERENR_EL0, x86: CR4.PCE)
 * never shows one side's counts to the other side's threads.
 *
 * Each CPU has its own counters, interrupt and user-mode access: the
 * turns are taken, the counters freed and zeroed and the interrupts
 * delivered on every CPU the test may run on.
 *
 * Needs a PMU that both perfctr and perf drive, and nothing else using
 * perf's hardware events (the NMI watchdog among them): it skips
 * otherwise.  Where the PMU counts instructions (real processors, QEMU
 * with -icount), perf counts them and a turn of the loop is at least one
 * and fewer than 20; elsewhere (QEMU without -icount counts none, and its
 * cycle counter follows the host's clock) perf counts cycles, and a count
 * is only checked to be there.
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
/* Core cycles: Intel's architectural event 0x3c, AMD's 0x76. */
#define CYCLES_EVNTSEL	((sysfs_value("cpu_type") == PERFCTR_X86_AMD ? \
			  0x76 : 0x3c) | (1 << 16))
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

/*
 * The hardware event perf counts the loop's turns with: instructions
 * where the PMU counts them, else cycles.  no_shared_pmu() chooses.
 */
static __u64 perf_hw_event = PERF_COUNT_HW_INSTRUCTIONS;

static bool counts_instructions(void)
{
	return perf_hw_event == PERF_COUNT_HW_INSTRUCTIONS;
}

static int perf_open_hw(void)
{
	return perf_open(PERF_TYPE_HARDWARE, perf_hw_event, 0);
}

/* The least count of @turns turns: one a turn where that is known. */
static long long least_count(unsigned long turns)
{
	return counts_instructions() ? (long long)turns : 1;
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
	return n >= least_count(TURNS);
}

/*
 * Whether perf counts the loop with hardware event @event; errno says
 * why not.
 */
static bool perf_counts_event(__u64 event)
{
	__u64 saved = perf_hw_event;
	bool counts;

	perf_hw_event = event;
	counts = perf_counts();
	perf_hw_event = saved;
	return counts;
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
	if (perf_counts_event(PERF_COUNT_HW_INSTRUCTIONS)) {
		perf_hw_event = PERF_COUNT_HW_INSTRUCTIONS;
		return NULL;
	}
	if (errno == EBUSY)
		return "something else holds the hardware counters";
	if (!perf_counts_event(PERF_COUNT_HW_CPU_CYCLES))
		return errno == EBUSY ?
		       "something else holds the hardware counters" :
		       "perf has no hardware counters here";
	perf_hw_event = PERF_COUNT_HW_CPU_CYCLES;
	return NULL;
}

/* A fresh state of this thread, counters stopped, on a shared PMU. */
FIXTURE(share)
{
	int fd;
	cpu_set_t cpus;		/* where the test may run, restored after */
	int cpu[CPU_SETSIZE];	/* those CPUs, in order */
	int ncpus;
};

FIXTURE_SETUP(share)
{
	const char *why = no_shared_pmu();
	int i;

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->cpus), &self->cpus));
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &self->cpus))
			self->cpu[self->ncpus++] = i;
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, self->fd) TH_LOG("vperfctr_open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(share)
{
	if (self->fd >= 0) {
		close(self->fd);
		sched_setaffinity(0, sizeof(self->cpus), &self->cpus);
	}
}

TEST_F(share, perf_counts_while_no_control_uses_hardware)
{
	int pfd;

	/* The TSC and a software counter leave perf the hardware. */
	ASSERT_EQ(0, start_tsc(self->fd));
	pfd = perf_open_hw();
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(errno));
	/* A turn is a few instructions: at least one each. */
	EXPECT_LE(least_count(TURNS), perf_count(pfd, TURNS));
	if (counts_instructions())
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
	EXPECT_LE(least_count(TURNS), perf_count(pfd, TURNS));
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

/*
 * Whether to spin on, @turns_left turns still to go: until they are done
 * where the cycle counter counts one a user-mode instruction; elsewhere it
 * follows the host's clock, whose 50 ms, 250 periods, the loop may take
 * far fewer turns to fill.  @until is 0 to begin with.
 */
static bool spin_on(unsigned long turns_left, __u64 *until)
{
	if (counts_instructions())
		return turns_left;
	if (!*until)
		*until = now_ns() + 50000000ull;
	return turns_left || now_ns() < *until;
}

/* perf samples user-mode cycles every PERIOD: its signals over @turns. */
static int perf_overflows(unsigned long turns)
{
	__u64 until = 0;
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
	while (spin_on(turns, &until)) {
		unsigned long step = turns < 1000 ? turns : 1000;

		spin_turns(1000);
		turns -= step;
	}
	n = READ_ONCE(sigio_count);
	close(fd);
	return n;
}

/*
 * perfctr's i-mode cycle counter, restarted after each overflow; the
 * thread moves to the next of the @ncpus CPUs of @cpu every 1000 turns.
 */
static int perfctr_overflows(int fd, unsigned long turns, const int *cpu,
			     int ncpus)
{
	struct vperfctr_control control;
	int n = 0, last = 0, next = 0;
	__u64 until = 0;

	start_tsc_control(&control);
	add_imode(&control, CYCLES_MAP, CYCLES_EVNTSEL, -PERIOD);
	control.si_signo = SIGIO;
	if (sys_vperfctr_control(fd, &control))
		return -1;
	WRITE_ONCE(sigio_count, 0);
	while (spin_on(turns, &until)) {
		unsigned long step = turns < 1000 ? turns : 1000;

		if (ncpus && pin_to_cpu(cpu[next++ % ncpus]))
			return -1;
		spin_turns(1000);
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
	n = perfctr_overflows(self->fd, 20 * TURNS, NULL, 0);
	EXPECT_LT(2, n) TH_LOG("perfctr: %d overflows", n);
	ASSERT_EQ(0, stop_counters(self->fd));
	n = perf_overflows(20 * TURNS);
	EXPECT_LT(2, n) TH_LOG("perf: %d overflows (%s)", n, strerror(errno));
	n = perfctr_overflows(self->fd, 20 * TURNS, NULL, 0);
	EXPECT_LT(2, n) TH_LOG("perfctr again: %d overflows", n);
	ASSERT_EQ(0, stop_counters(self->fd));
	signal(SIGIO, SIG_DFL);
}

/*
 * On every CPU, each side's overflow interrupts reach it; and perfctr's
 * reach a thread that moves from CPU to CPU while its counter runs.
 */
TEST_F(share, overflow_interrupts_reach_their_side_on_every_cpu)
{
	int cpu, i, n;

	ASSERT_EQ(0, catch_sigio());
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		n = perfctr_overflows(self->fd, 20 * TURNS, NULL, 0);
		EXPECT_LT(2, n) TH_LOG("CPU %d: perfctr: %d overflows", cpu, n);
		ASSERT_EQ(0, stop_counters(self->fd));
		n = perf_overflows(20 * TURNS);
		EXPECT_LT(2, n) TH_LOG("CPU %d: perf: %d overflows (%s)", cpu,
				       n, strerror(errno));
	}
	n = perfctr_overflows(self->fd, 20 * TURNS, self->cpu, self->ncpus);
	EXPECT_LT(2, n) TH_LOG("perfctr, moving: %d overflows", n);
	ASSERT_EQ(0, stop_counters(self->fd));
	signal(SIGIO, SIG_DFL);
}

/*
 * A control holds the counters of every CPU, wherever its thread runs,
 * and frees them all when it stops.
 */
TEST_F(share, a_moving_control_holds_and_frees_the_counters_of_every_cpu)
{
	int cpu, i;

	ASSERT_EQ(0, set_control(self->fd, true));
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		spin_turns(TURNS);
		EXPECT_FALSE(perf_counts()) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(EBUSY, errno) TH_LOG("CPU %d: %s", cpu, strerror(errno));
	}
	ASSERT_EQ(0, stop_counters(self->fd));
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		EXPECT_TRUE(perf_counts()) TH_LOG("CPU %d: %s", cpu,
						  strerror(errno));
	}
}

/*
 * Children that inherit hardware counters count on whichever CPU they
 * run, hold the counters after their parent stopped, add their counts to
 * its children sums when reaped, and free the counters of every CPU.
 */
TEST_F(share, children_on_every_cpu_count_hold_and_free_the_counters)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs children;
	pid_t pids[CPU_SETSIZE];
	int go[2], cpu, i;
	char c;

	ASSERT_EQ(0, pipe(go));
	start_tsc_control(&control);
	add_amode(&control, CYCLES_MAP, CYCLES_EVNTSEL);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < self->ncpus; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			close(go[1]);
			if (pin_to_cpu(self->cpu[i]))
				_exit(CHILD_CHECK_FAILED);
			spin_turns(TURNS);
			_exit(read(go[0], &c, 1) == 0 ? 0 : CHILD_CHECK_FAILED);
		}
	}
	close(go[0]);
	/* A stop keeps the children sums, and the children the counters. */
	ASSERT_EQ(0, stop_counters(self->fd));
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		EXPECT_FALSE(perf_counts()) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(EBUSY, errno) TH_LOG("CPU %d: %s", cpu, strerror(errno));
	}
	close(go[1]);
	for (i = 0; i < self->ncpus; i++)
		EXPECT_EQ(0, reap(pids[i])) TH_LOG("child on CPU %d", self->cpu[i]);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	EXPECT_LT(0ull, children.tsc);
	EXPECT_LT(0ull, children.pmc[0]) TH_LOG("the children's cycles");
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		EXPECT_TRUE(perf_counts()) TH_LOG("CPU %d: %s", cpu,
						  strerror(errno));
	}
}

#if defined(__aarch64__)
/* The cycle counter, or event counter @n, as EL0 reads it. */
#define PMCCNTR		(-1)

static __u64 read_counter(int n)
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

/* The cycle counter, which a thread without access traps on too. */
#define USER_CYCLES	PMCCNTR
#define TRAP_SIGNAL	SIGILL
#elif defined(__x86_64__)
/* rdpmc of counter @n; #GP (SIGSEGV) without CR4.PCE. */
static __u64 read_counter(int n)
{
	unsigned int lo, hi;

	asm volatile("rdpmc" : "=a" (lo), "=d" (hi) : "c" (n));
	return ((__u64)hi << 32) | lo;
}

#define USER_CYCLES	CYCLES_MAP
#define TRAP_SIGNAL	SIGSEGV
#endif

static sigjmp_buf trap_jmp;

static void on_trap(int sig)
{
	siglongjmp(trap_jmp, 1);
}

/* Read counter @n in user mode into *@v: false if the read traps. */
static bool user_read(int n, __u64 *v)
{
	bool ok;

	signal(TRAP_SIGNAL, on_trap);
	ok = !sigsetjmp(trap_jmp, 1);
	if (ok)
		*v = read_counter(n);
	signal(TRAP_SIGNAL, SIG_DFL);
	return ok;
}

/*
 * User-mode reads of the counters (arm64: PMUSERENR_EL0, x86: CR4.PCE)
 * go with the thread whose control has hardware counters: on the same
 * CPU, another process without a control traps while this one's
 * counters run there, and so does this thread once its control has none.
 */
TEST_F(share, user_reads_end_with_the_thread_that_has_them)
{
	int go[2];
	pid_t pid;
	__u64 v;
	char c;

	ASSERT_EQ(0, pin_to_cpu(self->cpu[0]));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(CHILD_CHECK_FAILED);
		/* The parent's control lets it read; this process not. */
		if (user_read(USER_CYCLES, &v))
			_exit(1);
		_exit(user_read(0, &v) ? 2 : 0);
	}
	close(go[0]);
	ASSERT_EQ(0, set_control(self->fd, true));
	EXPECT_TRUE(user_read(0, &v));
	ASSERT_EQ(1, write(go[1], "x", 1));
	EXPECT_EQ(0, reap(pid));
	/* Without hardware counters, this thread has no access either. */
	ASSERT_EQ(0, set_control(self->fd, false));
	EXPECT_FALSE(user_read(USER_CYCLES, &v));
	close(go[1]);
}

#if defined(__aarch64__)
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
	EXPECT_LE(least_count(TURNS), perf_count(pfd, TURNS));
	close(i);
	close(pfd);

	start_tsc_control(&control);
	add_amode(&control, CYCLES_MAP, CYCLES_EVNTSEL);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	n = sysfs_value("nrctrs");
	for (i = 0; i < n && i < 6; i++) {
		ASSERT_TRUE(user_read(i, &v)) TH_LOG("event counter %d", i);
		EXPECT_EQ(0ull, v) TH_LOG("event counter %d", i);
	}
}

/*
 * perf counts user-mode cycles on @n counters at once, the cycle counter
 * and then event counters: how many counted, or -1 if one did not open.
 */
static int perf_fills_counters(int n)
{
	int fds[8], opened, i, counted = 0;
	__u64 v;

	for (opened = 0; opened < n; opened++) {
		fds[opened] = perf_open(PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_CPU_CYCLES, 0);
		if (fds[opened] < 0)
			break;
	}
	if (opened == n) {
		spin_turns(TURNS);
		for (i = 0; i < n; i++)
			if (read(fds[i], &v, sizeof(v)) == sizeof(v) && v)
				counted++;
	}
	for (i = 0; i < opened; i++)
		close(fds[i]);
	return opened == n ? counted : -1;
}

/*
 * The counts perf leaves in the counters of any CPU read as zero to a
 * perfctr thread, on whichever CPU it takes the counters and on every
 * CPU it moves to.
 */
TEST_F(share, perf_counts_never_reach_a_perfctr_thread_on_any_cpu)
{
	struct vperfctr_control control;
	int cpu, i, j, n;
	__u64 v;

	n = sysfs_value("nrctrs");
	if (n > 6)
		n = 6;
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		EXPECT_EQ(n + 1, perf_fills_counters(n + 1))
			TH_LOG("CPU %d: %s", cpu, strerror(errno));
	}
	start_tsc_control(&control);
	add_amode(&control, CYCLES_MAP, CYCLES_EVNTSEL);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < self->ncpus; i++) {
		cpu = self->cpu[i];
		ASSERT_EQ(0, pin_to_cpu(cpu));
		for (j = 0; j < n; j++) {
			ASSERT_TRUE(user_read(j, &v))
				TH_LOG("CPU %d, event counter %d", cpu, j);
			EXPECT_EQ(0ull, v)
				TH_LOG("CPU %d, event counter %d", cpu, j);
		}
	}
}
#endif /* __aarch64__ */

TEST_HARNESS_MAIN
