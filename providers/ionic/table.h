/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * QP-number table: 24-bit QP number -> struct ionic_qp.
 *
 * Insert and remove run under the context mutex and never allocate while
 * holding it (ionic_qp_table_reserve() is called first, outside).  Lookups
 * run from the poll path under a CQ lock only: a QP is removed from the
 * table before its CQEs are cleaned and before it is freed, and the CQ lock
 * orders the two.
 */
#ifndef IONIC_TABLE_H
#define IONIC_TABLE_H

#include <stdint.h>

struct ionic_qp;
struct ionic_qp_table;

struct ionic_qp_table *ionic_qp_table_create(void);
void ionic_qp_table_destroy(struct ionic_qp_table *t);
/* Make sure inserting 'qpn' will not need memory. 0 or positive errno. */
int ionic_qp_table_reserve(struct ionic_qp_table *t, uint32_t qpn);
/* 0, or EINVAL for a key >= 2^24, EEXIST if present. */
int ionic_qp_table_insert(struct ionic_qp_table *t, uint32_t qpn,
			  struct ionic_qp *qp);
void ionic_qp_table_remove(struct ionic_qp_table *t, uint32_t qpn);
struct ionic_qp *ionic_qp_table_lookup(const struct ionic_qp_table *t,
				       uint32_t qpn);

#endif /* IONIC_TABLE_H */
