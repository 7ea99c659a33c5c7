#!/usr/bin/env bash
# package_test.sh BUILD_DIR - the precompile step as a user's build sees
# it: install ccplan into a fresh prefix, build examples/cmake-app against
# it from scratch (find_package(ccplan), ccplan_add_plans,
# ccplan_scan_sources), run it on 4 ranks, check that a changed YAML and a
# changed source rebuild the plans, compile a program with each
# pkg-config file, and check that the runtime alone needs no SQLite and
# that the libraries export only the public API.
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
