// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: vperfctrfs, the pseudo file
 * system whose files stand for counter states.  A file holds a reference
 * to its state; mmap() of it gives user space the state's page, read-only,
 * from which the counters are read without a system call.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/proc_fs.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

static struct vfsmount *vperfctr_mnt __ro_after_init;

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

static int vperfctr_release(struct inode *inode, struct file *file)
{
	vperfctr_put(file->private_data);
	return 0;
}

/*
 * The page goes into the page table at the first touch, not at mmap():
 * vm_insert_page() would make the mapping VM_MIXEDMAP, whose entries
 * fork copies.  A fork copies no mapping of the page at all: the child's
 * counts are not its parent's, and a mapping copied into every child
 * and unmapped at its exit would cost each fork more than inheriting
 * the counters does.  Like the pages of perf's events, it is VM_DONTCOPY.
 *
 * madvise(MADV_DOFORK) can still have a fork copy it.  The mapping
 * remembers the mm it was made in, and a copy in another mm is no view
 * of the page: a touch there gets SIGBUS.
 */
static void vperfctr_vm_open(struct vm_area_struct *vma)
{
	if (vma->vm_private_data != vma->vm_mm)
		vma->vm_private_data = NULL;
}

static vm_fault_t vperfctr_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vperfctr *perfctr = vma->vm_file->private_data;
	struct page *page = virt_to_page(perfctr->userpg);

	if (!vma->vm_private_data)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct vperfctr_vm_ops = {
	.open	= vperfctr_vm_open,
	.fault	= vperfctr_vm_fault,
};

/* One page, read-only, at offset 0: the struct vperfctr_state. */
static int vperfctr_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff != 0 || vma_pages(vma) != 1)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE);
	/* Compared with, never followed. */
	vma->vm_private_data = vma->vm_mm;
	vma->vm_ops = &vperfctr_vm_ops;
	return 0;
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
	struct vperfctr_state *userpg = perfctr->userpg;
	struct task_struct *tsk = vperfctr_get_owner(perfctr);
	u32 flags = READ_ONCE(userpg->flags);
	u32 cstatus = READ_ONCE(userpg->cpu_state.cstatus);
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

const struct file_operations vperfctr_fops = {
	.release	= vperfctr_release,
	.mmap		= vperfctr_mmap,
	.show_fdinfo	= vperfctr_show_fdinfo,
	.llseek		= noop_llseek,
};

/* The state behind a descriptor: EBADF if none is open, EINVAL if not ours. */
struct vperfctr *vperfctr_of(struct fd f)
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
struct file *vperfctr_new_file(void)
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
 * Registered, though it cannot be mounted from user space (SB_NOUSER), so
 * that /proc/filesystems tells user space this kernel has perfctr.
 */
static int __init vperfctrfs_init(void)
{
	int err;

	err = register_filesystem(&vperfctrfs_type);
	if (err)
		panic("vperfctrfs: cannot register: %d\n", err);
	vperfctr_mnt = kern_mount(&vperfctrfs_type);
	if (IS_ERR(vperfctr_mnt))
		panic("vperfctrfs: kernel mount failed\n");
	return 0;
}
fs_initcall(vperfctrfs_init);
