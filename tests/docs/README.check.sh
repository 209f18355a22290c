#!/bin/sh
# After tests/docs/doc.sh has run README.md's blocks (the Quick start's main job
# first under make check-slow), in the same work tree and store: did the tour's
# commands do what their comments say? It once recorded its outputs into the
# work tree (every later run dirty) and named runs by numbers that were off by
# one after the Quick start, so ingest filed serving evidence under the encoder
# experiment and diff compared unrelated runs.
set -eu
fail() { echo "not ok - README.md: $*" >&2; exit 1; }
n=0
check() { # check DESCRIPTION SQL WANT
	got=$(labrun sql --csv "$2" | sed -n '2{s/\r//g;p;}')
	[ "$got" = "$3" ] || fail "$1: got '$got', expected '$3' ($2)"
	n=$((n + 1))
	echo "# ok: $1"
}

[ -z "$(git status --porcelain)" ] || { git status --porcelain >&2; fail "the tour left files git sees in the work tree"; }
echo "# ok: the work tree is clean: the tour wrote only ignored paths"
check "no run was recorded from a dirty tree" "SELECT count(*) FROM source_state WHERE dirty = 1" 0
check "every run saw the work tree" "SELECT count(*) FROM run WHERE id NOT IN (SELECT run_id FROM source_state)" 0
for f in site/index.html site/diff.html crate/ro-crate-metadata.json issue-205.tar.zst lab.pub.pem comment.md kv.dlf16.npy kv.bf16.npy; do
	[ -s "tour/$f" ] || fail "tour/$f was not written"
done
echo "# ok: the tour's outputs are in tour/"

check "the recorded benchmark is an encoder205 record run with its artifact" \
	"SELECT count(*) FROM run r JOIN experiment e ON e.id = r.experiment_id JOIN artifact a ON a.run_id = r.id
	 WHERE r.kind = 'record' AND e.name = 'encoder205' AND a.name = 'results/result.json'" 1
check "ingest, compare and gate add to the serving experiment's run, none to another run" \
	"SELECT count(DISTINCT e.name) || ' ' || group_concat(DISTINCT e.name) FROM (
	   SELECT run_id FROM response_set WHERE condition_idx IS NULL
	   UNION ALL SELECT run_id FROM comparison UNION ALL SELECT run_id FROM gate) x
	 JOIN run r ON r.id = x.run_id JOIN experiment e ON e.id = r.experiment_id" "1 serving-sim"
check "the two routes were ingested by hand" \
	"SELECT group_concat(route, '+') FROM (SELECT route FROM response_set WHERE condition_idx IS NULL ORDER BY route)" \
	"native-gpu+rngd-atom"

if [ "${LABRUN_DOCS_SLOW:-0}" = 1 ] && command -v chromium >/dev/null && command -v node >/dev/null; then
	# the site of everything the tour recorded (the encoder205 main job and the serving example among
	# it) in Chromium: no text box clipped or overlapping, on a desktop's width and a phone's; one
	# Chromium loads every page (tests/site/dump-dom.mjs)
	cp "$TOP_SRCDIR/tests/site/check-layout.js" tour/site/
	mkdir tour/layout
	set --
	for page in tour/site/index.html tour/site/run-*.html; do
		name=$(basename "$page" .html)
		sed 's|</body>|<script src="check-layout.js"></script></body>|' "$page" >"tour/site/check-$name.html"
		for w in 1400 390; do
			set -- "$@" $w "file://$PWD/tour/site/check-$name.html" "tour/layout/$name-$w.html"
		done
	done
	node "$TOP_SRCDIR/tests/site/dump-dom.mjs" --user-data-dir "$PWD/tour/chromium" "$@" 2>tour/layout/chromium.err ||
		{ cat tour/layout/chromium.err >&2; fail "Chromium did not load every page of the tour's site"; }
	for page in tour/site/index.html tour/site/run-*.html; do
		for w in 1400 390; do
			v=$(grep -o 'data-layout="[^"]*"' "tour/layout/$(basename "$page" .html)-$w.html")
			case $v in 'data-layout="ok '*" text boxes at $w px\"") ;; *) fail "$page at $w px: ${v:-no verdict}" ;; esac
		done
	done
	n=$((n + 1))
	echo "# ok: every page of the tour's site lays out clean at 1400 and 390 px"
fi
if [ "${LABRUN_DOCS_SLOW:-0}" = 1 ]; then
	check "the Quick start's main job is run 1, the encoder205 experiment" \
		"SELECT r.kind || ' ' || e.name FROM run r JOIN experiment e ON e.id = r.experiment_id WHERE r.id = 1" \
		"experiment encoder205"
	check "the replay re-executes the A/A experiment" \
		"SELECT e.name FROM run r JOIN run o ON o.id = r.replay_of JOIN experiment e ON e.id = o.experiment_id" \
		"aa-noise"
fi
echo "# $n store checks passed"
