#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The direct path gives the answers the packet path gives
# (sim/README.md "Direct path"): e2e-direct-compare runs the two-process
# RC and UD scenarios of tests/verbs/direct_compare.c once with --direct off
# (every work request as packets: the reference) and once as MODE says,
# compares both sides' completion streams (wr_id, status, opcode,
# byte_len, immediate, source QP) line by line, and checks in the trace
# which path the run took (every mode but env says --direct on, so an
# IONIC_SIM_DIRECT=0 around the test does not change it):
#
#   on      --direct on (the default): the messages went directly (DIRECT
#           lines name them), UD SENDs too (but the wrong qkey's and the
#           one too long for its receive: "UD as a packet ... another
#           qkey", "... the receive buffer")
#   env     IONIC_SIM_DIRECT=0 instead of --direct off: packets, and why
#   udp     --transport udp: packets, "the UDP transport"
#   pcap    --pcap FILE: packets, "--pcap"
#   fault   a fault profile key (delay_us): packets, "a fault profile key"
#   same    the two sides are threads of one process on one NIC (both runs):
#           directly, with memory copies ("this device"), atomics and UD
#           SENDs too
#   nics    threads of one process on two NICs (--nics 2, both runs):
#           directly ("another device of this process"), atomics and UD too
#   table   as on, with the run's table of ports filled with lies first
#           (IONIC_TEST_DIRECT_TABLE): ports that are not usable are
#           named, UD SENDs still go directly
#   userring  RC QP rings come from a parent domain's allocator (a
#           MAP_SHARED pool, both runs): they stay where they are ("not
#           shared"), executors read the peer's receive WQEs with
#           process_vm_readv and write its CQEs into its shared CQ rings;
#           the registered buffers are MAP_SHARED mappings as well, which
#           REG_MR leaves where they are ("not shared"): payloads go with
#           process_vm_*; still directly
#
# Every mode with processes and --direct on checks which of the peer's
# rings A mapped: its RQ and CQ rings (on), its CQ rings only (userring);
# and its registered memory: the whole pages of the 64 KiB heap buffer
# moved to shared memory and mapped by the peer (on), nothing (userring).
#
# and the cases where the kernel refuses process_vm_* on the peer, so each
# QP must fall back to packets and say why (--direct on; each side drops
# CAP_SYS_PTRACE first, which overrides both refusals for root;
# tests/verbs/direct_refuse.c):
#
#   nondump    both sides non-dumpable (prctl(PR_SET_DUMPABLE, 0) before
#              opening the device): "open /proc/PID/fd: Permission denied"
#   pvm-eperm  process_vm_readv/_writev fail with EPERM in both sides (a
#              seccomp filter), as Yama's ptrace_scope refuses them with
#              /proc/PID/fd still open to the peer: "process_vm_readv:
#              Operation not permitted"
#   yama       the machine's own Yama ptrace_scope (read, never changed):
#              1 refuses the child side B its parent A, 2 and 3 both; the
#              same reason as pvm-eperm.  Skipped (77) without Yama or at
#              scope 0
#   valgrind   the new run under valgrind memcheck (skipped without
#              valgrind): "packets only: running under valgrind"
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
# what the new run starts the program under (valgrind)
wrap=()
case $mode in
same) pargs=(thread) ;;
nics)
	pargs=(thread1)
	sargs=(--nics 2)
	;;
userring) pargs=(userring) ;;
yama)
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)
	if [ -z "$scope" ]; then
		echo "SKIP: this kernel has no Yama (no /proc/sys/kernel/yama/ptrace_scope); e2e-direct-compare-pvm-eperm refuses process_vm_* as it would"
		exit 77
	elif [ "$scope" = 0 ]; then
		echo "SKIP: Yama's ptrace_scope is 0 here: it refuses nothing; e2e-direct-compare-pvm-eperm refuses process_vm_* as scope 1 would"
		exit 77
	fi
	echo "Yama ptrace_scope $scope"
	;;
valgrind)
	if ! command -v valgrind >/dev/null; then
		echo "SKIP: valgrind not installed"
		exit 77
	fi
	# the options of tests/memcheck.sh (it says why)
	wrap=(valgrind -q --tool=memcheck --error-exitcode=99 --fair-sched=yes
		--vex-iropt-register-updates=allregs-at-mem-access --leak-check=no
		--suppressions="$(dirname "$0")/../memcheck.supp")
	;;
esac

# run NAME [launcher options...]: the scenario under the launcher, traced
# (the new run under the wrapper)
run() {
	local name=$1 w=()
	shift
	[ "$name" = ref ] || w=("${wrap[@]}")
	if ! timeout 120 "$sim" --fabric "${IONIC_TEST_FABRIC:-dcmp}-$$-$RANDOM" \
		--trace "$work/$name.trace" "${sargs[@]}" "$@" -- "${w[@]}" \
		"$prog" "$work/$name" "${pargs[@]}" \
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

# packets NAME WHY: no message of run NAME went directly
packets() {
	if grep -E " DIRECT qp .*: [A-Z_]+ len " "$work/$1.trace" >/dev/null; then
		echo "FAIL: $2 executed messages directly:"
		grep -E " DIRECT qp .*: [A-Z_]+ len " "$work/$1.trace" | head -5
		exit 1
	fi
}

# refused REASON: in the new run, each side refused its peer's port for
# REASON, attached none and sent everything as packets
refused() {
	local pid
	expect new "packets: the port of pid [0-9]+ is not usable: $1"
	while read -r pid; do
		if ! grep -E "^$pid .* DIRECT .*not usable: $1" "$work/new.trace" >/dev/null; then
			echo "FAIL: process $pid refused no port for '$1'"
			grep " DIRECT " "$work/new.trace" | head -20
			exit 1
		fi
	done < <(grep -E " DIRECT port: " "$work/new.trace" | cut -d' ' -f1 | sort -u)
	if grep -E " DIRECT qp [0-9]+: port of pid" "$work/new.trace" >/dev/null; then
		echo "FAIL: a QP attached a port it should have been refused"
		exit 1
	fi
	packets new "a refused port"
}

run ref --direct off
expect ref "doorbells applied by the engine"
packets ref "--direct off"

# direct: each operation went directly in one of five runs (atomics: only
# between threads of one process; UD SENDs between processes too, found
# through the run's table of ports)
ops="SEND SEND_IMM RDMA_WRITE RDMA_WRITE_IMM RDMA_READ UD_SEND_ONLY UD_SEND_ONLY_IMM"
case $mode in same | nics) ops="$ops ATOMIC_CS ATOMIC_FA" ;; esac
# DIRECT lines that must show in one of the runs too (why a UD frame went
# as a packet: a frame before it may have, and those after it keep the
# order by going as packets as well, docs of sim/dev/direct_ud.c)
need=()
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
		for re in "${need[@]}"; do
			grep -E " DIRECT .*$re" "$work/all.trace" >/dev/null ||
				missing="$missing '$re'"
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
	# directly in one of five runs, each refusal been seen in one
	need=("UD as a packet \\(pid [0-9]+\\): another qkey"
		"UD as a packet \\(pid [0-9]+\\): the receive buffer")
	direct_all
	expect new "rq ring 0x[0-9a-f]+ \\([0-9]+ bytes\\): shared"
	expect new "the peer's RQ ring \\(pid [0-9]+ fd [0-9]+\\): mapped"
	expect new "the peer's CQ ring \\(pid [0-9]+ fd [0-9]+\\): mapped"
	expect new "mr 0x[0-9a-f]+ \\(65536 bytes\\): shared"
	expect new "the peer's MR memory 0x[0-9a-f]+ \\(pid [0-9]+ fd [0-9]+\\): mapped"
	expect_not new "mr 0x[0-9a-f]+ \\(65536 bytes\\): not shared"
	;;
table)
	IONIC_TEST_DIRECT_TABLE=1 direct_all
	expect new "qp [0-9]+: the port of pid [0-9]+ is not usable: "
	;;
userring)
	direct_all
	expect new "rq ring .*: not shared: not in one anonymous private"
	expect new "the peer's CQ ring .*: mapped"
	expect_not new "the peer's RQ ring"
	expect new "mr 0x[0-9a-f]+ \\(65536 bytes\\): not shared: not anonymous private rw memory"
	expect_not new "the peer's MR memory"
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
nondump | pvm-eperm)
	IONIC_TEST_DIRECT_REFUSE=$mode run new --direct on
	if [ "$mode" = nondump ]; then
		refused "open /proc/PID/fd: Permission denied"
	else
		refused "process_vm_readv: Operation not permitted"
	fi
	;;
yama)
	# scope 1: A, B's parent, may use B's port; B not A's
	IONIC_TEST_DIRECT_REFUSE=noptrace run new --direct on
	expect new "packets: the port of pid [0-9]+ is not usable: process_vm_readv: Operation not permitted"
	;;
valgrind)
	run new --direct on
	expect new "packets only: running under valgrind"
	packets new "a run under valgrind"
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
