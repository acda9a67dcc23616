// SPDX-License-Identifier: GPL-2.0
/*
 * What the KUnit tests of the core share: a state per test, and a fake
 * driver in the real one's place (a fake PMU of four counters of
 * configurable width, and a fake TSC), put there through the core's
 * static calls, so every count in the tests is exact.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"
#include "test_helpers.h"

/* The core's calls of the driver (internal.h), while the tests are built. */
DEFINE_STATIC_CALL(perfctr_pmu, arch_perfctr_pmu);
DEFINE_STATIC_CALL(perfctr_tsc_khz, arch_perfctr_tsc_khz);
DEFINE_STATIC_CALL(perfctr_read_tsc, arch_perfctr_read_tsc);
DEFINE_STATIC_CALL(perfctr_check_counter, arch_perfctr_check_counter);
DEFINE_STATIC_CALL(perfctr_check_control, arch_perfctr_check_control);
DEFINE_STATIC_CALL(perfctr_counter_width, arch_perfctr_counter_width);
DEFINE_STATIC_CALL(perfctr_counter_restarts, arch_perfctr_counter_restarts);
DEFINE_STATIC_CALL(perfctr_read_counter, arch_perfctr_read_counter);
DEFINE_STATIC_CALL(perfctr_write_counter, arch_perfctr_write_counter);
DEFINE_STATIC_CALL(perfctr_prepare, arch_perfctr_prepare);
DEFINE_STATIC_CALL(perfctr_enable, arch_perfctr_enable);
DEFINE_STATIC_CALL(perfctr_disable, arch_perfctr_disable);
DEFINE_STATIC_CALL(perfctr_switch, arch_perfctr_switch);
DEFINE_STATIC_CALL(perfctr_reserve, arch_perfctr_reserve);
DEFINE_STATIC_CALL(perfctr_release, arch_perfctr_release);
DEFINE_STATIC_CALL(perfctr_has_user_read, arch_perfctr_has_user_read);
DEFINE_STATIC_CALL(perfctr_user_read, arch_perfctr_user_read);

struct vperfctr_test_ctx *vperfctr_test_ctx(void)
{
	return kunit_get_current_test()->priv;
}

static u64 fake_read_tsc(void)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();

	ctx->tsc_reads++;
	return ctx->tsc;
}

/* The real driver back in place, at the end of every test. */
static void restore_driver(void *unused)
{
	static_call_update(perfctr_pmu, arch_perfctr_pmu);
	static_call_update(perfctr_tsc_khz, arch_perfctr_tsc_khz);
	static_call_update(perfctr_read_tsc, arch_perfctr_read_tsc);
	static_call_update(perfctr_check_counter, arch_perfctr_check_counter);
	static_call_update(perfctr_check_control, arch_perfctr_check_control);
	static_call_update(perfctr_counter_width, arch_perfctr_counter_width);
	static_call_update(perfctr_counter_restarts,
			   arch_perfctr_counter_restarts);
	static_call_update(perfctr_read_counter, arch_perfctr_read_counter);
	static_call_update(perfctr_write_counter, arch_perfctr_write_counter);
	static_call_update(perfctr_prepare, arch_perfctr_prepare);
	static_call_update(perfctr_enable, arch_perfctr_enable);
	static_call_update(perfctr_disable, arch_perfctr_disable);
	static_call_update(perfctr_switch, arch_perfctr_switch);
	static_call_update(perfctr_reserve, arch_perfctr_reserve);
	static_call_update(perfctr_release, arch_perfctr_release);
	static_call_update(perfctr_has_user_read, arch_perfctr_has_user_read);
	static_call_update(perfctr_user_read, arch_perfctr_user_read);
}

int vperfctr_test_init(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->perfctr = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, ctx->perfctr);
	test->priv = ctx;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_driver,
							NULL), 0);
	static_call_update(perfctr_read_tsc, fake_read_tsc);
	/* The inline reads of the switch: at the register boundary. */
	if (IS_ENABLED(CONFIG_HAVE_PERFCTR_INLINE_READS))
		kunit_activate_static_stub(test, arch_perfctr_read_tsc,
					   fake_read_tsc);
	return 0;
}

static u64 fake_read_counter(u32 map)
{
	vperfctr_test_ctx()->counter_reads++;
	return vperfctr_test_ctx()->hw[map & 3];
}

static void fake_write_counter(u32 map, u64 value)
{
	vperfctr_test_ctx()->hw[map & 3] = value;
}

static u32 fake_counter_width(u32 map)
{
	return vperfctr_test_ctx()->width;
}

static bool fake_counter_restarts(u32 map,
				  const struct perfctr_cpu_control *control)
{
	return vperfctr_test_ctx()->restarts & BIT(map & 3);
}

static int fake_check_control(const struct perfctr_cpu_control *control)
{
	return vperfctr_test_ctx()->control_err;
}

/* Every hardware counter of the control, named by its map. */
static void fake_prepare(const struct perfctr_cpu_control *control,
			 struct perfctr_plan *plan)
{
	unsigned int i, n = control->nractrs + control->nrictrs;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < n; i++)
		if (!(control->pmc_map[i] & PERFCTR_MAP_SOFTWARE))
			plan->write[plan->nr++].reg = control->pmc_map[i];
}

/* Starts the counters, those that restart from zero. */
static void fake_enable(const struct perfctr_plan *plan)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();
	unsigned int i;

	for (i = 0; i < plan->nr; i++) {
		u32 map = plan->write[i].reg;

		if (ctx->restarts & BIT(map & 3))
			ctx->hw[map & 3] = 0;
	}
	ctx->enabled = true;
}

static void fake_disable(const struct perfctr_cpu_state *state)
{
	vperfctr_test_ctx()->enabled = false;
}

static int fake_check_counter(u32 map, u64 evntsel, s64 ireset,
			      bool allow_kernel)
{
	return 0;
}

static const struct perfctr_pmu *fake_pmu(void)
{
	return &vperfctr_test_ctx()->pmu;
}

static bool fake_has_user_read(void)
{
	return vperfctr_test_ctx()->user_read_ok;
}

/* A grant leaves every counter at zero, as the drivers do. */
static void fake_user_read(bool allow)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();

	ctx->user_read = allow;
	ctx->user_read_calls++;
	if (allow)
		memset(ctx->hw, 0, sizeof(ctx->hw));
}

/*
 * What the three calls it stands for do, counted.  The drivers rely on
 * being called only so: from counters that run, user mode allowed to
 * read them.
 */
static void fake_switch(const struct perfctr_cpu_state *prev,
			const struct perfctr_plan *prev_plan,
			const struct perfctr_plan *plan)
{
	struct kunit *test = kunit_get_current_test();

	KUNIT_EXPECT_TRUE(test, vperfctr_test_ctx()->enabled);
	KUNIT_EXPECT_EQ(test, vperfctr_test_ctx()->user_read, 1);
	vperfctr_test_ctx()->switch_calls++;
	vperfctr_test_ctx()->switch_prev = prev;
	fake_disable(prev);
	fake_user_read(true);
	fake_enable(plan);
}

/* Counter hardware of @width bits in place of the real driver. */
void use_fake_pmu(struct kunit *test, u32 width)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	ctx->width = width;
	ctx->pmu = *arch_perfctr_pmu();
	ctx->pmu.nrctrs = ARRAY_SIZE(ctx->hw);
	ctx->pmu.ctr_width = width;
	static_call_update(perfctr_read_counter, fake_read_counter);
	if (IS_ENABLED(CONFIG_HAVE_PERFCTR_INLINE_READS))
		kunit_activate_static_stub(test, arch_perfctr_read_counter,
					   fake_read_counter);
	static_call_update(perfctr_write_counter, fake_write_counter);
	static_call_update(perfctr_counter_width, fake_counter_width);
	static_call_update(perfctr_counter_restarts, fake_counter_restarts);
	static_call_update(perfctr_check_control, fake_check_control);
	static_call_update(perfctr_prepare, fake_prepare);
	static_call_update(perfctr_enable, fake_enable);
	static_call_update(perfctr_disable, fake_disable);
	static_call_update(perfctr_switch, fake_switch);
	static_call_update(perfctr_check_counter, fake_check_counter);
	static_call_update(perfctr_pmu, fake_pmu);
	static_call_update(perfctr_has_user_read, fake_has_user_read);
	static_call_update(perfctr_user_read, fake_user_read);
	ctx->user_read = -1;
}

/* The fake hardware counts @n events on counter @map, wrapping. */
void fake_count(struct vperfctr_test_ctx *ctx, u32 map, u64 n)
{
	u64 mask = ctx->width >= 64 ? ~0ULL : BIT_ULL(ctx->width) - 1;

	if (ctx->enabled)
		ctx->hw[map & 3] = (ctx->hw[map & 3] + n) & mask;
}

void vperfctr_test_exit(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	vperfctr_put(ctx->perfctr);
}

void tsc_control(struct vperfctr_control *control, u32 tsc_on)
{
	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = tsc_on;
}

/* Set a control as vperfctr_control() does for the calling thread. */
void start_tsc(struct kunit *test, u64 at)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control control;

	tsc_control(&control, 1);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(&control, false), 0);
	test_set_control(ctx->perfctr, &control);
	ctx->tsc = at;
	test_resume(ctx->perfctr);
}

/*
 * The core's entry points as their callers reach them: a control set up
 * in process context and installed, and the counters suspended and
 * resumed, with interrupts off.
 */
void test_set_control(struct vperfctr *perfctr,
		      const struct vperfctr_control *control)
{
	struct vperfctr_setup *setup = kmalloc(sizeof(*setup), GFP_KERNEL);
	unsigned long flags;

	if (WARN_ON(!setup))
		return;
	vperfctr_setup_control(&control->cpu_control, setup);
	local_irq_save(flags);
	vperfctr_set_control(perfctr, control, setup);
	local_irq_restore(flags);
	kfree(setup);
}

u32 test_suspend(struct vperfctr *perfctr)
{
	unsigned long flags;
	u32 ovf;

	local_irq_save(flags);
	ovf = vperfctr_suspend(perfctr);
	local_irq_restore(flags);
	return ovf;
}

void test_resume(struct vperfctr *perfctr)
{
	unsigned long flags;

	local_irq_save(flags);
	vperfctr_resume(perfctr);
	local_irq_restore(flags);
}

/* A zeroed control, too big for a test's stack frame. */
struct vperfctr_control *new_control(struct kunit *test)
{
	struct vperfctr_control *control;

	control = kunit_kzalloc(test, sizeof(*control), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, control);
	return control;
}

/* Set @control as vperfctr_control() does and start counting. */
void start_control(struct kunit *test, struct vperfctr *perfctr,
		   struct vperfctr_control *control)
{
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, true), 0);
	test_set_control(perfctr, control);
	test_resume(perfctr);
}

void sw_control(struct vperfctr_control *control, unsigned int i,
		u32 event, u64 evntsel)
{
	control->cpu_control.pmc_map[i] = PERFCTR_MAP_SOFTWARE | event;
	control->cpu_control.evntsel[i] = evntsel;
}

MODULE_DESCRIPTION("KUnit tests for the virtual per-process counters");
MODULE_LICENSE("GPL");
