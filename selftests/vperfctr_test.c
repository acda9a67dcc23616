// SPDX-License-Identifier: GPL-2.0
/*
 * ABI tests for the virtual per-process performance counters: the five
 * vperfctr system calls, the vperfctrfs file descriptor and its mmap()ed
 * state page, and the state's life across fork, exit, exec and ptrace.
 *
 * The driver under test may be the TSC-only one, so only the TSC and the
 * software counters (task-clock, context switches, CPU migrations, page
 * faults), which every machine has, are counted here; programmable
 * counters have tests of their own.  Some tests need root (to count
 * kernel mode, to become another user, to make a setuid-root program)
 * and some two CPUs; the test machine has both.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

#include "vperfctr_common.h"
#include "vperfctr_syscalls.h"

/*
 * The wrappers that TEST() and TEST_F() expand to here leave parameters
 * unused and keep locals across setjmp(); keep -Wextra quiet about both.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#include "kselftest_harness.h"

/*
 * A sleep long enough that the thread surely reaches schedule() before
 * its timer fires, even on a slow emulated CPU: each one is a context
 * switch.
 */
#define BLOCKING_SLEEP_US	10000

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
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

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
#elif defined(__aarch64__)
#define HAVE_USER_TSC 1

/* arm64's "TSC" is the generic timer's virtual count. */
static __u64 user_tsc(void)
{
	__u64 tsc;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r" (tsc) :: "memory");
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

/* A child's exit status when what it checked did not hold. */
#define CHILD_CHECK_FAILED	201

/* Run @fn in a forked child and reap it: what @fn returned, or -1. */
static int in_child(int (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	return reap(pid);
}

/* A child's body: 0 if it has counter state, else why vperfctr_open() failed. */
static int has_state(void *arg)
{
	int fd = sys_vperfctr_open(0, 0);

	return fd >= 0 ? 0 : errno;
}

/* A thread's body: what vperfctr_open(0, 0) gave it. */
struct open_result {
	int fd;
	int err;
};

static void *open_own_state(void *arg)
{
	struct open_result *r = arg;

	r->fd = sys_vperfctr_open(0, 0);
	r->err = r->fd < 0 ? errno : 0;
	return NULL;
}

/* Software counters, controls made of them, and what they count ------ */

#define SW_EVENT(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)

/* How many fresh pages a test touches: one user-mode minor fault each. */
#define FRESH_PAGES	256u

/* Append an a-mode counter: add all of them before any i-mode counter. */
static unsigned int add_amode(struct vperfctr_control *control, __u32 map,
			      __u64 evntsel)
{
	struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i = cpu->nractrs++;

	cpu->pmc_map[i] = map;
	cpu->evntsel[i] = evntsel;
	return i;
}

/* Append an i-mode counter that overflows after -@ireset events. */
static unsigned int add_imode(struct vperfctr_control *control, __u32 map,
			      __u64 evntsel, __s64 ireset)
{
	struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i = cpu->nractrs + cpu->nrictrs++;

	cpu->pmc_map[i] = map;
	cpu->evntsel[i] = evntsel;
	cpu->ireset[i] = ireset;
	return i;
}

/* The TSC and, as counter 0, the page faults of user mode. */
static void fault_control(struct vperfctr_control *control)
{
	start_tsc_control(control);
	add_amode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
}

static int start_faults(int fd)
{
	struct vperfctr_control control;

	fault_control(&control);
	return sys_vperfctr_control(fd, &control);
}

/* The signal of i-mode overflows here. */
#define OVF_SIGNAL	SIGUSR2

/* After how many faults overflow_control(OVF_FAULTS) overflows. */
#define OVF_FAULTS	10u

/*
 * fault_control() plus, as counter 1, an i-mode counter of user-mode page
 * faults that overflows after @faults faults, signalling OVF_SIGNAL.
 */
static void overflow_control(struct vperfctr_control *control, __s64 faults)
{
	fault_control(control);
	add_imode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR, -faults);
	control->si_signo = OVF_SIGNAL;
}

/* What the OVF_SIGNAL handler saw: how many signals, and the last one. */
static int ovf_signals;
static int ovf_code;
static unsigned int ovf_mask;
static pid_t ovf_pid;

static void ovf_handler(int sig, siginfo_t *info, void *ucontext)
{
	WRITE_ONCE(ovf_code, info->si_code);
	WRITE_ONCE(ovf_mask, (unsigned int)info->si_pmc_ovf_mask);
	WRITE_ONCE(ovf_pid, info->si_pid);
	__atomic_fetch_add(&ovf_signals, 1, __ATOMIC_RELAXED);
}

static int catch_overflow_signal(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ovf_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	WRITE_ONCE(ovf_signals, 0);
	WRITE_ONCE(ovf_code, 0);
	WRITE_ONCE(ovf_mask, 0);
	WRITE_ONCE(ovf_pid, -1);
	return sigaction(OVF_SIGNAL, &sa, NULL);
}

/*
 * Write one byte to each of @n fresh anonymous pages: @n minor faults in
 * user mode.  Without transparent huge pages, so that each page faults.
 */
static int touch_fresh_pages(unsigned int n)
{
	size_t size = page_size();
	unsigned int i;
	char *p;

	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, n * size, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		WRITE_ONCE(p[i * size], 1);
	return munmap(p, n * size);
}

/*
 * Have the kernel write to @n fresh anonymous pages, by read() from a
 * pipe into each: @n minor faults in kernel mode.
 */
static int kernel_touch_fresh_pages(unsigned int n)
{
	size_t size = page_size();
	int pipefd[2], err = 0;
	unsigned int i;
	char *src, *p;

	if (pipe(pipefd))
		return -1;
	src = mmap(NULL, (n + 1) * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED) {
		err = -1;
		goto out;
	}
	madvise(src, (n + 1) * size, MADV_NOHUGEPAGE);
	memset(src, 'k', size);
	p = src + size;
	for (i = 0; i < n && !err; i++)
		if (write(pipefd[1], src, size) != (ssize_t)size ||
		    read(pipefd[0], p + i * size, size) != (ssize_t)size)
			err = -1;
	munmap(src, (n + 1) * size);
out:
	close(pipefd[0]);
	close(pipefd[1]);
	return err;
}

/* Run on the CPU for @ms milliseconds of wall-clock time. */
static void spin_wall_ms(unsigned int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < ms * 1000000ull);
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static bool may_run_on_cpus_0_and_1(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

/*
 * Read @fd's sums and children sums, waiting up to a second for counter
 * @i of the children to reach @min: a thread that exits is released, and
 * its sums handed on, a little after pthread_join() has returned.
 */
static int await_children_sum(int fd, unsigned int i, __u64 min,
			      struct perfctr_sum_ctrs *sum,
			      struct perfctr_sum_ctrs *children)
{
	int ms;

	for (ms = 0; ; ms++) {
		if (sys_vperfctr_read(fd, sum, NULL, children))
			return -1;
		if (children->pmc[i] >= min || ms == 1000)
			return 0;
		sleep_ms(1);
	}
}

/* TSC ticks to ns as the kernel converts them, without 64-bit overflow. */
static __u64 tsc_to_ns(__u64 delta, __u32 mult, __u32 shift)
{
	__u64 low = delta & ((1ull << shift) - 1);

	return (delta >> shift) * mult + ((low * mult) >> shift);
}

/*
 * The fast read of software counters 0..@n-1 from the state page: an event
 * counter's sum is always current; task-clock adds the time since the
 * owner was resumed while it runs.  Retried while 'seq' is odd or changes.
 */
static void fast_read_sw(const struct vperfctr_state *page, unsigned int n,
			 __u64 *sums)
{
	__u32 seq, flags, cstatus, mult, shift, map[PERFCTR_MAX_NRCTRS];
	__u64 start[PERFCTR_MAX_NRCTRS], now;
	unsigned int i;

	do {
		seq = __atomic_load_n(&page->seq, __ATOMIC_ACQUIRE);
		flags = READ_ONCE(page->flags);
		cstatus = READ_ONCE(page->cpu_state.cstatus);
		mult = READ_ONCE(page->time_mult);
		shift = READ_ONCE(page->time_shift);
		for (i = 0; i < n; i++) {
			map[i] = READ_ONCE(page->cpu_state.pmc[i].map);
			start[i] = READ_ONCE(page->cpu_state.pmc[i].start);
			sums[i] = READ_ONCE(page->cpu_state.pmc[i].sum);
		}
		now = user_tsc();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || READ_ONCE(page->seq) != seq);

	if (!(flags & VPERFCTR_STATE_ONCPU))
		return;
	for (i = 0; i < n && i < perfctr_cstatus_nrctrs(cstatus); i++)
		if (map[i] == SW_EVENT(TASK_CLOCK))
			sums[i] += tsc_to_ns(now - start[i], mult, shift);
}

/* The text after "@key:" in /proc/self/fdinfo/@fd, or "" if none. */
static const char *fdinfo_text(int fd, const char *key, char *buf, size_t size)
{
	char path[64], line[256];
	size_t len = strlen(key);
	char *text;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			text = line + len + 1;
			text += strspn(text, " \t");
			text[strcspn(text, "\n")] = '\0';
			snprintf(buf, size, "%s", text);
			break;
		}
	fclose(f);
	return buf;
}

/* Privilege ----------------------------------------------------------- */

/* The user and group a root-run test drops to: nobody. */
#define NOBODY	65534

/*
 * Become an unprivileged user: as root, user and group nobody without
 * supplementary groups, which also clears every capability; anyone else
 * is unprivileged already.
 */
static int become_unprivileged(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return 0;
}

/*
 * Whether kernel.perf_event_paranoid lets anyone count kernel mode: only
 * when it exists (CONFIG_PERF_EVENTS) and is below 2.
 */
static bool paranoid_lets_anyone_count_kernel(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 2;

	if (!f)
		return false;
	if (fscanf(f, "%d", &level) != 1)
		level = 2;
	fclose(f);
	return level < 2;
}

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

TEST_F(open, with_no_free_fd_fails_with_emfile)
{
	struct rlimit rl;
	int lowest;

	/* Every fd below the lowest free one is in use: allow no more. */
	lowest = dup(STDERR_FILENO);
	ASSERT_GE(lowest, 0);
	close(lowest);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = lowest;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EMFILE, errno);
}

/* A call that fails changes nothing: no state, no descriptor. */
TEST_F(open, with_no_free_fd_leaves_no_state_and_no_fd)
{
	struct rlimit rl, saved;
	int lowest, fd;

	lowest = dup(STDERR_FILENO);
	ASSERT_GE(lowest, 0);
	close(lowest);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
	rl = saved;
	rl.rlim_cur = lowest;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EMFILE, errno);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
	fd = dup(STDERR_FILENO);
	ASSERT_EQ(lowest, fd);
	close(fd);
}

/*
 * A tracee at its PTRACE_EVENT_EXIT stop is exiting, though the kernel
 * marks it so only once it leaves that stop: no new state for it.
 */
TEST_F(open, tracee_at_its_exit_stop_fails_with_esrch)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(CHILD_CHECK_FAILED);
		raise(SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(long)PTRACE_O_TRACEEXIT));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP | (PTRACE_EVENT_EXIT << 8), status >> 8);

	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, sys_vperfctr_open(pid, 0));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(0, reap(pid));
}

TEST_F(open, child_of_thread_without_state_has_no_state)
{
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(open, thread_of_thread_without_state_has_no_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-1, r.fd);
	ASSERT_EQ(ENOENT, r.err);
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
 * hardware counter (a pmc_map[] entry without PERFCTR_MAP_SOFTWARE) is
 * more than it has.  Fault counters count user mode only here: kernel
 * mode may need privilege, which is another error.
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

FIXTURE_VARIANT_ADD(bad_control, software_counter_plus_hardware_counter_on_tsc_only_driver)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 2,
			.pmc_map = { SW_EVENT(PAGE_FAULTS), 0 },
			.evntsel = { PERFCTR_SW_USR, 0 },
		},
	},
};

/* Software counters: the event, its evntsel and its ireset. */

FIXTURE_VARIANT_ADD(bad_control, software_event_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_SOFTWARE,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, software_event_beyond_sw_max)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_SOFTWARE | (PERFCTR_SW_MAX + 1),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, software_event_all_ones)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = 0xffffffffu,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, page_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, minor_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(MINOR_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, major_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(MAJOR_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, page_faults_with_evntsel_bit_other_than_usr_os)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR | 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, task_clock_with_nonzero_evntsel)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(TASK_CLOCK),
			.evntsel[0] = 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, context_switches_with_evntsel_usr)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(CONTEXT_SWITCHES),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, cpu_migrations_with_nonzero_evntsel)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(CPU_MIGRATIONS),
			.evntsel[0] = 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, amode_software_counter_with_negative_ireset)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, amode_software_counter_with_positive_ireset)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(TASK_CLOCK),
			.ireset[0] = 10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_ireset_0)
{
	.control = {
		.si_signo = OVF_SIGNAL,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_positive_ireset)
{
	.control = {
		.si_signo = OVF_SIGNAL,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(CONTEXT_SWITCHES),
			.ireset[0] = 10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_without_si_signo)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_si_signo_beyond_last_signal)
{
	.control = {
		.si_signo = 65,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
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

/* Counter @i's line in fdinfo: its map, evntsel and mode; -1 if none. */
static int fdinfo_counter(int fd, unsigned int i, __u32 *map, __u64 *evntsel,
			  char *mode)
{
	char key[32], text[128];
	const char *p;

	snprintf(key, sizeof(key), "vperfctr-counter%u", i);
	fdinfo_text(fd, key, text, sizeof(text));
	p = strstr(text, "map=");
	if (!p)
		return -1;
	*map = strtoul(p + strlen("map="), NULL, 0);
	p = strstr(text, "evntsel=");
	if (!p)
		return -1;
	*evntsel = strtoull(p + strlen("evntsel="), NULL, 0);
	p = strstr(text, "mode=");
	if (!p)
		return -1;
	*mode = p[strlen("mode=")];
	return 0;
}

/* Page faults of user mode and task-clock in a-mode, page faults in i-mode. */
static void three_counter_control(struct vperfctr_control *control)
{
	start_tsc_control(control);
	add_amode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(control, SW_EVENT(TASK_CLOCK), 0);
	add_imode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR, -(1ll << 40));
	control->si_signo = OVF_SIGNAL;
}

TEST_F(vperfctr, fdinfo_state_is_stopped_before_control)
{
	char text[64];

	ASSERT_STREQ("stopped",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_running_while_counting)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_STREQ("running",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_stopped_after_counters_stopped)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_STREQ("stopped",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_state_is_detached_after_unlink)
{
	char text[64];

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_STREQ("detached",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_shows_tsc_on_while_tsc_counts)
{
	char text[64];

	ASSERT_STREQ("off",
		     fdinfo_text(self->fd, "vperfctr-tsc", text, sizeof(text)));
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_STREQ("on",
		     fdinfo_text(self->fd, "vperfctr-tsc", text, sizeof(text)));
}

TEST_F(vperfctr, fdinfo_shows_cstatus_of_the_page)
{
	struct vperfctr_control control;

	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ((long)(PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 2),
		  fdinfo_value(self->fd, "vperfctr-cstatus"));
}

TEST_F(vperfctr, fdinfo_counts_the_counters)
{
	struct vperfctr_control control;

	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-counters"));
	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(3, fdinfo_value(self->fd, "vperfctr-counters"));
}

TEST_F(vperfctr, fdinfo_describes_each_counter)
{
	struct vperfctr_control control;
	unsigned int i;
	__u64 evntsel;
	__u32 map;
	char mode;

	three_counter_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, fdinfo_counter(self->fd, i, &map, &evntsel, &mode)) {
			TH_LOG("no vperfctr-counter%u line", i);
		}
		ASSERT_EQ(control.cpu_control.pmc_map[i], map);
		ASSERT_EQ(control.cpu_control.evntsel[i], evntsel);
		ASSERT_EQ(i < 2 ? 'a' : 'i', mode);
	}
	ASSERT_EQ(-1, fdinfo_counter(self->fd, 3, &map, &evntsel, &mode));
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

/* Software counters --------------------------------------------------- */

/* Each software event alone, as counter 0, fault events in user mode. */
FIXTURE(sw_event)
{
	int fd;
	struct vperfctr_control control;
};

FIXTURE_VARIANT(sw_event)
{
	__u32 event;
	__u64 evntsel;
};

FIXTURE_VARIANT_ADD(sw_event, task_clock)
{
	.event = PERFCTR_SW_TASK_CLOCK,
};

FIXTURE_VARIANT_ADD(sw_event, context_switches)
{
	.event = PERFCTR_SW_CONTEXT_SWITCHES,
};

FIXTURE_VARIANT_ADD(sw_event, cpu_migrations)
{
	.event = PERFCTR_SW_CPU_MIGRATIONS,
};

FIXTURE_VARIANT_ADD(sw_event, page_faults)
{
	.event = PERFCTR_SW_PAGE_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_VARIANT_ADD(sw_event, minor_faults)
{
	.event = PERFCTR_SW_MINOR_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_VARIANT_ADD(sw_event, major_faults)
{
	.event = PERFCTR_SW_MAJOR_FAULTS,
	.evntsel = PERFCTR_SW_USR,
};

FIXTURE_SETUP(sw_event)
{
	const char *why;

	self->fd = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	start_tsc_control(&self->control);
	add_amode(&self->control, PERFCTR_MAP_SOFTWARE | variant->event,
		  variant->evntsel);
}

FIXTURE_TEARDOWN(sw_event)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(sw_event, amode_control_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, amode_control_without_tsc_succeeds)
{
	self->control.cpu_control.tsc_on = 0;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, imode_control_succeeds)
{
	struct vperfctr_control control;

	/* Never overflows during the test: 2^40 events or ns. */
	start_tsc_control(&control);
	add_imode(&control, PERFCTR_MAP_SOFTWARE | variant->event,
		  variant->evntsel, -(1ll << 40));
	control.si_signo = OVF_SIGNAL;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

TEST_F(sw_event, read_returns_control_as_set)
{
	struct vperfctr_control got;

	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, &got, NULL));
	ASSERT_EQ(0, memcmp(&self->control, &got, sizeof(got)));
}

TEST_F(sw_event, page_shows_pmc_map_entry_and_width_64)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(self->control.cpu_control.pmc_map[0],
		  READ_ONCE(page->cpu_state.pmc[0].map));
	ASSERT_EQ(64u, READ_ONCE(page->cpu_state.pmc[0].width));
	unmap_state(page);
}

TEST_F(sw_event, page_cstatus_counts_the_counter)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON | 1,
		  READ_ONCE(page->cpu_state.cstatus));
	unmap_state(page);
}

/* What the software counters count. */

TEST_F(vperfctr, task_clock_grows_with_wall_time_while_spinning)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	struct timespec t0, t1;
	__u64 wall, counted;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	spin_wall_ms(200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));

	wall = elapsed_ns(&t0, &t1);
	counted = after.pmc[0] - before.pmc[0];
	ASSERT_GE(counted, wall / 2) {
		TH_LOG("%llu ns of task-clock in %llu ns of spinning",
		       (unsigned long long)counted, (unsigned long long)wall);
	}
	ASSERT_LE(counted, wall + wall / 10 + 2000000) {
		TH_LOG("%llu ns of task-clock in %llu ns of spinning",
		       (unsigned long long)counted, (unsigned long long)wall);
	}
}

TEST_F(vperfctr, task_clock_stays_still_while_sleeping)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	__u64 counted;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	sleep_ms(300);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));

	counted = after.pmc[0] - before.pmc[0];
	ASSERT_LT(counted, 20000000ull) {
		TH_LOG("%llu ns of task-clock in 300 ms of sleep",
		       (unsigned long long)counted);
	}
}

TEST_F(vperfctr, page_faults_count_each_fresh_page_touched)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, minor_faults_count_each_fresh_page_touched)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, major_faults_do_not_count_fresh_anonymous_pages)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, page_faults_equal_minor_plus_major_faults)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], sum.pmc[1] + sum.pmc[2]) {
		TH_LOG("page faults %llu, minor %llu, major %llu",
		       (unsigned long long)sum.pmc[0],
		       (unsigned long long)sum.pmc[1],
		       (unsigned long long)sum.pmc[2]);
	}
}

TEST_F(vperfctr, two_counters_of_one_event_both_count)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], sum.pmc[1]);
}

TEST_F(vperfctr, usr_page_faults_do_not_count_kernel_writes)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, kernel_touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, os_page_faults_count_kernel_writes_to_fresh_pages)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	if (geteuid() != 0)
		SKIP(return, "counting kernel mode needs root here");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, kernel_touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, os_page_faults_do_not_count_user_writes)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;

	if (geteuid() != 0)
		SKIP(return, "counting kernel mode needs root here");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, context_switches_count_blocking_sleeps)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	int i;

	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	for (i = 0; i < 20; i++)
		usleep(BLOCKING_SLEEP_US);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], 20ull);
}

TEST_F(vperfctr, cpu_migrations_count_moves_between_cpus)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int i, cpu, now;
	__u64 moves = 0;

	if (!may_run_on_cpus_0_and_1())
		SKIP(return, "needs CPUs 0 and 1");
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	cpu = sched_getcpu();
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, pin_to_cpu(i & 1));
		now = sched_getcpu();
		ASSERT_EQ(i & 1, now);
		if (now != cpu)
			moves++;
		cpu = now;
	}
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(moves, 9ull);
	ASSERT_GE(sum.pmc[0], moves);
}

TEST_F(vperfctr, cpu_migrations_stay_0_on_one_cpu)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int i;

	ASSERT_EQ(0, pin_to_cpu(sched_getcpu()));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 20; i++)
		usleep(1000);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_EQ(0ull, sum.pmc[0]);
}

TEST_F(vperfctr, control_resets_software_sums)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_LT(sum.pmc[0], FRESH_PAGES);
}

TEST_F(vperfctr, control_with_preserve_bit_keeps_software_sum)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	fault_control(&control);
	control.preserve = 1;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
}

/* Fast reads of software counters from the state page. */

TEST_F(vperfctr, fast_read_of_fault_counters_equals_syscall_read)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	const struct vperfctr_state *page;
	__u64 fast[3];
	int i, j;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	/* Fault in the page and the stack now, not while counting. */
	fast_read_sw(page, 3, fast);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MINOR_FAULTS), PERFCTR_SW_USR);
	add_amode(&control, SW_EVENT(MAJOR_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	for (i = 1; i <= 20; i++) {
		ASSERT_EQ(0, touch_fresh_pages(i));
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
		fast_read_sw(page, 3, fast);
		for (j = 0; j < 3; j++)
			ASSERT_EQ(sum.pmc[j], fast[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
	}
	ASSERT_GE(sum.pmc[0], 20ull * 21 / 2);
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_switch_counters_lies_between_syscall_reads)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	const struct vperfctr_state *page;
	__u64 fast[2];
	int i, j;

	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	add_amode(&control, SW_EVENT(CPU_MIGRATIONS), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	for (i = 0; i < 20; i++) {
		usleep(BLOCKING_SLEEP_US);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
		fast_read_sw(page, 2, fast);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
		for (j = 0; j < 2; j++) {
			ASSERT_LE(before.pmc[j], fast[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
			ASSERT_LE(fast[j], after.pmc[j]) {
				TH_LOG("iteration %d, counter %d", i, j);
			}
		}
	}
	ASSERT_GE(after.pmc[0], 20ull);
	unmap_state(page);
}

TEST_F(vperfctr, fast_read_of_task_clock_lies_between_syscall_reads)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs before, after;
	const struct vperfctr_state *page;
	__u64 fast;
	int i;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));

	/* The fast read also counts the 1 ms spun since the first read. */
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
		spin_ms(1);
		fast_read_sw(page, 1, &fast);
		ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
		ASSERT_LE(before.pmc[0] + 500000, fast) {
			TH_LOG("iteration %d: %llu ns, then %llu ns", i,
			       (unsigned long long)before.pmc[0],
			       (unsigned long long)fast);
		}
		ASSERT_LE(fast, after.pmc[0]) {
			TH_LOG("iteration %d", i);
		}
		if (i % 10 == 0)
			sched_yield();
	}
	unmap_state(page);
}

/* A thread that keeps yielding the CPU it is pinned to until told to stop. */
struct yielder {
	int cpu;
	int stop;
};

static void *yielder_main(void *arg)
{
	struct yielder *y = arg;

	if (pin_to_cpu(y->cpu))
		return NULL;
	while (!__atomic_load_n(&y->stop, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

TEST_F(vperfctr, fast_read_never_goes_back_while_sharing_a_cpu)
{
	struct vperfctr_control control;
	const struct vperfctr_state *page;
	struct yielder y = { .cpu = 0 };
	struct timespec start, now;
	__u64 prev[2], cur[2];
	pthread_t thread;
	int i = 0;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	page = map_state(self->fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(0, pin_to_cpu(0));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	add_amode(&control, SW_EVENT(CONTEXT_SWITCHES), 0);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, pthread_create(&thread, NULL, yielder_main, &y));

	fast_read_sw(page, 2, prev);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (++i % 100 == 0)
			sched_yield();
		fast_read_sw(page, 2, cur);
		ASSERT_LE(prev[0], cur[0]) {
			TH_LOG("task-clock went back at read %d", i);
		}
		ASSERT_LE(prev[1], cur[1]) {
			TH_LOG("context switches went back at read %d", i);
		}
		memcpy(prev, cur, sizeof(prev));
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < 200000000ull);

	__atomic_store_n(&y.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	/* The reads did overlap context switches. */
	ASSERT_NE(0ull, cur[1]);
	unmap_state(page);
}

/* A thread that counts the TSC and task-clock while it spins and yields. */
struct monitored {
	int cpu;
	int fd;
	int ready;
	int stop;
	const struct vperfctr_state *page;
};

static void *monitored_main(void *arg)
{
	struct monitored *m = arg;
	struct vperfctr_control control;

	if (pin_to_cpu(m->cpu))
		goto out;
	m->fd = sys_vperfctr_open(0, 1);
	if (m->fd < 0)
		goto out;
	start_tsc_control(&control);
	add_amode(&control, SW_EVENT(TASK_CLOCK), 0);
	m->page = map_state(m->fd);
	if (!m->page || sys_vperfctr_control(m->fd, &control))
		goto out;
	__atomic_store_n(&m->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
out:
	__atomic_store_n(&m->ready, -1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A sum a monitor has seen never shrinks, however the owner's suspends
 * interleave with the reads: a million reads from another CPU while the
 * owner switches with a yielding thread on its own.
 */
TEST_F(vperfctr, monitor_fast_read_never_goes_back)
{
	struct monitored m = { .cpu = 0, .fd = -1 };
	struct yielder y = { .cpu = 0 };
	struct page_snap prev, cur;
	pthread_t owner, yielder;
	unsigned long i, snapshots = 1000000;

	if (!HAVE_USER_TSC)
		SKIP(return, "no user-space TSC read on this architecture");
	ASSERT_TRUE(may_run_on_cpus_0_and_1());
	ASSERT_EQ(0, pin_to_cpu(1));
	ASSERT_EQ(0, pthread_create(&owner, NULL, monitored_main, &m));
	ASSERT_EQ(0, pthread_create(&yielder, NULL, yielder_main, &y));
	while (!__atomic_load_n(&m.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	ASSERT_EQ(1, m.ready);

	/* page_read() reads the clock strictly between its reads of seq. */
	while (!page_read(m.page, &prev, 100))
		;
	for (i = 0; i < snapshots; i++) {
		while (!page_read(m.page, &cur, 100))
			;
		if (cur.tsc < prev.tsc || cur.pmc[0] < prev.pmc[0])
			break;
		prev = cur;
	}
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&y.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(owner, NULL));
	ASSERT_EQ(0, pthread_join(yielder, NULL));
	EXPECT_EQ(snapshots, i) {
		TH_LOG("snapshot %lu: TSC %llu after %llu, task-clock %llu after %llu",
		       i, (unsigned long long)cur.tsc,
		       (unsigned long long)prev.tsc,
		       (unsigned long long)cur.pmc[0],
		       (unsigned long long)prev.pmc[0]);
	}
	/* The owner did switch, and count, while it was read. */
	EXPECT_LT(0ull, prev.pmc[0]);
	unmap_state(m.page);
	close(m.fd);
}

/* Interrupt-mode software counters ----------------------------------- */

/*
 * This thread counts its user-mode page faults in a-mode (counter 0) and
 * in i-mode (counter 1), which overflows after OVF_FAULTS faults and
 * signals OVF_SIGNAL, caught by ovf_handler().
 */
FIXTURE(overflow)
{
	int fd;
	const struct vperfctr_state *page;
};

FIXTURE_SETUP(overflow)
{
	struct vperfctr_control control;
	const char *why;

	self->fd = -1;
	self->page = NULL;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, catch_overflow_signal());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	self->page = map_state(self->fd);
	ASSERT_NE(NULL, self->page);
	/*
	 * The tests count their own page faults, and a test process faults
	 * in the text of code it has not run yet: a call's error path too,
	 * which the C library may keep out of line (arm64 glibc does).  Take
	 * that fault now, before counting, with a call that surely fails.
	 */
	sys_vperfctr_iresume(-1);
	overflow_control(&control, OVF_FAULTS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(overflow)
{
	unmap_state(self->page);
	if (self->fd >= 0)
		close(self->fd);
}

/* Enough faults for one overflow, and more. */
static int overflow_now(void)
{
	return touch_fresh_pages(5 * OVF_FAULTS);
}

TEST_F(overflow, fault_overflow_signals_once_with_si_pmc_ovf)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
}

TEST_F(overflow, overflow_mask_has_the_bit_of_the_imode_counter)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, overflow_signal_has_no_sender_pid)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(0, READ_ONCE(ovf_pid));
}

TEST_F(overflow, overflow_sets_overflow_flag)
{
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(0, overflow_now());
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflow, overflow_suspends_the_amode_counter)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(before.pmc[0], after.pmc[0]);
}

TEST_F(overflow, overflow_keeps_only_the_tsc_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON,
		  READ_ONCE(self->page->cpu_state.cstatus));
	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

TEST_F(overflow, amode_sum_counts_the_faults_up_to_the_overflow)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], OVF_FAULTS);
}

TEST_F(overflow, iresume_when_not_in_overflow_fails_with_einval)
{
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(overflow, iresume_after_overflow_succeeds)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd)) {
		TH_LOG("vperfctr_iresume: %s", strerror(errno));
	}
}

TEST_F(overflow, iresume_twice_fails_with_einval)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(overflow, iresume_clears_overflow_flag)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflow, iresume_restores_cstatus)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(PERFCTR_CSTATUS_TSC_ON | (1 << 16) | 1,
		  READ_ONCE(self->page->cpu_state.cstatus));
}

TEST_F(overflow, iresume_resumes_the_amode_counter)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_GE(after.pmc[0] - before.pmc[0], OVF_FAULTS);
}

TEST_F(overflow, iresume_rearms_the_imode_counter)
{
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(0, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(2, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, fdinfo_state_is_overflow)
{
	char text[64];

	ASSERT_EQ(0, overflow_now());
	ASSERT_STREQ("overflow",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(overflow, control_ends_the_overflow)
{
	struct vperfctr_control control;

	ASSERT_EQ(0, overflow_now());
	overflow_control(&control, OVF_FAULTS);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(0, overflow_now());
	ASSERT_EQ(2, READ_ONCE(ovf_signals));
}

/* Spin until an overflow signal arrives, for at most 2 s: whether one did. */
static bool spin_until_signalled(void)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (READ_ONCE(ovf_signals))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < 2000000000ull);
	return READ_ONCE(ovf_signals) != 0;
}

/* Task-clock in a-mode (counter 0) and in i-mode (counter 1), 20 ms. */
static void task_clock_overflow_control(struct vperfctr_control *control)
{
	memset(control, 0, sizeof(*control));
	add_amode(control, SW_EVENT(TASK_CLOCK), 0);
	add_imode(control, SW_EVENT(TASK_CLOCK), 0, -20000000);
	control->si_signo = OVF_SIGNAL;
}

TEST_F(overflow, task_clock_overflow_signals_si_pmc_ovf_while_spinning)
{
	struct vperfctr_control control;

	task_clock_overflow_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_TRUE(spin_until_signalled());
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 1, READ_ONCE(ovf_mask));
}

TEST_F(overflow, task_clock_overflow_comes_after_ireset_ns)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	task_clock_overflow_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_TRUE(spin_until_signalled());
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	/* 10% for the hrtimer's clock against the TSC's. */
	ASSERT_GE(sum.pmc[0], 18000000ull);
}

/*
 * An i-mode task-clock counter restarted by its signal handler, period
 * after period.  The handler notes the counter's sum at each overflow,
 * while the counters are stopped, and restarts them unless told to stop.
 */
#define ITIMER_PERIOD_NS	1000000ll
#define ITIMER_PERIODS		1000
#define ITIMER_MAX_SIGNALS	(2 * ITIMER_PERIODS)

static struct {
	int fd;
	const struct vperfctr_state *page;
	int signals;
	int stop;
	int resumed;			/* the handler's vperfctr_iresume()s: 0 */
	int resume_einval;		/* and those that found it done: EINVAL */
	int resume_failed;		/* and any other result */
	__u64 sum[ITIMER_MAX_SIGNALS];
} itimer;

static __u64 page_sum(const struct vperfctr_state *page, unsigned int i)
{
	__u32 seq;
	__u64 sum;

	do {
		seq = __atomic_load_n(&page->seq, __ATOMIC_ACQUIRE);
		sum = READ_ONCE(page->cpu_state.pmc[i].sum);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || READ_ONCE(page->seq) != seq);
	return sum;
}

static void itimer_handler(int sig, siginfo_t *info, void *ucontext)
{
	int n = READ_ONCE(itimer.signals);
	int saved_errno = errno;

	if (n < ITIMER_MAX_SIGNALS)
		itimer.sum[n] = page_sum(itimer.page, 0);
	WRITE_ONCE(itimer.signals, n + 1);
	if (!READ_ONCE(itimer.stop)) {
		if (!sys_vperfctr_iresume(itimer.fd))
			itimer.resumed++;
		else if (errno == EINVAL)
			itimer.resume_einval++;
		else
			itimer.resume_failed++;
	}
	errno = saved_errno;
}

static int itimer_start(void)
{
	struct vperfctr_control control;
	struct sigaction sa;

	memset(&itimer, 0, sizeof(itimer));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = itimer_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(OVF_SIGNAL, &sa, NULL))
		return -1;
	itimer.fd = sys_vperfctr_open(0, 1);
	if (itimer.fd < 0)
		return -1;
	itimer.page = map_state(itimer.fd);
	if (!itimer.page)
		return -1;
	memset(&control, 0, sizeof(control));
	add_imode(&control, SW_EVENT(TASK_CLOCK), 0, -ITIMER_PERIOD_NS);
	control.si_signo = OVF_SIGNAL;
	return sys_vperfctr_control(itimer.fd, &control);
}

/*
 * Spin, with @iresume_while_running calling vperfctr_iresume() between
 * slices, until ITIMER_PERIODS signals came; then let one more overflow
 * stop the counters for good.  How many iresume()s of the spinning loop
 * restarted the counters; -1 if the signals stopped coming.
 */
static int itimer_run(bool iresume_while_running)
{
	int target = ITIMER_PERIODS, loop_resumed = 0, last = 0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int n = READ_ONCE(itimer.signals);

		if (n >= target) {
			if (READ_ONCE(itimer.stop))
				return loop_resumed;
			WRITE_ONCE(itimer.stop, 1);
			target = n + 1;
		}
		/* At most 2 s of wall time without a signal. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (n != last) {
			last = n;
			start = now;
		} else if (elapsed_ns(&start, &now) > 2000000000ull) {
			return -1;
		}
		spin_wall_ms(0);
		if (iresume_while_running && !READ_ONCE(itimer.stop)) {
			if (!sys_vperfctr_iresume(itimer.fd))
				loop_resumed++;
			else if (errno != EINVAL)
				itimer.resume_failed++;
		}
	}
}

/*
 * K signals for K periods: each overflow came after a whole period of
 * task-clock, none was lost (the last one came too), and on the whole no
 * period went by without one.
 */
static void itimer_check(struct __test_metadata *_metadata, int loop_resumed)
{
	int i, n = READ_ONCE(itimer.signals);
	__u64 final;

	ASSERT_LE(0, loop_resumed) {
		TH_LOG("the signals stopped after %d of them", n);
	}
	ASSERT_LE(ITIMER_PERIODS + 1, n);
	ASSERT_GE(ITIMER_MAX_SIGNALS, n);
	ASSERT_EQ(0, itimer.resume_failed);
	/* Every overflow but the last was restarted once, by someone. */
	ASSERT_EQ(n - 1, itimer.resumed + loop_resumed);
	ASSERT_TRUE(page_flag(itimer.page, VPERFCTR_STATE_OVERFLOW));
	final = page_sum(itimer.page, 0);
	ASSERT_EQ(final, itimer.sum[n - 1]);
	ASSERT_LE((__u64)n * ITIMER_PERIOD_NS, final);
	ASSERT_GT(2 * (__u64)n * ITIMER_PERIOD_NS, final);
	if (loop_resumed)
		return;
	/* Restarted by the handler only: each sum one period on at least. */
	for (i = 1; i < n; i++)
		ASSERT_LE(itimer.sum[i - 1] + ITIMER_PERIOD_NS, itimer.sum[i]) {
			TH_LOG("overflow %d came %llu ns after the one before", i,
			       (unsigned long long)(itimer.sum[i] -
						    itimer.sum[i - 1]));
		}
}

TEST(task_clock_imode_signals_every_period_with_iresume_from_handler)
{
	int loop_resumed;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, itimer_start());
	loop_resumed = itimer_run(false);
	ASSERT_EQ(0, itimer.resume_einval);
	itimer_check(_metadata, loop_resumed);
}

/*
 * vperfctr_iresume() while the counters run finds nothing to restart:
 * EINVAL, and the overflow still to come is neither lost nor left
 * without its timer.
 */
TEST(task_clock_imode_signals_every_period_with_iresume_while_running)
{
	int loop_resumed;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, itimer_start());
	loop_resumed = itimer_run(true);
	itimer_check(_metadata, loop_resumed);
}

TEST_F(overflow, iresume_while_running_changes_nothing)
{
	struct perfctr_sum_ctrs before, after;
	__u32 cstatus = READ_ONCE(self->page->cpu_state.cstatus);

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->fd));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(cstatus, READ_ONCE(self->page->cpu_state.cstatus));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_OVERFLOW));
	ASSERT_EQ(before.pmc[0], after.pmc[0]);
	ASSERT_EQ(0, READ_ONCE(ovf_signals));
}

TEST_F(overflow, context_switch_overflow_signals_si_pmc_ovf)
{
	struct vperfctr_control control;
	int i;

	memset(&control, 0, sizeof(control));
	add_imode(&control, SW_EVENT(CONTEXT_SWITCHES), 0, -5);
	control.si_signo = OVF_SIGNAL;
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	for (i = 0; i < 100 && !READ_ONCE(ovf_signals); i++)
		usleep(1000);
	ASSERT_EQ(1, READ_ONCE(ovf_signals));
	ASSERT_EQ(SI_PMC_OVF, READ_ONCE(ovf_code));
	ASSERT_EQ(1u << 0, READ_ONCE(ovf_mask));
}

/* Privilege: counting kernel mode ------------------------------------ */

/* What unprivileged_control() asks for. */
struct fault_mode {
	__u32 event;
	__u64 evntsel;
	bool imode;
};

/*
 * In a child: become unprivileged and count @arg's fault event with its
 * evntsel; 0 if vperfctr_control() succeeded, else its errno.
 */
static int unprivileged_control(void *arg)
{
	const struct fault_mode *m = arg;
	struct vperfctr_control control;
	int fd;

	if (become_unprivileged())
		return CHILD_CHECK_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return CHILD_CHECK_FAILED;
	start_tsc_control(&control);
	if (m->imode) {
		add_imode(&control, PERFCTR_MAP_SOFTWARE | m->event,
			  m->evntsel, -(1ll << 40));
		control.si_signo = OVF_SIGNAL;
	} else {
		add_amode(&control, PERFCTR_MAP_SOFTWARE | m->event,
			  m->evntsel);
	}
	return sys_vperfctr_control(fd, &control) ? errno : 0;
}

FIXTURE(privilege)
{
};

FIXTURE_VARIANT(privilege)
{
	__u32 event;
};

FIXTURE_VARIANT_ADD(privilege, page_faults)
{
	.event = PERFCTR_SW_PAGE_FAULTS,
};

FIXTURE_VARIANT_ADD(privilege, minor_faults)
{
	.event = PERFCTR_SW_MINOR_FAULTS,
};

FIXTURE_VARIANT_ADD(privilege, major_faults)
{
	.event = PERFCTR_SW_MAJOR_FAULTS,
};

FIXTURE_SETUP(privilege)
{
	const char *why = perfctr_missing();

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(privilege)
{
}

TEST_F(privilege, unprivileged_os_counter_fails_with_eacces)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_OS, false };

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_usr_and_os_counter_fails_with_eacces)
{
	struct fault_mode m = {
		variant->event, PERFCTR_SW_USR | PERFCTR_SW_OS, false
	};

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_imode_os_counter_fails_with_eacces)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_OS, true };

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_usr_counter_succeeds)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_USR, false };

	ASSERT_EQ(0, in_child(unprivileged_control, &m));
}

TEST_F(privilege, root_os_counter_succeeds)
{
	struct vperfctr_control control;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	start_tsc_control(&control);
	add_amode(&control, PERFCTR_MAP_SOFTWARE | variant->event,
		  PERFCTR_SW_USR | PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	close(fd);
}

/* In a child: become unprivileged and count every software event. */
static int unprivileged_all_events(void *arg)
{
	struct vperfctr_control control;
	__u32 event;
	int fd;

	if (become_unprivileged())
		return CHILD_CHECK_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return CHILD_CHECK_FAILED;
	start_tsc_control(&control);
	for (event = PERFCTR_SW_TASK_CLOCK; event <= PERFCTR_SW_MAX; event++)
		add_amode(&control, PERFCTR_MAP_SOFTWARE | event,
			  event >= PERFCTR_SW_PAGE_FAULTS ? PERFCTR_SW_USR : 0);
	return sys_vperfctr_control(fd, &control) ? errno : 0;
}

TEST_F(vperfctr, unprivileged_thread_may_count_every_software_event)
{
	ASSERT_EQ(0, in_child(unprivileged_all_events, NULL));
}

/* exec(): a setuid or setgid exec drops the counters ------------------ */

/* The argument that makes this program the exec helper. */
#define EXEC_HELPER_ARG	"--exec-helper"

/* Exit statuses of the exec helper, and of exec_child() before the exec. */
enum {
	HELPER_HAS_STATE = 0,
	HELPER_HAS_NO_STATE,
	HELPER_OPEN_FAILED,
	EXEC_CHILD_DROP_FAILED = 30,
	EXEC_CHILD_OPEN_FAILED,
	EXEC_CHILD_CONTROL_FAILED,
	EXEC_CHILD_SEND_FAILED,
	EXEC_CHILD_EXEC_FAILED,
};

/*
 * The exec helper: whether the thread has counter state after the exec;
 * with @wait, only once its stdin has closed.
 */
static int exec_helper(bool wait)
{
	char c;

	while (wait && read(STDIN_FILENO, &c, 1) != 0 && errno == EINTR)
		;
	if (sys_vperfctr_open(0, 0) >= 0)
		return HELPER_HAS_STATE;
	return errno == ENOENT ? HELPER_HAS_NO_STATE : HELPER_OPEN_FAILED;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -1;
			break;
		}
	if (n < 0)
		err = -1;
	close(in);
	if (close(out))
		err = -1;
	return err;
}

/* A copy of this program, in a directory of its own. */
struct exec_copy {
	char dir[64];
	char path[96];
};

/* Copy this program to @c, owned by root, with @mode. */
static int make_copy(struct exec_copy *c, mode_t mode)
{
	snprintf(c->dir, sizeof(c->dir), "/tmp/vperfctr-exec.XXXXXX");
	if (!mkdtemp(c->dir)) {
		c->dir[0] = '\0';
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s/helper", c->dir);
	if (chmod(c->dir, 0755) || copy_file("/proc/self/exe", c->path) ||
	    chown(c->path, 0, 0) || chmod(c->path, mode))
		return -1;
	return 0;
}

struct exec_run {
	const char *path;
	bool unprivileged;
	int sk;		/* if not -1: touch pages, pass the fd over it */
	int wait;	/* if not -1: the helper's stdin, it waits for EOF */
};

/*
 * In a child: count (TSC and page faults), then exec the helper at
 * @arg's path, as nobody if @arg says so.  The helper's exit status.
 */
static int exec_child(void *arg)
{
	const struct exec_run *run = arg;
	int fd;

	if (run->unprivileged && become_unprivileged())
		return EXEC_CHILD_DROP_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return EXEC_CHILD_OPEN_FAILED;
	if (start_faults(fd))
		return EXEC_CHILD_CONTROL_FAILED;
	if (run->sk >= 0 &&
	    (touch_fresh_pages(FRESH_PAGES) || send_fd(run->sk, fd)))
		return EXEC_CHILD_SEND_FAILED;
	if (run->wait >= 0) {
		if (dup2(run->wait, STDIN_FILENO) < 0)
			return EXEC_CHILD_EXEC_FAILED;
		execl(run->path, run->path, EXEC_HELPER_ARG, "wait",
		      (char *)NULL);
	} else {
		execl(run->path, run->path, EXEC_HELPER_ARG, (char *)NULL);
	}
	return EXEC_CHILD_EXEC_FAILED;
}

/* Root makes a setuid-root copy in /tmp, which must not be nosuid. */
FIXTURE(exec)
{
	struct exec_copy copy;
};

FIXTURE_SETUP(exec)
{
	struct statvfs st;
	const char *why;

	self->copy.dir[0] = '\0';
	self->copy.path[0] = '\0';
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	if (geteuid() != 0)
		SKIP(return, "making a setuid-root program needs root");
	ASSERT_EQ(0, statvfs("/tmp", &st));
	if (st.f_flag & ST_NOSUID)
		SKIP(return, "/tmp is mounted nosuid");
}

FIXTURE_TEARDOWN(exec)
{
	if (self->copy.path[0])
		unlink(self->copy.path);
	if (self->copy.dir[0])
		rmdir(self->copy.dir);
}

TEST_F(exec, plain_exec_keeps_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 0755));
	ASSERT_EQ(HELPER_HAS_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_drops_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(HELPER_HAS_NO_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setgid_root_exec_drops_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 02755));
	ASSERT_EQ(HELPER_HAS_NO_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_by_root_keeps_the_state)
{
	struct exec_run run = { self->copy.path, false, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(HELPER_HAS_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_leaves_fd_holders_the_final_counts)
{
	const struct vperfctr_state *page;
	struct perfctr_sum_ctrs sum;
	struct exec_run run;
	int sk[2], go[2], fd, ms;
	pid_t pid;

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk));
	ASSERT_EQ(0, pipe(go));
	run = (struct exec_run){ self->copy.path, true, sk[1], go[0] };
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sk[0]);
		close(go[1]);
		_exit(exec_child(&run));
	}
	close(sk[1]);
	close(go[0]);
	fd = recv_fd(sk[0]);
	ASSERT_GE(fd, 0) {
		TH_LOG("no fd from the child, its exit status: %d", reap(pid));
	}
	page = map_state(fd);
	ASSERT_NE(NULL, page);

	/* The helper waits for go to close: it is alive, but exec'd. */
	for (ms = 0; ms < 2000 && !page_flag(page, VPERFCTR_STATE_DETACHED); ms++)
		sleep_ms(1);
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);

	close(go[1]);
	ASSERT_EQ(HELPER_HAS_NO_STATE, reap(pid));
	unmap_state(page);
	close(fd);
}

/* fork() and pthread_create(): who inherits a state -------------------- */

TEST_F(vperfctr, forked_child_of_counting_thread_has_a_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_stopped_counters_has_no_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_never_started_counters_has_no_state)
{
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_unlinked_state_has_no_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, thread_of_thread_with_stopped_counters_has_no_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-1, r.fd);
	ASSERT_EQ(ENOENT, r.err);
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

/*
 * Inheritance and propagation: this thread counts the TSC and its
 * user-mode page faults (counter 0); its children inherit that, and
 * their sums come back into its children sums when they are reaped.
 */
FIXTURE(family)
{
	int fd;
	struct vperfctr_control control;
};

FIXTURE_SETUP(family)
{
	const char *why;

	self->fd = -1;
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	fault_control(&self->control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(family)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Children's bodies: 0 when all went well and what they check holds. */

static int touch_pages_child(void *arg)
{
	return touch_fresh_pages(FRESH_PAGES) ? CHILD_CHECK_FAILED : 0;
}

static int spin_child(void *arg)
{
	spin_ms(10);
	return 0;
}

/* Fork a grandchild that touches fresh pages, and reap it. */
static int grandchild_touches_pages(void *arg)
{
	return in_child(touch_pages_child, NULL);
}

/* The state has the control @arg points to. */
static int has_control(void *arg)
{
	const struct vperfctr_control *want = arg;
	struct vperfctr_control got;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, NULL, &got, NULL))
		return errno;
	return memcmp(want, &got, sizeof(got)) ? CHILD_CHECK_FAILED : 0;
}

/* The TSC and counter 0 sums are below the parent's ones @arg points to. */
static int has_sums_below(void *arg)
{
	const struct perfctr_sum_ctrs *parent = arg;
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, &sum, NULL, NULL))
		return errno;
	return sum.tsc < parent->tsc && sum.pmc[0] < parent->pmc[0] ?
	       0 : CHILD_CHECK_FAILED;
}

static int has_zero_children_sums(void *arg)
{
	struct perfctr_sum_ctrs children;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, NULL, NULL, &children))
		return errno;
	return all_zero(&children, sizeof(children)) ? 0 : CHILD_CHECK_FAILED;
}

static int counts_own_faults(void *arg)
{
	struct perfctr_sum_ctrs before, after;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, &before, NULL, NULL) ||
	    touch_fresh_pages(FRESH_PAGES) ||
	    sys_vperfctr_read(fd, &after, NULL, NULL))
		return errno;
	return after.pmc[0] - before.pmc[0] >= FRESH_PAGES ?
	       0 : CHILD_CHECK_FAILED;
}

/* Threads' bodies: NULL when all went well, else THREAD_FAILED. */
static char thread_failed;
#define THREAD_FAILED	((void *)&thread_failed)

static void *touch_pages_thread(void *arg)
{
	return touch_fresh_pages(FRESH_PAGES) ? THREAD_FAILED : NULL;
}

static void *open_and_touch_pages_thread(void *arg)
{
	open_own_state(arg);
	return touch_fresh_pages(FRESH_PAGES) ? THREAD_FAILED : NULL;
}

TEST_F(family, forked_child_inherits_a_state)
{
	ASSERT_EQ(0, in_child(has_state, NULL));
}

TEST_F(family, inherited_state_has_the_parents_control)
{
	ASSERT_EQ(0, in_child(has_control, &self->control));
}

TEST_F(family, inherited_state_does_not_start_with_the_parents_sums)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	spin_ms(20);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, in_child(has_sums_below, &sum));
}

TEST_F(family, inherited_state_has_zero_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, in_child(has_zero_children_sums, NULL));
}

TEST_F(family, inherited_state_counts_the_childs_faults)
{
	ASSERT_EQ(0, in_child(counts_own_faults, NULL));
}

TEST_F(family, reaped_child_faults_go_to_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, reaped_child_faults_do_not_go_to_own_sums)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(family, reaped_child_tsc_goes_to_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(spin_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_NE(0ull, children.tsc);
}

TEST_F(family, child_killed_by_signal_still_goes_to_children_sums)
{
	struct perfctr_sum_ctrs children;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (!touch_fresh_pages(FRESH_PAGES))
			raise(SIGKILL);
		_exit(1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, grandchild_reaped_by_child_goes_to_root_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(grandchild_touches_pages, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, grandchild_reaped_after_its_parent_goes_to_root_children_sums)
{
	struct perfctr_sum_ctrs children;
	int go[2], report[2];
	pid_t child, grandchild;
	char c;

	/* The orphaned grandchild becomes ours to reap. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		grandchild = fork();
		if (grandchild == 0) {
			/* Touch the pages once the child has been reaped. */
			close(report[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(touch_fresh_pages(FRESH_PAGES) ? 1 : 0);
		}
		/* Exit without waiting for it. */
		_exit(write(report[1], &grandchild, sizeof(grandchild)) ==
		      sizeof(grandchild) && grandchild > 0 ? 0 : 1);
	}
	close(go[0]);
	close(report[1]);
	ASSERT_EQ(0, reap(child));
	ASSERT_EQ((ssize_t)sizeof(grandchild),
		  read(report[0], &grandchild, sizeof(grandchild)));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_LT(children.pmc[0], FRESH_PAGES);

	close(go[1]);
	ASSERT_EQ(0, reap(grandchild));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, child_reaped_after_parents_control_changed_adds_nothing)
{
	struct perfctr_sum_ctrs children;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(touch_pages_child(NULL));
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(0, reap(pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(family, child_reaped_after_parents_unlink_adds_nothing)
{
	struct perfctr_sum_ctrs children;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(touch_pages_child(NULL));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, reap(pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(family, control_resets_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(family, thread_inherits_a_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_GE(r.fd, 0) {
		TH_LOG("vperfctr_open(0, 0) in the thread: %s",
		       strerror(r.err));
	}
	close(r.fd);
}

TEST_F(family, joined_thread_faults_go_to_children_sums)
{
	struct perfctr_sum_ctrs sum, children;
	pthread_t thread;
	void *failed;

	ASSERT_EQ(0, pthread_create(&thread, NULL, touch_pages_thread, NULL));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_EQ(0, await_children_sum(self->fd, 0, FRESH_PAGES, &sum,
					&children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, joined_thread_faults_do_not_go_to_own_sums)
{
	struct perfctr_sum_ctrs before, sum, children;
	pthread_t thread;
	void *failed;

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, pthread_create(&thread, NULL, touch_pages_thread, NULL));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_EQ(0, await_children_sum(self->fd, 0, FRESH_PAGES, &sum,
					&children));
	ASSERT_LT(sum.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(family, joined_thread_state_is_readable_through_its_fd)
{
	const struct vperfctr_state *page;
	struct perfctr_sum_ctrs sum;
	struct open_result r;
	pthread_t thread;
	void *failed;
	int ms;

	ASSERT_EQ(0, pthread_create(&thread, NULL,
				    open_and_touch_pages_thread, &r));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_GE(r.fd, 0);
	page = map_state(r.fd);
	ASSERT_NE(NULL, page);
	/* Released a little after pthread_join() returned. */
	for (ms = 0; ms < 1000 && !page_flag(page, VPERFCTR_STATE_DETACHED); ms++)
		sleep_ms(1);
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_EQ(0, sys_vperfctr_read(r.fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	unmap_state(page);
	close(r.fd);
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
	EXITED_CHILD_TOUCH_FAILED,
};

static int exited_child_main(int sk)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return EXITED_CHILD_OPEN_FAILED;
	if (start_faults(fd))
		return EXITED_CHILD_CONTROL_FAILED;
	if (send_fd(sk, fd))
		return EXITED_CHILD_SEND_FAILED;
	if (touch_fresh_pages(FRESH_PAGES))
		return EXITED_CHILD_TOUCH_FAILED;
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

TEST_F(exited_child, read_after_reap_returns_final_fault_count)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], READ_ONCE(self->page->cpu_state.pmc[0].sum));
}

TEST_F(exited_child, fdinfo_state_is_dead_while_zombie)
{
	siginfo_t info;
	char text[64];

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_STREQ("dead",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(exited_child, fdinfo_state_is_detached_after_reap)
{
	char text[64];

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_STREQ("detached",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-owner"));
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
 * child blocks on a pipe; once released it touches FRESH_PAGES fresh
 * pages, spins for 20 ms and exits.
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
		if (read(go[0], &c, 1) != 1 || touch_fresh_pages(FRESH_PAGES))
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

TEST_F(stopped_child, read_succeeds)
{
	struct perfctr_sum_ctrs sum, children;
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, &control, &children)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	close(fd);
}

TEST_F(stopped_child, unlink_succeeds)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(fd)) {
		TH_LOG("vperfctr_unlink: %s", strerror(errno));
	}
	close(fd);
}

TEST_F(stopped_child, unlink_leaves_child_without_state)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, sys_vperfctr_unlink(fd));
	ASSERT_EQ(-1, sys_vperfctr_open(self->pid, 0));
	ASSERT_EQ(ENOENT, errno);
	close(fd);
}

TEST_F(stopped_child, iresume_without_overflow_fails_with_einval)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	overflow_control(&control, 1000000);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control));
	ASSERT_EQ(-1, sys_vperfctr_iresume(fd));
	ASSERT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(stopped_child, fdinfo_names_the_child_as_owner)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(self->pid, fdinfo_value(fd, "vperfctr-owner"));
	close(fd);
}

TEST_F(stopped_child, control_does_not_count_while_child_is_stopped)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	sleep_ms(10);
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_TRUE(all_zero(&sum, sizeof(sum)));
	close(fd);
}

TEST_F(stopped_child, control_counts_once_ptrace_cont_lets_child_run)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, 0));
	ASSERT_EQ(1, write(self->go, "g", 1));
	ASSERT_EQ(0, reap_child(&self->pid));

	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_NE(0ull, sum.tsc);
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	close(fd);
}

/*
 * Remote calls on a child whose own counters are in overflow (so that
 * vperfctr_iresume() is valid too), and which is held in one of four ways.
 */

enum hold {
	UNTRACED,
	TRACED_RUNNING,		/* PTRACE_SEIZEd by us, not stopped */
	STOPPED_BY_OTHER,	/* ptrace-stopped by another process */
	STOPPED_BY_CALLER,	/* ptrace-stopped by us */
};

struct target {
	pid_t pid;	/* the child, once started */
	pid_t tracer;	/* the other process, which forked the child */
	int fd;		/* the child's state */
	int go;		/* closing it ends the child */
	const struct vperfctr_state *page;
};

/* Exit statuses of target_main(): which step failed. */
enum {
	TARGET_SIGNAL_FAILED = 20,
	TARGET_OPEN_FAILED,
	TARGET_CONTROL_FAILED,
	TARGET_NO_OVERFLOW,
	TARGET_SEND_FAILED,
};

/*
 * The child: overflows its own counters, passes its fd to the test over
 * @sk, says so on @ready unless it is -1, and waits for @go to close.
 */
static int target_main(int sk, int ready, int go)
{
	struct vperfctr_control control;
	char c;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (catch_overflow_signal())
		return TARGET_SIGNAL_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return TARGET_OPEN_FAILED;
	overflow_control(&control, OVF_FAULTS);
	if (sys_vperfctr_control(fd, &control))
		return TARGET_CONTROL_FAILED;
	if (overflow_now() || READ_ONCE(ovf_signals) != 1)
		return TARGET_NO_OVERFLOW;
	if (send_fd(sk, fd) || (ready >= 0 && write(ready, "r", 1) != 1))
		return TARGET_SEND_FAILED;
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

/*
 * The other process: forks the child, stops it under ptrace once it is
 * ready, reports its pid (or -1) on @report, and holds it stopped until
 * @go closes.
 */
static int tracer_main(int sk, int go, int report)
{
	pid_t pid, stopped = -1;
	int ready[2], status;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pipe(ready))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(ready[0]);
		_exit(target_main(sk, ready[1], go));
	}
	close(ready[1]);
	close(sk);
	if (read(ready[0], &c, 1) == 1 &&
	    !ptrace(PTRACE_SEIZE, pid, 0, 0) &&
	    !ptrace(PTRACE_INTERRUPT, pid, 0, 0) &&
	    waitpid(pid, &status, 0) == pid && WIFSTOPPED(status))
		stopped = pid;
	if (write(report, &stopped, sizeof(stopped)) != sizeof(stopped))
		stopped = -1;
	if (stopped > 0)
		while (read(go, &c, 1) < 0 && errno == EINTR)
			;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return stopped > 0 ? 0 : 1;
}

/* Start the target held as @hold: 0, or -1, or its exit status. */
static int start_target(struct target *t, enum hold hold)
{
	int sk[2], go[2], report[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk) || pipe(go) ||
	    pipe(report))
		return -1;
	t->go = go[1];
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sk[0]);
		close(go[1]);
		close(report[0]);
		if (hold == STOPPED_BY_OTHER)
			_exit(tracer_main(sk[1], go[0], report[1]));
		_exit(target_main(sk[1], -1, go[0]));
	}
	if (hold == STOPPED_BY_OTHER)
		t->tracer = pid;
	else
		t->pid = pid;
	close(sk[1]);
	close(go[0]);
	close(report[1]);

	t->fd = recv_fd(sk[0]);
	close(sk[0]);
	if (t->fd < 0) {
		close(report[0]);
		if (t->pid > 0)
			return reap_child(&t->pid);
		return reap_child(&t->tracer);
	}
	t->page = map_state(t->fd);
	if (!t->page)
		return -1;

	switch (hold) {
	case UNTRACED:
		break;
	case TRACED_RUNNING:
		if (ptrace(PTRACE_SEIZE, t->pid, 0, 0))
			return -1;
		break;
	case STOPPED_BY_OTHER:
		if (read(report[0], &pid, sizeof(pid)) != sizeof(pid) ||
		    pid <= 0)
			return -1;
		t->pid = pid;
		break;
	case STOPPED_BY_CALLER:
		if (ptrace(PTRACE_SEIZE, t->pid, 0, 0) ||
		    ptrace(PTRACE_INTERRUPT, t->pid, 0, 0) ||
		    waitpid(t->pid, &status, 0) != t->pid ||
		    !WIFSTOPPED(status))
			return -1;
		break;
	}
	close(report[0]);
	return 0;
}

static void init_target(struct target *t)
{
	t->pid = 0;
	t->tracer = 0;
	t->fd = -1;
	t->go = -1;
	t->page = NULL;
}

static void end_target(struct target *t)
{
	unmap_state(t->page);
	if (t->fd >= 0)
		close(t->fd);
	if (t->go >= 0)
		close(t->go);
	if (t->tracer > 0) {
		/* Once go is closed, it ends the child and exits. */
		waitpid(t->tracer, NULL, 0);
	} else if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
}

static int remote_open(int fd, pid_t pid)
{
	int fd2 = sys_vperfctr_open(pid, 0);

	if (fd2 < 0)
		return -1;
	close(fd2);
	return 0;
}

static int remote_control(int fd, pid_t pid)
{
	struct vperfctr_control control;

	overflow_control(&control, OVF_FAULTS);
	return sys_vperfctr_control(fd, &control);
}

static int remote_unlink(int fd, pid_t pid)
{
	return sys_vperfctr_unlink(fd);
}

static int remote_read(int fd, pid_t pid)
{
	struct perfctr_sum_ctrs sum;

	return sys_vperfctr_read(fd, &sum, NULL, NULL);
}

static int remote_iresume(int fd, pid_t pid)
{
	return sys_vperfctr_iresume(fd);
}

FIXTURE(remote_call)
{
	struct target target;
};

FIXTURE_VARIANT(remote_call)
{
	int (*call)(int fd, pid_t pid);
};

FIXTURE_VARIANT_ADD(remote_call, open)
{
	.call = remote_open,
};

FIXTURE_VARIANT_ADD(remote_call, control)
{
	.call = remote_control,
};

FIXTURE_VARIANT_ADD(remote_call, unlink)
{
	.call = remote_unlink,
};

FIXTURE_VARIANT_ADD(remote_call, read)
{
	.call = remote_read,
};

FIXTURE_VARIANT_ADD(remote_call, iresume)
{
	.call = remote_iresume,
};

FIXTURE_SETUP(remote_call)
{
	const char *why;

	init_target(&self->target);
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(remote_call)
{
	end_target(&self->target);
}

TEST_F(remote_call, on_untraced_child_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, UNTRACED));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_traced_running_child_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, TRACED_RUNNING));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_child_stopped_by_another_tracer_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, STOPPED_BY_OTHER));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_child_stopped_by_caller_succeeds)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, STOPPED_BY_CALLER));
	ASSERT_EQ(0, variant->call(t->fd, t->pid)) {
		TH_LOG("%s", strerror(errno));
	}
}

/* A child in overflow, ptrace-stopped by this process. */
FIXTURE(overflowed_child)
{
	struct target target;
};

FIXTURE_SETUP(overflowed_child)
{
	const char *why;

	init_target(&self->target);
	why = perfctr_missing();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, start_target(&self->target, STOPPED_BY_CALLER));
}

FIXTURE_TEARDOWN(overflowed_child)
{
	end_target(&self->target);
}

TEST_F(overflowed_child, page_shows_overflow)
{
	ASSERT_TRUE(page_flag(self->target.page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflowed_child, read_returns_faults_up_to_the_overflow)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, sys_vperfctr_read(self->target.fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], OVF_FAULTS);
}

TEST_F(overflowed_child, iresume_clears_overflow_flag)
{
	ASSERT_EQ(0, sys_vperfctr_iresume(self->target.fd));
	ASSERT_FALSE(page_flag(self->target.page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflowed_child, iresume_twice_fails_with_einval)
{
	ASSERT_EQ(0, sys_vperfctr_iresume(self->target.fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->target.fd));
	ASSERT_EQ(EINVAL, errno);
}

/* perfctr_info in sysfs ----------------------------------------------- */

#define PERFCTR_SYSFS	"/sys/kernel/perfctr/"

/* The first line of /sys/kernel/perfctr/@name, or "" if unreadable. */
static const char *sysfs_text(const char *name, char *buf, size_t size)
{
	char path[128];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), PERFCTR_SYSFS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

static long sysfs_value(const char *name)
{
	char buf[64];

	return strtol(sysfs_text(name, buf, sizeof(buf)), NULL, 0);
}

#if !defined(__aarch64__)
/* Whether /proc/cpuinfo lists @flag for the first CPU (x86 has flags). */
static bool cpu_has_flag(const char *flag)
{
	static const char blanks[] = { ' ', '\t', '\n', '\0' };
	char line[4096], *p;
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (p = strtok(strchr(line, ':') + 1, blanks); p;
		     p = strtok(NULL, blanks))
			if (!strcmp(p, flag))
				found = true;
		break;
	}
	fclose(f);
	return found;
}
#endif

TEST(sysfs_info_has_every_field)
{
	static const char * const names[] = {
		"abi_version", "driver_version", "driver", "cpu_type",
		"cpu_features", "cpu_khz", "tsc_to_cpu_mult", "nrctrs",
		"ctr_width", "nrfixed", "fixed_width",
	};
	char buf[64], path[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), PERFCTR_SYSFS "%s", names[i]);
		EXPECT_STRNE("", sysfs_text(names[i], buf, sizeof(buf))) {
			TH_LOG("%s is missing or empty", path);
		}
	}
}

TEST(sysfs_info_abi_version_matches_header)
{
	ASSERT_EQ(PERFCTR_ABI_VERSION, sysfs_value("abi_version"));
}

TEST(sysfs_info_says_user_space_may_read_the_tsc)
{
	ASSERT_TRUE(sysfs_value("cpu_features") & PERFCTR_FEATURE_RDTSC);
	ASSERT_LE(1, sysfs_value("tsc_to_cpu_mult"));
	/* x86 knows its core clock; arm64 has no way to, and says 0. */
	ASSERT_EQ(sysfs_value("cpu_type") < PERFCTR_ARM64_GENERIC,
		  sysfs_value("cpu_khz") > 0);
}

TEST(sysfs_info_is_read_only)
{
	int fd = open(PERFCTR_SYSFS "nrctrs", O_WRONLY);

	if (fd >= 0)
		close(fd);
	ASSERT_EQ(-1, fd);
	ASSERT_EQ(EACCES, errno);
}

TEST(cpu_without_pmu_gets_the_tsc_only_driver)
{
	char buf[64];

#if defined(__aarch64__)
	/* No CPU flag says whether a PMUv3 is there for perfctr to use. */
	if (sysfs_value("cpu_type") == PERFCTR_ARM64_PMUV3)
		SKIP(return, "the driver uses this CPU's PMU");
	ASSERT_EQ(PERFCTR_ARM64_GENERIC, sysfs_value("cpu_type"));
	ASSERT_STREQ("arm64 timer", sysfs_text("driver", buf, sizeof(buf)));
#else
	if (cpu_has_flag("arch_perfmon") || cpu_has_flag("perfctr_core"))
		SKIP(return, "this CPU announces a PMU");
	ASSERT_EQ(PERFCTR_X86_GENERIC, sysfs_value("cpu_type"));
	ASSERT_STREQ("x86 TSC", sysfs_text("driver", buf, sizeof(buf)));
#endif
	ASSERT_EQ(0, sysfs_value("nrctrs"));
	ASSERT_EQ(0, sysfs_value("ctr_width"));
	ASSERT_EQ(0, sysfs_value("nrfixed"));
	ASSERT_EQ(0, sysfs_value("fixed_width"));
	ASSERT_FALSE(sysfs_value("cpu_features") & PERFCTR_FEATURE_RDPMC);
	ASSERT_FALSE(sysfs_value("cpu_features") & PERFCTR_FEATURE_PCINT);
}

/*
 * With no PMU to drive, every control with a hardware counter is refused
 * as asking for more counters than there are, and the state page never
 * lets the owner use rdpmc.
 */
TEST(tsc_only_driver_refuses_hardware_counters_with_einval)
{
	struct vperfctr_control gp = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = 0,
			.evntsel[0] = 0x100c0,	/* INST_RETIRED, USR */
		},
	};
	struct vperfctr_control fixed = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_X86_FIXED | 1,
			.evntsel[0] = 0x10000,	/* USR */
		},
	};
	struct vperfctr_control imode = {
		.si_signo = SIGIO,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = 0,
			.evntsel[0] = 0x1003c,	/* core cycles, USR */
			.ireset[0] = -1000,
		},
	};
	struct vperfctr_control sw = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	};
	const struct vperfctr_state *page;
	const char *why = perfctr_missing();
	int fd;

	if (why)
		SKIP(return, "%s", why);
	if (sysfs_value("nrctrs") || sysfs_value("nrfixed"))
		SKIP(return, "this machine has a PMU the driver uses");
	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	page = map_state(fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &gp));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &fixed));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &imode));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &sw));
	ASSERT_FALSE(!!(page->flags & VPERFCTR_STATE_RDPMC));
	unmap_state(page);
	close(fd);
}

/*
 * The exec tests run a copy of this program as "vperfctr_test
 * --exec-helper [wait]": it then only reports whether it has counter
 * state.
 */
int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], EXEC_HELPER_ARG))
		return exec_helper(argc > 2);
	return test_harness_run(argc, argv);
}
