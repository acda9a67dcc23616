// SPDX-License-Identifier: GPL-2.0
/*
 * forker [-t] COUNT PAGES: make COUNT child processes (with -t: threads)
 * that each touch PAGES fresh pages, one write a page, and wait for
 * them all.
 *
 * Under perfex the page faults are the children's: each process or
 * thread maps its own memory, so it takes at least PAGES faults of its
 * own, while the parent, which only starts and waits, takes few.
 * Exits 0, 1 if a child or thread failed, 2 for bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define MAX_COUNT	4096
#define MAX_PAGES	(1ul << 20)

static const char usage[] =
	"Usage: forker [-t] COUNT PAGES\n"
	"Start COUNT child processes, or with -t threads, that each write\n"
	"to PAGES fresh pages of memory, and wait for them.\n";

static unsigned long pages;

/* A whole decimal number from 0 to @max, nothing else; -1 if not. */
static long parse_number(const char *what, const char *arg, unsigned long max)
{
	unsigned long value;
	char *end;

	errno = 0;
	value = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || value > max) {
		fprintf(stderr, "forker: invalid %s: '%s' (0 to %lu)\n", what,
			arg, max);
		return -1;
	}
	return value;
}

/* Map @pages fresh pages and write to each: one page fault a page. */
static int touch_pages(void)
{
	long size = sysconf(_SC_PAGESIZE);
	volatile char *mem;
	unsigned long i;

	if (pages == 0)
		return 0;
	mem = mmap(NULL, pages * size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "forker: mmap %lu pages: %s\n", pages,
			strerror(errno));
		return -1;
	}
	/* One fault a page: no transparent huge page taking 512 at once. */
	madvise((void *)mem, pages * size, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		mem[i * size] = 1;
	munmap((void *)mem, pages * size);
	return 0;
}

static int run_processes(unsigned long count)
{
	unsigned long started;
	int status, failed = 0;
	pid_t pid;

	fflush(NULL);
	for (started = 0; started < count; started++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "forker: fork: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		if (pid == 0)
			_exit(touch_pages() < 0 ? 1 : 0);
	}
	while (started > 0) {
		pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "forker: wait: %s\n", strerror(errno));
			return 1;
		}
		started--;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	return failed;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return touch_pages() < 0 ? (void *)1 : NULL;
}

static int run_threads(unsigned long count)
{
	pthread_t *threads = calloc(count ? count : 1, sizeof(*threads));
	unsigned long started, i;
	int err, failed = 0;
	void *result;

	if (!threads) {
		fprintf(stderr, "forker: out of memory\n");
		return 1;
	}
	for (started = 0; started < count; started++) {
		err = pthread_create(&threads[started], NULL, thread_main,
				     NULL);
		if (err) {
			fprintf(stderr, "forker: pthread_create: %s\n",
				strerror(err));
			failed = 1;
			break;
		}
	}
	for (i = 0; i < started; i++) {
		err = pthread_join(threads[i], &result);
		if (err || result)
			failed = 1;
	}
	free(threads);
	return failed;
}

int main(int argc, char **argv)
{
	int threads = 0;
	long count, n;

	if (argc > 1 && strcmp(argv[1], "-t") == 0) {
		threads = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fputs(usage, stderr);
		return 2;
	}
	count = parse_number("COUNT", argv[1], MAX_COUNT);
	n = parse_number("PAGES", argv[2], MAX_PAGES);
	if (count < 0 || n < 0)
		return 2;
	pages = n;
	return threads ? run_threads(count) : run_processes(count);
}
