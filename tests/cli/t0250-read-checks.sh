#!/bin/sh
# Every read checks (issue 11, item 3): labrun cat, show and manifest serve an object only while it
# still hashes to its name, naming the object otherwise; a stored definition text that no longer
# matches its sha256 is refused by everything that reads it (report, replay, diff).
. "$(dirname "$0")/lib.sh"

printf 'first\n' >a.txt
printf 'second\n' >b.txt
"$LABRUN" record -q --artifact a.txt --artifact b.txt -- true >/dev/null 2>&1
obj() { q "SELECT sha256 FROM artifact WHERE name = '$1'"; }
path() { echo "$T/store/objects/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-)"; }
a=$(obj a.txt) b=$(obj b.txt)
expect_exit 0 "cat before tampering" "$LABRUN" cat 1 a.txt
contains "$T/out" "first" "the content"

# swap the two object files: each is still a valid file, but not the content its name says
pa=$(path "$a") pb=$(path "$b")
chmod u+w "$pa" "$pb"
mv "$pa" "$T/swap" && mv "$pb" "$pa" && mv "$T/swap" "$pb"
expect_exit 1 "cat refuses a swapped object" "$LABRUN" cat 1 a.txt
contains "$T/err" "cannot print 'a.txt' of run 1: object '$pa' is corrupt" "naming the object"
lacks "$T/out" "second" "and prints none of the wrong content"
expect_exit 0 "show" "$LABRUN" show 1
expect_exit 1 "a crate is not written from a swapped object" "$LABRUN" manifest --run 1 -o crate
contains "$T/err" "is corrupt" "the manifest names it"

# a definition text edited behind labrun's back, even with its seal recomputed, is refused
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
sqlite3 "$T/store/labrun.db" "UPDATE run_definition SET text = replace(text, 'blocks = 6', 'blocks = 7') WHERE run_id = 2"
expect_exit 3 "report refuses the edited definition (the store is damaged)" "$LABRUN" report --run 2
contains "$T/err" "the stored definition of run 2 does not match its sha256" "named"
expect_exit 3 "replay refuses it" "$LABRUN" replay -q 2
contains "$T/err" "the stored definition of run 2 does not match its sha256" "named by replay"

# an object missing from objects/ and never archived is named, not "unknown error"
printf 'lost\n' >lost.txt
"$LABRUN" record -q --artifact lost.txt -- true >/dev/null 2>&1
lost=$(q "SELECT sha256 FROM artifact WHERE name = 'lost.txt'")
rm -f "$(find "$T/store/objects" -name "*${lost#??}")"
expect_exit 1 "a crate of a run whose object is gone fails" "$LABRUN" manifest --run last -o lost-crate
contains "$T/err" "${lost#??}' is missing, and it was never archived" "naming the object"
lacks "$T/err" "unknown error" "never 'unknown error'"
[ ! -e lost-crate ] || fail "a partial crate was left behind"
ok "no partial crate is left"

# A read error in the middle of a row loop is an error, not the end of the rows: fsck checked
# 53 of 151 objects and said nothing when a page of the object index could not be read.
export LABRUN_STORE="$T/corrupt"
# A store made before new stores had 16 KiB pages (docs/design.md): 4 KiB pages, so that 120 runs
# fill more than one leaf page of the object index.
"$LABRUN" init >/dev/null 2>&1
sqlite3 "$T/corrupt/labrun.db" "PRAGMA journal_mode=DELETE; PRAGMA page_size=4096; VACUUM; PRAGMA journal_mode=WAL" >/dev/null
i=0
while [ $i -lt 120 ]; do
	"$LABRUN" record -q -- echo "run $i" >/dev/null 2>&1
	i=$((i + 1))
done
db="$T/corrupt/labrun.db"
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
page=$(sqlite3 "$db" "SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_object_1' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 1")
[ -n "$page" ] || fail "the object index has fewer than two leaf pages"
size=$(sqlite3 "$db" "PRAGMA page_size")
printf '\377' | dd of="$db" bs=1 seek=$(( (page - 1) * size )) conv=notrunc 2>/dev/null
expect_exit 3 "fsck on a store whose object index cannot be read fails" "$LABRUN" fsck
contains "$T/err" "cannot read the object list in store" "and says the object list could not be read"
lacks "$T/out" "objects:" "instead of reporting a short count"

# show tails a log found the one way objects are (evidence/object.c), only while it hashes to its
# name; a running run's log is tailed from its spool
export LABRUN_STORE="$T/show-store"
"$LABRUN" record -- sh -c 'echo kept-line' >/dev/null 2>&1
expect_exit 0 "show tails a run's log" "$LABRUN" show 1
contains "$T/out" "kept-line" "its last line"
so=$(q "SELECT sha256 FROM artifact WHERE run_id = 1 AND role = 'stdout'")
po="$LABRUN_STORE/objects/$(echo "$so" | cut -c1-2)/$(echo "$so" | cut -c3-)"
chmod u+w "$po" && printf 'forged-line\n' >"$po"
expect_exit 0 "show of a run whose log was changed" "$LABRUN" show 1
contains "$T/out" "(not shown: object '$po' is corrupt" "says why the log is not shown"
lacks "$T/out" "forged-line" "and shows none of it"
"$LABRUN" record -- sh -c 'echo spooled-line; sleep 30' >/dev/null 2>&1 &
rec=$!
i=0
until "$LABRUN" show last 2>/dev/null | grep -q spooled-line || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
expect_exit 0 "show of a running run" "$LABRUN" show last
contains "$T/out" "stdout (still being written):" "says the log is still being written"
contains "$T/out" "spooled-line" "and tails its spool"
kill "$rec" && wait "$rec" || true
