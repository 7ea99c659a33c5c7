#!/usr/bin/env bash
# sockets_test.sh - the sockets transport and `ccplan run` end to end:
#  collectives  plans of every collective (broadcast, scatter, gather,
#               reduce with several element types and operations,
#               alltoall, transpose, irregular matrices with empty rows and
#               columns; node-aware collectives and exchange on nodes of
#               two ranks), zero-byte messages and large messages,
#               compiled at 2, 4 and 8 ranks (transpose: 4 and 9) and run
#               by sock_collectives under ccplan run: every rank checks
#               every received byte under S2, S1, without barriers, and
#               with NO_CHECK, several executions each;
#  faults       ranks that disagree on the plan (every rank CCP_EMISMATCH),
#               a short buffer (every rank CCP_EBUFFER), one buffer bound
#               as send and receive buffer (every rank CCP_EINVAL, no byte
#               moved), a plan for another size (CCP_EINVAL), and through
#               the test hook
#               CCPLAN_SOCKETS_FAULT: a rank killed mid-run, one rank of 8
#               killed at random phases of two plans (seeded, the seed
#               printed; CCPLAN_FAULT_SEED=N repeats it), a rank stalled
#               past the timeout, a connection closed in the middle of a
#               frame, a wrong plan hash and a wrong length in a frame:
#               every surviving rank must report an error, nothing may
#               hang (each job runs under timeout), and the time the
#               survivors took is printed;
#  launcher     ccplan run itself: environment, exit statuses, bad
#               arguments, a hostfile, SIGTERM forwarding with no process
#               left behind;
#  security     what a local user without the job's key can do, with
#               sock_intruder (built beside SOCK_COLLECTIVES): hold many
#               idle connections to the launcher and to every rank (the
#               job still finishes, every byte right); say hello as rank 0
#               to the launcher and to rank 1 with a wrong key or none
#               (refused, the broadcast byte-exact, each drop reported, a
#               rank's timeout names it); pose as the launcher (the rank
#               never sends the key, and refuses it); read ps and /proc
#               while a hostfile job runs (no key anywhere: ssh gets it
#               on its input).
# Usage: sockets_test.sh CCPLAN SOCK_COLLECTIVES
#        [collectives|faults|launcher|security]... (no part named: all).
set -u
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
prog=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
parts=${*:-collectives faults launcher security launchers}
intruder=$(dirname "$prog")/sock_intruder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CCPLAN_CACHE="$tmp/cache/plans.db" # never the user's own cache
export CCPLAN_CACHE_KEY="$tmp/cache-key" # the key that seals its plans, not the user's
unset CCPLAN_SOCKETS_FAULT CCPLAN_TIMEOUT_MS
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }

# compile NAME: the YAML on stdin -> $tmp/NAME.ccp
compile() {
	cat >"$tmp/$1.yaml"
	if ! "$ccplan" compile "$tmp/$1.yaml" -o "$tmp/$1.ccp" --no-cache \
		2>"$tmp/err"; then
		bad "$1: compile: $(cat "$tmp/err")"
		return 1
	fi
}

# run NAME N [sock_collectives options...]: a job whose every rank must
# pass; prints rank 0's line.
run_ok() {
	local name=$1 n=$2
	shift 2
	local res="$tmp/res-$name"
	rm -rf "$res"
	mkdir -p "$res"
	timeout 120 "$ccplan" run -n "$n" --timeout 20 "$prog" -i 2 \
		--result "$res" "$@" "$tmp/$name.ccp" >"$tmp/out" 2>&1
	local rc=$? good=0
	for ((r = 0; r < n; r++)); do
		grep -q '^rc=0 ' "$res/rank-$r" 2>/dev/null && good=$((good + 1))
	done
	if [ "$rc" = 0 ] && [ "$good" = "$n" ]; then
		ok
		echo "  $name ($n ranks): $(sed -n 's/^rc=0 ms=[0-9]* msg=ok: //p' "$res/rank-0")"
	else
		bad "$name ($n ranks): exit $rc, $good of $n ranks passed:"
		sed 's/^/    /' "$tmp/out" | head -20
	fi
}

# ---- collectives ------------------------------------------------------

collectives() {
	echo "collectives:"
	for n in 2 4 8; do
		half=$((n / 2))
		last=$((n - 1))
		compile bcast$n <<EOF && run_ok bcast$n $n
machine: {topology: switch, ranks: $n}
communication: {collective: broadcast, root: $last, bytes: 10007, segments: 3}
algorithm: auto
EOF
		compile scatter$n <<EOF && run_ok scatter$n $n
machine: {topology: switch, ranks: $n}
communication: {collective: scatter, root: $half, bytes: 1000}
algorithm: auto
EOF
		compile gather$n <<EOF && run_ok gather$n $n
machine: {topology: mesh, dims: [$n]}
communication: {collective: gather, root: $last, bytes: 777}
algorithm: auto
EOF
		compile alltoall$n <<EOF && run_ok alltoall$n $n
machine: {topology: switch, ranks: $n}
communication: {collective: alltoall, bytes: 2048}
algorithm: auto
EOF
	done
	# allgather, reduce_scatter, allreduce: every generator, with
	# vectors the ranks do not divide
	for n in 2 4 8; do
		for alg in ring recursive_doubling bruck; do
			compile allgather_$alg$n <<EOF && run_ok allgather_$alg$n $n
machine: {topology: torus, dims: [$n]}
communication: {collective: allgather, bytes: 1003}
algorithm: $alg
EOF
		done
		for alg in ring recursive_halving; do
			compile rs_$alg$n <<EOF && run_ok rs_$alg$n $n
machine: {topology: switch, ranks: $n}
communication: {collective: reduce_scatter, bytes: $((8 * (3 * n + 1))), dtype: double, op: sum}
algorithm: $alg
EOF
		done
		for alg in ring recursive_doubling rabenseifner; do
			compile ar_$alg$n <<EOF && run_ok ar_$alg$n $n
machine: {topology: mesh, dims: [$n]}
communication: {collective: allreduce, bytes: 4004, dtype: int32, op: sum, reproducible: true}
algorithm: $alg
EOF
		done
		compile bc_chain$n <<EOF && run_ok bc_chain$n $n
machine: {topology: mesh, dims: [$n]}
communication: {collective: broadcast, root: $((n - 1)), bytes: 70001, segments: 5}
algorithm: chain
EOF
		compile rd_chain$n <<EOF && run_ok rd_chain$n $n
machine: {topology: switch, ranks: $n}
communication: {collective: reduce, root: $((n / 2)), bytes: 200000, dtype: int32, op: max}
algorithm: chain
EOF
		for alg in swing swing_latency; do
			compile ar_$alg$n <<EOF && run_ok ar_$alg$n $n
machine: {topology: torus, dims: [$n]}
communication: {collective: allreduce, bytes: 4000, dtype: float, op: max}
algorithm: $alg
EOF
		done
	done
	# node-aware plans: two ranks a node (block, then cyclic), every
	# collective hierarchical takes, roots off the node leaders
	for n in 4 8; do
		for pl in block cyclic; do
			for coll in "broadcast, root: $((n - 1)), bytes: 10007, segments: 3" \
				"reduce, root: $((n - 1)), bytes: 4004, dtype: int32, op: sum" \
				"gather, root: $((n - 1)), bytes: 777" \
				"allreduce, bytes: 4008, dtype: double, op: sum" \
				"allgather, bytes: 1003"; do
				name=hier_${coll%%,*}_$pl$n
				compile $name <<EOF && run_ok $name $n
machine: {topology: mesh, dims: [$((n / 2))], ranks_per_node: 2, placement: $pl}
communication: {collective: $coll}
algorithm: hierarchical
EOF
			done
		done
	done
	# placement maps: the ranks dealt to the nodes by a list, one rank a
	# node and then two; every collective tied to ranks (root, block
	# destinations, the pattern) renamed by sch_generate
	for map in "4 1 2,0,3,1" "4 2 1,0,0,1" "8 1 5,2,7,0,3,6,1,4" \
		"8 2 3,1,0,2,2,0,3,1"; do
		set -- $map
		n=$1 rpn=$2 nodes=$3
		for coll in "collective: broadcast, root: $((n - 1)), bytes: 10007, segments: 3" \
			"collective: reduce, root: 1, bytes: 4004, dtype: int32, op: sum" \
			"collective: alltoall, bytes: 1001" \
			"collective: reduce_scatter, bytes: $((n * 1000 + 8)), dtype: double, op: sum" \
			"collective: allreduce, bytes: 4008, dtype: double, op: max" \
			"pattern: irregular, generate: {kind: regular, degree: 2, bytes: 999, seed: 7}"; do
			c=${coll#*: }
			name=map_${c%%,*}_$n$rpn
			compile $name <<EOF && run_ok $name $n
machine: {topology: mesh, dims: [$((n / rpn))], ranks_per_node: $rpn, placement: [$nodes]}
communication: {$coll}
algorithm: auto
EOF
		done
	done
	# reductions: every element type and operation somewhere
	compile reduce2 <<EOF && run_ok reduce2 2
machine: {topology: switch, ranks: 2}
communication: {collective: reduce, root: 1, bytes: 4000, dtype: int32, op: sum}
algorithm: auto
EOF
	compile reduce4 <<EOF && run_ok reduce4 4
machine: {topology: hypercube, dimension: 2}
communication: {collective: reduce, root: 2, bytes: 8000, dtype: double, op: max}
algorithm: auto
EOF
	compile reduce4b <<EOF && run_ok reduce4b 4
machine: {topology: switch, ranks: 4}
communication: {collective: reduce, root: 0, bytes: 1000, dtype: byte, op: sum}
algorithm: auto
EOF
	compile reduce8 <<EOF && run_ok reduce8 8
machine: {topology: hypercube, dimension: 3}
communication: {collective: reduce, root: 5, bytes: 4096, dtype: float, op: prod}
algorithm: auto
EOF
	compile reduce8b <<EOF && run_ok reduce8b 8
machine: {topology: mesh, dims: [8]}
communication: {collective: reduce, root: 3, bytes: 800, dtype: int64, op: min}
algorithm: binomial
EOF
	# other machines and generators: forwarding through other ranks,
	# messages of several blocks (staging), pipelined segments
	compile tree_scatter8 <<EOF && run_ok tree_scatter8 8
machine: {topology: mesh, dims: [4, 2], ports: one}
communication: {collective: scatter, root: 5, bytes: 999}
algorithm: tree_scatter
EOF
	compile tree_gather8 <<EOF && run_ok tree_gather8 8
machine: {topology: mesh, dims: [4, 2], ports: one}
communication: {collective: gather, root: 2, bytes: 501}
algorithm: tree_gather
EOF
	compile fibonacci8 <<EOF && run_ok fibonacci8 8
machine: {topology: mesh, dims: [8]}
communication: {collective: broadcast, root: 0, bytes: 65536, segments: 8}
algorithm: fibonacci
EOF
	compile rex8 <<EOF && run_ok rex8 8
machine: {topology: hypercube, dimension: 3}
communication: {collective: alltoall, bytes: 1500}
algorithm: rex
EOF
	# transpose needs a square mesh
	compile transpose4 <<EOF && run_ok transpose4 4
machine: {topology: mesh, dims: [2, 2]}
communication: {collective: transpose, bytes: 3000}
algorithm: auto
EOF
	compile transpose9 <<EOF && run_ok transpose9 9
machine: {topology: torus, dims: [3, 3]}
communication: {collective: transpose, bytes: 1234}
algorithm: auto
EOF
	# irregular: empty rows (ranks that send nothing), empty columns
	# (ranks that receive nothing), one-byte and large messages
	compile irregular2 <<EOF && run_ok irregular2 2
machine: {topology: switch, ranks: 2}
communication:
  pattern: irregular
  matrix:
    - [0, 5]
    - [0, 0]
algorithm: auto
EOF
	compile irregular4 <<EOF && run_ok irregular4 4
machine: {topology: switch, ranks: 4}
communication:
  pattern: irregular
  matrix:
    - [0, 10, 0, 5]
    - [0, 0, 0, 0]
    - [7, 0, 0, 1]
    - [0, 3, 2, 0]
algorithm: rs_nl
EOF
	compile irregular8 <<EOF && run_ok irregular8 8
machine: {topology: switch, ranks: 8}
communication:
  pattern: irregular
  matrix:
    - [0, 10, 0, 5, 0, 0, 0, 1]
    - [0, 0, 0, 0, 0, 0, 0, 0]
    - [7, 0, 0, 1, 0, 0, 0, 0]
    - [0, 3, 2, 0, 0, 0, 0, 0]
    - [0, 0, 0, 0, 0, 0, 0, 0]
    - [100000, 0, 0, 0, 0, 0, 1, 0]
    - [0, 0, 9, 0, 0, 65536, 0, 0]
    - [1, 1, 1, 1, 0, 1, 1, 0]
algorithm: color
EOF
	compile irregular8ac <<EOF && run_ok irregular8ac 8
machine: {topology: hypercube, dimension: 3}
communication:
  pattern: irregular
  edges: [[0, 7, 3000], [7, 0, 3000], [1, 2, 1], [2, 1, 70000], [3, 6, 12], [5, 6, 13]]
algorithm: ac
EOF
	# node-aware exchange: 8 ranks on 4 nodes of 2, block and cyclic,
	# one and two network ports; a generated pattern and a 1D halo
	for pl in block cyclic; do
		for np in 1 2; do
			compile node_exchange_$pl$np <<EOF && run_ok node_exchange_$pl$np 8
machine: {topology: mesh, dims: [2, 2], ranks_per_node: 2, placement: $pl, node_ports: $np}
communication:
  pattern: irregular
  generate: {kind: regular, degree: 5, bytes: 3001, seed: $np}
algorithm: node_exchange
EOF
		done
	done
	compile node_exchange_halo <<EOF && run_ok node_exchange_halo 8
# the 5-point halo of a 2x4 process grid, ranks 2k and 2k+1 on node k
machine: {topology: torus, dims: [4], ranks_per_node: 2}
communication:
  pattern: irregular
  edges: [[0, 1, 100], [1, 0, 100], [2, 3, 100], [3, 2, 100], [4, 5, 100], [5, 4, 100], [6, 7, 100], [7, 6, 100],
          [0, 2, 70000], [2, 0, 70000], [2, 4, 7], [4, 2, 7], [4, 6, 900], [6, 4, 900],
          [1, 3, 1], [3, 1, 1], [3, 5, 4096], [5, 3, 4096], [5, 7, 33], [7, 5, 33]]
algorithm: node_exchange
EOF
	# zero-byte messages (a matrix drops zero entries; a collective of
	# 0 bytes keeps its messages)
	compile zero_bcast4 <<EOF && run_ok zero_bcast4 4
machine: {topology: switch, ranks: 4}
communication: {collective: broadcast, bytes: 0}
algorithm: auto
EOF
	compile zero_alltoall8 <<EOF && run_ok zero_alltoall8 8
machine: {topology: switch, ranks: 8}
communication: {collective: alltoall, bytes: 0}
algorithm: auto
EOF
	compile zero_scatter2 <<EOF && run_ok zero_scatter2 2
machine: {topology: switch, ranks: 2}
communication: {collective: scatter, bytes: 0}
algorithm: auto
EOF
	# large messages both ways at once: 4 MiB each way between two ranks
	# (far more than the socket buffers: a transport that sends before it
	# reads would deadlock), and a pipelined 1 MiB broadcast
	compile big_exchange2 <<EOF && run_ok big_exchange2 2
machine: {topology: switch, ranks: 2}
communication: {collective: alltoall, bytes: 4194304}
algorithm: auto
EOF
	compile big_bcast8 <<EOF && run_ok big_bcast8 8
machine: {topology: switch, ranks: 8}
communication: {collective: broadcast, root: 3, bytes: 1048576, segments: 8}
algorithm: auto
EOF
	# one rank alone, under the launcher and without it
	compile alone <<EOF && run_ok alone 1
machine: {topology: switch, ranks: 1}
communication: {collective: broadcast, bytes: 100}
algorithm: auto
EOF
	(unset CCPLAN_RANK CCPLAN_SIZE CCPLAN_RUN_ADDR CCPLAN_RUN_KEY_FD
	 timeout 60 "$prog" "$tmp/alone.ccp" >"$tmp/out" 2>&1) &&
		grep -q '^rank 0: rc=0 ' "$tmp/out" && ok ||
		bad "alone without ccplan run: $(cat "$tmp/out")"
}

# ---- faults -------------------------------------------------------------

# fault NAME N TIMEOUT_S WANT_FILES [sock_collectives options...]: run a
# job expected to fail; leaves the launcher's status in $frc, its wall
# time in $fms, and the ranks' results in $tmp/res-NAME.
fault() {
	local name=$1 n=$2 tmo=$3
	shift 3
	fres="$tmp/res-$name"
	rm -rf "$fres"
	mkdir -p "$fres"
	local t0
	t0=$(ms_now)
	timeout 60 "$ccplan" run -n "$n" --timeout "$tmo" "$prog" \
		--fail-loop 40 --result "$fres" "$@" >"$tmp/out" 2>&1
	frc=$?
	fms=$(($(ms_now) - t0))
	if [ "$frc" = 124 ]; then
		bad "$name: the job hung (killed by timeout after ${fms} ms)"
		sed 's/^/    /' "$tmp/out" | head -20
		return 1
	fi
	if [ "$frc" = 0 ]; then
		bad "$name: ccplan run exited 0"
		sed 's/^/    /' "$tmp/out" | head -20
		return 1
	fi
	return 0
}

# every_rank WANT RANKS...: each listed rank reported code WANT ("err":
# any error).
every_rank() {
	local want=$1 r rc missing=""
	shift
	for r in "$@"; do
		rc=$(sed -n 's/^rc=\(-*[0-9]*\) .*/\1/p' "$fres/rank-$r" 2>/dev/null)
		if [ -z "$rc" ]; then missing="$missing $r(no result)"
		elif [ "$want" = err ] && [ "$rc" -lt 0 ] && [ "$rc" -gt -1000 ]; then :
		elif [ "$rc" = "$want" ]; then :
		else missing="$missing $r(rc=$rc)"; fi
	done
	if [ -z "$missing" ]; then ok; return 0; fi
	bad "$name: ranks without the expected result ($want):$missing"
	sed 's/^/    /' "$tmp/out" | head -20
	return 1
}

# slowest RANKS...: the longest failing call among those ranks, in ms
slowest() {
	local r m worst=0
	for r in "$@"; do
		m=$(sed -n 's/^rc=[-0-9]* ms=\([0-9]*\) .*/\1/p' "$fres/rank-$r")
		[ -n "$m" ] && [ "$m" -gt "$worst" ] && worst=$m
	done
	echo "$worst"
}

# One rank killed (SIGKILL) at phases of a plan chosen at random (seeded;
# CCPLAN_FAULT_SEED=N repeats a run): its first data frame, its last (the
# plan's last phase in which it sends), and frames between, in the first
# execution or a later one, over 8-rank plans of 7 and 3 phases.  Every
# survivor must fail within the timeout, none may succeed, none hang.
killed_at_random() {
	compile r_alltoall8 <<EOF || return
machine: {topology: switch, ranks: 8}
communication: {collective: alltoall, bytes: 4096}
algorithm: pex
EOF
	compile r_bcast8 <<EOF || return
machine: {topology: hypercube, dimension: 3}
communication: {collective: broadcast, root: 5, bytes: 65536, segments: 4}
algorithm: binomial
EOF
	local seed=${CCPLAN_FAULT_SEED:-$(($(date +%s) % 100000))} k
	RANDOM=$seed
	echo "  killed at random phases (seed $seed; CCPLAN_FAULT_SEED=$seed repeats it):"
	local times=() choices=8
	for ((k = 0; k < choices; k++)); do
		local plan rank sends frame ex pick phase r nph want cands=()
		local -a ph
		plan=$tmp/r_alltoall8.ccp
		[ $((k % 2)) = 1 ] && plan=$tmp/r_bcast8.ccp
		nph=$("$ccplan" explain "$plan" --summary 2>/dev/null | awk '$1 == "total" { print $2 }')
		# the phase of each data frame a rank sends in one execution
		for ((r = 0; r < 8; r++)); do
			ph[r]=$("$ccplan" explain "$plan" --rank "$r" 2>/dev/null |
				awk '$2 == "SEND" { printf "%s ", $3 }')
		done
		# the plan's first phase, its last, or any phase
		case $k in
		0 | 1) want=0 ;;
		2 | 3) want=$((nph - 1)) ;;
		*) want=any ;;
		esac
		for ((r = 0; r < 8; r++)); do
			[ -n "${ph[r]}" ] || continue
			[ "$want" = any ] || [[ " ${ph[r]}" == *" $want "* ]] && cands+=("$r")
		done
		rank=${cands[$((RANDOM % ${#cands[@]}))]}
		read -r -a sends <<<"${ph[rank]}"
		if [ "$want" = any ]; then
			pick=$((RANDOM % ${#sends[@]}))
		else
			for ((pick = 0; pick < ${#sends[@]}; pick++)); do
				[ "${sends[$pick]}" = "$want" ] && break
			done
		fi
		ex=$((k < 4 ? 0 : RANDOM % 3)) # the execution, from 0
		frame=$((ex * ${#sends[@]} + pick + 1))
		phase=${sends[$pick]}
		name="killed_random_$k"
		CCPLAN_SOCKETS_FAULT=die:$rank:$frame fault "$name" 8 2 "$plan" || continue
		local survivors=() w
		for ((r = 0; r < 8; r++)); do
			[ "$r" != "$rank" ] && survivors+=("$r")
		done
		every_rank err "${survivors[@]}" || continue
		w=$(slowest "${survivors[@]}")
		times+=("$w")
		[ ! -e "$fres/rank-$rank" ] && [ "$frc" = 137 ] && ok ||
			bad "$name: rank $rank should be killed (status 137), got $frc"
		[ "$w" -lt 2000 ] && ok ||
			bad "$name: survivors took $w ms, not less than the 2000 ms timeout"
		echo "    $(basename "$plan" .ccp): rank $rank killed at data frame $frame" \
			"(phase $phase of 0..$((nph - 1)), execution $ex): 7 survivors failed," \
			"the slowest in $w ms; job ${fms} ms"
	done
	[ "${#times[@]}" -gt 0 ] &&
		echo "    survivors' slowest failure per kill (ms): ${times[*]}"
}

faults() {
	echo "faults:"
	compile f_alltoall4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: alltoall, bytes: 65536}
algorithm: auto
EOF
	compile f_scatter4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: scatter, bytes: 65536}
algorithm: auto
EOF
	compile f_bcast4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: broadcast, bytes: 4096}
algorithm: auto
EOF
	local a4="$tmp/f_alltoall4.ccp"

	name=mismatch
	fault $name 4 5 --alt "1:$tmp/f_scatter4.ccp" "$a4" &&
		every_rank -12 0 1 2 3 && echo "  $name: every rank CCP_EMISMATCH"
	name=short_buffer
	fault $name 4 5 --short 2 "$tmp/f_bcast4.ccp" &&
		every_rank -13 0 1 2 3 && echo "  $name: every rank CCP_EBUFFER"
	name=wrong_size
	fault $name 2 5 "$a4" &&
		every_rank -2 0 1 && echo "  $name: every rank CCP_EINVAL"
	# one buffer bound as send and receive buffer of an alltoall (this
	# returned wrong bytes with rc 0): every rank's bind is refused, every
	# execution fails, no byte of the buffer changes
	name=aliased_buffers
	fault $name 4 5 --alias "$a4" &&
		every_rank -2 0 1 2 3 && echo "  $name: every rank CCP_EINVAL, no byte moved"

	# a rank killed (SIGKILL) at its 5th data frame: the others learn it
	# from the launcher (or the dropped connection) at once
	name=killed
	CCPLAN_SOCKETS_FAULT=die:2:5 fault $name 4 2 "$a4" &&
		every_rank err 0 1 3 && {
		local w
		w=$(slowest 0 1 3)
		[ ! -e "$fres/rank-2" ] && [ "$frc" = 137 ] && ok ||
			bad "$name: rank 2 should be killed (status 137), got $frc"
		[ "$w" -lt 2000 ] && ok ||
			bad "$name: survivors took $w ms, not less than the 2000 ms timeout"
		echo "  $name: rank 2 killed mid-run; ranks 0, 1, 3 failed within $w ms (timeout 2000 ms), job ${fms} ms, exit $frc"
	}

	killed_at_random

	# a rank that sleeps 3 s before its 3rd data frame, timeout 2 s
	name=stalled
	CCPLAN_SOCKETS_FAULT=stall:1:3:3000 fault $name 4 2 "$a4" &&
		every_rank err 0 1 2 3 && {
		local w
		w=$(slowest 0 2 3)
		grep -q '^rc=-14 ' "$fres"/rank-* && ok ||
			bad "$name: no rank reported CCP_ETIMEDOUT"
		[ "$w" -lt 3500 ] && ok ||
			bad "$name: survivors took $w ms with a 2000 ms timeout"
		echo "  $name: rank 1 stalled 3 s; ranks 0, 2, 3 failed within $w ms (timeout 2000 ms), job ${fms} ms"
	}

	# a rank slower than usual but within the timeout (1.5 s without a
	# byte, timeout 2 s) is no fault: every byte still arrives
	res="$tmp/res-slow"
	mkdir -p "$res"
	CCPLAN_SOCKETS_FAULT=stall:1:3:1500 timeout 60 "$ccplan" run -n 4 \
		--timeout 2 "$prog" -i 1 --result "$res" "$a4" >"$tmp/out" 2>&1 &&
		[ "$(grep -l '^rc=0 ' "$res"/rank-* | wc -l)" = 4 ] && ok ||
		bad "a 1.5 s stall with a 2 s timeout failed: $(cat "$tmp/out")"

	# a connection closed in the middle of a frame
	name=closed_mid_frame
	CCPLAN_SOCKETS_FAULT=close:1:3 fault $name 4 2 "$a4" &&
		every_rank err 0 1 2 3 && {
		grep -q 'mid-frame' "$fres"/rank-* && ok ||
			bad "$name: no rank saw the frame cut short"
		echo "  $name: $(grep -h 'mid-frame' "$fres"/rank-* | sed 's/.*msg=//' | cut -c1-150)"
	}

	# a frame with a wrong plan hash
	name=wrong_hash
	CCPLAN_SOCKETS_FAULT=hash:0:2 fault $name 4 2 "$a4" &&
		every_rank err 0 1 2 3 && {
		grep -q '^rc=-12 .*plan hash' "$fres"/rank-* && ok ||
			bad "$name: no rank reported the hash (CCP_EMISMATCH)"
		echo "  $name: $(grep -h 'plan hash' "$fres"/rank-* | sed 's/.*msg=//' | cut -c1-150)"
	}

	# a frame longer than the receive posted for it
	name=wrong_length
	CCPLAN_SOCKETS_FAULT=len:3:2 fault $name 4 2 "$a4" &&
		every_rank err 0 1 2 3 && {
		grep -q '^rc=-15 .*the receive posted for it' "$fres"/rank-* && ok ||
			bad "$name: no rank reported the length (CCP_EPEER)"
		echo "  $name: $(grep -h 'posted for it' "$fres"/rank-* | sed 's/.*msg=//' | cut -c1-150)"
	}
}

# ---- the launcher ---------------------------------------------------------

launcher() {
	echo "launcher:"
	local out rc
	# the key: 64 hex digits on the descriptor CCPLAN_RUN_KEY_FD names,
	# the same for every rank, and in no environment variable
	out=$("$ccplan" run -n 3 --timeout 1.5 sh -c \
		'k=$(head -n 1 <&"$CCPLAN_RUN_KEY_FD"); echo "$k" >"$0/key.$CCPLAN_RANK"
		 echo "$CCPLAN_RANK $CCPLAN_SIZE $CCPLAN_TIMEOUT_MS ${CCPLAN_RUN_ADDR%:*} ${CCPLAN_RUN_KEY-no-key-variable} $(env | grep -c "$k")"' \
		"$tmp" | sort)
	[ "$out" = "0 3 1500 127.0.0.1 no-key-variable 0
1 3 1500 127.0.0.1 no-key-variable 0
2 3 1500 127.0.0.1 no-key-variable 0" ] &&
		[ "$(sort -u "$tmp"/key.* | grep -cE '^[0-9a-f]{64}$')" = 1 ] &&
		[ "$(cat "$tmp"/key.* | wc -l)" = 3 ] && ok ||
		bad "environment: $out; keys: $(cat "$tmp"/key.* 2>/dev/null | tr '\n' ' ')"
	# a program that never uses the transport runs, rank by rank, and
	# is told so; one rank alone is no surprise
	"$ccplan" run -n 4 true 2>"$tmp/err" &&
		grep -q "warning: none of the 4 ranks connected to the launcher, so each ran alone" "$tmp/err" &&
		ok || bad "ccplan run true: exit $?, $(cat "$tmp/err")"
	"$ccplan" run -n 1 true 2>"$tmp/err" && ! grep -q warning "$tmp/err" &&
		ok || bad "ccplan run -n 1 true: $(cat "$tmp/err")"
	# ranks that have not connected by the timeout are named then, while
	# they still run (here the launcher is stopped at 4 s, ranks at 30)
	timeout 4 "$ccplan" run -n 3 --timeout 1 sh -c 'sleep 30' 2>"$tmp/err"
	grep -q "after 1000 ms, 3 of 3 ranks (0, 1, 2) have not connected" \
		"$tmp/err" && ok || bad "ranks not connected by the timeout: $(cat "$tmp/err")"
	"$ccplan" run -n 2 --timeout 1 sh -c 'sleep 0.2' 2>"$tmp/err" &&
		! grep -q "have not connected" "$tmp/err" && ok ||
		bad "ranks that end before the timeout: $(cat "$tmp/err")"
	"$ccplan" run -n 3 sh -c 'exit $((CCPLAN_RANK == 1 ? 5 : 0))' 2>/dev/null
	rc=$?
	[ "$rc" = 5 ] && ok || bad "a rank exiting 5: ccplan run exit $rc"
	"$ccplan" run -n 2 "$tmp/no-such-program" 2>/dev/null
	rc=$?
	[ "$rc" = 127 ] && ok || bad "a missing program: exit $rc"
	for args in "" "-n 2" "-n 0 true" "-n x true" "--frob -n 2 true" \
		"-n 2 --timeout -1 true" "-n 2 --hostfile $tmp/none true" \
		"-n 2 -H localhost:0 true" "-n 2 -H :2 true" \
		"-n 2 -H localhost:2x true"; do
		# shellcheck disable=SC2086
		"$ccplan" run $args >/dev/null 2>&1
		rc=$?
		[ "$rc" = 2 ] && ok || bad "ccplan run $args: exit $rc, expected 2"
	done
	"$ccplan" run --help | grep -q '^usage: ccplan run -n N' && ok ||
		bad "ccplan run --help"
	printf '# local slots\nlocalhost slots=2\n127.0.0.1\n' >"$tmp/hosts"
	out=$("$ccplan" run -n 5 --hostfile "$tmp/hosts" sh -c 'echo $CCPLAN_RANK' | sort | tr '\n' ' ')
	[ "$out" = "0 1 2 3 4 " ] && ok || bad "hostfile: $out"
	# HOST:K, as Open MPI's and MPICH's hostfiles write slots, and -H;
	# the IPv6 loopback ::1 is a host, not a slot count
	printf 'localhost:2\n::1\n' >"$tmp/hosts-colon"
	out=$("$ccplan" run -n 3 --hostfile "$tmp/hosts-colon" sh -c 'echo $CCPLAN_RANK' | sort | tr '\n' ' ')
	[ "$out" = "0 1 2 " ] && ok || bad "hostfile HOST:K: $out"
	out=$("$ccplan" run -n 4 -H localhost:3,127.0.0.1 sh -c 'echo $CCPLAN_RANK' | sort | tr '\n' ' ')
	[ "$out" = "0 1 2 3 " ] && ok || bad "-H list: $out"

	# ranks on another host go through ssh: a stand-in ssh that runs the
	# command here checks the command line the launcher builds (cd,
	# environment, quoting); the launcher then listens on every interface
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/ssh" <<EOF
#!/bin/sh
[ "\$1" = -o ] && [ "\$2" = BatchMode=yes ] || exit 255
echo "\$3" >>"$tmp/ssh-hosts"
shift 3
exec sh -c "\$1"
EOF
	chmod +x "$tmp/bin/ssh"
	printf 'localhost\nfarhost slots=2\n' >"$tmp/hosts2"
	out=$(cd "$tmp" && PATH="$tmp/bin:$PATH" CCPLAN_RUN_HOST=127.0.0.1 \
		"$ccplan" run -n 4 --hostfile "$tmp/hosts2" --timeout 5 sh -c \
		'echo "$CCPLAN_RANK $CCPLAN_SIZE $CCPLAN_TIMEOUT_MS $(pwd) [$0]"' \
		"it's \"quoted\" \$HOME" | sort)
	[ "$out" = "0 4 5000 $tmp [it's \"quoted\" \$HOME]
1 4 5000 $tmp [it's \"quoted\" \$HOME]
2 4 5000 $tmp [it's \"quoted\" \$HOME]
3 4 5000 $tmp [it's \"quoted\" \$HOME]" ] &&
		[ "$(sort "$tmp/ssh-hosts" | tr '\n' ' ')" = "farhost farhost " ] && ok ||
		bad "remote ranks: $out; ssh to: $(cat "$tmp/ssh-hosts" 2>/dev/null)"
	compile remote4 <<EOF &&
machine: {topology: switch, ranks: 4}
communication: {collective: alltoall, bytes: 5000}
algorithm: auto
EOF
		PATH="$tmp/bin:$PATH" CCPLAN_RUN_HOST=127.0.0.1 timeout 60 \
			"$ccplan" run -n 4 --hostfile "$tmp/hosts2" "$prog" -i 1 \
			"$tmp/remote4.ccp" >"$tmp/out" 2>&1 &&
		[ "$(grep -c ': rc=0 ' "$tmp/out")" = 4 ] && ok ||
		bad "a job with remote ranks: $(cat "$tmp/out")"

	# SIGTERM to the launcher reaches every rank; nothing is left behind
	local t0 marker="30.7$$"
	t0=$(ms_now)
	"$ccplan" run -n 3 sleep "$marker" 2>/dev/null &
	local pid=$! before=0 i
	for ((i = 0; i < 50 && before < 3; i++)); do # all 3 started
		sleep 0.1
		before=$(pgrep -f "^sleep $marker" | wc -l)
	done
	kill -TERM $pid
	wait $pid
	rc=$?
	local took=$(($(ms_now) - t0))
	sleep 0.2
	local after
	after=$(pgrep -f "^sleep $marker" | wc -l)
	[ "$before" = 3 ] && [ "$after" = 0 ] && [ "$rc" = 143 ] && [ "$took" -lt 5000 ] && ok ||
		bad "SIGTERM: $before ranks before, $after after, exit $rc, $took ms"
	echo "  SIGTERM forwarded: 3 ranks ended in $took ms, none left, exit $rc"

	# a rank killed from outside: the others are stopped, exit 128+9
	t0=$(ms_now)
	"$ccplan" run -n 3 --timeout 1 sh -c 'if [ "$CCPLAN_RANK" = 1 ]; then kill -9 $$; fi; exec sleep 30' 2>/dev/null
	rc=$?
	took=$(($(ms_now) - t0))
	[ "$rc" = 137 ] && [ "$took" -lt 5000 ] && ok ||
		bad "a killed rank: exit $rc after $took ms"
}

# ---- security ---------------------------------------------------------------

# start_gated NAME N [sock_collectives options...]: start a job in the
# background (ccplan run -v, with the options in the array run_opts) whose
# ranks wait for $tmp/NAME.go1 before they make their transport and for
# $tmp/NAME.go2 before they execute, so that a test can attack it at
# either point.  $jpid: the launcher; its stderr in $tmp/NAME.err; the
# ranks' results in $tmp/res-NAME.
start_gated() {
	local name=$1 n=$2
	shift 2
	rm -rf "$tmp/res-$name" "$tmp/$name.go1" "$tmp/$name.go2"
	mkdir -p "$tmp/res-$name"
	timeout 120 "$ccplan" run -v -n "$n" "${run_opts[@]}" sh -c \
		'until [ -e "$0" ]; do sleep 0.02; done; exec "$@"' \
		"$tmp/$name.go1" "$prog" --gate "$tmp/$name.go2" \
		--result "$tmp/res-$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	jpid=$!
}

# wait_line FILE REGEX: wait (10 s at most, or until the job ends) for a
# line of FILE that matches; prints it.
wait_line() {
	local i
	for ((i = 0; i < 500; i++)); do
		grep -m1 -E "$2" "$1" 2>/dev/null && return 0
		kill -0 "$jpid" 2>/dev/null || break
		sleep 0.02
	done
	grep -m1 -E "$2" "$1" 2>/dev/null
}

# launcher_addr NAME, rank_addr NAME R: addresses, from ccplan run -v
launcher_addr() {
	wait_line "$tmp/$1.err" 'launcher at' | sed 's/.*launcher at \([0-9.]*:[0-9]*\).*/\1/'
}
rank_addr() {
	sed -n "s/.*: rank $2 (pid [0-9]*) listens on \([0-9.]*:[0-9]*\)\$/\1/p" "$tmp/$1.err"
}

# job_ok NAME N RC: every rank of job NAME passed, and the launcher
# exited 0 (else say what happened)
job_ok() {
	local name=$1 n=$2 rc=$3 r good=0
	for ((r = 0; r < n; r++)); do
		grep -q '^rc=0 ' "$tmp/res-$name/rank-$r" 2>/dev/null && good=$((good + 1))
	done
	[ "$rc" = 0 ] && [ "$good" = "$n" ] && return 0
	echo "    exit $rc, $good of $n ranks passed:"
	cat "$tmp/res-$name"/rank-* 2>/dev/null | sed 's/^/    /' | head -8
	grep -v 'listens on' "$tmp/$name.err" | sed 's/^/    /' | head -12
	return 1
}

# Many idle connections, held open by a local process that knows the
# ports: to the launcher from before the ranks start (its table of
# unauthenticated connections is full, and its entries time out), then
# to every rank's listening socket before the ranks execute.  Each is
# evicted or times out; the job finishes, every byte right.
flood() {
	local name=flood ip0 ip1 ip2="" rc t0 addrs="" r a
	compile flood4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: alltoall, bytes: 8192}
algorithm: auto
EOF
	run_opts=(--timeout 20)
	t0=$(ms_now)
	start_gated $name 4 --any-sockets -i 1 "$tmp/flood4.ccp"
	a=$(launcher_addr $name)
	# a few, which time out (CCP_SOCK_AUTH_MS), then many more than
	# the table holds, which evict one another
	"$intruder" idle 5 60 "$a" >"$tmp/idle0.out" 2>&1 &
	ip0=$!
	sleep 3.5
	"$intruder" idle 100 60 "$a" >"$tmp/idle1.out" 2>&1 &
	ip1=$!
	sleep 0.5
	touch "$tmp/$name.go1"
	if wait_line "$tmp/$name.err" 'all 4 ranks connected' >/dev/null; then
		for ((r = 0; r < 4; r++)); do addrs="$addrs $(rank_addr $name $r)"; done
		# shellcheck disable=SC2086 # one word per address
		"$intruder" idle 100 60 $addrs >"$tmp/idle2.out" 2>&1 &
		ip2=$!
		sleep 0.5
	fi
	touch "$tmp/$name.go2"
	wait $jpid
	rc=$?
	kill $ip0 $ip1 $ip2 2>/dev/null
	wait $ip0 $ip1 $ip2 2>/dev/null
	if job_ok $name 4 $rc; then
		ok
		echo "  idle connections, 105 to the launcher and 100 to each rank: the job passed in $(($(ms_now) - t0)) ms"
		cat "$tmp/idle0.out" "$tmp/idle1.out" "$tmp/idle2.out" 2>/dev/null | sed 's/^/    /'
	else
		bad "100 idle connections to the launcher and to each rank stopped the job"
	fi
	# the first drops one by one, then how many of each kind
	grep -q 'was dropped (no hello within 3 s)' "$tmp/$name.err" &&
		grep -qE 'dropped in all: [1-9][0-9]* evicted, [1-9][0-9]* timed out' "$tmp/$name.err" && ok ||
		bad "the launcher did not report evicted and timed-out connections: $(grep dropped "$tmp/$name.err" | tail -3)"
	grep 'dropped in all' "$tmp/$name.err" | sed 's/^/    /'
}

# Hello as rank 0, to the launcher (before the ranks start) and to rank 1
# (before rank 0 connects to it), with a wrong key and with none, in the
# first protocol (whose hello carried the key) and in this one; the data
# attempts then send rank 1 a frame of 0xee bytes with the plan's own
# hash.  Every attempt is refused, the launcher reports each drop, and
# the broadcast is byte-exact.
attack() {
	local name=attack rc how a ph by pids=() p
	compile attack4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: broadcast, root: 0, bytes: 4096}
algorithm: binomial
EOF
	local plan="$tmp/attack4.ccp"
	# what rank 1 receives from rank 0: phase and bytes
	read -r ph by < <("$ccplan" explain "$plan" --rank 1 |
		awk '$2 == "RECV" && $4 == 0 { print $3, $5; exit }')
	run_opts=(--timeout 20)
	# --any-sockets: a refused stranger's socket may still be open in
	# rank 1 when it counts its own (seen once, under load)
	start_gated $name 4 -i 2 --any-sockets "$plan"
	a=$(launcher_addr $name)
	: >"$tmp/inject.out"
	for how in v1-wrongkey v1-nokey wrongkey nokey; do
		"$intruder" inject $how control "$a" 0 0 4 "$plan" 0 0 \
			>>"$tmp/inject.out" 2>&1 && ok ||
			bad "control hello as rank 0 ($how): $(tail -1 "$tmp/inject.out")"
	done
	touch "$tmp/$name.go1"
	wait_line "$tmp/$name.err" 'all 4 ranks connected' >/dev/null
	a=$(rank_addr $name 1)
	for how in v1-wrongkey v1-nokey wrongkey nokey; do
		"$intruder" inject $how data "${a:-127.0.0.1:1}" 0 1 4 "$plan" \
			"${ph:-0}" "${by:-0}" >"$tmp/inject-$how.out" 2>&1 &
		pids+=($!)
	done
	sleep 0.3 # in rank 1's queue before rank 0 connects
	touch "$tmp/$name.go2"
	for p in "${pids[@]}"; do
		wait "$p" && ok || bad "data hello as rank 0 to rank 1: $(cat "$tmp"/inject-*.out)"
	done
	wait $jpid
	rc=$?
	cat "$tmp"/inject-*.out >>"$tmp/inject.out"
	job_ok $name 4 $rc && ok || bad "the broadcast under attack failed"
	echo "  hello as rank 0 without the key, 4 ways each to the launcher and to rank 1 (phase $ph, $by bytes):"
	sed 's/^/    /' "$tmp/inject.out"
	[ "$(grep -c 'claiming to be rank 0, was dropped (bad response)' "$tmp/$name.err")" = 2 ] &&
		[ "$(grep -c 'was dropped (not a ccplan hello)' "$tmp/$name.err")" = 2 ] && ok ||
		bad "the launcher did not report the refused hellos: $(grep dropped "$tmp/$name.err" | head -3)"
	grep 'dropped' "$tmp/$name.err" | sed 's/^/    /'
}

# A rank waits for rank 0, which stalls past the timeout, while a
# stranger says hello to it as rank 0 with a wrong key: the rank's error
# says what happened to that connection, not that rank 0 never connected.
named() {
	local name=named a ip msg
	compile named2 <<EOF || return
machine: {topology: switch, ranks: 2}
communication: {collective: broadcast, root: 0, bytes: 1000}
algorithm: auto
EOF
	local plan="$tmp/named2.ccp"
	run_opts=(--timeout 2)
	CCPLAN_SOCKETS_FAULT=stall:0:1:4000 start_gated $name 2 --fail-loop 1 "$plan"
	touch "$tmp/$name.go1"
	wait_line "$tmp/$name.err" 'all 2 ranks connected' >/dev/null
	a=$(rank_addr $name 1)
	"$intruder" inject wrongkey data "${a:-127.0.0.1:1}" 0 1 2 "$plan" \
		0 1000 >"$tmp/inject-named.out" 2>&1 &
	ip=$!
	sleep 0.3
	touch "$tmp/$name.go2"
	wait $jpid
	wait $ip
	msg=$(sed -n 's/^rc=-14 .*msg=//p' "$tmp/res-$name/rank-1" 2>/dev/null)
	if [[ "$msg" == *"no authenticated connection from rank 0: 1 unauthenticated connections claiming to be rank 0 were dropped (the last from 127.0.0.1:"*", claiming to be rank 0: bad response)"* ]] &&
		[[ "$msg" != *"never connected"* ]]; then
		ok
		echo "  rank 1's error: ${msg#*: }"
	else
		bad "rank 1's timeout does not name the dropped connection: $(cat "$tmp/res-$name/rank-1" 2>/dev/null)"
	fi
}

# A rank started by hand and pointed at a stranger that poses as the
# launcher: the stranger finds no trace of the key in what the rank sent,
# and the rank refuses it.  (CCPLAN_RUN_KEY gives the key as the first
# protocol took it, whose hello carried it: on that one this test fails.)
impostor() {
	local ip out i port
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$tmp/impostor.key"
	echo >>"$tmp/impostor.key"
	rm -f "$tmp/impostor.port"
	"$intruder" impostor "$tmp/impostor.port" "$tmp/impostor.key" 20 \
		>"$tmp/impostor.out" 2>&1 &
	ip=$!
	for ((i = 0; i < 250; i++)); do
		[ -s "$tmp/impostor.port" ] && break
		sleep 0.02
	done
	port=$(cat "$tmp/impostor.port" 2>/dev/null)
	out=$(CCPLAN_SIZE=2 CCPLAN_RANK=0 CCPLAN_RUN_ADDR=127.0.0.1:${port:-1} \
		CCPLAN_RUN_KEY=$(head -c 16 "$tmp/impostor.key") \
		CCPLAN_RUN_KEY_FD=3 CCPLAN_TIMEOUT_MS=5000 \
		timeout 30 "$prog" "$tmp/attack4.ccp" 2>&1 3<"$tmp/impostor.key")
	wait $ip && ok || bad "a stranger posing as the launcher: $(cat "$tmp/impostor.out")"
	[[ "$out" == *"did not prove that it knows the job key"* ]] && ok ||
		bad "the rank did not refuse the stranger: $out"
	echo "  $(cat "$tmp/impostor.out")"
	echo "    the rank: ${out%%$'\n'*}"
}

# While a job with remote ranks runs (through a stand-in ssh that records
# its arguments and its input, then runs the command here), the key is in
# no process's command line (ps, /proc/*/cmdline) or environment, nor in
# ssh's arguments: ssh got it on its input.  The ranks then pass.
leak() {
	local name=leak rc n hits
	mkdir -p "$tmp/bin2"
	rm -f "$tmp/ssh-argv" "$tmp/ssh-stdin"
	cat >"$tmp/bin2/ssh" <<EOF
#!/bin/sh
[ "\$1" = -o ] && [ "\$2" = BatchMode=yes ] || exit 255
printf '%s\n' "\$@" >>"$tmp/ssh-argv"
IFS= read -r line
printf '%s\n' "\$line" >>"$tmp/ssh-stdin"
shift 3
printf '%s\n' "\$line" | sh -c "\$1"
EOF
	chmod +x "$tmp/bin2/ssh"
	printf 'localhost\nfarhost slots=2\n' >"$tmp/hosts-leak"
	compile leak4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: alltoall, bytes: 3000}
algorithm: auto
EOF
	run_opts=(--timeout 20 --hostfile "$tmp/hosts-leak")
	PATH="$tmp/bin2:$PATH" CCPLAN_RUN_HOST=127.0.0.1 \
		start_gated $name 4 -i 1 "$tmp/leak4.ccp"
	touch "$tmp/$name.go1"
	wait_line "$tmp/$name.err" 'all 4 ranks connected' >/dev/null
	# the job runs (its ranks wait at go2): look everywhere
	head -1 "$tmp/ssh-stdin" >"$tmp/leak.key" 2>/dev/null
	n=$(sort -u "$tmp/ssh-stdin" 2>/dev/null | grep -cE '^[0-9a-f]{64}$')
	[ "$n" = 1 ] && [ "$(wc -l <"$tmp/ssh-stdin")" = 2 ] && ok ||
		bad "ssh's input did not carry the key: $(cat "$tmp/ssh-stdin" 2>/dev/null)"
	hits=0
	if [ -s "$tmp/leak.key" ]; then
		hits=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -cF -f "$tmp/leak.key")
		hits=$((hits + $(ps -eww -o args | grep -cF -f "$tmp/leak.key")))
		hits=$((hits + $(grep -lF -f "$tmp/leak.key" /proc/[0-9]*/environ 2>/dev/null | wc -l)))
		hits=$((hits + $(grep -cF -f "$tmp/leak.key" "$tmp/ssh-argv")))
	fi
	hits=$((hits + $(grep -cE 'CCPLAN_RUN_KE[Y]=|[0-9a-f]{64}' "$tmp/ssh-argv")))
	[ "$hits" = 0 ] && ok ||
		bad "the key is visible while the job runs ($hits places); ssh's arguments: $(tr '\n' ' ' <"$tmp/ssh-argv")"
	touch "$tmp/$name.go2"
	wait $jpid
	rc=$?
	job_ok $name 4 $rc && ok || bad "the job with remote ranks failed"
	echo "  hostfile job, ranks 1 and 2 through ssh: the key on ssh's input ($n), in no command line, environment or argument ($hits)"
}

security() {
	echo "security:"
	flood
	attack
	named
	impostor
	leak
}

# attached N JOB VARS RANKS [VAR=VALUE...]: start the given ranks of an
# N-rank job as srun or mpirun would, with no ccplan run: each rank gets
# the rank and size variables VARS names (slurm, ompi or pmi) and the
# extra variables; wait for them all (each at most 30 s).  Results in
# $tmp/res-JOB/rank-R, output in $tmp/res-JOB/out-R.
attached() {
	local n=$1 job=$2 vars=$3 ranks=$4 r
	shift 4
	local res="$tmp/res-$job"
	mkdir -p "$res"
	for r in $ranks; do
		local v
		case $vars in
		slurm) v="SLURM_PROCID=$r SLURM_NTASKS=$n SLURM_JOB_ID=$job SLURM_STEP_ID=0 SLURM_STEP_NUM_NODES=1" ;;
		ompi) v="OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$n PMIX_NAMESPACE=$job OMPI_COMM_WORLD_LOCAL_SIZE=$n" ;;
		pmi) v="PMI_RANK=$r PMI_SIZE=$n MPI_LOCALNRANKS=$n" ;;
		esac
		# shellcheck disable=SC2086
		timeout 30 env -u CCPLAN_SIZE -u CCPLAN_RANK \
			CCPLAN_RENDEZVOUS="$tmp/rdv" $v "$@" "$prog" -i 2 \
			--any-sockets --result "$res" "$tmp/ar4.ccp" \
			>"$res/out-$r" 2>&1 &
	done
	wait 2>/dev/null # a rank a test kills is no news
}

# how many ranks of job JOB passed
passed() {
	grep -l '^rc=0 ' "$tmp/res-$1"/rank-* 2>/dev/null | wc -l
}

launchers() {
	echo "launchers (srun, mpirun: no ccplan run):"
	compile ar4 <<EOF || return
machine: {topology: switch, ranks: 4}
communication: {collective: allreduce, bytes: 10000, dtype: double, op: sum}
algorithm: auto
EOF
	# rank, size and job from Slurm's and from Open MPI's variables;
	# the rendezvous file is gone once every rank connected
	attached 4 s1 slurm "0 1 2 3"
	[ "$(passed s1)" = 4 ] && [ ! -e "$tmp/rdv/s1.0" ] && ok ||
		bad "4 ranks started as srun would: $(passed s1) passed; $(cat "$tmp"/res-s1/out-* | head -5)"
	attached 4 o1 ompi "0 1 2 3"
	[ "$(passed o1)" = 4 ] && ok ||
		bad "4 ranks started as mpirun would: $(passed o1) passed"
	# PMI (MPICH's mpiexec) names no job: CCPLAN_JOB_ID must
	attached 2 p1 pmi "0 1"
	grep -q "CCPLAN_JOB_ID is not set" "$tmp/res-p1/out-0" && ok ||
		bad "PMI without CCPLAN_JOB_ID: $(cat "$tmp/res-p1/out-0")"
	attached 4 p2 pmi "0 1 2 3" CCPLAN_JOB_ID=p2
	[ "$(passed p2)" = 4 ] && ok || bad "PMI with CCPLAN_JOB_ID: $(passed p2) passed"
	# a file an earlier job of the same name left behind: the ranks
	# that read it before rank 0 replaces it read it again
	mkdir -p "$tmp/rdv"
	printf 'ccplan-rendezvous 1\n127.0.0.1:1\n%064d\n' 0 >"$tmp/rdv/s2.0"
	(sleep 0.5 && attached 4 s2 slurm "0") &
	attached 4 s2 slurm "1 2 3"
	wait
	[ "$(passed s2)" = 4 ] && ok ||
		bad "a stale rendezvous file: $(passed s2) passed; $(cat "$tmp"/res-s2/rank-* | head -4)"
	# a rank that never comes: every other one fails (its transport
	# is not made), the coordinator names it, within the timeout and
	# rank 0's grace (no hang)
	local t0=$SECONDS
	attached 4 s3 slurm "0 1 2" CCPLAN_TIMEOUT_MS=2000
	[ "$(grep -l '^rank -1: rc=-1[45] ' "$tmp"/res-s3/out-* | wc -l)" = 3 ] &&
		[ $((SECONDS - t0)) -le 10 ] &&
		grep -q "rank 3 had not connected" "$tmp"/res-s3/out-* && ok ||
		bad "a rank missing: in $((SECONDS - t0)) s; $(cat "$tmp"/res-s3/out-* | head -6)"
	# a file that is not a rendezvous file, and no rank 0 to replace
	# it: the others fail at the timeout, saying so, nothing else lost
	head -c 300 /dev/urandom >"$tmp/rdv/s5.0"
	attached 4 s5 slurm "1 2 3" CCPLAN_TIMEOUT_MS=1000
	[ "$(grep -l 'is not a rendezvous file' "$tmp"/res-s5/out-* | wc -l)" = 3 ] && ok ||
		bad "a garbage rendezvous file: $(cat "$tmp"/res-s5/out-* | head -3)"
	# rank 0, whose thread serves the job, killed in the middle: the
	# others fail at once
	attached 4 s4 slurm "0 1 2 3" CCPLAN_SOCKETS_FAULT=die:0:3
	[ "$(grep -l '^rc=-15 ' "$tmp"/res-s4/rank-[123] 2>/dev/null | wc -l)" = 3 ] && ok ||
		bad "rank 0 killed: $(cat "$tmp"/res-s4/rank-* | head -4)"
	# and Open MPI's own mpirun
	if command -v mpirun >/dev/null; then
		local res="$tmp/res-m1"
		mkdir -p "$res"
		CCPLAN_RENDEZVOUS="$tmp/rdv" timeout 60 mpirun \
			--allow-run-as-root --oversubscribe -n 4 \
			-x CCPLAN_RENDEZVOUS "$prog" -i 2 --any-sockets \
			--result "$res" "$tmp/ar4.ccp" >"$res/out" 2>&1
		[ "$(passed m1)" = 4 ] && ok ||
			bad "mpirun -n 4: $(passed m1) passed; $(head -5 "$res/out")"
	fi
}

for part in $parts; do
	case $part in
	collectives | faults | launcher | security | launchers) $part ;;
	*) bad "unknown part $part" ;;
	esac
done
echo "sockets_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
