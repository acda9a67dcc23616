// SPDX-License-Identifier: LGPL-2.1
/*
 * perfctr 2.7's tables of processor events, for the machines this
 * library knows: the named hardware events of events.c, with the same
 * encodings, laid out as 2.7's struct perfctr_event_set.
 *
 * Names are those of the vendors' manuals: the Intel SDM's architectural
 * events, the mnemonics of AMD's PPRs for family 17h and later, the Arm
 * PMUv3 common events.
 */
#include <errno.h>
#include <stddef.h>

#include "internal.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Any general-purpose counter. */
#define ANY_GP		0xffff

/* The unit mask an event needs, as a set of one fixed value. */
#define FIXED_UM(v, text) { \
	.default_value = (v), \
	.type = perfctr_um_type_fixed, \
	.nvalues = 1, \
	.values = { { (v), (text) } }, \
}

static const struct perfctr_unit_mask intel_um_ref_cycles =
	FIXED_UM(0x01, "reference cycles");
static const struct perfctr_unit_mask intel_um_llc_references =
	FIXED_UM(0x4f, "LLC references");
static const struct perfctr_unit_mask intel_um_llc_misses =
	FIXED_UM(0x41, "LLC misses");

static const struct perfctr_event intel_arch_events[] = {
	{ 0x3c, ANY_GP, NULL, "UNHALTED_CORE_CYCLES",
	  "core cycles, not halted" },
	{ 0xc0, ANY_GP, NULL, "INSTRUCTIONS_RETIRED",
	  "instructions retired" },
	{ 0x3c, ANY_GP, &intel_um_ref_cycles, "UNHALTED_REFERENCE_CYCLES",
	  "reference cycles, not halted" },
	{ 0x2e, ANY_GP, &intel_um_llc_references, "LLC_REFERENCES",
	  "last-level cache references" },
	{ 0x2e, ANY_GP, &intel_um_llc_misses, "LLC_MISSES",
	  "last-level cache misses" },
	{ 0xc4, ANY_GP, NULL, "BRANCH_INSTRUCTIONS_RETIRED",
	  "branch instructions retired" },
	{ 0xc5, ANY_GP, NULL, "BRANCH_MISSES_RETIRED",
	  "mispredicted branches retired" },
};

static const struct perfctr_unit_mask amd_um_l2_requests =
	FIXED_UM(0xff, "all L2 cache requests");
static const struct perfctr_unit_mask amd_um_l2_misses =
	FIXED_UM(0x09, "L2 cache misses");

static const struct perfctr_event amd_events[] = {
	{ 0x76, ANY_GP, NULL, "LS_NOT_HALTED_CYC",
	  "core cycles, not halted" },
	{ 0xc0, ANY_GP, NULL, "EX_RET_INSTR",
	  "instructions retired" },
	{ 0xc2, ANY_GP, NULL, "EX_RET_BRN",
	  "branch instructions retired" },
	{ 0xc3, ANY_GP, NULL, "EX_RET_BRN_MISP",
	  "mispredicted branches retired" },
	{ 0x60, ANY_GP, &amd_um_l2_requests, "L2_REQUEST_G1",
	  "L2 cache accesses" },
	{ 0x64, ANY_GP, &amd_um_l2_misses, "L2_CACHE_REQ_STAT",
	  "L2 cache misses" },
};

static const struct perfctr_event arm64_pmuv3_events[] = {
	{ 0x11, ANY_GP, NULL, "CPU_CYCLES",
	  "CPU cycles" },
	{ 0x08, ANY_GP, NULL, "INST_RETIRED",
	  "instructions architecturally executed" },
	{ 0x21, ANY_GP, NULL, "BR_RETIRED",
	  "branches architecturally executed" },
	{ 0x10, ANY_GP, NULL, "BR_MIS_PRED",
	  "branches mispredicted or not predicted" },
	{ 0x04, ANY_GP, NULL, "L1D_CACHE",
	  "L1 data cache accesses" },
	{ 0x03, ANY_GP, NULL, "L1D_CACHE_REFILL",
	  "L1 data cache refills" },
};

#define EVENT_SET(type, table) { \
	.cpu_type = (type), \
	.event_prefix = "", \
	.include = NULL, \
	.nevents = ARRAY_SIZE(table), \
	.events = (table), \
}

#define NO_EVENTS(type) { \
	.cpu_type = (type), \
	.event_prefix = "", \
	.include = NULL, \
	.nevents = 0, \
	.events = NULL, \
}

static const struct perfctr_event_set event_sets[] = {
	NO_EVENTS(PERFCTR_X86_GENERIC),
	EVENT_SET(PERFCTR_X86_INTEL_ARCH, intel_arch_events),
	EVENT_SET(PERFCTR_X86_AMD, amd_events),
	NO_EVENTS(PERFCTR_ARM64_GENERIC),
	EVENT_SET(PERFCTR_ARM64_PMUV3, arm64_pmuv3_events),
};

const struct perfctr_event_set *perfctr_cpu_event_set(unsigned int cpu_type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_sets); i++)
		if (event_sets[i].cpu_type == cpu_type)
			return &event_sets[i];
	errno = EINVAL;
	return NULL;
}
