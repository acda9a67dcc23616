// SPDX-License-Identifier: LGPL-2.1
/*
 * The library's system calls, against a fake kernel.
 *
 * This program defines syscall() itself, so the library linked into
 * it talks to the fake below instead of the real kernel:
 * each test scripts the replies and then checks which calls were made,
 * with which arguments.  Descriptors are real (/dev/null, which cannot
 * be mapped, or a memfd holding a made-up state page), so mmap() and
 * close() behave as they would on a state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "internal.h"
#include "tap.h"

#define MAX_CALLS	8

struct call {
	long nr;
	long arg[6];
};

struct reply {
	long ret;
	int err;
};

static struct {
	struct call call[MAX_CALLS];
	int ncalls;
	struct reply reply[MAX_CALLS];	/* for the next calls, in order */
	int nreplies, next_reply;
	struct vperfctr_control control_in;	/* given to vperfctr_control */
	struct perfctr_sum_ctrs sum_out;	/* vperfctr_read's answers */
	struct vperfctr_control control_out;
	struct perfctr_sum_ctrs children_out;
} kernel;

long syscall(long nr, ...)
{
	struct call *call = &kernel.call[kernel.ncalls % MAX_CALLS];
	struct reply reply = { 0, 0 };
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		call->arg[i] = va_arg(ap, long);
	va_end(ap);
	call->nr = nr;
	if (kernel.next_reply < kernel.nreplies)
		reply = kernel.reply[kernel.next_reply++];
	kernel.ncalls++;
	if (reply.err) {
		errno = reply.err;
		return -1;
	}

	if (nr == __NR_vperfctr_control)
		memcpy(&kernel.control_in, (void *)call->arg[1],
		       sizeof(kernel.control_in));
	if (nr == __NR_vperfctr_read) {
		if (call->arg[1])
			memcpy((void *)call->arg[1], &kernel.sum_out,
			       sizeof(kernel.sum_out));
		if (call->arg[2])
			memcpy((void *)call->arg[2], &kernel.control_out,
			       sizeof(kernel.control_out));
		if (call->arg[3])
			memcpy((void *)call->arg[3], &kernel.children_out,
			       sizeof(kernel.children_out));
	}
	return reply.ret;
}

/* A fresh kernel: no calls made, no replies scripted. */
static void boot(void)
{
	memset(&kernel, 0, sizeof(kernel));
}

/* Replies to the next calls; calls without one succeed with 0. */
static void will_return(long ret)
{
	kernel.reply[kernel.nreplies++] = (struct reply){ ret, 0 };
}

static void will_fail(int err)
{
	kernel.reply[kernel.nreplies++] = (struct reply){ -1, err };
}

/* Was call @i system call @nr with arguments @a0 and @a1, zeros after? */
static int called(int i, long nr, long a0, long a1)
{
	const struct call *call = &kernel.call[i];

	return i < kernel.ncalls && call->nr == nr && call->arg[0] == a0 &&
	       call->arg[1] == a1 && !call->arg[2] && !call->arg[3] &&
	       !call->arg[4] && !call->arg[5];
}

static int unmappable_fd(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* A descriptor whose page looks like a state page with @state on it. */
static int page_fd(const struct vperfctr_state *state)
{
	long size = sysconf(_SC_PAGESIZE);
	char *buf = calloc(1, size);
	int fd = memfd_create("state", MFD_CLOEXEC);

	memcpy(buf, state, sizeof(*state));
	if (fd < 0 || write(fd, buf, size) != size)
		abort();
	free(buf);
	return fd;
}

/* The numbers are ABI: a kernel with perfctr has the calls there. */
static void test_numbers(void)
{
	struct perfctr_sum_ctrs sum;
	struct vperfctr_control control;

	memset(&control, 0, sizeof(control));
	boot();
	_vperfctr_open(1);
	_vperfctr_control(3, &control);
	_vperfctr_unlink(3);
	_vperfctr_read(3, &sum, NULL, NULL);
	_vperfctr_iresume(3);
	tap_ok(kernel.ncalls == 5 && called(0, 600, 0, 1) &&
	       kernel.call[1].nr == 601 && kernel.call[1].arg[0] == 3 &&
	       called(2, 602, 3, 0) &&
	       kernel.call[3].nr == 603 && kernel.call[3].arg[0] == 3 &&
	       called(4, 604, 3, 0),
	       "system calls 600 to 604: open, control, unlink, read, "
	       "iresume");
}

/* A kernel without perfctr: its ENOSYS reaches the caller unchanged. */
static void test_no_perfctr(void)
{
	struct perfctr_sum_ctrs sum;
	struct vperfctr_control control;

	boot();
	will_fail(ENOSYS);
	errno = 0;
	tap_ok(!vperfctr_open() && errno == ENOSYS && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 0, 1),
	       "no perfctr: open fails with ENOSYS after one system call");

	boot();
	will_fail(ENOSYS);
	errno = 0;
	tap_ok(!vperfctr_open_tid(1234, 0) && errno == ENOSYS &&
	       kernel.ncalls == 1 && called(0, __NR_vperfctr_open, 1234, 0),
	       "no perfctr: open_tid fails with ENOSYS");

	memset(&control, 0, sizeof(control));
	boot();
	will_fail(ENOSYS);
	will_fail(ENOSYS);
	will_fail(ENOSYS);
	will_fail(ENOSYS);
	will_fail(ENOSYS);
	errno = 0;
	tap_ok(_vperfctr_open(0) == -1 && errno == ENOSYS,
	       "no perfctr: _vperfctr_open: -1, ENOSYS");
	errno = 0;
	tap_ok(_vperfctr_control(3, &control) == -1 && errno == ENOSYS,
	       "no perfctr: _vperfctr_control: -1, ENOSYS");
	errno = 0;
	tap_ok(_vperfctr_unlink(3) == -1 && errno == ENOSYS,
	       "no perfctr: _vperfctr_unlink: -1, ENOSYS");
	errno = 0;
	tap_ok(_vperfctr_read(3, &sum, NULL, NULL) == -1 && errno == ENOSYS,
	       "no perfctr: _vperfctr_read: -1, ENOSYS");
	errno = 0;
	tap_ok(_vperfctr_iresume(3) == -1 && errno == ENOSYS,
	       "no perfctr: _vperfctr_iresume: -1, ENOSYS");
	tap_is_int(kernel.ncalls, 5, "no perfctr: one system call each");
}

static void test_open(void)
{
	struct vperfctr *vperfctr;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	vperfctr = vperfctr_open();
	tap_ok(vperfctr && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 0, 1),
	       "open: vperfctr_open(0, 1)");
	tap_is_int(vperfctr ? vperfctr_fd(vperfctr) : -1, fd,
		   "open: handle holds the kernel's descriptor");
	vperfctr_close(vperfctr);
	tap_ok(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	       "close: descriptor closed");
}

static void test_open_existing(void)
{
	struct vperfctr *vperfctr;
	int fd = unmappable_fd();

	boot();
	will_fail(EEXIST);
	will_return(fd);
	vperfctr = vperfctr_open();
	tap_ok(vperfctr && kernel.ncalls == 2 &&
	       called(0, __NR_vperfctr_open, 0, 1) &&
	       called(1, __NR_vperfctr_open, 0, 0),
	       "open on EEXIST: opens the existing state");
	vperfctr_close(vperfctr);
}

static void test_open_tid(void)
{
	boot();
	will_fail(ENOENT);
	errno = 0;
	tap_ok(!vperfctr_open_tid(1234, 0) && errno == ENOENT &&
	       kernel.ncalls == 1 && called(0, __NR_vperfctr_open, 1234, 0),
	       "open_tid: arguments passed, ENOENT returned");
}

static void test_control(void)
{
	struct vperfctr_control control, stop;
	struct vperfctr *vperfctr;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();

	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	control.preserve = 5;
	tap_ok(vperfctr_control(vperfctr, &control) == 0 &&
	       kernel.call[1].nr == __NR_vperfctr_control &&
	       kernel.call[1].arg[0] == fd &&
	       !memcmp(&kernel.control_in, &control, sizeof(control)),
	       "control: descriptor and control passed");

	memset(&stop, 0, sizeof(stop));
	tap_ok(vperfctr_stop(vperfctr) == 0 &&
	       kernel.call[2].nr == __NR_vperfctr_control &&
	       !memcmp(&kernel.control_in, &stop, sizeof(stop)),
	       "stop: the all-zero control, which keeps every sum");

	tap_ok(vperfctr_unlink(vperfctr) == 0 &&
	       called(3, __NR_vperfctr_unlink, fd, 0),
	       "unlink: descriptor passed");

	will_fail(EINVAL);
	errno = 0;
	tap_ok(vperfctr_iresume(vperfctr) == -1 && errno == EINVAL &&
	       called(4, __NR_vperfctr_iresume, fd, 0),
	       "iresume: descriptor passed, error returned");
	vperfctr_close(vperfctr);
}

static void test_read_syscall(void)
{
	struct perfctr_sum_ctrs sum, children;
	struct vperfctr_control control;
	struct vperfctr *vperfctr;
	const struct call *call;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();

	kernel.sum_out.tsc = 123456789;
	kernel.sum_out.pmc[0] = 42;
	call = &kernel.call[1];
	errno = 0;
	tap_is_u64(vperfctr_read_tsc(vperfctr), 123456789,
		   "read_tsc unmapped: value from the system call");
	tap_ok(errno == 0 && call->nr == __NR_vperfctr_read &&
	       call->arg[0] == fd && call->arg[1] && !call->arg[2] &&
	       !call->arg[3],
	       "read_tsc unmapped: vperfctr_read(fd, sum, NULL, NULL)");

	memset(&sum, 0, sizeof(sum));
	tap_ok(vperfctr_read_ctrs(vperfctr, &sum) == 0 && sum.tsc == 123456789
	       && sum.pmc[0] == 42,
	       "read_ctrs unmapped: values from the system call");

	kernel.control_out.cpu_control.tsc_on = 1;
	call = &kernel.call[3];
	tap_ok(vperfctr_read_state(vperfctr, &sum, &control) == 0 &&
	       call->arg[1] == (long)&sum && call->arg[2] == (long)&control &&
	       !call->arg[3] && control.cpu_control.tsc_on == 1,
	       "read_state: vperfctr_read(fd, sum, control, NULL)");

	kernel.children_out.tsc = 5555;
	kernel.children_out.pmc[3] = 33;
	memset(&children, 0, sizeof(children));
	call = &kernel.call[4];
	tap_ok(vperfctr_read_children(vperfctr, &children) == 0 &&
	       call->nr == __NR_vperfctr_read && call->arg[0] == fd &&
	       !call->arg[1] && !call->arg[2] &&
	       call->arg[3] == (long)&children && children.tsc == 5555 &&
	       children.pmc[3] == 33,
	       "read_children: vperfctr_read(fd, NULL, NULL, children)");

	tap_is_int(vperfctr_is_running(vperfctr), 1,
		   "is_running unmapped: TSC on");
	memset(&kernel.control_out, 0, sizeof(kernel.control_out));
	tap_is_int(vperfctr_is_running(vperfctr), 0,
		   "is_running unmapped: all off");
	kernel.control_out.cpu_control.nrictrs = 1;
	tap_is_int(vperfctr_is_running(vperfctr), 1,
		   "is_running unmapped: an i-mode counter");

	will_fail(EBADF);
	errno = 0;
	tap_ok(vperfctr_read_tsc(vperfctr) == 0 && errno == EBADF,
	       "read_tsc failing: 0 with errno");
	vperfctr_close(vperfctr);
}

static void init_state(struct vperfctr_state *state, __u32 flags,
		       __u32 cstatus)
{
	memset(state, 0, sizeof(*state));
	state->magic = VPERFCTR_STATE_MAGIC;
	state->abi_version = PERFCTR_ABI_VERSION;
	state->flags = flags;
	state->cpu_state.cstatus = cstatus;
	/* As the kernel has it for hardware counters (map 0 here). */
	state->nrsums = PERFCTR_MAX_NRCTRS;
	if (flags & VPERFCTR_STATE_ONCPU) {
		__u64 pmcs = (1ull << perfctr_cstatus_nrctrs(cstatus)) - 1;

		/* Hardware counters: live where the owner may read them. */
		if (flags & VPERFCTR_STATE_RDPMC)
			state->live = pmcs;
		else if (pmcs)
			state->live = VPERFCTR_LIVE_SYSCALL;
		if (perfctr_cstatus_has_tsc(cstatus))
			state->live |= VPERFCTR_LIVE_TSC;
	}
}

static void test_read_page(void)
{
	struct vperfctr_state state;
	struct perfctr_sum_ctrs sum;
	struct vperfctr *vperfctr;

	init_state(&state, 0, PERFCTR_CSTATUS_TSC_ON);
	state.cpu_state.tsc_sum = 777;
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	tap_ok(vperfctr != NULL, "open maps a state page");
	if (!vperfctr)
		return;
	tap_is_u64(vperfctr_read_tsc(vperfctr), 777, "read_tsc mapped: page");
	tap_is_int(vperfctr_is_running(vperfctr), 1,
		   "is_running mapped: page");
	tap_is_int(kernel.ncalls, 1, "mapped reads make no system call");
	vperfctr_close(vperfctr);

	/* A page of ABI 6.1 has no live word: read by system call. */
	init_state(&state, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON);
	state.abi_version = (PERFCTR_ABI_MAJOR << 16) | 1;
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	kernel.sum_out.tsc = 4321;
	tap_ok(vperfctr_read_tsc(vperfctr) == 4321 && kernel.ncalls == 2 &&
	       kernel.call[1].nr == __NR_vperfctr_read,
	       "a page of ABI 6.1: read by the system call");
	vperfctr_close(vperfctr);

	/* The same read, inline and out of line (taking its address). */
	init_state(&state, 0, PERFCTR_CSTATUS_TSC_ON);
	state.cpu_state.tsc_sum = 555;
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	{
		unsigned long long (*fn)(const struct vperfctr *) =
			vperfctr_read_tsc;

		tap_ok(vperfctr_read_tsc(vperfctr) == 555 &&
		       fn(vperfctr) == 555 && kernel.ncalls == 1,
		       "read_tsc inline and out of line: the page, no call");
	}
	vperfctr_close(vperfctr);

	/* A live PMC and no rdpmc: only the kernel can read it. */
	init_state(&state, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 1);
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	kernel.sum_out.tsc = 1000;
	kernel.sum_out.pmc[0] = 99;
	tap_ok(vperfctr_read_ctrs(vperfctr, &sum) == 0 && sum.pmc[0] == 99 &&
	       kernel.ncalls == 2 && kernel.call[1].nr == __NR_vperfctr_read,
	       "read_ctrs mapped, live PMC: falls back to the system call");
	vperfctr_close(vperfctr);
}

/*
 * When the page cannot give the sums, the system call does; only when
 * both fail does errno change, and to EAGAIN when the page only kept
 * changing: a monitor should retry then, not report the call's refusal.
 */
static void test_read_fallback_errno(void)
{
	struct vperfctr_state state;
	struct perfctr_sum_ctrs sum;
	struct vperfctr *vperfctr;

	/* A live PMC and no rdpmc: the page cannot, the kernel can. */
	init_state(&state, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 1);
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	errno = 0;
	tap_ok(vperfctr_read_ctrs(vperfctr, &sum) == 0 && errno == 0,
	       "read_ctrs by system call after the page could not: errno kept");
	errno = 0;
	vperfctr_read_pmc(vperfctr, 0);
	tap_ok(errno == 0, "read_pmc by system call after the page could not: errno kept");
	vperfctr_close(vperfctr);

	/* A page whose owner is forever in the middle of an update. */
	init_state(&state, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON);
	state.seq = 1;
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	will_fail(EPERM);
	tap_ok(vperfctr_read_ctrs(vperfctr, &sum) == -1 && errno == EAGAIN,
	       "read_ctrs, page kept changing and system call refused: EAGAIN");
	will_fail(EPERM);
	errno = 0;
	tap_ok(vperfctr_read_tsc(vperfctr) == 0 && errno == EAGAIN,
	       "read_tsc, page kept changing and system call refused: EAGAIN");
	kernel.sum_out.tsc = 31;
	errno = 0;
	tap_ok(vperfctr_read_tsc(vperfctr) == 31 && errno == 0,
	       "read_tsc, page kept changing, system call answers: its value");
	/* Any other refusal of the call is the caller's to see. */
	init_state(&state, VPERFCTR_STATE_ONCPU, PERFCTR_CSTATUS_TSC_ON | 1);
	vperfctr_close(vperfctr);
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	will_fail(EPERM);
	tap_ok(vperfctr_read_ctrs(vperfctr, &sum) == -1 && errno == EPERM,
	       "read_ctrs, page cannot and system call refused: its errno");
	vperfctr_close(vperfctr);
}

static void test_foreign_page(void)
{
	struct vperfctr_state state;
	int fd;

	init_state(&state, 0, 0);
	state.abi_version = 5 << 16;	/* another major version */
	boot();
	fd = page_fd(&state);
	will_return(fd);
	errno = 0;
	tap_ok(!vperfctr_open() && errno == EPROTO,
	       "open, page of another ABI: EPROTO");
	tap_ok(kernel.ncalls == 2 && called(1, __NR_vperfctr_unlink, fd, 0),
	       "open, page of another ABI: created state unlinked");
	tap_ok(fcntl(fd, F_GETFD) < 0, "open, page of another ABI: fd closed");

	fd = page_fd(&state);
	boot();
	will_return(fd);
	tap_ok(!vperfctr_open_tid(0, 0) && kernel.ncalls == 1,
	       "open existing, page of another ABI: state left attached");
}

static void test_read_pmc(void)
{
	struct vperfctr_state state;
	struct vperfctr *vperfctr;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	kernel.sum_out.pmc[3] = 4242;
	errno = 0;
	tap_is_u64(vperfctr_read_pmc(vperfctr, 3), 4242,
		   "read_pmc unmapped: value from the system call");
	tap_ok(errno == 0 && kernel.ncalls == 2 &&
	       kernel.call[1].nr == __NR_vperfctr_read &&
	       kernel.call[1].arg[0] == fd && kernel.call[1].arg[1] &&
	       !kernel.call[1].arg[2] && !kernel.call[1].arg[3],
	       "read_pmc unmapped: vperfctr_read(fd, sum, NULL, NULL)");
	errno = 0;
	tap_ok(vperfctr_read_pmc(vperfctr, PERFCTR_MAX_NRCTRS) == 0 &&
	       errno == EINVAL && kernel.ncalls == 2,
	       "read_pmc of counter %d: 0, EINVAL, no system call",
	       PERFCTR_MAX_NRCTRS);
	will_fail(EBADF);
	errno = 0;
	tap_ok(vperfctr_read_pmc(vperfctr, 0) == 0 && errno == EBADF,
	       "read_pmc failing: 0 with errno");
	vperfctr_close(vperfctr);

	/*
	 * A running software counter: read from the page, beside a
	 * hardware counter the owner may read (one it may not would send
	 * every read to the system call).
	 */
	init_state(&state, VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC,
		   PERFCTR_CSTATUS_TSC_ON | 2);
	state.cpu_state.pmc[1].map = PERFCTR_MAP_SOFTWARE |
				     PERFCTR_SW_PAGE_FAULTS;
	state.cpu_state.pmc[1].width = 64;
	state.cpu_state.pmc[1].sum = 77;
	state.live &= ~2ull;	/* its sum is current */
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	errno = 0;
	tap_is_u64(vperfctr_read_pmc(vperfctr, 1), 77,
		   "read_pmc mapped: a software counter from the page");
	tap_ok(errno == 0 && kernel.ncalls == 1,
	       "read_pmc mapped: no system call");
	vperfctr_close(vperfctr);

	/* A live hardware counter this reader cannot rdpmc. */
	init_state(&state, VPERFCTR_STATE_ONCPU, 1);
	state.cpu_state.pmc[0].map = 0;
	state.cpu_state.pmc[0].width = 48;
	boot();
	will_return(page_fd(&state));
	vperfctr = vperfctr_open();
	if (!vperfctr)
		abort();
	kernel.sum_out.pmc[0] = 5150;
	tap_ok(vperfctr_read_pmc(vperfctr, 0) == 5150 && kernel.ncalls == 2,
	       "read_pmc mapped, live PMC, no RDPMC: the system call");
	vperfctr_close(vperfctr);
}

static void test_remote_open(void)
{
	struct rvperfctr *rvperfctr;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	rvperfctr = rvperfctr_open(1234);
	tap_ok(rvperfctr && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 1234, 1),
	       "rvperfctr_open: vperfctr_open(pid, 1)");
	tap_ok(rvperfctr && rvperfctr_pid(rvperfctr) == 1234 &&
	       rvperfctr_fd(rvperfctr) == fd,
	       "rvperfctr_open: pid and descriptor kept");
	tap_is_int(kernel.ncalls, 1, "rvperfctr_open: the page is not mapped");
	rvperfctr_close(rvperfctr);
	tap_ok(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	       "rvperfctr_close: descriptor closed");

	fd = unmappable_fd();
	boot();
	will_fail(EEXIST);
	will_return(fd);
	rvperfctr = rvperfctr_open(1234);
	tap_ok(rvperfctr && kernel.ncalls == 2 &&
	       called(1, __NR_vperfctr_open, 1234, 0),
	       "rvperfctr_open, state exists: opened with vperfctr_open(pid, "
	       "0)");
	rvperfctr_close(rvperfctr);

	boot();
	will_fail(EPERM);
	errno = 0;
	tap_ok(!rvperfctr_open(1234) && errno == EPERM && kernel.ncalls == 1,
	       "rvperfctr_open, thread not ptrace-stopped: EPERM");
	boot();
	errno = 0;
	tap_ok(!rvperfctr_open(0) && errno == EINVAL && kernel.ncalls == 0,
	       "rvperfctr_open(0): EINVAL, no system call");
	errno = 0;
	tap_ok(!rvperfctr_open(-5) && errno == EINVAL && kernel.ncalls == 0,
	       "rvperfctr_open(-5): EINVAL, no system call");
	errno = EINTR;
	rvperfctr_close(NULL);
	tap_is_int(errno, EINTR, "rvperfctr_close(NULL) is a no-op");
}

static void test_remote_calls(void)
{
	struct vperfctr_control control, stop, got;
	struct perfctr_sum_ctrs sum;
	struct rvperfctr *rvperfctr;
	const struct call *call;
	int fd = unmappable_fd();

	boot();
	will_return(fd);
	rvperfctr = rvperfctr_open(99);
	if (!rvperfctr)
		abort();

	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	tap_ok(rvperfctr_control(rvperfctr, &control) == 0 &&
	       kernel.call[1].nr == __NR_vperfctr_control &&
	       kernel.call[1].arg[0] == fd &&
	       !memcmp(&kernel.control_in, &control, sizeof(control)),
	       "rvperfctr_control: descriptor and control passed");
	memset(&stop, 0, sizeof(stop));
	tap_ok(rvperfctr_stop(rvperfctr) == 0 &&
	       kernel.call[2].nr == __NR_vperfctr_control &&
	       !memcmp(&kernel.control_in, &stop, sizeof(stop)),
	       "rvperfctr_stop: the all-zero control");
	tap_ok(rvperfctr_iresume(rvperfctr) == 0 &&
	       called(3, __NR_vperfctr_iresume, fd, 0),
	       "rvperfctr_iresume: descriptor passed");

	kernel.sum_out.tsc = 1000;
	kernel.sum_out.pmc[0] = 64;
	kernel.control_out.cpu_control.nractrs = 1;
	memset(&sum, 0, sizeof(sum));
	call = &kernel.call[4];
	tap_ok(rvperfctr_read_ctrs(rvperfctr, &sum) == 0 &&
	       call->nr == __NR_vperfctr_read && call->arg[0] == fd &&
	       call->arg[1] == (long)&sum && !call->arg[2] && !call->arg[3] &&
	       sum.tsc == 1000 && sum.pmc[0] == 64,
	       "rvperfctr_read_ctrs: vperfctr_read(fd, sum, NULL, NULL)");
	call = &kernel.call[5];
	tap_ok(rvperfctr_read_state(rvperfctr, &sum, &got) == 0 &&
	       call->arg[1] == (long)&sum && call->arg[2] == (long)&got &&
	       !call->arg[3] && got.cpu_control.nractrs == 1,
	       "rvperfctr_read_state: vperfctr_read(fd, sum, control, "
	       "NULL)");

	will_fail(EPERM);
	errno = 0;
	tap_ok(rvperfctr_unlink(rvperfctr) == -1 && errno == EPERM &&
	       called(6, __NR_vperfctr_unlink, fd, 0),
	       "rvperfctr_unlink: descriptor passed, error returned");
	tap_is_int(kernel.ncalls, 7, "remote calls: one system call each");
	rvperfctr_close(rvperfctr);
}

/*
 * perfctr 2.7's _vperfctr_open(): the calling thread, created or
 * opened, and a descriptor even for a thread without a state.
 */
static void test_open_27(void)
{
	char root[64], dir[96];
	struct stat want, got;
	int fd, kfd = unmappable_fd();

	boot();
	will_return(kfd);
	tap_ok(_vperfctr_open(1) == kfd && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 0, 1),
	       "_vperfctr_open(1): vperfctr_open(0, 1), its descriptor");
	boot();
	will_fail(EEXIST);
	errno = 0;
	tap_ok(_vperfctr_open(1) == -1 && errno == EEXIST &&
	       kernel.ncalls == 1,
	       "_vperfctr_open(1), state exists: EEXIST, as in 2.7");
	boot();
	will_return(kfd);
	tap_ok(_vperfctr_open(0) == kfd && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 0, 0),
	       "_vperfctr_open(0): vperfctr_open(0, 0), the state's "
	       "descriptor");
	close(kfd);

	snprintf(root, sizeof(root), "/tmp/perfctr-open27-XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(dir, sizeof(dir), "%s/perfctr", root);
	boot();
	will_fail(ENOENT);
	errno = 0;
	tap_ok(vperfctr_open_self_dir(root, 0) == -1 && errno == ENOENT &&
	       kernel.ncalls == 1,
	       "_vperfctr_open(0), no state, no perfctr in sysfs: ENOENT");
	mkdir(dir, 0755);
	boot();
	will_fail(ENOENT);
	fd = vperfctr_open_self_dir(root, 0);
	tap_ok(fd >= 0 && kernel.ncalls == 1 &&
	       called(0, __NR_vperfctr_open, 0, 0),
	       "_vperfctr_open(0), no state: a descriptor, after one call");
	tap_ok(fd >= 0 && fstat(fd, &got) == 0 && stat(dir, &want) == 0 &&
	       S_ISDIR(got.st_mode) && got.st_ino == want.st_ino &&
	       got.st_dev == want.st_dev,
	       "_vperfctr_open(0), no state: of the sysfs perfctr directory");
	tap_ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       "_vperfctr_open(0), no state: close-on-exec, as the kernel's");
	tap_ok(fd >= 0 && close(fd) == 0,
	       "_vperfctr_open(0), no state: closed with close()");
	boot();
	will_fail(ENOENT);
	errno = 0;
	tap_ok(vperfctr_open_self_dir(root, 1) == -1 && errno == ENOENT &&
	       kernel.ncalls == 1,
	       "_vperfctr_open(1) failing with ENOENT: no descriptor made up");
	boot();
	will_fail(ESRCH);
	errno = 0;
	tap_ok(vperfctr_open_self_dir(root, 0) == -1 && errno == ESRCH &&
	       kernel.ncalls == 1,
	       "_vperfctr_open(0) failing otherwise: the kernel's errno");
	rmdir(dir);
	rmdir(root);

	/* The real sysfs, whatever this machine has. */
	boot();
	will_fail(ENOENT);
	errno = 0;
	fd = _vperfctr_open(0);
	if (access("/sys/kernel/perfctr", F_OK) == 0)
		tap_ok(fd >= 0, "_vperfctr_open(0), no state, this machine's "
		       "sysfs has perfctr: a descriptor");
	else
		tap_ok(fd == -1 && errno == ENOENT, "_vperfctr_open(0), no "
		       "state, this machine's sysfs has no perfctr: ENOENT");
	if (fd >= 0)
		close(fd);
}

/* perfctr 2.7's reads of one part of a state. */
static void test_read_27(void)
{
	struct perfctr_sum_ctrs sum, children;
	struct vperfctr_control control;
	const struct call *call;

	boot();
	kernel.sum_out.tsc = 1001;
	kernel.sum_out.pmc[2] = 22;
	kernel.control_out.cpu_control.nractrs = 3;
	kernel.children_out.tsc = 3003;
	kernel.children_out.pmc[1] = 11;
	memset(&sum, 0, sizeof(sum));
	memset(&control, 0, sizeof(control));
	memset(&children, 0, sizeof(children));

	call = &kernel.call[0];
	tap_ok(_vperfctr_read_sum(7, &sum) == 0 &&
	       call->nr == __NR_vperfctr_read && call->arg[0] == 7 &&
	       call->arg[1] == (long)&sum && !call->arg[2] && !call->arg[3] &&
	       sum.tsc == 1001 && sum.pmc[2] == 22,
	       "_vperfctr_read_sum: vperfctr_read(fd, sum, NULL, NULL)");
	call = &kernel.call[1];
	tap_ok(_vperfctr_read_control(7, &control) == 0 &&
	       call->nr == __NR_vperfctr_read && call->arg[0] == 7 &&
	       !call->arg[1] && call->arg[2] == (long)&control &&
	       !call->arg[3] && control.cpu_control.nractrs == 3,
	       "_vperfctr_read_control: vperfctr_read(fd, NULL, control, "
	       "NULL)");
	call = &kernel.call[2];
	tap_ok(_vperfctr_read_children(7, &children) == 0 &&
	       call->nr == __NR_vperfctr_read && call->arg[0] == 7 &&
	       !call->arg[1] && !call->arg[2] &&
	       call->arg[3] == (long)&children && children.tsc == 3003 &&
	       children.pmc[1] == 11,
	       "_vperfctr_read_children: vperfctr_read(fd, NULL, NULL, "
	       "children)");
	tap_is_int(kernel.ncalls, 3, "2.7 reads: one system call each");

	will_fail(EBADF);
	will_fail(EINVAL);
	will_fail(EPERM);
	errno = 0;
	tap_ok(_vperfctr_read_sum(7, &sum) == -1 && errno == EBADF,
	       "_vperfctr_read_sum failing: -1, the kernel's errno");
	errno = 0;
	tap_ok(_vperfctr_read_control(7, &control) == -1 && errno == EINVAL,
	       "_vperfctr_read_control failing: -1, the kernel's errno");
	errno = 0;
	tap_ok(_vperfctr_read_children(7, &children) == -1 && errno == EPERM,
	       "_vperfctr_read_children failing: -1, the kernel's errno");
}

int main(void)
{
	test_numbers();
	test_no_perfctr();
	test_open();
	test_open_existing();
	test_open_tid();
	test_control();
	test_read_syscall();
	test_read_page();
	test_read_fallback_errno();
	test_foreign_page();
	test_read_pmc();
	test_remote_open();
	test_remote_calls();
	test_open_27();
	test_read_27();
	return tap_done();
}
