#!/usr/bin/env bash
# verify_scale.sh - how `ccplan verify` and `ccplan export --json` grow with
# the plan (issue 20; docs/results.md, "Verify and export at scale").
#
# For square all-port meshes from 64x64 up to SIDE x SIDE (default 1024,
# a million ranks), compiles a binomial broadcast of 1 KiB without the
# cache, then times `ccplan verify` and `ccplan export --json` on it REPS
# times each (default 5), taking turns.  Prints, per size: the plan's
# bytes, the median wall time of each (min-max), the growth exponent of
# the median from the size before (time ~ ranks^exp), and the issue's goal
# lines: 256x256 under 0.5 s, 1 M ranks under 5 s, and an exponent of at
# most 1.1 from 256x256 up (below that the process's start-up dominates).
#
# Usage: bench/verify_scale.sh BUILD_DIR [REPS [SIDE]]
# Needs about 1 GB of disk for the million-rank plan and its export, in a
# temporary directory removed at the end.  Exits 2 on bad usage, 1 when a
# command fails.
set -u
if [ $# -lt 1 ] || [ ! -x "$1/ccplan" ]; then
	echo "usage: $0 BUILD_DIR [REPS [SIDE]]" >&2
	exit 2
fi
ccplan=$(cd "$1" && pwd)/ccplan
reps=${2:-5}
top=${3:-1024}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Seconds one command takes (wall), or exit 1 when it fails.
timed() {
	local t0 t1
	t0=$(date +%s.%N)
	if ! "$@" >/dev/null 2>"$dir/err"; then
		echo "failed: $*" >&2
		cat "$dir/err" >&2
		exit 1
	fi
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

# "median (min-max)" of the numbers on stdin.
summary() {
	sort -g | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

echo "ccplan verify and export --json of a binomial broadcast (1 KiB) on all-port meshes; wall seconds, median (min-max) of $reps; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %9s %11s %22s %5s %22s %5s\n' mesh ranks "plan bytes" "verify s" exp "export s" exp
prev_n=0 prev_v=0 prev_e=0 v256=0 e256=0 n256=0
side=64
while [ "$side" -le "$top" ]; do
	n=$((side * side))
	in=$dir/m$side.yaml plan=$dir/m$side.ccp
	printf 'machine: {topology: mesh, dims: [%d, %d], ports: all}\ncommunication: {collective: broadcast, root: 0, bytes: 1024}\nalgorithm: binomial\n' \
	        "$side" "$side" >"$in"
	timed "$ccplan" compile -q --no-cache "$in" -o "$plan" >/dev/null
	: >"$dir/v" && : >"$dir/e"
	for _ in $(seq "$reps"); do
		timed "$ccplan" verify "$plan" >>"$dir/v"
		timed "$ccplan" export --json "$plan" -o "$dir/out.json" >>"$dir/e"
	done
	read -r vm vlo vhi < <(summary <"$dir/v")
	read -r em elo ehi < <(summary <"$dir/e")
	ve=- ee=-
	if [ "$prev_n" -gt 0 ]; then
		ve=$(awk -v a="$prev_v" -v b="$vm" -v x="$prev_n" -v y="$n" 'BEGIN { printf "%.2f", log(b / a) / log(y / x) }')
		ee=$(awk -v a="$prev_e" -v b="$em" -v x="$prev_n" -v y="$n" 'BEGIN { printf "%.2f", log(b / a) / log(y / x) }')
	fi
	printf '%-10s %9d %11d %22s %5s %22s %5s\n' "${side}x$side" "$n" \
	        "$(stat -c %s "$plan")" "$vm ($vlo-$vhi)" "$ve" "$em ($elo-$ehi)" "$ee"
	if [ "$side" -eq 256 ]; then
		v256=$vm e256=$em n256=$n
		ok=$(awk -v v="$vm" -v e="$em" 'BEGIN { print (v < 0.5 && e < 0.5) ? "met" : "NOT MET" }')
		echo "  goal: 256x256 verify and export under 0.5 s: $ok"
	fi
	rm -f "$plan" "$dir/out.json"
	prev_n=$n prev_v=$vm prev_e=$em
	side=$((side * 2))
done
if [ "$prev_n" -ge 1048576 ]; then
	ok=$(awk -v v="$prev_v" -v e="$prev_e" 'BEGIN { print (v < 5 && e < 5) ? "met" : "NOT MET" }')
	echo "  goal: a million ranks verified and exported under 5 s: $ok"
fi
if [ "$n256" -gt 0 ] && [ "$prev_n" -gt "$n256" ]; then
	awk -v a="$v256" -v b="$prev_v" -v c="$e256" -v d="$prev_e" -v x="$n256" -v y="$prev_n" 'BEGIN {
		ve = log(b / a) / log(y / x); ee = log(d / c) / log(y / x)
		printf "  goal: growth exponent from 256x256 at most 1.1: verify %.2f, export %.2f: %s\n",
		       ve, ee, (ve <= 1.1 && ee <= 1.1) ? "met" : "NOT MET" }'
fi
exit 0
