// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fake sysfs tree libibverbs reads through $SYSFS_PATH
 * (docs/libibverbs-provider-abi.md §3.2, §3.6; docs/kernel-contract.md §12).
 * Written once before the command starts and never touched again: libibverbs
 * takes the directory's mtime as the device identity.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"

#define GID_TBL_LEN 256 /* ionic's gid_tbl_len (query_port) */
/* the NIC's network interface, as the model names it (sim/kernel/kpriv.h) */
#define ILAUNCH_NETDEV "isim0"
#define ILAUNCH_NETDEV_IFINDEX 0x1dd80

static int mkdirs(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* <root>/<rel> := printf(fmt, ...) followed by a newline.  Directories
 * are made only when the first open says they are missing: syscalls are
 * expensive on the project machines and the tree has ~530 files. */
static int put(const char *root, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put(const char *root, const char *rel, const char *fmt, ...)
{
	char path[4096], body[512];
	char *slash;
	va_list ap;
	int fd, n, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(body) - 1)
		return -EINVAL;
	body[n++] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	if (fd < 0 && errno == ENOENT) {
		slash = strrchr(path, '/');
		*slash = 0;
		rc = mkdirs(path);
		*slash = '/';
		if (rc)
			return rc;
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	}
	if (fd < 0)
		return -errno;
	if (write(fd, body, n) != n)
		rc = -EIO;
	close(fd);
	return rc;
}

static void gid_text(const uint8_t g[16], char *out, size_t len)
{
	snprintf(
		out, len,
		"%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9],
		g[10], g[11], g[12], g[13], g[14], g[15]);
}

/*
 * The network interface (docs/kernel-contract.md §20): the IB device's
 * device/net/<name> as on a real PCI function, and class/net/<name> with
 * the files tools read.  Programs that look at /sys itself reach these
 * through the preload's path redirection.
 */
static int netdev_write(const char *root, const char *dev,
			const struct isim_profile *p, uint32_t node)
{
	static const char *const base[] = { "%s/device/net/" ILAUNCH_NETDEV,
					    "class/net/" ILAUNCH_NETDEV };
	char rel[512], fmt[200];
	uint8_t mac[6];
	int rc = 0;

	isim_node_mac(node, mac);
	for (unsigned int b = 0; b < 2; b++) {
		snprintf(fmt, sizeof(fmt), base[b], dev);
#define NETFILE(name, ...)                               \
	(snprintf(rel, sizeof(rel), "%s/%s", fmt, name), \
	 put(root, rel, __VA_ARGS__))
		rc |= NETFILE("ifindex", "%d", ILAUNCH_NETDEV_IFINDEX);
		rc |= NETFILE("address", "%02x:%02x:%02x:%02x:%02x:%02x",
			      mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		rc |= NETFILE("mtu", "%u", p->netdev_mtu);
		rc |= NETFILE("operstate", "%s", p->port_up ? "up" : "down");
		rc |= NETFILE("carrier", "%d", p->port_up ? 1 : 0);
		rc |= NETFILE("type", "1"); /* ARPHRD_ETHER */
		rc |= NETFILE("speed", "100000");
#undef NETFILE
	}
	return rc;
}

int ilaunch_sysfs_write(const char *root, const struct isim_profile *p,
			uint32_t node)
{
	static const char dev[] = "class/infiniband/ionic_0";
	static const char desc[] = "AMD Pensando RoCE HCA";
	char rel[256], text[64], guid[32];
	uint8_t g[16];
	int rc = 0;

	/* node GUID = EUI-64 of the MAC = bytes 8..15 of the link-local GID */
	isim_node_gid(node, 0, g);
	snprintf(guid, sizeof(guid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);

	rc |= put(root, "class/infiniband_verbs/abi_version", "6");
	rc |= put(root, "class/infiniband_verbs/uverbs0/ibdev", "ionic_0");
	/* the device fds are /dev/null, char 1:3: fstat matches this */
	rc |= put(root, "class/infiniband_verbs/uverbs0/dev", "1:3");
	rc |= put(root, "class/infiniband_verbs/uverbs0/abi_version", "%u",
		  p->abi_version);

#define DEVFILE(name, ...)                               \
	(snprintf(rel, sizeof(rel), "%s/%s", dev, name), \
	 put(root, rel, __VA_ARGS__))
	rc |= DEVFILE("node_type", "1: CA");
	rc |= DEVFILE("node_guid", "%s", guid);
	rc |= DEVFILE("sys_image_guid", "%s", guid);
	rc |= DEVFILE("node_desc", "%s", desc);
	rc |= DEVFILE("hca_type", "%s", desc);
	rc |= DEVFILE("fw_ver", "%s", p->fw_ver);
	rc |= DEVFILE("hw_rev", "0x%x", p->hw_rev);
	rc |= DEVFILE("device/vendor", "0x1dd8");
	rc |= DEVFILE("device/device", "0x%04x", p->vendor_part_id);
	rc |= DEVFILE("device/modalias",
		      "pci:v00001DD8d0000%04Xsv00001DD8sd0000%04Xbc02sc00i00",
		      p->vendor_part_id, p->vendor_part_id);
	/* Port files libibverbs does not read, for humans and scripts. */
	rc |= DEVFILE("ports/1/state", "%s",
		      p->port_up ? "4: ACTIVE" : "1: DOWN");
	rc |= DEVFILE("ports/1/phys_state", "%s",
		      p->port_up ? "5: LinkUp" : "3: Disabled");
	rc |= DEVFILE("ports/1/link_layer", "Ethernet");
	rc |= DEVFILE("ports/1/lid", "0x0");
	rc |= DEVFILE("ports/1/sm_lid", "0x0");
	rc |= DEVFILE("ports/1/lid_mask_count", "0");
	rc |= DEVFILE("ports/1/cap_mask", "0x00000000");
	rc |= DEVFILE("ports/1/pkeys/0", "0xffff");
	/* netlink discovery reads the uverbs device from under the IB
	 * device when GET_CHARDEV fails (docs/kernel-contract.md §19) */
	rc |= DEVFILE("device/infiniband_verbs/uverbs0/dev", "1:3");
	rc |= DEVFILE("device/infiniband_verbs/uverbs0/abi_version", "%u",
		      p->abi_version);
	rc |= DEVFILE("device/infiniband_verbs/uverbs0/ibdev", "ionic_0");
	rc |= netdev_write(root, dev, p, node);
	if (rc)
		return -EIO;

	/*
	 * Every index below gid_tbl_len needs a gids and a types file.
	 * Populated entries are RoCE v2 (ionic has no v1).  Empty ones say
	 * "IB/RoCE v1": a real kernel fails that read with EINVAL, which
	 * libibverbs turns into v1 -- a plain file can only say it.  The
	 * populated ones name the network interface (ndevs).
	 */
	for (unsigned int i = 0; i < 3 && !rc; i++) {
		isim_node_gid(node, i, g);
		gid_text(g, text, sizeof(text));
		snprintf(rel, sizeof(rel), "%s/ports/1/gids/%u", dev, i);
		rc |= put(root, rel, "%s", text);
		snprintf(rel, sizeof(rel), "%s/ports/1/gid_attrs/types/%u", dev,
			 i);
		rc |= put(root, rel, "%s", i < 2 ? "RoCE v2" : "IB/RoCE v1");
		if (i < 2) {
			snprintf(rel, sizeof(rel),
				 "%s/ports/1/gid_attrs/ndevs/%u", dev, i);
			rc |= put(root, rel, "%s", ILAUNCH_NETDEV);
		}
	}
	/* Entries 3.. are all empty: hard links to entry 2 (creating a file
	 * costs ~1 ms on the project machines' ext4, a link ~20 us). */
	for (unsigned int i = 3; i < GID_TBL_LEN && !rc; i++) {
		static const char *const kind[] = { "gids", "gid_attrs/types" };

		for (unsigned int k = 0; k < 2; k++) {
			char from[4096], to[4096];

			snprintf(from, sizeof(from), "%s/%s/ports/1/%s/2", root,
				 dev, kind[k]);
			snprintf(to, sizeof(to), "%s/%s/ports/1/%s/%u", root,
				 dev, kind[k], i);
			if (link(from, to))
				rc = -errno;
		}
	}
#undef DEVFILE
	return rc ? -EIO : 0;
}
