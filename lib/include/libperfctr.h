/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libperfctr: user-space access to virtual per-thread performance counters.
 *
 * A struct vperfctr is a handle on one thread's counter state.  Open it,
 * program it with vperfctr_control(), read it with vperfctr_read_tsc() or
 * vperfctr_read_ctrs() (no system call when the state page is mapped),
 * and drop it with vperfctr_close().  Closing a handle leaves the counters
 * of the thread running; vperfctr_unlink() detaches them from the thread.
 *
 * A struct rvperfctr is the same for another thread, one the caller
 * holds stopped under ptrace.  perfctr_info_read() describes the
 * machine's counters, and <perfctr/events.h>, included below, turns event
 * names such as "cycles:u" or "page-faults" into counters of a control.
 *
 * The library keeps no global state but the code regions' of
 * <perfctr/regions.h>, included below, and prints nothing, except the
 * functions whose job it is: perfctr_info_print(), perfctr_info_fprint()
 * and perfctr 2.7's printers below.
 * Functions that return int return 0 (or a non-negative value) on
 * success and -1 with errno set on failure; functions that return a
 * pointer return NULL with errno set.
 *
 * The functions of perfctr 2.7's library are all here, with its names
 * and arguments; the structures of <linux/perfctr.h> have fixed-width
 * fields, and neither 2.7's processor model names (PERFCTR_X86_AMD_K8
 * ...) nor its Pentium 4 control fields (p4.escr[] ...) exist, so code
 * that names them does not compile; the rest of what changed is in
 * libperfctr(3), "Porting from perfctr 2.7".
 */
#ifndef LIBPERFCTR_H
#define LIBPERFCTR_H

#include <stdio.h>
#include <linux/perfctr.h>
#include <perfctr/events.h>
#include <perfctr/regions.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vperfctr;	/* opaque */

/*
 * Opening a handle.
 *
 * vperfctr_open() opens the calling thread's state, creating it if the
 * thread has none.  vperfctr_open_tid() is the system call's own rule:
 * tid 0 is the calling thread, another tid must be ptrace-stopped by the
 * caller; with creat the state must not exist yet (EEXIST), without it
 * it must (ENOENT).  vperfctr_from_fd() wraps a descriptor obtained
 * elsewhere, e.g. received over a socket; on success the handle owns fd,
 * on failure fd is left open.
 */
struct vperfctr *vperfctr_open(void);
struct vperfctr *vperfctr_open_tid(int tid, int creat);
struct vperfctr *vperfctr_from_fd(int fd);
void vperfctr_close(struct vperfctr *vperfctr);
int vperfctr_fd(const struct vperfctr *vperfctr);
int vperfctr_info(const struct vperfctr *vperfctr, struct perfctr_info *info);

/*
 * Control.
 *
 * vperfctr_control() stops and samples the counters, installs control,
 * resets every sum whose bit is clear in control->preserve (the TSC sum
 * is reset only when control turns the TSC off) and restarts whatever
 * control enables.  Clear control with memset() before filling it in.
 * vperfctr_stop() installs an all-off control, which resets nothing:
 * every sum, the TSC's and the children's too, is kept.
 */
int vperfctr_control(const struct vperfctr *vperfctr,
		     const struct vperfctr_control *control);

/*
 * Software counters (PERFCTR_MAP_SOFTWARE): kernel events of the thread,
 * counted on any machine, PMU or not.
 *
 * vperfctr_control_add_sw() appends an accumulation-mode counter of
 * @event (PERFCTR_SW_*) to @control; vperfctr_control_add_sw_irq() an
 * interrupt-mode one, which stops the counters and sends the thread
 * control->si_signo (the caller sets it) after every @period events, or
 * @period ns for PERFCTR_SW_TASK_CLOCK; vperfctr_iresume() restarts
 * them.  @modes is PERFCTR_SW_USR, PERFCTR_SW_OS or both for the fault
 * events (PERFCTR_SW_OS, counting kernel mode, needs privilege: without
 * it vperfctr_control() fails with EACCES) and must be 0 for the others.
 *
 * The a-mode counters come first in a control: add them all before the
 * first i-mode one.  Both functions return the new counter's index i
 * (its value is sum.pmc[i]), or -1 with errno EINVAL (unknown event,
 * bad @modes, @period 0 or above INT64_MAX, an a-mode counter after an
 * i-mode one, or a control that is not valid) or ENOSPC (already
 * PERFCTR_MAX_NRCTRS counters); @control is left unchanged on failure.
 */
int vperfctr_control_add_sw(struct vperfctr_control *control,
			    unsigned int event, unsigned int modes);
int vperfctr_control_add_sw_irq(struct vperfctr_control *control,
				unsigned int event, unsigned int modes,
				unsigned long long period);
int vperfctr_stop(const struct vperfctr *vperfctr);
int vperfctr_unlink(const struct vperfctr *vperfctr);
int vperfctr_iresume(const struct vperfctr *vperfctr);

/*
 * Reading.
 *
 * vperfctr_read_tsc(), vperfctr_read_pmc() and vperfctr_read_ctrs()
 * compute the current sums from the mapped state page when they can (on
 * the owner thread, hardware counters with rdpmc, or on arm64 from
 * PMCCNTR_EL0 and PMXEVCNTR_EL0), and fall back to the vperfctr_read
 * system call otherwise; compiled with optimization, they are inline.
 * Software counters are read from the page too, task-clock included
 * (from the TSC and the page's time_mult and time_shift).  From the
 * page, vperfctr_read_ctrs() writes sum->tsc and the first nrsums
 * counters, those that can be other than 0, and leaves the others as
 * they were, as perfctr 2.7 did.  vperfctr_read_tsc() and
 * vperfctr_read_pmc() return 0 with errno set if both ways fail (EINVAL
 * for @i not below PERFCTR_MAX_NRCTRS), and leave errno alone otherwise,
 * so clear errno first to tell a failure from a sum of 0.
 * vperfctr_read_state() always makes the system call, and reads the
 * sums and the control; either pointer may be NULL.
 * vperfctr_read_children() reads the children sums: the final sums of
 * every thread and process that inherited the counters from this state
 * (directly or further down) and has been reaped, added up.  They are
 * not on the state page.  vperfctr_is_running() returns 1 if any
 * counter is enabled, 0 if none.
 */
unsigned long long vperfctr_read_tsc(const struct vperfctr *vperfctr);
unsigned long long vperfctr_read_pmc(const struct vperfctr *vperfctr,
				     unsigned int i);
int vperfctr_read_ctrs(const struct vperfctr *vperfctr,
		       struct perfctr_sum_ctrs *sum);
int vperfctr_read_state(const struct vperfctr *vperfctr,
			struct perfctr_sum_ctrs *sum,
			struct vperfctr_control *control);
int vperfctr_read_children(const struct vperfctr *vperfctr,
			   struct perfctr_sum_ctrs *children);
int vperfctr_is_running(const struct vperfctr *vperfctr);

/* The three fast reads above, inline: see libperfctr(3) for their cost. */
#include <perfctr/fast_read.h>

/*
 * Another thread's counters.
 *
 * rvperfctr_open() opens the state of thread @pid, creating it if the
 * thread has none; the thread must be stopped under the caller's ptrace
 * control (the kernel's rule, EPERM otherwise), and so must it be for
 * rvperfctr_control(), rvperfctr_stop(), rvperfctr_iresume() and
 * rvperfctr_unlink(), which do what their vperfctr_ twins do.  The reads
 * are system calls, allowed at any time; for the children sums, use
 * _vperfctr_read_children() on rvperfctr_fd().  A @pid of 0 or less
 * fails with EINVAL.
 */
struct rvperfctr;	/* opaque */

struct rvperfctr *rvperfctr_open(int pid);
void rvperfctr_close(struct rvperfctr *rvperfctr);
int rvperfctr_pid(const struct rvperfctr *rvperfctr);
int rvperfctr_fd(const struct rvperfctr *rvperfctr);
int rvperfctr_info(const struct rvperfctr *rvperfctr,
		   struct perfctr_info *info);
int rvperfctr_control(const struct rvperfctr *rvperfctr,
		      const struct vperfctr_control *control);
int rvperfctr_stop(const struct rvperfctr *rvperfctr);
int rvperfctr_iresume(const struct rvperfctr *rvperfctr);
int rvperfctr_unlink(const struct rvperfctr *rvperfctr);
int rvperfctr_read_ctrs(const struct rvperfctr *rvperfctr,
			struct perfctr_sum_ctrs *sum);
int rvperfctr_read_state(const struct rvperfctr *rvperfctr,
			 struct perfctr_sum_ctrs *sum,
			 struct vperfctr_control *control);

/*
 * The machine's counters.
 *
 * perfctr_info_read() reads the description of the counter driver from
 * /sys/kernel/perfctr/.  It fails with ENOSYS if sysfs is mounted and has
 * no perfctr (the kernel has none), ENOENT if /sys/kernel is missing
 * (sysfs not mounted), EPROTO if the files are not as this library knows
 * them or the kernel's ABI major version is not PERFCTR_ABI_MAJOR (@info
 * is filled in then all the same).  vperfctr_info() and rvperfctr_info(),
 * perfctr 2.7's names for it, do the same.  perfctr_info_nrctrs() is the
 * number of hardware counters, general-purpose and fixed;
 * perfctr_info_cpu_name() the driver's name by cpu_type, e.g. "x86 TSC".
 * perfctr_info_print() prints the fields to stdout, one a line, and
 * perfctr_info_fprint() to @stream, returning 0 or -1 with errno if the
 * stream fails.
 */
int perfctr_info_read(struct perfctr_info *info);
unsigned int perfctr_info_nrctrs(const struct perfctr_info *info);
const char *perfctr_info_cpu_name(const struct perfctr_info *info);
void perfctr_info_print(const struct perfctr_info *info);
int perfctr_info_fprint(FILE *stream, const struct perfctr_info *info);

/*
 * The raw system calls, for callers that manage descriptors themselves.
 * They return what the kernel returns, -1 with errno set on failure.
 * On a kernel without perfctr every one of them fails with ENOSYS.
 * The calls taking a descriptor fail with EBADF if it is not open and
 * EINVAL if it is not a state's.
 *
 * _vperfctr_open() opens the calling thread's state, with perfctr 2.7's
 * rule: with @creat it creates it, and fails with EEXIST if the thread
 * has one; without @creat it opens the one the thread has.  A thread
 * that has none gets, as in 2.7, a descriptor on which only
 * perfctr_info(), perfctr_cpus_info() and _perfctr_abi_check_fd() work
 * (the state calls fail with EINVAL): the library opens the directory
 * /sys/kernel/perfctr/ for it, and fails with ENOENT if it cannot.
 * Close it with close().  For another thread, or to learn that the
 * thread has no state, use vperfctr_open_tid().
 *
 * _vperfctr_read_sum(), _vperfctr_read_control() and
 * _vperfctr_read_children() read the sums, the control or the children
 * sums alone; _vperfctr_read() reads any of them at once (NULL for the
 * others).
 */
int _vperfctr_open(int creat);
int _vperfctr_control(int fd, const struct vperfctr_control *control);
int _vperfctr_unlink(int fd);
int _vperfctr_read(int fd, struct perfctr_sum_ctrs *sum,
		   struct vperfctr_control *control,
		   struct perfctr_sum_ctrs *children);
int _vperfctr_read_sum(int fd, struct perfctr_sum_ctrs *sum);
int _vperfctr_read_control(int fd, struct vperfctr_control *control);
int _vperfctr_read_children(int fd, struct perfctr_sum_ctrs *children);
int _vperfctr_iresume(int fd);

/*
 * The rest of perfctr 2.7's library.
 *
 * perfctr_info() is perfctr_info_read(): @fd, a descriptor that
 * _vperfctr_open() returned, is not used, as in 2.7, whose library read
 * the description from sysfs too.  _perfctr_abi_check_fd() reads it and
 * fails with EPROTO if the kernel's ABI major version (bits 31..16 of
 * abi_version) is not that of @user_abi_version; perfctr_abi_check_fd()
 * passes this header's PERFCTR_ABI_VERSION.  Neither prints anything.
 *
 * perfctr_cpus_info() returns, in one block for free(), the CPUs the
 * counters may run on: cpus, the online CPUs of
 * /sys/devices/system/cpu/online, and cpus_forbidden, those on which a
 * thread with hardware counters may not run, which the kernel does not
 * publish: it is always empty.  Bit i of mask[j] is CPU 32 * j + i;
 * nrwords is the number of words of both masks.  vperfctr_cpus_info()
 * is the same.  perfctr_cpus_info_print() prints both masks to stdout
 * as lists ("0-3,6"), perfctr_cpus_info_fprint() to @stream.
 *
 * perfctr_cpu_control_print() prints the fields of @control to stdout,
 * one a line, perfctr_cpu_control_fprint() to @stream; the fprint
 * functions return 0, or -1 with errno if the stream fails.
 *
 * perfctr_linux_version_code() is the running kernel's version, from
 * uname(), as PERFCTR_KERNEL_VERSION() makes it, or 0 with errno set
 * (EINVAL if the release is not "V.P" or "V.P.S" and more); a sublevel
 * above 255 counts as 255, as in Linux's KERNEL_VERSION().
 */
struct perfctr_cpu_mask {
	unsigned int nrwords;
	unsigned int mask[1];		/* in fact nrwords of them */
};

struct perfctr_cpus_info {		/* from malloc(): free() it */
	struct perfctr_cpu_mask *cpus;
	struct perfctr_cpu_mask *cpus_forbidden;
};

int _perfctr_abi_check_fd(int fd, unsigned int user_abi_version);

static __inline__ int perfctr_abi_check_fd(int fd)
{
	return _perfctr_abi_check_fd(fd, PERFCTR_ABI_VERSION);
}

int perfctr_info(int fd, struct perfctr_info *info);
struct perfctr_cpus_info *perfctr_cpus_info(int fd);
struct perfctr_cpus_info *vperfctr_cpus_info(const struct vperfctr *vperfctr);
void perfctr_cpus_info_print(const struct perfctr_cpus_info *cpus_info);
int perfctr_cpus_info_fprint(FILE *stream,
			     const struct perfctr_cpus_info *cpus_info);
void perfctr_cpu_control_print(const struct perfctr_cpu_control *control);
int perfctr_cpu_control_fprint(FILE *stream,
			       const struct perfctr_cpu_control *control);
unsigned int perfctr_linux_version_code(void);

#define PERFCTR_KERNEL_VERSION(v, p, s) \
	(((v) << 16) + ((p) << 8) + ((s) > 255 ? 255 : (s)))

/*
 * perfctr 2.7's tables of processor events, for the machine of
 * cpu_type: perfctr_cpu_event_set() returns the set, or NULL with errno
 * EINVAL for an unknown cpu_type.  The sets are those of
 * perfctr_event_list(), hardware events only: Intel's architectural
 * events, AMD's core events and the Arm PMUv3's common events; the
 * TSC-only and timer-only machines have a set of no events.  On x86,
 * evntsel is the event select, bits 7..0 of the selector, and a unit
 * mask, where there is one, gives bits 15..8; on arm64, evntsel is the
 * event number.  counters_set has bit i set if general-purpose counter
 * i can count the event: every bit, as any of them can (the machine has
 * perfctr_info.nrctrs).  event_prefix is "" and include NULL.
 */
enum perfctr_unit_mask_type {
	perfctr_um_type_fixed,		/* one value, which must be used */
	perfctr_um_type_exclusive,	/* one of nvalues values */
	perfctr_um_type_bitmask,	/* any of nvalues bits, or'ed */
};

struct perfctr_unit_mask_value {
	unsigned int value;
	const char *description;	/* "NAME:text" or "text" */
};

struct perfctr_unit_mask {
	unsigned short default_value;
	enum perfctr_unit_mask_type type:8;
	unsigned char nvalues;
	struct perfctr_unit_mask_value values[1];	/* in fact nvalues */
};

struct perfctr_event {
	unsigned short evntsel;
	unsigned short counters_set;
	const struct perfctr_unit_mask *unit_mask;	/* or NULL */
	const char *name;
	const char *description;
};

struct perfctr_event_set {
	unsigned int cpu_type;
	const char *event_prefix;
	const struct perfctr_event_set *include;	/* its events too */
	unsigned int nevents;
	const struct perfctr_event *events;
};

const struct perfctr_event_set *perfctr_cpu_event_set(unsigned int cpu_type);

#ifdef __cplusplus
}
#endif

#endif /* LIBPERFCTR_H */
