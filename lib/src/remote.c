// SPDX-License-Identifier: LGPL-2.1
/*
 * The counters of another thread, stopped under the caller's ptrace
 * control: perfctr 2.7's rvperfctr family.
 *
 * Every call but the reads needs the thread in a ptrace stop, as the
 * kernel checks.  The counters of a stopped thread do not move, and the
 * hardware counters of the CPU we run on are not its, so the state page
 * would give nothing the system call does not: it is not mapped.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

struct rvperfctr {
	int fd;
	int pid;
};

struct rvperfctr *rvperfctr_open(int pid)
{
	struct rvperfctr *rvperfctr;
	int err;

	if (pid <= 0) {
		errno = EINVAL;
		return NULL;
	}
	rvperfctr = malloc(sizeof(*rvperfctr));
	if (!rvperfctr)
		return NULL;
	rvperfctr->pid = pid;
	rvperfctr->fd = vperfctr_open_fd(pid, 1);
	if (rvperfctr->fd < 0 && errno == EEXIST)
		rvperfctr->fd = vperfctr_open_fd(pid, 0);
	if (rvperfctr->fd < 0) {
		err = errno;
		free(rvperfctr);
		errno = err;
		return NULL;
	}
	return rvperfctr;
}

void rvperfctr_close(struct rvperfctr *rvperfctr)
{
	int err = errno;

	if (!rvperfctr)
		return;
	close(rvperfctr->fd);
	free(rvperfctr);
	errno = err;
}

int rvperfctr_pid(const struct rvperfctr *rvperfctr)
{
	return rvperfctr->pid;
}

int rvperfctr_fd(const struct rvperfctr *rvperfctr)
{
	return rvperfctr->fd;
}

int rvperfctr_info(const struct rvperfctr *rvperfctr,
		   struct perfctr_info *info)
{
	(void)rvperfctr;	/* one description for every thread */
	return perfctr_info_read(info);
}

int rvperfctr_control(const struct rvperfctr *rvperfctr,
		      const struct vperfctr_control *control)
{
	return _vperfctr_control(rvperfctr->fd, control);
}

int rvperfctr_stop(const struct rvperfctr *rvperfctr)
{
	return vperfctr_stop_fd(rvperfctr->fd);
}

int rvperfctr_iresume(const struct rvperfctr *rvperfctr)
{
	return _vperfctr_iresume(rvperfctr->fd);
}

int rvperfctr_unlink(const struct rvperfctr *rvperfctr)
{
	return _vperfctr_unlink(rvperfctr->fd);
}

int rvperfctr_read_ctrs(const struct rvperfctr *rvperfctr,
			struct perfctr_sum_ctrs *sum)
{
	return _vperfctr_read(rvperfctr->fd, sum, NULL, NULL);
}

int rvperfctr_read_state(const struct rvperfctr *rvperfctr,
			 struct perfctr_sum_ctrs *sum,
			 struct vperfctr_control *control)
{
	return _vperfctr_read(rvperfctr->fd, sum, control, NULL);
}
