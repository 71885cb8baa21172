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

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ionic_qp;

/*
 * A two-level radix tree over the 24-bit QP number: 4096 root slots of
 * 4096-entry leaves.  Leaves are never freed before the table itself, so
 * a lookup is two atomic loads; it is inline here because the poll path
 * does one for every CQE.
 */
#define IONIC_QPN_BITS 24
#define IONIC_LEAF_BITS 12
#define IONIC_LEAF_SLOTS (1u << IONIC_LEAF_BITS)
#define IONIC_ROOT_SLOTS (1u << (IONIC_QPN_BITS - IONIC_LEAF_BITS))

struct ionic_qp_leaf {
	_Atomic(struct ionic_qp *) qp[IONIC_LEAF_SLOTS];
};

struct ionic_qp_table {
	_Atomic(struct ionic_qp_leaf *) leaf[IONIC_ROOT_SLOTS];
};

static inline unsigned int ionic_qpn_root(uint32_t qpn)
{
	return qpn >> IONIC_LEAF_BITS;
}

static inline unsigned int ionic_qpn_leaf(uint32_t qpn)
{
	return qpn & (IONIC_LEAF_SLOTS - 1);
}

static inline bool ionic_qpn_valid(uint32_t qpn)
{
	return qpn < (1u << IONIC_QPN_BITS);
}

struct ionic_qp_table *ionic_qp_table_create(void);
void ionic_qp_table_destroy(struct ionic_qp_table *t);
/* Make sure inserting 'qpn' will not need memory. 0 or positive errno. */
int ionic_qp_table_reserve(struct ionic_qp_table *t, uint32_t qpn);
/* 0, or EINVAL for a key >= 2^24, EEXIST if present. */
int ionic_qp_table_insert(struct ionic_qp_table *t, uint32_t qpn,
			  struct ionic_qp *qp);
void ionic_qp_table_remove(struct ionic_qp_table *t, uint32_t qpn);
/* Call fn for every QP in the table (under the context mutex). */
void ionic_qp_table_foreach(struct ionic_qp_table *t,
			    void (*fn)(struct ionic_qp *qp));

static inline struct ionic_qp *
ionic_qp_table_lookup(const struct ionic_qp_table *t, uint32_t qpn)
{
	/* C11 atomic loads take non-const pointers; nothing is written. */
	struct ionic_qp_table *tbl = (struct ionic_qp_table *)t;
	struct ionic_qp_leaf *leaf;

	if (!ionic_qpn_valid(qpn))
		return NULL;

	leaf = atomic_load_explicit(&tbl->leaf[ionic_qpn_root(qpn)],
				    memory_order_acquire);
	if (!leaf)
		return NULL;

	return atomic_load_explicit(&leaf->qp[ionic_qpn_leaf(qpn)],
				    memory_order_acquire);
}

#endif /* IONIC_TABLE_H */
