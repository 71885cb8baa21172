#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Run COMMAND under ionic-sim with a trace in a private temporary file
# (the command finds it as $IONIC_SIM_TRACE and may read it), and remove
# the file however the run ends.  The exit status is the launcher's.  The
# tests of the verbs suite and the emulator's (sim-fdtable) use it.
#
# usage: run-traced.sh IONIC_SIM [LAUNCHER OPTIONS...] -- COMMAND [ARGS...]
set -u
sim=${1:?usage: $0 IONIC_SIM [OPTIONS...] -- COMMAND [ARGS...]}
shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/ionic-traced.XXXXXX") || exit 125
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
"$sim" --trace "$dir/trace" "$@"
