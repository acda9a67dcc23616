// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_test.c - bare-metal test of the x86 PMU model of QEMU TCG
 * ("tcg-pmu=on", see the model's specification).
 *
 * A multiboot (v1) 32-bit kernel: runs at CPL 0 in protected mode, paging
 * off, and at CPL 3 for the user-mode tests.  It picks the suite from the
 * CPUID leaf 0 vendor string and prints kselftest-style TAP on COM1:
 *
 *   perfctr-check: suite pmu_model_intel   (or pmu_model_amd)
 *   TAP version 13
 *   1..N
 *   ok K <behaviour>  /  not ok K <behaviour>   ("# ..." lines explain)
 *   # Totals: pass:P fail:F xfail:0 xpass:0 skip:0 error:0
 *   perfctr-check: end
 *
 * Build:  make -C scripts/qemu/tests/model O=<outdir>
 * Run:    qemu-system-x86_64 -M pc -nographic -no-reboot -icount shift=0 \
 *           -cpu max,vendor=GenuineIntel,family=6,model=110,tcg-pmu=on \
 *           -m 128M -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
 *           -kernel model_test.elf
 *         (AMD: -cpu max,vendor=AuthenticAMD,family=25,model=1,tcg-pmu=on)
 *
 * Exit status of QEMU (isa-debug-exit writes (code << 1) | 1):
 *   1  every test passed (the kernel writes 0 to port 0xf4)
 *   3  at least one test failed (writes 1)
 *   anything else: the kernel never got to the end (e.g. 0 after a triple
 *   fault under -no-reboot, or a timeout); without isa-debug-exit the
 *   kernel halts after "perfctr-check: end".
 *
 * The counting tests need "-icount shift=0" (one instruction = one ns, the
 * model's counts are then exact).  They measure loop10(n), n turns of
 * exactly 10 instructions, for n = 0, 1000 and 100000 and check the counts
 * differ by exactly 10*n; the fixed cost around the loop cancels out.
 *
 * References.  Intel SDM (section numbers of 325462-078US, December 2022;
 * the same sections were 18.x in older editions): Vol. 3B chapter 20
 * "Performance Monitoring": 20.2.1.1 architectural performance monitoring
 * version 1 facilities, 20.2.1.2 pre-defined architectural events, 20.2.2
 * version 2 (fixed counters, IA32_PERF_GLOBAL_*), 20.2.3 version 3
 * (AnyThread), 20.2.6 full-width writes to performance counter registers;
 * Vol. 2 CPUID (leaves 01H, 0AH), RDPMC, RDMSR/WRMSR; Vol. 3A "Local Vector
 * Table" (its note that a performance monitoring counter interrupt sets the
 * LVT entry's mask bit); Vol. 4 table 2-2 (architectural MSRs).
 * AMD APM Vol. 2, 13.2 "Performance Monitoring Counters" (PerfEvtSel /
 * PERF_CTL layout, PerfCtr, RDPMC, core performance counter extensions,
 * Performance Monitoring Version 2 global control/status registers);
 * APM Vol. 3 appendix E (CPUID Fn8000_0001, Fn8000_0022).
 * Where this test checks a property that only the model's specification
 * fixes (e.g. unmodelled events count 0), the comment says "spec".
 */
#include "kernel.h"

/* Intel MSRs (SDM Vol. 4, table 2-2). */
#define IA32_PMC(i)			(0xc1u + (i))
#define IA32_PERFEVTSEL(i)		(0x186u + (i))
#define IA32_FIXED_CTR(i)		(0x309u + (i))
#define IA32_PERF_CAPABILITIES		0x345u
#define IA32_FIXED_CTR_CTRL		0x38du
#define IA32_PERF_GLOBAL_STATUS		0x38eu
#define IA32_PERF_GLOBAL_CTRL		0x38fu
#define IA32_PERF_GLOBAL_OVF_CTRL	0x390u
#define IA32_A_PMC(i)			(0x4c1u + (i))

/* AMD MSRs (APM Vol. 2 13.2, PPR). */
#define AMD_PERF_CTL(n)			(0xc0010200u + 2 * (n))
#define AMD_PERF_CTR(n)			(0xc0010201u + 2 * (n))
#define AMD_K7_PERF_CTL(n)		(0xc0010000u + (n))
#define AMD_K7_PERF_CTR(n)		(0xc0010004u + (n))
#define AMD_GLOBAL_STATUS		0xc0000300u
#define AMD_GLOBAL_CTL			0xc0000301u
#define AMD_GLOBAL_STATUS_CLR		0xc0000302u

/* PERFEVTSEL / PERF_CTL bits. */
#define EV_USR		(1ull << 16)
#define EV_OS		(1ull << 17)
#define EV_EDGE		(1ull << 18)
#define EV_INT		(1ull << 20)
#define EV_EN		(1ull << 22)
#define EV_INV		(1ull << 23)
#define EV_CMASK(n)	((u64)(n) << 24)
#define AMD_GUESTONLY	(1ull << 40)
#define AMD_HOSTONLY	(1ull << 41)

#define EV_INSTR	0xc0ull		/* both vendors, umask 0 */
#define EV_INTEL_CYC	0x3cull		/* UnHalted Core Cycles */
#define EV_INTEL_REF	0x013cull	/* UnHalted Reference Cycles */
#define EV_AMD_CYC	0x76ull		/* CPU clocks not halted */

#define INSTR_OS	(EV_EN | EV_OS | EV_INSTR)
#define INSTR_USR	(EV_EN | EV_USR | EV_INSTR)

#define CTR_BITS	48
#define CTR_MASK	((1ull << CTR_BITS) - 1)
#define CR4_PCE		(1u << 8)
#define RDPMC_FIXED	(1u << 30)

#define INTEL_NGP	4
#define INTEL_NFIXED	3
#define AMD_NCTR	6

/* ---------------------------------------------------------------- */
/* Test framework: one test function = one TAP line. */

struct test {
	const char *name;
	void (*fn)(void);
};

static int is_amd;
static int cur_fail;

/* Read at boot, before anything wrote a PMU MSR. */
static u64 boot_global_ctrl, boot_global_status;
static int boot_ctrl_fault, boot_status_fault;

#define FAIL(...)							\
	do {								\
		cur_fail = 1;						\
		kputs("# ");						\
		kprintf(__VA_ARGS__);					\
		kputs("\n");						\
	} while (0)

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			FAIL(__VA_ARGS__);				\
	} while (0)

#define INFO(...)							\
	do {								\
		kputs("# ");						\
		kprintf(__VA_ARGS__);					\
		kputs("\n");						\
	} while (0)

/* idx < 0: no index. */
static int check_eq(u64 got, u64 exp, const char *what, int idx)
{
	if (got == exp)
		return 1;
	cur_fail = 1;
	kprintf("# %s", what);
	if (idx >= 0)
		kprintf("[%d]", idx);
	kprintf(": got 0x%llx (%llu), expected 0x%llx (%llu)\n",
		got, got, exp, exp);
	return 0;
}

/* MSR accesses that must not fault. */
static u64 rd(u32 msr)
{
	u64 v;
	int f = rdmsr_safe(msr, &v);

	if (f)
		FAIL("rdmsr 0x%x faulted (vector %d)", msr, f);
	return v;
}

static void wr(u32 msr, u64 v)
{
	int f = wrmsr_safe(msr, v);

	if (f)
		FAIL("wrmsr 0x%x <- 0x%llx faulted (vector %d)", msr, v, f);
}

static void pmu_reset(void)
{
	int i;

	cli();
	write_cr4(read_cr4() & ~CR4_PCE);
	lapic_write(LAPIC_LVT_PMC, LVT_MASKED | VEC_PMI);
	if (is_amd) {
		wrmsr_safe(AMD_GLOBAL_CTL, 0);
		for (i = 0; i < AMD_NCTR; i++) {
			wrmsr_safe(AMD_PERF_CTL(i), 0);
			wrmsr_safe(AMD_PERF_CTR(i), 0);
		}
		wrmsr_safe(AMD_GLOBAL_STATUS_CLR, 0x3f);
		wrmsr_safe(AMD_GLOBAL_CTL, 0x3f);
	} else {
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0);
		for (i = 0; i < INTEL_NGP; i++) {
			wrmsr_safe(IA32_PERFEVTSEL(i), 0);
			wrmsr_safe(IA32_PMC(i), 0);
		}
		wrmsr_safe(IA32_FIXED_CTR_CTRL, 0);
		for (i = 0; i < INTEL_NFIXED; i++)
			wrmsr_safe(IA32_FIXED_CTR(i), 0);
		wrmsr_safe(IA32_PERF_GLOBAL_OVF_CTRL,
			   0xfull | 7ull << 32 | 3ull << 62);
		wrmsr_safe(IA32_PERF_GLOBAL_CTRL, 0xf);
	}
	pmi_count = 0;
	nmi_count = 0;
	irq_ctr = 0;
	irq_eip = 0;
	irq_ecx = 0;
	irq_lvt = 0;
	irq_rdpmc_idx = 0;
}

/* ---------------------------------------------------------------- */
/* Counting helpers. */

#define NRUNS 3
static const u32 loop_n[NRUNS] = { 0, 1000, 100000 };

struct counts {
	u64 v[NRUNS][8];
};

/*
 * For each n of loop_n: zero the counters ctr[], measure(en_msr, en_val,
 * fn, n) - start counting by writing en_val, run fn(n), write 0 - then
 * read the counters.
 */
static void run_counts(u32 en_msr, u64 en_val, void (*fn)(u32), int nctr,
		       const u32 *ctr, struct counts *c)
{
	int k, j;

	for (k = 0; k < NRUNS; k++) {
		u32 before;

		for (j = 0; j < nctr; j++)
			wr(ctr[j], 0);
		before = fault_count;
		measure(en_msr, (u32)en_val, (u32)(en_val >> 32), fn, loop_n[k]);
		if (fault_count != before)
			FAIL("measure: wrmsr 0x%x <- 0x%llx faulted (vector %u)",
			     en_msr, en_val, last_fault_vec);
		for (j = 0; j < nctr; j++)
			c->v[k][j] = rd(ctr[j]);
	}
}

static void show_counts(const char *what, const struct counts *c, int j)
{
	INFO("%s: n=0: %llu, n=1000: %llu, n=100000: %llu", what,
	     c->v[0][j], c->v[1][j], c->v[2][j]);
}

/* Counter j advanced by exactly per_turn per loop turn. */
static void expect_slope(const struct counts *c, int j, u32 per_turn,
			 const char *what)
{
	int k, ok = 1;

	for (k = 1; k < NRUNS; k++)
		ok &= check_eq(c->v[k][j] - c->v[0][j],
			       (u64)per_turn * loop_n[k], what, (int)loop_n[k]);
	if (!ok)
		show_counts(what, c, j);
}

/* Counter j did not count at all. */
static void expect_zero(const struct counts *c, int j, const char *what)
{
	int k;

	for (k = 0; k < NRUNS; k++)
		check_eq(c->v[k][j], 0, what, (int)loop_n[k]);
}

/* Counters i and j counted the same in every run. */
static void expect_same(const struct counts *c, int i, int j, const char *what)
{
	int k;

	for (k = 0; k < NRUNS; k++)
		check_eq(c->v[k][j], c->v[k][i], what, (int)loop_n[k]);
}

/* ---------------------------------------------------------------- */
/* MSR field helpers. */

/*
 * Every bit outside valid, written one at a time on top of a valid canary,
 * must #GP and leave the MSR reading canary & readmask.
 */
static void check_reserved(const char *what, u32 msr, u64 valid, u64 canary,
			   u64 readmask)
{
	u64 nofault = 0, changed = 0, v;
	int bit;

	wr(msr, canary);
	for (bit = 0; bit < 64; bit++) {
		u64 b = 1ull << bit;

		if (valid & b)
			continue;
		if (wrmsr_safe(msr, canary | b) != VEC_GP)
			nofault |= b;
		if (rdmsr_safe(msr, &v) || v != (canary & readmask))
			changed |= b;
	}
	CHECK(!nofault, "%s (MSR 0x%x): writes of reserved bits 0x%llx did not #GP",
	      what, msr, nofault);
	CHECK(!changed, "%s (MSR 0x%x): after a reserved write of bits 0x%llx the value is not 0x%llx",
	      what, msr, changed, canary & readmask);
	wrmsr_safe(msr, 0);
}

/*
 * Every bit of valid, one at a time and all together, writes without a
 * fault and reads back as (value & readmask).
 */
static void check_valid(const char *what, u32 msr, u64 valid, u64 readmask)
{
	u64 faulted = 0, badread = 0, v;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		u64 b = 1ull << bit;

		if (!(valid & b))
			continue;
		if (wrmsr_safe(msr, b)) {
			faulted |= b;
			continue;
		}
		if (rdmsr_safe(msr, &v) || v != (b & readmask))
			badread |= b;
	}
	CHECK(!faulted, "%s (MSR 0x%x): writes of valid bits 0x%llx faulted",
	      what, msr, faulted);
	CHECK(!badread, "%s (MSR 0x%x): valid bits 0x%llx did not read back",
	      what, msr, badread);
	if (!wrmsr_safe(msr, valid)) {
		rdmsr_safe(msr, &v);
		check_eq(v, valid & readmask, what, -1);
	} else {
		FAIL("%s (MSR 0x%x): write of all valid bits 0x%llx faulted",
		     what, msr, valid);
	}
	wrmsr_safe(msr, 0);
}

static u64 test_value(int i)
{
	return (0x8a5a12345678ull + (u64)i * 0x010101010101ull) & CTR_MASK;
}

/* ---------------------------------------------------------------- */
/* Ring 3 helpers. */

static u32 read_cs(void)
{
	u32 cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return cs;
}

struct user_rdpmc {
	u32 idx;
	int fault;
	u32 cs;
	u64 val;
};

/* Runs at CPL 3 (through enter_user). */
static void user_rdpmc_fn(void *p)
{
	struct user_rdpmc *u = p;

	u->cs = read_cs();
	u->fault = rdpmc_safe(u->idx, &u->val);
}

static void rdpmc_at_cpl3(struct user_rdpmc *u, u32 idx)
{
	u->idx = idx;
	u->fault = -1;
	u->cs = 0;
	u->val = 0;
	enter_user(user_rdpmc_fn, u);
	CHECK((u->cs & 3) == 3, "user function ran with CS 0x%x, not at CPL 3", u->cs);
}

/* ---------------------------------------------------------------- */
/* PMI helpers. */

/* How many instructions of loop10(n) (from loop10_test) ran before eip. */
static s64 loop_pos(u32 eip, u32 ecx, u32 n)
{
	u32 body = (u32)loop10_body;

	if (eip == (u32)loop10_test)
		return 0;
	if (eip == (u32)loop10_test + 2)	/* jz after the 2-byte test */
		return 1;
	if (eip == (u32)loop10_done)
		return 2 + 10 * (s64)n;
	if (eip >= body && eip <= body + 8)	/* nops, dec (ecx not yet dec'd) */
		return 2 + 10 * ((s64)n - ecx) + (eip - body);
	if (eip == body + 9)			/* jnz, ecx already dec'd */
		return 2 + 10 * ((s64)n - ecx - 1) + 9;
	return -1;
}

struct pmi_setup {
	u64 global_ctrl;	/* Intel: GLOBAL_CTRL to set first (0: keep reset) */
	u32 preset_msr;		/* where 2^48 - K goes */
	u32 en_msr;		/* measure's start write... */
	u64 en_val;		/* ...of this */
	u32 rdpmc_idx;		/* what the PMI/NMI stubs read */
	u32 status_msr;
	u64 status_bit;
};

struct pmi_result {
	u32 pmi, nmi, eip, lvt_irq, lvt_after;
	u64 ctr, status;
	s64 pos;
	int fault;
};

/*
 * Preset the counter to 2^48 - k, program the LVT performance counter
 * entry with lvt, and run loop10(n) with interrupts on.
 */
static void pmi_run(const struct pmi_setup *s, u32 lvt, u32 k, u32 n,
		    struct pmi_result *r)
{
	u32 before;

	pmu_reset();
	if (s->global_ctrl)
		wr(IA32_PERF_GLOBAL_CTRL, s->global_ctrl);
	wr(s->preset_msr, (CTR_MASK + 1 - k) & CTR_MASK);
	irq_rdpmc_idx = s->rdpmc_idx;
	lapic_write(LAPIC_LVT_PMC, lvt);
	before = fault_count;
	sti();
	measure(s->en_msr, (u32)s->en_val, (u32)(s->en_val >> 32), loop10, n);
	cli();
	r->fault = fault_count != before;
	r->pmi = pmi_count;
	r->nmi = nmi_count;
	r->ctr = irq_ctr;
	r->eip = irq_eip;
	r->pos = (pmi_count || nmi_count) ? loop_pos(irq_eip, irq_ecx, n) : -1;
	r->lvt_irq = irq_lvt;
	r->lvt_after = lapic_read(LAPIC_LVT_PMC);
	r->status = rd(s->status_msr);
	CHECK(!r->fault, "a WRMSR/RDMSR/RDPMC faulted (vector %u)", last_fault_vec);
	lapic_write(LAPIC_LVT_PMC, LVT_MASKED | VEC_PMI);
}

static const struct pmi_setup intel_pmi_gp = {
	.preset_msr = IA32_A_PMC(0),
	.en_msr = IA32_PERFEVTSEL(0),
	.en_val = INSTR_OS | EV_INT,
	.rdpmc_idx = 0,
	.status_msr = IA32_PERF_GLOBAL_STATUS,
	.status_bit = 1ull << 0,
};

static const struct pmi_setup intel_pmi_fixed = {
	.global_ctrl = 0xfull | 1ull << 32,
	.preset_msr = IA32_FIXED_CTR(0),
	.en_msr = IA32_FIXED_CTR_CTRL,
	.en_val = 0x9,			/* fixed 0: OS | PMI */
	.rdpmc_idx = RDPMC_FIXED | 0,
	.status_msr = IA32_PERF_GLOBAL_STATUS,
	.status_bit = 1ull << 32,
};

static const struct pmi_setup amd_pmi_gp = {
	.preset_msr = AMD_PERF_CTR(0),
	.en_msr = AMD_PERF_CTL(0),
	.en_val = INSTR_OS | EV_INT,
	.rdpmc_idx = 0,
	.status_msr = AMD_GLOBAL_STATUS,
	.status_bit = 1ull << 0,
};

static const struct pmi_setup *pmi_gp(void)
{
	return is_amd ? &amd_pmi_gp : &intel_pmi_gp;
}

/*
 * Intel's local APIC sets the LVT entry's mask bit when it delivers a PMI
 * (SDM Vol. 3A "Local Vector Table"); AMD's leaves it clear, and Linux's
 * PerfMonV2 handler relies on that (amd_pmu_v2_handle_irq(): "the Mask
 * (M) bit of the LVT PMI entry is not set by the local APIC").
 */
#define AMD_PMI_SETS_LVT_MASK	0

/*
 * Does the value RDPMC returns count the RDPMC itself (1) or only the
 * instructions before it (0)?  Neither manual pins this down and the spec
 * only says the value is exact, so measure it without any other unknown:
 * counter 0 counts instructions USR-only, so its enabling WRMSR and all
 * of the CPL 0 code count nothing, and is read by RDPMC at CPL 3 after
 * exactly one CPL 3 instruction: 1 + the answer.  -1: not 0 or 1.
 */
static int rdpmc_self_count(void)
{
	u64 v;
	u32 f;

	wr(is_amd ? AMD_PERF_CTR(0) : IA32_PMC(0), 0);
	write_cr4(read_cr4() | CR4_PCE);
	rdpmc_cal_lo = rdpmc_cal_hi = 0xdeadbeef;
	f = fault_count;
	wr(is_amd ? AMD_PERF_CTL(0) : IA32_PERFEVTSEL(0), INSTR_USR);
	enter_user(user_rdpmc0_after1, NULL);
	wr(is_amd ? AMD_PERF_CTL(0) : IA32_PERFEVTSEL(0), 0);
	write_cr4(read_cr4() & ~CR4_PCE);
	wr(is_amd ? AMD_PERF_CTR(0) : IA32_PMC(0), 0);
	v = (u64)rdpmc_cal_hi << 32 | rdpmc_cal_lo;
	if (f != fault_count || (v != 1 && v != 2)) {
		FAIL("RDPMC at CPL 3 after one USR instruction: 0x%llx%s", v,
		     f != fault_count ? " (faulted)" : "");
		return -1;
	}
	return (int)v - 1;
}

#define PMI_K	5000	/* wrap after K of loop10(1000)'s 10002 instructions */
#define PMI_N	1000

/*
 * One PMI, taken right after the wrapping instruction: the handler's RDPMC
 * then reads the 4 instructions of the stub before it (+ itself, if RDPMC
 * counts itself: rdpmc_self_count).  One instruction late would read 1 more.
 */
static void check_one_pmi(const struct pmi_setup *s, const char *what)
{
	static const u32 ks[] = { PMI_K, PMI_K + 3, PMI_K + 7 };
	int self = rdpmc_self_count();
	struct pmi_result r;
	unsigned int i;

	if (self < 0)
		return;
	INFO("RDPMC's value %s the RDPMC itself", self ? "counts" : "does not count");
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		pmi_run(s, VEC_PMI, ks[i], PMI_N, &r);
		CHECK(r.pmi == 1 && r.nmi == 0, "%s K=%u: %u PMIs, %u NMIs, expected 1 PMI",
		      what, ks[i], r.pmi, r.nmi);
		if (r.pmi)
			check_eq(r.ctr, IRQ_STUB_INSNS + self,
				 "counter read by the PMI handler's RDPMC after its 4 instructions, K",
				 (int)ks[i]);
		CHECK(r.status & s->status_bit,
		      "%s K=%u: overflow status 0x%llx lacks 0x%llx",
		      what, ks[i], r.status, s->status_bit);
	}
}

/* ---------------------------------------------------------------- */
/* Intel: CPUID (SDM Vol. 3B 20.2.1.1, 20.2.2; Vol. 2 CPUID leaf 0AH). */

/* Leaf 0AH, or all-zero when the CPU has no such leaf (and says so). */
static struct cpuid_regs leaf_a(void)
{
	struct cpuid_regs none = { 0, 0, 0, 0 };

	if (cpuid(0, 0).eax < 0xa) {
		FAIL("CPUID leaf 0AH is beyond the max basic leaf");
		return none;
	}
	return cpuid(0xa, 0);
}

/* SDM Vol. 2 CPUID: leaf 0AH exists (max basic leaf >= 0AH). */
static void t_cpuid_max_leaf(void)
{
	u32 max = cpuid(0, 0).eax;

	CHECK(max >= 0xa, "CPUID.0:EAX max basic leaf 0x%x < 0xa", max);
}

/* SDM 20.2.2: CPUID.0AH:EAX[7:0] version ID = 2. */
static void t_cpuid_version(void)
{
	check_eq(leaf_a().eax & 0xff, 2, "CPUID.0AH:EAX[7:0]", -1);
}

/* SDM 20.2.1.1: CPUID.0AH:EAX[15:8] number of GP counters = 4. */
static void t_cpuid_ngp(void)
{
	check_eq(leaf_a().eax >> 8 & 0xff, 4, "CPUID.0AH:EAX[15:8]", -1);
}

/* SDM 20.2.1.1: CPUID.0AH:EAX[23:16] GP counter width = 48. */
static void t_cpuid_gp_width(void)
{
	check_eq(leaf_a().eax >> 16 & 0xff, 48, "CPUID.0AH:EAX[23:16]", -1);
}

/*
 * SDM 20.2.1.1: CPUID.0AH:EAX[31:24] = length of the EBX bit vector (7),
 * EBX bit set = event NOT available: 0x78 (LLC ref/miss, branch instr/miss
 * unavailable; core cycles, instructions, reference cycles available).
 */
static void t_cpuid_ebx(void)
{
	struct cpuid_regs r = leaf_a();

	check_eq(r.eax >> 24, 7, "CPUID.0AH:EAX[31:24]", -1);
	check_eq(r.ebx, 0x78, "CPUID.0AH:EBX", -1);
}

/* SDM 20.2.2: CPUID.0AH:EDX[4:0] = 3 fixed counters, EDX[12:5] width 48. */
static void t_cpuid_fixed(void)
{
	struct cpuid_regs r = leaf_a();

	check_eq(r.edx & 0x1f, 3, "CPUID.0AH:EDX[4:0]", -1);
	check_eq(r.edx >> 5 & 0xff, 48, "CPUID.0AH:EDX[12:5]", -1);
}

/* SDM Vol. 2 CPUID leaf 01H: ECX bit 15 PDCM (IA32_PERF_CAPABILITIES). */
static void t_cpuid_pdcm(void)
{
	u32 ecx = cpuid(1, 0).ecx;

	CHECK(ecx & (1u << 15), "CPUID.01H:ECX 0x%x lacks PDCM (bit 15)", ecx);
}

/* ---------------------------------------------------------------- */
/* Intel: MSRs. */

/* SDM 20.2.6 (full-width writes), Vol. 4: PERF_CAPABILITIES bit 13 FW_WRITE. */
static void t_perf_capabilities(void)
{
	check_eq(rd(IA32_PERF_CAPABILITIES), 0x2000, "IA32_PERF_CAPABILITIES", -1);
}

/* SDM Vol. 4 table 2-2: IA32_PERF_CAPABILITIES is read-only (RO). */
static void t_perf_capabilities_ro(void)
{
	int f1 = wrmsr_safe(IA32_PERF_CAPABILITIES, 0x2000);
	int f2 = wrmsr_safe(IA32_PERF_CAPABILITIES, 0);

	check_eq(f1, VEC_GP, "vector of WRMSR PERF_CAPABILITIES <- 0x2000", -1);
	check_eq(f2, VEC_GP, "vector of WRMSR PERF_CAPABILITIES <- 0", -1);
	check_eq(rd(IA32_PERF_CAPABILITIES), 0x2000, "IA32_PERF_CAPABILITIES after the writes", -1);
}

/* SDM 20.2.2: IA32_PERF_GLOBAL_CTRL resets with the GP enables set (0xF). */
static void t_global_ctrl_reset(void)
{
	CHECK(!boot_ctrl_fault, "RDMSR IA32_PERF_GLOBAL_CTRL faulted at boot");
	check_eq(boot_global_ctrl, 0xf, "IA32_PERF_GLOBAL_CTRL at boot", -1);
}

/* SDM 20.2.2: nothing has overflowed at reset: GLOBAL_STATUS = 0. */
static void t_global_status_reset(void)
{
	CHECK(!boot_status_fault, "RDMSR IA32_PERF_GLOBAL_STATUS faulted at boot");
	check_eq(boot_global_status, 0, "IA32_PERF_GLOBAL_STATUS at boot", -1);
}

/* SDM 20.2.2, Vol. 4: IA32_PERF_GLOBAL_STATUS is read-only. */
static void t_global_status_ro(void)
{
	static const u64 vals[] = { 0, 1, 1ull << 32, 1ull << 63 };
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		check_eq(wrmsr_safe(IA32_PERF_GLOBAL_STATUS, vals[i]), VEC_GP,
			 "vector of WRMSR GLOBAL_STATUS, value #", (int)i);
}

/*
 * SDM 20.2.1.1, 20.2.3 (AnyThread is v3): PERFEVTSELx bits 7:0 event,
 * 15:8 umask, 16 USR, 17 OS, 18 E, 19 PC, 20 INT, 22 EN, 23 INV, 31:24
 * CMASK; bit 21 and 63:32 reserved, #GP when set.
 */
#define EVTSEL_VALID	0xffdfffffull

static void t_evtsel_reserved(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++)
		check_reserved("IA32_PERFEVTSELx", IA32_PERFEVTSEL(i),
			       EVTSEL_VALID, 0x1234, ~0ull);
}

static void t_evtsel_valid(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++)
		check_valid("IA32_PERFEVTSELx", IA32_PERFEVTSEL(i),
			    EVTSEL_VALID, ~0ull);
}

/*
 * SDM 20.2.2: IA32_FIXED_CTR_CTRL, 4 bits per fixed counter: OS, USR,
 * AnyThread (v3+, reserved in v2), PMI.  Valid 0xBBB.
 */
static void t_fixed_ctrl_reserved(void)
{
	check_reserved("IA32_FIXED_CTR_CTRL", IA32_FIXED_CTR_CTRL, 0xbbb, 0x88, ~0ull);
}

static void t_fixed_ctrl_valid(void)
{
	check_valid("IA32_FIXED_CTR_CTRL", IA32_FIXED_CTR_CTRL, 0xbbb, ~0ull);
}

/* SDM 20.2.2: IA32_PERF_GLOBAL_CTRL: bits 3:0 (PMCx), 34:32 (fixed). */
#define GLOBAL_CTRL_VALID	(0xfull | 7ull << 32)

static void t_global_ctrl_reserved(void)
{
	check_reserved("IA32_PERF_GLOBAL_CTRL", IA32_PERF_GLOBAL_CTRL,
		       GLOBAL_CTRL_VALID, 0x5, ~0ull);
}

static void t_global_ctrl_valid(void)
{
	check_valid("IA32_PERF_GLOBAL_CTRL", IA32_PERF_GLOBAL_CTRL,
		    GLOBAL_CTRL_VALID, ~0ull);
}

/*
 * SDM 20.2.2: IA32_PERF_GLOBAL_OVF_CTRL: bits 3:0, 34:32, 62 (OvfBuffer),
 * 63 (CondChgd) clear status; the others are reserved.  It reads as 0.
 */
#define OVF_CTRL_VALID	(0xfull | 7ull << 32 | 3ull << 62)

static void t_ovf_ctrl_reserved(void)
{
	check_reserved("IA32_PERF_GLOBAL_OVF_CTRL", IA32_PERF_GLOBAL_OVF_CTRL,
		       OVF_CTRL_VALID, 0, 0);
}

static void t_ovf_ctrl_valid(void)
{
	check_valid("IA32_PERF_GLOBAL_OVF_CTRL", IA32_PERF_GLOBAL_OVF_CTRL,
		    OVF_CTRL_VALID, 0);
}

/*
 * SDM 20.2.6: a WRMSR to IA32_PMCx writes EAX sign-extended to the
 * counter width; EDX is ignored.
 */
static void t_pmc_sign_extend(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++) {
		wr(IA32_PMC(i), 0x80000000u);
		check_eq(rd(IA32_PMC(i)), 0xffff80000000ull, "PMCx after 0x80000000 (via 0xC1+x)", i);
		check_eq(rd(IA32_A_PMC(i)), 0xffff80000000ull, "PMCx after 0x80000000 (via 0x4C1+x)", i);
		wr(IA32_PMC(i), 0xffffffffu);
		check_eq(rd(IA32_PMC(i)), CTR_MASK, "PMCx after 0xFFFFFFFF", i);
	}
}

static void t_pmc_edx_ignored(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++) {
		wr(IA32_PMC(i), 0x123456787fffffffull);
		check_eq(rd(IA32_PMC(i)), 0x7fffffff, "PMCx after EDX:EAX 0x12345678:7FFFFFFF", i);
		wr(IA32_PMC(i), 0xffffffff00000001ull);
		check_eq(rd(IA32_PMC(i)), 1, "PMCx after EDX:EAX 0xFFFFFFFF:00000001", i);
	}
}

/* SDM 20.2.6 full-width writes: IA32_A_PMCx take bits 47:0. */
static void t_apmc_full_width(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++) {
		u64 v = test_value(i);

		wr(IA32_A_PMC(i), v);
		check_eq(rd(IA32_A_PMC(i)), v, "A_PMCx readback", i);
		check_eq(rd(IA32_PMC(i)), v, "PMCx after A_PMCx write", i);
		wr(IA32_A_PMC(i), CTR_MASK);
		check_eq(rd(IA32_PMC(i)), CTR_MASK, "PMCx after A_PMCx <- 2^48-1", i);
	}
}

/* SDM 20.2.6, spec: an A_PMCx write with any of bits 63:48 set #GPs. */
static void t_apmc_reserved(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++)
		check_reserved("IA32_A_PMCx", IA32_A_PMC(i), CTR_MASK,
			       test_value(i), ~0ull);
}

/* SDM 20.2.2: fixed counters are 48 bits wide; bits 63:48 masked off. */
static void t_fixed_ctr_width(void)
{
	int i;

	for (i = 0; i < INTEL_NFIXED; i++) {
		wr(IA32_FIXED_CTR(i), 0xffff876543210fedull + i);
		check_eq(rd(IA32_FIXED_CTR(i)), 0x876543210fedull + i,
			 "FIXED_CTRx after 0xFFFF8765_43210FED+x", i);
		wr(IA32_FIXED_CTR(i), 1ull << 48);
		check_eq(rd(IA32_FIXED_CTR(i)), 0, "FIXED_CTRx after 1<<48", i);
	}
}

/* ---------------------------------------------------------------- */
/* Intel: counting (SDM 20.2.1.1, 20.2.1.2 pre-defined events, 20.2.2). */

/* SDM 20.2.1.2 table: Instructions Retired 0xC0/0x00, on every PMCx. */
static void t_count_instructions(void)
{
	int i;

	for (i = 0; i < INTEL_NGP; i++) {
		u32 ctr = IA32_PMC(i);
		struct counts c;

		run_counts(IA32_PERFEVTSEL(i), INSTR_OS, loop10, 1, &ctr, &c);
		expect_slope(&c, 0, 10, "PMCx instructions, n");
		if (i == 0)
			show_counts("PMC0 instructions (OS)", &c, 0);
	}
}

/* SDM 20.2.1.2: UnHalted Core Cycles 0x3C/0x00 (model: one per instruction). */
static void t_count_core_cycles(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_OS);
	wr(IA32_PERFEVTSEL(1), EV_EN | EV_OS | EV_INTEL_CYC);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x3, loop10, 2, ctr, &c);
	expect_slope(&c, 1, 10, "core cycles, n");
	expect_same(&c, 0, 1, "core cycles vs instructions, n");
}

/* SDM 20.2.1.2: UnHalted Reference Cycles 0x3C/0x01. */
static void t_count_ref_cycles(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_OS);
	wr(IA32_PERFEVTSEL(1), EV_EN | EV_OS | EV_INTEL_REF);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x3, loop10, 2, ctr, &c);
	expect_slope(&c, 1, 10, "reference cycles, n");
	expect_same(&c, 0, 1, "reference cycles vs instructions, n");
}

/*
 * SDM 20.2.2 (fixed-function counters): FIXED_CTR0 instructions retired,
 * FIXED_CTR1 core cycles, FIXED_CTR2 reference cycles, enabled by the OS
 * bit of IA32_FIXED_CTR_CTRL and GLOBAL_CTRL bit 32+i.
 */
static void t_count_fixed(void)
{
	int i;

	for (i = 0; i < INTEL_NFIXED; i++) {
		u32 ctr = IA32_FIXED_CTR(i);
		struct counts c;

		wr(IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_VALID);
		run_counts(IA32_FIXED_CTR_CTRL, 1ull << (4 * i), loop10, 1, &ctr, &c);
		expect_slope(&c, 0, 10, "FIXED_CTRx, n");
		if (i == 0)
			show_counts("FIXED_CTR0 (OS)", &c, 0);
	}
}

/*
 * SDM 20.2.1.1 / CPUID.0AH:EBX: events outside the model (LLC references
 * 0x2E/0x4F, branch instructions 0xC4/0x00, 0xC0 with umask 0x01) count
 * nothing, while an instructions counter counts the same loop.
 */
static void t_count_unmodelled(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1), IA32_PMC(2), IA32_PMC(3) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), EV_EN | EV_OS | 0x4f2e);
	wr(IA32_PERFEVTSEL(1), EV_EN | EV_OS | 0x00c4);
	wr(IA32_PERFEVTSEL(2), EV_EN | EV_OS | 0x01c0);
	wr(IA32_PERFEVTSEL(3), INSTR_OS);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0xf, loop10, 4, ctr, &c);
	expect_zero(&c, 0, "LLC references 0x4F2E, n");
	expect_zero(&c, 1, "branch instructions 0x00C4, n");
	expect_zero(&c, 2, "event 0xC0 umask 0x01, n");
	expect_slope(&c, 3, 10, "instructions (control), n");
}

/* Spec (SDM 20.2.1.1 E/INV/CMASK): any of them set -> nothing counted. */
static void t_count_edge_inv_cmask(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1), IA32_PMC(2), IA32_PMC(3) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_OS | EV_EDGE);
	wr(IA32_PERFEVTSEL(1), INSTR_OS | EV_INV);
	wr(IA32_PERFEVTSEL(2), INSTR_OS | EV_CMASK(1));
	wr(IA32_PERFEVTSEL(3), INSTR_OS);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0xf, loop10, 4, ctr, &c);
	expect_zero(&c, 0, "instructions with E, n");
	expect_zero(&c, 1, "instructions with INV, n");
	expect_zero(&c, 2, "instructions with CMASK=1, n");
	expect_slope(&c, 3, 10, "instructions (control), n");
}

/* SDM 20.2.1.1: EN (bit 22) clear -> the counter does not count. */
static void t_count_en_clear(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), EV_OS | EV_INSTR);
	wr(IA32_PERFEVTSEL(1), INSTR_OS);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x3, loop10, 2, ctr, &c);
	expect_zero(&c, 0, "PMC0 with EN clear, n");
	expect_slope(&c, 1, 10, "PMC1 (control), n");
}

/* SDM 20.2.2: GLOBAL_CTRL bit i clear -> PMCi does not count. */
static void t_count_global_ctrl_gp(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_PMC(1) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_OS);
	wr(IA32_PERFEVTSEL(1), INSTR_OS);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x2, loop10, 2, ctr, &c);
	expect_zero(&c, 0, "PMC0 with GLOBAL_CTRL bit 0 clear, n");
	expect_slope(&c, 1, 10, "PMC1 (control), n");
}

/* SDM 20.2.2: GLOBAL_CTRL bit 32+i clear -> FIXED_CTRi does not count. */
static void t_count_global_ctrl_fixed(void)
{
	static const u32 ctr[] = { IA32_FIXED_CTR(0), IA32_FIXED_CTR(1), IA32_FIXED_CTR(2) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_FIXED_CTR_CTRL, 0x111);
	run_counts(IA32_PERF_GLOBAL_CTRL, 5ull << 32, loop10, 3, ctr, &c);
	expect_slope(&c, 0, 10, "FIXED_CTR0 (control), n");
	expect_zero(&c, 1, "FIXED_CTR1 with GLOBAL_CTRL bit 33 clear, n");
	expect_slope(&c, 2, 10, "FIXED_CTR2 (control), n");
}

/* SDM 20.2.1.1 (USR/OS flags), 20.2.2 (FIXED_CTR_CTRL): USR-only at CPL 0 -> 0. */
static void t_count_usr_at_cpl0(void)
{
	static const u32 ctr[] = { IA32_PMC(0), IA32_FIXED_CTR(0), IA32_PMC(1) };
	struct counts c;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_USR);
	wr(IA32_FIXED_CTR_CTRL, 0x2);		/* fixed 0: USR only */
	wr(IA32_PERFEVTSEL(1), INSTR_OS);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x3 | 1ull << 32, loop10, 3, ctr, &c);
	expect_zero(&c, 0, "PMC0 USR-only at CPL 0, n");
	expect_zero(&c, 1, "FIXED_CTR0 USR-only at CPL 0, n");
	expect_slope(&c, 2, 10, "PMC1 OS-only (control), n");
}

/* SDM Vol. 2 RDMSR: reading a running counter gives its current value. */
static void t_rdmsr_running(void)
{
	u32 faults = fault_count;
	u64 v[NRUNS];
	int k;

	for (k = 0; k < NRUNS; k++) {
		wr(IA32_PMC(0), 0);
		v[k] = measure_rdmsr(IA32_PERFEVTSEL(0), (u32)INSTR_OS, 0,
				     loop10, loop_n[k], IA32_PMC(0));
	}
	CHECK(fault_count == faults, "%u WRMSR/RDMSR/RDPMC faulted (last: vector %u)",
	      fault_count - faults, last_fault_vec);
	for (k = 1; k < NRUNS; k++)
		check_eq(v[k] - v[0], 10ull * loop_n[k], "RDMSR of running PMC0, n", (int)loop_n[k]);
	INFO("RDMSR of running PMC0: n=0: %llu", v[0]);
}

/* SDM Vol. 2 RDPMC: reading a running counter gives its current value. */
static void t_rdpmc_running(void)
{
	u32 faults = fault_count;
	u64 v[NRUNS], f[NRUNS];
	int k;

	for (k = 0; k < NRUNS; k++) {
		wr(IA32_PMC(0), 0);
		v[k] = measure_rdpmc(IA32_PERFEVTSEL(0), (u32)INSTR_OS, 0,
				     loop10, loop_n[k], 0);
	}
	wr(IA32_PERF_GLOBAL_CTRL, GLOBAL_CTRL_VALID);
	for (k = 0; k < NRUNS; k++) {
		wr(IA32_FIXED_CTR(0), 0);
		f[k] = measure_rdpmc(IA32_FIXED_CTR_CTRL, 0x1, 0, loop10,
				     loop_n[k], RDPMC_FIXED | 0);
	}
	CHECK(fault_count == faults, "%u WRMSR/RDMSR/RDPMC faulted (last: vector %u)",
	      fault_count - faults, last_fault_vec);
	for (k = 1; k < NRUNS; k++) {
		check_eq(v[k] - v[0], 10ull * loop_n[k], "RDPMC of running PMC0, n", (int)loop_n[k]);
		check_eq(f[k] - f[0], 10ull * loop_n[k], "RDPMC of running FIXED_CTR0, n", (int)loop_n[k]);
	}
	INFO("RDPMC of running PMC0: n=0: %llu; of FIXED_CTR0: %llu", v[0], f[0]);
}

/*
 * SDM Vol. 2 RDPMC / RDMSR (APM likewise): both read the same counter, so
 * at the same point of the same run they return the same value.
 */
static void t_rdpmc_rdmsr_agree(void)
{
	u32 ctl = is_amd ? AMD_PERF_CTL(0) : IA32_PERFEVTSEL(0);
	u32 ctr = is_amd ? AMD_PERF_CTR(0) : IA32_PMC(0);
	u32 faults = fault_count;
	u64 a, b;
	int k;

	for (k = 0; k < NRUNS; k++) {
		wr(ctr, 0);
		a = measure_rdmsr(ctl, (u32)INSTR_OS, 0, loop10, loop_n[k], ctr);
		wr(ctr, 0);
		b = measure_rdpmc(ctl, (u32)INSTR_OS, 0, loop10, loop_n[k], 0);
		check_eq(b, a, "RDPMC vs RDMSR of running counter 0, n", (int)loop_n[k]);
	}
	CHECK(fault_count == faults, "%u WRMSR/RDMSR/RDPMC faulted (last: vector %u)",
	      fault_count - faults, last_fault_vec);
}

/* ---------------------------------------------------------------- */
/* Intel: CPL 3. */

#define USER_INSNS_N0	5	/* CPL 3 instructions of user_loop10(0) */
#define R3_NCTR 6
static const u32 intel_r3_ctr[R3_NCTR] = {
	IA32_PMC(0), IA32_PMC(1), IA32_PMC(2),
	IA32_FIXED_CTR(0), IA32_FIXED_CTR(1), IA32_FIXED_CTR(2),
};

/*
 * PMC0 USR, PMC1 OS, PMC2 OS|USR, FIXED0 USR, FIXED1 OS, FIXED2 OS|USR,
 * counting loop10(n) run at CPL 3 (user_loop10).
 */
static void intel_ring3_counts(struct counts *c)
{
	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_USR);
	wr(IA32_PERFEVTSEL(1), INSTR_OS);
	wr(IA32_PERFEVTSEL(2), INSTR_OS | EV_USR);
	wr(IA32_FIXED_CTR_CTRL, 0x2 | 0x10 | 0x300);
	run_counts(IA32_PERF_GLOBAL_CTRL, 0x7 | 7ull << 32, user_loop10,
		   R3_NCTR, intel_r3_ctr, c);
}

/*
 * SDM 20.2.1.1 USR flag: counts exactly the instructions run at CPL 3.
 * Spec: an instruction counts at the CPL it started at, so for n=0 the
 * USR count is loop10's mov, test, jz, ret plus the "int $0x80" back to
 * CPL 0 (the IRET into CPL 3 started at CPL 0).
 */
static void t_cpl3_usr_exact(void)
{
	struct counts c;

	intel_ring3_counts(&c);
	expect_slope(&c, 0, 10, "USR-only PMC0, loop at CPL 3, n");
	check_eq(c.v[0][0], USER_INSNS_N0, "USR-only PMC0 for n=0 (mov, test, jz, ret, int $0x80)", -1);
	show_counts("PMC0 USR-only, loop at CPL 3", &c, 0);
}

/*
 * SDM 20.2.1.1 OS flag: counts only the ring-0 instructions around the
 * CPL changes, so the same for every n.
 */
static void t_cpl3_os_excluded(void)
{
	struct counts c;
	int k;

	intel_ring3_counts(&c);
	for (k = 1; k < NRUNS; k++)
		check_eq(c.v[k][1], c.v[0][1], "OS-only PMC1 with the loop at CPL 3, n", (int)loop_n[k]);
	CHECK(c.v[0][1] > 0 && c.v[0][1] < 200,
	      "OS-only PMC1 counted %llu, expected a few ring-0 instructions", c.v[0][1]);
	show_counts("PMC1 OS-only, loop at CPL 3", &c, 1);
}

/* SDM 20.2.1.1: OS|USR counts both: = the OS-only plus the USR-only count. */
static void t_cpl3_os_usr_sum(void)
{
	struct counts c;
	int k;

	intel_ring3_counts(&c);
	for (k = 0; k < NRUNS; k++)
		check_eq(c.v[k][2], c.v[k][0] + c.v[k][1], "OS|USR PMC2 vs PMC0+PMC1, n", (int)loop_n[k]);
	expect_slope(&c, 2, 10, "OS|USR PMC2, n");
}

/* SDM 20.2.2: FIXED_CTR_CTRL OS/USR bits split the same way. */
static void t_cpl3_fixed(void)
{
	struct counts c;

	intel_ring3_counts(&c);
	expect_slope(&c, 3, 10, "USR-only FIXED_CTR0, loop at CPL 3, n");
	expect_same(&c, 0, 3, "USR-only FIXED_CTR0 vs PMC0, n");
	expect_same(&c, 1, 4, "OS-only FIXED_CTR1 vs PMC1, n");
	expect_same(&c, 2, 5, "OS|USR FIXED_CTR2 vs PMC2, n");
}

/* ---------------------------------------------------------------- */
/* Intel: overflow (SDM 20.2.2 GLOBAL_STATUS / GLOBAL_OVF_CTRL). */

#define OVF_N	1000	/* 10002 instructions of loop */

/*
 * PMC0, PMC2 (instructions) and FIXED_CTR0 preset 2^48 - 1000, -2000,
 * -3000; cal[] = their counts from 0 for the same run.
 */
static void intel_overflow_run(u64 cal[3], u64 out[3], u64 *st_cal, u64 *st)
{
	static const u32 ctr[3] = { IA32_PMC(0), IA32_PMC(2), IA32_FIXED_CTR(0) };
	static const u32 preset[3] = { IA32_A_PMC(0), IA32_A_PMC(2), IA32_FIXED_CTR(0) };
	const u64 en = 0x5 | 1ull << 32;
	int j;

	wr(IA32_PERF_GLOBAL_CTRL, 0);
	wr(IA32_PERFEVTSEL(0), INSTR_OS);
	wr(IA32_PERFEVTSEL(2), INSTR_OS);
	wr(IA32_FIXED_CTR_CTRL, 0x1);
	for (j = 0; j < 3; j++)
		wr(preset[j], 0);
	measure(IA32_PERF_GLOBAL_CTRL, (u32)en, (u32)(en >> 32), loop10, OVF_N);
	for (j = 0; j < 3; j++)
		cal[j] = rd(ctr[j]);
	*st_cal = rd(IA32_PERF_GLOBAL_STATUS);
	for (j = 0; j < 3; j++)
		wr(preset[j], (1ull << 48) - 1000 * (j + 1));
	measure(IA32_PERF_GLOBAL_CTRL, (u32)en, (u32)(en >> 32), loop10, OVF_N);
	for (j = 0; j < 3; j++)
		out[j] = rd(ctr[j]);
	*st = rd(IA32_PERF_GLOBAL_STATUS);
}

/*
 * SDM 20.2.2: an overflow sets GLOBAL_STATUS bit i (PMCi) / 32+i (FIXED_CTRi)
 * and the counter wraps and goes on counting from 0.
 */
static void t_overflow_status(void)
{
	u64 cal[3], out[3], st_cal, st;
	int j;

	intel_overflow_run(cal, out, &st_cal, &st);
	check_eq(st_cal, 0, "GLOBAL_STATUS after a run without overflow", -1);
	check_eq(st, 0x5 | 1ull << 32, "GLOBAL_STATUS after PMC0, PMC2, FIXED_CTR0 overflowed", -1);
	for (j = 0; j < 3; j++)
		check_eq(out[j], (cal[j] - 1000 * (j + 1)) & CTR_MASK,
			 "wrapped counter (PMC0, PMC2, FIXED_CTR0) = count - K", j);
	CHECK(cal[0] >= 10 * OVF_N, "calibration count %llu too small", cal[0]);
}

/* SDM 20.2.2: writing 1 to an OVF_CTRL bit clears exactly that status bit. */
static void t_overflow_ovf_ctrl(void)
{
	u64 cal[3], out[3], st_cal, st;

	intel_overflow_run(cal, out, &st_cal, &st);
	if (!check_eq(st, 0x5 | 1ull << 32, "GLOBAL_STATUS before clearing", -1))
		return;
	wr(IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 2);
	check_eq(rd(IA32_PERF_GLOBAL_STATUS), 0x1 | 1ull << 32, "GLOBAL_STATUS after OVF_CTRL bit 2", -1);
	wr(IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 32);
	check_eq(rd(IA32_PERF_GLOBAL_STATUS), 0x1, "GLOBAL_STATUS after OVF_CTRL bit 32", -1);
	wr(IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 0);
	check_eq(rd(IA32_PERF_GLOBAL_STATUS), 0, "GLOBAL_STATUS after OVF_CTRL bit 0", -1);
}

/*
 * SDM 20.2.1.1: a 32-bit write of -K to IA32_PMC0 sign-extends to 2^48-K
 * (the classic way to preset a sampling period): it overflows after K.
 */
static void t_overflow_pmc32(void)
{
	const u32 k = 1000;
	u64 cal, out;

	wr(IA32_PMC(0), 0);
	measure(IA32_PERFEVTSEL(0), (u32)INSTR_OS, 0, loop10, OVF_N);
	cal = rd(IA32_PMC(0));
	wr(IA32_PMC(0), (u32)-k);
	check_eq(rd(IA32_PMC(0)), (1ull << 48) - k, "PMC0 after 32-bit write of -1000", -1);
	measure(IA32_PERFEVTSEL(0), (u32)INSTR_OS, 0, loop10, OVF_N);
	out = rd(IA32_PMC(0));
	check_eq(out, (cal - k) & CTR_MASK, "PMC0 after wrapping = count - 1000", -1);
	check_eq(rd(IA32_PERF_GLOBAL_STATUS), 1, "GLOBAL_STATUS", -1);
}

/* ---------------------------------------------------------------- */
/*
 * PMI, both vendors (SDM 20.2.1.1 INT flag, 20.2.2 FIXED_CTR_CTRL PMI,
 * Vol. 3A "Local Vector Table"; APM 13.2 PerfEvtSel INT, APM local APIC LVT).
 */

/* One PMI (fixed vector 0xF0), taken right after the wrapping instruction. */
static void t_pmi_delivered(void)
{
	check_one_pmi(pmi_gp(), is_amd ? "PERF_CTR0 INT" : "PMC0 INT");
}

/*
 * The PMI comes after exactly K counted instructions: moving the preset
 * down by d moves the interrupted point in loop10 forward by exactly d
 * instructions (d = 1..10, every position of a turn).
 */
static void t_pmi_exact(void)
{
	s64 pos[11];
	struct pmi_result r;
	int d;

	for (d = 0; d <= 10; d++) {
		pmi_run(pmi_gp(), VEC_PMI, PMI_K + d, PMI_N, &r);
		pos[d] = r.pos;
		if (r.pmi != 1 || r.pos < 0) {
			FAIL("K=%u: %u PMIs, interrupted EIP 0x%x is%s in loop10",
			     PMI_K + d, r.pmi, r.eip, r.pos < 0 ? " not" : "");
			return;
		}
	}
	for (d = 1; d <= 10; d++)
		check_eq(pos[d] - pos[0], d, "PMI position for K+d minus for K, d", d);
	INFO("PMI for K=%u after %lld loop10 instructions (%lld counted before loop10_test)",
	     PMI_K, pos[0], (s64)PMI_K - pos[0]);
}

/*
 * SDM Vol. 3A "Local Vector Table": delivering the PMI sets the LVT mask
 * bit, in fixed and in NMI delivery mode (spec: on AMD too, see
 * AMD_PMI_SETS_LVT_MASK).
 */
static void t_pmi_lvt_masked_after(void)
{
	u32 want = is_amd && !AMD_PMI_SETS_LVT_MASK ? 0 : LVT_MASKED;
	const char *how = want ? "set" : "clear";
	struct pmi_result r;

	pmi_run(pmi_gp(), VEC_PMI, PMI_K, PMI_N, &r);
	check_eq(r.pmi, 1, "PMIs", -1);
	CHECK((r.lvt_irq & LVT_MASKED) == want,
	      "LVT perf entry in the PMI handler 0x%x: mask bit not %s", r.lvt_irq, how);
	CHECK((r.lvt_after & LVT_MASKED) == want,
	      "LVT perf entry after the PMI 0x%x: mask bit not %s", r.lvt_after, how);
	check_eq(r.lvt_after & 0x7ff, VEC_PMI, "LVT vector/delivery mode after the PMI", -1);

	pmi_run(pmi_gp(), LVT_DM_NMI, PMI_K, PMI_N, &r);
	check_eq(r.nmi, 1, "NMIs", -1);
	CHECK((r.lvt_irq & LVT_MASKED) == want,
	      "LVT perf entry in the NMI handler 0x%x: mask bit not %s", r.lvt_irq, how);
	CHECK((r.lvt_after & LVT_MASKED) == want,
	      "LVT perf entry after the NMI 0x%x: mask bit not %s", r.lvt_after, how);
}

/* SDM Vol. 3A "Local Vector Table": a masked entry delivers nothing; status still set. */
static void t_pmi_masked_lvt(void)
{
	const struct pmi_setup *s = pmi_gp();
	struct pmi_result r;

	pmi_run(s, LVT_MASKED | VEC_PMI, PMI_K, PMI_N, &r);
	check_eq(r.pmi, 0, "PMIs with the LVT entry masked", -1);
	check_eq(r.nmi, 0, "NMIs with the LVT entry masked", -1);
	CHECK(r.status & s->status_bit, "overflow status 0x%llx lacks 0x%llx",
	      r.status, s->status_bit);
}

/* SDM 20.2.1.1 INT flag: without it an overflow raises no PMI. */
static void t_pmi_int_clear(void)
{
	struct pmi_setup s = *pmi_gp();
	struct pmi_result r;

	s.en_val &= ~EV_INT;
	pmi_run(&s, VEC_PMI, PMI_K, PMI_N, &r);
	check_eq(r.pmi, 0, "PMIs with INT clear", -1);
	CHECK(r.status & s.status_bit, "overflow status 0x%llx lacks 0x%llx",
	      r.status, s.status_bit);
}

/*
 * SDM Vol. 3A "Local Vector Table": delivery mode NMI (0x400) -> the NMI
 * handler, once, right after the wrapping instruction.
 */
static void t_pmi_nmi(void)
{
	int self = rdpmc_self_count();
	struct pmi_result r;

	if (self < 0)
		return;
	pmi_run(pmi_gp(), LVT_DM_NMI, PMI_K, PMI_N, &r);
	check_eq(r.nmi, 1, "NMIs", -1);
	check_eq(r.pmi, 0, "vector 0xF0 PMIs", -1);
	if (r.nmi)
		check_eq(r.ctr, IRQ_STUB_INSNS + self,
			 "counter read by the NMI handler's RDPMC after its 4 instructions", -1);
}

/* SDM 20.2.2: FIXED_CTR_CTRL PMI bit: fixed counter 0 overflow -> PMI. */
static void t_pmi_fixed(void)
{
	check_one_pmi(&intel_pmi_fixed, "FIXED_CTR0 PMI");
}

/* ---------------------------------------------------------------- */
/* RDPMC, both vendors (SDM Vol. 2 RDPMC; APM 13.2 RDPMC, APM Vol. 3 RDPMC). */

static int n_gp(void)
{
	return is_amd ? AMD_NCTR : INTEL_NGP;
}

static u32 gp_ctr_msr(int i)
{
	return is_amd ? AMD_PERF_CTR(i) : IA32_A_PMC(i);
}

/* At CPL 0, RDPMC ECX=i returns GP counter i (48 bits in EDX:EAX). */
static void t_rdpmc_gp(void)
{
	int i, f;
	u64 v;

	for (i = 0; i < n_gp(); i++)
		wr(gp_ctr_msr(i), test_value(i));
	for (i = 0; i < n_gp(); i++) {
		f = rdpmc_safe(i, &v);
		check_eq(f, 0, "RDPMC fault vector, counter", i);
		check_eq(v, test_value(i), "RDPMC value, counter", i);
	}
}

/* SDM RDPMC: ECX bit 30 selects fixed counter ECX[29:0]. */
static void t_rdpmc_fixed(void)
{
	int i, f;
	u64 v;

	for (i = 0; i < INTEL_NFIXED; i++)
		wr(IA32_FIXED_CTR(i), test_value(i + 8));
	for (i = 0; i < INTEL_NFIXED; i++) {
		f = rdpmc_safe(RDPMC_FIXED | i, &v);
		check_eq(f, 0, "RDPMC fault vector, fixed counter", i);
		check_eq(v, test_value(i + 8), "RDPMC value, fixed counter", i);
	}
}

/* SDM/APM RDPMC: an index naming no counter -> #GP(0). */
static void t_rdpmc_bad_index(void)
{
	static const u32 intel_bad[] = { 4, 5, 31, RDPMC_FIXED | 3, RDPMC_FIXED | 4 };
	static const u32 amd_bad[] = { 6, 7, 31, RDPMC_FIXED | 0 };
	const u32 *bad = is_amd ? amd_bad : intel_bad;
	unsigned int n = is_amd ? sizeof(amd_bad) / 4 : sizeof(intel_bad) / 4;
	unsigned int i;
	u64 v;

	check_eq(rdpmc_safe(0, &v), 0, "RDPMC 0 fault vector (control)", -1);
	for (i = 0; i < n; i++) {
		int f = rdpmc_safe(bad[i], &v);

		if (f != VEC_GP)
			FAIL("RDPMC ECX=0x%x: vector %d, expected #GP (13)", bad[i], f);
	}
}

/* SDM/APM RDPMC: at CPL 3 with CR4.PCE clear -> #GP(0). */
static void t_rdpmc_cpl3_no_pce(void)
{
	struct user_rdpmc u;

	wr(gp_ctr_msr(0), test_value(0));
	rdpmc_at_cpl3(&u, 0);
	check_eq(u.fault, VEC_GP, "RDPMC at CPL 3, CR4.PCE clear: vector", -1);
}

/* SDM/APM RDPMC: at CPL 3 with CR4.PCE set -> the counter value. */
static void t_rdpmc_cpl3_pce(void)
{
	struct user_rdpmc u;

	wr(gp_ctr_msr(0), test_value(0));
	write_cr4(read_cr4() | CR4_PCE);
	rdpmc_at_cpl3(&u, 0);
	check_eq(u.fault, 0, "RDPMC at CPL 3, CR4.PCE set: vector", -1);
	check_eq(u.val, test_value(0), "RDPMC at CPL 3, CR4.PCE set: value", -1);
	if (!is_amd) {
		wr(IA32_FIXED_CTR(1), test_value(9));
		rdpmc_at_cpl3(&u, RDPMC_FIXED | 1);
		check_eq(u.fault, 0, "RDPMC fixed 1 at CPL 3, CR4.PCE set: vector", -1);
		check_eq(u.val, test_value(9), "RDPMC fixed 1 at CPL 3, CR4.PCE set: value", -1);
	}
	write_cr4(read_cr4() & ~CR4_PCE);
}

/* ---------------------------------------------------------------- */
/* AMD: CPUID (APM Vol. 3 appendix E; APM Vol. 2 13.2). */

/* APM 13.2 core performance counter extensions: CPUID Fn8000_0001_ECX[23] PerfCtrExtCore. */
static void t_amd_cpuid_perfctrextcore(void)
{
	u32 ecx = cpuid(0x80000001, 0).ecx;

	CHECK(ecx & (1u << 23), "CPUID Fn8000_0001_ECX 0x%x lacks PerfCtrExtCore (bit 23)", ecx);
}

/* Fn8000_0022, or all-zero when beyond the max extended leaf. */
static struct cpuid_regs leaf_80000022(void)
{
	struct cpuid_regs none = { 0, 0, 0, 0 };

	if (cpuid(0x80000000, 0).eax < 0x80000022) {
		FAIL("CPUID Fn8000_0022 is beyond the max extended leaf");
		return none;
	}
	return cpuid(0x80000022, 0);
}

/* APM Vol. 3 CPUID: Fn8000_0022 exists (max extended leaf >= 0x80000022). */
static void t_amd_cpuid_max_ext(void)
{
	u32 max = cpuid(0x80000000, 0).eax;

	CHECK(max >= 0x80000022, "CPUID Fn8000_0000_EAX 0x%x < 0x80000022", max);
}

/* APM Vol. 3 CPUID Fn8000_0022_EAX[0] PerfMonV2. */
static void t_amd_cpuid_perfmonv2(void)
{
	u32 eax = leaf_80000022().eax;

	CHECK(eax & 1, "CPUID Fn8000_0022_EAX 0x%x lacks PerfMonV2 (bit 0)", eax);
}

/* APM Vol. 3 CPUID Fn8000_0022_EBX[3:0] NumPerfCtrCore = 6. */
static void t_amd_cpuid_ncounters(void)
{
	check_eq(leaf_80000022().ebx & 0xf, 6, "CPUID Fn8000_0022_EBX[3:0]", -1);
}

/* Spec: Fn8000_0022 is EAX=1 (no LBR bits), EBX=6 (no LBR/NB/UMC), ECX=EDX=0. */
static void t_amd_cpuid_22_exact(void)
{
	struct cpuid_regs r = leaf_80000022();

	check_eq(r.eax, 1, "CPUID Fn8000_0022_EAX", -1);
	check_eq(r.ebx, 6, "CPUID Fn8000_0022_EBX", -1);
	check_eq(r.ecx, 0, "CPUID Fn8000_0022_ECX", -1);
	check_eq(r.edx, 0, "CPUID Fn8000_0022_EDX", -1);
}

/* ---------------------------------------------------------------- */
/* AMD: MSRs (APM 13.2 PerfEvtSel/PERF_CTL, PerfCtr, PerfMonV2 global regs). */

/* Spec / PPR: PerfCntrGlobalCtl resets to 0x3F (all six enabled). */
static void t_amd_global_ctl_reset(void)
{
	CHECK(!boot_ctrl_fault, "RDMSR PerfCntrGlobalCtl faulted at boot");
	check_eq(boot_global_ctrl, 0x3f, "PerfCntrGlobalCtl at boot", -1);
}

static void t_amd_global_status_reset(void)
{
	CHECK(!boot_status_fault, "RDMSR PerfCntrGlobalStatus faulted at boot");
	check_eq(boot_global_status, 0, "PerfCntrGlobalStatus at boot", -1);
}

/* PPR: PerfCntrGlobalStatus is read-only (write -> #GP). */
static void t_amd_global_status_ro(void)
{
	static const u64 vals[] = { 0, 1, 0x3f };
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		check_eq(wrmsr_safe(AMD_GLOBAL_STATUS, vals[i]), VEC_GP,
			 "vector of WRMSR PerfCntrGlobalStatus, value #", (int)i);
}

/*
 * APM 13.2 PerfEvtSel: PerfCtl bits 7:0 event, 15:8 umask, 16 USR, 17 OS, 18 Edge,
 * 20 INT, 22 EN, 23 INV, 31:24 CntMask, 35:32 event[11:8], 40 GuestOnly,
 * 41 HostOnly; 19, 21, 39:36, 63:42 reserved (#GP).
 */
#define AMD_CTL_VALID	(0xffd7ffffull | 0xfull << 32 | 3ull << 40)

static void t_amd_ctl_reserved(void)
{
	int i;

	for (i = 0; i < AMD_NCTR; i++)
		check_reserved("PERF_CTLn", AMD_PERF_CTL(i), AMD_CTL_VALID, 0x1234, ~0ull);
}

static void t_amd_ctl_valid(void)
{
	int i;

	for (i = 0; i < AMD_NCTR; i++)
		check_valid("PERF_CTLn", AMD_PERF_CTL(i), AMD_CTL_VALID, ~0ull);
}

/* PerfMonV2: PerfCntrGlobalCtl bits 5:0. */
static void t_amd_global_ctl_reserved(void)
{
	check_reserved("PerfCntrGlobalCtl", AMD_GLOBAL_CTL, 0x3f, 0x15, ~0ull);
}

static void t_amd_global_ctl_valid(void)
{
	check_valid("PerfCntrGlobalCtl", AMD_GLOBAL_CTL, 0x3f, ~0ull);
}

/*
 * PerfMonV2: PerfCntrGlobalStatusClr takes any bit without a fault, as
 * Linux acknowledges an interrupt by writing the complement of the bits it
 * did not handle (amd_pmu_v2_handle_irq()); it reads as 0.
 */
static void t_amd_status_clr_reserved(void)
{
	check_valid("PerfCntrGlobalStatusClr", AMD_GLOBAL_STATUS_CLR, ~0ull, 0);
}

static void t_amd_status_clr_valid(void)
{
	check_valid("PerfCntrGlobalStatusClr", AMD_GLOBAL_STATUS_CLR, 0x3f, 0);
}

/* APM 13.2 PerfCtr: PerfCtr is 48 bits; bits 63:48 of a write are dropped. */
static void t_amd_ctr_width(void)
{
	int i;

	for (i = 0; i < AMD_NCTR; i++) {
		wr(AMD_PERF_CTR(i), 0xabcd876543210fedull + i);
		check_eq(rd(AMD_PERF_CTR(i)), 0x876543210fedull + i, "PERF_CTRn after 0xABCD8765_43210FED+n", i);
		wr(AMD_PERF_CTR(i), CTR_MASK);
		check_eq(rd(AMD_PERF_CTR(i)), CTR_MASK, "PERF_CTRn after 2^48-1", i);
	}
}

/*
 * APM 13.2 core performance counter extensions: the legacy PerfEvtSel0..3 (C001_0000..3) and PerfCtr0..3
 * (C001_0004..7) are the core counters 0..3 (C001_0200 + 2n, + 2n + 1).
 */
static void t_amd_legacy_alias(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		wr(AMD_K7_PERF_CTL(i), 0x1100 + i);
		check_eq(rd(AMD_PERF_CTL(i)), 0x1100 + i, "PERF_CTLn after legacy write", i);
		wr(AMD_PERF_CTL(i), 0x2200 + i);
		check_eq(rd(AMD_K7_PERF_CTL(i)), 0x2200 + i, "legacy PerfEvtSeln after PERF_CTLn write", i);
		wr(AMD_K7_PERF_CTR(i), test_value(i));
		check_eq(rd(AMD_PERF_CTR(i)), test_value(i), "PERF_CTRn after legacy write", i);
		wr(AMD_PERF_CTR(i), test_value(i + 4));
		check_eq(rd(AMD_K7_PERF_CTR(i)), test_value(i + 4), "legacy PerfCtrn after PERF_CTRn write", i);
	}
}

/* ---------------------------------------------------------------- */
/* AMD: counting (APM 13.2 PerfEvtSel, PPR events PMCx0C0 retired instructions, PMCx076 cycles). */

static const u32 amd_ctr4[4] = {
	AMD_PERF_CTR(0), AMD_PERF_CTR(1), AMD_PERF_CTR(2), AMD_PERF_CTR(3),
};

static void t_amd_count_instructions(void)
{
	int i;

	for (i = 0; i < AMD_NCTR; i++) {
		u32 ctr = AMD_PERF_CTR(i);
		struct counts c;

		run_counts(AMD_PERF_CTL(i), INSTR_OS, loop10, 1, &ctr, &c);
		expect_slope(&c, 0, 10, "PERF_CTRn instructions, n");
		if (i == 0)
			show_counts("PERF_CTR0 instructions (OS)", &c, 0);
	}
}

static void t_amd_count_cycles(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_OS);
	wr(AMD_PERF_CTL(1), EV_EN | EV_OS | EV_AMD_CYC);
	run_counts(AMD_GLOBAL_CTL, 0x3, loop10, 2, amd_ctr4, &c);
	expect_slope(&c, 1, 10, "cycles 0x76, n");
	expect_same(&c, 0, 1, "cycles vs instructions, n");
}

/*
 * Spec: only 0xC0 and 0x76 with umask 0 and event[11:8] 0 count: retired
 * branches 0xC2, event 0x1C0 (event[11:8]=1), 0xC0 umask 1 count nothing.
 */
static void t_amd_count_unmodelled(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), EV_EN | EV_OS | 0xc2);
	wr(AMD_PERF_CTL(1), INSTR_OS | 1ull << 32);
	wr(AMD_PERF_CTL(2), INSTR_OS | 0x100);
	wr(AMD_PERF_CTL(3), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0xf, loop10, 4, amd_ctr4, &c);
	expect_zero(&c, 0, "retired branches 0xC2, n");
	expect_zero(&c, 1, "event 0x1C0, n");
	expect_zero(&c, 2, "event 0xC0 umask 1, n");
	expect_slope(&c, 3, 10, "instructions (control), n");
}

/* Spec (APM 13.2 PerfEvtSel Edge/INV/CntMask): any of them set -> nothing counted. */
static void t_amd_count_edge_inv_cmask(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_OS | EV_EDGE);
	wr(AMD_PERF_CTL(1), INSTR_OS | EV_INV);
	wr(AMD_PERF_CTL(2), INSTR_OS | EV_CMASK(1));
	wr(AMD_PERF_CTL(3), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0xf, loop10, 4, amd_ctr4, &c);
	expect_zero(&c, 0, "instructions with Edge, n");
	expect_zero(&c, 1, "instructions with INV, n");
	expect_zero(&c, 2, "instructions with CntMask=1, n");
	expect_slope(&c, 3, 10, "instructions (control), n");
}

/* APM 13.2 PerfEvtSel: EN clear -> the counter does not count. */
static void t_amd_count_en_clear(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), EV_OS | EV_INSTR);
	wr(AMD_PERF_CTL(1), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0x3, loop10, 2, amd_ctr4, &c);
	expect_zero(&c, 0, "PERF_CTR0 with EN clear, n");
	expect_slope(&c, 1, 10, "PERF_CTR1 (control), n");
}

/* PerfMonV2: PerfCntrGlobalCtl bit n clear -> counter n does not count. */
static void t_amd_count_global_ctl(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_OS);
	wr(AMD_PERF_CTL(1), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0x2, loop10, 2, amd_ctr4, &c);
	expect_zero(&c, 0, "PERF_CTR0 with PerfCntrGlobalCtl bit 0 clear, n");
	expect_slope(&c, 1, 10, "PERF_CTR1 (control), n");
}

/* APM 13.2 PerfEvtSel USR/OS: USR-only at CPL 0 counts nothing. */
static void t_amd_count_usr_at_cpl0(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_USR);
	wr(AMD_PERF_CTL(1), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0x3, loop10, 2, amd_ctr4, &c);
	expect_zero(&c, 0, "PERF_CTR0 USR-only at CPL 0, n");
	expect_slope(&c, 1, 10, "PERF_CTR1 OS-only (control), n");
}

/*
 * APM 13.2 PerfEvtSel GuestOnly/HostOnly (spec: counts only with GuestOnly clear;
 * this is no guest): GuestOnly -> 0, HostOnly -> counts.
 */
static void t_amd_count_guest_host(void)
{
	struct counts c;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_OS | AMD_GUESTONLY);
	wr(AMD_PERF_CTL(1), INSTR_OS | AMD_HOSTONLY);
	wr(AMD_PERF_CTL(2), INSTR_OS);
	run_counts(AMD_GLOBAL_CTL, 0x7, loop10, 3, amd_ctr4, &c);
	expect_zero(&c, 0, "GuestOnly PERF_CTR0, n");
	expect_slope(&c, 1, 10, "HostOnly PERF_CTR1, n");
	expect_slope(&c, 2, 10, "PERF_CTR2 (control), n");
}

/* APM 13.2 core performance counter extensions: a counter programmed through the legacy MSRs counts. */
static void t_amd_count_legacy(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		u32 ctr[2] = { AMD_K7_PERF_CTR(i), AMD_PERF_CTR(i) };
		struct counts c;

		run_counts(AMD_K7_PERF_CTL(i), INSTR_OS, loop10, 2, ctr, &c);
		expect_slope(&c, 0, 10, "legacy PerfCtrn, n");
		expect_same(&c, 0, 1, "PERF_CTRn vs legacy PerfCtrn, n");
	}
}

static void t_amd_rdmsr_running(void)
{
	u32 faults = fault_count;
	u64 v[NRUNS];
	int k;

	for (k = 0; k < NRUNS; k++) {
		wr(AMD_PERF_CTR(0), 0);
		v[k] = measure_rdmsr(AMD_PERF_CTL(0), (u32)INSTR_OS, 0, loop10,
				     loop_n[k], AMD_PERF_CTR(0));
	}
	CHECK(fault_count == faults, "%u WRMSR/RDMSR/RDPMC faulted (last: vector %u)",
	      fault_count - faults, last_fault_vec);
	for (k = 1; k < NRUNS; k++)
		check_eq(v[k] - v[0], 10ull * loop_n[k], "RDMSR of running PERF_CTR0, n", (int)loop_n[k]);
	INFO("RDMSR of running PERF_CTR0: n=0: %llu", v[0]);
}

static void t_amd_rdpmc_running(void)
{
	u32 faults = fault_count;
	u64 v[NRUNS];
	int k;

	for (k = 0; k < NRUNS; k++) {
		wr(AMD_PERF_CTR(5), 0);
		v[k] = measure_rdpmc(AMD_PERF_CTL(5), (u32)INSTR_OS, 0, loop10,
				     loop_n[k], 5);
	}
	CHECK(fault_count == faults, "%u WRMSR/RDMSR/RDPMC faulted (last: vector %u)",
	      fault_count - faults, last_fault_vec);
	for (k = 1; k < NRUNS; k++)
		check_eq(v[k] - v[0], 10ull * loop_n[k], "RDPMC 5 of running PERF_CTR5, n", (int)loop_n[k]);
	INFO("RDPMC of running PERF_CTR5: n=0: %llu", v[0]);
}

/* AMD: CPL 3.  CTR0 USR, CTR1 OS, CTR2 OS|USR. */
static void amd_ring3_counts(struct counts *c)
{
	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_USR);
	wr(AMD_PERF_CTL(1), INSTR_OS);
	wr(AMD_PERF_CTL(2), INSTR_OS | EV_USR);
	run_counts(AMD_GLOBAL_CTL, 0x7, user_loop10, 3, amd_ctr4, c);
}

/* APM 13.2 PerfEvtSel USR: counts exactly the instructions run at CPL 3 (see t_cpl3_usr_exact). */
static void t_amd_cpl3_usr_exact(void)
{
	struct counts c;

	amd_ring3_counts(&c);
	expect_slope(&c, 0, 10, "USR-only PERF_CTR0, loop at CPL 3, n");
	check_eq(c.v[0][0], USER_INSNS_N0, "USR-only PERF_CTR0 for n=0 (mov, test, jz, ret, int $0x80)", -1);
	show_counts("PERF_CTR0 USR-only, loop at CPL 3", &c, 0);
}

/* APM 13.2 PerfEvtSel OS: only the ring-0 instructions around the CPL changes. */
static void t_amd_cpl3_os_excluded(void)
{
	struct counts c;
	int k;

	amd_ring3_counts(&c);
	for (k = 1; k < NRUNS; k++)
		check_eq(c.v[k][1], c.v[0][1], "OS-only PERF_CTR1 with the loop at CPL 3, n", (int)loop_n[k]);
	CHECK(c.v[0][1] > 0 && c.v[0][1] < 200,
	      "OS-only PERF_CTR1 counted %llu, expected a few ring-0 instructions", c.v[0][1]);
	show_counts("PERF_CTR1 OS-only, loop at CPL 3", &c, 1);
}

static void t_amd_cpl3_os_usr_sum(void)
{
	struct counts c;
	int k;

	amd_ring3_counts(&c);
	for (k = 0; k < NRUNS; k++)
		check_eq(c.v[k][2], c.v[k][0] + c.v[k][1], "OS|USR PERF_CTR2 vs CTR0+CTR1, n", (int)loop_n[k]);
	expect_slope(&c, 2, 10, "OS|USR PERF_CTR2, n");
}

/* AMD: overflow (PerfMonV2 PerfCntrGlobalStatus / StatusClr). */
static void amd_overflow_run(u64 cal[2], u64 out[2], u64 *st_cal, u64 *st)
{
	static const u32 ctr[2] = { AMD_PERF_CTR(0), AMD_PERF_CTR(3) };
	int j;

	wr(AMD_GLOBAL_CTL, 0);
	wr(AMD_PERF_CTL(0), INSTR_OS);
	wr(AMD_PERF_CTL(3), INSTR_OS);
	for (j = 0; j < 2; j++)
		wr(ctr[j], 0);
	measure(AMD_GLOBAL_CTL, 0x9, 0, loop10, OVF_N);
	for (j = 0; j < 2; j++)
		cal[j] = rd(ctr[j]);
	*st_cal = rd(AMD_GLOBAL_STATUS);
	for (j = 0; j < 2; j++)
		wr(ctr[j], (1ull << 48) - 1000 * (j + 1));
	measure(AMD_GLOBAL_CTL, 0x9, 0, loop10, OVF_N);
	for (j = 0; j < 2; j++)
		out[j] = rd(ctr[j]);
	*st = rd(AMD_GLOBAL_STATUS);
}

static void t_amd_overflow_status(void)
{
	u64 cal[2], out[2], st_cal, st;
	int j;

	amd_overflow_run(cal, out, &st_cal, &st);
	check_eq(st_cal, 0, "PerfCntrGlobalStatus after a run without overflow", -1);
	check_eq(st, 0x9, "PerfCntrGlobalStatus after CTR0 and CTR3 overflowed", -1);
	for (j = 0; j < 2; j++)
		check_eq(out[j], (cal[j] - 1000 * (j + 1)) & CTR_MASK,
			 "wrapped counter (CTR0, CTR3) = count - K", j);
	CHECK(cal[0] >= 10 * OVF_N, "calibration count %llu too small", cal[0]);
}

static void t_amd_overflow_status_clr(void)
{
	u64 cal[2], out[2], st_cal, st;

	amd_overflow_run(cal, out, &st_cal, &st);
	if (!check_eq(st, 0x9, "PerfCntrGlobalStatus before clearing", -1))
		return;
	wr(AMD_GLOBAL_STATUS_CLR, 1ull << 3);
	check_eq(rd(AMD_GLOBAL_STATUS), 0x1, "PerfCntrGlobalStatus after StatusClr bit 3", -1);
	wr(AMD_GLOBAL_STATUS_CLR, 1ull << 0);
	check_eq(rd(AMD_GLOBAL_STATUS), 0, "PerfCntrGlobalStatus after StatusClr bit 0", -1);
}

/* ---------------------------------------------------------------- */

#define T(fn, name) { name, fn }

static const struct test intel_tests[] = {
	T(t_cpuid_max_leaf, "CPUID max basic leaf reaches 0AH"),
	T(t_cpuid_version, "CPUID.0AH:EAX version ID is 2"),
	T(t_cpuid_ngp, "CPUID.0AH:EAX has 4 GP counters"),
	T(t_cpuid_gp_width, "CPUID.0AH:EAX GP counter width is 48"),
	T(t_cpuid_ebx, "CPUID.0AH:EBX length 7, value 0x78 (cycles, instructions, ref cycles available)"),
	T(t_cpuid_fixed, "CPUID.0AH:EDX has 3 fixed counters of width 48"),
	T(t_cpuid_pdcm, "CPUID.01H:ECX.PDCM is set"),
	T(t_perf_capabilities, "IA32_PERF_CAPABILITIES reads 0x2000 (FW_WRITE)"),
	T(t_perf_capabilities_ro, "IA32_PERF_CAPABILITIES write #GPs"),
	T(t_global_ctrl_reset, "IA32_PERF_GLOBAL_CTRL reset value is 0xF"),
	T(t_global_status_reset, "IA32_PERF_GLOBAL_STATUS reset value is 0"),
	T(t_global_status_ro, "IA32_PERF_GLOBAL_STATUS write #GPs"),
	T(t_evtsel_reserved, "IA32_PERFEVTSEL0-3 bit 21 and each of bits 63:32 #GP, value kept"),
	T(t_evtsel_valid, "IA32_PERFEVTSEL0-3 valid bits write and read back"),
	T(t_fixed_ctrl_reserved, "IA32_FIXED_CTR_CTRL AnyThread bits and bits 63:12 #GP, value kept"),
	T(t_fixed_ctrl_valid, "IA32_FIXED_CTR_CTRL valid bits 0xBBB write and read back"),
	T(t_global_ctrl_reserved, "IA32_PERF_GLOBAL_CTRL bits outside 3:0, 34:32 #GP, value kept"),
	T(t_global_ctrl_valid, "IA32_PERF_GLOBAL_CTRL valid bits write and read back"),
	T(t_ovf_ctrl_reserved, "IA32_PERF_GLOBAL_OVF_CTRL bits outside 3:0, 34:32, 63:62 #GP"),
	T(t_ovf_ctrl_valid, "IA32_PERF_GLOBAL_OVF_CTRL valid bits write, read as 0"),
	T(t_pmc_sign_extend, "IA32_PMCx 32-bit writes sign-extend from bit 31 to 48 bits"),
	T(t_pmc_edx_ignored, "IA32_PMCx writes ignore EDX"),
	T(t_apmc_full_width, "IA32_A_PMCx full-width writes set bits 47:0"),
	T(t_apmc_reserved, "IA32_A_PMCx writes with any of bits 63:48 #GP, counter kept"),
	T(t_fixed_ctr_width, "IA32_FIXED_CTRx writes masked to 48 bits"),
	T(t_count_instructions, "instructions 0xC0 on PMC0-3 count the loop exactly (OS, CPL 0)"),
	T(t_count_core_cycles, "core cycles 0x3C count exactly like instructions"),
	T(t_count_ref_cycles, "reference cycles 0x013C count exactly like instructions"),
	T(t_count_fixed, "FIXED_CTR0-2 count the loop exactly"),
	T(t_count_unmodelled, "unmodelled events (0x2E LLC, 0xC4, 0xC0 umask 1) count 0"),
	T(t_count_edge_inv_cmask, "E, INV or CMASK set counts 0"),
	T(t_count_en_clear, "PERFEVTSEL.EN clear counts 0"),
	T(t_count_global_ctrl_gp, "GLOBAL_CTRL bit 0 clear stops PMC0"),
	T(t_count_global_ctrl_fixed, "GLOBAL_CTRL bit 33 clear stops FIXED_CTR1"),
	T(t_count_usr_at_cpl0, "USR-only PMC0 and FIXED_CTR0 count 0 at CPL 0"),
	T(t_rdmsr_running, "RDMSR of a running counter is exact"),
	T(t_rdpmc_running, "RDPMC of a running GP and fixed counter is exact"),
	T(t_rdpmc_rdmsr_agree, "RDPMC and RDMSR of a running counter agree"),
	T(t_cpl3_usr_exact, "USR-only counter counts the CPL 3 loop exactly"),
	T(t_cpl3_os_excluded, "OS-only counter does not count the CPL 3 loop"),
	T(t_cpl3_os_usr_sum, "OS|USR counter counts OS plus USR"),
	T(t_cpl3_fixed, "fixed counters split OS/USR like the GP counters"),
	T(t_overflow_status, "PMC0, PMC2, FIXED_CTR0 overflow: wrap, exactly their GLOBAL_STATUS bits"),
	T(t_overflow_ovf_ctrl, "GLOBAL_OVF_CTRL clears exactly the written status bit"),
	T(t_overflow_pmc32, "32-bit write of -K to IA32_PMC0 overflows after K"),
	T(t_pmi_delivered, "PMC0 overflow with INT: one PMI on vector 0xF0, right after the wrap"),
	T(t_pmi_exact, "PMI arrives after exactly K instructions (K..K+10)"),
	T(t_pmi_lvt_masked_after, "PMI delivery (fixed and NMI mode) sets the LVT performance counter mask bit"),
	T(t_pmi_masked_lvt, "masked LVT entry: no PMI, status bit set"),
	T(t_pmi_int_clear, "INT clear: no PMI, status bit set"),
	T(t_pmi_nmi, "LVT delivery mode NMI: PMI arrives as NMI, right after the wrap"),
	T(t_pmi_fixed, "FIXED_CTR0 overflow with PMI bit: one PMI, right after the wrap"),
	T(t_rdpmc_gp, "RDPMC at CPL 0 reads GP counters 0-3"),
	T(t_rdpmc_fixed, "RDPMC at CPL 0 with ECX bit 30 reads fixed counters 0-2"),
	T(t_rdpmc_bad_index, "RDPMC of an out-of-range index #GPs"),
	T(t_rdpmc_cpl3_no_pce, "RDPMC at CPL 3 with CR4.PCE clear #GPs"),
	T(t_rdpmc_cpl3_pce, "RDPMC at CPL 3 with CR4.PCE set reads the counter"),
};

static const struct test amd_tests[] = {
	T(t_amd_cpuid_perfctrextcore, "CPUID 8000_0001h:ECX PerfCtrExtCore (bit 23) is set"),
	T(t_amd_cpuid_max_ext, "CPUID max extended leaf reaches 8000_0022h"),
	T(t_amd_cpuid_perfmonv2, "CPUID 8000_0022h:EAX PerfMonV2 is set"),
	T(t_amd_cpuid_ncounters, "CPUID 8000_0022h:EBX has 6 core counters"),
	T(t_amd_cpuid_22_exact, "CPUID 8000_0022h is EAX=1 EBX=6 ECX=0 EDX=0"),
	T(t_amd_global_ctl_reset, "PerfCntrGlobalCtl reset value is 0x3F"),
	T(t_amd_global_status_reset, "PerfCntrGlobalStatus reset value is 0"),
	T(t_amd_global_status_ro, "PerfCntrGlobalStatus write #GPs"),
	T(t_amd_ctl_reserved, "PERF_CTL0-5 bits 19, 21, 39:36, 63:42 each #GP, value kept"),
	T(t_amd_ctl_valid, "PERF_CTL0-5 valid bits write and read back"),
	T(t_amd_global_ctl_reserved, "PerfCntrGlobalCtl bits 63:6 #GP, value kept"),
	T(t_amd_global_ctl_valid, "PerfCntrGlobalCtl bits 5:0 write and read back"),
	T(t_amd_status_clr_reserved, "PerfCntrGlobalStatusClr takes bits 63:6 without #GP"),
	T(t_amd_status_clr_valid, "PerfCntrGlobalStatusClr bits 5:0 write, read as 0"),
	T(t_amd_ctr_width, "PERF_CTR0-5 writes masked to 48 bits"),
	T(t_amd_legacy_alias, "legacy C001_0000-7 alias core counters 0-3"),
	T(t_amd_count_instructions, "instructions 0xC0 on CTR0-5 count the loop exactly (OS, CPL 0)"),
	T(t_amd_count_cycles, "cycles 0x76 count exactly like instructions"),
	T(t_amd_count_unmodelled, "unmodelled events (0xC2, 0x1C0, 0xC0 umask 1) count 0"),
	T(t_amd_count_edge_inv_cmask, "Edge, INV or CntMask set counts 0"),
	T(t_amd_count_en_clear, "PERF_CTL.EN clear counts 0"),
	T(t_amd_count_global_ctl, "PerfCntrGlobalCtl bit 0 clear stops CTR0"),
	T(t_amd_count_usr_at_cpl0, "USR-only counter counts 0 at CPL 0"),
	T(t_amd_count_guest_host, "GuestOnly counts 0, HostOnly counts"),
	T(t_amd_count_legacy, "counters programmed through the legacy MSRs count"),
	T(t_amd_rdmsr_running, "RDMSR of a running counter is exact"),
	T(t_amd_rdpmc_running, "RDPMC of a running counter is exact"),
	T(t_rdpmc_rdmsr_agree, "RDPMC and RDMSR of a running counter agree"),
	T(t_amd_cpl3_usr_exact, "USR-only counter counts the CPL 3 loop exactly"),
	T(t_amd_cpl3_os_excluded, "OS-only counter does not count the CPL 3 loop"),
	T(t_amd_cpl3_os_usr_sum, "OS|USR counter counts OS plus USR"),
	T(t_amd_overflow_status, "CTR0, CTR3 overflow: wrap, exactly their PerfCntrGlobalStatus bits"),
	T(t_amd_overflow_status_clr, "PerfCntrGlobalStatusClr clears exactly the written bit"),
	T(t_pmi_delivered, "CTR0 overflow with INT: one PMI on vector 0xF0, right after the wrap"),
	T(t_pmi_exact, "PMI arrives after exactly K instructions (K..K+10)"),
	T(t_pmi_lvt_masked_after, AMD_PMI_SETS_LVT_MASK ?
	  "PMI delivery (fixed and NMI mode) sets the LVT performance counter mask bit" :
	  "PMI delivery (fixed and NMI mode) leaves the LVT performance counter mask bit clear"),
	T(t_pmi_masked_lvt, "masked LVT entry: no PMI, status bit set"),
	T(t_pmi_int_clear, "INT clear: no PMI, status bit set"),
	T(t_pmi_nmi, "LVT delivery mode NMI: PMI arrives as NMI, right after the wrap"),
	T(t_rdpmc_gp, "RDPMC at CPL 0 reads core counters 0-5"),
	T(t_rdpmc_bad_index, "RDPMC of an out-of-range index #GPs"),
	T(t_rdpmc_cpl3_no_pce, "RDPMC at CPL 3 with CR4.PCE clear #GPs"),
	T(t_rdpmc_cpl3_pce, "RDPMC at CPL 3 with CR4.PCE set reads the counter"),
};

/* ---------------------------------------------------------------- */

static jmp_buf_k test_jmp;

static __attribute__((noinline)) int run_one(void (*fn)(void))
{
	if (k_setjmp(test_jmp))
		return 1;	/* unexpected exception, reported by cpu.c */
	recover_jmp = &test_jmp;
	fn();
	return 0;
}

static void __attribute__((noreturn))
run_suite(const char *suite, const struct test *t, int n)
{
	int i, pass = 0, fail = 0;

	kprintf("perfctr-check: suite %s\n", suite);
	kputs("TAP version 13\n");
	kprintf("1..%d\n", n);
	for (i = 0; i < n; i++) {
		u32 unexpected = unexpected_count;
		u32 stray = stray_irq_count;

		pmu_reset();
		cur_fail = 0;
		if (run_one(t[i].fn))
			cur_fail = 1;
		recover_jmp = NULL;
		cli();
		if (unexpected_count != unexpected || stray_irq_count != stray)
			FAIL("unexpected exception or interrupt during the test");
		kprintf("%sok %d %s\n", cur_fail ? "not " : "", i + 1, t[i].name);
		if (cur_fail)
			fail++;
		else
			pass++;
	}
	pmu_reset();
	kprintf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
		pass, fail);
	kputs("perfctr-check: end\n");
	qemu_exit(fail ? 1 : 0);
}

void kmain(u32 magic, u32 mbi);
void kmain(u32 magic, u32 mbi)
{
	struct cpuid_regs r;
	char vendor[13];
	u64 apic_base = 0;

	serial_init();
	cpu_init();

	r = cpuid(0, 0);
	memcpy(vendor, &r.ebx, 4);
	memcpy(vendor + 4, &r.edx, 4);
	memcpy(vendor + 8, &r.ecx, 4);
	vendor[12] = '\0';
	is_amd = r.ebx == 0x68747541 && r.edx == 0x69746e65 && r.ecx == 0x444d4163;

	/* Reset values, before anything writes a PMU MSR. */
	if (is_amd) {
		boot_ctrl_fault = rdmsr_safe(AMD_GLOBAL_CTL, &boot_global_ctrl);
		boot_status_fault = rdmsr_safe(AMD_GLOBAL_STATUS, &boot_global_status);
	} else {
		boot_ctrl_fault = rdmsr_safe(IA32_PERF_GLOBAL_CTRL, &boot_global_ctrl);
		boot_status_fault = rdmsr_safe(IA32_PERF_GLOBAL_STATUS, &boot_global_status);
	}
	rdmsr_safe(0x1b, &apic_base);

	kprintf("# pmu model test: multiboot magic 0x%x info 0x%x, vendor %s, "
		"family/model/stepping 0x%x, APIC_BASE 0x%llx\n",
		magic, mbi, vendor, cpuid(1, 0).eax, apic_base);
	if (magic != 0x2badb002)
		kputs("# not started by a multiboot loader?\n");

	if (is_amd)
		run_suite("pmu_model_amd", amd_tests,
			  sizeof(amd_tests) / sizeof(amd_tests[0]));
	run_suite("pmu_model_intel", intel_tests,
		  sizeof(intel_tests) / sizeof(intel_tests[0]));
}
