// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - COM1 (I/O port 0x3F8) output and a tiny printf for the
 * bare-metal PMU model test.  No libc, no libgcc: 64-bit numbers are
 * divided by shifting, not by __udivdi3.
 */
#include "kernel.h"

#define COM1 0x3f8

void *memset(void *d, int c, size_t n)
{
	u8 *p = d;

	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	u8 *p = d;
	const u8 *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

void serial_init(void)
{
	outb(COM1 + 1, 0x00);	/* no interrupts */
	outb(COM1 + 3, 0x80);	/* DLAB */
	outb(COM1 + 0, 0x01);	/* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);	/* 8N1 */
	outb(COM1 + 2, 0xc7);	/* FIFO on, cleared */
	outb(COM1 + 4, 0x03);	/* DTR, RTS */
}

static void serial_putc(char c)
{
	int spin = 100000;

	while (!(inb(COM1 + 5) & 0x20) && --spin)
		;
	outb(COM1, (u8)c);
}

static void kputc(char c)
{
	if (c == '\n')
		serial_putc('\r');
	serial_putc(c);
}

void kputs(const char *s)
{
	while (*s)
		kputc(*s++);
}

/* n / 10, remainder in *rem, by restoring long division. */
static u64 divmod10(u64 n, u32 *rem)
{
	u64 q = 0;
	u32 r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		r = r << 1 | (u32)((n >> i) & 1);
		q <<= 1;
		if (r >= 10) {
			r -= 10;
			q |= 1;
		}
	}
	*rem = r;
	return q;
}

static void put_num(u64 v, int base, int width, char pad, int neg)
{
	char buf[24];
	int n = 0;
	u32 d;

	do {
		if (base == 16) {
			d = (u32)v & 15;
			v >>= 4;
		} else {
			v = divmod10(v, &d);
		}
		buf[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
	} while (v);
	if (neg)
		buf[n++] = '-';
	while (n < width) {
		kputc(pad);
		width--;
	}
	while (n)
		kputc(buf[--n]);
}

/* %s %c %d %u %x, with optional '0', width and "ll" (64-bit), and %%. */
void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		int width = 0, ll = 0;
		char pad = ' ';
		u64 v;

		if (*fmt != '%') {
			kputc(*fmt);
			continue;
		}
		fmt++;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			ll++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			kputs(s ? s : "(null)");
			break;
		}
		case 'c':
			kputc((char)va_arg(ap, int));
			break;
		case 'd': {
			s64 s = ll >= 2 ? va_arg(ap, s64) : va_arg(ap, int);

			put_num(s < 0 ? -(u64)s : (u64)s, 10, width, pad, s < 0);
			break;
		}
		case 'u':
		case 'x':
			v = ll >= 2 ? va_arg(ap, u64) : va_arg(ap, u32);
			put_num(v, *fmt == 'x' ? 16 : 10, width, pad, 0);
			break;
		case '%':
			kputc('%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			kputc('%');
			kputc(*fmt);
			break;
		}
	}
	va_end(ap);
}
