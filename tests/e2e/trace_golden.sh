#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Trace golden test: run a deterministic scenario under `ionic-sim --trace`,
# normalise the trace and compare it with a checked-in golden file.
#
# usage: trace_golden.sh <ionic-sim> <scenario program> <golden file>
#
# Normalisation keeps what the run is about (command names and results,
# doorbell qtype/qid/ring/index, WQE opcode/flags/lengths, decoded CQE
# type/status/length/MSN/index, packet opcodes) and drops everything that
# differs between runs: pid, tid, timestamps, addresses, file descriptor
# numbers, the fabric/run directory names, PSNs, the CQE timestamp
# bits and the QP counter lines.  Lines are grouped per thread (T0 launcher, T1 the program, T2
# the emulated NIC, numbered by first appearance): within a thread the
# order is fixed, across threads it is not (the program may issue its next
# command before the NIC thread has written its last CQE line).
#
# The scenario runs $TRACE_GOLDEN_RUNS times (default 2); every run must
# match.  On a mismatch a unified diff (golden -> this run) is printed.
# TRACE_GOLDEN_UPDATE=1 rewrites the golden file from one run instead.
# The run is the packet path's (--direct off): the engine thread applies
# every doorbell, so the order within each thread is fixed.
set -u
sim=${1:?usage: $0 IONIC_SIM SCENARIO GOLDEN}
prog=${2:?usage: $0 IONIC_SIM SCENARIO GOLDEN}
golden=${3:?usage: $0 IONIC_SIM SCENARIO GOLDEN}
runs=${TRACE_GOLDEN_RUNS:-2}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

normalise() {
	awk '
	function hexval(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function byte(i) { return hexval(substr(hx, 2 * i + 1, 2)) }
	function be16(i) { return byte(i) * 256 + byte(i + 1) }
	function be32(i) { return be16(i) * 65536 + be16(i + 2) }
	function le16(i) { return byte(i) + byte(i + 1) * 256 }
	function hex32(v) {
		return sprintf("0x%04x%04x", int(v / 65536), v % 65536)
	}
	# "CQE write <32 bytes in hex>": decode the fields of
	# docs/device-contract.md §5, leaving out the timestamps and the source
	# MAC.
	function cqe(   qtf, type, head, sq) {
		hx = $6 $7 $8 $9
		qtf = be32(28)
		type = int(qtf / 32) % 8
		head = sprintf("qid %d err %d color %d status_length %d",
			       int(qtf / 256), int(qtf / 2) % 2, qtf % 2,
			       be32(24))
		if (type == 1) {
			sq = be32(8)
			return sprintf("RECV %s idx %d src_qpn %d op %d vlan 0x%04x imm %s",
				       head, le16(0), sq % 16777216,
				       int(sq / 16777216) % 32, be16(18),
				       hex32(be32(20)))
		}
		if (type == 2)
			return sprintf("SEND_MSN %s msn %d", head, be32(4))
		if (type == 3)
			return sprintf("SEND_NPG %s idx %d", head, le16(16))
		return sprintf("type %d %s", type, head)
	}
	# the counters of a QP at destroy: how many frames waited for the wire
	# depends on the machine
	$4 == "QP" { next }
	{
		key = $1 " " $2
		if (!(key in label))
			label[key] = nthreads++
		t = label[key]
		cat = $4
		text = $0
		sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ ?/, "", text)
		if (cat == "CQE" && $5 == "write")
			text = "write " cqe()
		gsub(/ (fabric|rundir|cmd)=[^ ]*/, "", text)
		gsub(/page=0x[0-9a-f]+ ?/, "", text)
		gsub(/ from_tid=[0-9]+/, "", text)
		gsub(/file=0x[0-9a-f]+/, "file=ADDR", text)
		gsub(/iova=0x[0-9a-f]+/, "iova=ADDR", text)
		gsub(/cq_handle=0x[0-9a-f]+/, "cq_handle=ADDR", text)
		gsub(/element=0x[0-9a-f]+/, "element=ADDR", text)
		gsub(/-> 0x[0-9a-f]+/, "-> ADDR", text)
		gsub(/munmap doorbell 0x[0-9a-f]+/, "munmap doorbell ADDR", text)
		gsub(/fd=[0-9]+/, "fd=N", text)
		gsub(/ psn [0-9]+/, "", text)
		gsub(/raddr 0x[0-9a-f]+/, "raddr ADDR", text)
		gsub(/ va 0x[0-9a-f]+/, " va ADDR", text)
		lines[t] = lines[t] cat " " text "\n"
	}
	END {
		for (t = 0; t < nthreads; t++) {
			printf "== T%d\n%s", t, lines[t]
		}
	}'
}

run_once() {
	local out=$1
	rm -f "$work/trace"
	# --direct off: with the direct path, which thread applies a
	# doorbell depends on who holds the NIC lock at that instant
	if ! timeout 60 "$sim" --direct off --fabric "${IONIC_TEST_FABRIC:-trace}-$$-$RANDOM" --trace "$work/trace" \
		-- "$prog" >"$work/prog.out" 2>&1; then
		echo "FAIL: scenario failed under ionic-sim:"
		cat "$work/prog.out"
		return 1
	fi
	normalise <"$work/trace" >"$out"
}

if [ "${TRACE_GOLDEN_UPDATE:-0}" = 1 ]; then
	run_once "$work/norm" || exit 1
	cp "$work/norm" "$golden"
	echo "updated $golden ($(wc -l <"$golden") lines)"
	exit 0
fi

[ -r "$golden" ] || { echo "FAIL: no golden file $golden"; exit 1; }
fail=0
for i in $(seq "$runs"); do
	run_once "$work/norm.$i" || { fail=1; break; }
	if ! diff -u --label "golden $(basename "$golden")" --label "run $i" \
		"$golden" "$work/norm.$i"; then
		echo "FAIL: run $i: normalised trace differs from $golden"
		echo "(if the change is intended: TRACE_GOLDEN_UPDATE=1 $0 $*)"
		fail=1
		break
	fi
done
[ "$fail" = 0 ] && echo "ok: $runs run(s) match $(basename "$golden")"
exit "$fail"
