#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: an unmodified ibverbs-utils pingpong between two processes,
# each with its own emulated NIC under ionic-sim, talking through the
# emulated fabric.  Usage: pingpong.sh <ionic-sim> rc|ud [extra pingpong args]
#
# Passes when both sides exit 0, print their throughput lines, and (with -c)
# report no corrupted data; nothing may be left running afterwards.
# work, fabric and port are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1 kind=$2
shift 2
case $kind in
rc) prog=ibv_rc_pingpong ;;
ud) prog=ibv_ud_pingpong ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# launcher options of both sides (the UDP fabric: --transport udp)
read -r -a simargs <<<"${IONIC_E2E_SIM_ARGS:-}"
e2e_setup pp

timeout 60 "$sim" --fabric "$fabric" "${simargs[@]}" -- "$prog" -p "$port" "$@" \
	>"$work/server.out" 2>&1 &
server_pid=$!

e2e_wait_listen

timeout 60 "$sim" --fabric "$fabric" "${simargs[@]}" -- "$prog" -p "$port" "$@" 127.0.0.1 \
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
	grep -q 'bytes in .* seconds = .* Mbit/sec' "$out" || { echo "FAIL: $side printed no throughput"; fail=1; }
	grep -q 'iters in .* seconds = .* usec/iter' "$out" || { echo "FAIL: $side printed no latency"; fail=1; }
	if grep -q 'invalid data' "$out"; then echo "FAIL: $side saw corrupted data"; fail=1; fi
done
[ "$client_rc" -eq 0 ] || { echo "FAIL: client exit $client_rc"; fail=1; }
[ "$server_rc" -eq 0 ] || { echo "FAIL: server exit $server_rc"; fail=1; }
exit $fail
