// SPDX-License-Identifier: LGPL-2.1
/*
 * The description of this machine's counters: struct perfctr_info, which
 * the kernel shows in /sys/kernel/perfctr/, one field per file, fixed at
 * boot (Documentation/ABI/testing/sysfs-kernel-perfctr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Longest file content we accept, newline included. */
#define FIELD_SIZE	64

struct field {
	const char *file;
	size_t offset;
	int hex;
	int optional;		/* a kernel before it has no file: 0 */
};

#define FIELD(name, hex, optional) \
	{ #name, offsetof(struct perfctr_info, name), hex, optional }

static const struct field fields[] = {
	FIELD(abi_version, 1, 0),
	FIELD(cpu_type, 0, 0),
	FIELD(cpu_features, 1, 0),
	FIELD(cpu_khz, 0, 0),
	FIELD(tsc_to_cpu_mult, 0, 0),
	FIELD(nrctrs, 0, 0),
	FIELD(ctr_width, 0, 0),
	FIELD(nrfixed, 0, 0),
	FIELD(fixed_width, 0, 0),
	FIELD(nrmetrics, 0, 1),
};

/*
 * The text of file @name in directory @dirfd into @buf, without its
 * newline.  A file that is missing or too long for @buf means the kernel
 * speaks another format: EPROTO.
 */
static int read_text(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t len;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = EPROTO;
		return -1;
	}
	len = read(fd, buf, size);
	err = errno;
	close(fd);
	if (len < 0) {
		errno = err;
		return -1;
	}
	if ((size_t)len == size) {
		errno = EPROTO;
		return -1;
	}
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return 0;
}

/* Is there a file @name in directory @dirfd?  errno is left as it was. */
static int has_file(int dirfd, const char *name)
{
	int err = errno, ret;

	ret = faccessat(dirfd, name, F_OK, 0) == 0 || errno != ENOENT;
	errno = err;
	return ret;
}

static int digit_value(char c, int hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (hex && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "%u" or "%#x" as the kernel writes them, and nothing else. */
static int parse_u32(const char *text, int hex, __u32 *value)
{
	unsigned long long v = 0;
	int base = hex ? 16 : 10, d;

	if (hex && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		text += 2;
	if (!*text)
		return -1;
	for (; *text; text++) {
		d = digit_value(*text, hex);
		if (d < 0)
			return -1;
		v = v * base + d;
		if (v > 0xffffffffull)
			return -1;
	}
	*value = v;
	return 0;
}

int perfctr_info_read_dir(const char *dir, struct perfctr_info *info)
{
	struct perfctr_info got;
	char text[FIELD_SIZE];
	int dirfd, fd, err;
	size_t i;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;	/* ENOENT: no sysfs to ask */
	fd = openat(dirfd, "perfctr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	close(dirfd);
	if (fd < 0) {
		/* sysfs is there and has no perfctr: neither has the kernel. */
		errno = err == ENOENT ? ENOSYS : err;
		return -1;
	}

	memset(&got, 0, sizeof(got));
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		__u32 value;

		if (fields[i].optional && !has_file(fd, fields[i].file))
			continue;
		if (read_text(fd, fields[i].file, text, sizeof(text)) < 0)
			goto fail;
		if (parse_u32(text, fields[i].hex, &value) < 0) {
			errno = EPROTO;
			goto fail;
		}
		memcpy((char *)&got + fields[i].offset, &value, sizeof(value));
	}
	if (read_text(fd, "driver_version", got.driver_version,
		      sizeof(got.driver_version)) < 0)
		goto fail;
	close(fd);

	*info = got;
	if ((got.abi_version >> 16) != PERFCTR_ABI_MAJOR) {
		errno = EPROTO;
		return -1;
	}
	return 0;

fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int perfctr_info_read(struct perfctr_info *info)
{
	return perfctr_info_read_dir(SYSFS_KERNEL, info);
}

int vperfctr_info(const struct vperfctr *vperfctr, struct perfctr_info *info)
{
	(void)vperfctr;		/* one description for every thread */
	return perfctr_info_read(info);
}

unsigned int perfctr_info_nrctrs(const struct perfctr_info *info)
{
	return info->nrctrs + info->nrfixed;
}

const char *perfctr_info_cpu_name(const struct perfctr_info *info)
{
	switch (info->cpu_type) {
	case PERFCTR_X86_GENERIC:
		return "x86 TSC";
	case PERFCTR_X86_INTEL_ARCH:
		return "Intel architectural perfmon";
	case PERFCTR_X86_AMD:
		return "AMD";
	case PERFCTR_ARM64_GENERIC:
		return "arm64 timer";
	case PERFCTR_ARM64_PMUV3:
		return "arm64 PMUv3";
	}
	return "unknown";
}

/* "rdpmc, rdtsc" for the known bits of @features: 32 bytes hold all. */
static void feature_names(__u32 features, char *buf, size_t size)
{
	static const struct {
		__u32 bit;
		const char *name;
	} names[] = {
		{ PERFCTR_FEATURE_RDPMC, "rdpmc" },
		{ PERFCTR_FEATURE_RDTSC, "rdtsc" },
		{ PERFCTR_FEATURE_PCINT, "pcint" },
		{ PERFCTR_FEATURE_TOPDOWN, "topdown" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(features & names[i].bit))
			continue;
		snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
			 names[i].name);
		len = strlen(buf);
	}
}

int perfctr_info_fprint(FILE *stream, const struct perfctr_info *info)
{
	char features[32];
	int ret;

	feature_names(info->cpu_features, features, sizeof(features));
	ret = fprintf(stream,
		      "abi_version      0x%x\n"
		      "driver_version   %.*s\n"
		      "cpu_type         %u (%s)\n"
		      "cpu_features     0x%x%s%s%s\n"
		      "cpu_khz          %u\n"
		      "tsc_to_cpu_mult  %u\n"
		      "nrctrs           %u\n"
		      "ctr_width        %u\n"
		      "nrfixed          %u\n"
		      "fixed_width      %u\n"
		      "nrmetrics        %u\n",
		      info->abi_version,
		      (int)sizeof(info->driver_version), info->driver_version,
		      info->cpu_type, perfctr_info_cpu_name(info),
		      info->cpu_features, features[0] ? " (" : "", features,
		      features[0] ? ")" : "",
		      info->cpu_khz, info->tsc_to_cpu_mult, info->nrctrs,
		      info->ctr_width, info->nrfixed, info->fixed_width,
		      info->nrmetrics);
	return ret < 0 ? -1 : 0;
}

void perfctr_info_print(const struct perfctr_info *info)
{
	perfctr_info_fprint(stdout, info);
}
