// SPDX-License-Identifier: LGPL-2.1
/*
 * compat27: every function of perfctr 2.7's libperfctr, called with 2.7's
 * arguments, and what 2.7 documents of it checked on this kernel.
 *
 * The program first checks, at compile time, that the functions have
 * 2.7's types; then, one line per check, it
 *
 *  - opens a descriptor with _vperfctr_open(0) before the thread has a
 *    state, and reads the description, the ABI check, the CPU masks,
 *    the kernel's version and the table of events through it;
 *  - counts itself with a struct vperfctr: the TSC and, where the
 *    machine has hardware counters, instructions, with a selector as
 *    2.7 wrote them (on x86 with the enable bit 22 set); reads it every
 *    way, reads a reaped child's sums as children sums, stops it and
 *    reads the sums from before the stop, and restarts it;
 *  - takes overflow signals of an interrupt-mode counter and resumes the
 *    counters from the handler (task-clock, and instructions with the
 *    interrupt bit 20 on x86 where the machine has counters);
 *  - does what 2.7's perfex did: a child creates its state with
 *    _vperfctr_open(1), programs it with _vperfctr_control() and passes
 *    the descriptor to its parent, which reads the final sums after the
 *    child has exited;
 *  - programs, reads, stops and unlinks the counters of a child held in
 *    a ptrace stop, with the rvperfctr functions.
 *
 * Checks that need hardware counters are skipped, and say so, where the
 * machine has none (QEMU's TCG emulation on x86-64).  The last line says
 * how many checks passed; the exit status is 0 only if none failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <libperfctr.h>

/* 2.7's types, exactly, for the functions whose types did not change. */
#define HAS_TYPE(fn, type) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&fn), type), \
		       #fn " has not the type of perfctr 2.7's")

HAS_TYPE(_vperfctr_open, int (*)(int));
HAS_TYPE(_vperfctr_control, int (*)(int, const struct vperfctr_control *));
HAS_TYPE(_vperfctr_read_control, int (*)(int, struct vperfctr_control *));
HAS_TYPE(_vperfctr_read_sum, int (*)(int, struct perfctr_sum_ctrs *));
HAS_TYPE(_vperfctr_read_children, int (*)(int, struct perfctr_sum_ctrs *));
HAS_TYPE(vperfctr_open, struct vperfctr *(*)(void));
HAS_TYPE(vperfctr_info, int (*)(const struct vperfctr *,
				struct perfctr_info *));
HAS_TYPE(vperfctr_cpus_info,
	 struct perfctr_cpus_info *(*)(const struct vperfctr *));
HAS_TYPE(vperfctr_read_tsc, unsigned long long (*)(const struct vperfctr *));
HAS_TYPE(vperfctr_read_pmc, unsigned long long (*)(const struct vperfctr *,
						   unsigned));
HAS_TYPE(vperfctr_read_ctrs, int (*)(const struct vperfctr *,
				     struct perfctr_sum_ctrs *));
HAS_TYPE(vperfctr_read_state, int (*)(const struct vperfctr *,
				      struct perfctr_sum_ctrs *,
				      struct vperfctr_control *));
HAS_TYPE(vperfctr_is_running, int (*)(const struct vperfctr *));
HAS_TYPE(vperfctr_iresume, int (*)(const struct vperfctr *));
HAS_TYPE(vperfctr_unlink, int (*)(const struct vperfctr *));
HAS_TYPE(vperfctr_close, void (*)(struct vperfctr *));
HAS_TYPE(rvperfctr_open, struct rvperfctr *(*)(int));
HAS_TYPE(rvperfctr_pid, int (*)(const struct rvperfctr *));
HAS_TYPE(rvperfctr_info, int (*)(const struct rvperfctr *,
				 struct perfctr_info *));
HAS_TYPE(rvperfctr_read_ctrs, int (*)(const struct rvperfctr *,
				      struct perfctr_sum_ctrs *));
HAS_TYPE(rvperfctr_read_state, int (*)(const struct rvperfctr *,
				       struct perfctr_sum_ctrs *,
				       struct vperfctr_control *));
HAS_TYPE(rvperfctr_unlink, int (*)(const struct rvperfctr *));
HAS_TYPE(rvperfctr_close, void (*)(struct rvperfctr *));
HAS_TYPE(perfctr_cpu_event_set,
	 const struct perfctr_event_set *(*)(unsigned int));
HAS_TYPE(_perfctr_abi_check_fd, int (*)(int, unsigned int));
HAS_TYPE(perfctr_abi_check_fd, int (*)(int));
HAS_TYPE(perfctr_info, int (*)(int, struct perfctr_info *));
HAS_TYPE(perfctr_cpus_info, struct perfctr_cpus_info *(*)(int));
HAS_TYPE(perfctr_info_nrctrs, unsigned int (*)(const struct perfctr_info *));
HAS_TYPE(perfctr_info_cpu_name, const char *(*)(const struct perfctr_info *));
HAS_TYPE(perfctr_info_print, void (*)(const struct perfctr_info *));
HAS_TYPE(perfctr_cpus_info_print, void (*)(const struct perfctr_cpus_info *));
HAS_TYPE(perfctr_cpu_control_print,
	 void (*)(const struct perfctr_cpu_control *));
HAS_TYPE(perfctr_linux_version_code, unsigned int (*)(void));

#if defined(__x86_64__) || defined(__i386__)
#define X86	1
#else
#define X86	0
#endif

/* x86 event selector: instructions retired, user mode; EN and INT. */
#define X86_INSTRUCTIONS	(0xc0 | (1u << 16))
#define X86_EN			(1u << 22)
#define X86_INT			(1u << 20)
/* arm64: INST_RETIRED, user mode only. */
#define ARM64_INSTRUCTIONS	(0x08 | PERFCTR_ARM64_EXCLUDE_EL1)

#define WORK		(10 * 1000 * 1000)	/* loop turns per work() */
#define OVERFLOWS	3
#define TIMEOUT_S	60			/* for a slow emulator */

static int passed, failed, skipped;
static struct perfctr_info info;
static int hw;		/* the machine has general-purpose counters */

static void __attribute__((format(printf, 2, 3))) check(int ok,
							const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	printf("compat27: %s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok && err)
		printf(" (errno: %s)", strerror(err));
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
	errno = 0;
}

static void skip(const char *what, const char *why)
{
	printf("compat27: skip %s: %s\n", what, why);
	skipped++;
}

static unsigned long work(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned int count_cpus(const struct perfctr_cpu_mask *mask)
{
	unsigned int i, n = 0;

	for (i = 0; i < mask->nrwords; i++)
		n += __builtin_popcount(mask->mask[i]);
	return n;
}

/* A control that counts the TSC and, if the machine can, instructions. */
static void fill_control(struct vperfctr_control *control, int x86_en)
{
	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = 1;
	if (!hw)
		return;
	control->cpu_control.nractrs = 1;
	control->cpu_control.pmc_map[0] = 0;
	if (X86)
		control->cpu_control.evntsel[0] = X86_INSTRUCTIONS |
						  (x86_en ? X86_EN : 0);
	else
		control->cpu_control.evntsel[0] = ARM64_INSTRUCTIONS;
}

/* Before the thread has a state: the descriptor of 2.7's old API. */
static void test_without_state(struct perfctr_cpus_info **cpus)
{
	const struct perfctr_event_set *set;
	struct perfctr_info again;
	unsigned int code, i, named;
	struct utsname uts;
	int fd;

	errno = 0;
	fd = _vperfctr_open(0);
	check(fd >= 0, "_vperfctr_open(0) without a state: a descriptor");
	check(perfctr_abi_check_fd(fd) == 0,
	      "perfctr_abi_check_fd() on it: 0");
	check(_perfctr_abi_check_fd(fd, PERFCTR_ABI_VERSION) == 0,
	      "_perfctr_abi_check_fd(PERFCTR_ABI_VERSION): 0");
	check(_perfctr_abi_check_fd(fd, (PERFCTR_ABI_MAJOR + 1) << 16) == -1 &&
	      errno == EPROTO,
	      "_perfctr_abi_check_fd() of another major version: EPROTO");
	errno = 0;
	check(perfctr_info(fd, &info) == 0 &&
	      info.abi_version >> 16 == PERFCTR_ABI_MAJOR,
	      "perfctr_info() on it: ABI %u.%u, cpu_type %u",
	      info.abi_version >> 16, info.abi_version & 0xffff,
	      info.cpu_type);
	check(perfctr_info_read(&again) == 0 &&
	      !memcmp(&info, &again, sizeof(info)),
	      "perfctr_info(): the description perfctr_info_read() reads");
	perfctr_info_print(&info);
	check(perfctr_info_nrctrs(&info) == info.nrctrs + info.nrfixed,
	      "perfctr_info_nrctrs(): %u", perfctr_info_nrctrs(&info));
	check(strcmp(perfctr_info_cpu_name(&info), "unknown") != 0,
	      "perfctr_info_cpu_name(): %s", perfctr_info_cpu_name(&info));
	hw = info.nrctrs > 0;

	*cpus = perfctr_cpus_info(fd);
	check(*cpus && (long)count_cpus((*cpus)->cpus) ==
	      sysconf(_SC_NPROCESSORS_ONLN) &&
	      (*cpus)->cpus_forbidden->nrwords == (*cpus)->cpus->nrwords,
	      "perfctr_cpus_info(): the %ld online CPUs",
	      sysconf(_SC_NPROCESSORS_ONLN));
	if (*cpus)
		perfctr_cpus_info_print(*cpus);
	check(fd >= 0 && close(fd) == 0, "close() of the descriptor: 0");

	code = perfctr_linux_version_code();
	check(uname(&uts) == 0 && code >= PERFCTR_KERNEL_VERSION(6, 12, 0) &&
	      (code >> 16) == strtoul(uts.release, NULL, 10),
	      "perfctr_linux_version_code(): %u.%u.%u, of %s", code >> 16,
	      (code >> 8) & 0xff, code & 0xff, uts.release);

	set = perfctr_cpu_event_set(info.cpu_type);
	for (i = named = 0; set && i < set->nevents; i++)
		named += set->events[i].name && set->events[i].description;
	check(set && set->cpu_type == info.cpu_type && named == set->nevents &&
	      (set->nevents > 0) == (info.cpu_type != PERFCTR_X86_GENERIC &&
				     info.cpu_type != PERFCTR_ARM64_GENERIC),
	      "perfctr_cpu_event_set(%u): %u named events", info.cpu_type,
	      set ? set->nevents : 0);
}

/* The handler of the i-mode tests: counts overflows and resumes. */
static struct vperfctr *imode_vperfctr;
static volatile sig_atomic_t overflows, strays, iresume_errno, stopping;
static unsigned int imode_index;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)sig;
	(void)uc;
	if (si->si_code != SI_PMC_OVF ||
	    !((unsigned int)si->si_pmc_ovf_mask & (1u << imode_index))) {
		strays++;
	} else {
		overflows++;
		if (!stopping && vperfctr_iresume(imode_vperfctr) < 0)
			iresume_errno = errno;
	}
	errno = saved;
}

/* Run @control, whose counter @index is i-mode, to OVERFLOWS overflows. */
static void run_imode(struct vperfctr *v, struct vperfctr_control *control,
		      unsigned int index, const char *what)
{
	double deadline = seconds() + TIMEOUT_S;

	imode_vperfctr = v;
	imode_index = index;
	overflows = strays = iresume_errno = stopping = 0;
	control->si_signo = SIGIO;
	if (vperfctr_control(v, control) < 0) {
		check(0, "vperfctr_control() with i-mode %s", what);
		return;
	}
	while (overflows < OVERFLOWS && !iresume_errno &&
	       seconds() < deadline)
		work(WORK / 100);
	stopping = 1;
	check(vperfctr_stop(v) == 0, "vperfctr_stop() after i-mode %s", what);
	errno = iresume_errno;
	check(overflows >= OVERFLOWS && !strays && !iresume_errno,
	      "%d overflow signals of i-mode %s, SI_PMC_OVF and its bit in "
	      "si_pmc_ovf_mask, vperfctr_iresume() from the handler: 0",
	      (int)overflows, what);
}

static void test_imode(struct vperfctr *v)
{
	struct vperfctr_control control;
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGIO, &sa, NULL) < 0) {
		check(0, "sigaction(SIGIO)");
		return;
	}

	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	i = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0,
					1000000);
	if (i < 0)
		check(0, "an i-mode task-clock counter");
	else
		run_imode(v, &control, i, "task-clock, 1 ms");

	if (!hw || !(info.cpu_features & PERFCTR_FEATURE_PCINT)) {
		skip("i-mode instructions", "no hardware counters with "
		     "overflow interrupts");
	} else {
		memset(&control, 0, sizeof(control));
		control.cpu_control.tsc_on = 1;
		control.cpu_control.nrictrs = 1;
		control.cpu_control.pmc_map[0] = 0;
		control.cpu_control.evntsel[0] = X86 ?
			X86_INSTRUCTIONS | X86_EN | X86_INT :
			ARM64_INSTRUCTIONS;
		control.cpu_control.ireset[0] = -1000000;
		run_imode(v, &control, 0, X86 ? "instructions, selector with "
			  "EN and INT (bits 22 and 20)" : "instructions");
	}
	signal(SIGIO, SIG_IGN);	/* an overflow still on its way */
}

/* The thread's own counters, through a struct vperfctr and the raw fd. */
static void test_self(const struct perfctr_cpus_info *cpus)
{
	struct perfctr_sum_ctrs s1, s2, s3, children, before, after, later;
	struct vperfctr_control control, got;
	struct perfctr_cpus_info *cpus2;
	unsigned long long tsc, pmc = 0;
	struct perfctr_info info2;
	struct vperfctr *v;
	int fd, status, ok;

	/* As in 2.7, a read leaves the sums past the last one in use alone. */
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	memset(&s3, 0, sizeof(s3));
	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));
	memset(&later, 0, sizeof(later));
	pid_t pid;

	v = vperfctr_open();
	check(v != NULL, "vperfctr_open()");
	if (!v)
		return;
	check(vperfctr_info(v, &info2) == 0 &&
	      !memcmp(&info, &info2, sizeof(info)),
	      "vperfctr_info(): as perfctr_info()");
	cpus2 = vperfctr_cpus_info(v);
	check(cpus2 && cpus && cpus2->cpus->nrwords == cpus->cpus->nrwords &&
	      count_cpus(cpus2->cpus) == count_cpus(cpus->cpus),
	      "vperfctr_cpus_info(): as perfctr_cpus_info()");
	free(cpus2);
	errno = 0;
	check(_vperfctr_open(1) == -1 && errno == EEXIST,
	      "_vperfctr_open(1) with a state: EEXIST");

	fill_control(&control, 1);
	perfctr_cpu_control_print(&control.cpu_control);
	ok = vperfctr_control(v, &control) == 0;
	if (hw && X86) {
		check(ok, "vperfctr_control(): TSC and instructions, a 2.7 "
		      "selector with EN (bit 22)");
		if (!ok) {
			fill_control(&control, 0);
			ok = vperfctr_control(v, &control) == 0;
		}
	}
	check(ok, "vperfctr_control(): TSC%s", hw ? " and instructions" : "");
	check(vperfctr_is_running(v) == 1, "vperfctr_is_running(): 1");

	work(WORK);
	tsc = vperfctr_read_tsc(v);
	if (hw)
		pmc = vperfctr_read_pmc(v, 0);
	check(tsc > 0 && (!hw || pmc >= WORK),
	      "vperfctr_read_tsc(): %llu; vperfctr_read_pmc(0): %llu", tsc,
	      pmc);
	check(vperfctr_read_ctrs(v, &s1) == 0 && s1.tsc >= tsc &&
	      s1.pmc[0] >= pmc, "vperfctr_read_ctrs(): not less");
	memset(&got, 0, sizeof(got));
	check(vperfctr_read_state(v, &s2, &got) == 0 && s2.tsc >= s1.tsc &&
	      s2.pmc[0] >= s1.pmc[0] && got.cpu_control.tsc_on == 1 &&
	      got.cpu_control.nractrs == control.cpu_control.nractrs,
	      "vperfctr_read_state(sum, control): sums and control");
	check(vperfctr_read_state(v, &s2, NULL) == 0,
	      "vperfctr_read_state(sum, NULL): 0");

	fd = _vperfctr_open(0);
	check(fd >= 0, "_vperfctr_open(0) with a state: its descriptor");
	check(_vperfctr_read_sum(fd, &s3) == 0 && s3.tsc >= s2.tsc &&
	      s3.pmc[0] >= s2.pmc[0], "_vperfctr_read_sum()");
	memset(&got, 0, sizeof(got));
	check(_vperfctr_read_control(fd, &got) == 0 &&
	      got.cpu_control.tsc_on == 1 &&
	      got.cpu_control.nractrs == control.cpu_control.nractrs,
	      "_vperfctr_read_control()");
	check(_vperfctr_read_children(fd, &children) == 0 &&
	      children.tsc == 0, "_vperfctr_read_children(): none yet");

	/* A child inherits the counters; reaped, its sums are children's. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		work(WORK);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a child that inherits the counters, reaped");
	ok = _vperfctr_read_children(fd, &children) == 0;
	check(ok && children.tsc > 0 && (!hw || children.pmc[0] >= WORK),
	      "_vperfctr_read_children(): the child's sums, %llu tsc",
	      (unsigned long long)children.tsc);

	/* A stop keeps every sum, the TSC's included. */
	check(vperfctr_read_ctrs(v, &before) == 0, "a read before the stop");
	check(vperfctr_stop(v) == 0, "vperfctr_stop()");
	check(vperfctr_is_running(v) == 0, "vperfctr_is_running(): 0");
	ok = vperfctr_read_ctrs(v, &after) == 0;
	check(ok && after.tsc > 0 && after.tsc >= before.tsc &&
	      after.pmc[0] >= before.pmc[0],
	      "after vperfctr_stop(), the sums from before it: %llu tsc "
	      "(%llu before)", (unsigned long long)after.tsc,
	      (unsigned long long)before.tsc);
	work(WORK / 10);
	check(vperfctr_read_ctrs(v, &later) == 0 && later.tsc == after.tsc &&
	      later.pmc[0] == after.pmc[0],
	      "stopped, the sums do not move");
	check(_vperfctr_read_sum(fd, &s3) == 0 && s3.tsc == after.tsc &&
	      s3.pmc[0] == after.pmc[0],
	      "stopped, _vperfctr_read_sum(): the same sums");

	/* A new control restarts them: the PMC sums from 0, the TSC's on. */
	fill_control(&control, 1);
	if (vperfctr_control(v, &control) < 0) {
		fill_control(&control, 0);
		vperfctr_control(v, &control);
	}
	check(vperfctr_read_ctrs(v, &later) == 0 && later.tsc >= after.tsc &&
	      vperfctr_is_running(v) == 1,
	      "a new control: running, the TSC sum goes on");
	if (hw)
		check(later.pmc[0] < after.pmc[0],
		      "a new control: the instructions sum starts again, %llu",
		      (unsigned long long)later.pmc[0]);
	else
		skip("a new control resets the PMC sums", "no hardware "
		     "counters");

	test_imode(v);

	check(vperfctr_unlink(v) == 0, "vperfctr_unlink()");
	vperfctr_close(v);
	if (fd >= 0)
		close(fd);
	fd = _vperfctr_open(0);
	check(fd >= 0 && perfctr_info(fd, &info2) == 0,
	      "after the unlink, _vperfctr_open(0) and perfctr_info() again");
	if (fd >= 0)
		close(fd);
}

static int send_fd(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof(int))], byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	memset(buf, 0, sizeof(buf));
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	/* The sender has exited: what it sent is there, or nothing is. */
	if (recvmsg(sock, &msg, MSG_DONTWAIT) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* 2.7's perfex: the child's state read by the parent after its exit. */
static void test_perfex_way(void)
{
	struct vperfctr_control control, got;
	struct perfctr_sum_ctrs sum, children;
	int sv[2], fd, status = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) {
		check(0, "socketpair()");
		return;
	}
	fill_control(&control, 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		fd = _vperfctr_open(1);
		if (fd < 0)
			_exit(2);
		if (perfctr_abi_check_fd(fd) < 0)
			_exit(3);
		if (_vperfctr_control(fd, &control) < 0) {
			fill_control(&control, 0);
			if (_vperfctr_control(fd, &control) < 0)
				_exit(4);
		}
		if (send_fd(sv[1], fd) < 0)
			_exit(5);
		close(fd);
		work(WORK);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "perfex's way: the child made its state with _vperfctr_open(1) "
	      "and _vperfctr_control(), and exited (status 0x%x)", status);
	fd = receive_fd(sv[0]);
	close(sv[0]);
	check(fd >= 0, "perfex's way: the child's descriptor received");
	if (fd < 0)
		return;
	check(_vperfctr_read_sum(fd, &sum) == 0 && sum.tsc > 0 &&
	      (!hw || sum.pmc[0] >= WORK),
	      "perfex's way: _vperfctr_read_sum() after the exit: %llu tsc",
	      (unsigned long long)sum.tsc);
	memset(&got, 0, sizeof(got));
	check(_vperfctr_read_control(fd, &got) == 0 &&
	      got.cpu_control.tsc_on == 1 &&
	      got.cpu_control.nractrs == control.cpu_control.nractrs,
	      "perfex's way: _vperfctr_read_control()");
	check(_vperfctr_read_children(fd, &children) == 0 &&
	      children.tsc == 0,
	      "perfex's way: _vperfctr_read_children(): none");
	close(fd);
}

/* Wait for @pid to stop. */
static int stopped(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFSTOPPED(status);
}

/* Another process's counters, with the process in a ptrace stop. */
static void test_remote(void)
{
	struct perfctr_sum_ctrs sum, sum2, after;
	struct vperfctr_control control, got;
	struct rvperfctr *r = NULL;
	struct perfctr_info info2;
	int go[2], status, ok;
	char c;
	pid_t pid;

	memset(&sum, 0, sizeof(sum));
	memset(&after, 0, sizeof(after));

	if (pipe(go) < 0) {
		check(0, "pipe()");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		work(WORK);
		raise(SIGSTOP);
		_exit(0);
	}
	close(go[0]);
	if (pid < 0 || ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || !stopped(pid)) {
		check(0, "a child in a ptrace stop");
		goto out;
	}
	r = rvperfctr_open(pid);
	check(r != NULL, "rvperfctr_open(%d)", (int)pid);
	if (!r)
		goto out;
	check(rvperfctr_pid(r) == pid, "rvperfctr_pid()");
	check(rvperfctr_info(r, &info2) == 0 &&
	      !memcmp(&info, &info2, sizeof(info)),
	      "rvperfctr_info(): as perfctr_info()");
	fill_control(&control, 1);
	if (rvperfctr_control(r, &control) < 0) {
		fill_control(&control, 0);
		check(rvperfctr_control(r, &control) == 0,
		      "rvperfctr_control()");
	} else {
		check(1, "rvperfctr_control()");
	}
	if (ptrace(PTRACE_CONT, pid, 0, 0) < 0 || write(go[1], "g", 1) != 1 ||
	    !stopped(pid)) {
		check(0, "the child ran and stopped itself");
		goto out;
	}
	ok = rvperfctr_read_ctrs(r, &sum) == 0;
	check(ok && sum.tsc > 0 && (!hw || sum.pmc[0] >= WORK),
	      "rvperfctr_read_ctrs(): %llu tsc",
	      (unsigned long long)sum.tsc);
	memset(&got, 0, sizeof(got));
	check(rvperfctr_read_state(r, &sum2, &got) == 0 &&
	      sum2.tsc == sum.tsc && got.cpu_control.tsc_on == 1,
	      "rvperfctr_read_state(): the same sums, the control");
	check(rvperfctr_stop(r) == 0, "rvperfctr_stop()");
	check(rvperfctr_read_ctrs(r, &after) == 0 && after.tsc == sum.tsc &&
	      after.pmc[0] == sum.pmc[0],
	      "after rvperfctr_stop(), the sums from before it");
	check(rvperfctr_unlink(r) == 0, "rvperfctr_unlink()");
	rvperfctr_close(r);
	r = NULL;
	check(ptrace(PTRACE_DETACH, pid, 0, 0) == 0 &&
	      waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the child let go, exited");
	close(go[1]);
	return;
out:
	rvperfctr_close(r);
	close(go[1]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

int main(void)
{
	struct perfctr_cpus_info *cpus = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(5 * TIMEOUT_S);	/* whatever goes wrong, no hang */
	test_without_state(&cpus);
	if (!hw)
		skip("checks of instructions", "no hardware counters");
	test_self(cpus);
	free(cpus);
	test_perfex_way();
	test_remote();

	if (failed) {
		printf("compat27: %d of %d checks failed\n", failed,
		       passed + failed);
		return 1;
	}
	printf("compat27: %d checks passed, %d skipped\n", passed, skipped);
	return 0;
}
