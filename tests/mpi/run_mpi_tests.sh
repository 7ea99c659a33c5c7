#!/bin/sh
# run_mpi_tests.sh - compile the YAML inputs of an MPI test into plans,
# then launch the test program on them (tests/mpi/mpi.cmake runs it).
#
#   run_mpi_tests.sh CCPLAN WORKDIR LAUNCHER... -- PROGRAM ARG...
#
# Every ARG ending in .yaml is compiled with `CCPLAN compile ARG -o
# WORKDIR/NAME.ccp --no-cache` and passed to the program as that .ccp
# file; other ARGs pass unchanged.  LAUNCHER is the mpirun command line
# up to the program (mpirun -n 4 --oversubscribe ...).  The exit status
# is the launcher's, or 2 when a plan does not compile.
set -eu
if [ $# -lt 4 ]; then
	echo "usage: $0 CCPLAN WORKDIR LAUNCHER... -- PROGRAM ARG..." >&2
	exit 2
fi
ccplan=$1
work=$2
shift 2
mkdir -p "$work"

# split the arguments at "--": launcher words first, then program words,
# rebuilding "$@" as launcher, program, plan files
n=$#
seen=0
i=0
while [ $i -lt $n ]; do
	a=$1
	shift
	i=$((i + 1))
	if [ $seen -eq 0 ] && [ "$a" = "--" ]; then
		seen=1
		continue
	fi
	case $a in
	*.yaml)
		if [ $seen -eq 1 ]; then
			name=$(basename "$a" .yaml)
			if ! "$ccplan" compile "$a" -o "$work/$name.ccp" \
				--no-cache >"$work/$name.log" 2>&1; then
				echo "$0: cannot compile $a:" >&2
				cat "$work/$name.log" >&2
				exit 2
			fi
			a=$work/$name.ccp
		fi
		;;
	esac
	set -- "$@" "$a"
done
if [ $seen -eq 0 ]; then
	echo "$0: no -- between the launcher and the program" >&2
	exit 2
fi
echo "+ $*"
exec "$@"
