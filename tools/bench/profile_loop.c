// SPDX-License-Identifier: GPL-2.0
/*
 * profile_loop: the workload of scripts/profile, for a profile of the
 * kernel's instructions on the arm64 icount machine.
 *
 *   profile_loop pp N on|off     N pipe round trips between two
 *                                processes, each counting the TSC,
 *                                cycles and task-clock (on) or nothing
 *   profile_loop fork N on|off   N fork + exit + wait, the children
 *                                inheriting the same counters (on)
 *
 * It warms up, prints PROFILE-GO, runs the N iterations and prints
 * PROFILE-DONE: the profiler logs a window after PROFILE-GO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vperfctr_syscalls.h"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * What the bench's switch and fork figures count: the TSC, the cycle
 * counter (user mode) and task-clock, inherited, with the state page
 * mapped as libperfctr maps it.
 */
static void count(void)
{
	struct vperfctr_control c;
	int fd = sys_vperfctr_open(0, 1);

	if (fd < 0)
		die("vperfctr_open");
	memset(&c, 0, sizeof(c));
	c.cpu_control.tsc_on = 1;
	c.cpu_control.nractrs = 2;
	c.cpu_control.pmc_map[0] = PERFCTR_MAP_ARM64_CYCLES;
	c.cpu_control.evntsel[0] = 0x11 | PERFCTR_ARM64_EXCLUDE_EL1;
	c.cpu_control.pmc_map[1] = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK;
	if (sys_vperfctr_control(fd, &c))
		die("vperfctr_control");
	if (mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0) ==
	    MAP_FAILED)
		die("mmap");
}

static void round_trips(int down, int up, long n)
{
	char b = 0;

	while (n--) {
		if (write(down, &b, 1) != 1 || read(up, &b, 1) != 1)
			die("pipe");
	}
}

static void ping_pong(long n)
{
	int down[2], up[2];
	char b;
	pid_t pid;

	if (pipe(down) || pipe(up))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* The parent's ends closed: its close is our end of file. */
		close(down[1]);
		close(up[0]);
		while (read(down[0], &b, 1) == 1)
			if (write(up[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	round_trips(down[1], up[0], 1000);
	printf("PROFILE-GO\n");
	fflush(stdout);
	round_trips(down[1], up[0], n);
	printf("PROFILE-DONE\n");
	fflush(stdout);
	close(down[1]);
	waitpid(pid, NULL, 0);
}

static void forks(long n)
{
	pid_t pid;

	while (n--) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			die("waitpid");
	}
}

int main(int argc, char **argv)
{
	long n;

	if (argc != 4 || (strcmp(argv[1], "pp") && strcmp(argv[1], "fork"))) {
		fprintf(stderr, "usage: profile_loop pp|fork N on|off\n");
		return 2;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[3], "on"))
		count();
	if (!strcmp(argv[1], "pp")) {
		ping_pong(n);
		return 0;
	}
	forks(100);
	printf("PROFILE-GO\n");
	fflush(stdout);
	forks(n);
	printf("PROFILE-DONE\n");
	fflush(stdout);
	return 0;
}
