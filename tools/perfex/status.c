// SPDX-License-Identifier: GPL-2.0
/*
 * What perfex exits with: the command's own status, as a shell would
 * report it.
 */
#include <errno.h>
#include <sys/wait.h>

#include "status.h"

/**
 * perfex_exit_status - the exit status for a command's wait status
 * @wait_status: as waitpid() gives it
 *
 * Return: the command's exit status, or 128 + N if signal N killed it.
 */
int perfex_exit_status(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return PERFEX_EXIT_FAILURE;
}

/**
 * perfex_exec_failure_status - the exit status when exec failed
 * @err: execvp()'s errno
 *
 * Return: 127 if the command was not found, 126 if it could not be run.
 */
int perfex_exec_failure_status(int err)
{
	return err == ENOENT ? 127 : 126;
}
