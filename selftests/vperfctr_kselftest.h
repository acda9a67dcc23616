/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h as every perfctr test program includes it.  The
 * wrappers that TEST() and TEST_F() expand to leave parameters unused and
 * keep locals across setjmp(); keep -Wextra quiet about both, here and in
 * the tests after it.
 */
#ifndef VPERFCTR_KSELFTEST_H
#define VPERFCTR_KSELFTEST_H

#pragma GCC diagnostic ignored "-Wunused-parameter"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#include "kselftest_harness.h"

#endif /* VPERFCTR_KSELFTEST_H */
