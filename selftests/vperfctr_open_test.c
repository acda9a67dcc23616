// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_open() and vperfctr_unlink(): a thread's state and the
 * vperfctrfs descriptor to it, who may open one, what a failed open leaves
 * behind, and a state detached from its thread; and the calls given a
 * descriptor that is not a vperfctr one.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* vperfctr_open() --------------------------------------------------- */

/* A thread without counter state. */
FIXTURE(open)
{
};

FIXTURE_SETUP(open)
{
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
}

FIXTURE_TEARDOWN(open)
{
}

TEST_F(open, self_with_creat_returns_vperfctrfs_fd)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
	ASSERT_TRUE(fd_is_vperfctr(fd));
	close(fd);
}

TEST_F(open, returns_close_on_exec_fd)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

TEST_F(open, fd_is_on_vperfctrfs)
{
	struct statfs sfs;
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, fstatfs(fd, &sfs));
	ASSERT_EQ(VPERFCTRFS_MAGIC, sfs.f_type);
	close(fd);
}

TEST_F(open, own_tid_is_self)
{
	int fd;

	fd = sys_vperfctr_open(gettid(), 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(gettid(), 1): %s", strerror(errno));
	}
	/* The state created through the tid is the one tid 0 finds. */
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EEXIST, errno);
	close(fd);
}

TEST_F(open, negative_tid_fails_with_einval)
{
	ASSERT_EQ(-1, sys_vperfctr_open(-1, 1));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(open, reaped_child_fails_with_esrch)
{
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, reap(pid));

	ASSERT_EQ(-1, sys_vperfctr_open(pid, 1));
	ASSERT_EQ(ESRCH, errno);
}

TEST_F(open, untraced_child_fails_with_eperm)
{
	int go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);

	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(EPERM, errno);

	close(go[1]);
	ASSERT_EQ(0, reap(pid));
}

TEST_F(open, traced_running_child_fails_with_eperm)
{
	int go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		TH_LOG("PTRACE_SEIZE: %s", strerror(errno));
	}

	/* Traced by us, but not stopped. */
	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(EPERM, errno);

	close(go[1]);
	ASSERT_EQ(0, reap(pid));
}

struct sibling {
	int tid_pipe[2];
	int go_pipe[2];
};

static void *sibling_main(void *arg)
{
	struct sibling *s = arg;
	pid_t tid = gettid();
	char c;

	if (write(s->tid_pipe[1], &tid, sizeof(tid)) == sizeof(tid))
		while (read(s->go_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
	return NULL;
}

TEST_F(open, sibling_thread_fails_with_eperm)
{
	struct sibling s;
	pthread_t thread;
	pid_t tid;

	ASSERT_EQ(0, pipe(s.tid_pipe));
	ASSERT_EQ(0, pipe(s.go_pipe));
	ASSERT_EQ(0, pthread_create(&thread, NULL, sibling_main, &s));
	ASSERT_EQ((ssize_t)sizeof(tid), read(s.tid_pipe[0], &tid, sizeof(tid)));

	EXPECT_EQ(-1, sys_vperfctr_open(tid, 1));
	EXPECT_EQ(EPERM, errno);

	close(s.go_pipe[1]);
	ASSERT_EQ(0, pthread_join(thread, NULL));
}

TEST_F(open, with_creat_when_state_exists_fails_with_eexist)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EEXIST, errno);
	close(fd);
}

TEST_F(open, without_creat_and_no_state_fails_with_enoent)
{
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(open, with_no_free_fd_fails_with_emfile)
{
	struct rlimit rl;
	int lowest;

	/* Every fd below the lowest free one is in use: allow no more. */
	lowest = dup(STDERR_FILENO);
	ASSERT_GE(lowest, 0);
	close(lowest);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = lowest;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EMFILE, errno);
}

/* A call that fails changes nothing: no state, no descriptor. */
TEST_F(open, with_no_free_fd_leaves_no_state_and_no_fd)
{
	struct rlimit rl, saved;
	int lowest, fd;

	lowest = dup(STDERR_FILENO);
	ASSERT_GE(lowest, 0);
	close(lowest);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
	rl = saved;
	rl.rlim_cur = lowest;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 1));
	ASSERT_EQ(EMFILE, errno);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
	fd = dup(STDERR_FILENO);
	ASSERT_EQ(lowest, fd);
	close(fd);
}

/*
 * A tracee at its PTRACE_EVENT_EXIT stop is exiting, though the kernel
 * marks it so only once it leaves that stop: no new state for it.
 */
TEST_F(open, tracee_at_its_exit_stop_fails_with_esrch)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(CHILD_CHECK_FAILED);
		raise(SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(long)PTRACE_O_TRACEEXIT));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP | (PTRACE_EVENT_EXIT << 8), status >> 8);

	EXPECT_EQ(-1, sys_vperfctr_open(pid, 1));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, sys_vperfctr_open(pid, 0));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(0, reap(pid));
}

TEST_F(open, child_of_thread_without_state_has_no_state)
{
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(open, thread_of_thread_without_state_has_no_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-1, r.fd);
	ASSERT_EQ(ENOENT, r.err);
}

TEST_F(open, without_creat_opens_existing_state)
{
	struct vperfctr_control control;
	int fd, fd2;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));

	fd2 = sys_vperfctr_open(0, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_NE(fd, fd2);
	ASSERT_EQ(0, sys_vperfctr_read(fd2, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd2);
	close(fd);
}

TEST_F(open, attached_state_outlives_its_last_fd)
{
	struct vperfctr_control control;
	int fd;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));
	ASSERT_EQ(0, close(fd));

	fd = sys_vperfctr_open(0, 0);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 0): %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd);
}

TEST_F(open, creat_unlink_close_1000_times)
{
	int first, fd, i;

	first = sys_vperfctr_open(0, 1);
	ASSERT_GE(first, 0);
	ASSERT_EQ(0, sys_vperfctr_unlink(first));
	ASSERT_EQ(0, close(first));

	for (i = 0; i < 1000; i++) {
		fd = sys_vperfctr_open(0, 1);
		ASSERT_EQ(first, fd) {
			TH_LOG("iteration %d: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, start_tsc(fd));
		ASSERT_EQ(0, sys_vperfctr_unlink(fd));
		ASSERT_EQ(0, close(fd));
	}
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(open, reopen_map_close_existing_state_1000_times)
{
	const struct vperfctr_state *page;
	int fd, fd2, i;

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));

	for (i = 0; i < 1000; i++) {
		fd2 = sys_vperfctr_open(0, 0);
		ASSERT_GE(fd2, 0) {
			TH_LOG("iteration %d: %s", i, strerror(errno));
		}
		page = map_state(fd2);
		ASSERT_NE(NULL, page);
		ASSERT_EQ(0, close(fd2));
		ASSERT_EQ((__u32)VPERFCTR_STATE_MAGIC, READ_ONCE(page->magic));
		unmap_state(page);
	}
	ASSERT_NE(0ull, read_tsc_sum(fd));
	close(fd);
}

/* vperfctr_unlink() ------------------------------------------------- */

TEST_F(vperfctr, unlink_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

TEST_F(vperfctr, unlink_twice_succeeds)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

TEST_F(vperfctr, unlink_leaves_thread_without_state)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, sys_vperfctr_open(0, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(vperfctr, unlink_marks_page_detached)
{
	const struct vperfctr_state *page = map_state(self->fd);

	ASSERT_NE(NULL, page);
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	unmap_state(page);
}

TEST_F(vperfctr, read_after_unlink_returns_final_sum)
{
	struct perfctr_sum_ctrs sum;
	__u64 before;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	before = read_tsc_sum(self->fd);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_LE(before, sum.tsc);
}

TEST_F(vperfctr, unlinked_state_stops_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	before = read_tsc_sum(self->fd);
	ASSERT_NE(0ull, before);
	spin_ms(5);
	after = read_tsc_sum(self->fd);
	ASSERT_EQ(before, after);
}

TEST_F(vperfctr, open_with_creat_after_unlink_creates_new_state)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;
	int fd;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));

	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, &control, NULL));
	ASSERT_EQ(0ull, sum.tsc);
	ASSERT_EQ(0u, control.cpu_control.tsc_on);
	ASSERT_NE(0ull, read_tsc_sum(self->fd));
	close(fd);
}

/* File descriptors that are not vperfctr ones ------------------------ */

static int call_control(int fd)
{
	return start_tsc(fd);
}

static int call_unlink(int fd)
{
	return sys_vperfctr_unlink(fd);
}

static int call_read(int fd)
{
	struct perfctr_sum_ctrs sum;

	return sys_vperfctr_read(fd, &sum, NULL, NULL);
}

static int call_iresume(int fd)
{
	return sys_vperfctr_iresume(fd);
}

FIXTURE(fd_syscall)
{
	int fd;
};

FIXTURE_VARIANT(fd_syscall)
{
	int (*call)(int fd);
};

FIXTURE_VARIANT_ADD(fd_syscall, control)
{
	.call = call_control,
};

FIXTURE_VARIANT_ADD(fd_syscall, unlink)
{
	.call = call_unlink,
};

FIXTURE_VARIANT_ADD(fd_syscall, read)
{
	.call = call_read,
};

FIXTURE_VARIANT_ADD(fd_syscall, iresume)
{
	.call = call_iresume,
};

FIXTURE_SETUP(fd_syscall)
{
	self->fd = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
}

FIXTURE_TEARDOWN(fd_syscall)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(fd_syscall, fd_minus_one_fails_with_ebadf)
{
	ASSERT_EQ(-1, variant->call(-1));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(fd_syscall, closed_fd_fails_with_ebadf)
{
	int fd = sys_vperfctr_open(0, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(-1, variant->call(fd));
	ASSERT_EQ(EBADF, errno);
}

TEST_F(fd_syscall, dev_null_fails_with_einval)
{
	self->fd = open("/dev/null", O_RDONLY);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(-1, variant->call(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(fd_syscall, pipe_fails_with_einval)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	self->fd = p[0];
	close(p[1]);
	ASSERT_EQ(-1, variant->call(self->fd));
	ASSERT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
