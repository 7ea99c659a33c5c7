#!/usr/bin/env bash
# cache_faults.sh - faults around the plan cache and the output files,
# produced for real (docs/reliability.md, "Faults"):
#  kill      kill -9 a compile at moments spread over its whole run (the
#            plan being made, the cache's write, the output file's write;
#            cache misses and hits): after each kill the database passes
#            PRAGMA integrity_check, `cache ls` works, every entry it
#            serves is the reference plan and verifies, the output path
#            holds nothing or the whole plan, and the next compile
#            succeeds with no warning;
#  flip      damage a stored plan with SQLite directly (its blob, with and
#            without a matching cache checksum, its size and checksum
#            columns, its key): the entry is never served, the compile
#            says why, recompiles, and stores the plan again;
#  full      a full disk (a small tmpfs) under the cache, the output, or
#            both, and a file size limit (ulimit -f) under both: the compile succeeds without
#            caching or fails with a clear message and a non-zero exit;
#            the database stays readable; no partial output file;
#  readonly  a read-only cache directory (a read-only bind mount, else an
#            unprivileged user, else chmod): cached plans are still
#            served, new ones compiled but not stored, with a warning;
#            the cache commands that write fail clearly; nothing changes;
#  output    every command that writes a file, made to fail mid-write
#            (ulimit -f): a clear message, exit 3, nothing under
#            the real name and an older file there untouched; a device
#            and a symbolic link given as the output stay what they are;
#  seal      the cache key is made 0600; a hit whose output file holds
#            the plan already leaves the file (same inode, same bytes)
#            and sets its time to now; an output that differs, in size
#            or in one byte, is written afresh, and a FIFO is written
#            through; a key file others can read is refused with a
#            warning and the hit still served.
# Mounts are undone on every exit (trap).  Prints which method each part
# used and the numbers it saw.  CCPLAN_FAULT_NO_MOUNT=1 tries the
# fallbacks as if mount were not allowed; CCPLAN_FAULT_SEED=N repeats the
# kills' random delays.
# Usage: cache_faults.sh CCPLAN CACHE_POKE [PART...]   (no part: all)
set -u
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
poke=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
parts=${*:-kill flip full readonly output seal}
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples
tmp=$(mktemp -d)
chmod 755 "$tmp" # an unprivileged user reads inputs here (readonly)
mounts=()
cleanup() {
	local m
	for m in "${mounts[@]}"; do
		[ -n "$m" ] && { umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
export CCPLAN_CACHE="$tmp/default-cache/plans.db" # never the user's own
export CCPLAN_CACHE_KEY="$tmp/cache-key"          # nor the user's key
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# run a part's commands as root with mounts only when that works here
can_mount() {
	[ "$(id -u)" = 0 ] && [ -z "${CCPLAN_FAULT_NO_MOUNT:-}" ] || return 1
	mkdir -p "$tmp/probe" && mount -t tmpfs -o size=64k tmpfs "$tmp/probe" 2>/dev/null &&
		umount "$tmp/probe"
}
# mount_tmpfs DIR SIZE: a tmpfs of SIZE at DIR, undone at exit; its root
# 0700, not tmpfs's 1777 (a cache where others can make files is refused)
mount_tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=0700" tmpfs "$1" && mounts+=("$1")
}
unmount() {
	umount "$1" && mounts=("${mounts[@]/$1/}")
}
# median of the numbers given
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# recent ARRAY: the median of its last five numbers
recent() {
	local -n a=$1
	local from=$((${#a[@]} > 5 ? ${#a[@]} - 5 : 0))
	median "${a[@]:from}"
}

# use_input N: the input is an N x N mesh all-to-all by pairwise exchange
# (big, its plan ref, verified, of ref_size bytes): at N = 16 a 12 MB plan,
# long enough to write that a kill can strike in the middle.
use_input() {
	big=$tmp/a$1.yaml
	ref=$tmp/a$1-ref.ccp
	cat >"$big" <<EOF
machine: {topology: mesh, dims: [$1, $1], routing: xy, ports: one}
communication: {collective: alltoall, bytes: 1024}
algorithm: pex
EOF
	if ! "$ccplan" compile --no-cache "$big" -o "$ref" 2>"$tmp/err" ||
		! "$ccplan" verify "$ref" >/dev/null 2>&1; then
		echo "FAIL: the reference plan: $(cat "$tmp/err")"
		exit 1
	fi
	ref_size=$(stat -c %s "$ref")
}

# served DB: every entry `cache ls` lists is exported, is the reference
# plan byte for byte and (with verify=1) verifies; prints how many
served() {
	local db=$1 verify=${2:-0} k n=0
	"$ccplan" cache --cache "$db" ls >"$tmp/ls" 2>"$tmp/lserr" || {
		bad "cache ls failed: $(cat "$tmp/lserr")"
		echo 0
		return
	}
	for k in $(awk 'NR > 1 { print $1 }' "$tmp/ls"); do
		rm -f "$tmp/served.ccp"
		if ! "$ccplan" cache --cache "$db" export "$k" -o "$tmp/served.ccp" 2>"$tmp/xerr"; then
			bad "cache export $k: $(cat "$tmp/xerr")"
		elif ! cmp -s "$tmp/served.ccp" "$ref"; then
			bad "the cache served a plan that is not the reference ($k)"
		elif [ "$verify" = 1 ] && ! "$ccplan" verify "$tmp/served.ccp" >/dev/null 2>&1; then
			bad "the plan served for $k does not verify"
		fi
		n=$((n + 1))
	done
	echo "$n"
}

# ---- kill -9 during a compile ----------------------------------------------

# kill_when PID GLOB BYTES: kill -9 PID as soon as a file matching GLOB
# holds BYTES or more (polled as fast as the shell can), or let it end.
kill_when() {
	local pid=$1 glob=$2 want=$3 f size
	while kill -0 "$pid" 2>/dev/null; do
		for f in $glob; do
			size=$(stat -c %s "$f" 2>/dev/null) || continue
			if [ "$size" -ge "$want" ]; then
				kill -9 "$pid" 2>/dev/null
				return
			fi
		done
	done
}

part_kill() {
	echo "kill:"
	use_input 16
	local db=$tmp/k/plans.db out=$tmp/k-out/plan.ccp
	mkdir -p "$tmp/k-out"
	local i t0 key
	# how long a miss (the plan made, cached and written) and a hit take
	local misses=() hits=()
	"$ccplan" compile --cache "$db" "$big" -o "$out" 2>/dev/null
	key=$("$ccplan" cache --cache "$db" ls 2>/dev/null | awk 'NR == 2 { print $1 }')
	for i in 1 2 3; do
		"$ccplan" cache --cache "$db" rm "$key" >/dev/null 2>&1
		t0=$(ms_now)
		"$ccplan" compile --cache "$db" "$big" -o "$out" 2>/dev/null
		misses+=($(($(ms_now) - t0)))
		t0=$(ms_now)
		"$ccplan" compile --cache "$db" "$big" -o "$out" 2>/dev/null
		hits+=($(($(ms_now) - t0)))
	done
	local seed=${CCPLAN_FAULT_SEED:-$(($(date +%s) % 100000))}
	RANDOM=$seed
	echo "  a miss takes $(median "${misses[@]}") ms, a hit $(median "${hits[@]}") ms" \
		"(medians of 3); seed $seed (CCPLAN_FAULT_SEED=$seed repeats the choices)"
	# Four kinds of kill, ten of each: after a delay spread over a miss,
	# or over a hit; during a miss once the cache's WAL holds a random
	# part of the plan (its put not committed); during a hit once the
	# temporary output file holds a random part of the plan.
	local n=40 before=0 in_cache=0 between=0 in_out=0 after=0 left=0 hit_before=0
	for ((i = 0; i < n; i++)); do
		local kind=$((i % 4)) miss base delay wal=0 entries st pid tmps what
		miss=$((kind == 0 || kind == 2))
		if [ "$miss" = 1 ]; then
			"$ccplan" cache --cache "$db" rm "$key" >/dev/null 2>&1
		fi
		# an older whole plan under the real name, or nothing
		if [ $((i / 4 % 2)) = 0 ]; then rm -f "$out"; else cp "$ref" "$out"; fi
		"$ccplan" compile --cache "$db" "$big" -o "$out" 2>/dev/null &
		pid=$!
		case $kind in
		0 | 1)
			# the run's length now: the median of the last five of its
			# kind (the machine's load changes while the test runs);
			# 5% .. 95% of it, plus up to 10% at random
			if [ "$kind" = 0 ]; then base=$(recent misses); else base=$(recent hits); fi
			delay=$(((5 + 10 * (i / 4)) * base / 100 + RANDOM % (base / 10 + 1)))
			what="after ${delay} ms"
			sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
			kill -9 "$pid" 2>/dev/null
			;;
		2)
			delay=$((ref_size / 100 * (5 + RANDOM % 90)))
			what="at $delay bytes of WAL"
			kill_when "$pid" "$db-wal" "$delay"
			;;
		3)
			delay=$((ref_size / 100 * (5 + RANDOM % 90)))
			what="at $delay bytes of output"
			kill_when "$pid" "$out.tmp.*" "$delay"
			;;
		esac
		{ wait "$pid"; } 2>/dev/null
		st=$?
		[ -n "${CCPLAN_FAULT_DEBUG:-}" ] && echo "  kill $i: $what: status $st"
		[ -s "$db-wal" ] && wal=1
		tmps=$(find "$tmp/k-out" -name '*.tmp.*' | wc -l)
		# the database after the kill: whole, listable, serving only
		# the plan
		if "$poke" "$db" check >"$tmp/chk" 2>&1; then ok; else
			bad "kill $i ($what): integrity_check: $(cat "$tmp/chk")"; fi
		entries=$(served "$db" $((i % 5 == 0)))
		[ "$entries" -le 1 ] && ok || bad "kill $i ($what): $entries entries for one input"
		# the output: nothing, or a whole plan
		if [ -e "$out" ] && ! cmp -s "$out" "$ref"; then
			bad "kill $i ($what): $(stat -c %s "$out") of $ref_size bytes under the real name"
		else ok; fi
		# where the kill struck
		if [ "$st" != 137 ]; then after=$((after + 1))
		elif [ "$tmps" -gt 0 ]; then in_out=$((in_out + 1))
		elif [ "$miss" = 0 ]; then hit_before=$((hit_before + 1))
		elif [ "$entries" = 0 ] && [ "$wal" = 1 ]; then in_cache=$((in_cache + 1))
		elif [ "$entries" = 0 ]; then before=$((before + 1))
		else between=$((between + 1)); fi
		left=$((left + tmps))
		# a leftover temporary file is never a plan anyone is given
		rm -f "$tmp/k-out/"*.tmp.*
		# the next compile succeeds, quietly, with the whole plan; its
		# time joins the hits' or the misses'
		t0=$(ms_now)
		if "$ccplan" compile --cache "$db" "$big" -o "$out" 2>"$tmp/err" &&
			cmp -s "$out" "$ref" && ! grep -q 'warning' "$tmp/err"; then ok
		else bad "kill $i ($what): the next compile: $(cat "$tmp/err")"; fi
		if [ "$entries" = 1 ]; then hits+=($(($(ms_now) - t0)))
		else misses+=($(($(ms_now) - t0))); fi
	done
	echo "  $n kills ($((n / 2)) misses, $((n / 2)) hits): $before while the plan was made," \
		"$in_cache during the cache's write (uncommitted WAL), $between between the cache's" \
		"commit and the output, $hit_before while a hit read the cache, $in_out during the" \
		"output's write ($left temporary files left, never under the real name), $after after the end"
	# the kills timed by the files' growth must have struck the writes
	[ "$in_cache" -gt 0 ] && [ "$in_out" -gt 0 ] && ok ||
		bad "no kill struck the cache's write ($in_cache) or the output's ($in_out)"
}

# ---- flipped bytes and damaged columns ---------------------------------------

# damaged_as NAME WARNING CMD...: damage the entry with CMD (cache_poke
# arguments after DB), then a compile must warn WARNING (a grep pattern
# of what follows "warning: cache: "), recompile, write the reference
# plan and store it again (the next compile is a hit)
damaged_as() {
	local name=$1 warning=$2
	shift 2
	local db=$tmp/f/plans.db
	if ! "$poke" "$db" "$@" 2>"$tmp/perr"; then
		bad "$name: cache_poke $*: $(cat "$tmp/perr")"
		return
	fi
	rm -f "$tmp/f.ccp"
	"$ccplan" compile -v --cache "$db" "$big" -o "$tmp/f.ccp" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" = 0 ] && grep -q "warning: cache: $warning" "$tmp/err" &&
		grep -q 'cache miss, stored' "$tmp/err" && cmp -s "$tmp/f.ccp" "$ref"; then
		ok
		echo "  $name: $(grep -o 'warning: cache: .*' "$tmp/err" | sed 's/^warning: cache: //')"
	else
		bad "$name: exit $rc, wanted '$warning': $(cat "$tmp/err")"
	fi
	"$ccplan" compile -v --cache "$db" "$big" -o "$tmp/f.ccp" 2>"$tmp/err"
	grep -q 'cache hit' "$tmp/err" && ok || bad "$name: not stored again: $(cat "$tmp/err")"
	[ "$(served "$db" 0)" = 1 ] && ok || bad "$name: the cache does not serve one whole plan"
}

# damaged NAME PATTERN CMD...: damaged_as, for damage the cache itself
# finds (the bytes or their key): the warning says PATTERN
damaged() {
	local name=$1 pattern=$2
	shift 2
	damaged_as "$name" "cached plan [0-9a-f]* was damaged (${pattern}[^)]*) and has been removed; compiling" "$@"
}

part_flip() {
	echo "flip:"
	use_input 8 # 0.8 MB: every damage below is a recompile
	local db=$tmp/f/plans.db key
	"$ccplan" compile --cache "$db" "$big" -o "$tmp/f.ccp" 2>/dev/null
	key=$("$ccplan" cache --cache "$db" ls 2>/dev/null | awk 'NR == 2 { print $1 }')
	# the blob alone: the cache's own checksum finds it
	local off
	for off in 0 9 64 120 $((ref_size / 2)) -1; do
		damaged "blob byte $off" 'cache checksum mismatch' flip "$key" "$off"
	done
	# the blob damaged and its size and checksum columns made to match:
	# the plan's own checks find it
	resealed() { # NAME PATTERN CUT|FLIP ARG
		local name=$1 pattern=$2
		shift 2
		"$poke" "$db" "$1" "$key" "$2" && damaged "$name" "$pattern" reseal "$key"
	}
	resealed "magic, resealed" 'not a ccplan plan file' flip 1
	resealed "version, resealed" 'checksum mismatch in header' flip 8
	resealed "header checksum, resealed" 'checksum mismatch in header' flip 121
	resealed "algorithm name, resealed" 'checksum mismatch in header' flip 70
	resealed "plan body, resealed" 'checksum mismatch in plan body' flip $((ref_size / 2))
	resealed "last byte, resealed" 'checksum mismatch in plan body' flip -1
	resealed "cut to half, resealed" 'truncated plan' cut $((ref_size / 2))
	resealed "cut to 100 bytes, resealed" 'truncated plan' cut 100
	resealed "cut to nothing, resealed" 'truncated plan: 0 bytes' cut 0
	# a minimum reader version (byte 10) above the file's own version,
	# the header checksum made to match: a damaged header, not a plan of
	# a newer format (which the cache would keep for a newer ccplan)
	resealed "reader version, resealed" 'bad header: a plan of format version 3 cannot need a reader of version 91' flip 10
	# the columns that describe the blob
	damaged "size + 1" "$ref_size bytes where $((ref_size + 1)) were stored" xor "$key" size 1
	damaged "size 0" "$ref_size bytes where 0 were stored" set "$key" size 0
	damaged "checksum bit 0" 'cache checksum mismatch' xor "$key" checksum 1
	damaged "checksum bit 63" 'cache checksum mismatch' xor "$key" checksum -9223372036854775808
	damaged "checksum 0" 'cache checksum mismatch' set "$key" checksum 0
	# the input hash the plan records, the plan resealed: a plan that
	# records no input, or another's, is never served under the key
	damaged "no input hash, resealed" 'the plan records no input' hash "$key" 00000000000000000000000000000000
	damaged "another input's hash, resealed" 'the plan was made for another input' hash "$key" 0123456789abcdef0123456789abcdef
	# whole bytes, a bad plan: a receive of more bytes than its buffer
	# pieces, every checksum resealed; only verifying the hit finds it
	damaged_as "overflowing receive, resealed" "cached plan $key[0-9a-f]*: rank [0-9]*.*; removed; compiling" overflow "$key"
	# a valid plan of another collective on the same machine, recording
	# this input's hash and stored under its key: the hit verifies, but
	# it is a plan of what the input does not ask for
	local full okey
	full=$("$ccplan" cache --cache "$db" show "$key" 2>/dev/null | awk '$1 == "key" { print $2 }')
	sed 's/collective: alltoall/collective: broadcast/; s/algorithm: pex/algorithm: binomial/' "$big" >"$tmp/other.yaml"
	"$ccplan" cache --cache "$db" rm "$key" >/dev/null 2>&1
	"$ccplan" compile --cache "$db" "$tmp/other.yaml" -o "$tmp/other.ccp" 2>/dev/null
	okey=$("$ccplan" cache --cache "$db" ls 2>/dev/null | awk 'NR == 2 { print $1 }')
	"$poke" "$db" hash "$okey" "$full" || bad "another collective: cache_poke hash"
	damaged_as "another collective, recording this input" "cached plan $key[0-9a-f]*: a plan of broadcast on 64 ranks (mesh), where the input asks for alltoall on 64 ranks (mesh); removed; compiling" rekey "$okey" "$full"
	# the key: the entry now stands under another input's key
	local other=0123456789abcdef0123456789abcdef
	"$poke" "$db" rekey "$key" "$other"
	"$ccplan" compile -v --cache "$db" "$big" -o "$tmp/f.ccp" 2>"$tmp/err"
	[ $? = 0 ] && grep -q 'cache miss, stored' "$tmp/err" && cmp -s "$tmp/f.ccp" "$ref" && ok ||
		bad "rekeyed: the compile: $(cat "$tmp/err")"
	rm -f "$tmp/x.ccp"
	"$ccplan" cache --cache "$db" export 0123456789 -o "$tmp/x.ccp" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = 2 ] && [ ! -e "$tmp/x.ccp" ] && grep -q 'damaged (the plan was made for another input); read-only, left in place' "$tmp/err" &&
		ok || bad "rekeyed: cache export: exit $rc: $(cat "$tmp/err")"
	echo "  rekeyed: $(head -1 "$tmp/err" | sed 's/^ccplan cache: //')"
	"$ccplan" cache --cache "$db" show 0123456789 >/dev/null 2>&1
	[ $? = 2 ] && ok || bad "rekeyed: cache show served it"
	"$poke" "$db" check >/dev/null && ok || bad "flip: the database is damaged: $("$poke" "$db" check)"
}

# ---- a full disk --------------------------------------------------------------

# full_tmpfs SMALL.yaml: the cache, the output, or both on a small tmpfs
# (part_full).
full_tmpfs() {
	local db=$tmp/fc/plans.db rc small=$1
	mount_tmpfs "$tmp/fc" 4m && mount_tmpfs "$tmp/fo" 4m || {
		bad "full: cannot mount"
		return
	}
	# 1. the cache's disk too small for the plan: compiled, not cached
	"$ccplan" compile --cache "$db" "$big" -o "$tmp/full1.ccp" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] && cmp -s "$tmp/full1.ccp" "$ref" &&
		grep -q 'warning: cache: .*storing a plan: .*; the plan is not cached' "$tmp/err" && ok ||
		bad "full cache: exit $rc: $(cat "$tmp/err")"
	echo "  cache disk full: exit $rc; $(grep warning "$tmp/err")"
	"$poke" "$db" check >"$tmp/chk" && grep -q '^plans: 0$' "$tmp/chk" && ok ||
		bad "full cache: the database: $(cat "$tmp/chk")"
	# the same cache still takes a small plan, and serves it
	"$ccplan" compile --cache "$db" "$small" -o "$tmp/s1.ccp" 2>/dev/null &&
		"$ccplan" compile -v --cache "$db" "$small" -o "$tmp/s2.ccp" 2>"$tmp/err" &&
		grep -q 'cache hit' "$tmp/err" && cmp -s "$tmp/s2.ccp" "$tmp/small-ref.ccp" && ok ||
		bad "full cache: a small plan afterwards: $(cat "$tmp/err")"
	# 2. the output's disk too small: a clear failure, nothing written
	local out=$tmp/fo/a16.ccp
	"$ccplan" compile --cache "$tmp/fcache2/plans.db" "$big" -o "$out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 3 ] && [ ! -e "$out" ] && [ -z "$(ls "$tmp/fo")" ] &&
		grep -q "$out: cannot write: \(No space left on device\|File too large\)" "$tmp/err" && ok ||
		bad "full output: exit $rc, $(ls "$tmp/fo"): $(cat "$tmp/err")"
	echo "  output disk full: exit $rc; $(head -1 "$tmp/err")"
	# the plan it made was cached before the write failed, whole
	[ "$(served "$tmp/fcache2/plans.db" 1)" = 1 ] && ok || bad "full output: the plan was not cached whole"
	# an older plan under the name is left as it was
	cp "$tmp/small-ref.ccp" "$out"
	"$ccplan" compile --no-cache "$big" -o "$out" 2>/dev/null
	[ $? = 3 ] && cmp -s "$out" "$tmp/small-ref.ccp" && [ "$(ls "$tmp/fo")" = a16.ccp ] && ok ||
		bad "full output: the older file was changed"
	rm -f "$out"
	# 3. both on one disk filled to the last block
	{
		mount_tmpfs "$tmp/fb" 256k || { bad "full: cannot mount"; return; }
		"$ccplan" compile --cache "$tmp/fb/c/plans.db" "$small" -o "$tmp/fb/s.ccp" 2>/dev/null
		rm -f "$tmp/fb/s.ccp"
		dd if=/dev/zero of="$tmp/fb/fill" bs=1k 2>/dev/null
		"$ccplan" compile --cache "$tmp/fb/c/plans.db" "$big" -o "$tmp/fb/a16.ccp" 2>"$tmp/err"
		rc=$?
		[ "$rc" = 3 ] && [ ! -e "$tmp/fb/a16.ccp" ] &&
			[ -z "$(find "$tmp/fb" -name '*.tmp.*')" ] &&
			grep -q 'cannot write: No space left on device' "$tmp/err" && ok ||
			bad "full disk: exit $rc: $(cat "$tmp/err")"
		echo "  one full disk for both: exit $rc; $(tr '\n' ' ' <"$tmp/err" | cut -c1-300)"
		rm -f "$tmp/fb/fill"
		"$poke" "$tmp/fb/c/plans.db" check >"$tmp/chk" && grep -q '^plans: 1$' "$tmp/chk" && ok ||
			bad "full disk: the database: $(cat "$tmp/chk")"
		"$ccplan" compile -v --cache "$tmp/fb/c/plans.db" "$small" -o "$tmp/s3.ccp" 2>"$tmp/err" &&
			grep -q 'cache hit' "$tmp/err" && cmp -s "$tmp/s3.ccp" "$tmp/small-ref.ccp" && ok ||
			bad "full disk: the plan cached before: $(cat "$tmp/err")"
		# and a cache that cannot even be made on a full disk
		dd if=/dev/zero of="$tmp/fb/fill" bs=1k 2>/dev/null
		"$ccplan" compile --cache "$tmp/fb/new/plans.db" "$small" -o "$tmp/s4.ccp" 2>"$tmp/err"
		rc=$?
		[ "$rc" = 0 ] && cmp -s "$tmp/s4.ccp" "$tmp/small-ref.ccp" && grep -q 'compiling without it' "$tmp/err" && ok ||
			bad "full disk, new cache: exit $rc: $(cat "$tmp/err")"
		echo "  a new cache on a full disk: exit $rc; $(grep warning "$tmp/err")"
	}
}

part_full() {
	echo "full:"
	use_input 16 # 12 MB: more than the 4 MB file systems and 1 MiB limit
	local small=$examples/mesh4-halo.yaml rc # a 14 KB plan
	"$ccplan" compile --no-cache "$small" -o "$tmp/small-ref.ccp" 2>/dev/null
	if can_mount; then
		echo "  method: tmpfs mounts (4 MB and 256 KB), then ulimit -f"
		full_tmpfs "$small"
	else
		echo "  method: ulimit -f alone (mount is not allowed here)"
	fi
	# 4. the file size limit, whatever the mounts: a message, not SIGXFSZ
	(ulimit -f 1024 && "$ccplan" compile --cache "$tmp/fl/plans.db" "$big" -o "$tmp/fl.ccp") 2>"$tmp/err"
	rc=$?
	[ "$rc" = 3 ] && [ ! -e "$tmp/fl.ccp" ] && grep -q 'the plan is not cached' "$tmp/err" &&
		grep -q 'fl.ccp: cannot write: File too large' "$tmp/err" && ok ||
		bad "ulimit -f: exit $rc: $(cat "$tmp/err")"
	echo "  ulimit -f 1024 (1 MiB): exit $rc; $(grep -v '^ccplan: compile' "$tmp/err" | tr '\n' ' ')"
	"$poke" "$tmp/fl/plans.db" check >/dev/null && ok || bad "ulimit -f: the database is damaged"
	# without the limit the same cache takes the plan
	"$ccplan" compile --cache "$tmp/fl/plans.db" "$big" -o "$tmp/fl.ccp" 2>/dev/null &&
		cmp -s "$tmp/fl.ccp" "$ref" && [ "$(served "$tmp/fl/plans.db" 0)" = 1 ] && ok ||
		bad "ulimit -f: the cache is not usable afterwards"
}

# ---- a read-only cache directory -------------------------------------------------

part_readonly() {
	echo "readonly:"
	# inputs in $tmp, where user nobody can read them
	local d=$tmp/ro a=$tmp/ro-a.yaml b=$tmp/ro-b.yaml
	cp "$examples/mesh16-broadcast.yaml" "$a" && cp "$examples/mesh32-edn.yaml" "$b"
	local db=$d/plans.db how run=()
	"$ccplan" compile --no-cache "$a" -o "$tmp/a-ref.ccp" 2>/dev/null
	"$ccplan" compile --no-cache "$b" -o "$tmp/b-ref.ccp" 2>/dev/null
	"$ccplan" compile --cache "$db" "$a" -o "$tmp/a0.ccp" 2>/dev/null
	cp "$db" "$tmp/ro-before.db"
	# user nobody runs a copy of ccplan in $tmp (the build tree may be
	# where nobody cannot go, /root for one)
	mkdir -p "$tmp/bin" && cp "$ccplan" "$tmp/bin/ccplan" && chmod 755 "$tmp/bin/ccplan"
	local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	if can_mount && mount --bind "$d" "$d" && mounts+=("$d") && mount -o remount,ro,bind "$d"; then
		how="a read-only bind mount"
	elif [ "$(id -u)" = 0 ] && "${nobody[@]}" "$tmp/bin/ccplan" --version >/dev/null 2>&1; then
		how="user nobody (setpriv) on a directory it cannot write"
		run=("${nobody[@]}")
		chmod 755 "$d" && chmod 644 "$db"
	elif [ "$(id -u)" != 0 ]; then
		how="chmod 555"
		chmod 555 "$d"
	else
		echo "  skipped: root, but neither a mount nor another user works here"
		return
	fi
	echo "  method: $how"
	local out=$tmp/ro-out
	mkdir -p "$out" && chmod 777 "$out"
	# a cached plan is served; another is compiled, not stored
	"${run[@]}" "$tmp/bin/ccplan" compile -v --cache "$db" "$a" -o "$out/a.ccp" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = 0 ] && grep -q 'cache hit' "$tmp/err" && cmp -s "$out/a.ccp" "$tmp/a-ref.ccp" &&
		grep -q "warning: cache $db: .*; reading it only, the plan will not be stored" "$tmp/err" && ok ||
		bad "read-only: the cached plan: exit $rc: $(cat "$tmp/err")"
	echo "  $(grep warning "$tmp/err")"
	"${run[@]}" "$tmp/bin/ccplan" compile -v --cache "$db" "$b" -o "$out/b.ccp" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] && ! grep -q 'cache hit\|cache miss, stored' "$tmp/err" && cmp -s "$out/b.ccp" "$tmp/b-ref.ccp" && ok ||
		bad "read-only: a new plan: exit $rc: $(cat "$tmp/err")"
	"${run[@]}" "$tmp/bin/ccplan" cache --cache "$db" ls >"$tmp/ls" 2>"$tmp/err"
	[ $? = 0 ] && [ "$(tail -n +2 "$tmp/ls" | wc -l)" = 1 ] && ok || bad "read-only: cache ls: $(cat "$tmp/err")"
	local sub
	for sub in "gc" "rm $(awk 'NR == 2 { print $1 }' "$tmp/ls")"; do
		# shellcheck disable=SC2086
		"${run[@]}" "$tmp/bin/ccplan" cache --cache "$db" $sub >/dev/null 2>"$tmp/err"
		rc=$?
		[ "$rc" = 2 ] && grep -q 'cannot be written\|readonly\|read-only' "$tmp/err" && ok ||
			bad "read-only: cache $sub: exit $rc: $(cat "$tmp/err")"
		echo "  cache $sub: exit $rc; $(head -1 "$tmp/err")"
	done
	# a cache that does not exist yet in such a directory
	"${run[@]}" "$tmp/bin/ccplan" compile --cache "$d/new/plans.db" "$a" -o "$out/a2.ccp" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] && cmp -s "$out/a2.ccp" "$tmp/a-ref.ccp" && grep -q 'compiling without it' "$tmp/err" && ok ||
		bad "read-only: no cache yet: exit $rc: $(cat "$tmp/err")"
	# nothing changed, nothing is lost; writable again, it takes the new plan
	cmp -s "$db" "$tmp/ro-before.db" && [ ! -e "$db-wal" ] && ok || bad "read-only: the database changed"
	case $how in
	a*) unmount "$d" ;;
	chmod*) chmod 755 "$d" ;;
	esac
	"$ccplan" compile --cache "$db" "$b" -o "$out/b2.ccp" 2>/dev/null
	[ "$("$ccplan" cache --cache "$db" ls 2>/dev/null | tail -n +2 | wc -l)" = 2 ] && ok || bad "read-only: writable again, no entry added"
}

# ---- every command that writes a file -----------------------------------------

part_output() {
	echo "output:"
	local y=$examples/mesh16-auto.yaml p=$tmp/o-auto.ccp d=$tmp/o
	mkdir -p "$d"
	"$ccplan" compile --no-cache "$y" -o "$p" 2>/dev/null
	# a source asking for a plan, for scan
	mkdir -p "$tmp/scan"
	cp "$examples/mesh16-broadcast.yaml" "$tmp/scan/bcast.yaml"
	printf '#pragma ccplan plan(bcast, "bcast.yaml")\nint main(void) { return 0; }\n' >"$tmp/scan/app.c"
	local cases=(
		"compile -o|compile --no-cache $y -o OUT"
		"compile --emit c|compile --no-cache $y --emit c -o OUT"
		"export --json -o|export --json $p -o OUT"
		"show -o|show $p -o OUT"
		"explain --html|explain $p --html OUT"
		"compare --svg|compare $y --svg OUT"
		"tau plot -o|tau plot -o OUT"
		"cache export -o|cache --cache $tmp/o-cache/plans.db export KEY -o OUT"
		"scan --emit c -o|scan $tmp/scan/app.c --emit c -o OUT"
	)
	"$ccplan" compile --cache "$tmp/o-cache/plans.db" "$y" -o "$tmp/o-c.ccp" 2>/dev/null
	local key
	key=$("$ccplan" cache --cache "$tmp/o-cache/plans.db" ls 2>/dev/null | awk 'NR == 2 { print $1 }')
	local c name args out rc size
	for c in "${cases[@]}"; do
		name=${c%%|*}
		args=${c#*|}
		args=${args//KEY/$key}
		out=$d/out
		rm -f "$d"/*
		# shellcheck disable=SC2086
		"$ccplan" ${args//OUT/$out} >/dev/null 2>"$tmp/err"
		rc=$?
		if [ "$rc" != 0 ] || [ ! -s "$out" ]; then
			if [ "$name" = "scan --emit c -o" ] && grep -q -i 'libclang' "$tmp/err"; then
				echo "  $name: skipped (no libclang here)"
				continue
			fi
			bad "$name: does not work to begin with: exit $rc: $(cat "$tmp/err")"
			continue
		fi
		size=$(stat -c %s "$out")
		cp "$out" "$tmp/good"
		# a limit below the file's size: fails mid-write
		local lim=$(((size / 2 + 1023) / 1024))
		[ "$lim" -lt 1 ] && lim=1
		rm -f "$out"
		# shellcheck disable=SC2086
		(ulimit -f "$lim" && "$ccplan" ${args//OUT/$out}) >/dev/null 2>"$tmp/err"
		rc=$?
		if [ "$rc" = 3 ] && [ -z "$(ls "$d")" ] && grep -q 'File too large' "$tmp/err"; then ok
		else bad "$name: failing write: exit $rc, left '$(ls "$d")': $(cat "$tmp/err")"; fi
		# an older file under the name stays as it was
		printf 'older\n' >"$out"
		# shellcheck disable=SC2086
		(ulimit -f "$lim" && "$ccplan" ${args//OUT/$out}) >/dev/null 2>&1
		[ "$(cat "$out")" = older ] && [ "$(ls "$d")" = out ] && ok ||
			bad "$name: the older file was changed or a temporary file left: $(ls "$d")"
		echo "  $name: $size bytes; with ulimit -f $lim: exit $rc, $(grep -o '[^ ]*: cannot write: File too large' "$tmp/err" | sed "s|$d/||")"
	done
	# a device and a symbolic link given as the output
	if [ "$(id -u)" = 0 ] && mknod "$d/null" c 1 3 2>/dev/null; then
		"$ccplan" compile --no-cache "$y" -o "$d/null" 2>/dev/null &&
			[ -c "$d/null" ] && ok || bad "-o a device: it is no longer a device"
	fi
	rm -f "$d"/*
	ln -s target.ccp "$d/link.ccp"
	"$ccplan" compile --no-cache "$y" -o "$d/link.ccp" 2>/dev/null &&
		[ -L "$d/link.ccp" ] && cmp -s "$d/target.ccp" "$p" && ok || bad "-o a symbolic link: $(ls -l "$d")"
	"$ccplan" compile --no-cache "$y" -o "$d/link.ccp" 2>/dev/null &&
		[ -L "$d/link.ccp" ] && cmp -s "$d/target.ccp" "$p" && ok || bad "-o a symbolic link, again: $(ls -l "$d")"
	"$ccplan" compile --no-cache "$y" -o "$d" 2>"$tmp/err"
	[ $? = 3 ] && grep -q 'Is a directory' "$tmp/err" && ok || bad "-o a directory: $(cat "$tmp/err")"
	"$ccplan" compile --no-cache "$y" -o /dev/stdout 2>/dev/null | cmp -s - "$p" && ok || bad "-o /dev/stdout"
}

part_seal() {
	echo "seal:"
	local y=$examples/mesh16-broadcast.yaml db=$tmp/s/plans.db
	local d=$tmp/s-out p=$tmp/s-ref.ccp ino t
	mkdir -p "$d"
	"$ccplan" compile --no-cache "$y" -o "$p" 2>/dev/null || bad "the reference plan"
	"$ccplan" compile --cache "$db" "$y" -o "$d/a.ccp" 2>"$tmp/err" &&
		cmp -s "$d/a.ccp" "$p" && ! grep -q warning "$tmp/err" && ok || bad "the miss: $(cat "$tmp/err")"
	[ "$(stat -c %a "$CCPLAN_CACHE_KEY")" = 600 ] && [ "$(stat -c %s "$CCPLAN_CACHE_KEY")" = 32 ] &&
		ok || bad "the key file: $(stat -c '%a %s' "$CCPLAN_CACHE_KEY")"
	# the output holds the plan: left as it is, its time now
	touch -d '2001-01-01' "$d/a.ccp"
	ino=$(stat -c %i "$d/a.ccp")
	"$ccplan" compile -v --cache "$db" "$y" -o "$d/a.ccp" 2>"$tmp/err" || bad "the hit failed: $(cat "$tmp/err")"
	t=$(stat -c %Y "$d/a.ccp")
	cmp -s "$d/a.ccp" "$p" && [ "$(stat -c %i "$d/a.ccp")" = "$ino" ] &&
		[ "$t" -gt $(($(date +%s) - 60)) ] && grep -q 'the file held it already' "$tmp/err" &&
		ok || bad "an unchanged output: inode $ino -> $(stat -c %i "$d/a.ccp"), mtime $t, $(cat "$tmp/err")"
	# an output that differs is written afresh: other bytes, one byte
	echo older >"$d/a.ccp"
	"$ccplan" compile -v --cache "$db" "$y" -o "$d/a.ccp" 2>"$tmp/err" &&
		cmp -s "$d/a.ccp" "$p" && ! grep -q 'held it already' "$tmp/err" && ok ||
		bad "a shorter output was not rewritten: $(cat "$tmp/err")"
	printf '\377' | dd of="$d/a.ccp" bs=1 seek=$(($(stat -c %s "$p") - 1)) conv=notrunc 2>/dev/null
	cmp -s "$d/a.ccp" "$p" && bad "the byte was not changed"
	"$ccplan" compile --cache "$db" "$y" -o "$d/a.ccp" 2>/dev/null && cmp -s "$d/a.ccp" "$p" && ok ||
		bad "an output one byte off was not rewritten"
	# a FIFO as the output: a hit neither waits on it nor takes it for
	# a file that holds the plan, and writes the plan through it
	mkfifo "$d/fifo"
	cat "$d/fifo" >"$d/from-fifo" &
	local rc
	timeout 60 "$ccplan" compile --cache "$db" "$y" -o "$d/fifo" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || : >"$d/fifo" # a compile that never wrote: let cat go
	wait
	[ $rc = 0 ] && cmp -s "$d/from-fifo" "$p" && [ -p "$d/fifo" ] && ok ||
		bad "a hit written to a FIFO: exit $rc, $(cat "$tmp/err")"
	# a key others can read: refused, said, and the hit still served
	chmod 644 "$CCPLAN_CACHE_KEY"
	rm -f "$d/a.ccp"
	"$ccplan" compile -v --cache "$db" "$y" -o "$d/a.ccp" 2>"$tmp/err" &&
		cmp -s "$d/a.ccp" "$p" && grep -q 'refusing the cache key .*mode 0644.*chmod 600' "$tmp/err" &&
		grep -q 'cache hit' "$tmp/err" && ok || bad "a key others can read: $(cat "$tmp/err")"
	# without a key, a hit the output holds is compared byte for byte
	touch -d '2001-01-01' "$d/a.ccp"
	ino=$(stat -c %i "$d/a.ccp")
	"$ccplan" compile -v --cache "$db" "$y" -o "$d/a.ccp" 2>"$tmp/err" &&
		cmp -s "$d/a.ccp" "$p" && [ "$(stat -c %i "$d/a.ccp")" = "$ino" ] &&
		[ "$(stat -c %Y "$d/a.ccp")" -gt $(($(date +%s) - 60)) ] &&
		grep -q 'the file held it already' "$tmp/err" && ok ||
		bad "an unchanged output, no key: $(cat "$tmp/err")"
	chmod 600 "$CCPLAN_CACHE_KEY"
	# scan seals what it stores, and seals again the hits it stores
	# again (a store drops an entry's seals); compile is then served by
	# the seal scan left
	local sdb=$tmp/s-scan/plans.db
	printf '#pragma ccplan plan(m16, "%s")\nint m16_x;\n' "$y" >"$tmp/s-scan.c"
	"$ccplan" scan --cache "$sdb" "$tmp/s-scan.c" 2>"$tmp/err" &&
		"$poke" "$sdb" check >"$tmp/chk" && grep -q '^seals: 1$' "$tmp/chk" && ok ||
		bad "scan's miss is not sealed: $(cat "$tmp/err" "$tmp/chk")"
	"$ccplan" scan -v --cache "$sdb" "$tmp/s-scan.c" 2>"$tmp/err" &&
		grep -q 'already in the cache' "$tmp/err" &&
		"$poke" "$sdb" check >"$tmp/chk" && grep -q '^seals: 1$' "$tmp/chk" && ok ||
		bad "scan's hit is not sealed again: $(cat "$tmp/err" "$tmp/chk")"
	rm -f "$d/a.ccp"
	"$ccplan" compile -v --cache "$sdb" "$y" -o "$d/a.ccp" 2>"$tmp/err" &&
		cmp -s "$d/a.ccp" "$p" && grep -q 'cache hit' "$tmp/err" && ok ||
		bad "compile after scan: $(cat "$tmp/err")"
	echo "  key 0600, unchanged output kept (inode $ino), rewritten when it differs; 0644 key refused; scan seals"
}

for part in $parts; do
	case $part in
	kill | flip | full | readonly | output | seal) "part_$part" ;;
	*) bad "unknown part $part" ;;
	esac
done
echo "cache_faults: $pass passed, $fail failed"
[ "$fail" = 0 ]
