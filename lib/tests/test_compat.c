// SPDX-License-Identifier: LGPL-2.1
/*
 * perfctr 2.7's functions that need no system call: the ABI check, the
 * description through a descriptor, the CPU masks, the printing of a
 * control, the kernel's version and the tables of processor events.
 * Made-up sysfs files where the answer depends on them, this machine's
 * where any answer will do and the two ways must agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "internal.h"
#include "machines.h"
#include "tap.h"

static char root[64];		/* a /sys/kernel look-alike */
static char dir[96];		/* root/perfctr */
static char online[96];		/* a CPU list file */

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

static void put(const char *file, const char *text)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	put_file(path, text);
}

static const char *const fields[] = {
	"abi_version", "driver_version", "cpu_type", "cpu_features",
	"cpu_khz", "tsc_to_cpu_mult", "nrctrs", "ctr_width", "nrfixed",
	"fixed_width",
};

/* A kernel of ABI @abi, Intel otherwise. */
static void sysfs(const char *abi)
{
	put("abi_version", abi);
	put("driver_version", "6.0\n");
	put("cpu_type", "1\n");
	put("cpu_features", "0x7\n");
	put("cpu_khz", "3000000\n");
	put("tsc_to_cpu_mult", "1\n");
	put("nrctrs", "8\n");
	put("ctr_width", "48\n");
	put("nrfixed", "3\n");
	put("fixed_width", "48\n");
}

static void test_abi_check(void)
{
	char abi[32], other[96];
	size_t i;

	snprintf(abi, sizeof(abi), "%#x\n", PERFCTR_ABI_VERSION);
	sysfs(abi);
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, PERFCTR_ABI_VERSION) == 0 &&
	       errno == 0, "abi check: this header's version: 0");
	tap_is_int(perfctr_abi_check_dir(root, (PERFCTR_ABI_MAJOR << 16) | 0),
		   0, "abi check: another minor of the caller: 0");
	snprintf(abi, sizeof(abi), "%#x\n", (PERFCTR_ABI_MAJOR << 16) | 0x99);
	sysfs(abi);
	tap_is_int(perfctr_abi_check_dir(root, PERFCTR_ABI_VERSION), 0,
		   "abi check: another minor of the kernel: 0");
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, 0x06000500) == -1 &&
	       errno == EPROTO,
	       "abi check: perfctr 2.7.21.1's 0x06000500: EPROTO");
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, (PERFCTR_ABI_MAJOR + 1) << 16) ==
	       -1 && errno == EPROTO,
	       "abi check: another major of the caller: EPROTO");
	snprintf(abi, sizeof(abi), "%#x\n", (PERFCTR_ABI_MAJOR + 1) << 16);
	sysfs(abi);
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, PERFCTR_ABI_VERSION) == -1 &&
	       errno == EPROTO,
	       "abi check: another major of the kernel: EPROTO");
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, (PERFCTR_ABI_MAJOR + 1) << 16) ==
	       -1 && errno == EPROTO,
	       "abi check: a kernel this library cannot read: EPROTO, "
	       "whatever the caller's");

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char path[160];

		snprintf(path, sizeof(path), "%s/%s", dir, fields[i]);
		unlink(path);
	}
	rmdir(dir);
	errno = 0;
	tap_ok(perfctr_abi_check_dir(root, PERFCTR_ABI_VERSION) == -1 &&
	       errno == ENOSYS, "abi check: no perfctr in sysfs: ENOSYS");
	snprintf(other, sizeof(other), "%s/nowhere", root);
	errno = 0;
	tap_ok(perfctr_abi_check_dir(other, PERFCTR_ABI_VERSION) == -1 &&
	       errno == ENOENT, "abi check: no sysfs: ENOENT");
	mkdir(dir, 0755);
}

/*
 * perfctr_info(), _perfctr_abi_check_fd() and perfctr_abi_check_fd() on
 * this machine: what perfctr_info_read() says, whatever the descriptor.
 */
static void test_this_machine(void)
{
	struct perfctr_info want, got;
	int ret, err, fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int fds[] = { fd, -1, 12345 };
	size_t i;

	memset(&want, 0, sizeof(want));
	errno = 0;
	ret = perfctr_info_read(&want);
	err = errno;
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		memset(&got, 0, sizeof(got));
		errno = 0;
		tap_ok(perfctr_info(fds[i], &got) == ret && errno == err &&
		       !memcmp(&got, &want, sizeof(got)),
		       "perfctr_info(%d): what perfctr_info_read() says (%s)",
		       fds[i], ret ? strerror(err) : "read");
		errno = 0;
		tap_ok(_perfctr_abi_check_fd(fds[i], PERFCTR_ABI_VERSION) ==
		       ret && errno == err,
		       "_perfctr_abi_check_fd(%d): as perfctr_info_read()",
		       fds[i]);
		errno = 0;
		tap_ok(perfctr_abi_check_fd(fds[i]) == ret && errno == err,
		       "perfctr_abi_check_fd(%d): this header's version",
		       fds[i]);
	}
	if (ret == 0) {
		errno = 0;
		tap_ok(_perfctr_abi_check_fd(fd, (PERFCTR_ABI_MAJOR + 1) << 16)
		       == -1 && errno == EPROTO,
		       "_perfctr_abi_check_fd, another major: EPROTO");
	} else {
		tap_skip("_perfctr_abi_check_fd, another major: EPROTO",
			 "no perfctr here");
	}
	close(fd);
}

/* The CPU list @text read, or NULL with errno. */
static struct perfctr_cpus_info *cpus_of(const char *text)
{
	put_file(online, text);
	return perfctr_cpus_info_read(online);
}

static int mask_is(const struct perfctr_cpu_mask *mask, unsigned int nrwords,
		   const unsigned int *words)
{
	unsigned int i;

	if (mask->nrwords != nrwords)
		return 0;
	for (i = 0; i < nrwords; i++)
		if (mask->mask[i] != words[i])
			return 0;
	return 1;
}

/* What perfctr_cpus_info_fprint() writes for @info. */
static char *cpus_text(const struct perfctr_cpus_info *info)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f || perfctr_cpus_info_fprint(f, info) < 0 || fclose(f) != 0)
		abort();
	return text;
}

static void test_cpus(void)
{
	static const unsigned int four[] = { 0xf }, none[] = { 0 },
		none2[] = { 0, 0 }, gaps[] = { 0x8000000d, 0x3 },
		last32[] = { 0, 1 };
	static const char *const bad[] = {
		"", "x\n", "0-\n", "3-1\n", "0,\n", ",0\n", "0 1\n", "-1\n",
		"0-3x\n", "1048576\n", "0-99999999999\n",
	};
	struct perfctr_cpus_info *info;
	char *text;
	size_t i;

	info = cpus_of("0-3\n");
	tap_ok(info && mask_is(info->cpus, 1, four) &&
	       mask_is(info->cpus_forbidden, 1, none),
	       "cpus \"0-3\": one word, 0xf; none forbidden");
	text = info ? cpus_text(info) : NULL;
	tap_is_str(text, "cpus             0-3 (4 CPUs)\n"
			 "cpus_forbidden   none (0 CPUs)\n",
		   "cpus \"0-3\": printed");
	free(text);
	free(info);

	info = cpus_of("0,2-3,31-33\n");
	tap_ok(info && mask_is(info->cpus, 2, gaps) &&
	       mask_is(info->cpus_forbidden, 2, none2),
	       "cpus \"0,2-3,31-33\": two words, bit 32 * j + i in "
	       "mask[j]; forbidden as wide, empty");
	text = info ? cpus_text(info) : NULL;
	tap_is_str(text, "cpus             0,2-3,31-33 (6 CPUs)\n"
			 "cpus_forbidden   none (0 CPUs)\n",
		   "cpus \"0,2-3,31-33\": printed as ranges");
	free(text);
	free(info);

	info = cpus_of("32");
	tap_ok(info && mask_is(info->cpus, 2, last32),
	       "cpus \"32\", no newline: CPU 32 alone, in the second word");
	text = info ? cpus_text(info) : NULL;
	tap_is_str(text, "cpus             32 (1 CPU)\n"
			 "cpus_forbidden   none (0 CPUs)\n",
		   "cpus \"32\": printed, one CPU");
	free(text);
	free(info);

	info = cpus_of("\n");
	tap_ok(info && mask_is(info->cpus, 1, none),
	       "cpus \"\\n\": an empty list, one word");
	free(info);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		info = cpus_of(bad[i]);
		tap_ok(!info && errno == EPROTO, "cpus \"%.*s\": EPROTO",
		       (int)strcspn(bad[i], "\n"), bad[i]);
		free(info);
	}
	unlink(online);
	errno = 0;
	info = perfctr_cpus_info_read(online);
	tap_ok(!info && errno == ENOENT, "cpus: no such file: ENOENT");
	free(info);
}

static unsigned int count_cpus(const struct perfctr_cpu_mask *mask)
{
	unsigned int i, n = 0;

	for (i = 0; i < mask->nrwords; i++)
		n += __builtin_popcount(mask->mask[i]);
	return n;
}

/* This machine's CPUs, as glibc counts them, through every way in. */
static void test_this_machines_cpus(void)
{
	struct vperfctr vperfctr = { .fd = -1 };
	struct perfctr_cpus_info *a, *b;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	a = perfctr_cpus_info(-1);
	tap_ok(a && (long)count_cpus(a->cpus) == n &&
	       count_cpus(a->cpus_forbidden) == 0,
	       "perfctr_cpus_info: the %ld online CPUs, none forbidden", n);
	b = vperfctr_cpus_info(&vperfctr);
	tap_ok(a && b && b->cpus->nrwords == a->cpus->nrwords &&
	       !memcmp(b->cpus->mask, a->cpus->mask,
		       a->cpus->nrwords * sizeof(unsigned int)),
	       "vperfctr_cpus_info: the same");
	free(a);
	free(b);
}

static void print_control(const void *control)
{
	perfctr_cpu_control_print(control);
}

static void print_cpus(const void *cpus_info)
{
	perfctr_cpus_info_print(cpus_info);
}

static const char control_text[] =
	"tsc_on           1\n"
	"nractrs          2\n"
	"nrictrs          1\n"
	"pmc_map[0]       0\n"
	"evntsel[0]       0x4100c0\n"
	"pmc_map[1]       0x40000001\n"
	"evntsel[1]       0x30000\n"
	"pmc_map[2]       0x80000001\n"
	"evntsel[2]       0x0\n"
	"ireset[2]        -1000000\n";

static void test_control_print(void)
{
	struct perfctr_cpus_info *info;
	struct perfctr_cpu_control c;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	memset(&c, 0, sizeof(c));
	c.tsc_on = 1;
	c.nractrs = 2;
	c.nrictrs = 1;
	c.evntsel[0] = 0x4100c0;
	c.pmc_map[1] = PERFCTR_MAP_X86_FIXED | 1;
	c.evntsel[1] = 0x30000;
	c.pmc_map[2] = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK;
	c.ireset[2] = -1000000;
	c.evntsel[5] = 0x99;		/* not a counter of the control */
	f = open_memstream(&text, &size);
	tap_ok(f && perfctr_cpu_control_fprint(f, &c) == 0 && fclose(f) == 0,
	       "control fprint: 0");
	tap_is_str(text, control_text, "control fprint: a-mode GP and "
		   "fixed, i-mode software, one field a line");
	free(text);
	tap_is_str(tap_stdout_of(print_control, &c), control_text,
		   "control print: the same on stdout");

	memset(&c, 0, sizeof(c));
	text = NULL;
	f = open_memstream(&text, &size);
	perfctr_cpu_control_fprint(f, &c);
	fclose(f);
	tap_is_str(text, "tsc_on           0\nnractrs          0\n"
		   "nrictrs          0\n", "control fprint: all off");
	free(text);

	put_file(online, "0-1\n");
	info = perfctr_cpus_info_read(online);
	tap_is_str(info ? tap_stdout_of(print_cpus, info) : NULL,
		   "cpus             0-1 (2 CPUs)\n"
		   "cpus_forbidden   none (0 CPUs)\n",
		   "cpus print: on stdout");

	f = fopen("/dev/full", "w");
	if (!f || !info) {
		tap_skip("fprint to a full device: -1, ENOSPC", "no /dev/full");
		tap_skip("fprint to a full device: -1, ENOSPC", "no /dev/full");
	} else {
		setvbuf(f, NULL, _IONBF, 0);
		errno = 0;
		tap_ok(perfctr_cpu_control_fprint(f, &c) == -1 &&
		       errno == ENOSPC,
		       "control fprint to a full device: -1, ENOSPC");
		errno = 0;
		tap_ok(perfctr_cpus_info_fprint(f, info) == -1 &&
		       errno == ENOSPC,
		       "cpus fprint to a full device: -1, ENOSPC");
	}
	if (f)
		fclose(f);
	free(info);
	unlink(online);
}

static void test_version(void)
{
	static const struct {
		const char *release;
		unsigned int code;
	} good[] = {
		{ "6.12.0", 0x060c00 },
		{ "6.12.57-perfctr+", 0x060c39 },
		{ "6.12", 0x060c00 },
		{ "6.12-rc1", 0x060c00 },
		{ "6.12.", 0x060c00 },
		{ "2.6.32.71", 0x020620 },
		{ "4.9.337", 0x0409ff },
		{ "255.255.255", 0xffffff },
	};
	static const char *const bad[] = {
		"", "6", "6.", ".12.0", "x.12.0", "6.x", "256.0.0", "6.256.0",
		"-6.12.0", "6-12-0",
	};
	struct utsname uts;
	size_t i;

	tap_ok(PERFCTR_KERNEL_VERSION(6, 12, 0) == 0x060c00 &&
	       PERFCTR_KERNEL_VERSION(2, 6, 18) == 0x020612 &&
	       PERFCTR_KERNEL_VERSION(4, 9, 337) == 0x0409ff,
	       "PERFCTR_KERNEL_VERSION: v << 16 + p << 8 + s, s at most 255");
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		tap_is_int(perfctr_linux_version_parse(good[i].release),
			   good[i].code, "version of \"%s\"", good[i].release);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		tap_ok(perfctr_linux_version_parse(bad[i]) == 0 &&
		       errno == EINVAL, "version of \"%s\": 0, EINVAL",
		       bad[i]);
	}
	if (uname(&uts) < 0)
		abort();
	tap_ok(perfctr_linux_version_code() != 0 &&
	       perfctr_linux_version_code() ==
	       perfctr_linux_version_parse(uts.release),
	       "perfctr_linux_version_code: this kernel's, %s", uts.release);
}

/*
 * The event sets: the hardware events perfctr_event_list() names, with
 * the selectors perfctr_event_parse() gives them.
 */
static void check_event_set(const struct perfctr_info *info, const char *what,
			    unsigned int nevents)
{
	const struct perfctr_event_set *set;
	const struct perfctr_event_desc *desc;
	struct perfctr_event_spec spec;
	unsigned int i, j, listed = 0, found = 0, well_formed = 1;

	set = perfctr_cpu_event_set(info->cpu_type);
	tap_ok(set && set->cpu_type == info->cpu_type &&
	       set->event_prefix && !strcmp(set->event_prefix, "") &&
	       !set->include && set->nevents == nevents &&
	       (nevents ? set->events != NULL : set->events == NULL),
	       "event set, %s: cpu_type, prefix \"\", %u events", what,
	       nevents);
	if (!set)
		return;
	for (j = 0; j < set->nevents; j++) {
		const struct perfctr_event *e = &set->events[j];
		const struct perfctr_unit_mask *um = e->unit_mask;

		if (!e->name || !*e->name || !e->description ||
		    e->counters_set != 0xffff ||
		    (um && (um->type != perfctr_um_type_fixed ||
			    um->nvalues != 1 ||
			    um->values[0].value != um->default_value ||
			    !um->values[0].description)))
			well_formed = 0;
	}
	tap_ok(well_formed, "event set, %s: names, descriptions, any "
	       "counter, fixed unit masks", what);

	for (i = 0; (desc = perfctr_event_list(info, i)); i++) {
		__u64 sel;

		if (desc->kind != PERFCTR_EVENT_HARDWARE)
			continue;
		listed++;
		if (perfctr_event_parse(&spec, desc->name, info, NULL, 0) < 0)
			continue;
		sel = spec.evntsel & 0xffff;
		for (j = 0; j < set->nevents; j++) {
			const struct perfctr_event *e = &set->events[j];
			__u64 um = e->unit_mask ? e->unit_mask->default_value
						: 0;

			if ((e->evntsel | (um << 8)) == sel) {
				found++;
				break;
			}
		}
	}
	tap_ok(listed == nevents && found == listed,
	       "event set, %s: the %u hardware events of "
	       "perfctr_event_list(), same selectors (%u found)", what,
	       listed, found);
}

static void test_event_sets(void)
{
	const struct perfctr_event_set *set;

	check_event_set(&intel, "Intel", 7);
	check_event_set(&amd, "AMD", 6);
	check_event_set(&arm64_pmuv3, "arm64 PMUv3", 6);
	check_event_set(&tsc_only, "TSC only", 0);
	check_event_set(&arm64_timer, "arm64 timer", 0);
	set = perfctr_cpu_event_set(PERFCTR_X86_INTEL_ARCH);
	tap_ok(set && !strcmp(set->events[0].name, "UNHALTED_CORE_CYCLES") &&
	       set->events[0].evntsel == 0x3c && !set->events[0].unit_mask &&
	       !strcmp(set->events[3].name, "LLC_REFERENCES") &&
	       set->events[3].evntsel == 0x2e &&
	       set->events[3].unit_mask->default_value == 0x4f,
	       "event set, Intel: the SDM's names and encodings");
	errno = 0;
	tap_ok(!perfctr_cpu_event_set(5) && errno == EINVAL,
	       "event set of cpu_type 5: NULL, EINVAL");
	errno = 0;
	tap_ok(!perfctr_cpu_event_set(16) && errno == EINVAL,
	       "event set of 2.7's P4 model 3 (16): NULL, EINVAL");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/perfctr-compat-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/perfctr", root);
	snprintf(online, sizeof(online), "%s/online", root);
	mkdir(dir, 0755);

	test_abi_check();
	test_this_machine();
	test_cpus();
	test_this_machines_cpus();
	test_control_print();
	test_version();
	test_event_sets();

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char path[160];

		snprintf(path, sizeof(path), "%s/%s", dir, fields[i]);
		unlink(path);
	}
	if (rmdir(dir) < 0 || rmdir(root) < 0)
		tap_diag("could not remove the test directory");
	return tap_done();
}
