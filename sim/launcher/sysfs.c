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

#include "../common/hwstats.h"
#include "launcher.h"

#define GID_TBL_LEN 256 /* ionic's gid_tbl_len (query_port) */
/* NIC k's network interface, as the model names it (sim/kernel/kpriv.h) */
#define ILAUNCH_NETDEV "isim%u"
#define ILAUNCH_NETDEV_IFINDEX 0x1dd80
/* NIC k's PCI function: bus k + 1, as each NIC of a server has its own */
#define ILAUNCH_PCI_DIR "devices/pci0000:00/0000:%02x:00.0"

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
			const struct isim_profile *p, uint32_t node,
			unsigned int k)
{
	char rel[512], fmt[200], name[16];
	uint8_t mac[6];
	int rc = 0;

	snprintf(name, sizeof(name), ILAUNCH_NETDEV, k);
	isim_node_mac(node, mac);
	for (unsigned int b = 0; b < 2; b++) {
		if (b == 0)
			snprintf(fmt, sizeof(fmt), "%s/net/%s", dev, name);
		else
			snprintf(fmt, sizeof(fmt), "class/net/%s", name);
#define NETFILE(name, ...)                               \
	(snprintf(rel, sizeof(rel), "%s/%s", fmt, name), \
	 put(root, rel, __VA_ARGS__))
		rc |= NETFILE("ifindex", "%u", ILAUNCH_NETDEV_IFINDEX + k);
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

/*
 * NIC k's PCI function, devices/pci0000:00/0000:<k+1>:00.0, which the IB
 * device's "device" link names as on a real host: its identity, its
 * uverbs device and its network interface.
 */
static int pci_write(const char *root, const struct isim_profile *p,
		     uint32_t node, unsigned int k)
{
	char pci[64], rel[256], link_path[4096], target[128];
	int rc = 0;

#define PCIFILE(name, ...)                               \
	(snprintf(rel, sizeof(rel), "%s/%s", pci, name), \
	 put(root, rel, __VA_ARGS__))
	snprintf(pci, sizeof(pci), ILAUNCH_PCI_DIR, k + 1);
	rc |= PCIFILE("vendor", "0x1dd8");
	rc |= PCIFILE("device", "0x%04x", p->vendor_part_id);
	rc |= PCIFILE("class", "0x020000");
	rc |= PCIFILE("modalias",
		      "pci:v00001DD8d0000%04Xsv00001DD8sd0000%04Xbc02sc00i00",
		      p->vendor_part_id, p->vendor_part_id);
	rc |= PCIFILE(
		"uevent",
		"DRIVER=ionic\nPCI_ID=1DD8:%04X\nPCI_SLOT_NAME=0000:%02x:00.0",
		p->vendor_part_id, k + 1);
	/* netlink discovery reads the uverbs device from under the IB
	 * device when GET_CHARDEV fails (docs/kernel-contract.md §19) */
	snprintf(target, sizeof(target), "infiniband_verbs/uverbs%u/dev", k);
	rc |= PCIFILE(target, "1:3");
	snprintf(target, sizeof(target),
		 "infiniband_verbs/uverbs%u/abi_version", k);
	rc |= PCIFILE(target, "%u", p->abi_version);
	snprintf(target, sizeof(target), "infiniband_verbs/uverbs%u/ibdev", k);
	rc |= PCIFILE(target, "ionic_%u", k);
#undef PCIFILE
	rc |= netdev_write(root, pci, p, node, k);
	if (rc)
		return rc;
	snprintf(link_path, sizeof(link_path), "%s/class/infiniband/ionic_%u",
		 root, k);
	rc = mkdirs(link_path);
	if (rc)
		return rc;
	strcat(link_path, "/device");
	snprintf(target, sizeof(target), "../../../" ILAUNCH_PCI_DIR, k + 1);
	return symlink(target, link_path) ? -errno : 0;
}

static int nic_write(const char *root, const struct isim_profile *p,
		     uint32_t node, unsigned int k)
{
	static const char desc[] = "AMD Pensando RoCE HCA";
	char dev[64], rel[256], text[64], guid[32], ndev[16];
	uint8_t g[16];
	int rc;

	snprintf(dev, sizeof(dev), "class/infiniband/ionic_%u", k);
	snprintf(ndev, sizeof(ndev), ILAUNCH_NETDEV, k);
	rc = pci_write(root, p, node, k);
	if (rc)
		return -EIO;

	/* node GUID = EUI-64 of the MAC = bytes 8..15 of the link-local GID */
	isim_node_gid(node, 0, g);
	snprintf(guid, sizeof(guid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);

	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/ibdev", k);
	rc |= put(root, rel, "ionic_%u", k);
	/* the device fds are /dev/null, char 1:3: fstat matches this */
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/dev", k);
	rc |= put(root, rel, "1:3");
	snprintf(rel, sizeof(rel),
		 "class/infiniband_verbs/uverbs%u/abi_version", k);
	rc |= put(root, rel, "%u", p->abi_version);

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
	/* The hardware counters (common/hwstats.h): the files say 0, the
	 * preload serves a read of one from the run's counter page; IB
	 * core's lifespan (ms a value may be cached) sits next to them. */
	for (unsigned int i = 0; i < ISIM_HWS_N; i++) {
		snprintf(rel, sizeof(rel), "%s/ports/1/hw_counters/%s", dev,
			 isim_hwstat_names[i]);
		rc |= put(root, rel, "0");
	}
	rc |= DEVFILE("ports/1/hw_counters/lifespan", "10");
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
			rc |= put(root, rel, "%s", ndev);
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

int ilaunch_sysfs_write(const char *root, const struct isim_profile *p,
			const uint32_t *nodes, unsigned int n)
{
	int rc = put(root, "class/infiniband_verbs/abi_version", "6");

	for (unsigned int k = 0; k < n && !rc; k++)
		rc = nic_write(root, p, nodes[k], k);
	return rc ? -EIO : 0;
}
