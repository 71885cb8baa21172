#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# check-doc-refs.sh: every design-document citation in a code comment must
# resolve to something in this repository.
#
#   tests/check-doc-refs.sh [--list] [--root TREE] [DIR|FILE...]
#   tests/check-doc-refs.sh --rewrite [--root TREE] [DIR|FILE...]
#
# Scans the comments of C sources and headers, shell scripts and CMake
# files under providers/ sim/ common/ include/ kernel-headers/ tests/
# bench/ cmake/ .ci/ and in CMakeLists.txt and build.sh (or the paths given,
# relative to the repository root: this script's own, or TREE) and checks:
#
#   path.md          the file exists (relative to the repository root or to
#                    the citing file's directory);
#   path.md §N       path.md has a heading numbered N ("## N. Title",
#                    "### N Title"); ranges and lists (§5-§8, §9.4/§9.5,
#                    §3.1, §3.2) check every number;
#   path.md "Text"   path.md has a heading containing Text;
#   §N               refers to the document named last before it in the
#                    same comment (docs/upstream-defects.md aside); a
#                    comment must name the document before its first §;
#   Dnn              an upstream provider defect: the comment names
#                    docs/upstream-defects.md before its first Dnn, and that
#                    file's table has a row "| Dnn |".
#
# Old-style citations of the team's reference set (ionic-device.md,
# ionic-kernel.md, libibverbs-44.md, real-clients.md, libibverbs-versions.md,
# with or without a /work/shared/spec/ prefix; "ionic-kernel.md 9.4" without
# §; a bare §N meaning ionic-device.md; bare Dnn) do not resolve.  --rewrite
# turns them into the new form in place and then checks the result:
#
#   ionic-device.md §11.4      -> docs/device-contract.md §11.4
#   ionic-kernel.md 9.4        -> docs/kernel-contract.md §9.4
#   libibverbs-44.md 2.15      -> docs/libibverbs-provider-abi.md §2.15
#   real-clients.md §1.6       -> docs/testing.md §1.6
#   libibverbs-versions.md 4.1 -> docs/rdma-core-versions.md §4.1
#   (§3.2) with no document    -> (docs/device-contract.md §3.2)
#   (upstream: D4)             -> (upstream: docs/upstream-defects.md D4)
#
# Only the first bare § and the first Dnn of a comment get the document
# name; later ones in the same comment refer to it by the rule above.
#
# --list prints every citation found and how it resolved.  Exit status:
# 0 all resolve, 1 some do not, 2 usage error.  Needs perl (perl-base, part
# of every Debian system) and, for the file list, git if available.

set -eu

usage() {
	sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//'
}

mode=check
root=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
	case $1 in
	--rewrite) mode=rewrite ;;
	--list) mode=list ;;
	--root)
		[ $# -ge 2 ] || {
			usage >&2
			exit 2
		}
		root=$(cd "$2" && pwd) || exit 2
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	-*)
		usage >&2
		exit 2
		;;
	*) break ;;
	esac
	shift
done

if ! command -v perl >/dev/null 2>&1; then
	echo "check-doc-refs: perl is required" >&2
	exit 2
fi

exec perl -w "$(dirname "$0")/check-doc-refs.pl" "$mode" "$root" "$@"
