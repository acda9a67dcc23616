// SPDX-License-Identifier: GPL-2.0
/*
 * A message, and optionally a file descriptor with it, over a Unix
 * domain socket (SCM_RIGHTS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "fdpass.h"

union fd_cmsg {
	struct cmsghdr header;
	char buf[CMSG_SPACE(sizeof(int))];
};

/**
 * fdpass_send - send a message, and a descriptor with it
 * @sock: a connected Unix domain socket
 * @msg: the message
 * @len: its length
 * @fd: the descriptor to send, or -1 for none
 *
 * Return: 0, or -1 with errno set.
 */
int fdpass_send(int sock, const void *msg, size_t len, int fd)
{
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fd_cmsg control;
	struct cmsghdr *cmsg;
	ssize_t sent;

	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do
		sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -1;
	if ((size_t)sent != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/**
 * fdpass_recv - receive a message, and the descriptor that came with it
 * @sock: a connected Unix domain socket
 * @msg: where the message goes
 * @len: its size; a longer message is an error (EMSGSIZE)
 * @fd: set to the descriptor received (close-on-exec), or -1
 *
 * Return: the message's length, 0 at end of file, or -1 with errno set.
 */
ssize_t fdpass_recv(int sock, void *msg, size_t len, int *fd)
{
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fd_cmsg control;
	struct cmsghdr *cmsg;
	ssize_t got;

	*fd = -1;
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof(control.buf);
	do
		got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;

	for (cmsg = CMSG_FIRSTHDR(&mh); cmsg; cmsg = CMSG_NXTHDR(&mh, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	}
	if (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EMSGSIZE;
		return -1;
	}
	return got;
}
