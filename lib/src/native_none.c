// SPDX-License-Identifier: LGPL-2.1
/*
 * Native events without libpfm4: the library was built where libpfm4's
 * header was not found.  A native name is an unknown event (EINVAL) whose
 * message says so, and the listing functions fail with ENOSYS.  The
 * generic names, raw selectors and 2.7's form are events.c's and work the
 * same.
 */
#include <errno.h>
#include <stdio.h>

#include "internal.h"

#define WHY	"native event names need libpfm4, which this libperfctr " \
		"was built without"

int native_encode(const char *str, struct native_encoding *enc, char *err,
		  size_t err_size)
{
	(void)enc;
	if (err && err_size)
		snprintf(err, err_size, "%s: unknown event (%s)", str, WHY);
	errno = EINVAL;
	return -1;
}

const char *native_pmu_name(enum native_vendor *vendor)
{
	*vendor = NATIVE_OTHER;
	return NULL;
}

int perfctr_native_pmu(struct perfctr_native_pmu *pmu, char *err,
		       size_t err_size)
{
	(void)pmu;
	if (err && err_size)
		snprintf(err, err_size, "%s", WHY);
	errno = ENOSYS;
	return -1;
}

int perfctr_native_event(unsigned int index,
			 struct perfctr_native_event *event)
{
	(void)index;
	(void)event;
	errno = ENOSYS;
	return -1;
}

int perfctr_native_attr(unsigned int index, unsigned int attr,
			struct perfctr_native_attr *out)
{
	(void)index;
	(void)attr;
	(void)out;
	errno = ENOSYS;
	return -1;
}

int perfctr_native_pmu_supported(unsigned int index,
				 struct perfctr_native_pmu *pmu)
{
	(void)index;
	(void)pmu;
	errno = ENOSYS;
	return -1;
}
