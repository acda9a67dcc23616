// SPDX-License-Identifier: LGPL-2.1
/*
 * regions: code regions in a multithreaded program, the worked example of
 * perfctr_region_begin(3) and the user guide.
 *
 * Four threads each fill an array ("fill") and then sum it over and over
 * ("sum"), inside a region that holds both ("work").  Built with
 * -DPERFCTR_REGIONS, the regions count; without, the macros are nothing.
 *
 * Run by perfex --regions, the program counts with perfex's counters and
 * perfex reports.  Run alone, it sets up its own counters, which its
 * threads inherit, and prints what each region counted in all of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libperfctr.h>

#define THREADS		4
#define LENGTH		4096
#define PASSES		50

static void *worker(void *arg)
{
	unsigned long *data, sum = 0;
	unsigned int i, pass, seed = (unsigned int)(unsigned long)arg;

	data = malloc(LENGTH * sizeof(*data));
	if (!data)
		return NULL;
	PERFCTR_REGION_BEGIN("work");
	PERFCTR_REGION_BEGIN("fill");
	for (i = 0; i < LENGTH; i++)
		data[i] = seed = seed * 1103515245 + 12345;
	PERFCTR_REGION_END("fill");
	/* Thread i sums i + 1 times as long: the threads differ. */
	for (pass = 0; pass < PASSES * (1 + (unsigned long)arg); pass++) {
		PERFCTR_REGION_BEGIN("sum");
		for (i = 0; i < LENGTH; i++)
			sum += data[i] >> (pass & 7);
		PERFCTR_REGION_END("sum");
	}
	PERFCTR_REGION_END("work");
	free(data);
	return (void *)sum;
}

/* Alone: the TSC and instructions:u, or task-clock without a PMU. */
static int counters_start(const char **name)
{
	struct perfctr_event_spec event;
	struct vperfctr_control control;
	struct perfctr_info info;
	struct vperfctr *vperfctr;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	if (perfctr_info_read(&info) < 0)
		return -1;
	memset(&control, 0, sizeof(control));
	control.cpu_control.tsc_on = 1;
	*name = "instructions:u";
	if (perfctr_event_parse(&event, *name, &info, err, sizeof(err)) < 0 ||
	    perfctr_event_add(&control, &event, &info, err, sizeof(err)) < 0) {
		*name = "task-clock";
		if (perfctr_event_parse(&event, *name, &info, err,
					sizeof(err)) < 0 ||
		    perfctr_event_add(&control, &event, &info, err,
				      sizeof(err)) < 0) {
			fprintf(stderr, "regions: %s\n", err);
			return -1;
		}
	}
	vperfctr = vperfctr_open();
	if (!vperfctr || vperfctr_control(vperfctr, &control) < 0) {
		fprintf(stderr, "regions: counters: %s\n", strerror(errno));
		return -1;
	}
	/* The counters stay with the thread, and go to those it creates. */
	vperfctr_close(vperfctr);
	return 0;
}

static void print(const char *region, const char *event)
{
	struct perfctr_region r = PERFCTR_REGION_INIT(region);
	struct perfctr_region_counts c;

	if (perfctr_region_read(&r, PERFCTR_REGION_PROCESS, &c) < 0) {
		printf("%-5s: %s\n", region, strerror(errno));
		return;
	}
	printf("%-5s: %6llu calls in %u threads, %12llu %s, %12llu tsc\n",
	       region, c.calls, c.threads, c.pmc[0], event, c.tsc);
}

int main(void)
{
	pthread_t tid[THREADS];
	const char *event = NULL;
	int alone = !getenv("PERFCTR_REGIONS_FD");
	unsigned long i;

	if (alone && counters_start(&event) < 0)
		return 1;
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "regions: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
	if (alone) {
		print("work", event);
		print("fill", event);
		print("sum", event);
	}
	return 0;
}
