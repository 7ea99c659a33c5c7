#!/bin/sh
# make_seeds.sh CCPLAN - write the seed inputs of the plan, cache, exec
# and matrix harnesses (tests/fuzz/*/corpus/seed-*): .ccp plans of 4 to 8
# ranks (under 4 KB each) compiled by CCPLAN from the small inputs below
# (every collective, the irregular pattern, each topology, a pipelined
# broadcast, `auto`, and all-port plans whose phases hold several
# operations or messages of several pieces), the same plans for the
# executing harness, behind the cache harness's 17-byte prefix, and the
# matrix files of tests/good and tests/bad behind the matrix harness's
# control byte.  The YAML harness's seeds are
# tests/fuzz/yaml/corpus/alg-*.yaml (one small input per algorithm) and
# examples/, tests/good and tests/bad in place.  Run from anywhere; rerun
# after a change of the plan format.
set -eu
ccplan=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$here/plan/corpus" "$here/cache/corpus" "$here/matrix/corpus" \
	"$here/exec/corpus"

plan() { # name, YAML text
	printf '%s\n' "$2" > "$tmp/$1.yaml"
	"$ccplan" compile "$tmp/$1.yaml" -o "$here/plan/corpus/seed-$1.ccp" \
		--no-cache > /dev/null
}
plan bcast-mesh 'machine: {topology: mesh, dims: [4, 2]}
communication: {collective: broadcast, root: 5, bytes: 64}
algorithm: binomial'
plan bcast-segments 'machine: {topology: mesh, dims: [4]}
communication: {collective: broadcast, bytes: 100, segments: 3}
algorithm: fibonacci'
plan scatter 'machine: {topology: mesh, dims: [2, 2], ports: one}
communication: {collective: scatter, root: 3, bytes: 16}
algorithm: tree_scatter'
plan gather 'machine: {topology: mesh, dims: [2, 2], ports: one}
communication: {collective: gather, root: 1, bytes: 8}
algorithm: tree_gather'
plan scatter-linear 'machine: {topology: switch, ranks: 4}
communication: {collective: scatter, root: 2, bytes: 4}
algorithm: linear'
plan reduce 'machine: {topology: mesh, dims: [4]}
communication: {collective: reduce, root: 2, bytes: 32, dtype: double, op: max}
algorithm: binomial'
plan alltoall 'machine: {topology: switch, ranks: 4}
communication: {collective: alltoall, bytes: 8}
algorithm: pex'
plan alltoall-indirect 'machine: {topology: mesh, dims: [2, 2], ports: one}
communication: {collective: alltoall, bytes: 8}
algorithm: ipex'
plan transpose 'machine: {topology: mesh, dims: [2, 2]}
communication: {collective: transpose, bytes: 8}
algorithm: transpose_direct'
plan irregular 'machine: {topology: switch, ranks: 4}
communication:
  pattern: irregular
  edges: [[0, 1, 10], [1, 0, 6], [2, 3, 5], [3, 1, 7]]
algorithm: rs_nl'
plan hypercube 'machine: {topology: hypercube, dimension: 3}
communication: {collective: broadcast, root: 6, bytes: 32}
algorithm: sbt'
plan torus 'machine: {topology: torus, dims: [2, 2, 2]}
communication: {collective: scatter, root: 3, bytes: 16}
algorithm: linear'
plan auto 'machine: {topology: mesh, dims: [2, 2], cost: {alpha: 1, beta: 0.01}}
communication: {collective: broadcast, bytes: 64}
algorithm: auto'
plan gather-allport 'machine: {topology: mesh, dims: [2, 2], ports: all}
communication: {collective: gather, root: 0, bytes: 8}
algorithm: tree_gather'
plan alltoall-allport 'machine: {topology: switch, ranks: 4, ports: all}
communication: {collective: alltoall, bytes: 8}
algorithm: pex'
plan reduce-int 'machine: {topology: switch, ranks: 4}
communication: {collective: reduce, root: 0, bytes: 64, dtype: int32, op: sum}
algorithm: binomial'

for f in "$here"/plan/corpus/seed-*.ccp; do
	name=$(basename "$f" .ccp)
	cp "$f" "$here/exec/corpus/$name.ccp"
	# control 0x0f: true size and checksum, resealed, key from the image
	{ printf '\017'; head -c 16 /dev/zero; cat "$f"; } \
		> "$here/cache/corpus/$name"
done

matrix() { # file, ranks, csv (1) or edge list (0)
	byte=$(( ($2 - 1) * 2 + $3 ))
	{ printf "\\$(printf %03o "$byte")"; cat "$1"; } \
		> "$here/matrix/corpus/seed-$(basename "$1")"
}
src=$(cd "$here/../.." && pwd)/tests
matrix "$src/good/irregular_csv.csv" 4 1
matrix "$src/good/irregular_edgefile.txt" 4 0
for f in "$src"/bad/*.csv; do matrix "$f" 4 1; done
for f in "$src"/bad/*.txt; do matrix "$f" 4 0; done
