/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_LAUNCH_H
#define PERFEX_LAUNCH_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <libperfctr.h>

/* The steps of starting a command; a failure names the one that failed. */
enum launch_step {
	LAUNCH_SOCKET,
	LAUNCH_FORK,
	LAUNCH_OPEN,
	LAUNCH_CONTROL,
	LAUNCH_SEND,
	LAUNCH_RECEIVE,
	LAUNCH_ADOPT,
	LAUNCH_EXEC,
};

struct launch_failure {
	enum launch_step step;
	int err;
};

struct perfex_child {
	pid_t pid;
	struct vperfctr *counters;	/* the command's, kept after its exit */
	int fell_back;			/* counting with the fallback control */
	struct sigaction old_sigint, old_sigquit;
};

int perfex_launch(char *const command[],
		  const struct vperfctr_control *control,
		  const struct vperfctr_control *fallback,
		  struct perfex_child *child, struct launch_failure *failure);
int perfex_wait(struct perfex_child *child, int *wait_status,
		struct rusage *usage);
const char *launch_step_name(enum launch_step step);

#endif /* PERFEX_LAUNCH_H */
