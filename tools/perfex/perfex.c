// SPDX-License-Identifier: GPL-2.0
/*
 * perfex: run a command and report what its virtual performance
 * counters counted, the way perf stat does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <libperfctr.h>

#include "events.h"
#include "format.h"
#include "launch.h"
#include "options.h"
#include "status.h"

#define PERFEX_RELEASE	"0.1"

static const char usage[] =
	"Usage: perfex [-e EVENTS] [-o FILE] COMMAND [ARG]...\n";

static const char help[] =
	"Run COMMAND with virtual performance counters and report their\n"
	"counts on standard error when it exits.\n"
	"\n"
	"  -e, --event EVENTS  count EVENTS, a comma-separated list; -e may\n"
	"                      be repeated\n"
	"  -o, --output FILE   write the report to FILE\n"
	"  -h, --help          show this help and exit\n"
	"      --version       show the version and exit\n"
	"\n"
	"Events: task-clock, context-switches (cs), cpu-migrations\n"
	"(migrations), page-faults (faults), minor-faults, major-faults, tsc.\n"
	"A fault event counts faults in user mode with :u, in kernel mode\n"
	"with :k (this needs privilege), in both with :uk; without a\n"
	"modifier it counts both, or user mode only (shown as :u) if the\n"
	"kernel refuses kernel mode.  Without -e perfex counts task-clock,\n"
	"context-switches, cpu-migrations, page-faults and tsc.  The counts\n"
	"of COMMAND's other threads and child processes are shown apart,\n"
	"as children.\n"
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
	int fd = _vperfctr_open(0, 0);

	if (fd >= 0) {
		close(fd);	/* we run under perfex ourselves */
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

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long long timeval_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000ull + tv->tv_usec * 1000ull;
}

static int launch_failed(const struct perfex_options *options,
			 const struct launch_failure *failure)
{
	if (failure->step == LAUNCH_EXEC) {
		error("cannot run '%s': %s", options->command[0],
		      strerror(failure->err));
		return perfex_exec_failure_status(failure->err);
	}
	error("cannot start '%s': %s: %s", options->command[0],
	      launch_step_name(failure->step), strerror(failure->err));
	if (failure->step == LAUNCH_CONTROL && failure->err == EACCES)
		error("counting kernel mode (:k) needs CAP_PERFMON or "
		      "CAP_SYS_ADMIN, or kernel.perf_event_paranoid below 2");
	return PERFEX_EXIT_FAILURE;
}

/* The report's counts, from what the command and its children counted. */
static void fill_counts(const struct perfex_event_list *events,
			const struct perfctr_sum_ctrs *sum,
			const struct perfctr_sum_ctrs *children,
			struct perfex_count *counts)
{
	const struct perfex_event *event;
	unsigned int i;

	for (i = 0; i < events->nr; i++) {
		event = &events->event[i];
		counts[i].name = event->name;
		counts[i].value = perfex_event_value(event, sum);
		counts[i].children = perfex_event_value(event, children);
		counts[i].kind = perfex_event_kind(event);
	}
}

static int run(const struct perfex_options *options, FILE *out)
{
	struct perfex_count counts[PERFEX_MAX_EVENTS];
	struct vperfctr_control control, fallback;
	struct perfctr_sum_ctrs sum, children;
	struct perfex_event_list events;
	struct launch_failure failure;
	struct perfex_child child;
	struct perfex_report report;
	unsigned long long start;
	struct rusage usage;
	int status, has_fallback;

	events = options->events;
	if (events.nr == 0)
		perfex_default_events(&events);
	has_fallback = perfex_build_control(&events, &control, &fallback);
	if (has_fallback < 0) {
		error("cannot count these events together: %s",
		      strerror(errno));
		return PERFEX_EXIT_FAILURE;
	}

	start = now_ns();
	if (perfex_launch(options->command, &control,
			  has_fallback ? &fallback : NULL, &child,
			  &failure) < 0)
		return launch_failed(options, &failure);
	if (perfex_wait(&child, &status, &usage) < 0) {
		error("waiting for '%s': %s", options->command[0],
		      strerror(errno));
		vperfctr_close(child.counters);
		return PERFEX_EXIT_FAILURE;
	}

	memset(&report, 0, sizeof(report));
	report.elapsed_ns = now_ns() - start;
	report.user_ns = timeval_ns(&usage.ru_utime);
	report.sys_ns = timeval_ns(&usage.ru_stime);
	report.command = options->command;

	/*
	 * The command's other threads and its child processes added their
	 * sums to its children sums when they were reaped.
	 */
	if (vperfctr_read_state(child.counters, &sum, NULL, &children) < 0) {
		error("vperfctr_read: %s", strerror(errno));
		vperfctr_close(child.counters);
		return PERFEX_EXIT_FAILURE;
	}
	vperfctr_close(child.counters);
	if (child.fell_back)
		perfex_events_fall_back(&events);
	fill_counts(&events, &sum, &children, counts);
	report.counts = counts;
	report.nr_counts = events.nr;

	if (WIFSIGNALED(status))
		error("'%s' was killed by signal %d (%s)", options->command[0],
		      WTERMSIG(status), strsignal(WTERMSIG(status)));
	perfex_print_report(out, &report);
	return perfex_exit_status(status);
}

int main(int argc, char **argv)
{
	struct perfex_options options;
	char why[256];
	FILE *out = stderr;
	int status;

	switch (perfex_parse_options(argc, argv, &options, why, sizeof(why))) {
	case PERFEX_HELP:
		fputs(usage, stdout);
		fputs(help, stdout);
		return 0;
	case PERFEX_VERSION:
		printf("perfex %s (perfctr ABI %d.%d)\n", PERFEX_RELEASE,
		       PERFCTR_ABI_MAJOR, PERFCTR_ABI_MINOR);
		return 0;
	case PERFEX_USAGE_ERROR:
		error("%s", why);
		fputs(usage, stderr);
		fputs("Try 'perfex --help' for more information.\n", stderr);
		return PERFEX_EXIT_USAGE;
	case PERFEX_RUN:
		break;
	}

	if (probe_perfctr() < 0)
		return PERFEX_EXIT_FAILURE;

	if (options.output) {
		out = fopen(options.output, "we");
		if (!out) {
			error("cannot open '%s': %s", options.output,
			      strerror(errno));
			return PERFEX_EXIT_FAILURE;
		}
	}

	status = run(&options, out);

	if (out != stderr && fclose(out) != 0) {
		error("writing '%s': %s", options.output, strerror(errno));
		if (status == 0)
			status = PERFEX_EXIT_FAILURE;
	}
	return status;
}
