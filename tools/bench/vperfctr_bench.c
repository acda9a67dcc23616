// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_bench: what perfctr's counters cost, next to what the
 * alternatives cost, measured side by side in one run.
 *
 * Every figure is a ratio of two costs per operation, timed in the same
 * run on the same CPU: the operation measured and the one it is compared
 * with.  Each side is timed RUNS times, the sides taking turns within a
 * run and the side that goes first changing from run to run, so that a
 * drift in the machine's speed falls on every side alike.  A run gives
 * one ratio; the figure is the median of the RUNS ratios and its spread
 * half their interquartile range, relative to the median, so that one
 * run disturbed by the host moves neither.  Per-operation times are
 * printed beside the ratios, but on their own they say little: under an
 * emulator such as QEMU's TCG an instruction costs what the emulator
 * makes it cost (rdtsc is one call into the emulator, a load from memory
 * several translated instructions), and only ratios taken in one run
 * compare like with like.
 *
 * Each side's iteration count is calibrated first, so that one timing
 * takes about MICRO_NS (single operations) or MACRO_NS (round trips,
 * forks) on any machine; the ratios are per operation, so the two sides
 * of a figure need not run the same number of iterations.
 *
 * The whole program runs pinned to one CPU, the last one: the single
 * operations never migrate, the two processes of the pipe ping-pong take
 * turns on that CPU, so that each round trip is two context switches
 * and the figure the cost of switching, and a forked child runs where
 * its parent waits for it.
 *
 * The figures:
 *
 * - fast read / rdtsc: vperfctr_read_tsc() on the calling thread's own
 *   state (TSC and task-clock on), computed from the mapped state page,
 *   against a bare rdtsc, which the fast read itself executes once.
 * - perf read() / fast read: read() of a perf task-clock event of the
 *   calling thread against vperfctr_read_ctrs() from the page, which
 *   gives the TSC and all the counters, the thread's task-clock among
 *   them, in one snapshot; and against vperfctr_read_pmc() of the
 *   task-clock counter alone, the like of perf's read() of one event,
 *   which the target is about.
 * - vperfctr_read() / getpid(): the vperfctr_read system call, which
 *   samples the owner's counters, against the cheapest system call; both
 *   issued raw, so that no C library caching or wrapping is measured.
 * - pipe round trip: a byte sent back and forth between two processes
 *   over two pipes; with vperfctr both processes count the TSC,
 *   task-clock and context switches, with perf both have task-clock and
 *   context-switches events (pid 0, not inherited).  Each is compared
 *   with the same round trip without counters.
 * - fork+exit: fork(), the child _exit(0)s, waitpid(); with vperfctr the
 *   parent counts the same three things and every child inherits them
 *   and hands its counts back to the parent's children sums when it is
 *   reaped; with perf the parent's two events have inherit set, so every
 *   child gets events of its own, summed into the parent's at its exit.
 *   Each is compared with fork+exit without counters.
 *
 * Targets, printed as met or NOT met (a missed target is a finding, not
 * a failure: the program exits 0 whenever it could measure): the fast
 * read within 1.5 times an rdtsc; a perf read() at least 50 times the
 * fast read; perfctr's overhead on context switches and on fork+exit
 * below perf's.
 *
 * Run it as root, or where perf_event_paranoid lets a thread count
 * itself in kernel mode: the perf figures need perf_event_open().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <libperfctr.h>

#define RUNS		21		/* timings of each side; odd */
#define MICRO_NS	40000000.0	/* one timing of a single operation */
#define MACRO_NS	300000000.0	/* one timing of round trips, forks */

#define FAST_READ_MAX	1.5		/* fast read / rdtsc, at most */
#define PERF_READ_MIN	50.0		/* perf read() / fast read, at least */

/* Results go here, so that no measured loop is optimized away. */
static volatile unsigned long long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The read of the TSC the fast read makes: on arm64, the generic timer. */
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

/* --- Counters, ours and perf's ------------------------------------------ */

enum counting { COUNT_NONE, COUNT_VPERFCTR, COUNT_PERF, NR_COUNTINGS };

/* The calling thread's counters under one counting. */
struct counters {
	struct vperfctr *vperfctr;
	int task_clock;			/* index of task-clock in sum.pmc */
	int perf_fd[2];			/* task-clock, context-switches */
};

/* Why perf could not be used, for the table; empty while it could. */
static char perf_failure[160];

/* The first failure of perf_event_open(), with what may explain it. */
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

static int perf_open(unsigned long long config, int inherit)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.inherit = inherit;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0 && !perf_failure[0])
		perf_failed(errno);
	return fd;
}

/* Leave the thread without counters, as it was: nothing to inherit. */
static void counters_stop(struct counters *c)
{
	if (c->vperfctr) {
		vperfctr_unlink(c->vperfctr);
		vperfctr_close(c->vperfctr);
	}
	if (c->perf_fd[0] >= 0)
		close(c->perf_fd[0]);
	if (c->perf_fd[1] >= 0)
		close(c->perf_fd[1]);
	c->vperfctr = NULL;
	c->perf_fd[0] = c->perf_fd[1] = -1;
}

static int start_vperfctr(struct counters *c)
{
	struct vperfctr_control control;

	c->vperfctr = vperfctr_open();
	if (!c->vperfctr) {
		perror("vperfctr_bench: vperfctr_open");
		return -1;
	}
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	c->task_clock = vperfctr_control_add_sw(&control,
						PERFCTR_SW_TASK_CLOCK, 0);
	if (c->task_clock < 0 ||
	    vperfctr_control_add_sw(&control, PERFCTR_SW_CONTEXT_SWITCHES,
				    0) < 0 ||
	    vperfctr_control(c->vperfctr, &control) < 0) {
		perror("vperfctr_bench: vperfctr_control");
		return -1;
	}
	return 0;
}

/*
 * TSC, task-clock and context switches for vperfctr; task-clock and
 * context switches for perf, which has no TSC event.  With @inherit,
 * children get them too: perfctr's children always inherit counters
 * that are on, perf's only when asked.
 */
static int counters_start(struct counters *c, enum counting how,
			  int inherit)
{
	int ok = 1;

	memset(c, 0, sizeof(*c));
	c->perf_fd[0] = c->perf_fd[1] = -1;
	if (how == COUNT_VPERFCTR) {
		ok = start_vperfctr(c) == 0;
	} else if (how == COUNT_PERF) {
		c->perf_fd[0] = perf_open(PERF_COUNT_SW_TASK_CLOCK, inherit);
		c->perf_fd[1] = perf_open(PERF_COUNT_SW_CONTEXT_SWITCHES,
					  inherit);
		ok = c->perf_fd[0] >= 0 && c->perf_fd[1] >= 0;
	}
	if (!ok)
		counters_stop(c);
	return ok ? 0 : -1;
}

/*
 * Does the fast read have a page to read from, showing the counters
 * live?  The library falls back to the system call silently; without
 * this check the fast read figures could be measuring that.
 */
static int fast_read_is_mapped(const struct vperfctr *vperfctr)
{
	long size = sysconf(_SC_PAGESIZE);
	const struct vperfctr_state *state;
	int ok;

	state = mmap(NULL, size, PROT_READ, MAP_SHARED, vperfctr_fd(vperfctr),
		     0);
	if (state == MAP_FAILED)
		return 0;
	ok = state->magic == VPERFCTR_STATE_MAGIC &&
	     (__atomic_load_n(&state->flags, __ATOMIC_RELAXED) &
	      VPERFCTR_STATE_ONCPU);
	munmap((void *)state, size);
	return ok;
}

/* --- Timing -------------------------------------------------------------- */

/*
 * One side of a figure: run() does @n operations and returns the time
 * they took in ns, leaving out any setup, or a negative value if it
 * failed.
 */
struct side {
	double (*run)(long n, void *arg);
	void *arg;
	long n;				/* calibrated iteration count */
	double ns[RUNS];		/* per operation, one a run */
};

/* Enough iterations that one timing of @s takes about @target_ns. */
static int calibrate(struct side *s, double target_ns)
{
	long n = 1;
	double t;

	for (;;) {
		t = s->run(n, s->arg);
		if (t < 0)
			return -1;
		/* Long enough to extrapolate from. */
		if (t >= target_ns / 16)
			break;
		n *= t > 0 ? 4 : 64;
	}
	n = (long)(n * (target_ns / t));
	s->n = n > 0 ? n : 1;
	return 0;
}

/*
 * Time @count sides RUNS times each, taking turns, after calibrating
 * each of them.  Returns 0, or -1 if a side failed.
 */
static int measure(struct side *sides, int count, double target_ns)
{
	int i, r;

	for (i = 0; i < count; i++)
		if (calibrate(&sides[i], target_ns) < 0)
			return -1;
	for (r = 0; r < RUNS; r++) {
		for (i = 0; i < count; i++) {
			struct side *s = &sides[(r + i) % count];
			double t = s->run(s->n, s->arg);

			if (t < 0)
				return -1;
			s->ns[r] = t / s->n;
		}
	}
	return 0;
}

struct figure {
	double median, spread;		/* half the IQR / median */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *v)
{
	double s[RUNS];

	memcpy(s, v, sizeof(s));
	qsort(s, RUNS, sizeof(s[0]), cmp_double);
	return s[RUNS / 2];
}

/* The ratio of two sides: run by run, then the median of those. */
static struct figure ratio(const struct side *num, const struct side *den)
{
	double q[RUNS];
	struct figure f;
	int r;

	for (r = 0; r < RUNS; r++)
		q[r] = num->ns[r] / den->ns[r];
	qsort(q, RUNS, sizeof(q[0]), cmp_double);
	f.median = q[RUNS / 2];
	f.spread = (q[RUNS - 1 - RUNS / 4] - q[RUNS / 4]) / 2 / f.median;
	return f;
}

/* --- Printing ------------------------------------------------------------ */

static const char *fmt_ratio(char *buf, size_t size, double x)
{
	snprintf(buf, size, x < 10 ? "%.2fx" : x < 100 ? "%.1fx" : "%.0fx", x);
	return buf;
}

static const char *fmt_time(char *buf, size_t size, double ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%.3g ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3g us", ns / 1e3);
	else
		snprintf(buf, size, "%.3g ms", ns / 1e6);
	return buf;
}

/* "1.12x +-3%": a figure as the table shows it. */
static const char *fmt_figure(char *buf, size_t size, struct figure f)
{
	char r[16], sp[16];

	snprintf(sp, sizeof(sp), "+-%.0f%%", f.spread * 100);
	snprintf(buf, size, "%7s %-5s", fmt_ratio(r, sizeof(r), f.median), sp);
	return buf;
}

/* The lines that say whether a target was met, printed last. */
#define NR_TARGETS	4
static char targets[NR_TARGETS][160];
static int nr_targets;

static void target(const char *what, int met, const char *how)
{
	if (nr_targets == NR_TARGETS)
		return;
	snprintf(targets[nr_targets++], sizeof(targets[0]),
		 "target: %-38s %s (%s)", what, met ? "met" : "NOT met", how);
}

/* --- Single operations --------------------------------------------------- */

/* The calling thread's counters, and a perf event of it to compare. */
struct self {
	struct counters counters;
	int perf_fd;			/* task-clock */
};

static double run_rdtsc(long n, void *arg)
{
	unsigned long long acc = 0;
	double t = now_ns();
	long i;

	(void)arg;
	for (i = 0; i < n; i++)
		acc += rdtsc();
	t = now_ns() - t;
	sink = acc;
	return t;
}

static double run_read_tsc(long n, void *arg)
{
	const struct self *self = arg;
	unsigned long long acc = 0;
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++)
		acc += vperfctr_read_tsc(self->counters.vperfctr);
	t = now_ns() - t;
	sink = acc;
	/* A TSC that stays 0 is a read that failed. */
	return acc ? t : -1;
}

static double run_read_ctrs(long n, void *arg)
{
	const struct self *self = arg;
	struct perfctr_sum_ctrs sum;
	unsigned long long acc = 0;
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		if (vperfctr_read_ctrs(self->counters.vperfctr, &sum) < 0)
			return -1;
		acc += sum.pmc[self->counters.task_clock];
	}
	t = now_ns() - t;
	sink = acc;
	return t;
}

static double run_read_pmc(long n, void *arg)
{
	const struct self *self = arg;
	unsigned long long acc = 0;
	double t = now_ns();
	long i;

	for (i = 0; i < n; i++)
		acc += vperfctr_read_pmc(self->counters.vperfctr,
					 self->counters.task_clock);
	t = now_ns() - t;
	sink = acc;
	/* Never 0 once any time has passed: 0 is a read that failed. */
	return acc ? t : -1;
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

/*
 * Measure @num against @den and print the line: "label  ratio +-spread
 * num time / den time".  Returns 0, or -1 if a side failed.
 */
static int pair(const char *label, struct side num, struct side den,
		struct figure *f)
{
	struct side sides[2] = { num, den };
	char fig[32], t1[16], t2[16];

	if (measure(sides, 2, MICRO_NS) < 0) {
		fprintf(stderr, "vperfctr_bench: %s: %s\n", label,
			strerror(errno));
		return -1;
	}
	*f = ratio(&sides[0], &sides[1]);
	printf("%-32s %s   %s / %s\n", label,
	       fmt_figure(fig, sizeof(fig), *f),
	       fmt_time(t1, sizeof(t1), median_of(sides[0].ns)),
	       fmt_time(t2, sizeof(t2), median_of(sides[1].ns)));
	return 0;
}

static int bench_single(void)
{
	struct self self = { .perf_fd = -1 };
	struct side rdtsc_side = { .run = run_rdtsc };
	struct side fast_tsc = { .run = run_read_tsc, .arg = &self };
	struct side fast_ctrs = { .run = run_read_ctrs, .arg = &self };
	struct side fast_pmc = { .run = run_read_pmc, .arg = &self };
	struct side perf_read = { .run = run_perf_read, .arg = &self };
	struct side vread = { .run = run_vperfctr_read, .arg = &self };
	struct side getpid_side = { .run = run_getpid };
	struct figure f;
	char r[16];
	int err = -1;

	if (counters_start(&self.counters, COUNT_VPERFCTR, 0) < 0)
		return -1;
	if (!fast_read_is_mapped(self.counters.vperfctr))
		printf("note: the state page is not mapped or not live: the fast read is the system call\n");

	if (pair("fast read_tsc() / rdtsc", fast_tsc, rdtsc_side, &f) < 0)
		goto out;
	target("fast read_tsc() <= 1.5x rdtsc", f.median <= FAST_READ_MAX,
	       fmt_ratio(r, sizeof(r), f.median));

	if (perf_failure[0]) {
		printf("%-32s not measured: %s\n", "perf read() / fast read",
		       perf_failure);
		target("perf read() >= 50x fast read_pmc()", 0,
		       "not measured");
	} else {
		self.perf_fd = perf_open(PERF_COUNT_SW_TASK_CLOCK, 0);
		if (self.perf_fd < 0 ||
		    pair("perf read() / fast read_ctrs()", perf_read,
			 fast_ctrs, &f) < 0)
			goto out;
		/* One event against one counter: the like-for-like pair. */
		if (pair("perf read() / fast read_pmc()", perf_read, fast_pmc,
			 &f) < 0)
			goto out;
		target("perf read() >= 50x fast read_pmc()",
		       f.median >= PERF_READ_MIN,
		       fmt_ratio(r, sizeof(r), f.median));
	}

	if (pair("vperfctr_read() / getpid()", vread, getpid_side, &f) < 0)
		goto out;
	err = 0;
out:
	if (self.perf_fd >= 0)
		close(self.perf_fd);
	counters_stop(&self.counters);
	return err;
}

/* --- Processes ----------------------------------------------------------- */

/* Send or receive one byte; 0 or -1. */
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
 * @n round trips between this process and a child, both counting the
 * same way, each with counters of its own started after the fork.  The
 * clock starts once both are counting.
 */
static double run_ping_pong(long n, void *arg)
{
	enum counting how = *(const enum counting *)arg;
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
	pid = fork();
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		if (counters_start(&c, how, 0) < 0 || put(up[1]) < 0)
			_exit(1);
		for (i = 0; i < n; i++)
			if (get(down[0]) < 0 || put(up[1]) < 0)
				_exit(1);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	ok = pid > 0 && counters_start(&c, how, 0) == 0;
	if (ok) {
		ok = get(up[0]) == 0;
		t = now_ns();
		for (i = 0; i < n && ok; i++)
			ok = put(down[1]) == 0 && get(up[0]) == 0;
		t = now_ns() - t;
		counters_stop(&c);
	}
	/* Closing the pipes ends a child still waiting for us. */
	close(down[1]);
	close(up[0]);
	if (pid > 0 && reap(pid) < 0)
		ok = 0;
	return ok ? t : -1;
}

/* @n children forked, exited and reaped, under counters they inherit. */
static double run_fork_exit(long n, void *arg)
{
	enum counting how = *(const enum counting *)arg;
	struct counters c;
	int ok = 1;
	double t;
	pid_t pid;
	long i;

	if (counters_start(&c, how, 1) < 0)
		return -1;
	fflush(stdout);
	t = now_ns();
	for (i = 0; i < n && ok; i++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		ok = pid > 0 && reap(pid) == 0;
	}
	t = now_ns() - t;
	counters_stop(&c);
	return ok ? t : -1;
}

/*
 * One line: vperfctr's overhead and perf's on the same work without
 * counters, and whether vperfctr's is the smaller.  Returns 0, or -1 if
 * a side failed.
 */
static int overheads(const char *label, const char *what,
		     double (*run)(long n, void *arg))
{
	static const enum counting how[NR_COUNTINGS] = {
		COUNT_NONE, COUNT_VPERFCTR, COUNT_PERF,
	};
	/* Without perf, vperfctr still gets its figure. */
	int i, count = perf_failure[0] ? COUNT_PERF : NR_COUNTINGS;
	char a[32], b[32], t[16], cmp[64], r1[16], r2[16];
	struct side sides[NR_COUNTINGS];
	struct figure fv, fp;
	int overlap;

	memset(sides, 0, sizeof(sides));
	for (i = 0; i < NR_COUNTINGS; i++) {
		sides[i].run = run;
		sides[i].arg = (void *)&how[i];
	}
	if (measure(sides, count, MACRO_NS) < 0) {
		fprintf(stderr, "vperfctr_bench: %s: %s\n", label,
			strerror(errno));
		return -1;
	}

	fv = ratio(&sides[COUNT_VPERFCTR], &sides[COUNT_NONE]);
	fmt_figure(a, sizeof(a), fv);
	fmt_time(t, sizeof(t), median_of(sides[COUNT_NONE].ns));
	if (count < NR_COUNTINGS) {
		printf("%-16s vperfctr / none %s   perf: %s   none %s\n",
		       label, a, perf_failure, t);
		target(what, 0, "perf not measured");
		return 0;
	}
	fp = ratio(&sides[COUNT_PERF], &sides[COUNT_NONE]);
	fmt_figure(b, sizeof(b), fp);
	printf("%-16s vperfctr / none %s   perf / none %s   none %s\n",
	       label, a, b, t);
	/* Closer than their spreads, the two are not told apart. */
	overlap = fv.median * (1 + fv.spread) >= fp.median * (1 - fp.spread) &&
		  fp.median * (1 + fp.spread) >= fv.median * (1 - fv.spread);
	snprintf(cmp, sizeof(cmp), "%s %s %s%s",
		 fmt_ratio(r1, sizeof(r1), fv.median),
		 fv.median < fp.median ? "<" : ">=",
		 fmt_ratio(r2, sizeof(r2), fp.median),
		 overlap ? ", within the spread" : "");
	target(what, fv.median < fp.median, cmp);
	return 0;
}

/* --- main ---------------------------------------------------------------- */

int main(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long cpu = cpus > 0 ? cpus - 1 : 0;
	struct utsname uts;
	cpu_set_t set;
	int i, fd;

	/* The last CPU: see the comment at the top. */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("vperfctr_bench: sched_setaffinity");
		return 1;
	}
	/* A child that died must fail a write to it, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* Find out once whether perf can be compared with at all. */
	fd = perf_open(PERF_COUNT_SW_TASK_CLOCK, 1);
	if (fd >= 0)
		close(fd);

	uname(&uts);
	printf("perfctr bench: Linux %s, %ld CPUs, all on CPU %ld, %d runs of each:\n"
	       "median ratio +- half its interquartile range, then median times per operation\n",
	       uts.release, cpus, cpu, RUNS);
	fflush(stdout);

	if (bench_single() < 0)
		return 1;
	fflush(stdout);
	if (overheads("pipe round trip", "pipe round trip: vperfctr below perf",
		      run_ping_pong) < 0)
		return 1;
	fflush(stdout);
	if (overheads("fork+exit", "fork+exit: vperfctr below perf",
		      run_fork_exit) < 0)
		return 1;

	for (i = 0; i < nr_targets; i++)
		printf("%s\n", targets[i]);
	return 0;
}
