/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vperfctr_bench and region_bench share: both time a single
 * operation the same way, so that their figures compare.  In --instructions
 * mode, on a machine whose clock counts retired instructions, the
 * operation's loop is timed REPS times in windows too short to hold a
 * timer tick and the least is taken; otherwise it is timed RUNS times and
 * the median is taken.  In both, the same loop without the operation is
 * timed alike and subtracted.  Here are that timing (struct side and
 * measure()), the clock, the empty loops' op, the command line and the
 * pinning to one CPU.
 *
 * The timed loops stay in the programs, each as it was: a helper they
 * call inline is static inline here.  The functions the loops do not call
 * are static, as they were in the programs, not inline: what the compiler
 * inlines around the loops stays as it was (both programs use them all).
 * Include it once, after _GNU_SOURCE: it holds the programs' mode and
 * sink.
 */
#ifndef BENCH_H
#define BENCH_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW_INSNS	500000.0	/* one timing, well under a tick */
#define REPS		7		/* instructions: timings of each */
#define MICRO_NS	40000000.0	/* otherwise: one single-op timing */
#define RUNS		21		/* otherwise: timings of each side */

static int insn_mode;			/* --instructions */
/* The targets on instruction counts were set on arm64, for its figures. */
#if defined(__aarch64__)
#define insn_targets	insn_mode
#else
#define insn_targets	0
#endif

/* Results go here, so that no measured loop is optimized away. */
static volatile unsigned long long sink;

/* The kernel's clock in ns: under -icount on arm64, one an instruction. */
static inline double monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * A value the compiler cannot see through, made by no instruction: the
 * empty loops' op.  (An asm that took the loop index as "+r" would cost
 * the empty loop a register copy the loops it stands for do not make.)
 */
static inline long opaque(void)
{
	long x;

	asm volatile("" : "=r" (x));
	return x;
}

static void pause_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * One side: run() does @n operations and returns the time they took in
 * ns, leaving out any setup, or a negative value if it failed; empty(),
 * if set, is the same loop without the operation.
 */
struct side {
	const char *name;
	double (*run)(long n, void *arg);
	double (*empty)(long n, void *arg);
	void *arg;
	long pause_ns;			/* idle this long before each timing */
	long n;				/* calibrated iteration count */
	double op[RUNS], loop[RUNS];	/* time of one timing */
	int reps;
	double cost;			/* per operation, loop subtracted */
};

static double time_side(struct side *s, double (*fn)(long, void *))
{
	if (s->pause_ns)
		pause_ns(s->pause_ns);
	return fn(s->n, s->arg);
}

/* Enough iterations that one timing of @s takes about @target_ns. */
static int calibrate(struct side *s, double target_ns)
{
	long n = 1;
	double t;

	for (;;) {
		t = s->run(n, s->arg);
		if (t < 0)
			return -1;
		if (t >= target_ns / 16)
			break;
		n *= t > 0 ? 4 : 64;
	}
	n = (long)(n * (target_ns / t));
	s->n = n > 0 ? n : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int count)
{
	double s[RUNS];

	memcpy(s, v, count * sizeof(s[0]));
	qsort(s, count, sizeof(s[0]), cmp_double);
	return s[count / 2];
}

static double minimum(const double *v, int count)
{
	double m = v[0];
	int i;

	for (i = 1; i < count; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/*
 * Time @count sides @reps times each, taking turns.  A side's cost per
 * operation, its loop subtracted: with instructions, from the shortest
 * timings of a single operation (those without a tick) and the median
 * of longer work; otherwise from the medians.
 */
static int measure(struct side *sides, int count, double target, int reps,
		   int single)
{
	int i, r;

	for (i = 0; i < count; i++) {
		sides[i].reps = reps;
		if (calibrate(&sides[i], target) < 0)
			return -1;
	}
	for (r = 0; r < reps; r++) {
		for (i = 0; i < count; i++) {
			struct side *s = &sides[(r + i) % count];

			s->op[r] = time_side(s, s->run);
			s->loop[r] = s->empty ? time_side(s, s->empty) : 0;
			if (s->op[r] < 0 || s->loop[r] < 0)
				return -1;
		}
	}
	for (i = 0; i < count; i++) {
		struct side *s = &sides[i];
		double (*pick)(const double *, int) =
			insn_mode && single ? minimum : median;

		s->cost = (pick(s->op, reps) - pick(s->loop, reps)) / s->n;
	}
	return 0;
}

/* @count sides of a single operation, timed as the top comment says. */
static int measure_single(struct side *sides, int count)
{
	return measure(sides, count, insn_mode ? WINDOW_INSNS : MICRO_NS,
		       insn_mode ? REPS : RUNS, 1);
}

/* A cost, in the unit of the run, rounded as printed. */
static double rounded(double x)
{
	return insn_mode ? (double)(long long)(x + (x < 0 ? -0.5 : 0.5)) : x;
}

/*
 * The command line, --instructions or nothing, then the whole program
 * pinned to @cpu, its threads and children with it.  0, or the exit
 * status, the reason printed.
 */
static int bench_start(const char *name, int argc, char **argv, long cpu)
{
	cpu_set_t set;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--instructions")) {
			insn_mode = 1;
		} else {
			fprintf(stderr, "usage: %s [--instructions]\n", name);
			return 2;
		}
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "%s: sched_setaffinity: %s\n", name,
			strerror(errno));
		return 1;
	}
	return 0;
}

#endif /* BENCH_H */
