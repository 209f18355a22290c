#!/bin/sh
# labrun site: a static site of the serving example and an experiment, opened
# from file:// in headless Chromium. Two builds are byte-identical; no page
# names anything outside the site; Chromium's network log shows no request;
# at 1400 and 390 pixels no text box is clipped or overlaps another
# (tests/site/check-layout.js); the filter, a run page, the serving evidence
# and the diff of two runs are checked in the DOM after the pages' scripts ran.
# One Chromium loads every page (tests/site/dump-dom.mjs): a browser per page
# cost the suite about a second of CPU each. The crate with the site is
# scanned whole by tests/slow/t0955-site-crate-scan.sh (make check-slow).
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null; then
	echo "SKIP: needs chromium and node (build-aux/install-deps --test)" >&2
	exit 77
fi

. "$TOP_SRCDIR/tests/site/store.sh"

expect_exit 0 "labrun site" "$LABRUN" site -o site
contains "$T/out" "wrote the site of 4 runs into 'site'" "says what it wrote"
for f in index.html diff.html site.css site.js run-1.html run-2.html run-3.html run-4.html data/run-4.js; do
	[ -s "site/$f" ] || fail "site/$f is missing"
done
ok "index, diff, style, script, a page and a data file per run"
expect_exit 0 "again, into another directory" "$LABRUN" site -o again
diff -r site again >&2 || fail "two builds of the same store differ"
ok "two builds are byte-identical"
expect_exit 0 "again, over the first, named with a slash" "$LABRUN" site -o site/
diff -r site again >&2 || fail "the site written over itself differs"
ok "site/ is site: written beside it, then in its place"
mkdir mine && echo keep >mine/file
expect_exit 2 "a directory labrun did not write is not replaced" "$LABRUN" site -o mine
contains "$T/err" "it exists and labrun did not write it" "says why"
equals "$(cat mine/file)" "keep" "and leaves it as it was"
expect_exit 0 "--issue selects, into a directory not made yet" "$LABRUN" site --issue 270 -o reports/issue
[ ! -e reports/issue/run-1.html ] && [ -e reports/issue/run-4.html ] || fail "--issue 270 holds the wrong runs"
ok "--issue 270: its runs only"

# the signers, held to the builder's trusted keys: the index counts them, a run page names each
grep -q '<p id="trust">Ledger: 4 entries for these runs, 3 signed, 3 by a key the builder of this site trusts. Keys: [0-9a-f]\{16\}... (' site/index.html ||
	{ grep -o '<p id="trust">[^<]*' site/index.html >&2; fail "the index does not account for the signatures"; }
ok "the index: 4 ledger entries, 3 signed by a trusted key"
grep -q '<span class="ok">trusted: ' site/run-2.html || fail "run 2's signer is not named trusted"
grep -q '<td>unsigned</td>' site/run-1.html || fail "run 1 is not shown unsigned"
ok "run pages name the signer, trusted, or say unsigned"
HOME="$T/stranger" "$LABRUN" site -o stranger >/dev/null 2>&1 || fail "a site built by someone who trusts no key"
grep -q '3 signed, 0 by a key the builder of this site trusts' stranger/index.html || fail "a stranger's site trusts the key"
grep -q '<span class="bad">not among the trusted keys</span>' stranger/run-2.html || fail "a stranger's page trusts the signer"
ok "built by someone who trusts no key: signed, but not trusted"

# nothing outside the site: every href and src is a page, file or anchor of it
grep -ho '\(href\|src\)="[^"]*"' site/*.html | sed 's/^[a-z]*="//; s/"$//' | sort -u >refs
! grep -v '^\(#\|[a-z0-9-]*\.\(html\|css\|js\)\(#.*\)\?$\|data/run-[0-9]*\.js\)' refs || fail "a page refers outside the site (above)"
ok "every reference is inside the site ($(wc -l <refs | tr -d ' ') distinct)"

# Every page the checks below read, loaded in one Chromium: NAME WIDTH PAGE, its DOM in dom-NAME.html.
# The layout checks load a copy of a page with tests/site/check-layout.js added, at a desktop's width
# and a phone's (run-2: the serving evidence and its failing cases). control.html has one clipped and
# two overlapping text boxes and asks for an image on port 1 of this host (which Chromium refuses to
# open), so that a layout checker or a network log that finds nothing fails here.
cp "$TOP_SRCDIR/tests/site/check-layout.js" site/
cat >site/control.html <<'EOF'
<!DOCTYPE html><html><body><div style="width: 40px; overflow: hidden; white-space: nowrap">a line far wider than its box</div>
<p style="position: absolute; top: 300px">one</p><p style="position: absolute; top: 300px">two</p>
<img src="http://127.0.0.1:1/labrun-control.png" alt=""></body></html>
EOF
set -- filter 1400 "index.html#q=serving-sim" index 1400 index.html run 1400 run-4.html serving 1400 run-2.html \
	diff 1400 "diff.html#3,4"
for page in index run-1 run-2 run-4 diff control; do
	sed 's|</body>|<script src="check-layout.js"></script></body>|' "site/$page.html" >"site/check-$page.html"
	for w in 1400 390; do
		set -- "$@" "check-$page-$w" $w "check-$page.html$( [ $page = diff ] && echo '#3,4')"
	done
done
jobs=
while [ $# -gt 0 ]; do
	jobs="$jobs $2 file://$PWD/site/$3 dom-$1.html"
	shift 3
done
# $jobs unquoted: WIDTH URL OUT, three words a page (no path here holds a blank)
node "$TOP_SRCDIR/tests/site/dump-dom.mjs" --chromium "$CHROMIUM" --user-data-dir "$T/chromium" --net-log "$T/net.json" \
	$jobs 2>"$T/chromium.err" || { cat "$T/chromium.err" >&2; fail "Chromium did not load every page"; }
ok "one Chromium loaded $(($(echo $jobs | wc -w) / 3)) pages"

# the filter, from the address (index.html#q=...), without typing: it reads every run's row and shows the matches
grep -q 'id="count">1 of 4 runs<' dom-filter.html || { grep -o 'id="count">[^<]*' dom-filter.html >&2; fail "the filter did not leave one run"; }
ok "the filter leaves the serving run"
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-filter.html | wc -l | tr -d ' ')" "1" "and shows its row only"
grep -q 'data-kind="experiment"><td class="n"><a href="run-2.html">2</a>' dom-filter.html || fail "the row shown is not run 2"
ok "the row is run 2's"
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-index.html | wc -l | tr -d ' ')" "4" "unfiltered, every run"
grep -q '<p class="pages">4 runs</p>' dom-index.html || fail "the index does not count its runs"
ok "and counts them"

# a run page: the facts, the ledger, what changed since the previous run of its kind
for s in '<h2>Sources</h2>' '<h2>Binding</h2>' '<h2>Geometry</h2>' '<h2>Logs and artifacts</h2>' '<h2>Ledger</h2>' \
	'Against <a href="run-3.html">run 3</a>' 'qwen3-4b' 'exit code 3'; do
	grep -qF "$s" dom-run.html || fail "run-4.html lacks '$s'"
done
ok "run 4's page: its facts, ledger and its changes since run 3"
# the serving evidence: the matrix and each failing case, as the report has them
grep -q '<h2>Serving evidence</h2>' dom-serving.html || fail "the serving run's page has no serving evidence"
grep -q 'tokens differ at position' dom-serving.html || fail "the failing case is not named"
ok "the serving run's page: the route matrix and the failing case"
# each failing case's token arrays side by side from the first difference, the differing tokens marked
case_db=$(q "SELECT cc.case_id || ' ' || cc.first_token_diff FROM comparison_case cc WHERE cc.first_token_diff >= 0 LIMIT 1")
[ -n "$case_db" ] || fail "the serving example has no token divergence"
grep -q "<h3>[a-z-]* against [a-z-]* (comparison [0-9]*, [a-z-]*), case ${case_db% *}</h3>" site/run-2.html ||
	fail "the failing case ${case_db% *} has no section"
grep -q "tokens differ from position ${case_db#* } " site/run-2.html || fail "the first difference is not named"
grep -q '<div class="tok bad"><span>'"${case_db#* }"'</span>' site/run-2.html || fail "the differing token is not marked"
ok "failing case ${case_db% *}: tokens side by side from position ${case_db#* }, the differing ones marked"
grep -q '<svg class="chart"' site/run-1.html || fail "the experiment's page has no chart"
ok "the experiment's page has its charts"

# the diff of any two runs, drawn from their data files
grep -q 'id="diff-status">[0-9]* facts differ, [0-9]* are the same<' dom-diff.html ||
	{ grep -o 'id="diff-status">[^<]*' dom-diff.html >&2; fail "the diff did not run"; }
ok "diff.html#3,4 compares them"
grep -q '<td>geometry</td><td>model</td><td class="a">-</td><td class="b">qwen3-4b</td>' dom-diff.html ||
	fail "the diff does not show run 4's geometry"
ok "and shows only what changed: run 4's geometry"

# layout: no clipped or overlapping text at a desktop's width and a phone's, each page laid out at that width
for page in index run-1 run-2 run-4 diff; do
	for w in 1400 390; do
		v=$(grep -o 'data-layout="[^"]*"' "dom-check-$page-$w.html")
		case $v in 'data-layout="ok '*" text boxes at $w px\"") ;; *) fail "$page.html at $w px: ${v:-no verdict}" ;; esac
	done
done
ok "no text box clipped or overlapping at 1400 and 390 px"
for w in 1400 390; do
	v=$(grep -o 'data-layout="[^"]*"' "dom-check-control-$w.html")
	case $v in *"2 problems at $w px: "*"clipped by its div"*"overlaps"*) ;; *) fail "the control page at $w px: ${v:-no verdict}" ;; esac
done
ok "and the checker finds the control page's clipped and overlapping boxes"

# no request left the site: in Chromium's network log of every page loaded, each request a page made
# (its initiator an origin, "null" for file://; the browser's own updates have "not an origin") is file://,
# but for the control page's, which must be there
python3 - "$T/net.json" <<'PY' || fail "a page made a request outside the site, or the log lacks the control's (above)"
import json, sys
control = "http://127.0.0.1:1/labrun-control.png"
bad, seen = [], False
log = json.load(open(sys.argv[1]))
start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
for e in log["events"]:
    p = e.get("params", {})
    if e["type"] != start or p.get("initiator", "not an origin") == "not an origin":
        continue
    if p["url"] == control:
        seen = True
    elif not p["url"].startswith("file://"):
        bad.append(p["url"])
if not seen:
    bad.append("(no request of the control page: the log records no page's requests)")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
ok "the network log of those loads shows no request a page made outside the site, and the control's"

# put into a crate: the site of the crate's runs in site/, each file a File entity and a subject of the
# crate's signed statement; the crate verifies, a changed page is named, and the crate scans clean
expect_exit 0 "manifest --site" "$LABRUN" manifest --issue 270 --site -o crate --license CC-BY-4.0
[ -s crate/site/index.html ] && [ -s crate/site/run-2.html ] && [ ! -e crate/site/run-1.html ] ||
	fail "the crate's site does not hold exactly its runs"
ok "the crate holds the site of its runs"
equals "$(jq -r '[."@graph"[] | select(."@id" == "site/index.html") | .["@type"], .encodingFormat] | join(" ")' crate/ro-crate-metadata.json)" \
	"File text/html" "site/index.html is a File entity"
jq -r .payload crate/crate.intoto.json | base64 -d >crate-statement.json
equals "$(jq -r '[.subject[].name | select(startswith("site/"))] | length' crate-statement.json)" "$(cd crate && find site -type f | wc -l | tr -d ' ')" \
	"every file of the site is a subject of the signed statement"
expect_exit 0 "the crate with its site verifies" "$LABRUN" verify crate
contains "$T/out" "0 problem(s)" "no problem"
# and scans clean, each DSSE envelope with its statement decoded into a file of its own: labrun scan
# takes time quadratic in the length of a run of letters and digits on a line, and a base64 payload
# is one (this crate's two large envelopes took 65 s of CPU). tests/slow/t0955-site-crate-scan.sh
# (make check-slow) scans the crate as it is, envelopes and all.
cp -r crate scanned
for e in $(find scanned -name '*.intoto.json'); do
	jq -r .payload "$e" | base64 -d >"${e%.intoto.json}.statement.json" && jq 'del(.payload)' "$e" >"$e.tmp" &&
		mv "$e.tmp" "$e" || fail "cannot decode the statement of $e"
done
expect_exit 0 "and scans clean, its signed statements decoded" "$LABRUN" scan scanned
contains "$T/err" "0 finding(s)" "no finding"
cp -r crate tampered && sed -i 's/<h1>Runs/<h1>Forged/' tampered/site/index.html
expect_exit 1 "a changed page in the crate" "$LABRUN" verify tampered
contains "$T/out" "site/index.html" "is named"
