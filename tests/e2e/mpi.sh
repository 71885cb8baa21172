#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end: Open MPI (Debian's openmpi-bin: 4.1 in 12, 5.0 in 13) with
# its UCX PML over the emulated NIC: `mpirun -np 2 --mca pml ucx NPopenmpi
# -i`, NetPIPE's integrity check, for message sizes from 5 to 3073 bytes
# (-u 4096).  Both ranks run under one launcher (one node, a NIC per
# process); the byte transport is UCX's ud_verbs on ionic_0 (see ucx.sh for
# the environment).
# Usage: mpi.sh <ionic-sim>.  Exits 77 (skip) when a tool is missing.
# work and fabric are set by e2e_setup (lib.sh)
# shellcheck disable=SC2154
set -u
sim=$1

# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
e2e_require "openmpi-bin, netpipe-openmpi" mpirun NPopenmpi
e2e_setup mpi
cd "$work" || exit 1
# root: CI runs as root; no btl besides self (the PML is UCX's)
# In the sanitizer build, e2e_san_runtime (lib.sh) puts the ASan runtime
# first, and two hooking mechanisms stay off: Open MPI 5 (Debian 13)
# patches the code of mprotect & co., which under that runtime is GCC 14
# libasan's interceptor trampolines (every rank dies of SIGILL in MPI_Init,
# with or without ionic-sim), and UCX's memory hooks (ucx.sh says why).
# Open MPI's own processes run without the runtime (mpirun_nosan.sh).
mpirun=(mpirun)
e2e_san_runtime && mpirun=("$(dirname "$(readlink -f "$0")")/mpirun_nosan.sh"
	--mca memory ^patcher -x UCX_MEM_EVENTS=no)
# Open MPI keeps its session directory under TMPDIR: inside our work dir
TMPDIR=$work timeout 120 "$sim" --fabric "$fabric" -- "${mpirun[@]}" --allow-run-as-root -np 2 \
	--mca pml ucx --mca btl self \
	-x UCX_TLS=ud_verbs \
	NPopenmpi -i -u 4096 -o "$work/np.out" >"$work/mpi.out" 2>&1
rc=$?
cat "$work/mpi.out"
fail=0
[ "$rc" -eq 0 ] || { echo "FAIL: mpirun exit $rc"; fail=1; }
n=$(grep -c 'Integrity check passed' "$work/mpi.out")
grep -q 'Integrity check failed' "$work/mpi.out" && { echo "FAIL: data corrupted"; fail=1; }
# NetPIPE's sizes up to 4096 bytes: 1 byte steps around each power of two
[ "$n" -ge 20 ] || { echo "FAIL: only $n sizes passed"; fail=1; }
echo "$n message sizes passed the integrity check"
exit $fail
