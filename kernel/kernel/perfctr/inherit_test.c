// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of inheritance at fork and propagation of final counts.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/perfctr.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"
#include "test_helpers.h"

/* Sums as counting leaves them: only the first nrsums are other than 0. */
static void set_sums(struct vperfctr *perfctr, u64 tsc, u64 pmc0)
{
	struct vperfctr_state *userpg = perfctr->userpg;

	userpg->cpu_state.tsc_sum = tsc;
	userpg->cpu_state.pmc[0].sum = pmc0;
	if (pmc0 && !userpg->nrsums)
		userpg->nrsums = 1;
}

static void inherited_state_has_control_and_zero_sums(struct kunit *test)
{
	struct vperfctr *parent = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child;

	control->cpu_control.tsc_on = 1;
	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	test_set_control(parent, control);
	set_sums(parent, 100, 10);

	child = vperfctr_inherit(parent);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, memcmp(&child->control, control,
				     sizeof(*control)), 0);
	KUNIT_EXPECT_EQ(test, child->userpg->cpu_state.cstatus,
			parent->userpg->cpu_state.cstatus);
	KUNIT_EXPECT_EQ(test, child->userpg->cpu_state.tsc_sum, 0);
	KUNIT_EXPECT_EQ(test, child->userpg->cpu_state.pmc[0].sum, 0);
	KUNIT_EXPECT_PTR_EQ(test, child->parent, parent);
	KUNIT_EXPECT_EQ(test, child->parent_id, parent->inheritance_id);
	KUNIT_EXPECT_NE(test, child->inheritance_id, parent->inheritance_id);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->refcount), 2);
	vperfctr_put(child);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->refcount), 1);
}

/*
 * A child copies its creator's affinity at fork, and the state it
 * inherits notes a forbidden CPU in it, as an affinity change would: a
 * resume there stops its counters.  The fork is the hook's, made with
 * a task that is only the affinity it copied, and this test's thread as
 * the creator for the call.
 */
static void child_notes_the_forbidden_cpus_it_may_run_on(struct kunit *test)
{
	struct vperfctr *parent = vperfctr_test_ctx()->perfctr;
	struct vperfctr *saved = current->thread.perfctr;
	struct vperfctr_control *control = new_control(test);
	struct kernel_clone_args args = {};
	struct task_struct *child;
	int cpu, err;

	child = kunit_kzalloc(test, sizeof(*child), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, child);
	tsc_control(control, 1);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(parent, control);
	cpu = raw_smp_processor_id();
	cpumask_copy(&child->cpus_mask, cpumask_of(cpu));

	cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	current->thread.perfctr = parent;
	err = __perfctr_copy_task(child, &args);
	current->thread.perfctr = saved;
	cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);

	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, child->thread.perfctr);
	KUNIT_EXPECT_TRUE(test, child->thread.perfctr->bad_cpus_allowed);
	vperfctr_put(child->thread.perfctr);
}

/*
 * At a fork, the child's control is installed by copying what was
 * computed for its parent's: the child's state must be what
 * test_set_control() of the same control makes of a new state.  The
 * parent has since resumed on a forbidden CPU, which took its user-mode
 * reads away; the child's are its own, if it has hardware counters.
 */
static void expect_inherited_as_set(struct kunit *test,
				    struct vperfctr_control *control)
{
	struct vperfctr *parent = vperfctr_test_ctx()->perfctr;
	struct vperfctr *set = vperfctr_alloc();
	struct vperfctr *copied = vperfctr_alloc();
	struct vperfctr_state *a, *b;
	u32 seq;

	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, copied);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, true), 0);
	test_set_control(parent, control);
	parent->userpg->flags &= ~VPERFCTR_STATE_RDPMC;
	test_set_control(set, &parent->control);
	vperfctr_inherit_control(copied, parent);

	KUNIT_EXPECT_EQ(test, memcmp(&copied->control, &set->control,
				     sizeof(set->control)), 0);
	KUNIT_EXPECT_EQ(test, copied->setup.nrhw, set->setup.nrhw);
	KUNIT_EXPECT_EQ(test, copied->setup.sw_events, set->setup.sw_events);
	KUNIT_EXPECT_EQ(test, copied->setup.clock_pmcs, set->setup.clock_pmcs);
	KUNIT_EXPECT_EQ(test, copied->setup.event_pmcs, set->setup.event_pmcs);
	KUNIT_EXPECT_EQ(test, memcmp(copied->setup.fault_pmcs, set->setup.fault_pmcs,
				     sizeof(set->setup.fault_pmcs)), 0);
	KUNIT_EXPECT_EQ(test, copied->setup.hw_pmcs, set->setup.hw_pmcs);
	KUNIT_EXPECT_EQ(test, copied->setup.restart_pmcs, set->setup.restart_pmcs);
	KUNIT_EXPECT_EQ(test, copied->setup.imode_pmcs, set->setup.imode_pmcs);
	KUNIT_EXPECT_EQ(test, copied->setup.simple_switch, set->setup.simple_switch);
	KUNIT_EXPECT_EQ(test, copied->live_on, set->live_on);
	KUNIT_EXPECT_EQ(test, copied->setup.sample_ticks, set->setup.sample_ticks);
	KUNIT_EXPECT_EQ(test, copied->ticks_left, set->ticks_left);
	KUNIT_EXPECT_EQ(test, copied->iresume_cstatus, set->iresume_cstatus);
	KUNIT_EXPECT_EQ(test, memcmp(copied->icount, set->icount,
				     sizeof(set->icount)), 0);
	KUNIT_EXPECT_EQ(test, copied->setup.plan.nr, set->setup.plan.nr);
	KUNIT_EXPECT_EQ(test, memcmp(&copied->setup.plan, &set->setup.plan,
				     offsetof(struct perfctr_plan,
					      write[set->setup.plan.nr])), 0);
	/* The whole page, but for the sequence count nobody read. */
	a = set->userpg;
	b = copied->userpg;
	KUNIT_EXPECT_EQ(test, !!(b->flags & VPERFCTR_STATE_RDPMC), !!set->setup.nrhw);
	seq = b->seq;
	b->seq = a->seq;
	KUNIT_EXPECT_EQ(test, memcmp(a, b, sizeof(*a)), 0);
	b->seq = seq;
	vperfctr_put(set);
	vperfctr_put(copied);
}

static void inherited_control_is_the_control_set(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	cc->tsc_on = 1;
	cc->nractrs = 4;
	cc->pmc_map[0] = 1;
	cc->pmc_map[1] = 2;
	sw_control(control, 2, PERFCTR_SW_TASK_CLOCK, 0);
	sw_control(control, 3, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	expect_inherited_as_set(test, control);
}

/* Restarting and interrupt-mode counters, hardware and software. */
static void inherited_imode_control_is_the_control_set(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;

	use_fake_pmu(test, 32);
	ctx->user_read_ok = true;
	ctx->restarts = BIT(1);
	control->si_signo = SIGIO;
	cc->tsc_on = 1;
	cc->nractrs = 2;
	cc->nrictrs = 2;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_MINOR_FAULTS,
		   PERFCTR_SW_USR | PERFCTR_SW_OS);
	cc->pmc_map[2] = 2;
	cc->ireset[2] = -1000;
	sw_control(control, 3, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	cc->ireset[3] = -5;
	expect_inherited_as_set(test, control);
}

/*
 * Software counters only, in a parent whose control had hardware ones
 * before: no plan goes with them.
 */
static void inherited_sw_control_is_the_control_set(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();
	struct vperfctr_control *control = new_control(test);
	struct vperfctr_control *before = new_control(test);

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	before->cpu_control.nractrs = 2;
	before->cpu_control.pmc_map[0] = 1;
	before->cpu_control.pmc_map[1] = 2;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(before, true), 0);
	test_set_control(ctx->perfctr, before);
	KUNIT_ASSERT_EQ(test, ctx->perfctr->setup.plan.nr, 2);
	control->cpu_control.tsc_on = 1;
	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, 0);
	expect_inherited_as_set(test, control);
}

/*
 * A thread that exits takes its state off its hooks before another
 * thread can reap it: the hooks of its last context switches and ticks
 * may still run on its CPU once the reaper has dropped the state, and
 * must find none.  The reaper finds the state apart, and drops the
 * thread's reference with its counts.  Exit and release are the hooks', with
 * this test's thread as the one exiting; the test holds a reference of
 * its own, to look at the state after.
 */
static void exited_thread_leaves_its_state_to_its_reaper(struct kunit *test)
{
	struct vperfctr *saved = current->thread.perfctr;
	struct vperfctr *perfctr = vperfctr_alloc();
	struct vperfctr *hooked, *exited, *reaped;

	KUNIT_ASSERT_NOT_NULL(test, perfctr);
	vperfctr_get(perfctr);
	RCU_INIT_POINTER(perfctr->owner, current);
	current->thread.perfctr = perfctr;
	perfctr_exit_thread(current);
	hooked = current->thread.perfctr;
	exited = current->thread.perfctr_exited;
	perfctr_release_task(current);
	reaped = current->thread.perfctr_exited;
	current->thread.perfctr = saved;
	current->thread.perfctr_exited = NULL;

	KUNIT_EXPECT_NULL(test, hooked);
	KUNIT_EXPECT_PTR_EQ(test, exited, perfctr);
	KUNIT_EXPECT_NULL(test, reaped);
	KUNIT_EXPECT_TRUE(test, perfctr->userpg->flags & VPERFCTR_STATE_DEAD);
	KUNIT_EXPECT_TRUE(test,
			  perfctr->userpg->flags & VPERFCTR_STATE_DETACHED);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(perfctr->owner));
	/* Only the test's reference is left. */
	KUNIT_EXPECT_EQ(test, refcount_read(&perfctr->refcount), 1);
	vperfctr_put(perfctr);
}

static void propagation_adds_child_and_grandchildren(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child, *grandchild;

	control->cpu_control.tsc_on = 1;
	test_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	grandchild = vperfctr_inherit(child);
	KUNIT_ASSERT_NOT_NULL(test, grandchild);

	set_sums(grandchild, 5, 1);
	vperfctr_propagate(grandchild);
	KUNIT_EXPECT_EQ(test, child->children.tsc, 5);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	set_sums(child, 70, 2);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 75);
	KUNIT_EXPECT_EQ(test, root->children.pmc[0], 3);
	KUNIT_EXPECT_EQ(test, root->userpg->cpu_state.tsc_sum, 0);
	vperfctr_put(grandchild);
	vperfctr_put(child);
}

static void late_grandchild_is_forwarded_to_root(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child, *grandchild;

	control->cpu_control.tsc_on = 1;
	test_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	grandchild = vperfctr_inherit(child);
	KUNIT_ASSERT_NOT_NULL(test, grandchild);

	/* The child is reaped first; the grandchild outlives it. */
	set_sums(child, 70, 0);
	vperfctr_propagate(child);
	vperfctr_put(child);
	set_sums(grandchild, 5, 0);
	vperfctr_propagate(grandchild);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 75);
	vperfctr_put(grandchild);
	KUNIT_EXPECT_EQ(test, refcount_read(&root->refcount), 1);
}

static void new_control_stops_propagation_and_clears_children(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *early, *late;

	control->cpu_control.tsc_on = 1;
	test_set_control(root, control);
	early = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, early);
	set_sums(early, 40, 0);
	vperfctr_propagate(early);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 40);
	vperfctr_put(early);

	early = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, early);
	vperfctr_new_generation(root, true);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	late = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, late);
	set_sums(early, 7, 0);
	vperfctr_propagate(early);
	set_sums(late, 9, 0);
	vperfctr_propagate(late);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 9);
	vperfctr_put(early);
	vperfctr_put(late);
}

static void child_with_own_control_propagates_nothing(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child;

	control->cpu_control.tsc_on = 1;
	test_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	vperfctr_new_generation(child, true);
	set_sums(child, 11, 0);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	vperfctr_put(child);
}

/*
 * A state whose control now enables nothing keeps its children sums, and
 * the children it had still propagate into them, past its own last
 * counter with a sum: all of them reach the root.
 */
static void children_sums_past_own_sums_reach_root(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child, *grandchild;
	unsigned int i;

	control->cpu_control.nractrs = 4;
	for (i = 0; i < 4; i++)
		sw_control(control, i, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	test_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	grandchild = vperfctr_inherit(child);
	KUNIT_ASSERT_NOT_NULL(test, grandchild);

	grandchild->userpg->cpu_state.pmc[3].sum = 7;
	vperfctr_propagate(grandchild);
	KUNIT_EXPECT_EQ(test, child->children.pmc[3], 7);
	/* Enabling nothing keeps the sums, all 0 here, and the id. */
	test_set_control(child, new_control(test));
	KUNIT_EXPECT_EQ(test, child->userpg->nrsums, 0);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, root->children.pmc[3], 7);
	KUNIT_EXPECT_EQ(test, root->children_nrsums, 4);
	vperfctr_put(grandchild);
	vperfctr_put(child);
}

static struct kunit_case perfctr_inherit_cases[] = {
	KUNIT_CASE(inherited_state_has_control_and_zero_sums),
	KUNIT_CASE(child_notes_the_forbidden_cpus_it_may_run_on),
	KUNIT_CASE(inherited_control_is_the_control_set),
	KUNIT_CASE(inherited_imode_control_is_the_control_set),
	KUNIT_CASE(inherited_sw_control_is_the_control_set),
	KUNIT_CASE(exited_thread_leaves_its_state_to_its_reaper),
	KUNIT_CASE(propagation_adds_child_and_grandchildren),
	KUNIT_CASE(late_grandchild_is_forwarded_to_root),
	KUNIT_CASE(new_control_stops_propagation_and_clears_children),
	KUNIT_CASE(child_with_own_control_propagates_nothing),
	KUNIT_CASE(children_sums_past_own_sums_reach_root),
	{}
};

static struct kunit_suite perfctr_inherit_suite = {
	.name = "perfctr_inherit",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = perfctr_inherit_cases,
};

kunit_test_suite(perfctr_inherit_suite);
