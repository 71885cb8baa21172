#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Two ionic-sim NICs in two network namespaces, joined by a veth pair,
# talk RoCEv2 over UDP (--transport udp): an unmodified client runs with
# its server in one namespace and its client in the other, and checks its
# data.  tshark captures the veth meanwhile: the frames on it are real
# RoCEv2 (UDP port 4791) with right ICRCs (tests/e2e/roce_icrc.py), and
# tshark finds the AETH of RC ACKs and the DETH of UD SENDs in them.
# Without tshark the traffic still runs, and then the test skips (77):
# its wire checks did not run (CI does not allow that skip).
#
# The rdma_cm kinds connect through /dev/infiniband/rdma_cm instead of a
# TCP socket: the client resolves the server's isim0 address, which on
# the UDP fabric is its NIC's address, and the CM's MADs cross the veth
# as RoCEv2 UD SENDs (docs/kernel-contract.md §22.5).
#
# The namespaces, the veth pair and their addresses (198.19.N.1 and .2,
# in the RFC 2544 benchmarking range 198.18.0.0/15) are made here and
# removed on every exit; no traffic leaves them.
#
# usage: udp_netns.sh <ionic-sim> KIND [program args...]
#   rc, ud, write-bw   ibv_rc_pingpong, ibv_ud_pingpong, ib_write_bw
#   rping              rping -v -V -C 10 (rdma_cm, RC, data verified)
#   ucmatose           ucmatose, 2 connections of 20 messages
#   udaddy             udaddy: UD, SIDR, address handles from the event
#   send-bw-cm         ib_send_bw -R (perftest's rdma_cm mode)
#   no-listener        rping -c to a NIC where nobody listens: REJECTED 8
#                      (a REQ that nothing answers over UDP, §22.5)
set -u
# tshark and Python are not ours: no sanitizer runtime preloaded into them
notours() { env -u LD_PRELOAD "$@"; }
sim=$1 kind=$2
shift 2
here=$(dirname "$(readlink -f "$0")")
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip (iproute2)"; exit 77; }

tag=$$
nsa=isim-$tag-a nsb=isim-$tag-b
va=isv$tag-a vb=isv$tag-b
x=$(( tag % 250 + 1 ))
a=198.19.$x.1 b=198.19.$x.2
port=$(( 20000 + tag % 20000 ))
work=$(mktemp -d "${TMPDIR:-/tmp}/udp-netns.XXXXXX") || exit 1
pids=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

if ! { ip netns add "$nsa" && ip netns add "$nsb" &&
	ip link add "$va" netns "$nsa" type veth peer name "$vb" netns "$nsb" &&
	ip -n "$nsa" addr add "$a/24" dev "$va" &&
	ip -n "$nsb" addr add "$b/24" dev "$vb" &&
	ip -n "$nsa" link set "$va" up && ip -n "$nsb" link set "$vb" up &&
	ip -n "$nsa" link set lo up && ip -n "$nsb" link set lo up; }; then
	echo "SKIP: cannot make network namespaces here"
	exit 77
fi

# srv and cli: the two command lines; cm: the rdma_cm listen port the
# server's readiness shows in (port space << 16 | port; empty: a TCP port;
# relay: the NIC alone);
# ok: what each side prints once per success (empty: nothing to check),
# n: how often (empty: at least once); crc: the client's exit status
cm='' n='' okc='' crc=0
bw=(-d ionic_0 -i 1 -x 1 -F -n 200 -p "$port")
case $kind in
rc) srv=(ibv_rc_pingpong -g 1 -p "$port" "$@") ok='bytes in .* seconds' ;;
ud) srv=(ibv_ud_pingpong -g 1 -p "$port" "$@") ok='bytes in .* seconds' ;;
write-bw) srv=(ib_write_bw "${bw[@]}" "$@")
	ok='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' ;;
send-bw-cm) srv=(ib_send_bw "${bw[@]}" -R "$@") cm=$port
	ok='^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+' ;;
rping) srv=(rping -s -a "$a" -v -V -C 10 -p "$port") cm=$port n=10
	cli=(rping -c -a "$a" -v -V -C 10 -p "$port")
	ok='^server ping data: rdma-ping-' okc='^ping data: rdma-ping-' ;;
ucmatose) srv=(ucmatose -b "$a" -c 2 -C 20) cm=7471 ok='^return status 0$'
	cli=(ucmatose -s "$a" -c 2 -C 20) ;;
udaddy) srv=(udaddy -b "$a") cm=$(( 1 << 16 | 7174 )) ok='^return status 0$'
	cli=(udaddy -s "$a") ;; # port space UDP (1), its default port
no-listener) srv=(sleep 5) cm=relay ok='' n=1 crc=fail
	cli=(rping -c -a "$a" -C 1 -p "$port")
	okc='RDMA_CM_EVENT_REJECTED, error 8' ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac
[ -n "${cli+set}" ] || cli=("${srv[@]}" "$a")
[ -n "$okc" ] || okc=$ok
command -v "${cli[0]}" >/dev/null || { echo "SKIP: no ${srv[0]}"; exit 77; }
fabric=${IONIC_TEST_FABRIC:-udp-netns}

capture=no
if command -v tshark >/dev/null; then
	ip netns exec "$nsa" env -u LD_PRELOAD tshark -q -i "$va" -F pcap -w "$work/veth.pcap" \
		-f 'udp port 4791' -a duration:60 -c 200 >/dev/null 2>&1 &
	pids+=($!)
	capture=yes
	# tshark starts slowly (seconds on a loaded machine); its dumpcap
	# creates the file as it starts capturing
	for _ in $(seq 300); do
		[ -s "$work/veth.pcap" ] && break
		sleep 0.1
	done
	[ -s "$work/veth.pcap" ] || { echo "FAIL: tshark did not start capturing"; exit 1; }
	sleep 0.2
fi

ip netns exec "$nsa" timeout 90 "$sim" --fabric "$fabric" --transport udp \
	--addr "$a" -- "${srv[@]}" >"$work/server.out" 2>&1 &
server=$!
pids+=("$server")
# the server listens on TCP for the connection data, or with rdma_cm on
# the listen endpoint of (port space, port) of its node, 1 in its
# namespace (docs/kernel-contract.md §22.5); a NIC alone is ready once
# its launcher's relay owns UDP port 4791
listening() {
	if [ "$cm" = relay ]; then
		ip netns exec "$nsa" ss -lun 2>/dev/null | grep -q "$a:4791 "
	elif [ -n "$cm" ]; then
		grep -q "@ionic-sim/$fabric/1/$(( 0xe00000 | cm ))\$" \
			<(ip netns exec "$nsa" cat /proc/net/unix)
	else
		ip netns exec "$nsa" ss -ltn 2>/dev/null | grep -q ":$port "
	fi
}
for _ in $(seq 100); do
	listening && break
	sleep 0.1
done
ip netns exec "$nsb" timeout 90 "$sim" --fabric "$fabric" --transport udp \
	--addr "$b" -- "${cli[@]}" >"$work/client.out" 2>&1
client_rc=$?
wait "$server"
server_rc=$?

fail=0
for side in server client; do
	echo "---- $side ----"
	cat "$work/$side.out"
	pat=$ok
	[ $side = client ] && pat=$okc
	[ -n "$pat" ] || continue
	got=$(grep -E -c -- "$pat" "$work/$side.out")
	if [ -n "$n" ] && [ "$got" -ne "$n" ] || [ "$got" -eq 0 ]; then
		echo "FAIL: $side printed '$pat' $got times, expected ${n:-some}"
		fail=1
	fi
	if grep -q 'invalid data\|Couldn.t\|error status' "$work/$side.out"; then
		echo "FAIL: $side reported an error"
		fail=1
	fi
done
if [ "$crc" = fail ]; then
	# a failed connect, not a hang
	if [ "$client_rc" -eq 0 ] || [ "$client_rc" -eq 124 ]; then
		echo "FAIL: client exit $client_rc, expected a failure"
		fail=1
	fi
elif [ "$client_rc" -ne 0 ]; then
	echo "FAIL: client exit $client_rc"
	fail=1
fi
[ "$server_rc" -eq 0 ] || { echo "FAIL: server exit $server_rc"; fail=1; }
# GID 1 of each NIC is its namespace's address
case $kind in
rc | ud) grep -q "GID ::ffff:$b" "$work/server.out" 2>/dev/null ||
	{ echo "FAIL: the server did not see the client's GID ::ffff:$b"; fail=1; } ;;
esac

if [ "$capture" = yes ]; then
	sleep 1
	kill "${pids[0]}" 2>/dev/null
	wait "${pids[0]}" 2>/dev/null
	echo "---- the veth ----"
	notours tshark -r "$work/veth.pcap" 2>/dev/null | head -8
	n=$(notours tshark -r "$work/veth.pcap" -Y "infiniband && ip.src == $b && ip.dst == $a" 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL: no RoCEv2 from $b to $a on the veth"; fail=1; }
	# the transport's own header decoded on the wire: DETH (with its
	# Q_Key) for UD, AETH (ACKs) for RC
	hdr=
	case $kind in
	rc | write-bw) hdr=infiniband.aeth ;;
	ud) hdr=infiniband.deth ;;
	esac
	if [ -n "$hdr" ] && [ -z "$(notours tshark -r "$work/veth.pcap" -Y "$hdr" 2>/dev/null | head -1)" ]; then
		echo "FAIL: no $hdr on the veth"
		fail=1
	fi
	notours python3 "$here/roce_icrc.py" "$work/veth.pcap" || fail=1
fi
if [ $fail -eq 0 ] && [ "$capture" = no ]; then
	# the traffic passed, but what the test is for besides (real RoCEv2
	# on the veth, right ICRCs) was not checked: a skip, not a pass
	echo "SKIP: no tshark (./build.sh deps installs it): the traffic passed, the wire and ICRC checks did not run"
	exit 77
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
