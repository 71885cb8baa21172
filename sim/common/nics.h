/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ionic-sim: the NICs of an emulated host.  A launcher started with
 * `--nics N` claims N fabric nodes and hands every process of the run
 * their ids, in NIC order, as IONIC_SIM_NODES ("5,6,7"); NIC k is
 * ionic_k, /dev/infiniband/uverbsK and the interface isimK of node
 * nodes[k].  With UDP, IONIC_SIM_ADDR lists the NICs' IPv4 addresses in
 * the same order.  A run of one NIC may set IONIC_SIM_NODE alone (as
 * before there were several).
 */
#ifndef ISIM_NICS_H
#define ISIM_NICS_H

#include <stdbool.h>
#include <stdint.h>

#define ISIM_ENV_NODES "IONIC_SIM_NODES" /* fabric node ids, NIC order */
#define ISIM_MAX_NICS 8

/* The node ids of this host's NICs (at least one: IONIC_SIM_NODES, else
 * IONIC_SIM_NODE, else node 1).  Returns how many. */
unsigned int isim_nics(uint32_t nodes[ISIM_MAX_NICS]);
/* Which NIC of this host is node 'node': its index, or -1. */
int isim_nic_of_node(uint32_t node);
/* The k-th address of IONIC_SIM_ADDR, if it has one. */
bool isim_nic_addr(unsigned int k, uint8_t ip[4]);
/* "a,b,c" of 'n' numbers into buf; 0 or -ENOSPC. */
int isim_nics_format(const uint32_t *nodes, unsigned int n, char *buf,
		     unsigned long len);

#endif /* ISIM_NICS_H */
