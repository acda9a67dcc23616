// SPDX-License-Identifier: GPL-2.0
/*
 * Why the kernel refused to count kernel mode: it allows it with
 * CAP_PERFMON (or CAP_SYS_ADMIN, which implies it) or with
 * kernel.perf_event_paranoid below 2, as perf_event_open() does.
 * perfex says which capability is missing, as capget(2) tells, and the
 * value of the sysctl.
 */
#include <stdio.h>
#include <linux/capability.h>

#include "privilege.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38	/* Linux 5.8; older headers lack it */
#endif

/*
 * The C library has the system call's wrapper but no header declaring
 * it (libcap's has, and libcap is not worth a dependency, nor a static
 * library on every architecture, for one call).
 */
int capget(cap_user_header_t header, cap_user_data_t data);

static enum perfex_cap effective(const struct __user_cap_data_struct *data,
				 unsigned int cap)
{
	if (!data)
		return PERFEX_CAP_UNKNOWN;
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap) ?
	       PERFEX_CAP_PRESENT : PERFEX_CAP_MISSING;
}

/**
 * perfex_privilege_read - what this process may do, and the sysctl
 * @privilege: filled in
 * @paranoid_path: PERFEX_PARANOID_PATH, or another for a test
 */
void perfex_privilege_read(struct perfex_privilege *privilege,
			   const char *paranoid_path)
{
	struct __user_cap_header_struct header = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
	FILE *f;

	if (capget(&header, caps) < 0) {
		privilege->perfmon = effective(NULL, CAP_PERFMON);
		privilege->sys_admin = effective(NULL, CAP_SYS_ADMIN);
	} else {
		privilege->perfmon = effective(caps, CAP_PERFMON);
		privilege->sys_admin = effective(caps, CAP_SYS_ADMIN);
	}

	privilege->paranoid_known = 0;
	f = fopen(paranoid_path, "re");
	if (f) {
		privilege->paranoid_known =
			fscanf(f, "%d", &privilege->paranoid) == 1;
		fclose(f);
	}
}

/**
 * perfex_kernel_mode_hint - what counting @event in kernel mode needs
 * @buf: where the text goes, without "perfex: " or newline, e.g.
 *       "page-faults:k: kernel-mode counting needs CAP_PERFMON
 *       (missing; perf_event_paranoid is 2)"
 * @size: its size
 * @event: the event refused
 * @privilege: what we have
 *
 * Return: what snprintf() returns.
 */
int perfex_kernel_mode_hint(char *buf, size_t size, const char *event,
			    const struct perfex_privilege *privilege)
{
	static const char fmt[] =
		"%s: kernel-mode counting needs CAP_PERFMON (%s; %s)";
	const char *have = "cannot tell";
	char paranoid[48];

	if (privilege->perfmon == PERFEX_CAP_PRESENT)
		have = "present";
	else if (privilege->sys_admin == PERFEX_CAP_PRESENT)
		have = "missing, CAP_SYS_ADMIN present";
	else if (privilege->perfmon == PERFEX_CAP_MISSING)
		have = "missing";
	if (privilege->paranoid_known)
		snprintf(paranoid, sizeof(paranoid),
			 "perf_event_paranoid is %d", privilege->paranoid);
	else
		snprintf(paranoid, sizeof(paranoid),
			 "perf_event_paranoid unknown");
	return snprintf(buf, size, fmt, event, have, paranoid);
}
