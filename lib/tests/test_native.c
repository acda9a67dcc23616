// SPDX-License-Identifier: LGPL-2.1
/*
 * Native event names through libpfm4, on made-up machines, with the PMU
 * forced: libpfm4 reads LIBPFM_FORCE_PMU once, so each PMU's cases run in
 * a child of their own, which hands its TAP counts back.  The encodings
 * themselves are checked against perf's tables by native-test.sh; here,
 * what we make of them: modes, the driver's bits, fixed counters, the
 * counters an event may use, and the messages.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <libperfctr.h>
#include "machines.h"
#include "tap.h"

#define USR	0x10000ull
#define OS	0x20000ull
#define BOTH	(USR | OS)
#define ANY	PERFCTR_EVENT_ANY_PMC
#define FIXED	PERFCTR_MAP_X86_FIXED

static struct perfctr_info icelake8;	/* Ice Lake, SMT off: 8 counters */
static struct perfctr_info intel_v2;	/* 2 fixed counters */

static int parse(struct perfctr_event_spec *ev, const char *str,
		 const struct perfctr_info *info, char *err)
{
	err[0] = '\0';
	return perfctr_event_parse(ev, str, info, err,
				   PERFCTR_EVENT_ERROR_SIZE);
}

/* @str parses on @info into selector @sel on counter @map. */
static void parses(const char *str, const struct perfctr_info *info,
		   __u64 sel, __u32 map, const char *name)
{
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	if (!tap_ok(parse(&ev, str, info, err) == 0, "%s parses", str)) {
		printf("#   %s\n", err);
		return;
	}
	tap_is_u64(ev.evntsel, sel, "%s: selector", str);
	tap_is_u64(ev.pmc_map, map, "%s: counter", str);
	tap_is_str(ev.name, name, "%s: its name", str);
}

/* @str fails on @info with @errnum and a message holding @part. */
static void fails(const char *str, const struct perfctr_info *info,
		  int errnum, const char *part)
{
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	int ret = parse(&ev, str, info, err);

	tap_is_int(ret == -1 ? errno : 0, errnum, "%s: refused", str);
	if (!tap_ok(strstr(err, part) != NULL, "%s: message says '%s'", str,
		    part))
		printf("#   %s\n", err);
}

static void test_skylake(void)
{
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	struct perfctr_native_pmu pmu;

	tap_ok(perfctr_native_pmu(&pmu, err, sizeof(err)) == 0 &&
	       !strcmp(pmu.name, "skl") && pmu.forced && pmu.nevents > 50,
	       "skl: the forced PMU, with its events");

	/* Both spellings, any case; modes ours or libpfm4's. */
	parses("INST_RETIRED.ANY_P:u", &intel, 0xc0 | USR, ANY,
	       "INST_RETIRED.ANY_P:u");
	parses("inst_retired:any_p", &intel, 0xc0 | BOTH, ANY,
	       "inst_retired:any_p");
	parses("MEM_LOAD_RETIRED.L3_MISS:k", &intel, 0x20d1 | OS, ANY,
	       "MEM_LOAD_RETIRED.L3_MISS:k");
	parses("BR_MISP_RETIRED.ALL_BRANCHES:u=1:k=0", &intel, 0xc5 | USR,
	       ANY, "BR_MISP_RETIRED.ALL_BRANCHES:u");
	parses("L1D.REPLACEMENT:uk", &intel, 0x151 | BOTH, ANY,
	       "L1D.REPLACEMENT:uk");
	/* libpfm4's modifiers: counter mask, invert, edge. */
	parses("INST_RETIRED:ANY_P:c=2:i:u", &intel,
	       0xc0 | USR | 2ull << 24 | 1ull << 23, ANY,
	       "INST_RETIRED:ANY_P:c=2:i:u");
	parses("UOPS_ISSUED.ANY:c=1:e:k", &intel,
	       0x10e | OS | 1ull << 24 | 1ull << 18, ANY,
	       "UOPS_ISSUED.ANY:c=1:e:k");
	/* No modifier: both modes, and a tool may retry user mode. */
	tap_ok(parse(&ev, "L1D.REPLACEMENT", &intel, err) == 0 &&
	       ev.implicit_modes, "no modifier: implicit modes");
	tap_ok(parse(&ev, "L1D.REPLACEMENT:u", &intel, err) == 0 &&
	       !ev.implicit_modes, ":u: modes given");
	/* Instructions and core cycles prefer their fixed counters. */
	tap_ok(parse(&ev, "INST_RETIRED.ANY_P", &intel, err) == 0 &&
	       ev.fixed == 0, "INST_RETIRED.ANY_P prefers fixed counter 0");
	tap_ok(parse(&ev, "CPU_CLK_UNHALTED.THREAD_P", &intel, err) == 0 &&
	       ev.fixed == 1, "CPU_CLK_UNHALTED.THREAD_P prefers fixed 1");
	tap_ok(parse(&ev, "INST_RETIRED:ANY_P:c=1", &intel, err) == 0 &&
	       ev.fixed == -1, "with a counter mask, no fixed counter");
	/* Fixed counters' own events go there and nowhere else. */
	parses("INST_RETIRED.ANY:u", &intel, USR, FIXED | 0,
	       "INST_RETIRED.ANY:u");
	parses("CPU_CLK_UNHALTED.REF_TSC", &intel, BOTH, FIXED | 2,
	       "CPU_CLK_UNHALTED.REF_TSC");
	parses("cpu_clk_unhalted:thread:k", &intel, OS, FIXED | 1,
	       "cpu_clk_unhalted:thread:k");
	fails("INST_RETIRED.ANY", &tsc_only, EOPNOTSUPP, "no hardware");
	fails("CPU_CLK_UNHALTED.REF_TSC", &intel_v2, EOPNOTSUPP,
	      "fixed counter 2 only");

	/* The generic names keep their meaning and encodings. */
	parses("instructions:u", &intel, 0xc0 | USR, ANY, "instructions:u");
	parses("r1c2", &intel, 0x1c2 | BOTH, ANY, "r1c2");

}

/* Skylake's names refused, each with its errno and why. */
static void test_skylake_refusals(void)
{
	fails("MEM_LOAD", &intel, EINVAL, "not an event of PMU skl");
	fails("MEM_LOAD", &intel, EINVAL, "closest: MEM_LOAD");
	fails("MEM_LOAD_RETIRED.L3_MIS", &intel, EINVAL, "L3_MISS");
	fails("INST_RETIRED.ANY_P:hv", &intel, EINVAL, "hypervisor");
	fails("INST_RETIRED.ANY_P:u=0:k=0", &intel, EINVAL, "no mode");
	fails("skl::INST_RETIRED.ANY_P", &intel, EINVAL, "LIBPFM_FORCE_PMU");
	fails("OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", &intel,
	      EOPNOTSUPP, "offcore");
	fails("INST_RETIRED.ANY_P", &amd, EOPNOTSUPP, "PMU skl");
	fails("INST_RETIRED.ANY_P", &arm64_pmuv3, EOPNOTSUPP, "PMU skl");
	fails("INST_RETIRED.ANY_P:intx=1", &intel, EINVAL, "bits");
	/* Modes in capitals too, as the names are. */
	parses("INST_RETIRED.ANY_P:U", &intel, 0xc0 | USR, ANY,
	       "INST_RETIRED.ANY_P:u");
	parses("INST_RETIRED.ANY_P:K", &intel, 0xc0 | OS, ANY,
	       "INST_RETIRED.ANY_P:k");
	parses("INST_RETIRED.ANY:U", &intel, USR, FIXED | 0,
	       "INST_RETIRED.ANY:u");

}

/* Skylake's events on the counters perf would give them. */
static void test_skylake_counters(void)
{
	struct perfctr_event_spec ev;
	struct vperfctr_control control;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	/*
	 * INST_RETIRED.PREC_DIST counts on counter 1 only (perf's tables):
	 * placed there, refused when it is taken, and never on another
	 * counter asked for by number.
	 */
	memset(&control, 0, sizeof(control));
	tap_ok(parse(&ev, "INST_RETIRED.PREC_DIST:u", &intel, err) == 0 &&
	       perfctr_event_add(&control, &ev, &intel, err,
				 sizeof(err)) == 0 &&
	       control.cpu_control.pmc_map[0] == 1,
	       "PREC_DIST goes on counter 1, the one that counts it");
	errno = 0;
	tap_ok(perfctr_event_add(&control, &ev, &intel, err,
				 sizeof(err)) == -1 && errno == ENOSPC &&
	       strstr(err, "only general-purpose counter 1 counts it on skl, "
		      "and it is in use"),
	       "a second PREC_DIST: ENOSPC, counter 1 is taken");
	printf("#   %s\n", err);
	memset(&control, 0, sizeof(control));
	tap_ok(parse(&ev, "0x101c0@0", &intel, err) == 0 &&
	       perfctr_event_add(&control, &ev, &intel, err,
				 sizeof(err)) == -1 && errno == EINVAL &&
	       strstr(err, "counter 0 cannot count it on skl (only 1)"),
	       "PREC_DIST asked for on counter 0: refused");
	/* Skylake without SMT: the memory events on counters 0-3 of 8. */
	memset(&control, 0, sizeof(control));
	{
		struct perfctr_info skl8 = intel;
		int i, ok = 1;

		skl8.nrctrs = 8;
		for (i = 0; ok && i < 4; i++)
			ok = parse(&ev, "L1D.REPLACEMENT", &skl8, err) == 0 &&
			     perfctr_event_add(&control, &ev, &skl8, err,
					       sizeof(err)) == i;
		tap_ok(ok && parse(&ev, "MEM_LOAD_RETIRED.L1_HIT", &skl8,
				   err) == 0 &&
		       perfctr_event_add(&control, &ev, &skl8, err,
					 sizeof(err)) == -1 && errno == ENOSPC,
		       "skl, 8 counters: MEM_LOAD_RETIRED on 0-3 only");
	}
	/* An unrestricted event still takes the first free counter. */
	memset(&control, 0, sizeof(control));
	tap_ok(parse(&ev, "L1D.REPLACEMENT", &intel, err) == 0 &&
	       perfctr_event_add(&control, &ev, &intel, err,
				 sizeof(err)) == 0 &&
	       control.cpu_control.pmc_map[0] == 0,
	       "L1D.REPLACEMENT goes on counter 0");
}

/* Ice Lake: most events count on counters 0-3 of 8 only. */
static void test_icelake(void)
{
	struct perfctr_event_spec ev, any;
	struct vperfctr_control control;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	int i, ok = 1;

	parses("TOPDOWN.SLOTS:u", &icelake, USR,
	       FIXED | PERFCTR_X86_FIXED_SLOTS, "TOPDOWN.SLOTS:u");
	/* libpfm4 says event 0 for TOPDOWN's others; perf, A4H. */
	parses("TOPDOWN.BACKEND_BOUND_SLOTS:u", &icelake, 0x2a4 | USR, ANY,
	       "TOPDOWN.BACKEND_BOUND_SLOTS:u");
	fails("TOPDOWN.SLOTS", &intel, EOPNOTSUPP, "fixed counter 3");

	/* L1D.REPLACEMENT: counters 0-3; BR_INST_RETIRED: any of 0-7. */
	memset(&control, 0, sizeof(control));
	if (parse(&ev, "L1D.REPLACEMENT:u", &icelake8, err) ||
	    parse(&any, "BR_INST_RETIRED.ALL_BRANCHES:u", &icelake8, err))
		ok = 0;
	for (i = 0; ok && i < 4; i++)
		ok = perfctr_event_add(&control, &any, &icelake8, err,
				       sizeof(err)) == i;
	tap_ok(ok && perfctr_event_add(&control, &ev, &icelake8, err,
				       sizeof(err)) == -1 && errno == ENOSPC &&
	       strstr(err, "counters 0-3 count it on icl"),
	       "icl: L1D.REPLACEMENT refused with counters 0-3 taken, 4-7 "
	       "free");
	printf("#   %s\n", err);
	tap_ok(perfctr_event_add(&control, &any, &icelake8, err,
				 sizeof(err)) == 4 &&
	       control.cpu_control.pmc_map[4] == 4,
	       "icl: an unrestricted event takes counter 4");
	/* perf's constraint is on the event code: modifiers do not lift it. */
	tap_ok(parse(&ev, "MEM_LOAD_RETIRED.L1_HIT:c=1:u", &icelake8,
		     err) == 0 &&
	       perfctr_event_add(&control, &ev, &icelake8, err,
				 sizeof(err)) == -1 && errno == ENOSPC,
	       "icl: MEM_LOAD_RETIRED.L1_HIT:c=1 on counters 0-3 too");
	tap_ok(parse(&ev, "r10001d1", &icelake8, err) == 0 &&
	       perfctr_event_add(&control, &ev, &icelake8, err,
				 sizeof(err)) == -1 && errno == ENOSPC,
	       "icl: and so does its raw selector");

	/* A name too long for the spec keeps its end and its modes. */
	tap_ok(parse(&ev, "OFFCORE_REQUESTS_OUTSTANDING."
		     "CYCLES_WITH_L3_MISS_DEMAND_DATA_RD:k", &icelake, err) == 0,
	       "icl: a name of 65 characters parses");
	printf("#   %s\n", ev.name);
	tap_is_str(ev.name + strlen(ev.name) - 9, "DATA_RD:k",
		   "icl: a long name shortened keeps its end and its mode");
	tap_ok(strlen(ev.name) == PERFCTR_EVENT_NAME_SIZE - 1 &&
	       strstr(ev.name, "..") != NULL,
	       "icl: shortened to fit, '..' for what is left out");
}

static void test_sapphire_rapids(void)
{
	struct perfctr_event_spec ev;
	struct vperfctr_control control;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	/* AMX_OPS_RETIRED counts on counter 0 only (perf's table). */
	memset(&control, 0, sizeof(control));
	tap_ok(parse(&ev, "r3c", &sapphire_rapids, err) == 0 &&
	       perfctr_event_add(&control, &ev, &sapphire_rapids, err,
				 sizeof(err)) == 0 &&
	       parse(&ev, "AMX_OPS_RETIRED.INT8:u", &sapphire_rapids,
		     err) == 0 &&
	       perfctr_event_add(&control, &ev, &sapphire_rapids, err,
				 sizeof(err)) == -1 && errno == ENOSPC &&
	       strstr(err, "only general-purpose counter 0 counts it on spr, "
		      "and it is in use"),
	       "spr: AMX_OPS_RETIRED refused with counter 0 taken");
	printf("#   %s\n", err);
	parses("TOPDOWN.BAD_SPEC_SLOTS", &sapphire_rapids, 0x4a4 | BOTH, ANY,
	       "TOPDOWN.BAD_SPEC_SLOTS");
	fails("UOPS_RETIRED.MS", &sapphire_rapids, EOPNOTSUPP, "MSR 0x3F7");
}

static void test_zen4(void)
{
	fails("RETIRED_INSTRUCTIONS:g", &amd, EINVAL, "guest");
	fails("RETIRED_SSE_AVX_FLOPS.ADD_SUB_FLOPS", &amd, EOPNOTSUPP,
	      "two counters paired");
	parses("RETIRED_INSTRUCTIONS:u", &amd, 0xc0 | USR, ANY,
	       "RETIRED_INSTRUCTIONS:u");
	/* An event code above 0xff goes in bits 35:32. */
	parses("DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM_IO_FAR", &amd,
	       0x4043 | BOTH, ANY,
	       "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM.DRAM_IO_FAR");
	fails("RETIRED_INSTRUCTIONS", &intel, EOPNOTSUPP,
	      "PMU amd64_fam19h_zen4");
}

static void test_unknown_pmu(void)
{
	struct perfctr_native_pmu pmu;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	tap_ok(perfctr_native_pmu(&pmu, err, sizeof(err)) == -1 &&
	       errno == ENODEV && strstr(err, "LIBPFM_FORCE_PMU=nosuch"),
	       "an unknown forced PMU: ENODEV, named");
	printf("#   %s\n", err);
	fails("INST_RETIRED.ANY_P", &intel, EINVAL,
	      "INST_RETIRED.ANY_P: unknown event (LIBPFM_FORCE_PMU=nosuch "
	      "names no PMU");
	/* perf's names of the fixed counters' events need no libpfm4. */
	parses("INST_RETIRED.ANY:u", &intel, USR, FIXED | 0,
	       "INST_RETIRED.ANY:u");
	tap_ok(perfctr_native_pmu_supported(0, &pmu) == 0 && pmu.name,
	       "the PMUs libpfm4 knows are listed all the same");
}

/* A library built without libpfm4: says so, and the rest works. */
static void test_without_libpfm(void)
{
	struct perfctr_native_event event;

	fails("INST_RETIRED.ANY_P", &intel, EINVAL,
	      "INST_RETIRED.ANY_P: unknown event (native event names need "
	      "libpfm4");
	tap_ok(perfctr_native_event(0, &event) == -1 && errno == ENOSYS,
	       "no events to list: ENOSYS");
	parses("INST_RETIRED.ANY:u", &intel, USR, FIXED | 0,
	       "INST_RETIRED.ANY:u");
	parses("instructions:u", &intel, 0xc0 | USR, ANY, "instructions:u");
}

/* Each PMU's cases in a child of their own, for libpfm4's sake. */
static void with_pmu(const char *name, void (*cases)(void))
{
	int fds[2], status;
	int counts[2];
	pid_t pid;

	if (pipe(fds) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		setenv("LIBPFM_FORCE_PMU", name, 1);
		cases();
		counts[0] = tap.count;
		counts[1] = tap.failed;
		if (write(fds[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], counts, sizeof(counts)) != sizeof(counts) ||
	    waitpid(pid, &status, 0) != pid || status != 0) {
		tap_ok(0, "%s: the child's cases ran to the end", name);
	} else {
		tap.count = counts[0];
		tap.failed = counts[1];
	}
	close(fds[0]);
}

/*
 * Was the library built with libpfm4?  Asked in a child: libpfm4 starts
 * once a process, with the LIBPFM_FORCE_PMU of then.
 */
static int built_with_libpfm(void)
{
	struct perfctr_native_pmu pmu;
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(perfctr_native_pmu_supported(0, &pmu) < 0 &&
		      errno == ENOSYS);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		abort();
	return WEXITSTATUS(status) == 0;
}

int main(void)
{
	icelake8 = icelake;
	icelake8.nrctrs = 8;
	intel_v2 = intel;
	intel_v2.nrfixed = 2;

	if (!built_with_libpfm()) {
		test_without_libpfm();
		return tap_done();
	}
	with_pmu("skl", test_skylake);
	with_pmu("skl", test_skylake_refusals);
	with_pmu("skl", test_skylake_counters);
	with_pmu("icl", test_icelake);
	with_pmu("spr", test_sapphire_rapids);
	with_pmu("amd64_fam19h_zen4", test_zen4);
	with_pmu("nosuch", test_unknown_pmu);
	return tap_done();
}
