// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The cold half of publish.h: choosing how a queue is published, the
 * express-doorbell trailers, the copy of WQEs to queues in controller
 * memory (docs/device-contract.md §11.3, §11.4), and doorbells held back
 * for the application (GDA, docs/gpu-direct-verbs.md §3).
 */
#include <errno.h>
#include <string.h>

#include "publish.h"

#define IONIC_CMB_CHUNK 64 /* express-doorbell copy unit, bytes */

void ionic_cq_pub_init(struct ionic_cq_pub *cp, const struct ionic_queue *ring,
		       volatile uint64_t *dbpage, unsigned int qtype)
{
	cp->dbreg = dbpage + qtype;
	cp->reserve = ring->mask;
	cp->reserve_pending = 0;
	cp->arm_prod[0] = 0;
	cp->arm_prod[1] = 0;
}

void ionic_pub_init(struct ionic_pub *pub, struct ionic_queue *q,
		    volatile uint64_t *dbpage, unsigned int qtype, void *win,
		    bool wc, bool expdb)
{
	pub->dbreg = dbpage + qtype;
	pub->win = win;
	pub->wc = win && wc;
	pub->qtype = (uint8_t)qtype;
	pub->prod_rung = 0;
	if (!win)
		pub->mode = IONIC_PUB_HOST;
	else if (expdb)
		pub->mode = IONIC_PUB_EXPDB;
	else
		pub->mode = IONIC_PUB_CMB;
	ionic_pub_reset(pub, q);
}

void ionic_pub_reset(struct ionic_pub *pub, struct ionic_queue *q)
{
	pub->prod_rung = 0;
	/* the trailers are the doorbells: a cleared ring needs them back */
	if (pub->mode == IONIC_PUB_EXPDB)
		ionic_expdb_prefill(q, pub->qtype, ionic_dbell_qid(q->dbell));
}

/*
 * The express-doorbell trailer of every slot (docs/device-contract.md §11.2,
 * §11.4): its index is the producer index after that WQE.
 */
void ionic_expdb_prefill(struct ionic_queue *q, unsigned int qtype,
			 uint32_t qid)
{
	size_t stride = ionic_queue_stride(q);
	uint64_t val;

	for (uint32_t pos = 0; pos <= q->mask; pos++) {
		val = ((uint64_t)qtype << IONIC_DBELL_QTYPE_SHIFT) |
		      ionic_dbell_val(qid, 0, (uint16_t)((pos + 1) & q->mask)) |
		      (IONIC_DBELL_EXPDB_SCHED
		       << IONIC_DBELL_EXPDB_SCHED_SHIFT);
		val = htole64(val);
		memcpy((uint8_t *)q->ptr + pos * stride + stride -
			       IONIC_EXP_DBELL_SZ,
		       &val, sizeof(val));
	}
}

/*
 * The unit of a copy to the window: 16 bytes, one SSE (NEON) store, in
 * ascending address order (volatile: never merged, split or reordered).
 * Slots and windows are at least 64-byte aligned.  ionic-sim's regular
 * window is ordinary shared memory and its express-doorbell window
 * decodes the trapped store (MOV, SSE, AVX or MOVDIR64B alike), so the
 * width is the platform's to choose; 16 bytes halves the stores of 8.
 * On real hardware a WC mapping is better served still by 64-byte bursts
 * (MOVDIR64B, ST64B) where the CPU has them; whatever the primitive, the
 * WC buffers must be drained with ionic_wc_flush() before the doorbell
 * store that makes the device read the window, and for express doorbells
 * before each WQE's last 64-byte chunk and after the last WQE of a batch
 * (docs/upstream-defects.md D17).
 */
typedef uint64_t ionic_cmb_word __attribute__((vector_size(16)));
#define IONIC_CMB_WORD_LOG2 4

static void ionic_cmb_copy(volatile ionic_cmb_word *dst,
			   const ionic_cmb_word *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

/* Copy slots [from, to) of the host ring to the same offsets of 'win'. */
static void ionic_cmb_copy_slots(const struct ionic_queue *q,
				 volatile ionic_cmb_word *win, uint16_t from,
				 uint16_t to)
{
	unsigned int w_log2 = q->stride_log2 - IONIC_CMB_WORD_LOG2;
	const ionic_cmb_word *ring = q->ptr;

	if (to < from) {
		/* wrapped: the tail of the ring first, then from slot 0 */
		ionic_cmb_copy(win + ((size_t)from << w_log2),
			       ring + ((size_t)from << w_log2),
			       ((size_t)q->mask + 1 - from) << w_log2);
		from = 0;
	}
	ionic_cmb_copy(win + ((size_t)from << w_log2),
		       ring + ((size_t)from << w_log2),
		       (size_t)(to - from) << w_log2);
}

/*
 * Express doorbells (docs/device-contract.md §11.3-11.4): every WQE is copied
 * in 64-byte chunks in ascending order, each chunk ordered after the earlier
 * ones; writing the last chunk, whose trailer (pre-filled at creation)
 * names the queue and the next producer index, is that WQE's doorbell.
 * A WC mapping is drained before each last chunk, and once more after
 * the final one so the batch cannot linger in the WC buffers
 * (docs/upstream-defects.md D17).
 */
static void ionic_cmb_copy_expdb(const struct ionic_pub *pub,
				 const struct ionic_queue *q, uint16_t from,
				 uint16_t to)
{
	const size_t per_chunk = IONIC_CMB_CHUNK >> IONIC_CMB_WORD_LOG2;
	size_t chunks = ionic_queue_stride(q) / IONIC_CMB_CHUNK;
	unsigned int w_log2 = q->stride_log2 - IONIC_CMB_WORD_LOG2;
	volatile ionic_cmb_word *win = (volatile ionic_cmb_word *)pub->win;
	const ionic_cmb_word *ring = q->ptr;

	for (uint16_t pos = from; pos != to; pos = ionic_queue_next(q, pos)) {
		size_t base = (size_t)pos << w_log2;

		for (size_t c = 0; c < chunks; c++) {
			ionic_to_device_barrier();
			if (c == chunks - 1 && pub->wc)
				ionic_wc_flush();
			ionic_cmb_copy(win + base + c * per_chunk,
				       ring + base + c * per_chunk, per_chunk);
		}
	}
	if (pub->wc)
		ionic_wc_flush();
}

int ionic_pub_set_gda(struct ionic_pub *pub, bool on)
{
	if (!on) {
		pub->mode &= (uint8_t)~IONIC_PUB_GDA;
		return 0;
	}
	if ((pub->mode & ~IONIC_PUB_GDA) == IONIC_PUB_EXPDB)
		return EINVAL;
	pub->mode |= IONIC_PUB_GDA;
	return 0;
}

/*
 * The copy position is the last doorbell's index (upstream's cmb_prod):
 * both advance only in ionic_publish() and restart at 0 on RESET.  With
 * GDA the WQEs still reach the ring the device reads, so that the
 * application's doorbell finds them there.
 */
void ionic_publish_slow(const struct ionic_pub *pub,
			const struct ionic_queue *q, uint16_t from, uint16_t to)
{
	switch (pub->mode & ~IONIC_PUB_GDA) {
	case IONIC_PUB_EXPDB:
		ionic_cmb_copy_expdb(pub, q, from, to);
		return;
	case IONIC_PUB_CMB:
		/* regular CMB: copy everything, drain WC, then the doorbell */
		ionic_cmb_copy_slots(q, (volatile ionic_cmb_word *)pub->win,
				     from, to);
		if (pub->wc)
			ionic_wc_flush();
		break;
	default:
		break;
	}
	if (ionic_pub_gda(pub))
		return; /* the application rings, with ionic_pub_dbell_val() */
	ionic_to_device_barrier();
	ionic_dbell_write(pub->dbreg, ionic_pub_dbell_val(q, to));
}
