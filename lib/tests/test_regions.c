// SPDX-License-Identifier: LGPL-2.1
/*
 * Host tests of the code regions: what a begin and an end add, to which
 * record, nested and overlapping, in threads and forked children, and
 * the region area perfex reads, on a made-up state page whose sums the
 * test sets between the calls.  The fast read of live counters is the
 * guest's to test (region_exact).
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

#include "internal.h"
#include "region_area.h"
#include "tap.h"

/* The page every thread of the test reads: nothing live, sums only. */
static struct vperfctr_state page __attribute__((aligned(4096)));
static struct region_area *area;

static struct vperfctr *open_page(void)
{
	struct vperfctr *v = calloc(1, sizeof(*v));

	v->fast.own = &page;
	v->state = &page;
	v->is_self = 1;
	v->fd = -1;
	v->map_pid = getpid();
	return v;
}

/* The counters "now": TSC @t, counter 0 @c. */
static void at(__u64 t, __u64 c)
{
	page.cpu_state.tsc_sum = t;
	page.cpu_state.pmc[0].sum = c;
}

static void area_make(void)
{
	int fd = memfd_create("test-regions", 0);
	char env[16];

	if (fd < 0 || ftruncate(fd, REGION_AREA_SIZE) < 0)
		exit(2);
	area = mmap(NULL, REGION_AREA_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		exit(2);
	area->magic = REGION_AREA_MAGIC;
	area->version = REGION_AREA_VERSION;
	area->size = REGION_AREA_SIZE;
	area->used = sizeof(*area);
	snprintf(env, sizeof(env), "%d", fd);
	setenv(REGION_AREA_ENV, env, 1);
}

/* The thread entry of @pid/@tid in the area, or NULL. */
static struct region_thread *thread_of(pid_t pid, pid_t tid)
{
	__u64 off = sizeof(*area);

	while (off < area->used) {
		struct region_entry *e = (void *)((char *)area + off);
		struct region_thread *t = (void *)e;

		if (e->type == REGION_THREAD && t->pid == pid && t->tid == tid)
			return t;
		off += e->size;
	}
	return NULL;
}

/* The thread's time in regions: covered and its records' outer sums. */
static __u64 covered_pmc0(struct region_thread *t)
{
	__u64 off = sizeof(*area), sum = t->covered.pmc[0];

	while (off < area->used) {
		struct region_entry *e = (void *)((char *)area + off);
		struct region_record *r = (void *)e;

		if (e->type == REGION_RECORD &&
		    (char *)area + r->thread == (char *)t)
			sum += r->outer.pmc[0];
		off += e->size;
	}
	return sum;
}

static struct perfctr_region a = PERFCTR_REGION_INIT("a");
static struct perfctr_region b = PERFCTR_REGION_INIT("b");

static __u64 pmc0(struct perfctr_region *r, int scope)
{
	struct perfctr_region_counts c;

	if (perfctr_region_read(r, scope, &c) < 0)
		return ~0ull;
	return c.pmc[0];
}

static void test_names(void)
{
	struct perfctr_region empty = PERFCTR_REGION_INIT("");
	struct perfctr_region ctl = PERFCTR_REGION_INIT("a\nb");
	struct perfctr_region same = PERFCTR_REGION_INIT("a");
	char long_name[PERFCTR_REGION_NAME_SIZE + 1];
	struct perfctr_region lng = PERFCTR_REGION_INIT(long_name);
	int ok;

	memset(long_name, 'x', PERFCTR_REGION_NAME_SIZE);
	long_name[PERFCTR_REGION_NAME_SIZE] = 0;
	tap_ok(perfctr_region_register(&empty) < 0 && errno == EINVAL,
	       "an empty name: EINVAL");
	tap_ok(perfctr_region_begin(&ctl) < 0 && errno == EINVAL,
	       "a name with a newline: EINVAL, at the first begin too");
	tap_ok(perfctr_region_register(&lng) < 0 && errno == ENAMETOOLONG,
	       "a name of %d bytes: ENAMETOOLONG", PERFCTR_REGION_NAME_SIZE);
	long_name[PERFCTR_REGION_NAME_SIZE - 1] = 0;
	tap_ok(perfctr_region_register(&lng) == 0, "one byte less: named");
	ok = perfctr_region_register(&a) == 0 &&
	     perfctr_region_register(&same) == 0;
	tap_ok(ok && a.id == same.id && !strcmp(area->names[a.id - 1].name, "a"),
	       "two handles of one name: one number, %u, named in the area",
	       a.id);
}

static void test_pairs(void)
{
	struct region_thread *t;
	int ok;

	at(100, 1000);
	ok = perfctr_region_begin(&a) == 0;
	at(150, 1007);
	ok &= perfctr_region_end(&a) == 0;
	tap_ok(ok && pmc0(&a, PERFCTR_REGION_THREAD) == 7,
	       "a pair adds what counted between its calls");
	/* a around b; then b overlapping a's end. */
	at(200, 2000);
	ok = perfctr_region_begin(&a) == 0;
	at(210, 2010);
	ok &= perfctr_region_begin(&b) == 0;
	at(230, 2030);
	ok &= perfctr_region_end(&b) == 0;
	at(260, 2060);
	ok &= perfctr_region_begin(&b) == 0;
	at(270, 2070);
	ok &= perfctr_region_end(&a) == 0;
	at(300, 2100);
	ok &= perfctr_region_end(&b) == 0;
	tap_ok(ok, "nested and overlapping calls return 0");
	tap_is_u64(pmc0(&a, PERFCTR_REGION_THREAD), 7 + 70,
		   "a counts its calls whole, b's inside it too");
	tap_is_u64(pmc0(&b, PERFCTR_REGION_THREAD), 20 + 40,
		   "b counts its calls, one nested, one overlapping");
	t = thread_of(getpid(), gettid());
	tap_ok(t && (t->flags & REGION_THREAD_COUNTERS) && t->nrctrs == 1,
	       "the thread's entry: it has counters, one");
	tap_is_u64(t ? covered_pmc0(t) : 0, 7 + 100,
		   "its time in regions is their union, counted once");
	at(400, 3000);
}

static void *other_thread(void *arg)
{
	(void)arg;
	if (perfctr_region_begin(&a) || perfctr_region_end(&a))
		return NULL;
	/* Left open: reported so, not added. */
	perfctr_region_begin(&b);
	return &a;
}

static int names_used(const char *name)
{
	unsigned int i;

	for (i = 0; i < PERFCTR_REGIONS_MAX; i++)
		if (!strcmp(area->names[i].name, name))
			return 1;
	return 0;
}

static void test_threads(void)
{
	struct perfctr_region fresh = PERFCTR_REGION_INIT("a");
	struct perfctr_region unknown = PERFCTR_REGION_INIT("never used");
	struct perfctr_region_counts c;
	pthread_t tid;
	void *ret = NULL;
	int ok;

	pthread_create(&tid, NULL, other_thread, NULL);
	pthread_join(tid, &ret);
	tap_ok(ret == &a, "another thread's pair");
	ok = perfctr_region_read(&a, PERFCTR_REGION_PROCESS, &c) == 0;
	tap_ok(ok && c.calls == 3 && c.threads == 2 && c.pmc[0] == 77,
	       "the process's a: 3 calls in 2 threads, 77 (%llu, %u, %llu)",
	       c.calls, c.threads, c.pmc[0]);
	ok = perfctr_region_read(&b, PERFCTR_REGION_PROCESS, &c) == 0;
	tap_ok(ok && c.calls == 2 && c.open == 1,
	       "the process's b: 2 calls, 1 left open in the thread that ended");
	ok = perfctr_region_read(&fresh, PERFCTR_REGION_PROCESS, &c) == 0;
	tap_ok(ok && c.calls == 3 && fresh.id == 0,
	       "a handle never used reads its name's counts, unnumbered");
	ok = perfctr_region_read(&unknown, PERFCTR_REGION_PROCESS, &c) < 0 &&
	     errno == ENOENT;
	tap_ok(ok && unknown.id == 0 && !names_used("never used"),
	       "a name never used: ENOENT, and not named by the read");
}

static void test_unbalanced(void)
{
	static struct perfctr_region u = PERFCTR_REGION_INIT("u");
	struct perfctr_region_counts c;

	at(500, 4000);
	tap_ok(perfctr_region_end(&u) < 0 && errno == EINVAL,
	       "an end of a region never begun: EINVAL");
	tap_ok(perfctr_region_begin(&u) == 0, "then a begin");
	at(510, 4010);
	tap_ok(perfctr_region_begin(&u) < 0 && errno == EINVAL,
	       "a begin of an open region: EINVAL");
	at(520, 4015);
	perfctr_region_end(&u);
	perfctr_region_read(&u, PERFCTR_REGION_THREAD, &c);
	tap_ok(c.calls == 1 && c.lone_begins == 1 && c.lone_ends == 1 &&
	       c.pmc[0] == 5,
	       "counted as 1 call from the second begin, 1 lone begin, "
	       "1 lone end");
}

static void test_fork(void)
{
	struct region_thread *t;
	pid_t pid;
	int status;

	at(600, 5000);
	perfctr_region_begin(&a);
	pid = fork();
	if (pid == 0) {
		/* The child's thread is new: a is not open in it. */
		int lone = perfctr_region_end(&a) < 0 && errno == EINVAL;

		at(700, 5000);
		perfctr_region_begin(&a);
		at(701, 5003);
		perfctr_region_end(&a);
		exit(lone && pmc0(&a, PERFCTR_REGION_PROCESS) == 3 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a forked child: its own thread, its own counts");
	t = thread_of(pid, pid);
	tap_ok(t && (t->flags & REGION_THREAD_ENDED),
	       "the child's entry in the shared area, ended at its exit");
	at(610, 5010);
	perfctr_region_end(&a);
	tap_is_u64(pmc0(&a, PERFCTR_REGION_PROCESS), 77 + 10,
		   "the parent's pair across the fork is its own");
}

static void test_full(void)
{
	static char names[PERFCTR_REGIONS_MAX + 1][16];
	struct perfctr_region r;
	unsigned int i, named = 0;

	for (i = 0; i <= PERFCTR_REGIONS_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "r%u", i);
		r.name = names[i];
		r.id = 0;
		if (perfctr_region_register(&r) == 0)
			named++;
	}
	tap_ok(named < PERFCTR_REGIONS_MAX && errno == ENOSPC,
	       "names past %d: ENOSPC", PERFCTR_REGIONS_MAX);
}

int main(void)
{
	page.magic = VPERFCTR_STATE_MAGIC;
	page.abi_version = PERFCTR_ABI_VERSION;
	page.nrsums = 1;
	region_open_counters = open_page;
	area_make();

	test_names();
	test_pairs();
	test_threads();
	test_unbalanced();
	test_fork();
	test_full();
	tap_ok(area->lost == 0 && area->used <= area->size,
	       "nothing lost, the area within its size");
	return tap_done();
}
