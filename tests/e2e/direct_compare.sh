#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The direct path gives the answers the packet path gives
# (sim/README.md "Direct path"): e2e-direct-compare runs the two-process
# RC scenarios of tests/verbs/direct_compare.c once with --direct off
# (every work request as packets: the reference) and once as MODE says,
# compares both sides' completion streams (wr_id, status, opcode,
# byte_len, immediate, source QP) line by line, and checks in the trace
# which path the run took (every mode but env says --direct on, so an
# IONIC_SIM_DIRECT=0 around the test does not change it):
#
#   on      --direct on (the default): the messages went directly (DIRECT
#           lines name them)
#   env     IONIC_SIM_DIRECT=0 instead of --direct off: packets, and why
#   udp     --transport udp: packets, "the UDP transport"
#   pcap    --pcap FILE: packets, "--pcap"
#   fault   a fault profile key (delay_us): packets, "a fault profile key"
#   same    the two sides are threads of one process on one NIC (both runs):
#           directly, with memory copies ("this device"), atomics and UD
#           SENDs too
#   nics    threads of one process on two NICs (--nics 2, both runs):
#           directly ("another device of this process"), atomics and UD too
#   userring  RC QP rings come from a parent domain's allocator (a
#           MAP_SHARED pool, both runs): they stay where they are ("not
#           shared"), executors read the peer's receive WQEs with
#           process_vm_readv and write its CQEs into its shared CQ rings;
#           still directly
#
# Every mode with processes and --direct on checks which of the peer's
# rings A mapped: its RQ and CQ rings (on), its CQ rings only (userring).
#
# usage: direct_compare.sh <ionic-sim> <verbs-direct-compare> MODE
set -u
sim=${1:?usage: $0 IONIC_SIM PROGRAM MODE}
prog=${2:?usage: $0 IONIC_SIM PROGRAM MODE}
mode=${3:?usage: $0 IONIC_SIM PROGRAM MODE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# how both runs place the two sides: processes, or threads (same, nics)
pargs=()
sargs=()
case $mode in
same) pargs=(thread) ;;
nics)
	pargs=(thread1)
	sargs=(--nics 2)
	;;
userring) pargs=(userring) ;;
esac

# run NAME [launcher options...]: the scenario under the launcher, traced
run() {
	local name=$1
	shift
	if ! timeout 120 "$sim" --fabric "${IONIC_TEST_FABRIC:-dcmp}-$$-$RANDOM" \
		--trace "$work/$name.trace" "${sargs[@]}" "$@" -- "$prog" \
		"$work/$name" "${pargs[@]}" \
		>"$work/$name.out" 2>&1; then
		echo "FAIL: the scenario failed ($name: $*):"
		cat "$work/$name.out"
		exit 1
	fi
}

# expect_not NAME REGEX: ... and none matching this one
expect_not() {
	if grep -E " DIRECT .*$2" "$work/$1.trace" >/dev/null; then
		echo "FAIL: a DIRECT line matches '$2' in the $1 trace:"
		grep -E " DIRECT .*$2" "$work/$1.trace" | head -5
		exit 1
	fi
}

# expect NAME REGEX: the trace of run NAME has a DIRECT line matching it
expect() {
	if ! grep -E " DIRECT .*$2" "$work/$1.trace" >/dev/null; then
		echo "FAIL: no DIRECT line matching '$2' in the $1 trace:"
		grep " DIRECT " "$work/$1.trace" | head -20
		exit 1
	fi
}

run ref --direct off
expect ref "doorbells applied by the engine"
if grep -E " DIRECT qp .*: [A-Z_]+ len " "$work/ref.trace" >/dev/null; then
	echo "FAIL: --direct off executed messages directly"
	exit 1
fi

# direct: each operation went directly in one of five runs (atomics: only
# between threads of one process)
ops="SEND SEND_IMM RDMA_WRITE RDMA_WRITE_IMM RDMA_READ"
case $mode in same | nics) ops="$ops ATOMIC_CS ATOMIC_FA UD_SEND_ONLY UD_SEND_ONLY_IMM" ;; esac
direct_all() {
	for try in 1 2 3 4 5; do
		run new --direct on
		expect new "qp [0-9]+ -> [0-9]+: direct"
		cat "$work/new.trace" >>"$work/all.trace"
		missing=
		for op in $ops; do
			grep -E " DIRECT .*: (UD )?$op len " "$work/all.trace" \
				>/dev/null || missing="$missing $op"
		done
		[ -z "$missing" ] && break
		echo "run $try: not yet direct:$missing"
	done
	[ -z "$missing" ] || { echo "FAIL: never direct:$missing"; exit 1; }
}

case $mode in
on)
	# a message whose peer port is busy at that instant goes as
	# packets (and must answer the same): each operation must have gone
	# directly in one of five runs
	direct_all
	expect new "rq ring 0x[0-9a-f]+ \\([0-9]+ bytes\\): shared"
	expect new "the peer's RQ ring \\(pid [0-9]+ fd [0-9]+\\): mapped"
	expect new "the peer's CQ ring \\(pid [0-9]+ fd [0-9]+\\): mapped"
	;;
userring)
	direct_all
	expect new "rq ring .*: not shared: not in one anonymous private"
	expect new "the peer's CQ ring .*: mapped"
	expect_not new "the peer's RQ ring"
	;;
same)
	direct_all
	expect new "port of pid [0-9]+ \\(qp [0-9]+\\), this device"
	;;
nics)
	direct_all
	expect new "another device of this process"
	;;
env)
	IONIC_SIM_DIRECT=0 run new
	expect new "doorbells applied by the engine"
	expect new "packets: no direct path on this device"
	;;
udp)
	run new --direct on --transport udp
	expect new "packets only: the UDP transport"
	;;
pcap)
	run new --direct on --pcap "$work/capture.pcap"
	expect new "packets only: --pcap"
	;;
fault)
	run new --direct on --profile delay_us=200
	expect new "packets only: a fault profile key"
	;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac

fail=0
for side in a b; do
	if [ ! -s "$work/ref.$side" ]; then
		echo "FAIL: side $side wrote no completions"
		fail=1
	elif ! diff -u "$work/ref.$side" "$work/new.$side"; then
		echo "FAIL: side $side: completions differ (--direct off -> $mode)"
		fail=1
	fi
done
[ $fail = 0 ] && echo "side a: $(wc -l <"$work/ref.a") completions, side b: $(wc -l <"$work/ref.b"), identical"
exit $fail
