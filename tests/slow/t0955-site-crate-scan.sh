#!/bin/sh
# make check-slow: the crate of tests/cli/t0355-site.sh (a signed serving run, records, their
# site) scans clean as it is, its DSSE envelopes undecoded. make check scans it with each
# envelope's statement decoded: labrun scan's regexes (src/record/secretlike.c) take time
# quadratic in the length of a run of letters and digits on a line, and a base64 payload is
# one, so this crate's two large envelopes take about 65 s of CPU here.
. "$(dirname "$0")/../cli/lib.sh"
. "$TOP_SRCDIR/tests/site/store.sh"

expect_exit 0 "manifest --site" "$LABRUN" manifest --issue 270 --site -o crate --license CC-BY-4.0
[ -s crate/site/index.html ] && [ -s crate/run-2/run.intoto.json ] || fail "the crate lacks its site or run 2's envelope"
ok "the crate holds the site and the serving run's signed statement"
expect_exit 0 "the crate with its site scans clean, envelopes and all" "$LABRUN" scan crate
contains "$T/err" "0 finding(s)" "no finding"
