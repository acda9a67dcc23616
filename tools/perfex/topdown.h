/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_TOPDOWN_H
#define PERFEX_TOPDOWN_H

#include <stddef.h>

#include "events.h"
#include "format.h"
#include "metrics.h"

/* Which value of a count a share is of. */
enum perfex_topdown_part {
	PERFEX_TOPDOWN_SELF,		/* the command's own thread */
	PERFEX_TOPDOWN_CHILDREN,	/* its other threads and children */
	PERFEX_TOPDOWN_TOTAL,
};

int perfex_topdown_check(const struct perfctr_info *info, char *error,
			 size_t error_size);
int perfex_topdown_add_events(struct perfex_event_list *list,
			      const struct perfctr_info *info, char *error,
			      size_t error_size);
void perfex_topdown_of(struct perfex_topdown *td,
		       const struct perfex_count *counts, unsigned int nr);
const char *perfex_topdown_label(unsigned int i);
int perfex_topdown_share(const struct perfex_topdown *td, unsigned int i,
			 enum perfex_topdown_part part,
			 struct perfex_metric *metric);
const struct perfex_count *
perfex_topdown_line(const struct perfex_count *counts, unsigned int nr,
		    const struct perfex_topdown *td, unsigned int i,
		    unsigned long long wall_ns, struct perfex_metric *metric,
		    int *has_metric);

#endif /* PERFEX_TOPDOWN_H */
