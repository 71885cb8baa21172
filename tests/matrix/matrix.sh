#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# The release matrix: libionic built and tested against the libibverbs of
# every rdma-core release whose source tarball is in one of the TARBALL_DIRs.
#
#   usage: matrix.sh [--work WORK_DIR] TARBALL_DIR...
#
# For every rdma-core-<release>.tar.xz (oldest first):
#  1. its libibverbs and ibverbs-utils are built (build-libibverbs.sh,
#     cached in $IONIC_RDMA_CORE_CACHE if set, else WORK_DIR/rdma-core);
#  2. libionic, ionic-sim and the tests are built against it in one tree
#     per layout family (WORK_DIR/family-<F>, configured with
#     IONIC_IBVERBS_PREFIX = the family's first release): a build serves
#     every release of its family, so the other releases of the family run
#     the same binaries (IONIC_IBVERBS_RUN_PREFIX), as a distribution
#     upgrade within the family would;
#  3. under ionic-sim, with that release's libibverbs and programs:
#       - every release: ibv_devinfo -v lists ionic_0 with an active port,
#         and libionic prints nothing;
#       - the family's first release, the whole suite (ctest): the
#         ibv_rc_pingpong/ibv_ud_pingpong pairs (polling and events, data
#         checked with -c), the verbs suite (tests/verbs, the DV tests
#         verbs-dv* among them) and the provider tests (ABI layout, plugin
#         load, DV unit tests, the load guard's probe);
#       - the family's other releases, what tells a wrong layout from a
#         right one: the pingpong pairs, the guard's probe of that
#         library, and the verbs tests of what the layouts that changed
#         between families carry (ibv_qp_ex and verbs_qp: verbs-qp,
#         verbs-wrx; ibv_port_attr: ibv_devinfo, verbs-context; the CQ and
#         data path: verbs-cq, verbs-datapath).  The releases of a family
#         share every header and prototype the provider uses, which is
#         what makes them a family, so the rest of the suite would repeat
#         the first release's run;
#       - once per family, the load guard: this family's libionic loaded by
#         a release of another family registers nothing and says so
#         (guard-cross.sh).
# Prints one line per release (release, family, passed/FAILED), the wall
# time per phase and the summary "N passed, N failed"; exits 1 if any
# failed.  Logs are in WORK_DIR/logs/.  IONIC_MATRIX_JOBS (default 2) is
# the build parallelism, IONIC_CTEST_JOBS (default 1; .ci/run: 2) the
# tests run at a time.
set -u
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=tests/matrix/lib.sh
. "$here/lib.sh"

work=$MATRIX_ROOT/build/matrix
if [ "${1:-}" = --work ] && [ $# -ge 2 ]; then
	work=$2
	shift 2
fi
if [ $# -lt 1 ]; then
	echo "usage: $0 [--work WORK_DIR] TARBALL_DIR..." >&2
	exit 2
fi
jobs=${IONIC_MATRIX_JOBS:-2}
mkdir -p "$work/logs" || exit 1
work=$(cd "$work" && pwd)
# the tests: pingpong pairs, the verbs suite and the provider/DV tests
tests_re='^(e2e-pingpong-|verbs-|unit-provider-)'
# ... but not the guard's own cross-load test: the matrix does that itself;
# nor the configure checks on made-up libraries, which are the same on
# every release;
# nor the reruns of a suite over the UDP fabric (-udp: the same provider
# calls into libibverbs as the suite's own run, only the emulator's wire
# differs) and the minute-long soak (the same verbs as the suites, for
# resource churn over time): both belong to the emulator, which build/
# tests once, and together they would add about 20 minutes to the 12
# releases; nor, for the same reason, the reruns on the emulator's
# packet path (-packet), the wire's faults (verbs-stress-faults: the
# provider's calls are verbs-stress's) and its pacing (verbs-lossless)
skip_re='^unit-provider-guard-(cross|between)$|-udp$|-packet$|^verbs-soak|^verbs-stress-faults|^verbs-lossless'
# the family's other releases: the checks of its layouts (step 3)
quick_re='^(e2e-pingpong-(rc|ud)-(poll|events)|unit-provider-guard-probe|verbs-(context|qp|wrx|cq|datapath))$'

# every folder's tarballs, oldest release first (a release in two folders
# once)
mapfile -t tarballs < <(for d in "$@"; do matrix_tarballs "$d"; done |
	awk -F/ '!seen[$NF]++ { r = $NF; sub(/^rdma-core-/, "", r); print r "\t" $0 }' |
	sort -V | cut -f2-)
if [ ${#tarballs[@]} -eq 0 ]; then
	echo "matrix: no rdma-core-*.tar.xz in $*" >&2
	exit 2
fi

t_start=$(date +%s)
# seconds spent in each phase, for the time line at the end
t_ibverbs=0 t_builds=0 t_full=0 t_quick=0
declare -A tree fam
releases=()
families=()
passed=0 failed=0
report() { # release family verdict detail
	printf '%-8s family %-2s %-7s %s\n' "$1" "${2:--}" "$3" "$4"
	if [ "$3" = passed ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# the libibverbs trees: .ci/run keeps them across runs and build trees
cache=${IONIC_RDMA_CORE_CACHE:-$work/rdma-core}
echo "==> rdma-core libibverbs builds (cached in $cache)"
for t in "${tarballs[@]}"; do
	r=$(matrix_release "$t")
	f=$(matrix_family "$r")
	if [ -z "$f" ]; then
		report "$r" "" FAILED "not in providers/ionic/ibverbs-private/families.h"
		continue
	fi
	t0=$(date +%s)
	if ! tr=$("$here/build-libibverbs.sh" "$t" "$cache" 2>"$work/logs/$r-libibverbs.log" | tail -n 1) ||
		[ ! -e "$tr/lib/libibverbs.so.1" ]; then
		report "$r" "$f" FAILED "libibverbs build failed ($work/logs/$r-libibverbs.log)"
		continue
	fi
	echo "    rdma-core $r: $tr ($(($(date +%s) - t0)) s)"
	t_ibverbs=$((t_ibverbs + $(date +%s) - t0))
	tree[$r]=$tr
	fam[$r]=$f
	releases+=("$r")
	case " ${families[*]} " in *" $f "*) ;; *) families+=("$f") ;; esac
done

# The release of another family, same private ABI number preferred, that a
# family's build is loaded into by the guard check (the next one in order).
cross_release() {
	local f=$1 r any="" i n=${#releases[@]} start=0
	for ((i = 0; i < n; i++)); do
		[ "${fam[${releases[$i]}]}" = "$f" ] && start=$i
	done
	for ((i = 1; i <= n; i++)); do
		r=${releases[$(((start + i) % n))]}
		[ "${fam[$r]}" != "$f" ] || continue
		[ -n "$any" ] || any=$r
		if [ "$(matrix_pabi "${fam[$r]}")" = "$(matrix_pabi "$f")" ]; then
			echo "$r"
			return
		fi
	done
	echo "$any"
}

# check_release BUILD_DIR RELEASE LOG TESTS: the checks of step 3 but the
# guard; TESTS: the ctest regular expression of the tests to run
check_release() {
	local b=$1 r=$2 log=$3 sim=$1/sim/ionic-sim why="" tests=$4
	{
		echo "==> ibv_devinfo -v (rdma-core $r)"
		LD_LIBRARY_PATH=${tree[$r]}/lib timeout 60 "$sim" --fabric "matrix-$$" -- \
			"${tree[$r]}/bin/ibv_devinfo" -v >"$log.devinfo" 2>&1
		echo "exit $?"
		cat "$log.devinfo"
	} >>"$log"
	grep -q 'hca_id:[[:space:]]*ionic_0' "$log.devinfo" &&
		grep -q 'PORT_ACTIVE' "$log.devinfo" ||
		why="$why ibv_devinfo"
	grep -q 'libionic:' "$log.devinfo" && why="$why libionic-message"
	rm -f "$log.devinfo"

	echo "==> ctest -R '$tests'" >>"$log"
	rm -f "$log.junit.xml"
	if ! (cd "$b" && ctest --output-on-failure --no-tests=error -FC ionic_leftovers -j "${IONIC_CTEST_JOBS:-1}" \
		-R "$tests" -E "$skip_re" --output-junit "$log.junit.xml" </dev/null) >>"$log" 2>&1; then
		why="$why ctest:$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log" | tr '\n' ' ')"
	fi
	# its skips, held to tests/skips.allow (a failure under CI=true)
	python3 "$MATRIX_ROOT/tests/skips.py" ctest "$log.junit.xml" "matrix,rdma-core-$r" \
		>>"$log" 2>&1 || why="$why skips"
	echo "$why"
}

for f in "${families[@]}"; do
	first=""
	for r in "${releases[@]}"; do
		[ "${fam[$r]}" = "$f" ] && { first=$r; break; }
	done
	b=$work/family-$f
	blog=$work/logs/family-$f-build.log
	t0=$(date +%s)
	echo "==> family $f: building libionic against rdma-core $first in $b"
	if ! {
		cmake --preset default -S "$MATRIX_ROOT" -B "$b" \
			-DIONIC_IBVERBS_PREFIX="${tree[$first]}" \
			-DIONIC_IBVERBS_RUN_PREFIX="${tree[$first]}" &&
			targets=$(
				# what the selected tests run, not the whole tree
				cd "$b" && ctest -N -R "$tests_re" -E "$skip_re" | sed -n 's/^ *Test *#[0-9]*: //p'
			) &&
			# a test's own program, or one named after it (<test>-prog)
			mapfile -t wanted < <(ninja -C "$b" -t targets all |
				sed 's/:.*//' | sort -u | awk -v t="$targets" '
				BEGIN { n = split("ionic\nionic-sim\nionic-sim-preload\n" t, w, "\n")
					for (i = 1; i <= n; i++) if (w[i] != "") want[w[i]] = 1 }
				{ for (x in want) if ($0 == x || index($0, x "-") == 1) { print; next } }') &&
			ninja -C "$b" -j "$jobs" "${wanted[@]}"
	} >"$blog" 2>&1; then
		t_builds=$((t_builds + $(date +%s) - t0))
		for r in "${releases[@]}"; do
			[ "${fam[$r]}" = "$f" ] && report "$r" "$f" FAILED "build failed ($blog)"
		done
		continue
	fi
	echo "    built in $(($(date +%s) - t0)) s"
	t_builds=$((t_builds + $(date +%s) - t0))

	for r in "${releases[@]}"; do
		[ "${fam[$r]}" = "$f" ] || continue
		t0=$(date +%s)
		log=$work/logs/$r.log
		: >"$log"
		why=""
		if ! cmake -DIONIC_IBVERBS_RUN_PREFIX="${tree[$r]}" "$b" >>"$log" 2>&1; then
			why=" reconfigure"
		elif [ "$r" = "$first" ]; then
			kind="whole suite"
			why=$(check_release "$b" "$r" "$log" "$tests_re")
		else
			kind="layout checks"
			why=$(check_release "$b" "$r" "$log" "$quick_re")
		fi
		if [ "$r" = "$first" ]; then
			x=$(cross_release "$f")
			if [ -n "$x" ]; then
				echo "==> load guard: family-$f build loaded by rdma-core $x" >>"$log"
				"$here/guard-cross.sh" "$b/sim/ionic-sim" "$f" "${tree[$x]}" "$x" \
					>>"$log" 2>&1 || why="$why guard(rdma-core $x)"
			fi
		fi
		if [ "$r" = "$first" ]; then
			t_full=$((t_full + $(date +%s) - t0))
		else
			t_quick=$((t_quick + $(date +%s) - t0))
		fi
		if [ -z "$why" ]; then
			report "$r" "$f" passed "($kind, $(($(date +%s) - t0)) s)"
		else
			report "$r" "$f" FAILED "$why (log: $log)"
		fi
	done
done

echo "matrix: ${#releases[@]} releases, ${#families[@]} families, $(($(date +%s) - t_start)) s wall time: libibverbs builds ${t_ibverbs} s, libionic builds ${t_builds} s, checks of the releases $((t_full + t_quick)) s (whole suite once per family ${t_full} s, layout checks of the other releases ${t_quick} s)"
echo "$passed passed, $failed failed"
# the same times for .ci/run's table of phases (tests/phases.py)
if [ -n "${IONIC_PHASE_LOG:-}" ]; then
	printf '%s\t%s\t0\n' "${IONIC_PHASE_PREFIX:-}libibverbs builds" "$t_ibverbs" \
		"${IONIC_PHASE_PREFIX:-}libionic builds" "$t_builds" \
		"${IONIC_PHASE_PREFIX:-}whole suite, once per family" "$t_full" \
		"${IONIC_PHASE_PREFIX:-}layout checks, other releases" "$t_quick" \
		>>"$IONIC_PHASE_LOG"
fi
[ "$failed" -eq 0 ]
