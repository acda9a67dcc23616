// SPDX-License-Identifier: LGPL-2.1
/*
 * The handle layer on the real kernel: descriptor checks, reads from a
 * mapped page.  The machine's kernel may or may not have perfctr; what
 * needs it is skipped without it.  test_calls.c covers the system call
 * side against a fake kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "internal.h"
#include "tap.h"

static struct vperfctr_state page;

/* A handle on a made-up page and no descriptor. */
static struct vperfctr fake_handle(__u32 flags, __u32 cstatus, __u64 tsc_sum)
{
	struct vperfctr vperfctr = { .fast.own = &page, .fd = -1, .is_self = 1,
				     .state = &page };

	memset(&page, 0, sizeof(page));
	page.magic = VPERFCTR_STATE_MAGIC;
	page.abi_version = PERFCTR_ABI_VERSION;
	page.flags = flags;
	page.cpu_state.cstatus = cstatus;
	page.cpu_state.tsc_sum = tsc_sum;
	page.nrsums = PERFCTR_MAX_NRCTRS;
	if ((flags & VPERFCTR_STATE_ONCPU) && perfctr_cstatus_has_tsc(cstatus))
		page.live = VPERFCTR_LIVE_TSC;
	return vperfctr;
}

static void test_from_fd(void)
{
	int fds[2];

	errno = 0;
	tap_ok(!vperfctr_from_fd(-1) && errno == EBADF,
	       "from_fd on a bad descriptor: EBADF");
	if (pipe(fds) < 0) {
		tap_ok(0, "pipe: %s", strerror(errno));
		return;
	}
	errno = 0;
	tap_ok(!vperfctr_from_fd(fds[0]) && errno == EINVAL,
	       "from_fd on a pipe: EINVAL");
	tap_ok(fcntl(fds[0], F_GETFD) >= 0,
	       "from_fd failing leaves the descriptor open");
	close(fds[0]);
	close(fds[1]);
}

/* A file that holds a valid state page is still not a state. */
static void test_from_fd_lookalike(void)
{
	long size = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("vperfctr", MFD_CLOEXEC);

	fake_handle(0, PERFCTR_CSTATUS_TSC_ON, 1);	/* fills page */
	if (fd < 0 || ftruncate(fd, size) < 0 ||
	    pwrite(fd, &page, sizeof(page), 0) != (ssize_t)sizeof(page)) {
		tap_ok(0, "memfd: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	errno = 0;
	tap_ok(!vperfctr_from_fd(fd) && errno == EINVAL,
	       "from_fd on a file holding a state page: EINVAL");
	tap_ok(fcntl(fd, F_GETFD) >= 0,
	       "from_fd on a file: the descriptor left open");
	close(fd);
}

static void test_read_from_page(void)
{
	struct vperfctr vperfctr = fake_handle(0, PERFCTR_CSTATUS_TSC_ON, 31337);
	struct perfctr_sum_ctrs sum;

	errno = 0;
	tap_is_u64(vperfctr_read_tsc(&vperfctr), 31337,
		   "read_tsc uses the mapped page");
	tap_is_int(errno, 0, "read_tsc success leaves errno alone");
	tap_ok(vperfctr_read_ctrs(&vperfctr, &sum) == 0 && sum.tsc == 31337,
	       "read_ctrs uses the mapped page");
}

static void test_is_running(void)
{
	struct vperfctr vperfctr = fake_handle(0, PERFCTR_CSTATUS_TSC_ON, 0);

	tap_is_int(vperfctr_is_running(&vperfctr), 1,
		   "is_running: TSC on");
	page.cpu_state.cstatus = 0;
	tap_is_int(vperfctr_is_running(&vperfctr), 0,
		   "is_running: all off");
}

/*
 * A page the kernel never finishes writing, its seq forever odd: the
 * reads go to the system call, which, on no descriptor, fails.
 */
static void test_page_stuck_odd(void)
{
	struct vperfctr vperfctr = fake_handle(VPERFCTR_STATE_ONCPU,
					       PERFCTR_CSTATUS_TSC_ON, 7);
	struct perfctr_sum_ctrs sum;

	page.seq = 1;
	tap_ok(vperfctr_read_ctrs(&vperfctr, &sum) < 0,
	       "read_ctrs on a page stuck odd: not from the page");
}

static int is_mapped(const void *addr, size_t size)
{
	unsigned char vec;

	return mincore((void *)addr, size, &vec) == 0;
}

/*
 * A fork copies no mapping of the state page: in a child, what is at
 * its address is not the handle's, and vperfctr_close() there leaves it
 * alone.  In the process that mapped it, close unmaps it.
 */
static void test_close_in_a_child(void)
{
	size_t size = sysconf(_SC_PAGESIZE);
	struct vperfctr *vperfctr = calloc(1, sizeof(*vperfctr));
	void *addr = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	int status = -1;
	pid_t pid;

	if (!vperfctr || addr == MAP_FAILED) {
		tap_ok(0, "close in a child: setup: %s", strerror(errno));
		free(vperfctr);
		return;
	}
	vperfctr->fd = -1;
	vperfctr->state = addr;
	vperfctr->map_size = size;
	vperfctr->map_pid = getpid();
	pid = fork();
	if (pid == 0) {
		vperfctr_close(vperfctr);
		_exit(is_mapped(addr, size) ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "close in a child leaves what is at the page's address");
	vperfctr_close(vperfctr);
	tap_ok(!is_mapped(addr, size), "close in the mapper unmaps the page");
}

static void test_close_null(void)
{
	errno = EINTR;
	vperfctr_close(NULL);
	tap_is_int(errno, EINTR, "close(NULL) is a no-op");
}

/* On a kernel with perfctr: count our own TSC once. */
static void test_live(void)
{
	struct vperfctr_control control;
	struct vperfctr *vperfctr, *again;
	unsigned long long t0, t1;
	int fd;

	vperfctr = vperfctr_open();
	if (!vperfctr && errno == ENOSYS) {
		tap_ok(1, "open without perfctr in the kernel: ENOSYS");
		tap_skip("live: control", "no perfctr in this kernel");
		tap_skip("live: TSC advances", "no perfctr in this kernel");
		tap_skip("live: from_fd on a state", "no perfctr in this kernel");
		return;
	}
	if (!tap_ok(vperfctr != NULL, "open: %s", strerror(errno)))
		return;
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	tap_is_int(vperfctr_control(vperfctr, &control), 0, "live: control");
	t0 = vperfctr_read_tsc(vperfctr);
	t1 = vperfctr_read_tsc(vperfctr);
	tap_ok(t0 > 0 && t1 > t0, "live: TSC advances");
	fd = dup(vperfctr_fd(vperfctr));
	again = vperfctr_from_fd(fd);
	tap_ok(again != NULL, "live: from_fd on a state");
	if (!again)
		close(fd);
	vperfctr_close(again);
	vperfctr_unlink(vperfctr);
	vperfctr_close(vperfctr);
}

int main(void)
{
	test_from_fd();
	test_from_fd_lookalike();
	test_read_from_page();
	test_is_running();
	test_page_stuck_odd();
	test_close_in_a_child();
	test_close_null();
	test_live();
	return tap_done();
}
