// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric: what a node's UDP wire holds, shared between its
 * launcher's relay (udp_relay.c) and the processes of the run
 * (fab_udp.c), so that an ACK timeout does not expire on a frame that is
 * still on the wire only because the emulator was not scheduled.
 *
 * On a real link a frame sent arrives within microseconds; here every
 * frame for a node passes its launcher's relay thread, and a loaded host
 * may not run that thread for over a second (measured: 1.4 s with four
 * CPU hogs beside a test at nice 19, the datagrams waiting in port
 * 4791's receive queue, none dropped).  The device's ACK timer (67 ms for
 * timeout 14) then counted retries for ACKs the relay had not handed on
 * yet, and an RC QP failed with RETRY_EXC_ERR with no fault configured.
 *
 * So the relay publishes when it last found port 4791 empty (drained_ns,
 * taken before that recvmsg) and which destination QPs have frames
 * waiting in its queues (backlog[], by ifab_udp_relay_slot), and every
 * process of the node publishes when it last sent a datagram to its own
 * address (sent_ns, taken before that sendmsg).  sent_ns > drained_ns:
 * a datagram of ours may still wait for the relay.  The device asks
 * before it lets an ACK timeout expire (ifab_wire_holds).  Frames the
 * fault injector loses or holds back never reach the wire, so they still
 * time out; frames from other nodes are not counted (their relay is not
 * ours to see).
 *
 * The state lives in the file IFAB_UDP_WIRE_FILE of the run directory
 * ($IONIC_SIM_RUNDIR), made by the launcher, mapped shared by each
 * process; without it (a process outside a launcher) nothing is held.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/profile.h"
#include "../common/sys.h"
#include "fabric.h"
#include "udp_wire.h"

uint64_t ifab_udp_wire_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct ifab_udp_wire *wire_map(const char *dir, int flags)
{
	char path[PATH_MAX];
	void *m;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, IFAB_UDP_WIRE_FILE) >=
	    (int)sizeof(path))
		return NULL;
	fd = isim_sys_open(path, flags | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if ((flags & O_CREAT) &&
	    ftruncate(fd, sizeof(struct ifab_udp_wire)) < 0) {
		isim_sys_close(fd);
		return NULL;
	}
	m = isim_sys_mmap(NULL, sizeof(struct ifab_udp_wire),
			  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	isim_sys_close(fd);
	return m == MAP_FAILED ? NULL : m;
}

struct ifab_udp_wire *ifab_udp_wire_create(const char *rundir)
{
	/* the relays of a launcher's NICs share one (udp_wire.h) */
	return wire_map(rundir, O_CREAT);
}

struct ifab_udp_wire *ifab_udp_wire_attach(void)
{
	const char *dir = getenv(ISIM_ENV_RUNDIR);

	return dir && *dir ? wire_map(dir, 0) : NULL;
}

void ifab_udp_wire_unmap(struct ifab_udp_wire *w)
{
	if (w)
		isim_sys_munmap(w, sizeof(*w));
}

/* Later stamps only: several processes and threads send. */
static void stamp_max(uint64_t *at, uint64_t t)
{
	uint64_t old = __atomic_load_n(at, __ATOMIC_RELAXED);

	while (old < t &&
	       !__atomic_compare_exchange_n(at, &old, t, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

void ifab_udp_wire_sent(struct ifab_udp_wire *w, uint64_t t)
{
	stamp_max(&w->sent_ns, t);
}

void ifab_udp_wire_drained(struct ifab_udp_wire *w, uint64_t t)
{
	stamp_max(&w->drained_ns, t);
}

void ifab_udp_wire_backlog(struct ifab_udp_wire *w, uint32_t slot,
			   uint32_t qpn_plus1)
{
	__atomic_store_n(&w->backlog[slot], qpn_plus1, __ATOMIC_RELEASE);
}

bool ifab_udp_wire_holds(const struct ifab_udp_wire *w, uint32_t qpn)
{
	if (__atomic_load_n(&w->backlog[ifab_udp_relay_slot(qpn)],
			    __ATOMIC_ACQUIRE) == qpn + 1)
		return true;
	return __atomic_load_n(&w->sent_ns, __ATOMIC_ACQUIRE) >
	       __atomic_load_n(&w->drained_ns, __ATOMIC_ACQUIRE);
}
