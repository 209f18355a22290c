#!/bin/sh
# Help, version, init, a passing run, list and show.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "--help lists the commands" "$LABRUN" --help
contains "$T/out" "record" "help names record"
expect_exit 0 "--version prints the version" "$LABRUN" --version
contains "$T/out" "labrun 0." "version line"
for c in init record list show cat sql fsck; do
	expect_exit 0 "'$c -h' prints its usage" "$LABRUN" "$c" -h
	contains "$T/out" "usage: labrun $c" "$c usage text"
done

# a subcommand's -h is its usage ('key export -h' once said "takes nothing")
for c in "key init" "key show" "key export" "key trust" "key untrust" "key list" "remote add" "ingest responses"; do
	expect_exit 0 "'$c -h' prints the usage" "$LABRUN" $c -h
	contains "$T/out" "usage: labrun ${c%% *}" "'$c -h': the usage"
done

expect_exit 1 "list without a store says so" "$LABRUN" list
contains "$T/err" "hint:" "missing store gives a hint"
# every command that writes creates the store (remote add and config once said "cannot find a store")
for w in "remote add lab postgresql://db.lab/evidence" "config manifest.license CC-BY-4.0"; do
	rm -rf "$T/store"
	expect_exit 0 "'$w' without a store" "$LABRUN" $w
	[ -f "$T/store/labrun.db" ] || fail "'$w' did not create the store"
	ok "'$w' creates the store"
done
rm -rf "$T/store"
expect_exit 1 "'config' reading a value does not create one" "$LABRUN" config manifest.license
[ ! -e "$T/store" ] || fail "a read created the store"
ok "a read creates nothing"

expect_exit 0 "init creates the store" "$LABRUN" init
[ -f "$T/store/labrun.db" ] && [ -d "$T/store/objects" ] || fail "store layout"
ok "store holds labrun.db and objects/"
equals "$(q "PRAGMA page_size")" 16384 "a new store has 16 KiB pages (docs/design.md)"

expect_exit 0 "a passing command is recorded" "$LABRUN" record --experiment demo --note "first" -- echo hello
contains "$T/out" "hello" "output is teed"
contains "$T/err" "recorded run 1 (passed" "summary line"
equals "$(q "SELECT status || ' ' || exit_code FROM run WHERE id = 1")" "passed 0" "row is passed with exit 0"
equals "$(q "SELECT count(*) FROM run WHERE uuid GLOB '????????-????-4???-????-????????????'")" "1" "run has a v4 uuid"

expect_exit 0 "list shows it" "$LABRUN" list
contains "$T/out" "passed" "list has the status"
contains "$T/out" "echo hello" "list has the command"
expect_exit 0 "list --json" "$LABRUN" list --json --experiment demo
contains "$T/out" '"status": "passed"' "json list"
expect_exit 0 "show --json" "$LABRUN" show --json 1
contains "$T/out" '"note": "first"' "show json has the note"
expect_exit 0 "cat stdout" "$LABRUN" cat last stdout
equals "$(cat "$T/out")" "hello" "cat gives the exact log"

# Relative references: REF~N is the Nth run recorded before REF, whatever the numbers are.
"$LABRUN" record -q -- echo second >/dev/null
"$LABRUN" record -q -- echo third >/dev/null
equals "$("$LABRUN" cat last~0 stdout)" "third" "last~0 is last"
equals "$("$LABRUN" cat last~1 stdout)" "second" "last~1 is the run before the newest"
equals "$("$LABRUN" cat last~2 stdout)" "hello" "last~2 counts back two"
equals "$("$LABRUN" cat 3~2 stdout)" "hello" "an id takes ~N too"
expect_exit 0 "show takes a relative reference" "$LABRUN" show --json last~1
contains "$T/out" '"id": 2,' "show last~1 is run 2"
expect_exit 1 "counting back past the first run is refused" "$LABRUN" cat last~3 stdout
contains "$T/err" "there are not 3 runs before run 3" "the error says how far back the store goes"
for bad in 'last~' '~1' 'last~x' 'last~-1' 'last~1~1'; do
	expect_exit 2 "'$bad' is not a run reference" "$LABRUN" cat "$bad" stdout
	contains "$T/err" "'~' takes a run before it and a count after it" "'$bad' says what '~' wants"
done

# The default store: nearest .labrun walking up, else at the git top level.
unset LABRUN_STORE
make_repo "$T/repo"
mkdir -p "$T/repo/sub/dir"
cd "$T/repo/sub/dir"
expect_exit 0 "first write outside a store creates one at the git top" "$LABRUN" record -q -- true
[ -d "$T/repo/.labrun" ] || fail "store at the git top level"
ok "store created at the git top level"
git -C "$T/repo" status --porcelain >"$T/st"
lacks "$T/st" ".labrun" "the store is invisible to git status"
cd "$T/repo/sub"
expect_exit 0 "a subdirectory finds the store above" "$LABRUN" list
contains "$T/out" "true" "the run is listed from below"
