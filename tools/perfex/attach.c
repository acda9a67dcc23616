// SPDX-License-Identifier: GPL-2.0
/*
 * Counting a thread that is already running (perfex -p).
 *
 * The kernel lets a thread act on another's counters only while that
 * thread is stopped under its ptrace control.  So perfex seizes the
 * thread, interrupts it, creates its counter state and starts it, and
 * lets it go at once: the counters count from then on, with the thread
 * untraced.  While it runs, its counters are read from the state page,
 * which needs no ptrace (the TSC and the software counters are all
 * there; vperfctr_read() would want the thread stopped again).
 *
 * At the end, either the thread has exited, and its page holds its
 * final sums (flag DEAD, set as it exits), or perfex was told to stop
 * (^C), and it stops the thread once more, reads its sums and those of
 * its children exactly, takes the counters off it (vperfctr_unlink) and
 * lets it go for good.  The children sums are not on the page: for a
 * thread that has exited they can be read only once it has been reaped
 * and its state detached, which its parent does in its own time; perfex
 * waits a little for that.
 *
 * A signal that arrives while the thread is stopped (a signal-delivery
 * stop) is handed back to it when it is let go, so it loses nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "attach.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* <linux/pidfd.h> of Linux 6.9 */
#endif

#define REAP_WAIT_NS	200000000ull	/* for the parent to reap it */
#define REAP_POLL_NS	10000000ull

static __u32 page_flags(const struct perfex_target *target)
{
	return __atomic_load_n(&target->page->flags, __ATOMIC_ACQUIRE);
}

/*
 * Seize thread @tid and wait until it stops.  @sig is set to the signal
 * it was stopped with on its way to it, to hand back when it is let go,
 * or 0.  Return: 0, or -1 with errno set (ESRCH if it exited first).
 */
static int stop_thread(int tid, int *sig, struct attach_failure *failure)
{
	int status;
	pid_t pid;

	*sig = 0;
	failure->step = ATTACH_SEIZE;
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return -1;
	failure->step = ATTACH_STOP;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
		int err = errno;

		ptrace(PTRACE_DETACH, tid, 0, 0);
		errno = err;
		return -1;
	}
	for (;;) {
		pid = waitpid(tid, &status, __WALL);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return -1;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			errno = ESRCH;
			return -1;
		}
		if (WIFSTOPPED(status)) {
			/* Not a stop of ours or a group stop: a signal. */
			if (status >> 16 != PTRACE_EVENT_STOP)
				*sig = WSTOPSIG(status);
			return 0;
		}
	}
}

static void let_go(int tid, int sig)
{
	ptrace(PTRACE_DETACH, tid, 0, sig);
}

static int map_page(struct perfex_target *target)
{
	long size = sysconf(_SC_PAGESIZE);
	void *page;

	page = mmap(NULL, size, PROT_READ, MAP_SHARED,
		    vperfctr_fd(target->counters), 0);
	if (page == MAP_FAILED)
		return -1;
	target->page = page;
	target->page_size = size;
	return 0;
}

/**
 * perfex_attach - start counting a running thread
 * @tid: the thread
 * @control: what to count
 * @fallback: what to count if the kernel refuses @control with EACCES,
 *            or NULL; target->fell_back says which one counts
 * @target: filled in on success
 * @failure: on failure, the step that failed and its errno
 *
 * The thread must have no counters yet (EEXIST at ATTACH_OPEN).
 * Return: 0 with the thread counting, or -1 with the thread as it was.
 */
int perfex_attach(int tid, const struct vperfctr_control *control,
		  const struct vperfctr_control *fallback,
		  struct perfex_target *target, struct attach_failure *failure)
{
	int sig, err;

	memset(target, 0, sizeof(*target));
	target->tid = tid;
	target->pidfd = -1;
	if (stop_thread(tid, &sig, failure) < 0)
		goto fail;

	failure->step = ATTACH_OPEN;
	target->counters = vperfctr_open_tid(tid, 1);
	if (!target->counters)
		goto let_go;
	failure->step = ATTACH_CONTROL;
	if (vperfctr_control(target->counters, control) < 0) {
		if (errno != EACCES || !fallback ||
		    vperfctr_control(target->counters, fallback) < 0)
			goto unlink;
		target->fell_back = 1;
	}
	failure->step = ATTACH_MAP;
	if (map_page(target) < 0)
		goto unlink;
	target->pidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	let_go(tid, sig);
	return 0;

unlink:
	err = errno;
	vperfctr_unlink(target->counters);
	vperfctr_close(target->counters);
	target->counters = NULL;
	errno = err;
let_go:
	err = errno;
	let_go(tid, sig);
	errno = err;
fail:
	failure->err = errno;
	return -1;
}

/**
 * perfex_target_ended - has the thread stopped counting?
 * @target: a struct perfex_target
 *
 * Return: 1 once it has exited, or its counters were taken off it (by
 * the exec of a set-user-ID program), else 0.
 */
int perfex_target_ended(void *target)
{
	return (page_flags(target) &
		(VPERFCTR_STATE_DEAD | VPERFCTR_STATE_DETACHED)) != 0;
}

static void sleep_ns(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };

	nanosleep(&ts, NULL);
}

/* Sums and children sums of the thread that has exited. */
static int read_ended(struct perfex_target *target,
		      struct perfctr_sum_ctrs *sum,
		      struct perfctr_sum_ctrs *children, int *children_known)
{
	unsigned long long waited;

	for (waited = 0; !(page_flags(target) & VPERFCTR_STATE_DETACHED) &&
	     waited < REAP_WAIT_NS; waited += REAP_POLL_NS)
		sleep_ns(REAP_POLL_NS);
	if ((page_flags(target) & VPERFCTR_STATE_DETACHED) &&
	    _vperfctr_read(vperfctr_fd(target->counters), sum, NULL,
			   children) == 0) {
		*children_known = 1;
		return 0;
	}
	/* Not reaped yet: what the page says, final but for the children. */
	*children_known = 0;
	memset(children, 0, sizeof(*children));
	return vperfctr_read_ctrs(target->counters, sum);
}

/**
 * perfex_target_finish - the final counts, and the thread let go
 * @target: from perfex_attach()
 * @sum: the thread's sums
 * @children: its children sums, if known, else zeros
 * @children_known: whether they are
 *
 * If the thread still runs, it is stopped, read, and its counters are
 * taken off it.  If that cannot be done (it is traced by another), its
 * sums are read from its page and it keeps its counters.
 *
 * Return: 0; 1 if the thread keeps its counters (errno says why); -1
 * with errno set if its sums cannot be read.
 */
int perfex_target_finish(struct perfex_target *target,
			 struct perfctr_sum_ctrs *sum,
			 struct perfctr_sum_ctrs *children,
			 int *children_known)
{
	struct attach_failure failure;
	int sig, err;

	if (perfex_target_ended(target))
		return read_ended(target, sum, children, children_known);
	if (stop_thread(target->tid, &sig, &failure) < 0) {
		if (errno == ESRCH)	/* it exited meanwhile */
			return read_ended(target, sum, children,
					  children_known);
		err = errno;
		*children_known = 0;
		memset(children, 0, sizeof(*children));
		if (vperfctr_read_ctrs(target->counters, sum) < 0)
			return -1;
		errno = err;
		return 1;
	}
	vperfctr_unlink(target->counters);
	let_go(target->tid, sig);
	/* Detached now: its sums are final, and anyone may read them. */
	if (_vperfctr_read(vperfctr_fd(target->counters), sum, NULL,
			   children) < 0)
		return -1;
	*children_known = 1;
	return 0;
}

void perfex_target_close(struct perfex_target *target)
{
	if (target->page)
		munmap((void *)target->page, target->page_size);
	if (target->pidfd >= 0)
		close(target->pidfd);
	vperfctr_close(target->counters);
	memset(target, 0, sizeof(*target));
	target->pidfd = -1;
}

const char *attach_step_name(enum attach_step step)
{
	switch (step) {
	case ATTACH_SEIZE:
		return "ptrace";
	case ATTACH_STOP:
		return "stopping it";
	case ATTACH_OPEN:
		return "vperfctr_open";
	case ATTACH_CONTROL:
		return "vperfctr_control";
	case ATTACH_MAP:
		return "mapping its state";
	}
	return "attaching";
}
