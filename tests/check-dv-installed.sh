#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The DV library as an installed system provides it: stage the "provider"
# and "dev" components (the runtime and development packages) into a
# private DESTDIR and run the dlvsym test (tests/verbs/dv_symbols.c)
# against that tree under ionic-sim: dlopen("libionic.so") must find the
# development link, and libibverbs must load the staged provider, so that
# both are one library.
#
# usage: check-dv-installed.sh BUILD LIBDIR PROVIDERDIR ABI PROGRAM
#            IONIC_SIM [LAUNCHER OPTIONS...]
set -u
if [ $# -lt 6 ]; then
	echo "usage: $0 BUILD LIBDIR PROVIDERDIR ABI PROGRAM IONIC_SIM [OPTIONS...]" >&2
	exit 2
fi
build=$1 libdir=$2 provdir=$3 abi=$4 prog=$5
shift 5
CMAKE=${CMAKE:-cmake}

comps="provider dev"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ionic-dv-installed.XXXXXX") || exit 1
# A component install (re)writes install_manifest_<component>.txt in the
# build tree: put back what was there before, or nothing.
for comp in $comps; do
	m="$build/install_manifest_$comp.txt"
	if [ -e "$m" ]; then cp -p "$m" "$tmp/"; fi
done
put_back() {
	for comp in $comps; do
		m="install_manifest_$comp.txt"
		if [ -e "$tmp/$m" ]; then
			cp -p "$tmp/$m" "$build/$m"
		else
			rm -f "$build/$m"
		fi
	done
	rm -rf "$tmp"
}
trap put_back EXIT

for comp in $comps; do
	if ! DESTDIR="$tmp/root" "$CMAKE" --install "$build" --component "$comp" \
		>"$tmp/$comp.log" 2>&1; then
		cat "$tmp/$comp.log"
		echo "FAIL: install of $comp failed"
		exit 1
	fi
done
lib="$tmp/root$libdir"
plugin="$tmp/root$provdir/libionic-rdmav$abi.so"
if [ ! -L "$lib/libionic.so" ] || [ ! -e "$plugin" ]; then
	echo "FAIL: the staged tree lacks $libdir/libionic.so or the provider"
	exit 1
fi
echo "ok: staged provider and dev components in $tmp/root"

LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	"$@" --provider "$plugin" -- "$prog"
