#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The whole test suite on another Debian release, with that release's own
# compiler, cmake, libibverbs, python3-pyverbs test suite and tools:
#
#  1. a cached debootstrap chroot of SUITE (packaging/debian-chroot.sh
#     ensure: reused when present, created from the Debian archive once);
#  2. the release's build dependencies, installed into it by this tree's
#     own "build.sh deps" run inside (debian-chroot.sh setup, the one step
#     with network; nothing to do when they are there already);
#  3. "./build.sh test" on the release tarball (packaging/mkdist.sh) in a
#     throw-away overlay of the chroot (debian-chroot.sh run): as root,
#     with private /proc, /dev/shm and /tmp and in a network namespace of
#     its own with only loopback up, so its emulator fabric cannot meet
#     this machine's and its leftovers check sees only its own processes.
#
# Prints the counts of both builds (tests passed, failed, skipped), the
# pyverbs suite's counts and skip reasons, and the times of each step.
# The full output stays in WORKDIR/test.log, the ctest logs of the two
# builds in WORKDIR/LastTest-{normal,san}.log; the overlay (the build
# trees) is removed.
#
# usage: chroot-test.sh SUITE WORKDIR
# Exit status 0 when both builds pass, 1 otherwise, 77 (skipped) when the
# chroot cannot be had here (not root, no debootstrap, no Debian mirror).
# Environment: IONIC_DISTRO_KEEP=1 keeps the overlay for a look.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 SUITE WORKDIR" >&2
	exit 2
fi
suite=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(dirname "$(dirname "$here")")
chroot_sh=$src/packaging/debian-chroot.sh
say() { printf '\n==> %s: %s\n' "$suite" "$*"; }

t0=$SECONDS
say "the chroot ($chroot_sh ensure $suite)"
"$chroot_sh" ensure "$suite" >/dev/null
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: no $suite chroot (exit $rc)"; exit 1; }
t_chroot=$((SECONDS - t0))

rm -rf --one-file-system "$work"
mkdir -p "$work/io" || exit 1
work=$(cd "$work" && pwd)
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	if [ "${IONIC_DISTRO_KEEP:-0}" = 1 ]; then
		echo "note: kept $work/overlay"
	else
		rm -rf --one-file-system "$work/overlay" "$work/io"
	fi
}
trap cleanup EXIT
tarball=$("$src/packaging/mkdist.sh" "$work/io") || exit 1
tar -C "$work/io" -xzf "$tarball" || exit 1
tree=$(basename "$tarball" .tar.gz)
cp "$here/chroot-inner.sh" "$work/io/"

t1=$SECONDS
say "its build dependencies (build.sh deps inside the chroot)"
"$chroot_sh" setup "$suite" --bind "$work/io:/io" -- "/io/$tree/build.sh" deps ||
	{ echo "FAIL: build.sh deps failed in the $suite chroot"; exit 1; }
t_deps=$((SECONDS - t1))

t2=$SECONDS
say "./build.sh test inside, without network"
# CI=true holds the skips inside to tests/skips.allow as outside; they
# come out in io/skips.tsv, for .ci/run's table ($IONIC_SKIP_LOG)
"$chroot_sh" run "$suite" "$work/overlay" --bind "$work/io:/io" -- \
	/usr/bin/env CI="${CI:-}" IONIC_CTEST_JOBS="${IONIC_CTEST_JOBS:-1}" /io/chroot-inner.sh /io "$(basename "$tarball")" 2>&1 |
	tee "$work/test.log"
rc=${PIPESTATUS[0]}
if [ -n "${IONIC_SKIP_LOG:-}" ] && [ -f "$work/io/skips.tsv" ]; then
	cat "$work/io/skips.tsv" >>"$IONIC_SKIP_LOG"
fi
t_run=$((SECONDS - t2))
for b in normal san; do
	[ -f "$work/io/LastTest-$b.log" ] && mv "$work/io/LastTest-$b.log" "$work/"
done

# The ctest result lines of each build ("  12/250 Test  #12: name ...
# Passed  0.1 sec"), after build.sh's "==> Running the tests in DIR".
counts() { # BUILD-DIR-SUFFIX (build or build-san)
	awk -v want="$1" '
		/^==> Running the tests in / { n = split($6, p, "/"); on = (p[n] == want); next }
		/^==> / { on = 0 }
		on && /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
			total++
			if ($0 ~ / Passed /) pass++
			else if ($0 ~ /\*\*\*Skipped /) skip++
			else { fail++; sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, ""); sub(/ .*/, ""); names = names " " $0 }
		}
		END {
			if (!total) { print "no test ran"; exit }
			printf "%d passed, %d failed, %d skipped (of %d)%s\n", pass, fail, skip, total,
				fail ? ";" names : ""
		}' "$work/test.log"
}

echo
echo "=== $suite: ./build.sh test in the $suite chroot: exit $rc"
echo "normal build:    $(counts build)"
echo "sanitizer build: $(counts build-san)"
if [ -f "$work/LastTest-normal.log" ]; then
	# pyverbs.sh's own summary lines, from the e2e-pyverbs output
	awk '/^[0-9]+\/[0-9]+ Testing: e2e-pyverbs$/ { on = 1 } on && /^<end of output>/ { exit }
	     on && /^pyverbs[ :]/ { print } on && /^Test time = / { print "pyverbs suite time: " $4 " s" }' \
		"$work/LastTest-normal.log"
fi
echo "times: chroot ready ${t_chroot}s ($(du -sh --one-file-system "$("$chroot_sh" path "$suite")" | cut -f1)), build.sh deps ${t_deps}s, ./build.sh test inside ${t_run}s, total $((SECONDS - t0))s"
echo "full output: $work/test.log"
# the same times for .ci/run's table of phases (tests/phases.py), with
# those of build.sh test inside
if [ -n "${IONIC_PHASE_LOG:-}" ]; then
	p=${IONIC_PHASE_PREFIX:-}
	printf '%s\t%s\t0\n' "${p}chroot ready" "$t_chroot" "${p}build.sh deps" "$t_deps" \
		>>"$IONIC_PHASE_LOG"
	[ ! -f "$work/io/phases.tsv" ] ||
		sed "s|^|${p}inside/|" "$work/io/phases.tsv" >>"$IONIC_PHASE_LOG"
	printf '%s\t%s\t%s\n' "${p}build.sh test inside" "$t_run" "$rc" >>"$IONIC_PHASE_LOG"
fi
[ "$rc" -eq 0 ] && exit 0
exit 1
