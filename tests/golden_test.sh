#!/usr/bin/env bash
# golden_test.sh CCPLAN - explain's three views of small plans, compared
# byte for byte with tests/golden/NAME.{explain,summary,rank5}.  After a
# deliberate change of the output, regenerate them with
#   for y in tests/golden/*.yaml; do b=${y%.yaml}
#     ccplan explain $y >$b.explain; ccplan explain $y --summary >$b.summary
#     ccplan explain $y --rank 5 >$b.rank5; done
# (from the repository's top directory) and read the diff.
set -u
ccplan=$1
cd "$(dirname "$0")/.." || exit 1
fails=0 n=0
for y in tests/golden/*.yaml; do
	b=${y%.yaml}
	for view in explain summary rank5; do
		case $view in
		explain) args=() ;;
		summary) args=(--summary) ;;
		rank5) args=(--rank 5) ;;
		esac
		n=$((n + 1))
		if ! "$ccplan" explain "$y" "${args[@]}" 2>/dev/null |
			diff -u "$b.$view" - >/tmp/golden.$$.diff; then
			echo "FAIL: $y ($view)"
			cat /tmp/golden.$$.diff
			fails=$((fails + 1))
		fi
	done
done
rm -f /tmp/golden.$$.diff
echo "$((n - fails)) of $n explain goldens match"
[ "$fails" = 0 ]
