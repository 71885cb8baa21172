#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: unmodified rdma_cm clients (rdmacm-utils) between two
# processes, each with its own emulated NIC under ionic-sim, connecting
# through /dev/infiniband/rdma_cm by the IPv4 address of the server's isim0
# (docs/kernel-contract.md §22).
# Usage: rdmacm.sh <ionic-sim> <case>
#   rping        rping -v -V -C 10: RC SEND/RECV, RDMA READ and WRITE, data
#                verified by rping and counted here on both sides
#   ucmatose     2 RC connections, 20 messages each
#   udaddy       UD with SIDR, address handles from the event
#   rdma-sync    rdma_server / rdma_client (the synchronous API)
#   no-listener  rping -c with nobody listening: REJECTED, error 8
#
# The server is the first process on a fresh fabric, so it is node 1 with
# 198.18.0.1; the client starts once the server's listen endpoint exists.
# work and fabric are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1 case=$2

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
e2e_setup rdmacm

A=198.18.0.1
case $case in
rping)
	srv=(rping -s -a "$A" -v -V -C 10) cli=(rping -c -a "$A" -v -V -C 10)
	ps=0 lport=7174 ;;
ucmatose)
	srv=(ucmatose -b "$A" -c 2 -C 20) cli=(ucmatose -s "$A" -c 2 -C 20)
	ps=0 lport=7471 ;;
udaddy)
	srv=(udaddy -b "$A") cli=(udaddy -s "$A")
	ps=1 lport=7174 ;;
rdma-sync)
	srv=(rdma_server -s "$A") cli=(rdma_client -s "$A")
	ps=0 lport=7471 ;;
no-listener)
	srv=() cli=(rping -c -a "$A" -C 1)
	ps=0 lport=7174 ;;
*)
	echo "unknown case $case"
	exit 2 ;;
esac
command -v "${cli[0]}" >/dev/null || { echo "${cli[0]} not installed"; exit 1; }

run() {
	timeout 40 "$sim" --fabric "$fabric" -- "$@"
}

if [ ${#srv[@]} -gt 0 ]; then
	run "${srv[@]}" >"$work/server.out" 2>&1 &
	server_pid=$!
	e2e_wait_cm_listen "$ps" "$lport"
fi

run "${cli[@]}" >"$work/client.out" 2>&1
client_rc=$?
server_rc=0
if [ -n "$server_pid" ]; then
	wait "$server_pid"
	server_rc=$?
	server_pid=
fi

for side in server client; do
	[ -f "$work/$side.out" ] || continue
	echo "---- $side ----"
	cat "$work/$side.out"
done

fail=0
expect() { # side pattern count
	local n
	n=$(grep -c -- "$2" "$work/$1.out")
	if [ "$n" -ne "$3" ]; then
		echo "FAIL: $1 printed '$2' $n times, expected $3"
		fail=1
	fi
}
case $case in
rping)
	expect client '^ping data: rdma-ping-' 10
	expect server '^server ping data: rdma-ping-' 10 ;;
ucmatose | udaddy)
	expect client '^return status 0$' 1
	expect server '^return status 0$' 1 ;;
rdma-sync)
	expect client '^rdma_client: end 0$' 1
	expect server '^rdma_server: end 0$' 1 ;;
no-listener)
	expect client 'RDMA_CM_EVENT_REJECTED, error 8' 1
	if [ "$client_rc" -eq 0 ] || [ "$client_rc" -eq 124 ]; then
		echo "FAIL: client exit $client_rc, expected a failure"
		fail=1
	fi
	exit $fail ;;
esac
[ "$client_rc" -eq 0 ] || { echo "FAIL: client exit $client_rc"; fail=1; }
[ "$server_rc" -eq 0 ] || { echo "FAIL: server exit $server_rc"; fail=1; }
exit $fail
