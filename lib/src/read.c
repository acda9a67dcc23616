// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading a state: from the mapped page when possible, by system call
 * when not.
 */
#include <errno.h>

#include "fast_read.h"
#include "internal.h"

/*
 * The counters of the CPU we run on are the state's only if the state is
 * ours; for anyone else's state only the TSC may be read live.
 */
static void clock_for(const struct vperfctr *vperfctr,
		      struct vperfctr_clock *clock)
{
	*clock = vperfctr_cpu_clock;
	if (!vperfctr->is_self)
		clock->read_pmc = NULL;
}

unsigned long long vperfctr_read_tsc(const struct vperfctr *vperfctr)
{
	struct perfctr_sum_ctrs sum;
	struct vperfctr_clock clock;
	int err = errno;
	__u64 tsc;

	if (vperfctr->state) {
		clock_for(vperfctr, &clock);
		if (vperfctr_state_read_tsc(vperfctr->state, &clock, &tsc) == 0)
			return tsc;
	}
	if (_vperfctr_read(vperfctr->fd, &sum, NULL, NULL) < 0)
		return 0;
	/* Only a failure may change errno: a TSC of 0 is no error. */
	errno = err;
	return sum.tsc;
}

int vperfctr_read_ctrs(const struct vperfctr *vperfctr,
		       struct perfctr_sum_ctrs *sum)
{
	struct vperfctr_clock clock;

	if (vperfctr->state) {
		clock_for(vperfctr, &clock);
		if (vperfctr_state_read_ctrs(vperfctr->state, &clock, sum) == 0)
			return 0;
	}
	return _vperfctr_read(vperfctr->fd, sum, NULL, NULL);
}

int vperfctr_read_state(const struct vperfctr *vperfctr,
			struct perfctr_sum_ctrs *sum,
			struct vperfctr_control *control,
			struct perfctr_sum_ctrs *children)
{
	return _vperfctr_read(vperfctr->fd, sum, control, children);
}

int vperfctr_read_children(const struct vperfctr *vperfctr,
			   struct perfctr_sum_ctrs *children)
{
	return _vperfctr_read(vperfctr->fd, NULL, NULL, children);
}

int vperfctr_is_running(const struct vperfctr *vperfctr)
{
	const struct perfctr_cpu_control *cpu;
	struct vperfctr_control control;

	if (vperfctr->state)
		return __atomic_load_n(&vperfctr->state->cpu_state.cstatus,
				       __ATOMIC_RELAXED) != 0;
	if (_vperfctr_read(vperfctr->fd, NULL, &control, NULL) < 0)
		return -1;
	cpu = &control.cpu_control;
	return cpu->tsc_on || cpu->nractrs || cpu->nrictrs;
}
