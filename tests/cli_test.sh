#!/usr/bin/env bash
# cli_test.sh - the ccplan command end to end, as a user runs it (the
# catalogue of bad inputs and plans, each against its NAME.err, is
# tests/cases_test.sh's):
#  - every example and tests/cli input compiles, verifies and explains,
#    and its JSON export has the documented shape;
#  - a damaged or truncated plan is refused by verify with exit 2;
#  - --help works on every command;
#  - the plan cache: hit after miss with the same bytes, equal inputs
#    spelled differently share an entry, 8 concurrent compiles leave one
#    entry per input, a damaged cache file is moved aside and the compile
#    still succeeds (also when the damage is met only by the hit's read),
#    and the cache commands work;
#  - compare ranks the candidates, auto takes the first, simulate runs;
#  - show refuses a fat tree with its reason, explain and compare work;
#    explain reports loads by link class under adaptive routing, and says
#    when a placement would lower an irregular plan's bound; show --heat
#    draws an irregular pattern's link loads before and after placement;
#  - a dragonfly compiles under adaptive routing; show refuses it, explain
#    and JSON describe it;
#  - the memory limit (CCPLAN_MAX_MEMORY, --max-memory) refuses an input
#    before building it, on every command that compiles; a YAML file over
#    256 MiB is refused by its size;
#  - every command ends with one summary line on stderr (and --help with
#    none), stdout is left alone; misspelt commands, options and help
#    topics get a suggestion; the help topics, the man page and the bash
#    completion work, and follow the table of commands;
#  - options parse as getopt_long does (--opt=value, -oVALUE), a missing
#    or bad value is named, a usage error is one line and a hint, -q
#    drops the summary, -V prints the version;
#  - import slurm writes the worked example's machine and refuses a bad
#    topology.conf at its line and column, writing nothing.
# Usage: cli_test.sh CCPLAN_BINARY
set -u
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# never the user's own cache
export CCPLAN_CACHE="$tmp/cache/plans.db"
export CCPLAN_CACHE_KEY="$tmp/cache-key" # the key that seals its plans, not the user's
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1. bad inputs and bad plans (tests/bad, tests/reject): their messages,
# statuses and summaries are checked by tests/cases_test.sh (cases_bad,
# cases_reject)

# 2. good inputs: compile, verify, explain, export
for y in "$here"/../examples/*.yaml "$here"/cli/*.yaml; do
	name=$(basename "$y" .yaml)
	plan="$tmp/$name.ccp"
	if ! "$ccplan" compile "$y" -o "$plan" 2>"$tmp/err"; then
		bad "$name: compile failed: $(cat "$tmp/err")"; continue; fi
	if ! "$ccplan" verify "$plan" >"$tmp/v" 2>&1; then
		bad "$name: verify failed: $(cat "$tmp/v")"; continue; fi
	grep -q ': ok: ' "$tmp/v" && ok || bad "$name: verify said $(cat "$tmp/v")"
	if "$ccplan" explain "$plan" >"$tmp/x" 2>"$tmp/xe" &&
	   grep -q '^lower bound [0-9]* phases' "$tmp/x" &&
	   grep -q '^verified .*: ok' "$tmp/x"; then ok
	else bad "$name: explain: $(cat "$tmp/x" "$tmp/xe")"; fi
	# explaining the YAML compiles in memory and prints the same table
	"$ccplan" explain "$y" | tail -n +2 >"$tmp/x2"
	tail -n +2 "$tmp/x" | cmp -s - "$tmp/x2" && ok || bad "$name: explain of .yaml differs from .ccp"
	"$ccplan" export --json "$plan" -o "$tmp/$name.json" &&
	grep -q '^{"format":"ccplan-plan","version":2,"ranks":[0-9]*,"topology":{"kind":"[a-z_]*","dims":\[[0-9,]*\][^}]*},"routing":"[a-z-]*","ports":\([0-9]*\|"all"\),"collective":{"kind":"[a-z]*".*},"algorithm":"[a-z_]*","link_contention":\(true\|false\),"node_contention":\(true\|false\),"lower_bound_phases":[0-9]*,"phases":\[{"transfers":\[{"src":[0-9]*,"dst":[0-9]*,"bytes":[0-9]*,"blocks":\[\[[0-9]*,[0-9]*\]' "$tmp/$name.json" \
		&& ok || bad "$name: JSON shape: $(head -c 300 "$tmp/$name.json")"
	# compiling twice gives the same bytes (without the cache: really twice)
	"$ccplan" compile --no-cache "$y" -o "$tmp/again.ccp" && cmp -s "$plan" "$tmp/again.ccp" && ok ||
		bad "$name: two compiles differ"
done

# a fat tree: show refuses it with its reason (no picture, no crash),
# explain and compare describe it (one phase asked: every phase of this
# 126-phase plan is refused by its count, from the header, before that)
"$ccplan" show --phase 0 "$tmp/fat-tree-allreduce.ccp" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "pictures are not drawn for fat trees" "$tmp/err" && ok ||
	bad "show of a fat tree: $(cat "$tmp/err")"
"$ccplan" show --text "$tmp/fat-tree-allreduce.ccp" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "pictures are not drawn for fat trees" "$tmp/err" && ok ||
	bad "show --text of a fat tree: $(cat "$tmp/err")"
grep -q '^machine     fat_tree XGFT(2; 8,4; 1,4), d-mod-k routing' <("$ccplan" explain "$tmp/fat-tree-allreduce.ccp" 2>/dev/null) &&
	ok || bad "explain of a fat tree"
"$ccplan" compare "$here/cli/fat-tree-allreduce.yaml" >"$tmp/out" 2>/dev/null &&
	grep -q '^1   ' "$tmp/out" && grep -q ' ring ' "$tmp/out" && ok ||
	bad "compare on a fat tree: $(cat "$tmp/out")"

# a dragonfly under adaptive routing: the plan compiles free of
# contention for every path; show refuses it with its reason, explain
# names its shape, JSON carries every field
"$ccplan" compile --no-cache "$here/cli/dragonfly-alltoall.yaml" -o "$tmp/dfly.ccp" 2>/dev/null && ok ||
	bad "compile of a dragonfly"
"$ccplan" show --phase 0 "$tmp/dfly.ccp" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "pictures are not drawn for dragonflies" "$tmp/err" && ok ||
	bad "show of a dragonfly: $(cat "$tmp/err")"
grep -q '^machine     dragonfly 9x4x2, h 2, relative, width 1/1/2, adaptive routing' <("$ccplan" explain "$tmp/dfly.ccp" 2>/dev/null) &&
	ok || bad "explain of a dragonfly"
"$ccplan" export --json "$tmp/dfly.ccp" 2>/dev/null |
	grep -q '"topology":{"kind":"dragonfly","dims":\[9,4,2,2\],"arrangement":"relative","width":\[1,1,2\],"seed":5},"routing":"adaptive"' &&
	ok || bad "JSON of a dragonfly"

# adaptive routing: explain reports loads by class of links, the busiest
# as a worst case over every choice of paths
sed 's/routing: d-mod-k/routing: adaptive/' "$here/cli/fat-tree-allreduce.yaml" >"$tmp/ft-adaptive.yaml"
"$ccplan" explain "$tmp/ft-adaptive.yaml" >"$tmp/out" 2>/dev/null &&
	grep -q '^links       class    links   hops  busiest  mean   (busiest: worst case over every choice of paths)' "$tmp/out" &&
	grep -q '^            up          16    504        1  0.25$' "$tmp/out" &&
	grep -q '^machine     fat_tree XGFT(2; 8,4; 1,4), adaptive routing' "$tmp/out" && ok ||
	bad "explain by link class under adaptive routing: $(tail -5 "$tmp/out")"

# explain says when placement would help: the link term against the
# degree term (by class on a dragonfly), and what ccplan place --seed 1
# makes of the bound, the same numbers as that command prints
cat >"$tmp/df-irr.yaml" <<'EOF'
machine:
  topology: dragonfly
  dragonfly: {groups: 9, routers: 4, hosts_per_router: 2, global_per_router: 2, arrangement: relative}
  routing: minimal
communication:
  pattern: irregular
  generate: {kind: regular, degree: 6, bytes: 4096, seed: 3}
algorithm: link_aware
EOF
"$ccplan" explain "$tmp/df-irr.yaml" --summary >"$tmp/out" 2>/dev/null &&
	grep -q '^placement   the links bound this plan: link term 11, 1.83x the degree term 6$' "$tmp/out" &&
	grep -q '^            link term by class: host 6, local 11, global 10$' "$tmp/out" &&
	grep -q '^            ccplan place IN.yaml --seed 1 would lower the bound from 11 to 7 (link term 11 -> 7, hops 1875 -> 1654)$' "$tmp/out" &&
	"$ccplan" place "$tmp/df-irr.yaml" --seed 1 -o "$tmp/df-irr.place" 2>"$tmp/err" &&
	grep -q 'phase bound 11 -> 7 (link 11 -> 7, degree 6), hops 1875 -> 1654$' "$tmp/err" && ok ||
	bad "explain's placement advice: $(tail -4 "$tmp/out") / $(cat "$tmp/err")"
# the report page carries it too
"$ccplan" explain "$tmp/df-irr.yaml" --html "$tmp/df-irr.html" 2>/dev/null &&
	grep -q 'ccplan place IN.yaml --seed 1 would lower the bound from 11 to 7' "$tmp/df-irr.html" && ok ||
	bad "explain --html: no placement advice"
# a plan its degrees bound: placement would not lower it
"$ccplan" explain "$here/../examples/fat-tree-source.yaml" --summary >"$tmp/out" 2>/dev/null &&
	grep -q '^placement   the degrees bound this plan: degree term 32, link term 32$' "$tmp/out" &&
	grep -q '^            link term by class: host 32, up 30, down 30; placement would not lower the bound$' "$tmp/out" && ok ||
	bad "explain of a plan its degrees bound: $(tail -3 "$tmp/out")"
# above 4,096 ranks explain does not search, and says so
cat >"$tmp/mesh-4160.yaml" <<'EOF'
machine: {topology: mesh, dims: [65, 64]}
communication:
  pattern: irregular
  generate: {kind: regular, degree: 1, bytes: 64, seed: 2}
algorithm: link_aware
EOF
"$ccplan" explain "$tmp/mesh-4160.yaml" --summary >"$tmp/out" 2>/dev/null &&
	grep -q '^            placement not searched above 4096 ranks (4160 here): ccplan place IN.yaml searches$' "$tmp/out" && ok ||
	bad "explain above 4096 ranks: $(tail -3 "$tmp/out")"
# a collective has no such section
"$ccplan" explain "$here/../examples/mesh16-broadcast.yaml" >"$tmp/out" 2>/dev/null &&
	! grep -q '^placement' "$tmp/out" && ok || bad "explain of a broadcast talks of placement"

# show --heat: the link loads of an irregular pattern as placed and after
# ccplan place's search (seed 1), side by side; every message counted on
# every link of its route (each panel's loads sum to its hops, a mesh's
# links carrying one message a phase), one colour scale (the hottest
# colour only where the busiest link is), the bound as explain says it
sc="$here/golden/mesh4-scrambled.yaml"
"$ccplan" show "$sc" --heat -o "$tmp/heat.svg" 2>/dev/null &&
	grep -q 'class="subtitle" x="10" y="40">phase bound 4 -> 1 (link term 4 -> 1), hops 104 -> 48<' "$tmp/heat.svg" &&
	[ "$(grep -c '<g class="panel">' "$tmp/heat.svg")" = 2 ] &&
	[ "$(awk '/<g class="panel">/ { p++ } /class="heat"/ { split($0, a, "phases? of messages"); n = split(a[1], w, " "); s[p] += w[n] } END { print s[1] + 0, s[2] + 0 }' "$tmp/heat.svg")" = "104 48" ] &&
	[ "$(awk '/<g class="panel">/ { p++ } /class="heat" stroke="#bd0026"/ { c[p]++ } END { print c[1] + 0, c[2] + 0 }' "$tmp/heat.svg")" = "2 0" ] && ok ||
	bad "show --heat: $(grep -o 'class="subtitle"[^<]*' "$tmp/heat.svg")"
# the same with the placement file ccplan place writes; the input's own
# placement as the file gives the same picture twice
"$ccplan" place "$sc" --seed 1 -o "$tmp/sc.place" 2>/dev/null &&
	"$ccplan" show "$sc" --heat --placement "$tmp/sc.place" -o "$tmp/heat2.svg" 2>/dev/null &&
	grep -q 'phase bound 4 -> 1 (link term 4 -> 1), hops 104 -> 48<' "$tmp/heat2.svg" &&
	seq 0 15 >"$tmp/same.place" &&
	"$ccplan" show "$sc" --heat --placement "$tmp/same.place" -o "$tmp/heat3.svg" 2>/dev/null &&
	grep -q 'phase bound 4 -> 4 (link term 4 -> 4), hops 104 -> 104<' "$tmp/heat3.svg" && ok ||
	bad "show --heat --placement"
# refusals: a bad placement file at its line and column, nothing written;
# a collective; --placement alone; --heat with --text
printf '0\n1\n2\n' >"$tmp/short.place"
"$ccplan" show "$sc" --heat --placement "$tmp/short.place" -o "$tmp/none.svg" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'short.place:3:2: the file ends after 3 ranks; the machine has 16' "$tmp/err" &&
	[ ! -e "$tmp/none.svg" ] && ok || bad "show --heat, a short placement file: $(cat "$tmp/err")"
"$ccplan" show "$here/../examples/mesh16-broadcast.yaml" --heat 2>"$tmp/err" >"$tmp/out"
[ $? = 2 ] && grep -q 'draws the link loads of an irregular pattern; this plan is a broadcast' "$tmp/err" && [ ! -s "$tmp/out" ] &&
	ok || bad "show --heat of a broadcast: $(cat "$tmp/err")"
"$ccplan" show "$sc" --placement "$tmp/sc.place" 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q -- '--placement goes with --heat' "$tmp/err" && ok || bad "show --placement without --heat"
"$ccplan" show "$sc" --heat --text 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q -- 'not with --phase, --all or --text' "$tmp/err" && ok || bad "show --heat --text"

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
# the default output name keeps every dot but the extension's, so two
# versions of one input never write the same plan
mkdir -p "$tmp/dots"
for v in v2 v3; do
	cp "$here/../examples/mesh16-broadcast.yaml" "$tmp/dots/bcast.$v.yaml"
	(cd "$tmp/dots" && "$ccplan" -q compile --no-cache "bcast.$v.yaml")
done
cp "$here/../examples/mesh16-broadcast.yaml" "$tmp/dots/plain.yml"
(cd "$tmp/dots" && "$ccplan" -q compile --no-cache plain.yml)
[ -s "$tmp/dots/bcast.v2.ccp" ] && [ -s "$tmp/dots/bcast.v3.ccp" ] &&
	[ -s "$tmp/dots/plain.ccp" ] && [ ! -e "$tmp/dots/bcast.ccp" ] && ok ||
	bad "default output names: $(ls "$tmp/dots")"

# an input without algorithm: is compiled as algorithm: auto, under the
# same cache key (the explicit auto's plan is a cache hit for it)
sed '/^algorithm:/d' "$here/../examples/mesh16-broadcast.yaml" >"$tmp/noalg.yaml"
sed 's/^algorithm:.*/algorithm: auto/' "$here/../examples/mesh16-broadcast.yaml" >"$tmp/auto.yaml"
! grep -q '^algorithm' "$tmp/noalg.yaml" && ok || bad "noalg: the key is still there"
"$ccplan" -q compile --cache "$tmp/noalg.db" "$tmp/auto.yaml" -o "$tmp/auto1.ccp" &&
	"$ccplan" compile -v --cache "$tmp/noalg.db" "$tmp/noalg.yaml" -o "$tmp/noalg.ccp" 2>"$tmp/err" &&
	grep -q 'from the cache' "$tmp/err" && grep -q 'auto: ' "$tmp/err" &&
	cmp -s "$tmp/auto1.ccp" "$tmp/noalg.ccp" && ok || bad "no algorithm key: $(cat "$tmp/err")"

# sizes with units read as their bytes: 4K, 4KiB and 4096 are one input
for b in 4K 4KiB 4096; do
	sed "s/^\(  *bytes:\).*/\1 $b/" "$here/../examples/mesh16-broadcast.yaml" >"$tmp/size$b.yaml"
	"$ccplan" -q compile --no-cache "$tmp/size$b.yaml" -o "$tmp/size$b.ccp" ||
		bad "bytes: $b"
done
grep -q 'bytes: 4KiB' "$tmp/size4KiB.yaml" && cmp -s "$tmp/size4K.ccp" "$tmp/size4096.ccp" &&
	cmp -s "$tmp/size4KiB.ccp" "$tmp/size4096.ccp" && ok || bad "sizes with units differ"

# MPI's names of the collectives are aliases: one canonical form, one plan
sed 's/collective: broadcast/collective: MPI_Bcast/' "$here/../examples/mesh16-broadcast.yaml" >"$tmp/mpiname.yaml"
grep -q MPI_Bcast "$tmp/mpiname.yaml" &&
	"$ccplan" -q compile --no-cache "$tmp/mpiname.yaml" -o "$tmp/mpiname.ccp" &&
	"$ccplan" -q compile --no-cache "$here/../examples/mesh16-broadcast.yaml" -o "$tmp/bname.ccp" &&
	cmp -s "$tmp/mpiname.ccp" "$tmp/bname.ccp" && ok || bad "MPI_Bcast alias"

# a named algorithm that does not apply: the line and caret of its name,
# and the algorithms that do apply
printf 'machine: {topology: switch, ranks: 8}\ncommunication: {collective: broadcast, root: 0, bytes: 8}\nalgorithm: edn\n' >"$tmp/na.yaml"
"$ccplan" compile --no-cache "$tmp/na.yaml" -o "$tmp/na.ccp" 2>"$tmp/err"
[ $? = 2 ] && grep -q '^    3 | algorithm: edn$' "$tmp/err" && grep -q '^      |            \^$' "$tmp/err" &&
	grep -q 'these apply: binomial, .* (or auto)$' "$tmp/err" && [ ! -e "$tmp/na.ccp" ] && ok ||
	bad "does not apply: $(cat "$tmp/err")"

# ranking without costs says so: compare's line and warning, compile's
# warning under auto; compare lists what does not apply and why
printf 'machine: {topology: mesh, dims: [4, 4]}\ncommunication: {collective: broadcast, root: 3, bytes: 1024}\n' >"$tmp/nocost.yaml"
"$ccplan" compare "$tmp/nocost.yaml" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "^ranked by phases, a contended phase counted at its busiest link's load (the machine lacks the costs to time them)$" "$tmp/out" &&
	grep -q 'warning: .*ranked by phases alone' "$tmp/err" &&
	grep -q '^-   sbt  *does not apply: sbt needs a hypercube; this machine is a 4x4 mesh$' "$tmp/out" &&
	grep -q '^not for this collective: .*ring.*node_exchange$' "$tmp/out" && ok ||
	bad "compare without costs: $(cat "$tmp/out" "$tmp/err" | tail -5)"
# a phase that overruns a one-port rank (ac: rank 0 sends 3 at once) is
# 1.00x its phase bound, and explain says what that hides; a plan that
# keeps to the ports (rs_nl) says nothing of it
printf 'machine: {topology: hypercube, dimension: 3, routing: e-cube, ports: one,\n  cost: {alpha: 10, beta: 1, beta_sat: 1, hop: 0, gamma: 0}}\ncommunication:\n  pattern: irregular\n  edges: [[0, 1, 1000], [0, 2, 1000], [0, 4, 1000]]\nalgorithm: ac\n' >"$tmp/overrun.yaml"
"$ccplan" -q explain --summary "$tmp/overrun.yaml" >"$tmp/out" 2>&1 &&
	grep -q '(plan is 1.00x the bound)$' "$tmp/out" &&
	grep -q '^            but a phase overruns the ports: a rank sends up to 3 and receives up to 1 at once through 1 port; the prediction serialises them$' "$tmp/out" &&
	grep -q '^predicted   3010.00 us by the contention model$' "$tmp/out" &&
	sed 's/^algorithm: ac/algorithm: rs_nl/' "$tmp/overrun.yaml" >"$tmp/kept.yaml" &&
	"$ccplan" -q explain --summary "$tmp/kept.yaml" >"$tmp/out2" 2>&1 &&
	! grep -q 'overruns' "$tmp/out2" && ok ||
	bad "explain of a phase over the ports: $(cat "$tmp/out" "$tmp/out2")"

# costs given but not all the model needs (a switch with alpha and beta:
# gamma is missing, hop reads as 0): the same fallback, not "no costs"
printf 'machine: {topology: switch, ranks: 8, cost: {alpha: 1, beta: 0.01}}\ncommunication: {collective: broadcast, root: 0, bytes: 1K}\n' >"$tmp/somecost.yaml"
"$ccplan" compare "$tmp/somecost.yaml" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "^ranked by phases, a contended phase counted at its busiest link's load (the machine lacks the costs to time them)$" "$tmp/out" &&
	grep -q '^model: .*needs gamma' "$tmp/out" && ! grep -q '^model: .*hop' "$tmp/out" &&
	grep -q 'warning: .*ranked by phases alone' "$tmp/err" && ok ||
	bad "compare with some costs: $(cat "$tmp/out" "$tmp/err" | tail -5)"
"$ccplan" compile --no-cache "$tmp/nocost.yaml" -o "$tmp/nocost.ccp" 2>"$tmp/err" &&
	grep -q 'warning: .*algorithm: auto ranked [0-9]* candidates by their phases alone' "$tmp/err" &&
	sed 's/^algorithm:.*/algorithm: auto/' "$here/../examples/mesh16-broadcast.yaml" >"$tmp/costauto.yaml" &&
	grep -q '^algorithm: auto' "$tmp/costauto.yaml" &&
	"$ccplan" compile --no-cache "$tmp/costauto.yaml" -o "$tmp/cost.ccp" 2>"$tmp/err2" &&
	! grep -q 'phases alone' "$tmp/err2" && ok || bad "compile without costs: $(cat "$tmp/err")"

# show refuses a picture it cannot draw from the file's header alone,
# before reading the plan: a file cut after its header says so too
printf 'machine: {topology: mesh, dims: [16, 16]}\ncommunication: {pattern: irregular, generate: {kind: regular, degree: 20, bytes: 8, seed: 1}}\nalgorithm: lp\n' >"$tmp/many.yaml"
"$ccplan" -q compile --no-cache "$tmp/many.yaml" -o "$tmp/many.ccp" &&
	head -c 128 "$tmp/many.ccp" >"$tmp/head.ccp" &&
	! "$ccplan" show --all "$tmp/head.ccp" -o "$tmp/many.svg" 2>"$tmp/err" &&
	grep -q 'the plan has 255 phases; every phase in one picture is drawn for up to 64' "$tmp/err" &&
	! "$ccplan" show --phase 999 "$tmp/head.ccp" 2>"$tmp/err2" &&
	grep -q 'phase 999: the plan has' "$tmp/err2" && [ ! -e "$tmp/many.svg" ] && ok ||
	bad "show from the header: $(cat "$tmp/err" "$tmp/err2")"

# show --text follows the locale: ASCII under C, box drawing under UTF-8
"$ccplan" -q compile --no-cache "$here/../examples/mesh16-broadcast.yaml" -o "$tmp/loc.ccp" &&
	LC_ALL=C "$ccplan" -q show --text --phase 0 "$tmp/loc.ccp" >"$tmp/c.txt" &&
	LC_ALL=C.UTF-8 "$ccplan" -q show --text --phase 0 "$tmp/loc.ccp" >"$tmp/u.txt" &&
	! LC_ALL=C grep -q '[^ -~]' "$tmp/c.txt" && LC_ALL=C grep -q '[^ -~]' "$tmp/u.txt" && ok ||
	bad "show --text and the locale"

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
# damage that the open does not read (compile skips PRAGMA quick_check):
# the get meets it, the file is checked, moved aside, and the plan is
# compiled and stored afresh
c9="$tmp/c9/plans.db"
mkdir -p "$tmp/c9" && chmod 700 "$tmp/c9"
"$ccplan" compile --cache "$c9" "$here/good/mesh_bcast.yaml" -o "$tmp/p9b.ccp" 2>/dev/null
pages=$(($(stat -c %s "$c9") / 4096))
dd if=/dev/zero of="$c9" bs=4096 seek=$((pages - 3)) count=2 conv=notrunc 2>/dev/null
"$ccplan" compile --cache "$c9" "$here/good/mesh_bcast.yaml" -o "$tmp/p9c.ccp" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && grep -q 'was damaged' "$tmp/err" && ls "$tmp/c9" | grep -q 'plans.db.corrupt-' &&
	cmp -s "$tmp/p9b.ccp" "$tmp/p9c.ccp" && ok ||
	bad "a damaged page met by a hit: exit $rc, $(cat "$tmp/err")"
n=$("$ccplan" cache --cache "$c9" ls | tail -n +2 | wc -l)
[ "$n" = 1 ] && ok || bad "cache rebuilt after a damaged hit has $n entries"
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
"$ccplan" simulate --links fifo "$tmp/auto.ccp" >"$tmp/s3" &&
	grep -q '(links without virtual channels)' "$tmp/s3" && grep -q 'headers waited for a busy link' "$tmp/s3" &&
	ok || bad "simulate --links fifo: $(cat "$tmp/s3")"
"$ccplan" simulate --links fifi "$tmp/auto.ccp" >/dev/null 2>"$tmp/s4"
[ $? = 2 ] && grep -q "did you mean 'fifo'" "$tmp/s4" && ok || bad "simulate --links fifi: $(cat "$tmp/s4")"
"$ccplan" simulate "$here/../examples/mesh32-edn.yaml" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'alpha' "$tmp/err" && ok || bad "simulate without costs: $(cat "$tmp/err")"

# explain --rank lists one rank's operations
"$ccplan" explain "$here/../examples/mesh16-broadcast.yaml" --rank 136 >"$tmp/r" &&
	grep -q '^rank 136 of 256 (binomial) at (8, 8)' "$tmp/r" && grep -q '^    2  SEND            0    128' "$tmp/r" && ok ||
	bad "explain --rank: $(head -5 "$tmp/r")"
"$ccplan" explain "$here/../examples/mesh16-broadcast.yaml" --rank 256 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "explain --rank out of range"

# 7. the command line's polish
ex="$here/../examples/mesh16-broadcast.yaml"
# every command ends with one line on stderr; stdout is the result alone
"$ccplan" compile --no-cache "$ex" -o "$tmp/b.ccp" >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -qx "ccplan: compile: $ex -> $tmp/b.ccp, binomial, 8 phases (bound 4), 256 ranks, [0-9]*\.[0-9][0-9] s" "$tmp/err" &&
	ok || bad "compile summary: $(cat "$tmp/out" "$tmp/err")"
"$ccplan" compile "$ex" -o "$tmp/b2.ccp" 2>"$tmp/err" && "$ccplan" compile "$ex" -o "$tmp/b2.ccp" 2>"$tmp/err" &&
	grep -q ', 256 ranks, from the cache, [0-9.]* s$' "$tmp/err" && ok || bad "cached compile summary: $(cat "$tmp/err")"
"$ccplan" verify "$tmp/b.ccp" >"$tmp/out" 2>"$tmp/err"
[ "$(wc -l <"$tmp/out")" = 1 ] && grep -q ': ok: binomial' "$tmp/out" &&
	grep -qx "ccplan: verify: $tmp/b.ccp: verified, binomial, 8 phases, 256 ranks, [0-9.]* s" "$tmp/err" &&
	ok || bad "verify summary: $(cat "$tmp/out" "$tmp/err")"
"$ccplan" export --json "$tmp/b.ccp" >"$tmp/out" 2>"$tmp/err" && [ "$(head -c 1 "$tmp/out")" = '{' ] &&
	grep -q "^ccplan: export: $tmp/b.ccp -> stdout, [0-9]* bytes of JSON, " "$tmp/err" && ok ||
	bad "export summary: $(cat "$tmp/err")"
"$ccplan" simulate "$here/../examples/mesh16-auto.yaml" >/dev/null 2>"$tmp/err" &&
	grep -q '^ccplan: simulate: .*: edn, last delivery [0-9.]* us, [0-9]* events, [0-9.]* s$' "$tmp/err" && ok ||
	bad "simulate summary: $(cat "$tmp/err")"
"$ccplan" compare "$here/../examples/mesh16-auto.yaml" >/dev/null 2>"$tmp/err" &&
	grep -q '^ccplan: compare: .*: [0-9]* of [0-9]* algorithms made a verified plan, best [a-z_]*, ' "$tmp/err" &&
	ok || bad "compare summary: $(cat "$tmp/err")"
"$ccplan" cache ls >/dev/null 2>"$tmp/err" && grep -q "^ccplan: cache ls: $CCPLAN_CACHE: [0-9]* entr" "$tmp/err" &&
	ok || bad "cache ls summary: $(cat "$tmp/err")"
"$ccplan" verify "$tmp/short.ccp" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(tail -n 1 "$tmp/err" | sed 's/, [0-9.]* s$//')" = "ccplan: verify: $tmp/short.ccp: exit 2 (bad input)" ] &&
	ok || bad "failed verify summary: $(cat "$tmp/err")"
# help is the point: no summary
for c in compile explain verify export cache compare simulate scan run; do
	"$ccplan" $c --help 2>&1 >/dev/null | grep -q . && bad "$c --help wrote to stderr" || ok
done
"$ccplan" help compile 2>"$tmp/err" | grep -q '^usage: ccplan compile' && [ ! -s "$tmp/err" ] && ok ||
	bad "help compile"
# the help topics: plain text, in 80 columns
for t in input-format plan-format algorithms presets environment exit-status; do
	"$ccplan" help $t >"$tmp/h" 2>&1 && [ "$(wc -l <"$tmp/h")" -gt 5 ] &&
		! awk 'length > 80' "$tmp/h" | grep -q . && ! grep -q '^```\|^| ' "$tmp/h" && ok ||
		bad "help $t: $(head -3 "$tmp/h")"
done
"$ccplan" help input-format | grep -q '^  machine:' && ok || bad "help input-format lacks the example"
"$ccplan" help edn_torus | grep -q '^edn_torus$' && ok || bad "help ALGORITHM"
"$ccplan" --help | grep -q 'Exit status: 0 ok, 1 plan rejected by the verifier, 2 bad input,' && ok ||
	bad "--help lacks the exit statuses"
# suggestions on the command line
"$ccplan" compil x.yaml 2>"$tmp/err"
[ $? = 2 ] && grep -q "^ccplan: unknown command 'compil'; did you mean 'compile'?" "$tmp/err" && ok ||
	bad "unknown command: $(cat "$tmp/err")"
"$ccplan" compile --no-cahce "$ex" 2>"$tmp/err"
[ $? = 2 ] && grep -q "unexpected argument '--no-cahce'; did you mean '--no-cache'?" "$tmp/err" && ok ||
	bad "misspelt option: $(cat "$tmp/err")"
"$ccplan" simulate -barriers "$ex" 2>"$tmp/err"
[ $? = 2 ] && grep -q "did you mean '--barriers'?" "$tmp/err" && ok || bad "one dash: $(cat "$tmp/err")"
"$ccplan" help edn_toru 2>"$tmp/err"
[ $? = 2 ] && grep -q "did you mean 'edn_torus'?" "$tmp/err" && ok || bad "help typo: $(cat "$tmp/err")"
"$ccplan" cache sl 2>"$tmp/err"
[ $? = 2 ] && grep -q "unknown command 'sl'; did you mean 'ls'?" "$tmp/err" && ok || bad "cache typo: $(cat "$tmp/err")"
# options through getopt_long: --opt=value, a missing value named, a bad
# value named, a usage error in one line with a hint, -q, -V
"$ccplan" compile --no-cache --emit=c --name=eq_plan "$ex" -o "$tmp/eq.c" 2>"$tmp/err" &&
	grep -q 'eq_plan' "$tmp/eq.c" && ok || bad "--opt=value: $(cat "$tmp/err")"
"$ccplan" compile --cache="$tmp/eqc/plans.db" --max-memory=64M "$ex" -o "$tmp/eq.ccp" 2>/dev/null &&
	[ -s "$tmp/eqc/plans.db" ] && cmp -s "$tmp/eq.ccp" "$tmp/b.ccp" && ok || bad "--cache=PATH --max-memory=SIZE"
"$ccplan" compile "$ex" -o"$tmp/eq2.ccp" --no-cache 2>/dev/null && cmp -s "$tmp/eq2.ccp" "$tmp/b.ccp" && ok ||
	bad "-oFILE"
# scan and run read their options the same way
printf '#pragma ccplan plan(eqp, "eqp.yaml")\nint eq_x;\n' >"$tmp/eqscan.c"
cp "$ex" "$tmp/eqp.yaml"
"$ccplan" scan --emit=c -o"$tmp/eqscan_plans.c" --symbol=eq_set --yaml-dir="$tmp" "$tmp/eqscan.c" 2>"$tmp/err" &&
	grep -q 'eq_set' "$tmp/eqscan_plans.c" && ok || bad "scan --opt=value: $(cat "$tmp/err")"
"$ccplan" scan --cache="$tmp/eqscan/plans.db" "$tmp/eqscan.c" 2>"$tmp/err" && [ -s "$tmp/eqscan/plans.db" ] && ok ||
	bad "scan --cache=PATH: $(cat "$tmp/err")"
out=$("$ccplan" run -n2 --timeout=5 sh -c 'echo "$CCPLAN_RANK $CCPLAN_TIMEOUT_MS"' 2>"$tmp/err" | sort | tr '\n' ' ')
[ "$out" = "0 5000 1 5000 " ] && ok || bad "run --timeout=S: $out $(cat "$tmp/err")"
out=$("$ccplan" run -np 2 -- sh -c 'echo $CCPLAN_RANK' 2>"$tmp/err" | sort | tr '\n' ' ')
[ "$out" = "0 1 " ] && ok || bad "run -np N -- PROGRAM: $out $(cat "$tmp/err")"
printf 'bytes,t\n0,25\n1000,35\n2000,45\n' >"$tmp/pp.csv"
"$ccplan" tau fit --columns=bytes,t --unit=ms --brief "$tmp/pp.csv" >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^T_s   25000 us' "$tmp/out" && ok || bad "tau fit --opt=value: $(cat "$tmp/out" "$tmp/err")"
# tau fit --costs: the real 4-rank bench file tests/cli/tau-bench4.csv
# against its expected stdout (tau-bench4.costs), and a bench file from
# before the phase_combine column against the first line of its error and
# its exit status (tau-old-columns.msg).  Run from tests/cli, so that the
# messages name the files as typed.  After a deliberate change of the
# output: (cd tests/cli && ../../build/ccplan -q tau fit --costs
# tau-bench4.csv >tau-bench4.costs), and read the diff.
(cd "$here/cli" && "$ccplan" -q tau fit --costs tau-bench4.csv) >"$tmp/out" 2>"$tmp/err" &&
	diff -u "$here/cli/tau-bench4.costs" "$tmp/out" >"$tmp/diff" && ok ||
	bad "tau fit --costs tau-bench4.csv: $(cat "$tmp/diff" "$tmp/err")"
(cd "$here/cli" && "$ccplan" tau fit --costs tau-old-columns.csv) >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = "$(sed -n 's/^exit: //p' "$here/cli/tau-old-columns.msg")" ] && [ ! -s "$tmp/out" ] &&
	[ "$(head -n 1 "$tmp/err")" = "$(head -n 1 "$here/cli/tau-old-columns.msg")" ] && ok ||
	bad "tau fit --costs tau-old-columns.csv: exit $rc: $(cat "$tmp/err")"
# tau fit reads osu_latency's output as it is, fits relative errors (T_s
# near the short messages' 1.6 us, where ordinary least squares gives
# 4.7) and prints a cost block; a bandwidth table is refused at its header
(cd "$here/cli" && "$ccplan" tau fit --brief osu-latency.txt) >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^osu-latency.txt: 23 samples, 23 message lengths, least squares (001 §5.2) of relative errors' "$tmp/out" &&
	grep -q '^T_s   1\.8[0-9]* us' "$tmp/out" &&
	grep -q '^  cost: {alpha: 1\.8[0-9]*, beta: 0\.000387[0-9]*, hop: 0, gamma: 0, tau: 1\.8[0-9]*, phi: 0\.000387[0-9]*}$' "$tmp/out" &&
	ok || bad "tau fit of osu_latency output: $(cat "$tmp/out" "$tmp/err")"
(cd "$here/cli" && "$ccplan" tau fit --brief --weight uniform osu-latency.txt) >"$tmp/out" 2>/dev/null &&
	grep -q '^T_s   4\.7[0-9]* us' "$tmp/out" && ok || bad "tau fit --weight uniform: $(cat "$tmp/out")"
(cd "$here/cli" && "$ccplan" tau fit osu-bw.txt) >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q '^osu-bw.txt:2:1: these are bandwidths (osu_bw, osu_bibw); the fit needs one-way latencies: run osu_latency$' "$tmp/err" &&
	ok || bad "tau fit of osu_bw output: $(cat "$tmp/err")"
"$ccplan" tau plot --machines=t3d-max --point=t3d-max -o"$tmp/tau.svg" >/dev/null 2>"$tmp/err" &&
	grep -q '<svg' "$tmp/tau.svg" && ok || bad "tau plot --opt=value: $(cat "$tmp/err")"
# each row: the arguments, then (after |) the one line expected on stderr
# before the summary, with exit status 2 (a usage error: one line and a
# hint, not the whole help)
while IFS='|' read -r args want; do
	eval "set -- $args"
	"$ccplan" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] && [ "$(wc -l <"$tmp/err")" = 2 ] && ok ||
		bad "ccplan $args: exit $rc: $(cat "$tmp/err")"
done <<'EOF'
compile "$ex" -o|ccplan compile: option '-o' needs a file name; try 'ccplan compile --help'
explain "$ex" --rank|ccplan explain: option '--rank' needs a rank number; try 'ccplan explain --help'
cache gc --older-than|ccplan cache: option '--older-than' needs a duration, such as 30d; try 'ccplan cache --help'
compile "$ex" --emit cpp -o "$tmp/cpp.out"|ccplan compile: --emit: unknown format 'cpp'; expected ccp or c
compile "$ex" --emit=cpp|ccplan compile: --emit: unknown format 'cpp'; expected ccp or c
explain "$ex" --summary=yes|ccplan explain: option '--summary' takes no value; try 'ccplan explain --help'
compile|ccplan compile: missing IN.yaml; try 'ccplan compile --help'
verify one.ccp two.ccp|ccplan verify: unexpected argument 'two.ccp'; try 'ccplan verify --help'
compile --frobnicate "$ex"|ccplan compile: unexpected argument '--frobnicate'; try 'ccplan compile --help'
compile --no-cahce "$ex"|ccplan compile: unexpected argument '--no-cahce'; did you mean '--no-cache'? ('ccplan compile --help' lists the options)
show --a "$ex"|ccplan show: option '--a' is ambiguous; try 'ccplan show --help'
cache show|ccplan cache: show: missing KEY; try 'ccplan cache --help'
export "$ex"|ccplan export: missing --json, the format; try 'ccplan export --help'
scan "$tmp/eqscan.c" --emit|ccplan scan: option '--emit' needs a format (c); try 'ccplan scan --help'
scan "$tmp/eqscan.c" --yaml-dir|ccplan scan: option '--yaml-dir' needs a directory; try 'ccplan scan --help'
scan --emit=cpp "$tmp/eqscan.c"|ccplan scan: --emit: unknown format 'cpp'; expected c
scan --emit c "$tmp/eqscan.c"|ccplan scan: --emit c needs -o OUT.c; try 'ccplan scan --help'
scan -- -DX|ccplan scan: no source files; try 'ccplan scan --help'
run -n|ccplan run: option '-n' needs a number of ranks; try 'ccplan run --help'
run -n 2 --timeout|ccplan run: option '--timeout' needs a number of seconds; try 'ccplan run --help'
run --frob -n 2 true|ccplan run: unexpected argument '--frob'; try 'ccplan run --help'
run -n 2|ccplan run: no program to run; try 'ccplan run --help'
run true|ccplan run: -n N is required; try 'ccplan run --help'
tau|ccplan tau: missing fit or plot; try 'ccplan tau --help'
tau fit|ccplan tau fit: missing FILE.csv; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --unit|ccplan tau fit: option '--unit' needs a unit: us, ns, ms or s; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --weight|ccplan tau fit: option '--weight' needs relative or uniform; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --costs --weight uniform|ccplan tau fit: --costs fits relative errors always; it takes no --weight; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --brief=yes|ccplan tau fit: option '--brief' takes no value; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --costs --columns=bytes,t|ccplan tau fit: --costs fits the bench's columns; it takes no --columns; try 'ccplan tau fit --help'
tau fit "$tmp/pp.csv" --variant=s1-nb|ccplan tau fit: --variant is for --costs; try 'ccplan tau fit --help'
tau plot --point cm5-cmmd -o|ccplan tau plot: option '-o' needs a file name; try 'ccplan tau plot --help'
tau plot -o "$tmp/x.svg" extra|ccplan tau plot: unexpected argument 'extra'; try 'ccplan tau plot --help'
EOF
[ ! -e "$tmp/cpp.out" ] && ok || bad "compile --emit cpp wrote its output"
# -q: no summary line, on success and on failure; before the command too
"$ccplan" compile -q --no-cache "$ex" -o "$tmp/q.ccp" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/q.ccp" ] &&
	[ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ] && ok || bad "compile -q: $(cat "$tmp/err")"
"$ccplan" verify --quiet "$tmp/q.ccp" >"$tmp/out" 2>"$tmp/err" && grep -q ': ok: binomial' "$tmp/out" &&
	[ ! -s "$tmp/err" ] && ok || bad "verify --quiet: $(cat "$tmp/err")"
"$ccplan" -q verify "$tmp/short.ccp" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'truncated plan' "$tmp/err" && ok ||
	bad "ccplan -q verify of a bad plan: $(cat "$tmp/err")"
"$ccplan" -q scan --help >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok || bad "ccplan -q scan --help"
# -V and --version: the project's version (CMakeLists.txt), no summary
version=$(sed -n 's/^project(ccplan VERSION \([0-9.]*\) .*/\1/p' "$here/../CMakeLists.txt")
for args in -V --version "compile -V" "simulate --version" "cache -V"; do
	"$ccplan" $args >"$tmp/out" 2>"$tmp/err"
	[ $? = 0 ] && [ -n "$version" ] && grep -qx "ccplan $version (plan format [0-9]*)" "$tmp/out" && [ ! -s "$tmp/err" ] &&
		ok || bad "ccplan $args: $(cat "$tmp/out" "$tmp/err")"
done
# the table of commands, which help, completion and the man page follow
"$ccplan" --list-commands >"$tmp/table" && [ "$(wc -l <"$tmp/table")" -ge 12 ] && ok || bad "--list-commands"
# the man page renders without a warning
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww "$here/../docs/ccplan.1" 2>"$tmp/err" | sed 's/.\x08//g' >"$tmp/man"
	[ ! -s "$tmp/err" ] && grep -q 'EXIT STATUS' "$tmp/man" && grep -q 'CCPLAN_TIMEOUT_MS' "$tmp/man" && ok ||
		bad "man page: $(head -5 "$tmp/err")"
	for c in compile explain verify export show compare simulate tau cache scan run help; do
		grep -q "^       $c" "$tmp/man" || bad "the man page does not describe $c"
	done
	# the man page follows the table of commands (ccplan --list-commands):
	# its synopsis names exactly the table's commands, and it describes
	# every command's and subcommand's options (rendered without
	# hyphenation, on long lines, so that no option is split)
	awk '$1 !~ /:/ { print $1 }' "$tmp/table" | sort >"$tmp/cmds"
	awk '/^\.SY ccplan/ { getline; if ($1 == ".B" && $2 ~ /^[a-z]/) print $2 }' "$here/../docs/ccplan.1" | sort -u >"$tmp/syn"
	[ "$(wc -l <"$tmp/cmds")" -ge 12 ] && cmp -s "$tmp/cmds" "$tmp/syn" && ok ||
		bad "the man page's synopsis is not the table's commands: $(diff "$tmp/cmds" "$tmp/syn" | tr '\n' ' ')"
	groff -man -Tutf8 -rHY=0 -rLL=300n "$here/../docs/ccplan.1" 2>/dev/null | sed 's/.\x08//g' >"$tmp/manw"
	while read -r name opts; do
		for o in $opts; do
			grep -q -- "$o\b" "$tmp/manw" && ok || bad "the man page does not describe ${name/:/ } $o"
		done
	done <"$tmp/table"
fi
# every command of the table is in ccplan --help and has its own --help
for c in $(awk '$1 !~ /:/ { print $1 }' "$tmp/table"); do
	"$ccplan" --help | grep -q "^  $c " && ok || bad "ccplan --help does not list $c"
	[ "$c" = help ] || { "$ccplan" help $c 2>/dev/null | grep -q "^usage: ccplan $c" && ok || bad "ccplan help $c"; }
done
# bash completion: source it, set COMP_WORDS, call the function
complete_words() { # WORD... -> the completions of the last word, sorted
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_ccplan; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$here/../completions/ccplan.bash" "$@"
}
mkdir -p "$tmp/comp/sub"
touch "$tmp/comp/a.yaml" "$tmp/comp/b.ccp" "$tmp/comp/c.c" "$tmp/comp/d.yml"
[ "$(complete_words "$ccplan" com | tr '\n' ' ')" = "compare compile " ] && ok || bad "complete commands"
[ "$(complete_words "$ccplan" compile --no | tr '\n' ' ')" = "--no-cache " ] && ok || bad "complete options"
[ "$(complete_words "$ccplan" compile "$tmp/comp/" | tr '\n' ' ')" = "$tmp/comp/a.yaml $tmp/comp/d.yml $tmp/comp/sub " ] &&
	ok || bad "complete .yaml: $(complete_words "$ccplan" compile "$tmp/comp/")"
[ "$(complete_words "$ccplan" verify "$tmp/comp/" | tr '\n' ' ')" = "$tmp/comp/b.ccp $tmp/comp/sub " ] &&
	ok || bad "complete .ccp: $(complete_words "$ccplan" verify "$tmp/comp/")"
[ "$(complete_words "$ccplan" help edn_t | tr '\n' ' ')" = "edn_torus edn_transpose " ] && ok ||
	bad "complete algorithms: $(complete_words "$ccplan" help edn_t)"
[ "$(complete_words "$ccplan" compile x.yaml --emit "" | tr '\n' ' ')" = "c ccp " ] && ok || bad "complete --emit"
[ "$(complete_words "$ccplan" cache --cache "$c8" "" | tr '\n' ' ')" = "export gc ls path rm show " ] && ok ||
	bad "complete cache commands"
[ "$(complete_words "$ccplan" tau plot --params t3e | tr '\n' ' ')" = "t3e " ] && ok || bad "complete presets"
# commands, subcommands and options come from the table of commands
[ "$(complete_words "$ccplan" "" | grep -v '^-' | tr '\n' ' ')" = "$(awk '$1 !~ /:/ { print $1 }' "$tmp/table" | sort | tr '\n' ' ')" ] &&
	ok || bad "complete commands: $(complete_words "$ccplan" "" | tr '\n' ' ')"
[ "$(complete_words "$ccplan" tau "" | tr '\n' ' ')" = "--help fit plot " ] && ok || bad "complete tau: $(complete_words "$ccplan" tau "")"
[ "$(complete_words "$ccplan" tau fit --b | tr '\n' ' ')" = "--brief " ] && ok || bad "complete tau fit --b"
[ "$(complete_words "$ccplan" cache gc --o | tr '\n' ' ')" = "--older-than " ] && ok || bad "complete cache gc --o"
[ "$(complete_words "$ccplan" simulate -- | tr '\n' ' ')" = "--barriers --half-duplex --help --json --links " ] && ok ||
	bad "complete simulate options: $(complete_words "$ccplan" simulate --)"
n=$(complete_words "$ccplan" help "" | wc -l)
[ "$n" -gt 40 ] && ok || bad "complete help: $n words"
bash -c 'source "$1" && complete -p ccplan' _ "$here/../completions/ccplan.bash" | grep -q -- '-F _ccplan ccplan' &&
	ok || bad "completion not registered"

# compare --svg (the latency plot) and explain --html (the report)
auto="$here/../examples/mesh16-auto.yaml"
"$ccplan" compare "$auto" --svg "$tmp/lat.svg" >"$tmp/cmp2" 2>/dev/null
[ $? = 0 ] && head -1 "$tmp/cmp2" | grep -q '^#   algorithm' && head -c 5 "$tmp/lat.svg" | grep -q '<?xml' &&
	[ "$(grep -c '<g class="series' "$tmp/lat.svg")" = 10 ] && grep -q '<g class="vline">' "$tmp/lat.svg" &&
	grep -q 'simulated time' "$tmp/lat.svg" && grep -q '</svg>' "$tmp/lat.svg" && ok ||
	bad "compare --svg: $(head -c 300 "$tmp/lat.svg")"
"$ccplan" compare --model "$auto" --svg "$tmp/latm.svg" --sizes 64:4K >/dev/null 2>&1 &&
	grep -q 'predicted time, unicast model' "$tmp/latm.svg" && grep -q 'at 7 sizes from 64 to 4096 bytes' "$tmp/latm.svg" &&
	ok || bad "compare --model --sizes: $(grep -o '<desc>[^<]*' "$tmp/latm.svg")"
for s in 64 4K:64 0:8 8:2G 1:16M; do
	"$ccplan" compare "$auto" --svg "$tmp/no.svg" --sizes "$s" >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && [ ! -e "$tmp/no.svg" ] && grep -q -- "--sizes '$s'" "$tmp/err" && ok || bad "--sizes $s: $(cat "$tmp/err")"
done
"$ccplan" compare "$here/../examples/mesh32-edn.yaml" --svg "$tmp/no.svg" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/no.svg" ] && grep -q 'no time at any size.*alpha' "$tmp/err" && ok ||
	bad "compare --svg without costs: $(cat "$tmp/err")"
"$ccplan" compare "$here/../examples/ipsc-irregular.yaml" --svg "$tmp/no.svg" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/no.svg" ] && grep -q 'irregular pattern has no message size' "$tmp/err" && ok ||
	bad "compare --svg of an irregular pattern: $(cat "$tmp/err")"
"$ccplan" compare "$auto" --svg /proc/no/such/dir/x.svg >/dev/null 2>"$tmp/err"
[ $? = 3 ] && ok || bad "compare --svg to an unwritable place: $(cat "$tmp/err")"
"$ccplan" explain "$auto" --html "$tmp/r.html" >"$tmp/out" 2>/dev/null
[ $? = 0 ] && [ ! -s "$tmp/out" ] && head -1 "$tmp/r.html" | grep -q '^<!DOCTYPE html>' &&
	grep -q '<pre>plan ' "$tmp/r.html" && grep -q '<h2 id="phases">' "$tmp/r.html" &&
	grep -q '<tr class="this"><td>1</td><td class="l">edn</td>' "$tmp/r.html" && grep -q 'id="lat-root"' "$tmp/r.html" &&
	! grep -qi '<script\|src="http\|<?xml' "$tmp/r.html" && tail -1 "$tmp/r.html" | grep -q '^</html>' && ok ||
	bad "explain --html: $(head -c 300 "$tmp/r.html")"
"$ccplan" compile --no-cache "$auto" -o "$tmp/auto2.ccp" 2>/dev/null &&
	"$ccplan" explain "$tmp/auto2.ccp" --html "$tmp/r2.html" 2>/dev/null && grep -q '<h2 id="phases">' "$tmp/r2.html" &&
	! grep -q 'id="compare"' "$tmp/r2.html" && ok || bad "explain --html of a .ccp"
"$ccplan" explain "$auto" --html "$tmp/r3.html" --rank 3 >/dev/null 2>&1
[ $? = 2 ] && [ ! -e "$tmp/r3.html" ] && ok || bad "explain --html --rank accepted"
"$ccplan" explain "$auto" --html /proc/no/such/dir/r.html >/dev/null 2>&1
[ $? = 3 ] && ok || bad "explain --html to an unwritable place"

# 8. limits on what an input may cost: the memory limit refuses an input
# before anything is built, with the estimate and how to raise it
# (CCPLAN_MAX_MEMORY for every command, compile --max-memory winning); a
# YAML file over 256 MiB is refused by its size before it is read
ex="$here/../examples/mesh16-broadcast.yaml"
for c in compile explain compare export; do
	CCPLAN_MAX_MEMORY=1M "$ccplan" $c "$ex" $([ $c = export ] && echo --json) \
		$([ $c = compile ] && echo "--no-cache -o $tmp/lim.ccp") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ ! -e "$tmp/lim.ccp" ] && [ ! -s "$tmp/out" ] &&
		grep -q "^$ex: this input would need about [0-9.]* [KMG]iB of memory to compile (.*), more than the limit of 1 MiB; to go ahead, raise the limit: CCPLAN_MAX_MEMORY=SIZE, or ccplan compile --max-memory SIZE" "$tmp/err" &&
		ok || bad "$c under CCPLAN_MAX_MEMORY=1M: exit $rc: $(head -c 300 "$tmp/err")"
done
CCPLAN_MAX_MEMORY=1M "$ccplan" compile "$ex" --no-cache -o "$tmp/lim.ccp" --max-memory 64M 2>"$tmp/err" &&
	[ -s "$tmp/lim.ccp" ] && ok || bad "--max-memory 64M over CCPLAN_MAX_MEMORY=1M: $(cat "$tmp/err")"
CCPLAN_MAX_MEMORY=64M "$ccplan" explain "$ex" >/dev/null 2>&1 && ok || bad "explain under CCPLAN_MAX_MEMORY=64M"
CCPLAN_MAX_MEMORY=lots "$ccplan" compile "$ex" --no-cache -o "$tmp/lim2.ccp" 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/lim2.ccp" ] &&
	grep -q "^ccplan: CCPLAN_MAX_MEMORY 'lots': want a size of memory, such as 512M or 16G$" "$tmp/err" && ok ||
	bad "CCPLAN_MAX_MEMORY=lots: $(cat "$tmp/err")"
"$ccplan" compile "$ex" --no-cache -o "$tmp/lim2.ccp" --max-memory 0 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/lim2.ccp" ] &&
	grep -q "^ccplan compile: --max-memory '0': want a size of memory" "$tmp/err" && ok ||
	bad "--max-memory 0: $(cat "$tmp/err")"
truncate -s 268435457 "$tmp/huge.yaml"
"$ccplan" compile "$tmp/huge.yaml" -o "$tmp/huge.ccp" 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/huge.ccp" ] &&
	grep -q "^$tmp/huge.yaml: input too large: more than 256 MiB of YAML$" "$tmp/err" && ok ||
	bad "a 257 MiB YAML file: $(cat "$tmp/err")"

# 9. import slurm (docs/slurm.md): the worked example's topology.conf
# gives examples/slurm/machine.yaml byte for byte, on stdout and with -o;
# the fat-tree job of the example, named hosts placed by a Slurm node list,
# compiles and verifies; a machine read back from the import and placed by
# $SLURM_JOB_NODELIST compiles once the graph topology is there; a bad
# topology.conf is refused at file:line:column (tests/cli/slurm-*.conf
# against the first line and status of their .msg), and with -o nothing is
# written, an older file left whole.  After a deliberate change of the
# output: (cd examples/slurm && ../../build/ccplan -q import slurm
# topology.conf >machine.yaml), and read the diff.
slurm="$here/../examples/slurm"
(cd "$slurm" && "$ccplan" -q import slurm topology.conf) >"$tmp/out" 2>"$tmp/err" &&
	diff -u "$slurm/machine.yaml" "$tmp/out" >"$tmp/diff" && [ ! -s "$tmp/err" ] && ok ||
	bad "import slurm topology.conf: $(cat "$tmp/diff" "$tmp/err")"
(cd "$slurm" && "$ccplan" import slurm topology.conf -o "$tmp/machine.yaml") >"$tmp/out" 2>"$tmp/err" &&
	cmp -s "$slurm/machine.yaml" "$tmp/machine.yaml" && [ ! -s "$tmp/out" ] &&
	grep -q "^ccplan: import slurm: topology.conf -> $tmp/machine.yaml, " "$tmp/err" && ok ||
	bad "import slurm -o: $(cat "$tmp/err")"
# topology.yaml of the same cluster: the same machine but the comment
(cd "$slurm" && "$ccplan" -q import slurm topology.yaml) >"$tmp/out" 2>"$tmp/err" &&
	sed 1d "$tmp/out" | diff -u <(sed 1d "$slurm/machine.yaml") - >"$tmp/diff" &&
	head -n 1 "$tmp/out" | grep -q "^# from topology.yaml by ccplan import slurm" && ok ||
	bad "import slurm topology.yaml: $(cat "$tmp/diff" "$tmp/err")"
"$ccplan" compile --no-cache "$slurm/job-fat-tree.yaml" -o "$tmp/job-ft.ccp" 2>"$tmp/err" &&
	"$ccplan" verify "$tmp/job-ft.ccp" >/dev/null 2>&1 && ok || bad "examples/slurm/job-fat-tree.yaml: $(cat "$tmp/err")"
if "$ccplan" help input-format | grep -q '^  topology .*graph'; then
	# the recipe of docs/slurm.md, as a job script runs it
	(cd "$tmp" && export SLURM_JOB_NODELIST='node[01-16]' && {
		cat machine.yaml
		echo "  placement: {nodes: \"$SLURM_JOB_NODELIST\"}"
		echo "communication: {collective: allreduce, bytes: 65536, dtype: double, op: sum}"
	} >job.yaml && "$ccplan" compile --no-cache job.yaml -o job.ccp) 2>"$tmp/err" &&
		"$ccplan" verify "$tmp/job.ccp" >/dev/null 2>&1 && ok || bad "the graph job of docs/slurm.md: $(cat "$tmp/err")"
	# a job on 4 of the 16 nodes: the plan is for its 4 x 4 ranks
	"$ccplan" compile --no-cache "$slurm/job-part.yaml" -o "$tmp/part.ccp" 2>"$tmp/err" &&
		"$ccplan" verify "$tmp/part.ccp" >"$tmp/out" 2>&1 && grep -q ", 16 ranks, " "$tmp/out" &&
		"$ccplan" explain "$tmp/part.ccp" 2>&1 | grep -q "graph of 4 hosts (a job's part), 17 switches, 20 cables" &&
		ok || bad "examples/slurm/job-part.yaml: $(cat "$tmp/err" "$tmp/out")"
fi
printf 'old\n' >"$tmp/kept.yaml"
for conf in "$here"/cli/slurm-*.conf; do
	name=$(basename "$conf" .conf)
	(cd "$here/cli" && "$ccplan" import slurm "$name.conf" -o "$tmp/kept.yaml") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$(sed -n 's/^exit: //p' "$here/cli/$name.msg")" ] && [ ! -s "$tmp/out" ] &&
		[ "$(head -n 1 "$tmp/err")" = "$(head -n 1 "$here/cli/$name.msg")" ] &&
		[ "$(cat "$tmp/kept.yaml")" = old ] && ok || bad "import slurm $name.conf: exit $rc: $(cat "$tmp/err")"
done
while IFS='|' read -r args want; do
	eval "set -- $args"
	"$ccplan" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(head -n 1 "$tmp/err")" = "$(eval "echo \"$want\"")" ] && ok ||
		bad "ccplan $args: exit $rc: $(cat "$tmp/err")"
done <<'EOF'
import|ccplan import: missing FORMAT: slurm; try 'ccplan import --help'
import slurmm x.conf|ccplan import: unknown format 'slurmm'; did you mean 'slurm'?
import slurm|ccplan import: slurm: missing TOPOLOGY.conf; try 'ccplan import --help'
import slurm a.conf b.conf|ccplan import: unexpected argument 'b.conf'; try 'ccplan import --help'
import slurm "$tmp/no-such.conf"|$tmp/no-such.conf: cannot open: No such file or directory
place|ccplan place: missing IN.yaml; try 'ccplan place --help'
place "$tmp/place.yaml" --format csv|ccplan place: unknown format 'csv'; expected perm, rankfile, slurm or yaml; try 'ccplan place --help'
place "$tmp/place.yaml" --seed x|ccplan place: --seed: 'x' is not a number; try 'ccplan place --help'
EOF

# 10. place (docs/placement.md): a pattern on a mesh of two ranks per node,
# placed cyclically by the input; place's map, read back as a placement
# file and as the input it writes, compiles to a plan of fewer phases, and
# its rankfile and Slurm host file name the machine's hosts; errors leave
# -o's file as it was
cat >"$tmp/place.yaml" <<'EOF'
machine:
  topology: mesh
  dims: [4, 4]
  ranks_per_node: 2
  hosts: "n[0-15]"
  placement: cyclic
communication:
  pattern: irregular
  generate: {kind: regular, degree: 4, bytes: 64, seed: 3}
algorithm: link_aware
EOF
phases_of() { sed -n 's/.*, \([0-9]*\) phases (bound.*/\1/p' "$1"; }
"$ccplan" compile --no-cache "$tmp/place.yaml" -o "$tmp/place0.ccp" 2>"$tmp/err0" &&
	"$ccplan" place "$tmp/place.yaml" -o "$tmp/place.txt" 2>"$tmp/err" &&
	grep -q "phase bound 10 -> 7" "$tmp/err" &&
	[ "$(grep -cv '^#' "$tmp/place.txt")" = 32 ] && ok || bad "place: $(cat "$tmp/err")"
sed 's/placement: cyclic/placement: {file: place.txt}/' "$tmp/place.yaml" >"$tmp/placed-file.yaml"
"$ccplan" compile --no-cache "$tmp/placed-file.yaml" -o "$tmp/place1.ccp" 2>"$tmp/err1" &&
	[ "$(phases_of "$tmp/err1")" -lt "$(phases_of "$tmp/err0")" ] && ok ||
	bad "place: the placement file compiles to fewer phases: $(cat "$tmp/err0" "$tmp/err1")"
"$ccplan" place "$tmp/place.yaml" --format yaml -o "$tmp/placed.yaml" 2>"$tmp/err" &&
	"$ccplan" compile --no-cache "$tmp/placed.yaml" -o "$tmp/place2.ccp" 2>"$tmp/err2" &&
	[ "$(phases_of "$tmp/err2")" = "$(phases_of "$tmp/err1")" ] &&
	[ "$(grep -c 'placement:' "$tmp/placed.yaml")" = 1 ] && ok ||
	bad "place --format yaml: $(cat "$tmp/err" "$tmp/err2")"
"$ccplan" place -q "$tmp/place.yaml" --format rankfile >"$tmp/out" 2>"$tmp/err" &&
	[ "$(sed -n 1p "$tmp/out")" = "rank 0=n$(grep -v '^#' "$tmp/place.txt" | sed -n 1p) slot=0" ] &&
	[ "$(wc -l <"$tmp/out")" = 32 ] && [ ! -s "$tmp/err" ] && ok || bad "place --format rankfile: $(cat "$tmp/err")"
"$ccplan" place -q "$tmp/place.yaml" --format slurm >"$tmp/out" 2>"$tmp/err" &&
	[ "$(grep -v '^#' "$tmp/place.txt" | sed 's/^/n/')" = "$(cat "$tmp/out")" ] && ok ||
	bad "place --format slurm: $(cat "$tmp/err")"
# the same seed, the same map
"$ccplan" place -q "$tmp/place.yaml" --seed 7 >"$tmp/a" && "$ccplan" place -q "$tmp/place.yaml" --seed 7 >"$tmp/b" &&
	cmp -s "$tmp/a" "$tmp/b" && ok || bad "place --seed: not the same map twice"
printf 'old\n' >"$tmp/kept.txt"
sed '/hosts:/d' "$tmp/place.yaml" >"$tmp/nohosts.yaml"
"$ccplan" place "$tmp/nohosts.yaml" --format rankfile -o "$tmp/kept.txt" 2>"$tmp/err"
[ $? = 2 ] && grep -q "needs the machine's node names" "$tmp/err" && [ "$(cat "$tmp/kept.txt")" = old ] && ok ||
	bad "place --format rankfile without hosts: $(cat "$tmp/err")"
(cd "$here/bad" && "$ccplan" place placement_file_place_edited.yaml -o "$tmp/kept.txt") 2>"$tmp/err"
[ $? = 2 ] && grep -q "^placement_file_place_edited.txt:8:1: rank 5 is placed on node 2" "$tmp/err" &&
	[ "$(cat "$tmp/kept.txt")" = old ] && ok || bad "place of a bad placement file: $(cat "$tmp/err")"
"$ccplan" place "$here/../examples/mesh16-broadcast.yaml" -o "$tmp/kept.txt" 2>"$tmp/err"
[ $? = 2 ] && grep -q "place needs a communication matrix" "$tmp/err" && [ "$(cat "$tmp/kept.txt")" = old ] && ok ||
	bad "place of a broadcast: $(cat "$tmp/err")"
# a job's part (placement: {nodes: ...} naming some hosts): its hosts by
# name only, since a map cannot stand beside the node list
{ sed -n '/^machine:/,/^  cost:/p' "$here/../examples/slurm/job-part.yaml"
  printf 'communication:\n  pattern: irregular\n  generate: {kind: regular, degree: 5, bytes: 64, seed: 3}\n'; } >"$tmp/part.yaml"
"$ccplan" place -q "$tmp/part.yaml" --format slurm >"$tmp/out" 2>"$tmp/err" && [ "$(wc -l <"$tmp/out")" = 16 ] &&
	[ "$(sort -u "$tmp/out" | tr '\n' ' ')" = "node02 node05 node09 node16 " ] && ok ||
	bad "place --format slurm of a job's part: $(cat "$tmp/err")"
"$ccplan" place "$tmp/part.yaml" --format yaml -o "$tmp/kept.txt" 2>"$tmp/err"
[ $? = 2 ] && grep -q "the machine is a job's part" "$tmp/err" && [ "$(cat "$tmp/kept.txt")" = old ] && ok ||
	bad "place --format yaml of a job's part: $(cat "$tmp/err")"
printf 'machine: {topology: mesh, dims: [4, 4], ranks_per_node: 2}\ncommunication:\n  pattern: irregular\n  generate: {kind: regular, degree: 4, bytes: 64, seed: 3}\n' >"$tmp/flow.yaml"
"$ccplan" place "$tmp/flow.yaml" --format yaml -o "$tmp/kept.txt" 2>"$tmp/err"
[ $? = 2 ] && grep -q "flow.yaml:1:10: machine: written inline" "$tmp/err" && [ "$(cat "$tmp/kept.txt")" = old ] && ok ||
	bad "place --format yaml of an inline machine: $(cat "$tmp/err")"

# ---- show: pictures at scale and for every pattern (issue 21) ----------
# a switch alltoall is drawn as a matrix (no arrows), --arrows brings the
# arrows back, --arrows with --text is refused; a broadcast marks its
# phase's receivers (got, and @ in ASCII); text of every phase is refused
# above 256 phases from the header alone; compare's plot dashes a curve
# that hides another
sw="$here/browser/switch16-alltoall.yaml"
"$ccplan" -q show "$sw" --phase 1 -o "$tmp/sw.svg" &&
	grep -q 'class="matrix"[^>]*data-n="16"' "$tmp/sw.svg" && ! grep -q 'class="hop' "$tmp/sw.svg" &&
	"$ccplan" -q show "$sw" --phase 1 --arrows -o "$tmp/swa.svg" &&
	grep -q 'class="hop' "$tmp/swa.svg" && ! grep -q 'class="matrix"' "$tmp/swa.svg" && ok ||
	bad "show of a switch alltoall: a matrix, --arrows: arrows"
"$ccplan" show "$sw" --arrows --text >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q -- '--arrows is for the SVG picture' "$tmp/err" && [ ! -s "$tmp/out" ] && ok ||
	bad "show --arrows --text: $(cat "$tmp/err")"
"$ccplan" -q show "$here/../examples/mesh16-broadcast.yaml" --phase 1 -o "$tmp/got.svg" &&
	[ "$(grep -c '<circle class="rank held got' "$tmp/got.svg")" -ge 1 ] &&
	LC_ALL=C "$ccplan" -q show "$here/../examples/mesh16-broadcast.yaml" --phase 1 --text >"$tmp/got.txt" &&
	grep -q '@ received in this phase, # held data before' "$tmp/got.txt" && ok ||
	bad "show: the phase's receivers marked"
printf 'machine: {topology: mesh, dims: [32, 16]}\ncommunication: {pattern: irregular, generate: {kind: regular, degree: 4, bytes: 8, seed: 1}}\nalgorithm: lp\n' >"$tmp/many2.yaml"
"$ccplan" -q compile --no-cache "$tmp/many2.yaml" -o "$tmp/many2.ccp" &&
	head -c 128 "$tmp/many2.ccp" >"$tmp/head2.ccp" &&
	! "$ccplan" show --text "$tmp/head2.ccp" >"$tmp/out" 2>"$tmp/err" &&
	grep -q 'every phase as text is drawn for up to 256: give --phase K' "$tmp/err" && [ ! -s "$tmp/out" ] && ok ||
	bad "show --text of too many phases, from the header: $(cat "$tmp/err")"
"$ccplan" -q compare "$here/../examples/mesh16-auto.yaml" --svg "$tmp/same.svg" >/dev/null &&
	grep -q 'fibonacci<tspan class="same-as"> = rd</tspan>' "$tmp/same.svg" &&
	[ "$(grep -c '<g class="series same">' "$tmp/same.svg")" = 1 ] && ok ||
	bad "compare --svg: fibonacci's curve, the same as rd's, dashed and named"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
