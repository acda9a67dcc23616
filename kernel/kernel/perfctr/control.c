// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: the control.  A control names
 * the counters a thread counts, in accumulation or interrupt mode.  It is
 * checked whole here, the driver being asked only about one hardware
 * counter at a time, then installed in a suspended state, restarting the
 * sums it does not preserve.
 */
#include <linux/bits.h>
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/perf_event.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

/* Counting kernel mode needs what perf_event_open() asks for it. */
bool vperfctr_allow_kernel(void)
{
	if (vperfctr_perf_paranoid() < 2)
		return true;
	return perfmon_capable();
}

static u32 vperfctr_cstatus(const struct perfctr_cpu_control *cc)
{
	return (cc->tsc_on ? PERFCTR_CSTATUS_TSC_ON : 0) |
	       (cc->nrictrs << 16) | cc->nractrs;
}

/*
 * A hardware counter: one the driver accepts, not used twice, within the
 * machine's count, and in interrupt mode one the driver does not restart
 * at every resume, preset within its width.
 */
static int vperfctr_check_hardware(const struct perfctr_cpu_control *cc,
				   unsigned int i, unsigned int nrhw,
				   bool allow_kernel)
{
	const struct perfctr_pmu *pmu = perfctr_driver(pmu)();
	u32 map = cc->pmc_map[i];
	s64 ireset = cc->ireset[i];
	unsigned int j;
	u32 width;
	int err;

	if (nrhw > pmu->nrctrs + pmu->nrfixed + pmu->nrmetrics)
		return -EINVAL;
	err = perfctr_driver(check_counter)(map, cc->evntsel[i], ireset,
					    allow_kernel);
	if (err && err != -EACCES)
		return err;
	/* The driver accepted both: equal names are the same counter. */
	for (j = 0; j < i; j++)
		if (cc->pmc_map[j] == map)
			return -EINVAL;
	if (i >= cc->nractrs) {
		/*
		 * Preset to ireset, a counter interrupts when it counts past
		 * zero; more than half its range could not be told from an
		 * overflowed one (vperfctr_hw_overflowed()).
		 */
		width = perfctr_driver(counter_width)(map);
		if (ireset >= 0 || perfctr_driver(counter_restarts)(map, cc) ||
		    (width < 64 && ireset < -(s64)BIT_ULL(width - 1)))
			return -EINVAL;
	}
	return err;
}

/**
 * vperfctr_check_control - validate a control before it is used
 * @control: the control as copied from user space
 * @allow_kernel: whether the caller may count kernel-mode events
 *
 * Reserved fields and unknown flags must be zero, so that they can be
 * given a meaning later; entries beyond the counters in use must be zero
 * too.  Every counter is checked here, the driver being asked only whether
 * its hardware can count one hardware counter so.
 *
 * Return: 0, -EINVAL for a malformed control or one this machine cannot
 * count, -EACCES for kernel-mode counting without the privilege (only if
 * nothing else is wrong).
 */
int vperfctr_check_control(const struct vperfctr_control *control,
			   bool allow_kernel)
{
	const struct perfctr_cpu_control *cc = &control->cpu_control;
	unsigned int i, nrctrs, nrhw = 0;
	int err, eacces = 0;

	might_sleep();
	if (control->flags || control->_reserved0 || cc->_reserved0 ||
	    memchr_inv(control->_reserved1, 0, sizeof(control->_reserved1)) ||
	    memchr_inv(cc->_reserved1, 0, sizeof(cc->_reserved1)))
		return -EINVAL;
	if (cc->tsc_on > 1)
		return -EINVAL;
	if (cc->nractrs > PERFCTR_MAX_NRCTRS ||
	    cc->nrictrs > PERFCTR_MAX_NRCTRS - cc->nractrs)
		return -EINVAL;
	nrctrs = cc->nractrs + cc->nrictrs;
	for (i = nrctrs; i < PERFCTR_MAX_NRCTRS; i++)
		if (cc->pmc_map[i] || cc->evntsel[i] || cc->ireset[i])
			return -EINVAL;
	if (control->si_signo < 0 || !valid_signal(control->si_signo) ||
	    (cc->nrictrs && !control->si_signo))
		return -EINVAL;
	for (i = 0; i < cc->nractrs; i++)
		if (cc->ireset[i])
			return -EINVAL;
	for (i = 0; i < nrctrs; i++) {
		if (vperfctr_map_is_software(cc->pmc_map[i]))
			err = vperfctr_check_software(cc, i, allow_kernel);
		else
			err = vperfctr_check_hardware(cc, i, ++nrhw,
						      allow_kernel);
		if (err == -EACCES)
			eacces = err;
		else if (err)
			return err;
	}
	if (nrhw) {
		err = perfctr_driver(check_control)(cc);
		if (err)
			return err;
	}
	return eacces;
}

/* The sampling timer: at 8 events per cycle, sample at half the wrap. */
#define VPERFCTR_MAX_EVENTS_PER_CYCLE	8
#define VPERFCTR_MAX_SAMPLE_TICKS	(3600 * HZ)
/*
 * A counter that restarts at every resume (a TopDown metric, an 8-bit
 * share of the slots since) is folded into its sum at least this often,
 * so that the rounding of a read of a thread that runs on without a
 * switch is at most about 1/255 of 100 ms of slots.
 */
#define VPERFCTR_RESTART_SAMPLE_TICKS	(HZ / 10)

/**
 * vperfctr_sample_interval - ticks between samples of hardware counters
 * @width: the width in bits of the narrowest counter in use
 * @khz: the core clock
 *
 * A counter must not wrap twice between two samples, or the difference
 * from its start value loses a whole period.  At most
 * VPERFCTR_MAX_EVENTS_PER_CYCLE events per cycle, a @width bit counter
 * wraps after 2^width / (khz * 1000 * 8) seconds; sample at half that.
 *
 * Return: the interval in ticks, at least 1, or 0 when no counter can
 * wrap in an hour.
 */
unsigned int vperfctr_sample_interval(u32 width, u32 khz)
{
	u64 rate, ticks;

	if (!width || width >= 64)
		return 0;
	if (!khz)
		return 1;
	rate = (u64)khz * 1000 * VPERFCTR_MAX_EVENTS_PER_CYCLE;
	ticks = mul_u64_u64_div_u64(BIT_ULL(width - 1), HZ, rate);
	if (ticks >= VPERFCTR_MAX_SAMPLE_TICKS)
		return 0;
	return max_t(u64, ticks, 1);
}

/*
 * What a reader of the page must compute live while the control's
 * counters run: the TSC, and the hardware counters if user mode may read
 * them (task-clock has its own word); the other software counters' sums
 * are kept current.  Hardware counters that user mode may not read send
 * readers to the system call.
 */
static u64 vperfctr_live_on(const struct vperfctr *perfctr)
{
	const struct vperfctr_state *userpg = perfctr->userpg;
	u64 live = 0;

	if (userpg->flags & VPERFCTR_STATE_RDPMC)
		live = perfctr->setup.hw_pmcs;
	else if (perfctr->setup.hw_pmcs)
		live = VPERFCTR_LIVE_SYSCALL;
	if (perfctr_cstatus_has_tsc(userpg->cpu_state.cstatus))
		live |= VPERFCTR_LIVE_TSC;
	return live;
}

/**
 * vperfctr_setup_control - what a control implies, computed once
 * @cc: a control that passed vperfctr_check_control()
 * @setup: filled in
 *
 * The masks of the counters by kind, each counter's width, the sampling
 * interval and the driver's plan: what the core and the driver would
 * otherwise work out again at every switch, as perf's event_init fills
 * struct hw_perf_event once.
 *
 * Context: process; may sleep.
 */
void vperfctr_setup_control(const struct perfctr_cpu_control *cc,
			    struct vperfctr_setup *setup)
{
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;
	u32 min_width = 64;

	might_sleep();
	memset(setup, 0, sizeof(*setup));
	setup->imode_pmcs = (u32)(BIT_ULL(nrctrs) - 1) &
			    ~(u32)(BIT_ULL(cc->nractrs) - 1);
	for (i = 0; i < nrctrs; i++) {
		u32 map = cc->pmc_map[i];

		if (vperfctr_map_is_software(map)) {
			setup->width[i] = 64;
			setup->sw_events |= BIT(map & ~PERFCTR_MAP_SOFTWARE);
			if (vperfctr_map_is_task_clock(map))
				setup->clock_pmcs |= BIT(i);
			else
				setup->event_pmcs |= BIT(i);
			vperfctr_add_fault_pmc(setup, i,
					       map & ~PERFCTR_MAP_SOFTWARE,
					       cc->evntsel[i]);
			continue;
		}
		/* At most 64, whatever the hardware says. */
		setup->width[i] = min(perfctr_driver(counter_width)(map), 64U);
		min_width = min_t(u32, min_width, setup->width[i]);
		setup->nrhw++;
		setup->hw_pmcs |= BIT(i);
		if (perfctr_driver(counter_restarts)(map, cc))
			setup->restart_pmcs |= BIT(i);
	}
	if (!setup->nrhw)
		return;
	perfctr_driver(prepare)(cc, &setup->plan);
	setup->user_read = perfctr_driver(has_user_read)();
	/*
	 * A hand-off reads the counters while they run: not TopDown's
	 * (restart_pmcs), whose metrics must be read with their slots.
	 */
	setup->simple_switch = !setup->restart_pmcs && !setup->imode_pmcs &&
		!(setup->sw_events & BIT(PERFCTR_SW_CONTEXT_SWITCHES));
	setup->sample_ticks =
		vperfctr_sample_interval(min_width, perfctr_driver(pmu)()->cpu_khz);
	if (setup->restart_pmcs &&
	    (!setup->sample_ticks ||
	     setup->sample_ticks > VPERFCTR_RESTART_SAMPLE_TICKS))
		setup->sample_ticks = VPERFCTR_RESTART_SAMPLE_TICKS;
}

/*
 * What a state starts from with its control and setup: the counters'
 * names and widths in the page, the interrupt-mode presets, the
 * user-mode read.  Inside the page's sequence count if others may read.
 */
static void vperfctr_load_setup(struct vperfctr *perfctr)
{
	const struct perfctr_cpu_control *cc = &perfctr->control.cpu_control;
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;

	state->cstatus = vperfctr_cstatus(cc);
	for (i = 0; i < nrctrs; i++) {
		state->pmc[i].map = cc->pmc_map[i];
		state->pmc[i].start = 0;
		state->pmc[i].width = perfctr->setup.width[i];
	}
	vperfctr_load_ireset(perfctr);
	/* Not from a parent's flag: a resume on a forbidden CPU clears it. */
	if (perfctr->setup.user_read)
		userpg->flags |= VPERFCTR_STATE_RDPMC;
	else
		userpg->flags &= ~VPERFCTR_STATE_RDPMC;
	perfctr->live_on = vperfctr_live_on(perfctr);
	perfctr->ticks_left = perfctr->setup.sample_ticks;
}

/**
 * vperfctr_set_control - install a checked control in a suspended state
 * @perfctr: the state, its counters not running
 * @control: the new control, checked by vperfctr_check_control()
 * @setup: what vperfctr_setup_control() made of it
 *
 * The sums restart from zero, except those of the counters whose bit is
 * set in control->preserve.  The TSC sum restarts only when the new control
 * turns the TSC off: a TSC left on keeps accumulating.  A control that
 * enables nothing restarts nothing and keeps every sum: it stops.
 *
 * Context: interrupts off, or the owner frozen.
 */
void vperfctr_set_control(struct vperfctr *perfctr,
			  const struct vperfctr_control *control,
			  const struct vperfctr_setup *setup)
{
	const struct perfctr_cpu_control *cc = &control->cpu_control;
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;
	bool restart = perfctr_cstatus_enabled(vperfctr_cstatus(cc));
	/* A control that enables nothing restarts nothing: every sum kept. */
	u32 keep = restart ? control->preserve : ~0u;
	const struct perfctr_cpu_control *old = &perfctr->control.cpu_control;
	/* Past the old control's counters and kept sums, all is zero. */
	unsigned int used = min_t(unsigned int, PERFCTR_MAX_NRCTRS,
				  max3(nrctrs, old->nractrs + old->nrictrs,
				       userpg->nrsums));

	perfctr->control = *control;
	memcpy(&perfctr->setup, setup, vperfctr_setup_size(setup));
	perfctr->iresume_cstatus = 0;
	WRITE_ONCE(perfctr->pending_ovf, 0);
	/* Only the old control's counters can have left one nonzero. */
	memset(perfctr->icount, 0, used * sizeof(perfctr->icount[0]));

	vperfctr_write_begin(userpg);
	vperfctr_time_set(userpg);
	userpg->flags &= ~VPERFCTR_STATE_OVERFLOW;
	userpg->live = 0;
	userpg->live_clock = 0;
	userpg->nrsums = nrctrs;
	if (restart && !cc->tsc_on)
		state->tsc_sum = 0;
	for (i = 0; i < used; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (!(keep & BIT(i)))
			pmc->sum = 0;
		else if (pmc->sum && i >= userpg->nrsums)
			userpg->nrsums = i + 1;
		pmc->map = 0;
		pmc->start = 0;
		pmc->width = 0;
	}
	vperfctr_load_setup(perfctr);
	vperfctr_write_end(userpg);
}

/**
 * vperfctr_inherit_control - install the control of a state in a new one
 * @perfctr: a new state, from vperfctr_alloc()
 * @from: a state whose control vperfctr_set_control() installed
 *
 * What vperfctr_set_control(@perfctr, &@from->control, &@from->setup)
 * does, at a fork: the control and its setup are copied whole (but for
 * the plan's unused writes), the rest starts as for any new control.
 * The new state's page is seen by nobody yet.
 */
void vperfctr_inherit_control(struct vperfctr *perfctr,
			      const struct vperfctr *from)
{
	const struct perfctr_cpu_control *cc = &from->control.cpu_control;

	perfctr->control = from->control;
	memcpy(&perfctr->setup, &from->setup, vperfctr_setup_size(&from->setup));
	perfctr->userpg->nrsums = cc->nractrs + cc->nrictrs;
	vperfctr_load_setup(perfctr);
}
