/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the perfctr selftests share: clocks and the work they time, the
 * state page and its seqcount, controls of the TSC and of the software
 * counters, the overflow signal, descriptors, children and privilege,
 * and the driver's description in sysfs.  The fuzzer (vperfctr_fuzz) and
 * the race stress (vperfctr_stress) also share the seeded random numbers
 * that make a run replayable and the tally of checks, kept in memory
 * that every process of a run (forked or executed anew) writes into.
 */
#ifndef VPERFCTR_COMMON_H
#define VPERFCTR_COMMON_H

#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <linux/perfctr.h>
#include <linux/types.h>

#include "kselftest.h"
#include "vperfctr_syscalls.h"

/* --- Random numbers ------------------------------------------------------ */

/*
 * xorshift64*, seeded through splitmix64 so that small seeds (1, 2, ...)
 * give unrelated streams.  Every random choice of a run comes from one of
 * these, and each is seeded from the run's seed alone: the same seed
 * makes the same choices.
 */
struct prng {
	__u64 s;
};

static inline __u64 splitmix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline void prng_seed(struct prng *p, __u64 seed)
{
	p->s = splitmix64(seed);
	if (!p->s)
		p->s = 1;	/* xorshift's one fixed point */
}

static inline __u64 prng_next(struct prng *p)
{
	p->s ^= p->s >> 12;
	p->s ^= p->s << 25;
	p->s ^= p->s >> 27;
	return p->s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n), n > 0: the bias of the modulo is negligible here. */
static inline __u64 prng_below(struct prng *p, __u64 n)
{
	return prng_next(p) % n;
}

/* True with probability num/den. */
static inline bool prng_chance(struct prng *p, unsigned int num,
			       unsigned int den)
{
	return prng_below(p, den) < num;
}

/* A seed for a sub-task, so that sub-tasks do not share a stream. */
static inline __u64 prng_fork(struct prng *p)
{
	return prng_next(p);
}

/* --- Clocks and the work they time --------------------------------------- */

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The TSC (arm64: the generic timer's virtual count), read strictly after
 * the loads before it and before the loads after it.  A reader of another
 * thread's page needs both: its TSC must not be older than the resume
 * whose start it subtracts, nor newer than the seq it checks last.
 */
#if defined(__x86_64__)
static inline __u64 read_tsc_ordered(void)
{
	__u32 lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a" (lo), "=d" (hi) :: "memory");
	return ((__u64)hi << 32) | lo;
}
#elif defined(__aarch64__)
static inline __u64 read_tsc_ordered(void)
{
	__u64 t;

	asm volatile("isb; mrs %0, cntvct_el0; isb" : "=r" (t) :: "memory");
	return t;
}
#else
#error "perfctr runs on x86-64 and arm64 only"
#endif

/*
 * Hardware counter @map of this CPU, as its owner reads it while the
 * page has its bit in 'live': rdpmc on x86, on arm64 the cycle
 * counter or the event counter that PMSELR_EL0 selects.
 */
#if defined(__x86_64__)
static inline __u64 read_hw_counter(__u32 map)
{
	__u32 lo, hi;

	asm volatile("rdpmc" : "=a" (lo), "=d" (hi) : "c" (map) : "memory");
	return ((__u64)hi << 32) | lo;
}
#else
static inline __u64 read_hw_counter(__u32 map)
{
	__u64 v;

	if (map == PERFCTR_MAP_ARM64_CYCLES) {
		asm volatile("mrs %0, pmccntr_el0" : "=r" (v) :: "memory");
		return v;
	}
	asm volatile("msr pmselr_el0, %1; isb; mrs %0, pmxevcntr_el0"
		     : "=r" (v) : "r" ((__u64)map) : "memory");
	return v;
}
#endif

/* (ticks * mult) >> shift without overflowing 64 bits, as the kernel does. */
static inline __u64 ticks_to_ns(__u64 ticks, __u32 mult, __u32 shift)
{
	__u64 low = shift ? ticks & ((1ull << shift) - 1) : 0;

	return (ticks >> shift) * mult + ((low * mult) >> shift);
}

/* From @from to @to, in nanoseconds. */
static inline __u64 elapsed_ns(const struct timespec *from,
			       const struct timespec *to)
{
	return (to->tv_sec - from->tv_sec) * 1000000000ull +
	       to->tv_nsec - from->tv_nsec;
}

/* Run on the CPU for @ms milliseconds of this thread's own CPU time. */
static inline void spin_ms(unsigned int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while (elapsed_ns(&start, &now) < ms * 1000000ull);
}

/* Run on the CPU for @ms milliseconds of wall-clock time. */
static inline void spin_wall_ms(unsigned int ms)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (elapsed_ns(&start, &now) < ms * 1000000ull);
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000l,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A sleep long enough that the thread surely reaches schedule() before
 * its timer fires, even on a slow emulated CPU: each one is a context
 * switch.
 */
#define BLOCKING_SLEEP_US	10000

/* --- The state page ------------------------------------------------------ */

/*
 * What another thread, a signal handler or the kernel changes under us:
 * loaded and stored whole, neither cached nor torn by the compiler.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define add_once(x, v)		__atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)

/* The pmc_map[] entry of software event @event. */
#define SW_EVENT(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)
#define TASK_CLOCK_MAP	SW_EVENT(TASK_CLOCK)

/* A consistent view of a state page, with the live counts added. */
struct page_snap {
	__u32 flags;
	__u32 cstatus;
	__u64 tsc;
	__u64 pmc[PERFCTR_MAX_NRCTRS];
};

/*
 * The seqcount protocol of the uapi header: read seq, the fields and the
 * TSC, then seq again, and retry if it was odd or moved.  While the owner
 * runs, the TSC and task-clock have their live part added; every other
 * software counter is current in its sum.  A live hardware counter can
 * be read only by its owner, on the CPU it counts on: with @own (the
 * caller owns the page) and its bit in 'live', its live part is added,
 * as the fast read and the owner's vperfctr_read() compute it; otherwise
 * its sum is taken as it is (it only grows too).
 *
 * Return: true, or false if the page kept changing for @tries attempts:
 * that is not an error, the caller tries again later.
 */
static inline bool __page_read(const struct vperfctr_state *s,
			       struct page_snap *snap, unsigned int tries,
			       bool own)
{
	const struct perfctr_cpu_state *cpu = &s->cpu_state;

	while (tries--) {
		__u32 seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		__u32 flags = READ_ONCE(s->flags);
		__u32 cstatus = READ_ONCE(cpu->cstatus);
		__u32 mult = READ_ONCE(s->time_mult);
		__u32 shift = READ_ONCE(s->time_shift);
		__u64 lbits = READ_ONCE(s->live);
		bool live = flags & VPERFCTR_STATE_ONCPU;
		unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
		__u64 now = read_tsc_ordered();

		if (seq & 1)
			continue;
		snap->flags = flags;
		snap->cstatus = cstatus;
		snap->tsc = READ_ONCE(cpu->tsc_sum);
		if (live && perfctr_cstatus_has_tsc(cstatus))
			snap->tsc += now - READ_ONCE(cpu->tsc_start);
		for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
			const struct perfctr_pmc_state *pmc = &cpu->pmc[i];
			__u32 map = READ_ONCE(pmc->map), width;

			snap->pmc[i] = READ_ONCE(pmc->sum);
			if (!live || i >= nrctrs)
				continue;
			if (map == TASK_CLOCK_MAP && shift < 64) {
				snap->pmc[i] += ticks_to_ns(now - READ_ONCE(pmc->start),
							    mult, shift);
			} else if (own && !(map & PERFCTR_MAP_SOFTWARE) &&
				   ((lbits >> i) & 1)) {
				width = READ_ONCE(pmc->width);
				snap->pmc[i] += (read_hw_counter(map) -
						 READ_ONCE(pmc->start)) &
						(width >= 64 ? ~0ull :
						 (1ull << width) - 1);
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (READ_ONCE(s->seq) == seq)
			return true;
	}
	return false;
}

/* A snapshot of any thread's page; live hardware counts are not in it. */
static inline bool page_read(const struct vperfctr_state *s,
			     struct page_snap *snap, unsigned int tries)
{
	return __page_read(s, snap, tries, false);
}

/* A snapshot of the caller's own page, its live hardware counts in it. */
static inline bool page_read_own(const struct vperfctr_state *s,
				 struct page_snap *snap, unsigned int tries)
{
	return __page_read(s, snap, tries, true);
}

static inline long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* The state page of @fd, mapped read-only: NULL if that failed. */
static inline const struct vperfctr_state *map_state(int fd)
{
	void *page = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);

	return page == MAP_FAILED ? NULL : page;
}

static inline void unmap_state(const struct vperfctr_state *page)
{
	if (page)
		munmap((void *)page, page_size());
}

static inline bool page_flag(const struct vperfctr_state *page, __u32 flag)
{
	return READ_ONCE(page->flags) & flag;
}

/* Whether the @len bytes at @buf are all zero. */
static inline bool all_zero(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		if (*p++)
			return false;
	return true;
}

/* --- Controls, and what they count --------------------------------------- */

static inline void start_tsc_control(struct vperfctr_control *control)
{
	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = 1;
}

static inline int start_tsc(int fd)
{
	struct vperfctr_control control;

	start_tsc_control(&control);
	return sys_vperfctr_control(fd, &control);
}

static inline int stop_counters(int fd)
{
	struct vperfctr_control control;

	memset(&control, 0, sizeof(control));
	return sys_vperfctr_control(fd, &control);
}

/* The TSC sum, or 0 with errno set when the read fails. */
static inline __u64 read_tsc_sum(int fd)
{
	struct perfctr_sum_ctrs sum;

	if (sys_vperfctr_read(fd, &sum, NULL, NULL))
		return 0;
	return sum.tsc;
}

/* Append an a-mode counter: add all of them before any i-mode counter. */
static inline unsigned int add_amode(struct vperfctr_control *control,
				     __u32 map, __u64 evntsel)
{
	struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i = cpu->nractrs++;

	cpu->pmc_map[i] = map;
	cpu->evntsel[i] = evntsel;
	return i;
}

/* Append an i-mode counter that overflows after -@ireset events. */
static inline unsigned int add_imode(struct vperfctr_control *control,
				     __u32 map, __u64 evntsel, __s64 ireset)
{
	struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i = cpu->nractrs + cpu->nrictrs++;

	cpu->pmc_map[i] = map;
	cpu->evntsel[i] = evntsel;
	cpu->ireset[i] = ireset;
	return i;
}

/* The TSC and, as counter 0, the page faults of user mode. */
static inline void fault_control(struct vperfctr_control *control)
{
	start_tsc_control(control);
	add_amode(control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
}

static inline int start_faults(int fd)
{
	struct vperfctr_control control;

	fault_control(&control);
	return sys_vperfctr_control(fd, &control);
}

/* How many fresh pages a test touches: one user-mode minor fault each. */
#define FRESH_PAGES	256u

/*
 * Write one byte to each of @n fresh anonymous pages: @n minor faults in
 * user mode.  Without transparent huge pages, so that each page faults.
 */
static inline int touch_fresh_pages(unsigned int n)
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

/* --- Interrupt mode ------------------------------------------------------ */

/* The signal of i-mode overflows here. */
#define OVF_SIGNAL	SIGUSR2

/* After how many faults overflow_control(OVF_FAULTS) overflows. */
#define OVF_FAULTS	10u

/*
 * fault_control() plus, as counter 1, an i-mode counter of user-mode page
 * faults that overflows after @faults faults, signalling OVF_SIGNAL.
 */
static inline void overflow_control(struct vperfctr_control *control,
				    __s64 faults)
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

static inline void ovf_handler(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)ucontext;
	WRITE_ONCE(ovf_code, info->si_code);
	WRITE_ONCE(ovf_mask, (unsigned int)info->si_pmc_ovf_mask);
	WRITE_ONCE(ovf_pid, info->si_pid);
	__atomic_fetch_add(&ovf_signals, 1, __ATOMIC_RELAXED);
}

static inline int catch_overflow_signal(void)
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

/* Enough faults for one overflow, and more. */
static inline int overflow_now(void)
{
	return touch_fresh_pages(5 * OVF_FAULTS);
}

/* --- Descriptors --------------------------------------------------------- */

static inline bool fd_is_vperfctr(int fd)
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
static inline long fdinfo_value(int fd, const char *key)
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

/* The text after "@key:" in /proc/self/fdinfo/@fd, or "" if none. */
static inline const char *fdinfo_text(int fd, const char *key, char *buf,
				      size_t size)
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

static inline int send_fd(int sk, int fd)
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

static inline int recv_fd(int sk)
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

/* --- Children, threads and privilege ------------------------------------- */

/* Reap @pid; its exit status, or -1 if it did not exit normally. */
static inline int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Reap *@pid and forget it: its exit status, or -1. */
static inline int reap_child(pid_t *pid)
{
	int status = reap(*pid);

	*pid = 0;
	return status;
}

/* A child's exit status when what it checked did not hold. */
#define CHILD_CHECK_FAILED	201

/* Run @fn in a forked child and reap it: what @fn returned, or -1. */
static inline int in_child(int (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	return reap(pid);
}

/*
 * A child's body: 0 if it has counter state, else why vperfctr_open()
 * failed.
 */
static inline int has_state(void *arg)
{
	int fd = sys_vperfctr_open(0, 0);

	(void)arg;
	return fd >= 0 ? 0 : errno;
}

/* A thread's body: what vperfctr_open(0, 0) gave it. */
struct open_result {
	int fd;
	int err;
};

static inline void *open_own_state(void *arg)
{
	struct open_result *r = arg;

	r->fd = sys_vperfctr_open(0, 0);
	r->err = r->fd < 0 ? errno : 0;
	return NULL;
}

static inline int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline bool may_run_on_cpus_0_and_1(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	return CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

/* The user and group a root-run test drops to: nobody. */
#define NOBODY	65534

/*
 * Become an unprivileged user: as root, user and group nobody without
 * supplementary groups, which also clears every capability; anyone else
 * is unprivileged already.
 */
static inline int become_unprivileged(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return 0;
}

/* --- The machine --------------------------------------------------------- */

/*
 * NULL when the running kernel has perfctr, else why it has not.  A perfctr
 * kernel lists its pseudo file system, vperfctrfs, in /proc/filesystems.
 */
static inline const char *perfctr_missing(void)
{
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		return "cannot read /proc/filesystems";
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "nodev\tvperfctrfs\n");
	fclose(f);
	return found ? NULL : "kernel without perfctr: no vperfctrfs in /proc/filesystems";
}

#define PERFCTR_SYSFS	"/sys/kernel/perfctr/"

/* The first line of /sys/kernel/perfctr/@name, or "" if unreadable. */
static inline const char *sysfs_text(const char *name, char *buf, size_t size)
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

/* /sys/kernel/perfctr/@name as a number, 0 if unreadable. */
static inline long sysfs_value(const char *name)
{
	char buf[64];

	return strtol(sysfs_text(name, buf, sizeof(buf)), NULL, 0);
}

/* Whether /proc/cpuinfo lists @flag for the first CPU (x86 has flags). */
static inline bool cpu_has_flag(const char *flag)
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

/*
 * The driver perfctr has when it has no PMU to drive: its cpu_type and
 * name in sysfs (on arm64 it counts the generic timer, which stands in
 * for the TSC); and NULL if this machine has no PMU that perfctr could
 * use, else why it may have one.
 */
#if defined(__x86_64__)
#define TSC_ONLY_CPU_TYPE	PERFCTR_X86_GENERIC
#define TSC_ONLY_DRIVER		"x86 TSC"

static inline const char *cpu_pmu_announced(void)
{
	if (cpu_has_flag("arch_perfmon") || cpu_has_flag("perfctr_core"))
		return "this CPU announces a PMU";
	return NULL;
}
#elif defined(__aarch64__)
#define TSC_ONLY_CPU_TYPE	PERFCTR_ARM64_GENERIC
#define TSC_ONLY_DRIVER		"arm64 timer"

/* No CPU flag says whether a PMUv3 is there for perfctr to use. */
static inline const char *cpu_pmu_announced(void)
{
	if (sysfs_value("cpu_type") == PERFCTR_ARM64_PMUV3)
		return "the driver uses this CPU's PMU";
	return NULL;
}
#endif

/* --- The tally of checks ------------------------------------------------- */

/*
 * Each check is a category: it passes if it was made at least once and
 * never failed.  The tally lives in a memfd mapping, shared by every
 * process of the run, including those that replaced themselves by exec
 * (the memfd is not close-on-exec; its number goes on the command line).
 */
#define REPORT_MAX_CHECKS	16
#define REPORT_MAX_MSGS		12
#define REPORT_MSG_LEN		240

struct report {
	__u64 seed;
	unsigned long progress;		/* how far the run got, its own way */
	unsigned long stats[4];		/* what the run exercised, its own way */
	unsigned long made[REPORT_MAX_CHECKS];
	unsigned long failed[REPORT_MAX_CHECKS];
	unsigned int nmsgs;
	char msgs[REPORT_MAX_MSGS][REPORT_MSG_LEN];
};

static struct report *report;
static const char * const *report_names;

static inline struct report *report_map(int fd)
{
	void *p = mmap(NULL, sizeof(struct report), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A fresh tally; returns its memfd, or -1. */
static inline int report_create(const char * const *names, __u64 seed)
{
	int fd = memfd_create("vperfctr-report", 0);

	if (fd < 0 || ftruncate(fd, sizeof(struct report)))
		return -1;
	report = report_map(fd);
	if (!report)
		return -1;
	report_names = names;
	report->seed = seed;
	return fd;
}

/* The tally of the run this process belongs to, after an exec. */
static inline bool report_attach(int fd, const char * const *names)
{
	report = report_map(fd);
	report_names = names;
	return !!report;
}

static inline void check_ok(unsigned int check)
{
	add_once(report->made[check], 1);
}

/*
 * A violation: counted, and the first few printed at once (a run that
 * ends in a crash still shows them) with what replays them.
 */
static inline void check_vfail(unsigned int check, const char *fmt, va_list ap)
{
	unsigned int n;

	add_once(report->made[check], 1);
	add_once(report->failed[check], 1);
	n = add_once(report->nmsgs, 1);
	if (n >= REPORT_MAX_MSGS)
		return;
	vsnprintf(report->msgs[n], REPORT_MSG_LEN, fmt, ap);
	printf("# VIOLATION (seed %llu) %s: %s\n",
	       (unsigned long long)report->seed, report_names[check],
	       report->msgs[n]);
	fflush(stdout);
}

static inline __printf(2, 3) void check_fail(unsigned int check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vfail(check, fmt, ap);
	va_end(ap);
}

/* check_ok() or check_fail(), as @ok says. */
static inline __printf(3, 4) void check(bool ok, unsigned int id, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		check_ok(id);
		return;
	}
	va_start(ap, fmt);
	check_vfail(id, fmt, ap);
	va_end(ap);
}

#endif /* VPERFCTR_COMMON_H */
