#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: UCX (Debian's ucx-utils: 1.13 in 12, 1.18 in 13) unmodified
# on the emulated NIC, with its default memory hooks: `ucx_info -d` lists
# ud_verbs on ionic_0:1, and `ucx_perftest -t tag_bw` passes between two
# processes, each with its own NIC.  Only UCX_TLS is set (on one host UCX
# would otherwise pick shared memory), so ud_verbs runs with its
# destination-GID check on: it finds the IPv4 header in the GRH area
# because the provider reports the network header type in wc.sl
# (docs/testing.md §2.5).
# Usage: ucx.sh <ionic-sim>.  Exits 77 (skip) when ucx-utils is missing.
# work, fabric and port are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
e2e_require ucx-utils ucx_info ucx_perftest
e2e_setup ucx
export UCX_TLS=ud_verbs
fail=0

timeout 60 "$sim" --fabric "$fabric" -- ucx_info -d >"$work/info.out" 2>&1
if ! grep -A1 'Transport: ud_verbs' "$work/info.out" | grep -q 'Device: ionic_0:1'; then
	cat "$work/info.out"
	echo "FAIL: ucx_info -d does not list ud_verbs on ionic_0:1"
	fail=1
fi

args=(-t tag_bw -n 2000 -s 4096 -p "$port")
# A ucx_perftest built with MPI (UCX 1.18 on Debian 13) starts as an MPI
# singleton whenever stdin is not a terminal, and in MPI mode unless told
# otherwise ("exactly 2 processes in p2p case"): -P 0; Open MPI's session
# directory goes into our work directory (TMPDIR), not the tests'.
# In the sanitizer build the ASan runtime comes first (e2e_san_runtime,
# lib.sh: the MPI singleton dies without it), Open MPI's code patcher stays
# off (mpi.sh) and so do UCX's memory hooks: UCX 1.13's default ("bistro")
# patches the first mmap in the lookup order, then ASan's interceptor, not
# the stub ionic-sim heals (sim/shim/hookheal.c), and the provider's
# doorbell mapping reaches the real kernel (ENODEV; docs/testing.md §2.5).
export TMPDIR=$work
if e2e_san_runtime; then
	export OMPI_MCA_memory=^patcher UCX_MEM_EVENTS=no
fi
if ucx_perftest -h 2>&1 | grep -q -- '-P <0|1>'; then
	args+=(-P 0)
fi
timeout 90 "$sim" --fabric "$fabric" -- ucx_perftest "${args[@]}" \
	>"$work/server.out" 2>&1 &
server_pid=$!
e2e_wait_listen
timeout 90 "$sim" --fabric "$fabric" -- ucx_perftest 127.0.0.1 "${args[@]}" \
	>"$work/client.out" 2>&1
client_rc=$?
wait "$server_pid"
server_rc=$?
server_pid=
for side in server client; do
	echo "---- $side ----"
	cat "$work/$side.out"
done
grep -qE '^Final: +2000 ' "$work/client.out" || { echo "FAIL: no final result line"; fail=1; }
grep -q 'UCX  ERROR' "$work/client.out" "$work/server.out" && { echo "FAIL: UCX reported an error"; fail=1; }
[ "$client_rc" -eq 0 ] || { echo "FAIL: client exit $client_rc"; fail=1; }
[ "$server_rc" -eq 0 ] || { echo "FAIL: server exit $server_rc"; fail=1; }
exit $fail
