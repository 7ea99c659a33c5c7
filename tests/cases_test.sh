#!/usr/bin/env bash
# cases_test.sh - every case that pairs an input with its expected output.
# In a case folder (tests/bad, tests/reject, tests/golden) an input
# NAME.IN has its expected files NAME.EXP next to it; the table of views
# below says, for each pair of extensions, which ccplan command to run on
# the input and how to compare.  One view is one line of the table, so a
# new kind of case is one line there.  Two comparisons:
#   error   the first line of stderr is the first line of NAME.err, the
#           exit status is its "exit: N" line, the last line of stderr is
#           the command's summary "ccplan: CMD: NAME.IN: exit N (...), T s",
#           nothing is on stdout, and nothing is written: the output file
#           ({out}) does not exist, its directory stays empty (no leftover
#           NAME.tmp.*), and no file appears beside the input;
#   stdout  the command exits 0 and its stdout is NAME.EXP byte for byte
#           (a mismatch prints the diff).
# Every command runs, under a 60 s timeout, in a scratch copy of the
# folder, naming the input by its file name (so the messages read
# "NAME.yaml:3:12: ..."); the files the folder's FIXTURES lists, which
# cannot be committed, are made in that copy first (see tests/bad/FIXTURES).
# An input without an expected file, an expected file without its input,
# a NAME.err without "exit: N" and a folder without cases fail too.
#
# After a deliberate change of explain's output, regenerate the expected
# files of the stdout views (.explain, .summary, .rank5) with
#   tests/cases_test.sh --update build/ccplan tests/golden
# and read the diff (git diff tests/golden) before committing it.  To add
# a case, put NAME.yaml in the folder, create its expected files empty and
# run --update.  --update never rewrites a NAME.err: each holds a message
# a user reads and the exit status, written by hand and changed by hand,
# one case at a time; the error cases are still checked.
#
# Usage: cases_test.sh [--update] [--min EXT=N]... CCPLAN [FOLDER...]
#   --update     rewrite the expected files of the stdout views
#   --min EXT=N  fail a folder with fewer than N inputs NAME.EXT
#   FOLDER       a case folder; by default every folder of tests/ that
#                holds an expected file of the table
# Prints "FOLDER: N of M cases match" per folder, and exits 1 on a mismatch.
set -u

# The table of views: the input's extension, the expected file's
# extension, the comparison, then the ccplan arguments ({in}: the input's
# file name; {out}: a file the command may write, NAME.ccp in a directory
# of its own).  Words are separated by spaces.
views='
yaml  err      error   compile {in} -o {out}
ccp   err      error   verify {in}
ccp   err      error   explain {in}
ccp   err      error   simulate {in}
yaml  explain  stdout  explain {in}
yaml  summary  stdout  explain {in} --summary
yaml  rank5    stdout  explain {in} --rank 5
'

update=0 mins=()
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1 ;;
	--min) mins+=("$2"); shift ;;
	--min=*) mins+=("${1#--min=}") ;;
	-*) echo "cases_test.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || { echo "usage: cases_test.sh [--update] [--min EXT=N]... CCPLAN [FOLDER...]" >&2; exit 2; }
ccplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# never the user's own cache
export CCPLAN_CACHE="$tmp/cache/plans.db"
export CCPLAN_CACHE_KEY="$tmp/cache-key" # the key that seals its plans, not the user's

# the table, as arrays indexed by row
v_in=() v_exp=() v_check=() v_args=()
while read -r vin vexp vcheck vargs; do
	[ -n "$vin" ] || continue
	v_in+=("$vin") v_exp+=("$vexp") v_check+=("$vcheck") v_args+=("$vargs")
done <<<"$views"

# by default, every folder of tests/ holding an expected file of the table
if [ $# = 0 ]; then
	for d in "$top"/tests/*/; do
		for e in $(printf '%s\n' "${v_exp[@]}" | sort -u); do
			compgen -G "$d*.$e" >/dev/null && { set -- "$@" "${d%/}"; break; }
		done
	done
fi

fail=0
# bad MESSAGE - count a failed check of the current folder and say why
bad() {
	nbad=$((nbad + 1))
	echo "FAIL: $*"
}

# make_fixtures SRC DIR - make in DIR the files SRC/FIXTURES lists (one
# per line: "fifo NAME", a FIFO with no writer; "sparse NAME N", a sparse
# file of N bytes)
make_fixtures() {
	local kind name size
	[ -f "$1/FIXTURES" ] || return 0
	while read -r kind name size; do
		case $kind in
		fifo) mkfifo "$2/$name" ;;
		sparse) truncate -s "$size" "$2/$name" ;;
		'#'* | '') ;;
		*) bad "$shown/FIXTURES: unknown kind '$kind'" ;;
		esac
	done <"$1/FIXTURES"
}

# read_lines FILE - the first and the last line of FILE into $first and
# $last, and N of its line "exit: N" (if any) into $exit_line; builtins
# only, as it runs several times per case
read_lines() {
	local l
	first="" last="" exit_line=""
	{
		IFS= read -r first
		last=$first
		while IFS= read -r l || [ -n "$l" ]; do
			last=$l
			[[ $l == "exit: "* ]] && exit_line=${l#exit: }
		done
	} <"$1"
	[[ $first == "exit: "* ]] && exit_line=${first#exit: }
}

# entries DIR - the paths of what DIR holds (hidden files too) into the
# array $names and, joined by spaces, into $listing
entries() {
	shopt -s nullglob dotglob
	names=("$1"/*)
	shopt -u nullglob dotglob
	listing="${names[*]}"
}

# run_view ROW SRC IN - run row ROW of the table on the input IN in the
# current directory (the folder's scratch copy) and compare with SRC's
# expected file; 0 if it matches (or, under --update, was rewritten)
run_view() {
	local row=$1 src=$2 in=$3
	local base=${in%.*} exp args=() w cmd rc want status before after new=""
	exp="$src/$base.${v_exp[$row]}"
	for w in ${v_args[$row]}; do
		case $w in
		'{in}') args+=("$in") ;;
		'{out}') args+=("$tmp/out/$base.ccp") ;;
		*) args+=("$w") ;;
		esac
	done
	cmd=${args[0]}
	entries .
	before=$listing
	timeout 60 "$ccplan" "${args[@]}" </dev/null >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	case ${v_check[$row]} in
	error)
		read_lines "$exp"
		want=$first status=$exit_line
		read_lines "$tmp/stderr"
		entries "$tmp/out"
		after=$listing
		entries .
		if [ -z "$status" ]; then bad "$shown/$base.err has no 'exit: N' line"
		elif [ "$rc" != "$status" ]; then bad "$cmd $in: exit $rc, expected $status: $first"
		elif [ "$first" != "$want" ]; then bad "$cmd $in: got '$first', expected '$want'"
		elif [[ $last != "ccplan: $cmd: $in: exit $status ("*"), "*" s" ]]; then
			bad "$cmd $in: the last line is not the summary: $last"
		elif [ -s "$tmp/stdout" ]; then bad "$cmd $in: printed a result: $(head -c 200 "$tmp/stdout")"
		elif [ -n "$after" ]; then
			bad "$cmd $in: left output behind: $(find "$tmp/out" -mindepth 1 -printf '%f ')"
		elif [ "$listing" != "$before" ]; then
			for w in "${names[@]}"; do
				[[ " $before " == *" $w "* ]] || new+="${w#./} "
			done
			bad "$cmd $in: wrote beside its input: $new"
		else return 0; fi
		# the next case starts with an empty output directory
		[ -z "$after" ] || { rm -rf "$tmp/out" && mkdir "$tmp/out"; }
		return 1
		;;
	stdout)
		if [ "$rc" != 0 ]; then
			bad "${v_args[$row]//\{in\}/$in}: exit $rc: $(head -n 3 "$tmp/stderr")"
			return 1
		fi
		if [ "$update" = 1 ]; then
			cmp -s "$tmp/stdout" "$exp" || { cp "$tmp/stdout" "$exp" && echo "updated $shown/$base.${v_exp[$row]}"; }
			return 0
		fi
		diff -u --label "$shown/$base.${v_exp[$row]}" --label "ccplan's output" "$exp" "$tmp/stdout" >"$tmp/diff" &&
			return 0
		bad "$shown/$base.${v_exp[$row]}: ccplan ${v_args[$row]//\{in\}/$in} differs:"
		cat "$tmp/diff"
		return 1
		;;
	*)
		bad "the table of views: unknown comparison '${v_check[$row]}'"
		return 1
		;;
	esac
}

# run_folder SRC - every case of the folder SRC, with its count
run_folder() {
	local src=$1 dir f name base ext row n=0 pass=0 m k by="" counts=()
	local is_in is_exp has found
	shown=${src#"$top"/}
	nbad=0
	[ -d "$src" ] || { bad "$shown: no such folder"; fail=$((fail + 1)); return; }
	dir="$tmp/case$((++nfolder))"
	cp -r "$src" "$dir"
	make_fixtures "$src" "$dir"
	cd "$dir" || return
	for row in "${!v_in[@]}"; do counts[row]=0; done
	for f in "$src"/*; do
		name=${f##*/} base=${name%.*} ext=${name##*.}
		[ "$name" != "$ext" ] || continue
		# an input runs every view whose expected file is there, and must
		# have one; an expected file must have its input
		is_in=0 is_exp=0 has=0 found=0
		for row in "${!v_in[@]}"; do
			if [ "${v_in[$row]}" = "$ext" ]; then
				is_in=1
				[ -f "$src/$base.${v_exp[$row]}" ] || continue
				has=1 n=$((n + 1)) counts[row]=$((counts[row] + 1))
				run_view "$row" "$src" "$name" && pass=$((pass + 1))
			fi
			if [ "${v_exp[$row]}" = "$ext" ]; then
				is_exp=1
				[ -f "$src/$base.${v_in[$row]}" ] && found=1
			fi
		done
		[ "$is_in" = 0 ] || [ "$has" = 1 ] || bad "$shown/$name has no expected file"
		[ "$is_exp" = 0 ] || [ "$found" = 1 ] || bad "$shown/$name has no input"
	done
	[ "$n" -gt 0 ] || bad "$shown: no cases"
	for m in "${mins[@]}"; do
		k=$(compgen -G "$src/*.${m%%=*}" | wc -l)
		[ "$k" -ge "${m#*=}" ] || bad "$shown: only $k inputs .${m%%=*}, at least ${m#*=} expected"
	done
	for row in "${!v_in[@]}"; do
		[ "${counts[row]}" = 0 ] ||
			by+="${by:+, }${counts[row]} ${v_args[$row]%% *} .${v_in[$row]} -> .${v_exp[$row]}"
	done
	echo "$shown: $pass of $n cases match ($by)"
	[ "$nbad" = 0 ] || fail=$((fail + 1))
}

# the folders as absolute paths, as each is run from its scratch copy
folders=()
for src in "$@"; do
	folders+=("$(cd "$(dirname "$src")" && pwd)/$(basename "$src")")
done
nfolder=0
mkdir "$tmp/out"
for src in "${folders[@]}"; do
	run_folder "$src"
done
[ "$fail" = 0 ]
