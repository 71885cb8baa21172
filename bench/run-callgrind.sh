#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# One program under callgrind inside ionic-sim: repeatable instruction
# counts of the provider (and of anything else in the process).  This file
# is the one home of the valgrind flags; bench/report.py runs every
# callgrind measurement through it.
#
# Usage: run-callgrind.sh <ionic-sim> <out-file> [ionic-sim options] -- \
#            <program> [arguments]
#        run-callgrind.sh --flags     print the valgrind command, one word
#                                     per line
# Then, e.g.: callgrind_annotate --inclusive=yes <out-file>
#
# Why these flags: ionic-sim's doorbell trap decodes the faulting store
# from the signal context, so every guest register must be exact at memory
# accesses, and with callgrind that needs VEX's IR optimisation off.  One
# guest instruction per superblock: callgrind counts a block's
# instructions when it enters it, so after a trapping doorbell store the
# rest of the block would be counted twice.  None of them change what the
# guest executes; --collect-systime adds system call counts and times.
set -euo pipefail

flags=(valgrind -q --tool=callgrind
	--vex-iropt-register-updates=allregs-at-mem-access
	--vex-iropt-level=0 --vex-guest-max-insns=1
	--collect-systime=yes)

if [ "${1:-}" = --flags ]; then
	printf '%s\n' "${flags[@]}"
	exit 0
fi
if [ $# -lt 4 ]; then
	sed -n '/^# Usage/,/^# Then/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
command -v valgrind >/dev/null || {
	echo "run-callgrind.sh: valgrind is not installed"
	exit 77
}
sim=$1
out=$2
shift 2
simopts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	simopts+=("$1")
	shift
done
[ "${1:-}" = -- ] || {
	echo "run-callgrind.sh: no '--' before the program" >&2
	exit 2
}
shift
# a fabric of its own (under ctest named after the test)
fabric=${IONIC_TEST_FABRIC:-bench}-$$
exec "$sim" --fabric "$fabric" "${simopts[@]}" -- \
	"${flags[@]}" --callgrind-out-file="$out" "$@"
