#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: an unmodified perftest binary (ib_write_bw, ib_read_bw,
# ib_atomic_bw, ib_send_bw, ib_write_lat, ...) between two processes, each
# with its own emulated NIC under ionic-sim, on one emulated fabric.
# Usage: perftest.sh <ionic-sim> <binary> [extra perftest args]
# (-R: connect through rdma_cm to the server's isim0 address)
#
# Passes when both sides exit 0 and each (ib_read_lat: the client) prints a
# numeric result line after its "#bytes" header (docs/testing.md §2.4); the server is killed on every
# exit path and nothing may be left running afterwards.
# work, fabric and port are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1 prog=$2
shift 2
command -v "$prog" >/dev/null || { echo "$prog not installed"; exit 1; }

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# launcher options of both sides (the UDP fabric: --transport udp)
read -r -a simargs <<<"${IONIC_E2E_SIM_ARGS:-}"
e2e_setup pt

# -F: no CPU-frequency warnings (VMs); -x 1: the RoCEv2 IPv4 GID;
# short runs unless the caller asks otherwise.
args=(-d ionic_0 -i 1 -x 1 -F -n 200 -p "$port" "$@")

timeout 50 "$sim" --fabric "$fabric" "${simargs[@]}" -- "$prog" "${args[@]}" \
	>"$work/server.out" 2>&1 &
server_pid=$!

# -R: the connection through rdma_cm, to the server's isim0 address (the
# server is node 1 of its fabric)
peer=127.0.0.1
if [[ " $* " == *" -R "* ]]; then
	peer=198.18.0.1
	e2e_wait_cm_listen 0 "$port"
else
	e2e_wait_listen
fi

timeout 50 "$sim" --fabric "$fabric" "${simargs[@]}" -- "$prog" "${args[@]}" "$peer" \
	>"$work/client.out" 2>&1
client_rc=$?
wait "$server_pid"
server_rc=$?
server_pid=

fail=0
for side in server client; do
	out="$work/$side.out"
	echo "---- $side ----"
	cat "$out"
	# a numeric result line right after the "#bytes" header (the
	# passive side of a READ latency test measures nothing)
	if [ "$side" = server ] && [ "$(basename "$prog")" = ib_read_lat ]; then
		:
	elif ! awk '/#bytes/ { hdr = 1; next }
		  hdr && /^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[0-9.]+[ \t]+[0-9.]+/ { ok = 1 }
		  END { exit !ok }' "$out"; then
		echo "FAIL: $side printed no result line"
		fail=1
	fi
	if grep -qE "Couldn't|Failed|Unable|error status" "$out"; then
		echo "FAIL: $side reported an error"
		fail=1
	fi
done
[ "$client_rc" -eq 0 ] || { echo "FAIL: client exit $client_rc"; fail=1; }
[ "$server_rc" -eq 0 ] || { echo "FAIL: server exit $server_rc"; fail=1; }
exit $fail
