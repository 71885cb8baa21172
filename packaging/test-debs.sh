#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# End-to-end test of the Debian packages for one suite: in a cached
# debootstrap chroot of that suite (packaging/debian-chroot.sh; created on
# first use, which needs the Debian mirror), in a throw-away overlay with
# no network, build the .debs from the release tarball against the suite's
# own libibverbs, install them with apt, run ibv_devinfo and an
# ibv_rc_pingpong pair on ionic-sim through the installed provider, purge
# them and check nothing is left, and check them with the suite's own
# lintian (packaging/deb-e2e-inner.sh).
# Nothing on this machine outside WORKDIR and the chroot cache changes.
#
# usage: test-debs.sh SUITE WORKDIR
# Exit status 77 (skipped) when the chroot cannot be had here.
# Environment: DEB_BUILD_OPTIONS for the package build (default parallel=2),
# IONIC_PACKAGE_TEST_KEEP=1 keeps WORKDIR (packages, overlay) for a look.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 SUITE WORKDIR" >&2
	exit 2
fi
suite=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(dirname "$here")

# What the chroot needs: the build dependencies of debian/control (first
# alternative, no versions or profiles), a compiler, and what the test runs.
build_deps() {
	awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, ""); print; next }
	     f && /^[ \t]/ { print; next } { f = 0 }' "$src/debian/control" |
		tr ',' '\n' | sed 's/[(<[].*//; s/|.*//; s/[[:space:]]//g' | grep . |
		sed 's/^debhelper-compat$/debhelper/'
}
mapfile -t packages < <(build_deps)
packages+=(build-essential libibverbs1 ibverbs-providers ibverbs-utils lintian)

t0=$SECONDS
"$here/debian-chroot.sh" ensure "$suite" "${packages[@]}" >/dev/null
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: no $suite chroot (exit $rc)"; exit 1; }
t_chroot=$((SECONDS - t0))

rm -rf "$work"
mkdir -p "$work/io" || exit 1
work=$(cd "$work" && pwd)
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ "${IONIC_PACKAGE_TEST_KEEP:-0}" = 1 ]; then
		echo "note: kept $work"
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
tarball=$("$here/mkdist.sh" "$work/io") || exit 1
cp -r "$here" "$work/io/packaging"
# ibverbs-dep.sh reads the provider's release table beside it
mkdir -p "$work/io/providers/ionic/ibverbs-private"
cp "$here/../providers/ionic/ibverbs-private/families.h" \
	"$work/io/providers/ionic/ibverbs-private/"

t1=$SECONDS
"$here/debian-chroot.sh" run "$suite" "$work/overlay" --bind "$work/io:/io" -- \
	/io/packaging/deb-e2e-inner.sh /io "$(basename "$tarball")" \
	"${DEB_BUILD_OPTIONS:-parallel=2}"
rc=$?
t_run=$((SECONDS - t1))

dir=$("$here/debian-chroot.sh" path "$suite")
echo
echo "times: chroot ready in ${t_chroot}s ($(du -sh --one-file-system "$dir" | cut -f1) in $dir), package test ${t_run}s, total $((SECONDS - t0))s"
exit $rc
