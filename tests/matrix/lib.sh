# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# shellcheck shell=bash
#
# Shared by the release-matrix scripts: the release -> layout family table
# of providers/ionic/ibverbs-private/families.h (the one table; read here
# with the same regular expressions as cmake/IbverbsPrivate.cmake), and the
# rdma-core source tarballs.
#
#   matrix_family RELEASE      family letter of "44.0", "56.1", ... or ""
#   matrix_pabi FAMILY         private ABI number of a family
#   matrix_tarballs DIR        the rdma-core-*.tar.xz of DIR, oldest first
#   matrix_release TARBALL     "44.0" for .../rdma-core-44.0.tar.xz
#   matrix_lib_minor LIBFILE   "14" for .../libibverbs.so.1.14.44.0; for
#                              another name a FAIL line, and status 1

MATRIX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MATRIX_FAMILIES_H=$MATRIX_ROOT/providers/ionic/ibverbs-private/families.h

matrix_family() {
	local major=${1%%.*}
	sed -n "s/.*X(\\($major\\), \\([A-Z]\\)).*/\\2/p" "$MATRIX_FAMILIES_H" | head -n 1
}

matrix_pabi() {
	sed -n "s/.*X(\\($1\\), \\([0-9]*\\), [0-9]*, [01], [01], [01]).*/\\2/p" \
		"$MATRIX_FAMILIES_H" | head -n 1
}

matrix_release() {
	local b
	b=$(basename "$1")
	b=${b#rdma-core-}
	echo "${b%.tar.xz}"
}

matrix_tarballs() {
	local t
	for t in "$1"/rdma-core-*.tar.xz; do
		[ -e "$t" ] && echo "$t"
	done | sort -t- -k3 -V
}

matrix_lib_minor() {
	local m
	m=$(basename "$1")
	case $m in
	libibverbs.so.1.*.*.*) ;;
	*)
		echo "FAIL: $1 is not libibverbs.so.1.<x>.<release>.<patch>"
		return 1
		;;
	esac
	m=${m#libibverbs.so.1.}
	echo "${m%%.*}"
}
