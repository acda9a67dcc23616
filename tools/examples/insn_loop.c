// SPDX-License-Identifier: GPL-2.0
/*
 * insn_loop N: retire exactly 10 * N user-mode instructions in a loop, and
 * as many more as it takes to start and exit, which do not depend on N.
 * perfex -e instructions:u on an exactly counting PMU (QEMU with -icount)
 * shows the difference between two N as exactly ten times theirs.
 */
#include <stdio.h>
#include <stdlib.h>

static void loop10(unsigned long n)
{
#if defined(__aarch64__)
	/* Eight nops, a subtract and a branch: ten instructions a turn. */
	if (n)
		asm volatile("1:\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "subs %0, %0, #1\n\t"
			     "b.ne 1b"
			     : "+r" (n) : : "cc");
#elif defined(__x86_64__)
	/* Eight nops, a decrement and a branch: ten instructions a turn. */
	if (n)
		asm volatile("1:\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "dec %0\n\t"
			     "jnz 1b"
			     : "+r" (n) : : "cc");
#else
#error "insn_loop: no ten-instruction loop for this architecture"
#endif
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long n;

	if (argc != 2) {
		fprintf(stderr, "usage: insn_loop N\n");
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (!*argv[1] || *end) {
		fprintf(stderr, "insn_loop: '%s' is not a number\n", argv[1]);
		return 2;
	}
	loop10(n);
	return 0;
}
