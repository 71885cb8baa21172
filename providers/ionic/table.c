// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * QP-number table: a two-level radix tree over the 24-bit QP number, 4096
 * root slots of 4096-entry leaves.
 *
 * Why this shape: the poll path looks a QP up for every completion while
 * holding only a CQ lock, so lookups must be two loads and take no lock.
 * Leaves are therefore never freed before the table itself, and every
 * slot is read and written atomically.  QP creation reserves its leaf
 * before taking the context mutex, so nothing allocates under that mutex;
 * two concurrent reservations of the same leaf are settled with a
 * compare-and-swap (the loser frees its copy).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "table.h"

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

static inline unsigned int root_index(uint32_t qpn)
{
	return qpn >> IONIC_LEAF_BITS;
}

static inline unsigned int leaf_index(uint32_t qpn)
{
	return qpn & (IONIC_LEAF_SLOTS - 1);
}

static inline bool qpn_valid(uint32_t qpn)
{
	return qpn < (1u << IONIC_QPN_BITS);
}

struct ionic_qp_table *ionic_qp_table_create(void)
{
	/* zeroed memory is a valid "all NULL" state for atomic pointers */
	return calloc(1, sizeof(struct ionic_qp_table));
}

void ionic_qp_table_destroy(struct ionic_qp_table *t)
{
	unsigned int i;

	if (!t)
		return;

	for (i = 0; i < IONIC_ROOT_SLOTS; i++)
		free(atomic_load_explicit(&t->leaf[i], memory_order_relaxed));
	free(t);
}

int ionic_qp_table_reserve(struct ionic_qp_table *t, uint32_t qpn)
{
	struct ionic_qp_leaf *leaf, *expected = NULL;
	unsigned int r;

	if (!qpn_valid(qpn))
		return EINVAL;

	r = root_index(qpn);
	if (atomic_load_explicit(&t->leaf[r], memory_order_acquire))
		return 0;

	leaf = calloc(1, sizeof(*leaf));
	if (!leaf)
		return ENOMEM;

	/* Publish the zeroed leaf; someone else may have been faster. */
	if (!atomic_compare_exchange_strong_explicit(&t->leaf[r], &expected,
						     leaf, memory_order_acq_rel,
						     memory_order_acquire))
		free(leaf);

	return 0;
}

int ionic_qp_table_insert(struct ionic_qp_table *t, uint32_t qpn,
			  struct ionic_qp *qp)
{
	struct ionic_qp_leaf *leaf;
	unsigned int l;

	if (!qpn_valid(qpn))
		return EINVAL;

	leaf = atomic_load_explicit(&t->leaf[root_index(qpn)],
				    memory_order_acquire);
	if (!leaf)
		return ENOMEM; /* not reserved: never allocate here */

	l = leaf_index(qpn);
	if (atomic_load_explicit(&leaf->qp[l], memory_order_relaxed))
		return EEXIST;

	/* release: a poller that finds the QP sees it fully initialised */
	atomic_store_explicit(&leaf->qp[l], qp, memory_order_release);
	return 0;
}

void ionic_qp_table_remove(struct ionic_qp_table *t, uint32_t qpn)
{
	struct ionic_qp_leaf *leaf;

	if (!qpn_valid(qpn))
		return;

	leaf = atomic_load_explicit(&t->leaf[root_index(qpn)],
				    memory_order_acquire);
	if (leaf)
		atomic_store_explicit(&leaf->qp[leaf_index(qpn)], NULL,
				      memory_order_release);
}

struct ionic_qp *ionic_qp_table_lookup(const struct ionic_qp_table *t,
				       uint32_t qpn)
{
	/* C11 atomic loads take non-const pointers; nothing is written. */
	struct ionic_qp_table *tbl = (struct ionic_qp_table *)t;
	struct ionic_qp_leaf *leaf;

	if (!qpn_valid(qpn))
		return NULL;

	leaf = atomic_load_explicit(&tbl->leaf[root_index(qpn)],
				    memory_order_acquire);
	if (!leaf)
		return NULL;

	return atomic_load_explicit(&leaf->qp[leaf_index(qpn)],
				    memory_order_acquire);
}
