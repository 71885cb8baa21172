// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric faults: a wire that loses, duplicates, reorders,
 * corrupts and delays frames at given rates, a link that goes down (and
 * up again), and a NIC that stops answering, all on demand (struct
 * ifab_faults, from the firmware profile).
 *
 * Every frame a NIC sends passes ifab_fault_tx() after the capture saw it
 * (so a capture shows what was sent, lost or not):
 *   - link down: dropped;
 *   - loss: dropped;
 *   - corruption: one random bit flipped from the IP header on (the
 *     receiving NIC's parser drops it: IPv4 checksum or ICRC);
 *   - duplication: sent twice;
 *   - reordering: held back for a random 0.2..2 ms, so frames sent after
 *     it overtake it;
 *   - delay: every frame held back this long (reordered ones longer).
 * Held frames sit in the endpoint's timed queue (ifab_fault_release, from
 * ifab_flush; ifab_fault_next_due tells the engine when to come back).
 * On receive, a link that is down and a muted NIC drop every frame.
 *
 * Decisions come from a per-endpoint xorshift generator seeded from the
 * run's seed, the node, the QPN and how many endpoints came before it:
 * the same seed makes the same decisions for the same sequence of
 * frames, and a QP number used again draws new ones.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric.h"
#include "fabric_priv.h"

#define PPM 1000000u
#define REORDER_MIN_NS 200000ull
#define REORDER_SPAN_NS 1800000ull

static struct ifab_faults faults;
static bool faults_on;
/* the NIC's link and what it has seen (one per process, shared by the
 * NICs of --nics) */
static uint64_t tx_frames, rx_frames;
/* endpoints opened so far: a QP number used again draws new decisions */
static uint64_t ep_opens;
static bool link_down;
static uint64_t link_up_at; /* ns; 0: down for good */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ifab_faults_set(const struct ifab_faults *f)
{
	bool on = f->loss_ppm || f->dup_ppm || f->reorder_ppm ||
		  f->corrupt_ppm || f->delay_us || f->link_down_after ||
		  f->mute_after;

	/*
	 * Off and staying off: nothing to reset (the counters and the link
	 * state are only used while faults are on).  With several NICs in
	 * one process each device's creation calls in while the engines
	 * of the NICs opened before read this state: rewriting it there
	 * is a data race (verbs-nics under TSan), if an idle one.  Faults
	 * on with several NICs still share this one state (a limitation:
	 * sim/README.md, "Faults").
	 */
	if (!on && !faults_on)
		return;
	faults = *f;
	faults_on = on;
	tx_frames = rx_frames = 0;
	ep_opens = 0;
	link_down = false;
	link_up_at = 0;
}

bool ifab_faults_active(void)
{
	return faults_on;
}

/* splitmix64, to spread (seed, node, qpn) over the generator's state */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rnd(struct ifab_ep *ep)
{
	uint64_t x = ep->rng;

	if (!x)
		x = mix(faults.seed ^ ((uint64_t)ep->node << 32) ^ ep->qpn ^
			(++ep_opens << 40)) |
		    1;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ep->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static bool chance(struct ifab_ep *ep, uint32_t ppm)
{
	return ppm && (uint32_t)(rnd(ep) % PPM) < ppm;
}

static bool link_is_down(uint64_t now)
{
	if (link_down && link_up_at && now >= link_up_at)
		link_down = false;
	return link_down;
}

/* Keep a copy of the frame until 'due', in due order (equal: in order). */
static bool hold(struct ifab_ep *ep, const uint8_t gid[16], uint32_t qpn,
		 const void *buf, size_t len, uint64_t due)
{
	struct ifab_pend *p = ifab_pend_new(gid, qpn, buf, len), **pp;

	if (!p)
		return false;
	p->due = due;
	for (pp = &ep->held; *pp && (*pp)->due <= due; pp = &(*pp)->next)
		;
	p->next = *pp;
	*pp = p;
	return true;
}

enum ifab_result ifab_fault_tx(struct ifab_ep *ep, const uint8_t gid[16],
			       uint32_t qpn, const void *buf, size_t len)
{
	uint8_t copy[IFAB_FRAME_MAX];
	uint64_t now = now_ns(), extra = 0;
	bool dup;
	int n;

	if (link_is_down(now))
		goto drop;
	if (faults.link_down_after && ++tx_frames == faults.link_down_after) {
		link_down = true;
		link_up_at = faults.link_down_ms ?
				     now + faults.link_down_ms * 1000000ull :
				     0;
		goto drop;
	}
	if (chance(ep, faults.loss_ppm))
		goto drop;
	if (len > sizeof(copy))
		return ifab_send_wire(ep, gid, qpn, buf, len);
	memcpy(copy, buf, len);
	if (len > 14 && chance(ep, faults.corrupt_ppm)) {
		size_t bit = 14 * 8 + rnd(ep) % ((len - 14) * 8);

		copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		ep->tx_fault_corrupt++;
	}
	dup = chance(ep, faults.dup_ppm);
	if (chance(ep, faults.reorder_ppm)) {
		extra = REORDER_MIN_NS + rnd(ep) % REORDER_SPAN_NS;
		ep->tx_fault_reorder++;
	}
	if (dup)
		ep->tx_fault_dup++;
	for (n = dup ? 2 : 1; n; n--) {
		if (faults.delay_us || extra) {
			if (!hold(ep, gid, qpn, copy, len,
				  now + faults.delay_us * 1000ull + extra))
				goto drop;
			extra = 0; /* a duplicate follows the original */
		} else if (ifab_send_wire(ep, gid, qpn, copy, len) ==
			   IFAB_LOST) {
			return IFAB_LOST;
		}
	}
	return IFAB_SENT;
drop:
	ep->tx_fault_drop++;
	return IFAB_LOST;
}

void ifab_fault_release(struct ifab_ep *ep)
{
	uint64_t now;
	struct ifab_pend *p;

	if (!ep->held)
		return;
	now = now_ns();
	while ((p = ep->held) && p->due <= now) {
		ep->held = p->next;
		if (!link_is_down(now))
			ifab_send_wire(ep, p->gid, p->qpn, p->data, p->len);
		free(p);
	}
}

uint64_t ifab_fault_next_due(const struct ifab_ep *ep)
{
	return ep->held ? ep->held->due : 0;
}

void ifab_fault_drop_held(struct ifab_ep *ep)
{
	struct ifab_pend *p;

	while ((p = ep->held)) {
		ep->held = p->next;
		free(p);
	}
}

bool ifab_link_up(void)
{
	return !faults_on || !link_is_down(now_ns());
}

uint64_t ifab_link_next_change(void)
{
	return link_down ? link_up_at : 0;
}

bool ifab_fault_rx_drop(struct ifab_ep *ep)
{
	if (!faults_on)
		return false;
	if (link_is_down(now_ns()) ||
	    (faults.mute_after && ++rx_frames > faults.mute_after)) {
		ep->rx_fault_drop++;
		return true;
	}
	return false;
}
