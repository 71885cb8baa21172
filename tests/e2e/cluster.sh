#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end on an emulated cluster (`ionic-sim cluster`, sim/README.md):
# hosts h1..hH in network, UTS and mount namespaces of their own, joined
# by a bridge, each with its NICs on the RoCEv2/UDP wire; unmodified
# programs run across hosts as they would between real machines.
#
#   lifecycle  up, exec and down: host names, /etc/hosts, private /tmp,
#              the same NIC for every command of a host, exit statuses,
#              the remote shell Open MPI is given; down ends a command
#              still running on a host and leaves no process, namespace,
#              mount, link or file behind
#   rdmacm     rping -V (data verified) from h4 to h1 and ib_send_bw -R
#              (perftest over rdma_cm) from h3 to h2
#   mpi        Open MPI over UCX on 4 hosts, one rank per host, started by
#              an unmodified `mpirun --host h1,h2,h3,h4` on h1: a
#              collective job whose every rank checks its results
#              (mpi_collective.c: allgather, allreduce, alltoall), and
#              NetPIPE's integrity check between h1 and h4
#   ucx        ucx_perftest between h1 and h2 (tag_bw): with UCX's
#              defaults on NIC 0, then over every NIC (UCX's rails); each
#              NIC's port frames (/proc/net/dev) and its own RDMA counters
#              (rdma statistic show, sysfs hw_counters/) show its share
#   fabric     libfabric's fi_pingpong (verbs, msg) from h2 to h1, data
#              checked
#
# CLUSTER_NICS (default 1) NICs per host.  UCX chooses its transports by
# itself where it can (ucx_env below); Open MPI runs as root (CI).
# Usage: cluster.sh <ionic-sim> KIND.  Exits 77 (skip) when a tool is
# missing or without root.
set -u
sim=$1 kind=$2
case $sim in */*) sim=$(readlink -f "$sim") ;; esac
here=$(dirname "$(readlink -f "$0")")
nics=${CLUSTER_NICS:-1}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network and mount namespaces)"; exit 77; }
for c in ip unshare nsenter; do
	command -v "$c" >/dev/null || { echo "SKIP: no $c (iproute2, util-linux)"; exit 77; }
done
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"
need() { e2e_require "$@"; }

name=t$$
# the work directory is seen by every host (their /tmp is their own)
root=${TMPDIR:-/var/tmp}
case $root in /tmp | /tmp/*) root=/var/tmp ;; esac
work=$(mktemp -d "$root/cluster.XXXXXX") || exit 1
pids=()
up=no
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	[ "$up" = yes ] && "$sim" cluster down "$name"
	rm -rf "$work"
}
trap cleanup EXIT
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

hosts=4
[ "$kind" = ucx ] || [ "$kind" = fabric ] && hosts=2
# each host's NIC 0, then its others
addr() { echo "198.18.${2:-0}.$1"; }
on() { # on HOST CMD...: CMD on HOST, at most 90 s
	local h=$1
	shift
	timeout -k 5 90 "$sim" cluster exec "$name" "$h" -- "$@"
}
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
bring_up() {
	local t0=$EPOCHREALTIME
	"$sim" cluster up "$name" --hosts "$hosts" --nics "$nics" ||
		{ echo "FAIL: cluster up"; exit 1; }
	up=yes
	echo "cluster $name: $hosts hosts x $nics NICs up in $(since "$t0") s"
}
# wait_cm HOST SPACE PORT [NIC]: until HOST's NIC (default 0) listens
# with rdma_cm on (port space, port): its listen endpoint, an abstract
# socket of the NIC's node (docs/kernel-contract.md §22.5)
wait_cm() {
	local qpn=$(($2 << 16 | $3 | 0xe00000)) node
	# shellcheck disable=SC2016 # expanded on the host
	node=$(on "$1" sh -c 'echo "${IONIC_SIM_NODES:-$IONIC_SIM_NODE}"' | cut -d, -f$((${4:-0} + 1)))
	for _ in $(seq 100); do
		on "$1" grep -q "@ionic-sim/default/$node/$qpn\$" /proc/net/unix && return 0
		sleep 0.1
	done
	bad "nobody listens on $1 (rdma_cm port $3)"
	return 1
}
# wait_tcp HOST PORT
wait_tcp() {
	for _ in $(seq 200); do
		on "$1" ss -ltn | grep -q ":$2 " && return 0
		sleep 0.1
	done
	bad "nobody listens on $1 (TCP port $2)"
	return 1
}

# port_packets HOST J: "sent received" frames of NIC J's port on HOST
# (/proc/net/dev: the host's network namespace; /sys is the machine's)
# shellcheck disable=SC2016 # awk's fields
port_packets() {
	on "$1" awk -v p="eth$2" -F '[: ]+' '$2 == p { print $12, $4 }' /proc/net/dev
}
# "tx rx" frames NIC $2 of host $1 counted itself (its port's hardware
# counters, as `rdma statistic show` reads them on a real host); then
# the same from sysfs (hw_counters/), which must agree
rdma_packets() {
	on "$1" rdma statistic show link "ionic_$2/1" | awk '{
		for (i = 1; i < NF; i++) {
			if ($i == "tx_rdma_ucast_pkts") t = $(i + 1)
			if ($i == "rx_rdma_ucast_pkts") r = $(i + 1)
		}
	} END { print t, r }'
}
rdma_packets_sysfs() {
	local d=/sys/class/infiniband/ionic_$2/ports/1/hw_counters
	on "$1" cat "$d/tx_rdma_ucast_pkts" "$d/rx_rdma_ucast_pkts" | paste -sd ' '
}

# host_udp HOST: "sent received" UDP datagrams of HOST's network stack
# (/proc/net/snmp), all of them its NICs' RoCEv2 frames while a job runs:
# what the NICs carried, whatever else (TCP) UCX may use beside them
# shellcheck disable=SC2016 # awk's fields
host_udp() {
	on "$1" awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $5, $2 }' /proc/net/snmp
}

# server HOST OUT CMD...: CMD in the background on HOST
server() {
	local h=$1 out=$2
	shift 2
	on "$h" "$@" >"$out" 2>&1 &
	pids+=($!)
}

# ucx_env: REPLY = the UCX variables the hosts' jobs need, none from UCX
# 1.18 on (Debian 13): between hosts (boot ids of their own) UCX's shared
# memory and CMA reach no peer, rc_verbs wants an SRQ, which ionic has
# not, and drops out ("failed to query rc_verbs resources"), and UCX picks
# ud_verbs, with its destination-GID check on.  UCX 1.13 (Debian 12) lists
# rc_verbs all the same and fails in ibv_create_srq (EOPNOTSUPP): only
# UCX_TLS=ud_verbs there.
ucx_env() {
	local v maj min
	v=$(ucx_info -v | sed -n '1s/.*[Vv]ersion:\{0,1\} *\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	read -r maj min <<<"$v"
	REPLY=
	if [ -z "$v" ] || [ "$maj" -lt 1 ] || { [ "$maj" -eq 1 ] && [ "$min" -lt 18 ]; }; then
		REPLY=UCX_TLS=ud_verbs
	fi
	echo "UCX ${maj:-?}.${min:-?}: ${REPLY:-no UCX variable}"
}

show() {
	echo "---- $1 ----"
	cat "$2"
}

lifecycle() {
	local k j h p v nets=() ids=()
	# up's own temporary files go to a directory of this test (other
	# tests bring clusters up meanwhile), which must end up empty
	local tmp=$work/up-tmp
	mkdir "$tmp" || exit 1
	export TMPDIR=$tmp
	# a host that cannot start (its launcher refuses an option): up fails,
	# says why, and takes down what it had brought up
	"$sim" cluster up "$name" --hosts 3 --no-such-option 1 >"$work/bad.out" 2>&1
	v=$?
	[ "$v" -eq 125 ] || bad "up with a bad launcher option: exit $v, not 125"
	grep -q 'no_such_option' "$work/bad.out" || { cat "$work/bad.out"; bad "up did not pass on the launcher's complaint"; }
	"$sim" cluster list | grep -q "^$name:" && bad "a failed up left cluster $name"
	bring_up
	"$sim" cluster list | grep -qx "$name: $hosts hosts" || bad "cluster list does not show $name"
	for ((k = 1; k <= hosts; k++)); do
		h=h$k
		v=$(on "$h" hostname)
		[ "$v" = "$h" ] || bad "$h calls itself '$v'"
		v=$(on "$h" getent hosts h$((hosts + 1 - k)))
		[ "${v%% *}" = "$(addr $((hosts + 1 - k)))" ] || bad "$h resolves h$((hosts + 1 - k)) to '$v'"
		# every command of the host reaches the same NICs: its run
		# directory, its addresses (GID 1 of each)
		# shellcheck disable=SC2016 # expanded on the host
		v=$(on "$h" sh -c 'echo "$IONIC_SIM_RUNDIR $IONIC_SIM_ADDR"')
		# shellcheck disable=SC2016 # expanded on the host
		[ "$v" = "$(on "$h" sh -c 'echo "$IONIC_SIM_RUNDIR $IONIC_SIM_ADDR"')" ] ||
			bad "$h: two commands see different NICs"
		[[ $v == *" $(addr "$k")"* ]] || bad "$h's NIC: $v"
		# NIC J: ionic_J, its port ethJ with 198.18.J.K
		[ "$(on "$h" ibv_devices | grep -c ' ionic_')" -eq "$nics" ] ||
			bad "$h: ibv_devices does not list $nics NICs"
		for ((j = 0; j < nics; j++)); do
			v=$(on "$h" ip -4 -o addr show dev "eth$j")
			[[ $v == *" $(addr "$k" "$j")/24 "* ]] || bad "$h's eth$j: $v"
			on "$h" ibv_devinfo -v -d "ionic_$j" >"$work/devinfo" 2>&1 || bad "$h: ibv_devinfo -d ionic_$j failed"
			grep -q "::ffff:$(addr "$k" "$j")" "$work/devinfo" ||
				{ cat "$work/devinfo"; bad "$h: ionic_$j has no GID ::ffff:$(addr "$k" "$j")"; }
		done
		on "$h" sh -c "echo $h >/tmp/mine" || bad "$h: cannot write its /tmp"
		nets+=("$(on "$h" stat -L -c %i /proc/self/ns/net)")
		# a machine of its own: its System V IPC, its boot id
		ids+=("$(on "$h" stat -L -c ipc:%i /proc/self/ns/ipc)"
			"$(on "$h" cat /proc/sys/kernel/random/boot_id)")
		[ "${ids[-1]}" = "$(on "$h" cat /proc/sys/kernel/random/boot_id)" ] ||
			bad "$h's boot id changes"
	done
	ids+=("$(stat -L -c ipc:%i /proc/self/ns/ipc)" "$(cat /proc/sys/kernel/random/boot_id)")
	v=$(printf '%s\n' "${ids[@]}" | sort | uniq -d)
	[ -z "$v" ] || bad "hosts (or a host and the machine) share an IPC namespace or boot id: $v"
	# private /tmp: each host sees its own file only, the machine none
	[ "$(on h1 cat /tmp/mine)" = h1 ] || bad "h1's /tmp/mine is not h1's"
	[ "$(on h2 cat /tmp/mine)" = h2 ] || bad "h2's /tmp/mine is not h2's"
	[ ! -e /tmp/mine ] || bad "a host's /tmp/mine reached the machine's /tmp"
	[ "$(on h3 sh -c 'ls /dev/shm | wc -l')" = 0 ] || bad "h3's /dev/shm is not empty"
	on h2 sh -c 'exit 3'
	[ $? -eq 3 ] || bad "exec did not return the command's exit status"
	# the remote shell Open MPI is given, from h1 to h4, as ssh runs it
	# shellcheck disable=SC2016 # expanded on h1
	v=$(on h1 sh -c '$OMPI_MCA_plm_rsh_agent h4 "echo \$(hostname) \${IONIC_SIM_ADDR%%,*}"')
	[ "$v" = "h4 $(addr 4)" ] || bad "rsh from h1 to h4 ran on '$v'"
	# TCP between hosts, by name
	server h3 "$work/tcp.out" python3 -c '
import socket
s = socket.socket(); s.bind(("0.0.0.0", 5555)); s.listen(1)
c, a = s.accept(); c.sendall(a[0].encode()); c.close()'
	wait_tcp h3 5555
	v=$(on h1 python3 -c 'import socket; s = socket.create_connection(("h3", 5555)); print(s.recv(64).decode())')
	[ "$v" = "$(addr 1)" ] || bad "h1 -> h3 over TCP: '$v'"
	# a command left running: down ends it
	on h2 sleep 1000 &
	p=$!
	sleep 0.5
	local t0=$EPOCHREALTIME
	"$sim" cluster down "$name" || bad "cluster down failed"
	echo "cluster $name down in $(since "$t0") s"
	up=no
	wait "$p" 2>/dev/null && bad "the command left running on h2 was not ended"
	# nothing left: no process of the cluster, no process in a host's
	# network namespace (so no namespace, mount or veth: they go with it),
	# no temporary file, no link in this namespace
	"$sim" cluster list | grep -q "^$name:" && bad "cluster list still shows $name"
	for p in /proc/[0-9]*; do
		IFS= read -r -d '' v 2>/dev/null <"$p/cmdline" || continue
		case $v in *":$name:"* | *":$name") bad "left behind: ${p#/proc/} $v" ;; esac
	done
	v=$(stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null | grep -E "^($(
		IFS='|'
		echo "${nets[*]}"
	)) ")
	[ -z "$v" ] || bad "processes still in a host's network namespace: $v"
	grep -q "ionic-sim-$name " /proc/self/mountinfo && bad "a host's tmpfs is mounted here"
	v=$(find "$tmp" -mindepth 1)
	[ -z "$v" ] || bad "temporary files left: $v"
}

rdmacm() {
	need "rdmacm-utils, perftest" rping ib_send_bw
	bring_up
	# rping on the hosts' last NIC (rail L: its address, which the server
	# binds), perftest's rdma_cm mode on NIC 0 (its server listens on the
	# wildcard address)
	local l=$((nics - 1))
	server h1 "$work/rping-s.out" rping -s -a "$(addr 1 "$l")" -v -V -C 10
	wait_cm h1 0 7174 "$l"
	on h4 rping -c -a "$(addr 1 "$l")" -v -V -C 10 >"$work/rping-c.out" 2>&1 ||
		bad "rping client (h4) exit $?"
	wait "${pids[0]}" || bad "rping server (h1) exit $?"
	show "rping server, h1 ionic_$l" "$work/rping-s.out"
	show "rping client, h4 ionic_$l" "$work/rping-c.out"
	[ "$(grep -c '^server ping data: rdma-ping-' "$work/rping-s.out")" -eq 10 ] ||
		bad "the rping server did not get 10 verified pings"
	[ "$(grep -c '^ping data: rdma-ping-' "$work/rping-c.out")" -eq 10 ] ||
		bad "the rping client did not get 10 verified pings"
	local bw=(-d ionic_0 -i 1 -x 1 -F -n 200 -R -p 18515)
	server h2 "$work/bw-s.out" ib_send_bw "${bw[@]}"
	wait_cm h2 0 18515
	on h3 ib_send_bw "${bw[@]}" "$(addr 2)" >"$work/bw-c.out" 2>&1 ||
		bad "ib_send_bw client (h3) exit $?"
	wait "${pids[1]}" || bad "ib_send_bw server (h2) exit $?"
	show "ib_send_bw -R server, h2" "$work/bw-s.out"
	show "ib_send_bw -R client, h3" "$work/bw-c.out"
	for side in s c; do
		grep -qE '^ *[0-9]+ +200 +[0-9.]+ +[0-9.]+' "$work/bw-$side.out" ||
			bad "ib_send_bw ($side) printed no result row"
	done
}

mpi() {
	need "openmpi-bin, libopenmpi-dev, netpipe-openmpi" mpirun mpicc NPopenmpi
	mpicc -O2 -o "$work/mpi_collective" "$here/mpi_collective.c" ||
		{ echo "FAIL: cannot build mpi_collective.c"; exit 1; }
	local mpirun=(mpirun)
	# the sanitizer build: as mpi.sh (the ASan runtime first, no code
	# patcher, no UCX memory hooks, Open MPI's daemons without the
	# runtime: mpirun_nosan.sh says why)
	e2e_san_runtime && mpirun=("$here/mpirun_nosan.sh" --mca memory ^patcher
		-x UCX_MEM_EVENTS=no)
	mpirun+=(--allow-run-as-root --mca pml ucx --mca btl self)
	ucx_env
	[ -z "$REPLY" ] || mpirun+=(-x "$REPLY")
	bring_up
	cd "$work" || exit 1
	on h1 "${mpirun[@]}" --host h1,h2,h3,h4 -np 4 ./mpi_collective --distinct-hosts \
		>"$work/coll.out" 2>&1 || bad "the collective job exit $?"
	show "mpirun --host h1,h2,h3,h4 mpi_collective" "$work/coll.out"
	grep -qx 'collectives verified on 4 ranks' "$work/coll.out" ||
		bad "the ranks did not verify their collectives"
	for k in 1 2 3 4; do
		grep -q "^rank [0-3] of 4 on h$k: " "$work/coll.out" || bad "no rank on h$k"
	done
	on h1 "${mpirun[@]}" --host h1,h4 -np 2 NPopenmpi -i -u 4096 -o "$work/np.out" \
		>"$work/np.log" 2>&1 || bad "NetPIPE exit $?"
	show "mpirun --host h1,h4 NPopenmpi -i" "$work/np.log"
	grep -q 'Integrity check failed' "$work/np.log" && bad "NetPIPE: data corrupted"
	[ "$(grep -c 'Integrity check passed' "$work/np.log")" -ge 20 ] ||
		bad "NetPIPE: fewer than 20 sizes passed its integrity check"
}

# ucx_job TAG ITERATIONS RAILS: ucx_perftest from h2 to h1; NICs 0 to
# RAILS-1 of both hosts must have carried it (at least 100 frames each
# way through each one's port), the others none of its data
ucx_job() {
	local tag=$1 n=$2 rails=$3 before=() rbefore=() udp=() h j i=0 t0 t1 r0 r1 s1
	local args=(-t tag_bw -n "$n" -s 65536 -p 13337)
	# UCX 1.18's ucx_perftest is built with MPI: no MPI mode (ucx.sh); it
	# starts as an MPI singleton even to print its help, whose Open MPI
	# session directory goes to TMPDIR: ours, not the tests' (on a host
	# it goes to the host's own /tmp)
	TMPDIR=$work ucx_perftest -h 2>&1 | grep -q -- '-P <0|1>' && args+=(-P 0)
	for h in h1 h2; do
		udp+=("$(host_udp "$h")")
		for ((j = 0; j < nics; j++)); do
			before+=("$(port_packets "$h" "$j")")
			rbefore+=("$(rdma_packets "$h" "$j")")
		done
	done
	server h1 "$work/ucx-s.out" ucx_perftest "${args[@]}"
	wait_tcp h1 13337
	on h2 ucx_perftest h1 "${args[@]}" >"$work/ucx-c.out" 2>&1 ||
		bad "$tag: ucx_perftest client (h2) exit $?"
	wait "${pids[-1]}" || bad "$tag: ucx_perftest server (h1) exit $?"
	show "ucx_perftest server, h1 ($tag)" "$work/ucx-s.out"
	show "ucx_perftest client, h2 ($tag)" "$work/ucx-c.out"
	grep -qE "^Final: +$n " "$work/ucx-c.out" || bad "$tag: no final result line"
	grep -q 'UCX  ERROR' "$work/ucx-s.out" "$work/ucx-c.out" && bad "$tag: UCX reported an error"
	# the frames each port sent and received meanwhile (the client's
	# data, the server's acknowledgements)
	echo "---- frames sent / received through each NIC's port during the job ($tag) ----"
	for h in h1 h2; do
		read -r t0 r0 <<<"${udp[0]}"
		read -r t1 r1 <<<"$(host_udp "$h")"
		udp=("${udp[@]:1}")
		echo "$h RoCEv2 (UDP) datagrams: $((t1 - t0)) / $((r1 - r0))"
		if [ $((t1 - t0)) -lt 100 ] || [ $((r1 - r0)) -lt 100 ]; then
			bad "$tag: $h's NICs carried fewer than 100 RoCEv2 datagrams each way"
		fi
		for ((j = 0; j < nics; j++)); do
			read -r t0 r0 <<<"${before[i]}"
			read -r t1 r1 <<<"$(port_packets "$h" "$j")"
			echo "$h ionic_$j (eth$j): $((t1 - t0)) / $((r1 - r0))"
			if [ "$j" -lt "$rails" ]; then
				if [ $((t1 - t0)) -lt 100 ] || [ $((r1 - r0)) -lt 100 ]; then
					bad "$tag: $h: ionic_$j's port carried fewer than 100 frames each way"
				fi
			elif [ $((t1 - t0)) -ge "$n" ] || [ $((r1 - r0)) -ge "$n" ]; then
				bad "$tag: $h: ionic_$j carried data on one rail"
			fi
			i=$((i + 1))
		done
	done
	# ... and each NIC counted them itself: its RDMA port counters
	echo "---- RoCE packets sent / received by each NIC (rdma statistic show; $tag) ----"
	i=0
	for h in h1 h2; do
		for ((j = 0; j < nics; j++)); do
			read -r t0 r0 <<<"${rbefore[i]}"
			read -r t1 r1 <<<"$(rdma_packets "$h" "$j")"
			s1=$(rdma_packets_sysfs "$h" "$j")
			echo "$h ionic_$j: $((t1 - t0)) / $((r1 - r0)) (sysfs: $s1)"
			if [ "$j" -lt "$rails" ]; then
				if [ $((t1 - t0)) -lt 100 ] || [ $((r1 - r0)) -lt 100 ]; then
					bad "$tag: $h: ionic_$j's counters moved by fewer than 100 packets each way"
				fi
			elif [ $((t1 - t0)) -ge "$n" ] || [ $((r1 - r0)) -ge "$n" ]; then
				bad "$tag: $h: ionic_$j's counters show data on one rail"
			fi
			[ "$s1" = "$t1 $r1" ] ||
				bad "$tag: $h: ionic_$j's counters: sysfs says $s1, rdma statistic $t1 $r1"
			i=$((i + 1))
		done
	done
}

ucx() {
	need ucx-utils ucx_perftest
	ucx_env
	[ -z "$REPLY" ] || export "${REPLY?}"
	# the sanitizer build: as ucx.sh
	e2e_san_runtime && export OMPI_MCA_memory=^patcher UCX_MEM_EVENTS=no
	bring_up
	# UCX as it comes: one rail, NIC 0
	ucx_job "UCX's defaults" 200 1
	# several NICs: UCX spreads its messages over all of them when allowed
	# that many rails (by default eager messages take one)
	if [ "$nics" -gt 1 ]; then
		export UCX_MAX_EAGER_RAILS=$nics UCX_MAX_RNDV_RAILS=$nics
		ucx_job "$nics rails" 1000 "$nics"
	fi
}

fabric() {
	need libfabric-bin fi_pingpong
	# the sanitizer build: the ASan runtime first, as fabric_pingpong.sh
	# (libfabric's dependencies call our hooks from their constructors)
	e2e_san_runtime || :
	bring_up
	# fi_pingpong's server binds rdma_cm to "localhost", which binds no
	# RDMA device: on the server's host, in a mount namespace of its own,
	# localhost names the NIC (sim/README.md, libfabric)
	local pp=(fi_pingpong -p verbs -e msg -I 10 -c)
	# shellcheck disable=SC2016 # expanded on h1
	server h1 "$work/fi-s.out" unshare --mount sh -c \
		'echo "$0 localhost" >/tmp/fab-hosts && mount --bind /tmp/fab-hosts /etc/hosts && exec "$@"' \
		"$(addr 1)" "${pp[@]}"
	wait_tcp h1 47592
	on h2 "${pp[@]}" h1 >"$work/fi-c.out" 2>&1 || bad "fi_pingpong client (h2) exit $?"
	wait "${pids[0]}" || bad "fi_pingpong server (h1) exit $?"
	show "fi_pingpong server, h1" "$work/fi-s.out"
	show "fi_pingpong client, h2" "$work/fi-c.out"
	for side in s c; do
		[ "$(grep -cE '^[0-9]+[km]? +10 +=10 ' "$work/fi-$side.out")" -eq 6 ] ||
			bad "fi_pingpong ($side): not 6 sizes of 10 acked transfers"
		grep -q '^Error at iteration' "$work/fi-$side.out" && bad "fi_pingpong ($side): corrupted data"
	done
}

case $kind in
lifecycle) lifecycle ;;
rdmacm) rdmacm ;;
mpi) mpi ;;
ucx) ucx ;;
fabric) fabric ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac
[ $fail -eq 0 ] && echo PASS
exit $fail
