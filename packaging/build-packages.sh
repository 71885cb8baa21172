#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Build the packages for this machine's distribution release, against its
# own libibverbs, from the release tarball (packaging/mkdist.sh), into
# OUTDIR: the .debs with dpkg-buildpackage, and the .rpms with rpmbuild
# where it is installed (on a Debian host those only check the spec: they
# are linked against Debian's libraries).  Each set is checked against the
# install sets (packaging/check-packages.sh) and with lintian / rpmlint
# when installed; a warning from either fails the build.
#
# usage: build-packages.sh [--deb] [--rpm] OUTDIR
#   --deb / --rpm  only that format (default: .debs where dpkg-buildpackage
#                  exists, .rpms where rpmbuild exists)
# Environment: DEB_BUILD_OPTIONS (default parallel=2), as for dpkg.
# Exit status 77 when a requested format cannot be built here.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
want_deb=0 want_rpm=0
while [ $# -gt 1 ]; do
	case $1 in
	--deb) want_deb=1 ;;
	--rpm) want_rpm=1 ;;
	*) break ;;
	esac
	shift
done
if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then
	echo "usage: $0 [--deb] [--rpm] OUTDIR" >&2
	exit 2
fi
out=$1
if [ $want_deb = 0 ] && [ $want_rpm = 0 ]; then
	command -v dpkg-buildpackage >/dev/null && want_deb=1
	command -v rpmbuild >/dev/null && want_rpm=1
	[ $want_deb = 1 ] || [ $want_rpm = 1 ] || {
		echo "build-packages: neither dpkg-buildpackage nor rpmbuild is installed" >&2
		exit 77
	}
fi
if [ $want_deb = 1 ] && ! command -v dpkg-buildpackage >/dev/null; then
	echo "build-packages: SKIP: dpkg-buildpackage is not installed (dpkg-dev)" >&2
	exit 77
fi
if [ $want_rpm = 1 ] && ! command -v rpmbuild >/dev/null; then
	echo "build-packages: SKIP: rpmbuild is not installed (rpm)" >&2
	exit 77
fi

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d "$out/.work.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
tarball=$("$here/mkdist.sh" "$work") || exit 1
name=$(basename "$tarball" .tar.gz)
fail=0

# What the packages are built against: this machine's libibverbs.
release=$(pkg-config --modversion libibverbs) || {
	echo "build-packages: pkg-config does not know libibverbs (./build.sh deps)" >&2
	exit 1
}
ibverbs=$(pkg-config --variable=libdir libibverbs)/libibverbs.so.1
abi=$(readelf --dyn-syms --wide "$ibverbs" | grep -o 'verbs_register_driver_[0-9]*' |
	head -1 | sed 's/.*_//')
echo "build-packages: $name against libibverbs $release (private ABI $abi) into $out"

if [ $want_deb = 1 ]; then
	echo "==> .deb (dpkg-buildpackage -us -uc -b)"
	mkdir "$work/deb" && tar -C "$work/deb" -xzf "$tarball"
	if ! (cd "$work/deb/$name" && dpkg-checkbuilddeps); then
		echo "build-packages: build dependencies missing (./build.sh deps)" >&2
		exit 1
	fi
	t0=$SECONDS
	if (cd "$work/deb/$name" && DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2} \
		dpkg-buildpackage -us -uc -b >"$work/deb/build.log" 2>&1); then
		echo "built in $((SECONDS - t0)) s"
		# the unit tests of debian/rules (none with DEB_BUILD_OPTIONS=nocheck)
		grep -E '^[0-9]+% tests passed' "$work/deb/build.log" ||
			echo "note: the build ran no tests"
		cp "$work"/deb/*.deb "$work"/deb/*.changes "$work"/deb/*.buildinfo "$out/"
		"$here/check-packages.sh" deb "$work/deb" "$abi" "$release" || fail=1
		if command -v lintian >/dev/null; then
			"$here/lintian-check.sh" "$work/lintian-tmp" "$work"/deb/*.changes || fail=1
		else
			echo "note: lintian is not installed; not run"
		fi
	else
		tail -40 "$work/deb/build.log"
		echo "FAIL: dpkg-buildpackage (log above)"
		fail=1
	fi
fi

if [ $want_rpm = 1 ]; then
	echo "==> .rpm (rpmbuild -bb redhat/libionic.spec)"
	top=$work/rpm
	mkdir -p "$top/SOURCES" && cp "$tarball" "$top/SOURCES/"
	tar -C "$work" -xzf "$tarball" "$name/redhat"
	opts=()
	# On a host whose rpm database does not hold the build requirements
	# (Debian), they cannot be checked; the build finds them itself.
	rpm -q --whatprovides 'pkgconfig(libibverbs)' >/dev/null 2>&1 || opts+=(--nodeps)
	t0=$SECONDS
	if rpmbuild -bb "${opts[@]}" --define "_topdir $top" \
		"$work/$name/redhat/libionic.spec" >"$top/build.log" 2>&1; then
		echo "built in $((SECONDS - t0)) s"
		cp "$top"/RPMS/*/*.rpm "$out/"
		"$here/check-packages.sh" rpm "$top/RPMS/x86_64" "$abi" "$release" || fail=1
		if command -v rpmlint >/dev/null; then
			# The filters serve Debian 12's rpmlint (2.4) and Debian 13's
			# (2.7), and each reports findings the other does not (2.7
			# spell-checks descriptions; only 2.4 reports no manual page
			# for ionic-sim): a filter only the other one needs is no error.
			if rpmlint --ignore-unused-rpmlintrc -r "$work/$name/redhat/libionic.rpmlintrc" "$top"/RPMS/*/*.rpm \
				"$work/$name/redhat/libionic.spec" >"$top/rpmlint.log" 2>&1 &&
				grep -q ' 0 errors, 0 warnings' "$top/rpmlint.log"; then
				echo "ok: rpmlint: $(grep -o '[0-9]* packages and.*warnings' "$top/rpmlint.log")"
			else
				sed -n '/^$/,$p' "$top/rpmlint.log"
				echo "FAIL: rpmlint reports errors or warnings"
				fail=1
			fi
		else
			echo "note: rpmlint is not installed; not run"
		fi
	else
		tail -40 "$top/build.log"
		echo "FAIL: rpmbuild (log above)"
		fail=1
	fi
fi

echo
for f in "$out"/*.deb "$out"/*.rpm; do
	[ -e "$f" ] && echo "$f"
done
[ $fail -eq 0 ] && echo "build-packages: ok" && exit 0
echo "build-packages: FAILED"
exit 1
