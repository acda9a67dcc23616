/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The five vperfctr system calls, for the selftests: the C library has no
 * wrappers for them.
 */
#ifndef VPERFCTR_SYSCALLS_H
#define VPERFCTR_SYSCALLS_H

#include <sys/syscall.h>
#include <unistd.h>

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

#endif /* VPERFCTR_SYSCALLS_H */
