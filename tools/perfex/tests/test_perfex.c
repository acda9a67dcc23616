// SPDX-License-Identifier: GPL-2.0
/*
 * perfex from end to end, against a fake kernel.
 *
 * perfex's perfex_main() is linked in, and perfex_info_read points to
 * fake_perfctr_info_read().  This
 * program defines syscall() and fstatfs(), so the library linked into it
 * sees a "kernel" with perfctr: a state is a memfd named "vperfctr", and
 * reads return the sums and children sums set in fake_kernel.  With
 * fake_kernel->no_kernel_mode set, a control that counts in kernel mode
 * (faults or hardware) is refused with EACCES, as for an unprivileged
 * user; with fake_kernel->hw_busy, one with hardware counters is refused
 * with EBUSY, as while perf holds them.  With fake_kernel->no_perfctr set
 * it is a kernel without perfctr instead, which answers every perfctr
 * system call with ENOSYS.  The machine is the one of fake_kernel->info,
 * TSC only unless a test says otherwise.  The commands perfex runs are
 * real.
 * fake_kernel lives in shared memory so that what perfex's child did is
 * seen by the parent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <libperfctr.h>
#include "events.h"
#include "machines.h"
#include "parse.h"
#include "region_area.h"
#include "tap.h"

#include "../perfex.h"

static struct {
	int no_perfctr;			/* every call fails with ENOSYS */
	int no_kernel_mode;		/* PERFCTR_SW_OS fails with EACCES */
	int hw_busy;			/* hardware counters: EBUSY */
	/*
	 * The state page says the counters run, hardware ones included,
	 * and vperfctr_read of the sums alone is refused with EPERM, as
	 * for a running thread that is not the caller's.
	 */
	int live;
	/*
	 * With live: the page is in the middle of an update (seq odd) until
	 * this many reads of the sums alone have been refused, as when its
	 * owner changes it under every attempt of a reader.
	 */
	int busy_reads;
	struct perfctr_info info;	/* what perfctr_info_read() says */
	int info_errno;			/* or its failure */
	struct perfctr_sum_ctrs sum;	/* what vperfctr_read reports */
	struct perfctr_sum_ctrs children;
	int calls;			/* perfctr system calls made */
	int opens, creats, controls, reads, unlinks;
	unsigned int tsc_on;		/* from the last control */
	struct vperfctr_control control;	/* the last one installed */
} *fake_kernel;

static int own_state = -1;	/* this process's state, as a memfd */
static struct perfctr_sum_ctrs next_children;	/* for the next run */

/*
 * The machines perfctr_info_read() may describe: those of machines.h,
 * and by default this one, TSC only.
 */
static const struct perfctr_info default_machine = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_GENERIC,
	.cpu_features = PERFCTR_FEATURE_RDTSC,
	.cpu_khz = 2893000,
	.tsc_to_cpu_mult = 1,
	.driver_version = "6.0",
};

static const struct perfctr_info *next_info;	/* NULL: TSC only */
static const struct perfctr_sum_ctrs *next_sums;	/* NULL: the usual */
static int next_info_errno;	/* the next run cannot read its info */
static int next_hw_busy, next_live, next_busy_reads;

static int fake_perfctr_info_read(struct perfctr_info *info)
{
	if (fake_kernel->info_errno == EPROTO)
		*info = fake_kernel->info;	/* filled in all the same */
	if (fake_kernel->info_errno) {
		errno = fake_kernel->info_errno;
		return -1;
	}
	*info = fake_kernel->info;
	return 0;
}

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
	unsigned int i;

	page.cpu_state.tsc_sum = fake_kernel->sum.tsc;
	page.nrsums = PERFCTR_MAX_NRCTRS;	/* any sum may be non-zero */
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		page.cpu_state.pmc[i].sum = fake_kernel->sum.pmc[i];

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

/*
 * Does @control count anything in kernel mode?  Bit 17 of any kind, but
 * on arm64 a hardware counter that does not exclude EL1.
 */
static int counts_kernel_mode(const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	int arm64 = fake_kernel->info.cpu_type == PERFCTR_ARM64_PMUV3;
	unsigned int i;

	for (i = 0; i < cpu->nractrs + cpu->nrictrs; i++) {
		if (arm64 && !(cpu->pmc_map[i] & PERFCTR_MAP_SOFTWARE)) {
			if (!(cpu->evntsel[i] & PERFCTR_ARM64_EXCLUDE_EL1))
				return 1;
		} else if (cpu->evntsel[i] & PERFCTR_SW_OS) {
			return 1;
		}
	}
	return 0;
}

static int has_hardware(const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i;

	for (i = 0; i < cpu->nractrs + cpu->nrictrs; i++) {
		if (!(cpu->pmc_map[i] & PERFCTR_MAP_SOFTWARE))
			return 1;
	}
	return 0;
}

/* fake_kernel->live: the page of state @fd says @control runs. */
static void run_live(int fd, const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	struct vperfctr_state page;
	unsigned int i;

	if (pread(fd, &page, sizeof(page), 0) != sizeof(page))
		abort();
	page.flags |= VPERFCTR_STATE_ONCPU;
	page.seq = fake_kernel->busy_reads ? 1 : 0;
	page.cpu_state.cstatus = cpu->nractrs;
	/* Live: the hardware counters, which no rdpmc here can read. */
	page.live = 0;
	for (i = 0; i < cpu->nractrs; i++) {
		page.cpu_state.pmc[i].map = cpu->pmc_map[i];
		page.cpu_state.pmc[i].width = 48;
		if (!(cpu->pmc_map[i] & PERFCTR_MAP_SOFTWARE))
			page.live |= 1ULL << i;
	}
	if (pwrite(fd, &page, sizeof(page), 0) != sizeof(page))
		abort();
}

/* The page of state @fd is no longer in the middle of an update. */
static void end_update(int fd)
{
	__u32 seq = 2;

	if (pwrite(fd, &seq, sizeof(seq),
		   offsetof(struct vperfctr_state, seq)) != sizeof(seq))
		abort();
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
		if (fake_kernel->hw_busy && has_hardware(control)) {
			errno = EBUSY;
			return -1;
		}
		fake_kernel->tsc_on = control->cpu_control.tsc_on;
		fake_kernel->control = *control;
		if (fake_kernel->live)
			run_live(arg[0], control);
		return 0;
	case __NR_vperfctr_unlink:
		fake_kernel->unlinks++;
		return 0;
	case __NR_vperfctr_read:
		if (fake_kernel->live && !arg[3]) {
			if (fake_kernel->busy_reads &&
			    !--fake_kernel->busy_reads)
				end_update(arg[0]);
			errno = EPERM;
			return -1;
		}
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

/*
 * The time that starts line @n of @text, an interval line of -I, or -1:
 * how late the first interval comes depends on the machine's load.
 */
static double interval_time(const char *text, unsigned int n)
{
	char line[512];
	double t;
	int end;

	if (nth_line(text, n, line, sizeof(line)) ||
	    sscanf(line, "%lf%n", &t, &end) != 1 || line[end] != ' ')
		return -1;
	return t;
}

static int starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

static char err_path[] = "/tmp/perfex-test-err-XXXXXX";
static char out_path[] = "/tmp/perfex-test-out-XXXXXX";
static char std_path[] = "/tmp/perfex-test-std-XXXXXX";
static int next_has_state;	/* the next run's perfex has a state */

static char *slurp(const char *path)
{
	static char buf[65536];
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
 * page faults and 2,998,123,456 TSC ticks, and on counters 4 to 7, which
 * count cycles, instructions, branches and branch-misses on an Intel
 * machine, 4e9, 6e9, 1e9 and 1e7; the children have none; unless
 * next_sums says otherwise.  Standard output goes to std_path.
 */
static int perfex_on(enum kernel_kind kind, char **argv)
{
	int argc = 0, saved, saved_out, fd, status;

	memset(fake_kernel, 0, sizeof(*fake_kernel));
	fake_kernel->no_perfctr = kind == WITHOUT_PERFCTR;
	fake_kernel->no_kernel_mode = kind == UNPRIVILEGED;
	fake_kernel->sum.tsc = 2998123456ull;
	fake_kernel->sum.pmc[0] = 1234567890;
	fake_kernel->sum.pmc[1] = 3;
	fake_kernel->sum.pmc[2] = 1;
	fake_kernel->sum.pmc[3] = 105;
	fake_kernel->sum.pmc[4] = 4000000000ull;
	fake_kernel->sum.pmc[5] = 6000000000ull;
	fake_kernel->sum.pmc[6] = 1000000000ull;
	fake_kernel->sum.pmc[7] = 10000000ull;
	if (next_sums)
		fake_kernel->sum = *next_sums;
	next_sums = NULL;
	fake_kernel->children = next_children;
	memset(&next_children, 0, sizeof(next_children));
	fake_kernel->info = next_info ? *next_info : default_machine;
	fake_kernel->info_errno = kind == WITHOUT_PERFCTR ? ENOSYS :
				  next_info_errno;
	fake_kernel->hw_busy = next_hw_busy;
	fake_kernel->live = next_live;
	fake_kernel->busy_reads = next_busy_reads;
	next_info = NULL;
	next_info_errno = next_hw_busy = next_live = next_busy_reads = 0;
	if (own_state >= 0)
		close(own_state);
	own_state = -1;
	if (next_has_state) {
		close(fake_open(1));
		fake_kernel->opens = fake_kernel->creats = 0;
		next_has_state = 0;
	}
	while (argv[argc])
		argc++;

	fflush(stdout);
	fflush(stderr);
	saved = dup(2);
	saved_out = dup(1);
	fd = open(err_path, O_WRONLY | O_TRUNC);
	dup2(fd, 2);
	close(fd);
	fd = open(std_path, O_WRONLY | O_TRUNC);
	dup2(fd, 1);
	close(fd);
	status = perfex_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	dup2(saved_out, 1);
	close(saved_out);
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
	tap_ok(starts_with(slurp(err_path), "perfex: cannot start 'touch': "
			   "vperfctr_control: Permission denied\n"
			   "perfex: page-faults:k: kernel-mode counting needs "
			   "CAP_PERFMON (") &&
	       strstr(slurp(err_path), "; perf_event_paranoid "),
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
	char want[512];
	int status = perfex(ARGV("-o", out_path, "-e", "tsc,faults:u",
				 "true"));

	tap_is_int(status, 0, "-e tsc,faults:u: exit 0");
	tap_ok(cpu->tsc_on == 1 && cpu->nractrs == 1 &&
	       cpu->pmc_map[0] ==
	       (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_PAGE_FAULTS) &&
	       cpu->evntsel[0] == PERFCTR_SW_USR,
	       "-e tsc,faults:u: TSC and one counter, user mode");
	tap_ok(strstr(slurp(out_path), ":\n\n     2,998,123,456      tsc\n"
		      "     1,234,567,890      page-faults:u          # ")
	       != NULL,
	       "-e tsc,faults:u: those two, in that order, named as "
	       "libperfctr names them");

	status = perfex(ARGV("-e", "bogus", "true"));
	tap_is_int(status, 2, "-e bogus: exit 2");
	snprintf(want, sizeof(want), "perfex: bogus: unknown event (%s)\n"
		 "Try 'perfex --help' for more information.\n", native_why());
	tap_is_str(slurp(err_path), want,
		   "-e bogus: libperfctr's message, and the hint");
	tap_is_int(fake_kernel->calls, 0, "-e bogus: no system call");

	status = perfex(ARGV("-e", "tsc,cycles:u", "true"));
	tap_is_int(status, 2, "-e cycles:u, TSC only: exit 2");
	tap_is_str(slurp(err_path), "perfex: cycles:u: this CPU has no "
		   "hardware counters (driver: x86 TSC)\n"
		   "Try 'perfex --help' for more information.\n",
		   "-e cycles:u, TSC only: libperfctr's message, and the hint");
	tap_is_int(fake_kernel->calls, 0, "-e cycles:u, TSC only: no system "
		   "call");

	next_info = &intel;
	status = perfex(ARGV("-e", "r1c2,r1c3,r1c4,r1c5,branches", "true"));
	tap_ok(status == 2 && !strcmp(slurp(err_path), "perfex: branches: all "
				      "4 general-purpose counters are in use\n"
				      "Try 'perfex --help' for more "
				      "information.\n") &&
	       fake_kernel->calls == 0,
	       "-e, more than the counters hold: a usage error");

	status = perfex_on(WITHOUT_PERFCTR, ARGV("-e", "cycles", "true"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), "perfex: this kernel "
				      "has no perfctr support (vperfctr_open: "
				      "Function not implemented)\n"),
	       "-e cycles, no perfctr: said plainly, exit 1");

	next_info_errno = ENOENT;
	status = perfex(ARGV("-e", "cs,cycles", "true"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), "perfex: cycles: "
				      "cannot tell whether this machine counts "
				      "it: no /sys/kernel: is sysfs "
				      "mounted?\n") &&
	       fake_kernel->creats == 0,
	       "-e cycles, machine not known: cannot tell, exit 1");
	next_info_errno = ENOENT;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_ok(status == 0 && fake_kernel->control.cpu_control.nractrs == 4 &&
	       fake_kernel->tsc_on && !strstr(slurp(out_path), "cycles"),
	       "machine not known: today's defaults");
}

/*
 * While perf holds the hardware counters (the control gets EBUSY), the
 * defaults go on without them, said once, and an event given with -e
 * fails with what frees them: on @info, named @name, for @event.
 */
static void test_held_by_perf(const struct perfctr_info *info,
			      const char *name, char *event)
{
	const struct perfctr_cpu_control *cpu =
		&fake_kernel->control.cpu_control;
	int status;

	next_info = info;
	next_hw_busy = 1;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_ok(status == 0 && fake_kernel->controls == 2 &&
	       cpu->nractrs == 4 && cpu->tsc_on &&
	       !strstr(slurp(out_path), "cycles") &&
	       strstr(slurp(out_path), "      page-faults   ") &&
	       !strcmp(slurp(err_path), "perfex: perf holds the hardware "
		       "counters, which it and perfctr take in turns: "
		       "counting the software events only\n"),
	       "%s, counters held by perf: the defaults without hardware, "
	       "said once", name);

	next_info = info;
	next_hw_busy = 1;
	status = perfex(ARGV("-e", event, "true"));
	tap_is_int(status, 1, "%s, counters held by perf, -e %s: exit 1",
		   name, event);
	tap_is_str(slurp(err_path), "perfex: cannot start 'true': "
		   "vperfctr_control: Device or resource busy\n"
		   "perfex: perf holds the hardware counters, which it and "
		   "perfctr take in turns: they are free once its events are "
		   "closed and the NMI watchdog is off "
		   "(sysctl kernel.nmi_watchdog=0)\n",
		   "%s, counters held by perf, -e %s: what frees them",
		   name, event);
}

/* A machine with hardware counters: perf stat's defaults, and -e. */
static void test_hardware(void)
{
	const struct perfctr_cpu_control *cpu =
		&fake_kernel->control.cpu_control;
	int status;

	next_info = &intel;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_is_int(status, 0, "Intel: exit 0");
	tap_ok(fake_kernel->controls == 1 && cpu->nractrs == 8 &&
	       cpu->pmc_map[3] ==
	       (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_PAGE_FAULTS) &&
	       cpu->pmc_map[4] == (PERFCTR_MAP_X86_FIXED | 1) &&
	       cpu->evntsel[4] == 0x30000 &&
	       cpu->pmc_map[5] == (PERFCTR_MAP_X86_FIXED | 0) &&
	       cpu->pmc_map[6] == 0 && cpu->evntsel[6] == 0x300c4 &&
	       cpu->pmc_map[7] == 1 && cpu->evntsel[7] == 0x300c5 &&
	       cpu->tsc_on,
	       "Intel: the defaults' control, cycles and instructions on "
	       "fixed counters");
	tap_ok(strstr(slurp(out_path),
		      "               105      page-faults            #"
		      "   85.050 /sec\n"
		      "     4,000,000,000      cycles                 #"
		      "    3.240 GHz\n"
		      "     6,000,000,000      instructions           #"
		      "    1.50  insn per cycle\n"
		      "     1,000,000,000      branches               #"
		      "  810.000 M/sec\n"
		      "        10,000,000      branch-misses          #"
		      "    1.00% of all branches\n"
		      "     2,998,123,456      tsc\n\n") != NULL,
	       "Intel: perf stat's defaults, with their figures");

	next_info = &intel;
	status = perfex_on(UNPRIVILEGED, ARGV("-o", out_path, "true"));
	tap_ok(status == 0 && fake_kernel->controls == 2 &&
	       cpu->evntsel[3] == PERFCTR_SW_USR &&
	       cpu->evntsel[4] == 0x10000 &&
	       cpu->evntsel[6] == 0x100c4 && cpu->evntsel[7] == 0x100c5,
	       "Intel, unprivileged: EACCES, then user mode only");
	tap_ok(strstr(slurp(out_path),
		      "\n     4,000,000,000      cycles:u  ") &&
	       strstr(slurp(out_path), "\n     6,000,000,000      "
		      "instructions:u         #    1.50  insn per cycle\n") &&
	       strstr(slurp(out_path), "\n        10,000,000      "
		      "branch-misses:u        #    1.00% of all branches\n") &&
	       strstr(slurp(out_path), "      page-faults:u  ") &&
	       !strcmp(slurp(err_path), ""),
	       "Intel, unprivileged: named :u, the figures paired, no "
	       "complaint");

	next_info = &intel;
	status = perfex_on(UNPRIVILEGED, ARGV("-e", "cs,cycles:k", "true"));
	tap_ok(status == 1 && fake_kernel->controls == 1 &&
	       starts_with(slurp(err_path), "perfex: cannot start 'true': "
			   "vperfctr_control: Permission denied\n"
			   "perfex: cycles:k: kernel-mode counting needs "
			   "CAP_PERFMON ("),
	       "Intel, unprivileged, -e cycles:k: the hint names it");

	next_info = &intel;
	next_hw_busy = 1;
	status = perfex(ARGV("-r", "2", "-o", out_path, "true"));
	tap_ok(status == 0 && fake_kernel->creats == 3 &&
	       fake_kernel->controls == 3 &&
	       !strstr(slurp(out_path), "cycles") &&
	       strstr(slurp(out_path), "(2 runs)"),
	       "Intel, counters held by perf, -r 2: refused once, then both "
	       "runs without hardware");

	test_held_by_perf(&intel, "Intel", (char []){ "cycles" });

	next_info = &intel;
	status = perfex(ARGV("-o", out_path, "-x,", "-e",
			     "ref-cycles:ku,r1c2,0xc0@3,faults", "true"));
	tap_ok(status == 0 && cpu->nractrs == 4 &&
	       cpu->pmc_map[0] == (PERFCTR_MAP_X86_FIXED | 2) &&
	       cpu->pmc_map[1] == 0 && cpu->evntsel[1] == 0x301c2 &&
	       cpu->pmc_map[2] == 3 && cpu->evntsel[2] == 0x300c0 &&
	       starts_with(slurp(out_path), "1234567890,,ref-cycles:uk,") &&
	       strstr(slurp(out_path), "\n3,,r1c2,") &&
	       strstr(slurp(out_path), "\n1,,0xc0@3,") &&
	       strstr(slurp(out_path), "\n105,,page-faults,"),
	       "Intel, -e raw and 2.7 events: on their counters, named");
}

/* -I on a machine with hardware counters: what the page cannot give. */
static void test_interval_hardware(void)
{
	char line[256];
	int status;

	next_info = &intel;
	next_live = 1;
	status = perfex(ARGV("-I", "20", "-o", out_path, "-e",
			     "cycles,task-clock,tsc", "sleep", "0.07"));
	nth_line(slurp(out_path), 1, line, sizeof(line));
	tap_ok(status == 0 && strstr(line, "     <not counted>      cycles") &&
	       strstr(slurp(out_path), " msec task-clock ") &&
	       !strstr(slurp(out_path), "<not counted> msec task-clock") &&
	       !strstr(slurp(out_path), "<not counted>      tsc"),
	       "-I, hardware counters running: <not counted>, the others "
	       "read from the page");
	tap_is_str(slurp(err_path), "perfex: cannot read the counters while "
		   "they run: Operation not permitted\n",
		   "-I, hardware counters running: said once");
	tap_ok(strstr(slurp(out_path), "\n     1,234,567,890      cycles  ")
	       != NULL, "-I, hardware counters running: counted at the end");
}

/*
 * -I while the page changes under every read of it, for a while: perfex
 * reads again, and no interval lacks a count.
 */
static void test_interval_busy_page(void)
{
	int status;

	next_live = 1;
	next_busy_reads = 3;
	status = perfex(ARGV("-I", "20", "-o", out_path, "-e",
			     "task-clock,tsc", "sleep", "0.07"));
	tap_ok(status == 0 && !strstr(slurp(out_path), "<not counted>") &&
	       strstr(slurp(out_path), " msec task-clock ") &&
	       !fake_kernel->busy_reads,
	       "-I, the page changing under the first reads: read again, "
	       "no gap");
	tap_is_str(slurp(err_path), "", "-I, the page changing: nothing said");
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


/* The line of @text about @event, e.g. "  105  page-faults  # ...". */
static const char *line_of(const char *text, const char *event,
			   char *line, size_t size)
{
	unsigned int i;
	char *p;

	for (i = 0; nth_line(text, i, line, size) == 0; i++) {
		p = strstr(line, event);
		if (p && p > line && p[-1] == ' ' &&
		    (p[strlen(event)] == ' ' || p[strlen(event)] == '\0'))
			return line;
	}
	line[0] = '\0';
	return line;
}

static void test_csv(void)
{
	char field[MAX_FIELDS][FIELD_SIZE], line[256], human[4][256];
	static const char *const events[] = {
		"task-clock", "context-switches", "page-faults", "tsc",
	};
	int status, n, lines, same = 0;
	unsigned int i;
	char *p;

	status = perfex(ARGV("-o", out_path, "true"));
	for (i = 0; i < 4; i++)
		line_of(slurp(out_path), events[i], human[i], sizeof(human[i]));
	status |= perfex(ARGV("-x", ",", "-o", out_path, "true"));
	tap_is_int(status, 0, "-x ,: exit 0");
	for (lines = 0; nth_line(slurp(out_path), lines, line,
				 sizeof(line)) == 0; lines++)
		;
	tap_is_int(lines, 5, "-x ,: five lines, nothing else");
	nth_line(slurp(out_path), 0, line, sizeof(line));
	n = csv_split(line, ",", field);
	tap_ok(n == 7 && !strcmp(field[0], "1234.57") &&
	       !strcmp(field[1], "msec") && !strcmp(field[2], "task-clock") &&
	       strtoull(field[3], &p, 10) > 0 && !*p &&
	       !strcmp(field[4], "100.00") &&
	       !strcmp(field[6], "CPUs utilized"),
	       "-x ,: task-clock: msec, elapsed ns, CPUs utilized");
	nth_line(slurp(out_path), 1, line, sizeof(line));
	n = csv_split(line, ",", field);
	tap_ok(n == 7 && !strcmp(field[0], "3") && !field[1][0] &&
	       !strcmp(field[2], "context-switches") &&
	       !strcmp(field[5], "2.430") && !strcmp(field[6], "/sec"),
	       "-x ,: context-switches: 3, 2.430 /sec of task-clock");

	/* The numbers of the human report, but for elapsed time's. */
	for (i = 0; i < 4; i++) {
		unsigned int row = i < 2 ? i : i + 1;
		char count[FIELD_SIZE];

		nth_line(slurp(out_path), row, line, sizeof(line));
		n = csv_split(line, ",", field);
		sscanf(human[i], "%63s", count);
		for (p = count; (p = strchr(p, ','));)
			memmove(p, p + 1, strlen(p));
		if (n == 7 && !strcmp(field[2], events[i]) &&
		    !strcmp(field[0], count) &&
		    (i == 0 || (field[5][0] ?
				strstr(human[i], field[5]) != NULL :
				!strchr(human[i], '#'))))
			same++;
	}
	tap_is_int(same, 4, "-x ,: counts and rates those of the report");

	status = perfex(ARGV("-x", ";", "-j", "true"));
	tap_is_int(status, 2, "-x and -j: exit 2");
	tap_is_str(slurp(err_path), "perfex: -x and --json cannot be used "
		   "together\nTry 'perfex --help' for more information.\n",
		   "-x and -j: message and hint");
}

static void test_json(void)
{
	struct member m[MAX_FIELDS];
	const struct member *v;
	char line[512];
	int status, n, good = 0;
	unsigned int i;

	status = perfex(ARGV("--json", "-o", out_path, "true"));
	tap_is_int(status, 0, "--json: exit 0");
	for (i = 0; nth_line(slurp(out_path), i, line, sizeof(line)) == 0;
	     i++) {
		n = json_parse(line, m, MAX_FIELDS);
		if (n >= 5 && (v = member(m, n, "counter-value")) &&
		    v->is_string && member(m, n, "event") &&
		    member(m, n, "unit") && member(m, n, "event-runtime") &&
		    !member(m, n, "self"))
			good++;
	}
	tap_ok(i == 5 && good == 5, "--json: five lines, each a JSON object "
	       "(%d of %u)", good, i);
	nth_line(slurp(out_path), 3, line, sizeof(line));
	n = json_parse(line, m, MAX_FIELDS);
	tap_ok(n > 0 && !strcmp(member(m, n, "event")->value, "page-faults") &&
	       !strcmp(member(m, n, "counter-value")->value, "105.000000") &&
	       !strcmp(member(m, n, "metric-value")->value, "85.050001") &&
	       !strcmp(member(m, n, "metric-unit")->value, "/sec"),
	       "--json: page-faults: 105, 85.05 /sec");
	nth_line(slurp(out_path), 0, line, sizeof(line));
	n = json_parse(line, m, MAX_FIELDS);
	tap_ok(n > 0 && !strcmp(member(m, n, "counter-value")->value,
				"1234.567890") &&
	       !strcmp(member(m, n, "unit")->value, "msec"),
	       "--json: task-clock in msec, to the ns");

	next_children.pmc[3] = 4100;
	status = perfex(ARGV("-j", "-o", out_path, "true"));
	nth_line(slurp(out_path), 3, line, sizeof(line));
	n = json_parse(line, m, MAX_FIELDS);
	tap_ok(status == 0 && n > 0 &&
	       !strcmp(member(m, n, "counter-value")->value, "4205.000000") &&
	       !strcmp(member(m, n, "self")->value, "105.000000") &&
	       !strcmp(member(m, n, "children")->value, "4100.000000"),
	       "--json: children: total, self and children");
}

static void test_no_children(void)
{
	int status;

	next_children.pmc[3] = 4100;
	next_children.tsc = 7000000000ull;
	status = perfex(ARGV("--no-children", "-o", out_path, "true"));
	tap_is_int(status, 0, "--no-children: exit 0");
	tap_ok(!strstr(slurp(out_path), "children") &&
	       strstr(slurp(out_path), "\n               105      "
		      "page-faults            #   85.050 /sec\n") &&
	       strstr(slurp(out_path), "\n     2,998,123,456      tsc\n"),
	       "--no-children: the command's own counts, no columns");

	next_children.pmc[3] = 4100;
	status = perfex(ARGV("--no-children", "-x,", "-o", out_path, "true"));
	tap_ok(status == 0 && strstr(slurp(out_path), "\n105,,page-faults,") &&
	       !strstr(slurp(out_path), ",4100"),
	       "--no-children -x: no children's fields");
}

static void test_repeat(void)
{
	const char *noise;
	int status;

	status = perfex(ARGV("-r", "3", "-o", out_path, "true"));
	tap_is_int(status, 0, "-r 3: exit 0");
	tap_ok(fake_kernel->creats == 3 && fake_kernel->reads == 3,
	       "-r 3: three runs, each read");
	tap_ok(strstr(slurp(out_path), " Performance counter stats for 'true' "
		      "(3 runs):\n\n          1,234.57 msec task-clock  ") &&
	       strstr(slurp(out_path), "\n               105      page-faults"
		      "            #   85.050 /sec\n") &&
	       strstr(slurp(out_path), " +- ") &&
	       strstr(slurp(out_path), " seconds time elapsed") &&
	       !strstr(slurp(out_path), "seconds user"),
	       "-r 3: means, elapsed +- its stddev, no user or sys time");
	noise = strstr(slurp(out_path), "( +-");
	tap_ok(!noise || noise > strstr(slurp(out_path), " seconds time elapsed"),
	       "-r 3: the same counts every run: no noise on them");

	status = perfex(ARGV("-r", "4", "-x", ",", "-o", out_path, "true"));
	tap_ok(status == 0 && starts_with(slurp(out_path),
					  "1234.57,msec,task-clock,0.00%,"),
	       "-r 4 -x: the variance field");

	status = perfex(ARGV("-r", "3", "-o", out_path, "sh", "-c", "exit 4"));
	tap_ok(status == 4 && fake_kernel->creats == 3,
	       "-r 3: every run, and the last one's exit status");

	status = perfex(ARGV("-r", "5", "-o", out_path, "sh", "-c",
			     "kill -TERM $$"));
	tap_ok(status == 143 && fake_kernel->creats == 1 &&
	       strstr(slurp(out_path), "for 'sh -c kill -TERM $$':\n"),
	       "-r 5: a run killed ends the repeats, reported");

	status = perfex(ARGV("-r", "3", "/nonexistent/cmd"));
	tap_ok(status == 127 && !strstr(slurp(err_path), "Performance"),
	       "-r 3: command not found: 127, no report");
}

static void test_interval(void)
{
	char line[256];
	unsigned int i, ticks = 0, zero = 0;
	int status;

	status = perfex(ARGV("-I", "20", "-o", out_path, "sleep", "0.15"));
	tap_is_int(status, 0, "-I 20: exit 0");
	for (i = 0; nth_line(slurp(out_path), i, line, sizeof(line)) == 0;
	     i++) {
		if (strstr(line, " msec task-clock ") &&
		    line[6] == '.' && line[16] == ' ')
			ticks++;
		if (strstr(line, "              0.00 msec task-clock"))
			zero++;
	}
	tap_ok(starts_with(slurp(out_path), "#           time             "
			   "counts unit events\n") &&
	       strstr(slurp(out_path), "          1,234.57 msec task-clock  "),
	       "-I 20: the header, then the first interval's counts");
	tap_ok(ticks >= 3 && zero == ticks - 1,
	       "-I 20: an interval line every 20 ms (%u), counts since the "
	       "last (%u at 0)", ticks, zero);
	tap_ok(strstr(slurp(out_path), "\n Performance counter stats for "
		      "'sleep 0.15':\n") != NULL,
	       "-I 20: the report at the end");

	status = perfex(ARGV("-I", "20", "-x", ";", "-o", out_path, "sleep",
			     "0.07"));
	nth_line(slurp(out_path), 0, line, sizeof(line));
	tap_ok(status == 0 && line[1] == '.' && strstr(line, ";1234.57;msec;"
						      "task-clock;"),
	       "-I 20 -x ';': time first, then the CSV fields");
}

/* A thread to count with -p: a child that waits for its end. */
static pid_t start_target(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

/*
 * Is @pid running untraced, as it was?  A tracee let go is woken by the
 * kernel after the detach returns, and a loaded machine may show it
 * still stopped for a moment: it has 2 s to be running again.
 */
static int untouched(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	char path[64], *status;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	for (i = 0; i < 2000; i++) {
		status = slurp(path);
		if (strstr(status, "\nTracerPid:\t0\n") &&
		    (strstr(status, "\nState:\tS") ||
		     strstr(status, "\nState:\tR")))
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

struct later {
	pthread_t main;
	int sig;		/* to send the main thread, or 0 */
	__u32 flags;		/* to set in the state's page, or 0 */
};

/* Once the state exists, after 50 ms: a signal, or the thread's end. */
static void *act_later(void *arg)
{
	struct later *later = arg;
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 2000 && own_state < 0; i++)
		nanosleep(&ms, NULL);
	ms.tv_nsec = 50000000;
	nanosleep(&ms, NULL);
	if (later->flags &&
	    pwrite(own_state, &later->flags, sizeof(later->flags),
		   offsetof(struct vperfctr_state, flags)) < 0)
		abort();
	if (later->sig)
		pthread_kill(later->main, later->sig);
	return NULL;
}

static int perfex_later(struct later *later, char **argv)
{
	pthread_t thread;
	int status;

	later->main = pthread_self();
	pthread_create(&thread, NULL, act_later, later);
	status = perfex(argv);
	pthread_join(thread, NULL);
	return status;
}

static void test_attach(void)
{
	struct later sigint = { .sig = SIGINT };
	struct later dead = { .flags = VPERFCTR_STATE_DEAD };
	struct later reaped = {
		.flags = VPERFCTR_STATE_DEAD | VPERFCTR_STATE_DETACHED
	};
	struct sigaction before, after;
	pid_t pid = start_target();
	char tid[16], header[64];
	int status;

	snprintf(tid, sizeof(tid), "%d", pid);
	snprintf(header, sizeof(header),
		 "\n Performance counter stats for thread id '%d':\n\n", pid);

	next_children.pmc[3] = 4100;
	status = perfex(ARGV("-p", tid, "-o", out_path, "sleep", "0.1"));
	tap_is_int(status, 0, "-p TID COMMAND: the command's exit status");
	tap_ok(fake_kernel->creats == 1 && fake_kernel->controls == 1 &&
	       fake_kernel->reads == 1 && fake_kernel->unlinks == 1,
	       "-p: state created and started, read and taken off at the end");
	tap_ok(starts_with(slurp(out_path), header) &&
	       strstr(slurp(out_path), "\n     2,998,123,456                 0"
		      "     2,998,123,456      tsc\n") &&
	       strstr(slurp(out_path), "\n               105             4,100"
		      "             4,205      page-faults ") &&
	       !strstr(slurp(out_path), "seconds user"),
	       "-p: the thread's report, children apart, no user or sys");
	tap_ok(untouched(pid), "-p: the thread runs on, untraced");

	/* Ignored, not default, when this runs in a shell's background job. */
	sigaction(SIGINT, NULL, &before);
	status = perfex_later(&sigint, ARGV("-p", tid, "-o", out_path));
	sigaction(SIGINT, NULL, &after);
	tap_is_int(status, 0, "-p TID, ^C: exit 0");
	tap_ok(fake_kernel->reads == 1 && fake_kernel->unlinks == 1 &&
	       starts_with(slurp(out_path), header),
	       "-p TID, ^C: read, taken off, reported");
	tap_ok(after.sa_handler == before.sa_handler,
	       "-p TID, ^C: SIGINT as it was");
	tap_ok(untouched(pid), "-p TID, ^C: the thread untouched");

	status = perfex_later(&dead, ARGV("-p", tid, "-o", out_path, "-e",
					  "tsc,faults"));
	tap_ok(status == 0 && fake_kernel->reads == 0 &&
	       fake_kernel->unlinks == 0 && starts_with(slurp(out_path),
							header) &&
	       strstr(slurp(out_path), "\n     2,998,123,456      tsc\n"),
	       "-p: the thread's end seen on its page, sums read there");

	next_children.pmc[0] = 7;
	status = perfex_later(&reaped, ARGV("-p", tid, "-x,", "-o", out_path,
					    "-e", "faults"));
	tap_ok(status == 0 && fake_kernel->reads == 1 &&
	       starts_with(slurp(out_path), "1234567897,,page-faults,"),
	       "-p: the thread reaped: read with its children");

	status = perfex_later(&sigint, ARGV("-p", tid, "-I", "10", "-o",
					    out_path));
	tap_ok(status == 0 && starts_with(slurp(out_path), "#           time") &&
	       strstr(slurp(out_path), "          1,234.57 msec task-clock ") &&
	       strstr(slurp(out_path), header),
	       "-p -I 10: intervals from the page, then the report");

	stop_target(pid);
	status = perfex(ARGV("-p", tid));
	tap_is_int(status, 1, "-p: no such thread: exit 1");
	snprintf(header, sizeof(header), "perfex: cannot count thread %d: "
		 "no such thread\n", pid);
	tap_is_str(slurp(err_path), header, "-p: no such thread: message");

	pid = start_target();
	snprintf(tid, sizeof(tid), "%d", pid);
	status = perfex_on(UNPRIVILEGED, ARGV("-p", tid, "-e", "tsc,faults:k"));
	tap_ok(status == 1 && fake_kernel->unlinks == 1 &&
	       strstr(slurp(err_path), ": vperfctr_control: Permission "
		      "denied\nperfex: page-faults:k: kernel-mode counting "
		      "needs CAP_PERFMON (") && untouched(pid),
	       "-p, kernel mode refused: the hint, the thread as it was");

	next_has_state = 1;
	status = perfex(ARGV("-p", tid));
	snprintf(header, sizeof(header), "perfex: thread %d already has "
		 "perfctr counters\n", pid);
	tap_ok(status == 1 && !strcmp(slurp(err_path), header) &&
	       untouched(pid), "-p: a thread with counters: left alone");
	stop_target(pid);
}

/* How many events a listing of -l names, into @names. */
static unsigned int listed(char names[][64], unsigned int max)
{
	char line[128], name[64];
	unsigned int i, n = 0;

	for (i = 0; nth_line(slurp(std_path), i, line, sizeof(line)) == 0;
	     i++) {
		if (sscanf(line, "  %63s ", name) != 1 ||
		    line[strlen(line) - 1] != ']')
			continue;
		if (n < max)
			strcpy(names[n], name);
		n++;
	}
	return n;
}

/*
 * arm64: perf stat's defaults on the PMUv3 counters, their figures from
 * the counts alone (the CPU clock, cpu_khz, is not known there), the
 * user-mode fallback excluding EL1, and a machine with the timer only.
 */
static void test_arm64(void)
{
	const struct perfctr_cpu_control *cpu =
		&fake_kernel->control.cpu_control;
	char names[32][64];
	unsigned int i, n, accepted = 0;
	int status;

	next_info = &arm64_pmuv3;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_is_int(status, 0, "arm64: exit 0");
	tap_ok(fake_kernel->controls == 1 && cpu->nractrs == 8 &&
	       cpu->pmc_map[4] == PERFCTR_MAP_ARM64_CYCLES &&
	       cpu->evntsel[4] == 0x11 &&
	       cpu->pmc_map[5] == 0 && cpu->evntsel[5] == 0x08 &&
	       cpu->pmc_map[6] == 1 && cpu->evntsel[6] == 0x21 &&
	       cpu->pmc_map[7] == 2 && cpu->evntsel[7] == 0x10 &&
	       cpu->tsc_on,
	       "arm64: the defaults' control, cycles on the cycle counter");
	tap_ok(strstr(slurp(out_path),
		      "     4,000,000,000      cycles                 #"
		      "    3.240 GHz\n"
		      "     6,000,000,000      instructions           #"
		      "    1.50  insn per cycle\n"
		      "     1,000,000,000      branches               #"
		      "  810.000 M/sec\n"
		      "        10,000,000      branch-misses          #"
		      "    1.00% of all branches\n"
		      "     2,998,123,456      tsc\n\n") != NULL &&
	       !strstr(slurp(out_path), "inf") &&
	       !strstr(slurp(out_path), "nan"),
	       "arm64: perf stat's figures, GHz from task-clock, not from "
	       "cpu_khz (0)");

	next_info = &arm64_pmuv3;
	status = perfex_on(UNPRIVILEGED, ARGV("-o", out_path, "true"));
	tap_ok(status == 0 && fake_kernel->controls == 2 &&
	       cpu->evntsel[3] == PERFCTR_SW_USR &&
	       cpu->evntsel[4] == (PERFCTR_ARM64_EXCLUDE_EL1 | 0x11) &&
	       cpu->evntsel[7] == (PERFCTR_ARM64_EXCLUDE_EL1 | 0x10),
	       "arm64, unprivileged: EACCES, then EL1 excluded");
	tap_ok(strstr(slurp(out_path), "\n     6,000,000,000      "
		      "instructions:u         #    1.50  insn per cycle\n") &&
	       !strcmp(slurp(err_path), ""),
	       "arm64, unprivileged: named :u, the figures paired, no "
	       "complaint");

	next_info = &arm64_pmuv3;
	status = perfex_on(UNPRIVILEGED, ARGV("-e", "cs,instructions:k",
					      "true"));
	tap_ok(status == 1 && fake_kernel->controls == 1 &&
	       starts_with(slurp(err_path), "perfex: cannot start 'true': "
			   "vperfctr_control: Permission denied\n"
			   "perfex: instructions:k: kernel-mode counting needs "
			   "CAP_PERFMON ("),
	       "arm64, unprivileged, -e instructions:k: the hint names it");

	next_info = &arm64_pmuv3;
	status = perfex(ARGV("-e", "r1,r2,r3,r4,r5,r6,cycles,cache-misses",
			     "true"));
	tap_ok(status == 2 && !strcmp(slurp(err_path), "perfex: cache-misses: "
				      "all 6 event counters are in use\n"
				      "Try 'perfex --help' for more "
				      "information.\n") &&
	       fake_kernel->calls == 0,
	       "arm64, more than the counters hold: a usage error");

	/* perf and perfctr take turns on arm64 too. */
	test_held_by_perf(&arm64_pmuv3, "arm64", (char []){ "instructions:u" });

	next_info = &arm64_timer;
	status = perfex(ARGV("-e", "tsc,cycles:u", "true"));
	tap_ok(status == 2 && !strcmp(slurp(err_path), "perfex: cycles:u: this "
				      "CPU has no hardware counters (driver: "
				      "arm64 timer)\n"
				      "Try 'perfex --help' for more "
				      "information.\n") &&
	       fake_kernel->calls == 0,
	       "arm64 timer, -e cycles:u: refused, naming the driver");

	next_info = &arm64_timer;
	status = perfex(ARGV("-o", out_path, "true"));
	tap_ok(status == 0 && cpu->nractrs == 4 && cpu->tsc_on &&
	       !strstr(slurp(out_path), "cycles"),
	       "arm64 timer: the software events and the timer");

	next_info = &arm64_pmuv3;
	status = perfex(ARGV("-i"));
	tap_ok(status == 0 && strstr(slurp(std_path),
		"cpu_type         4 (arm64 PMUv3)\n"
		"cpu_features     0x7 (rdpmc, rdtsc, pcint)\n"
		"cpu_khz          0\n"
		"tsc_to_cpu_mult  0\n"
		"nrctrs           6\n"
		"ctr_width        32\n"
		"nrfixed          1\n"
		"fixed_width      64\n"
		"nrmetrics        0\n"),
	       "arm64, -i: the PMUv3 counters, the CPU clock 0 as it is");

	next_info = &arm64_pmuv3;
	status = perfex(ARGV("-l"));
	n = listed(names, 32);
	tap_ok(status == 0 && n == 13 && strstr(slurp(std_path),
		"\n  cache-misses                                       "
		"[Hardware event]\n       L1 data cache refills\n"),
	       "-l, arm64: thirteen events, the PMUv3 ones");
	for (i = 0; i < n && i < 32; i++) {
		next_info = &arm64_pmuv3;
		accepted += perfex(ARGV("-e", names[i], "-o", "/dev/null",
					"true")) == 0;
	}
	tap_ok(accepted == n, "-l, arm64: every event listed is one -e takes "
	       "(%u of %u)", accepted, n);
}

/*
 * The sums of perfex --topdown alone: 12e9 slots on counter 0, then the
 * categories: 30, 10, 20 and 40% of them; at level 2, 10, 8, 12 and 25%.
 */
static const struct perfctr_sum_ctrs topdown_sums = {
	.pmc = { 12000000000ull, 3600000000ull, 1200000000ull, 2400000000ull,
		 4800000000ull, 1200000000ull, 960000000ull, 1440000000ull,
		 3000000000ull },
};

#define TOPDOWN_TABLE \
	"             retiring      bad speculation       frontend bound        backend bound\n" \
	"                30.0%                10.0%                20.0%                40.0%\n"

#define NO_TOPDOWN	"perfex: --topdown needs Intel TopDown metrics " \
			"(PERF_METRICS, Ice Lake or later); this CPU has none\n"

/* --topdown: the slots and the categories, shown as shares of the slots. */
static void test_topdown(void)
{
	const struct perfctr_cpu_control *cpu =
		&fake_kernel->control.cpu_control;
	char marker[] = "/tmp/perfex-test-ran-XXXXXX";
	char names[32][64];
	unsigned int i, n, accepted = 0, ok;
	int fd, status;

	next_info = &icelake;
	next_sums = &topdown_sums;
	status = perfex(ARGV("--topdown", "-o", out_path, "true"));
	tap_is_int(status, 0, "--topdown, Ice Lake: exit 0");
	ok = cpu->nractrs == 5 && !cpu->tsc_on && cpu->nrictrs == 0 &&
	     cpu->pmc_map[0] == (PERFCTR_MAP_X86_FIXED | 3) &&
	     cpu->evntsel[0] == 0x30000;
	for (i = 1; i < 5; i++)
		ok &= cpu->pmc_map[i] == (PERFCTR_MAP_X86_METRIC | (i - 1)) &&
		      cpu->evntsel[i] == 0x30000;
	tap_ok(ok, "--topdown, Ice Lake: the slots and the four level 1 "
	       "categories, both modes, nothing else");
	tap_ok(starts_with(slurp(out_path), "\n Performance counter stats for "
			   "'true':\n\n" TOPDOWN_TABLE "\n") &&
	       strstr(slurp(out_path), " seconds time elapsed\n"),
	       "--topdown, Ice Lake: the header, perf's table, the times");
	tap_is_str(slurp(err_path), "", "--topdown: nothing on standard error");

	next_info = &icelake;
	next_sums = &topdown_sums;
	status = perfex_on(UNPRIVILEGED, ARGV("--topdown", "-x,", "-o",
					      out_path, "true"));
	tap_ok(status == 0 && fake_kernel->controls == 2 &&
	       cpu->evntsel[0] == 0x10000 && cpu->evntsel[4] == 0x10000 &&
	       starts_with(slurp(out_path), "12000000000,,slots:u,") &&
	       strstr(slurp(out_path), "\n3600000000,,topdown-retiring:u,") &&
	       strstr(slurp(out_path), ",100.00,40.0,backend bound\n") &&
	       !strcmp(slurp(err_path), ""),
	       "--topdown, unprivileged: all in user mode, named :u, -x");

	next_info = &sapphire_rapids;
	next_sums = &topdown_sums;
	status = perfex(ARGV("--topdown", "-o", out_path, "true"));
	tap_ok(status == 0 && cpu->nractrs == 9 &&
	       cpu->pmc_map[8] == (PERFCTR_MAP_X86_METRIC | 7) &&
	       strstr(slurp(out_path), ":\n\n" TOPDOWN_TABLE
		      "     heavy operations   branch mispredicts        fetch latency         memory bound\n"
		      "                10.0%                 8.0%                12.0%                25.0%\n"
		      "     light operations       machine clears      fetch bandwidth           core bound\n"
		      "                20.0%                 2.0%                 8.0%                15.0%\n"
		      "\n"),
	       "--topdown, Sapphire Rapids: level 2 too");

	next_info = &sapphire_rapids;
	next_sums = &topdown_sums;
	status = perfex(ARGV("--topdown", "--json", "-o", out_path, "true"));
	for (n = 0; nth_line(slurp(out_path), n, (char [512]){ 0 }, 512) == 0;
	     n++)
		;
	tap_ok(status == 0 && n == 13 &&
	       strstr(slurp(out_path), "\"event\" : \"topdown-core-bound\", "
		      "\"event-runtime\" : ") &&
	       strstr(slurp(out_path), "\"metric-value\" : \"15.000000\", "
		      "\"metric-unit\" : \"core bound\"}\n"),
	       "--topdown --json: the slots and the twelve categories");

	/* -I: the counters run on another thread: not read until the end. */
	next_info = &icelake;
	next_sums = &topdown_sums;
	next_live = 1;
	status = perfex(ARGV("--topdown", "-I", "20", "-o", out_path, "sleep",
			     "0.07"));
	tap_ok(status == 0 &&
	       starts_with(slurp(out_path), "#           time             "
			   "retiring      bad speculation       frontend bound  "
			   "      backend bound\n") &&
	       interval_time(slurp(out_path), 1) > 0 &&
	       strstr(slurp(out_path), "        <not counted>        "
		      "<not counted>        <not counted>        <not counted>"
		      "\n") &&
	       strstr(slurp(out_path), ":\n\n" TOPDOWN_TABLE "\n"),
	       "--topdown -I: perf's header, each interval's line after its "
	       "time, then the report");

	/* With -e: those first, on the counters they take. */
	next_info = &icelake;
	status = perfex(ARGV("--topdown", "-e", "instructions:u,cycles",
			     "-o", out_path, "true"));
	tap_ok(status == 0 && cpu->nractrs == 7 &&
	       cpu->pmc_map[0] == (PERFCTR_MAP_X86_FIXED | 0) &&
	       cpu->pmc_map[1] == (PERFCTR_MAP_X86_FIXED | 1) &&
	       cpu->pmc_map[2] == (PERFCTR_MAP_X86_FIXED | 3) &&
	       strstr(slurp(out_path), "      instructions:u  ") &&
	       strstr(slurp(out_path), "      cycles  ") &&
	       !strstr(slurp(out_path), "slots") &&
	       strstr(slurp(out_path), "\n\n             retiring  "),
	       "--topdown -e: the events of -e, then the table");

	next_info = &icelake;
	status = perfex(ARGV("--topdown", "-e", "cycles,slots:u", "true"));
	tap_ok(status == 2 && !strcmp(slurp(err_path), "perfex: slots:u: "
				      "--topdown counts the slots and the "
				      "TopDown categories itself: leave it out "
				      "of -e\nTry 'perfex --help' for more "
				      "information.\n") &&
	       fake_kernel->calls == 0,
	       "--topdown -e slots:u: a usage error, which");

	/* Without the metrics: said before anything runs. */
	fd = mkstemp(marker);
	close(fd);
	unlink(marker);
	status = perfex(ARGV("--topdown", "touch", marker));
	tap_is_int(status, 1, "--topdown, TSC only: exit 1");
	tap_is_str(slurp(err_path), NO_TOPDOWN, "--topdown, TSC only: said "
		   "plainly");
	tap_ok(fake_kernel->calls == 0 && access(marker, F_OK) < 0 &&
	       errno == ENOENT,
	       "--topdown, TSC only: no system call, the command not run");
	unlink(marker);
	next_info = &intel;
	status = perfex(ARGV("--topdown", "-e", "cycles", "true"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), NO_TOPDOWN) &&
	       fake_kernel->calls == 0,
	       "--topdown, Intel without fixed counter 3: said plainly");
	next_info = &arm64_pmuv3;
	status = perfex(ARGV("--topdown", "-p", "1"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), NO_TOPDOWN) &&
	       fake_kernel->calls == 0, "--topdown, arm64: said plainly");
	next_info_errno = ENOENT;
	status = perfex(ARGV("--topdown", "true"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), "perfex: --topdown: "
				      "cannot tell whether this machine has "
				      "TopDown metrics: no /sys/kernel: is "
				      "sysfs mounted?\n") &&
	       fake_kernel->creats == 0,
	       "--topdown, machine not known: cannot tell, exit 1");

	next_info = &sapphire_rapids;
	status = perfex(ARGV("-l"));
	n = listed(names, 32);
	tap_ok(status == 0 && n == 23 && strstr(slurp(std_path),
		"\n  topdown-mem-bound                                  "
		"[Hardware event]\n       backend bound slots stalled on "
		"memory\n"),
	       "-l, Sapphire Rapids: the slots and eight categories too");
	for (i = 0; i < n && i < 32; i++) {
		next_info = &sapphire_rapids;
		accepted += perfex(ARGV("-e", names[i], "-o", "/dev/null",
					"true")) == 0;
	}
	tap_ok(accepted == n, "-l, Sapphire Rapids: every event listed is one "
	       "-e takes (%u of %u)", accepted, n);

	next_info = &icelake;
	status = perfex(ARGV("-i"));
	tap_ok(status == 0 && strstr(slurp(std_path),
		"cpu_features     0xf (rdpmc, rdtsc, pcint, topdown)\n") &&
	       strstr(slurp(std_path), "nrfixed          4\n"
		      "fixed_width      48\nnrmetrics        4\n"),
	       "-i, Ice Lake: TopDown, and its metrics");
}

static void test_info_list(void)
{
	struct perfctr_info old_abi = default_machine;
	char names[32][64], want[1024];
	unsigned int i, n, accepted = 0;
	int status;

	status = perfex(ARGV("-i"));
	tap_is_int(status, 0, "-i: exit 0");
	snprintf(want, sizeof(want), "PerfCtr Info:\n"
		 "abi_version      %#x\n"
		 "driver_version   6.0\n"
		 "cpu_type         0 (x86 TSC)\n"
		 "cpu_features     0x2 (rdtsc)\n"
		 "cpu_khz          2893000\n"
		 "tsc_to_cpu_mult  1\n"
		 "nrctrs           0\n"
		 "ctr_width        0\n"
		 "nrfixed          0\n"
		 "fixed_width      0\n"
		 "nrmetrics        0\n"
		 "native events: none: %s\n", PERFCTR_ABI_VERSION,
		 native_why());
	tap_is_str(slurp(std_path), want,
		   "-i: the header, the fields as libperfctr prints them, and "
		   "why there are no native events");
	tap_ok(fake_kernel->calls == 0 && !strcmp(slurp(err_path), ""),
	       "-i: no system call, nothing on standard error");

	status = perfex_on(WITHOUT_PERFCTR, ARGV("-i"));
	tap_ok(status == 1 && !strcmp(slurp(err_path), "perfex: this kernel "
				      "has no perfctr support (no "
				      "/sys/kernel/perfctr)\n") &&
	       !strcmp(slurp(std_path), ""),
	       "-i without perfctr: said plainly, exit 1");
	old_abi.abi_version = 0x50002;
	next_info = &old_abi;
	next_info_errno = EPROTO;
	status = perfex(ARGV("--info"));
	snprintf(want, sizeof(want), "perfex: cannot describe the counters: "
		 "the kernel's perfctr ABI is 5.2, perfex's %d.%d\n",
		 PERFCTR_ABI_MAJOR, PERFCTR_ABI_MINOR);
	tap_ok(status == 1 && !strcmp(slurp(err_path), want),
	       "-i, another ABI: which, exit 1");

	status = perfex(ARGV("-l"));
	n = listed(names, 32);
	tap_ok(status == 0 && n == 7 && strstr(slurp(std_path),
		"\n  context-switches OR cs                             "
		"[Software event]\n       times switched out\n") &&
	       fake_kernel->calls == 0 && !strcmp(slurp(err_path), ""),
	       "-l, TSC only: seven events, as perf list has them");
	for (i = 0; i < n && i < 32; i++)
		accepted += perfex(ARGV("-e", names[i], "-o", "/dev/null",
					"true")) == 0;
	tap_ok(accepted == n, "-l, TSC only: every event listed is one -e "
	       "takes (%u of %u)", accepted, n);

	next_info = &intel;
	status = perfex(ARGV("-l"));
	n = listed(names, 32);
	tap_ok(status == 0 && n == 14 && strstr(slurp(std_path),
		"\n  branch-misses                                      "
		"[Hardware event]\n       mispredicted branches retired\n"),
	       "-l, Intel: fourteen events, the hardware ones too");
	for (i = accepted = 0; i < n && i < 32; i++) {
		next_info = &intel;
		accepted += perfex(ARGV("-e", names[i], "-o", "/dev/null",
					"true")) == 0;
	}
	tap_ok(accepted == n, "-l, Intel: every event listed is one -e takes "
	       "(%u of %u)", accepted, n);

	status = perfex_on(WITHOUT_PERFCTR, ARGV("-l"));
	tap_ok(status == 0 && listed(names, 32) == 7 &&
	       !strcmp(slurp(err_path), "perfex: cannot tell this machine's "
		       "hardware events: no /sys/kernel/perfctr: this kernel "
		       "has no perfctr support\n"),
	       "-l without perfctr: the events of every machine, and why");

	status = perfex(ARGV("--help"));
	tap_ok(status == 0 && strstr(slurp(std_path), "\n  -x, ") &&
	       strstr(slurp(std_path), "\n  -j, --json ") &&
	       strstr(slurp(std_path), "\n  -r, --repeat N ") &&
	       strstr(slurp(std_path), "\n  -p, --pid, --tid TID ") &&
	       strstr(slurp(std_path), "\n  -I, --interval-print MS") &&
	       strstr(slurp(std_path), "\n      --no-children ") &&
	       strstr(slurp(std_path), "\n      --regions ") &&
	       strstr(slurp(std_path), "\n  -i, --info ") &&
	       strstr(slurp(std_path), "\n  -l, --list "),
	       "--help: every option");
	status = perfex(ARGV("--version"));
	tap_ok(status == 0 && starts_with(slurp(std_path), "perfex "),
	       "--version");
}

/*
 * The command of the --regions tests: this program again, run as
 * "PROGRAM --fill-regions HOW", which fills the region area that
 * perfex passes it as the library would: region 1, "work", used by its
 * thread and, forked, by a child process.  The sums are indexed as the
 * default events' on the TSC-only machine are: task-clock, then
 * context-switches, cpu-migrations and page-faults, and the TSC.
 */
static int fill_regions(const char *how)
{
	const char *env = getenv(REGION_AREA_ENV);
	struct region_area *area;
	struct region_thread *t;
	struct region_record *r;
	pid_t child;

	if (!env)
		return 10;
	area = mmap(NULL, REGION_AREA_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, atoi(env), 0);
	if (area == MAP_FAILED)
		return 11;
	if (!strcmp(how, "bad")) {
		area->magic = 0;
		return 0;
	}
	area->names[0].state = REGION_NAME_READY;
	strcpy(area->names[0].name, "work");
	/* The child's entries first, then the command's own. */
	child = fork();
	if (child < 0)
		return 12;
	if (child)
		waitpid(child, NULL, 0);
	t = (void *)((char *)area + area->used);
	r = (void *)(t + 1);
	area->used += sizeof(*t) + sizeof(*r);
	t->entry.size = sizeof(*t);
	t->pid = getpid();
	t->tid = gettid();
	t->flags = REGION_THREAD_COUNTERS | REGION_THREAD_ENDED;
	t->nrctrs = 4;
	t->total.pmc[0] = child ? 1234567890 : 20000000;
	t->total.tsc = child ? 2998123456ull : 40000000;
	r->entry.size = sizeof(*r);
	r->thread = (char *)t - (char *)area;
	r->region = 1;
	r->calls = child ? 3 : 1;
	r->outer.pmc[0] = child ? 1000000000 : 10000000;
	r->outer.tsc = child ? 2000000000 : 20000000;
	__atomic_store_n(&r->entry.type, REGION_RECORD, __ATOMIC_RELEASE);
	__atomic_store_n(&t->entry.type, REGION_THREAD, __ATOMIC_RELEASE);
	return 0;
}

static char *self_path;		/* this program, as run */

#define FILL(how)	self_path, "--fill-regions", how

static void test_regions(void)
{
	char line[512];
	int status;

	status = perfex(ARGV("--regions", "-o", out_path, "sh", "-c",
			     "readlink /proc/self/fd/$" REGION_AREA_ENV));
	tap_is_int(status, 0, "--regions, no calls: exit 0");
	tap_ok(starts_with(slurp(std_path), "/memfd:perfex-regions"),
	       "--regions: the command has the area's descriptor, named in "
	       "its environment");
	tap_ok(strstr(slurp(out_path), "      tsc\n\n       0.") &&
	       strstr(slurp(out_path), " seconds sys\n\n\n"
		      " Region counter stats for 'sh -c readlink /proc/self/"
		      "fd/$PERFCTR_REGIONS_FD':\n\n"
		      " warning: no region calls were made: was the program "
		      "built with -DPERFCTR_REGIONS and linked with "
		      "libperfctr?\n\n"),
	       "--regions, no calls: the report, then the region report, "
	       "which says so");
	tap_ok(!getenv(REGION_AREA_ENV), "--regions: perfex's environment "
	       "as it was");

	next_children.pmc[0] = 20000000;
	next_children.tsc = 40000000;
	status = perfex(ARGV("--regions", "-o", out_path, FILL("good")));
	tap_is_int(status, 0, "--regions: exit 0");
	tap_ok(strstr(slurp(out_path), " region 'work': 4 calls in 2 "
		      "threads\n\n"
		      "          1,010.00 msec task-clock\n") &&
	       strstr(slurp(out_path), " (outside regions)\n\n"
		      "            244.57 msec task-clock\n"),
	       "--regions: the region, and outside, from the area the "
	       "command and its child filled");
	tap_is_str(slurp(err_path), "", "--regions: nothing on standard "
		   "error");

	next_children.pmc[0] = 20000000;
	status = perfex(ARGV("--regions", "--no-children", "-o", out_path,
			     FILL("good")));
	tap_ok(status == 0 &&
	       strstr(slurp(out_path), " region 'work': 3 calls in 1 "
		      "thread\n\n"
		      "          1,000.00 msec task-clock\n") &&
	       strstr(slurp(out_path), " (outside regions)\n\n"
		      "            234.57 msec task-clock\n") &&
	       strstr(slurp(out_path), "\n warning: --no-children: the region "
		      "calls of 1 other thread are left out\n"),
	       "--regions --no-children: the command's own thread");

	status = perfex(ARGV("--regions", "-x,", "-o", out_path,
			     FILL("good")));
	nth_line(slurp(out_path), 5, line, sizeof(line));
	tap_ok(status == 0 && starts_with(line, "work,total,4,1010.00,msec,"
					  "task-clock,,,0,0,0,0"),
	       "--regions -x: the region's lines after the report's");
	status = perfex(ARGV("--regions", "-j", "-o", out_path, "true"));
	tap_ok(status == 0 && !strstr(slurp(out_path), "warning") &&
	       !strcmp(slurp(err_path), "perfex: --regions: no region calls "
		       "were made: was the program built with "
		       "-DPERFCTR_REGIONS and linked with libperfctr?\n"),
	       "--regions -j: the warnings on standard error");

	status = perfex(ARGV("--regions", "-o", out_path, FILL("bad")));
	tap_is_int(status, 1, "--regions, a malformed area: exit 1");
	tap_is_str(slurp(err_path), "perfex: --regions: the region area is "
		   "malformed: magic 0x00000000, not 0x70726731\n",
		   "--regions, a malformed area: said");
	tap_ok(strstr(slurp(out_path), " Performance counter stats") &&
	       !strstr(slurp(out_path), "Region"),
	       "--regions, a malformed area: the report, no region report");

	status = perfex(ARGV("--regions", "-o", out_path, "sh", "-c",
			     "exit 3"));
	tap_is_int(status, 3, "--regions: the command's exit status");

	tap_is_int(perfex(ARGV("--regions", "-p", "1")), 2,
		   "--regions -p: exit 2");
	tap_is_str(slurp(err_path), "perfex: --regions cannot be used with "
		   "-p: a running thread has no region area\n"
		   "Try 'perfex --help' for more information.\n",
		   "--regions -p: message and hint");
	tap_is_int(perfex(ARGV("--regions", "-r", "3", "true")), 2,
		   "--regions -r 3: exit 2");
	tap_is_int(fake_kernel->calls, 0, "--regions -r 3: no system call");
}

static void test_usage(void)
{
	tap_is_int(perfex((char *[]){ "perfex", NULL }), 2,
		   "no arguments: exit 2");
	tap_is_str(slurp(err_path), "perfex: no command given\n"
		   "Try 'perfex --help' for more information.\n",
		   "no arguments: one line, and the hint");
	tap_is_int(perfex(ARGV("-r", "0", "true")), 2, "-r 0: exit 2");
	tap_is_str(slurp(err_path), "perfex: option '-r': invalid number of "
		   "runs (1 to 100000) '0'\n"
		   "Try 'perfex --help' for more information.\n",
		   "-r 0: message and hint");
	tap_is_int(fake_kernel->calls, 0, "-r 0: no system call");
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--fill-regions"))
		return fill_regions(argv[2]);
	self_path = argv[0];

	setenv("LIBPFM_FORCE_PMU", "nosuch", 1);
	perfex_info_read = fake_perfctr_info_read;
	fake_kernel = mmap(NULL, sizeof(*fake_kernel), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fake_kernel == MAP_FAILED)
		return 1;
	fd = mkstemp(err_path);
	close(fd);
	fd = mkstemp(out_path);
	close(fd);
	fd = mkstemp(std_path);
	close(fd);

	test_runs();
	test_children();
	test_unprivileged();
	test_kernel_mode_refused();
	test_events_option();
	test_hardware();
	test_report_on_stderr();
	test_killed();
	test_exec_failures();
	test_no_perfctr();
	test_bad_output();
	test_usage();
	test_csv();
	test_json();
	test_no_children();
	test_repeat();
	test_interval();
	test_interval_hardware();
	test_interval_busy_page();
	test_arm64();
	test_attach();
	test_info_list();
	test_topdown();
	test_regions();

	unlink(err_path);
	unlink(out_path);
	unlink(std_path);
	return tap_done();
}
