// SPDX-License-Identifier: GPL-2.0
/*
 * perfex from end to end, against a fake kernel.
 *
 * perfex's main() is built in as perfex_main().  This program defines
 * syscall() and fstatfs(), so the library linked into it sees a "kernel"
 * with perfctr: a state is a memfd named "vperfctr", and reads return
 * the sums and children sums set in fake_kernel.  With
 * fake_kernel->no_kernel_mode set, a control that counts faults in kernel
 * mode is refused with EACCES, as for an unprivileged user.  With
 * fake_kernel->no_perfctr set it is a kernel without perfctr instead,
 * which answers every perfctr system call with ENOSYS.  The commands
 * perfex runs are real.
 * fake_kernel lives in shared memory so that what perfex's child did is
 * seen by the parent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#include <libperfctr.h>
#include "tap.h"

int perfex_main(int argc, char **argv);

static struct {
	int no_perfctr;			/* every call fails with ENOSYS */
	int no_kernel_mode;		/* PERFCTR_SW_OS fails with EACCES */
	struct perfctr_sum_ctrs sum;	/* what vperfctr_read reports */
	struct perfctr_sum_ctrs children;
	int calls;			/* perfctr system calls made */
	int opens, creats, controls, reads;
	unsigned int tsc_on;		/* from the last control */
	struct vperfctr_control control;	/* the last one installed */
} *fake_kernel;

static int own_state = -1;	/* this process's state, as a memfd */
static struct perfctr_sum_ctrs next_children;	/* for the next run */

static int is_state(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return 0;
	target[len] = '\0';
	return strncmp(target, "/memfd:vperfctr", 15) == 0;
}

static long fake_open(int creat)
{
	struct vperfctr_state page = {
		.magic = VPERFCTR_STATE_MAGIC,
		.abi_version = PERFCTR_ABI_VERSION,
	};

	fake_kernel->opens++;
	if (!creat) {
		if (own_state < 0) {
			errno = ENOENT;
			return -1;
		}
		return dup(own_state);
	}
	if (own_state >= 0) {
		errno = EEXIST;
		return -1;
	}
	fake_kernel->creats++;
	own_state = memfd_create("vperfctr", MFD_CLOEXEC);
	if (own_state < 0 || write(own_state, &page, sizeof(page)) < 0 ||
	    ftruncate(own_state, sysconf(_SC_PAGESIZE)) < 0)
		abort();
	return dup(own_state);
}

/* Does @control count anything in kernel mode? */
static int counts_kernel_mode(const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i;

	for (i = 0; i < cpu->nractrs + cpu->nrictrs; i++) {
		if (cpu->evntsel[i] & PERFCTR_SW_OS)
			return 1;
	}
	return 0;
}

long syscall(long nr, ...)
{
	struct vperfctr_control *control;
	va_list ap;
	long arg[4];

	va_start(ap, nr);
	arg[0] = va_arg(ap, long);
	arg[1] = va_arg(ap, long);
	arg[2] = va_arg(ap, long);
	arg[3] = va_arg(ap, long);
	va_end(ap);

	if (nr < __NR_vperfctr_open || nr > __NR_vperfctr_iresume) {
		errno = ENOSYS;		/* perfex makes no other calls */
		return -1;
	}
	fake_kernel->calls++;
	if (fake_kernel->no_perfctr) {
		errno = ENOSYS;
		return -1;
	}
	if (nr == __NR_vperfctr_open)
		return fake_open(arg[1]);
	if (!is_state(arg[0])) {
		errno = EBADF;
		return -1;
	}
	switch (nr) {
	case __NR_vperfctr_control:
		control = (void *)arg[1];
		fake_kernel->controls++;
		if (fake_kernel->no_kernel_mode &&
		    counts_kernel_mode(control)) {
			errno = EACCES;
			return -1;
		}
		fake_kernel->tsc_on = control->cpu_control.tsc_on;
		fake_kernel->control = *control;
		return 0;
	case __NR_vperfctr_read:
		fake_kernel->reads++;
		if (arg[1])
			memcpy((void *)arg[1], &fake_kernel->sum,
			       sizeof(fake_kernel->sum));
		if (arg[2])
			memcpy((void *)arg[2], &fake_kernel->control,
			       sizeof(fake_kernel->control));
		if (arg[3])
			memcpy((void *)arg[3], &fake_kernel->children,
			       sizeof(fake_kernel->children));
		return 0;
	}
	return 0;
}

int fstatfs(int fd, struct statfs *sfs)
{
	if (fcntl(fd, F_GETFD) < 0)
		return -1;
	memset(sfs, 0, sizeof(*sfs));
	sfs->f_type = is_state(fd) ? VPERFCTRFS_MAGIC : 0x01021994;
	return 0;
}

static char err_path[] = "/tmp/perfex-test-err-XXXXXX";
static char out_path[] = "/tmp/perfex-test-out-XXXXXX";

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t len = 0;

	if (f) {
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
	return buf;
}

/* How the fake kernel behaves for the next run of perfex. */
enum kernel_kind {
	WITH_PERFCTR,
	WITHOUT_PERFCTR,
	UNPRIVILEGED,		/* with perfctr, no kernel-mode counting */
};

/*
 * Run perfex with standard error going to err_path, on a kernel of
 * @kind.  The sums it will read are those of the default events: a
 * task-clock of 1,234.57 msec, 3 context switches, 1 migration, 105
 * page faults and 2,998,123,456 TSC ticks; the children have none.
 */
static int perfex_on(enum kernel_kind kind, char **argv)
{
	int argc = 0, saved, fd, status;

	memset(fake_kernel, 0, sizeof(*fake_kernel));
	fake_kernel->no_perfctr = kind == WITHOUT_PERFCTR;
	fake_kernel->no_kernel_mode = kind == UNPRIVILEGED;
	fake_kernel->sum.tsc = 2998123456ull;
	fake_kernel->sum.pmc[0] = 1234567890;
	fake_kernel->sum.pmc[1] = 3;
	fake_kernel->sum.pmc[2] = 1;
	fake_kernel->sum.pmc[3] = 105;
	fake_kernel->children = next_children;
	memset(&next_children, 0, sizeof(next_children));
	own_state = -1;
	while (argv[argc])
		argc++;

	fflush(stderr);
	saved = dup(2);
	fd = open(err_path, O_WRONLY | O_TRUNC);
	dup2(fd, 2);
	close(fd);
	status = perfex_main(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return status;
}

static int perfex(char **argv)
{
	return perfex_on(WITH_PERFCTR, argv);
}

#define ARGV(...)	((char *[]){ "perfex", __VA_ARGS__, NULL })

static void test_runs(void)
{
	int status = perfex(ARGV("-o", out_path, "true"));

	tap_is_int(status, 0, "true: exit 0");
	tap_ok(fake_kernel->opens == 2 && fake_kernel->creats == 1,
	       "true: probe without creating, then the child creates");
	tap_ok(fake_kernel->controls == 1 && fake_kernel->tsc_on == 1,
	       "true: the child turns the TSC on");
	tap_ok(fake_kernel->control.cpu_control.nractrs == 4 &&
	       fake_kernel->control.cpu_control.pmc_map[3] ==
	       (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_PAGE_FAULTS) &&
	       fake_kernel->control.cpu_control.evntsel[3] ==
	       (PERFCTR_SW_USR | PERFCTR_SW_OS),
	       "true: and four software counters, page faults in both modes");
	tap_is_int(fake_kernel->reads, 1, "true: sums read once, at the end");
	tap_ok(strstr(slurp(out_path),
		      "\n Performance counter stats for 'true':\n\n"
		      "          1,234.57 msec task-clock             #") &&
	       strstr(slurp(out_path),
		      "\n                 3      context-switches       #"
		      "    2.430 /sec\n"
		      "                 1      cpu-migrations         #"
		      "    0.810 /sec\n"
		      "               105      page-faults            #"
		      "   85.050 /sec\n"
		      "     2,998,123,456      tsc\n\n"),
	       "true: report in the -o file");
	tap_is_str(slurp(err_path), "", "true: nothing on standard error");
	tap_ok(own_state < 0, "true: the parent has no state of its own");
}

static void test_children(void)
{
	int status;

	next_children.tsc = 7000000000ull;
	next_children.pmc[0] = 500000000;
	next_children.pmc[3] = 4100;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_is_int(status, 0, "children: exit 0");
	tap_ok(strstr(slurp(out_path),
		      "\n              self          children"
		      "             total\n"
		      "          1,234.57            500.00          1,734.57"
		      " msec task-clock") &&
	       strstr(slurp(out_path),
		      "\n               105             4,100             4,205"
		      "      page-faults            #    2.424 K/sec\n"
		      "     2,998,123,456     7,000,000,000     9,998,123,456"
		      "      tsc\n\n"),
	       "children: self, children and total columns");
}

static void test_unprivileged(void)
{
	int status = perfex_on(UNPRIVILEGED, ARGV("-o", out_path, "true"));

	tap_is_int(status, 0, "unprivileged: exit 0");
	tap_ok(fake_kernel->controls == 2 &&
	       fake_kernel->control.cpu_control.nractrs == 4 &&
	       fake_kernel->control.cpu_control.evntsel[3] == PERFCTR_SW_USR,
	       "unprivileged: EACCES, then page faults in user mode only");
	tap_ok(strstr(slurp(out_path), "\n               105      "
		      "page-faults:u          #   85.050 /sec\n") != NULL,
	       "unprivileged: reported as page-faults:u");
	tap_is_str(slurp(err_path), "", "unprivileged: no complaint");
}

static void test_kernel_mode_refused(void)
{
	char marker[] = "/tmp/perfex-test-ran-XXXXXX";
	int fd, status;

	fd = mkstemp(marker);
	close(fd);
	unlink(marker);
	status = perfex_on(UNPRIVILEGED, ARGV("-e", "page-faults:k", "touch",
					      marker));
	tap_is_int(status, 1, "page-faults:k unprivileged: exit 1");
	tap_is_str(slurp(err_path), "perfex: cannot start 'touch': "
		   "vperfctr_control: Permission denied\n"
		   "perfex: counting kernel mode (:k) needs CAP_PERFMON or "
		   "CAP_SYS_ADMIN, or kernel.perf_event_paranoid below 2\n",
		   "page-faults:k unprivileged: EACCES, and what it takes");
	tap_is_int(fake_kernel->controls, 1,
		   "page-faults:k unprivileged: no fallback");
	tap_ok(access(marker, F_OK) < 0 && errno == ENOENT,
	       "page-faults:k unprivileged: the command is not run");
	unlink(marker);
}

static void test_events_option(void)
{
	const struct perfctr_cpu_control *cpu =
		&fake_kernel->control.cpu_control;
	int status = perfex(ARGV("-o", out_path, "-e", "tsc,faults:u",
				 "true"));

	tap_is_int(status, 0, "-e tsc,faults:u: exit 0");
	tap_ok(cpu->tsc_on == 1 && cpu->nractrs == 1 &&
	       cpu->pmc_map[0] ==
	       (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_PAGE_FAULTS) &&
	       cpu->evntsel[0] == PERFCTR_SW_USR,
	       "-e tsc,faults:u: TSC and one counter, user mode");
	tap_ok(strstr(slurp(out_path), ":\n\n     2,998,123,456      tsc\n"
		      "     1,234,567,890      faults:u               # ")
	       != NULL,
	       "-e tsc,faults:u: those two, in that order, as named");

	status = perfex(ARGV("-e", "bogus", "true"));
	tap_is_int(status, 2, "-e bogus: exit 2");
	tap_ok(strncmp(slurp(err_path), "perfex: unknown event 'bogus'\n",
		       30) == 0, "-e bogus: says so first");
	tap_is_int(fake_kernel->calls, 0, "-e bogus: no system call");
}

static void test_report_on_stderr(void)
{
	int status = perfex(ARGV("sh", "-c", "exit 3"));

	tap_is_int(status, 3, "exit 3: perfex exits 3");
	tap_ok(strstr(slurp(err_path), "Performance counter stats for "
		      "'sh -c exit 3':") != NULL,
	       "exit 3: report on standard error");
}

static void test_killed(void)
{
	int status = perfex(ARGV("-o", out_path, "sh", "-c",
					 "kill -TERM $$"));

	tap_is_int(status, 128 + 15, "killed by SIGTERM: 143");
	tap_ok(strstr(slurp(err_path), "perfex: 'sh' was killed by signal 15")
	       != NULL, "killed: said so");
	tap_ok(strstr(slurp(out_path), "      tsc\n") != NULL,
	       "killed: report still written");
}

static void test_exec_failures(void)
{
	char path[] = "/tmp/perfex-test-noexec-XXXXXX";
	char expect[128];
	int fd, status;

	status = perfex(ARGV("/nonexistent/cmd"));
	tap_is_int(status, 127, "missing command: 127");
	tap_is_str(slurp(err_path), "perfex: cannot run '/nonexistent/cmd': "
		   "No such file or directory\n", "missing command: message");

	fd = mkstemp(path);
	close(fd);
	status = perfex(ARGV(path));
	tap_is_int(status, 126, "not executable: 126");
	snprintf(expect, sizeof(expect),
		 "perfex: cannot run '%s': Permission denied\n", path);
	tap_is_str(slurp(err_path), expect, "not executable: message");
	unlink(path);
}

static void test_no_perfctr(void)
{
	char marker[] = "/tmp/perfex-test-ran-XXXXXX";
	int fd, status;

	fd = mkstemp(marker);
	close(fd);
	unlink(marker);
	if (truncate(out_path, 0) < 0)
		abort();
	status = perfex_on(WITHOUT_PERFCTR,
			   ARGV("-o", out_path, "touch", marker));

	tap_is_int(status, 1, "no perfctr: exit 1");
	tap_is_str(slurp(err_path), "perfex: this kernel has no perfctr "
		   "support (vperfctr_open: Function not implemented)\n",
		   "no perfctr: message");
	tap_is_int(fake_kernel->calls, 1,
		   "no perfctr: one system call, the probe");
	tap_ok(access(marker, F_OK) < 0 && errno == ENOENT,
	       "no perfctr: the command is not run");
	tap_is_str(slurp(out_path), "", "no perfctr: no report");
	unlink(marker);
}

static void test_bad_output(void)
{
	int status = perfex(ARGV("-o", "/nonexistent/dir/x", "true"));

	tap_is_int(status, 1, "unwritable -o: exit 1");
	tap_is_str(slurp(err_path), "perfex: cannot open '/nonexistent/dir/x'"
		   ": No such file or directory\n", "unwritable -o: message");
	tap_is_int(fake_kernel->creats, 0, "unwritable -o: nothing started");
}

static void test_usage(void)
{
	tap_is_int(perfex((char *[]){ "perfex", NULL }), 2,
		   "no arguments: exit 2");
	tap_ok(strstr(slurp(err_path), "Try 'perfex --help'") != NULL,
	       "no arguments: hint");
}

int main(void)
{
	int fd;

	fake_kernel = mmap(NULL, sizeof(*fake_kernel), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fake_kernel == MAP_FAILED)
		return 1;
	fd = mkstemp(err_path);
	close(fd);
	fd = mkstemp(out_path);
	close(fd);

	test_runs();
	test_children();
	test_unprivileged();
	test_kernel_mode_refused();
	test_events_option();
	test_report_on_stderr();
	test_killed();
	test_exec_failures();
	test_no_perfctr();
	test_bad_output();
	test_usage();

	unlink(err_path);
	unlink(out_path);
	return tap_done();
}
