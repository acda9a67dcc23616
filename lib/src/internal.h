/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the library's files share and the public header hides.
 */
#ifndef LIBPERFCTR_INTERNAL_H
#define LIBPERFCTR_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <libperfctr.h>

struct vperfctr {
	/* First: what the inline reads of <perfctr/fast_read.h> see. */
	struct vperfctr_fast fast;
	int fd;
	/*
	 * Set when the handle was opened on the calling thread: only then
	 * do the hardware counters of this CPU belong to the state, so
	 * only then may the fast read use rdpmc.
	 */
	int is_self;
	const struct vperfctr_state *state;	/* NULL: not mapped */
	size_t map_size;
	/*
	 * The process that mapped the page.  A fork copies no mapping of
	 * it, so in a child the address is unmapped, or mapped again to
	 * something else.
	 */
	pid_t map_pid;
};

/* sys.c: the vperfctr_open system call, @tid and all. */
int vperfctr_open_fd(int tid, int creat);

/* control.c */
int vperfctr_control_append(struct vperfctr_control *control, __u32 map,
			    __u64 evntsel, __s64 ireset, int imode);
int vperfctr_stop_fd(int fd);

/* Where the kernel describes its counters: SYSFS_KERNEL/perfctr/. */
#define SYSFS_KERNEL	"/sys/kernel"

/*
 * info.c: perfctr_info_read() from @dir instead of /sys/kernel, which
 * must then hold a perfctr/ directory; for the tests.
 */
int perfctr_info_read_dir(const char *dir, struct perfctr_info *info);

/*
 * compat.c: what perfctr 2.7's functions do, from @dir instead of
 * /sys/kernel, from the CPU list in file @online instead of
 * /sys/devices/system/cpu/online, from @release instead of uname();
 * for the tests.
 */
int vperfctr_open_self_dir(const char *dir, int creat);
int perfctr_abi_check_dir(const char *dir, unsigned int user_abi_version);
struct perfctr_cpus_info *perfctr_cpus_info_read(const char *online);
unsigned int perfctr_linux_version_parse(const char *release);

/*
 * The message of a failed call, if the caller wants one (@err), and -1
 * with errno @errnum: events.c's and native.c's way to fail.
 */
static inline int __attribute__((format(printf, 4, 5)))
fail(int errnum, char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;

	if (err && err_size) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	errno = errnum;
	return -1;
}

/*
 * native.c: a native event name, libpfm4's encoding of it.  Without
 * libpfm4 (native_none.c) a native name is an unknown event (EINVAL) and
 * the listings fail with ENOSYS, each saying why.
 */
enum native_vendor {
	NATIVE_OTHER,
	NATIVE_INTEL,
	NATIVE_AMD,
	NATIVE_ARM64,
};

/* The modes of the modifiers, as the x86 USR and OS bits. */
#define NATIVE_USR		(1ull << 16)
#define NATIVE_OS		(1ull << 17)
#define NATIVE_MODES_SET	(1ull << 63)	/* a mode modifier given */
#define NATIVE_GIVEN(modes)	((modes) << 40)	/* which, =0 or =1 */

struct native_encoding {
	__u64 code;		/* libpfm4's selector, modes as it chose */
	__u64 modes;		/* NATIVE_USR, NATIVE_OS and the rest */
	enum native_vendor vendor;
	const char *pmu;	/* libpfm4's name of the PMU */
	char event[80];		/* libpfm4's "EVENT:UMASK" of it */
};

int native_encode(const char *str, struct native_encoding *enc, char *err,
		  size_t err_size);

/* events.c: a native event's modifier, if it is a mode. */
int native_mode_token(const char *tok, size_t len, __u64 *modes);

/*
 * The PMU libpfm4 found, and its vendor; NULL and NATIVE_OTHER if none
 * (or no libpfm4).
 */
const char *native_pmu_name(enum native_vendor *vendor);

/*
 * counters.c: the general-purpose counters that can count Intel event
 * @evntsel on PMU @pmu (libpfm4's name), bit i for counter i; 0 if any
 * can or the PMU is not in the tables.
 */
__u32 intel_counter_mask(const char *pmu, __u64 evntsel);

/*
 * regions.c: how a thread's first region call opens its counters,
 * region_open_self() (vperfctr_open_tid(0, 0)) unless a test makes up
 * the thread's state page.
 */
struct vperfctr *region_open_self(void);
extern struct vperfctr *(*region_open_counters)(void);

#endif /* LIBPERFCTR_INTERNAL_H */
