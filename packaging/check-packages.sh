#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Built .deb or .rpm packages ship exactly the install components'
# file sets (packaging/install-sets.sh, the sets the install-layout test
# checks for cmake --install), plus only documentation and licence files,
# and carry the strict libibverbs dependency of packaging/ibverbs-dep.sh.
#
# usage: check-packages.sh deb|rpm DIR ABI RELEASE
#   DIR      where the packages are (debug-symbol packages are ignored)
#   ABI      private provider ABI they were built for (34)
#   RELEASE  rdma-core release they were built against (44)
set -u
if [ $# -ne 4 ]; then
	echo "usage: $0 deb|rpm DIR ABI RELEASE" >&2
	exit 2
fi
format=$1 dir=$2 abi=$3 release=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=packaging/install-sets.sh
. "$here/install-sets.sh"
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}

# one PATTERN: the single package file in DIR that matches.
one() {
	local f found=()
	for f in "$dir"/$1; do
		[ -f "$f" ] || continue
		case $f in *-dbgsym_* | *-debuginfo-* | *-debugsource-*) continue ;; esac
		found+=("$f")
	done
	if [ ${#found[@]} -ne 1 ]; then
		echo "FAIL: expected one package $1 in $dir, found ${#found[@]}: ${found[*]}" >&2
		return 1
	fi
	echo "${found[0]}"
}

# Files and links of a package, one absolute path a line, directories
# left out, compressed manual pages named as installed.
# shellcheck disable=SC2317 # called as "${format}_files"
deb_files() {
	dpkg-deb --fsys-tarfile "$1" | tar -tf - | grep -v '/$' | sed 's|^\./|/|'
}
# shellcheck disable=SC2317 # called as "${format}_files"
rpm_files() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null |
		awk '$1 !~ /^d/ { print $2 }'
}

# compare PACKAGE-FILE COMPONENT DOCPATTERN
compare() {
	local got
	got=$("${format}_files" "$1" | grep -v -E "$3" |
		sed -E 's#(/share/man/man[0-9]/[^/]*)\.(gz|bz2|xz|zst)$#\1#')
	ionic_compare_set "$(basename "$1") ships exactly the '$2' install set" \
		"$got" "$(ionic_install_set "$2")" || fail=1
}

case $format in
deb)
	prov=$(one 'libionic1_*.deb') || exit 1
	dev=$(one 'libionic-dev_*.deb') || exit 1
	sim=$(one 'ionic-sim_*.deb') || exit 1
	version=$(dpkg-deb -f "$prov" Version)
	arch=$(dpkg-deb -f "$prov" Architecture)
	ma=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
	libdir=/usr/lib/$ma
	# changelogs and copyright in /usr/share/doc/<package>, lintian overrides
	docs='^/usr/share/(doc|lintian/overrides)/(libionic1|libionic-dev|ionic-sim)(/|$)'
	;;
rpm)
	prov=$(one 'libionic-[0-9]*.rpm') || exit 1
	dev=$(one 'libionic-devel-[0-9]*.rpm') || exit 1
	sim=$(one 'ionic-sim-[0-9]*.rpm') || exit 1
	version=$(rpm -qp --qf '%{VERSION}' "$prov" 2>/dev/null)
	libdir=$(rpm -qlp "$prov" 2>/dev/null | sed -n 's|/libionic\.so\.1$||p')
	# %doc and %license (named <package> or <package>-<version>), and
	# rpm's own /usr/lib/.build-id links
	docs='^(/usr/share/(doc|licenses)/(libionic|libionic-devel|ionic-sim)(-[0-9][^/]*)?/|/usr/lib/\.build-id/)'
	;;
*)
	echo "$0: unknown package format '$format'" >&2
	exit 2
	;;
esac
upstream=${version%%-*}
echo "note: $format packages of $upstream, libdir $libdir"

ionic_install_sets_init "$libdir" /usr/include /usr/bin /usr/share/man \
	"$libdir/libibverbs" /etc/libibverbs.d "$libdir/ionic-sim" "$abi" \
	"libionic.so.1.$upstream"
compare "$prov" provider "$docs"
compare "$dev" dev "$docs"
compare "$sim" sim "$docs"

# The dependency that keeps the provider out of any other rdma-core.
min=$("$here/ibverbs-dep.sh" min "$release")
limit=$("$here/ibverbs-dep.sh" limit "$release")
if [ "$format" = deb ]; then
	deps=$(dpkg-deb -f "$prov" Depends)
	for want in "libibverbs1 (>= $min)" "libibverbs1 (<< $limit)"; do
		case ", $deps, " in
		*", $want, "*) echo "ok: Depends has $want" ;;
		*) err "libionic1 Depends lacks '$want': $deps" ;;
		esac
	done
	case $(dpkg-deb -f "$prov" Conflicts) in
	*"ibverbs-providers (>= 61~)"*) echo "ok: Conflicts with ibverbs-providers (>= 61~)" ;;
	*) err "libionic1 does not conflict with ibverbs-providers (>= 61~)" ;;
	esac
	dpkg-deb -I "$prov" conffiles 2>/dev/null | grep -qx /etc/libibverbs.d/ionic.driver ||
		err "/etc/libibverbs.d/ionic.driver is not a conffile of libionic1"
else
	reqs=$(rpm -qp --requires "$prov" 2>/dev/null)
	for want in "libibverbs(x86-64) >= $min" "libibverbs(x86-64) < $limit" \
		"libibverbs.so.1(IBVERBS_PRIVATE_$abi)(64bit)"; do
		if printf '%s\n' "$reqs" | grep -qxF "$want"; then
			echo "ok: Requires $want"
		else
			err "libionic Requires lacks '$want'"
			printf '%s\n' "$reqs" | sed 's/^/    /'
		fi
	done
	rpm -qp --conflicts "$prov" 2>/dev/null | grep -qxF "libibverbs >= 61~" ||
		err "libionic does not conflict with libibverbs >= 61~"
	rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$prov" 2>/dev/null |
		grep -q '^c.* /etc/libibverbs.d/ionic.driver$' ||
		err "/etc/libibverbs.d/ionic.driver is not %config in libionic"
fi

[ $fail -eq 0 ] && echo "$format packages: ok" && exit 0
exit 1
