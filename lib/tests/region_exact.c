// SPDX-License-Identifier: LGPL-2.1
/*
 * region_exact: the code regions of <perfctr/regions.h> on a kernel with
 * perfctr, in TAP; run in the test guests.
 *
 * Each thread sets up its own counters: the TSC and instructions:u when
 * the machine counts instructions, task-clock otherwise.  With --exact
 * (the arm64 guest under -icount shift=0, whose instruction counter is
 * exact) the instruction counts must be exact:
 *
 *  - a region around a loop of N iterations of two instructions counts
 *    2N + K, K the markers' own cost, the same for every N, nested or
 *    not, in every thread;
 *  - a region holding loops and a nested region counts the loops, K and
 *    the nested pair's whole cost, the same in every thread;
 *  - the process's counts of a region are its threads' counts added.
 *
 * Without --exact the counts must only add up.  Unbalanced calls are
 * checked everywhere: counted as such, never as calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libperfctr.h>

#include "tap.h"

#define diag(fmt, ...)	printf("# " fmt "\n", ##__VA_ARGS__)

#define THREADS		4
#define REPS		3

static int exact;
static int insn = -1;		/* the counter of instructions:u, or -1 */
static struct perfctr_region outer = PERFCTR_REGION_INIT("outer");
static struct perfctr_region inner = PERFCTR_REGION_INIT("inner");
static struct perfctr_region loop = PERFCTR_REGION_INIT("loop");

/* Exactly 2 * @n instructions, @n at least 1. */
static inline __attribute__((always_inline)) void spin(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ __volatile__("1:\tsubs %0, %0, #1\n\tb.ne 1b"
			     : "+r" (n) :: "cc");
#elif defined(__x86_64__)
	__asm__ __volatile__("1:\tdec %0\n\tjnz 1b" : "+r" (n) :: "cc");
#else
#error "no spin loop for this architecture"
#endif
}

/* This thread's counters: TSC, instructions:u if it can, task-clock. */
static int counters_start(void)
{
	struct perfctr_event_spec event;
	struct vperfctr_control control;
	struct perfctr_info info;
	struct vperfctr *vperfctr;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	int ret;

	if (perfctr_info_read(&info) < 0)
		return -1;
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	ret = -1;
	if (perfctr_event_parse(&event, "instructions:u", &info, err,
				sizeof(err)) == 0)
		ret = perfctr_event_add(&control, &event, &info, err,
					sizeof(err));
	if (ret < 0 && perfctr_event_parse(&event, "task-clock", &info, err,
					   sizeof(err)) == 0 &&
	    perfctr_event_add(&control, &event, &info, err, sizeof(err)) < 0)
		return -1;
	vperfctr = vperfctr_open();
	if (!vperfctr || vperfctr_control(vperfctr, &control) < 0)
		return -1;
	/* The handle goes; the counters stay with the thread. */
	vperfctr_close(vperfctr);
	return ret;
}

static unsigned long long count_of(struct perfctr_region *r)
{
	struct perfctr_region_counts c;

	if (perfctr_region_read(r, PERFCTR_REGION_THREAD, &c) < 0)
		return ~0ull;
	return insn >= 0 ? c.pmc[insn] : c.tsc;
}

/*
 * A region around a loop of @n: the same code for every call, so that
 * what the region counts besides the loop is the same for every call.
 */
static int __attribute__((noinline))
region_spin(struct perfctr_region *r, unsigned long n)
{
	int ret = perfctr_region_begin(r);

	spin(n);
	return ret | perfctr_region_end(r);
}

/* outer around loops and inner, inner around a loop. */
static int __attribute__((noinline)) nested(unsigned long n)
{
	int ret = perfctr_region_begin(&outer);

	spin(n);
	ret |= region_spin(&inner, 2 * n);
	spin(3 * n);
	return ret | perfctr_region_end(&outer);
}

/* What one thread counts: its loop region, then outer around inner. */
struct thread_counts {
	int ok;
	unsigned long long k[3];	/* loop's K for three loop lengths */
	unsigned long long inner_k;	/* inner's count less its loops */
	unsigned long long outer_k;	/* outer's count less its loops */
	struct perfctr_region_counts outer, inner;
};

#define LOOP_N	1000

static void *thread_run(void *arg)
{
	struct thread_counts *t = arg;
	static const unsigned long lens[3] = { 1, 1000, 250000 };
	unsigned long long before, after, outer0, inner0;
	int i, ok;

	if (counters_start() != insn)
		return NULL;
	/* First uses: the registrations and records, counted apart. */
	ok = region_spin(&loop, 1) == 0 && nested(LOOP_N) == 0;
	before = count_of(&loop);
	outer0 = count_of(&outer);
	inner0 = count_of(&inner);
	for (i = 0; i < 3; i++) {
		ok &= region_spin(&loop, lens[i]) == 0;
		after = count_of(&loop);
		t->k[i] = after - before - 2 * lens[i];
		before = after;
	}
	for (i = 0; i < REPS; i++)
		ok &= nested(LOOP_N) == 0;
	t->outer_k = count_of(&outer) - outer0 - REPS * 2 * 6 * LOOP_N;
	t->inner_k = count_of(&inner) - inner0 - REPS * 2 * 2 * LOOP_N;
	ok &= perfctr_region_read(&outer, PERFCTR_REGION_THREAD,
				  &t->outer) == 0;
	ok &= perfctr_region_read(&inner, PERFCTR_REGION_THREAD,
				  &t->inner) == 0;
	t->ok = ok;
	return NULL;
}

static void check_threads(void)
{
	struct thread_counts t[THREADS];
	struct perfctr_region_counts all;
	pthread_t tid[THREADS];
	unsigned long long sum_outer = 0, sum_inner = 0, k = 0;
	int i, ok = 1, same_k = 1;

	memset(t, 0, sizeof(t));
	for (i = 0; i < THREADS; i++)
		ok &= pthread_create(&tid[i], NULL, thread_run, &t[i]) == 0;
	for (i = 0; i < THREADS; i++)
		ok &= pthread_join(tid[i], NULL) == 0;
	for (i = 0; i < THREADS; i++) {
		ok &= t[i].ok;
		sum_outer += insn >= 0 ? t[i].outer.pmc[insn] : t[i].outer.tsc;
		sum_inner += insn >= 0 ? t[i].inner.pmc[insn] : t[i].inner.tsc;
	}
	tap_ok(ok, "%d threads: every begin and end returned 0", THREADS);
	tap_ok(t[0].outer.calls == REPS + 1 && t[0].inner.calls == REPS + 1 &&
	       t[0].outer.open == 0 && t[0].outer.lone_begins == 0,
	       "a thread's nested regions: %llu and %llu calls",
	       t[0].outer.calls, t[0].inner.calls);

	ok = perfctr_region_read(&outer, PERFCTR_REGION_PROCESS, &all) == 0;
	tap_ok(ok && all.calls == THREADS * (REPS + 1) &&
	       all.threads == THREADS &&
	       (insn >= 0 ? all.pmc[insn] : all.tsc) == sum_outer,
	       "the process's outer: %llu calls in %u threads, %llu = its "
	       "threads' %llu", all.calls, all.threads,
	       insn >= 0 ? all.pmc[insn] : all.tsc, sum_outer);
	ok = perfctr_region_read(&inner, PERFCTR_REGION_PROCESS, &all) == 0;
	tap_ok(ok && all.calls == THREADS * (REPS + 1) &&
	       (insn >= 0 ? all.pmc[insn] : all.tsc) == sum_inner,
	       "the process's inner: %llu = its threads' %llu",
	       insn >= 0 ? all.pmc[insn] : all.tsc, sum_inner);
	if (!exact)
		return;

	k = t[0].k[0];
	for (i = 0; i < THREADS; i++)
		same_k &= t[i].k[0] == k && t[i].k[1] == k && t[i].k[2] == k &&
			  t[i].inner_k == REPS * k &&
			  t[i].outer_k == t[0].outer_k;
	tap_ok(same_k, "exact: a region counts its loop and K = %llu "
	       "instructions of its markers, for every loop, nested or not, "
	       "in %d threads", k, THREADS);
	for (i = 0; i < THREADS; i++)
		diag("thread %d: K %llu %llu %llu, inner %llu, outer %llu",
			 i, t[i].k[0], t[i].k[1], t[i].k[2], t[i].inner_k,
			 t[i].outer_k);
	/* outer holds K and the nested pair: the pair's whole cost. */
	diag("a nested begin+end pair costs %llu instructions",
		 t[0].outer_k / REPS - k);
	tap_ok(t[0].outer_k % REPS == 0 && t[0].outer_k / REPS > k,
	       "exact: outer counts its loops, K and the nested pair, the "
	       "same %llu each call", t[0].outer_k / REPS);
}

static void check_unbalanced(void)
{
	static struct perfctr_region twice = PERFCTR_REGION_INIT("twice");
	static struct perfctr_region left = PERFCTR_REGION_INIT("left open");
	static struct perfctr_region never = PERFCTR_REGION_INIT("never");
	struct perfctr_region_counts c;
	int ok;

	ok = perfctr_region_begin(&twice) == 0;
	ok &= perfctr_region_begin(&twice) == -1 && errno == EINVAL;
	ok &= perfctr_region_end(&twice) == 0;
	ok &= perfctr_region_end(&twice) == -1 && errno == EINVAL;
	ok &= perfctr_region_read(&twice, PERFCTR_REGION_THREAD, &c) == 0;
	tap_ok(ok && c.calls == 1 && c.lone_begins == 1 && c.lone_ends == 1 &&
	       c.open == 0, "a begin twice and an end twice: 1 call, 1 lone "
	       "begin, 1 lone end (%llu, %llu, %llu)", c.calls,
	       c.lone_begins, c.lone_ends);
	ok = perfctr_region_begin(&left) == 0;
	ok &= perfctr_region_read(&left, PERFCTR_REGION_THREAD, &c) == 0;
	tap_ok(ok && c.calls == 0 && c.open == 1,
	       "a region begun and not ended: open, no call");
	ok = perfctr_region_end(&left) == 0;
	tap_ok(ok, "then ended");
	tap_ok(perfctr_region_read(&never, PERFCTR_REGION_THREAD, &c) == -1 &&
	       errno == ENOENT, "a region never used: ENOENT");
}

int main(int argc, char **argv)
{
	exact = argc > 1 && !strcmp(argv[1], "--exact");
	insn = counters_start();
	if (insn < 0 && exact) {
		diag("--exact: this machine does not count instructions:u");
		tap_ok(0, "counters for the exact checks");
		printf("# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0\n");
		return tap_done();
	}
	diag("counting %s", insn >= 0 ? "instructions:u" : "task-clock");
	check_threads();
	check_unbalanced();
	/* The guests' console checker reads the kselftest totals. */
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       tap.count - tap.failed, tap.failed);
	return tap_done();
}
