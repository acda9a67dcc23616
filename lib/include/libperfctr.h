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
 * The library keeps no global state and prints nothing, except
 * perfctr_info_print() and perfctr_info_fprint(), whose job it is.
 * Functions that return int return 0 (or a non-negative value) on
 * success and -1 with errno set on failure; functions that return a
 * pointer return NULL with errno set.
 *
 * The functions keep their perfctr 2.7 names and arguments, except
 * vperfctr_read_state(), which takes a fourth (NULL will do), and
 * _vperfctr_open(), which takes a thread ID first; the structures of
 * <linux/perfctr.h> have fixed-width fields.  libperfctr(3) has the rest.
 */
#ifndef LIBPERFCTR_H
#define LIBPERFCTR_H

#include <stdio.h>
#include <linux/perfctr.h>
#include <perfctr/events.h>

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
 * vperfctr_stop() installs an all-off control that preserves the PMC
 * sums; the kernel resets the TSC sum on the way.
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
 * vperfctr_read_state() always makes the system call; any of its
 * pointers may be NULL.  @children receives the children sums: the
 * final sums of every thread and process that inherited the counters
 * from this state (directly or further down) and has been reaped, added
 * up; vperfctr_read_children() reads those alone.  They are not on the
 * state page.  vperfctr_is_running() returns 1 if any counter is
 * enabled, 0 if none.
 */
unsigned long long vperfctr_read_tsc(const struct vperfctr *vperfctr);
unsigned long long vperfctr_read_pmc(const struct vperfctr *vperfctr,
				     unsigned int i);
int vperfctr_read_ctrs(const struct vperfctr *vperfctr,
		       struct perfctr_sum_ctrs *sum);
int vperfctr_read_state(const struct vperfctr *vperfctr,
			struct perfctr_sum_ctrs *sum,
			struct vperfctr_control *control,
			struct perfctr_sum_ctrs *children);
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
 * are system calls, allowed at any time; rvperfctr_read_state() has
 * perfctr 2.7's arguments (no children sums: use _vperfctr_read() on
 * rvperfctr_fd() for those).  A @pid of 0 or less fails with EINVAL.
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
 */
int _vperfctr_open(int tid, int creat);
int _vperfctr_control(int fd, const struct vperfctr_control *control);
int _vperfctr_unlink(int fd);
int _vperfctr_read(int fd, struct perfctr_sum_ctrs *sum,
		   struct vperfctr_control *control,
		   struct perfctr_sum_ctrs *children);
int _vperfctr_iresume(int fd);

#ifdef __cplusplus
}
#endif

#endif /* LIBPERFCTR_H */
