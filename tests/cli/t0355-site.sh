#!/bin/sh
# labrun site: a static site of the serving example and an experiment, opened
# from file:// in headless Chromium. Two builds are byte-identical; no page
# names anything outside the site; Chromium's network log shows no request;
# at 1400 and 390 pixels no text box is clipped or overlaps another
# (tests/site/check-layout.js); the filter, a run page, the serving evidence
# and the diff of two runs are driven through --dump-dom after the pages ran.
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: needs chromium (build-aux/install-deps --test)" >&2
	exit 77
fi
# chromium --dump-dom URL [WIDTH]: the DOM after the page's scripts ran; each load's network log kept
dom() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$T/chromium" --window-size="${2:-1400},1200" \
		--virtual-time-budget=5000 --log-net-log="$(mktemp "$T/net-XXXXXX")" --dump-dom "$1" 2>>"$T/chromium.err"
}

cp -r "$TOP_SRCDIR/examples" .
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1 || fail "an experiment"
"$LABRUN" key init >/dev/null 2>&1 || fail "key init" # the runs after this one are signed, by a key this HOME trusts
"$LABRUN" run -q examples/serving-sim.ini >/dev/null 2>&1 || fail "the serving example"
"$LABRUN" record -q --issue 270 -- sh -c 'echo one' >/dev/null 2>&1
"$LABRUN" record -q --issue 270 --geometry model=qwen3-4b -- sh -c 'echo two; exit 3' >/dev/null 2>&1 || true

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

# the filter, from the address (index.html#q=...), without typing: it reads every run's row and shows the matches
dom "file://$PWD/site/index.html#q=serving-sim" >dom-filter.html
grep -q 'id="count">1 of 4 runs<' dom-filter.html || { grep -o 'id="count">[^<]*' dom-filter.html >&2; fail "the filter did not leave one run"; }
ok "the filter leaves the serving run"
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-filter.html | wc -l | tr -d ' ')" "1" "and shows its row only"
grep -q 'data-kind="experiment"><td class="n"><a href="run-2.html">2</a>' dom-filter.html || fail "the row shown is not run 2"
ok "the row is run 2's"
dom "file://$PWD/site/index.html" >dom-index.html
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-index.html | wc -l | tr -d ' ')" "4" "unfiltered, every run"
grep -q '<p class="pages">4 runs</p>' dom-index.html || fail "the index does not count its runs"
ok "and counts them"

# a run page: the facts, the ledger, what changed since the previous run of its kind
dom "file://$PWD/site/run-4.html" >dom-run.html
for s in '<h2>Sources</h2>' '<h2>Binding</h2>' '<h2>Geometry</h2>' '<h2>Logs and artifacts</h2>' '<h2>Ledger</h2>' \
	'Against <a href="run-3.html">run 3</a>' 'qwen3-4b' 'exit code 3'; do
	grep -qF "$s" dom-run.html || fail "run-4.html lacks '$s'"
done
ok "run 4's page: its facts, ledger and its changes since run 3"
# the serving evidence: the matrix and each failing case, as the report has them
dom "file://$PWD/site/run-2.html" >dom-serving.html
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
dom "file://$PWD/site/diff.html#3,4" >dom-diff.html
grep -q 'id="diff-status">[0-9]* facts differ, [0-9]* are the same<' dom-diff.html ||
	{ grep -o 'id="diff-status">[^<]*' dom-diff.html >&2; fail "the diff did not run"; }
ok "diff.html#3,4 compares them"
grep -q '<td>geometry</td><td>model</td><td class="a">-</td><td class="b">qwen3-4b</td>' dom-diff.html ||
	fail "the diff does not show run 4's geometry"
ok "and shows only what changed: run 4's geometry"

# layout: no clipped or overlapping text at a desktop's width and a phone's
cp "$TOP_SRCDIR/tests/site/check-layout.js" site/
for page in index run-1 run-2 run-4 diff; do # run-2: the serving evidence and its failing cases
	sed 's|</body>|<script src="check-layout.js"></script></body>|' "site/$page.html" >"site/check-$page.html"
	for w in 1400 390; do
		v=$(dom "file://$PWD/site/check-$page.html$( [ $page = diff ] && echo '#3,4')" $w | grep -o 'data-layout="[^"]*"')
		case $v in 'data-layout="ok '*) ;; *) fail "$page.html at $w px: ${v:-no verdict}" ;; esac
	done
done
ok "no text box clipped or overlapping at 1400 and 390 px"

# no request left the site: in Chromium's network log of every page loaded, each request a page made
# (its initiator an origin, "null" for file://; the browser's own updates have "not an origin") is file://
python3 - "$T"/net-* <<'PY' || fail "a page made a request outside the site (above)"
import json, sys
bad, pages = [], 0
for path in sys.argv[1:]:
    log = json.load(open(path))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    for e in log["events"]:
        p = e.get("params", {})
        if e["type"] != start or p.get("initiator", "not an origin") == "not an origin":
            continue
        pages += 1
        if not p["url"].startswith("file://"):
            bad.append(p["url"])
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
ok "the network logs of $(ls "$T"/net-* | wc -l | tr -d ' ') loads show no request a page made outside the site"

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
expect_exit 0 "and scans clean" "$LABRUN" scan crate
cp -r crate tampered && sed -i 's/<h1>Runs/<h1>Forged/' tampered/site/index.html
expect_exit 1 "a changed page in the crate" "$LABRUN" verify tampered
contains "$T/out" "site/index.html" "is named"
