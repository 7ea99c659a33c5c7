#!/usr/bin/env bash
# cli_test.sh - the ccplan command end to end, as a user runs it:
#  - every bad input (tests/bad, tests/reject) exits 2 with exactly the
#    expected first line "file:line:column: message" and writes nothing;
#  - every example and tests/cli input compiles, verifies and explains,
#    and its JSON export has the documented shape;
#  - a damaged or truncated plan is refused by verify with exit 2;
#  - --help works on every command;
#  - the plan cache: hit after miss with the same bytes, equal inputs
#    spelled differently share an entry, 8 concurrent compiles leave one
#    entry per input, a damaged cache file is moved aside and the compile
#    still succeeds, and the cache commands work;
#  - compare ranks the candidates, auto takes the first, simulate runs.
# Usage: cli_test.sh CCPLAN_BINARY
set -u
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# never the user's own cache
export CCPLAN_CACHE="$tmp/cache/plans.db"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. bad inputs
for dir in "$here/bad" "$here/reject"; do
	for y in "$dir"/*.yaml; do
		name=$(basename "$y")
		out="$tmp/out-${name%.yaml}.ccp"
		(cd "$dir" && "$ccplan" compile "$name" -o "$out") 2>"$tmp/err" >/dev/null
		rc=$?
		want=$(head -n 1 "${y%.yaml}.err")
		got=$(head -n 1 "$tmp/err")
		if [ "$rc" != 2 ]; then bad "$name: exit $rc, expected 2"
		elif [ "$got" != "$want" ]; then bad "$name: got '$got', expected '$want'"
		elif [ -e "$out" ] || ls "$tmp" | grep -q '\.tmp\.'; then bad "$name: left output behind"
		else ok; fi
	done
done

# 2. good inputs: compile, verify, explain, export
for y in "$here"/../examples/*.yaml "$here"/cli/*.yaml; do
	name=$(basename "$y" .yaml)
	plan="$tmp/$name.ccp"
	if ! "$ccplan" compile "$y" -o "$plan" 2>"$tmp/err"; then
		bad "$name: compile failed: $(cat "$tmp/err")"; continue; fi
	if ! "$ccplan" verify "$plan" >"$tmp/v" 2>&1; then
		bad "$name: verify failed: $(cat "$tmp/v")"; continue; fi
	grep -q ': ok: ' "$tmp/v" && ok || bad "$name: verify said $(cat "$tmp/v")"
	if "$ccplan" explain "$plan" >"$tmp/x" 2>&1 &&
	   grep -q '^lower bound [0-9]* phases' "$tmp/x" &&
	   grep -q '^verified .*: ok' "$tmp/x"; then ok
	else bad "$name: explain: $(cat "$tmp/x")"; fi
	# explaining the YAML compiles in memory and prints the same table
	"$ccplan" explain "$y" | tail -n +2 >"$tmp/x2"
	tail -n +2 "$tmp/x" | cmp -s - "$tmp/x2" && ok || bad "$name: explain of .yaml differs from .ccp"
	"$ccplan" export --json "$plan" -o "$tmp/$name.json" &&
	grep -q '^{"format":"ccplan-plan","version":1,"ranks":[0-9]*,"topology":{"kind":"[a-z]*","dims":\[[0-9,]*\]},"routing":"[a-z-]*","ports":\([0-9]*\|"all"\),"collective":{"kind":"[a-z]*".*},"algorithm":"[a-z_]*","lower_bound_phases":[0-9]*,"phases":\[{"transfers":\[{"src":[0-9]*,"dst":[0-9]*,"bytes":[0-9]*,"blocks":\[\[[0-9]*,[0-9]*\]' "$tmp/$name.json" \
		&& ok || bad "$name: JSON shape: $(head -c 300 "$tmp/$name.json")"
	# compiling twice gives the same bytes (without the cache: really twice)
	"$ccplan" compile --no-cache "$y" -o "$tmp/again.ccp" && cmp -s "$plan" "$tmp/again.ccp" && ok ||
		bad "$name: two compiles differ"
done

# 3. damaged plans
plan="$tmp/mesh16-broadcast.ccp"
size=$(stat -c %s "$plan")
for off in 0 9 40 130 $((size / 2)) $((size - 1)); do
	cp "$plan" "$tmp/hurt.ccp"
	printf '\x5a' | dd of="$tmp/hurt.ccp" bs=1 seek="$off" conv=notrunc 2>/dev/null
	cmp -s "$plan" "$tmp/hurt.ccp" && continue
	"$ccplan" verify "$tmp/hurt.ccp" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && ok || bad "flipped byte $off: exit $rc ($(cat "$tmp/err"))"
done
head -c $((size - 7)) "$plan" >"$tmp/short.ccp"
"$ccplan" verify "$tmp/short.ccp" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'truncated plan' "$tmp/err" && ok || bad "truncated: $(cat "$tmp/err")"
"$ccplan" verify "$here/bad/cost_nan.yaml" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'not a ccplan plan' "$tmp/err" && ok || bad "yaml as plan: $(cat "$tmp/err")"

# 4. help, usage and output that cannot be written
for c in compile explain verify export cache compare simulate; do
	"$ccplan" $c --help | grep -q "^usage: ccplan $c" && ok || bad "$c --help"
done
"$ccplan" --help | grep -q binomial && ok || bad "--help lists algorithms"
"$ccplan" frobnicate 2>/dev/null; [ $? = 2 ] && ok || bad "unknown command exit"
"$ccplan" compile "$here/../examples/mesh16-broadcast.yaml" -o "$tmp/no/such/dir/x.ccp" 2>/dev/null
rc=$?; [ "$rc" != 0 ] && [ ! -e "$tmp/no" ] && ok || bad "unwritable output: exit $rc"

# 5. the plan cache
c="$tmp/c5/plans.db"
ex="$here/../examples/mesh32-edn.yaml"
"$ccplan" compile -v --cache "$c" "$ex" -o "$tmp/m1.ccp" 2>"$tmp/err"
grep -q 'cache miss, stored' "$tmp/err" && ok || bad "first compile not a miss: $(cat "$tmp/err")"
"$ccplan" compile -v --cache "$c" "$ex" -o "$tmp/m2.ccp" 2>"$tmp/err"
grep -q 'cache hit' "$tmp/err" && cmp -s "$tmp/m1.ccp" "$tmp/m2.ccp" && ok ||
	bad "second compile not a hit with the same bytes: $(cat "$tmp/err")"
"$ccplan" verify "$tmp/m2.ccp" >/dev/null && ok || bad "a plan from the cache does not verify"
# the same input spelled differently: other key order, flow style, comments
printf '%s\n' 'algorithm: edn   # the same plan' \
	'communication: {bytes: 4096, root: [5, 17], collective: broadcast}' \
	'machine: {ports: all, routing: dimension-order, dims: [32, 32], topology: mesh}' \
	>"$tmp/respelled.yaml"
"$ccplan" compile -v --cache "$c" "$tmp/respelled.yaml" -o "$tmp/m3.ccp" 2>"$tmp/err"
grep -q 'cache hit' "$tmp/err" && ok || bad "respelled input missed the cache: $(cat "$tmp/err")"
key=$("$ccplan" cache --cache "$c" ls | awk 'NR == 2 { print $1 }')
"$ccplan" cache --cache "$c" show "${key:0:8}" | grep -q '^algorithm   edn' && ok || bad "cache show"
"$ccplan" cache --cache "$c" export "${key:0:8}" -o "$tmp/m4.ccp" && cmp -s "$tmp/m1.ccp" "$tmp/m4.ccp" && ok ||
	bad "cache export"
"$ccplan" cache --cache "$c" rm 0123456789abcdef0123 2>/dev/null
[ $? = 2 ] && ok || bad "cache rm of an absent key"
# eight concurrent compiles, four of one input and one each of four others
c8="$tmp/c8/plans.db"
pids=()
for i in 1 2 3 4 5 6 7 8; do
	if [ "$i" -le 4 ]; then
		y="$ex"
	else
		sed "s/bytes: 4096/bytes: $i/" "$ex" >"$tmp/in$i.yaml"
		y="$tmp/in$i.yaml"
	fi
	"$ccplan" compile --cache "$c8" "$y" -o "$tmp/p$i.ccp" 2>"$tmp/err$i" &
	pids+=($!)
done
allok=1
for p in "${pids[@]}"; do wait "$p" || allok=0; done
[ "$allok" = 1 ] && ok || bad "a concurrent compile failed: $(cat "$tmp"/err[1-8])"
n=$("$ccplan" cache --cache "$c8" ls | tail -n +2 | wc -l)
[ "$n" = 5 ] && ok || bad "8 concurrent compiles of 5 inputs left $n entries"
# a damaged cache file: reported, moved aside, rebuilt; the compile works
head -c 3000 /dev/urandom >"$c8"
rm -f "$c8-wal" "$c8-shm"
"$ccplan" compile --cache "$c8" "$ex" -o "$tmp/p9.ccp" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && grep -q 'was damaged' "$tmp/err" && ls "$tmp/c8" | grep -q 'plans.db.corrupt-' && ok ||
	bad "damaged cache: exit $rc, $(cat "$tmp/err")"
n=$("$ccplan" cache --cache "$c8" ls | tail -n +2 | wc -l)
[ "$n" = 1 ] && ok || bad "rebuilt cache has $n entries"
# a cache that cannot be made: a warning, and the compile still succeeds
"$ccplan" compile --cache /proc/no/such/plans.db "$ex" -o "$tmp/p10.ccp" 2>"$tmp/err"
[ $? = 0 ] && grep -q 'compiling without it' "$tmp/err" && ok || bad "unusable cache: $(cat "$tmp/err")"
"$ccplan" cache --cache "$c8" gc --max-size 0 | grep -q '^removed 1 entries' && ok || bad "cache gc"

# 6. compare, simulate, algorithm: auto
auto="$here/../examples/mesh16-auto.yaml"
"$ccplan" compare "$auto" >"$tmp/cmp" 2>&1
[ $? = 0 ] && grep -q '^1   [a-z_]* ' "$tmp/cmp" && grep -q '^ranked by simulated time' "$tmp/cmp" && ok ||
	bad "compare: $(cat "$tmp/cmp")"
first=$(awk '$1 == "1" { print $2 }' "$tmp/cmp")
second=$(awk '$1 == "2" { print $2 }' "$tmp/cmp")
"$ccplan" compile --no-cache "$auto" -o "$tmp/auto.ccp" && "$ccplan" explain "$tmp/auto.ccp" >"$tmp/x" &&
	grep -q "^algorithm   $first " "$tmp/x" && grep -q "runner-up $second" "$tmp/x" && ok ||
	bad "auto chose other than compare's first ($first, $second): $(head -4 "$tmp/x")"
"$ccplan" export --json "$tmp/auto.ccp" | grep -q ",\"selection\":{\"method\":\"simulated\",\"candidates\":[0-9]*,\"time_us\":[0-9.e+-]*,\"runner_up\":\"$second\"" &&
	ok || bad "JSON export of an auto plan has no selection"
"$ccplan" simulate "$tmp/auto.ccp" >"$tmp/s" && grep -q '^simulated   last delivery [0-9.]* us' "$tmp/s" && ok ||
	bad "simulate: $(cat "$tmp/s")"
"$ccplan" simulate --half-duplex --barriers "$tmp/auto.ccp" >"$tmp/s2" &&
	grep -q '(phase barriers, half-duplex nodes)' "$tmp/s2" && ok || bad "simulate options: $(cat "$tmp/s2")"
"$ccplan" simulate "$here/../examples/mesh32-edn.yaml" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'alpha' "$tmp/err" && ok || bad "simulate without costs: $(cat "$tmp/err")"

# explain --rank lists one rank's operations
"$ccplan" explain "$here/../examples/mesh16-broadcast.yaml" --rank 136 >"$tmp/r" &&
	grep -q '^rank 136 of 256 (binomial) at (8, 8)' "$tmp/r" && grep -q '^    2  SEND            0    128' "$tmp/r" && ok ||
	bad "explain --rank: $(head -5 "$tmp/r")"
"$ccplan" explain "$here/../examples/mesh16-broadcast.yaml" --rank 256 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "explain --rank out of range"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
