/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counter hardware the programming suites run on, and the steps of
 * their cases: a control built counter by counter, checked, enabled and
 * disabled as the generic code does it.
 */
#ifndef _ARCH_X86_PERFCTR_TEST_PMU_H
#define _ARCH_X86_PERFCTR_TEST_PMU_H

#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/perfctr.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/types.h>

#include "perfctr.h"
#include "test_cpus.h"
#include "../../../kernel/perfctr/internal.h"
#include "../../../kernel/perfctr/test_helpers.h"

/* The most MSR writes a case looks at, in order. */
#define MAX_WRITES	16

struct msr_write {
	u32 msr;
	u64 value;
};

/* The imitated hardware of one case, its test->priv. */
struct program_test_ctx {
	const struct x86_perfctr_desc *desc;
	const struct x86_perfctr_desc *skylake;
	u64 reserved;		/* bit i: counter i reserved by us */
	u64 taken;		/* bit i: counter i held by perf */
	unsigned int reserve_calls;
	struct msr_write writes[MAX_WRITES];
	unsigned int nr_writes;
	u32 last_read;
	struct msr_write reads[4];	/* what rdmsr returns, 0x1234 else */
	u32 lvtpc;		/* the LVTPC entry after the last PMI */
	unsigned int overflow_calls;
	int pce;			/* -1: untouched, else last set */
	struct perfctr_cpu_control control;
	struct perfctr_cpu_state state;
	struct perfctr_plan plan;
	void *hw;			/* a suite's own imitated hardware */
};

int x86_perfctr_test_init(struct kunit *test);
bool x86_perfctr_test_reserve_counter(u32 ctr_msr, u32 sel_msr);
int x86_perfctr_test_msr_selector(u32 msr);
int x86_perfctr_test_msr_counter(u32 msr);

/* Add counter @map with @evntsel to the control, a-mode or i-mode. */
static inline void add(struct program_test_ctx *c, u32 map, u64 evntsel,
		       s64 ireset)
{
	struct perfctr_cpu_control *cc = &c->control;
	unsigned int i = cc->nractrs + cc->nrictrs;

	cc->pmc_map[i] = map;
	cc->evntsel[i] = evntsel;
	cc->ireset[i] = ireset;
	if (ireset)
		cc->nrictrs++;
	else
		cc->nractrs++;
}

/* The state as the core sets it up from the control. */
static inline void setup_state(struct program_test_ctx *c)
{
	const struct perfctr_cpu_control *cc = &c->control;
	unsigned int i;

	c->state.cstatus = (cc->nrictrs << 16) | cc->nractrs;
	for (i = 0; i < cc->nractrs + cc->nrictrs; i++)
		c->state.pmc[i].map = cc->pmc_map[i];
}

/* Start and stop the counters as the core does: interrupts off. */
static inline void enable(struct program_test_ctx *c)
{
	unsigned long flags;

	arch_perfctr_prepare(&c->control, &c->plan);
	local_irq_save(flags);
	arch_perfctr_enable(&c->plan);
	local_irq_restore(flags);
}

static inline void disable(struct program_test_ctx *c)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_perfctr_disable(&c->state);
	local_irq_restore(flags);
}

static inline void expect_writes(struct kunit *test,
				 const struct msr_write *want, unsigned int n)
{
	struct program_test_ctx *c = test->priv;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, c->nr_writes, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].msr, want[i].msr,
				    "write %u", i);
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].value, want[i].value,
				    "write %u to %#x", i, want[i].msr);
	}
	c->nr_writes = 0;
}

/* The whole control, as vperfctr_control() checks it. */
static inline int check(struct program_test_ctx *c, bool allow_kernel)
{
	struct vperfctr_control control = {
		.cpu_control = c->control,
		.si_signo = SIGIO,
	};

	return vperfctr_check_control(&control, allow_kernel);
}

/*
 * The counters are taken through the reservation API as a Skylake has
 * them, whatever the processor imitated, so that the NMI handler knows
 * them to be ours.
 */
static inline void take_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	x86_perfctr_active_desc = c->skylake;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	x86_perfctr_active_desc = desc;
}

static inline void give_back_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	x86_perfctr_active_desc = c->skylake;
	arch_perfctr_release();
	x86_perfctr_active_desc = desc;
}

/* Arm the control's counters on this CPU, and forget the writes. */
static inline void arm(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	arch_perfctr_prepare(&c->control, &c->plan);
	irqs_off(arch_perfctr_enable(&c->plan));
	c->nr_writes = 0;
}

/* Disarm this CPU again, nothing armed or dirty; writes are kept. */
static inline void disarm(struct program_test_ctx *c)
{
	unsigned int nr_writes = c->nr_writes;
	struct msr_write writes[MAX_WRITES];

	memcpy(writes, c->writes, sizeof(writes));
	memset(&c->state, 0, sizeof(c->state));
	memset(&c->plan, 0, sizeof(c->plan));
	irqs_off(arch_perfctr_enable(&c->plan));
	irqs_off(arch_perfctr_user_read(true));
	memcpy(c->writes, writes, sizeof(writes));
	c->nr_writes = nr_writes;
}

#endif /* _ARCH_X86_PERFCTR_TEST_PMU_H */
