/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_EVENTS_H
#define PERFEX_EVENTS_H

#include <stddef.h>
#include <stdio.h>

#include <libperfctr.h>

#include "format.h"

#define PERFEX_MAX_EVENTS	PERFCTR_MAX_NRCTRS

/*
 * An event as the user wrote it may be longer than libperfctr's name of
 * it (PERFCTR_EVENT_NAME_SIZE), which shortens long native names.
 */
#define PERFEX_EVENT_TEXT_SIZE	256

struct perfex_event {
	char text[PERFEX_EVENT_TEXT_SIZE];	/* as the user wrote it */
	/* As libperfctr parsed it; the report shows spec.name. */
	struct perfctr_event_spec spec;
	/* The same in user mode (":u") if spec.implicit_modes, else spec. */
	struct perfctr_event_spec user_mode;
	int index;		/* perfctr_event_add()'s, for the value */
};

struct perfex_event_list {
	struct perfex_event event[PERFEX_MAX_EVENTS];
	unsigned int nr;
};

int perfex_add_events(struct perfex_event_list *list, const char *spec,
		      char *error, size_t error_size);
void perfex_default_events(struct perfex_event_list *list,
			   const struct perfctr_info *info);
int perfex_build_control(struct perfex_event_list *list,
			 const struct perfctr_info *info,
			 struct vperfctr_control *control,
			 struct vperfctr_control *fallback,
			 char *error, size_t error_size, unsigned int *bad);
void perfex_events_fall_back(struct perfex_event_list *list);
unsigned int perfex_events_drop_hardware(struct perfex_event_list *list);
const char *perfex_kernel_mode_event(const struct perfex_event_list *list,
				     const struct perfctr_info *info);
enum perfex_count_kind perfex_event_kind(const struct perfex_event *event);
unsigned long long perfex_event_value(const struct perfex_event *event,
				      const struct perfctr_sum_ctrs *sum);
void perfex_event_count(const struct perfex_event *event,
			const struct perfctr_sum_ctrs *sum,
			struct perfex_count *count);
void perfex_assumed_machine(struct perfctr_info *info);
void perfex_list_events(FILE *out, const struct perfctr_info *info,
			const char *word);

#endif /* PERFEX_EVENTS_H */
