#!/usr/bin/env bash
# valgrind_test.sh CCPLAN EXAMPLE.yaml... - the command under valgrind's
# memcheck over each example (docs/reliability.md, "Memory"): `compile`
# through a new cache, `compile` again (a cache hit), `compile
# --no-cache`, then `verify`, `explain`, `show`, `simulate` and `export
# --json` of the plan.  Any memcheck error, or a block definitely or
# indirectly lost, fails the run (valgrind's --error-exitcode, 99); so
# does a command that fails, except `simulate` of an example with no
# costs for the simulator (exit status 2 and its message).  `show` draws
# every phase, or phase 0 of a plan with more phases than one picture
# takes.  Prints each example's time.  Exit status 0 if all ran clean.
set -u
ccplan=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CCPLAN_CACHE=$tmp/cache/plans.db
export CCPLAN_CACHE_KEY=$tmp/cache-key # the key that seals its plans, not the user's
vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
    --track-origins=yes --quiet)
fails=0
# run WHAT [--may-lack-costs | --may-want-phase] ARGS...: ccplan ARGS
# under memcheck
run() {
	local what=$1 costs=0 phase=0 rc
	shift
	[ "$1" = --may-lack-costs ] && costs=1 && shift
	[ "$1" = --may-want-phase ] && phase=1 && shift
	"${vg[@]}" --log-file="$tmp/vg.log" "$ccplan" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] && return
	[ $rc = 2 ] && [ $costs = 1 ] && grep -q "cannot simulate" "$tmp/err" &&
		return
	if [ $rc = 2 ] && [ $phase = 1 ] && grep -q "give --phase" "$tmp/err"
	then
		run "$what" "$@" --phase 0
		return
	fi
	echo "FAIL: $what: ccplan $* (status $rc)"
	cat "$tmp/vg.log"
	tail -5 "$tmp/err"
	fails=$((fails + 1))
}
for y in "$@"; do
	name=$(basename "$y" .yaml)
	plan=$tmp/$name.ccp
	start=$(date +%s.%N)
	run "$name: compile (miss)" compile "$y" -o "$plan"
	run "$name: compile (hit)" compile "$y" -o "$plan"
	run "$name: compile --no-cache" compile "$y" -o "$plan" --no-cache
	run "$name: verify" verify "$plan"
	run "$name: explain" explain "$plan"
	run "$name: show" --may-want-phase show "$plan" -o "$tmp/$name.svg"
	run "$name: simulate" --may-lack-costs simulate "$plan"
	run "$name: export" export --json "$plan" -o "$tmp/$name.json"
	end=$(date +%s.%N)
	awk -v n="$name" -v a="$start" -v b="$end" \
		'BEGIN { printf "%-22s %6.1f s\n", n, b - a }'
done
[ "$fails" = 0 ] && echo "valgrind: $# examples clean" ||
	echo "valgrind: $fails failures"
[ "$fails" = 0 ]
