// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim: the run's hardware-counter page (hwstats.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwstats.h"
#include "profile.h"
#include "sys.h"

_Static_assert(sizeof(struct isim_hwstats_page) <= 4096,
	       "the counter page is one page");
_Static_assert(ISIM_HWS_TX_PKTS == ISIM_HWS_TX_BYTES + 1 &&
		       ISIM_HWS_RX_PKTS == ISIM_HWS_RX_BYTES + 1,
	       "isim_hwstat_frame: bytes right before packets");

const char *const isim_hwstat_names[ISIM_HWS_N] = {
	[ISIM_HWS_TX_BYTES] = "tx_rdma_ucast_bytes",
	[ISIM_HWS_TX_PKTS] = "tx_rdma_ucast_pkts",
	[ISIM_HWS_RX_BYTES] = "rx_rdma_ucast_bytes",
	[ISIM_HWS_RX_PKTS] = "rx_rdma_ucast_pkts",
};

static struct isim_hwstats_page *page;
static int page_fd = -1;

/* The run directory's page, or NULL. */
static struct isim_hwstats_page *map_file(int *fd)
{
	const char *run = getenv(ISIM_ENV_RUNDIR);
	char path[4096];
	struct stat st;
	void *p;
	int f;

	if (!run || !*run ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", run,
			     ISIM_HWSTATS_FILE) >= sizeof(path))
		return NULL;
	f = isim_sys_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0)
		return NULL;
	/* racing creators all grow it to the same size: contents stay */
	if (isim_sys_fstat(f, &st) ||
	    (st.st_size < 4096 && ftruncate(f, 4096))) {
		isim_sys_close(f);
		return NULL;
	}
	p = isim_sys_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (p == MAP_FAILED) {
		isim_sys_close(f);
		return NULL;
	}
	*fd = f;
	return p;
}

static void page_init(void)
{
	struct isim_hwstats_page *p = map_file(&page_fd);

	if (!p) {
		p = isim_sys_mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
	}
	__atomic_store_n(&p->magic, ISIM_HWSTATS_MAGIC, __ATOMIC_RELAXED);
	__atomic_store_n(&p->nstats, ISIM_HWS_N, __ATOMIC_RELAXED);
	page = p;
}

struct isim_hwstats_page *isim_hwstats(int *fd)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, page_init);
	if (fd)
		*fd = page_fd;
	return page;
}
