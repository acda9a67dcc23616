// SPDX-License-Identifier: GPL-2.0
/*
 * perfex from end to end, against a fake kernel.
 *
 * perfex's main() is built in as perfex_main().  This program defines
 * syscall() and fstatfs(), so the library linked into it sees a "kernel"
 * with perfctr: a state is a memfd named "vperfctr", and reads return
 * the TSC sum set in fake_kernel.  With fake_kernel->no_perfctr set it
 * is a kernel without perfctr instead, which answers every perfctr
 * system call with ENOSYS.  The commands perfex runs are real.
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
	unsigned long long tsc;		/* what vperfctr_read reports */
	int calls;			/* perfctr system calls made */
	int opens, creats, controls, reads;
	unsigned int tsc_on;		/* from the last control */
} *fake_kernel;

static int own_state = -1;	/* this process's state, as a memfd */

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

long syscall(long nr, ...)
{
	struct vperfctr_control *control;
	struct perfctr_sum_ctrs *sum;
	va_list ap;
	long arg[2];

	va_start(ap, nr);
	arg[0] = va_arg(ap, long);
	arg[1] = va_arg(ap, long);
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
		fake_kernel->tsc_on = control->cpu_control.tsc_on;
		return 0;
	case __NR_vperfctr_read:
		sum = (void *)arg[1];
		fake_kernel->reads++;
		if (sum) {
			memset(sum, 0, sizeof(*sum));
			sum->tsc = fake_kernel->tsc;
		}
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

/*
 * Run perfex with standard error going to err_path, on a kernel with
 * perfctr or, if @no_perfctr, without.
 */
static int perfex_on(int no_perfctr, char **argv)
{
	int argc = 0, saved, fd, status;

	memset(fake_kernel, 0, sizeof(*fake_kernel));
	fake_kernel->no_perfctr = no_perfctr;
	fake_kernel->tsc = 2998123456ull;
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
	return perfex_on(0, argv);
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
	tap_is_int(fake_kernel->reads, 1, "true: sums read once, at the end");
	tap_ok(strstr(slurp(out_path),
		      "\n Performance counter stats for 'true':\n\n"
		      "     2,998,123,456      tsc\n\n") != NULL,
	       "true: report in the -o file");
	tap_is_str(slurp(err_path), "", "true: nothing on standard error");
	tap_ok(own_state < 0, "true: the parent has no state of its own");
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
	status = perfex_on(1, ARGV("-o", out_path, "touch", marker));

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
