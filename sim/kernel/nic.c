// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the emulated NICs of a process as the ionic
 * driver sees each after probe - firmware profile, identity, id allocators
 * (docs/kernel-contract.md §15), the PHC page, and the device it drives.
 * NIC k (ionic_k, uverbsK) is created on the first open of its device, so
 * a process that opens one NIC pays for one; a fork child gets fresh ones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../common/ionic_hw.h"

#include "../common/sys.h"
#include "kpriv.h"
#include "restrack.h"

struct ik_nic *ik_nics[ISIM_MAX_NICS];
const struct ik_platform *ik_plat;
static pthread_mutex_t ik_init_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- id allocator ----------------------------------------------------- */

int ik_ida_init(struct ik_ida *ida, uint32_t base, uint32_t count)
{
	ida->base = base;
	ida->count = count;
	ida->bits = calloc((count + 63) / 64 + 1, sizeof(uint64_t));
	return ida->bits ? 0 : -ENOMEM;
}

void ik_ida_destroy(struct ik_ida *ida)
{
	free(ida->bits);
	ida->bits = NULL;
	ida->count = 0;
}

int64_t ik_ida_alloc(struct ik_ida *ida)
{
	for (uint32_t w = 0; w < (ida->count + 63) / 64; w++) {
		uint64_t free_bits = ~ida->bits[w];
		uint32_t bit;

		if (!free_bits)
			continue;
		bit = w * 64 + (uint32_t)__builtin_ctzll(free_bits);
		if (bit >= ida->count)
			break;
		ida->bits[w] |= 1ull << (bit % 64);
		return (int64_t)ida->base + bit;
	}
	return -ENOMEM;
}

void ik_ida_reserve(struct ik_ida *ida, uint32_t id)
{
	uint32_t bit = id - ida->base;

	if (id >= ida->base && bit < ida->count)
		ida->bits[bit / 64] |= 1ull << (bit % 64);
}

void ik_ida_free(struct ik_ida *ida, uint32_t id)
{
	uint32_t bit = id - ida->base;

	if (id >= ida->base && bit < ida->count)
		ida->bits[bit / 64] &= ~(1ull << (bit % 64));
}

uint32_t ik_udma_qid(const struct ik_nic *nic, unsigned int udma, uint32_t idx)
{
	return isim_profile_qid(&nic->prof, udma, idx);
}

uint32_t ik_udma_idx(const struct ik_nic *nic, uint32_t qid)
{
	return isim_profile_qid_index(&nic->prof, qid);
}

/* ---- PHC page ------------------------------------------------------- */

/* The page holds struct ionic_clock_info (common/ionic_hw.h,
 * docs/device-contract.md §14). */

/* 1 GHz counter: mult / 2^shift = 1 ns per cycle.  A non-zero shift keeps
 * the provider's fixed-point path honest; dt * mult stays below 2^63 for
 * every dt the sign bit of the 48-bit mask allows. */
#define IK_PHC_SHIFT 16

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ik_phc_update(struct ik_nic *nic)
{
	struct ionic_clock_info *ci = (struct ionic_clock_info *)nic->phc_page;
	uint32_t sign;

	if (!ci)
		return;
	/* seqlock: odd while the snapshot is inconsistent */
	sign = __atomic_load_n(&ci->sign, __ATOMIC_RELAXED);
	__atomic_store_n(&ci->sign, sign + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ci->cycles = idev_clock(nic->dev);
	ci->nsec = clock_ns(CLOCK_REALTIME);
	ci->frac = 0;
	ci->mult = 1u << IK_PHC_SHIFT;
	ci->shift = IK_PHC_SHIFT;
	ci->mask = IDEV_CLOCK_MASK;
	ci->overflow_period = IDEV_CLOCK_MASK >> 1;
	__atomic_store_n(&ci->sign, sign + 2, __ATOMIC_RELEASE);
}

static int phc_create(struct ik_nic *nic)
{
	char path[64];
	void *p;
	int fd;

	fd = memfd_create("ionic-sim-phc", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, IK_PAGE_SIZE) < 0) {
		isim_sys_close(fd);
		return -errno;
	}
	p = isim_sys_mmap(NULL, IK_PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		isim_sys_close(fd);
		return -errno;
	}
	nic->phc_memfd = fd;
	nic->phc_page = p;
	/* VM_MAYWRITE is cleared on the user's mapping: map it from a
	 * read-only descriptor so mprotect(PROT_WRITE) fails as well */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nic->phc_ro_fd = isim_sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (nic->phc_ro_fd < 0)
		return -errno;
	ik_phc_update(nic);
	return 0;
}

/* ---- pinning stand-in --------------------------------------------------- */

bool ik_user_mapped(uint64_t addr, uint64_t len)
{
	unsigned char vec[256];
	uint64_t start = addr & ~(uint64_t)(IK_PAGE_SIZE - 1);
	uint64_t end;

	if (!len || addr + len < addr)
		return false;
	end = (addr + len + IK_PAGE_SIZE - 1) & ~(uint64_t)(IK_PAGE_SIZE - 1);
	/* mincore fails with ENOMEM on any unmapped page, which is where
	 * ib_umem_get would fail to pin. */
	while (start < end) {
		uint64_t chunk = end - start;

		if (chunk > sizeof(vec) * IK_PAGE_SIZE)
			chunk = sizeof(vec) * IK_PAGE_SIZE;
		if (mincore((void *)(uintptr_t)start, chunk, vec) < 0)
			return false;
		start += chunk;
	}
	return true;
}

/* ---- NIC creation ------------------------------------------------------- */

static uint32_t qid_table_size(const struct ik_nic *nic, uint32_t half)
{
	uint32_t a, b;

	if (!half)
		return 1;
	a = ik_udma_qid(nic, 0, half - 1);
	b = ik_udma_qid(nic, 1, half - 1);
	return (a > b ? a : b) + 1;
}

static int nic_ids_init(struct ik_nic *nic)
{
	const struct isim_profile *p = &nic->prof;
	uint32_t qhalf = p->qp_count / 2, chalf = p->cq_count / 2;
	int rc = 0;

	rc |= ik_ida_init(&nic->pd_ida, 0, IK_MAX_PD);
	rc |= ik_ida_init(&nic->mr_ida, 1, p->nmrs > 1 ? p->nmrs - 1 : 0);
	rc |= ik_ida_init(&nic->ah_ida, 0, p->nahs);
	rc |= ik_ida_init(&nic->dbid_ida, 1,
			  p->dbid_count > 1 ? p->dbid_count - 1 : 0);
	for (int i = 0; i < 2; i++) {
		rc |= ik_ida_init(&nic->qp_ida[i], 0, qhalf);
		rc |= ik_ida_init(&nic->cq_ida[i], 0, chalf);
	}
	if (rc)
		return -ENOMEM;
	/* bit ids 0 and 1 of UDMA 0 are the SMI and GSI QPs */
	ik_ida_reserve(&nic->qp_ida[0], 0);
	ik_ida_reserve(&nic->qp_ida[0], 1);

	nic->qpn_limit = qid_table_size(nic, qhalf);
	nic->cqid_limit = qid_table_size(nic, chalf);
	nic->qps = calloc(nic->qpn_limit, sizeof(*nic->qps));
	nic->cqs = calloc(nic->cqid_limit, sizeof(*nic->cqs));
	if (!nic->qps || !nic->cqs)
		return -ENOMEM;
	return 0;
}

static int nic_create(unsigned int k, uint32_t node, struct ik_nic **out)
{
	struct ik_nic *nic;
	int rc;

	nic = calloc(1, sizeof(*nic));
	if (!nic)
		return -ENOMEM;
	pthread_mutex_init(&nic->lock, NULL);
	pthread_mutex_init(&nic->chan_lock, NULL);
	nic->phc_memfd = -1;
	nic->phc_ro_fd = -1;
	rc = isim_profile_from_env(&nic->prof);
	if (rc)
		goto err;
	/* ionic_admin.c: eq_count is clamped to 32; fewer than 4 EQs fail
	 * device creation. */
	if (nic->prof.eq_count > 32)
		nic->prof.eq_count = 32;
	if (nic->prof.eq_count < 4 || nic->prof.udma_shift > 20) {
		rc = -ENODEV;
		goto err;
	}
	nic->index = k;
	nic->node = node;
	isim_node_gid(nic->node, 0, nic->gid[0]);
	isim_node_gid(nic->node, 1, nic->gid[1]);
	nic->next_key8 = 1; /* ionic_ibdev.c: the key counter starts at 1 */
	nic->next_qp_udma = 0;
	rc = nic_ids_init(nic);
	if (rc)
		goto err;
	rc = ik_cmb_init(nic);
	if (rc)
		goto err;
	rc = ik_nic_dev_create(nic);
	if (rc)
		goto err;
	if (nic->prof.phc) {
		rc = phc_create(nic);
		if (rc)
			goto err;
	}
	rc = idev_start(nic->dev);
	if (rc)
		goto err;
	*out = nic;
	return 0;
err:
	/* partially built NIC: leaked on purpose, init failure is fatal */
	return rc;
}

int ik_model_init(const struct ik_platform *plat)
{
	struct isim_profile prof;
	int rc = 0;

	pthread_mutex_lock(&ik_init_lock);
	if (plat)
		ik_plat = plat;
	if (!ik_plat)
		rc = -ENODEV; /* no platform: no device */
	else if (isim_profile_from_env(&prof))
		rc = -EINVAL; /* what every NIC would fail with */
	pthread_mutex_unlock(&ik_init_lock);
	return rc;
}

int ik_nic_get(unsigned int k, struct ik_nic **out)
{
	uint32_t nodes[ISIM_MAX_NICS];
	struct ik_nic *nic = NULL;
	int rc = 0;

	if (k >= isim_nics(nodes))
		return -ENODEV;
	pthread_mutex_lock(&ik_init_lock);
	if (!ik_plat) {
		rc = -ENODEV;
	} else if (!ik_nics[k]) {
		rc = nic_create(k, nodes[k], &nic);
		if (!rc) {
			__atomic_store_n(&ik_nics[k], nic, __ATOMIC_RELEASE);
			ik_direct_start();
		}
		if (isim_trace_enabled())
			isim_trace(
				ISIM_TR_CMD,
				"model init nic=%u node=%u qp_count=%u cq_count=%u udma_shift=%u -> %d",
				k, nodes[k], nic ? nic->prof.qp_count : 0,
				nic ? nic->prof.cq_count : 0,
				nic ? nic->prof.udma_shift : 0, rc);
	}
	*out = ik_nics[k];
	pthread_mutex_unlock(&ik_init_lock);
	return rc;
}

/*
 * fork() child: the parent's NIC (its engine thread does not exist here,
 * its lock may be held by a thread that did not survive the fork) stays
 * untouched and leaked; every file opened before the fork is dead.  The
 * next open creates a fresh NIC.
 */
void ik_model_atfork_child(void)
{
	bool had_nic = false;

	pthread_mutex_init(&ik_init_lock, NULL);
	ik_ucma_atfork_child();
	ik_export_atfork_child();
	ik_bus_atfork_child();
	ik_ring_share_atfork_child();
	ik_mr_share_atfork_child();
	for (unsigned int k = 0; k < ISIM_MAX_NICS; k++) {
		struct ik_nic *old = ik_nics[k];

		if (!old)
			continue;
		had_nic = true;
		for (struct ik_file *f = old->files; f; f = f->next) {
			f->dead = true;
			/* the child's NIC hands out the same dbids: stores
			 * to the parent's pages must not reach its queues */
			if (f->has_ucontext)
				ik_plat->dbpage_revoke(
					ik_nic_tag(old, f->dbid));
		}
		idev_atfork_child(old->dev);
		ik_nics[k] = NULL;
	}
	if (had_nic)
		ik_res_atfork_child();
}

/* ---- lookups ------------------------------------------------------------ */

struct ik_qp *ik_qp_lookup(struct ik_nic *nic, uint32_t qpn)
{
	return qpn < nic->qpn_limit ? nic->qps[qpn] : NULL;
}
