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
 *   its ptrace control, hence off every CPU with its counters suspended.
 * - tsk->thread.perfctr changes under task_lock(tsk), and whoever clears it
 *   drops the thread's reference.  perfctr->owner is RCU protected: the
 *   owner's task_struct outlives a grace period after release_task().
 * - The page shared with user space is written inside a sequence count:
 *   odd while it changes.  Readers retry when it was odd or moved.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/proc_fs.h>
#include <linux/pseudo_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <asm/perfctr.h>

#include "internal.h"

static_assert(sizeof(struct vperfctr_state) <= PAGE_SIZE);

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
	perfctr->kstate->magic = VPERFCTR_STATE_MAGIC;
	perfctr->kstate->abi_version = PERFCTR_ABI_VERSION;
	return perfctr;
}

static void vperfctr_get(struct vperfctr *perfctr)
{
	refcount_inc(&perfctr->refcount);
}

/**
 * vperfctr_put - drop a reference, freeing the state with the last one
 * @perfctr: the state
 *
 * A mapping of the page holds the file, and the file a reference, so the
 * page is never freed while user space can still see it.
 */
void vperfctr_put(struct vperfctr *perfctr)
{
	if (refcount_dec_and_test(&perfctr->refcount)) {
		free_page((unsigned long)perfctr->kstate);
		kfree(perfctr);
	}
}

/*
 * The page's sequence count, as in seqcount_t but shared with user space:
 * only the owner's CPU (or a ptracer while the owner is stopped) writes.
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

/**
 * vperfctr_suspend - stop counting and fold the counts into the sums
 * @perfctr: a state whose counters run on this CPU
 *
 * Called with interrupts off on the owner's CPU.
 */
void vperfctr_suspend(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;

	vperfctr_write_begin(kstate);
	if (perfctr_cstatus_nrctrs(state->cstatus))
		perfctr_cpu_suspend(state);
	if (perfctr_cstatus_has_tsc(state->cstatus))
		state->tsc_sum += perfctr_cpu_read_tsc() - state->tsc_start;
	kstate->flags &= ~VPERFCTR_STATE_ONCPU;
	vperfctr_write_end(kstate);
}

/**
 * vperfctr_resume - start counting from the current hardware values
 * @perfctr: a state with enabled counters, owned by the current thread
 *
 * Called with interrupts off on the owner's CPU.
 */
void vperfctr_resume(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;

	vperfctr_write_begin(kstate);
	if (perfctr_cstatus_has_tsc(state->cstatus))
		state->tsc_start = perfctr_cpu_read_tsc();
	if (perfctr_cstatus_nrctrs(state->cstatus))
		perfctr_cpu_resume(state);
	kstate->flags |= VPERFCTR_STATE_ONCPU;
	vperfctr_write_end(kstate);
}

/**
 * vperfctr_sample - bring the sums up to date without stopping
 * @perfctr: a state whose counters run on this CPU
 *
 * Called with interrupts off on the owner's CPU.
 */
void vperfctr_sample(struct vperfctr *perfctr)
{
	vperfctr_suspend(perfctr);
	vperfctr_resume(perfctr);
}

/* Stop the counters for good, keeping the sums.  Interrupts off. */
static void vperfctr_stop(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;

	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	vperfctr_write_begin(kstate);
	kstate->cpu_state.cstatus = 0;
	vperfctr_write_end(kstate);
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

/**
 * vperfctr_check_control - validate a control before it is used
 * @control: the control as copied from user space
 *
 * Reserved fields and unknown flags must be zero, so that they can be
 * given a meaning later; entries beyond the counters in use must be zero
 * too.  The counter driver then checks what the hardware can count.
 *
 * Return: 0, or -EINVAL.
 */
int vperfctr_check_control(const struct vperfctr_control *control)
{
	const struct perfctr_cpu_control *cc = &control->cpu_control;
	unsigned int i, nrctrs;

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
	return perfctr_cpu_check_control(cc);
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

	perfctr->control = *control;

	vperfctr_write_begin(kstate);
	state->cstatus = vperfctr_cstatus(cc);
	if (!cc->tsc_on)
		state->tsc_sum = 0;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (!(control->preserve & BIT(i)))
			pmc->sum = 0;
		pmc->map = i < nrctrs ? cc->pmc_map[i] : 0;
		pmc->start = 0;
	}
	vperfctr_write_end(kstate);
}

/* Counters stop here, in the owner itself (or a child whose fork failed). */
void __perfctr_exit_thread(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr;
	unsigned long flags;

	local_irq_save(flags);
	vperfctr_stop(perfctr);
	vperfctr_write_begin(perfctr->kstate);
	perfctr->kstate->flags |= VPERFCTR_STATE_DEAD;
	vperfctr_write_end(perfctr->kstate);
	local_irq_restore(flags);
}

/* Interrupts are off: this is __switch_to(). */
void __perfctr_suspend_thread(struct vperfctr *perfctr)
{
	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
}

void __perfctr_resume_thread(struct vperfctr *perfctr)
{
	if (perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
		vperfctr_resume(perfctr);
}

/*
 * A child starts without counters: inheritance needs the propagation of
 * the child's final counts into its parent, which release does not do yet.
 */
void __perfctr_copy_task(struct task_struct *child,
			 const struct kernel_clone_args *args)
{
	child->thread.perfctr = NULL;
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
static void vperfctr_unlink_task(struct task_struct *tsk,
				 struct vperfctr *perfctr)
{
	bool detach;

	task_lock(tsk);
	detach = tsk->thread.perfctr == perfctr;
	if (detach)
		tsk->thread.perfctr = NULL;
	task_unlock(tsk);
	if (detach)
		vperfctr_detach(perfctr);
}

void __perfctr_release_task(struct task_struct *tsk)
{
	vperfctr_unlink_task(tsk, tsk->thread.perfctr);
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
 * A thread may act on its own counters, and on those of a thread it has
 * stopped under ptrace control: that one is off every CPU and cannot
 * change its state until the caller lets it run.
 */
static int vperfctr_check_access(struct task_struct *tsk)
{
	bool stopped;

	if (tsk == current)
		return 0;
	read_lock(&tasklist_lock);
	stopped = tsk->ptrace && tsk->parent == current && task_is_traced(tsk);
	read_unlock(&tasklist_lock);
	if (!stopped || !wait_task_inactive(tsk, __TASK_TRACED))
		return -EPERM;
	return 0;
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

static void vperfctr_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct vperfctr *perfctr = file->private_data;
	struct vperfctr_state *kstate = perfctr->kstate;
	struct task_struct *tsk = vperfctr_get_owner(perfctr);
	pid_t owner = 0;

	if (tsk) {
		owner = task_pid_nr_ns(tsk,
				       proc_pid_ns(file_inode(m->file)->i_sb));
		put_task_struct(tsk);
	}
	seq_printf(m, "vperfctr-owner:\t%d\n", owner);
	seq_printf(m, "vperfctr-cstatus:\t%#x\n",
		   READ_ONCE(kstate->cpu_state.cstatus));
	seq_printf(m, "vperfctr-flags:\t%#x\n", READ_ONCE(kstate->flags));
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

/* A new close-on-exec fd for @perfctr.  Consumes one reference. */
static int vperfctr_create_fd(struct vperfctr *perfctr)
{
	struct inode *inode;
	struct file *file;
	int fd, err;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_put;
	}
	inode = alloc_anon_inode(vperfctr_mnt->mnt_sb);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto err_fd;
	}
	file = alloc_file_pseudo(inode, vperfctr_mnt, "", O_RDONLY,
				 &vperfctr_fops);
	if (IS_ERR(file)) {
		iput(inode);
		err = PTR_ERR(file);
		goto err_fd;
	}
	file->private_data = perfctr;
	fd_install(fd, file);
	return fd;

err_fd:
	put_unused_fd(fd);
err_put:
	vperfctr_put(perfctr);
	return err;
}

/*
 * Attach @fresh to @tsk if @tsk has no state, or find the state it has.
 * Return: the state with a new reference for the caller, or ERR_PTR().
 */
static struct vperfctr *vperfctr_find_or_attach(struct task_struct *tsk,
						struct vperfctr *fresh)
{
	struct vperfctr *perfctr;

	task_lock(tsk);
	perfctr = tsk->thread.perfctr;
	if (perfctr && fresh) {
		perfctr = ERR_PTR(-EEXIST);
	} else if (!perfctr && !fresh) {
		perfctr = ERR_PTR(-ENOENT);
	} else if (!perfctr && (tsk->flags & PF_EXITING)) {
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

SYSCALL_DEFINE2(vperfctr_open, int, tid, int, creat)
{
	struct vperfctr *perfctr, *fresh = NULL;
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
	ret = vperfctr_check_access(tsk);
	if (ret)
		goto out;
	if (creat) {
		fresh = vperfctr_alloc();
		if (!fresh) {
			ret = -ENOMEM;
			goto out;
		}
	}
	perfctr = vperfctr_find_or_attach(tsk, fresh);
	if (fresh && perfctr != fresh)
		vperfctr_put(fresh);
	if (IS_ERR(perfctr))
		ret = PTR_ERR(perfctr);
	else
		ret = vperfctr_create_fd(perfctr);
out:
	put_task_struct(tsk);
	return ret;
}

SYSCALL_DEFINE2(vperfctr_control, int, fd,
		const struct vperfctr_control __user *, argp)
{
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
	ret = vperfctr_check_control(&control);
	if (ret)
		return ret;
	tsk = vperfctr_get_owner(perfctr);
	if (!tsk)
		return -ESRCH;
	ret = vperfctr_check_access(tsk);
	if (!ret) {
		/* For another thread, the counters are suspended already. */
		local_irq_save(flags);
		if (vperfctr_is_oncpu(perfctr))
			vperfctr_suspend(perfctr);
		vperfctr_set_control(perfctr, &control);
		if (tsk == current &&
		    perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
			vperfctr_resume(perfctr);
		local_irq_restore(flags);
	}
	put_task_struct(tsk);
	return ret;
}

SYSCALL_DEFINE1(vperfctr_unlink, int, fd)
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
		return 0;
	ret = vperfctr_check_access(tsk);
	if (!ret) {
		local_irq_save(flags);
		vperfctr_stop(perfctr);
		local_irq_restore(flags);
		vperfctr_unlink_task(tsk, perfctr);
	}
	put_task_struct(tsk);
	return ret;
}

/* What vperfctr_read() copies out, too big for the stack. */
struct vperfctr_read_buf {
	struct perfctr_sum_ctrs sum;
	struct perfctr_sum_ctrs children;
	struct vperfctr_control control;
};

SYSCALL_DEFINE4(vperfctr_read, int, fd,
		struct perfctr_sum_ctrs __user *, sump,
		struct vperfctr_control __user *, controlp,
		struct perfctr_sum_ctrs __user *, childrenp)
{
	struct vperfctr_read_buf *buf;
	struct task_struct *tsk;
	struct vperfctr *perfctr;
	unsigned long flags;
	int ret = 0;

	CLASS(fd, f)(fd);
	perfctr = vperfctr_of(f);
	if (IS_ERR(perfctr))
		return PTR_ERR(perfctr);
	tsk = vperfctr_get_owner(perfctr);
	if (tsk) {
		ret = vperfctr_check_access(tsk);
		if (ret)
			goto out;
	}
	buf = kmalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}

	local_irq_save(flags);
	if (tsk == current && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
	vperfctr_get_sums(perfctr, &buf->sum);
	buf->children = perfctr->children;
	buf->control = perfctr->control;
	local_irq_restore(flags);

	if ((sump && copy_to_user(sump, &buf->sum, sizeof(buf->sum))) ||
	    (controlp &&
	     copy_to_user(controlp, &buf->control, sizeof(buf->control))) ||
	    (childrenp &&
	     copy_to_user(childrenp, &buf->children, sizeof(buf->children))))
		ret = -EFAULT;
	kfree(buf);
out:
	if (tsk)
		put_task_struct(tsk);
	return ret;
}

SYSCALL_DEFINE1(vperfctr_iresume, int, fd)
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
		return -ESRCH;
	ret = vperfctr_check_access(tsk);
	/* No counter is in interrupt mode, so none waits to be resumed. */
	if (!ret)
		ret = -EINVAL;
	put_task_struct(tsk);
	return ret;
}

/*
 * Registered, though it cannot be mounted from user space (SB_NOUSER), so
 * that /proc/filesystems tells user space this kernel has perfctr.
 */
static int __init vperfctrfs_init(void)
{
	int err = register_filesystem(&vperfctrfs_type);

	if (err)
		panic("vperfctrfs: cannot register: %d\n", err);
	vperfctr_mnt = kern_mount(&vperfctrfs_type);
	if (IS_ERR(vperfctr_mnt))
		panic("vperfctrfs: kernel mount failed\n");
	return 0;
}
fs_initcall(vperfctrfs_init);
