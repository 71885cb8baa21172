/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Per-queue spinlocks that compile to nothing at run time for objects
 * created through a parent domain with a thread domain (the application
 * then serialises access itself), and a tiny intrusive list for the CQ's
 * per-QP work lists.
 */
#ifndef IONIC_LOCK_H
#define IONIC_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct ionic_lock {
	pthread_spinlock_t spin;
	bool lockfree;
};

static inline int ionic_lock_init(struct ionic_lock *l, bool lockfree)
{
	l->lockfree = lockfree;
	return pthread_spin_init(&l->spin, PTHREAD_PROCESS_PRIVATE);
}

static inline void ionic_lock_destroy(struct ionic_lock *l)
{
	pthread_spin_destroy(&l->spin);
}

static inline void ionic_lock(struct ionic_lock *l)
{
	if (!l->lockfree)
		pthread_spin_lock(&l->spin);
}

static inline bool ionic_trylock(struct ionic_lock *l)
{
	return l->lockfree || !pthread_spin_trylock(&l->spin);
}

static inline void ionic_unlock(struct ionic_lock *l)
{
	if (!l->lockfree)
		pthread_spin_unlock(&l->spin);
}

/* Circular doubly linked list; an unlinked node points to itself. */
struct ionic_list {
	struct ionic_list *next, *prev;
};

static inline void ionic_list_init(struct ionic_list *n)
{
	n->next = n;
	n->prev = n;
}

static inline bool ionic_list_empty(const struct ionic_list *head)
{
	return head->next == head;
}

/* A node that is linked somewhere (nodes are always initialised). */
static inline bool ionic_list_linked(const struct ionic_list *n)
{
	return n->next != n;
}

static inline void ionic_list_del(struct ionic_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	ionic_list_init(n);
}

static inline void ionic_list_add_tail(struct ionic_list *head,
				       struct ionic_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

/* Link at the tail unless already linked (queues a QP for work once). */
static inline void ionic_list_add_once(struct ionic_list *head,
				       struct ionic_list *n)
{
	if (!ionic_list_linked(n))
		ionic_list_add_tail(head, n);
}

#endif /* IONIC_LOCK_H */
