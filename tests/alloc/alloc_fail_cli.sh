#!/usr/bin/env bash
# alloc_fail_cli.sh CCPLAN PRELOAD_LIB INPUT.yaml [WAY] - `ccplan compile` as a
# whole with the N-th allocation of the process failing, for every N
# (docs/reliability.md, "Memory").  PRELOAD_LIB is libccp_failing_malloc.so
# (tests/alloc/failing_malloc.c): CCP_FAIL_AT=N fails call N, and the
# library writes how many calls it counted, and whether call N came, to
# CCP_FAIL_REPORT at exit.  Three ways of compiling: --no-cache, into an
# empty cache (a miss, then a put) and from a cache holding the plan (a
# hit); WAY (no-cache, miss, hit; default all) runs one of them, so that
# the suite can run the three side by side.  For each, N runs from 1 until a run ends with no failure
# injected.  Every run with a failure must either
#   - exit 2 or 3 with a message on stderr and no output file, or
#   - exit 0 with an output file equal to the plan of a clean run (an
#     allocation the command can do without: a cache it cannot open is
#     a warning, and the plan is compiled),
# and must not die of a signal or leave a temporary file (*.tmp.*).  After
# a run that failed or warned, a clean compile through the same cache must
# succeed with the same plan and no warning (nothing moved aside, no
# damaged entry served).  The files go to /dev/shm where there is one:
# creating a cache syncs it several times, which costs tens of
# milliseconds a run on a disk.  Exit status 0 if every run passed.
set -u
ccplan=$1 lib=$2 input=$3 way=${4:-all}
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/ccp-allocfail-cli.XXXXXX")
export CCPLAN_CACHE_KEY="$tmp/cache-key" # the key that seals its plans, not the user's
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	fails=$((fails + 1))
	[ "$fails" -le 20 ] && echo "FAIL: $*"
}

ref=$tmp/ref.ccp
"$ccplan" compile "$input" -o "$ref" --no-cache 2>"$tmp/err" || {
	cat "$tmp/err"
	echo "FAIL: the clean compile failed"
	exit 1
}

# mode NAME [compile options]: every N for one way of compiling
mode() {
	local name=$1 n calls injected rc nomsg=0 ok0=0 st2=0 st3=0
	shift
	local db=$tmp/cache/plans.db
	for ((n = 1; ; n++)); do
		rm -rf "$tmp/out" "$tmp/report"
		mkdir "$tmp/out"
		case $name in
		miss) rm -rf "$tmp/cache" ;;
		hit) [ -f "$db" ] || "$ccplan" compile "$input" \
			-o "$tmp/out/seed.ccp" --cache "$db" 2>/dev/null
		     rm -f "$tmp/out/seed.ccp" ;;
		esac
		LD_PRELOAD=$lib CCP_FAIL_AT=$n CCP_FAIL_REPORT=$tmp/report \
			"$ccplan" compile "$input" -o "$tmp/out/plan.ccp" "$@" \
			>"$tmp/stdout" 2>"$tmp/stderr"
		rc=$?
		if [ ! -s "$tmp/report" ]; then
			fail "$name: allocation $n failed: no report (status" \
			     "$rc; killed by a signal?)"
			tail -3 "$tmp/stderr"
			continue
		fi
		read -r calls injected <"$tmp/report"
		[ "$injected" = 1 ] || break
		if [ $rc -ge 128 ]; then
			fail "$name: allocation $n failed: status $rc (a signal)"
		elif [ $rc = 0 ]; then
			ok0=$((ok0 + 1))
			cmp -s "$ref" "$tmp/out/plan.ccp" ||
				fail "$name: allocation $n failed: exit 0" \
				     "without the right plan"
		elif [ $rc = 2 ] || [ $rc = 3 ]; then
			[ $rc = 2 ] && st2=$((st2 + 1)) || st3=$((st3 + 1))
			[ -e "$tmp/out/plan.ccp" ] &&
				fail "$name: allocation $n failed: status $rc" \
				     "and an output file"
			grep -q . "$tmp/stderr" || {
				fail "$name: allocation $n failed: status $rc" \
				     "and no message"
				nomsg=$((nomsg + 1))
			}
		else
			fail "$name: allocation $n failed: status $rc"
			head -3 "$tmp/stderr"
		fi
		leftover=$(find "$tmp/out" "$tmp/cache" -name '*.tmp.*' \
			-o -name '*.corrupt-*' 2>/dev/null)
		[ -z "$leftover" ] ||
			fail "$name: allocation $n failed: left $leftover"
		if [ "$name" != no-cache ] && grep -q . "$tmp/stderr"; then
			"$ccplan" compile "$input" -o "$tmp/out/again.ccp" \
				--cache "$db" 2>"$tmp/again" &&
				! grep -q warning "$tmp/again" &&
				cmp -s "$ref" "$tmp/out/again.ccp" ||
				fail "$name: allocation $n failed: the next" \
				     "compile: $(cat "$tmp/again")"
		fi
	done
	printf '%-9s %5d allocation points: %d exit 3, %d exit 2, %d exit 0 with the plan\n' \
		"$name" $((n - 1)) "$st3" "$st2" "$ok0"
}

start=$(date +%s.%N)
case $way in
no-cache) mode no-cache --no-cache ;;
miss) mode miss --cache "$tmp/cache/plans.db" ;;
hit) mode hit --cache "$tmp/cache/plans.db" ;;
all)
	mode no-cache --no-cache
	mode miss --cache "$tmp/cache/plans.db"
	mode hit --cache "$tmp/cache/plans.db"
	;;
*) echo "alloc_fail_cli: unknown way '$way'"; exit 1 ;;
esac
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" -v f="$fails" -v w="$way" \
	'BEGIN { printf "alloc_fail_cli (%s): %.1f s, %d failures\n", w, b - a, f }'
[ "$fails" = 0 ]
