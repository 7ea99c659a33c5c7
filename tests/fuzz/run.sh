#!/bin/bash
# run.sh BUILD [SECONDS] - run every libFuzzer harness of BUILD (configured
# with CCPLAN_FUZZ=ON, see `make fuzz-smoke`) for SECONDS each (default
# 60), two at a time at most, from the corpora and regression inputs of
# tests/fuzz/.  New corpus entries and any crashing input go to a scratch
# directory, never into the repository.  Exits 1 if any harness found a
# crash, a leak, a timeout or an out-of-memory, naming the input to keep.
#
# Environment: FUZZ_JOBS (2) harnesses at once; FUZZ_HARNESSES ("yaml
# plan matrix cache exec") which ones; FUZZ_OUT (a new temporary directory)
# where corpora, crashes and logs go; FUZZ_ARGS more libFuzzer options.
set -u
build=$(cd "${1:?usage: run.sh BUILD [SECONDS]}" && pwd)
seconds=${2:-60}
jobs=${FUZZ_JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ccplan-fuzz.XXXXXX")}
mkdir -p "$out"
# leaks are reported at the end of each input; UBSan stops at its first
# report (the build also has -fno-sanitize-recover)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# name max_len dictionary extra-seed-directories...
opts_yaml="4096 yaml.dict $src/examples $src/tests/good $src/tests/bad"
opts_plan="4096 plan.dict"
opts_matrix="2048 matrix.dict"
opts_cache="4200 plan.dict"
opts_exec="4096 exec.dict"

run_one() {
	local h=$1 bin="$build/tests/fuzz_$1" opts
	eval "opts=(\$opts_$h)"
	local dirs=("$out/$h-corpus")
	for d in corpus regress; do
		[ -d "$here/$h/$d" ] && dirs+=("$here/$h/$d")
	done
	dirs+=("${opts[@]:2}")
	mkdir -p "$out/$h-corpus"
	# the YAML inputs name their matrix files relative to tests/good
	local cwd=$here
	[ "$h" = yaml ] && cwd=$src/tests/good
	(cd "$cwd" && timeout -k 10 $((seconds + 300)) "$bin" \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len="${opts[0]}" -dict="$here/${opts[1]}" \
		-artifact_prefix="$out/$h-" -print_final_stats=1 \
		${FUZZ_ARGS:-} "${dirs[@]}") > "$out/$h.log" 2>&1
	local rc=$?
	local stats
	stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$out/$h.log" |
		tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 runs /')
	if [ $rc -eq 0 ]; then
		echo "fuzz_$h: ok, $seconds s: $stats"
	else
		echo "fuzz_$h: FAILED (exit $rc), log $out/$h.log" >&2
		grep -E 'ERROR|SUMMARY|Test unit written|fuzz check failed' \
			"$out/$h.log" | head -8 >&2
	fi
	return $rc
}

harnesses=${FUZZ_HARNESSES:-yaml plan matrix cache exec}
for h in $harnesses; do
	[ -x "$build/tests/fuzz_$h" ] || {
		echo "run.sh: $build/tests/fuzz_$h missing (CCPLAN_FUZZ=ON?)" >&2
		exit 2
	}
done
status=0
running=0
for h in $harnesses; do
	if [ $running -ge "$jobs" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
	run_one "$h" &
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
if [ $status -ne 0 ]; then
	echo "run.sh: crashing inputs and logs kept in $out" >&2
	echo "run.sh: keep a fixed crash as tests/fuzz/HARNESS/regress/NAME" >&2
elif [ -z "${FUZZ_OUT:-}" ]; then
	rm -rf "$out"
fi
exit $status
