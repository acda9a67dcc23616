// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_stress: races against the virtual counters, checked for
 * conservation.
 *
 *	vperfctr_stress [-s SEED] [-t SECONDS]
 *
 * For SECONDS (default 20), five scenarios run at once, each a process
 * tree of its own whose choices come from SEED (default: from the clock,
 * printed first):
 *
 * forktree  a process counts the TSC, task-clock and page, minor and
 *           major faults (user mode) and forks children and grandchildren
 *           that touch known numbers of fresh pages and exit;
 * threads   threads that touch pages and exit while other threads read
 *           their state, from the page and with vperfctr_read;
 * remote    a tracer attaches to a counting process with ptrace, opens,
 *           reads and re-controls its state, and detaches, again and
 *           again, while the target forks and moves between CPUs;
 * monitor   threads spin on the mapped state page of a process that
 *           switches, forks, execs itself and is moved between CPUs;
 * imode     a page-fault and a 200 us task-clock counter in interrupt
 *           mode, restarted by the signal handler with vperfctr_iresume,
 *           while the process forks, execs itself and calls
 *           vperfctr_iresume when nothing is pending.
 *
 * What must hold, each a kselftest TAP result:
 * - a parent's children sums hold at least what its reaped children
 *   provably did (faults >= pages touched), and a thread's sums what it
 *   did itself;
 * - sums never go backwards: each reader's every snapshot, per counter
 *   and the TSC, is at least its previous one, and a stopped thread's
 *   sums do not move at all;
 * - page-faults == minor-faults + major-faults, self and children;
 * - task-clock <= wall time x CPUs (one CPU for one thread);
 * - interrupt-mode counters keep signalling, once a period;
 * - every call succeeds, or fails only as its man page says it may.
 *
 * A fast read that finds the page changing too often is retried: that is
 * no violation.  Violations are printed at once, with the seed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "vperfctr_common.h"
#include "vperfctr_syscalls.h"

#define DEFAULT_SECONDS		20
/* Past the deadline, a scenario that has not ended has hung. */
#define GRACE_S			60

/* The counters of the counting control, after the TSC. */
enum { C_TASK_CLOCK, C_FAULTS, C_MINOR, C_MAJOR, NR_C };

static const char * const counter_names[NR_C] = {
	"task-clock", "page-faults", "minor-faults", "major-faults",
};

enum check_id {
	CK_CONSERVATION, CK_MONOTONIC, CK_FAULTS, CK_TASK_CLOCK, CK_SIGNALS,
	CK_CALLS, CK_SCENARIOS, NR_CHECKS
};

static const char * const check_names[NR_CHECKS] = {
	[CK_CONSERVATION] = "sums hold at least what the thread and its children did",
	[CK_MONOTONIC] = "sums never go backwards",
	[CK_FAULTS] = "page-faults == minor-faults + major-faults",
	[CK_TASK_CLOCK] = "task-clock <= wall time x CPUs",
	[CK_SIGNALS] = "interrupt-mode counters keep signalling",
	[CK_CALLS] = "every call succeeds or fails as documented",
	[CK_SCENARIOS] = "every scenario ran to its end",
};

static unsigned int ncpus;
static int report_fd;

/* --- Readings and the checks on them ------------------------------------- */

/* The TSC and the counting control's counters, however read. */
struct reading {
	__u64 tsc;
	__u64 pmc[NR_C];
};

static void reading_of_sums(struct reading *r, const struct perfctr_sum_ctrs *s)
{
	r->tsc = s->tsc;
	memcpy(r->pmc, s->pmc, sizeof(r->pmc));
}

static void reading_of_snap(struct reading *r, const struct page_snap *s)
{
	r->tsc = s->tsc;
	memcpy(r->pmc, s->pmc, sizeof(r->pmc));
}

/* One reader's last reading of one state, to compare the next with. */
struct mono {
	bool have;
	struct reading last;
};

static void check_monotonic(struct mono *m, const struct reading *r,
			    const char *who)
{
	unsigned int i;

	if (m->have && r->tsc < m->last.tsc) {
		check_fail(CK_MONOTONIC, "%s: the TSC went back from %llu to %llu",
			   who, (unsigned long long)m->last.tsc,
			   (unsigned long long)r->tsc);
		m->last = *r;
		return;
	}
	for (i = 0; m->have && i < NR_C; i++) {
		if (r->pmc[i] < m->last.pmc[i]) {
			check_fail(CK_MONOTONIC, "%s: %s went back from %llu to %llu, by %llu",
				   who, counter_names[i],
				   (unsigned long long)m->last.pmc[i],
				   (unsigned long long)r->pmc[i],
				   (unsigned long long)(m->last.pmc[i] - r->pmc[i]));
			m->last = *r;
			return;
		}
	}
	check_ok(CK_MONOTONIC);
	m->have = true;
	m->last = *r;
}

static void check_faults_add_up(const struct reading *r, const char *who)
{
	check(r->pmc[C_FAULTS] == r->pmc[C_MINOR] + r->pmc[C_MAJOR], CK_FAULTS,
	      "%s: %llu page-faults, but %llu minor + %llu major",
	      who, (unsigned long long)r->pmc[C_FAULTS],
	      (unsigned long long)r->pmc[C_MINOR],
	      (unsigned long long)r->pmc[C_MAJOR]);
}

/*
 * Task-clock comes from the TSC, scaled at the rate the kernel measured
 * at boot, the wall time from CLOCK_MONOTONIC: 2% and 2 ms of slack
 * cover the two clocks' disagreement and when each was read.  A thread
 * runs on one CPU at a time, a process tree on @cpus.
 */
static void check_task_clock(__u64 task_clock, __u64 wall,
			     unsigned int cpus, const char *who)
{
	__u64 bound = wall * cpus + wall * cpus / 50 + 2000000;

	check(task_clock <= bound, CK_TASK_CLOCK,
	      "%s: task-clock %llu ns in %llu ns of wall time on %u CPU(s)",
	      who, (unsigned long long)task_clock, (unsigned long long)wall, cpus);
}

/* The checks that apply to any reading of a counting state. */
static void check_reading(struct mono *m, const struct reading *r,
			  __u64 since, unsigned int cpus, const char *who)
{
	check_monotonic(m, r, who);
	check_faults_add_up(r, who);
	check_task_clock(r->pmc[C_TASK_CLOCK], now_ns() - since, cpus, who);
}

static void call_failed(const char *what)
{
	check_fail(CK_CALLS, "%s failed: %s", what, strerror(errno));
}

/* --- Work and helpers ---------------------------------------------------- */

/*
 * Write to @n fresh pages: at least @n page faults, in user mode.  Huge
 * pages are refused, or one fault could map 512 pages.  Return: the
 * pages touched.
 */
static size_t touch_pages(size_t n)
{
	size_t i, size = page_size();
	char *p;

	if (!n)
		return 0;
	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	madvise(p, n * size, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		WRITE_ONCE(p[i * size], 1);
	munmap(p, n * size);
	return n;
}

static void spin_ns(__u64 ns)
{
	__u64 end = now_ns() + ns;

	while (now_ns() < end)
		continue;
}

/* One CPU or all of them, for @pid (0: the caller). */
static void flip_affinity(pid_t pid, struct prng *rng)
{
	cpu_set_t set;
	unsigned int pick = prng_below(rng, ncpus + 1);

	CPU_ZERO(&set);
	if (pick == ncpus) {
		unsigned int i;

		for (i = 0; i < ncpus; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(pick, &set);
	}
	if (sched_setaffinity(pid, sizeof(set), &set) && errno != ESRCH)
		call_failed("sched_setaffinity");
}

/* TSC, task-clock, and page, minor and major faults in user mode. */
static void counting_control(struct vperfctr_control *c)
{
	memset(c, 0, sizeof(*c));
	c->cpu_control.tsc_on = 1;
	c->cpu_control.nractrs = NR_C;
	c->cpu_control.pmc_map[C_TASK_CLOCK] = TASK_CLOCK_MAP;
	c->cpu_control.pmc_map[C_FAULTS] = SW_EVENT(PAGE_FAULTS);
	c->cpu_control.pmc_map[C_MINOR] = SW_EVENT(MINOR_FAULTS);
	c->cpu_control.pmc_map[C_MAJOR] = SW_EVENT(MAJOR_FAULTS);
	c->cpu_control.evntsel[C_FAULTS] = PERFCTR_SW_USR;
	c->cpu_control.evntsel[C_MINOR] = PERFCTR_SW_USR;
	c->cpu_control.evntsel[C_MAJOR] = PERFCTR_SW_USR;
}

/* A new state counting with the counting control: its fd, or -1. */
static int start_counting(__u64 *since)
{
	struct vperfctr_control c;
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0) {
		call_failed("vperfctr_open(0, 1)");
		return -1;
	}
	counting_control(&c);
	*since = now_ns();
	if (sys_vperfctr_control(fd, &c)) {
		call_failed("vperfctr_control");
		close(fd);
		return -1;
	}
	return fd;
}

/* The own sums and children sums, or false. */
static bool read_own(int fd, struct reading *self, struct reading *children)
{
	struct perfctr_sum_ctrs s, ch;

	if (sys_vperfctr_read(fd, &s, NULL, &ch)) {
		call_failed("vperfctr_read");
		return false;
	}
	reading_of_sums(self, &s);
	if (children)
		reading_of_sums(children, &ch);
	return true;
}

/* A page snapshot, retried for as long as the page keeps changing. */
static bool snap_page(const struct vperfctr_state *page, struct reading *r,
		      __u32 *flags, __u64 deadline)
{
	struct page_snap s;

	while (!page_read(page, &s, 1000)) {
		if (now_ns() > deadline)
			return false;
		sched_yield();
	}
	reading_of_snap(r, &s);
	if (flags)
		*flags = s.flags;
	return true;
}

static pid_t fork_flushed(void)
{
	fflush(stdout);
	return fork();
}

/* Reap @pid; a child that failed has said why. */
static void reap_checked(pid_t pid, const char *who)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		call_failed("waitpid");
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		check_fail(CK_SCENARIOS, "%s %d ended with status %#x", who,
			   (int)pid, status);
}

/* --- forktree ------------------------------------------------------------ */

/*
 * A child: touch @n pages, fork @g grandchildren that touch @m each, reap
 * them, and check its own sums and children sums against that.  Its
 * task-clock runs from its first switch-in, before it returns from fork:
 * its wall time runs from @start, taken in its parent before the fork.
 */
static void forktree_child(int fd, size_t n, unsigned int g, size_t m,
			   __u64 start)
{
	struct reading self, children;
	struct mono mono = { 0 };
	size_t touched = 0;
	unsigned int i;

	/* The fd is the parent's state: the child's own is opened anew. */
	close(fd);
	fd = sys_vperfctr_open(0, 0);
	if (fd < 0) {
		call_failed("vperfctr_open(0, 0) in an inheriting child");
		_exit(1);
	}
	n = touch_pages(n);
	for (i = 0; i < g; i++) {
		pid_t pid = fork_flushed();

		if (pid == 0) {
			touch_pages(m);
			_exit(0);
		}
		if (pid > 0) {
			reap_checked(pid, "grandchild");
			touched += m;
		}
	}
	if (!read_own(fd, &self, &children))
		_exit(1);
	check(self.pmc[C_FAULTS] >= n, CK_CONSERVATION,
	      "forktree child: %llu page faults after touching %zu pages",
	      (unsigned long long)self.pmc[C_FAULTS], n);
	check(children.pmc[C_FAULTS] >= touched, CK_CONSERVATION,
	      "forktree child: children's %llu page faults after they touched %zu pages",
	      (unsigned long long)children.pmc[C_FAULTS], touched);
	check_reading(&mono, &self, start, 1, "forktree child");
	check_faults_add_up(&children, "forktree child's children");
	check_task_clock(children.pmc[C_TASK_CLOCK], now_ns() - start, ncpus,
			 "forktree child's children");
	_exit(0);
}

static void scenario_forktree(struct prng *rng, __u64 deadline)
{
	struct mono self_mono = { 0 }, children_mono = { 0 };
	const struct vperfctr_state *page;
	__u64 since, touched = 0;
	int fd = start_counting(&since);

	if (fd < 0)
		return;
	page = map_state(fd);
	if (!page)
		call_failed("mmap of the state page");
	while (now_ns() < deadline) {
		unsigned int k = 1 + prng_below(rng, 4), i;
		struct reading self, children;
		pid_t pids[4];

		for (i = 0; i < k; i++) {
			size_t n = 16 + prng_below(rng, 240), m = 8 + prng_below(rng, 64);
			unsigned int g = prng_below(rng, 3);
			__u64 forked = now_ns();

			pids[i] = fork_flushed();
			if (pids[i] == 0)
				forktree_child(fd, n, g, m, forked);
			if (pids[i] < 0) {
				call_failed("fork");
				k = i;
				break;
			}
			touched += n + g * m;
		}
		for (i = 0; i < k; i++)
			reap_checked(pids[i], "forktree child");
		/* Its counts are propagated before its parent learns it exited. */
		if (!read_own(fd, &self, &children))
			break;
		check(children.pmc[C_FAULTS] >= touched, CK_CONSERVATION,
		      "forktree: children's %llu page faults after they touched %llu pages",
		      (unsigned long long)children.pmc[C_FAULTS],
		      (unsigned long long)touched);
		check_reading(&self_mono, &self, since, 1, "forktree (vperfctr_read)");
		check_reading(&children_mono, &children, since, ncpus,
			      "forktree children");
		if (page && snap_page(page, &self, NULL, deadline))
			check_reading(&self_mono, &self, since, 1, "forktree (page)");
		if (prng_chance(rng, 1, 4))
			flip_affinity(0, rng);
	}
	close(fd);
}

/* --- threads ---------------------------------------------------------------- */

#define MAX_WORKERS	4

/* A worker thread's state, handed to the readers once it has worked. */
struct slot {
	int fd;			/* -1: free */
	size_t touched;		/* pages the worker touched */
	const struct vperfctr_state *page;
	struct mono mono;
	bool final;		/* read after the worker was reaped */
};

static struct {
	pthread_mutex_t lock;
	struct slot slots[MAX_WORKERS];
	__u64 deadline;
	bool stop;
} tshared = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct worker_arg {
	struct slot *slot;
	size_t n;
};

static void *worker_main(void *p)
{
	struct worker_arg *a = p;
	int fd;

	a->n = touch_pages(a->n);
	/* The state it inherited from the thread that created it. */
	fd = sys_vperfctr_open(0, 0);
	if (fd < 0)
		call_failed("vperfctr_open(0, 0) in an inheriting thread");
	pthread_mutex_lock(&tshared.lock);
	a->slot->touched = a->n;
	a->slot->fd = fd;
	pthread_mutex_unlock(&tshared.lock);
	return NULL;
}

/*
 * Read a worker's state: from the page while it lives, and with
 * vperfctr_read, which fails with EPERM until the worker is reaped and
 * then gives its final sums, at least what every snapshot showed.
 */
static void read_slot(struct slot *s)
{
	struct perfctr_sum_ctrs sum;
	struct reading r;
	__u32 flags = 0;

	if (!s->page) {
		s->page = map_state(s->fd);
		if (!s->page) {
			call_failed("mmap of a thread's state page");
			return;
		}
	}
	if (snap_page(s->page, &r, &flags, tshared.deadline + 1000000000ull)) {
		check_monotonic(&s->mono, &r, "threads: a reader's fast read");
		check_faults_add_up(&r, "threads: a reader's fast read");
	}
	if (sys_vperfctr_read(s->fd, &sum, NULL, NULL)) {
		check(errno == EPERM, CK_CALLS,
		      "vperfctr_read of a running thread's state failed with %s, not EPERM",
		      strerror(errno));
		return;
	}
	reading_of_sums(&r, &sum);
	if (!(flags & VPERFCTR_STATE_DETACHED))
		return;		/* read while it was exiting: not final yet */
	check_monotonic(&s->mono, &r, "threads: final sums after the fast reads");
	check(r.pmc[C_FAULTS] >= s->touched, CK_CONSERVATION,
	      "threads: a thread's %llu page faults after it touched %zu pages",
	      (unsigned long long)r.pmc[C_FAULTS], s->touched);
	s->final = true;
}

static void *reader_main(void *p)
{
	unsigned int i;

	(void)p;
	while (!READ_ONCE(tshared.stop)) {
		for (i = 0; i < MAX_WORKERS; i++) {
			struct slot *s = &tshared.slots[i];

			pthread_mutex_lock(&tshared.lock);
			if (s->fd >= 0 && !s->final)
				read_slot(s);
			pthread_mutex_unlock(&tshared.lock);
		}
		sched_yield();
	}
	return NULL;
}

static void free_slot(struct slot *s)
{
	unmap_state(s->page);
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* Wait, a bounded time, until the readers have seen every worker's end. */
static void wait_final(unsigned int k)
{
	__u64 give_up = now_ns() + 5000000000ull;
	unsigned int i, done;

	do {
		usleep(1000);
		pthread_mutex_lock(&tshared.lock);
		for (i = done = 0; i < k; i++)
			done += tshared.slots[i].final || tshared.slots[i].fd < 0;
		pthread_mutex_unlock(&tshared.lock);
	} while (done < k && now_ns() < give_up);
	check(done == k, CK_CONSERVATION,
	      "threads: %u of %u exited threads' states not detached after 5 s",
	      k - done, k);
}

/*
 * The creator's children sums reach what its threads did once they are
 * reaped, which is after pthread_join() returns: wait for it, boundedly.
 */
static void check_thread_children(int fd, __u64 touched, __u64 since,
				  struct mono *mono)
{
	__u64 give_up = now_ns() + 5000000000ull;
	struct reading self, children;

	for (;;) {
		if (!read_own(fd, &self, &children))
			return;
		if (children.pmc[C_FAULTS] >= touched || now_ns() > give_up)
			break;
		usleep(1000);
	}
	check(children.pmc[C_FAULTS] >= touched, CK_CONSERVATION,
	      "threads: children's %llu page faults after exited threads touched %llu pages",
	      (unsigned long long)children.pmc[C_FAULTS],
	      (unsigned long long)touched);
	check_reading(mono, &children, since, ncpus, "threads: children");
	check_faults_add_up(&self, "threads: self");
}

static void scenario_threads(struct prng *rng, __u64 deadline)
{
	struct mono children_mono = { 0 };
	pthread_t readers[2], workers[MAX_WORKERS];
	struct worker_arg args[MAX_WORKERS];
	__u64 since, touched = 0;
	unsigned int i;
	int fd = start_counting(&since);

	if (fd < 0)
		return;
	tshared.deadline = deadline;
	for (i = 0; i < MAX_WORKERS; i++)
		tshared.slots[i].fd = -1;
	for (i = 0; i < ARRAY_SIZE(readers); i++)
		pthread_create(&readers[i], NULL, reader_main, NULL);
	while (now_ns() < deadline) {
		unsigned int k = 1 + prng_below(rng, MAX_WORKERS);

		for (i = 0; i < k; i++) {
			args[i].slot = &tshared.slots[i];
			args[i].n = 8 + prng_below(rng, 128);
			if (pthread_create(&workers[i], NULL, worker_main, &args[i])) {
				call_failed("pthread_create");
				k = i;
				break;
			}
		}
		for (i = 0; i < k; i++) {
			pthread_join(workers[i], NULL);
			touched += args[i].n;
		}
		wait_final(k);
		check_thread_children(fd, touched, since, &children_mono);
		pthread_mutex_lock(&tshared.lock);
		for (i = 0; i < MAX_WORKERS; i++)
			free_slot(&tshared.slots[i]);
		pthread_mutex_unlock(&tshared.lock);
	}
	WRITE_ONCE(tshared.stop, true);
	for (i = 0; i < ARRAY_SIZE(readers); i++)
		pthread_join(readers[i], NULL);
	close(fd);
}

/* --- remote ---------------------------------------------------------------- */

/*
 * The target: counts, works, forks and moves between CPUs until the
 * deadline.  It tells the tracer when its control was set.
 */
static void remote_target(struct prng *rng, __u64 deadline, int tell)
{
	__u64 since;
	int fd = start_counting(&since);

	if (fd < 0 || write(tell, &since, sizeof(since)) != sizeof(since))
		_exit(1);
	close(tell);
	while (now_ns() < deadline) {
		touch_pages(prng_below(rng, 32));
		spin_ns(prng_below(rng, 2000000));
		if (prng_chance(rng, 1, 8)) {
			size_t n = 8 + prng_below(rng, 64);
			pid_t pid = fork_flushed();

			if (pid == 0) {
				touch_pages(n);
				_exit(0);
			}
			if (pid > 0)
				reap_checked(pid, "remote target's child");
		}
		if (prng_chance(rng, 1, 8))
			flip_affinity(0, rng);
		if (prng_chance(rng, 1, 4))
			usleep(prng_below(rng, 2000));
	}
	_exit(0);
}

/*
 * Stop the seized target: PTRACE_INTERRUPT, then wait for its interrupt
 * stop, passing on the signals it gets meanwhile.  Return: true if it
 * stopped; false if it is gone, then reaped, or waitpid failed.
 */
static bool remote_stop(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL)) {
		call_failed("PTRACE_INTERRUPT");
		return false;
	}
	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid) {
			call_failed("waitpid on the tracee");
			return false;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			check(WIFEXITED(status) && !WEXITSTATUS(status), CK_SCENARIOS,
			      "remote target ended with status %#x", status);
			return false;
		}
		if (status >> 16 == PTRACE_EVENT_STOP)
			return true;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(status));
	}
}

/*
 * One visit to the stopped target: read its state twice (a stopped
 * thread's sums do not move), sometimes set its control again keeping
 * the sums, sometimes try vperfctr_iresume with nothing pending.
 */
static void remote_visit(struct prng *rng, pid_t pid, __u64 since,
			 __u64 *children_since, struct mono *self_mono,
			 struct mono *children_mono)
{
	struct reading self, again, children, unused;
	struct vperfctr_control c;
	int fd = sys_vperfctr_open(pid, 0);

	if (fd < 0) {
		call_failed("vperfctr_open of a stopped tracee");
		return;
	}
	if (!read_own(fd, &self, &children) || !read_own(fd, &again, &unused))
		goto out;
	check_reading(self_mono, &self, since, 1, "remote: the tracee");
	check_reading(children_mono, &children, *children_since, ncpus,
		      "remote: the tracee's children");
	check(!memcmp(&self, &again, sizeof(self)), CK_MONOTONIC,
	      "remote: a stopped tracee's sums moved between two reads");
	if (prng_chance(rng, 1, 4)) {
		/* The sums are kept; the children sums restart. */
		counting_control(&c);
		c.preserve = (1u << NR_C) - 1;
		*children_since = now_ns();
		if (sys_vperfctr_control(fd, &c)) {
			call_failed("vperfctr_control of a stopped tracee");
		} else if (read_own(fd, &again, &children)) {
			check(!memcmp(&self, &again, sizeof(self)), CK_MONOTONIC,
			      "remote: a control that preserves every sum changed them");
			children_mono->have = false;
		}
	}
	if (prng_chance(rng, 1, 8)) {
		int ret = sys_vperfctr_iresume(fd);

		check(ret == -1 && errno == EINVAL, CK_CALLS,
		      "remote: vperfctr_iresume with no i-mode counter gave %d (%s), not EINVAL",
		      ret, strerror(errno));
	}
out:
	close(fd);
}

static void scenario_remote(struct prng *rng, __u64 deadline)
{
	struct mono self_mono = { 0 }, children_mono = { 0 };
	__u64 since, children_since, target_seed = prng_fork(rng);
	int tell[2];
	pid_t pid;

	if (pipe(tell)) {
		call_failed("pipe");
		return;
	}
	pid = fork_flushed();
	if (pid == 0) {
		struct prng trng;

		close(tell[0]);
		prng_seed(&trng, target_seed);
		remote_target(&trng, deadline, tell[1]);
	}
	close(tell[1]);
	if (pid < 0 || read(tell[0], &since, sizeof(since)) != sizeof(since)) {
		call_failed("starting the remote target");
		return;
	}
	close(tell[0]);
	children_since = since;
	/* Stop before the target's deadline: it must be running to exit. */
	while (now_ns() + 100000000 < deadline) {
		if (ptrace(PTRACE_SEIZE, pid, NULL, NULL)) {
			call_failed("PTRACE_SEIZE");
			break;
		}
		if (!remote_stop(pid))
			return;
		remote_visit(rng, pid, since, &children_since, &self_mono,
			     &children_mono);
		if (ptrace(PTRACE_DETACH, pid, NULL, NULL))
			call_failed("PTRACE_DETACH");
		usleep(prng_below(rng, 3000));
	}
	reap_checked(pid, "remote target");
}

/* --- monitor ----------------------------------------------------------------- */

/* Pass @fd and @since over the socket @sock. */
static bool send_state(int sock, int fd, __u64 since)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &since, .iov_len = sizeof(since) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(since);
}

static int recv_state(int sock, __u64 *since)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = since, .iov_len = sizeof(*since) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != sizeof(*since))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void exec_self(const char *mode, __u64 seed, __u64 deadline,
		      __u64 since)
{
	char fd_arg[16], seed_arg[24], deadline_arg[24], since_arg[24];

	snprintf(fd_arg, sizeof(fd_arg), "%d", report_fd);
	snprintf(seed_arg, sizeof(seed_arg), "%llu", (unsigned long long)seed);
	snprintf(deadline_arg, sizeof(deadline_arg), "%llu", (unsigned long long)deadline);
	snprintf(since_arg, sizeof(since_arg), "%llu", (unsigned long long)since);
	fflush(stdout);
	execl("/proc/self/exe", "vperfctr_stress", mode, fd_arg, seed_arg,
	      deadline_arg, since_arg, (char *)NULL);
	call_failed("exec of /proc/self/exe");
}

/*
 * The monitored owner: switches (sleeps and yields), touches pages,
 * forks, and now and then replaces itself with a new image of this
 * program, which carries on with the same state.
 */
static void owner_loop(__u64 seed, __u64 deadline, __u64 since)
{
	struct prng rng;

	prng_seed(&rng, seed);
	while (now_ns() < deadline) {
		touch_pages(prng_below(&rng, 16));
		spin_ns(prng_below(&rng, 500000));
		switch (prng_below(&rng, 8)) {
		case 0:
			usleep(prng_below(&rng, 1000));
			break;
		case 1:
			sched_yield();
			break;
		case 2: {
			pid_t pid = fork_flushed();

			if (pid == 0) {
				touch_pages(prng_below(&rng, 32));
				_exit(0);
			}
			if (pid > 0)
				reap_checked(pid, "monitored owner's child");
			break;
		}
		case 3:
			if (prng_chance(&rng, 1, 8))
				exec_self("--exec-owner", prng_fork(&rng), deadline, since);
			break;
		default:
			break;
		}
	}
	_exit(0);
}

/* The owner's new image: the state and its control survived the exec. */
static void owner_after_exec(__u64 seed, __u64 deadline, __u64 since)
{
	struct vperfctr_control want, got;
	int fd = sys_vperfctr_open(0, 0);

	counting_control(&want);
	if (fd < 0)
		call_failed("vperfctr_open(0, 0) after exec");
	else if (sys_vperfctr_read(fd, NULL, &got, NULL))
		call_failed("vperfctr_read after exec");
	else
		check(!memcmp(&want, &got, sizeof(got)), CK_CALLS,
		      "monitor: the control changed across exec");
	if (fd >= 0)
		close(fd);
	owner_loop(seed, deadline, since);
}

struct monitor {
	const struct vperfctr_state *page;
	__u64 since, deadline;
	bool nap;			/* sleeps between reads, or spins */
	struct mono mono;
	unsigned long reads;
};

static void *monitor_main(void *p)
{
	struct monitor *m = p;
	struct reading r;
	__u32 flags;

	while (now_ns() < m->deadline) {
		if (!snap_page(m->page, &r, &flags, m->deadline))
			break;
		check_reading(&m->mono, &r, m->since, 1, "monitor: a fast read of another process");
		m->reads++;
		if (flags & VPERFCTR_STATE_DETACHED)
			break;
		if (m->nap)
			usleep(100);
	}
	return NULL;
}

struct flipper {
	pid_t pid;
	__u64 seed, deadline;
};

static void *flipper_main(void *p)
{
	struct flipper *f = p;
	struct prng rng;

	prng_seed(&rng, f->seed);
	while (now_ns() < f->deadline) {
		flip_affinity(f->pid, &rng);
		usleep(1000 + prng_below(&rng, 5000));
	}
	return NULL;
}

static void scenario_monitor(struct prng *rng, __u64 deadline)
{
	struct monitor mons[2];
	struct flipper flip = { .seed = prng_fork(rng), .deadline = deadline };
	pthread_t threads[3];
	struct reading final;
	__u64 owner_seed = prng_fork(rng), since;
	const struct vperfctr_state *page;
	unsigned int i;
	int sock[2], fd;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock)) {
		call_failed("socketpair");
		return;
	}
	pid = fork_flushed();
	if (pid == 0) {
		close(sock[0]);
		fd = start_counting(&since);
		if (fd < 0 || !send_state(sock[1], fd, since))
			_exit(1);
		close(sock[1]);
		close(fd);
		owner_loop(owner_seed, deadline, since);
	}
	close(sock[1]);
	fd = pid > 0 ? recv_state(sock[0], &since) : -1;
	close(sock[0]);
	page = fd >= 0 ? map_state(fd) : NULL;
	if (!page) {
		call_failed("getting the monitored state");
		if (pid > 0)
			reap_checked(pid, "monitored owner");
		return;
	}
	flip.pid = pid;
	for (i = 0; i < ARRAY_SIZE(mons); i++) {
		mons[i] = (struct monitor){
			.page = page, .since = since,
			.deadline = deadline + 2000000000ull, .nap = i,
		};
		pthread_create(&threads[i], NULL, monitor_main, &mons[i]);
	}
	pthread_create(&threads[2], NULL, flipper_main, &flip);
	reap_checked(pid, "monitored owner");
	for (i = 0; i < ARRAY_SIZE(threads); i++)
		pthread_join(threads[i], NULL);
	/* Reaped: the state is detached and its sums final. */
	if (read_own(fd, &final, NULL))
		for (i = 0; i < ARRAY_SIZE(mons); i++)
			check_monotonic(&mons[i].mono, &final,
					"monitor: the final sums after the fast reads");
	check(mons[0].reads && mons[1].reads, CK_MONOTONIC,
	      "monitor: the monitors read nothing");
	close(fd);
}

/* --- imode ------------------------------------------------------------------- */

/*
 * Counters 0 and 1 count task-clock and page faults in a-mode, 2 and 3
 * the same in i-mode: 2 overflows every IMODE_TC_NS of task-clock, 3
 * every IMODE_PF faults.  Any overflow stops them all until
 * vperfctr_iresume, which starts both i-mode counters a new period.
 */
#define IMODE_TC_NS	200000
#define IMODE_PF	32
/*
 * A counter that went this far since its restart without an overflow is
 * dead.  Page-fault overflows are found at the fault itself.  Task-clock
 * ones are found by a timer, which an emulator on a busy host fires some
 * milliseconds late now and then, while the owner runs on: 125 periods
 * is far beyond that.  Page faults restart both counters (any overflow
 * does), so the loop looks after a stretch of task-clock without faults
 * twice that long.
 */
#define IMODE_TC_DEAD_NS	(125 * IMODE_TC_NS)
#define IMODE_SPIN_NS		(2 * IMODE_TC_DEAD_NS)
#define IMODE_PF_DEAD		(IMODE_PF + 1)

static int imode_signal(void)
{
	return SIGRTMIN + 1;
}

static struct {
	int fd;
	const struct vperfctr_state *page;
	/* a-mode task-clock and faults at the last overflow handled */
	__u64 tc_mark, pf_mark;
	unsigned long signals[2];
	int bad_code, bad_mask, bad_errno;
} im;

/* The a-mode counts now, straight from the page (async-signal-safe). */
static bool imode_counts(__u64 *tc, __u64 *pf)
{
	struct page_snap s;

	if (!im.page || !page_read(im.page, &s, 1000000))
		return false;
	*tc = s.pmc[0];
	*pf = s.pmc[1];
	return true;
}

static void imode_handler(int sig, siginfo_t *si, void *uc)
{
	__u32 mask = (__u32)si->si_int;
	int saved = errno;
	__u64 tc, pf;

	(void)sig;
	(void)uc;
	if (si->si_code != SI_PMC_OVF || !mask || (mask & ~0xcu)) {
		WRITE_ONCE(im.bad_code, si->si_code);
		WRITE_ONCE(im.bad_mask, mask);
	}
	if (mask & 0x4)
		add_once(im.signals[0], 1);
	if (mask & 0x8)
		add_once(im.signals[1], 1);
	/* Stopped by the overflow: the marks are where the new periods start. */
	if (imode_counts(&tc, &pf)) {
		WRITE_ONCE(im.tc_mark, tc);
		WRITE_ONCE(im.pf_mark, pf);
	}
	/* EINVAL: a vperfctr_iresume of the main loop restarted it first. */
	if (sys_vperfctr_iresume(im.fd) && errno != EINVAL)
		WRITE_ONCE(im.bad_errno, errno);
	errno = saved;
}

static void imode_control(struct vperfctr_control *c)
{
	memset(c, 0, sizeof(*c));
	c->si_signo = imode_signal();
	c->cpu_control.tsc_on = 1;
	c->cpu_control.nractrs = 2;
	c->cpu_control.nrictrs = 2;
	c->cpu_control.pmc_map[0] = TASK_CLOCK_MAP;
	c->cpu_control.pmc_map[1] = SW_EVENT(PAGE_FAULTS);
	c->cpu_control.evntsel[1] = PERFCTR_SW_USR;
	c->cpu_control.pmc_map[2] = TASK_CLOCK_MAP;
	c->cpu_control.ireset[2] = -IMODE_TC_NS;
	c->cpu_control.pmc_map[3] = SW_EVENT(PAGE_FAULTS);
	c->cpu_control.evntsel[3] = PERFCTR_SW_USR;
	c->cpu_control.ireset[3] = -IMODE_PF;
}

static void imode_block(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, imode_signal());
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/*
 * Take over the state this thread has (@creat: a new one, with the
 * control), its signal blocked until the handler and the marks are in
 * place.
 */
static bool imode_attach(bool creat)
{
	struct sigaction sa;
	struct vperfctr_control c;
	__u64 tc, pf;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = imode_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(imode_signal(), &sa, NULL);
	unmap_state(im.page);
	im.page = NULL;
	im.fd = sys_vperfctr_open(0, creat);
	if (im.fd < 0) {
		call_failed(creat ? "vperfctr_open(0, 1)" : "vperfctr_open(0, 0) in imode");
		return false;
	}
	imode_control(&c);
	if (creat && sys_vperfctr_control(im.fd, &c)) {
		call_failed("vperfctr_control with i-mode counters");
		return false;
	}
	im.page = map_state(im.fd);
	if (!im.page || !imode_counts(&tc, &pf)) {
		call_failed("mmap of the i-mode state page");
		return false;
	}
	WRITE_ONCE(im.tc_mark, tc);
	WRITE_ONCE(im.pf_mark, pf);
	imode_block(false);
	return true;
}

/* What the handler could not report itself. */
static void imode_report_handler(void)
{
	int code = READ_ONCE(im.bad_code), mask = READ_ONCE(im.bad_mask);
	int err = READ_ONCE(im.bad_errno);

	if (code || mask) {
		check_fail(CK_SIGNALS, "imode: a signal with si_code %d, mask %#x",
			   code, (unsigned int)mask);
		WRITE_ONCE(im.bad_code, 0);
		WRITE_ONCE(im.bad_mask, 0);
	}
	if (err) {
		errno = err;
		call_failed("imode: vperfctr_iresume in the handler");
		WRITE_ONCE(im.bad_errno, 0);
	}
}

/*
 * A timer that fires late still fires: a busy host can hold an
 * emulator's timers up for tens of milliseconds while the owner's
 * task-clock runs on.  Before a task-clock counter is called dead, the
 * owner spins for up to this much more task-clock for its overflow.
 */
#define IMODE_TC_LATE_NS	1000000000ull

/*
 * Did an overflow come at last, since the one that set @tc_mark?  A page
 * that cannot be read says nothing: the next check looks again.
 */
static bool imode_tc_overflow_came(__u64 tc_mark)
{
	__u64 tc, pf;

	while (READ_ONCE(im.tc_mark) == tc_mark) {
		if (!imode_counts(&tc, &pf))
			return true;
		if (tc - tc_mark > IMODE_TC_DEAD_NS + IMODE_TC_LATE_NS)
			return false;
		spin_ns(100000);
	}
	return true;
}

/*
 * Each i-mode counter must overflow within a period of its a-mode twin
 * since the last restart, give or take the timer's lateness.  A dead one
 * is reported once, then given a new start.
 */
static void imode_check_alive(const char *who)
{
	__u64 tc, pf, tc_mark = READ_ONCE(im.tc_mark), pf_mark = READ_ONCE(im.pf_mark);

	if (!imode_counts(&tc, &pf))
		return;
	if (tc > tc_mark && tc - tc_mark > IMODE_TC_DEAD_NS &&
	    !imode_tc_overflow_came(tc_mark)) {
		check_fail(CK_SIGNALS,
			   "%s: task-clock, period %d: %llu ns, no overflow (%lu so far)",
			   who, IMODE_TC_NS, (unsigned long long)(tc - tc_mark),
			   READ_ONCE(im.signals[0]));
		WRITE_ONCE(im.tc_mark, tc);
	} else if (pf > pf_mark && pf - pf_mark > IMODE_PF_DEAD) {
		check_fail(CK_SIGNALS, "%s: page faults, period %d: %llu, no overflow",
			   who, IMODE_PF, (unsigned long long)(pf - pf_mark));
		WRITE_ONCE(im.pf_mark, pf);
	} else {
		check_ok(CK_SIGNALS);
	}
}

/*
 * vperfctr_iresume again and again for @ns, while the counters run: with
 * nothing pending it fails with EINVAL and changes nothing, even when a
 * counter reaches its overflow during the call.  Calls that close
 * together catch that moment in a few periods.
 */
static void imode_iresume_burst(__u64 ns)
{
	__u64 end = now_ns() + ns;
	int ret;

	do {
		ret = sys_vperfctr_iresume(im.fd);
		if (ret && errno != EINVAL) {
			call_failed("imode: vperfctr_iresume while running");
			return;
		}
	} while (now_ns() < end);
	check_ok(CK_CALLS);
}

static void imode_loop(struct prng *rng, __u64 deadline, __u64 since,
		       bool may_fork, const char *who);

/*
 * Spin, touching no new page, until the a-mode task-clock has grown by
 * @ns, or, on a machine too busy to give us that, @ns x 50 of wall time
 * has passed.
 */
static void imode_spin(__u64 ns)
{
	__u64 start, tc, pf, give_up = now_ns() + 50 * ns;

	if (!imode_counts(&start, &pf))
		return;
	do {
		spin_ns(100000);
		if (!imode_counts(&tc, &pf))
			return;
	} while (tc - start < ns && now_ns() < give_up);
}

/* A child inherits the i-mode control: it takes over a state of its own. */
static void imode_fork(struct prng *rng, __u64 since)
{
	__u64 child_seed = prng_fork(rng);
	pid_t pid;

	imode_block(true);
	pid = fork_flushed();
	if (pid == 0) {
		struct prng crng;

		prng_seed(&crng, child_seed);
		WRITE_ONCE(im.signals[0], 0);
		WRITE_ONCE(im.signals[1], 0);
		if (!imode_attach(false))
			_exit(1);
		imode_loop(&crng, now_ns() + 200000000ull, since, false,
			   "imode child");
		_exit(0);
	}
	imode_block(false);
	if (pid < 0)
		call_failed("fork");
	else
		reap_checked(pid, "imode child");
}

static void imode_loop(struct prng *rng, __u64 deadline, __u64 since,
		       bool may_fork, const char *who)
{
	while (now_ns() < deadline) {
		if (prng_chance(rng, 1, 2))
			imode_iresume_burst(200000 + prng_below(rng, 2000000));
		imode_spin(IMODE_SPIN_NS);
		imode_report_handler();
		imode_check_alive(who);
		touch_pages(prng_below(rng, 3 * IMODE_PF));
		imode_check_alive(who);
		if (prng_chance(rng, 1, 8))
			flip_affinity(0, rng);
		if (!may_fork)
			continue;
		if (prng_chance(rng, 1, 10))
			imode_fork(rng, since);
		if (prng_chance(rng, 1, 40)) {
			imode_block(true);	/* until the new image's handler is in */
			exec_self("--exec-imode", prng_fork(rng), deadline, since);
			imode_block(false);
		}
	}
}

static void scenario_imode(struct prng *rng, __u64 deadline)
{
	imode_block(true);
	if (!imode_attach(true))
		return;
	imode_loop(rng, deadline, now_ns(), true, "imode");
}

static void imode_after_exec(__u64 seed, __u64 deadline, __u64 since)
{
	struct prng rng;

	prng_seed(&rng, seed);
	if (!imode_attach(false))
		_exit(1);
	imode_loop(&rng, deadline, since, true, "imode after exec");
	_exit(0);
}

/* --- main ------------------------------------------------------------------ */

struct scenario {
	const char *name;
	void (*run)(struct prng *rng, __u64 deadline);
};

static const struct scenario scenarios[] = {
	{ "forktree", scenario_forktree },
	{ "threads", scenario_threads },
	{ "remote", scenario_remote },
	{ "monitor", scenario_monitor },
	{ "imode", scenario_imode },
};

/* The image a scenario exec'ed: "MODE REPORT_FD SEED DEADLINE SINCE". */
static int exec_main(int argc, char **argv)
{
	__u64 seed, deadline, since;

	if (argc != 6 || !report_attach(atoi(argv[2]), check_names))
		return 1;
	report_fd = atoi(argv[2]);
	seed = strtoull(argv[3], NULL, 0);
	deadline = strtoull(argv[4], NULL, 0);
	since = strtoull(argv[5], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "--exec-owner"))
		owner_after_exec(seed, deadline, since);
	else
		imode_after_exec(seed, deadline, since);
	return 0;
}

static pid_t start_scenario(const struct scenario *s, __u64 seed,
			    __u64 deadline, unsigned int seconds)
{
	pid_t pid = fork_flushed();

	if (pid == 0) {
		struct prng rng;

		alarm(seconds + GRACE_S);
		prng_seed(&rng, seed);
		s->run(&rng, deadline);
		_exit(0);
	}
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	return pid;
}

static void report_results(void)
{
	unsigned int i;

	for (i = 0; i < NR_CHECKS; i++) {
		ksft_print_msg("%s: %lu checks, %lu failed\n", check_names[i],
			       report->made[i], report->failed[i]);
		if (!report->made[i])
			ksft_test_result_skip("%s (never checked)\n", check_names[i]);
		else
			ksft_test_result(!report->failed[i], "%s\n", check_names[i]);
	}
	if (report->nmsgs)
		ksft_print_msg("%u violations; replay with -s %llu\n",
			       report->nmsgs, (unsigned long long)report->seed);
}

int main(int argc, char **argv)
{
	__u64 seed = now_ns() ^ ((__u64)getpid() << 32), deadline;
	unsigned int seconds = DEFAULT_SECONDS, i;
	pid_t pids[ARRAY_SIZE(scenarios)];
	const char *why;
	struct prng rng;
	int opt;

	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (argc > 1 && !strncmp(argv[1], "--exec-", 7))
		return exec_main(argc, argv);
	while ((opt = getopt(argc, argv, "s:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-t SECONDS]\n", argv[0]);
			return KSFT_FAIL;
		}
	}
	printf("# seed: %llu\n", (unsigned long long)seed);
	ksft_print_header();
	ksft_print_msg("vperfctr_stress -s %llu -t %u, %u CPUs\n",
		       (unsigned long long)seed, seconds, ncpus);
	why = perfctr_missing();
	if (why)
		ksft_exit_skip("%s\n", why);
	report_fd = report_create(check_names, seed);
	if (report_fd < 0)
		ksft_exit_fail_msg("cannot make the shared tally: %s\n", strerror(errno));
	ksft_set_plan(NR_CHECKS);
	prng_seed(&rng, seed);
	deadline = now_ns() + seconds * 1000000000ull;
	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		pids[i] = start_scenario(&scenarios[i], prng_fork(&rng), deadline,
					 seconds);
	for (i = 0; i < ARRAY_SIZE(scenarios); i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i])
			ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
		check(WIFEXITED(status) && !WEXITSTATUS(status), CK_SCENARIOS,
		      "scenario %s ended with status %#x", scenarios[i].name, status);
	}
	report_results();
	ksft_finished();
}
