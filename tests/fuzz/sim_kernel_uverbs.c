// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Fuzz target: the emulated kernel's uverbs parser against a hostile
 * application (docs/testing.md §5.3).
 *
 * ionic-sim plays the kernel, so whatever an application writes to the
 * uverbs fd, passes to ioctl() or mmap()s must be refused with an errno,
 * never crash the emulator or corrupt memory.  The target drives the
 * kernel model through its entry points of sim/kernel/ik.h on the real
 * device model, with a platform whose doorbell pages are plain memory (as
 * the kernel layer's own tests do).  The input is a sequence of calls on
 * one open of uverbs0:
 *
 *   write   any command bytes (legacy or extended header, core request,
 *           udata), with the response pointer the command carries replaced
 *           by one of: a buffer of exactly the size the command declares,
 *           NULL, a read-only page, an unmapped page;
 *   ioctl   any request number and argument bytes (or one of the bad
 *           pointers);
 *   mmap    any offset, length, protection and flags (never MAP_FIXED).
 *
 * Every buffer is a heap block of its exact size, so ASan reports any
 * read or write past what the application handed in.  The oracle: every
 * write returns its length or a negative errno, every ioctl 0 or a
 * negative errno; after the file is released (and the application closed
 * the fds it was given) the device holds no object and no descriptor of
 * the process is left open: the emulator leaks nothing a hostile
 * application created.
 */
#include <dirent.h>
#include <errno.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz.h"
#include "kernel/kpriv.h"

#define FZ_MAX_CALLS 64
#define FZ_MAX_FDS 16

static void *fz_dbpage_map(uint64_t tag, void *addr, size_t len, int *err)
{
	void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	(void)tag;
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}

static void fz_dbpage_revoke(uint64_t tag)
{
	(void)tag;
}

static const struct ik_platform fz_platform = {
	.dbpage_map = fz_dbpage_map,
	.dbpage_revoke = fz_dbpage_revoke,
};

static uint8_t *fz_ro_page; /* mapped, PROT_READ */
static uint8_t *fz_hole; /* a page that is not mapped */

/*
 * Addresses inside commands (rings in the udata, MR starts): a command
 * word FZ_ADDR_MARK | n becomes a real address, n = 0..3 one of four
 * writable 64 KiB buffers, 4 the read-only page, 5 the unmapped one,
 * 6 NULL.  Inputs never carry raw addresses, which could name the
 * fuzzer's own memory (tests/fuzz/seeds/kernel_uverbs_seeds.c uses the
 * marks).
 */
#define FZ_ADDR_MARK 0x5afe5afe5afe5a00ull
#define FZ_BUF_SIZE (64 * 1024)
static uint8_t fz_bufs[4][FZ_BUF_SIZE] __attribute__((aligned(4096)));

static void fz_patch_addresses(uint8_t *cmd, size_t n)
{
	for (size_t at = 0; at + 8 <= n; at += 8) {
		uint64_t w, addr;

		memcpy(&w, cmd + at, 8);
		if ((w & ~0xffull) != FZ_ADDR_MARK || (w & 0xff) > 6)
			continue;
		switch (w & 0xff) {
		case 4:
			addr = (uintptr_t)fz_ro_page;
			break;
		case 5:
			addr = (uintptr_t)fz_hole;
			break;
		case 6:
			addr = 0;
			break;
		default:
			addr = (uintptr_t)fz_bufs[w & 3];
			break;
		}
		memcpy(cmd + at, &addr, 8);
	}
}

/*
 * Descriptors of the kinds the emulator creates (eventfds of event
 * queues and channels, fabric sockets, epoll, memfds); the sanitizer
 * runtimes open others (/dev/null, pipes and sockets of their own)
 * whenever they like.
 */
static int fz_count_fds_print(bool print);

/* A socket of the emulated fabric (sim/fabric/fab_unix.c): an abstract
 * unix address under "ionic-sim/". */
static bool fz_fabric_socket(int fd, const char *link)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);

	if (strncmp(link, "socket:", 7) ||
	    getsockname(fd, (struct sockaddr *)&sun, &len) ||
	    sun.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path) + 10)
		return false;
	return !sun.sun_path[0] && !memcmp(sun.sun_path + 1, "ionic-sim/", 10);
}

static int fz_count_fds(void)
{
	return fz_count_fds_print(false);
}

static int fz_count_fds_print(bool print)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	FUZZ_CHECK(d, "/proc/self/fd: %s", strerror(errno));
	while ((e = readdir(d))) {
		char path[300], link[256];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (strncmp(link, "anon_inode:", 11) &&
		    strncmp(link, "/memfd:", 7) &&
		    !fz_fabric_socket(atoi(e->d_name), link))
			continue;
		n++;
		if (print)
			fprintf(stderr, "  fd %s: %s\n", e->d_name, link);
	}
	closedir(d);
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ik_nic *nic;
	char fabric[64];

	(void)argc;
	(void)argv;
	/* a fabric of this process' own; default firmware profile with CMB */
	snprintf(fabric, sizeof(fabric), "fuzz-kernel-%d", (int)getpid());
	setenv(ISIM_ENV_FABRIC, fabric, 1);
	setenv(ISIM_ENV_PROFILE, "cmb_pages=64", 1);
	FUZZ_CHECK(!ik_model_init(&fz_platform), "ik_model_init failed");
	/* the NIC and its device now: their descriptors are not an input's */
	FUZZ_CHECK(!ik_nic_get(0, &nic), "NIC 0");

	fz_ro_page =
		mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz_hole =
		mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FUZZ_CHECK(fz_ro_page != MAP_FAILED && fz_hole != MAP_FAILED, "mmap");
	FUZZ_CHECK(!munmap(fz_hole, 4096), "munmap");
	return 0;
}

/* What the application got back and must release itself. */
struct fz_app {
	int fds[FZ_MAX_FDS];
	unsigned int nfds;
	struct {
		void *p;
		size_t len;
	} maps[FZ_MAX_CALLS];
	unsigned int nmaps;
};

static void fz_keep_fd(struct fz_app *app, int fd)
{
	if (fd >= 0 && app->nfds < FZ_MAX_FDS)
		app->fds[app->nfds++] = fd;
}

/*
 * A pointer the application hands in: 0 a buffer of 'len' bytes (may be
 * 0), 1 NULL, 2 a read-only page, 3 an unmapped page.
 */
static void *fz_pointer(uint8_t sel, size_t len, void **alloc)
{
	switch (sel & 3) {
	case 0:
		*alloc = malloc(len ? len : 1);
		FUZZ_CHECK(*alloc, "out of memory");
		memset(*alloc, 0xa5, len);
		return *alloc;
	case 1:
		return NULL;
	case 2:
		return fz_ro_page;
	default:
		return fz_hole;
	}
}

static bool fz_errno_ok(long rc)
{
	return rc < 0 && rc >= -4095;
}

/*
 * One write: 'n' command bytes from the input, its response pointer
 * replaced by the selected one; the response buffer holds exactly what
 * the header says the caller has.
 */
static void fz_write(struct ik_file *f, struct fz_app *app, struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	size_t n = fuzz_u16(in) % 1024, out = 0;
	const uint8_t *src = fuzz_take(in, &n);
	uint8_t *cmd = malloc(n ? n : 1);
	struct ib_uverbs_cmd_hdr hdr = { 0 };
	void *resp_alloc = NULL, *resp;
	uint64_t resp_ptr;
	size_t resp_at = 0; /* offset of the response pointer in cmd */
	ssize_t rc;

	FUZZ_CHECK(cmd, "out of memory");
	memcpy(cmd, src, n);
	fz_patch_addresses(cmd, n);
	if (n >= sizeof(hdr))
		memcpy(&hdr, cmd, sizeof(hdr));
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		struct ib_uverbs_ex_cmd_hdr ex;

		if (n >= sizeof(hdr) + sizeof(ex)) {
			memcpy(&ex, cmd + sizeof(hdr), sizeof(ex));
			out = ((size_t)hdr.out_words + ex.provider_out_words) *
			      8;
		}
		resp_at = sizeof(hdr) +
			  offsetof(struct ib_uverbs_ex_cmd_hdr, response);
	} else {
		/* a command with a response starts its core request with it */
		out = (size_t)hdr.out_words * 4;
		resp_at = sizeof(hdr);
	}
	/* never a pointer from the input: it could name our own memory */
	resp = fz_pointer(sel, out, &resp_alloc);
	resp_ptr = (uintptr_t)resp;
	if (n >= resp_at + sizeof(resp_ptr) && out)
		memcpy(cmd + resp_at, &resp_ptr, sizeof(resp_ptr));

	/* the command buffer itself may be a bad pointer too */
	rc = ik_file_write(f, (sel & 0x18) == 0x18 ? (void *)fz_hole : cmd, n);
	FUZZ_CHECK(rc == (ssize_t)n || fz_errno_ok(rc),
		   "write of %zu bytes (command %#x): %zd", n, hdr.command, rc);

	/* descriptors the kernel handed to the application */
	if (rc > 0 && resp_alloc &&
	    !(hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED)) {
		if (hdr.command == IB_USER_VERBS_CMD_GET_CONTEXT &&
		    out >= sizeof(struct ib_uverbs_get_context_resp))
			fz_keep_fd(app,
				   ((struct ib_uverbs_get_context_resp *)resp)
					   ->async_fd);
		if (hdr.command == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL &&
		    out >= sizeof(struct ib_uverbs_create_comp_channel_resp))
			fz_keep_fd(
				app,
				((struct ib_uverbs_create_comp_channel_resp *)
					 resp)
					->fd);
	}
	free(resp_alloc);
	free(cmd);
}

static void fz_ioctl(struct ik_file *f, struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	unsigned long req = sel & 0x80 ? fuzz_u32(in) : RDMA_VERBS_IOCTL;
	/* the kernel always reads a whole header: give at least that */
	size_t n = sizeof(struct ib_uverbs_ioctl_hdr) + fuzz_u8(in);
	void *alloc = NULL;
	uint8_t *arg = fz_pointer(sel, n, &alloc);
	int rc;

	if (alloc)
		fuzz_bytes(in, arg, n);
	rc = ik_file_ioctl(f, req, arg);
	FUZZ_CHECK(!rc || fz_errno_ok(rc), "ioctl %#lx: %d", req, rc);
	free(alloc);
}

static void fz_mmap(struct ik_file *f, struct fz_app *app, struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	size_t len = (size_t)fuzz_u16(in) << (sel & 4 ? 12 : 0);
	off_t off =
		(off_t)(sel & 8 ? fuzz_u32(in) : (fuzz_u8(in) & 7) * 4096ul);
	int prot = fuzz_u8(in) & 7;
	int flags = (sel & 16 ? MAP_PRIVATE : MAP_SHARED) |
		    (sel & 32 ? MAP_POPULATE : 0);
	int err = 0;
	void *p = ik_file_mmap(f, NULL, len, prot, flags, off, &err);

	if (!p) {
		FUZZ_CHECK(fz_errno_ok(err), "mmap failed with %d", err);
		return;
	}
	FUZZ_CHECK(app->nmaps < FZ_MAX_CALLS, "too many mappings");
	app->maps[app->nmaps].p = p;
	app->maps[app->nmaps++].len = len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	struct fz_app app = { .nfds = 0 };
	struct idev_stats st;
	struct ik_file *f = NULL;
	unsigned int i;

	/* the fuzzer's own descriptors may change between inputs */
	int fds_before = fz_count_fds();

	FUZZ_CHECK(!ik_file_open(0, &f), "open uverbs0");
	for (i = 0; i < FZ_MAX_CALLS && fuzz_more(&in); i++) {
		switch (fuzz_u8(&in) % 4) {
		case 0:
		case 1:
			fz_write(f, &app, &in);
			break;
		case 2:
			fz_ioctl(f, &in);
			break;
		default:
			fz_mmap(f, &app, &in);
			break;
		}
	}

	/* the application exits: unmaps, closes its fds and the device */
	for (i = 0; i < app.nmaps; i++)
		munmap(app.maps[i].p, app.maps[i].len);
	for (i = 0; i < app.nfds; i++)
		close(app.fds[i]);
	ik_file_release(f);

	pthread_mutex_lock(&ik_nics[0]->lock);
	idev_get_stats(ik_nics[0]->dev, &st);
	pthread_mutex_unlock(&ik_nics[0]->lock);
	FUZZ_CHECK(!st.qps && !st.cqs && !st.mrs && !st.ahs,
		   "released file left %u QPs, %u CQs, %u MRs, %u AHs on the "
		   "device",
		   st.qps, st.cqs, st.mrs, st.ahs);
	/* the engine thread may still be closing what it held: a leak is
	 * what stays */
	for (i = 0; i < 100 && fz_count_fds() != fds_before; i++)
		usleep(1000);
	if (fz_count_fds() != fds_before)
		fz_count_fds_print(true);
	FUZZ_CHECK(fz_count_fds() == fds_before,
		   "%d descriptors open, %d before", fz_count_fds(),
		   fds_before);
	return 0;
}
