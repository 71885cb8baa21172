#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The one place that decides which libibverbs releases a provider package
# may be installed with.  debian/rules (Depends of libionic1) and
# redhat/libionic.spec (Requires of libionic) both ask it.
#
# A provider is compiled against the private, unversioned-in-practice
# structures of one rdma-core release: libibverbs checks only the private
# ABI number (IBVERBS_PRIVATE_34 for every release from 39 to 56), so a
# provider built for one release loads silently into another whose layouts
# differ.  The package manager has to refuse that, hence a strict range.
#
# usage: ibverbs-dep.sh FORMAT [RELEASE]
#   RELEASE  rdma-core release the provider was built against: "44",
#            "44.0", or libibverbs' pkg-config version "1.14.44.0";
#            default: pkg-config --modversion libibverbs
#   FORMAT   min    lowest compatible version           44.0 (45.0 for 48)
#            limit  first incompatible version          45~  (49~ for 48)
#            deb    libibverbs1 (>= 44.0), libibverbs1 (<< 45~)
#            rpm    libibverbs >= 44.0, libibverbs < 45~
set -eu

usage() {
	echo "usage: $0 min|limit|deb|rpm [RELEASE]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
format=$1
if [ $# -eq 2 ]; then
	given=$2
else
	given=$(pkg-config --modversion libibverbs) || {
		echo "$0: pkg-config does not know libibverbs (libibverbs-dev missing?)" >&2
		exit 1
	}
fi

# libibverbs' own version is 1.<ABI minor>.<rdma-core release>.<patch>.
case $given in
1.*.*.*) release=$(echo "$given" | cut -d. -f3) ;;
*) release=${given%%.*} ;;
esac
case $release in
'' | *[!0-9]*)
	echo "$0: cannot tell the rdma-core release from '$given'" >&2
	exit 1
	;;
esac

# Compatible range [min, limit): the layout family of that release, as the
# provider's one release table lists it (providers/ionic/ibverbs-private/
# families.h, "X(<release>, <family>)" lines): from the family's first
# listed release to just before the release after its last one.  Releases
# between listed ones share the family's layout (they sit between two
# measured releases of it); the run-time guard still checks what loads.
# An unlisted release between two listed ones of a family (configuration
# accepted it as that family, cmake/IbverbsPrivate.cmake) gets the family's
# range.
table=$(dirname "$0")/../providers/ionic/ibverbs-private/families.h
family=$(sed -n "s/^[[:space:]]*X(${release}, \([A-Z]\)).*/\1/p" "$table")
if [ -z "$family" ]; then
	family=$(sed -n 's/^[[:space:]]*X(\([0-9]*\), \([A-Z]\)).*/\1 \2/p' "$table" |
		sort -n | awk -v r="$release" '$1 < r { below = $2 } $1 > r && above == "" { above = $2 }
			END { if (below != "" && below == above) print below }')
fi
if [ -z "$family" ]; then
	echo "$0: rdma-core $release is not in $table, nor between two releases of one family there" >&2
	exit 1
fi
releases=$(sed -n "s/^[[:space:]]*X(\([0-9]*\), ${family}).*/\1/p" "$table" | sort -n)
min="$(echo "$releases" | head -n 1).0"
limit="$(($(echo "$releases" | tail -n 1) + 1))~"

case $format in
min) echo "$min" ;;
limit) echo "$limit" ;;
deb) echo "libibverbs1 (>= $min), libibverbs1 (<< $limit)" ;;
rpm) echo "libibverbs >= $min, libibverbs < $limit" ;;
*) usage ;;
esac
