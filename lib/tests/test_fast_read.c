// SPDX-License-Identifier: LGPL-2.1
/*
 * The fast-read arithmetic on a made-up state page and a made-up clock.
 */
#include <errno.h>
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

static struct vperfctr_state page;
static struct fake_clock fake;
static struct vperfctr_clock clock_tsc = { fake_read_tsc, NULL, &fake };
static struct vperfctr_clock clock_all = {
	fake_read_tsc, fake_read_pmc, &fake
};

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
	ret = vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
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
	ret = vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, 0, "running: read succeeds");
	tap_is_u64(tsc, 500 + 750, "running: value is sum + now - start");
	tap_is_int(fake.tsc_reads, 1, "running: hardware read once");
}

static void test_oncpu_tsc_off(void)
{
	__u64 tsc = 1;

	setup(0, VPERFCTR_STATE_ONCPU, 0, 1000, 0, 5000);
	vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 0, "TSC off while on CPU: value is the sum");
}

static void test_suspended(void)
{
	__u64 tsc = 0;

	/* Counting, but the owner is switched out: "start" is stale. */
	setup(6, 0, PERFCTR_CSTATUS_TSC_ON, 1000, 777, 1ull << 40);
	vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 777, "owner suspended: value is the sum");
}

static void test_dead(void)
{
	__u64 tsc = 0;

	setup(8, VPERFCTR_STATE_DEAD | VPERFCTR_STATE_DETACHED,
	      PERFCTR_CSTATUS_TSC_ON, 1000, 424242, 1ull << 40);
	vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
	tap_is_u64(tsc, 424242, "owner exited: value is the final sum");
}

static void test_wrap(void)
{
	__u64 tsc = 0;

	setup(0, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON,
	      ~0ull - 9, 100, 5);
	vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
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
	ret = vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
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
	ret = vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
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
	ret = vperfctr_state_read_tsc(&page, &clock_tsc, &tsc);
	tap_is_int(ret, -1, "seq stuck odd: read gives up");
	tap_is_int(errno, EAGAIN, "seq stuck odd: errno is EAGAIN");
	tap_is_int(fake.tsc_reads, VPERFCTR_READ_RETRIES,
		   "seq stuck odd: retries are bounded");
	tap_is_u64(tsc, 4242, "seq stuck odd: output left alone");
}

static void set_pmc(unsigned int i, __u32 map, __u64 start, __u64 sum)
{
	page.cpu_state.pmc[i].map = map;
	page.cpu_state.pmc[i].start = start;
	page.cpu_state.pmc[i].sum = sum;
}

static void test_pmcs_running(void)
{
	struct perfctr_sum_ctrs sum;
	unsigned int i, rest = 0;
	int ret;

	/* Two a-mode and one i-mode counter, hardware counters 5, 0, 7. */
	setup(0, VPERFCTR_STATE_ONCPU,
	      PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 2, 100, 10, 200);
	set_pmc(0, 5, 1000, 1);
	set_pmc(1, 0, 50, 2);
	set_pmc(2, 7, ~0ull, 3);
	page.cpu_state.pmc[3].sum = 999;	/* not enabled: ignored */
	fake.pmc[5] = 1500;
	fake.pmc[0] = 60;
	fake.pmc[7] = 4;
	memset(&sum, 0xff, sizeof(sum));
	ret = vperfctr_state_read_ctrs(&page, &clock_all, &sum);
	tap_is_int(ret, 0, "PMCs running: read succeeds");
	tap_is_u64(sum.tsc, 10 + 100, "PMCs running: TSC");
	tap_is_u64(sum.pmc[0], 1 + 500, "PMCs running: pmc[0] uses map 5");
	tap_is_u64(sum.pmc[1], 2 + 10, "PMCs running: pmc[1] uses map 0");
	tap_is_u64(sum.pmc[2], 3 + 5, "PMCs running: i-mode pmc[2] wraps");
	for (i = 3; i < PERFCTR_MAX_NRCTRS; i++)
		rest |= sum.pmc[i] != 0;
	tap_is_int(rest, 0, "PMCs running: counters not enabled read 0");
}

static void test_pmcs_no_rdpmc(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	setup(0, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 1,
	      100, 10, 200);
	set_pmc(0, 0, 1000, 1);
	errno = 0;
	ret = vperfctr_state_read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, -1, "PMCs live, no rdpmc: fast read refused");
	tap_is_int(errno, EOPNOTSUPP, "PMCs live, no rdpmc: EOPNOTSUPP");
}

static void test_pmcs_suspended(void)
{
	struct perfctr_sum_ctrs sum;
	int ret;

	/* Suspended: the sums are final, no hardware needed. */
	setup(2, 0, PERFCTR_CSTATUS_TSC_ON | 2, 100, 10, 200);
	set_pmc(0, 0, 1000, 11);
	set_pmc(1, 1, 1000, 22);
	ret = vperfctr_state_read_ctrs(&page, &clock_tsc, &sum);
	tap_is_int(ret, 0, "PMCs suspended: read without rdpmc works");
	tap_is_u64(sum.pmc[0] + sum.pmc[1], 33,
		   "PMCs suspended: values are the sums");
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
	test_pmcs_suspended();
	test_check();
	return tap_done();
}
