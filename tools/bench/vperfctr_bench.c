// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_bench: what perfctr's counters cost, next to what perf's cost,
 * measured side by side in one run.
 *
 * Two units:
 *
 * - With --instructions, on a machine whose clock counts retired
 *   instructions (under -icount shift=0 QEMU retires one instruction per
 *   virtual nanosecond: its arm64 virt machine, and the project's x86
 *   PMU model with one CPU, whose TSC then counts the instructions),
 *   every cost is printed in instructions, each side's and their ratio;
 *   on x86, also the MSR accesses the kernel makes, each side's.  The
 *   figures are exact: a single operation is timed in windows too short
 *   to hold a timer tick, and the shortest of several is taken, so every
 *   boot gives the same figures.  Round trips and forks are timed over several ticks
 *   and the median is taken, tick and timer costs included: they move
 *   by a few percent from boot to boot.
 * - Otherwise (a real machine, or TCG without -icount) the clock is a
 *   clock, and only ratios taken in one run compare like with like: each side
 *   is timed RUNS times, the sides taking turns, and the figure is the
 *   median of the RUNS ratios with half their interquartile range.
 *
 * The benchmark measures only what it names:
 *
 * - A single operation's loop is timed next to the same loop without the
 *   operation, and that time is subtracted.
 * - perf keeps its scheduler hooks on for about a second after its last
 *   per-task event closes (perf_sched_events is dropped by delayed
 *   work): every side without perf runs only after a pause longer than
 *   that, and before any perf side of the same figure.
 * - Forks free the child's task and counters after an RCU grace period:
 *   before every timed block of forks the machine idles long enough for
 *   the previous block's deferred frees to run, so they land in no other
 *   side's time.  The blocks are short (about 4 ms of instructions) and
 *   many (15 a side), the sides taking turns: with 5 blocks of 16 ms, the
 *   fork figures moved with whatever ran before them in the boot, by up
 *   to 15 times for one overhead; with these they agree to 2%.
 *
 * The whole program runs pinned to one CPU, the last one: the single
 * operations never migrate, the two processes of the pipe ping-pong take
 * turns on that CPU, so that each round trip is two context switches,
 * and a forked child runs where its parent waits for it.
 *
 * Run it as root, or where perf_event_paranoid lets a thread count
 * itself in kernel mode: the perf figures need perf_event_open().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <libperfctr.h>

#include "bench.h"

#define MACRO_NS	300000000.0	/* ratio mode: round trips, forks */

#define SWITCH_INSNS	8000000.0	/* one timing of round trips */
#define FORK_INSNS	4000000.0	/* one timing of forks */
#define MAX_PERF	8		/* perf events of one side */
#define FORK_REPS	15

/* perf_sched_events stays up this long after the last event closes. */
#define PERF_SCHED_PAUSE_NS	1500000000L
/* Long enough for the deferred frees of a block of forks to run. */
#define RCU_PAUSE_NS		200000000L

/*
 * The targets on instruction counts (insn_targets) are judged on arm64
 * only; on the x86 model the bench checks those on MSR accesses, and the
 * two that hold on any machine (a thread without counters pays nothing;
 * the system call is no dearer than perf's read()), and prints the rest
 * without judging them.
 */

/* The clock read the fast read makes: on arm64, the generic timer. */
static inline unsigned long long rdtsc(void)
{
#if defined(__aarch64__)
	unsigned long long tsc;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r" (tsc) :: "memory");
	return tsc;
#else
	unsigned int lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return ((unsigned long long)hi << 32) | lo;
#endif
}

/*
 * The bench's clock.  In --instructions mode on x86, the TSC itself:
 * under QEMU's -icount it counts exactly the instructions retired, one a
 * tick (the kernel's clock, calibrated from it, may be a few parts per
 * million off); on arm64 the kernel's clock, whose generic timer counts
 * instructions too.
 */
static double now_ns(void)
{
#if defined(__x86_64__)
	if (insn_mode)
		return rdtsc();
#endif
	return monotonic_ns();
}

/* --- Counters, ours and perf's ------------------------------------------ */

/*
 * What a process counts on one side of a figure.  perfctr's usual set
 * is the TSC, cycles (context switches where the machine has no PMU)
 * and task-clock; perf's is task-clock and context switches, perf having
 * no TSC event.  @nrhw > 0 asks for the TSC and that many hardware
 * counters instead: cycles, then instructions (perf: those hardware
 * events, each opened alone, as perf stat opens them).  @faults adds user-mode
 * page faults to the usual set, for the read figures only: the switch
 * and fork figures count the set their targets name, and perf's side
 * counts no faults.
 */
enum kind { KIND_NONE, KIND_VPERFCTR, KIND_PERF };

struct counting {
	enum kind kind;
	int nrhw;
	int inherit;			/* perf: children inherit the events */
	int faults;			/* perfctr: page faults too */
	int fifo;			/* round trips: both SCHED_FIFO */
};

struct counters {
	struct vperfctr *vperfctr;
	int task_clock;			/* index of task-clock, or -1 */
	int cycles;			/* index of the first hw counter, or -1 */
	int faults;			/* index of page-faults, or -1 */
	int perf_fd[MAX_PERF];
};

static struct perfctr_info info;
static int have_pmu;			/* the machine's PMU can count */

/* Why perf could not be used, for the table; empty while it could. */
static char perf_failure[160];

static void perf_failed(int err)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid;

	if (f && fscanf(f, "%d", &paranoid) == 1)
		snprintf(perf_failure, sizeof(perf_failure),
			 "perf_event_open: %s (perf_event_paranoid %d)",
			 strerror(err), paranoid);
	else
		snprintf(perf_failure, sizeof(perf_failure),
			 "perf_event_open: %s (no perf_event_paranoid: a kernel without perf events?)",
			 strerror(err));
	if (f)
		fclose(f);
	errno = err;
}

static int perf_open_type(unsigned int type, unsigned long long config,
			  int inherit)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.inherit = inherit;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0 && !perf_failure[0])
		perf_failed(errno);
	return fd;
}

static int perf_open(unsigned long long config, int inherit)
{
	return perf_open_type(PERF_TYPE_SOFTWARE, config, inherit);
}

/* Leave the thread without counters, as it was: nothing to inherit. */
static void counters_stop(struct counters *c)
{
	int i;

	if (c->vperfctr) {
		vperfctr_unlink(c->vperfctr);
		vperfctr_close(c->vperfctr);
	}
	for (i = 0; i < MAX_PERF; i++) {
		if (c->perf_fd[i] >= 0)
			close(c->perf_fd[i]);
		c->perf_fd[i] = -1;
	}
	c->vperfctr = NULL;
}

/* Add the named event to @control; its index, or -1. */
static int add_event(struct vperfctr_control *control, const char *name)
{
	struct perfctr_event_spec event;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	int i;

	if (perfctr_event_parse(&event, name, &info, err, sizeof(err)) < 0 ||
	    (i = perfctr_event_add(control, &event, &info, err,
				   sizeof(err))) < 0) {
		fprintf(stderr, "vperfctr_bench: %s: %s\n", name, err);
		return -1;
	}
	return i;
}

/* The control of one side; 0, or -1. */
static int vperfctr_setup(struct vperfctr_control *control,
			  struct counters *c, int nrhw, int faults)
{
	int i;

	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = 1;
	c->task_clock = c->cycles = c->faults = -1;
	if (nrhw) {
		for (i = 0; i < nrhw; i++) {
			int k = add_event(control, i ? "instructions" : "cycles");

			if (k < 0)
				return -1;
			if (!i)
				c->cycles = k;
		}
		return 0;
	}
	if (have_pmu) {
		c->cycles = add_event(control, "cycles");
		if (c->cycles < 0)
			return -1;
	} else if (vperfctr_control_add_sw(control,
					   PERFCTR_SW_CONTEXT_SWITCHES, 0) < 0) {
		return -1;
	}
	c->task_clock = vperfctr_control_add_sw(control, PERFCTR_SW_TASK_CLOCK,
						0);
	if (faults)
		c->faults = vperfctr_control_add_sw(control,
						    PERFCTR_SW_PAGE_FAULTS,
						    PERFCTR_SW_USR);
	return c->task_clock < 0 || (faults && c->faults < 0) ? -1 : 0;
}

static int start_vperfctr(struct counters *c, int nrhw, int faults)
{
	struct vperfctr_control control;

	c->vperfctr = vperfctr_open();
	if (!c->vperfctr) {
		perror("vperfctr_bench: vperfctr_open");
		return -1;
	}
	if (vperfctr_setup(&control, c, nrhw, faults) < 0 ||
	    vperfctr_control(c->vperfctr, &control) < 0) {
		perror("vperfctr_bench: vperfctr_control");
		return -1;
	}
	return 0;
}

static int counters_start(struct counters *c, const struct counting *how)
{
	int ok = 1, i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < MAX_PERF; i++)
		c->perf_fd[i] = -1;
	if (how->kind == KIND_VPERFCTR) {
		ok = start_vperfctr(c, how->nrhw, how->faults) == 0;
	} else if (how->kind == KIND_PERF && how->nrhw) {
		/* perfctr's hardware events: cycles, then instructions. */
		for (i = 0; i < how->nrhw && i < MAX_PERF && ok; i++) {
			c->perf_fd[i] = perf_open_type(PERF_TYPE_HARDWARE,
				i ? PERF_COUNT_HW_INSTRUCTIONS :
				    PERF_COUNT_HW_CPU_CYCLES, how->inherit);
			ok = c->perf_fd[i] >= 0;
		}
	} else if (how->kind == KIND_PERF) {
		c->perf_fd[0] = perf_open(PERF_COUNT_SW_TASK_CLOCK,
					  how->inherit);
		c->perf_fd[1] = perf_open(PERF_COUNT_SW_CONTEXT_SWITCHES,
					  how->inherit);
		ok = c->perf_fd[0] >= 0 && c->perf_fd[1] >= 0;
	}
	if (!ok)
		counters_stop(c);
	return ok ? 0 : -1;
}

/*
 * Does the fast read have a page to read from, showing the counters
 * live, hardware ones with user-mode reads?  The library falls back to
 * the system call silently; without this check the fast read figures
 * could be measuring that.
 */
static int fast_read_is_mapped(const struct vperfctr *vperfctr)
{
	long size = sysconf(_SC_PAGESIZE);
	const struct vperfctr_state *state;
	unsigned int flags, want = VPERFCTR_STATE_ONCPU;
	int ok;

	state = mmap(NULL, size, PROT_READ, MAP_SHARED, vperfctr_fd(vperfctr),
		     0);
	if (state == MAP_FAILED)
		return 0;
	if (have_pmu)
		want |= VPERFCTR_STATE_RDPMC;
	flags = __atomic_load_n(&state->flags, __ATOMIC_RELAXED);
	ok = state->magic == VPERFCTR_STATE_MAGIC && (flags & want) == want;
	munmap((void *)state, size);
	return ok;
}

/* --- Timing -------------------------------------------------------------- */

/* Ratio mode: the median ratio of two sides, run by run, and its spread. */
static double ratio_spread(const struct side *num, const struct side *den,
			   double *spread)
{
	double q[RUNS];
	int r, reps = num->reps;

	for (r = 0; r < reps; r++)
		q[r] = (num->op[r] - num->loop[r]) / num->n /
		       ((den->op[r] - den->loop[r]) / den->n);
	qsort(q, reps, sizeof(q[0]), cmp_double);
	*spread = (q[reps - 1 - reps / 4] - q[reps / 4]) / 2 / q[reps / 2];
	return q[reps / 2];
}

/* --- Printing ------------------------------------------------------------ */

static const char *fmt_cost(char *buf, size_t size, double x)
{
	if (insn_mode)
		snprintf(buf, size, "%.0f", x);
	else if (x < 1000)
		snprintf(buf, size, "%.3g ns", x);
	else if (x < 1e6)
		snprintf(buf, size, "%.3g us", x / 1e3);
	else
		snprintf(buf, size, "%.3g ms", x / 1e6);
	return buf;
}

static const char *fmt_ratio(char *buf, size_t size, double x)
{
	snprintf(buf, size, x < 10 ? "%.2fx" : x < 100 ? "%.1fx" : "%.0fx", x);
	return buf;
}

#define MAX_TARGETS	32
static char targets[MAX_TARGETS][200];
static int nr_targets, targets_missed;

static void target(const char *what, int met, const char *how)
{
	if (nr_targets == MAX_TARGETS)
		return;
	targets_missed += !met;
	snprintf(targets[nr_targets++], sizeof(targets[0]),
		 "target: %-46s %s (%s)", what, met ? "met" : "NOT met", how);
}

/* "at most @max": met or not, with the figure. */
static void target_max(const char *what, double cost, double max)
{
	int met = rounded(cost) <= max;
	char how[64];

	snprintf(how, sizeof(how), "%.0f %s %.0f", rounded(cost),
		 met ? "<=" : ">", max);
	target(what, met, how);
}

/*
 * One line: "label   perfctr   peer   ratio".  Without a peer (NULL),
 * only perfctr's cost.
 */
static void line(const char *label, double ours, const char *peer_name,
		 double peer)
{
	char a[32], b[32], r[16];

	fmt_cost(a, sizeof(a), ours);
	if (!peer_name) {
		printf("  %-44s %10s\n", label, a);
		return;
	}
	fmt_cost(b, sizeof(b), peer);
	printf("  %-44s %10s   %-22s %10s   %s\n", label, a, peer_name, b,
	       peer > 0 ? fmt_ratio(r, sizeof(r), rounded(ours) / rounded(peer)) :
	       "-");
}

/* --- Single operations --------------------------------------------------- */

struct self {
	struct counters counters;
	int perf_fd;			/* a perf task-clock event of ours */
	int index;			/* the counter read_pmc() reads */
};

/*
 * The handle and the counter's index are in registers, as in a program
 * that reads in a loop, not reloaded from *self at every read.
 */
#define READ_LOOP(name, expr)						\
static double name(long n, void *arg)					\
{									\
	struct self *self = arg;					\
	struct vperfctr *v = self ? self->counters.vperfctr : NULL;	\
	unsigned int index = self ? self->index : 0;			\
	unsigned long long acc = 0;					\
	double t;							\
	long i;								\
									\
	(void)v;							\
	(void)index;							\
	t = now_ns();							\
	for (i = 0; i < n; i++)						\
		acc += (expr);						\
	t = now_ns() - t;						\
	sink = acc;							\
	return t;							\
}

READ_LOOP(run_empty, opaque())
READ_LOOP(run_rdtsc, rdtsc())
READ_LOOP(run_read_tsc, vperfctr_read_tsc(v))
READ_LOOP(run_read_pmc, vperfctr_read_pmc(v, index))

static double run_read_ctrs(long n, void *arg)
{
	struct self *self = arg;
	struct vperfctr *v = self->counters.vperfctr;
	struct perfctr_sum_ctrs sum;
	unsigned long long acc = 0;
	double t;
	long i;

	t = now_ns();
	for (i = 0; i < n; i++) {
		if (vperfctr_read_ctrs(v, &sum) < 0)
			return -1;
		acc += sum.pmc[0];
	}
	t = now_ns() - t;
	sink = acc;
	return t;
}

static double run_read_ctrs_empty(long n, void *arg)
{
	unsigned long long acc = 0;
	double t;
	long i;

	(void)arg;
	t = now_ns();
	for (i = 0; i < n; i++) {
		if ((long long)opaque() < 0)
			return -1;
		acc += opaque();
	}
	t = now_ns() - t;
	sink = acc;
	return t;
}

static double run_perf_read(long n, void *arg)
{
	const struct self *self = arg;
	unsigned long long value, acc = 0;
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		if (read(self->perf_fd, &value, sizeof(value)) != sizeof(value))
			return -1;
		acc += value;
	}
	t = now_ns() - t;
	sink = acc;
	return t;
}

static double run_vperfctr_read(long n, void *arg)
{
	const struct self *self = arg;
	int fd = vperfctr_fd(self->counters.vperfctr);
	struct perfctr_sum_ctrs sum;
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++)
		if (_vperfctr_read(fd, &sum, NULL, NULL) < 0)
			return -1;
	t = now_ns() - t;
	sink = sum.tsc;
	return t;
}

static double run_getpid(long n, void *arg)
{
	double t = now_ns();
	long i;

	(void)arg;
	for (i = 0; i < n; i++)
		sink = syscall(SYS_getpid);
	return now_ns() - t;
}

static double run_syscall_empty(long n, void *arg)
{
	double t = now_ns();
	long i;

	(void)arg;
	for (i = 0; i < n; i++)
		sink = opaque();
	return now_ns() - t;
}

static struct side read_side(const char *name,
			     double (*run)(long, void *),
			     double (*empty)(long, void *), void *arg)
{
	struct side s = { .name = name, .run = run, .empty = empty,
			  .arg = arg };

	return s;
}

/* Measure one or two sides of single operations. */
static int single(struct side *sides, int count)
{
	if (measure_single(sides, count) < 0) {
		fprintf(stderr, "vperfctr_bench: %s: %s\n", sides[0].name,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* A perfctr read next to its peer: one line, and the ratio's spread. */
/* The peer's cost in the last pair(). */
static double rdtsc_cost;

static int pair(const char *label, struct side ours, struct side peer,
		const char *peer_name, double *cost)
{
	struct side sides[2] = { ours, peer };
	char r[16], sp[16];
	double spread;

	if (single(sides, 2) < 0)
		return -1;
	*cost = sides[0].cost;
	rdtsc_cost = sides[1].cost;
	if (insn_mode) {
		line(label, sides[0].cost, peer_name, sides[1].cost);
	} else {
		double q = ratio_spread(&sides[0], &sides[1], &spread);

		snprintf(sp, sizeof(sp), "+-%.0f%%", spread * 100);
		line(label, sides[0].cost, peer_name, sides[1].cost);
		printf("  %-44s %10s %s\n", "", fmt_ratio(r, sizeof(r), q), sp);
	}
	return 0;
}

static int one(const char *label, struct side ours, double *cost)
{
	if (single(&ours, 1) < 0)
		return -1;
	*cost = ours.cost;
	line(label, ours.cost, NULL, 0);
	return 0;
}

static int self_start(struct self *self, int nrhw)
{
	struct counting how = { .kind = KIND_VPERFCTR, .nrhw = nrhw,
				.faults = !nrhw };

	if (counters_start(&self->counters, &how) < 0)
		return -1;
	if (!fast_read_is_mapped(self->counters.vperfctr))
		printf("  note: the state page is not mapped or not live: the fast read is the system call\n");
	return 0;
}

static int bench_reads(void)
{
	struct self self = { .perf_fd = -1 };
	struct side empty = read_side("empty", run_empty, NULL, NULL);
	double c, perf_cost = -1, peer, task_clock_cost;
	char what[80];
	int k, err = -1;
	static const int nrhw[] = { 1, 2, 4, 6 };

	printf("\nReads, per read%s:\n", insn_mode ? ", in instructions" : "");
	printf("  %-44s %10s   %-22s %10s   %s\n", "", "perfctr", "peer", "",
	       "ratio");
	if (self_start(&self, 0) < 0)
		return -1;

	if (pair("vperfctr_read_tsc()",
		 read_side("read_tsc", run_read_tsc, run_empty, &self),
		 read_side("rdtsc", run_rdtsc, run_empty, NULL),
		 insn_mode ? "bare clock read" : "bare rdtsc", &c) < 0)
		goto out;
	if (insn_targets) {
		target_max("vperfctr_read_tsc() <= 20 instructions", c, 20);
	} else if (!insn_mode) {
		snprintf(what, sizeof(what), "%.2fx", c / rdtsc_cost);
		target("fast read_tsc() <= 1.5x rdtsc", c <= 1.5 * rdtsc_cost,
		       what);
	}
	if (have_pmu) {
		self.index = self.counters.cycles;
		if (pair("vperfctr_read_pmc(), the cycle counter",
			 read_side("read_pmc", run_read_pmc, run_empty, &self),
			 empty, NULL, &c) < 0)
			goto out;
		if (insn_targets)
			target_max("vperfctr_read_pmc(), cycles <= 25", c, 25);
	}
	self.index = self.counters.task_clock;
	if (one("vperfctr_read_pmc(), task-clock",
		read_side("read_pmc", run_read_pmc, run_empty, &self), &c) < 0)
		goto out;
	if (insn_targets)
		target_max("vperfctr_read_pmc(), task-clock <= 35", c, 35);
	task_clock_cost = c;
	self.index = self.counters.faults;
	if (one("vperfctr_read_pmc(), page-faults",
		read_side("read_pmc", run_read_pmc, run_empty, &self), &c) < 0)
		goto out;
	if (insn_targets)
		target_max("vperfctr_read_pmc(), page-faults <= 20", c, 20);

	/* The system calls, beside perf's read() of one event. */
	if (perf_failure[0]) {
		printf("  perf read() not measured: %s\n", perf_failure);
	} else {
		self.perf_fd = perf_open(PERF_COUNT_SW_TASK_CLOCK, 0);
		if (self.perf_fd < 0)
			goto out;
	}
	{
		struct side sides[3] = {
			read_side("vperfctr_read", run_vperfctr_read,
				  run_syscall_empty, &self),
			read_side("getpid", run_getpid, run_syscall_empty,
				  NULL),
			read_side("perf read", run_perf_read,
				  run_syscall_empty, &self),
		};
		int count = perf_failure[0] ? 2 : 3;

		if (single(sides, count) < 0)
			goto out;
		c = sides[0].cost;
		peer = count == 3 ? sides[2].cost : -1;
		perf_cost = peer;
		line(have_pmu ? "vperfctr_read(), TSC + cycles + task-clock" :
			"vperfctr_read(), TSC + task-clock + cs", c,
		     count == 3 ? "perf read(), task-clock" : "getpid()",
		     count == 3 ? peer : sides[1].cost);
		line("getpid()", sides[1].cost, NULL, 0);
	}
	if (!insn_mode && perf_cost >= 0) {
		snprintf(what, sizeof(what), "%.0fx",
			 perf_cost / task_clock_cost);
		target("perf read() >= 50x fast read_pmc()",
		       perf_cost >= 50 * task_clock_cost, what);
	}
	if (insn_mode) {
		if (insn_targets)
			target_max("vperfctr_read() <= 600 instructions", c,
				   600);
		if (perf_cost >= 0)
			target_max("vperfctr_read() <= perf read()", c,
				   rounded(perf_cost));
		else
			target("vperfctr_read() <= perf read()", 0,
			       "perf not measured");
	}
	if (self.perf_fd >= 0)
		close(self.perf_fd);
	self.perf_fd = -1;
	counters_stop(&self.counters);

	if (!have_pmu) {
		err = 0;
		goto out;
	}
	/* read_ctrs() as the control grows. */
	for (k = 0; k < 4; k++) {
		if (self_start(&self, nrhw[k]) < 0)
			goto out;
		snprintf(what, sizeof(what),
			 "vperfctr_read_ctrs(), TSC + %d counter%s", nrhw[k],
			 nrhw[k] > 1 ? "s" : "");
		if (one(what, read_side("read_ctrs", run_read_ctrs,
					run_read_ctrs_empty, &self), &c) < 0)
			goto out;
		if (insn_targets) {
			char t[80];

			snprintf(t, sizeof(t), "vperfctr_read_ctrs(), %d <= 30 + 15 x %d",
				 nrhw[k], nrhw[k]);
			target_max(t, c, 30 + 15 * nrhw[k]);
		}
		if (k == 3) {
			self.index = 1;
			if (one("vperfctr_read_pmc(), an event counter",
				read_side("read_pmc", run_read_pmc, run_empty,
					  &self), &c) < 0)
				goto out;
			if (insn_targets)
				target_max("vperfctr_read_pmc(), event counter <= 25",
					   c, 25);
		}
		counters_stop(&self.counters);
	}
	err = 0;
out:
	if (self.perf_fd >= 0)
		close(self.perf_fd);
	counters_stop(&self.counters);
	return err;
}

/* --- Processes ----------------------------------------------------------- */

static int put(int fd)
{
	char c = 0;

	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int get(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * SCHED_FIFO for this process and the children it forks from now on
 * (@on), or back to SCHED_OTHER.  Two SCHED_FIFO processes of one
 * priority on one CPU make every round trip the same two voluntary
 * switches: neither preempts the other when it wakes it.  Returns 0, or
 * -1 with errno set.
 */
static int set_fifo(int on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/*
 * @n round trips between this process and a child, both counting as
 * @arg says, each with counters of its own started after the fork.  The
 * clock starts once both are counting.
 */
static double run_ping_pong(long n, void *arg)
{
	const struct counting *how = arg;
	int down[2], up[2], ok;
	struct counters c;
	double t = 0;
	pid_t pid;
	long i;

	if (pipe(down) < 0)
		return -1;
	if (pipe(up) < 0) {
		close(down[0]);
		close(down[1]);
		return -1;
	}
	fflush(stdout);
	if (how->fifo && set_fifo(1) < 0) {
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		if (counters_start(&c, how) < 0 || put(up[1]) < 0)
			_exit(1);
		for (i = 0; i < n; i++)
			if (get(down[0]) < 0 || put(up[1]) < 0)
				_exit(1);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	ok = pid > 0 && counters_start(&c, how) == 0;
	if (ok) {
		ok = get(up[0]) == 0;
		t = now_ns();
		for (i = 0; i < n && ok; i++)
			ok = put(down[1]) == 0 && get(up[0]) == 0;
		t = now_ns() - t;
		counters_stop(&c);
	}
	close(down[1]);
	close(up[0]);
	if (pid > 0 && reap(pid) < 0)
		ok = 0;
	if (how->fifo && set_fifo(0) < 0)
		ok = 0;
	return ok ? t : -1;
}

/* A process that counts as @how says and waits; its pid, or -1. */
static pid_t bystander_start(const struct counting *how, int *stop_fd)
{
	int p[2], ready[2];
	struct counters c;
	pid_t pid;
	char x;

	if (pipe(p) < 0)
		return -1;
	if (pipe(ready) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		close(ready[0]);
		if (counters_start(&c, how) < 0)
			_exit(1);
		put(ready[1]);
		/* Until the parent closes its end. */
		while (read(p[0], &x, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	close(ready[1]);
	if (pid < 0 || get(ready[0]) < 0) {
		close(p[1]);
		close(ready[0]);
		if (pid > 0)
			reap(pid);
		return -1;
	}
	close(ready[0]);
	*stop_fd = p[1];
	return pid;
}

static int bystander_stop(pid_t pid, int stop_fd)
{
	close(stop_fd);
	return reap(pid);
}

/* A ping-pong that counts as @pair says, beside a process that counts. */
struct beside_arg {
	const struct counting *pair;
	const struct counting *bystander;
};

/*
 * @n round trips as run_ping_pong() times them, while a bystander
 * process that counts as @arg says waits on a pipe; it is started and
 * stopped outside the timing.
 */
static double run_ping_pong_beside(long n, void *arg)
{
	const struct beside_arg *ba = arg;
	int stop_fd;
	pid_t pid = bystander_start(ba->bystander, &stop_fd);
	double t;

	if (pid < 0)
		return -1;
	t = run_ping_pong(n, (void *)ba->pair);
	if (bystander_stop(pid, stop_fd) < 0)
		return -1;
	return t;
}

struct fork_arg {
	struct counting how;
	int threads;			/* the child's, itself included */
};

static void *thread_exit(void *arg)
{
	return arg;
}

/* The child: @threads - 1 threads of its own, created and joined. */
static void child_threads(int threads)
{
	pthread_t t[16];
	int i;

	for (i = 0; i < threads - 1; i++)
		if (pthread_create(&t[i], NULL, thread_exit, NULL))
			_exit(1);
	for (i = 0; i < threads - 1; i++)
		if (pthread_join(t[i], NULL))
			_exit(1);
	_exit(0);
}

/* @n children forked, exited and reaped, under counters they inherit. */
static double run_fork_exit(long n, void *arg)
{
	const struct fork_arg *fa = arg;
	struct counting how = fa->how;
	struct counters c;
	int ok = 1;
	double t;
	pid_t pid;
	long i;

	how.inherit = 1;
	if (counters_start(&c, &how) < 0)
		return -1;
	fflush(stdout);
	t = now_ns();
	for (i = 0; i < n && ok; i++) {
		pid = fork();
		if (pid == 0)
			child_threads(fa->threads);
		ok = pid > 0 && reap(pid) == 0;
	}
	t = now_ns() - t;
	counters_stop(&c);
	return ok ? t : -1;
}

/*
 * Overheads of @count sides of one kind of work over the first, which
 * counts nothing.  The perf side, if any, is last: every other side
 * pauses first, out of perf's window.  Returns 0, or -1.
 */
static int overheads(struct side *sides, int count, double target_t,
		     int reps, int single_ops)
{
	int i;

	for (i = 0; i < count; i++)
		if (!sides[i].pause_ns)
			sides[i].pause_ns = PERF_SCHED_PAUSE_NS;
	if (measure(sides, count, target_t, reps, single_ops) < 0) {
		fprintf(stderr, "vperfctr_bench: %s: %s\n", sides[0].name,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Ratio mode: a side's cost over the base's, with the spread. */
static void print_ratio_line(const char *label, const struct side *s,
			     const struct side *base)
{
	char a[32], b[32], r[16];
	double spread, q = ratio_spread(s, base, &spread);

	printf("  %-44s %10s   over %10s   %s +-%.0f%%\n", label,
	       fmt_cost(a, sizeof(a), s->cost),
	       fmt_cost(b, sizeof(b), base->cost),
	       fmt_ratio(r, sizeof(r), q), spread * 100);
}

static double spread_of(const struct side *s);

/*
 * "pays nothing": @b costs no more than @a, to within what their
 * timings spread (half the IQR of each, added).  A difference smaller
 * than that is not one this bench can tell from noise: timer ticks fall
 * at other points of each timing.
 */
static void target_zero(const char *what, const struct side *b,
			const struct side *a)
{
	double diff = rounded(b->cost - a->cost);
	double noise = rounded(spread_of(b) * b->cost + spread_of(a) * a->cost);
	int met = diff <= noise;
	char how[80];

	snprintf(how, sizeof(how), "%+.0f, %s the +-%.0f its timings spread",
		 diff, diff < -noise ? "below" : met ? "within" : "beyond",
		 noise);
	target(what, met, how);
}

/* The spread of a side's costs, relative: half the IQR over the median. */
static double spread_of(const struct side *s)
{
	double v[RUNS];
	int r;

	for (r = 0; r < s->reps; r++)
		v[r] = (s->op[r] - s->loop[r]) / s->n;
	qsort(v, s->reps, sizeof(v[0]), cmp_double);
	return (v[s->reps - 1 - s->reps / 4] - v[s->reps / 4]) / 2 /
	       v[s->reps / 2];
}

static int bench_switches(void)
{
	struct counting none = { .kind = KIND_NONE },
			ours = { .kind = KIND_VPERFCTR },
			theirs = { .kind = KIND_PERF };
	struct counting grow[4] = {
		{ .kind = KIND_VPERFCTR, .nrhw = 1 },
		{ .kind = KIND_VPERFCTR, .nrhw = 2 },
		{ .kind = KIND_VPERFCTR, .nrhw = 4 },
		{ .kind = KIND_VPERFCTR, .nrhw = 6 },
	};
	struct side s[3] = {
		{ .name = "none", .run = run_ping_pong, .arg = &none },
		{ .name = "perfctr", .run = run_ping_pong, .arg = &ours },
		{ .name = "perf", .run = run_ping_pong, .arg = &theirs },
	};
	int count = perf_failure[0] ? 2 : 3, i, stop_fd;
	double target_t = insn_mode ? SWITCH_INSNS : MACRO_NS;
	int reps = insn_mode ? REPS : RUNS;
	double ov, perf_ov;
	char a[80];
	pid_t pid;

	printf("\nContext switches, per pipe round trip (two switches)%s:\n",
	       insn_mode ? ", in instructions" : "");
	if (overheads(s, count, target_t, reps, 0) < 0)
		return -1;
	ov = s[1].cost - s[0].cost;
	perf_ov = count == 3 ? s[2].cost - s[0].cost : -1;
	line("without counters", s[0].cost, NULL, 0);
	if (insn_mode) {
		line(have_pmu ? "overhead: TSC + cycles + task-clock" :
			"overhead: TSC + cs + task-clock",
		     ov, count == 3 ? "perf task-clock + cs" : NULL, perf_ov);
	} else {
		print_ratio_line("perfctr / none", &s[1], &s[0]);
		if (count == 3) {
			print_ratio_line("perf / none", &s[2], &s[0]);
			snprintf(a, sizeof(a), "%.2fx vs %.2fx",
				 s[1].cost / s[0].cost, s[2].cost / s[0].cost);
			target("pipe round trip: perfctr below perf",
			       ov < perf_ov, a);
		}
	}

	/* As the control grows. */
	if (have_pmu && insn_mode) {
		for (i = 0; i < 4; i++) {
			struct side g[2] = {
				{ .name = "none", .run = run_ping_pong,
				  .arg = &none },
				{ .name = "perfctr", .run = run_ping_pong,
				  .arg = &grow[i] },
			};

			if (overheads(g, 2, target_t, reps, 0) < 0)
				return -1;
			snprintf(a, sizeof(a), "overhead: TSC + %d counter%s",
				 grow[i].nrhw, grow[i].nrhw > 1 ? "s" : "");
			line(a, g[1].cost - g[0].cost, NULL, 0);
		}
	}

	/*
	 * Two processes without counters, beside a third with them.  Beside
	 * perfctr's, they are timed taking turns with the same two alone, a
	 * bystander started and stopped around each of their timings: the
	 * difference is the bystander's cost, and not also how far two
	 * timings of the same round trip drift apart in one boot (tens of
	 * instructions).  Beside perf's, the round trips are timed in perf's
	 * window, as they should, and against the base above, which was
	 * timed out of it.
	 */
	{
		struct beside_arg beside = { .pair = &none, .bystander = &ours };
		struct side pair[2] = {
			{ .name = "none", .run = run_ping_pong, .arg = &none },
			{ .name = "beside perfctr", .run = run_ping_pong_beside,
			  .arg = &beside },
		};
		struct side by_perf = { .name = "none", .run = run_ping_pong,
					.arg = &none, .pause_ns = 1 };

		if (overheads(pair, 2, target_t, reps, 0) < 0)
			return -1;
		if (count == 3) {
			pid = bystander_start(&theirs, &stop_fd);
			if (pid < 0)
				return -1;
			if (overheads(&by_perf, 1, target_t, reps, 0) < 0 ||
			    bystander_stop(pid, stop_fd) < 0)
				return -1;
		}
		line("no counters, next to a process with perfctr",
		     pair[1].cost - pair[0].cost,
		     count == 3 ? "next to perf events" : NULL,
		     count == 3 ? by_perf.cost - s[0].cost : 0);
	}
	/*
	 * The same round trips between two SCHED_FIFO processes, with
	 * counters, and without them next to a process with perfctr's.
	 * Under SCHED_OTHER about two switches in five are wakeup
	 * preemptions, and the timings of one side fall in two groups some
	 * 40 instructions apart, in proportions that move from build to
	 * build and between boots; here every round trip is the same two
	 * voluntary switches, and the targets on switches are checked on
	 * these.  They are timed last, so that the kernel threads the pair
	 * keeps from running catch up in the pause before the forks, not in
	 * another side's timing.
	 */
	if (insn_mode) {
		struct counting none_fifo = none, ours_fifo = ours,
				theirs_fifo = theirs;
		struct side f[3] = {
			{ .name = "none, fifo", .run = run_ping_pong,
			  .arg = &none_fifo },
			{ .name = "perfctr, fifo", .run = run_ping_pong,
			  .arg = &ours_fifo },
			{ .name = "perf, fifo", .run = run_ping_pong,
			  .arg = &theirs_fifo },
		};
		struct beside_arg beside = { .pair = &none_fifo,
					     .bystander = &ours };
		struct side pair[2] = {
			{ .name = "none, fifo", .run = run_ping_pong,
			  .arg = &none_fifo },
			{ .name = "beside perfctr, fifo",
			  .run = run_ping_pong_beside, .arg = &beside },
		};

		none_fifo.fifo = ours_fifo.fifo = theirs_fifo.fifo = 1;
		if (overheads(f, count, target_t, reps, 0) < 0)
			return -1;
		line("overhead, SCHED_FIFO pair", f[1].cost - f[0].cost,
		     count == 3 ? "perf, SCHED_FIFO pair" : NULL,
		     count == 3 ? f[2].cost - f[0].cost : 0);
		if (overheads(pair, 2, target_t, reps, 0) < 0)
			return -1;
		line("no counters, SCHED_FIFO pair, next to perfctr",
		     pair[1].cost - pair[0].cost, NULL, 0);
		/* On the figures that do not move with the build. */
		if (insn_targets)
			target_max("switch overhead <= 400 instructions",
				   f[1].cost - f[0].cost, 400);
		target_zero("no counters, next to perfctr: pays 0",
			    &pair[1], &pair[0]);
	}
	return 0;
}

static int bench_forks(void)
{
	static const int threads[] = { 1, 8 };
	int count = perf_failure[0] ? 2 : 3, i, j;
	double target_t = insn_mode ? FORK_INSNS : MACRO_NS;
	int reps = insn_mode ? FORK_REPS : RUNS;
	char label[80], how[80];

	printf("\nfork + exit + wait, per child%s:\n",
	       insn_mode ? ", in instructions" : "");
	for (j = 0; j < 2; j++) {
		struct fork_arg fa[3] = {
			{ { .kind = KIND_NONE }, threads[j] },
			{ { .kind = KIND_VPERFCTR }, threads[j] },
			{ { .kind = KIND_PERF }, threads[j] },
		};
		struct side s[3];
		double ov, perf_ov;

		for (i = 0; i < 3; i++) {
			memset(&s[i], 0, sizeof(s[i]));
			s[i].name = "fork";
			s[i].run = run_fork_exit;
			s[i].arg = &fa[i];
			/* Out of perf's window, and after the last frees. */
			s[i].pause_ns = i < 2 ? PERF_SCHED_PAUSE_NS :
						RCU_PAUSE_NS;
		}
		if (overheads(s, count, target_t, reps, 0) < 0)
			return -1;
		ov = s[1].cost - s[0].cost;
		perf_ov = count == 3 ? s[2].cost - s[0].cost : -1;
		snprintf(label, sizeof(label), "without counters, %d thread%s",
			 threads[j], threads[j] > 1 ? "s" : "");
		line(label, s[0].cost, NULL, 0);
		if (!insn_mode) {
			print_ratio_line("perfctr / none", &s[1], &s[0]);
			if (count == 3) {
				print_ratio_line("perf / none", &s[2], &s[0]);
				if (j == 0) {
					snprintf(how, sizeof(how),
						 "%.2fx vs %.2fx",
						 s[1].cost / s[0].cost,
						 s[2].cost / s[0].cost);
					target("fork+exit: perfctr below perf",
					       ov < perf_ov, how);
				}
			}
			continue;
		}
		snprintf(label, sizeof(label), "overhead, inherited, +-%.1f%%",
			 spread_of(&s[1]) * 100);
		line(label, ov, count == 3 ? "perf inherited" : NULL, perf_ov);
		if (!insn_targets) {
			continue;
		} else if (count < 3) {
			target("fork overhead <= half of perf's", 0,
			       "perf not measured");
		} else {
			snprintf(label, sizeof(label),
				 "fork overhead, %d thread%s, <= perf's / 2",
				 threads[j], threads[j] > 1 ? "s" : "");
			snprintf(how, sizeof(how), "%.0f vs %.0f / 2",
				 rounded(ov), rounded(perf_ov));
			target(label, ov <= perf_ov / 2, how);
		}
	}
	return 0;
}

/* --- MSR accesses ------------------------------------------------------- */

#if defined(__x86_64__)

/*
 * On x86 the counters are MSRs, and each RDMSR, WRMSR or RDPMC costs a
 * hundred cycles or more on real processors: how many of them each side
 * makes is the figure that matters there.  The kernel's msr tracepoints
 * count the kernel's (read_msr, write_msr, rdpmc), with perf tracepoint
 * events on the bench's CPU, the first two filtered to the PMU's MSRs:
 * Intel's counters and their full-width aliases, event selectors, fixed
 * counters, fixed control and global registers; AMD's counters, legacy
 * and extended, and its global registers.  raw_syscalls:sys_enter counts
 * system calls.  A user-mode rdpmc, the fast read's, is seen by no
 * tracepoint.
 */
enum { MSR_READ, MSR_WRITE, MSR_RDPMC, SYSCALLS, NR_KERNEL_EVENTS };

static const char *const kernel_event[NR_KERNEL_EVENTS] = {
	"msr/read_msr", "msr/write_msr", "msr/rdpmc", "raw_syscalls/sys_enter",
};

#define PMU_MSRS "(msr >= 0xc1 && msr <= 0xc8) || " \
	"(msr >= 0x186 && msr <= 0x18d) || (msr >= 0x309 && msr <= 0x30b) || " \
	"(msr >= 0x38d && msr <= 0x390) || (msr >= 0x4c1 && msr <= 0x4c8) || " \
	"(msr >= 0xc0010000 && msr <= 0xc001020b) || " \
	"(msr >= 0xc0000300 && msr <= 0xc0000303)"

static int kernel_fd[NR_KERNEL_EVENTS] = { -1, -1, -1, -1 };

static int tracepoint_id(const char *name)
{
	char path[128];
	int id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* The tracepoint counters, on @cpu: NULL, or why they are not there. */
static const char *kernel_events_open(int cpu)
{
	static char why[160];
	struct perf_event_attr attr;
	int i, id;

	for (i = 0; i < NR_KERNEL_EVENTS; i++) {
		id = tracepoint_id(kernel_event[i]);
		if (id < 0) {
			snprintf(why, sizeof(why),
				 "no tracepoint %s in /sys/kernel/tracing",
				 kernel_event[i]);
			return why;
		}
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = id;
		attr.disabled = 1;
		kernel_fd[i] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				       0);
		if (kernel_fd[i] < 0 ||
		    (i < MSR_RDPMC &&
		     ioctl(kernel_fd[i], PERF_EVENT_IOC_SET_FILTER, PMU_MSRS))) {
			snprintf(why, sizeof(why), "%s: %s", kernel_event[i],
				 strerror(errno));
			return why;
		}
	}
	return NULL;
}

static void kernel_events_close(void)
{
	int i;

	for (i = 0; i < NR_KERNEL_EVENTS; i++) {
		if (kernel_fd[i] >= 0)
			close(kernel_fd[i]);
		kernel_fd[i] = -1;
	}
}

/* The events across @fn(@n, @arg), in @counts. */
static int kernel_events_across(double (*fn)(long, void *), long n,
				void *arg, unsigned long long *counts)
{
	int i;

	for (i = 0; i < NR_KERNEL_EVENTS; i++)
		if (ioctl(kernel_fd[i], PERF_EVENT_IOC_RESET, 0) ||
		    ioctl(kernel_fd[i], PERF_EVENT_IOC_ENABLE, 0))
			return -1;
	if (fn(n, arg) < 0)
		return -1;
	for (i = 0; i < NR_KERNEL_EVENTS; i++)
		if (ioctl(kernel_fd[i], PERF_EVENT_IOC_DISABLE, 0) ||
		    read(kernel_fd[i], &counts[i], sizeof(counts[i])) !=
		    sizeof(counts[i]))
			return -1;
	return 0;
}

/*
 * Per operation: the events across 2 @n operations less those across @n,
 * over @n, so that what a run costs once (starting the counters, forking
 * the other process) drops out.
 */
static int kernel_events_per_op(double (*fn)(long, void *), long n,
				void *arg, double *per)
{
	unsigned long long a[NR_KERNEL_EVENTS], b[NR_KERNEL_EVENTS];
	int i;

	if (kernel_events_across(fn, n, arg, a) ||
	    kernel_events_across(fn, 2 * n, arg, b))
		return -1;
	for (i = 0; i < NR_KERNEL_EVENTS; i++)
		per[i] = ((double)b[i] - (double)a[i]) / n;
	return 0;
}

static double msr_total(const double *per)
{
	return per[MSR_READ] + per[MSR_WRITE] + per[MSR_RDPMC];
}

static const char *fmt_msrs(char *buf, size_t size, const double *per)
{
	snprintf(buf, size, "%.1f + %.1f + %.1f = %.1f", per[MSR_READ],
		 per[MSR_WRITE], per[MSR_RDPMC], msr_total(per));
	return buf;
}

static void msr_line(const char *label, const double *ours,
		     const double *peer)
{
	char a[48], b[48];

	printf("  %-40s %-24s %-24s", label, fmt_msrs(a, sizeof(a), ours),
	       peer ? fmt_msrs(b, sizeof(b), peer) : "");
	if (peer && msr_total(peer) > 0)
		printf(" %.2f", msr_total(ours) / msr_total(peer));
	printf("\n");
}

/* perf read() of each of a side's hardware events, per round. */
static double run_perf_read_all(long n, void *arg)
{
	const struct counters *c = arg;
	unsigned long long value, acc = 0;
	double t = now_ns();
	long i;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < MAX_PERF && c->perf_fd[k] >= 0; k++) {
			if (read(c->perf_fd[k], &value, sizeof(value)) !=
			    sizeof(value))
				return -1;
			acc += value;
		}
	sink = acc;
	return now_ns() - t;
}

#define MSR_HW		3		/* the hardware counters of the figures */
#define MSR_TRIPS	1000
#define MSR_READS	1000

/*
 * The MSR accesses of a round trip and of a read, perfctr's and perf's,
 * with MSR_HW hardware counters, and the fast read's system calls and
 * MSR accesses.
 */
static int bench_msrs(int cpu)
{
	struct counting none = { .kind = KIND_NONE },
			ours = { .kind = KIND_VPERFCTR, .nrhw = MSR_HW },
			theirs = { .kind = KIND_PERF, .nrhw = MSR_HW };
	double base[NR_KERNEL_EVENTS], per[NR_KERNEL_EVENTS],
	       peer[NR_KERNEL_EVENTS], fast[NR_KERNEL_EVENTS];
	struct self self = { .perf_fd = -1 };
	const char *why = kernel_events_open(cpu);
	char label[80], how[80];
	struct counters pc;
	int err = -1, i;

	memset(&pc, 0, sizeof(pc));
	for (i = 0; i < MAX_PERF; i++)
		pc.perf_fd[i] = self.counters.perf_fd[i] = -1;

	printf("\nMSR accesses in the kernel, rdmsr + wrmsr + rdpmc, per operation,\n"
	       "counted by the kernel's msr tracepoints:\n");
	printf("  %-40s %-24s %-24s %s\n", "", "perfctr", "perf", "ratio");
	if (why) {
		printf("  not measured: %s\n", why);
		kernel_events_close();
		return 0;
	}
	if (perf_failure[0]) {
		printf("  perf not measured: %s\n", perf_failure);
		goto out;
	}
	if (kernel_events_per_op(run_ping_pong, MSR_TRIPS, &none, base) ||
	    kernel_events_per_op(run_ping_pong, MSR_TRIPS, &ours, per) ||
	    kernel_events_per_op(run_ping_pong, MSR_TRIPS, &theirs, peer))
		goto fail;
	msr_line("pipe round trip, no counters", base, NULL);
	snprintf(label, sizeof(label), "pipe round trip, %d counters", MSR_HW);
	msr_line(label, per, peer);
	snprintf(how, sizeof(how), "%.1f vs %.1f / 2", msr_total(per),
		 msr_total(peer));
	snprintf(label, sizeof(label),
		 "MSR accesses a round trip, %d counters, <= perf's / 2",
		 MSR_HW);
	target(label, msr_total(per) <= msr_total(peer) / 2, how);

	/*
	 * A read of all the counts: one system call, or one a perf event;
	 * and the fast read of one counter.  perfctr's and perf's hardware
	 * counters in turn: each side is EBUSY to the other.
	 */
	if (self_start(&self, MSR_HW) < 0 ||
	    kernel_events_per_op(run_vperfctr_read, MSR_READS, &self, per))
		goto fail;
	self.index = self.counters.cycles;
	if (kernel_events_per_op(run_read_pmc, MSR_READS, &self, fast))
		goto fail;
	counters_stop(&self.counters);
	if (counters_start(&pc, &theirs) < 0 ||
	    kernel_events_per_op(run_perf_read_all, MSR_READS, &pc, peer))
		goto fail;
	snprintf(label, sizeof(label), "read of %d counts (perf: %d read()s)",
		 MSR_HW, MSR_HW);
	msr_line(label, per, peer);
	msr_line("vperfctr_read_pmc(), fast", fast, NULL);
	printf("  %-40s %.1f system calls\n", "", fast[SYSCALLS]);
	snprintf(how, sizeof(how), "%.1f system calls, %.1f MSR accesses",
		 fast[SYSCALLS], msr_total(fast));
	target("fast read: no system call, no MSR access in the kernel",
	       !fast[SYSCALLS] && !msr_total(fast), how);
	err = 0;
	goto out;
fail:
	fprintf(stderr, "vperfctr_bench: MSR accesses: %s\n", strerror(errno));
out:
	counters_stop(&pc);
	counters_stop(&self.counters);
	kernel_events_close();
	return err;
}
#endif

/* --- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long cpu = cpus > 0 ? cpus - 1 : 0;
	struct utsname uts;
	int i, fd, err;

	err = bench_start("vperfctr_bench", argc, argv, cpu);
	if (err)
		return err;
	signal(SIGPIPE, SIG_IGN);
	if (perfctr_info_read(&info) < 0) {
		perror("vperfctr_bench: perfctr_info_read");
		return 1;
	}
	have_pmu = info.nrctrs + info.nrfixed > 0 &&
		   (info.cpu_features & PERFCTR_FEATURE_RDPMC);
	fd = perf_open(PERF_COUNT_SW_TASK_CLOCK, 1);
	if (fd >= 0)
		close(fd);

	uname(&uts);
	if (insn_mode)
		printf("perfctr bench: Linux %s, %ld CPU%s, all on CPU %ld; costs in instructions\n"
		       "(one per ns of this clock), loops subtracted; reads: the least of %d\n"
		       "timings, each shorter than a tick; switches: the median of %d, forks: of %d\n",
		       uts.release, cpus, cpus > 1 ? "s" : "", cpu, REPS, REPS,
		       FORK_REPS);
	else
		printf("perfctr bench: Linux %s, %ld CPUs, all on CPU %ld, %d runs of each:\n"
		       "median times per operation, loops subtracted, and the median ratio +- half\n"
		       "its interquartile range\n",
		       uts.release, cpus, cpu, RUNS);
	fflush(stdout);

	if (bench_reads() < 0)
		return 1;
	fflush(stdout);
	if (bench_switches() < 0)
		return 1;
	fflush(stdout);
	if (bench_forks() < 0)
		return 1;
#if defined(__x86_64__)
	fflush(stdout);
	if (insn_mode && have_pmu && bench_msrs(cpu) < 0)
		return 1;
#endif

	printf("\n");
	for (i = 0; i < nr_targets; i++)
		printf("%s\n", targets[i]);
	printf("targets: %d of %d met\n", nr_targets - targets_missed,
	       nr_targets);
	return 0;
}
