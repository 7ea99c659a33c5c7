#!/bin/sh
# browser_test.sh - the pictures as a browser shows them.  Makes
# `ccplan show` SVGs (arrows on a 16x16 and a 64x64 mesh; source x
# destination matrices of a 16-rank switch alltoall and of an irregular
# pattern on 4,096 ranks), `ccplan show --heat` heat maps (4x4 and
# 64x64), a `ccplan compare --svg` latency plot, a `ccplan tau plot` and
# an `explain --html` report, renders each with headless
# Chromium to a PNG, and checks every PNG with png_check: the size asked
# for, enough ink, enough colours, and the colours each picture must show
# (a series of the plot, the ranks holding data and those receiving in
# the phase, a matrix's cells, the highlighted row of the report's
# table).  The SVGs are checked too: rank circles apart from each other,
# a matrix of n x n cells.  A blank page must fail the same check.
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

# circles_apart NAME SVG: the rank circles of a grid stand apart: the
# distinct centre x (and y) values differ by at least the largest
# diameter plus 2 pixels
circles_apart() {
	awk -v name="$1" '
	/<circle class="rank/ {
		match($0, /cx="[0-9.]+"/); x = substr($0, RSTART + 4, RLENGTH - 5)
		match($0, /cy="[0-9.]+"/); y = substr($0, RSTART + 4, RLENGTH - 5)
		match($0, / r="[0-9.]+"/); r = substr($0, RSTART + 4, RLENGTH - 5)
		xs[x] = 1; ys[y] = 1; n++
		if (r + 0 > rmax) rmax = r + 0
	}
	function mingap(a,    k, v, m, i, g) {
		m = 0
		for (k in a) v[++m] = k + 0
		for (i = 2; i <= m; i++) {   # insertion sort: a few hundred
			t = v[i]
			for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]
			v[j + 1] = t
		}
		g = 1e9
		for (i = 2; i <= m; i++) if (v[i] - v[i - 1] < g) g = v[i] - v[i - 1]
		return g
	}
	END {
		gx = mingap(xs); gy = mingap(ys)
		if (n == 0 || gx < 2 * rmax + 2 || gy < 2 * rmax + 2) {
			printf "%s: %d rank circles of radius %.2f, %.2f and %.2f " \
			       "pixels apart\n", name, n, rmax, gx, gy
			exit 1
		}
	}' "$2"
}

# matrix_cells NAME SVG N: one matrix of N x N cells: data-n says N and
# the frame is N cells wide and high
matrix_cells() {
	awk -v name="$1" -v n="$3" '
	/class="matrix"/ && !m {
		match($0, /width="[0-9.]+"/); w = substr($0, RSTART + 7, RLENGTH - 8)
		match($0, /height="[0-9.]+"/); h = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /data-n="[0-9]+"/); d = substr($0, RSTART + 8, RLENGTH - 9)
		m = 1
	}
	/class="cell/ && !c {
		match($0, /width="[0-9.]+"/); cw = substr($0, RSTART + 7, RLENGTH - 8)
		c = 1
	}
	END {
		if (!m || !c || d != n || w / cw < n - 0.01 || w / cw > n + 0.01 ||
		    h != w) {
			printf "%s: matrix data-n %s, %s x %s pixels, cells %s " \
			       "wide: not %d x %d cells\n", name, d, w, h, cw, n, n
			exit 1
		}
	}' "$2"
}

ex="$src/examples/mesh16-auto.yaml"
br="$src/tests/browser"
start=$(date +%s)

# 1. ccplan show: one phase of the EDN broadcast on the 16x16 mesh
"$ccplan" show "$ex" --phase 2 -o "$out/show.svg" 2>/dev/null ||
	bad "ccplan show failed"
if [ -s "$out/show.svg" ]; then
	# ranks holding data (light green), receiving in the phase (dark
	# green), the root (orange), the arrows (blue)
	shot_svg show "$out/show.svg" --min-ink 5 --min-colours 50 \
		--colour a1d99b:500 --colour 238b45:300 --colour fd8d3c:20 \
		--colour 2b5fb4:100
	circles_apart show "$out/show.svg" && pass=$((pass + 1)) ||
		bad "show.svg: rank circles overlap"
fi

# 1b. the same at 64x64: the page grows, the ranks stay apart
"$ccplan" show "$br/mesh64-broadcast.yaml" --phase 3 -o "$out/show64.svg" \
	2>/dev/null || bad "ccplan show of a 64x64 mesh failed"
if [ -s "$out/show64.svg" ]; then
	size=$(svg_size "$out/show64.svg")
	[ "${size% *}" -ge 1024 ] && [ "${size#* }" -ge 1024 ] &&
		pass=$((pass + 1)) ||
		bad "show64.svg: $size pixels, under 16 a rank"
	circles_apart show64 "$out/show64.svg" && pass=$((pass + 1)) ||
		bad "show64.svg: rank circles overlap"
	shot_svg show64 "$out/show64.svg" --min-ink 3 --min-colours 30 \
		--colour 238b45:100 --colour a1d99b:50 --colour fd8d3c:10 \
		--colour 2b5fb4:300
fi

# 1c. a switch alltoall: a 16 x 16 matrix, this phase's cells dark red
# (one transfer each: the top of the heat scale), earlier ones grey
"$ccplan" show "$br/switch16-alltoall.yaml" --phase 2 -o "$out/matrix.svg" \
	2>/dev/null || bad "ccplan show of a switch alltoall failed"
if [ -s "$out/matrix.svg" ]; then
	grep -q 'class="hop' "$out/matrix.svg" &&
		bad "matrix.svg: arrows in a matrix picture"
	matrix_cells matrix "$out/matrix.svg" 16 && pass=$((pass + 1)) ||
		bad "matrix.svg: not 16 x 16"
	shot_svg matrix "$out/matrix.svg" --min-ink 3 --min-colours 10 \
		--colour bd0026:5000 --colour d9d9d9:10000
fi

# 1d. an irregular pattern on 4,096 ranks: 128 x 128 cells of 32 x 32
# ranks, on the heat scale from pale yellow (one transfer) to dark red
# (the most in a cell)
"$ccplan" show "$br/mesh64-irregular.yaml" --phase 0 -o "$out/matrix64.svg" \
	2>/dev/null || bad "ccplan show of a 64x64 irregular pattern failed"
if [ -s "$out/matrix64.svg" ]; then
	matrix_cells matrix64 "$out/matrix64.svg" 128 &&
		grep -q 'data-ranks-per-cell="32"' "$out/matrix64.svg" &&
		pass=$((pass + 1)) || bad "matrix64.svg: not 128 x 128"
	shot_svg matrix64 "$out/matrix64.svg" --min-ink 20 --min-colours 10 \
		--colour fed976:20000 --colour bd0026:20
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
"$ccplan" show "$br/mesh64-irregular.yaml" --heat -o "$out/heat64.svg" \
	2>/dev/null || bad "ccplan show --heat of a 64x64 mesh failed"
if [ -s "$out/heat64.svg" ]; then
	shot_svg heat64 "$out/heat64.svg" --min-ink 20 --min-colours 30 \
		--colour bd0026:20 --colour fd8d3c:2000
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
