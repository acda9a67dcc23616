// SPDX-License-Identifier: LGPL-2.1
/*
 * The machine description: read from a made-up sysfs directory, named
 * and printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "internal.h"
#include "tap.h"

/* A /sys/kernel look-alike: @root, with root/perfctr/ in it. */
static char root[64];
static char dir[96];

static void put(const char *file, const char *text)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

static void drop(const char *file)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	unlink(path);
}

static void cleanup(void)
{
	static const char *const files[] = {
		"abi_version", "driver_version", "driver", "cpu_type",
		"cpu_features", "cpu_khz", "tsc_to_cpu_mult", "nrctrs",
		"ctr_width", "nrfixed", "fixed_width", "nrmetrics",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		drop(files[i]);
	if (rmdir(dir) < 0 || rmdir(root) < 0)
		tap_diag("could not remove the test directory");
}

/* The files of a Skylake desktop, as the kernel writes them. */
static void skylake(void)
{
	put("abi_version", "0x60001\n");
	put("driver_version", "6.0\n");
	put("driver", "Intel architectural perfmon\n");
	put("cpu_type", "1\n");
	put("cpu_features", "0x7\n");
	put("cpu_khz", "4008000\n");
	put("tsc_to_cpu_mult", "1\n");
	put("nrctrs", "4\n");
	put("ctr_width", "48\n");
	put("nrfixed", "3\n");
	put("fixed_width", "48\n");
}

/* A Sapphire Rapids core: fixed counter 3, TopDown levels 1 and 2. */
static void sapphire_rapids(void)
{
	put("abi_version", "0x60002\n");
	put("driver_version", "6.0\n");
	put("driver", "Intel architectural perfmon\n");
	put("cpu_type", "1\n");
	put("cpu_features", "0xf\n");
	put("cpu_khz", "2000000\n");
	put("tsc_to_cpu_mult", "1\n");
	put("nrctrs", "8\n");
	put("ctr_width", "48\n");
	put("nrfixed", "4\n");
	put("fixed_width", "48\n");
	put("nrmetrics", "8\n");
}

/* QEMU TCG: TSC only; "%#x" writes 0 as "0". */
static void tsc_only(void)
{
	put("abi_version", "0x60001\n");
	put("driver_version", "6.0\n");
	put("driver", "x86 TSC\n");
	put("cpu_type", "0\n");
	put("cpu_features", "0x2\n");
	put("cpu_khz", "2893000\n");
	put("tsc_to_cpu_mult", "1\n");
	put("nrctrs", "0\n");
	put("ctr_width", "0\n");
	put("nrfixed", "0\n");
	put("fixed_width", "0\n");
}

static void refused(int err, const char *what);

static void test_read(void)
{
	struct perfctr_info info;

	skylake();
	memset(&info, 0xff, sizeof(info));
	tap_is_int(perfctr_info_read_dir(root, &info), 0, "Skylake: read");
	tap_ok(info.abi_version == 0x60001 && info.cpu_type == 1 &&
	       info.cpu_features == 7 && info.cpu_khz == 4008000 &&
	       info.tsc_to_cpu_mult == 1 && info.nrctrs == 4 &&
	       info.ctr_width == 48 && info.nrfixed == 3 &&
	       info.fixed_width == 48 && info.nrmetrics == 0,
	       "Skylake: every field; no nrmetrics file (a kernel before "
	       "TopDown): 0");
	tap_is_str(info.driver_version, "6.0", "Skylake: driver_version");

	sapphire_rapids();
	memset(&info, 0xff, sizeof(info));
	tap_ok(perfctr_info_read_dir(root, &info) == 0 &&
	       info.cpu_features == 0xf && info.nrfixed == 4 &&
	       info.nrmetrics == 8,
	       "Sapphire Rapids: TopDown, fixed counter 3, 8 metrics");
	put("nrmetrics", "0x8\n");
	refused(EPROTO, "nrmetrics written in hexadecimal");
	drop("nrmetrics");

	tsc_only();
	put("cpu_features", "0\n");
	tap_is_int(perfctr_info_read_dir(root, &info), 0, "TSC only: read");
	tap_ok(info.cpu_type == PERFCTR_X86_GENERIC && info.nrctrs == 0 &&
	       info.cpu_khz == 2893000 && info.cpu_features == 0,
	       "TSC only: fields; 0 in hexadecimal without 0x");
	put("cpu_features", "0x2");
	put("nrctrs", "0");
	tap_is_int(perfctr_info_read_dir(root, &info), 0,
		   "files without a newline: read");

	put("abi_version", "0x6ffff\n");
	tap_is_int(perfctr_info_read_dir(root, &info), 0,
		   "a newer minor ABI: read");
	put("abi_version", "60001\n");
	tap_ok(perfctr_info_read_dir(root, &info) == 0 &&
	       info.abi_version == 0x60001,
	       "abi_version is hexadecimal, 0x or not");
}

static void refused(int err, const char *what)
{
	struct perfctr_info info;
	int ret;

	errno = 0;
	ret = perfctr_info_read_dir(root, &info);
	tap_ok(ret == -1 && errno == err, "%s: %s", what, strerror(err));
	if (ret != -1 || errno != err)
		printf("#   got %d, %s\n", ret, strerror(errno));
}

static void test_errors(void)
{
	struct perfctr_info info;
	char missing[96];

	skylake();
	put("abi_version", "0x50000\n");
	refused(EPROTO, "ABI major 5");
	memset(&info, 0, sizeof(info));
	perfctr_info_read_dir(root, &info);
	tap_ok(info.abi_version == 0x50000 && info.nrctrs == 4,
	       "ABI major 5: info filled in all the same");

	skylake();
	drop("nrfixed");
	refused(EPROTO, "a file missing");
	skylake();
	put("nrctrs", "4 counters\n");
	refused(EPROTO, "decimal field with text after the number");
	put("nrctrs", "0x4\n");
	refused(EPROTO, "decimal field written in hexadecimal");
	put("nrctrs", "-1\n");
	refused(EPROTO, "negative");
	put("nrctrs", "4294967296\n");
	refused(EPROTO, "above 32 bits");
	put("nrctrs", "4294967295\n");
	tap_is_int(perfctr_info_read_dir(root, &info), 0, "2^32-1: read");
	put("nrctrs", "\n");
	refused(EPROTO, "empty field");
	put("nrctrs", " 4\n");
	refused(EPROTO, "leading blank");
	skylake();
	put("cpu_features", "0x\n");
	refused(EPROTO, "0x without digits");
	put("cpu_features", "0x1g\n");
	refused(EPROTO, "not hexadecimal");
	skylake();
	put("cpu_khz", "1234567890123456789012345678901234567890123456789012"
	    "345678901234567890\n");
	refused(EPROTO, "a file too long");
	skylake();
	put("driver_version", "0123456789012345678901234567890\n");
	refused(EPROTO, "driver_version longer than 31 characters");
	put("driver_version", "012345678901234567890123456789\n");
	tap_ok(perfctr_info_read_dir(root, &info) == 0 &&
	       strlen(info.driver_version) == 30,
	       "driver_version of 30 characters: read");

	snprintf(missing, sizeof(missing), "%s/nowhere", root);
	errno = 0;
	tap_ok(perfctr_info_read_dir(missing, &info) == -1 && errno == ENOENT,
	       "no sysfs: ENOENT");
	skylake();
	chmod(dir, 0);
	if (access(dir, R_OK) == 0) {
		tap_skip("perfctr directory unreadable: EACCES", "run as root");
	} else {
		errno = 0;
		tap_ok(perfctr_info_read_dir(root, &info) == -1 &&
		       errno == EACCES,
		       "perfctr directory unreadable: EACCES");
	}
	chmod(dir, 0755);
}

static void test_no_perfctr(void)
{
	struct perfctr_info info;
	char empty[96];

	snprintf(empty, sizeof(empty), "%s/empty", root);
	mkdir(empty, 0755);
	errno = 0;
	tap_ok(perfctr_info_read_dir(empty, &info) == -1 && errno == ENOSYS,
	       "sysfs without perfctr: ENOSYS");
	rmdir(empty);
}

/* What this machine's kernel says, whatever it is. */
static void test_this_machine(void)
{
	struct vperfctr vperfctr = { .fd = -1 };
	struct perfctr_info info, again;
	int ret, err;

	errno = 0;
	ret = perfctr_info_read(&info);
	err = errno;
	if (access("/sys/kernel/perfctr", F_OK) == 0) {
		tap_is_int(ret, 0, "this kernel has perfctr: read");
	} else {
		tap_ok(ret == -1 && err == (access("/sys/kernel", F_OK) ?
					    ENOENT : ENOSYS),
		       "this kernel has no perfctr: ENOSYS (ENOENT without "
		       "sysfs)");
	}
	errno = 0;
	tap_ok(vperfctr_info(&vperfctr, &again) == ret && errno == err &&
	       (ret < 0 || !memcmp(&info, &again, sizeof(info))),
	       "vperfctr_info: the same as perfctr_info_read");
}

static const struct perfctr_info skylake_info = {
	.abi_version = 0x60001,
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.cpu_features = 7,
	.cpu_khz = 4008000,
	.tsc_to_cpu_mult = 1,
	.nrctrs = 4,
	.ctr_width = 48,
	.nrfixed = 3,
	.fixed_width = 48,
	.driver_version = "6.0",
};

static const char skylake_text[] =
	"abi_version      0x60001\n"
	"driver_version   6.0\n"
	"cpu_type         1 (Intel architectural perfmon)\n"
	"cpu_features     0x7 (rdpmc, rdtsc, pcint)\n"
	"cpu_khz          4008000\n"
	"tsc_to_cpu_mult  1\n"
	"nrctrs           4\n"
	"ctr_width        48\n"
	"nrfixed          3\n"
	"fixed_width      48\n"
	"nrmetrics        0\n";

/* arm64 does not know its CPU clock: cpu_khz 0, said as it is. */
static const struct perfctr_info arm64_info = {
	.abi_version = 0x60001,
	.cpu_type = PERFCTR_ARM64_PMUV3,
	.cpu_features = 7,
	.nrctrs = 6,
	.ctr_width = 32,
	.nrfixed = 1,
	.fixed_width = 64,
	.driver_version = "6.0",
};

static void test_names(void)
{
	struct perfctr_info info = skylake_info;

	tap_is_int(perfctr_info_nrctrs(&info), 7,
		   "nrctrs: general-purpose and fixed");
	tap_is_str(perfctr_info_cpu_name(&info), "Intel architectural perfmon",
		   "cpu_name: Intel");
	info.cpu_type = PERFCTR_X86_AMD;
	tap_is_str(perfctr_info_cpu_name(&info), "AMD", "cpu_name: AMD");
	info.cpu_type = PERFCTR_X86_GENERIC;
	tap_is_str(perfctr_info_cpu_name(&info), "x86 TSC",
		   "cpu_name: TSC only");
	info.cpu_type = PERFCTR_ARM64_PMUV3;
	tap_is_str(perfctr_info_cpu_name(&info), "arm64 PMUv3",
		   "cpu_name: arm64 PMUv3");
	info.cpu_type = PERFCTR_ARM64_GENERIC;
	tap_is_str(perfctr_info_cpu_name(&info), "arm64 timer",
		   "cpu_name: arm64, timer only");
	info.cpu_type = 42;
	tap_is_str(perfctr_info_cpu_name(&info), "unknown",
		   "cpu_name: a type this library does not know");
}

static void test_fprint(void)
{
	struct perfctr_info info = skylake_info;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	f = open_memstream(&text, &size);
	tap_ok(f && perfctr_info_fprint(f, &info) == 0 && fclose(f) == 0,
	       "fprint: 0");
	tap_is_str(text, skylake_text, "fprint: Skylake");
	free(text);

	memset(&info, 0, sizeof(info));
	info.abi_version = 0x60001;
	info.cpu_features = PERFCTR_FEATURE_RDTSC | 0x100;
	memcpy(info.driver_version, "0123456789abcdef0123456789abcdef", 32);
	text = NULL;
	f = open_memstream(&text, &size);
	perfctr_info_fprint(f, &info);
	fclose(f);
	tap_is_str(text,
		   "abi_version      0x60001\n"
		   "driver_version   0123456789abcdef0123456789abcdef\n"
		   "cpu_type         0 (x86 TSC)\n"
		   "cpu_features     0x102 (rdtsc)\n"
		   "cpu_khz          0\n"
		   "tsc_to_cpu_mult  0\n"
		   "nrctrs           0\n"
		   "ctr_width        0\n"
		   "nrfixed          0\n"
		   "fixed_width      0\n"
		   "nrmetrics        0\n",
		   "fprint: TSC only, unknown feature bits, unterminated "
		   "driver_version");
	free(text);

	info = arm64_info;
	text = NULL;
	f = open_memstream(&text, &size);
	perfctr_info_fprint(f, &info);
	fclose(f);
	tap_is_str(text,
		   "abi_version      0x60001\n"
		   "driver_version   6.0\n"
		   "cpu_type         4 (arm64 PMUv3)\n"
		   "cpu_features     0x7 (rdpmc, rdtsc, pcint)\n"
		   "cpu_khz          0\n"
		   "tsc_to_cpu_mult  0\n"
		   "nrctrs           6\n"
		   "ctr_width        32\n"
		   "nrfixed          1\n"
		   "fixed_width      64\n"
		   "nrmetrics        0\n",
		   "fprint: arm64 PMUv3, CPU clock unknown");
	free(text);

	info = skylake_info;
	info.cpu_features |= PERFCTR_FEATURE_TOPDOWN;
	info.nrfixed = 4;
	info.nrmetrics = 8;
	text = NULL;
	f = open_memstream(&text, &size);
	perfctr_info_fprint(f, &info);
	fclose(f);
	tap_ok(text && strstr(text, "cpu_features     0xf (rdpmc, rdtsc, "
			      "pcint, topdown)\n") &&
	       strstr(text, "nrfixed          4\nfixed_width      48\n"
		      "nrmetrics        8\n"),
	       "fprint: TopDown, its feature named, its metrics counted");
	free(text);

	memset(&info, 0, sizeof(info));
	info.abi_version = 0x60001;
	text = NULL;
	f = open_memstream(&text, &size);
	perfctr_info_fprint(f, &info);
	fclose(f);
	tap_ok(text && strstr(text, "cpu_features     0x0\n"),
	       "fprint: no features, no parentheses");
	free(text);

	f = fopen("/dev/full", "w");
	if (!f) {
		tap_skip("fprint to a full device: -1, ENOSPC", "no /dev/full");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	errno = 0;
	tap_ok(perfctr_info_fprint(f, &skylake_info) == -1 && errno == ENOSPC,
	       "fprint to a full device: -1, ENOSPC");
	fclose(f);
}

static void print_info(const void *info)
{
	perfctr_info_print(info);
}

/* perfctr_info_print(): stdout, caught in a pipe. */
static void test_print(void)
{
	tap_is_str(tap_stdout_of(print_info, &skylake_info), skylake_text,
		   "print: the same on stdout");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/perfctr-info-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "%s/perfctr", root);
	mkdir(dir, 0755);

	test_read();
	test_errors();
	test_no_perfctr();
	test_this_machine();
	test_names();
	test_fprint();
	test_print();

	cleanup();
	return tap_done();
}
