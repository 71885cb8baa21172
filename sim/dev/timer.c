// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: timers - the requester's ACK timeouts and RNR waits,
 * the retry of busy fabric peers, frames a fault holds back, link changes
 * and the firmware-failure triggers.  The engine thread runs them after
 * each batch of work and sleeps until the nearest one.
 */
#include "../common/trace.h"
#include "dev.h"
#include "qp.h"

#define TIMER_BACKLOG_MS 1 /* retry period of a busy fabric peer */
/* an ACK timeout waits for the wire this often, and this long at most */
#define TIMER_WIRE_POLL_NS 1000000ull
#define TIMER_WIRE_WAIT_MAX_NS 10000000000ull

/* Tell the host when the link went down or came back (fault injection). */
static void timer_link(struct idev *dev)
{
	bool up = ifab_link_up();

	if (up == dev->link_up)
		return;
	dev->link_up = up;
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_EVENT, "link %s", up ? "up" : "down");
	if (dev->cfg.ops && dev->cfg.ops->link)
		dev->cfg.ops->link(dev->cfg.host, up);
}

/*
 * An ACK timeout has expired with nothing for d on its endpoint.  A real
 * wire delivers what was sent within microseconds; ours may hold frames
 * for d while the host does not run the thread that carries them (the
 * UDP relay, fabric/udp_wire.c), and d's own requests may still wait,
 * unread, in the queue of a peer whose engine the host has not run
 * (fabric/fab_unix.c).  Then the timeout waits for the wire,
 * up to TIMER_WIRE_WAIT_MAX_NS past its deadline (a wire that is stuck
 * for good still fails the QP): true means "not yet".  Frames the fault
 * injector lost or holds never reach the wire, so they time out as
 * before; an RNR wait is a timer of our own.  Likewise on a lossless
 * wire (no fault configured) while our own frames wait in the backlog:
 * the receiver paused us, nothing was lost.
 */
static bool timer_wire_wait(struct idev_qp *d, uint64_t now)
{
	struct idev_req *r = &d->req;

	/* our own frames paused by a lossless wire have not left yet */
	if (r->rnr_wait || !(ifab_wire_holds(&d->ep) ||
			     (ifab_lossless() && ifab_backlogged(&d->ep))))
		return false;
	if (!r->wire_wait_from)
		r->wire_wait_from = r->deadline;
	if (now - r->wire_wait_from > TIMER_WIRE_WAIT_MAX_NS)
		return false;
	r->deadline = now + TIMER_WIRE_POLL_NS;
	return true;
}

uint64_t idev_timers_next(struct idev_qp *const *qps, uint64_t now)
{
	uint64_t next = ifab_link_next_change(), due;
	struct idev_qp *d;

	for (d = *qps; d; d = d->eng_next) {
		if (d->req.deadline && (!next || d->req.deadline < next))
			next = d->req.deadline;
		if (ifab_backlogged(&d->ep) && !d->eng_pollout &&
		    (!next || now + TIMER_BACKLOG_MS * 1000000ull < next))
			next = now + TIMER_BACKLOG_MS * 1000000ull;
		/* frames a fault holds back (both clocks are monotonic) */
		due = ifab_fault_next_due(&d->ep);
		if (due && (!next || due < next))
			next = due;
	}
	return next;
}

/*
 * Send what waits for the wire: the backlog, held frames that are due,
 * the responder's queued READ responses (resp_out.c).  While the backlog
 * waits for a connected peer to drain, the engine watches the endpoint
 * for EPOLLOUT.  True when responses are left that the wire would take
 * now (the engine comes back at once).
 */
static bool timer_output(struct idev *dev, struct idev_qp *d)
{
	bool more = false, out;

	if (ifab_pending(&d->ep))
		ifab_flush(&d->ep);
	if (idev_resp_out_pending(d))
		more = idev_resp_out_run(d, false);
	out = ifab_pollout(&d->ep);
	if (out != d->eng_pollout && dev->engine)
		idev_engine_pollout(dev->engine, d, out);
	return more;
}

/* Take in what waits on every endpoint of the device. */
static void timer_drain_all(struct idev *dev, struct idev_qp *qps)
{
	for (struct idev_qp *q = qps; q; q = q->eng_next)
		while (idev_rx_batch(dev, q->qpn) == IDEV_RX_BATCH)
			;
}

int idev_timers_run(struct idev *dev, struct idev_qp *const *qps, bool db_more)
{
	/* first: a failure frees the QPs the loops below walk */
	int fatal_ms = idev_fatal_poll(dev);
	uint64_t now = idev_now_ns(), next;
	struct idev_qp *d;
	bool more = false, drained = false;
	int64_t ms;

	timer_link(dev);
	/* output first: what a peer answers to it may beat a deadline */
	for (d = *qps; d; d = d->eng_next)
		more |= timer_output(dev, d);
	for (d = *qps; d; d = d->eng_next) {
		if (d->req.deadline && d->req.deadline <= now) {
			/* a peer QP of this device answers what it has
			 * before we decide its answer is late */
			if (!drained)
				timer_drain_all(dev, *qps);
			drained = true;
			/*
			 * Packets already queued on the endpoint arrived before
			 * the deadline; an ACK among them must win over the
			 * timer, as it would on a wire.  Without this, an engine
			 * starved for longer than the QP timeout (a loaded CI
			 * machine, valgrind) counted phantom retries.
			 */
			while (idev_rx_batch(dev, d->qpn) == IDEV_RX_BATCH)
				;
			if (d->req.deadline && d->req.deadline <= now &&
			    !timer_wire_wait(d, now))
				idev_req_timer(d);
		}
		if (ifab_pending(&d->ep))
			ifab_flush(&d->ep);
	}
	if (db_more || more)
		return 0;
	next = idev_timers_next(qps, now);
	if (!next)
		return fatal_ms;
	now = idev_now_ns();
	if (next <= now)
		return 0;
	ms = (int64_t)((next - now + 999999) / 1000000);
	if (ms > 60000)
		ms = 60000;
	return fatal_ms >= 0 && fatal_ms < ms ? fatal_ms : (int)ms;
}
