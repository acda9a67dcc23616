// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: the counter state of a thread,
 * struct vperfctr, and its reference count.
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
 *   has the thread's reference: an unlink drops it, an exit hands it to
 *   release_task() in thread.perfctr_exited.  A fork that fails clears
 *   the child's, which nobody else sees.  perfctr->owner is RCU
 *   protected: the owner's task_struct outlives a grace period after
 *   release_task().
 *   struct vperfctr is freed after a grace period too, for the affinity
 *   hook, which runs under the runqueue lock and cannot take task_lock();
 *   that hook never reads the page, which is freed with the last reference.
 * - The children sums, which reaped descendants add to from any CPU, are
 *   under children_lock, never nested.
 * - The page shared with user space is written inside a sequence count:
 *   odd while it changes.  Readers retry when it was odd or moved.
 * - Signals are never sent from the context switch, timers or NMIs, which
 *   cannot take the signal lock: they are flagged and sent on the owner's
 *   way back to user mode.
 */
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

static_assert(sizeof(struct vperfctr_state) <= PAGE_SIZE);

/*
 * A few pages of states freed on this CPU, for the next ones, as fork.c
 * keeps stacks: a process tree that counts allocates one at every fork
 * and frees one at every reap, and the page allocator would send them
 * back and forth to the buddy lists.  Only the start of a page, the
 * struct vperfctr_state, was ever written; the rest stays zero.
 */
#define VPERFCTR_CACHED_PAGES	2
static DEFINE_PER_CPU(struct vperfctr_state *,
		      vperfctr_cached_pages[VPERFCTR_CACHED_PAGES]);

static struct vperfctr_state *vperfctr_page_alloc(void)
{
	struct vperfctr_state *userpg;
	unsigned int i;

	for (i = 0; i < VPERFCTR_CACHED_PAGES; i++) {
		userpg = this_cpu_xchg(vperfctr_cached_pages[i], NULL);
		if (!userpg)
			continue;
		if (memcg_kmem_charge_page(virt_to_page(userpg),
					   GFP_KERNEL_ACCOUNT, 0)) {
			free_page((unsigned long)userpg);
			return NULL;
		}
		memset(userpg, 0, sizeof(*userpg));
		return userpg;
	}
	return (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
}

/*
 * Kept only if nothing else holds the page: a get_user_pages() of the
 * mapping may outlive it, and must not see the next state's counts.
 */
static void vperfctr_page_free(struct vperfctr_state *userpg)
{
	struct page *page = virt_to_page(userpg);
	unsigned int i;

	if (page_ref_count(page) == 1) {
		for (i = 0; i < VPERFCTR_CACHED_PAGES; i++) {
			if (this_cpu_cmpxchg(vperfctr_cached_pages[i], NULL,
					     userpg) == NULL) {
				memcg_kmem_uncharge_page(page, 0);
				return;
			}
		}
	}
	free_page((unsigned long)userpg);
}

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
	perfctr->userpg = vperfctr_page_alloc();
	if (!perfctr->userpg) {
		kfree(perfctr);
		return NULL;
	}
	refcount_set(&perfctr->refcount, 1);
	spin_lock_init(&perfctr->children_lock);
	/* The children sums are zero already. */
	vperfctr_new_generation(perfctr, false);
	perfctr->last_cpu = -1;
	vperfctr_init_itimer(perfctr);
	perfctr->userpg->magic = VPERFCTR_STATE_MAGIC;
	perfctr->userpg->abi_version = PERFCTR_ABI_VERSION;
	vperfctr_time_set(perfctr->userpg);
	return perfctr;
}

/**
 * vperfctr_release_hw - give back the counter hardware of a stopped state
 * @perfctr: the state, whose counters are stopped for good or changed to a
 *	control without hardware counters; its owner is current or frozen,
 *	or it has no owner and no other reference
 *
 * The hardware is not held for a state that cannot count on it any more,
 * however long files keep the state itself.
 */
void vperfctr_release_hw(struct vperfctr *perfctr)
{
	if (perfctr->hw_reserved) {
		perfctr->hw_reserved = false;
		perfctr_driver(release)();
	}
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

		vperfctr_release_hw(perfctr);
		/*
		 * The page goes at once: the affinity hook, the one reader
		 * without a reference, never reads it.  Freed in a batch
		 * after a grace period, pages would go back to the buddy
		 * allocator, and a fork come to take one from there.
		 */
		vperfctr_page_free(perfctr->userpg);
		kfree_rcu(perfctr, rcu);
		perfctr = parent;
	}
}

struct task_struct *vperfctr_get_owner(struct vperfctr *perfctr)
{
	struct task_struct *tsk;

	rcu_read_lock();
	tsk = rcu_dereference(perfctr->owner);
	if (tsk)
		get_task_struct(tsk);
	rcu_read_unlock();
	return tsk;
}
