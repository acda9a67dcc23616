// SPDX-License-Identifier: GPL-2.0
/*
 * A state's life across fork(), pthread_create(), exit and exec(): who
 * inherits a state, how the counts of children and threads come back into
 * their parent's children sums when they are reaped, what the descriptor
 * of an exited child's state reads, and how a setuid or setgid exec drops
 * the state.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* fork() and pthread_create(): who inherits a state -------------------- */

TEST_F(vperfctr, forked_child_of_counting_thread_has_a_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_stopped_counters_has_no_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_never_started_counters_has_no_state)
{
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, child_of_thread_with_unlinked_state_has_no_state)
{
	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(ENOENT, in_child(has_state, NULL));
}

TEST_F(vperfctr, thread_of_thread_with_stopped_counters_has_no_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, start_tsc(self->fd));
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(-1, r.fd);
	ASSERT_EQ(ENOENT, r.err);
}

TEST_F(vperfctr, parent_keeps_counting_after_fork)
{
	__u64 before, after;
	pid_t pid;

	ASSERT_EQ(0, start_tsc(self->fd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, reap(pid));

	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

/*
 * Read @fd's sums and children sums, waiting up to a second for counter
 * @i of the children to reach @min: a thread that exits is released, and
 * its sums handed on, a little after pthread_join() has returned.
 */
static int await_children_sum(int fd, unsigned int i, __u64 min,
			      struct perfctr_sum_ctrs *sum,
			      struct perfctr_sum_ctrs *children)
{
	int ms;

	for (ms = 0; ; ms++) {
		if (sys_vperfctr_read(fd, sum, NULL, children))
			return -1;
		if (children->pmc[i] >= min || ms == 1000)
			return 0;
		sleep_ms(1);
	}
}

/*
 * Inheritance and propagation: this thread counts the TSC and its
 * user-mode page faults (counter 0); its children inherit that, and
 * their sums come back into its children sums when they are reaped.
 */
FIXTURE(family)
{
	int fd;
	struct vperfctr_control control;
};

FIXTURE_SETUP(family)
{
	self->fd = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
	fault_control(&self->control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(family)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Children's bodies: 0 when all went well and what they check holds. */

static int touch_pages_child(void *arg)
{
	return touch_fresh_pages(FRESH_PAGES) ? CHILD_CHECK_FAILED : 0;
}

static int spin_child(void *arg)
{
	spin_ms(10);
	return 0;
}

/* Fork a grandchild that touches fresh pages, and reap it. */
static int grandchild_touches_pages(void *arg)
{
	return in_child(touch_pages_child, NULL);
}

/* The state has the control @arg points to. */
static int has_control(void *arg)
{
	const struct vperfctr_control *want = arg;
	struct vperfctr_control got;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, NULL, &got, NULL))
		return errno;
	return memcmp(want, &got, sizeof(got)) ? CHILD_CHECK_FAILED : 0;
}

/* The TSC and counter 0 sums are below the parent's ones @arg points to. */
static int has_sums_below(void *arg)
{
	const struct perfctr_sum_ctrs *parent = arg;
	struct perfctr_sum_ctrs sum;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, &sum, NULL, NULL))
		return errno;
	return sum.tsc < parent->tsc && sum.pmc[0] < parent->pmc[0] ?
	       0 : CHILD_CHECK_FAILED;
}

static int has_zero_children_sums(void *arg)
{
	struct perfctr_sum_ctrs children;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, NULL, NULL, &children))
		return errno;
	return all_zero(&children, sizeof(children)) ? 0 : CHILD_CHECK_FAILED;
}

static int counts_own_faults(void *arg)
{
	struct perfctr_sum_ctrs before, after;
	int fd = sys_vperfctr_open(0, 0);

	if (fd < 0 || sys_vperfctr_read(fd, &before, NULL, NULL) ||
	    touch_fresh_pages(FRESH_PAGES) ||
	    sys_vperfctr_read(fd, &after, NULL, NULL))
		return errno;
	return after.pmc[0] - before.pmc[0] >= FRESH_PAGES ?
	       0 : CHILD_CHECK_FAILED;
}

/* Threads' bodies: NULL when all went well, else THREAD_FAILED. */
static char thread_failed;
#define THREAD_FAILED	((void *)&thread_failed)

static void *touch_pages_thread(void *arg)
{
	return touch_fresh_pages(FRESH_PAGES) ? THREAD_FAILED : NULL;
}

static void *open_and_touch_pages_thread(void *arg)
{
	open_own_state(arg);
	return touch_fresh_pages(FRESH_PAGES) ? THREAD_FAILED : NULL;
}

TEST_F(family, forked_child_inherits_a_state)
{
	ASSERT_EQ(0, in_child(has_state, NULL));
}

TEST_F(family, inherited_state_has_the_parents_control)
{
	ASSERT_EQ(0, in_child(has_control, &self->control));
}

TEST_F(family, inherited_state_does_not_start_with_the_parents_sums)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	spin_ms(20);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, in_child(has_sums_below, &sum));
}

TEST_F(family, inherited_state_has_zero_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, in_child(has_zero_children_sums, NULL));
}

TEST_F(family, inherited_state_counts_the_childs_faults)
{
	ASSERT_EQ(0, in_child(counts_own_faults, NULL));
}

TEST_F(family, reaped_child_faults_go_to_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, reaped_child_faults_do_not_go_to_own_sums)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LT(after.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(family, reaped_child_tsc_goes_to_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(spin_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_NE(0ull, children.tsc);
}

TEST_F(family, child_killed_by_signal_still_goes_to_children_sums)
{
	struct perfctr_sum_ctrs children;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (!touch_fresh_pages(FRESH_PAGES))
			raise(SIGKILL);
		_exit(1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, grandchild_reaped_by_child_goes_to_root_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(grandchild_touches_pages, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, grandchild_reaped_after_its_parent_goes_to_root_children_sums)
{
	struct perfctr_sum_ctrs children;
	int go[2], report[2];
	pid_t child, grandchild;
	char c;

	/* The orphaned grandchild becomes ours to reap. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		close(go[1]);
		grandchild = fork();
		if (grandchild == 0) {
			/* Touch the pages once the child has been reaped. */
			close(report[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(touch_fresh_pages(FRESH_PAGES) ? 1 : 0);
		}
		/* Exit without waiting for it. */
		_exit(write(report[1], &grandchild, sizeof(grandchild)) ==
		      sizeof(grandchild) && grandchild > 0 ? 0 : 1);
	}
	close(go[0]);
	close(report[1]);
	ASSERT_EQ(0, reap(child));
	ASSERT_EQ((ssize_t)sizeof(grandchild),
		  read(report[0], &grandchild, sizeof(grandchild)));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_LT(children.pmc[0], FRESH_PAGES);

	close(go[1]);
	ASSERT_EQ(0, reap(grandchild));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, child_reaped_after_parents_control_changed_adds_nothing)
{
	struct perfctr_sum_ctrs children;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(touch_pages_child(NULL));
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(0, reap(pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(family, child_reaped_after_parents_unlink_adds_nothing)
{
	struct perfctr_sum_ctrs children;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(touch_pages_child(NULL));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(0, reap(pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

TEST_F(family, control_resets_children_sums)
{
	struct perfctr_sum_ctrs children;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &self->control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_TRUE(all_zero(&children, sizeof(children)));
}

/* A control that enables nothing keeps the children sums. */
TEST_F(family, stop_keeps_children_sums)
{
	struct perfctr_sum_ctrs before, after;

	ASSERT_EQ(0, in_child(touch_pages_child, NULL));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &before));
	ASSERT_GE(before.pmc[0], FRESH_PAGES);
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &after));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));
}

/* ... and the children it had still come back into them. */
TEST_F(family, child_reaped_after_parents_stop_adds_its_counts)
{
	struct perfctr_sum_ctrs children;
	int go[2];
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(CHILD_CHECK_FAILED);
		_exit(touch_pages_child(NULL));
	}
	close(go[0]);
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(1, write(go[1], &c, 1));
	close(go[1]);
	ASSERT_EQ(0, reap(pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, NULL, NULL, &children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, thread_inherits_a_state)
{
	struct open_result r;
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, open_own_state, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_GE(r.fd, 0) {
		TH_LOG("vperfctr_open(0, 0) in the thread: %s",
		       strerror(r.err));
	}
	close(r.fd);
}

TEST_F(family, joined_thread_faults_go_to_children_sums)
{
	struct perfctr_sum_ctrs sum, children;
	pthread_t thread;
	void *failed;

	ASSERT_EQ(0, pthread_create(&thread, NULL, touch_pages_thread, NULL));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_EQ(0, await_children_sum(self->fd, 0, FRESH_PAGES, &sum,
					&children));
	ASSERT_GE(children.pmc[0], FRESH_PAGES);
}

TEST_F(family, joined_thread_faults_do_not_go_to_own_sums)
{
	struct perfctr_sum_ctrs before, sum, children;
	pthread_t thread;
	void *failed;

	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_EQ(0, pthread_create(&thread, NULL, touch_pages_thread, NULL));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_EQ(0, await_children_sum(self->fd, 0, FRESH_PAGES, &sum,
					&children));
	ASSERT_LT(sum.pmc[0] - before.pmc[0], FRESH_PAGES);
}

TEST_F(family, joined_thread_state_is_readable_through_its_fd)
{
	const struct vperfctr_state *page;
	struct perfctr_sum_ctrs sum;
	struct open_result r;
	pthread_t thread;
	void *failed;
	int ms;

	ASSERT_EQ(0, pthread_create(&thread, NULL,
				    open_and_touch_pages_thread, &r));
	ASSERT_EQ(0, pthread_join(thread, &failed));
	ASSERT_EQ(NULL, failed);
	ASSERT_GE(r.fd, 0);
	page = map_state(r.fd);
	ASSERT_NE(NULL, page);
	/* Released a little after pthread_join() returned. */
	for (ms = 0; ms < 1000 && !page_flag(page, VPERFCTR_STATE_DETACHED); ms++)
		sleep_ms(1);
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_EQ(0, sys_vperfctr_read(r.fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	unmap_state(page);
	close(r.fd);
}

/* exit(): a child's state seen through the fd it passed to its parent. */

FIXTURE(exited_child)
{
	pid_t pid;
	int fd;
	const struct vperfctr_state *page;
};

/* Child exit statuses: which step failed. */
enum {
	EXITED_CHILD_OPEN_FAILED = 10,
	EXITED_CHILD_CONTROL_FAILED,
	EXITED_CHILD_SEND_FAILED,
	EXITED_CHILD_TOUCH_FAILED,
};

static int exited_child_main(int sk)
{
	int fd;

	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return EXITED_CHILD_OPEN_FAILED;
	if (start_faults(fd))
		return EXITED_CHILD_CONTROL_FAILED;
	if (send_fd(sk, fd))
		return EXITED_CHILD_SEND_FAILED;
	if (touch_fresh_pages(FRESH_PAGES))
		return EXITED_CHILD_TOUCH_FAILED;
	spin_ms(20);
	return 0;
}

FIXTURE_SETUP(exited_child)
{
	int sk[2];

	self->pid = 0;
	self->fd = -1;
	self->page = NULL;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk));
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (self->pid == 0) {
		close(sk[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(exited_child_main(sk[1]));
	}
	close(sk[1]);
	self->fd = recv_fd(sk[0]);
	close(sk[0]);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("no fd from the child, its exit status: %d",
		       reap_child(&self->pid));
	}
	self->page = map_state(self->fd);
	ASSERT_NE(NULL, self->page);
}

FIXTURE_TEARDOWN(exited_child)
{
	unmap_state(self->page);
	if (self->fd >= 0)
		close(self->fd);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

TEST_F(exited_child, read_before_reap_fails_with_eperm)
{
	/* Running or a zombie, the child is still the owner. */
	ASSERT_EQ(-1, sys_vperfctr_read(self->fd, NULL, NULL, NULL));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(exited_child, state_is_dead_but_attached_while_zombie)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_EQ(CLD_EXITED, info.si_code);
	ASSERT_EQ(0, info.si_status);

	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DEAD));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_ONCPU));
}

TEST_F(exited_child, state_is_dead_and_detached_after_reap)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DEAD));
	ASSERT_TRUE(page_flag(self->page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(self->page, VPERFCTR_STATE_ONCPU));
}

TEST_F(exited_child, read_after_reap_returns_final_sum)
{
	struct perfctr_sum_ctrs first, second;

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &first, NULL, NULL));
	ASSERT_NE(0ull, first.tsc);
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &second, NULL, NULL));
	ASSERT_EQ(first.tsc, second.tsc);
	ASSERT_EQ(first.tsc, READ_ONCE(self->page->cpu_state.tsc_sum));
}

TEST_F(exited_child, read_after_reap_returns_final_fault_count)
{
	struct perfctr_sum_ctrs sum;

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, NULL, NULL));
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);
	ASSERT_EQ(sum.pmc[0], READ_ONCE(self->page->cpu_state.pmc[0].sum));
}

TEST_F(exited_child, fdinfo_state_is_dead_while_zombie)
{
	siginfo_t info;
	char text[64];

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_STREQ("dead",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
}

TEST_F(exited_child, fdinfo_state_is_detached_after_reap)
{
	char text[64];

	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_STREQ("detached",
		     fdinfo_text(self->fd, "vperfctr-state", text, sizeof(text)));
	ASSERT_EQ(0, fdinfo_value(self->fd, "vperfctr-owner"));
}

TEST_F(exited_child, control_after_reap_fails_with_esrch)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(-1, start_tsc(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

TEST_F(exited_child, unlink_after_reap_succeeds)
{
	ASSERT_EQ(0, reap_child(&self->pid));
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
}

/* exec(): a setuid or setgid exec drops the counters ------------------ */

/* The argument that makes this program the exec helper. */
#define EXEC_HELPER_ARG	"--exec-helper"

/* Exit statuses of the exec helper, and of exec_child() before the exec. */
enum {
	HELPER_HAS_STATE = 0,
	HELPER_HAS_NO_STATE,
	HELPER_OPEN_FAILED,
	EXEC_CHILD_DROP_FAILED = 30,
	EXEC_CHILD_OPEN_FAILED,
	EXEC_CHILD_CONTROL_FAILED,
	EXEC_CHILD_SEND_FAILED,
	EXEC_CHILD_EXEC_FAILED,
};

/*
 * The exec helper: whether the thread has counter state after the exec;
 * with @wait, only once its stdin has closed.
 */
static int exec_helper(bool wait)
{
	char c;

	while (wait && read(STDIN_FILENO, &c, 1) != 0 && errno == EINTR)
		;
	if (sys_vperfctr_open(0, 0) >= 0)
		return HELPER_HAS_STATE;
	return errno == ENOENT ? HELPER_HAS_NO_STATE : HELPER_OPEN_FAILED;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			err = -1;
			break;
		}
	if (n < 0)
		err = -1;
	close(in);
	if (close(out))
		err = -1;
	return err;
}

/* A copy of this program, in a directory of its own. */
struct exec_copy {
	char dir[64];
	char path[96];
};

/* Copy this program to @c, owned by root, with @mode. */
static int make_copy(struct exec_copy *c, mode_t mode)
{
	snprintf(c->dir, sizeof(c->dir), "/tmp/vperfctr-exec.XXXXXX");
	if (!mkdtemp(c->dir)) {
		c->dir[0] = '\0';
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s/helper", c->dir);
	if (chmod(c->dir, 0755) || copy_file("/proc/self/exe", c->path) ||
	    chown(c->path, 0, 0) || chmod(c->path, mode))
		return -1;
	return 0;
}

struct exec_run {
	const char *path;
	bool unprivileged;
	int sk;		/* if not -1: touch pages, pass the fd over it */
	int wait;	/* if not -1: the helper's stdin, it waits for EOF */
};

/*
 * In a child: count (TSC and page faults), then exec the helper at
 * @arg's path, as nobody if @arg says so.  The helper's exit status.
 */
static int exec_child(void *arg)
{
	const struct exec_run *run = arg;
	int fd;

	if (run->unprivileged && become_unprivileged())
		return EXEC_CHILD_DROP_FAILED;
	fd = sys_vperfctr_open(0, 1);
	if (fd < 0)
		return EXEC_CHILD_OPEN_FAILED;
	if (start_faults(fd))
		return EXEC_CHILD_CONTROL_FAILED;
	if (run->sk >= 0 &&
	    (touch_fresh_pages(FRESH_PAGES) || send_fd(run->sk, fd)))
		return EXEC_CHILD_SEND_FAILED;
	if (run->wait >= 0) {
		if (dup2(run->wait, STDIN_FILENO) < 0)
			return EXEC_CHILD_EXEC_FAILED;
		execl(run->path, run->path, EXEC_HELPER_ARG, "wait",
		      (char *)NULL);
	} else {
		execl(run->path, run->path, EXEC_HELPER_ARG, (char *)NULL);
	}
	return EXEC_CHILD_EXEC_FAILED;
}

/* Root makes a setuid-root copy in /tmp, which must not be nosuid. */
FIXTURE(exec)
{
	struct exec_copy copy;
};

FIXTURE_SETUP(exec)
{
	struct statvfs st;

	self->copy.dir[0] = '\0';
	self->copy.path[0] = '\0';
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	if (geteuid() != 0)
		SKIP(return, "making a setuid-root program needs root");
	ASSERT_EQ(0, statvfs("/tmp", &st));
	if (st.f_flag & ST_NOSUID)
		SKIP(return, "/tmp is mounted nosuid");
}

FIXTURE_TEARDOWN(exec)
{
	if (self->copy.path[0])
		unlink(self->copy.path);
	if (self->copy.dir[0])
		rmdir(self->copy.dir);
}

TEST_F(exec, plain_exec_keeps_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 0755));
	ASSERT_EQ(HELPER_HAS_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_drops_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(HELPER_HAS_NO_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setgid_root_exec_drops_the_state)
{
	struct exec_run run = { self->copy.path, true, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 02755));
	ASSERT_EQ(HELPER_HAS_NO_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_by_root_keeps_the_state)
{
	struct exec_run run = { self->copy.path, false, -1, -1 };

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(HELPER_HAS_STATE, in_child(exec_child, &run));
}

TEST_F(exec, setuid_root_exec_leaves_fd_holders_the_final_counts)
{
	const struct vperfctr_state *page;
	struct perfctr_sum_ctrs sum;
	struct exec_run run;
	int sk[2], go[2], fd, ms;
	pid_t pid;

	ASSERT_EQ(0, make_copy(&self->copy, 04755));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk));
	ASSERT_EQ(0, pipe(go));
	run = (struct exec_run){ self->copy.path, true, sk[1], go[0] };
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sk[0]);
		close(go[1]);
		_exit(exec_child(&run));
	}
	close(sk[1]);
	close(go[0]);
	fd = recv_fd(sk[0]);
	ASSERT_GE(fd, 0) {
		TH_LOG("no fd from the child, its exit status: %d", reap(pid));
	}
	page = map_state(fd);
	ASSERT_NE(NULL, page);

	/* The helper waits for go to close: it is alive, but exec'd. */
	for (ms = 0; ms < 2000 && !page_flag(page, VPERFCTR_STATE_DETACHED); ms++)
		sleep_ms(1);
	ASSERT_TRUE(page_flag(page, VPERFCTR_STATE_DETACHED));
	ASSERT_FALSE(page_flag(page, VPERFCTR_STATE_DEAD));
	ASSERT_EQ(0, sys_vperfctr_read(fd, &sum, NULL, NULL)) {
		TH_LOG("vperfctr_read: %s", strerror(errno));
	}
	ASSERT_GE(sum.pmc[0], FRESH_PAGES);

	close(go[1]);
	ASSERT_EQ(HELPER_HAS_NO_STATE, reap(pid));
	unmap_state(page);
	close(fd);
}

/*
 * The exec tests run a copy of this program as "vperfctr_inherit_test
 * --exec-helper [wait]": it then only reports whether it has counter
 * state.
 */
int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], EXEC_HELPER_ARG))
		return exec_helper(argc > 2);
	return test_harness_run(argc, argv);
}
