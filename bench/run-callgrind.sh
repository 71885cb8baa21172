#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Instructions executed by the provider per data-path verb, counted by
# callgrind (repeatable, unlike wall time on a shared VM).
#
# Usage: run-callgrind.sh <ionic-sim> <post_poll> [N1 N2]
# Runs the benchmark for N1 and N2 iterations and divides the difference of
# each verb's inclusive instruction count by N2 - N1, so set-up and teardown
# cancel out.  Each iteration is 1 post_send, 1 post_recv, 2 req_notify_cq
# and 2 poll_cq (see post_poll.c).
set -eu
sim=$(readlink -f "$1")
bench=$(readlink -f "$2")
n1=${3:-200}
n2=${4:-1200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }

count() { # iterations -> "function inclusive_Ir" lines
	local n=$1 out=$work/cg.$1
	# The doorbell trap decodes the faulting store from the signal
	# context: valgrind must keep every guest register exact at memory
	# accesses, and under callgrind the reported RIP is only exact with
	# VEX's IR optimisation off (it does not change guest instruction
	# counts, only how fast valgrind runs).  One guest instruction per
	# superblock: callgrind counts a block's instructions as it enters
	# it, so the instructions after a trapping doorbell store would be
	# counted again when the block resumes after the signal.
	"$sim" -- valgrind -q --tool=callgrind \
		--vex-iropt-register-updates=allregs-at-mem-access \
		--vex-iropt-level=0 --vex-guest-max-insns=1 \
		--callgrind-out-file="$out" "$bench" "$n" 32 >/dev/null
	# callgrind_annotate lists a function once per source file it has
	# lines in: code inlined from headers shows up as extra entries of
	# the same function, each a part of the whole, and run from inside
	# the source tree it lists the function's own file twice (absolute
	# and relative path).  The largest entry is the whole function,
	# callees and inlined code included: what its callers pay.
	callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null |
		awk '$NF ~ /^\[/ { NF-- }
		     { fn = $NF; sub(/.*:/, "", fn) }
		     fn ~ /^ionic_(post_send|post_recv|poll_cq|req_notify_cq)$/ {
			ir = $1; gsub(",", "", ir)
			if (ir + 0 > max[fn]) max[fn] = ir + 0 }
		     END { for (f in max) print f, max[f] }'
}

count "$n1" >"$work/a"
count "$n2" >"$work/b"
printf '%-24s %12s\n' verb "Ir per call"
join <(sort "$work/a") <(sort "$work/b") |
	awk -v d=$((n2 - n1)) '{
		calls = ($1 ~ /poll_cq|req_notify/) ? 2 : 1
		printf "%-24s %12.1f\n", $1, ($3 - $2) / d / calls }'
