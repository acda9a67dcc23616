/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfex's entry point, which main.c calls, and the one seam its
 * end-to-end test uses: where the description of the machine comes from.
 */
#ifndef PERFEX_PERFEX_H
#define PERFEX_PERFEX_H

struct perfctr_info;

int perfex_main(int argc, char **argv);

/* perfctr_info_read(), unless a test makes up the machine. */
extern int (*perfex_info_read)(struct perfctr_info *info);

#endif /* PERFEX_PERFEX_H */
