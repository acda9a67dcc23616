// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: the five system calls.  Each
 * finds the state behind a descriptor, and acts on it while its owner is
 * the caller or is frozen under the caller's ptrace control.
 */
#include <linux/cleanup.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/irqflags.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

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

/*
 * The owner of a state, frozen for the caller, NULL if the state has
 * none, or ERR_PTR(-EPERM) if the caller may not act on it; thawed and
 * put when it goes out of scope.
 */
static struct task_struct *vperfctr_owner_freeze(struct vperfctr *perfctr)
{
	struct task_struct *tsk = vperfctr_get_owner(perfctr);

	if (tsk && vperfctr_freeze_owner(tsk)) {
		put_task_struct(tsk);
		return ERR_PTR(-EPERM);
	}
	return tsk;
}

static void vperfctr_owner_thaw(struct task_struct *tsk)
{
	if (IS_ERR_OR_NULL(tsk))
		return;
	vperfctr_thaw_owner(tsk);
	put_task_struct(tsk);
}

DEFINE_CLASS(vperfctr_owner, struct task_struct *, vperfctr_owner_thaw(_T),
	     vperfctr_owner_freeze(perfctr), struct vperfctr *perfctr)

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

/**
 * sys_vperfctr_open - open a thread's counter state
 * @tid: the thread, by its ID; 0 for the calling thread
 * @creat: nonzero to create the state, which the thread must not have
 *
 * Another thread's state opens only while that thread is stopped under
 * the caller's ptrace control.
 *
 * Context: Process context; may sleep.
 *
 * Return: a new file descriptor on vperfctrfs, whose file maps the state
 * page read-only; -EINVAL if @tid is negative; -ESRCH if no thread has
 * that ID, or @creat is set and it is exiting; -EEXIST if @creat is set
 * and it has a state; -ENOENT if @creat is clear and it has none;
 * -EPERM for another thread not so stopped; -ENOMEM, -EMFILE, -ENFILE.
 */
SYSCALL_DEFINE2(vperfctr_open, int, tid, int, creat)
{
	struct task_struct *tsk __free(put_task) = NULL;
	struct vperfctr *fresh = NULL;

	if (tid < 0)
		return -EINVAL;
	tsk = tid ? find_get_task_by_vpid(tid) : get_task_struct(current);
	if (!tsk)
		return -ESRCH;
	if (creat) {
		fresh = vperfctr_alloc();
		if (!fresh)
			return -ENOMEM;
	}
	return vperfctr_open_task(tsk, fresh);
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

/*
 * Install @control in @perfctr, whose owner @tsk is the caller or frozen.
 * The counter hardware is reserved, and the owner kept off the CPUs that
 * cannot count, before anything changes: a call that fails changes
 * nothing.
 */
static int vperfctr_install(struct vperfctr *perfctr, struct task_struct *tsk,
			    const struct vperfctr_control *control)
{
	struct vperfctr_setup *setup __free(kfree) =
		kmalloc(sizeof(*setup), GFP_KERNEL);
	bool want_hw, user_read, restart;
	unsigned long flags;
	int ret;

	if (!setup)
		return -ENOMEM;
	vperfctr_setup_control(&control->cpu_control, setup);
	want_hw = setup->nrhw;
	if (want_hw) {
		/* Affinity is changed only for a control that is set. */
		if (!perfctr->hw_reserved) {
			ret = perfctr_driver(reserve)();
			if (ret)
				return ret;
		}
		ret = vperfctr_restrict_cpus(tsk);
		if (ret) {
			if (!perfctr->hw_reserved)
				perfctr_driver(release)();
			return ret;
		}
	}
	/* For another thread, the counters are suspended already. */
	local_irq_save(flags);
	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	user_read = perfctr->userpg->flags & VPERFCTR_STATE_RDPMC;
	vperfctr_set_control(perfctr, control, setup);
	restart = perfctr_cstatus_enabled(perfctr->userpg->cpu_state.cstatus);
	if (tsk == current) {
		if (user_read || perfctr->userpg->flags & VPERFCTR_STATE_RDPMC)
			perfctr_driver(user_read)(perfctr->userpg->flags &
					       VPERFCTR_STATE_RDPMC);
		if (restart) {
			perfctr->last_cpu = smp_processor_id();
			vperfctr_resume(perfctr);
		}
	}
	local_irq_restore(flags);
	/*
	 * A control that enables nothing keeps every sum, the children's
	 * too, and the children it had still propagate into them.
	 */
	if (restart)
		vperfctr_new_generation(perfctr, true);
	if (want_hw)
		perfctr->hw_reserved = true;
	else
		vperfctr_release_hw(perfctr);
	return 0;
}

/**
 * sys_vperfctr_control - set the control of a counter state
 * @fd: a descriptor from vperfctr_open()
 * @argp: the control: counters, events, modes, overflow signal
 *
 * The counters restart from the new control, their sums kept only where
 * its preserve mask says.  A control with hardware counters takes them
 * from perf, or finds them taken.  The thread of an attached state must
 * be the caller, or stopped under its ptrace control.
 *
 * Context: Process context; may sleep.
 *
 * Return: 0; -EBADF or -EINVAL for a descriptor that is not a state's;
 * -EFAULT; -EINVAL for an invalid control, or hardware events no CPU of
 * the thread's affinity can count; -EACCES for kernel-mode counting
 * perf_event_paranoid forbids the caller; -EBUSY if perf holds the
 * counter hardware, the state left as it was; -EPERM; -ESRCH for a
 * detached state; -ENOMEM.
 */
SYSCALL_DEFINE2(vperfctr_control, int, fd,
		const struct vperfctr_control __user *, argp)
{
	struct vperfctr_control control;
	struct vperfctr *perfctr;
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
	CLASS(vperfctr_owner, tsk)(perfctr);
	if (IS_ERR_OR_NULL(tsk))
		return tsk ? PTR_ERR(tsk) : -ESRCH;
	return vperfctr_install(perfctr, tsk, &control);
}

/**
 * sys_vperfctr_unlink - detach a counter state from its thread
 * @fd: a descriptor from vperfctr_open()
 *
 * The thread stops counting and no longer has a state; the state keeps
 * its final counts for every descriptor still open on it.  Detaching a
 * detached state does nothing.
 *
 * Context: Process context; may sleep.
 *
 * Return: 0; -EBADF or -EINVAL for a descriptor that is not a state's;
 * -EPERM if the thread is another, not stopped under the caller's ptrace
 * control.
 */
SYSCALL_DEFINE1(vperfctr_unlink, int, fd)
{
	struct vperfctr *perfctr;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	CLASS(vperfctr_owner, tsk)(perfctr);
	if (IS_ERR(tsk))
		return PTR_ERR(tsk);
	if (tsk)
		vperfctr_remove(tsk, perfctr);
	return 0;
}

/*
 * What vperfctr_read() copies out besides the sums, too big for the
 * stack, and allocated only when asked for.
 */
struct vperfctr_read_extra {
	struct perfctr_sum_ctrs children;
	struct vperfctr_control control;
};

/*
 * The owner's own read of its sums alone, the common case: no reference
 * on itself to take, and with no i-mode counter, whose overflow a sample
 * would find, the running counters are read where they are.
 */
static bool vperfctr_read_own_sums(struct vperfctr *perfctr,
				   struct perfctr_sum_ctrs *sum)
{
	unsigned long flags;
	bool done = false;

	if (rcu_access_pointer(perfctr->owner) != current)
		return false;
	local_irq_save(flags);
	if (!perfctr_cstatus_nrictrs(perfctr->userpg->cpu_state.cstatus)) {
		vperfctr_get_live_sums(perfctr, sum);
		done = true;
	}
	local_irq_restore(flags);
	return done;
}

/*
 * The sums, and @extra if asked for, with the owner frozen; the caller
 * copies them out once it is thawed.
 */
static int vperfctr_snapshot(struct vperfctr *perfctr,
			     struct perfctr_sum_ctrs *sum,
			     struct vperfctr_read_extra *extra)
{
	unsigned long flags;

	if (!extra && vperfctr_read_own_sums(perfctr, sum))
		return 0;

	CLASS(vperfctr_owner, tsk)(perfctr);
	if (IS_ERR(tsk))
		return PTR_ERR(tsk);
	local_irq_save(flags);
	if (tsk == current && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
	vperfctr_get_sums(perfctr, sum);
	if (extra)
		extra->control = perfctr->control;
	local_irq_restore(flags);
	if (extra) {
		spin_lock(&perfctr->children_lock);
		extra->children = perfctr->children;
		spin_unlock(&perfctr->children_lock);
	}
	return 0;
}

/**
 * sys_vperfctr_read - read a counter state's sums, control and children
 * @fd: a descriptor from vperfctr_open()
 * @sump: where the sums go, counted up to now, or NULL
 * @controlp: where the control goes, or NULL
 * @childrenp: where the children sums go, or NULL
 *
 * What the fast read of the state page gives without a system call,
 * and what it cannot: another thread's live hardware counters, the
 * control, the children sums.  The thread of an attached state must be
 * the caller, or stopped under its ptrace control.
 *
 * Context: Process context; may sleep.
 *
 * Return: 0; -EBADF or -EINVAL for a descriptor that is not a state's;
 * -EFAULT; -EPERM; -ENOMEM.
 */
SYSCALL_DEFINE4(vperfctr_read, int, fd,
		struct perfctr_sum_ctrs __user *, sump,
		struct vperfctr_control __user *, controlp,
		struct perfctr_sum_ctrs __user *, childrenp)
{
	struct vperfctr_read_extra *extra __free(kfree) = NULL;
	/* Every byte written by vperfctr_snapshot() before it is copied. */
	struct perfctr_sum_ctrs sum __uninitialized;
	struct vperfctr *perfctr;
	int ret;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	if (controlp || childrenp) {
		extra = kmalloc(sizeof(*extra), GFP_KERNEL);
		if (!extra)
			return -ENOMEM;
	}
	ret = vperfctr_snapshot(perfctr, &sum, extra);
	if (ret)
		return ret;
	if ((sump && copy_to_user(sump, &sum, sizeof(sum))) ||
	    (controlp &&
	     copy_to_user(controlp, &extra->control, sizeof(extra->control))) ||
	    (childrenp &&
	     copy_to_user(childrenp, &extra->children,
			  sizeof(extra->children))))
		return -EFAULT;
	return 0;
}

/**
 * sys_vperfctr_iresume - restart counters stopped by an overflow
 * @fd: a descriptor from vperfctr_open()
 *
 * The interrupt-mode counters are loaded with their reset values and
 * every counter of the control runs again, as after its last
 * vperfctr_control().  From the thread itself, typically in its overflow
 * signal's handler, or from its ptrace tracer.
 *
 * Context: Process context.
 *
 * Return: 0; -EBADF or -EINVAL for a descriptor that is not a state's;
 * -EINVAL if the control has no interrupt-mode counter or the counters
 * are not stopped by an overflow; -EPERM; -ESRCH for a detached state.
 */
SYSCALL_DEFINE1(vperfctr_iresume, int, fd)
{
	struct vperfctr *perfctr;
	unsigned long flags;
	int ret = -EINVAL;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	CLASS(vperfctr_owner, tsk)(perfctr);
	if (IS_ERR_OR_NULL(tsk))
		return tsk ? PTR_ERR(tsk) : -ESRCH;
	/*
	 * With no overflow awaiting its restart nothing is touched: counters
	 * still running keep running, and their next overflow is found and
	 * signalled like any other.  With one, only the TSC runs, so the
	 * suspend finds no overflow to lose.
	 */
	local_irq_save(flags);
	if (vperfctr_ireload_pending(perfctr)) {
		if (vperfctr_is_oncpu(perfctr))
			vperfctr_suspend(perfctr);
		ret = vperfctr_ireload(perfctr);
		if (tsk == current &&
		    perfctr_cstatus_enabled(perfctr->userpg->cpu_state.cstatus))
			vperfctr_resume(perfctr);
	}
	local_irq_restore(flags);
	return ret;
}
