/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - shared declarations of the bare-metal PMU model test
 * (see pmu_test.c for what it tests and how to run it).
 */
#ifndef MODEL_KERNEL_H
#define MODEL_KERNEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef u32 jmp_buf_k[6];

/* Segment selectors of the GDT built by cpu.c. */
#define SEL_KCODE	0x08
#define SEL_KDATA	0x10
#define SEL_UCODE	0x1b	/* 0x18 | RPL 3 */
#define SEL_UDATA	0x23	/* 0x20 | RPL 3 */
#define SEL_TSS		0x28

/* Vectors. */
#define VEC_UD		6
#define VEC_NMI		2
#define VEC_GP		13
#define VEC_SYSCALL	0x80	/* ring 3 -> ring 0 return path, DPL 3 gate */
#define VEC_PMI		0xf0	/* LVT performance counter, fixed delivery */
#define VEC_SPURIOUS	0xff

/* Instructions the PMI and NMI stubs of start.S run before their RDPMC. */
#define IRQ_STUB_INSNS	4

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(u32 leaf, u32 sub)
{
	struct cpuid_regs r;

	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(sub));
	return r;
}

static inline u32 read_cr4(void)
{
	u32 v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(u32 v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void cli(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	__asm__ volatile("sti" : : : "memory");
}

/* Local APIC (xAPIC, MMIO; paging is off so the physical address works). */
#define LAPIC_BASE	0xfee00000u
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_LVT_PMC	0x340
#define LVT_MASKED	(1u << 16)
#define LVT_DM_NMI	(4u << 8)

static inline u32 lapic_read(u32 reg)
{
	return *(volatile u32 *)(LAPIC_BASE + reg);
}

static inline void lapic_write(u32 reg, u32 v)
{
	*(volatile u32 *)(LAPIC_BASE + reg) = v;
}

/* print.c */
void serial_init(void);
void kputs(const char *s);
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

/*
 * cpu.c: CPU setup, exceptions, the "safe" MSR/RDPMC wrappers.
 * The #GP (and #UD) handler skips a faulting RDMSR/WRMSR/RDPMC (2 bytes,
 * 0F 32 / 0F 30 / 0F 33), counts it in fault_count and remembers its vector
 * in last_fault_vec; the wrappers below return that vector, or 0.
 */
extern volatile u32 fault_count, last_fault_vec;
extern volatile u32 unexpected_count, stray_irq_count;
/* Where an unexpected exception longjmps to (NULL: report and exit). */
extern jmp_buf_k *recover_jmp;
/* Set by the PMI (vector 0xF0) and NMI handlers. */
extern volatile u32 pmi_count, nmi_count;
extern volatile u32 irq_eip, irq_ecx, irq_lvt;
extern volatile u64 irq_ctr;		/* RDPMC at the top of the handler */
extern volatile u32 irq_rdpmc_idx;	/* what that RDPMC reads (start.S) */
extern volatile u32 irq_ctr_lo, irq_ctr_hi;

void cpu_init(void);
void qemu_exit(u32 code) __attribute__((noreturn));

static inline int rdmsr_safe(u32 msr, u64 *val)
{
	u32 before = fault_count, lo, hi;

	__asm__ volatile("rdmsr"
			 : "=a"(lo), "=d"(hi)
			 : "c"(msr), "0"(0), "1"(0)
			 : "memory");
	*val = (u64)hi << 32 | lo;
	return fault_count != before ? (int)last_fault_vec : 0;
}

static inline int wrmsr_safe(u32 msr, u64 val)
{
	u32 before = fault_count;

	__asm__ volatile("wrmsr"
			 : : "c"(msr), "a"((u32)val), "d"((u32)(val >> 32))
			 : "memory");
	return fault_count != before ? (int)last_fault_vec : 0;
}

static inline int rdpmc_safe(u32 idx, u64 *val)
{
	u32 before = fault_count, lo, hi;

	__asm__ volatile("rdpmc"
			 : "=a"(lo), "=d"(hi)
			 : "c"(idx), "0"(0), "1"(0)
			 : "memory");
	*val = (u64)hi << 32 | lo;
	return fault_count != before ? (int)last_fault_vec : 0;
}

/* start.S */
int k_setjmp(jmp_buf_k buf) __attribute__((returns_twice));
void k_longjmp(jmp_buf_k buf, int val) __attribute__((noreturn));

/*
 * loop10(n): "test ecx,ecx; jz done" then n turns of exactly 10 instructions
 * (8 x nop, dec ecx, jnz), i.e. 2 + 10*n instructions from loop10_test on.
 * loop10_body is the first nop, loop10_done the ret after the loop.
 */
void loop10(u32 n);
extern char loop10_test[], loop10_body[], loop10_done[];
/* user_loop10(n): loop10(n) run at CPL 3 (through enter_user). */
void user_loop10(u32 n);
/* At CPL 3: "mov $0, %ecx; rdpmc", result in rdpmc_cal_lo/hi (cpu.c). */
void user_rdpmc0_after1(void *unused);
extern volatile u32 rdpmc_cal_lo, rdpmc_cal_hi;
/*
 * enter_user(fn, arg): call fn(arg) at CPL 3 with interrupts off; fn's
 * return runs "int $0x80", whose handler returns from enter_user at CPL 0.
 */
void enter_user(void (*fn)(void *), void *arg);

/*
 * measure(msr, lo, hi, fn, n): "wrmsr(msr, hi:lo); fn(n); wrmsr(msr, 0)",
 * the same instructions whatever n, so counts differ by exactly fn's.
 * measure_rdmsr/measure_rdpmc also read a counter (RDMSR of ctr / RDPMC
 * of ctr) right after fn(n), while still counting, and return it.
 */
void measure(u32 msr, u32 lo, u32 hi, void (*fn)(u32), u32 n);
u64 measure_rdmsr(u32 msr, u32 lo, u32 hi, void (*fn)(u32), u32 n, u32 ctr);
u64 measure_rdpmc(u32 msr, u32 lo, u32 hi, void (*fn)(u32), u32 n, u32 ctr);

#endif
