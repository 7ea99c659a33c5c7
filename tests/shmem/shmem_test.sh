#!/usr/bin/env bash
# shmem_test.sh - run one OpenSHMEM test program on NP PEs under oshrun and
# check what every PE reported: one "RESULT rank R: N checks, 0 failed"
# line per rank 0..NP-1 (printed before shmem_finalize), one "FINALIZED
# rank R" line per rank (printed after it), and oshrun's exit status 0.
#
# Usage: shmem_test.sh OSHRUN NP PROGRAM [ARGS...]
#
# Open MPI 4.1.4's OpenSHMEM over UCX 1.13 crashes in shmem_finalize
# unless its UCX memory hooks are off (docs/shmem.md, "Finalize"), so the
# MCA options default to that; CCP_SHMEM_MCA replaces them (set it to ""
# to see the crash).  Running as root needs OMPI_ALLOW_RUN_AS_ROOT.
set -u
oshrun=$1 np=$2
shift 2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mca=${CCP_SHMEM_MCA-"--mca opal_common_ucx_opal_mem_hooks 0"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

start=$(date +%s.%N)
# shellcheck disable=SC2086 # $mca is a list of words
timeout 150 "$oshrun" --oversubscribe --bind-to none -np "$np" $mca "$@" \
	>"$out" 2>&1
rc=$?
end=$(date +%s.%N)
cat "$out"

fail=0
bad() { echo "FAIL: $*"; fail=1; }
for ((r = 0; r < np; r++)); do
	n=$(grep -c "^RESULT rank $r: [1-9][0-9]* checks, 0 failed" "$out")
	[ "$n" = 1 ] || bad "rank $r: no passing RESULT line (found $n)"
	n=$(grep -c "^FINALIZED rank $r\$" "$out")
	[ "$n" = 1 ] || bad "rank $r: did not return from shmem_finalize"
done
[ "$rc" = 0 ] || bad "oshrun exited with status $rc"
awk -v n="$np" -v a="$start" -v b="$end" -v ok="$([ $fail = 0 ] && echo ok || echo FAILED)" \
	'BEGIN { printf "shmem_test: %d PEs, %.1f s, %s\n", n, b - a, ok }'
exit $fail
