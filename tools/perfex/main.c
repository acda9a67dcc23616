// SPDX-License-Identifier: GPL-2.0
/* perfex: see perfex.c. */
#include "perfex.h"

int main(int argc, char **argv)
{
	return perfex_main(argc, argv);
}
