// SPDX-License-Identifier: GPL-2.0
/*
 * Passing descriptors, and starting a command.  Without perfctr in the
 * kernel the launch must fail cleanly in the child's first step; with
 * it, real commands are run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "fdpass.h"
#include "launch.h"
#include "tap.h"

static void test_fdpass(void)
{
	char msg[8], got[8] = "", byte = 0;
	int sock[2], pipefd[2], fd = -2;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sock) < 0 ||
	    pipe(pipefd) < 0) {
		tap_ok(0, "fdpass: setup: %s", strerror(errno));
		return;
	}
	memcpy(msg, "hello!!", 8);
	tap_is_int(fdpass_send(sock[0], msg, sizeof(msg), pipefd[0]), 0,
		   "fdpass: send with a descriptor");
	tap_is_int(fdpass_recv(sock[1], got, sizeof(got), &fd), 8,
		   "fdpass: receive the message");
	tap_is_str(got, "hello!!", "fdpass: message intact");
	tap_ok(fd >= 0 && fd != pipefd[0] &&
	       (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       "fdpass: a new, close-on-exec descriptor");
	tap_ok(fd >= 0 && write(pipefd[1], "x", 1) == 1 &&
	       read(fd, &byte, 1) == 1 && byte == 'x',
	       "fdpass: the descriptor is the same pipe");
	if (fd >= 0)
		close(fd);

	tap_is_int(fdpass_send(sock[0], msg, 4, -1), 0,
		   "fdpass: send without a descriptor");
	tap_ok(fdpass_recv(sock[1], got, sizeof(got), &fd) == 4 && fd == -1,
	       "fdpass: receive without a descriptor");

	close(sock[0]);
	tap_is_int(fdpass_recv(sock[1], got, sizeof(got), &fd), 0,
		   "fdpass: end of file");
	close(sock[1]);
	close(pipefd[0]);
	close(pipefd[1]);
}

static int no_children_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static void test_launch_without_perfctr(const struct vperfctr_control *c)
{
	char *command[] = { "true", NULL };
	struct launch_failure failure;
	struct perfex_child child;

	tap_ok(perfex_launch(command, c, NULL, &child, &failure) == -1 &&
	       failure.step == LAUNCH_OPEN && failure.err == ENOSYS,
	       "launch without perfctr: vperfctr_open fails with ENOSYS");
	tap_ok(no_children_left(), "launch without perfctr: child reaped");
	tap_skip("launch: true runs and counts", "no perfctr in this kernel");
	tap_skip("launch: missing command", "no perfctr in this kernel");
}

static void test_launch_with_perfctr(const struct vperfctr_control *c)
{
	char *command[] = { "true", NULL };
	char *missing[] = { "/nonexistent/perfex-test", NULL };
	struct launch_failure failure;
	struct perfctr_sum_ctrs sum;
	struct perfex_child child;
	struct rusage usage;
	int status = -1;

	tap_ok(perfex_launch(command, c, NULL, &child, &failure) == 0 &&
	       perfex_wait(&child, &status, &usage) == 0 &&
	       status == 0 &&
	       vperfctr_read_state(child.counters, &sum, NULL) == 0 &&
	       sum.tsc > 0, "launch: true runs and counts");
	vperfctr_close(child.counters);
	tap_ok(perfex_launch(missing, c, NULL, &child, &failure) == -1 &&
	       failure.step == LAUNCH_EXEC && failure.err == ENOENT,
	       "launch: missing command");
	tap_ok(no_children_left(), "launch: children reaped");
}

int main(void)
{
	struct vperfctr_control control;
	int fd;

	test_fdpass();

	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	fd = _vperfctr_open(0);
	if (fd < 0 && errno == ENOSYS) {
		test_launch_without_perfctr(&control);
	} else {
		if (fd >= 0)
			close(fd);
		test_launch_with_perfctr(&control);
	}
	return tap_done();
}
