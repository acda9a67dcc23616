/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_STATUS_H
#define PERFEX_STATUS_H

/* perfex's own failures and bad usage. */
#define PERFEX_EXIT_FAILURE	1
#define PERFEX_EXIT_USAGE	2

int perfex_exit_status(int wait_status);
int perfex_exec_failure_status(int err);

#endif /* PERFEX_STATUS_H */
