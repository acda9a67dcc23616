// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - protected-mode setup for the bare-metal PMU model test: GDT with
 * kernel and user segments and a TSS, IDT, legacy PIC masked, local APIC
 * software-enabled, and the exception handler behind the safe MSR/RDPMC
 * wrappers of kernel.h.
 */
#include "kernel.h"

volatile u32 fault_count, last_fault_vec, unexpected_count;
volatile u32 pmi_count, nmi_count, stray_irq_count;
volatile u32 irq_eip, irq_ecx, irq_lvt;
volatile u64 irq_ctr;
volatile u32 irq_rdpmc_idx, irq_ctr_lo, irq_ctr_hi;
volatile u32 rdpmc_cal_lo, rdpmc_cal_hi;

/* Where an unexpected exception goes: the test runner of pmu_test.c. */
jmp_buf_k *recover_jmp;

/* Frame built by isr_common (start.S), lowest address first. */
struct frame {
	u32 es, ds;
	u32 edi, esi, ebp, esp0, ebx, edx, ecx, eax;	/* pushal */
	u32 vec, err;
	u32 eip, cs, eflags;
	u32 user_esp, user_ss;	/* only from CPL 3 */
};

struct tss {
	u32 link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	u32 eax, ecx, edx, ebx, esp, ebp, esi, edi;
	u32 es, cs, ss, ds, fs, gs, ldt;
	u16 trap, iomap;
} __attribute__((packed));

struct idt_entry {
	u16 off_lo, sel;
	u8 zero, type;
	u16 off_hi;
} __attribute__((packed));

struct desc_ptr {
	u16 limit;
	u32 base;
} __attribute__((packed));

static u64 gdt[6] __attribute__((aligned(8)));
static struct tss tss __attribute__((aligned(16)));
static struct idt_entry idt[256] __attribute__((aligned(8)));

extern void (*const isr_table[48])(void);
extern void (*const isr_pmi)(void), (*const isr_other)(void);
extern void isr_spurious(void), isr_syscall(void);
extern char ring0_stack_top[];

static u64 seg_desc(u32 base, u32 limit, u8 access, u8 flags)
{
	return (u64)(limit & 0xffff) | (u64)(base & 0xffffff) << 16 |
	       (u64)access << 40 | (u64)((limit >> 16) & 0xf) << 48 |
	       (u64)(flags & 0xf) << 52 | (u64)(base >> 24) << 56;
}

static void set_gate(int vec, void (*fn)(void), int dpl)
{
	u32 a = (u32)fn;

	idt[vec].off_lo = (u16)a;
	idt[vec].off_hi = (u16)(a >> 16);
	idt[vec].sel = SEL_KCODE;
	idt[vec].zero = 0;
	idt[vec].type = (u8)(0x8e | dpl << 5);	/* present 32-bit interrupt gate */
}

static void pic_mask_all(void)
{
	/* Remap the 8259s to vectors 0x20..0x2f, then mask every line. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, 0x20);
	outb(0xa1, 0x28);
	outb(0x21, 0x04);
	outb(0xa1, 0x02);
	outb(0x21, 0x01);
	outb(0xa1, 0x01);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void cpu_init(void)
{
	struct desc_ptr gdtr, idtr;
	int i;

	gdt[0] = 0;
	gdt[1] = seg_desc(0, 0xfffff, 0x9a, 0xc);	/* kernel code */
	gdt[2] = seg_desc(0, 0xfffff, 0x92, 0xc);	/* kernel data */
	gdt[3] = seg_desc(0, 0xfffff, 0xfa, 0xc);	/* user code, DPL 3 */
	gdt[4] = seg_desc(0, 0xfffff, 0xf2, 0xc);	/* user data, DPL 3 */
	memset(&tss, 0, sizeof(tss));
	tss.ss0 = SEL_KDATA;
	tss.esp0 = (u32)ring0_stack_top;
	tss.iomap = sizeof(tss);			/* no I/O bitmap */
	gdt[5] = seg_desc((u32)&tss, sizeof(tss) - 1, 0x89, 0x0);

	gdtr.limit = sizeof(gdt) - 1;
	gdtr.base = (u32)gdt;
	__asm__ volatile("lgdt %0\n\t"
			 "ljmp %1, $1f\n"
			 "1:\n\t"
			 "movw %w2, %%ds\n\t"
			 "movw %w2, %%es\n\t"
			 "movw %w2, %%fs\n\t"
			 "movw %w2, %%gs\n\t"
			 "movw %w2, %%ss\n\t"
			 "ltr %w3"
			 : : "m"(gdtr), "i"(SEL_KCODE), "r"(SEL_KDATA),
			     "r"(SEL_TSS)
			 : "memory");

	for (i = 0; i < 256; i++)
		set_gate(i, isr_other, 0);
	for (i = 0; i < 48; i++)
		set_gate(i, isr_table[i], 0);
	set_gate(VEC_PMI, isr_pmi, 0);
	set_gate(VEC_SPURIOUS, isr_spurious, 0);
	set_gate(VEC_SYSCALL, isr_syscall, 3);
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (u32)idt;
	__asm__ volatile("lidt %0" : : "m"(idtr));

	pic_mask_all();

	/* Local APIC: software enable, accept every priority, LVTPC masked. */
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_PMC, LVT_MASKED | VEC_PMI);
}

/*
 * isa-debug-exit (-device isa-debug-exit,iobase=0xf4,iosize=0x04): QEMU
 * exits with status (code << 1) | 1.  Without the device, halt.
 */
void qemu_exit(u32 code)
{
	outl(0xf4, code);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static int is_msr_insn(u32 eip)
{
	const u8 *p = (const u8 *)eip;

	return p[0] == 0x0f && (p[1] == 0x30 || p[1] == 0x32 || p[1] == 0x33);
}

void exc_handler(struct frame *f);
void exc_handler(struct frame *f)
{
	switch (f->vec) {
	case VEC_PMI:
		irq_ctr = (u64)irq_ctr_hi << 32 | irq_ctr_lo;
		irq_eip = f->eip;
		irq_ecx = f->ecx;
		irq_lvt = lapic_read(LAPIC_LVT_PMC);
		pmi_count++;
		lapic_write(LAPIC_EOI, 0);
		return;
	case VEC_NMI:
		irq_ctr = (u64)irq_ctr_hi << 32 | irq_ctr_lo;
		irq_eip = f->eip;
		irq_ecx = f->ecx;
		irq_lvt = lapic_read(LAPIC_LVT_PMC);
		nmi_count++;
		return;
	case VEC_GP:
	case VEC_UD:
		/* RDMSR/WRMSR/RDPMC: note the fault, skip the 2-byte insn. */
		if (is_msr_insn(f->eip)) {
			last_fault_vec = f->vec;
			fault_count++;
			f->eip += 2;
			return;
		}
		break;
	default:
		if (f->vec >= 0x20 && f->vec < 0x30) {
			/* A masked 8259 line fired anyway: ack it, count it. */
			stray_irq_count++;
			if (f->vec >= 0x28)
				outb(0xa0, 0x20);
			outb(0x20, 0x20);
			return;
		}
		break;
	}
	unexpected_count++;
	kprintf("# unexpected exception: vector %u error 0x%x at %x:%x eflags 0x%x\n",
		f->vec == 256 ? 0xffffffffu : f->vec, f->err, f->cs, f->eip,
		f->eflags);
	if (recover_jmp)
		k_longjmp(*recover_jmp, 1);
	kputs("# no test to recover to, giving up\n");
	qemu_exit(1);
}
