// SPDX-License-Identifier: LGPL-2.1
/*
 * The perfctr system calls, called by number: the C library has no
 * wrappers for them.
 *
 * The numbers lie outside the range mainline allocates, so a kernel
 * without perfctr answers ENOSYS.  Every call passes all six arguments,
 * the unused ones zero.
 */
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

int vperfctr_open_fd(int tid, int creat)
{
	return syscall(__NR_vperfctr_open, (long)tid, (long)creat, 0L, 0L,
		       0L, 0L);
}

int _vperfctr_control(int fd, const struct vperfctr_control *control)
{
	return syscall(__NR_vperfctr_control, (long)fd, control, 0L, 0L, 0L,
		       0L);
}

int _vperfctr_unlink(int fd)
{
	return syscall(__NR_vperfctr_unlink, (long)fd, 0L, 0L, 0L, 0L, 0L);
}

int _vperfctr_read(int fd, struct perfctr_sum_ctrs *sum,
		   struct vperfctr_control *control,
		   struct perfctr_sum_ctrs *children)
{
	return syscall(__NR_vperfctr_read, (long)fd, sum, control, children,
		       0L, 0L);
}

int _vperfctr_iresume(int fd)
{
	return syscall(__NR_vperfctr_iresume, (long)fd, 0L, 0L, 0L, 0L, 0L);
}
