#!/bin/sh
# Done-when 2: a failing command is kept with exit code, logs, git state,
# geometry, binding and host facts.
. "$(dirname "$0")/lib.sh"

make_repo "$T/repo"
cd "$T/repo"
echo changed >>tracked.txt
echo new >untracked.txt
head=$(git rev-parse HEAD)

expect_exit 3 "record exits with the command's status" \
	"$LABRUN" record --issue 270 --geometry model=qwen3-4b --binding device=atom:0 \
	-- sh -c 'echo out; echo err >&2; exit 3'
contains "$T/out" "out" "stdout is teed"
contains "$T/err" "err" "stderr is teed"

expect_exit 0 "show the run" "$LABRUN" show last
contains "$T/out" "status:     failed, exit code 3" "status failed with exit 3"
contains "$T/out" "HEAD $head" "git HEAD"
contains "$T/out" "dirty: yes" "dirty state"
contains "$T/out" "model=qwen3-4b" "geometry"
contains "$T/out" "device=atom:0  (user)" "binding given by the user"
contains "$T/out" "cpu_affinity=" "observed CPU affinity"
contains "$T/out" "host:       $(uname -n)" "host name"
contains "$T/out" "issues:     270" "issue reference"
contains "$T/out" "modified" "modified file listed"
contains "$T/out" "untracked.txt" "untracked file listed"
sed -n '/^stdout/,/^stderr/p' "$T/out" >"$T/logs"
contains "$T/logs" "    out" "stdout tail shown"
sed -n '/^stderr/,$p' "$T/out" >"$T/logs"
contains "$T/logs" "    err" "stderr tail shown"

# The hashes are the real ones.
want=$(sha256sum tracked.txt | cut -d' ' -f1)
equals "$(q "SELECT sha256 FROM source_file WHERE path = 'tracked.txt'")" "$want" "modified file sha256"
equals "$(q "SELECT dirty FROM source_state")" "1" "dirty column"
equals "$("$LABRUN" cat last stderr)" "err" "stderr log content"

# A clean tree hashes the empty diff.
git add -A && git commit -qm more
expect_exit 0 "record in a clean tree" "$LABRUN" record -q -- true
equals "$(q "SELECT dirty || ' ' || diff_sha256 FROM source_state WHERE run_id = 2")" \
	"0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "clean tree: empty diff hash"
# Only untracked files: the patch is empty (record skips computing it), then each file by path and hash.
echo new >only-new.txt
expect_exit 0 "record with an untracked file only" "$LABRUN" record -q -- true
untracked_only=$(printf 'untracked\0only-new.txt\0%s\0' "$(sha256sum only-new.txt | cut -d' ' -f1)" | sha256sum | cut -d' ' -f1)
equals "$(q "SELECT dirty || ' ' || diff_sha256 FROM source_state WHERE run_id = 3")" "1 $untracked_only" \
	"untracked only: the diff hash is the untracked entries'"
# A change staged and then undone in the work tree: status sees a tracked change, so the patch is
# computed (libgit2 shows the file's staged change), and the hash is not the untracked entries' alone.
echo staged >>tracked.txt && git add tracked.txt && git show HEAD:tracked.txt >tracked.txt
expect_exit 0 "record with a staged change undone in the work tree" "$LABRUN" record -q -- true
[ "$(q "SELECT diff_sha256 FROM source_state WHERE run_id = 4")" != "$untracked_only" ] ||
	fail "a staged change was left out of the diff hash"
ok "a staged change enters the diff hash"
rm only-new.txt
git reset -q --hard

# show prints logs for a terminal: escape sequences in them are shown, not obeyed ('cat' keeps bytes)
"$LABRUN" record -q -- printf 'a\033]0;retitled\007b\033[2Jc\tend\n' >/dev/null 2>&1
expect_exit 0 "show a run whose log holds escape sequences" "$LABRUN" show last
! grep -q "$(printf '\033')" "$T/out" || fail "show copied an escape character to the screen"
contains "$T/out" 'a\x1b]0;retitled\x07b\x1b[2Jc' "shows them as \\xNN"
contains "$T/out" "$(printf 'c\tend')" "a tab is kept"
"$LABRUN" cat last stdout | cmp -s - "$(printf 'a\033]0;retitled\007b\033[2Jc\tend\n' >"$T/want"; echo "$T/want")" ||
	fail "cat changed the log's bytes"
ok "cat gives the bytes as they are"

# an argument that is not UTF-8 is recorded and replayed byte for byte (it once stopped the
# command from running: "out of memory", exit 125)
name=$(printf 'caf\351.csv')
expect_exit 0 "a non-UTF-8 argument is recorded" "$LABRUN" record -q -- sh -c 'printf x > "$1"' sh "$name"
[ -f "$name" ] || fail "the command did not run with its argument"
ok "the command ran with it"
equals "$("$LABRUN" sql --csv "SELECT argv_json FROM run ORDER BY id DESC LIMIT 1" | sed -n 2p | tr -d '\r')" \
	'"[""sh"",""-c"",""printf x > \""$1\"""",""sh"",{""escaped"":""caf%E9.csv""}]"' \
	"stored in its documented escaped form"
expect_exit 0 "show" "$LABRUN" show last
contains "$T/out" "sh caf%E9.csv" "show prints the escaped form"
rm "$name"
expect_exit 0 "the run replays" "$LABRUN" replay last
[ -f "$name" ] || fail "the replay did not get the exact bytes back"
ok "the replay ran with the exact bytes"

# a value, a working directory and a log file name that are not UTF-8 are kept, in JSON too, in
# the same escaped form (show --json and crates dropped them)
mkdir "$name.d"
expect_exit 0 "record in a non-UTF-8 directory with a non-UTF-8 value and log name" sh -c \
	'cd "$1" && OMP_PLACES="$1" "$LABRUN" record -q --log "$1.log" -- sh -c "echo hi >\"\$1.log\"" sh "$1"' sh "$name.d"
equals "$(q "SELECT hex(value) FROM env_var WHERE name = 'OMP_PLACES' ORDER BY run_id DESC LIMIT 1")" \
	"$(printf '%s' "$name.d" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" "the value's bytes are stored exactly"
expect_exit 0 "show --json" "$LABRUN" show --json last
equals "$(jq -r '.environment.OMP_PLACES.escaped' "$T/out")" "caf%E9.csv.d" "the value is escaped, not dropped"
equals "$(jq -r '.cwd.escaped' "$T/out")" "%2F$(printf '%s' "${PWD#/}/" | sed 's/%/%25/g')caf%E9.csv.d" \
	"so is the working directory (a leading '/' is %2F in the member form)"
equals "$(jq -r '.artifacts[] | select(.role == "log") | .name.escaped' "$T/out")" "caf%E9.csv.d.log" "and the log's name"
expect_exit 0 "a crate of it" "$LABRUN" manifest --run last -o nonutf8-crate
equals "$(jq -r '.environment.OMP_PLACES.escaped' nonutf8-crate/run-*/run.json)" "caf%E9.csv.d" "the crate's run.json keeps it"
