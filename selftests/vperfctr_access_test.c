// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what: the calls on another process's state, which succeed
 * only while the caller holds that process stopped under ptrace; and
 * privilege, which counting kernel mode needs and counting user mode does
 * not.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* Remote access: under ptrace ---------------------------------------- */

/*
 * Remote access: a child stopped under ptrace by this process.  The
 * child blocks on a pipe; once released it touches FRESH_PAGES fresh
 * pages, spins for 20 ms and exits.
 */

FIXTURE(stopped_child)
{
	pid_t pid;
	int go;
};

FIXTURE_SETUP(stopped_child)
{
	int go[2], status;
	char c;

	self->pid = 0;
	self->go = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());

	ASSERT_EQ(0, pipe(go));
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (self->pid == 0) {
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (read(go[0], &c, 1) != 1 || touch_fresh_pages(FRESH_PAGES))
			_exit(1);
		spin_ms(20);
		_exit(0);
	}
	close(go[0]);
	self->go = go[1];

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, self->pid, 0, 0)) {
		TH_LOG("PTRACE_SEIZE: %s", strerror(errno));
	}
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, self->pid, 0, 0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
}

FIXTURE_TEARDOWN(stopped_child)
{
	if (self->go >= 0)
		close(self->go);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

/* Detach from the child, let it run to its end and reap it. */
static int release_stopped_child(pid_t *pid, int go)
{
	if (ptrace(PTRACE_DETACH, *pid, 0, 0))
		return -1;
	if (write(go, "g", 1) != 1)
		return -1;
	return reap_child(pid);
}

TEST_F(stopped_child, open_with_creat_succeeds)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0) {
		TH_LOG("vperfctr_open(child, 1): %s", strerror(errno));
	}
	ASSERT_TRUE(fd_is_vperfctr(fd));
	close(fd);
}

TEST_F(stopped_child, open_without_creat_fails_with_enoent)
{
	ASSERT_EQ(-1, sys_vperfctr_open(self->pid, 0));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(stopped_child, control_succeeds)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	ASSERT_EQ(0, sys_vperfctr_read(fd, NULL, &control, NULL));
	ASSERT_EQ(1u, control.cpu_control.tsc_on);
	close(fd);
}

TEST_F(stopped_child, state_counts_child_and_is_readable_after_reap)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_tsc(fd));
	ASSERT_EQ(0, release_stopped_child(&self->pid, self->go));

	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_NE(0ull, sum.tsc);
	close(fd);
}

TEST_F(stopped_child, control_after_ptrace_detach_fails_with_eperm)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, self->pid, 0, 0));

	/* The child runs again and is no longer ours to change. */
	ASSERT_EQ(-1, start_tsc(fd));
	ASSERT_EQ(EPERM, errno);
	close(fd);
}

TEST_F(stopped_child, read_succeeds)
{
	struct perfctr_sum_ctrs sum, children;
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, &control, &children)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	close(fd);
}

TEST_F(stopped_child, unlink_succeeds)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(fd)) {
		TH_LOG("vperfctr_unlink: %s", strerror(errno));
	}
	close(fd);
}

TEST_F(stopped_child, unlink_leaves_child_without_state)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, sys_vperfctr_unlink(fd));
	ASSERT_EQ(-1, sys_vperfctr_open(self->pid, 0));
	ASSERT_EQ(ENOENT, errno);
	close(fd);
}

TEST_F(stopped_child, iresume_without_overflow_fails_with_einval)
{
	struct vperfctr_control control;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	overflow_control(&control, 1000000);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control));
	ASSERT_EQ(-1, sys_vperfctr_iresume(fd));
	ASSERT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(stopped_child, fdinfo_names_the_child_as_owner)
{
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(self->pid, fdinfo_value(fd, "vperfctr-owner"));
	close(fd);
}

TEST_F(stopped_child, control_does_not_count_while_child_is_stopped)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	sleep_ms(10);
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_TRUE(all_zero(&sum, sizeof(sum)));
	close(fd);
}

TEST_F(stopped_child, control_counts_once_ptrace_cont_lets_child_run)
{
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(self->pid, 1);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, start_faults(fd));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, 0));
	ASSERT_EQ(1, write(self->go, "g", 1));
	ASSERT_EQ(0, reap_child(&self->pid));

	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL));
	ASSERT_NE(0ull, sum.tsc);
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	close(fd);
}

/*
 * Remote calls on a child whose own counters are in overflow (so that
 * vperfctr_iresume() is valid too), and which is held in one of four ways.
 */

enum hold {
	UNTRACED,
	TRACED_RUNNING,		/* PTRACE_SEIZEd by us, not stopped */
	STOPPED_BY_OTHER,	/* ptrace-stopped by another process */
	STOPPED_BY_CALLER,	/* ptrace-stopped by us */
};

struct target {
	pid_t pid;	/* the child, once started */
	pid_t tracer;	/* the other process, which forked the child */
	int fd;		/* the child's state */
	int go;		/* closing it ends the child */
	const struct vperfctr_state *page;
};

/* Exit statuses of target_main(): which step failed. */
enum {
	TARGET_SIGNAL_FAILED = 20,
	TARGET_OPEN_FAILED,
	TARGET_CONTROL_FAILED,
	TARGET_NO_OVERFLOW,
	TARGET_SEND_FAILED,
};

/*
 * The child: overflows its own counters, passes its fd to the test over
 * @sk, says so on @ready unless it is -1, and waits for @go to close.
 */
static int target_main(int sk, int ready, int go)
{
	struct vperfctr_control control;
	char c;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (catch_overflow_signal())
		return TARGET_SIGNAL_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return TARGET_OPEN_FAILED;
	overflow_control(&control, OVF_FAULTS);
	if (sys_vperfctr_control(fd, &control))
		return TARGET_CONTROL_FAILED;
	if (overflow_now() || READ_ONCE(ovf_signals) != 1)
		return TARGET_NO_OVERFLOW;
	if (send_fd(sk, fd) || (ready >= 0 && write(ready, "r", 1) != 1))
		return TARGET_SEND_FAILED;
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

/*
 * The other process: forks the child, stops it under ptrace once it is
 * ready, reports its pid (or -1) on @report, and holds it stopped until
 * @go closes.
 */
static int tracer_main(int sk, int go, int report)
{
	pid_t pid, stopped = -1;
	int ready[2], status;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pipe(ready))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(ready[0]);
		_exit(target_main(sk, ready[1], go));
	}
	close(ready[1]);
	close(sk);
	if (read(ready[0], &c, 1) == 1 &&
	    !ptrace(PTRACE_SEIZE, pid, 0, 0) &&
	    !ptrace(PTRACE_INTERRUPT, pid, 0, 0) &&
	    waitpid(pid, &status, 0) == pid && WIFSTOPPED(status))
		stopped = pid;
	if (write(report, &stopped, sizeof(stopped)) != sizeof(stopped))
		stopped = -1;
	if (stopped > 0)
		while (read(go, &c, 1) < 0 && errno == EINTR)
			;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return stopped > 0 ? 0 : 1;
}

/* Start the target held as @hold: 0, or -1, or its exit status. */
static int start_target(struct target *t, enum hold hold)
{
	int sk[2], go[2], report[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk) || pipe(go) ||
	    pipe(report))
		return -1;
	t->go = go[1];
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sk[0]);
		close(go[1]);
		close(report[0]);
		if (hold == STOPPED_BY_OTHER)
			_exit(tracer_main(sk[1], go[0], report[1]));
		_exit(target_main(sk[1], -1, go[0]));
	}
	if (hold == STOPPED_BY_OTHER)
		t->tracer = pid;
	else
		t->pid = pid;
	close(sk[1]);
	close(go[0]);
	close(report[1]);

	t->fd = recv_fd(sk[0]);
	close(sk[0]);
	if (t->fd < 0) {
		close(report[0]);
		if (t->pid > 0)
			return reap_child(&t->pid);
		return reap_child(&t->tracer);
	}
	t->page = map_state(t->fd);
	if (!t->page)
		return -1;

	switch (hold) {
	case UNTRACED:
		break;
	case TRACED_RUNNING:
		if (ptrace(PTRACE_SEIZE, t->pid, 0, 0))
			return -1;
		break;
	case STOPPED_BY_OTHER:
		if (read(report[0], &pid, sizeof(pid)) != sizeof(pid) ||
		    pid <= 0)
			return -1;
		t->pid = pid;
		break;
	case STOPPED_BY_CALLER:
		if (ptrace(PTRACE_SEIZE, t->pid, 0, 0) ||
		    ptrace(PTRACE_INTERRUPT, t->pid, 0, 0) ||
		    waitpid(t->pid, &status, 0) != t->pid ||
		    !WIFSTOPPED(status))
			return -1;
		break;
	}
	close(report[0]);
	return 0;
}

static void init_target(struct target *t)
{
	t->pid = 0;
	t->tracer = 0;
	t->fd = -1;
	t->go = -1;
	t->page = NULL;
}

static void end_target(struct target *t)
{
	unmap_state(t->page);
	if (t->fd >= 0)
		close(t->fd);
	if (t->go >= 0)
		close(t->go);
	if (t->tracer > 0) {
		/* Once go is closed, it ends the child and exits. */
		waitpid(t->tracer, NULL, 0);
	} else if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
}

static int remote_open(int fd, pid_t pid)
{
	int fd2 = sys_vperfctr_open(pid, 0);

	if (fd2 < 0)
		return -1;
	close(fd2);
	return 0;
}

static int remote_control(int fd, pid_t pid)
{
	struct vperfctr_control control;

	overflow_control(&control, OVF_FAULTS);
	return sys_vperfctr_control(fd, &control);
}

static int remote_unlink(int fd, pid_t pid)
{
	return sys_vperfctr_unlink(fd);
}

static int remote_read(int fd, pid_t pid)
{
	struct perfctr_sum_ctrs sum;

	return sys_vperfctr_read(fd, &sum, NULL, NULL);
}

static int remote_iresume(int fd, pid_t pid)
{
	return sys_vperfctr_iresume(fd);
}

FIXTURE(remote_call)
{
	struct target target;
};

FIXTURE_VARIANT(remote_call)
{
	int (*call)(int fd, pid_t pid);
};

FIXTURE_VARIANT_ADD(remote_call, open)
{
	.call = remote_open,
};

FIXTURE_VARIANT_ADD(remote_call, control)
{
	.call = remote_control,
};

FIXTURE_VARIANT_ADD(remote_call, unlink)
{
	.call = remote_unlink,
};

FIXTURE_VARIANT_ADD(remote_call, read)
{
	.call = remote_read,
};

FIXTURE_VARIANT_ADD(remote_call, iresume)
{
	.call = remote_iresume,
};

FIXTURE_SETUP(remote_call)
{
	init_target(&self->target);
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
}

FIXTURE_TEARDOWN(remote_call)
{
	end_target(&self->target);
}

TEST_F(remote_call, on_untraced_child_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, UNTRACED));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_traced_running_child_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, TRACED_RUNNING));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_child_stopped_by_another_tracer_fails_with_eperm)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, STOPPED_BY_OTHER));
	ASSERT_EQ(-1, variant->call(t->fd, t->pid));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(remote_call, on_child_stopped_by_caller_succeeds)
{
	struct target *t = &self->target;

	ASSERT_EQ(0, start_target(t, STOPPED_BY_CALLER));
	ASSERT_EQ(0, variant->call(t->fd, t->pid)) {
		TH_LOG("%s", strerror(errno));
	}
}

/* A child in overflow, ptrace-stopped by this process. */
FIXTURE(overflowed_child)
{
	struct target target;
};

FIXTURE_SETUP(overflowed_child)
{
	init_target(&self->target);
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(0, start_target(&self->target, STOPPED_BY_CALLER));
}

FIXTURE_TEARDOWN(overflowed_child)
{
	end_target(&self->target);
}

TEST_F(overflowed_child, page_shows_overflow)
{
	ASSERT_TRUE(page_flag(self->target.page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflowed_child, read_returns_faults_up_to_the_overflow)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, sys_vperfctr_read(self->target.fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], OVF_FAULTS);
}

TEST_F(overflowed_child, iresume_clears_overflow_flag)
{
	ASSERT_EQ(0, sys_vperfctr_iresume(self->target.fd));
	ASSERT_FALSE(page_flag(self->target.page, VPERFCTR_STATE_OVERFLOW));
}

TEST_F(overflowed_child, iresume_twice_fails_with_einval)
{
	ASSERT_EQ(0, sys_vperfctr_iresume(self->target.fd));
	ASSERT_EQ(-1, sys_vperfctr_iresume(self->target.fd));
	ASSERT_EQ(EINVAL, errno);
}

/*
 * Whether kernel.perf_event_paranoid lets anyone count kernel mode: only
 * when it exists (CONFIG_PERF_EVENTS) and is below 2.
 */
static bool paranoid_lets_anyone_count_kernel(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 2;

	if (!f)
		return false;
	if (fscanf(f, "%d", &level) != 1)
		level = 2;
	fclose(f);
	return level < 2;
}

/* Privilege: counting kernel mode ------------------------------------ */

/* What unprivileged_control() asks for. */
struct fault_mode {
	__u32 event;
	__u64 evntsel;
	bool imode;
};

/*
 * In a child: become unprivileged and count @arg's fault event with its
 * evntsel; 0 if vperfctr_control() succeeded, else its errno.
 */
static int unprivileged_control(void *arg)
{
	const struct fault_mode *m = arg;
	struct vperfctr_control control;
	int fd;

	if (become_unprivileged())
		return CHILD_CHECK_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return CHILD_CHECK_FAILED;
	start_tsc_control(&control);
	if (m->imode) {
		add_imode(&control, PERFCTR_MAP_SOFTWARE | m->event,
			  m->evntsel, -(1ll << 40));
		control.si_signo = OVF_SIGNAL;
	} else {
		add_amode(&control, PERFCTR_MAP_SOFTWARE | m->event,
			  m->evntsel);
	}
	return sys_vperfctr_control(fd, &control) ? errno : 0;
}

FIXTURE(privilege)
{
};

FIXTURE_VARIANT(privilege)
{
	__u32 event;
};

FIXTURE_VARIANT_ADD(privilege, page_faults)
{
	.event = PERFCTR_SW_PAGE_FAULTS,
};

FIXTURE_VARIANT_ADD(privilege, minor_faults)
{
	.event = PERFCTR_SW_MINOR_FAULTS,
};

FIXTURE_VARIANT_ADD(privilege, major_faults)
{
	.event = PERFCTR_SW_MAJOR_FAULTS,
};

FIXTURE_SETUP(privilege)
{
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
}

FIXTURE_TEARDOWN(privilege)
{
}

TEST_F(privilege, unprivileged_os_counter_fails_with_eacces)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_OS, false };

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_usr_and_os_counter_fails_with_eacces)
{
	struct fault_mode m = {
		variant->event, PERFCTR_SW_USR | PERFCTR_SW_OS, false
	};

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_imode_os_counter_fails_with_eacces)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_OS, true };

	if (paranoid_lets_anyone_count_kernel())
		SKIP(return, "perf_event_paranoid < 2 lets anyone count kernel mode");
	ASSERT_EQ(EACCES, in_child(unprivileged_control, &m));
}

TEST_F(privilege, unprivileged_usr_counter_succeeds)
{
	struct fault_mode m = { variant->event, PERFCTR_SW_USR, false };

	ASSERT_EQ(0, in_child(unprivileged_control, &m));
}

TEST_F(privilege, root_os_counter_succeeds)
{
	struct vperfctr_control control;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	start_tsc_control(&control);
	add_amode(&control, PERFCTR_MAP_SOFTWARE | variant->event,
		  PERFCTR_SW_USR | PERFCTR_SW_OS);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	close(fd);
}

/* In a child: become unprivileged and count every software event. */
static int unprivileged_all_events(void *arg)
{
	struct vperfctr_control control;
	__u32 event;
	int fd;

	if (become_unprivileged())
		return CHILD_CHECK_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return CHILD_CHECK_FAILED;
	start_tsc_control(&control);
	for (event = PERFCTR_SW_TASK_CLOCK; event <= PERFCTR_SW_MAX; event++)
		add_amode(&control, PERFCTR_MAP_SOFTWARE | event,
			  event >= PERFCTR_SW_PAGE_FAULTS ? PERFCTR_SW_USR : 0);
	return sys_vperfctr_control(fd, &control) ? errno : 0;
}

TEST_F(vperfctr, unprivileged_thread_may_count_every_software_event)
{
	ASSERT_EQ(0, in_child(unprivileged_all_events, NULL));
}

TEST_HARNESS_MAIN
