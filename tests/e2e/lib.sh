# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# shellcheck shell=bash disable=SC2034 # the variables are for the caller
#
# Shared by the two-process end-to-end scripts (pingpong.sh, perftest.sh,
# ucx.sh, mpi.sh; fabric_pingpong.sh and cluster.sh use e2e_san_runtime):
# a private work directory, a fabric of their own (named after the test's
# IONIC_TEST_FABRIC under ctest, see cmake/IonicTesting.cmake), a free TCP
# port for the clients' address exchange, and a server that is killed on
# every exit path.
#
# e2e_setup PREFIX    sets work, fabric, port, server_pid; installs the trap
# e2e_wait_listen     waits (~20 s at most) until the server listens on $port
# e2e_wait_cm_listen SPACE PORT
#                     the same for an rdma_cm listener of node 1 (port space
#                     0 TCP, 1 UDP) on the emulated fabric
# e2e_wait_cm_listen_node NODE SPACE PORT
#                     the same on another node (a NIC of --nics)
# e2e_require PACKAGES COMMAND...
#                     exits 77 (skip) naming PACKAGES if a COMMAND is missing
# e2e_san_runtime     in a sanitizer build, puts its ASan runtime first in
#                     LD_PRELOAD for what the script starts (as SIM tests
#                     have it: a program the runtime reaches only through
#                     our instrumented preload may not start, Open MPI 5's
#                     ranks do not) and succeeds; fails in other builds

e2e_setup() {
	work=$(mktemp -d)
	fabric="${IONIC_TEST_FABRIC:-$1}-$$-$RANDOM"
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	server_pid=
	trap e2e_cleanup EXIT
}

e2e_cleanup() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$work"
}

e2e_wait_listen() {
	for _ in $(seq 200); do
		if ss -ltn "sport = :$port" 2>/dev/null | grep -q ":$port"; then
			return 0
		fi
		kill -0 "$server_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

e2e_wait_cm_listen() {
	e2e_wait_cm_listen_node 1 "$@"
}

e2e_wait_cm_listen_node() {
	# the listen endpoint of (space, port) on a node
	# (docs/kernel-contract.md §22.5)
	local node=$1 qpn=$(( 0xe00000 | $2 << 16 | $3 ))
	for _ in $(seq 200); do
		if grep -q "@ionic-sim/$fabric/$node/$qpn\$" /proc/net/unix; then
			return 0
		fi
		kill -0 "$server_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

e2e_require() {
	local pkgs=$1 c
	shift
	for c in "$@"; do
		command -v "$c" >/dev/null && continue
		echo "SKIP: $c not installed ($pkgs)"
		exit 77
	done
}

e2e_san_runtime() {
	[ -n "${IONIC_TEST_SAN_RUNTIME:-}" ] || return 1
	case ":${LD_PRELOAD:-}:" in
	*":$IONIC_TEST_SAN_RUNTIME:"*) ;;
	*) export LD_PRELOAD=$IONIC_TEST_SAN_RUNTIME${LD_PRELOAD:+:$LD_PRELOAD} ;;
	esac
}
