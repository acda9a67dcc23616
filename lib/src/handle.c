// SPDX-License-Identifier: LGPL-2.1
/*
 * The handle: a state's file descriptor and, when the kernel lets us map
 * it, the read-only state page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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
	if (vperfctr->is_self)
		vperfctr->fast.own = page;
	return 0;
}

/*
 * The open handles, for fork().  The kernel does not copy a state page's
 * mapping into a child, as perf does not copy its own; and a handle the
 * child inherits names its parent's state, whose counts the counters of
 * the child's CPU are not.  So in the child every handle forgets its
 * page and reads through the system call.  The lock is held across
 * fork(), so the child finds the list whole.
 */
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vperfctr *handles;
static pthread_once_t handles_atfork_once = PTHREAD_ONCE_INIT;

static void handles_before_fork(void)
{
	pthread_mutex_lock(&handles_lock);
}

static void handles_after_fork_parent(void)
{
	pthread_mutex_unlock(&handles_lock);
}

static void handles_after_fork_child(void)
{
	struct vperfctr *vperfctr;

	for (vperfctr = handles; vperfctr; vperfctr = vperfctr->next) {
		vperfctr->fast.own = &unreadable_page;
		vperfctr->is_self = 0;
		vperfctr->state = NULL;
		vperfctr->map_size = 0;
	}
	pthread_mutex_unlock(&handles_lock);
}

static void handles_register_atfork(void)
{
	pthread_atfork(handles_before_fork, handles_after_fork_parent,
		       handles_after_fork_child);
}

/* Only a handle with a mapped page needs to be on the list. */
static void handles_add(struct vperfctr *vperfctr)
{
	pthread_once(&handles_atfork_once, handles_register_atfork);
	pthread_mutex_lock(&handles_lock);
	vperfctr->next = handles;
	if (handles)
		handles->prev = vperfctr;
	handles = vperfctr;
	pthread_mutex_unlock(&handles_lock);
}

static void handles_remove(struct vperfctr *vperfctr)
{
	pthread_mutex_lock(&handles_lock);
	if (vperfctr->prev)
		vperfctr->prev->next = vperfctr->next;
	else if (handles == vperfctr)
		handles = vperfctr->next;
	if (vperfctr->next)
		vperfctr->next->prev = vperfctr->prev;
	vperfctr->prev = vperfctr->next = NULL;
	pthread_mutex_unlock(&handles_lock);
}

/* A new handle on @fd, which the caller still owns if this fails. */
struct vperfctr *vperfctr_wrap_fd(int fd, int is_self)
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
	if (vperfctr->state)
		handles_add(vperfctr);
	return vperfctr;
}

struct vperfctr *vperfctr_open_tid(int tid, int creat)
{
	struct vperfctr *vperfctr;
	int fd, err;

	fd = vperfctr_open_fd(tid, creat);
	if (fd < 0)
		return NULL;
	vperfctr = vperfctr_wrap_fd(fd, tid == 0 || tid == gettid());
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
	return vperfctr_wrap_fd(fd, 0);
}

void vperfctr_close(struct vperfctr *vperfctr)
{
	int err = errno;

	if (!vperfctr)
		return;
	handles_remove(vperfctr);
	if (vperfctr->state)
		munmap((void *)vperfctr->state, vperfctr->map_size);
	close(vperfctr->fd);
	free(vperfctr);
	errno = err;
}

int vperfctr_fd(const struct vperfctr *vperfctr)
{
	return vperfctr->fd;
}
