#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The leftovers check (leftovers.sh) catches what a test of its own tree
# leaves behind and nothing of another tree's.  Two made-up trees, "mine"
# and "other", each with a marker, a temporary directory and a fabric
# prefix: with a process, a file and an abstract fabric socket leaked in
# each, the check of "mine" must report exactly mine; once they are gone it
# must pass while those of "other" are still there.
#
# usage: leftovers_selftest.sh LEFTOVERS_SH
set -u
check=${1:?usage: $0 LEFTOVERS_SH}
work=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

fail=0
tag=$$-$RANDOM
for t in mine other; do
	mkdir -p "$work/$t/bin" "$work/$t/tmp"
	eval "${t}_bin=\$work/\$t/bin ${t}_tmp=\$work/\$t/tmp ${t}_fab=selftest$t$tag"
done

# leak TREE: a process with the tree's marker (it holds a socket of the
# tree's fabric, as a launcher holds its node id) and a run directory.
leak() {
	local bin=$1 tmp=$2 fab=$3
	mkdir "$tmp/ionic-sim.1.leaked"
	env IONIC_TEST_BINDIR="$bin" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0ionic-sim/" + sys.argv[1] + "-leak/node/1")
print("bound", flush=True)
time.sleep(60)' "$fab" >"$tmp/../bound" 2>&1 &
	pids+=($!)
	for _ in $(seq 50); do
		grep -q bound "$tmp/../bound" && return 0
		sleep 0.1
	done
	echo "FAIL: could not start the leaking process"
	cat "$tmp/../bound"
	exit 1
}

# shellcheck disable=SC2154 # set by the eval above
{
	leak "$mine_bin" "$mine_tmp" "$mine_fab"
	leak "$other_bin" "$other_tmp" "$other_fab"

	out=$("$check" "$mine_bin" "$mine_tmp" "$mine_fab" 2>&1)
	rc=$?
	echo "--- check of 'mine' with leaks in both trees (exit $rc):"
	echo "$out"
	[ $rc -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; fail=1; }
	for want in "FAIL: processes" "${pids[0]} python3" "FAIL: files" \
		"$mine_tmp/ionic-sim.1.leaked" "FAIL: fabric sockets" \
		"@ionic-sim/$mine_fab-leak/node/1"; do
		grep -qF -- "$want" <<<"$out" ||
			{ echo "FAIL: the report lacks: $want"; fail=1; }
	done
	for bad in "${pids[1]} " "$other_tmp" "$other_fab"; do
		if grep -qF -- "$bad" <<<"$out"; then
			echo "FAIL: the report names the other tree's: $bad"
			fail=1
		fi
	done

	kill "${pids[0]}"
	wait "${pids[0]}" 2>/dev/null
	rmdir "$mine_tmp/ionic-sim.1.leaked"
	out=$("$check" "$mine_bin" "$mine_tmp" "$mine_fab" 2>&1)
	rc=$?
	echo "--- check of 'mine' after its leaks are gone, the other's remain (exit $rc):"
	echo "$out"
	[ $rc -eq 0 ] || { echo "FAIL: exit $rc, expected 0"; fail=1; }
}
[ $fail -eq 0 ] && echo "leftovers self-test: ok"
exit $fail
