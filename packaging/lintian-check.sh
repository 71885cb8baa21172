#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# lintian as the packaging tests use it: pedantic, informational tags
# shown, any error or warning fails.  Prints lintian's findings and one
# "ok:" or "FAIL:" line.
#
# usage: lintian-check.sh SCRATCH CHANGES...
#   SCRATCH  a directory for lintian's scratch files (it leaves mldbm-*
#            files in TMPDIR), created if missing
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 SCRATCH CHANGES..." >&2
	exit 2
fi
scratch=$1
shift
mkdir -p "$scratch" || exit 1
out=$(TMPDIR=$scratch lintian -I --pedantic --fail-on error,warning "$@" 2>&1)
rc=$?
# (its note about running as root is not about the packages)
printf '%s\n' "$out" | grep -v -e '^$' -e 'running with root privileges'
if [ $rc -ne 0 ]; then
	echo "FAIL: lintian reports errors or warnings (exit $rc)"
	exit 1
fi
echo "ok: lintian: no errors, no warnings"
