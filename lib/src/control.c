// SPDX-License-Identifier: LGPL-2.1
/*
 * Changing what a state counts.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

int vperfctr_control(const struct vperfctr *vperfctr,
		     const struct vperfctr_control *control)
{
	return _vperfctr_control(vperfctr->fd, control);
}

/* Is @modes right for software event @event? */
static int sw_modes_valid(unsigned int event, unsigned int modes)
{
	const unsigned int both = PERFCTR_SW_USR | PERFCTR_SW_OS;

	switch (event) {
	case PERFCTR_SW_PAGE_FAULTS:
	case PERFCTR_SW_MINOR_FAULTS:
	case PERFCTR_SW_MAJOR_FAULTS:
		return modes != 0 && (modes & ~both) == 0;
	case PERFCTR_SW_TASK_CLOCK:
	case PERFCTR_SW_CONTEXT_SWITCHES:
	case PERFCTR_SW_CPU_MIGRATIONS:
		return modes == 0;
	}
	return 0;
}

/*
 * Append counter @map/@evntsel/@ireset to @control, in i-mode if
 * @imode.  The a-mode counters are 0 .. nractrs-1 and the i-mode ones
 * follow, so an a-mode counter cannot come after an i-mode one.
 */
int vperfctr_control_append(struct vperfctr_control *control, __u32 map,
			    __u64 evntsel, __s64 ireset, int imode)
{
	struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int n;

	if (cpu->nractrs > PERFCTR_MAX_NRCTRS ||
	    cpu->nrictrs > PERFCTR_MAX_NRCTRS ||
	    (!imode && cpu->nrictrs)) {
		errno = EINVAL;
		return -1;
	}
	n = cpu->nractrs + cpu->nrictrs;
	if (n >= PERFCTR_MAX_NRCTRS) {
		errno = ENOSPC;
		return -1;
	}
	cpu->pmc_map[n] = map;
	cpu->evntsel[n] = evntsel;
	cpu->ireset[n] = ireset;
	if (imode)
		cpu->nrictrs++;
	else
		cpu->nractrs++;
	return n;
}

int vperfctr_control_add_sw(struct vperfctr_control *control,
			    unsigned int event, unsigned int modes)
{
	if (!sw_modes_valid(event, modes)) {
		errno = EINVAL;
		return -1;
	}
	return vperfctr_control_append(control, PERFCTR_MAP_SOFTWARE | event,
				       modes, 0, 0);
}

int vperfctr_control_add_sw_irq(struct vperfctr_control *control,
				unsigned int event, unsigned int modes,
				unsigned long long period)
{
	if (!sw_modes_valid(event, modes) || period == 0 ||
	    period > INT64_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* The kernel interrupts when the counter, preset to -period, wraps. */
	return vperfctr_control_append(control, PERFCTR_MAP_SOFTWARE | event,
				       modes, -(__s64)period, 1);
}

int vperfctr_stop_fd(int fd)
{
	struct vperfctr_control control;

	/* All off: the kernel keeps every sum. */
	memset(&control, 0, sizeof(control));
	return _vperfctr_control(fd, &control);
}

int vperfctr_stop(const struct vperfctr *vperfctr)
{
	return vperfctr_stop_fd(vperfctr->fd);
}

int vperfctr_unlink(const struct vperfctr *vperfctr)
{
	return _vperfctr_unlink(vperfctr->fd);
}

int vperfctr_iresume(const struct vperfctr *vperfctr)
{
	return _vperfctr_iresume(vperfctr->fd);
}
