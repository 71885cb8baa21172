#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The half of tests/distro/chroot-test.sh that runs inside the throw-away
# chroot (as PID 1 of its namespaces, as root, loopback only): unpack the
# release tarball, say what the release brings, run "./build.sh test" and
# hand its ctest logs out.
#
# usage: chroot-inner.sh IODIR TARBALL-NAME
set -u
io=$1 tarball=$2
. /etc/os-release
echo "inside: $PRETTY_NAME; $(gcc --version | head -1); $(cmake --version | head -1)"
# shellcheck disable=SC2016 # dpkg-query formats
echo "inside: libibverbs $(pkg-config --modversion libibverbs), python3-pyverbs $(dpkg-query -W -f='${Version}' python3-pyverbs), $(python3 --version)"

mkdir -p /root/src && tar -C /root/src -xzf "$io/$tarball" || exit 1
cd /root/src/libionic-* || exit 1
t0=$SECONDS
# The normal and the sanitizer suites, the two that meet the release's
# compiler and libibverbs; the fuzz targets and the ThreadSanitizer suite
# run once, in the host's "./build.sh test", to keep CI inside its time,
# and so do the reruns on the emulator's packet path (-packet: the same
# provider and libibverbs calls as the direct path's run of each test,
# only the emulator's own code differs).
# Its skips are held to tests/skips.allow with the tag "chroot" (and
# debian-13, from os-release), recorded for the host in $io/skips.tsv.
# Its phases' times go to $io/phases.tsv, for .ci/run's table.
IONIC_SKIP_WHERE=chroot IONIC_SKIP_LOG=$io/skips.tsv \
	IONIC_PHASE_LOG=$io/phases.tsv IONIC_PHASE_PREFIX='' \
	IONIC_TEST_FUZZ_SECONDS=0 IONIC_TEST_TSAN=0 \
	IONIC_CTEST_EXCLUDE='-packet$' ./build.sh test
rc=$?
echo "inside: ./build.sh test exited $rc after $((SECONDS - t0)) s"
for b in build:normal build-san:san; do
	f=${b%%:*}/Testing/Temporary/LastTest.log
	[ -f "$f" ] && cp "$f" "$io/LastTest-${b#*:}.log"
done
exit $rc
