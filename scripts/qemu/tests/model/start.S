/* SPDX-License-Identifier: GPL-2.0 */
/*
 * start.S - multiboot (v1) entry, interrupt stubs, ring 3 entry/exit and the
 * instruction-exact measurement routines of the PMU model test.
 * 32-bit protected mode, paging off, flat segments (see cpu.c for the GDT).
 */

#define MB_MAGIC	0x1badb002
#define MB_FLAGS	0x00000003	/* page-align modules, give mem info */

#define SEL_KDATA	0x10
#define SEL_UCODE	0x1b
#define SEL_UDATA	0x23

	/* QEMU looks for this in the first 8 KiB of the image (link.ld). */
	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.section .bss
	.align 16
	.globl stack_top, ring0_stack_top, user_stack_top
stack_bottom:
	.skip 65536
stack_top:
	.skip 16384
ring0_stack_top:			/* TSS.esp0: ring 3 -> ring 0 */
	.skip 16384
user_stack_top:
	.globl kernel_saved_esp
kernel_saved_esp:
	.skip 4

	.text
	.globl _start
_start:
	cli
	cld
	movl %eax, %esi			/* multiboot magic */
	movl %ebx, %ebp			/* multiboot info */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl $stack_top, %esp
	pushl %ebp
	pushl %esi
	call kmain
1:	cli
	hlt
	jmp 1b

/* ---------------------------------------------------------------- */
/* Exception and interrupt stubs.  Frame layout: struct frame in cpu.c. */

	.macro ISR_NOERR vec
isr\vec:
	pushl $0
	pushl $\vec
	jmp isr_common
	.endm

	.macro ISR_ERR vec
isr\vec:
	pushl $\vec
	jmp isr_common
	.endm

	/*
	 * PMI and NMI: read the counter irq_rdpmc_idx with RDPMC first, after
	 * exactly IRQ_STUB_INSNS (4) instructions, so the test sees how far
	 * the counter got past its overflow when the interrupt arrived.
	 */
	.macro ISR_RDPMC vec
isr\vec:
	pushl %eax
	pushl %ecx
	pushl %edx
	movl irq_rdpmc_idx, %ecx
	rdpmc
	movl %eax, irq_ctr_lo
	movl %edx, irq_ctr_hi
	popl %edx
	popl %ecx
	popl %eax
	pushl $0
	pushl $\vec
	jmp isr_common
	.endm

	ISR_NOERR 0
	ISR_NOERR 1
	ISR_RDPMC 2
	.irp v, 3,4,5,6,7
	ISR_NOERR \v
	.endr
	ISR_ERR 8
	ISR_NOERR 9
	.irp v, 10,11,12,13,14
	ISR_ERR \v
	.endr
	.irp v, 15,16
	ISR_NOERR \v
	.endr
	ISR_ERR 17
	.irp v, 18,19,20
	ISR_NOERR \v
	.endr
	ISR_ERR 21
	.irp v, 22,23,24,25,26,27,28
	ISR_NOERR \v
	.endr
	.irp v, 29,30
	ISR_ERR \v
	.endr
	ISR_NOERR 31
	.irp v, 32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	ISR_NOERR \v
	.endr
	ISR_RDPMC 240			/* VEC_PMI 0xf0 */
	ISR_NOERR 256			/* any other vector */

	.globl isr_spurious
isr_spurious:				/* APIC spurious vector: no EOI */
	iret

isr_common:
	pushal
	pushl %ds
	pushl %es
	movl $SEL_KDATA, %eax
	movw %ax, %ds
	movw %ax, %es
	pushl %esp
	call exc_handler
	addl $4, %esp
	popl %es
	popl %ds
	popal
	addl $8, %esp			/* vector, error code */
	iret

	.section .rodata
	.align 4
	.globl isr_table, isr_pmi, isr_other
isr_table:				/* vectors 0..47 */
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
	.long isr\v
	.endr
	.irp v, 24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47
	.long isr\v
	.endr
isr_pmi:
	.long isr240
isr_other:
	.long isr256
	.text

/* ---------------------------------------------------------------- */
/* Ring 3. */

	/* void enter_user(void (*fn)(void *), void *arg) */
	.globl enter_user
enter_user:
	pushl %ebp
	pushl %ebx
	pushl %esi
	pushl %edi
	movl %esp, kernel_saved_esp
	movl 20(%esp), %eax		/* fn */
	movl 24(%esp), %edx		/* arg */
	movl $user_stack_top, %ecx
	subl $8, %ecx
	movl %edx, 4(%ecx)		/* fn's argument */
	movl $user_return, (%ecx)	/* fn's return address */
	pushl $SEL_UDATA		/* ss */
	pushl %ecx			/* esp */
	pushl $0x002			/* eflags: IF=0, IOPL=0 */
	pushl $SEL_UCODE		/* cs */
	pushl %eax			/* eip */
	movl $SEL_UDATA, %ebx
	movw %bx, %ds
	movw %bx, %es
	movw %bx, %fs
	movw %bx, %gs
	iret
user_return:
	int $0x80			/* gate DPL 3: back to isr_syscall */
	ud2

	/* Vector 0x80 (interrupt gate, DPL 3): finish enter_user at CPL 0. */
	.globl isr_syscall
isr_syscall:
	movl $SEL_KDATA, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movl kernel_saved_esp, %esp
	popl %edi
	popl %esi
	popl %ebx
	popl %ebp
	ret

	/*
	 * void user_rdpmc0_after1(void *): run at CPL 3 (enter_user): one
	 * instruction, then RDPMC of counter 0 into rdpmc_cal_lo/hi.
	 */
	.globl user_rdpmc0_after1
user_rdpmc0_after1:
	movl $0, %ecx
	rdpmc
	movl %eax, rdpmc_cal_lo
	movl %edx, rdpmc_cal_hi
	ret

	/* void user_loop10(u32 n): loop10(n) at CPL 3 */
	.globl user_loop10
user_loop10:
	pushl 4(%esp)
	pushl $loop10
	call enter_user
	addl $8, %esp
	ret

/* ---------------------------------------------------------------- */
/*
 * void loop10(u32 n): 2 + 10*n instructions from loop10_test on.  Must stay
 * exactly this: cpu.c and pmu_test.c compute positions in it from EIP/ECX
 * (nops at loop10_body+0..7, dec at +8, jnz at +9, loop10_done after).
 */
	.globl loop10, loop10_test, loop10_body, loop10_done
loop10:
	movl 4(%esp), %ecx
loop10_test:
	testl %ecx, %ecx
	jz loop10_done
loop10_body:
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	decl %ecx
	jnz loop10_body
loop10_done:
	ret

/*
 * void measure(u32 msr, u32 lo, u32 hi, void (*fn)(u32), u32 n)
 * wrmsr(msr, hi:lo); fn(n); wrmsr(msr, 0) - the same instructions whatever n.
 */
	.globl measure
measure:
	pushl %ebx
	pushl %esi
	pushl %edi
	movl 16(%esp), %esi		/* msr */
	movl 20(%esp), %eax		/* lo */
	movl 24(%esp), %edx		/* hi */
	movl 28(%esp), %edi		/* fn */
	movl 32(%esp), %ebx		/* n */
	movl %esi, %ecx
	wrmsr				/* start counting */
	pushl %ebx
	call *%edi
	addl $4, %esp
	movl %esi, %ecx
	xorl %eax, %eax
	xorl %edx, %edx
	wrmsr				/* stop counting */
	popl %edi
	popl %esi
	popl %ebx
	ret

/*
 * u64 measure_rdmsr(u32 msr, u32 lo, u32 hi, void (*fn)(u32), u32 n, u32 ctr)
 * u64 measure_rdpmc(...same..., u32 idx)
 * Like measure, and read counter ctr while it still counts, right after fn.
 */
	.macro MEASURE_READ name, insn
	.globl \name
\name:
	pushl %ebx
	pushl %esi
	pushl %edi
	pushl %ebp
	movl 20(%esp), %esi		/* msr */
	movl 24(%esp), %eax		/* lo */
	movl 28(%esp), %edx		/* hi */
	movl 32(%esp), %edi		/* fn */
	movl 36(%esp), %ebx		/* n */
	movl 40(%esp), %ebp		/* counter MSR or RDPMC index */
	movl %esi, %ecx
	wrmsr				/* start counting */
	pushl %ebx
	call *%edi
	addl $4, %esp
	movl %ebp, %ecx
	\insn				/* read while counting */
	movl %eax, %ebx
	movl %edx, %edi
	movl %esi, %ecx
	xorl %eax, %eax
	xorl %edx, %edx
	wrmsr				/* stop counting */
	movl %ebx, %eax
	movl %edi, %edx
	popl %ebp
	popl %edi
	popl %esi
	popl %ebx
	ret
	.endm

	MEASURE_READ measure_rdmsr, rdmsr
	MEASURE_READ measure_rdpmc, rdpmc

/* ---------------------------------------------------------------- */
/* int k_setjmp(u32 buf[6]); void k_longjmp(u32 buf[6], int val) */
	.globl k_setjmp, k_longjmp
k_setjmp:
	movl 4(%esp), %eax
	movl %ebx, 0(%eax)
	movl %esi, 4(%eax)
	movl %edi, 8(%eax)
	movl %ebp, 12(%eax)
	leal 4(%esp), %ecx
	movl %ecx, 16(%eax)
	movl (%esp), %ecx
	movl %ecx, 20(%eax)
	xorl %eax, %eax
	ret

k_longjmp:
	cli
	movl $SEL_KDATA, %eax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	movw %ax, %gs
	movl 4(%esp), %edx
	movl 8(%esp), %eax
	movl 0(%edx), %ebx
	movl 4(%edx), %esi
	movl 8(%edx), %edi
	movl 12(%edx), %ebp
	movl 16(%edx), %esp
	jmp *20(%edx)

	.section .note.GNU-stack, "", @progbits
