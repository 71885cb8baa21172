#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The provider's layers (docs/architecture.md §2.5), checked on the objects
# that ship: every call from one provider object to another goes to its own
# layer or a lower one, and the publish module (publish.c, publish.h) is
# the only code that writes doorbells and the only home of the memory
# barriers, including nothing but the rings below it.
#
#   5 context   registration, GET_CONTEXT, imports
#   4 control   PDs, MRs, AHs, CQs, QPs, queries, DV, async events
#   3 data      post, wr, wqe, poll
#   2 publish   doorbells, CMB copies, credits, arming
#   1 base      rings, QP table, PHC, the load guard
#
# Inline functions leave no call in an object; the include rule covers the
# publish module's.  A new provider file must be given a layer here.
#
# usage: check-provider-layers.sh SRCDIR ARCHIVE
#   SRCDIR   the repository; ARCHIVE  the provider's objects
#            (libionic_provider.a, providers/ionic/CMakeLists.txt)
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 SRCDIR ARCHIVE" >&2
	exit 2
fi
src=$1/providers/ionic
archive=$2
command -v nm >/dev/null || {
	echo "nm (binutils) is required" >&2
	exit 2
}

declare -A layer=(
	[context]=5 [import]=5
	[pd]=4 [mr]=4 [ah]=4 [dv]=4 [dv_create]=4 [dv_gda]=4 [query]=4
	[cq]=4 [cq_ex]=4 [qp]=4 [async]=4
	[post]=3 [wr]=3 [wqe]=3 [poll]=3 [poll_error]=3
	[publish]=2
	[queue]=1 [table]=1 [phc]=1 [identify]=1 [load_guard]=1
)
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

# symbol -> defining object; object -> its undefined symbols
declare -A def
declare -A undef
obj=
while read -r a b c; do
	case $a in
	*.o:)
		obj=${a%.c.o:}
		obj=${obj%:}
		[ -n "${layer[$obj]:-}" ] ||
			bad "$obj: no layer (add it to check-provider-layers.sh)"
		continue
		;;
	esac
	if [ "$a" = U ]; then
		undef[$obj]+=" $b"
	elif [ -n "$c" ] && [[ $b == [TDBR] ]]; then
		def[$c]=$obj
	fi
done < <(nm "$archive" 2>/dev/null)
[ ${#def[@]} -gt 0 ] || {
	echo "FAIL: no symbols in $archive"
	exit 1
}

calls=0
for o in "${!undef[@]}"; do
	for s in ${undef[$o]}; do
		callee=${def[$s]:-}
		if [ -z "$callee" ] || [ "$callee" = "$o" ]; then
			continue
		fi
		calls=$((calls + 1))
		if [ "${layer[$callee]:-9}" -gt "${layer[$o]:-0}" ]; then
			bad "$o (layer ${layer[$o]:-?}) calls $s of $callee" \
				"(layer ${layer[$callee]:-?}), a higher layer"
		fi
	done
done

# The publish module includes only the rings and the device formats.
for f in publish.h publish.c queue.h; do
	while read -r inc; do
		case "$f:$inc" in
		publish.h:queue.h | publish.h:../../common/ionic_hw.h) ;;
		publish.c:publish.h) ;;
		*) bad "$f includes \"$inc\", above the publish module" ;;
		esac
	done < <(sed -n 's/^#include "\(.*\)"/\1/p' "$src/$f")
done

# Doorbell stores and barriers live in the publish module.  lock.h's
# pause and phc.c's seqlock fence (a reader of the clock page) are not
# publishing.
while IFS=: read -r f line text; do
	bad "$f:$line: $text (only publish.c and publish.h publish)"
done < <(cd "$src" && grep -n -E 'ionic_dbell_write\(|asm volatile|__sync_synchronize|atomic_thread_fence|__atomic_thread_fence' \
	-- *.c *.h | grep -v -E '^(publish\.[ch]|lock\.h):' |
	grep -v -E '^phc\.c:[0-9]+:[[:space:]]*atomic_thread_fence\(memory_order_acquire\)')

echo "$calls calls between provider objects checked"
if [ $fail -ne 0 ]; then
	exit 1
fi
echo "ok: every call goes to its own layer or below; publishing is publish.[ch]"
