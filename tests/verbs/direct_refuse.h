/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The refusals of the direct path's fallback tests (direct_refuse.c).
 */
#ifndef IONIC_TESTS_DIRECT_REFUSE_H
#define IONIC_TESTS_DIRECT_REFUSE_H

/* As $IONIC_TEST_DIRECT_REFUSE says (nondump, pvm-eperm, noptrace; unset:
 * nothing); call before opening a device.  Fails the test when the
 * process cannot be made so. */
void direct_refuse_apply(void);

#endif
