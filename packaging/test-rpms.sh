#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The .rpms build from redhat/libionic.spec and are what the install sets
# and rpmlint expect (packaging/build-packages.sh --rpm); WORKDIR is removed
# afterwards.  Skipped (77) without rpmbuild.
#
# usage: test-rpms.sh WORKDIR
set -u
work=${1:?usage: $0 WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
"$here/build-packages.sh" --rpm "$work"
rc=$?
rm -rf "$work"
exit $rc
