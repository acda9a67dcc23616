/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processors the x86 KUnit suites imitate: CPUID as recorded on each,
 * and the description detection must make of it.
 */
#ifndef _ARCH_X86_PERFCTR_TEST_CPUS_H
#define _ARCH_X86_PERFCTR_TEST_CPUS_H

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/perfctr.h>
#include <linux/types.h>

#include "perfctr.h"

struct x86_perfctr_test_leaf {
	u32 leaf;
	u32 regs[4];		/* EAX, EBX, ECX, EDX */
};

/* Tables of recorded leaves end with this one. */
#define TEST_CPUID_END	0xffffffff

/**
 * struct x86_perfctr_test_cpu - a processor, as recorded
 * @name:	what the test log calls it
 * @leaves:	its CPUID leaves, up to TEST_CPUID_END; the leaves not listed
 *		read as zero
 * @perf_capabilities: its IA32_PERF_CAPABILITIES
 * @expected:	the description detection must make of it, clock rates
 *		aside
 */
struct x86_perfctr_test_cpu {
	const char				*name;
	const struct x86_perfctr_test_leaf	*leaves;
	u64					perf_capabilities;
	struct x86_perfctr_desc			expected;
};

/* The recorded processors, in x86_perfctr_test_cpus[]. */
enum x86_perfctr_test_cpu_id {
	TEST_CPU_SKYLAKE,
	TEST_CPU_SKYLAKE_NO_APIC,
	TEST_CPU_ICELAKE,
	TEST_CPU_SAPPHIRE_RAPIDS,
	TEST_CPU_ALDER_LAKE_P,
	TEST_CPU_ALDER_LAKE_E,
	TEST_CPU_PERFMON_V1,
	TEST_CPU_PERFMON_V2_UNENUMERATED_FIXED,
	TEST_CPU_PERFMON_V2_UNENUMERATED_FIXED_VM,
	TEST_CPU_ZEN2,
	TEST_CPU_ZEN4,
	TEST_CPU_K10,
	TEST_CPU_K8,
	TEST_CPU_KVM_INTEL_NO_VPMU,
	TEST_CPU_KVM_AMD_NO_VPMU,
	TEST_CPU_QEMU_TCG,
	TEST_NR_CPUS
};

extern const struct x86_perfctr_test_cpu x86_perfctr_test_cpus[TEST_NR_CPUS];

const void *x86_perfctr_test_cpu_params(const void *prev, char *desc);
void x86_perfctr_test_cpuid(const struct x86_perfctr_test_cpu *cpu, u32 leaf,
			    u32 regs[4]);
void x86_perfctr_test_keep_desc(struct kunit *test);
void x86_perfctr_test_detect(struct kunit *test,
			     const struct x86_perfctr_test_cpu *cpu,
			     struct x86_perfctr_desc *desc);
const struct x86_perfctr_desc *
x86_perfctr_test_desc(struct kunit *test, const struct x86_perfctr_test_cpu *cpu);

/* Event selector bits, as the SDM and the APM number them. */
#define SEL_USR		BIT_ULL(16)
#define SEL_OS		BIT_ULL(17)
#define SEL_PC		BIT_ULL(19)
#define SEL_INT		BIT_ULL(20)
#define SEL_ANY		BIT_ULL(21)
#define SEL_EN		BIT_ULL(22)
/* INST_RETIRED.ANY_P and UNHALTED_CORE_CYCLES, architectural events. */
#define INST_RETIRED	0x00c0
#define CORE_CYCLES	0x003c

/* The description detection makes of recorded processor @id. */
static inline const struct x86_perfctr_desc *
cpu_desc(struct kunit *test, enum x86_perfctr_test_cpu_id id)
{
	return x86_perfctr_test_desc(test, &x86_perfctr_test_cpus[id]);
}

#endif /* _ARCH_X86_PERFCTR_TEST_CPUS_H */
