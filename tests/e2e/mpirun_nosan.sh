#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# mpirun for the sanitizer build (mpi.sh, cluster.sh): Open MPI's own
# processes (mpirun/prterun and the orted/prted daemons it starts on the
# other hosts) run with no LD_PRELOAD; the ranks get the caller's (the
# ASan runtime first, then ionic-sim) through mpirun's -x.
#
# Why: ASan (gcc 12's and gcc 14's libasan) does not hold its allocator's
# locks across fork(), and Open MPI 5's prterun and prted are processes
# of many threads that allocate in the child between fork and exec.  A
# child forked while another thread held one of those locks waits for it
# forever: e2e-cluster-mpi hung so about one run in four in Debian 13's
# sanitizer build (the rank's launcher child in __sanitizer::Mutex::Lock
# under prte_odls_base_spawn_proc).  The daemons use no RDMA; only the
# ranks need the emulator and the runtime.
#
#   mpirun_nosan.sh MPIRUN-ARGS...    instead of mpirun
#   mpirun_nosan.sh --rsh SSH-ARGS... the remote shell it hands mpirun:
#                                     the cluster's own (ionic-sim cluster
#                                     rsh), the command without LD_PRELOAD
set -eu
self=$(readlink -f "$0")
if [ "${1:-}" = --rsh ]; then
	shift
	# mpirun's options for its remote shell (-x, -T: none with a value);
	# then the host
	while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
	[ $# -ge 2 ] || { echo "mpirun_nosan.sh --rsh: no host or command" >&2; exit 2; }
	host=$1
	shift
	# a daemon that starts others (--tree-spawn) uses this shell too
	# shellcheck disable=SC2086 # the agent is a command line, as mpirun's
	exec $IONIC_TEST_RSH_AGENT "$host" "unset LD_PRELOAD;" \
		"export IONIC_TEST_RSH_AGENT='$IONIC_TEST_RSH_AGENT'" \
		"OMPI_MCA_plm_rsh_agent='$self --rsh'" \
		"PRTE_MCA_plm_ssh_agent='$self --rsh';" "$@"
fi
preload=${LD_PRELOAD:-}
unset LD_PRELOAD
agent=${PRTE_MCA_plm_ssh_agent:-${OMPI_MCA_plm_rsh_agent:-}}
if [ -n "$agent" ]; then # on a host of a cluster: its remote shell
	export IONIC_TEST_RSH_AGENT=$agent
	export OMPI_MCA_plm_rsh_agent="$self --rsh"
	export PRTE_MCA_plm_ssh_agent="$self --rsh"
fi
exec mpirun -x LD_PRELOAD="$preload" "$@"
