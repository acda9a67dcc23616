/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_WATCH_H
#define PERFEX_WATCH_H

#include <signal.h>
#include <sys/types.h>

/* Why watch_run() returned. */
enum watch_end {
	WATCH_CHILD_EXITED,	/* the child exited; it is left to reap */
	WATCH_TARGET_ENDED,	/* the thread counted stopped counting */
	WATCH_INTERRUPTED,	/* SIGINT or SIGTERM, once caught */
};

struct watch {
	pid_t child;		/* wait for this child, or 0 */
	int (*ended)(void *arg);	/* has the thread counted ended? */
	void *ended_arg;
	int pidfd;		/* readable once it has, or -1 */
	unsigned int interval_ms;	/* call tick() this often; 0: never */
	void (*tick)(void *arg, unsigned long long elapsed_ns);
	void *tick_arg;
	unsigned long long start_ns;	/* when counting started */
};

/* What SIGINT and SIGTERM did before watch_catch_interrupts(). */
struct watch_interrupts {
	struct sigaction old_sigint, old_sigterm;
};

unsigned long long watch_now_ns(void);
void watch_catch_interrupts(struct watch_interrupts *saved);
void watch_release_interrupts(const struct watch_interrupts *saved);
int watch_interrupted(void);
int watch_run(const struct watch *watch, enum watch_end *end);

#endif /* PERFEX_WATCH_H */
