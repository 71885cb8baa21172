// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the PCIe bus of a host with several NICs.  The
 * platform captures every doorbell store of the process into one FIFO, in
 * program order; each NIC's device must see its own, in that order, and
 * no other.  The pages carry the NIC in their tags (ik_nic_tag), so each
 * device reads through a port of its own: it takes its stores from the
 * FIFO and hands those of other NICs to their queues here, under one
 * lock, so a store never overtakes an older one of the same NIC.
 *
 * A host of one NIC has no bus: its device reads the platform's port as
 * it always did (ik_bus_port).
 *
 * A port's descriptor is an epoll set of the platform's eventfd and the
 * NIC's own, readable while either is.  The engine cannot drain it (a
 * read of an epoll descriptor fails), so the pop that finds nothing
 * drains both counters and looks once more: a store that came in between
 * is popped then, and one that comes later counts again.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>

#include "../common/sys.h"
#include "kpriv.h"

/* Stores for one NIC that another NIC's pop took from the FIFO. */
struct bus_queue {
	struct isim_mmio_store *rec; /* ring of 'cap' records */
	uint32_t head, count, cap;
	int efd; /* counts what was queued */
	int epfd; /* the port's descriptor: efd + the platform's */
};

static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bus_queue bus[ISIM_MAX_NICS];

/* The ring grows with mmap, not malloc: the pop runs in the doorbell
 * trap's signal handler too (a direct-path doorbell applied where it was
 * rung), where only async-signal-safe calls belong. */
static size_t queue_bytes(uint32_t cap)
{
	return cap * sizeof(struct isim_mmio_store);
}

static bool queue_push(struct bus_queue *q, const struct isim_mmio_store *st)
{
	if (q->count == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 256;
		struct isim_mmio_store *r = isim_sys_mmap(
			NULL, queue_bytes(cap), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (r == MAP_FAILED)
			return false;
		for (uint32_t i = 0; i < q->count; i++)
			r[i] = q->rec[(q->head + i) % q->cap];
		if (q->rec)
			isim_sys_munmap(q->rec, queue_bytes(q->cap));
		q->rec = r;
		q->head = 0;
		q->cap = cap;
	}
	q->rec[(q->head + q->count++) % q->cap] = *st;
	return true;
}

/* NIC k's oldest store, 1; 0 when none is pending.  Lock held. */
static int take(unsigned int k, struct isim_mmio_store *st)
{
	struct bus_queue *q = &bus[k];
	uint64_t one = 1;

	if (q->count) {
		*st = q->rec[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		return 1;
	}
	while (ik_mmio_pop(st)) {
		unsigned int owner =
			(unsigned int)((st->page & IK_TAG_NIC_MASK) >>
				       IK_TAG_NIC_SHIFT);

		st->page &= ~IK_TAG_NIC_MASK;
		if (owner == k)
			return 1;
		/* a NIC without a port has no pages: nothing to keep */
		if (bus[owner].epfd < 0 || !queue_push(&bus[owner], st))
			continue;
		if (isim_sys_write(bus[owner].efd, &one, sizeof(one)) < 0) {
			/* saturated: the owner is awake anyway */
		}
	}
	return 0;
}

static void drain(int fd)
{
	uint64_t cnt;

	if (fd >= 0 && isim_sys_read(fd, &cnt, sizeof(cnt)) < 0) {
		/* nonblocking: nothing counted */
	}
}

static int bus_pop(unsigned int k, struct isim_mmio_store *st)
{
	int got;

	pthread_mutex_lock(&bus_lock);
	got = take(k, st);
	if (!got) {
		drain(bus[k].efd);
		drain(ik_plat->mmio.eventfd ? ik_plat->mmio.eventfd() : -1);
		got = take(k, st);
	}
	pthread_mutex_unlock(&bus_lock);
	return got;
}

static int bus_fd(unsigned int k)
{
	return bus[k].epfd;
}

/* The port's functions take no argument: one pair per NIC. */
#define BUS_PORT(k)                                   \
	static int pop##k(struct isim_mmio_store *st) \
	{                                             \
		return bus_pop(k, st);                \
	}                                             \
	static int fd##k(void)                        \
	{                                             \
		return bus_fd(k);                     \
	}
BUS_PORT(0)
BUS_PORT(1)
BUS_PORT(2)
BUS_PORT(3)
BUS_PORT(4)
BUS_PORT(5)
BUS_PORT(6)
BUS_PORT(7)
#undef BUS_PORT

static const struct isim_mmio_port ports[ISIM_MAX_NICS] = {
	{ fd0, pop0 }, { fd1, pop1 }, { fd2, pop2 }, { fd3, pop3 },
	{ fd4, pop4 }, { fd5, pop5 }, { fd6, pop6 }, { fd7, pop7 },
};

static int watch(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void __attribute__((constructor)) bus_init(void)
{
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++)
		bus[k].efd = bus[k].epfd = -1;
}

int ik_bus_port(const struct ik_nic *nic, struct isim_mmio_port *port)
{
	uint32_t nodes[ISIM_MAX_NICS];
	struct bus_queue *q = &bus[nic->index];
	int pfd, rc = 0;

	memset(port, 0, sizeof(*port));
	if (!ik_plat->mmio.pop)
		return 0; /* no stores at all */
	if (isim_nics(nodes) == 1) {
		/* stores to imported pages go on to their exporters */
		port->eventfd = ik_plat->mmio.eventfd;
		port->pop = ik_mmio_pop;
		return 0;
	}
	pfd = ik_plat->mmio.eventfd ? ik_plat->mmio.eventfd() : -1;
	pthread_mutex_lock(&bus_lock);
	if (q->epfd < 0) {
		q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		q->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (q->efd < 0 || q->epfd < 0)
			rc = -errno;
		if (!rc)
			rc = watch(q->epfd, q->efd);
		if (!rc && pfd >= 0)
			rc = watch(q->epfd, pfd);
		if (rc) {
			if (q->efd >= 0)
				isim_sys_close(q->efd);
			if (q->epfd >= 0)
				isim_sys_close(q->epfd);
			q->efd = q->epfd = -1;
		}
	}
	pthread_mutex_unlock(&bus_lock);
	if (!rc)
		*port = ports[nic->index];
	return rc;
}

/* A fork child: the parent's queues are the parent's NICs'. */
void ik_bus_atfork_child(void)
{
	pthread_mutex_init(&bus_lock, NULL);
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct bus_queue *q = &bus[k];

		if (q->efd >= 0)
			isim_sys_close(q->efd);
		if (q->epfd >= 0)
			isim_sys_close(q->epfd);
		/* the parent's ring, ours to reuse: a fork child is
		 * single-threaded, no other port is there to take it */
		if (q->rec)
			syscall(SYS_munmap, q->rec, queue_bytes(q->cap));
		memset(q, 0, sizeof(*q));
		q->efd = q->epfd = -1;
	}
}
