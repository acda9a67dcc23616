/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the library's files share and the public header hides.
 */
#ifndef LIBPERFCTR_INTERNAL_H
#define LIBPERFCTR_INTERNAL_H

#include <stddef.h>
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

#endif /* LIBPERFCTR_INTERNAL_H */
