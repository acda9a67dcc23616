// SPDX-License-Identifier: LGPL-2.1
/*
 * Reading a state: from the mapped page when possible, by system call
 * when not.  <libperfctr.h> has the reads inline; these are the same
 * reads out of line, and what the inline ones fall back to.
 */
#define LIBPERFCTR_NO_INLINE
#include <errno.h>

#include "fast_read.h"
#include "internal.h"

/*
 * From the mapped page when it can be read there; the hardware counters
 * of the CPU we run on are the state's only if the state is ours.  The
 * system call otherwise.  Only a failure of both may change errno: a
 * count of 0 is no error.  When both fail and the page only kept
 * changing while it was read, the caller learns EAGAIN, not why the
 * system call was refused (another's running thread): a retry will do.
 */
static int read_by_syscall(const struct vperfctr *vperfctr,
			   struct perfctr_sum_ctrs *sum, int err, int page_err)
{
	if (_vperfctr_read(vperfctr->fd, sum, NULL, NULL) < 0) {
		if (page_err == EAGAIN)
			errno = EAGAIN;
		return -1;
	}
	errno = err;
	return 0;
}

unsigned long long __vperfctr_read_tsc_slow(const struct vperfctr *vperfctr)
{
	struct perfctr_sum_ctrs sum;
	int err = errno;
	__u64 tsc;

	if (vperfctr->state &&
	    vperfctr_cpu_read_tsc(vperfctr->state, vperfctr->is_self, &tsc) == 0)
		return tsc;
	if (read_by_syscall(vperfctr, &sum, err, vperfctr->state ? errno : 0))
		return 0;
	return sum.tsc;
}

int __vperfctr_read_ctrs_slow(const struct vperfctr *vperfctr,
			      struct perfctr_sum_ctrs *sum)
{
	int err = errno;

	if (vperfctr->state &&
	    vperfctr_cpu_read_ctrs(vperfctr->state, vperfctr->is_self, sum) == 0)
		return 0;
	return read_by_syscall(vperfctr, sum, err, vperfctr->state ? errno : 0);
}

unsigned long long __vperfctr_read_pmc_slow(const struct vperfctr *vperfctr,
					    unsigned int i)
{
	struct perfctr_sum_ctrs sum;
	int err = errno;
	__u64 value;

	if (i >= PERFCTR_MAX_NRCTRS) {
		errno = EINVAL;
		return 0;
	}
	if (vperfctr->state &&
	    vperfctr_cpu_read_pmc(vperfctr->state, vperfctr->is_self, i,
				  &value) == 0)
		return value;
	if (read_by_syscall(vperfctr, &sum, err, vperfctr->state ? errno : 0))
		return 0;
	return sum.pmc[i];
}

/* The reads <libperfctr.h> inlines, for callers that do not inline. */
unsigned long long vperfctr_read_tsc(const struct vperfctr *vperfctr)
{
	return __vperfctr_read_tsc_inline(vperfctr);
}

unsigned long long vperfctr_read_pmc(const struct vperfctr *vperfctr,
				     unsigned int i)
{
	return __vperfctr_read_pmc_inline(vperfctr, i);
}

int vperfctr_read_ctrs(const struct vperfctr *vperfctr,
		       struct perfctr_sum_ctrs *sum)
{
	return __vperfctr_read_ctrs_inline(vperfctr, sum);
}

int vperfctr_read_state(const struct vperfctr *vperfctr,
			struct perfctr_sum_ctrs *sum,
			struct vperfctr_control *control)
{
	return _vperfctr_read(vperfctr->fd, sum, control, NULL);
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
