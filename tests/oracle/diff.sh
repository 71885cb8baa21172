#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# The differential suite: one scenario program (plain libibverbs plus the
# IONIC_1.0 calls both libraries have), run under ionic-sim with libionic
# and with upstream's provider (the oracle, ../shared/oracle); what the
# application sees and what reaches the device (commands, doorbells, WQE
# bytes, CQEs) compared field by field, differences held to KNOWN
# (tests/oracle/diff-known.txt, docs/oracle-comparison.md).
# usage: diff.sh <ionic-sim> <diff-scenario> <known>     exit 77 without the oracle
set -u
sim=$(readlink -f "$1")
prog=$(readlink -f "$2")
known=$(readlink -f "$3")
here=$(dirname "$0")
# shellcheck source=tests/oracle/lib.sh
. "$here/lib.sh"
oracle_begin diff

fabric=${IONIC_TEST_FABRIC:-default}
# pass NAME ARG "LAUNCHER OPTIONS" [LAUNCHER OPTION...]: one run of the
# program, with ARG ("" for all of it) under the options, appended to
# NAME's trace and output.  --direct off: the responder's WQE and CQE
# trace lines come from the packet path (a QP pair of one process would
# otherwise go directly, or not, as the hellos' timing has it)
pass() {
	name=$1 arg=$2 opts=$3
	shift 3
	# shellcheck disable=SC2086 # ARG and OPTS are lists of words
	IONIC_SIM_TRACE_RAW=1 "$sim" --fabric "$fabric" --trace "$work/$name.trace" \
		--direct off $opts "$@" -- env ${OLD_LD+LD_LIBRARY_PATH="$OLD_LD"} "$prog" $arg \
		>>"$work/$name.out" 2>&1
}
# run NAME [LAUNCHER OPTION...]: the three passes: all of the program; alone,
# with controller memory and SQ express doorbells offered (cmb); all but the
# queue sizes with firmware RDMA version 1 (fw1)
run() {
	n=$1 st=0
	shift
	pass "$n" "" "" "$@" || st=1
	pass "$n" cmb "--cmb-pages 64 --expdb-qtypes 1" "$@" || st=1
	pass "$n" fw1 "--fw-version 1" "$@" || st=1
	return $st
}
if ! run ours; then
	cat "$work/ours.out"
	echo "FAIL: the scenarios fail with libionic"
	exit 1
fi
# upstream's run fails checks where its defects show (diff-known.txt)
OLD_LD=$OLIB run up --provider "$OLIB/libibverbs/libionic"
python3 "$here/diffnorm.py" "$work/ours.trace" >"$work/ours.norm" &&
	python3 "$here/diffnorm.py" "$work/up.trace" >"$work/up.norm" || exit 1
python3 "$here/diffcmp.py" "$work/ours.out" "$work/up.out" \
	"$work/ours.norm" "$work/up.norm" "$known"
