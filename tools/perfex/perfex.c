// SPDX-License-Identifier: GPL-2.0
/*
 * perfex: run a command, or watch a running thread, and report what its
 * virtual performance counters counted, the way perf stat does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <libperfctr.h>

#include "attach.h"
#include "events.h"
#include "format.h"
#include "launch.h"
#include "metrics.h"
#include "native.h"
#include "options.h"
#include "perfex.h"
#include "privilege.h"
#include "region_area.h"
#include "regions.h"
#include "stats.h"
#include "status.h"
#include "topdown.h"
#include "watch.h"

#define PERFEX_RELEASE	"0.2"
#define PERFCTR_SYSFS	"/sys/kernel/perfctr"

static const char usage[] =
	"Usage: perfex [OPTION]... COMMAND [ARG]...\n"
	"  or:  perfex [OPTION]... -p TID [COMMAND [ARG]...]\n"
	"  or:  perfex -i | -l [--long] [WORD] | -l --pmus\n";

static const char help[] =
	"Run COMMAND with virtual performance counters, or count the running\n"
	"thread TID, and report the counts on standard error at the end.\n"
	"\n"
	"  -e, --event EVENTS   count EVENTS, a comma-separated list; -e may\n"
	"                       be repeated\n"
	"  -o, --output FILE    write the report to FILE\n"
	"  -x, --field-separator SEP\n"
	"                       report with fields separated by SEP (CSV)\n"
	"  -j, --json           report as JSON, one object a line\n"
	"  -r, --repeat N       run COMMAND N times: means and their\n"
	"                       standard deviation\n"
	"  -p, --pid, --tid TID count the running thread TID until it\n"
	"                       exits, ^C, or COMMAND exits if given\n"
	"  -I, --interval-print MS\n"
	"                       also print the counts every MS milliseconds\n"
	"                       (at least 10)\n"
	"      --no-children    count the command's own thread only, not\n"
	"                       its other threads and child processes\n"
	"      --topdown        count the pipeline slots and show their\n"
	"                       TopDown breakdown (Intel Ice Lake or later)\n"
	"      --regions        also report the counts of the code regions\n"
	"                       that COMMAND marks (<perfctr/regions.h>),\n"
	"                       and outside them; not with -p or -r\n"
	"  -i, --info           describe this machine's counters and exit\n"
	"  -l, --list [--long] [WORD]\n"
	"                       list the events, or those whose names hold\n"
	"                       WORD, and exit; --long: the native events'\n"
	"                       whole descriptions and modifiers\n"
	"  -l --pmus            list the PMUs LIBPFM_FORCE_PMU may name\n"
	"  -h, --help           show this help and exit\n"
	"      --version        show the version and exit\n"
	"\n"
	"Events (-l lists this machine's): task-clock, context-switches (cs),\n"
	"cpu-migrations (migrations), page-faults (faults), minor-faults,\n"
	"major-faults and tsc on every machine; with hardware counters,\n"
	"cycles, instructions, branches, branch-misses, cache-references,\n"
	"cache-misses, ref-cycles (Intel), slots, topdown-retiring and the\n"
	"other TopDown categories (Intel, Ice Lake or later), raw selectors\n"
	"rNNNN (hexadecimal; an event number on arm64) and perfctr 2.7's\n"
	"SEL[@PMC], and the CPU's native events by name through libpfm4,\n"
	"EVENT.UMASK or EVENT:UMASK (LIBPFM_FORCE_PMU=PMU chooses the PMU);\n"
	"on arm64 tsc is the generic timer.  A hardware or fault\n"
	"event counts user mode with :u, kernel mode with :k (this needs\n"
	"privilege), both with :uk; without a modifier it counts both, or\n"
	"user mode only (shown as :u) if the kernel refuses kernel mode.\n"
	"Without -e perfex counts task-clock, context-switches,\n"
	"cpu-migrations, page-faults, then cycles, instructions, branches\n"
	"and branch-misses as far as the hardware counters go, and tsc;\n"
	"with --topdown, nothing else.  The counts of COMMAND's other\n"
	"threads and child processes are shown apart, as children.\n"
	"\n"
	"The exit status is COMMAND's, or 128+N if signal N killed it;\n"
	"126 if COMMAND could not be run, 127 if it was not found,\n"
	"1 if perfex itself failed, 2 for bad usage.\n";

static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	fputs("perfex: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Is perfctr there?  Without creating a state for ourselves. */
static int probe_perfctr(void)
{
	int fd = _vperfctr_open(0);

	if (fd >= 0) {
		/* Our state, if we run under perfex, or perfctr's sysfs. */
		close(fd);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	if (errno == ENOSYS)
		error("this kernel has no perfctr support (vperfctr_open: %s)",
		      strerror(errno));
	else
		error("vperfctr_open: %s", strerror(errno));
	return -1;
}

/* This machine's counters, as /sys/kernel/perfctr describes them. */
struct machine {
	struct perfctr_info info;	/* if !known, perfex_assumed_machine() */
	int known;
	int err;		/* if not known, perfctr_info_read()'s errno */
	struct perfctr_info read;	/* what it read all the same */
};

int (*perfex_info_read)(struct perfctr_info *info) = perfctr_info_read;

static void read_machine(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	if (perfex_info_read(&m->info) == 0) {
		m->known = 1;
		return;
	}
	m->err = errno;
	m->read = m->info;	/* filled in for an ABI it does not speak */
	perfex_assumed_machine(&m->info);
}

/* Why the machine is not known, e.g. "no /sys/kernel: is sysfs mounted?" */
static void unknown_machine(const struct machine *m, char *buf, size_t size)
{
	__u32 abi = m->read.abi_version;

	switch (m->err) {
	case ENOSYS:
		snprintf(buf, size, "no %s: this kernel has no perfctr support",
			 PERFCTR_SYSFS);
		break;
	case ENOENT:
		snprintf(buf, size, "no /sys/kernel: is sysfs mounted?");
		break;
	case EPROTO:
		if (abi && abi >> 16 != PERFCTR_ABI_MAJOR)
			snprintf(buf, size, "the kernel's perfctr ABI is "
				 "%u.%u, perfex's %d.%d", abi >> 16, abi & 0xffff,
				 PERFCTR_ABI_MAJOR, PERFCTR_ABI_MINOR);
		else
			snprintf(buf, size, "%s is not as perfex knows it",
				 PERFCTR_SYSFS);
		break;
	default:
		snprintf(buf, size, "%s: %s", PERFCTR_SYSFS, strerror(m->err));
		break;
	}
}

/*
 * perfex -l: the events of this machine, as libperfctr lists them, then
 * the CPU's native ones, whether or not the kernel has perfctr.
 */
static int list_events(const struct machine *m,
		       const struct perfex_options *o)
{
	char why[128];

	if (o->list_pmus) {
		/* libpfm4 registers no PMU after the one it is forced to. */
		unsetenv("LIBPFM_FORCE_PMU");
		if (perfex_list_pmus(stdout) == 0)
			return 0;
		if (errno == ENOSYS)
			error("no PMUs to list: this perfex was built without "
			      "libpfm4");
		else
			error("no PMUs to list: %s", strerror(errno));
		return PERFEX_EXIT_FAILURE;
	}
	if (!m->known) {
		unknown_machine(m, why, sizeof(why));
		error("cannot tell this machine's hardware events: %s", why);
	}
	perfex_list_events(stdout, &m->info, o->list_filter);
	perfex_list_native(stdout, o->list_filter, o->list_long);
	return 0;
}

/* perfex -i: the description of this machine's counters. */
static int show_info(const struct machine *m)
{
	char why[128];

	if (!m->known && m->err == ENOSYS) {
		error("this kernel has no perfctr support (no %s)",
		      PERFCTR_SYSFS);
		return PERFEX_EXIT_FAILURE;
	}
	if (!m->known) {
		unknown_machine(m, why, sizeof(why));
		error("cannot describe the counters: %s", why);
		return PERFEX_EXIT_FAILURE;
	}
	printf("PerfCtr Info:\n");
	perfctr_info_fprint(stdout, &m->info);
	perfex_native_info(stdout);
	return 0;
}

static unsigned long long timeval_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000ull + tv->tv_usec * 1000ull;
}

/* The counting of one run of perfex: the events and where they go. */
struct session {
	const struct perfex_options *options;
	const struct machine *machine;
	FILE *out;
	struct perfex_event_list events;
	int defaults;		/* the events are perfex's choice */
	/* --topdown: its events are the last, from this index on. */
	int topdown;
	unsigned int topdown_first;
	struct vperfctr_control control, fallback;
	int has_fallback;
	int started;		/* the counters were set up once */
	/* For -I: the counters read, and their last values. */
	const struct vperfctr *counters;
	struct perfctr_sum_ctrs last;
	unsigned long long last_ns;
	unsigned int intervals;
	int read_failed;
	/* --regions: the area the command's regions count in. */
	struct region_area *area;
	int area_fd;
	pid_t pid;		/* the command's, of the last run */
};

/*
 * The events, parsed for this machine, and the controls that count them.
 * Return: 0, or -1 with errno set and @why saying what is wrong with an
 * event, naming it.  If the machine is not known, a hardware event
 * cannot be told from one it cannot count (EOPNOTSUPP).
 */
static int set_up(struct session *s, const struct perfex_options *options,
		  const struct machine *machine, char *why, size_t why_size)
{
	char unknown[128];
	unsigned int bad;
	int first;

	memset(s, 0, sizeof(*s));
	s->options = options;
	s->machine = machine;
	s->events = options->events;
	s->defaults = s->events.nr == 0 && !options->topdown;
	if (s->defaults)
		perfex_default_events(&s->events,
				      machine->known ? &machine->info : NULL);
	if (options->topdown) {
		first = perfex_topdown_add_events(&s->events, &machine->info,
						  why, why_size);
		if (first < 0)
			return -1;
		s->topdown = 1;
		s->topdown_first = first;
	}
	s->has_fallback = perfex_build_control(&s->events, &machine->info,
					       &s->control, &s->fallback,
					       why, why_size, &bad);
	if (s->has_fallback >= 0)
		return 0;
	if (!machine->known && errno == EOPNOTSUPP) {
		unknown_machine(machine, unknown, sizeof(unknown));
		if (s->topdown && bad >= s->topdown_first)
			snprintf(why, why_size, "--topdown: cannot tell "
				 "whether this machine has TopDown metrics: %s",
				 unknown);
		else
			snprintf(why, why_size, "%s: cannot tell whether this "
				 "machine counts it: %s",
				 s->events.event[bad].text, unknown);
		errno = EOPNOTSUPP;
	}
	return -1;
}

/* How many of the counts the report lists: those before --topdown's. */
static unsigned int nr_listed(const struct session *s)
{
	return s->topdown ? s->topdown_first : s->events.nr;
}

/* With --topdown, the breakdown of @counts into @td; NULL without. */
static const struct perfex_topdown *
topdown_of(const struct session *s, const struct perfex_count *counts,
	   struct perfex_topdown *td)
{
	if (!s->topdown)
		return NULL;
	perfex_topdown_of(td, counts + s->topdown_first,
			  s->events.nr - s->topdown_first);
	return td;
}

/* The kernel refused kernel mode: say what it takes, and what we have. */
static void kernel_mode_refused(const struct session *s)
{
	struct perfex_privilege privilege;
	char hint[256];

	perfex_privilege_read(&privilege, PERFEX_PARANOID_PATH);
	perfex_kernel_mode_hint(hint, sizeof(hint),
				perfex_kernel_mode_event(&s->events,
							 &s->machine->info),
				&privilege);
	error("%s", hint);
}

/*
 * EBUSY from vperfctr_control(): perf has a hardware event, and the two
 * take turns with the counters, on x86 and on arm64.
 */
#define PERF_HOLDS \
	"perf holds the hardware counters, which it and perfctr take in turns"

/* The kernel refused the control: why, if perfex can tell more. */
static void control_refused(const struct session *s, int err)
{
	if (err == EACCES)
		kernel_mode_refused(s);
	else if (err == EBUSY)
		error("%s: they are free once its events are closed and the "
		      "NMI watchdog is off (sysctl kernel.nmi_watchdog=0)",
		      PERF_HOLDS);
}

/*
 * The kernel refused the control with EBUSY, perf holding the hardware
 * counters (for the NMI watchdog, say): perfex's defaults go on without
 * their hardware events, as perf stat goes on without what it cannot
 * count.  Only before the first run: the runs of -r count alike.
 * Return: 1 to try again, 0 if not.
 */
static int hardware_busy(struct session *s, int err)
{
	char why[PERFCTR_EVENT_ERROR_SIZE];
	unsigned int bad;

	if (err != EBUSY || !s->defaults || s->started ||
	    !perfex_events_drop_hardware(&s->events))
		return 0;
	s->has_fallback = perfex_build_control(&s->events,
					       &s->machine->info, &s->control,
					       &s->fallback, why, sizeof(why),
					       &bad);
	if (s->has_fallback < 0) {
		error("%s", why);
		return 0;
	}
	error("%s: counting the software events only", PERF_HOLDS);
	return 1;
}

static void print_report(const struct session *s,
			 const struct perfex_report *report)
{
	if (s->options->json)
		perfex_print_report_json(s->out, report);
	else if (s->options->csv_sep)
		perfex_print_report_csv(s->out, report, s->options->csv_sep);
	else
		perfex_print_report(s->out, report);
}

/*
 * The report's counts, from what the thread and its children counted;
 * --no-children leaves out the children.
 */
static void fill_counts(const struct session *s,
			const struct perfctr_sum_ctrs *sum,
			const struct perfctr_sum_ctrs *children,
			struct perfex_count *counts)
{
	const struct perfex_event *event;
	unsigned int i;

	for (i = 0; i < s->events.nr; i++) {
		event = &s->events.event[i];
		perfex_event_count(event, sum, &counts[i]);
		if (!s->options->no_children)
			counts[i].children = perfex_event_value(event,
								children);
	}
}

/*
 * The events one by one into @sum, when they cannot all be read at once:
 * those the state page has.  @counted says which could be read.
 * Return: 0, or the errno of one that could not.
 */
/*
 * A read of another thread's page that its owner changed under every
 * attempt fails with EAGAIN: read again, so that an interval never lacks
 * a count for it.  The owner is busy only for moments.
 */
#define PAGE_READ_TRIES	1000

static int read_ctrs_again(const struct session *s,
			   struct perfctr_sum_ctrs *sum)
{
	unsigned int tries = 0;
	int ret;

	while ((ret = vperfctr_read_ctrs(s->counters, sum)) < 0 &&
	       errno == EAGAIN && ++tries < PAGE_READ_TRIES)
		sched_yield();
	return ret;
}

static int read_each(const struct session *s, struct perfctr_sum_ctrs *sum,
		     int *counted)
{
	const struct perfex_event *event;
	unsigned int i;
	int err = 0;

	for (i = 0; i < s->events.nr; i++) {
		unsigned int tries = 0;

		event = &s->events.event[i];
		do {
			errno = 0;
			if (event->index == PERFCTR_EVENT_TSC_INDEX)
				sum->tsc = vperfctr_read_tsc(s->counters);
			else
				sum->pmc[event->index] =
					vperfctr_read_pmc(s->counters,
							  event->index);
		} while (errno == EAGAIN && ++tries < PAGE_READ_TRIES &&
			 sched_yield() == 0);
		counted[i] = errno == 0;
		if (errno)
			err = errno;
	}
	return err;
}

/*
 * Every -I interval: what the counters counted since the last.  They
 * are read from the state page (libperfctr's fast read, which for a
 * thread other than the caller reads the TSC and the software counters
 * there, and the hardware counters only while the thread is off its
 * CPU); when the page cannot give them, the library falls back to
 * vperfctr_read(), which the kernel refuses for a running thread that is
 * not ours.  Then the events are read one by one, and those that cannot
 * be read are "<not counted>" for the interval.  Only the thread's own
 * counts are on the page, not its children's.
 */
static void interval_tick(void *arg, unsigned long long elapsed_ns)
{
	struct perfex_count counts[PERFEX_MAX_EVENTS];
	int counted[PERFEX_MAX_EVENTS];
	struct session *s = arg;
	struct perfex_interval iv;
	struct perfex_topdown td;
	struct perfctr_sum_ctrs sum;
	const struct perfex_event *event;
	unsigned int i;
	int err = 0;

	if (read_ctrs_again(s, &sum) == 0) {
		for (i = 0; i < s->events.nr; i++)
			counted[i] = 1;
	} else {
		memset(&sum, 0, sizeof(sum));
		err = read_each(s, &sum, counted);
	}
	if (err && !s->read_failed) {
		error("cannot read the counters while they run: %s",
		      strerror(err));
		s->read_failed = 1;
	}
	for (i = 0; i < s->events.nr; i++) {
		event = &s->events.event[i];
		memset(&counts[i], 0, sizeof(counts[i]));
		counts[i].name = event->spec.name;
		counts[i].kind = perfex_event_kind(event);
		counts[i].not_counted = !counted[i];
		if (counted[i])
			counts[i].value = perfex_event_value(event, &sum) -
					  perfex_event_value(event, &s->last);
	}
	iv.time_ns = elapsed_ns;
	iv.length_ns = elapsed_ns - s->last_ns;
	iv.index = s->intervals++;
	iv.counts = counts;
	iv.nr_counts = nr_listed(s);
	iv.topdown = topdown_of(s, counts, &td);
	if (s->options->json)
		perfex_print_interval_json(s->out, &iv);
	else if (s->options->csv_sep)
		perfex_print_interval_csv(s->out, &iv, s->options->csv_sep);
	else
		perfex_print_interval(s->out, &iv);
	fflush(s->out);
	for (i = 0; i < s->events.nr; i++) {
		event = &s->events.event[i];
		if (!counted[i])
			continue;
		if (event->index == PERFCTR_EVENT_TSC_INDEX)
			s->last.tsc = sum.tsc;
		else
			s->last.pmc[event->index] = sum.pmc[event->index];
	}
	s->last_ns = elapsed_ns;
}

static int launch_failed(const struct session *s, char **command,
			 const struct launch_failure *failure)
{
	if (failure->step == LAUNCH_EXEC) {
		error("cannot run '%s': %s", command[0],
		      strerror(failure->err));
		return perfex_exec_failure_status(failure->err);
	}
	error("cannot start '%s': %s: %s", command[0],
	      launch_step_name(failure->step), strerror(failure->err));
	if (failure->step == LAUNCH_CONTROL)
		control_refused(s, failure->err);
	return PERFEX_EXIT_FAILURE;
}

/* What -r adds up, event by event. */
struct run_stats {
	struct perfex_stats self[PERFEX_MAX_EVENTS];
	struct perfex_stats children[PERFEX_MAX_EVENTS];
	struct perfex_stats total[PERFEX_MAX_EVENTS];
	struct perfex_stats elapsed;
};

static void add_run(struct run_stats *stats, const struct perfex_count *counts,
		    unsigned int nr, unsigned long long elapsed_ns)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		perfex_stats_add(&stats->self[i], counts[i].value);
		perfex_stats_add(&stats->children[i], counts[i].children);
		perfex_stats_add(&stats->total[i],
				 perfex_count_total(&counts[i]));
	}
	perfex_stats_add(&stats->elapsed, elapsed_ns);
}

/* The means of the runs into @counts and @report, with their noise. */
static void take_means(const struct run_stats *stats,
		       struct perfex_count *counts, unsigned int nr,
		       struct perfex_report *report)
{
	unsigned int i;

	double sd;

	for (i = 0; i < nr; i++) {
		counts[i].value = llround(stats->self[i].mean);
		counts[i].children = llround(stats->children[i].mean);
		sd = perfex_stats_stddev_mean(&stats->total[i]);
		counts[i].noise = perfex_stats_rel_pct(sd,
						       stats->total[i].mean);
	}
	report->elapsed_ns = llround(stats->elapsed.mean);
	report->elapsed_stddev_ns = perfex_stats_stddev_mean(&stats->elapsed);
}

/* Run the command once: its counts, elapsed time and usage. */
static int run_once(struct session *s, struct perfex_count *counts,
		    unsigned long long *elapsed_ns, struct rusage *usage,
		    int *status)
{
	char **command = s->options->command;
	struct perfctr_sum_ctrs sum, children;
	struct launch_failure failure;
	struct perfex_child child;
	unsigned long long start;
	enum watch_end end;

	start = watch_now_ns();
	while (perfex_launch(command, &s->control,
			     s->has_fallback ? &s->fallback : NULL, &child,
			     &failure) < 0) {
		if (failure.step != LAUNCH_CONTROL ||
		    !hardware_busy(s, failure.err))
			return launch_failed(s, command, &failure);
		start = watch_now_ns();
	}
	s->started = 1;
	s->pid = child.pid;
	if (child.fell_back)
		perfex_events_fall_back(&s->events);

	if (s->options->interval_ms) {
		struct watch watch = {
			.child = child.pid, .pidfd = -1,
			.interval_ms = s->options->interval_ms,
			.tick = interval_tick, .tick_arg = s,
			.start_ns = start,
		};

		s->counters = child.counters;
		if (watch_run(&watch, &end) < 0)
			error("waiting for '%s': %s", command[0],
			      strerror(errno));
	}
	if (perfex_wait(&child, status, usage) < 0) {
		error("waiting for '%s': %s", command[0], strerror(errno));
		vperfctr_close(child.counters);
		return PERFEX_EXIT_FAILURE;
	}
	*elapsed_ns = watch_now_ns() - start;

	/*
	 * The command's other threads and its child processes added their
	 * sums to its children sums when they were reaped.
	 */
	if (_vperfctr_read(vperfctr_fd(child.counters), &sum, NULL,
			   &children) < 0) {
		error("vperfctr_read: %s", strerror(errno));
		vperfctr_close(child.counters);
		return PERFEX_EXIT_FAILURE;
	}
	vperfctr_close(child.counters);
	fill_counts(s, &sum, &children, counts);
	if (WIFSIGNALED(*status))
		error("'%s' was killed by signal %d (%s)", command[0],
		      WTERMSIG(*status), strsignal(WTERMSIG(*status)));
	return 0;
}

/*
 * --regions: the region area, which every process of the run maps.  Its
 * descriptor is not closed on exec, and its number is in the
 * environment: the command inherits both, and passes them on.
 */
static int regions_open(struct session *s)
{
	struct region_area *area;
	char fd_text[16];
	int fd, err;

	fd = memfd_create("perfex-regions", 0);
	if (fd < 0)
		goto fail;
	if (ftruncate(fd, REGION_AREA_SIZE) < 0)
		goto fail_close;
	area = mmap(NULL, REGION_AREA_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (area == MAP_FAILED)
		goto fail_close;
	/* The rest is zero: no name, nothing lost. */
	area->magic = REGION_AREA_MAGIC;
	area->version = REGION_AREA_VERSION;
	area->size = REGION_AREA_SIZE;
	area->used = sizeof(*area);
	snprintf(fd_text, sizeof(fd_text), "%d", fd);
	if (setenv(REGION_AREA_ENV, fd_text, 1) < 0) {
		err = errno;
		munmap(area, REGION_AREA_SIZE);
		errno = err;
		goto fail_close;
	}
	s->area = area;
	s->area_fd = fd;
	return 0;

fail_close:
	err = errno;
	close(fd);
	errno = err;
fail:
	error("--regions: cannot make the region area: %s", strerror(errno));
	return -1;
}

static void regions_close(struct session *s)
{
	unsetenv(REGION_AREA_ENV);
	munmap(s->area, REGION_AREA_SIZE);
	close(s->area_fd);
	s->area = NULL;
}

/*
 * --regions: the region report, after the report, of the area as the
 * command and its processes left it.  @counts are the run's, as the
 * report has them.  The CSV and JSON forms leave the warnings, which
 * the human one prints in its text, to standard error.
 * Return: 0, or -1 if the area could not be read.
 */
static int report_regions(const struct session *s,
			  const struct perfex_count *counts)
{
	const struct perfex_options *options = s->options;
	struct perfex_region_report report;
	struct perfex_regions regions;
	char why[256];
	unsigned int i;

	if (perfex_regions_read(&regions, s->area, REGION_AREA_SIZE,
				options->no_children ? s->pid : 0, why,
				sizeof(why)) < 0) {
		error("--regions: %s", why);
		return -1;
	}
	if (perfex_region_report_make(&report, &regions, &s->events,
				      nr_listed(s), counts) < 0) {
		error("--regions: %s", strerror(errno));
		perfex_regions_free(&regions);
		return -1;
	}
	report.command = options->command;
	if (options->json)
		perfex_print_regions_json(s->out, &report);
	else if (options->csv_sep)
		perfex_print_regions_csv(s->out, &report, options->csv_sep);
	else
		perfex_print_regions(s->out, &report);
	for (i = 0; (options->json || options->csv_sep) &&
	     perfex_region_warning(&report, i, why, sizeof(why)) == 0; i++)
		error("--regions: %s", why);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
	return 0;
}

/* perfex COMMAND, with -r N: N times, and the means. */
static int run_command(struct session *s)
{
	static struct run_stats stats;
	const struct perfex_options *options = s->options;
	struct perfex_count counts[PERFEX_MAX_EVENTS];
	struct perfex_report report;
	struct perfex_topdown td;
	unsigned long long elapsed_ns = 0;
	struct rusage usage;
	unsigned int runs;
	int status = 0, ret;

	memset(&stats, 0, sizeof(stats));
	memset(&report, 0, sizeof(report));
	if (options->regions && regions_open(s) < 0)
		return PERFEX_EXIT_FAILURE;
	for (runs = 0; runs < options->runs; runs++) {
		ret = run_once(s, counts, &elapsed_ns, &usage, &status);
		if (ret)
			goto out;
		add_run(&stats, counts, s->events.nr, elapsed_ns);
		if (WIFSIGNALED(status)) {
			runs++;
			break;
		}
	}

	report.command = options->command;
	report.counts = counts;
	report.nr_counts = nr_listed(s);
	report.runs = runs;
	if (runs > 1) {
		take_means(&stats, counts, s->events.nr, &report);
	} else {
		report.elapsed_ns = elapsed_ns;
		report.user_ns = timeval_ns(&usage.ru_utime);
		report.sys_ns = timeval_ns(&usage.ru_stime);
	}
	report.topdown = topdown_of(s, counts, &td);
	print_report(s, &report);
	ret = perfex_exit_status(status);
	if (options->regions && report_regions(s, counts) < 0 && ret == 0)
		ret = PERFEX_EXIT_FAILURE;
out:
	if (options->regions)
		regions_close(s);
	return ret;
}

static void attach_failed(const struct session *s, int tid,
			  const struct attach_failure *failure)
{
	if (failure->step == ATTACH_OPEN && failure->err == EEXIST) {
		error("thread %d already has perfctr counters", tid);
		return;
	}
	if (failure->err == ESRCH) {
		error("cannot count thread %d: no such thread", tid);
		return;
	}
	error("cannot count thread %d: %s: %s", tid,
	      attach_step_name(failure->step), strerror(failure->err));
	if (failure->step == ATTACH_CONTROL)
		control_refused(s, failure->err);
}

/*
 * perfex -p TID [COMMAND]: count a running thread until it ends, until
 * ^C, or for as long as COMMAND runs.  COMMAND is not counted; while it
 * runs, ^C is for it, as in perfex COMMAND.
 */
static int run_attached(struct session *s)
{
	const struct perfex_options *options = s->options;
	struct perfex_count counts[PERFEX_MAX_EVENTS];
	struct perfctr_sum_ctrs sum, children;
	struct watch_interrupts interrupts;
	struct attach_failure failure;
	struct launch_failure lfailure;
	struct perfex_target target;
	struct perfex_report report;
	struct perfex_topdown td;
	struct perfex_child child;
	struct watch watch;
	enum watch_end end;
	struct rusage usage;
	int tid = options->tid, known, status = 0, ret = 0;

	if (!options->command)
		watch_catch_interrupts(&interrupts);
	while (perfex_attach(tid, &s->control,
			     s->has_fallback ? &s->fallback : NULL, &target,
			     &failure) < 0) {
		if (failure.step != ATTACH_CONTROL ||
		    !hardware_busy(s, failure.err)) {
			attach_failed(s, tid, &failure);
			ret = PERFEX_EXIT_FAILURE;
			goto out;
		}
	}
	s->started = 1;
	if (target.fell_back)
		perfex_events_fall_back(&s->events);

	memset(&watch, 0, sizeof(watch));
	watch.start_ns = watch_now_ns();
	if (options->command) {
		if (perfex_launch(options->command, NULL, NULL, &child,
				  &lfailure) < 0) {
			ret = launch_failed(s, options->command, &lfailure);
			perfex_target_finish(&target, &sum, &children, &known);
			perfex_target_close(&target);
			goto out;
		}
		watch.child = child.pid;
	}
	watch.ended = perfex_target_ended;
	watch.ended_arg = &target;
	watch.pidfd = target.pidfd;
	watch.interval_ms = options->interval_ms;
	watch.tick = interval_tick;
	watch.tick_arg = s;
	s->counters = target.counters;
	if (watch_run(&watch, &end) < 0)
		error("waiting: %s", strerror(errno));

	ret = perfex_target_finish(&target, &sum, &children, &known);
	memset(&report, 0, sizeof(report));
	report.elapsed_ns = watch_now_ns() - watch.start_ns;
	if (ret > 0)
		error("thread %d keeps its counters: cannot stop it: %s", tid,
		      strerror(errno));
	if (ret < 0) {
		error("cannot read the counters of thread %d: %s", tid,
		      strerror(errno));
	} else {
		fill_counts(s, &sum, &children, counts);
		report.tid = tid;
		report.counts = counts;
		report.nr_counts = nr_listed(s);
		report.topdown = topdown_of(s, counts, &td);
		print_report(s, &report);
	}
	ret = ret < 0 ? PERFEX_EXIT_FAILURE : 0;
	perfex_target_close(&target);

	if (options->command) {
		if (perfex_wait(&child, &status, &usage) < 0) {
			error("waiting for '%s': %s", options->command[0],
			      strerror(errno));
			ret = PERFEX_EXIT_FAILURE;
		} else if (ret == 0) {
			ret = perfex_exit_status(status);
		}
	}
out:
	if (!options->command)
		watch_release_interrupts(&interrupts);
	return ret;
}

static int usage_error(const char *why)
{
	error("%s", why);
	fputs("Try 'perfex --help' for more information.\n", stderr);
	return PERFEX_EXIT_USAGE;
}

int perfex_main(int argc, char **argv)
{
	struct perfex_options options;
	struct machine machine;
	struct session s;
	char why[256];
	FILE *out = stderr;
	int status, ret;

	switch (perfex_parse_options(argc, argv, &options, why, sizeof(why))) {
	case PERFEX_HELP:
		fputs(usage, stdout);
		fputs(help, stdout);
		return 0;
	case PERFEX_VERSION:
		printf("perfex %s (perfctr ABI %d.%d)\n", PERFEX_RELEASE,
		       PERFCTR_ABI_MAJOR, PERFCTR_ABI_MINOR);
		return 0;
	case PERFEX_INFO:
		read_machine(&machine);
		return show_info(&machine);
	case PERFEX_LIST:
		read_machine(&machine);
		return list_events(&machine, &options);
	case PERFEX_USAGE_ERROR:
		return usage_error(why);
	case PERFEX_RUN:
		break;
	}

	/*
	 * An event this machine cannot count is a usage error, as an
	 * unknown one is.  On a machine not known, a hardware event may be
	 * fine: perfex says it cannot tell, if perfctr is there at all.
	 * --topdown on a machine without the metrics is no error of usage
	 * but of the machine, said before anything runs.
	 */
	read_machine(&machine);
	if (options.topdown && machine.known &&
	    perfex_topdown_check(&machine.info, why, sizeof(why)) < 0) {
		error("%s", why);
		return PERFEX_EXIT_FAILURE;
	}
	ret = set_up(&s, &options, &machine, why, sizeof(why));
	if (ret < 0 && (machine.known || errno != EOPNOTSUPP))
		return usage_error(why);
	if (probe_perfctr() < 0)
		return PERFEX_EXIT_FAILURE;
	if (ret < 0) {
		error("%s", why);
		return PERFEX_EXIT_FAILURE;
	}

	if (options.output) {
		out = fopen(options.output, "we");
		if (!out) {
			error("cannot open '%s': %s", options.output,
			      strerror(errno));
			return PERFEX_EXIT_FAILURE;
		}
	}

	s.out = out;
	if (options.tid)
		status = run_attached(&s);
	else
		status = run_command(&s);

	if (out != stderr && fclose(out) != 0) {
		error("writing '%s': %s", options.output, strerror(errno));
		if (status == 0)
			status = PERFEX_EXIT_FAILURE;
	}
	return status;
}
