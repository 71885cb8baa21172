#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Where the sender's time goes in `ib_send_bw -s 4096` between two
# processes under ionic-sim (bench/README.md, "ib_send_bw -s 4096: where a
# message's time goes"): the client runs under `perf record -g`, and its
# CPU time per message is split by call-graph share into the trapped
# doorbell (asm_exc_page_fault and rt_sigreturn), process_vm_writev,
# process_vm_readv, the emulator's own code (libionic-sim.so), idle
# polling (the provider's CQ poll and perftest's gettimeofday) and the
# rest (provider post, perftest, the rest of the kernel).
#
# Usage: send-breakdown.sh <ionic-sim> [iterations] [size]
# Exit status 77 when perf or perftest is missing.
set -u
sim=$(readlink -f "${1:?usage: $0 IONIC_SIM [ITERATIONS] [SIZE]}")
iters=${2:-100000}
size=${3:-4096}
command -v perf >/dev/null && command -v ib_send_bw >/dev/null || exit 77
work=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
fabric="${IONIC_TEST_FABRIC:-breakdown}-$$-$RANDOM"
args=(-d ionic_0 -i 1 -x 1 -F -n "$iters" -p "$port" -s "$size")

timeout 300 "$sim" --fabric "$fabric" -- ib_send_bw "${args[@]}" \
	>"$work/server.out" 2>&1 </dev/null &
server=$!
sleep 1
perf record -F 4000 -g -o "$work/perf.data" -- timeout 300 "$sim" \
	--fabric "$fabric" -- ib_send_bw "${args[@]}" 127.0.0.1 \
	>"$work/client.out" 2>"$work/perf.err" </dev/null
wait "$server"
server=
awk '/#bytes/ { h = 1; next } h && /^ *[0-9]+ +[0-9]+/ { print; exit }' \
	"$work/client.out"

perf report -i "$work/perf.data" --children --sort symbol --stdio -g none \
	2>/dev/null >"$work/sym"
perf report -i "$work/perf.data" --no-children --sort dso --stdio -g none \
	2>/dev/null >"$work/dso"
# share SYMBOL FIELD: its percentage (field 1: with children, 2: self)
share() {
	awk -v s="$1" -v f="$2" '{ for (i = 3; i <= NF; i++) if ($i == s) {
		v = $f; sub("%", "", v); print v; exit } }' "$work/sym"
}
total=$(awk '/Event count/ { print $NF; exit }' "$work/sym")
emu=$(awk '/libionic-sim.so/ { v = $1; sub("%", "", v); print v; exit }' \
	"$work/dso")
awk -v t="${total:-0}" -v n="$iters" -v size="$size" \
	-v t1="$(share asm_exc_page_fault 1)" \
	-v t2="$(share __x64_sys_rt_sigreturn 1)" \
	-v w="$(share process_vm_writev 1)" -v r="$(share process_vm_readv 1)" \
	-v p1="$(share ionic_poll_cq 2)" \
	-v p2="$(share ionic_vcq_poll_two_locked 2)" \
	-v p3="$(share __vdso_gettimeofday 2)" -v e="${emu:-0}" 'BEGIN {
	us = t / 1000 / n; T = t1 + t2; P = p1 + p2 + p3
	rest = 100 - T - w - r - P - e
	printf "sender CPU per message: %.2f us\n", us
	printf "  trap                 %6.2f us\n", us * T / 100
	printf "  process_vm_writev    %6.2f us\n", us * w / 100
	printf "  process_vm_readv     %6.2f us\n", us * r / 100
	printf "  emulator code        %6.2f us\n", us * e / 100
	printf "  the rest             %6.2f us\n", us * rest / 100
	printf "  busy total           %6.2f us (%.0f MB/s if never idle)\n",
		us * (100 - P) / 100, size / (us * (100 - P) / 100)
	printf "  idle polling         %6.2f us\n", us * P / 100 }'
