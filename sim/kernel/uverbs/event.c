// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: async event files and completion channels.
 *
 * Each is a SOCK_SEQPACKET socketpair: one record per event, so a read of
 * 16 (async) or 8 (completion) bytes returns exactly one event and the
 * application gets real blocking, poll() and O_NONBLOCK behaviour.
 *
 * Event accounting follows the kernel: an event counts as "reported" when
 * userspace reads it; unread events of a destroyed object are dropped from
 * the queue (ib_uverbs_release_ucq / _uevent).  The model counts records it
 * queued and, at destroy time, removes the object's unread records through
 * its own duplicate of the read end and subtracts them.  libibverbs waits
 * in ibv_destroy_* until the application acked exactly that many.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/hwstats.h"
#include "../../common/sys.h"
#include "../kpriv.h"

int ik_evq_create(struct ik_event_queue *q)
{
	struct stat st;
	int sv[2];

	q->rd = q->wr = q->peek = -1;
	/* O_CLOEXEC like the kernel's event files */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	q->rd = sv[0];
	q->wr = sv[1];
	/* nothing the application writes should pile up in the model's end */
	shutdown(q->wr, SHUT_RD);
	q->peek = isim_sys_fcntl(q->rd, F_DUPFD_CLOEXEC, 0);
	if (q->peek < 0 || isim_sys_fstat(q->rd, &st) < 0) {
		int rc = -errno;

		ik_evq_close(q);
		isim_sys_close(q->rd);
		q->rd = -1;
		return rc;
	}
	q->ino = (unsigned long)st.st_ino;
	return 0;
}

/* Close the model's ends; the read end belongs to the application. */
void ik_evq_close(struct ik_event_queue *q)
{
	if (q->wr >= 0)
		isim_sys_close(q->wr);
	if (q->peek >= 0)
		isim_sys_close(q->peek);
	q->wr = q->peek = -1;
}

static bool evq_send(struct ik_event_queue *q, const void *rec, size_t len)
{
	if (!q || q->wr < 0)
		return false;
	/* never block the engine, never die of SIGPIPE: a full or closed
	 * queue loses the event, which is then not counted */
	return isim_sys_send(q->wr, rec, len, MSG_NOSIGNAL | MSG_DONTWAIT) ==
	       (ssize_t)len;
}

static unsigned int evq_drain_obj(struct ik_event_queue *q, size_t recsz,
				  uint64_t handle)
{
	struct rec {
		uint8_t b[16];
		ssize_t n;
	} *keep = NULL;
	size_t nkeep = 0, cap = 0;
	unsigned int dropped = 0;

	if (!q || q->peek < 0)
		return 0;
	for (;;) {
		uint8_t buf[16];
		uint64_t h;
		ssize_t n =
			isim_sys_recv(q->peek, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		memcpy(&h, buf, sizeof(h));
		if ((size_t)n == recsz && h == handle) {
			dropped++;
			continue;
		}
		if (nkeep == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct rec *k = realloc(keep, ncap * sizeof(*k));

			if (!k)
				break; /* out of memory: lose the rest */
			keep = k;
			cap = ncap;
		}
		memcpy(keep[nkeep].b, buf, (size_t)n);
		keep[nkeep++].n = n;
	}
	/* other objects' events go back in their original order */
	for (size_t i = 0; i < nkeep; i++)
		isim_sys_send(q->wr, keep[i].b, (size_t)keep[i].n,
			      MSG_NOSIGNAL | MSG_DONTWAIT);
	free(keep);
	return dropped;
}

void ik_evq_drop_unread(struct ik_event_queue *q, size_t recsz, uint64_t handle,
			uint32_t *reported)
{
	unsigned int n = evq_drain_obj(q, recsz, handle);

	*reported -= n < *reported ? n : *reported;
}

static void post_async(struct ik_file *f, uint64_t element,
		       enum ibv_event_type ev, uint32_t *counter)
{
	struct ib_uverbs_async_event_desc d = {
		.element = element,
		.event_type = (uint32_t)ev,
	};
	bool ok;

	if (!f || f->dead || !f->has_ucontext)
		return;
	ok = evq_send(&f->async_q, &d, sizeof(d));
	if (ok)
		(*counter)++;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "async type=%d element=0x%llx %s",
			   (int)ev, (unsigned long long)element,
			   ok ? "queued" : "lost");
}

void ik_post_async_qp(struct ik_qp *qp, enum ibv_event_type ev)
{
	post_async(qp->uobj.file, qp->uobj.user_handle, ev,
		   &qp->events_reported);
}

void ik_post_async_cq(struct ik_cq *cq, enum ibv_event_type ev)
{
	post_async(cq->uobj.file, cq->uobj.user_handle, ev,
		   &cq->async_events_reported);
}

void ik_post_comp_event(struct ik_cq *cq)
{
	struct ib_uverbs_comp_event_desc d = {
		.cq_handle = cq->uobj.user_handle,
	};
	bool ok;

	if (!cq->channel || cq->uobj.file->dead)
		return;
	ok = evq_send(cq->channel, &d, sizeof(d));
	if (ok)
		cq->comp_events_reported++;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "comp cq_handle=0x%llx cqid=%u %s",
			   (unsigned long long)d.cq_handle,
			   cq->hw[0].present ? cq->hw[0].cqid : cq->hw[1].cqid,
			   ok ? "queued" : "lost");
}

/* ---- the device's events ------------------------------------------------- */

/*
 * The firmware failed (docs/kernel-contract.md §13), as ionic_kill_ibdev
 * handles it: the admin queue is KILLED for every open context, every CQ
 * gets a completion event (so a program asleep on a channel wakes up and
 * polls), and each context gets IBV_EVENT_DEVICE_FATAL for port 1.  A
 * dead device stays so for contexts opened later; after a reset those
 * work.
 */
static void nic_killed(struct ik_nic *nic, bool reset)
{
	nic->dead = !reset;
	for (struct ik_file *f = nic->files; f; f = f->next) {
		uint32_t counted = 0;

		if (f->dead || f->killed)
			continue;
		f->killed = true;
		for (uint32_t h = 0; h < f->nhandles; h++) {
			struct ik_uobj *u = f->handles[h];

			if (u && u->type == IK_UOBJ_CQ)
				ik_post_comp_event((struct ik_cq *)u);
		}
		post_async(f, 1, IBV_EVENT_DEVICE_FATAL, &counted);
	}
}

/* One EQE from the device (docs/kernel-contract.md §13): what the driver's
 * event handlers do with it.  Unknown codes and ids are dropped, as there. */
static void dev_event(void *host, const struct idev_eqe *e)
{
	struct ik_nic *nic = host;
	struct ik_qp *qp;
	struct ik_cq *cq;

	if (e->type == IDEV_EQE_TYPE_DEV) {
		nic_killed(nic, e->code == IDEV_EQE_DEV_RESET);
		return;
	}
	if (e->type == IDEV_EQE_TYPE_CQ) {
		cq = e->qid < nic->cqid_limit ? nic->cqs[e->qid] : NULL;
		if (!cq)
			return;
		if (e->code == IDEV_EQE_CQ_NOTIFY)
			ik_post_comp_event(cq);
		else if (e->code == IDEV_EQE_CQ_ERR)
			ik_post_async_cq(cq, IBV_EVENT_CQ_ERR);
		return;
	}
	qp = e->type == IDEV_EQE_TYPE_QP ? ik_qp_lookup(nic, e->qid) : NULL;
	if (!qp)
		return;
	switch (e->code) {
	case IDEV_EQE_QP_SQ_DRAIN:
		ik_post_async_qp(qp, IBV_EVENT_SQ_DRAINED);
		break;
	case IDEV_EQE_QP_COMM_EST:
		ik_post_async_qp(qp, IBV_EVENT_COMM_EST);
		break;
	case IDEV_EQE_QP_LAST_WQE:
		ik_post_async_qp(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
		break;
	case IDEV_EQE_QP_ERR:
		ik_post_async_qp(qp, IBV_EVENT_QP_FATAL);
		break;
	case IDEV_EQE_QP_ERR_REQUEST:
		ik_post_async_qp(qp, IBV_EVENT_QP_REQ_ERR);
		break;
	case IDEV_EQE_QP_ERR_ACCESS:
		ik_post_async_qp(qp, IBV_EVENT_QP_ACCESS_ERR);
		break;
	default:
		break;
	}
}

/* The NIC's Ethernet link went down or came up: what IB core does with
 * the netdev's carrier change (docs/kernel-contract.md §13): port 1 DOWN
 * or ACTIVE in query_port, and IBV_EVENT_PORT_ERR / PORT_ACTIVE to every
 * context, the port number as the element. */
static void dev_link(void *host, bool up)
{
	struct ik_nic *nic = host;

	nic->link_down = !up;
	for (struct ik_file *f = nic->files; f; f = f->next)
		post_async(f, 1,
			   up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
			   &f->port_events_reported);
}

static const struct idev_host_ops dev_ops = {
	.event = dev_event,
	.link = dev_link,
};

int ik_nic_dev_create(struct ik_nic *nic)
{
	struct idev_config cfg = {
		.prof = nic->prof,
		.node = nic->node,
		.lock = &nic->lock,
		/* every hold of nic->lock is ik_nic_lock()'s (kpriv.h) */
		.direct = ik_direct_enabled(),
		.ops = &dev_ops,
		.host = nic,
		/* the CMB is the device's memory (cmb.c made it first) */
		.cmb = nic->cmb_base,
		.cmb_size = nic->cmb_base ? (uint64_t)nic->prof.cmb_pages *
						    IK_PAGE_SIZE :
					    0,
	};
	const char *rundir = getenv(ISIM_ENV_RUNDIR);
	/* the host's hardware counters, shared by its processes */
	struct isim_hwstats_page *stats = isim_hwstats(&cfg.stats_fd);
	/* the platform's port, or this NIC's share of it (bus.c); stores
	 * to imported doorbell pages go on to their exporters (import.c) */
	int rc = ik_bus_port(nic, &cfg.mmio);

	if (rc)
		return rc;
	cfg.stats = stats ? stats->v[nic->index] : NULL;
	cfg.stats_nic = nic->index;

	/* the launcher's run directory holds the trigger file */
	if (nic->prof.fatal_trigger && rundir &&
	    asprintf(&nic->fatal_file, "%s/%s", rundir, ISIM_FATAL_FILE) < 0)
		return -ENOMEM;
	cfg.fatal_file = nic->fatal_file;
	return idev_create(&cfg, &nic->dev);
}
