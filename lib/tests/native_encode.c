// SPDX-License-Identifier: LGPL-2.1
/*
 * native_encode MACHINE: what perfctr_event_parse() makes of each event
 * name on standard input, one a line, for one of the made-up machines of
 * machines.h.  For each line it prints
 *
 *	NAME<TAB>0xSELECTOR<TAB>0xPMCMAP
 *
 * or, when the name is refused,
 *
 *	NAME<TAB>error<TAB>ERRNO_NAME<TAB>message
 *
 * and nothing else, so that native_vs_perf.py can hold the answers up
 * against perf's event tables.  The native names are libpfm4's, for the
 * PMU it detects or the one LIBPFM_FORCE_PMU names; this program asks
 * the library only, never libpfm4 itself.
 *
 * Build (the library with libpfm4, then this, static for an arm64 one
 * run under qemu-aarch64):
 *
 *	cc -std=gnu11 -Wall -Wextra -Werror -Ilib/include \
 *		-Ikernel/include/uapi -Ilib/tests -o native_encode \
 *		lib/tests/native_encode.c $O/lib/libperfctr.a -lpfm
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libperfctr.h>
#include "machines.h"

static const struct {
	const char *name;
	const struct perfctr_info *info;
} machines[] = {
	{ "intel", &intel },
	{ "icelake", &icelake },
	{ "sapphire_rapids", &sapphire_rapids },
	{ "amd", &amd },
	{ "tsc_only", &tsc_only },
	{ "arm64", &arm64_pmuv3 },
	{ "arm64_timer", &arm64_timer },
};

#define N_MACHINES	(sizeof(machines) / sizeof(machines[0]))

static const struct {
	int num;
	const char *name;
} errnos[] = {
	{ EINVAL, "EINVAL" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
	{ ENOSPC, "ENOSPC" },
	{ ENOSYS, "ENOSYS" },
	{ ENODEV, "ENODEV" },
	{ ENOENT, "ENOENT" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ ERANGE, "ERANGE" },
};

static const char *errno_name(int num)
{
	static char buf[24];
	size_t i;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].num == num)
			return errnos[i].name;
	snprintf(buf, sizeof(buf), "E%d", num);
	return buf;
}

/* One line of output per line of input: no tab or newline inside a field. */
static void flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: native_encode MACHINE < names\nMACHINE:");
	for (i = 0; i < N_MACHINES; i++)
		fprintf(f, " %s", machines[i].name);
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	const struct perfctr_info *info = NULL;
	char line[1024];
	size_t i, len;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < N_MACHINES; i++)
		if (!strcmp(argv[1], machines[i].name))
			info = machines[i].info;
	if (!info) {
		fprintf(stderr, "native_encode: no machine '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}

	while (fgets(line, sizeof(line), stdin)) {
		struct perfctr_event_spec ev;
		char err[PERFCTR_EVENT_ERROR_SIZE] = "";
		int ret, saved;

		len = strcspn(line, "\r\n");
		line[len] = '\0';
		flatten(line);
		memset(&ev, 0, sizeof(ev));
		errno = 0;
		ret = perfctr_event_parse(&ev, line, info, err, sizeof(err));
		saved = errno;
		if (ret < 0) {
			if (!err[0])
				snprintf(err, sizeof(err), "%s", strerror(saved));
			flatten(err);
			printf("%s\terror\t%s\t%s\n", line, errno_name(saved),
			       err);
		} else {
			printf("%s\t0x%llx\t0x%x\n", line,
			       (unsigned long long)ev.evntsel, ev.pmc_map);
		}
		fflush(stdout);
	}
	return ferror(stdin) ? 1 : 0;
}
