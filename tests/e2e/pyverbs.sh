#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Runs rdma-core's own pyverbs test suite (Debian's python3-pyverbs: v44 on
# Debian 12, v56.1 on Debian 13) unmodified against libionic on an emulated
# ionic device.
# Usage: pyverbs.sh <ionic-sim> [TEST ...]   (default: the supported set)
#        pyverbs.sh <ionic-sim> --all     every test of the installed suite
#                                         but one that crashes pyverbs
# Prints "pyverbs: N passed, N failed, N skipped" and the skip reasons;
# exits non-zero on any failure and when a test on the suite version's
# pass list (tests/e2e/pyverbs/pass-v<N>.txt) that this run asked for did
# not pass (docs/testing.md §1.8); 77 (skipped) when the installed suite
# needs what this ionic-sim lacks.
set -u
sim=$(readlink -f "$1")
shift
here=$(dirname "$(readlink -f "$0")")
src=/usr/share/doc/rdma-core/tests
[ -d "$src" ] || { echo "python3-pyverbs test suite not installed ($src)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src"/. "$work"/
find "$work" -name '*.gz' -exec gunzip -f {} +
# shellcheck disable=SC2016 # a dpkg-query format
version=$(dpkg-query -W -f='${Version}' python3-pyverbs 2>/dev/null)
echo "pyverbs suite: python3-pyverbs ${version:-(version unknown)}"

# From v56 on, the set-up of every test on a port (base.py, get_net_name)
# asks "rdma link show -j" for the port's network interface and fails the
# test when that command fails: without RDMA netlink answers from ionic-sim
# each of them would error before testing anything of the provider.
if grep -q "'rdma', 'link'" "$work/base.py" &&
	! "$sim" --fabric "${IONIC_TEST_FABRIC:-default}" -- rdma link show -j >/dev/null 2>&1; then
	echo "pyverbs skipped: this suite runs 'rdma link show -j' in its set-up, and this ionic-sim answers no RDMA netlink"
	exit 77
fi

# test_mem_align_srq_excq_rc_traffic is never run: it skips (no SRQ) after
# creating a CQ through a parent domain, and pyverbs then frees the
# allocator context before that CQ, so the CQ's free callback runs into a
# dead Python object and can crash the interpreter (and with it the rest
# of the run).
crashes=test_parent_domain.ParentDomainTrafficTest.test_mem_align_srq_excq_rc_traffic
if [ "${1:-}" = --all ]; then
	# Every module of the suite, the module holding $crashes as its
	# other tests one by one (read from its source, not imported).
	mapfile -t all < <(cd "$work" && /usr/bin/python3 - "$crashes" <<'PY'
import ast, glob, sys
skip = sys.argv[1]
for path in sorted(glob.glob("test_*.py")):
    mod = path[:-3]
    if not skip.startswith(mod + "."):
        print(mod)
        continue
    tree = ast.parse(open(path).read())
    for c in tree.body:
        if isinstance(c, ast.ClassDef):
            for f in c.body:
                if isinstance(f, ast.FunctionDef) and f.name.startswith("test"):
                    name = "%s.%s.%s" % (mod, c.name, f.name)
                    if name != skip:
                        print(name)
PY
	)
	set -- "${all[@]}"
	echo "pyverbs: the whole suite (${#all[@]} modules and tests), but $crashes"
elif [ $# -eq 0 ]; then
	# Verbs ionic supports today (see README, "pyverbs"); grows with the op set.
	# ($crashes is not among them, see above.)
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
		test_qp.QPTest.test_query_data_in_order \
		test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_recv_sge \
		test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_recv_wr \
		test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_send_sge \
		test_qp.QPTest.test_create_raw_qp_ex_with_illegal_caps_max_send_wr \
		test_cqex.CqExTestCase.test_rc_traffic_cq_ex test_cqex.CqExTestCase.test_ud_traffic_cq_ex \
		test_relaxed_ordering.RoTestCase.test_ro_rc_traffic \
		test_relaxed_ordering.RoTestCase.test_ro_ud_traffic \
		test_parent_domain.ParentDomainTrafficTest.test_default_allocators_rc_traffic \
		test_parent_domain.ParentDomainTrafficTest.test_mem_align_rc_traffic \
		test_parent_domain.ParentDomainTrafficTest.test_mem_align_ud_traffic \
		test_parent_domain.ParentDomainTrafficTest.test_without_allocators_rc_traffic \
		test_qpex.QpExTestCase.test_qp_ex_rc_send test_qpex.QpExTestCase.test_qp_ex_rc_send_imm \
		test_qpex.QpExTestCase.test_qp_ex_ud_send test_qpex.QpExTestCase.test_qp_ex_ud_send_imm \
		test_qpex.QpExTestCase.test_qp_ex_ud_zero_size test_qpex.QpExTestCase.test_full_rq_bad_flow \
		test_qpex.QpExTestCase.test_post_receive_qp_state_bad_flow \
		test_qpex.QpExTestCase.test_post_send_qp_state_bad_flow \
		test_qpex.QpExTestCase.test_rq_with_larger_sgl_bad_flow \
		test_qpex.QpExTestCase.test_qp_ex_rc_rdma_write \
		test_qpex.QpExTestCase.test_qp_ex_rc_rdma_write_imm \
		test_qpex.QpExTestCase.test_qp_ex_rc_rdma_write_zero_length \
		test_qpex.QpExTestCase.test_qp_ex_rc_rdma_read \
		test_qpex.QpExTestCase.test_qp_ex_rc_rdma_read_zero_size \
		test_qpex.QpExTestCase.test_qp_ex_rc_atomic_cmp_swp \
		test_qpex.QpExTestCase.test_qp_ex_rc_atomic_fetch_add \
		test_qpex.QpExTestCase.test_qp_ex_rc_bind_mw \
		test_atomic.AtomicTest.test_atomic_cmp_and_swap \
		test_atomic.AtomicTest.test_atomic_fetch_and_add \
		test_atomic.AtomicTest.test_atomic_invalid_lkey \
		test_atomic.AtomicTest.test_atomic_invalid_mr_access \
		test_atomic.AtomicTest.test_atomic_invalid_qp_access \
		test_atomic.AtomicTest.test_atomic_invalid_rkey \
		test_atomic.AtomicTest.test_atomic_non_aligned_addr \
		test_mr.MWTest \
		test_shared_pd.SharedPDTestCase \
		test_rdmacm.CMTestCase.test_rdmacm_async_read \
		test_rdmacm.CMTestCase.test_rdmacm_async_reject_traffic \
		test_rdmacm.CMTestCase.test_rdmacm_async_traffic \
		test_rdmacm.CMTestCase.test_rdmacm_async_traffic_external_qp \
		test_rdmacm.CMTestCase.test_rdmacm_async_udp_traffic \
		test_rdmacm.CMTestCase.test_rdmacm_async_write \
		test_rdmacm.CMTestCase.test_rdmacm_sync_traffic
fi
# rdma_cm over the UDP fabric binds isim0's address, the NIC's UDP address:
# without --addr it is 127.18.0.N, lo's, where rdma_cm finds no device
# (ENODEV), so test_rdmacm runs there only with an --addr of its own
# (e2e-pyverbs-rdmacm-udp, in a namespace: docs/kernel-contract.md §22.5)
lo_addr=no
case " ${IONIC_E2E_SIM_ARGS:-} " in
*" --addr 127."*) lo_addr=yes ;;
*" --addr "*) ;;
*" --transport udp "*) lo_addr=yes ;;
esac
case $lo_addr in
yes)
	keep=()
	for t in "$@"; do
		case $t in
		test_rdmacm | test_rdmacm.*) ;;
		*) keep+=("$t") ;;
		esac
	done
	set -- "${keep[@]}"
	;;
esac

cd "$work" || exit 1
# launcher options (the UDP fabric: --transport udp)
read -r -a simargs <<<"${IONIC_E2E_SIM_ARGS:-}"
timeout 900 "$sim" --fabric "${IONIC_TEST_FABRIC:-default}" "${simargs[@]}" -- /usr/bin/python3 run_tests.py --dev ionic_0 --port 1 --gid 1 -v "$@" \
	>"$work/log.txt" 2>&1
rc=$?
cat "$work/log.txt"
# the counts, the skip reasons and the pass list of this suite version
# (tests/e2e/pyverbs_results.py); IONIC_PYVERBS_PASSED_OUT=FILE writes
# the names of the tests that passed there (to make or grow a list)
list=$here/pyverbs/pass-v${version%%.*}.txt
if [ ! -f "$list" ]; then
	echo "pyverbs: no pass list for python3-pyverbs ${version:-?} ($list): counts only"
	list=-
	[ "${CI:-}" = true ] && { echo "FAIL: CI holds every pyverbs run to a pass list"; rc=1; }
fi
out=()
[ -n "${IONIC_PYVERBS_PASSED_OUT:-}" ] && out=(--passed-out "$IONIC_PYVERBS_PASSED_OUT")
/usr/bin/python3 "$here/pyverbs_results.py" "${out[@]}" "$work/log.txt" \
	"${version%%.*}" "$list" "$@" || rc=1
[ "$rc" -eq 0 ]
