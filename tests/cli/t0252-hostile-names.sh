#!/bin/sh
# Hostile strings in the names a harness writes (issue 44, item 7): a metric's name and unit
# ($LABRUN_METRICS) and a check's name and detail ($LABRUN_CHECKS) reach reports, headings and
# code spans included; GitHub's renderer makes no link, image, raw HTML or comment of them, and the
# HTML report holds none raw. An e-mail-like string stays as written: GitHub may show it as a mailto
# link whose text is its whole target (docs/design.md, "Reports meant to be pasted").
. "$(dirname "$0")/lib.sh"

H='x` [click](javascript:alert(1)) <img src=x onerror=alert(1)> <!-- http://evil.example/t.png www.evil.example ``y'
M='x` [c](javascript:a) <img src=x onerror=a> <!-- www.e.io ``y' # a metric's name: 63 bytes at most
printf '%s' "$M" >hostile.txt
cat >harness.sh <<'EOF2'
n=$(cat hostile.txt)
python3 -c 'import json, sys; print(json.dumps({"name": sys.argv[1], "value": 1 + len(sys.argv[2]) % 3, "unit": sys.argv[1] + " me@evil.example", "better": "higher"}))' "$n" "$1$2" >>"$LABRUN_METRICS"
EOF2
cat >m.ini <<'EOF2'
[experiment]
name = hostile
target = command
[design]
blocks = 6
warmup = 0
[arm a]
command = sh harness.sh a {block}
[arm b]
command = sh harness.sh bb {block}
EOF2
"$LABRUN" run -q m.ini >/dev/null 2>&1 || fail "the experiment"
# names that would be markup of their own: a heading, a link definition and its use, emphasis, an entity
printf '%s\n' "$H" '# head' '[ref]: /evil' '[ref]' '_em_ *b* ~~s~~ a\*b &lt; `c`' >names.txt
python3 - names.txt >check.jsonl <<'PY'
import json, sys
for n in open(sys.argv[1]).read().splitlines():
    print(json.dumps({"name": n, "passed": 1, "total": 2, "detail": n + " me@evil.example"}))
PY
"$LABRUN" record -q -- sh -c 'cat check.jsonl >>"$LABRUN_CHECKS"' >/dev/null 2>&1 || fail "record with a check"
equals "$(q "SELECT count(*) FROM check_result")" 5 "the checks are stored"

# $1: the report's Markdown, rendered as GitHub does
rendered() {
	cmark-gfm -e table -e autolink -e strikethrough --unsafe "$1" >"$1.html" || fail "cmark-gfm $1"
	for raw in "<img" "<!--" "<script" 'href="javascript' 'href="http' 'href="www'; do
		lacks "$1.html" "$raw" "$1: no '$raw' rendered"
	done
	python3 - "$1.html" <<'PY' || fail "$1: a link other than a mailto showing its whole target"
import re, sys
for href, text in re.findall(r'<a href="([^"]*)">([^<]*)</a>', open(sys.argv[1]).read()):
    if href != "mailto:" + text:
        sys.exit("link %r shows %r" % (href, text))
PY
	ok "$1: the only links are mailto links showing their whole target"
	python3 - "$1.html" "$2" <<'PY' || fail "$1: a name not shown as written"
import html.parser, sys
class Text(html.parser.HTMLParser):
    text = ""
    def handle_data(self, d):
        self.text += d
t = Text(convert_charrefs=True)
t.feed(open(sys.argv[1]).read())
for n in open(sys.argv[2]).read().splitlines():
    if n not in t.text:
        sys.exit("%r is not in the rendered text" % n)
PY
	ok "$1: each name shown as written, character for character"
}
expect_exit 0 "report of the metric" "$LABRUN" report --run 1 --metric all --max-chars 0
cp "$T/out" metric.md
contains metric.md "onerror" "the metric's name is in the report"
expect_exit 0 "report of the check" "$LABRUN" report --run 2 --max-chars 0
cp "$T/out" check.md
contains check.md "onerror" "the check's name is in the report"
if command -v cmark-gfm >/dev/null; then
	rendered metric.md hostile.txt
	rendered check.md names.txt
fi
for r in "1 --metric all" 2; do
	# shellcheck disable=SC2086 # the run and its options
	expect_exit 0 "the report of run $r as HTML" "$LABRUN" report --run $r --format html
	contains "$T/out" "onerror" "with the name"
	for raw in "<img" "<!--" "<script" 'href="javascript' "<b>"; do lacks "$T/out" "$raw" "HTML: no raw '$raw'"; done
done
echo "1..$tests"
