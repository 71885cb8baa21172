# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# shellcheck shell=sh
# Sourced by the oracle tests: finds upstream rdma-core's build in
# ../shared/oracle next to the source tree (or $IONIC_ORACLE_DIR), exits 77
# with a message without it, and sets
#   ORACLE  its rdma-core-upstream directory
#   OLIB    a directory of links to its libraries (oracle-lib.sh), under $1
# Nothing of the project needs the oracle: it is only compared with.
# oracle_begin NAME does it all in a new work directory, $work, removed at
# exit.
oracle_setup() { # workdir
	src=${IONIC_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
	ORACLE=${IONIC_ORACLE_DIR:-$src/../shared/oracle}/rdma-core-upstream
	if [ ! -d "$ORACLE/lib" ]; then
		echo "SKIP: no oracle ($ORACLE absent: upstream rdma-core's build, see docs/oracle-comparison.md)"
		exit 77
	fi
	"$(dirname "$0")/oracle-lib.sh" "$ORACLE" "$1/oracle" || exit $?
	# shellcheck disable=SC2034 # used by the scripts that source this
	OLIB=$1/oracle/lib
}
oracle_begin() { # name
	work=$(mktemp -d "${TMPDIR:-/tmp}/oracle-$1.XXXXXX") || exit 1
	trap 'rm -rf "$work"' EXIT
	trap 'exit 1' INT TERM HUP
	oracle_setup "$work"
}
