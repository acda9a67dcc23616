// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's exit status, from real wait statuses of real children.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "status.h"
#include "tap.h"

static int wait_status_of_exit(int code)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0)
		_exit(code);
	waitpid(pid, &status, 0);
	return status;
}

static int wait_status_of_signal(int sig)
{
	pid_t pid = fork();
	int status = -1;

	if (pid == 0) {
		signal(sig, SIG_DFL);
		raise(sig);
		_exit(99);
	}
	waitpid(pid, &status, 0);
	return status;
}

int main(void)
{
	tap_is_int(perfex_exit_status(wait_status_of_exit(0)), 0, "exit 0");
	tap_is_int(perfex_exit_status(wait_status_of_exit(3)), 3, "exit 3");
	tap_is_int(perfex_exit_status(wait_status_of_exit(255)), 255,
		   "exit 255");
	tap_is_int(perfex_exit_status(wait_status_of_signal(SIGKILL)),
		   128 + SIGKILL, "SIGKILL: 137");
	tap_is_int(perfex_exit_status(wait_status_of_signal(SIGTERM)),
		   128 + SIGTERM, "SIGTERM: 143");
	tap_is_int(perfex_exit_status(wait_status_of_signal(SIGUSR1)),
		   128 + SIGUSR1, "SIGUSR1: 138");
	tap_is_int(perfex_exec_failure_status(ENOENT), 127,
		   "exec ENOENT: 127");
	tap_is_int(perfex_exec_failure_status(EACCES), 126,
		   "exec EACCES: 126");
	tap_is_int(perfex_exec_failure_status(ENOEXEC), 126,
		   "exec ENOEXEC: 126");
	return tap_done();
}
