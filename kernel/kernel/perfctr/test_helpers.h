/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit tests of the core share: a state per test, and a fake
 * PMU in place of the driver.
 */
#ifndef _KERNEL_PERFCTR_TEST_HELPERS_H
#define _KERNEL_PERFCTR_TEST_HELPERS_H

#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/perfctr_pmu.h>

struct vperfctr;
struct vperfctr_control;

/*
 * A call as the core's callers make it, and as the contract of the
 * driver has it: interrupts off.
 */
#define irqs_off(call)					\
	do {						\
		unsigned long __flags;			\
							\
		local_irq_save(__flags);		\
		call;					\
		local_irq_restore(__flags);		\
	} while (0)

struct vperfctr_test_ctx {
	struct vperfctr *perfctr;
	u64 tsc;
	unsigned int tsc_reads;
	u64 hw[4];
	unsigned int counter_reads;
	u32 width;
	u32 restarts;		/* bit m: counter m restarts at enable */
	int control_err;	/* what the driver says of a whole control */
	bool enabled;
	bool user_read_ok;	/* what the driver says of rdpmc */
	int user_read;		/* -1: never asked, else the last answer */
	unsigned int user_read_calls;
	unsigned int switch_calls;	/* arch_perfctr_switch() */
	const struct perfctr_cpu_state *switch_prev;	/* its last @prev */
	struct perfctr_pmu pmu;	/* four counters of @width bits */
};

struct vperfctr_test_ctx *vperfctr_test_ctx(void);
int vperfctr_test_init(struct kunit *test);
void vperfctr_test_exit(struct kunit *test);
void use_fake_pmu(struct kunit *test, u32 width);
void fake_count(struct vperfctr_test_ctx *ctx, u32 map, u64 n);
void tsc_control(struct vperfctr_control *control, u32 tsc_on);
void start_tsc(struct kunit *test, u64 at);
struct vperfctr_control *new_control(struct kunit *test);
void start_control(struct kunit *test, struct vperfctr *perfctr,
		   struct vperfctr_control *control);
void sw_control(struct vperfctr_control *control, unsigned int i,
		u32 event, u64 evntsel);
void test_set_control(struct vperfctr *perfctr,
		      const struct vperfctr_control *control);
u32 test_suspend(struct vperfctr *perfctr);
void test_resume(struct vperfctr *perfctr);

#endif /* _KERNEL_PERFCTR_TEST_HELPERS_H */
