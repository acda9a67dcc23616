// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting while the counters count: for the command to exit, for the
 * thread counted with -p to end, or for ^C, printing the counts of each
 * interval of -I on the way.
 *
 * The signals that end the wait (SIGCHLD for the command, SIGINT and
 * SIGTERM when caught) are blocked but while ppoll() sleeps, so that
 * one arriving between a check and the sleep still wakes it.  A thread
 * that is not our child sends no SIGCHLD: its end is seen on a pidfd
 * (kernels from 6.9 have them for threads), or failing that by asking
 * ended() ten times a second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "watch.h"

#define POLL_NS		100000000ull	/* without a pidfd */
#define NS_PER_MS	1000000ull

static volatile sig_atomic_t interrupted;

static void note_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void note_child(int sig)
{
	(void)sig;
}

unsigned long long watch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/**
 * watch_catch_interrupts - let SIGINT and SIGTERM end watch_run()
 * @saved: what they did before, for watch_release_interrupts()
 *
 * One arriving before watch_run() ends it as soon as it starts.
 */
void watch_catch_interrupts(struct watch_interrupts *saved)
{
	struct sigaction catch = { .sa_handler = note_interrupt };

	interrupted = 0;
	sigemptyset(&catch.sa_mask);
	sigaction(SIGINT, &catch, &saved->old_sigint);
	sigaction(SIGTERM, &catch, &saved->old_sigterm);
}

void watch_release_interrupts(const struct watch_interrupts *saved)
{
	sigaction(SIGINT, &saved->old_sigint, NULL);
	sigaction(SIGTERM, &saved->old_sigterm, NULL);
}

/* Was SIGINT or SIGTERM caught since watch_catch_interrupts()? */
int watch_interrupted(void)
{
	return interrupted;
}

/* Has @pid exited?  It is left a zombie, for the caller to reap. */
static int child_exited(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR;	/* gone: nothing to wait for */
	return info.si_pid == pid;
}

static int check(const struct watch *watch, enum watch_end *end)
{
	if (watch->child && child_exited(watch->child))
		*end = WATCH_CHILD_EXITED;
	else if (watch->ended && watch->ended(watch->ended_arg))
		*end = WATCH_TARGET_ENDED;
	else if (interrupted)
		*end = WATCH_INTERRUPTED;
	else
		return 0;
	return 1;
}

/* How long to sleep at most, in ns; 0: until a signal or the pidfd. */
static unsigned long long sleep_ns(const struct watch *watch,
				   unsigned long long now,
				   unsigned long long next_tick)
{
	unsigned long long ns = 0;

	if (watch->interval_ms)
		ns = next_tick > now ? next_tick - now : 1;
	if (watch->ended && watch->pidfd < 0 && (!ns || ns > POLL_NS))
		ns = POLL_NS;
	return ns;
}

/**
 * watch_run - wait until the counting ends
 * @watch: what to wait for, and what to do every interval
 * @end: why it ended
 *
 * Intervals are counted from @watch->start_ns, and tick() is given the
 * time since then; an interval missed (a stopped perfex) is skipped.
 *
 * Return: 0, or -1 with errno set.
 */
int watch_run(const struct watch *watch, enum watch_end *end)
{
	struct sigaction child = { .sa_handler = note_child }, old_child;
	unsigned long long interval = watch->interval_ms * NS_PER_MS;
	unsigned long long next_tick = watch->start_ns + interval;
	unsigned long long now, ns;
	sigset_t block, old_mask, sleep_mask;
	struct pollfd pfd = { .fd = watch->pidfd, .events = POLLIN };
	struct timespec timeout;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sleep_mask = old_mask;
	sigdelset(&sleep_mask, SIGCHLD);
	sigdelset(&sleep_mask, SIGINT);
	sigdelset(&sleep_mask, SIGTERM);
	/* SIGCHLD's default is to be discarded: it must be caught to wake. */
	sigemptyset(&child.sa_mask);
	child.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &child, &old_child);

	while (!check(watch, end)) {
		now = watch_now_ns();
		if (interval && now >= next_tick) {
			watch->tick(watch->tick_arg, now - watch->start_ns);
			while (next_tick <= now)
				next_tick += interval;
			continue;
		}
		ns = sleep_ns(watch, now, next_tick);
		timeout.tv_sec = ns / 1000000000ull;
		timeout.tv_nsec = ns % 1000000000ull;
		if (ppoll(watch->pidfd >= 0 ? &pfd : NULL,
			  watch->pidfd >= 0 ? 1 : 0, ns ? &timeout : NULL,
			  &sleep_mask) < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		/* The thread has exited, whatever its page says yet. */
		if (watch->pidfd >= 0 && (pfd.revents & (POLLIN | POLLHUP))) {
			*end = WATCH_TARGET_ENDED;
			break;
		}
	}

	sigaction(SIGCHLD, &old_child, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return ret;
}
