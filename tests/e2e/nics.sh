#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: several NICs per emulated host (ionic-sim --nics N), seen and
# used by unmodified tools.  Usage: nics.sh <ionic-sim> CASE
#
#   list      ibv_devices, ibv_devinfo, rdma dev, rdma link, ip link/addr
#             and the sysfs tree show ionic_0..3 with distinct GUIDs, GIDs,
#             MACs and addresses (libibverbs also without netlink); rdma
#             resource shows a QP on ionic_1 under ionic_1 alone
#   rc, ud    ibv_{rc,ud}_pingpong from ionic_1 to ionic_0 of one launcher
#   cross     ibv_rc_pingpong between NIC 1 of one launcher and NIC 0 of
#             another on the same fabric
#   udp       the same as rc on the UDP fabric, one address per NIC (--addr
#             A gives A, A+1)
#   cm        rdma_cm to NIC 1 of a two-NIC launcher from another launcher:
#             rping to a server bound to NIC 1's address (data verified),
#             udaddy to a server listening on every address
#   pyverbs   pyverbs (/usr/bin/python3) lists and opens every device
#   eight     --nics 8 comes up (every device opened by one process) and
#             leaves nothing behind
#   refuse    --nics 0, 9 and x, and --addr lists of the wrong length, are
#             refused with a message and status 2
#   counters  the ports' hardware counters, two processes of one launcher
#             (ibv_rc_pingpong, ionic_1 <- ionic_0, --direct on and off):
#             sysfs hw_counters/ and `rdma statistic show` say the same,
#             each NIC moved by exactly the pingpong's frames, the same on
#             both paths (the direct one did carry messages); a process
#             scribbling on the counter page stops nobody
# work, fabric and port are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1 case=$2

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
e2e_setup nics
# the sanitizer build: its runtime first for the uninstrumented tools
e2e_san_runtime || :
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# `rdma statistic show` as one line per link ("link ionic_0/1 name value
# ..."): iproute2 6.1 (Debian 12) prints a link's counters on its line,
# 6.15 (Debian 13) one counter per indented line below it
# shellcheck disable=SC2317 # called by the commands run in the hosts
stat_lines() {
	awk '$1 == "link" { if (l != "") print l; l = "" }
		{ for (i = 1; i <= NF; i++) l = l (l == "" ? "" : " ") $i }
		END { if (l != "") print l }'
}
export -f stat_lines

# every output line of the tools, for the log
run() { # file, launcher args..., -- command
	local out=$1
	shift
	timeout 60 "$sim" --fabric "$fabric" "$@" >"$out" 2>&1
	local rc=$?
	cat "$out"
	return $rc
}

# Two sides of a pingpong in one launcher: server on $1, client on $2.
# The GIDs the two sides must show: sgid, cgid (IPv4 addresses).
pingpong_one_host() { # prog, server dev, client dev, launcher args...
	local prog=$1 sdev=$2 cdev=$3
	shift 3
	# shellcheck disable=SC2016 # expanded by the inner shell
	run "$work/pp.out" "$@" -- bash -c '
		"$1" -d "$2" -g 1 -p "$4" -n 200 -c $5 >"$6/server.out" 2>&1 &
		srv=$!
		for _ in $(seq 200); do
			ss -ltn "sport = :$4" | grep -q ":$4" && break
			sleep 0.1
		done
		"$1" -d "$3" -g 1 -p "$4" -n 200 -c $5 127.0.0.1 >"$6/client.out" 2>&1
		crc=$?
		wait $srv
		src=$?
		cat "$6/server.out" "$6/client.out"
		exit $((crc | src))' sh "$prog" "$sdev" "$cdev" "$port" \
		"$([ "$prog" = ibv_ud_pingpong ] && echo "-s 1024")" "$work" ||
		bad "$prog -d $cdev -> -d $sdev failed"
	[ "$(grep -c 'iters in' "$work/pp.out")" = 2 ] ||
		bad "$prog: both sides should print their latency"
	! grep -q 'invalid data' "$work/pp.out" || bad "$prog: corrupted data"
	# each side's own GID: ionic_1's, ionic_0's
	grep -q "local address:.*GID ::ffff:$sgid\$" "$work/server.out" ||
		bad "the server did not use $sdev's GID $sgid"
	grep -q "local address:.*GID ::ffff:$cgid\$" "$work/client.out" ||
		bad "the client did not use $cdev's GID $cgid"
}

case $case in
list)
	# shellcheck disable=SC2016
	run "$work/list.out" --nics 4 -- sh -c '
		ibv_devices; ibv_devinfo -v | grep -E "hca_id|node_guid|GID\[ *1\]"
		rdma dev; rdma link; ip -o link show; ip -o addr show
		cat "$SYSFS_PATH"/class/infiniband/ionic_*/ports/1/gid_attrs/ndevs/1
		readlink "$SYSFS_PATH"/class/infiniband/ionic_3/device
		cat /sys/class/infiniband/ionic_2/device/net/isim2/address
		# a QP on ionic_1 (the pingpong server waits in INIT)
		ibv_rc_pingpong -d ionic_1 -g 1 -p "$1" >/dev/null 2>&1 &
		pp=$!
		for _ in $(seq 100); do
			rdma resource show qp | grep -q "ionic_1/1 .*state INIT" && break
			sleep 0.1
		done
		rdma resource show qp | sed "s/^/res-qp /"
		rdma resource | sed "s/^/res /"
		kill $pp; wait $pp; true' sh "$port" ||
		bad "tools failed under --nics 4"
	grep -q '^res-qp link ionic_1/1 lqpn 2 .*type RC state INIT' "$work/list.out" ||
		bad "rdma resource: no RC QP 2 on ionic_1"
	! grep -q '^res-qp link ionic_0' "$work/list.out" ||
		bad "rdma resource: ionic_1's QP listed under ionic_0 too"
	grep -q '^res 1: ionic_1: pd 1 cq 1 qp 1 ' "$work/list.out" ||
		bad "rdma resource: ionic_1's summary is not its PD, CQ and QP"
	grep -q '^res 0: ionic_0: pd 0 cq 0 qp 0 ' "$work/list.out" ||
		bad "rdma resource: ionic_0's summary counts ionic_1's objects"
	for k in 0 1 2 3; do
		n=$((k + 1))
		grep -Eq "^ *ionic_${k}[[:space:]]+001dd8fffe00000$n\$" "$work/list.out" ||
			bad "ibv_devices: no ionic_$k with node $n's GUID"
		grep -q "^$k: ionic_$k: node_type ca .*node_guid 001d:d8ff:fe00:000$n" \
			"$work/list.out" || bad "rdma dev: no ionic_$k"
		grep -q "^link ionic_$k/1 state ACTIVE .*netdev isim$k" \
			"$work/list.out" || bad "rdma link: no ionic_$k/1 on isim$k"
		grep -q "isim$k: .*link/ether 02:1d:d8:00:00:0$n" "$work/list.out" ||
			bad "ip link: no isim$k with node $n's MAC"
		grep -q "isim$k *inet 198.18.0.$n/15" "$work/list.out" ||
			bad "ip addr: no 198.18.0.$n on isim$k"
		grep -q "GID\[  1\]:.*::ffff:198.18.0.$n" "$work/list.out" ||
			bad "ibv_devinfo: ionic_$k's GID 1 is not node $n's"
		grep -qx "isim$k" "$work/list.out" ||
			bad "sysfs: ionic_$k's GIDs name no isim$k"
	done
	[ "$(grep -c hca_id "$work/list.out")" = 4 ] || bad "ibv_devinfo: not 4 devices"
	# without RDMA netlink libibverbs finds them through sysfs alone
	run "$work/sysfs.out" --nics 3 --no-netlink -- ibv_devices ||
		bad "ibv_devices without netlink failed"
	[ "$(grep -c '^ *ionic_[0-2][[:space:]]' "$work/sysfs.out")" = 3 ] ||
		bad "ibv_devices without netlink: not 3 devices"
	grep -qx '../../../devices/pci0000:00/0000:04:00.0' "$work/list.out" ||
		bad "sysfs: ionic_3's device is not PCI function 0000:04:00.0"
	grep -qx '02:1d:d8:00:00:03' "$work/list.out" ||
		bad "sysfs: /sys/class/infiniband/ionic_2/device/net/isim2 missing"
	;;
rc | ud)
	# the launcher's first NIC is node 1 (198.18.0.1), its second node 2
	sgid=198.18.0.2 cgid=198.18.0.1
	pingpong_one_host "ibv_${case}_pingpong" ionic_1 ionic_0 --nics 2
	;;
udp)
	# addresses of lo's 127/8, A and A+1 (another test's launchers take
	# the first free of 127.18.0.x: stay clear of them)
	net=127.18.$((RANDOM % 200 + 20)) host=$((RANDOM % 200 + 1))
	a=$net.$host sgid=$net.$((host + 1)) cgid=$net.$host
	pingpong_one_host ibv_rc_pingpong ionic_1 ionic_0 --nics 2 \
		--transport udp --addr "$a"
	;;
cross)
	# shellcheck disable=SC2016
	timeout 60 "$sim" --fabric "$fabric" --nics 2 -- sh -c \
		'exec ibv_rc_pingpong -d ionic_1 -g 1 -p "$1" -n 200 -c' sh "$port" \
		>"$work/server.out" 2>&1 &
	server_pid=$!
	e2e_wait_listen || bad "server did not listen"
	timeout 60 "$sim" --fabric "$fabric" -- ibv_rc_pingpong -d ionic_0 -g 1 \
		-p "$port" -n 200 -c 127.0.0.1 >"$work/client.out" 2>&1 ||
		bad "client failed"
	wait "$server_pid" || bad "server failed"
	server_pid=
	cat "$work/server.out" "$work/client.out"
	# the first launcher holds nodes 1 and 2, the second node 3
	grep -q 'remote address:.*GID ::ffff:198.18.0.2' "$work/client.out" ||
		bad "the client did not reach NIC 1 (node 2) of the first launcher"
	grep -q 'remote address:.*GID ::ffff:198.18.0.3' "$work/server.out" ||
		bad "the server did not hear from node 3"
	;;
cm)
	e2e_require rdmacm-utils rping udaddy
	# the first launcher holds nodes 1 and 2: NIC 1 is 198.18.0.2
	timeout 60 "$sim" --fabric "$fabric" --nics 2 -- \
		rping -s -a 198.18.0.2 -p "$port" -v -V -C 5 >"$work/server.out" 2>&1 &
	server_pid=$!
	e2e_wait_cm_listen_node 2 0 "$port" || bad "rping server did not listen on node 2"
	timeout 60 "$sim" --fabric "$fabric" -- rping -c -a 198.18.0.2 -p "$port" \
		-v -V -C 5 >"$work/client.out" 2>&1 || bad "rping client failed"
	wait "$server_pid" || bad "rping server failed"
	server_pid=
	cat "$work/server.out" "$work/client.out"
	[ "$(grep -c 'ping data: rdma-ping-' "$work/client.out")" = 5 ] ||
		bad "rping: not 5 verified pings"
	# udaddy's server binds no address: it listens on both NICs, and its
	# SIDR answer names NIC 1, where its QP is
	timeout 60 "$sim" --fabric "$fabric" --nics 2 -- udaddy \
		>"$work/server.out" 2>&1 &
	server_pid=$!
	e2e_wait_cm_listen_node 2 1 7174 || bad "udaddy server did not listen on node 2"
	timeout 60 "$sim" --fabric "$fabric" -- udaddy -s 198.18.0.2 \
		>"$work/client.out" 2>&1 || bad "udaddy client failed"
	wait "$server_pid" || bad "udaddy server failed"
	server_pid=
	cat "$work/server.out" "$work/client.out"
	[ "$(grep -c 'return status 0' "$work/server.out" "$work/client.out" |
		grep -c ':1$')" = 2 ] || bad "udaddy: a side did not complete"
	;;
pyverbs)
	# shellcheck disable=SC2016
	run "$work/py.out" --nics 3 -- /usr/bin/python3 -c '
import pyverbs.device as d
names = []
for dev in d.get_device_list():
    name = dev.name.decode()
    with d.Context(name=name) as ctx:
        print(name, ctx.query_device().node_guid, ctx.query_gid(1, 1))
    names.append(name)
print("devices:", " ".join(names))' || bad "pyverbs failed"
	grep -qx 'devices: ionic_0 ionic_1 ionic_2' "$work/py.out" ||
		bad "pyverbs did not list ionic_0..2"
	# GID 1 of nodes 1..3: ::ffff:198.18.0.N
	[ "$(grep -Ec '^ionic_[0-2] [0-9]+ .*:ffff:c612:000[1-3]$' "$work/py.out")" = 3 ] ||
		bad "pyverbs did not open three devices with their own GIDs"
	;;
eight)
	export TMPDIR=$work
	# shellcheck disable=SC2016
	run "$work/eight.out" --nics 8 -- sh -c 'ibv_devices | grep -c ionic_
		for k in 0 1 2 3 4 5 6 7; do
			ibv_devinfo -d ionic_$k | grep -q PORT_ACTIVE || echo "ionic_$k down"
		done' || bad "--nics 8 failed"
	grep -qx 8 "$work/eight.out" || bad "ibv_devices did not list 8 devices"
	! grep -q down "$work/eight.out" || bad "a port was not active"
	for d in "$work"/ionic-sim.*; do
		[ ! -e "$d" ] || bad "run directory left behind: $d"
	done
	! grep -q "@ionic-sim/$fabric/" /proc/net/unix ||
		bad "a node socket is still bound"
	;;
counters)
	# 100 messages of 4096 bytes each way at MTU 1024: per NIC 400 data
	# packets of 14+20+8+12 header + 1024 + 4 ICRC bytes and 100 ACKs of
	# 62 bytes sent, the same received
	want_pkts=500 want_bytes=$((400 * (58 + 1024) + 100 * 62))
	for mode in on off; do
		# shellcheck disable=SC2016
		run "$work/cnt-$mode.out" --nics 2 --direct $mode \
			--trace "$work/tr-$mode.log" -- bash -c '
			ibv_rc_pingpong -d ionic_1 -g 1 -p "$1" -n 100 -s 4096 \
				>/dev/null 2>&1 &
			srv=$!
			for _ in $(seq 200); do
				ss -ltn "sport = :$1" | grep -q ":$1" && break
				sleep 0.1
			done
			ibv_rc_pingpong -d ionic_0 -g 1 -p "$1" -n 100 -s 4096 \
				127.0.0.1 >/dev/null 2>&1 || echo "client failed"
			wait $srv || echo "server failed"
			for k in 0 1; do
				for n in tx_rdma_ucast_pkts tx_rdma_ucast_bytes \
					rx_rdma_ucast_pkts rx_rdma_ucast_bytes; do
					echo "sysfs ionic_$k/1 $n $(cat /sys/class/infiniband/ionic_$k/ports/1/hw_counters/$n)"
				done
			done
			rdma statistic show | stat_lines | sed "s/^/nl /"
			rdma statistic show link ionic_1/1 | stat_lines |
				sed "s/^/nl1 /"' \
			sh "$port" || bad "--direct $mode: the run failed"
		! grep -q failed "$work/cnt-$mode.out" ||
			bad "--direct $mode: the pingpong failed"
		for k in 0 1; do
			for d in tx rx; do
				grep -qx "sysfs ionic_$k/1 ${d}_rdma_ucast_pkts $want_pkts" \
					"$work/cnt-$mode.out" ||
					bad "--direct $mode: ionic_$k ${d} packets are not $want_pkts"
				grep -qx "sysfs ionic_$k/1 ${d}_rdma_ucast_bytes $want_bytes" \
					"$work/cnt-$mode.out" ||
					bad "--direct $mode: ionic_$k ${d} bytes are not $want_bytes"
			done
			grep -qx "nl link ionic_$k/1 tx_rdma_ucast_bytes $want_bytes tx_rdma_ucast_pkts $want_pkts rx_rdma_ucast_bytes $want_bytes rx_rdma_ucast_pkts $want_pkts" \
				"$work/cnt-$mode.out" ||
				bad "--direct $mode: rdma statistic show disagrees for ionic_$k"
		done
		grep -q "^nl1 link ionic_1/1 tx_rdma_ucast_bytes $want_bytes " \
			"$work/cnt-$mode.out" ||
			bad "--direct $mode: rdma statistic show link ionic_1/1"
	done
	# the counts above are the direct path's only if it carried messages
	direct=$(grep -c 'DIRECT qp .*pkts)$' "$work/tr-on.log")
	echo "messages on the direct path: $direct (on)," \
		"$(grep -c 'DIRECT qp .*pkts)$' "$work/tr-off.log") (off)"
	[ "$direct" -ge 100 ] || bad "--direct on: only $direct messages went directly"
	! grep -q 'DIRECT qp .*pkts)$' "$work/tr-off.log" ||
		bad "--direct off: messages went directly"
	# scribbling on the page (its counters, all but the header) while
	# two processes count into it: both finish their pingpong
	# shellcheck disable=SC2016
	run "$work/scribble.out" --nics 2 -- bash -c '
		( while :; do
			head -c 4032 /dev/urandom |
				dd of="$IONIC_SIM_RUNDIR/hw_counters" bs=64 seek=1 \
					conv=notrunc status=none
		done ) &
		scr=$!
		ibv_rc_pingpong -d ionic_1 -g 1 -p "$1" -n 2000 >/dev/null 2>&1 &
		srv=$!
		for _ in $(seq 200); do
			ss -ltn "sport = :$1" | grep -q ":$1" && break
			sleep 0.1
		done
		ibv_rc_pingpong -d ionic_0 -g 1 -p "$1" -n 2000 127.0.0.1 \
			>/dev/null 2>&1 || echo "client failed"
		wait $srv || echo "server failed"
		kill $scr; wait $scr 2>/dev/null
		cat /sys/class/infiniband/ionic_0/ports/1/hw_counters/tx_rdma_ucast_pkts' \
		sh "$port" || bad "scribbled page: the run failed"
	! grep -q failed "$work/scribble.out" ||
		bad "scribbled page: the pingpong failed"
	grep -Eqx '[0-9]+' "$work/scribble.out" ||
		bad "scribbled page: the counter does not read as a number"
	;;
refuse)
	for n in 0 9 x; do
		timeout 20 "$sim" --fabric "$fabric" --nics $n -- true \
			>"$work/r.out" 2>&1
		rc=$?
		cat "$work/r.out"
		[ $rc = 2 ] || bad "--nics $n: status $rc, want 2"
		grep -q -- '--nics takes 1 to 8' "$work/r.out" ||
			bad "--nics $n: no message"
	done
	timeout 20 "$sim" --fabric "$fabric" --nics 3 --transport udp \
		--addr 127.18.9.1,127.18.9.2 -- true >"$work/r.out" 2>&1
	rc=$?
	cat "$work/r.out"
	if [ $rc != 2 ] || ! grep -q '2 addresses for 3 NICs' "$work/r.out"; then
		bad "--addr with 2 addresses for 3 NICs: status $rc"
	fi
	;;
*)
	echo "unknown case $case" >&2
	exit 2
	;;
esac
exit $fail
