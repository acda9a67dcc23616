// SPDX-License-Identifier: LGPL-2.1
/*
 * The fast-read arithmetic on a made-up state page and a made-up clock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fast_read.h"
#include "tap.h"

/*
 * A clock whose "hardware" values the test sets, and which may rewrite
 * the page the first time it is read, as the kernel would if the owner
 * were switched out in the middle of a read.
 */
struct fake_clock {
	struct vperfctr_state *page;
	__u64 tsc;
	__u64 pmc[PERFCTR_MAX_NRCTRS];	/* indexed by hardware map */
	unsigned int tsc_reads;
	void (*on_first_read)(struct fake_clock *fake);
	/* x86 TopDown: fixed counter 3 and PERF_METRICS, as rdpmc reads. */
	__u64 slots;
	__u64 metrics;
	unsigned int rdpmc_reads;
};

static __u64 fake_read_tsc(void *arg)
{
	struct fake_clock *fake = arg;

	if (fake->tsc_reads++ == 0 && fake->on_first_read)
		fake->on_first_read(fake);
	return fake->tsc;
}

static __u64 fake_read_pmc(void *arg, __u32 map)
{
	struct fake_clock *fake = arg;

	return fake->pmc[map % PERFCTR_MAX_NRCTRS];
}

/*
 * rdpmc on an x86 with TopDown: the slots counter and PERF_METRICS by
 * their rdpmc names, any other counter as fake_read_pmc() has it.
 */
static __u64 fake_rdpmc(void *arg, __u32 map)
{
	struct fake_clock *fake = arg;

	fake->rdpmc_reads++;
	if (map == (PERFCTR_MAP_X86_FIXED | PERFCTR_X86_FIXED_SLOTS))
		return fake->slots;
	if (map == PERFCTR_MAP_X86_METRIC)
		return fake->metrics;
	return fake_read_pmc(arg, map);
}

static struct vperfctr_state page;
static struct fake_clock fake;
static struct vperfctr_clock clock_tsc = { fake_read_tsc, NULL, &fake };
static struct vperfctr_clock clock_all = {
	fake_read_tsc, fake_read_pmc, &fake
};
static struct vperfctr_clock clock_x86 = {
	fake_read_tsc, fake_rdpmc, &fake
};

/*
 * The page as the kernel writes it from flags, cstatus and the maps a
 * test sets: the live words (ABI 6.2) name the TSC and the readable
 * hardware counters (else VPERFCTR_LIVE_SYSCALL), and the task-clock
 * counters, among the running ones, while the owner is on its CPU;
 * nrsums, unless the test set it, covers every counter.
 */
static void as_the_kernel_writes(struct vperfctr_state *p)
{
	__u32 cstatus = p->cpu_state.cstatus;
	unsigned int i, n = perfctr_cstatus_nrctrs(cstatus);
	__u64 live = 0;
	__u32 clocks = 0;

	if (!p->nrsums)
		p->nrsums = PERFCTR_MAX_NRCTRS;
	if (p->flags & VPERFCTR_STATE_ONCPU) {
		for (i = 0; i < n && i < PERFCTR_MAX_NRCTRS; i++) {
			__u32 map = p->cpu_state.pmc[i].map;

			/* Hardware: live where the owner may read it. */
			if (map == (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK))
				clocks |= 1u << i;
			else if (map & PERFCTR_MAP_SOFTWARE)
				continue;
			else if (p->flags & VPERFCTR_STATE_RDPMC)
				live |= 1ull << i;
			else
				live |= VPERFCTR_LIVE_SYSCALL;
		}
		if (perfctr_cstatus_has_tsc(cstatus))
			live |= VPERFCTR_LIVE_TSC;
	}
	p->live = live;
	p->live_clock = clocks;
}

static int read_tsc(struct vperfctr_state *p,
		    const struct vperfctr_clock *clock, __u64 *tsc)
{
	as_the_kernel_writes(p);
	return vperfctr_state_read_tsc(p, clock, tsc);
}

static int read_ctrs(struct vperfctr_state *p,
		     const struct vperfctr_clock *clock,
		     struct perfctr_sum_ctrs *sum)
{
	as_the_kernel_writes(p);
	return vperfctr_state_read_ctrs(p, clock, sum);
}

static int read_pmc(struct vperfctr_state *p,
		    const struct vperfctr_clock *clock, unsigned int i,
		    __u64 *value)
{
	as_the_kernel_writes(p);
	return vperfctr_state_read_pmc(p, clock, i, value);
}

static void setup(__u32 seq, __u32 flags, __u32 cstatus,
		  __u64 tsc_start, __u64 tsc_sum, __u64 now)
{
	memset(&page, 0, sizeof(page));
	page.magic = VPERFCTR_STATE_MAGIC;
	page.abi_version = PERFCTR_ABI_VERSION;
	page.seq = seq;
	page.flags = flags;
	page.cpu_state.cstatus = cstatus;
	page.cpu_state.tsc_start = tsc_start;
	page.cpu_state.tsc_sum = tsc_sum;
	memset(&fake, 0, sizeof(fake));
	fake.page = &page;
	fake.tsc = now;
}

static void test_stopped(void)
{
	__u64 tsc = 0;
	int ret;

	setup(2, 0, 0, 1000, 12345, 99999);
	ret = read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, 0, "stopped state: read succeeds");
	tap_is_u64(tsc, 12345, "stopped state: value is the sum");
	tap_is_int(fake.tsc_reads, 0, "stopped state: hardware not read");
}

static void test_running(void)
{
	__u64 tsc = 0;
	int ret;

	setup(4, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      1000, 500, 1750);
	ret = read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, 0, "running: read succeeds");
	tap_is_u64(tsc, 500 + 750, "running: value is sum + now - start");
	tap_is_int(fake.tsc_reads, 1, "running: hardware read once");
}

static void test_oncpu_tsc_off(void)
{
	__u64 tsc = 1;

	setup(0, VPERFCTR_STATE_ONCPU, 0, 1000, 0, 5000);
	read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 0, "TSC off while on CPU: value is the sum");
}

static void test_suspended(void)
{
	__u64 tsc = 0;

	/* Counting, but the owner is switched out: "start" is stale. */
	setup(6, 0, PERFCTR_CSTATUS_TSC_ON, 1000, 777, 1ull << 40);
	read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 777, "owner suspended: value is the sum");
}

static void test_dead(void)
{
	__u64 tsc = 0;

	setup(8, VPERFCTR_STATE_DEAD | VPERFCTR_STATE_DETACHED,
	      PERFCTR_CSTATUS_TSC_ON, 1000, 424242, 1ull << 40);
	read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 424242, "owner exited: value is the final sum");
}

static void test_wrap(void)
{
	__u64 tsc = 0;

	setup(0, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      ~0ull - 9, 100, 5);
	read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 100 + 15, "now - start is taken modulo 2^64");
}

/* The owner was switched out and back in during the read. */
static void switched_during_read(struct fake_clock *f)
{
	f->page->seq += 2;
	f->page->cpu_state.tsc_sum = 2000;
	f->page->cpu_state.tsc_start = 9000;
	f->tsc = 9100;
}

static void test_seq_changes(void)
{
	__u64 tsc = 0;
	int ret;

	setup(10, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      1000, 500, 1750);
	fake.on_first_read = switched_during_read;
	ret = read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, 0, "seq changed mid-read: read succeeds");
	tap_is_int(fake.tsc_reads, 2, "seq changed mid-read: read retried");
	tap_is_u64(tsc, 2000 + 100,
		   "seq changed mid-read: value from the new snapshot");
}

/* The kernel finishes the update it was in the middle of. */
static void update_finished(struct fake_clock *f)
{
	f->page->seq += 1;
	f->page->cpu_state.tsc_sum = 3000;
	f->page->cpu_state.tsc_start = 100;
	f->tsc = 130;
}

static void test_seq_odd(void)
{
	__u64 tsc = 0;
	int ret;

	setup(11, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      1000, 500, 1750);
	fake.on_first_read = update_finished;
	ret = read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, 0, "odd seq: read succeeds once seq is even");
	tap_is_int(fake.tsc_reads, 2, "odd seq: first snapshot discarded");
	tap_is_u64(tsc, 3000 + 30, "odd seq: value from the even snapshot");
}

static void test_seq_stuck_odd(void)
{
	__u64 tsc = 4242;
	int ret;

	setup(13, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      1000, 500, 1750);
	errno = 0;
	ret = read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, -1, "seq stuck odd: read gives up");
	tap_is_int(errno, EAGAIN, "seq stuck odd: errno is EAGAIN");
	tap_is_int(fake.tsc_reads, VPERFCTR_READ_RETRIES,
		   "seq stuck odd: retries are bounded");
	tap_is_u64(tsc, 4242, "seq stuck odd: output left alone");
}

static void set_pmc(unsigned int i, __u32 map, __u64 start, __u64 sum)
{
	page.cpu_state.pmc[i].map = map;
	page.cpu_state.pmc[i].width = 64;
	page.cpu_state.pmc[i].start = start;
	page.cpu_state.pmc[i].sum = sum;
}

static void test_pmcs_running(void)
{
	struct perfctr_sum_ctrs sum;
	unsigned int i, rest = 0;
	int ret;

	/* Two a-mode and one i-mode counter, hardware counters 5, 0, 7. */
	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 2, 100, 10, 200);
	set_pmc(0, 5, 1000, 1);
	set_pmc(1, 0, 50, 2);
	set_pmc(2, 7, ~0ull, 3);
	page.cpu_state.pmc[3].sum = 999;	/* not running: its sum */
	fake.pmc[5] = 1500;
	fake.pmc[0] = 60;
	fake.pmc[7] = 4;
	memset(&sum, 0xff, sizeof(sum));
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "PMCs running: read succeeds");
	tap_is_u64(sum.tsc, 10 + 100, "PMCs running: TSC");
	tap_is_u64(sum.pmc[0], 1 + 500, "PMCs running: pmc[0] uses map 5");
	tap_is_u64(sum.pmc[1], 2 + 10, "PMCs running: pmc[1] uses map 0");
	tap_is_u64(sum.pmc[2], 3 + 5, "PMCs running: i-mode pmc[2] wraps");
	tap_is_u64(sum.pmc[3], 999,
		   "PMCs running: a counter not running reads its sum");
	for (i = 4; i < PERFCTR_MAX_NRCTRS; i++)
		rest |= sum.pmc[i] != 0;
	tap_is_int(rest, 0, "PMCs running: unused counters read 0");
}

static void test_pmcs_no_rdpmc(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | 1, 100, 10, 200);
	set_pmc(0, 0, 1000, 1);
	errno = 0;
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, -1, "PMCs live, no rdpmc: fast read refused");
	tap_is_int(errno, EOPNOTSUPP, "PMCs live, no rdpmc: EOPNOTSUPP");

	/* The CPU could, but the kernel does not let this thread. */
	setup(0, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 1,
	      100, 10, 200);
	set_pmc(0, 0, 1000, 1);
	fake.pmc[0] = 1500;
	errno = 0;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, -1, "PMCs live, RDPMC flag clear: fast read refused");
	tap_is_int(errno, EOPNOTSUPP,
		   "PMCs live, RDPMC flag clear: EOPNOTSUPP");
}

static void test_pmcs_wrap_at_width(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	/* A 48-bit counter resumed at 2^48 - 0x100 now reads 0x200. */
	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC, 1,
	      100, 10, 200);
	set_pmc(0, 3, (1ull << 48) - 0x100, 7);
	page.cpu_state.pmc[0].width = 48;
	fake.pmc[3] = 0x200;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "48-bit wrap: read succeeds");
	tap_is_u64(sum.pmc[0], 7 + 0x300, "48-bit wrap: delta modulo 2^48");

	/*
	 * A 64-bit counter that counted 2^63 + 5 since its resume: the
	 * difference is negative as a signed number, and is the count.
	 */
	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC, 1,
	      100, 10, 200);
	set_pmc(0, 3, 10, 7);
	page.cpu_state.pmc[0].width = 64;
	fake.pmc[3] = 10 + (1ull << 63) + 5;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "64-bit, 2^63 + 5 counted: read succeeds");
	tap_is_u64(sum.pmc[0], 7 + (1ull << 63) + 5,
		   "64-bit, 2^63 + 5 counted: all of it");
}

/*
 * arm64's counters: a 32-bit event counter wraps at 2^32, and the cycle
 * counter, map PERFCTR_MAP_ARM64_CYCLES, is 64 bits wide.
 */
static void test_pmcs_arm64(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | 2, 100, 10, 200);
	set_pmc(0, PERFCTR_MAP_ARM64_CYCLES, (1ull << 40) - 5, 1);
	set_pmc(1, 2, 0xffffff00, 2);
	page.cpu_state.pmc[1].width = 32;
	fake.pmc[PERFCTR_MAP_ARM64_CYCLES] = (1ull << 40) + 5;
	fake.pmc[2] = 0x80;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "arm64: read succeeds");
	tap_is_u64(sum.pmc[0], 1 + 10, "arm64: the cycle counter, 64 bits");
	tap_is_u64(sum.pmc[1], 2 + 0x180,
		   "arm64: a 32-bit event counter, delta modulo 2^32");
}

static void test_pmcs_suspended(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	/* Suspended: the sums are final, no hardware needed. */
	setup(2, 0, PERFCTR_CSTATUS_TSC_ON | 2, 100, 10, 200);
	set_pmc(0, 0, 1000, 11);
	set_pmc(1, 1, 1000, 22);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, 0, "PMCs suspended: read without rdpmc works");
	tap_is_u64(sum.pmc[0] + sum.pmc[1], 33,
		   "PMCs suspended: values are the sums");
}

/* (delta * mult) >> shift, exactly, the slow way. */
static __u64 scale_ref(__u64 delta, __u32 mult, __u32 shift)
{
	return (__u64)(((unsigned __int128)delta * mult) >> shift);
}

static void scale(__u64 delta, __u32 mult, __u32 shift, const char *what)
{
	tap_is_u64(vperfctr_scale_time(delta, mult, shift),
		   scale_ref(delta, mult, shift), "scale: %s", what);
}

static void test_scale_time(void)
{
	/* 3 GHz: ns = ticks / 3, as mult 2^32 / 3 with shift 32. */
	const __u32 mult_3ghz = 1431655765u;
	__u64 x = 0x9e3779b97f4a7c15ull;
	unsigned int i, bad = 0;

	tap_is_u64(vperfctr_scale_time(0, mult_3ghz, 32), 0, "scale: 0 ticks");
	tap_is_u64(vperfctr_scale_time(3000000000ull, 1u << 31, 31),
		   3000000000ull, "scale: mult 1.0 (2^31 >> 31) is identity");
	tap_is_u64(vperfctr_scale_time(1000, 5, 0), 5000, "scale: shift 0");
	tap_is_u64(vperfctr_scale_time(3000000000ull, mult_3ghz, 32),
		   999999999, "scale: 3e9 ticks at 3 GHz: a second, less 1 ns");
	/* 2^40 ticks * 2^30.4 overflows 64 bits: the split must not. */
	scale(1ull << 40, mult_3ghz, 32, "2^40 ticks at 3 GHz");
	tap_ok((((1ull << 40) * mult_3ghz) >> 32) !=
	       scale_ref(1ull << 40, mult_3ghz, 32),
	       "scale: (where the naive 64-bit product is wrong)");
	scale(~0ull, mult_3ghz, 32, "2^64-1 ticks at 3 GHz");
	scale(~0ull, ~0u, 32, "2^64-1 ticks, mult 2^32-1");
	scale(123456789012345ull, 0xffffffffu, 31, "mult above 1.0");
	scale(1ull << 63, 1u << 31, 31, "2^63 ticks at mult 1.0");
	/* Many more, against the 128-bit product. */
	for (i = 0; i < 10000; i++) {
		__u64 delta, mult, shift;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		delta = x >> (i % 64);
		mult = (__u32)(x >> 16);
		shift = i % (VPERFCTR_TIME_SHIFT_MAX + 1u);
		if (vperfctr_scale_time(delta, mult, shift) !=
		    scale_ref(delta, mult, shift)) {
			if (!bad++)
				printf("#   %llu * %llu >> %llu wrong\n",
				       (unsigned long long)delta,
				       (unsigned long long)mult,
				       (unsigned long long)shift);
		}
	}
	tap_is_int(bad, 0, "scale: 10000 random cases match 128-bit math");
}

#define SW(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)

static void test_sw_events_live(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	/* TSC off, three event counters: sums as they are, no hardware. */
	setup(2, VPERFCTR_STATE_ONCPU, 3, 0, 0, 5000);
	set_pmc(0, SW(CONTEXT_SWITCHES), 12345, 7);
	set_pmc(1, SW(PAGE_FAULTS), ~0ull, 42);
	set_pmc(2, SW(CPU_MIGRATIONS), 1, 2);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, 0, "software events live: read succeeds without rdpmc");
	tap_ok(sum.pmc[0] == 7 && sum.pmc[1] == 42 && sum.pmc[2] == 2,
	       "software events live: values are the sums");
	tap_is_int(fake.tsc_reads, 0, "software events live: TSC not read");
}

static void test_task_clock_live(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	/* TSC and task-clock, both resumed at 1000; now is 4000. */
	setup(4, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 2,
	      1000, 100, 4000);
	page.time_mult = 1431655765u;	/* 3 GHz */
	page.time_shift = 32;
	set_pmc(0, SW(TASK_CLOCK), 1000, 500);
	set_pmc(1, SW(PAGE_FAULTS), 0, 9);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, 0, "task-clock live: read succeeds");
	tap_is_u64(sum.tsc, 100 + 3000, "task-clock live: TSC");
	tap_is_u64(sum.pmc[0], 500 + 999,
		   "task-clock live: sum + scaled (now - start)");
	tap_is_u64(sum.pmc[1], 9, "task-clock live: fault counter beside it");
	tap_is_int(fake.tsc_reads, 1,
		   "task-clock live: one TSC read for TSC and task-clock");

	/* TSC off: task-clock still needs the TSC, read once. */
	setup(4, VPERFCTR_STATE_ONCPU, 1, 0, 0, 1ull << 41);
	page.time_mult = 1431655765u;
	page.time_shift = 32;
	set_pmc(0, SW(TASK_CLOCK), 1ull << 40, 77);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == 0 && fake.tsc_reads == 1,
	       "task-clock live, TSC off: TSC read once");
	tap_is_u64(sum.pmc[0], 77 + scale_ref(1ull << 40, 1431655765u, 32),
		   "task-clock live, 2^40 ticks: no overflow");

	/* The TSC wrapped since the resume. */
	setup(4, VPERFCTR_STATE_ONCPU, 1, 0, 0, 30);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	set_pmc(0, SW(TASK_CLOCK), ~0ull - 69, 1);
	read_ctrs(&page, &clock_tsc, &sum);
	tap_is_u64(sum.pmc[0], 1 + 100, "task-clock: tsc - start modulo 2^64");
}

static void test_task_clock_suspended(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(6, 0, PERFCTR_CSTATUS_TSC_ON | 1, 1000, 100, 1ull << 50);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	set_pmc(0, SW(TASK_CLOCK), 1000, 123456);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == 0 && sum.pmc[0] == 123456 && sum.tsc == 100,
	       "task-clock suspended: values are the sums");
	tap_is_int(fake.tsc_reads, 0, "task-clock suspended: TSC not read");

	/* Gone for good: the same, and no clock needed at all. */
	setup(8, VPERFCTR_STATE_DEAD | VPERFCTR_STATE_DETACHED, 1, 0, 0, 0);
	set_pmc(0, SW(TASK_CLOCK), 1000, 654321);
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == 0 && sum.pmc[0] == 654321,
	       "task-clock of an exited owner: the final sum");
}

static void test_task_clock_unsupported(void)
{
	struct vperfctr_clock no_tsc = { NULL, NULL, &fake };
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(4, VPERFCTR_STATE_ONCPU, 1, 0, 0, 5000);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	set_pmc(0, SW(TASK_CLOCK), 1000, 1);
	errno = 0;
	ret = read_ctrs(&page, &no_tsc, &sum);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "task-clock live, no TSC to read: EOPNOTSUPP");

	page.time_shift = VPERFCTR_TIME_SHIFT_MAX + 1;
	errno = 0;
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "task-clock live, time_shift too large: EOPNOTSUPP");

	/* Software beside a live hardware counter, and no rdpmc. */
	setup(4, VPERFCTR_STATE_ONCPU, 2, 0, 0, 5000);
	set_pmc(0, SW(PAGE_FAULTS), 0, 1);
	set_pmc(1, 3, 0, 1);
	errno = 0;
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "software and live hardware counter, no rdpmc: EOPNOTSUPP");
}

static void test_mixed_live(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(4, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | 3, 100, 10, 1100);
	page.time_mult = 1u << 30;	/* 0.5 ns a tick */
	page.time_shift = 31;
	set_pmc(0, 2, 1000, 5);
	set_pmc(1, SW(TASK_CLOCK), 500, 40);
	set_pmc(2, SW(MAJOR_FAULTS), 0, 1);
	fake.pmc[2] = 1300;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "hardware and software live: read succeeds");
	tap_ok(sum.tsc == 10 + 1000 && sum.pmc[0] == 5 + 300 &&
	       sum.pmc[1] == 40 + 300 && sum.pmc[2] == 1,
	       "hardware and software live: each by its own rule");
	tap_is_int(fake.tsc_reads, 1,
		   "hardware and software live: one TSC read");
}

/* Switched out and back in: task-clock moved on, start too. */
static void task_clock_switched(struct fake_clock *f)
{
	f->page->seq += 2;
	f->page->cpu_state.pmc[0].sum = 7000;
	f->page->cpu_state.pmc[0].start = 9000;
	f->tsc = 9100;
}

static void test_task_clock_seq(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(10, VPERFCTR_STATE_ONCPU, 1, 0, 0, 1750);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	set_pmc(0, SW(TASK_CLOCK), 1000, 500);
	fake.on_first_read = task_clock_switched;
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, 0, "task-clock, seq changed mid-read: read succeeds");
	tap_is_int(fake.tsc_reads, 2,
		   "task-clock, seq changed mid-read: TSC read again");
	tap_is_u64(sum.pmc[0], 7000 + 100,
		   "task-clock, seq changed mid-read: the new snapshot");
}

static void test_read_one_pmc(void)
{
	__u64 value = 0;
	int ret;

	/* Three live counters; only the one asked for is read. */
	setup(0, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | 3, 100, 10, 200);
	set_pmc(0, 5, 1000, 1);
	set_pmc(1, 2, 50, 2);
	set_pmc(2, SW(TASK_CLOCK), 150, 3);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	fake.pmc[5] = 1500;
	fake.pmc[2] = 60;
	ret = read_pmc(&page, &clock_all, 1, &value);
	tap_ok(ret == 0 && value == 2 + 10, "read_pmc: counter 1 by its map");
	tap_is_int(fake.tsc_reads, 0, "read_pmc: a hardware counter: no TSC");
	ret = read_pmc(&page, &clock_all, 2, &value);
	tap_ok(ret == 0 && value == 3 + 50 && fake.tsc_reads == 1,
	       "read_pmc: task-clock reads the TSC");

	/* Beyond the control: the sum. */
	page.cpu_state.pmc[7].sum = 70;
	ret = read_pmc(&page, &clock_tsc, 7, &value);
	tap_ok(ret == 0 && value == 70, "read_pmc: a counter not running");

	value = 99;
	errno = 0;
	ret = read_pmc(&page, &clock_all, PERFCTR_MAX_NRCTRS,
				      &value);
	tap_ok(ret == -1 && errno == EINVAL && value == 99,
	       "read_pmc: counter %d: EINVAL", PERFCTR_MAX_NRCTRS);
	errno = 0;
	ret = read_pmc(&page, &clock_tsc, 0, &value);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "read_pmc: live hardware counter, no rdpmc: EOPNOTSUPP");

	/* The page changes under the read: read again. */
	setup(10, VPERFCTR_STATE_ONCPU, 1, 0, 0, 1750);
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	set_pmc(0, SW(TASK_CLOCK), 1000, 500);
	fake.on_first_read = task_clock_switched;
	ret = read_pmc(&page, &clock_tsc, 0, &value);
	tap_ok(ret == 0 && value == 7000 + 100 && fake.tsc_reads == 2,
	       "read_pmc: seq changed mid-read: the new snapshot");
}

/* PERF_METRICS with the bytes @b0 (retiring) to @b7 (memory bound). */
static __u64 metrics_of(__u8 b0, __u8 b1, __u8 b2, __u8 b3, __u8 b4,
			__u8 b5, __u8 b6, __u8 b7)
{
	return (__u64)b0 | (__u64)b1 << 8 | (__u64)b2 << 16 |
	       (__u64)b3 << 24 | (__u64)b4 << 32 | (__u64)b5 << 40 |
	       (__u64)b6 << 48 | (__u64)b7 << 56;
}

static __u64 topdown(__u64 slots, __u64 metrics, unsigned int k)
{
	return perfctr_x86_topdown_slots(slots, metrics, k);
}

static __u64 xorshift(__u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The slot arithmetic that the fast read shares with the kernel: the
 * four level 1 categories split the slots exactly, a level 2 category
 * never exceeds its level 1 one, and no metric at all is no slot.
 */
static void test_topdown_arithmetic(void)
{
	/* 51, 34, 17 and 153 of 255: a fifth, two, two and three fifths. */
	__u64 m = metrics_of(0x33, 0x22, 0x11, 0x99, 0x20, 0x22, 0x05, 0xff);
	__u64 x = 0x2545f4914f6cdd1dull, slots, sum;
	unsigned int i, k, split = 0, over = 0, zero = 0;

	tap_ok(topdown(1000, m, 0) == 200 && topdown(1000, m, 1) == 133 &&
	       topdown(1000, m, 2) == 67 && topdown(1000, m, 3) == 600,
	       "topdown: 1000 slots split 200, 133, 67, 600, each rounded "
	       "down at its cumulative boundary");
	tap_ok(topdown(1000, m, 4) == 125 && topdown(1000, m, 5) == 133 &&
	       topdown(1000, m, 6) == 19 && topdown(1000, m, 7) == 600,
	       "topdown: level 2 in proportion, mem bound capped at backend "
	       "bound");
	tap_is_u64(topdown(1000, m, 8), 0, "topdown: no category 8");
	tap_ok(topdown(12345, 0, 0) == 0 && topdown(12345, 0, 3) == 0 &&
	       topdown(12345, 0, 4) == 0 &&
	       topdown(12345, metrics_of(0, 0, 0, 0, 9, 9, 9, 9), 7) == 0,
	       "topdown: PERF_METRICS 0, level 1 bytes 0: no slots");
	tap_ok(topdown(0, m, 0) == 0 && topdown(0, m, 3) == 0,
	       "topdown: no slots, no category slots");
	/* The largest slots counter, every byte full: no product overflows. */
	slots = (1ull << 48) - 1;
	m = ~0ull;
	sum = topdown(slots, m, 0) + topdown(slots, m, 1) +
	      topdown(slots, m, 2) + topdown(slots, m, 3);
	tap_ok(sum == slots && topdown(slots, m, 4) == topdown(slots, m, 0),
	       "topdown: 2^48 - 1 slots, every byte 0xff: split exactly");

	for (i = 0; i < 100000; i++) {
		slots = xorshift(&x) >> (10 + i % 40);
		m = xorshift(&x);
		/* Some with level 1 all 0, some with a byte 0 among them. */
		if (i % 7 == 0)
			m &= 0xffffffff00000000ull;
		if (i % 5 == 0)
			m &= ~(0xffull << (8 * (i % 4)));
		for (k = 0, sum = 0; k < 4; k++)
			sum += topdown(slots, m, k);
		if ((m & 0xffffffff) ? sum != slots : sum != 0) {
			if (!split++)
				printf("#   %llu slots, metrics %#llx: "
				       "sum %llu\n", (unsigned long long)slots,
				       (unsigned long long)m,
				       (unsigned long long)sum);
		}
		for (k = 4; k < 8; k++)
			over += topdown(slots, m, k) > topdown(slots, m, k - 4);
		if (!(m & 0xffffffff))
			for (k = 0; k < 8; k++)
				zero += topdown(slots, m, k) != 0;
	}
	tap_is_int(split, 0, "topdown: 100000 random cases: level 1 sums to "
		   "the slots, to the slot");
	tap_is_int(over, 0, "topdown: 100000 random cases: level 2 within "
		   "level 1");
	tap_is_int(zero, 0, "topdown: level 1 bytes all 0: every category 0");
}

/*
 * The page of a thread that counts slots (fixed counter 3) and the
 * level 1 categories, live: each category's value is its sum and its
 * share of the slots counted since the resume, the slots counter's and
 * the categories' start 0.
 */
static void setup_topdown(__u32 flags)
{
	unsigned int k;

	setup(4, flags, PERFCTR_CSTATUS_TSC_ON | 6, 100, 10, 200);
	set_pmc(0, 1, 1000, 7);		/* general-purpose counter 1 */
	set_pmc(1, PERFCTR_MAP_X86_FIXED | PERFCTR_X86_FIXED_SLOTS, 0, 5000);
	page.cpu_state.pmc[1].width = 48;
	/* Sums from earlier periods, which add up to the slots' sum. */
	for (k = 0; k < 4; k++)
		set_pmc(2 + k, PERFCTR_MAP_X86_METRIC | k, 0,
			(__u64[]){ 1000, 500, 1500, 2000 }[k]);
	fake.pmc[1] = 1300;
	fake.slots = 1000;
	fake.metrics = metrics_of(0x33, 0x22, 0x11, 0x99, 0, 0, 0, 0);
}

static void test_topdown_page(void)
{
	struct perfctr_sum_ctrs sum;
	__u64 value = 0, l1;
	unsigned int k;
	int ret;

	setup_topdown(VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC);
	ret = read_ctrs(&page, &clock_x86, &sum);
	tap_is_int(ret, 0, "topdown page, live: read succeeds");
	tap_ok(sum.pmc[0] == 7 + 300 && sum.pmc[1] == 5000 + 1000,
	       "topdown page, live: a general-purpose counter and the slots "
	       "as any counter");
	tap_ok(sum.pmc[2] == 1000 + 200 && sum.pmc[3] == 500 + 133 &&
	       sum.pmc[4] == 1500 + 67 && sum.pmc[5] == 2000 + 600,
	       "topdown page, live: each category its sum and its share");
	for (k = 0, l1 = 0; k < 4; k++)
		l1 += sum.pmc[2 + k];
	tap_is_u64(l1, sum.pmc[1], "topdown page, live: level 1 adds up to "
		   "the slots");

	fake.rdpmc_reads = 0;
	ret = read_pmc(&page, &clock_x86, 5, &value);
	tap_ok(ret == 0 && value == 2000 + 600,
	       "topdown page: read_pmc of a live category");
	tap_is_int(fake.rdpmc_reads, 2, "topdown page: read_pmc reads the "
		   "slots and PERF_METRICS, nothing else");

	/*
	 * The inline read of the owner's page leaves the categories to the
	 * out-of-line read, and reads the others itself.
	 */
	value = 99;
	fake.rdpmc_reads = 0;
	ret = vperfctr_page_read_pmc(&page, 1, 4, fake_read_tsc, fake_rdpmc,
				     &fake, &value);
	tap_ok(ret == -1 && value == 99 && fake.rdpmc_reads == 0,
	       "topdown page: the inline read leaves a category to the "
	       "out-of-line read");
	ret = vperfctr_page_read_ctrs(&page, 1, fake_read_tsc, fake_rdpmc,
				      &fake, &sum);
	tap_is_int(ret, -1, "topdown page: so does the inline read_ctrs");
	ret = vperfctr_page_read_pmc(&page, 1, 1, fake_read_tsc, fake_rdpmc,
				     &fake, &value);
	tap_ok(ret == 0 && value == 5000 + 1000,
	       "topdown page: the inline read reads the slots counter");

	fake.metrics = 0;
	ret = read_ctrs(&page, &clock_x86, &sum);
	tap_ok(ret == 0 && sum.pmc[1] == 6000 && sum.pmc[2] == 1000 &&
	       sum.pmc[5] == 2000,
	       "topdown page: PERF_METRICS still 0: no share yet, the sums");

	/* Switched out: the sums, and no rdpmc at all. */
	setup_topdown(0);
	fake.rdpmc_reads = 0;
	ret = read_ctrs(&page, &clock_tsc, &sum);
	tap_ok(ret == 0 && sum.pmc[1] == 5000 && sum.pmc[2] == 1000 &&
	       sum.pmc[5] == 2000 && fake.rdpmc_reads == 0,
	       "topdown page, suspended: the sums, without rdpmc");

	/* Live, and no rdpmc to read them with: the system call's. */
	setup_topdown(VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC);
	errno = 0;
	ret = read_pmc(&page, &clock_tsc, 3, &value);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "topdown page, live, no rdpmc: EOPNOTSUPP");
}

/* The owner switched out and in during the read: new sums, new slots. */
static void topdown_switched(struct fake_clock *f)
{
	f->page->seq += 2;
	f->page->cpu_state.pmc[2].sum = 4000;
	f->slots = 255;
	f->metrics = metrics_of(0x33, 0x22, 0x11, 0x99, 0, 0, 0, 0);
}

static void test_topdown_seq(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup_topdown(VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC);
	fake.on_first_read = topdown_switched;
	ret = read_ctrs(&page, &clock_x86, &sum);
	tap_ok(ret == 0 && fake.tsc_reads == 2 && sum.pmc[2] == 4000 + 51 &&
	       sum.pmc[1] == 5000 + 255,
	       "topdown page, seq changed mid-read: the new snapshot");
}

static void test_check(void)
{
	setup(0, 0, 0, 0, 0, 0);
	tap_is_int(vperfctr_state_check(&page), 0, "page of our ABI: accepted");
	page.abi_version = (PERFCTR_ABI_MAJOR << 16) | 0xffff;
	tap_is_int(vperfctr_state_check(&page), 0,
		   "page of a newer minor ABI: accepted");
	page.abi_version = (PERFCTR_ABI_MAJOR + 1) << 16;
	errno = 0;
	tap_ok(vperfctr_state_check(&page) == -1 && errno == EPROTO,
	       "page of another major ABI: EPROTO");
	page.abi_version = PERFCTR_ABI_VERSION;
	page.magic = 0;
	errno = 0;
	tap_ok(vperfctr_state_check(&page) == -1 && errno == EPROTO,
	       "page with a bad magic: EPROTO");
}

/*
 * Only the first nrsums sums can be non-zero (ABI 6.2): read_ctrs reads
 * and writes those alone, as perfctr 2.7 did, and the live word
 * alone says which values run: a counter whose bit is clear reads as its
 * sum even while the owner runs.
 */
static void test_nrsums_and_live(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(2, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
	      PERFCTR_CSTATUS_TSC_ON | 2, 100, 5, 130);
	set_pmc(0, 4, 1000, 10);
	set_pmc(1, 5, 2000, 20);
	set_pmc(7, 6, 0, 99);		/* beyond nrsums: not the kernel's */
	fake.pmc[4] = 1003;
	fake.pmc[5] = 2004;
	page.nrsums = 2;
	sum.pmc[7] = 12345;
	ret = read_ctrs(&page, &clock_all, &sum);
	tap_ok(ret == 0 && sum.tsc == 35 && sum.pmc[0] == 13 &&
	       sum.pmc[1] == 24 && sum.pmc[7] == 12345,
	       "nrsums 2: two counters read, the rest left as they were");

	page.live &= ~2ull;
	fake.tsc_reads = 0;
	errno = 0;
	ret = vperfctr_state_read_ctrs(&page, &clock_all, &sum);
	tap_ok(ret == 0 && sum.pmc[0] == 13 && sum.pmc[1] == 20,
	       "live bit clear: the sum, even on the CPU");
	ret = vperfctr_state_read_pmc(&page, &clock_all, 1, &sum.pmc[1]);
	tap_ok(ret == 0 && sum.pmc[1] == 20,
	       "live bit clear: read_pmc gives the sum too");

	page.nrsums = PERFCTR_MAX_NRCTRS + 1;
	errno = 0;
	ret = vperfctr_state_read_ctrs(&page, &clock_all, &sum);
	tap_ok(ret == -1 && errno == EOPNOTSUPP,
	       "nrsums beyond the counters: EOPNOTSUPP, left to the kernel");
}

int main(void)
{
	test_stopped();
	test_running();
	test_oncpu_tsc_off();
	test_suspended();
	test_dead();
	test_wrap();
	test_seq_changes();
	test_seq_odd();
	test_seq_stuck_odd();
	test_pmcs_running();
	test_pmcs_no_rdpmc();
	test_pmcs_wrap_at_width();
	test_pmcs_arm64();
	test_pmcs_suspended();
	test_scale_time();
	test_sw_events_live();
	test_task_clock_live();
	test_task_clock_suspended();
	test_task_clock_unsupported();
	test_mixed_live();
	test_task_clock_seq();
	test_read_one_pmc();
	test_nrsums_and_live();
	test_topdown_arithmetic();
	test_topdown_page();
	test_topdown_seq();
	test_check();
	return tap_done();
}
