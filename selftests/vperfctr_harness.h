/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness of the ABI tests, vperfctr_*_test, one program a concept:
 * kselftest_harness.h, and FIXTURE(vperfctr), which all of them share.
 *
 * The driver under test may be the TSC-only one, so only the TSC and the
 * software counters (task-clock, context switches, CPU migrations, page
 * faults), which every machine has, are counted here; programmable
 * counters have tests of their own.  Some tests need root (to count
 * kernel mode, to become another user, to make a setuid-root program)
 * and some two CPUs; the test machine has both.
 */
#ifndef VPERFCTR_HARNESS_H
#define VPERFCTR_HARNESS_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "vperfctr_common.h"
#include "vperfctr_kselftest.h"
#include "vperfctr_syscalls.h"

/* A fresh state of this thread, counters stopped. */
FIXTURE(vperfctr)
{
	int fd;
};

FIXTURE_SETUP(vperfctr)
{
	self->fd = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0) {
		TH_LOG("vperfctr_open(0, 1): %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(vperfctr)
{
	if (self->fd >= 0)
		close(self->fd);
}

#endif /* VPERFCTR_HARNESS_H */
