#!/bin/sh
# labrun site: a static site of the serving example, a serving experiment against the
# simulated server and an experiment, opened from file:// in headless Chromium. Two
# builds are byte-identical; no page names anything outside the site; Chromium's
# network log shows no request; at 1400 and 390 pixels no text box is clipped or
# overlaps another (tests/site/check-layout.js), the issue page's grid and
# distributions, an arm timeline and the requests in flight included; the filter, a
# run page, the serving evidence and the diff of two runs are checked in the DOM after
# the pages' scripts ran; a grid cell's link opens its failing case, and an
# execution's stdout opens from its run page. With LABRUN_SITE_SHOTS=DIR, the same
# Chromium also takes screenshots of the issue page and the serving experiment's page
# at both widths (into $T/shots, copied to DIR), for a person to look at.
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
contains "$T/out" "wrote the site of 5 runs into 'site'" "says what it wrote"
for f in index.html diff.html site.css site.js run-1.html run-2.html run-3.html run-4.html run-5.html data/run-4.js \
	issue-270.html issue-205.html; do
	[ -s "site/$f" ] || fail "site/$f is missing"
done
ok "index, diff, style, script, a page and a data file per run, a page per issue"
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
grep -q '<p id="trust">Ledger: 8 entries for these runs, 6 signed, 6 by a key the builder of this site trusts. Keys: [0-9a-f]\{16\}... (' site/index.html ||
	{ grep -o '<p id="trust">[^<]*' site/index.html >&2; fail "the index does not account for the signatures"; }
ok "the index: 8 ledger entries (3 of them designs), 6 signed by a trusted key"
grep -q '<span class="ok">trusted: ' site/run-2.html || fail "run 2's signer is not named trusted"
grep -q '<td>unsigned</td>' site/run-1.html || fail "run 1 is not shown unsigned"
ok "run pages name the signer, trusted, or say unsigned"
HOME="$T/stranger" "$LABRUN" site -o stranger >/dev/null 2>&1 || fail "a site built by someone who trusts no key"
grep -q '6 signed, 0 by a key the builder of this site trusts' stranger/index.html || fail "a stranger's site trusts the key"
grep -q '<span class="bad">not among the trusted keys</span>' stranger/run-2.html || fail "a stranger's page trusts the signer"
ok "built by someone who trusts no key: signed, but not trusted"

# nothing outside the site: every href and src is a page, file or anchor of it
grep -ho '\(href\|src\)="[^"]*"' site/*.html | sed 's/^[a-z]*="//; s/"$//' | sort -u >refs
! grep -v '^\(#\|[a-z0-9_-]*\.\(html\|css\|js\)\(#.*\)\?$\|data/run-[0-9]*\.js\|logs/[0-9a-f]\{64\}\.txt\)' refs ||
	fail "a page refers outside the site (above)"
for f in $(grep '^logs/' refs); do [ -f "site/$f" ] || fail "$f is linked but not in the site"; done
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
# The issue page's layout check also has tests/site/check-target.js, and is opened at the grid cell of the
# planted divergence (examples/serving-sim.sh: rngd-atom, qwen3-4b); log is the stdout an execution's row links to.
cell=$(grep -o '<a href="#cell-[0-9]*-[0-9]*"><title>run 2: model=qwen3-4b / rngd-atom: ' site/issue-270.html |
	sed 's/^<a href="#\([^"]*\)".*/\1/')
[ -n "$cell" ] || fail "the issue page's grid has no cell for run 2, qwen3-4b, rngd-atom"
cp "$TOP_SRCDIR/tests/site/check-target.js" site/
log=$(grep -o '<a href="logs/[0-9a-f]*\.txt">stdout</a>' site/run-5.html | head -1 | sed 's/^<a href="\([^"]*\)".*/\1/')
[ -n "$log" ] || fail "run 5's page links no execution's stdout"
set -- filter 1400 "index.html#q=serving-sim" index 1400 index.html run 1400 run-4.html serving 1400 run-2.html \
	diff 1400 "diff.html#3,4" log 1400 "$log"
for page in index run-1 run-2 run-4 run-5 issue-270 diff control; do
	sed 's|</body>|<script src="check-layout.js"></script><script src="check-target.js"></script></body>|' \
		"site/$page.html" >"site/check-$page.html"
	for w in 1400 390; do
		set -- "$@" "check-$page-$w" $w "check-$page.html$(case $page in diff) echo '#3,4' ;; issue-270) echo "#$cell" ;; esac)"
	done
done
jobs=
while [ $# -gt 0 ]; do
	jobs="$jobs $2 file://$PWD/site/$3 dom-$1.html"
	shift 3
done
# and, asked for, pictures of the issue page and the serving experiment's page at both widths, to look at
mkdir "$T/shots"
for w in 1400 390; do
	[ -z "${LABRUN_SITE_SHOTS:-}" ] ||
		jobs="$jobs $w file://$PWD/site/issue-270.html $T/shots/issue-270-$w.png $w file://$PWD/site/run-5.html $T/shots/run-5-$w.png"
done
# $jobs unquoted: WIDTH URL OUT, three words a page (no path here holds a blank)
node "$TOP_SRCDIR/tests/site/dump-dom.mjs" --chromium "$CHROMIUM" --user-data-dir "$T/chromium" --net-log "$T/net.json" \
	$jobs 2>"$T/chromium.err" || { cat "$T/chromium.err" >&2; fail "Chromium did not load every page"; }
ok "one Chromium loaded $(($(echo $jobs | wc -w) / 3)) pages"
if [ -n "${LABRUN_SITE_SHOTS:-}" ]; then
	for f in "$T"/shots/*.png; do
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
	done
	cp "$T"/shots/*.png "$LABRUN_SITE_SHOTS"
	ok "and took $(ls "$T/shots" | wc -l | tr -d ' ') screenshots (copied to $LABRUN_SITE_SHOTS)"
fi

# the filter, from the address (index.html#q=...), without typing: it reads every run's row and shows the matches
grep -q 'id="count">1 of 5 runs<' dom-filter.html || { grep -o 'id="count">[^<]*' dom-filter.html >&2; fail "the filter did not leave one run"; }
ok "the filter leaves the serving run"
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-filter.html | wc -l | tr -d ' ')" "1" "and shows its row only"
grep -q 'data-kind="experiment"><td class="n"><a href="run-2.html">2</a>' dom-filter.html || fail "the row shown is not run 2"
ok "the row is run 2's"
equals "$(grep -o '<tr class="[a-z]*" data-kind="[a-z]*">' dom-index.html | wc -l | tr -d ' ')" "5" "unfiltered, every run"
grep -q '<p class="pages">5 runs</p>' dom-index.html || fail "the index does not count its runs"
ok "and counts them"

# a run page: the facts, the ledger, what changed since the previous run of its kind
for s in '<h2>Sources</h2>' '<h2>Binding</h2>' '<h2>Geometry</h2>' '<h2 id="logs">Logs and artifacts</h2>' '<h2>Ledger</h2>' \
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

# the issue page, linked from the index and from each of its runs' pages: its runs, and their serving
# evidence as the report accounts for it, in the same sentence
grep -q '<p id="issues">Issues: <a href="issue-205.html">205</a> (1 run), <a href="issue-270.html">270</a> (4 runs)</p>' \
	site/index.html || { grep -o '<p id="issues">.*' site/index.html >&2; fail "the index does not link the issues' pages"; }
grep -q '<th>issues</th><td><a href="issue-270.html">270</a></td>' site/run-5.html || fail "run 5's page does not link its issue"
ok "the index and a run's page link the issue pages"
sentence=$("$LABRUN" report --issue 270 | grep -o '[0-9]* cells: [^.]*' | head -1)
[ -n "$sentence" ] || fail "the report of issue 270 has no sentence accounting for its cells"
grep -qF "<p id=\"accounting\">$sentence.</p>" site/issue-270.html || fail "the issue page lacks the report's sentence: $sentence"
ok "the issue page accounts for the cells in the report's words: ${sentence%%;*}"
# the grid: a link per cell, each to a section of its own
ncells=${sentence%% cells:*}
equals "$(grep -o '<a href="#cell-[0-9]*-[0-9]*">' site/issue-270.html | sort -u | wc -l | tr -d ' ')" "$ncells" "the grid has a link per cell"
equals "$(grep -o '<section class="cell" id="cell-[0-9]*-[0-9]*">' site/issue-270.html | wc -l | tr -d ' ')" "$ncells" \
	"and a section per cell"
# a click on the divergent cell opens its section, which names the case and where its tokens part
for w in 1400 390; do
	v=$(grep -o 'data-target="[^"]*"' "dom-check-issue-270-$w.html")
	case $v in
	"data-target=\"$cell top="*": run 2: model=qwen3-4b / rngd-atom "*"case ${case_db% *}: tokens differ at position ${case_db#* };"*) ;;
	*) fail "opening #$cell at $w px did not show case ${case_db% *} diverging at ${case_db#* }: ${v:-no verdict}" ;;
	esac
	top=${v#*top=}
	top=${top%%:*}
	[ "$top" -ge -1 ] && [ "$top" -lt 1200 ] || fail "the browser did not scroll to #$cell at $w px (its top at $top px)"
done
ok "the grid's cell opens its section at 1400 and 390 px: case ${case_db% *}, tokens differ at ${case_db#* }"
# a CDF per metric, a line per route: each route's count is the requests (or gaps) its passes completed
passes=$(q "SELECT count(*) FROM collect_pass p JOIN response_set s ON s.id = p.set_id JOIN run_issue i ON i.run_id = s.run_id
	WHERE i.issue_ref = '270'")
for m in TTFT ITL E2EL; do
	grep -q "<title>$m per route, $passes passes pooled</title>" site/issue-270.html || fail "no CDF of $m over $passes passes"
done
"$LABRUN" sql --csv "SELECT s.route, sum(x.ttft_ms IS NOT NULL), sum(json_array_length(x.itl_ms)), sum(x.e2el_ms IS NOT NULL)
	FROM collect_request x JOIN response_set s ON s.id = x.set_id WHERE x.failure IS NULL
	AND s.run_id IN (SELECT run_id FROM run_issue WHERE issue_ref = '270') GROUP BY s.route" | sed 1d | tr -d '\r' >counts.csv
equals "$(cut -d, -f1 counts.csv | tr '\n' ' ')" "native-gpu rngd-atom " "the issue's passes went to two routes"
while IFS=, read -r route ttft itl e2el; do
	for mn in TTFT:$ttft ITL:$itl E2EL:$e2el; do
		awk -v t="<title>${mn%:*} per route" 'index($0, t) { on = 1 } on { print } on && /<\/svg>/ { exit }' site/issue-270.html |
			grep -q ">$route: ${mn#*:}, median [0-9.]* ms, p90 [0-9.]* ms, p99 [0-9.]* ms</text>" ||
			fail "the ${mn%:*} CDF's key does not give $route's ${mn#*:} values"
	done
done <counts.csv
ok "a CDF of TTFT, ITL and E2EL over $passes passes, a line per route, each keyed with its count"

# an experiment's page: each arm over the blocks, a figure per condition, keyed with each arm's drift as the report has it
"$LABRUN" report --run 2 --format json >report-2.json || fail "run 2's report as JSON"
jq -r '.runs[0].tables[] as $t | $t.rows[] | [.label, $t.baseline, .drift_baseline_pct, $t.arm, .drift_arm_pct] | @tsv' \
	report-2.json >drifts.tsv
[ -s drifts.tsv ] || fail "run 2's report has no drift"
while IFS="$(printf '\t')" read -r label a da b db; do
	awk -v t="<title>$label: each arm" 'index($0, t) { on = 1 } on { print } on && /<\/svg>/ { exit }' site/run-2.html >figure
	for want in "$(awk -v a="$a" -v d="$da" 'BEGIN { printf "%s: drift %+.1f%%", a, d }')" \
		"$(awk -v a="$b" -v d="$db" 'BEGIN { printf "%s: drift %+.1f%%", a, d }')"; do
		grep -qF ">$want" figure || fail "the figure of $label lacks '$want'"
	done
	blocks=$(jq -r --arg l "$label" '[.runs[0].tables[0].rows[] | select(.label == $l) | .blocks][0]' report-2.json)
	# arm 0's markers are circles, arm 1's squares (site-plot.c): a marker per block each, and one in the key
	[ "$(grep -o '<circle ' figure | wc -l)" = $((blocks + 1)) ] &&
		[ "$(grep -o '<rect [^>]*width="8"' figure | wc -l)" = $((blocks + 1)) ] ||
		fail "the figure of $label does not mark each of its $blocks blocks"
done <drifts.tsv
ok "run 2's page: each arm over the blocks, $(cut -f1 drifts.tsv | sort -u | wc -l | tr -d ' ') conditions, each arm's drift as the report's"
# per-arm drift is information since the ratio trend rule (issue 42): the page flags none, as the report flags none
lacks site/run-2.html "DRIFT" "no per-arm DRIFT flag on the page"

# a serving experiment's page: each pass's requests in flight, its peak the report's, its gauge samples the stored ones
"$LABRUN" report --run 5 --format json | jq -r '.serving.passes[] | "\(.set) \(.route) \(.peak)"' >passes.txt
[ "$(wc -l <passes.txt)" -gt 0 ] || fail "run 5 has no collected pass"
"$LABRUN" sql --csv "SELECT set_id, count(*) FROM collect_gauge GROUP BY set_id" | sed 1d | tr -d '\r' >samples.csv
while read -r set route peak; do
	awk -v t="<title>Run 5, the pass of set $set, route $route: requests in flight" \
		'index($0, t) { on = 1 } on { print } on && /<\/svg>/ { exit }' site/run-5.html >figure
	grep -q ">client: requests sent and not yet ended (peak $peak)<" figure || fail "pass $set: no client count, or not its peak $peak"
	samples=$(grep "^$set," samples.csv | cut -d, -f2)
	[ "${samples:-0}" -gt 0 ] && grep -q ">server: the running gauge, $samples samples\?, each held to the next<" figure ||
		fail "pass $set: no running gauge of its $samples samples"
done <passes.txt
ok "run 5's page: requests in flight over each of its $(wc -l <passes.txt | tr -d ' ') passes, the client's and the server's"

# its executions' logs: the run page no longer says none recorded, and a stdout opens from it, the stored bytes
grep -A1 '<h2 id="logs">' site/run-5.html | grep -q 'none recorded' && fail "run 5's page says its logs are none recorded"
grep -A1 '<h2 id="logs">' site/run-1.html | grep -q 'none recorded' || fail "run 1 (no execution, no artifact) claims logs"
sha=${log#logs/}
sha=${sha%.txt}
equals "$(q "SELECT count(*) > 0 FROM execution WHERE run_id = 5 AND stdout_sha256 = '$sha'")" 1 "the linked stdout is an execution's"
cmp "site/$log" "$LABRUN_STORE/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)" || fail "site/$log is not the stored stdout"
first=$(head -1 "site/$log" | cut -c1-60)
[ -n "$first" ] && grep -qF "$first" dom-log.html || fail "the browser does not show the stdout's text: $first"
ok "an execution's stdout opens from run 5's page: the stored bytes, shown as text ($first...)"
# a log whose bytes are nowhere (its object removed, never archived) is said to be missing; the rest is built
cp -r "$LABRUN_STORE" lost-store
rm "lost-store/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)"
LABRUN_STORE="$PWD/lost-store" "$LABRUN" site --run 5 -o lost >/dev/null 2>"$T/err" || { cat "$T/err" >&2; fail "a site with a log missing"; }
grep -q ">stdout not in this store (<code>$(echo "$sha" | cut -c1-12)</code>)<" lost/run-5.html &&
	[ ! -e "lost/$log" ] || fail "the missing stdout is not said to be missing"
ok "a log missing from the store is said to be, and the site is built all the same"

# the diff of any two runs, drawn from their data files
grep -q 'id="diff-status">[0-9]* facts differ, [0-9]* are the same<' dom-diff.html ||
	{ grep -o 'id="diff-status">[^<]*' dom-diff.html >&2; fail "the diff did not run"; }
ok "diff.html#3,4 compares them"
grep -q '<td>geometry</td><td>model</td><td class="a">-</td><td class="b">qwen3-4b</td>' dom-diff.html ||
	fail "the diff does not show run 4's geometry"
ok "and shows only what changed: run 4's geometry"

# layout: no clipped or overlapping text at a desktop's width and a phone's, each page laid out at that width
for page in index run-1 run-2 run-4 run-5 issue-270 diff; do
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
[ -s "crate/site/$log" ] || fail "the crate's site lacks the stdout run 5's page links"
echo forged >>"tampered/site/$log"
expect_exit 1 "a changed page and a changed log in the crate" "$LABRUN" verify tampered
contains "$T/out" "site/index.html" "the page is named"
contains "$T/out" "site/$log: differs from the log its rows give" "and the log, against the one its rows give"
