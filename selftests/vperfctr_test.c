// SPDX-License-Identifier: GPL-2.0
/*
 * ABI tests for the virtual per-process performance counters: the five
 * vperfctr system calls, the vperfctrfs file descriptor and its mmap()ed
 * state page, and the state's life across fork, exit and ptrace.
 *
 * The driver under test may be the TSC-only one, so only the TSC is
 * counted here; programmable counters have tests of their own.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

/*
 * The wrappers that TEST() and TEST_F() expand to here leave parameters
 * unused and keep locals across setjmp(); keep -Wextra quiet about both.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#include "kselftest_harness.h"

static int sys_vperfctr_open(int tid, int creat)
{
	return syscall(__NR_vperfctr_open, tid, creat);
}

static int sys_vperfctr_control(int fd, const struct vperfctr_control *control)
{
	return syscall(__NR_vperfctr_control, fd, control);
}

static int sys_vperfctr_unlink(int fd)
{
	return syscall(__NR_vperfctr_unlink, fd);
}

static int sys_vperfctr_read(int fd, struct perfctr_sum_ctrs *sum,
			     struct vperfctr_control *control,
			     struct perfctr_sum_ctrs *children)
{
	return syscall(__NR_vperfctr_read, fd, sum, control, children);
}

static int sys_vperfctr_iresume(int fd)
{
	return syscall(__NR_vperfctr_iresume, fd);
}

/*
 * NULL when the running kernel has perfctr, else why it has not.  A perfctr
 * kernel lists its pseudo file system, vperfctrfs, in /proc/filesystems.
 */
static const char *perfctr_missing(void)
{
	char line[128];
	bool found = false;
	FILE *f;

	f = fopen("/proc/filesystems", "r");
	if (!f)
		return "cannot read /proc/filesystems";
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "nodev\tvperfctrfs\n");
	fclose(f);
	return found ? NULL : "kernel without CONFIG_PERFCTR: no vperfctrfs in /proc/filesystems";
}

static void start_tsc_control(struct vperfctr_control *control)
{
	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = 1;
}

static int start_tsc(int fd)
{
	struct vperfctr_control control;

	start_tsc_control(&control);
	return sys_vperfctr_control(fd, &control);
}

static int stop_counters(int fd)
{
	struct vperfctr_control control;

	memset(&control, 0, sizeof(control));
	return sys_vperfctr_control(fd, &control);
}

/* The TSC sum, or 0 with errno set when the read fails. */
static __u64 read_tsc_sum(int fd)
{
	struct perfctr_sum_ctrs sum;

	if (sys_vperfctr_read(fd, &sum, NULL, NULL))
		return 0;
	return sum.tsc;
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * The kernel changes the state page under us: each field is loaded once,
 * as the kernel left it.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static const struct vperfctr_state *map_state(int fd)
{
	void *page = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);

	return page == MAP_FAILED ? NULL : page;
}

static void unmap_state(const struct vperfctr_state *page)
{
	if (page)
		munmap((void *)page, page_size());
}

static __u64 elapsed_ns(const struct timespec *from, const struct timespec *to)
{
	return (to->tv_sec - from->tv_sec) * 1000000000ull +
	       to->tv_nsec - from->tv_nsec;
}

/* Run on the CPU for @ms milliseconds of this thread's own CPU time. */
static void spin_ms(unsigned int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while (elapsed_ns(&start, &now) < ms * 1000000ull);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000l,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool page_flag(const struct vperfctr_state *page, __u32 flag)
{
	return READ_ONCE(page->flags) & flag;
}

static bool fd_is_vperfctr(int fd)
{
	char path[64], target[256];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return false;
	target[len] = '\0';
	return !strncmp(target, "vperfctrfs:", strlen("vperfctrfs:"));
}

/* The number after @key in /proc/self/fdinfo/@fd, or -1. */
static long fdinfo_value(int fd, const char *key)
{
	char path[64], line[256];
	size_t len = strlen(key);
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			value = strtol(line + len + 1, NULL, 0);
			break;
		}
	fclose(f);
	return value;
}

static bool all_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		if (*p++)
			return false;
	return true;
}

#if __has_builtin(__builtin_ia32_rdtsc)
#define HAVE_USER_TSC 1

static __u64 user_tsc(void)
{
	__u64 tsc;

	asm volatile("" ::: "memory");
	tsc = __builtin_ia32_rdtsc();
	asm volatile("" ::: "memory");
	return tsc;
}
#else
#define HAVE_USER_TSC 0

static __u64 user_tsc(void)
{
	return 0;
}
#endif

/*
 * The fast read of the TSC sum from the state page.  'seq' is odd while
 * the kernel updates the page; a read that overlaps an update, or that
 * sees 'seq' change because the owner was suspended and resumed in the
 * middle, is retried.
 */
static __u64 fast_read_tsc(const struct vperfctr_state *page)
{
	__u32 seq, flags, cstatus;
	__u64 sum, start, now;

	do {
		seq = __atomic_load_n(&page->seq, __ATOMIC_ACQUIRE);
		flags = READ_ONCE(page->flags);
		cstatus = READ_ONCE(page->cpu_state.cstatus);
		sum = READ_ONCE(page->cpu_state.tsc_sum);
		start = READ_ONCE(page->cpu_state.tsc_start);
		now = user_tsc();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || READ_ONCE(page->seq) != seq);

	if ((flags & VPERFCTR_STATE_ONCPU) && perfctr_cstatus_has_tsc(cstatus))
		sum += now - start;
	return sum;
}

static int send_fd(int sk, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'F';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sk, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sk)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sk, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* Reap @pid; its exit status, or -1 if it did not exit normally. */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Reap *@pid and forget it: its exit status, or -1. */
static int reap_child(pid_t *pid)
{
	int status = reap(*pid);

	*pid = 0;
	return status;
}

/*
 * A child reports the errno of the call it tested as its exit status;
 * this is the status for a call that unexpectedly succeeded.
 */
#define CHILD_CALL_SUCCEEDED	200

/* vperfctr_open() --------------------------------------------------- */

/* A thread without counter state. */
FIXTURE(open)
{
};

FIXTURE_SETUP(open)
{
	const char *why = perfctr_missing();

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(open)
{
}

TEST_F(open, self_with_creat_returns_vperfctrfs_fd)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
	ASSERT_TRUE(fd_is_vperfctr(fd));
	close(fd);
}

TEST_F(open, returns_close_on_exec_fd)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

TEST_F(open, fd_is_on_vperfctrfs)
{
	struct statfs sfs;
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, fstatfs(fd, &sfs));
	ASSERT_EQ(VPERFCTRFS_MAGIC, sfs.f_type);
	close(fd);
}

TEST_F(open, own_tid_is_self)
{
	int fd;

	fd = sys_vperfctr_open(gettid(), 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(gettid(), 1): %s", strerror(errno));
	}
	/* The state created through the tid is the one tid 0 finds. */
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EEXIST, errno);
	close(fd);
}

TEST_F(open, negative_tid_fails_with_einval)
{
	ASSERT_EQ(-1, sys_vperfctr_open(-1, 1));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(open, reaped_child_fails_with_esrch)
{
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, reap(pid));

	ASSERT_EQ(-1, sys_vperfctr_open(pid, 1));
	ASSERT_EQ(ESRCH, errno);
}

TEST_F(open, untraced_child_fails_with_eperm)
{
	int go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);

	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(EPERM, errno);

	close(go[1]);
	ASSERT_EQ(0, reap(pid));
}

TEST_F(open, traced_running_child_fails_with_eperm)
{
	int go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		TH_LOG("PTRACE_SEIZE: %s", strerror(errno));
	}

	/* Traced by us, but not stopped. */
	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(EPERM, errno);

	close(go[1]);
	ASSERT_EQ(0, reap(pid));
}

struct sibling {
	int tid_pipe[2];
	int go_pipe[2];
};

static void *sibling_main(void *arg)
{
	struct sibling *s = arg;
	pid_t tid = gettid();
	char c;

	if (write(s->tid_pipe[1], &tid, sizeof(tid)) == sizeof(tid))
		while (read(s->go_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
	return NULL;
}

TEST_F(open, sibling_thread_fails_with_eperm)
{
	struct sibling s;
	pthread_t thread;
	pid_t tid;

	ASSERT_EQ(0, pipe(s.tid_pipe));
	ASSERT_EQ(0, pipe(s.go_pipe));
	ASSERT_EQ(0, pthread_create(&thread, NULL, sibling_main, &s));
	ASSERT_EQ((ssize_t)sizeof(tid), read(s.tid_pipe[0], &tid, sizeof(tid)));

	EXPECT_EQ(-1, sys_vperfctr_open(tid, 1));
	EXPECT_EQ(EPERM, errno);

	close(s.go_pipe[1]);
	ASSERT_EQ(0, pthread_join(thread, NULL));
}

TEST_F(open, with_creat_when_state_exists_fails_with_eexist)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EEXIST, errno);
	close(fd);
}

TEST_F(open, without_creat_and_no_state_fails_with_enoent)
{
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(open, without_creat_opens_existing_state)
{
	struct vperfctr_control control;
	int fd, fd2;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));

	fd2 = sys_vperfctr_open(0, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_NE(fd, fd2);
	ASSERT_EQ(0, sys_vperfctr_read(fd2, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd2);
	close(fd);
}

TEST_F(open, attached_state_outlives_its_last_fd)
{
	struct vperfctr_control control;
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));
	ASSERT_EQ(0, close(fd));

	fd = sys_vperfctr_open(0, 0);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 0): %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd);
}

TEST_F(open, creat_unlink_close_1000_times)
{
	int first, fd, i;

	first = sys_vperfctr_open(0, 1);
	ASSERT_GE(first, 0);
	ASSERT_EQ(0, sys_vperfctr_unlink(first));
	ASSERT_EQ(0, close(first));

	for (i = 0; i < 1000; i++) {
		fd = sys_vperfctr_open(0, 1);
		ASSERT_EQ(first, fd) {
			TH_LOG("iteration %d: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, start_tsc(fd));
		ASSERT_EQ(0, sys_vperfctr_unlink(fd));
		ASSERT_EQ(0, close(fd));
	}
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(open, reopen_map_close_existing_state_1000_times)
{
	const struct vperfctr_state *page;
	int fd, fd2, i;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));

	for (i = 0; i < 1000; i++) {
		fd2 = sys_vperfctr_open(0, 0);
		ASSERT_GE(fd2, 0) {
			TH_LOG("iteration %d: %s", i, strerror(errno));
		}
		page = map_state(fd2);
		ASSERT_NE(NULL, page);
		ASSERT_EQ(0, close(fd2));
		ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
		unmap_state(page);
	}
	ASSERT_NE(0ull, read_tsc_sum(fd));
	close(fd);
}

/* A fresh state of this thread, counters stopped. */
FIXTURE(vperfctr)
{
	int fd;
};

FIXTURE_SETUP(vperfctr)
{
	const char *why;

	self->fd = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(vperfctr)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* vperfctr_control() ------------------------------------------------ */

TEST_F(vperfctr, new_state_is_stopped_and_zero)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&sum, 0xff, sizeof(sum));
	memset(&control, 0xff, sizeof(control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, &control, NULL));
	ASSERT_TRUE(all_zero(&sum, sizeof(sum)));
	ASSERT_TRUE(all_zero(&control, sizeof(control)));
}

TEST_F(vperfctr, control_tsc_on_starts_tsc)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

TEST_F(vperfctr, tsc_counts_running_not_sleeping)
{
	__u64 t0, t1, t2;

	ASSERT_EQ(0, start_tsc(self->fd));
	t0 = read_tsc_sum(self->fd);
	spin_ms(50);
	t1 = read_tsc_sum(self->fd);
	sleep_ms(50);
	t2 = read_tsc_sum(self->fd);

	ASSERT_GT(t1 - t0, 4 * (t2 - t1)) {
		TH_LOG("50 ms spinning: %llu ticks, 50 ms sleeping: %llu ticks",
		       (unsigned long long)(t1 - t0),
		       (unsigned long long)(t2 - t1));
	}
}

TEST_F(vperfctr, control_tsc_off_stops_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, stop_counters(self->fd));
	before = read_tsc_sum(self->fd);
	spin_ms(5);
	after = read_tsc_sum(self->fd);
	ASSERT_EQ(before, after);
}

TEST_F(vperfctr, control_tsc_off_resets_tsc_sum)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_NE(0ull, read_tsc_sum(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0ull, read_tsc_sum(self->fd));
}

TEST_F(vperfctr, control_tsc_on_again_keeps_tsc_sum)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(5);
	before = read_tsc_sum(self->fd);
	ASSERT_EQ(0, start_tsc(self->fd));
	after = read_tsc_sum(self->fd);
	ASSERT_LE(before, after);
}

TEST_F(vperfctr, control_with_bad_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_control(self->fd, (void *)1));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, control_after_unlink_fails_with_esrch)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, start_tsc(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

/*
 * Controls that are wrong in exactly one field, the TSC being on in all
 * of them.  The TSC-only driver has no PMCs, so any a-mode or i-mode
 * counter is more than it has.
 */
FIXTURE(bad_control)
{
	int fd;
};

FIXTURE_VARIANT(bad_control)
{
	struct vperfctr_control control;
};

FIXTURE_VARIANT_ADD(bad_control, flags_set)
{
	.control = { .cpu_control.tsc_on = 1, .flags = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved0_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved0 = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved1_0_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved1[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved1_1_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved1[1] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved0_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved0 = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved1_0_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved1[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved1_3_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved1[3] = 1ull << 63 },
};

FIXTURE_VARIANT_ADD(bad_control, one_amode_counter_on_tsc_only_driver)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nractrs = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, one_imode_counter_on_tsc_only_driver)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nrictrs = 1, .si_signo = SIGIO },
};

FIXTURE_VARIANT_ADD(bad_control, more_amode_counters_than_the_abi_has)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nractrs = PERFCTR_MAX_NRCTRS + 1 },
};

FIXTURE_VARIANT_ADD(bad_control, tsc_on_not_a_boolean)
{
	.control = { .cpu_control.tsc_on = 2 },
};

FIXTURE_VARIANT_ADD(bad_control, si_signo_negative)
{
	.control = { .cpu_control.tsc_on = 1, .si_signo = -1 },
};

FIXTURE_VARIANT_ADD(bad_control, si_signo_beyond_last_signal)
{
	.control = { .cpu_control.tsc_on = 1, .si_signo = 65 },
};

FIXTURE_VARIANT_ADD(bad_control, pmc_map_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.pmc_map[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, evntsel_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.evntsel[PERFCTR_MAX_NRCTRS - 1] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, ireset_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.ireset[0] = -1 },
};

FIXTURE_SETUP(bad_control)
{
	const char *why;

	self->fd = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(bad_control)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(bad_control, is_rejected_with_einval)
{
	struct vperfctr_control control = variant->control;

	ASSERT_EQ(-1, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(EINVAL, errno);
}

/* vperfctr_read() --------------------------------------------------- */

TEST_F(vperfctr, read_with_all_pointers_null_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, NULL));
}

TEST_F(vperfctr, read_returns_control_as_set)
{
	struct vperfctr_control set, got;

	start_tsc_control(&set);
	set.si_signo = SIGIO;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &set));

	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &got, NULL));
	ASSERT_EQ(1u, got.cpu_control.tsc_on);
	ASSERT_EQ(SIGIO, got.si_signo);
	ASSERT_EQ(0, memcmp(&set, &got, sizeof(set)));
}

TEST_F(vperfctr, read_children_sums_are_zero)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, start_tsc(self->fd));
	memset(&children, 0xff, sizeof(children));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(vperfctr, read_with_bad_sum_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, (void *)1, NULL, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, read_with_bad_control_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, (void *)1, NULL));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, read_with_bad_children_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, NULL, (void *)1));
	ASSERT_EQ(EFAULT, errno);
}

/* vperfctr_unlink() ------------------------------------------------- */

TEST_F(vperfctr, unlink_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

TEST_F(vperfctr, unlink_twice_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

TEST_F(vperfctr, unlink_leaves_thread_without_state)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(vperfctr, unlink_marks_page_detached)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	unmap_state(page);
}

TEST_F(vperfctr, read_after_unlink_returns_final_sum)
{
	struct perfctr_sum_ctrs sum;
	__u64 before;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	before = read_tsc_sum(self->fd);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_LE(before, sum.tsc);
}

TEST_F(vperfctr, unlinked_state_stops_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	before = read_tsc_sum(self->fd);
	ASSERT_NE(0ull, before);
	spin_ms(5);
	after = read_tsc_sum(self->fd);
	ASSERT_EQ(before, after);
}

TEST_F(vperfctr, open_with_creat_after_unlink_creates_new_state)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int fd;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, &control, NULL));
	ASSERT_EQ(0ull, sum.tsc);
	ASSERT_EQ(0u, control.cpu_control.tsc_on);
	ASSERT_NE(0ull, read_tsc_sum(self->fd));
	close(fd);
}

TEST_F(vperfctr, fdinfo_names_owner_thread)
{
	ASSERT_EQ(gettid(), fdinfo_value(self->fd, "vperfctr-owner"));
}

TEST_F(vperfctr, fdinfo_shows_detached_state_after_unlink)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-owner"));
	ASSERT_EQ(VPERFCTR_STATE_DETACHED,
		  fdinfo_value(self->fd, "vperfctr-flags"));
}

/* vperfctr_iresume() ------------------------------------------------ */

TEST_F(vperfctr, iresume_without_imode_counters_fails_with_einval)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(vperfctr, iresume_after_unlink_fails_with_esrch)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

/* File descriptors that are not vperfctr ones ------------------------ */

static int call_control(int fd)
{
	return start_tsc(fd);
}

static int call_unlink(int fd)
{
	return sys_vperfctr_unlink(fd);
}

static int call_read(int fd)
{
	struct perfctr_sum_ctrs sum;

	return sys_vperfctr_read(fd, &sum, NULL, NULL);
}

static int call_iresume(int fd)
{
	return sys_vperfctr_iresume(fd);
}

FIXTURE(fd_syscall)
{
	int fd;
};

FIXTURE_VARIANT(fd_syscall)
{
	int (*call)(int fd);
};

FIXTURE_VARIANT_ADD(fd_syscall, control)
{
	.call = call_control,
};

FIXTURE_VARIANT_ADD(fd_syscall, unlink)
{
	.call = call_unlink,
};

FIXTURE_VARIANT_ADD(fd_syscall, read)
{
	.call = call_read,
};

FIXTURE_VARIANT_ADD(fd_syscall, iresume)
{
	.call = call_iresume,
};

FIXTURE_SETUP(fd_syscall)
{
	const char *why;

	self->fd = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(fd_syscall)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(fd_syscall, fd_minus_one_fails_with_ebadf)
{
	ASSERT_EQ(-1, variant->call(-1));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(fd_syscall, closed_fd_fails_with_ebadf)
{
	int fd = sys_vperfctr_open(0, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(-1, variant->call(fd));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(fd_syscall, dev_null_fails_with_einval)
{
	self->fd = open("/dev/null", O_RDONLY);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(-1, variant->call(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(fd_syscall, pipe_fails_with_einval)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	self->fd = p[0];
	close(p[1]);
	ASSERT_EQ(-1, variant->call(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

/* mmap() and the state page ----------------------------------------- */

TEST_F(vperfctr, mmap_one_page_read_only_shared_succeeds)
{
	void *page = mmap(NULL, page_size(), PROT_READ, MAP_SHARED,
			  self->fd, 0);

	ASSERT_NE(MAP_FAILED, page) {
		TH_LOG("mmap: %s", strerror(errno));
	}
	munmap(page, page_size());
}

TEST_F(vperfctr, page_has_magic_and_abi_version)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
	ASSERT_EQ((__u32)PERFCTR_ABI_VERSION, READ_ONCE(page->abi_version));
	unmap_state(page);
}

TEST_F(vperfctr, page_seq_is_even_while_owner_reads)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0u, READ_ONCE(page->seq) & 1);
	unmap_state(page);
}

TEST_F(vperfctr, page_cstatus_follows_control)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0u, READ_ONCE(page->cpu_state.cstatus));
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON, READ_ONCE(page->cpu_state.cstatus));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0u, READ_ONCE(page->cpu_state.cstatus));
	unmap_state(page);
}

TEST_F(vperfctr, page_shows_oncpu_while_owner_counts)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_ONCPU));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DETACHED));
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_lies_between_syscall_reads)
{
	const struct vperfctr_state *page;
	__u64 before, fast, after;
	int i;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));

	for (i = 0; i < 100; i++) {
		before = read_tsc_sum(self->fd);
		fast = fast_read_tsc(page);
		after = read_tsc_sum(self->fd);
		ASSERT_LE(before, fast) {
			TH_LOG("iteration %d", i);
		}
		ASSERT_LE(fast, after) {
			TH_LOG("iteration %d", i);
		}
		if (i % 10 == 0)
			sched_yield();
	}
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_is_monotonic_across_context_switches)
{
	const struct vperfctr_state *page;
	__u64 prev, now;
	int i;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));

	prev = fast_read_tsc(page);
	for (i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			sched_yield();
		if (i % 500 == 0)
			sleep_ms(1);
		now = fast_read_tsc(page);
		ASSERT_LE(prev, now) {
			TH_LOG("iteration %d", i);
		}
		prev = now;
	}
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_unlinked_state_equals_syscall_read)
{
	const struct vperfctr_state *page;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(read_tsc_sum(self->fd), fast_read_tsc(page));
	unmap_state(page);
}

TEST_F(vperfctr, mmap_writable_shared_fails_with_eacces)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	ASSERT_EQ(EACCES, errno);
}

TEST_F(vperfctr, mmap_writable_private_fails_with_eacces)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->fd, 0));
	ASSERT_EQ(EACCES, errno);
}

TEST_F(vperfctr, mprotect_writable_fails_with_eacces)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(-1, mprotect((void *)page, page_size(),
			       PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	unmap_state(page);
}

TEST_F(vperfctr, mmap_two_pages_fails_with_einval)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, 2 * page_size(), PROT_READ,
				   MAP_SHARED, self->fd, 0));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(vperfctr, mmap_at_nonzero_offset_fails_with_einval)
{
	ASSERT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ,
				   MAP_SHARED, self->fd, page_size()));
	ASSERT_EQ(EINVAL, errno);
}

/* fork() -------------------------------------------------------------- */

TEST_F(vperfctr, forked_child_does_not_inherit_state)
{
	pid_t pid;

	ASSERT_EQ(0, start_tsc(self->fd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int fd = sys_vperfctr_open(0, 0);

		_exit(fd >= 0 ? CHILD_CALL_SUCCEEDED : errno);
	}
	ASSERT_EQ(ENOENT, reap(pid));
}

TEST_F(vperfctr, parent_keeps_counting_after_fork)
{
	__u64 before, after;
	pid_t pid;

	ASSERT_EQ(0, start_tsc(self->fd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, reap(pid));

	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

/* exit(): a child's state seen through the fd it passed to its parent. */

FIXTURE(exited_child)
{
	pid_t pid;
	int fd;
	const struct vperfctr_state *page;
};

/* Child exit statuses: which step failed. */
enum {
	EXITED_CHILD_OPEN_FAILED = 10,
	EXITED_CHILD_CONTROL_FAILED,
	EXITED_CHILD_SEND_FAILED,
};

static int exited_child_main(int sk)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return EXITED_CHILD_OPEN_FAILED;
	if (start_tsc(fd))
		return EXITED_CHILD_CONTROL_FAILED;
	if (send_fd(sk, fd))
		return EXITED_CHILD_SEND_FAILED;
	spin_ms(20);
	return 0;
}

FIXTURE_SETUP(exited_child)
{
	const char *why;
	int sk[2];

	self->pid = 0;
	self->fd = -1;
	self->page = NULL;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk));
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (self->pid == 0) {
		close(sk[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(exited_child_main(sk[1]));
	}
	close(sk[1]);
	self->fd = recv_fd(sk[0]);
	close(sk[0]);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("no fd from the child, its exit status: %d",
		       reap_child(&self->pid));
	}
	self->page = map_state(self->fd);
	ASSERT_NE(NULL, self->page);
}

FIXTURE_TEARDOWN(exited_child)
{
	unmap_state(self->page);
	if (self->fd >= 0)
		close(self->fd);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

TEST_F(exited_child, read_before_reap_fails_with_eperm)
{
	/* Running or a zombie, the child is still the owner. */
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, NULL, NULL));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(exited_child, state_is_dead_but_attached_while_zombie)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_EQ(CLD_EXITED, info.si_code);
	ASSERT_EQ(0, info.si_status);

	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DEAD));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_ONCPU));
}

TEST_F(exited_child, state_is_dead_and_detached_after_reap)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DEAD));
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_ONCPU));
}

TEST_F(exited_child, read_after_reap_returns_final_sum)
{
	struct perfctr_sum_ctrs first, second;

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &first, NULL, NULL));
	ASSERT_NE(0ull, first.tsc);
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &second, NULL, NULL));
	ASSERT_EQ(first.tsc, second.tsc);
	ASSERT_EQ(first.tsc, READ_ONCE(self->page->cpu_state.tsc_sum));
}

TEST_F(exited_child, control_after_reap_fails_with_esrch)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(-1, start_tsc(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

TEST_F(exited_child, unlink_after_reap_succeeds)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

/*
 * Remote access: a child stopped under ptrace by this process.  The
 * child blocks on a pipe; once released it spins for 20 ms and exits.
 */

FIXTURE(stopped_child)
{
	pid_t pid;
	int go;
};

FIXTURE_SETUP(stopped_child)
{
	const char *why;
	int go[2], status;
	char c;

	self->pid = 0;
	self->go = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);

	ASSERT_EQ(0, pipe(go));
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (self->pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		spin_ms(20);
		_exit(0);
	}
	close(go[0]);
	self->go = go[1];

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, self->pid, 0, 0)) {
		TH_LOG("PTRACE_SEIZE: %s", strerror(errno));
	}
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, self->pid, 0, 0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
}

FIXTURE_TEARDOWN(stopped_child)
{
	if (self->go >= 0)
		close(self->go);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

/* Detach from the child, let it run to its end and reap it. */
static int release_stopped_child(pid_t *pid, int go)
{
	if (ptrace(PTRACE_DETACH, *pid, 0, 0))
		return -1;
	if (write(go, "g", 1) != 1)
		return -1;
	return reap_child(pid);
}

TEST_F(stopped_child, open_with_creat_succeeds)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(child, 1): %s", strerror(errno));
	}
	ASSERT_TRUE(fd_is_vperfctr(fd));
	close(fd);
}

TEST_F(stopped_child, open_without_creat_fails_with_enoent)
{
	ASSERT_EQ(-1, sys_vperfctr_open(self->pid, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(stopped_child, control_succeeds)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd);
}

TEST_F(stopped_child, state_counts_child_and_is_readable_after_reap)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));
	ASSERT_EQ(0, release_stopped_child(&self->pid, self->go));

	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_NE(0ull, sum.tsc);
	close(fd);
}

TEST_F(stopped_child, control_after_ptrace_detach_fails_with_eperm)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, self->pid, 0, 0));

	/* The child runs again and is no longer ours to change. */
	ASSERT_EQ(-1, start_tsc(fd));
	ASSERT_EQ(EPERM, errno);
	close(fd);
}

TEST_HARNESS_MAIN
