/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A minimal TAP producer for host unit tests: one "ok N - name" or
 * "not ok N - name" line per check, diagnostics as "# " lines, and the
 * plan "1..N" at the end.
 */
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	int count;
	int failed;
} tap;

/*
 * Line-buffered, so that nothing of ours is left in the buffer when a
 * test forks: a child that exits through exit(), or through valgrind's
 * cleanup, would otherwise print it again.
 */
static void __attribute__((constructor)) tap_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline int tap_vok(int pass, const char *fmt, va_list ap)
{
	tap.count++;
	if (!pass)
		tap.failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap.count);
	vprintf(fmt, ap);
	putchar('\n');
	return pass;
}

static inline __attribute__((format(printf, 2, 3)))
int tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = tap_vok(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __attribute__((format(printf, 3, 4)))
int tap_is_u64(unsigned long long got, unsigned long long want,
	       const char *fmt, ...)
{
	va_list ap;
	int pass;

	va_start(ap, fmt);
	pass = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#   got:  %llu\n#   want: %llu\n", got, want);
	return pass;
}

static inline __attribute__((format(printf, 3, 4)))
int tap_is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	int pass;

	va_start(ap, fmt);
	pass = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return pass;
}

/* @text as diagnostics, one "# " line per line of it. */
static inline void tap_diag_text(const char *label, const char *text)
{
	const char *nl;

	if (!text) {
		printf("#   %s(null)\n", label);
		return;
	}
	printf("#   %s\"", label);
	while ((nl = strchr(text, '\n'))) {
		printf("%.*s\\n\n#         ", (int)(nl - text), text);
		text = nl + 1;
	}
	printf("%s\"\n", text);
}

static inline __attribute__((format(printf, 3, 4)))
int tap_is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int pass;

	va_start(ap, fmt);
	pass = tap_vok(got && want && strcmp(got, want) == 0, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_diag_text("got:  ", got);
		tap_diag_text("want: ", want);
	}
	return pass;
}

/* @print's output on stdout, caught in a pipe (at most 2047 bytes). */
static inline char *tap_stdout_of(void (*print)(const void *), const void *arg)
{
	static char buf[2048];
	int fds[2], saved;
	ssize_t len;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || pipe(fds) < 0)
		abort();
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	print(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	buf[len > 0 ? len : 0] = '\0';
	return buf;
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap.count, name, why);
}

static inline void tap_diag(const char *text)
{
	printf("# %s\n", text);
}

/* Print the plan; the return value is the test program's exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap.count);
	return tap.failed ? 1 : 0;
}

#endif /* TAP_H */
