#!/bin/sh
# What a command does with the store is its row's in the command table (src/cmd/labrun.c); main
# holds the store cmd_store opens (src/cmd/open.c), which a command asks for only once it has
# checked what it was given. So help, a usage error or a bad input opens no store and creates
# none, and a form that needs less than its row (config KEY, remote list, scan PATH) asks for less.
. "$(dirname "$0")/lib.sh"

# no store yet: $LABRUN_STORE names a directory that does not exist
for c in init record import run collect pull "bench store" config "remote add"; do
	expect_exit 0 "'$c -h' without a store" "$LABRUN" $c -h
done
expect_exit 125 "record: a usage error" "$LABRUN" record --bogus -- true
expect_exit 2 "import: a bad value" "$LABRUN" import --threads 0
expect_exit 2 "import: a source that does not exist" "$LABRUN" import --model qwen3-0.6b --tokens 64 --source nothing.npy
expect_exit 2 "run: a definition that does not exist" "$LABRUN" run nothing.ini
printf '{"id": 1}\n' >bad.jsonl
expect_exit 2 "collect: a bad cases file" "$LABRUN" collect --endpoint http://127.0.0.1:9/v1 --route r --cases bad.jsonl
contains "$T/err" "bad.jsonl:1:" "collect names the bad line"
expect_exit 2 "config: an unknown key" "$LABRUN" config no.such.key value
expect_exit 2 "remote add: no URI" "$LABRUN" remote add lab
[ ! -e "$T/store" ] || fail "help or bad input created the store"
ok "help and bad input create no store"

# forms that read: a store is needed (and none is made), or for a scan of paths, none at all
expect_exit 1 "'remote list' without a store" "$LABRUN" remote list
contains "$T/err" "cannot open store '$T/store': no such directory" "names the store"
expect_exit 1 "'config KEY' without a store" "$LABRUN" config manifest.license
expect_exit 1 "'scan --run' without a store" "$LABRUN" scan --run last
printf 'see http://intranet.example/wiki\n' >notes.txt
expect_exit 0 "'scan PATH' without a store" "$LABRUN" scan notes.txt
[ ! -e "$T/store" ] || fail "a form that reads created the store"
ok "forms that read create nothing"

# forms that write create it, and a scan of paths reads its settings when there is one
expect_exit 0 "'config KEY VALUE' creates the store" "$LABRUN" config scan.internal 'intranet\.example'
[ -f "$T/store/labrun.db" ] || fail "config KEY VALUE made no store"
expect_exit 1 "'scan PATH' applies the store's scan.internal" "$LABRUN" scan notes.txt
contains "$T/out" "notes.txt:1: internal-address" "the finding of the setting"
expect_exit 0 "'remote add' on the store" "$LABRUN" remote add lab postgresql://db.lab/evidence
expect_exit 0 "'remote list' reads it" "$LABRUN" remote list
contains "$T/out" "lab	postgresql://db.lab/evidence" "lists the remote"
