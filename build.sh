#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# libionic build driver for Debian 12 and Debian 13.
#
#   ./build.sh deps    install the Debian packages the build, the tests and
#                      the demo need (only those missing)
#   ./build.sh build   configure build/ (CMake preset "default": Ninja,
#                      warnings are errors) and build
#   ./build.sh test    deps + build + ctest in build/, then the same with
#                      AddressSanitizer + UBSan in build-san/ (preset "san"),
#                      each fuzz target for 20 s, and the tsan suite
#   ./build.sh demo    deps + build + ibv_devinfo and an ibv_rc_pingpong
#                      exchange on the emulated device (ionic-sim)
#   ./build.sh bench [--quick]  deps + build + the benchmark report:
#                      instructions per verb (callgrind), control-path
#                      cost, memory per object, perftest wall clock under
#                      ionic-sim; a table, and JSON in build/bench/
#                      (bench/report.py)
#   ./build.sh tsan    deps + ThreadSanitizer build in build-tsan/ (preset
#                      "tsan") + the tests with threads under it
#   ./build.sh fuzz [SECONDS]
#                      deps + libFuzzer build in build-fuzz/ (clang) + each
#                      fuzz target for SECONDS (default 30) from its corpus
#   ./build.sh soak [MINUTES]  deps + build + the verbs soak for MINUTES
#                      (default 10): mixed traffic, resets, create/destroy
#                      churn, exact accounting, flat fd/mapping/memory
#                      counts (tests/verbs/soak_main.c; CI runs 1 minute)
#   ./build.sh matrix DIR...  deps + libionic built and tested against
#                      every rdma-core-<release>.tar.xz in the DIRs
#                      (tests/matrix/); a DIR that does not exist is
#                      skipped with a message (exit 77 when all are)
#   ./build.sh distro SUITE  deps + "./build.sh test" in a cached chroot
#                      of Debian SUITE (trixie), on its own packages, with
#                      no network (tests/distro/chroot-test.sh)
#   ./build.sh dist    the release tarball libionic-<version>.tar.gz in dist/
#   ./build.sh packages [--deb|--rpm]  the package build's tools
#                      (PACKAGE_DEPS) + .debs (and .rpms where rpmbuild
#                      exists; --deb or --rpm: that format only) for this
#                      machine's release in packages/<distro>-<version>/
#   ./build.sh compilers [COMPILER...]  the compiler matrix: the compilers
#                      this release offers of gcc-11, gcc-12, gcc-14,
#                      clang-14, clang-15, clang-16 (installed if missing)
#                      each compile the provider, the emulator and the
#                      tests warning-free in build/compilers/
#                      (tests/check-compilers.sh); absent ones are skipped
#   ./build.sh clean   remove build/, build-san/, build-tsan/, build-fuzz/
#
# Environment: IONIC_CTEST_JOBS (parallel ctest jobs, default 1; .ci/run: 2;
# the ThreadSanitizer suite runs serially unless IONIC_TSAN_CTEST_JOBS),
# IONIC_DEMO_PORT (TCP port of the pingpong demo, default: a free one),
# IONIC_TEST_FUZZ_SECONDS (per fuzz target in "test", default 20, 0: none),
# IONIC_FUZZ_JOBS (fuzz targets run at a time, default IONIC_CTEST_JOBS),
# IONIC_CTEST_EXCLUDE (a regular expression: tests "test" leaves out),
# IONIC_TEST_TSAN (0: "test" leaves out the ThreadSanitizer suite),
# IONIC_PHASE_LOG (a file: "test" appends the wall time of each of its
# phases to it, as .ci/run's table at the end shows them; tests/phases.py),
# IONIC_DIST_DIR, IONIC_PACKAGES_DIR (where dist and packages write).
#
# Every tree is a preset of CMakePresets.json ("default" in build/, "san",
# "tsan", "fuzz" in build-<preset>/), made, built and tested by
# "cmake --preset P", "cmake --build --preset P" and "ctest --preset P":
# what a tree is (its directory, options and test environment) is written
# there only, and the same commands give the same trees without this script.
set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
cd "$ROOT"
# The presets' trees (CMakePresets.json binaryDir).
BUILD=$ROOT/build
SANBUILD=$ROOT/build-san
TSANBUILD=$ROOT/build-tsan
FUZZBUILD=$ROOT/build-fuzz
CTEST_JOBS=${IONIC_CTEST_JOBS:-1}
TEST_FUZZ_SECONDS=${IONIC_TEST_FUZZ_SECONDS:-20}
TEST_TSAN=${IONIC_TEST_TSAN:-1}

DEPS=(cmake ninja-build gcc g++ pkg-config libibverbs-dev ibverbs-providers
      ibverbs-utils python3-pyverbs perftest rdmacm-utils groff-base valgrind iproute2
      procps shellcheck
      # the fuzz targets (./build.sh fuzz, docs/testing.md §5)
      clang # + the clang runtime of the release (cmd_deps: fuzz_runtime_dep)
      # UCX and Open MPI over the emulated NIC (tests/e2e/ucx.sh, mpi.sh)
      ucx-utils openmpi-bin netpipe-openmpi
      # mpicc and mpi.h for the cluster's collective job (tests/e2e/cluster.sh)
      libopenmpi-dev
      # libfabric's fi_pingpong over rdma_cm (tests/e2e/fabric_pingpong.sh)
      libfabric-bin util-linux mount
      # the capture test (ionic-sim --pcap decoded by tshark)
      tshark
      # rdma-core releases built from source (./build.sh matrix)
      libnl-3-dev libnl-route-3-dev xz-utils
      # packages and their tests (packaging/)
      dpkg-dev debhelper lintian debootstrap wget rpm rpmlint)
# What "./build.sh packages" needs, no more (it runs none of the emulator's
# tests): debian/control's Build-Depends, the package tools and lintian;
# rpm and rpmlint are used where installed.
PACKAGE_DEPS=(build-essential dpkg-dev debhelper lintian cmake ninja-build pkg-config
	libibverbs-dev groff-base)
# Installed only when no clang-format is there already (the lint-format
# test accepts clang-format 14, Debian 12's, and 19, Debian 13's, which
# format the tree alike; it skips with another version).
FORMAT_DEP=clang-format
# The compiler matrix (./build.sh compilers): each is installed where the
# release offers it (Debian 12: all but gcc-14, which the Debian 13 run
# builds with) and skipped where it does not.
COMPILER_DEPS=(gcc-11 gcc-12 gcc-14 clang-14 clang-15 clang-16)
# The releases whose package names DEPS (and FORMAT_DEP) are: Debian 12
# and Debian 13 name all of them alike.
DEPS_RELEASES="debian-12 debian-13"

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# The comment block at the top of this file, from its fourth line.
usage() {
	sed -n '4,/^[^#]/{/^#/p}' "$ROOT/build.sh" | sed 's/^# \{0,1\}//'
}

installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = \
		"install ok installed" ]
}

cmd_deps() {
	# libFuzzer's runtime comes with the release's default clang
	local rt=libclang-rt-14-dev
	[ "$(. /etc/os-release 2>/dev/null && echo "${ID:-}-${VERSION_ID:-}")" = debian-13 ] &&
		rt=libclang-rt-19-dev
	local format=()
	command -v clang-format-14 >/dev/null || command -v clang-format >/dev/null ||
		format=("$FORMAT_DEP")
	install_missing "${DEPS[@]}" "$rt" "${format[@]}"
}

# install_missing PACKAGE...: apt-get install those not installed yet.
install_missing() {
	local missing=() p
	command -v dpkg-query >/dev/null ||
		die "dpkg-query not found: this script supports Debian 12 and 13 only"
	local release
	release=$(. /etc/os-release 2>/dev/null && echo "${ID:-}-${VERSION_ID:-}")
	case " $DEPS_RELEASES " in
	*" $release "*) ;;
	*) echo "build.sh: warning: the package names are Debian 12's and 13's; this is $release" >&2 ;;
	esac
	for p in "$@"; do
		installed "$p" || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "build.sh: all required packages are installed"
		return 0
	fi
	say "Installing missing packages: ${missing[*]}"
	as_root apt-get update
	as_root apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
}

# as_root COMMAND...: run a package-manager command as root (sudo if need be).
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		env DEBIAN_FRONTEND=noninteractive "$@"
	else
		command -v sudo >/dev/null || die "run as root or install sudo: $*"
		sudo env DEBIAN_FRONTEND=noninteractive "$@"
	fi
}

# preset_dir PRESET: the tree of a configure preset.
preset_dir() {
	if [ "$1" = default ]; then echo "$BUILD"; else echo "$ROOT/build-$1"; fi
}

# configure PRESET: the preset's tree.
configure() {
	local preset=$1 dir
	dir=$(preset_dir "$1")
	if ! command -v cmake >/dev/null || ! command -v ninja >/dev/null; then
		die "cmake and ninja are needed: run ./build.sh deps"
	fi
	# A tree configured with another generator cannot be reused.
	if [ -f "$dir/CMakeCache.txt" ] &&
		! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
		echo "build.sh: $dir was configured with another generator; recreating it"
		rm -rf "$dir"
	fi
	cmake --preset "$preset"
}

# build PRESET: configure and build the preset's tree.
build() {
	configure "$1"
	cmake --build --preset "$1"
}

# timed NAME COMMAND...: run COMMAND and say how long it took; with
# IONIC_PHASE_LOG set, append "<prefix>NAME<TAB>seconds<TAB>exit status"
# to it (IONIC_PHASE_PREFIX: the stage of .ci/run this runs in).
timed() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" || rc=$?
	say "$name: $((SECONDS - t0)) s (exit $rc)"
	if [ -n "${IONIC_PHASE_LOG:-}" ]; then
		printf '%s\t%s\t%s\n' "${IONIC_PHASE_PREFIX:-}$name" \
			$((SECONDS - t0)) $rc >>"$IONIC_PHASE_LOG"
	fi
	return $rc
}

cmd_build() {
	say "Configuring and building in $BUILD"
	build default
}

# run_ctest PRESET: run the preset's suite in the preset's own tree, then
# hold its skips to tests/skips.allow (tests/skips.py: with CI=true a skip
# the list does not allow here fails the run).
run_ctest() {
	local preset=$1 dir=$ROOT/build rc=0 where
	[ "$preset" = default ] || dir=$ROOT/build-$preset
	# the whole output of every test, passed ones too, for the skip
	# messages and the "ci-note:" lines
	rm -f "$dir/Testing/ctest-junit.xml"
	ctest --preset "$preset" -j "$CTEST_JOBS" \
		${IONIC_CTEST_EXCLUDE:+-E "$IONIC_CTEST_EXCLUDE"} \
		--output-junit "$dir/Testing/ctest-junit.xml" \
		--test-output-size-passed 4194304 --test-output-size-failed 4194304 \
		</dev/null || rc=$?
	where="$(. /etc/os-release 2>/dev/null && echo "${ID:-}-${VERSION_ID:-}"),$preset"
	if [ -f "$dir/Testing/ctest-junit.xml" ]; then
		python3 "$ROOT/tests/skips.py" ctest "$dir/Testing/ctest-junit.xml" "$where" ||
			rc=1
	elif [ "${CI:-}" = true ]; then
		echo "build.sh: ctest wrote no $dir/Testing/ctest-junit.xml: its skips cannot be checked" >&2
		rc=1
	fi
	return $rc
}

cmd_test() {
	local failed=()
	timed deps cmd_deps
	timed build cmd_build
	say "Running the tests in $BUILD"
	timed normal run_ctest default || failed+=("$BUILD")

	say "Configuring and building with AddressSanitizer + UBSan in $SANBUILD"
	timed san-build build san
	say "Running the tests in $SANBUILD (sanitizers)"
	# The "san" test preset sets ASAN_OPTIONS/UBSAN_OPTIONS for the whole
	# run; cmake/IonicTesting.cmake refines them per test.
	timed san run_ctest san || failed+=("$SANBUILD")

	# Each fuzz target for a short time, then the ThreadSanitizer suite
	# (docs/testing.md §4); 0 turns either off.
	if [ "$TEST_FUZZ_SECONDS" != 0 ]; then
		timed fuzz cmd_fuzz "$TEST_FUZZ_SECONDS" || failed+=("$FUZZBUILD")
	fi
	if [ "$TEST_TSAN" != 0 ]; then
		timed tsan cmd_tsan || failed+=("$TSANBUILD")
	fi

	if [ ${#failed[@]} -ne 0 ]; then
		echo "build.sh: test failures in: ${failed[*]}" >&2
		return 1
	fi
}

# --- demo -----------------------------------------------------------------

DEMO_PIDS=()
DEMO_TMP=""
demo_cleanup() {
	local pid
	for pid in "${DEMO_PIDS[@]}"; do
		# Each launcher runs in a session of its own: end the whole group.
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	for pid in "${DEMO_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	DEMO_PIDS=()
	[ -n "$DEMO_TMP" ] && rm -rf "$DEMO_TMP"
	DEMO_TMP=""
}

demo_cleanup_server() {
	kill -TERM -- "-$1" 2>/dev/null || true
}

port_listening() {
	ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		port_listening "$p" || { echo "$p"; return 0; }
	done
	die "no free TCP port found"
}

cmd_demo() {
	cmd_deps
	cmd_build
	local sim="$BUILD/sim/ionic-sim" port spid cpid rc=0 srv=0
	[ -x "$sim" ] || die "$sim was not built (the emulator is not available in this tree yet)"
	command -v ibv_devinfo >/dev/null || die "ibv_devinfo missing: ./build.sh deps"

	say "ibv_devinfo -v on the emulated ionic device"
	"$sim" -- ibv_devinfo -v </dev/null

	port=${IONIC_DEMO_PORT:-$(free_port)}
	DEMO_TMP=$(mktemp -d /tmp/ionic-demo.XXXXXX)
	trap demo_cleanup EXIT
	trap 'demo_cleanup; exit 130' INT
	trap 'demo_cleanup; exit 143' TERM

	say "ibv_rc_pingpong over the emulated fabric (TCP port $port)"
	setsid "$sim" -- ibv_rc_pingpong -g 1 -n 1000 -c -p "$port" \
		>"$DEMO_TMP/server.log" 2>&1 </dev/null &
	spid=$!
	DEMO_PIDS+=("$spid")
	for _ in $(seq 1 200); do
		port_listening "$port" && break
		if ! kill -0 "$spid" 2>/dev/null; then
			cat "$DEMO_TMP/server.log"
			die "the pingpong server exited before listening"
		fi
		sleep 0.1
	done
	port_listening "$port" || {
		cat "$DEMO_TMP/server.log"
		die "the pingpong server did not listen on port $port within 20 s"
	}

	# In the background too, so that a signal reaches the trap at once.
	setsid timeout 120 "$sim" -- ibv_rc_pingpong -g 1 -n 1000 -c \
		-p "$port" 127.0.0.1 >"$DEMO_TMP/client.log" 2>&1 </dev/null &
	cpid=$!
	DEMO_PIDS+=("$cpid")
	wait "$cpid" || rc=$?
	if [ $rc -eq 0 ]; then
		for _ in $(seq 1 300); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	if kill -0 "$spid" 2>/dev/null; then
		echo "build.sh: the pingpong server did not finish; stopping it" >&2
		[ $rc -ne 0 ] || rc=1
		demo_cleanup_server "$spid"
	fi
	wait "$spid" 2>/dev/null || srv=$?
	DEMO_PIDS=()
	[ $rc -ne 0 ] || rc=$srv

	echo "--- server"
	cat "$DEMO_TMP/server.log"
	echo "--- client"
	cat "$DEMO_TMP/client.log"
	if grep -q 'invalid data' "$DEMO_TMP/server.log" "$DEMO_TMP/client.log"; then
		echo "build.sh: data corruption reported by ibv_rc_pingpong -c" >&2
		rc=1
	fi
	if [ $rc -ne 0 ] ||
		! grep -q 'bytes in .* seconds = ' "$DEMO_TMP/client.log"; then
		die "the pingpong exchange failed (exit $rc)"
	fi
	say "Throughput (client / server)"
	grep -h -E '(bytes|iters) in .* seconds = ' "$DEMO_TMP/client.log" \
		"$DEMO_TMP/server.log"
	demo_cleanup
	trap - EXIT INT TERM
}

cmd_bench() {
	cmd_deps
	cmd_build
	say "benchmark report (bench/report.py; bench/README.md)"
	"$ROOT/bench/report.py" "$BUILD" "$@"
}

# soak [MINUTES]: the verbs-soak program for that long on its own fabric.
cmd_soak() {
	local minutes=${1:-10}
	case $minutes in
	'' | *[!0-9]*) die "usage: ./build.sh soak [MINUTES]" ;;
	esac
	[ "$minutes" -ge 1 ] || die "usage: ./build.sh soak [MINUTES] (at least 1)"
	cmd_deps
	cmd_build
	say "verbs soak for $minutes minute(s)"
	"$BUILD/sim/ionic-sim" --fabric "soak-$$" -- \
		"$BUILD/tests/verbs-soak" --seconds $((minutes * 60)) </dev/null
}

# --- ThreadSanitizer (docs/testing.md §6) -----------------------------------

cmd_tsan() {
	cmd_deps
	say "Configuring and building with -fsanitize=thread in $TSANBUILD"
	timed tsan-build build tsan
	say "Running the tests with threads in $TSANBUILD (ThreadSanitizer)"
	# The "tsan" test preset picks the tests and sets TSAN_OPTIONS
	# (suppressions: tests/tsan.supp).  Serial unless asked (.ci/run:
	# two at a time, docs/testing.md §4.8).
	CTEST_JOBS=${IONIC_TSAN_CTEST_JOBS:-1} timed tsan-ctest run_ctest tsan
}

# --- fuzzing (docs/testing.md §5) ---------------------------------------------

# fuzz_build: preset "fuzz" (clang, ASan + UBSan, libFuzzer coverage
# everywhere; its build preset makes the fuzzer executables only).
fuzz_build() {
	command -v clang >/dev/null || die "clang is needed: run ./build.sh deps"
	build fuzz
}

# fuzz_run NAME EXE SEEDS SECONDS: one target from its checked-in seeds into
# a working corpus of its own; a finding fails and is kept as an artifact.
fuzz_run() {
	local name=$1 exe=$2 seeds=$3 secs=$4 work log rc=0
	work=$FUZZBUILD/fuzz-work/$name
	log=$work.log
	mkdir -p "$work" "$FUZZBUILD/fuzz-findings"
	say "fuzzer-$name for ${secs}s (corpus $work, seeds $seeds)"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$FUZZBUILD/fuzz-findings/$name-" \
		"$work" "$seeds" >"$log" 2>&1 </dev/null || rc=$?
	# libFuzzer's last status line: executions, coverage, features, corpus
	grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true
	grep -E '^stat::number_of_executed_units' "$log" || true
	if [ $rc -ne 0 ]; then
		grep -E -m 20 'ERROR|check \(|SUMMARY|Test unit written' "$log" >&2 || true
		echo "build.sh: fuzzer-$name found a problem (log $log); keep the input" \
			"in tests/fuzz/corpus/$name/ as a regression test once fixed" >&2
	fi
	return $rc
}

cmd_fuzz() {
	local secs=${1:-30} name exe seeds failed=()
	case $secs in
	'' | *[!0-9]*) die "fuzz: SECONDS must be a number, not '$secs'" ;;
	esac
	cmd_deps
	say "Configuring and building the fuzzers in $FUZZBUILD"
	timed fuzz-build fuzz_build
	# IONIC_FUZZ_JOBS targets at a time (default: IONIC_CTEST_JOBS): each
	# is one process on one core for its SECONDS; their reports follow in
	# the order of the list
	local jobs=${IONIC_FUZZ_JOBS:-$CTEST_JOBS} names=() out
	out=$FUZZBUILD/fuzz-work
	mkdir -p "$out"
	while read -r name exe seeds; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		rm -f "$out/$name.rc"
		(
			rc=0
			fuzz_run "$name" "$exe" "$seeds" "$secs" >"$out/$name.out" 2>&1 || rc=$?
			echo $rc >"$out/$name.rc"
		) &
		names+=("$name")
	done <"$FUZZBUILD/fuzz-targets.txt"
	wait
	for name in "${names[@]}"; do
		cat "$out/$name.out"
		[ "$(cat "$out/$name.rc" 2>/dev/null)" = 0 ] || failed+=("$name")
	done
	if [ ${#failed[@]} -ne 0 ]; then
		echo "build.sh: fuzz findings in: ${failed[*]}" >&2
		return 1
	fi
}

# --- packaging (packaging/) -------------------------------------------------

cmd_dist() {
	"$ROOT/packaging/mkdist.sh" "${IONIC_DIST_DIR:-$ROOT/dist}"
}

cmd_packages() {
	local release
	release=$(. /etc/os-release && echo "$ID-$VERSION_ID") ||
		die "cannot tell this machine's release from /etc/os-release"
	local fmt
	for fmt in "$@"; do
		case $fmt in
		--deb | --rpm) ;;
		*) die "usage: ./build.sh packages [--deb|--rpm]" ;;
		esac
	done
	install_missing "${PACKAGE_DEPS[@]}"
	"$ROOT/packaging/build-packages.sh" "$@" \
		"${IONIC_PACKAGES_DIR:-$ROOT/packages/$release}"
}

# matrix DIR...: each release's libibverbs and utils are built from its
# tarball, libionic and the tests against it (one tree per layout family),
# all cached under $BUILD/matrix; one line per release and a summary.  The
# releases of all DIRs make one matrix; a missing DIR is skipped.
cmd_matrix() {
	local d dirs=()
	if [ $# -lt 1 ]; then
		die "usage: ./build.sh matrix DIR... (folders of rdma-core-<release>.tar.xz)"
	fi
	for d in "$@"; do
		if [ -d "$d" ]; then
			dirs+=("$d")
		else
			echo "build.sh: skipping $d in the rdma-core release matrix: it (a folder of rdma-core-<release>.tar.xz) does not exist"
		fi
	done
	if [ ${#dirs[@]} -eq 0 ]; then
		echo "build.sh: skipping the rdma-core release matrix: none of $* exists"
		exit 77
	fi
	cmd_deps
	say "libionic against every rdma-core release in ${dirs[*]}"
	"$ROOT/tests/matrix/matrix.sh" --work "$BUILD/matrix" "${dirs[@]}"
}

# distro SUITE: the whole suite (./build.sh test) inside a chroot of that
# Debian release, on the release tarball, with the release's own packages.
cmd_distro() {
	if [ $# -ne 1 ]; then
		die "usage: ./build.sh distro SUITE (a Debian suite, e.g. trixie)"
	fi
	cmd_deps
	say "./build.sh test in a Debian $1 chroot"
	"$ROOT/tests/distro/chroot-test.sh" "$1" "$BUILD/distro-$1"
}

# compilers [COMPILER...]: install the matrix's compilers this release
# offers, then each builds the provider, the emulator and the tests.
cmd_compilers() {
	local p want=("$@") offered=() missing=()
	[ $# -gt 0 ] || want=("${COMPILER_DEPS[@]}")
	cmd_deps
	for p in "${want[@]}"; do
		installed "$p" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		as_root apt-get update
		for p in "${missing[@]}"; do
			if apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
				offered+=("$p")
			else
				echo "build.sh: $p is not offered by this release: the compiler matrix skips it"
			fi
		done
		[ ${#offered[@]} -eq 0 ] || install_missing "${offered[@]}"
	fi
	say "The compiler matrix in $BUILD/compilers"
	"$ROOT/tests/check-compilers.sh" "$BUILD/compilers" "${want[@]}"
}

cmd_clean() {
	rm -rf "$BUILD" "$SANBUILD" "$TSANBUILD" "$FUZZBUILD"
	echo "build.sh: removed $BUILD, $SANBUILD, build-tsan/ and build-fuzz/"
}

case ${1:-} in
deps) cmd_deps ;;
build) cmd_build ;;
test) cmd_test ;;
demo) cmd_demo ;;
bench)
	shift
	cmd_bench "$@"
	;;
soak)
	shift
	cmd_soak "$@"
	;;
tsan) cmd_tsan ;;
compilers)
	shift
	cmd_compilers "$@"
	;;
fuzz) cmd_fuzz "${2:-}" ;;
matrix)
	shift
	cmd_matrix "$@"
	;;
distro)
	shift
	cmd_distro "$@"
	;;
clean) cmd_clean ;;
dist) cmd_dist ;;
packages)
	shift
	cmd_packages "$@"
	;;
-h | --help | help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
