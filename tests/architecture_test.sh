#!/usr/bin/env bash
# architecture_test.sh - the folder table of docs/architecture.md names
# exactly the source tree's folders, to two levels (hidden folders and
# build trees left out), so that the page cannot drift from the tree.
# Usage: architecture_test.sh SOURCE_DIR
set -u
src=$1
doc="$src/docs/architecture.md"
[ -f "$doc" ] || { echo "no $doc"; exit 1; }
want=$(sed -n '/^## Folders/,/^## /p' "$doc" | grep -o '^| `[^`]*/`' |
	sed 's/^| `//; s/\/`$//' | sort)
have=$(cd "$src" && find . -mindepth 1 -maxdepth 2 -type d \
	-not -path './.*' -not -name '.*' | sed 's|^\./||' | sort |
	while read -r d; do
		top=${d%%/*}
		# a build tree (cmake -B build, build-asan, ...) is not source
		[ -f "$top/CMakeCache.txt" ] || echo "$d"
	done)
missing=$(comm -13 <(echo "$want") <(echo "$have"))
extra=$(comm -23 <(echo "$want") <(echo "$have"))
rc=0
[ -z "$missing" ] || { echo "folders docs/architecture.md does not list:"; echo "$missing"; rc=1; }
[ -z "$extra" ] || { echo "folders docs/architecture.md lists that do not exist:"; echo "$extra"; rc=1; }
[ $rc = 0 ] && echo "docs/architecture.md lists the $(echo "$have" | wc -l) folders of the tree"
exit $rc
