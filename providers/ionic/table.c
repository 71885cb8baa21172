// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * QP-number table (layout and lookup in table.h).
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
#include <stdlib.h>

#include "table.h"

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

	if (!ionic_qpn_valid(qpn))
		return EINVAL;

	r = ionic_qpn_root(qpn);
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

	if (!ionic_qpn_valid(qpn))
		return EINVAL;

	leaf = atomic_load_explicit(&t->leaf[ionic_qpn_root(qpn)],
				    memory_order_acquire);
	if (!leaf)
		return ENOMEM; /* not reserved: never allocate here */

	l = ionic_qpn_leaf(qpn);
	if (atomic_load_explicit(&leaf->qp[l], memory_order_relaxed))
		return EEXIST;

	/* release: a poller that finds the QP sees it fully initialised */
	atomic_store_explicit(&leaf->qp[l], qp, memory_order_release);
	return 0;
}

void ionic_qp_table_remove(struct ionic_qp_table *t, uint32_t qpn)
{
	struct ionic_qp_leaf *leaf;

	if (!ionic_qpn_valid(qpn))
		return;

	leaf = atomic_load_explicit(&t->leaf[ionic_qpn_root(qpn)],
				    memory_order_acquire);
	if (leaf)
		atomic_store_explicit(&leaf->qp[ionic_qpn_leaf(qpn)], NULL,
				      memory_order_release);
}

void ionic_qp_table_foreach(struct ionic_qp_table *t,
			    void (*fn)(struct ionic_qp *qp))
{
	for (unsigned int r = 0; r < IONIC_ROOT_SLOTS; r++) {
		struct ionic_qp_leaf *leaf =
			atomic_load_explicit(&t->leaf[r], memory_order_acquire);

		for (unsigned int l = 0; leaf && l < IONIC_LEAF_SLOTS; l++) {
			struct ionic_qp *qp = atomic_load_explicit(
				&leaf->qp[l], memory_order_acquire);

			if (qp)
				fn(qp);
		}
	}
}
