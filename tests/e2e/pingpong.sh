#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: an unmodified ibverbs-utils pingpong between two processes,
# each with its own emulated NIC under ionic-sim, talking through the
# emulated fabric.  Usage: pingpong.sh <ionic-sim> rc|ud [extra pingpong args]
#
# Passes when both sides exit 0, print their throughput lines, and (with -c)
# report no corrupted data; nothing may be left running afterwards.
set -u
sim=$1 kind=$2
shift 2
case $kind in
rc) prog=ibv_rc_pingpong ;;
ud) prog=ibv_ud_pingpong ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac

work=$(mktemp -d)
fabric="pp-$$-$RANDOM"
# A free TCP port for the address exchange.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
server_pid=
cleanup() {
	if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT

timeout 60 "$sim" --fabric "$fabric" -- "$prog" -p "$port" "$@" \
	>"$work/server.out" 2>&1 &
server_pid=$!

# Wait until the server listens (its TCP socket), at most ~20 s.
for _ in $(seq 200); do
	if ss -ltn "sport = :$port" 2>/dev/null | grep -q ":$port"; then
		break
	fi
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done

timeout 60 "$sim" --fabric "$fabric" -- "$prog" -p "$port" "$@" 127.0.0.1 \
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
