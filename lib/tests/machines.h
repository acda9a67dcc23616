/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Made-up machines, as perfctr_info describes them, for the tests of the
 * library's event names and of perfex's use of them.
 */
#ifndef LIBPERFCTR_TESTS_MACHINES_H
#define LIBPERFCTR_TESTS_MACHINES_H

#include <linux/perfctr.h>

/* Intel architectural perfmon: 4 general-purpose counters, 3 fixed. */
static const struct perfctr_info intel = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.cpu_features = PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_PCINT,
	.cpu_khz = 4000000,
	.tsc_to_cpu_mult = 1,
	.nrctrs = 4,
	.ctr_width = 48,
	.nrfixed = 3,
	.fixed_width = 48,
	.driver_version = "6.0",
};

/*
 * Intel Ice Lake: 8 general-purpose counters, 4 fixed, fixed counter 3
 * counting the slots, and the four TopDown level 1 categories.
 */
static const struct perfctr_info icelake = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.cpu_features = PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_PCINT | PERFCTR_FEATURE_TOPDOWN,
	.cpu_khz = 3000000,
	.tsc_to_cpu_mult = 1,
	.nrctrs = 8,
	.ctr_width = 48,
	.nrfixed = 4,
	.fixed_width = 48,
	.nrmetrics = 4,
	.driver_version = "6.0",
};

/* Sapphire Rapids: as Ice Lake, and the four level 2 categories too. */
static const struct perfctr_info sapphire_rapids = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.cpu_features = PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_PCINT | PERFCTR_FEATURE_TOPDOWN,
	.cpu_khz = 2000000,
	.tsc_to_cpu_mult = 1,
	.nrctrs = 8,
	.ctr_width = 48,
	.nrfixed = 4,
	.fixed_width = 48,
	.nrmetrics = 8,
	.driver_version = "6.0",
};

/* AMD core counters: 6 general-purpose counters. */
static const struct perfctr_info amd = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_AMD,
	.cpu_features = PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_PCINT,
	.cpu_khz = 3600000,
	.tsc_to_cpu_mult = 1,
	.nrctrs = 6,
	.ctr_width = 48,
	.driver_version = "6.0",
};

/* No PMU, as under QEMU: the TSC only. */
static const struct perfctr_info tsc_only = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_X86_GENERIC,
	.cpu_features = PERFCTR_FEATURE_RDTSC,
	.cpu_khz = 2000000,
	.tsc_to_cpu_mult = 1,
	.driver_version = "6.0",
};

/*
 * Arm PMUv3 as QEMU's virt machine has it: 6 event counters of 32 bits
 * and the 64-bit cycle counter.  The CPU clock is not known on arm64.
 */
static const struct perfctr_info arm64_pmuv3 = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_ARM64_PMUV3,
	.cpu_features = PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_PCINT,
	.nrctrs = 6,
	.ctr_width = 32,
	.nrfixed = 1,
	.fixed_width = 64,
	.driver_version = "6.0",
};

/* arm64 with no PMU perfctr may use: the generic timer only. */
static const struct perfctr_info arm64_timer = {
	.abi_version = PERFCTR_ABI_VERSION,
	.cpu_type = PERFCTR_ARM64_GENERIC,
	.cpu_features = PERFCTR_FEATURE_RDTSC,
	.driver_version = "6.0",
};

#endif /* LIBPERFCTR_TESTS_MACHINES_H */
