// SPDX-License-Identifier: GPL-2.0
/*
 * vperfctr_control(): the TSC started, stopped and started again, and every
 * malformed control refused with EINVAL; the driver as /sys/kernel/perfctr/
 * describes it and, on a machine without a PMU, the TSC-only driver, which
 * refuses every hardware counter.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <linux/perfctr.h>

#include "vperfctr_harness.h"

/* vperfctr_control() ------------------------------------------------ */

TEST_F(vperfctr, new_state_is_stopped_and_zero)
{
	struct vperfctr_control control;
	struct perfctr_sum_ctrs sum;

	memset(&sum, 0xff, sizeof(sum));
	memset(&control, 0xff, sizeof(control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &sum, &control, NULL));
	ASSERT_TRUE(all_zero(&sum, sizeof(sum)));
	ASSERT_TRUE(all_zero(&control, sizeof(control)));
}

TEST_F(vperfctr, control_tsc_on_starts_tsc)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd)) {
		TH_LOG("vperfctr_control: %s", strerror(errno));
	}
	before = read_tsc_sum(self->fd);
	spin_ms(1);
	after = read_tsc_sum(self->fd);
	ASSERT_LT(before, after);
}

/*
 * A busy host that holds the guest up around a sleep's system calls
 * only adds to what the sleep counts, so the least of three sleeps is
 * judged: a TSC that ran while asleep would count 50 ms in each.
 */
TEST_F(vperfctr, tsc_counts_running_not_sleeping)
{
	__u64 t0, t1, t2, slept = ~0ull;
	int i;

	ASSERT_EQ(0, start_tsc(self->fd));
	t0 = read_tsc_sum(self->fd);
	spin_ms(50);
	t1 = read_tsc_sum(self->fd);
	for (i = 0; i < 3; i++) {
		t2 = read_tsc_sum(self->fd);
		sleep_ms(50);
		t2 = read_tsc_sum(self->fd) - t2;
		if (t2 < slept)
			slept = t2;
	}

	ASSERT_GT(t1 - t0, 4 * slept) {
		TH_LOG("50 ms spinning: %llu ticks, 50 ms sleeping: %llu ticks",
		       (unsigned long long)(t1 - t0),
		       (unsigned long long)slept);
	}
}

TEST_F(vperfctr, control_tsc_off_stops_counting)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_EQ(0, stop_counters(self->fd));
	before = read_tsc_sum(self->fd);
	spin_ms(5);
	after = read_tsc_sum(self->fd);
	ASSERT_EQ(before, after);
}

/* TSC off and a counter on: the counters restart, the TSC from zero. */
TEST_F(vperfctr, control_tsc_off_resets_tsc_sum)
{
	struct vperfctr_control control;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(1);
	ASSERT_NE(0ull, read_tsc_sum(self->fd));
	memset(&control, 0, sizeof(control));
	add_amode(&control, SW_EVENT(PAGE_FAULTS), PERFCTR_SW_USR);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0ull, read_tsc_sum(self->fd));
}

/*
 * A control that enables nothing restarts nothing: it keeps every sum,
 * without preserve bits (Documentation/perfctr/virtual.rst; perfctr 2.7's vperfctr_stop()).
 * The next control that restarts resets the sums as usual.
 */
TEST_F(vperfctr, stop_keeps_every_sum)
{
	struct perfctr_sum_ctrs before, after;
	struct vperfctr_control control;

	ASSERT_EQ(0, start_faults(self->fd));
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	spin_ms(1);
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &before, NULL, NULL));
	ASSERT_NE(0ull, before.tsc);
	ASSERT_LE(FRESH_PAGES, before.pmc[0]);
	ASSERT_EQ(0, touch_fresh_pages(FRESH_PAGES));
	spin_ms(1);
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));

	/* Stopped again: still kept. */
	ASSERT_EQ(0, stop_counters(self->fd));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_EQ(0, memcmp(&before, &after, sizeof(before)));

	/* Restarted: the TSC goes on from its sum, the fault count from 0. */
	fault_control(&control);
	ASSERT_EQ(0, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(0, sys_vperfctr_read(self->fd, &after, NULL, NULL));
	ASSERT_LE(before.tsc, after.tsc);
	ASSERT_GT(FRESH_PAGES, after.pmc[0]);
}

TEST_F(vperfctr, control_tsc_on_again_keeps_tsc_sum)
{
	__u64 before, after;

	ASSERT_EQ(0, start_tsc(self->fd));
	spin_ms(5);
	before = read_tsc_sum(self->fd);
	ASSERT_EQ(0, start_tsc(self->fd));
	after = read_tsc_sum(self->fd);
	ASSERT_LE(before, after);
}

TEST_F(vperfctr, control_with_bad_pointer_fails_with_efault)
{
	ASSERT_EQ(-1, sys_vperfctr_control(self->fd, (void *)1));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(vperfctr, control_after_unlink_fails_with_esrch)
{
	ASSERT_EQ(0, sys_vperfctr_unlink(self->fd));
	ASSERT_EQ(-1, start_tsc(self->fd));
	ASSERT_EQ(ESRCH, errno);
}

/*
 * Controls that are wrong in exactly one field, the TSC being on in all
 * of them.  The TSC-only driver has no PMCs, so any a-mode or i-mode
 * hardware counter (a pmc_map[] entry without PERFCTR_MAP_SOFTWARE) is
 * more than it has.  Fault counters count user mode only here: kernel
 * mode may need privilege, which is another error.
 */
FIXTURE(bad_control)
{
	int fd;
};

FIXTURE_VARIANT(bad_control)
{
	struct vperfctr_control control;
};

FIXTURE_VARIANT_ADD(bad_control, flags_set)
{
	.control = { .cpu_control.tsc_on = 1, .flags = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved0_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved0 = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved1_0_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved1[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, reserved1_1_set)
{
	.control = { .cpu_control.tsc_on = 1, ._reserved1[1] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved0_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved0 = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved1_0_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved1[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, cpu_reserved1_3_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control._reserved1[3] = 1ull << 63 },
};

FIXTURE_VARIANT_ADD(bad_control, one_amode_counter_on_tsc_only_driver)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nractrs = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, one_imode_counter_on_tsc_only_driver)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nrictrs = 1, .si_signo = SIGIO },
};

FIXTURE_VARIANT_ADD(bad_control, more_amode_counters_than_the_abi_has)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.nractrs = PERFCTR_MAX_NRCTRS + 1 },
};

FIXTURE_VARIANT_ADD(bad_control, tsc_on_not_a_boolean)
{
	.control = { .cpu_control.tsc_on = 2 },
};

FIXTURE_VARIANT_ADD(bad_control, si_signo_negative)
{
	.control = { .cpu_control.tsc_on = 1, .si_signo = -1 },
};

FIXTURE_VARIANT_ADD(bad_control, si_signo_beyond_last_signal)
{
	.control = { .cpu_control.tsc_on = 1, .si_signo = 65 },
};

FIXTURE_VARIANT_ADD(bad_control, pmc_map_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.pmc_map[0] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, evntsel_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.evntsel[PERFCTR_MAX_NRCTRS - 1] = 1 },
};

FIXTURE_VARIANT_ADD(bad_control, ireset_of_unused_counter_set)
{
	.control = { .cpu_control.tsc_on = 1, .cpu_control.ireset[0] = -1 },
};

FIXTURE_VARIANT_ADD(bad_control, software_counter_plus_hardware_counter_on_tsc_only_driver)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 2,
			.pmc_map = { SW_EVENT(PAGE_FAULTS), 0 },
			.evntsel = { PERFCTR_SW_USR, 0 },
		},
	},
};

/* Software counters: the event, its evntsel and its ireset. */

FIXTURE_VARIANT_ADD(bad_control, software_event_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_SOFTWARE,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, software_event_beyond_sw_max)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_SOFTWARE | (PERFCTR_SW_MAX + 1),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, software_event_all_ones)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = 0xffffffffu,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, page_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, minor_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(MINOR_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, major_faults_with_evntsel_0)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(MAJOR_FAULTS),
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, page_faults_with_evntsel_bit_other_than_usr_os)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR | 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, task_clock_with_nonzero_evntsel)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(TASK_CLOCK),
			.evntsel[0] = 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, context_switches_with_evntsel_usr)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(CONTEXT_SWITCHES),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, cpu_migrations_with_nonzero_evntsel)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(CPU_MIGRATIONS),
			.evntsel[0] = 1,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, amode_software_counter_with_negative_ireset)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, amode_software_counter_with_positive_ireset)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(TASK_CLOCK),
			.ireset[0] = 10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_ireset_0)
{
	.control = {
		.si_signo = OVF_SIGNAL,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_positive_ireset)
{
	.control = {
		.si_signo = OVF_SIGNAL,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(CONTEXT_SWITCHES),
			.ireset[0] = 10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_without_si_signo)
{
	.control = {
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
};

FIXTURE_VARIANT_ADD(bad_control, imode_software_counter_with_si_signo_beyond_last_signal)
{
	.control = {
		.si_signo = 65,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
			.ireset[0] = -10,
		},
	},
};

FIXTURE_SETUP(bad_control)
{
	self->fd = -1;
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	self->fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(bad_control)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(bad_control, is_rejected_with_einval)
{
	struct vperfctr_control control = variant->control;

	ASSERT_EQ(-1, sys_vperfctr_control(self->fd, &control));
	ASSERT_EQ(EINVAL, errno);
}

/* perfctr_info in sysfs ----------------------------------------------- */

TEST(sysfs_info_has_every_field)
{
	static const char * const names[] = {
		"abi_version", "driver_version", "driver", "cpu_type",
		"cpu_features", "cpu_khz", "tsc_to_cpu_mult", "nrctrs",
		"ctr_width", "nrfixed", "fixed_width", "nrmetrics",
	};
	char buf[64], path[128];
	unsigned int i;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), PERFCTR_SYSFS "%s", names[i]);
		EXPECT_STRNE("", sysfs_text(names[i], buf, sizeof(buf))) {
			TH_LOG("%s is missing or empty", path);
		}
	}
}

TEST(sysfs_info_abi_version_matches_header)
{
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_EQ(PERFCTR_ABI_VERSION, sysfs_value("abi_version"));
}

TEST(sysfs_info_says_user_space_may_read_the_tsc)
{
	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	ASSERT_TRUE(sysfs_value("cpu_features") & PERFCTR_FEATURE_RDTSC);
	ASSERT_LE(1, sysfs_value("tsc_to_cpu_mult"));
	/* x86 knows its core clock; arm64 has no way to, and says 0. */
	ASSERT_EQ(sysfs_value("cpu_type") < PERFCTR_ARM64_GENERIC,
		  sysfs_value("cpu_khz") > 0);
}

TEST(sysfs_info_is_read_only)
{
	int fd;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	fd = open(PERFCTR_SYSFS "nrctrs", O_WRONLY);
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(-1, fd);
	ASSERT_EQ(EACCES, errno);
}

TEST(cpu_without_pmu_gets_the_tsc_only_driver)
{
	const char *pmu = cpu_pmu_announced();
	char buf[64];

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	if (pmu)
		SKIP(return, "%s", pmu);
	ASSERT_EQ(TSC_ONLY_CPU_TYPE, sysfs_value("cpu_type"));
	ASSERT_STREQ(TSC_ONLY_DRIVER, sysfs_text("driver", buf, sizeof(buf)));
	ASSERT_EQ(0, sysfs_value("nrctrs"));
	ASSERT_EQ(0, sysfs_value("ctr_width"));
	ASSERT_EQ(0, sysfs_value("nrfixed"));
	ASSERT_EQ(0, sysfs_value("fixed_width"));
	ASSERT_EQ(0, sysfs_value("nrmetrics"));
	ASSERT_FALSE(sysfs_value("cpu_features") & PERFCTR_FEATURE_TOPDOWN);
	ASSERT_FALSE(sysfs_value("cpu_features") & PERFCTR_FEATURE_RDPMC);
	ASSERT_FALSE(sysfs_value("cpu_features") & PERFCTR_FEATURE_PCINT);
}

/* TopDown: a metric count of 0, 4 or 8, and the feature bit with it. */
TEST(sysfs_info_nrmetrics_goes_with_the_topdown_feature)
{
	long nrmetrics = sysfs_value("nrmetrics");

	ASSERT_TRUE(nrmetrics == 0 || nrmetrics == 4 || nrmetrics == 8);
	ASSERT_EQ(nrmetrics != 0,
		  !!(sysfs_value("cpu_features") & PERFCTR_FEATURE_TOPDOWN));
}

/*
 * Where the processor has no TopDown metrics (every emulated one), a
 * metric counter, and the slots counter that the metrics divide, are
 * counters it does not have.
 */
TEST(topdown_counters_refused_without_metrics)
{
	struct vperfctr_control metric = {
		.cpu_control = {
			.nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_X86_METRIC |
				      PERFCTR_X86_TOPDOWN_RETIRING,
			.evntsel[0] = 0x10000,	/* USR */
		},
	};
	struct vperfctr_control slots = metric;
	int fd;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	if (sysfs_value("nrmetrics"))
		SKIP(return, "this processor has TopDown metrics");
	slots.cpu_control.pmc_map[0] = PERFCTR_MAP_X86_FIXED |
				       PERFCTR_X86_FIXED_SLOTS;
	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &metric));
	ASSERT_EQ(EINVAL, errno);
	if (!sysfs_value("nrfixed")) {
		ASSERT_EQ(-1, sys_vperfctr_control(fd, &slots));
		ASSERT_EQ(EINVAL, errno);
	}
	close(fd);
}

/*
 * With no PMU to drive, every control with a hardware counter is refused
 * as asking for more counters than there are, and the state page never
 * lets the owner use rdpmc.
 */
TEST(tsc_only_driver_refuses_hardware_counters_with_einval)
{
	struct vperfctr_control gp = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = 0,
			.evntsel[0] = 0x100c0,	/* INST_RETIRED, USR */
		},
	};
	struct vperfctr_control fixed = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = PERFCTR_MAP_X86_FIXED | 1,
			.evntsel[0] = 0x10000,	/* USR */
		},
	};
	struct vperfctr_control imode = {
		.si_signo = SIGIO,
		.cpu_control = {
			.tsc_on = 1, .nrictrs = 1,
			.pmc_map[0] = 0,
			.evntsel[0] = 0x1003c,	/* core cycles, USR */
			.ireset[0] = -1000,
		},
	};
	struct vperfctr_control sw = {
		.cpu_control = {
			.tsc_on = 1, .nractrs = 1,
			.pmc_map[0] = SW_EVENT(PAGE_FAULTS),
			.evntsel[0] = PERFCTR_SW_USR,
		},
	};
	const struct vperfctr_state *page;
	int fd;

	if (perfctr_missing())
		SKIP(return, "%s", perfctr_missing());
	if (sysfs_value("nrctrs") || sysfs_value("nrfixed"))
		SKIP(return, "this machine has a PMU the driver uses");
	fd = sys_vperfctr_open(0, 1);
	ASSERT_GE(fd, 0);
	page = map_state(fd);
	ASSERT_NE(NULL, page);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &gp));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &fixed));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, sys_vperfctr_control(fd, &imode));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, sys_vperfctr_control(fd, &sw));
	ASSERT_FALSE(!!(page->flags & VPERFCTR_STATE_RDPMC));
	unmap_state(page);
	close(fd);
}

TEST_HARNESS_MAIN
