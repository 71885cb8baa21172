#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# One release number everywhere (CHANGELOG.md, "Version numbers"): the
# CMake project version must be the one of the built library's file name,
# libionic.pc, debian/changelog, the spec (Version and newest %changelog
# entry), CHANGELOG.md's newest release, the manual pages' footers and no
# lower than any version in the Debian symbols file; the release dates of
# debian/changelog, the spec and CHANGELOG.md must agree.
#
# usage: check-version.sh SRCDIR VERSION LIBRARY PCFILE
set -u
if [ $# -ne 4 ]; then
	echo "usage: $0 SRCDIR VERSION LIBRARY PCFILE" >&2
	exit 2
fi
src=$1 version=$2 lib=$3 pc=$4
fail=0
err() {
	echo "FAIL: $*"
	fail=1
}
ok() { echo "ok: $*"; }

# same WHAT GOT: GOT must be the project version.
same() {
	if [ "$2" = "$version" ]; then
		ok "$1: $2"
	else
		err "$1 says '$2', the CMake project version is $version"
	fi
}

[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	err "project version '$version' is not MAJOR.MINOR.PATCH"

# The library: libionic.so.1.<version>, SONAME libionic.so.1.
same "library file name" "$(basename "$lib" | sed -n 's/^libionic\.so\.1\.//p')"
soname=$(readelf -d "$lib" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libionic.so.1 ] || err "SONAME of $lib is '$soname'"

same libionic.pc "$(sed -n 's/^Version: *//p' "$pc")"

# debian/changelog: "libionic (0.1.0-1) unstable; urgency=medium", then
# " -- Name <mail>  Tue, 01 Dec 2026 09:00:00 +0000".
dch=$src/debian/changelog
deb_full=$(sed -n '1s/^libionic (\([^)]*\)).*/\1/p' "$dch")
same debian/changelog "${deb_full%-*}"
deb_date=$(sed -n '0,/^ -- /s/^ -- .*>  //p' "$dch")
deb_day=$(date -u -d "$deb_date" +%F 2>/dev/null) ||
	err "debian/changelog: unreadable date '$deb_date'"

# The spec: Version, Release and the newest %changelog entry
# "* Tue Dec 01 2026 Name <mail> - 0.1.0-1".
spec=$src/redhat/libionic.spec
same "redhat/libionic.spec Version" "$(sed -n 's/^Version:[[:space:]]*//p' "$spec")"
rel=$(sed -n 's/^Release:[[:space:]]*\([0-9][0-9.]*\).*/\1/p' "$spec")
entry=$(sed -n '/^%changelog/,${/^\* /{p;q}}' "$spec")
[ "${entry##* - }" = "$version-$rel" ] ||
	err "newest spec %changelog entry is for '${entry##* - }', expected $version-$rel"
spec_day=$(echo "$entry" | awk '{ print $2, $3, $4, $5 }')
spec_day=$(date -u -d "$spec_day" +%F 2>/dev/null) ||
	err "spec %changelog: unreadable date in '$entry'"

# CHANGELOG.md: the first "## <version> — <date>" heading.
head=$(grep -m1 -E '^## [0-9]+\.[0-9]+\.[0-9]+' "$src/CHANGELOG.md")
same CHANGELOG.md "$(echo "$head" | awk '{ print $2 }')"
md_day=$(echo "$head" | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}')

if [ -n "${deb_day:-}" ] && [ "$deb_day" = "${spec_day:-}" ] &&
	[ "$deb_day" = "$md_day" ]; then
	ok "release date $deb_day in debian/changelog, the spec and CHANGELOG.md"
else
	err "release dates differ: debian/changelog ${deb_day:-?}, spec ${spec_day:-?}, CHANGELOG.md ${md_day:-?}"
fi

# Manual pages: .TH NAME SECTION DATE "libionic <version>" ...
for page in "$src"/man/*.[1-9]; do
	# an alias page (".so man3/other.3") carries no header of its own
	if grep -q '^\.so ' "$page"; then
		continue
	fi
	got=$(sed -n 's/^\.TH .*"libionic \([^"]*\)".*/\1/p' "$page")
	[ "$got" = "$version" ] ||
		err "$(basename "$page"): .TH footer says 'libionic $got'"
done

# A symbol cannot have appeared in a release later than this one.
command -v dpkg >/dev/null || echo "note: no dpkg; symbols file versions not compared"
command -v dpkg >/dev/null && while read -r sym ver; do
	case $sym in '' | libionic.so.* | '*'*) continue ;; esac
	dpkg --compare-versions "$ver" le "$version" ||
		err "debian/libionic1.symbols: $sym is tagged $ver, after $version"
done <"$src/debian/libionic1.symbols"

[ $fail -eq 0 ] && echo "version $version: consistent" && exit 0
exit 1
