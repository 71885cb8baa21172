// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ionic-sim fabric capture: every frame a NIC sends and receives, in the
 * classic pcap format (nanosecond timestamps, link type Ethernet), so
 * tshark and Wireshark decode it as RoCEv2 (UDP port 4791).
 *
 * The launcher creates the file and writes its header (--pcap FILE,
 * $IONIC_SIM_PCAP); every emulated process of the run then appends one
 * record per frame with a single write() on an O_APPEND descriptor, so
 * records of several processes interleave but never mix.  A frame a NIC
 * sends to itself (two QPs of one process) is recorded once, when sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../common/sys.h"
#include "fabric.h"
#include "pcap.h"
#include "frame.h"

#define PCAP_MAGIC_NS 0xa1b23c4du /* nanosecond timestamps */
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_SNAPLEN 65535

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t sec, nsec;
	uint32_t caplen, len;
};

_Static_assert(sizeof(struct pcap_file_hdr) == 24, "pcap file header");
_Static_assert(sizeof(struct pcap_rec_hdr) == 16, "pcap record header");

static int pcap_fd = -1;
static pthread_once_t pcap_once = PTHREAD_ONCE_INIT;

static void pcap_open(void)
{
	const char *path = getenv(IFAB_ENV_PCAP);

	if (path && *path)
		pcap_fd =
			isim_sys_open(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
}

int ifab_pcap_create(const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_NS,
		.major = 2,
		.minor = 4,
		.snaplen = PCAP_SNAPLEN,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	int fd = isim_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			       0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = isim_sys_write(fd, &h, sizeof(h));
	isim_sys_close(fd);
	return n == (ssize_t)sizeof(h) ? 0 : -EIO;
}

bool ifab_pcap_enabled(void)
{
	pthread_once(&pcap_once, pcap_open);
	return pcap_fd >= 0;
}

void ifab_pcap_frame(const void *frame, size_t len)
{
	struct pcap_rec_hdr r;
	struct timespec ts;
	struct iovec iov[2];

	if (!ifab_pcap_enabled() || len > PCAP_SNAPLEN)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	r.sec = (uint32_t)ts.tv_sec;
	r.nsec = (uint32_t)ts.tv_nsec;
	r.caplen = r.len = (uint32_t)len;
	iov[0] = (struct iovec){ .iov_base = &r, .iov_len = sizeof(r) };
	iov[1] = (struct iovec){ .iov_base = (void *)frame, .iov_len = len };
	/* one call: appended whole (a lost record is only a lost record) */
	if (writev(pcap_fd, iov, 2) < 0) {
		/* the capture is best effort: the wire does not wait for it */
	}
}

void ifab_pcap_rx(const struct ifab_ep *ep, const void *frame, size_t len)
{
	/* our own frame, looped back: recorded when it was sent */
	if (len >= 12 && !memcmp((const uint8_t *)frame + 6, ep->mac, 6) &&
	    !memcmp(frame, ep->mac, 6))
		return;
	ifab_pcap_frame(frame, len);
}
