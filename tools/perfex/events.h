/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_EVENTS_H
#define PERFEX_EVENTS_H

#include <stddef.h>

#include <libperfctr.h>

#include "format.h"

/* perfex_event.type of the time-stamp counter; others are PERFCTR_SW_*. */
#define PERFEX_EVENT_TSC	0

#define PERFEX_MAX_EVENTS	PERFCTR_MAX_NRCTRS
#define PERFEX_EVENT_NAME_SIZE	32

struct perfex_event {
	char name[PERFEX_EVENT_NAME_SIZE];	/* as the user wrote it */
	unsigned int type;	/* PERFEX_EVENT_TSC or PERFCTR_SW_* */
	unsigned int modes;	/* PERFCTR_SW_USR|OS for faults, else 0 */
	int implicit_modes;	/* a fault event without :u, :k or :uk */
	int counter;		/* its index in the sums; -1 for the TSC */
};

struct perfex_event_list {
	struct perfex_event event[PERFEX_MAX_EVENTS];
	unsigned int nr;
};

int perfex_add_events(struct perfex_event_list *list, const char *spec,
		      char *error, size_t error_size);
void perfex_default_events(struct perfex_event_list *list);
int perfex_build_control(struct perfex_event_list *list,
			 struct vperfctr_control *control,
			 struct vperfctr_control *fallback);
void perfex_events_fall_back(struct perfex_event_list *list);
enum perfex_count_kind perfex_event_kind(const struct perfex_event *event);
unsigned long long perfex_event_value(const struct perfex_event *event,
				      const struct perfctr_sum_ctrs *sum);

#endif /* PERFEX_EVENTS_H */
