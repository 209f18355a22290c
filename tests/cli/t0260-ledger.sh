#!/bin/sh
# The ledger: every final run is chained, and 'labrun audit --head SEQ:DIGEST'
# names each way of rewriting the store behind it, each tried on its own copy
# of one store: a repetition edited with its seal recomputed, a run deleted
# (a failed one), two runs reordered, the definition text rewritten, two
# object files swapped, host details edited, the ledger truncated.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
"$L" record -q --issue 270 -- true >/dev/null 2>&1
"$L" record -q --issue 270 -- false >/dev/null 2>&1 || true
"$L" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
printf 'one\n' >a.txt
printf 'two\n' >b.txt
"$L" record -q --artifact a.txt --artifact b.txt -- true >/dev/null 2>&1

expect_exit 0 "a clean store audits" "$L" audit
head=$(sed -n 's/^ledger head: //p' "$T/out")
equals "${head%%:*}" "5" "the head is entry 5: one per final run, and the experiment's design before its blocks"
equals "$(q "SELECT group_concat(kind, ' ') FROM ledger")" "final final design final final" "each appended when final"
# the chain recomputed from docs/schema.md's canonical form, with sha256sum rather than labrun
prev=0000000000000000000000000000000000000000000000000000000000000000
sqlite3 -separator ' ' "$T/store/labrun.db" "SELECT seq, run_uuid, kind, content, prev, digest FROM ledger ORDER BY seq" |
while read -r seq uuid kind content was digest; do
	[ "$was" = "$prev" ] || fail "entry $seq does not link to entry $((seq - 1))"
	got=$(printf 'labrun-ledger-1\n%s\n%s\n%s\n%s\n%s\n' "$seq" "$uuid" "$kind" "$content" "$prev" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$digest" ] || fail "entry $seq: sha256sum gives $got, the ledger holds $digest"
	prev=$digest
done
ok "the chain recomputes with sha256sum from its documented form"
expect_exit 0 "the store extends its own head" "$L" audit --head "$head"
contains "$T/out" "the store extends the published head $head" "says so"
# the head travels with the evidence: reports and crates (and so archives) carry it
"$L" report --issue 205 >"$T/report.md" 2>&1 || fail "report"
contains "$T/report.md" "Ledger head: \`$head\`" "the Markdown report carries the head"
equals "$("$L" report --issue 205 --format json | jq -r '"\(.ledger_head.seq):\(.ledger_head.digest)"')" "$head" \
	"the JSON report too"
"$L" manifest --run 1 -o crate --license CC-BY-4.0 >/dev/null 2>&1 || fail "manifest"
contains crate/ro-crate-metadata.json "\"labrun-ledger-head:$head\"" "the crate names it among its identifiers"
expect_exit 2 "a malformed head is refused" "$L" audit --head 4:xyz
contains "$T/err" "invalid ledger head '4:xyz'" "named"
# a sequence number past 64 bits was clamped to 2^63-1 and taken; a sign or a blank was taken too
digest=${head#*:}
for bad in "99999999999999999999:$digest" "+4:$digest" " 4:$digest"; do
	expect_exit 2 "the head '$(echo "$bad" | cut -c1-24)...' is refused" "$L" audit --head "$bad"
	contains "$T/err" "invalid ledger head" "named"
done

# the ledger refuses edits made through SQL as it is
db="$T/store/labrun.db"
sqlite3 "$db" "DELETE FROM ledger WHERE seq = 4" 2>"$T/sqlerr" && fail "the ledger let a row be deleted"
contains "$T/sqlerr" "the ledger is append-only" "a DELETE on the ledger is refused by the store itself"

cp -R "$T/store" "$T/pristine"
tamper() { # NAME SQL...: a fresh copy of the store, tampered with
	rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
	name=$1
	shift
	sqlite3 "$db" "PRAGMA foreign_keys = OFF; DROP TRIGGER ledger_append_only_update;
		DROP TRIGGER ledger_append_only_delete; $*" >/dev/null || fail "$name: the tampering itself failed"
}
caught() { # NAME TEXT: audit --head exits 1 and names TEXT
	expect_exit 1 "$1 is caught" "$L" audit --head "$head"
	contains "$T/out" "$2" "$1: named"
}

tamper "an edited repetition" "UPDATE repetition SET wall_s = wall_s * 2 WHERE run_id = 3 AND condition_idx = 0 AND block = 1 AND slot = 0"
python3 "$TOP_SRCDIR/tests/cli/seal-check.py" reseal "$db" "$TOP_SRCDIR/docs/schema.md" 3
"$L" audit --run 3 >"$T/out" 2>&1 || true
lacks "$T/out" "rows of table 'repetition' changed" "the recomputed seal hides the edit from the seal check"
caught "an edited repetition with a recomputed seal" "run 3 ($(q "SELECT uuid FROM run WHERE id = 3")) differs from its ledger entry 4"
# nor does manifest sign a crate of it that no reviewer could verify (it did, and called it valid)
expect_exit 1 "manifest of the resealed run is refused" "$L" manifest --run 3 -o "$T/resealed" --license CC-BY-4.0
contains "$T/err" "run 3 cannot be bundled: " "named"
contains "$T/err" "its rows were changed after it was sealed: 'labrun audit --run 3' names what changed" "and what to do"
[ ! -e "$T/resealed" ] || fail "a refused crate was left behind"

uuid2=$(q "SELECT uuid FROM run WHERE id = 2")
tamper "a deleted failed run" "DELETE FROM run_issue WHERE run_id = 2; DELETE FROM run_seal WHERE run_id = 2;
	DELETE FROM env_var WHERE run_id = 2; DELETE FROM source_state WHERE run_id = 2;
	DELETE FROM source_file WHERE run_id = 2; DELETE FROM artifact WHERE run_id = 2; DELETE FROM run WHERE id = 2"
caught "a deleted failed run" "run $uuid2 (ledger entry 2) is not in the store: deleted"

tamper "two reordered runs" "UPDATE ledger SET seq = 0 WHERE seq = 1; UPDATE ledger SET seq = 1 WHERE seq = 2;
	UPDATE ledger SET seq = 2 WHERE seq = 0"
caught "two reordered runs" "ledger entry 1 does not link to the entry before it"

tamper "a rewritten definition" "UPDATE run_definition SET text = replace(text, 'blocks', 'blocks ') WHERE run_id = 3"
caught "a rewritten definition" "differs from its ledger entry 4"
contains "$T/out" "its design differs from the design registered in ledger entry 3" "and named as a changed design"

a=$(q "SELECT sha256 FROM artifact WHERE run_id = 4 AND name = 'a.txt'")
b=$(q "SELECT sha256 FROM artifact WHERE run_id = 4 AND name = 'b.txt'")
tamper "two swapped object files" "SELECT 1"
oa=$(find "$T/store/objects" -name "*${a#??}*" | head -1) ob=$(find "$T/store/objects" -name "*${b#??}*" | head -1)
[ -f "$oa" ] && [ -f "$ob" ] || fail "object files of a.txt and b.txt not found"
mv "$oa" "$T/swap" && mv "$ob" "$oa" && mv "$T/swap" "$ob"
caught "two swapped object files" "run 4:"

tamper "edited host details" "UPDATE host SET cpu_model = 'a faster CPU'"
caught "edited host details" "differs from its ledger entry"

tamper "a truncated ledger" "DELETE FROM ledger WHERE seq = 5"
caught "a truncated ledger" "the published head 5:$(printf %.12s "${head#5:}")..."
contains "$T/out" "is not in the ledger: it was truncated" "as truncated"
contains "$T/out" "is sealed but not in the ledger" "and the run it dropped is named"

# amendments after the head are listed, not hidden: a replay adds rows to run 4's original
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
"$L" record -q -- true >/dev/null 2>&1
expect_exit 0 "a new run after the head" "$L" audit --head "$head"
contains "$T/out" "after the head: entry 6, final of run" "is listed after the head"

# a store from before the ledger (version 9) is chained when it is first opened: every sealed
# run once, in run order, with seals that now cover host and experiment rows
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
# every table, index, view and column a migration after 9 made goes, newest first, each once (migration 26 made
# the ledger again; its triggers go with it)
# (a column is dropped only from a table version 9 had: the others go whole)
old=$(cat "$TOP_SRCDIR"/schema/000[0-9]-*.sql | sed -n 's/^CREATE TABLE \([a-z_]*\).*/\1/p' | tr '\n' ' ')
newer=$(for f in "$TOP_SRCDIR"/schema/[0-9][0-9][0-9][0-9]-*.sql; do [ "$(basename "$f" | cut -c1-4)" -lt 10 ] || cat "$f"; done |
	sed -n 's/^CREATE TABLE \([a-z_]*\).*/DROP TABLE \1;/p; s/^CREATE INDEX \([a-z_]*\).*/DROP INDEX \1;/p
		s/^CREATE VIEW \([a-z_]*\).*/DROP VIEW \1;/p
		s/^ALTER TABLE \([a-z_]*\) ADD COLUMN \([a-z_0-9]*\).*/ALTER TABLE \1 DROP COLUMN \2;/p' |
	tac | awk -v old=" $old " '!seen[$0]++ && (!/ DROP COLUMN / || index(old, " " $3 " "))' | tr '\n' ' ')
sqlite3 "$db" "$newer UPDATE run_seal SET tables = json_remove(tables, '$.host', '$.experiment');
	PRAGMA user_version = 9" || fail "could not make a version 9 store"
expect_exit 0 "a version 9 store audits clean after its migration" "$L" audit
equals "$(q "SELECT group_concat(kind || ':' || run_uuid, ' ') FROM (SELECT * FROM ledger ORDER BY seq)")" \
	"$(q "SELECT group_concat('final:' || uuid, ' ') FROM (SELECT uuid FROM run ORDER BY id)")" \
	"every run is chained once, in run order"
equals "$(q "SELECT count(*) FROM run_seal WHERE tables NOT LIKE '%\"host\"%'")" "0" "every seal covers the host now"
