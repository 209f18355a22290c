#!/bin/sh
# labrun manifest: every crate labrun writes passes its own validator (one
# CreateAction per run, failed runs included), the BagIt manifest checks out
# with sha256sum, and broken crates are each rejected with the reason.
. "$(dirname "$0")/lib.sh"

C="$TOP_SRCDIR/tests/fixtures/crates"
printf 'w\n' >model.bin
"$LABRUN" record -q --issue 205 --artifact model.bin --tool rebel-compiler=0.11.0 -- echo hi >/dev/null 2>&1
"$LABRUN" record -q --issue 205 -- false >/dev/null 2>&1 || true
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1

expect_exit 0 "a crate for issue 205" "$LABRUN" manifest --issue 205 -o crate --license CC-BY-4.0 --author "Lab A"
contains "$T/out" "3 run(s)" "all three runs"
contains "$T/out" "valid" "validated as written"
expect_exit 0 "it validates again" "$LABRUN" manifest --validate crate
equals "$(grep -c '"@type": "CreateAction"' crate/ro-crate-metadata.json)" "3" "one CreateAction per run"
contains crate/ro-crate-metadata.json '"@id": "http://schema.org/FailedActionStatus"' "the failed run is registered too"
contains crate/ro-crate-metadata.json '"name": "rebel-compiler"' "tool versions become SoftwareApplications"
(cd crate && sha256sum -c --quiet manifest-sha256.txt) || fail "manifest-sha256.txt does not check out"
ok "manifest-sha256.txt checks out with sha256sum"
# the crate's repetitions read back to the very doubles the store holds (SQLite's text kept 15 digits)
csv=$(ls crate/run-3/repetitions.csv)
tail -n +2 "$csv" | tr -d '\r' | awk -F, '{ printf "%.17g\n", $6 }' >"$T/crate-walls"
# Python reads the doubles themselves (not labrun's code) and repr() names each exactly; sqlite3's
# quote() does not always (1 value in about 10^5 came out one unit in the last place off)
python3 -c 'import sqlite3, sys
for (w,) in sqlite3.connect(sys.argv[1]).execute("SELECT wall_s FROM repetition WHERE run_id = 3 ORDER BY condition_idx, block, slot"):
	print(repr(w))' "$T/store/labrun.db" | awk '{ printf "%.17g\n", $1 }' >"$T/store-walls"
[ -s "$T/crate-walls" ] && cmp -s "$T/crate-walls" "$T/store-walls" || {
	diff "$T/crate-walls" "$T/store-walls" | head >&2
	fail "repetitions.csv does not read back to the stored doubles"
}
ok "repetitions.csv reads back to the stored doubles, all $(wc -l <"$T/crate-walls")"
cmp crate/run-1/output/model.bin model.bin || fail "artifact copy"
ok "artifacts are copied into the crate"
expect_exit 1 "an existing directory is not overwritten" "$LABRUN" manifest --run 1 -o crate

expect_exit 0 "the valid fixture passes" "$LABRUN" manifest --validate "$C/valid"
check() {
	expect_exit 1 "crate '$1' is rejected" "$LABRUN" manifest --validate "$C/$1"
	contains "$T/err" "$2" "$1: $2"
}
check missing-root "no root data entity"
check missing-file "File 'data.txt' is not in the crate directory"
check wrong-hash "File 'data.txt' does not match its sha256"
check unreachable-file "File 'data.txt' is not reachable through the root's hasPart"
check action-without-instrument "has no instrument that resolves to a SoftwareApplication"
check instrument-not-software "has no instrument that resolves to a SoftwareApplication"
check unknown-key "uses 'colour', which the RO-Crate context does not define"
check root-without-license "the root data entity lacks 'license'"
check date-not-iso "the root's datePublished '29/11/2026' is not an ISO 8601 date"
check license-without-name "the root's license is not an entity with a name"
check no-process-profile "the root does not conform to the Process Run Crate profile"
check failed-without-error "failed but has no 'error' saying why"
check dangling-reference "the reference '#nowhere' names no entity of the crate"
for link in /etc/hostname /dev/zero; do
	rm -rf linked && cp -R "$C/link-base" linked && ln -s "$link" linked/data.txt
	# a link to /dev/zero once made the validator read forever
	expect_exit 1 "a File linked to $link is refused at once" timeout 10 "$LABRUN" manifest --validate linked
	contains "$T/err" "File 'data.txt' is not a plain file" "linked to $link: named"
done

# registration with a hub: validated first, recorded with the manifest hash and its runs
expect_exit 0 "register the crate" "$LABRUN" register --hub research-hub crate
contains "$T/out" "as registration 1" "recorded"
contains "$T/out" "3 run(s)" "with the runs it describes"
equals "$(q "SELECT manifest_sha256 FROM registration")" "$(sha256sum crate/ro-crate-metadata.json | cut -d' ' -f1)" \
	"the manifest's sha256"
equals "$(q "SELECT group_concat(run_id, ' ') FROM (SELECT run_id FROM registration_run ORDER BY run_id)")" "1 2 3" \
	"linked to its runs"
expect_exit 0 "list --registered" "$LABRUN" list --registered
contains "$T/out" "research-hub" "lists it"
expect_exit 0 "list --registered --json (it once printed the table)" "$LABRUN" list --registered --json
python3 -c 'import json, sys; r = json.load(sys.stdin); assert len(r) == 1 and r[0]["hub"] == "research-hub" and r[0]["runs"] == [1, 2, 3] and len(r[0]["manifest_sha256"]) == 64, r' \
	<"$T/out" || fail "the registrations are not JSON with their runs"
ok "one JSON object per registration, with its runs' ids"
expect_exit 2 "--registered with a run filter is refused" "$LABRUN" list --registered --issue 205
contains "$T/err" "it takes only --json" "says what it takes"
expect_exit 1 "an invalid crate is not registered" "$LABRUN" register --hub research-hub "$C/wrong-hash"
contains "$T/err" "cannot register" "says so"
equals "$(q "SELECT count(*) FROM registration")" "1" "nothing recorded for it"

# licence, author and publisher: from options, else the store's settings; a placeholder is a warning
expect_exit 0 "a crate with no licence is written" "$LABRUN" manifest --run 1 -o nolicence
contains "$T/err" "warning: the evidence declares the licence 'not declared'" "with a warning"
contains "$T/err" "labrun config manifest.license" "that says how to declare one"
expect_exit 0 "a licence given as TODO" "$LABRUN" manifest --run 1 -o todo --license TODO
contains "$T/err" "declares the licence 'TODO'" "is a placeholder too"
expect_exit 2 "an unknown setting is refused" "$LABRUN" config colour blue
contains "$T/err" "unknown key 'colour'" "named"
contains "$T/err" "manifest.license, manifest.author, manifest.publisher" "with the keys there are"
equals "$(q "SELECT count(*) FROM setting")" "0" "and nothing is stored"
expect_exit 1 "an unset key" "$LABRUN" config manifest.license
contains "$T/err" "'manifest.license' is not set" "says so"
expect_exit 0 "set the licence" "$LABRUN" config manifest.license CC-BY-4.0
expect_exit 0 "set the publisher" "$LABRUN" config manifest.publisher "Lab B"
expect_exit 0 "read it back" "$LABRUN" config manifest.license
equals "$(cat "$T/out")" "CC-BY-4.0" "as set"
expect_exit 0 "a crate after config" "$LABRUN" manifest --run 1 -o configured
lacks "$T/err" "warning" "no warning"
equals "$(jq -r '.["@graph"][] | select(.["@id"] == "#license") | .name' configured/ro-crate-metadata.json)" \
	"CC-BY-4.0" "declares the configured licence"
equals "$(jq -r '.["@graph"][] | select(.["@id"] == "./") | .publisher' configured/ro-crate-metadata.json)" \
	"Lab B" "and publisher"
expect_exit 0 "an option wins over the setting" "$LABRUN" manifest --run 1 -o overridden --license MIT
equals "$(jq -r '.["@graph"][] | select(.["@id"] == "#license") | .name' overridden/ro-crate-metadata.json)" \
	"MIT" "the option's licence"
expect_exit 0 "an archive declares the setting" "$LABRUN" archive --run 1 -o configured.tar.zst
lacks "$T/err" "warning" "without a warning"
expect_exit 0 "unset the licence" "$LABRUN" config --unset manifest.license
expect_exit 0 "an archive without one" "$LABRUN" archive --run 1 -o unlicensed.tar.zst
contains "$T/err" "declares the licence 'not declared'" "warns"
