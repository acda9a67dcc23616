// SPDX-License-Identifier: GPL-2.0
/*
 * perf referee: checks QEMU TCG's x86 PMU model (tcg-pmu=on, see the model's
 * specification) through Linux perf alone, the kernel's perf x86 drivers
 * unchanged, from user space.
 *
 * It runs in a guest booted with "-icount shift=0", where one instruction
 * takes one virtual nanosecond and the model counts every retired
 * instruction exactly, split by CPL (an instruction counts at the CPL it
 * started at), and every cycle event counts one per instruction.  So the
 * counts here are exact: a loop of ten instructions a turn run N times must
 * count exactly 10 * N more user-mode instructions than the same code run
 * zero times.  Every measured window is the same code whatever N: the only
 * thing that changes is how often the loop turns, so all the constant
 * instructions around it (the ioctl()s, the call, the loop's test of N)
 * cancel in count(N) - count(0).
 *
 * Nothing here depends on time: no assertion compares durations.
 *
 * The test of two CPUs (smp_pinned_threads_count_exactly) needs two online
 * CPUs: on a one-CPU boot the runner leaves it out with
 *	perf_referee -T smp_pinned_threads_count_exactly
 * (kselftest_harness.h's own option, "exclude test"), and on a -smp 2 boot
 * runs everything.  Run on one CPU without -T, that test skips, which the
 * project's runner counts as a failure, as it should: the runner asked for it.
 *
 * The sampling tests raise kernel.perf_event_max_sample_rate and set
 * kernel.perf_cpu_time_max_percent to 0 while they run (and restore both
 * after): otherwise perf throttles an event that overflows more than
 * max_samples_per_tick times in a tick, stopping its counter until the
 * next tick, and counts would be lost for a reason that is perf's, not
 * the model's.  The NMI watchdog is left alone.
 *
 * Build: gcc -static -O2 -Wall -Wextra \
 *	-I<linux>/tools/testing/selftests -o perf_referee perf_referee.c -lpthread
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>

#include <linux/perf_event.h>

/*
 * kselftest_harness.h of 6.12 is not -Wextra clean: the wrappers its TEST()
 * and TEST_F() expand to here leave "variant" unused, and TEST_F's setjmp()
 * makes gcc warn that its "child" may be clobbered.  Not ours to fix.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

#define noipa		__attribute__((noipa))
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define XSTR(x)		STR(x)
#define STR(x)		#x

#define TURN		10		/* instructions a turn of loop10() */
#define SYSCALL_TURN	4		/* user instructions a turn of getppid_asm() */
#define MAX_GROUP	4
#define GROUP_FMT	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
			 PERF_FORMAT_TOTAL_TIME_RUNNING)
#define SINGLE_FMT	(PERF_FORMAT_TOTAL_TIME_ENABLED | \
			 PERF_FORMAT_TOTAL_TIME_RUNNING)
#define U(x)		((uint64_t)(x))
#define SMP_TEST_NAME	"smp_pinned_threads_count_exactly"

/*
 * loop10(n): n turns of exactly ten instructions (eight nops, dec, jnz);
 * the same three instructions around them (test, jz, ret) whatever n, zero
 * included.  getppid_asm(n): n turns of four user-mode instructions (mov,
 * syscall, dec, jnz) and one getppid() system call each; the syscall
 * instruction starts at CPL 3, so it counts as user, and the kernel's
 * sysretq (or iretq) starts at CPL 0, so it counts as kernel.  Written in
 * asm so that no compiler decides how many instructions a turn takes.
 */
void loop10(unsigned long n);
void getppid_asm(unsigned long n);
__asm__(
	".text\n"
	".globl loop10\n"
	".type loop10, @function\n"
	".p2align 6\n"
	"loop10:\n"
	"	test %rdi, %rdi\n"
	"	jz 2f\n"
	"1:	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"2:	ret\n"
	".size loop10, .-loop10\n"
	"\n"
	".globl getppid_asm\n"
	".type getppid_asm, @function\n"
	".p2align 6\n"
	"getppid_asm:\n"
	"	test %rdi, %rdi\n"
	"	jz 2f\n"
	"1:	mov $" XSTR(__NR_getppid) ", %eax\n"
	"	syscall\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"2:	ret\n"
	".size getppid_asm, .-getppid_asm\n"
);

/* n getppid() calls through glibc, in C: its instructions a turn unknown. */
static noipa void getppid_c(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		getppid();
}

typedef void (*work_fn)(unsigned long);

/* ------------------------------------------------------------------ */
/* perf helpers */

static int ev_open(uint32_t type, uint64_t config, bool kernel_only,
		   uint64_t period, uint64_t read_format, int group_fd)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group_fd == -1;
	attr.exclude_hv = 1;
	if (kernel_only)
		attr.exclude_user = 1;
	else
		attr.exclude_kernel = 1;
	attr.read_format = read_format;
	if (period) {
		attr.sample_period = period;
		attr.sample_type = PERF_SAMPLE_IP;
	}
	return syscall(__NR_perf_event_open, &attr, 0, -1, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

static int hw_open(uint64_t config, bool kernel_only, int group_fd)
{
	return ev_open(PERF_TYPE_HARDWARE, config, kernel_only, 0,
		       group_fd == -1 ? GROUP_FMT : 0, group_fd);
}

/*
 * The measured window: RESET, ENABLE, fn(n), DISABLE, the same code for
 * every n.  noipa: no clone of it specialised for a constant n or fn.
 */
static noipa int window(int leader, work_fn fn, unsigned long n)
{
	if (ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP))
		return -1;
	if (ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP))
		return -1;
	fn(n);
	return ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

struct gread {
	uint64_t nr, ena, run;
	uint64_t v[MAX_GROUP];
};

/* window() then read the group, which must have run all the time. */
static void measure(struct __test_metadata *_metadata, int leader,
		    unsigned int nr, work_fn fn, unsigned long n,
		    struct gread *g)
{
	ssize_t got;

	memset(g, 0, sizeof(*g));
	ASSERT_EQ(0, window(leader, fn, n)) {
		TH_LOG("ioctl RESET/ENABLE/DISABLE: %s", strerror(errno));
	}
	got = read(leader, g, sizeof(*g));
	ASSERT_EQ((ssize_t)((3 + nr) * sizeof(uint64_t)), got) {
		TH_LOG("read of the group: %s", got < 0 ? strerror(errno) : "short");
	}
	ASSERT_EQ(nr, g->nr);
	/* Multiplexed or never scheduled: perf ran out of counters. */
	ASSERT_EQ(g->ena, g->run) {
		TH_LOG("group of %u ran %llu of %llu ns: perf multiplexed it (counters ran out?)",
		       nr, (unsigned long long)g->run,
		       (unsigned long long)g->ena);
	}
}

/* Why perf has no CPU PMU, or NULL if it has one. */
static const char *pmu_missing(char *buf, size_t len)
{
	struct stat st;
	int fd;

	if (stat("/sys/bus/event_source/devices/cpu", &st) &&
	    stat("/sys/bus/event_source/devices/cpu_core", &st)) {
		snprintf(buf, len, "perf has no CPU PMU: no /sys/bus/event_source/devices/cpu (the kernel's perf x86 driver found none)");
		return buf;
	}
	fd = hw_open(PERF_COUNT_HW_INSTRUCTIONS, false, -1);
	if (fd < 0 && (errno == ENOENT || errno == EOPNOTSUPP)) {
		snprintf(buf, len, "perf has no CPU PMU: perf_event_open(instructions:u): %s",
			 strerror(errno));
		return buf;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * Every test starts here: skip if perf has no PMU, else lock all memory
 * (the harness forks each test, and mlockall() is not inherited) so that
 * no page fault lands in a measured window.
 */
#define REQUIRE_PMU() do {						\
	char __why[256];						\
	if (pmu_missing(__why, sizeof(__why)))				\
		SKIP(return, "%s", __why);				\
	if (mlockall(MCL_CURRENT | MCL_FUTURE))				\
		ksft_print_msg("mlockall: %s (page faults may land in windows)\n", \
			       strerror(errno));			\
} while (0)

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f) {
		snprintf(buf, len, "(absent)");
		return;
	}
	if (!fgets(buf, len, f))
		snprintf(buf, len, "(unreadable)");
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static bool vendor_is(const char *vendor)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "vendor_id", 9)) {
			yes = strstr(line, vendor) != NULL;
			break;
		}
	fclose(f);
	return yes;
}

/* ------------------------------------------------------------------ */
/* 1. user-mode instructions of loop10(N): exactly 10 * N more than N = 0 */

TEST(instructions_user_exact_10_per_turn)
{
	static const unsigned long ns[] = { 1000, 10000, 100000, 1000000, 10000000 };
	struct gread g, base, base_end;
	int fd;

	REQUIRE_PMU();
	fd = hw_open(PERF_COUNT_HW_INSTRUCTIONS, false, -1);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open(instructions:u): %s", strerror(errno));

	measure(_metadata, fd, 1, loop10, 1000, &g);	/* warm up */
	measure(_metadata, fd, 1, loop10, 0, &base);
	ksft_print_msg("instructions:u of the window around loop10(0): %llu\n",
		       (unsigned long long)base.v[0]);
	EXPECT_LT(U(0), base.v[0]);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		measure(_metadata, fd, 1, loop10, ns[i], &g);
		ksft_print_msg("N = %lu: count(N) - count(0) = %lld, want %lu\n",
			       ns[i], (long long)(g.v[0] - base.v[0]), TURN * ns[i]);
		EXPECT_EQ(TURN * ns[i], g.v[0] - base.v[0]);
	}
	/* The constant part must not have moved in between. */
	measure(_metadata, fd, 1, loop10, 0, &base_end);
	EXPECT_EQ(base.v[0], base_end.v[0]);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* 2. :k apart from :u */

TEST(instructions_kernel_apart_from_user)
{
	const unsigned long n = 1000000;
	struct gread l0, ln, s0, s1, s2;
	uint64_t d1, d2;
	int u, k;

	REQUIRE_PMU();
	u = hw_open(PERF_COUNT_HW_INSTRUCTIONS, false, -1);
	ASSERT_LE(0, u) TH_LOG("perf_event_open(instructions:u): %s", strerror(errno));
	k = hw_open(PERF_COUNT_HW_INSTRUCTIONS, true, u);
	ASSERT_LE(0, k) TH_LOG("perf_event_open(instructions:k): %s", strerror(errno));

	measure(_metadata, u, 2, getppid_c, 10, &l0);		/* warm up */
	measure(_metadata, u, 2, loop10, 0, &l0);
	measure(_metadata, u, 2, loop10, n, &ln);
	ksft_print_msg("loop10(%lu): instructions:u %llu, instructions:k %llu\n", n,
		       (unsigned long long)ln.v[0], (unsigned long long)ln.v[1]);
	EXPECT_EQ(TURN * n, ln.v[0] - l0.v[0]);
	/*
	 * A pure user loop: the kernel runs only the ends of the two ioctl()s
	 * and the interrupts of 10 ms (timer ticks, costly on a debug kernel,
	 * and more so with the return-stack mitigations of an AMD Zen), fewer
	 * than the loop's 10 * N user instructions: measured 0.08 N on the
	 * Intel model and 1.6 N on the AMD one.  The bound is half of them;
	 * :k counting user mode would give 10 * N.
	 */
	EXPECT_GT(TURN * n / 2, ln.v[1]);

	/*
	 * From 1000 turns on, not 0: the compiled loop's set-up runs only
	 * when it turns at all, so only differences of N >= 1 are linear.
	 */
	measure(_metadata, u, 2, getppid_c, 1000, &s0);
	measure(_metadata, u, 2, getppid_c, 2000, &s1);
	measure(_metadata, u, 2, getppid_c, 3000, &s2);
	d1 = s1.v[0] - s0.v[0];
	d2 = s2.v[0] - s1.v[0];
	ksft_print_msg("1000 more getppid(): instructions:u +%llu (next 1000: +%llu), instructions:k %llu\n",
		       (unsigned long long)d1, (unsigned long long)d2,
		       (unsigned long long)s1.v[1]);
	/* Each system call runs well over 50 kernel instructions. */
	EXPECT_LT(U(1000 * 50), s1.v[1]);
	/* :u of the C loop is exactly linear: 1000 times one turn. */
	EXPECT_EQ(d1, d2);
	EXPECT_EQ(U(0), d2 % 1000);
	EXPECT_EQ(1000 * (d2 / 1000), d1);
	/* A turn of C around getppid() is a handful of user instructions. */
	EXPECT_LE(U(2), d2 / 1000);
	EXPECT_GT(U(100), d2 / 1000);
	close(k);
	close(u);
}

/*
 * 2b. The syscall instruction starts at CPL 3 and counts as user; what the
 * kernel runs, its sysretq included, counts as kernel: a turn of
 * getppid_asm() is exactly four user instructions.
 */
TEST(syscall_insn_user_sysret_kernel)
{
	struct gread s0, s1;
	int u, k;

	REQUIRE_PMU();
	u = hw_open(PERF_COUNT_HW_INSTRUCTIONS, false, -1);
	ASSERT_LE(0, u) TH_LOG("perf_event_open(instructions:u): %s", strerror(errno));
	k = hw_open(PERF_COUNT_HW_INSTRUCTIONS, true, u);
	ASSERT_LE(0, k) TH_LOG("perf_event_open(instructions:k): %s", strerror(errno));

	measure(_metadata, u, 2, getppid_asm, 10, &s0);		/* warm up */
	measure(_metadata, u, 2, getppid_asm, 0, &s0);
	measure(_metadata, u, 2, getppid_asm, 1000, &s1);
	ksft_print_msg("1000 asm getppid turns: instructions:u +%lld (want %d), instructions:k +%lld\n",
		       (long long)(s1.v[0] - s0.v[0]), 1000 * SYSCALL_TURN,
		       (long long)(s1.v[1] - s0.v[1]));
	EXPECT_EQ(U(1000 * SYSCALL_TURN), s1.v[0] - s0.v[0]);
	EXPECT_LT(U(1000 * 50), s1.v[1]);
	close(k);
	close(u);
}

/* ------------------------------------------------------------------ */
/* 3. cycles:u (and ref-cycles:u on Intel) equal to instructions:u */

TEST(cycles_user_equal_instructions_user)
{
	const unsigned long n = 1000000;
	bool intel = vendor_is("GenuineIntel");
	struct gread g0, gn;
	int ins, cyc, ref = -1;
	unsigned int nr = 2;

	REQUIRE_PMU();
	ins = hw_open(PERF_COUNT_HW_INSTRUCTIONS, false, -1);
	ASSERT_LE(0, ins) TH_LOG("perf_event_open(instructions:u): %s", strerror(errno));
	cyc = hw_open(PERF_COUNT_HW_CPU_CYCLES, false, ins);
	ASSERT_LE(0, cyc) TH_LOG("perf_event_open(cycles:u): %s", strerror(errno));
	if (intel) {
		ref = hw_open(PERF_COUNT_HW_REF_CPU_CYCLES, false, ins);
		if (ref >= 0)
			nr = 3;
		else
			ksft_print_msg("Intel, but perf refused ref-cycles:u in the group: %s (not checked)\n",
				       strerror(errno));
	} else {
		ksft_print_msg("not Intel: ref-cycles not checked\n");
	}

	measure(_metadata, ins, nr, loop10, 1000, &g0);		/* warm up */
	measure(_metadata, ins, nr, loop10, 0, &g0);
	measure(_metadata, ins, nr, loop10, n, &gn);
	ksft_print_msg("loop10(%lu): instructions:u %llu cycles:u %llu\n",
		       n, (unsigned long long)gn.v[0], (unsigned long long)gn.v[1]);
	if (nr == 3)
		ksft_print_msg("loop10(%lu): ref-cycles:u %llu\n", n,
			       (unsigned long long)gn.v[2]);
	EXPECT_EQ(TURN * n, gn.v[0] - g0.v[0]);
	EXPECT_EQ(gn.v[0], gn.v[1]);
	EXPECT_EQ(g0.v[0], g0.v[1]);
	if (nr == 3) {
		EXPECT_EQ(gn.v[0], gn.v[2]);
		EXPECT_EQ(g0.v[0], g0.v[2]);
	}
	if (ref >= 0)
		close(ref);
	close(cyc);
	close(ins);
}

/* ------------------------------------------------------------------ */
/* 4 and 6. Sampling: samples, wraps, exact totals */

static const char *const rate_path = "/proc/sys/kernel/perf_event_max_sample_rate";
static const char *const pct_path = "/proc/sys/kernel/perf_cpu_time_max_percent";

static int sysctl_get(const char *path, long *val)
{
	char buf[64];

	read_line(path, buf, sizeof(buf));
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	*val = strtol(buf, NULL, 10);
	return 0;
}

static int sysctl_set(const char *path, long val)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int len, ret;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld\n", val);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * Far more samples a tick than a window can take (one each 1000 user
 * instructions at least, 10^6 instructions a tick at HZ = 1000): perf never
 * throttles.  The rate can only be written while dynamic throttling is on.
 */
#define SAMPLE_RATE	100000000L

FIXTURE(sampling) {
	long rate, pct;
	bool saved;
};

FIXTURE_SETUP(sampling)
{
	long rate;

	REQUIRE_PMU();
	self->saved = !sysctl_get(rate_path, &self->rate) &&
		      !sysctl_get(pct_path, &self->pct);
	if (!self->saved) {
		ksft_print_msg("cannot read %s or %s: perf may throttle\n",
			       rate_path, pct_path);
		return;
	}
	if (sysctl_set(pct_path, 25) || sysctl_set(rate_path, SAMPLE_RATE) ||
	    sysctl_set(pct_path, 0))
		ksft_print_msg("cannot raise the sample rate / disable dynamic throttling: %s\n",
			       strerror(errno));
	if (!sysctl_get(rate_path, &rate))
		ksft_print_msg("perf_event_max_sample_rate %ld (was %ld), perf_cpu_time_max_percent 0 (was %ld)\n",
			       rate, self->rate, self->pct);
}

FIXTURE_TEARDOWN(sampling)
{
	if (!self->saved)
		return;
	if (sysctl_set(pct_path, 25) || sysctl_set(rate_path, self->rate) ||
	    sysctl_set(pct_path, self->pct))
		ksft_print_msg("could not restore %s / %s: %s\n", rate_path,
			       pct_path, strerror(errno));
}

struct ring {
	struct perf_event_mmap_page *pc;
	size_t len;
	char *data;
	uint64_t size;
};

struct records {
	uint64_t samples, lost, lost_records, throttle, unthrottle, other;
	bool malformed;
};

static int ring_map(struct ring *r, int fd, size_t data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	r->len = (1 + data_pages) * page;
	p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r->pc = p;
	if (r->pc->data_size) {
		r->data = (char *)p + r->pc->data_offset;
		r->size = r->pc->data_size;
	} else {
		r->data = (char *)p + page;
		r->size = data_pages * page;
	}
	return 0;
}

/* Copy len bytes at ring offset off, wrapping at the end of the buffer. */
static void ring_copy(const struct ring *r, uint64_t off, void *dst, size_t len)
{
	size_t at = off % r->size, first = r->size - at;

	if (first >= len) {
		memcpy(dst, r->data + at, len);
	} else {
		memcpy(dst, r->data + at, first);
		memcpy((char *)dst + first, r->data, len - first);
	}
}

/* Consume every record between data_tail and data_head. */
static void ring_drain(struct ring *r, struct records *c)
{
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail;

	while (tail != head) {
		struct perf_event_header h;
		uint64_t lost[2];

		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			c->malformed = true;
			tail = head;
			break;
		}
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			c->samples++;
			break;
		case PERF_RECORD_LOST:
			ring_copy(r, tail + sizeof(h), lost, sizeof(lost));
			c->lost_records++;
			c->lost += lost[1];
			break;
		case PERF_RECORD_THROTTLE:
			c->throttle++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			c->unthrottle++;
			break;
		default:
			c->other++;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
}

struct single {
	uint64_t val, ena, run;
};

struct sampled {
	uint64_t t_sampling, t_counting;
	struct records rec;
};

/*
 * A fresh group each time (so that the sampling event's period starts
 * whole: perf's RESET does not reset it): an instructions:u event sampling
 * every @period and a counting one, the sampler the group leader if
 * @sampler_leads, over loop10(@n).  perf tries fixed counters first, in
 * group order: on Intel the leader gets fixed counter 0 and the member a
 * general-purpose counter, so the two tests overflow one kind each.  Each
 * event read() alone.
 */
static void sample_run(struct __test_metadata *_metadata, bool sampler_leads,
		       uint64_t period, unsigned long n, size_t data_pages,
		       struct sampled *out)
{
	struct single s, c;
	struct ring r;
	int sfd, cfd, leader;

	memset(out, 0, sizeof(*out));
	if (sampler_leads) {
		sfd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, period, SINGLE_FMT, -1);
		ASSERT_LE(0, sfd) TH_LOG("sampling instructions:u: %s", strerror(errno));
		cfd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, 0, SINGLE_FMT, sfd);
		ASSERT_LE(0, cfd) TH_LOG("counting instructions:u: %s", strerror(errno));
		leader = sfd;
	} else {
		cfd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, 0, SINGLE_FMT, -1);
		ASSERT_LE(0, cfd) TH_LOG("counting instructions:u: %s", strerror(errno));
		sfd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			      false, period, SINGLE_FMT, cfd);
		ASSERT_LE(0, sfd) TH_LOG("sampling instructions:u: %s", strerror(errno));
		leader = cfd;
	}
	ASSERT_EQ(0, ring_map(&r, sfd, data_pages))
		TH_LOG("mmap of the ring buffer: %s", strerror(errno));

	ASSERT_EQ(0, window(leader, loop10, n))
		TH_LOG("ioctl RESET/ENABLE/DISABLE: %s", strerror(errno));
	ASSERT_EQ((ssize_t)sizeof(s), read(sfd, &s, sizeof(s)));
	ASSERT_EQ((ssize_t)sizeof(c), read(cfd, &c, sizeof(c)));
	ring_drain(&r, &out->rec);
	out->t_sampling = s.val;
	out->t_counting = c.val;

	ASSERT_EQ(s.ena, s.run) TH_LOG("sampling event multiplexed (counters ran out?)");
	ASSERT_EQ(c.ena, c.run) TH_LOG("counting event multiplexed (counters ran out?)");
	munmap(r.pc, r.len);
	close(sfd);
	close(cfd);
}

static void check_sampling(struct __test_metadata *_metadata, bool sampler_leads,
			   uint64_t period, unsigned long n, size_t data_pages)
{
	struct sampled z, w;

	sample_run(_metadata, sampler_leads, period, 1000, data_pages, &w); /* warm up */
	sample_run(_metadata, sampler_leads, period, 0, data_pages, &z);
	sample_run(_metadata, sampler_leads, period, n, data_pages, &w);
	ksft_print_msg("period %llu, loop10(%lu), sampler %s: T %llu (counting event %llu, N = 0: %llu), %llu samples (T / P = %llu), %llu lost, %llu throttle, %llu other records\n",
		       (unsigned long long)period, n,
		       sampler_leads ? "leads" : "is the member",
		       (unsigned long long)w.t_sampling,
		       (unsigned long long)w.t_counting,
		       (unsigned long long)z.t_sampling,
		       (unsigned long long)w.rec.samples,
		       (unsigned long long)(w.t_sampling / period),
		       (unsigned long long)w.rec.lost,
		       (unsigned long long)w.rec.throttle,
		       (unsigned long long)w.rec.other);

	EXPECT_FALSE(w.rec.malformed) TH_LOG("malformed record in the ring buffer");
	EXPECT_EQ(U(0), w.rec.lost_records) TH_LOG("ring buffer lost %llu samples",
						(unsigned long long)w.rec.lost);
	/* Throttled, perf stops the counter until the next tick. */
	EXPECT_EQ(U(0), w.rec.throttle) TH_LOG("perf throttled the sampling event");
	/* The sampling event's total is exact, across its wraps... */
	EXPECT_EQ(TURN * n, w.t_sampling - z.t_sampling);
	EXPECT_EQ(TURN * n, w.t_counting - z.t_counting);
	/* ...equal to the counting event's of the same window... */
	EXPECT_EQ(w.t_counting, w.t_sampling);
	EXPECT_EQ(z.t_counting, z.t_sampling);
	/* ...and one sample each whole period. */
	EXPECT_LT(U(0), w.t_sampling / period);
	EXPECT_EQ(w.t_sampling / period, w.rec.samples);
	EXPECT_EQ(z.t_sampling / period, z.rec.samples);
}

TEST_F_TIMEOUT(sampling, samples_one_per_period_count_exact, 300)
{
	check_sampling(_metadata, true, 100003, 1000000, 64);
}

/* 6. 48-bit wraps, many of them: the total stays exact. */
TEST_F_TIMEOUT(sampling, many_wraps_count_exact, 300)
{
	check_sampling(_metadata, false, 1000, 1000000, 128);
}

/* ------------------------------------------------------------------ */
/* 5. perf's rdpmc read through the mmap page */

static inline uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}

/*
 * The self-monitoring read of <linux/perf_event.h> (the time fields
 * left out: the event is never multiplexed, which measure() checks).
 * *tries counts the turns of the seqlock loop: the code of a window is
 * the same whatever n only if every read takes one turn.
 */
static noipa uint64_t self_read(struct perf_event_mmap_page *pc,
				unsigned int *tries, unsigned int *noindex)
{
	uint32_t seq, index, width;
	uint64_t count;
	int64_t pmc;
	unsigned int turns = 0;

	do {
		turns++;
		seq = READ_ONCE(pc->lock);
		barrier();
		index = READ_ONCE(pc->index);
		count = READ_ONCE(pc->offset);
		pmc = 0;
		if (pc->cap_user_rdpmc && index) {
			width = READ_ONCE(pc->pmc_width);
			pmc = rdpmc(index - 1);
			pmc = (int64_t)((uint64_t)pmc << (64 - width)) >> (64 - width);
		} else {
			*noindex = 1;
		}
		barrier();
	} while (READ_ONCE(pc->lock) != seq);
	*tries = turns;
	return count + pmc;
}

struct rdwin {
	uint64_t before, after, readval;
	unsigned int t1, t2, noindex;
	ssize_t got;
};

/* rdpmc, fn(n), rdpmc, read(): the same code for every n. */
static noipa void rdpmc_window(int fd, struct perf_event_mmap_page *pc,
			       work_fn fn, unsigned long n, struct rdwin *w)
{
	w->before = self_read(pc, &w->t1, &w->noindex);
	fn(n);
	w->after = self_read(pc, &w->t2, &w->noindex);
	w->got = read(fd, &w->readval, sizeof(w->readval));
}

/* A window whose two reads took one turn of the seqlock each. */
static void rdpmc_measure(struct __test_metadata *_metadata, int fd,
			  struct perf_event_mmap_page *pc, unsigned long n,
			  struct rdwin *w)
{
	int attempt;

	for (attempt = 0; attempt < 20; attempt++) {
		memset(w, 0, sizeof(*w));
		rdpmc_window(fd, pc, loop10, n, w);
		ASSERT_EQ((ssize_t)sizeof(w->readval), w->got);
		ASSERT_EQ(0u, w->noindex) {
			TH_LOG("mmap page: cap_user_rdpmc %u index %u: no rdpmc",
			       (unsigned int)pc->cap_user_rdpmc, pc->index);
		}
		if (w->t1 == 1 && w->t2 == 1)
			return;
	}
	ASSERT_TRUE(false) TH_LOG("the seqlock kept changing under the reads");
}

TEST(rdpmc_user_read_exact)
{
	const unsigned long n = 100000;
	struct perf_event_mmap_page *pc;
	struct rdwin z, w;
	char sysfs[64];
	int fd;

	REQUIRE_PMU();
	read_line("/sys/bus/event_source/devices/cpu/rdpmc", sysfs, sizeof(sysfs));
	ksft_print_msg("/sys/bus/event_source/devices/cpu/rdpmc = %s\n", sysfs);
	EXPECT_STREQ("1", sysfs);

	fd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false, 0, 0, -1);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open(instructions:u): %s", strerror(errno));
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, pc) TH_LOG("mmap of the event's page: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));

	ksft_print_msg("mmap page: cap_user_rdpmc %u, index %#x, pmc_width %u\n",
		       (unsigned int)pc->cap_user_rdpmc, pc->index,
		       (unsigned int)pc->pmc_width);
	ASSERT_EQ(1u, (unsigned int)pc->cap_user_rdpmc);
	EXPECT_EQ(48, pc->pmc_width);
	EXPECT_NE(0u, pc->index);

	rdpmc_measure(_metadata, fd, pc, 1000, &w);	/* warm up */
	rdpmc_measure(_metadata, fd, pc, 0, &z);
	rdpmc_measure(_metadata, fd, pc, n, &w);
	ksft_print_msg("rdpmc: loop10(%lu) window %llu, loop10(0) window %llu; read() after the last rdpmc: +%lld\n",
		       n, (unsigned long long)(w.after - w.before),
		       (unsigned long long)(z.after - z.before),
		       (long long)(w.readval - w.after));
	EXPECT_LT(w.before, w.after);
	EXPECT_EQ(TURN * n, (w.after - w.before) - (z.after - z.before));
	/* read() counts what ran after rdpmc up to its syscall: a few. */
	EXPECT_LE(w.after, w.readval);
	EXPECT_GT(w.after + 200, w.readval);
	EXPECT_EQ(w.readval - w.after, z.readval - z.after);

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

/* ------------------------------------------------------------------ */
/* 7. Two CPUs: two pinned threads, each its own exact count. */

struct smp_arg {
	int cpu;
	unsigned long n;
	pthread_barrier_t *bar;
	const char *failed;
	int err;
	int cpu_after;
	struct single c0, cn;
};

static void *smp_thread(void *p)
{
	struct smp_arg *a = p;
	cpu_set_t set;
	int fd = -1;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		a->failed = "sched_setaffinity";
		a->err = errno;
	} else {
		fd = ev_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			     false, 0, SINGLE_FMT, -1);
		if (fd < 0) {
			a->failed = "perf_event_open(instructions:u)";
			a->err = errno;
		} else if (window(fd, loop10, 1000)) {	/* warm up */
			a->failed = "ioctl";
			a->err = errno;
		}
	}
	/* Both threads measure at the same time, each on its CPU. */
	pthread_barrier_wait(a->bar);
	if (a->failed)
		goto out;
	if (window(fd, loop10, 0) ||
	    read(fd, &a->c0, sizeof(a->c0)) != sizeof(a->c0) ||
	    window(fd, loop10, a->n) ||
	    read(fd, &a->cn, sizeof(a->cn)) != sizeof(a->cn)) {
		a->failed = "ioctl or read";
		a->err = errno;
	}
	a->cpu_after = sched_getcpu();
out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST(smp_pinned_threads_count_exactly)
{
	struct smp_arg a[2] = {
		{ .cpu = 0, .n = 1000000 },
		{ .cpu = 1, .n = 3000000 },
	};
	pthread_barrier_t bar;
	pthread_t th[2];
	cpu_set_t allowed;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int i;

	REQUIRE_PMU();
	CPU_ZERO(&allowed);
	if (online < 2 || sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    !CPU_ISSET(0, &allowed) || !CPU_ISSET(1, &allowed))
		SKIP(return, "needs CPUs 0 and 1 online (%ld online): on a one-CPU boot run with -T "
		     SMP_TEST_NAME, online);

	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 2));
	for (i = 0; i < 2; i++) {
		a[i].bar = &bar;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, smp_thread, &a[i]));
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(NULL, a[i].failed) {
			TH_LOG("thread on CPU %d: %s: %s", a[i].cpu,
			       a[i].failed, strerror(a[i].err));
		}
		ksft_print_msg("thread on CPU %d (ended on %d): loop10(%lu) %llu, loop10(0) %llu, difference %lld\n",
			       a[i].cpu, a[i].cpu_after, a[i].n,
			       (unsigned long long)a[i].cn.val,
			       (unsigned long long)a[i].c0.val,
			       (long long)(a[i].cn.val - a[i].c0.val));
		EXPECT_EQ(a[i].cpu, a[i].cpu_after);
		EXPECT_EQ(a[i].cn.ena, a[i].cn.run);
		EXPECT_EQ(a[i].c0.ena, a[i].c0.run);
		EXPECT_EQ(TURN * a[i].n, a[i].cn.val - a[i].c0.val);
	}
	/* Same code, same constant, on either CPU. */
	EXPECT_EQ(a[0].c0.val, a[1].c0.val);
}

/* ------------------------------------------------------------------ */
/* 8. What the kernel's perf has, and what holds counters already. */

static void print_kernel_log(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *save;
	int len, shown = 0;

	if (size <= 0) {
		ksft_print_msg("kernel log: unreadable (%s)\n", strerror(errno));
		return;
	}
	buf = malloc(size + 1);
	if (!buf)
		return;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0) {
		ksft_print_msg("kernel log: unreadable (%s)\n", strerror(errno));
		free(buf);
		return;
	}
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line && shown < 40;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "Performance Events") || strstr(line, "] ... ") ||
		    strstr(line, "NMI watchdog") || strstr(line, "perf:") ||
		    strstr(line, "hw perfevents") || strstr(line, "PMU")) {
			if (line[0] == '<' && strchr(line, '>'))
				line = strchr(line, '>') + 1;	/* the level */
			ksft_print_msg("kernel log: %s\n", line);
			shown++;
		}
	}
	if (!shown)
		ksft_print_msg("kernel log: no perf lines\n");
	free(buf);
}

static int msr_open(int cpu)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	/* No devtmpfs: a node of our own, removed at once. */
	snprintf(path, sizeof(path), "/tmp/.perf_referee_msr%d", cpu);
	if (mknod(path, S_IFCHR | 0400, makedev(202, cpu)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	unlink(path);
	return fd;
}

static bool msr_read(int fd, uint32_t msr, uint64_t *val)
{
	return pread(fd, val, sizeof(*val), msr) == sizeof(*val);
}

/* Which counters are enabled right now on each CPU, from their MSRs. */
static void print_msrs(bool intel, bool amd)
{
	static const char *const fixed_name[] = { "instructions", "cycles", "ref-cycles" };
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int a, b, c, d, ngp = 0, nfixed = 0;

	if (intel && __get_cpuid_count(0xa, 0, &a, &b, &c, &d)) {
		ngp = (a >> 8) & 0xff;
		nfixed = d & 0x1f;
	} else if (amd) {
		ngp = 4;
		if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (c & (1u << 23)))
			ngp = 6;
		if (__get_cpuid_count(0x80000022, 0, &a, &b, &c, &d) && (a & 1))
			ngp = b & 0xf;
	}
	for (long cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		char used[512] = "";
		size_t at = 0;
		uint64_t v, ctl = 0, fixed = 0;
		int fd = msr_open(cpu);

		if (fd < 0) {
			if (cpu == 0)
				ksft_print_msg("counter MSRs: unreadable (%s: kernel without CONFIG_X86_MSR?)\n",
					       strerror(errno));
			return;
		}
		if (intel) {
			msr_read(fd, 0x38f, &ctl);
			msr_read(fd, 0x38d, &fixed);
			for (unsigned int i = 0; i < nfixed && i < 3; i++)
				if ((fixed >> (4 * i)) & 3)
					at += snprintf(used + at, sizeof(used) - at,
						       " fixed%u (%s%s%s%s%s)", i, fixed_name[i],
						       (fixed >> (4 * i)) & 1 ? " OS" : "",
						       (fixed >> (4 * i)) & 2 ? " USR" : "",
						       (fixed >> (4 * i)) & 8 ? " PMI" : "",
						       (ctl >> (32 + i)) & 1 ? "" : " globally off");
			for (unsigned int i = 0; i < ngp && i < 8; i++)
				if (msr_read(fd, 0x186 + i, &v) && (v & (1u << 22)))
					at += snprintf(used + at, sizeof(used) - at,
						       " pmc%u (evtsel %#llx%s)", i,
						       (unsigned long long)v,
						       (ctl >> i) & 1 ? "" : " globally off");
			ksft_print_msg("cpu%ld: GLOBAL_CTRL %#llx FIXED_CTR_CTRL %#llx; enabled:%s\n",
				       cpu, (unsigned long long)ctl,
				       (unsigned long long)fixed, at ? used : " none");
		} else if (amd) {
			for (unsigned int i = 0; i < ngp && i < 8; i++) {
				uint32_t msr = ngp > 4 ? 0xc0010200 + 2 * i : 0xc0010000 + i;

				if (msr_read(fd, msr, &v) && (v & (1u << 22)))
					at += snprintf(used + at, sizeof(used) - at,
						       " ctr%u (perf_ctl %#llx)", i,
						       (unsigned long long)v);
			}
			if (!msr_read(fd, 0xc0000301, &ctl))
				ctl = ~0ull;
			ksft_print_msg("cpu%ld: PerfCntrGlobalCtl %#llx; enabled:%s\n",
				       cpu, (unsigned long long)ctl, at ? used : " none");
		}
		close(fd);
	}
}

/*
 * How many events of @config perf can run at once in one group here: its
 * counters for them, less those held already (by the NMI watchdog, say).
 */
static int probe_group(uint64_t config)
{
	int fds[16], n, best = 0;

	for (n = 1; n <= 16; n++) {
		struct { uint64_t nr, ena, run, v[16]; } big;
		int i, ok = 1;

		for (i = 0; i < n; i++) {
			fds[i] = hw_open(config, false, i ? fds[0] : -1);
			if (fds[i] < 0)
				break;
		}
		if (i < n) {
			ok = 0;		/* perf refuses a group this big */
		} else if (window(fds[0], loop10, 100) ||
			   read(fds[0], &big, sizeof(big)) < 24 || !big.run ||
			   big.run != big.ena) {
			ok = 0;		/* accepted, never scheduled */
		}
		while (i-- > 0)
			close(fds[i]);
		if (!ok)
			break;
		best = n;
	}
	return best;
}

static void print_environment(void)
{
	bool intel = vendor_is("GenuineIntel"), amd = vendor_is("AuthenticAMD");
	char buf[256], why[256];
	struct utsname u;

	uname(&u);
	ksft_print_msg("perf referee on Linux %s %s, %ld CPUs online, vendor %s\n",
		       u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN),
		       intel ? "GenuineIntel" : amd ? "AuthenticAMD" : "other");
	read_line("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf));
	ksft_print_msg("/proc/sys/kernel/nmi_watchdog = %s\n", buf);
	read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	ksft_print_msg("/proc/sys/kernel/perf_event_paranoid = %s\n", buf);
	read_line(rate_path, buf, sizeof(buf));
	ksft_print_msg("%s = %s\n", rate_path, buf);
	read_line(pct_path, buf, sizeof(buf));
	ksft_print_msg("%s = %s\n", pct_path, buf);
	read_line("/sys/bus/event_source/devices/cpu/rdpmc", buf, sizeof(buf));
	ksft_print_msg("/sys/bus/event_source/devices/cpu/rdpmc = %s\n", buf);
	read_line("/sys/bus/event_source/devices/cpu/caps/pmu_name", buf, sizeof(buf));
	ksft_print_msg("/sys/bus/event_source/devices/cpu/caps/pmu_name = %s\n", buf);
	print_kernel_log();
	if (pmu_missing(why, sizeof(why))) {
		ksft_print_msg("%s\n", why);
		return;
	}
	print_msrs(intel, amd);
	ksft_print_msg("perf runs at most %d cycles:u and %d instructions:u in one group here "
		       "(Intel: 4 GP + fixed, AMD: %s; fewer = counters held, e.g. by the NMI watchdog)\n",
		       probe_group(PERF_COUNT_HW_CPU_CYCLES),
		       probe_group(PERF_COUNT_HW_INSTRUCTIONS), "6 GP");
}

int main(int argc, char **argv)
{
	bool listing = false;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			listing = true;
	if (!listing) {
		/* The header first, then the environment as TAP comments. */
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (!getenv("KSFT_TAP_LEVEL")) {
			printf("TAP version 13\n");
			setenv("KSFT_TAP_LEVEL", "1", 1);
		}
		print_environment();
		fflush(stdout);
		fflush(stderr);
	}
	return test_harness_run(argc, argv);
}
