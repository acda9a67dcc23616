/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_ATTACH_H
#define PERFEX_ATTACH_H

#include <stddef.h>

#include <libperfctr.h>

/* The steps of attaching counters to a running thread. */
enum attach_step {
	ATTACH_SEIZE,
	ATTACH_STOP,
	ATTACH_OPEN,
	ATTACH_CONTROL,
	ATTACH_MAP,
};

struct attach_failure {
	enum attach_step step;
	int err;
};

struct perfex_target {
	int tid;
	struct vperfctr *counters;	/* the thread's, ours to read */
	const struct vperfctr_state *page;	/* its state page: flags */
	size_t page_size;
	int pidfd;		/* readable once the thread exits, or -1 */
	int fell_back;		/* counting with the fallback control */
};

int perfex_attach(int tid, const struct vperfctr_control *control,
		  const struct vperfctr_control *fallback,
		  struct perfex_target *target, struct attach_failure *failure);
int perfex_target_ended(void *target);
int perfex_target_finish(struct perfex_target *target,
			 struct perfctr_sum_ctrs *sum,
			 struct perfctr_sum_ctrs *children,
			 int *children_known);
void perfex_target_close(struct perfex_target *target);
const char *attach_step_name(enum attach_step step);

#endif /* PERFEX_ATTACH_H */
