#!/usr/bin/env bash
# package_test.sh BUILD_DIR - the precompile step as a user's build sees
# it: install ccplan into a fresh prefix, build examples/cmake-app against
# it from scratch (find_package(ccplan), ccplan_add_plans,
# ccplan_scan_sources), run it on 4 ranks, check that a changed YAML and a
# changed source rebuild the plans, compile a program with each
# pkg-config file, check that the runtime alone needs no SQLite and that
# the libraries export only the public API, and build an inspector program
# (a machine from YAML and from the grid constructor, then ccp_inspect) with
# pkg-config and with CMake and run it on 4 ranks.
# CFLAGS and LDFLAGS, if set, go to every build (a sanitizer build sets
# them to its -fsanitize flags).
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
# shellcheck disable=SC2086 # CFLAGS, LDFLAGS: lists of words
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
# shellcheck disable=SC2086 # CFLAGS, LDFLAGS: lists of words
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
# shellcheck disable=SC2086 # CFLAGS, LDFLAGS: lists of words
cc -std=c11 -Wall -Wextra -Wpedantic -Werror ${CFLAGS:-} "$tmp/insp.c" \
   -o "$tmp/insp" ${LDFLAGS:-} \
   $(pkg-config --cflags --libs ccplan-inspector) || fail "pkg-config ccplan-inspector build"
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
