// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Asynchronous events the provider acts on.  libibverbs calls
 * ionic_async_event() for every event ibv_get_async_event() returns to the
 * application, before the application sees it.
 *
 * IBV_EVENT_DEVICE_FATAL (docs/device-contract.md §9.1): the firmware failed
 * and lost every queue, so no CQE will ever come for the work outstanding.
 * Every QP of the context is flushed in software, as a modify to ERR does
 * (each outstanding and each later work request completes once, with
 * IBV_WC_WR_FLUSH_ERR, at the next poll of its CQ), and arming a CQ fails
 * from now on (ionic_req_notify_cq), since no event can follow.  QPs of
 * a thread domain are left alone: nothing orders this thread with the one
 * that owns them, which sees the same event and destroys them.
 */
#include "qp_priv.h"
#include "table.h"

static void ionic_qp_device_dead(struct ionic_qp *qp)
{
	if (qp->lockfree)
		return;
	ionic_qp_request_flush(qp);
}

void ionic_async_event(struct ibv_context *ibctx, struct ibv_async_event *ev)
{
	struct ionic_ctx *ctx = to_ionic_ctx(ibctx);

	if (ev->event_type != IBV_EVENT_DEVICE_FATAL || ionic_ctx_fatal(ctx))
		return;
	__atomic_store_n(&ctx->fatal, true, __ATOMIC_RELEASE);
	verbs_err(&ctx->vctx, "device fatal: every QP flushes");
	/* the mutex keeps QPs from going away under the walk */
	pthread_mutex_lock(&ctx->mutex);
	ionic_qp_table_foreach(ctx->qp_table, ionic_qp_device_dead);
	pthread_mutex_unlock(&ctx->mutex);
}
