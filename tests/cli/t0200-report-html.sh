#!/bin/sh
# The HTML report is one self-contained file; headless Chromium renders it with
# no console errors, and the screenshot shows the charts (their dot and band
# colours are counted in the pixels). Needs Debian's chromium and imagemagick:
# build-aux/install-deps --test installs them (CI does).
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || true)
CONVERT=/usr/bin/convert
if [ -z "$CHROMIUM" ] || [ ! -x "$CONVERT" ]; then
	echo "SKIP: needs chromium and imagemagick (build-aux/install-deps --test)" >&2
	exit 77
fi

"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode-auto.ini" >/dev/null 2>&1 || fail "experiment"
expect_exit 0 "an HTML report" "$LABRUN" report --issue 205 --format html -o report.html
"$LABRUN" report --issue 205 --format html -o again.html
cmp report.html again.html || fail "two HTML reports differ"
ok "two invocations give identical bytes"
contains report.html "<svg class=\"chart\"" "inline SVG charts"
equals "$(grep -c '<svg class="chart"' report.html)" "4" "one chart per condition and arm pair"
! grep -qiE '<script|<link|src=|url\(|@import' report.html || fail "the report loads something"
ok "no scripts and no external assets"

# each chart says what it shows, in the table's own figures
for pair in "scalar vs lookup, qwen3-0.6b 1/64" "scalar vs lookup, qwen3-0.6b 2/64" \
	"auto vs lookup, qwen3-0.6b 1/64" "auto vs lookup, qwen3-0.6b 2/64"; do
	caption=$(grep -o "class=\"caption\"[^>]*>$pair: reduction [-0-9.]*%" report.html | sed 's/.*reduction //')
	[ -n "$caption" ] || fail "no chart captioned '$pair'"
	arm=${pair%% vs*} shape=${pair#*, }
	# a row whose medians and estimate differ in sign carries the footnote mark "(a)" (timing decides)
	md_cell=$("$LABRUN" report --issue 205 | awk -F' [|] ' -v a="$arm" -v s="$shape" \
		'/^### / { cur = $0 } /^\| / && index(cur, "### " a " ") && $1 == "| " s { print $4 }' | sed 's/ (a)$//')
	equals "$caption" "$md_cell" "the chart of $pair reads $caption, as its table"
done
awk '/<svg class="chart"/ { t = 0; m = 0 } /class="tick"/ { t++ } /class="margin"/ { m++ }
	/<\/svg>/ { if (t < 3 || m != 2) bad = 1 } END { exit bad }' report.html ||
	fail "a chart has fewer than 3 y ticks or not both margin lines"
ok "every chart has at least 3 labelled y ticks and both margin lines"
contains report.html "reduction (%, log scale)" "the y axis is labelled"
# every dot and band inside its chart's frame, the no-difference line over the margin lines
# (a dot at an extreme ratio sat half outside the frame; the margin was drawn over the zero line)
python3 - report.html <<'PY' || fail "a chart draws outside its frame, or the margin over the zero line"
import re, sys
charts = re.findall(r'<svg class="chart".*?</svg>', open(sys.argv[1]).read(), re.S)
assert charts, "no chart"
for c in charts:
    fx, fy, fw, fh = map(float, re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#fff"', c).groups())
    for cy, r in re.findall(r'<circle class="block" cx="[\d.]+" cy="([-\d.]+)" r="([\d.]+)"', c):
        assert fy <= float(cy) - float(r) and float(cy) + float(r) <= fy + fh, ("dot outside the frame", cy, fy, fh)
    for y, h in re.findall(r'<rect class="interval" x="[\d.]+" y="([-\d.]+)" width="[\d.]+" height="([-\d.]+)"', c):
        assert fy <= float(y) and float(y) + float(h) <= fy + fh + 1e-9, ("band outside the frame", y, h)
    assert c.rfind('class="margin"') < c.find('class="zero"'), "the margin is drawn over the zero line"
PY
ok "dots and bands inside the frame, the zero line drawn over the margin"
# and the page carries what the Markdown report has
contains report.html "the 95% interval is the sign-test interval of the block ratios" "the method sentence"
contains report.html "<li>Host: " "the host"
contains report.html "<li>Design: ABBA, 6 timed blocks" "the design"
contains report.html "<li>Noise floor: " "the noise floor"
contains report.html "<th>drift lookup/scalar</th>" "a drift column"

"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --user-data-dir="$T/chromium" --enable-logging=stderr --v=0 \
	--window-size=1200,3200 --screenshot="$T/shot.png" "file://$PWD/report.html" >"$T/chromium.out" 2>"$T/chromium.err" ||
	{ tail -20 "$T/chromium.err" >&2; fail "chromium could not render the report"; }
[ -s "$T/shot.png" ] || fail "no screenshot"
ok "chromium rendered the report"
! grep -q "CONSOLE" "$T/chromium.err" || { grep "CONSOLE" "$T/chromium.err" >&2; fail "console messages"; }
ok "no console errors"
"$CONVERT" "$T/shot.png" -format %c histogram:info:- >"$T/hist"
dots=$(grep -i '#1F77B4' "$T/hist" | sed 's/^ *\([0-9]*\):.*/\1/' | head -1)
band=$(grep -i '#FFD8A8' "$T/hist" | sed 's/^ *\([0-9]*\):.*/\1/' | head -1)
[ "${dots:-0}" -gt 500 ] || fail "block dots not drawn (${dots:-0} pixels of #1f77b4)"
ok "the block dots are drawn (${dots} pixels)"
[ "${band:-0}" -gt 1000 ] || fail "interval bands not drawn (${band:-0} pixels of #ffd8a8)"
ok "the interval bands are drawn (${band} pixels)"
margin=$(grep -i '#2CA02C' "$T/hist" | sed 's/^ *\([0-9]*\):.*/\1/' | head -1)
[ "${margin:-0}" -gt 300 ] || fail "margin lines not drawn (${margin:-0} pixels of #2ca02c)"
ok "the margin lines are drawn (${margin} pixels)"
