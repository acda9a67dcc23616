// SPDX-License-Identifier: GPL-2.0
/*
 * Inheritance of virtual counters at fork, and propagation of a reaped
 * child's final counts back into the state it inherited from.
 *
 * A child inherits its creator's control with zero sums and remembers
 * the creator's state and that state's inheritance id.  When the child is
 * reaped, its sums and its own children's sums are added to the creator's
 * children sums, but only if the id still matches and the child kept the
 * control it inherited: a new control that enables something (or an
 * unlink) renews the id of the state it is set on and cuts it from its
 * parent, so counts of different controls are never mixed.  A control that
 * enables nothing keeps the id: the counts it stopped are still the
 * inherited control's.
 *
 * Threads are children like processes: their counts end up in the
 * children sums of the thread that created them.
 *
 * The creator may be reaped before its children.  Its state stays
 * allocated while a child holds it, marked released, and a late child's
 * counts are forwarded to the creator's own creator, checking the id at
 * every step, so the root of a process tree sees every descendant.
 */
#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

static atomic64_t vperfctr_next_id = ATOMIC64_INIT(0);

/**
 * vperfctr_new_generation - start a new control generation
 * @perfctr: the state
 * @reset_children: whether the children sums restart from zero
 *
 * Children inherited so far no longer propagate into @perfctr, and
 * @perfctr, whose control is no longer the one it inherited, no longer
 * propagates into its parent.  A new control resets the children sums;
 * an unlink keeps them for whoever still holds the state.
 */
void vperfctr_new_generation(struct vperfctr *perfctr, bool reset_children)
{
	u64 id = atomic64_inc_return(&vperfctr_next_id);

	spin_lock(&perfctr->children_lock);
	perfctr->inheritance_id = id;
	perfctr->parent_id = 0;
	if (reset_children) {
		memset(&perfctr->children, 0, sizeof(perfctr->children));
		perfctr->children_nrsums = 0;
	}
	spin_unlock(&perfctr->children_lock);
}

/**
 * vperfctr_inherit - the state of a new child
 * @parent: the creating thread's state, its control enabling something
 *
 * Called by the creating thread, which owns @parent, so the control and
 * the inheritance id cannot change under us.
 *
 * Return: a new state with @parent's control and zero sums, or NULL.
 */
struct vperfctr *vperfctr_inherit(struct vperfctr *parent)
{
	struct vperfctr *child = vperfctr_alloc();

	if (!child)
		return NULL;
	/* Cannot fail: the parent holds the counter hardware already. */
	if (parent->hw_reserved) {
		if (perfctr_driver(reserve)()) {
			vperfctr_put(child);
			return NULL;
		}
		child->hw_reserved = true;
	}
	vperfctr_inherit_control(child, parent);
	refcount_inc(&parent->refcount);
	child->parent = parent;
	spin_lock(&parent->children_lock);
	child->parent_id = parent->inheritance_id;
	spin_unlock(&parent->children_lock);
	return child;
}

/* Add the TSC sum and the first @n counter sums of @from to @to. */
static void vperfctr_add_sums(struct perfctr_sum_ctrs *to,
			      const struct perfctr_sum_ctrs *from,
			      unsigned int n)
{
	unsigned int i;

	to->tsc += from->tsc;
	for (i = 0; i < n; i++)
		to->pmc[i] += from->pmc[i];
}

/**
 * vperfctr_propagate - add a reaped child's counts to its ancestors
 * @child: the state of a thread being reaped, its counters stopped
 *
 * The child's own sums and those of its reaped descendants go into the
 * children sums of the nearest unreleased ancestor state, provided every
 * state on the way still has the control the next one inherited.
 * Children locks are taken one at a time, never nested.
 */
void vperfctr_propagate(struct vperfctr *child)
{
	const struct perfctr_cpu_state *state = &child->userpg->cpu_state;
	struct perfctr_sum_ctrs sums;
	struct vperfctr *target;
	unsigned int i, n;
	u64 id;

	/*
	 * Only the first nrsums of the child's own sums, and the first
	 * children_nrsums of its children sums, can be other than 0: a
	 * fork of a control with few counters adds no more than those.
	 */
	spin_lock(&child->children_lock);
	child->released = true;
	n = min(max(child->userpg->nrsums, child->children_nrsums),
		PERFCTR_MAX_NRCTRS);
	sums.tsc = state->tsc_sum + child->children.tsc;
	for (i = 0; i < n; i++)
		sums.pmc[i] = state->pmc[i].sum + child->children.pmc[i];
	spin_unlock(&child->children_lock);

	id = child->parent_id;
	if (!id)
		return;
	for (target = child->parent; target; ) {
		struct vperfctr *next;

		spin_lock(&target->children_lock);
		if (target->inheritance_id != id) {
			spin_unlock(&target->children_lock);
			return;
		}
		if (!target->released) {
			vperfctr_add_sums(&target->children, &sums, n);
			target->children_nrsums = max(target->children_nrsums,
						      n);
			spin_unlock(&target->children_lock);
			return;
		}
		id = target->parent_id;
		next = target->parent;
		spin_unlock(&target->children_lock);
		target = next;
	}
}
