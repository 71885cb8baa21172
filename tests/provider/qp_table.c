// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The QP-number table (providers/ionic/table.c): key range, reserve-before-
 * insert, duplicates, removal, and concurrent reservations racing with
 * lock-free lookups.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "table.h"
#include "check.h"

/* The table stores pointers only; fake QPs are distinct addresses. */
static char qps[64];
#define QP(i) ((struct ionic_qp *)(void *)&qps[i])

static void test_basic(void)
{
	struct ionic_qp_table *t = ionic_qp_table_create();
	const uint32_t max = (1u << 24) - 1;

	CHECK(t != NULL);
	if (!t)
		return;

	CHECK(ionic_qp_table_lookup(t, 5) == NULL);
	CHECK(ionic_qp_table_insert(t, 5, QP(1)) == ENOMEM); /* not reserved */
	CHECK(ionic_qp_table_reserve(t, 1u << 24) == EINVAL);
	CHECK(ionic_qp_table_insert(t, 1u << 24, QP(1)) == EINVAL);
	CHECK(ionic_qp_table_lookup(t, 0xffffffff) == NULL);

	CHECK(ionic_qp_table_reserve(t, 5) == 0);
	CHECK(ionic_qp_table_reserve(t, 5) == 0); /* idempotent */
	CHECK(ionic_qp_table_insert(t, 5, QP(1)) == 0);
	CHECK(ionic_qp_table_insert(t, 5, QP(2)) == EEXIST);
	CHECK(ionic_qp_table_lookup(t, 5) == QP(1));
	CHECK(ionic_qp_table_lookup(t, 6) == NULL);
	/* same leaf, no new reservation needed */
	CHECK(ionic_qp_table_insert(t, 4095, QP(3)) == 0);
	/* next leaf is not reserved */
	CHECK(ionic_qp_table_insert(t, 4096, QP(4)) == ENOMEM);

	CHECK(ionic_qp_table_reserve(t, max) == 0);
	CHECK(ionic_qp_table_insert(t, max, QP(5)) == 0);
	CHECK(ionic_qp_table_lookup(t, max) == QP(5));
	CHECK(ionic_qp_table_reserve(t, 0) == 0);
	CHECK(ionic_qp_table_insert(t, 0, QP(6)) == 0);
	CHECK(ionic_qp_table_lookup(t, 0) == QP(6));

	ionic_qp_table_remove(t, 5);
	CHECK(ionic_qp_table_lookup(t, 5) == NULL);
	CHECK(ionic_qp_table_lookup(t, 4095) == QP(3));
	ionic_qp_table_remove(t, 5); /* twice: harmless */
	ionic_qp_table_remove(t, 123456); /* never reserved: harmless */
	ionic_qp_table_remove(t, 1u << 24);
	CHECK(ionic_qp_table_insert(t, 5, QP(7)) == 0);
	CHECK(ionic_qp_table_lookup(t, 5) == QP(7));

	/* destroy with entries left frees everything (checked under ASan) */
	ionic_qp_table_destroy(t);
	ionic_qp_table_destroy(NULL);
}

#define THREADS 4
#define KEYS 2048

static struct ionic_qp_table *shared;

/* Every thread reserves and inserts its own keys spread over shared
 * leaves, while looking up everyone's keys without a lock. */
static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint32_t k, qpn;

	for (k = 0; k < KEYS; k++) {
		qpn = (k * THREADS + id) * 2053u % (1u << 24);
		if (ionic_qp_table_reserve(shared, qpn))
			return (void *)1;
		if (ionic_qp_table_insert(shared, qpn, QP(id)))
			return (void *)1;
		if (ionic_qp_table_lookup(shared, qpn) != QP(id))
			return (void *)1;
		(void)ionic_qp_table_lookup(shared, qpn ^ 1);
	}
	return NULL;
}

static void test_concurrent(void)
{
	pthread_t th[THREADS];
	void *ret;
	uintptr_t i;

	shared = ionic_qp_table_create();
	CHECK(shared != NULL);
	if (!shared)
		return;

	for (i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0);
	for (i = 0; i < THREADS; i++) {
		CHECK(pthread_join(th[i], &ret) == 0);
		CHECK(ret == NULL);
	}
	ionic_qp_table_destroy(shared);
}

int main(void)
{
	test_basic();
	test_concurrent();
	return check_finish();
}
