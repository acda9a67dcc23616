// SPDX-License-Identifier: LGPL-2.1
/*
 * Code regions (<perfctr/regions.h>): what a thread's own counters count
 * between a begin and an end, kept per thread and region in the region
 * area (region_area.h).
 *
 * A thread's first region call opens its counters (vperfctr_open_tid(0,
 * 0): the state perfex, or the program, gave it) and takes its entry in
 * the area; a region's first use in a thread takes its record.  From
 * then on a begin or an end is the fast read of the thread's own page
 * and a few additions, found through a thread-local table indexed by
 * the region's number: no system call, no allocation, no lock.
 *
 * A begin does its bookkeeping first and reads last; an end reads first
 * and does its bookkeeping after: what a region counts of the markers
 * themselves is then the same fixed stretch, nested or not.
 *
 * Only the thread itself writes its entries.  The area's name table and
 * its allocator are shared by every process of a perfex run, with
 * atomic operations: the processes share no lock to be left held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "internal.h"
#include "region_area.h"

_Static_assert(sizeof(((struct perfctr_region_counts *)0)->pmc) ==
	       sizeof(((struct perfctr_sum_ctrs *)0)->pmc),
	       "perfctr_region_counts.pmc must hold PERFCTR_MAX_NRCTRS");

/*
 * The fast read handles a thread whose counters are the TSC and at most
 * FAST_MAX hardware counters, all live while it runs: the common case,
 * read with no loop.  Any other thread's reads are the library's.
 */
#define FAST_MAX	4

#define RECORD_MASK	(2 * PERFCTR_REGIONS_MAX - 1)

struct region_self;
typedef int (*region_call)(struct region_self *s, struct region_record *rec);

/* What only the thread itself uses: private, never in the area. */
struct region_self {
	/*
	 * First: one load off the thread's pointer, no offset to add.
	 * Indexed by a region's number masked to RECORD_MASK: a number
	 * not yet given (0) or past PERFCTR_REGIONS_MAX finds NULL, and
	 * the fast path needs no other check of it.
	 */
	struct region_record *record[2 * PERFCTR_REGIONS_MAX];
	/* The thread's begin and end, chosen at its first region call. */
	region_call begin;
	region_call end;
	struct region_thread *thread;
	struct vperfctr *vperfctr;	/* NULL: no counters, calls only */
	/* Its mapped page, and its live word while the thread runs. */
	const struct vperfctr_state *page;
	__u64 live;
	unsigned int nrctrs;
	/* Regions open; a long, which the fast path loads at any offset. */
	unsigned long depth;
	/*
	 * The record whose start began the thread's time in regions, or
	 * NULL once that start is copied to thread->cover_start (the
	 * record ended while others stayed open, and may begin again).
	 */
	struct region_record *cover;
};

static struct region_area *area;
static pthread_once_t area_once = PTHREAD_ONCE_INIT;
static int area_errno;
static pthread_key_t self_key;

/*
 * A thread's state; nobody's, whose records are all NULL, until its
 * first region call, so that the fast path need not test for it.
 * Initial-exec: one load off the thread pointer, not a call.  The
 * library is linked by programs, not loaded by dlopen().
 */
static struct region_self nobody;
static __thread struct region_self *self
	__attribute__((tls_model("initial-exec"))) = &nobody;

struct vperfctr *region_open_self(void)
{
	return vperfctr_open_tid(0, 0);
}

struct vperfctr *(*region_open_counters)(void) = region_open_self;

/*
 * The counts as a struct perfctr_sum_ctrs lays them out: the TSC in
 * [0], counter i in [i + 1].
 */
#define SUMS(sum)	(&(sum)->tsc)

/* Hardware counter @pmc now: its sum and what it counted since resumed. */
static inline __attribute__((always_inline)) __u64
hw_value(const struct perfctr_pmc_state *pmc)
{
	__u64 start = pmc->start, sum = pmc->sum, delta;

	/* Both now: one load where the two pair (arm64's ldp). */
	__asm__("" : "+r" (start));
	delta = __perfctr_cpu_pmc(0, pmc->map) - start;
	/* As in <perfctr/fast_read.h>: negative only if it wrapped. */
	if (__builtin_expect((__s64)delta < 0, 0))
		delta &= ~0ull >> (-pmc->width & 63);
	return sum + delta;
}

/*
 * The fast read of the TSC and @n hardware counters from the thread's
 * own page, into @now as SUMS() lays them out: <perfctr/fast_read.h>'s
 * arithmetic with @n a constant.  1 if the page changed under it, or
 * its counters no longer run as at the first region call.
 */
static inline __attribute__((always_inline)) int
fast_read(const struct region_self *s, __u64 *now, unsigned int n)
{
	const struct vperfctr_state *p = s->page;
	__u32 seq = __vperfctr_seq_begin(p, 1);
	unsigned int i;

	if (__builtin_expect(p->live != s->live, 0))
		return 1;
	now[0] = p->cpu_state.tsc_sum - p->cpu_state.tsc_start +
		 __perfctr_cpu_tsc(0);
#pragma GCC unroll 4
	for (i = 0; i < n; i++)
		now[i + 1] = hw_value(&p->cpu_state.pmc[i]);
	return __vperfctr_page_changed(p, seq, 1);
}

/*
 * Any other set of counters, or the fast read's page changing: the
 * inline read of <perfctr/fast_read.h> (task-clock, software counters,
 * any number of them), and if that cannot, the library's, which retries
 * and falls back to the system call.
 */
static int read_slow(const struct region_self *s, __u64 *now)
{
	struct perfctr_sum_ctrs *sum = (struct perfctr_sum_ctrs *)now;

	if (!s->vperfctr)
		return 0;
	if (s->page && !vperfctr_page_read_ctrs(s->page, 1, __perfctr_cpu_tsc,
						__perfctr_cpu_pmc, 0, sum))
		return 0;
	return __vperfctr_read_ctrs_slow(s->vperfctr, sum);
}

/*
 * Can the fast read read the thread's counters?  Only hardware counters
 * the thread may read now (not x86's TopDown categories, which need
 * arithmetic of their own), all live, and the TSC.
 */
static unsigned int fast_mode(const struct vperfctr_state *p, unsigned int n)
{
	__u64 want = VPERFCTR_LIVE_TSC | ((1ull << n) - 1);
	unsigned int i;

	if (!p || n > FAST_MAX || p->live != want || p->live_clock)
		return 0;
	for (i = 0; i < n; i++)
		if (p->cpu_state.pmc[i].map & __PERFCTR_CPU_METRIC)
			return 0;
	return 1 + n;
}

static void copy_sums(struct perfctr_sum_ctrs *to,
		      const struct perfctr_sum_ctrs *from, unsigned int n)
{
	to->tsc = from->tsc;
	memcpy(to->pmc, from->pmc, n * sizeof(to->pmc[0]));
}

/* The area */

static void area_init(struct region_area *a, size_t size)
{
	a->magic = REGION_AREA_MAGIC;
	a->version = REGION_AREA_VERSION;
	a->size = size;
	a->used = sizeof(*a);
}

/* perfex's area, from REGION_AREA_ENV; NULL if there is none to use. */
static struct region_area *area_inherited(void)
{
	const char *env = getenv(REGION_AREA_ENV);
	struct region_area *a;
	struct stat st;
	char *end;
	long fd;

	if (!env || !*env)
		return NULL;
	errno = 0;
	fd = strtol(env, &end, 10);
	if (errno || *end || fd < 0 || fd > INT32_MAX ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(*a))
		return NULL;
	a = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return NULL;
	if (a->magic != REGION_AREA_MAGIC ||
	    a->version != REGION_AREA_VERSION ||
	    a->size != (__u64)st.st_size) {
		munmap(a, st.st_size);
		return NULL;
	}
	return a;
}

static void thread_end(void *arg);
static void process_end(void);
static void fork_child(void);

static void area_open(void)
{
	struct region_area *a = area_inherited();

	if (!a) {
		a = mmap(NULL, REGION_AREA_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (a == MAP_FAILED) {
			area_errno = ENOMEM;
			return;
		}
		area_init(a, REGION_AREA_SIZE);
	}
	area_errno = pthread_key_create(&self_key, thread_end);
	if (!area_errno)
		area_errno = pthread_atfork(NULL, NULL, fork_child);
	if (!area_errno && atexit(process_end))
		area_errno = ENOMEM;
	if (area_errno)
		return;
	area = a;
}

static struct region_area *area_get(void)
{
	pthread_once(&area_once, area_open);
	if (!area)
		errno = area_errno;
	return area;
}

/*
 * @size bytes of the area, zeroed, for an entry of @type, or NULL with
 * errno ENOSPC.  'used' never passes 'size': a reader may trust it.
 */
static void *area_alloc(struct region_area *a, __u32 size)
{
	__u64 off = __atomic_load_n(&a->used, __ATOMIC_RELAXED);

	size = (size + 7) & ~7u;
	do {
		if (off + size > a->size) {
			__atomic_fetch_add(&a->lost, 1, __ATOMIC_RELAXED);
			errno = ENOSPC;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&a->used, &off, off + size, 1,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	((struct region_entry *)((char *)a + off))->size = size;
	return (char *)a + off;
}

/* Make @entry visible to readers: its fields first, then its type. */
static void entry_publish(struct region_entry *entry, __u32 type)
{
	__atomic_store_n(&entry->type, type, __ATOMIC_RELEASE);
}

/* Names */

static int name_check(const char *name)
{
	size_t len;

	if (!name || !*name)
		return -EINVAL;
	len = strnlen(name, PERFCTR_REGION_NAME_SIZE);
	if (len == PERFCTR_REGION_NAME_SIZE)
		return -ENAMETOOLONG;
	for (; *name; name++)
		if ((unsigned char)*name < 0x20 || *name == 0x7f)
			return -EINVAL;
	return 0;
}

/*
 * Wait for a name another thread or process is writing; a writer that
 * died between its claim and its store leaves the slot to nobody.
 */
static __u32 name_state(struct region_name *n)
{
	__u32 state = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
	unsigned int spins;

	for (spins = 0; state == REGION_NAME_WRITING && spins < 100000;
	     spins++) {
		sched_yield();
		state = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
	}
	return state;
}

/* The number of @name in @a, claiming a slot for it if it has none. */
static int name_number(struct region_area *a, const char *name)
{
	unsigned int i;

	for (i = 0; i < PERFCTR_REGIONS_MAX; i++) {
		struct region_name *n = &a->names[i];
		__u32 empty = REGION_NAME_EMPTY;

		if (__atomic_compare_exchange_n(&n->state, &empty,
						REGION_NAME_WRITING, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE)) {
			strcpy(n->name, name);
			__atomic_store_n(&n->state, REGION_NAME_READY,
					 __ATOMIC_RELEASE);
			return i + 1;
		}
		if (name_state(n) == REGION_NAME_READY &&
		    !strncmp(n->name, name, sizeof(n->name)))
			return i + 1;
	}
	return -ENOSPC;
}

/* The number of @name in @a, or 0 if it has none: nothing claimed. */
static unsigned int name_find(struct region_area *a, const char *name)
{
	unsigned int i;

	for (i = 0; i < PERFCTR_REGIONS_MAX; i++) {
		__u32 state = name_state(&a->names[i]);

		if (state == REGION_NAME_EMPTY)
			break;
		if (state == REGION_NAME_READY &&
		    !strncmp(a->names[i].name, name, sizeof(a->names[i].name)))
			return i + 1;
	}
	return 0;
}

int perfctr_region_register(struct perfctr_region *region)
{
	struct region_area *a;
	int id;

	if (__atomic_load_n(&region->id, __ATOMIC_RELAXED))
		return 0;
	id = name_check(region->name);
	if (id < 0) {
		errno = -id;
		return -1;
	}
	a = area_get();
	if (!a)
		return -1;
	id = name_number(a, region->name);
	if (id < 0) {
		errno = -id;
		return -1;
	}
	/* Racing threads find the same number: any store will do. */
	__atomic_store_n(&region->id, id, __ATOMIC_RELAXED);
	return 0;
}

/* Begin and end */

/* A begin whose start only the library's read has. */
static int __attribute__((noinline))
begin_read_slow(struct region_self *s, struct region_record *rec,
		unsigned long depth)
{
	if (read_slow(s, SUMS(&rec->start)) == 0)
		return 0;
	rec->open = 0;
	s->depth = depth;
	if (!depth)
		s->cover = NULL;
	return -1;
}

/*
 * A begin: the region open, then its start read, last, into the
 * record.  @fast: the fast read of @n counters, or the library's read,
 * called in tail position so that the fast path saves no register.
 */
static inline __attribute__((always_inline)) int
begin(struct region_self *s, struct region_record *rec, int fast,
      unsigned int n)
{
	unsigned long depth = s->depth++;

	rec->open = 1;
	if (!depth)
		s->cover = rec;
	if (__builtin_expect(fast && !fast_read(s, SUMS(&rec->start), n), 1))
		return 0;
	return begin_read_slow(s, rec, depth);
}

/*
 * What end_add() leaves undone of the thread's time in regions: the
 * region that began it ending with others open (its start is where that
 * time began), or the last region ending when it did not begin it (the
 * time from that start to this region's start is in no outer sum).
 */
static int __attribute__((noinline))
end_cover(struct region_self *s, struct region_record *rec,
	  unsigned long depth)
{
	struct region_thread *thread = s->thread;
	__u64 *covered = SUMS(&thread->covered);
	const __u64 *from = SUMS(&thread->cover_start);
	const __u64 *start = SUMS(&rec->start);
	unsigned int i;

	if (depth) {
		copy_sums(&thread->cover_start, &rec->start, s->nrctrs);
	} else {
		for (i = 0; i <= s->nrctrs; i++)
			covered[i] += start[i] - from[i];
	}
	s->cover = NULL;
	return 0;
}

/*
 * What an end adds, @now read: to the region's outer sums if it ends
 * the thread's time in regions, to its inner sums if not.
 */
static inline __attribute__((always_inline)) int
end_add(struct region_self *s, struct region_record *rec, const __u64 *now,
	unsigned int n)
{
	unsigned long depth = --s->depth;
	__u64 *sum = depth ? SUMS(&rec->inner) : SUMS(&rec->outer);
	const __u64 *start = SUMS(&rec->start);
	unsigned int i;

	rec->open = 0;
	rec->calls++;
#pragma GCC unroll 5
	for (i = 0; i <= n; i++)
		sum[i] += now[i] - start[i];
	/* Nested in another, or the last to end and the first to begin. */
	if (__builtin_expect((s->cover == rec) != !depth, 0))
		return end_cover(s, rec, depth);
	if (!depth)
		s->cover = NULL;
	return 0;
}

/* An end whose counts only the library's read has. */
static int __attribute__((noinline))
end_read_slow(struct region_self *s, struct region_record *rec)
{
	__u64 now[1 + PERFCTR_MAX_NRCTRS];

	if (read_slow(s, now) == 0)
		return end_add(s, rec, now, s->nrctrs);
	rec->open = 0;
	rec->unread++;
	if (--s->depth == 0 || s->cover == rec) {
		if (s->depth)
			copy_sums(&s->thread->cover_start, &rec->start,
				  s->nrctrs);
		s->cover = NULL;
	}
	return -1;
}

/* An end: the read first, then the additions. */
static inline __attribute__((always_inline)) int
end(struct region_self *s, struct region_record *rec, int fast,
    unsigned int n)
{
	__u64 now[1 + FAST_MAX];

	if (__builtin_expect(fast && !fast_read(s, now, n), 1))
		return end_add(s, rec, now, n);
	return end_read_slow(s, rec);
}

/* The begin and end of a thread: of its read, and n counters. */
#define REGION_CALLS(name, fast, n)					\
static int begin_##name(struct region_self *s, struct region_record *rec) \
{									\
	return begin(s, rec, fast, n);					\
}									\
static int end_##name(struct region_self *s, struct region_record *rec) \
{									\
	return end(s, rec, fast, n);					\
}

REGION_CALLS(slow, 0, 0)
REGION_CALLS(fast0, 1, 0)
REGION_CALLS(fast1, 1, 1)
REGION_CALLS(fast2, 1, 2)
REGION_CALLS(fast3, 1, 3)
REGION_CALLS(fast4, 1, 4)

static const region_call region_begins[] = {
	begin_slow, begin_fast0, begin_fast1, begin_fast2, begin_fast3,
	begin_fast4,
};

static const region_call region_ends[] = {
	end_slow, end_fast0, end_fast1, end_fast2, end_fast3, end_fast4,
};

/* Threads */

/* How many counters the thread's state has: the TSC's and these. */
static unsigned int nrctrs_of(const struct vperfctr *vperfctr)
{
	struct vperfctr_control control;
	unsigned int n;

	if (vperfctr->state) {
		n = __atomic_load_n(&vperfctr->state->nrsums, __ATOMIC_RELAXED);
	} else {
		if (_vperfctr_read_control(vperfctr->fd, &control) < 0)
			return 0;
		n = control.cpu_control.nractrs + control.cpu_control.nrictrs;
	}
	return n < PERFCTR_MAX_NRCTRS ? n : PERFCTR_MAX_NRCTRS;
}

static struct region_self *thread_start(void)
{
	struct region_area *a = area_get();
	struct region_thread *thread;
	struct region_self *s;
	unsigned int fast;
	int err;

	if (!a)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	thread = area_alloc(a, sizeof(*thread));
	if (!thread) {
		free(s);
		return NULL;
	}
	s->thread = thread;
	s->vperfctr = region_open_counters();
	fast = 0;
	thread->pid = getpid();
	thread->tid = gettid();
	if (s->vperfctr) {
		s->page = s->vperfctr->state;
		s->nrctrs = nrctrs_of(s->vperfctr);
		fast = fast_mode(s->page, s->nrctrs);
		if (fast)
			s->live = s->page->live;
		thread->flags = REGION_THREAD_COUNTERS;
		thread->nrctrs = s->nrctrs;
	}
	s->begin = region_begins[fast];
	s->end = region_ends[fast];
	entry_publish(&thread->entry, REGION_THREAD);
	err = pthread_setspecific(self_key, s);
	if (err) {
		vperfctr_close(s->vperfctr);
		free(s);
		errno = err;
		return NULL;
	}
	self = s;
	return s;
}

/* The thread's counts at its end, and its private state freed. */
static void thread_finish(struct region_self *s)
{
	struct region_thread *thread = s->thread;

	thread->depth = s->depth;
	if (s->vperfctr && read_slow(s, SUMS(&thread->total)) == 0)
		thread->flags |= REGION_THREAD_ENDED;
	else if (!s->vperfctr)
		thread->flags |= REGION_THREAD_ENDED;
	vperfctr_close(s->vperfctr);
	free(s);
}

static void thread_end(void *arg)
{
	self = &nobody;
	thread_finish(arg);
}

/* exit(): the key's destructor runs for no thread then. */
static void process_end(void)
{
	struct region_self *s = self;

	if (s == &nobody)
		return;
	self = &nobody;
	pthread_setspecific(self_key, NULL);
	thread_finish(s);
}

/*
 * The child's only thread is a new one: its entries, its counters and
 * its open regions are not those of the thread that forked.  The copy of
 * the private state goes; its handle's page is not mapped in the child.
 */
static void fork_child(void)
{
	struct region_self *s = self;

	if (s == &nobody)
		return;
	self = &nobody;
	pthread_setspecific(self_key, NULL);
	vperfctr_close(s->vperfctr);
	free(s);
}

static struct region_record *record_start(struct region_self *s,
					  unsigned int id)
{
	struct region_record *rec = area_alloc(area, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->thread = (char *)s->thread - (char *)area;
	rec->region = id;
	entry_publish(&rec->entry, REGION_RECORD);
	s->record[id] = rec;
	return rec;
}

/*
 * The calling thread's state and its record of @region, made on first
 * use, or NULL with errno set.
 */
static struct region_record *record_of(struct perfctr_region *region,
				       struct region_self **sp)
{
	struct region_self *s = self;
	struct region_record *rec;

	if (perfctr_region_register(region) < 0)
		return NULL;
	if (region->id > PERFCTR_REGIONS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (s == &nobody) {
		s = thread_start();
		if (!s)
			return NULL;
	}
	*sp = s;
	rec = s->record[region->id];
	return rec ? rec : record_start(s, region->id);
}

static int __attribute__((noinline)) begin_first(struct perfctr_region *region)
{
	struct region_self *s;
	struct region_record *rec = record_of(region, &s);

	if (!rec)
		return -1;
	if (!rec->open)
		return s->begin(s, rec);
	/* Begun again: the earlier begin had no end, and is dropped. */
	rec->lone_begins++;
	if (s->cover == rec) {
		copy_sums(&s->thread->cover_start, &rec->start, s->nrctrs);
		s->cover = NULL;
	}
	if (read_slow(s, SUMS(&rec->start)) < 0) {
		rec->open = 0;
		if (--s->depth == 0)
			s->cover = NULL;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

static int __attribute__((noinline)) end_first(struct perfctr_region *region)
{
	struct region_self *s;
	struct region_record *rec = record_of(region, &s);

	if (!rec)
		return -1;
	if (rec->open)
		return s->end(s, rec);
	rec->lone_ends++;
	errno = EINVAL;
	return -1;
}

/*
 * The fast paths: the thread's own record of the region, and its begin
 * or end, called in tail position.
 */
int perfctr_region_begin(struct perfctr_region *region)
{
	struct region_self *s = self;
	struct region_record *rec =
		s->record[__perfctr_load(region->id) & RECORD_MASK];

	if (__builtin_expect(!rec || rec->open, 0))
		return begin_first(region);
	return s->begin(s, rec);
}

int perfctr_region_end(struct perfctr_region *region)
{
	struct region_self *s = self;
	struct region_record *rec =
		s->record[__perfctr_load(region->id) & RECORD_MASK];

	if (__builtin_expect(!rec || !rec->open, 0))
		return end_first(region);
	return s->end(s, rec);
}

/* Reading */

static void counts_add(struct perfctr_region_counts *counts,
		       const struct region_record *rec, unsigned int nrctrs)
{
	unsigned int i;

	counts->calls += rec->calls;
	counts->open += rec->open;
	counts->lone_begins += rec->lone_begins;
	counts->lone_ends += rec->lone_ends;
	counts->unread += rec->unread;
	counts->threads++;
	if (nrctrs > counts->nrctrs)
		counts->nrctrs = nrctrs;
	counts->tsc += rec->inner.tsc + rec->outer.tsc;
	for (i = 0; i < nrctrs; i++)
		counts->pmc[i] += rec->inner.pmc[i] + rec->outer.pmc[i];
}

/* The records of @id of this process's threads, from the area's entries. */
static void counts_of_process(struct perfctr_region_counts *counts,
			      unsigned int id)
{
	__u64 used = __atomic_load_n(&area->used, __ATOMIC_ACQUIRE);
	__u64 off = sizeof(*area);
	pid_t pid = getpid();

	while (off + sizeof(struct region_entry) <= used) {
		const struct region_entry *e = (void *)((char *)area + off);
		__u32 type = __atomic_load_n(&e->type, __ATOMIC_ACQUIRE);
		const struct region_record *rec = (const void *)e;
		const struct region_thread *thread;

		if (!e->size)
			break;
		off += e->size;
		if (type != REGION_RECORD || rec->region != id)
			continue;
		thread = (const void *)((char *)area + rec->thread);
		if (thread->pid == pid)
			counts_add(counts, rec, thread->nrctrs);
	}
}

int perfctr_region_read(struct perfctr_region *region, int scope,
			struct perfctr_region_counts *counts)
{
	struct region_self *s = self;
	unsigned int id = __atomic_load_n(&region->id, __ATOMIC_RELAXED);

	if (scope != PERFCTR_REGION_THREAD && scope != PERFCTR_REGION_PROCESS) {
		errno = EINVAL;
		return -1;
	}
	memset(counts, 0, sizeof(*counts));
	/* A handle never used, of a name others used: found, not named. */
	if (!id && area && !name_check(region->name))
		id = name_find(area, region->name);
	if (id - 1 >= PERFCTR_REGIONS_MAX || !area) {
		errno = ENOENT;
		return -1;
	}
	if (scope == PERFCTR_REGION_THREAD) {
		if (!s->record[id]) {
			errno = ENOENT;
			return -1;
		}
		counts_add(counts, s->record[id], s->nrctrs);
		return 0;
	}
	counts_of_process(counts, id);
	if (!counts->threads) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}
