#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# lintian as the packaging tests use it: pedantic, informational tags
# and the overridden ones (debian/*.lintian-overrides, "O:", with the
# reason, "N:") shown; any error or warning fails.  Prints lintian's findings and one "ok:" or
# "FAIL:" line.
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
out=$(TMPDIR=$scratch lintian -I --pedantic --show-overrides "$@" 2>&1)
rc=$?
# (its note about running as root is not about the packages)
printf '%s\n' "$out" | grep -v -e '^$' -e 'running with root privileges'
# Not --fail-on: with --show-overrides, lintian 2.116 counts the
# overridden tags too.  1 is lintian's own failure, 2 a tag of some level.
if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
	echo "FAIL: lintian failed (exit $rc)"
	exit 1
fi
if printf '%s\n' "$out" | grep -q '^[EW]: '; then
	echo "FAIL: lintian reports errors or warnings"
	exit 1
fi
echo "ok: lintian: no errors, no warnings ($(printf '%s\n' "$out" | grep -c '^O: ') overridden, each with its reason above)"
