/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_NATIVE_H
#define PERFEX_NATIVE_H

#include <stdio.h>

int perfex_name_holds(const char *name, const char *word);
int perfex_list_native(FILE *out, const char *filter, int verbose);
int perfex_list_pmus(FILE *out);
void perfex_native_info(FILE *out);

#endif /* PERFEX_NATIVE_H */
