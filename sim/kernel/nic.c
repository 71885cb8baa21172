// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim kernel layer: the one emulated NIC of a process as the ionic
 * driver sees it after probe - firmware profile, identity, id allocators
 * (ionic-kernel.md 15), the PHC page, and the device it drives.  Created
 * lazily on first use; a fork child gets a fresh one.
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

#include "kpriv.h"

struct isim_nic *isim_nic;
const struct isim_platform *isim_plat;
static pthread_mutex_t isim_init_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- id allocator ----------------------------------------------------- */

int isim_ida_init(struct isim_ida *ida, uint32_t base, uint32_t count)
{
	ida->base = base;
	ida->count = count;
	ida->bits = calloc((count + 63) / 64 + 1, sizeof(uint64_t));
	return ida->bits ? 0 : -ENOMEM;
}

void isim_ida_destroy(struct isim_ida *ida)
{
	free(ida->bits);
	ida->bits = NULL;
	ida->count = 0;
}

int64_t isim_ida_alloc(struct isim_ida *ida)
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

void isim_ida_reserve(struct isim_ida *ida, uint32_t id)
{
	uint32_t bit = id - ida->base;

	if (id >= ida->base && bit < ida->count)
		ida->bits[bit / 64] |= 1ull << (bit % 64);
}

void isim_ida_free(struct isim_ida *ida, uint32_t id)
{
	uint32_t bit = id - ida->base;

	if (id >= ida->base && bit < ida->count)
		ida->bits[bit / 64] &= ~(1ull << (bit % 64));
}

uint32_t isim_udma_qid(const struct isim_nic *nic, unsigned int udma,
		       uint32_t idx)
{
	return isim_profile_qid(&nic->prof, udma, idx);
}

uint32_t isim_udma_idx(const struct isim_nic *nic, uint32_t qid)
{
	return isim_profile_qid_index(&nic->prof, qid);
}

/* ---- PHC page ------------------------------------------------------- */

/* The page holds struct ionic_clock_info (common/ionic_hw.h, §14). */

/* 1 GHz counter: mult / 2^shift = 1 ns per cycle.  A non-zero shift keeps
 * the provider's fixed-point path honest; dt * mult stays below 2^63 for
 * every dt the sign bit of the 48-bit mask allows. */
#define ISIM_PHC_SHIFT 16

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void isim_phc_update(struct isim_nic *nic)
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
	ci->mult = 1u << ISIM_PHC_SHIFT;
	ci->shift = ISIM_PHC_SHIFT;
	ci->mask = IDEV_CLOCK_MASK;
	ci->overflow_period = IDEV_CLOCK_MASK >> 1;
	__atomic_store_n(&ci->sign, sign + 2, __ATOMIC_RELEASE);
}

static int phc_create(struct isim_nic *nic)
{
	char path[64];
	void *p;
	int fd;

	fd = memfd_create("ionic-sim-phc", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, ISIM_PAGE_SIZE) < 0) {
		close(fd);
		return -errno;
	}
	/* raw syscall: the platform may interpose mmap() itself */
	p = (void *)syscall(SYS_mmap, NULL, ISIM_PAGE_SIZE,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	nic->phc_memfd = fd;
	nic->phc_page = p;
	/* VM_MAYWRITE is cleared on the user's mapping: map it from a
	 * read-only descriptor so mprotect(PROT_WRITE) fails as well */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nic->phc_ro_fd =
		(int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (nic->phc_ro_fd < 0)
		return -errno;
	isim_phc_update(nic);
	return 0;
}

/* ---- pinning stand-in --------------------------------------------------- */

bool isim_user_mapped(uint64_t addr, uint64_t len)
{
	unsigned char vec[256];
	uint64_t start = addr & ~(uint64_t)(ISIM_PAGE_SIZE - 1);
	uint64_t end;

	if (!len || addr + len < addr)
		return false;
	end = (addr + len + ISIM_PAGE_SIZE - 1) &
	      ~(uint64_t)(ISIM_PAGE_SIZE - 1);
	/* mincore fails with ENOMEM on any unmapped page, which is where
	 * ib_umem_get would fail to pin. */
	while (start < end) {
		uint64_t chunk = end - start;

		if (chunk > sizeof(vec) * ISIM_PAGE_SIZE)
			chunk = sizeof(vec) * ISIM_PAGE_SIZE;
		if (mincore((void *)(uintptr_t)start, chunk, vec) < 0)
			return false;
		start += chunk;
	}
	return true;
}

/* ---- NIC creation ------------------------------------------------------- */

static uint32_t qid_table_size(const struct isim_nic *nic, uint32_t half)
{
	uint32_t a, b;

	if (!half)
		return 1;
	a = isim_udma_qid(nic, 0, half - 1);
	b = isim_udma_qid(nic, 1, half - 1);
	return (a > b ? a : b) + 1;
}

static int nic_ids_init(struct isim_nic *nic)
{
	const struct isim_profile *p = &nic->prof;
	uint32_t qhalf = p->qp_count / 2, chalf = p->cq_count / 2;
	int rc = 0;

	rc |= isim_ida_init(&nic->pd_ida, 0, ISIM_MAX_PD);
	rc |= isim_ida_init(&nic->mr_ida, 1, p->nmrs > 1 ? p->nmrs - 1 : 0);
	rc |= isim_ida_init(&nic->ah_ida, 0, p->nahs);
	rc |= isim_ida_init(&nic->dbid_ida, 1,
			    p->dbid_count > 1 ? p->dbid_count - 1 : 0);
	for (int i = 0; i < 2; i++) {
		rc |= isim_ida_init(&nic->qp_ida[i], 0, qhalf);
		rc |= isim_ida_init(&nic->cq_ida[i], 0, chalf);
	}
	if (rc)
		return -ENOMEM;
	/* bit ids 0 and 1 of UDMA 0 are the SMI and GSI QPs */
	isim_ida_reserve(&nic->qp_ida[0], 0);
	isim_ida_reserve(&nic->qp_ida[0], 1);

	nic->qpn_limit = qid_table_size(nic, qhalf);
	nic->cqid_limit = qid_table_size(nic, chalf);
	nic->qps = calloc(nic->qpn_limit, sizeof(*nic->qps));
	nic->cqs = calloc(nic->cqid_limit, sizeof(*nic->cqs));
	if (!nic->qps || !nic->cqs)
		return -ENOMEM;
	return 0;
}

static int nic_create(struct isim_nic **out)
{
	struct isim_nic *nic;
	const char *node;
	int rc;

	nic = calloc(1, sizeof(*nic));
	if (!nic)
		return -ENOMEM;
	pthread_mutex_init(&nic->lock, NULL);
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
	node = getenv(ISIM_ENV_NODE);
	nic->node = node ? (uint32_t)strtoul(node, NULL, 0) : 1;
	if (!nic->node)
		nic->node = 1;
	isim_node_gid(nic->node, 0, nic->gid[0]);
	isim_node_gid(nic->node, 1, nic->gid[1]);
	nic->next_key8 = 1; /* ionic_ibdev.c: the key counter starts at 1 */
	nic->next_qp_udma = 0;
	rc = nic_ids_init(nic);
	if (rc)
		goto err;
	rc = isim_nic_dev_create(nic);
	if (rc)
		goto err;
	if (nic->prof.phc) {
		rc = phc_create(nic);
		if (rc)
			goto err;
	}
	rc = isim_cmb_init(nic);
	if (rc)
		goto err;
	rc = idev_start(nic->dev);
	if (rc)
		goto err;
	*out = nic;
	return 0;
err:
	/* partially built NIC: leaked on purpose, init failure is fatal */
	return rc;
}

int isim_model_init(const struct isim_platform *plat)
{
	struct isim_nic *nic = NULL;
	int rc = 0;

	pthread_mutex_lock(&isim_init_lock);
	if (plat)
		isim_plat = plat;
	if (!isim_plat)
		rc = -ENODEV; /* no platform: no device */
	else if (!isim_nic) {
		rc = nic_create(&nic);
		if (!rc)
			__atomic_store_n(&isim_nic, nic, __ATOMIC_RELEASE);
		if (isim_trace_enabled())
			isim_trace(
				ISIM_TR_CMD,
				"model init node=%u qp_count=%u cq_count=%u udma_shift=%u -> %d",
				nic ? nic->node : 0,
				nic ? nic->prof.qp_count : 0,
				nic ? nic->prof.cq_count : 0,
				nic ? nic->prof.udma_shift : 0, rc);
	}
	pthread_mutex_unlock(&isim_init_lock);
	return rc;
}

/*
 * fork() child: the parent's NIC (its engine thread does not exist here,
 * its lock may be held by a thread that did not survive the fork) stays
 * untouched and leaked; every file opened before the fork is dead.  The
 * next open creates a fresh NIC.
 */
void isim_model_atfork_child(void)
{
	struct isim_nic *old = isim_nic;

	pthread_mutex_init(&isim_init_lock, NULL);
	if (!old)
		return;
	for (struct isim_file *f = old->files; f; f = f->next) {
		f->dead = true;
		/* the child's NIC hands out the same dbids: stores to the
		 * parent's pages must not reach its queues */
		if (f->has_ucontext)
			isim_plat->dbpage_revoke(f->dbid);
	}
	idev_atfork_child(old->dev);
	isim_nic = NULL;
}

/* ---- lookups ------------------------------------------------------------ */

struct isim_qp *isim_qp_lookup(struct isim_nic *nic, uint32_t qpn)
{
	return qpn < nic->qpn_limit ? nic->qps[qpn] : NULL;
}
