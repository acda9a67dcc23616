/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_PRIVILEGE_H
#define PERFEX_PRIVILEGE_H

#include <stddef.h>

#define PERFEX_PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"

/* Does this process have a capability?  As capget(2) tells. */
enum perfex_cap {
	PERFEX_CAP_UNKNOWN,
	PERFEX_CAP_MISSING,
	PERFEX_CAP_PRESENT,
};

/* What decides whether the kernel lets us count kernel mode. */
struct perfex_privilege {
	enum perfex_cap perfmon;	/* CAP_PERFMON, effective */
	enum perfex_cap sys_admin;	/* CAP_SYS_ADMIN, effective */
	int paranoid_known;
	int paranoid;		/* kernel.perf_event_paranoid */
};

void perfex_privilege_read(struct perfex_privilege *privilege,
			   const char *paranoid_path);
int perfex_kernel_mode_hint(char *buf, size_t size, const char *event,
			    const struct perfex_privilege *privilege);

#endif /* PERFEX_PRIVILEGE_H */
