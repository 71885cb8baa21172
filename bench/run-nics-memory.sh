#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Host memory per emulated NIC (ionic-sim --nics, issue 23 item 5): a
# process that opens 1, 2 and 8 NICs (a context, PD, CQ and RC QP on each,
# through pyverbs), and the launcher itself on both fabrics (on UDP with a
# relay thread per NIC).  RSS and PSS from /proc/<pid>/smaps_rollup, in kB.
# A benchmark, not a test: it prints figures and fails only if a run does.
# usage: run-nics-memory.sh [build/sim/ionic-sim]
set -eu
sim=${1:-build/sim/ionic-sim}
fabric=bench-nics-$$

echo "process that opens N NICs (growth over the process before the first open):"
for n in 1 2 8; do
	"$sim" --fabric "$fabric" --nics $n -- /usr/bin/python3 -c '
import os, sys
import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr

def rollup():
    r = {}
    for line in open("/proc/self/smaps_rollup"):
        f = line.split()
        if f[0] in ("Rss:", "Pss:"):
            r[f[0][:-1]] = int(f[1])
    return r

n = int(sys.argv[1])
before = rollup()
keep = []
for k in range(n):
    ctx = d.Context(name="ionic_%d" % k)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    cap = QPCap(max_send_wr=64, max_recv_wr=64)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    keep += [ctx, pd, cq, qp]
after = rollup()
print("  nics=%d rss+%d pss+%d threads=%d" % (
    n, after["Rss"] - before["Rss"], after["Pss"] - before["Pss"],
    len(os.listdir("/proc/self/task"))))' "$n"
done

echo "launcher (and its run directory on disk):"
for t in unix udp; do
	for n in 1 8; do
		# shellcheck disable=SC2016 # expanded by the inner shell
		"$sim" --fabric "$fabric" --nics $n --transport $t -- sh -c '
			p=$PPID
			rss=$(awk "/^Rss:/{print \$2}" /proc/$p/smaps_rollup)
			pss=$(awk "/^Pss:/{print \$2}" /proc/$p/smaps_rollup)
			echo "  $1 nics=$2 rss=$rss pss=$pss" \
				"threads=$(ls /proc/$p/task | wc -l)" \
				"rundir_kb=$(du -sk "$IONIC_SIM_RUNDIR" | cut -f1)"' \
			sh $t $n
	done
done
