// SPDX-License-Identifier: GPL-2.0
/*
 * What perfex says when kernel mode is refused: the capabilities, as
 * capget(2) tells them, and the sysctl, read from a made-up file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privilege.h"
#include "tap.h"

static char dir[] = "/tmp/perfex-test-privilege-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void drop(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* The effective capabilities, as /proc/self/status has them. */
static unsigned long long cap_eff_mask;
static int cap_eff_known;

static void read_cap_eff(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap_eff_mask) == 1)
			cap_eff_known = 1;
	fclose(f);
}

static enum perfex_cap cap_eff(unsigned int cap)
{
	return cap_eff_mask >> cap & 1 ? PERFEX_CAP_PRESENT :
	       PERFEX_CAP_MISSING;
}

static void hint(enum perfex_cap perfmon, enum perfex_cap sys_admin,
		 int paranoid_known, const char *want)
{
	struct perfex_privilege p = {
		.perfmon = perfmon, .sys_admin = sys_admin,
		.paranoid_known = paranoid_known, .paranoid = 2,
	};
	char buf[256];

	perfex_kernel_mode_hint(buf, sizeof(buf), "page-faults:k", &p);
	tap_is_str(buf, want, "hint: %s", want + 43);
}

static void test_privilege(void)
{
	struct perfex_privilege p;

	hint(PERFEX_CAP_MISSING, PERFEX_CAP_MISSING, 1,
	     "page-faults:k: kernel-mode counting needs CAP_PERFMON "
	     "(missing; perf_event_paranoid is 2)");
	hint(PERFEX_CAP_PRESENT, PERFEX_CAP_MISSING, 1,
	     "page-faults:k: kernel-mode counting needs CAP_PERFMON "
	     "(present; perf_event_paranoid is 2)");
	hint(PERFEX_CAP_MISSING, PERFEX_CAP_PRESENT, 1,
	     "page-faults:k: kernel-mode counting needs CAP_PERFMON "
	     "(missing, CAP_SYS_ADMIN present; perf_event_paranoid is 2)");
	hint(PERFEX_CAP_UNKNOWN, PERFEX_CAP_UNKNOWN, 0,
	     "page-faults:k: kernel-mode counting needs CAP_PERFMON "
	     "(cannot tell; perf_event_paranoid unknown)");

	put("paranoid", "-1\n");
	perfex_privilege_read(&p, "/tmp/perfex-none/paranoid");
	tap_ok(!p.paranoid_known, "privilege: no sysctl file: unknown");
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/paranoid", dir);
		perfex_privilege_read(&p, path);
	}
	tap_ok(p.paranoid_known && p.paranoid == -1,
	       "privilege: the sysctl read, negative too");
	tap_ok(p.perfmon != PERFEX_CAP_UNKNOWN &&
	       p.sys_admin != PERFEX_CAP_UNKNOWN,
	       "privilege: capget tells our capabilities");
	tap_ok(cap_eff_known && p.perfmon == cap_eff(38) &&
	       p.sys_admin == cap_eff(21),
	       "privilege: CAP_PERFMON and CAP_SYS_ADMIN as "
	       "/proc/self/status has them");
	drop("paranoid");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	read_cap_eff();
	test_privilege();
	rmdir(dir);
	return tap_done();
}
