// SPDX-License-Identifier: LGPL-2.1
/*
 * Changing what a state counts.
 */
#include <string.h>

#include "internal.h"

int vperfctr_control(const struct vperfctr *vperfctr,
		     const struct vperfctr_control *control)
{
	return _vperfctr_control(vperfctr->fd, control);
}

int vperfctr_stop(const struct vperfctr *vperfctr)
{
	struct vperfctr_control control;

	/* All off.  The kernel still resets the TSC sum: it has no bit. */
	memset(&control, 0, sizeof(control));
	control.preserve = ~0u;
	return _vperfctr_control(vperfctr->fd, &control);
}

int vperfctr_unlink(const struct vperfctr *vperfctr)
{
	return _vperfctr_unlink(vperfctr->fd);
}

int vperfctr_iresume(const struct vperfctr *vperfctr)
{
	return _vperfctr_iresume(vperfctr->fd);
}
