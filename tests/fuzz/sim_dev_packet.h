/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The dev-packet fuzz target's device and its host (sim_dev_packet_host.c):
 * what sim_dev_packet.c builds its packets against and checks after them.
 */
#ifndef IONIC_FUZZ_SIM_DEV_PACKET_H
#define IONIC_FUZZ_SIM_DEV_PACKET_H

#include <pthread.h>

#include "fuzz.h"
#include "dev/idev.h"

#define FZ_NODE 1
#define FZ_PEER_NODE 2
#define FZ_PEER_QPN 5
#define FZ_RC_QPN 2
#define FZ_UD_QPN 3
#define FZ_DBID 1
#define FZ_PDID 1
#define FZ_SLOTS 64 /* SQ and RQ slots, 64 bytes each */
#define FZ_CQ_SLOTS 128
#define FZ_BUF 4096
#define FZ_RECV_LEN 1064 /* UD: 40-byte GRH area + MTU */
#define FZ_RC_RECVS 8
#define FZ_UD_RECVS 4
#define FZ_MAX_PKTS 32
#define FZ_PATTERN 0xcd

/* MR A and B at fixed iovas, so that a packet can address them. */
#define FZ_IOVA_A 0x100000ull
#define FZ_IOVA_B 0x200000ull

struct fz_host {
	struct idev *dev;
	struct isim_profile prof;
	uint8_t *cq[2]; /* RC's and UD's CQ rings */
	uint8_t *sq[2], *rq[2];
	uint16_t sq_prod[2], rq_prod[2];
	uint8_t *buf_a; /* MR A: the peer may write, read, atomics */
	uint8_t *buf_b; /* MR B: local only, never used */
	uint8_t *buf_r; /* receive buffers and local READ/atomic targets */
	uint32_t key_a, key_b, key_r;
	unsigned int sends_posted; /* signalled RC send WQEs */
};

/* Held around one input: the device's lock (idev.h). */
extern pthread_mutex_t fz_lock;

/* The device in h (zeroed by the caller) with the QPs, MRs, window and
 * work requests of sim_dev_packet.c's comment; fz_teardown frees it all. */
void fz_setup(struct fz_host *h);
void fz_teardown(struct fz_host *h);
/* The oracle: the CQEs of CQ 1 + i name posted work, and the ring was
 * never filled. */
void fz_check_cq(const struct fz_host *h, unsigned int i);
/* FZ_BUF bytes at buf still hold FZ_PATTERN. */
void fz_check_pattern(const uint8_t *buf, const char *what);

#endif
