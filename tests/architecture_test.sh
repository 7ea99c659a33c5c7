#!/usr/bin/env bash
# architecture_test.sh - the folder table of docs/architecture.md names
# exactly the source tree's folders that hold files, to two levels
# (hidden folders, build trees and ctest's Testing/ left out), so that the
# page cannot drift from the tree.
# Usage: architecture_test.sh SOURCE_DIR
set -u
src=$1
doc="$src/docs/architecture.md"
[ -f "$doc" ] || { echo "no $doc"; exit 1; }
want=$(sed -n '/^## Folders/,/^## /p' "$doc" | grep -o '^| `[^`]*/`' |
	sed 's/^| `//; s/\/`$//' | sort)
# the folders that hold files: git's tracked files in a checkout, so that
# build trees and test output (Testing/) never count; else every folder
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	have=$(git -C "$src" ls-files | awk -F/ 'NF > 1 { print $1 }
		NF > 2 { print $1 "/" $2 }' | grep -v '^\.' | sort -u)
else
	have=$(cd "$src" && find . -mindepth 1 -maxdepth 2 -type d \
		-not -path './.*' -not -name '.*' | sed 's|^\./||' | sort |
		while read -r d; do
			top=${d%%/*}
			# a build tree (cmake -B build, build-asan, ...) is not source
			[ -f "$top/CMakeCache.txt" ] || [ "$top" = Testing ] || echo "$d"
		done)
fi
missing=$(comm -13 <(echo "$want") <(echo "$have"))
extra=$(comm -23 <(echo "$want") <(echo "$have"))
rc=0
[ -z "$missing" ] || { echo "folders docs/architecture.md does not list:"; echo "$missing"; rc=1; }
[ -z "$extra" ] || { echo "folders docs/architecture.md lists that do not exist:"; echo "$extra"; rc=1; }
[ $rc = 0 ] && echo "docs/architecture.md lists the $(echo "$have" | wc -l) folders of the tree"
exit $rc
