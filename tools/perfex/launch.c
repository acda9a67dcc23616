// SPDX-License-Identifier: GPL-2.0
/*
 * Starting the command with its counters running, and keeping hold of
 * the counters after it exits.
 *
 * The child creates its own counter state (a thread can only create its
 * own), starts the counters and sends the state's descriptor to the
 * parent over a socket before it execs the command; the counters
 * survive exec.  The descriptor keeps the state alive after the command
 * has exited and been reaped, so the parent reads the final sums at its
 * leisure, with no need to trace the command.
 *
 * The socket is close-on-exec in the child: end of file tells the parent
 * that exec succeeded, a message instead tells why it did not.
 *
 * If the kernel refuses the control with EACCES (it counts kernel mode,
 * and the user may not), the child installs the fallback control
 * instead, if there is one, and says so with the descriptor.
 *
 * Without a control (perfex -p TID COMMAND, where the command only says
 * how long to count another thread) the child opens no state and sends
 * nothing but a failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "fdpass.h"
#include "launch.h"
#include "status.h"

/* From child to parent: err 0 with the descriptor, or what failed. */
struct launch_msg {
	int32_t step;
	int32_t err;
	int32_t fell_back;	/* with the descriptor: fallback installed */
};

static void __attribute__((noreturn))
run_child(int sock, char *const command[],
	  const struct vperfctr_control *control,
	  const struct vperfctr_control *fallback)
{
	struct launch_msg msg = { .step = LAUNCH_OPEN };
	struct vperfctr *counters;

	if (!control)
		goto exec;
	counters = vperfctr_open();
	if (!counters)
		goto fail;
	msg.step = LAUNCH_CONTROL;
	if (vperfctr_control(counters, control) < 0) {
		if (errno != EACCES || !fallback ||
		    vperfctr_control(counters, fallback) < 0)
			goto fail;
		msg.fell_back = 1;
	}
	msg.step = LAUNCH_SEND;
	if (fdpass_send(sock, &msg, sizeof(msg), vperfctr_fd(counters)) < 0)
		goto fail;
	/* The counters stay attached to us; the handle is not needed. */
	vperfctr_close(counters);

exec:
	execvp(command[0], command);
	msg.step = LAUNCH_EXEC;
	msg.err = errno;
	fdpass_send(sock, &msg, sizeof(msg), -1);
	_exit(perfex_exec_failure_status(msg.err));

fail:
	msg.err = errno;
	fdpass_send(sock, &msg, sizeof(msg), -1);
	_exit(PERFEX_EXIT_FAILURE);
}

/* The child's next message: 1 and @msg, 0 at end of file, or -1. */
static int receive(int sock, struct launch_msg *msg, int *fd)
{
	ssize_t len = fdpass_recv(sock, msg, sizeof(*msg), fd);

	if (len < 0)
		return -1;
	if (len == 0)
		return 0;
	if (len != sizeof(*msg) || (msg->err == 0) != (*fd >= 0)) {
		if (*fd >= 0)
			close(*fd);
		errno = EPROTO;
		return -1;
	}
	return 1;
}

/*
 * Take the counters from the child, if it counts, and wait for its
 * exec.
 */
static int adopt(int sock, int counted, struct perfex_child *child,
		 struct launch_failure *failure)
{
	struct launch_msg msg;
	int fd, ret;

	if (!counted)
		goto wait_exec;
	failure->step = LAUNCH_RECEIVE;
	ret = receive(sock, &msg, &fd);
	if (ret == 0)
		errno = EPIPE;		/* died before it could tell */
	if (ret <= 0)
		goto fail;
	if (msg.err) {
		failure->step = msg.step;
		errno = msg.err;
		goto fail;
	}

	failure->step = LAUNCH_ADOPT;
	child->fell_back = msg.fell_back != 0;
	child->counters = vperfctr_from_fd(fd);
	if (!child->counters) {
		ret = errno;
		close(fd);
		errno = ret;
		goto fail;
	}

wait_exec:
	failure->step = LAUNCH_RECEIVE;
	ret = receive(sock, &msg, &fd);
	if (ret == 0)
		return 0;
	if (ret > 0) {
		failure->step = msg.step;
		errno = msg.err;
	}
fail:
	failure->err = errno;
	return -1;
}

static void ignore_interrupts(struct perfex_child *child)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN };

	sigaction(SIGINT, &ignore, &child->old_sigint);
	sigaction(SIGQUIT, &ignore, &child->old_sigquit);
}

static void restore_interrupts(struct perfex_child *child)
{
	sigaction(SIGINT, &child->old_sigint, NULL);
	sigaction(SIGQUIT, &child->old_sigquit, NULL);
}

/**
 * perfex_launch - run a command with counters
 * @command: the command and its arguments, NULL-terminated
 * @control: what to count, or NULL to run the command without counters
 * @fallback: what to count if the kernel refuses @control with EACCES,
 *            or NULL; child->fell_back says which one counts
 * @child: filled in on success
 * @failure: on failure, the step that failed and its errno
 *
 * Like system(), the caller ignores SIGINT and SIGQUIT until
 * perfex_wait(), so that ^C stops the command but not its report.
 *
 * Return: 0 with the command running, or -1 with nothing left behind.
 */
int perfex_launch(char *const command[],
		  const struct vperfctr_control *control,
		  const struct vperfctr_control *fallback,
		  struct perfex_child *child, struct launch_failure *failure)
{
	int sock[2];

	memset(child, 0, sizeof(*child));
	failure->step = LAUNCH_SOCKET;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		goto fail;

	ignore_interrupts(child);
	failure->step = LAUNCH_FORK;
	child->pid = fork();
	if (child->pid < 0) {
		restore_interrupts(child);
		close(sock[0]);
		close(sock[1]);
		goto fail;
	}
	if (child->pid == 0) {
		close(sock[0]);
		restore_interrupts(child);
		run_child(sock[1], command, control, fallback);
	}

	close(sock[1]);
	if (adopt(sock[0], control != NULL, child, failure) < 0) {
		close(sock[0]);
		vperfctr_close(child->counters);
		child->counters = NULL;
		while (waitpid(child->pid, NULL, 0) < 0 && errno == EINTR)
			;
		restore_interrupts(child);
		return -1;
	}
	close(sock[0]);
	return 0;

fail:
	failure->err = errno;
	return -1;
}

/**
 * perfex_wait - wait for the command to end
 * @child: from perfex_launch()
 * @wait_status: how it ended, as waitpid() says
 * @usage: its resource usage
 *
 * Return: 0, or -1 with errno set.
 */
int perfex_wait(struct perfex_child *child, int *wait_status,
		struct rusage *usage)
{
	pid_t pid;

	do
		pid = wait4(child->pid, wait_status, 0, usage);
	while (pid < 0 && errno == EINTR);
	restore_interrupts(child);
	return pid < 0 ? -1 : 0;
}

const char *launch_step_name(enum launch_step step)
{
	switch (step) {
	case LAUNCH_SOCKET:
		return "socketpair";
	case LAUNCH_FORK:
		return "fork";
	case LAUNCH_OPEN:
		return "vperfctr_open";
	case LAUNCH_CONTROL:
		return "vperfctr_control";
	case LAUNCH_SEND:
		return "sending the counters";
	case LAUNCH_RECEIVE:
		return "receiving the counters";
	case LAUNCH_ADOPT:
		return "vperfctr_from_fd";
	case LAUNCH_EXEC:
		return "exec";
	}
	return "starting the command";
}
