/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The provider's one lock, a spinlock, and a tiny intrusive list for the
 * CQ's per-QP work lists.
 */
#ifndef IONIC_LOCK_H
#define IONIC_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A spinlock, inline: the data path takes two per call, and glibc's
 * pthread_spin_* cost a call through the PLT each.  Taking it is one
 * atomic decrement of 'free' that must reach 0 (a locked decrement and a
 * branch, two instructions less than an exchange and its test); a waiter
 * that missed spins reading until the holder stores 1 again, then
 * retries.  Each waiter decrements at most once per store of 1, so the
 * count cannot run away.  Acquire on lock, release on unlock, so
 * ThreadSanitizer sees the ordering it gives.
 *
 * It always locks.  Objects of a thread domain (the application
 * serialises access itself) are told apart by their own 'lockfree' flag:
 * the data path (post.c, wr.c, poll.c, cq.c) is specialised on it when
 * the object is created and then takes no lock (short of the cold
 * software flush, poll_error.c); the control path locks regardless,
 * which is correct either way and costs nothing that matters there.
 */
struct ionic_lock {
	int free; /* 1 free, 0 held, < 0 held and wanted */
};

static inline void ionic_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	asm volatile("yield" ::: "memory");
#endif
}

static inline void ionic_lock_init(struct ionic_lock *l)
{
	l->free = 1;
}

static inline void ionic_lock(struct ionic_lock *l)
{
	while (__builtin_expect(
		__atomic_sub_fetch(&l->free, 1, __ATOMIC_ACQUIRE) != 0, 0)) {
		while (__atomic_load_n(&l->free, __ATOMIC_RELAXED) <= 0)
			ionic_cpu_relax();
	}
}

static inline bool ionic_trylock(struct ionic_lock *l)
{
	int one = 1;

	return __atomic_compare_exchange_n(&l->free, &one, 0, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void ionic_unlock(struct ionic_lock *l)
{
	__atomic_store_n(&l->free, 1, __ATOMIC_RELEASE);
}

/* Is it held (by anyone)?  For tests and assertions. */
static inline bool ionic_lock_held(const struct ionic_lock *l)
{
	return __atomic_load_n(&l->free, __ATOMIC_RELAXED) != 1;
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
