// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_fuzz: a bounded, seeded random-argument fuzzer of the five
 * vperfctr system calls and of the file operations on a vperfctr file
 * descriptor.
 *
 *	vperfctr_fuzz [-s SEED] [-n CALLS] [-t SECONDS]
 *
 * It makes at most CALLS random operations (default 2000) in at most
 * SECONDS (default 300), choosing everything from a PRNG seeded with
 * SEED (default: from the clock), which it prints first: the same seed
 * and CALLS make the same choices again.  A violation is printed with
 * the seed and the number of the operation that found it.
 *
 * The operations run in rounds of ROUND_CALLS, each in a fresh process
 * that sets up what the arguments are drawn from (own and other threads'
 * states, children traced or not, a reaped child, files that are not
 * vperfctr files, pages that cannot be read or written) and keeps a
 * model of the counter states it can know about.  Each result is
 * checked three ways:
 *
 * - its errno is one its man page lists (allowed_errnos[] below, which
 *   scripts/check-man compares with the ERRORS sections of man/man2);
 * - it is the result the arguments call for: a call whose arguments
 *   have defects fails with the errno of one of them, a call without
 *   any succeeds (outcome());
 * - a call that failed changed nothing (the control read back and the
 *   state page are as before), a vperfctr_open that failed attached no
 *   state, and what the kernel wrote out (sums, control, children sums,
 *   the state page) holds the state's values and no stray bytes.
 *
 * The result is kselftest TAP: one test per kind of check, failed if
 * any instance of it failed and skipped if none was made.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "vperfctr_common.h"
#include "vperfctr_syscalls.h"

#define DEFAULT_CALLS	2000
#define DEFAULT_SECONDS	300
#define ROUND_CALLS	250
/* A round that takes longer than this has hung: its process is killed. */
#define ROUND_TIMEOUT_S	240

/* --- What each call may fail with ------------------------------------------- */

#define ERRNOS(...)	{ __VA_ARGS__, 0 }

enum call_id {
	CALL_OPEN, CALL_CONTROL, CALL_UNLINK, CALL_READ, CALL_IRESUME,
	/* file operations on a vperfctr file descriptor */
	CALL_FREAD, CALL_FWRITE, CALL_PREAD, CALL_PWRITE, CALL_LSEEK,
	CALL_MMAP, CALL_MPROTECT, CALL_IOCTL, CALL_FCNTL, CALL_DUP,
	CALL_FSTATFS,
	NR_CALLS
};

struct allowed {
	const char *call;
	int errnos[16];		/* 0-terminated */
};

/*
 * The five system calls: exactly the ERRORS section of each man page,
 * man/man2/<call>.2, but for ENOSYS (a kernel without perfctr, which
 * this program does not run on).  scripts/check-man compares each
 * '"vperfctr_...", ERRNOS(...)' entry with its page, both ways.
 *
 * The file operations: what the VFS gives a file with no read, write or
 * ioctl method, opened read-only, whose mmap() allows one read-only page
 * at offset 0 (vperfctr_open(2), "Mapping the state page"):
 *   read      EINVAL (no read method: checked before the buffer)
 *   write     EBADF (not open for writing)
 *   pread     ESPIPE (the file is not positionable), EINVAL (offset)
 *   pwrite    ESPIPE, EBADF, EINVAL (offset)
 *   lseek     EINVAL (bad whence); otherwise noop_llseek: offset 0
 *   mmap      EACCES (PROT_WRITE), EINVAL (length, offset, flags),
 *             ENOMEM (a length the address space cannot take), EPERM
 *   mprotect  EACCES (PROT_WRITE on the read-only mapping)
 *   ioctl     ENOTTY (no ioctl method), EFAULT (generic ones' argument),
 *             EINVAL (FIGETBSZ without a block size)
 *   fcntl     EINVAL (unknown command, bad argument), EBADF (write lock
 *             on a read-only file), EFAULT (lock argument), EAGAIN,
 *             EACCES (conflicting lock or lease), ENOTDIR (F_NOTIFY),
 *             EMFILE (F_DUPFD), EPERM (O_NOATIME), ENOLCK; without
 *             CONFIG_FILE_LOCKING, EINVAL for F_GETLK, EACCES for F_SETLK
 *   dup       EMFILE, EINVAL (dup3 onto itself)
 *   fstatfs   EFAULT
 */
static const struct allowed allowed_errnos[NR_CALLS] = {
	[CALL_OPEN] = { "vperfctr_open",
		ERRNOS(EEXIST, EINVAL, EMFILE, ENFILE, ENOENT, ENOMEM, EPERM, ESRCH) },
	[CALL_CONTROL] = { "vperfctr_control",
		ERRNOS(EACCES, EBADF, EBUSY, EFAULT, EINVAL, ENOMEM, EPERM, ESRCH) },
	[CALL_UNLINK] = { "vperfctr_unlink", ERRNOS(EBADF, EINVAL, EPERM) },
	[CALL_READ] = { "vperfctr_read", ERRNOS(EBADF, EFAULT, EINVAL, ENOMEM, EPERM) },
	[CALL_IRESUME] = { "vperfctr_iresume", ERRNOS(EBADF, EINVAL, EPERM, ESRCH) },
	[CALL_FREAD] = { "read", ERRNOS(EINVAL) },
	[CALL_FWRITE] = { "write", ERRNOS(EBADF) },
	[CALL_PREAD] = { "pread", ERRNOS(ESPIPE, EINVAL) },
	[CALL_PWRITE] = { "pwrite", ERRNOS(ESPIPE, EBADF, EINVAL) },
	[CALL_LSEEK] = { "lseek", ERRNOS(EINVAL) },
	[CALL_MMAP] = { "mmap", ERRNOS(EACCES, EINVAL, ENOMEM, EPERM) },
	[CALL_MPROTECT] = { "mprotect", ERRNOS(EACCES) },
	[CALL_IOCTL] = { "ioctl", ERRNOS(ENOTTY, EFAULT, EINVAL) },
	[CALL_FCNTL] = { "fcntl", ERRNOS(EINVAL, EBADF, EFAULT, EAGAIN, EACCES,
					 ENOTDIR, EMFILE, EPERM, ENOLCK) },
	[CALL_DUP] = { "dup", ERRNOS(EMFILE, EINVAL) },
	[CALL_FSTATFS] = { "fstatfs", ERRNOS(EFAULT) },
};

static bool errno_allowed(enum call_id call, int err)
{
	const int *e;

	for (e = allowed_errnos[call].errnos; *e; e++)
		if (*e == err)
			return true;
	return false;
}

/* --- The checks ----------------------------------------------------------- */

enum check_id {
	CK_ERRNO_OPEN, CK_ERRNO_CONTROL, CK_ERRNO_UNLINK, CK_ERRNO_READ,
	CK_ERRNO_IRESUME, CK_ERRNO_FILE, CK_OUTCOME, CK_NOCHANGE,
	CK_FAILED_OPEN, CK_EMFILE, CK_WRITTEN_OUT, CK_SIGNALS, CK_ROUNDS,
	NR_CHECKS
};

static const char * const check_names[NR_CHECKS] = {
	[CK_ERRNO_OPEN] = "vperfctr_open fails only with the errnos of vperfctr_open(2)",
	[CK_ERRNO_CONTROL] = "vperfctr_control fails only with the errnos of vperfctr_control(2)",
	[CK_ERRNO_UNLINK] = "vperfctr_unlink fails only with the errnos of vperfctr_unlink(2)",
	[CK_ERRNO_READ] = "vperfctr_read fails only with the errnos of vperfctr_read(2)",
	[CK_ERRNO_IRESUME] = "vperfctr_iresume fails only with the errnos of vperfctr_iresume(2)",
	[CK_ERRNO_FILE] = "file operations on a vperfctr fd fail only with plausible errnos",
	[CK_OUTCOME] = "each call's result is the one its arguments call for",
	[CK_NOCHANGE] = "a failed call changes nothing",
	[CK_FAILED_OPEN] = "a failed vperfctr_open leaves no state attached",
	[CK_EMFILE] = "vperfctr_open without a free fd fails with EMFILE and attaches no state",
	[CK_WRITTEN_OUT] = "what the kernel writes out is the state's, with no stray bytes",
	[CK_SIGNALS] = "overflow signals have SI_PMC_OVF and i-mode counters only",
	[CK_ROUNDS] = "every round ran to its end",
};

static const enum check_id errno_check[NR_CALLS] = {
	[CALL_OPEN] = CK_ERRNO_OPEN, [CALL_CONTROL] = CK_ERRNO_CONTROL,
	[CALL_UNLINK] = CK_ERRNO_UNLINK, [CALL_READ] = CK_ERRNO_READ,
	[CALL_IRESUME] = CK_ERRNO_IRESUME,
	[CALL_FREAD ... CALL_FSTATFS] = CK_ERRNO_FILE,
};

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "unknown errno";
}

/* What the run exercised, in report->stats[], printed at the end. */
enum stat_id { ST_CONTROLS, ST_HW_CONTROLS, ST_IMODE_CONTROLS, ST_OVERFLOWS };

static const char * const stat_names[] = {
	[ST_CONTROLS] = "controls installed",
	[ST_HW_CONTROLS] = "with hardware counters",
	[ST_IMODE_CONTROLS] = "with i-mode counters",
	[ST_OVERFLOWS] = "overflow signals",
};

/* --- The machine -------------------------------------------------------- */

/*
 * Without CONFIG_FILE_LOCKING, F_GETLK fails with EINVAL and F_SETLK with
 * EACCES on every file, as they do on /dev/null.
 */
static bool kernel_has_file_locks(void)
{
	struct flock lk = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	int fd = open("/dev/null", O_RDONLY);
	bool locks = fd < 0 || fcntl(fd, F_GETLK, &lk) == 0 || errno != EINVAL;

	if (fd >= 0)
		close(fd);
	return locks;
}

static struct {
	long cpu_type, features, nrctrs, nrfixed, ctr_width, fixed_width;
	bool hw;		/* the driver counts hardware events */
	bool file_locks;	/* CONFIG_FILE_LOCKING */
	size_t page;
} mach;

static void read_machine(void)
{
	mach.cpu_type = sysfs_value("cpu_type");
	mach.features = sysfs_value("cpu_features");
	mach.nrctrs = sysfs_value("nrctrs");
	mach.nrfixed = sysfs_value("nrfixed");
	mach.ctr_width = sysfs_value("ctr_width");
	mach.fixed_width = sysfs_value("fixed_width");
	mach.hw = mach.nrctrs + mach.nrfixed > 0;
	mach.page = sysconf(_SC_PAGESIZE);
	mach.file_locks = kernel_has_file_locks();
}

/* --- A round's world and its model --------------------------------------- */

enum owner { OWN_SELF, OWN_TRACEE, OWN_EXITSTOP, OWN_SIBLING, OWN_GONE };

static const char * const owner_names[] = {
	[OWN_SELF] = "own", [OWN_TRACEE] = "a stopped tracee's",
	[OWN_EXITSTOP] = "an exiting tracee's",
	[OWN_SIBLING] = "another thread's", [OWN_GONE] = "detached",
};

/* A counter state as the model knows it. */
struct mstate {
	enum owner owner;
	struct vperfctr_control control;	/* what vperfctr_read gives */
	const struct vperfctr_state *page;
};

struct mfd {
	int fd;
	int state;
};

#define MAX_STATES	(ROUND_CALLS + 8)
#define MAX_FDS		48
#define MAX_OTHER	8

/* Where the arguments come from, set up once a round. */
static struct world {
	struct prng rng;
	unsigned long call;		/* the operation's number in the run */
	unsigned long end;
	__u64 deadline;
	bool allow_kernel;		/* may count kernel mode */
	pid_t self_tid;
	/* The states of the threads the model follows, or -1: by owner. */
	int slot[OWN_EXITSTOP + 1];
	struct mstate states[MAX_STATES];
	int nstates;
	struct mfd fds[MAX_FDS];
	int nfds;
	int other[MAX_OTHER];		/* open files that are not vperfctr files */
	int nother;
	pid_t tracee, exitstop, untraced, reaped;
	pid_t sibling_tid, dead_tid;
	pthread_t sibling;
	int sibling_block[2];
	char *rw;			/* two read-write pages, then PROT_NONE */
	char *guard;
	char *ro;			/* a read-only page */
	char *hole;			/* an unmapped page */
} w;

static const struct vperfctr_control zero_control;

/* The control a sibling thread counts with: the TSC and task-clock. */
static const struct vperfctr_control sibling_control = {
	.cpu_control = {
		.tsc_on = 1, .nractrs = 1, .pmc_map[0] = TASK_CLOCK_MAP,
	},
};

static int new_state(enum owner owner, const struct vperfctr_control *c,
		     int fd)
{
	struct mstate *st;

	if (w.nstates == MAX_STATES)
		return -1;
	st = &w.states[w.nstates];
	st->owner = owner;
	st->control = *c;
	st->page = map_state(fd);
	return w.nstates++;
}

static void add_fd(int fd, int state)
{
	if (w.nfds == MAX_FDS || state < 0) {
		close(fd);
		return;
	}
	w.fds[w.nfds].fd = fd;
	w.fds[w.nfds].state = state;
	w.nfds++;
}

static int fd_index(int fd)
{
	int i;

	for (i = 0; i < w.nfds; i++)
		if (w.fds[i].fd == fd)
			return i;
	return -1;
}

static void drop_fd(int i)
{
	close(w.fds[i].fd);
	w.fds[i] = w.fds[--w.nfds];
}

/* The page of @state, with its live hardware counts when it is ours. */
static bool page_snap(int state, struct page_snap *s)
{
	const struct vperfctr_state *page = w.states[state].page;

	if (!page)
		return false;
	if (w.states[state].owner == OWN_SELF)
		return page_read_own(page, s, 1000000);
	return page_read(page, s, 1000000);
}

/* The state a modelled thread has: self and the two tracees. */
static int *state_slot(enum owner owner)
{
	return &w.slot[owner];
}

/* How vperfctr_open names a modelled thread. */
static pid_t tid_of(enum owner owner)
{
	return owner == OWN_SELF ? 0 : owner == OWN_TRACEE ? w.tracee : w.exitstop;
}

/* --- Expected outcomes ---------------------------------------------------- */

#define E(err)	(1ull << (err))

/*
 * What a call must do: if @must is empty it must succeed, unless it fails
 * with an errno of @may; otherwise it must fail with one of @must | @may.
 * @must holds the errnos of the arguments' defects, a call with several
 * of which may report any; @may those of arguments whose validity is not
 * known (a randomly mutated control) or of races the caller cannot rule
 * out.  All the errnos concerned are below 64.
 */
struct expect {
	__u64 must, may;
};

static void expect_add(struct expect *x, const struct expect *y)
{
	x->must |= y->must;
	x->may |= y->may;
}

#define violation(check, fmt, ...) \
	check_fail(check, "call %lu: " fmt, w.call, ##__VA_ARGS__)

static void check_errno(enum call_id call, long ret, int err, const char *what)
{
	if (ret != -1) {
		check_ok(errno_check[call]);
		return;
	}
	if (errno_allowed(call, err))
		check_ok(errno_check[call]);
	else
		violation(errno_check[call], "%s failed with %s, which %s does not list",
			  what, errname(err), call < CALL_FREAD ?
			  "its man page" : "the table of plausible errnos");
}

/*
 * ENOMEM and ENFILE say the machine ran short, which no argument rules
 * out.  Return: whether the outcome was as expected.
 */
static bool outcome(long ret, int err, const struct expect *x, const char *what)
{
	bool ok;

	if (ret != -1)
		ok = !x->must;
	else
		ok = err == ENOMEM || err == ENFILE ||
		     (err < 64 && ((x->must | x->may) & E(err)));
	if (ok) {
		check_ok(CK_OUTCOME);
	} else if (ret != -1) {
		violation(CK_OUTCOME, "%s succeeded; expected %s", what,
			  errname(__builtin_ctzll(x->must)));
	} else if (x->must) {
		violation(CK_OUTCOME, "%s failed with %s; expected %s%s", what,
			  errname(err), errname(__builtin_ctzll(x->must)),
			  x->must & (x->must - 1) ? " or another defect's errno" : "");
	} else {
		violation(CK_OUTCOME, "%s failed with %s; it should succeed",
			  what, errname(err));
	}
	return ok;
}

/* --- Overflow signals ------------------------------------------------------ */

static const int overflow_signals[] = { SIGIO, SIGUSR1, SIGUSR2, 0 /* SIGRTMIN + 3 */ };
#define NR_OVERFLOW_SIGNALS	ARRAY_SIZE(overflow_signals)

static int overflow_signal(unsigned int i)
{
	return overflow_signals[i] ? overflow_signals[i] : SIGRTMIN + 3;
}

static bool is_overflow_signal(int sig)
{
	unsigned int i;

	for (i = 0; i < NR_OVERFLOW_SIGNALS; i++)
		if (overflow_signal(i) == sig)
			return true;
	return false;
}

/*
 * What the handler may see: the i-mode counters and signal of the own
 * state's control, and while a control is being set those of the one
 * before it too.
 */
static __u32 sig_imode_mask;
static int sig_signo[2];
static unsigned int sig_seen, sig_bad;
static int sig_bad_code;
static __u32 sig_bad_mask;
static unsigned int sig_checked, sig_bad_reported;

static void on_overflow(int signo, siginfo_t *si, void *uc)
{
	__u32 mask = (__u32)si->si_int;

	(void)uc;
	add_once(sig_seen, 1);
	if (si->si_code == SI_PMC_OVF && mask &&
	    !(mask & ~READ_ONCE(sig_imode_mask)) &&
	    (signo == READ_ONCE(sig_signo[0]) || signo == READ_ONCE(sig_signo[1])))
		return;
	if (!READ_ONCE(sig_bad)) {
		WRITE_ONCE(sig_bad_code, si->si_code);
		WRITE_ONCE(sig_bad_mask, mask);
	}
	add_once(sig_bad, 1);
}

static __u32 imode_mask(const struct vperfctr_control *c)
{
	unsigned int na = c->cpu_control.nractrs, ni = c->cpu_control.nrictrs;

	if (na > PERFCTR_MAX_NRCTRS || ni > PERFCTR_MAX_NRCTRS - na || !ni)
		return 0;
	return (__u32)(((1ull << (na + ni)) - 1) & ~((1ull << na) - 1));
}

/* Before a control is set on the own state: either may signal. */
static void signals_expect_both(const struct vperfctr_control *old,
				const struct vperfctr_control *new)
{
	WRITE_ONCE(sig_imode_mask, imode_mask(old) | imode_mask(new));
	WRITE_ONCE(sig_signo[0], old->si_signo);
	WRITE_ONCE(sig_signo[1], new->si_signo);
}

static void signals_expect(const struct vperfctr_control *c)
{
	WRITE_ONCE(sig_imode_mask, imode_mask(c));
	WRITE_ONCE(sig_signo[0], c->si_signo);
	WRITE_ONCE(sig_signo[1], c->si_signo);
}

static void check_signals(void)
{
	unsigned int bad = READ_ONCE(sig_bad);

	for (; sig_checked < READ_ONCE(sig_seen); sig_checked++) {
		check_ok(CK_SIGNALS);
		add_once(report->stats[ST_OVERFLOWS], 1);
	}
	if (bad > sig_bad_reported) {
		violation(CK_SIGNALS, "a signal with si_code %d, mask %#x; i-mode counters %#x",
			  READ_ONCE(sig_bad_code), READ_ONCE(sig_bad_mask),
			  READ_ONCE(sig_imode_mask));
		sig_bad_reported = bad;
	}
}

static void install_overflow_handlers(void)
{
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_OVERFLOW_SIGNALS; i++)
		sigaction(overflow_signal(i), &sa, NULL);
}

/* --- Pointers -------------------------------------------------------------- */

enum ptr_kind {
	PK_NULL, PK_VALID, PK_MISALIGNED, PK_READONLY, PK_UNMAPPED,
	PK_PROTNONE, PK_KERNEL, PK_STRADDLE, NR_PK
};

static const char * const ptr_names[NR_PK] = {
	"NULL", "valid", "misaligned", "read-only", "unmapped", "PROT_NONE",
	"kernel", "straddling into PROT_NONE",
};

static void *kernel_address(void)
{
	static const unsigned long addrs[] = {
#if defined(__x86_64__)
		0xffff888000000000ull,	/* the direct map */
		0xffffffff81000000ull,	/* kernel text */
		0x0000800000000000ull,	/* the first non-canonical address */
#else
		0xffff800080000000ull,	/* the kernel image */
		0xffff000000000000ull,	/* the linear map */
#endif
		(unsigned long)-4096,
	};

	return (void *)addrs[prng_below(&w.rng, ARRAY_SIZE(addrs))];
}

/* The hole must still be a hole: mmap() may have reused it since. */
static bool hole_unmapped(void)
{
	return msync(w.hole, mach.page, MS_ASYNC) == -1 && errno == ENOMEM;
}

/*
 * A pointer of kind @k to @size bytes in slot @slot (0-2), so that the
 * outputs of one call do not overlap.  Outputs are filled with a pattern
 * first, to tell what the kernel wrote.
 */
static void *make_ptr(enum ptr_kind *k, size_t size, unsigned int slot)
{
	switch (*k) {
	case PK_NULL:
		return NULL;
	case PK_VALID:
		return memset(w.rw + slot * 2048, 0xa5, size);
	case PK_MISALIGNED:
		return memset(w.rw + slot * 2048 + 1 + prng_below(&w.rng, 7),
			      0xa5, size);
	case PK_READONLY:
		return w.ro + slot * 1024;
	case PK_UNMAPPED:
		if (hole_unmapped())
			return w.hole + prng_below(&w.rng, mach.page);
		*k = PK_PROTNONE;	/* mapped again since: PROT_NONE will do */
		return make_ptr(k, size, slot);
	case PK_PROTNONE:
		return w.guard + prng_below(&w.rng, mach.page - size);
	case PK_KERNEL:
		return kernel_address();
	case PK_STRADDLE:
	default:
		return w.guard - 1 - prng_below(&w.rng, size - 1);
	}
}

/* NULL is no output, but an input that is not there. */
static bool ptr_faults(enum ptr_kind k, bool output)
{
	return k >= PK_UNMAPPED || (output && k == PK_READONLY) ||
	       (!output && k == PK_NULL);
}

/* An input pointer to @data: its bytes are where it points, if anywhere. */
static void *place_input(enum ptr_kind *k, const void *data, size_t size)
{
	void *p;

	if (*k == PK_READONLY) {
		mprotect(w.ro, mach.page, PROT_READ | PROT_WRITE);
		memcpy(w.ro, data, size);
		mprotect(w.ro, mach.page, PROT_READ);
		return w.ro;
	}
	p = make_ptr(k, size, 0);
	if (*k == PK_VALID || *k == PK_MISALIGNED)
		memcpy(p, data, size);
	return p;
}

static enum ptr_kind pick_ptr(bool output)
{
	/* Mostly usable ones, so that the calls get past the pointer. */
	static const enum ptr_kind in[] = {
		PK_VALID, PK_VALID, PK_VALID, PK_VALID, PK_VALID, PK_VALID,
		PK_VALID, PK_VALID, PK_VALID, PK_VALID, PK_MISALIGNED,
		PK_READONLY, PK_NULL, PK_UNMAPPED, PK_PROTNONE, PK_KERNEL,
		PK_STRADDLE,
	};
	static const enum ptr_kind out[] = {
		PK_NULL, PK_NULL, PK_NULL, PK_VALID, PK_VALID, PK_VALID,
		PK_VALID, PK_VALID, PK_MISALIGNED, PK_READONLY, PK_UNMAPPED,
		PK_PROTNONE, PK_KERNEL, PK_STRADDLE,
	};

	return output ? out[prng_below(&w.rng, ARRAY_SIZE(out))] :
			in[prng_below(&w.rng, ARRAY_SIZE(in))];
}

/* --- File descriptors ------------------------------------------------------- */

/* A file descriptor argument as the kernel sees it, and what it is. */
struct fdarg {
	long value;		/* what is passed: may have high bits set */
	int idx;		/* in w.fds[], or -1 */
	struct expect x;	/* EBADF, EINVAL, or nothing for a vperfctr fd */
	char desc[64];
};

static void classify_fd(struct fdarg *f)
{
	int fd = (int)f->value;

	f->idx = fd_index(fd);
	f->x = (struct expect){ 0, 0 };
	if (f->idx >= 0) {
		const struct mstate *st = &w.states[w.fds[f->idx].state];

		snprintf(f->desc, sizeof(f->desc), "%ld (%s state)", f->value,
			 owner_names[st->owner]);
	} else if (fcntl(fd, F_GETFD) == -1) {
		f->x.must = E(EBADF);
		snprintf(f->desc, sizeof(f->desc), "%ld (not open)", f->value);
	} else {
		f->x.must = E(EINVAL);
		snprintf(f->desc, sizeof(f->desc), "%ld (not a vperfctr file)",
			 f->value);
	}
}

/* An fd number not open now. */
static int closed_fd(void)
{
	int fd = 100 + prng_below(&w.rng, 800);

	while (fcntl(fd, F_GETFD) != -1)
		fd++;
	return fd;
}

/* Numbers no file could have, and any int at all. */
static long odd_fd(void)
{
	static const long odd[] = { -1, INT_MIN, INT_MAX, 1 << 20, 65536, -100 };

	if (prng_chance(&w.rng, 1, 2))
		return odd[prng_below(&w.rng, ARRAY_SIZE(odd))];
	return (long)(int)prng_next(&w.rng);
}

/* An fd on a state the calls can act on (ours or a tracee's), or -1. */
static int live_fd(void)
{
	int i, n = 0, pick;

	for (i = 0; i < w.nfds; i++)
		n += w.states[w.fds[i].state].owner <= OWN_EXITSTOP;
	if (!n)
		return -1;
	pick = prng_below(&w.rng, n);
	for (i = 0; ; i++)
		if (w.states[w.fds[i].state].owner <= OWN_EXITSTOP && !pick--)
			return w.fds[i].fd;
}

static struct fdarg pick_fd(void)
{
	struct fdarg f;
	unsigned int kind = prng_below(&w.rng, 20);
	int live = kind < 7 ? live_fd() : -1;

	if (live >= 0)
		f.value = live;
	else if (kind < 12 && w.nfds)
		f.value = w.fds[prng_below(&w.rng, w.nfds)].fd;
	else if (kind < 13 && w.nfds)	/* the kernel takes an int */
		f.value = (long)(0x100000000ull * (1 + prng_below(&w.rng, 3)) +
				 w.fds[prng_below(&w.rng, w.nfds)].fd);
	else if (kind < 15)
		f.value = closed_fd();
	else if (kind < 17 && w.nother)
		f.value = w.other[prng_below(&w.rng, w.nother)];
	else if (kind < 18)
		f.value = prng_below(&w.rng, 3);	/* stdin, stdout, stderr */
	else
		f.value = odd_fd();
	classify_fd(&f);
	return f;
}

/* A vperfctr fd of the model, or -1 if there is none. */
static int pick_vperfctr_fd(void)
{
	return w.nfds ? (int)prng_below(&w.rng, w.nfds) : -1;
}

/* --- Thread ids ------------------------------------------------------------ */

struct tidarg {
	long value;
	enum owner target;	/* if modelled: self or a tracee */
	bool modelled;
	struct expect x;
	char desc[64];
};

static bool tid_exists(int tid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return access(path, F_OK) == 0;
}

/* What the kernel makes of tid @t->value, truncated to an int. */
static void classify_tid(struct tidarg *t)
{
	int tid = (int)t->value;
	const char *what;

	t->modelled = false;
	t->x = (struct expect){ 0, 0 };
	if (tid < 0) {
		t->x.must = E(EINVAL);
		what = "negative";
	} else if (tid == 0 || tid == w.self_tid) {
		t->modelled = true;
		t->target = OWN_SELF;
		what = "self";
	} else if (tid == w.tracee) {
		t->modelled = true;
		t->target = OWN_TRACEE;
		what = "stopped tracee";
	} else if (tid == w.exitstop) {
		t->modelled = true;
		t->target = OWN_EXITSTOP;
		what = "tracee at its exit stop";
	} else if (!tid_exists(tid)) {
		t->x.must = E(ESRCH);
		what = "no such thread";
	} else {
		t->x.must = E(EPERM);
		what = "not traced by us";
	}
	snprintf(t->desc, sizeof(t->desc), "%ld (%s)", t->value, what);
}

static struct tidarg pick_tid(void)
{
	static const long odd[] = { 1, -1, INT_MIN, INT_MAX, 1 << 30, 4194304 };
	struct tidarg t;
	long base;

	switch (prng_below(&w.rng, 16)) {
	case 0 ... 4:
		t.value = 0;
		break;
	case 5:
		t.value = w.self_tid;
		break;
	case 6 ... 8:
		t.value = w.tracee;
		break;
	case 9:
		t.value = w.exitstop;
		break;
	case 10:
		t.value = prng_chance(&w.rng, 1, 2) ? w.untraced : w.sibling_tid;
		break;
	case 11:
		t.value = prng_chance(&w.rng, 1, 2) ? w.reaped : w.dead_tid;
		break;
	case 12:
		t.value = odd[prng_below(&w.rng, ARRAY_SIZE(odd))];
		break;
	case 13:
		t.value = (long)(int)prng_next(&w.rng);
		break;
	default:			/* the kernel takes an int */
		base = prng_chance(&w.rng, 1, 2) ? 0 : w.tracee;
		t.value = (long)(0x100000000ull * (1 + prng_below(&w.rng, 7)) + base);
		break;
	}
	classify_tid(&t);
	return t;
}

static long pick_creat(void)
{
	static const long values[] = {
		0, 0, 0, 1, 1, 1, -1, 2, INT_MAX, INT_MIN,
		0x100000000l,		/* 0 to the kernel */
		0x100000001l,		/* 1 to the kernel */
	};

	if (prng_chance(&w.rng, 1, 16))
		return (long)prng_next(&w.rng);
	return values[prng_below(&w.rng, ARRAY_SIZE(values))];
}

/* --- Controls -------------------------------------------------------------- */

struct ctlarg {
	struct vperfctr_control c;
	struct expect x;
	char desc[80];
};

static bool sw_is_fault(unsigned int event)
{
	return event == PERFCTR_SW_PAGE_FAULTS ||
	       event == PERFCTR_SW_MINOR_FAULTS ||
	       event == PERFCTR_SW_MAJOR_FAULTS;
}

/* A negative preset: from a counter that overflows at once to one that never does. */
static __s64 pick_ireset(__s64 max_period)
{
	static const __s64 periods[] = {
		1, 2, 3, 10, 100, 1000, 100000, 1000000, 1000000000,
	};
	__s64 p;

	if (max_period == INT64_MAX && prng_chance(&w.rng, 1, 16))
		return INT64_MIN;
	p = periods[prng_below(&w.rng, ARRAY_SIZE(periods))];
	if (prng_chance(&w.rng, 1, 4))
		p += prng_below(&w.rng, 1000);
	return -(p < max_period ? p : max_period);
}

static void sw_counter(struct vperfctr_control *c, unsigned int i)
{
	static const unsigned int events[] = {
		PERFCTR_SW_TASK_CLOCK, PERFCTR_SW_TASK_CLOCK,
		PERFCTR_SW_CONTEXT_SWITCHES, PERFCTR_SW_CPU_MIGRATIONS,
		PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_PAGE_FAULTS,
		PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_MAJOR_FAULTS,
	};
	unsigned int event = events[prng_below(&w.rng, ARRAY_SIZE(events))];
	struct perfctr_cpu_control *cc = &c->cpu_control;

	cc->pmc_map[i] = PERFCTR_MAP_SOFTWARE | event;
	if (sw_is_fault(event)) {
		cc->evntsel[i] = PERFCTR_SW_USR;
		if (w.allow_kernel && prng_chance(&w.rng, 1, 3))
			cc->evntsel[i] = prng_chance(&w.rng, 1, 2) ?
				PERFCTR_SW_OS : PERFCTR_SW_OS | PERFCTR_SW_USR;
	}
	if (i >= cc->nractrs)
		cc->ireset[i] = pick_ireset(INT64_MAX);
}

/*
 * A hardware counter the driver takes, in a free hardware slot: x86
 * general-purpose counters counting retired instructions (event 0xc0 on
 * Intel and AMD), arm64 event counters counting INST_RETIRED (0x08) and
 * the cycle counter counting CPU_CYCLES (0x11).  Return: false if every
 * counter is in use.
 */
static bool hw_counter(struct vperfctr_control *c, unsigned int i,
		       __u64 *used)
{
	struct perfctr_cpu_control *cc = &c->cpu_control;
	unsigned int n = mach.nrctrs, map;
	__s64 half;

#if defined(__aarch64__)
	n += mach.nrfixed ? 1 : 0;	/* the cycle counter */
#endif
	if (!n || __builtin_popcountll(*used) >= (int)n)
		return false;
	do
		map = prng_below(&w.rng, n);
	while (*used & (1ull << map));
	*used |= 1ull << map;
#if defined(__aarch64__)
	if (map == (unsigned int)mach.nrctrs) {
		cc->pmc_map[i] = PERFCTR_MAP_ARM64_CYCLES;
		cc->evntsel[i] = 0x11;
		half = mach.fixed_width >= 64 ? INT64_MAX : 1ll << (mach.fixed_width - 1);
	} else {
		cc->pmc_map[i] = map;
		cc->evntsel[i] = 0x08;
		half = mach.ctr_width >= 64 ? INT64_MAX : 1ll << (mach.ctr_width - 1);
	}
	if (!w.allow_kernel || prng_chance(&w.rng, 1, 2))
		cc->evntsel[i] |= PERFCTR_ARM64_EXCLUDE_EL1;
#else
	cc->pmc_map[i] = map;
	cc->evntsel[i] = 0x100c0;		/* USR */
	if (w.allow_kernel && prng_chance(&w.rng, 1, 2))
		cc->evntsel[i] |= 0x20000;	/* OS */
	/* Without full-width writes, 31 bits: keep to those. */
	half = 1ll << 31;
#endif
	if (i >= cc->nractrs)
		cc->ireset[i] = pick_ireset(half);
	return true;
}

/* A control the kernel must take. */
static void valid_control(struct vperfctr_control *c)
{
	struct perfctr_cpu_control *cc = &c->cpu_control;
	bool imode_hw = mach.features & PERFCTR_FEATURE_PCINT;
	__u64 used = 0;
	unsigned int i, n;

	memset(c, 0, sizeof(*c));
	cc->tsc_on = prng_chance(&w.rng, 3, 4);
	cc->nractrs = prng_below(&w.rng, 4);
	cc->nrictrs = prng_chance(&w.rng, 1, 3) ? 1 + prng_below(&w.rng, 2) : 0;
	n = cc->nractrs + cc->nrictrs;
	for (i = 0; i < n; i++) {
		bool imode = i >= cc->nractrs;

		if (!mach.hw || prng_chance(&w.rng, 2, 3) || (imode && !imode_hw) ||
		    !hw_counter(c, i, &used))
			sw_counter(c, i);
	}
	if (cc->nrictrs || prng_chance(&w.rng, 1, 4))
		c->si_signo = overflow_signal(prng_below(&w.rng, NR_OVERFLOW_SIGNALS));
	c->preserve = prng_chance(&w.rng, 1, 2) ? (__u32)prng_next(&w.rng) : 0;
}

/* An entry beyond the counters in use, or -1 if all 32 are. */
static int unused_entry(const struct perfctr_cpu_control *cc)
{
	unsigned int n = cc->nractrs + cc->nrictrs;

	if (n >= PERFCTR_MAX_NRCTRS)
		return -1;
	return n + prng_below(&w.rng, PERFCTR_MAX_NRCTRS - n);
}

/* The first software counter of @cc in [from, to), or -1. */
static int find_sw(const struct perfctr_cpu_control *cc, unsigned int from,
		   unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++)
		if (cc->pmc_map[i] & PERFCTR_MAP_SOFTWARE)
			return i;
	return -1;
}

/*
 * One defect, from the list of vperfctr_control(2)'s ERRORS, in a valid
 * control: the call must fail with its errno.  Return: its description,
 * or NULL if this control has no place for the one drawn.
 */
static const char *add_defect(struct vperfctr_control *c, int *err)
{
	struct perfctr_cpu_control *cc = &c->cpu_control;
	unsigned int n = cc->nractrs + cc->nrictrs;
	int i;

	*err = EINVAL;
	switch (prng_below(&w.rng, 16)) {
	case 0:
		c->flags = 1u << prng_below(&w.rng, 32);
		return "flags set";
	case 1:
		if (prng_chance(&w.rng, 1, 2))
			c->_reserved0 = 1 + prng_below(&w.rng, UINT32_MAX);
		else
			cc->_reserved0 = 1 + prng_below(&w.rng, UINT32_MAX);
		return "a reserved field set";
	case 2:
		if (prng_chance(&w.rng, 1, 2))
			c->_reserved1[prng_below(&w.rng, 2)] = 1ull << prng_below(&w.rng, 64);
		else
			cc->_reserved1[prng_below(&w.rng, 4)] = 1ull << prng_below(&w.rng, 64);
		return "a reserved array entry set";
	case 3:
		cc->tsc_on = 2 + prng_below(&w.rng, UINT32_MAX - 2);
		return "tsc_on neither 0 nor 1";
	case 4:
		if (prng_chance(&w.rng, 1, 2))
			cc->nractrs = PERFCTR_MAX_NRCTRS + 1 + prng_below(&w.rng, UINT32_MAX - 33);
		else
			cc->nrictrs = UINT32_MAX - prng_below(&w.rng, 4);	/* wraps the sum */
		return "more than PERFCTR_MAX_NRCTRS counters";
	case 5:
		i = unused_entry(cc);
		if (i < 0)
			return NULL;
		switch (prng_below(&w.rng, 3)) {
		case 0:
			cc->pmc_map[i] = 1 + prng_below(&w.rng, UINT32_MAX);
			break;
		case 1:
			cc->evntsel[i] = 1ull << prng_below(&w.rng, 64);
			break;
		default:
			cc->ireset[i] = -1 - (__s64)prng_below(&w.rng, 1000);
			break;
		}
		return "an entry beyond the counters in use set";
	case 6:
		c->si_signo = prng_chance(&w.rng, 1, 2) ? 65 + (int)prng_below(&w.rng, 1000) :
							  -1 - (int)prng_below(&w.rng, 1000);
		return "si_signo not a signal";
	case 7:
		if (!cc->nrictrs)
			return NULL;
		c->si_signo = 0;
		return "si_signo 0 with i-mode counters";
	case 8:
		if (!cc->nractrs)
			return NULL;
		cc->ireset[prng_below(&w.rng, cc->nractrs)] = 1 + prng_below(&w.rng, 1000);
		return "an a-mode counter with an ireset";
	case 9:
		i = find_sw(cc, cc->nractrs, n);
		if (i < 0)
			return NULL;
		cc->ireset[i] = prng_below(&w.rng, 3) ? (__s64)prng_below(&w.rng, 1000) : INT64_MAX;
		return "an i-mode software counter with a non-negative ireset";
	case 10:
		i = find_sw(cc, 0, n);
		if (i < 0)
			return NULL;
		cc->pmc_map[i] = PERFCTR_MAP_SOFTWARE |
			(prng_chance(&w.rng, 1, 4) ? 0 :
			 PERFCTR_SW_MAX + 1 + prng_below(&w.rng, 0x7fffffff - PERFCTR_SW_MAX));
		cc->evntsel[i] = 0;
		return "an unknown software event";
	case 11:
		i = find_sw(cc, 0, n);
		if (i < 0)
			return NULL;
		if (sw_is_fault(cc->pmc_map[i] & ~PERFCTR_MAP_SOFTWARE))
			cc->evntsel[i] = prng_chance(&w.rng, 1, 2) ? 0 :
				cc->evntsel[i] | 1ull << (18 + prng_below(&w.rng, 46));
		else
			cc->evntsel[i] = 1 + prng_below(&w.rng, 0x40000);
		return "a software counter's evntsel invalid";
	case 12:
		if (w.allow_kernel)
			return NULL;
		i = find_sw(cc, 0, n);
		if (i < 0 || !sw_is_fault(cc->pmc_map[i] & ~PERFCTR_MAP_SOFTWARE))
			return NULL;
		cc->evntsel[i] |= PERFCTR_SW_OS;
		*err = EACCES;
		return "kernel-mode faults without the privilege";
	case 13:
		/* A hardware counter this machine does not have, appended. */
		if (n >= PERFCTR_MAX_NRCTRS || mach.nrctrs >= 30)
			return NULL;
		cc->pmc_map[n] = mach.nrctrs + prng_below(&w.rng, 30 - mach.nrctrs);
#if defined(__aarch64__)
		cc->evntsel[n] = 0x08 | PERFCTR_ARM64_EXCLUDE_EL1;
#else
		cc->evntsel[n] = 0x100c0;
#endif
		/* a-mode counters come first: append one only if no i-mode one follows */
		if (!cc->nrictrs && prng_chance(&w.rng, 1, 2)) {
			cc->nractrs++;
		} else {
			cc->nrictrs++;
			cc->ireset[n] = -1000;
			if (!c->si_signo)
				c->si_signo = SIGIO;
		}
		return "a hardware counter the machine does not have";
	default:
		return NULL;
	}
}

/*
 * A valid control's signal must be one we handle: a mutated control that
 * the kernel takes could otherwise kill the round with its overflow
 * signal.  Out-of-range values stay, they are defects the kernel refuses.
 */
static void keep_signal_handled(struct vperfctr_control *c)
{
	if (c->si_signo > 0 && c->si_signo < 65 && !is_overflow_signal(c->si_signo))
		c->si_signo = overflow_signal(prng_below(&w.rng, NR_OVERFLOW_SIGNALS));
}

/* Flip @n random bits anywhere in the control. */
static void flip_bits(struct vperfctr_control *c, unsigned int n)
{
	unsigned char *b = (unsigned char *)c;

	while (n--)
		b[prng_below(&w.rng, sizeof(*c))] ^= 1u << prng_below(&w.rng, 8);
}

/*
 * A control argument: valid, valid but for one known defect, or mutated
 * at random, in which case the kernel may take it or refuse it with the
 * errnos a control's content can cause.
 */
static struct ctlarg pick_control(void)
{
	struct ctlarg k;
	const char *defect;
	unsigned int kind = prng_below(&w.rng, 16);
	int err;

	/* Half of them valid, so that the state goes somewhere. */
	valid_control(&k.c);
	k.x = (struct expect){ 0, 0 };
	if (mach.hw && (mach.cpu_type == PERFCTR_X86_INTEL_ARCH ||
			mach.cpu_type == PERFCTR_X86_AMD))
		k.x.may |= E(EBUSY);	/* perf may hold the counters */
	snprintf(k.desc, sizeof(k.desc), "valid");
	if (kind < 8)
		return k;
	if (kind < 12) {
		defect = add_defect(&k.c, &err);
		if (defect) {
			k.x.must = E(err);
			snprintf(k.desc, sizeof(k.desc), "%s", defect);
		}
		return k;
	}
	if (kind < 15) {
		flip_bits(&k.c, 1 + prng_below(&w.rng, 4));
		snprintf(k.desc, sizeof(k.desc), "valid with random bits flipped");
	} else {
		unsigned char *b = (unsigned char *)&k.c;
		size_t i;

		for (i = 0; i < sizeof(k.c); i++)
			b[i] = prng_next(&w.rng);
		snprintf(k.desc, sizeof(k.desc), "random bytes");
	}
	keep_signal_handled(&k.c);
	k.x.may |= E(EINVAL) | E(EACCES);
	return k;
}

/* The cstatus the kernel derives from a control. */
static __u32 control_cstatus(const struct vperfctr_control *c)
{
	const struct perfctr_cpu_control *cc = &c->cpu_control;

	return (cc->tsc_on ? PERFCTR_CSTATUS_TSC_ON : 0) |
	       (cc->nrictrs << 16) | cc->nractrs;
}

/* The cstatus of a state stopped by an overflow: the TSC alone runs. */
static __u32 overflow_cstatus(const struct vperfctr_control *c)
{
	return c->cpu_control.tsc_on ? PERFCTR_CSTATUS_TSC_ON : 0;
}

/* --- What a call must leave alone ------------------------------------------ */

/*
 * The control read back must be the model's, byte for byte: reserved
 * fields zero, nothing from the kernel's stack or heap.  Only for a
 * state the caller may read (not another running thread's).
 */
static bool readable(int state)
{
	return w.states[state].owner != OWN_SIBLING;
}

static bool control_readback(int fd, struct vperfctr_control *out)
{
	memset(out, 0x5a, sizeof(*out));
	return sys_vperfctr_read(fd, NULL, out, NULL) == 0;
}

static void check_control_kept(int state, int fd, const char *what)
{
	struct vperfctr_control now;

	if (!readable(state))
		return;
	if (!control_readback(fd, &now)) {
		violation(CK_NOCHANGE, "after %s, vperfctr_read failed with %s",
			  what, errname(errno));
		return;
	}
	check(!memcmp(&now, &w.states[state].control, sizeof(now)), CK_NOCHANGE,
	      "call %lu: after %s, the control read back differs from the one set",
	      w.call, what);
}

/*
 * The state page after a failed call, against before it: the same
 * control, the same flags, sums only grown where counters run.  The
 * own counters may overflow meanwhile, which stops all but the TSC.
 */
static void check_page_kept(int state, const struct page_snap *b,
			    const char *what)
{
	const struct vperfctr_control *c = &w.states[state].control;
	struct page_snap a;
	__u32 flag_mask = ~(__u32)(VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_OVERFLOW);
	unsigned int i, nb = perfctr_cstatus_nrctrs(b->cstatus);
	bool overflowed;

	if (!page_snap(state, &a))
		return;
	overflowed = !(b->flags & VPERFCTR_STATE_OVERFLOW) &&
		     (a.flags & VPERFCTR_STATE_OVERFLOW) &&
		     a.cstatus == overflow_cstatus(c);
	if ((a.flags & flag_mask) != (b->flags & flag_mask) ||
	    (a.cstatus != b->cstatus && !overflowed) ||
	    ((a.flags ^ b->flags) & VPERFCTR_STATE_OVERFLOW && !overflowed)) {
		violation(CK_NOCHANGE, "%s changed flags %#x cstatus %#x to %#x %#x",
			  what, b->flags, b->cstatus, a.flags, a.cstatus);
		return;
	}
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		bool runs = i < nb;

		if (runs ? a.pmc[i] < b->pmc[i] : a.pmc[i] != b->pmc[i]) {
			violation(CK_NOCHANGE, "%s changed sum %u from %llu to %llu",
				  what, i, (unsigned long long)b->pmc[i],
				  (unsigned long long)a.pmc[i]);
			return;
		}
	}
	if (perfctr_cstatus_has_tsc(b->cstatus) ? a.tsc < b->tsc : a.tsc != b->tsc) {
		violation(CK_NOCHANGE, "%s changed the TSC sum from %llu to %llu",
			  what, (unsigned long long)b->tsc, (unsigned long long)a.tsc);
		return;
	}
	check_ok(CK_NOCHANGE);
}

/* After a failed call on the state of fd @idx: nothing changed. */
static void check_unchanged(int idx, const struct page_snap *before,
			    const char *what)
{
	int state = w.fds[idx].state;

	check_page_kept(state, before, what);
	check_control_kept(state, w.fds[idx].fd, what);
}

/* --- Model upkeep ---------------------------------------------------------- */

/*
 * After a result the model did not predict, learn the truth for @owner
 * from the kernel: whether it has a state, and which control.
 */
static void resync(enum owner owner)
{
	int *slot = state_slot(owner);
	int fd = sys_vperfctr_open(tid_of(owner), 0);
	struct vperfctr_control c;

	if (fd < 0) {
		*slot = -1;
		return;
	}
	if (sys_vperfctr_read(fd, NULL, &c, NULL))
		memset(&c, 0, sizeof(c));
	if (*slot >= 0) {
		w.states[*slot].control = c;
		add_fd(fd, *slot);
	} else {
		*slot = new_state(owner, &c, fd);
		add_fd(fd, *slot);
	}
	if (owner == OWN_SELF)
		signals_expect(&c);
}

/* --- The operations ------------------------------------------------------- */

/* A fresh vperfctr fd is close-on-exec (vperfctr_open(2)). */
static void check_cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	check(flags >= 0 && (flags & FD_CLOEXEC), CK_OUTCOME,
	      "call %lu: vperfctr_open gave fd %d without FD_CLOEXEC", w.call, fd);
}

/*
 * After vperfctr_open failed for a modelled thread: it has the state it
 * had, or none, as vperfctr_open(tid, 0) tells.
 */
static void check_no_state_left(const struct tidarg *t, int had, enum check_id ck)
{
	int tid = tid_of(t->target);
	int fd = sys_vperfctr_open(tid, 0), err = errno;
	struct vperfctr_control c;

	if (had < 0 && fd < 0) {
		check(err == ENOENT, ck, "call %lu: after it failed, vperfctr_open(%s, 0): %s",
		      w.call, t->desc, errname(err));
		return;
	}
	if (had < 0) {
		violation(ck, "a failed vperfctr_open(%s) left a state attached", t->desc);
		close(fd);
		resync(t->target);
		return;
	}
	if (fd < 0) {
		violation(ck, "a failed vperfctr_open(%s) took away the state: now %s",
			  t->desc, errname(err));
		resync(t->target);
		return;
	}
	check(!sys_vperfctr_read(fd, NULL, &c, NULL) &&
	      !memcmp(&c, &w.states[had].control, sizeof(c)), ck,
	      "call %lu: a failed vperfctr_open(%s) changed the state's control",
	      w.call, t->desc);
	close(fd);
}

/* The new fd of a successful open, into the model. */
static void opened(const struct tidarg *t, int fd, bool created)
{
	int *slot;

	check_cloexec(fd);
	if (!t->modelled) {
		close(fd);
		return;
	}
	slot = state_slot(t->target);
	if (created && *slot < 0)
		*slot = new_state(t->target, &zero_control, fd);
	if (*slot < 0) {
		close(fd);
		return;
	}
	add_fd(fd, *slot);
	check_control_kept(*slot, fd, "vperfctr_open");
	if (t->target == OWN_SELF)
		signals_expect(&w.states[*slot].control);
}

/*
 * What vperfctr_open(@t, @creat) must do, from the tid and from the state
 * the thread has: its index in states[] in @had, or -1.
 */
static struct expect open_expect(const struct tidarg *t, int creat, int *had)
{
	struct expect x = t->x;

	*had = t->modelled ? *state_slot(t->target) : -1;
	if (!t->modelled)
		return x;
	if (creat && *had >= 0)
		x.must |= E(EEXIST);
	if (!creat && *had < 0)
		x.must |= E(ENOENT);
	if (t->target == OWN_EXITSTOP && creat && *had < 0)
		x.must |= E(ESRCH);	/* the thread is exiting */
	return x;
}

static void op_open(void)
{
	struct tidarg t = pick_tid();
	long creat = pick_creat();
	int c = (int)creat, had, err;
	struct expect x = open_expect(&t, c, &had);
	char what[160];
	long ret;

	snprintf(what, sizeof(what), "vperfctr_open(%s, %ld)", t.desc, creat);
	ret = syscall(__NR_vperfctr_open, t.value, creat);
	err = errno;
	check_errno(CALL_OPEN, ret, err, what);
	if (!outcome(ret, err, &x, what) && ret >= 0 && t.modelled) {
		opened(&t, ret, c != 0);
		resync(t.target);
		return;
	}
	if (ret >= 0)
		opened(&t, ret, c != 0);
	else if (t.modelled)
		check_no_state_left(&t, had, CK_FAILED_OPEN);
}

/* The lowest fd number not in use. */
static int lowest_free_fd(void)
{
	int fd = 0;

	while (fcntl(fd, F_GETFD) != -1)
		fd++;
	return fd;
}

/*
 * vperfctr_open with every fd in use: EMFILE (or a defect of the tid),
 * and afterwards the thread has the state it had, or none.
 */
static void open_without_fds(long tid, long creat)
{
	struct tidarg t = { .value = tid };
	struct rlimit old, low;
	struct expect x;
	int had, err;
	char what[160];
	long ret;

	classify_tid(&t);
	x = open_expect(&t, (int)creat, &had);
	x.must |= E(EMFILE);
	snprintf(what, sizeof(what), "vperfctr_open(%s, %ld) without a free fd",
		 t.desc, creat);
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = lowest_free_fd();
	setrlimit(RLIMIT_NOFILE, &low);
	ret = syscall(__NR_vperfctr_open, tid, creat);
	err = errno;
	setrlimit(RLIMIT_NOFILE, &old);
	check_errno(CALL_OPEN, ret, err, what);
	outcome(ret, err, &x, what);
	if (ret >= 0) {
		violation(CK_EMFILE, "%s succeeded", what);
		opened(&t, ret, (int)creat != 0);
		return;
	}
	check(err < 64 && (x.must & E(err)), CK_EMFILE,
	      "call %lu: %s failed with %s", w.call, what, errname(err));
	if (t.modelled)
		check_no_state_left(&t, had, CK_EMFILE);
}

static void op_emfile(void)
{
	struct tidarg t = pick_tid();

	open_without_fds(t.value, pick_creat());
}

/* What the state of fd @idx makes a call on it fail with. */
static struct expect state_expect(int idx, enum call_id call)
{
	const struct mstate *st = &w.states[w.fds[idx].state];
	struct expect x = { 0, 0 };

	if (st->owner == OWN_SIBLING)
		x.must = E(EPERM);	/* attached to a thread we do not trace */
	else if (st->owner == OWN_GONE &&
		 (call == CALL_CONTROL || call == CALL_IRESUME))
		x.must = E(ESRCH);	/* detached */
	return x;
}

/* What kind of control the kernel took, for the statistics. */
static void count_control(const struct vperfctr_control *c)
{
	const struct perfctr_cpu_control *cc = &c->cpu_control;
	unsigned int i;

	add_once(report->stats[ST_CONTROLS], 1);
	if (cc->nrictrs)
		add_once(report->stats[ST_IMODE_CONTROLS], 1);
	for (i = 0; i < cc->nractrs + cc->nrictrs; i++) {
		if (!(cc->pmc_map[i] & PERFCTR_MAP_SOFTWARE)) {
			add_once(report->stats[ST_HW_CONTROLS], 1);
			break;
		}
	}
}

/* The page after a control was set: its cstatus, or an overflow's. */
static void check_control_installed(int state)
{
	const struct vperfctr_control *c = &w.states[state].control;
	struct page_snap s;

	if (!page_snap(state, &s))
		return;
	check(s.cstatus == control_cstatus(c) ||
	      ((s.flags & VPERFCTR_STATE_OVERFLOW) && s.cstatus == overflow_cstatus(c)),
	      CK_OUTCOME, "call %lu: after vperfctr_control, cstatus %#x, not %#x",
	      w.call, s.cstatus, control_cstatus(c));
}

static void op_control(void)
{
	struct fdarg f = pick_fd();
	struct ctlarg k = pick_control();
	enum ptr_kind pk = pick_ptr(false);
	void *p = place_input(&pk, &k.c, sizeof(k.c));
	struct expect x = f.x, sx;
	struct page_snap before;
	bool snapped = false, own = false;
	char what[200];
	long ret;
	int err;

	snprintf(what, sizeof(what), "vperfctr_control(%s, %s control: %s)",
		 f.desc, ptr_names[pk], k.desc);
	if (ptr_faults(pk, false))
		x.must |= E(EFAULT);
	else
		expect_add(&x, &k.x);
	if (f.idx >= 0) {
		int state = w.fds[f.idx].state;

		sx = state_expect(f.idx, CALL_CONTROL);
		expect_add(&x, &sx);
		snapped = page_snap(state, &before);
		own = state == w.slot[OWN_SELF];
		if (own)
			signals_expect_both(&w.states[state].control, &k.c);
	}
	ret = syscall(__NR_vperfctr_control, f.value, p);
	err = errno;
	check_errno(CALL_CONTROL, ret, err, what);
	outcome(ret, err, &x, what);
	if (f.idx < 0)
		return;
	if (ret == 0) {
		int state = w.fds[f.idx].state;

		w.states[state].control = k.c;
		check_control_installed(state);
		count_control(&k.c);
	} else if (snapped) {
		check_unchanged(f.idx, &before, what);
	}
	if (own)
		signals_expect(&w.states[w.slot[OWN_SELF]].control);
}

/*
 * The sums vperfctr_read gave: between the page before and after the
 * call, counter by counter.  The owner's read gives the live counts, as
 * page_snap() computes them for our own page, so it is never behind the
 * page before it, nor ahead of the page after it.
 */
static void check_sums_between(const struct perfctr_sum_ctrs *sum,
			       const struct page_snap *b,
			       const struct page_snap *a, const char *what)
{
	unsigned int i;

	if (sum->tsc < b->tsc || sum->tsc > a->tsc) {
		violation(CK_WRITTEN_OUT, "%s gave TSC %llu, outside the page's %llu..%llu",
			  what, (unsigned long long)sum->tsc,
			  (unsigned long long)b->tsc, (unsigned long long)a->tsc);
		return;
	}
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		if (sum->pmc[i] < b->pmc[i] || sum->pmc[i] > a->pmc[i]) {
			violation(CK_WRITTEN_OUT, "%s gave sum %u %llu, not in %llu..%llu",
				  what, i, (unsigned long long)sum->pmc[i],
				  (unsigned long long)b->pmc[i],
				  (unsigned long long)a->pmc[i]);
			return;
		}
	}
	check_ok(CK_WRITTEN_OUT);
}

/* What a successful vperfctr_read wrote, through the pointers that took it. */
static void check_read_out(int state, void *sum, enum ptr_kind sk,
			   void *ctl, enum ptr_kind ck, void *children,
			   enum ptr_kind chk, const struct page_snap *b,
			   const struct page_snap *a, const char *what)
{
	bool usable_s = sk == PK_VALID || sk == PK_MISALIGNED;
	bool usable_c = ck == PK_VALID || ck == PK_MISALIGNED;
	bool usable_ch = chk == PK_VALID || chk == PK_MISALIGNED;

	if (usable_s && b && a) {
		struct perfctr_sum_ctrs s;

		memcpy(&s, sum, sizeof(s));
		check_sums_between(&s, b, a, what);
	}
	if (usable_c)
		check(!memcmp(ctl, &w.states[state].control,
			      sizeof(struct vperfctr_control)), CK_WRITTEN_OUT,
		      "call %lu: %s gave a control other than the one set",
		      w.call, what);
	/* No state here ever had a child reaped: nothing to sum. */
	if (usable_ch)
		check(all_zero(children, sizeof(struct perfctr_sum_ctrs)),
		      CK_WRITTEN_OUT, "call %lu: %s gave non-zero children sums",
		      w.call, what);
}

static void op_read(void)
{
	struct fdarg f = pick_fd();
	enum ptr_kind sk = pick_ptr(true), ck = pick_ptr(true), chk = pick_ptr(true);
	void *sum = make_ptr(&sk, sizeof(struct perfctr_sum_ctrs), 0);
	void *ctl = make_ptr(&ck, sizeof(struct vperfctr_control), 1);
	void *children = make_ptr(&chk, sizeof(struct perfctr_sum_ctrs), 2);
	struct page_snap before, after;
	bool snapped = false;
	struct expect x = f.x, sx;
	char what[200];
	long ret;
	int err, state = -1;

	snprintf(what, sizeof(what), "vperfctr_read(%s, %s, %s, %s)", f.desc,
		 ptr_names[sk], ptr_names[ck], ptr_names[chk]);
	if (ptr_faults(sk, true) || ptr_faults(ck, true) || ptr_faults(chk, true))
		x.must |= E(EFAULT);
	if (f.idx >= 0) {
		state = w.fds[f.idx].state;
		sx = state_expect(f.idx, CALL_READ);
		expect_add(&x, &sx);
		snapped = page_snap(state, &before);
	}
	ret = syscall(__NR_vperfctr_read, f.value, sum, ctl, children);
	err = errno;
	check_errno(CALL_READ, ret, err, what);
	outcome(ret, err, &x, what);
	if (state < 0)
		return;
	if (ret == 0)
		check_read_out(state, sum, sk, ctl, ck, children, chk,
			       snapped ? &before : NULL,
			       snapped && page_snap(state, &after) ? &after : NULL,
			       what);
	else if (snapped)
		check_unchanged(f.idx, &before, what);
}

static void op_unlink(void)
{
	struct fdarg f = pick_fd();
	struct page_snap before, after;
	bool snapped = false;
	struct expect x = f.x, sx;
	char what[120];
	long ret;
	int err;

	snprintf(what, sizeof(what), "vperfctr_unlink(%s)", f.desc);
	if (f.idx >= 0) {
		sx = state_expect(f.idx, CALL_UNLINK);
		expect_add(&x, &sx);
		snapped = page_snap(w.fds[f.idx].state, &before);
	}
	ret = syscall(__NR_vperfctr_unlink, f.value);
	err = errno;
	check_errno(CALL_UNLINK, ret, err, what);
	outcome(ret, err, &x, what);
	if (f.idx < 0)
		return;
	if (ret == 0) {
		int state = w.fds[f.idx].state;
		struct mstate *st = &w.states[state];

		if (st->owner <= OWN_EXITSTOP)
			*state_slot(st->owner) = -1;
		st->owner = OWN_GONE;
		if (page_snap(state, &after))
			check((after.flags & VPERFCTR_STATE_DETACHED) && !after.cstatus,
			      CK_OUTCOME, "call %lu: after %s, flags %#x cstatus %#x",
			      w.call, what, after.flags, after.cstatus);
	} else if (snapped) {
		check_unchanged(f.idx, &before, what);
	}
}

/*
 * vperfctr_iresume restarts a state that an overflow stopped; with none
 * pending it fails with EINVAL and changes nothing.  The own counters may
 * overflow between the look at the page and the call, the tracee's not.
 */
static void op_iresume(void)
{
	struct fdarg f = pick_fd();
	struct page_snap before;
	bool snapped = false;
	struct expect x = f.x, sx;
	char what[120];
	long ret;
	int err, state = -1;

	snprintf(what, sizeof(what), "vperfctr_iresume(%s)", f.desc);
	if (f.idx >= 0) {
		const struct mstate *st;

		state = w.fds[f.idx].state;
		st = &w.states[state];
		sx = state_expect(f.idx, CALL_IRESUME);
		expect_add(&x, &sx);
		snapped = page_snap(state, &before);
		if (!sx.must && snapped && !(before.flags & VPERFCTR_STATE_OVERFLOW)) {
			if (st->owner == OWN_SELF && imode_mask(&st->control))
				x.may |= E(EINVAL);
			else
				x.must |= E(EINVAL);
		}
	}
	ret = syscall(__NR_vperfctr_iresume, f.value);
	err = errno;
	check_errno(CALL_IRESUME, ret, err, what);
	outcome(ret, err, &x, what);
	if (state < 0)
		return;
	if (ret == 0) {
		const struct vperfctr_control *c = &w.states[state].control;
		struct page_snap after;

		if (page_snap(state, &after))
			check(after.cstatus == control_cstatus(c) ||
			      ((after.flags & VPERFCTR_STATE_OVERFLOW) &&
			       w.states[state].owner == OWN_SELF),
			      CK_OUTCOME, "call %lu: after %s, cstatus %#x flags %#x, not %#x",
			      w.call, what, after.cstatus, after.flags, control_cstatus(c));
	} else if (snapped) {
		check_unchanged(f.idx, &before, what);
	}
}

static void op_close(void)
{
	if (w.nfds)
		drop_fd(prng_below(&w.rng, w.nfds));
}

/* Work for the own counters: fresh pages to fault in, time to spend. */
static void op_work(void)
{
	size_t n = 1 + prng_below(&w.rng, 16);
	unsigned long i, loops = prng_below(&w.rng, 200000);
	char *p = mmap(NULL, n * mach.page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		for (i = 0; i < n; i++)
			p[i * mach.page] = 1;
		munmap(p, n * mach.page);
	}
	for (i = 0; i < loops; i++)
		asm volatile("" ::: "memory");	/* a loop the compiler keeps */
	if (prng_chance(&w.rng, 1, 4))
		sched_yield();
}

/* --- File operations on a vperfctr fd -------------------------------------- */

static void file_result(enum call_id call, long ret, int err,
			const struct expect *x, const char *what)
{
	check_errno(call, ret, err, what);
	outcome(ret, err, x, what);
}

/*
 * The mapped page: the kernel's, and nothing else.  Its header is the
 * ABI's, its reserved fields and what follows the structure are zero,
 * and each counter's map and width are the control's.
 */
static void check_page_content(int state, const struct vperfctr_state *s)
{
	const struct perfctr_cpu_control *cc = &w.states[state].control.cpu_control;
	const char *tail = (const char *)(s + 1);
	unsigned int i, n = cc->nractrs + cc->nrictrs;

	if (s->magic != VPERFCTR_STATE_MAGIC || s->abi_version != PERFCTR_ABI_VERSION ||
	    s->_reserved1 || s->cpu_state._reserved0 ||
	    !all_zero(tail, mach.page - sizeof(*s))) {
		violation(CK_WRITTEN_OUT, "the state page has magic %#x abi %#x, or stray bytes",
			  s->magic, s->abi_version);
		return;
	}
	/* Live are the control's counters, the TSC and the syscall flag only. */
	if ((READ_ONCE(s->live) & ~(VPERFCTR_LIVE_TSC | VPERFCTR_LIVE_SYSCALL)) >>
	    n || (__u64)READ_ONCE(s->live_clock) >> n ||
	    READ_ONCE(s->nrsums) > PERFCTR_MAX_NRCTRS) {
		violation(CK_WRITTEN_OUT, "page: live %#llx %#x nrsums %u for %u counters",
			  (unsigned long long)s->live, s->live_clock, s->nrsums, n);
		return;
	}
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		const struct perfctr_pmc_state *pmc = &s->cpu_state.pmc[i];
		__u32 map = i < n ? cc->pmc_map[i] : 0;

		if (READ_ONCE(pmc->map) != map ||
		    (i >= n && pmc->width) ||
		    (i < n && (map & PERFCTR_MAP_SOFTWARE) && pmc->width != 64)) {
			violation(CK_WRITTEN_OUT, "page counter %u: map %#x width %u; control: %#x",
				  i, pmc->map, pmc->width, map);
			return;
		}
		/* live names hardware counters, live_clock task-clock ones. */
		if ((((READ_ONCE(s->live) >> i) & 1) && (map & PERFCTR_MAP_SOFTWARE)) ||
		    (((READ_ONCE(s->live_clock) >> i) & 1) && map != TASK_CLOCK_MAP)) {
			violation(CK_WRITTEN_OUT, "counter %u, map %#x: live %#llx, clock %#x",
				  i, map, (unsigned long long)s->live, s->live_clock);
			return;
		}
	}
	check_ok(CK_WRITTEN_OUT);
}

static void fop_read(int idx, char *what, size_t len)
{
	enum ptr_kind pk = pick_ptr(true);
	void *buf = make_ptr(&pk, 64, 0);
	size_t count = prng_chance(&w.rng, 1, 4) ? 0 : 1 + prng_below(&w.rng, 64);
	struct expect x = { E(EINVAL), 0 };
	long ret;

	snprintf(what, len, "read(fd %d, %s buffer, %zu)", w.fds[idx].fd,
		 ptr_names[pk], count);
	ret = read(w.fds[idx].fd, buf, count);
	file_result(CALL_FREAD, ret, errno, &x, what);
}

static void fop_write(int idx, char *what, size_t len)
{
	enum ptr_kind pk = pick_ptr(false);
	void *buf = make_ptr(&pk, 64, 0);
	size_t count = prng_below(&w.rng, 64);
	struct expect x = { E(EBADF), 0 };
	long ret;

	snprintf(what, len, "write(fd %d, %s buffer, %zu)", w.fds[idx].fd,
		 ptr_names[pk], count);
	ret = write(w.fds[idx].fd, buf, count);
	file_result(CALL_FWRITE, ret, errno, &x, what);
}

static void fop_pread_pwrite(int idx, char *what, size_t len)
{
	bool wr = prng_chance(&w.rng, 1, 2);
	off_t off = prng_chance(&w.rng, 1, 4) ? -1 - (off_t)prng_below(&w.rng, 100) :
						 (off_t)prng_below(&w.rng, 8192);
	char buf[64];
	struct expect x = { E(ESPIPE) | E(EINVAL) | (wr ? E(EBADF) : 0), 0 };
	long ret;

	snprintf(what, len, "%s(fd %d, %lld)", wr ? "pwrite" : "pread",
		 w.fds[idx].fd, (long long)off);
	memset(buf, 0, sizeof(buf));
	ret = wr ? pwrite(w.fds[idx].fd, buf, sizeof(buf), off) :
		   pread(w.fds[idx].fd, buf, sizeof(buf), off);
	file_result(wr ? CALL_PWRITE : CALL_PREAD, ret, errno, &x, what);
}

static void fop_lseek(int idx, char *what, size_t len)
{
	int whence = prng_below(&w.rng, 8);
	off_t off = (off_t)prng_next(&w.rng) >> prng_below(&w.rng, 64);
	struct expect x = { whence > SEEK_HOLE ? E(EINVAL) : 0, 0 };
	long ret;

	snprintf(what, len, "lseek(fd %d, %lld, %d)", w.fds[idx].fd,
		 (long long)off, whence);
	ret = lseek(w.fds[idx].fd, off, whence);
	file_result(CALL_LSEEK, ret, errno, &x, what);
	/* The file has no position: it stays at 0. */
	if (ret != -1)
		check(ret == 0, CK_OUTCOME, "call %lu: %s gave %ld, not 0",
		      w.call, what, ret);
}

static void fop_mmap(int idx, char *what, size_t len)
{
	static const int prots[] = {
		PROT_READ, PROT_READ, PROT_READ, PROT_NONE, PROT_WRITE,
		PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC,
	};
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE,
				     MAP_SHARED_VALIDATE, 0 };
	size_t lens[] = { mach.page, mach.page, 1, mach.page - 1, 0,
			  2 * mach.page, 1ull << 50 };
	off_t offs[] = { 0, 0, 0, mach.page, 1, 16 * mach.page };
	size_t length = lens[prng_below(&w.rng, ARRAY_SIZE(lens))];
	off_t off = offs[prng_below(&w.rng, ARRAY_SIZE(offs))];
	int prot = prots[prng_below(&w.rng, ARRAY_SIZE(prots))];
	int type = types[prng_below(&w.rng, ARRAY_SIZE(types))];
	struct expect x = { 0, 0 };
	void *p;

	if (!length || !type || off % mach.page)
		x.must |= E(EINVAL);
	if (length > mach.page && length < (1ull << 40))
		x.must |= E(EINVAL);		/* more than the one page */
	if (length >= (1ull << 40))
		x.must |= E(ENOMEM);
	if (off)
		x.must |= E(EINVAL);		/* the page is at offset 0 */
	if (prot & PROT_WRITE)
		x.must |= E(EACCES);		/* read-only */
	snprintf(what, len, "mmap(%zu, prot %#x, flags %#x, fd %d, %lld)",
		 length, prot, type, w.fds[idx].fd, (long long)off);
	p = mmap(NULL, length, prot, type, w.fds[idx].fd, off);
	file_result(CALL_MMAP, p == MAP_FAILED ? -1 : 0, errno, &x, what);
	if (p == MAP_FAILED)
		return;
	if (prot & PROT_READ)
		check_page_content(w.fds[idx].state, p);
	munmap(p, length);
}

static void fop_mprotect(int idx, char *what, size_t len)
{
	static const int prots[] = {
		PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE,
		PROT_READ | PROT_EXEC, PROT_WRITE | PROT_EXEC,
	};
	int prot = prots[prng_below(&w.rng, ARRAY_SIZE(prots))];
	struct expect x = { prot & PROT_WRITE ? E(EACCES) : 0, E(EACCES) };
	void *p = mmap(NULL, mach.page, PROT_READ, MAP_SHARED, w.fds[idx].fd, 0);
	long ret;

	if (p == MAP_FAILED) {
		violation(CK_OUTCOME, "mmap of fd %d's page failed with %s",
			  w.fds[idx].fd, errname(errno));
		return;
	}
	if (!(prot & PROT_WRITE))
		x.may = 0;
	if (prot & PROT_EXEC)
		x.may = E(EACCES);	/* the mount may forbid exec */
	snprintf(what, len, "mprotect(state page of fd %d, %#x)", w.fds[idx].fd, prot);
	ret = mprotect(p, mach.page, prot);
	file_result(CALL_MPROTECT, ret, errno, &x, what);
	munmap(p, mach.page);
}

/* An ioctl number that is none of the VFS's own, which every file has. */
static unsigned int foreign_ioctl(void)
{
	unsigned int cmd, type;

	do {
		cmd = prng_next(&w.rng);
		type = (cmd >> 8) & 0xff;
	} while (type == 0 || type == 'X' || type == 'f' || type == 0x94 ||
		 type == 0x15 || type == 'T');
	return cmd;
}

struct named {
	unsigned int value;
	const char *name;
};

#define NAMED(x)	{ x, #x }

static const struct named ioctl_cmds[] = {
	NAMED(FIOCLEX), NAMED(FIONCLEX), NAMED(FIONBIO), NAMED(FIOASYNC),
	NAMED(FIGETBSZ), NAMED(FIONREAD), NAMED(FIOQSIZE),
	NAMED(FS_IOC_GETFLAGS), NAMED(TCGETS), { 0, "another" },
};

/*
 * The VFS answers a few ioctls for every file: FIONBIO and FIOASYNC read
 * their argument, FIGETBSZ writes it.  The rest need an ioctl method.
 */
static struct expect ioctl_expect(unsigned int cmd, enum ptr_kind pk,
				  const int *arg)
{
	bool bad_in = ptr_faults(pk, false);
	bool bad_out = bad_in || ptr_faults(pk, true);
	struct expect x = { 0, 0 };

	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		break;
	case FIONBIO:
		x.must = bad_in ? E(EFAULT) : 0;
		break;
	case FIOASYNC:
		/* Only turning FASYNC on needs a fasync method, which it lacks. */
		if (bad_in)
			x.must = E(EFAULT);
		else if (*arg)
			x.must = E(ENOTTY);
		break;
	case FIGETBSZ:
		x.must = bad_out ? E(EFAULT) : 0;
		x.may = E(EINVAL);
		break;
	default:
		x.must = E(ENOTTY);
		break;
	}
	return x;
}

static void fop_ioctl(int idx, char *what, size_t len)
{
	enum ptr_kind pk = pick_ptr(true);
	int *arg = make_ptr(&pk, sizeof(int), 0);
	const struct named *c = &ioctl_cmds[prng_below(&w.rng, ARRAY_SIZE(ioctl_cmds))];
	unsigned int cmd = c->value ? c->value : foreign_ioctl();
	struct expect x;
	long ret;

	if (pk == PK_VALID || pk == PK_MISALIGNED)
		*arg = prng_below(&w.rng, 2);
	x = ioctl_expect(cmd, pk, arg);
	snprintf(what, len, "ioctl(fd %d, %s %#x, %s)", w.fds[idx].fd, c->name,
		 cmd, ptr_names[pk]);
	ret = ioctl(w.fds[idx].fd, cmd, arg);
	file_result(CALL_IOCTL, ret, errno, &x, what);
}

static const struct named fcntl_cmds[] = {
	NAMED(F_GETFD), NAMED(F_GETFL), NAMED(F_SETFL), NAMED(F_DUPFD_CLOEXEC),
	NAMED(F_GETLK), NAMED(F_SETLK), NAMED(F_SETLEASE), NAMED(F_NOTIFY),
	NAMED(F_GETPIPE_SZ), NAMED(F_GET_SEALS), { 0, "unknown" },
};

/* A struct flock argument for F_GETLK or F_SETLK, and what it calls for. */
static long lock_arg(int cmd, struct expect *x, char *desc, size_t len)
{
	static const short types[] = { F_RDLCK, F_WRLCK, F_UNLCK, 7 };
	struct flock lk = { .l_whence = SEEK_SET };
	enum ptr_kind pk = pick_ptr(false);
	void *p;

	lk.l_type = types[prng_below(&w.rng, ARRAY_SIZE(types))];
	lk.l_len = prng_below(&w.rng, 100);
	if (pk == PK_READONLY)
		pk = PK_VALID;	/* F_GETLK writes it back */
	p = make_ptr(&pk, sizeof(lk), 0);
	if (pk == PK_VALID || pk == PK_MISALIGNED)
		memcpy(p, &lk, sizeof(lk));
	snprintf(desc, len, "%s flock, l_type %d, l_len %lld", ptr_names[pk],
		 lk.l_type, (long long)lk.l_len);
	if (ptr_faults(pk, false))
		x->must = E(EFAULT);
	else if (!mach.file_locks)
		x->must = cmd == F_GETLK ? E(EINVAL) : E(EACCES);
	else if (lk.l_type != F_RDLCK && lk.l_type != F_WRLCK &&
		 (lk.l_type != F_UNLCK || cmd == F_GETLK))
		x->must = E(EINVAL);	/* F_GETLK asks about a lock */
	else if (cmd == F_SETLK && lk.l_type == F_WRLCK)
		x->must = E(EBADF);	/* not open for writing */
	x->may = E(EAGAIN) | E(EACCES) | E(ENOLCK);
	return (long)p;
}

/* The argument for @cmd, what the call must do with it, and its @desc. */
static long fcntl_arg(int cmd, struct expect *x, char *desc, size_t len)
{
	long arg = 0;

	switch (cmd) {
	case F_GETFD:
	case F_GETFL:
		break;
	case F_SETFL:
		arg = (prng_chance(&w.rng, 1, 2) ? O_NONBLOCK : 0) |
		      (prng_chance(&w.rng, 1, 2) ? O_APPEND : 0) |
		      (prng_chance(&w.rng, 1, 4) ? O_NOATIME : 0) |
		      (prng_chance(&w.rng, 1, 4) ? O_DIRECT : 0);
		x->must = arg & O_DIRECT ? E(EINVAL) : 0;
		x->may = E(EPERM);
		break;
	case F_DUPFD_CLOEXEC:
		arg = prng_chance(&w.rng, 1, 8) ? INT_MAX : (long)prng_below(&w.rng, 200);
		x->must = arg == INT_MAX ? E(EINVAL) : 0;
		x->may = E(EMFILE);
		break;
	case F_GETLK:
	case F_SETLK:
		return lock_arg(cmd, x, desc, len);
	case F_SETLEASE:
		arg = F_RDLCK;
		x->must = E(EINVAL) | E(EACCES);	/* not a regular file */
		break;
	case F_NOTIFY:
		arg = 1;
		x->must = E(ENOTDIR) | E(EINVAL);
		break;
	case F_GETPIPE_SZ:
		x->must = E(EBADF);			/* not a pipe */
		break;
	case F_GET_SEALS:
		x->must = E(EINVAL);			/* not a memfd */
		break;
	default:
		x->must = E(EINVAL);
		break;
	}
	snprintf(desc, len, "%#lx", arg);
	return arg;
}

static void fop_fcntl(int idx, char *what, size_t len)
{
	const struct named *c = &fcntl_cmds[prng_below(&w.rng, ARRAY_SIZE(fcntl_cmds))];
	int fd = w.fds[idx].fd, cmd = c->value ? (int)c->value :
				      2000 + (int)prng_below(&w.rng, 100000);
	struct expect x = { 0, 0 };
	char desc[64];
	long arg, ret;

	if (cmd == F_DUPFD_CLOEXEC && w.nfds >= MAX_FDS)
		return;
	arg = fcntl_arg(cmd, &x, desc, sizeof(desc));
	snprintf(what, len, "fcntl(fd %d, %s, %s)", fd, c->name, desc);
	ret = fcntl(fd, cmd, arg);
	file_result(CALL_FCNTL, ret, errno, &x, what);
	if (cmd == F_GETFL && ret != -1)
		check((ret & O_ACCMODE) == O_RDONLY, CK_OUTCOME,
		      "call %lu: %s: %#lx, not open read-only", w.call, what, ret);
	if (cmd == F_DUPFD_CLOEXEC && ret >= 0)
		add_fd(ret, w.fds[idx].state);
}

static void fop_dup(int idx, char *what, size_t len)
{
	int fd = w.fds[idx].fd, err;
	struct expect x = { 0, E(EMFILE) };
	long ret;

	if (w.nfds >= MAX_FDS)
		return;
	if (prng_chance(&w.rng, 1, 4)) {
		x.must = E(EINVAL);
		snprintf(what, len, "dup3(fd %d, %d, O_CLOEXEC)", fd, fd);
		ret = dup3(fd, fd, O_CLOEXEC);
	} else if (prng_chance(&w.rng, 1, 2)) {
		int to = closed_fd();

		snprintf(what, len, "dup3(fd %d, %d, O_CLOEXEC)", fd, to);
		ret = dup3(fd, to, O_CLOEXEC);
	} else {
		snprintf(what, len, "dup(fd %d)", fd);
		ret = dup(fd);
	}
	err = errno;
	file_result(CALL_DUP, ret, err, &x, what);
	if (ret >= 0)
		add_fd(ret, w.fds[idx].state);
}

static void fop_fstatfs(int idx, char *what, size_t len)
{
	enum ptr_kind pk = pick_ptr(true);
	struct statfs *buf;
	struct expect x = { 0, 0 };
	long ret;

	if (pk == PK_NULL)
		pk = PK_VALID;
	buf = make_ptr(&pk, sizeof(*buf), 0);
	if (ptr_faults(pk, true))
		x.must = E(EFAULT);
	snprintf(what, len, "fstatfs(fd %d, %s)", w.fds[idx].fd, ptr_names[pk]);
	ret = fstatfs(w.fds[idx].fd, buf);
	file_result(CALL_FSTATFS, ret, errno, &x, what);
	if (ret == 0)
		check(buf->f_type == VPERFCTRFS_MAGIC, CK_OUTCOME,
		      "call %lu: %s: f_type %#lx, not VPERFCTRFS_MAGIC", w.call,
		      what, (long)buf->f_type);
}

static void op_file(void)
{
	static void (*const fops[])(int, char *, size_t) = {
		fop_read, fop_write, fop_pread_pwrite, fop_lseek, fop_mmap,
		fop_mmap, fop_mprotect, fop_ioctl, fop_ioctl, fop_fcntl,
		fop_fcntl, fop_dup, fop_fstatfs,
	};
	int idx = pick_vperfctr_fd();
	char what[160];

	if (idx < 0)
		return;
	fops[prng_below(&w.rng, ARRAY_SIZE(fops))](idx, what, sizeof(what));
}

/* --- A round --------------------------------------------------------------- */

struct sibling {
	int ready[2];		/* the thread writes its state fd here */
	int block;		/* and, if it is to live on, reads this */
};

static void *sibling_main(void *arg)
{
	const struct sibling *s = arg;
	int fd = sys_vperfctr_open(0, 1), block = s->block, ready = s->ready[1];
	pid_t tid = gettid();
	char c;

	if (fd >= 0 && sys_vperfctr_control(fd, &sibling_control)) {
		close(fd);
		fd = -1;
	}
	/* *s is gone once the starter has read this. */
	if (write(ready, &fd, sizeof(fd)) != sizeof(fd) ||
	    write(ready, &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (block >= 0 && read(block, &c, 1) < 0)
		return NULL;
	return NULL;
}

/*
 * A thread of this process with a state of its own, running: its fd is
 * another thread's.  If @stay is false, it exits at once, and its fd is
 * a dead thread's once the state shows it detached.
 */
static pid_t start_sibling(bool stay, pthread_t *thread)
{
	struct sibling s = { .block = stay ? w.sibling_block[0] : -1 };
	enum owner owner = stay ? OWN_SIBLING : OWN_GONE;
	pid_t tid = 0;
	int fd = -1, state, tries;

	if (pipe(s.ready) || pthread_create(thread, NULL, sibling_main, &s))
		ksft_exit_fail_msg("cannot start a thread: %s\n", strerror(errno));
	if (read(s.ready[0], &fd, sizeof(fd)) != sizeof(fd) ||
	    read(s.ready[0], &tid, sizeof(tid)) != sizeof(tid))
		fd = -1;
	close(s.ready[0]);
	close(s.ready[1]);
	if (!stay)
		pthread_join(*thread, NULL);
	if (fd < 0)
		return tid;
	state = new_state(owner, &sibling_control, fd);
	add_fd(fd, state);
	/* The thread is reaped at its exit, but after pthread_join() returns. */
	for (tries = 0; !stay && tries < 2000; tries++) {
		struct page_snap snap;

		if (page_snap(state, &snap) && (snap.flags & VPERFCTR_STATE_DETACHED))
			break;
		usleep(1000);
	}
	return tid;
}

/* A child stopped under our ptrace control, or at its exit stop. */
static pid_t start_tracee(bool at_exit)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		ksft_exit_fail_msg("cannot start a tracee\n");
	if (!at_exit)
		return pid;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &status, 0) != pid ||
	    status >> 8 != (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
		ksft_exit_fail_msg("cannot stop a tracee at its exit\n");
	return pid;
}

static pid_t start_child(bool reap)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!reap)
			pause();
		_exit(0);
	}
	if (pid < 0)
		ksft_exit_fail_msg("cannot fork\n");
	if (reap)
		waitpid(pid, NULL, 0);
	return pid;
}

static void add_other(int fd)
{
	if (fd >= 0)
		w.other[w.nother++] = fd;
}

static void open_other_files(void)
{
	int p[2], s[2];

	w.nother = 0;
	if (!pipe(p)) {
		add_other(p[0]);
		add_other(p[1]);
	}
	add_other(eventfd(0, 0));	/* unless CONFIG_EVENTFD=n */
	add_other(open("/dev/null", O_RDWR));
	add_other(open("/", O_RDONLY | O_DIRECTORY));
	if (!socketpair(AF_UNIX, SOCK_STREAM, 0, s)) {
		add_other(s[0]);
		close(s[1]);
	}
}

/* Pages to point into: read-write, PROT_NONE, read-only, unmapped. */
static void map_arena(void)
{
	long pg = mach.page;
	char *a = mmap(NULL, 6 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		ksft_exit_fail_msg("cannot map the arena\n");
	w.rw = a;
	w.guard = a + 2 * pg;
	w.ro = a + 3 * pg;
	w.hole = a + 4 * pg;
	mprotect(w.guard, pg, PROT_NONE);
	memset(w.ro, 0x5a, pg);
	mprotect(w.ro, pg, PROT_READ);
	munmap(w.hole, pg);
	mprotect(a + 5 * pg, pg, PROT_NONE);	/* keeps the hole between two mappings */
}

static int kernel_paranoia(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/*
 * Some rounds run as nobody, for EACCES and the unprivileged paths; the
 * rest keep the privilege the program was started with.
 */
static void pick_privilege(void)
{
	if (geteuid() == 0 && prng_chance(&w.rng, 1, 3)) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			ksft_exit_fail_msg("cannot become nobody\n");
		prctl(PR_SET_DUMPABLE, 1);	/* setuid() cleared it */
	}
	w.allow_kernel = geteuid() == 0 || kernel_paranoia() < 2;
}

static void setup_round(__u64 seed, unsigned long first, unsigned long n,
			__u64 deadline)
{
	unsigned int i;

	prng_seed(&w.rng, seed);
	w.call = first;
	w.end = first + n;
	w.deadline = deadline;
	pick_privilege();
	w.self_tid = gettid();
	for (i = 0; i < ARRAY_SIZE(w.slot); i++)
		w.slot[i] = -1;
	w.nstates = 0;
	w.nfds = 0;
	map_arena();
	open_other_files();
	install_overflow_handlers();
	signals_expect(&zero_control);
	w.tracee = start_tracee(false);
	w.exitstop = start_tracee(true);
	w.untraced = start_child(false);
	w.reaped = start_child(true);
	if (pipe(w.sibling_block))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	w.sibling_tid = start_sibling(true, &w.sibling);
	w.dead_tid = start_sibling(false, &(pthread_t){ 0 });
}

static void end_round(void)
{
	close(w.sibling_block[1]);
	pthread_join(w.sibling, NULL);
	/* SIGKILL does not take a tracee out of its exit stop: resume it. */
	ptrace(PTRACE_CONT, w.exitstop, NULL, NULL);
	kill(w.tracee, SIGKILL);
	kill(w.untraced, SIGKILL);
	waitpid(w.tracee, NULL, 0);
	waitpid(w.exitstop, NULL, 0);
	waitpid(w.untraced, NULL, 0);
}

struct op {
	void (*fn)(void);
	unsigned int weight;
};

static const struct op ops[] = {
	{ op_open, 14 }, { op_control, 22 }, { op_read, 16 },
	{ op_unlink, 4 }, { op_iresume, 10 }, { op_file, 14 },
	{ op_close, 5 }, { op_work, 9 }, { op_emfile, 2 },
};

static void random_op(void)
{
	unsigned int i, total = 0, r;

	if (w.nfds >= MAX_FDS - 2) {
		op_close();
		return;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	r = prng_below(&w.rng, total);
	for (i = 0; r >= ops[i].weight; i++)
		r -= ops[i].weight;
	ops[i].fn();
}

static void run_round(__u64 seed, unsigned long first, unsigned long n,
		      __u64 deadline)
{
	alarm(ROUND_TIMEOUT_S);
	setup_round(seed, first, n, deadline);
	/* Every round starts with no state: the first open finds no fd. */
	open_without_fds(0, 1);
	for (w.call++; w.call < w.end && now_ns() < w.deadline; w.call++) {
		random_op();
		check_signals();
		report->progress = w.call + 1;
	}
	end_round();
}

/* --- main ------------------------------------------------------------------ */

static void print_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s SEED] [-n CALLS] [-t SECONDS]\n", prog);
	exit(KSFT_FAIL);
}

static void report_results(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		ksft_print_msg("%s: %lu\n", stat_names[i], report->stats[i]);
	for (i = 0; i < NR_CHECKS; i++) {
		ksft_print_msg("%s: %lu checks, %lu failed\n", check_names[i],
			       report->made[i], report->failed[i]);
		if (!report->made[i])
			ksft_test_result_skip("%s (never checked: more calls needed)\n",
					      check_names[i]);
		else
			ksft_test_result(!report->failed[i], "%s\n", check_names[i]);
	}
	if (report->nmsgs)
		ksft_print_msg("%u violations; replay with -s %llu\n",
			       report->nmsgs, (unsigned long long)report->seed);
}

int main(int argc, char **argv)
{
	unsigned long calls = DEFAULT_CALLS, done = 0;
	unsigned int seconds = DEFAULT_SECONDS, rounds = 0;
	__u64 seed = now_ns() ^ ((__u64)getpid() << 32), deadline;
	const char *why;
	struct prng rng;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			calls = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	printf("# seed: %llu\n", (unsigned long long)seed);
	ksft_print_header();
	ksft_print_msg("vperfctr_fuzz -s %llu -n %lu -t %u\n",
		       (unsigned long long)seed, calls, seconds);
	why = perfctr_missing();
	if (why)
		ksft_exit_skip("%s\n", why);
	read_machine();
	ksft_print_msg("driver: cpu_type %ld, features %#lx, %ld+%ld counters\n",
		       mach.cpu_type, mach.features, mach.nrctrs, mach.nrfixed);
	if (report_create(check_names, seed) < 0)
		ksft_exit_fail_msg("cannot make the shared tally: %s\n", strerror(errno));
	ksft_set_plan(NR_CHECKS);
	deadline = now_ns() + seconds * 1000000000ull;
	prng_seed(&rng, seed);
	while (done < calls && now_ns() < deadline) {
		unsigned long n = calls - done < ROUND_CALLS ? calls - done : ROUND_CALLS;
		__u64 round_seed = prng_fork(&rng);
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			run_round(round_seed, done, n, deadline);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			ksft_exit_fail_msg("cannot run a round: %s\n", strerror(errno));
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			check_ok(CK_ROUNDS);
		else
			check_fail(CK_ROUNDS, "round %u (calls %lu-%lu): status %#x after call %lu",
				   rounds, done, done + n - 1, status, report->progress);
		/* At the deadline a round stops early; the next one starts fresh. */
		done = report->progress > done ? report->progress : done + n;
		rounds++;
	}
	ksft_print_msg("%lu calls in %u rounds\n", done, rounds);
	report_results();
	ksft_finished();
}
