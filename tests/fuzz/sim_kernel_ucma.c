// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the emulated kernel's rdma_ucm parser against a hostile
 * application (docs/testing.md §5, docs/kernel-contract.md §22).
 *
 * The input is a sequence of write()s on one open of /dev/infiniband/
 * rdma_cm, fed to the parser's entry point ik_ucma_input(): a command
 * number, the declared response size and the body bytes.  The user
 * pointer a command carries (its response buffer, SET_OPTION's value) is
 * replaced by a heap block of exactly the size the command declares, so
 * ASan reports any access past what the application handed in.  LISTEN
 * and CONNECT are left out (they reach the fabric); the file is
 * non-blocking, so GET_EVENT never sleeps.  The oracle: every write
 * returns its length or a negative errno; once the file is released it
 * held every id: a new file's first id gets handle 0 again, and no
 * descriptor of the process is left open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#include "fuzz.h"
#include "kernel/ik.h"

#define FZ_MAX_CALLS 64

static int fz_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Where the command's user pointer sits in its body, and how many bytes
 * it points to; -1: the command has none. */
static int ptr_at(uint32_t cmd, const uint8_t *body, uint32_t out,
		  uint32_t *len)
{
	*len = out;
	switch (cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		return cmd == RDMA_USER_CM_CMD_CREATE_ID ? 8 : 0;
	case RDMA_USER_CM_CMD_DESTROY_ID:
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_QUERY:
	case RDMA_USER_CM_CMD_INIT_QP_ATTR:
	case RDMA_USER_CM_CMD_GET_EVENT:
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
	case RDMA_USER_CM_CMD_MIGRATE_ID:
	case RDMA_USER_CM_CMD_BIND_IP:
		return 0;
	case RDMA_USER_CM_CMD_SET_OPTION:
		memcpy(len, body + 20, 4); /* optlen */
		if (*len > 4096)
			*len = 4096;
		return 0;
	}
	return -1;
}

static void fz_write(struct ik_ucma_file *f, struct fuzz_in *in)
{
	uint8_t buf[8 + 400] = { 0 };
	struct rdma_ucm_cmd_hdr h;
	uint8_t *user = NULL;
	uint32_t ulen = 0;
	ssize_t rc;
	int at;

	h.cmd = fuzz_u8(in) % 24;
	h.in = fuzz_u16(in) % 400;
	h.out = fuzz_u16(in) % 512;
	if (h.cmd == RDMA_USER_CM_CMD_LISTEN ||
	    h.cmd == RDMA_USER_CM_CMD_CONNECT)
		h.cmd = RDMA_USER_CM_CMD_QUERY;
	fuzz_bytes(in, buf + 8, h.in);
	at = ptr_at(h.cmd, buf + 8, h.out, &ulen);
	if (at >= 0) {
		uint64_t p;

		user = malloc(ulen ? ulen : 1);
		FUZZ_CHECK(user, "malloc");
		p = (uintptr_t)user;
		memcpy(buf + 8 + at, &p, sizeof(p));
	}
	memcpy(buf, &h, sizeof(h));
	rc = ik_ucma_input(f, buf, 8u + h.in);
	FUZZ_CHECK(rc == (ssize_t)(8u + h.in) || (rc < 0 && rc > -4096),
		   "command %u returned %zd", h.cmd, rc);
	free(user);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	struct rdma_ucm_create_id_resp resp = { .id = 77 };
	struct rdma_ucm_create_id c = { .ps = RDMA_PS_TCP,
					.uid = 1,
					.response = (uintptr_t)&resp };
	struct {
		struct rdma_ucm_cmd_hdr h;
		struct rdma_ucm_create_id c;
	} cr = { { RDMA_USER_CM_CMD_CREATE_ID, sizeof(c), sizeof(resp) }, c };
	int fds_before = fz_count_fds();
	struct ik_ucma_file *f;
	int fd = ik_ucma_open(O_CLOEXEC, &f);

	FUZZ_CHECK(fd >= 0, "open rdma_cm: %d", fd);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (unsigned int i = 0; i < FZ_MAX_CALLS && fuzz_more(&in); i++)
		fz_write(f, &in);
	ik_ucma_release(f);
	close(fd);

	fd = ik_ucma_open(O_CLOEXEC, &f);
	FUZZ_CHECK(fd >= 0, "open rdma_cm again: %d", fd);
	FUZZ_CHECK(
		ik_ucma_input(f, &cr, sizeof(cr)) == sizeof(cr) && resp.id == 0,
		"a released file left ids behind (first handle %u)", resp.id);
	ik_ucma_release(f);
	close(fd);
	FUZZ_CHECK(fz_count_fds() == fds_before,
		   "%d descriptors open, %d before", fz_count_fds(),
		   fds_before);
	return 0;
}
