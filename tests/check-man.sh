#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Every man page must render with groff (all warnings on) without printing
# anything, and every function page must carry the sections the project's
# pages promise.  A page that only sources another (".so man3/other.3",
# for functions documented together) must name an existing page whose
# NAME section lists it.
#
# usage: check-man.sh MANDIR
set -u
mandir=${1:?usage: $0 MANDIR}
fail=0
n=0
for page in "$mandir"/*.[1-9]; do
	[ -e "$page" ] || continue
	n=$((n + 1))
	name=$(basename "$page")
	body=$(grep -v '^\.\\"' "$page")
	if printf '%s\n' "$body" | grep -q '^\.so '; then
		target=$(printf '%s\n' "$body" | sed -n 's|^\.so  *man[1-9]/||p')
		if [ "$(printf '%s\n' "$body" | grep -c .)" -ne 1 ] ||
			[ ! -f "$mandir/$target" ]; then
			echo "FAIL: $name: a .so page must source one existing page"
			fail=1
		elif ! sed -n '/^\.SH NAME/,/^\.SH/p' "$mandir/$target" |
			grep -q "${name%.*}"; then
			echo "FAIL: $name: $target does not list ${name%.*} in NAME"
			fail=1
		else
			echo "ok: $name (-> $target)"
		fi
		continue
	fi
	out=$(LC_ALL=C.UTF-8 groff -man -ww -z -t "$page" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		echo "FAIL: $name: groff exit $rc"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=1
		continue
	fi
	want="NAME:SYNOPSIS:DESCRIPTION"
	case $name in
	*.3) want="$want:RETURN VALUE:ERRORS:NOTES:SEE ALSO" ;;
	*.7) want="$want:SEE ALSO" ;;
	esac
	bad=0
	IFS=: read -r -a secs <<<"$want"
	for sec in "${secs[@]}"; do
		if ! grep -Eq "^\.SH \"?$sec\"?\$" "$page"; then
			echo "FAIL: $name: no $sec section"
			bad=1
		fi
	done
	# The .TH title must name the page itself.
	th=$(sed -n 's/^\.TH  *"\{0,1\}\([^" ]*\)"\{0,1\}  *"\{0,1\}\([0-9]\).*/\1.\2/p' "$page" | head -1)
	if [ "$th" != "$name" ] && [ "$(echo "$th" | tr '[:upper:]' '[:lower:]')" != "$name" ]; then
		echo "FAIL: $name: .TH names '$th'"
		bad=1
	fi
	if [ $bad -ne 0 ]; then
		fail=1
	else
		echo "ok: $name"
	fi
done
if [ $n -eq 0 ]; then
	echo "FAIL: no man pages in $mandir"
	exit 1
fi
[ $fail -eq 0 ] && echo "man pages: $n ok" && exit 0
echo "man pages: FAILED"
exit 1
