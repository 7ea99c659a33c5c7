#!/usr/bin/env bash
# package_test.sh BUILD_DIR - ccplan as a user's build sees it: install it
# into a fresh prefix and use that prefix alone.
#  - the precompile step: build examples/cmake-app against it from scratch
#    (find_package(ccplan), ccplan_add_plans, ccplan_scan_sources), run it
#    on 4 ranks, check that a changed YAML and a changed source rebuild the
#    plans;
#  - compile a program with each pkg-config file, check that the runtime
#    alone needs no SQLite and that the libraries export only the public
#    API;
#  - build an inspector program (a machine from YAML and from the grid
#    constructor, then ccp_inspect) with pkg-config and with CMake and run
#    it on 4 ranks over sockets: by ccplan run, started as srun would
#    start it (Slurm's variables), and by mpirun;
#  - what docs/install.md promises: the docs, the examples and
#    ccplan-bench installed, no absolute library path in an exported
#    target, the installed examples/inspector-mpi-app (the inspector over
#    MPI) built with find_package(ccplan COMPONENTS inspector mpi) and
#    with pkg-config ccplan-mpi ccplan-inspector and run with mpirun on 4
#    ranks, a sockets-only project that builds with MPI made unfindable
#    and never looks for MPI, the OpenSHMEM transport linked both ways,
#    and find_package refusing an unknown or unbuildable component with
#    the reason.
# CFLAGS and LDFLAGS, if set, go to every build (a sanitizer build sets
# them to its -fsanitize flags), and CCP_KEEP_PLUGINS, if set, names
# tests/sanitize/keep_plugins.c, linked into the MPI programs (the
# sanitizer build; tests/sanitize/sanitize.cmake).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
ccplan="$tmp/prefix/bin/ccplan"
[ -x "$ccplan" ] || fail "no ccplan installed"

# a copy of the example, so that editing it below leaves the tree alone
cp -r "$src/examples/cmake-app" "$tmp/app-src"
export CCPLAN_CACHE="$tmp/cache.db"
export CCPLAN_CACHE_KEY="$tmp/cache-key" # the key that seals its plans, not the user's
cmake -S "$tmp/app-src" -B "$tmp/app" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail configure; }
cmake --build "$tmp/app" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail build; }
out=$("$ccplan" run -n 4 --timeout 20 "$tmp/app/app" 2>&1) || { echo "$out"; fail run; }
[ "$(grep -c 'bcast4, gather4, scatter4 ok' <<<"$out")" = 4 ] || { echo "$out"; fail "not every rank ok"; }
echo "app: 4 ranks ok"

# nothing changed: nothing is compiled again
cmake --build "$tmp/app" >"$tmp/b2.log" 2>&1
! grep -q "ccplan:" "$tmp/b2.log" || { cat "$tmp/b2.log"; fail "rebuilt with no change"; }
# a YAML the scan read changed: the scan runs again (its depfile)
sleep 1
sed -i 's/bytes: 64/bytes: 64  # edited/' "$tmp/app-src/bcast4.yaml"
cmake --build "$tmp/app" >"$tmp/b3.log" 2>&1
grep -q "scanning app's sources" "$tmp/b3.log" || { cat "$tmp/b3.log"; fail "YAML change did not rescan"; }
# the YAML of ccplan_add_plans changed: that plan is compiled again
sed -i 's/bytes: 8$/bytes: 8  # edited/' "$tmp/app-src/plans/scatter4.yaml"
cmake --build "$tmp/app" >"$tmp/b4.log" 2>&1
grep -q "compiling plan scatter4" "$tmp/b4.log" || { cat "$tmp/b4.log"; fail "YAML change did not recompile"; }
echo "rebuilds: ok"

# pkg-config: the runtime alone, linked into a one-file program
cat >"$tmp/pc.c" <<'C'
#include <ccplan.h>
#include <stdio.h>
int main(void)
{
	ccp_context *ctx;
	if (ccp_init(&ctx, NULL, NULL) != 0)
		return 1;
	ccp_plan *p;
	int rc = ccp_plan_load_file(ctx, "/nonexistent.ccp", 0, &p);
	printf("%s\n", ccp_strerror(rc));
	ccp_fini(ctx);
	return rc == CCP_ENOTFOUND ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# shellcheck disable=SC2046,SC2086 # flags: lists of words
cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} "$tmp/pc.c" \
   -o "$tmp/pc" ${LDFLAGS:-} \
   $(pkg-config --cflags --libs ccplan) || fail "pkg-config build"
"$tmp/pc" >/dev/null || fail "pkg-config program"
echo "pkg-config: ok"

# the runtime alone needs no SQLite: the installed library refers to no
# plan cache code, and the program above, linked with the libraries
# pkg-config gives, does not load libsqlite3 (docs/runtime.md, "Linking")
lib="$tmp/prefix/lib"
if nm -u "$lib/libccp_runtime.a" | grep -E ' (cache_|sqlite3_)'; then
	fail "libccp_runtime.a needs the plan cache"
fi
if readelf -d "$tmp/pc" | grep -E 'NEEDED.*libsqlite3'; then
	fail "a program of the runtime alone needs libsqlite3"
fi
echo "runtime without SQLite: ok"

# visibility: in every installed library only the public API, the ccp_
# functions the headers mark CCP_EXTERN, has default visibility, so that a
# shared object built from them exports nothing else (ir_*, cache_*,
# ccp__*).  Names with a leading __ belong to the compiler's
# instrumentation (sanitizers).
for a in "$lib"/libccp_*.a; do
	others=$(readelf -sW "$a" | awk '($5 == "GLOBAL" || $5 == "WEAK") &&
		$6 == "DEFAULT" && $7 != "UND" && $8 !~ /^(ccp_[a-z]|__)/ {
		print $8 }' | sort -u | tr '\n' ' ')
	[ -z "$others" ] || fail "$(basename "$a") exports $others"
done
for f in ccp_init ccp_plan_execute ccp_strerror; do
	readelf -sW "$lib/libccp_runtime.a" "$lib/libccp_ir.a" |
		awk -v f="$f" '$8 == f && $7 != "UND" && $6 == "DEFAULT" { ok = 1 }
		END { exit !ok }' || fail "$f is not exported"
done
# and so a shared object made of all of them exports ccp_ names only
cc -shared -o "$tmp/libwhole.so" -Wl,--whole-archive "$lib"/libccp_*.a \
   -Wl,--no-whole-archive || fail "a shared object of the libraries"
others=$(nm -D --defined-only "$tmp/libwhole.so" |
	awk '$3 !~ /^(ccp_[a-z]|__)/ { print $3 }' | tr '\n' ' ')
[ -z "$others" ] || fail "a shared object of the libraries exports $others"
echo "exports: ccp_ only"

# the cache loader: its own library, with SQLite (pkg-config ccplan-cache)
cat >"$tmp/pcc.c" <<'C'
#include <ccplan.h>
#include <ccplan_lookup.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	ccp_context *ctx;
	if (argc != 2 || ccp_init(&ctx, NULL, NULL) != 0)
		return 1;
	ccp_plan *p;
	int rc = ccp_plan_load_cache(ctx, argv[1], "00", 0, &p);
	printf("%s\n", ccp_errmsg(ctx));
	int rc2 = ccp_plan_lookup(ctx, "no_such_plan", 0, &p);
	ccp_fini(ctx);
	return rc < 0 && rc2 == CCP_ENOTFOUND ? 0 : 1;
}
C
# shellcheck disable=SC2046,SC2086 # flags: lists of words
cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} "$tmp/pcc.c" \
   -o "$tmp/pcc" ${LDFLAGS:-} \
   $(pkg-config --cflags --libs ccplan-cache) || fail "pkg-config ccplan-cache build"
"$tmp/pcc" "$CCPLAN_CACHE" >/dev/null || fail "pkg-config ccplan-cache program"
readelf -d "$tmp/pcc" | grep -qE 'NEEDED.*libsqlite3' ||
	fail "the cache loader's program does not load libsqlite3"
echo "pkg-config ccplan-cache: ok"

# the inspector and its machine model (pkg-config ccplan-inspector, CMake
# ccplan::inspector): a program that makes a 2x2 mesh from the machine:
# mapping of YAML and with the grid constructor, is refused a bad one at
# its line:column, and inspects and executes a ring shift on 4 ranks with
# each machine
cat >"$tmp/insp.c" <<'C'
#include <ccplan_inspector.h>
#include <ccplan_sockets.h>
#include <stdio.h>
#include <string.h>
/* inspect a shift by one rank on machine m, execute it, check the bytes */
static int shift(ccp_context *ctx, ccp_transport *t, const ccp_machine *m)
{
	int32_t r = ccp_transport_rank(t), n = ccp_transport_size(t);
	int32_t dst = (r + 1) % n;
	uint64_t len = 8;
	unsigned char s[8], got[8] = {0};
	ccp_inspect_options o = {.machine = m, .seed = 1};
	ccp_inspect_result res;
	ccp_plan *p = NULL;
	int rc = ccp_inspect(ctx, t, &dst, &len, 1, &o, &p, &res);
	memset(s, r + 1, sizeof s);
	if (rc == 0)
		rc = ccp_plan_bind(p, s, res.send_bytes, got, res.recv_bytes,
		                   NULL, 0);
	if (rc == 0)
		rc = ccp_plan_execute(p, t, 0);
	for (int i = 0; rc == 0 && i < 8; i++)
		if (got[i] != (r + n - 1) % n + 1)
			rc = -1;
	ccp_inspect_result_fini(&res);
	ccp_plan_free(p);
	return rc;
}
int main(void)
{
	static const char yaml[] = "machine:\n  topology: mesh\n  dims: [2, 2]\n";
	static const char bad[] = "machine:\n  topology: mesh\n  dims: [2, 0]\n";
	ccp_context *ctx;
	ccp_transport *t;
	ccp_machine *my = NULL, *mg = NULL, *mb = NULL;
	if (ccp_init(&ctx, NULL, NULL) != 0 ||
	    ccp_socket_transport(ctx, NULL, &t) != 0)
		return 1;
	int ok = ccp_machine_from_yaml(ctx, yaml, strlen(yaml), &my) == 0 &&
	         ccp_machine_grid(ctx, "mesh", 2, (const int[]){2, 2}, 1,
	                          &mg) == 0 &&
	         ccp_machine_nranks(my) == 4 && ccp_machine_nranks(mg) == 4;
	ok = ok && ccp_machine_from_yaml(ctx, bad, strlen(bad), &mb) ==
	                   CCP_EPARSE &&
	     !mb && strncmp(ccp_errmsg(ctx), "3:", 2) == 0;
	ok = ok && shift(ctx, t, my) == 0 && shift(ctx, t, mg) == 0;
	printf("inspector %s: %s\n", ok ? "ok" : "FAILED", ccp_errmsg(ctx));
	ccp_machine_free(my);
	ccp_machine_free(mg);
	ccp_transport_free(t);
	ccp_fini(ctx);
	return ok ? 0 : 1;
}
C
# shellcheck disable=SC2046,SC2086 # flags: lists of words
cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} "$tmp/insp.c" \
   -o "$tmp/insp" ${LDFLAGS:-} \
   $(pkg-config --cflags --libs ccplan-inspector ccplan) || fail "pkg-config ccplan-inspector build"
out=$("$ccplan" run -n 4 --timeout 20 "$tmp/insp" 2>&1) || { echo "$out"; fail "inspector run"; }
[ "$(grep -c '^inspector ok' <<<"$out")" = 4 ] || { echo "$out"; fail "inspector: not every rank ok"; }
for f in ccp_inspect ccp_machine_from_yaml ccp_machine_grid ccp_machine_nranks ccp_machine_free; do
	readelf -sW "$lib/libccp_inspector.a" |
		awk -v f="$f" '$8 == f && $7 != "UND" && $6 == "DEFAULT" { ok = 1 }
		END { exit !ok }' || fail "$f is not exported"
done
mkdir "$tmp/insp-src"
cp "$tmp/insp.c" "$tmp/insp-src/"
cat >"$tmp/insp-src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(insp LANGUAGES C)
find_package(ccplan REQUIRED)
add_executable(insp insp.c)
target_link_libraries(insp PRIVATE ccplan::inspector ccplan::backend_sockets)
CM
cmake -S "$tmp/insp-src" -B "$tmp/insp-build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      >"$tmp/insp-configure.log" 2>&1 || { cat "$tmp/insp-configure.log"; fail "inspector: CMake configure"; }
cmake --build "$tmp/insp-build" >"$tmp/insp-build.log" 2>&1 || { cat "$tmp/insp-build.log"; fail "inspector: CMake build"; }
out=$("$ccplan" run -n 4 --timeout 20 "$tmp/insp-build/insp" 2>&1) || { echo "$out"; fail "inspector (CMake) run"; }
[ "$(grep -c '^inspector ok' <<<"$out")" = 4 ] || { echo "$out"; fail "inspector (CMake): not every rank ok"; }
echo "inspector: pkg-config and CMake ok"
# the same sockets program without ccplan run (docs/sockets.md, "Without
# ccplan run"): 4 processes with Slurm's variables, as srun starts them,
# and Open MPI's own mpirun; rank 0 serves the job and leaves the
# rendezvous file in a directory of the test's
export CCPLAN_RENDEZVOUS="$tmp/rdv"
for r in 0 1 2 3; do
	SLURM_PROCID=$r SLURM_NTASKS=4 SLURM_JOB_ID=pkg SLURM_STEP_ID=0 \
		SLURM_STEP_NUM_NODES=1 CCPLAN_TIMEOUT_MS=20000 \
		timeout 60 "$tmp/insp" >"$tmp/srun-$r.out" 2>&1 &
done
wait
[ "$(cat "$tmp"/srun-*.out | grep -c '^inspector ok')" = 4 ] ||
	{ cat "$tmp"/srun-*.out; fail "inspector, started as srun would: not every rank ok"; }
if command -v mpirun >/dev/null; then
	out=$(timeout 60 mpirun --allow-run-as-root --oversubscribe -n 4 \
		-x CCPLAN_RENDEZVOUS "$tmp/insp" 2>&1) ||
		{ echo "$out"; fail "inspector under mpirun"; }
	[ "$(grep -c '^inspector ok' <<<"$out")" = 4 ] ||
		{ echo "$out"; fail "inspector under mpirun: not every rank ok"; }
fi
unset CCPLAN_RENDEZVOUS
echo "inspector over sockets started by ccplan run, as srun would, by mpirun: ok"

# --- what docs/install.md promises ---------------------------------------
prefix="$tmp/prefix"
doc="$prefix/share/doc/ccplan"
# the docs as the source tree lays them out, so that their links hold
[ -f "$doc/README.md" ] || fail "README.md not installed"
for f in "$src"/docs/*.md "$src"/docs/ccplan.1 "$src"/docs/img/*; do
	[ -f "$doc/docs/${f#"$src/docs/"}" ] || fail "docs/${f#"$src/docs/"} not installed"
done
for f in examples/README.md examples/cmake-app/CMakeLists.txt \
	examples/halo/halo.c examples/mesh16-auto.yaml \
	examples/inspector-mpi-app/CMakeLists.txt \
	examples/inspector-mpi-app/app.c examples/inspector-mpi-app/README.md \
	examples/halo3d/CMakeLists.txt examples/halo3d/halo3d.c \
	examples/halo3d/README.md; do
	cmp -s "$src/$f" "$doc/$f" || fail "$f not installed"
done
[ -f "$prefix/share/man/man1/ccplan.1" ] || fail "the man page not installed"
echo "docs and examples: installed"

# no absolute path in an exported target: what a target needs outside the
# prefix is another imported target (SQLite::SQLite3, MPI::MPI_C,
# OpenSHMEM::OpenSHMEM, ...) that ccplanConfig.cmake finds again
abs=$(grep -hE '^ +INTERFACE_(LINK_LIBRARIES|INCLUDE_DIRECTORIES) ' \
	"$prefix"/lib/cmake/ccplan/ccplan-*-targets.cmake |
	grep -E '"/|;/' || true)
[ -z "$abs" ] || fail "an exported target names an absolute path: $abs"
# and nothing installed to find the package by points back at the
# source or build tree
if grep -rlF -e "$src" -e "$build" "$prefix"/lib/cmake "$prefix"/lib/pkgconfig; then
	fail "the package names the source or build tree"
fi
echo "exported targets: no absolute paths"

# a CMake project's configure (and build) against the prefix alone:
# configure NAME SRC [cmake args...]; the log is $tmp/NAME.log
configure() {
	local name=$1 dir=$2
	shift 2
	cmake -S "$dir" -B "$tmp/$name" -DCMAKE_PREFIX_PATH="$prefix" \
	      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@" >"$tmp/$name.log" 2>&1
}
build_it() {
	configure "$@" || { cat "$tmp/$1.log"; fail "$1: configure"; }
	cmake --build "$tmp/$1" >>"$tmp/$1.log" 2>&1 ||
		{ cat "$tmp/$1.log"; fail "$1: build"; }
}

# the sockets transport alone: the project configures and builds with MPI
# made unfindable, and without that, still never looks for MPI
mkdir "$tmp/sock-src"
cat >"$tmp/sock-src/sock.c" <<'C'
#include <ccplan_sockets.h>
#include <stdio.h>
int main(void)
{
	ccp_context *ctx;
	ccp_transport *t;
	if (ccp_init(&ctx, NULL, NULL) != 0 ||
	    ccp_socket_transport(ctx, NULL, &t) != 0)
		return 1;
	printf("sockets: rank %d of %d\n", (int)ccp_transport_rank(t),
	       (int)ccp_transport_size(t));
	ccp_transport_free(t);
	ccp_fini(ctx);
	return 0;
}
C
cat >"$tmp/sock-src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(sock LANGUAGES C)
find_package(ccplan 0.1 REQUIRED COMPONENTS sockets)
if(NOT ccplan_sockets_FOUND OR DEFINED ccplan_mpi_FOUND OR
   TARGET MPI::MPI_C OR DEFINED MPI_C_FOUND)
  message(FATAL_ERROR "sockets asked for: sockets ${ccplan_sockets_FOUND}, mpi '${ccplan_mpi_FOUND}', MPI '${MPI_C_FOUND}'")
endif()
add_executable(sock sock.c)
target_link_libraries(sock PRIVATE ccplan::backend_sockets)
CM
build_it sock-nompi "$tmp/sock-src" -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
configure sock-quiet "$tmp/sock-src" ||
	{ cat "$tmp/sock-quiet.log"; fail "sockets: configure with MPI there"; }
out=$("$ccplan" run -n 2 --timeout 20 "$tmp/sock-nompi/sock" 2>&1) || { echo "$out"; fail "sockets-only run"; }
[ "$(grep -c '^sockets: rank [01] of 2$' <<<"$out")" = 2 ] || { echo "$out"; fail "sockets-only: not every rank"; }
echo "sockets only: builds and runs without MPI"

# find_package's refusals: each configure fails, and says why
mkdir "$tmp/probe-src"
cat >"$tmp/probe-src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(probe LANGUAGES C)
find_package(ccplan ${PROBE})
message(STATUS "probe: ccplan ${ccplan_FOUND}, mpi '${ccplan_mpi_FOUND}', sockets '${ccplan_sockets_FOUND}'")
CM
refused() { # refused NAME 'find_package args' 'expected message' [cmake args]
	local name=$1 args=$2 want=$3
	shift 3
	! configure "$name" "$tmp/probe-src" "-DPROBE=$args" "$@" ||
		{ cat "$tmp/$name.log"; fail "$name: find_package($args) did not fail"; }
	# CMake wraps the message: compare it as one line
	tr -s ' \n' '  ' <"$tmp/$name.log" | grep -qF "$want" ||
		{ cat "$tmp/$name.log"; fail "$name: no '$want'"; }
}
refused unknown "REQUIRED;COMPONENTS;sockets;nonexistent" \
	'ccplan has no component "nonexistent"; its components are runtime, cache, inspector, sockets, mpi, shmem'
refused target-name "REQUIRED;COMPONENTS;backend_sockets" \
	'(ccplan::backend_sockets is in the component sockets)'
# an optional unknown one is only not found
configure optional-unknown "$tmp/probe-src" "-DPROBE=REQUIRED;COMPONENTS;sockets;OPTIONAL_COMPONENTS;nonexistent" ||
	{ cat "$tmp/optional-unknown.log"; fail "an optional unknown component failed"; }
grep -qF "probe: ccplan 1, mpi '', sockets 'TRUE'" "$tmp/optional-unknown.log" ||
	{ cat "$tmp/optional-unknown.log"; fail "optional unknown component"; }
echo "find_package refuses an unknown component: ok"

if [ ! -f "$prefix/lib/libccp_backend_mpi.a" ]; then
	echo "MPI: skipped, ccplan was built without the MPI transport"
else
	[ -x "$prefix/bin/ccplan-bench" ] || fail "ccplan-bench not installed"
	mpirun=(mpirun --allow-run-as-root --oversubscribe)
	"${mpirun[@]}" -n 1 "$prefix/bin/ccplan-bench" --help | grep -q '^usage: mpirun -n N ccplan-bench' ||
		fail "the installed ccplan-bench does not run"
	echo "ccplan-bench: installed, runs"
	if [ -f "$prefix/lib/libccp_inspector.a" ]; then
		[ -x "$prefix/bin/ccplan-overlap" ] || fail "ccplan-overlap not installed"
		"${mpirun[@]}" -n 1 "$prefix/bin/ccplan-overlap" --help | grep -q '^usage: mpirun -n N ccplan-overlap' ||
			fail "the installed ccplan-overlap does not run"
		echo "ccplan-overlap: installed, runs"
	fi

	# the mpi component needs MPI, and says so
	refused mpi-missing "REQUIRED;COMPONENTS;mpi" \
		'the component mpi was not found: it needs MPI' \
		-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
	configure mpi-optional "$tmp/probe-src" "-DPROBE=REQUIRED;COMPONENTS;sockets;OPTIONAL_COMPONENTS;mpi" \
		-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON ||
		{ cat "$tmp/mpi-optional.log"; fail "optional mpi without MPI failed"; }
	grep -qF "probe: ccplan 1, mpi 'FALSE', sockets 'TRUE'" "$tmp/mpi-optional.log" ||
		{ cat "$tmp/mpi-optional.log"; fail "optional mpi without MPI"; }
	# pkg-config ccplan-mpi: no libsodium, no SQLite
	if pkg-config --libs ccplan-mpi | grep -qE -- '-l(sodium|sqlite3)'; then
		fail "ccplan-mpi brings in $(pkg-config --libs ccplan-mpi)"
	fi
	echo "mpi component: found only when asked for"

	# the installed example, the inspector over MPI: CMake and pkg-config
	mpi_ldflags=${LDFLAGS:-}
	if [ -n "${CCP_KEEP_PLUGINS:-}" ]; then
		# shellcheck disable=SC2086 # CFLAGS: a list of words
		cc ${CFLAGS:-} -c "$CCP_KEEP_PLUGINS" -o "$tmp/keep_plugins.o"
		mpi_ldflags="$mpi_ldflags $tmp/keep_plugins.o -Wl,--export-dynamic-symbol=dlclose"
	fi
	app="$doc/examples/inspector-mpi-app"
	LDFLAGS=$mpi_ldflags build_it insp-mpi "$app"
	# shellcheck disable=SC2046,SC2086 # flags: lists of words
	cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} "$app/app.c" \
	   -o "$tmp/insp-mpi-pc" $mpi_ldflags \
	   $(pkg-config --cflags --libs ccplan-mpi ccplan-inspector) ||
		fail "pkg-config ccplan-mpi ccplan-inspector build"
	for prog in "$tmp/insp-mpi/inspector_mpi_app" "$tmp/insp-mpi-pc"; do
		out=$(timeout 60 "${mpirun[@]}" -n 4 "$prog" 2>&1) ||
			{ echo "$out"; fail "$prog: mpirun -n 4"; }
		grep -qE '^inspector over MPI on 4 ranks: 12 messages, [0-9]+ phases .* every byte ok$' <<<"$out" ||
			{ echo "$out"; fail "$prog: not every byte ok"; }
	done
	echo "inspector over MPI: CMake and pkg-config, 4 ranks ok"

	# the installed 3D halo (examples/halo3d): the inspector, binding by
	# pieces and start/test/wait, over MPI and over sockets, built with
	# CMake (components inspector sockets mpi) and with pkg-config; 8
	# ranks (a 2x2x2 grid), every value checked, under mpirun, ccplan
	# run, Slurm's variables and mpirun again for the sockets program
	app="$doc/examples/halo3d"
	LDFLAGS=$mpi_ldflags build_it halo3d "$app"
	# shellcheck disable=SC2046,SC2086 # flags: lists of words
	cc -std=c11 -Wall -Wextra -Wpedantic -Werror -DHALO_MPI ${CFLAGS:-} \
	   "$app/halo3d.c" -o "$tmp/halo3d-mpi-pc" $mpi_ldflags \
	   $(pkg-config --cflags --libs ccplan-mpi ccplan-inspector) ||
		fail "halo3d: pkg-config ccplan-mpi ccplan-inspector build"
	# shellcheck disable=SC2046,SC2086 # flags: lists of words
	cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} \
	   "$app/halo3d.c" -o "$tmp/halo3d-sock-pc" ${LDFLAGS:-} \
	   $(pkg-config --cflags --libs ccplan-inspector ccplan) ||
		fail "halo3d: pkg-config ccplan-inspector ccplan build"
	halo_ok() { # OUTPUT WHAT: 8 ranks, each saying every value ok
		[ "$(grep -c '^halo3d rank [0-7] of 8 (grid 2x2x2, 3 peers, [0-9]* phases): every value ok$' <<<"$1")" = 8 ] ||
			{ echo "$1"; fail "halo3d $2: not every rank ok"; }
	}
	for prog in "$tmp/halo3d/halo3d_mpi" "$tmp/halo3d-mpi-pc"; do
		out=$(timeout 60 "${mpirun[@]}" -n 8 "$prog" 8 2>&1) ||
			{ echo "$out"; fail "$prog: mpirun -n 8"; }
		halo_ok "$out" "over MPI ($prog)"
	done
	for prog in "$tmp/halo3d/halo3d_sockets" "$tmp/halo3d-sock-pc"; do
		out=$("$ccplan" run -n 8 --timeout 30 "$prog" 8 2>&1) ||
			{ echo "$out"; fail "$prog: ccplan run -n 8"; }
		halo_ok "$out" "over sockets, ccplan run ($prog)"
	done
	export CCPLAN_RENDEZVOUS="$tmp/rdv"
	for r in 0 1 2 3 4 5 6 7; do
		SLURM_PROCID=$r SLURM_NTASKS=8 SLURM_JOB_ID=halo3d \
			SLURM_STEP_ID=0 SLURM_STEP_NUM_NODES=1 \
			timeout 60 "$tmp/halo3d-sock-pc" 8 >"$tmp/h3-$r.out" 2>&1 &
	done
	wait
	halo_ok "$(cat "$tmp"/h3-*.out)" "over sockets, as srun starts it"
	out=$(timeout 60 "${mpirun[@]}" -n 8 -x CCPLAN_RENDEZVOUS \
		"$tmp/halo3d/halo3d_sockets" 8 2>&1) ||
		{ echo "$out"; fail "halo3d_sockets: mpirun -n 8"; }
	halo_ok "$out" "over sockets, under mpirun"
	unset CCPLAN_RENDEZVOUS
	echo "halo3d: CMake and pkg-config; MPI; sockets by ccplan run, as srun would, by mpirun: 8 ranks ok"
fi

# the OpenSHMEM transport: ccplan::backend_shmem finds the OpenSHMEM again
# (no path of it in the package), and ccplan-shmem gives its flags; linked
# both ways (running under oshrun is tests/shmem's)
if [ ! -f "$prefix/lib/libccp_backend_shmem.a" ]; then
	echo "OpenSHMEM: skipped, ccplan was built without the transport"
else
	mkdir "$tmp/shm-src"
	cat >"$tmp/shm-src/shm.c" <<'C'
#include <ccplan_shmem.h>
#include <shmem.h>
int main(void)
{
	ccp_context *ctx;
	ccp_transport *t;
	shmem_init();
	int rc = ccp_init(&ctx, NULL, NULL) || ccp_shmem_transport(ctx, &t);
	if (rc == 0) {
		ccp_transport_free(t);
		ccp_fini(ctx);
	}
	shmem_finalize();
	return rc;
}
C
	cat >"$tmp/shm-src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(shm LANGUAGES C)
find_package(ccplan 0.1 REQUIRED COMPONENTS shmem)
add_executable(shm shm.c)
target_link_libraries(shm PRIVATE ccplan::backend_shmem)
CM
	build_it shm "$tmp/shm-src"
	# shellcheck disable=SC2046,SC2086 # flags: lists of words
	cc -std=c11 ${CFLAGS:-} "$tmp/shm-src/shm.c" -o "$tmp/shm-pc" \
	   ${LDFLAGS:-} $(pkg-config --cflags --libs ccplan-shmem) ||
		fail "pkg-config ccplan-shmem build"
	echo "OpenSHMEM: CMake and pkg-config link"
fi
