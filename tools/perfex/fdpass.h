/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_FDPASS_H
#define PERFEX_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

int fdpass_send(int sock, const void *msg, size_t len, int fd);
ssize_t fdpass_recv(int sock, void *msg, size_t len, int *fd);

#endif /* PERFEX_FDPASS_H */
