// SPDX-License-Identifier: GPL-2.0
/*
 * region_bench: what a code region's markers cost, a begin and its end,
 * perfctr's (<perfctr/regions.h>) next to PAPI's, measured in one run.
 *
 * perfctr's pair is timed in a thread that set up its own counters, the
 * TSC and 0, 1, 2 or 4 hardware counters, before its first region: its
 * begin and end are the fast read of the thread's state page.  PAPI's
 * pairs are timed in a child process, with the same hardware events,
 * in two ways: PAPI_hl_region_begin() and PAPI_hl_region_end() of its
 * high-level API (the events named in PAPI_EVENTS), and two PAPI_read()s
 * of a started event set of its low-level API, what a begin and an end
 * each have to read.  The child runs once perfctr's threads have taken
 * their counters off: perfctr's counters and perf's, which PAPI counts
 * with, exclude each other.
 *
 * With --instructions, on a machine whose clock counts retired
 * instructions (QEMU's arm64 virt machine under -icount shift=0: one
 * instruction a virtual nanosecond), every cost is printed in
 * instructions, and the figures are exact: a pair is timed in windows
 * too short to hold a timer tick, the shortest of REPS is taken, and the
 * same loop without the pair, timed the same way, is subtracted, as in
 * vperfctr_bench.  Otherwise each side is timed RUNS times and the
 * medians are printed, in ns.
 *
 * The targets (perfctr's pair with the TSC and 2 counters in at most 150
 * instructions, and in at most a tenth of PAPI's high-level pair) are
 * judged with --instructions on arm64 only, where they were set; a
 * target missed makes the exit status 1.
 *
 * Run it as root, or where perf_event_paranoid lets a thread count
 * itself: PAPI needs perf_event_open().  PAPI names the events as
 * libpfm4 does for Arm's PMUs: where libpfm4 knows no PMU of the CPU
 * (QEMU's max), PAPI counts nothing unless LIBPFM_FORCE_PMU names one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <libperfctr.h>
#include <papi.h>

#include "bench.h"

#define TARGET_PAIR	150		/* instructions, TSC + 2 counters */
#define TARGET_PAPI	10		/* PAPI's high-level pair / perfctr's */

/*
 * The hardware counters of each side, perfctr's events then PAPI's: an
 * event counter first, as most events take, then the cycle counter.
 */
#define MAX_EVENTS	4
static const int nrevents[] = { 0, 1, 2, 4 };
static const char *const perfctr_events[MAX_EVENTS] = {
	"instructions:u", "cycles:u", "instructions:k", "cycles:k",
};

/* libpfm4's names of the Arm PMUs' common events */
static const char *const papi_events[MAX_EVENTS] = {
	"INST_RETIRED:u=1", "CPU_CYCLES:u=1",
	"INST_RETIRED:k=1", "CPU_CYCLES:k=1",
};

#define NR_CONFIGS	(sizeof(nrevents) / sizeof(nrevents[0]))
#define PAPI_CONFIG	2		/* nrevents[2]: the targets' */

/* --- Timing -------------------------------------------------------------- */

/*
 * Every side (struct side, bench.h) times pairs: its run() makes @n pairs,
 * and its empty() is this loop, two calls' worth of checked results.
 */
static double run_empty(long n, void *arg)
{
	double t;
	long i;

	(void)arg;
	t = monotonic_ns();
	for (i = 0; i < n; i++) {
		if (opaque() < 0)
			return -1;
		if (opaque() < 0)
			return -1;
	}
	return monotonic_ns() - t;
}

/* --- perfctr ------------------------------------------------------------- */

static struct perfctr_info info;

struct perfctr_side {
	int nrevents;
	struct vperfctr *vperfctr;	/* the thread's, while it measures */
	struct perfctr_region region;
	double cost;
	int err;
	char why[PERFCTR_EVENT_ERROR_SIZE + 64];
};

static double run_region(long n, void *arg)
{
	struct perfctr_region *r = arg;
	double t;
	long i;

	t = monotonic_ns();
	for (i = 0; i < n; i++) {
		if (perfctr_region_begin(r) < 0)
			return -1;
		if (perfctr_region_end(r) < 0)
			return -1;
	}
	return monotonic_ns() - t;
}

/* The thread's own counters: the TSC and @k events.  0, or -1. */
static int counters_start(struct perfctr_side *p)
{
	struct vperfctr_control control;
	struct perfctr_event_spec event;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	struct vperfctr *vperfctr;
	int i;

	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	for (i = 0; i < p->nrevents; i++) {
		if (perfctr_event_parse(&event, perfctr_events[i], &info, err,
					sizeof(err)) < 0 ||
		    perfctr_event_add(&control, &event, &info, err,
				      sizeof(err)) < 0) {
			snprintf(p->why, sizeof(p->why), "%s: %s",
				 perfctr_events[i], err);
			return -1;
		}
	}
	vperfctr = vperfctr_open();
	if (!vperfctr || vperfctr_control(vperfctr, &control) < 0) {
		snprintf(p->why, sizeof(p->why), "vperfctr_control: %s",
			 strerror(errno));
		if (vperfctr)
			vperfctr_close(vperfctr);
		return -1;
	}
	p->vperfctr = vperfctr;
	return 0;
}

/*
 * The counters taken off the thread, and the PMU given back to perf, at
 * once: at the thread's exit they would be only after pthread_join()
 * returned, and PAPI could then find the PMU still taken.
 */
static void counters_stop(struct perfctr_side *p)
{
	vperfctr_unlink(p->vperfctr);
	vperfctr_close(p->vperfctr);
	p->vperfctr = NULL;
}

/*
 * One thread, one control: the counters are set up before the thread's
 * first region, as <perfctr/regions.h> asks, and taken off once timed.
 * The region's counts check that the pairs counted as they should.
 */
static void *perfctr_thread(void *arg)
{
	struct perfctr_side *p = arg;
	struct side s = { .run = run_region, .empty = run_empty,
			  .arg = &p->region };
	struct perfctr_region_counts counts;

	p->err = -1;
	if (counters_start(p) < 0)
		return NULL;
	if (measure_single(&s, 1) < 0) {
		snprintf(p->why, sizeof(p->why), "perfctr_region_*(): %s",
			 strerror(errno));
		counters_stop(p);
		return NULL;
	}
	counters_stop(p);
	if (perfctr_region_read(&p->region, PERFCTR_REGION_THREAD,
				&counts) < 0) {
		snprintf(p->why, sizeof(p->why), "perfctr_region_read: %s",
			 strerror(errno));
		return NULL;
	}
	if ((int)counts.nrctrs != p->nrevents || !counts.tsc ||
	    counts.open || counts.lone_begins || counts.lone_ends ||
	    counts.unread || (p->nrevents && !counts.pmc[0])) {
		snprintf(p->why, sizeof(p->why),
			 "the region counted %u counters (not %d), TSC %llu, %llu open, %llu lone, %llu unread",
			 counts.nrctrs, p->nrevents, counts.tsc, counts.open,
			 counts.lone_begins + counts.lone_ends,
			 counts.unread);
		return NULL;
	}
	p->cost = s.cost;
	p->err = 0;
	return NULL;
}

static int perfctr_measure(struct perfctr_side *p)
{
	pthread_t thread;
	int err;

	err = pthread_create(&thread, NULL, perfctr_thread, p);
	if (err) {
		snprintf(p->why, sizeof(p->why), "pthread_create: %s",
			 strerror(err));
		return -1;
	}
	pthread_join(thread, NULL);
	return p->err;
}

/* --- PAPI ---------------------------------------------------------------- */

struct papi_result {
	double hl, read;		/* per pair; < 0: not measured */
	char why[320];
};

#define HL_REGION	"region_bench"

static double run_hl(long n, void *arg)
{
	double t;
	long i;

	(void)arg;
	t = monotonic_ns();
	for (i = 0; i < n; i++) {
		if (PAPI_hl_region_begin(HL_REGION) != PAPI_OK)
			return -1;
		if (PAPI_hl_region_end(HL_REGION) != PAPI_OK)
			return -1;
	}
	return monotonic_ns() - t;
}

static double run_papi_read(long n, void *arg)
{
	int event_set = *(int *)arg;
	long long v[MAX_EVENTS], acc = 0;
	double t;
	long i;

	t = monotonic_ns();
	for (i = 0; i < n; i++) {
		if (PAPI_read(event_set, v) != PAPI_OK)
			return -1;
		acc += v[0];
		if (PAPI_read(event_set, v) != PAPI_OK)
			return -1;
		acc += v[0];
	}
	t = monotonic_ns() - t;
	sink = acc;
	return t;
}

/* Two PAPI_read()s of a started event set of @k events. */
static int papi_read_pair(int k, struct papi_result *res)
{
	struct side s = { .run = run_papi_read, .empty = run_empty };
	long long v[MAX_EVENTS];
	int event_set = PAPI_NULL, i, ret;
	const char *what = "PAPI_create_eventset";

	ret = PAPI_create_eventset(&event_set);
	for (i = 0; ret == PAPI_OK && i < k; i++) {
		what = papi_events[i];
		ret = PAPI_add_named_event(event_set, papi_events[i]);
	}
	if (ret == PAPI_OK) {
		what = "PAPI_start";
		ret = PAPI_start(event_set);
	}
	if (ret != PAPI_OK) {
		snprintf(res->why, sizeof(res->why), "%s: %s", what,
			 PAPI_strerror(ret));
		return -1;
	}
	s.arg = &event_set;
	if (measure_single(&s, 1) < 0) {
		snprintf(res->why, sizeof(res->why), "PAPI_read failed");
		return -1;
	}
	res->read = s.cost;
	PAPI_stop(event_set, v);
	PAPI_cleanup_eventset(event_set);
	PAPI_destroy_eventset(&event_set);
	return 0;
}

/* PAPI_hl_region_begin() and _end(), the events in PAPI_EVENTS. */
static int papi_hl_pair(struct papi_result *res)
{
	struct side s = { .run = run_hl, .empty = run_empty };

	if (measure_single(&s, 1) < 0) {
		snprintf(res->why, sizeof(res->why),
			 "PAPI_hl_region_begin/end failed (PAPI_EVENTS=%s)",
			 getenv("PAPI_EVENTS"));
		return -1;
	}
	res->hl = s.cost;
	PAPI_hl_stop();
	return 0;
}

/*
 * PAPI's pairs with @k events, in a child: the high-level API reads its
 * events from the environment once, at its first call, and counts until
 * the process exits.  The child hands its figures back through a pipe.
 */
static int papi_measure(int k, struct papi_result *res)
{
	char events[256] = "";
	int fd[2], status, i;
	pid_t pid;

	res->hl = -1;
	res->read = -1;
	res->why[0] = 0;
	for (i = 0; i < k; i++)
		snprintf(events + strlen(events),
			 sizeof(events) - strlen(events), "%s%s",
			 i ? "," : "", papi_events[i]);
	if (pipe(fd) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int ret;

		close(fd[0]);
		setenv("PAPI_EVENTS", events, 1);
		ret = PAPI_library_init(PAPI_VER_CURRENT);
		if (ret != PAPI_VER_CURRENT)
			snprintf(res->why, sizeof(res->why),
				 "PAPI_library_init: %s", PAPI_strerror(ret));
		else if (papi_read_pair(k, res) == 0)
			papi_hl_pair(res);
		/*
		 * _exit(): not PAPI's high-level report, written at exit,
		 * which is not what is measured.
		 */
		_exit(write(fd[1], res, sizeof(*res)) != sizeof(*res));
	}
	close(fd[1]);
	if (read(fd[0], res, sizeof(*res)) != sizeof(*res))
		snprintf(res->why, sizeof(res->why),
			 "the PAPI child gave no figures");
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fprintf(stderr, "region_bench: the PAPI child failed\n");
	return 0;
}

/* --- Printing ------------------------------------------------------------ */

static const char *fmt_cost(char *buf, size_t size, double x)
{
	if (x < 0)
		snprintf(buf, size, "-");
	else if (insn_mode)
		snprintf(buf, size, "%.0f", x);
	else if (x < 1000)
		snprintf(buf, size, "%.3g ns", x);
	else
		snprintf(buf, size, "%.3g us", x / 1e3);
	return buf;
}

/* perfctr's cost over the peer's: "0.031x (1/32)" below 1. */
static const char *fmt_ratio(char *buf, size_t size, double ours,
			     double peer)
{
	double x;

	if (ours < 0 || peer <= 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	x = rounded(ours) / rounded(peer);
	if (x < 1)
		snprintf(buf, size, "%.3fx (1/%.0f)", x, 1 / x);
	else
		snprintf(buf, size, x < 10 ? "%.2fx" : "%.1fx", x);
	return buf;
}

static void line(const char *label, double ours, const char *peer_name,
		 double peer)
{
	char a[32], b[32], r[32];

	fmt_cost(a, sizeof(a), ours);
	if (!peer_name) {
		printf("  %-30s %8s\n", label, a);
		return;
	}
	fmt_cost(b, sizeof(b), peer);
	printf("  %-30s %8s   %-27s %8s   %s\n", label, a, peer_name, b,
	       fmt_ratio(r, sizeof(r), ours, peer));
}

static int nr_targets, targets_missed;

static void target(const char *what, int met, const char *how)
{
	nr_targets++;
	targets_missed += !met;
	printf("target: %-52s %s (%s)\n", what, met ? "met" : "NOT met", how);
}

/* --- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static struct perfctr_side perfctr[NR_CONFIGS];
	static struct papi_result papi[NR_CONFIGS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long cpu = cpus > 0 ? cpus - 1 : 0;
	char label[64], peer[64], how[96];
	const char *force;
	unsigned int i;
	int failed = 0, err;

	/* --instructions; one CPU, the last, for threads and PAPI children. */
	err = bench_start("region_bench", argc, argv, cpu);
	if (err)
		return err;
	if (perfctr_info_read(&info) < 0) {
		perror("region_bench: perfctr_info_read");
		return 1;
	}

	force = getenv("LIBPFM_FORCE_PMU");
	printf("\nCode regions, per begin+end pair%s (the %s of %d timings, loops\n"
	       "subtracted).  perfctr: perfctr_region_begin() and _end(), in a thread\n"
	       "counting the TSC and the first N of %s, %s, %s,\n"
	       "%s.  PAPI %d.%d.%d, in a child, the same events through perf\n"
	       "(%s, ...%s%s%s):\n"
	       "PAPI_hl_region_begin() and _end() (PAPI_EVENTS), and two PAPI_read()s of a\n"
	       "started event set.\n",
	       insn_mode ? ", in instructions" : "",
	       insn_mode ? "least" : "median", insn_mode ? REPS : RUNS,
	       perfctr_events[0], perfctr_events[1], perfctr_events[2],
	       perfctr_events[3],
	       PAPI_VERSION_MAJOR(PAPI_VERSION),
	       PAPI_VERSION_MINOR(PAPI_VERSION),
	       PAPI_VERSION_REVISION(PAPI_VERSION), papi_events[0],
	       force ? "; libpfm4 PMU " : "", force ? force : "",
	       force ? ", by LIBPFM_FORCE_PMU" : "");
	printf("  %-30s %8s   %-27s %8s   %s\n", "", "perfctr", "PAPI", "",
	       "ratio");
	fflush(stdout);

	/* perfctr first: PAPI's perf events exclude perfctr's counters. */
	for (i = 0; i < NR_CONFIGS; i++) {
		perfctr[i].nrevents = nrevents[i];
		perfctr[i].region.name = "region_bench";
		perfctr[i].cost = -1;
		if (perfctr_measure(&perfctr[i]) < 0) {
			fprintf(stderr, "region_bench: TSC + %d: %s\n",
				nrevents[i], perfctr[i].why);
			failed = 1;
		}
	}
	for (i = 0; i < NR_CONFIGS; i++) {
		papi[i].hl = -1;
		papi[i].read = -1;
		if (nrevents[i] && papi_measure(nrevents[i], &papi[i]) < 0)
			snprintf(papi[i].why, sizeof(papi[i].why), "%s",
				 strerror(errno));
		if (nrevents[i] && papi[i].why[0]) {
			fprintf(stderr, "region_bench: PAPI, %d event%s: %s\n",
				nrevents[i], nrevents[i] > 1 ? "s" : "",
				papi[i].why);
			failed = 1;
		}
	}

	for (i = 0; i < NR_CONFIGS; i++) {
		int k = nrevents[i];

		if (!k) {
			line("pair, TSC only", perfctr[i].cost, NULL, 0);
			continue;
		}
		snprintf(label, sizeof(label), "pair, TSC + %d counter%s", k,
			 k > 1 ? "s" : "");
		snprintf(peer, sizeof(peer), "hl region pair, %d event%s", k,
			 k > 1 ? "s" : "");
		line(label, perfctr[i].cost, peer, papi[i].hl);
		snprintf(peer, sizeof(peer), "2 PAPI_read(), %d event%s", k,
			 k > 1 ? "s" : "");
		line("", perfctr[i].cost, peer, papi[i].read);
	}

	printf("\n");
	if (insn_targets) {
		double ours = rounded(perfctr[PAPI_CONFIG].cost);
		double hl = rounded(papi[PAPI_CONFIG].hl);
		int met;

		met = perfctr[PAPI_CONFIG].cost >= 0 && ours <= TARGET_PAIR;
		snprintf(how, sizeof(how), "%.0f %s %d", ours,
			 met ? "<=" : ">", TARGET_PAIR);
		snprintf(label, sizeof(label),
			 "region pair, TSC + 2 counters <= %d", TARGET_PAIR);
		target(label, met, how);
		met = perfctr[PAPI_CONFIG].cost >= 0 && hl > 0 &&
		      ours * TARGET_PAPI <= hl;
		if (hl > 0)
			snprintf(how, sizeof(how), "%.0f vs %.0f: 1/%.1f", ours,
				 hl, hl / ours);
		else
			snprintf(how, sizeof(how), "PAPI not measured");
		snprintf(label, sizeof(label),
			 "region pair, TSC + 2 <= PAPI hl pair / %d",
			 TARGET_PAPI);
		target(label, met, how);
		printf("targets: %d of %d met\n", nr_targets - targets_missed,
		       nr_targets);
	}
	return failed || targets_missed ? 1 : 0;
}
