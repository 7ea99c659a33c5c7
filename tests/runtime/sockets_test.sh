#!/usr/bin/env bash
# sockets_test.sh - the sockets transport and `ccplan run` end to end:
#  collectives  plans of every collective (broadcast, scatter, gather,
#               reduce with several element types and operations,
#               alltoall, transpose, irregular matrices with empty rows and
#               columns), zero-byte messages and large messages, compiled
#               at 2, 4 and 8 ranks (transpose: 4 and 9) and run by
#               sock_collectives under ccplan run: every rank checks every
#               received byte under S2, S1, without barriers, and with
#               NO_CHECK, several executions each;
#  faults       ranks that disagree on the plan (every rank CCP_EMISMATCH),
#               a short buffer (every rank CCP_EBUFFER), a plan for another
#               size (CCP_EINVAL), and through the test hook
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
#               left behind.
# Usage: sockets_test.sh CCPLAN SOCK_COLLECTIVES [collectives|faults|launcher]...
# (no part named: all three).
set -u
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
prog=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
parts=${*:-collectives faults launcher}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CCPLAN_CACHE="$tmp/cache/plans.db" # never the user's own cache
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
	"$ccplan" run -n 4 true && ok || bad "ccplan run true: exit $?"
	"$ccplan" run -n 3 sh -c 'exit $((CCPLAN_RANK == 1 ? 5 : 0))' 2>/dev/null
	rc=$?
	[ "$rc" = 5 ] && ok || bad "a rank exiting 5: ccplan run exit $rc"
	"$ccplan" run -n 2 "$tmp/no-such-program" 2>/dev/null
	rc=$?
	[ "$rc" = 127 ] && ok || bad "a missing program: exit $rc"
	for args in "" "-n 2" "-n 0 true" "-n x true" "--frob -n 2 true" \
		"-n 2 --timeout -1 true" "-n 2 --hostfile $tmp/none true"; do
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

for part in $parts; do
	case $part in
	collectives | faults | launcher) $part ;;
	*) bad "unknown part $part" ;;
	esac
done
echo "sockets_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
