// SPDX-License-Identifier: GPL-2.0
/*
 * Exact counts on a PMU that counts exactly: Arm PMUv3 as QEMU emulates it
 * with -icount shift=0 and one CPU, where every user-mode instruction is
 * counted once and the cycle counter ticks once per instruction.  A loop
 * of ten instructions a turn, run N times, must then count exactly 10 * N
 * more than the same code run zero times: whatever suspend, resume,
 * sampling, inheritance or an overflow does, not one instruction may be
 * lost or gained.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

#include "vperfctr_kselftest.h"
#include "vperfctr_syscalls.h"

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

#define INST_RETIRED	0x08
#define CPU_CYCLES	0x11
#define USER_ONLY	PERFCTR_ARM64_EXCLUDE_EL1

/*
 * n turns of ten instructions: eight nops, a subtract and a branch.  This
 * file is built with -fno-inline: whatever n, the code around the loop is
 * the same.
 */
static void loop10(unsigned long n)
{
	if (n)
		asm volatile("1:\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "subs %0, %0, #1\n\t"
			     "b.ne 1b"
			     : "+r" (n) : : "cc");
}

/* NULL if this machine has perfctr's PMUv3 driver, else why not. */
static const char *no_pmuv3(void)
{
	unsigned int type = ~0u;
	FILE *f = fopen("/sys/kernel/perfctr/cpu_type", "r");

	if (!f)
		return "no /sys/kernel/perfctr: kernel without perfctr";
	if (fscanf(f, "%u", &type) != 1)
		type = ~0u;
	fclose(f);
	return type == PERFCTR_ARM64_PMUV3 ? NULL :
	       "perfctr's driver here is not arm64 PMUv3";
}

/*
 * User-mode instructions on event counter 0 and, if @cycles, user-mode
 * cycles on the cycle counter; then @nsw software counters, from
 * @sw_events.
 */
static void exact_control(struct vperfctr_control *control, bool cycles)
{
	struct perfctr_cpu_control *cc = &control->cpu_control;

	memset(control, 0, sizeof(*control));
	cc->pmc_map[0] = 0;
	cc->evntsel[0] = INST_RETIRED | USER_ONLY;
	cc->nractrs = 1;
	if (cycles) {
		cc->pmc_map[1] = PERFCTR_MAP_ARM64_CYCLES;
		cc->evntsel[1] = CPU_CYCLES | USER_ONLY;
		cc->nractrs = 2;
	}
}

static int open_exact(bool cycles)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0)
		return -1;
	exact_control(&control, cycles);
	if (sys_vperfctr_control(fd, &control)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Counter 0 and 1 across loop10(@n), read by system call. */
static void measure(int fd, unsigned long n, __u64 *insns, __u64 *cycles)
{
	struct perfctr_sum_ctrs a, b;

	if (sys_vperfctr_read(fd, &a, NULL, NULL))
		abort();
	loop10(n);
	if (sys_vperfctr_read(fd, &b, NULL, NULL))
		abort();
	*insns = b.pmc[0] - a.pmc[0];
	*cycles = b.pmc[1] - a.pmc[1];
}

TEST(loop_counts_exactly_ten_instructions_a_turn)
{
	static const unsigned long turns[] = { 1000, 10000, 100000, 1000000,
					       10000000 };
	__u64 base_insns, base_cycles, insns, cycles;
	unsigned int i;
	int fd;

	if (no_pmuv3())
		SKIP(return, "%s", no_pmuv3());
	fd = open_exact(true);
	ASSERT_LE(0, fd) TH_LOG("vperfctr_open/control: %s", strerror(errno));
	measure(fd, 0, &base_insns, &base_cycles);
	for (i = 0; i < ARRAY_SIZE(turns); i++) {
		measure(fd, turns[i], &insns, &cycles);
		EXPECT_EQ(10 * turns[i], insns - base_insns)
			TH_LOG("N = %lu", turns[i]);
		EXPECT_EQ(10 * turns[i], cycles - base_cycles)
			TH_LOG("cycles, N = %lu", turns[i]);
	}
	/* Run after run, the same. */
	measure(fd, 0, &insns, &cycles);
	EXPECT_EQ(base_insns, insns);
	close(fd);
}

/* The live value of counter @i from the mapped page, without a syscall. */
static __u64 read_pmevcntr0(void)
{
	__u64 v;

	asm volatile("mrs %0, pmevcntr0_el0" : "=r" (v));
	return v;
}

/*
 * Counter 0 from the mapped page, without a system call, as libperfctr
 * reads it; *retries says how often the sequence count sent it round
 * again (the owner was switched out meanwhile), each time a few more
 * instructions.
 */
static __u64 fast_read_pmc0(const struct vperfctr_state *state,
			    unsigned int *retries)
{
	const struct perfctr_pmc_state *pmc = &state->cpu_state.pmc[0];
	__u32 seq, width;
	__u64 value;

	*retries = 0;
	for (;;) {
		seq = __atomic_load_n(&state->seq, __ATOMIC_ACQUIRE);
		value = READ_ONCE(pmc->sum);
		if (READ_ONCE(state->flags) & VPERFCTR_STATE_ONCPU) {
			width = READ_ONCE(pmc->width);
			value += (read_pmevcntr0() - READ_ONCE(pmc->start)) &
				 (width >= 64 ? ~0ULL : (1ULL << width) - 1);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && seq == READ_ONCE(state->seq))
			return value;
		++*retries;
	}
}

#define FAST_READS	8

TEST(fast_read_agrees_with_vperfctr_read)
{
	static const unsigned long turns[FAST_READS] = {
		0, 1000, 10000, 100000, 1000, 1000000, 10, 10000000 };
	__u64 fast[FAST_READS], sys[FAST_READS], step = 0, last;
	unsigned int retries[FAST_READS], i, steps = 0;
	const struct vperfctr_state *state;
	struct vperfctr_control stop = {};
	struct perfctr_sum_ctrs sum;
	int fd;

	if (no_pmuv3())
		SKIP(return, "%s", no_pmuv3());
	fd = open_exact(false);
	ASSERT_LE(0, fd);
	state = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, state);
	ASSERT_NE(0U, state->flags & VPERFCTR_STATE_RDPMC);
	for (i = 0; i < FAST_READS; i++) {
		loop10(turns[i]);
		fast[i] = fast_read_pmc0(state, &retries[i]);
		if (sys_vperfctr_read(fd, &sum, NULL, NULL))
			break;
		sys[i] = sum.pmc[0];
	}
	ASSERT_EQ(FAST_READS, (int)i);

	for (i = 0; i < FAST_READS; i++) {
		/*
		 * The system call sees what the fast read saw plus the same
		 * few instructions in between, every time.
		 */
		EXPECT_EQ(sys[0] - fast[0], sys[i] - fast[i])
			TH_LOG("N = %lu", turns[i]);
		/*
		 * From one fast read to the next: the loop, ten instructions
		 * a turn, and the same instructions around it every time the
		 * fast read went round once.
		 */
		if (!i || retries[i])
			continue;
		if (!steps++)
			step = fast[i] - fast[i - 1] - 10 * turns[i];
		EXPECT_EQ(step, fast[i] - fast[i - 1] - 10 * turns[i])
			TH_LOG("N = %lu", turns[i]);
	}
	EXPECT_LE(4U, steps);
	EXPECT_LT(fast[0], sys[0]);
	EXPECT_GT(fast[0] + 200, sys[0]);
	EXPECT_GT(200ULL, step);

	/* Stopped, its sum kept: both read the very same count. */
	last = fast[FAST_READS - 1];
	stop.preserve = 1;
	ASSERT_EQ(0, sys_vperfctr_control(fd, &stop));
	ASSERT_EQ(0U, state->flags & VPERFCTR_STATE_ONCPU);
	fast[0] = fast_read_pmc0(state, &retries[0]);
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	EXPECT_EQ(sum.pmc[0], fast[0]);
	EXPECT_LT(last, fast[0]);
	munmap((void *)state, getpagesize());
	close(fd);
}

/* Turns of the loop, then a yield to the other thread, chunks times. */
#define CHUNK_TURNS	1000ULL
#define CHUNKS		2000U

static void run_chunks(unsigned int chunks)
{
	unsigned int i;

	for (i = 0; i < chunks; i++) {
		loop10(CHUNK_TURNS);
		sched_yield();
	}
}

/* Instructions across run_chunks(@chunks), and the context switches. */
static void measure_chunks(int fd, unsigned int chunks, __u64 *insns,
			   __u64 *switches)
{
	struct perfctr_sum_ctrs a, b;

	if (sys_vperfctr_read(fd, &a, NULL, NULL))
		abort();
	run_chunks(chunks);
	if (sys_vperfctr_read(fd, &b, NULL, NULL))
		abort();
	*insns = b.pmc[0] - a.pmc[0];
	*switches = b.pmc[1] - a.pmc[1];
}

struct worker {
	pthread_barrier_t *start;
	int err;
	__u64 insns;
	__u64 switches;
};

static int open_with_switches(void)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0)
		return -1;
	exact_control(&control, false);
	control.cpu_control.pmc_map[1] = PERFCTR_MAP_SOFTWARE |
					 PERFCTR_SW_CONTEXT_SWITCHES;
	control.cpu_control.nractrs = 2;
	if (sys_vperfctr_control(fd, &control)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int fd = open_with_switches();

	if (fd < 0) {
		w->err = errno;
		pthread_barrier_wait(w->start);
		return NULL;
	}
	pthread_barrier_wait(w->start);
	measure_chunks(fd, CHUNKS, &w->insns, &w->switches);
	close(fd);
	return NULL;
}

TEST(two_threads_on_one_cpu_count_only_their_own)
{
	__u64 hundred, two_hundred, per_chunk, switches;
	struct worker w[2] = {};
	pthread_barrier_t start;
	pthread_t t[2];
	cpu_set_t cpu0;
	int fd, i;

	if (no_pmuv3())
		SKIP(return, "%s", no_pmuv3());
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));

	/*
	 * Alone on the CPU, a chunk costs the same every time: the cost of
	 * CHUNKS of them follows from that of 100 and 200.
	 */
	fd = open_with_switches();
	ASSERT_LE(0, fd);
	measure_chunks(fd, 100, &hundred, &switches);
	measure_chunks(fd, 200, &two_hundred, &switches);
	per_chunk = (two_hundred - hundred) / 100;
	ASSERT_EQ(hundred + 100 * per_chunk, two_hundred);
	ASSERT_LT(10 * CHUNK_TURNS, per_chunk);
	/* The workers start without counters of ours to inherit. */
	ASSERT_EQ(0, sys_vperfctr_unlink(fd));
	close(fd);

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 2));
	for (i = 0; i < 2; i++) {
		w[i].start = &start;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		ASSERT_EQ(0, w[i].err)
			TH_LOG("worker %d: %s", i, strerror(w[i].err));
		/* Switched out at least once for nearly every chunk. */
		EXPECT_LE((__u64)CHUNKS / 2, w[i].switches)
			TH_LOG("worker %d", i);
		EXPECT_EQ(hundred + (CHUNKS - 100) * per_chunk, w[i].insns)
			TH_LOG("worker %d: %llu switches", i,
			       (unsigned long long)w[i].switches);
	}
	pthread_barrier_destroy(&start);
}

struct family {
	__u64 own;
	__u64 children;
};

/*
 * A child runs loop10(@child) and, if @grandchild is not negative, forks
 * a grandchild that runs loop10(@grandchild); the parent reads its own
 * sum and its children's after reaping them.
 */
static int run_family(struct __test_metadata *_metadata, int fd, long child,
		      long grandchild, struct family *f)
{
	struct perfctr_sum_ctrs own, children;
	struct vperfctr_control control;
	int status;
	pid_t pid;

	exact_control(&control, false);
	/* A new control: the children sums restart from zero. */
	if (sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		TH_LOG("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		loop10(child);
		if (grandchild >= 0) {
			pid = fork();
			if (!pid) {
				loop10(grandchild);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, &status, 0) != pid)
				_exit(1);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		TH_LOG("child: status %#x", status);
		return -1;
	}
	if (sys_vperfctr_read(fd, &own, NULL, &children)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
		return -1;
	}
	f->own = own.pmc[0];
	f->children = children.pmc[0];
	return 0;
}

TEST(fork_children_sums_are_exact)
{
	struct family base, big, with_gc0, with_gc;
	int fd;

	if (no_pmuv3())
		SKIP(return, "%s", no_pmuv3());
	fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, run_family(_metadata, fd, 0, -1, &base));
	ASSERT_EQ(0, run_family(_metadata, fd, 100000, -1, &big));
	ASSERT_EQ(0, run_family(_metadata, fd, 100000, 0, &with_gc0));
	ASSERT_EQ(0, run_family(_metadata, fd, 100000, 1000000, &with_gc));
	close(fd);

	/* The child's loop lands in the children sums, exactly. */
	EXPECT_EQ(1000000ULL, big.children - base.children);
	/* The grandchild's too, through the child. */
	EXPECT_EQ(10000000ULL, with_gc.children - with_gc0.children);
	EXPECT_LT(big.children, with_gc0.children);
	/* And none of it in the parent's own sum. */
	EXPECT_EQ(base.own, big.own);
	EXPECT_EQ(base.own, with_gc.own);
	EXPECT_LT(0ULL, base.own);
}

#define PERIOD		1000000ULL
#define PERIODS		10ULL

/* Set before the counters start, counted in the handler. */
static int ovf_fd = -1;
static unsigned int ovf_signals, ovf_bad_code, ovf_bad_mask;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	__atomic_fetch_add(&ovf_signals, 1, __ATOMIC_RELAXED);
	if (si->si_code != SI_PMC_OVF)
		__atomic_fetch_add(&ovf_bad_code, 1, __ATOMIC_RELAXED);
	if ((unsigned int)si->si_pmc_ovf_mask != 1u << 1)
		__atomic_fetch_add(&ovf_bad_mask, 1, __ATOMIC_RELAXED);
	if (sys_vperfctr_iresume(ovf_fd))
		abort();
}

TEST(imode_cycle_counter_signals_every_period)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	struct sigaction sa = {};
	int fd;

	if (no_pmuv3())
		SKIP(return, "%s", no_pmuv3());
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));

	fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, fd);
	ovf_fd = fd;
	/* Instructions in a-mode, cycles in i-mode every PERIOD. */
	exact_control(&control, false);
	control.si_signo = SIGIO;
	control.cpu_control.pmc_map[1] = PERFCTR_MAP_ARM64_CYCLES;
	control.cpu_control.evntsel[1] = CPU_CYCLES | USER_ONLY;
	control.cpu_control.ireset[1] = -(__s64)PERIOD;
	control.cpu_control.nrictrs = 1;
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}

	/* PERIODS and a half: the last half period raises nothing. */
	loop10((PERIODS * PERIOD + PERIOD / 2) / 10);
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));

	EXPECT_EQ(PERIODS, (__u64)READ_ONCE(ovf_signals));
	EXPECT_EQ(0U, READ_ONCE(ovf_bad_code));
	EXPECT_EQ(0U, READ_ONCE(ovf_bad_mask));
	/*
	 * Stopped at each overflow, restarted by iresume: the cycles and
	 * instructions counted are the same, to the instruction, and
	 * PERIODS whole periods and the half.
	 */
	EXPECT_EQ(sum.pmc[0], sum.pmc[1]);
	EXPECT_LE(PERIODS * PERIOD + PERIOD / 2, sum.pmc[1]);
	EXPECT_GT((PERIODS + 1) * PERIOD, sum.pmc[1]);
	close(fd);
	signal(SIGIO, SIG_DFL);
}

TEST_HARNESS_MAIN
