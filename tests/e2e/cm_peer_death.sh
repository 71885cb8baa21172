#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: an rdma_cm peer SIGKILLed mid-handshake (its process, and so
# its emulated kernel and NIC, vanish without a word) and what the
# survivor, an unmodified rdmacm-utils client, sees: the IB CM's
# retransmission running out into UNREACHABLE -ETIMEDOUT (-110),
# docs/kernel-contract.md §22.5.  The half of the handshake that dies is
# tests/e2e/cm_hold.py (pyverbs), killed by its PID once it holds:
#   req    a request the passive side read and never answered; rping -c
#          waits for the REP and must see UNREACHABLE -110
#   rep    a REP the active side received and never answered with an RTU;
#          rping -s waits for ESTABLISHED and must see UNREACHABLE -110
#   sidr   a SIDR REQ read and never answered; udaddy must see
#          UNREACHABLE -110
#   rc-send  not the handshake: the server of an established RC connection
#          (cm_hold.py serve) killed while the client (cm_hold.py send)
#          sends every 100 ms; its next SEND must run out of RC retries
#          (ACK timeout 17 x retry_cnt) into RETRY_EXC_ERR (12), the NIC's
#          answer to a peer QP that vanished
# Each survivor must report within KILL_TO_EVENT_MAX seconds of the kill
# and exit non-zero by itself (not by the timeout).
# Usage: cm_peer_death.sh <ionic-sim> <case>
# work and fabric are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1 case=$2
here=$(dirname "$(readlink -f "$0")")

# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"
e2e_setup cmdeath
e2e_require rdmacm-utils rping udaddy
if ! /usr/bin/python3 -c 'import pyverbs.cmid' 2>/dev/null; then
	echo "SKIP: pyverbs not installed (python3-pyverbs)"
	exit 77
fi

A=198.18.0.1
KILL_TO_EVENT_MAX=15
hold=(/usr/bin/python3 "$here/cm_hold.py")
case $case in
req)  srv=("${hold[@]}" listen "$A" 7174 tcp) cli=(rping -c -a "$A" -C 1)
      ps=0 holder=server survivor=client
      want='RDMA_CM_EVENT_UNREACHABLE, error -110' ;;
rep)  srv=(rping -s -a "$A" -C 1) cli=("${hold[@]}" connect "$A" 7174)
      ps=0 holder=client survivor=server
      want='RDMA_CM_EVENT_UNREACHABLE, error -110' ;;
sidr) srv=("${hold[@]}" listen "$A" 7174 udp) cli=(udaddy -s "$A")
      ps=1 holder=server survivor=client
      want='RDMA_CM_EVENT_UNREACHABLE, error: -110' ;;
rc-send)
      srv=("${hold[@]}" serve "$A" 7174) cli=("${hold[@]}" send "$A" 7174)
      ps=0 holder=server survivor=client
      want='^wc status 12 after [1-9][0-9]* good sends' ;;
*)    echo "unknown case $case"; exit 2 ;;
esac

run() {
	timeout 40 "$sim" --fabric "$fabric" -- "$@"
}

run "${srv[@]}" >"$work/server.out" 2>&1 &
server_pid=$!
if ! e2e_wait_cm_listen "$ps" 7174; then
	cat "$work/server.out"
	echo "FAIL: the server never listened"
	exit 1
fi
run "${cli[@]}" >"$work/client.out" 2>&1 &
client_pid=$!

# the holder's own PID, once it holds
victim=
for _ in $(seq 200); do
	victim=$(sed -n 's/^held \([0-9]*\)$/\1/p' "$work/$holder.out")
	[ -n "$victim" ] && break
	sleep 0.1
done
fail=0
if [ -z "$victim" ]; then
	echo "FAIL: the $holder never held its half of the handshake"
	fail=1
else
	# rc-send: let a few SENDs complete first
	[ "$case" = rc-send ] && sleep 1
	kill -KILL "$victim"
	killed=$(date +%s.%N)
fi
wait "$client_pid"
client_rc=$?
wait "$server_pid"
server_rc=$?
server_pid=
done_at=$(date +%s.%N)

for side in server client; do
	echo "---- $side ----"
	cat "$work/$side.out"
done
[ "$fail" -eq 0 ] || exit 1

if [ "$survivor" = client ]; then
	survivor_rc=$client_rc holder_rc=$server_rc
else
	survivor_rc=$server_rc holder_rc=$client_rc
fi
elapsed=$(awk "BEGIN { printf \"%.1f\", $done_at - $killed }")
echo "$survivor: exit $survivor_rc ${elapsed}s after the kill; $holder: exit $holder_rc"
if ! grep -q -- "$want" "$work/$survivor.out"; then
	echo "FAIL: the $survivor did not print '$want'"
	fail=1
fi
if [ "$survivor_rc" -eq 0 ] || [ "$survivor_rc" -eq 124 ]; then
	echo "FAIL: the $survivor exit $survivor_rc, expected its own failure"
	fail=1
fi
if [ "$holder_rc" -ne 137 ]; then
	echo "FAIL: the $holder exit $holder_rc, expected 137 (SIGKILL)"
	fail=1
fi
if awk "BEGIN { exit !($elapsed > $KILL_TO_EVENT_MAX) }"; then
	echo "FAIL: ${elapsed}s from the kill to the $survivor's end (max $KILL_TO_EVENT_MAX)"
	fail=1
fi
exit $fail
