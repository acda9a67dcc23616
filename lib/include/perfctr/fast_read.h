/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The fast read, inline: counter values from the mapped state page with
 * no system call and no function call.  <libperfctr.h> includes this
 * file; nothing in it is for programs to call directly.
 *
 * While the owner runs, the kernel keeps in the page, per counter, the
 * sum up to the last suspend and the value at the last resume, and in
 * 'live' and 'live_clock' which values run now (ABI 6.2):
 *
 *	TSC:		tsc_sum + (tsc_now - tsc_start)
 *	hardware:	sum + ((now - start) mod 2^width)
 *	task-clock:	sum + (((tsc_now - start) * time_mult) >> time_shift)
 *
 * "now" is read from the hardware (x86: rdpmc with the counter's map,
 * and for a TopDown category its share of the live slots; arm64:
 * PMCCNTR_EL0 for the cycle counter, PMXEVCNTR_EL0 through PMSELR_EL0
 * for an event counter), the TSC is the time-stamp counter on x86 and
 * the generic timer's virtual count (CNTVCT_EL0) on arm64.  A
 * value not live is its sum, unless 'live' has VPERFCTR_LIVE_SYSCALL:
 * then hardware counters run that user mode may not read, and only the
 * system call has their values.  The kernel makes 'seq' odd while it
 * rewrites the page and even again after; a read that saw 'seq' odd, or
 * changed, raced with an update and is left to the library's out-of-line
 * function, which retries and falls back to the system call.
 *
 * The functions below take the clock as functions, so that the library's
 * tests run them on made-up pages; with the CPU's own, which are
 * constants, they compile to the loads, the clock reads and one check.
 */
#ifndef PERFCTR_FAST_READ_H
#define PERFCTR_FAST_READ_H

#include <linux/types.h>
#include <linux/perfctr.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vperfctr;

/*
 * The start of every struct vperfctr.  Not part of the API: the inline
 * reads below rely on it, and the library's soname changes with it.
 * @own is the state page when it is mapped, of ABI 6.2 or later, and was
 * opened by the calling thread for itself (vperfctr_open()): only then
 * are the counters of the CPU the caller runs on the state's own.
 * Otherwise it is a page of the library's whose seq is always odd: never
 * NULL, so that an inline read tests nothing before it reads, and finds
 * out at its seq check that the out-of-line function must do the read.
 */
struct vperfctr_fast {
	const struct vperfctr_state *own;
};

#define __perfctr_always_inline	__inline__ __attribute__((__always_inline__))
/*
 * A load of a field the kernel may change under us, neither torn, cached
 * nor moved across the fences around it.  Volatile, not a relaxed atomic
 * load: GCC gives those no offset addressing, an instruction more each.
 */
#define __perfctr_load(field)	(*(const volatile __typeof__(field) *)&(field))
/*
 * A field of the page inside a read, @self as in __vperfctr_seq_begin():
 * the caller's own page cannot change between the two loads of seq, so
 * a plain load is exact there and leaves the compiler free to pair or
 * fold it.
 */
#define __perfctr_get(self, field)	((self) ? (field) : __perfctr_load(field))

#if defined(__x86_64__) || defined(__i386__)

static __perfctr_always_inline __u64 __perfctr_cpu_tsc(void *arg)
{
	__u32 lo, hi;

	(void)arg;
	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((__u64)hi << 32) | lo;
}

/*
 * The TSC, read strictly after the loads before it and before the loads
 * after it, as a read of another thread's page needs: the kernel reads
 * the TSC that ends a running period only once the page's seq is odd.
 */
static __perfctr_always_inline __u64 __perfctr_cpu_tsc_ordered(void *arg)
{
	__u32 lo, hi;

	(void)arg;
	__asm__ __volatile__("lfence; rdtsc; lfence"
			     : "=a" (lo), "=d" (hi) :: "memory");
	return ((__u64)hi << 32) | lo;
}

/* Counter @map, as rdpmc names it (bit 30: fixed counter). */
static __perfctr_always_inline __u64 __perfctr_cpu_pmc(void *arg, __u32 map)
{
	__u32 lo, hi;

	(void)arg;
	__asm__ __volatile__("rdpmc" : "=a" (lo), "=d" (hi) : "c" (map));
	return ((__u64)hi << 32) | lo;
}

#define __PERFCTR_CPU_CLOCK	1
/* The maps of TopDown categories, which the inline reads leave alone. */
#define __PERFCTR_CPU_METRIC	PERFCTR_MAP_X86_METRIC

#elif defined(__aarch64__)

/*
 * The generic timer's virtual count, which the kernel lets every task
 * read.  The isb keeps the CPU from reading it ahead of the loads of the
 * page before it, the clobber keeps the compiler from moving them.
 */
static __perfctr_always_inline __u64 __perfctr_cpu_tsc(void *arg)
{
	__u64 tsc;

	(void)arg;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r" (tsc) :: "memory");
	return tsc;
}

/* As on x86: ordered before the loads after it too, for another's page. */
static __perfctr_always_inline __u64 __perfctr_cpu_tsc_ordered(void *arg)
{
	__u64 tsc;

	(void)arg;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0; isb"
			     : "=r" (tsc) :: "memory");
	return tsc;
}

/*
 * Counter @map: PMCCNTR_EL0 for the cycle counter, event counter @map
 * through PMSELR_EL0 and PMXEVCNTR_EL0 otherwise (one register per
 * counter would take a jump table).  A switch between the two accesses
 * may leave PMSELR_EL0 selecting another counter, but it suspends and
 * resumes the owner, which moves the page's seq: the value is thrown
 * away and read again.  Only for a counter whose bit 'live' has:
 * otherwise EL0 may have no access (PMUSERENR_EL0) and the read trap.
 */
static __perfctr_always_inline __u64 __perfctr_cpu_pmc(void *arg, __u32 map)
{
	__u64 value;

	(void)arg;
	/*
	 * %x1: @map, 32 bits, in its 64-bit register.  Every @map comes
	 * from a 32-bit load of the page, which zeroes the upper half, as
	 * any write of a W register does.
	 */
	__asm__ __volatile__("cmp %w1, %2\n\t"
			     "b.ne 1f\n\t"
			     "mrs %0, pmccntr_el0\n\t"
			     "b 2f\n"
			     "1:\tmsr pmselr_el0, %x1\n\t"
			     "isb\n\t"
			     "mrs %0, pmxevcntr_el0\n"
			     "2:"
			     : "=r" (value)
			     : "r" (map), "I" (PERFCTR_MAP_ARM64_CYCLES)
			     : "cc", "memory");
	return value;
}

#define __PERFCTR_CPU_CLOCK	1
#define __PERFCTR_CPU_METRIC	0

#else

/* No clock to read from user space: every live value is a system call. */
static __perfctr_always_inline __u64 __perfctr_cpu_tsc(void *arg)
{
	(void)arg;
	return 0;
}

static __perfctr_always_inline __u64 __perfctr_cpu_tsc_ordered(void *arg)
{
	(void)arg;
	return 0;
}

static __perfctr_always_inline __u64 __perfctr_cpu_pmc(void *arg, __u32 map)
{
	(void)arg;
	(void)map;
	return 0;
}

#define __PERFCTR_CPU_CLOCK	0
#define __PERFCTR_CPU_METRIC	0

#endif

/*
 * The clock a read uses: tsc() and pmc() read the TSC and counter @map
 * now; pmc is NULL when the counters cannot be read from here (another
 * thread's page), and a live hardware counter is then left to the
 * system call.
 */
typedef __u64 (*__perfctr_tsc_fn)(void *arg);
typedef __u64 (*__perfctr_pmc_fn)(void *arg, __u32 map);

/*
 * The sequence count around a read.  @self says the page is the calling
 * thread's own, read on the CPU it runs on: the kernel changes that page
 * only on this CPU, while the thread is in the kernel or switched out, so
 * its loads need no fence, only to stay between the two loads of seq (as
 * perf's self-monitoring reads).  Any other page is read with acquire
 * ordering.  An odd seq is a change either way.
 */
#define __perfctr_barrier()	__asm__ __volatile__("" ::: "memory")

static __perfctr_always_inline __u32
__vperfctr_seq_begin(const struct vperfctr_state *s, int self)
{
	__u32 seq;

	if (!self)
		return __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	seq = __perfctr_load(s->seq);
	__perfctr_barrier();
	return seq;
}

/* Has the page changed since @seq was read? */
static __perfctr_always_inline int
__vperfctr_page_changed(const struct vperfctr_state *s, __u32 seq, int self)
{
	if (self)
		__perfctr_barrier();
	else
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __perfctr_load(s->seq) != seq || (seq & 1);
}

/*
 * The largest time_shift the fast read handles; a page with a larger one
 * is left to the system call.
 */
#define VPERFCTR_TIME_SHIFT_MAX	32

/*
 * TSC ticks to ns as the kernel scales them, @shift at most
 * VPERFCTR_TIME_SHIFT_MAX: (@delta * @mult) >> @shift, exact modulo
 * 2^64 for any @delta, without the 64-bit overflow of the product.
 */
static __perfctr_always_inline __u64
__vperfctr_scale(__u64 delta, __u32 mult, __u32 shift)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 p = (unsigned __int128)delta * mult;
	__u64 hi = (__u64)(p >> 64), lo = (__u64)p;

	/* hi << (64 - shift), written so that shift 0 shifts by 63 + 1. */
	return (lo >> shift) | ((hi << 1) << (63 - shift));
#else
	/* Split at bit @shift: the low part's product fits in 64 bits. */
	__u64 low = delta & ((1ull << shift) - 1);

	return (delta >> shift) * mult + ((low * mult) >> shift);
#endif
}

/*
 * What live task-clock counter @pmc counted since its resume: 0 with
 * @delta, or -1 if this reader cannot know.  @now is the TSC.
 */
static __perfctr_always_inline int
__vperfctr_clock_delta(const struct vperfctr_state *s, int self,
		       const struct perfctr_pmc_state *pmc, __u64 now,
		       __u64 *delta)
{
	__u32 shift = __perfctr_get(self, s->time_shift);

	if (shift > VPERFCTR_TIME_SHIFT_MAX)
		return -1;
	*delta = __vperfctr_scale(now - __perfctr_get(self, pmc->start),
				  __perfctr_get(self, s->time_mult), shift);
	return 0;
}

/*
 * "Now" of x86 TopDown category @map (PERFCTR_MAP_X86_METRIC | k): its
 * share of the slots counted since the resume, from the slots counter
 * and PERF_METRICS, which the kernel restarts together at every resume
 * and sample; the kernel's own arithmetic.  Its start is 0 and its width
 * 64, so that it is what the category counted since the resume.
 */
static __perfctr_always_inline __u64
__vperfctr_topdown_now(__perfctr_pmc_fn rd, void *arg, __u64 map)
{
	return perfctr_x86_topdown_slots(rd(arg, PERFCTR_MAP_X86_FIXED |
					       PERFCTR_X86_FIXED_SLOTS),
					 rd(arg, PERFCTR_MAP_X86_METRIC),
					 map & (PERFCTR_X86_TOPDOWN_NR - 1));
}

/*
 * What live hardware counter @pmc, of map @map, counted since its
 * resume: 0 with @delta, or -1 if this reader cannot know.  A hardware
 * counter is live only where its owner may read it, so the owner's @rd
 * always may.  The inline reads (@self) leave a TopDown category to the
 * out-of-line one: its divisions would cost every other read the
 * registers they take.
 */
static __perfctr_always_inline int
__vperfctr_hw_delta(int self, const struct perfctr_pmc_state *pmc,
		    __u64 map, __u64 start, __perfctr_pmc_fn rd, void *arg,
		    __u64 *delta)
{
	__u64 now;

	if (!rd)
		return -1;
	if (self && __builtin_expect((map & __PERFCTR_CPU_METRIC) != 0, 0))
		return -1;
	if (!self &&
	    __builtin_expect((map & PERFCTR_MAP_X86_METRIC) != 0, 0))
		now = __vperfctr_topdown_now(rd, arg, map);
	else
		now = rd(arg, map);
	/*
	 * (now - start) mod 2^width, width being 1 to 64.  Both are below
	 * 2^width (the hardware reads no more, the kernel keeps start so),
	 * so the difference is already that unless the counter wrapped
	 * since its resume, which makes it negative: only then is the
	 * width needed.
	 */
	now -= start;
	if (__builtin_expect((__s64)now < 0, 0))
		now &= ~0ull >> (-__perfctr_get(self, pmc->width) & 63);
	*delta = now;
	return 0;
}

/*
 * The page reads return 0 with the value, 1 if the page changed under
 * the read (try again), or -1 if a live value cannot be read here.
 * @self: the page is the caller's own, and its counters this CPU's (see
 * __vperfctr_seq_begin()); a constant, so each read compiles to one case.
 * The inline reads pass 1, the library's out-of-line ones 0.
 */

/**
 * vperfctr_page_read_tsc - the TSC sum, in one snapshot of @s
 */
static __perfctr_always_inline int
vperfctr_page_read_tsc(const struct vperfctr_state *s, int self,
		       __perfctr_tsc_fn tsc, void *arg, __u64 *value)
{
	__u32 seq = __vperfctr_seq_begin(s, self);
	__u64 live = __perfctr_get(self, s->live);
	__u64 v = __perfctr_get(self, s->cpu_state.tsc_sum);

	if (live & VPERFCTR_LIVE_TSC)
		v += tsc(arg) - __perfctr_get(self, s->cpu_state.tsc_start);
	if (__vperfctr_page_changed(s, seq, self))
		return 1;
	*value = v;
	return 0;
}

/**
 * vperfctr_page_read_pmc - counter @i's sum, in one snapshot of @s
 * @i: below PERFCTR_MAX_NRCTRS
 */
static __perfctr_always_inline int
vperfctr_page_read_pmc(const struct vperfctr_state *s, int self,
		       unsigned int i, __perfctr_tsc_fn tsc,
		       __perfctr_pmc_fn rd, void *arg, __u64 *value)
{
	const struct perfctr_pmc_state *pmc = &s->cpu_state.pmc[i];
	__u32 seq;
	__u64 live, v, delta;

	/* One register for the counter's fields, not one per offset. */
	__asm__("" : "+r" (pmc));
	seq = __vperfctr_seq_begin(s, self);
	live = __perfctr_get(self, s->live);
	v = __perfctr_get(self, pmc->sum);
	if ((live >> i) & 1) {
		/* A hardware counter: live tells it from task-clock. */
		if (__vperfctr_hw_delta(self, pmc, __perfctr_get(self, pmc->map),
					__perfctr_get(self, pmc->start), rd,
					arg, &delta))
			return __vperfctr_page_changed(s, seq, self) ? 1 : -1;
		v += delta;
	} else if (__builtin_expect((__perfctr_get(self, s->live_clock) >> i) &
				    1, 0)) {
		if (__vperfctr_clock_delta(s, self, pmc, tsc(arg), &delta))
			return __vperfctr_page_changed(s, seq, self) ? 1 : -1;
		v += delta;
	} else if (__builtin_expect((live & VPERFCTR_LIVE_SYSCALL) != 0, 0)) {
		/* Perhaps counter @i: only the system call knows it. */
		return __vperfctr_page_changed(s, seq, self) ? 1 : -1;
	}
	if (__vperfctr_page_changed(s, seq, self))
		return 1;
	*value = v;
	return 0;
}

/**
 * vperfctr_page_read_ctrs - the TSC and the counters, in one snapshot
 *
 * Only the first nrsums sums can be other than 0, and only those are
 * read and written: as in perfctr 2.7, @sum's other entries are left as
 * they were.
 */
static __perfctr_always_inline int
vperfctr_page_read_ctrs(const struct vperfctr_state *s, int self,
			__perfctr_tsc_fn tsc, __perfctr_pmc_fn rd, void *arg,
			struct perfctr_sum_ctrs *sum)
{
	__u32 seq = __vperfctr_seq_begin(s, self);
	__u64 live = __perfctr_get(self, s->live), now = 0, v, delta;
	__u32 clocks = __perfctr_get(self, s->live_clock);
	unsigned int n = __perfctr_get(self, s->nrsums), i;
	const struct perfctr_pmc_state *pmc = s->cpu_state.pmc;
	__u64 *out = sum->pmc, *end;

	/*
	 * One TSC for the TSC and task-clock: a snapshot of one instant.
	 * The owner reads it even when nothing runs, a test less; another
	 * reader's clock may have no TSC to read.
	 */
	if (self || (live | clocks))
		now = tsc(arg);
	v = __perfctr_get(self, s->cpu_state.tsc_sum);
	if (live & VPERFCTR_LIVE_TSC)
		v += now - __perfctr_get(self, s->cpu_state.tsc_start);
	sum->tsc = v;
	if (n > PERFCTR_MAX_NRCTRS || (live & VPERFCTR_LIVE_SYSCALL))
		return __vperfctr_page_changed(s, seq, self) ? 1 : -1;
	/*
	 * The sums, and the hardware counters' live part: bits 32 on of
	 * live are flags, which the loop never shifts that far.
	 */
	for (end = out + n; out != end; pmc++, out++, live >>= 1) {
		__u64 start = __perfctr_get(self, pmc->start);

		v = __perfctr_get(self, pmc->sum);
		/* Both now, one load where the two pair (arm64's ldp). */
		__asm__("" : "+r" (start));
		if (live & 1) {
			if (__vperfctr_hw_delta(self, pmc,
						__perfctr_get(self, pmc->map),
						start, rd, arg, &delta))
				return __vperfctr_page_changed(s, seq, self) ?
				       1 : -1;
			v += delta;
		}
		*out = v;
	}
	/* Then task-clock's, which only counters below nrsums can be. */
	for (; clocks; clocks &= clocks - 1) {
		i = __builtin_ctz(clocks);
		if (i >= n ||
		    __vperfctr_clock_delta(s, self, &s->cpu_state.pmc[i], now,
					   &delta))
			return __vperfctr_page_changed(s, seq, self) ? 1 : -1;
		sum->pmc[i] += delta;
	}
	return __vperfctr_page_changed(s, seq, self);
}

/* The out-of-line reads: they retry, read another's page, or call. */
unsigned long long __vperfctr_read_tsc_slow(const struct vperfctr *vperfctr);
unsigned long long __vperfctr_read_pmc_slow(const struct vperfctr *vperfctr,
					    unsigned int i);
int __vperfctr_read_ctrs_slow(const struct vperfctr *vperfctr,
			      struct perfctr_sum_ctrs *sum);

static __perfctr_always_inline unsigned long long
__vperfctr_read_tsc_inline(const struct vperfctr *vperfctr)
{
	const struct vperfctr_state *s =
		((const struct vperfctr_fast *)vperfctr)->own;
	__u64 v;

	if (__builtin_expect(!vperfctr_page_read_tsc(s, 1, __perfctr_cpu_tsc, 0,
						     &v), 1))
		return v;
	return __vperfctr_read_tsc_slow(vperfctr);
}

static __perfctr_always_inline unsigned long long
__vperfctr_read_pmc_inline(const struct vperfctr *vperfctr, unsigned int i)
{
	const struct vperfctr_state *s =
		((const struct vperfctr_fast *)vperfctr)->own;
	__u64 v;

	if (__builtin_expect(i < PERFCTR_MAX_NRCTRS, 1) &&
	    __builtin_expect(!vperfctr_page_read_pmc(s, 1, i, __perfctr_cpu_tsc,
						     __perfctr_cpu_pmc, 0,
						     &v), 1))
		return v;
	return __vperfctr_read_pmc_slow(vperfctr, i);
}

static __perfctr_always_inline int
__vperfctr_read_ctrs_inline(const struct vperfctr *vperfctr,
			    struct perfctr_sum_ctrs *sum)
{
	const struct vperfctr_state *s =
		((const struct vperfctr_fast *)vperfctr)->own;

	if (__builtin_expect(!vperfctr_page_read_ctrs(s, 1, __perfctr_cpu_tsc,
						      __perfctr_cpu_pmc, 0,
						      sum), 1))
		return 0;
	return __vperfctr_read_ctrs_slow(vperfctr, sum);
}

/*
 * vperfctr_read_tsc(), vperfctr_read_pmc() and vperfctr_read_ctrs(),
 * called by name, are the inline reads above when the compiler
 * optimizes.  Their address, or a call as (vperfctr_read_tsc)(v), is
 * the library's own function, which does the same out of line.
 */
#if __PERFCTR_CPU_CLOCK && defined(__OPTIMIZE__) && \
	!defined(LIBPERFCTR_NO_INLINE)
#define vperfctr_read_tsc(vperfctr)	__vperfctr_read_tsc_inline(vperfctr)
#define vperfctr_read_pmc(vperfctr, i)	__vperfctr_read_pmc_inline(vperfctr, i)
#define vperfctr_read_ctrs(vperfctr, sum) \
	__vperfctr_read_ctrs_inline(vperfctr, sum)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PERFCTR_FAST_READ_H */
