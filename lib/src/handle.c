// SPDX-License-Identifier: LGPL-2.1
/*
 * The handle: a state's file descriptor and, when the kernel lets us map
 * it, the read-only state page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#include "fast_read.h"
#include "internal.h"

/*
 * What the inline reads of a handle without its own mapped page read:
 * a seq forever odd, as if the kernel were always rewriting it, sends
 * them all to the out-of-line functions.
 */
static const struct vperfctr_state unreadable_page = { .seq = 1 };

/*
 * Map the state page.  A page we cannot map is no error: reads then go
 * through the system call.  A page of a foreign ABI is.  A page older
 * than ABI 6.2 has no 'live' word: the library reads it by system call.
 */
static int map_state(struct vperfctr *vperfctr)
{
	long size = sysconf(_SC_PAGESIZE);
	void *page;

	if (size <= 0)
		return 0;
	page = mmap(NULL, size, PROT_READ, MAP_SHARED, vperfctr->fd, 0);
	if (page == MAP_FAILED)
		return 0;
	if (vperfctr_state_check(page) < 0) {
		munmap(page, size);
		return -1;
	}
	if ((((const struct vperfctr_state *)page)->abi_version & 0xffff) <
	    VPERFCTR_LIVE_MINOR) {
		munmap(page, size);
		return 0;
	}
	vperfctr->state = page;
	vperfctr->map_size = size;
	vperfctr->map_pid = getpid();
	if (vperfctr->is_self)
		vperfctr->fast.own = page;
	return 0;
}

/* A new handle on @fd, which the caller still owns if this fails. */
static struct vperfctr *wrap_fd(int fd, int is_self)
{
	struct vperfctr *vperfctr;
	int err;

	vperfctr = calloc(1, sizeof(*vperfctr));
	if (!vperfctr)
		return NULL;
	vperfctr->fast.own = &unreadable_page;
	vperfctr->fd = fd;
	vperfctr->is_self = is_self;
	if (map_state(vperfctr) < 0) {
		err = errno;
		free(vperfctr);
		errno = err;
		return NULL;
	}
	return vperfctr;
}

struct vperfctr *vperfctr_open_tid(int tid, int creat)
{
	struct vperfctr *vperfctr;
	int fd, err;

	fd = vperfctr_open_fd(tid, creat);
	if (fd < 0)
		return NULL;
	vperfctr = wrap_fd(fd, tid == 0 || tid == gettid());
	if (!vperfctr) {
		err = errno;
		/* Leave the thread as we found it. */
		if (creat)
			_vperfctr_unlink(fd);
		close(fd);
		errno = err;
	}
	return vperfctr;
}

struct vperfctr *vperfctr_open(void)
{
	struct vperfctr *vperfctr;

	vperfctr = vperfctr_open_tid(0, 1);
	if (!vperfctr && errno == EEXIST)
		vperfctr = vperfctr_open_tid(0, 0);
	return vperfctr;
}

struct vperfctr *vperfctr_from_fd(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return NULL;
	if (sfs.f_type != VPERFCTRFS_MAGIC) {
		errno = EINVAL;
		return NULL;
	}
	/* Whose state this is we cannot tell: assume not ours. */
	return wrap_fd(fd, 0);
}

void vperfctr_close(struct vperfctr *vperfctr)
{
	int err = errno;

	if (!vperfctr)
		return;
	/* In a child of the process that mapped it, it is not ours. */
	if (vperfctr->state && vperfctr->map_pid == getpid())
		munmap((void *)vperfctr->state, vperfctr->map_size);
	close(vperfctr->fd);
	free(vperfctr);
	errno = err;
}

int vperfctr_fd(const struct vperfctr *vperfctr)
{
	return vperfctr->fd;
}
