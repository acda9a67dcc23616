// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters.
 *
 * A thread's counters are virtualised the way its registers are: their
 * state, struct vperfctr, hangs off the thread_struct and is suspended and
 * resumed at every context switch, so a thread counts only what it does
 * itself.  User space reaches the state through a file descriptor on the
 * vperfctrfs pseudo file system; mmap() of that file gives the page with
 * the sums, from which the counters are read without a system call.
 *
 * Locking:
 *
 * - Only the owner thread runs its counters.  The context switch and the
 *   owner's own system calls change the counter state with interrupts off
 *   on the owner's CPU, so none of them sees another half done.
 * - Another thread acts on the state only while the owner is stopped under
 *   its ptrace control and frozen there (ptrace_check_attach()), hence off
 *   every CPU with its counters suspended, and unable to run until thawed.
 * - tsk->thread.perfctr changes under task_lock(tsk), and whoever clears it
 *   drops the thread's reference.  perfctr->owner is RCU protected: the
 *   owner's task_struct outlives a grace period after release_task().
 *   The state itself is freed after a grace period too, for the affinity
 *   hook, which runs under the runqueue lock and cannot take task_lock().
 * - The children sums, which reaped descendants add to from any CPU, are
 *   under children_lock, never nested.
 * - The page shared with user space is written inside a sequence count:
 *   odd while it changes.  Readers retry when it was odd or moved.
 * - Signals are never sent from the context switch, timers or NMIs, which
 *   cannot take the signal lock: they are flagged and sent on the owner's
 *   way back to user mode.
 */
#include <linux/capability.h>
#include <linux/clocksource.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/math64.h>
#include <linux/mount.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/pseudo_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <kunit/static_stub.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

static_assert(sizeof(struct vperfctr_state) <= PAGE_SIZE);

struct cpumask perfctr_cpus_forbidden_mask;

/* TSC ticks to ns, for task-clock: (ticks * mult) >> shift. */
static u32 vperfctr_time_mult __ro_after_init;
static u32 vperfctr_time_shift __ro_after_init;

/**
 * vperfctr_tsc_to_ns - convert a TSC interval to nanoseconds
 * @delta: TSC ticks
 *
 * Return: @delta in ns, as user space computes it from the state page.
 */
u64 vperfctr_tsc_to_ns(u64 delta)
{
	return mul_u64_u32_shr(delta, vperfctr_time_mult, vperfctr_time_shift);
}

static enum hrtimer_restart vperfctr_itimer_fn(struct hrtimer *timer);

/**
 * vperfctr_alloc - allocate a new, inactive counter state
 *
 * All control fields are disabled and all sums zero.  The caller owns the
 * one reference.
 *
 * Return: the new state, or NULL when out of memory.
 */
struct vperfctr *vperfctr_alloc(void)
{
	struct vperfctr *perfctr;

	perfctr = kzalloc(sizeof(*perfctr), GFP_KERNEL_ACCOUNT);
	if (!perfctr)
		return NULL;
	perfctr->kstate = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!perfctr->kstate) {
		kfree(perfctr);
		return NULL;
	}
	refcount_set(&perfctr->refcount, 1);
	spin_lock_init(&perfctr->children_lock);
	vperfctr_new_generation(perfctr, true);
	perfctr->last_cpu = -1;
	hrtimer_init(&perfctr->itimer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	perfctr->itimer.function = vperfctr_itimer_fn;
	perfctr->kstate->magic = VPERFCTR_STATE_MAGIC;
	perfctr->kstate->abi_version = PERFCTR_ABI_VERSION;
	perfctr->kstate->time_mult = vperfctr_time_mult;
	perfctr->kstate->time_shift = vperfctr_time_shift;
	return perfctr;
}

static void vperfctr_get(struct vperfctr *perfctr)
{
	refcount_inc(&perfctr->refcount);
}

static void vperfctr_free_rcu(struct rcu_head *head)
{
	struct vperfctr *perfctr = container_of(head, struct vperfctr, rcu);

	free_page((unsigned long)perfctr->kstate);
	kfree(perfctr);
}

/**
 * vperfctr_put - drop a reference, freeing the state with the last one
 * @perfctr: the state
 *
 * A mapping of the page holds the file, and the file a reference, so the
 * page is never freed while user space can still see it.  A state holds a
 * reference to the state it inherited from; dropping a chain of them is a
 * loop, not a recursion, however deep the process tree was.
 */
void vperfctr_put(struct vperfctr *perfctr)
{
	while (perfctr && refcount_dec_and_test(&perfctr->refcount)) {
		struct vperfctr *parent = perfctr->parent;

		if (perfctr->hw_reserved)
			arch_perfctr_release();
		call_rcu(&perfctr->rcu, vperfctr_free_rcu);
		perfctr = parent;
	}
}

/*
 * The page's sequence count, as in seqcount_t but shared with user space:
 * only the owner's CPU (or a ptracer while the owner is frozen) writes.
 */
static void vperfctr_write_begin(struct vperfctr_state *kstate)
{
	WRITE_ONCE(kstate->seq, kstate->seq + 1);
	/* An odd seq is visible before any change to the page. */
	smp_wmb();
}

static void vperfctr_write_end(struct vperfctr_state *kstate)
{
	/* Every change to the page is visible before seq is even again. */
	smp_wmb();
	WRITE_ONCE(kstate->seq, kstate->seq + 1);
}

static bool vperfctr_is_imode(u32 cstatus, unsigned int i)
{
	return i >= perfctr_cstatus_nractrs(cstatus);
}

static u64 vperfctr_width_mask(u32 width)
{
	return width >= 64 ? ~0ULL : BIT_ULL(width) - 1;
}

/*
 * A hardware interrupt-mode counter starts from its negative ireset, top
 * bit set, and has overflowed once that bit is clear: the value says so
 * whether or not the overflow interrupt has been taken yet, so a late or
 * lost interrupt loses no overflow.
 */
static bool vperfctr_hw_overflowed(const struct perfctr_pmc_state *pmc)
{
	return !(pmc->start & BIT_ULL(pmc->width - 1));
}

/* Count @n events into software i-mode counter @i; true on overflow. */
static bool vperfctr_icount_add(struct vperfctr *perfctr, unsigned int i,
				u64 n)
{
	s64 before = perfctr->icount[i];

	perfctr->icount[i] = before + n;
	return before < 0 && perfctr->icount[i] >= 0;
}

/*
 * Time until the first task-clock i-mode counter overflows, in ns, or 0
 * if none counts.
 */
static u64 vperfctr_itimer_ns(const struct vperfctr *perfctr)
{
	const struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 min = 0;

	if (!(perfctr->sw_events & BIT(PERFCTR_SW_TASK_CLOCK)))
		return 0;
	for (i = perfctr_cstatus_nractrs(cstatus); i < nrctrs; i++) {
		u64 left;

		/* One that reached zero waits for vperfctr_iresume(). */
		if (!vperfctr_map_is_task_clock(state->pmc[i].map) ||
		    perfctr->icount[i] >= 0)
			continue;
		left = -perfctr->icount[i];
		if (!min || left < min)
			min = left;
	}
	return min;
}

/*
 * The clock that ends a running period, read once seq is odd and seen so
 * by every CPU: a reader on another CPU that still found seq even read
 * its own clock before this one, so no sum it computed from the running
 * counters exceeds the sum stored here, and a sum a reader has seen never
 * shrinks.  The full barrier orders the store of seq before the read of
 * the clock, which no lighter barrier orders.
 */
static u64 vperfctr_read_tsc_after_begin(void)
{
	/* Pairs with the reader's clock read before its second seq load. */
	mb();
	return arch_perfctr_read_tsc();
}

/*
 * Only the TSC and task-clock read the time-stamp counter: a thread that
 * counts just events does not pay for it at every switch.
 */
static bool vperfctr_needs_tsc(const struct vperfctr *perfctr, u32 cstatus)
{
	return perfctr_cstatus_has_tsc(cstatus) ||
	       (perfctr->sw_events & BIT(PERFCTR_SW_TASK_CLOCK));
}

/**
 * vperfctr_suspend - stop counting and fold the counts into the sums
 * @perfctr: a state whose counters run on this CPU
 *
 * A hardware counter adds what it counted since it was resumed, modulo
 * its width; an interrupt-mode one keeps its raw value to be reloaded on
 * resume.  Called with interrupts off on the owner's CPU.
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_suspend(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 tsc = 0;
	u32 ovf = 0;

	if (perfctr->sw_events & BIT(PERFCTR_SW_TASK_CLOCK))
		hrtimer_try_to_cancel(&perfctr->itimer);
	vperfctr_write_begin(kstate);
	if (vperfctr_needs_tsc(perfctr, cstatus))
		tsc = vperfctr_read_tsc_after_begin();
	if (perfctr->nrhw && nrctrs)
		arch_perfctr_disable(state);
	for (i = 0; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];
		u64 now, delta;

		if (vperfctr_map_is_task_clock(pmc->map)) {
			delta = vperfctr_tsc_to_ns(tsc - pmc->start);
			pmc->sum += delta;
			if (vperfctr_is_imode(cstatus, i) &&
			    vperfctr_icount_add(perfctr, i, delta))
				ovf |= BIT(i);
			continue;
		}
		if (vperfctr_map_is_software(pmc->map))
			continue;
		now = arch_perfctr_read_counter(pmc->map);
		pmc->sum += (now - pmc->start) & vperfctr_width_mask(pmc->width);
		if (!vperfctr_is_imode(cstatus, i))
			continue;
		pmc->start = now;
		if (vperfctr_hw_overflowed(pmc))
			ovf |= BIT(i);
	}
	if (perfctr_cstatus_has_tsc(cstatus))
		state->tsc_sum += tsc - state->tsc_start;
	kstate->flags &= ~VPERFCTR_STATE_ONCPU;
	vperfctr_write_end(kstate);
	return ovf;
}

/**
 * vperfctr_resume - start counting from the current hardware values
 * @perfctr: a state with enabled counters, owned by the current thread
 *
 * Accumulation-mode hardware counters start from whatever the hardware
 * holds; interrupt-mode ones are loaded with their saved value, so they
 * overflow after the events still due.  Called with interrupts off on
 * the owner's CPU.
 */
void vperfctr_resume(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 tsc, itimer_ns;

	tsc = vperfctr_needs_tsc(perfctr, cstatus) ? arch_perfctr_read_tsc() : 0;
	vperfctr_write_begin(kstate);
	if (perfctr_cstatus_has_tsc(cstatus))
		state->tsc_start = tsc;
	for (i = 0; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (vperfctr_map_is_task_clock(pmc->map))
			pmc->start = tsc;
		else if (vperfctr_map_is_software(pmc->map))
			continue;
		else if (vperfctr_is_imode(cstatus, i))
			arch_perfctr_write_counter(pmc->map, pmc->start);
		else
			pmc->start = arch_perfctr_read_counter(pmc->map);
	}
	if (perfctr->nrhw && nrctrs)
		arch_perfctr_enable(state, &perfctr->control.cpu_control);
	kstate->flags |= VPERFCTR_STATE_ONCPU;
	vperfctr_write_end(kstate);

	itimer_ns = vperfctr_itimer_ns(perfctr);
	if (itimer_ns)
		hrtimer_start(&perfctr->itimer, ns_to_ktime(itimer_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	perfctr->ticks_left = perfctr->sample_ticks;
}

/*
 * Have the owner call __perfctr_notify_resume() on its way back to user
 * mode.  The owner is current, or being switched out on this CPU, so the
 * pointer needs no RCU protection; it is NULL only in the KUnit tests,
 * whose states have no owner.
 */
static void vperfctr_notify_owner(struct vperfctr *perfctr)
{
	struct task_struct *owner = rcu_dereference_raw(perfctr->owner);

	if (owner)
		set_tsk_thread_flag(owner, TIF_NOTIFY_RESUME);
}

/**
 * vperfctr_overflow - stop the counters after an interrupt-mode overflow
 * @perfctr: the state, its counters suspended
 * @ovf_mask: the counters that overflowed
 *
 * Everything but the TSC stays stopped until vperfctr_iresume(), so the
 * signal handler does not count itself.  The signal is sent on the way
 * back to user mode: this runs in the context switch, in interrupts and
 * in NMIs, where the signal lock cannot be taken.  Interrupts off.
 */
void vperfctr_overflow(struct vperfctr *perfctr, u32 ovf_mask)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;

	vperfctr_write_begin(kstate);
	if (!(kstate->flags & VPERFCTR_STATE_OVERFLOW))
		perfctr->iresume_cstatus = state->cstatus;
	state->cstatus = perfctr_cstatus_has_tsc(state->cstatus) ?
			 PERFCTR_CSTATUS_TSC_ON : 0;
	kstate->flags |= VPERFCTR_STATE_OVERFLOW;
	vperfctr_write_end(kstate);
	WRITE_ONCE(perfctr->pending_ovf, perfctr->pending_ovf | ovf_mask);
	vperfctr_notify_owner(perfctr);
}

/* Suspend, handle an overflow, and resume what is still enabled. */
static void vperfctr_sample_checked(struct vperfctr *perfctr, u32 ovf)
{
	ovf |= vperfctr_suspend(perfctr);
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
	if (perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
		vperfctr_resume(perfctr);
}

/**
 * vperfctr_sample - bring the sums up to date without stopping
 * @perfctr: a state whose counters run on this CPU
 *
 * Called with interrupts off on the owner's CPU.
 */
void vperfctr_sample(struct vperfctr *perfctr)
{
	vperfctr_sample_checked(perfctr, 0);
}

/*
 * The overflow interrupt, deferred from NMI context.  It runs in hard
 * interrupt context on the CPU that took the interrupt; if the owner was
 * switched out meanwhile, its suspend found the overflow already, and a
 * sample of whichever thread runs now does no harm.
 */
static void vperfctr_pmi_work_fn(struct irq_work *work)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
}

static DEFINE_PER_CPU(struct irq_work, vperfctr_pmi_work) =
	IRQ_WORK_INIT_HARD(vperfctr_pmi_work_fn);

/**
 * perfctr_overflow_interrupt - a counter overflow interrupt was taken
 *
 * Called by the counter driver's interrupt handler, in NMI context, when
 * an interrupt-mode counter of this CPU overflowed.  The counters are
 * sampled as soon as interrupts are enabled again; the sample finds which
 * counters overflowed from their values, and the owner gets its signal on
 * the way back to user mode.
 */
void perfctr_overflow_interrupt(void)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_overflow_interrupt);
	irq_work_queue(this_cpu_ptr(&vperfctr_pmi_work));
}

static enum hrtimer_restart vperfctr_itimer_fn(struct hrtimer *timer)
{
	struct vperfctr *perfctr = container_of(timer, struct vperfctr, itimer);

	/* Cancelled at every suspend: the owner is running here. */
	if (current->thread.perfctr == perfctr && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
	return HRTIMER_NORESTART;
}

/**
 * vperfctr_count_events - count software events of the owner
 * @perfctr: the owner's state, interrupts off
 * @events: bit mask of PERFCTR_SW_* events that happened
 * @mode: PERFCTR_SW_USR or PERFCTR_SW_OS, for the fault events
 * @n: how many
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_count_events(struct vperfctr *perfctr, u32 events, u32 mode,
			  u64 n)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u32 ovf = 0;

	if (!(perfctr->sw_events & events))
		return 0;
	vperfctr_write_begin(kstate);
	for (i = 0; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];
		u32 event = pmc->map & ~PERFCTR_MAP_SOFTWARE;
		u64 evntsel = perfctr->control.cpu_control.evntsel[i];

		if (!vperfctr_map_is_software(pmc->map) ||
		    event == PERFCTR_SW_TASK_CLOCK || !(events & BIT(event)))
			continue;
		if (evntsel && !(evntsel & mode))
			continue;
		pmc->sum += n;
		if (vperfctr_is_imode(cstatus, i) &&
		    vperfctr_icount_add(perfctr, i, n))
			ovf |= BIT(i);
	}
	vperfctr_write_end(kstate);
	return ovf;
}

/*
 * Stop the counters for good, keeping the sums, and end user-mode reads
 * of the hardware counters.  Interrupts off.
 */
static void vperfctr_stop(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	bool user_read = kstate->flags & VPERFCTR_STATE_RDPMC;

	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	vperfctr_write_begin(kstate);
	kstate->cpu_state.cstatus = 0;
	kstate->flags &= ~(VPERFCTR_STATE_OVERFLOW | VPERFCTR_STATE_RDPMC);
	vperfctr_write_end(kstate);
	if (user_read && current->thread.perfctr == perfctr)
		arch_perfctr_user_read(false);
	perfctr->iresume_cstatus = 0;
	WRITE_ONCE(perfctr->pending_ovf, 0);
}

/**
 * vperfctr_get_sums - copy the counter sums
 * @perfctr: the state, suspended or just sampled
 * @sum: where to put them
 */
void vperfctr_get_sums(const struct vperfctr *perfctr,
		       struct perfctr_sum_ctrs *sum)
{
	const struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
	unsigned int i;

	sum->tsc = state->tsc_sum;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		sum->pmc[i] = state->pmc[i].sum;
}

static u32 vperfctr_cstatus(const struct perfctr_cpu_control *cc)
{
	return (cc->tsc_on ? PERFCTR_CSTATUS_TSC_ON : 0) |
	       (cc->nrictrs << 16) | cc->nractrs;
}

static bool vperfctr_sw_is_fault(u32 event)
{
	return event == PERFCTR_SW_PAGE_FAULTS ||
	       event == PERFCTR_SW_MINOR_FAULTS ||
	       event == PERFCTR_SW_MAJOR_FAULTS;
}

/* A software counter: a known event, its mode bits, its reset value. */
static int vperfctr_check_software(const struct perfctr_cpu_control *cc,
				   unsigned int i, bool allow_kernel)
{
	u32 event = cc->pmc_map[i] & ~PERFCTR_MAP_SOFTWARE;
	u64 evntsel = cc->evntsel[i];
	bool imode = i >= cc->nractrs;

	if (event < 1 || event > PERFCTR_SW_MAX)
		return -EINVAL;
	if (event == PERFCTR_SW_TASK_CLOCK && !vperfctr_time_mult)
		return -EINVAL;
	if (vperfctr_sw_is_fault(event)) {
		if (!evntsel ||
		    (evntsel & ~(u64)(PERFCTR_SW_USR | PERFCTR_SW_OS)))
			return -EINVAL;
	} else if (evntsel) {
		return -EINVAL;
	}
	/* vperfctr_check_control() has checked the a-mode counters' ireset. */
	if (imode && cc->ireset[i] >= 0)
		return -EINVAL;
	if ((evntsel & PERFCTR_SW_OS) && !allow_kernel)
		return -EACCES;
	return 0;
}

/*
 * A hardware counter: one the driver accepts, not used twice, within the
 * machine's count, and in interrupt mode preset within its width.
 */
static int vperfctr_check_hardware(const struct perfctr_cpu_control *cc,
				   unsigned int i, unsigned int nrhw,
				   bool allow_kernel)
{
	const struct perfctr_pmu *pmu = arch_perfctr_pmu();
	u32 map = cc->pmc_map[i];
	s64 ireset = cc->ireset[i];
	unsigned int j;
	u32 width;
	int err;

	if (nrhw > pmu->nrctrs + pmu->nrfixed)
		return -EINVAL;
	err = arch_perfctr_check_counter(map, cc->evntsel[i], ireset,
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
		width = arch_perfctr_counter_width(map);
		if (ireset >= 0 ||
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
	return eacces;
}

/* The sampling timer: at 8 events per cycle, sample at half the wrap. */
#define VPERFCTR_MAX_EVENTS_PER_CYCLE	8
#define VPERFCTR_MAX_SAMPLE_TICKS	(3600 * HZ)

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

/* Reload the interrupt-mode counters from their reset values. */
static void vperfctr_load_ireset(struct vperfctr *perfctr)
{
	const struct perfctr_cpu_control *cc = &perfctr->control.cpu_control;
	struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;

	for (i = cc->nractrs; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (vperfctr_map_is_software(pmc->map))
			perfctr->icount[i] = cc->ireset[i];
		else
			pmc->start = (u64)cc->ireset[i] &
				     vperfctr_width_mask(pmc->width);
	}
}

/**
 * vperfctr_set_control - install a checked control in a suspended state
 * @perfctr: the state, its counters not running
 * @control: the new control, checked by vperfctr_check_control()
 *
 * The sums restart from zero, except those of the counters whose bit is
 * set in control->preserve.  The TSC sum restarts only when the new control
 * turns the TSC off: a TSC left on keeps accumulating.
 */
void vperfctr_set_control(struct vperfctr *perfctr,
			  const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cc = &control->cpu_control;
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;
	u32 min_width = 64;

	perfctr->control = *control;
	perfctr->nrhw = 0;
	perfctr->sw_events = 0;
	perfctr->iresume_cstatus = 0;
	WRITE_ONCE(perfctr->pending_ovf, 0);
	memset(perfctr->icount, 0, sizeof(perfctr->icount));

	vperfctr_write_begin(kstate);
	state->cstatus = vperfctr_cstatus(cc);
	kstate->flags &= ~VPERFCTR_STATE_OVERFLOW;
	if (!cc->tsc_on)
		state->tsc_sum = 0;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];
		u32 map = i < nrctrs ? cc->pmc_map[i] : 0;

		if (!(control->preserve & BIT(i)))
			pmc->sum = 0;
		pmc->map = map;
		pmc->start = 0;
		pmc->width = 0;
		if (i >= nrctrs)
			continue;
		if (vperfctr_map_is_software(map)) {
			pmc->width = 64;
			perfctr->sw_events |= BIT(map & ~PERFCTR_MAP_SOFTWARE);
		} else {
			pmc->width = arch_perfctr_counter_width(map);
			min_width = min(min_width, pmc->width);
			perfctr->nrhw++;
		}
	}
	vperfctr_load_ireset(perfctr);
	if (perfctr->nrhw && arch_perfctr_has_user_read())
		kstate->flags |= VPERFCTR_STATE_RDPMC;
	else
		kstate->flags &= ~VPERFCTR_STATE_RDPMC;
	vperfctr_write_end(kstate);
	perfctr->sample_ticks = perfctr->nrhw ?
		vperfctr_sample_interval(min_width, arch_perfctr_pmu()->cpu_khz) : 0;
	perfctr->ticks_left = perfctr->sample_ticks;
}

/* An interrupt-mode overflow stopped the counters and awaits a restart. */
static bool vperfctr_ireload_pending(const struct vperfctr *perfctr)
{
	return (perfctr->kstate->flags & VPERFCTR_STATE_OVERFLOW) &&
	       perfctr->control.cpu_control.nrictrs;
}

/**
 * vperfctr_ireload - restart the counters after an overflow
 * @perfctr: the state, its counters suspended
 *
 * A signal still to be sent for the overflow is sent all the same: every
 * overflow gets its signal, even one restarted before it arrived.
 *
 * Return: 0, or -EINVAL if no interrupt-mode overflow awaits a restart.
 */
int vperfctr_ireload(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;

	if (!vperfctr_ireload_pending(perfctr))
		return -EINVAL;
	vperfctr_write_begin(kstate);
	kstate->cpu_state.cstatus = perfctr->iresume_cstatus;
	kstate->flags &= ~VPERFCTR_STATE_OVERFLOW;
	vperfctr_load_ireset(perfctr);
	vperfctr_write_end(kstate);
	return 0;
}

/* The thread hooks. */

/*
 * Interrupts are off: this is __switch_to().  User-mode reads of the
 * counters follow the thread, not its counters' state: they stay allowed
 * while an overflow has the counters stopped, so a reader that saw them
 * running a moment ago never faults.
 */
void __perfctr_suspend_thread(struct vperfctr *perfctr)
{
	u32 ovf;

	if (perfctr->kstate->flags & VPERFCTR_STATE_RDPMC)
		arch_perfctr_user_read(false);
	if (!vperfctr_is_oncpu(perfctr))
		return;
	ovf = vperfctr_suspend(perfctr);
	ovf |= vperfctr_count_events(perfctr, BIT(PERFCTR_SW_CONTEXT_SWITCHES),
				     0, 1);
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
}

/*
 * Resuming on a forbidden CPU stops the counters, and user-mode reads of
 * them: the hardware there cannot count what the control asks for.
 */
static bool vperfctr_on_forbidden_cpu(struct vperfctr *perfctr, int cpu)
{
	struct vperfctr_state *kstate = perfctr->kstate;

	if (!READ_ONCE(perfctr->bad_cpus_allowed) || !perfctr->nrhw ||
	    !cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask))
		return false;
	if (kstate->flags & VPERFCTR_STATE_RDPMC)
		arch_perfctr_user_read(false);
	vperfctr_write_begin(kstate);
	kstate->cpu_state.cstatus = 0;
	kstate->flags &= ~VPERFCTR_STATE_RDPMC;
	vperfctr_write_end(kstate);
	WRITE_ONCE(perfctr->pending_sigill, true);
	vperfctr_notify_owner(perfctr);
	return true;
}

void __perfctr_resume_thread(struct vperfctr *perfctr)
{
	int cpu = smp_processor_id();
	u32 ovf = 0;

	if (perfctr->kstate->flags & VPERFCTR_STATE_RDPMC)
		arch_perfctr_user_read(true);
	if (!perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
		return;
	if (vperfctr_on_forbidden_cpu(perfctr, cpu))
		return;
	if (perfctr->last_cpu != cpu) {
		if (perfctr->last_cpu >= 0)
			ovf = vperfctr_count_events(perfctr,
						    BIT(PERFCTR_SW_CPU_MIGRATIONS),
						    0, 1);
		perfctr->last_cpu = cpu;
	}
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
	if (perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
		vperfctr_resume(perfctr);
}

/* The timer tick, interrupts off: sample before a counter can wrap. */
void __perfctr_sample_thread(struct vperfctr *perfctr)
{
	if (!perfctr->sample_ticks || !vperfctr_is_oncpu(perfctr))
		return;
	if (--perfctr->ticks_left == 0)
		vperfctr_sample(perfctr);
}

/*
 * Under the runqueue lock: no task_lock() here (it nests outside), so the
 * state is freed only after an RCU grace period, and this runs with
 * interrupts off, inside one.
 */
void __perfctr_set_cpus_allowed(struct vperfctr *perfctr,
				const struct cpumask *new_mask)
{
	WRITE_ONCE(perfctr->bad_cpus_allowed,
		   cpumask_intersects(new_mask, &perfctr_cpus_forbidden_mask));
}

void __perfctr_account_fault(struct vperfctr *perfctr,
			     struct pt_regs *regs, bool major)
{
	u32 events = BIT(PERFCTR_SW_PAGE_FAULTS) |
		     BIT(major ? PERFCTR_SW_MAJOR_FAULTS :
				 PERFCTR_SW_MINOR_FAULTS);
	u32 mode = regs && user_mode(regs) ? PERFCTR_SW_USR : PERFCTR_SW_OS;
	unsigned long flags;
	u32 ovf;

	local_irq_save(flags);
	ovf = vperfctr_count_events(perfctr, events, mode, 1);
	if (ovf && vperfctr_is_oncpu(perfctr))
		vperfctr_sample_checked(perfctr, ovf);
	else if (ovf)
		vperfctr_overflow(perfctr, ovf);
	local_irq_restore(flags);
}

/* On the way back to user mode: send what the hooks above could not. */
void __perfctr_notify_resume(struct vperfctr *perfctr)
{
	u32 ovf = xchg(&perfctr->pending_ovf, 0);
	int signo = READ_ONCE(perfctr->control.si_signo);

	if (xchg(&perfctr->pending_sigill, false))
		send_sig(SIGILL, current, 1);
	if (ovf && signo) {
		struct kernel_siginfo info;

		clear_siginfo(&info);
		info.si_signo = signo;
		info.si_code = SI_PMC_OVF;
		info.si_pmc_ovf_mask = ovf;
		send_sig_info(signo, &info, current);
	}
}

/* The state, detached from its owner, lives on while files hold it. */
static void vperfctr_detach(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;

	RCU_INIT_POINTER(perfctr->owner, NULL);
	vperfctr_write_begin(kstate);
	kstate->flags |= VPERFCTR_STATE_DETACHED;
	vperfctr_write_end(kstate);
	vperfctr_put(perfctr);
}

/*
 * Take @perfctr off @tsk, unless someone else already did.  Whoever
 * clears the pointer under task_lock() drops the thread's reference, so
 * unlink and release never both do.
 */
static bool vperfctr_unlink_task(struct task_struct *tsk,
				 struct vperfctr *perfctr)
{
	bool detach;

	task_lock(tsk);
	detach = tsk->thread.perfctr == perfctr;
	if (detach)
		WRITE_ONCE(tsk->thread.perfctr, NULL);
	task_unlock(tsk);
	return detach;
}

/*
 * Stop @perfctr, attached to @tsk (current or frozen), and detach it.  Its
 * children stop propagating into it, and it propagates nothing.
 */
static void vperfctr_unlink(struct task_struct *tsk, struct vperfctr *perfctr)
{
	unsigned long flags;

	local_irq_save(flags);
	vperfctr_stop(perfctr);
	local_irq_restore(flags);
	vperfctr_new_generation(perfctr, false);
	if (vperfctr_unlink_task(tsk, perfctr))
		vperfctr_detach(perfctr);
}

/*
 * Counters stop here, in the owner itself.  It is also called for a child
 * whose fork failed after perfctr_copy_task(): that child never ran and is
 * never reaped, so its state is freed here and propagates nothing.
 */
void __perfctr_exit_thread(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr;
	unsigned long flags;

	if (tsk != current) {
		tsk->thread.perfctr = NULL;
		vperfctr_detach(perfctr);
		return;
	}
	local_irq_save(flags);
	vperfctr_stop(perfctr);
	vperfctr_write_begin(perfctr->kstate);
	perfctr->kstate->flags |= VPERFCTR_STATE_DEAD;
	vperfctr_write_end(perfctr->kstate);
	local_irq_restore(flags);
}

/*
 * A child inherits a state only from a thread whose counters are on, and
 * kernel threads and user workers (args->fn) never do.
 */
int __perfctr_copy_task(struct task_struct *child,
			const struct kernel_clone_args *args)
{
	struct vperfctr *parent = current->thread.perfctr;
	const struct perfctr_cpu_control *cc = &parent->control.cpu_control;
	struct vperfctr *perfctr;

	if (args->fn || (!cc->tsc_on && !cc->nractrs && !cc->nrictrs))
		return 0;
	perfctr = vperfctr_inherit(parent);
	if (!perfctr)
		return -ENOMEM;
	RCU_INIT_POINTER(perfctr->owner, child);
	child->thread.perfctr = perfctr;
	return 0;
}

void __perfctr_release_task(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr;

	if (!vperfctr_unlink_task(tsk, perfctr))
		return;
	vperfctr_propagate(perfctr);
	vperfctr_detach(perfctr);
}

/* exec of a setuid program: what runs with privilege is not counted. */
void __perfctr_drop_thread(struct task_struct *tsk)
{
	vperfctr_unlink(tsk, tsk->thread.perfctr);
}

/* The vperfctrfs pseudo file system. */

static struct vfsmount *vperfctr_mnt __ro_after_init;
static const struct file_operations vperfctr_fops;

static char *vperfctrfs_dname(struct dentry *dentry, char *buffer, int buflen)
{
	return dynamic_dname(buffer, buflen, "vperfctrfs:[%lu]",
			     d_inode(dentry)->i_ino);
}

static const struct dentry_operations vperfctrfs_dentry_operations = {
	.d_dname	= vperfctrfs_dname,
};

static int vperfctrfs_init_fs_context(struct fs_context *fc)
{
	struct pseudo_fs_context *ctx = init_pseudo(fc, VPERFCTRFS_MAGIC);

	if (!ctx)
		return -ENOMEM;
	ctx->dops = &vperfctrfs_dentry_operations;
	return 0;
}

static struct file_system_type vperfctrfs_type = {
	.name		 = "vperfctrfs",
	.init_fs_context = vperfctrfs_init_fs_context,
	.kill_sb	 = kill_anon_super,
};

static struct task_struct *vperfctr_get_owner(struct vperfctr *perfctr)
{
	struct task_struct *tsk;

	rcu_read_lock();
	tsk = rcu_dereference(perfctr->owner);
	if (tsk)
		get_task_struct(tsk);
	rcu_read_unlock();
	return tsk;
}

/*
 * A thread may act on its own counters, and on those of a thread stopped
 * under its ptrace control.  ptrace_check_attach() freezes that thread:
 * not even SIGKILL lets it run, and change its state, until it is thawed.
 */
static int vperfctr_freeze_owner(struct task_struct *tsk)
{
	if (tsk == current)
		return 0;
	return ptrace_check_attach(tsk, false) ? -EPERM : 0;
}

static void vperfctr_thaw_owner(struct task_struct *tsk)
{
	if (tsk != current)
		ptrace_unfreeze_traced(tsk);
}

/* Counting kernel mode needs what perf_event_open() asks for it. */
static bool vperfctr_allow_kernel(void)
{
	if (IS_ENABLED(CONFIG_PERF_EVENTS) &&
	    READ_ONCE(sysctl_perf_event_paranoid) < 2)
		return true;
	return perfmon_capable();
}

static int vperfctr_release(struct inode *inode, struct file *file)
{
	vperfctr_put(file->private_data);
	return 0;
}

/* One page, read-only, at offset 0: the struct vperfctr_state. */
static int vperfctr_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vperfctr *perfctr = file->private_data;

	if (vma->vm_pgoff != 0 || vma_pages(vma) != 1)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
	return vm_insert_page(vma, vma->vm_start,
			      virt_to_page(perfctr->kstate));
}

static const char *vperfctr_state_name(u32 flags, u32 cstatus)
{
	if (flags & VPERFCTR_STATE_DETACHED)
		return "detached";
	if (flags & VPERFCTR_STATE_DEAD)
		return "dead";
	if (flags & VPERFCTR_STATE_OVERFLOW)
		return "overflow";
	return perfctr_cstatus_enabled(cstatus) ? "running" : "stopped";
}

/* A snapshot: the owner may change the state while this is printed. */
static void vperfctr_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct vperfctr *perfctr = file->private_data;
	struct vperfctr_state *kstate = perfctr->kstate;
	struct task_struct *tsk = vperfctr_get_owner(perfctr);
	u32 flags = READ_ONCE(kstate->flags);
	u32 cstatus = READ_ONCE(kstate->cpu_state.cstatus);
	const struct perfctr_cpu_control *cc = &perfctr->control.cpu_control;
	unsigned int i, nractrs = READ_ONCE(cc->nractrs);
	unsigned int nrctrs = min(nractrs + READ_ONCE(cc->nrictrs),
				  PERFCTR_MAX_NRCTRS);
	pid_t owner = 0;

	if (tsk) {
		owner = task_pid_nr_ns(tsk,
				       proc_pid_ns(file_inode(m->file)->i_sb));
		put_task_struct(tsk);
	}
	seq_printf(m, "vperfctr-owner:\t%d\n", owner);
	seq_printf(m, "vperfctr-state:\t%s\n",
		   vperfctr_state_name(flags, cstatus));
	seq_printf(m, "vperfctr-cstatus:\t%#x\n", cstatus);
	seq_printf(m, "vperfctr-flags:\t%#x\n", flags);
	seq_printf(m, "vperfctr-tsc:\t%s\n",
		   READ_ONCE(cc->tsc_on) ? "on" : "off");
	seq_printf(m, "vperfctr-counters:\t%u\n", nrctrs);
	for (i = 0; i < nrctrs; i++)
		seq_printf(m, "vperfctr-counter%u:\tmap=%#x evntsel=%#llx mode=%c\n",
			   i, READ_ONCE(cc->pmc_map[i]),
			   (unsigned long long)READ_ONCE(cc->evntsel[i]),
			   i < nractrs ? 'a' : 'i');
}

static const struct file_operations vperfctr_fops = {
	.release	= vperfctr_release,
	.mmap		= vperfctr_mmap,
	.show_fdinfo	= vperfctr_show_fdinfo,
	.llseek		= noop_llseek,
};

/* The state behind a descriptor: EBADF if none is open, EINVAL if not ours. */
static struct vperfctr *vperfctr_of(struct fd f)
{
	if (fd_empty(f))
		return ERR_PTR(-EBADF);
	if (fd_file(f)->f_op != &vperfctr_fops)
		return ERR_PTR(-EINVAL);
	return fd_file(f)->private_data;
}

/*
 * A file on vperfctrfs, not yet on any state: the caller sets its
 * private_data, or drops it with fput(), whose release then puts nothing.
 */
static struct file *vperfctr_new_file(void)
{
	struct inode *inode;
	struct file *file;

	inode = alloc_anon_inode(vperfctr_mnt->mnt_sb);
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	file = alloc_file_pseudo(inode, vperfctr_mnt, "", O_RDONLY,
				 &vperfctr_fops);
	if (IS_ERR(file))
		iput(inode);
	return file;
}

/*
 * A thread is exiting from its PTRACE_EVENT_EXIT stop on, though
 * PF_EXITING is set only after that stop.  Which stop a tracee frozen by
 * the caller is in, the siginfo of that stop says, stable while frozen.
 */
static bool vperfctr_task_exiting(struct task_struct *tsk)
{
	unsigned long flags;
	bool exiting = tsk->flags & PF_EXITING;

	if (!exiting && tsk != current && lock_task_sighand(tsk, &flags)) {
		exiting = tsk->last_siginfo &&
			  tsk->last_siginfo->si_code ==
			  (SIGTRAP | (PTRACE_EVENT_EXIT << 8));
		unlock_task_sighand(tsk, &flags);
	}
	return exiting;
}

/*
 * Attach @fresh to @tsk if @tsk has no state, or find the state it has.
 * @tsk is current or frozen: whether it is exiting cannot change.
 * Return: the state with a new reference for the caller, or ERR_PTR().
 */
static struct vperfctr *vperfctr_find_or_attach(struct task_struct *tsk,
						struct vperfctr *fresh)
{
	bool exiting = fresh && vperfctr_task_exiting(tsk);
	struct vperfctr *perfctr;

	task_lock(tsk);
	perfctr = tsk->thread.perfctr;
	if (perfctr && fresh) {
		perfctr = ERR_PTR(-EEXIST);
	} else if (!perfctr && !fresh) {
		perfctr = ERR_PTR(-ENOENT);
	} else if (!perfctr && exiting) {
		perfctr = ERR_PTR(-ESRCH);
	} else {
		if (!perfctr) {
			rcu_assign_pointer(fresh->owner, tsk);
			tsk->thread.perfctr = fresh;
			perfctr = fresh;
		}
		vperfctr_get(perfctr);
	}
	task_unlock(tsk);
	return perfctr;
}

/*
 * A descriptor for @tsk's state, attaching @fresh if it has none.
 * Everything that can fail is done before the state is attached, so a
 * call that fails leaves the thread as it found it.  Consumes the
 * caller's reference to @fresh: once attached, it is the thread's.
 */
static int vperfctr_open_task(struct task_struct *tsk, struct vperfctr *fresh)
{
	struct vperfctr *perfctr;
	struct file *file;
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		vperfctr_put(fresh);
		return fd;
	}
	file = vperfctr_new_file();
	if (IS_ERR(file)) {
		perfctr = ERR_CAST(file);
	} else {
		ret = vperfctr_freeze_owner(tsk);
		perfctr = ret ? ERR_PTR(ret) :
				vperfctr_find_or_attach(tsk, fresh);
		if (!ret)
			vperfctr_thaw_owner(tsk);
	}
	if (perfctr != fresh)
		vperfctr_put(fresh);
	if (IS_ERR(perfctr)) {
		if (!IS_ERR(file))
			fput(file);
		put_unused_fd(fd);
		return PTR_ERR(perfctr);
	}
	file->private_data = perfctr;
	fd_install(fd, file);
	return fd;
}

SYSCALL_DEFINE2(vperfctr_open, int, tid, int, creat)
{
	struct vperfctr *fresh = NULL;
	struct task_struct *tsk;
	int ret;

	if (tid < 0)
		return -EINVAL;
	if (tid) {
		tsk = find_get_task_by_vpid(tid);
		if (!tsk)
			return -ESRCH;
	} else {
		tsk = get_task_struct(current);
	}
	if (creat) {
		fresh = vperfctr_alloc();
		if (!fresh) {
			put_task_struct(tsk);
			return -ENOMEM;
		}
	}
	ret = vperfctr_open_task(tsk, fresh);
	put_task_struct(tsk);
	return ret;
}

/* Hardware counters: keep the owner off the CPUs that cannot count. */
static int vperfctr_restrict_cpus(struct task_struct *tsk)
{
	cpumask_var_t allowed;
	int ret = -EINVAL;

	if (!cpumask_intersects(&tsk->cpus_mask, &perfctr_cpus_forbidden_mask))
		return 0;
	if (!alloc_cpumask_var(&allowed, GFP_KERNEL))
		return -ENOMEM;
	if (cpumask_andnot(allowed, &tsk->cpus_mask,
			   &perfctr_cpus_forbidden_mask))
		ret = set_cpus_allowed_ptr(tsk, allowed);
	free_cpumask_var(allowed);
	return ret;
}

static bool vperfctr_control_has_hw(const struct perfctr_cpu_control *cc)
{
	unsigned int i;

	for (i = 0; i < cc->nractrs + cc->nrictrs; i++)
		if (!vperfctr_map_is_software(cc->pmc_map[i]))
			return true;
	return false;
}

SYSCALL_DEFINE2(vperfctr_control, int, fd,
		const struct vperfctr_control __user *, argp)
{
	bool want_hw, release_hw = false, user_read;
	struct vperfctr_control control;
	struct task_struct *tsk;
	struct vperfctr *perfctr;
	unsigned long flags;
	int ret;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	if (copy_from_user(&control, argp, sizeof(control)))
		return -EFAULT;
	ret = vperfctr_check_control(&control, vperfctr_allow_kernel());
	if (ret)
		return ret;
	tsk = vperfctr_get_owner(perfctr);
	if (!tsk)
		return -ESRCH;
	ret = vperfctr_freeze_owner(tsk);
	if (ret)
		goto out;
	want_hw = vperfctr_control_has_hw(&control.cpu_control);
	if (want_hw) {
		/* Affinity is changed only for a control that is set. */
		if (!perfctr->hw_reserved) {
			ret = arch_perfctr_reserve();
			if (ret)
				goto thaw;
		}
		ret = vperfctr_restrict_cpus(tsk);
		if (ret) {
			if (!perfctr->hw_reserved)
				arch_perfctr_release();
			goto thaw;
		}
	} else if (perfctr->hw_reserved) {
		release_hw = true;
	}
	vperfctr_new_generation(perfctr, true);
	/* For another thread, the counters are suspended already. */
	local_irq_save(flags);
	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	user_read = perfctr->kstate->flags & VPERFCTR_STATE_RDPMC;
	vperfctr_set_control(perfctr, &control);
	if (tsk == current) {
		if (user_read || perfctr->kstate->flags & VPERFCTR_STATE_RDPMC)
			arch_perfctr_user_read(perfctr->kstate->flags &
					      VPERFCTR_STATE_RDPMC);
		if (perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus)) {
			perfctr->last_cpu = smp_processor_id();
			vperfctr_resume(perfctr);
		}
	}
	local_irq_restore(flags);
	perfctr->hw_reserved = want_hw;
	if (release_hw)
		arch_perfctr_release();
thaw:
	vperfctr_thaw_owner(tsk);
out:
	put_task_struct(tsk);
	return ret;
}

SYSCALL_DEFINE1(vperfctr_unlink, int, fd)
{
	struct task_struct *tsk;
	struct vperfctr *perfctr;
	int ret;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	tsk = vperfctr_get_owner(perfctr);
	if (!tsk)
		return 0;
	ret = vperfctr_freeze_owner(tsk);
	if (!ret) {
		vperfctr_unlink(tsk, perfctr);
		vperfctr_thaw_owner(tsk);
	}
	put_task_struct(tsk);
	return ret;
}

/*
 * What vperfctr_read() copies out besides the sums, too big for the
 * stack, and allocated only when asked for.
 */
struct vperfctr_read_extra {
	struct perfctr_sum_ctrs children;
	struct vperfctr_control control;
};

SYSCALL_DEFINE4(vperfctr_read, int, fd,
		struct perfctr_sum_ctrs __user *, sump,
		struct vperfctr_control __user *, controlp,
		struct perfctr_sum_ctrs __user *, childrenp)
{
	struct vperfctr_read_extra *extra = NULL;
	struct perfctr_sum_ctrs sum;
	struct task_struct *tsk;
	struct vperfctr *perfctr;
	unsigned long flags;
	int ret = 0;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	if (controlp || childrenp) {
		extra = kmalloc(sizeof(*extra), GFP_KERNEL);
		if (!extra)
			return -ENOMEM;
	}
	tsk = vperfctr_get_owner(perfctr);
	if (tsk) {
		ret = vperfctr_freeze_owner(tsk);
		if (ret)
			goto out;
	}

	local_irq_save(flags);
	if (tsk == current && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
	vperfctr_get_sums(perfctr, &sum);
	if (extra)
		extra->control = perfctr->control;
	local_irq_restore(flags);
	if (extra) {
		spin_lock(&perfctr->children_lock);
		extra->children = perfctr->children;
		spin_unlock(&perfctr->children_lock);
	}
	if (tsk)
		vperfctr_thaw_owner(tsk);

	if ((sump && copy_to_user(sump, &sum, sizeof(sum))) ||
	    (controlp &&
	     copy_to_user(controlp, &extra->control, sizeof(extra->control))) ||
	    (childrenp &&
	     copy_to_user(childrenp, &extra->children,
			  sizeof(extra->children))))
		ret = -EFAULT;
out:
	kfree(extra);
	if (tsk)
		put_task_struct(tsk);
	return ret;
}

SYSCALL_DEFINE1(vperfctr_iresume, int, fd)
{
	struct task_struct *tsk;
	struct vperfctr *perfctr;
	unsigned long flags;
	int ret;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	tsk = vperfctr_get_owner(perfctr);
	if (!tsk)
		return -ESRCH;
	ret = vperfctr_freeze_owner(tsk);
	if (ret)
		goto out;
	/*
	 * With no overflow awaiting its restart nothing is touched: counters
	 * still running keep running, and their next overflow is found and
	 * signalled like any other.  With one, only the TSC runs, so the
	 * suspend finds no overflow to lose.
	 */
	ret = -EINVAL;
	local_irq_save(flags);
	if (vperfctr_ireload_pending(perfctr)) {
		if (vperfctr_is_oncpu(perfctr))
			vperfctr_suspend(perfctr);
		ret = vperfctr_ireload(perfctr);
		if (tsk == current &&
		    perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
			vperfctr_resume(perfctr);
	}
	local_irq_restore(flags);
	vperfctr_thaw_owner(tsk);
out:
	put_task_struct(tsk);
	return ret;
}

/*
 * Registered, though it cannot be mounted from user space (SB_NOUSER), so
 * that /proc/filesystems tells user space this kernel has perfctr.
 */
static int __init vperfctrfs_init(void)
{
	int err;

	/* TSC ticks to ns, exact enough over 1000 s (10^6 ms) of ticks. */
	if (arch_perfctr_pmu()->tsc_khz)
		clocks_calc_mult_shift(&vperfctr_time_mult, &vperfctr_time_shift,
				       arch_perfctr_pmu()->tsc_khz, NSEC_PER_MSEC,
				       1000000);
	err = register_filesystem(&vperfctrfs_type);

	if (err)
		panic("vperfctrfs: cannot register: %d\n", err);
	vperfctr_mnt = kern_mount(&vperfctrfs_type);
	if (IS_ERR(vperfctr_mnt))
		panic("vperfctrfs: kernel mount failed\n");
	return 0;
}
fs_initcall(vperfctrfs_init);
