#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# Run PROGRAM under the launcher with a trace in a temporary file that
# PROGRAM reads ($IONIC_SIM_TRACE), on a fabric of its own; the file is
# removed however the run ends.  Exit status: the program's.
# usage: run_traced.sh <path-to-ionic-sim> PROGRAM [ARGS...]
set -u
L=$1
shift
t=$(mktemp "${TMPDIR:-/tmp}/isim-trace.XXXXXX") || exit 1
trap 'rm -f "$t"' EXIT
trap 'exit 1' INT TERM HUP
"$L" --fabric "traced$$" --trace "$t" -- "$@"
