#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Runs rdma-core's own pyverbs test suite (Debian's python3-pyverbs, v44)
# unmodified against libionic on an emulated ionic device.
# Usage: pyverbs.sh <ionic-sim> [TEST ...]   (default: the supported set)
# Prints "N passed, N failed, N skipped"; exits non-zero on any failure.
set -u
sim=$(readlink -f "$1")
shift
src=/usr/share/doc/rdma-core/tests
[ -d "$src" ] || { echo "python3-pyverbs test suite not installed ($src)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src"/. "$work"/
find "$work" -name '*.gz' -exec gunzip -f {} +

if [ $# -eq 0 ]; then
	# Verbs ionic supports today (see README, "pyverbs"); grows with the op set.
	set -- test_device.DeviceTest test_pd.PDTest test_addr.AHTest \
		test_cq.CQAPITest.test_create_cq test_cq.CQAPITest.test_create_cq_bad_flow \
		test_cq.CQAPITest.test_create_cq_with_comp_channel \
		test_cq_events.CqEventsTestCase \
		test_cqex.CQEXAPITest test_fork.ForkAPITest \
		test_mr.MRTest.test_reg_mr_bad_flags \
		test_qp.QPTest.test_create_rc_qp_no_attr test_qp.QPTest.test_create_rc_qp_with_attr \
		test_qp.QPTest.test_create_ud_qp_no_attr test_qp.QPTest.test_create_ud_qp_with_attr \
		test_qp.QPTest.test_create_rc_qp_ex_no_attr test_qp.QPTest.test_create_rc_qp_ex_with_attr \
		test_qp.QPTest.test_create_ud_qp_ex_no_attr test_qp.QPTest.test_create_ud_qp_ex_with_attr \
		test_qp.QPTest.test_modify_ud_qp test_qp.QPTest.test_query_rc_qp test_qp.QPTest.test_query_ud_qp \
		test_qp.QPTest.test_query_data_in_order
fi

cd "$work" || exit 1
timeout 900 "$sim" -- /usr/bin/python3 run_tests.py --dev ionic_0 --port 1 --gid 1 -v "$@" \
	>"$work/log.txt" 2>&1
rc=$?
cat "$work/log.txt"
p=$(grep -cE '\.\.\. ok$' "$work/log.txt")
s=$(grep -cE '\.\.\. skipped' "$work/log.txt")
f=$(grep -cE '\.\.\. (FAIL|ERROR)$' "$work/log.txt")
echo "$p passed, $f failed, $s skipped"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$p" -gt 0 ]
