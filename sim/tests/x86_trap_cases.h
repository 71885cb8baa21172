/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The doorbell trap decoder test's cases on a real trapped page
 * (x86_trap_cases.c), run by test_x86_decode.c's main.
 */
#ifndef ISIM_TESTS_X86_TRAP_CASES_H
#define ISIM_TESTS_X86_TRAP_CASES_H

/* Part 2: every pinned store encoding into a trapped page, its record
 * checked (the trap is armed by the first page mapped). */
void run_trap_cases(void);
/* Part 3: faults that are not doorbell stores reach the handler that was
 * there before, or SIG_DFL; call it before the trap is armed. */
void run_chain_cases(void);

#endif
