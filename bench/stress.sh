#!/usr/bin/env bash
# stress.sh - the load test of issue 9 (docs/reliability.md, "Load"), run by
# `make stress`; not part of `make check`.
#
#   compile  stress_compile: 1,000 random inputs of every algorithm
#            compiled in a row by one process through one plan cache,
#            every result checked, memory sampled every 100 inputs;
#   sockets  stress_run under `ccplan run -n 4`: four plans (broadcast,
#            alltoall, irregular, reduce) executed 10,000 times each, back
#            to back, every received byte checked, memory sampled every
#            1,000 iterations on every rank;
#   mpi      the same under `mpirun -n 4` (skipped where MPI is not built).
#
# Usage: bench/stress.sh [--smoke] [--seed S] [--part compile|sockets|mpi]...
#                        BUILD_DIR
# --smoke: 50 inputs and 200 iterations (the CTest version,
# tests/stress.cmake); --seed: the compile part's seed (default: the clock,
# printed; --smoke: 1).  Prints the tables; exits 1 when a part failed (a
# wrong result, or memory that grew), 2 on bad usage.
set -u
smoke=0
seed=
parts=
while [ $# -gt 1 ]; do
	case $1 in
	--smoke) smoke=1 ;;
	--seed) seed=$2; shift ;;
	--part) parts="$parts $2"; shift ;;
	*) break ;;
	esac
	shift
done
if [ $# -ne 1 ] || [ ! -x "$1/ccplan" ]; then
	echo "usage: $0 [--smoke] [--seed S] [--part compile|sockets|mpi]... BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
ccplan=$build/ccplan
parts=${parts:-compile sockets mpi}

if [ $smoke = 1 ]; then
	compiles=50 every=10 iters=200 run_every=50 seed=${seed:-1}
else
	compiles=1000 every=100 iters=10000 run_every=1000
fi
# exact live-byte counts: freed blocks must not wait in glibc's per-thread
# cache (bench/stress/stress.h)
export GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.tcache_count=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CCPLAN_CACHE="$tmp/cache/plans.db" # never the user's own cache
status=0

plans=
compile_plans() {
	[ -n "$plans" ] && return 0
	for y in "$here"/stress/run4_*.yaml; do
		local out="$tmp/$(basename "$y" .yaml).ccp"
		if ! "$ccplan" compile "$y" -o "$out" --no-cache 2>"$tmp/err"; then
			echo "stress.sh: cannot compile $y: $(cat "$tmp/err")" >&2
			return 1
		fi
		plans="$plans $out"
	done
}

# run_part NAME LAUNCHER...: stress_run on 4 ranks, then its report
run_part() {
	local name=$1
	shift
	local res="$tmp/res-$name"
	mkdir -p "$res"
	echo "== $name: $iters iterations of 4 plans on 4 ranks"
	compile_plans || return 1
	local t0=$(date +%s%N)
	# shellcheck disable=SC2086
	timeout 1800 "$@" "$build/bench/stress_run" --transport "$name" \
		-n "$iters" --every "$run_every" --result "$res" $plans \
		>"$tmp/$name.out" 2>&1
	local rc=$? ds=$((($(date +%s%N) - t0 + 50000000) / 100000000))
	"$build/bench/stress_run" --report "$res" || rc=1
	printf 'wall time %d.%d s (launch and set-up included)\n\n' \
		$((ds / 10)) $((ds % 10))
	if [ $rc != 0 ]; then
		echo "stress.sh: $name failed (exit $rc):"
		sed 's/^/    /' "$tmp/$name.out" | head -40
		return 1
	fi
}

for part in $parts; do
	case $part in
	compile)
		echo "== compile: $compiles random inputs through one cache"
		"$build/bench/stress_compile" -n "$compiles" --every "$every" \
			${seed:+--seed "$seed"} || status=1
		echo
		;;
	sockets)
		if [ ! -x "$build/bench/stress_run" ]; then
			echo "== sockets: skipped (stress_run is built only with MPI)"
			continue
		fi
		run_part sockets "$ccplan" run -n 4 --timeout 60 || status=1
		;;
	mpi)
		if [ ! -x "$build/bench/stress_run" ] || ! command -v mpirun >/dev/null; then
			echo "== mpi: skipped (no MPI)"
			continue
		fi
		flags=(-n 4)
		if mpirun --version 2>&1 | grep -q 'Open MPI\|OpenRTE'; then
			flags+=(--oversubscribe -x GLIBC_TUNABLES)
			[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
		fi
		# a sanitizer build: LeakSanitizer would report Open MPI's own
		# blocks at exit (as in tests/mpi/mpi.cmake)
		(export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
		 run_part mpi mpirun "${flags[@]}") || status=1
		;;
	*)
		echo "stress.sh: unknown part '$part'" >&2
		exit 2
		;;
	esac
done
exit $status
