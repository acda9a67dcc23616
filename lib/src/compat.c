// SPDX-License-Identifier: LGPL-2.1
/*
 * The functions of perfctr 2.7's library that the rest of this one has
 * no use for: the one-argument _vperfctr_open(), the reads of one part
 * of a state, the ABI check, the CPU masks, the printing of a control,
 * and the kernel's version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "internal.h"

#define ONLINE_CPUS	"/sys/devices/system/cpu/online"

/* A CPU number we believe: Linux has at most 8192 today. */
#define MAX_CPUS	(1u << 20)

#define WORD_BITS	(8 * sizeof(unsigned int))

int vperfctr_open_self_dir(const char *dir, int creat)
{
	int fd, dirfd;

	fd = vperfctr_open_fd(0, creat);
	if (fd >= 0 || creat || errno != ENOENT)
		return fd;
	/*
	 * The thread has no state.  perfctr 2.7 gave a descriptor all the
	 * same, which its callers only used to ask for the description of
	 * the counters; that description is in @dir/perfctr/, and a
	 * descriptor of that directory serves as well.  Every state call
	 * on it fails with EINVAL, as on 2.7's.
	 */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		errno = ENOENT;
		return -1;
	}
	fd = openat(dirfd, "perfctr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

int _vperfctr_open(int creat)
{
	return vperfctr_open_self_dir(SYSFS_KERNEL, creat);
}

int _vperfctr_read_sum(int fd, struct perfctr_sum_ctrs *sum)
{
	return _vperfctr_read(fd, sum, NULL, NULL);
}

int _vperfctr_read_control(int fd, struct vperfctr_control *control)
{
	return _vperfctr_read(fd, NULL, control, NULL);
}

int _vperfctr_read_children(int fd, struct perfctr_sum_ctrs *children)
{
	return _vperfctr_read(fd, NULL, NULL, children);
}

int perfctr_info(int fd, struct perfctr_info *info)
{
	(void)fd;		/* one description for every thread */
	return perfctr_info_read(info);
}

int perfctr_abi_check_dir(const char *dir, unsigned int user_abi_version)
{
	struct perfctr_info info;

	/* EPROTO already if the kernel's major version is not ours. */
	if (perfctr_info_read_dir(dir, &info) < 0)
		return -1;
	if ((info.abi_version >> 16) != (user_abi_version >> 16)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int _perfctr_abi_check_fd(int fd, unsigned int user_abi_version)
{
	(void)fd;
	return perfctr_abi_check_dir(SYSFS_KERNEL, user_abi_version);
}

/*
 * The decimal number at *@p, whose digits are all skipped: 0, 1 if it is
 * above @max (then *@value is @max), -1 if *@p is not a digit.
 */
static int parse_decimal(const char **p, unsigned int max,
			 unsigned int *value)
{
	const char *s = *p;
	unsigned int v = 0;
	int over = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (*s - '0')) / 10)
			over = 1;
		else
			v = v * 10 + (*s - '0');
	}
	*p = s;
	*value = over ? max : v;
	return over;
}

/* A decimal CPU number at *@p, which is moved past it. */
static int parse_cpu(const char **p, unsigned int *cpu)
{
	return parse_decimal(p, MAX_CPUS - 1, cpu) ? -1 : 0;
}

/*
 * Walk the CPU list @text ("0-3,6\n", as the kernel writes it): set the
 * bits in @mask if it is not NULL, and the highest CPU in *@max.
 */
static int parse_cpu_list(const char *text, struct perfctr_cpu_mask *mask,
			  unsigned int *max)
{
	unsigned int first, last, cpu;
	const char *p = text;

	*max = 0;
	if (*p == '\n' || !*p)		/* an empty list */
		return 0;
	for (;;) {
		if (parse_cpu(&p, &first) < 0)
			return -1;
		last = first;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &last) < 0 || last < first)
				return -1;
		}
		if (last > *max)
			*max = last;
		for (cpu = first; mask && cpu <= last; cpu++)
			mask->mask[cpu / WORD_BITS] |= 1u << (cpu % WORD_BITS);
		if (*p != ',')
			break;
		p++;
	}
	if (*p == '\n')
		p++;
	return *p ? -1 : 0;
}

struct perfctr_cpus_info *perfctr_cpus_info_read(const char *online)
{
	struct perfctr_cpus_info *info;
	size_t size = 0, mask_size;
	unsigned int max, nrwords;
	char *text = NULL;
	FILE *f;
	int err;

	f = fopen(online, "re");
	if (!f)
		return NULL;
	if (getline(&text, &size, f) < 0) {
		err = ferror(f) ? errno : EPROTO;
		fclose(f);
		free(text);
		errno = err;
		return NULL;
	}
	fclose(f);
	if (parse_cpu_list(text, NULL, &max) < 0) {
		free(text);
		errno = EPROTO;
		return NULL;
	}

	nrwords = max / WORD_BITS + 1;
	mask_size = offsetof(struct perfctr_cpu_mask, mask) +
		    nrwords * sizeof(unsigned int);
	info = calloc(1, sizeof(*info) + 2 * mask_size);
	if (!info) {
		free(text);
		return NULL;
	}
	info->cpus = (struct perfctr_cpu_mask *)(info + 1);
	info->cpus_forbidden = (struct perfctr_cpu_mask *)
			       ((char *)info->cpus + mask_size);
	info->cpus->nrwords = nrwords;
	info->cpus_forbidden->nrwords = nrwords;
	parse_cpu_list(text, info->cpus, &max);
	free(text);
	return info;
}

struct perfctr_cpus_info *perfctr_cpus_info(int fd)
{
	(void)fd;
	return perfctr_cpus_info_read(ONLINE_CPUS);
}

struct perfctr_cpus_info *vperfctr_cpus_info(const struct vperfctr *vperfctr)
{
	(void)vperfctr;
	return perfctr_cpus_info_read(ONLINE_CPUS);
}

static int mask_test(const struct perfctr_cpu_mask *mask, unsigned int cpu)
{
	return (mask->mask[cpu / WORD_BITS] >> (cpu % WORD_BITS)) & 1;
}

/* "NAME  0-3,6 (5 CPUs)": the CPUs of @mask as ranges, and how many. */
static int fprint_mask(FILE *stream, const char *name,
		       const struct perfctr_cpu_mask *mask)
{
	unsigned int cpu, last, n = 0, bits = mask->nrwords * WORD_BITS;

	if (fprintf(stream, "%-16s ", name) < 0)
		return -1;
	for (cpu = 0; cpu < bits; cpu = last + 1) {
		last = cpu;
		if (!mask_test(mask, cpu))
			continue;
		while (last + 1 < bits && mask_test(mask, last + 1))
			last++;
		if (fprintf(stream, "%s%u", n ? "," : "", cpu) < 0 ||
		    (last > cpu && fprintf(stream, "-%u", last) < 0))
			return -1;
		n += last - cpu + 1;
	}
	if (fprintf(stream, "%s (%u CPU%s)\n", n ? "" : "none", n,
		    n == 1 ? "" : "s") < 0)
		return -1;
	return 0;
}

int perfctr_cpus_info_fprint(FILE *stream,
			     const struct perfctr_cpus_info *cpus_info)
{
	if (fprint_mask(stream, "cpus", cpus_info->cpus) < 0 ||
	    fprint_mask(stream, "cpus_forbidden",
			cpus_info->cpus_forbidden) < 0)
		return -1;
	return 0;
}

void perfctr_cpus_info_print(const struct perfctr_cpus_info *cpus_info)
{
	perfctr_cpus_info_fprint(stdout, cpus_info);
}

int perfctr_cpu_control_fprint(FILE *stream,
			       const struct perfctr_cpu_control *control)
{
	unsigned int i, n = control->nractrs + control->nrictrs;
	char name[16];
	__u32 map;

	if (fprintf(stream, "tsc_on           %u\n"
		    "nractrs          %u\n"
		    "nrictrs          %u\n",
		    control->tsc_on, control->nractrs, control->nrictrs) < 0)
		return -1;
	if (n > PERFCTR_MAX_NRCTRS || n < control->nractrs)
		n = PERFCTR_MAX_NRCTRS;
	for (i = 0; i < n; i++) {
		/* A counter's index in decimal, one with flags in hex. */
		map = control->pmc_map[i];
		snprintf(name, sizeof(name), "pmc_map[%u]", i);
		if (fprintf(stream, map > 0xffff ? "%-16s 0x%x\n" :
						   "%-16s %u\n", name, map) < 0)
			return -1;
		snprintf(name, sizeof(name), "evntsel[%u]", i);
		if (fprintf(stream, "%-16s 0x%llx\n", name,
			    (unsigned long long)control->evntsel[i]) < 0)
			return -1;
		if (i < control->nractrs)
			continue;
		snprintf(name, sizeof(name), "ireset[%u]", i);
		if (fprintf(stream, "%-16s %lld\n", name,
			    (long long)control->ireset[i]) < 0)
			return -1;
	}
	return 0;
}

void perfctr_cpu_control_print(const struct perfctr_cpu_control *control)
{
	perfctr_cpu_control_fprint(stdout, control);
}

/*
 * A decimal number at *@p, which is moved past it: below 256, or 255
 * for a larger one if @clamp.
 */
static int parse_level(const char **p, unsigned int *level, int clamp)
{
	int over = parse_decimal(p, 255, level);

	return over < 0 || (over && !clamp) ? -1 : 0;
}

unsigned int perfctr_linux_version_parse(const char *release)
{
	unsigned int version, patchlevel, sublevel = 0;
	const char *p = release;

	if (parse_level(&p, &version, 0) < 0 || *p++ != '.' ||
	    parse_level(&p, &patchlevel, 0) < 0) {
		errno = EINVAL;
		return 0;
	}
	/* "6.12" and "6.12-rc1" have no sublevel: 0. */
	if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
		p++;
		parse_level(&p, &sublevel, 1);
	}
	return PERFCTR_KERNEL_VERSION(version, patchlevel, sublevel);
}

unsigned int perfctr_linux_version_code(void)
{
	struct utsname uts;

	if (uname(&uts) < 0)
		return 0;
	return perfctr_linux_version_parse(uts.release);
}
