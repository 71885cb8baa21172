// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim device: UD SENDs on the direct path towards QPs of other
 * processes of this host (direct.h; same-process ones: direct_ud.c).
 *
 * A UD QP has no connection, so no hello tells it the port of the
 * process that owns a destination QP.  Instead every device with a port
 * writes one line into the run's table of ports (<rundir>/direct-ports,
 * a shared page): its pid, its fabric node, and what a hello would
 * carry (the segment's descriptor, address and size, the counter page).
 * A UD frame for node N, QP q looks at the lines of node N of other
 * processes: each port is mapped and checked exactly as a hello's is
 * (idev_dpeer_get: /proc/<pid>/fd, the segment's inode, header and size,
 * the process_vm_readv probe), and the QP record q there must be a
 * valid UD QP (QP numbers are the node's: one process has it).  Nothing
 * in the table is trusted: a line of a process that died, or a scribble,
 * fails those checks (the frame goes as a packet) and its slot is taken
 * over by the next device that needs one.  The last port a QP used is
 * kept (d->dpeer) and tried first.
 *
 * The receive itself is the executor's (idev_direct_ud_exec,
 * direct_exec.c) on the frame the packet path built and parsed as the
 * receiver parses it, so the GRH area, the source QP, the SL and the
 * IPv4 flag are the frame's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "../common/trace.h"
#include "direct.h"
#include "direct_priv.h"
#include "pkt.h"
#include "qp.h"

#define DUDTAB_FILE "direct-ports"
#define DUDTAB_SIZE 4096

/* One device's line; pid 0: free (claimed with a compare-and-swap). */
struct dudtab_ent {
	int32_t pid;
	uint32_t node;
	int32_t segfd, statsfd;
	uint32_t stats_nic, pad;
	uint64_t self, size;
};

#define DUDTAB_N (DUDTAB_SIZE / sizeof(struct dudtab_ent))

static struct dudtab_ent *tab;

static void tab_map(void)
{
	const char *run = getenv(ISIM_ENV_RUNDIR);
	char path[4096];
	struct stat st;
	void *m;
	int f;

	if (!run || !*run ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", run, DUDTAB_FILE) >=
		    sizeof(path))
		return;
	f = isim_sys_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (f < 0)
		return;
	/* racing creators all grow it to the same size: contents stay */
	m = MAP_FAILED;
	if (!isim_sys_fstat(f, &st) &&
	    (st.st_size >= DUDTAB_SIZE || !ftruncate(f, DUDTAB_SIZE)))
		m = isim_sys_mmap(NULL, DUDTAB_SIZE, PROT_READ | PROT_WRITE,
				  MAP_SHARED, f, 0);
	isim_sys_close(f);
	if (m != MAP_FAILED)
		tab = m;
}

static struct dudtab_ent *tab_get(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, tab_map);
	return tab;
}

static bool pid_gone(int32_t pid)
{
	return pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH);
}

void idev_dudtab_set(struct idev *dev, bool add)
{
	struct dudtab_ent *t = tab_get(), *e;
	struct idev_direct *x = dev->direct;
	int32_t me = getpid(), cur;

	if (!t || !x)
		return;
	for (unsigned int i = 0; i < DUDTAB_N; i++) {
		e = &t[i];
		cur = __atomic_load_n(&e->pid, __ATOMIC_ACQUIRE);
		if (!add) {
			if (cur == me &&
			    __atomic_load_n(&e->self, __ATOMIC_RELAXED) ==
				    (uint64_t)(uintptr_t)x->hdr &&
			    __atomic_load_n(&e->segfd, __ATOMIC_RELAXED) ==
				    x->fd) {
				__atomic_store_n(&e->pid, 0, __ATOMIC_RELEASE);
				return;
			}
			continue;
		}
		if ((cur && !pid_gone(cur)) ||
		    !__atomic_compare_exchange_n(&e->pid, &cur, me, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		/* readers check all of it against the segment itself; word
		 * by word, as they read it (a reader of this process may be
		 * looking at the dead line we took) */
		__atomic_store_n(&e->node, dev->cfg.node, __ATOMIC_RELAXED);
		__atomic_store_n(&e->segfd, x->fd, __ATOMIC_RELAXED);
		__atomic_store_n(&e->statsfd, dev->cfg.stats_fd,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&e->stats_nic, dev->cfg.stats_nic,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&e->self, (uint64_t)(uintptr_t)x->hdr,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&e->size, (uint64_t)x->size, __ATOMIC_RELEASE);
		return;
	}
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT,
			   "the table of ports is full: UD "
			   "towards this device goes as packets");
}

/* Port 'p' takes the frame for node 'node', or not (why). */
static enum idev_dud ud_try(struct idev_qp *d, struct idev_dpeer *p,
			    struct idev_pkt *rp, uint32_t node)
{
	const char *why = "";
	enum idev_dud rc;

	/* the port's own word, not the table's: QP numbers are per node */
	if (__atomic_load_n(&p->hdr->node, __ATOMIC_RELAXED) != node)
		return IDEV_DUD_NOT_HERE;
	rc = idev_direct_ud_exec(d, p, rp, &why);

	if ((rc == IDEV_DUD_PACKETS || rc == IDEV_DUD_DROPS) &&
	    isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT,
			   "qp %u -> %u/%u: UD as a packet (pid %d): %s",
			   d->qpn, isim_gid_to_node(rp->dgid), rp->dqpn,
			   (int)p->pid, why);
	return rc;
}

/* Attach port 'p' (a reference) to UD QP 'd' as its last destination. */
static void ud_keep(struct idev_qp *d, struct idev_dpeer *p)
{
	if (d->dpeer == p) {
		idev_dpeer_put(p);
		return;
	}
	idev_dring_drop(d);
	idev_dpeer_put(d->dpeer);
	d->dpeer = p;
}

/* Find the port of the process with QP 'rp->dqpn' on node 'node' and
 * try it. */
static enum idev_dud ud_search(struct idev_qp *d, struct idev_pkt *rp,
			       uint32_t node)
{
	struct dudtab_ent *t = tab_get(), e;
	struct idev_direct *x = d->dev->direct;
	int32_t me = getpid();
	const char *what = "";
	struct idev_dpeer *p;
	enum idev_dud rc;
	int err = 0;

	if (!t)
		return IDEV_DUD_NOT_HERE;
	for (unsigned int i = 0; i < DUDTAB_N; i++) {
		e.pid = __atomic_load_n(&t[i].pid, __ATOMIC_ACQUIRE);
		if (!e.pid || e.pid == me ||
		    __atomic_load_n(&t[i].node, __ATOMIC_RELAXED) != node)
			continue;
		e.size = __atomic_load_n(&t[i].size, __ATOMIC_ACQUIRE);
		e.segfd = __atomic_load_n(&t[i].segfd, __ATOMIC_RELAXED);
		e.statsfd = __atomic_load_n(&t[i].statsfd, __ATOMIC_RELAXED);
		e.stats_nic =
			__atomic_load_n(&t[i].stats_nic, __ATOMIC_RELAXED);
		e.self = __atomic_load_n(&t[i].self, __ATOMIC_RELAXED);
		p = idev_dpeer_get(x, e.pid, e.segfd, e.self, e.size, e.statsfd,
				   e.stats_nic, &what, &err);
		if (!p) {
			if (isim_trace_enabled())
				isim_trace(ISIM_TR_DIRECT,
					   "qp %u: the port of pid %d is not "
					   "usable: %s: %s",
					   d->qpn, (int)e.pid, what,
					   strerror(-err));
			continue;
		}
		if (p == d->dpeer || p->dead) {
			idev_dpeer_put(p); /* tried already */
			continue;
		}
		ud_keep(d, p);
		rc = ud_try(d, p, rp, node);
		if (rc != IDEV_DUD_NOT_HERE)
			return rc;
	}
	return IDEV_DUD_NOT_HERE;
}

bool idev_direct_ud_other(struct idev_qp *d, struct idev_pkt *pkt)
{
	uint32_t node = isim_gid_to_node(pkt->dgid);
	struct idev_pkt rp;
	enum idev_dud rc = IDEV_DUD_NOT_HERE;

	/* the frame as its receiver parses it: the same source QP, qkey,
	 * SL, IPv4 flag and GRH area by construction */
	if (!node || idev_pkt_build(pkt) ||
	    idev_pkt_parse(&rp, pkt->buf, pkt->len) || rp.dqpn != pkt->dqpn)
		return false;
	if (d->dpeer && !d->dpeer->dead)
		rc = ud_try(d, d->dpeer, &rp, node);
	if (rc == IDEV_DUD_NOT_HERE)
		rc = ud_search(d, &rp, node);
	if (rc == IDEV_DUD_NOT_HERE && isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT,
			   "qp %u -> %u/%u: UD as a packet: no port of this "
			   "host has that QP",
			   d->qpn, node, pkt->dqpn);
	if (rc != IDEV_DUD_DONE) {
		d->ud_pkts |= rc != IDEV_DUD_DROPS;
		return false;
	}
	/* as direct_ud.c names a frame it delivered */
	if (isim_trace_enabled())
		isim_trace(ISIM_TR_DIRECT,
			   "qp %u -> %u/%u: UD %s len %u (pid %d)", d->qpn,
			   node, pkt->dqpn, idev_pkt_opname(pkt->opcode),
			   pkt->paylen, (int)d->dpeer->pid);
	isim_hwstat_frame(d->dev->stats, ISIM_HWS_TX_PKTS, 1, pkt->len);
	isim_hwstat_frame(d->dpeer->stats, ISIM_HWS_RX_PKTS, 1, pkt->len);
	return true;
}
