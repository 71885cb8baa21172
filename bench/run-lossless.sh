#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The lossless wire under ionic-sim's packet path (issue 22 item 3): one
# RC pair, path MTU 1024, one RDMA WRITE, RDMA READ and SEND of MIB MiB
# each, on the unix and the UDP transport, with no fault configured.  For
# each: MB/s (post to completion, data checked) and the retransmissions
# and backlog drops the device counted (its per-QP counter lines in the
# run's trace, kept to those lines with IONIC_SIM_TRACE_ONLY=QP).  The
# program is the verbs-lossless test's (tests/verbs/lossless.c), which
# prints the rates without asserting them: speed is measured here.
#
# Usage: run-lossless.sh <ionic-sim> <verbs-lossless-prog> <out.json> [MIB]
# Prints one table row per transport and operation and writes them to
# out.json as a JSON array.  Exit status 77 when the program is missing.
set -u
sim=$(readlink -f "$1")
prog=$2
out=$3
mib=${4:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$prog" ] || { echo "run-lossless.sh: $prog is not built"; exit 77; }

rows=()
echo "| transport | operation | MiB | MB/s | retransmissions | backlog drops |"
echo "|---|---|---:|---:|---:|---:|"
for transport in unix udp; do
	log=$work/$transport.log
	rm -f "$work/trace"
	IONIC_SIM_TRACE_ONLY=QP "$sim" --fabric "bench-lossless-$$" \
		--transport "$transport" --trace "$work/trace" \
		-- "$prog" --mib "$mib" >"$log" 2>&1
	rc=$?
	rexmit=$(sed -n 's/^retransmits \([0-9-]*\) .*/\1/p' "$log")
	drops=$(sed -n 's/.* backlog_drops \([0-9-]*\) .*/\1/p' "$log")
	for op in WRITE READ SEND; do
		rate=$(awk -v op="$op" '$1 == op { print $4 }' "$log")
		[ -n "$rate" ] || rate=null
		echo "| $transport | $op | $mib | $rate | ${rexmit:--} | ${drops:--} |"
		rows+=("{\"transport\": \"$transport\", \"op\": \"$op\", \"mib\": $mib, \"mb_s\": $rate, \"retransmits\": ${rexmit:-null}, \"backlog_drops\": ${drops:-null}, \"exit\": $rc}")
	done
	if [ "$rc" != 0 ]; then
		echo "run-lossless.sh: $transport run exited $rc:"
		sed 's/^/    /' "$log"
	fi
done
{
	echo "["
	for i in "${!rows[@]}"; do
		sep=,
		[ "$i" = $((${#rows[@]} - 1)) ] && sep=
		echo " ${rows[$i]}$sep"
	done
	echo "]"
} >"$out"
