// SPDX-License-Identifier: GPL-2.0
/*
 * Exact counts on a PMU that counts exactly, as QEMU emulates two under
 * -icount shift=0: Arm PMUv3 (one CPU), and on x86 the project's PMU
 * model (scripts/qemu/), Intel architectural perfmon or AMD's core
 * counters (per CPU, so two CPUs are fine).  Every user-mode instruction
 * is counted once, and the cycle counters tick once per instruction.  A
 * loop of ten instructions a turn, run N times, must then count exactly
 * 10 * N more than the same code run zero times, on every counter of the
 * machine: whatever suspend, resume, sampling, inheritance, an overflow
 * or a counter's wrap does, not one instruction may be lost or gained.
 *
 * The tests are the same on both architectures; what differs is the
 * loop's assembly, the read of a live counter, and which counters count
 * what: see "The machine" below.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/perf_event.h>
#include <linux/perfctr.h>

#include "vperfctr_kselftest.h"
#include "vperfctr_syscalls.h"

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

/* --- The machine ---------------------------------------------------------- */

/*
 * The events the tests count, all in user mode only; on these PMUs each
 * counts exactly one per user-mode instruction.
 */
enum event { INSNS, CYCLES, REF_CYCLES };

static const char *const event_name[] = {
	[INSNS] = "instructions", [CYCLES] = "cycles",
	[REF_CYCLES] = "ref-cycles",
};

/* A hardware counter of a control: pmc_map[] and evntsel[]. */
struct hw_counter {
	__u32 map;
	__u64 evntsel;
	enum event event;
	bool fixed;	/* a fixed counter; arm64: the cycle counter */
};

/* perfctr's description of the counters, from /sys/kernel/perfctr. */
static struct {
	bool probed;
	const char *why_not;	/* NULL if the driver drives a PMU */
	unsigned int cpu_type;
	unsigned int nrctrs, ctr_width;		/* general-purpose */
	unsigned int nrfixed, fixed_width;	/* fixed */
} pmu;

#if defined(__aarch64__)

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

static const char *pmu_type_why_not(unsigned int type)
{
	return type == PERFCTR_ARM64_PMUV3 ? NULL :
	       "perfctr's driver here is not arm64 PMUv3";
}

/* Event counter @i: instructions or cycles. */
static struct hw_counter gp_counter(unsigned int i, enum event event)
{
	return (struct hw_counter){
		.map = i, .event = event,
		.evntsel = (event == INSNS ? INST_RETIRED : CPU_CYCLES) |
			   USER_ONLY,
	};
}

/* The one "fixed" counter: the cycle counter. */
static unsigned int nr_exact_fixed(void)
{
	return pmu.nrfixed ? 1 : 0;
}

static struct hw_counter fixed_counter(unsigned int j)
{
	(void)j;
	return (struct hw_counter){
		.map = PERFCTR_MAP_ARM64_CYCLES, .event = CYCLES,
		.evntsel = CPU_CYCLES | USER_ONLY, .fixed = true,
	};
}

/* The cycle counter. */
static struct hw_counter cycle_counter(void)
{
	return fixed_counter(0);
}

/* No fixed counter counts instructions. */
static bool fixed_insns_counter(struct hw_counter *c)
{
	(void)c;
	return false;
}

/* General-purpose counter @i of the all-counters control. */
static enum event gp_event(unsigned int i)
{
	return i % 2 ? CYCLES : INSNS;
}

/*
 * The live value of hardware counter @map, as its owner reads it: event
 * counter 0, the one the tests read most, directly.
 */
static __u64 read_live(__u32 map)
{
	__u64 v;

	if (map == 0)
		asm volatile("mrs %0, pmevcntr0_el0" : "=r" (v));
	else if (map == PERFCTR_MAP_ARM64_CYCLES)
		asm volatile("mrs %0, pmccntr_el0" : "=r" (v));
	else
		asm volatile("msr pmselr_el0, %1\n\tisb\n\t"
			     "mrs %0, pmxevcntr_el0"
			     : "=r" (v) : "r" ((__u64)map) : "memory");
	return v;
}

#elif defined(__x86_64__)

#define EVNTSEL_USR	0x10000		/* USR; EN and INT are the driver's */
#define ARCH_INSNS	0x00c0		/* instructions, Intel's and AMD's */
#define INTEL_CYCLES	0x003c		/* core cycles */
#define INTEL_REF_CYCLES 0x013c		/* reference cycles */
#define AMD_CYCLES	0x0076		/* core cycles */

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
			     "sub $1, %0\n\t"
			     "jnz 1b"
			     : "+r" (n) : : "cc");
}

static const char *pmu_type_why_not(unsigned int type)
{
	return type == PERFCTR_X86_INTEL_ARCH || type == PERFCTR_X86_AMD ?
	       NULL : "perfctr's driver here drives no Intel or AMD PMU";
}

static bool intel(void)
{
	return pmu.cpu_type == PERFCTR_X86_INTEL_ARCH;
}

/* General-purpose counter @i: instructions, cycles or reference cycles. */
static struct hw_counter gp_counter(unsigned int i, enum event event)
{
	static const __u64 intel_code[] = {
		[INSNS] = ARCH_INSNS, [CYCLES] = INTEL_CYCLES,
		[REF_CYCLES] = INTEL_REF_CYCLES,
	};
	static const __u64 amd_code[] = {
		[INSNS] = ARCH_INSNS, [CYCLES] = AMD_CYCLES,
	};

	return (struct hw_counter){
		.map = i, .event = event,
		.evntsel = (intel() ? intel_code : amd_code)[event] |
			   EVNTSEL_USR,
	};
}

/*
 * Intel's architectural fixed counters: 0 instructions, 1 core cycles, 2
 * reference cycles, in the order of enum event (3, TopDown's slots,
 * counts no loop exactly, and the PMU model has no such counter).  AMD
 * has none.
 */
static unsigned int nr_exact_fixed(void)
{
	return pmu.nrfixed < 3 ? pmu.nrfixed : 3;
}

static struct hw_counter fixed_counter(unsigned int j)
{
	return (struct hw_counter){
		.map = PERFCTR_MAP_X86_FIXED | j, .event = (enum event)j,
		.evntsel = EVNTSEL_USR, .fixed = true,
	};
}

/* The cycle counter: Intel's fixed counter 1, else cycles on counter 1. */
static struct hw_counter cycle_counter(void)
{
	return nr_exact_fixed() > 1 ? fixed_counter(1) : gp_counter(1, CYCLES);
}

/* Intel's fixed counter 0 counts instructions. */
static bool fixed_insns_counter(struct hw_counter *c)
{
	if (!nr_exact_fixed())
		return false;
	*c = fixed_counter(0);
	return true;
}

/* General-purpose counter @i of the all-counters control. */
static enum event gp_event(unsigned int i)
{
	if (intel())
		return (enum event)(i % 3);
	return i % 2 ? CYCLES : INSNS;
}

/* The live value of hardware counter @map: rdpmc, @map its index. */
static __u64 read_live(__u32 map)
{
	__u32 lo, hi;

	asm volatile("rdpmc" : "=a" (lo), "=d" (hi) : "c" (map));
	return (__u64)hi << 32 | lo;
}

#else
#error "perfctr runs on x86-64 and arm64 only"
#endif

static unsigned int sysfs_uint(const char *name, bool *ok)
{
	char path[128];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/perfctr/%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &v) != 1)
		*ok = false;
	if (f)
		fclose(f);
	return v;
}

/* NULL if this machine has a perfctr driver of its PMU, else why not. */
static const char *no_exact_pmu(void)
{
	bool ok = true;

	if (pmu.probed)
		return pmu.why_not;
	pmu.probed = true;
	pmu.cpu_type = sysfs_uint("cpu_type", &ok);
	if (!ok)
		pmu.why_not = "no /sys/kernel/perfctr: kernel without perfctr";
	else
		pmu.why_not = pmu_type_why_not(pmu.cpu_type);
	pmu.nrctrs = sysfs_uint("nrctrs", &ok);
	pmu.ctr_width = sysfs_uint("ctr_width", &ok);
	pmu.nrfixed = sysfs_uint("nrfixed", &ok);
	pmu.fixed_width = sysfs_uint("fixed_width", &ok);
	if (!pmu.why_not && (!ok || pmu.nrctrs < 2))
		pmu.why_not = "perfctr's driver here has fewer than 2 counters";
	return pmu.why_not;
}

/* What EBUSY from a control with hardware counters most likely means. */
static const char *busy_hint(int err)
{
	return err == EBUSY ? " (perf holds a counter: the NMI watchdog?)" : "";
}

static const char *counter_kind(const struct hw_counter *c)
{
	return c->fixed ? "fixed counter" : "counter";
}

/* The width of @c's hardware counter, as the state page must give it. */
static unsigned int counter_width(const struct hw_counter *c)
{
	return c->fixed ? pmu.fixed_width : pmu.ctr_width;
}

static __u64 width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

/* Counter @i of @control is @c, in a-mode unless the caller says. */
static void set_counter(struct vperfctr_control *control, unsigned int i,
			const struct hw_counter *c)
{
	control->cpu_control.pmc_map[i] = c->map;
	control->cpu_control.evntsel[i] = c->evntsel;
}

/*
 * The counters the loop is counted by, in @c[3]: user-mode instructions
 * on general-purpose counter 0 and, if @cycles, user-mode cycles on the
 * cycle counter, and instructions on a fixed counter where one counts
 * them.  Returns how many.
 */
static unsigned int loop_counters(bool cycles, struct hw_counter *c)
{
	unsigned int nr = 0;

	c[nr++] = gp_counter(0, INSNS);
	if (cycles) {
		c[nr++] = cycle_counter();
		if (fixed_insns_counter(&c[nr]))
			nr++;
	}
	return nr;
}

/* Those counters, in a-mode, and nothing else. */
static void exact_control(struct vperfctr_control *control, bool cycles)
{
	struct hw_counter c[3];
	unsigned int i, nr = loop_counters(cycles, c);

	memset(control, 0, sizeof(*control));
	for (i = 0; i < nr; i++)
		set_counter(control, i, &c[i]);
	control->cpu_control.nractrs = nr;
}

static int open_control(const struct vperfctr_control *control)
{
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0)
		return -1;
	if (sys_vperfctr_control(fd, control)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static int open_exact(bool cycles)
{
	struct vperfctr_control control;

	exact_control(&control, cycles);
	return open_control(&control);
}

/* Counters 0 to @nr - 1 across loop10(@n), read by system call. */
static void measure(int fd, unsigned long n, __u64 *delta, unsigned int nr)
{
	struct perfctr_sum_ctrs a, b;
	unsigned int i;

	if (sys_vperfctr_read(fd, &a, NULL, NULL))
		abort();
	loop10(n);
	if (sys_vperfctr_read(fd, &b, NULL, NULL))
		abort();
	for (i = 0; i < nr; i++)
		delta[i] = b.pmc[i] - a.pmc[i];
}

/* --- The tests ------------------------------------------------------------ */

TEST(loop_counts_exactly_ten_instructions_a_turn)
{
	static const unsigned long turns[] = { 1000, 10000, 100000, 1000000,
					       10000000 };
	__u64 base[3], delta[3];
	struct hw_counter c[3];
	unsigned int i, j, nr;
	int fd;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	nr = loop_counters(true, c);
	fd = open_exact(true);
	ASSERT_LE(0, fd) TH_LOG("vperfctr_open/control: %s%s", strerror(errno),
				busy_hint(errno));
	measure(fd, 0, base, nr);
	for (i = 0; i < ARRAY_SIZE(turns); i++) {
		measure(fd, turns[i], delta, nr);
		for (j = 0; j < nr; j++)
			EXPECT_EQ(10 * turns[i], delta[j] - base[j])
				TH_LOG("%s on %s %#x, N = %lu",
				       event_name[c[j].event],
				       counter_kind(&c[j]), c[j].map,
				       turns[i]);
	}
	/* Run after run, the same. */
	measure(fd, 0, delta, nr);
	for (j = 0; j < nr; j++)
		EXPECT_EQ(base[j], delta[j])
			TH_LOG("%s on %s %#x", event_name[c[j].event],
			       counter_kind(&c[j]), c[j].map);
	close(fd);
}

/*
 * Counter @i from the mapped page, without a system call, as libperfctr
 * reads it; *retries says how often the sequence count sent it round
 * again (the owner was switched out meanwhile), each time a few more
 * instructions.
 */
static __u64 fast_read(const struct vperfctr_state *state, unsigned int i,
		       unsigned int *retries)
{
	const struct perfctr_pmc_state *pmc = &state->cpu_state.pmc[i];
	__u32 seq, width;
	__u64 value;

	*retries = 0;
	for (;;) {
		seq = __atomic_load_n(&state->seq, __ATOMIC_ACQUIRE);
		value = READ_ONCE(pmc->sum);
		if (READ_ONCE(state->flags) & VPERFCTR_STATE_ONCPU) {
			width = READ_ONCE(pmc->width);
			value += (read_live(READ_ONCE(pmc->map)) -
				  READ_ONCE(pmc->start)) & width_mask(width);
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

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	fd = open_exact(false);
	ASSERT_LE(0, fd);
	state = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, state);
	ASSERT_NE(0U, state->flags & VPERFCTR_STATE_RDPMC);
	for (i = 0; i < FAST_READS; i++) {
		loop10(turns[i]);
		fast[i] = fast_read(state, 0, &retries[i]);
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
	fast[0] = fast_read(state, 0, &retries[0]);
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

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
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

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
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
	struct hw_counter cycles;
	struct sigaction sa = {};
	int fd;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));

	fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, fd);
	ovf_fd = fd;
	/* Instructions in a-mode, cycles in i-mode every PERIOD. */
	exact_control(&control, false);
	control.si_signo = SIGIO;
	cycles = cycle_counter();
	set_counter(&control, 1, &cycles);
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

/*
 * Every counter of the machine, general-purpose and fixed, in one
 * control, counting instructions and cycles (and on Intel reference
 * cycles) in turn.  Returns how many.
 */
static unsigned int all_counters(struct hw_counter *c)
{
	unsigned int i, nr = 0;

	for (i = 0; i < pmu.nrctrs && nr < PERFCTR_MAX_NRCTRS; i++)
		c[nr++] = gp_counter(i, gp_event(i));
	for (i = 0; i < nr_exact_fixed() && nr < PERFCTR_MAX_NRCTRS; i++)
		c[nr++] = fixed_counter(i);
	return nr;
}

#define ALL_READS	4

TEST(all_counters_of_the_machine_in_one_control)
{
	static const unsigned long turns[] = { 1000, 10000, 100000, 1000000,
					       10000000 };
	static const unsigned long read_turns[ALL_READS] = {
		0, 1000, 100000, 10 };
	__u64 base[PERFCTR_MAX_NRCTRS], delta[PERFCTR_MAX_NRCTRS];
	__u64 gap[ALL_READS][PERFCTR_MAX_NRCTRS];
	struct hw_counter c[PERFCTR_MAX_NRCTRS];
	const struct vperfctr_state *state;
	struct vperfctr_control control = {};
	struct perfctr_sum_ctrs sum;
	unsigned int i, j, k, nr, retries;
	__u64 fast;
	int fd;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	nr = all_counters(c);
	ASSERT_EQ(pmu.nrctrs + pmu.nrfixed, nr)
		TH_LOG("%u counters and %u fixed, whose events this test knows",
		       pmu.nrctrs, pmu.nrfixed);
	for (i = 0; i < nr; i++)
		set_counter(&control, i, &c[i]);
	control.cpu_control.nractrs = nr;
	fd = open_control(&control);
	ASSERT_LE(0, fd) TH_LOG("vperfctr_open/control, %u counters: %s%s", nr,
				strerror(errno), busy_hint(errno));
	state = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, state);
	ASSERT_NE(0U, state->flags & VPERFCTR_STATE_RDPMC);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(c[i].map, state->cpu_state.pmc[i].map);
		EXPECT_EQ(counter_width(&c[i]), state->cpu_state.pmc[i].width)
			TH_LOG("%s %#x", counter_kind(&c[i]), c[i].map);
	}

	/*
	 * Each counter counts the loop exactly, and all of them count the
	 * same: every event here is one a user-mode instruction.
	 */
	measure(fd, 0, base, nr);
	for (i = 1; i < nr; i++)
		EXPECT_EQ(base[0], base[i])
			TH_LOG("%s on %s %#x", event_name[c[i].event],
			       counter_kind(&c[i]), c[i].map);
	for (k = 0; k < ARRAY_SIZE(turns); k++) {
		measure(fd, turns[k], delta, nr);
		for (i = 0; i < nr; i++)
			EXPECT_EQ(10 * turns[k], delta[i] - base[i])
				TH_LOG("%s on %s %#x, N = %lu",
				       event_name[c[i].event],
				       counter_kind(&c[i]), c[i].map,
				       turns[k]);
	}

	/*
	 * Each counter read fast, then by the system call: the same few
	 * instructions apart, every time.
	 */
	for (k = 0; k < ALL_READS; k++) {
		for (i = 0; i < nr; i++) {
			loop10(read_turns[k]);
			fast = fast_read(state, i, &retries);
			ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
			gap[k][i] = sum.pmc[i] - fast;
		}
	}
	for (i = 0; i < nr; i++) {
		EXPECT_LT(0ULL, gap[0][i]);
		EXPECT_GT(200ULL, gap[0][i])
			TH_LOG("%s %#x", counter_kind(&c[i]), c[i].map);
		for (k = 1; k < ALL_READS; k++)
			EXPECT_EQ(gap[0][i], gap[k][i])
				TH_LOG("%s %#x, N = %lu", counter_kind(&c[i]),
				       c[i].map, read_turns[k]);
	}

	/* Stopped, their sums kept: both read the very same counts. */
	memset(&control, 0, sizeof(control));
	control.preserve = (1u << nr) - 1;
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	for (i = 0; i < nr; i++) {
		fast = fast_read(state, i, &retries);
		EXPECT_EQ(sum.pmc[i], fast)
			TH_LOG("%s %#x", counter_kind(&c[i]), c[i].map);
		/* Never stopped apart: the same count on every counter. */
		EXPECT_EQ(sum.pmc[0], sum.pmc[i])
			TH_LOG("%s %#x", counter_kind(&c[i]), c[i].map);
	}
	for (j = nr; j < PERFCTR_MAX_NRCTRS; j++)
		EXPECT_EQ(0ULL, sum.pmc[j]);
	munmap((void *)state, getpagesize());
	close(fd);
}

/*
 * A counter preset WRAP_EVENTS below its wrap (2^48 on x86), crossing it
 * in the middle of the loop: turns of WRAP_TURNS_1 and WRAP_TURNS_2 both
 * cross it once, and not twice.
 */
#define WRAP_EVENTS	5000000LL
#define WRAP_TURNS_1	600000UL
#define WRAP_TURNS_2	900000UL

/* Set before the counters start, written in the handler. */
static int wrap_fd = -1;
static unsigned int wrap_signals, wrap_bad_code, wrap_mask;
static struct perfctr_sum_ctrs wrap_at_signal;

static void on_wrap(int sig, siginfo_t *si, void *uc)
{
	__atomic_fetch_add(&wrap_signals, 1, __ATOMIC_RELAXED);
	if (si->si_code != SI_PMC_OVF)
		__atomic_fetch_add(&wrap_bad_code, 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&wrap_mask, (unsigned int)si->si_pmc_ovf_mask,
			  __ATOMIC_RELAXED);
	/* Stopped: reading them counts nothing. */
	if (sys_vperfctr_read(wrap_fd, &wrap_at_signal, NULL, NULL) ||
	    sys_vperfctr_iresume(wrap_fd))
		abort();
}

struct wrap_run {
	__u64 loop;			/* counter 0 across the loop */
	unsigned int signals, bad_code, mask;
	struct perfctr_sum_ctrs at_signal, end;
	__u64 start[3], sum[3];		/* the page, just after the control */
};

/*
 * Instructions on counter 0 in a-mode; on counters 1 to @nr - 1, @c[1]
 * and on, in i-mode, preset WRAP_EVENTS below their wrap; then loop10(@n).
 */
static int run_wrap(struct __test_metadata *_metadata, int fd,
		    const struct vperfctr_state *state,
		    const struct hw_counter *c, unsigned int nr,
		    unsigned long n, struct wrap_run *r)
{
	struct vperfctr_control control = {};
	struct perfctr_sum_ctrs a;
	unsigned int i;
	__u32 seq;

	for (i = 0; i < nr; i++) {
		set_counter(&control, i, &c[i]);
		if (i)
			control.cpu_control.ireset[i] = -WRAP_EVENTS;
	}
	control.cpu_control.nractrs = 1;
	control.cpu_control.nrictrs = nr - 1;
	control.si_signo = SIGIO;
	wrap_signals = 0;
	wrap_bad_code = 0;
	wrap_mask = 0;
	if (sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
		return -1;
	}
	do {
		seq = __atomic_load_n(&state->seq, __ATOMIC_ACQUIRE);
		for (i = 1; i < nr; i++) {
			r->start[i] = READ_ONCE(state->cpu_state.pmc[i].start);
			r->sum[i] = READ_ONCE(state->cpu_state.pmc[i].sum);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || seq != READ_ONCE(state->seq));
	if (sys_vperfctr_read(fd, &a, NULL, NULL))
		return -1;
	loop10(n);
	if (sys_vperfctr_read(fd, &r->end, NULL, NULL))
		return -1;
	r->loop = r->end.pmc[0] - a.pmc[0];
	r->signals = READ_ONCE(wrap_signals);
	r->bad_code = READ_ONCE(wrap_bad_code);
	r->mask = READ_ONCE(wrap_mask);
	r->at_signal = wrap_at_signal;
	return 0;
}

TEST(counters_cross_their_wrap_exactly)
{
	static const unsigned long turns[2] = { WRAP_TURNS_1, WRAP_TURNS_2 };
	const struct vperfctr_state *state;
	struct sigaction sa = {};
	struct wrap_run run[2];
	struct hw_counter c[3];
	unsigned int i, k, nr = 0;
	__u64 mask;
	int fd;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	/*
	 * Counter 0 counts instructions in a-mode; general-purpose counter
	 * 1 and a fixed counter (x86: Intel's instructions; arm64: the
	 * cycle counter), where there is one, cross their wrap in i-mode.
	 */
	c[nr++] = gp_counter(0, INSNS);
	c[nr++] = gp_counter(1, INSNS);
	if (fixed_insns_counter(&c[nr]))
		nr++;
	else if (nr_exact_fixed())
		c[nr++] = fixed_counter(0);

	sa.sa_sigaction = on_wrap;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, fd);
	wrap_fd = fd;
	state = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, state);
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, run_wrap(_metadata, fd, state, c, nr, turns[k],
				      &run[k]));
	close(fd);
	signal(SIGIO, SIG_DFL);

	for (k = 0; k < 2; k++) {
		/* One wrap, one signal, for every i-mode counter at once. */
		EXPECT_EQ(1U, run[k].signals) TH_LOG("N = %lu", turns[k]);
		EXPECT_EQ(0U, run[k].bad_code);
		EXPECT_EQ((1u << nr) - 2, run[k].mask)
			TH_LOG("N = %lu", turns[k]);
		for (i = 1; i < nr; i++) {
			/*
			 * Started WRAP_EVENTS below the wrap of a counter of
			 * its width, less what it counted before the page
			 * was read.
			 */
			mask = width_mask(counter_width(&c[i]));
			EXPECT_EQ(counter_width(&c[i]),
				  state->cpu_state.pmc[i].width)
				TH_LOG("%s %#x", counter_kind(&c[i]), c[i].map);
			EXPECT_EQ((-WRAP_EVENTS + run[k].sum[i]) & mask,
				  run[k].start[i])
				TH_LOG("%s %#x, N = %lu", counter_kind(&c[i]),
				       c[i].map, turns[k]);
			/*
			 * At the signal, past the wrap, it had counted the
			 * very instructions the a-mode counter counted.
			 */
			EXPECT_LE((__u64)WRAP_EVENTS, run[k].at_signal.pmc[i])
				TH_LOG("%s %#x, N = %lu", counter_kind(&c[i]),
				       c[i].map, turns[k]);
			EXPECT_EQ(run[k].at_signal.pmc[0],
				  run[k].at_signal.pmc[i])
				TH_LOG("%s %#x, N = %lu", counter_kind(&c[i]),
				       c[i].map, turns[k]);
			/* And so after its restart, to the end. */
			EXPECT_EQ(run[k].end.pmc[0], run[k].end.pmc[i])
				TH_LOG("%s %#x, N = %lu", counter_kind(&c[i]),
				       c[i].map, turns[k]);
		}
	}
	/* Across the wrap and its signal, the loop counted exactly. */
	EXPECT_EQ(10 * (WRAP_TURNS_2 - WRAP_TURNS_1),
		  run[1].loop - run[0].loop);
	EXPECT_LT(10 * WRAP_TURNS_1, run[0].loop);
	munmap((void *)state, getpagesize());
}

/* --- Two CPUs ------------------------------------------------------------- */

/* The first two CPUs this thread may run on, in @cpu; false if fewer. */
static bool two_cpus(int cpu[2])
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[n++] = i;
	return n == 2;
}

static int pin_task(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

/* The CPU thread @tid of this process last ran on, or -1. */
static int task_cpu(pid_t tid)
{
	char path[64], buf[1024], *p;
	int i, cpu = -1;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	/* Field 39, "processor"; the fields after the name start at 3. */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 39; i++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%d", &cpu) != 1)
		cpu = -1;
	return cpu;
}

/* A child that spins in user mode on @cpu until killed; its pid. */
static pid_t spin_on(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pin_task(0, cpu))
			_exit(1);
		for (;;)
			loop10(1000);
	}
	return pid;
}

static void stop_spinner(pid_t pid)
{
	int status;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

/* Moves thread @tid to the other of @cpu[2] every MOVE_US until @stop. */
#define MOVE_US		2000

struct mover {
	pid_t tid;
	int cpu[2];
	int stop;
	unsigned int moves, seen;	/* seen: a bit per CPU of cpu[] */
	int err;
};

static void *mover_fn(void *arg)
{
	struct mover *m = arg;
	int next = 0, at;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		if (pin_task(m->tid, m->cpu[next])) {
			m->err = errno;
			break;
		}
		m->moves++;
		next ^= 1;
		usleep(MOVE_US);
		at = task_cpu(m->tid);
		if (at == m->cpu[0] || at == m->cpu[1])
			m->seen |= 1u << (at == m->cpu[1]);
	}
	return NULL;
}

/*
 * A thread moved from CPU to CPU while it runs its loop, each counter
 * suspended on one CPU and resumed on the other dozens of times, counts
 * it as exactly as a thread that stays put.
 */
TEST(a_thread_moved_between_cpus_counts_exactly)
{
	__u64 base[3], delta[3];
	struct hw_counter c[3];
	struct mover m = {};
	unsigned int i, nr;
	pthread_t t;
	int fd;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	if (!two_cpus(m.cpu))
		SKIP(return, "this test moves a thread between two CPUs");
	nr = loop_counters(true, c);
	fd = open_exact(true);
	ASSERT_LE(0, fd) TH_LOG("%s%s", strerror(errno), busy_hint(errno));
	ASSERT_EQ(0, pin_task(0, m.cpu[0]));
	measure(fd, 0, base, nr);

	m.tid = syscall(SYS_gettid);
	ASSERT_EQ(0, pthread_create(&t, NULL, mover_fn, &m));
	measure(fd, 10000000, delta, nr);
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, m.err) TH_LOG("sched_setaffinity: %s", strerror(m.err));
	/* It did move, and ran on both. */
	EXPECT_LE(10U, m.moves);
	EXPECT_EQ(3U, m.seen) TH_LOG("%u moves", m.moves);
	for (i = 0; i < nr; i++)
		EXPECT_EQ(100000000ULL, delta[i] - base[i])
			TH_LOG("%s on %s %#x, %u moves", event_name[c[i].event],
			       counter_kind(&c[i]), c[i].map, m.moves);
	close(fd);
}

/*
 * An interrupt-mode counter a few thousand instructions from its
 * overflow, in user mode only, while its thread spends millions of
 * instructions in the kernel with the counter loaded, and the other CPU
 * is busy: the overflow due holds up neither CPU, and when the thread is
 * back in user mode it comes where it is due, every period.
 */
#define DUE_PERIOD	2000ULL
#define POPULATE_BYTES	(64UL << 20)
#define POPULATES	4

TEST(an_overflow_due_in_a_long_system_call_holds_up_no_cpu)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	struct sigaction sa = {};
	struct hw_counter insns;
	int cpu[2], fd, i;
	unsigned int signals;
	pid_t spinner;
	void *p;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	if (!two_cpus(cpu))
		SKIP(return, "this test keeps the other CPU busy");
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	spinner = spin_on(cpu[0]);
	ASSERT_LT(0, spinner);
	ASSERT_EQ(0, pin_task(0, cpu[1]));

	fd = sys_vperfctr_open(0, 1);
	ASSERT_LE(0, fd);
	ovf_fd = fd;
	ovf_signals = 0;
	ovf_bad_code = 0;
	ovf_bad_mask = 0;
	/* Instructions in a-mode; instructions in i-mode every DUE_PERIOD. */
	exact_control(&control, false);
	control.si_signo = SIGIO;
	insns = gp_counter(1, INSNS);
	set_counter(&control, 1, &insns);
	control.cpu_control.ireset[1] = -(__s64)DUE_PERIOD;
	control.cpu_control.nrictrs = 1;
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s%s", strerror(errno),
		       busy_hint(errno));
	}
	/*
	 * Well under DUE_PERIOD user-mode instructions from the control to
	 * the first mmap(), whose kernel clears 64 MiB of pages.
	 */
	for (i = 0; i < POPULATES; i++) {
		p = mmap(NULL, POPULATE_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED || munmap(p, POPULATE_BYTES))
			break;
	}
	signals = READ_ONCE(ovf_signals);
	loop10(10 * DUE_PERIOD);
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	stop_spinner(spinner);
	EXPECT_EQ(POPULATES, i) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(0U, signals) TH_LOG("an overflow before its period");
	/*
	 * Every period overflowed: the handler restarts the counter, which
	 * counts exactly DUE_PERIOD to each overflow, then what the loop has
	 * left.
	 */
	EXPECT_LE(10U, READ_ONCE(ovf_signals));
	EXPECT_EQ((__u64)READ_ONCE(ovf_signals), sum.pmc[1] / DUE_PERIOD)
		TH_LOG("%llu counted", (unsigned long long)sum.pmc[1]);
	EXPECT_EQ(0U, READ_ONCE(ovf_bad_code));
	EXPECT_EQ(0U, READ_ONCE(ovf_bad_mask));
	close(fd);
	signal(SIGIO, SIG_DFL);
}

/*
 * perf's overflows, counted to the instruction as perfctr's: perf's
 * sampling event of user-mode cycles with period P over K and a half
 * periods signals exactly K times, before and after a perfctr control
 * with an interrupt-mode cycle counter signalled exactly its own, on the
 * same counters and through the same interrupt (the NMI on x86), each
 * side's handler claiming its own overflows only.  Cycles, one per
 * instruction on these PMUs: QEMU's arm64 PMU raises only the cycle
 * counter's overflow interrupt at the instruction, an event counter's
 * late.
 * The two cannot hold the hardware counters at once (each is EBUSY to
 * the other, vperfctr_share): at once, perf samples a software clock in
 * one process while perfctr's interrupt-mode counter runs in another.
 */
static unsigned int perf_signals;

static void on_perf_signal(int sig)
{
	__atomic_fetch_add(&perf_signals, 1, __ATOMIC_RELAXED);
}

/* perf_open(), its every sample signalled with SIGRTMIN, queued. */
static int perf_sampling(__u32 type, __u64 config, __u64 period)
{
	int fd = perf_open(type, config, period);

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, SIGRTMIN) ||
	    fcntl(fd, F_SETFL, O_ASYNC)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* perf's signals over PERIODS and a half periods of PERIOD cycles. */
static int perf_periods(void)
{
	int fd;

	perf_signals = 0;
	fd = perf_sampling(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			   PERIOD);
	if (fd < 0)
		return -1;
	loop10((PERIODS * PERIOD + PERIOD / 2) / 10);
	close(fd);
	return READ_ONCE(perf_signals);
}

/* perfctr's signals over the same, and its i-mode counter's sum. */
static int perfctr_periods(__u64 *counted)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	struct hw_counter cycles;
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0)
		return -1;
	ovf_fd = fd;
	ovf_signals = 0;
	ovf_bad_code = 0;
	ovf_bad_mask = 0;
	exact_control(&control, false);
	control.si_signo = SIGIO;
	cycles = cycle_counter();
	set_counter(&control, 1, &cycles);
	control.cpu_control.ireset[1] = -(__s64)PERIOD;
	control.cpu_control.nrictrs = 1;
	if (sys_vperfctr_control(fd, &control) ||
	    (loop10((PERIODS * PERIOD + PERIOD / 2) / 10),
	     sys_vperfctr_read(fd, &sum, NULL, NULL))) {
		close(fd);
		return -1;
	}
	/* Unlinked: perf may take the counters back. */
	sys_vperfctr_unlink(fd);
	close(fd);
	*counted = sum.pmc[1];
	return READ_ONCE(ovf_bad_code) || READ_ONCE(ovf_bad_mask) ? -1 :
	       (int)READ_ONCE(ovf_signals);
}

TEST(perf_and_perfctr_overflows_each_reach_only_their_own)
{
	struct sigaction sa = {};
	int n, cpu[2], pipefd[2];
	__u64 counted;
	pid_t pid;
	char c;

	if (no_exact_pmu())
		SKIP(return, "%s", no_exact_pmu());
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO;
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	ASSERT_NE(SIG_ERR, signal(SIGRTMIN, on_perf_signal));

	n = perf_periods();
	ASSERT_LE(0, n) TH_LOG("perf_event_open: %s", strerror(errno));
	EXPECT_EQ((int)PERIODS, n) TH_LOG("perf, before perfctr");
	n = perfctr_periods(&counted);
	ASSERT_LE(0, n) TH_LOG("perfctr: %s%s", strerror(errno),
			       busy_hint(errno));
	EXPECT_EQ((int)PERIODS, n) TH_LOG("perfctr");
	EXPECT_EQ(PERIODS, counted / PERIOD);
	n = perf_periods();
	EXPECT_EQ((int)PERIODS, n) TH_LOG("perf, after perfctr");

	/* At once: perf's software clock in a child, on the other CPU. */
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (two_cpus(cpu))
			pin_task(0, cpu[0]);
		perf_signals = 0;
		fd = perf_sampling(PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_TASK_CLOCK, 1000000);
		if (fd < 0)
			_exit(2);
		/* Sampled, spinning, until the parent is done. */
		close(pipefd[1]);
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
		while (read(pipefd[0], &c, 1) < 0)
			loop10(100000);
		_exit(READ_ONCE(perf_signals) ? 0 : 3);
	}
	close(pipefd[0]);
	if (two_cpus(cpu))
		ASSERT_EQ(0, pin_task(0, cpu[1]));
	n = perfctr_periods(&counted);
	close(pipefd[1]);
	EXPECT_EQ((int)PERIODS, n) TH_LOG("perfctr, perf sampling at once");
	EXPECT_EQ(PERIODS, counted / PERIOD);
	ASSERT_EQ(pid, waitpid(pid, &n, 0));
	EXPECT_TRUE(WIFEXITED(n) && WEXITSTATUS(n) == 0)
		TH_LOG("perf's side: status %#x", n);
	signal(SIGIO, SIG_DFL);
	signal(SIGRTMIN, SIG_DFL);
}

TEST_HARNESS_MAIN
