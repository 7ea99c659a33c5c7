#!/bin/sh
# browser_test.sh - the pictures as a browser shows them.  Makes a
# `ccplan show` SVG, a `ccplan show --heat` heat map, a `ccplan compare
# --svg` latency plot, a `ccplan tau plot` and an `explain --html`
# report, renders each with headless
# Chromium to a PNG, and checks every PNG with png_check: the size asked
# for, enough ink, enough colours, and the colours each picture must show
# (a series of the plot, the ranks holding data, the highlighted row of
# the report's table).  A blank page must fail the same check.
#
# usage: browser_test.sh CCPLAN PNG_CHECK SOURCE_DIR OUT_DIR
# The PNGs stay in OUT_DIR to be looked at.  Chromium is required: without
# it the test fails (make setup installs the Debian package chromium).
set -u
ccplan=$1 check=$2 src=$3 out=$4

chrome=""
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$(command -v "$c")
		break
	fi
done
if [ -z "$chrome" ]; then
	echo "browser test: FAILED: no chromium on PATH; the test renders the" \
		"pictures with headless Chromium (make setup installs it;" \
		"or apt-get install chromium)" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out" || exit 1
profile=$(mktemp -d) || exit 1
trap 'rm -rf "$profile"' EXIT
pass=0
fail=0
bad() {
	echo "FAIL: $*" >&2
	fail=$((fail + 1))
}

# render FILE W H PNG: FILE in a W x H window, to PNG
render() {
	rm -f "$4"
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$profile" \
		--window-size="$2,$3" --screenshot="$4" "file://$1" \
		>"$out/chromium.log" 2>&1
	[ -s "$4" ] || {
		bad "chromium wrote no $4: $(tail -3 "$out/chromium.log")"
		return 1
	}
}

# The width and height an SVG document asks for, as "W H".
svg_size() {
	sed -n 's/^<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$1" |
		head -1
}

# shot NAME FILE W H CHECKS...: render and check
shot() {
	name=$1 file=$2 w=$3 h=$4
	shift 4
	render "$file" "$w" "$h" "$out/$name.png" || return
	if "$check" "$out/$name.png" --size "${w}x$h" "$@"; then
		pass=$((pass + 1))
	else
		bad "$name.png: see above"
	fi
}

# shot_svg NAME FILE CHECKS...: an SVG in a window of its own size
shot_svg() {
	size=$(svg_size "$2")
	if [ -z "$size" ]; then
		bad "$2: no width and height on its <svg> element"
		return
	fi
	n=$1 f=$2
	shift 2
	shot "$n" "$f" ${size% *} ${size#* } "$@"
}

ex="$src/examples/mesh16-auto.yaml"
start=$(date +%s)

# 1. ccplan show: one phase of the EDN broadcast on the 16x16 mesh
"$ccplan" show "$ex" --phase 2 -o "$out/show.svg" 2>/dev/null ||
	bad "ccplan show failed"
if [ -s "$out/show.svg" ]; then
	# ranks holding data (green), the root (orange), the arrows (blue)
	shot_svg show "$out/show.svg" --min-ink 5 --min-colours 50 \
		--colour a1d99b:500 --colour fd8d3c:20 --colour 2b5fb4:100
fi

# 2. ccplan compare --svg: the latency plot
"$ccplan" compare "$ex" --svg "$out/compare.svg" >/dev/null 2>&1 ||
	bad "ccplan compare --svg failed"
if [ -s "$out/compare.svg" ]; then
	# the first two series (edn, binomial) and the crossover line
	shot_svg compare "$out/compare.svg" --min-ink 3 \
		--min-colours 50 --colour 1f3b73:200 --colour 8c2d04:200 \
		--colour 555555:40
fi

# 3. ccplan tau plot: Table 5.1's machines around the CM-5
"$ccplan" tau plot --point cm5-cmmd -o "$out/tau.svg" >/dev/null 2>&1 ||
	bad "ccplan tau plot failed"
if [ -s "$out/tau.svg" ]; then
	# the machines' dots, and the regions shaded (A: green over white)
	shot_svg tau "$out/tau.svg" --min-ink 25 --min-colours 50 \
		--colour 1f3b73:300 --colour eaf5ea:20000
fi

# 4. ccplan explain --html: the report page, the whole of it
"$ccplan" explain "$ex" --html "$out/report.html" 2>/dev/null ||
	bad "ccplan explain --html failed"
if [ -s "$out/report.html" ]; then
	grep -qi '<script\|src="http\|href="http\|@import' "$out/report.html" &&
		bad "report.html asks for a script or an external resource"
	# show's pictures styled (held ranks green), the page's CSS (the
	# highlighted row), the plot's first series
	shot report "$out/report.html" 1100 3000 --min-ink 5 \
		--min-colours 200 --colour a1d99b:2000 --colour fff3c4:2000 \
		--colour 1f3b73:200
fi

# 5. ccplan show --heat: link loads before and after placement, on one
# scale from pale yellow to dark red (the busiest links, left panel)
"$ccplan" show "$src/tests/golden/mesh4-scrambled.yaml" --heat \
	-o "$out/heat.svg" 2>/dev/null || bad "ccplan show --heat failed"
if [ -s "$out/heat.svg" ]; then
	shot_svg heat "$out/heat.svg" --min-ink 5 --min-colours 50 \
		--colour bd0026:100 --colour fed976:100
fi

# 6. the checker itself: a blank page must fail it
printf '<!DOCTYPE html><html><body></body></html>\n' >"$out/blank.html"
if render "$out/blank.html" 400 300 "$out/blank.png"; then
	if "$check" "$out/blank.png" --size 400x300 >/dev/null 2>&1; then
		bad "png_check accepted a blank page"
	else
		pass=$((pass + 1))
	fi
fi

echo "browser: $pass passed, $fail failed in $(($(date +%s) - start)) s" \
	"(PNGs in $out)"
[ "$fail" = 0 ]
