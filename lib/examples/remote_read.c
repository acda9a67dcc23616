// SPDX-License-Identifier: LGPL-2.1
/*
 * remote_read: count another process's events, from outside it.
 *
 * The child waits on a pipe.  The parent takes it under ptrace control
 * (PTRACE_SEIZE and PTRACE_INTERRUPT stop it), opens its counter state
 * with rvperfctr_open() and programs it, by event name, with the TSC
 * and software counters.  Then it lets the child run: the child spins
 * for a while, writes to WORK_PAGES fresh pages and stops itself with
 * SIGSTOP.  The parent reads the child's counts with rvperfctr_read_ctrs(),
 * unlinks the state and lets the child finish.  Only the TSC and
 * software counters are used, so it runs on any machine, QEMU's TCG
 * emulation included; /sys must be mounted, for perfctr_info_read().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include <libperfctr.h>

#define WORK_PAGES	64
#define SPIN_NS		20000000L	/* 20 ms of the child's CPU time */

static const char *const event_names[] = {
	"tsc", "task-clock", "page-faults:u", "context-switches",
};

#define NR_EVENTS	(sizeof(event_names) / sizeof(event_names[0]))

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The child: wait for the parent, work, stop, exit. */
static int child(int go)
{
	long size = sysconf(_SC_PAGESIZE), start;
	volatile unsigned long x = 0;
	volatile char *mem;
	unsigned long i;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go, &c, 1) != 1)
		return 2;
	start = cpu_ns();
	while (cpu_ns() - start < SPIN_NS)
		for (i = 0; i < 10000; i++)
			x += i ^ (x >> 3);
	mem = mmap(NULL, WORK_PAGES * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 3;
	for (i = 0; i < WORK_PAGES; i++)
		mem[i * size] = 1;
	raise(SIGSTOP);		/* for the parent to read the counts */
	return 0;
}

/* Wait for @pid to stop; 0, or -1 with a message. */
static int wait_stop(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "remote_read: waitpid: %s\n", strerror(errno));
		return -1;
	}
	if (!WIFSTOPPED(status)) {
		fprintf(stderr, "remote_read: the child did not stop %s "
			"(status 0x%x)\n", what, status);
		return -1;
	}
	return 0;
}

/* Program the counters of @rvperfctr; the events' indices into @index. */
static int program(const struct rvperfctr *rvperfctr, int *index)
{
	char err[PERFCTR_EVENT_ERROR_SIZE];
	struct perfctr_event_spec event;
	struct vperfctr_control control;
	struct perfctr_info info;
	unsigned int i;

	if (perfctr_info_read(&info) < 0) {
		fprintf(stderr, "remote_read: perfctr_info_read: %s\n",
			strerror(errno));
		return -1;
	}
	memset(&control, 0, sizeof(control));
	for (i = 0; i < NR_EVENTS; i++) {
		if (perfctr_event_parse(&event, event_names[i], &info, err,
					sizeof(err)) < 0) {
			fprintf(stderr, "remote_read: %s\n", err);
			return -1;
		}
		index[i] = perfctr_event_add(&control, &event, &info, err,
					     sizeof(err));
		if (index[i] < 0) {
			fprintf(stderr, "remote_read: %s\n", err);
			return -1;
		}
	}
	if (rvperfctr_control(rvperfctr, &control) < 0) {
		fprintf(stderr, "remote_read: rvperfctr_control: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Is @sum what the child's work must have counted?  Print it. */
static int report(pid_t pid, const struct perfctr_sum_ctrs *sum,
		  const int *index)
{
	unsigned long long value[NR_EVENTS];
	unsigned int i;

	printf("remote_read: child %d:", (int)pid);
	for (i = 0; i < NR_EVENTS; i++) {
		value[i] = perfctr_event_value(sum, index[i]);
		printf("%s %llu %s", i ? "," : "", value[i], event_names[i]);
	}
	printf("\n");
	/* The kernel's two clocks may differ a little: half will do. */
	if (value[0] == 0 || value[1] < SPIN_NS / 2 || value[2] < WORK_PAGES) {
		fprintf(stderr, "remote_read: implausible: the child spun for "
			"%ld ns and wrote to %d fresh pages\n", SPIN_NS,
			WORK_PAGES);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct rvperfctr *rvperfctr = NULL;
	struct perfctr_sum_ctrs sum;
	int go[2], index[NR_EVENTS], status;
	pid_t pid;

	if (pipe(go) < 0) {
		fprintf(stderr, "remote_read: pipe: %s\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "remote_read: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		_exit(child(go[0]));
	}
	close(go[0]);

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) {
		fprintf(stderr, "remote_read: ptrace: %s\n", strerror(errno));
		goto out;
	}
	if (wait_stop(pid, "for PTRACE_INTERRUPT") < 0)
		goto out;

	rvperfctr = rvperfctr_open(pid);
	if (!rvperfctr) {
		fprintf(stderr, "remote_read: rvperfctr_open: %s\n",
			strerror(errno));
		goto out;
	}
	if (program(rvperfctr, index) < 0)
		goto out;

	/* Let it run and work; it stops itself when done. */
	if (ptrace(PTRACE_CONT, pid, 0, 0) < 0 || write(go[1], "g", 1) != 1) {
		fprintf(stderr, "remote_read: starting the child: %s\n",
			strerror(errno));
		goto out;
	}
	if (wait_stop(pid, "with SIGSTOP") < 0)
		goto out;

	if (rvperfctr_read_ctrs(rvperfctr, &sum) < 0) {
		fprintf(stderr, "remote_read: rvperfctr_read_ctrs: %s\n",
			strerror(errno));
		goto out;
	}
	if (report(pid, &sum, index) < 0)
		goto out;
	if (rvperfctr_unlink(rvperfctr) < 0) {
		fprintf(stderr, "remote_read: rvperfctr_unlink: %s\n",
			strerror(errno));
		goto out;
	}
	rvperfctr_close(rvperfctr);
	rvperfctr = NULL;

	/* Detach, dropping the SIGSTOP, and let it exit. */
	if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0 ||
	    waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "remote_read: letting the child go: %s\n",
			strerror(errno));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "remote_read: the child failed (status 0x%x)\n",
			status);
		return 1;
	}
	return 0;

out:
	rvperfctr_close(rvperfctr);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 1;
}
