#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# debian/libionic1.symbols lists exactly what the built libionic.so.1
# exports: every ionic_dv_* function at each of its version nodes and the
# nodes themselves, no more and no less, so that a symbol added to
# providers/ionic/libionic.map without its symbols line fails here, in
# every build, not only in a package build (where debian/rules makes
# dpkg-gensymbols fail on any difference too).
#
# usage: check-symbols-file.sh SYMBOLS LIBRARY
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 SYMBOLS LIBRARY" >&2
	exit 2
fi
symbols=$1 lib=$2
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}

# The header: "libionic.so.1 libionic1 #MINVER#", then the -dev package
# whose Build-Depends make dpkg-shlibdeps' dependency minimal.
first=$(sed -n 1p "$symbols")
[ "$first" = "libionic.so.1 libionic1 #MINVER#" ] ||
	err "$(basename "$symbols") line 1 is '$first', not 'libionic.so.1 libionic1 #MINVER#'"
grep -qx '\* Build-Depends-Package: libionic-dev' "$symbols" ||
	err "$(basename "$symbols") lacks '* Build-Depends-Package: libionic-dev'"

# " name@NODE minimum-version" lines; nm -D prints "name@NODE" for a
# non-default and "name@@NODE" for the default version, dpkg one "@"; a
# version node itself is "NODE" to nm and "NODE@NODE" to dpkg.
listed=$(sed -n 's/^ \([^ ]*\) [0-9][^ ]*$/\1/p' "$symbols" | LC_ALL=C sort)
malformed=$(grep -v -e '^libionic\.so\.1 ' -e '^\* ' -e '^ [^ ]*@[^ ]* [0-9][^ ]*$' "$symbols")
[ -z "$malformed" ] || err "lines that are no 'name@NODE version': $malformed"
exported=$(nm -D --defined-only "$lib" | awk '{ print $NF }' |
	sed 's/@@/@/; /@/!s/.*/&@&/' |
	LC_ALL=C sort)
if [ -z "$exported" ]; then
	err "nm -D shows no exports in $lib"
elif [ "$listed" != "$exported" ]; then
	err "$(basename "$symbols") and the exports of $(basename "$lib") differ (- file, + library):"
	diff -u <(printf '%s\n' "$listed") <(printf '%s\n' "$exported") |
		sed -n '3,$p' | sed 's/^/    /'
else
	echo "ok: $(basename "$symbols") lists the $(grep -c . <<<"$exported") exports of $(basename "$lib") (functions at each node, and the nodes)"
fi

[ $fail -eq 0 ] && echo "symbols file: ok" && exit 0
exit 1
