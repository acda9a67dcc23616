/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the library's files share and the public header hides.
 */
#ifndef LIBPERFCTR_INTERNAL_H
#define LIBPERFCTR_INTERNAL_H

#include <stddef.h>
#include <libperfctr.h>

struct vperfctr {
	int fd;
	/*
	 * Set when the handle was opened on the calling thread: only then
	 * do the hardware counters of this CPU belong to the state, so
	 * only then may the fast read use rdpmc.
	 */
	int is_self;
	const struct vperfctr_state *state;	/* NULL: not mapped */
	size_t map_size;
};

#endif /* LIBPERFCTR_INTERNAL_H */
