#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Runs COMMAND in a network namespace of its own whose loopback has
# ADDRESS, so that an ionic-sim NIC on the UDP fabric can take that address
# (--addr) outside lo's 127/8, where rdma_cm finds no device
# (docs/kernel-contract.md §22.5).  The namespace is removed on every exit;
# COMMAND's exit status is this script's.
#
# usage: lo_netns.sh ADDRESS COMMAND [ARGS...]
set -u
addr=$1
shift
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip (iproute2)"; exit 77; }

ns=isim-lo-$$
# shellcheck disable=SC2317 # called by the trap
cleanup() { ip netns del "$ns" 2>/dev/null; }
trap cleanup EXIT
if ! { ip netns add "$ns" && ip -n "$ns" link set lo up &&
	ip -n "$ns" addr add "$addr/32" dev lo; }; then
	echo "SKIP: cannot make a network namespace here"
	exit 77
fi
ip netns exec "$ns" "$@"
