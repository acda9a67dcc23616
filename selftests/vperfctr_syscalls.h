/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls of the selftests that the C library has no wrappers
 * for: the five vperfctr ones, and perf's perf_event_open().
 */
#ifndef VPERFCTR_SYSCALLS_H
#define VPERFCTR_SYSCALLS_H

#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/perfctr.h>

static inline int sys_vperfctr_open(int tid, int creat)
{
	return syscall(__NR_vperfctr_open, tid, creat);
}

static inline int sys_vperfctr_control(int fd,
				       const struct vperfctr_control *control)
{
	return syscall(__NR_vperfctr_control, fd, control);
}

static inline int sys_vperfctr_unlink(int fd)
{
	return syscall(__NR_vperfctr_unlink, fd);
}

static inline int sys_vperfctr_read(int fd, struct perfctr_sum_ctrs *sum,
				    struct vperfctr_control *control,
				    struct perfctr_sum_ctrs *children)
{
	return syscall(__NR_vperfctr_read, fd, sum, control, children);
}

static inline int sys_vperfctr_iresume(int fd)
{
	return syscall(__NR_vperfctr_iresume, fd);
}

/*
 * A perf event of the calling thread, user mode only: counting, or with
 * @period, sampling, a wakeup at every sample.  Its descriptor, or -1.
 */
static inline int perf_open(__u32 type, __u64 config, __u64 period)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = period,
		.wakeup_events = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

#endif /* VPERFCTR_SYSCALLS_H */
