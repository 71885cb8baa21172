#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Install the build tree into private DESTDIRs, once per component and once
# in full, and compare the result with the file set a distribution package
# ships.  Also checks link targets, the SONAME, the .driver line, the
# pkg-config file and that a program builds against the installed tree.
#
# usage: check-install-layout.sh BUILD PREFIX LIBDIR INCLUDEDIR BINDIR MANDIR
#            PROVIDERDIR DRIVERCONFDIR SIMLIBDIR ABI MANSRC DRIVERLINE HAVESIM
set -u

if [ $# -ne 13 ]; then
	echo "usage: $0 BUILD PREFIX LIBDIR INCLUDEDIR BINDIR MANDIR PROVIDERDIR DRIVERCONFDIR SIMLIBDIR ABI MANSRC DRIVERLINE HAVESIM" >&2
	exit 2
fi
build=$1 prefix=$2 libdir=$3 incdir=$4 bindir=$5 mandir=$6
provdir=$7 confdir=$8 simlibdir=$9 abi=${10} mansrc=${11}
driverline=${12} havesim=${13}

CMAKE=${CMAKE:-cmake}
CC=${CC:-cc}
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}

tmp=$(mktemp -d) || exit 1
# "cmake --install" rewrites the build tree's install manifests; keep the
# user's (they are what an uninstall reads).
mkdir -p "$tmp/manifests"
cp -p "$build"/install_manifest*.txt "$tmp/manifests/" 2>/dev/null
# shellcheck disable=SC2317 # run by the EXIT trap
restore() {
	rm -f "$build"/install_manifest*.txt
	cp -p "$tmp/manifests/"* "$build/" 2>/dev/null
	rm -rf "$tmp"
}
trap restore EXIT

# --- What a distribution ships -------------------------------------------
# On Debian with the default prefix the layout must be the multiarch one,
# unless the build asked for the RPM layout (redhat/libionic.spec on a
# Debian host).
if [ "$prefix" = /usr ] && command -v gcc >/dev/null; then
	ma=$(gcc -print-multiarch 2>/dev/null)
	if [ "$libdir" = /usr/lib64 ]; then
		echo "note: libdir /usr/lib64 (RPM layout): multiarch not checked"
	elif [ -n "$ma" ]; then
		[ "$libdir" = "/usr/lib/$ma" ] ||
			err "libdir is $libdir, expected /usr/lib/$ma"
		[ "$provdir" = "/usr/lib/$ma/libibverbs" ] ||
			err "provider dir is $provdir, expected /usr/lib/$ma/libibverbs"
	fi
	[ "$confdir" = /etc/libibverbs.d ] ||
		err "driver config dir is $confdir, expected /etc/libibverbs.d"
fi

# The file sets themselves are defined in packaging/install-sets.sh, shared
# with the .deb and .rpm checks.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=packaging/install-sets.sh
. "$here/../packaging/install-sets.sh"

# The versioned library name is only known after the install; find it.
DESTDIR="$tmp/all" "$CMAKE" --install "$build" >"$tmp/all.log" 2>&1 ||
	{ cat "$tmp/all.log"; err "cmake --install failed"; exit 1; }
real=$(cd "$tmp/all$libdir" 2>/dev/null && ls libionic.so.1.*.* 2>/dev/null)
if [ "$(printf '%s\n' "$real" | grep -c .)" -ne 1 ]; then
	err "expected exactly one libionic.so.1.<version> in $libdir, found: '$real'"
	real=libionic.so.1.MISSING
fi

ionic_install_sets_init "$libdir" "$incdir" "$bindir" "$mandir" "$provdir" \
	"$confdir" "$simlibdir" "$abi" "$real"
expect_provider=$(ionic_install_set provider)
expect_dev=$(ionic_install_set dev)
if [ "$havesim" = 1 ]; then
	expect_sim=$(ionic_install_set sim)
else
	expect_sim=""
	echo "note: ionic-sim is not part of this build; sim component not checked"
fi

listing() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\.||' | LC_ALL=C sort)
}

compare() { # name dir expected
	ionic_compare_set "component '$1' installs exactly the expected files" \
		"$(listing "$2")" "$3" || fail=1
}

compare all "$tmp/all" "$expect_provider
$expect_dev
$expect_sim"

for comp in provider dev sim; do
	eval "want=\$expect_$comp"
	[ "$comp" = sim ] && [ "$havesim" != 1 ] && continue
	DESTDIR="$tmp/$comp" "$CMAKE" --install "$build" --component "$comp" \
		>"$tmp/$comp.log" 2>&1 || { cat "$tmp/$comp.log"; err "install of $comp failed"; }
	mkdir -p "$tmp/$comp"
	compare "$comp" "$tmp/$comp" "$want"
done

# --- Links, names and contents ---------------------------------------------
r="$tmp/all"
chk_link() { # path expected-target
	if [ ! -L "$r$1" ]; then
		err "$1 is not a symbolic link"
	elif [ "$(readlink "$r$1")" != "$2" ]; then
		err "$1 -> $(readlink "$r$1"), expected -> $2"
	elif [ ! -f "$(cd "$(dirname "$r$1")" && readlink -f "$2")" ]; then
		err "$1 -> $2 does not resolve inside the install tree"
	fi
}
chk_link "$libdir/libionic.so.1" "$real"
chk_link "$libdir/libionic.so" libionic.so.1
# The provider link is relative, so a package can be unpacked anywhere.
rel=$(realpath -m --relative-to="$provdir" "$libdir/$real")
chk_link "$provdir/libionic-rdmav$abi.so" "$rel"
[ "$provdir" = "$libdir/libibverbs" ] && [ "$rel" != "../$real" ] &&
	err "provider link should be ../$real"

if [ -f "$r$libdir/$real" ]; then
	soname=$(readelf -d "$r$libdir/$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$soname" = libionic.so.1 ] || err "SONAME is '$soname', expected libionic.so.1"
fi

if [ -f "$r$confdir/ionic.driver" ]; then
	content=$(cat "$r$confdir/ionic.driver")
	[ "$content" = "$driverline" ] ||
		err "ionic.driver contains '$content', expected '$driverline'"
fi

# Debian policy: shared libraries, headers and data are 0644.
for f in "$libdir/$real" "$confdir/ionic.driver" \
	"$libdir/pkgconfig/libionic.pc" "$incdir/infiniband/ionic_dv.h"; do
	[ -f "$r$f" ] || continue
	m=$(stat -c %a "$r$f")
	[ "$m" = 644 ] || err "$f has mode $m, expected 644"
done

# Every page in the source tree is installed (and nothing is forgotten).
for src in "$mansrc"/*.[137]; do
	[ -e "$src" ] || continue
	b=$(basename "$src")
	sec=${b##*.}
	[ "$sec" = 1 ] && [ "$havesim" != 1 ] && continue
	[ -f "$r$mandir/man$sec/$b" ] || err "man page $b is not installed"
done

# pkg-config describes the installed tree; a DV program builds against it.
pc="$r$libdir/pkgconfig/libionic.pc"
if [ -f "$pc" ] && [ -f "$r$incdir/infiniband/ionic_dv.h" ]; then
	flags=$(PKG_CONFIG_PATH="$r$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$r" \
		pkg-config --cflags --libs libionic 2>&1) ||
		err "pkg-config libionic: $flags"
	case " $flags " in
	*" -lionic "*) ;;
	*) err "pkg-config --libs libionic lacks -lionic: $flags" ;;
	esac
	case " $flags " in
	*" -libverbs "*) ;;
	*) err "pkg-config --libs libionic lacks -libverbs: $flags" ;;
	esac
	cat >"$tmp/use.c" <<-'EOF'
	#include <infiniband/ionic_dv.h>
	int main(void)
	{
		struct ibv_device **l = ibv_get_device_list(NULL);

		if (l)
			ibv_free_device_list(l);
		return ionic_dv_ctx_get_udma_count(NULL) == 0 ? 0 : 1;
	}
	EOF
	# shellcheck disable=SC2086
	if ! out=$("$CC" -Wall -Werror -o "$tmp/use" "$tmp/use.c" $flags \
		-Wl,-rpath-link,"$r$libdir" 2>&1); then
		err "a DV program does not build against the installed tree:"
		printf '%s\n' "$out" | sed 's/^/    /'
	elif ! readelf -d "$tmp/use" | grep -q 'NEEDED.*\[libionic\.so\.1\]'; then
		err "a program linked with -lionic does not record libionic.so.1"
	fi
fi

if [ $fail -ne 0 ]; then
	echo "install layout: FAILED"
	exit 1
fi
echo "install layout: ok"
exit 0
