#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# ionic-sim cluster: H emulated hosts on one machine, joined by an
# emulated Ethernet switch, each with its ionic NICs on the RoCEv2/UDP
# wire; `ionic-sim cluster ...` runs this script (sim/launcher/cluster.c).
#
#   ionic-sim cluster up NAME --hosts H [--nics N] [LAUNCHER OPTIONS...]
#   ionic-sim cluster exec NAME HOST [--] COMMAND [ARGS...]
#   ionic-sim cluster down NAME
#   ionic-sim cluster list
#   ionic-sim cluster rsh HOST [COMMAND...]      (remote shell, as ssh)
#   ionic-sim cluster [--hosts H] [--nics N] [--name NAME] [LAUNCHER
#                     OPTIONS...] -- COMMAND [ARGS...]   (up, COMMAND on
#                     h1, down)
#
# A script rather than C: bringing a host up is a sequence of iproute2,
# unshare, mount and nsenter steps, each a command a user would type to do
# the same between real machines; here they stay readable as that recipe.
#
# The emulated hosts share nothing but the wire.  Host K (h1 .. hH) is a
# process in its own network, UTS, IPC and mount namespaces: hostname hK,
# private tmpfs on /tmp, /run and /dev/shm, System V IPC of its own, a
# boot id of its own (/proc/sys/kernel/random/boot_id) and an /etc/hosts
# naming every host.  NIC J of host K (ionic_J) has its own port, ethJ, a veth into the
# switch, with the address 198.18.J.K/24 (rail J; RFC 2544's benchmarking
# range, which nothing routes), and what it sends leaves through that port;
# hK names 198.18.0.K.  The switch is a bridge in a network namespace of
# its own.  Each host runs one long-lived launcher with the
# host's options (--transport udp, its addresses, --nics N): it owns UDP
# port 4791 of each address, its run directory (the fake sysfs tree) is in
# the host's /tmp, and its child is the host's init, a sleep whose argv[0]
# is "ionic-sim-host:NAME:hK".  `exec` enters that init's namespaces
# (nsenter) with the launcher's variables from its environment, so every
# command of host K reaches the same NICs: the same node id, addresses
# and abstract sockets, and QP numbers that the binding of endpoints keeps
# unique among the host's processes.
#
# Nothing is kept on disk: the hosts and the switch are found by argv[0]
# in /proc, and the namespaces, veths, mounts and run directories exist as
# long as their processes.  `down` ends every process in a host's network
# namespace, then the init (its launcher cleans up and exits), then the
# switch; the kernel removes the rest.
#
# `rsh` is the remote shell that Open MPI's mpirun (plm_rsh_agent) and
# anything else that starts commands over ssh can use: it runs COMMAND on
# HOST of the cluster it is called from ($IONIC_SIM_CLUSTER), through
# `sh -c` as sshd would.  Every host's environment names it in
# OMPI_MCA_plm_rsh_agent (Open MPI 4) and PRTE_MCA_plm_ssh_agent (5), so
# an unmodified `mpirun --host h1,h2,...` on a host starts its daemons on
# the others.
set -u
self=$(readlink -f "$0")
launcher=${IONIC_SIM_CLUSTER_LAUNCHER:-$(dirname "$self")/ionic-sim}
NET=198.18 # NIC J of host K: $NET.J.K/24 on ethJ

die() {
	echo "ionic-sim cluster: $*" >&2
	exit 125
}

usage() {
	cat <<EOF
usage: ionic-sim cluster up NAME --hosts H [--nics N] [LAUNCHER OPTIONS...]
       ionic-sim cluster exec NAME HOST [--] COMMAND [ARGS...]
       ionic-sim cluster down NAME
       ionic-sim cluster list
       ionic-sim cluster rsh HOST [COMMAND...]
       ionic-sim cluster [--hosts H] [--nics N] [--name NAME]
                         [LAUNCHER OPTIONS...] -- COMMAND [ARGS...]

H emulated hosts h1..hH (default 2, at most 254), each in its own network,
UTS, IPC and mount namespaces with a boot id of its own, joined by a bridge; NIC J (ionic_J, at most 8) of
host K has its own port ethJ on the bridge and the IPv4 address 198.18.J.K
on the RoCEv2/UDP wire, and hK names 198.18.0.K.  Every command run on a
host uses that host's NICs.  LAUNCHER OPTIONS go to each host's ionic-sim
(not --transport or --addr).  The last form brings a cluster up, runs
COMMAND on h1 and takes the cluster down.
rsh is a remote shell for Open MPI (plm_rsh_agent, set on every host) and
other ssh users: COMMAND runs on HOST of the caller's cluster.
Needs root.
EOF
}

name_ok() {
	[[ $1 =~ ^[A-Za-z0-9_.-]{1,32}$ ]]
}

# find_procs PREFIX [SUFFIX]: REPLY = the pids whose argv[0] is PREFIX
# followed by SUFFIX, a glob (default: anything) (bash builtins only: one
# pass over /proc without a fork per process)
find_procs() {
	local d a
	REPLY=
	for d in /proc/[0-9]*; do
		IFS= read -r -d '' a 2>/dev/null <"$d/cmdline" || continue
		# shellcheck disable=SC2053 # SUFFIX is a glob
		[[ ${a:0:${#1}} == "$1" && ${a:${#1}} == ${2-*} ]] && REPLY+="${d#/proc/} "
	done
	REPLY=${REPLY% }
}

# host_pid NAME HOST: REPLY = the pid of the init of HOST (hK, or one of its
# addresses), or fail
host_pid() {
	local h=$2
	case $h in
	"$NET".*.*) h=h${h##*.} ;;
	esac
	local d a
	REPLY=
	for d in /proc/[0-9]*; do
		IFS= read -r -d '' a 2>/dev/null <"$d/cmdline" || continue
		if [ "$a" = "ionic-sim-host:$1:$h" ]; then
			REPLY=${d#/proc/}
			return 0
		fi
	done
	return 1
}

ppid_of() {
	local stat
	REPLY=
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	stat=${stat##*) }
	read -r _ REPLY _ <<<"$stat"
}

# alive PID...: true while any of them exists (zombies count as gone)
alive() {
	local p stat
	for p in "$@"; do
		read -r stat 2>/dev/null <"/proc/$p/stat" || continue
		stat=${stat##*) }
		[ "${stat%% *}" = Z ] || return 0
	done
	return 1
}

# wait_gone SECONDS PID...: true once all are gone
wait_gone() {
	local n=$(($1 * 20))
	shift
	while [ "$n" -gt 0 ] && alive "$@"; do
		sleep 0.05
		n=$((n - 1))
	done
	! alive "$@"
}

# ---- one host, inside its new namespaces ------------------------------------

# _host NAME K H N [LAUNCHER OPTIONS...]: set up the mount and UTS
# namespaces, wait for the network (made by `up` from outside) and become
# the host's launcher, whose child is the host's init.
cmd_host() {
	local name=$1 k=$2 h=$3 n=$4 i d addrs=() last
	shift 4
	for d in /tmp /dev/shm; do
		mount -t tmpfs -o mode=1777,nosuid,nodev "ionic-sim-$name" "$d" ||
			die "h$k: cannot mount a tmpfs on $d"
	done
	mount -t tmpfs -o mode=755,nosuid,nodev "ionic-sim-$name" /run ||
		die "h$k: cannot mount a tmpfs on /run"
	{
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
		for ((i = 1; i <= h; i++)); do
			printf '%s.0.%d\th%d\n' "$NET" "$i" "$i"
		done
	} >/run/hosts || die "h$k: cannot write /run/hosts"
	mount --bind /run/hosts /etc/hosts || die "h$k: cannot mount /etc/hosts"
	# a boot id of its own, as every machine has: programs tell "this
	# machine" from "another" by it (UCX's shared-memory and CMA
	# transports reach only processes with their own boot id, and would
	# otherwise join hosts through the kernel they share)
	{ cat /proc/sys/kernel/random/uuid >/run/boot_id && chmod 444 /run/boot_id; } ||
		die "h$k: cannot write /run/boot_id"
	mount --bind /run/boot_id /proc/sys/kernel/random/boot_id ||
		die "h$k: cannot mount its boot id"
	hostname "h$k" || die "h$k: cannot set the host name"
	ip link set lo up || die "h$k: cannot bring lo up"
	# several ports on one switch: each answers ARP for its own address
	# only, from its own address (else a port answers for another's, and
	# frames for one NIC arrive through another's port)
	echo 1 >/proc/sys/net/ipv4/conf/all/arp_ignore || die "h$k: cannot set arp_ignore"
	echo 2 >/proc/sys/net/ipv4/conf/all/arp_announce || die "h$k: cannot set arp_announce"
	last="$NET.$((n - 1)).$k/"
	for ((i = 0; i < 600; i++)); do
		[[ $(ip -4 -o addr show dev "eth$((n - 1))" 2>/dev/null) == *" $last"* ]] && break
		sleep 0.05
	done
	[ "$i" -lt 600 ] || die "h$k: its ports did not get their addresses"
	for ((i = 0; i < n; i++)); do
		addrs+=("$NET.$i.$k")
	done
	export IONIC_SIM_CLUSTER=$name IONIC_SIM_CLUSTER_HOST=h$k HOSTNAME=h$k
	export IONIC_SIM_CLUSTER_LAUNCHER=$launcher TMPDIR=/tmp
	export OMPI_MCA_plm_rsh_agent="$launcher cluster rsh"
	# Open MPI 5's runtime, PRRTE, calls its remote-shell launcher "ssh"
	export PRTE_MCA_plm_ssh_agent=$OMPI_MCA_plm_rsh_agent
	# one NIC: the launcher as it always was; several: --nics and the
	# addresses in NIC order
	local nicopt=(--addr "${addrs[0]}")
	[ "$n" -gt 1 ] && nicopt=(--nics "$n" --addr "$(
		IFS=,
		echo "${addrs[*]}"
	)")
	# shellcheck disable=SC2016 # expanded by that bash
	exec "$launcher" --transport udp "${nicopt[@]}" "$@" \
		-- bash -c 'exec -a "$0" sleep infinity' "ionic-sim-host:$name:h$k"
}

# ---- up / down ----------------------------------------------------------------

# start_holder MARKER NS-OPTIONS... : a process in new namespaces, detached
# from the caller (its own session, no descriptor of the caller's): REPLY
start_holder() {
	local marker=$1
	shift
	# shellcheck disable=SC2016 # expanded by that bash
	setsid unshare "$@" -- bash -c 'exec -a "$0" sleep infinity' "$marker" \
		</dev/null >/dev/null 2>&1 &
	REPLY=$!
}

cmd_up() {
	local name hosts=2 nics=1 opts=() k j sw='' pids=() logs=() pid dead
	[ $# -ge 1 ] || die "up: which cluster? (ionic-sim cluster up NAME --hosts H)"
	name=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--hosts)
			[ $# -ge 2 ] || die "--hosts needs a value"
			hosts=$2
			shift 2
			;;
		--hosts=*)
			hosts=${1#*=}
			shift
			;;
		--nics)
			[ $# -ge 2 ] || die "--nics needs a value"
			nics=$2
			shift 2
			;;
		--nics=*)
			nics=${1#*=}
			shift
			;;
		--transport* | --addr*) die "$1: the cluster gives each NIC its transport and address" ;;
		--) shift ;;
		*) opts+=("$1") && shift ;;
		esac
	done
	name_ok "$name" || die "bad cluster name '$name' (letters, digits, . _ -; at most 32)"
	if ! [[ $hosts =~ ^[0-9]+$ ]] || [ "$hosts" -lt 1 ] || [ "$hosts" -gt 254 ]; then
		die "--hosts: 1 to 254"
	fi
	if ! [[ $nics =~ ^[0-9]+$ ]] || [ "$nics" -lt 1 ] || [ "$nics" -gt 8 ]; then
		die "--nics: 1 to 8"
	fi
	[ "$(id -u)" -eq 0 ] || die "needs root (network and mount namespaces)"
	for c in ip unshare nsenter setsid mount; do
		command -v "$c" >/dev/null || die "$c not found (iproute2, util-linux)"
	done
	[ -x "$launcher" ] || die "no launcher at $launcher"
	# each host has its own /tmp, /run and /dev/shm: what the hosts run
	# must come from elsewhere
	case $launcher in
	/tmp/* | /run/* | /dev/shm/*)
		die "$launcher is in a directory each host has its own of (/tmp, /run, /dev/shm): install or build it elsewhere"
		;;
	esac
	find_procs "ionic-sim-switch:$name" ''
	[ -z "$REPLY" ] || die "cluster $name is already up"

	# a failure on the way takes down what is up so far: the processes
	# started here (each keeps its pid from setsid to the launcher), then
	# whatever down finds
	# shellcheck disable=SC2317 # called by the trap
	up_failed() {
		trap - EXIT
		[ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null
		wait_gone 5 "${pids[@]}" || kill -KILL "${pids[@]}" 2>/dev/null
		rm -f "${logs[@]}"
		(cmd_down "$name") >/dev/null 2>&1
		[ -z "$sw" ] || kill -KILL "$sw" 2>/dev/null
	}
	trap up_failed EXIT
	start_holder "ionic-sim-switch:$name" --net
	sw=$REPLY
	# the holder has unshared once its argv[0] is the marker
	for ((j = 0; j < 200; j++)); do
		host_argv0 "$sw" "ionic-sim-switch:$name" && break
		alive "$sw" || break
		sleep 0.02
	done
	nsenter -t "$sw" -n sh -c 'ip link set lo up && ip link add br0 type bridge &&
		ip link set br0 up' || die "cannot make the switch"
	for ((k = 1; k <= hosts; k++)); do
		logs+=("$(mktemp "${TMPDIR:-/tmp}/ionic-sim-cluster.XXXXXX")") ||
			die "cannot make a temporary file"
		# its stderr: a file that only `up` reads (the host's own /tmp
		# hides it afterwards; the host keeps writing to the unlinked file)
		setsid unshare --net --uts --ipc --mount --propagation private -- \
			"$self" _host "$name" "$k" "$hosts" "$nics" "${opts[@]}" \
			</dev/null >/dev/null 2>"${logs[k - 1]}" &
		pids+=($!)
	done
	for ((k = 1; k <= hosts; k++)); do
		pid=${pids[k - 1]}
		# unshare has made the namespaces once it runs the script
		for ((j = 0; j < 200; j++)); do
			# (argument 1 alone is also the forked `up` before setsid)
			host_argv0 "$pid" _host 2 && break
			alive "$pid" || break
			sleep 0.02
		done
	done
	# NIC J of host K: its port ethJ, a veth to the switch's hKnJ; on it
	# 198.18.J.K/24 (rail J), and what the NIC sends from that address
	# leaves through that port (its own routing table, 100 + J), as a
	# real NIC's frames leave through its own port
	for ((k = 1; k <= hosts; k++)); do
		for ((j = 0; j < nics; j++)); do
			echo "link add name h${k}n$j netns $sw type veth peer name eth$j netns ${pids[k - 1]}"
		done
	done | ip -batch - || die "cannot make the hosts' links"
	for ((k = 1; k <= hosts; k++)); do
		for ((j = 0; j < nics; j++)); do
			echo "link set h${k}n$j master br0 up"
		done
	done | nsenter -t "$sw" -n ip -batch - || die "cannot connect the hosts to the switch"
	for ((k = 1; k <= hosts; k++)); do
		for ((j = 0; j < nics; j++)); do
			echo "link set eth$j up"
			echo "addr add $NET.$j.$k/24 dev eth$j"
			echo "route add $NET.0.0/16 dev eth$j src $NET.$j.$k table $((100 + j))"
			echo "rule add from $NET.$j.$k lookup $((100 + j))"
		done | nsenter -t "${pids[k - 1]}" -n ip -batch - ||
			die "cannot give h$k its addresses"
	done
	# ready when every host's init runs (its launcher has set up the NICs)
	for ((k = 1; k <= hosts; k++)); do
		pid=${pids[k - 1]}
		dead=
		for ((j = 0; j < 600; j++)); do
			host_pid "$name" "h$k" && break
			alive "$pid" || { dead=1 && break; }
			sleep 0.05
		done
		if [ -z "$REPLY" ]; then
			[ -n "$dead" ] || echo "ionic-sim cluster: h$k did not start in 30 s" >&2
			cat "${logs[k - 1]}" >&2
			die "cannot bring up h$k of cluster $name"
		fi
	done
	rm -f "${logs[@]}"
	trap - EXIT
}

# host_argv0 PID WORD [INDEX]: is argument INDEX (default 0) of PID WORD?
host_argv0() {
	local -a args
	mapfile -d '' -t args 2>/dev/null <"/proc/$1/cmdline" || return 1
	[ "${args[${3:-0}]:-}" = "$2" ]
}

# netns_pids INODE...: REPLY = every process in one of those network
# namespaces
netns_pids() {
	local want=" $* " line
	REPLY=
	while read -r line; do
		[[ $want == *" ${line%% *} "* ]] || continue
		line=${line#* /proc/}
		REPLY+="${line%%/*} "
	done < <(stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null)
	REPLY=${REPLY% }
}

cmd_down() {
	local name=${1:-} inits launchers=() nets=() p others=() sw
	[ -n "$name" ] || die "down: which cluster?"
	[ "$(id -u)" -eq 0 ] || die "needs root"
	find_procs "ionic-sim-host:$name:h"
	inits=$REPLY
	for p in $inits; do
		ppid_of "$p" && launchers+=("$REPLY")
		nets+=("$(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null)")
	done
	# hosts still starting (a failed up): their scripts
	local d
	for d in /proc/[0-9]*; do
		host_argv0 "${d#/proc/}" _host 2 && host_argv0 "${d#/proc/}" "$name" 3 &&
			nets+=("$(stat -L -c %i "$d/ns/net" 2>/dev/null)")
	done
	find_procs "ionic-sim-switch:$name" ''
	sw=$REPLY
	[ -n "$inits$sw" ] || [ ${#nets[@]} -gt 0 ] || die "no cluster $name"
	# never the namespace of this command or of the machine (a pid reused
	# between the scan and the stat)
	local keep
	keep=" $(stat -L -c %i /proc/self/ns/net /proc/1/ns/net 2>/dev/null | tr '\n' ' ') "
	for p in "${!nets[@]}"; do
		[[ -n ${nets[p]} && $keep != *" ${nets[p]} "* ]] || unset 'nets[p]'
	done
	# every command still running on a host, then the inits: each launcher
	# then removes its run directory and exits
	if [ ${#nets[@]} -gt 0 ]; then
		netns_pids "${nets[@]}"
		for p in $REPLY; do
			[[ " $inits ${launchers[*]} " == *" $p "* ]] || others+=("$p")
		done
	fi
	if [ ${#others[@]} -gt 0 ]; then
		kill -TERM "${others[@]}" 2>/dev/null
		wait_gone 5 "${others[@]}" || kill -KILL "${others[@]}" 2>/dev/null
	fi
	# shellcheck disable=SC2086 # pid lists
	if [ -n "$inits" ]; then
		kill -TERM $inits 2>/dev/null
		wait_gone 10 "${launchers[@]}" $inits ||
			kill -KILL "${launchers[@]}" $inits 2>/dev/null
	fi
	# what started since (a command entering a host as it went down)
	if [ ${#nets[@]} -gt 0 ]; then
		netns_pids "${nets[@]}"
		# shellcheck disable=SC2086
		[ -z "$REPLY" ] || kill -KILL $REPLY 2>/dev/null
	fi
	# shellcheck disable=SC2086
	if [ -n "$sw" ]; then
		kill -TERM $sw 2>/dev/null
		wait_gone 5 $sw || kill -KILL $sw 2>/dev/null
	fi
	# shellcheck disable=SC2086
	wait_gone 5 "${launchers[@]}" $inits $sw ${REPLY:-} ||
		die "down: processes of cluster $name did not end"
}

cmd_list() {
	local p a hs
	find_procs "ionic-sim-switch:"
	for p in $REPLY; do
		IFS= read -r -d '' a 2>/dev/null <"/proc/$p/cmdline" || continue
		a=${a#ionic-sim-switch:}
		find_procs "ionic-sim-host:$a:h"
		read -r -a hs <<<"$REPLY"
		echo "$a: ${#hs[@]} hosts"
	done
}

# ---- commands on a host -------------------------------------------------------

# Variables that make a process a process of the host: those the launcher
# sets and those cmd_host sets.
host_var() {
	case $1 in
	IONIC_SIM_* | SYSFS_PATH | LD_PRELOAD | RDMAV_DRIVERS | TMPDIR | HOSTNAME) return 0 ;;
	OMPI_MCA_plm_rsh_agent | PRTE_MCA_plm_ssh_agent) return 0 ;;
	esac
	return 1
}

cmd_exec() {
	local name=${1:-} host=${2:-} pid v wd unset=() set=()
	local -a env
	[ $# -ge 3 ] || die "exec: ionic-sim cluster exec NAME HOST COMMAND [ARGS...]"
	shift 2
	[ "$1" = -- ] && shift
	[ $# -ge 1 ] || die "exec: no command"
	host_pid "$name" "$host" || die "no host $host in cluster $name"
	pid=$REPLY
	mapfile -d '' -t env <"/proc/$pid/environ" || die "cannot read the environment of $host"
	while IFS= read -r -d '' v; do
		host_var "${v%%=*}" && unset+=(-u "${v%%=*}")
	done < <(env -0)
	for v in "${env[@]}"; do
		host_var "${v%%=*}" && set+=("$v")
	done
	# the caller's directory, unless it is one of the host's private ones
	wd=$PWD
	case $wd in
	/tmp | /tmp/* | /run | /run/* | /dev/shm | /dev/shm/*) wd=/ ;;
	esac
	# -r: the host's root directory.  Entering a mount namespace starts at
	# the root of its mounts, which is not where the host lives when the
	# cluster runs in a chroot (CI's Debian 13 stage): without it the
	# command would run on the machine's own files, not the chroot's.
	exec nsenter -t "$pid" -n -m -u -i -r -- env "${unset[@]}" -C "$wd" "${set[@]}" "$@"
}

# ssh-like: options (ignored), [USER@]HOST, the command line
cmd_rsh() {
	local host
	while [ $# -gt 0 ]; do
		case $1 in
		-[bceEFiIJlLmoOpQRSwW]) shift 2 ;;
		-*) shift ;;
		*) break ;;
		esac
	done
	[ $# -ge 1 ] || die "rsh: which host?"
	host=${1#*@}
	shift
	[ -n "${IONIC_SIM_CLUSTER:-}" ] ||
		die "rsh: not on a host of a cluster (no IONIC_SIM_CLUSTER)"
	if [ $# -eq 0 ]; then
		cmd_exec "$IONIC_SIM_CLUSTER" "$host" -- /bin/sh
	fi
	cmd_exec "$IONIC_SIM_CLUSTER" "$host" -- /bin/sh -c "$*"
}

# up, COMMAND on h1, down
cmd_run() {
	local name=ionic-sim-$$ up=() rc
	while [ $# -gt 0 ]; do
		case $1 in
		--name)
			[ $# -ge 2 ] || die "--name needs a value"
			name=$2
			shift 2
			;;
		--name=*)
			name=${1#*=}
			shift
			;;
		--) shift && break ;;
		*) up+=("$1") && shift ;;
		esac
	done
	[ $# -ge 1 ] || die "no command (ionic-sim cluster [--hosts H] ... -- COMMAND)"
	(cmd_up "$name" "${up[@]}") || exit 125
	trap 'cmd_down "$name"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	(cmd_exec "$name" h1 "$@")
	rc=$?
	exit $rc
}

case ${1:-} in
up) shift && cmd_up "$@" ;;
down) shift && cmd_down "$@" ;;
exec) shift && cmd_exec "$@" ;;
list | ls) cmd_list ;;
rsh) shift && cmd_rsh "$@" ;;
_host) shift && cmd_host "$@" ;;
-h | --help | help) usage ;;
'') usage >&2 && exit 2 ;;
*) cmd_run "$@" ;;
esac
