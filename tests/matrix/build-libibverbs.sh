#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Builds one rdma-core release's libibverbs and ibverbs-utils from its source
# tarball, for testing libionic against it; nothing of it is installed.
#
#   usage: build-libibverbs.sh TARBALL CACHE_DIR
#
# The tree goes to CACHE_DIR/<release>/ (src/ unpacked, build/ the CMake
# tree) and its path is the last line printed.  A tree built from the same
# tarball (same SHA-256) is reused as it is, so a rerun costs nothing.  The
# result is what IONIC_IBVERBS_PREFIX=<tree>/build takes: include/ (the
# published headers, private ones included), lib/libibverbs.so.1 and bin/
# (ibv_devinfo, ibv_rc_pingpong, ibv_ud_pingpong, ... with RUNPATH to lib/).
#
# Built as distributions build it (Release: no VERBS_DEBUG); pyverbs and man
# pages are not needed.  Its compiled-in driver directory is an empty
# CACHE_DIR/<release>/etc/libibverbs.d: providers come from RDMAV_DRIVERS
# only, and no "couldn't open config directory" warning is printed.  Needs cmake, ninja, gcc, python3, pkg-config and the
# libnl-3/libnl-route-3 development files (without them libibverbs would
# lose netlink device discovery, so they are required, not optional).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 TARBALL CACHE_DIR" >&2
	exit 2
fi
tarball=$(readlink -f "$1")
mkdir -p "$2"
cache=$(cd "$2" && pwd)
name=$(basename "$tarball")
case $name in
rdma-core-*.tar.xz) release=${name#rdma-core-} release=${release%.tar.xz} ;;
*)
	echo "build-libibverbs.sh: $name is not rdma-core-<release>.tar.xz" >&2
	exit 2
	;;
esac

UTILS=(ibv_devices ibv_devinfo ibv_rc_pingpong ibv_ud_pingpong
	ibv_uc_pingpong ibv_srq_pingpong ibv_asyncwatch)
JOBS=${IONIC_MATRIX_JOBS:-2}

tree=$cache/$release
# one builder per release at a time (the matrix and a ctest may share it)
exec 9>"$cache/$release.lock"
flock 9
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
# what the tree was built from and how (this script's own checksum
# included, since the cache may outlive a checkout: .ci/run keeps it in
# $IONIC_RDMA_CORE_CACHE): a change of either rebuilds it
how=$(sha256sum "$(readlink -f "$0")" | cut -c1-16)
stamp="$sum sysconfdir=$cache/$release/etc ${UTILS[*]} script=$how"
if [ -f "$tree/stamp" ] && [ "$(cat "$tree/stamp")" = "$stamp" ] &&
	[ -e "$tree/build/lib/libibverbs.so.1" ]; then
	echo "$tree/build"
	exit 0
fi

rm -rf "$tree"
mkdir -p "$tree/build" "$tree/etc/libibverbs.d"
log=$tree/build.log
if ! {
	tar -xJf "$tarball" -C "$tree" &&
		mv "$tree/rdma-core-$release" "$tree/src" &&
		cmake -S "$tree/src" -B "$tree/build" -G Ninja \
			-DCMAKE_BUILD_TYPE=Release -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
			-DCMAKE_INSTALL_SYSCONFDIR="$tree/etc" &&
		ninja -C "$tree/build" -j "$JOBS" ibverbs "${UTILS[@]}"
} >"$log" 2>&1; then
	echo "build-libibverbs.sh: building rdma-core $release failed; last lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
echo "$stamp" >"$tree/stamp"
echo "$tree/build"
